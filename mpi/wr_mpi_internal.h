/*
 * wr_mpi_internal.h -- what mpi/'s files share (not installed).
 *
 * Every public call is a struct wrm_call: wrm_begin() finds the library's
 * duplicate of the caller's communicator, the local phase runs the wr_* calls
 * and records this rank's own failure (wrm_fail*), then one exchange of
 * struct wrm_item values carries both the data and the lowest failing rank,
 * so a rank that failed never leaves the others waiting in a collective.
 */
#ifndef WR_MPI_INTERNAL_H
#define WR_MPI_INTERNAL_H

#include <stdint.h>
#include "warpred_mpi.h"

#if defined(__GNUC__)
#  define WRM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define WRM_PRINTF(f, a)
#endif

/* wrm_item.kind beyond the wr_op values. */
enum { WRM_KIND_NONE = -1, WRM_KIND_ARGMIN = 16, WRM_KIND_ARGMAX = 17,
       WRM_KIND_EXACT_SUM = 18, /* reproducible float SUM: the value travels as a wr_exact_sum */
       WRM_KIND_NRM2 = 19 /* fast wr_mpi_nrm2: local norms, combined by wrm_norm_combine */ };

/* wrm_item.fail: no failure; the ranks disagree on type or op. */
#define WRM_FAIL_NONE INT64_MAX
#define WRM_FAIL_MISMATCH INT64_C(-1)

/* One element of any wr_type. */
typedef union wrm_value {
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
    unsigned char bytes[8];
} wrm_value;

/* What one rank contributes to an exchange; MPI moves it as raw bytes (one
 * contiguous datatype) and combines it with the library's own MPI_Op. */
typedef struct wrm_item {
    int64_t fail;     /* lowest (failing rank << 4 | wr_status), WRM_FAIL_NONE or _MISMATCH */
    uint64_t index;   /* argmin/argmax: global index of v */
    int32_t has;      /* 0: nothing to contribute (no elements, or no base) */
    int32_t kind;     /* wr_op, WRM_KIND_ARG*, or WRM_KIND_NONE (not checked against others) */
    int32_t type;     /* wr_type */
    int32_t pad_;     /* keeps the struct free of uninitialised padding */
    wrm_value v;
} wrm_item;

/* One public call in progress on this rank. */
struct wrm_call {
    const char *fn;      /* public function name, prefixes every reason */
    wr_context *ctx;     /* may be NULL (then reported as an argument error) */
    MPI_Comm comm;       /* the library's duplicate of the caller's comm */
    int rank, size;
    wr_status st;        /* this rank's first failure, or WR_SUCCESS */
};

/* Start a call: check MPI state and comm, find (or make, collectively) the
 * duplicate communicator.  Returns 0, or -1 with c->st and the reason set when
 * the call must end without communicating. */
int wrm_begin(struct wrm_call *c, const char *fn, wr_context *ctx, MPI_Comm comm);
/* Record this rank's failure (the first one wins) with a formatted reason. */
void wrm_fail(struct wrm_call *c, wr_status st, const char *fmt, ...) WRM_PRINTF(3, 4);
/* Record the failure st of a wr_* call, keeping its reason. */
void wrm_fail_call(struct wrm_call *c, wr_status st);
/* Record a failed MPI call (WR_ERR_DEVICE, with MPI_Error_string's text). */
void wrm_fail_mpi(struct wrm_call *c, const char *what, int rc);

/* An item of this call's type and kind, with nothing in it yet. */
void wrm_item_init(const struct wrm_call *c, wrm_item *it, wr_type type, int kind);
/* MPI_Allreduce of it across comm (data and failures together), then settle
 * the status: returns c->st after folding in the other ranks' failures. */
wr_status wrm_allreduce(struct wrm_call *c, wrm_item *it);
/* hi = lo combined with hi (failures, kinds, values; see mpi_support.c). */
void wrm_item_combine(const wrm_item *lo, wrm_item *hi);
/* Fold the agreed lowest failure (an item's fail) into c's status. */
wr_status wrm_settle(struct wrm_call *c, int64_t fail);
/* With a stream set on c->ctx, wait for its queued work
 * (wr_context_synchronize) and take a failure as this rank's: before
 * anything goes to the other ranks, and before a call returns. */
void wrm_settle_stream(struct wrm_call *c);
/* wrm_allreduce of it together with an exact sum, merged across comm
 * (mpi_exact.c): every rank gets the merge of all ranks' sums. */
wr_status wrm_allreduce_exact(struct wrm_call *c, wrm_item *it, wr_exact_sum *sum);
/* MPI_Exscan of exact sums (mpi_exact.c): *base becomes the merge of the
 * lower ranks' sums (the empty sum on rank 0).  Carries no status: agree on
 * that first. */
wr_status wrm_exscan_exact(struct wrm_call *c, const wr_exact_sum *sum, wr_exact_sum *base);

/* MPI_Exscan of it: *base becomes the combination of the lower ranks' items
 * (has == 0 on rank 0 and when every lower rank had nothing). */
wr_status wrm_exscan(struct wrm_call *c, const wrm_item *it, wrm_item *base);
/* End a call: on success clear the context's error text.  Returns c->st. */
wr_status wrm_end(struct wrm_call *c);

/* sqrt(a^2 + b^2) of two norms, without forming either square (mpi_dot.c). */
double wrm_norm_combine(double a, double b);

/* 1 if a and b overlap (empty ranges never do). */
int wrm_overlap(const void *a, size_t abytes, const void *b, size_t bbytes);

/* How a scan applies the rank's base. */
enum wrm_scan_path {
    WRM_PATH_AUTO,   /* host loop on a cpu-only context, else fold (mpi_api.c, auto_path) */
    WRM_PATH_HOST,   /* local scan, then out[i] = base op out[i] on the host */
    WRM_PATH_FOLD    /* base folded into element 0 through public wr_* calls only */
};
/* The scans, with the path chosen by the caller (tests run both). */
wr_status wri_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                       wr_op op, MPI_Comm comm, int exclusive, enum wrm_scan_path path);

/* out[i] = base op out[i] for i < count, host memory (OpenMP when large). */
void wrm_apply_base(wr_type type, wr_op op, const wrm_value *base, void *out, size_t count);

#endif /* WR_MPI_INTERNAL_H */

/*
 * wr_backend.h -- the contract between lib/ and a backend (internal).
 *
 * A backend is one const struct wr_backend_ops filled with designated
 * initializers (the libsodium/hwloc pattern).  The cpu backend is linked into
 * libwarpred.so; the cuda and omptarget backends are plugins that each export
 * exactly one symbol, WR_BACKEND_SYMBOL, of this type, and need nothing else
 * from libwarpred: what they use of the core comes through struct
 * wr_host_api, so a plugin loads whatever namespace the host program loaded
 * libwarpred into (dlopen RTLD_LOCAL, as Python's ctypes does).
 *
 * Operations.  Every public operation is described once, in lib/ops.c (see
 * doc/DESIGN.md): its arguments are checked there, its buffers located, a
 * backend chosen by what the backends say they can do (struct wr_caps), and
 * the backend's entry for the operation's id (enum wr_opid) called with one
 * struct wr_call.  The reproducible (exact) forms are ids of their own: a
 * backend never decides itself whether a call is an exact sum.
 *
 * lib/ validates every argument before it calls a backend, so a backend may
 * assume: valid enums, the op is defined for the type, the id is one its
 * caps name, non-NULL buffers wherever an element is read or written,
 * buffers aligned to their element size that end inside the address space,
 * non-decreasing offsets (except where call->offsets_unchecked says
 * otherwise), and no overlap except in == out where the operation allows it.
 * A backend keeps no memory of one call for the next, never prints, and
 * reports a failure as a status plus a one-line reason written into err
 * (WR_ERRLEN bytes).
 *
 * Change anything in these structs, in the list of ids or in the meaning of
 * a field: bump WR_BACKEND_ABI.  The loader refuses a plugin whose abi
 * differs, one whose table has a NULL function pointer among the common
 * entries, and one whose caps name an id whose entry is NULL.
 */
#ifndef WR_BACKEND_H
#define WR_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "warpred.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WR_BACKEND_ABI 6
#define WR_BACKEND_SYMBOL "warpred_backend_ops"   /* a plugin's one exported name */
#define WR_ERRLEN 256                             /* size of every err buffer */

/* Where a buffer lives, as a backend that can tell sees it. */
typedef enum wr_mem_kind {
    WR_MEM_HOST = 0,       /* ordinary (pageable) host memory, or not known to the backend */
    WR_MEM_HOST_PINNED,    /* page-locked host memory registered with the device runtime */
    WR_MEM_DEVICE,         /* device memory: the host cannot dereference it */
    WR_MEM_MANAGED,        /* managed/unified memory: both sides can reach it */
    WR_MEM_MAPPED          /* host memory the backend holds a device copy of (OpenMP: present
                              in the device data environment); the backend works on that copy */
} wr_mem_kind;
#define WR_MEM_KINDS 5

/*
 * The operations a backend may provide: one entry of wr_backend_ops.op[]
 * each.  The buffers and sizes of a call are in struct wr_call; "in[count]"
 * means count elements of call->type at call->in.
 */
enum wr_opid {
    WR_OPID_REDUCE,        /* out[0] = in[0] op ... op in[count-1]; count 0: the identity */
    WR_OPID_SCAN,          /* out[i] = inclusive (exclusive: exclusive) prefix; count >= 1; out == in allowed */
    WR_OPID_ROWS,          /* out[r] = reduction of row r of in[rows * cols]; rows = count >= 1,
                              cols 0: identities */
    WR_OPID_SEGMENTS,      /* out[s] = reduction of in[offsets[s] .. offsets[s+1]); nsegments = count >= 1 */
    WR_OPID_SEGSCAN,       /* a scan inside each segment (exclusive: exclusive): out[i] for i in
                              [offsets[0], offsets[count]); nothing outside is read or written;
                              out == in allowed; count >= 1 */
    WR_OPID_ARGEXT,        /* *index (and *value unless NULL) of the first min (is_max: max); count >= 1 */
    WR_OPID_IAMAX,         /* as ARGEXT, argmax of |in[i]| (float/double); *value = in[*index] */
    WR_OPID_DOT,           /* out[0] = in[0]*in2[0] + ... (float/double; count 0: +0); in2 may be in */
    WR_OPID_DOTROWS,       /* out[r] = dot product of row r of in and of in2 (rows = count >= 1) */
    WR_OPID_NRM2,          /* out[0] = sqrt(in[0]^2 + ...) without intermediate overflow/underflow
                              (count 0: +0) */
    WR_OPID_ASUM,          /* out[0] = |in[0]| + ... + |in[count-1]| (count 0: +0) */
    /* float/double SUM in reproducible mode: the exact sum, rounded once */
    WR_OPID_XREDUCE,       /* as REDUCE (count 0: +0) */
    WR_OPID_XSCAN,         /* as SCAN: every output the exact prefix from call->carry on, rounded once */
    WR_OPID_XROWS,         /* as ROWS */
    WR_OPID_XSEGMENTS,     /* as SEGMENTS (empty segments: +0) */
    WR_OPID_XSEGSCAN,      /* as SEGSCAN: every output the exact prefix inside its segment, rounded once */
    WR_OPID_XSUM,          /* call->acc (a struct wrx_acc of lib/wr_exact.h in host memory) = the
                              exact sum of in[count], unrounded; count >= 1 */
    WR_OPID_XDOT,          /* as DOT: the exact dot product (each product split exactly by an
                              FMA, both parts summed exactly), rounded once */
    WR_OPID_XDOTROWS,      /* as DOTROWS, each row's exact dot product rounded once */
    WR_OPID_XNRM2,         /* as NRM2: sqrt of the correctly rounded exact sum of squares */
    WR_OPID_XASUM,         /* as ASUM: the exact sum of |in[i]|, rounded once */
    WR_NOPIDS
};
#define WR_OPID_BIT(id) ((uint64_t)1 << (id))

/* What a backend can do, as its caps() says after open(); lib/ routes by it. */
struct wr_caps {
    uint64_t ops;          /* WR_OPID_BIT(id) for every id whose op[id] is set */
    unsigned types;        /* 1u << wr_type for every type it takes (all six, today) */
    unsigned mem;          /* 1u << wr_mem_kind for every kind of buffer it can reach */
    unsigned device : 1;   /* computes on a device: AUTO sends device and managed memory here */
    unsigned pinned_dma : 1; /* reads pinned host memory over the bus without a staging copy
                              (AUTO's cost model may send such calls here) */
    unsigned streams : 1;  /* set_stream() takes a stream; queued calls are possible */
};

/* What a plugin may use of the core, handed to open() (valid until the
 * process ends). */
struct wr_host_api {
    /* WR_BACKEND_ABI of the core. */
    unsigned abi;
    /* The value of an environment variable, or NULL when it is unset or when
     * the process is privileged (setuid/setgid: AT_SECURE), where libwarpred
     * ignores its environment.  Never NULL. */
    const char *(*getenv)(const char *name);
    /* Parse the environment variable `name` as a decimal count in [min, max]:
     * returns 0 when it is unset or empty (*value untouched), 1 with *value
     * set, or -1 with "NAME=VALUE: why" in err (WR_ERRLEN bytes).  Never NULL. */
    int (*env_count)(const char *name, size_t min, size_t max, size_t *value, char *err);
};

/* One call, as lib/ hands it to a backend's op[id]. */
struct wr_call {
    enum wr_opid id;       /* which operation */
    wr_type type;
    wr_op op;              /* WR_SUM for the ids that take no wr_op */
    int exclusive;         /* SCAN, SEGSCAN and their X forms: 1 exclusive, 0 inclusive */
    int is_max;            /* ARGEXT: 1 argmax, 0 argmin */
    const void *in;        /* the elements (NULL only where no element is read) */
    const void *in2;       /* DOT, DOTROWS and their X forms: the second vector (may be in) */
    void *out;             /* the results (ARGEXT, IAMAX: value, may be NULL; XSUM: unused) */
    size_t *index;         /* ARGEXT, IAMAX: the index */
    size_t count;          /* elements; rows (ROWS, DOTROWS); segments (SEGMENTS, SEGSCAN) */
    size_t cols;           /* ROWS, DOTROWS: columns (0 allowed) */
    const size_t *offsets; /* SEGMENTS, SEGSCAN: count + 1 offsets where kaux says */
    const void *carry;     /* XSCAN: NULL, or a struct wrx_acc in host memory, checked: the exact
                              sum of what comes before in[0], to start the prefixes from */
    void *acc;             /* XSUM: the struct wrx_acc (host memory) to write */

    /* what lib/ found out about the buffers */
    wr_mem_kind kin;       /* in (WR_MEM_HOST when no element is read) */
    wr_mem_kind kin2;      /* in2 (WR_MEM_HOST when there is none) */
    wr_mem_kind kout;      /* out (ARGEXT, IAMAX: value; WR_MEM_HOST when NULL) */
    wr_mem_kind kaux;      /* offsets; ARGEXT, IAMAX: index */
    size_t first, last;    /* SEGMENTS, SEGSCAN: offsets[0] and offsets[count], checked (both 0
                              when offsets_unchecked) */
    /* SEGMENTS and SEGSCAN (not their X forms) on a backend whose
     * set_stream() took a stream, with in, out and offsets all device or
     * managed memory: 1 when lib/ did not read the offsets (reading them
     * would wait for the stream).  in is then only known to be non-NULL and
     * aligned, and out not to overlap the offsets.  The backend must check
     * on the device that the offsets do not decrease, read and write no
     * element outside [offsets[0], offsets[count]) (SEGMENTS: read), and
     * report a violation as WR_ERR_INVALID_ARG (asynchronously, through
     * synchronize() and its next calls, when it queues the call). */
    int offsets_unchecked;
};

/* An operation: writes its outputs completely before returning WR_SUCCESS,
 * or has queued the work that does when a stream is set and every buffer is
 * device or managed memory; leaves them untouched when it fails before any
 * work started. */
typedef wr_status (*wr_op_fn)(void *state, const struct wr_call *call, char *err);

/* Element bytes of a valid wr_type (a plugin's own copy of wr_type_size). */
static inline size_t wr_backend_type_size(wr_type t)
{
    return (t == WR_INT64 || t == WR_UINT64 || t == WR_DOUBLE) ? 8 : 4;
}

struct wr_backend_ops {
    /* WR_BACKEND_ABI of the header the backend was built with.  Never 0. */
    unsigned abi;
    /* Short lower-case name ("cpu", "cuda", "omptarget").  Never NULL. */
    const char *name;

    /* Create per-context state in *state (may be set to NULL if the backend
     * keeps none).  Returns WR_SUCCESS; WR_ERR_NO_BACKEND when the backend
     * cannot run here (no driver, no device, no code for the device);
     * WR_ERR_INVALID_ARG when one of its environment variables is bad;
     * WR_ERR_NO_MEMORY or WR_ERR_DEVICE; with the reason in err. */
    wr_status (*open)(void **state, const struct wr_host_api *host, char *err);
    /* Free what open() made, after the work it queued has finished.  Called
     * once per successful open(). */
    void (*close)(void *state);
    /* What the backend opened in state can do. */
    void (*caps)(void *state, struct wr_caps *caps);
    /* Write a one-line description ("OpenMP, 16 threads", "NVIDIA H200
     * (sm_90, sm_90 machine code)") into buf of len bytes, NUL-terminated. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Host threads a call made now from the calling thread would run on (the
     * cpu backend: its OpenMP team), for AUTO's cost model; 0 for a backend
     * that computes on a device. */
    int (*threads)(void *state);
    /* Residency of the memory at ptr (a wr_mem_kind).  The cpu backend
     * answers WR_MEM_HOST for everything. */
    wr_mem_kind (*locate)(void *state, const void *ptr);
    /* Summarise nsegments + 1 offsets (nsegments >= 1) where they are (for a
     * device backend: where locate() said device or managed memory, without
     * bringing them to the host): sum[0] = offsets[0], sum[1] =
     * offsets[nsegments], sum[2] = the least s with offsets[s + 1] <
     * offsets[s] (SIZE_MAX when there is none) and, when there is one, sum[3]
     * = offsets[s], sum[4] = offsets[s + 1]. */
    wr_status (*check_offsets)(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err);
    /* Order the context's device work on stream (a cudaStream_t; NULL: the
     * backend's own), after what the backend queued before.  Called only for
     * a backend whose caps have streams (lib/ answers for the others).  Once
     * it has taken a non-NULL stream, lib/ may pass it SEGMENTS and SEGSCAN
     * calls with call->offsets_unchecked set. */
    wr_status (*set_stream)(void *state, void *stream, char *err);
    /* Wait for all work the backend queued for this context; report a failure
     * of asynchronous work (WR_ERR_DEVICE, or WR_ERR_INVALID_ARG for offsets
     * found to decrease on the device). */
    wr_status (*synchronize)(void *state, char *err);

    /* op[id]: the operation id, or NULL when the backend does not provide
     * it (and then its caps do not name it). */
    wr_op_fn op[WR_NOPIDS];
};

/* The cpu backend's table (cpu/), linked into libwarpred.so. */
extern const struct wr_backend_ops wrcpu_backend_ops;

#ifdef __cplusplus
}
#endif

#endif /* WR_BACKEND_H */

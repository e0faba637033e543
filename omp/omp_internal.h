/*
 * omp_internal.h -- what the files of the omptarget backend share (not
 * installed).
 *
 * The backend is a plugin (warpred_omptarget.so) whose kernels are OpenMP
 * target regions.  It is written the way the CUDA kernels are, one level up:
 * a team plays the part of a thread block and the lanes of a `parallel for
 * simd` loop the part of its threads.  Every kernel works on device
 * pointers (is_device_ptr); omp_mem.c turns the caller's buffers into
 * device pointers (mapped host memory: its device copy; device memory: as
 * it is; other host memory: staging buffers, chunk by chunk).
 *
 * Determinism: every floating result is a fixed function of the type, the
 * op and the count (and, for rows and segments, of cols and the offsets).
 * Work is cut into lanes, tiles and chunks whose sizes depend on nothing
 * else, partial results go to fixed places, and they are combined in a fixed
 * order.  How many teams and threads the runtime launches only changes who
 * computes a lane, never what.  Staged (host) buffers are cut at the same
 * boundaries, so they give the bits of a device-resident call.
 *
 * Each kernel family is written once as a macro over a (type, op) pair and
 * instantiated from the list below, as in cpu/.  wr_ops.h's combine
 * functions are used inside the target regions (declare target).
 */
#ifndef WRO_INTERNAL_H
#define WRO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <omp.h>
#include "warpred.h"
#include "wr_backend.h"

#pragma omp declare target
#include "wr_ops.h"
#pragma omp end declare target

#define WRO_PRAGMA(x) _Pragma(#x)

/* ---- sizes (each one fixes part of the decomposition: changing one
 * changes float bits, never correctness) ----------------------------------- */

/* Lanes of a tile: the unit a pass-1 kernel (reduce, argmin/argmax) cuts the
 * input into.  Lane l of tile t folds elements t*L*K + l + j*L, j < K: at
 * every step j consecutive lanes read consecutive elements (coalesced). */
#define WRO_L 256
/* Independent accumulators per lane (element j goes to accumulator j % 8):
 * eight loads in flight per lane, and a chain of K/8 additions. */
#define WRO_U 8
/* Elements per lane in pass 1: a power of two from WRO_KMIN to WRO_KMAX,
 * the least that leaves at most WRO_GMAX partials. */
#define WRO_KMIN 16
#define WRO_KMAX 2048
#define WRO_GMAX ((size_t)1 << 18)
/* Counts up to this are reduced by the final (one-team) kernel alone. */
#define WRO_DIRECT_MAX ((size_t)1 << 16)
/* The team fold (final pass, long segments): TL lanes fold chunks of CH
 * elements (CH / TL per lane), the lanes are combined by halving, and the
 * chunk results pairwise (a binary-counter stack of at most 64). */
#define WRO_TL 256
#define WRO_CH ((size_t)1 << 18)
/* Rows: up to ROW_LANE columns a row is one lane's; up to ROW_MID it is cut
 * into RL lanes (a power of two from 32 to 256) and their partials folded;
 * longer rows are each a wr_reduce. */
#define WRO_ROW_LANE 64
#define WRO_ROW_MID ((size_t)1 << 18)
/* Segments up to SEG_LANE elements are one lane's; longer ones a team's. */
#define WRO_SEG_LANE 2048
/* Scans: lanes of SL contiguous elements, tiles of ST lanes (4096
 * elements: DESIGN.md's block), groups of SG tiles; the groups are carried
 * one after the other.  Host buffers are staged in whole groups. */
#define WRO_SL 16
#define WRO_ST 256
#define WRO_SG 64
#define WRO_GROUP ((size_t)WRO_SL * WRO_ST * WRO_SG)      /* 262144 elements */
/* Staging buffers for host memory: default and least size (bytes).  The
 * least holds one pass-1 tile of 8-byte elements (L * KMAX) and one team
 * chunk, so that chunks always end on the decomposition's boundaries. */
#define WRO_STAGING_DEFAULT ((size_t)64 << 20)
#define WRO_STAGING_MIN ((size_t)WRO_L * WRO_KMAX * 8)

/* On the host fallback, calls on fewer elements than this run their target
 * regions on one thread (if(parallel: 0)): a parallel region costs more than
 * the work there, and on an oversubscribed host (several MPI ranks per
 * core) its barriers wait for descheduled threads.  On a device every
 * region is parallel.  Results do not depend on it. */
#define WRO_HOST_PAR_MIN ((size_t)1 << 15)

/* Lanes per row for WRO_ROW_LANE < cols <= WRO_ROW_MID (rows of reduce,
 * dot_rows, and their exact forms): the least power of two, at most 256,
 * that leaves at most 32 elements a lane (up to 1024 for the longest
 * rows): 4 lanes for 65 columns, 32 for 1024, 256 for 32768. */
static inline size_t wro_row_lanes(size_t cols)
{
    size_t RL = 1;
    while (RL < 256 && RL * 32 < cols) RL *= 2;
    return RL;
}

/* Elements per lane of pass 1 (reduce, argmin/argmax) for n elements, or
 * 0: the one-team pass alone. */
static inline size_t wro_plan_k(size_t n)
{
    size_t K = WRO_KMIN;
    if (n <= WRO_DIRECT_MAX) return 0;
    while (K < WRO_KMAX && (n + WRO_L * K - 1) / (WRO_L * K) * WRO_L > WRO_GMAX) K *= 2;
    return K;
}
/* Lane slots (partials) of pass 1. */
static inline size_t wro_plan_g(size_t n, size_t K)
{
    return (n + WRO_L * K - 1) / (WRO_L * K) * WRO_L;
}

/* ---- the (type, op) pairs ------------------------------------------------- */

/* One row per type: sfx, T, E (wr_type), and the type scans carry their
 * bases in (wsfx, W): the type itself for integers, double for floats. */
#define WRO_ROW_i32 i32, int32_t,  WR_INT32,  i32, int32_t
#define WRO_ROW_i64 i64, int64_t,  WR_INT64,  i64, int64_t
#define WRO_ROW_u32 u32, uint32_t, WR_UINT32, u32, uint32_t
#define WRO_ROW_u64 u64, uint64_t, WR_UINT64, u64, uint64_t
#define WRO_ROW_f32 f32, float,    WR_FLOAT,  f64, double
#define WRO_ROW_f64 f64, double,   WR_DOUBLE, f64, double

#define WRO_CALL(X, ...) X(__VA_ARGS__)

/* WRO_TYPES(X): X(sfx, T, E, wsfx, W) for every type. */
#define WRO_TYPES(X)                                                            \
    WRO_CALL(X, WRO_ROW_i32) WRO_CALL(X, WRO_ROW_i64) WRO_CALL(X, WRO_ROW_u32)  \
    WRO_CALL(X, WRO_ROW_u64) WRO_CALL(X, WRO_ROW_f32) WRO_CALL(X, WRO_ROW_f64)

/* WRO_PAIRS: WRO_PAIR(sfx, T, E, wsfx, W, op, OE) for every valid pair. */
#define WRO_P_i32(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_i32, op, OE)
#define WRO_P_i64(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_i64, op, OE)
#define WRO_P_u32(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_u32, op, OE)
#define WRO_P_u64(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_u64, op, OE)
#define WRO_P_f32(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_f32, op, OE)
#define WRO_P_f64(op, OE) WRO_CALL(WRO_PAIR, WRO_ROW_f64, op, OE)
#define WRO_PAIRS                                                               \
    WR_OPS(WRO_P_i32) WR_OPS(WRO_P_i64) WR_OPS(WRO_P_u32) WR_OPS(WRO_P_u64)     \
    WR_ARITH_OPS(WRO_P_f32) WR_ARITH_OPS(WRO_P_f64)
/* WRO_CARRY_PAIRS: WRO_CPAIR(wsfx, W, op, OE) for every (carry type, op)
 * a scan needs: the integer pairs and double's arithmetic ops. */
#define WRO_C_i32(op, OE) WRO_CPAIR(i32, int32_t, op, OE)
#define WRO_C_i64(op, OE) WRO_CPAIR(i64, int64_t, op, OE)
#define WRO_C_u32(op, OE) WRO_CPAIR(u32, uint32_t, op, OE)
#define WRO_C_u64(op, OE) WRO_CPAIR(u64, uint64_t, op, OE)
#define WRO_C_f64(op, OE) WRO_CPAIR(f64, double, op, OE)
#define WRO_CARRY_PAIRS                                                         \
    WR_OPS(WRO_C_i32) WR_OPS(WRO_C_i64) WR_OPS(WRO_C_u32) WR_OPS(WRO_C_u64)     \
    WR_ARITH_OPS(WRO_C_f64)

#define WRO_NTYPES 6
#define WRO_NOPS 7

/* 1 for a floating type (a constant the generic kernels branch on). */
#define WRO_IS_FLOAT(T) ((T)0.5 != (T)0)
/* The value accumulators start from: the identity, except -0.0 for float
 * SUM, the true neutral of IEEE addition (as in cpu/: a sum of -0s is -0;
 * an empty SUM and exscan's out[0] still give DESIGN.md's +0). */
#define WRO_NEUTRAL(T, OE, ident) ((WRO_IS_FLOAT(T) && (OE) == WR_SUM) ? (T)-0.0 : (ident))
/* Float SUM/PROD results are stored with one NaN (all bits but the sign),
 * the one cpu/ and the CUDA backend store. */
#define WRO_CANON(T, OE) (WRO_IS_FLOAT(T) && ((OE) == WR_SUM || (OE) == WR_PROD))

#pragma omp declare target
static inline float wro_canon_f32(float v)
{
    if (v != v) {
        uint32_t b = 0x7fffffffu;
        memcpy(&v, &b, sizeof v);
    }
    return v;
}
static inline double wro_canon_f64(double v)
{
    if (v != v) {
        uint64_t b = 0x7fffffffffffffffu;
        memcpy(&v, &b, sizeof v);
    }
    return v;
}
#pragma omp end declare target

/* ---- the backend's state (omp_backend.c) and its device (omp_device.c) ---- */

struct wro_cuda;                 /* libcuda entry points (device pointers) */

/* A device allocation kept for reuse. */
struct wro_block {
    void *p;
    size_t bytes;
};
#define WRO_POOL 4

struct wro_state {
    int dev;                     /* the OpenMP device number kernels run on */
    int initial;                 /* omp_get_initial_device() */
    int host;                    /* 1: no device, target regions run on the host */
    int stage_host;              /* stage host buffers even when host (test knob) */
    size_t staging;              /* bytes of one staging buffer */
    pthread_mutex_t mu;          /* guards pool */
    struct wro_block pool[WRO_POOL];
    int npool;
    struct wro_cuda *cu;         /* NULL: device pointers are not recognised */
    char desc[200];
};

/* Which code a device runs (a target region asks through declare variant). */
enum { WRO_ARCH_HOST = 0, WRO_ARCH_NVPTX = 1, WRO_ARCH_AMDGCN = 2 };
int wro_device_arch(int dev);
/* The CUDA driver for OpenMP device dev of an NVIDIA GPU, or NULL; name
 * (len bytes) gets the GPU's name. */
struct wro_cuda *wro_cuda_open(int dev, char *name, size_t len);
void wro_cuda_close(struct wro_cuda *c);   /* NULL: nothing */
/* WR_MEM_DEVICE, WR_MEM_MANAGED, or WR_MEM_HOST for what the driver does
 * not know. */
wr_mem_kind wro_cuda_locate(const struct wro_cuda *c, const void *ptr);

/* ---- memory (omp_mem.c) ------------------------------------------------------ */

/* 1: run the call's parallel regions with every thread (see WRO_HOST_PAR_MIN). */
int wro_par(const struct wro_state *st, size_t work);

/* Where the memory at ptr lives, as the ops table's locate() says. */
wr_mem_kind wro_locate(void *state, const void *ptr);

/* Scratch of one call: device memory carved from one block. */
struct wro_scratch {
    struct wro_state *st;
    struct wro_block blk;
    size_t used;
};
/* Take a block of at least bytes for a call (from the pool, or new). */
wr_status wro_scratch_open(struct wro_state *st, struct wro_scratch *s, size_t bytes, char *err);
/* n bytes of the call's scratch (256-byte aligned); NULL when the block is
 * too small, which is a bug of the caller's estimate. */
void *wro_scratch_take(struct wro_scratch *s, size_t n);
void wro_scratch_close(struct wro_scratch *s);
/* What wro_scratch_take(n) consumes at most. */
#define WRO_SCRATCH_SIZE(n) ((((size_t)(n)) + 255) & ~(size_t)255)
/* Free the pool's blocks (the context closes). */
void wro_pool_free(struct wro_state *st);

/* Copy bytes between device memory (dev) and host memory (initial): the
 * direction from the flags; 0 or WR_ERR_DEVICE with the reason. */
wr_status wro_copy(struct wro_state *st, void *dst, int dst_on_dev, const void *src, int src_on_dev,
                   size_t bytes, char *err);

/* How an operation reaches one buffer. */
struct wro_buf {
    char *p;                     /* device address (direct) or host address */
    int direct;                  /* 1: kernels use p as it is */
    int on_dev;                  /* p is in the device's memory (for copies) */
};
/* The caller's ptr (bytes long, of the kind lib/ found) as the kernels can
 * reach it: mapped host memory becomes its device copy (which must hold the
 * whole range), device/managed memory is direct, host memory is direct only
 * on the host fallback (unless staging is forced). */
wr_status wro_resolve(struct wro_state *st, const void *ptr, size_t bytes, wr_mem_kind kind,
                      const char *what, struct wro_buf *b, char *err);
/* Write count elements of value v (es bytes each) to out. */
wr_status wro_fill(struct wro_state *st, const struct wro_buf *out, size_t count, size_t es, const void *v,
                   char *err);

/* ---- the chunk planner (omp_stage.c) ----------------------------------------- */

/* An operation over count items (elements, or rows), each with in_bytes of
 * input and out_bytes of output where the planner is to bring them (0: none
 * there), cut into chunks of whole multiples of unit items (but the last).
 * A second input (wro_each_chunk2: dot products) has in_bytes an item too. */
struct wro_plan {
    size_t count;
    size_t in_bytes;
    size_t out_bytes;
    size_t unit;                 /* >= 1: a tile, a scan group, or 1 */
    int inplace;                 /* the output goes over the staged input: one buffer
                                    (in_bytes == out_bytes) */
};
/* One chunk as the kernels see it. */
struct wro_chunk {
    size_t off, len;             /* items [off, off + len) */
    const char *in;              /* their input where the kernels read it (NULL: none) */
    char *out;                   /* where the kernels write their output (NULL: none) */
    const char *in2;             /* the second input's (wro_each_chunk2; else NULL) */
};
typedef wr_status (*wro_chunk_fn)(void *arg, const struct wro_chunk *c, char *err);
/* Items a chunk holds: count when neither in nor out (either may be NULL)
 * is staged. */
size_t wro_plan_items(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                      const struct wro_buf *out);
/* Scratch bytes the staging buffers of the plan take. */
size_t wro_plan_scratch(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                        const struct wro_buf *out);
/* fn over every chunk in order, the staged input copied in before it and
 * the staged output out after it; stops at the first failure. */
wr_status wro_each_chunk(struct wro_state *st, struct wro_scratch *s, const struct wro_plan *p,
                         const struct wro_buf *in, const struct wro_buf *out, wro_chunk_fn fn, void *arg, char *err);
/* Two inputs of in_bytes an item (in2 NULL: wro_each_chunk): the chunks
 * of both staged alike; when in2 is in (the same buffer) it is staged once
 * and c->in2 == c->in.  wro_plan_items2 / wro_plan_scratch2 size them. */
size_t wro_plan_items2(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                       const struct wro_buf *in2, const struct wro_buf *out);
size_t wro_plan_scratch2(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                         const struct wro_buf *in2, const struct wro_buf *out);
wr_status wro_each_chunk2(struct wro_state *st, struct wro_scratch *s, const struct wro_plan *p,
                          const struct wro_buf *in, const struct wro_buf *in2, const struct wro_buf *out,
                          wro_chunk_fn fn, void *arg, char *err);

/* A reduction of segments (one result each) with host-readable offsets,
 * some buffer staged: runs of whole segments through the staging buffer,
 * and a segment longer than it in pieces. */
struct wro_segwalk {
    size_t es;                   /* bytes of an element and of a result */
    size_t piece_unit;           /* a piece of a long segment: whole multiples of this many elements */
    size_t work;                 /* scratch bytes run() and piece() take (afresh each call) */
    size_t keep;                 /* scratch bytes the pieces of one segment share */
    /* nseg segments of n elements at x (device), their offsets from 0 at rel
     * (device, nseg + 1), results to out (device) */
    wr_status (*run)(void *arg, struct wro_scratch *work, const char *x, const size_t *rel, size_t nseg, size_t n,
                     char *out, char *err);
    /* m elements of one long segment at x (device); first, last: its first
     * and last piece; the last stores the result at res (device) */
    wr_status (*piece)(void *arg, struct wro_scratch *work, void *keep, const char *x, size_t m, int first,
                       int last, char *res, char *err);
};
/* Segments a run holds at most. */
size_t wro_segrun_cap(const struct wro_state *st);
wr_status wro_each_segrun(struct wro_state *st, const struct wro_segwalk *w, void *arg, const struct wro_buf *bi,
                          const struct wro_buf *bo, const size_t *off, size_t nseg, char *err);
/* The segment starts of a scan's chunks as bits: bit i of hb (device
 * memory, (n + 63) / 64 words) is set when some offset equals lo + i (i <
 * n); every offset below the end of the segments starts a non-empty
 * segment.  Start with cursor 0 and host NULL; wro_heads_done frees. */
struct wro_heads {
    const size_t *off;           /* the nseg + 1 offsets: a device address when dev_off, else host */
    size_t nseg;
    int dev_off;                 /* 1: the kernels read the offsets (they are direct) */
    size_t cursor;               /* host offsets: the first one not below the chunks so far */
    uint64_t *host;              /* host offsets: the bits built on the host */
    size_t host_words;
};
wr_status wro_heads_bits(struct wro_state *st, struct wro_heads *h, size_t lo, size_t n, uint64_t *hb, char *err);
void wro_heads_done(struct wro_heads *h);
/* 1 when element i of a chunk starts a segment (hb NULL: none does). */
#pragma omp declare target
static inline int wro_head(const uint64_t *hb, size_t i)
{
    return hb != NULL && ((hb[i / 64] >> (i % 64)) & 1);
}
#pragma omp end declare target

/* Offsets the host can read: *hoff = NULL when they are (host memory, or
 * the host fallback), else a malloc()ed copy of the device ones. */
wr_status wro_host_offsets(struct wro_state *st, const struct wro_buf *bf, size_t nseg, size_t **hoff, char *err);

/* ---- reductions (omp_reduce.c) -------------------------------------------- */
wr_status wro_reduce(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                     size_t count, wr_type type, wr_op op, char *err);
wr_status wro_reduce_rows(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                          size_t rows, size_t cols, wr_type type, wr_op op, char *err);
wr_status wro_reduce_segments(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                              size_t nsegments, const size_t *offsets, wr_type type, wr_op op, char *err);
/* *res (device) = the reduction of the n >= 1 elements at the device
 * address x, with the caller's scratch (wro_reduce_dev_scratch bytes). */
wr_status wro_reduce_dev(struct wro_state *st, struct wro_scratch *s, const void *x, size_t n, wr_type type, wr_op op,
                         void *res, char *err);
size_t wro_reduce_dev_scratch(const struct wro_state *st, size_t n, wr_type type);
wr_status wro_check_offsets(struct wro_state *st, const size_t *offsets, size_t nsegments, size_t sum[5],
                            char *err);

/* ---- reproducible float/double SUM (omp_exact.c) -------------------------- */
/* wr_reduce_exact: the exact sum into acc (a host struct wrx_acc). */
wr_status wro_reduce_exact(struct wro_state *st, const struct wr_call *call, const void *in, size_t count,
                           wr_type type, void *acc, char *err);
/* reduce, reduce_rows, reduce_segments of float/double SUM in reproducible
 * mode: the exact sums, rounded once. */
wr_status wro_exact_reduce(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                           size_t count, wr_type type, char *err);
wr_status wro_exact_rows(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t rows,
                         size_t cols, wr_type type, char *err);
wr_status wro_exact_segments(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                             size_t nsegments, const size_t *offsets, wr_type type, char *err);

/* ---- argmin / argmax (omp_arg.c) ------------------------------------------ */
/* is_abs (WR_OPID_IAMAX, float/double): compare |in[i]|; *value is in[*index]. */
wr_status wro_argext(struct wro_state *st, const struct wr_call *call, const void *in, size_t count,
                     wr_type type, int is_max, int is_abs, size_t *index, void *value, char *err);

/* ---- dot products and norms (omp_dot.c) ------------------------------------ */
/* WR_OPID_DOT, NRM2, ASUM, DOTROWS and their X forms (XDOT, XASUM, XNRM2 with
 * call->acc: the exact partial). */
wr_status wro_blas(struct wro_state *st, const struct wr_call *call, char *err);

/* ---- scans (omp_scan.c) ---------------------------------------------------- */
wr_status wro_scan(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                   size_t count, wr_type type, wr_op op, int exclusive, char *err);
/* Scan count elements from x to y (device pointers; x == y allowed), both
 * reachable by kernels, with the call's own scratch. */
wr_status wro_scan_dev(struct wro_state *st, struct wro_scratch *s, const void *x, void *y, size_t count,
                       wr_type type, wr_op op, int exclusive, char *err);
/* Scratch bytes wro_scan_dev needs for count elements of type. */
size_t wro_scan_scratch(size_t count, wr_type type);

/* ---- scans inside segments (omp_segscan.c) ------------------------------------ */
/* WR_OPID_SEGSCAN: every (type, op), inclusive or exclusive. */
wr_status wro_scan_segments(struct wro_state *st, const struct wr_call *call, char *err);

/* ---- reproducible float/double SUM scans (omp_xscan.c) ----------------------- */
/* WR_OPID_XSCAN: from call->carry (NULL: nothing before). */
wr_status wro_exact_scan(struct wro_state *st, const struct wr_call *call, char *err);
/* WR_OPID_XSEGSCAN. */
wr_status wro_exact_scan_segments(struct wro_state *st, const struct wr_call *call, char *err);

#endif /* WRO_INTERNAL_H */

/*
 * warpred.h -- libwarpred public API: parallel reductions and prefix scans.
 *
 * One C API over three backends (cpu: OpenMP on the host; cuda and
 * omptarget: run-time loaded plugins).  Every function returns a wr_status;
 * on failure a one-line reason is available from wr_context_error().  The
 * library never prints.
 *
 * Buffers.  Every buffer must be aligned to its element size (4 or 8 bytes;
 * index: sizeof(size_t)), as C requires of any pointer to the type; a
 * misaligned buffer is WR_ERR_INVALID_ARG.  A buffer must also lie within the
 * process's address space: a count whose buffer would end beyond it is
 * WR_ERR_INVALID_ARG.
 *
 * Names and signatures in this header are a contract: do not change them.
 */
#ifndef WARPRED_H
#define WARPRED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WR_BUILDING_LIBRARY) && defined(__GNUC__)
#  define WR_API __attribute__((visibility("default")))
#else
#  define WR_API
#endif

#define WR_VERSION_MAJOR 0
#define WR_VERSION_MINOR 1
#define WR_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH" (the run-time library's, which
 * may differ from the WR_VERSION_* macros this program was compiled with). */
WR_API const char *wr_version(void);

typedef enum wr_status {
    WR_SUCCESS = 0,
    WR_ERR_INVALID_ARG,  /* NULL buffer, enum out of range, rows*cols overflow, bad offsets,
                            overlapping buffers, memory the backend cannot reach */
    WR_ERR_UNSUPPORTED,  /* op not defined for the type (bitwise ops on float/double) */
    WR_ERR_EMPTY,        /* argmin/argmax over zero elements */
    WR_ERR_NO_BACKEND,   /* backend not built, plugin missing/refused, or no device */
    WR_ERR_NO_MEMORY,
    WR_ERR_DEVICE        /* a device or driver call failed */
} wr_status;

/* A static English description of s; never NULL, also for unknown values. */
WR_API const char *wr_status_string(wr_status s);

typedef enum wr_type { WR_INT32, WR_INT64, WR_UINT32, WR_UINT64, WR_FLOAT, WR_DOUBLE } wr_type;
typedef enum wr_op { WR_SUM, WR_PROD, WR_MIN, WR_MAX, WR_BAND, WR_BOR, WR_BXOR } wr_op;
typedef enum wr_backend {
    WR_BACKEND_AUTO,
    WR_BACKEND_CPU,
    WR_BACKEND_CUDA,
    WR_BACKEND_OPENMP_TARGET     /* OpenMP target offload (the omptarget plugin) */
} wr_backend;

/* Size in bytes of one element of type t, or 0 if t is not a wr_type. */
WR_API size_t wr_type_size(wr_type t);

typedef struct wr_context wr_context;

/* Create a context that runs calls on `backend` (WARPRED_BACKEND in the
 * environment overrides it).  AUTO loads the CUDA plugin when it is usable and
 * falls back to the cpu backend silently; CUDA fails with WR_ERR_NO_BACKEND when
 * the plugin is missing, refused or finds no device.  On failure *ctx is set to
 * NULL and wr_context_error(NULL) gives the reason.
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG, WR_ERR_NO_BACKEND or WR_ERR_NO_MEMORY. */
WR_API wr_status   wr_context_create(wr_context **ctx, wr_backend backend);
/* Release the context and everything it holds.  NULL is a no-op. */
WR_API void        wr_context_destroy(wr_context *ctx);            /* NULL is a no-op */
/* 1 if calls on ctx can run on backend b (AUTO: always 1), else 0. */
WR_API int         wr_context_has_backend(const wr_context *ctx, wr_backend b);
/* The backend (CPU, CUDA or OPENMP_TARGET) that ran the last successful call
 * on ctx, or WR_BACKEND_AUTO if none has run yet. */
WR_API wr_backend  wr_context_last_backend(const wr_context *ctx); /* which one ran the last call */
/* A one-line description of the backends the context holds, e.g.
 * "cpu: OpenMP, 16 threads, x86-64-v4; cuda: NVIDIA H200 (sm_90, sm_90
 * machine code)".  A plugin that is installed but could not be loaded into
 * an AUTO context is named with the reason ("cuda: not loaded: ..."). */
WR_API const char *wr_context_describe(const wr_context *ctx);
/* The reason for the failure of the calling thread's most recent call on ctx,
 * or "" if that call succeeded or the thread has made none.  Each (thread,
 * context) pair keeps its own reason: calls on other contexts, by this thread
 * or others, never change it.  The string stays valid until the calling
 * thread's next call on ctx, or until ctx is destroyed.  With ctx == NULL:
 * the reason the calling thread's last wr_context_create (or call with a NULL
 * context) failed. */
WR_API const char *wr_context_error(const wr_context *ctx);        /* detail of the last failure, "" if none */
/* Record reason as the calling thread's failure detail for ctx: what
 * wr_context_error(ctx) returns next (ctx may be NULL).  reason == NULL or ""
 * marks the last call as successful instead.  For libraries layered on
 * libwarpred (libwarpred_mpi, language bindings) whose own failures must read
 * like the library's: one line (newlines become spaces), truncated to 511
 * bytes.  Touches nothing but the calling thread's error text. */
WR_API void        wr_context_set_error(const wr_context *ctx, const char *reason);

/* MPI-style argument order: input, output, count, type, op.
 *
 * wr_reduce:  out[0] = in[0] op in[1] op ... op in[count-1] (identity if count == 0).
 * wr_scan:    out[i] = in[0] op ... op in[i]                (inclusive).
 * wr_exscan:  out[0] = identity, out[i] = in[0] op ... op in[i-1] (exclusive).
 * out == in is allowed for scans; any other overlap is WR_ERR_INVALID_ARG.
 * A pointer may be NULL only when no element is read or written through it. */
WR_API wr_status wr_reduce (wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op);
WR_API wr_status wr_scan   (wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op); /* inclusive */
WR_API wr_status wr_exscan (wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op); /* exclusive */
/* out[r] = reduction of row r of the row-major rows x cols matrix in. */
WR_API wr_status wr_reduce_rows(wr_context *ctx, const void *in, void *out,
                         size_t rows, size_t cols, wr_type type, wr_op op);      /* row-major */
/* out[s] = reduction of in[offsets[s] .. offsets[s+1]-1]; offsets has
 * nsegments+1 non-decreasing entries; an empty segment gives the identity.
 * Queued on a stream (in, out and offsets all device or managed memory, see
 * wr_context_set_stream) the offsets are not read on the host: the device
 * checks them (decreasing offsets are reported later, as a failure of queued
 * work, WR_ERR_INVALID_ARG with the first bad index; no element outside
 * in[offsets[0] .. offsets[nsegments]) is read), and the overlap of out with
 * the segments of in is not checked.  (Not so for a float/double SUM in
 * reproducible mode: it reads the offsets on the host, waiting for the
 * stream.) */
WR_API wr_status wr_reduce_segments(wr_context *ctx, const void *in, void *out,
                         size_t nsegments, const size_t *offsets, wr_type type, wr_op op);
/* *index = first index of the minimum (maximum); if a NaN is present, the first
 * NaN's index.  value (may be NULL) receives in[*index].  count == 0 gives
 * WR_ERR_EMPTY and writes nothing. */
WR_API wr_status wr_argmin(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value);
WR_API wr_status wr_argmax(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value);

/* ---- stream-ordered calls ------------------------------------------------
 *
 * Queue ctx's device work on `stream` (a cudaStream_t, passed as void * so
 * that this header needs no CUDA header); NULL goes back to the library's own
 * streams.  The stream is a property of the context: threads sharing ctx share
 * it.  With a stream set, a device call is ordered after the work queued on
 * the stream before it and before the work queued after it; when every
 * buffer it reads and writes is device or managed memory it returns as soon
 * as its work is queued (no host wait, no allocation: it can be captured in a
 * CUDA graph), otherwise it completes before returning (and is refused while
 * the stream is being captured).  Argument errors are still reported by the
 * call itself, which then queues nothing; a failure of queued work is
 * reported by wr_context_synchronize and by the context's next calls, which
 * then do nothing (see wr_context_set_stream(3)).  Work the context queued
 * on its previous stream is ordered before any work on the new one; back to
 * NULL, the call waits for it.  The first stream allocates the scratch memory
 * of queued calls (1/2048 of the device's memory for the scan's descriptors):
 * call it outside stream capture.  Graphs holding a context's calls share
 * its scratch: run them one at a time, not beside its queued calls, and not
 * after the context is destroyed.  A call that runs on the cpu backend (host
 * memory under AUTO) does not wait for the stream.
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG (ctx is NULL, or a stream involved
 * is being captured), WR_ERR_NO_BACKEND (ctx has no device backend that takes
 * streams), WR_ERR_NO_MEMORY or WR_ERR_DEVICE. */
WR_API wr_status wr_context_set_stream(wr_context *ctx, void *stream);
/* Wait for all work ctx has queued, and report a failure of it:
 * WR_ERR_DEVICE with the CUDA error's text, or WR_ERR_INVALID_ARG for
 * decreasing offsets a queued wr_reduce_segments found (naming the first).
 * WR_ERR_INVALID_ARG too while the stream is being captured.  On a context
 * without a stream or without a device backend: WR_SUCCESS at once (unless a
 * failure is still pending). */
WR_API wr_status wr_context_synchronize(wr_context *ctx);

/* ---- reproducible float sums --------------------------------------------
 *
 * WR_FLOAT_REPRODUCIBLE: float and double SUM reductions (reduce, rows,
 * segments, and libwarpred_mpi's allreduce) return the exact sum of the
 * inputs rounded once to nearest (ties to even): the same bits on every
 * backend, thread count, device, rank count and element order (see
 * wr_exact_sum_round below for infinities, NaNs and zeros).  Float and
 * double SUM scans (wr_scan, wr_exscan, and libwarpred_mpi's) write at
 * every output the exact prefix sum rounded once: correctly rounded
 * prefixes, the same bits on every backend, thread count and rank count
 * (under WR_BACKEND_AUTO: on the cuda backend for device and managed
 * buffers, on the cpu for host buffers).  Other
 * types and ops are exact in either mode; float PROD is the same in both.
 * WARPRED_FLOAT_MODE=reproducible|fast in the environment overrides the
 * context's setting. */
typedef enum wr_float_mode { WR_FLOAT_FAST = 0, WR_FLOAT_REPRODUCIBLE = 1 } wr_float_mode;
/* Set ctx's float mode.  WR_ERR_INVALID_ARG for a NULL ctx or a mode that is
 * not a wr_float_mode (the context is then unchanged). */
WR_API wr_status     wr_context_set_float_mode(wr_context *ctx, wr_float_mode mode);
/* The mode calls on ctx run in (after WARPRED_FLOAT_MODE); WR_FLOAT_FAST for
 * a NULL ctx. */
WR_API wr_float_mode wr_context_float_mode(const wr_context *ctx);

/* ---- exact sums ------------------------------------------------------------
 *
 * A wr_exact_sum holds the exact sum of float and double elements -- a wide
 * fixed-point number, plus the infinities and NaNs it has seen -- so that
 * partial sums made anywhere (other calls, threads, devices, MPI ranks)
 * combine without rounding, in any grouping and order, and round once at the
 * end: what reproducible mode does inside one call, for a user's own
 * distributed sums (libwarpred_mpi's reproducible allreduce is built on it).
 * A wr_exact_sum is a plain value of fixed size: it may be copied, and sent
 * as WR_EXACT_SUM_BYTES bytes to a process of the same byte order and the
 * same libwarpred major version, to be merged there.  Its contents are
 * private.  Every function returns WR_ERR_INVALID_ARG for a NULL pointer or
 * a sum that wr_exact_sum_init did not make (the reason is in
 * wr_context_error(ctx), or in wr_context_error(NULL) for those without a
 * context), and leaves its outputs untouched on failure. */
#define WR_EXACT_SUM_BYTES 544
typedef struct wr_exact_sum {
    double opaque_[WR_EXACT_SUM_BYTES / 8];   /* 8-byte aligned storage; not doubles */
} wr_exact_sum;

/* Make *sum the sum of no elements. */
WR_API wr_status wr_exact_sum_init(wr_exact_sum *sum);
/* Add the elements in[0..count) of type WR_FLOAT or WR_DOUBLE to *sum,
 * exactly, computed on ctx's backend: in may be any memory ctx can reach
 * (device memory with a cuda context); sum must be host (or managed)
 * memory.  The float mode does not matter.  count == 0 leaves *sum as it is.
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG (also: in NULL while count > 0, a
 * type that is not a wr_type, in and sum overlapping, sum in device
 * memory), WR_ERR_UNSUPPORTED (an integer type), or the backend's
 * WR_ERR_NO_MEMORY / WR_ERR_DEVICE. */
WR_API wr_status wr_reduce_exact(wr_context *ctx, const void *in, size_t count, wr_type type,
                                 wr_exact_sum *sum);
/* *sum += *other, exactly (other may be sum).  Merging is commutative and
 * associative: any tree of merges gives the same rounded result. */
WR_API wr_status wr_exact_sum_merge(wr_exact_sum *sum, const wr_exact_sum *other);
/* Write to *out (host memory, one element of type WR_FLOAT or WR_DOUBLE) the
 * sum rounded once to nearest, ties to even: NaN (the quiet NaN with every
 * bit set but the sign) if a NaN, or both +inf and -inf, were added; else
 * +-inf if one infinity was; else the exact sum of the finite elements
 * rounded, +-inf when that overflows, subnormals exact.  An exact zero is -0
 * when every element added was -0 (IEEE 754 addition gives that in any
 * order), and +0 otherwise, also for no elements.  A non-zero sum too small
 * for the type rounds to a zero of its sign.  Returns WR_SUCCESS,
 * WR_ERR_INVALID_ARG, or WR_ERR_UNSUPPORTED for an integer type. */
WR_API wr_status wr_exact_sum_round(const wr_exact_sum *sum, wr_type type, void *out);
/* The scans of reproducible mode (SUM of WR_FLOAT or WR_DOUBLE elements,
 * whatever ctx's float mode), continuing from *base, the exact sum of what
 * comes before in[0] (NULL: nothing): out[i] is base + in[0] + ... + in[i]
 * (wr_exscan_exact: up to in[i - 1]), computed exactly and rounded once as
 * wr_exact_sum_round does.  base must be host memory and is not changed;
 * out == in is allowed.  Returns what wr_scan does, WR_ERR_UNSUPPORTED for
 * an integer type, and WR_ERR_INVALID_ARG for a base that is not a
 * wr_exact_sum.  (libwarpred_mpi's reproducible scans are built on these.) */
WR_API wr_status wr_scan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                               const wr_exact_sum *base);
WR_API wr_status wr_exscan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                                 const wr_exact_sum *base);

/* ---- scans inside segments (since 0.2) ------------------------------------ */

/* For each segment s, over in[offsets[s] .. offsets[s+1]-1]: out[i] =
 * in[offsets[s]] op ... op in[i] (wr_exscan_segments: up to in[i-1], the
 * identity at each segment's first element).  offsets as in
 * wr_reduce_segments (nsegments + 1 non-decreasing entries); elements
 * outside [offsets[0], offsets[nsegments]) are neither read nor written;
 * out == in is allowed.  Float/double SUM in reproducible mode: every
 * output is the exact prefix inside its segment, rounded once.  With a
 * stream set and in, out and offsets in device memory the call is queued
 * without reading the offsets on the host, as wr_reduce_segments.  Returns
 * what wr_reduce_segments does. */
WR_API wr_status wr_scan_segments(wr_context *ctx, const void *in, void *out, size_t nsegments,
                                  const size_t *offsets, wr_type type, wr_op op);
WR_API wr_status wr_exscan_segments(wr_context *ctx, const void *in, void *out, size_t nsegments,
                                    const size_t *offsets, wr_type type, wr_op op);

/* ---- dot products and norms (since 0.2) -----------------------------------
 *
 * Contiguous vectors of WR_FLOAT or WR_DOUBLE elements (an integer type is
 * WR_ERR_UNSUPPORTED); the context's float mode applies.  x and y may be the
 * same array (or overlap in any way: both are only read); out, index and
 * value must not overlap x or y.  n below is count (wr_dot_rows: cols), u
 * the unit roundoff of the type (2^-24 float, 2^-53 double), and
 * L = ceil(log2 n) + 1024.
 *
 * Special values, in both modes: a NaN anywhere (or inf * 0 in a product,
 * or infinities of both signs in a sum) gives NaN -- the quiet NaN with
 * every bit set but the sign, as wr_reduce stores it; otherwise an infinite
 * element (product) gives the infinity, as IEEE arithmetic and the
 * reference BLAS give.  wr_nrm2 and wr_asum are never negative: any NaN
 * gives NaN, else any infinity +inf.  Zero elements count 0 give +0.
 *
 * Fast mode (WR_FLOAT_FAST) sums in a blocked, pairwise order fixed by the
 * count alone, so the bits depend on the backend, type and count, never on
 * the number of threads or on timing; results satisfy:
 *   wr_dot:  |r - sum x[i] y[i]| <= (L + 1) u sum |x[i] y[i]| + n eta
 *   wr_asum: |r - sum |x[i]||    <= L u sum |x[i]|
 *   wr_nrm2: |r - ||x|||         <= (L / 2 + 2) u ||x|| + eta
 * eta = half the smallest subnormal of the type (2^-150, 2^-1075): what
 * gradual underflow can lose per product.  wr_nrm2 scales as it sums (the
 * three accumulators of Blue's algorithm), so no intermediate overflows or
 * underflows: elements of 1e300 and 1e-300 give the right norm, and the
 * result overflows only when the norm itself exceeds the type's largest
 * value.  A sum whose exact value is zero is +0, except that a dot product
 * whose every product is a zero of negative sign (-0 * 5) may give -0 in
 * fast mode, as IEEE addition does.
 *
 * Reproducible mode (WR_FLOAT_REPRODUCIBLE): a result rounded once, to
 * nearest-even, from an exactly computed value, hence the same bits on
 * every backend, thread count, device, rank count (libwarpred_mpi) and
 * element order:
 *   wr_dot, wr_dot_rows: each product x[i] y[i] is split by an FMA into
 *     hi = fl(x[i] y[i]) and lo = fl(x[i] y[i] - hi), and the 2n values are
 *     summed exactly and rounded once.  hi + lo is the exact product unless
 *     the product overflows (hi is then +-inf, and so is the result, or NaN)
 *     or is below 2^-968 in magnitude and has bits below 2^-1074 (lo then
 *     rounds them, as gradual underflow does: at most 2^-1075 per such
 *     product); so the result is the exact dot product correctly rounded
 *     for every double input that stays clear of both, and for every float
 *     input (float products are exact in double: lo is 0).  An exact zero
 *     is -0 only when every hi is -0.
 *   wr_asum: the exact sum of |x[i]|, correctly rounded (+inf when that
 *     exceeds the type's range).
 *   wr_nrm2: the exact Euclidean norm correctly rounded: sqrt(S) rounded
 *     once, where S = sum x[i]^2 is computed exactly (no overflow, no
 *     underflow: squares of elements beyond 2^511 or below 2^-485 are
 *     scaled by 2^-+1216 into two further exact sums), subnormal results
 *     included, +inf only when the norm exceeds the type's largest value.
 *     This is one rounding of the exact norm, not the square root of a
 *     rounded sum of squares (which can be one unit off).
 * wr_argmax_abs is exact in either mode.
 */

/* *out = x[0]*y[0] + ... + x[count-1]*y[count-1] (one element of type).
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG (ctx NULL; x, y or out NULL when
 * used; misaligned; out overlapping x or y; type not a wr_type; memory the
 * backend cannot reach), WR_ERR_UNSUPPORTED (an integer type, or a backend
 * without the operation), WR_ERR_NO_MEMORY or WR_ERR_DEVICE. */
WR_API wr_status wr_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count, wr_type type);
/* *out = sqrt(x[0]^2 + ... + x[count-1]^2), without overflow or underflow in
 * intermediate results (see above).  Returns what wr_dot does. */
WR_API wr_status wr_nrm2(wr_context *ctx, const void *x, void *out, size_t count, wr_type type);
/* *out = |x[0]| + ... + |x[count-1]|.  Returns what wr_dot does. */
WR_API wr_status wr_asum(wr_context *ctx, const void *x, void *out, size_t count, wr_type type);
/* *index = the first index of the largest |in[i]| (+0 and -0 tie, and so do
 * x and -x: the first wins); if in holds a NaN, the first NaN's index (as
 * wr_argmax).  value (may be NULL) receives in[*index], with its sign.
 * count == 0 gives WR_ERR_EMPTY and writes nothing.  Returns what wr_argmax
 * does, and WR_ERR_UNSUPPORTED for an integer type. */
WR_API wr_status wr_argmax_abs(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index,
                               void *value);
/* out[r] = the dot product of row r of x and row r of y, two row-major rows
 * x cols matrices (cols == 0: every out[r] is +0).  Each out[r] has the bits
 * wr_dot gives on that row, on the same backend and in the same mode.
 * Returns what wr_dot does (also for rows * cols overflowing size_t). */
WR_API wr_status wr_dot_rows(wr_context *ctx, const void *x, const void *y, void *out, size_t rows, size_t cols,
                             wr_type type);

/* ---- exact partial dot products and norms (since 0.2) ---------------------
 *
 * The exact values behind reproducible mode, unrounded, for sums made across
 * calls, threads or processes (libwarpred_mpi's reproducible wr_mpi_dot,
 * wr_mpi_asum and wr_mpi_nrm2 are built on them).  Each adds to sums made
 * by wr_exact_sum_init, in host (or managed) memory, whatever ctx's float
 * mode; count == 0 adds nothing.  Merge the sums of several calls with
 * wr_exact_sum_merge (for norms: part by part).  Returns what
 * wr_reduce_exact does. */
/* *sum += the exact sum of the hi and lo parts of the products x[i] y[i]
 * (see reproducible wr_dot); wr_exact_sum_round then gives wr_dot's
 * reproducible result. */
WR_API wr_status wr_dot_exact(wr_context *ctx, const void *x, const void *y, size_t count, wr_type type,
                              wr_exact_sum *sum);
/* *sum += the exact sum of |x[i]|; wr_exact_sum_round then gives wr_asum's
 * reproducible result. */
WR_API wr_status wr_asum_exact(wr_context *ctx, const void *x, size_t count, wr_type type, wr_exact_sum *sum);
/* The sum of squares S as WR_NRM2_PARTS exact sums, so that no square is
 * rounded: parts[1] += the squares of the elements in [2^-485, 2^512) in
 * magnitude (and zeros), parts[2] += those of the larger elements times
 * 2^-1216, parts[0] += those of the smaller ones times 2^1216 (infinities
 * and NaNs go to parts[1]).  wr_exact_norm_round then gives wr_nrm2's
 * reproducible result. */
#define WR_NRM2_PARTS 3
WR_API wr_status wr_nrm2_exact(wr_context *ctx, const void *x, size_t count, wr_type type,
                               wr_exact_sum parts[WR_NRM2_PARTS]);
/* *out (one element of WR_FLOAT or WR_DOUBLE) = sqrt(S) rounded once to
 * nearest-even, S = 2^-1216 parts[0] + parts[1] + 2^1216 parts[2]: NaN if a
 * NaN was added (or the value is negative, which squares never make), +inf
 * if an infinity was; +0 for S == 0.  Returns WR_SUCCESS, WR_ERR_INVALID_ARG
 * (NULL pointers, a part not made by wr_exact_sum_init) or
 * WR_ERR_UNSUPPORTED (an integer type). */
WR_API wr_status wr_exact_norm_round(const wr_exact_sum parts[WR_NRM2_PARTS], wr_type type, void *out);

#ifdef __cplusplus
}
#endif

#endif /* WARPRED_H */

/*
 * bench.h -- shared declarations of warpred-bench (C and CUDA C++ parts).
 *
 * The benchmark is one program: warpred-bench.c drives it (options, the
 * measurement matrix, the host-resident table), cpuloops.c holds the OpenMP
 * comparison loops, check.c the host references every result is verified
 * against, output.c the table/CSV/JSON writers.  With CUDA, bench_cuda.cu
 * (device buffers, event timing, the host-resident copies), cub_*.cu (the
 * same operations through CUB) and seed_kernels.cu (the source articles'
 * kernels) are linked in; they talk to the C side only through this header.
 */
#ifndef WR_BENCH_H
#define WR_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include "warpred.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public functions the matrix measures. */
enum bench_func {
    BF_REDUCE, BF_SCAN, BF_EXSCAN, BF_ROWS, BF_SEGMENTS, BF_ARGMIN, BF_ARGMAX, BF_SEGSCAN, BF_SEGEXSCAN,
    BF_NFUNCS
};

/* What one measurement is about.  rows/cols for BF_ROWS (rows*cols <= n),
 * nseg/offsets (host memory, nseg+1 entries) for BF_SEGMENTS and the
 * segmented scans (BF_SEGSCAN, BF_SEGEXSCAN). */
struct bench_cell {
    enum bench_func func;
    wr_type type;
    wr_op op;              /* unused by argmin/argmax */
    size_t n;              /* elements of the input */
    size_t rows, cols;
    size_t nseg;
    const size_t *offsets;
};

/* Input data: values that keep every op's result meaningful (no collapse to
 * 0 or overflow to inf): DATA_PROD for PROD, DATA_GENERAL for the rest. */
enum bench_data { DATA_GENERAL, DATA_PROD };
enum bench_data bench_data_for(enum bench_func f, wr_op op);
/* Fill n elements of type t, in parallel (this is also the first touch). */
void bench_fill(void *buf, wr_type t, size_t n, enum bench_data kind, uint64_t seed);

/* Median timing.  A bench_call runs the measured thing once; it returns 0,
 * or non-zero with a one-line reason in err (WR_BENCH_ERRLEN bytes). */
#define WR_BENCH_ERRLEN 256
typedef int (*bench_call)(void *arg, char *err);
struct bench_timing {
    double med;            /* seconds, median of reps */
    double min;            /* seconds, fastest rep */
    int reps;
};
double bench_now(void);    /* monotonic clock, seconds */
int bench_time_host(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err);
double bench_median(double *v, int n);   /* sorts v */

/* Host references (check.c): verify the outputs of cell c computed from the
 * host input `in`.  out: the output array (reduce: one element; scans: n;
 * rows: rows; segments: nseg); index/value for argmin/argmax.  Returns 0 if
 * right, else 1 with a short reason in msg. */
int bench_verify(const struct bench_cell *c, const void *in, const void *out,
                 size_t index, const void *value, char *msg, size_t len);
/* Whether results of this cell are exact (integers, min/max, argmin/argmax):
 * then two implementations must agree bit for bit. */
int bench_cell_exact(const struct bench_cell *c);
/* Poison an output buffer (host) so that an unwritten element fails a check. */
void bench_poison(void *buf, size_t bytes);

/* Elements of the output array (reduce: 1, scans and segmented scans: n,
 * rows: rows, segments: nseg; argmin/argmax: 0, they write an index and a
 * value). */
size_t bench_out_count(const struct bench_cell *c);
/* Bytes an operation moves: each input read once, each output written once. */
double bench_cell_bytes(const struct bench_cell *c);

/* OpenMP comparison loops (cpuloops.c), SUM only.  bench_loop_* return 0, or
 * -1 when the loop does not exist for the type. */
int bench_loop_sum(wr_type t, const void *in, size_t n, void *out);
int bench_loop_scan(wr_type t, const void *in, void *out, size_t n, int exclusive);
void bench_loop_copy(void *dst, const void *src, size_t bytes);
const char *bench_loop_scan_name(void);   /* "omp scan" or "serial scan" */
int bench_omp_threads(void);

/* Names. */
const char *bench_func_name(enum bench_func f);
const char *bench_type_name(wr_type t);
const char *bench_op_name(wr_op op);

/* One line of output.  section: "matrix", "host", "seed".  The ratio
 * column is ref_time / time (above 1: ours is faster than the reference). */
struct bench_row {
    const char *section;
    char backend[32];      /* "cpu", "cuda", "cuda pinned", ... */
    char name[40];         /* function or kernel */
    const char *type;      /* "f32", ... or "" */
    const char *op;        /* "sum", ... or "" */
    size_t n;
    char param[40];        /* "cols=1024", "seg~1024", "" */
    double bytes;          /* moved by one run */
    struct bench_timing t; /* t.med == 0: not measured */
    double ceil_gbps;      /* copy ceiling of the same run (0: none) */
    char ref_name[24];     /* "CUB", "omp simd", "serial CPU", "" */
    double ref_time;       /* seconds, 0: none */
    double ref_kernel_time;/* cuda: CUB timed without the stream synchronisation
                              (events around the launches only), 0: none */
    char check[160];       /* "ok", "FAIL ...", "ERROR ...", "-" */
    int failed;
};
void bench_row_init(struct bench_row *r, const char *section);
/* Set (append: add after "; ") the check column, truncated to fit. */
void bench_check_set(struct bench_row *r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void bench_check_append(struct bench_row *r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Print / record a row (stdout table, CSV, JSON).  Thread-unsafe. */
void bench_emit(const struct bench_row *r);
/* Progress line on stderr (only when progress is on). */
void bench_progress(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A note line in the table output (stdout), e.g. a section heading. */
void bench_note(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- CUDA parts (only linked when built with CUDA) --------------------- */
/* 0 if a CUDA device is usable, else -1 with the reason in why. */
int bcu_init(char *why, size_t len);
const char *bcu_device_name(void);
void *bcu_dev_alloc(size_t bytes, char *err);
void bcu_dev_free(void *p);
void *bcu_pinned_alloc(size_t bytes, char *err);
void bcu_pinned_free(void *p);
int bcu_h2d(void *dst, const void *src, size_t bytes, char *err);
int bcu_d2h(void *dst, const void *src, size_t bytes, char *err);
int bcu_memset(void *dst, int value, size_t bytes, char *err);
/* Median time with CUDA events recorded before the call and after it
 * returned (and after a device synchronisation), i.e. the time until the
 * result is complete, as a caller of the library sees it. */
int bcu_time(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err);
/* bench_calls for the ceilings: arg is a struct bcu_copy. */
struct bcu_copy { void *dst; const void *src; size_t bytes; };
int bcu_copy_d2d(void *arg, char *err);
int bcu_copy_h2d(void *arg, char *err);
/* The device-to-device copy queued on bcu_stream(), not waited for. */
int bcu_copy_d2d_queued(void *arg, char *err);

/* ---- --async: calls queued on the benchmark's stream ---- */
/* The stream (a cudaStream_t, non-blocking) that --async queues everything on. */
void *bcu_stream(void);
/* Wait for it. */
int bcu_sync(char *err);
/* Median device time of reps calls of f (which must only queue work on
 * bcu_stream()), each between two events, all queued behind a kernel that
 * holds the stream until the host has queued them: the device's time alone,
 * without the host's launch cost.  At least one untimed call first. */
int bcu_time_queued(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err);
/* calls calls of f captured into one CUDA graph (global capture mode) and
 * replayed: the median over reps replays of the time per call.  Then the
 * ranges in poison are filled with 0xff and the graph replayed once more,
 * so that the outputs hold what the graph computed. */
struct bcu_range { void *p; size_t bytes; };
/* One call at a time on the idle stream, waited for between calls (the
 * host's cost of a call shows). */
int bcu_time_one(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err);
int bcu_time_graph(bench_call f, void *arg, int calls, int reps, struct bench_timing *t,
                   const struct bcu_range *poison, int npoison, char *err);

/* The same operation through CUB on the same device buffers, with its
 * temporary storage allocated by prepare (before any timing). */
struct bcu_cub;
int bcu_cub_prepare(struct bcu_cub **cub, const struct bench_cell *c, const void *d_in,
                    const size_t *d_offsets, char *err);
int bcu_cub_run(void *cub, char *err);                     /* a bench_call */
int bcu_cub_launch(void *cub, char *err);  /* the same without the synchronisation */
int bcu_cub_queue(void *cub, char *err);   /* the same queued on bcu_stream() */
/* Copy CUB's last result to the host: out (as for bench_verify) or
 * index/value for argmin/argmax. */
int bcu_cub_result(struct bcu_cub *cub, void *out, size_t *index, void *value, char *err);
void bcu_cub_free(struct bcu_cub *cub);
/* CUB's parts by function (cub_reduce.cu, cub_scan.cu, cub_segreduce.cu);
 * called by bcu_cub_run.  d_out: the output, d_aux: the int64 index of
 * argmin/argmax; stream: a cudaStream_t (NULL: the legacy stream). */
int bcu_cub_reduce(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                   const void *d_in, void *d_out, void *d_aux, void *stream);
int bcu_cub_scan(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                 const void *d_in, void *d_out, void *stream);
int bcu_cub_segreduce(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                      const void *d_in, void *d_out, const size_t *d_offsets, void *stream);
/* The segmented scans through cub::DeviceScan::{Inclusive,Exclusive}ScanByKey
 * with the segment ids as keys (cub_segscan.cu); bcu_segscan_keys builds
 * them once, before any timing: d_keys[i] = the segment of element i of
 * [0, n) (device offsets of nseg segments covering it). */
int bcu_cub_segscan(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                    const void *d_in, void *d_out, const unsigned *d_keys, void *stream);
int bcu_segscan_keys(const size_t *d_offsets, size_t nseg, size_t n, unsigned *d_keys);

/* cuBLAS (cublas_ref.cu), the reference of the dot products and norms:
 * found at run time (dlopen), so that the benchmark builds and runs where
 * it is absent; bcu_cublas_available() says whether it is (else -1 and
 * why).  bcu_cublas_run is a bench_call on a struct bcu_blas_call: it
 * queues cublas<S|D>dot / nrm2 / asum / I<s|d>amax (n < 2^31) on stream in
 * CUBLAS_POINTER_MODE_DEVICE, the result into device memory at d_out (an
 * int for IAMAX, 1-based, as cuBLAS counts). */
enum bcu_blas { BCU_DOT, BCU_NRM2, BCU_ASUM, BCU_IAMAX };
struct bcu_blas_call {
    enum bcu_blas f;
    wr_type type;          /* WR_FLOAT or WR_DOUBLE */
    size_t n;
    const void *x, *y;     /* device memory (y: BCU_DOT only) */
    void *d_out;
    void *stream;          /* a cudaStream_t; NULL: the legacy stream */
};
int bcu_cublas_available(char *why, size_t len);
int bcu_cublas_run(void *call, char *err);

/* The dot products' and norms' rows on the cuda backend (bench_blas_cuda.c;
 * funcs: bench_blas.h's BB_* bits, the rest as bench_blas()), beside
 * cuBLAS and a copy.  Returns the number of failed checks. */
int bench_blas_cuda(wr_context *ctx, unsigned funcs, unsigned types, const size_t *sizes, int nsizes,
                    const size_t *cols, int ncols, int fmodes, int refs, int reps, int warmup);

/* The source articles' kernels (seed_kernels.cu).  Emits rows through
 * bench_emit; returns the number of failed checks (or -1 on a CUDA error). */
int bcu_seed_table(int warmup, int reps, wr_context *cuda_ctx);

#ifdef __cplusplus
}
#endif

#endif /* WR_BENCH_H */

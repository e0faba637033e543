/*
 * cuda_quick_timing.c -- a first look at the CUDA backend's speed, for the
 * GPU check script (bench/warpred-bench is the real instrument: CUB beside
 * us, every function, CSV/JSON).  Not a test: it prints a table.
 *
 * For n = 2^20, 2^25 and 2^28 elements on the device: the median host wall
 * time of 20 calls (after 3 warm-up calls; each call returns with its result
 * complete) of a device-to-device cudaMemcpy and of libwarpred calls on a
 * CUDA context, the effective bandwidth (each input read once, each output
 * written once) and the ratio to the copy's bandwidth.  Inputs are random.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "warpred.h"
#include "gpu_common.h"

#define CK(call)                                                                    \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

enum { REPS = 20, WARM = 3 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct job {
    const char *name;
    int what;        /* 0 copy, 1 reduce, 2 scan, 3 exscan, 4 argmax, 5 rows */
    wr_type t;
    size_t cols;
};

static wr_context *ctx;
static void *din, *dout, *dres;
static size_t *didx;

static int run(const struct job *j, size_t n)
{
    const size_t es = wr_type_size(j->t);
    switch (j->what) {
    case 0: CK(cudaMemcpy(dout, din, n * es, cudaMemcpyDeviceToDevice)); CK(cudaDeviceSynchronize()); return 0;
    case 1: return wr_reduce(ctx, din, dres, n, j->t, WR_SUM);
    case 2: return wr_scan(ctx, din, dout, n, j->t, WR_SUM);
    case 3: return wr_exscan(ctx, din, dout, n, j->t, WR_SUM);
    case 4: return wr_argmax(ctx, din, n, j->t, didx, NULL);
    default: return wr_reduce_rows(ctx, din, dout, n / j->cols, j->cols, j->t, WR_SUM);
    }
}

static double bytes_of(const struct job *j, size_t n)
{
    const size_t es = wr_type_size(j->t);
    switch (j->what) {
    case 0: case 2: case 3: return 2.0 * (double)(n * es);
    case 5: return (double)(n * es + n / j->cols * es);
    default: return (double)(n * es);
    }
}

int main(void)
{
    static const struct job jobs[] = {
        { "cudaMemcpy D2D (ceiling)", 0, WR_FLOAT, 0 },
        { "wr_reduce f32 SUM", 1, WR_FLOAT, 0 },
        { "wr_reduce f64 SUM", 1, WR_DOUBLE, 0 },
        { "wr_reduce i32 SUM", 1, WR_INT32, 0 },
        { "wr_argmax f32", 4, WR_FLOAT, 0 },
        { "wr_scan f32 SUM", 2, WR_FLOAT, 0 },
        { "wr_exscan i32 SUM", 3, WR_INT32, 0 },
        { "wr_reduce_rows f32, 32 cols", 5, WR_FLOAT, 32 },
        { "wr_reduce_rows f32, 1024 cols", 5, WR_FLOAT, 1024 },
        { "wr_reduce_rows f32, 32768 cols", 5, WR_FLOAT, 32768 },
    };
    static const size_t sizes[] = { (size_t)1 << 20, (size_t)1 << 25, (size_t)1 << 28 };
    const size_t maxn = (size_t)1 << 28;
    unsetenv("WARPRED_BACKEND");
    if (wr_context_create(&ctx, WR_BACKEND_CUDA) != WR_SUCCESS) {
        printf("no CUDA context: %s\n", wr_context_error(NULL));
        return 77;
    }
    CK(cudaMalloc(&din, maxn * 8));
    CK(cudaMalloc(&dout, maxn * 8));
    CK(cudaMalloc(&dres, 64));
    CK(cudaMalloc((void **)&didx, sizeof *didx));
    {   /* random bits, then small floats so that float sums stay finite */
        uint32_t *h = malloc(maxn * 8);
        uint64_t s = 42;
        if (!h) return 1;
        for (size_t i = 0; i < maxn * 2; i++) h[i] = (uint32_t)rng_next(&s) & 0x3f7fffffu;
        CK(cudaMemcpy(din, h, maxn * 8, cudaMemcpyHostToDevice));
        free(h);
    }
    printf("%s\n", wr_context_describe(ctx));
    printf("median of %d calls after %d warm-up calls; host wall time, result complete at return\n", REPS, WARM);
    printf("%-32s %12s %12s %10s %8s\n", "operation", "n", "time (us)", "GB/s", "/copy");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        double copy_gbs = 0;
        for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
            const struct job *j = &jobs[k];
            double t[REPS];
            int st = 0;
            if (j->what == 5 && n < j->cols) continue;
            for (int r = 0; r < WARM; r++) st |= run(j, n);
            for (int r = 0; r < REPS; r++) {
                double t0 = now();
                st |= run(j, n);
                t[r] = now() - t0;
            }
            qsort(t, REPS, sizeof t[0], cmp);
            const double med = t[REPS / 2], gbs = bytes_of(j, n) / med / 1e9;
            if (j->what == 0) copy_gbs = gbs;
            if (st) printf("%-32s %12zu  failed: %s\n", j->name, n, wr_context_error(ctx));
            else printf("%-32s %12zu %12.1f %10.1f %8.2f\n", j->name, n, med * 1e6, gbs, gbs / copy_gbs);
        }
    }
    wr_context_destroy(ctx);
    return 0;
}

/*
 * bench_cuda.cu -- warpred-bench's device side: buffers, CUDA-event timing,
 * the copy ceilings and the CUB reference calls' common part.
 *
 * Every bench_call the matrix times on the GPU returns only when its result
 * is complete (the library promises that of each call), so CUB and the copy
 * are followed by a stream synchronisation too: the events then bracket the
 * time a caller waits for a result, the same quantity for all three.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "bench.h"

static char dev_name[160];
static cudaEvent_t ev_start, ev_stop;

static int fail(cudaError_t e, const char *what, char *err)
{
    snprintf(err, WR_BENCH_ERRLEN, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

extern "C" int bcu_init(char *why, size_t len)
{
    int n = 0;
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        snprintf(why, len, "%s", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        cudaGetLastError();
        return -1;
    }
    if ((e = cudaSetDevice(0)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess
        || (e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess
        || (e = cudaEventCreate(&ev_start)) != cudaSuccess
        || (e = cudaEventCreate(&ev_stop)) != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    snprintf(dev_name, sizeof dev_name, "%s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
             p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30));
    return 0;
}

extern "C" const char *bcu_device_name(void) { return dev_name; }

extern "C" void *bcu_dev_alloc(size_t bytes, char *err)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 16);
    if (e != cudaSuccess) { fail(e, "cudaMalloc", err); return NULL; }
    return p;
}

extern "C" void bcu_dev_free(void *p) { if (p) cudaFree(p); }

extern "C" void *bcu_pinned_alloc(size_t bytes, char *err)
{
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 16);
    if (e != cudaSuccess) { fail(e, "cudaMallocHost", err); return NULL; }
    return p;
}

extern "C" void bcu_pinned_free(void *p) { if (p) cudaFreeHost(p); }

extern "C" int bcu_h2d(void *dst, const void *src, size_t bytes, char *err)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy H2D", err);
}

extern "C" int bcu_d2h(void *dst, const void *src, size_t bytes, char *err)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy D2H", err);
}

extern "C" int bcu_memset(void *dst, int value, size_t bytes, char *err)
{
    cudaError_t e = cudaMemset(dst, value, bytes);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : fail(e, "cudaMemset", err);
}

extern "C" int bcu_time(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err)
{
    std::vector<double> v;
    cudaError_t e;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < warmup; i++)
        if (f(arg, err) != 0) return -1;
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail(e, "warm-up", err);
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        if ((e = cudaEventRecord(ev_start, 0)) != cudaSuccess) return fail(e, "cudaEventRecord", err);
        if (f(arg, err) != 0) return -1;
        if ((e = cudaEventRecord(ev_stop, 0)) != cudaSuccess
            || (e = cudaEventSynchronize(ev_stop)) != cudaSuccess
            || (e = cudaEventElapsedTime(&ms, ev_start, ev_stop)) != cudaSuccess)
            return fail(e, "CUDA event", err);
        v.push_back(1e-3 * ms);
    }
    t->reps = reps;
    t->med = bench_median(v.data(), reps);
    t->min = reps ? v[0] : 0;
    return 0;
}

extern "C" int bcu_copy_d2d(void *arg, char *err)
{
    struct bcu_copy *c = (struct bcu_copy *)arg;
    cudaError_t e = cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy D2D", err);
}

extern "C" int bcu_copy_h2d(void *arg, char *err)
{
    struct bcu_copy *c = (struct bcu_copy *)arg;
    cudaError_t e = cudaMemcpy(c->dst, c->src, c->bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy H2D", err);
}

/* ---- CUB: one prepared call ------------------------------------------- */

struct bcu_cub {
    struct bench_cell c;
    const void *d_in;
    const size_t *d_off;
    void *d_out;               /* the output (argmin/argmax: the value) */
    void *d_aux;               /* argmin/argmax: the int64 index */
    void *temp;
    size_t temp_bytes;
};

static size_t cub_out_count(const struct bench_cell *c)
{
    switch (c->func) {
    case BF_SCAN: case BF_EXSCAN: return c->n;
    case BF_ROWS: return c->rows;
    case BF_SEGMENTS: return c->nseg;
    default: return 1;
    }
}

/* One call of CUB's for the cell; temp == NULL asks for the temp size. */
static int cub_call(struct bcu_cub *b, void *temp, size_t *bytes)
{
    switch (b->c.func) {
    case BF_REDUCE: case BF_ARGMIN: case BF_ARGMAX:
        return bcu_cub_reduce(&b->c, temp, bytes, b->d_in, b->d_out, b->d_aux);
    case BF_SCAN: case BF_EXSCAN:
        return bcu_cub_scan(&b->c, temp, bytes, b->d_in, b->d_out);
    case BF_ROWS: case BF_SEGMENTS:
        return bcu_cub_segreduce(&b->c, temp, bytes, b->d_in, b->d_out, b->d_off);
    default:
        return (int)cudaErrorInvalidValue;
    }
}

extern "C" int bcu_cub_prepare(struct bcu_cub **cub, const struct bench_cell *c, const void *d_in,
                               const size_t *d_offsets, char *err)
{
    struct bcu_cub *b = new bcu_cub();
    cudaError_t e;
    *cub = b;
    b->c = *c;
    b->d_in = d_in;
    b->d_off = d_offsets;
    if (c->n > 0x7fffffff) {   /* the 32-bit item count a CUB user passes below 2^31 */
        snprintf(err, WR_BENCH_ERRLEN, "n > 2^31-1 not measured with CUB");
        return -1;
    }
    if ((e = cudaMalloc(&b->d_out, cub_out_count(c) * wr_type_size(c->type) + 16)) != cudaSuccess
        || (e = cudaMalloc(&b->d_aux, 16)) != cudaSuccess)
        return fail(e, "cudaMalloc (CUB output)", err);
    if ((e = (cudaError_t)cub_call(b, NULL, &b->temp_bytes)) != cudaSuccess)
        return fail(e, "CUB temp size", err);
    if ((e = cudaMalloc(&b->temp, b->temp_bytes ? b->temp_bytes : 16)) != cudaSuccess)
        return fail(e, "cudaMalloc (CUB temp)", err);
    return 0;
}

extern "C" int bcu_cub_run(void *arg, char *err)
{
    struct bcu_cub *b = (struct bcu_cub *)arg;
    cudaError_t e = (cudaError_t)cub_call(b, b->temp, &b->temp_bytes);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? 0 : fail(e, "CUB", err);
}

extern "C" int bcu_cub_result(struct bcu_cub *b, void *out, size_t *index, void *value, char *err)
{
    size_t s = wr_type_size(b->c.type);
    cudaError_t e;
    if (b->c.func == BF_ARGMIN || b->c.func == BF_ARGMAX) {
        long long idx = -1;
        if ((e = cudaMemcpy(value, b->d_out, s, cudaMemcpyDeviceToHost)) != cudaSuccess
            || (e = cudaMemcpy(&idx, b->d_aux, sizeof idx, cudaMemcpyDeviceToHost)) != cudaSuccess)
            return fail(e, "cudaMemcpy (CUB result)", err);
        *index = (size_t)idx;
        return 0;
    }
    e = cudaMemcpy(out, b->d_out, cub_out_count(&b->c) * s, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy (CUB result)", err);
}

extern "C" void bcu_cub_free(struct bcu_cub *b)
{
    if (b == NULL) return;
    cudaFree(b->d_out);
    cudaFree(b->d_aux);
    cudaFree(b->temp);
    delete b;
}

/*
 * bench_cuda.cu -- warpred-bench's device side: buffers, CUDA-event timing,
 * the copy ceilings and the CUB reference calls' common part.
 *
 * Every bench_call the matrix times on the GPU returns only when its result
 * is complete (the library promises that of each call), so CUB and the copy
 * are followed by a stream synchronisation too: the events then bracket the
 * time a caller waits for a result, the same quantity for all three.
 *
 * --async times calls queued on the benchmark's own stream instead
 * (bcu_time_queued, bcu_time_graph): ours through a context that has the
 * stream, CUB and the copy on it directly.  Each call is bracketed by two
 * events, and all of a measurement's calls are queued behind a kernel that
 * holds the stream until the host has queued them, so the events see the
 * device's time alone, never the host's launch cost, for every contender
 * alike (the technique of nvbench's blocking kernel).
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
static cudaStream_t bstream;                   /* --async: the stream everything is queued on */
static volatile unsigned *hold_host;           /* mapped: [0] release, [1] set when the hold timed out */
static unsigned *hold_dev;

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
        || (e = cudaEventCreate(&ev_stop)) != cudaSuccess
        || (e = cudaStreamCreateWithFlags(&bstream, cudaStreamNonBlocking)) != cudaSuccess
        || (e = cudaHostAlloc((void **)&hold_host, 2 * sizeof(unsigned), cudaHostAllocMapped)) != cudaSuccess
        || (e = cudaHostGetDevicePointer((void **)&hold_dev, (void *)hold_host, 0)) != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    snprintf(dev_name, sizeof dev_name, "%.100s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
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

extern "C" int bcu_copy_d2d_queued(void *arg, char *err)
{
    struct bcu_copy *c = (struct bcu_copy *)arg;
    cudaError_t e = cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, bstream);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpyAsync D2D", err);
}

extern "C" int bcu_copy_h2d(void *arg, char *err)
{
    struct bcu_copy *c = (struct bcu_copy *)arg;
    cudaError_t e = cudaMemcpy(c->dst, c->src, c->bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy H2D", err);
}

/* ---- queued timing (--async) ----------------------------------------- */

extern "C" void *bcu_stream(void) { return (void *)bstream; }

extern "C" int bcu_sync(char *err)
{
    cudaError_t e = cudaStreamSynchronize(bstream);
    return e == cudaSuccess ? 0 : fail(e, "cudaStreamSynchronize", err);
}

/* Hold the stream until the host says so (flag[0]), or for timeout_ns
 * (then flag[1] says that it timed out: the measurement is void). */
__global__ void k_hold(volatile unsigned *flag, unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (flag[0] == 0) {
        __nanosleep(500);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            flag[1] = 1;
            return;
        }
    }
}

static std::vector<cudaEvent_t> ev_pool;

static int events(size_t n, char *err)
{
    while (ev_pool.size() < n) {
        cudaEvent_t ev;
        cudaError_t e = cudaEventCreate(&ev);
        if (e != cudaSuccess) return fail(e, "cudaEventCreate", err);
        ev_pool.push_back(ev);
    }
    return 0;
}

static int hold(char *err)
{
    hold_host[0] = hold_host[1] = 0;
    k_hold<<<1, 1, 0, bstream>>>(hold_dev, 2000000000ull);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "hold kernel", err);
}

static int release(char *err)
{
    __atomic_store_n((unsigned *)&hold_host[0], 1u, __ATOMIC_RELEASE);
    cudaError_t e = cudaStreamSynchronize(bstream);
    if (e != cudaSuccess) return fail(e, "cudaStreamSynchronize", err);
    if (hold_host[1]) {
        snprintf(err, WR_BENCH_ERRLEN, "the calls took over 2 s to queue: not measured");
        return -1;
    }
    return 0;
}

/* reps elapsed times between event pairs 2i, 2i+1, in seconds, into t. */
static int elapsed(int reps, double scale, struct bench_timing *t, char *err)
{
    std::vector<double> v;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        cudaError_t e = cudaEventElapsedTime(&ms, ev_pool[2 * i], ev_pool[2 * i + 1]);
        if (e != cudaSuccess) return fail(e, "cudaEventElapsedTime", err);
        v.push_back(1e-3 * ms * scale);
    }
    t->reps = reps;
    t->med = bench_median(v.data(), reps);
    t->min = reps ? v[0] : 0;
    return 0;
}

extern "C" int bcu_time_queued(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err)
{
    cudaError_t e;
    memset(t, 0, sizeof *t);
    /* at least one call before the held stream: a kernel's first launch may
     * load its module, which can wait for the device (and the held stream) */
    for (int i = 0; i < (warmup > 0 ? warmup : 1); i++)
        if (f(arg, err) != 0) return -1;
    if (bcu_sync(err) || events(2 * (size_t)reps, err) || hold(err)) return -1;
    for (int i = 0; i < reps; i++) {
        if ((e = cudaEventRecord(ev_pool[2 * i], bstream)) != cudaSuccess) {
            release(err);
            return fail(e, "cudaEventRecord", err);
        }
        if (f(arg, err) != 0) {
            char keep[WR_BENCH_ERRLEN];
            memcpy(keep, err, sizeof keep);
            release(err);
            memcpy(err, keep, sizeof keep);
            return -1;
        }
        if ((e = cudaEventRecord(ev_pool[2 * i + 1], bstream)) != cudaSuccess) {
            release(err);
            return fail(e, "cudaEventRecord", err);
        }
    }
    if (release(err)) return -1;
    return elapsed(reps, 1.0, t, err);
}

/* One call at a time on an idle stream, each between two events, waited
 * for before the next: what a solver that queues one reduction between its
 * own kernels sees (the host's cost of the call shows, as a gap before the
 * first kernel starts). */
extern "C" int bcu_time_one(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err)
{
    cudaError_t e;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < (warmup > 0 ? warmup : 1); i++)
        if (f(arg, err) != 0) return -1;
    if (bcu_sync(err) || events(2 * (size_t)reps, err)) return -1;
    for (int i = 0; i < reps; i++) {
        if ((e = cudaEventRecord(ev_pool[2 * i], bstream)) != cudaSuccess) return fail(e, "cudaEventRecord", err);
        if (f(arg, err) != 0) return -1;
        if ((e = cudaEventRecord(ev_pool[2 * i + 1], bstream)) != cudaSuccess) return fail(e, "cudaEventRecord", err);
        if (bcu_sync(err)) return -1;
    }
    return elapsed(reps, 1.0, t, err);
}

extern "C" int bcu_time_graph(bench_call f, void *arg, int calls, int reps, struct bench_timing *t,
                              const struct bcu_range *poison, int npoison, char *err)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    cudaError_t e;
    int rc = -1;
    memset(t, 0, sizeof *t);
    if (f(arg, err) != 0 || bcu_sync(err)) return -1;            /* (modules loaded before the capture) */
    if ((e = cudaStreamBeginCapture(bstream, cudaStreamCaptureModeGlobal)) != cudaSuccess)
        return fail(e, "cudaStreamBeginCapture", err);
    for (int i = 0; i < calls; i++)
        if (f(arg, err) != 0) {
            char keep[WR_BENCH_ERRLEN];
            memcpy(keep, err, sizeof keep);
            if (cudaStreamEndCapture(bstream, &g) == cudaSuccess && g) cudaGraphDestroy(g);
            (void)cudaGetLastError();
            snprintf(err, WR_BENCH_ERRLEN, "in capture: %.200s", keep);
            return -1;
        }
    if ((e = cudaStreamEndCapture(bstream, &g)) != cudaSuccess) return fail(e, "cudaStreamEndCapture", err);
    if ((e = cudaGraphInstantiate(&x, g, 0)) != cudaSuccess) {
        fail(e, "cudaGraphInstantiate", err);
        goto out;
    }
    if ((e = cudaGraphLaunch(x, bstream)) != cudaSuccess) {          /* warm-up */
        fail(e, "cudaGraphLaunch", err);
        goto out;
    }
    if (bcu_sync(err) || events(2 * (size_t)reps, err) || hold(err)) goto out;
    for (int i = 0; i < reps; i++) {
        if ((e = cudaEventRecord(ev_pool[2 * i], bstream)) != cudaSuccess ||
            (e = cudaGraphLaunch(x, bstream)) != cudaSuccess ||
            (e = cudaEventRecord(ev_pool[2 * i + 1], bstream)) != cudaSuccess) {
            release(err);
            fail(e, "cudaGraphLaunch", err);
            goto out;
        }
    }
    if (release(err) || elapsed(reps, 1.0 / calls, t, err)) goto out;
    /* the outputs from one more replay, poisoned first: the graph's own */
    for (int i = 0; i < npoison; i++)
        if (poison[i].bytes && (e = cudaMemsetAsync(poison[i].p, 0xff, poison[i].bytes, bstream)) != cudaSuccess) {
            fail(e, "cudaMemsetAsync", err);
            goto out;
        }
    if ((e = cudaGraphLaunch(x, bstream)) != cudaSuccess) {
        fail(e, "cudaGraphLaunch", err);
        goto out;
    }
    rc = bcu_sync(err);
out:
    if (x) cudaGraphExecDestroy(x);
    if (g) cudaGraphDestroy(g);
    return rc;
}

/* ---- CUB: one prepared call ------------------------------------------- */

struct bcu_cub {
    struct bench_cell c;
    const void *d_in;
    const size_t *d_off;
    void *d_out;               /* the output (argmin/argmax: the value) */
    void *d_aux;               /* argmin/argmax: the int64 index */
    unsigned *d_keys;          /* segmented scans: each element's segment (built once, untimed) */
    void *temp;
    size_t temp_bytes;
};

/* One call of CUB's for the cell on stream st; temp == NULL asks for the
 * temp size. */
static int cub_call(struct bcu_cub *b, void *temp, size_t *bytes, cudaStream_t st = 0)
{
    switch (b->c.func) {
    case BF_REDUCE: case BF_ARGMIN: case BF_ARGMAX:
        return bcu_cub_reduce(&b->c, temp, bytes, b->d_in, b->d_out, b->d_aux, (void *)st);
    case BF_SCAN: case BF_EXSCAN:
        return bcu_cub_scan(&b->c, temp, bytes, b->d_in, b->d_out, (void *)st);
    case BF_ROWS: case BF_SEGMENTS:
        return bcu_cub_segreduce(&b->c, temp, bytes, b->d_in, b->d_out, b->d_off, (void *)st);
    case BF_SEGSCAN: case BF_SEGEXSCAN:
        return bcu_cub_segscan(&b->c, temp, bytes, b->d_in, b->d_out, b->d_keys, (void *)st);
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
    if ((e = cudaMalloc(&b->d_out, bench_out_count(c) * wr_type_size(c->type) + 16)) != cudaSuccess
        || (e = cudaMalloc(&b->d_aux, 16)) != cudaSuccess)
        return fail(e, "cudaMalloc (CUB output)", err);
    if (c->func == BF_SEGSCAN || c->func == BF_SEGEXSCAN) {
        /* the keys a scan by key reads: the segment ids, made once here */
        if ((e = cudaMalloc((void **)&b->d_keys, (c->n ? c->n : 1) * sizeof(unsigned))) != cudaSuccess)
            return fail(e, "cudaMalloc (CUB keys)", err);
        if ((e = (cudaError_t)bcu_segscan_keys(d_offsets, c->nseg, c->n, b->d_keys)) != cudaSuccess ||
            (e = cudaDeviceSynchronize()) != cudaSuccess)
            return fail(e, "segment keys", err);
    }
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

extern "C" int bcu_cub_launch(void *arg, char *err)
{
    struct bcu_cub *b = (struct bcu_cub *)arg;
    cudaError_t e = (cudaError_t)cub_call(b, b->temp, &b->temp_bytes);
    if (e == cudaSuccess) e = cudaGetLastError();
    return e == cudaSuccess ? 0 : fail(e, "CUB", err);
}

extern "C" int bcu_cub_queue(void *arg, char *err)
{
    struct bcu_cub *b = (struct bcu_cub *)arg;
    cudaError_t e = (cudaError_t)cub_call(b, b->temp, &b->temp_bytes, bstream);
    if (e == cudaSuccess) e = cudaGetLastError();
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
    e = cudaMemcpy(out, b->d_out, bench_out_count(&b->c) * s, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy (CUB result)", err);
}

extern "C" void bcu_cub_free(struct bcu_cub *b)
{
    if (b == NULL) return;
    cudaFree(b->d_out);
    cudaFree(b->d_aux);
    cudaFree(b->d_keys);
    cudaFree(b->temp);
    delete b;
}

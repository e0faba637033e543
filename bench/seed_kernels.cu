/*
 * seed_kernels.cu -- `warpred-bench --seed-table`: the kernels of the source
 * articles libwarpred was designed from, redone here and timed on
 * N = 33,554,432 floats (128 MiB), as their tables were.
 *
 * Article 1 (warp primitives): broadcast (__shfl_sync from lane 0), xor
 * shuffle (lane ^ 16), up/down shuffle (neighbour exchange), the 5-step warp
 * reduce (__shfl_down_sync 16..1), block reduce sum and max (block 256: warp
 * reduce, one partial per warp through shared memory, warp 0 reduces those),
 * block scan inclusive and exclusive (block 1024: warp scans with
 * __shfl_up_sync guarded by lane >= offset, then an EXCLUSIVE scan of the
 * warp totals as the warps' bases).  Like the articles' kernels these are
 * block-local: one output per warp or block, or a scan within each block.
 *
 * Article 3 (reduction variants, a full sum of the array): the shared-memory
 * tree with interleaved addressing (the classic baseline), the unrolled last
 * warp through a volatile pointer (correct only while a warp runs in lock
 * step, which Volta's independent thread scheduling no longer promises),
 * the same with __syncwarp between the steps, the last warp by shuffles, the
 * two-stage block reduce (grid-stride accumulation, warp shuffles, 32
 * partials in shared memory, as PyTorch's BlockReduceSum) and the same with
 * 16-byte float4 loads.  Kernels that leave one partial per block are
 * applied again to their partials until one value remains.
 *
 * Each kernel's result is checked against a serial CPU loop, which is also
 * the "speed-up" reference (the articles' "vs CPU" column).  Times are GPU
 * time between CUDA events around the launches (no host synchronisation
 * inside), medians of the timed runs; GB/s counts the article's way: input
 * read once plus output written once.  "% copy" compares with a device-to-
 * device cudaMemcpy of the same N floats timed the same way.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include "bench.h"

#define SEED_N 33554432
#define FULL_MASK 0xffffffffu

/* ---- warp primitives (article 1) ---------------------------------------- */

__device__ __forceinline__ float warp_sum_down(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
    return v;                          /* complete in lane 0 */
}

__device__ __forceinline__ float warp_sum_xor(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;                          /* complete in every lane (butterfly) */
}

__device__ __forceinline__ float warp_max_xor(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

/* Inclusive warp scan: lane 0 has nothing to its left, so the additions are
 * guarded (an out-of-range __shfl_up_sync returns the lane's own value). */
__device__ __forceinline__ float warp_scan_incl(float v)
{
    int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        float n = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += n;
    }
    return v;
}

/* Exclusive from inclusive: the left neighbour's inclusive value. */
__device__ __forceinline__ float warp_excl_of(float incl)
{
    float e = __shfl_up_sync(FULL_MASK, incl, 1);
    return (threadIdx.x & 31) ? e : 0.0f;
}

__global__ void k_broadcast(const float *in, float *out, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) out[tid] = __shfl_sync(FULL_MASK, in[tid], 0);
}

__global__ void k_xor(const float *in, float *out, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) out[tid] = __shfl_xor_sync(FULL_MASK, in[tid], 16);
}

/* Even lanes take the right neighbour (down 1), odd lanes the left (up 1). */
__global__ void k_updown(const float *in, float *out, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        float v = in[tid];
        float d = __shfl_down_sync(FULL_MASK, v, 1), u = __shfl_up_sync(FULL_MASK, v, 1);
        out[tid] = (threadIdx.x & 1) ? u : d;
    }
}

__global__ void k_warp_reduce(const float *in, float *out, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        float v = warp_sum_down(in[tid]);
        if ((threadIdx.x & 31) == 0) out[tid / 32] = v;
    }
}

/* Block reduce: one __syncthreads between the two warp-level rounds. */
template <bool MAX> __global__ void k_block_reduce(const float *in, float *out, int n)
{
    __shared__ float part[32];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    float ident = MAX ? -INFINITY : 0.0f;
    float v = tid < n ? in[tid] : ident;
    v = MAX ? warp_max_xor(v) : warp_sum_xor(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? part[lane] : ident;
        v = MAX ? warp_max_xor(v) : warp_sum_xor(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

/* Block scan (block 1024): the warp totals' EXCLUSIVE scan is each warp's
 * base (an inclusive one would count the warp's own total twice). */
template <bool EXCL> __global__ void k_block_scan(const float *in, float *out, int n)
{
    __shared__ float base[32];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    float v = tid < n ? in[tid] : 0.0f;
    float incl = warp_scan_incl(v);
    if (lane == 31) base[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        float t = lane < nwarps ? base[lane] : 0.0f;
        float e = warp_excl_of(warp_scan_incl(t));
        if (lane < nwarps) base[lane] = e;
    }
    __syncthreads();
    if (tid < n) out[tid] = base[warp] + (EXCL ? warp_excl_of(incl) : incl);
}

/* ---- reduction variants (article 3), block 256 ------------------------- */

/* Baseline: shared-memory tree, interleaved addressing (tid % (2k) == 0):
 * divergent warps and a __syncthreads per level. */
__global__ void r_baseline(const float *in, float *out, int n)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = blockIdx.x * 256 + t;
    s[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = 1; k < 256; k *= 2) {
        if (t % (2 * k) == 0) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* The first add during the load (two elements per thread) and sequential
 * addressing down to 64 elements; the variants differ in the last warp. */
__device__ __forceinline__ void tree_to_64(float *s, const float *in, int n)
{
    unsigned t = threadIdx.x, i = blockIdx.x * 512 + t;
    float a = i < (unsigned)n ? in[i] : 0.0f, b = i + 256 < (unsigned)n ? in[i + 256] : 0.0f;
    s[t] = a + b;
    __syncthreads();
    for (unsigned k = 128; k > 32; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
}

/* Pre-Volta idiom: no synchronisation inside the last warp, volatile so
 * that each step re-reads shared memory.  A data race under independent
 * thread scheduling; the check says whether it held here. */
__device__ void warp_volatile(volatile float *s, unsigned t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

__global__ void r_volatile(const float *in, float *out, int n)
{
    __shared__ float s[256];
    tree_to_64(s, in, n);
    if (threadIdx.x < 32) warp_volatile(s, threadIdx.x);
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/* The same last warp made correct with __syncwarp between each read and the
 * following write (article 3, section 3.1). */
__global__ void r_syncwarp(const float *in, float *out, int n)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    tree_to_64(s, in, n);
    if (t < 32) {
        float v = s[t];
#pragma unroll
        for (unsigned k = 32; k > 0; k >>= 1) {
            v += s[t + k];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* The last warp by shuffles (article 3, section 3.2). */
__global__ void r_shuffle(const float *in, float *out, int n)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    tree_to_64(s, in, n);
    if (t < 32) {
        float v = warp_sum_down(s[t] + s[t + 32]);
        if (t == 0) out[blockIdx.x] = v;
    }
}

/* Two-stage block reduce of a per-thread value (block 256). */
__device__ __forceinline__ float block_sum_256(float v)
{
    __shared__ float part[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum_xor(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = threadIdx.x < 8 ? part[lane] : 0.0f;
    if (warp == 0) v = warp_sum_xor(v);
    return v;
}

/* Grid-stride accumulation (a fixed grid that fills the GPU) and the
 * two-stage block reduce: one partial per block. */
__global__ void r_twostage(const float *in, float *out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) v += in[i];
    v = block_sum_256(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The same with 16-byte loads (float4); block 0 adds the n % 4 tail. */
__global__ void r_vector(const float *in, float *out, int n)
{
    const float4 *in4 = (const float4 *)in;
    int n4 = n / 4;
    float v = 0.0f;
    for (int i = blockIdx.x * 256 + threadIdx.x; i < n4; i += gridDim.x * 256) {
        float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < (unsigned)(n - 4 * n4)) v += in[4 * n4 + threadIdx.x];
    v = block_sum_256(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* ---- the table ------------------------------------------------------------ */

enum seed_id {
    S_BROADCAST, S_XOR, S_UPDOWN, S_WARP_REDUCE, S_BLOCK_SUM, S_BLOCK_MAX, S_SCAN_INCL, S_SCAN_EXCL,
    S_R_BASELINE, S_R_VOLATILE, S_R_SYNCWARP, S_R_SHUFFLE, S_R_TWOSTAGE, S_R_VECTOR, S_CUB, S_OURS,
    S_COPY, S_COUNT
};

struct seed_ctx {
    int id;
    const float *d_in;
    float *d_out, *d_a, *d_b;  /* output, two partial buffers */
    int grid;                  /* blocks of the grid-stride kernels */
    void *cub_temp;
    size_t cub_bytes;
    wr_context *ctx;
    float *result;             /* where the full reductions leave the sum */
};

typedef void (*reduce_kernel)(const float *, float *, int);

/* Apply a one-partial-per-block kernel until one value remains. */
static void multipass(reduce_kernel k, int per_block, const float *in, int n, float *a, float *b,
                      float **result)
{
    const float *src = in;
    float *dst = a;
    do {
        int blocks = (n + per_block - 1) / per_block;
        k<<<blocks, 256>>>(src, dst, n);
        n = blocks;
        src = dst;
        dst = dst == a ? b : a;
    } while (n > 1);
    *result = (float *)src;
}

static int seed_call(void *arg, char *err)
{
    seed_ctx *s = (seed_ctx *)arg;
    const int n = SEED_N;
    cudaError_t e = cudaSuccess;
    switch (s->id) {
    case S_BROADCAST:   k_broadcast<<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_XOR:         k_xor<<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_UPDOWN:      k_updown<<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_WARP_REDUCE: k_warp_reduce<<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_BLOCK_SUM:   k_block_reduce<false><<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_BLOCK_MAX:   k_block_reduce<true><<<n / 256, 256>>>(s->d_in, s->d_out, n); break;
    case S_SCAN_INCL:   k_block_scan<false><<<n / 1024, 1024>>>(s->d_in, s->d_out, n); break;
    case S_SCAN_EXCL:   k_block_scan<true><<<n / 1024, 1024>>>(s->d_in, s->d_out, n); break;
    case S_R_BASELINE:  multipass(r_baseline, 256, s->d_in, n, s->d_a, s->d_b, &s->result); break;
    case S_R_VOLATILE:  multipass(r_volatile, 512, s->d_in, n, s->d_a, s->d_b, &s->result); break;
    case S_R_SYNCWARP:  multipass(r_syncwarp, 512, s->d_in, n, s->d_a, s->d_b, &s->result); break;
    case S_R_SHUFFLE:   multipass(r_shuffle, 512, s->d_in, n, s->d_a, s->d_b, &s->result); break;
    case S_R_TWOSTAGE:
    case S_R_VECTOR: {
        reduce_kernel k = s->id == S_R_VECTOR ? r_vector : r_twostage;
        k<<<s->grid, 256>>>(s->d_in, s->d_a, n);
        k<<<1, 256>>>(s->d_a, s->d_b, s->grid);
        s->result = s->d_b;
        break;
    }
    case S_CUB:
        e = cub::DeviceReduce::Sum(s->cub_temp, s->cub_bytes, s->d_in, s->d_b, n);
        s->result = s->d_b;
        break;
    case S_OURS: {
        wr_status st = wr_reduce(s->ctx, s->d_in, s->d_b, (size_t)n, WR_FLOAT, WR_SUM);
        s->result = s->d_b;
        if (st != WR_SUCCESS) {
            snprintf(err, WR_BENCH_ERRLEN, "wr_reduce: %s", wr_context_error(s->ctx));
            return -1;
        }
        break;
    }
    case S_COPY:
        e = cudaMemcpyAsync(s->d_out, s->d_in, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
        break;
    }
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, WR_BENCH_ERRLEN, "%s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* ---- serial CPU loops: the "vs CPU" reference and the expected results -- */

struct cpu_ctx { int id; const float *in; float *out; double sum; };

static int cpu_call(void *arg, char *err)
{
    cpu_ctx *c = (cpu_ctx *)arg;
    const float *x = c->in;
    float *y = c->out;
    (void)err;
    switch (c->id) {
    case S_BROADCAST: for (int i = 0; i < SEED_N; i++) y[i] = x[i & ~31]; break;
    case S_XOR:       for (int i = 0; i < SEED_N; i++) y[i] = x[i ^ 16]; break;
    case S_UPDOWN:    for (int i = 0; i < SEED_N; i++) y[i] = x[i ^ 1]; break;
    case S_WARP_REDUCE: case S_BLOCK_SUM: {
        int m = c->id == S_WARP_REDUCE ? 32 : 256;
        for (int b = 0; b < SEED_N / m; b++) {
            double s = 0;
            for (int i = 0; i < m; i++) s += x[b * m + i];
            y[b] = (float)s;
        }
        break;
    }
    case S_BLOCK_MAX:
        for (int b = 0; b < SEED_N / 256; b++) {
            float v = -INFINITY;
            for (int i = 0; i < 256; i++) v = fmaxf(v, x[b * 256 + i]);
            y[b] = v;
        }
        break;
    case S_SCAN_INCL: case S_SCAN_EXCL:
        for (int b = 0; b < SEED_N / 1024; b++) {
            double s = 0;
            for (int i = 0; i < 1024; i++) {
                double v = x[b * 1024 + i];
                if (c->id == S_SCAN_INCL) s += v;
                y[b * 1024 + i] = (float)s;
                if (c->id == S_SCAN_EXCL) s += v;
            }
        }
        break;
    default: {                   /* the full sum, in double */
        double s = 0;
        for (int i = 0; i < SEED_N; i++) s += x[i];
        c->sum = s;
        break;
    }
    }
    return 0;
}

struct seed_def {
    int id;
    const char *name;
    const char *op;
    const char *param;
    double out_elems;          /* elements written */
};

static const seed_def defs[] = {
    { S_BROADCAST,   "warp broadcast",      "",    "block=256",  SEED_N },
    { S_XOR,         "xor shuffle",         "",    "block=256",  SEED_N },
    { S_UPDOWN,      "up/down shuffle",     "",    "block=256",  SEED_N },
    { S_WARP_REDUCE, "warp reduce",         "sum", "block=256",  SEED_N / 32 },
    { S_BLOCK_SUM,   "block reduce",        "sum", "block=256",  SEED_N / 256 },
    { S_BLOCK_MAX,   "block reduce",        "max", "block=256",  SEED_N / 256 },
    { S_SCAN_INCL,   "block scan incl",     "sum", "block=1024", SEED_N },
    { S_SCAN_EXCL,   "block scan excl",     "sum", "block=1024", SEED_N },
    { S_R_BASELINE,  "reduce: smem tree",   "sum", "baseline",   1 },
    { S_R_VOLATILE,  "reduce: volatile",    "sum", "warp unroll", 1 },
    { S_R_SYNCWARP,  "reduce: __syncwarp",  "sum", "last warp",  1 },
    { S_R_SHUFFLE,   "reduce: shuffle",     "sum", "last warp",  1 },
    { S_R_TWOSTAGE,  "reduce: two-stage",   "sum", "grid-stride", 1 },
    { S_R_VECTOR,    "reduce: float4",      "sum", "two-stage",  1 },
    { S_CUB,         "CUB DeviceReduce::Sum", "sum", "",         1 },
    { S_OURS,        "warpred wr_reduce",   "sum", "with sync",  1 },
};

/* Compare the GPU's output with the CPU loop's: exact for the data
 * movement kernels and max, sums within 64 u (sum of |x|) for outputs of
 * <= 1024 terms and DESIGN.md's bound for the full sums. */
static int seed_check(const seed_def *d, const float *got, const float *want, double sum, float full,
                      char *msg, size_t len)
{
    const double u = 0x1p-24;
    size_t m = (size_t)d->out_elems;
    if (d->out_elems == 1) {
        double tol = (25 + 1024) * u * sum;     /* ceil(log2 N) = 25; data >= 0 */
        if (fabs((double)full - sum) <= tol) return 0;
        snprintf(msg, len, "FAIL sum %.9g, expected %.9g", (double)full, sum);
        return 1;
    }
    for (size_t i = 0; i < m; i++) {
        int exact = d->op[0] == 0 || strcmp(d->op, "max") == 0;
        double tol = exact ? 0 : 64 * u * fabs((double)want[i]);
        if (!(fabs((double)got[i] - (double)want[i]) <= tol)) {
            snprintf(msg, len, "FAIL out[%zu] = %.9g, expected %.9g", i, (double)got[i], (double)want[i]);
            return 1;
        }
    }
    return 0;
}

extern "C" int bcu_seed_table(int warmup, int reps, wr_context *cuda_ctx)
{
    const size_t bytes = (size_t)SEED_N * sizeof(float);
    std::vector<float> h_in(SEED_N), h_got(SEED_N), h_want(SEED_N);
    seed_ctx s;
    cudaDeviceProp prop;
    char err[WR_BENCH_ERRLEN] = "";
    double ceil_gbps = 0;
    int failed = 0, cpu_reps = reps < 5 ? reps : 5;
    double cpu_sum_time = 0, sum = 0;
    cudaError_t e;

    memset(&s, 0, sizeof s);
    bench_fill(h_in.data(), WR_FLOAT, SEED_N, DATA_GENERAL, 0x5eed);
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess
        || (e = cudaMalloc((void **)&s.d_in, bytes)) != cudaSuccess
        || (e = cudaMalloc((void **)&s.d_out, bytes)) != cudaSuccess
        || (e = cudaMalloc((void **)&s.d_a, bytes / 64)) != cudaSuccess
        || (e = cudaMalloc((void **)&s.d_b, bytes / 64)) != cudaSuccess
        || (e = cudaMemcpy((void *)s.d_in, h_in.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess
        || (e = cub::DeviceReduce::Sum(NULL, s.cub_bytes, s.d_in, s.d_b, SEED_N)) != cudaSuccess
        || (e = cudaMalloc(&s.cub_temp, s.cub_bytes)) != cudaSuccess) {
        bench_note("seed table: %s", cudaGetErrorString(e));
        failed = -1;
        goto out;
    }
    /* Fill the GPU once: 8 blocks of 256 threads per multiprocessor. */
    s.grid = prop.multiProcessorCount * 8;
    s.ctx = cuda_ctx;

    {   /* the copy ceiling of this table */
        struct bench_row row;
        bench_row_init(&row, "seed");
        strcpy(row.backend, "cuda");
        strcpy(row.name, "copy (cudaMemcpy)");
        row.type = "f32";
        row.n = SEED_N;
        row.bytes = 2.0 * (double)bytes;
        s.id = S_COPY;
        if (bcu_time(seed_call, &s, warmup, reps, &row.t, err) == 0) {
            ceil_gbps = row.bytes / row.t.med * 1e-9;
            row.ceil_gbps = ceil_gbps;
        } else {
            bench_check_set(&row, "ERROR %s", err);
            row.failed = 1;
            failed++;
        }
        bench_emit(&row);
    }

    for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
        const seed_def *d = &defs[k];
        struct bench_row row;
        cpu_ctx c = { d->id, h_in.data(), h_want.data(), 0 };
        struct bench_timing t;
        float full = 0;

        bench_row_init(&row, "seed");
        strcpy(row.backend, "cuda");
        snprintf(row.name, sizeof row.name, "%s", d->name);
        row.type = "f32";
        row.op = d->op;
        row.n = SEED_N;
        snprintf(row.param, sizeof row.param, "%s", d->param);
        row.bytes = (double)bytes + d->out_elems * sizeof(float);
        row.ceil_gbps = ceil_gbps;

        if (d->id == S_OURS && cuda_ctx == NULL) {
            bench_check_set(&row, "skipped: no cuda backend");
            bench_emit(&row);
            continue;
        }
        /* The serial CPU loop (once for all the full sums). */
        if (d->out_elems > 1 || cpu_sum_time == 0) {
            bench_time_host(cpu_call, &c, 0, cpu_reps, &t, err);
            if (d->out_elems == 1) { cpu_sum_time = t.med; sum = c.sum; }
        } else {
            t.med = cpu_sum_time;
        }
        strcpy(row.ref_name, "serial CPU");
        row.ref_time = d->out_elems == 1 ? cpu_sum_time : t.med;

        s.id = d->id;
        if (bcu_time(seed_call, &s, warmup, reps, &row.t, err)) {
            memset(&row.t, 0, sizeof row.t);
            bench_check_set(&row, "ERROR %s", err);
            row.failed = 1;
        } else {
            char msg[160];
            /* Check a fresh run on a poisoned output. */
            cudaMemset(s.d_out, 0xff, bytes);
            cudaMemset(s.d_a, 0xff, bytes / 64);
            cudaMemset(s.d_b, 0xff, bytes / 64);
            if (seed_call(&s, err) || cudaDeviceSynchronize() != cudaSuccess) {
                bench_check_set(&row, "ERROR %s", err);
                row.failed = 1;
            } else {
                if (d->out_elems == 1)
                    e = cudaMemcpy(&full, s.result, sizeof full, cudaMemcpyDeviceToHost);
                else
                    e = cudaMemcpy(h_got.data(), s.d_out, (size_t)d->out_elems * sizeof(float),
                                   cudaMemcpyDeviceToHost);
                if (e != cudaSuccess) {
                    bench_check_set(&row, "ERROR %s", cudaGetErrorString(e));
                    row.failed = 1;
                } else if (seed_check(d, h_got.data(), h_want.data(), sum, full, msg, sizeof msg)) {
                    bench_check_set(&row, "%s", msg);
                    row.failed = 1;
                } else {
                    bench_check_set(&row, "ok");
                }
            }
        }
        failed += row.failed;
        bench_emit(&row);
    }
out:
    cudaFree((void *)s.d_in);
    cudaFree(s.d_out);
    cudaFree(s.d_a);
    cudaFree(s.d_b);
    cudaFree(s.cub_temp);
    return failed;
}

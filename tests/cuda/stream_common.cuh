/*
 * stream_common.cuh -- what the stream tests (test_cuda_streams.cu,
 * test_cuda_graphs.cu) share: the caller's kernels (a pause, a fill from a
 * seed, a copy), the data they write, and device buffers with their host
 * copies.
 *
 * The data are integers in [-1000, 1000] (as int32, int64 or double), so
 * every sum and scan is exact and the cpu backend's result is the one to
 * expect, bit for bit.  A fill reads its seed from device memory when given
 * a pointer, so that a graph replayed after the host changed that word
 * computes on new data.
 */
#ifndef WR_STREAM_COMMON_CUH
#define WR_STREAM_COMMON_CUH

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

#define CK(call) GPU_CK(call)

__host__ __device__ inline uint64_t sc_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* element i of the data of seed s */
__host__ __device__ inline int sc_val(uint64_t s, size_t i)
{
    return (int)(sc_mix(s * 0x100000001b3ull + i) % 2001) - 1000;
}

/* Spin for ns nanoseconds (one thread): the caller's earlier, slow work. */
__global__ void k_pause(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

/* p[i] = sc_val(seed, i) for i < n; the seed from *seedp when not NULL. */
template <typename T>
__global__ void k_fill(T *p, size_t n, const uint64_t *seedp, uint64_t seed)
{
    const uint64_t s = seedp ? *seedp : seed;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (T)sc_val(s, i);
}

/* The caller's consumer: words of src copied to dst (bytes a multiple of 4). */
__global__ void k_copy(unsigned *dst, const unsigned *src, size_t words)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

/* The host's copy of the data of seed s. */
template <typename T> static void host_fill(T *p, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) p[i] = (T)sc_val(s, i);
}

static void fill_on(cudaStream_t st, wr_type t, void *p, size_t n, const uint64_t *seedp, uint64_t seed)
{
    if (n == 0) return;
    const unsigned blocks = (unsigned)((n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024);
    switch (t) {
    case WR_INT32:  k_fill<int32_t><<<blocks, 256, 0, st>>>((int32_t *)p, n, seedp, seed); break;
    case WR_INT64:  k_fill<int64_t><<<blocks, 256, 0, st>>>((int64_t *)p, n, seedp, seed); break;
    case WR_DOUBLE: k_fill<double><<<blocks, 256, 0, st>>>((double *)p, n, seedp, seed); break;
    default: bail("fill_on: type %d", (int)t);
    }
    CK(cudaGetLastError());
}

static void host_fill_t(wr_type t, void *p, size_t n, uint64_t seed)
{
    switch (t) {
    case WR_INT32:  host_fill((int32_t *)p, n, seed); break;
    case WR_INT64:  host_fill((int64_t *)p, n, seed); break;
    case WR_DOUBLE: host_fill((double *)p, n, seed); break;
    default: bail("host_fill_t: type %d", (int)t);
    }
}

static void copy_on(cudaStream_t st, void *dst, const void *src, size_t bytes)
{
    if (bytes % 4) bail("copy_on: %zu bytes", bytes);
    if (bytes == 0) return;
    k_copy<<<64, 256, 0, st>>>((unsigned *)dst, (const unsigned *)src, bytes / 4);
    CK(cudaGetLastError());
}

/* Wait for what this thread queued on the legacy default stream (cudaMemset,
 * cudaMemcpy).  S1 and S2 are non-blocking streams, which never wait for
 * it, and a cudaMemset of device memory or a cudaMemcpy from pageable host
 * memory to the device may return before its work is done (the runtime's
 * "API synchronization behavior"): without this, a call queued on S1 can
 * run before the data it reads are there, or have its output overwritten
 * by the poison written before it.  Compute-sanitizer's initcheck, which
 * slows memsets down, showed that race as results that "differ". */
static inline void legacy_done(void)
{
    CK(cudaStreamSynchronize(cudaStreamLegacy));
}

/* The first of n floats where got differs from want, as a diagnostic (the
 * poison 0x5a5a5a5a named: an output never written, or written over). */
static inline void diag_first_diff(const char *what, const float *want, const float *got, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t a, b;
        memcpy(&a, want + i, 4);
        memcpy(&b, got + i, 4);
        if (a == b) continue;
        diag("%s: first difference at [%zu] of %zu: %.9g (0x%08x) vs %.9g (0x%08x)%s", what, i, n, (double)want[i],
             a, (double)got[i], b, b == 0x5a5a5a5au ? ", the poison" : "");
        return;
    }
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes ? bytes : 16));
    return p;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 16);
    if (p == NULL) bail("out of host memory (%zu bytes)", bytes);
    return p;
}

#endif /* WR_STREAM_COMMON_CUH */

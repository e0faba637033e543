/*
 * tool_common.cuh -- what the timing tools (scan_phases.cu, reduce_time.cu,
 * rows_time.cu) share: stand-ins for the plugin's helpers that the kernel
 * files' launchers call (as in cuda/plugin.cu), CK() for the tools'
 * own CUDA calls, and a median of event-timed runs.  Include it after the
 * kernel file (cuda/*.cu), once per tool.
 */
#ifndef WR_TOOL_COMMON_CUH
#define WR_TOOL_COMMON_CUH

#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

namespace wrcuda {
wr_status fail(char *err, const char *call, cudaError_t e)
{
    snprintf(err, WR_ERRLEN, "%s: %s", call, cudaGetErrorString(e));
    return WR_ERR_DEVICE;
}
wr_status grow(strand &L, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    (void)what;
    if (*p != nullptr && need <= *cap) return WR_SUCCESS;
    if (*p) cudaFree(*p);
    WRCUDA_CK(cudaMalloc, (p, need));
    *cap = need;
    if (zero) WRCUDA_CK(cudaMemsetAsync, (*p, 0, need, L.st));
    return WR_SUCCESS;
}
int blocks_per_sm(const void *kernel)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, 0) != cudaSuccess) n = 4;
    return n > 0 ? n : 1;
}
} /* namespace wrcuda */

/* a CUDA call of the tool itself: on failure, say which and exit */
#define CK(x)                                                                             \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

/* A strand as the plugin gives the launchers one: the device's multiprocessor
 * count, a stream, the counters (zeroed) and room for the per-block
 * partials. */
static void tool_strand(wrcuda::strand &L)
{
    CK(cudaDeviceGetAttribute(&L.sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaStreamCreate(&L.st));
    CK(cudaMalloc((void **)&L.ctr, 64));
    CK(cudaMemset(L.ctr, 0, 64));
    L.part_cap = (size_t)wrcuda::kMaxGrid * 16;
    CK(cudaMalloc(&L.part, L.part_cap));
}

/* The median, in us, of reps runs of f() on stream st after one warm-up,
 * each timed by CUDA events around it (kernel time: no synchronisation
 * inside). */
template <class F> static double timed_median(cudaStream_t st, int reps, F f)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> t;
    f();
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(a, st));
        f();
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e3);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

#endif /* WR_TOOL_COMMON_CUH */

/*
 * tool_common.cuh -- what the experiment tools (scan_phases.cu,
 * reduce_time.cu, rows_time.cu, call_cost.cu) share: CK() for the tools' own
 * CUDA calls, a strand as the launchers need it, and a median of
 * event-timed runs.  The launchers and their helpers (fail, grow,
 * blocks_per_sm) are the plugin's own, linked from its objects.
 */
#ifndef WR_TOOL_COMMON_CUH
#define WR_TOOL_COMMON_CUH

#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include "backend.cuh"

/* a CUDA call of the tool itself: on failure, say which and exit */
#define CK(x)                                                                             \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } \
    } while (0)

/* A strand as the plugin gives the launchers one: the device's
 * multiprocessor count, a stream, the counters (zeroed) and room for the
 * per-block partials; the rest (scan descriptors, segment counters) is
 * grown by the launchers that need it. */
static inline void tool_strand(wrcuda::strand &S)
{
    CK(cudaGetDevice(&S.dev));
    CK(cudaDeviceGetAttribute(&S.sms, cudaDevAttrMultiProcessorCount, S.dev));
    CK(cudaStreamCreate(&S.st));
    CK(cudaMalloc((void **)&S.ctr, 64));
    CK(cudaMemset(S.ctr, 0, 64));
    S.part_cap = (size_t)wrcuda::kMaxGrid * 16;
    CK(cudaMalloc(&S.part, S.part_cap));
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

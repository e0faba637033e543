/*
 * call_cost.cu -- where the fixed cost of a synchronous reduce call goes.
 *
 * The benchmark times a call of ours as CUDA events on the legacy stream
 * around a call that returns complete, so each call pays its host work
 * before the launch, the launch, and the wake-up after the kernel.  This
 * tool measures those pieces on their own, and the one alternative to the
 * stream synchronisation that a library can use: the kernel's last block
 * stores into mapped pinned host memory and the host spins on that word
 * (cudaStreamQuery between spins catches a kernel that fails).
 *
 * The kernel is the plugin's, linked from its objects, and the library is
 * linked too (bench/tools/local.am); make check builds the tool.  Run it
 * from the build tree:
 *   bench/tools/call_cost    (CALL_COST_REPS rounds, default 400)
 * The call through wr_reduce() is timed too when the library finds its
 * CUDA plugin (WARPRED_PLUGIN_DIR=cuda/.libs in the build tree); else those
 * rows are left out.
 *
 * Prints host-clock medians (ns) of the driver queries a call makes and of
 * launches on blocking, non-blocking and legacy streams and through the
 * driver API, and of wr_reduce() itself: a complete call, and one queued on
 * a stream (wr_context_set_stream; the host's part alone).  Then, for f32 sums of all ones at 2^10, 2^25 and 2^28, the
 * event-timed medians (us) of: the kernel alone; + cudaStreamSynchronize;
 * + the done word (cuda/backend.cuh, done_sig) and a spin on it, result to device
 * memory and to mapped host memory (as the plugin does for a host result);
 * both waits preceded by the queries lib/ and the plugin make (two
 * cudaPointerGetAttributes and a cudaSetDevice); CUB's Sum +
 * cudaStreamSynchronize; kernel + cuStreamWriteValue32 of a mapped word +
 * spin (the same wait without changing the kernel); CUB's Sum with a 32-bit
 * item count (another kernel); wr_reduce(); + the done word with
 * the kernel on the legacy stream (where the events are: no dependency
 * between two streams), on a non-blocking stream, and on a non-blocking
 * stream made to wait for the legacy stream's work by an event.  The variants run
 * interleaved, one of each per round, and every result is checked.
 */
#include "tool_common.cuh"

#include <cuda.h>
#include <math.h>
#include <chrono>
#include <string.h>
#include <cub/device/device_reduce.cuh>
#include "warpred.h"

namespace {

__global__ void k_empty(int *p) { if (p) *p = 0; }

__global__ void k_ones(float *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 1.0f;
}

double now_ns()
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <class F> double host_ns(int reps, F f)
{
    std::vector<double> t;
    f();
    for (int r = 0; r < reps; r++) {
        const double a = now_ns();
        f();
        t.push_back(now_ns() - a);
    }
    return median(t);
}

/* Spin until the mapped word says seq (as the plugin's spin_done); a
 * failed kernel ends the wait through cudaStreamQuery. */
void spin(const uint32_t *w, uint32_t seq, cudaStream_t st)
{
    for (unsigned i = 1; __atomic_load_n(w, __ATOMIC_ACQUIRE) != seq; i++) {
        if (i % 256 == 0) {
            cudaError_t e = cudaStreamQuery(st);
            if (e == cudaSuccess) return;
            if (e != cudaErrorNotReady) { fprintf(stderr, "spin: %s\n", cudaGetErrorString(e)); exit(1); }
        }
    }
}

} // namespace

int main()
{
    const int reps = getenv("CALL_COST_REPS") ? atoi(getenv("CALL_COST_REPS")) : 400;
    char err[WR_ERRLEN];
    CK(cudaSetDevice(0));
    wrcuda::strand S{};
    tool_strand(S);         /* a blocking stream, as the plugin's strands */
    const size_t nmax = (size_t)1 << 28;
    float *in, *dres, *dcub;
    CK(cudaMalloc((void **)&in, nmax * sizeof(float)));
    CK(cudaMalloc((void **)&dres, 64));
    CK(cudaMalloc((void **)&dcub, 64));
    k_ones<<<4096, 256>>>(in, nmax);
    CK(cudaDeviceSynchronize());
    uint32_t *hres, *hres_dev;
    CK(cudaHostAlloc((void **)&hres, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&hres_dev, hres, 0));
    void *pageable = malloc(64);

    /* ---- the driver queries, host clock ---- */
    cudaPointerAttributes a;
    CUmemorytype mt;
    printf("host-clock medians of %d calls, ns\n", reps);
    printf("  cudaPointerGetAttributes(device)    %8.0f\n", host_ns(reps, [&] { CK(cudaPointerGetAttributes(&a, in)); }));
    printf("  cudaPointerGetAttributes(pageable)  %8.0f\n", host_ns(reps, [&] { (void)cudaPointerGetAttributes(&a, pageable); (void)cudaGetLastError(); }));
    printf("  cuPointerGetAttribute(TYPE, device) %8.0f\n", host_ns(reps, [&] { (void)cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)in); }));
    printf("  cudaSetDevice(0)                    %8.0f\n", host_ns(reps, [&] { CK(cudaSetDevice(0)); }));
    printf("  cudaStreamQuery(idle)               %8.0f\n", host_ns(reps, [&] { CK(cudaStreamQuery(S.st)); }));
    printf("  launch reduce 2^10 (host side)      %8.0f\n", host_ns(reps, [&] {
        if (wrcuda::launch_reduce(S, in, 1024, WR_FLOAT, WR_SUM, dres, nullptr, wrcuda::kNoDone, err) != WR_SUCCESS) exit(1);
    }));
    CK(cudaStreamSynchronize(S.st));
    cudaStream_t nb;
    CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    CUfunction f_empty;
    CK(cudaGetFuncBySymbol(&f_empty, (const void *)k_empty));
    printf("  launch empty, blocking stream       %8.0f\n", host_ns(reps, [&] { k_empty<<<1, 32, 0, S.st>>>(nullptr); }));
    printf("  launch empty, non-blocking stream   %8.0f\n", host_ns(reps, [&] { k_empty<<<1, 32, 0, nb>>>(nullptr); }));
    printf("  launch empty, legacy stream         %8.0f\n", host_ns(reps, [&] { k_empty<<<1, 32>>>(nullptr); }));
    printf("  cuLaunchKernel empty, blocking      %8.0f\n", host_ns(reps, [&] {
        int *np = nullptr;
        void *args[] = { &np };
        (void)cuLaunchKernel(f_empty, 1, 1, 1, 32, 1, 1, 0, (CUstream)S.st, args, nullptr);
    }));
    CK(cudaDeviceSynchronize());
    uint32_t *hflag, *hflag_dev;
    CK(cudaHostAlloc((void **)&hflag, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&hflag_dev, hflag, 0));
    uint32_t seq = 0;
    printf("  cuStreamWriteValue32 (host side)    %8.0f\n", host_ns(reps, [&] {
        if (cuStreamWriteValue32((CUstream)S.st, (CUdeviceptr)hflag_dev, ++seq ? seq : ++seq, 0) != CUDA_SUCCESS) exit(1);
    }));
    CK(cudaDeviceSynchronize());

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const size_t sizes[] = { (size_t)1 << 10, (size_t)1 << 25, (size_t)1 << 28 };
    const char *names[] = { "kernel", "+sync", "+done", "to-mapped+done", "queries+sync", "queries+done",
                            "cub+sync", "+writevalue+spin", "+done, legacy stream", "+done, non-blocking",
                            "cub 32-bit n+sync", "wr_reduce", "+done, nb after legacy" };
    const int nv = 13;
    cudaEvent_t eleg;            /* variant 12: the non-blocking stream waits for the legacy stream's work */
    CK(cudaEventCreateWithFlags(&eleg, cudaEventDisableTiming));
    wr_context *ctx = nullptr, *cpu = nullptr;
    if (wr_context_create(&ctx, WR_BACKEND_CUDA) != WR_SUCCESS || wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) {
        printf("(wr_reduce() left out: %s)\n", wr_context_error(NULL));
        if (ctx) wr_context_destroy(ctx);
        ctx = nullptr;
    }
    const bool lib = ctx != nullptr;
    if (lib) {
        /* the same 1024-element call, host clock: through the library, and
         * emulated (the plugin's driver queries, the launch, the done word) */
        float hone = 1.0f, hsum;
        printf("host-clock medians of %d calls, ns\n", reps);
        printf("  wr_reduce 2^10, cuda context         %8.0f\n", host_ns(reps, [&] {
            if (wr_reduce(ctx, in, dres, 1024, WR_FLOAT, WR_SUM) != WR_SUCCESS) exit(1);
        }));
        printf("  emulated: queries, launch, done word  %8.0f\n", host_ns(reps, [&] {
            CK(cudaSetDevice(0));
            CK(cudaPointerGetAttributes(&a, in));
            CK(cudaPointerGetAttributes(&a, dres));
            const wrcuda::done_sig ds{ hflag_dev, ++seq ? seq : ++seq };
            if (wrcuda::launch_reduce(S, in, 1024, WR_FLOAT, WR_SUM, dres, nullptr, ds, err) != WR_SUCCESS) exit(1);
            spin(hflag, ds.seq, S.st);
        }));
        printf("  wr_reduce 1 element, cpu context      %8.0f\n", host_ns(reps, [&] {
            if (wr_reduce(cpu, &hone, &hsum, 1, WR_FLOAT, WR_SUM) != WR_SUCCESS) exit(1);
        }));
        /* the host's part of a call queued on a stream: lib/'s checks and
         * queries, the launch, no wait */
        wr_context *qctx = nullptr;
        cudaStream_t qs;
        CK(cudaStreamCreateWithFlags(&qs, cudaStreamNonBlocking));
        if (wr_context_create(&qctx, WR_BACKEND_CUDA) == WR_SUCCESS && wr_context_set_stream(qctx, qs) == WR_SUCCESS) {
            printf("  wr_reduce 2^10, queued on a stream    %8.0f\n", host_ns(reps, [&] {
                if (wr_reduce(qctx, in, dres, 1024, WR_FLOAT, WR_SUM) != WR_SUCCESS) exit(1);
            }));
            if (wr_context_synchronize(qctx) != WR_SUCCESS) exit(1);
        }
        wr_context_destroy(qctx);
        CK(cudaStreamDestroy(qs));
    }
    wrcuda::strand S0 = S, Snb = S;  /* the same scratch, other streams (calls never overlap) */
    S0.st = 0;
    Snb.st = nb;
    for (size_t n : sizes) {
        void *tmp = nullptr;
        size_t tmp_bytes = 0;
        CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, (const float *)in, dcub, (int64_t)n, (cudaStream_t)0));
        size_t tmp32_bytes = 0;
        CK(cub::DeviceReduce::Sum(nullptr, tmp32_bytes, (const float *)in, dcub, (int)n, (cudaStream_t)0));
        if (tmp32_bytes > tmp_bytes) tmp_bytes = tmp32_bytes;
        CK(cudaMalloc(&tmp, tmp_bytes));
        std::vector<double> t[nv];
        for (int r = -1; r < reps; r++) {
            for (int v = 0; v < nv; v++) {
                if (v == 11 && !lib) continue;
                const bool done = v == 2 || v == 3 || v == 5 || v == 8 || v == 9 || v == 12, to_host = v == 3;
                wrcuda::strand &Sv = v == 8 ? S0 : v == 9 || v == 12 ? Snb : S;
                const wrcuda::done_sig ds = done ? wrcuda::done_sig{ hflag_dev, ++seq ? seq : ++seq } : wrcuda::kNoDone;
                *(volatile uint32_t *)hres = 0;
                CK(cudaEventRecord(e0, 0));
                if (v == 4 || v == 5) {
                    CK(cudaSetDevice(0));
                    CK(cudaPointerGetAttributes(&a, in));
                    CK(cudaPointerGetAttributes(&a, dres));
                }
                if (v == 6 || v == 10) {
                    if (v == 6) CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, (const float *)in, dcub, (int64_t)n, (cudaStream_t)0));
                    else CK(cub::DeviceReduce::Sum(tmp, tmp32_bytes, (const float *)in, dcub, (int)n, (cudaStream_t)0));
                    CK(cudaStreamSynchronize(0));
                } else if (v == 11) {
                    if (wr_reduce(ctx, in, dres, n, WR_FLOAT, WR_SUM) != WR_SUCCESS) {
                        fprintf(stderr, "wr_reduce: %s\n", wr_context_error(ctx));
                        return 1;
                    }
                } else {
                    if (v == 12) {
                        CK(cudaEventRecord(eleg, cudaStreamLegacy));
                        CK(cudaStreamWaitEvent(Snb.st, eleg, 0));
                    }
                    if (wrcuda::launch_reduce(Sv, in, n, WR_FLOAT, WR_SUM, to_host ? (void *)hres_dev : (void *)dres,
                                           nullptr, ds, err) != WR_SUCCESS) {
                        fprintf(stderr, "%s\n", err);
                        return 1;
                    }
                    if (done) spin(hflag, ds.seq, Sv.st);
                    else if (v == 7) {
                        if (cuStreamWriteValue32((CUstream)S.st, (CUdeviceptr)hflag_dev, ++seq, 0) != CUDA_SUCCESS) exit(1);
                        spin(hflag, seq, S.st);
                    } else if (v != 0) CK(cudaStreamSynchronize(S.st));
                }
                CK(cudaEventRecord(e1, 0));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r >= 0) t[v].push_back(ms * 1e3);
                float got;
                if (to_host) memcpy(&got, hres, 4);
                else CK(cudaMemcpy(&got, v == 6 || v == 10 ? dcub : dres, 4, cudaMemcpyDeviceToHost));
                if (got != (float)n) {
                    fprintf(stderr, "n=%zu %s: sum %.9g, want %zu\n", n, names[v], got, n);
                    return 1;
                }
            }
        }
        printf("f32 sum n=2^%d, event-timed medians of %d rounds, us:\n", (int)log2((double)n), reps);
        for (int v = 0; v < nv; v++)
            if (!t[v].empty()) printf("  %-20s %9.2f\n", names[v], median(t[v]));
        CK(cudaFree(tmp));
    }
    return 0;
}

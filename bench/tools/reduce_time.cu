/*
 * reduce_time.cu -- the CUDA backend's device-wide reduce kernel against
 * cub::DeviceReduce::Sum and a device-to-device copy, on the same buffers,
 * kernel time only (CUDA events around the launches, no synchronisation in
 * between), for A/B experiments on the kernels (build the variant's tree,
 * compare with the plugin's).  The kernels are the plugin's, linked from
 * its objects (bench/tools/local.am); make check builds the tool.  Run it
 * from the build tree:
 *   bench/tools/reduce_time [N]   (N elements, default 2^28; REDUCE_TIME_REPS runs, default 20)
 *
 * For f32 / i32 / f64 sums it prints the medians in us, the read GB/s and the
 * time ratios CUB / ours (CUB called with a 64-bit and, for n < 2^31, a 32-bit
 * item count: the two are different kernels) and copy / ours (a copy moves each byte twice: a
 * reduce at the copy's bandwidth has a ratio of 2).  The
 * input is all ones; the int32 sum must be N mod 2^32, the float sums must
 * agree with CUB's to 1e-6 relative, or the run fails.  Then f32 and i32
 * argmax (launch_argext against cub::DeviceReduce::ArgMax) on a pattern with
 * repeated maxima: both must name the same (first) index and value.
 */
#include "tool_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <type_traits>
#include <cub/device/device_reduce.cuh>

template <typename T> __global__ void k_fill_ones(T *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = T(1);
}

template <typename T>
static bool run(const char *name, wr_type wt, wrcuda::strand &S, void *in, void *out, size_t n, int reps)
{
    char err[WR_ERRLEN];
    T *dres, *dcub, got, want;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc((void **)&dres, sizeof(T)));
    CK(cudaMalloc((void **)&dcub, sizeof(T)));
    k_fill_ones<T><<<4096, 256, 0, S.st>>>((T *)in, n);
    CK(cudaGetLastError());
    CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, (const T *)in, dcub, (int64_t)n, S.st));
    size_t tmp32_bytes = 0;        /* CUB with 32-bit offsets, as a caller with n < 2^31 (the benchmark) calls it */
    CK(cub::DeviceReduce::Sum(nullptr, tmp32_bytes, (const T *)in, dcub, (int)n, S.st));
    if (tmp32_bytes > tmp_bytes) tmp_bytes = tmp32_bytes;
    CK(cudaMalloc(&tmp, tmp_bytes));
    bool ok = true;
    const double ours = timed_median(S.st, reps, [&] {
        if (wrcuda::launch_reduce(S, in, n, wt, WR_SUM, dres, nullptr, wrcuda::kNoDone, err) != WR_SUCCESS) {
            fprintf(stderr, "%s: %s\n", name, err);
            exit(1);
        }
    });
    const double cub = timed_median(S.st, reps, [&] {
        CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, (const T *)in, dcub, (int64_t)n, S.st));
    });
    double cub32 = 0;
    if (n <= 0x7fffffff) {
        cub32 = timed_median(S.st, reps, [&] {
            CK(cub::DeviceReduce::Sum(tmp, tmp32_bytes, (const T *)in, dcub, (int)n, S.st));
        });
        T w32;
        CK(cudaMemcpy(&w32, dcub, sizeof(T), cudaMemcpyDeviceToHost));
        if (std::is_integral<T>::value ? w32 != (T)n : fabs((double)w32 - (double)n) > 1e-6 * n) ok = false;
    }
    const double copy = timed_median(S.st, reps, [&] {
        CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, S.st));
    });
    CK(cudaMemcpy(&got, dres, sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&want, dcub, sizeof(T), cudaMemcpyDeviceToHost));
    if (std::is_integral<T>::value) ok = ok && got == (T)n && want == (T)n;
    else ok = ok && fabs((double)got - (double)want) <= 1e-6 * fabs((double)want) && fabs((double)want - (double)n) <= 1e-6 * n;
    const double gb = (double)n * sizeof(T) * 1e-3;   /* bytes read / 1e9 per us -> GB/s */
    printf("%s sum n=%zu: ours %.1f us (%.0f GB/s), CUB %.1f us (%.0f GB/s), CUB 32-bit n %.1f us, copy %.1f us; "
           "CUB time / ours %.3f, CUB 32-bit / ours %.3f, copy time / ours %.3f%s\n", name, n, ours, gb / ours, cub,
           gb / cub, cub32, copy, cub / ours, cub32 / ours, copy / ours, ok ? "" : "  WRONG RESULT");
    CK(cudaFree(tmp));
    CK(cudaFree(dres));
    CK(cudaFree(dcub));
    return ok;
}

/* a pattern with repeated maxima (2^20 distinct values), for argmax */
template <typename T> __global__ void k_fill_pattern(T *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = T((unsigned)((i * 2654435761ull) >> 7) & 0xfffffu);
}

/* argmax: launch_argext against cub::DeviceReduce::ArgMax; the two must
 * name the same index (the first maximum) */
template <typename T>
static bool run_argmax(const char *name, wr_type wt, wrcuda::strand &S, void *in, size_t n, int reps)
{
    char err[WR_ERRLEN];
    unsigned char *dres, host[16];
    T *dmax, cmax;
    ::cuda::std::int64_t *didx, cidx;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc((void **)&dres, 16));
    CK(cudaMalloc((void **)&dmax, sizeof(T)));
    CK(cudaMalloc((void **)&didx, sizeof *didx));
    k_fill_pattern<T><<<4096, 256, 0, S.st>>>((T *)in, n);
    CK(cudaGetLastError());
    CK(cub::DeviceReduce::ArgMax(tmp, tmp_bytes, (const T *)in, dmax, didx, (::cuda::std::int64_t)n, S.st));
    CK(cudaMalloc(&tmp, tmp_bytes));
    const double ours = timed_median(S.st, reps, [&] {
        if (wrcuda::launch_argext(S, in, n, wt, 1, 0, dres, nullptr, nullptr, nullptr, wrcuda::kNoDone, err) != WR_SUCCESS) {
            fprintf(stderr, "%s argmax: %s\n", name, err);
            exit(1);
        }
    });
    const double cub = timed_median(S.st, reps, [&] {
        CK(cub::DeviceReduce::ArgMax(tmp, tmp_bytes, (const T *)in, dmax, didx, (::cuda::std::int64_t)n, S.st));
    });
    CK(cudaMemcpy(host, dres, 16, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&cmax, dmax, sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&cidx, didx, sizeof cidx, cudaMemcpyDeviceToHost));
    size_t idx;
    T val;
    memcpy(&idx, host, 8);
    memcpy(&val, host + 8, sizeof(T));
    const bool ok = idx == (size_t)cidx && val == cmax;
    const double gb = (double)n * sizeof(T) * 1e-3;
    printf("%s argmax n=%zu: ours %.1f us (%.0f GB/s), CUB %.1f us (%.0f GB/s); CUB time / ours %.3f%s\n", name, n,
           ours, gb / ours, cub, gb / cub, cub / ours, ok ? "" : "  DIFFERENT ANSWER");
    CK(cudaFree(tmp));
    CK(cudaFree(dres));
    CK(cudaFree(dmax));
    CK(cudaFree(didx));
    return ok;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (size_t)1 << 28;
    const char *r = getenv("REDUCE_TIME_REPS");
    const int reps = r && *r ? std::max(1, atoi(r)) : 20;
    wrcuda::strand S{};
    tool_strand(S);
    void *in, *out;
    CK(cudaMalloc(&in, n * 8));
    CK(cudaMalloc(&out, n * 8));
    printf("reduce_time: %d runs (median)\n", reps);
    bool ok = run<float>("f32", WR_FLOAT, S, in, out, n, reps);
    ok = run<int32_t>("i32", WR_INT32, S, in, out, n, reps) && ok;
    ok = run<double>("f64", WR_DOUBLE, S, in, out, n, reps) && ok;
    ok = run_argmax<float>("f32", WR_FLOAT, S, in, n, reps) && ok;
    ok = run_argmax<int32_t>("i32", WR_INT32, S, in, n, reps) && ok;
    return ok ? 0 : 1;
}

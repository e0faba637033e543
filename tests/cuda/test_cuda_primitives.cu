/*
 * test_cuda_primitives.cu -- every primitive of warpred_device.cuh through
 * small test kernels, against sequential host references built from the
 * same wr_ops.h arithmetic: all 6 types x valid ops, sub-warp widths 1..32,
 * block sizes 32..1024 (including 96 and 992: not powers of two).
 *
 * Inputs are chosen so that every order of combination gives the same bits
 * (wrapping integers; small integer-valued floats for SUM; powers of two for
 * float PROD; any values for MIN/MAX), so device and host must agree exactly;
 * extra patterns check NaN, -0.0/+0.0 and sums of negative zeros.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include "warpred_device.cuh"
#include "gpu_common.h"
#include "tap.h"

#define CK(call) GPU_CK(call)

static const int widths[] = { 1, 2, 4, 8, 16, 32 };
static const int block_sizes[] = { 32, 64, 96, 256, 992, 1024 };
enum { NW = 6, NB = 6, WN = 2048 /* elements per warp test */ };

/* ---- kernels --------------------------------------------------------------- */

template <wr_op O, typename T, int W>
__device__ void warp_case(const T *in, T *out, int n, int w)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = in[i], tot;
    T *o = out + (size_t)w * 4 * n;
    o[i] = warpred::warp_reduce<O, W>(v);
    o[n + i] = warpred::warp_inclusive_scan<O, W>(v);
    o[2 * n + i] = warpred::warp_exclusive_scan<O, W>(v, tot);
    o[3 * n + i] = tot;
}

/* out: for each width w, 4 arrays of n: reduce, inclusive, exclusive, total */
template <wr_op O, typename T>
__global__ void k_warp(const T *in, T *out, int n)
{
    warp_case<O, T, 1>(in, out, n, 0);
    warp_case<O, T, 2>(in, out, n, 1);
    warp_case<O, T, 4>(in, out, n, 2);
    warp_case<O, T, 8>(in, out, n, 3);
    warp_case<O, T, 16>(in, out, n, 4);
    warp_case<O, T, 32>(in, out, n, 5);
}

/* out: 5 arrays of n: reduce, inclusive, exclusive, inclusive total, exclusive total */
template <wr_op O, typename T>
__global__ void k_block(const T *in, T *out, int n)
{
    __shared__ warpred::block_storage<T> s;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = in[i], t1, t2;
    T r = warpred::block_reduce<O>(v, s);
    __syncthreads();
    T a = warpred::block_inclusive_scan<O>(v, s, &t1);
    __syncthreads();
    T b = warpred::block_exclusive_scan<O>(v, s, &t2);
    out[i] = r;
    out[n + i] = a;
    out[2 * n + i] = b;
    out[3 * n + i] = t1;
    out[4 * n + i] = t2;
}

/* The exchanges, whole warp and groups of 8: broadcast from lane 3, xor 5,
 * up 2, down 2; and a reduce by the lower half-warp only (mask 0xffff, width 16). */
template <typename T>
__global__ void k_exchange(const T *in, T *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = in[i];
    out[i] = warpred::warp_broadcast(v, 3);
    out[n + i] = warpred::warp_xor_exchange(v, 5);
    out[2 * n + i] = warpred::warp_shift_up(v, 2);
    out[3 * n + i] = warpred::warp_shift_down(v, 2);
    out[4 * n + i] = warpred::warp_broadcast<8>(v, 3);
    out[5 * n + i] = warpred::warp_xor_exchange<8>(v, 5);
    out[6 * n + i] = warpred::warp_shift_up<8>(v, 2);
    out[7 * n + i] = warpred::warp_shift_down<8>(v, 2);
    T h = v;
    if (warpred::lane_id() < 16) h = warpred::warp_reduce<WR_MAX, 16>(v, 0xffffu);
    out[8 * n + i] = h;
}

/* ---- host side --------------------------------------------------------------- */

template <typename T> static bool same(T a, T b)
{
    if (a != a && b != b) return true;            /* both NaN */
    return memcmp(&a, &b, sizeof a) == 0;
}

template <typename T> static double as_d(T v) { return (double)v; }

/* Input patterns: 0 general, 1 with NaN/-0/+0 (floats, MIN/MAX/SUM),
 * 2 all negative zeros (float SUM: the neutral element must be -0.0). */
template <wr_op O, typename T>
static void fill(std::vector<T> &x, int pattern, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < x.size(); i++) {
        uint64_t r = rng_next(&s);
        T v;
        if constexpr (!std::is_floating_point<T>::value) v = (T)r;
        else if (O == WR_SUM) v = (T)((int)(r % 17) - 8);
        else if (O == WR_PROD) { static const double p[] = { 1, -1, 2, 0.5, 1, 1, -2, 0.5 }; v = (T)p[r % 8]; }
        else v = (T)((double)(int64_t)(r >> 11) / 9007199254740992.0 * 1000.0);
        if constexpr (std::is_floating_point<T>::value) {
            if (pattern == 1) {
                switch (r % 23) {
                case 0: v = (T)NAN; break;
                case 1: v = (T)-0.0; break;
                case 2: v = (T)0.0; break;
                default: break;
                }
            }
            if (pattern == 2) v = (T)-0.0;
        }
        x[i] = v;
    }
}

template <wr_op O, typename T>
static int check_array(const char *what, const std::vector<T> &want, const T *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same(want[i], got[i])) {
            diag("%s: element %zu: wanted %.17g, got %.17g", what, i, as_d(want[i]), as_d(got[i]));
            return 0;
        }
    return 1;
}

template <wr_op O, typename T>
static void test_pair(wr_type t)
{
    typedef warpred::op<O, T> F;
    const bool flt = std::is_floating_point<T>::value;
    const int npat = flt ? (O == WR_SUM ? 3 : (O == WR_PROD ? 1 : 2)) : 1;
    const char *tn = type_name[t], *on = op_name[O];
    T *din, *dout;
    const size_t cap = 5 * 2 * 1024;
    CK(cudaMalloc(&din, 2 * 1024 * sizeof(T)));
    CK(cudaMalloc(&dout, std::max(cap, (size_t)NW * 4 * WN) * sizeof(T)));
    std::vector<T> got(std::max(cap, (size_t)NW * 4 * WN));

    int ok_warp[NW] = { 1, 1, 1, 1, 1, 1 }, ok_block[NB] = { 1, 1, 1, 1, 1, 1 };
    for (int pat = 0; pat < npat; pat++) {
        std::vector<T> x(WN);
        fill<O, T>(x, pat, 1000u * t + 10u * O + pat);
        CK(cudaMemcpy(din, x.data(), WN * sizeof(T), cudaMemcpyHostToDevice));
        k_warp<O, T><<<WN / 256, 256>>>(din, dout, WN);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), dout, NW * 4 * WN * sizeof(T), cudaMemcpyDeviceToHost));
        for (int w = 0; w < NW; w++) {
            const int W = widths[w];
            std::vector<T> red(WN), inc(WN), exc(WN), tot(WN);
            for (int g = 0; g < WN; g += W) {
                T acc = x[g];
                exc[g] = F::identity();
                inc[g] = x[g];
                for (int j = 1; j < W; j++) { exc[g + j] = acc; acc = F::combine(acc, x[g + j]); inc[g + j] = acc; }
                for (int j = 0; j < W; j++) { red[g + j] = acc; tot[g + j] = acc; }
            }
            char what[96];
            const T *o = got.data() + (size_t)w * 4 * WN;
            snprintf(what, sizeof what, "warp width %d pattern %d reduce", W, pat);
            ok_warp[w] &= check_array<O, T>(what, red, o, WN);
            snprintf(what, sizeof what, "warp width %d pattern %d inclusive", W, pat);
            ok_warp[w] &= check_array<O, T>(what, inc, o + WN, WN);
            snprintf(what, sizeof what, "warp width %d pattern %d exclusive", W, pat);
            ok_warp[w] &= check_array<O, T>(what, exc, o + 2 * WN, WN);
            snprintf(what, sizeof what, "warp width %d pattern %d total", W, pat);
            ok_warp[w] &= check_array<O, T>(what, tot, o + 3 * WN, WN);
        }
        for (int bi = 0; bi < NB; bi++) {
            const int B = block_sizes[bi], n = 2 * B;
            k_block<O, T><<<2, B>>>(din, dout, n);
            CK(cudaGetLastError());
            CK(cudaMemcpy(got.data(), dout, 5 * (size_t)n * sizeof(T), cudaMemcpyDeviceToHost));
            std::vector<T> red(n), inc(n), exc(n);
            for (int g = 0; g < n; g += B) {
                T acc = x[g];
                exc[g] = F::identity();
                inc[g] = x[g];
                for (int j = 1; j < B; j++) { exc[g + j] = acc; acc = F::combine(acc, x[g + j]); inc[g + j] = acc; }
                for (int j = 0; j < B; j++) red[g + j] = acc;
            }
            char what[96];
            snprintf(what, sizeof what, "block %d pattern %d reduce", B, pat);
            ok_block[bi] &= check_array<O, T>(what, red, got.data(), n);
            snprintf(what, sizeof what, "block %d pattern %d inclusive", B, pat);
            ok_block[bi] &= check_array<O, T>(what, inc, got.data() + n, n);
            snprintf(what, sizeof what, "block %d pattern %d exclusive", B, pat);
            ok_block[bi] &= check_array<O, T>(what, exc, got.data() + 2 * n, n);
            snprintf(what, sizeof what, "block %d pattern %d inclusive total", B, pat);
            ok_block[bi] &= check_array<O, T>(what, red, got.data() + 3 * n, n);
            snprintf(what, sizeof what, "block %d pattern %d exclusive total", B, pat);
            ok_block[bi] &= check_array<O, T>(what, red, got.data() + 4 * n, n);
        }
    }
    for (int w = 0; w < NW; w++)
        ok(ok_warp[w], "%s %s: warp reduce / inclusive / exclusive scan, width %d", tn, on, widths[w]);
    for (int bi = 0; bi < NB; bi++)
        ok(ok_block[bi], "%s %s: block reduce / inclusive / exclusive scan, %d threads", tn, on, block_sizes[bi]);
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

template <typename T>
static void test_exchange(wr_type t)
{
    const int n = 1024;
    std::vector<T> x(n), got(9 * n);
    uint64_t s = 77 + t;
    for (int i = 0; i < n; i++) x[i] = (T)(rng_next(&s) % 100000);
    T *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(T)));
    CK(cudaMalloc(&dout, 9 * n * sizeof(T)));
    CK(cudaMemcpy(din, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    k_exchange<T><<<n / 256, 256>>>(din, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), dout, 9 * n * sizeof(T), cudaMemcpyDeviceToHost));
    int good[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            const int W = k ? 8 : 32, g = i - i % W, l = i % W;
            const T bc = x[g + 3], xr = x[g + (l ^ 5)];
            const T up = l >= 2 ? x[i - 2] : x[i], dn = l + 2 < W ? x[i + 2] : x[i];
            good[4 * k + 0] &= same(bc, got[(4 * k + 0) * n + i]);
            good[4 * k + 1] &= same(xr, got[(4 * k + 1) * n + i]);
            good[4 * k + 2] &= same(up, got[(4 * k + 2) * n + i]);
            good[4 * k + 3] &= same(dn, got[(4 * k + 3) * n + i]);
        }
        T h = x[i];
        if (i % 32 < 16) {
            h = x[i - i % 32];
            for (int j = 1; j < 16; j++) h = warpred::op<WR_MAX, T>::combine(h, x[i - i % 32 + j]);
        }
        good[8] &= same(h, got[8 * n + i]);
    }
    static const char *const names[4] = { "broadcast from lane 3", "xor exchange 5", "shift up 2", "shift down 2" };
    for (int k = 0; k < 8; k++)
        ok(good[k], "%s: %s, width %d", type_name[t], names[k % 4], k < 4 ? 32 : 8);
    ok(good[8], "%s: MAX reduce by the lower half-warp alone (mask 0xffff, width 16)", type_name[t]);
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

template <typename T>
static void test_type(wr_type t)
{
    test_exchange<T>(t);
    test_pair<WR_SUM, T>(t);
    test_pair<WR_PROD, T>(t);
    test_pair<WR_MIN, T>(t);
    test_pair<WR_MAX, T>(t);
    if constexpr (!std::is_floating_point<T>::value) {
        test_pair<WR_BAND, T>(t);
        test_pair<WR_BOR, T>(t);
        test_pair<WR_BXOR, T>(t);
    }
}

int main(void)
{
    gpu_require();
    /* per type: 9 exchange checks; per pair: 6 widths + 6 block sizes */
    plan(6 * 9 + (4 * 7 + 2 * 4) * (NW + NB));
    test_type<int32_t>(WR_INT32);
    test_type<int64_t>(WR_INT64);
    test_type<uint32_t>(WR_UINT32);
    test_type<uint64_t>(WR_UINT64);
    test_type<float>(WR_FLOAT);
    test_type<double>(WR_DOUBLE);
    return tap_failures() ? 1 : 0;
}

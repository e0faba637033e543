/*
 * test_cuda_huge.c -- counts past 2^31 on device memory.
 *
 * n = 2^31 + 4099 uint32 elements (8 GiB), filled by cudaMemset with the byte
 * 0x01 (each element 0x01010101) except a window [a, b) straddling index
 * 2^31 filled with 0x02 bytes and one element past 2^31 set to 0xffffffff.
 * Every result then has a closed form: the sum (mod 2^32), the maximum's
 * index, the inclusive/exclusive scan (checked around 2^31, at the window's
 * edges and at the end), and row sums of a 2 x (n/2) matrix.
 * Needs about 17 GiB of free device memory; skipped below that or when
 * WR_TEST_MAX_N is under n (the sanitizer runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

#define CK(call) GPU_CK(call)

static const size_t N = ((size_t)1 << 31) + 4099;
static const size_t A = ((size_t)1 << 31) - 1000, B = ((size_t)1 << 31) + 3000;  /* window of 0x02020202 */
static const size_t M = ((size_t)1 << 31) + 3500;                                /* the maximum */

/* inclusive prefix sum up to and including i, mod 2^32 */
static uint32_t prefix(size_t i)
{
    size_t n = i + 1, inwin = 0;
    if (n > A) inwin = (n < B ? n : B) - A;
    uint64_t s = (uint64_t)(n - inwin) * 0x01010101u + (uint64_t)inwin * 0x02020202u;
    if (i >= M) s = s - 0x01010101u + 0xffffffffu;
    return (uint32_t)s;
}

int main(void)
{
    gpu_require();
    unsetenv("WARPRED_BACKEND");
    size_t fr, tot;
    gpu_mem(&fr, &tot);
    if (test_max_n(N) < N) skip_all("WR_TEST_MAX_N is below 2^31");
    if (fr < (size_t)18 << 30) skip_all("needs 18 GiB of free device memory, %zu MiB free", fr >> 20);
    plan(7);

    wr_context *ctx;
    if (wr_context_create(&ctx, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    uint32_t *x, *y;
    CK(cudaMalloc((void **)&x, N * 4));
    CK(cudaMalloc((void **)&y, N * 4));
    CK(cudaMemset(x, 0x01, N * 4));
    CK(cudaMemset(x + A, 0x02, (B - A) * 4));
    const uint32_t mx = 0xffffffffu;
    CK(cudaMemcpy(x + M, &mx, 4, cudaMemcpyHostToDevice));

    uint32_t r = 0;
    wr_status st = wr_reduce(ctx, x, &r, N, WR_UINT32, WR_SUM);
    is_uint(prefix(N - 1), r, "wr_reduce SUM of %zu uint32 on the device (%s)", N, wr_status_string(st));

    size_t idx = 0;
    uint32_t val = 0;
    st = wr_argmax(ctx, x, N, WR_UINT32, &idx, &val);
    ok(st == WR_SUCCESS && idx == M && val == mx, "wr_argmax over %zu elements: index %zu (want %zu)", N, idx, M);
    st = wr_argmin(ctx, x, N, WR_UINT32, &idx, NULL);
    ok(st == WR_SUCCESS && idx == 0, "wr_argmin over %zu elements: index %zu (want 0)", N, idx);

    /* scans: look at windows around the interesting indices */
    static const size_t probes[] = { 0, 4095, 4096, ((size_t)1 << 31) - 1001, ((size_t)1 << 31) - 2,
                                     ((size_t)1 << 31) + 2, ((size_t)1 << 31) + 2999, ((size_t)1 << 31) + 3499,
                                     ((size_t)1 << 31) + 3500, ((size_t)1 << 31) + 3501, ((size_t)1 << 31) + 4099 - 8 };
    for (int ex = 0; ex < 2; ex++) {
        int good;
        CK(cudaMemset(y, 0x5a, N * 4));
        st = (ex ? wr_exscan : wr_scan)(ctx, x, y, N, WR_UINT32, WR_SUM);
        good = st == WR_SUCCESS;
        for (size_t k = 0; good && k < sizeof probes / sizeof probes[0]; k++) {
            uint32_t got[8];
            CK(cudaMemcpy(got, y + probes[k], sizeof got, cudaMemcpyDeviceToHost));
            for (size_t j = 0; j < 8 && probes[k] + j < N; j++) {
                size_t i = probes[k] + j;
                uint32_t want = ex ? (i ? prefix(i - 1) : 0) : prefix(i);
                if (got[j] != want) {
                    diag("%s: element %zu: wanted %u, got %u", ex ? "wr_exscan" : "wr_scan", i, want, got[j]);
                    good = 0;
                    break;
                }
            }
        }
        ok(good, "%s SUM of %zu uint32 on the device (%s)", ex ? "wr_exscan" : "wr_scan", N,
           st == WR_SUCCESS ? "probed around 2^31 and the end" : wr_context_error(ctx));
    }

    /* rows: 2 rows of N/2 (N is odd: the last element is left out) */
    uint32_t rs[2] = { 0, 0 };
    const size_t cols = N / 2;
    st = wr_reduce_rows(ctx, x, rs, 2, cols, WR_UINT32, WR_SUM);
    ok(st == WR_SUCCESS && rs[0] == prefix(cols - 1) && rs[1] == (uint32_t)(prefix(2 * cols - 1) - prefix(cols - 1)),
       "wr_reduce_rows 2 x %zu (%s)", cols, wr_status_string(st));
    /* one segment over everything but the first element */
    size_t off[2] = { 1, N };
    uint32_t sg = 0;
    st = wr_reduce_segments(ctx, x, &sg, 1, off, WR_UINT32, WR_SUM);
    ok(st == WR_SUCCESS && sg == (uint32_t)(prefix(N - 1) - 0x01010101u), "wr_reduce_segments, one segment of %zu (%s)",
       N - 1, wr_status_string(st));

    CK(cudaFree(x));
    CK(cudaFree(y));
    wr_context_destroy(ctx);
    return tap_failures() ? 1 : 0;
}

/*
 * test_cuda_errors.c -- device out-of-memory: WR_ERR_NO_MEMORY with the
 * failing call named, and every context usable again afterwards.
 *
 * The test takes (almost) all free device memory with cudaMalloc, so it runs
 * only when WR_TEST_DEVICE_OOM=1 (the GPU check script runs it on its own,
 * never beside other GPU programs).  While the memory is taken:
 *  - a context that has already run calls still reduces device data (its
 *    scratch was allocated before: no allocation on the steady-state path);
 *  - a fresh context's first call on host memory (staging buffers needed)
 *    and a scan needing more descriptors fail with WR_ERR_NO_MEMORY and a
 *    reason naming the CUDA call;
 * then, with the memory given back, the same calls on the same contexts
 * succeed and give the right results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

#define CK(call) GPU_CK(call)

enum { NHOG = 4096 };
static void *hog[NHOG];
static int nhog;

/* Take device memory until a 1 MiB allocation fails. */
static size_t take_all(void)
{
    size_t fr, tot, taken = 0;
    gpu_mem(&fr, &tot);
    size_t chunk = fr > ((size_t)64 << 20) ? fr - ((size_t)64 << 20) : fr / 2;
    while (nhog < NHOG && chunk >= ((size_t)1 << 20)) {
        if (cudaMalloc(&hog[nhog], chunk) == cudaSuccess) {
            taken += chunk;
            nhog++;
        } else {
            (void)cudaGetLastError();
            chunk /= 2;
        }
    }
    return taken;
}

static void give_back(void)
{
    while (nhog > 0) CK(cudaFree(hog[--nhog]));
}

int main(void)
{
    gpu_require();
    const char *want = getenv("WR_TEST_DEVICE_OOM");
    if (!want || strcmp(want, "1") != 0) skip_all("takes all device memory: set WR_TEST_DEVICE_OOM=1 to run it alone");
    unsetenv("WARPRED_BACKEND");
    plan(10);

    const size_t n = (size_t)48 << 20;           /* 192 MiB of int32: more than one staging buffer */
    int32_t *h = malloc(n * sizeof *h), *dx;
    int64_t s_want = 0;
    if (!h) bail("out of host memory");
    for (size_t i = 0; i < n; i++) { h[i] = (int32_t)(i % 1001) - 500; s_want += h[i]; }
    CK(cudaMalloc((void **)&dx, n * sizeof *dx));
    CK(cudaMemcpy(dx, h, n * sizeof *h, cudaMemcpyHostToDevice));

    wr_context *warm, *fresh;
    if (wr_context_create(&warm, WR_BACKEND_CUDA) != WR_SUCCESS) bail("context: %s", wr_context_error(NULL));
    int32_t r32 = 0, want32 = (int32_t)(uint32_t)(uint64_t)s_want;   /* int32 SUM wraps */
    ok(wr_reduce(warm, dx, &r32, n, WR_INT32, WR_SUM) == WR_SUCCESS && r32 == want32, "warm context reduces device data");
    if (wr_context_create(&fresh, WR_BACKEND_CUDA) != WR_SUCCESS) bail("context: %s", wr_context_error(NULL));

    size_t taken = take_all(), fr, tot;
    gpu_mem(&fr, &tot);
    diag("took %zu MiB of device memory in %d allocations; %zu MiB left", taken >> 20, nhog, fr >> 20);

    r32 = 0;
    wr_status st = wr_reduce(warm, dx, &r32, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && r32 == want32, "with the device full, the warm context still reduces device data (%s)",
       st == WR_SUCCESS ? "no allocation" : wr_context_error(warm));

    st = wr_reduce(fresh, h, &r32, n, WR_INT32, WR_SUM);
    const char *why = wr_context_error(fresh);
    ok(st == WR_ERR_NO_MEMORY, "fresh context, host data, device full: %s (want WR_ERR_NO_MEMORY)", wr_status_string(st));
    ok(strstr(why, "out of memory") != NULL && strstr(why, "cuda") != NULL && strchr(why, '\n') == NULL,
       "one-line reason names the call: \"%s\"", why);

    /* a scan of big device arrays needs MiBs of new descriptors (more than the
     * leftovers of a full device: take_all stops at 1 MiB) */
    const size_t nb = (size_t)800 << 20;             /* 800 Mi int32: 204800 tiles */
    uint32_t *bx, *by;
    give_back();
    CK(cudaMalloc((void **)&bx, nb * 4));
    CK(cudaMalloc((void **)&by, nb * 4));
    CK(cudaMemset(bx, 0x01, nb * 4));                 /* every element 0x01010101 */
    take_all();
    st = wr_scan(warm, bx, by, nb, WR_UINT32, WR_SUM);
    why = wr_context_error(warm);
    ok(st == WR_ERR_NO_MEMORY && strstr(why, "cudaMalloc") != NULL,
       "scan needing new descriptors on a full device: %s: \"%s\"", wr_status_string(st), why);
    give_back();

    st = wr_reduce(fresh, h, &r32, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && r32 == want32, "memory back: the fresh context's reduce of host data succeeds (%s)",
       st == WR_SUCCESS ? "right sum" : wr_context_error(fresh));
    st = wr_scan(warm, bx, by, nb, WR_UINT32, WR_SUM);
    int good = st == WR_SUCCESS;
    for (size_t i = 0; good && i < nb; i += 1234567) {   /* out[i] = (i + 1) * 0x01010101 */
        uint32_t g[4];
        size_t at = i + 4 <= nb ? i : nb - 4;
        CK(cudaMemcpy(g, by + at, sizeof g, cudaMemcpyDeviceToHost));
        for (size_t j = 0; j < 4; j++)
            if (g[j] != (uint32_t)((at + j + 1) * 0x01010101u)) {
                diag("scan element %zu: %u", at + j, g[j]);
                good = 0;
            }
    }
    ok(good, "memory back: the warm context's scan succeeds and is right (%s)",
       good ? "sampled every 1234567 elements" : wr_context_error(warm));
    st = wr_reduce(warm, h, &r32, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && r32 == want32, "warm context: host data too");
    st = wr_reduce(fresh, dx, &r32, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && r32 == want32, "fresh context: device data too");
    ok(strcmp(wr_context_error(fresh), "") == 0, "no error left behind after a success");

    CK(cudaFree(dx));
    CK(cudaFree(bx));
    CK(cudaFree(by));
    wr_context_destroy(warm);
    wr_context_destroy(fresh);
    free(h);
    return tap_failures() ? 1 : 0;
}

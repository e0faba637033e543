/*
 * test_cuda_plugin.c -- the real plugin, loaded the way users get it, on any
 * machine (also CI, which has no GPU).
 *
 * Without a usable device: an explicit CUDA context fails with
 * WR_ERR_NO_BACKEND and a reason that comes from the plugin's own open()
 * (so the plugin was found, loaded and accepted, and only the device is
 * missing), while an AUTO context is created quietly and runs on the cpu.
 * With a device: the CUDA context opens and describes the device, and AUTO
 * still runs host-memory calls on the cpu.  WR_TEST_REQUIRE_GPU=1 makes a
 * missing device a failure (the GPU machine's check script sets it).
 * WR_TEST_EXPECT_REFUSAL=TEXT: the plugin has no code for the device (the
 * check script builds one so), so the CUDA context must be refused, with
 * TEXT in the reason, and AUTO must say why in its description and run on
 * the cpu.
 */
#include <stdlib.h>
#include <string.h>
#include "warpred.h"
#include "tap.h"

int main(void)
{
    wr_context *c = NULL, *a = NULL;
    const char *req = getenv("WR_TEST_REQUIRE_GPU");
    const char *refusal = getenv("WR_TEST_EXPECT_REFUSAL");
    if (refusal && !*refusal) refusal = NULL;
    unsetenv("WARPRED_BACKEND");
    plan(6);

    wr_status st = wr_context_create(&c, WR_BACKEND_CUDA);
    const char *why = wr_context_error(NULL);
    if (st == WR_SUCCESS) {
        const char *d = wr_context_describe(c);
        diag("cuda context: %s", d);
        ok(refusal == NULL, "explicit CUDA context opened: a device is present%s",
           refusal ? ", but the plugin was to be refused" : "");
        ok(strncmp(d, "cuda: ", 6) == 0 && strstr(d, "(sm_") != NULL &&
           (strstr(d, " machine code") != NULL || strstr(d, " PTX, JIT") != NULL),
           "describe names the device and the code it runs: \"%s\"", d);
        ok(wr_context_has_backend(c, WR_BACKEND_CUDA) && !wr_context_has_backend(c, WR_BACKEND_CPU),
           "a CUDA context has cuda and only cuda");
        wr_context_destroy(c);
    } else {
        diag("cuda context: %s: %s", wr_status_string(st), why);
        ok(!(req && strcmp(req, "1") == 0), "no device is acceptable here (WR_TEST_REQUIRE_GPU is not 1)");
        ok(st == WR_ERR_NO_BACKEND && c == NULL, "explicit CUDA context: WR_ERR_NO_BACKEND, ctx set to NULL");
        /* the reason comes from the plugin's open(), not from the loader */
        if (refusal)
            ok(strstr(why, "not found") == NULL && strstr(why, "cannot be loaded") == NULL &&
               strstr(why, refusal) != NULL, "the reason says what the plugin lacks (\"%s\"): \"%s\"", refusal, why);
        else
            ok(why[0] != '\0' && strstr(why, "not found") == NULL && strstr(why, "cannot be loaded") == NULL &&
               strstr(why, "refused") == NULL &&
               (strstr(why, "cudaGetDeviceCount") != NULL || strstr(why, "no CUDA-capable device") != NULL ||
                strstr(why, "CUDA device") != NULL),
               "the reason names the CUDA call that found no device: \"%s\"", why);
    }

    st = wr_context_create(&a, WR_BACKEND_AUTO);
    ok(st == WR_SUCCESS && (!refusal || strstr(wr_context_describe(a), refusal) != NULL), "AUTO context created (%s)",
       st == WR_SUCCESS ? wr_context_describe(a) : wr_context_error(NULL));
    if (st == WR_SUCCESS) {
        int x[100], sum = 0;
        for (int i = 0; i < 100; i++) x[i] = i * 3 - 50;
        st = wr_reduce(a, x, &sum, 100, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && sum == 99 * 100 / 2 * 3 - 5000, "AUTO reduces host memory: sum %d (%s)", sum,
           st == WR_SUCCESS ? "ok" : wr_context_error(a));
        ok(wr_context_last_backend(a) == WR_BACKEND_CPU, "... on the cpu backend");
        wr_context_destroy(a);
    } else {
        skip_block(2, "no AUTO context");
    }
    return tap_failures() ? 1 : 0;
}

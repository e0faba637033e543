/*
 * plugin_loader.c -- the CUDA plugin loader and backend choice, on any
 * machine (no GPU needed), with the fake plugins of tests/fake_plugin.c,
 * each copied as warpred_cuda.so into a private directory of the build tree
 * (tests/testfs.h); the test points WARPRED_PLUGIN_DIR at one of them
 * before creating contexts.
 *
 *  - no plugin, wrong ABI, no device, table missing: a CUDA context fails
 *    with WR_ERR_NO_BACKEND and a reason that says which ("not found",
 *    "ABI", "no CUDA device", the symbol's name); AUTO quietly uses the cpu;
 *  - the good fake: a CUDA context calls it and its (tagged) results come
 *    back through the public API, last_backend says CUDA, describe shows it;
 *    a failure inside it comes back with its status and reason, the output
 *    untouched;
 *  - lib/'s routing: AUTO sends a call whose buffer the plugin calls device
 *    or managed memory to cuda and host buffers to the cpu; a CPU context
 *    refuses device pointers (also offsets) with WR_ERR_INVALID_ARG and
 *    takes managed ones; offsets in device memory are validated through
 *    the plugin's check_offsets, whose summary names the decrease;
 *  - WARPRED_BACKEND=cpu / cuda override the request with the plugin present.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "fake_plugin.h"
#include "testfs.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

/* A private copy of the variant, which the loader trusts whatever the
 * build's umask ("fake_missing": an empty directory). */
static void use_plugin(const char *variant)
{
    setenv("WARPRED_PLUGIN_DIR",
           strcmp(variant, "fake_missing") == 0 ? tf_tmpdir(WR_TEST_BUILDDIR "/tests", variant)
                                                : tf_stage_plugin(WR_TEST_BUILDDIR, variant),
           1);
}

static void set_range(const char *name, const void *p, size_t bytes)
{
    char v[64];
    snprintf(v, sizeof v, "%" PRIxPTR ":%zu", (uintptr_t)p, bytes);
    setenv(name, v, 1);
}

static const int32_t host_in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };   /* sum 36 */
static _Alignas(16) int32_t dev[16], managed[16];                           /* "device" and "managed" memory */

/* A plugin that cannot be used: CUDA refused with the reason, AUTO falls back. */
static void refused(const char *variant, const char *reason, const char *what)
{
    wr_context *ctx = (wr_context *)&ctx;
    wr_status st;
    int32_t out = 0;
    use_plugin(variant);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    ok(st == WR_ERR_NO_BACKEND && ctx == NULL && tu_contains(wr_context_error(NULL), reason),
       "%s: CUDA context refused, WR_ERR_NO_BACKEND, reason mentions \"%s\": \"%s\"", what, reason,
       wr_context_error(NULL));
    st = wr_context_create(&ctx, WR_BACKEND_AUTO);
    if (st != WR_SUCCESS) {
        ok(0, "%s: AUTO falls back to the cpu: %s: %s", what, wr_status_string(st), wr_context_error(NULL));
        return;
    }
    st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
    ok(wr_context_error(NULL)[0] == '\0' && !wr_context_has_backend(ctx, WR_BACKEND_CUDA) &&
       !tu_contains(wr_context_describe(ctx), "; cuda:") &&
       /* a plugin that is not installed is not news; one that is and did not load is */
       (strcmp(reason, "not found") == 0 ? !tu_contains(wr_context_describe(ctx), "not loaded")
                                         : tu_contains(wr_context_describe(ctx), "not loaded") &&
                                           tu_contains(wr_context_describe(ctx), reason)) &&
       st == WR_SUCCESS && out == 36 &&
       wr_context_last_backend(ctx) == WR_BACKEND_CPU,
       "%s: AUTO falls back to the cpu and says why (sum %d, describe \"%s\")", what, (int)out,
       wr_context_describe(ctx));
    wr_context_destroy(ctx);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    ok(st == WR_SUCCESS, "%s: CPU context unaffected", what);
    wr_context_destroy(ctx);
}

static void good_cuda(void)
{
    wr_context *ctx = NULL;
    wr_status st;
    int32_t out = 0, scan[8], seg[2];
    size_t off[3] = { 0, 3, 8 }, idx = 99, i;
    int all;

    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    if (!ok(st == WR_SUCCESS && ctx != NULL, "good fake: CUDA context created (%s)", wr_context_error(NULL)))
        bail("the good fake plugin was not loaded: %s", wr_context_error(NULL));
    ok(wr_context_has_backend(ctx, WR_BACKEND_CUDA) && !wr_context_has_backend(ctx, WR_BACKEND_CPU) &&
       tu_contains(wr_context_describe(ctx), FAKE_DESCRIPTION),
       "good fake: has cuda only, describe shows the plugin: \"%s\"", wr_context_describe(ctx));

    st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(ctx) == WR_BACKEND_CUDA,
       "good fake: wr_reduce ran in the plugin (%d = 36 + tag), last_backend CUDA", (int)out);

    st = wr_scan(ctx, host_in, scan, 8, WR_INT32, WR_SUM);
    all = st == WR_SUCCESS;
    for (i = 0; i < 8; i++) all = all && scan[i] == (int32_t)((i + 1) * (i + 2) / 2 + FAKE_TAG);
    st = wr_exscan(ctx, host_in, scan, 8, WR_INT32, WR_SUM);
    all = all && st == WR_SUCCESS;
    for (i = 0; i < 8; i++) all = all && scan[i] == (int32_t)(i * (i + 1) / 2 + FAKE_TAG);
    st = wr_reduce_segments(ctx, host_in, seg, 2, off, WR_INT32, WR_SUM);
    all = all && st == WR_SUCCESS && seg[0] == 6 + FAKE_TAG && seg[1] == 30 + FAKE_TAG;
    st = wr_argmax(ctx, host_in, 8, WR_INT32, &idx, &out);
    ok(all && st == WR_SUCCESS && idx == 7 && out == 8,
       "good fake: scan, exscan, segments and argmax come back through the public API");

    /* failures inside the plugin: status and reason come back, output untouched */
    out = -5;
    st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_MAX);
    ok(st == WR_ERR_UNSUPPORTED && out == -5 && tu_contains(wr_context_error(ctx), "only int32 SUM") &&
       tu_contains(wr_context_error(ctx), "cuda"),
       "good fake: its WR_ERR_UNSUPPORTED comes back with its reason: \"%s\"", wr_context_error(ctx));
    {
        int32_t thirteen[FAKE_FAIL_COUNT] = { 0 };
        st = wr_reduce(ctx, thirteen, &out, FAKE_FAIL_COUNT, WR_INT32, WR_SUM);
        ok(st == WR_ERR_DEVICE && out == -5 && tu_contains(wr_context_error(ctx), "fake kernel launch failed") &&
           tu_mentions(wr_context_error(ctx), "wr_reduce"),
           "good fake: a device failure comes back as WR_ERR_DEVICE naming the call: \"%s\"",
           wr_context_error(ctx));
    }
    st = wr_reduce_rows(ctx, host_in, seg, 2, 4, WR_INT32, WR_SUM);
    ok(st == WR_ERR_UNSUPPORTED && tu_contains(wr_context_error(ctx), "no reduce_rows"),
       "good fake: a missing operation says so: \"%s\"", wr_context_error(ctx));

    /* offsets in "device" memory: lib/ validates them through check_offsets */
    {
        size_t *doff = (size_t *)(void *)dev;   /* 64 bytes: room for 8 offsets */
        doff[0] = 0;
        doff[1] = 5;
        doff[2] = 3;
        seg[0] = seg[1] = -5;
        st = wr_reduce_segments(ctx, host_in, seg, 2, doff, WR_INT32, WR_SUM);
        ok(st == WR_ERR_INVALID_ARG && seg[0] == -5 && seg[1] == -5 &&
           tu_contains(wr_context_error(ctx), "offsets[2] = 3 < offsets[1] = 5"),
           "good fake: decreasing offsets in device memory are refused: \"%s\"", wr_context_error(ctx));
        doff[2] = 8;
        st = wr_reduce_segments(ctx, host_in, seg, 2, doff, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && seg[0] == 15 + FAKE_TAG && seg[1] == 21 + FAKE_TAG,
           "good fake: valid offsets in device memory are used (%d, %d)", (int)seg[0], (int)seg[1]);
    }
    wr_context_destroy(ctx);
}

static void good_auto_and_cpu(void)
{
    wr_context *aut = NULL, *cpu = NULL;
    wr_status st;
    int32_t out = 0, seg[2] = { -5, -5 };
    size_t i;

    for (i = 0; i < 16; i++) dev[i] = managed[i] = (int32_t)i + 1;   /* sums of 8: 36 */
    st = wr_context_create(&aut, WR_BACKEND_AUTO);
    ok(st == WR_SUCCESS && wr_context_has_backend(aut, WR_BACKEND_CUDA) && wr_context_has_backend(aut, WR_BACKEND_CPU) &&
       tu_contains(wr_context_describe(aut), "cpu") && tu_contains(wr_context_describe(aut), FAKE_DESCRIPTION),
       "AUTO with the good fake: has cpu and cuda, describe shows both: \"%s\"",
       aut ? wr_context_describe(aut) : "");
    if (aut == NULL) bail("no AUTO context: %s", wr_context_error(NULL));

    st = wr_reduce(aut, host_in, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 && wr_context_last_backend(aut) == WR_BACKEND_CPU,
       "AUTO: host memory runs on the cpu (%d, untagged)", (int)out);
    st = wr_reduce(aut, dev, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(aut) == WR_BACKEND_CUDA,
       "AUTO: an input in device memory runs on cuda (%d)", (int)out);
    st = wr_reduce(aut, host_in, &managed[12], 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && managed[12] == 36 + FAKE_TAG && wr_context_last_backend(aut) == WR_BACKEND_CUDA,
       "AUTO: an output in managed memory runs on cuda (%d)", (int)managed[12]);
    managed[12] = 13;

    st = wr_context_create(&cpu, WR_BACKEND_CPU);
    if (cpu == NULL) bail("no CPU context: %s", wr_context_error(NULL));
    ok(!wr_context_has_backend(cpu, WR_BACKEND_CUDA), "CPU context with the plugin present: no cuda backend");
    out = -5;
    st = wr_reduce(cpu, dev, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && out == -5 && tu_mentions(wr_context_error(cpu), "in") &&
       tu_contains(wr_context_error(cpu), "device memory"),
       "CPU context: a device pointer is refused, naming it: \"%s\"", wr_context_error(cpu));
    st = wr_scan(cpu, host_in, dev, 8, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && dev[0] == 1 && tu_mentions(wr_context_error(cpu), "out"),
       "CPU context: a device output is refused and left alone: \"%s\"", wr_context_error(cpu));
    st = wr_reduce_segments(cpu, host_in, seg, 1, (const size_t *)(void *)dev, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && seg[0] == -5 && tu_mentions(wr_context_error(cpu), "offsets"),
       "CPU context: offsets in device memory are refused: \"%s\"", wr_context_error(cpu));
    st = wr_reduce(cpu, managed, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 && wr_context_last_backend(cpu) == WR_BACKEND_CPU,
       "CPU context: managed memory is host-reachable and runs on the cpu (%d)", (int)out);

    wr_context_destroy(aut);
    wr_context_destroy(cpu);
}

static void env_override(void)
{
    wr_context *ctx = NULL;
    wr_status st;
    int32_t out = 0;

    setenv("WARPRED_BACKEND", "cpu", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    if (ctx) {
        st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && out == 36 && !wr_context_has_backend(ctx, WR_BACKEND_CUDA) &&
           wr_reduce(ctx, dev, &out, 8, WR_INT32, WR_SUM) == WR_ERR_INVALID_ARG,
           "WARPRED_BACKEND=cpu with a CUDA request and the plugin present: cpu only, device pointers refused");
        wr_context_destroy(ctx);
    } else {
        ok(0, "WARPRED_BACKEND=cpu with a CUDA request: %s: %s", wr_status_string(st), wr_context_error(NULL));
    }
    ctx = NULL;
    setenv("WARPRED_BACKEND", "cuda", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    if (ctx) {
        st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(ctx) == WR_BACKEND_CUDA,
           "WARPRED_BACKEND=cuda with a CPU request: host memory runs in the plugin (%d)", (int)out);
        wr_context_destroy(ctx);
    } else {
        ok(0, "WARPRED_BACKEND=cuda with a CPU request: %s: %s", wr_status_string(st), wr_context_error(NULL));
    }
    unsetenv("WARPRED_BACKEND");
}

int main(void)
{
    unsetenv("WARPRED_BACKEND");
    plan(4 * 3 + 9 + 9 + 2);
    set_range("WR_FAKE_DEVICE", dev, sizeof dev);
    set_range("WR_FAKE_MANAGED", managed, sizeof managed);

    refused("fake_missing", "not found", "no plugin file");
    refused("fake_abi", "ABI", "wrong ABI number");
    refused("fake_nodev", "no CUDA device", "no device");
    refused("fake_nosym", "warpred_backend_ops", "table not exported");

    use_plugin("fake_good");
    good_cuda();
    good_auto_and_cpu();
    env_override();
    return 0;
}

/*
 * light_locator.c -- a cpu context never loads the CUDA plugin or the CUDA
 * driver, and still refuses device memory once the process has the driver.
 *
 * On a GPU node every cpu-only process used to create a CUDA context (200+
 * ms, 518 MiB of GPU memory on an H100): the cpu context opened the CUDA
 * plugin only to recognise device pointers.  Here: after creating cpu
 * contexts and running calls, neither warpred_cuda.so nor libcuda.so.1 is
 * mapped into the process (dlopen RTLD_NOLOAD).  Then the process loads a
 * driver of its own (tests/fake_libcuda.c, soname libcuda.so.1, whose
 * cuPointerGetAttributes names one range device memory and another managed):
 * a cpu context refuses the device range with the reason, computes on the
 * managed range, and still loads no plugin.
 */
#include <config.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

static _Alignas(16) int32_t devbuf[64], manbuf[64], host[64];

static void set_range(const char *name, const void *p, size_t bytes)
{
    char v[64];
    snprintf(v, sizeof v, "%" PRIxPTR ":%zu", (uintptr_t)p, bytes);
    setenv(name, v, 1);
}

static int mapped(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != NULL;
}

int main(void)
{
    char plugin[4096];
    wr_context *ctx;
    int32_t out = 0;
    wr_status st;
    void *drv;
    int i;

    plan(9);
    for (i = 0; i < 64; i++) host[i] = devbuf[i] = manbuf[i] = i;
    snprintf(plugin, sizeof plugin, "%s/cuda/.libs/warpred_cuda.so", WR_TEST_BUILDDIR);
    setenv("WARPRED_PLUGIN_DIR", WR_TEST_BUILDDIR "/cuda/.libs", 1);
    unsetenv("WARPRED_BACKEND");

    ctx = tu_context(WR_BACKEND_CPU);
    st = wr_reduce(ctx, host, &out, 64, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 2016, "cpu context: wr_reduce of host memory (%d)", (int)out);
    ok(!mapped(plugin) && !mapped("warpred_cuda.so"), "the cpu context loaded no CUDA plugin");
    ok(!mapped("libcuda.so.1"), "nor the CUDA driver");
    wr_context_destroy(ctx);

    /* the process brings a driver of its own */
    snprintf(plugin, sizeof plugin, "%s/tests/fakecuda/.libs/libcuda.so.1", WR_TEST_BUILDDIR);
    drv = dlopen(plugin, RTLD_NOW | RTLD_GLOBAL);
    if (drv == NULL) bail("dlopen %s: %s", plugin, dlerror());
    set_range("WR_FAKE_CUDA_DEVICE", devbuf, sizeof devbuf);
    set_range("WR_FAKE_CUDA_MANAGED", manbuf, sizeof manbuf);
    ctx = tu_context(WR_BACKEND_CPU);
    out = -1;
    st = wr_reduce(ctx, devbuf, &out, 64, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && out == -1 && tu_contains(wr_context_error(ctx), "device memory") &&
           tu_contains(wr_context_error(ctx), "in"),
       "with the driver loaded, a cpu context refuses device memory: \"%s\"", wr_context_error(ctx));
    st = wr_scan(ctx, host, devbuf, 64, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && devbuf[5] == 5 && tu_mentions(wr_context_error(ctx), "out"),
       "... a device output, left alone: \"%s\"", wr_context_error(ctx));
    {
        size_t *off = (size_t *)(void *)devbuf;
        int32_t seg = -5;
        st = wr_reduce_segments(ctx, host, &seg, 1, off, WR_INT32, WR_SUM);
        ok(st == WR_ERR_INVALID_ARG && seg == -5 && tu_mentions(wr_context_error(ctx), "offsets"),
           "... offsets in device memory: \"%s\"", wr_context_error(ctx));
    }
    st = wr_reduce(ctx, manbuf, &out, 64, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 2016, "... and computes on managed memory (%s)", wr_context_error(ctx));
    st = wr_reduce(ctx, host, &out, 64, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 2016, "... and on host memory the driver does not know");
    snprintf(plugin, sizeof plugin, "%s/cuda/.libs/warpred_cuda.so", WR_TEST_BUILDDIR);
    ok(!mapped(plugin) && !mapped("warpred_cuda.so"), "still no CUDA plugin loaded");
    wr_context_destroy(ctx);
    return 0;
}

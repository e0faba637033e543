/*
 * dlopen_local.c -- libwarpred loaded the way Python's ctypes, cffi, Julia,
 * R and every plugin host load it: dlopen(RTLD_LOCAL), the API resolved with
 * dlsym (issue #23, item 8).  This program does not link libwarpred, so none
 * of its symbols is in the global namespace, and a plugin that needed one
 * could not load.
 *
 *  - CPU and AUTO contexts work;
 *  - the good fake plugin loads into a CUDA context;
 *  - a fake plugin that needs a libwarpred symbol is refused with the
 *    loader's reason ("undefined symbol"), and an AUTO context says so in
 *    its description instead of falling back silently;
 *  - the real CUDA plugin (WARPRED_PLUGIN_DIR of `make check`), where it was
 *    built: it loads, so a CUDA context either opens or fails in the
 *    plugin's own open() for want of a device, never with the loader's
 *    "cannot be loaded";
 *  - with a device (built with CUDA, WR_TEST_CUDA): a CUDA context reduces
 *    device memory, and an AUTO context runs device buffers on cuda.  Without
 *    one these checks skip (WR_TEST_REQUIRE_GPU=1 makes that a failure).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "warpred.h"
#include "tap.h"
#include "testfs.h"
#include "fake_plugin.h"
#ifdef WR_TEST_CUDA
#  include <cuda_runtime_api.h>
#endif

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

static struct api {
    wr_status (*create)(wr_context **, wr_backend);
    void (*destroy)(wr_context *);
    const char *(*error)(const wr_context *);
    const char *(*describe)(const wr_context *);
    int (*has_backend)(const wr_context *, wr_backend);
    wr_backend (*last_backend)(const wr_context *);
    wr_status (*reduce)(wr_context *, const void *, void *, size_t, wr_type, wr_op);
    wr_status (*scan)(wr_context *, const void *, void *, size_t, wr_type, wr_op);
    const char *(*status_string)(wr_status);
} W;

static void resolve(void *lib)
{
#define R(field, name)                                                              \
    do {                                                                            \
        void *p_ = dlsym(lib, name);                                                \
        if (p_ == NULL) bail("dlsym(%s): %s", name, dlerror());                     \
        memcpy(&W.field, &p_, sizeof p_);                                           \
    } while (0)
    R(create, "wr_context_create");
    R(destroy, "wr_context_destroy");
    R(error, "wr_context_error");
    R(describe, "wr_context_describe");
    R(has_backend, "wr_context_has_backend");
    R(last_backend, "wr_context_last_backend");
    R(reduce, "wr_reduce");
    R(scan, "wr_scan");
    R(status_string, "wr_status_string");
#undef R
}

static const int32_t x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };   /* sum 36 */

/* A context of backend b and an int32 SUM of x on it: the status and sum. */
static wr_status reduce_on(wr_backend b, int32_t *sum, char *text, size_t len)
{
    wr_context *ctx = NULL;
    wr_status st = W.create(&ctx, b);
    *sum = 0;
    if (st != WR_SUCCESS) {
        snprintf(text, len, "%s", W.error(NULL));
        return st;
    }
    st = W.reduce(ctx, x, sum, 8, WR_INT32, WR_SUM);
    snprintf(text, len, "%s", st == WR_SUCCESS ? W.describe(ctx) : W.error(ctx));
    W.destroy(ctx);
    return st;
}

static void fakes(void)
{
    char text[1024];
    int32_t sum;
    wr_status st;

    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good"), 1);
    st = reduce_on(WR_BACKEND_CUDA, &sum, text, sizeof text);
    ok(st == WR_SUCCESS && sum == 36 + FAKE_TAG, "the good fake plugin loads into a CUDA context (sum %d, \"%s\")",
       (int)sum, text);

    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_needscore"), 1);
    st = reduce_on(WR_BACKEND_CUDA, &sum, text, sizeof text);
    ok(st == WR_ERR_NO_BACKEND && strstr(text, "undefined symbol") && strstr(text, "wr_type_size"),
       "a plugin that needs a libwarpred symbol is refused with the reason: %s: \"%s\"", W.status_string(st), text);
    st = reduce_on(WR_BACKEND_AUTO, &sum, text, sizeof text);
    ok(st == WR_SUCCESS && sum == 36 && strstr(text, "not loaded") && strstr(text, "wr_type_size"),
       "... and an AUTO context runs on the cpu and says why (\"%s\")", text);
}

/* The real CUDA plugin, if this build has one. */
static int real_plugin(const char *dir)
{
    char path[4096], text[1024];
    struct stat sb;
    int32_t sum;
    wr_status st;

    snprintf(path, sizeof path, "%s/warpred_cuda.so", dir ? dir : "");
    if (dir == NULL || stat(path, &sb) != 0) {
        skip_block(1, "no CUDA plugin built (%s)", dir ? path : "WARPRED_PLUGIN_DIR unset");
        return 0;
    }
    setenv("WARPRED_PLUGIN_DIR", dir, 1);
    st = reduce_on(WR_BACKEND_CUDA, &sum, text, sizeof text);
    ok((st == WR_SUCCESS && sum == 36) ||
       (st == WR_ERR_NO_BACKEND && !strstr(text, "cannot be loaded") && !strstr(text, "undefined symbol") &&
        !strstr(text, "refused") && !strstr(text, "not found") && !strstr(text, "cannot be opened")),
       "the CUDA plugin loads under RTLD_LOCAL: the context opens or its own open() finds no device (%s: \"%s\")",
       W.status_string(st), text);
    return st == WR_SUCCESS;
}

#define N_GPU 4
static void gpu(int cuda_ok)
{
#ifdef WR_TEST_CUDA
    const char *req = getenv("WR_TEST_REQUIRE_GPU");
    int ndev = 0;
    int32_t *d_x = NULL, *d_out = NULL, h[8], sum = 0;
    wr_context *c = NULL, *a = NULL;
    wr_status st;

    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        (void)cudaGetLastError();
        if (req && strcmp(req, "1") == 0) {
            ok(0, "WR_TEST_REQUIRE_GPU=1 but no CUDA device");
            skip_block(N_GPU - 1, "no CUDA device");
        } else {
            skip_block(N_GPU, "no CUDA device");
        }
        return;
    }
    ok(cuda_ok, "a device is present: the CUDA context opened under RTLD_LOCAL");
    if (cudaMalloc((void **)&d_x, sizeof x) != cudaSuccess || cudaMalloc((void **)&d_out, sizeof x) != cudaSuccess ||
        cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice) != cudaSuccess)
        bail("cudaMalloc/cudaMemcpy failed");
    st = W.create(&c, WR_BACKEND_CUDA);
    if (st == WR_SUCCESS) st = W.reduce(c, d_x, &sum, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && sum == 36, "CUDA context: reduce of device memory (%s, sum %d: %s)", W.status_string(st),
       (int)sum, c ? W.error(c) : W.error(NULL));
    st = W.create(&a, WR_BACKEND_AUTO);
    ok(st == WR_SUCCESS && W.has_backend(a, WR_BACKEND_CUDA), "AUTO context has cuda: \"%s\"",
       st == WR_SUCCESS ? W.describe(a) : W.error(NULL));
    if (st == WR_SUCCESS) st = W.scan(a, d_x, d_out, 8, WR_INT32, WR_SUM);
    if (st == WR_SUCCESS && cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) bail("cudaMemcpy");
    ok(st == WR_SUCCESS && W.last_backend(a) == WR_BACKEND_CUDA && h[7] == 36,
       "AUTO context: a scan of device buffers runs on cuda (%s, last %d)", W.status_string(st),
       st == WR_SUCCESS ? (int)h[7] : 0);
    W.destroy(c);
    W.destroy(a);
    cudaFree(d_x);
    cudaFree(d_out);
#else
    (void)cuda_ok;
    skip_block(N_GPU, "built without CUDA");
#endif
}

int main(void)
{
    char libpath[4096], text[1024];
    const char *plugdir = getenv("WARPRED_PLUGIN_DIR");
    char *saved = plugdir ? strdup(plugdir) : NULL;
    int32_t sum;
    wr_status st;
    void *lib;

    unsetenv("WARPRED_BACKEND");
    unsetenv("WR_FAKE_COUNT");
    /* WR_TEST_LIBWARPRED: run the same checks on another build's library */
    if (getenv("WR_TEST_LIBWARPRED") && getenv("WR_TEST_LIBWARPRED")[0])
        snprintf(libpath, sizeof libpath, "%s", getenv("WR_TEST_LIBWARPRED"));
    else
        snprintf(libpath, sizeof libpath, "%s/lib/.libs/libwarpred.so", WR_TEST_BUILDDIR);
    lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) bail("dlopen(%s, RTLD_LOCAL): %s", libpath, dlerror());
    plan(4 + 3 + 1 + N_GPU);
    resolve(lib);
    ok(dlsym(RTLD_DEFAULT, "wr_type_size") == NULL && dlsym(RTLD_DEFAULT, "wr_context_create") == NULL,
       "libwarpred's symbols are not in the global namespace");

    st = reduce_on(WR_BACKEND_CPU, &sum, text, sizeof text);
    ok(st == WR_SUCCESS && sum == 36, "CPU context (%s, sum %d: \"%s\")", W.status_string(st), (int)sum, text);
    unsetenv("WARPRED_PLUGIN_DIR");
    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_nodev"), 1);
    st = reduce_on(WR_BACKEND_AUTO, &sum, text, sizeof text);
    ok(st == WR_SUCCESS && sum == 36, "AUTO context (%s, sum %d: \"%s\")", W.status_string(st), (int)sum, text);
    ok(strcmp(W.status_string((wr_status)12345), "") != 0, "wr_status_string answers for unknown values");

    fakes();
    gpu(real_plugin(saved));
    free(saved);
    return 0;
}

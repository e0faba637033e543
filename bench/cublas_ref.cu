/*
 * cublas_ref.cu -- cuBLAS as the reference of the dot products and norms
 * (warpred-bench, bench/tools/dot_time): cublasSdot/Ddot, Snrm2/Dnrm2,
 * Sasum/Dasum and Isamax/Idamax on the caller's device buffers, in
 * CUBLAS_POINTER_MODE_DEVICE, on the caller's stream.
 *
 * cuBLAS is found at run time (dlopen of libcublas.so.13, .12, .so), not
 * linked: the toolkits this project builds with ship it as a shared
 * library only (no libcublas_static.a), and a link-time dependency would
 * make the installed benchmark need cuBLAS wherever it runs.  Where it is
 * absent the rows that would compare with it say so.  The few entry
 * points are declared here (the stable _v2 ABI: a handle pointer, int
 * status and enums), so no cuBLAS header is needed at build time either.
 */
#include <dlfcn.h>
#include <mutex>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include "bench.h"

namespace {

typedef int (*create_t)(void **);
typedef int (*set_stream_t)(void *, cudaStream_t);
typedef int (*set_mode_t)(void *, int);
typedef int (*dot_t)(void *, int, const void *, int, const void *, int, void *);
typedef int (*one_t)(void *, int, const void *, int, void *);

constexpr int kPointerModeDevice = 1;     /* CUBLAS_POINTER_MODE_DEVICE */

struct cublas {
    std::once_flag once;
    void *handle = nullptr;
    set_stream_t set_stream = nullptr;
    dot_t sdot = nullptr, ddot = nullptr;
    one_t snrm2 = nullptr, dnrm2 = nullptr, sasum = nullptr, dasum = nullptr, isamax = nullptr, idamax = nullptr;
    char why[160] = "";
} lib;

void open_lib()
{
    static const char *const names[] = { "libcublas.so.13", "libcublas.so.12", "libcublas.so" };
    void *h = nullptr;
    for (const char *n : names)
        if ((h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (h == nullptr) {
        snprintf(lib.why, sizeof lib.why, "no cuBLAS (libcublas.so.13/.12 not found)");
        return;
    }
    auto create = (create_t)dlsym(h, "cublasCreate_v2");
    auto mode = (set_mode_t)dlsym(h, "cublasSetPointerMode_v2");
    lib.set_stream = (set_stream_t)dlsym(h, "cublasSetStream_v2");
    lib.sdot = (dot_t)dlsym(h, "cublasSdot_v2");
    lib.ddot = (dot_t)dlsym(h, "cublasDdot_v2");
    lib.snrm2 = (one_t)dlsym(h, "cublasSnrm2_v2");
    lib.dnrm2 = (one_t)dlsym(h, "cublasDnrm2_v2");
    lib.sasum = (one_t)dlsym(h, "cublasSasum_v2");
    lib.dasum = (one_t)dlsym(h, "cublasDasum_v2");
    lib.isamax = (one_t)dlsym(h, "cublasIsamax_v2");
    lib.idamax = (one_t)dlsym(h, "cublasIdamax_v2");
    if (!create || !mode || !lib.set_stream || !lib.sdot || !lib.ddot || !lib.snrm2 || !lib.dnrm2 || !lib.sasum ||
        !lib.dasum || !lib.isamax || !lib.idamax) {
        snprintf(lib.why, sizeof lib.why, "cuBLAS lacks an entry point this benchmark calls");
        return;
    }
    void *handle = nullptr;
    int st = create(&handle);
    if (st == 0) st = mode(handle, kPointerModeDevice);
    if (st != 0) {
        snprintf(lib.why, sizeof lib.why, "cublasCreate/SetPointerMode: status %d", st);
        return;
    }
    lib.handle = handle;
}

} /* namespace */

extern "C" int bcu_cublas_available(char *why, size_t len)
{
    std::call_once(lib.once, open_lib);
    if (lib.handle) return 0;
    if (why && len) snprintf(why, len, "%s", lib.why);
    return -1;
}

extern "C" int bcu_cublas_run(void *arg, char *err)
{
    const struct bcu_blas_call *c = (const struct bcu_blas_call *)arg;
    if (bcu_cublas_available(err, WR_BENCH_ERRLEN)) return -1;
    if (c->n > 0x7fffffff) {
        snprintf(err, WR_BENCH_ERRLEN, "cuBLAS takes at most 2^31 - 1 elements (int n)");
        return -1;
    }
    const int n = (int)c->n, d = c->type == WR_DOUBLE;
    int st = lib.set_stream(lib.handle, (cudaStream_t)c->stream);
    if (st == 0) {
        switch (c->f) {
        case BCU_DOT: st = (d ? lib.ddot : lib.sdot)(lib.handle, n, c->x, 1, c->y, 1, c->d_out); break;
        case BCU_NRM2: st = (d ? lib.dnrm2 : lib.snrm2)(lib.handle, n, c->x, 1, c->d_out); break;
        case BCU_ASUM: st = (d ? lib.dasum : lib.sasum)(lib.handle, n, c->x, 1, c->d_out); break;
        case BCU_IAMAX: st = (d ? lib.idamax : lib.isamax)(lib.handle, n, c->x, 1, c->d_out); break;
        }
    }
    if (st != 0) {
        snprintf(err, WR_BENCH_ERRLEN, "cuBLAS call: status %d", st);
        return -1;
    }
    return 0;
}

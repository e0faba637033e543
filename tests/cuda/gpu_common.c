/* gpu_common.c -- see gpu_common.h. */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <execinfo.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "gpu_common.h"
#include "tap.h"

const char *const res_name[RES_COUNT] = { "device", "pinned", "pageable", "managed" };
const char *const type_name[6] = { "int32", "int64", "uint32", "uint64", "float", "double" };
const char *const op_name[7] = { "SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR" };

#define CK(call) GPU_CK(call)

/* A crash in a GPU test (host side) ends the TAP stream with the signal, the
 * faulting address and a backtrace, so a log from a remote machine or from
 * under compute-sanitizer says where it happened.  Async-signal-safe calls
 * only; the default action then runs. */
static void crash_report(int sig, siginfo_t *si, void *uc)
{
    char msg[96];
    (void)uc;
    int len = snprintf(msg, sizeof msg, "\nBail out! signal %d at address %p\n", sig, si ? si->si_addr : NULL);
    if (len > 0) (void)!write(1, msg, (size_t)len);
#if defined(__GLIBC__)
    void *frames[32];
    backtrace_symbols_fd(frames, backtrace(frames, 32), 1);
#endif
    signal(sig, SIG_DFL);
    raise(sig);
}

static struct timespec t_start;

double test_elapsed(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t_start.tv_sec) + 1e-9 * (double)(t.tv_nsec - t_start.tv_nsec);
}

static void report_elapsed(void)
{
    diag("elapsed %.1f s", test_elapsed());
}

int test_large(void)
{
    const char *v = getenv("WR_TEST_LARGE");
    return v && strcmp(v, "1") == 0;
}

void gpu_require(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_report;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    const char *req = getenv("WR_TEST_REQUIRE_GPU");
    if (e == cudaSuccess && n > 0) {
        clock_gettime(CLOCK_MONOTONIC, &t_start);
        atexit(report_elapsed);
        return;
    }
    if (req && strcmp(req, "1") == 0)
        bail("WR_TEST_REQUIRE_GPU=1 but no CUDA device: %s",
             e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    skip_all("no CUDA device");
}

size_t test_max_n(size_t dflt)
{
    const char *v = getenv("WR_TEST_MAX_N");
    if (v && *v) {
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        if (*end == '\0') return (size_t)x;
    }
    return dflt;
}

void *res_alloc(enum res r, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 16;
    switch (r) {
    case RES_DEVICE:   CK(cudaMalloc(&p, bytes)); break;
    case RES_PINNED:   CK(cudaMallocHost(&p, bytes)); break;
    case RES_MANAGED:  CK(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)); break;
    case RES_PAGEABLE:
    default:
        p = malloc(bytes);
        if (p == NULL) bail("malloc(%zu) failed", bytes);
        break;
    }
    return p;
}

void res_free(enum res r, void *p)
{
    if (p == NULL) return;
    switch (r) {
    case RES_DEVICE:
    case RES_MANAGED:  CK(cudaFree(p)); break;
    case RES_PINNED:   CK(cudaFreeHost(p)); break;
    default:           free(p); break;
    }
}

/* The host touches managed memory only with the device idle (some tools and
 * devices have no concurrent managed access). */
static void host_access(enum res r)
{
    if (r == RES_MANAGED) CK(cudaDeviceSynchronize());
}

void res_put(enum res r, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return;
    host_access(r);
    if (r == RES_DEVICE) CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    else memcpy(dst, src, bytes);
}

void res_get(enum res r, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return;
    host_access(r);
    if (r == RES_DEVICE) CK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    else memcpy(dst, src, bytes);
}

void res_poison(enum res r, void *p, size_t bytes, int b)
{
    if (bytes == 0) return;
    host_access(r);
    if (r == RES_DEVICE) CK(cudaMemset(p, b, bytes));
    else memset(p, b, bytes);
}

void gpu_mem(size_t *free_b, size_t *total_b)
{
    CK(cudaMemGetInfo(free_b, total_b));
}

uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int same_elem(wr_type t, const void *a, const void *b)
{
    if (t == WR_FLOAT) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) && isnan(y)) return 1;
    } else if (t == WR_DOUBLE) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) && isnan(y)) return 1;
    }
    return memcmp(a, b, wr_type_size(t)) == 0;
}

const char *elem_str(wr_type t, const void *p, size_t i, char *buf, size_t len)
{
    const char *c = (const char *)p + i * wr_type_size(t);
    switch (t) {
    case WR_INT32:  { int32_t v;  memcpy(&v, c, 4); snprintf(buf, len, "%" PRId32, v); break; }
    case WR_INT64:  { int64_t v;  memcpy(&v, c, 8); snprintf(buf, len, "%" PRId64, v); break; }
    case WR_UINT32: { uint32_t v; memcpy(&v, c, 4); snprintf(buf, len, "%" PRIu32, v); break; }
    case WR_UINT64: { uint64_t v; memcpy(&v, c, 8); snprintf(buf, len, "%" PRIu64, v); break; }
    case WR_FLOAT:  { float v;    memcpy(&v, c, 4); snprintf(buf, len, "%.9g", (double)v); break; }
    case WR_DOUBLE: { double v;   memcpy(&v, c, 8); snprintf(buf, len, "%.17g", v); break; }
    default: snprintf(buf, len, "?"); break;
    }
    return buf;
}

/*
 * hoststream_demo.c -- reduce and scan a host array far larger than the
 * library's device footprint: the CUDA backend streams host memory through
 * its staging buffers, so the device memory it holds does not grow with the
 * array.
 *
 *   hoststream_demo [GiB]     (default 32; or WR_DEMO_GIB)
 *
 * Makes a pageable array of GiB gibibytes of uint64 x[i] = i % 1000, reduces
 * it (SUM) and scans it in place (inclusive SUM) on an explicit CUDA context,
 * checks both against closed forms (every scan element), and prints the
 * device memory in use, from cudaMemGetInfo, before the context exists and at
 * its peak while the calls run (a second thread samples it every 2 ms).
 * Exit status 0 when both results are right and the library held less than
 * 1 GiB of device memory.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "warpred.h"

static volatile int sampling = 1;
static size_t min_free = (size_t)-1;

static void *sampler(void *arg)
{
    (void)arg;
    while (sampling) {
        size_t f, t;
        if (cudaMemGetInfo(&f, &t) == cudaSuccess && f < min_free) min_free = f;
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* sum_{k=0}^{n-1} (k % 1000) */
static uint64_t closed(uint64_t n)
{
    uint64_t q = n / 1000, r = n % 1000;
    return q * 499500u + r * (r - 1) / 2 * (r > 0);
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : getenv("WR_DEMO_GIB");
    const double gib = g ? atof(g) : 32.0;
    const size_t n = (size_t)(gib * (double)(1u << 30)) / 8;
    size_t free0, total, free1;
    int fail = 0;

    unsetenv("WARPRED_BACKEND");
    if (cudaMemGetInfo(&free0, &total) != cudaSuccess) {
        printf("no CUDA device: nothing to show\n");
        return 77;
    }
    printf("device memory: %.1f GiB total, %.3f GiB in use before the context\n", total / 1073741824.0,
           (total - free0) / 1073741824.0);
    uint64_t *x = malloc(n * sizeof *x);
    if (x == NULL) {
        printf("cannot allocate %.1f GiB of host memory\n", gib);
        return 1;
    }
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = i % 1000;
    printf("host array: %zu uint64 = %.2f GiB pageable memory (filled in %.1f s)\n", n, n * 8 / 1073741824.0,
           now() - t0);

    wr_context *ctx;
    if (wr_context_create(&ctx, WR_BACKEND_CUDA) != WR_SUCCESS) {
        printf("cuda context: %s\n", wr_context_error(NULL));
        return 1;
    }
    printf("context: %s\n", wr_context_describe(ctx));
    pthread_t th;
    pthread_create(&th, NULL, sampler, NULL);

    uint64_t sum = 0;
    t0 = now();
    wr_status st = wr_reduce(ctx, x, &sum, n, WR_UINT64, WR_SUM);
    double tr = now() - t0;
    printf("wr_reduce SUM: %s, %.2f s, %.2f GB/s; result %llu, expected %llu: %s\n", wr_status_string(st), tr,
           n * 8 / tr / 1e9, (unsigned long long)sum, (unsigned long long)closed(n),
           st == WR_SUCCESS && sum == closed(n) ? "right" : "WRONG");
    fail |= st != WR_SUCCESS || sum != closed(n);

    t0 = now();
    st = wr_scan(ctx, x, x, n, WR_UINT64, WR_SUM);
    double ts = now() - t0;
    size_t bad = 0, first_bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (size_t i = 0; i < n; i++)
        if (x[i] != closed(i + 1)) bad++;
    if (bad)
        for (first_bad = 0; first_bad < n && x[first_bad] == closed(first_bad + 1); first_bad++) {}
    printf("wr_scan SUM in place: %s, %.2f s, %.2f GB/s (read + write); %zu wrong elements%s\n",
           wr_status_string(st), ts, 2.0 * n * 8 / ts / 1e9, bad, bad ? " (see below)" : ", every element checked");
    if (bad) printf("first wrong element: %zu\n", first_bad);
    fail |= st != WR_SUCCESS || bad != 0;

    sampling = 0;
    pthread_join(th, NULL);
    cudaMemGetInfo(&free1, &total);
    const double peak = min_free == (size_t)-1 ? 0 : (free0 > min_free ? (double)(free0 - min_free) : 0);
    printf("device memory held by the library: peak %.1f MiB while the calls ran, %.1f MiB after them "
           "(array: %.1f GiB)\n", peak / 1048576.0, (free0 > free1 ? (double)(free0 - free1) : 0) / 1048576.0,
           n * 8 / 1073741824.0);
    fail |= peak >= 1073741824.0;
    wr_context_destroy(ctx);
    free(x);
    printf("%s\n", fail ? "FAIL" : "PASS");
    return fail;
}

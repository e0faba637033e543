/*
 * big.c -- DESIGN.md: "count is size_t and works past 2^31".  2^31 + 7
 * uint32 elements (8 GiB): reduce SUM (which wraps many times) and MAX,
 * argmax of a value planted twice near the end (the first one wins), and an
 * in-place inclusive scan checked at EVERY position, the last one included:
 * out[0] = in[0] and out[i] - out[i-1] = in[i] (mod 2^32) for every i is the
 * same as every prefix being right, and it checks in parallel.  The reduce
 * SUM must then equal the verified out[N-1].
 *
 * The program checks /proc/meminfo (MemAvailable) first and skips itself
 * with a reason only when the machine has too little memory; a 24 GiB CI
 * machine runs it, also under AddressSanitizer (whose shadow adds 1/8), but
 * not under ThreadSanitizer (whose shadow adds 4 times as much).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#  define WR_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define WR_ASAN 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__)
#  define WR_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define WR_TSAN 1
#  endif
#endif

#define N (((size_t)1 << 31) + 7)
#define MAXPOS (N - 3)          /* the planted maximum, planted again at N - 1 */
#define BIGMAX UINT32_C(0xFFFFFFF0)

/* Element i before planting: 1..256, cheap to recompute. */
static inline uint32_t value(size_t i)
{
    uint32_t h = (uint32_t)(i ^ (i >> 17)) * UINT32_C(0x9E3779B1);
    return 1 + (h >> 24);
}

static inline uint32_t planted(size_t i)
{
    if (i == MAXPOS || i == N - 1) return BIGMAX;
    if (i == 5 || i == ((size_t)1 << 31)) return BIGMAX - 1;   /* a near-maximum early on must not win */
    return value(i);
}

/* Seconds since the previous call, for a diagnostic per phase. */
static double lap(void)
{
    static struct timespec last;
    struct timespec now;
    double d;
    clock_gettime(CLOCK_MONOTONIC, &now);
    d = (double)(now.tv_sec - last.tv_sec) + 1e-9 * (double)(now.tv_nsec - last.tv_nsec);
    last = now;
    return d;
}

/* MemAvailable in bytes, 0 if unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

int main(void)
{
    const uint64_t gib = (uint64_t)1 << 30;
    uint64_t need = (uint64_t)N * 4 + gib, have = mem_available();
    uint32_t *a, sum = 0, mx = 0, v = 0;
    size_t i, idx = 0, bad = 0, first_bad = N;
    wr_context *ctx;
    wr_status st;

#ifdef WR_ASAN
    need += (uint64_t)N * 4 / 8;   /* shadow memory */
#endif
#ifdef WR_TSAN
    /* ThreadSanitizer shadows every 8 bytes with 32: 8 GiB would need 40,
     * which MemAvailable does not know about.  The other builds run it. */
    skip_all("ThreadSanitizer build: 8 GiB would need about 40 GiB with its shadow memory");
#endif
    if (have == 0)
        skip_all("cannot read MemAvailable from /proc/meminfo");
    if (have < need)
        skip_all("need %.1f GiB, have %.1f", (double)need / (double)gib, (double)have / (double)gib);
    a = (uint32_t *)malloc(N * sizeof *a);
    if (a == NULL)
        skip_all("need %.1f GiB, have %.1f, but malloc of %.1f GiB failed", (double)need / (double)gib,
                 (double)have / (double)gib, (double)(N * 4) / (double)gib);

    plan(4);
    ctx = tu_context(WR_BACKEND_AUTO);
    diag("%zu uint32 elements (%.2f GiB); %s", N, (double)(N * 4) / (double)gib, wr_context_describe(ctx));

    lap();
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (i = 0; i < N; i++) a[i] = planted(i);
    diag("fill: %.1f s", lap());

    st = wr_reduce(ctx, a, &sum, N, WR_UINT32, WR_SUM);
    if (st != WR_SUCCESS) diag("wr_reduce SUM: %s: %s", wr_status_string(st), wr_context_error(ctx));
    diag("wr_reduce SUM: %.1f s", lap());
    st = wr_reduce(ctx, a, &mx, N, WR_UINT32, WR_MAX);
    diag("wr_reduce MAX: %.1f s", lap());
    is_uint(BIGMAX, st == WR_SUCCESS ? mx : 0, "wr_reduce MAX over 2^31 + 7 finds the planted maximum");
    st = wr_argmax(ctx, a, N, WR_UINT32, &idx, &v);
    diag("wr_argmax: %.1f s", lap());
    ok(st == WR_SUCCESS && idx == MAXPOS && v == BIGMAX,
       "wr_argmax: index %zu (want %zu, the first of two near the end), value 0x%" PRIx32, idx, (size_t)MAXPOS, v);

    st = wr_scan(ctx, a, a, N, WR_UINT32, WR_SUM);
    diag("wr_scan: %.1f s", lap());
    if (st != WR_SUCCESS) diag("wr_scan: %s: %s", wr_status_string(st), wr_context_error(ctx));
    if (a[0] != planted(0)) bad = 1, first_bad = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : first_bad)
#endif
    for (i = 1; i < N; i++)
        if ((uint32_t)(a[i] - a[i - 1]) != planted(i)) {
            bad++;
            if (i < first_bad) first_bad = i;
        }
    diag("check: %.1f s", lap());
    if (!ok(st == WR_SUCCESS && bad == 0, "wr_scan in place over 2^31 + 7: every prefix is right, out[%zu] = %" PRIu32,
            N - 1, a[N - 1]))
        diag("    %zu wrong, first out[%zu] = %" PRIu32, bad, first_bad, first_bad < N ? a[first_bad] : 0);
    is_uint(a[N - 1], sum, "wr_reduce SUM over 2^31 + 7 (wraps mod 2^32) equals the checked total");

    free(a);
    wr_context_destroy(ctx);
    return 0;
}

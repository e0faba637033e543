/*
 * big.c -- DESIGN.md: "count is size_t and works past 2^31".  2^31 + 7
 * uint32 elements (8 GiB): reduce SUM (which wraps many times) and MAX,
 * argmax of a value planted twice near the end (the first one wins), argmin
 * of a zero planted past index 2^31, two segments whose boundary and end lie
 * past 2^31, and an in-place inclusive scan checked against a running serial
 * reference at EVERY position, the last one included.
 *
 * The program checks /proc/meminfo (MemAvailable) first and skips itself
 * with a reason only when the machine has too little memory; a 24 GiB CI
 * machine runs it, also under AddressSanitizer (whose shadow adds 1/8).
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

#define N (((size_t)1 << 31) + 7)
#define MAXPOS (N - 3)          /* the planted maximum, planted again at N - 1 */
#define MINPOS (((size_t)1 << 31) + 1)   /* the only zero */
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
    if (i == MINPOS) return 0;
    if (i == 5) return BIGMAX - 1;   /* a near-maximum early on must not win */
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
    uint32_t *a, sum = 0, mx = 0, v = 0, ref = 0, prefix3 = 0, seg[2] = { 0, 0 };
    size_t i, idx = 0, off[3] = { 0, 3, N }, bad = 0, first_bad = 0;
    wr_context *ctx;
    wr_status st;

#ifdef WR_ASAN
    need += (uint64_t)N * 4 / 8;   /* shadow memory */
#endif
    if (have == 0)
        skip_all("cannot read MemAvailable from /proc/meminfo");
    if (have < need)
        skip_all("need %.1f GiB, have %.1f", (double)need / (double)gib, (double)have / (double)gib);
    a = (uint32_t *)malloc(N * sizeof *a);
    if (a == NULL)
        skip_all("need %.1f GiB, have %.1f, but malloc of %.1f GiB failed", (double)need / (double)gib,
                 (double)have / (double)gib, (double)(N * 4) / (double)gib);

    plan(7);
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
    ok(st == WR_SUCCESS && idx == MAXPOS && v == BIGMAX,
       "wr_argmax: index %zu (want %zu, the first of two near the end), value 0x%" PRIx32, idx, (size_t)MAXPOS, v);
    diag("wr_argmax: %.1f s", lap());
    st = wr_argmin(ctx, a, N, WR_UINT32, &idx, &v);
    diag("wr_argmin: %.1f s", lap());
    ok(st == WR_SUCCESS && idx == MINPOS && v == 0, "wr_argmin: index %zu (want %zu, past 2^31), value %" PRIu32,
       idx, (size_t)MINPOS, v);
    st = wr_reduce_segments(ctx, a, seg, 2, off, WR_UINT32, WR_SUM);
    if (st != WR_SUCCESS) diag("wr_reduce_segments: %s: %s", wr_status_string(st), wr_context_error(ctx));

    /* in place; then one serial pass checks every prefix and rebuilds the sums */
    diag("wr_reduce_segments: %.1f s", lap());
    st = wr_scan(ctx, a, a, N, WR_UINT32, WR_SUM);
    diag("wr_scan: %.1f s", lap());
    if (st != WR_SUCCESS) diag("wr_scan: %s: %s", wr_status_string(st), wr_context_error(ctx));
    for (i = 0; i < N; i++) {
        ref += planted(i);
        if (a[i] != ref && bad++ == 0) first_bad = i;
        if (i == 2) prefix3 = ref;
    }
    diag("serial check: %.1f s", lap());
    if (!ok(st == WR_SUCCESS && bad == 0, "wr_scan in place over 2^31 + 7: every prefix matches, out[%zu] = %" PRIu32,
            N - 1, a[N - 1]))
        diag("    %zu wrong, first out[%zu] = %" PRIu32, bad, first_bad, a[first_bad]);
    is_uint(ref, sum, "wr_reduce SUM over 2^31 + 7 (wraps mod 2^32) matches the serial reference");
    is_uint(prefix3, seg[0], "wr_reduce_segments: segment [0, 3)");
    is_uint((uint32_t)(ref - prefix3), seg[1], "wr_reduce_segments: segment [3, 2^31 + 7)");

    free(a);
    wr_context_destroy(ctx);
    return 0;
}

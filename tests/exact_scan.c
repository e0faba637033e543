/*
 * exact_scan.c -- reproducible float/double SUM scans (WR_FLOAT_REPRODUCIBLE)
 * on the cpu backend: every output of wr_scan and wr_exscan, out of place
 * and in place, with 1, 2, 3 and 7 threads, must be the exact prefix sum
 * rounded once -- the bits of the exact reference (exact_ref.c, MPFR) --
 * and so the same bits with every thread count.  wr_scan_exact and
 * wr_exscan_exact continue a scan from a wr_exact_sum.
 *
 * Data: adversarial sequences (massive cancellation, mixed exponents,
 * subnormals, ties, overflow and its undoing, signed zeros, infinities and
 * NaNs), each alone and planted at several places, piece boundaries of
 * every thread count among them, in random data long enough for the whole
 * team; random data at sizes 1 to 2^20+3.  Without MPFR only the agreement
 * between thread counts and with wr_scan_exact is checked.
 */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "exact_ref.h"
#include "testutil.h"

static wr_context *ctx;
static tu_rng rng;
static const int thread_counts[] = { 1, 2, 3, 7 };
#define NTC ((int)(sizeof thread_counts / sizeof thread_counts[0]))

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* ref[i] = the reference of x[0..i] for i in checked positions (every i
 * when every_n is 1, else every every_n-th and the last 64); the others
 * are left as they are.  Exclusive outputs are ref[i - 1], and +0 first. */
static void reference(const void *x, size_t n, wr_type t, void *ref, size_t every_n)
{
    tx_acc a;
    size_t i;
    tx_init(&a);
    for (i = 0; i < n; i++) {
        tx_add_f(&a, x, t, i);
        if (i % every_n == 0 || i + 64 >= n || i + 1 == n)
            tx_result(&a, t, (char *)ref + i * tu_size(t));
    }
}

static int checked(size_t i, size_t n, size_t every_n)
{
    return i % every_n == 0 || i + 64 >= n || i + 1 == n;
}

/* The first difference of got from want at positions a test compares (the
 * reference's when ref_only, else all), or SIZE_MAX. */
static size_t first_diff(const void *got, const void *want, size_t n, wr_type t, int exclusive, size_t every_n,
                         int ref_only)
{
    static const unsigned char zero[8];
    const size_t w = tu_size(t);
    size_t i;
    for (i = 0; i < n; i++) {
        const void *g = (const char *)got + i * w, *r;
        if (ref_only) {
            if (exclusive) {
                if (i > 0 && !checked(i - 1, n, every_n)) continue;
                r = i == 0 ? (const void *)zero : (const char *)want + (i - 1) * w;
            } else {
                if (!checked(i, n, every_n)) continue;
                r = (const char *)want + i * w;
            }
        } else {
            r = (const char *)want + i * w;
        }
        if (memcmp(g, r, w) != 0) return i;
    }
    return SIZE_MAX;
}

/* Scan x[0..n) both ways, out of place and in place, with every thread
 * count: the reference's bits, and the same bits everywhere. */
static void check_scan(tu_tally *tl, const char *what, const void *x, size_t n, wr_type t, size_t every_n)
{
    const size_t w = tu_size(t);
    void *ref = tu_xmalloc(n * w + 8), *got = tu_xmalloc(n * w + 8), *first[2];
    char b1[64], b2[64];
    int k, ex, inplace;
    first[0] = tu_xmalloc(n * w + 8);
    first[1] = tu_xmalloc(n * w + 8);
    if (have_ref()) reference(x, n, t, ref, every_n);
    for (k = 0; k < NTC; k++) {
        set_threads(thread_counts[k]);
        for (ex = 0; ex < 2; ex++)
            for (inplace = 0; inplace < 2; inplace++) {
                const char *fn = ex ? "wr_exscan" : "wr_scan";
                wr_status st;
                size_t d;
                if (inplace) memcpy(got, x, n * w);
                else memset(got, 0xA5, n * w);
                st = ex ? wr_exscan(ctx, inplace ? got : x, got, n, t, WR_SUM)
                        : wr_scan(ctx, inplace ? got : x, got, n, t, WR_SUM);
                tu_expect(tl, st == WR_SUCCESS, "%s: %s: %s", what, fn, wr_context_error(ctx));
                if (k == 0 && !inplace) {
                    memcpy(first[ex], got, n * w);
                } else {
                    d = first_diff(got, first[ex], n, t, ex, 1, 0);
                    tu_expect(tl, d == SIZE_MAX, "%s: %s%s with %d threads: out[%zu] = %s, 1 thread %s", what, fn,
                              inplace ? " in place" : "", thread_counts[k], d,
                              d == SIZE_MAX ? "" : tu_fmt_bits((char *)got + d * w, t, b1, sizeof b1),
                              d == SIZE_MAX ? "" : tu_fmt_bits((char *)first[ex] + d * w, t, b2, sizeof b2));
                }
                if (have_ref() && k == 0 && !inplace) {
                    d = first_diff(got, ref, n, t, ex, every_n, 1);
                    tu_expect(tl, d == SIZE_MAX, "%s (%zu %s): %s out[%zu] = %s, exact %s", what, n,
                              tu_type_name(t), fn, d,
                              d == SIZE_MAX ? "" : tu_fmt_bits((char *)got + d * w, t, b1, sizeof b1),
                              d == SIZE_MAX ? ""
                                            : tu_fmt_bits((char *)ref + (ex ? d - 1 : d) * w, t, b2, sizeof b2));
                }
            }
    }
    set_threads(thread_counts[2]);
    /* continued from an exact sum of a prefix: the tail of the whole scan */
    if (n > 1) {
        const size_t cut = (size_t)tu_below(&rng, n);
        wr_exact_sum base;
        tu_expect(tl, wr_exact_sum_init(&base) == WR_SUCCESS &&
                      wr_reduce_exact(ctx, x, cut, t, &base) == WR_SUCCESS, "%s: exact sum of %zu: %s", what, cut,
                  wr_context_error(ctx));
        for (ex = 0; ex < 2; ex++) {
            size_t d;
            memset(got, 0xA5, n * w);
            tu_expect(tl, (ex ? wr_exscan_exact : wr_scan_exact)(ctx, (const char *)x + cut * w, got, n - cut, t,
                                                                  &base) == WR_SUCCESS,
                      "%s: %s: %s", what, ex ? "wr_exscan_exact" : "wr_scan_exact", wr_context_error(ctx));
            d = first_diff(got, (char *)first[ex] + cut * w, n - cut, t, ex, 1, 0);
            tu_expect(tl, d == SIZE_MAX, "%s: %s from the exact sum of %zu elements differs at %zu", what,
                      ex ? "wr_exscan_exact" : "wr_scan_exact", cut, d == SIZE_MAX ? 0 : cut + d);
        }
    }
    free(ref);
    free(got);
    free(first[0]);
    free(first[1]);
}

/* ---- adversarial sequences ----------------------------------------------------------------- */

struct scase {
    const char *name;
    int n;
    double v[10];
};

static const struct scase cases[] = {
    { "1e30 + 1 - 1e30", 4, { 1e30, 1, -1e30, 1 } },
    { "1e308 + 1 - 1e308", 4, { 1e308, 1, -1e308, -1 } },
    { "mixed exponents", 8, { 0x1p100, 0x1p-100, 0x1p50, -0x1p100, 0x1p-60, -0x1p50, 3, -0x1p-100 } },
    { "small first, then large", 5, { 0x1p-1000, 1e300, 0x1p-30, -1e300, 1 } },
    { "tie then above", 4, { 1, 0x1p-53, 0x1p-1074, -0x1p-1074 } },
    { "ties to even both ways", 4, { 1, 0x1p-53, 0x1p-52, 0x1p-53 } },
    { "float ties", 4, { 1, 0x1p-24, 0x1p-23, 0x1p-149 } },
    { "subnormals", 6, { 0x1p-1074, 0x1.8p-1060, -0x1p-1073, 0x1.fffffffffffffp-1023, 0x1p-1074, -0x1p-1022 } },
    { "float subnormals", 5, { 0x1p-149, 0x1.8p-140, -0x1p-148, 0x1.fffffcp-127, 0x1p-149 } },
    { "overflow and back", 4, { 1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308, -1e308 } },
    { "float overflow and back", 4, { 0x1.fffffep127, 0x1.fffffep127, -0x1.fffffep127, 1 } },
    { "max + half ulp", 3, { 1.7976931348623157e308, 0x1p970, -0x1p-1074 } },
    { "signed zeros", 6, { -0.0, -0.0, 0.0, -0.0, 1, -1 } },
    { "+inf then -inf", 4, { 1, INFINITY, 2, -INFINITY } },
    { "-inf", 3, { -INFINITY, 1e308, 1e308 } },
    { "NaN", 3, { 1, NAN, 2 } },
};

static void run_case(tu_tally *tl, const struct scase *c, wr_type t)
{
    /* long enough for every thread count to split it; the planted copies
     * land at piece boundaries of 2, 3 and 7 threads and elsewhere */
    const size_t n = 40009, w = tu_size(t);
    const size_t at[] = { 0, n / 7 - 2, n / 3 - 1, n / 2 - 3, 2 * n / 3, n - 10 };
    void *x = tu_xmalloc(n * w + 8);
    char what[160];
    size_t i, p;
    int special = 0;
    for (i = 0; i < (size_t)c->n; i++) special |= !isfinite(c->v[i]);
    for (i = 0; i < (size_t)c->n; i++) tu_set_f(x, t, i, c->v[i]);
    snprintf(what, sizeof what, "%s (%s)", c->name, tu_type_name(t));
    check_scan(tl, what, x, (size_t)c->n, t, 1);
    /* planted among pairs of random values that cancel */
    for (i = 0; i + 1 < n; i += 2) {
        const double r = ldexp(tu_unit(&rng) + 0.5, (int)tu_below(&rng, 60) - 30);
        tu_set_f(x, t, i, r);
        tu_set_f(x, t, i + 1, -(t == WR_FLOAT ? (double)(float)r : r));
    }
    tu_set_f(x, t, n - 1, 0.25);
    for (p = 0; p < sizeof at / sizeof at[0]; p++) {
        if (special && p != 3) continue;          /* an infinity or NaN rules all that follows */
        for (i = 0; i < (size_t)c->n; i++) tu_set_f(x, t, at[p] + i, c->v[i]);
    }
    snprintf(what, sizeof what, "%s planted in %zu elements (%s)", c->name, n, tu_type_name(t));
    check_scan(tl, what, x, n, t, 1);
    free(x);
}

/* -0 repeated: every prefix is -0, until a +0 comes. */
static void run_zeros(tu_tally *tl, wr_type t)
{
    const size_t n = 50000;
    void *x = tu_xmalloc(n * tu_size(t));
    size_t i;
    for (i = 0; i < n; i++) tu_set_f(x, t, i, -0.0);
    check_scan(tl, "-0 everywhere", x, n, t, 1);
    tu_set_f(x, t, n / 2, 0.0);
    check_scan(tl, "-0 everywhere but one +0", x, n, t, 1);
    free(x);
}

/* Every exponent, random signs: prefixes that need far more than two doubles. */
static void run_every_exponent(tu_tally *tl, wr_type t)
{
    const int lo = t == WR_FLOAT ? -149 : -1074, hi = t == WR_FLOAT ? 127 : 1023;
    const size_t n = (size_t)(hi - lo + 1) * 40;
    void *x = tu_xmalloc(n * 8);
    size_t i;
    for (i = 0; i < n; i++) {
        double v = ldexp(1 + tu_unit(&rng), lo + (int)tu_below(&rng, (uint64_t)(hi - lo)));
        if (tu_rand(&rng) & 1) v = -v;
        tu_set_f(x, t, i, v);
    }
    check_scan(tl, "random exponents over the whole range", x, n, t, 1);
    free(x);
}

/* ---- random data ------------------------------------------------------------------------------ */

static void run_random(tu_tally *tl, wr_type t)
{
    static const size_t sizes[] = { 1, 2, 31, 4097, 40000, ((size_t)1 << 20) + 3 };
    size_t si, i;
    int d;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        void *x = tu_xmalloc(n * tu_size(t) + 8);
        for (d = 0; d < 3; d++) {
            char what[80];
            for (i = 0; i < n; i++) {
                double v = tu_unit(&rng);
                if (d == 1) v = 2 * v - 1;
                if (d == 2) v = ldexp(2 * v - 1, (int)tu_below(&rng, 80) - 40);
                tu_set_f(x, t, i, v);
            }
            snprintf(what, sizeof what, "%s, %zu elements",
                     d == 0 ? "uniform [0,1)" : d == 1 ? "uniform [-1,1)" : "wide range", n);
            check_scan(tl, what, x, n, t, n > 50000 ? 997 : 1);
        }
        free(x);
    }
}

/* ---- the API ---------------------------------------------------------------------------------- */

static void run_api(void)
{
    wr_context *fast = NULL;
    wr_exact_sum base, bad;
    float x[4] = { 1e30f, 1, -1e30f, 2 }, out[4];
    double dx[3] = { 1e308, 1, -1e308 }, dout[3];
    int32_t iv[2] = { 1, 2 }, iout[2];
    ok(wr_scan(ctx, x, out, 4, WR_FLOAT, WR_SUM) == WR_SUCCESS && out[0] == 1e30f && out[1] == 1e30f &&
       out[2] == 1 && out[3] == 3, "reproducible float scan: 1e30, 1e30, 1, 3");
    ok(wr_exscan(ctx, dx, dout, 3, WR_DOUBLE, WR_SUM) == WR_SUCCESS && dout[0] == 0 && !signbit(dout[0]) &&
       dout[1] == 1e308 && dout[2] == 1e308, "reproducible double exscan: +0, 1e308, 1e308");
    ok(wr_scan(ctx, iv, iout, 2, WR_INT32, WR_SUM) == WR_SUCCESS && iout[1] == 3, "integer scans are unchanged");
    ok(wr_context_create(&fast, WR_BACKEND_CPU) == WR_SUCCESS && wr_context_float_mode(fast) == WR_FLOAT_FAST,
       "a fast context");
    ok(wr_scan_exact(fast, x, out, 4, WR_FLOAT, NULL) == WR_SUCCESS && out[2] == 1 && out[3] == 3,
       "wr_scan_exact is exact on a fast context too");
    wr_exact_sum_init(&base);
    ok(wr_reduce_exact(fast, x, 2, WR_FLOAT, &base) == WR_SUCCESS &&
       wr_exscan_exact(fast, x + 2, out, 2, WR_FLOAT, &base) == WR_SUCCESS && out[0] == 1e30f && out[1] == 1,
       "wr_exscan_exact from the exact sum of 1e30 + 1: 1e30, 1");
    ok(wr_scan_exact(fast, iv, iout, 2, WR_INT32, NULL) == WR_ERR_UNSUPPORTED &&
       tu_mentions(wr_context_error(fast), "int32"), "wr_scan_exact of int32: WR_ERR_UNSUPPORTED");
    memset(&bad, 0xA5, sizeof bad);
    out[0] = 7;
    ok(wr_scan_exact(fast, x, out, 4, WR_FLOAT, &bad) == WR_ERR_INVALID_ARG && out[0] == 7 &&
       tu_mentions(wr_context_error(fast), "base"), "a garbage base: WR_ERR_INVALID_ARG, out untouched");
    ok(wr_scan_exact(fast, x, out, 0, WR_FLOAT, &base) == WR_SUCCESS, "0 elements");
    ok(wr_scan_exact(fast, NULL, out, 4, WR_FLOAT, NULL) == WR_ERR_INVALID_ARG, "in NULL: WR_ERR_INVALID_ARG");
    ok(wr_scan_exact(fast, x, x, 4, WR_FLOAT, &base) == WR_SUCCESS && x[0] == 2e30f,
       "in place from a base: 1e30 + 1 + 1e30");
    wr_context_destroy(fast);
}

int main(void)
{
    int ti;
    size_t k;

    unsetenv("WARPRED_FLOAT_MODE");
    tu_rng_seed(&rng, tu_seed());
    ctx = tu_context(WR_BACKEND_CPU);
    plan_lazy();
    if (wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS) bail("set_float_mode failed");
    if (!have_ref()) diag("built without MPFR: the comparisons with the exact reference are skipped");
    run_api();
    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        tu_tally tl;
        tu_tally_init(&tl);
        for (k = 0; k < sizeof cases / sizeof cases[0]; k++) run_case(&tl, &cases[k], t);
        run_zeros(&tl, t);
        tu_report(&tl, "%s: adversarial sequences, alone and planted", tu_type_name(t));
        tu_tally_init(&tl);
        run_every_exponent(&tl, t);
        tu_report(&tl, "%s: random exponents over the whole range", tu_type_name(t));
        tu_tally_init(&tl);
        run_random(&tl, t);
        tu_report(&tl, "%s: random data, sizes 1 to 2^20+3", tu_type_name(t));
    }
    wr_context_destroy(ctx);
    return 0;
}

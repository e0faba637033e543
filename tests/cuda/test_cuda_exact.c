/*
 * test_cuda_exact.c -- reproducible float/double SUM on the CUDA backend:
 * every result must be the cpu backend's bits (which tests/exact checks
 * against an exact reference), for reduce, reduce_rows, reduce_segments and
 * wr_reduce_exact, with input and output in device, pinned, pageable and
 * managed memory; and reproducible scans and exscans (run_scans), from no
 * base and from a wr_exact_sum base, out of place and in place, and where
 * an AUTO context runs them (check_auto_scans).
 *
 * Host memory goes through a context with 64 KiB staging buffers, so that
 * even modest arrays are many chunks and the exact accumulator carried
 * from chunk to chunk (and segments cut by a chunk's end) is exercised;
 * device and managed memory through a default context.  Data: adversarial
 * cases among cancelling pairs, every exponent, random data of the issue's
 * sizes, rows of 1 to 70000 columns, segments with empty and long ones and
 * special values sprinkled in.
 *
 * Sizes.  By default every case runs on the device, and on every residency
 * or on one host-side residency in turn (other()); the scans of most cases
 * in two of their eight variants there (check_scan); random data up to
 * 2^20 + 3 elements, host memory only up to a few dozen staging chunks: a
 * thousand-odd calls, seconds on a GPU and within a minute under
 * compute-sanitizer.  WR_TEST_LARGE=1 runs every case everywhere, every
 * variant, with random data up to 2^26 (2^24 for scans): many minutes.
 * WR_TEST_MAX_N caps the random sizes either way.  The time each part took
 * is printed at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

static wr_context *cpu, *gpu, *gpu_small;
static uint64_t seed = 12345;
static int large;                 /* WR_TEST_LARGE=1: the full case lists */

/* Residencies a check runs on (bit r: residency r). */
#define RM(r) (1u << (r))
#define RM_ALL (RM(RES_DEVICE) | RM(RES_PINNED) | RM(RES_PAGEABLE) | RM(RES_MANAGED))

/* By default: one host-side residency (pinned, pageable, managed) in turn,
 * each call the next; WR_TEST_LARGE: all of them. */
static unsigned other(void)
{
    static unsigned k;
    return large ? RM_ALL & ~RM(RES_DEVICE) : RM(RES_PINNED + k++ % 3);
}

static wr_context *gctx(enum res r) { return (r == RES_PINNED || r == RES_PAGEABLE) ? gpu_small : gpu; }
static size_t es(wr_type t) { return t == WR_FLOAT ? 4 : 8; }
static double unit(void) { return (double)(rng_next(&seed) >> 11) * 0x1p-53; }

static void put(void *buf, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
}

/* Failures per (function, residency), the first reason of each. */
enum fn { F_REDUCE, F_EXACT, F_ROWS, F_SEGS, F_NFN };
static const char *const fn_name[F_NFN] = { "wr_reduce", "wr_reduce_exact", "wr_reduce_rows",
                                            "wr_reduce_segments" };
static unsigned long fails[F_NFN][2][RES_COUNT], runs[F_NFN][2][RES_COUNT];
static char first[F_NFN][2][RES_COUNT][200];

static void note(enum fn f, wr_type t, enum res r, int good, const char *fmt, const char *what, size_t n)
{
    const int ti = t == WR_DOUBLE;
    runs[f][ti][r]++;
    if (good) return;
    if (fails[f][ti][r]++ == 0) snprintf(first[f][ti][r], sizeof first[f][ti][r], fmt, what, n);
}

/* reduce and wr_reduce_exact of x[0..n) (host) on the residencies of rm:
 * the cpu's bits. */
static void check_reduce(const char *what, const void *x, size_t n, wr_type t, unsigned rm)
{
    const size_t w = es(t);
    unsigned char want[8], got[8];
    int r;
    if (wr_reduce(cpu, x, want, n, t, WR_SUM) != WR_SUCCESS) bail("cpu reduce: %s", wr_context_error(cpu));
    if (large) rm = RM_ALL;
    for (r = 0; r < RES_COUNT; r++) {
        void *in, *out;
        wr_exact_sum s;
        wr_status st;
        if (!(rm & RM(r))) continue;
        in = res_alloc((enum res)r, n * w);
        out = res_alloc((enum res)r, w);
        res_put((enum res)r, in, x, n * w);
        res_poison((enum res)r, out, w, 0xA5);
        st = wr_reduce(gctx((enum res)r), in, out, n, t, WR_SUM);
        res_get((enum res)r, got, out, w);
        note(F_REDUCE, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, w) == 0, "%s, %zu elements", what, n);
        memset(got, 0xA5, sizeof got);
        st = wr_exact_sum_init(&s);
        if (st == WR_SUCCESS) st = wr_reduce_exact(gctx((enum res)r), in, n, t, &s);
        if (st == WR_SUCCESS) st = wr_exact_sum_round(&s, t, got);
        note(F_EXACT, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, w) == 0, "%s, %zu elements", what, n);
        res_free((enum res)r, in);
        res_free((enum res)r, out);
    }
}

static const double adversarial[][3] = {
    { 1e308, 1, -1e308 }, { 1, 0x1p-53, 0 }, { 1, 0x1p-53, 0x1p-52 }, { 1, 0x1p-53, 0x1p-1074 },
    { 1, 0x1p-53, -0x1p-1074 }, { 1.7976931348623157e308, 1.7976931348623157e308, 0 },
    { 1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308 },
    { 1.7976931348623157e308, 0x1p970, 0 }, { 0x1p-1074, 0x1.8p-1060, -0x1p-1073 }, { 1, INFINITY, -5 },
    { INFINITY, -INFINITY, 0 }, { 1, NAN, 2 }, { -0.0, -0.0, -0.0 }, { -0.0, 0.0, -0.0 }, { 1, -1, -0.0 },
    { 1, 0x1p-24, 0 }, { 1, 0x1p-24, 0x1p-149 }, { 0x1.fffffep127, 0x1p103, 0 }, { 3e38, 3e38, -3e38 },
};

static void run_adversarial(wr_type t)
{
    const size_t pairs = 40000, nc = sizeof adversarial / sizeof adversarial[0];
    double *x = malloc((3 + 2 * pairs) * 8);
    size_t c, i;
    if (x == NULL) bail("out of memory");
    for (c = 0; c < nc; c++) {
        char what[64];
        for (i = 0; i < 3; i++) put(x, t, i, adversarial[c][i]);
        snprintf(what, sizeof what, "adversarial case %zu", c);
        check_reduce(what, x, 3, t, RM(RES_DEVICE) | other());
        for (i = 0; i < pairs; i++) {      /* among cancelling pairs, spread out */
            double v = ldexp(unit() + 0.5, (int)(rng_next(&seed) % 100) - 50);
            put(x, t, 3 + i, v);
            put(x, t, 3 + pairs + i, t == WR_FLOAT ? -(double)(float)v : -v);
        }
        for (i = 0; i < 3; i++) {           /* the case's elements at scattered places */
            size_t j = (size_t)(rng_next(&seed) % (3 + 2 * pairs));
            unsigned char a[8], b[8];
            memcpy(a, (char *)x + i * es(t), es(t));
            memcpy(b, (char *)x + j * es(t), es(t));
            memcpy((char *)x + i * es(t), b, es(t));
            memcpy((char *)x + j * es(t), a, es(t));
        }
        snprintf(what, sizeof what, "adversarial case %zu among pairs", c);
        check_reduce(what, x, 3 + 2 * pairs, t, RM(RES_DEVICE));
    }
    {   /* every exponent */
        const int lo = t == WR_FLOAT ? -149 : -1074, hi = t == WR_FLOAT ? 127 : 1023;
        int e;
        for (e = lo; e <= hi; e++) put(x, t, (size_t)(e - lo), (rng_next(&seed) & 1 ? -1 : 1) * ldexp(1 + unit(), e));
        check_reduce("every exponent", x, (size_t)(hi - lo + 1), t, RM_ALL);
    }
    free(x);
}

static void run_random(wr_type t, size_t max_n)
{
    /* by default: the largest on device and managed memory only (2^20
     * elements are 64-128 chunks of the small staging), 40009 on every
     * residency, the rest on the device and one other; three kinds of data
     * at 4097 and 2^20 + 3, one elsewhere */
    static const size_t sizes[] = { 0, 1, 2, 31, 4097, 40009, ((size_t)1 << 20) + 3, (size_t)1 << 26 };
    size_t si, i;
    int d;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        const int all_kinds = large || n == 4097 || n == sizes[6];
        void *x;
        if (n > max_n || (!large && n > sizes[6])) continue;
        if (large && n == 40009) continue;
        x = malloc(n * es(t) + 8);
        if (x == NULL) bail("out of memory");
        for (d = all_kinds ? 0 : 2; d < 3; d++) {
            const unsigned rm = n == 40009 ? RM_ALL : n > 40009 ? RM(RES_DEVICE) | RM(RES_MANAGED)
                                                                : RM(RES_DEVICE) | other();
            char what[64];
            for (i = 0; i < n; i++) {
                double v = unit();
                if (d == 1) v = 2 * v - 1;
                if (d == 2) v = ldexp(2 * v - 1, (int)(rng_next(&seed) % 80) - 40);
                put(x, t, i, v);
            }
            snprintf(what, sizeof what, "random data (kind %d)", d);
            check_reduce(what, x, n, t, rm);
        }
        free(x);
    }
}

/* rows x cols, and the same matrix as segments with host or device offsets;
 * plus segments of random lengths with special values; on the residencies
 * of rm (WR_TEST_LARGE: all). */
static void run_rows_segments(wr_type t, size_t rows, size_t cols, int random_segments, unsigned rm)
{
    const size_t w = es(t);
    size_t nseg = rows, n, i, s;
    size_t *off;
    void *x, *want, *got;
    int r;
    off = malloc((nseg + 1) * sizeof *off);
    if (off == NULL) bail("out of memory");
    off[0] = 0;
    for (s = 0; s < nseg; s++) {
        size_t len = cols;
        if (random_segments) len = rng_next(&seed) % 4 == 0 ? 0 : (size_t)(rng_next(&seed) % (2 * cols + 1));
        off[s + 1] = off[s] + len;
    }
    n = off[nseg];
    x = malloc(n * w + 8);
    want = malloc(nseg * w + 8);
    got = malloc(nseg * w + 8);
    if (!x || !want || !got) bail("out of memory");
    for (i = 0; i < n; i++) put(x, t, i, ldexp(2 * unit() - 1, (int)(rng_next(&seed) % 60) - 30));
    if (random_segments)
        for (i = 0; i < n / 40; i++) {
            static const double special[] = { 1e30, -1e30, 0x1p-140, -0.0, INFINITY, 1e300, -1e300, 0x1p-1070 };
            put(x, t, (size_t)(rng_next(&seed) % n), special[rng_next(&seed) % 8]);
        }
    if ((random_segments ? wr_reduce_segments(cpu, x, want, nseg, off, t, WR_SUM)
                         : wr_reduce_rows(cpu, x, want, rows, cols, t, WR_SUM)) != WR_SUCCESS)
        bail("cpu rows/segments: %s", wr_context_error(cpu));
    if (large) rm = RM_ALL;
    for (r = 0; r < RES_COUNT; r++) {
        void *in, *out;
        size_t *doff;
        char what[80];
        wr_status st;
        if (!(rm & RM(r))) continue;
        in = res_alloc((enum res)r, n * w);
        out = res_alloc((enum res)r, nseg * w);
        doff = res_alloc((enum res)r, (nseg + 1) * sizeof *doff);
        snprintf(what, sizeof what, "%zu x %zu%s", rows, cols, random_segments ? " random segments" : "");
        res_put((enum res)r, in, x, n * w);
        res_put((enum res)r, doff, off, (nseg + 1) * sizeof *off);
        if (!random_segments) {
            res_poison((enum res)r, out, nseg * w, 0xA5);
            st = wr_reduce_rows(gctx((enum res)r), in, out, rows, cols, t, WR_SUM);
            res_get((enum res)r, got, out, nseg * w);
            note(F_ROWS, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, nseg * w) == 0, "%s (%zu)", what, n);
        }
        res_poison((enum res)r, out, nseg * w, 0xA5);
        st = wr_reduce_segments(gctx((enum res)r), in, out, nseg, doff, t, WR_SUM);
        res_get((enum res)r, got, out, nseg * w);
        note(F_SEGS, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, nseg * w) == 0, "%s (%zu)", what, n);
        res_free((enum res)r, in);
        res_free((enum res)r, out);
        res_free((enum res)r, doff);
    }
    free(x);
    free(want);
    free(got);
    free(off);
}

/*
 * Reproducible scans: every output the cpu's bits, for wr_scan and
 * wr_exscan in reproducible mode and for wr_scan_exact and wr_exscan_exact
 * continuing from a base, out of place and in place, on every residency.
 * The data: tests/exact_scan's adversarial sequences, alone and planted
 * among cancelling pairs, -0 runs, every exponent, random data, at sizes
 * around the cuda backend's tiles (2048 elements), warps and staged chunks.
 */
struct scase {
    int n;
    double v[6];
};
static const struct scase scases[] = {
    { 4, { 1e30, 1, -1e30, 1 } },
    { 4, { 1e308, 1, -1e308, -1 } },
    { 6, { 0x1p100, 0x1p-100, 0x1p50, -0x1p100, 0x1p-60, -0x1p50 } },
    { 5, { 0x1p-1000, 1e300, 0x1p-30, -1e300, 1 } },
    { 4, { 1, 0x1p-53, 0x1p-1074, -0x1p-1074 } },
    { 4, { 1, 0x1p-53, 0x1p-52, 0x1p-53 } },
    { 4, { 1, 0x1p-24, 0x1p-23, 0x1p-149 } },
    { 6, { 0x1p-1074, 0x1.8p-1060, -0x1p-1073, 0x1.fffffffffffffp-1023, 0x1p-1074, -0x1p-1022 } },
    { 5, { 0x1p-149, 0x1.8p-140, -0x1p-148, 0x1.fffffcp-127, 0x1p-149 } },
    { 4, { 1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308, -1e308 } },
    { 4, { 0x1.fffffep127, 0x1.fffffep127, -0x1.fffffep127, 1 } },
    { 3, { 1.7976931348623157e308, 0x1p970, -0x1p-1074 } },
    { 6, { -0.0, -0.0, 0.0, -0.0, 1, -1 } },
    { 4, { 1, INFINITY, 2, -INFINITY } },
    { 3, { -INFINITY, 1e308, 1e308 } },
    { 3, { 1, NAN, 2 } },
};

static unsigned long scan_fails[2][RES_COUNT], scan_runs[2][RES_COUNT];
static char scan_first[2][RES_COUNT][200];

/* x[0..n) (host) scanned, the cpu's bits: on the residencies of `full`
 * both ways, from no base and from base, out of place and in place; on
 * those of `light` the inclusive scan from no base out of place and the
 * exclusive one from base in place.  (WR_TEST_LARGE: everything everywhere.) */
static void check_scan(const char *what, const void *x, size_t n, wr_type t, const wr_exact_sum *base,
                       unsigned full, unsigned light)
{
    const size_t w = es(t);
    void *want = malloc(n * w), *got = malloc(n * w);
    int ex, b, r, inplace;
    if (!want || !got) bail("out of memory");
    if (large) {
        full = RM_ALL;
        light = 0;
    }
    for (ex = 0; ex < 2; ex++)
        for (b = 0; b < 2; b++) {
            if (!full && ex != b) continue;
            wr_status st = b ? (ex ? wr_exscan_exact : wr_scan_exact)(cpu, x, want, n, t, base)
                             : (ex ? wr_exscan : wr_scan)(cpu, x, want, n, t, WR_SUM);
            if (st != WR_SUCCESS) bail("cpu scan: %s", wr_context_error(cpu));
            for (r = 0; r < RES_COUNT; r++)
                for (inplace = 0; inplace < 2; inplace++) {
                    wr_context *g = gctx((enum res)r);
                    const int ti = t == WR_DOUBLE;
                    void *in, *out;
                    if (!(full & RM(r)) && !((light & RM(r)) && ex == b && inplace == ex)) continue;
                    in = res_alloc((enum res)r, n * w);
                    out = inplace ? in : res_alloc((enum res)r, n * w);
                    res_put((enum res)r, in, x, n * w);
                    if (!inplace) res_poison((enum res)r, out, n * w, 0xA5);
                    st = b ? (ex ? wr_exscan_exact : wr_scan_exact)(g, in, out, n, t, base)
                           : (ex ? wr_exscan : wr_scan)(g, in, out, n, t, WR_SUM);
                    memset(got, 0xA5, n * w);
                    res_get((enum res)r, got, out, n * w);
                    scan_runs[ti][r]++;
                    if (!(st == WR_SUCCESS && memcmp(got, want, n * w) == 0) && scan_fails[ti][r]++ == 0) {
                        size_t i = 0;
                        while (i < n && memcmp((char *)got + i * w, (char *)want + i * w, w) == 0) i++;
                        snprintf(scan_first[ti][r], sizeof scan_first[ti][r],
                                 "%s, %zu elements, %s%s%s: %s at %zu (%s)", what, n,
                                 b ? (ex ? "wr_exscan_exact" : "wr_scan_exact") : (ex ? "wr_exscan" : "wr_scan"),
                                 b ? " from a base" : "", inplace ? ", in place" : "", st ? "failed" : "differs", i,
                                 st ? wr_context_error(g) : "");
                    }
                    if (!inplace) res_free((enum res)r, out);
                    res_free((enum res)r, in);
                }
        }
    free(want);
    free(got);
}

/*
 * By default the adversarial sequences alone run on the device and one
 * other residency (light), planted among pairs (20 tiles, 3-5 staging
 * chunks) the same and, one case in four, every way on the device; random
 * data below, at and past a tile (2048) light on the device and one other,
 * three kinds at 2049 and 40009, 262147 (128 tiles, 16-32 chunks) light
 * on device, pageable and managed memory, 2^20 + 3 every way on device and
 * managed memory; 2^24 only with WR_TEST_LARGE.
 */
static void run_scans(wr_type t, size_t max_n)
{
    static const size_t sizes[] = { 1, 2, 3, 31, 32, 33, 2047, 2048, 2049, 4097, 40009, 262147,
                                    ((size_t)1 << 20) + 3 };
    static const size_t quick[] = { 1, 31, 33, 2047, 2048, 2049, 4097, 40009, 262147, ((size_t)1 << 20) + 3 };
    const unsigned dev = RM(RES_DEVICE);
    const size_t big = (size_t)1 << 24, most = max_n < big ? max_n : big;
    const size_t pn = 40009;
    const double neg0 = -0.0, bases[] = { 1e30, -1e-300, 0x1p-1074, 3.5 };
    double *x = malloc((most > pn ? most : pn) * 8 + 8);
    wr_exact_sum base, negz;
    size_t si, c, i, p;
    int d;
    char what[80];
    if (x == NULL) bail("out of memory");
    /* a base of four values, one that rounds as -0 (every element -0) */
    if (wr_exact_sum_init(&base) != WR_SUCCESS || wr_reduce_exact(cpu, bases, 4, WR_DOUBLE, &base) != WR_SUCCESS ||
        wr_exact_sum_init(&negz) != WR_SUCCESS || wr_reduce_exact(cpu, &neg0, 1, WR_DOUBLE, &negz) != WR_SUCCESS)
        bail("bases: %s", wr_context_error(cpu));
    for (c = 0; c < sizeof scases / sizeof scases[0]; c++) {
        const size_t at[] = { 0, 2045, 2048, pn / 3 - 1, pn / 2, pn - 10 };
        int special = 0;
        for (i = 0; i < (size_t)scases[c].n; i++) special |= !isfinite(scases[c].v[i]);
        for (i = 0; i < (size_t)scases[c].n; i++) put(x, t, i, scases[c].v[i]);
        snprintf(what, sizeof what, "scan case %zu", c);
        check_scan(what, x, (size_t)scases[c].n, t, &base, 0, dev | other());
        for (i = 0; i + 1 < pn; i += 2) {      /* among pairs of random values that cancel */
            const double v = ldexp(unit() + 0.5, (int)(rng_next(&seed) % 60) - 30);
            put(x, t, i, v);
            put(x, t, i + 1, t == WR_FLOAT ? -(double)(float)v : -v);
        }
        put(x, t, pn - 1, 0.25);
        for (p = 0; p < sizeof at / sizeof at[0]; p++) {   /* at tile ends, and elsewhere */
            if (special && p != 3) continue;              /* an infinity or NaN rules all after it */
            for (i = 0; i < (size_t)scases[c].n; i++) put(x, t, at[p] + i, scases[c].v[i]);
        }
        snprintf(what, sizeof what, "scan case %zu planted among pairs", c);
        check_scan(what, x, pn, t, c % 2 ? &negz : &base, c % 4 ? 0 : dev, dev | other());
    }
    for (i = 0; i < pn; i++) put(x, t, i, -0.0);
    check_scan("-0 everywhere", x, pn, t, &negz, 0, dev | other());
    put(x, t, pn / 2, 0.0);
    check_scan("-0 everywhere but one +0", x, pn, t, &negz, 0, dev | other());
    {
        const int lo = t == WR_FLOAT ? -149 : -1074, hi = t == WR_FLOAT ? 127 : 1023;
        for (i = 0; i < pn; i++) {
            double v = ldexp(1 + unit(), lo + (int)(rng_next(&seed) % (uint64_t)(hi - lo)));
            put(x, t, i, rng_next(&seed) & 1 ? -v : v);
        }
        check_scan("random exponents over the whole range", x, pn, t, &base, RM_ALL, 0);
    }
    const size_t *sz = large ? sizes : quick;
    const size_t nsz = large ? sizeof sizes / sizeof sizes[0] : sizeof quick / sizeof quick[0];
    for (si = 0; si <= nsz; si++) {
        const size_t n = si < nsz ? sz[si] : big;
        unsigned full = 0, light = dev | other();
        if (n > max_n || (n == big && !large)) continue;
        if (n == 262147) light = RM_ALL & ~RM(RES_PINNED);   /* (16-32 chunks on pageable memory) */
        if (!large && n == quick[nsz - 1]) {
            full = dev | RM(RES_MANAGED);
            light = 0;
        }
        for (d = 0; d < 3; d++) {
            if (n == big && d != 2) continue;     /* the largest: one kind */
            if (!large && d != 2 && n != 2049 && n != 40009) continue;
            for (i = 0; i < n; i++) {
                double v = unit();
                if (d == 1) v = 2 * v - 1;
                if (d == 2) v = ldexp(2 * v - 1, (int)(rng_next(&seed) % 80) - 40);
                put(x, t, i, v);
            }
            snprintf(what, sizeof what, "scan of random data (kind %d)", d);
            check_scan(what, x, n, t, d == 1 ? &negz : &base, full, light);
        }
    }
    free(x);
}

/* An AUTO context runs reproducible scans of device and managed memory on
 * the cuda backend, and of host memory on the cpu: the cpu's bits. */
static void check_auto_scans(wr_context *autox, wr_type t)
{
    const size_t n = 100003, w = es(t);
    void *x = malloc(n * w), *want = malloc(n * w), *got = malloc(n * w);
    size_t i;
    int r, ex;
    if (!x || !want || !got) bail("out of memory");
    for (i = 0; i < n; i++) put(x, t, i, ldexp(2 * unit() - 1, (int)(rng_next(&seed) % 60) - 30));
    put(x, t, 10, 1e30);
    put(x, t, 11, 1);
    put(x, t, 12, -1e30);
    for (ex = 0; ex < 2; ex++) {
        wr_status (*scan)(wr_context *, const void *, void *, size_t, wr_type, wr_op) = ex ? wr_exscan : wr_scan;
        const char *fn = ex ? "wr_exscan" : "wr_scan";
        if (scan(cpu, x, want, n, t, WR_SUM) != WR_SUCCESS) bail("cpu scan: %s", wr_context_error(cpu));
        for (r = 0; r < RES_COUNT; r++) {
            void *in = res_alloc((enum res)r, n * w), *out = res_alloc((enum res)r, n * w);
            const int on_gpu = r == RES_DEVICE || r == RES_MANAGED;
            wr_status st;
            res_put((enum res)r, in, x, n * w);
            res_poison((enum res)r, out, n * w, 0xA5);
            st = scan(autox, in, out, n, t, WR_SUM);
            res_get((enum res)r, got, out, n * w);
            ok(st == WR_SUCCESS && memcmp(got, want, n * w) == 0 &&
                   wr_context_last_backend(autox) == (on_gpu ? WR_BACKEND_CUDA : WR_BACKEND_CPU),
               "reproducible %s %s, %s memory, AUTO context: on the %s, the cpu's bits (%s)", fn,
               t == WR_FLOAT ? "float" : "double", res_name[r], on_gpu ? "cuda backend" : "cpu",
               st ? wr_context_error(autox) : "ran");
            res_free((enum res)r, in);
            res_free((enum res)r, out);
        }
    }
    free(x);
    free(want);
    free(got);
}

int main(void)
{
    wr_context *autox = NULL;
    size_t max_n;
    int ti, f, r;
    gpu_require();
    max_n = test_max_n((size_t)1 << 26);
    large = test_large();
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS ||
        wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS)
        bail("contexts: %s", wr_context_error(NULL));
    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (wr_context_create(&gpu_small, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    if (wr_context_set_float_mode(cpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu_small, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS)
        bail("set_float_mode failed");
    if (wr_context_create(&autox, WR_BACKEND_AUTO) != WR_SUCCESS ||
        wr_context_set_float_mode(autox, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS)
        bail("auto context: %s", wr_context_error(NULL));
    plan(F_NFN * 2 * RES_COUNT + 2 * RES_COUNT + 2 * 2 * RES_COUNT);
    check_auto_scans(autox, WR_FLOAT);
    check_auto_scans(autox, WR_DOUBLE);
    wr_context_destroy(autox);
    diag("%s case lists%s", large ? "the full" : "the default",
         large ? "" : " (WR_TEST_LARGE=1: every residency, every variant, up to 2^26 elements)");
    for (ti = 0; ti < 2; ti++) {
        const double t0 = test_elapsed();
        run_scans(ti ? WR_DOUBLE : WR_FLOAT, max_n);
        diag("scans of %s: %.1f s", ti ? "doubles" : "floats", test_elapsed() - t0);
        for (r = 0; r < RES_COUNT; r++)
            if (!ok(scan_fails[ti][r] == 0 && scan_runs[ti][r] > 0,
                    "reproducible scans %s, %s memory: the cpu's bits (%lu scans)", ti ? "double" : "float",
                    res_name[r], scan_runs[ti][r]))
                diag("%lu failed; first: %s", scan_fails[ti][r], scan_first[ti][r]);
    }
    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        const unsigned dm = RM(RES_DEVICE) | RM(RES_MANAGED);
        double t0 = test_elapsed();
        run_adversarial(t);
        run_random(t, max_n);
        diag("reductions of %s: %.1f s", ti ? "doubles" : "floats", test_elapsed() - t0);
        t0 = test_elapsed();
        /* rows and segments, each mapping: sizes of a few staging chunks on
         * every residency, the larger ones (by default) on the device and
         * managed memory or one other */
        run_rows_segments(t, 1000, 1, 0, RM_ALL);
        run_rows_segments(t, 333, 7, 0, RM_ALL);
        run_rows_segments(t, 2000, 32, 0, RM_ALL);
        run_rows_segments(t, 1024, 1024, 0, RM(RES_DEVICE));
        run_rows_segments(t, 50, 5000, 0, dm | RM(RES_PAGEABLE));
        run_rows_segments(t, large ? 6 : 3, 70000, 0, RM(RES_DEVICE) | other());
        if (large && max_n >= ((size_t)1 << 25)) run_rows_segments(t, 32768, 1024, 0, RM_ALL);
        if (large) {
            run_rows_segments(t, 3000, 300, 1, RM_ALL);
            run_rows_segments(t, 40, 30000, 1, RM_ALL);
        } else {
            run_rows_segments(t, 300, 300, 1, RM_ALL);
            run_rows_segments(t, 8, 30000, 1, RM(RES_DEVICE) | other());
        }
        diag("rows and segments of %s: %.1f s", ti ? "doubles" : "floats", test_elapsed() - t0);
    }
    for (f = 0; f < F_NFN; f++)
        for (ti = 0; ti < 2; ti++)
            for (r = 0; r < RES_COUNT; r++) {
                if (!ok(fails[f][ti][r] == 0 && runs[f][ti][r] > 0, "%s %s, %s memory: the cpu's bits (%lu cases)",
                        fn_name[f], ti ? "double" : "float", res_name[r], runs[f][ti][r]))
                    diag("%lu failed; first: %s", fails[f][ti][r], first[f][ti][r]);
            }
    wr_context_destroy(gpu_small);
    wr_context_destroy(gpu);
    wr_context_destroy(cpu);
    return 0;
}

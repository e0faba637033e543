/*
 * exact.c -- reproducible float/double SUM (WR_FLOAT_REPRODUCIBLE) and the
 * wr_exact_sum API on the cpu backend, against an exact reference written
 * for the tests, independently of lib/wr_exact.h.
 *
 * The reference (exact_ref.c) adds every element exactly into a wide
 * fixed-point number and lets MPFR round it.  Without MPFR the reference
 * checks are skipped and the rest (identical bits across thread counts,
 * permutations, rows, segments, pieces) still runs.
 *
 * Data: adversarial cases (massive cancellation, every exponent, subnormals,
 * ties both ways, overflow, infinities and NaNs, signed zeros), each alone
 * and hidden among 2^16 cancelling pairs (vector lanes and threads); random
 * data at sizes 0, 1, 2, 31, 4097, 2^20+3 and 2^26 (WR_TEST_MAX_N caps the
 * last).  Every result is checked with 1, 2, 3 and 7 threads and with the
 * input permuted; rows and segments against wr_reduce of each piece.
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

/* ---- helpers --------------------------------------------------------------------------------- */

static wr_context *ctx;
static tu_rng rng;
static const int thread_counts[] = { 1, 2, 3, 7 };

static int same_bits(const void *a, const void *b, wr_type t)
{
    return memcmp(a, b, tu_size(t)) == 0;
}

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static void shuffle(void *buf, size_t n, wr_type t)
{
    const size_t w = tu_size(t);
    unsigned char tmp[8];
    size_t i;
    for (i = n; i > 1; i--) {
        size_t j = (size_t)tu_below(&rng, i);
        memcpy(tmp, (char *)buf + (i - 1) * w, w);
        memcpy((char *)buf + (i - 1) * w, (char *)buf + j * w, w);
        memcpy((char *)buf + j * w, tmp, w);
    }
}

/* wr_reduce in reproducible mode with each thread count: all the same bits,
 * and those of the reference (when there is one).  Then permuted. */
static void check_reduce(tu_tally *tl, const char *what, void *x, size_t n, wr_type t, int permute)
{
    unsigned char ref[8], got[8], first[8];
    char b1[64], b2[64];
    size_t k;
    if (have_ref()) ref_sum(x, n, t, ref);
    for (k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        wr_status st;
        memset(got, 0xA5, sizeof got);
        set_threads(thread_counts[k]);
        st = wr_reduce(ctx, x, got, n, t, WR_SUM);
        tu_expect(tl, st == WR_SUCCESS, "%s: wr_reduce: %s", what, wr_context_error(ctx));
        if (k == 0) memcpy(first, got, 8);
        else tu_expect(tl, same_bits(got, first, t), "%s: %d threads give %s, 1 thread %s", what,
                       thread_counts[k], tu_fmt_bits(got, t, b1, sizeof b1), tu_fmt_bits(first, t, b2, sizeof b2));
        if (have_ref())
            tu_expect(tl, same_bits(got, ref, t), "%s (%zu %s, %d threads): got %s, exact %s", what, n,
                      tu_type_name(t), thread_counts[k], tu_fmt_bits(got, t, b1, sizeof b1), tu_fmt_bits(ref, t, b2, sizeof b2));
    }
    set_threads(thread_counts[2]);
    if (permute && n > 1) {
        shuffle(x, n, t);
        memset(got, 0xA5, sizeof got);
        tu_expect(tl, wr_reduce(ctx, x, got, n, t, WR_SUM) == WR_SUCCESS, "%s permuted: %s", what,
                  wr_context_error(ctx));
        tu_expect(tl, same_bits(got, first, t), "%s permuted: %s, before %s", what, tu_fmt_bits(got, t, b1, sizeof b1),
                  tu_fmt_bits(first, t, b2, sizeof b2));
    }
}

/* ---- adversarial cases --------------------------------------------------------------------- */

struct xcase {
    const char *name;
    int n;
    double v[8];
};

#define TWO(e) ldexp(1.0, (e))

/* Doubles, written for WR_DOUBLE; each also runs as floats (rounded to
 * float first) where that still means something. */
static struct xcase dcases[] = {
    { "cancellation 1e308 + 1 - 1e308", 3, { 1e308, 1, -1e308 } },
    { "cancellation, small last", 4, { 1e308, -1e308, 0x1p-1074, 0x1p-1000 } },
    { "tie rounds down to even", 2, { 1, 0x1p-53 } },
    { "tie rounds up to even", 3, { 1, 0x1p-53, 0x1p-52 } },
    { "above a tie by 2^-1074", 3, { 1, 0x1p-53, 0x1p-1074 } },
    { "below a tie by 2^-1074", 3, { 1, 0x1p-53, -0x1p-1074 } },
    { "negative tie", 2, { -1, -0x1p-53 } },
    { "overflow", 2, { 1.7976931348623157e308, 1.7976931348623157e308 } },
    { "overflow undone", 3, { 1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308 } },
    { "max + half ulp: infinity", 2, { 1.7976931348623157e308, 0x1p970 } },
    { "max + half ulp - tiny: max", 3, { 1.7976931348623157e308, 0x1p970, -0x1p-1074 } },
    { "negative overflow", 2, { -1.7976931348623157e308, -0x1p971 } },
    { "subnormals", 4, { 0x1p-1074, 0x1.8p-1060, -0x1p-1073, 0x1.fffffffffffffp-1023 } },
    { "subnormal to normal", 2, { 0x0.fffffffffffffp-1022, 0x1p-1074 } },
    { "+inf", 3, { 1, INFINITY, -5 } },
    { "-inf", 3, { 1, -INFINITY, 1e308 } },
    { "+inf and -inf", 2, { INFINITY, -INFINITY } },
    { "NaN", 3, { 1, NAN, 2 } },
    { "NaN and inf", 2, { INFINITY, NAN } },
    { "-0", 1, { -0.0 } },
    { "-0 -0 -0", 3, { -0.0, -0.0, -0.0 } },
    { "-0 +0", 2, { -0.0, 0.0 } },
    { "1 - 1", 2, { 1, -1 } },
    { "-1 + 1 - 0", 3, { -1, 1, -0.0 } },
    { "tiny - tiny", 2, { 0x1p-1074, -0x1p-1074 } },
    { "float tie down", 2, { 1, 0x1p-24 } },
    { "float tie up", 3, { 1, 0x1p-24, 0x1p-23 } },
    { "float above tie", 3, { 1, 0x1p-24, 0x1p-149 } },
    { "float below tie", 3, { 1, 0x1p-24, -0x1p-149 } },
    { "float overflow", 2, { 0x1.fffffep127, 0x1.fffffep127 } },
    { "float max + half ulp", 2, { 0x1.fffffep127, 0x1p103 } },
    { "float max + half ulp - tiny", 3, { 0x1.fffffep127, 0x1p103, -0x1p-149 } },
    { "float subnormals", 4, { 0x1p-149, 0x1.8p-140, -0x1p-148, 0x1.fffffcp-127 } },
};

/* The case alone, then among 2^16 pairs (r, -r) of random values that
 * cancel exactly, shuffled (so vector lanes and threads meet it). */
static void run_case(tu_tally *tl, const struct xcase *c, wr_type t)
{
    const size_t pairs = (size_t)1 << 15, n = (size_t)c->n + 2 * pairs;
    void *x = tu_xmalloc(n * 8);
    char what[128];
    size_t i;
    for (i = 0; i < (size_t)c->n; i++) tu_set_f(x, t, i, c->v[i]);
    snprintf(what, sizeof what, "%s (%s)", c->name, tu_type_name(t));
    check_reduce(tl, what, x, (size_t)c->n, t, 1);
    for (i = 0; i < (size_t)c->n; i++) tu_set_f(x, t, i, c->v[i]);
    for (i = 0; i < pairs; i++) {
        /* random magnitudes over a wide range, both signs */
        double r = ldexp(tu_unit(&rng) + 0.5, (int)tu_below(&rng, 120) - 60);
        tu_set_f(x, t, (size_t)c->n + 2 * i, r);
        tu_set_f(x, t, (size_t)c->n + 2 * i + 1, -(t == WR_FLOAT ? (double)(float)r : r));
    }
    shuffle(x, n, t);
    snprintf(what, sizeof what, "%s among %zu cancelling pairs (%s)", c->name, pairs, tu_type_name(t));
    check_reduce(tl, what, x, n, t, 1);
    free(x);
}

/* Every exponent: one element per binade, random mantissas and signs. */
static void run_every_exponent(tu_tally *tl, wr_type t)
{
    const int lo = t == WR_FLOAT ? -149 : -1074, hi = t == WR_FLOAT ? 127 : 1023;
    const size_t n = (size_t)(hi - lo + 1);
    void *x = tu_xmalloc(n * 8);
    int e, rep;
    for (rep = 0; rep < 8; rep++) {
        char what[64];
        for (e = lo; e <= hi; e++) {
            double m = 1 + tu_unit(&rng), v = ldexp(m, e);
            if (tu_rand(&rng) & 1) v = -v;
            tu_set_f(x, t, (size_t)(e - lo), v);
        }
        snprintf(what, sizeof what, "every exponent #%d", rep);
        check_reduce(tl, what, x, n, t, 1);
    }
    free(x);
}

/* ---- random data ------------------------------------------------------------------------------ */

enum dist { D_UNIFORM, D_SIGNED, D_WIDE, D_NDIST };
static const char *const dist_name[D_NDIST] = { "uniform [0,1)", "uniform [-1,1)", "wide range" };

static void fill(void *x, size_t n, wr_type t, enum dist d)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double v = tu_unit(&rng);
        if (d == D_SIGNED) v = 2 * v - 1;
        if (d == D_WIDE) v = ldexp(2 * v - 1, (int)tu_below(&rng, 80) - 40);
        tu_set_f(x, t, i, v);
    }
}

static void run_random(tu_tally *tl, wr_type t, size_t max_n)
{
    static const size_t sizes[] = { 0, 1, 2, 31, 4097, ((size_t)1 << 20) + 3, (size_t)1 << 26 };
    size_t si;
    int d;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        void *x;
        if (n > max_n) {
            diag("random %s data: %zu elements skipped (WR_TEST_MAX_N=%zu)", tu_type_name(t), n, max_n);
            continue;
        }
        x = tu_xmalloc(n * tu_size(t) + 8);
        for (d = 0; d < D_NDIST; d++) {
            char what[80];
            fill(x, n, t, (enum dist)d);
            snprintf(what, sizeof what, "%s, %zu elements", dist_name[d], n);
            check_reduce(tl, what, x, n, t, n <= ((size_t)1 << 22) || d == D_WIDE);
        }
        free(x);
    }
}

/* ---- rows and segments ------------------------------------------------------------------------ */

/* Every row of a rows x cols matrix (and the same as segments) against the
 * reference and wr_reduce of the row; the bits with each thread count. */
static void run_rows(tu_tally *tl, wr_type t, size_t rows, size_t cols, enum dist d)
{
    const size_t w = tu_size(t), n = rows * cols;
    void *x = tu_xmalloc(n * w + 8), *out = tu_xmalloc(rows * w + 8), *first = tu_xmalloc(rows * w + 8);
    size_t *off = (size_t *)tu_xmalloc((rows + 1) * sizeof *off);
    size_t r, k;
    char b1[64], b2[64];
    fill(x, n, t, d);
    for (r = 0; r <= rows; r++) off[r] = r * cols;
    for (k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        set_threads(thread_counts[k]);
        tu_expect(tl, wr_reduce_rows(ctx, x, out, rows, cols, t, WR_SUM) == WR_SUCCESS, "rows: %s",
                  wr_context_error(ctx));
        if (k == 0) memcpy(first, out, rows * w);
        else tu_expect(tl, memcmp(first, out, rows * w) == 0, "rows %zu x %zu: %d threads differ", rows, cols,
                       thread_counts[k]);
        tu_expect(tl, wr_reduce_segments(ctx, x, out, rows, off, t, WR_SUM) == WR_SUCCESS, "segments: %s",
                  wr_context_error(ctx));
        tu_expect(tl, memcmp(first, out, rows * w) == 0, "segments of %zu x %zu rows: %d threads differ from rows",
                  rows, cols, thread_counts[k]);
    }
    set_threads(thread_counts[2]);
    for (r = 0; r < rows; r++) {
        unsigned char one[8], ref[8];
        const char *row = (const char *)x + r * cols * w;
        tu_expect(tl, wr_reduce(ctx, row, one, cols, t, WR_SUM) == WR_SUCCESS, "reduce of a row");
        tu_expect(tl, same_bits(one, (char *)first + r * w, t), "row %zu of %zu x %zu: %s, its wr_reduce %s", r,
                  rows, cols, tu_fmt_bits((char *)first + r * w, t, b1, sizeof b1), tu_fmt_bits(one, t, b2, sizeof b2));
        if (have_ref() && (r < 64 || r % 97 == 0)) {
            ref_sum(row, cols, t, ref);
            tu_expect(tl, same_bits(ref, (char *)first + r * w, t), "row %zu of %zu x %zu: %s, exact %s", r, rows,
                      cols, tu_fmt_bits((char *)first + r * w, t, b1, sizeof b1), tu_fmt_bits(ref, t, b2, sizeof b2));
        }
    }
    free(x);
    free(out);
    free(first);
    free(off);
}

/* Segments of random lengths (many empty, one long enough for the whole
 * team), with adversarial elements sprinkled in. */
static void run_segments(tu_tally *tl, wr_type t)
{
    const size_t w = tu_size(t), nseg = 3000, longseg = ((size_t)1 << 20) + 5;
    size_t *off = (size_t *)tu_xmalloc((nseg + 1) * sizeof *off), n, s, i, k;
    void *x, *out, *first;
    off[0] = 0;
    for (s = 0; s < nseg; s++) {
        size_t len = tu_below(&rng, 4) == 0 ? 0 : (size_t)tu_below(&rng, 300);
        if (s == nseg / 2) len = longseg;
        off[s + 1] = off[s] + len;
    }
    n = off[nseg];
    x = tu_xmalloc(n * w + 8);
    out = tu_xmalloc(nseg * w + 8);
    first = tu_xmalloc(nseg * w + 8);
    fill(x, n, t, D_SIGNED);
    for (i = 0; i < n / 50; i++) {
        static const double special[] = { 1e30, -1e30, 0x1p-140, -0.0, INFINITY, 1e300, -1e300, 0x1p-1070 };
        tu_set_f(x, t, (size_t)tu_below(&rng, n), special[tu_below(&rng, 8)]);
    }
    for (k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        set_threads(thread_counts[k]);
        tu_expect(tl, wr_reduce_segments(ctx, x, out, nseg, off, t, WR_SUM) == WR_SUCCESS, "segments: %s",
                  wr_context_error(ctx));
        if (k == 0) memcpy(first, out, nseg * w);
        else tu_expect(tl, memcmp(first, out, nseg * w) == 0, "segments: %d threads differ", thread_counts[k]);
    }
    set_threads(thread_counts[2]);
    for (s = 0; s < nseg; s++) {
        unsigned char ref[8];
        char b1[64], b2[64];
        if (!have_ref()) break;
        ref_sum((const char *)x + off[s] * w, off[s + 1] - off[s], t, ref);
        tu_expect(tl, same_bits(ref, (char *)first + s * w, t), "segment %zu (%zu elements): %s, exact %s", s,
                  off[s + 1] - off[s], tu_fmt_bits((char *)first + s * w, t, b1, sizeof b1), tu_fmt_bits(ref, t, b2, sizeof b2));
    }
    free(x);
    free(out);
    free(first);
    free(off);
}

/* ---- wr_exact_sum ------------------------------------------------------------------------------ */

/* The sum of an array cut into pieces (some empty), each by wr_reduce_exact
 * into its own wr_exact_sum, merged in a shuffled order, rounded: the bits
 * of wr_reduce in reproducible mode. */
static void run_pieces(tu_tally *tl, wr_type t)
{
    const size_t n = 200003, w = tu_size(t);
    void *x = tu_xmalloc(n * w);
    unsigned char whole[8], got[8];
    wr_exact_sum parts[16], total;
    size_t cut[17], i;
    int p, order[16];
    fill(x, n, t, D_WIDE);
    tu_set_f(x, t, 7, 1e30);
    tu_set_f(x, t, 9, -1e30);
    tu_expect(tl, wr_reduce(ctx, x, whole, n, t, WR_SUM) == WR_SUCCESS, "whole");
    cut[0] = 0;
    cut[16] = n;
    for (p = 1; p < 16; p++) cut[p] = (size_t)tu_below(&rng, n + 1);
    for (p = 1; p < 16; p++)           /* sort (insertion) */
        for (i = (size_t)p; i > 1 && cut[i - 1] > cut[i]; i--) {
            size_t tmp = cut[i];
            cut[i] = cut[i - 1];
            cut[i - 1] = tmp;
        }
    for (p = 0; p < 16; p++) {
        order[p] = p;
        tu_expect(tl, wr_exact_sum_init(&parts[p]) == WR_SUCCESS, "init");
        tu_expect(tl, wr_reduce_exact(ctx, (const char *)x + cut[p] * w, cut[p + 1] - cut[p], t, &parts[p]) ==
                      WR_SUCCESS, "wr_reduce_exact: %s", wr_context_error(ctx));
    }
    for (p = 15; p > 0; p--) {
        int j = (int)tu_below(&rng, (uint64_t)p + 1), tmp = order[p];
        order[p] = order[j];
        order[j] = tmp;
    }
    tu_expect(tl, wr_exact_sum_init(&total) == WR_SUCCESS, "init");
    for (p = 0; p < 16; p++) tu_expect(tl, wr_exact_sum_merge(&total, &parts[order[p]]) == WR_SUCCESS, "merge");
    tu_expect(tl, wr_exact_sum_round(&total, t, got) == WR_SUCCESS, "round");
    tu_expect(tl, same_bits(got, whole, t), "pieces merged differ from the whole");
    /* one sum taking all pieces in turn */
    tu_expect(tl, wr_exact_sum_init(&total) == WR_SUCCESS, "init");
    for (p = 0; p < 16; p++)
        tu_expect(tl, wr_reduce_exact(ctx, (const char *)x + cut[p] * w, cut[p + 1] - cut[p], t, &total) ==
                      WR_SUCCESS, "wr_reduce_exact into one");
    tu_expect(tl, wr_exact_sum_round(&total, t, got) == WR_SUCCESS && same_bits(got, whole, t),
              "pieces into one sum differ from the whole");
    free(x);
}

static void run_api(void)
{
    wr_exact_sum s, bad, copy;
    float f = 1, xs[3] = { 1, 2, 3 };
    double d;
    int32_t i32[2] = { 1, 2 };
    uint32_t fb;
    ok(wr_exact_sum_init(&s) == WR_SUCCESS, "wr_exact_sum_init");
    ok(wr_exact_sum_init(NULL) == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(NULL), "sum"),
       "wr_exact_sum_init(NULL): WR_ERR_INVALID_ARG naming sum");
    ok(wr_exact_sum_round(&s, WR_FLOAT, &f) == WR_SUCCESS && f == 0 && !signbit(f),
       "the empty sum rounds to +0");
    ok(wr_exact_sum_round(&s, WR_INT32, &f) == WR_ERR_UNSUPPORTED, "rounding to int32: WR_ERR_UNSUPPORTED");
    ok(wr_exact_sum_round(&s, (wr_type)42, &f) == WR_ERR_INVALID_ARG, "rounding to a bad type: WR_ERR_INVALID_ARG");
    ok(wr_exact_sum_round(&s, WR_FLOAT, NULL) == WR_ERR_INVALID_ARG, "rounding to NULL: WR_ERR_INVALID_ARG");
    memset(&bad, 0xA5, sizeof bad);
    f = 5;
    ok(wr_exact_sum_round(&bad, WR_FLOAT, &f) == WR_ERR_INVALID_ARG && f == 5 &&
       tu_contains(wr_context_error(NULL), "wr_exact_sum_init"),
       "a garbage sum is refused, the output untouched");
    memcpy(&copy, &s, sizeof s);
    ok(wr_exact_sum_merge(&s, &bad) == WR_ERR_INVALID_ARG && memcmp(&copy, &s, sizeof s) == 0,
       "merging a garbage sum: WR_ERR_INVALID_ARG, sum unchanged");
    ok(wr_reduce_exact(ctx, xs, 3, WR_FLOAT, &bad) == WR_ERR_INVALID_ARG, "wr_reduce_exact into garbage refused");
    ok(wr_reduce_exact(ctx, i32, 2, WR_INT32, &s) == WR_ERR_UNSUPPORTED && memcmp(&copy, &s, sizeof s) == 0,
       "wr_reduce_exact of int32: WR_ERR_UNSUPPORTED, sum unchanged");
    ok(wr_reduce_exact(ctx, NULL, 3, WR_FLOAT, &s) == WR_ERR_INVALID_ARG, "wr_reduce_exact of NULL: refused");
    ok(wr_reduce_exact(ctx, xs, 3, WR_FLOAT, NULL) == WR_ERR_INVALID_ARG, "wr_reduce_exact into NULL: refused");
    ok(wr_reduce_exact(ctx, xs, 0, WR_FLOAT, &s) == WR_SUCCESS && memcmp(&copy, &s, sizeof s) == 0,
       "wr_reduce_exact of 0 elements leaves the sum alone");
    ok(wr_reduce_exact(ctx, xs, 3, WR_FLOAT, &s) == WR_SUCCESS && wr_exact_sum_merge(&s, &s) == WR_SUCCESS &&
       wr_exact_sum_round(&s, WR_DOUBLE, &d) == WR_SUCCESS && d == 12,
       "sum of 1, 2, 3 merged with itself rounds to 12");
    {
        double tiny = -0x1p-1074;
        wr_exact_sum_init(&s);
        ok(wr_reduce_exact(ctx, &tiny, 1, WR_DOUBLE, &s) == WR_SUCCESS &&
           wr_exact_sum_round(&s, WR_FLOAT, &f) == WR_SUCCESS && f == 0 && signbit(f),
           "a negative double too small for float rounds to -0");
    }
    {
        double big[2] = { 1.7976931348623157e308, 1.7976931348623157e308 };
        wr_exact_sum_init(&s);
        ok(wr_reduce_exact(ctx, big, 2, WR_DOUBLE, &s) == WR_SUCCESS &&
           wr_exact_sum_round(&s, WR_FLOAT, &f) == WR_SUCCESS && isinf(f) && f > 0 &&
           wr_exact_sum_round(&s, WR_DOUBLE, &d) == WR_SUCCESS && isinf(d) && d > 0,
           "2 DBL_MAX rounds to +inf as float and double");
        big[1] = NAN;
        wr_exact_sum_init(&s);
        ok(wr_reduce_exact(ctx, big, 2, WR_DOUBLE, &s) == WR_SUCCESS &&
           wr_exact_sum_round(&s, WR_FLOAT, &f) == WR_SUCCESS && (memcpy(&fb, &f, 4), fb == 0x7fffffffu),
           "a NaN rounds to the canonical NaN");
    }
}

static void run_modes(void)
{
    wr_context *c2 = NULL;
    float x[4] = { 1e30f, 1, -1e30f, 0 }, r = 5;
    int32_t iv[3] = { 5, -7, 9 }, ir = 0;
    ok(wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE, "the test's context is reproducible");
    ok(wr_context_set_float_mode(ctx, (wr_float_mode)7) == WR_ERR_INVALID_ARG &&
       wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE && tu_mentions(wr_context_error(ctx), "mode"),
       "a bad mode: WR_ERR_INVALID_ARG, context unchanged");
    ok(wr_context_set_float_mode(NULL, WR_FLOAT_FAST) == WR_ERR_INVALID_ARG, "NULL context: WR_ERR_INVALID_ARG");
    ok(wr_context_float_mode(NULL) == WR_FLOAT_FAST, "a NULL context's mode reads as fast");
    ok(wr_reduce(ctx, x, &r, 4, WR_FLOAT, WR_SUM) == WR_SUCCESS && r == 1, "reproducible: 1e30 + 1 - 1e30 = 1");
    ok(wr_reduce(ctx, iv, &ir, 3, WR_INT32, WR_SUM) == WR_SUCCESS && ir == 7, "integer sums are unchanged");
    ok(wr_context_create(&c2, WR_BACKEND_CPU) == WR_SUCCESS, "a second context");
    ok(wr_context_float_mode(c2) == WR_FLOAT_FAST, "a new context is fast");
    ok(wr_context_set_float_mode(c2, WR_FLOAT_REPRODUCIBLE) == WR_SUCCESS &&
       wr_context_float_mode(c2) == WR_FLOAT_REPRODUCIBLE, "set to reproducible");
    ok(wr_context_set_float_mode(c2, WR_FLOAT_FAST) == WR_SUCCESS && wr_context_float_mode(c2) == WR_FLOAT_FAST,
       "and back to fast");
    wr_context_destroy(c2);
    c2 = NULL;
    setenv("WARPRED_FLOAT_MODE", "reproducible", 1);
    ok(wr_context_create(&c2, WR_BACKEND_CPU) == WR_SUCCESS && wr_context_float_mode(c2) == WR_FLOAT_REPRODUCIBLE,
       "WARPRED_FLOAT_MODE=reproducible: a new context is reproducible");
    ok(wr_context_set_float_mode(c2, WR_FLOAT_FAST) == WR_SUCCESS &&
       wr_context_float_mode(c2) == WR_FLOAT_REPRODUCIBLE, "the environment overrides the context's setting");
    r = 5;
    ok(wr_reduce(c2, x, &r, 4, WR_FLOAT, WR_SUM) == WR_SUCCESS && r == 1, "and its sums are exact");
    wr_context_destroy(c2);
    c2 = NULL;
    setenv("WARPRED_FLOAT_MODE", "exactish", 1);
    ok(wr_context_create(&c2, WR_BACKEND_CPU) == WR_ERR_INVALID_ARG && c2 == NULL &&
       tu_mentions(wr_context_error(NULL), "WARPRED_FLOAT_MODE"),
       "WARPRED_FLOAT_MODE=exactish: WR_ERR_INVALID_ARG naming the variable");
    unsetenv("WARPRED_FLOAT_MODE");
}

int main(void)
{
    const char *mn = getenv("WR_TEST_MAX_N");
    size_t max_n = mn && *mn ? (size_t)strtoull(mn, NULL, 0) : (size_t)1 << 26;
    int ti;
    size_t k;

    unsetenv("WARPRED_FLOAT_MODE");
    tu_rng_seed(&rng, tu_seed());
    ctx = tu_context(WR_BACKEND_CPU);
    plan_lazy();
    if (wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS) bail("set_float_mode failed");
    if (!have_ref()) diag("built without MPFR: the comparisons with the exact reference are skipped");
    run_modes();
    run_api();
    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        tu_tally tl;
        tu_tally_init(&tl);
        for (k = 0; k < sizeof dcases / sizeof dcases[0]; k++) run_case(&tl, &dcases[k], t);
        tu_report(&tl, "%s: adversarial cases, alone and among cancelling pairs", tu_type_name(t));
        tu_tally_init(&tl);
        run_every_exponent(&tl, t);
        tu_report(&tl, "%s: every exponent", tu_type_name(t));
        tu_tally_init(&tl);
        run_random(&tl, t, max_n);
        tu_report(&tl, "%s: random data, sizes 0 to 2^26", tu_type_name(t));
        tu_tally_init(&tl);
        run_rows(&tl, t, 1000, 1, D_SIGNED);
        run_rows(&tl, t, 300, 7, D_WIDE);
        run_rows(&tl, t, 500, 1000, D_SIGNED);
        run_rows(&tl, t, 40, 40000, D_WIDE);
        run_rows(&tl, t, 3, 400000, D_UNIFORM);
        tu_report(&tl, "%s: rows (1 to 400000 columns) and the same as segments", tu_type_name(t));
        tu_tally_init(&tl);
        run_segments(&tl, t);
        tu_report(&tl, "%s: segments of random lengths with special values", tu_type_name(t));
        tu_tally_init(&tl);
        run_pieces(&tl, t);
        tu_report(&tl, "%s: wr_reduce_exact of pieces, merged in any order", tu_type_name(t));
    }
    wr_context_destroy(ctx);
    return 0;
}

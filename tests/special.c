/*
 * special.c -- special values, checked bit for bit against stated answers:
 *  - NaN propagates through SUM, PROD, MIN and MAX (reduce and both scans);
 *  - +-inf: MIN/MAX pick them, inf - inf and inf * 0 give NaN, MIN of all
 *    +inf is +inf and MAX of all -inf is -inf (a FLT_MAX identity fails);
 *  - -0 < +0 for MIN/MAX (IEEE 754-2019 minimum/maximum): min(-0, +0) is -0
 *    and max(-0, +0) is +0 whatever the order and the size; a SUM of -0s is
 *    -0 (IEEE addition), only an empty SUM is the identity +0;
 *  - argmin/argmax: the first index of the extreme, ties keep the first, a NaN
 *    anywhere gives the first NaN's index, all-+inf argmin gives index 0 and
 *    value +inf (CUB had this bug), -0 and +0 tie (NumPy), value may be NULL;
 *  - integers: extremes of the type, and SUM/PROD wrap-around.
 * Sizes reach past one 4096-element block so that values cross block and
 * thread boundaries.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static const size_t sizes[] = { 1, 2, 3, 33, 4097, 65537 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXN 65537

static wr_context *ctx;
static tu_rng rng;
static unsigned char *buf, *out;

/* A stated answer for a float reduce: want (NaN: any NaN), bit for bit. */
static void red_is(tu_tally *tal, size_t n, wr_type t, wr_op op, double want, const char *what)
{
    unsigned char w[8], g[8];
    char ws[96], gs[96];
    wr_status st;
    tu_set_f(w, t, 0, want);
    tu_poison(g, sizeof g);
    st = wr_reduce(ctx, buf, g, n, t, op);
    tu_expect(tal, st == WR_SUCCESS && tu_same(g, w, t), "%s, %s %s count %zu: %s, got %s, want %s", what,
              tu_type_name(t), tu_op_name(op), n, wr_status_string(st), tu_fmt(g, t, gs, sizeof gs),
              tu_fmt(w, t, ws, sizeof ws));
}

/* Both scans of buf[0..n), compared element by element with the reference,
 * bit for bit, or within the DESIGN.md bound when bounded. */
static void scans_check(tu_tally *tal, size_t n, wr_type t, wr_op op, int bounded, const char *what)
{
    char why[512];
    int ex;
    for (ex = 0; ex <= 1; ex++) {
        wr_status st = ex ? wr_exscan(ctx, buf, out, n, t, op) : wr_scan(ctx, buf, out, n, t, op);
        if (tu_expect(tal, st == WR_SUCCESS, "%s, %s: %s", what, ex ? "exscan" : "scan", wr_status_string(st)))
            if (!tu_check_scan(buf, out, n, t, op, ex, bounded, why, sizeof why))
                tu_expect(tal, 0, "%s, %s %s %s: %s", what, ex ? "exscan" : "scan", tu_type_name(t),
                          tu_op_name(op), why);
    }
}

/* The same; float SUM/PROD of finite values round: within the bound. */
static void scans_ok(tu_tally *tal, size_t n, wr_type t, wr_op op, const char *what)
{
    scans_check(tal, n, t, op, tu_kind_applies(t, op, TU_ROUNDED), what);
}

/* argmin/argmax must give index want and value buf[want] (also with value NULL). */
static void arg_is(tu_tally *tal, size_t n, wr_type t, int is_max, size_t want, const char *what)
{
    size_t sz = tu_size(t), idx = 12345, idx2 = 12345;
    unsigned char v[8];
    char vs[96], ws[96];
    wr_status st, st2;
    tu_poison(v, sizeof v);
    st = is_max ? wr_argmax(ctx, buf, n, t, &idx, v) : wr_argmin(ctx, buf, n, t, &idx, v);
    st2 = is_max ? wr_argmax(ctx, buf, n, t, &idx2, NULL) : wr_argmin(ctx, buf, n, t, &idx2, NULL);
    tu_expect(tal, st == WR_SUCCESS && st2 == WR_SUCCESS && idx == want && idx2 == want &&
              memcmp(v, buf + want * sz, sz) == 0,
              "%s, %s %s count %zu: %s, index %zu (value NULL: %zu), want %zu; value %s, want %s", what,
              is_max ? "argmax" : "argmin", tu_type_name(t), n, wr_status_string(st), idx, idx2, want,
              tu_fmt(v, t, vs, sizeof vs), tu_fmt(buf + want * sz, t, ws, sizeof ws));
}

/* buf[0..n) = finite random values of t, between -1e3 and 1e3. */
static void fill_finite(size_t n, wr_type t)
{
    size_t i;
    for (i = 0; i < n; i++) tu_set_f(buf, t, i, (tu_unit(&rng) - 0.5) * 2e3);
}

static void fill(size_t n, wr_type t, double v)
{
    size_t i;
    for (i = 0; i < n; i++) tu_set_f(buf, t, i, v);
}

static size_t positions(size_t n, size_t *pos)
{
    size_t k = 0;
    pos[k++] = 0;
    if (n > 2) pos[k++] = 1 + (size_t)tu_below(&rng, n - 2);
    if (n > 1) pos[k++] = n - 1;
    return k;
}

static void test_nan(wr_type t)
{
    static const wr_op ops[4] = { WR_SUM, WR_PROD, WR_MIN, WR_MAX };
    size_t s, p, pos[3], np;
    int o;
    tu_tally tal;
    tu_tally_init(&tal);
    for (s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        np = positions(n, pos);
        for (p = 0; p < np; p++)
            for (o = 0; o < 4; o++) {
                char what[64];
                snprintf(what, sizeof what, "NaN at %zu", pos[p]);
                fill_finite(n, t);
                if (ops[o] == WR_PROD) fill(n, t, 1.0);   /* keep the product finite but for the NaN */
                tu_set_f(buf, t, pos[p], NAN);
                red_is(&tal, n, t, ops[o], NAN, what);
                scans_ok(&tal, n, t, ops[o], what);
            }
    }
    tu_report(&tal, "%s: a NaN anywhere makes SUM, PROD, MIN, MAX NaN (reduce, scan, exscan)", tu_type_name(t));
}

static void test_inf(wr_type t)
{
    size_t s, p, pos[3], np;
    tu_tally tal;
    tu_tally_init(&tal);
    for (s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        fill(n, t, HUGE_VAL);
        red_is(&tal, n, t, WR_MIN, HUGE_VAL, "all +inf");
        red_is(&tal, n, t, WR_MAX, HUGE_VAL, "all +inf");
        red_is(&tal, n, t, WR_SUM, HUGE_VAL, "all +inf");
        scans_ok(&tal, n, t, WR_MIN, "all +inf");
        fill(n, t, -HUGE_VAL);
        red_is(&tal, n, t, WR_MAX, -HUGE_VAL, "all -inf");
        red_is(&tal, n, t, WR_MIN, -HUGE_VAL, "all -inf");
        scans_ok(&tal, n, t, WR_MAX, "all -inf");
        np = positions(n, pos);
        for (p = 0; p < np; p++) {
            fill_finite(n, t);
            tu_set_f(buf, t, pos[p], -HUGE_VAL);
            red_is(&tal, n, t, WR_MIN, -HUGE_VAL, "-inf among finite values");
            red_is(&tal, n, t, WR_SUM, -HUGE_VAL, "-inf among finite values");
            scans_ok(&tal, n, t, WR_MIN, "-inf among finite values");
            tu_set_f(buf, t, pos[p], HUGE_VAL);
            red_is(&tal, n, t, WR_MAX, HUGE_VAL, "+inf among finite values");
            scans_ok(&tal, n, t, WR_SUM, "+inf among finite values");
            if (n > 1) {
                size_t q = pos[p] == 0 ? n - 1 : 0;
                tu_set_f(buf, t, q, -HUGE_VAL);
                red_is(&tal, n, t, WR_SUM, NAN, "+inf and -inf");
                scans_ok(&tal, n, t, WR_SUM, "+inf and -inf");
                fill(n, t, 1.0);
                tu_set_f(buf, t, pos[p], HUGE_VAL);
                tu_set_f(buf, t, q, 0.0);
                red_is(&tal, n, t, WR_PROD, NAN, "inf * 0");
                tu_set_f(buf, t, q, -2.0);
                red_is(&tal, n, t, WR_PROD, -HUGE_VAL, "inf * -2");
            }
        }
    }
    tu_report(&tal, "%s: +-inf in MIN, MAX, SUM, PROD; all +inf MIN is +inf, all -inf MAX is -inf",
              tu_type_name(t));
}

static void test_zeros(wr_type t)
{
    size_t s, p, pos[3], np, i;
    tu_tally tal, sum;
    tu_tally_init(&tal);
    tu_tally_init(&sum);
    for (s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        fill(n, t, 0.0);
        red_is(&tal, n, t, WR_MIN, 0.0, "all +0");
        red_is(&tal, n, t, WR_MAX, 0.0, "all +0");
        fill(n, t, -0.0);
        red_is(&tal, n, t, WR_MIN, -0.0, "all -0");
        red_is(&tal, n, t, WR_MAX, -0.0, "all -0");
        /* IEEE: -0 + -0 = -0; only an empty SUM is the identity +0 */
        red_is(&sum, n, t, WR_SUM, -0.0, "all -0");
        scans_check(&sum, n, t, WR_SUM, 0, "all -0");
        {
            unsigned char g[8], w[8];
            char gs[96];
            wr_status st = wr_reduce_rows(ctx, buf, g, 1, n, t, WR_SUM);
            tu_set_f(w, t, 0, -0.0);
            tu_expect(&sum, st == WR_SUCCESS && tu_same(g, w, t), "all -0, rows 1 x %zu SUM: %s, got %s", n,
                      wr_status_string(st), tu_fmt(g, t, gs, sizeof gs));
        }
        np = positions(n, pos);
        for (p = 0; p < np; p++) {
            fill(n, t, 0.0);
            tu_set_f(buf, t, pos[p], -0.0);
            red_is(&tal, n, t, WR_MIN, -0.0, "one -0 among +0");
            red_is(&tal, n, t, WR_MAX, n > 1 ? 0.0 : -0.0, "one -0 among +0");
            scans_ok(&tal, n, t, WR_MIN, "one -0 among +0");
            scans_ok(&tal, n, t, WR_MAX, "one -0 among +0");
            fill(n, t, -0.0);
            tu_set_f(buf, t, pos[p], 0.0);
            red_is(&tal, n, t, WR_MAX, 0.0, "one +0 among -0");
            red_is(&tal, n, t, WR_MIN, n > 1 ? -0.0 : 0.0, "one +0 among -0");
            scans_ok(&tal, n, t, WR_MIN, "one +0 among -0");
            scans_ok(&tal, n, t, WR_MAX, "one +0 among -0");
        }
        /* random signs of zero */
        for (i = 0; i < n; i++) tu_set_f(buf, t, i, tu_below(&rng, 2) ? 0.0 : -0.0);
        scans_ok(&tal, n, t, WR_MIN, "random signed zeros");
        scans_ok(&tal, n, t, WR_MAX, "random signed zeros");
        scans_check(&sum, n, t, WR_SUM, 0, "random signed zeros");
    }
    tu_report(&tal, "%s: MIN/MAX order -0 < +0: min(-0, +0) = -0, max(-0, +0) = +0, bit for bit", tu_type_name(t));
    tu_report(&sum, "%s: SUM of -0s is -0 (reduce, rows, scans), -0 + +0 is +0, bit for bit", tu_type_name(t));
}

static void test_arg_float(wr_type t)
{
    size_t s;
    tu_tally tal;
    tu_tally_init(&tal);
    for (s = 0; s < NSIZES; s++) {
        size_t n = sizes[s], a, b;
        int m;
        fill(n, t, HUGE_VAL);
        arg_is(&tal, n, t, 0, 0, "all +inf");
        arg_is(&tal, n, t, 1, 0, "all +inf");
        fill(n, t, -HUGE_VAL);
        arg_is(&tal, n, t, 1, 0, "all -inf");
        arg_is(&tal, n, t, 0, 0, "all -inf");
        fill(n, t, NAN);
        arg_is(&tal, n, t, 0, 0, "all NaN");
        arg_is(&tal, n, t, 1, 0, "all NaN");
        fill(n, t, 7.0);
        arg_is(&tal, n, t, 0, 0, "all equal");
        arg_is(&tal, n, t, 1, 0, "all equal");
        if (n < 2) continue;
        /* two equal extremes at a < b: the first wins */
        a = (size_t)tu_below(&rng, n - 1);
        b = a + 1 + (size_t)tu_below(&rng, n - 1 - a);
        for (m = 0; m <= 1; m++) {
            fill_finite(n, t);
            tu_set_f(buf, t, a, m ? 5e3 : -5e3);
            tu_set_f(buf, t, b, m ? 5e3 : -5e3);
            arg_is(&tal, n, t, m, a, "tie of extremes");
            tu_set_f(buf, t, b, m ? HUGE_VAL : -HUGE_VAL);
            arg_is(&tal, n, t, m, b, "an inf after the finite extreme");
            /* NaN: the first NaN, even after the extreme, before a later NaN */
            tu_set_f(buf, t, b, NAN);
            arg_is(&tal, n, t, m, b, "one NaN");
            tu_set_f(buf, t, a, NAN);
            arg_is(&tal, n, t, m, a, "two NaNs");
            /* signed zeros tie: the first one wins, its value is returned */
            fill(n, t, m ? -1.0 : 1.0);
            tu_set_f(buf, t, a, m ? -0.0 : 0.0);
            tu_set_f(buf, t, b, m ? 0.0 : -0.0);
            arg_is(&tal, n, t, m, a, "-0 and +0 tie");
        }
    }
    tu_report(&tal, "%s argmin/argmax: first extreme, ties, first NaN, all +inf -> index 0 value +inf, -0 == +0",
              tu_type_name(t));
}

static void set_int(wr_type t, size_t i, uint64_t bits)
{
    tu_set_bits(buf, t, i, bits);
}

static void test_int(wr_type t)
{
    int sgn = tu_is_signed(t), w = (int)tu_size(t) * 8;
    uint64_t maxv = (w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1) >> (sgn ? 1 : 0);
    uint64_t minv = sgn ? maxv + 1 : 0;    /* bit pattern of the type's minimum */
    size_t s, i;
    tu_tally tal;
    tu_tally_init(&tal);
    for (s = 0; s < NSIZES; s++) {
        size_t n = sizes[s], a, b;
        unsigned char g[8];
        wr_status st;
#define RED_BITS(op, want, what)                                                                   \
        do {                                                                                       \
            tu_poison(g, sizeof g);                                                                \
            st = wr_reduce(ctx, buf, g, n, t, (op));                                               \
            tu_expect(&tal, st == WR_SUCCESS && tu_get_bits(g, t, 0) == (want),                    \
                      "%s %s count %zu: got 0x%llx want 0x%llx", what, tu_op_name(op), n,          \
                      (unsigned long long)tu_get_bits(g, t, 0), (unsigned long long)(want));       \
        } while (0)
        for (i = 0; i < n; i++) set_int(t, i, maxv);
        RED_BITS(WR_MIN, maxv, "all type max");
        RED_BITS(WR_MAX, maxv, "all type max");
        arg_is(&tal, n, t, 0, 0, "all type max");
        RED_BITS(WR_SUM, (maxv * (uint64_t)n) & (w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1), "all type max");
        for (i = 0; i < n; i++) set_int(t, i, minv);
        RED_BITS(WR_MAX, minv, "all type min");
        RED_BITS(WR_MIN, minv, "all type min");
        arg_is(&tal, n, t, 1, 0, "all type min");
        scans_ok(&tal, n, t, WR_SUM, "all type min");
        scans_ok(&tal, n, t, WR_PROD, "all type min");
        if (n < 2) continue;
        /* max + 1 wraps to min */
        for (i = 0; i < n; i++) set_int(t, i, 0);
        set_int(t, 0, maxv);
        set_int(t, n - 1, 1);
        RED_BITS(WR_SUM, minv, "type max + 1");
        /* ties of extremes: first index */
        a = (size_t)tu_below(&rng, n - 1);
        b = a + 1 + (size_t)tu_below(&rng, n - 1 - a);
        tu_fill(&rng, buf, n, t, WR_SUM, TU_EXACT, n);
        for (i = 0; i < n; i++)
            if (tu_get_bits(buf, t, i) == minv || tu_get_bits(buf, t, i) == maxv) set_int(t, i, 0);
        set_int(t, a, minv);
        set_int(t, b, minv);
        arg_is(&tal, n, t, 0, a, "tie of type min");
        set_int(t, a, maxv);
        set_int(t, b, maxv);
        arg_is(&tal, n, t, 1, a, "tie of type max");
#undef RED_BITS
    }
    tu_report(&tal, "%s: type extremes for MIN/MAX/argmin/argmax, SUM/PROD wrap-around", tu_type_name(t));
}

int main(void)
{
    plan(5 * 2 + 4);
    tu_rng_seed(&rng, tu_seed());
    ctx = tu_context(WR_BACKEND_AUTO);
    buf = (unsigned char *)tu_xmalloc(MAXN * 8);
    out = (unsigned char *)tu_xmalloc(MAXN * 8);
    test_nan(WR_FLOAT);
    test_nan(WR_DOUBLE);
    test_inf(WR_FLOAT);
    test_inf(WR_DOUBLE);
    test_zeros(WR_FLOAT);
    test_zeros(WR_DOUBLE);
    test_arg_float(WR_FLOAT);
    test_arg_float(WR_DOUBLE);
    test_int(WR_INT32);
    test_int(WR_INT64);
    test_int(WR_UINT32);
    test_int(WR_UINT64);
    free(buf);
    free(out);
    wr_context_destroy(ctx);
    return 0;
}

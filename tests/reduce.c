/*
 * reduce.c -- wr_reduce for every valid (type, op) pair, and wr_argmin /
 * wr_argmax for every type, over the sizes plus seeded random sizes.
 *
 * Results are compared with the independent serial reference of testutil.c:
 * bit for bit on data whose result is exact in any evaluation order
 * (integers, integer-valued floats, powers of two, MIN/MAX), and within the
 * DESIGN.md bound (ceil(log2 n) + 1024) u sum|x| on random float sums (for
 * products: gamma_n relative).  Each call must also leave its input as it was
 * and write nothing outside its output.  One TAP line per (function, type,
 * op, kind of data) sums up all sizes; a failure names the first bad size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define NRANDOM 4
#define MAXRANDOM 100000

static void test_reduce(wr_context *ctx, tu_rng *r, const size_t *sizes, size_t nsizes, size_t maxn,
                        wr_type t, wr_op op, enum tu_kind kind)
{
    size_t sz = tu_size(t), k;
    unsigned char *in = (unsigned char *)tu_xmalloc(maxn * sz);
    unsigned char *copy = (unsigned char *)tu_xmalloc(maxn * sz);
    unsigned char *out = (unsigned char *)tu_guard_alloc(sz);
    char why[512];
    tu_tally tal;

    tu_tally_init(&tal);
    for (k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        wr_status st;
        tu_fill(r, in, n, t, op, kind, n);
        memcpy(copy, in, n * sz);
        tu_poison(out, sz);
        /* a pointer no element is read through may be NULL: try that at n == 0 */
        st = wr_reduce(ctx, n == 0 ? NULL : in, out, n, t, op);
        if (!tu_expect(&tal, st == WR_SUCCESS, "count %zu: %s: %s", n, wr_status_string(st),
                       wr_context_error(ctx)))
            continue;
        tu_expect(&tal, tu_check_reduce(in, n, t, op, out, kind == TU_ROUNDED, why, sizeof why), "%s", why);
        tu_expect(&tal, memcmp(in, copy, n * sz) == 0, "count %zu: the input was modified", n);
        tu_expect(&tal, tu_guard_ok(out), "count %zu: wrote outside the output element", n);
        tu_expect(&tal, wr_context_error(ctx)[0] == '\0', "count %zu: error text after success: %s", n,
                  wr_context_error(ctx));
    }
    tu_report(&tal, "wr_reduce %s %s, %s data, %zu sizes", tu_type_name(t), tu_op_name(op),
              tu_kind_name(kind), nsizes);
    free(in);
    free(copy);
    tu_guard_free(out);
}

/* Values with many ties: a small range of integers, or (one array in four)
 * arbitrary values of the type. */
static void fill_ties(tu_rng *r, void *buf, size_t n, wr_type t)
{
    size_t i;
    int wide = tu_below(r, 4) == 0;
    if (wide) {
        tu_fill(r, buf, n, t, WR_MIN, TU_EXACT, n);
        return;
    }
    for (i = 0; i < n; i++) {
        int64_t v = (int64_t)tu_below(r, 40) - (tu_is_signed(t) || tu_is_float(t) ? 20 : 0);
        if (tu_is_float(t)) tu_set_f(buf, t, i, (double)v);
        else tu_set_bits(buf, t, i, (uint64_t)v);
    }
}

static void test_argext(wr_context *ctx, tu_rng *r, const size_t *sizes, size_t nsizes, size_t maxn,
                        wr_type t, int is_max)
{
    const char *fn = is_max ? "wr_argmax" : "wr_argmin";
    size_t sz = tu_size(t), k;
    unsigned char *in = (unsigned char *)tu_xmalloc(maxn * sz);
    unsigned char *copy = (unsigned char *)tu_xmalloc(maxn * sz);
    unsigned char *value = (unsigned char *)tu_guard_alloc(sz);
    size_t *index = (size_t *)tu_guard_alloc(sizeof(size_t));
    char w[96], g[96];
    tu_tally tal;

    tu_tally_init(&tal);
    for (k = 0; k < nsizes; k++) {
        size_t n = sizes[k], want, idx2;
        wr_status st;
        if (n == 0) continue;    /* WR_ERR_EMPTY: see arg_errors */
        fill_ties(r, in, n, t);
        memcpy(copy, in, n * sz);
        want = tu_ref_argext(in, n, t, is_max);
        tu_poison(value, sz);
        tu_poison(index, sizeof *index);
        st = is_max ? wr_argmax(ctx, in, n, t, index, value) : wr_argmin(ctx, in, n, t, index, value);
        if (!tu_expect(&tal, st == WR_SUCCESS, "count %zu: %s: %s", n, wr_status_string(st),
                       wr_context_error(ctx)))
            continue;
        tu_expect(&tal, *index == want, "count %zu: index %zu, expected %zu (value there %s, at expected %s)",
                  n, *index, want, *index < n ? tu_fmt(in + *index * sz, t, g, sizeof g) : "out of range",
                  tu_fmt(in + want * sz, t, w, sizeof w));
        tu_expect(&tal, memcmp(value, in + want * sz, sz) == 0, "count %zu: value %s, expected in[%zu] = %s", n,
                  tu_fmt(value, t, g, sizeof g), want, tu_fmt(in + want * sz, t, w, sizeof w));
        tu_expect(&tal, memcmp(in, copy, n * sz) == 0, "count %zu: the input was modified", n);
        tu_expect(&tal, tu_guard_ok(value) && tu_guard_ok(index), "count %zu: wrote outside index/value", n);
        /* value may be NULL */
        st = is_max ? wr_argmax(ctx, in, n, t, &idx2, NULL) : wr_argmin(ctx, in, n, t, &idx2, NULL);
        tu_expect(&tal, st == WR_SUCCESS && idx2 == want, "count %zu, value NULL: %s, index %zu, expected %zu",
                  n, wr_status_string(st), idx2, want);
    }
    tu_report(&tal, "%s %s, ties and random values, %zu sizes", fn, tu_type_name(t), nsizes - 1);
    free(in);
    free(copy);
    tu_guard_free(value);
    tu_guard_free(index);
}

/* 2^24 uniform [0,1) values: a long sequential float accumulation (one per
 * thread included) is off by far more than the DESIGN.md bound here. */
static void test_long_sum(wr_context *ctx, tu_rng *r, wr_type t)
{
    size_t n = (size_t)1 << 24, i, sz = tu_size(t);
    void *in = tu_xmalloc(n * sz);
    unsigned char out[8];
    char why[512] = "";
    wr_status st;
    for (i = 0; i < n; i++) tu_set_f(in, t, i, tu_unit(r));
    st = wr_reduce(ctx, in, out, n, t, WR_SUM);
    if (st != WR_SUCCESS)
        snprintf(why, sizeof why, "%s: %s", wr_status_string(st), wr_context_error(ctx));
    if (!ok(st == WR_SUCCESS && tu_check_reduce(in, n, t, WR_SUM, out, 1, why, sizeof why),
            "wr_reduce %s SUM of 2^24 uniform [0,1) values within the bound", tu_type_name(t)))
        diag("    %s", why);
    free(in);
}

int main(void)
{
    size_t sizes[64], nsizes, maxn = 0, k;
    wr_context *ctx;
    wr_type t;
    wr_op op;
    tu_rng r;
    unsigned long nchecks = 0;
    int i;

    TU_FOR_PAIRS(t, op) {
        nchecks += 1 + (unsigned long)tu_kind_applies(t, op, TU_ROUNDED);
    }
    nchecks += 2 * TU_NTYPES + 2;
    plan(nchecks);

    tu_rng_seed(&r, tu_seed());
    nsizes = tu_make_sizes(&r, sizes, NRANDOM, MAXRANDOM);
    for (k = 0; k < nsizes; k++)
        if (sizes[k] > maxn) maxn = sizes[k];
    ctx = tu_context(WR_BACKEND_AUTO);
    diag("%s", wr_context_describe(ctx));

    TU_FOR_PAIRS(t, op) {
        test_reduce(ctx, &r, sizes, nsizes, maxn, t, op, TU_EXACT);
        if (tu_kind_applies(t, op, TU_ROUNDED))
            test_reduce(ctx, &r, sizes, nsizes, maxn, t, op, TU_ROUNDED);
    }
    for (i = 0; i < TU_NTYPES; i++) {
        test_argext(ctx, &r, sizes, nsizes, maxn, tu_types[i], 0);
        test_argext(ctx, &r, sizes, nsizes, maxn, tu_types[i], 1);
    }
    test_long_sum(ctx, &r, WR_FLOAT);
    test_long_sum(ctx, &r, WR_DOUBLE);
    wr_context_destroy(ctx);
    return 0;
}

/*
 * scan.c -- wr_scan (inclusive) and wr_exscan (exclusive) for every valid
 * (type, op) pair over the sizes plus seeded random sizes, out of
 * place and in place (out == in).
 *
 * Every output element is compared with the independent serial reference of
 * testutil.c: bit for bit on data whose result is exact in any order, and on
 * random float sums within the DESIGN.md scan bound (a block of at most 4096
 * elements scanned on top of a base: see tu_scan_slack).  Then the accuracy
 * DESIGN.md promises: on 2^26 uniform [0,1) floats every prefix is within
 * 1e-4 relative of the exact one (a sequential float cumsum is off by
 * percents there).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define NRANDOM 4
#define MAXRANDOM 100000

static wr_status call(wr_context *ctx, int exclusive, const void *in, void *out, size_t n, wr_type t,
                      wr_op op)
{
    return exclusive ? wr_exscan(ctx, in, out, n, t, op) : wr_scan(ctx, in, out, n, t, op);
}

static void test_scan(wr_context *ctx, tu_rng *r, const size_t *sizes, size_t nsizes, size_t maxn,
                      int exclusive, wr_type t, wr_op op, enum tu_kind kind)
{
    const char *fn = exclusive ? "wr_exscan" : "wr_scan";
    size_t sz = tu_size(t), k;
    unsigned char *in = (unsigned char *)tu_xmalloc(maxn * sz);
    unsigned char *copy = (unsigned char *)tu_xmalloc(maxn * sz);
    char why[512];
    tu_tally tal;

    tu_tally_init(&tal);
    for (k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        unsigned char *out = (unsigned char *)tu_guard_alloc(n * sz);
        wr_status st;
        tu_fill(r, in, n, t, op, kind, n);
        memcpy(copy, in, n * sz);

        /* out of place; at n == 0 both pointers may be NULL */
        st = call(ctx, exclusive, n ? in : NULL, n ? out : NULL, n, t, op);
        if (tu_expect(&tal, st == WR_SUCCESS, "count %zu: %s: %s", n, wr_status_string(st),
                      wr_context_error(ctx))) {
            tu_expect(&tal, tu_check_scan(in, out, n, t, op, exclusive, kind == TU_ROUNDED, why, sizeof why),
                      "%s", why);
            tu_expect(&tal, memcmp(in, copy, n * sz) == 0, "count %zu: the input was modified", n);
            tu_expect(&tal, tu_guard_ok(out), "count %zu: wrote outside out[0..count)", n);
        }

        /* in place: out == in */
        memcpy(out, copy, n * sz);
        st = call(ctx, exclusive, out, out, n, t, op);
        if (tu_expect(&tal, st == WR_SUCCESS, "in place, count %zu: %s: %s", n, wr_status_string(st),
                      wr_context_error(ctx))) {
            if (!tu_check_scan(copy, out, n, t, op, exclusive, kind == TU_ROUNDED, why, sizeof why))
                tu_expect(&tal, 0, "in place, %s", why);
            tu_expect(&tal, tu_guard_ok(out), "in place, count %zu: wrote outside the buffer", n);
        }
        tu_guard_free(out);
    }
    tu_report(&tal, "%s %s %s, %s data, %zu sizes, out of place and in place", fn, tu_type_name(t),
              tu_op_name(op), tu_kind_name(kind), nsizes);
    free(in);
    free(copy);
}

/* 2^26 uniform [0,1) floats scanned in place; the exact prefixes come from
 * the same random stream again (double holds them exactly: 24-bit values
 * whose sums stay below 2^26). */
static void test_accuracy(wr_context *ctx, uint64_t seed, int exclusive)
{
    const size_t n = (size_t)1 << 26;
    const char *fn = exclusive ? "wr_exscan" : "wr_scan";
    float *buf = (float *)tu_xmalloc(n * sizeof *buf);
    double exact = 0.0, worst = 0.0;
    size_t i, worst_i = 0, bad = 0, first_bad = 0;
    tu_rng r;
    wr_status st;

    tu_rng_seed(&r, seed);
    for (i = 0; i < n; i++) buf[i] = (float)(tu_rand(&r) >> 40) * 0x1p-24f;
    st = exclusive ? wr_exscan(ctx, buf, buf, n, WR_FLOAT, WR_SUM) : wr_scan(ctx, buf, buf, n, WR_FLOAT, WR_SUM);
    if (st != WR_SUCCESS) {
        ok(0, "%s float SUM of 2^26 uniform [0,1) values within 1e-4 relative", fn);
        diag("    %s: %s", wr_status_string(st), wr_context_error(ctx));
        free(buf);
        return;
    }
    tu_rng_seed(&r, seed);
    for (i = 0; i < n; i++) {
        double x = (double)(tu_rand(&r) >> 40) * 0x1p-24, err;
        if (!exclusive) exact += x;
        err = fabs((double)buf[i] - exact);
        if (!(err <= 1e-4 * exact)) {
            if (bad++ == 0) first_bad = i;
        }
        if (exact > 0 && err / exact > worst) {
            worst = err / exact;
            worst_i = i;
        }
        if (exclusive) exact += x;
    }
    if (!ok(bad == 0, "%s float SUM of 2^26 uniform [0,1) values within 1e-4 relative", fn))
        diag("    %zu outputs off, first out[%zu]", bad, first_bad);
    diag("    largest relative error %.3g at out[%zu]", worst, worst_i);
    free(buf);
}

int main(void)
{
    size_t sizes[64], nsizes, maxn = 0, k;
    wr_context *ctx;
    wr_type t;
    wr_op op;
    tu_rng r;
    unsigned long nchecks = 0;
    int ex;

    TU_FOR_PAIRS(t, op) {
        nchecks += 2 * (1 + (unsigned long)tu_kind_applies(t, op, TU_ROUNDED));
    }
    plan(nchecks + 2);

    tu_rng_seed(&r, tu_seed());
    nsizes = tu_make_sizes(&r, sizes, NRANDOM, MAXRANDOM);
    for (k = 0; k < nsizes; k++)
        if (sizes[k] > maxn) maxn = sizes[k];
    ctx = tu_context(WR_BACKEND_AUTO);
    diag("%s", wr_context_describe(ctx));

    for (ex = 0; ex <= 1; ex++)
        TU_FOR_PAIRS(t, op) {
            test_scan(ctx, &r, sizes, nsizes, maxn, ex, t, op, TU_EXACT);
            if (tu_kind_applies(t, op, TU_ROUNDED))
                test_scan(ctx, &r, sizes, nsizes, maxn, ex, t, op, TU_ROUNDED);
        }
    test_accuracy(ctx, tu_rand(&r), 0);
    test_accuracy(ctx, tu_rand(&r), 1);
    wr_context_destroy(ctx);
    return 0;
}

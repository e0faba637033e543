/*
 * buffer_edges.c -- valid calls at the edges of warpred.h's buffer rules
 * (issue #23, items 3, 6 and 9); the refusals are in arg_errors.c.  Run it
 * under the UBSan builds: a valid call must be free of undefined behaviour,
 * not only give the right result.
 *
 *  - buffers aligned to their elements but not beyond (int32 at odd element
 *    offsets: 4-byte but not 8-byte aligned; 8-byte types at odd element
 *    offsets: not 16-byte aligned) are accepted by every function, for every
 *    (type, op), and give the reference's result;
 *  - NULL where nothing is read or written: reduce of 0 elements with in ==
 *    NULL, scans of 0 elements with in == out == NULL, rows with cols == 0
 *    and in == NULL (identities), 0 rows with both NULL, segments that are
 *    all empty with in == NULL (also with offsets[0] > 0), no segments at all;
 *  - NaN results of float SUM and PROD: wr_reduce, wr_reduce_rows and
 *    wr_reduce_segments give the same bits on the same elements (a NaN of
 *    either sign among them, or inf * 0 making one), whatever the length and
 *    so whichever path of the backend runs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* ---- naturally aligned at odd element offsets ------------------------------- */

static void odd_offsets(wr_context *ctx, tu_rng *r)
{
    static const size_t ns[] = { 1, 7, 100, 1001, 4099 };
    wr_type t;
    wr_op op;
    TU_FOR_PAIRS(t, op) {
        size_t sz = tu_size(t), k;
        tu_tally tal;
        tu_tally_init(&tal);
        for (k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            size_t n = ns[k], skip = 2 * k + 1;         /* odd: 1, 3, 5, ... elements */
            /* one block for in, out and offsets: element offsets odd from a 64-byte base */
            size_t total = (2 * n + 64) * 8 + 64, oo = n + skip + 8 + ((n + skip + 8) % 2 == 0);
            unsigned char *base = (unsigned char *)tu_xmalloc(total);   /* malloc: 16-byte aligned */
            unsigned char *in = base + skip * sz, *out = base + oo * sz;
            size_t off[4] = { 0, n / 3, n / 3, n }, idx = 0;
            /* offsets at an odd size_t offset from a 16-byte boundary, index next to them */
            size_t *offs = (size_t *)(void *)(base + total - 5 * sizeof(size_t)), *pidx = offs - 3;
            char why[512];
            union { unsigned char b[8]; uint64_t align; } value;
            wr_status st;

            tu_fill(r, in, n, t, op, TU_EXACT, n);
            st = wr_reduce(ctx, in, out, n, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_check_reduce(in, n, t, op, out, 0, why, sizeof why),
                      "reduce n=%zu at element %zu: %s %s", n, skip, wr_status_string(st),
                      st ? wr_context_error(ctx) : why);
            st = wr_scan(ctx, in, out, n, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_check_scan(in, out, n, t, op, 0, 0, why, sizeof why),
                      "scan n=%zu: %s %s", n, wr_status_string(st), st ? wr_context_error(ctx) : why);
            st = wr_exscan(ctx, in, out, n, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_check_scan(in, out, n, t, op, 1, 0, why, sizeof why),
                      "exscan n=%zu: %s %s", n, wr_status_string(st), st ? wr_context_error(ctx) : why);
            if (n % 7 == 0) {
                st = wr_reduce_rows(ctx, in, out, 7, n / 7, t, op);
                tu_expect(&tal, st == WR_SUCCESS && tu_check_rows(in, out, 7, n / 7, t, op, 0, why, sizeof why),
                          "rows 7 x %zu: %s %s", n / 7, wr_status_string(st), st ? wr_context_error(ctx) : why);
            } else {
                st = wr_reduce_rows(ctx, in, out, 1, n, t, op);
                tu_expect(&tal, st == WR_SUCCESS && tu_check_rows(in, out, 1, n, t, op, 0, why, sizeof why),
                          "rows 1 x %zu: %s %s", n, wr_status_string(st), st ? wr_context_error(ctx) : why);
            }
            memcpy(offs, off, sizeof off);
            st = wr_reduce_segments(ctx, in, out, 3, offs, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_check_segments(in, out, 3, off, t, op, 0, why, sizeof why),
                      "segments: %s %s", wr_status_string(st), st ? wr_context_error(ctx) : why);
            if (op == WR_MIN) {
                st = wr_argmin(ctx, in, n, t, pidx, value.b);
                idx = *pidx;
                tu_expect(&tal, st == WR_SUCCESS && idx == tu_ref_argext(in, n, t, 0) &&
                                  memcmp(value.b, in + idx * sz, sz) == 0,
                          "argmin n=%zu: %s idx %zu %s", n, wr_status_string(st), idx, st ? wr_context_error(ctx) : "");
                st = wr_argmax(ctx, in, n, t, pidx, out + 3 * sz);
                idx = *pidx;
                tu_expect(&tal, st == WR_SUCCESS && idx == tu_ref_argext(in, n, t, 1) &&
                                  memcmp(out + 3 * sz, in + idx * sz, sz) == 0,
                          "argmax n=%zu: %s idx %zu %s", n, wr_status_string(st), idx, st ? wr_context_error(ctx) : "");
            }
            free(base);
        }
        tu_report(&tal, "%s %s: buffers at odd element offsets (aligned to the element only) are accepted, "
                  "every function", tu_type_name(t), tu_op_name(op));
    }
}
#define N_ODD (4 * 7 + 2 * 4)     /* the valid (type, op) pairs: 4 integer types x 7, 2 float types x 4 */

/* ---- NULL where nothing moves --------------------------------------------- */

static void null_buffers(wr_context *ctx)
{
    wr_type t;
    wr_op op;
    tu_tally tal;
    tu_tally_init(&tal);
    TU_FOR_PAIRS(t, op) {
        size_t sz = tu_size(t), s;
        _Alignas(8) unsigned char id[8], out[4 * 8];
        size_t empty_at5[4] = { 5, 5, 5, 5 }, empty_at0[3] = { 0, 0, 0 };
        wr_status st;
        tu_identity(t, op, id);

        tu_poison(out, sizeof out);
        st = wr_reduce(ctx, NULL, out, 0, t, op);
        tu_expect(&tal, st == WR_SUCCESS && tu_same(out, id, t), "%s %s: reduce of 0 elements, in NULL: %s %s",
                  tu_type_name(t), tu_op_name(op), wr_status_string(st), wr_context_error(ctx));
        st = wr_scan(ctx, NULL, NULL, 0, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: scan of 0 elements, NULL buffers: %s", tu_type_name(t),
                  tu_op_name(op), wr_status_string(st));
        st = wr_exscan(ctx, NULL, NULL, 0, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: exscan of 0 elements, NULL buffers: %s", tu_type_name(t),
                  tu_op_name(op), wr_status_string(st));

        tu_poison(out, sizeof out);
        st = wr_reduce_rows(ctx, NULL, out, 3, 0, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: 3 rows of 0 columns, in NULL: %s %s", tu_type_name(t),
                  tu_op_name(op), wr_status_string(st), wr_context_error(ctx));
        for (s = 0; s < 3; s++)
            tu_expect(&tal, tu_same(out + s * sz, id, t), "%s %s: row %zu of 0 columns is the identity",
                      tu_type_name(t), tu_op_name(op), s);
        tu_expect(&tal, tu_poisoned(out + 3 * sz, sizeof out - 3 * sz), "%s %s: rows wrote past out[3]",
                  tu_type_name(t), tu_op_name(op));
        st = wr_reduce_rows(ctx, NULL, NULL, 0, 5, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: 0 rows of 5, NULL buffers: %s", tu_type_name(t), tu_op_name(op),
                  wr_status_string(st));

        tu_poison(out, sizeof out);
        st = wr_reduce_segments(ctx, NULL, out, 3, empty_at5, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: 3 empty segments at offset 5, in NULL: %s %s", tu_type_name(t),
                  tu_op_name(op), wr_status_string(st), wr_context_error(ctx));
        for (s = 0; s < 3; s++)
            tu_expect(&tal, tu_same(out + s * sz, id, t), "%s %s: empty segment %zu is the identity",
                      tu_type_name(t), tu_op_name(op), s);
        st = wr_reduce_segments(ctx, NULL, out, 2, empty_at0, t, op);
        tu_expect(&tal, st == WR_SUCCESS && tu_same(out, id, t) && tu_same(out + sz, id, t),
                  "%s %s: 2 empty segments at offset 0, in NULL: %s", tu_type_name(t), tu_op_name(op),
                  wr_status_string(st));
        st = wr_reduce_segments(ctx, NULL, NULL, 0, NULL, t, op);
        tu_expect(&tal, st == WR_SUCCESS, "%s %s: no segments, everything NULL: %s %s", tu_type_name(t),
                  tu_op_name(op), wr_status_string(st), wr_context_error(ctx));
    }
    tu_report(&tal, "NULL buffers where nothing is read or written, every (type, op): accepted, identities written");
}

/* ---- NaN results: the same bits from reduce, rows and segments -------------- */

static void set_elem(void *buf, wr_type t, size_t i, double v)
{
    tu_set_f(buf, t, i, v);
}

/* A NaN with the sign bit set and a payload, as a float or a double. */
static void set_negative_nan(void *buf, wr_type t, size_t i)
{
    if (t == WR_FLOAT) {
        uint32_t b = 0xffc01234u;
        memcpy((char *)buf + 4 * i, &b, 4);
    } else {
        uint64_t b = UINT64_C(0xfff8000000004321);
        memcpy((char *)buf + 8 * i, &b, 8);
    }
}

static void nan_bits(wr_context *ctx, tu_rng *r)
{
    static const size_t ns[] = { 2, 3, 9, 64, 1000, 4097, 70001 };
    static const wr_type ft[2] = { WR_FLOAT, WR_DOUBLE };
    int ti, oi, kind;
    for (ti = 0; ti < 2; ti++)
        for (oi = 0; oi < 2; oi++) {
            wr_type t = ft[ti];
            wr_op op = oi ? WR_PROD : WR_SUM;
            tu_tally tal;
            tu_tally_init(&tal);
            for (kind = 0; kind < 3; kind++) {
                size_t k;
                for (k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                    size_t n = ns[k], sz = tu_size(t), i, a = tu_below(r, n), b = tu_below(r, n);
                    unsigned char *in = (unsigned char *)tu_xmalloc(3 * n * sz);
                    _Alignas(8) unsigned char red[8], rows[3 * 8], segs[4 * 8];
                    size_t off[5] = { 0, n, n, 2 * n, 3 * n };
                    wr_status s1, s2, s3;
                    const char *what = kind == 0 ? "a NaN" : kind == 1 ? "a negative NaN" : "inf and 0";
                    if (b == a) b = (a + 1) % n;          /* two different elements */
                    for (i = 0; i < n; i++) set_elem(in, t, i, 1.0 + (double)(i % 3) * 0.5);
                    if (kind == 0) {
                        set_elem(in, t, a, NAN);
                        set_negative_nan(in, t, b);
                    } else if (kind == 1) {
                        set_negative_nan(in, t, a);
                        set_elem(in, t, b, op == WR_PROD ? INFINITY : -INFINITY);
                    } else {
                        /* PROD: inf * 0; SUM: inf + -inf */
                        set_elem(in, t, a, INFINITY);
                        set_elem(in, t, b, op == WR_PROD ? 0.0 : -INFINITY);
                    }
                    /* three identical rows; segments: the same elements, twice, with an empty one */
                    memcpy(in + n * sz, in, n * sz);
                    memcpy(in + 2 * n * sz, in, n * sz);
                    s1 = wr_reduce(ctx, in, red, n, t, op);
                    s2 = wr_reduce_rows(ctx, in, rows, 3, n, t, op);
                    s3 = wr_reduce_segments(ctx, in, segs, 4, off, t, op);
                    tu_expect(&tal, s1 == WR_SUCCESS && s2 == WR_SUCCESS && s3 == WR_SUCCESS,
                              "%s n=%zu: %s %s %s", what, n, wr_status_string(s1), wr_status_string(s2),
                              wr_status_string(s3));
                    {
                        char b0[64], b1[64], b2[64];
                        long double v = tu_get_f(red, t, 0);
                        tu_expect(&tal, v != v, "%s n=%zu: the reduce is NaN: %s", what, n,
                                  tu_fmt(red, t, b0, sizeof b0));
                        for (i = 0; i < 3; i++)
                            tu_expect(&tal, memcmp(red, rows + i * sz, sz) == 0,
                                      "%s n=%zu: row %zu has other bits than the reduce: %s vs %s", what, n, i,
                                      tu_fmt(rows + i * sz, t, b1, sizeof b1), tu_fmt(red, t, b0, sizeof b0));
                        tu_expect(&tal, memcmp(red, segs, sz) == 0 && memcmp(red, segs + 2 * sz, sz) == 0 &&
                                            memcmp(red, segs + 3 * sz, sz) == 0,
                                  "%s n=%zu: segments have other bits than the reduce: %s, %s vs %s", what, n,
                                  tu_fmt(segs, t, b1, sizeof b1), tu_fmt(segs + 2 * sz, t, b2, sizeof b2),
                                  tu_fmt(red, t, b0, sizeof b0));
                    }
                    free(in);
                }
            }
            tu_report(&tal, "%s %s: NaN results (a NaN of either sign, %s) have the same bits from reduce, rows "
                      "and segments", tu_type_name(t), tu_op_name(op), op == WR_PROD ? "inf * 0" : "inf - inf");
        }
}

int main(void)
{
    tu_rng r;
    wr_context *ctx;
    unsetenv("WARPRED_BACKEND");
    tu_rng_seed(&r, tu_seed());
    plan(N_ODD + 1 + 4);
    ctx = tu_context(WR_BACKEND_AUTO);
    odd_offsets(ctx, &r);
    null_buffers(ctx);
    nan_bits(ctx, &r);
    wr_context_destroy(ctx);
    return 0;
}

/*
 * rows_segments.c -- wr_reduce_rows and wr_reduce_segments for every valid
 * (type, op) pair against the independent reference of testutil.c (bit for
 * bit on exact data, within the DESIGN.md reduce bound on random float sums
 * and products).
 *
 * Rows: 1 x n, n x 1, r x 0 (identity rows), 0 x c, many short rows, few long
 * rows and seeded random shapes.  Segments: empty segments, offsets[0] > 0
 * (the elements before it are never read), one giant segment, many segments
 * of one element, only empty segments, no segment at all, and seeded random
 * segmentations.  Nothing may be written outside the output, nor the input
 * changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

struct shape { size_t rows, cols; };

static const struct shape fixed_shapes[] = {
    { 1, 1 }, { 1, 33 }, { 1, 4097 }, { 1, 262147 }, { 65537, 1 }, { 7, 0 }, { 0, 5 },
    { 10007, 3 }, { 4099, 17 }, { 3, 50021 }, { 2, 4097 },
};
#define NFIXED (sizeof fixed_shapes / sizeof fixed_shapes[0])
#define NRANDOM_SHAPES 3
#define NSHAPES (NFIXED + NRANDOM_SHAPES)

static struct shape shapes[NSHAPES];

static void test_rows(wr_context *ctx, tu_rng *r, wr_type t, wr_op op, enum tu_kind kind)
{
    size_t sz = tu_size(t), k, maxn = 0;
    unsigned char *in, *copy;
    char why[512];
    tu_tally tal;

    for (k = 0; k < NSHAPES; k++)
        if (shapes[k].rows * shapes[k].cols > maxn) maxn = shapes[k].rows * shapes[k].cols;
    in = (unsigned char *)tu_xmalloc(maxn * sz);
    copy = (unsigned char *)tu_xmalloc(maxn * sz);
    tu_tally_init(&tal);
    for (k = 0; k < NSHAPES; k++) {
        size_t rows = shapes[k].rows, cols = shapes[k].cols, n = rows * cols;
        unsigned char *out = (unsigned char *)tu_guard_alloc(rows * sz);
        wr_status st;
        tu_fill(r, in, n, t, op, kind, cols);
        memcpy(copy, in, n * sz);
        st = wr_reduce_rows(ctx, n ? in : NULL, rows ? out : NULL, rows, cols, t, op);
        if (tu_expect(&tal, st == WR_SUCCESS, "%zu x %zu: %s: %s", rows, cols, wr_status_string(st),
                      wr_context_error(ctx))) {
            tu_expect(&tal, tu_check_rows(in, out, rows, cols, t, op, kind == TU_ROUNDED, why, sizeof why), "%s",
                      why);
            tu_expect(&tal, tu_guard_ok(out), "%zu x %zu: wrote outside out[0..rows)", rows, cols);
            tu_expect(&tal, memcmp(in, copy, n * sz) == 0, "%zu x %zu: the input was modified", rows, cols);
        }
        tu_guard_free(out);
    }
    tu_report(&tal, "wr_reduce_rows %s %s, %s data, %zu shapes", tu_type_name(t), tu_op_name(op),
              tu_kind_name(kind), (size_t)NSHAPES);
    free(in);
    free(copy);
}

/* A segmentation: nseg segments from offsets[0] = start, each empty with
 * probability 1/4, else 1..maxlen long. */
struct segs {
    const char *name;
    size_t nseg, *off;
};

static struct segs random_segs(tu_rng *r, const char *name, size_t nseg, size_t start, size_t maxlen)
{
    struct segs s;
    size_t i;
    s.name = name;
    s.nseg = nseg;
    s.off = (size_t *)tu_xmalloc((nseg + 1) * sizeof *s.off);
    s.off[0] = start;
    for (i = 0; i < nseg; i++)
        s.off[i + 1] = s.off[i] + (tu_below(r, 4) == 0 ? 0 : 1 + (size_t)tu_below(r, maxlen));
    return s;
}

static struct segs even_segs(const char *name, size_t nseg, size_t start, size_t len)
{
    struct segs s;
    size_t i;
    s.name = name;
    s.nseg = nseg;
    s.off = (size_t *)tu_xmalloc((nseg + 1) * sizeof *s.off);
    for (i = 0; i <= nseg; i++) s.off[i] = start + i * len;
    return s;
}

#define NSEGS 9
static struct segs segs[NSEGS];

static void make_segmentations(tu_rng *r)
{
    int k = 0;
    segs[k++] = random_segs(r, "random, short", 20000, 0, 8);
    segs[k++] = random_segs(r, "random, long, offsets[0] > 0", 40, 1 + (size_t)tu_below(r, 5000), 5000);
    segs[k++] = random_segs(r, "random, mixed", 300, (size_t)tu_below(r, 3), 1 + (size_t)tu_below(r, 1000));
    segs[k++] = even_segs("one giant segment", 1, 0, ((size_t)1 << 20) + 3);
    segs[k++] = even_segs("one segment, offsets[0] = 17", 1, 17, 65537);
    segs[k++] = even_segs("65537 segments of one element", 65537, 0, 1);
    segs[k++] = even_segs("5 empty segments at 9", 5, 9, 0);
    segs[k++] = even_segs("no segment", 0, 0, 0);
    segs[k++] = random_segs(r, "random, blocks", 64, 4093, 4099);
}

static void test_segments(wr_context *ctx, tu_rng *r, wr_type t, wr_op op, enum tu_kind kind)
{
    size_t sz = tu_size(t), k, maxn = 0;
    unsigned char *in, *copy;
    char why[512];
    tu_tally tal;

    for (k = 0; k < NSEGS; k++)
        if (segs[k].off[segs[k].nseg] > maxn) maxn = segs[k].off[segs[k].nseg];
    in = (unsigned char *)tu_xmalloc(maxn * sz);
    copy = (unsigned char *)tu_xmalloc(maxn * sz);
    tu_tally_init(&tal);
    for (k = 0; k < NSEGS; k++) {
        size_t nseg = segs[k].nseg, *off = segs[k].off, n = off[nseg];
        size_t group = nseg ? (n - off[0]) / nseg + 1 : 1;
        unsigned char *out = (unsigned char *)tu_guard_alloc(nseg * sz);
        wr_status st;
        /* the elements before offsets[0] hold data too: reading them would show */
        tu_fill(r, in, n, t, op, kind, group);
        memcpy(copy, in, n * sz);
        st = wr_reduce_segments(ctx, in, nseg ? out : NULL, nseg, nseg ? off : NULL, t, op);
        if (tu_expect(&tal, st == WR_SUCCESS, "%s: %s: %s", segs[k].name, wr_status_string(st),
                      wr_context_error(ctx))) {
            if (!tu_check_segments(in, out, nseg, off, t, op, kind == TU_ROUNDED, why, sizeof why))
                tu_expect(&tal, 0, "%s: %s", segs[k].name, why);
            tu_expect(&tal, tu_guard_ok(out), "%s: wrote outside out[0..nsegments)", segs[k].name);
            tu_expect(&tal, memcmp(in, copy, n * sz) == 0, "%s: the input was modified", segs[k].name);
        }
        tu_guard_free(out);
    }
    tu_report(&tal, "wr_reduce_segments %s %s, %s data, %d segmentations", tu_type_name(t), tu_op_name(op),
              tu_kind_name(kind), NSEGS);
    free(in);
    free(copy);
}

int main(void)
{
    wr_context *ctx;
    wr_type t;
    wr_op op;
    tu_rng r;
    unsigned long nchecks = 0;
    size_t k;
    int fn;

    TU_FOR_PAIRS(t, op) {
        nchecks += 2 * (1 + (unsigned long)tu_kind_applies(t, op, TU_ROUNDED));
    }
    plan(nchecks);
    tu_rng_seed(&r, tu_seed());
    ctx = tu_context(WR_BACKEND_AUTO);

    for (k = 0; k < NFIXED; k++) shapes[k] = fixed_shapes[k];
    for (; k < NSHAPES; k++) {
        shapes[k].rows = 1 + (size_t)tu_below(&r, 2000);
        shapes[k].cols = 1 + (size_t)tu_below(&r, 200000 / shapes[k].rows);
        diag("random shape %zu x %zu", shapes[k].rows, shapes[k].cols);
    }
    make_segmentations(&r);

    for (fn = 0; fn < 2; fn++)
        TU_FOR_PAIRS(t, op) {
            enum tu_kind kind;
            for (kind = TU_EXACT; kind <= TU_ROUNDED; kind++) {
                if (!tu_kind_applies(t, op, kind)) continue;
                if (fn == 0) test_rows(ctx, &r, t, op, kind);
                else test_segments(ctx, &r, t, op, kind);
            }
        }
    for (k = 0; k < NSEGS; k++) free(segs[k].off);
    wr_context_destroy(ctx);
    return 0;
}

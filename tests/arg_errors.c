/*
 * arg_errors.c -- every argument error of every operation returns its status
 * (WR_ERR_INVALID_ARG, or WR_ERR_EMPTY for argmin/argmax over 0 elements),
 * leaves a one-line wr_context_error() that names the argument, and leaves
 * every output exactly as it was (outputs are poisoned with a byte pattern
 * before the call and compared after; the input must not change either).
 *
 * Covered: NULL ctx, NULL in/out/index/offsets where data moves, type and op
 * out of range, rows*cols and count*size overflow, nsegments + 1 overflow,
 * decreasing offsets, overlapping buffers (including a partial overlap of a
 * scan's in and out, while out == in is allowed), argmin/argmax of nothing;
 * counts whose buffer would end past the address space (2^60 elements on a
 * small buffer: the reason names the count, also when an output lies above
 * the input, where the range would otherwise look like an overlap); every
 * buffer argument of every function misaligned for its elements (by one
 * byte, and 8-byte elements by four).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "testutil.h"

#define N 64
static _Alignas(16) int32_t in[N];
static int32_t saved[N];
static _Alignas(16) unsigned char out[N * 8];
static size_t idx;
static _Alignas(16) unsigned char idxbuf[32];     /* for a misaligned index */
static _Alignas(16) unsigned char offbuf[64];     /* for misaligned offsets (an input) */
static union { unsigned char b[16]; uint64_t align; } val_u;   /* aligned for any type; room to misalign */
#define val (val_u.b)

static void reset(void)
{
    int i;
    for (i = 0; i < N; i++) in[i] = i + 1;
    memcpy(saved, in, sizeof in);
    tu_poison(out, sizeof out);
    tu_poison(&idx, sizeof idx);
    tu_poison(val, sizeof val);
    tu_poison(idxbuf, sizeof idxbuf);
}

static int untouched(void)
{
    return memcmp(in, saved, sizeof in) == 0 && tu_poisoned(out, sizeof out) && tu_poisoned(&idx, sizeof idx) &&
           tu_poisoned(val, sizeof val) && tu_poisoned(idxbuf, sizeof idxbuf);
}

/* ectx: the context whose error text the call sets (NULL for a NULL ctx).
 * word, word2 (may be NULL): arguments the text must name. */
static void check(const wr_context *ectx, wr_status want, wr_status got, const char *word, const char *word2,
                  const char *what)
{
    const char *e = wr_context_error(ectx);
    int text = e[0] != '\0' && strchr(e, '\n') == NULL && tu_mentions(e, word) && (!word2 || tu_mentions(e, word2));
    int same = untouched();
    if (!ok(got == want && text && same, "%s: %s naming %s%s%s, outputs untouched", what, wr_status_string(want),
            word, word2 ? " and " : "", word2 ? word2 : ""))
        diag("    got %s, error \"%s\"%s", wr_status_string(got), e, same ? "" : ", an output or the input changed");
}

#define CASE(ectx, want, word, word2, call, what)            \
    do {                                                      \
        reset();                                              \
        check((ectx), (want), (call), (word), (word2), (what)); \
    } while (0)

#define BADT ((wr_type)6)
#define NEGT ((wr_type)-1)
#define BADOP ((wr_op)7)
#define NEGOP ((wr_op)-1)
#define INV WR_ERR_INVALID_ARG

static void null_ctx(void)
{
    size_t off[3] = { 0, 1, 2 };
    CASE(NULL, INV, "ctx", NULL, wr_reduce(NULL, in, out, 4, WR_INT32, WR_SUM), "wr_reduce ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_scan(NULL, in, out, 4, WR_INT32, WR_SUM), "wr_scan ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_exscan(NULL, in, out, 4, WR_INT32, WR_SUM), "wr_exscan ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_reduce_rows(NULL, in, out, 2, 2, WR_INT32, WR_SUM), "wr_reduce_rows ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_reduce_segments(NULL, in, out, 2, off, WR_INT32, WR_SUM),
         "wr_reduce_segments ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_argmin(NULL, in, 4, WR_INT32, &idx, val), "wr_argmin ctx NULL");
    CASE(NULL, INV, "ctx", NULL, wr_argmax(NULL, in, 4, WR_INT32, &idx, val), "wr_argmax ctx NULL");
}

static void reduce_errors(wr_context *c)
{
    CASE(c, INV, "in", NULL, wr_reduce(c, NULL, out, 5, WR_INT32, WR_SUM), "wr_reduce in NULL");
    CASE(c, INV, "out", NULL, wr_reduce(c, in, NULL, 5, WR_INT32, WR_SUM), "wr_reduce out NULL");
    CASE(c, INV, "out", NULL, wr_reduce(c, in, NULL, 0, WR_INT32, WR_SUM),
         "wr_reduce out NULL at count 0 (the identity is written)");
    CASE(c, INV, "type", NULL, wr_reduce(c, in, out, 5, BADT, WR_SUM), "wr_reduce type 6");
    CASE(c, INV, "type", NULL, wr_reduce(c, in, out, 5, NEGT, WR_SUM), "wr_reduce type -1");
    CASE(c, INV, "op", NULL, wr_reduce(c, in, out, 5, WR_INT32, BADOP), "wr_reduce op 7");
    CASE(c, INV, "op", NULL, wr_reduce(c, in, out, 5, WR_INT32, NEGOP), "wr_reduce op -1");
    CASE(c, INV, "count", NULL, wr_reduce(c, in, out, SIZE_MAX / 4 + 1, WR_INT32, WR_SUM),
         "wr_reduce count * 4 overflows size_t");
    CASE(c, INV, "count", NULL, wr_reduce(c, in, out, SIZE_MAX / 8 + 1, WR_DOUBLE, WR_MAX),
         "wr_reduce count * 8 overflows size_t");
    CASE(c, INV, "in", "out", wr_reduce(c, in, in + 2, 5, WR_INT32, WR_SUM), "wr_reduce out inside in");
    CASE(c, INV, "in", "out", wr_reduce(c, in, in + 4, 5, WR_INT32, WR_SUM), "wr_reduce out on in's last element");
    CASE(c, INV, "in", NULL, wr_reduce(c, (const void *)(UINTPTR_MAX - 15), out, 8, WR_INT32, WR_SUM),
         "wr_reduce in + count wraps the address space");
}

static void scan_errors(wr_context *c, int ex)
{
    char what[128];
#define SCAN(i, o, n, t, op) (ex ? wr_exscan(c, (i), (o), (n), (t), (op)) : wr_scan(c, (i), (o), (n), (t), (op)))
    const char *fn = ex ? "wr_exscan" : "wr_scan";
    wr_status st;
#define W(s) (snprintf(what, sizeof what, "%s %s", fn, s), what)
    CASE(c, INV, "in", NULL, SCAN(NULL, out, 5, WR_INT32, WR_SUM), W("in NULL"));
    CASE(c, INV, "out", NULL, SCAN(in, NULL, 5, WR_INT32, WR_SUM), W("out NULL"));
    CASE(c, INV, "type", NULL, SCAN(in, out, 5, BADT, WR_SUM), W("type 6"));
    CASE(c, INV, "op", NULL, SCAN(in, out, 5, WR_INT32, BADOP), W("op 7"));
    CASE(c, INV, "count", NULL, SCAN(in, out, SIZE_MAX / 4 + 1, WR_UINT32, WR_SUM), W("count * 4 overflows"));
    CASE(c, INV, "in", "out", SCAN(in, in + 1, 8, WR_INT32, WR_SUM), W("out = in + 1 (partial overlap)"));
    CASE(c, INV, "in", "out", SCAN(in + 1, in, 8, WR_INT32, WR_SUM), W("out = in - 1 (partial overlap)"));
    CASE(c, INV, "in", "out", SCAN(in, in + 7, 8, WR_INT32, WR_SUM), W("out overlaps in's last element"));
    CASE(c, INV, "out", "aligned", SCAN(in, (char *)in + 2, 4, WR_INT32, WR_SUM), W("out = in + 2 bytes (misaligned)"));
    /* out == in is allowed, and at count 0 nothing moves so NULL is fine */
    reset();
    st = SCAN(in, in, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && in[7] == (ex ? 28 : 36), "%s out == in is allowed (%s)", fn, wr_status_string(st));
    st = SCAN(NULL, NULL, 0, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS, "%s count 0 with NULL in and out is allowed (%s)", fn, wr_status_string(st));
#undef W
#undef SCAN
}

static void rows_errors(wr_context *c)
{
    CASE(c, INV, "rows", "cols", wr_reduce_rows(c, in, out, SIZE_MAX / 2 + 1, 2, WR_INT32, WR_SUM),
         "wr_reduce_rows rows * cols overflows size_t");
    CASE(c, INV, "rows", "cols", wr_reduce_rows(c, in, out, 3, SIZE_MAX / 2, WR_INT32, WR_SUM),
         "wr_reduce_rows rows * cols overflows size_t (cols large)");
    CASE(c, INV, "rows", NULL, wr_reduce_rows(c, in, out, SIZE_MAX / 16 + 1, 2, WR_INT64, WR_SUM),
         "wr_reduce_rows rows * cols * 8 overflows size_t");
    CASE(c, INV, "in", NULL, wr_reduce_rows(c, NULL, out, 2, 3, WR_INT32, WR_SUM), "wr_reduce_rows in NULL");
    CASE(c, INV, "out", NULL, wr_reduce_rows(c, in, NULL, 2, 3, WR_INT32, WR_SUM), "wr_reduce_rows out NULL");
    CASE(c, INV, "out", NULL, wr_reduce_rows(c, NULL, NULL, 2, 0, WR_INT32, WR_SUM),
         "wr_reduce_rows out NULL with 0 columns (identities are written)");
    CASE(c, INV, "in", "out", wr_reduce_rows(c, in, in + 5, 2, 3, WR_INT32, WR_SUM),
         "wr_reduce_rows out overlaps in");
    CASE(c, INV, "type", NULL, wr_reduce_rows(c, in, out, 2, 3, NEGT, WR_SUM), "wr_reduce_rows type -1");
    CASE(c, INV, "op", NULL, wr_reduce_rows(c, in, out, 2, 3, WR_INT32, BADOP), "wr_reduce_rows op 7");
}

static void segments_errors(wr_context *c)
{
    size_t good[3] = { 0, 2, 5 }, down[3] = { 0, 5, 3 }, down0[3] = { 4, 2, 6 };
    size_t huge[2] = { 0, SIZE_MAX / 2 }, off_out[4] = { 0, 1, 2, 3 };
    CASE(c, INV, "offsets", NULL, wr_reduce_segments(c, in, out, 2, NULL, WR_INT32, WR_SUM),
         "wr_reduce_segments offsets NULL");
    CASE(c, INV, "offsets", NULL, wr_reduce_segments(c, in, out, 2, down, WR_INT32, WR_SUM),
         "wr_reduce_segments offsets {0, 5, 3} decrease");
    CASE(c, INV, "offsets", NULL, wr_reduce_segments(c, in, out, 2, down0, WR_INT32, WR_SUM),
         "wr_reduce_segments offsets {4, 2, 6} decrease");
    CASE(c, INV, "in", NULL, wr_reduce_segments(c, NULL, out, 2, good, WR_INT32, WR_SUM),
         "wr_reduce_segments in NULL");
    CASE(c, INV, "out", NULL, wr_reduce_segments(c, in, NULL, 2, good, WR_INT32, WR_SUM),
         "wr_reduce_segments out NULL");
    CASE(c, INV, "nsegments", NULL, wr_reduce_segments(c, in, out, SIZE_MAX, good, WR_INT32, WR_SUM),
         "wr_reduce_segments nsegments + 1 overflows size_t");
    CASE(c, INV, "offsets", NULL, wr_reduce_segments(c, in, out, 1, huge, WR_INT32, WR_SUM),
         "wr_reduce_segments offsets[1] * 4 overflows size_t");
    CASE(c, INV, "out", "offsets", wr_reduce_segments(c, in, (void *)off_out, 2, off_out, WR_INT32, WR_SUM),
         "wr_reduce_segments out overlaps offsets");
    CASE(c, INV, "in", "out", wr_reduce_segments(c, in, in + 3, 2, good, WR_INT32, WR_SUM),
         "wr_reduce_segments out overlaps in[offsets[0] .. offsets[2])");
    CASE(c, INV, "type", NULL, wr_reduce_segments(c, in, out, 2, good, BADT, WR_SUM),
         "wr_reduce_segments type 6");
    CASE(c, INV, "op", NULL, wr_reduce_segments(c, in, out, 2, good, WR_INT32, NEGOP),
         "wr_reduce_segments op -1");
    {
        /* out may sit in the part of in that no segment reads */
        size_t tail[3] = { 8, 10, 12 };
        wr_status st;
        reset();
        st = wr_reduce_segments(c, in, in, 2, tail, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && in[0] == 9 + 10 && in[1] == 11 + 12,
           "wr_reduce_segments out over in[0..2), segments read in[8..12): allowed (%s)", wr_status_string(st));
    }
}

static void argext_errors(wr_context *c, int is_max)
{
    char what[128];
    const char *fn = is_max ? "wr_argmax" : "wr_argmin";
#define ARG(i, n, t, x, v) (is_max ? wr_argmax(c, (i), (n), (t), (x), (v)) : wr_argmin(c, (i), (n), (t), (x), (v)))
#define W(s) (snprintf(what, sizeof what, "%s %s", fn, s), what)
    CASE(c, WR_ERR_EMPTY, "count", NULL, ARG(in, 0, WR_INT32, &idx, val), W("count 0"));
    CASE(c, WR_ERR_EMPTY, "count", NULL, ARG(NULL, 0, WR_FLOAT, &idx, NULL), W("count 0, in and value NULL"));
    CASE(c, INV, "index", NULL, ARG(in, 5, WR_INT32, NULL, val), W("index NULL"));
    CASE(c, INV, "in", NULL, ARG(NULL, 5, WR_INT32, &idx, val), W("in NULL"));
    CASE(c, INV, "type", NULL, ARG(in, 5, BADT, &idx, val), W("type 6"));
    CASE(c, INV, "count", NULL, ARG(in, SIZE_MAX / 8 + 1, WR_INT64, &idx, val), W("count * 8 overflows"));
    CASE(c, INV, "in", "value", ARG(in, 5, WR_INT32, &idx, in + 2), W("value inside in"));
    CASE(c, INV, "in", "index", ARG(in, 8, WR_INT32, (size_t *)(void *)(in + 2), val), W("index inside in"));
    CASE(c, INV, "index", "value", ARG(in, 5, WR_INT64, &idx, &idx), W("value overlaps index"));
    CASE(c, INV, "value", "aligned", ARG(in, 5, WR_INT64, &idx, (char *)val + 4), W("value misaligned"));
#undef W
#undef ARG
}

/* Counts past the address space: 2^60 elements of a few bytes end beyond
 * any user address (the pointer arithmetic would wrap or leave the address
 * space), so the call must be refused before anything is read. */
#define HUGE ((size_t)1 << 60)
static void huge_counts(wr_context *c)
{
    size_t good[3] = { 0, 2, 5 }, far[2] = { 0, HUGE };
    CASE(c, INV, "count", NULL, wr_reduce(c, in, out, HUGE, WR_INT32, WR_SUM), "wr_reduce count 2^60");
    CASE(c, INV, "count", NULL, wr_reduce(c, in, out, HUGE, WR_DOUBLE, WR_PROD), "wr_reduce count 2^60 (double)");
    CASE(c, INV, "count", NULL, wr_scan(c, in, out, HUGE, WR_INT32, WR_SUM), "wr_scan count 2^60");
    CASE(c, INV, "count", NULL, wr_exscan(c, in, out, HUGE, WR_INT64, WR_MAX), "wr_exscan count 2^60");
    CASE(c, INV, "count", NULL, wr_scan(c, in, in, HUGE, WR_INT32, WR_SUM), "wr_scan count 2^60 in place");
    CASE(c, INV, "rows", "cols", wr_reduce_rows(c, in, out, (size_t)1 << 40, (size_t)1 << 20, WR_INT32, WR_SUM),
         "wr_reduce_rows 2^40 x 2^20");
    CASE(c, INV, "rows", NULL, wr_reduce_rows(c, NULL, out, HUGE, 0, WR_FLOAT, WR_MIN),
         "wr_reduce_rows 2^60 rows of 0 columns (out is past the end)");
    CASE(c, INV, "nsegments", NULL, wr_reduce_segments(c, in, out, HUGE, good, WR_INT32, WR_SUM),
         "wr_reduce_segments nsegments 2^60");
    CASE(c, INV, "offsets", NULL, wr_reduce_segments(c, in, out, 1, far, WR_INT32, WR_SUM),
         "wr_reduce_segments offsets {0, 2^60}");
    CASE(c, INV, "count", NULL, wr_argmin(c, in, HUGE, WR_INT32, &idx, val), "wr_argmin count 2^60");
    CASE(c, INV, "count", NULL, wr_argmax(c, in, HUGE, WR_UINT64, &idx, NULL), "wr_argmax count 2^60");
}

/* Check a refusal that must name want and must not call it an overlap. */
static void not_overlap(const wr_context *c, wr_status st, const char *want, const char *what)
{
    const char *e = wr_context_error(c);
    int same = untouched();
    if (!ok(st == INV && tu_mentions(e, want) && !tu_contains(e, "overlap") && same,
            "%s: WR_ERR_INVALID_ARG naming %s, not an overlap, outputs untouched", what, want))
        diag("    got %s, error \"%s\"%s", wr_status_string(st), e, same ? "" : ", an output or the input changed");
}

/* An output above the input with a huge count: [in, in + count) would cover
 * it, but the count is the error. */
static void huge_not_overlap(wr_context *c)
{
    size_t far[3] = { 0, 2, HUGE };
    int32_t *above = in + 16;
    reset();
    not_overlap(c, wr_reduce(c, in, above, HUGE, WR_INT32, WR_SUM), "count", "wr_reduce out above in, count 2^60");
    reset();
    not_overlap(c, wr_scan(c, in, above, HUGE, WR_INT32, WR_SUM), "count", "wr_scan out above in, count 2^60");
    reset();
    not_overlap(c, wr_exscan(c, in, above, HUGE, WR_INT32, WR_SUM), "count", "wr_exscan out above in, count 2^60");
    reset();
    not_overlap(c, wr_reduce_rows(c, in, above, 2, HUGE / 2, WR_INT32, WR_SUM), "cols",
                "wr_reduce_rows out above in, 2 x 2^59");
    reset();
    not_overlap(c, wr_reduce_segments(c, in, above, 2, far, WR_INT32, WR_SUM), "offsets",
                "wr_reduce_segments out above in, offsets {0, 2, 2^60}");
    reset();
    not_overlap(c, wr_argmin(c, in, HUGE, WR_INT32, (size_t *)(void *)(in + 16), NULL), "count",
                "wr_argmin index above in, count 2^60");
    reset();
    not_overlap(c, wr_argmax(c, in, HUGE, WR_INT32, &idx, in + 16), "count", "wr_argmax value above in, count 2^60");
}

/* Every buffer argument of every function, misaligned for its elements: by
 * one byte, and 8-byte elements (and size_t offsets and index) by four. */
static void misaligned(wr_context *c)
{
    static const wr_type ts[2] = { WR_INT32, WR_DOUBLE };
    char *bi = (char *)in, *bo = (char *)out;
    size_t good[3] = { 0, 2, 5 };
    char what[160];
    int k, m;
#define W(fmt, ...) (snprintf(what, sizeof what, fmt, __VA_ARGS__), what)
    for (k = 0; k < 2; k++) {
        wr_type t = ts[k];
        for (m = 1; m <= 4; m += 3) {
            if (m == 4 && wr_type_size(t) == 4) continue;
            CASE(c, INV, "in", "aligned", wr_reduce(c, bi + m, bo, 5, t, WR_MAX), W("wr_reduce %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "out", "aligned", wr_reduce(c, bi, bo + 64 + m, 5, t, WR_MAX), W("wr_reduce %s out + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_scan(c, bi + m, bo, 5, t, WR_MAX), W("wr_scan %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "out", "aligned", wr_scan(c, bi, bo + m, 5, t, WR_MAX), W("wr_scan %s out + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_exscan(c, bi + m, bo, 5, t, WR_MIN), W("wr_exscan %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "out", "aligned", wr_exscan(c, bi, bo + m, 5, t, WR_MIN), W("wr_exscan %s out + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_reduce_rows(c, bi + m, bo, 2, 3, t, WR_MAX), W("wr_reduce_rows %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "out", "aligned", wr_reduce_rows(c, bi, bo + m, 2, 3, t, WR_MAX), W("wr_reduce_rows %s out + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_reduce_segments(c, bi + m, bo, 2, good, t, WR_MAX), W("wr_reduce_segments %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "out", "aligned", wr_reduce_segments(c, bi, bo + m, 2, good, t, WR_MAX), W("wr_reduce_segments %s out + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_argmin(c, bi + m, 5, t, &idx, val), W("wr_argmin %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "value", "aligned", wr_argmin(c, bi, 5, t, &idx, val + m), W("wr_argmin %s value + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "in", "aligned", wr_argmax(c, bi + m, 5, t, &idx, val), W("wr_argmax %s in + %d bytes", tu_type_name(t), m));
            CASE(c, INV, "value", "aligned", wr_argmax(c, bi, 5, t, &idx, val + m), W("wr_argmax %s value + %d bytes", tu_type_name(t), m));
        }
    }
    for (m = 1; m <= 4; m += 3) {
        /* offsets and index are size_t */
        size_t *mo = (size_t *)(void *)(offbuf + m), *mi = (size_t *)(void *)(idxbuf + m);
        memcpy(mo, good, sizeof good);
        CASE(c, INV, "offsets", "aligned", wr_reduce_segments(c, in, bo, 2, mo, WR_INT32, WR_SUM),
             W("wr_reduce_segments offsets + %d bytes", m));
        CASE(c, INV, "index", "aligned", wr_argmin(c, in, 5, WR_INT32, mi, val), W("wr_argmin index + %d bytes", m));
        CASE(c, INV, "index", "aligned", wr_argmax(c, in, 5, WR_INT32, mi, val), W("wr_argmax index + %d bytes", m));
    }
#undef W
}
#define N_MISALIGNED (2 * 14 + 14 + 2 * 3)

int main(void)
{
    wr_context *ctx;
    plan(7 + 12 + 2 * 11 + 9 + 12 + 2 * 10 + 11 + 7 + N_MISALIGNED);
    ctx = tu_context(WR_BACKEND_AUTO);
    null_ctx();
    reduce_errors(ctx);
    scan_errors(ctx, 0);
    scan_errors(ctx, 1);
    rows_errors(ctx);
    segments_errors(ctx);
    argext_errors(ctx, 0);
    argext_errors(ctx, 1);
    huge_counts(ctx);
    huge_not_overlap(ctx);
    misaligned(ctx);
    wr_context_destroy(ctx);
    return 0;
}

/*
 * omptarget_xval.c -- the omptarget backend against the cpu backend.
 *
 * Every public function x type x op x size, on four kinds of buffer:
 *   host     plain host memory on an OPENMP_TARGET context (on a device:
 *            staged through the default 64 MiB buffers; on the host
 *            fallback: used in place);
 *   staged   plain host memory on a context whose staging buffers are the
 *            least allowed (WARPRED_OMPTARGET_STAGING_BYTES=4194304), so
 *            that the larger sizes go through many chunks, also on the
 *            host fallback;
 *   mapped   host memory mapped with `target enter data` (the kernels use
 *            its device copy);
 *   device   memory from omp_target_alloc.
 * On a machine without an offload device, mapped and device buffers are
 * host memory (OpenMP's host fallback); the same program runs for real on a
 * GPU machine.  Checks:
 *  - exact data (wrapping integers, integer-valued floats, powers of two for
 *    float PROD, any values for MIN/MAX), NaNs, all negative zeros, ties:
 *    the cpu backend's bits (any NaN matches any NaN) and the reference's;
 *  - random float SUM/PROD: within DESIGN.md's bounds of a long-double
 *    reference;
 *  - on every kind of data: the four kinds of buffer give the same bits
 *    (staging is cut on the kernels' own boundaries: a staged call is the
 *    device-resident call), NaNs included;
 *  - the run's own bits again on a second call (determinism).
 * Scans inside segments (wr_scan_segments, wr_exscan_segments) for every
 * type x op and segment shape (all empty, tiny, short, one long among
 * short, one longer than the staging buffer, offsets[0] > 0): the cpu's
 * bits on exact data, within the bounds of a long-double reference per
 * segment on rounded data, the same bits on every kind of buffer, in place
 * and again; nothing outside [offsets[0], offsets[nsegments]) written.
 * In reproducible mode (WR_FLOAT_REPRODUCIBLE), float and double SUM
 * reductions, rows, segments, scans (wr_scan, wr_exscan, wr_scan_exact and
 * wr_exscan_exact from a base carried in), segmented scans and
 * wr_reduce_exact must give the cpu backend's bits exactly (both round the
 * exact sum once), on random data, on data spread over every binade that
 * cancels, with NaNs and with -0s; and wr_reduce_exact's sum is the cpu's
 * exactly (merged with the cpu's exact sum of the negated data it rounds
 * to zero).
 * Dot products and norms (wr_dot, with y == x too, wr_nrm2, wr_asum,
 * wr_dot_rows, wr_argmax_abs) of floats and doubles, 0 to 2^20 + 3
 * elements (past one 4 MiB staging chunk), rows of 0 to 300001 columns: fast,
 * within warpred.h's bounds of a long-double reference (and so is the
 * cpu), every kind of buffer the bits of host ones; reproducible (and
 * wr_dot_exact, wr_asum_exact, wr_nrm2_exact): the cpu's bits, on data
 * spread over every binade, with NaNs and -0s; argmax_abs: a plain loop's
 * index and the cpu's value; norms of 1e300 and 1e-300 elements; out
 * overlapping x refused with nothing written.
 * Then a 2^26-element float scan within 1e-4 relative, the context's
 * description, streams, and refusals (bad environment, partly mapped
 * buffers, decreasing offsets in device memory).
 *
 * WR_TEST_MAX_N caps the sizes (default 2^26, in a sanitizer build 2^22).
 * WR_TEST_TRACE (set) names each call on stderr as it returns: the results
 * print at the end, so a run that dies in a kernel says nothing else.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "testutil.h"

enum res { R_HOST, R_STAGED, R_MAPPED, R_DEVICE, R_COUNT };
static const char *const res_name[R_COUNT] = { "host", "staged", "mapped", "device" };
enum fn { F_REDUCE, F_SCAN, F_EXSCAN, F_ROWS, F_SEGS, F_SEGSCAN, F_SEGEXSCAN, F_ARGMIN, F_ARGMAX, F_COUNT };
static const char *const fn_name[F_COUNT] = { "wr_reduce", "wr_scan", "wr_exscan", "wr_reduce_rows",
                                              "wr_reduce_segments", "wr_scan_segments", "wr_exscan_segments",
                                              "wr_argmin", "wr_argmax" };
enum pat { P_EXACT, P_ROUNDED, P_NAN, P_NEGZERO, P_TIES, P_SPREAD };

static wr_context *cpu, *omp, *omp_st;
static int dev, host_dev, have_dev;
static size_t max_n, cap;                     /* the size cap; buffer capacity in elements */
static char *rin[R_COUNT], *rout[R_COUNT];
static size_t *roff[R_COUNT], *ridx[R_COUNT];
static char *rval[R_COUNT];
static char *hin, *hcpu, *hgot[R_COUNT], *hcopy;
static size_t *hoff;
static tu_tally tal[F_COUNT][TU_NTYPES][TU_NOPS];
static int ran[F_COUNT][TU_NTYPES][TU_NOPS];
static tu_rng rng;

#define ES(t) tu_size(t)
#define AT(p, t, i) ((char *)(p) + (size_t)(i) * ES(t))

/* ---- buffers of each kind ------------------------------------------------------ */

static void *res_alloc(enum res r, size_t bytes)
{
    char *p;
    if (bytes == 0) bytes = 64;
    if (r == R_DEVICE) {
        p = omp_target_alloc(bytes, dev);
        if (p == NULL) bail("omp_target_alloc of %zu bytes failed", bytes);
        return p;
    }
    p = tu_xmalloc(bytes);
    if (r == R_MAPPED) {
#pragma omp target enter data map(alloc: p[0:bytes]) device(dev)
    }
    return p;
}

static void res_free(enum res r, void *v, size_t bytes)
{
    char *p = v;
    if (bytes == 0) bytes = 64;
    if (r == R_DEVICE) {
        omp_target_free(p, dev);
        return;
    }
    if (r == R_MAPPED) {
#pragma omp target exit data map(delete: p[0:bytes]) device(dev)
    }
    free(p);
}

static void res_put(enum res r, void *dst, const void *src, size_t bytes)
{
    char *d = dst;
    if (bytes == 0) return;
    if (r == R_DEVICE) {
        if (omp_target_memcpy(d, (void *)(uintptr_t)src, bytes, 0, 0, dev, host_dev) != 0)
            bail("omp_target_memcpy to the device failed");
        return;
    }
    memcpy(d, src, bytes);
    if (r == R_MAPPED) {
#pragma omp target update to(d[0:bytes]) device(dev)
    }
}

static void res_get(enum res r, void *dst, const void *src, size_t bytes)
{
    char *s = (char *)(uintptr_t)src;
    if (bytes == 0) return;
    if (r == R_DEVICE) {
        if (omp_target_memcpy(dst, s, bytes, 0, 0, host_dev, dev) != 0)
            bail("omp_target_memcpy from the device failed");
        return;
    }
    if (r == R_MAPPED) {
#pragma omp target update from(s[0:bytes]) device(dev)
    }
    memcpy(dst, s, bytes);
}

static void res_poison(enum res r, void *dst, size_t bytes)
{
    unsigned char *h = tu_xmalloc(bytes ? bytes : 1);
    memset(h, 0x5a, bytes);
    res_put(r, dst, h, bytes);
    free(h);
}

static wr_context *rctx(enum res r)
{
    return r == R_STAGED ? omp_st : omp;
}

/* ---- data -------------------------------------------------------------------------- */

static void gen(void *buf, size_t n, wr_type t, wr_op op, enum pat p, size_t group)
{
    size_t i;
    if (p == P_ROUNDED) {
        tu_fill(&rng, buf, n, t, op, TU_ROUNDED, group);
        return;
    }
    if (p == P_TIES) {
        for (i = 0; i < n; i++) {
            if (tu_is_float(t)) {
                static const double tv[4] = { -0.0, 0.0, 1.0, -1.0 };
                tu_set_f(buf, t, i, tv[tu_below(&rng, 4)]);
            } else {
                tu_set_bits(buf, t, i, tu_below(&rng, 3));
            }
        }
        return;
    }
    if (p == P_NEGZERO) {
        for (i = 0; i < n; i++) tu_set_f(buf, t, i, -0.0);
        return;
    }
    if (p == P_SPREAD) {
        /* every binade the type has, subnormals too, and values that cancel:
         * the exact sum is far from any rounded one */
        const int emax = t == WR_FLOAT ? 127 : 1023, emin = t == WR_FLOAT ? -149 : -1074;
        for (i = 0; i < n; i++) {
            double v = ldexp(tu_unit(&rng) + 0.5, (int)tu_below(&rng, (uint64_t)(emax - emin)) + emin);
            if (t == WR_FLOAT && !((float)v < INFINITY)) v = 1.0;
            if (tu_below(&rng, 2)) v = -v;
            if (i > 0 && tu_below(&rng, 4) == 0) v = -tu_get_f(buf, t, i - 1);
            tu_set_f(buf, t, i, v);
        }
        return;
    }
    tu_fill(&rng, buf, n, t, op, TU_EXACT, group);
    if (p == P_NAN && n > 0) {
        tu_set_f(buf, t, tu_below(&rng, n), NAN);
        tu_set_f(buf, t, tu_below(&rng, n), -NAN);
    }
}

/* 1 if a[0..n) and b[0..n) are the same bits */
static int same_bits(const void *a, const void *b, size_t n, wr_type t)
{
    return n == 0 || memcmp(a, b, n * ES(t)) == 0;
}

/* 1 if every element matches (any NaN matches any NaN); else the first difference */
static int same_elems(const void *want, const void *got, size_t n, wr_type t, char *why, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!tu_same(AT(want, t, i), AT(got, t, i), t)) {
            char a[96], b[96];
            snprintf(why, len, "element %zu of %zu: cpu %s, omptarget %s", i, n,
                     tu_fmt(AT(want, t, i), t, a, sizeof a), tu_fmt(AT(got, t, i), t, b, sizeof b));
            return 0;
        }
    return 1;
}

static int call_ok(tu_tally *tl, wr_context *c, wr_status st, const char *what)
{
    static int trace = -1;
    if (trace < 0) trace = getenv("WR_TEST_TRACE") != NULL;
    if (trace) fprintf(stderr, "# returned: %s\n", what);     /* where a run that dies got to */
    if (!tu_expect(tl, st == WR_SUCCESS, "%s: %s: %s", what, wr_status_string(st), wr_context_error(c))) return 0;
    return tu_expect(tl, wr_context_last_backend(c) == WR_BACKEND_OPENMP_TARGET, "%s: ran on backend %d", what,
                     (int)wr_context_last_backend(c));
}

/* The results of the four kinds of buffer: the cpu's (exact patterns) or
 * within the bounds (rounded), and each kind the bits of the first. */
static void judge(tu_tally *tl, const char *what, enum pat p, size_t nout, wr_type t, const int *good,
                  int (*bounded)(const void *got, char *why, size_t len))
{
    char why[512];
    int r;
    for (r = 0; r < R_COUNT; r++) {
        if (!good[r]) continue;
        if (p == P_ROUNDED) {
            if (!bounded(hgot[r], why, sizeof why)) tu_expect(tl, 0, "%s on %s buffers: %s", what, res_name[r], why);
        } else if (!same_elems(hcpu, hgot[r], nout, t, why, sizeof why)) {
            tu_expect(tl, 0, "%s on %s buffers: %s", what, res_name[r], why);
        }
        if (r > 0 && good[0])
            tu_expect(tl, same_bits(hgot[0], hgot[r], nout, t), "%s: %s buffers do not give the bits of host ones",
                      what, res_name[r]);
    }
}

/* ---- the cases ---------------------------------------------------------------------- */

static const void *b_in;
static size_t b_n, b_rows, b_cols, b_nseg;
static wr_type b_t;
static wr_op b_op;
static int b_ex;
static int bound_reduce(const void *got, char *why, size_t len)
{
    return tu_check_reduce(b_in, b_n, b_t, b_op, got, 1, why, len);
}
static int bound_scan(const void *got, char *why, size_t len)
{
    return tu_check_scan(b_in, got, b_n, b_t, b_op, b_ex, 1, why, len);
}
static int bound_rows(const void *got, char *why, size_t len)
{
    return tu_check_rows(b_in, got, b_rows, b_cols, b_t, b_op, 1, why, len);
}
static int bound_segs(const void *got, char *why, size_t len)
{
    return tu_check_segments(b_in, got, b_nseg, hoff, b_t, b_op, 1, why, len);
}

static void case_linear(wr_type t, wr_op op, enum pat p, size_t n)
{
    const size_t es = ES(t), bytes = n * es;
    char what[160];
    int good[R_COUNT], r, ex;
    tu_tally *tl = &tal[F_REDUCE][t][op];

    gen(hin, n, t, op, p, n);
    b_in = hin; b_n = n; b_t = t; b_op = op;
    snprintf(what, sizeof what, "%s %s n=%zu pattern %d", tu_type_name(t), tu_op_name(op), n, (int)p);

    /* reduce */
    ran[F_REDUCE][t][op] = 1;
    if (!tu_expect(tl, wr_reduce(cpu, hin, hcpu, n, t, op) == WR_SUCCESS, "cpu wr_reduce %s", what)) return;
    for (r = 0; r < R_COUNT; r++) {
        wr_context *c = rctx((enum res)r);
        res_put((enum res)r, rin[r], hin, bytes);
        res_poison((enum res)r, rout[r], es);
        good[r] = call_ok(tl, c, wr_reduce(c, rin[r], rout[r], n, t, op), what);
        res_get((enum res)r, hgot[r], rout[r], es);
        if (good[r] && r == R_HOST) {       /* the same bits again */
            unsigned char again[8];
            if (wr_reduce(c, rin[r], rout[r], n, t, op) == WR_SUCCESS) {
                res_get((enum res)r, again, rout[r], es);
                tu_expect(tl, same_bits(again, hgot[r], 1, t), "%s: a second call gave other bits", what);
            }
        }
    }
    judge(tl, what, p, 1, t, good, bound_reduce);

    /* scans, out of place then in place */
    for (ex = 0; ex < 2; ex++) {
        const enum fn f = ex ? F_EXSCAN : F_SCAN;
        wr_status (*scan)(wr_context *, const void *, void *, size_t, wr_type, wr_op) = ex ? wr_exscan : wr_scan;
        tl = &tal[f][t][op];
        ran[f][t][op] = 1;
        b_ex = ex;
        if (!tu_expect(tl, scan(cpu, hin, hcpu, n, t, op) == WR_SUCCESS, "cpu %s %s", fn_name[f], what)) continue;
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            res_put((enum res)r, rin[r], hin, bytes);
            res_poison((enum res)r, rout[r], bytes);
            good[r] = call_ok(tl, c, scan(c, n ? rin[r] : NULL, n ? rout[r] : NULL, n, t, op), what);
            res_get((enum res)r, hgot[r], rout[r], bytes);
        }
        judge(tl, what, p, n, t, good, bound_scan);
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            char w2[200];
            snprintf(w2, sizeof w2, "%s in place", what);
            res_put((enum res)r, rout[r], hin, bytes);
            good[r] = call_ok(tl, c, scan(c, rout[r], rout[r], n, t, op), w2);
            res_get((enum res)r, hcopy, rout[r], bytes);
            if (good[r])
                tu_expect(tl, same_bits(hcopy, hgot[r], n, t), "%s on %s buffers: in place differs from out of place",
                          w2, res_name[r]);
        }
    }
}

static void case_rows(wr_type t, wr_op op, enum pat p, size_t rows, size_t cols)
{
    const size_t es = ES(t), n = rows * cols;
    char what[160];
    int good[R_COUNT], r;
    tu_tally *tl = &tal[F_ROWS][t][op];

    gen(hin, n, t, op, p, cols);
    b_in = hin; b_rows = rows; b_cols = cols; b_t = t; b_op = op;
    snprintf(what, sizeof what, "%s %s %zu x %zu pattern %d", tu_type_name(t), tu_op_name(op), rows, cols, (int)p);
    ran[F_ROWS][t][op] = 1;
    if (!tu_expect(tl, wr_reduce_rows(cpu, hin, hcpu, rows, cols, t, op) == WR_SUCCESS, "cpu %s", what)) return;
    for (r = 0; r < R_COUNT; r++) {
        wr_context *c = rctx((enum res)r);
        res_put((enum res)r, rin[r], hin, n * es);
        res_poison((enum res)r, rout[r], rows * es);
        good[r] = call_ok(tl, c, wr_reduce_rows(c, n ? rin[r] : NULL, rout[r], rows, cols, t, op), what);
        res_get((enum res)r, hgot[r], rout[r], rows * es);
    }
    judge(tl, what, p, rows, t, good, bound_rows);
}

static void case_segments(wr_type t, wr_op op, enum pat p, size_t nseg, const char *shape)
{
    const size_t es = ES(t), n = hoff[nseg];
    char what[200];
    int good[R_COUNT], r;
    tu_tally *tl = &tal[F_SEGS][t][op];

    size_t longest = 1, i;
    for (i = 0; i < nseg; i++)
        if (hoff[i + 1] - hoff[i] > longest) longest = hoff[i + 1] - hoff[i];
    gen(hin, n, t, op, p, longest);      /* products of the longest stay in range */
    b_in = hin; b_nseg = nseg; b_t = t; b_op = op;
    snprintf(what, sizeof what, "%s %s %s (%zu segments, %zu elements, from %zu) pattern %d", tu_type_name(t),
             tu_op_name(op), shape, nseg, n - hoff[0], hoff[0], (int)p);
    ran[F_SEGS][t][op] = 1;
    if (!tu_expect(tl, wr_reduce_segments(cpu, hin, hcpu, nseg, hoff, t, op) == WR_SUCCESS, "cpu %s", what)) return;
    for (r = 0; r < R_COUNT; r++) {
        wr_context *c = rctx((enum res)r);
        res_put((enum res)r, rin[r], hin, n * es);
        res_put((enum res)r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
        res_poison((enum res)r, rout[r], nseg * es);
        good[r] = call_ok(tl, c, wr_reduce_segments(c, n > hoff[0] ? rin[r] : NULL, rout[r], nseg, roff[r], t, op),
                          what);
        res_get((enum res)r, hgot[r], rout[r], nseg * es);
    }
    judge(tl, what, p, nseg, t, good, bound_segs);
}

/* Segmented scans: bytes of out outside [first, last) of total elements
 * still hold the poison. */
static int untouched(const void *got, size_t es, size_t first, size_t last, size_t total)
{
    const unsigned char *g = got;
    size_t i;
    for (i = 0; i < first * es; i++)
        if (g[i] != 0x5a) return 0;
    for (i = last * es; i < total * es; i++)
        if (g[i] != 0x5a) return 0;
    return 1;
}

static const size_t *b_off;
static int bound_segscan(const void *got, char *why, size_t len)
{
    size_t s;
    for (s = 0; s < b_nseg; s++) {
        const size_t a = b_off[s], n = b_off[s + 1] - a;
        char w[400];
        if (n && !tu_check_scan(AT(b_in, b_t, a), AT(got, b_t, a), n, b_t, b_op, b_ex, 1, w, sizeof w)) {
            snprintf(why, len, "segment %zu [%zu, %zu): %s", s, a, a + n, w);
            return 0;
        }
    }
    return 1;
}

/* wr_scan_segments and wr_exscan_segments over hoff[0..nseg]: out of place
 * (every kind of buffer; nothing outside the segments written; the same
 * bits again), then in place. */
static void case_segscan(wr_type t, wr_op op, enum pat p, size_t nseg, const char *shape)
{
    const size_t es = ES(t), first = hoff[0], last = hoff[nseg], total = last + 8;
    char what[240];
    int good[R_COUNT], r, ex;
    size_t longest = 1, i;

    for (i = 0; i < nseg; i++)
        if (hoff[i + 1] - hoff[i] > longest) longest = hoff[i + 1] - hoff[i];
    gen(hin, total, t, op, p, longest);      /* products of the longest stay in range */
    b_in = hin; b_nseg = nseg; b_off = hoff; b_t = t; b_op = op;
    for (ex = 0; ex < 2; ex++) {
        const enum fn f = ex ? F_SEGEXSCAN : F_SEGSCAN;
        wr_status (*scan)(wr_context *, const void *, void *, size_t, const size_t *, wr_type, wr_op) =
            ex ? wr_exscan_segments : wr_scan_segments;
        tu_tally *tl = &tal[f][t][op];
        ran[f][t][op] = 1;
        b_ex = ex;
        snprintf(what, sizeof what, "%s %s %s %s (%zu segments, %zu elements, from %zu) pattern %d", fn_name[f],
                 tu_type_name(t), tu_op_name(op), shape, nseg, last - first, first, (int)p);
        memset(hcpu, 0x5a, total * es);
        if (!tu_expect(tl, scan(cpu, hin, hcpu, nseg, hoff, t, op) == WR_SUCCESS, "cpu %s", what)) continue;
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            res_put((enum res)r, rin[r], hin, total * es);
            res_put((enum res)r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
            res_poison((enum res)r, rout[r], total * es);
            good[r] = call_ok(tl, c, scan(c, rin[r], rout[r], nseg, roff[r], t, op), what);
            res_get((enum res)r, hgot[r], rout[r], total * es);
            if (!good[r]) continue;
            tu_expect(tl, untouched(hgot[r], es, first, last, total), "%s on %s buffers: wrote outside the segments",
                      what, res_name[r]);
            if (r == R_HOST && tu_expect(tl, scan(c, rin[r], rout[r], nseg, roff[r], t, op) == WR_SUCCESS,
                                         "%s again: %s", what, wr_context_error(c))) {
                res_get((enum res)r, hcopy, rout[r], total * es);
                tu_expect(tl, same_bits(hcopy, hgot[r], total, t), "%s: a second call gave other bits", what);
            }
        }
        judge(tl, what, p, total, t, good, bound_segscan);
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            if (!good[r]) continue;
            res_put((enum res)r, rout[r], hin, total * es);
            if (!call_ok(tl, c, scan(c, rout[r], rout[r], nseg, roff[r], t, op), what)) continue;
            res_get((enum res)r, hcopy, rout[r], total * es);
            tu_expect(tl, same_bits(AT(hcopy, t, first), AT(hgot[r], t, first), last - first, t) &&
                              same_bits(hcopy, hin, first, t) && same_bits(AT(hcopy, t, last), AT(hin, t, last), 8, t),
                      "%s in place on %s buffers: other bits than out of place, or written outside", what,
                      res_name[r]);
        }
    }
}

static void case_argext(wr_type t, enum pat p, size_t n)
{
    const size_t es = ES(t);
    char what[160];
    int is_max, r;
    gen(hin, n, t, WR_MIN, p, n);
    for (is_max = 0; is_max < 2; is_max++) {
        const enum fn f = is_max ? F_ARGMAX : F_ARGMIN;
        wr_status (*arg)(wr_context *, const void *, size_t, wr_type, size_t *, void *) = is_max ? wr_argmax : wr_argmin;
        tu_tally *tl = &tal[f][t][0];
        size_t want = n ? tu_ref_argext(hin, n, t, is_max) : 0, ci = 7, gi[R_COUNT];
        unsigned char cv[8], gv[8];
        snprintf(what, sizeof what, "%s %s n=%zu pattern %d", fn_name[f], tu_type_name(t), n, (int)p);
        ran[f][t][0] = 1;
        if (n == 0) {
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                tu_expect(tl, arg(c, rin[r], 0, t, ridx[r], NULL) == WR_ERR_EMPTY, "%s on %s: not WR_ERR_EMPTY",
                          what, res_name[r]);
            }
            continue;
        }
        tu_expect(tl, arg(cpu, hin, n, t, &ci, cv) == WR_SUCCESS && ci == want, "cpu %s: index %zu, wanted %zu",
                  what, ci, want);
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            res_put((enum res)r, rin[r], hin, n * es);
            res_poison((enum res)r, ridx[r], sizeof(size_t));
            res_poison((enum res)r, rval[r], 8);
            if (!call_ok(tl, c, arg(c, rin[r], n, t, ridx[r], rval[r]), what)) continue;
            res_get((enum res)r, &gi[r], ridx[r], sizeof(size_t));
            res_get((enum res)r, gv, rval[r], es);
            tu_expect(tl, gi[r] == want && memcmp(gv, AT(hin, t, want), es) == 0,
                      "%s on %s buffers: index %zu, wanted %zu", what, res_name[r], gi[r], want);
            /* value may be NULL */
            if (r == R_HOST) {
                size_t i2 = 7;
                tu_expect(tl, arg(c, rin[r], n, t, ridx[r], NULL) == WR_SUCCESS, "%s, value NULL: %s", what,
                          wr_context_error(c));
                res_get((enum res)r, &i2, ridx[r], sizeof(size_t));
                tu_expect(tl, i2 == want, "%s, value NULL: index %zu, wanted %zu", what, i2, want);
            }
        }
    }
}

/* ---- reproducible float sums ---------------------------------------------------------- */

/* reduce (and reduce_exact), rows, segments, scans, segmented scans x float, double */
static tu_tally rtal[5][2];
static int rran[5][2];

static void set_mode(wr_float_mode m)
{
    if (wr_context_set_float_mode(cpu, m) != WR_SUCCESS || wr_context_set_float_mode(omp, m) != WR_SUCCESS ||
        wr_context_set_float_mode(omp_st, m) != WR_SUCCESS)
        bail("wr_context_set_float_mode failed");
}

/* reduce, reduce_exact, rows and segments of x[0..n) in reproducible mode:
 * the cpu backend's bits, on every kind of buffer */
static void case_repro(wr_type t, enum pat p, size_t n)
{
    const size_t es = ES(t);
    const int ti = t == WR_DOUBLE;
    char what[160];
    int r;
    unsigned char want[8], got[8];
    gen(hin, n, t, WR_SUM, p, n);
    snprintf(what, sizeof what, "%s n=%zu pattern %d", tu_type_name(t), n, (int)p);
    set_mode(WR_FLOAT_REPRODUCIBLE);

    /* reduce, and reduce_exact rounded by wr_exact_sum_round; the exact
     * sum itself: this backend's sum of x merged with the cpu's sum of -x
     * is exactly zero (no NaNs), and float data's sum rounded to double
     * is the cpu's */
    {
        tu_tally *tl = &rtal[0][ti];
        wr_exact_sum neg, want_x;
        unsigned char want_d[8];
        size_t i;
        rran[0][ti] = 1;
        for (i = 0; i < n; i++) tu_set_f(hcopy, t, i, -tu_get_f(hin, t, i));
        tu_expect(tl, wr_exact_sum_init(&neg) == WR_SUCCESS && wr_exact_sum_init(&want_x) == WR_SUCCESS &&
                          wr_reduce_exact(cpu, n ? hcopy : NULL, n, t, &neg) == WR_SUCCESS &&
                          wr_reduce_exact(cpu, n ? hin : NULL, n, t, &want_x) == WR_SUCCESS &&
                          wr_exact_sum_round(&want_x, WR_DOUBLE, want_d) == WR_SUCCESS,
                  "cpu wr_reduce_exact %s", what);
        if (tu_expect(tl, wr_reduce(cpu, hin, want, n, t, WR_SUM) == WR_SUCCESS, "cpu reduce %s", what))
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                wr_exact_sum xs;
                res_put((enum res)r, rin[r], hin, n * es);
                res_poison((enum res)r, rout[r], es);
                if (call_ok(tl, c, wr_reduce(c, n ? rin[r] : NULL, rout[r], n, t, WR_SUM), what)) {
                    res_get((enum res)r, got, rout[r], es);
                    tu_expect(tl, memcmp(got, want, es) == 0, "reproducible wr_reduce %s on %s buffers: other bits",
                              what, res_name[r]);
                }
                if (!tu_expect(tl, wr_exact_sum_init(&xs) == WR_SUCCESS, "wr_exact_sum_init") ||
                    !call_ok(tl, c, wr_reduce_exact(c, n ? rin[r] : NULL, n, t, &xs), what))
                    continue;
                if (tu_expect(tl, wr_exact_sum_round(&xs, t, got) == WR_SUCCESS, "wr_exact_sum_round"))
                    tu_expect(tl, memcmp(got, want, es) == 0, "wr_reduce_exact %s on %s buffers: other bits", what,
                              res_name[r]);
                if (tu_expect(tl, wr_exact_sum_round(&xs, WR_DOUBLE, got) == WR_SUCCESS, "wr_exact_sum_round"))
                    tu_expect(tl, memcmp(got, want_d, 8) == 0,
                              "wr_reduce_exact %s on %s buffers, rounded to double: other bits", what, res_name[r]);
                if (p != P_NAN && tu_expect(tl, wr_exact_sum_merge(&xs, &neg) == WR_SUCCESS, "wr_exact_sum_merge") &&
                    tu_expect(tl, wr_exact_sum_round(&xs, WR_DOUBLE, got) == WR_SUCCESS, "wr_exact_sum_round")) {
                    double z;
                    memcpy(&z, got, 8);
                    tu_expect(tl, z == 0.0, "wr_reduce_exact %s on %s buffers: minus the cpu's exact sum is %g, not 0",
                              what, res_name[r], z);
                }
            }
    }
    /* rows: one lane a row, lanes a row, a sum a row */
    {
        static const size_t cols[] = { 7, 64, 100, 4097, 300001 };
        tu_tally *tl = &rtal[1][ti];
        size_t k;
        rran[1][ti] = 1;
        for (k = 0; k < sizeof cols / sizeof cols[0]; k++) {
            const size_t rows = n / cols[k];
            if (rows == 0) continue;
            if (!tu_expect(tl, wr_reduce_rows(cpu, hin, hcpu, rows, cols[k], t, WR_SUM) == WR_SUCCESS, "cpu rows"))
                continue;
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                res_put((enum res)r, rin[r], hin, rows * cols[k] * es);
                res_poison((enum res)r, rout[r], rows * es);
                if (!call_ok(tl, c, wr_reduce_rows(c, rin[r], rout[r], rows, cols[k], t, WR_SUM), what)) continue;
                res_get((enum res)r, hgot[r], rout[r], rows * es);
                tu_expect(tl, same_bits(hcpu, hgot[r], rows, t),
                          "reproducible wr_reduce_rows %s, %zu x %zu, on %s buffers: other bits", what, rows, cols[k],
                          res_name[r]);
            }
        }
    }
    /* segments: short, long (one team), empty, and one longer than 4 MiB */
    {
        tu_tally *tl = &rtal[2][ti];
        size_t nseg = 0, pos = 3;
        rran[2][ti] = 1;
        hoff[0] = pos;
        while (pos < n && nseg < 5000) {
            size_t len = tu_below(&rng, 8) == 0 ? tu_below(&rng, 20000) : tu_below(&rng, 40);
            if (nseg == 7 && n > ((size_t)1 << 20) + 10) len = ((size_t)1 << 20) + 5;
            pos = len > n - pos ? n : pos + len;
            hoff[++nseg] = pos;
        }
        if (nseg > 0 &&
            tu_expect(tl, wr_reduce_segments(cpu, hin, hcpu, nseg, hoff, t, WR_SUM) == WR_SUCCESS, "cpu segments"))
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                res_put((enum res)r, rin[r], hin, n * es);
                res_put((enum res)r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
                res_poison((enum res)r, rout[r], nseg * es);
                if (!call_ok(tl, c, wr_reduce_segments(c, rin[r], rout[r], nseg, roff[r], t, WR_SUM), what))
                    continue;
                res_get((enum res)r, hgot[r], rout[r], nseg * es);
                tu_expect(tl, same_bits(hcpu, hgot[r], nseg, t),
                          "reproducible wr_reduce_segments %s, %zu segments, on %s buffers: other bits", what, nseg,
                          res_name[r]);
            }
        /* the same segments scanned: every output the exact prefix inside its
         * segment rounded once, the cpu's bits; nothing outside written */
        if (nseg > 0) {
            const size_t first = hoff[0], last = hoff[nseg], total = last < n ? last + 1 : last;
            int ex;
            tl = &rtal[4][ti];
            rran[4][ti] = 1;
            for (ex = 0; ex < 2; ex++) {
                wr_status (*scan)(wr_context *, const void *, void *, size_t, const size_t *, wr_type, wr_op) =
                    ex ? wr_exscan_segments : wr_scan_segments;
                memset(hcpu, 0x5a, total * es);
                if (!tu_expect(tl, scan(cpu, hin, hcpu, nseg, hoff, t, WR_SUM) == WR_SUCCESS, "cpu segmented scan"))
                    continue;
                for (r = 0; r < R_COUNT; r++) {
                    wr_context *c = rctx((enum res)r);
                    res_put((enum res)r, rin[r], hin, total * es);
                    res_put((enum res)r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
                    res_poison((enum res)r, rout[r], total * es);
                    if (call_ok(tl, c, scan(c, rin[r], rout[r], nseg, roff[r], t, WR_SUM), what)) {
                        res_get((enum res)r, hgot[r], rout[r], total * es);
                        tu_expect(tl, same_bits(hcpu, hgot[r], total, t),
                                  "reproducible %s %s, %zu segments from %zu, on %s buffers: other bits",
                                  ex ? "wr_exscan_segments" : "wr_scan_segments", what, nseg, first, res_name[r]);
                    }
                    res_put((enum res)r, rout[r], hin, total * es);
                    if (call_ok(tl, c, scan(c, rout[r], rout[r], nseg, roff[r], t, WR_SUM), what)) {
                        res_get((enum res)r, hcopy, rout[r], total * es);
                        tu_expect(tl, same_bits(AT(hcopy, t, first), AT(hcpu, t, first), last - first, t) &&
                                          same_bits(hcopy, hin, first, t) &&
                                          same_bits(AT(hcopy, t, last), AT(hin, t, last), total - last, t),
                                  "reproducible %s %s in place on %s buffers: other bits",
                                  ex ? "wr_exscan_segments" : "wr_scan_segments", what, res_name[r]);
                    }
                }
            }
        }
    }
    /* scans: wr_scan and wr_exscan in reproducible mode, and wr_scan_exact and
     * wr_exscan_exact from a base carried in (an exact sum that is far from
     * any double), out of place and in place: the cpu's bits */
    if (n > 0) {
        tu_tally *tl = &rtal[3][ti];
        wr_exact_sum base;
        unsigned char bv[5 * 8];
        static const double bvals[5] = { 1e30, 3.25, -1e30, 0x1p-60, -7.0 };
        int v;
        size_t i;
        rran[3][ti] = 1;
        for (i = 0; i < 5; i++) tu_set_f(bv, t, i, bvals[i]);
        if (!tu_expect(tl, wr_exact_sum_init(&base) == WR_SUCCESS && wr_reduce_exact(cpu, bv, 5, t, &base) ==
                               WR_SUCCESS, "cpu wr_reduce_exact of the base"))
            v = 4;
        else
            v = 0;
        for (; v < 4; v++) {
            const int ex = v & 1, based = v >> 1;
            const char *name = based ? (ex ? "wr_exscan_exact" : "wr_scan_exact") : (ex ? "wr_exscan" : "wr_scan");
            wr_status cst;
            if (based)
                cst = (ex ? wr_exscan_exact : wr_scan_exact)(cpu, hin, hcpu, n, t, &base);
            else
                cst = (ex ? wr_exscan : wr_scan)(cpu, hin, hcpu, n, t, WR_SUM);
            if (!tu_expect(tl, cst == WR_SUCCESS, "cpu %s %s: %s", name, what, wr_context_error(cpu))) continue;
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                int k;
                for (k = 0; k < 2; k++) {          /* out of place, then in place */
                    void *dst = rout[r];
                    const void *src = k ? dst : rin[r];
                    wr_status st;
                    res_put((enum res)r, k ? rout[r] : rin[r], hin, n * es);
                    if (!k) res_poison((enum res)r, rout[r], n * es);
                    if (based)
                        st = (ex ? wr_exscan_exact : wr_scan_exact)(c, src, dst, n, t, &base);
                    else
                        st = (ex ? wr_exscan : wr_scan)(c, src, dst, n, t, WR_SUM);
                    if (!call_ok(tl, c, st, what)) continue;
                    res_get((enum res)r, hgot[r], rout[r], n * es);
                    tu_expect(tl, same_bits(hcpu, hgot[r], n, t), "reproducible %s %s%s on %s buffers: other bits",
                              name, what, k ? " in place" : "", res_name[r]);
                }
            }
        }
    }
    set_mode(WR_FLOAT_FAST);
}

/* ---- dot products and norms ----------------------------------------------------------- */

/* wr_dot (x, y and x with itself), wr_nrm2, wr_asum, wr_dot_rows,
 * wr_argmax_abs x float, double; fast: within warpred.h's bounds of a
 * long-double reference and of the cpu, every kind of buffer the bits of
 * host ones; reproducible (and the exact partials): the cpu's bits */
enum { BL_DOT, BL_NRM2, BL_ASUM, BL_ROWS, BL_IAMAX, BL_N };
static const char *const bl_name[BL_N] = { "wr_dot", "wr_nrm2", "wr_asum", "wr_dot_rows", "wr_argmax_abs" };
static tu_tally btal[BL_N][2][2];             /* fn x type x mode */
static int bran[BL_N][2][2];

/* |got - want| within the bound of warpred.h (k: 0 dot, 1 nrm2, 2 asum) for
 * the n elements at x (and y); want a long-double reference */
static int blas_near(int k, wr_type t, const void *x, const void *y, size_t n, double got, char *why, size_t len)
{
    const long double u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L, eta = t == WR_FLOAT ? 0x1p-150L : 0x1p-1075L;
    long double ref = 0, mag = 0, L = 1024, tol;
    size_t i, m = 1;
    int nan = 0;
    while (m < n) { m *= 2; L += 1; }
    for (i = 0; i < n; i++) {
        const long double a = tu_get_f(x, t, i), b = k == 0 ? tu_get_f(y, t, i) : a;
        nan |= a != a || b != b;
        ref += k == 2 ? fabsl(a) : a * b;
        mag += k == 2 ? fabsl(a) : fabsl(a * b);
    }
    if (k == 1) {
        ref = sqrtl(ref);
        tol = (L / 2 + 2) * u * ref + eta;
    } else {
        tol = (L + 1) * u * mag + n * eta;
    }
    tol += u * fabsl(ref);                    /* the reference's own rounding to t, at most */
    if (nan) {
        if (got != got) return 1;
        snprintf(why, len, "%.17g, not NaN", got);
        return 0;
    }
    if (fabsl((long double)got - ref) <= tol || (isinf(got) && isinf((double)ref) && got == (double)ref)) return 1;
    snprintf(why, len, "%.17g, reference %.17Lg, bound %.3Lg", got, ref, tol);
    return 0;
}

static double elem_d(const void *p, wr_type t)
{
    return t == WR_FLOAT ? (double)*(const float *)p : *(const double *)p;
}

/* y of the dot products, of each kind (x is rin) */
static char *ry[R_COUNT];

static void case_blas(wr_type t, enum pat p, size_t n, int repro)
{
    const size_t es = ES(t);
    const int ti = t == WR_DOUBLE;
    char what[160], why[256];
    unsigned char want[8], got[R_COUNT][8];
    int r, k;
    gen(hin, n, t, WR_SUM, p, n);
    gen(hcopy, n, t, WR_SUM, p == P_NAN ? P_ROUNDED : p, n);
    snprintf(what, sizeof what, "%s n=%zu pattern %d%s", tu_type_name(t), n, (int)p, repro ? " reproducible" : "");
    set_mode(repro ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
    for (r = 0; r < R_COUNT; r++) {
        res_put((enum res)r, rin[r], hin, n * es);
        res_put((enum res)r, ry[r], hcopy, n * es);
    }
    /* dot of x and y, of x with itself (y == x), nrm2, asum */
    for (k = 0; k < 4; k++) {
        const int f = k < 2 ? BL_DOT : k == 2 ? BL_NRM2 : BL_ASUM;
        tu_tally *tl = &btal[f][ti][repro];
        const void *hy = k == 0 ? hcopy : hin;
        wr_status cst;
        bran[f][ti][repro] = 1;
        cst = k < 2 ? wr_dot(cpu, hin, hy, want, n, t) : k == 2 ? wr_nrm2(cpu, hin, want, n, t)
                                                               : wr_asum(cpu, hin, want, n, t);
        if (!tu_expect(tl, cst == WR_SUCCESS, "cpu %s %s", bl_name[f], what)) continue;
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            const void *y = k == 0 ? ry[r] : rin[r];
            wr_status st;
            res_poison((enum res)r, rout[r], es);
            st = k < 2 ? wr_dot(c, rin[r], y, rout[r], n, t) : k == 2 ? wr_nrm2(c, rin[r], rout[r], n, t)
                                                                     : wr_asum(c, rin[r], rout[r], n, t);
            if (!call_ok(tl, c, st, what)) {
                memset(got[r], 0, 8);
                continue;
            }
            res_get((enum res)r, got[r], rout[r], es);
            if (repro) {
                tu_expect(tl, memcmp(got[r], want, es) == 0, "%s%s %s on %s buffers: other bits than the cpu",
                          bl_name[f], k == 1 ? " (y == x)" : "", what, res_name[r]);
            } else {
                if (!blas_near(k == 2 ? 1 : k == 3 ? 2 : 0, t, hin, hy, n, elem_d(got[r], t), why, sizeof why))
                    tu_expect(tl, 0, "%s%s %s on %s buffers: %s", bl_name[f], k == 1 ? " (y == x)" : "", what,
                              res_name[r], why);
                if (!blas_near(k == 2 ? 1 : k == 3 ? 2 : 0, t, hin, hy, n, elem_d(want, t), why, sizeof why))
                    tu_expect(tl, 0, "cpu %s %s: %s", bl_name[f], what, why);
                if (r > 0)
                    tu_expect(tl, memcmp(got[r], got[0], es) == 0, "%s %s: %s buffers do not give the bits of host ones",
                              bl_name[f], what, res_name[r]);
            }
        }
    }
    /* the exact partials, rounded: the reproducible results' bits */
    if (repro && n > 0) {
        tu_tally *tl = &btal[BL_DOT][ti][1];
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            wr_exact_sum d, a, np[WR_NRM2_PARTS], dc, ac, npc[WR_NRM2_PARTS];
            unsigned char g1[8], g2[8], w1[8], w2[8];
            int q, okp = 1;
            for (q = 0; q < WR_NRM2_PARTS; q++) okp &= wr_exact_sum_init(&np[q]) == WR_SUCCESS &&
                                                      wr_exact_sum_init(&npc[q]) == WR_SUCCESS;
            okp &= wr_exact_sum_init(&d) == WR_SUCCESS && wr_exact_sum_init(&a) == WR_SUCCESS &&
                   wr_exact_sum_init(&dc) == WR_SUCCESS && wr_exact_sum_init(&ac) == WR_SUCCESS;
            okp &= wr_dot_exact(cpu, hin, hcopy, n, t, &dc) == WR_SUCCESS &&
                   wr_asum_exact(cpu, hin, n, t, &ac) == WR_SUCCESS && wr_nrm2_exact(cpu, hin, n, t, npc) == WR_SUCCESS;
            if (!tu_expect(tl, okp, "cpu exact partials %s", what)) break;
            if (!call_ok(tl, c, wr_dot_exact(c, rin[r], ry[r], n, t, &d), what) ||
                !call_ok(tl, c, wr_asum_exact(c, rin[r], n, t, &a), what) ||
                !call_ok(tl, c, wr_nrm2_exact(c, rin[r], n, t, np), what))
                continue;
            tu_expect(tl, wr_exact_sum_round(&d, t, g1) == WR_SUCCESS && wr_exact_sum_round(&dc, t, w1) == WR_SUCCESS &&
                              memcmp(g1, w1, es) == 0 && wr_exact_sum_round(&a, t, g2) == WR_SUCCESS &&
                              wr_exact_sum_round(&ac, t, w2) == WR_SUCCESS && memcmp(g2, w2, es) == 0,
                      "wr_dot_exact, wr_asum_exact %s on %s buffers: other sums than the cpu's", what, res_name[r]);
            for (q = 0; q < WR_NRM2_PARTS; q++)
                tu_expect(tl, wr_exact_sum_round(&np[q], WR_DOUBLE, g1) == WR_SUCCESS &&
                                  wr_exact_sum_round(&npc[q], WR_DOUBLE, w1) == WR_SUCCESS && memcmp(g1, w1, 8) == 0,
                          "wr_nrm2_exact %s on %s buffers: part %d is not the cpu's", what, res_name[r], q);
        }
    }
    /* argmax_abs: the cpu's index and value, and a plain loop's index */
    if (n > 0) {
        tu_tally *tl = &btal[BL_IAMAX][ti][repro];
        size_t wi = 0, i, gi;
        unsigned char wv[8], gv[8];
        bran[BL_IAMAX][ti][repro] = 1;
        for (i = 1; i < n; i++) {
            const long double a = fabsl(tu_get_f(hin, t, i)), b = fabsl(tu_get_f(hin, t, wi));
            if (b != b) break;
            if (a != a || a > b) wi = i;
        }
        if (tu_expect(tl, wr_argmax_abs(cpu, hin, n, t, &gi, wv) == WR_SUCCESS && gi == wi,
                      "cpu wr_argmax_abs %s: %zu, a plain loop %zu", what, gi, wi))
            for (r = 0; r < R_COUNT; r++) {
                wr_context *c = rctx((enum res)r);
                res_poison((enum res)r, rval[r], es);
                if (!call_ok(tl, c, wr_argmax_abs(c, rin[r], n, t, ridx[r], rval[r]), what)) continue;
                res_get((enum res)r, &gi, ridx[r], sizeof gi);
                res_get((enum res)r, gv, rval[r], es);
                tu_expect(tl, gi == wi && memcmp(gv, wv, es) == 0, "wr_argmax_abs %s on %s buffers: index %zu, not %zu",
                          what, res_name[r], gi, wi);
            }
    }
    set_mode(WR_FLOAT_FAST);
}

/* wr_dot_rows of rows x cols (x in rin, y in ry) */
static void case_blas_rows(wr_type t, size_t rows, size_t cols, int repro)
{
    const size_t es = ES(t), n = rows * cols;
    const int ti = t == WR_DOUBLE;
    tu_tally *tl = &btal[BL_ROWS][ti][repro];
    char what[160], why[256];
    int r;
    size_t i;
    gen(hin, n, t, WR_SUM, P_ROUNDED, n);
    gen(hcopy, n, t, WR_SUM, P_ROUNDED, n);
    snprintf(what, sizeof what, "%s %zu x %zu%s", tu_type_name(t), rows, cols, repro ? " reproducible" : "");
    bran[BL_ROWS][ti][repro] = 1;
    set_mode(repro ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
    if (tu_expect(tl, wr_dot_rows(cpu, hin, hcopy, hcpu, rows, cols, t) == WR_SUCCESS, "cpu wr_dot_rows %s", what))
        for (r = 0; r < R_COUNT; r++) {
            wr_context *c = rctx((enum res)r);
            res_put((enum res)r, rin[r], hin, n * es);
            res_put((enum res)r, ry[r], hcopy, n * es);
            res_poison((enum res)r, rout[r], rows * es);
            if (!call_ok(tl, c, wr_dot_rows(c, rin[r], ry[r], rout[r], rows, cols, t), what)) continue;
            res_get((enum res)r, hgot[r], rout[r], rows * es);
            if (repro) {
                tu_expect(tl, same_bits(hcpu, hgot[r], rows, t), "wr_dot_rows %s on %s buffers: other bits than the cpu",
                          what, res_name[r]);
                continue;
            }
            for (i = 0; i < rows; i++)
                if (!blas_near(0, t, AT(hin, t, i * cols), AT(hcopy, t, i * cols), cols, elem_d(AT(hgot[r], t, i), t),
                               why, sizeof why)) {
                    tu_expect(tl, 0, "wr_dot_rows %s on %s buffers, row %zu: %s", what, res_name[r], i, why);
                    break;
                }
            if (r > 0)
                tu_expect(tl, same_bits(hgot[0], hgot[r], rows, t), "wr_dot_rows %s: %s buffers do not give the bits "
                          "of host ones", what, res_name[r]);
        }
    set_mode(WR_FLOAT_FAST);
}

/* norms of elements far outside the squares' range, and arguments refused */
static void blas_misc(void)
{
    double big[4] = { 1e300, -1e-300, 3e300, 0x1p-1074 }, r = 0, x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, xc[8];
    size_t m;
    wr_status st;
    int md;
    for (md = 0; md < 2; md++) {
        set_mode(md ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
        st = wr_nrm2(omp, big, &r, 4, WR_DOUBLE);
        ok(st == WR_SUCCESS && fabs(r - sqrt(10.0) * 1e300) <= 4e-16 * r,
           "%s wr_nrm2 of 1e300, -1e-300, 3e300, 2^-1074 on omptarget: %.17g = sqrt(10) 1e300 (%s)",
           md ? "reproducible" : "fast", r, wr_context_error(omp));
        big[0] = big[2] = 1e-300;
        st = wr_nrm2(omp, big, &r, 3, WR_DOUBLE);
        ok(st == WR_SUCCESS && fabs(r - sqrt(3.0) * 1e-300) <= 4e-16 * r,
           "%s wr_nrm2 of three 1e-300 on omptarget: %.17g = sqrt(3) 1e-300", md ? "reproducible" : "fast", r);
        big[0] = 1e300;
        big[2] = 3e300;
        /* out overlapping x: refused, nothing written */
        memcpy(xc, x, sizeof x);
        st = wr_dot(omp, x, x, x + 3, 8, WR_DOUBLE);
        ok(st == WR_ERR_INVALID_ARG && memcmp(x, xc, sizeof x) == 0,
           "%s wr_dot with out inside x: WR_ERR_INVALID_ARG, x untouched (\"%s\")", md ? "reproducible" : "fast",
           wr_context_error(omp));
        st = wr_nrm2(omp, x, x, 8, WR_DOUBLE);
        ok(st == WR_ERR_INVALID_ARG && memcmp(x, xc, sizeof x) == 0,
           "%s wr_nrm2 with out == x: WR_ERR_INVALID_ARG, x untouched", md ? "reproducible" : "fast");
        st = wr_dot_rows(omp, x, x, x + 7, 2, 4, WR_DOUBLE);
        ok(st == WR_ERR_INVALID_ARG && memcmp(x, xc, sizeof x) == 0,
           "%s wr_dot_rows with out inside x: WR_ERR_INVALID_ARG, x untouched", md ? "reproducible" : "fast");
        m = 99;
        st = wr_argmax_abs(omp, x, 0, WR_DOUBLE, &m, NULL);
        ok(st == WR_ERR_EMPTY && m == 99, "%s wr_argmax_abs of nothing: WR_ERR_EMPTY, index untouched",
           md ? "reproducible" : "fast");
        st = wr_dot(omp, (int32_t *)(void *)x, (int32_t *)(void *)x, &r, 4, WR_INT32);
        ok(st == WR_ERR_UNSUPPORTED, "%s wr_dot of int32 on omptarget: WR_ERR_UNSUPPORTED", md ? "reproducible" : "fast");
    }
    set_mode(WR_FLOAT_FAST);
}

/* ---- the rest ------------------------------------------------------------------------ */

/* 2^26 uniform [0,1) floats: every prefix within 1e-4 relative of the exact one. */
static void accuracy(void)
{
    const size_t n = (size_t)1 << 26;
    float *buf;
    double exact = 0;
    size_t i, bad = 0;
    tu_rng r;
    wr_status st;
    if (max_n < n) {
        skip_block(1, "WR_TEST_MAX_N is below 2^26");
        return;
    }
    buf = tu_xmalloc(n * sizeof *buf);
    tu_rng_seed(&r, 2026);
    for (i = 0; i < n; i++) buf[i] = (float)(tu_rand(&r) >> 40) * 0x1p-24f;
    st = wr_scan(omp, buf, buf, n, WR_FLOAT, WR_SUM);
    tu_rng_seed(&r, 2026);
    for (i = 0; st == WR_SUCCESS && i < n; i++) {
        exact += (double)(tu_rand(&r) >> 40) * 0x1p-24;
        if (!(fabs((double)buf[i] - exact) <= 1e-4 * exact)) bad++;
    }
    ok(st == WR_SUCCESS && bad == 0, "wr_scan of 2^26 uniform [0,1) floats on omptarget: every output within 1e-4 "
       "relative (%zu off: %s)", bad, wr_context_error(omp));
    free(buf);
}

static void misc(void)
{
    wr_context *c = NULL;
    wr_status st;
    const char *d = wr_context_describe(omp);
    int dummy = 0;

    ok(tu_contains(d, "omptarget: OpenMP offload") && (have_dev ? tu_contains(d, "device") : tu_contains(d, "host fallback")),
       "wr_context_describe names the OpenMP offload backend and its device: \"%s\"", d);
    ok(wr_context_has_backend(omp, WR_BACKEND_OPENMP_TARGET) && !wr_context_has_backend(omp, WR_BACKEND_CUDA),
       "an OPENMP_TARGET context has the omptarget backend");
    st = wr_context_set_stream(omp, &dummy);
    ok(st == WR_ERR_NO_BACKEND && tu_contains(wr_context_error(omp), "no stream"),
       "wr_context_set_stream with a stream: WR_ERR_NO_BACKEND: \"%s\"", wr_context_error(omp));
    ok(wr_context_set_stream(omp, NULL) == WR_SUCCESS && wr_context_synchronize(omp) == WR_SUCCESS,
       "wr_context_set_stream(NULL) and wr_context_synchronize succeed");

    {
        /* reproducible float scans run here too, with the cpu's bits */
        float xin[3] = { 1e30f, 1, -1e30f }, xout[3] = { 7, 7, 7 };
        ok(wr_context_set_float_mode(omp, WR_FLOAT_REPRODUCIBLE) == WR_SUCCESS &&
           wr_scan(omp, xin, xout, 3, WR_FLOAT, WR_SUM) == WR_SUCCESS && xout[0] == 1e30f && xout[1] == 1e30f &&
           xout[2] == 1 && wr_exscan(omp, xin, xout, 3, WR_FLOAT, WR_SUM) == WR_SUCCESS && xout[0] == 0 &&
           !signbit(xout[0]) && xout[1] == 1e30f && xout[2] == 1e30f,
           "reproducible float scans: the exact prefixes rounded once (1e30, 1e30, 1; exclusive +0, 1e30, 1e30): "
           "%s", wr_context_error(omp));
        ok(wr_context_set_float_mode(omp, WR_FLOAT_FAST) == WR_SUCCESS &&
           wr_scan(omp, xin, xout, 3, WR_FLOAT, WR_SUM) == WR_SUCCESS, "and in fast mode they run");
    }

    setenv("WARPRED_OMPTARGET_STAGING_BYTES", "1000", 1);
    st = wr_context_create(&c, WR_BACKEND_OPENMP_TARGET);
    ok(st == WR_ERR_INVALID_ARG && c == NULL && tu_contains(wr_context_error(NULL), "WARPRED_OMPTARGET_STAGING_BYTES"),
       "WARPRED_OMPTARGET_STAGING_BYTES below 4 MiB is refused: \"%s\"", wr_context_error(NULL));
    wr_context_destroy(c);
    unsetenv("WARPRED_OMPTARGET_STAGING_BYTES");
    setenv("WARPRED_OMPTARGET_DEVICE", "4096", 1);
    c = NULL;
    st = wr_context_create(&c, WR_BACKEND_OPENMP_TARGET);
    ok(st == WR_ERR_NO_BACKEND && c == NULL && tu_contains(wr_context_error(NULL), "WARPRED_OMPTARGET_DEVICE"),
       "WARPRED_OMPTARGET_DEVICE past the last device is refused: \"%s\"", wr_context_error(NULL));
    wr_context_destroy(c);
    unsetenv("WARPRED_OMPTARGET_DEVICE");

    /* decreasing offsets where the backend checks them (device memory on a
     * device; host memory on the host fallback, checked by lib/) */
    {
        const enum res rs[2] = { R_MAPPED, R_DEVICE };
        int k;
        for (k = 0; k < 2; k++) {
            size_t o[5] = { 0, 2, 4, 3, 6 };
            int32_t x[6] = { 1, 1, 1, 1, 1, 1 }, y[4];
            res_put(rs[k], rin[rs[k]], x, sizeof x);
            res_put(rs[k], roff[rs[k]], o, sizeof o);
            res_poison(rs[k], rout[rs[k]], sizeof y);
            st = wr_reduce_segments(omp, rin[rs[k]], rout[rs[k]], 4, roff[rs[k]], WR_INT32, WR_SUM);
            res_get(rs[k], y, rout[rs[k]], sizeof y);
            size_t b, untouched = 1;
            for (b = 0; b < sizeof y; b++) untouched &= ((unsigned char *)y)[b] == 0x5a;
            ok(st == WR_ERR_INVALID_ARG && tu_contains(wr_context_error(omp), "offsets[3] = 3 < offsets[2] = 4") &&
                   untouched,
               "decreasing offsets in %s memory: refused, output untouched: \"%s\"", res_name[rs[k]],
               wr_context_error(omp));
        }
    }

    /* a buffer mapped only in part */
    if (!have_dev) {
        skip_block(1, "no offload device: nothing is mapped");
    } else {
        float *p = tu_xmalloc(1024 * sizeof *p), sum = -1;
        memset(p, 0, 1024 * sizeof *p);
#pragma omp target enter data map(to: p[0:512]) device(dev)
        st = wr_reduce(omp, p, &sum, 1024, WR_FLOAT, WR_SUM);
        ok(st == WR_ERR_INVALID_ARG && tu_contains(wr_context_error(omp), "mapped") && sum == -1,
           "a buffer mapped in part is refused: \"%s\"", wr_context_error(omp));
        st = wr_reduce(omp, p, &sum, 512, WR_FLOAT, WR_SUM);
        ok(st == WR_SUCCESS && sum == 0, "its mapped part is reduced on the device copy");
#pragma omp target exit data map(delete: p[0:512]) device(dev)
        free(p);
    }
}

/* The plugin: where WARPRED_PLUGIN_DIR says if warpred_omptarget.so is
 * there (a bundle's run.sh), else the build tree's (make check points
 * WARPRED_PLUGIN_DIR at the CUDA plugin's directory). */
static void use_plugin_dir(void)
{
#ifdef WR_TEST_OMPT_PLUGIN_DIR
    const char *d = getenv("WARPRED_PLUGIN_DIR");
    char path[4096];
    FILE *f = NULL;
    if (d != NULL && (size_t)snprintf(path, sizeof path, "%s/warpred_omptarget.so", d) < sizeof path)
        f = fopen(path, "rb");
    if (f != NULL) fclose(f);
    else setenv("WARPRED_PLUGIN_DIR", WR_TEST_OMPT_PLUGIN_DIR, 1);
#endif
}

int main(void)
{
    static const size_t extra[] = { 65536, ((size_t)1 << 18) + 3, ((size_t)1 << 21) + 5 };
    static const size_t shapes[][2] = {
        { 5, 0 }, { 1, 1 }, { 3, 1 }, { 7, 3 }, { 1000, 2 }, { 1000, 5 }, { 1000, 32 }, { 511, 33 },
        { 257, 64 }, { 300, 65 }, { 33, 1024 }, { 20, 1025 }, { 100, 4097 }, { 3, 65537 },
        { 2, 300001 }, { 65537, 16 }
    };
    static const size_t lens[] = { 0, 1, 3, 8, 40, 300, 1500, 5000 };
    const char *v;
    wr_type t;
    wr_op op;
    size_t k;
    int r;

    use_plugin_dir();
    unsetenv("WARPRED_BACKEND");
    unsetenv("WARPRED_OMPTARGET_STAGING_BYTES");
    unsetenv("WARPRED_OMPTARGET_DEVICE");
    v = getenv("WR_TEST_MAX_N");
#if defined(__SANITIZE_ADDRESS__)
    max_n = v ? (size_t)strtoull(v, NULL, 10) : (size_t)1 << 22;     /* sanitizers: 5-20x slower */
#else
    max_n = v ? (size_t)strtoull(v, NULL, 10) : (size_t)1 << 26;
#endif
    plan_lazy();
    tu_rng_seed(&rng, tu_seed());

    dev = omp_get_default_device();
    host_dev = omp_get_initial_device();
    have_dev = omp_get_num_devices() > 0;
    cpu = tu_context(WR_BACKEND_CPU);
    omp = tu_context(WR_BACKEND_OPENMP_TARGET);
    setenv("WARPRED_OMPTARGET_STAGING_BYTES", "4194304", 1);
    omp_st = tu_context(WR_BACKEND_OPENMP_TARGET);
    unsetenv("WARPRED_OMPTARGET_STAGING_BYTES");
    diag("%s", wr_context_describe(omp));
    diag("%d offload device%s, default device %d", omp_get_num_devices(), omp_get_num_devices() == 1 ? "" : "s", dev);

    cap = ((size_t)1 << 21) + 5 + 64;           /* the largest size, and room for a shifted start */
    if (cap > max_n + 64) cap = max_n + 64;
    for (r = 0; r < R_COUNT; r++) {
        rin[r] = res_alloc((enum res)r, cap * 8);
        rout[r] = res_alloc((enum res)r, cap * 8);
        ry[r] = res_alloc((enum res)r, cap * 8);
        roff[r] = res_alloc((enum res)r, (cap + 1) * sizeof(size_t));
        ridx[r] = res_alloc((enum res)r, sizeof(size_t));
        rval[r] = res_alloc((enum res)r, 8);
        hgot[r] = tu_xmalloc(cap * 8);
    }
    hin = tu_xmalloc(cap * 8);
    hcpu = tu_xmalloc(cap * 8);
    hcopy = tu_xmalloc(cap * 8);
    hoff = tu_xmalloc((cap + 1) * sizeof *hoff);
    for (k = 0; k < F_COUNT * TU_NTYPES * TU_NOPS; k++) tu_tally_init(&tal[0][0][0] + k);
    for (k = 0; k < 10; k++) tu_tally_init(&rtal[0][0] + k);
    for (k = 0; k < BL_N * 4; k++) tu_tally_init(&btal[0][0][0] + k);

    TU_FOR_PAIRS(t, op) {
        const int flt = tu_is_float(t);
        /* linear: every size, exact data; rounded, NaN and -0 data on floats */
        for (k = 0; k < tu_nsizes + sizeof extra / sizeof extra[0]; k++) {
            const size_t n = k < tu_nsizes ? tu_sizes[k] : extra[k - tu_nsizes];
            if (n > max_n || n + 64 > cap) continue;
            if (k >= tu_nsizes + 2 && op != WR_SUM && op != WR_MIN) continue;   /* the largest: a few ops */
            case_linear(t, op, P_EXACT, n);
            if (flt && (op == WR_SUM || op == WR_PROD)) case_linear(t, op, P_ROUNDED, n);
            if (flt && (n % 2 == 1 || n == 4096)) {
                case_linear(t, op, P_NAN, n);
                case_linear(t, op, P_NEGZERO, n);
            }
        }
        /* rows: one lane, lanes per row, and a reduce per row */
        for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            const size_t n = shapes[k][0] * shapes[k][1];
            if (n > max_n || n + 64 > cap) continue;
            case_rows(t, op, P_EXACT, shapes[k][0], shapes[k][1]);
            if (flt && (op == WR_SUM || op == WR_PROD)) case_rows(t, op, P_ROUNDED, shapes[k][0], shapes[k][1]);
        }
        /* segments: random lengths around L (0: all empty), from offset 17 for
         * one of them; one long among short; one longer than the staging
         * buffer (4 MiB) */
        for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            size_t nseg = lens[k] ? (cap - 64 < max_n ? cap - 64 : max_n) / (lens[k] + 1) / 4 : 100, i;
            char shape[48];
            if (nseg > 20000) nseg = 20000;
            if (nseg == 0) continue;
            hoff[0] = k == 2 ? 17 : 0;
            for (i = 0; i < nseg; i++) hoff[i + 1] = hoff[i] + (lens[k] ? tu_below(&rng, 2 * lens[k] + 1) : 0);
            if (hoff[nseg] + 64 > cap || hoff[nseg] > max_n) continue;
            snprintf(shape, sizeof shape, "lengths 0..%zu", 2 * lens[k]);
            case_segments(t, op, P_EXACT, nseg, shape);
            if (flt && (op == WR_SUM || op == WR_PROD)) case_segments(t, op, P_ROUNDED, nseg, shape);
        }
        {
            size_t nseg = 0, pos = 0, i, longest = 300000 < max_n / 2 ? 300000 : max_n / 2;
            hoff[0] = 0;
            for (i = 0; i < 3; i++) hoff[++nseg] = pos;
            for (i = 0; i < 500; i++) { pos += tu_below(&rng, 7); hoff[++nseg] = pos; }
            pos += longest; hoff[++nseg] = pos;
            for (i = 0; i < 500; i++) { pos += tu_below(&rng, 7); hoff[++nseg] = pos; }
            if (pos + 64 <= cap && pos <= max_n) case_segments(t, op, P_EXACT, nseg, "one long among short");
            pos = ((size_t)1 << 20) + 3;
            hoff[0] = 5;
            hoff[1] = 6;
            hoff[2] = 6 + pos;
            hoff[3] = 9 + pos;
            if (hoff[3] + 64 <= cap && hoff[3] <= max_n && (op == WR_SUM || op == WR_MAX)) {
                case_segments(t, op, P_EXACT, 3, "one longer than the staging buffer");
                if (flt && op == WR_SUM) case_segments(t, op, P_ROUNDED, 3, "one longer than the staging buffer");
            }
        }
        /* scans inside segments: all empty, tiny, short (from offset 17), one
         * long among short, one longer than the staging buffer (4 MiB) */
        {
            size_t nseg, pos, i, longest = 300000 < max_n / 2 ? 300000 : max_n / 2;
            for (i = 0; i <= 100; i++) hoff[i] = 5;
            case_segscan(t, op, P_EXACT, 100, "all empty");
            hoff[0] = 0;
            for (i = 0; i < 300; i++) hoff[i + 1] = hoff[i] + tu_below(&rng, 4);
            case_segscan(t, op, P_EXACT, 300, "lengths 0..3");
            hoff[0] = 17;
            for (i = 0; i < 1000; i++) hoff[i + 1] = hoff[i] + tu_below(&rng, 81);
            if (hoff[1000] + 64 <= cap && hoff[1000] <= max_n) {
                case_segscan(t, op, P_EXACT, 1000, "lengths 0..80");
                if (flt && (op == WR_SUM || op == WR_PROD)) case_segscan(t, op, P_ROUNDED, 1000, "lengths 0..80");
                if (flt && (op == WR_SUM || op == WR_MIN)) {
                    case_segscan(t, op, P_NAN, 1000, "lengths 0..80");
                    case_segscan(t, op, P_NEGZERO, 1000, "lengths 0..80");
                }
            }
            nseg = 0;
            pos = 0;
            hoff[0] = 0;
            for (i = 0; i < 300; i++) { pos += tu_below(&rng, 7); hoff[++nseg] = pos; }
            pos += longest; hoff[++nseg] = pos;
            for (i = 0; i < 300; i++) { pos += tu_below(&rng, 7); hoff[++nseg] = pos; }
            if (pos + 64 <= cap && pos <= max_n) {
                case_segscan(t, op, P_EXACT, nseg, "one long among short");
                if (flt && op == WR_SUM) case_segscan(t, op, P_ROUNDED, nseg, "one long among short");
            }
            hoff[0] = 5;
            hoff[1] = 6;
            hoff[2] = 6 + ((size_t)1 << 20) + 3;
            hoff[3] = hoff[2] + 3;
            if (hoff[3] + 64 <= cap && hoff[3] <= max_n && (op == WR_SUM || op == WR_MAX)) {
                case_segscan(t, op, P_EXACT, 3, "one longer than the staging buffer");
                if (flt && op == WR_SUM) case_segscan(t, op, P_ROUNDED, 3, "one longer than the staging buffer");
            }
        }
    }
    for (k = 0; k < TU_NTYPES; k++) {
        const size_t sizes2[] = { 0, 1, 2, 31, 257, 4097, 65537, 65538, ((size_t)1 << 20) + 3 };
        size_t j;
        t = tu_types[k];
        for (j = 0; j < sizeof sizes2 / sizeof sizes2[0]; j++) {
            if (sizes2[j] > max_n || sizes2[j] + 64 > cap) continue;
            case_argext(t, P_EXACT, sizes2[j]);
            case_argext(t, P_TIES, sizes2[j]);
            if (tu_is_float(t)) {
                case_argext(t, P_NAN, sizes2[j]);
                case_argext(t, P_NEGZERO, sizes2[j]);
            }
        }
    }

    /* reproducible mode: float and double SUM */
    {
        static const size_t rsizes[] = { 0, 1, 2, 31, 4097, 65537, ((size_t)1 << 20) + 3 };
        static const enum pat rpats[] = { P_ROUNDED, P_SPREAD, P_NAN, P_NEGZERO };
        size_t j, q;
        for (k = 0; k < 2; k++)
            for (j = 0; j < sizeof rsizes / sizeof rsizes[0]; j++)
                for (q = 0; q < sizeof rpats / sizeof rpats[0]; q++)
                    if (rsizes[j] <= max_n && rsizes[j] + 64 <= cap && (q < 2 || rsizes[j] < 100000))
                        case_repro(k ? WR_DOUBLE : WR_FLOAT, rpats[q], rsizes[j]);
    }

    /* dot products and norms, fast and reproducible: 0, 1, odd, several
     * pass-1 tiles, more than one staging chunk (4 MiB) */
    {
        static const size_t bsizes[] = { 0, 1, 2, 31, 4097, 65537, ((size_t)1 << 20) + 3 };
        static const size_t bshapes[][2] = { { 5, 0 }, { 1, 1 }, { 7, 3 }, { 1000, 5 }, { 300, 65 }, { 20, 1025 },
                                             { 3, 65537 }, { 2, 300001 } };
        size_t j;
        int md;
        for (k = 0; k < 2; k++) {
            t = k ? WR_DOUBLE : WR_FLOAT;
            for (md = 0; md < 2; md++) {
                for (j = 0; j < sizeof bsizes / sizeof bsizes[0]; j++) {
                    if (bsizes[j] > max_n || bsizes[j] + 64 > cap) continue;
                    case_blas(t, P_ROUNDED, bsizes[j], md);
                    if (bsizes[j] < 100000) {
                        case_blas(t, P_NAN, bsizes[j], md);
                        case_blas(t, P_NEGZERO, bsizes[j], md);
                    }
                    if (md) case_blas(t, P_SPREAD, bsizes[j], md);
                }
                for (j = 0; j < sizeof bshapes / sizeof bshapes[0]; j++)
                    if (bshapes[j][0] * bshapes[j][1] <= max_n && bshapes[j][0] * bshapes[j][1] + 64 <= cap)
                        case_blas_rows(t, bshapes[j][0], bshapes[j][1], md);
            }
        }
        for (r = 0; r < BL_N; r++)
            for (k = 0; k < 4; k++)
                if (bran[r][k / 2][k % 2])
                    tu_report(&btal[r][k / 2][k % 2], "%s %s %s on omptarget (host, staged, mapped, device buffers)%s",
                              k % 2 ? "reproducible" : "fast", bl_name[r], k / 2 ? "double" : "float",
                              k % 2 ? " = cpu, bit for bit" : ": within the bounds of a reference and the cpu");
        blas_misc();
    }

    for (r = 0; r < F_COUNT; r++)
        for (k = 0; k < TU_NTYPES * TU_NOPS; k++) {
            const wr_type tt = tu_types[k / TU_NOPS];
            const wr_op oo = tu_ops[k % TU_NOPS];
            if (!ran[r][tt][oo]) continue;
            if (r >= F_ARGMIN)
                tu_report(&tal[r][tt][oo], "%s %s on omptarget (host, staged, mapped, device buffers) = cpu",
                          fn_name[r], tu_type_name(tt));
            else
                tu_report(&tal[r][tt][oo], "%s %s %s on omptarget (host, staged, mapped, device buffers) = cpu",
                          fn_name[r], tu_type_name(tt), tu_op_name(oo));
        }

    {
        static const char *const rname[5] = { "wr_reduce and wr_reduce_exact", "wr_reduce_rows", "wr_reduce_segments",
                                              "wr_scan, wr_exscan, wr_scan_exact and wr_exscan_exact (a base carried in)",
                                              "wr_scan_segments and wr_exscan_segments" };
        for (r = 0; r < 5; r++)
            for (k = 0; k < 2; k++)
                if (rran[r][k])
                    tu_report(&rtal[r][k], "reproducible %s %s SUM on omptarget (host, staged, mapped, device "
                              "buffers) = cpu, bit for bit", rname[r], k ? "double" : "float");
    }
    accuracy();
    misc();

    for (r = 0; r < R_COUNT; r++) {
        res_free((enum res)r, rin[r], cap * 8);
        res_free((enum res)r, rout[r], cap * 8);
        res_free((enum res)r, ry[r], cap * 8);
        res_free((enum res)r, roff[r], (cap + 1) * sizeof(size_t));
        res_free((enum res)r, ridx[r], sizeof(size_t));
        res_free((enum res)r, rval[r], 8);
        free(hgot[r]);
    }
    free(hin);
    free(hcpu);
    free(hcopy);
    free(hoff);
    wr_context_destroy(omp_st);
    wr_context_destroy(omp);
    wr_context_destroy(cpu);
    return 0;
}

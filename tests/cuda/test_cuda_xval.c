/*
 * test_cuda_xval.c -- cross-validation of the CUDA backend against the CPU
 * backend and against independent host references.
 *
 * Every public function x type x op x size x residency (device, pinned,
 * pageable, managed memory), on a CPU context and a CUDA context:
 *  - "exact" data (wrapping integers, small integer-valued floats, powers of
 *    two for float PROD, any values for MIN/MAX): both backends must give the
 *    reference's bits (a sequential fold with wr_ops.h) and so each other's;
 *  - NaN, all negative zeros, ties (argmin/argmax) and empty inputs: the
 *    same bits on both;
 *  - offsets in device or managed memory that decrease or overflow: refused
 *    with the least decrease named, the output untouched (checked on the
 *    device), and the context right again with the offsets mended;
 *  - random floats (2^21 to 2^24 elements; WR_TEST_LARGE: 2^25 and 2^28):
 *    within the DESIGN.md bounds of a long-double reference; a scan of 2^24
 *    (2^26) uniform [0,1) floats within 1e-4 relative of the exact prefix.
 * Host buffers go through a second CUDA context with small staging buffers
 * (many chunks even at modest sizes); the big cases through the default one.
 * Scans on device memory also run on a third context whose scans use only 2
 * resident blocks (WARPRED_CUDA_SCAN_BLOCKS), so that from 3 tiles on each
 * block scans several tiles in turn (with as many blocks as fit, an H200
 * does that only past ~1M elements), once from aligned buffers and once
 * from buffers one element past a 16-byte boundary (element-wise copies).
 *
 * Sizes.  By default (combo_quick) each (type, op) runs its kernels below a
 * tile and over many tiles (and several blocks a row or segment) on the
 * device; one op a type runs on every residency too (several staging
 * chunks), and for four types, every size class (0 to 2^20 + 3, one tile
 * and one more): some 1100 calls, seconds on a GPU and, we expect, well
 * within a minute under compute-sanitizer, which slows every launch and
 * copy down.  WR_TEST_LARGE=1 runs the full sweep (combo_full: every
 * foundation size 0, 1, 2, 3, 31 ... 2^20 + 3 of every combination on every
 * residency, the big cases up to 2^28: minutes).  WR_TEST_MAX_N caps every
 * size either way.  The time each part took is printed at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "warpred.h"
#include "wr_ops.h"
#include "gpu_common.h"
#include "tap.h"

enum fn { F_REDUCE, F_SCAN, F_EXSCAN, F_ROWS, F_SEGS, F_NFN };
static const char *const fn_name[F_NFN] = { "wr_reduce", "wr_scan", "wr_exscan", "wr_reduce_rows",
                                            "wr_reduce_segments" };
enum pat { PAT_EXACT, PAT_NAN, PAT_NEGZERO, PAT_TIES, PAT_RANDOM };

static int failed[F_NFN][6][7][RES_COUNT];   /* a failure was seen */
static int ran[F_NFN][6][7][RES_COUNT];      /* a case ran */
static int arg_failed[2][6][RES_COUNT], arg_ran[2][6][RES_COUNT];

static wr_context *cpu, *gpu, *gpu_small, *gpu_two;
static size_t max_n;
static const size_t small_cap = ((size_t)1 << 20) + 3 + 64;   /* elements of the per-residency buffers */
static void *rin[RES_COUNT], *rout[RES_COUNT], *rval[RES_COUNT];
static int trace;                                 /* WR_TEST_TRACE=1: a line before each reduce call */
static size_t *roff[RES_COUNT], *ridx[RES_COUNT];
static void *hin, *hout_c, *hout_g, *href;     /* host work buffers (small_cap elements of 8 bytes) */

#define ES(t) wr_type_size(t)
#define AT(p, t, i) ((char *)(p) + (size_t)(i) * ES(t))
#define CAT(p, t, i) ((const char *)(p) + (size_t)(i) * ES(t))
#define IS_FLT(t) ((t) == WR_FLOAT || (t) == WR_DOUBLE)

/* CUDA context for a residency: host memory goes through small staging buffers. */
static wr_context *gctx(enum res r)
{
    return (r == RES_PINNED || r == RES_PAGEABLE) ? gpu_small : gpu;
}

/* ---- data --------------------------------------------------------------------- */

static void put_d(wr_type t, void *p, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}

static void put_u(wr_type t, void *p, size_t i, uint64_t v)
{
    switch (t) {
    case WR_INT32:  ((int32_t *)p)[i] = (int32_t)(uint32_t)v; break;
    case WR_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case WR_INT64:  ((int64_t *)p)[i] = (int64_t)v; break;
    case WR_UINT64: ((uint64_t *)p)[i] = v; break;
    default: break;
    }
}

static void gen(void *h, wr_type t, wr_op op, enum pat pat, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 12345;
    const double prod_rate = n > 512 ? 256.0 / (double)n : 0.5;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng_next(&s);
        if (IS_FLT(t)) {
            double v;
            if (pat == PAT_NEGZERO) v = -0.0;
            else if (pat == PAT_RANDOM) v = (double)(r >> 11) * 0x1p-53;
            else if (pat == PAT_TIES) { static const double tv[4] = { -0.0, 0.0, 1.0, -1.0 }; v = tv[r % 4]; }
            else if (op == WR_SUM) v = t == WR_FLOAT ? (double)((int)(r % 9) - 4) : (double)((int)(r % 2001) - 1000);
            else if (op == WR_PROD) {
                static const double pv[5] = { -1.0, 2.0, 0.5, -2.0, -0.5 };
                v = (double)(r >> 11) * 0x1p-53 < prod_rate ? pv[(r >> 3) % 5] : 1.0;
            } else {
                switch (r % 29) {
                case 0: v = -0.0; break;
                case 1: v = 0.0; break;
                case 2: v = (r & 64) ? INFINITY : -INFINITY; break;
                default: v = (double)(int64_t)r * 0x1p-40; break;
                }
            }
            put_d(t, h, i, v);
        } else {
            uint64_t v = r;
            if (pat == PAT_TIES) v = r % 3;
            else if (op == WR_PROD) v = r | 1;
            else if (op == WR_BAND) v = r % 64 == 0 ? ~(1ull << (r >> 58)) : ~0ull;
            else if (op == WR_BOR) v = r % 64 == 0 ? 1ull << (r >> 58) : 0;
            put_u(t, h, i, v);
        }
    }
    if (pat == PAT_NAN && n > 0 && IS_FLT(t)) {
        put_d(t, h, seed % n, NAN);
        put_d(t, h, (seed * 7 + 3) % n, -NAN);
    }
}

/* ---- references ----------------------------------------------------------------- */

/* out = in[0] op ... op in[n-1] (the identity if n == 0), sequentially. */
static void ref_fold(wr_type t, wr_op op, const void *in, size_t n, void *out)
{
    if (n == 0) { wr_identity(t, op, out); return; }
    memcpy(out, in, ES(t));
    for (size_t i = 1; i < n; i++) wr_combine(t, op, out, CAT(in, t, i));
}

static void ref_scan(wr_type t, wr_op op, const void *in, size_t n, void *out, int exclusive)
{
    unsigned char acc[8];
    if (n == 0) return;
    if (exclusive) {
        wr_identity(t, op, out);
        memcpy(acc, in, ES(t));
        for (size_t i = 1; i < n; i++) {
            memcpy(AT(out, t, i), acc, ES(t));
            wr_combine(t, op, acc, CAT(in, t, i));
        }
    } else {
        memcpy(acc, in, ES(t));
        memcpy(out, acc, ES(t));
        for (size_t i = 1; i < n; i++) {
            wr_combine(t, op, acc, CAT(in, t, i));
            memcpy(AT(out, t, i), acc, ES(t));
        }
    }
}

#define ARG_REF(sfx, T, U, E)                                                        \
    static size_t arg_ref_##sfx(const T *x, size_t n, int is_max)                    \
    {                                                                                \
        size_t best = 0;                                                             \
        for (size_t i = 1; i < n; i++)                                               \
            if (wr_arg_better_##sfx(x[best], x[i], is_max)) best = i;                \
        return best;                                                                 \
    }
WR_TYPES(ARG_REF)
#undef ARG_REF

static size_t arg_ref(wr_type t, const void *x, size_t n, int is_max)
{
    switch (t) {
    case WR_INT32:  return arg_ref_i32(x, n, is_max);
    case WR_INT64:  return arg_ref_i64(x, n, is_max);
    case WR_UINT32: return arg_ref_u32(x, n, is_max);
    case WR_UINT64: return arg_ref_u64(x, n, is_max);
    case WR_FLOAT:  return arg_ref_f32(x, n, is_max);
    case WR_DOUBLE: return arg_ref_f64(x, n, is_max);
    }
    return 0;
}

static long double ld_at(wr_type t, const void *p, size_t i)
{
    return t == WR_FLOAT ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}

/* ---- comparison ------------------------------------------------------------------ */

/* 1 if got[0..n) has the bits of want[0..n); else a diagnostic, once per check. */
static int same_array(const char *who, const char *what, wr_type t, const void *want, const void *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same_elem(t, CAT(want, t, i), CAT(got, t, i))) {
            char a[64], b[64];
            diag("%s %s: element %zu of %zu: wanted %s, got %s", who, what, i, n,
                 elem_str(t, want, i, a, sizeof a), elem_str(t, got, i, b, sizeof b));
            return 0;
        }
    return 1;
}

static int status_ok(const char *who, const char *what, wr_context *c, wr_status st)
{
    if (st == WR_SUCCESS) return 1;
    diag("%s %s: %s (%s)", who, what, wr_status_string(st), wr_context_error(c));
    return 0;
}

static void mark(enum fn f, wr_type t, wr_op op, enum res r, int good)
{
    ran[f][t][op][r] = 1;
    if (!good) failed[f][t][op][r] = 1;
}

/* ---- the cases --------------------------------------------------------------------- */

static const size_t foundation[] = { 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025,
                                     4095, 4096, 4097, 65537, ((size_t)1 << 20) + 3 };
#define NFOUND (sizeof foundation / sizeof foundation[0])
#define LONG_AMONG_SHORT 1007    /* segments of the "one long among short" case */

/* Which residencies a case runs on (bit r: residency r), and the extra runs
 * of a linear case: the scans in place (X_INPLACE), and on the device on 2
 * resident blocks and unaligned (X_DEVICE). */
#define RM(r) (1u << (r))
#define RM_ALL (RM(RES_DEVICE) | RM(RES_PINNED) | RM(RES_PAGEABLE) | RM(RES_MANAGED))
#define RM_HOST (RM(RES_PINNED) | RM(RES_PAGEABLE) | RM(RES_MANAGED))
enum { X_INPLACE = 1, X_DEVICE = 2, X_ALL = 3 };

/* reduce, scan, exscan (and the extras) of one array on the residencies of rm */
static void case_linear(wr_type t, wr_op op, enum pat pat, size_t n, uint64_t seed, unsigned rm, int extras)
{
    const size_t es = ES(t), bytes = n * es;
    char what[128];
    unsigned char want[8], got[8];
    snprintf(what, sizeof what, "%s %s n=%zu pattern %d", type_name[t], op_name[op], n, (int)pat);
    gen(hin, t, op, pat, n, seed);

    /* reduce */
    ref_fold(t, op, hin, n, want);
    int cpu_good = status_ok("cpu wr_reduce", what, cpu, wr_reduce(cpu, hin, got, n, t, op)) &&
                   same_array("cpu wr_reduce", what, t, want, got, 1);
    for (int r = 0; r < RES_COUNT; r++) {
        wr_context *g = gctx((enum res)r);
        char who[64];
        if (!(rm & RM(r))) continue;
        snprintf(who, sizeof who, "cuda/%s wr_reduce", res_name[r]);
        if (trace) diag("%s %s: in %p, out %p", who, what, rin[r], rout[r]);
        res_put((enum res)r, rin[r], hin, bytes);
        res_poison((enum res)r, rout[r], es, 0x5a);
        int good = status_ok(who, what, g, wr_reduce(g, rin[r], rout[r], n, t, op));
        res_get((enum res)r, got, rout[r], es);
        good = good && same_array(who, what, t, want, got, 1) && cpu_good;
        if (good && wr_context_last_backend(g) != WR_BACKEND_CUDA) { diag("%s %s: did not run on cuda", who, what); good = 0; }
        mark(F_REDUCE, t, op, (enum res)r, good);
    }

    /* scans: out of place, then in place */
    for (int ex = 0; ex < 2; ex++) {
        const enum fn f = ex ? F_EXSCAN : F_SCAN;
        wr_status (*scan)(wr_context *, const void *, void *, size_t, wr_type, wr_op) = ex ? wr_exscan : wr_scan;
        ref_scan(t, op, hin, n, href, ex);
        memset(hout_c, 0x5a, bytes);
        cpu_good = status_ok(fn_name[f], what, cpu, scan(cpu, hin, hout_c, n, t, op)) &&
                   same_array(ex ? "cpu wr_exscan" : "cpu wr_scan", what, t, href, hout_c, n);
        for (int r = 0; r < RES_COUNT; r++) {
            wr_context *g = gctx((enum res)r);
            char who[64];
            if (!(rm & RM(r))) continue;
            snprintf(who, sizeof who, "cuda/%s %s", res_name[r], fn_name[f]);
            res_put((enum res)r, rin[r], hin, bytes);
            res_poison((enum res)r, rout[r], bytes, 0x5a);
            int good = status_ok(who, what, g, scan(g, rin[r], rout[r], n, t, op));
            res_get((enum res)r, hout_g, rout[r], bytes);
            good = good && same_array(who, what, t, href, hout_g, n);
            /* in place: out == in */
            if (extras & X_INPLACE) {
                res_put((enum res)r, rout[r], hin, bytes);
                good = good && status_ok(who, "in place", g, scan(g, rout[r], rout[r], n, t, op));
                res_get((enum res)r, hout_g, rout[r], bytes);
                good = good && same_array(who, "in place", t, href, hout_g, n);
            }
            if (r == RES_DEVICE && (extras & X_DEVICE)) {   /* on 2 resident blocks */
                res_put((enum res)r, rin[r], hin, bytes);
                res_poison((enum res)r, rout[r], bytes, 0x5a);
                good = good && status_ok(who, "2 blocks", gpu_two, scan(gpu_two, rin[r], rout[r], n, t, op));
                res_get((enum res)r, hout_g, rout[r], bytes);
                good = good && same_array(who, "2 blocks", t, href, hout_g, n);
                /* one element past the allocation's start (not 16-byte aligned):
                 * the element-wise copies in and out, on the 2-block context so
                 * that each block's stages are reused */
                void *ui = AT(rin[r], t, 1), *uo = AT(rout[r], t, 1);
                res_put((enum res)r, ui, hin, bytes);
                res_poison((enum res)r, uo, bytes, 0x5a);
                good = good && status_ok(who, "unaligned", gpu_two, scan(gpu_two, ui, uo, n, t, op));
                res_get((enum res)r, hout_g, uo, bytes);
                good = good && same_array(who, "unaligned", t, href, hout_g, n);
            }
            mark(f, t, op, (enum res)r, good && cpu_good);
        }
    }
}

/* reduce_rows of a rows x cols matrix on the residencies of rm */
static void case_rows(wr_type t, wr_op op, size_t rows, size_t cols, uint64_t seed, unsigned rm)
{
    const size_t es = ES(t), n = rows * cols;
    char what[128];
    snprintf(what, sizeof what, "%s %s %zu x %zu", type_name[t], op_name[op], rows, cols);
    gen(hin, t, op, PAT_EXACT, n, seed);
    for (size_t i = 0; i < rows; i++) ref_fold(t, op, CAT(hin, t, i * cols), cols, AT(href, t, i));
    memset(hout_c, 0x5a, rows * es);
    int cpu_good = status_ok("cpu wr_reduce_rows", what, cpu, wr_reduce_rows(cpu, hin, hout_c, rows, cols, t, op)) &&
                   same_array("cpu wr_reduce_rows", what, t, href, hout_c, rows);
    for (int r = 0; r < RES_COUNT; r++) {
        wr_context *g = gctx((enum res)r);
        char who[64];
        if (!(rm & RM(r))) continue;
        snprintf(who, sizeof who, "cuda/%s wr_reduce_rows", res_name[r]);
        res_put((enum res)r, rin[r], hin, n * es);
        res_poison((enum res)r, rout[r], rows * es, 0x5a);
        int good = status_ok(who, what, g, wr_reduce_rows(g, rin[r], rout[r], rows, cols, t, op));
        res_get((enum res)r, hout_g, rout[r], rows * es);
        good = good && same_array(who, what, t, href, hout_g, rows);
        mark(F_ROWS, t, op, (enum res)r, good && cpu_good);
    }
}

/* reduce_segments with offsets off[0..nseg] (host) on the residencies of rm;
 * on the device residency with the offsets in device memory and, with
 * host_too, again with them in host memory. */
static void case_segments(wr_type t, wr_op op, const size_t *off, size_t nseg, uint64_t seed, const char *shape,
                          unsigned rm, int host_too)
{
    const size_t es = ES(t), n = off[nseg];
    char what[160];
    snprintf(what, sizeof what, "%s %s %s (%zu segments, %zu elements)", type_name[t], op_name[op], shape, nseg, n);
    gen(hin, t, op, PAT_EXACT, n, seed);
    for (size_t i = 0; i < nseg; i++) ref_fold(t, op, CAT(hin, t, off[i]), off[i + 1] - off[i], AT(href, t, i));
    memset(hout_c, 0x5a, nseg * es);
    int cpu_good = status_ok("cpu wr_reduce_segments", what, cpu,
                             wr_reduce_segments(cpu, hin, hout_c, nseg, off, t, op)) &&
                   same_array("cpu wr_reduce_segments", what, t, href, hout_c, nseg);
    for (int r = 0; r < RES_COUNT; r++) {
        if (!(rm & RM(r))) continue;
        for (int host_off = 0; host_off < (r == RES_DEVICE && host_too ? 2 : 1); host_off++) {
            wr_context *g = gctx((enum res)r);
            char who[80];
            const size_t *o = off;
            snprintf(who, sizeof who, "cuda/%s%s wr_reduce_segments", res_name[r], host_off ? " (host offsets)" : "");
            if (!host_off) {
                res_put((enum res)r, roff[r], off, (nseg + 1) * sizeof(size_t));
                o = roff[r];
            }
            res_put((enum res)r, rin[r], hin, n * es);
            res_poison((enum res)r, rout[r], nseg * es, 0x5a);
            int good = status_ok(who, what, g, wr_reduce_segments(g, rin[r], rout[r], nseg, o, t, op));
            res_get((enum res)r, hout_g, rout[r], nseg * es);
            good = good && same_array(who, what, t, href, hout_g, nseg);
            mark(F_SEGS, t, op, (enum res)r, good && cpu_good);
        }
    }
}

/* Offsets in device (or managed) memory are checked on the device: a
 * decrease at position p (and, when there is room, a later one too) is
 * refused with WR_ERR_INVALID_ARG naming the least one and its values, the
 * output untouched; so is an offsets[nsegments] whose extent overflows;
 * then the same buffers with the decrease mended give the right sums on the
 * same context.  int32 SUM, segments of 2 elements from offset 1. */
static void case_bad_offsets(enum res r, size_t nseg, size_t p, size_t *hoff, size_t cap)
{
    wr_context *g = gctx(r);
    char want[128];
    int32_t *ones = (int32_t *)hin, *got = (int32_t *)hout_g;
    const size_t q = nseg - 1;                    /* a second, later decrease */
    if (2 * nseg + 2 > cap) return;
    for (size_t i = 0; i <= 2 * nseg + 1; i++) ones[i] = 1;
    for (size_t i = 0; i <= nseg; i++) hoff[i] = 2 * i + 1;
    hoff[p + 1] = 2 * p;
    if (q > p + 1) hoff[q + 1] = 2 * q;
    res_put(r, rin[r], ones, (2 * nseg + 2) * sizeof(int32_t));
    res_put(r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
    res_poison(r, rout[r], nseg * sizeof(int32_t), 0x5a);
    wr_status st = wr_reduce_segments(g, rin[r], rout[r], nseg, roff[r], WR_INT32, WR_SUM);
    snprintf(want, sizeof want, "offsets[%zu] = %zu < offsets[%zu] = %zu", p + 1, 2 * p, p, 2 * p + 1);
    res_get(r, got, rout[r], nseg * sizeof(int32_t));
    int untouched = 1;
    for (size_t i = 0; i < nseg * sizeof(int32_t); i++) untouched &= ((unsigned char *)got)[i] == 0x5a;
    ok(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(g), want) != NULL && untouched,
       "cuda/%s wr_reduce_segments, %zu segments, offsets decrease at %zu%s: refused, output untouched: \"%s\"",
       res_name[r], nseg, p, q > p + 1 ? " and later" : "", wr_context_error(g));

    hoff[p + 1] = 2 * p + 3;
    if (q > p + 1) hoff[q + 1] = 2 * q + 3;
    const size_t last = hoff[nseg];
    hoff[nseg] = SIZE_MAX / 2;
    res_put(r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
    st = wr_reduce_segments(g, rin[r], rout[r], nseg, roff[r], WR_INT32, WR_SUM);
    res_get(r, got, rout[r], nseg * sizeof(int32_t));
    untouched = 1;
    for (size_t i = 0; i < nseg * sizeof(int32_t); i++) untouched &= ((unsigned char *)got)[i] == 0x5a;
    ok(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(g), "offsets[nsegments]") != NULL && untouched,
       "cuda/%s wr_reduce_segments, %zu segments, offsets[%zu] = SIZE_MAX / 2: refused, output untouched: \"%s\"",
       res_name[r], nseg, nseg, wr_context_error(g));

    hoff[nseg] = last;
    res_put(r, roff[r], hoff, (nseg + 1) * sizeof(size_t));
    st = wr_reduce_segments(g, rin[r], rout[r], nseg, roff[r], WR_INT32, WR_SUM);
    res_get(r, got, rout[r], nseg * sizeof(int32_t));
    size_t wrong = 0;
    for (size_t i = 0; i < nseg; i++) wrong += got[i] != 2;
    ok(st == WR_SUCCESS && wrong == 0, "cuda/%s wr_reduce_segments, %zu segments, mended offsets: every sum 2 (%zu wrong)",
       res_name[r], nseg, wrong);
}

/* argmin and argmax of n elements on the residencies of rm */
static void case_argext(wr_type t, enum pat pat, size_t n, uint64_t seed, unsigned rm)
{
    const size_t es = ES(t);
    gen(hin, t, WR_MIN, pat, n, seed);
    for (int is_max = 0; is_max < 2; is_max++) {
        wr_status (*f)(wr_context *, const void *, size_t, wr_type, size_t *, void *) = is_max ? wr_argmax : wr_argmin;
        const char *name = is_max ? "wr_argmax" : "wr_argmin";
        char what[128];
        size_t want = n ? arg_ref(t, hin, n, is_max) : 0, ci = 12345, gi = 12345;
        unsigned char cv[8], gv[8];
        snprintf(what, sizeof what, "%s n=%zu pattern %d", type_name[t], n, (int)pat);
        wr_status st = f(cpu, hin, n, t, &ci, cv);
        int cpu_good;
        if (n == 0) cpu_good = st == WR_ERR_EMPTY;
        else cpu_good = status_ok(name, what, cpu, st) && ci == want && same_elem(t, cv, CAT(hin, t, want));
        if (!cpu_good) diag("cpu %s %s: index %zu, wanted %zu", name, what, ci, want);
        for (int r = 0; r < RES_COUNT; r++) {
            wr_context *g = gctx((enum res)r);
            if (!(rm & RM(r))) continue;
            res_put((enum res)r, rin[r], hin, n * es);
            res_poison((enum res)r, ridx[r], sizeof(size_t), 0x5a);
            res_poison((enum res)r, rval[r], 8, 0x5a);
            st = f(g, rin[r], n, t, ridx[r], rval[r]);
            res_get((enum res)r, &gi, ridx[r], sizeof gi);
            res_get((enum res)r, gv, rval[r], es);
            int good;
            if (n == 0) good = st == WR_ERR_EMPTY;
            else good = st == WR_SUCCESS && gi == want && same_elem(t, gv, CAT(hin, t, want));
            if (!good)
                diag("cuda/%s %s %s: %s (%s), index %zu, wanted %zu", res_name[r], name, what, wr_status_string(st),
                     wr_context_error(g), gi, want);
            arg_ran[is_max][t][r] = 1;
            if (!(good && cpu_good)) arg_failed[is_max][t][r] = 1;
        }
    }
}

/* ---- big random cases (one residency each, default staging) ------------------------ */

/* Float SUM of random data: reduce within (ceil(log2 n) + 1024) u sum|x|. */
static int check_float_reduce(const char *who, wr_type t, const void *x, size_t n, const void *got)
{
    long double s = 0, a = 0;
    for (size_t i = 0; i < n; i++) { long double v = ld_at(t, x, i); s += v; a += fabsl(v); }
    const long double u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
    const long double bound = ((long double)ceil(log2((double)n)) + 1024) * u * a;
    const long double err = fabsl(ld_at(t, got, 0) - s);
    if (err <= bound) return 1;
    diag("%s: |%Lg - %Lg| = %Lg > bound %Lg", who, ld_at(t, got, 0), s, err, bound);
    return 0;
}

/* Float SUM scans of random data: each output within
 * (ceil(log2 n) + 1024 + 4096) u sum_{j<=i}|x_j| (a tile of 4096 may be scanned
 * sequentially), or, with rel > 0, within rel of the exact prefix. */
static int check_float_scan(const char *who, wr_type t, const void *x, size_t n, const void *got, int ex, double rel)
{
    long double s = 0, a = 0;
    const long double u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
    const long double c = ((long double)ceil(log2((double)n + 1)) + 1024 + 4096) * u;
    for (size_t i = 0; i < n; i++) {
        long double v = ld_at(t, x, i);
        if (!ex) { s += v; a += fabsl(v); }
        const long double g = ld_at(t, got, i), err = fabsl(g - s);
        const long double bound = rel > 0 ? (long double)rel * fabsl(s) : c * a;
        if (!(err <= bound)) {
            diag("%s: element %zu: |%Lg - %Lg| = %Lg > %Lg", who, i, g, s, err, bound);
            return 0;
        }
        if (ex) { s += v; a += fabsl(v); }
    }
    return 1;
}

struct big { enum res r; wr_type t; int what; size_t n; };
enum { B_REDUCE, B_SCAN, B_EXSCAN, B_ARGMAX, B_ARGMIN, B_ROWS32 };
static const char *const big_name[] = { "wr_reduce SUM", "wr_scan SUM", "wr_exscan SUM", "wr_argmax", "wr_argmin",
                                        "wr_reduce_rows SUM (32 columns)" };

static void case_big(const struct big *b)
{
    const wr_type t = b->t;
    const size_t n = b->n, es = ES(t), bytes = n * es;
    const enum res r = b->r;
    char who[160];
    snprintf(who, sizeof who, "%s %s n=%zu on %s memory", big_name[b->what], type_name[t], n, res_name[r]);
    void *h = malloc(bytes), *hc = malloc(bytes), *hg = malloc(bytes);
    if (!h || !hc || !hg) bail("out of host memory for %zu bytes", bytes);
    gen(h, t, WR_SUM, IS_FLT(t) ? PAT_RANDOM : PAT_EXACT, n, n + b->what * 31 + t);
    void *din = res_alloc(r, bytes), *dout = res_alloc(r, b->what == B_SCAN || b->what == B_EXSCAN ? bytes : 64);
    res_put(r, din, h, bytes);
    int good = 1;
    wr_status sc, sg;
    switch (b->what) {
    case B_REDUCE: {
        unsigned char want[8], gc[8], gg[8];
        sc = wr_reduce(cpu, h, gc, n, t, WR_SUM);
        sg = wr_reduce(gpu, din, dout, n, t, WR_SUM);
        res_get(r, gg, dout, es);
        good = status_ok("cpu", who, cpu, sc) && status_ok("cuda", who, gpu, sg);
        if (good && IS_FLT(t)) {
            good = check_float_reduce("cpu", t, h, n, gc) & check_float_reduce("cuda", t, h, n, gg);
        } else if (good) {
            ref_fold(t, WR_SUM, h, n, want);
            good = same_array("cpu", who, t, want, gc, 1) & same_array("cuda", who, t, want, gg, 1);
        }
        break;
    }
    case B_SCAN:
    case B_EXSCAN: {
        const int ex = b->what == B_EXSCAN;
        wr_status (*f)(wr_context *, const void *, void *, size_t, wr_type, wr_op) = ex ? wr_exscan : wr_scan;
        sc = f(cpu, h, hc, n, t, WR_SUM);
        res_poison(r, dout, bytes, 0x5a);
        sg = f(gpu, din, dout, n, t, WR_SUM);
        res_get(r, hg, dout, bytes);
        good = status_ok("cpu", who, cpu, sc) && status_ok("cuda", who, gpu, sg);
        if (good && IS_FLT(t)) {
            good = check_float_scan("cpu", t, h, n, hc, ex, 0) & check_float_scan("cuda", t, h, n, hg, ex, 0);
        } else if (good) {
            void *want = malloc(bytes);
            if (!want) bail("out of host memory");
            ref_scan(t, WR_SUM, h, n, want, ex);
            good = same_array("cpu", who, t, want, hc, n) & same_array("cuda", who, t, want, hg, n);
            free(want);
        }
        break;
    }
    case B_ARGMAX:
    case B_ARGMIN: {
        const int mx = b->what == B_ARGMAX;
        size_t want = arg_ref(t, h, n, mx), ic = 0, ig = 0;
        sc = (mx ? wr_argmax : wr_argmin)(cpu, h, n, t, &ic, NULL);
        sg = (mx ? wr_argmax : wr_argmin)(gpu, din, n, t, &ig, NULL);
        good = status_ok("cpu", who, cpu, sc) && status_ok("cuda", who, gpu, sg) && ic == want && ig == want;
        if (!good) diag("%s: wanted index %zu, cpu %zu, cuda %zu", who, want, ic, ig);
        break;
    }
    case B_ROWS32: {
        const size_t rows = n / 32;
        void *dr = res_alloc(r, rows * es);
        sc = wr_reduce_rows(cpu, h, hc, rows, 32, t, WR_SUM);
        sg = wr_reduce_rows(gpu, din, dr, rows, 32, t, WR_SUM);
        res_get(r, hg, dr, rows * es);
        res_free(r, dr);
        good = status_ok("cpu", who, cpu, sc) && status_ok("cuda", who, gpu, sg);
        for (size_t i = 0; good && i < rows; i++) {
            if (IS_FLT(t)) {
                good = check_float_reduce("cpu row", t, CAT(h, t, i * 32), 32, CAT(hc, t, i)) &&
                       check_float_reduce("cuda row", t, CAT(h, t, i * 32), 32, CAT(hg, t, i));
            } else {
                unsigned char want[8];
                ref_fold(t, WR_SUM, CAT(h, t, i * 32), 32, want);
                good = same_elem(t, want, CAT(hc, t, i)) && same_elem(t, want, CAT(hg, t, i));
                if (!good) diag("%s: row %zu differs", who, i);
            }
        }
        break;
    }
    }
    ok(good, "%s", who);
    res_free(r, din);
    res_free(r, dout);
    free(h);
    free(hc);
    free(hg);
}

/* n (2^26: DESIGN.md) uniform [0,1) floats: every scan output within 1e-4
 * relative of the exact prefix. */
static void case_scan_accuracy(size_t n)
{
    float *h = malloc(n * sizeof *h), *g = malloc(n * sizeof *g);
    void *d = res_alloc(RES_DEVICE, n * sizeof *h);
    if (!h || !g) bail("out of host memory");
    gen(h, WR_FLOAT, WR_SUM, PAT_RANDOM, n, 2026);
    res_put(RES_DEVICE, d, h, n * sizeof *h);
    wr_status st = wr_scan(gpu, d, d, n, WR_FLOAT, WR_SUM);
    res_get(RES_DEVICE, g, d, n * sizeof *g);
    ok(status_ok("cuda", "accuracy", gpu, st) &&
       check_float_scan("cuda wr_scan of uniform floats", WR_FLOAT, h, n, g, 0, 1e-4),
       "wr_scan of %zu uniform [0,1) floats on cuda: every output within 1e-4 relative of the exact prefix", n);
    res_free(RES_DEVICE, d);
    free(h);
    free(g);
}

/* ---- the case lists ----------------------------------------------------------------- */

static size_t cap;                 /* elements of the per-residency buffers */
static size_t *hoff;               /* host offsets: cap + 1 of them, and LONG_AMONG_SHORT + 1 */

/* whether n elements fit the buffers and WR_TEST_MAX_N */
static int fits(size_t n) { return n <= max_n && n + 64 <= cap; }

static void lin(wr_type t, wr_op op, enum pat pat, size_t n, uint64_t *seed, unsigned rm, int extras)
{
    if (fits(n)) case_linear(t, op, pat, n, (*seed)++, rm, extras);
}

static void rows_of(wr_type t, wr_op op, size_t rows, size_t cols, uint64_t *seed, unsigned rm)
{
    if (fits(rows * cols) && rows <= cap) case_rows(t, op, rows, cols, (*seed)++, rm);
}

/* Segments of random lengths 0 .. 2 len (len 0: 100 empty ones) over about
 * `total` elements at most (the buffers' size if larger), at most 20000 of
 * them; the offsets begin at 17 when from17. */
static void segs_random(wr_type t, wr_op op, size_t len, size_t total, int from17, uint64_t *seed, unsigned rm,
                        int host_too)
{
    uint64_t s = (*seed)++;
    size_t lim = max_n < cap ? max_n : cap - 64;
    if (total < lim) lim = total;
    size_t nseg = len ? lim / (len + 1) : 100;
    if (nseg > 20000) nseg = 20000;
    if (nseg == 0) return;
    hoff[0] = from17 ? 17 : 0;
    for (size_t i = 0; i < nseg; i++) hoff[i + 1] = hoff[i] + (len ? rng_next(&s) % (2 * len + 1) : 0);
    if (hoff[nseg] + 64 > cap || hoff[nseg] > max_n) return;
    char shape[48];
    snprintf(shape, sizeof shape, "lengths 0..%zu", 2 * len);
    case_segments(t, op, hoff, nseg, (*seed)++, shape, rm, host_too);
}

/* 3 empty segments, 500 of 0-6 elements, one of `want`, 500 short, 3 empty */
static void segs_long_among_short(wr_type t, wr_op op, size_t want, uint64_t *seed, unsigned rm)
{
    size_t nseg = 0, pos = 0;
    uint64_t s = (*seed)++;
    if (want > max_n / 2) want = max_n / 2;
    hoff[0] = 0;
    for (int i = 0; i < 3; i++) hoff[++nseg] = pos;                       /* empty */
    for (int i = 0; i < 500; i++) { pos += rng_next(&s) % 7; hoff[++nseg] = pos; }
    pos += want; hoff[++nseg] = pos;                                         /* the long one */
    for (int i = 0; i < 500; i++) { pos += rng_next(&s) % 7; hoff[++nseg] = pos; }
    for (int i = 0; i < 3; i++) hoff[++nseg] = pos;
    if (nseg != LONG_AMONG_SHORT) bail("one long among short: %zu segments", nseg);
    if (pos + 64 <= cap && pos <= max_n) case_segments(t, op, hoff, nseg, (*seed)++, "one long among short", rm, 1);
}

/* WR_TEST_LARGE: every foundation size (NaN and -0 patterns on floats),
 * every row shape and every segment shape, on every residency. */
static void combo_full(wr_type t, wr_op op, uint64_t seed)
{
    for (size_t k = 0; k < NFOUND; k++) {
        lin(t, op, PAT_EXACT, foundation[k], &seed, RM_ALL, X_ALL);
        if (IS_FLT(t) && (foundation[k] % 2 == 1 || foundation[k] == 4096)) {
            lin(t, op, PAT_NAN, foundation[k], &seed, RM_ALL, X_ALL);
            lin(t, op, PAT_NEGZERO, foundation[k], &seed, RM_ALL, X_ALL);
        }
    }
    /* rows: row lengths for every mapping (group of lanes, warp, block, several blocks) */
    static const size_t shapes[][2] = {
        { 5, 0 }, { 1, 1 }, { 3, 1 }, { 7, 3 }, { 1000, 2 }, { 1000, 5 }, { 1000, 32 }, { 511, 33 },
        { 257, 31 }, { 40, 256 }, { 20, 512 }, { 33, 1024 }, { 20, 1025 }, { 5, 1500 }, { 5, 3000 },
        { 100, 4097 }, { 3, 65537 }, { 2, 300001 }, { 1, ((size_t)1 << 20) + 3 }, { 65537, 16 }
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        rows_of(t, op, shapes[k][0], shapes[k][1], &seed, RM_ALL);
    /* segments: random lengths around L (0 = all empty), offsets that start
     * past 0, a long one among short ones */
    static const size_t lens[] = { 0, 1, 3, 8, 40, 300, 5000, 100000 };
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
        segs_random(t, op, lens[k], SIZE_MAX, k == 2, &seed, RM_ALL, 1);
    segs_long_among_short(t, op, 300000, &seed, RM_ALL);
}

/* The op of each type whose calls run on every residency by default, and
 * whether it also runs every size class (the types of each element size,
 * integer and float). */
static const wr_op rep_op[6] = { WR_SUM, WR_MAX, WR_BXOR, WR_PROD, WR_SUM, WR_SUM };
static const int rep_all[6] = { 1, 0, 0, 1, 1, 1 };

/*
 * The default: a few calls for each (type, op) on the device, its kernels'
 * one-block, one-tile and many-tile (several-block) paths; the calls of one
 * op a type on every residency (many staging chunks, rows and segments cut
 * by them), and for int32, uint64, float and double every size class too
 * (rep_op, rep_all).  Sizes are kept small, so that the whole runs in
 * seconds, also under compute-sanitizer, which slows every launch and copy
 * down.
 */
static void combo_quick(wr_type t, wr_op op, uint64_t seed)
{
    const size_t te = 32768 / ES(t), big = ((size_t)1 << 20) + 3;   /* a scan tile's elements; > 2^20 */
    const unsigned dev = RM(RES_DEVICE);
    const int rep = op == rep_op[t], all = rep && rep_all[t];

    /* linear: a block's and less than a tile's worth, many tiles */
    lin(t, op, PAT_EXACT, fits(1025) ? 1025 : 33, &seed, dev, 0);   /* (33: a tiny WR_TEST_MAX_N) */
    lin(t, op, PAT_EXACT, 65537, &seed, dev, 0);
    if (IS_FLT(t)) {
        lin(t, op, PAT_NAN, 4097, &seed, dev, 0);
        lin(t, op, PAT_NEGZERO, 33, &seed, dev, 0);
    }
    if (rep) {
        /* every residency: nothing at all, and several staging chunks (in
         * place on pageable memory) */
        lin(t, op, PAT_EXACT, 0, &seed, RM_ALL, 0);
        lin(t, op, PAT_EXACT, 65537, &seed, RM(RES_PINNED) | RM(RES_MANAGED), 0);
        lin(t, op, PAT_EXACT, 65537, &seed, RM(RES_PAGEABLE), X_INPLACE);
    }
    if (all) {
        lin(t, op, PAT_EXACT, 1, &seed, dev, 0);
        lin(t, op, PAT_EXACT, te, &seed, dev, 0);                         /* one tile */
        lin(t, op, PAT_EXACT, te + 1, &seed, dev, X_ALL);                 /* a tile and one */
        lin(t, op, PAT_EXACT, big, &seed, dev, X_ALL);
    }

    /* rows: a group of lanes on unaligned rows; groups on 16-byte rows, 8
     * and 2 (4-byte) or 1 (8-byte) rows a batch; a block per row (4-byte),
     * two (8-byte); several blocks a row */
    rows_of(t, op, 7, 3, &seed, dev);
    rows_of(t, op, 300, 32, &seed, dev);
    rows_of(t, op, 20, 512, &seed, dev);
    rows_of(t, op, 5, 3000, &seed, dev);
    rows_of(t, op, 2, 20000, &seed, dev);
    if (rep && fits(40000)) rows_of(t, op, 2, 20000, &seed, RM_HOST);   /* rows cut by staging chunks */
    else if (rep) rows_of(t, op, 7, 3, &seed, RM_HOST);                 /* (a small WR_TEST_MAX_N) */
    if (all) {
        static const size_t shapes[][2] = {
            { 5, 0 }, { 1000, 2 }, { 40, 256 }, { 33, 1024 }, { 100, 4097 }, { 3, 65537 }, { 65537, 16 },
            { 1, ((size_t)1 << 20) + 3 }
        };
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            rows_of(t, op, shapes[k][0], shapes[k][1], &seed, dev);
    }

    /* segments: groups of lanes (offsets from 17), a block each, several
     * blocks each (5 segments) */
    segs_random(t, op, 3, 30000, 1, &seed, dev, 0);
    segs_random(t, op, 40, 30000, 0, &seed, dev, 0);
    segs_random(t, op, 5000, 30000, 0, &seed, dev, 0);
    if (rep && fits(100000)) segs_random(t, op, 300, 100000, 0, &seed, RM_ALL, 1);   /* (host offsets too) */
    else if (rep) segs_random(t, op, 8, max_n / 2, 0, &seed, RM_ALL, 1);            /* (a small WR_TEST_MAX_N) */
    if (all) {
        segs_random(t, op, 0, 0, 0, &seed, dev, 0);                      /* 100 empty segments */
        segs_random(t, op, 100000, SIZE_MAX, 0, &seed, dev, 0);
        segs_long_among_short(t, op, 300000, &seed, dev);
    }
}

/* argmin and argmax of type t (its number ti) */
static void argext_cases(wr_type t, int ti, int large)
{
    static const size_t quick[] = { 1, 65537 };
    const enum pat pats[4] = { PAT_EXACT, PAT_TIES, PAT_NAN, PAT_NEGZERO };
    const int npat = IS_FLT(t) ? 4 : 2;
    for (int p = 0; p < npat; p++) {
        const uint64_t base = 7000 + 1000 * (uint64_t)p + 10 * (uint64_t)ti;
        if (large) {
            for (size_t k = 0; k < NFOUND; k++)
                if (fits(foundation[k])) case_argext(t, pats[p], foundation[k], base + k, RM_ALL);
            continue;
        }
        /* on the device; exact data (and NaNs) on the others too */
        if (p == 0) case_argext(t, pats[p], 0, base + 9, RM(RES_DEVICE));   /* WR_ERR_EMPTY */
        for (size_t k = 0; k < sizeof quick / sizeof quick[0]; k++)
            if (fits(quick[k])) case_argext(t, pats[p], quick[k], base + k, RM(RES_DEVICE));
        const size_t hn = fits(4097) ? 4097 : 33;                            /* (33: a small WR_TEST_MAX_N) */
        if ((pats[p] == PAT_EXACT || pats[p] == PAT_NAN) && fits(hn)) case_argext(t, pats[p], hn, base + 7, RM_HOST);
    }
    if (!large && fits(((size_t)1 << 20) + 3)) case_argext(t, PAT_EXACT, ((size_t)1 << 20) + 3, 7777, RM(RES_DEVICE));
}

int main(void)
{
    gpu_require();
    unsetenv("WARPRED_BACKEND");
    max_n = test_max_n((size_t)1 << 28);
    trace = getenv("WR_TEST_TRACE") != NULL;
    plan_lazy();
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) bail("cpu context: %s", wr_context_error(NULL));
    if (wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (wr_context_create(&gpu_small, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    setenv("WARPRED_CUDA_SCAN_BLOCKS", "2", 1);
    if (wr_context_create(&gpu_two, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_SCAN_BLOCKS");
    diag("%s", wr_context_describe(gpu));

    cap = small_cap < max_n + 64 ? small_cap : max_n + 64;
    for (int r = 0; r < RES_COUNT; r++) {
        rin[r] = res_alloc((enum res)r, cap * 8);
        rout[r] = res_alloc((enum res)r, cap * 8);
        roff[r] = res_alloc((enum res)r, (cap + 1) * sizeof(size_t));
        ridx[r] = res_alloc((enum res)r, sizeof(size_t));
        rval[r] = res_alloc((enum res)r, 8);
    }
    hin = malloc(cap * 8);
    hout_c = malloc(cap * 8);
    hout_g = malloc(cap * 8);
    href = malloc(cap * 8);
    /* offsets: one per element at most, and the 1007 segments of "one long among
     * short" below whatever the cap (a small WR_TEST_MAX_N made that case
     * write past the end, corrupting the heap: the crash seen under the
     * sanitizers at WR_TEST_MAX_N=300) */
    const size_t hoff_n = cap + 1 > LONG_AMONG_SHORT + 1 ? cap + 1 : LONG_AMONG_SHORT + 1;
    hoff = malloc(hoff_n * sizeof *hoff);
    if (!hin || !hout_c || !hout_g || !href || !hoff) bail("out of host memory");

    const int large = test_large();
    double t0 = test_elapsed();
    diag("%s case lists%s", large ? "the full" : "the default",
         large ? "" : " (WR_TEST_LARGE=1: every size of every combination on every residency)");
    for (int ti = 0; ti < 6; ti++) {
        const wr_type t = (wr_type)ti;
        for (int oi = 0; oi < 7; oi++) {
            const wr_op op = (wr_op)oi;
            if (!wr_op_valid(t, op)) continue;
            if (large) combo_full(t, op, 100 * ti + oi);
            else combo_quick(t, op, 100 * ti + oi);
        }
        argext_cases(t, ti, large);
    }
    diag("linear, rows, segments and argmin/argmax cases: %.1f s", test_elapsed() - t0);

    t0 = test_elapsed();
    {
        const size_t most = (cap - 2) / 2 < 300000 ? (cap - 2) / 2 : 300000;
        const size_t nsegs[] = { 1, 2, 1000, large ? most : 5000 };
        const enum res where[] = { RES_DEVICE, RES_MANAGED };
        for (size_t w = 0; w < 2; w++)
            for (size_t k = 0; k < sizeof nsegs / sizeof nsegs[0]; k++) {
                const size_t m = nsegs[k];
                if (m < 1 || 2 * m + 2 > cap) continue;
                case_bad_offsets(where[w], m, 0, hoff, cap);
                if (m > 2) case_bad_offsets(where[w], m, m / 2 + 7 < m ? m / 2 + 7 : m / 2, hoff, cap);
                if (m > 1) case_bad_offsets(where[w], m, m - 1, hoff, cap);
            }
    }
    diag("bad offsets: %.1f s", test_elapsed() - t0);

    /* Every (function, type, op) on every residency (WR_TEST_LARGE), or on
     * the device (the default) plus every (function, type) on every
     * residency. */
    for (int f = 0; f < F_NFN; f++)
        for (int ti = 0; ti < 6; ti++)
            for (int oi = 0; oi < 7; oi++) {
                if (!wr_op_valid((wr_type)ti, (wr_op)oi)) continue;
                if (large) {
                    for (int r = 0; r < RES_COUNT; r++)
                        ok(ran[f][ti][oi][r] && !failed[f][ti][oi][r], "%s %s %s, %s memory: cpu == cuda == reference",
                           fn_name[f], type_name[ti], op_name[oi], res_name[r]);
                    continue;
                }
                char where[80] = "";
                int bad = 0;
                for (int r = 0; r < RES_COUNT; r++) {
                    bad |= failed[f][ti][oi][r];
                    if (ran[f][ti][oi][r])
                        snprintf(where + strlen(where), sizeof where - strlen(where), "%s%s", *where ? ", " : "",
                                 res_name[r]);
                }
                ok(ran[f][ti][oi][RES_DEVICE] && !bad, "%s %s %s (%s memory): cpu == cuda == reference", fn_name[f],
                   type_name[ti], op_name[oi], where);
            }
    if (!large)
        for (int f = 0; f < F_NFN; f++)
            for (int ti = 0; ti < 6; ti++)
                for (int r = 0; r < RES_COUNT; r++) {
                    int any = 0;
                    for (int oi = 0; oi < 7; oi++) any |= ran[f][ti][oi][r];
                    ok(any, "%s %s ran on %s memory", fn_name[f], type_name[ti], res_name[r]);
                }
    for (int m = 0; m < 2; m++)
        for (int ti = 0; ti < 6; ti++)
            for (int r = 0; r < RES_COUNT; r++)
                ok(arg_ran[m][ti][r] && !arg_failed[m][ti][r], "%s %s, %s memory: cpu == cuda == reference",
                   m ? "wr_argmax" : "wr_argmin", type_name[ti], res_name[r]);

    for (int r = 0; r < RES_COUNT; r++) {
        res_free((enum res)r, rin[r]);
        res_free((enum res)r, rout[r]);
        res_free((enum res)r, roff[r]);
        res_free((enum res)r, ridx[r]);
        res_free((enum res)r, rval[r]);
    }
    free(hin);
    free(hout_c);
    free(hout_g);
    free(href);
    free(hoff);

    /* big random cases: WR_TEST_LARGE, 2^25 on device, pinned and pageable
     * memory and 2^28 on the device (and a pageable float reduce / int scan,
     * streamed through staging); by default 2^21-2^22, and a pageable
     * float reduce of 2^24 in two chunks of the default staging */
    static const struct big bigs_large[] = {
        { RES_DEVICE, WR_FLOAT, B_REDUCE, 1u << 25 }, { RES_PINNED, WR_FLOAT, B_REDUCE, 1u << 25 },
        { RES_PAGEABLE, WR_FLOAT, B_REDUCE, 1u << 25 }, { RES_DEVICE, WR_DOUBLE, B_REDUCE, 1u << 25 },
        { RES_PAGEABLE, WR_INT32, B_REDUCE, 1u << 25 }, { RES_DEVICE, WR_FLOAT, B_SCAN, 1u << 25 },
        { RES_PINNED, WR_FLOAT, B_SCAN, 1u << 25 }, { RES_PAGEABLE, WR_INT64, B_SCAN, 1u << 25 },
        { RES_DEVICE, WR_UINT32, B_EXSCAN, 1u << 25 }, { RES_PAGEABLE, WR_DOUBLE, B_EXSCAN, 1u << 25 },
        { RES_DEVICE, WR_FLOAT, B_ARGMAX, 1u << 25 }, { RES_PAGEABLE, WR_INT64, B_ARGMIN, 1u << 25 },
        { RES_DEVICE, WR_FLOAT, B_ROWS32, 1u << 25 }, { RES_PINNED, WR_INT32, B_ROWS32, 1u << 25 },
        { RES_DEVICE, WR_FLOAT, B_REDUCE, 1u << 28 }, { RES_DEVICE, WR_DOUBLE, B_REDUCE, 1u << 28 },
        { RES_DEVICE, WR_INT32, B_REDUCE, 1u << 28 }, { RES_DEVICE, WR_FLOAT, B_ARGMAX, 1u << 28 },
        { RES_DEVICE, WR_FLOAT, B_SCAN, 1u << 28 }, { RES_DEVICE, WR_INT32, B_EXSCAN, 1u << 28 },
        { RES_DEVICE, WR_FLOAT, B_ROWS32, 1u << 28 }, { RES_PAGEABLE, WR_FLOAT, B_REDUCE, 1u << 28 },
        { RES_PAGEABLE, WR_INT32, B_SCAN, 1u << 28 },
    };
    static const struct big bigs_default[] = {
        { RES_DEVICE, WR_FLOAT, B_REDUCE, 1u << 22 }, { RES_PAGEABLE, WR_FLOAT, B_REDUCE, 1u << 24 },
        { RES_DEVICE, WR_DOUBLE, B_REDUCE, 1u << 22 }, { RES_DEVICE, WR_FLOAT, B_SCAN, 1u << 22 },
        { RES_PINNED, WR_FLOAT, B_SCAN, 1u << 22 }, { RES_PAGEABLE, WR_INT64, B_SCAN, 1u << 21 },
        { RES_DEVICE, WR_UINT32, B_EXSCAN, 1u << 22 }, { RES_PAGEABLE, WR_DOUBLE, B_EXSCAN, 1u << 21 },
        { RES_DEVICE, WR_FLOAT, B_ARGMAX, 1u << 22 }, { RES_PAGEABLE, WR_INT64, B_ARGMIN, 1u << 21 },
        { RES_DEVICE, WR_FLOAT, B_ROWS32, 1u << 22 }, { RES_PINNED, WR_INT32, B_ROWS32, 1u << 21 },
    };
    const struct big *bigs = large ? bigs_large : bigs_default;
    const size_t nbig = large ? sizeof bigs_large / sizeof bigs_large[0] : sizeof bigs_default / sizeof bigs_default[0];
    t0 = test_elapsed();
    for (size_t k = 0; k < nbig; k++)
        if (bigs[k].n <= max_n) case_big(&bigs[k]);
    const size_t acc_n = (size_t)1 << (large ? 26 : 24);
    if (acc_n <= max_n) case_scan_accuracy(acc_n);
    diag("big random cases: %.1f s", test_elapsed() - t0);

    wr_context_destroy(gpu_small);
    wr_context_destroy(gpu_two);
    wr_context_destroy(gpu);
    wr_context_destroy(cpu);
    return tap_failures() ? 1 : 0;
}

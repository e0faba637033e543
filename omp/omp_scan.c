/*
 * omp_scan.c -- inclusive and exclusive scans as OpenMP target regions.
 *
 * OpenMP has no device scan (GCC cannot offload `omp scan`), so the scan is
 * built the way a GPU scan is, from reductions and a scan of their totals,
 * over a fixed hierarchy:
 *   lane   WRO_SL (16) contiguous elements: one lane scans them in turn;
 *   tile   WRO_ST (256) lanes, 4096 elements: DESIGN.md's block;
 *   group  WRO_SG (64) tiles, 262144 elements.
 * Four target regions, five steps:
 *   1. lane totals lt[g]: every lane folds its elements (in the element
 *      type, from the neutral value), stored in the carry type W;
 *   2. per tile, one lane turns its lt[] into exclusive prefixes (in W)
 *      and writes the tile total tt[t];
 *   3. per group, the same over tt[]: group totals gt[q];
 *   4. one lane carries the groups in order: group bases gb[q], in W and,
 *      for float SUM, as an unevaluated sum hi + lo kept by TwoSum (Knuth,
 *      TAOCP vol. 2, 4.2.2); the carry lives in device memory between
 *      calls of a staged scan.  3 and 4 are one team's work, a plain
 *      target region: GCC 12's nvptx runtime takes about 0.2 ms to start a
 *      `target teams` region, a fifth of that for a plain one;
 *   5. every lane rescans its elements from its base
 *      gb[q] op tt[t] op lt[g]: out = base op (chain inside the lane),
 *      the chain in the element type, as in cpu/ (for float SUM the part of
 *      the base the element type cannot hold starts the chain).
 * W is the element type for integers (exact, wrapping) and double for
 * floats, so a float output is (base in double) + (a chain of at most 16
 * floats).  Everything depends on the count alone, and host buffers are
 * staged in whole groups, so staged and device-resident scans give the same
 * bits.
 */
#include <config.h>
#include <stdio.h>
#include "omp_kern.h"

#define WRO_NL(n) (((n) + WRO_SL - 1) / WRO_SL)
#define WRO_NT(n) ((WRO_NL(n) + WRO_ST - 1) / WRO_ST)
#define WRO_NG(n) ((WRO_NT(n) + WRO_SG - 1) / WRO_SG)

/* ---- the carry type's kernels ---------------------------------------------------- */

#define WRO_DEF_CARRY(wsfx, W, op, OE)                                                \
    /* a[] in blocks of B: each block's entries become exclusive prefixes (from */   \
    /* the neutral value) and tot[b] the block's total */                           \
    static void wro_cblk_##wsfx##_##op(int dev, int par, void *va, size_t n, size_t B, void *vtot) \
    {                                                                                \
        W *a = (W *)va, *tot = (W *)vtot;                                            \
        const size_t nb = (n + B - 1) / B;                                           \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(a, tot)) \
        for (size_t b = 0; b < nb; b++) {                                            \
            W acc = WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx());                    \
            const size_t e = (b + 1) * B < n ? (b + 1) * B : n;                      \
            for (size_t i = b * B; i < e; i++) {                                     \
                const W v = a[i];                                                    \
                a[i] = acc;                                                          \
                acc = wr_##op##_##wsfx(acc, v);                                      \
            }                                                                        \
            tot[b] = acc;                                                            \
        }                                                                            \
    }                                                                                \
    /* 3 and 4 in one team (a target region, no teams construct): tt[0..nt) */ \
    /* in groups of WRO_SG become exclusive prefixes, gt[q] the group totals; */ \
    /* then one lane sets gbh/gbl[q] = the carry before group q and advances  */ \
    /* the carry (cy[0] + cy[1]); init: start from the neutral value */            \
    static void wro_cgroups_##wsfx##_##op(int dev, int par, void *vtt, size_t nt, void *vgt, void *vgbh, void *vgbl, \
                                          void *vcy, int init)                       \
    {                                                                                \
        W *tt = (W *)vtt, *gt = (W *)vgt;                                            \
        W *gbh = (W *)vgbh, *gbl = (W *)vgbl, *cy = (W *)vcy;                        \
        const size_t ng = (nt + WRO_SG - 1) / WRO_SG;                                \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(tt, gt, gbh, gbl, cy))       \
        {                                                                            \
            W hi, lo;                                                                \
            WRO_PRAGMA(omp parallel for simd if(par))                                        \
            for (size_t q = 0; q < ng; q++) {                                        \
                W acc = WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx());                \
                const size_t e = (q + 1) * WRO_SG < nt ? (q + 1) * WRO_SG : nt;      \
                for (size_t i = q * WRO_SG; i < e; i++) {                            \
                    const W v = tt[i];                                               \
                    tt[i] = acc;                                                     \
                    acc = wr_##op##_##wsfx(acc, v);                                  \
                }                                                                    \
                gt[q] = acc;                                                         \
            }                                                                        \
            hi = init ? WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx()) : cy[0];        \
            lo = init ? (W)0 : cy[1];                                                \
            for (size_t q = 0; q < ng; q++) {                                        \
                const W v = gt[q];                                                   \
                gbh[q] = hi;                                                         \
                gbl[q] = lo;                                                         \
                if (WRO_IS_FLOAT(W) && OE == WR_SUM) {   /* TwoSum */                \
                    const W s = hi + v, bb = s - hi;                                 \
                    lo += (hi - (s - bb)) + (v - bb);                                \
                    hi = s;                                                          \
                } else {                                                             \
                    hi = wr_##op##_##wsfx(hi, v);                                    \
                }                                                                    \
            }                                                                        \
            cy[0] = hi;                                                              \
            cy[1] = lo;                                                              \
        }                                                                            \
    }
#define WRO_CPAIR WRO_DEF_CARRY
WRO_CARRY_PAIRS
#undef WRO_CPAIR

/* ---- the element type's kernels ---------------------------------------------------- */

#define WRO_DEF_SCAN(sfx, T, E, wsfx, W, op, OE)                                      \
    /* 1: lt[g] = the fold of lane g of x[0..n), in W */                             \
    static void wro_slt_##sfx##_##op(int dev, int par, const void *vx, size_t n, void *vlt)   \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        W *lt = (W *)vlt;                                                            \
        const size_t nl = WRO_NL(n);                                                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, lt)) \
        for (size_t g = 0; g < nl; g++) {                                            \
            T acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                     \
            const size_t e = (g + 1) * WRO_SL < n ? (g + 1) * WRO_SL : n;            \
            for (size_t i = g * WRO_SL; i < e; i++) acc = wr_##op##_##sfx(acc, x[i]); \
            lt[g] = (W)acc;                                                          \
        }                                                                            \
    }                                                                                \
    /* 5: y[i] for every lane from its base; set0: y[0] = the identity (exscan) */  \
    static void wro_sapply_##sfx##_##op(int dev, int par, const void *vx, void *vy, size_t n, const void *vlt, \
                                        const void *vtt, const void *vgbh, const void *vgbl, \
                                        int exclusive, int set0)                     \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *y = (T *)vy;                                                              \
        const W *lt = (const W *)vlt, *tt = (const W *)vtt;                          \
        const W *gbh = (const W *)vgbh, *gbl = (const W *)vgbl;                      \
        const size_t nl = WRO_NL(n);                                                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, y, lt, tt, gbh, gbl)) \
        for (size_t g = 0; g < nl; g++) {                                            \
            const size_t t = g / WRO_ST, q = t / WRO_SG;                             \
            const size_t e = (g + 1) * WRO_SL < n ? (g + 1) * WRO_SL : n;            \
            const W b = wr_##op##_##wsfx(wr_##op##_##wsfx(gbh[q], tt[t]), lt[g]);    \
            const T hi = (T)b;                                                       \
            T acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                     \
            if (WRO_IS_FLOAT(T) && OE == WR_SUM && isfinite((double)hi)) {           \
                const W r = (b - (W)hi) + gbl[q];                                    \
                if (r != 0) acc = (T)r;                  /* else keep -0 */          \
            }                                                                        \
            for (size_t i = g * WRO_SL; i < e; i++) {                                \
                const T v = x[i];                                                    \
                if (exclusive) {                                                     \
                    y[i] = wr_##op##_##sfx(hi, acc);                                 \
                    acc = wr_##op##_##sfx(acc, v);                                   \
                } else {                                                             \
                    acc = wr_##op##_##sfx(acc, v);                                   \
                    y[i] = wr_##op##_##sfx(hi, acc);                                 \
                }                                                                    \
            }                                                                        \
            if (set0 && g == 0) y[0] = wr_ident_##op##_##sfx();                      \
        }                                                                            \
    }
#define WRO_PAIR WRO_DEF_SCAN
WRO_PAIRS
#undef WRO_PAIR

struct wro_scan_k {
    size_t size, wsize;
    void (*lt)(int dev, int par, const void *x, size_t n, void *lt);
    void (*blk)(int dev, int par, void *a, size_t n, size_t B, void *tot);
    void (*groups)(int dev, int par, void *tt, size_t nt, void *gt, void *gbh, void *gbl, void *cy, int init);
    void (*apply)(int dev, int par, const void *x, void *y, size_t n, const void *lt, const void *tt, const void *gbh,
                  const void *gbl, int exclusive, int set0);
};

#define WRO_SCAN_ENTRY(sfx, T, E, wsfx, W, op, OE)                                   \
    [E][OE] = { sizeof(T), sizeof(W), wro_slt_##sfx##_##op, wro_cblk_##wsfx##_##op,  \
                wro_cgroups_##wsfx##_##op, wro_sapply_##sfx##_##op },
static const struct wro_scan_k wro_scan_tab[WRO_NTYPES][WRO_NOPS] = {
#define WRO_PAIR WRO_SCAN_ENTRY
    WRO_PAIRS
#undef WRO_PAIR
};
#undef WRO_SCAN_ENTRY

/* The carry type's arrays of one chunk of at most n elements. */
struct wro_sbuf {
    void *lt, *tt, *gt, *gbh, *gbl, *cy;
};

static size_t sbuf_bytes(size_t n, size_t ws)
{
    return WRO_SCRATCH_SIZE(WRO_NL(n) * ws) + WRO_SCRATCH_SIZE(WRO_NT(n) * ws) +
           3 * WRO_SCRATCH_SIZE(WRO_NG(n) * ws) + WRO_SCRATCH_SIZE(2 * ws);
}

static int sbuf_take(struct wro_scratch *s, size_t n, size_t ws, struct wro_sbuf *b)
{
    b->lt = wro_scratch_take(s, WRO_NL(n) * ws);
    b->tt = wro_scratch_take(s, WRO_NT(n) * ws);
    b->gt = wro_scratch_take(s, WRO_NG(n) * ws);
    b->gbh = wro_scratch_take(s, WRO_NG(n) * ws);
    b->gbl = wro_scratch_take(s, WRO_NG(n) * ws);
    b->cy = wro_scratch_take(s, 2 * ws);
    return b->lt && b->tt && b->gt && b->gbh && b->gbl && b->cy ? 0 : -1;
}

/* Scan n elements (a whole number of groups unless last) from x to y,
 * carrying on from the carry in b->cy (first: from the start). */
static void scan_chunk(int dev, int par, const struct wro_scan_k *k, const struct wro_sbuf *b, const void *x, void *y,
                       size_t n, int exclusive, int first)
{
    k->lt(dev, par, x, n, b->lt);
    k->blk(dev, par, b->lt, WRO_NL(n), WRO_ST, b->tt);
    k->groups(dev, par, b->tt, WRO_NT(n), b->gt, b->gbh, b->gbl, b->cy, first);
    k->apply(dev, par, x, y, n, b->lt, b->tt, b->gbh, b->gbl, exclusive, exclusive && first);
}

size_t wro_scan_scratch(size_t count, wr_type type)
{
    return sbuf_bytes(count, type == WR_INT32 || type == WR_UINT32 ? 4 : 8);
}

wr_status wro_scan_dev(struct wro_state *st, struct wro_scratch *s, const void *x, void *y, size_t count,
                       wr_type type, wr_op op, int exclusive, char *err)
{
    const struct wro_scan_k *k = &wro_scan_tab[type][op];
    struct wro_sbuf b;
    if (sbuf_take(s, count, k->wsize, &b) != 0) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    scan_chunk(st->dev, wro_par(st, count), k, &b, x, y, count, exclusive, 1);
    return WR_SUCCESS;
}

struct scan_arg {
    struct wro_state *st;
    const struct wro_scan_k *k;
    struct wro_sbuf b;
    int exclusive;
};

/* whole groups, carried on from the chunk before */
static wr_status scan_chunk_fn(void *va, const struct wro_chunk *c, char *err)
{
    const struct scan_arg *a = va;
    (void)err;
    scan_chunk(a->st->dev, wro_par(a->st, c->len), a->k, &a->b, c->in, c->out, c->len, a->exclusive, c->off == 0);
    return WR_SUCCESS;
}

wr_status wro_scan(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t count,
                   wr_type type, wr_op op, int exclusive, char *err)
{
    const struct wro_scan_k *k = &wro_scan_tab[type][op];
    const size_t es = k->size;
    /* whole groups through one staging buffer (in place there) */
    const struct wro_plan p = { count, es, es, WRO_GROUP, 1 };
    struct scan_arg a;
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc;
    size_t chunk;

    if ((rc = wro_resolve(st, in, count * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, count * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    chunk = wro_plan_items(st, &p, &bi, &bo);
    if ((rc = wro_scratch_open(st, &s, wro_plan_scratch(st, &p, &bi, &bo) + sbuf_bytes(chunk, k->wsize), err))
        != WR_SUCCESS)
        return rc;
    a.st = st;
    a.k = k;
    a.exclusive = exclusive;
    if (sbuf_take(&s, chunk, k->wsize, &a.b) != 0) {
        wro_scratch_close(&s);
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    rc = wro_each_chunk(st, &s, &p, &bi, &bo, scan_chunk_fn, &a, err);
    wro_scratch_close(&s);
    return rc;
}

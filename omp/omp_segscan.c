/*
 * omp_segscan.c -- scans inside segments (wr_scan_segments,
 * wr_exscan_segments) as OpenMP target regions.
 *
 * The scan of omp_scan.c over the segments' range [offsets[0],
 * offsets[nsegments]), with the segment starts as a bitmap (wro_heads_bits)
 * and every partial a (value, "a segment starts in it") pair, combined as
 * (a, fa) then (b, fb) = (fb ? b : a op b, fa | fb): associative, so the
 * same hierarchy of lanes (WRO_SL elements), tiles (WRO_ST lanes) and groups
 * (WRO_SG tiles) serves any number and length of segments in the same four
 * target regions:
 *   1. every lane folds its elements from its last segment start (lt, lf);
 *   2. per tile, the lanes' exclusive prefixes (in the carry type W);
 *   3. per group, the tiles'; then one lane carries the groups in order,
 *      float SUM by TwoSum as in omp_scan.c, starting again at a group with
 *      a segment start;
 *   4. every lane rescans its elements from its base, and from the identity
 *      at each segment start in it.
 * The cut depends on the offsets alone (lanes count from offsets[0]), and
 * host buffers are staged in whole groups with the carry on the device, so
 * the bits are the same on every kind of buffer.  Only elements in the
 * range are read or written; an element is read before its output is
 * written (out == in).
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_kern.h"

#define WRO_NL(n) (((n) + WRO_SL - 1) / WRO_SL)
#define WRO_NT(n) ((WRO_NL(n) + WRO_ST - 1) / WRO_ST)
#define WRO_NG(n) ((WRO_NT(n) + WRO_SG - 1) / WRO_SG)

/* ---- the carry type's kernels ---------------------------------------------------- */

#define WRO_DEF_GCARRY(wsfx, W, op, OE)                                               \
    /* a[] in blocks of B: each entry becomes the exclusive prefix since the */      \
    /* block's last segment start, af[] whether one came before it in the     */      \
    /* block; tot[b], tf[b] the block's pair */                                      \
    static void wro_gblk_##wsfx##_##op(int dev, int par, void *va, unsigned char *af, size_t n, size_t B, \
                                       void *vtot, unsigned char *tf)                \
    {                                                                                \
        W *a = (W *)va, *tot = (W *)vtot;                                            \
        const size_t nb = (n + B - 1) / B;                                           \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(a, af, tot, tf))                                    \
        for (size_t b = 0; b < nb; b++) {                                            \
            W acc = WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx());                    \
            unsigned char f = 0;                                                     \
            const size_t e = (b + 1) * B < n ? (b + 1) * B : n;                      \
            for (size_t i = b * B; i < e; i++) {                                     \
                const W v = a[i];                                                    \
                const unsigned char vf = af[i];                                      \
                a[i] = acc;                                                          \
                af[i] = f;                                                           \
                acc = vf ? v : wr_##op##_##wsfx(acc, v);                             \
                f |= vf;                                                             \
            }                                                                        \
            tot[b] = acc;                                                            \
            tf[b] = f;                                                               \
        }                                                                            \
    }                                                                                \
    /* one team: tt[0..nt) in groups of WRO_SG as wro_gblk (gt, gf: the       */    \
    /* groups' pairs), then one lane sets gbh/gbl[q] = the carry before group */     \
    /* q and advances the carry cy (init: from the neutral value) */                 \
    static void wro_ggroups_##wsfx##_##op(int dev, int par, void *vtt, unsigned char *tf, size_t nt, void *vgt, \
                                          unsigned char *gf, void *vgbh, void *vgbl, void *vcy, int init) \
    {                                                                                \
        W *tt = (W *)vtt, *gt = (W *)vgt;                                            \
        W *gbh = (W *)vgbh, *gbl = (W *)vgbl, *cy = (W *)vcy;                        \
        const size_t ng = (nt + WRO_SG - 1) / WRO_SG;                                \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(tt, tf, gt, gf, gbh, gbl, cy)) \
        {                                                                            \
            W hi, lo;                                                                \
            WRO_PRAGMA(omp parallel for simd if(par))                                \
            for (size_t q = 0; q < ng; q++) {                                        \
                W acc = WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx());                \
                unsigned char f = 0;                                                 \
                const size_t e = (q + 1) * WRO_SG < nt ? (q + 1) * WRO_SG : nt;      \
                for (size_t i = q * WRO_SG; i < e; i++) {                            \
                    const W v = tt[i];                                               \
                    const unsigned char vf = tf[i];                                  \
                    tt[i] = acc;                                                     \
                    tf[i] = f;                                                       \
                    acc = vf ? v : wr_##op##_##wsfx(acc, v);                         \
                    f |= vf;                                                         \
                }                                                                    \
                gt[q] = acc;                                                         \
                gf[q] = f;                                                           \
            }                                                                        \
            hi = init ? WRO_NEUTRAL(W, OE, wr_ident_##op##_##wsfx()) : cy[0];        \
            lo = init ? (W)0 : cy[1];                                                \
            for (size_t q = 0; q < ng; q++) {                                        \
                const W v = gt[q];                                                   \
                gbh[q] = hi;                                                         \
                gbl[q] = lo;                                                         \
                if (gf[q]) {                                                         \
                    hi = v;                                                          \
                    lo = 0;                                                          \
                } else if (WRO_IS_FLOAT(W) && OE == WR_SUM) {   /* TwoSum */         \
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
#define WRO_CPAIR WRO_DEF_GCARRY
WRO_CARRY_PAIRS
#undef WRO_CPAIR

/* ---- the element type's kernels ---------------------------------------------------- */

#define WRO_DEF_SEGSCAN(sfx, T, E, wsfx, W, op, OE)                                   \
    /* 1: lt[g] = the fold of lane g of x[0..n) from its last segment start, */      \
    /* lf[g] = 1 when one is in it */                                                \
    static void wro_glt_##sfx##_##op(int dev, int par, const void *vx, size_t n, const uint64_t *hb, void *vlt, \
                                     unsigned char *lf)                              \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        W *lt = (W *)vlt;                                                            \
        const size_t nl = WRO_NL(n);                                                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, hb, lt, lf))                                     \
        for (size_t g = 0; g < nl; g++) {                                            \
            T acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                     \
            unsigned char f = 0;                                                     \
            const size_t e = (g + 1) * WRO_SL < n ? (g + 1) * WRO_SL : n;            \
            for (size_t i = g * WRO_SL; i < e; i++) {                                \
                if (wro_head(hb, i)) {                                               \
                    acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());               \
                    f = 1;                                                           \
                }                                                                    \
                acc = wr_##op##_##sfx(acc, x[i]);                                    \
            }                                                                        \
            lt[g] = (W)acc;                                                          \
            lf[g] = f;                                                               \
        }                                                                            \
    }                                                                                \
    /* 4: y[i] for every lane: from its base (the carry, the tile's and the   */    \
    /* lanes' prefixes since the last segment start) up to its first segment  */    \
    /* start, from the identity after it */                                         \
    static void wro_gapply_##sfx##_##op(int dev, int par, const void *vx, void *vy, size_t n, const uint64_t *hb, \
                                        const void *vlt, const unsigned char *lf, const void *vtt, \
                                        const unsigned char *tf, const void *vgbh, const void *vgbl, int exclusive) \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *y = (T *)vy;                                                              \
        const W *lt = (const W *)vlt, *tt = (const W *)vtt;                          \
        const W *gbh = (const W *)vgbh, *gbl = (const W *)vgbl;                      \
        const size_t nl = WRO_NL(n);                                                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, hb, lt, lf, tt, tf, gbh, gbl))                \
        for (size_t g = 0; g < nl; g++) {                                            \
            const size_t t = g / WRO_ST, q = t / WRO_SG;                             \
            const size_t e = (g + 1) * WRO_SL < n ? (g + 1) * WRO_SL : n;            \
            W b, lo = 0;                                                             \
            int based = 1;                                                           \
            if (lf[g]) {                                                             \
                b = lt[g];                                                           \
            } else if (tf[t]) {                                                      \
                b = wr_##op##_##wsfx(tt[t], lt[g]);                                  \
            } else {                                                                 \
                b = wr_##op##_##wsfx(wr_##op##_##wsfx(gbh[q], tt[t]), lt[g]);        \
                lo = gbl[q];                                                         \
            }                                                                        \
            const T hi = (T)b;                                                       \
            T acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                     \
            if (WRO_IS_FLOAT(T) && OE == WR_SUM && isfinite((double)hi)) {           \
                const W r = (b - (W)hi) + lo;                                        \
                if (r != 0) acc = (T)r;                  /* else keep -0 */          \
            }                                                                        \
            for (size_t i = g * WRO_SL; i < e; i++) {                                \
                const T v = x[i];                                                    \
                const int head = wro_head(hb, i);                                    \
                if (head) {                                                          \
                    based = 0;                                                       \
                    acc = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());               \
                }                                                                    \
                if (exclusive) {                                                     \
                    const T o = based ? wr_##op##_##sfx(hi, acc) : head ? wr_ident_##op##_##sfx() : acc; \
                    y[i] = WRO_STORE(sfx, T, OE, o);                                 \
                    acc = wr_##op##_##sfx(acc, v);                                   \
                } else {                                                             \
                    acc = wr_##op##_##sfx(acc, v);                                   \
                    y[i] = WRO_STORE(sfx, T, OE, based ? wr_##op##_##sfx(hi, acc) : acc); \
                }                                                                    \
            }                                                                        \
        }                                                                            \
    }
#define WRO_PAIR WRO_DEF_SEGSCAN
WRO_PAIRS
#undef WRO_PAIR

struct wro_gscan_k {
    size_t size, wsize;
    void (*lt)(int dev, int par, const void *x, size_t n, const uint64_t *hb, void *lt, unsigned char *lf);
    void (*blk)(int dev, int par, void *a, unsigned char *af, size_t n, size_t B, void *tot, unsigned char *tf);
    void (*groups)(int dev, int par, void *tt, unsigned char *tf, size_t nt, void *gt, unsigned char *gf, void *gbh,
                   void *gbl, void *cy, int init);
    void (*apply)(int dev, int par, const void *x, void *y, size_t n, const uint64_t *hb, const void *lt,
                  const unsigned char *lf, const void *tt, const unsigned char *tf, const void *gbh, const void *gbl,
                  int exclusive);
};

#define WRO_GSCAN_ENTRY(sfx, T, E, wsfx, W, op, OE)                                  \
    [E][OE] = { sizeof(T), sizeof(W), wro_glt_##sfx##_##op, wro_gblk_##wsfx##_##op,  \
                wro_ggroups_##wsfx##_##op, wro_gapply_##sfx##_##op },
static const struct wro_gscan_k wro_gscan_tab[WRO_NTYPES][WRO_NOPS] = {
#define WRO_PAIR WRO_GSCAN_ENTRY
    WRO_PAIRS
#undef WRO_PAIR
};
#undef WRO_GSCAN_ENTRY

/* ---- driver ------------------------------------------------------------------------ */

/* The partials of one chunk of at most n elements. */
struct gbuf {
    void *lt, *tt, *gt, *gbh, *gbl, *cy;
    unsigned char *lf, *tf, *gf;
    uint64_t *hb;
};

static size_t gbuf_bytes(size_t n, size_t ws)
{
    return WRO_SCRATCH_SIZE(WRO_NL(n) * ws) + WRO_SCRATCH_SIZE(WRO_NT(n) * ws) + 3 * WRO_SCRATCH_SIZE(WRO_NG(n) * ws) +
           WRO_SCRATCH_SIZE(2 * ws) + WRO_SCRATCH_SIZE(WRO_NL(n)) + WRO_SCRATCH_SIZE(WRO_NT(n)) +
           WRO_SCRATCH_SIZE(WRO_NG(n)) + WRO_SCRATCH_SIZE((n + 63) / 64 * sizeof(uint64_t));
}

static int gbuf_take(struct wro_scratch *s, size_t n, size_t ws, struct gbuf *b)
{
    b->lt = wro_scratch_take(s, WRO_NL(n) * ws);
    b->tt = wro_scratch_take(s, WRO_NT(n) * ws);
    b->gt = wro_scratch_take(s, WRO_NG(n) * ws);
    b->gbh = wro_scratch_take(s, WRO_NG(n) * ws);
    b->gbl = wro_scratch_take(s, WRO_NG(n) * ws);
    b->cy = wro_scratch_take(s, 2 * ws);
    b->lf = wro_scratch_take(s, WRO_NL(n));
    b->tf = wro_scratch_take(s, WRO_NT(n));
    b->gf = wro_scratch_take(s, WRO_NG(n));
    b->hb = wro_scratch_take(s, (n + 63) / 64 * sizeof(uint64_t));
    return b->lt && b->tt && b->gt && b->gbh && b->gbl && b->cy && b->lf && b->tf && b->gf && b->hb ? 0 : -1;
}

struct gscan_arg {
    struct wro_state *st;
    const struct wro_gscan_k *k;
    struct gbuf b;
    struct wro_heads *heads;
    size_t first;
    int exclusive;
};

/* whole groups of the range, carried on from the chunk before */
static wr_status gscan_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct gscan_arg *a = va;
    const struct wro_gscan_k *k = a->k;
    const struct gbuf *b = &a->b;
    const int dev = a->st->dev, par = wro_par(a->st, c->len);
    const size_t n = c->len;
    wr_status rc = wro_heads_bits(a->st, a->heads, a->first + c->off, n, b->hb, err);
    if (rc != WR_SUCCESS) return rc;
    k->lt(dev, par, c->in, n, b->hb, b->lt, b->lf);
    k->blk(dev, par, b->lt, b->lf, WRO_NL(n), WRO_ST, b->tt, b->tf);
    k->groups(dev, par, b->tt, b->tf, WRO_NT(n), b->gt, b->gf, b->gbh, b->gbl, b->cy, c->off == 0);
    k->apply(dev, par, c->in, c->out, n, b->hb, b->lt, b->lf, b->tt, b->tf, b->gbh, b->gbl, a->exclusive);
    return WR_SUCCESS;
}

wr_status wro_scan_segments(struct wro_state *st, const struct wr_call *call, char *err)
{
    const struct wro_gscan_k *k = &wro_gscan_tab[call->type][call->op];
    const size_t es = k->size, first = call->first, n = call->last - call->first, nseg = call->count;
    /* whole groups through one staging buffer (in place there) */
    const struct wro_plan p = { n, es, es, WRO_GROUP, 1 };
    struct wro_heads heads = { NULL, nseg, 0, 0, NULL, 0 };
    struct gscan_arg a;
    struct wro_buf bi, bo, bf;
    struct wro_scratch s;
    wr_status rc;
    size_t chunk;

    if (call->in == NULL || n == 0) return WR_SUCCESS;      /* every segment is empty */
    /* the segments' range, as lib/ located it */
    if ((rc = wro_resolve(st, (const char *)call->in + first * es, n * es, call->kin, "in", &bi, err)) != WR_SUCCESS)
        return rc;
    if ((rc = wro_resolve(st, (char *)call->out + first * es, n * es, call->kout, "out", &bo, err)) != WR_SUCCESS)
        return rc;
    if ((rc = wro_resolve(st, call->offsets, (nseg + 1) * sizeof(size_t), call->kaux, "offsets", &bf, err))
        != WR_SUCCESS)
        return rc;
    heads.dev_off = bf.direct;
    heads.off = bf.direct ? (const size_t *)(void *)bf.p : call->offsets;
    chunk = wro_plan_items(st, &p, &bi, &bo);
    if ((rc = wro_scratch_open(st, &s, wro_plan_scratch(st, &p, &bi, &bo) + gbuf_bytes(chunk, k->wsize), err))
        != WR_SUCCESS)
        return rc;
    a.st = st;
    a.k = k;
    a.heads = &heads;
    a.first = first;
    a.exclusive = call->exclusive;
    if (gbuf_take(&s, chunk, k->wsize, &a.b) != 0) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        rc = WR_ERR_NO_MEMORY;
    } else {
        rc = wro_each_chunk(st, &s, &p, &bi, &bo, gscan_chunk, &a, err);
    }
    wro_scratch_close(&s);
    wro_heads_done(&heads);
    return rc;
}

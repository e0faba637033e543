/*
 * omp_xscan.c -- reproducible float/double SUM scans on the omptarget
 * backend: wr_scan/wr_exscan in reproducible mode, wr_scan_exact and
 * wr_exscan_exact (WR_OPID_XSCAN, from a carried-in exact sum), and the
 * reproducible wr_scan_segments/wr_exscan_segments (WR_OPID_XSEGSCAN).
 * Every output is the exact prefix (inside its segment) rounded once, so
 * the bits are the cpu backend's (cpu/cpu_exact.c) whatever the cut.
 *
 * The method of cpu_exact.c and cuda/exact.cu, with tiles of WRO_XT
 * elements for the pieces, in passes of at most WRO_XPASS elements:
 *   1. lanes (simd, registers only): WRO_XRL lanes a tile run the verified
 *      front end over the tile's elements from its last segment start;
 *   2. tiles (no simd: an accumulator each): a tile's exact sum, its lanes'
 *      pairs and the elements of lanes that could not verify;
 *   3. prefix (one team, a lane a digit): each tile's exclusive prefix,
 *      from the carry (the exact sum of everything before the pass, or
 *      since the last segment start), starting again after a tile with a
 *      segment start; the carry moves past the pass;
 *   4. seed (no simd): a struct wrx_scan per tile from its prefix; its
 *      pair, and whether it can run in registers (nothing in r);
 *   5. fast (simd, registers only): a lane a tile scans its elements with
 *      the pair of wr_exact.h, each output rounded by one IEEE operation,
 *      from the identity at a segment start, and stops where the pair
 *      cannot verify an addition or the seed needs its accumulator;
 *   6. slow (no simd): such a tile goes on from there with the whole
 *      struct wrx_scan (its accumulator paths), as cpu_exact.c's scan.
 * Steps 1-3 read every element of the pass before step 5 writes one, and
 * a tile's step 6 starts where its step 5 stopped: out == in works.  What
 * holds a wrx_acc runs only in loops without simd or one-thread regions
 * (omp_xkern.h).  Host buffers are staged in chunks with the carry on the
 * device; any cut gives the same bits.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_xkern.h"

#define WRO_XT 512                     /* elements a tile (a multiple of 64: whole bitmap words) */
#define WRO_XRL 32                     /* front-end lanes a tile in step 1 */
#define WRO_XPASS ((size_t)WRO_XT * 4096)   /* elements a pass (a multiple of WRO_XT) */
#define WRO_XNONE SIZE_MAX             /* step 5 finished its tile */

#pragma omp declare target
/* The last segment start in [b, e) of a chunk's bits, or b when none. */
static inline size_t wro_last_head(const uint64_t *hb, size_t b, size_t e)
{
    size_t i;
    if (hb == NULL) return b;
    for (i = e; i > b; i--)
        if (wro_head(hb, i - 1)) return i - 1;
    return b;
}
#pragma omp end declare target

/* ---- the kernels ---------------------------------------------------------------- */

#define WRO_DEF_XSCAN(sfx, T, IS_F64)                                                    \
    /* 1: lane g = t*RL + l over elements of tile t from its last segment     */      \
    /* start: the front end's pair and its bad flag */                                 \
    static void wro_xslanes_##sfx(int dev, int par, const T *x, size_t m, const uint64_t *hb, double *ph, \
                                  double *pl, int *pb)                                 \
    {                                                                                  \
        const size_t nt = (m + WRO_XT - 1) / WRO_XT, G = nt * WRO_XRL;                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, hb, ph, pl, pb))                                    \
        for (size_t g = 0; g < G; g++) {                                               \
            const size_t t = g / WRO_XRL, l = g % WRO_XRL, b = t * WRO_XT;             \
            const size_t e = b + WRO_XT < m ? b + WRO_XT : m, lh = wro_last_head(hb, b, e); \
            size_t first = b + l, cnt;                                                 \
            if (first < lh) first += (lh - first + WRO_XRL - 1) / WRO_XRL * WRO_XRL;   \
            cnt = first < e ? (e - first + WRO_XRL - 1) / WRO_XRL : 0;                 \
            wro_xfront_##sfx(x, first, WRO_XRL, cnt, &ph[g], &pl[g], &pb[g]);          \
        }                                                                              \
    }                                                                                  \
    /* 2: xa[t] = the exact sum of tile t from its last segment start,       */      \
    /* normalised; hh[t] = 1 when it has a segment start */                            \
    static void wro_xstiles_##sfx(int dev, int par, const T *x, size_t m, const uint64_t *hb, const double *ph, \
                                  const double *pl, const int *pb, wrx_acc *xa, int *hh) \
    {                                                                                  \
        const size_t nt = (m + WRO_XT - 1) / WRO_XT;                                   \
        WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) \
                   is_device_ptr(x, hb, ph, pl, pb, xa, hh))                            \
        for (size_t t = 0; t < nt; t++) {                                              \
            const size_t b = t * WRO_XT, e = b + WRO_XT < m ? b + WRO_XT : m;          \
            const size_t lh = wro_last_head(hb, b, e);                                 \
            wrx_acc acc;                                                               \
            wrx_init(&acc);                                                            \
            for (size_t l = 0; l < WRO_XRL; l++) {                                     \
                const size_t g = t * WRO_XRL + l;                                      \
                size_t first = b + l, cnt;                                             \
                if (first < lh) first += (lh - first + WRO_XRL - 1) / WRO_XRL * WRO_XRL; \
                cnt = first < e ? (e - first + WRO_XRL - 1) / WRO_XRL : 0;             \
                wro_xadd_##sfx(&acc, x, first, WRO_XRL, cnt, ph[g], pl[g], pb[g]);     \
            }                                                                          \
            wrx_normalize(&acc);                                                       \
            xa[t] = acc;                                                               \
            hh[t] = lh != b || wro_head(hb, b);                                        \
        }                                                                              \
    }                                                                                  \
    /* 5: a lane a tile, in registers, from its seed; where it stops: fp[t] */       \
    /* (WRO_XNONE: nowhere) and its state there */                                    \
    static void wro_xsfast_##sfx(int dev, int par, const T *x, T *y, size_t m, const uint64_t *hb, int excl, \
                                 const double *sh, const double *sl, const int *sq, const int *se, size_t *fp, \
                                 double *fh, double *fl, int *fe, int *fs)             \
    {                                                                                  \
        const size_t nt = (m + WRO_XT - 1) / WRO_XT;                                   \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, hb, sh, sl, sq, se, fp, fh, fl, fe, fs))         \
        for (size_t t = 0; t < nt; t++) {                                              \
            const size_t b = t * WRO_XT, e = b + WRO_XT < m ? b + WRO_XT : m;          \
            double h = sh[t], l = sl[t];                                               \
            int quick = sq[t], empty = se[t], seg = 0;                                 \
            size_t fail = WRO_XNONE;                                                   \
            for (size_t i = b; i < e; i++) {                                           \
                uint64_t before = 0, bits;                                             \
                double xi;                                                             \
                if (wro_head(hb, i)) {          /* from the empty prefix */            \
                    h = -0.0;                                                          \
                    l = 0.0;                                                           \
                    quick = 1;                                                         \
                    empty = 1;                                                         \
                    seg = 1;                                                           \
                }                                                                      \
                if (!quick) {                                                          \
                    fail = i;                                                          \
                    break;                                                             \
                }                                                                      \
                xi = (double)x[i];                                                     \
                /* before the first element: +0, the sum of no elements */            \
                if (excl) before = empty ? 0 : wrx_pair_round_bits(h, l, IS_F64);     \
                if (!wrx_pair_add(&h, &l, xi)) {                                       \
                    fail = i;                                                          \
                    break;                                                             \
                }                                                                      \
                bits = excl ? before : wrx_pair_round_bits(h, l, IS_F64);              \
                y[i] = IS_F64 ? (T)wrx_from_bits(bits) : (T)wrx_from_bits32((uint32_t)bits); \
                empty = 0;                                                             \
            }                                                                          \
            fp[t] = fail;                                                              \
            fh[t] = h;                                                                 \
            fl[t] = l;                                                                 \
            fe[t] = empty;                                                             \
            fs[t] = seg;                                                               \
        }                                                                              \
    }                                                                                  \
    /* 6: the tiles step 5 left, from where it stopped, with the accumulator */       \
    static void wro_xsslow_##sfx(int dev, int par, const T *x, T *y, size_t m, const uint64_t *hb, int excl, \
                                 const wrx_acc *xa, const size_t *fp, const double *fh, const double *fl, \
                                 const int *fe, const int *fs)                         \
    {                                                                                  \
        const size_t nt = (m + WRO_XT - 1) / WRO_XT;                                   \
        WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) \
                   is_device_ptr(x, y, hb, xa, fp, fh, fl, fe, fs))                     \
        for (size_t t = 0; t < nt; t++) {                                              \
            const size_t p = fp[t], e = t * WRO_XT + WRO_XT < m ? t * WRO_XT + WRO_XT : m; \
            struct wrx_scan s;                                                         \
            int empty = fe[t];                                                         \
            if (p == WRO_XNONE) continue;                                              \
            /* the state step 5 had at p: its seed (or the empty prefix of a */       \
            /* segment start) with the pair it reached, nothing more in r */          \
            wrx_scan_init(&s, fs[t] ? NULL : &xa[t], IS_F64);                          \
            s.h = fh[t];                                                               \
            s.l = fl[t];                                                               \
            for (size_t i = p; i < e; i++) {                                           \
                const double xi = (double)x[i];                                        \
                uint64_t before = 0, bits;                                             \
                if (i != p && wro_head(hb, i)) {                                       \
                    wrx_scan_init(&s, NULL, IS_F64);                                   \
                    empty = 1;                                                         \
                }                                                                      \
                if (excl) before = empty ? 0 : wrx_scan_bits(&s);                      \
                wrx_scan_add(&s, xi);                                                  \
                bits = excl ? before : wrx_scan_bits(&s);                              \
                y[i] = IS_F64 ? (T)wrx_from_bits(bits) : (T)wrx_from_bits32((uint32_t)bits); \
                empty = 0;                                                             \
            }                                                                          \
        }                                                                              \
    }
WRO_DEF_XSCAN(f32, float, 0)
WRO_DEF_XSCAN(f64, double, 1)
#undef WRO_DEF_XSCAN

/* 3: each tile's sum xa[t] becomes its exclusive prefix from the carry cy,
 * starting again after a tile with a segment start (hh); cy moves past the
 * tiles and is normalised.  A lane a digit, one for the flags and loads:
 * integer additions, exact in any order. */
static void wro_xsprefix(int dev, int par, wrx_acc *xa, const int *hh, size_t nt, wrx_acc *cy)
{
#pragma omp target device(dev) is_device_ptr(xa, hh, cy)
    {
#pragma omp parallel for simd if(par)
        for (int k = 0; k <= WRX_DIGITS; k++) {
            if (k < WRX_DIGITS) {
                int64_t run = cy->d[k];
                for (size_t t = 0; t < nt; t++) {
                    const int64_t v = xa[t].d[k];
                    xa[t].d[k] = run;
                    run = hh[t] ? v : run + v;
                }
                cy->d[k] = run;
            } else {
                /* the tiles' sums are normalised: each adds 1 to a load */
                uint32_t f = cy->flags & WRX_FLAGS, load = cy->load;
                for (size_t t = 0; t < nt; t++) {
                    const uint32_t vf = xa[t].flags & WRX_FLAGS;
                    xa[t].flags = f | WRX_MAGIC;
                    xa[t].load = load;
                    if (hh[t]) {
                        f = vf;
                        load = 1;
                    } else {
                        f |= vf;
                        load += 1;
                    }
                }
                cy->flags = f | WRX_MAGIC;
                cy->load = load;
            }
        }
        wrx_normalize(cy);
    }
}

/* 4: the seed of every tile from its prefix */
static void wro_xsseed(int dev, int par, const wrx_acc *xa, size_t nt, int is_double, double *sh, double *sl, int *sq,
                       int *se)
{
#pragma omp target teams distribute parallel for if(parallel: par) device(dev) is_device_ptr(xa, sh, sl, sq, se)
    for (size_t t = 0; t < nt; t++) {
        struct wrx_scan s;
        wrx_scan_init(&s, &xa[t], is_double);
        sh[t] = s.h;
        sl[t] = s.l;
        sq[t] = s.mode == WRX_SCAN_FRONT && s.rb == 0;
        se[t] = s.empty;
    }
}

/* ---- driver ------------------------------------------------------------------------ */

/* The scratch of one pass of at most WRO_XPASS elements. */
struct xsbuf {
    double *ph, *pl, *sh, *sl, *fh, *fl;
    int *pb, *hh, *sq, *se, *fe, *fs;
    size_t *fp;
    wrx_acc *xa;
};

static size_t xsbuf_tiles(size_t n)
{
    const size_t m = n < WRO_XPASS ? n : WRO_XPASS;
    return (m + WRO_XT - 1) / WRO_XT;
}

static size_t xsbuf_bytes(size_t n)
{
    const size_t nt = xsbuf_tiles(n), G = nt * WRO_XRL;
    return 2 * WRO_SCRATCH_SIZE(G * sizeof(double)) + WRO_SCRATCH_SIZE(G * sizeof(int)) +
           4 * WRO_SCRATCH_SIZE(nt * sizeof(double)) + 5 * WRO_SCRATCH_SIZE(nt * sizeof(int)) +
           WRO_SCRATCH_SIZE(nt * sizeof(size_t)) + WRO_SCRATCH_SIZE(nt * sizeof(wrx_acc));
}

static int xsbuf_take(struct wro_scratch *s, size_t n, struct xsbuf *b)
{
    const size_t nt = xsbuf_tiles(n), G = nt * WRO_XRL;
    b->ph = wro_scratch_take(s, G * sizeof(double));
    b->pl = wro_scratch_take(s, G * sizeof(double));
    b->pb = wro_scratch_take(s, G * sizeof(int));
    b->sh = wro_scratch_take(s, nt * sizeof(double));
    b->sl = wro_scratch_take(s, nt * sizeof(double));
    b->fh = wro_scratch_take(s, nt * sizeof(double));
    b->fl = wro_scratch_take(s, nt * sizeof(double));
    b->hh = wro_scratch_take(s, nt * sizeof(int));
    b->sq = wro_scratch_take(s, nt * sizeof(int));
    b->se = wro_scratch_take(s, nt * sizeof(int));
    b->fe = wro_scratch_take(s, nt * sizeof(int));
    b->fs = wro_scratch_take(s, nt * sizeof(int));
    b->fp = wro_scratch_take(s, nt * sizeof(size_t));
    b->xa = wro_scratch_take(s, nt * sizeof(wrx_acc));
    return b->ph && b->pl && b->pb && b->sh && b->sl && b->fh && b->fl && b->hh && b->sq && b->se && b->fe &&
                   b->fs && b->fp && b->xa
               ? 0
               : -1;
}

struct xscan_arg {
    struct wro_state *st;
    wr_type t;
    int excl;
    struct xsbuf b;
    wrx_acc *cy;                 /* the carry (device) */
    struct wro_heads *heads;     /* NULL: one scan, no segments */
    uint64_t *hb;                /* a chunk's segment starts (device) */
    size_t first;                /* the first element's offset (segments) */
};

/* One pass: m elements at x (device) to y, segment starts hb (or NULL). */
static void xscan_pass(const struct xscan_arg *a, const char *x, char *y, size_t m, const uint64_t *hb)
{
    const struct xsbuf *b = &a->b;
    const int dev = a->st->dev, par = wro_par(a->st, m), f64 = a->t == WR_DOUBLE;
    const size_t nt = (m + WRO_XT - 1) / WRO_XT;
    if (f64) {
        const double *xx = (const double *)(const void *)x;
        wro_xslanes_f64(dev, par, xx, m, hb, b->ph, b->pl, b->pb);
        wro_xstiles_f64(dev, par, xx, m, hb, b->ph, b->pl, b->pb, b->xa, b->hh);
    } else {
        const float *xx = (const float *)(const void *)x;
        wro_xslanes_f32(dev, par, xx, m, hb, b->ph, b->pl, b->pb);
        wro_xstiles_f32(dev, par, xx, m, hb, b->ph, b->pl, b->pb, b->xa, b->hh);
    }
    wro_xsprefix(dev, par, b->xa, b->hh, nt, a->cy);
    wro_xsseed(dev, par, b->xa, nt, f64, b->sh, b->sl, b->sq, b->se);
    if (f64) {
        const double *xx = (const double *)(const void *)x;
        double *yy = (double *)(void *)y;
        wro_xsfast_f64(dev, par, xx, yy, m, hb, a->excl, b->sh, b->sl, b->sq, b->se, b->fp, b->fh, b->fl, b->fe,
                       b->fs);
        wro_xsslow_f64(dev, par, xx, yy, m, hb, a->excl, b->xa, b->fp, b->fh, b->fl, b->fe, b->fs);
    } else {
        const float *xx = (const float *)(const void *)x;
        float *yy = (float *)(void *)y;
        wro_xsfast_f32(dev, par, xx, yy, m, hb, a->excl, b->sh, b->sl, b->sq, b->se, b->fp, b->fh, b->fl, b->fe,
                       b->fs);
        wro_xsslow_f32(dev, par, xx, yy, m, hb, a->excl, b->xa, b->fp, b->fh, b->fl, b->fe, b->fs);
    }
}

/* a chunk in passes, the carry going on from one to the next */
static wr_status xscan_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct xscan_arg *a = va;
    const size_t es = wr_backend_type_size(a->t);
    size_t p0;
    if (a->heads != NULL) {
        wr_status rc = wro_heads_bits(a->st, a->heads, a->first + c->off, c->len, a->hb, err);
        if (rc != WR_SUCCESS) return rc;
    }
    for (p0 = 0; p0 < c->len; p0 += WRO_XPASS) {
        const size_t m = c->len - p0 < WRO_XPASS ? c->len - p0 : WRO_XPASS;
        xscan_pass(a, c->in + p0 * es, c->out + p0 * es, m, a->heads ? a->hb + p0 / 64 : NULL);
    }
    return WR_SUCCESS;
}

/* The scan of n elements from in to out (host or device addresses of the
 * kinds lib/ found), from *carry (host, NULL: nothing); heads: the
 * segments (NULL: none). */
static wr_status xscan(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t n,
                       const wrx_acc *carry, struct wro_heads *heads, size_t first, char *err)
{
    const size_t es = wr_backend_type_size(call->type);
    const struct wro_plan p = { n, es, es, 1, 1 };
    struct xscan_arg a;
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc;
    size_t chunk;
    wrx_acc c0;

    if ((rc = wro_resolve(st, in, n * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, n * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    chunk = wro_plan_items(st, &p, &bi, &bo);
    rc = wro_scratch_open(st, &s,
                          wro_plan_scratch(st, &p, &bi, &bo) + xsbuf_bytes(chunk) + WRO_SCRATCH_SIZE(sizeof(wrx_acc)) +
                              (heads ? WRO_SCRATCH_SIZE((chunk + 63) / 64 * sizeof(uint64_t)) : 0),
                          err);
    if (rc != WR_SUCCESS) return rc;
    a.st = st;
    a.t = call->type;
    a.excl = call->exclusive;
    a.heads = heads;
    a.first = first;
    a.cy = wro_scratch_take(&s, sizeof(wrx_acc));
    a.hb = heads ? wro_scratch_take(&s, (chunk + 63) / 64 * sizeof(uint64_t)) : NULL;
    if (a.cy == NULL || (heads && a.hb == NULL) || xsbuf_take(&s, chunk, &a.b) != 0) {
        wro_scratch_close(&s);
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    /* the carry normalised, so that the prefixes' loads stay small */
    if (carry) c0 = *carry;
    else wrx_init(&c0);
    wrx_normalize(&c0);
    rc = wro_copy(st, a.cy, 1, &c0, 0, sizeof c0, err);
    if (rc == WR_SUCCESS) rc = wro_each_chunk(st, &s, &p, &bi, &bo, xscan_chunk, &a, err);
    wro_scratch_close(&s);
    return rc;
}

wr_status wro_exact_scan(struct wro_state *st, const struct wr_call *call, char *err)
{
    return xscan(st, call, call->in, call->out, call->count, (const wrx_acc *)call->carry, NULL, 0, err);
}

wr_status wro_exact_scan_segments(struct wro_state *st, const struct wr_call *call, char *err)
{
    const size_t es = wr_backend_type_size(call->type), first = call->first, n = call->last - call->first;
    struct wro_heads heads = { NULL, call->count, 0, 0, NULL, 0 };
    struct wro_buf bf;
    wr_status rc;
    if (call->in == NULL || n == 0) return WR_SUCCESS;      /* every segment is empty */
    if ((rc = wro_resolve(st, call->offsets, (call->count + 1) * sizeof(size_t), call->kaux, "offsets", &bf, err))
        != WR_SUCCESS)
        return rc;
    heads.dev_off = bf.direct;
    heads.off = bf.direct ? (const size_t *)(void *)bf.p : call->offsets;
    rc = xscan(st, call, (const char *)call->in + first * es, (char *)call->out + first * es, n, NULL, &heads, first,
               err);
    wro_heads_done(&heads);
    return rc;
}

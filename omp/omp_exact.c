/*
 * omp_exact.c -- reproducible float/double SUM (WR_FLOAT_REPRODUCIBLE) and
 * wr_reduce_exact on the omptarget backend: the exact sum of the elements,
 * rounded once with lib/wr_exact.h, so the bits are every backend's.
 *
 * The exact sum does not depend on how the elements are split, so the
 * kernels split them any convenient way:
 *   lanes  `teams distribute parallel for simd` over rows x RL lane slots;
 *          lane l of row r adds elements r*cols + l + j*RL by the front end
 *          of wr_exact.h (float data: a double running sum; double data: a
 *          pair h + l kept by TwoSum), every addition verified exact; a lane
 *          with an addition that could not be verified is marked bad and
 *          its elements are added again, one by one, to an accumulator;
 *   groups one lane per group of GL lane slots merges their pairs (and the
 *          bad lanes' elements) into an accumulator (struct wrx_acc) and
 *          either rounds it (a row, a segment) or writes it out;
 *   total  one lane merges the group accumulators into a running total
 *          (a reduction, possibly over several staged chunks) and rounds it.
 * A row of at most WRO_XROW_LANE columns, and a segment of at most
 * WRO_SEG_LANE elements, is one lane's: its front end's result is rounded
 * directly when every addition was exact (one conversion or one addition:
 * the correct rounding of the exact value), else its accumulator's.  Longer
 * segments are listed as in omp_reduce.c and summed by one team each.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_xkern.h"

/* A row up to this many columns is one lane's (no group merge). */
#define WRO_XROW_LANE 64

#define WRO_DEF_EXACT(sfx, T, IS_F64)                                                   \
    /* lanes: rows x RL slots, lane l of row r over r*cols + l + j*RL */              \
    static void wro_xlanes_##sfx(int dev, int par, const T *x, size_t rows, size_t cols, size_t RL, \
                                 double *ph, double *pl, int *pbad)                    \
    {                                                                                  \
        const size_t G = rows * RL;                                                    \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, ph, pl, pbad))                                      \
        for (size_t g = 0; g < G; g++) {                                               \
            const size_t r = g / RL, l = g % RL;                                       \
            const size_t cnt = l < cols ? (cols - l + RL - 1) / RL : 0;                \
            wro_xfront_##sfx(x, r * cols + l, RL, cnt, &ph[g], &pl[g], &pbad[g]);      \
        }                                                                              \
    }                                                                                  \
    /* groups of GL lanes (GL divides RL): round each row (GL == RL: out[r]) */       \
    /* or write the group accumulators (accs[r * RL/GL + q]) */                       \
    static void wro_xgroups_##sfx(int dev, int par, const T *x, size_t rows, size_t cols, size_t RL, \
                                  size_t GL, const double *ph, const double *pl, const int *pbad, \
                                  wrx_acc *accs, T *out)                               \
    {                                                                                  \
        const size_t Q = rows * (RL / GL);                                             \
        /* (no simd: each group's accumulator is on the soft stack, which is   */    \
        /* the warp's, not a lane's, on nvptx) */                                      \
        WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) \
                   is_device_ptr(x, ph, pl, pbad, accs, out))                           \
        for (size_t q = 0; q < Q; q++) {                                               \
            const size_t r = q / (RL / GL), g0 = r * RL + q % (RL / GL) * GL;          \
            wrx_acc acc;                                                               \
            wrx_init(&acc);                                                            \
            for (size_t g = g0; g < g0 + GL; g++) {                                    \
                const size_t l = g % RL, cnt = l < cols ? (cols - l + RL - 1) / RL : 0; \
                wro_xadd_##sfx(&acc, x, r * cols + l, RL, cnt, ph[g], pl[g], pbad[g]); \
            }                                                                          \
            if (out != NULL)                                                           \
                out[r] = IS_F64 ? (T)wrx_round_f64(&acc) : (T)wrx_round_f32(&acc);     \
            else                                                                       \
                accs[q] = acc;                                                         \
        }                                                                              \
    }                                                                                  \
    /* one lane: *total (init: from nothing) += accs[0..n); res != NULL: the */       \
    /* rounded total */                                                                \
    static void wro_xtotal_##sfx(int dev, const wrx_acc *accs, size_t n, wrx_acc *total, int init, \
                                 T *res)                                               \
    {                                                                                  \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(accs, total, res))             \
        {                                                                              \
            if (init) wrx_init(total);                                                 \
            for (size_t i = 0; i < n; i++) wrx_merge(total, &accs[i]);                 \
            if (res != NULL) *res = IS_F64 ? (T)wrx_round_f64(total) : (T)wrx_round_f32(total); \
        }                                                                              \
    }                                                                                  \
    /* rows of at most WRO_XROW_LANE columns (cols >= 1): one lane each; a  */    \
    /* row the front end could not verify is summed again by an accumulator */   \
    /* outside the simd loop (bad: a flag a row) */                                \
    static void wro_xrow1_##sfx(int dev, int par, const T *x, size_t rows, size_t cols, T *out, int *bad) \
    {                                                                              \
        size_t nbad = 0;                                                           \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, out, bad) map(tofrom: nbad) reduction(+: nbad)) \
        for (size_t r = 0; r < rows; r++) {                                        \
            T v;                                                                   \
            bad[r] = !wro_xtry_##sfx(x, r * cols, 1, cols, &v);                    \
            nbad += (size_t)bad[r];                                                \
            if (!bad[r]) out[r] = v;                                               \
        }                                                                          \
        if (nbad == 0) return;                                                     \
        WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) is_device_ptr(x, out, bad)) \
        for (size_t r = 0; r < rows; r++)                                          \
            if (bad[r]) out[r] = wro_xacc_##sfx(x, r * cols, 1, cols);             \
    }                                                                              \
    /* segments up to WRO_SEG_LANE elements, one lane each (empty: +0), and  */   \
    /* an accumulator outside the simd loop for those the front end could   */   \
    /* not verify (bad); flag the longer ones, return how many */                 \
    static size_t wro_xsshort_##sfx(int dev, int par, const T *x, const size_t *off, size_t nseg, \
                                    T *out, uint64_t *flag, int *bad)              \
    {                                                                              \
        size_t nlong = 0, nbad = 0;                                                \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, off, out, flag, bad) map(tofrom: nlong) reduction(+: nlong)) \
        for (size_t s = 0; s < nseg; s++) {                                        \
            const size_t a = off[s], len = off[s + 1] - a;                         \
            T v = 0;                                                               \
            flag[s] = len > WRO_SEG_LANE;                                          \
            nlong += len > WRO_SEG_LANE;                                           \
            bad[s] = len != 0 && len <= WRO_SEG_LANE && !wro_xtry_##sfx(x, a, 1, len, &v); \
            if (len <= WRO_SEG_LANE && !bad[s]) out[s] = v;                        \
        }                                                                          \
        /* (counted apart: GCC 12 makes two reductions one 16-byte atomic, */     \
        /* which nvptx lacks) */                                                   \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(bad) map(tofrom: nbad) reduction(+: nbad))         \
        for (size_t s = 0; s < nseg; s++) nbad += (size_t)bad[s];                  \
        if (nbad != 0) {                                                           \
            WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) \
                       is_device_ptr(x, off, out, bad))                             \
            for (size_t s = 0; s < nseg; s++)                                      \
                if (bad[s]) out[s] = wro_xacc_##sfx(x, off[s], 1, off[s + 1] - off[s]); \
        }                                                                          \
        return nlong;                                                              \
    }                                                                              \
    /* the listed long segments, one team each: WRO_TL lanes, then the team's */    \
    /* first thread merges them */                                                     \
    static void wro_xslong_##sfx(int dev, int par, const T *x, const size_t *off, const size_t *list, \
                                 size_t nlong, T *out)                                 \
    {                                                                                  \
        WRO_PRAGMA(omp target teams distribute device(dev) is_device_ptr(x, off, list, out)) \
        for (size_t i = 0; i < nlong; i++) {                                           \
            const size_t s = list[i], a = off[s], len = off[s + 1] - a;                \
            double lh[WRO_TL], ll[WRO_TL];                                             \
            int lb[WRO_TL];                                                            \
            wrx_acc acc;                                                               \
            WRO_PRAGMA(omp parallel for simd if(par))                                  \
            for (int l = 0; l < WRO_TL; l++) {                                         \
                const size_t cnt = (size_t)l < len ? (len - l + WRO_TL - 1) / WRO_TL : 0; \
                wro_xfront_##sfx(x, a + (size_t)l, WRO_TL, cnt, &lh[l], &ll[l], &lb[l]); \
            }                                                                          \
            wrx_init(&acc);                                                            \
            for (int l = 0; l < WRO_TL; l++) {                                         \
                const size_t cnt = (size_t)l < len ? (len - l + WRO_TL - 1) / WRO_TL : 0; \
                wro_xadd_##sfx(&acc, x, a + (size_t)l, WRO_TL, cnt, lh[l], ll[l], lb[l]); \
            }                                                                          \
            out[s] = IS_F64 ? (T)wrx_round_f64(&acc) : (T)wrx_round_f32(&acc);         \
        }                                                                              \
    }
WRO_DEF_EXACT(f32, float, 0)
WRO_DEF_EXACT(f64, double, 1)
#undef WRO_DEF_EXACT

/* ---- drivers ------------------------------------------------------------------- */

/* *total (device) += the exact sum of n >= 1 elements at the device address
 * x (init: from nothing); res != NULL: and the rounded total there. */
static wr_status exact_core(struct wro_state *st, struct wro_scratch *s, wr_type t, const char *x, size_t n,
                            wrx_acc *total, int init, void *res, char *err)
{
    const size_t G = wro_xsum_lanes(n), Q = G / WRO_XGROUP;
    const int par = wro_par(st, n);
    double *ph = wro_scratch_take(s, G * sizeof(double)), *pl = wro_scratch_take(s, G * sizeof(double));
    int *pb = wro_scratch_take(s, G * sizeof(int));
    wrx_acc *accs = wro_scratch_take(s, Q * sizeof(wrx_acc));
    if (!ph || !pl || !pb || !accs) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    if (t == WR_FLOAT) {
        wro_xlanes_f32(st->dev, par, (const float *)(const void *)x, 1, n, G, ph, pl, pb);
        wro_xgroups_f32(st->dev, par, (const float *)(const void *)x, 1, n, G, WRO_XGROUP, ph, pl, pb, accs, NULL);
        wro_xtotal_f32(st->dev, accs, Q, total, init, res);
    } else {
        wro_xlanes_f64(st->dev, par, (const double *)(const void *)x, 1, n, G, ph, pl, pb);
        wro_xgroups_f64(st->dev, par, (const double *)(const void *)x, 1, n, G, WRO_XGROUP, ph, pl, pb, accs, NULL);
        wro_xtotal_f64(st->dev, accs, Q, total, init, res);
    }
    return WR_SUCCESS;
}

static size_t core_scratch(size_t n)
{
    const size_t G = wro_xsum_lanes(n);
    return 2 * WRO_SCRATCH_SIZE(G * sizeof(double)) + WRO_SCRATCH_SIZE(G * sizeof(int)) +
           WRO_SCRATCH_SIZE(G / WRO_XGROUP * sizeof(wrx_acc));
}

struct sum_arg {
    struct wro_state *st;
    struct wro_scratch *s;
    wr_type t;
    size_t n;
    wrx_acc *total;
    void *res;
};

static wr_status sum_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct sum_arg *a = va;
    struct wro_scratch one = *a->s;             /* the core's scratch, afresh per chunk */
    return exact_core(a->st, &one, a->t, c->in, c->len, a->total, c->off == 0, c->off + c->len == a->n ? a->res : NULL,
                      err);
}

/* *total (device) = the exact sum of x[0..n) (any kind of buffer, n >= 1),
 * rounded into res (device) unless res is NULL; staged chunk by chunk. */
static wr_status exact_sum(struct wro_state *st, struct wro_scratch *s, wr_type t, const struct wro_buf *x,
                           size_t n, wrx_acc *total, void *res, char *err)
{
    const struct wro_plan p = { n, wr_backend_type_size(t), 0, 1, 0 };
    struct sum_arg a = { st, s, t, n, total, res };
    return wro_each_chunk(st, s, &p, x, NULL, sum_chunk, &a, err);
}

static size_t sum_scratch(const struct wro_state *st, size_t n, size_t es, const struct wro_buf *x)
{
    const struct wro_plan p = { n, es, 0, 1, 0 };
    return WRO_SCRATCH_SIZE(sizeof(wrx_acc)) + WRO_SCRATCH_SIZE(8) + core_scratch(wro_plan_items(st, &p, x, NULL)) +
           wro_plan_scratch(st, &p, x, NULL);
}

wr_status wro_reduce_exact(struct wro_state *st, const struct wr_call *call, const void *in, size_t count,
                           wr_type type, void *acc, char *err)
{
    const size_t es = wr_backend_type_size(type);
    struct wro_buf bi;
    struct wro_scratch s;
    wrx_acc *total;
    wr_status rc;
    if ((rc = wro_resolve(st, in, count * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_scratch_open(st, &s, sum_scratch(st, count, es, &bi), err)) != WR_SUCCESS) return rc;
    total = wro_scratch_take(&s, sizeof(wrx_acc));
    rc = exact_sum(st, &s, type, &bi, count, total, NULL, err);
    if (rc == WR_SUCCESS) rc = wro_copy(st, acc, 0, total, 1, sizeof(wrx_acc), err);
    wro_scratch_close(&s);
    return rc;
}

wr_status wro_exact_reduce(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                           size_t count, wr_type type, char *err)
{
    const size_t es = wr_backend_type_size(type);
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc;
    char *res;
    if ((rc = wro_resolve(st, in, count * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (count == 0) {
        const double z = 0.0;
        const float zf = 0.0f;
        return wro_copy(st, bo.p, bo.on_dev, type == WR_FLOAT ? (const void *)&zf : (const void *)&z, 0, es, err);
    }
    if ((rc = wro_scratch_open(st, &s, sum_scratch(st, count, es, &bi), err)) != WR_SUCCESS) return rc;
    {
        wrx_acc *total = wro_scratch_take(&s, sizeof(wrx_acc));
        char *slot = wro_scratch_take(&s, 8);
        res = bo.direct ? bo.p : slot;
        rc = exact_sum(st, &s, type, &bi, count, total, res, err);
        if (rc == WR_SUCCESS && !bo.direct) rc = wro_copy(st, bo.p, 0, res, 1, es, err);
    }
    wro_scratch_close(&s);
    return rc;
}

struct xrows_arg {
    struct wro_state *st;
    wr_type t;
    size_t cols, RL;
    double *ph, *pl;
    int *pb;
};

/* the rows of one chunk: one lane each, or lanes and a group a row */
static wr_status xrows_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct xrows_arg *a = va;
    const size_t m = c->len, cols = a->cols, RL = a->RL;
    const int par = wro_par(a->st, m * cols), dev = a->st->dev;
    const char *x = c->in;
    char *y = c->out;
    (void)err;
    if (RL == 1 && a->t == WR_DOUBLE) {
        wro_xrow1_f64(dev, par, (const double *)(const void *)x, m, cols, (double *)(void *)y, a->pb);
    } else if (RL == 1) {
        wro_xrow1_f32(dev, par, (const float *)(const void *)x, m, cols, (float *)(void *)y, a->pb);
    } else if (a->t == WR_DOUBLE) {
        wro_xlanes_f64(dev, par, (const double *)(const void *)x, m, cols, RL, a->ph, a->pl, a->pb);
        wro_xgroups_f64(dev, par, (const double *)(const void *)x, m, cols, RL, RL, a->ph, a->pl, a->pb, NULL,
                        (double *)(void *)y);
    } else {
        wro_xlanes_f32(dev, par, (const float *)(const void *)x, m, cols, RL, a->ph, a->pl, a->pb);
        wro_xgroups_f32(dev, par, (const float *)(const void *)x, m, cols, RL, RL, a->ph, a->pl, a->pb, NULL,
                        (float *)(void *)y);
    }
    return WR_SUCCESS;
}

wr_status wro_exact_rows(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t rows,
                         size_t cols, wr_type type, char *err)
{
    const size_t es = wr_backend_type_size(type);
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc = WR_SUCCESS;
    size_t r0, per, RL = cols <= WRO_XROW_LANE ? 1 : wro_row_lanes(cols), need;

    if ((rc = wro_resolve(st, in, rows * cols * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, rows * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (cols == 0) {
        char *z = calloc(rows, es);       /* +0: the sum of no elements */
        if (z == NULL) {
            snprintf(err, WR_ERRLEN, "out of host memory");
            return WR_ERR_NO_MEMORY;
        }
        rc = wro_copy(st, bo.p, bo.on_dev, z, 0, rows * es, err);
        free(z);
        return rc;
    }
    if (cols > WRO_ROW_MID) {               /* long rows: an exact sum each */
        struct wro_buf row = bi;
        if ((rc = wro_scratch_open(st, &s, sum_scratch(st, cols, es, &bi), err)) != WR_SUCCESS) return rc;
        for (r0 = 0; r0 < rows && rc == WR_SUCCESS; r0++) {
            struct wro_scratch one = s;
            wrx_acc *total = wro_scratch_take(&one, sizeof(wrx_acc));
            char *slot = wro_scratch_take(&one, 8), *res = bo.direct ? bo.p + r0 * es : slot;
            row.p = bi.p + r0 * cols * es;
            rc = exact_sum(st, &one, type, &row, cols, total, res, err);
            if (rc == WR_SUCCESS && !bo.direct) rc = wro_copy(st, bo.p + r0 * es, 0, res, 1, es, err);
        }
        wro_scratch_close(&s);
        return rc;
    }
    {
        const struct wro_plan p = { rows, cols * es, es, 1, 0 };
        struct xrows_arg a = { st, type, cols, RL, NULL, NULL, NULL };
        per = wro_plan_items(st, &p, &bi, &bo);
        need = wro_plan_scratch(st, &p, &bi, &bo) + WRO_SCRATCH_SIZE(per * RL * sizeof(int));
        if (RL > 1) need += 2 * WRO_SCRATCH_SIZE(per * RL * sizeof(double));
        if ((rc = wro_scratch_open(st, &s, need, err)) != WR_SUCCESS) return rc;
        a.ph = RL > 1 ? wro_scratch_take(&s, per * RL * sizeof(double)) : NULL;
        a.pl = RL > 1 ? wro_scratch_take(&s, per * RL * sizeof(double)) : NULL;
        a.pb = wro_scratch_take(&s, per * RL * sizeof(int));
        rc = wro_each_chunk(st, &s, &p, &bi, &bo, xrows_chunk, &a, err);
    }
    wro_scratch_close(&s);
    return rc;
}

/* Segments (all buffers direct; offsets device addresses): short ones one
 * lane each, long ones listed and one team each. */
static wr_status xsegs_core(struct wro_state *st, int par, struct wro_scratch *s, wr_type t, const char *x,
                            const size_t *off, size_t nseg, char *out, char *err)
{
    uint64_t *flag = wro_scratch_take(s, nseg * sizeof(uint64_t));
    size_t *list = wro_scratch_take(s, nseg * sizeof(size_t)), nlong;
    int *bad = wro_scratch_take(s, nseg * sizeof(int));
    wr_status rc;
    if (flag == NULL || list == NULL || bad == NULL) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    nlong = t == WR_FLOAT
                ? wro_xsshort_f32(st->dev, par, (const float *)(const void *)x, off, nseg, (float *)(void *)out, flag,
                                  bad)
                : wro_xsshort_f64(st->dev, par, (const double *)(const void *)x, off, nseg, (double *)(void *)out,
                                  flag, bad);
    if (nlong == 0) return WR_SUCCESS;
    if ((rc = wro_scan_dev(st, s, flag, flag, nseg, WR_UINT64, WR_SUM, 1, err)) != WR_SUCCESS) return rc;
#pragma omp target teams distribute parallel for simd if(parallel: par) device(st->dev) is_device_ptr(off, flag, list)
    for (size_t i = 0; i < nseg; i++)
        if (off[i + 1] - off[i] > WRO_SEG_LANE) list[flag[i]] = i;
    if (t == WR_FLOAT)
        wro_xslong_f32(st->dev, par, (const float *)(const void *)x, off, list, nlong, (float *)(void *)out);
    else
        wro_xslong_f64(st->dev, par, (const double *)(const void *)x, off, list, nlong, (double *)(void *)out);
    return WR_SUCCESS;
}

static size_t xsegs_scratch(size_t nseg)
{
    return 2 * WRO_SCRATCH_SIZE(nseg * sizeof(uint64_t)) + WRO_SCRATCH_SIZE(nseg * sizeof(int)) +
           wro_scan_scratch(nseg, WR_UINT64);
}

struct xsegs_arg {
    struct wro_state *st;
    wr_type t;
};

/* a staged run of whole segments */
static wr_status xsegs_run(void *va, struct wro_scratch *work, const char *x, const size_t *rel, size_t nseg,
                           size_t n, char *out, char *err)
{
    const struct xsegs_arg *a = va;
    return xsegs_core(a->st, wro_par(a->st, n + nseg), work, a->t, x, rel, nseg, out, err);
}

/* a piece of a segment longer than the staging buffer, into one
 * accumulator (keep) */
static wr_status xsegs_piece(void *va, struct wro_scratch *work, void *keep, const char *x, size_t m, int first,
                             int last, char *res, char *err)
{
    const struct xsegs_arg *a = va;
    return exact_core(a->st, work, a->t, x, m, keep, first, last ? res : NULL, err);
}

wr_status wro_exact_segments(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                             size_t nsegments, const size_t *offsets, wr_type type, char *err)
{
    const size_t es = wr_backend_type_size(type), first = call->first, last = call->last;
    struct wro_buf bi, bo, bf;
    wr_status rc;

    if ((rc = wro_resolve(st, in ? (const char *)in + first * es : NULL, (last - first) * es, call->kin, "in", &bi,
                          err)) != WR_SUCCESS)
        return rc;
    if (bi.p != NULL) bi.p -= first * es;
    if ((rc = wro_resolve(st, out, nsegments * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, offsets, (nsegments + 1) * sizeof(size_t), call->kaux, "offsets", &bf, err))
        != WR_SUCCESS)
        return rc;
    if (in == NULL) {                          /* every segment is empty: +0 */
        char *z = calloc(nsegments, es);
        if (z == NULL) {
            snprintf(err, WR_ERRLEN, "out of host memory");
            return WR_ERR_NO_MEMORY;
        }
        rc = wro_copy(st, bo.p, bo.on_dev, z, 0, nsegments * es, err);
        free(z);
        return rc;
    }
    if (bi.direct && bo.direct && bf.direct) {
        struct wro_scratch s;
        if ((rc = wro_scratch_open(st, &s, xsegs_scratch(nsegments), err)) != WR_SUCCESS) return rc;
        rc = xsegs_core(st, wro_par(st, last - first + nsegments), &s, type, bi.p, (const size_t *)(void *)bf.p,
                        nsegments, bo.p, err);
        wro_scratch_close(&s);
        return rc;
    }
    {
        /* runs of whole segments through the staging buffer; a segment
         * longer than it chunk by chunk into one accumulator */
        const size_t cap = st->staging / es, w1 = xsegs_scratch(wro_segrun_cap(st)), w2 = core_scratch(cap);
        const struct wro_segwalk w = { es, 1, w1 > w2 ? w1 : w2, sizeof(wrx_acc), xsegs_run, xsegs_piece };
        struct xsegs_arg a = { st, type };
        size_t *h;
        if ((rc = wro_host_offsets(st, &bf, nsegments, &h, err)) != WR_SUCCESS) return rc;
        rc = wro_each_segrun(st, &w, &a, &bi, &bo, h ? h : offsets, nsegments, err);
        free(h);
        return rc;
    }
}

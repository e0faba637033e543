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
#include "omp_kern.h"

#pragma omp declare target
#include "wr_exact.h"
#pragma omp end declare target

/* A row up to this many columns is one lane's (no group merge). */
#define WRO_XROW_LANE 64
/* Lanes merged by one group (and so the accumulators of a reduction: at
 * most 2^18 / 256). */
#define WRO_XGROUP 256
/* The largest lane count of a reduction's lanes (one lane a 1024 elements
 * at 2^28 elements and beyond). */
#define WRO_XLANES_MAX ((size_t)1 << 18)

/* Lanes of a reduction of n elements: a power of two from WRO_XGROUP to
 * WRO_XLANES_MAX, about n / 256. */
static size_t xlanes(size_t n)
{
    size_t g = WRO_XGROUP;
    while (g < WRO_XLANES_MAX && g * 256 < n) g *= 2;
    return g;
}

/* Lanes of a row of cols > WRO_XROW_LANE columns (at most 256, one group). */
static size_t xrow_lanes(size_t cols)
{
    size_t RL = 1;
    while (RL < WRO_XGROUP && RL * 32 < cols) RL *= 2;
    return RL;
}

#define WRO_DEF_EXACT(sfx, T, IS_F64)                                                   \
    /* the front end over x[first + j*stride], j < cnt: *bad when an addition */      \
    /* could not be verified exact */                                                  \
    static inline void wro_xfront_##sfx(const T *x, size_t first, size_t stride, size_t cnt, \
                                        double *h, double *l, int *bad)               \
    {                                                                                  \
        double H = -0.0, L = 0.0;                                                      \
        int b = 0;                                                                     \
        for (size_t j = 0; j < cnt; j++) {                                             \
            const double v = (double)x[first + j * stride];                            \
            if (IS_F64) {                                                              \
                b |= !wrx_pair_add(&H, &L, v);                                         \
            } else {                                                                   \
                double s;                                                              \
                b |= !wrx_add_exact(H, v, &s);                                         \
                H = s;                                                                 \
            }                                                                          \
        }                                                                              \
        *h = H;                                                                        \
        *l = L;                                                                        \
        *bad = b;                                                                      \
    }                                                                                  \
    /* *acc += the lane's elements (pair, or one by one when bad) */                  \
    static inline void wro_xadd_##sfx(wrx_acc *acc, const T *x, size_t first, size_t stride, \
                                      size_t cnt, double h, double l, int bad)         \
    {                                                                                  \
        if (cnt == 0) return;                                                          \
        if (!bad) {                                                                    \
            wrx_add_pair(acc, h, l);                                                   \
            return;                                                                    \
        }                                                                              \
        for (size_t j = 0; j < cnt; j++) wrx_add(acc, (double)x[first + j * stride]);  \
    }                                                                                  \
    /* the correctly rounded sum of one lane's cnt >= 1 elements when the   */   \
    /* front end verified every addition (returns 1), else 0: the lane needs */   \
    /* wro_xacc, which must not run in a simd loop (its accumulator is on   */   \
    /* the soft stack, which nvptx's SIMT lanes cannot hold) */                    \
    static inline int wro_xtry_##sfx(const T *x, size_t first, size_t stride, size_t cnt, T *res) \
    {                                                                              \
        double h, l;                                                               \
        int bad;                                                                   \
        wro_xfront_##sfx(x, first, stride, cnt, &h, &l, &bad);                     \
        if (bad) return 0;                                                         \
        *res = IS_F64 ? (T)wrx_pair_round_f64(h, l) : (T)h;                        \
        return 1;                                                                  \
    }                                                                              \
    static T wro_xacc_##sfx(const T *x, size_t first, size_t stride, size_t cnt)   \
    {                                                                              \
        wrx_acc acc;                                                               \
        wrx_init(&acc);                                                            \
        for (size_t j = 0; j < cnt; j++) wrx_add(&acc, (double)x[first + j * stride]); \
        return IS_F64 ? (T)wrx_round_f64(&acc) : (T)wrx_round_f32(&acc);           \
    }                                                                              \
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
    const size_t G = xlanes(n), Q = G / WRO_XGROUP;
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
    const size_t G = xlanes(n);
    return 2 * WRO_SCRATCH_SIZE(G * sizeof(double)) + WRO_SCRATCH_SIZE(G * sizeof(int)) +
           WRO_SCRATCH_SIZE(G / WRO_XGROUP * sizeof(wrx_acc));
}

/* *total (device) = the exact sum of x[0..n) (any kind of buffer, n >= 1),
 * rounded into res (device) unless res is NULL; staged chunk by chunk. */
static wr_status exact_sum(struct wro_state *st, struct wro_scratch *s, wr_type t, const struct wro_buf *x,
                           size_t n, wrx_acc *total, void *res, char *err)
{
    const size_t es = wr_backend_type_size(t);
    const size_t chunk = x->direct ? n : st->staging / es;
    char *stage = x->direct ? NULL : wro_scratch_take(s, chunk < n ? chunk * es : n * es);
    size_t c0;
    wr_status rc = WR_SUCCESS;
    if (!x->direct && stage == NULL) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    for (c0 = 0; c0 < n && rc == WR_SUCCESS; c0 += chunk) {
        const size_t m = n - c0 < chunk ? n - c0 : chunk;
        struct wro_scratch one = *s;                /* the core's scratch, afresh per chunk */
        const char *p = x->direct ? x->p + c0 * es : stage;
        if (!x->direct && (rc = wro_copy(st, stage, 1, x->p + c0 * es, x->on_dev, m * es, err)) != WR_SUCCESS)
            break;
        rc = exact_core(st, &one, t, p, m, total, c0 == 0, c0 + m == n ? res : NULL, err);
    }
    return rc;
}

static size_t sum_scratch(const struct wro_state *st, size_t n, size_t es, int direct)
{
    const size_t chunk = direct || n * es <= st->staging ? n : st->staging / es;
    return WRO_SCRATCH_SIZE(sizeof(wrx_acc)) + WRO_SCRATCH_SIZE(8) + core_scratch(chunk) +
           (direct ? 0 : WRO_SCRATCH_SIZE(chunk * es));
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
    if ((rc = wro_scratch_open(st, &s, sum_scratch(st, count, es, bi.direct), err)) != WR_SUCCESS) return rc;
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
    if ((rc = wro_scratch_open(st, &s, sum_scratch(st, count, es, bi.direct), err)) != WR_SUCCESS) return rc;
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

wr_status wro_exact_rows(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t rows,
                         size_t cols, wr_type type, char *err)
{
    const size_t es = wr_backend_type_size(type);
    const int f64 = type == WR_DOUBLE;
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc = WR_SUCCESS;
    size_t r0, per, RL = cols <= WRO_XROW_LANE ? 1 : xrow_lanes(cols), need;

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
        if ((rc = wro_scratch_open(st, &s, sum_scratch(st, cols, es, bi.direct), err)) != WR_SUCCESS) return rc;
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
    per = bi.direct ? rows : st->staging / (cols * es);
    if (!bo.direct && per > st->staging / es) per = st->staging / es;
    if (per > rows) per = rows;
    need = WRO_SCRATCH_SIZE(bi.direct ? 0 : per * cols * es) + WRO_SCRATCH_SIZE(bo.direct ? 0 : per * es);
    need += WRO_SCRATCH_SIZE(per * RL * sizeof(int));
    if (RL > 1) need += 2 * WRO_SCRATCH_SIZE(per * RL * sizeof(double));
    if ((rc = wro_scratch_open(st, &s, need, err)) != WR_SUCCESS) return rc;
    {
        char *istage = bi.direct ? NULL : wro_scratch_take(&s, per * cols * es);
        char *ostage = bo.direct ? NULL : wro_scratch_take(&s, per * es);
        double *ph = RL > 1 ? wro_scratch_take(&s, per * RL * sizeof(double)) : NULL;
        double *pl = RL > 1 ? wro_scratch_take(&s, per * RL * sizeof(double)) : NULL;
        int *pb = wro_scratch_take(&s, per * RL * sizeof(int));
        for (r0 = 0; r0 < rows && rc == WR_SUCCESS; r0 += per) {
            const size_t m = rows - r0 < per ? rows - r0 : per;
            const char *x = bi.direct ? bi.p + r0 * cols * es : istage;
            char *y = bo.direct ? bo.p + r0 * es : ostage;
            const int par = wro_par(st, m * cols);
            if (!bi.direct && (rc = wro_copy(st, istage, 1, bi.p + r0 * cols * es, bi.on_dev, m * cols * es, err))
                != WR_SUCCESS)
                break;
            if (RL == 1 && f64) {
                wro_xrow1_f64(st->dev, par, (const double *)(const void *)x, m, cols, (double *)(void *)y, pb);
            } else if (RL == 1) {
                wro_xrow1_f32(st->dev, par, (const float *)(const void *)x, m, cols, (float *)(void *)y, pb);
            } else if (f64) {
                wro_xlanes_f64(st->dev, par, (const double *)(const void *)x, m, cols, RL, ph, pl, pb);
                wro_xgroups_f64(st->dev, par, (const double *)(const void *)x, m, cols, RL, RL, ph, pl, pb, NULL,
                                (double *)(void *)y);
            } else {
                wro_xlanes_f32(st->dev, par, (const float *)(const void *)x, m, cols, RL, ph, pl, pb);
                wro_xgroups_f32(st->dev, par, (const float *)(const void *)x, m, cols, RL, RL, ph, pl, pb, NULL,
                                (float *)(void *)y);
            }
            if (!bo.direct) rc = wro_copy(st, bo.p + r0 * es, 0, ostage, 1, m * es, err);
        }
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

/* Staged: runs of whole segments through the staging buffer; a segment
 * longer than the buffer summed chunk by chunk into one accumulator. */
static wr_status xsegs_staged(struct wro_state *st, wr_type t, const struct wro_buf *bi, const struct wro_buf *bo,
                              const size_t *off, size_t nseg, char *err)
{
    const size_t es = wr_backend_type_size(t), cap = st->staging / es, segcap = st->staging / 64;
    struct wro_scratch s;
    size_t s0 = 0, *rel;
    wr_status rc;
    char *stage, *ostage;
    size_t *drel;

    rel = malloc((segcap + 1) * sizeof *rel);
    if (rel == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    rc = wro_scratch_open(st, &s, WRO_SCRATCH_SIZE(st->staging) + WRO_SCRATCH_SIZE(segcap * es) +
                                      WRO_SCRATCH_SIZE((segcap + 1) * sizeof(size_t)) + xsegs_scratch(segcap) +
                                      sum_scratch(st, cap + 1, es, 0), err);
    if (rc != WR_SUCCESS) { free(rel); return rc; }
    stage = wro_scratch_take(&s, st->staging);
    ostage = wro_scratch_take(&s, segcap * es);
    drel = wro_scratch_take(&s, (segcap + 1) * sizeof(size_t));
    while (s0 < nseg && rc == WR_SUCCESS) {
        size_t s1 = s0 + 1, i;
        if (off[s0 + 1] - off[s0] > cap) {
            /* longer than the buffer: chunks into one accumulator */
            struct wro_buf seg = *bi;
            struct wro_scratch one = s;
            wrx_acc *total = wro_scratch_take(&one, sizeof(wrx_acc));
            char *res = bo->direct ? bo->p + s0 * es : ostage;
            seg.p = bi->p + off[s0] * es;
            rc = exact_sum(st, &one, t, &seg, off[s0 + 1] - off[s0], total, res, err);
            if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, es, err);
            s0++;
            continue;
        }
        while (s1 < nseg && s1 - s0 < segcap && off[s1 + 1] - off[s0] <= cap) s1++;
        for (i = s0; i <= s1; i++) rel[i - s0] = off[i] - off[s0];
        rc = wro_copy(st, drel, 1, rel, 0, (s1 - s0 + 1) * sizeof(size_t), err);
        if (rc == WR_SUCCESS)
            rc = wro_copy(st, stage, 1, bi->p + off[s0] * es, bi->on_dev, (off[s1] - off[s0]) * es, err);
        if (rc == WR_SUCCESS) {
            struct wro_scratch one = s;
            rc = xsegs_core(st, wro_par(st, off[s1] - off[s0] + (s1 - s0)), &one, t, stage, drel, s1 - s0,
                            bo->direct ? bo->p + s0 * es : ostage, err);
        }
        if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, (s1 - s0) * es, err);
        s0 = s1;
    }
    wro_scratch_close(&s);
    free(rel);
    return rc;
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
    if (bf.on_dev && !st->host) {
        size_t *h = malloc((nsegments + 1) * sizeof *h);
        if (h == NULL) {
            snprintf(err, WR_ERRLEN, "out of host memory for %zu offsets", nsegments + 1);
            return WR_ERR_NO_MEMORY;
        }
        rc = wro_copy(st, h, 0, bf.p, 1, (nsegments + 1) * sizeof *h, err);
        if (rc == WR_SUCCESS) rc = xsegs_staged(st, type, &bi, &bo, h, nsegments, err);
        free(h);
        return rc;
    }
    return xsegs_staged(st, type, &bi, &bo, offsets, nsegments, err);
}

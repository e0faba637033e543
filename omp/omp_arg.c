/*
 * omp_arg.c -- argmin and argmax as OpenMP target regions.
 *
 * The same two passes as reduce (omp_reduce.c), over (value, index) pairs:
 * pass 1 writes the best pair of every lane slot (lane l of tile t visits
 * its elements in increasing index order and keeps the first best, or the
 * first NaN); one team then folds the slots' pairs.  Pairs from different
 * places are combined by take(), which looks at the indices: a NaN beats
 * everything and the lower index wins among equals (-0 and +0 are equal, as
 * in NumPy).  That combination is associative and commutative, so the
 * result is the first index of the extreme whatever the order, and exact.
 *
 * wr_argmax_abs (WR_OPID_IAMAX) is argmax over |x[i]| by the same kernels
 * (is_abs): the slots keep magnitudes, so a NaN still beats everything and
 * the first one wins, as wr_argmax's rule; the value returned is x[index].
 */
#include <config.h>
#include <stdio.h>
#include "omp_kern.h"

#define WRO_NONE SIZE_MAX     /* the index of an empty slot */

/* The value compared: |v| when mag (float types only), else v; a NaN stays
 * a NaN and -0 equals +0 either way. */
static inline int32_t wro_mag_i32(int32_t v, int mag) { (void)mag; return v; }
static inline int64_t wro_mag_i64(int64_t v, int mag) { (void)mag; return v; }
static inline uint32_t wro_mag_u32(uint32_t v, int mag) { (void)mag; return v; }
static inline uint64_t wro_mag_u64(uint64_t v, int mag) { (void)mag; return v; }
static inline float wro_mag_f32(float v, int mag) { return mag && v < 0 ? -v : v; }
static inline double wro_mag_f64(double v, int mag) { return mag && v < 0 ? -v : v; }

#define WRO_DEF_ARG(sfx, T, E, wsfx, W)                                                 \
    /* 1 if (vb, ib) is to replace (va, ia) */                                         \
    static inline int wro_take_##sfx(T va, size_t ia, T vb, size_t ib, int is_max)     \
    {                                                                                  \
        if (ib == WRO_NONE) return 0;                                                  \
        if (ia == WRO_NONE) return 1;                                                  \
        if (ia < ib) return wr_arg_better_##sfx(va, vb, is_max);                       \
        return !wr_arg_better_##sfx(vb, va, is_max);                                   \
    }                                                                                  \
    static void wro_ap1_##sfx(int dev, int par, const void *vx, size_t n, size_t K, int is_max, int mag, \
                              void *vpv, size_t *pi)                                   \
    {                                                                                  \
        const T *x = (const T *)vx;                                                    \
        T *pv = (T *)vpv;                                                              \
        const size_t tile = (size_t)WRO_L * K, G = (n + tile - 1) / tile * WRO_L;     \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, pv, pi)) \
        for (size_t g = 0; g < G; g++) {                                               \
            const size_t first = g / WRO_L * tile + g % WRO_L;                         \
            size_t k = first < n ? (n - first + WRO_L - 1) / WRO_L : 0, bi = WRO_NONE, j; \
            T bv = 0;                                                                  \
            if (k > K) k = K;                                                          \
            if (k > 0) { bv = wro_mag_##sfx(x[first], mag); bi = first; }             \
            for (j = 1; j < k; j++) {                                                  \
                const T v = wro_mag_##sfx(x[first + j * WRO_L], mag);                 \
                if (wr_arg_better_##sfx(bv, v, is_max)) { bv = v; bi = first + j * WRO_L; } \
            }                                                                          \
            pv[g] = bv;                                                                \
            pi[g] = bi;                                                                \
        }                                                                              \
    }                                                                                  \
    /* one team over n pairs: those of x[0..n) (pi == NULL: value x[j], index  */     \
    /* j) or the slots (x[j], pi[j]); the best to *rv, *ri */                         \
    static void wro_afin_##sfx(int dev, int par, const void *vx, const size_t *pi, size_t n, int is_max, int mag, \
                               void *vrv, size_t *ri)                                  \
    {                                                                                  \
        const T *x = (const T *)vx;                                                    \
        T *rv = (T *)vrv;                                                              \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(x, pi, rv, ri)) \
        {                                                                              \
            T lv[WRO_TL], bv = 0;                                                      \
            size_t li[WRO_TL], bi = WRO_NONE;                                          \
            for (size_t c0 = 0; c0 < n; c0 += WRO_CH) {                                \
                const size_t m = n - c0 < WRO_CH ? n - c0 : WRO_CH;                    \
                WRO_PRAGMA(omp parallel if(par))                                               \
                {                                                                      \
                    WRO_PRAGMA(omp for simd)                                           \
                    for (int l = 0; l < WRO_TL; l++) {                                 \
                        T v = 0;                                                       \
                        size_t i = WRO_NONE;                                           \
                        for (size_t j = c0 + (size_t)l; j < c0 + m; j += WRO_TL) {     \
                            const size_t ij = pi ? pi[j] : j;                          \
                            const T xj = wro_mag_##sfx(x[j], mag);                     \
                            if (wro_take_##sfx(v, i, xj, ij, is_max)) { v = xj; i = ij; } \
                        }                                                              \
                        lv[l] = v;                                                     \
                        li[l] = i;                                                     \
                    }                                                                  \
                    for (int h = WRO_TL / 2; h > 0; h /= 2) {                          \
                        WRO_PRAGMA(omp for simd)                                       \
                        for (int l = 0; l < h; l++)                                    \
                            if (wro_take_##sfx(lv[l], li[l], lv[l + h], li[l + h], is_max)) { \
                                lv[l] = lv[l + h];                                     \
                                li[l] = li[l + h];                                     \
                            }                                                          \
                    }                                                                  \
                }                                                                      \
                if (wro_take_##sfx(bv, bi, lv[0], li[0], is_max)) { bv = lv[0]; bi = li[0]; } \
            }                                                                          \
            *rv = bv;                                                                  \
            *ri = bi;                                                                  \
        }                                                                              \
    }
WRO_TYPES(WRO_DEF_ARG)
#undef WRO_DEF_ARG

struct wro_arg {
    size_t size;
    void (*p1)(int dev, int par, const void *x, size_t n, size_t K, int is_max, int mag, void *pv, size_t *pi);
    void (*fin)(int dev, int par, const void *x, const size_t *pi, size_t n, int is_max, int mag, void *rv,
                size_t *ri);
};
#define WRO_ARG_ENTRY(sfx, T, E, wsfx, W) [E] = { sizeof(T), wro_ap1_##sfx, wro_afin_##sfx },
static const struct wro_arg wro_arg_tab[WRO_NTYPES] = { WRO_TYPES(WRO_ARG_ENTRY) };
#undef WRO_ARG_ENTRY

struct arg_arg {
    struct wro_state *st;
    const struct wro_arg *k;
    size_t K;
    int par, is_max, mag;
    char *pv, *rv;
    size_t *pi, *ri;
};

/* pass 1 over a chunk of whole tiles, its indices made global; or the
 * one-team pass over everything */
static wr_status arg_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct arg_arg *a = va;
    (void)err;
    if (!a->K) {
        a->k->fin(a->st->dev, a->par, c->in, NULL, c->len, a->is_max, a->mag, a->rv, a->ri);
        return WR_SUCCESS;
    }
    {
        const size_t tile = WRO_L * a->K, g0 = c->off / tile * WRO_L, ng = (c->len + tile - 1) / tile * WRO_L;
        const size_t c0 = c->off;
        size_t *pc = a->pi + g0;
        a->k->p1(a->st->dev, a->par, c->in, c->len, a->K, a->is_max, a->mag, a->pv + g0 * a->k->size, pc);
        if (c0 != 0) {
#pragma omp target teams distribute parallel for simd if(parallel: a->par) device(a->st->dev) is_device_ptr(pc)
            for (size_t g = 0; g < ng; g++)
                if (pc[g] != WRO_NONE) pc[g] += c0;
        }
    }
    return WR_SUCCESS;
}

wr_status wro_argext(struct wro_state *st, const struct wr_call *call, const void *in, size_t count, wr_type type,
                     int is_max, int is_abs, size_t *index, void *value, char *err)
{
    const struct wro_arg *k = &wro_arg_tab[type];
    const size_t es = k->size, K = wro_plan_k(count), G = K ? wro_plan_g(count, K) : 0;
    /* whole tiles per chunk, as in reduce */
    const struct wro_plan p = { count, es, 0, K ? WRO_L * K : 1, 0 };
    struct arg_arg a = { st, k, K, wro_par(st, count), is_max, is_abs, NULL, NULL, NULL, NULL };
    struct wro_buf bi, bx, bv;
    struct wro_scratch s;
    wr_status rc;

    if ((rc = wro_resolve(st, in, count * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, index, sizeof *index, call->kaux, "index", &bx, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, value, value ? es : 0, call->kout, "value", &bv, err)) != WR_SUCCESS) return rc;
    rc = wro_scratch_open(st, &s,
                          2 * WRO_SCRATCH_SIZE(8) + (K ? WRO_SCRATCH_SIZE(G * es) + WRO_SCRATCH_SIZE(G * sizeof(size_t)) : 0) +
                              wro_plan_scratch(st, &p, &bi, NULL),
                          err);
    if (rc != WR_SUCCESS) return rc;
    a.rv = wro_scratch_take(&s, 8);
    a.ri = wro_scratch_take(&s, 8);
    if (K) {
        a.pv = wro_scratch_take(&s, G * es);
        a.pi = wro_scratch_take(&s, G * sizeof(size_t));
    }
    rc = wro_each_chunk(st, &s, &p, &bi, NULL, arg_chunk, &a, err);
    if (rc == WR_SUCCESS && K) k->fin(st->dev, a.par, a.pv, a.pi, G, is_max, is_abs, a.rv, a.ri);
    if (rc == WR_SUCCESS) rc = wro_copy(st, bx.p, bx.on_dev, a.ri, 1, sizeof *index, err);
    if (rc == WR_SUCCESS && value != NULL && is_abs) {
        /* the element itself, not its magnitude */
        size_t i = 0;
        rc = wro_copy(st, &i, 0, a.ri, 1, sizeof i, err);
        if (rc == WR_SUCCESS) rc = wro_copy(st, bv.p, bv.on_dev, bi.p + i * es, bi.on_dev, es, err);
    } else if (rc == WR_SUCCESS && value != NULL) {
        rc = wro_copy(st, bv.p, bv.on_dev, a.rv, 1, es, err);
    }
    wro_scratch_close(&s);
    return rc;
}

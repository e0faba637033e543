/*
 * omp_xkern.h -- the exact-sum building blocks the reproducible kernels of
 * the omptarget backend share (omp_exact.c, omp_xscan.c; not installed):
 * lib/wr_exact.h's verified front end over a strided lane, and the
 * accumulator paths for what it cannot verify.
 *
 * On nvptx the front end (wro_xfront, wro_xtry) lives in registers and may
 * run inside simd loops; everything that holds a wrx_acc (wro_xadd,
 * wro_xacc) takes a soft-stack frame and must only run in loops without
 * simd or in single-thread target regions (tools/nvptx-simt-check).
 */
#ifndef WRO_XKERN_H
#define WRO_XKERN_H

#include "omp_kern.h"

#pragma omp declare target
#include "wr_exact.h"
#pragma omp end declare target

#if defined(__GNUC__)
#  define WRO_UNUSED __attribute__((unused))
#else
#  define WRO_UNUSED
#endif

/* The split of an exact sum (omp_exact.c, omp_dot.c): lanes of a verified
 * front end, merged by groups of WRO_XGROUP lanes into accumulators. */
/* Lanes merged by one group (and so the accumulators of a reduction: at
 * most 2^18 / 256); a row's lanes (wro_row_lanes) are one group. */
#define WRO_XGROUP 256
/* The largest lane count of a reduction's lanes (one lane a 1024 elements
 * at 2^28 elements and beyond). */
#define WRO_XLANES_MAX ((size_t)1 << 18)

/* Lanes of a reduction of n elements: a power of two from WRO_XGROUP to
 * WRO_XLANES_MAX, about n / 256. */
static inline size_t wro_xsum_lanes(size_t n)
{
    size_t g = WRO_XGROUP;
    while (g < WRO_XLANES_MAX && g * 256 < n) g *= 2;
    return g;
}

/* (not declare target: the target regions that call them make them so, as
 * for the kernels' other static functions) */
#define WRO_DEF_XFRONT(sfx, T, IS_F64)                                                   \
    /* the front end over x[first + j*stride], j < cnt: *bad when an addition */      \
    /* could not be verified exact */                                                  \
    static inline void wro_xfront_##sfx(const T *x, size_t first, size_t stride, size_t cnt, \
                                        double *h, double *l, int *bad)               \
    {                                                                                  \
        double H = -0.0, L = 0.0;                                                      \
        int b = 0;                                                                     \
        for (size_t j = 0; j < cnt; j++) {                                             \
            const double v = (double)x[first + j * stride];                            \
            if (IS_F64) b |= !wrx_front_f64(&H, &L, v);                                \
            else b |= !wrx_front_f32(&H, v);                                           \
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
    static WRO_UNUSED T wro_xacc_##sfx(const T *x, size_t first, size_t stride, size_t cnt)   \
    {                                                                              \
        wrx_acc acc;                                                               \
        wrx_init(&acc);                                                            \
        for (size_t j = 0; j < cnt; j++) wrx_add(&acc, (double)x[first + j * stride]); \
        return IS_F64 ? (T)wrx_round_f64(&acc) : (T)wrx_round_f32(&acc);           \
    }
WRO_DEF_XFRONT(f32, float, 0)
WRO_DEF_XFRONT(f64, double, 1)
#undef WRO_DEF_XFRONT

#endif /* WRO_XKERN_H */

/*
 * omp_kern.h -- the device-side building blocks the kernel families share
 * (not installed): a lane's fold, the team fold, the pairwise stack.
 *
 * Everything here is compiled for the host and for every offload target
 * (declare target), and inlined into the target regions of omp_reduce.c,
 * omp_scan.c and omp_arg.c.
 */
#ifndef WRO_KERN_H
#define WRO_KERN_H

#include "omp_internal.h"

#pragma omp declare target

/* Stored results: float SUM/PROD NaNs become one NaN (WRO_CANON); the
 * other types pass as they are. */
static inline int32_t wro_canon_i32(int32_t v) { return v; }
static inline int64_t wro_canon_i64(int64_t v) { return v; }
static inline uint32_t wro_canon_u32(uint32_t v) { return v; }
static inline uint64_t wro_canon_u64(uint64_t v) { return v; }

/*
 * WRO_DEF_FOLD8(name, T, A, nz, COMB, TERM): static inline A name(x, y,
 * first, stride, cnt), the fold by COMB(A, A) of the terms TERM(x, y, i)
 * for i = first + j * stride, j < cnt: by WRO_U (8) accumulators (term j
 * goes to accumulator j % 8, each starting from nz), combined by halving (a[u]
 * with a[u + 4], then a[v] with a[v + 2], then a0 with a1).  Eight named
 * accumulators, not an array: an array would live on nvptx's soft stack in
 * global memory (and, in a simd loop, below the SIMT lane stack).
 */
#define WRO_DEF_FOLD8(name, T, A, nz, COMB, TERM)                                  \
    static inline A name(const T *x, const T *y, size_t first, size_t stride, size_t cnt) \
    {                                                                             \
        A a0 = (nz), a1 = (nz), a2 = (nz), a3 = (nz), a4 = (nz), a5 = (nz), a6 = (nz), a7 = (nz); \
        size_t i = 0, o = first;                                                  \
        (void)y;                                                                  \
        for (; i + WRO_U <= cnt; i += WRO_U, o += WRO_U * stride) {               \
            a0 = COMB(a0, TERM(x, y, o));                                         \
            a1 = COMB(a1, TERM(x, y, o + stride));                                \
            a2 = COMB(a2, TERM(x, y, o + 2 * stride));                            \
            a3 = COMB(a3, TERM(x, y, o + 3 * stride));                            \
            a4 = COMB(a4, TERM(x, y, o + 4 * stride));                            \
            a5 = COMB(a5, TERM(x, y, o + 5 * stride));                            \
            a6 = COMB(a6, TERM(x, y, o + 6 * stride));                            \
            a7 = COMB(a7, TERM(x, y, o + 7 * stride));                            \
        }                                                                         \
        if (i + 0 < cnt) a0 = COMB(a0, TERM(x, y, o));                            \
        if (i + 1 < cnt) a1 = COMB(a1, TERM(x, y, o + stride));                   \
        if (i + 2 < cnt) a2 = COMB(a2, TERM(x, y, o + 2 * stride));               \
        if (i + 3 < cnt) a3 = COMB(a3, TERM(x, y, o + 3 * stride));               \
        if (i + 4 < cnt) a4 = COMB(a4, TERM(x, y, o + 4 * stride));               \
        if (i + 5 < cnt) a5 = COMB(a5, TERM(x, y, o + 5 * stride));               \
        if (i + 6 < cnt) a6 = COMB(a6, TERM(x, y, o + 6 * stride));               \
        a0 = COMB(a0, a4);                                                        \
        a1 = COMB(a1, a5);                                                        \
        a2 = COMB(a2, a6);                                                        \
        a3 = COMB(a3, a7);                                                        \
        a0 = COMB(a0, a2);                                                        \
        a1 = COMB(a1, a3);                                                        \
        return COMB(a0, a1);                                                      \
    }
/* the element itself: the term of a reduction */
#define WRO_ELEM(x, y, i) ((x)[i])

/*
 * Per (type, op):
 *  - wro_fold: the fold of x[first + i * stride], i < cnt (WRO_DEF_FOLD8 by
 *    the op, from its neutral value); the neutral value when cnt == 0;
 *  - wro_push / wro_stack: pairwise combination of a stream of values in
 *    O(log n) space (the binary-counter form of recursive halving, as in
 *    cpu/): after 2^j pushes the stack holds the value of a perfect tree.
 */
#define WRO_DEF_FOLD(sfx, T, E, wsfx, W, op, OE)                                   \
    WRO_DEF_FOLD8(wro_fold2_##sfx##_##op, T, T, WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx()), \
                  wr_##op##_##sfx, WRO_ELEM)                                      \
    static inline T wro_fold_##sfx##_##op(const T *x, size_t first, size_t stride, size_t cnt) \
    {                                                                             \
        return wro_fold2_##sfx##_##op(x, NULL, first, stride, cnt);               \
    }                                                                             \
    static inline void wro_push_##sfx##_##op(T *s, unsigned *top, size_t *count, T v) \
    {                                                                             \
        size_t c;                                                                 \
        for (c = *count; c & 1; c >>= 1) {                                        \
            *top -= 1;                                                            \
            v = wr_##op##_##sfx(s[*top], v);                                      \
        }                                                                         \
        s[*top] = v;                                                              \
        *top += 1;                                                                \
        *count += 1;                                                              \
    }                                                                             \
    /* the combination of everything pushed (at least one value) */              \
    static inline T wro_stack_##sfx##_##op(const T *s, unsigned top)              \
    {                                                                             \
        T v = s[top - 1];                                                         \
        while (--top > 0) v = wr_##op##_##sfx(s[top - 1], v);                     \
        return v;                                                                 \
    }
#define WRO_PAIR WRO_DEF_FOLD
WRO_PAIRS
#undef WRO_PAIR

#pragma omp end declare target

/* The value stored for a float SUM/PROD result, else v. */
#define WRO_STORE(sfx, T, OE, v) (WRO_CANON(T, OE) ? wro_canon_##sfx(v) : (v))

/*
 * The team fold, inside a target region (one team: a plain `target`, whose
 * launch costs GCC 12's nvptx runtime a fifth of a `target teams` one) or
 * inside one team of a teams region: the team folds x[c0 .. c0 + m)
 * (1 <= m <= WRO_CH) into lanes[0].  Lane l folds elements c0 + l + j*TL
 * (consecutive lanes read consecutive elements); the lanes are then
 * combined by halving, l with l + h, in one parallel region whose
 * worksharing loops end in barriers.  Fixed by m alone: the threads the
 * runtime gives the team only share out the lanes.
 */
#define WRO_TEAM_CHUNK(sfx, op, x, c0, m, lanes)                                    \
    WRO_PRAGMA(omp parallel if(par))                                                       \
    {                                                                              \
        WRO_PRAGMA(omp for simd)                                                   \
        for (int l_ = 0; l_ < WRO_TL; l_++) {                                      \
            size_t k_ = (size_t)l_ < (m) ? ((m) - (size_t)l_ + WRO_TL - 1) / WRO_TL : 0; \
            (lanes)[l_] = wro_fold_##sfx##_##op((x), (c0) + (size_t)l_, WRO_TL, k_); \
        }                                                                          \
        for (int h_ = WRO_TL / 2; h_ > 0; h_ /= 2) {                               \
            WRO_PRAGMA(omp for simd)                                               \
            for (int l_ = 0; l_ < h_; l_++)                                        \
                (lanes)[l_] = wr_##op##_##sfx((lanes)[l_], (lanes)[l_ + h_]);      \
        }                                                                          \
    }

/* res = the team's fold of x[0 .. n), n >= 1: chunks of WRO_CH, their
 * results combined pairwise on a stack (stk: 64 elements; *top, *cnt its
 * state, so that a fold can go on over several calls). */
#define WRO_TEAM_RANGE(sfx, op, x, n, lanes, stk, top, cnt)                          \
    for (size_t c0_ = 0; c0_ < (n); c0_ += WRO_CH) {                               \
        const size_t m_ = (n) - c0_ < WRO_CH ? (n) - c0_ : WRO_CH;                 \
        WRO_TEAM_CHUNK(sfx, op, x, c0_, m_, lanes)                                 \
        wro_push_##sfx##_##op((stk), (top), (cnt), (lanes)[0]);                    \
    }

#endif /* WRO_KERN_H */

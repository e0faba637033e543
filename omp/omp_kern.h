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

/* Full unrolling keeps the accumulators in registers (a loop over a local
 * array would leave them in local memory on the device). */
#if defined(__GNUC__) && !defined(__clang__)
#  define WRO_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#  define WRO_UNROLL _Pragma("unroll")
#else
#  define WRO_UNROLL
#endif

#pragma omp declare target

/* Stored results: float SUM/PROD NaNs become one NaN (WRO_CANON); the
 * other types pass as they are. */
static inline int32_t wro_canon_i32(int32_t v) { return v; }
static inline int64_t wro_canon_i64(int64_t v) { return v; }
static inline uint32_t wro_canon_u32(uint32_t v) { return v; }
static inline uint64_t wro_canon_u64(uint64_t v) { return v; }

/*
 * Per (type, op):
 *  - wro_fold: the fold of x[first + i * stride], i < cnt, by WRO_U
 *    accumulators (element i goes to accumulator i % WRO_U), combined by
 *    halving (a[u] op a[u + h]); the neutral value when cnt == 0;
 *  - wro_push / wro_stack: pairwise combination of a stream of values in
 *    O(log n) space (the binary-counter form of recursive halving, as in
 *    cpu/): after 2^j pushes the stack holds the value of a perfect tree.
 */
#define WRO_DEF_FOLD(sfx, T, E, wsfx, W, op, OE)                                   \
    static inline T wro_fold_##sfx##_##op(const T *x, size_t first, size_t stride, size_t cnt) \
    {                                                                             \
        const T nz = WRO_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                 \
        T a[WRO_U];                                                               \
        size_t i = 0, u;                                                          \
        WRO_UNROLL                                                                \
        for (u = 0; u < WRO_U; u++) a[u] = nz;                                    \
        for (; i + WRO_U <= cnt; i += WRO_U) {                                    \
            const T *p = x + first + i * stride;                                  \
            WRO_UNROLL                                                            \
            for (u = 0; u < WRO_U; u++) a[u] = wr_##op##_##sfx(a[u], p[u * stride]); \
        }                                                                         \
        WRO_UNROLL                                                                \
        for (u = 0; u < WRO_U; u++)                                               \
            if (i + u < cnt) a[u] = wr_##op##_##sfx(a[u], x[first + (i + u) * stride]); \
        WRO_UNROLL                                                                \
        for (u = WRO_U / 2; u > 0; u /= 2) {                                      \
            size_t v;                                                             \
            WRO_UNROLL                                                            \
            for (v = 0; v < u; v++) a[v] = wr_##op##_##sfx(a[v], a[v + u]);       \
        }                                                                         \
        return a[0];                                                              \
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

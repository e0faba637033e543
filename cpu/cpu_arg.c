/*
 * cpu_arg.c -- argmin / argmax on the host.
 *
 * The answer is the first index of the extreme value, or of the first NaN
 * when there is one (NumPy's rule; -0 and +0 tie, so the first wins).  It is
 * exact, so any split of the work gives the same index; the array is cut as
 * the reductions cut it (blocks of WRCPU_BLOCK, at most WRCPU_CHUNKS_MAX chunks
 * shared among threads) and chunk answers are merged left to right with
 * wr_arg_better_* from wr_ops.h, which keeps the earlier index on a tie.
 *
 * Inside a block, two passes over data already in L1: the first finds the
 * extreme value (a NaN when there is one), then a lane-wide scan finds the
 * first index holding it (-0 == +0, so the first zero of either sign), or
 * the first NaN.  For integers the first pass is the MIN or MAX reduce
 * kernel.  For floats it is a plain SSE2 max/min (maxps/minpd ignore the
 * order of -0 and +0 and skip NaN operands) with a separate "any NaN" mask:
 * the second pass compares with ==, so neither the sign of a zero extreme nor
 * where a NaN sits matters to the first, and IEEE maximum's NaN and zero
 * rules (which the MIN/MAX reduce keeps, at 0.27x the copy in argmax) are
 * not needed there.
 */
#include <config.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#include "cpu_internal.h"

WRCPU_TARGET_BEGIN                 /* this variant's instruction set, to the end */

struct wrcpu_arg {
    size_t size;
    /* the first index in x[0..n) holding *m, or the first NaN if *m is one */
    size_t (*find)(const void *x, size_t n, const union wrcpu_val *m);
    /* 1 if the element at b (later index) replaces the one at a */
    int (*better)(const void *a, const void *b, int is_max);
    /* floats: the block's extreme value or a NaN (NULL: the MIN/MAX reduce) */
    void (*extreme)(const void *x, size_t n, int is_max, union wrcpu_val *m);
};

#define WRCPU_DEF_ARG(sfx, T, U, E, K)                                             \
    static size_t wrcpu_argfind_##sfx(const void *vx, size_t n, const union wrcpu_val *m) \
    {                                                                            \
        enum { L = WRCPU_LANES(T) };                                               \
        const T *x = (const T *)vx, v = m->sfx;                                  \
        size_t i, l;                                                             \
        if (v != v) {                                                            \
            for (i = 0; i < n; i++)                                              \
                if (x[i] != x[i]) return i;                                      \
            return 0;                                                            \
        }                                                                        \
        for (i = 0; i + L <= n; i += L) {   /* a lane-wide test first */         \
            int hit = 0;                                                         \
            for (l = 0; l < L; l++) hit |= x[i + l] == v;                        \
            if (hit) break;                                                      \
        }                                                                        \
        for (; i < n; i++)                                                       \
            if (x[i] == v) return i;                                             \
        return 0; /* not reached: the extreme is one of x[] */                   \
    }                                                                            \
    static int wrcpu_argbetter_##sfx(const void *a, const void *b, int is_max)     \
    {                                                                            \
        return wr_arg_better_##sfx(*(const T *)a, *(const T *)b, is_max);        \
    }
WRCPU_TYPES(WRCPU_DEF_ARG)
#undef WRCPU_DEF_ARG

#if defined(__SSE2__)
/* The main loop of wrcpu_fext_*: four vectors per step, four accumulators
 * combined with OP (max or min), and the running "any NaN" mask. */
#define WRCPU_FEXT_LOOP(V, LOAD, UNORD, OR, OP)                                    \
    for (; i + U <= n; i += U) {                                                 \
        V p = LOAD(x + i), q = LOAD(x + i + L);                                  \
        V r = LOAD(x + i + 2 * L), s = LOAD(x + i + 3 * L);                      \
        un = OR(un, OR(OR(UNORD(p, p), UNORD(q, q)), OR(UNORD(r, r), UNORD(s, s)))); \
        a0 = OP(p, a0); a1 = OP(q, a1); a2 = OP(r, a2); a3 = OP(s, a3);          \
    }
/* *m = the largest (is_max) or smallest element of x[0..n), n >= 1, or a NaN
 * when x holds one; a zero extreme may come back with either sign. */
#define WRCPU_DEF_FEXT(sfx, T, V, SET1, LOAD, MAX, MIN, UNORD, OR, MASK)          \
    static void wrcpu_fext_##sfx(const void *vx, size_t n, int is_max, union wrcpu_val *m) \
    {                                                                            \
        enum { L = (int)(16 / sizeof(T)), U = 4 * L };                           \
        const T *x = (const T *)vx;                                              \
        T v = x[0], t[L];                                                        \
        size_t i = 0;                                                            \
        int l, nan = 0;                                                          \
        if (n >= U) {                                                            \
            V a0 = SET1(x[0]), a1 = a0, a2 = a0, a3 = a0, un = UNORD(a0, a0);    \
            if (is_max) WRCPU_FEXT_LOOP(V, LOAD, UNORD, OR, MAX)                   \
            else        WRCPU_FEXT_LOOP(V, LOAD, UNORD, OR, MIN)                   \
            a0 = is_max ? MAX(MAX(a0, a1), MAX(a2, a3)) : MIN(MIN(a0, a1), MIN(a2, a3)); \
            memcpy(t, &a0, sizeof t);                                            \
            nan = MASK(un) != 0;                                                 \
            v = t[0];                                                            \
            for (l = 1; l < L; l++)                                              \
                if (is_max ? t[l] > v : t[l] < v) v = t[l];                      \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            const T y = x[i];                                                    \
            nan |= y != y;                                                       \
            if (is_max ? y > v : y < v) v = y;                                   \
        }                                                                        \
        m->sfx = nan ? (T)NAN : v;                                               \
    }
WRCPU_DEF_FEXT(f32, float, __m128, _mm_set1_ps, _mm_loadu_ps, _mm_max_ps, _mm_min_ps, _mm_cmpunord_ps,
             _mm_or_ps, _mm_movemask_ps)
WRCPU_DEF_FEXT(f64, double, __m128d, _mm_set1_pd, _mm_loadu_pd, _mm_max_pd, _mm_min_pd, _mm_cmpunord_pd,
             _mm_or_pd, _mm_movemask_pd)
#undef WRCPU_DEF_FEXT
#undef WRCPU_FEXT_LOOP
#define WRCPU_FEXT_f32 wrcpu_fext_f32
#define WRCPU_FEXT_f64 wrcpu_fext_f64
#else
#define WRCPU_FEXT_f32 NULL
#define WRCPU_FEXT_f64 NULL
#endif
#define WRCPU_FEXT_i32 NULL
#define WRCPU_FEXT_i64 NULL
#define WRCPU_FEXT_u32 NULL
#define WRCPU_FEXT_u64 NULL

#define WRCPU_ARG_ENTRY(sfx, T, U, E, K) [E] = { sizeof(T), wrcpu_argfind_##sfx, wrcpu_argbetter_##sfx, WRCPU_FEXT_##sfx },
static const struct wrcpu_arg wrcpu_arg_tab[WRCPU_NTYPES] = { WRCPU_TYPES(WRCPU_ARG_ENTRY) };
#undef WRCPU_ARG_ENTRY

/* Index of the answer among blocks [b0, b1) of x (n elements in all). */
static size_t arg_blocks(const struct wrcpu_arg *k, const struct wrcpu_red *ext, const char *x, size_t n,
                         size_t b0, size_t b1, int is_max)
{
    size_t best = 0, b;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRCPU_BLOCK, len = n - i < WRCPU_BLOCK ? n - i : WRCPU_BLOCK, j;
        union wrcpu_val m;
        if (k->extreme) k->extreme(x + i * k->size, len, is_max, &m);
        else ext->block(x + i * k->size, len, &m);
        j = i + k->find(x + i * k->size, len, &m);
        if (b == b0 || k->better(x + best * k->size, x + j * k->size, is_max)) best = j;
    }
    return best;
}

wr_status wrcpu_argext(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                     char *err)
{
    const struct wrcpu_arg *k = &wrcpu_arg_tab[type];
    const struct wrcpu_red *ext = wrcpu_red_kernels(type, is_max ? WR_MAX : WR_MIN);
    const char *x = (const char *)in;
    size_t part[WRCPU_CHUNKS_MAX];
    size_t nb = (count + WRCPU_BLOCK - 1) / WRCPU_BLOCK, cb = 1, nc, c, best;
    (void)err;

    while ((nb + cb - 1) / cb > WRCPU_CHUNKS_MAX) cb *= 2;
    nc = (nb + cb - 1) / cb;
    part[0] = 0;                        /* count >= 1, so nc >= 1 */
    if (count >= WRCPU_PAR_MIN && wrcpu_max_threads() > 1) {
        WRCPU_PRAGMA(omp parallel for schedule(static))
        for (c = 0; c < nc; c++)
            part[c] = arg_blocks(k, ext, x, count, c * cb, c + 1 == nc ? nb : (c + 1) * cb, is_max);
    } else {
        for (c = 0; c < nc; c++)
            part[c] = arg_blocks(k, ext, x, count, c * cb, c + 1 == nc ? nb : (c + 1) * cb, is_max);
    }
    best = part[0];
    for (c = 1; c < nc; c++)
        if (k->better(x + best * k->size, x + part[c] * k->size, is_max)) best = part[c];
    *index = best;
    if (value != NULL) memcpy(value, x + best * k->size, k->size);
    return WR_SUCCESS;
}

WRCPU_TARGET_END

/*
 * cpu_arg.c -- argmin / argmax on the host.
 *
 * The answer is the first index of the extreme value, or of the first NaN
 * when there is one (NumPy's rule; -0 and +0 tie, so the first wins).  It is
 * exact, so any split of the work gives the same index; the array is cut as
 * the reductions cut it (blocks of WRC_BLOCK, at most WRC_CHUNKS_MAX chunks
 * shared among threads) and chunk answers are merged left to right with
 * wr_arg_better_* from wr_ops.h, which keeps the earlier index on a tie.
 *
 * Inside a block, two passes over data already in L1: vector lanes find the
 * extreme value with plain comparisons and note whether a NaN went by, then
 * a scan finds the first index holding that value (or the first NaN).
 */
#include <config.h>
#include <string.h>
#include "cpu_internal.h"

struct wrc_arg {
    size_t size;
    /* index in x[0..n), n >= 1, of the first minimum (is_max == 0) or maximum */
    size_t (*block)(const void *x, size_t n, int is_max);
    /* 1 if the element at b (later index) replaces the one at a */
    int (*better)(const void *a, const void *b, int is_max);
};

#define WRC_DEF_ARG(sfx, T, U, E, K)                                             \
    WRC_INLINE size_t wrc_argblk_##sfx(const T *x, size_t n, int is_max)         \
    {                                                                            \
        enum { L = WRC_LANES(T) };                                               \
        T acc[L], m;                                                             \
        T nan[L];                     /* a NaN seen by the lane, else 0 */      \
        int anynan = 0;                                                          \
        size_t i, l;                                                             \
        if (n < (size_t)L) {                                                     \
            size_t best = 0;                                                     \
            for (i = 1; i < n; i++)                                              \
                if (wr_arg_better_##sfx(x[best], x[i], is_max)) best = i;        \
            return best;                                                         \
        }                                                                        \
        /* x[0] seeds the lanes: any value of the array is a valid start, and */ \
        /* unlike an identity it is right for an all-+inf argmin */              \
        for (l = 0; l < L; l++) { acc[l] = x[0]; nan[l] = 0; }                   \
        for (i = 0; i + L <= n; i += L) {                                        \
            /* not unrolled: gcc vectorises a float select only in the loop */  \
            /* vectoriser (lanes then live in L1, still a vector per cycle) */  \
            for (l = 0; l < L; l++) {                                            \
                T v = x[i + l];                                                  \
                nan[l] = v != v ? v : nan[l];                                    \
                if (is_max) acc[l] = acc[l] < v ? v : acc[l];                    \
                else        acc[l] = v < acc[l] ? v : acc[l];                    \
            }                                                                    \
        }                                                                        \
        for (l = 0; i < n; i++, l++) {                                           \
            nan[l] = x[i] != x[i] ? x[i] : nan[l];                               \
            if (is_max) acc[l] = acc[l] < x[i] ? x[i] : acc[l];                  \
            else        acc[l] = x[i] < acc[l] ? x[i] : acc[l];                  \
        }                                                                        \
        m = acc[0];                                                              \
        for (l = 0; l < L; l++) {                                                \
            anynan |= nan[l] != nan[l];                                          \
            if (is_max) m = m < acc[l] ? acc[l] : m;                             \
            else        m = acc[l] < m ? acc[l] : m;                             \
        }                                                                        \
        if (anynan) {                                                            \
            for (i = 0; i < n; i++)                                              \
                if (x[i] != x[i]) return i;                                      \
        }                                                                        \
        /* the first index holding m: a lane-wide test, then one by one */      \
        for (i = 0; i + L <= n; i += L) {                                        \
            int hit = 0;                                                         \
            for (l = 0; l < L; l++) hit |= x[i + l] == m;                        \
            if (hit) break;                                                      \
        }                                                                        \
        for (; i < n; i++)                                                       \
            if (x[i] == m) return i;                                             \
        return 0; /* not reached: m is one of x[] */                             \
    }                                                                            \
    static size_t wrc_argblock_##sfx(const void *x, size_t n, int is_max)        \
    {                                                                            \
        return is_max ? wrc_argblk_##sfx((const T *)x, n, 1)                     \
                      : wrc_argblk_##sfx((const T *)x, n, 0);                    \
    }                                                                            \
    static int wrc_argbetter_##sfx(const void *a, const void *b, int is_max)     \
    {                                                                            \
        return wr_arg_better_##sfx(*(const T *)a, *(const T *)b, is_max);        \
    }
WRC_TYPES(WRC_DEF_ARG)
#undef WRC_DEF_ARG

#define WRC_ARG_ENTRY(sfx, T, U, E, K) [E] = { sizeof(T), wrc_argblock_##sfx, wrc_argbetter_##sfx },
static const struct wrc_arg wrc_arg_tab[WRC_NTYPES] = { WRC_TYPES(WRC_ARG_ENTRY) };
#undef WRC_ARG_ENTRY

/* Index of the answer among blocks [b0, b1) of x (n elements in all). */
static size_t arg_blocks(const struct wrc_arg *k, const char *x, size_t n, size_t b0, size_t b1, int is_max)
{
    size_t best = 0, b;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRC_BLOCK, len = n - i < WRC_BLOCK ? n - i : WRC_BLOCK;
        size_t j = i + k->block(x + i * k->size, len, is_max);
        if (b == b0 || k->better(x + best * k->size, x + j * k->size, is_max)) best = j;
    }
    return best;
}

wr_status wrc_argext(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                     char *err)
{
    const struct wrc_arg *k = &wrc_arg_tab[type];
    const char *x = (const char *)in;
    size_t part[WRC_CHUNKS_MAX];
    size_t nb = (count + WRC_BLOCK - 1) / WRC_BLOCK, cb = 1, nc, c, best;
    (void)err;

    while ((nb + cb - 1) / cb > WRC_CHUNKS_MAX) cb *= 2;
    nc = (nb + cb - 1) / cb;
    part[0] = 0;                        /* count >= 1, so nc >= 1 */
    if (count >= WRC_PAR_MIN && wrc_max_threads() > 1) {
        WRC_PRAGMA(omp parallel for schedule(static))
        for (c = 0; c < nc; c++)
            part[c] = arg_blocks(k, x, count, c * cb, c + 1 == nc ? nb : (c + 1) * cb, is_max);
    } else {
        for (c = 0; c < nc; c++)
            part[c] = arg_blocks(k, x, count, c * cb, c + 1 == nc ? nb : (c + 1) * cb, is_max);
    }
    best = part[0];
    for (c = 1; c < nc; c++)
        if (k->better(x + best * k->size, x + part[c] * k->size, is_max)) best = part[c];
    *index = best;
    if (value != NULL) memcpy(value, x + best * k->size, k->size);
    return WR_SUCCESS;
}

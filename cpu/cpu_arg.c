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
 * Inside a block, two passes over data already in L1: the reduce kernel for
 * MIN or MAX finds the extreme value (a NaN when there is one), then a
 * lane-wide scan finds the first index holding it (-0 == +0, so the first
 * zero of either sign), or the first NaN.
 */
#include <config.h>
#include <string.h>
#include "cpu_internal.h"

struct wrc_arg {
    size_t size;
    /* the first index in x[0..n) holding *m, or the first NaN if *m is one */
    size_t (*find)(const void *x, size_t n, const union wrc_val *m);
    /* 1 if the element at b (later index) replaces the one at a */
    int (*better)(const void *a, const void *b, int is_max);
};

#define WRC_DEF_ARG(sfx, T, U, E, K)                                             \
    static size_t wrc_argfind_##sfx(const void *vx, size_t n, const union wrc_val *m) \
    {                                                                            \
        enum { L = WRC_LANES(T) };                                               \
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
    static int wrc_argbetter_##sfx(const void *a, const void *b, int is_max)     \
    {                                                                            \
        return wr_arg_better_##sfx(*(const T *)a, *(const T *)b, is_max);        \
    }
WRC_TYPES(WRC_DEF_ARG)
#undef WRC_DEF_ARG

#define WRC_ARG_ENTRY(sfx, T, U, E, K) [E] = { sizeof(T), wrc_argfind_##sfx, wrc_argbetter_##sfx },
static const struct wrc_arg wrc_arg_tab[WRC_NTYPES] = { WRC_TYPES(WRC_ARG_ENTRY) };
#undef WRC_ARG_ENTRY

/* Index of the answer among blocks [b0, b1) of x (n elements in all). */
static size_t arg_blocks(const struct wrc_arg *k, const struct wrc_red *ext, const char *x, size_t n,
                         size_t b0, size_t b1, int is_max)
{
    size_t best = 0, b;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRC_BLOCK, len = n - i < WRC_BLOCK ? n - i : WRC_BLOCK, j;
        union wrc_val m;
        ext->block(x + i * k->size, len, &m);
        j = i + k->find(x + i * k->size, len, &m);
        if (b == b0 || k->better(x + best * k->size, x + j * k->size, is_max)) best = j;
    }
    return best;
}

wr_status wrc_argext(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                     char *err)
{
    const struct wrc_arg *k = &wrc_arg_tab[type];
    const struct wrc_red *ext = wrc_red_kernels(type, is_max ? WR_MAX : WR_MIN);
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

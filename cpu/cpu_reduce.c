/*
 * cpu_reduce.c -- reduce, reduce_rows and reduce_segments on the host.
 *
 * The reduction of n elements follows one fixed tree, whatever the number of
 * threads:
 *   1. leaf blocks of WRCPU_BLOCK elements, each reduced by WRCPU_LANES vector
 *      lanes (lane l takes elements l, l+L, l+2L...), the lanes then folded
 *      by halving;
 *   2. chunks of cb blocks (cb a power of two chosen from n so that there are
 *      at most WRCPU_CHUNKS_MAX chunks), the blocks of a chunk combined
 *      pairwise;
 *   3. the chunk results combined pairwise.
 * Threads take whole chunks, so the tree is the same on 1 or 100 threads.
 * For float SUM the error is that of a chain of WRCPU_BLOCK / L + log2(n)
 * additions (at most 128 + log2(n) for float, 256 + log2(n) for double:
 * blocked pairwise summation, Higham, "The accuracy of floating point
 * summation", SIAM J. Sci. Comput. 14, 1993), inside DESIGN.md's bound of
 * 1024 + log2(n).
 *
 * A row or a segment is reduced by the same function as wr_reduce on the
 * same elements, so reduce_rows and reduce_segments give exactly the bits
 * wr_reduce would give on each row or segment.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "cpu_internal.h"

WRCPU_TARGET_BEGIN                 /* this variant's instruction set, to the end */

/*
 * Per type: min/max lanes.
 *
 * IEEE 754-2019 minimum/maximum (NaN wins, -0 < +0) do not map onto vector
 * min instructions directly, so float lanes take the plain ordered minimum
 * (x < m ? x : m, one minps/minpd) and settle the two exceptions after the
 * block, which is still in L1: a NaN is only noted per lane, and a block that
 * held one returns its first NaN (which the wr_min/wr_max combine of wr_ops.h
 * then keeps); a result of zero looks for a zero of the winning sign (-0 for
 * the minimum, +0 for the maximum).  Integers compare directly.
 */
#define WRCPU_DEF_MINMAX(sfx, T, U, E, K)                                          \
    /* minimum (is_max == 0) or maximum of x[0..n), identity when n == 0 */      \
    WRCPU_INLINE T wrcpu_minmax_##sfx(const T *x, size_t n, int is_max)              \
    {                                                                            \
        enum { L = WRCPU_LANES(T) };                                               \
        const T id = is_max ? wr_ident_max_##sfx() : wr_ident_min_##sfx();       \
        T acc[L], m;                                                             \
        T nan[L];                     /* a NaN seen by the lane, else 0 */      \
        int anynan = 0;                                                          \
        size_t i, l;                                                             \
        for (l = 0; l < L; l++) { acc[l] = id; nan[l] = 0; }                     \
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
        if (anynan)                                                              \
            for (i = 0; i < n; i++)                                              \
                if (x[i] != x[i]) return x[i];                                   \
        if (WRCPU_IS_FLOAT(T) && m == 0) {                                         \
            /* ties of -0 and +0 went either way: -0 wins a minimum when */     \
            /* there is one, +0 a maximum; look at the bits (vectorises) */      \
            const K sign = (K)1 << (8 * sizeof(K) - 1), want = is_max ? 0 : sign; \
            K found = 0, bits;                                                   \
            for (i = 0; i < n; i++) {                                            \
                K b;                                                             \
                memcpy(&b, &x[i], sizeof b);                                     \
                found |= (K)(b == want);                                         \
            }                                                                    \
            bits = found ? want : want ^ sign;                                   \
            memcpy(&m, &bits, sizeof m);                                         \
        }                                                                        \
        return m;                                                                \
    }
WRCPU_TYPES(WRCPU_DEF_MINMAX)
#undef WRCPU_DEF_MINMAX

/*
 * Per (type, op): the leaf block by lanes, and the row and segment loops
 * that call it inline.  MIN/MAX go to the key lanes above; every other op
 * runs L independent accumulators with the combine of wr_ops.h, starting
 * from the neutral value (WRCPU_NEUTRAL).
 */
#define WRCPU_DEF_RED(sfx, T, U, E, K, op, OE)                                     \
    static inline T wrcpu_blk_##sfx##_##op(const T *x, size_t n)                   \
    {                                                                            \
        enum { L = WRCPU_LANES(T) };                                               \
        T acc[L];                                                                \
        size_t i, l, h;                                                          \
        if (OE == WR_MIN || OE == WR_MAX)                                        \
            return wrcpu_minmax_##sfx(x, n, OE == WR_MAX);                         \
        if (n == 0) return wr_ident_##op##_##sfx();                              \
        if (n < (size_t)L) {           /* short: one chain of < L elements */    \
            T a = WRCPU_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                   \
            for (i = 0; i < n; i++) a = wr_##op##_##sfx(a, x[i]);                \
            return a;                                                            \
        }                                                                        \
        for (l = 0; l < L; l++) acc[l] = WRCPU_NEUTRAL(T, OE, wr_ident_##op##_##sfx()); \
        for (i = 0; i + L <= n; i += L) {                                        \
            WRCPU_UNROLL                                                           \
            for (l = 0; l < L; l++) acc[l] = wr_##op##_##sfx(acc[l], x[i + l]);  \
        }                                                                        \
        for (l = 0; i < n; i++, l++) acc[l] = wr_##op##_##sfx(acc[l], x[i]);     \
        WRCPU_UNROLL                                                               \
        for (h = L / 2; h > 0; h /= 2) {                                         \
            WRCPU_UNROLL                                                           \
            for (l = 0; l < h; l++) acc[l] = wr_##op##_##sfx(acc[l], acc[l + h]); \
        }                                                                        \
        return acc[0];                                                           \
    }                                                                            \
    static void wrcpu_ident_##sfx##_##op(union wrcpu_val *v)                         \
    {                                                                            \
        v->sfx = wr_ident_##op##_##sfx();                                        \
    }                                                                            \
    static void wrcpu_comb_##sfx##_##op(union wrcpu_val *a, const union wrcpu_val *b)  \
    {                                                                            \
        a->sfx = wr_##op##_##sfx(a->sfx, b->sfx);                                \
    }                                                                            \
    static void wrcpu_block_##sfx##_##op(const void *x, size_t n, union wrcpu_val *v) \
    {                                                                            \
        v->sfx = wrcpu_blk_##sfx##_##op((const T *)x, n);                          \
    }                                                                            \
    static void wrcpu_rows_##sfx##_##op(const struct wrcpu_red *k, const void *vin,  \
                                      void *vout, size_t r0, size_t r1, size_t cols) \
    {                                                                            \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        size_t r;                                                                \
        for (r = r0; r < r1; r++) {                                              \
            if (cols == 0) {              /* in may be NULL: no arithmetic on it */ \
                out[r] = wr_ident_##op##_##sfx();                                \
            } else if (cols <= WRCPU_BLOCK) {                                    \
                out[r] = wrcpu_blk_##sfx##_##op(in + r * cols, cols);            \
            } else {                                                             \
                union wrcpu_val v;                                               \
                wrcpu_reduce_tree(k, in + r * cols, cols, 0, &v);                \
                out[r] = v.sfx;                                                  \
            }                                                                    \
            if (WRCPU_CANON(T, OE)) wrcpu_canon(&out[r], sizeof(T));             \
        }                                                                        \
    }                                                                            \
    static void wrcpu_segs_##sfx##_##op(const struct wrcpu_red *k, const void *vin,  \
                                      void *vout, size_t s0, size_t s1,          \
                                      const size_t *off)                         \
    {                                                                            \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        size_t s;                                                                \
        for (s = s0; s < s1; s++) {                                              \
            size_t len = off[s + 1] - off[s];                                    \
            if (len == 0) {               /* in may be NULL: no arithmetic on it */ \
                out[s] = wr_ident_##op##_##sfx();                                \
            } else if (len <= WRCPU_BLOCK) {                                     \
                out[s] = wrcpu_blk_##sfx##_##op(in + off[s], len);               \
            } else {                                                             \
                union wrcpu_val v;                                               \
                wrcpu_reduce_tree(k, in + off[s], len, 0, &v);                   \
                out[s] = v.sfx;                                                  \
            }                                                                    \
            if (WRCPU_CANON(T, OE)) wrcpu_canon(&out[s], sizeof(T));             \
        }                                                                        \
    }
#define WRCPU_PAIR WRCPU_DEF_RED
WRCPU_PAIRS
#undef WRCPU_PAIR

#define WRCPU_RED_ENTRY(sfx, T, U, E, K, op, OE)                                   \
    [E][OE] = { sizeof(T), WRCPU_CANON(T, OE), wrcpu_ident_##sfx##_##op, wrcpu_comb_##sfx##_##op,        \
                wrcpu_block_##sfx##_##op, wrcpu_rows_##sfx##_##op, wrcpu_segs_##sfx##_##op },
static const struct wrcpu_red wrcpu_red_tab[WRCPU_NTYPES][WRCPU_NOPS] = {
#define WRCPU_PAIR WRCPU_RED_ENTRY
    WRCPU_PAIRS
#undef WRCPU_PAIR
};
#undef WRCPU_RED_ENTRY

const struct wrcpu_red *wrcpu_red_kernels(wr_type t, wr_op op)
{
    return &wrcpu_red_tab[t][op];
}

void wrcpu_store(const struct wrcpu_red *k, void *out, const union wrcpu_val *v)
{
    memcpy(out, v, k->size);
    if (k->canon) wrcpu_canon(out, k->size);
}

/*
 * Pairwise combination of a stream of partial results, left to right, in
 * O(log n) space: the binary-counter form of recursive halving.  After 2^j
 * pushes the stack holds one value, the combination of a perfect tree.
 */
struct wrcpu_tree {
    union wrcpu_val s[64];
    unsigned top;
    size_t count;
};

static void tree_push(const struct wrcpu_red *k, struct wrcpu_tree *t, union wrcpu_val v)
{
    size_t c;
    for (c = t->count; c & 1; c >>= 1) {
        k->combine(&t->s[t->top - 1], &v);
        v = t->s[--t->top];
    }
    t->s[t->top++] = v;
    t->count++;
}

/* The combination of everything pushed (at least one value). */
static union wrcpu_val tree_result(const struct wrcpu_red *k, struct wrcpu_tree *t)
{
    union wrcpu_val v = t->s[t->top - 1];
    unsigned i;
    for (i = t->top - 1; i-- > 0;) {
        k->combine(&t->s[i], &v);
        v = t->s[i];
    }
    return v;
}

/* Blocks [b0, b1) of x (n elements in all), combined pairwise. */
static union wrcpu_val reduce_blocks(const struct wrcpu_red *k, const char *x, size_t n, size_t b0, size_t b1)
{
    struct wrcpu_tree t;
    size_t b;
    t.top = 0;
    t.count = 0;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRCPU_BLOCK, len = n - i < WRCPU_BLOCK ? n - i : WRCPU_BLOCK;
        union wrcpu_val v;
        k->block(x + i * k->size, len, &v);
        tree_push(k, &t, v);
    }
    return tree_result(k, &t);
}

void wrcpu_reduce_tree(const struct wrcpu_red *k, const void *x, size_t n, int par, union wrcpu_val *v)
{
    union wrcpu_val part[WRCPU_CHUNKS_MAX];
    struct wrcpu_tree t;
    size_t nb = (n + WRCPU_BLOCK - 1) / WRCPU_BLOCK, cb = 1, nc, c;

    if (n <= WRCPU_BLOCK) {
        k->block(x, n, v);            /* the identity when n == 0 */
        return;
    }
    while ((nb + cb - 1) / cb > WRCPU_CHUNKS_MAX) cb *= 2;
    nc = (nb + cb - 1) / cb;
    if (par && n >= WRCPU_PAR_MIN && wrcpu_max_threads() > 1) {
        WRCPU_PRAGMA(omp parallel for schedule(static))
        for (c = 0; c < nc; c++)
            part[c] = reduce_blocks(k, (const char *)x, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb);
    } else {
        for (c = 0; c < nc; c++)
            part[c] = reduce_blocks(k, (const char *)x, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb);
    }
    t.top = 0;
    t.count = 0;
    for (c = 0; c < nc; c++) tree_push(k, &t, part[c]);
    *v = tree_result(k, &t);
}

wr_status wrcpu_reduce(const void *in, void *out, size_t count, wr_type type, wr_op op, char *err)
{
    const struct wrcpu_red *k = wrcpu_red_kernels(type, op);
    union wrcpu_val v;
    (void)err;
    wrcpu_reduce_tree(k, in, count, 1, &v);
    wrcpu_store(k, out, &v);
    return WR_SUCCESS;
}

/*
 * Rows: with enough rows for every thread, threads take rows whole; with
 * few long rows, each row is reduced by the whole team.  Both give the same
 * bits, the row's own tree.
 */
wr_status wrcpu_reduce_rows(const void *in, void *out, size_t rows, size_t cols, wr_type type, wr_op op,
                          char *err)
{
    const struct wrcpu_red *k = wrcpu_red_kernels(type, op);
    size_t nt = (size_t)wrcpu_max_threads();
    (void)err;

    if (nt == 1 || rows * cols < WRCPU_PAR_MIN) {
        k->rows(k, in, out, 0, rows, cols);
    } else if (rows >= 8 * nt || cols < WRCPU_PAR_MIN) {
        /* pieces of whole rows, a few per thread, each at least ~WRCPU_PAR_MIN/8 elements */
        size_t per = (WRCPU_PAR_MIN / 8 + cols - 1) / (cols ? cols : 1), np, p;
        if (per < 1) per = 1;
        if (per > (rows + 4 * nt - 1) / (4 * nt)) per = (rows + 4 * nt - 1) / (4 * nt);
        np = (rows + per - 1) / per;
        WRCPU_PRAGMA(omp parallel for schedule(dynamic, 1))
        for (p = 0; p < np; p++)
            k->rows(k, in, out, p * per, p + 1 == np ? rows : (p + 1) * per, cols);
    } else {
        size_t r;
        for (r = 0; r < rows; r++) {
            union wrcpu_val v;
            wrcpu_reduce_tree(k, (const char *)in + r * cols * k->size, cols, 1, &v);
            wrcpu_store(k, (char *)out + r * k->size, &v);
        }
    }
    return WR_SUCCESS;
}

/* Segments at least this long are reduced by the whole team, after the
 * others have been shared out. */
#define WRCPU_SEG_LONG ((size_t)1 << 20)

wr_status wrcpu_reduce_segments(const void *in, void *out, size_t nsegments, const size_t *offsets,
                              wr_type type, wr_op op, char *err)
{
    const struct wrcpu_red *k = wrcpu_red_kernels(type, op);
    size_t total = offsets[nsegments] - offsets[0];
    (void)err;

    if (wrcpu_max_threads() == 1 || (total < WRCPU_PAR_MIN && nsegments < WRCPU_PAR_MIN / 16)) {
        k->segments(k, in, out, 0, nsegments, offsets);
    } else {
        /* groups of 64 segments, handed out dynamically; a long segment in a
         * group is left for afterwards */
        size_t ng = (nsegments + 63) / 64, g, nlong = 0, s;
        WRCPU_PRAGMA(omp parallel for schedule(dynamic, 1) reduction(+:nlong))
        for (g = 0; g < ng; g++) {
            size_t s0 = g * 64, s1 = s0 + 64 < nsegments ? s0 + 64 : nsegments, a = s0, j;
            for (j = s0; j < s1; j++)
                if (offsets[j + 1] - offsets[j] >= WRCPU_SEG_LONG) {
                    k->segments(k, in, out, a, j, offsets);
                    a = j + 1;
                    nlong++;
                }
            k->segments(k, in, out, a, s1, offsets);
        }
        for (s = 0; nlong > 0 && s < nsegments; s++)
            if (offsets[s + 1] - offsets[s] >= WRCPU_SEG_LONG) {
                union wrcpu_val v;
                wrcpu_reduce_tree(k, (const char *)in + offsets[s] * k->size, offsets[s + 1] - offsets[s], 1, &v);
                wrcpu_store(k, (char *)out + s * k->size, &v);
                nlong--;
            }
    }
    return WR_SUCCESS;
}

WRCPU_TARGET_END

/*
 * cpu_dot.c -- dot products and norms on the host: wr_dot, wr_dot_rows,
 * wr_nrm2, wr_asum, wr_argmax_abs, fast and reproducible (their exact
 * partials too), one entry, wrcpu_blas, for every operation id of the
 * family.  Compiled once per instruction-set variant (cpu_isa.h): the
 * reproducible forms need an FMA to split products, which x86-64-v3 and v4
 * have in hardware.
 *
 * Fast forms: the reductions' fixed tree (cpu_reduce.c): leaf blocks of
 * WRCPU_BLOCK elements summed by 16 double lanes, blocks combined pairwise
 * inside chunks of a power of two of blocks (at most WRCPU_CHUNKS_MAX
 * chunks, the size chosen from the count alone), chunks combined pairwise;
 * threads take whole chunks.  So a result is a fixed function of the type
 * and the count, whatever the number of threads, and every lane is a chain
 * of at most 256 additions: the error bounds of warpred.h hold with room to
 * spare.  Float data is summed in double (products and squares of floats
 * are exact doubles), then rounded once to float.  The norm keeps Blue's
 * three accumulators per lane (J. L. Blue, "A portable Fortran program to
 * find the Euclidean norm of a vector", ACM TOMS 4, 1978; LAPACK 3.10's
 * dnrm2): squares of elements above 2^480 scaled by 2^-1200, below 2^-480
 * by 2^1200, so nothing overflows or underflows before the end.
 *
 * Reproducible forms: the exact sum of lib/wr_exact.h, as cpu_exact.c does
 * it: 8 lanes of a verified front end run optimistically over blocks of
 * XBLOCK elements in vector registers, a block with an addition that was
 * not exact is done again element by element, sending what the lanes
 * cannot take exactly to an accumulator.  A dot product's lane holds (h,
 * l1, l2): h += hi by TwoSum, its error to l1 and the product's lo (the
 * FMA's) to l2, both additions verified; a norm's lane takes squares the
 * same way, and the elements outside [2^-485, 2^512) go to the two scaled
 * accumulators of lib/wr_exact_norm.h.  The value is always lanes +
 * accumulators, exactly, so any split among threads gives the same bits.
 * Without a hardware FMA (the baseline variant) the products are split by
 * Dekker's algorithm where that is exact, and by fma() from libm otherwise,
 * so every variant splits into the same hi and lo.
 *
 * wr_argmax_abs is exact: blocks cut as above, the first index of the
 * largest magnitude (or of the first NaN) per block, merged in index order.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "wr_exact.h"
#include "wr_exact_norm.h"
#include "wr_blue.h"

#if defined(__AVX512F__) || defined(__FMA__) || defined(__AVX2__) || defined(__SSE2__)
#  include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
/* the 64-byte lane vectors are passed between inline helpers only */
#  pragma GCC diagnostic ignored "-Wpsabi"
#endif

WRCPU_TARGET_BEGIN                 /* this variant's instruction set, to the end */

#if defined(__FMA__) || defined(__AVX512F__) || defined(__aarch64__)
#  define XFMA_HW 1                /* fma() is one instruction */
#else
#  define XFMA_HW 0
#endif

/* ---- fast forms: blocks and the fixed tree ---------------------------------------- */

#define FL 16                      /* double lanes of a fast block */

/* A block's (or a subtree's) partial result: dot and asum use v[0]; the
 * norm v[0..2], Blue's small, medium and big sums. */
struct fpart { double v[3]; };

typedef void (*fblock_fn)(const void *x, const void *y, size_t n, struct fpart *r);

#define FOLD(acc)                                                               \
    do {                                                                        \
        int h_, l_;                                                             \
        WRCPU_UNROLL for (h_ = FL / 2; h_ > 0; h_ /= 2) {                      \
            WRCPU_UNROLL for (l_ = 0; l_ < h_; l_++) acc[l_] += acc[l_ + h_];   \
        }                                                                       \
    } while (0)

/* Dot product of one block, lanes of double; -0 starts a lane (the neutral
 * element of IEEE addition, so that products that are all -0 give -0). */
#define DEF_FDOT(sfx, T)                                                         \
    static void fdot_##sfx(const void *vx, const void *vy, size_t n, struct fpart *r) \
    {                                                                            \
        const T *x = (const T *)vx, *y = (const T *)vy;                          \
        double acc[FL];                                                          \
        size_t i;                                                                \
        int l;                                                                   \
        WRCPU_UNROLL for (l = 0; l < FL; l++) acc[l] = -0.0;                     \
        for (i = 0; i + FL <= n; i += FL) {                                      \
            WRCPU_UNROLL for (l = 0; l < FL; l++)                                \
                acc[l] += (double)x[i + l] * (double)y[i + l];                   \
        }                                                                        \
        for (l = 0; i < n; i++, l++) acc[l] += (double)x[i] * (double)y[i];      \
        FOLD(acc);                                                               \
        r->v[0] = acc[0];                                                        \
    }
DEF_FDOT(f32, float)
DEF_FDOT(f64, double)

#define DEF_FASUM(sfx, T)                                                        \
    static void fasum_##sfx(const void *vx, const void *vy, size_t n, struct fpart *r) \
    {                                                                            \
        const T *x = (const T *)vx;                                              \
        double acc[FL];                                                          \
        size_t i;                                                                \
        int l;                                                                   \
        (void)vy;                                                                \
        WRCPU_UNROLL for (l = 0; l < FL; l++) acc[l] = 0.0;                      \
        for (i = 0; i + FL <= n; i += FL) {                                      \
            WRCPU_UNROLL for (l = 0; l < FL; l++) acc[l] += fabs((double)x[i + l]); \
        }                                                                        \
        for (l = 0; i < n; i++, l++) acc[l] += fabs((double)x[i]);               \
        FOLD(acc);                                                               \
        r->v[0] = acc[0];                                                        \
    }
DEF_FASUM(f32, float)
DEF_FASUM(f64, double)

/* Float norm: squares of floats are exact doubles, and their sum cannot
 * overflow or underflow in double. */
static void fnrm2_f32(const void *vx, const void *vy, size_t n, struct fpart *r)
{
    const float *x = (const float *)vx;
    double acc[FL];
    size_t i;
    int l;
    (void)vy;
    WRCPU_UNROLL for (l = 0; l < FL; l++) acc[l] = 0.0;
    for (i = 0; i + FL <= n; i += FL) {
        WRCPU_UNROLL for (l = 0; l < FL; l++) acc[l] += (double)x[i + l] * (double)x[i + l];
    }
    for (l = 0; i < n; i++, l++) acc[l] += (double)x[i] * (double)x[i];
    FOLD(acc);
    r->v[0] = 0;
    r->v[1] = acc[0];
    r->v[2] = 0;
}

/* Blue's thresholds and scalings (lib/wr_blue.h) */
#define B_TSML WR_BLUE_TSML
#define B_TBIG WR_BLUE_TBIG
#define B_SSML WR_BLUE_SSML
#define B_SBIG WR_BLUE_SBIG

/* Double norm: per lane, squares of the big elements scaled down, of the
 * small ones scaled up, of the others (NaNs included) as they are. */
static void fnrm2_f64(const void *vx, const void *vy, size_t n, struct fpart *r)
{
    const double *x = (const double *)vx;
    double as[FL], am[FL], ab[FL];
    size_t i;
    int l;
    (void)vy;
    WRCPU_UNROLL for (l = 0; l < FL; l++) as[l] = am[l] = ab[l] = 0.0;
    for (i = 0; i + FL <= n; i += FL) {
        WRCPU_UNROLL for (l = 0; l < FL; l++) {
            const double v = x[i + l], a = fabs(v), s = v * B_SSML, b = v * B_SBIG;
            const int big = a > B_TBIG, sml = a < B_TSML;
            ab[l] += big ? b * b : 0.0;
            as[l] += sml ? s * s : 0.0;
            am[l] += (big | sml) ? 0.0 : v * v;
        }
    }
    for (l = 0; i < n; i++, l++) {
        const double v = x[i], a = fabs(v), s = v * B_SSML, b = v * B_SBIG;
        const int big = a > B_TBIG, sml = a < B_TSML;
        ab[l] += big ? b * b : 0.0;
        as[l] += sml ? s * s : 0.0;
        am[l] += (big | sml) ? 0.0 : v * v;
    }
    FOLD(as);
    FOLD(am);
    FOLD(ab);
    r->v[0] = as[0];
    r->v[1] = am[0];
    r->v[2] = ab[0];
}

/* The norm from Blue's three sums (lib/wr_blue.h). */
static double blue_finish(const struct fpart *p)
{
    return wr_blue_finish(p->v[0], p->v[1], p->v[2]);
}

static void fpart_add(struct fpart *a, const struct fpart *b)
{
    a->v[0] += b->v[0];
    a->v[1] += b->v[1];
    a->v[2] += b->v[2];
}

/* The binary-counter pairwise tree of cpu_reduce.c, over fparts. */
struct ftree {
    struct fpart s[64];
    unsigned top;
    size_t count;
};

static void ftree_push(struct ftree *t, struct fpart v)
{
    size_t c;
    for (c = t->count; c & 1; c >>= 1) {
        fpart_add(&t->s[t->top - 1], &v);
        v = t->s[--t->top];
    }
    t->s[t->top++] = v;
    t->count++;
}

static struct fpart ftree_result(struct ftree *t)
{
    struct fpart v = t->s[t->top - 1];
    unsigned i;
    for (i = t->top - 1; i-- > 0;) {
        fpart_add(&t->s[i], &v);
        v = t->s[i];
    }
    return v;
}

static struct fpart fblocks(fblock_fn blk, const char *x, const char *y, size_t es, size_t n, size_t b0,
                            size_t b1)
{
    struct ftree t;
    size_t b;
    t.top = 0;
    t.count = 0;
    for (b = b0; b < b1; b++) {
        const size_t i = b * WRCPU_BLOCK, len = n - i < WRCPU_BLOCK ? n - i : WRCPU_BLOCK;
        struct fpart v;
        blk(x + i * es, y ? y + i * es : NULL, len, &v);
        ftree_push(&t, v);
    }
    return ftree_result(&t);
}

/* The fixed tree over n >= 1 elements, with a team of threads when par. */
static struct fpart ftree_run(fblock_fn blk, const void *x, const void *y, size_t es, size_t n, int par)
{
    struct fpart part[WRCPU_CHUNKS_MAX], r;
    struct ftree t;
    size_t nb = (n + WRCPU_BLOCK - 1) / WRCPU_BLOCK, cb = 1, nc, c;
    if (n <= WRCPU_BLOCK) {
        blk(x, y, n, &r);
        return r;
    }
    while ((nb + cb - 1) / cb > WRCPU_CHUNKS_MAX) cb *= 2;
    nc = (nb + cb - 1) / cb;
    if (par && n >= WRCPU_PAR_MIN && wrcpu_max_threads() > 1) {
        WRCPU_PRAGMA(omp parallel for schedule(static))
        for (c = 0; c < nc; c++)
            part[c] = fblocks(blk, (const char *)x, (const char *)y, es, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb);
    } else {
        for (c = 0; c < nc; c++)
            part[c] = fblocks(blk, (const char *)x, (const char *)y, es, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb);
    }
    t.top = 0;
    t.count = 0;
    for (c = 0; c < nc; c++) ftree_push(&t, part[c]);
    return ftree_result(&t);
}

/* Store a double result as type t: one rounding to float; NaNs canonical. */
static void store(void *out, wr_type t, double v)
{
    if (t == WR_FLOAT) {
        const float f = (float)v;
        memcpy(out, &f, sizeof f);
        wrcpu_canon(out, 4);
    } else {
        memcpy(out, &v, sizeof v);
        wrcpu_canon(out, 8);
    }
}

static fblock_fn fast_block(enum wr_opid id, wr_type t)
{
    const int d = t == WR_DOUBLE;
    switch (id) {
    case WR_OPID_NRM2: return d ? fnrm2_f64 : fnrm2_f32;
    case WR_OPID_ASUM: return d ? fasum_f64 : fasum_f32;
    default: return d ? fdot_f64 : fdot_f32;
    }
}

/* The fast result of one vector (a row of dot_rows: par == 0). */
static void fast_one(enum wr_opid id, wr_type t, const void *x, const void *y, size_t n, int par, void *out)
{
    const size_t es = t == WR_DOUBLE ? 8 : 4;
    struct fpart p;
    if (n == 0) {
        store(out, t, 0.0);
        return;
    }
    p = ftree_run(fast_block(id, t), x, y, es, n, par);
    if (id == WR_OPID_NRM2) store(out, t, t == WR_DOUBLE ? blue_finish(&p) : sqrt(p.v[1]));
    else store(out, t, p.v[0]);
}

/* ---- argmax_abs ------------------------------------------------------------------- */

/* The first index in x[0..n) of the largest magnitude, or of the first NaN. */
#define DEF_IAMAX(sfx, T)                                                        \
    static size_t iamax_blk_##sfx(const T *x, size_t n)                         \
    {                                                                            \
        T m[FL], mx;                                                             \
        int nan = 0, l;                                                          \
        size_t i;                                                                \
        for (l = 0; l < FL; l++) m[l] = 0;                                       \
        for (i = 0; i + FL <= n; i += FL) {                                      \
            for (l = 0; l < FL; l++) {                                           \
                const T a = (T)fabs((double)x[i + l]);                           \
                nan |= x[i + l] != x[i + l];                                     \
                m[l] = a > m[l] ? a : m[l];                                      \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            const T a = (T)fabs((double)x[i]);                                   \
            nan |= x[i] != x[i];                                                 \
            m[0] = a > m[0] ? a : m[0];                                          \
        }                                                                        \
        if (nan) {                                                               \
            for (i = 0; i < n; i++)                                              \
                if (x[i] != x[i]) return i;                                      \
        }                                                                        \
        mx = m[0];                                                               \
        for (l = 1; l < FL; l++) mx = m[l] > mx ? m[l] : mx;                     \
        for (i = 0; i < n; i++)                                                  \
            if ((T)fabs((double)x[i]) == mx) return i;                           \
        return 0;                                                                \
    }                                                                            \
    /* 1 if x[j] (the later index) replaces x[b] */                             \
    static int iamax_better_##sfx(const T *x, size_t b, size_t j)                \
    {                                                                            \
        if (x[b] != x[b]) return 0;                                              \
        if (x[j] != x[j]) return 1;                                              \
        return fabs((double)x[j]) > fabs((double)x[b]);                          \
    }                                                                            \
    static size_t iamax_blocks_##sfx(const T *x, size_t n, size_t b0, size_t b1) \
    {                                                                            \
        size_t best = b0 * WRCPU_BLOCK, b;                                       \
        for (b = b0; b < b1; b++) {                                              \
            const size_t i = b * WRCPU_BLOCK, len = n - i < WRCPU_BLOCK ? n - i : WRCPU_BLOCK; \
            const size_t j = i + iamax_blk_##sfx(x + i, len);                    \
            if (b == b0 || iamax_better_##sfx(x, best, j)) best = j;             \
        }                                                                        \
        return best;                                                             \
    }                                                                            \
    static size_t iamax_##sfx(const T *x, size_t n)                              \
    {                                                                            \
        size_t part[WRCPU_CHUNKS_MAX];                                           \
        size_t nb = (n + WRCPU_BLOCK - 1) / WRCPU_BLOCK, cb = 1, nc, c, best;    \
        while ((nb + cb - 1) / cb > WRCPU_CHUNKS_MAX) cb *= 2;                   \
        nc = (nb + cb - 1) / cb;                                                 \
        if (n >= WRCPU_PAR_MIN && wrcpu_max_threads() > 1) {                     \
            WRCPU_PRAGMA(omp parallel for schedule(static))                      \
            for (c = 0; c < nc; c++)                                             \
                part[c] = iamax_blocks_##sfx(x, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb); \
        } else {                                                                 \
            for (c = 0; c < nc; c++)                                             \
                part[c] = iamax_blocks_##sfx(x, n, c * cb, c + 1 == nc ? nb : (c + 1) * cb); \
        }                                                                        \
        best = part[0];                                                          \
        for (c = 1; c < nc; c++)                                                 \
            if (iamax_better_##sfx(x, best, part[c])) best = part[c];            \
        return best;                                                             \
    }
DEF_IAMAX(f32, float)
DEF_IAMAX(f64, double)

/* ---- reproducible forms: the exact front end ------------------------------------- */

#define XL 8                       /* lanes */
#define XBLOCK 512                 /* elements of one optimistic pass (a multiple of XL) */
#define XCHUNK ((size_t)1 << 16)   /* elements a thread takes at a time */

/* What a reproducible pass sums. */
enum xkind { XK_DOT, XK_ASUM, XK_NRM2 };

/* Eight-lane vectors whatever the ISA variant: below AVX-512 the compilers
 * warn that passing them by value has another ABI there (-Wpsabi), which
 * does not matter to these static functions, inlined within this file. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double xv __attribute__((vector_size(XL * 8)));
typedef int64_t xvi __attribute__((vector_size(XL * 8)));
typedef float xvf __attribute__((vector_size(XL * 4)));

static inline xv xload(const double *p)
{
    xv v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline xv xload_f32(const float *p)
{
    xvf f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, xv);
}

static inline xv xsplat(double d)
{
    xv v;
    int l;
    for (l = 0; l < XL; l++) v[l] = d;
    return v;
}

/* |v|: the sign bits cleared. */
static inline xv xabs(xv v)
{
    return (xv)((xvi)v & ~(xvi)xsplat(-0.0));
}

static inline void xstore(double *p, xv v)
{
    memcpy(p, &v, sizeof v);
}

/* lo = a b - hi exactly where that is a double (hi = fl(a b)); what an FMA
 * gives.  Dekker's product without an FMA: the caller checks that it is
 * exact (no split overflows, the error does not underflow). */
static inline xv xfms(xv a, xv b, xv hi)
{
#if defined(__AVX512F__)
    return (xv)_mm512_fmsub_pd((__m512d)a, (__m512d)b, (__m512d)hi);
#elif defined(__FMA__)
    xv r;
    __m256d r0 = _mm256_fmsub_pd(_mm256_loadu_pd((const double *)&a), _mm256_loadu_pd((const double *)&b),
                                 _mm256_loadu_pd((const double *)&hi));
    __m256d r1 = _mm256_fmsub_pd(_mm256_loadu_pd((const double *)&a + 4), _mm256_loadu_pd((const double *)&b + 4),
                                 _mm256_loadu_pd((const double *)&hi + 4));
    _mm256_storeu_pd((double *)&r, r0);
    _mm256_storeu_pd((double *)&r + 4, r1);
    return r;
#else
    const xv c = xsplat(134217729.0);          /* 2^27 + 1: Veltkamp's split */
    const xv ca = c * a, cb = c * b;
    const xv ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
    return ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
#endif
}

/* Nonzero if any lane has a bit beyond the sign. */
static inline int xbad(xvi b)
{
    int64_t r = 0;
    int l;
    for (l = 0; l < XL; l++) r |= b[l];
    return (r & INT64_MAX) != 0;
}

/* The exact sum in progress: lanes (h, l1) for the terms -- h their IEEE
 * sum by TwoSum, l1 its rounding errors -- and (m, l2) for the products'
 * lo parts the same way; and, made when first needed, the accumulators
 * (part 1 is the sum itself; parts 0 and 2 the norm's scaled ones). */
struct xst {
    double h[XL], l1[XL], m[XL], l2[XL];
    int used[3];
    wrx_acc acc[3];
};

static void xst_init(struct xst *s)
{
    int l;
    for (l = 0; l < XL; l++) {
        s->h[l] = -0.0;            /* IEEE addition's neutral element: a zero sum keeps its sign */
        s->l1[l] = 0.0;
        s->m[l] = 0.0;
        s->l2[l] = 0.0;
    }
    s->used[0] = s->used[1] = s->used[2] = 0;
}

static wrx_acc *xacc(struct xst *s, int p)
{
    if (!s->used[p]) {
        wrx_init(&s->acc[p]);
        s->used[p] = 1;
    }
    return &s->acc[p];
}

/* The lanes' low parts (values, no flags) into the accumulator, and the
 * lanes emptied of them: room again for the errors to come. */
static void xst_drain(struct xst *s)
{
    wrx_acc *a = xacc(s, 1);
    int l;
    for (l = 0; l < XL; l++) {
        wrx_add_value(a, s->l1[l]);
        wrx_add_value(a, s->m[l]);
        wrx_add_value(a, s->l2[l]);
        s->l1[l] = s->m[l] = s->l2[l] = 0.0;
    }
}

/* A term hi (an element, for its flags) and its error lo, to lane j, else
 * to the accumulator. */
static inline void xterm(struct xst *s, int j, double hi, double lo)
{
    if (hi - hi != 0) {                        /* +-inf or NaN: only its flags matter */
        wrx_add(xacc(s, 1), hi);
        return;
    }
    if (!wrx_pair_add(&s->h[j], &s->l1[j], hi)) wrx_add(xacc(s, 1), hi);
    if (lo != 0 && !wrx_pair_add(&s->m[j], &s->l2[j], lo)) wrx_add_value(xacc(s, 1), lo);
}

/* hi and lo of a b, the FMA's (libm's fma() when it is not an instruction). */
static inline void xprod(double a, double b, double *hi, double *lo)
{
    const double p = a * b;
    *hi = p;
    *lo = p - p == 0 ? fma(a, b, -p) : 0;
}

/* Element by element: every term verified, the rest to the accumulators. */
#define DEF_CAREFUL(sfx, T)                                                      \
    static void careful_##sfx(enum xkind k, const T *x, const T *y, size_t n, struct xst *s) \
    {                                                                            \
        size_t i;                                                                \
        for (i = 0; i < n; i++) {                                                \
            const int j = (int)(i % XL);                                         \
            double hi, lo = 0;                                                   \
            if (k == XK_ASUM) {                                                  \
                hi = fabs((double)x[i]);                                         \
            } else if (sizeof(T) == 4) {   /* float products and squares are exact doubles */ \
                hi = (double)x[i] * (double)(k == XK_DOT ? y[i] : x[i]);         \
            } else if (k == XK_DOT) {                                            \
                xprod((double)x[i], (double)y[i], &hi, &lo);                     \
            } else {                                                             \
                const int p = wrx_norm_part((double)x[i]);                       \
                const double v = wrx_norm_scaled((double)x[i], p);               \
                xprod(v, v, &hi, &lo);                                           \
                if (p != 1) {                                                    \
                    wrx_add(xacc(s, p), hi);                                     \
                    wrx_add_value(xacc(s, p), lo);                               \
                    continue;                                                    \
                }                                                                \
            }                                                                    \
            xterm(s, j, hi, lo);                                                 \
        }                                                                        \
    }
DEF_CAREFUL(f32, float)
DEF_CAREFUL(f64, double)

/* One verified TwoSum step of a lane pair: (H, L) += p, bad |= inexact. */
#define XPAIR_ADD(H, L, p, bad)                                                  \
    do {                                                                         \
        const xv sm_ = H + (p), bb_ = sm_ - H;                                   \
        const xv t_ = (H - (sm_ - bb_)) + ((p) - bb_), u_ = L + t_;              \
        bad |= (xvi)((u_ - L) - t_) | (xvi)((u_ - t_) - L);                      \
        H = sm_;                                                                 \
        L = u_;                                                                  \
    } while (0)

/*
 * The optimistic pass over n (a multiple of XL) elements: returns nonzero
 * when an addition was not exact, or a term needs more than the lanes (an
 * infinity, a NaN, a norm's element outside part 1, and without an FMA a
 * product Dekker's split cannot make exact); the lanes are then
 * meaningless and the caller restores them.
 */
#define TINY_PROD 0x1p-960         /* products at least this large have an exact error */
#define DEKKER_MAX 0x1p995         /* factors below this split without overflow */
static int fast_f64(enum xkind k, const double *x, const double *y, size_t n, struct xst *s)
{
    xv H = xload(s->h), L1 = xload(s->l1), M = xload(s->m), L2 = xload(s->l2);
    xvi bad = { 0 };
    const xv zero = xsplat(0.0);
    size_t i;
    if (k == XK_ASUM) {
        for (i = 0; i < n; i += XL) {
            const xv p = xabs(xload(x + i));
            XPAIR_ADD(H, L1, p, bad);
        }
    } else {
        for (i = 0; i < n; i += XL) {
            const xv a = xload(x + i), b = k == XK_DOT ? xload(y + i) : a;
            const xv p = a * b, e = xfms(a, b, p);
            if (k == XK_NRM2) {
                /* part 1 only: 2^-485 <= |a| < 2^512, or a zero */
                const xv aa = xabs(a);
                bad |= (xvi)((aa < xsplat(0x1p-485)) & (aa != zero)) | (xvi)(aa >= xsplat(0x1p512));
            } else if (!XFMA_HW) {
                bad |= (xvi)((xabs(p) < xsplat(TINY_PROD)) & (a != zero) & (b != zero)) |
                       (xvi)(xabs(a) >= xsplat(DEKKER_MAX)) | (xvi)(xabs(b) >= xsplat(DEKKER_MAX));
            }
            XPAIR_ADD(H, L1, p, bad);
            XPAIR_ADD(M, L2, e, bad);
        }
    }
    xstore(s->h, H);
    xstore(s->l1, L1);
    xstore(s->m, M);
    xstore(s->l2, L2);
    return xbad(bad);
}

/* Float data: products and squares exact in double, so no lo parts. */
static int fast_f32(enum xkind k, const float *x, const float *y, size_t n, struct xst *s)
{
    xv H = xload(s->h), L1 = xload(s->l1);
    xvi bad = { 0 };
    size_t i;
    for (i = 0; i < n; i += XL) {
        const xv a = xload_f32(x + i);
        const xv p = k == XK_ASUM ? xabs(a) : a * (k == XK_DOT ? xload_f32(y + i) : a);
        XPAIR_ADD(H, L1, p, bad);
    }
    xstore(s->h, H);
    xstore(s->l1, L1);
    return xbad(bad);
}

static int fast_any(enum xkind k, wr_type t, const char *x, const char *y, size_t n, struct xst *s)
{
    if (t == WR_DOUBLE) return fast_f64(k, (const double *)x, (const double *)y, n, s);
    return fast_f32(k, (const float *)x, (const float *)y, n, s);
}

/* Add the n elements at x (and y) to s.  A block that fails is tried again
 * once with the lanes' low parts drained to the accumulator (they fill up
 * over long runs), then element by element. */
static void xspan(enum xkind k, wr_type t, const void *vx, const void *vy, size_t n, struct xst *s)
{
    const size_t es = t == WR_DOUBLE ? 8 : 4;
    const char *x = (const char *)vx, *y = (const char *)vy;
    size_t i = 0;
    while (n - i >= XL) {
        size_t len = (n - i) / XL * XL;
        const char *xb = x + i * es, *yb = y ? y + i * es : NULL;
        double sh[XL], s1[XL], sm[XL], s2[XL];
        if (len > XBLOCK) len = XBLOCK;
        memcpy(sh, s->h, sizeof sh);
        memcpy(s1, s->l1, sizeof s1);
        memcpy(sm, s->m, sizeof sm);
        memcpy(s2, s->l2, sizeof s2);
        if (fast_any(k, t, xb, yb, len, s)) {
            memcpy(s->h, sh, sizeof sh);
            memcpy(s->l1, s1, sizeof s1);
            memcpy(s->m, sm, sizeof sm);
            memcpy(s->l2, s2, sizeof s2);
            xst_drain(s);
            memcpy(s1, s->l1, sizeof s1);
            memcpy(sm, s->m, sizeof sm);
            memcpy(s2, s->l2, sizeof s2);
            if (fast_any(k, t, xb, yb, len, s)) {
                memcpy(s->h, sh, sizeof sh);
                memcpy(s->l1, s1, sizeof s1);
                memcpy(s->m, sm, sizeof sm);
                memcpy(s->l2, s2, sizeof s2);
                if (t == WR_DOUBLE) careful_f64(k, (const double *)xb, (const double *)yb, len, s);
                else careful_f32(k, (const float *)xb, (const float *)yb, len, s);
            }
        }
        i += len;
    }
    if (t == WR_DOUBLE)
        careful_f64(k, (const double *)(x + i * es), y ? (const double *)(y + i * es) : NULL, n - i, s);
    else
        careful_f32(k, (const float *)(x + i * es), y ? (const float *)(y + i * es) : NULL, n - i, s);
}

/* Everything of s into its accumulators (part 1 made even when empty): h
 * is the IEEE sum of its terms (an element: the sign of a zero sum), the
 * rest values. */
static void xst_flush(struct xst *s)
{
    wrx_acc *a = xacc(s, 1);
    int l;
    xst_drain(s);
    for (l = 0; l < XL; l++) wrx_add(a, s->h[l]);
}

static void store_bits(void *out, wr_type t, uint64_t b)
{
    if (t == WR_DOUBLE) memcpy(out, &b, 8);
    else {
        const uint32_t b32 = (uint32_t)b;
        memcpy(out, &b32, 4);
    }
}

/* The correctly rounded sum of s (dot, asum) as type t at out: from the
 * lanes alone when they fold into one exact pair, else from the
 * accumulator. */
static void xst_round(struct xst *s, wr_type t, void *out)
{
    double h = s->h[0], l = s->l1[0];
    int j, ok = !s->used[1];
    for (j = 1; j < XL && ok; j++) ok = wrx_pair_merge(&h, &l, s->h[j], s->l1[j]);
    for (j = 0; j < XL && ok; j++) {
        /* (values: h keeps its own zero sign, which a zero here does not change) */
        if (s->m[j] != 0) ok = wrx_pair_add(&h, &l, s->m[j]);
        if (ok && s->l2[j] != 0) ok = wrx_pair_add(&h, &l, s->l2[j]);
    }
    if (ok) {
        store_bits(out, t, wrx_pair_round_bits(h, l, t == WR_DOUBLE));
        return;
    }
    xst_flush(s);
    store_bits(out, t, wrx_round_bits(&s->acc[1], t == WR_DOUBLE));
}

/* The exact sums of x[0..n) (y) into acc[0..2], initialised here: the
 * threads of a team each take chunks of XCHUNK, then merge (exact, in any
 * order). */
static void xsum_par(enum xkind k, wr_type t, const void *x, const void *y, size_t n, int par, wrx_acc acc[3])
{
    const size_t es = t == WR_DOUBLE ? 8 : 4, nc = (n + XCHUNK - 1) / XCHUNK;
    int p;
    for (p = 0; p < 3; p++) wrx_init(&acc[p]);
    if (!par || n < WRCPU_PAR_MIN || wrcpu_max_threads() == 1) {
        struct xst s;
        xst_init(&s);
        xspan(k, t, x, y, n, &s);
        xst_flush(&s);
        for (p = 0; p < 3; p++)
            if (s.used[p]) wrx_merge(&acc[p], &s.acc[p]);
        return;
    }
    WRCPU_PRAGMA(omp parallel)
    {
        struct xst s;
        size_t c;
        int q;
        xst_init(&s);
        WRCPU_PRAGMA(omp for schedule(static))
        for (c = 0; c < nc; c++) {
            const size_t b = c * XCHUNK, len = n - b < XCHUNK ? n - b : XCHUNK;
            xspan(k, t, (const char *)x + b * es, y ? (const char *)y + b * es : NULL, len, &s);
        }
        xst_flush(&s);
        WRCPU_PRAGMA(omp critical(wrcpu_dot_merge))
        for (q = 0; q < 3; q++)
            if (s.used[q]) wrx_merge(&acc[q], &s.acc[q]);
    }
}

/* The reproducible result of one vector; one thread when !par (a row). */
static void exact_one(enum xkind k, wr_type t, const void *x, const void *y, size_t n, int par, void *out)
{
    wrx_acc acc[3];
    if (n == 0) {
        store_bits(out, t, 0);                 /* +0 */
        return;
    }
    if (!par || n < WRCPU_PAR_MIN || wrcpu_max_threads() == 1) {
        struct xst s;
        xst_init(&s);
        xspan(k, t, x, y, n, &s);
        if (k != XK_NRM2) {
            xst_round(&s, t, out);
            return;
        }
        xst_flush(&s);
        for (int p = 0; p < 3; p++)
            if (s.used[p]) acc[p] = s.acc[p];
            else wrx_init(&acc[p]);
    } else {
        xsum_par(k, t, x, y, n, 1, acc);
    }
    if (k == XK_NRM2) store_bits(out, t, wrx_norm_round_bits(acc, t == WR_DOUBLE));
    else store_bits(out, t, wrx_round_bits(&acc[1], t == WR_DOUBLE));
}

/* ---- rows ---------------------------------------------------------------------------- */

/* Rows [r0, r1), each by the calling thread. */
static void rows_part(int exact, wr_type t, const char *x, const char *y, char *out, size_t r0, size_t r1,
                      size_t cols)
{
    const size_t es = t == WR_DOUBLE ? 8 : 4;
    size_t r;
    for (r = r0; r < r1; r++) {
        const char *xr = cols ? x + r * cols * es : NULL, *yr = cols ? y + r * cols * es : NULL;
        if (exact) exact_one(XK_DOT, t, xr, yr, cols, 0, out + r * es);
        else fast_one(WR_OPID_DOT, t, xr, yr, cols, 0, out + r * es);
    }
}

/* As the reductions share rows: whole rows to threads when there are
 * enough, else each long row by the whole team; both give each row's own
 * bits. */
static void dot_rows(int exact, wr_type t, const void *x, const void *y, void *out, size_t rows, size_t cols)
{
    const size_t es = t == WR_DOUBLE ? 8 : 4, nt = (size_t)wrcpu_max_threads();
    if (nt == 1 || rows * cols < WRCPU_PAR_MIN) {
        rows_part(exact, t, (const char *)x, (const char *)y, (char *)out, 0, rows, cols);
    } else if (rows >= 8 * nt || cols < WRCPU_PAR_MIN) {
        size_t per = (WRCPU_PAR_MIN / 8 + cols - 1) / (cols ? cols : 1), np, p;
        if (per < 1) per = 1;
        if (per > (rows + 4 * nt - 1) / (4 * nt)) per = (rows + 4 * nt - 1) / (4 * nt);
        np = (rows + per - 1) / per;
        WRCPU_PRAGMA(omp parallel for schedule(dynamic, 1))
        for (p = 0; p < np; p++)
            rows_part(exact, t, (const char *)x, (const char *)y, (char *)out, p * per,
                      p + 1 == np ? rows : (p + 1) * per, cols);
    } else {
        size_t r;
        for (r = 0; r < rows; r++) {
            const char *xr = (const char *)x + r * cols * es, *yr = (const char *)y + r * cols * es;
            if (exact) exact_one(XK_DOT, t, xr, yr, cols, 1, (char *)out + r * es);
            else fast_one(WR_OPID_DOT, t, xr, yr, cols, 1, (char *)out + r * es);
        }
    }
}

/* ---- the entry ------------------------------------------------------------------------ */

wr_status wrcpu_blas(const struct wr_call *c, char *err)
{
    const wr_type t = c->type;
    (void)err;
    switch (c->id) {
    case WR_OPID_DOT:
    case WR_OPID_NRM2:
    case WR_OPID_ASUM:
        fast_one(c->id, t, c->in, c->in2, c->count, 1, c->out);
        return WR_SUCCESS;
    case WR_OPID_DOTROWS:
        dot_rows(0, t, c->in, c->in2, c->out, c->count, c->cols);
        return WR_SUCCESS;
    case WR_OPID_XDOTROWS:
        dot_rows(1, t, c->in, c->in2, c->out, c->count, c->cols);
        return WR_SUCCESS;
    case WR_OPID_IAMAX: {
        const size_t i = t == WR_DOUBLE ? iamax_f64((const double *)c->in, c->count)
                                        : iamax_f32((const float *)c->in, c->count);
        const size_t es = t == WR_DOUBLE ? 8 : 4;
        *c->index = i;
        if (c->out != NULL) memcpy(c->out, (const char *)c->in + i * es, es);
        return WR_SUCCESS;
    }
    case WR_OPID_XDOT:
    case WR_OPID_XASUM:
    case WR_OPID_XNRM2: {
        const enum xkind k = c->id == WR_OPID_XDOT ? XK_DOT : c->id == WR_OPID_XASUM ? XK_ASUM : XK_NRM2;
        if (c->acc == NULL) {
            exact_one(k, t, c->in, k == XK_DOT ? c->in2 : NULL, c->count, 1, c->out);
        } else {
            /* an exact partial: the unrounded sum into *acc (for the norm,
             * the part c->cols) */
            wrx_acc acc[3];
            xsum_par(k, t, c->in, k == XK_DOT ? c->in2 : NULL, c->count, 1, acc);
            memcpy(c->acc, &acc[k == XK_NRM2 ? (c->cols < 3 ? c->cols : 1) : 1], sizeof(wrx_acc));
        }
        return WR_SUCCESS;
    }
    default:
        snprintf(err, WR_ERRLEN, "operation %d is not a dot product or norm", (int)c->id);
        return WR_ERR_UNSUPPORTED;
    }
}

WRCPU_TARGET_END

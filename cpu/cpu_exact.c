/*
 * cpu_exact.c -- reproducible float/double SUM on the host: the exact sum,
 * rounded once (lib/wr_exact.h says why that makes every backend agree).
 *
 * Front end (ExBLAS's idea, Collange, Defour, Graillat and Iakymchuk 2015):
 * XLANES independent lanes, each a double running sum h (float data) or a
 * pair (h, l) (double data: h by TwoSum, its rounding errors into l).  The
 * lanes run optimistically over blocks of XBLOCK elements in vector
 * registers, recording whether every addition was exact (wrx_add_exact's
 * test, as bit patterns: fl(fl(s - a) - b) and fl(fl(s - b) - a) are both
 * zero exactly when s == a + b); a block with an inexact addition is done
 * again from the lanes' saved state, element by element, sending each
 * element that cannot be added exactly to the accumulator (wrx_acc).  So
 * the exact sum is always lanes + accumulator, whatever the data.  For
 * float data a lane is inexact only when an element is below ~2^-29 of the
 * lane's running sum (uniform [0,1) floats: about one block in 10^4); for
 * double data when l cannot hold the errors exactly (a spread of more than
 * ~100 binades), or on overflow, infinities and NaNs.
 *
 * Results: a reduction adds the lanes to the accumulator, merges the
 * threads' accumulators (integer additions: any split, any order) and
 * rounds once (wrx_round_*).  A row or segment first tries to combine its
 * lanes by verified additions, and when that and everything before it was
 * exact, rounds the exact double (float data: one conversion) or the exact
 * pair (double data: one addition) directly; otherwise it takes the
 * accumulator's rounding.  Both are the correct rounding of the same value.
 *
 * Threads may split the work any way: nothing here depends on the split.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "cpu_exact.h"

#define XLANES 8          /* lanes of a front end */
#define XBLOCK 512        /* elements of one optimistic pass (a multiple of XLANES) */
#define XCHUNK ((size_t)1 << 16)   /* elements a thread takes at a time */

/* ---- vector lanes ------------------------------------------------------------- */

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__aarch64__))
#  define XVEC 1
#  if defined(__AVX512F__)
#    define XVB 64
#  elif defined(__AVX__)
#    define XVB 32
#  else
#    define XVB 16
#  endif
#  define XW (XVB / 8)                 /* doubles a vector */
#  define XNV (XLANES / XW)           /* vectors of lanes */
typedef double xvd __attribute__((vector_size(XVB)));
typedef int64_t xvi __attribute__((vector_size(XVB)));
typedef float xvf __attribute__((vector_size(XVB / 2)));
#  if defined(__SSE2__) && !defined(__AVX__)
#    include <emmintrin.h>
#  endif

/* XW floats from p as doubles. */
static inline xvd xv_load_f32(const float *p)
{
#  if defined(__SSE2__) && !defined(__AVX__)
    double two;                         /* the 8 bytes of two floats (memcpy: no aliasing) */
    memcpy(&two, p, sizeof two);
    return (xvd)_mm_cvtps_pd(_mm_castpd_ps(_mm_set_sd(two)));
#  else
    xvf f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, xvd);
#  endif
}

/* Nonzero if any lane of the OR of error patterns has a bit beyond the
 * sign: an inexact (or non-finite) addition. */
static inline int xv_bad(xvi b)
{
    int64_t r = 0;
    int k;
    for (k = 0; k < XW; k++) r |= b[k];
    return (r & INT64_MAX) != 0;
}

/* Float data: h[XLANES] += x[0..n) lane-wise (n a multiple of XLANES).
 * Returns nonzero if an addition was not exact (h is then meaningless). */
static int fast_f32(const float *x, size_t n, double *h)
{
    xvd a[XNV];
    xvi bad[XNV];
    size_t i;
    int v;
    WRCPU_UNROLL for (v = 0; v < XNV; v++) {
        memcpy(&a[v], h + v * XW, sizeof a[v]);
        memset(&bad[v], 0, sizeof bad[v]);
    }
    for (i = 0; i < n; i += XLANES) {
        WRCPU_UNROLL for (v = 0; v < XNV; v++) {
            const xvd xd = xv_load_f32(x + i + (size_t)v * XW), s = a[v] + xd;
            bad[v] |= (xvi)((s - a[v]) - xd) | (xvi)((s - xd) - a[v]);
            a[v] = s;
        }
    }
    WRCPU_UNROLL for (v = 1; v < XNV; v++) bad[0] |= bad[v];
    WRCPU_UNROLL for (v = 0; v < XNV; v++) memcpy(h + v * XW, &a[v], sizeof a[v]);
    return xv_bad(bad[0]);
}

/* Double data: (h, l)[XLANES] += x[0..n) lane-wise, h by TwoSum and its
 * error into l.  Returns nonzero if an addition to l was not exact. */
static int fast_f64(const double *x, size_t n, double *h, double *l)
{
    xvd H[XNV], L[XNV];
    xvi bad[XNV];
    size_t i;
    int v;
    WRCPU_UNROLL for (v = 0; v < XNV; v++) {
        memcpy(&H[v], h + v * XW, sizeof H[v]);
        memcpy(&L[v], l + v * XW, sizeof L[v]);
        memset(&bad[v], 0, sizeof bad[v]);
    }
    for (i = 0; i < n; i += XLANES) {
        WRCPU_UNROLL for (v = 0; v < XNV; v++) {
            xvd xv, s, bb, e, t;
            memcpy(&xv, x + i + (size_t)v * XW, sizeof xv);
            s = H[v] + xv;
            bb = s - H[v];
            e = (H[v] - (s - bb)) + (xv - bb);
            t = L[v] + e;
            bad[v] |= (xvi)((t - L[v]) - e) | (xvi)((t - e) - L[v]);
            H[v] = s;
            L[v] = t;
        }
    }
    WRCPU_UNROLL for (v = 1; v < XNV; v++) bad[0] |= bad[v];
    WRCPU_UNROLL for (v = 0; v < XNV; v++) {
        memcpy(h + v * XW, &H[v], sizeof H[v]);
        memcpy(l + v * XW, &L[v], sizeof L[v]);
    }
    return xv_bad(bad[0]);
}

#else /* no vector extensions: the same, lane by lane */

static int fast_f32(const float *x, size_t n, double *h)
{
    size_t i;
    int j, bad = 0;
    for (i = 0; i < n; i += XLANES)
        for (j = 0; j < XLANES; j++) bad |= !wrx_front_f32(&h[j], x[i + j]);
    return bad;
}

static int fast_f64(const double *x, size_t n, double *h, double *l)
{
    size_t i;
    int j, bad = 0;
    for (i = 0; i < n; i += XLANES)
        for (j = 0; j < XLANES; j++) bad |= !wrx_front_f64(&h[j], &l[j], x[i + j]);
    return bad;
}

#endif

/* ---- spans: lanes + accumulator ------------------------------------------------- */

/* The state of one exact sum in progress.  acc is made only when an element
 * first needs it (a row's sum usually never does). */
struct xsum {
    double h[XLANES], l[XLANES];
    int used;                 /* acc holds something */
    wrx_acc acc;
};

static void xsum_init(struct xsum *s)
{
    int j;
    for (j = 0; j < XLANES; j++) {
        s->h[j] = -0.0;       /* the neutral element of IEEE addition: a zero sum keeps its sign */
        s->l[j] = -0.0;
    }
    s->used = 0;
}

static void xsum_slow(struct xsum *s, double x)
{
    if (!s->used) {
        wrx_init(&s->acc);
        s->used = 1;
    }
    wrx_add(&s->acc, x);
}

/* Element by element: every addition verified, the others to acc. */
static void careful_f32(const float *x, size_t n, struct xsum *s)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const int j = (int)(i % XLANES);
        double h = s->h[j];
        if (wrx_front_f32(&h, x[i])) s->h[j] = h;
        else xsum_slow(s, x[i]);
    }
}

static void careful_f64(const double *x, size_t n, struct xsum *s)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const int j = (int)(i % XLANES);
        if (!wrx_pair_add(&s->h[j], &s->l[j], x[i])) xsum_slow(s, x[i]);
    }
}

/* Add x[0..n) to s: optimistic blocks, each done again carefully when one
 * of its additions was not exact; the tail (< XLANES) carefully. */
static void span_f32(const float *x, size_t n, struct xsum *s)
{
    size_t i = 0;
    while (n - i >= XLANES) {
        size_t len = (n - i) / XLANES * XLANES;
        double save[XLANES];
        if (len > XBLOCK) len = XBLOCK;
        memcpy(save, s->h, sizeof save);
        if (fast_f32(x + i, len, s->h)) {
            memcpy(s->h, save, sizeof save);
            careful_f32(x + i, len, s);
        }
        i += len;
    }
    careful_f32(x + i, n - i, s);
}

static void span_f64(const double *x, size_t n, struct xsum *s)
{
    size_t i = 0;
    while (n - i >= XLANES) {
        size_t len = (n - i) / XLANES * XLANES;
        double sh[XLANES], sl[XLANES];
        if (len > XBLOCK) len = XBLOCK;
        memcpy(sh, s->h, sizeof sh);
        memcpy(sl, s->l, sizeof sl);
        if (fast_f64(x + i, len, s->h, s->l)) {
            memcpy(s->h, sh, sizeof sh);
            memcpy(s->l, sl, sizeof sl);
            careful_f64(x + i, len, s);
        }
        i += len;
    }
    careful_f64(x + i, n - i, s);
}

static void span(const void *x, size_t n, wr_type t, struct xsum *s)
{
    if (t == WR_FLOAT) span_f32((const float *)x, n, s);
    else span_f64((const double *)x, n, s);
}

/* Everything of s into its accumulator: each lane's h is the IEEE sum of
 * its elements (an element, for the sign of a zero sum), l a value. */
static void xsum_flush(struct xsum *s)
{
    int j;
    if (!s->used) {
        wrx_init(&s->acc);
        s->used = 1;
    }
    for (j = 0; j < XLANES; j++) wrx_add_pair(&s->acc, s->h[j], s->l[j]);
}

/* The correctly rounded sum of s, stored at out (type t). */
static void xsum_round(struct xsum *s, wr_type t, void *out)
{
    int j, ok = !s->used;
    if (t == WR_FLOAT) {
        double h = s->h[0];
        for (j = 1; j < XLANES && ok; j++) ok = wrx_add_exact(h, s->h[j], &h);
        if (ok) {
            const float f = (float)h;        /* h is exact: one rounding */
            memcpy(out, &f, sizeof f);
            return;
        }
        xsum_flush(s);
        {
            const float f = wrx_round_f32(&s->acc);
            memcpy(out, &f, sizeof f);
        }
    } else {
        double h = s->h[0], l = s->l[0];
        for (j = 1; j < XLANES && ok; j++) ok = wrx_pair_merge(&h, &l, s->h[j], s->l[j]);
        if (ok) {
            const double d = wrx_pair_round_f64(h, l);
            memcpy(out, &d, sizeof d);
            return;
        }
        xsum_flush(s);
        {
            const double d = wrx_round_f64(&s->acc);
            memcpy(out, &d, sizeof d);
        }
    }
}

/* ---- the operations ------------------------------------------------------------ */

void wrcpu_exact_sum(const void *in, size_t count, wr_type t, int par, wrx_acc *out)
{
    const size_t es = t == WR_FLOAT ? 4 : 8;
    const size_t nc = (count + XCHUNK - 1) / XCHUNK;
    wrx_init(out);
    if (!par || count < WRCPU_PAR_MIN || wrcpu_max_threads() == 1) {
        struct xsum s;
        xsum_init(&s);
        span(in, count, t, &s);
        xsum_flush(&s);
        wrx_merge(out, &s.acc);
        return;
    }
    WRCPU_PRAGMA(omp parallel)
    {
        struct xsum s;
        size_t c;
        xsum_init(&s);
        WRCPU_PRAGMA(omp for schedule(static))
        for (c = 0; c < nc; c++) {
            const size_t b = c * XCHUNK, len = count - b < XCHUNK ? count - b : XCHUNK;
            span((const char *)in + b * es, len, t, &s);
        }
        xsum_flush(&s);
        /* integer additions: the order the threads come in does not matter */
        WRCPU_PRAGMA(omp critical(wrcpu_exact_merge))
        wrx_merge(out, &s.acc);
    }
}

/* out = the correctly rounded sum of x[0..n), n >= 1, by this thread. */
static void exact_one(const void *x, size_t n, wr_type t, void *out)
{
    struct xsum s;
    xsum_init(&s);
    span(x, n, t, &s);
    xsum_round(&s, t, out);
}

/* A sum that the whole team makes (long rows and segments). */
static void exact_par(const void *x, size_t n, wr_type t, void *out)
{
    wrx_acc a;
    wrcpu_exact_sum(x, n, t, 1, &a);
    if (t == WR_FLOAT) {
        const float f = wrx_round_f32(&a);
        memcpy(out, &f, sizeof f);
    } else {
        const double d = wrx_round_f64(&a);
        memcpy(out, &d, sizeof d);
    }
}

static void store_zero(void *out, wr_type t)
{
    memset(out, 0, t == WR_FLOAT ? 4 : 8);    /* +0: the sum of no elements */
}

wr_status wrcpu_exact_reduce(const void *in, void *out, size_t count, wr_type t)
{
    if (count == 0) store_zero(out, t);
    else exact_par(in, count, t, out);
    return WR_SUCCESS;
}

/* Rows [r0, r1), each by this thread. */
static void rows_part(const char *in, char *out, size_t r0, size_t r1, size_t cols, wr_type t, size_t es)
{
    size_t r;
    for (r = r0; r < r1; r++) {
        if (cols == 0) store_zero(out + r * es, t);     /* in may be NULL */
        else exact_one(in + r * cols * es, cols, t, out + r * es);
    }
}

wr_status wrcpu_exact_rows(const void *in, void *out, size_t rows, size_t cols, wr_type t)
{
    const size_t es = t == WR_FLOAT ? 4 : 8, nt = (size_t)wrcpu_max_threads();
    if (nt == 1 || rows * cols < WRCPU_PAR_MIN) {
        rows_part((const char *)in, (char *)out, 0, rows, cols, t, es);
    } else if (rows >= 8 * nt || cols < WRCPU_PAR_MIN) {
        /* pieces of whole rows, a few per thread (as the fast path shares them) */
        size_t per = (WRCPU_PAR_MIN / 8 + cols - 1) / (cols ? cols : 1), np, p;
        if (per < 1) per = 1;
        if (per > (rows + 4 * nt - 1) / (4 * nt)) per = (rows + 4 * nt - 1) / (4 * nt);
        np = (rows + per - 1) / per;
        WRCPU_PRAGMA(omp parallel for schedule(dynamic, 1))
        for (p = 0; p < np; p++)
            rows_part((const char *)in, (char *)out, p * per, p + 1 == np ? rows : (p + 1) * per, cols, t, es);
    } else {
        size_t r;
        for (r = 0; r < rows; r++) exact_par((const char *)in + r * cols * es, cols, t, (char *)out + r * es);
    }
    return WR_SUCCESS;
}

/* Segments at least this long are summed by the whole team, after the others. */
#define XSEG_LONG ((size_t)1 << 20)

wr_status wrcpu_exact_segments(const void *in, void *out, size_t nseg, const size_t *off, wr_type t)
{
    const size_t es = t == WR_FLOAT ? 4 : 8, total = off[nseg] - off[0];
    const char *x = (const char *)in;
    char *o = (char *)out;
    size_t s;
    if (wrcpu_max_threads() == 1 || (total < WRCPU_PAR_MIN && nseg < WRCPU_PAR_MIN / 16)) {
        for (s = 0; s < nseg; s++) {
            const size_t len = off[s + 1] - off[s];
            if (len == 0) store_zero(o + s * es, t);       /* in may be NULL */
            else exact_one(x + off[s] * es, len, t, o + s * es);
        }
        return WR_SUCCESS;
    }
    {
        const size_t ng = (nseg + 63) / 64;
        size_t g;
        WRCPU_PRAGMA(omp parallel for schedule(dynamic, 1))
        for (g = 0; g < ng; g++) {
            const size_t s1 = (g + 1) * 64 < nseg ? (g + 1) * 64 : nseg;
            size_t j;
            for (j = g * 64; j < s1; j++) {
                const size_t len = off[j + 1] - off[j];
                if (len == 0) store_zero(o + j * es, t);
                else if (len < XSEG_LONG) exact_one(x + off[j] * es, len, t, o + j * es);
            }
        }
    }
    for (s = 0; s < nseg; s++)
        if (off[s + 1] - off[s] >= XSEG_LONG) exact_par(x + off[s] * es, off[s + 1] - off[s], t, o + s * es);
    return WR_SUCCESS;
}

/* ---- scans ---------------------------------------------------------------------- */

/*
 * A reproducible scan (wr_exact.h, struct wrx_scan): pieces, one a thread,
 * each summed exactly (the spans above), an exclusive prefix of the pieces'
 * accumulators, then every piece scanned element by element from its prefix
 * with the pair of the front end in registers.  Every output is the exact
 * prefix rounded once, so the cut into pieces changes nothing in the bits.
 * An element is read before its output is written: in == out works.
 */
/* The pair and the mode back from s after a slow call (it may seed again). */
#define SCAN_RELOAD()                                                                             \
    do {                                                                                          \
        h = s->h;                                                                                 \
        l = s->l;                                                                                 \
        front = s->mode == WRX_SCAN_FRONT;                                                        \
        quick = front && s->rb == 0;                                                              \
    } while (0)

#define SCAN_PIECE(NAME, T, IS_D)                                                                  \
    static void NAME(const T *x, T *o, size_t n, struct wrx_scan *s, int excl)                    \
    {                                                                                             \
        double h = s->h, l = s->l;                                                                \
        int front = s->mode == WRX_SCAN_FRONT, quick = front && s->rb == 0;                       \
        size_t i;                                                                                 \
        for (i = 0; i < n; i++) {                                                                 \
            const double xi = (double)x[i];                                                       \
            uint64_t before = 0, bits;                                                            \
            if (excl) {                                                                           \
                if (quick) before = wrx_pair_round_bits(h, l, IS_D);                              \
                else {                                                                            \
                    s->h = h;                                                                     \
                    s->l = l;                                                                     \
                    before = wrx_scan_bits_slow(s);                                               \
                    SCAN_RELOAD();                                                                \
                }                                                                                 \
            }                                                                                     \
            if (!(front && wrx_pair_add(&h, &l, xi))) {                                           \
                s->h = h;                                                                         \
                s->l = l;                                                                         \
                wrx_scan_add_slow(s, xi);                                                         \
                SCAN_RELOAD();                                                                    \
            }                                                                                     \
            if (excl) bits = before;                                                              \
            else if (quick) bits = wrx_pair_round_bits(h, l, IS_D);                               \
            else {                                                                                \
                s->h = h;                                                                         \
                s->l = l;                                                                         \
                bits = wrx_scan_bits_slow(s);                                                     \
                SCAN_RELOAD();                                                                    \
            }                                                                                     \
            {                                                                                     \
                const T v = IS_D ? (T)wrx_from_bits(bits) : (T)wrx_from_bits32((uint32_t)bits);  \
                o[i] = v;                                                                         \
            }                                                                                     \
        }                                                                                         \
        s->h = h;                                                                                 \
        s->l = l;                                                                                 \
        if (excl && n > 0 && s->empty) o[0] = (T)0;   /* +0: the sum of no elements */            \
    }
SCAN_PIECE(scan_piece_f32, float, 0)
SCAN_PIECE(scan_piece_f64, double, 1)

/* Scan x[0..n) into o from the exclusive prefix pre (NULL: nothing before). */
static void scan_piece(const void *x, void *o, size_t n, wr_type t, int excl, const wrx_acc *pre)
{
    struct wrx_scan s;
    wrx_scan_init(&s, pre, t == WR_DOUBLE);
    if (t == WR_FLOAT) scan_piece_f32((const float *)x, (float *)o, n, &s, excl);
    else scan_piece_f64((const double *)x, (double *)o, n, &s, excl);
}

wr_status wrcpu_exact_scan(const void *in, void *out, size_t count, wr_type t, int exclusive,
                           const wrx_acc *carry, char *err)
{
    const size_t es = t == WR_FLOAT ? 4 : 8;
    const size_t nt = (size_t)wrcpu_max_threads();
    wrx_acc *part;
    if (nt == 1 || count < WRCPU_PAR_MIN) {
        scan_piece(in, out, count, t, exclusive, carry);
        return WR_SUCCESS;
    }
    part = (wrx_acc *)malloc(nt * sizeof *part);
    if (part == NULL) {
        snprintf(err, WR_ERRLEN, "no memory for %zu exact sums of a reproducible scan", nt);
        return WR_ERR_NO_MEMORY;
    }
    WRCPU_PRAGMA(omp parallel num_threads((int)nt))
    {
        size_t me = 0, np = 1, b, e, j;
        wrx_acc pre;
#ifdef _OPENMP
        me = (size_t)omp_get_thread_num();
        np = (size_t)omp_get_num_threads();
#endif
        b = count / np * me + (me < count % np ? me : count % np);
        e = b + count / np + (me < count % np);
        {
            struct xsum s;
            xsum_init(&s);
            span((const char *)in + b * es, e - b, t, &s);
            xsum_flush(&s);
            part[me] = s.acc;
        }
        WRCPU_PRAGMA(omp barrier)
        if (carry) pre = *carry;
        else wrx_init(&pre);
        for (j = 0; j < me; j++) wrx_merge(&pre, &part[j]);
        /* in == out: every piece has been read for its sum before any is written */
        scan_piece((const char *)in + b * es, (char *)out + b * es, e - b, t, exclusive, &pre);
    }
    free(part);
    return WR_SUCCESS;
}

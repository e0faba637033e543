/*
 * omp_dot.c -- dot products and norms as OpenMP target regions: wr_dot,
 * wr_dot_rows, wr_nrm2, wr_asum, fast and reproducible (their exact
 * partials too), one entry, wro_blas, for every operation id of the family
 * but argmax_abs (omp_arg.c).
 *
 * Fast forms, the reduction's two passes (omp_reduce.c) over double terms:
 *   pass 1  `target teams distribute parallel for simd` over G lane slots,
 *           tile t (L*K elements, K as a reduce of n elements takes) has L
 *           lanes, lane l folds the terms of elements t*L*K + l + j*L, j <
 *           K, by 8 named double accumulators (WRO_DEF_FOLD8): x[i] y[i],
 *           |x[i]| or x[i]^2, float data in double (its products and
 *           squares are exact there); the norm of doubles keeps Blue's
 *           three sums (lib/wr_blue.h, as cpu/), three partials a slot;
 *   pass 2  each partial array reduced as a double SUM (wro_reduce_dev),
 *           and the host finishes: the norm's root, one rounding to float.
 * Staged host arrays are cut on whole tiles (wro_each_chunk2, both inputs
 * alike), so every kind of buffer gives the bits of a device-resident call.
 * Rows: one lane a row up to WRO_ROW_LANE columns, RL lanes a row and a
 * fold of their partials up to WRO_ROW_MID, longer rows one dot each.
 *
 * Reproducible forms: the exact value of lib/wr_exact.h, with the split of
 * omp_exact.c and cpu/'s terms: every product x y is split by an FMA into
 * hi = fl(x y) and lo = x y - hi (float data: lo = 0), a norm's element
 * of doubles is squared in its part of lib/wr_exact_norm.h (scaled by
 * 2^-+608 outside [2^-485, 2^512)).  A lane (simd) keeps two pairs of the
 * verified front end, hi terms and lo terms, in named scalars, and marks
 * itself bad on an addition it could not verify or an element outside the
 * norm's part 1; a group of lanes (no simd: its accumulators live on the
 * soft stack) merges the pairs, or the bad lanes' terms one by one, into
 * accumulators (three for the norm); one thread merges the groups' into a
 * total, and the host rounds it (wrx_round_bits, wrx_norm_round_bits): the
 * cpu's and cuda's bits.  A row of dot_rows is one group: its lanes' pairs
 * are merged and rounded straight away when every addition verifies (one
 * IEEE rounding of an exact pair), else its accumulator is rounded.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_xkern.h"
#include "wr_blue.h"

#pragma omp declare target
#include "wr_exact_norm.h"
#pragma omp end declare target

/* What a call sums. */
enum { WRO_KDOT, WRO_KASUM, WRO_KNRM2 };

/* ---- fast terms ------------------------------------------------------------------ */

#pragma omp declare target
/* Blue's three terms of a double (cpu/cpu_dot.c's fnrm2_f64): a NaN is
 * neither small nor big, so it reaches the medium sum. */
static inline double wro_blue_sml(double v)
{
    const double s = v * WR_BLUE_SSML;
    return fabs(v) < WR_BLUE_TSML ? s * s : 0.0;
}
static inline double wro_blue_med(double v)
{
    const double a = fabs(v);
    return (a > WR_BLUE_TBIG || a < WR_BLUE_TSML) ? 0.0 : v * v;
}
static inline double wro_blue_big(double v)
{
    const double b = v * WR_BLUE_SBIG;
    return fabs(v) > WR_BLUE_TBIG ? b * b : 0.0;
}
#pragma omp end declare target

#define WRO_DADD(a, b) ((a) + (b))
#define WRO_TDOT(x, y, i) ((double)(x)[i] * (double)(y)[i])
#define WRO_TABS(x, y, i) fabs((double)(x)[i])
#define WRO_TSQ(x, y, i) ((double)(x)[i] * (double)(x)[i])
#define WRO_TSML(x, y, i) wro_blue_sml((double)(x)[i])
#define WRO_TMED(x, y, i) wro_blue_med((double)(x)[i])
#define WRO_TBIG(x, y, i) wro_blue_big((double)(x)[i])

/* ---- the kernels of one type ------------------------------------------------------ */

#define WRO_DEF_DOT(sfx, T, IS_F64)                                                       \
    _Pragma("omp declare target")                                                       \
    /* fast lane folds: dot products start from -0 (IEEE addition's neutral) */       \
    WRO_DEF_FOLD8(wro_fdot_##sfx, T, double, -0.0, WRO_DADD, WRO_TDOT)                  \
    WRO_DEF_FOLD8(wro_fabs_##sfx, T, double, 0.0, WRO_DADD, WRO_TABS)                   \
    WRO_DEF_FOLD8(wro_fsq_##sfx, T, double, 0.0, WRO_DADD, WRO_TSQ)                     \
    WRO_DEF_FOLD8(wro_fsml_##sfx, T, double, 0.0, WRO_DADD, WRO_TSML)                   \
    WRO_DEF_FOLD8(wro_fmed_##sfx, T, double, 0.0, WRO_DADD, WRO_TMED)                   \
    WRO_DEF_FOLD8(wro_fbig_##sfx, T, double, 0.0, WRO_DADD, WRO_TBIG)                   \
    /* term i of a reproducible pass: hi (added as an element: its flags) */        \
    /* and lo (a value; 0 for float data and asum); returns the norm's part */       \
    static inline int wro_xterm_##sfx(int kind, const T *x, const T *y, size_t i, double *hi, double *lo) \
    {                                                                                 \
        const double a = (double)x[i];                                               \
        double u = a, v = a, h, l = 0.0;                                              \
        int p = 1;                                                                    \
        if (kind == WRO_KASUM) {                                                      \
            *hi = fabs(a);                                                            \
            *lo = 0.0;                                                                \
            return 1;                                                                 \
        }                                                                             \
        if (kind == WRO_KDOT) v = (double)y[i];                                       \
        if (IS_F64 && kind == WRO_KNRM2) {                                            \
            p = wrx_norm_part(a);                                                     \
            u = v = wrx_norm_scaled(a, p);                                            \
        }                                                                             \
        /* fl(u v) as an fma with a -0 addend (the same value and zero sign): */      \
        /* PTX's plain mul.f64 may be fused into the addition that follows by    */   \
        /* the JIT, fma.rn never is */                                                \
        h = fma(u, v, -0.0);                                                          \
        if (IS_F64 && h - h == 0) l = fma(u, v, -h);                                  \
        *hi = h;                                                                      \
        *lo = l;                                                                      \
        return p;                                                                     \
    }                                                                                 \
    /* the front end over the terms first + j*stride, j < cnt: the pairs of  */     \
    /* hi and lo terms; *bad when an addition was not verified or a norm's   */     \
    /* element is outside part 1 (named scalars: it runs in simd lanes) */          \
    static inline void wro_xdfront_##sfx(int kind, const T *x, const T *y, size_t first, size_t stride, \
                                         size_t cnt, double *oh, double *ol, double *om, double *ol2, \
                                         int *obad)                                   \
    {                                                                                 \
        double H = -0.0, L = 0.0, M = 0.0, L2 = 0.0;                                  \
        int b = 0;                                                                    \
        for (size_t j = 0; j < cnt; j++) {                                            \
            double hi, lo;                                                            \
            b |= wro_xterm_##sfx(kind, x, y, first + j * stride, &hi, &lo) != 1;      \
            b |= !wrx_pair_add(&H, &L, hi);                                           \
            if (lo != 0) b |= !wrx_pair_add(&M, &L2, lo);                             \
        }                                                                             \
        *oh = H;                                                                      \
        *ol = L;                                                                      \
        *om = M;                                                                      \
        *ol2 = L2;                                                                    \
        *obad = b;                                                                    \
    }                                                                                 \
    /* the lanes g0 .. g0 + GL of a row, rounded straight from their pairs   */     \
    /* when every lane and every merge verifies (returns 1) */                       \
    static inline int wro_xdround_##sfx(const double *ph, const double *pl, const double *pm, \
                                        const double *pl2, const int *pbad, size_t g0, size_t GL, T *res) \
    {                                                                                 \
        double h = ph[g0], l = pl[g0];                                                \
        int ok = !pbad[g0];                                                           \
        uint64_t bits;                                                                \
        for (size_t g = g0 + 1; g < g0 + GL && ok; g++)                               \
            ok = !pbad[g] && wrx_pair_merge(&h, &l, ph[g], pl[g]);                    \
        for (size_t g = g0; g < g0 + GL && ok; g++) {                                 \
            if (pm[g] != 0) ok = wrx_pair_add(&h, &l, pm[g]);                         \
            if (ok && pl2[g] != 0) ok = wrx_pair_add(&h, &l, pl2[g]);                 \
        }                                                                             \
        if (!ok) return 0;                                                            \
        bits = wrx_pair_round_bits(h, l, IS_F64);                                     \
        if (IS_F64) *res = (T)wrx_from_bits(bits);                                    \
        else *res = (T)wrx_from_bits32((uint32_t)bits);                               \
        return 1;                                                                     \
    }                                                                                 \
    _Pragma("omp end declare target")                                                 \
    /* fast pass 1: p0[g] (the norm of doubles: Blue's three, p0 p1 p2) */           \
    static void wro_fp1_##sfx(int dev, int par, int kind, const void *vx, const void *vy, size_t n, size_t K, \
                              double *p0, double *p1, double *p2)                     \
    {                                                                                 \
        const T *x = (const T *)vx, *y = (const T *)vy;                               \
        const size_t tile = (size_t)WRO_L * K, G = (n + tile - 1) / tile * WRO_L;    \
        const int blue = IS_F64 && kind == WRO_KNRM2;                                 \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, p0, p1, p2))                                   \
        for (size_t g = 0; g < G; g++) {                                              \
            const size_t first = g / WRO_L * tile + g % WRO_L;                        \
            size_t k = first < n ? (n - first + WRO_L - 1) / WRO_L : 0;               \
            if (k > K) k = K;                                                         \
            if (kind == WRO_KDOT) {                                                   \
                p0[g] = wro_fdot_##sfx(x, y, first, WRO_L, k);                        \
            } else if (kind == WRO_KASUM) {                                           \
                p0[g] = wro_fabs_##sfx(x, y, first, WRO_L, k);                        \
            } else if (!blue) {                                                       \
                p0[g] = wro_fsq_##sfx(x, y, first, WRO_L, k);                         \
            } else {                                                                  \
                p0[g] = wro_fsml_##sfx(x, y, first, WRO_L, k);                        \
                p1[g] = wro_fmed_##sfx(x, y, first, WRO_L, k);                        \
                p2[g] = wro_fbig_##sfx(x, y, first, WRO_L, k);                        \
            }                                                                         \
        }                                                                             \
    }                                                                                 \
    /* fast rows of at most WRO_ROW_LANE columns (cols >= 1): one lane each */       \
    static void wro_frow1_##sfx(int dev, int par, const void *vx, const void *vy, size_t rows, size_t cols, \
                                void *vout)                                           \
    {                                                                                 \
        const T *x = (const T *)vx, *y = (const T *)vy;                               \
        T *out = (T *)vout;                                                           \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, out))                                          \
        for (size_t r = 0; r < rows; r++)                                             \
            out[r] = wro_canon_##sfx((T)wro_fdot_##sfx(x, y, r * cols, 1, cols));     \
    }                                                                                 \
    /* fast rows cut into RL lanes: part[r * RL + l] */                              \
    static void wro_frowp_##sfx(int dev, int par, const void *vx, const void *vy, size_t rows, size_t cols, \
                                size_t RL, double *part)                              \
    {                                                                                 \
        const T *x = (const T *)vx, *y = (const T *)vy;                               \
        const size_t G = rows * RL;                                                   \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, part))                                         \
        for (size_t g = 0; g < G; g++) {                                              \
            const size_t r = g / RL, l = g % RL;                                      \
            const size_t k = l < cols ? (cols - l + RL - 1) / RL : 0;                 \
            part[g] = wro_fdot_##sfx(x, y, r * cols + l, RL, k);                      \
        }                                                                             \
    }                                                                                 \
    static void wro_frowf_##sfx(int dev, int par, const double *part, size_t rows, size_t RL, void *vout) \
    {                                                                                 \
        T *out = (T *)vout;                                                           \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(part, out))                                          \
        for (size_t r = 0; r < rows; r++)                                             \
            out[r] = wro_canon_##sfx((T)wro_fold_f64_sum(part, r * RL, 1, RL));       \
    }                                                                                 \
    /* reproducible lanes: rows x RL slots, lane l of row r over the terms */       \
    /* r*cols + l + j*RL */                                                          \
    static void wro_xdlanes_##sfx(int dev, int par, int kind, const void *vx, const void *vy, size_t rows, \
                                  size_t cols, size_t RL, double *ph, double *pl, double *pm, double *pl2, \
                                  int *pbad)                                          \
    {                                                                                 \
        const T *x = (const T *)vx, *y = (const T *)vy;                               \
        const size_t G = rows * RL;                                                   \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) \
                   is_device_ptr(x, y, ph, pl, pm, pl2, pbad))                        \
        for (size_t g = 0; g < G; g++) {                                              \
            const size_t r = g / RL, l = g % RL;                                      \
            const size_t cnt = l < cols ? (cols - l + RL - 1) / RL : 0;               \
            wro_xdfront_##sfx(kind, x, y, r * cols + l, RL, cnt, &ph[g], &pl[g], &pm[g], &pl2[g], &pbad[g]); \
        }                                                                             \
    }                                                                                 \
    /* groups of GL lanes (GL divides RL): out != NULL: GL == RL, each row */         \
    /* rounded into out[r]; else the group's accumulators to accs[p*Q + q] */        \
    /* for the parts p (1; the norm's 0, 1, 2) */                                     \
    static void wro_xdgroups_##sfx(int dev, int par, int kind, const void *vx, const void *vy, size_t rows, \
                                   size_t cols, size_t RL, size_t GL, const double *ph, const double *pl, \
                                   const double *pm, const double *pl2, const int *pbad, wrx_acc *accs, \
                                   size_t Q, void *vout)                              \
    {                                                                                 \
        const T *x = (const T *)vx, *y = (const T *)vy;                               \
        T *out = (T *)vout;                                                           \
        const size_t NQ = rows * (RL / GL);                                           \
        /* (no simd: the accumulators are on the soft stack, the warp's on nvptx) */ \
        WRO_PRAGMA(omp target teams distribute parallel for if(parallel: par) device(dev) \
                   is_device_ptr(x, y, ph, pl, pm, pl2, pbad, accs, out))             \
        for (size_t q = 0; q < NQ; q++) {                                             \
            const size_t r = q / (RL / GL), g0 = r * RL + q % (RL / GL) * GL;         \
            wrx_acc a0, a1, a2;                                                       \
            if (out != NULL && wro_xdround_##sfx(ph, pl, pm, pl2, pbad, g0, GL, &out[r])) continue; \
            wrx_init(&a0);                                                            \
            wrx_init(&a1);                                                            \
            wrx_init(&a2);                                                            \
            /* part 1 holds the lanes' sums, -0 at least (as cpu/ flushes its */     \
            /* lanes): the sign of an exact partial of the norm's part 1 */           \
            wrx_add(&a1, -0.0);                                                       \
            for (size_t g = g0; g < g0 + GL; g++) {                                   \
                const size_t l = g % RL, cnt = l < cols ? (cols - l + RL - 1) / RL : 0; \
                if (cnt == 0) continue;                                               \
                if (!pbad[g]) {                                                       \
                    wrx_add(&a1, ph[g]);                                              \
                    wrx_add_value(&a1, pl[g]);                                        \
                    wrx_add_value(&a1, pm[g]);                                        \
                    wrx_add_value(&a1, pl2[g]);                                       \
                    continue;                                                         \
                }                                                                     \
                for (size_t j = 0; j < cnt; j++) {                                    \
                    double hi, lo;                                                    \
                    const int p = wro_xterm_##sfx(kind, x, y, r * cols + l + j * RL, &hi, &lo); \
                    wrx_acc *a = p == 0 ? &a0 : p == 2 ? &a2 : &a1;                   \
                    wrx_add(a, hi);                                                   \
                    wrx_add_value(a, lo);                                             \
                }                                                                     \
            }                                                                         \
            if (out != NULL) {                                                        \
                out[r] = IS_F64 ? (T)wrx_round_f64(&a1) : (T)wrx_round_f32(&a1);      \
            } else {                                                                  \
                accs[Q + q] = a1;                                                     \
                if (kind == WRO_KNRM2) {                                              \
                    accs[q] = a0;                                                     \
                    accs[2 * Q + q] = a2;                                             \
                }                                                                     \
            }                                                                         \
        }                                                                             \
    }
WRO_DEF_DOT(f32, float, 0)
WRO_DEF_DOT(f64, double, 1)
#undef WRO_DEF_DOT

/* One thread: total[p] (init: from nothing) += accs[p*Q .. p*Q + Q) for
 * the parts p (parts3: 0, 1, 2; else 1). */
static void wro_xdtotal(int dev, const wrx_acc *accs, size_t Q, int parts3, wrx_acc *total, int init)
{
#pragma omp target device(dev) is_device_ptr(accs, total)
    for (int p = 0; p < 3; p++) {
        if (p != 1 && !parts3) continue;
        if (init) wrx_init(&total[p]);
        for (size_t i = 0; i < Q; i++) wrx_merge(&total[p], &accs[p * Q + i]);
    }
}

/* The kernels of a type. */
struct wro_dotk {
    size_t size;
    void (*fp1)(int dev, int par, int kind, const void *x, const void *y, size_t n, size_t K, double *p0, double *p1,
                double *p2);
    void (*frow1)(int dev, int par, const void *x, const void *y, size_t rows, size_t cols, void *out);
    void (*frowp)(int dev, int par, const void *x, const void *y, size_t rows, size_t cols, size_t RL, double *part);
    void (*frowf)(int dev, int par, const double *part, size_t rows, size_t RL, void *out);
    void (*xlanes)(int dev, int par, int kind, const void *x, const void *y, size_t rows, size_t cols, size_t RL,
                   double *ph, double *pl, double *pm, double *pl2, int *pbad);
    void (*xgroups)(int dev, int par, int kind, const void *x, const void *y, size_t rows, size_t cols, size_t RL,
                    size_t GL, const double *ph, const double *pl, const double *pm, const double *pl2,
                    const int *pbad, wrx_acc *accs, size_t Q, void *out);
};
#define WRO_DOTK(sfx, T)                                                                          \
    { sizeof(T), wro_fp1_##sfx, wro_frow1_##sfx, wro_frowp_##sfx, wro_frowf_##sfx, wro_xdlanes_##sfx, \
      wro_xdgroups_##sfx }
static const struct wro_dotk wro_dotk_f32 = WRO_DOTK(f32, float), wro_dotk_f64 = WRO_DOTK(f64, double);
#undef WRO_DOTK

static const struct wro_dotk *dotk(wr_type t)
{
    return t == WR_DOUBLE ? &wro_dotk_f64 : &wro_dotk_f32;
}

/* ---- the arrays of a call ------------------------------------------------------- */

/* What one vector (or one long row) of a call reads. */
struct vec {
    struct wro_state *st;
    const struct wro_dotk *k;
    wr_type t;
    int kind;
    struct wro_buf x, y;           /* y.p NULL: no second input */
    size_t n;
};

static const struct wro_buf *second(const struct vec *v)
{
    return v->y.p != NULL ? &v->y : NULL;
}

static int nparts(const struct vec *v)
{
    return v->kind == WRO_KNRM2 && v->t == WR_DOUBLE ? 3 : 1;
}

static wr_status scratch_small(char *err)
{
    snprintf(err, WR_ERRLEN, "internal error: scratch too small");
    return WR_ERR_NO_MEMORY;
}

/* ---- fast: one vector ----------------------------------------------------------------- */

/* Elements a pass-1 lane folds: a reduce's K, at least WRO_KMIN. */
static size_t fast_k(size_t n)
{
    const size_t K = wro_plan_k(n);
    return K ? K : WRO_KMIN;
}

static struct wro_plan fast_plan(const struct vec *v)
{
    const struct wro_plan p = { v->n, v->k->size, 0, WRO_L * fast_k(v->n), 0 };
    return p;
}

static size_t fast_scratch(const struct vec *v)
{
    const struct wro_plan p = fast_plan(v);
    const size_t G = wro_plan_g(v->n, fast_k(v->n));
    return 3 * WRO_SCRATCH_SIZE(G * sizeof(double)) + WRO_SCRATCH_SIZE(3 * sizeof(double)) +
           wro_reduce_dev_scratch(v->st, G, WR_DOUBLE) + wro_plan_scratch2(v->st, &p, &v->x, second(v), NULL);
}

struct fast_arg {
    const struct vec *v;
    size_t K;
    int par;
    double *part[3];
};

static wr_status fast_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct fast_arg *a = va;
    const size_t g0 = c->off / (WRO_L * a->K) * WRO_L;
    (void)err;
    a->v->k->fp1(a->v->st->dev, a->par, a->v->kind, c->in, c->in2, c->len, a->K, a->part[0] + g0,
                 a->part[1] ? a->part[1] + g0 : NULL, a->part[2] ? a->part[2] + g0 : NULL);
    return WR_SUCCESS;
}

/* The fast result of v (n >= 1) as a double, finished on the host. */
static wr_status fast_vec(const struct vec *v, struct wro_scratch *s, double *res, char *err)
{
    struct wro_state *st = v->st;
    const struct wro_plan p = fast_plan(v);
    const size_t K = fast_k(v->n), G = wro_plan_g(v->n, K);
    const int np = nparts(v);
    struct fast_arg a = { v, K, wro_par(st, v->n), { NULL, NULL, NULL } };
    double *dres, h[3] = { 0, 0, 0 };
    wr_status rc;
    int i;
    for (i = 0; i < np; i++)
        if ((a.part[i] = wro_scratch_take(s, G * sizeof(double))) == NULL) return scratch_small(err);
    if ((dres = wro_scratch_take(s, 3 * sizeof(double))) == NULL) return scratch_small(err);
    if ((rc = wro_each_chunk2(st, s, &p, &v->x, second(v), NULL, fast_chunk, &a, err)) != WR_SUCCESS) return rc;
    for (i = 0; i < np && rc == WR_SUCCESS; i++) {
        struct wro_scratch one = *s;          /* each reduction's scratch afresh */
        rc = wro_reduce_dev(st, &one, a.part[i], G, WR_DOUBLE, WR_SUM, dres + i, err);
    }
    if (rc == WR_SUCCESS) rc = wro_copy(st, h, 0, dres, 1, np * sizeof(double), err);
    if (rc != WR_SUCCESS) return rc;
    if (v->kind != WRO_KNRM2) *res = h[0];
    else if (np == 3) *res = wr_blue_finish(h[0], h[1], h[2]);
    else *res = sqrt(h[0]);
    return WR_SUCCESS;
}

/* A double result stored as type t at out (device or host): one rounding
 * to float; NaNs canonical. */
static wr_status store(struct wro_state *st, const struct wro_buf *out, size_t at, wr_type t, double r, char *err)
{
    if (t == WR_FLOAT) {
        const float f = wro_canon_f32((float)r);
        return wro_copy(st, out->p + at * 4, out->on_dev, &f, 0, 4, err);
    }
    r = wro_canon_f64(r);
    return wro_copy(st, out->p + at * 8, out->on_dev, &r, 0, 8, err);
}

/* ---- reproducible: one vector -------------------------------------------------------- */

static size_t exact_core_scratch(size_t n)
{
    const size_t G = wro_xsum_lanes(n), Q = G / WRO_XGROUP;
    return 4 * WRO_SCRATCH_SIZE(G * sizeof(double)) + WRO_SCRATCH_SIZE(G * sizeof(int)) +
           WRO_SCRATCH_SIZE(3 * Q * sizeof(wrx_acc));
}

static struct wro_plan exact_plan(const struct vec *v)
{
    const struct wro_plan p = { v->n, v->k->size, 0, 1, 0 };
    return p;
}

static size_t exact_scratch(const struct vec *v)
{
    const struct wro_plan p = exact_plan(v);
    return WRO_SCRATCH_SIZE(3 * sizeof(wrx_acc)) +
           exact_core_scratch(wro_plan_items2(v->st, &p, &v->x, second(v), NULL)) +
           wro_plan_scratch2(v->st, &p, &v->x, second(v), NULL);
}

struct exact_arg {
    const struct vec *v;
    struct wro_scratch *s;
    wrx_acc *total;                /* device, 3 */
};

/* total += the exact sums of one chunk: lanes, groups, the total */
static wr_status exact_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct exact_arg *a = va;
    const struct vec *v = a->v;
    const size_t G = wro_xsum_lanes(c->len), Q = G / WRO_XGROUP;
    const int par = wro_par(v->st, c->len), dev = v->st->dev;
    struct wro_scratch one = *a->s;           /* the core's scratch, afresh per chunk */
    double *ph = wro_scratch_take(&one, G * sizeof(double)), *pl = wro_scratch_take(&one, G * sizeof(double));
    double *pm = wro_scratch_take(&one, G * sizeof(double)), *pl2 = wro_scratch_take(&one, G * sizeof(double));
    int *pb = wro_scratch_take(&one, G * sizeof(int));
    wrx_acc *accs = wro_scratch_take(&one, 3 * Q * sizeof(wrx_acc));
    if (!ph || !pl || !pm || !pl2 || !pb || !accs) return scratch_small(err);
    v->k->xlanes(dev, par, v->kind, c->in, c->in2, 1, c->len, G, ph, pl, pm, pl2, pb);
    v->k->xgroups(dev, par, v->kind, c->in, c->in2, 1, c->len, G, WRO_XGROUP, ph, pl, pm, pl2, pb, accs, Q, NULL);
    wro_xdtotal(dev, accs, Q, nparts(v) == 3, a->total, c->off == 0);
    return WR_SUCCESS;
}

/* The exact sums of v (n >= 1) into tot[0..2] (host; the norm's three
 * parts, else part 1). */
static wr_status exact_vec(const struct vec *v, struct wro_scratch *s, wrx_acc tot[3], char *err)
{
    const struct wro_plan p = exact_plan(v);
    struct exact_arg a = { v, s, NULL };
    wr_status rc;
    int i;
    if ((a.total = wro_scratch_take(s, 3 * sizeof(wrx_acc))) == NULL) return scratch_small(err);
    /* (the planner takes its staging buffers from s first: each chunk then
     * carves the rest afresh) */
    rc = wro_each_chunk2(v->st, s, &p, &v->x, second(v), NULL, exact_chunk, &a, err);
    if (rc != WR_SUCCESS) return rc;
    for (i = 0; i < 3; i++) wrx_init(&tot[i]);
    if (nparts(v) == 3) return wro_copy(v->st, tot, 0, a.total, 1, 3 * sizeof(wrx_acc), err);
    return wro_copy(v->st, &tot[1], 0, a.total + 1, 1, sizeof(wrx_acc), err);
}

/* The bits of the reproducible result. */
static uint64_t exact_bits(const struct vec *v, wrx_acc tot[3])
{
    if (v->kind == WRO_KNRM2) return wrx_norm_round_bits(tot, v->t == WR_DOUBLE);
    return wrx_round_bits(&tot[1], v->t == WR_DOUBLE);
}

static wr_status store_bits(struct wro_state *st, const struct wro_buf *out, size_t at, wr_type t, uint64_t b,
                            char *err)
{
    if (t == WR_FLOAT) {
        const uint32_t b32 = (uint32_t)b;
        return wro_copy(st, out->p + at * 4, out->on_dev, &b32, 0, 4, err);
    }
    return wro_copy(st, out->p + at * 8, out->on_dev, &b, 0, 8, err);
}

/* ---- one vector: dot, asum, nrm2 ----------------------------------------------------------- */

static wr_status one_vec(struct vec *v, const struct wr_call *c, int exact, char *err)
{
    struct wro_state *st = v->st;
    const size_t es = v->k->size;
    struct wro_buf bo;
    struct wro_scratch s;
    wr_status rc;

    if (c->acc == NULL && (rc = wro_resolve(st, c->out, es, c->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (v->n == 0) {
        if (c->acc != NULL) {                 /* the exact sum of nothing */
            wrx_init((wrx_acc *)c->acc);
            return WR_SUCCESS;
        }
        return store_bits(st, &bo, 0, v->t, 0, err);   /* +0 */
    }
    if ((rc = wro_scratch_open(st, &s, exact ? exact_scratch(v) : fast_scratch(v), err)) != WR_SUCCESS) return rc;
    if (exact) {
        wrx_acc tot[3];
        rc = exact_vec(v, &s, tot, err);
        if (rc == WR_SUCCESS && c->acc != NULL)
            memcpy(c->acc, &tot[v->kind == WRO_KNRM2 && c->cols < 3 ? c->cols : 1], sizeof(wrx_acc));
        else if (rc == WR_SUCCESS)
            rc = store_bits(st, &bo, 0, v->t, exact_bits(v, tot), err);
    } else {
        double r = 0;
        rc = fast_vec(v, &s, &r, err);
        if (rc == WR_SUCCESS) rc = store(st, &bo, 0, v->t, r, err);
    }
    wro_scratch_close(&s);
    return rc;
}

/* ---- rows ---------------------------------------------------------------------------------- */

struct rows_arg {
    const struct vec *v;
    int exact;
    size_t cols, RL;
    double *part, *ph, *pl, *pm, *pl2;
    int *pb;
};

/* the rows of one chunk */
static wr_status rows_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct rows_arg *a = va;
    const struct wro_dotk *k = a->v->k;
    const int dev = a->v->st->dev, par = wro_par(a->v->st, c->len * a->cols);
    (void)err;
    if (a->exact) {
        k->xlanes(dev, par, WRO_KDOT, c->in, c->in2, c->len, a->cols, a->RL, a->ph, a->pl, a->pm, a->pl2, a->pb);
        k->xgroups(dev, par, WRO_KDOT, c->in, c->in2, c->len, a->cols, a->RL, a->RL, a->ph, a->pl, a->pm, a->pl2,
                   a->pb, NULL, 0, c->out);
    } else if (a->cols <= WRO_ROW_LANE) {
        k->frow1(dev, par, c->in, c->in2, c->len, a->cols, c->out);
    } else {
        k->frowp(dev, par, c->in, c->in2, c->len, a->cols, a->RL, a->part);
        k->frowf(dev, par, a->part, c->len, a->RL, c->out);
    }
    return WR_SUCCESS;
}

static wr_status dot_rows(struct vec *v, const struct wr_call *c, int exact, char *err)
{
    struct wro_state *st = v->st;
    const size_t es = v->k->size, rows = c->count, cols = c->cols;
    struct wro_buf bo;
    struct wro_scratch s;
    wr_status rc;

    if ((rc = wro_resolve(st, c->out, rows * es, c->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (cols == 0) {
        const double z = 0.0;                 /* +0: the dot product of nothing */
        return wro_fill(st, &bo, rows, es, &z, err);
    }
    if (cols > WRO_ROW_MID) {
        /* long rows: one vector each, its result straight into out[r] */
        struct vec row = *v;
        size_t r;
        row.n = cols;
        if ((rc = wro_scratch_open(st, &s, exact ? exact_scratch(&row) : fast_scratch(&row), err)) != WR_SUCCESS)
            return rc;
        for (r = 0; r < rows && rc == WR_SUCCESS; r++) {
            struct wro_scratch one = s;       /* the same block, carved afresh per row */
            row.x.p = v->x.p + r * cols * es;
            row.y.p = v->y.p + r * cols * es;
            if (exact) {
                wrx_acc tot[3];
                rc = exact_vec(&row, &one, tot, err);
                if (rc == WR_SUCCESS) rc = store_bits(st, &bo, r, v->t, exact_bits(&row, tot), err);
            } else {
                double d = 0;
                rc = fast_vec(&row, &one, &d, err);
                if (rc == WR_SUCCESS) rc = store(st, &bo, r, v->t, d, err);
            }
        }
        wro_scratch_close(&s);
        return rc;
    }
    {
        /* rows in chunks of whole rows */
        const struct wro_plan p = { rows, cols * es, es, 1, 0 };
        const size_t RL = cols <= WRO_ROW_LANE ? 1 : wro_row_lanes(cols);
        const size_t per = wro_plan_items2(st, &p, &v->x, &v->y, &bo);
        struct rows_arg a = { v, exact, cols, RL, NULL, NULL, NULL, NULL, NULL, NULL };
        size_t need = wro_plan_scratch2(st, &p, &v->x, &v->y, &bo);
        if (exact) need += 4 * WRO_SCRATCH_SIZE(per * RL * sizeof(double)) + WRO_SCRATCH_SIZE(per * RL * sizeof(int));
        else if (RL > 1) need += WRO_SCRATCH_SIZE(per * RL * sizeof(double));
        if ((rc = wro_scratch_open(st, &s, need, err)) != WR_SUCCESS) return rc;
        if (exact) {
            a.ph = wro_scratch_take(&s, per * RL * sizeof(double));
            a.pl = wro_scratch_take(&s, per * RL * sizeof(double));
            a.pm = wro_scratch_take(&s, per * RL * sizeof(double));
            a.pl2 = wro_scratch_take(&s, per * RL * sizeof(double));
            a.pb = wro_scratch_take(&s, per * RL * sizeof(int));
        } else if (RL > 1) {
            a.part = wro_scratch_take(&s, per * RL * sizeof(double));
        }
        rc = wro_each_chunk2(st, &s, &p, &v->x, &v->y, &bo, rows_chunk, &a, err);
    }
    wro_scratch_close(&s);
    return rc;
}

/* ---- the entry ------------------------------------------------------------------------------- */

wr_status wro_blas(struct wro_state *st, const struct wr_call *c, char *err)
{
    const enum wr_opid id = c->id;
    const int exact = id == WR_OPID_XDOT || id == WR_OPID_XASUM || id == WR_OPID_XNRM2 || id == WR_OPID_XDOTROWS;
    const int rows = id == WR_OPID_DOTROWS || id == WR_OPID_XDOTROWS;
    const int kind = id == WR_OPID_ASUM || id == WR_OPID_XASUM ? WRO_KASUM
                     : id == WR_OPID_NRM2 || id == WR_OPID_XNRM2 ? WRO_KNRM2 : WRO_KDOT;
    struct vec v;
    const size_t n = rows ? c->count * c->cols : c->count;
    wr_status rc;

    v.st = st;
    v.t = c->type;
    v.k = dotk(c->type);
    v.kind = kind;
    v.n = n;
    if ((rc = wro_resolve(st, n ? c->in : NULL, n * v.k->size, c->kin, "x", &v.x, err)) != WR_SUCCESS) return rc;
    v.y.p = NULL;
    v.y.direct = v.y.on_dev = 1;
    if (kind == WRO_KDOT &&
        (rc = wro_resolve(st, n ? c->in2 : NULL, n * v.k->size, c->kin2, "y", &v.y, err)) != WR_SUCCESS)
        return rc;
    return rows ? dot_rows(&v, c, exact, err) : one_vec(&v, c, exact, err);
}

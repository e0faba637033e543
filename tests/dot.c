/*
 * dot.c -- wr_dot, wr_dot_rows, wr_nrm2, wr_asum and wr_argmax_abs on the
 * cpu backend, and their exact partials, against MPFR (dot_ref.c).
 *
 * Reproducible mode: every result has the bits of the exact value rounded
 * once (the dot product's FMA parts, the sum of magnitudes, the norm),
 * with 1, 2, 3 and 7 threads and with the elements permuted.  Fast mode:
 * every result within warpred.h's bound, and the same bits at every thread
 * count.  Data: ill-conditioned dot products (Ogita, Rump and Oishi's
 * GenDot, condition numbers up to 1e30), random vectors of many sizes,
 * vectors holding elements of 1e300 and 1e-300, subnormals, elements whose
 * squares overflow or underflow, infinities, NaNs and signed zeros.
 * Without MPFR the reference comparisons are skipped (the rest runs).
 */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#ifdef HAVE_MPFR
#  include <mpfr.h>
#endif
#include "dot_ref.h"
#include "testutil.h"

static wr_context *fast, *repro;
static tu_rng rng;
static const int thread_counts[] = { 1, 2, 3, 7 };
#define NTC (sizeof thread_counts / sizeof thread_counts[0])
static unsigned long nref;        /* comparisons with the MPFR reference */
/* Longer vectors are checked across threads and permutations only: the
 * reference's 4400-bit sums would take most of the test's time. */
#define REF_MAX_N ((size_t)70000)

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static int same(const void *a, const void *b, wr_type t)
{
    return memcmp(a, b, tu_size(t)) == 0;
}

static double getd(const void *x, wr_type t, size_t i)
{
    if (t == WR_FLOAT) {
        float f;
        memcpy(&f, (const char *)x + 4 * i, 4);
        return f;
    }
    {
        double d;
        memcpy(&d, (const char *)x + 8 * i, 8);
        return d;
    }
}

static void setd(void *x, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) {
        const float f = (float)v;
        memcpy((char *)x + 4 * i, &f, 4);
    } else {
        memcpy((char *)x + 8 * i, &v, 8);
    }
}

static double val(const void *p, wr_type t)
{
    return getd(p, t, 0);
}

/* The same permutation of x and y (y may be NULL). */
static void shuffle2(void *x, void *y, size_t n, wr_type t)
{
    const size_t w = tu_size(t);
    unsigned char tmp[8];
    size_t i;
    for (i = n; i > 1; i--) {
        const size_t j = (size_t)tu_below(&rng, i);
        memcpy(tmp, (char *)x + (i - 1) * w, w);
        memcpy((char *)x + (i - 1) * w, (char *)x + j * w, w);
        memcpy((char *)x + j * w, tmp, w);
        if (y) {
            memcpy(tmp, (char *)y + (i - 1) * w, w);
            memcpy((char *)y + (i - 1) * w, (char *)y + j * w, w);
            memcpy((char *)y + j * w, tmp, w);
        }
    }
}

static double unit_u(wr_type t)
{
    return t == WR_FLOAT ? 0x1p-24 : 0x1p-53;
}

/* warpred.h's eta, half the smallest subnormal; for double that is not a
 * double, and the errors are measured rounded up: the whole subnormal. */
static double eta(wr_type t)
{
    return t == WR_FLOAT ? 0x1p-150 : 0x1p-1074;
}

static double maxval(wr_type t)
{
    return t == WR_FLOAT ? FLT_MAX : DBL_MAX;
}

static double bound_l(size_t n)
{
    double l = 1024;
    size_t m = 1;
    while (m < n) {
        m *= 2;
        l += 1;
    }
    return l;
}

enum fn { F_DOT, F_ASUM, F_NRM2 };
static const char *const fn_name[] = { "wr_dot", "wr_asum", "wr_nrm2" };

static wr_status call(wr_context *c, enum fn f, const void *x, const void *y, void *out, size_t n, wr_type t)
{
    switch (f) {
    case F_DOT: return wr_dot(c, x, y, out, n, t);
    case F_ASUM: return wr_asum(c, x, out, n, t);
    default: return wr_nrm2(c, x, out, n, t);
    }
}

/*
 * One vector through f in both modes, every thread count: the same bits at
 * each; reproducible against the reference's bits, fast within the bound;
 * the reproducible bits again after a permutation (which x and y then
 * keep).  finite: the data has no infinity or NaN (else only the thread
 * and permutation checks).
 */
static void check(tu_tally *tl, const char *what, enum fn f, void *x, void *y, size_t n, wr_type t, int finite)
{
    unsigned char fr[8], rr[8], got[8], ref[8];
    char b1[64], b2[64];
    size_t k;
    for (k = 0; k < NTC; k++) {
        set_threads(thread_counts[k]);
        tu_expect(tl, call(fast, f, x, y, got, n, t) == WR_SUCCESS, "%s %s fast: %s", fn_name[f], what,
                  wr_context_error(fast));
        if (k == 0) memcpy(fr, got, 8);
        else tu_expect(tl, same(fr, got, t), "%s %s fast, n=%zu: %d threads give %s, 1 thread %s", fn_name[f],
                       what, n, thread_counts[k], tu_fmt_bits(got, t, b1, sizeof b1), tu_fmt_bits(fr, t, b2, sizeof b2));
        tu_expect(tl, call(repro, f, x, y, got, n, t) == WR_SUCCESS, "%s %s reproducible: %s", fn_name[f], what,
                  wr_context_error(repro));
        if (k == 0) memcpy(rr, got, 8);
        else tu_expect(tl, same(rr, got, t), "%s %s reproducible, n=%zu: %d threads give %s, 1 thread %s",
                       fn_name[f], what, n, thread_counts[k], tu_fmt_bits(got, t, b1, sizeof b1),
                       tu_fmt_bits(rr, t, b2, sizeof b2));
    }
    if (finite && dref_have() && n <= REF_MAX_N) {
        double err, ab, bound;
        const double r = val(fr, t), u = unit_u(t), L = bound_l(n);
        nref += 2;
        if (f == F_DOT) dref_dot(x, y, n, t, 1, ref);
        else if (f == F_ASUM) dref_asum(x, n, t, ref);
        else dref_nrm2(x, n, t, ref);
        tu_expect(tl, same(ref, rr, t), "%s %s reproducible (%zu %s): %s, MPFR %s", fn_name[f], what, n,
                  tu_type_name(t), tu_fmt_bits(rr, t, b1, sizeof b1), tu_fmt_bits(ref, t, b2, sizeof b2));
        if (f == F_DOT) {
            dref_dot_err(x, y, n, t, r, &err, &ab);
            bound = (L + 1) * u * ab + (double)n * eta(t);
            /* (a fast result may overflow only near the type's range) */
            tu_expect(tl, isfinite(r) ? err <= bound : ab > maxval(t) / 2, "%s %s fast (%zu %s): error %g > bound %g",
                      fn_name[f], what, n, tu_type_name(t), err, bound);
        } else if (f == F_ASUM) {
            err = dref_asum_err(x, n, t, r);
            dref_asum(x, n, t, ref);
            bound = L * u * fabs(val(ref, t));
            tu_expect(tl, err <= bound * (1 + 4 * u) || isinf(val(ref, t)), "%s %s fast: error %g > bound %g",
                      fn_name[f], what, err, bound);
        } else {
            const double rel = dref_nrm2_relerr(x, n, t, r), nr = val(ref, t);
            bound = (L / 2 + 2) * u + (nr != 0 ? eta(t) / nr : 0) * (1 + u);
            tu_expect(tl, rel <= bound || (isinf(nr) && isinf(r)), "%s %s fast (%zu %s): relative error %g > %g",
                      fn_name[f], what, n, tu_type_name(t), rel, bound);
        }
    }
    set_threads(thread_counts[2]);
    shuffle2(x, f == F_DOT ? y : NULL, n, t);
    tu_expect(tl, call(repro, f, x, y, got, n, t) == WR_SUCCESS && same(rr, got, t),
              "%s %s reproducible, permuted: %s, before %s", fn_name[f], what, tu_fmt_bits(got, t, b1, sizeof b1),
              tu_fmt_bits(rr, t, b2, sizeof b2));
}

/* ---- ill-conditioned dot products ------------------------------------------ */

#ifdef HAVE_MPFR
/*
 * GenDot (T. Ogita, S. M. Rump, S. Oishi, "Accurate sum and dot product",
 * SIAM J. Sci. Comput. 26, 2005, Algorithm 6.1): the first half random
 * with exponents spread over log2(c) / 2, the second half chosen so that
 * the running dot product cancels, each y[i] from the exact dot product so
 * far (MPFR); then shuffled.  Returns the condition number reached,
 * 2 sum |x y| / |sum x y|.
 */
static double gendot(void *x, void *y, size_t n, wr_type t, double c)
{
    const double b = log2(c);
    const size_t n2 = n / 2;
    mpfr_t s, p, a;
    size_t i;
    double cond;
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_inits2(4400, s, a, (mpfr_ptr)0);
    mpfr_init2(p, 128);
    for (i = 0; i < n2; i++) {
        int e = (int)lround(tu_unit(&rng) * b / 2);
        if (i == 0) e = (int)lround(b / 2) + 1;
        if (i == n2 - 1) e = 0;
        setd(x, t, i, ldexp(2 * tu_unit(&rng) - 1, e));
        setd(y, t, i, ldexp(2 * tu_unit(&rng) - 1, e));
    }
    mpfr_set_zero(s, 1);
    for (i = 0; i < n2; i++) {
        mpfr_set_d(p, getd(x, t, i), MPFR_RNDN);
        mpfr_mul_d(p, p, getd(y, t, i), MPFR_RNDN);
        mpfr_add(s, s, p, MPFR_RNDN);
    }
    for (i = n2; i < n; i++) {
        const int e = (int)lround(b / 2 * (double)(n - 1 - i) / (double)(n - 1 - n2 ? n - 1 - n2 : 1));
        const double xi = ldexp(2 * tu_unit(&rng) - 1, e);
        double yi;
        setd(x, t, i, xi == 0 ? 1 : xi);
        mpfr_set_d(p, ldexp(2 * tu_unit(&rng) - 1, e), MPFR_RNDN);
        mpfr_sub(p, p, s, MPFR_RNDN);
        mpfr_div_d(p, p, getd(x, t, i), MPFR_RNDN);
        yi = mpfr_get_d(p, MPFR_RNDN);
        setd(y, t, i, yi);
        mpfr_set_d(p, getd(x, t, i), MPFR_RNDN);
        mpfr_mul_d(p, p, getd(y, t, i), MPFR_RNDN);
        mpfr_add(s, s, p, MPFR_RNDN);
    }
    mpfr_set_zero(a, 1);
    for (i = 0; i < n; i++) {
        mpfr_set_d(p, getd(x, t, i), MPFR_RNDN);
        mpfr_mul_d(p, p, getd(y, t, i), MPFR_RNDN);
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(a, a, p, MPFR_RNDN);
    }
    mpfr_div(a, a, s, MPFR_RNDN);
    cond = 2 * fabs(mpfr_get_d(a, MPFR_RNDN));
    mpfr_clears(s, a, p, (mpfr_ptr)0);
    shuffle2(x, y, n, t);
    return cond;
}
#endif

static void run_illcond(wr_type t)
{
#ifdef HAVE_MPFR
    static const double conds[] = { 1e5, 1e10, 1e15, 1e20, 1e25, 1e30 };
    static const size_t sizes[] = { 100, 1000, 50000 };
    size_t ci, si, rep;
    for (ci = 0; ci < sizeof conds / sizeof conds[0]; ci++) {
        tu_tally tl;
        double worst = INFINITY;
        tu_tally_init(&tl);
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (rep = 0; rep < 3; rep++) {
                const size_t n = sizes[si], w = tu_size(t);
                void *x = tu_xmalloc(n * w), *y = tu_xmalloc(n * w);
                char what[64];
                const double c = gendot(x, y, n, t, t == WR_FLOAT ? fmin(conds[ci], 1e12) : conds[ci]);
                if (c < worst) worst = c;
                snprintf(what, sizeof what, "GenDot cond %.1e", c);
                check(&tl, what, F_DOT, x, y, n, t, 1);
                free(x);
                free(y);
            }
        tu_report(&tl, "%s: ill-conditioned dot products, GenDot target %.0e (least reached %.1e), n = 100..50000",
                  tu_type_name(t), t == WR_FLOAT ? fmin(conds[ci], 1e12) : conds[ci], worst);
    }
#else
    skip_block(6, "no MPFR: GenDot needs the exact reference");
    (void)t;
#endif
}

/* ---- random and special data --------------------------------------------------- */

enum dist { D_UNIT, D_SIGNED, D_WIDE, D_HUGE, D_TINY, D_SUBN, D_MIX };

static double draw(enum dist d, wr_type t)
{
    const int dbl = t == WR_DOUBLE;
    const double s = tu_below(&rng, 2) ? -1 : 1;
    switch (d) {
    case D_UNIT: return tu_unit(&rng);
    case D_SIGNED: return s * tu_unit(&rng);
    case D_WIDE: return s * ldexp(0.5 + tu_unit(&rng), (int)tu_below(&rng, dbl ? 400 : 100) - (dbl ? 200 : 50));
    case D_HUGE: return s * ldexp(0.5 + tu_unit(&rng), dbl ? 960 + (int)tu_below(&rng, 60) : 100 + (int)tu_below(&rng, 25));
    case D_TINY: return s * ldexp(0.5 + tu_unit(&rng), dbl ? -1000 - (int)tu_below(&rng, 20) : -120 - (int)tu_below(&rng, 5));
    case D_SUBN: return s * ldexp(tu_unit(&rng), dbl ? -1022 - (int)tu_below(&rng, 40) : -126 - (int)tu_below(&rng, 20));
    default: {
        static const double pick[] = { 1e300, -1e300, 1e-300, -1e-300, 1, -0.0, 0.0, 0x1p-1074, 0x1p600, 0x1p-600 };
        if (tu_below(&rng, 3) == 0) return s * tu_unit(&rng);
        if (!dbl) return s * ldexp(tu_unit(&rng), (int)tu_below(&rng, 250) - 140);
        return pick[tu_below(&rng, 10)];
    }
    }
}

static const char *const dist_name[] = { "[0,1)", "(-1,1)", "2^+-200", "near overflow", "near underflow",
                                         "subnormal", "1e+-300 mix" };

static void run_random(wr_type t, size_t max_n)
{
    static const size_t sizes[] = { 0, 1, 2, 7, 8, 15, 17, 31, 511, 513, 4095, 4097, 65537, 1000003 };
    enum fn f;
    for (f = F_DOT; f <= F_NRM2; f++) {
        tu_tally tl;
        int d;
        size_t si;
        tu_tally_init(&tl);
        for (d = D_UNIT; d <= D_MIX; d++)
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                const size_t n = sizes[si] > max_n ? max_n : sizes[si], w = tu_size(t);
                void *x = tu_xmalloc(n * w + 8), *y = tu_xmalloc(n * w + 8);
                size_t i;
                if ((d == D_HUGE || d == D_TINY) && f == F_DOT && t == WR_DOUBLE && n > 4) {
                    /* products of huge by tiny: large dynamic range, no overflow */
                    for (i = 0; i < n; i++) {
                        setd(x, t, i, draw(d, t));
                        setd(y, t, i, draw(d == D_HUGE ? D_TINY : D_HUGE, t));
                    }
                } else {
                    for (i = 0; i < n; i++) {
                        setd(x, t, i, draw((enum dist)d, t));
                        setd(y, t, i, f == F_DOT && (d == D_HUGE || d == D_TINY || d == D_SUBN || d == D_MIX)
                                          ? draw(D_SIGNED, t) : draw((enum dist)d, t));
                    }
                }
                check(&tl, dist_name[d], f, x, y, n, t, 1);
                free(x);
                free(y);
            }
        tu_report(&tl, "%s %s: random vectors of %zu sizes up to %zu, 7 distributions (1e+-300, subnormal)",
                  tu_type_name(t), fn_name[f], sizeof sizes / sizeof sizes[0], max_n);
    }
}

/* Norms whose squares overflow or underflow: the right norm, in both modes. */
static void run_norm_range(void)
{
    static const struct { double a, b, c; } cases[] = {
        { 1e300, 1e300, 0 }, { 1e-300, 1e-300, 0 }, { 1e300, 1e-300, 1 }, { 0x1p-1074, 0x1p-1074, 0x1p-1074 },
        { 3e-320, 4e-320, 0 }, { DBL_MAX, DBL_MAX, 0 }, { DBL_MAX, 0, 0 }, { 0x1p-1022, -0x1p-1022, 0 },
        { 3, 4, 0 }, { -0.0, -0.0, -0.0 }, { 0x1p511, 0x1p512, 0x1p-485 }, { 1e154, 1e154, 1e-154 },
    };
    tu_tally tl;
    size_t k;
    tu_tally_init(&tl);
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double x[3] = { cases[k].a, cases[k].b, cases[k].c }, r = 0, f = 0, ref = 0;
        char b1[64], b2[64];
        tu_expect(&tl, wr_nrm2(repro, x, &r, 3, WR_DOUBLE) == WR_SUCCESS &&
                  wr_nrm2(fast, x, &f, 3, WR_DOUBLE) == WR_SUCCESS, "nrm2 calls");
        if (dref_have()) {
            nref += 2;
            dref_nrm2(x, 3, WR_DOUBLE, &ref);
            tu_expect(&tl, same(&r, &ref, WR_DOUBLE), "nrm2(%g, %g, %g) reproducible %s, MPFR %s", x[0], x[1], x[2],
                      tu_fmt_bits(&r, WR_DOUBLE, b1, sizeof b1), tu_fmt_bits(&ref, WR_DOUBLE, b2, sizeof b2));
            tu_expect(&tl, (isinf(ref) && isinf(f)) || fabs(f - ref) <= 1100 * 0x1p-53 * ref + 0x1p-1074,
                      "nrm2(%g, %g, %g) fast %.17g, MPFR %.17g", x[0], x[1], x[2], f, ref);
        }
        tu_expect(&tl, !signbit(r) && !signbit(f), "nrm2(%g, %g, %g): not negative", x[0], x[1], x[2]);
    }
    {
        /* one element of each magnitude class among many ordinary ones */
        const size_t n = 100000;
        double *x = tu_xmalloc(n * sizeof *x);
        size_t i;
        for (i = 0; i < n; i++) x[i] = tu_unit(&rng);
        x[17] = 1e200;
        x[n - 3] = 1e-250;
        x[n / 2] = 0x1p-1070;
        check(&tl, "one element per class", F_NRM2, x, NULL, n, WR_DOUBLE, 1);
        free(x);
    }
    tu_report(&tl, "double wr_nrm2: 1e+-300, subnormals, DBL_MAX, squares beyond the range");
}

/* Infinities, NaNs and signed zeros, by rule. */
static void run_special(void)
{
    const double inf = INFINITY, nan = NAN;
    tu_tally tl;
    int m;
    tu_tally_init(&tl);
    for (m = 0; m < 2; m++) {
        wr_context *c = m ? repro : fast;
        const char *mode = m ? "reproducible" : "fast";
        double r;
        float fr;
        uint64_t b;
        {
            double x[3] = { 1, nan, 2 }, y[3] = { 1, 1, inf };
            tu_expect(&tl, wr_dot(c, x, y, &r, 3, WR_DOUBLE) == WR_SUCCESS && (memcpy(&b, &r, 8), b == 0x7fffffffffffffffu),
                      "%s dot with a NaN: the canonical NaN", mode);
        }
        {
            double x[2] = { inf, 1 }, y[2] = { 0, 1 };
            tu_expect(&tl, wr_dot(c, x, y, &r, 2, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s dot inf * 0: NaN", mode);
        }
        {
            double x[2] = { inf, -inf }, y[2] = { 1, 1 };
            tu_expect(&tl, wr_dot(c, x, y, &r, 2, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s dot +inf - inf: NaN", mode);
        }
        {
            double x[3] = { inf, 5, 1e300 }, y[3] = { -2, 1, 1e300 };
            tu_expect(&tl, wr_dot(c, x, y, &r, 2, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r < 0, "%s dot -inf", mode);
            tu_expect(&tl, wr_dot(c, x + 2, y + 2, &r, 1, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r > 0,
                      "%s dot: an overflowing product gives +inf", mode);
        }
        {
            double x[3] = { -0.0, 0.0, 5 }, y[3] = { 5, -3, -0.0 };
            tu_expect(&tl, wr_dot(c, x, y, &r, 3, WR_DOUBLE) == WR_SUCCESS && r == 0 && signbit(r),
                      "%s dot of -0 products: -0", mode);
            tu_expect(&tl, wr_dot(c, x, y, &r, 0, WR_DOUBLE) == WR_SUCCESS && r == 0 && !signbit(r),
                      "%s dot of nothing: +0", mode);
        }
        {
            double x[4] = { 1, -1, 2, -2 }, y[4] = { 1, 1, 1, 1 };
            tu_expect(&tl, wr_dot(c, x, y, &r, 4, WR_DOUBLE) == WR_SUCCESS && r == 0 && !signbit(r),
                      "%s dot cancelling to zero: +0", mode);
        }
        {
            double x[4] = { -0.0, -0.0, 0.0, -0.0 };
            tu_expect(&tl, wr_asum(c, x, &r, 4, WR_DOUBLE) == WR_SUCCESS && r == 0 && !signbit(r), "%s asum of -0: +0",
                      mode);
            tu_expect(&tl, wr_nrm2(c, x, &r, 4, WR_DOUBLE) == WR_SUCCESS && r == 0 && !signbit(r), "%s nrm2 of -0: +0",
                      mode);
        }
        {
            double x[3] = { -inf, nan, 1 };
            tu_expect(&tl, wr_asum(c, x, &r, 3, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s asum: NaN wins", mode);
            tu_expect(&tl, wr_nrm2(c, x, &r, 3, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s nrm2: NaN wins", mode);
            tu_expect(&tl, wr_asum(c, x, &r, 1, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r > 0, "%s asum -inf: +inf", mode);
            tu_expect(&tl, wr_nrm2(c, x, &r, 1, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r > 0, "%s nrm2 -inf: +inf", mode);
        }
        {
            float x[3] = { 2e38f, 2e38f, -0.0f };
            tu_expect(&tl, wr_nrm2(c, x, &fr, 3, WR_FLOAT) == WR_SUCCESS && fabsf(fr - 2.8284271e38f) < 1e32f,
                      "%s float nrm2 of 2e38, 2e38: 2.83e38 (no overflow)", mode);
            tu_expect(&tl, wr_asum(c, x, &fr, 2, WR_FLOAT) == WR_SUCCESS && isinf(fr), "%s float asum overflows: +inf",
                      mode);
        }
        {
            /* a big vector with one NaN deep inside, and one with an infinity */
            const size_t n = 300001;
            double *x = tu_xmalloc(n * sizeof *x);
            size_t i;
            for (i = 0; i < n; i++) x[i] = tu_unit(&rng) - 0.5;
            x[n - 1000] = -inf;
            tu_expect(&tl, wr_nrm2(c, x, &r, n, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r > 0, "%s long nrm2 with -inf",
                      mode);
            tu_expect(&tl, wr_dot(c, x, x, &r, n, WR_DOUBLE) == WR_SUCCESS && isinf(r) && r > 0,
                      "%s long dot(x, x) with -inf: +inf", mode);
            x[12345] = nan;
            tu_expect(&tl, wr_nrm2(c, x, &r, n, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s long nrm2 with a NaN", mode);
            tu_expect(&tl, wr_dot(c, x, x, &r, n, WR_DOUBLE) == WR_SUCCESS && isnan(r), "%s long dot with a NaN", mode);
            free(x);
        }
    }
    {
        /* reproducible is exact where fast is not */
        double x[3] = { 1e30, 1, -1e30 }, y[3] = { 1, 1, 1 }, r;
        float fx[3] = { 1e20f, 1, -1e20f }, fy[3] = { 1e10f, 1, 1e10f }, fr;
        tu_expect(&tl, wr_dot(repro, x, y, &r, 3, WR_DOUBLE) == WR_SUCCESS && r == 1, "reproducible 1e30 + 1 - 1e30 = 1");
        tu_expect(&tl, wr_dot(repro, fx, fy, &fr, 3, WR_FLOAT) == WR_SUCCESS && fr == 1,
                  "reproducible float 1e30 + 1 - 1e30 = 1");
    }
    tu_report(&tl, "infinities, NaNs, signed zeros, empty vectors (both modes)");
}

/* ---- argmax_abs ------------------------------------------------------------------ */

static size_t ref_iamax(const void *x, size_t n, wr_type t)
{
    size_t i, best = 0;
    for (i = 0; i < n; i++) {
        const double v = getd(x, t, i);
        if (v != v) return i;
        if (fabs(v) > fabs(getd(x, t, best))) best = i;
    }
    return best;
}

static void run_iamax(wr_type t)
{
    static const size_t sizes[] = { 1, 2, 15, 16, 17, 4096, 4097, 100003, 1 << 20 };
    tu_tally tl;
    size_t si;
    int m;
    tu_tally_init(&tl);
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (m = 0; m < 5; m++) {
            const size_t n = sizes[si], w = tu_size(t);
            void *x = tu_xmalloc(n * w);
            size_t i, idx = 12345, want, k;
            unsigned char v[8];
            for (i = 0; i < n; i++) setd(x, t, i, (double)((int)tu_below(&rng, 2001) - 1000));
            if (m == 1) setd(x, t, n - 1, -5000);                      /* the last, negative */
            if (m == 2) { setd(x, t, n / 2, NAN); setd(x, t, n - 1, NAN); }   /* the first NaN */
            if (m == 3) for (i = 0; i < n; i++) setd(x, t, i, i % 2 ? 0.0 : -0.0);   /* zeros tie */
            if (m == 4) { setd(x, t, n / 3, 7000); setd(x, t, n - 1, -7000); }      /* x and -x tie */
            want = ref_iamax(x, n, t);
            for (k = 0; k < NTC; k++) {
                set_threads(thread_counts[k]);
                memset(v, 0, sizeof v);
                tu_expect(&tl, wr_argmax_abs(fast, x, n, t, &idx, v) == WR_SUCCESS && idx == want &&
                          memcmp(v, (char *)x + want * w, w) == 0, "argmax_abs n=%zu case %d, %d threads: %zu, want %zu",
                          n, m, thread_counts[k], idx, want);
                tu_expect(&tl, wr_argmax_abs(repro, x, n, t, &idx, NULL) == WR_SUCCESS && idx == want,
                          "reproducible argmax_abs n=%zu case %d: %zu", n, m, idx);
            }
            free(x);
        }
    tu_report(&tl, "%s wr_argmax_abs: first largest |x|, first NaN, ties of x and -x, of +0 and -0",
              tu_type_name(t));
}

/* ---- rows -------------------------------------------------------------------------- */

static void run_rows(wr_type t)
{
    static const struct { size_t rows, cols; } shapes[] = { { 1000, 1 }, { 300, 7 }, { 500, 1000 }, { 40, 40000 },
                                                            { 3, 400000 }, { 5, 0 } };
    tu_tally tl;
    size_t s;
    tu_tally_init(&tl);
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t rows = shapes[s].rows, cols = shapes[s].cols, w = tu_size(t), n = rows * cols;
        void *x = tu_xmalloc(n * w + 8), *y = tu_xmalloc(n * w + 8);
        unsigned char *out = tu_xmalloc(rows * w), *first = tu_xmalloc(rows * w), one[8], ref[8];
        size_t i, r, k;
        int m;
        for (i = 0; i < n; i++) {
            setd(x, t, i, draw(D_WIDE, t));
            setd(y, t, i, draw(D_SIGNED, t));
        }
        for (m = 0; m < 2; m++) {
            wr_context *c = m ? repro : fast;
            for (k = 0; k < NTC; k++) {
                set_threads(thread_counts[k]);
                tu_expect(&tl, wr_dot_rows(c, x, y, out, rows, cols, t) == WR_SUCCESS, "dot_rows: %s",
                          wr_context_error(c));
                if (k == 0) memcpy(first, out, rows * w);
                else tu_expect(&tl, memcmp(first, out, rows * w) == 0, "dot_rows %zu x %zu mode %d: %d threads differ",
                               rows, cols, m, thread_counts[k]);
            }
            for (r = 0; r < rows; r++) {
                const char *xr = (const char *)x + r * cols * w, *yr = (const char *)y + r * cols * w;
                tu_expect(&tl, wr_dot(c, xr, yr, one, cols, t) == WR_SUCCESS && same(one, first + r * w, t),
                          "row %zu of %zu x %zu (mode %d): not wr_dot's bits", r, rows, cols, m);
                if (m && dref_have() && (r < 16 || r % 97 == 0)) {
                    nref++;
                    dref_dot(xr, yr, cols, t, 1, ref);
                    tu_expect(&tl, same(ref, first + r * w, t), "row %zu of %zu x %zu: not the MPFR bits", r, rows, cols);
                }
            }
        }
        free(x);
        free(y);
        free(out);
        free(first);
    }
    tu_report(&tl, "%s wr_dot_rows: 1 to 400000 columns, each row wr_dot's bits, reproducible rows exact",
              tu_type_name(t));
}

/* ---- exact partials ---------------------------------------------------------------- */

static void run_partials(wr_type t)
{
    const size_t n = 200003, w = tu_size(t);
    void *x = tu_xmalloc(n * w), *y = tu_xmalloc(n * w);
    size_t cut[6], i, p;
    unsigned char whole[8], got[8];
    wr_exact_sum s[5], tot;
    wr_exact_sum np[5][WR_NRM2_PARTS], ntot[WR_NRM2_PARTS];
    tu_tally tl;
    tu_tally_init(&tl);
    for (i = 0; i < n; i++) {
        setd(x, t, i, draw(D_MIX, t));
        setd(y, t, i, draw(D_WIDE, t));
    }
    cut[0] = 0;
    cut[5] = n;
    for (p = 1; p < 5; p++) cut[p] = (size_t)tu_below(&rng, n + 1);
    for (p = 1; p < 5; p++)           /* sorted, with empty pieces likely */
        for (i = p + 1; i < 5; i++)
            if (cut[i] < cut[p]) { size_t tt = cut[i]; cut[i] = cut[p]; cut[p] = tt; }
    /* dot */
    tu_expect(&tl, wr_dot(repro, x, y, whole, n, t) == WR_SUCCESS, "whole dot");
    for (p = 0; p < 5; p++) {
        tu_expect(&tl, wr_exact_sum_init(&s[p]) == WR_SUCCESS, "init");
        tu_expect(&tl, wr_dot_exact(fast, (char *)x + cut[p] * w, (char *)y + cut[p] * w, cut[p + 1] - cut[p], t, &s[p]) ==
                  WR_SUCCESS, "wr_dot_exact: %s", wr_context_error(fast));
    }
    wr_exact_sum_init(&tot);
    for (p = 5; p-- > 0;) wr_exact_sum_merge(&tot, &s[p]);
    tu_expect(&tl, wr_exact_sum_round(&tot, t, got) == WR_SUCCESS && same(got, whole, t),
              "wr_dot_exact of 5 pieces, merged backwards: wr_dot's reproducible bits");
    /* asum */
    tu_expect(&tl, wr_asum(repro, x, whole, n, t) == WR_SUCCESS, "whole asum");
    wr_exact_sum_init(&tot);
    for (p = 0; p < 5; p++) {
        wr_exact_sum_init(&s[p]);
        tu_expect(&tl, wr_asum_exact(fast, (char *)x + cut[p] * w, cut[p + 1] - cut[p], t, &s[p]) == WR_SUCCESS,
                  "wr_asum_exact");
        wr_exact_sum_merge(&tot, &s[p]);
    }
    tu_expect(&tl, wr_exact_sum_round(&tot, t, got) == WR_SUCCESS && same(got, whole, t),
              "wr_asum_exact of 5 pieces: wr_asum's reproducible bits");
    /* nrm2 */
    tu_expect(&tl, wr_nrm2(repro, x, whole, n, t) == WR_SUCCESS, "whole nrm2");
    for (i = 0; i < WR_NRM2_PARTS; i++) wr_exact_sum_init(&ntot[i]);
    for (p = 0; p < 5; p++) {
        for (i = 0; i < WR_NRM2_PARTS; i++) wr_exact_sum_init(&np[p][i]);
        tu_expect(&tl, wr_nrm2_exact(fast, (char *)x + cut[p] * w, cut[p + 1] - cut[p], t, np[p]) == WR_SUCCESS,
                  "wr_nrm2_exact: %s", wr_context_error(fast));
        for (i = 0; i < WR_NRM2_PARTS; i++) wr_exact_sum_merge(&ntot[i], &np[p][i]);
    }
    tu_expect(&tl, wr_exact_norm_round(ntot, t, got) == WR_SUCCESS && same(got, whole, t),
              "wr_nrm2_exact of 5 pieces: wr_nrm2's reproducible bits");
    if (dref_have()) {
        nref++;
        dref_nrm2(x, n, t, whole);
        tu_expect(&tl, same(got, whole, t), "and MPFR's");
    }
    /* their argument checks */
    {
        int32_t iv[2] = { 1, 2 };
        unsigned char keep[sizeof(wr_exact_sum)];
        memcpy(keep, &tot, sizeof keep);
        tu_expect(&tl, wr_dot_exact(fast, iv, iv, 2, WR_INT32, &tot) == WR_ERR_UNSUPPORTED &&
                  memcmp(keep, &tot, sizeof keep) == 0, "wr_dot_exact on int32: WR_ERR_UNSUPPORTED, sum untouched");
        tu_expect(&tl, wr_asum_exact(fast, x, 4, t, NULL) == WR_ERR_INVALID_ARG, "wr_asum_exact sum NULL");
        tu_expect(&tl, wr_nrm2_exact(fast, x, 4, t, NULL) == WR_ERR_INVALID_ARG, "wr_nrm2_exact parts NULL");
        tu_expect(&tl, wr_exact_norm_round(ntot, WR_INT64, got) == WR_ERR_UNSUPPORTED, "norm round to int64");
        tu_expect(&tl, wr_exact_norm_round(NULL, t, got) == WR_ERR_INVALID_ARG, "norm round of NULL");
        {
            /* a refused call leaves every part as it was: parts[2] is garbage */
            wr_exact_sum pp[WR_NRM2_PARTS];
            unsigned char pkeep[sizeof pp];
            for (i = 0; i < WR_NRM2_PARTS; i++) wr_exact_sum_init(&pp[i]);
            memset(&pp[2], 0x5a, sizeof pp[2]);
            memcpy(pkeep, pp, sizeof pkeep);
            tu_expect(&tl, wr_nrm2_exact(fast, x, n, t, pp) == WR_ERR_INVALID_ARG &&
                      memcmp(pkeep, pp, sizeof pkeep) == 0 && tu_mentions(wr_context_error(fast), "parts[2]"),
                      "wr_nrm2_exact with parts[2] garbage: WR_ERR_INVALID_ARG naming it, no part changed: %s",
                      wr_context_error(fast));
        }
        memset(&ntot[1], 0x5a, sizeof ntot[1]);
        tu_expect(&tl, wr_exact_norm_round(ntot, t, got) == WR_ERR_INVALID_ARG &&
                  tu_mentions(wr_context_error(NULL), "parts[1]"), "norm round of garbage names parts[1]");
    }
    tu_report(&tl, "%s exact partials: wr_dot_exact, wr_asum_exact, wr_nrm2_exact of pieces, merged",
              tu_type_name(t));
    free(x);
    free(y);
}

/* ---- argument errors --------------------------------------------------------------- */

static void run_args(void)
{
    double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, out[4];
    int32_t iv[4] = { 1, 2, 3, 4 }, iout = 77;
    size_t idx = 99;
    tu_tally tl;
    tu_tally_init(&tl);
    out[0] = 42;
    tu_expect(&tl, wr_dot(NULL, x, y, out, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG, "dot: NULL ctx");
    tu_expect(&tl, wr_dot(fast, NULL, y, out, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "x is NULL") && out[0] == 42, "dot: x NULL, named x, out untouched");
    tu_expect(&tl, wr_dot(fast, x, NULL, out, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "y is NULL"), "dot: y NULL, named y");
    tu_expect(&tl, wr_dot(fast, x, y, NULL, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "out"), "dot: out NULL");
    tu_expect(&tl, wr_dot(fast, NULL, NULL, out, 0, WR_DOUBLE) == WR_SUCCESS && out[0] == 0 && !signbit(out[0]),
              "dot: NULL vectors with count 0: +0");
    out[0] = 42;
    tu_expect(&tl, wr_dot(fast, x, y, x + 3, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "overlap") && x[3] == 4, "dot: out inside x");
    tu_expect(&tl, wr_dot(repro, x, y, y + 7, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG && y[7] == 1, "dot: out inside y");
    tu_expect(&tl, wr_dot(fast, x, x, out, 8, WR_DOUBLE) == WR_SUCCESS && out[0] == 204, "dot: x == y allowed");
    tu_expect(&tl, wr_dot(repro, x, x + 1, out, 7, WR_DOUBLE) == WR_SUCCESS && out[0] == 168,
              "dot: x and y overlapping (inputs only) allowed");
    tu_expect(&tl, wr_dot(fast, iv, iv, &iout, 4, WR_INT32) == WR_ERR_UNSUPPORTED && iout == 77 &&
              tu_mentions(wr_context_error(fast), "int32"), "dot on int32: WR_ERR_UNSUPPORTED naming the type");
    tu_expect(&tl, wr_nrm2(fast, iv, &iout, 4, WR_UINT64) == WR_ERR_UNSUPPORTED, "nrm2 on uint64");
    tu_expect(&tl, wr_asum(repro, iv, &iout, 4, WR_INT64) == WR_ERR_UNSUPPORTED, "asum on int64");
    tu_expect(&tl, wr_argmax_abs(fast, iv, 4, WR_INT32, &idx, NULL) == WR_ERR_UNSUPPORTED && idx == 99,
              "argmax_abs on int32");
    tu_expect(&tl, wr_dot_rows(fast, iv, iv, &iout, 2, 2, WR_UINT32) == WR_ERR_UNSUPPORTED, "dot_rows on uint32");
    tu_expect(&tl, wr_dot(fast, x, y, out, 8, (wr_type)17) == WR_ERR_INVALID_ARG, "dot: a bad type");
    tu_expect(&tl, wr_dot(fast, (char *)x + 4, y, out, 4, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "aligned"), "dot: misaligned x");
    tu_expect(&tl, wr_nrm2(fast, x, (char *)out + 2, 4, WR_DOUBLE) == WR_ERR_INVALID_ARG, "nrm2: misaligned out");
    tu_expect(&tl, wr_nrm2(fast, NULL, out, 3, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "x is NULL"), "nrm2: x NULL, named x");
    tu_expect(&tl, wr_asum(fast, x, x + 2, 8, WR_DOUBLE) == WR_ERR_INVALID_ARG, "asum: out inside x");
    tu_expect(&tl, wr_asum(fast, x, out, SIZE_MAX / 4, WR_DOUBLE) == WR_ERR_INVALID_ARG, "asum: count overflows");
    tu_expect(&tl, wr_argmax_abs(fast, x, 0, WR_DOUBLE, &idx, out) == WR_ERR_EMPTY && idx == 99, "argmax_abs: empty");
    tu_expect(&tl, wr_argmax_abs(fast, x, 8, WR_DOUBLE, NULL, out) == WR_ERR_INVALID_ARG, "argmax_abs: index NULL");
    tu_expect(&tl, wr_argmax_abs(fast, x, 8, WR_DOUBLE, (size_t *)(void *)(x + 2), NULL) == WR_ERR_INVALID_ARG,
              "argmax_abs: index inside in");
    tu_expect(&tl, wr_argmax_abs(fast, x, 8, WR_DOUBLE, &idx, x + 1) == WR_ERR_INVALID_ARG, "argmax_abs: value inside in");
    tu_expect(&tl, wr_dot_rows(fast, x, y, out, 2, 4, WR_DOUBLE) == WR_SUCCESS && out[0] == 10 && out[1] == 26,
              "dot_rows 2 x 4");
    tu_expect(&tl, wr_dot_rows(fast, x, y, x + 4, 2, 4, WR_DOUBLE) == WR_ERR_INVALID_ARG, "dot_rows: out inside x");
    tu_expect(&tl, wr_dot_rows(fast, x, y, out, SIZE_MAX / 2, 4, WR_DOUBLE) == WR_ERR_INVALID_ARG &&
              tu_mentions(wr_context_error(fast), "rows"), "dot_rows: rows * cols overflows");
    out[0] = out[1] = 42;
    tu_expect(&tl, wr_dot_rows(repro, NULL, NULL, out, 2, 0, WR_DOUBLE) == WR_SUCCESS && out[0] == 0 && out[1] == 0,
              "dot_rows with 0 columns: +0 each");
    tu_report(&tl, "argument errors: NULL, overlap of out with x or y, integer types, misalignment, empty");
}

int main(void)
{
    const char *mn = getenv("WR_TEST_MAX_N");
    const size_t max_n = mn && *mn ? (size_t)strtoull(mn, NULL, 0) : (size_t)1 << 20;
    int ti;
    unsetenv("WARPRED_FLOAT_MODE");
    tu_rng_seed(&rng, tu_seed());
    fast = tu_context(WR_BACKEND_CPU);
    repro = tu_context(WR_BACKEND_CPU);
    if (wr_context_set_float_mode(repro, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS) bail("set_float_mode failed");
    plan_lazy();
    if (!dref_have()) diag("built without MPFR: the comparisons with the exact reference are skipped");
    run_args();
    run_special();
    run_norm_range();
    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        run_illcond(t);
        run_random(t, max_n);
        run_iamax(t);
        run_rows(t);
        run_partials(t);
    }
    diag("%lu comparisons with the MPFR reference", nref);
    wr_context_destroy(fast);
    wr_context_destroy(repro);
    return 0;
}

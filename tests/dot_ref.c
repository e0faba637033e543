/*
 * dot_ref.c -- MPFR references for tests/dot.c and tests/dot_xval.c (see
 * dot_ref.h).
 */
#include <config.h>
#include <math.h>
#include <string.h>
#ifdef HAVE_MPFR
#  include <mpfr.h>
#endif
#include "dot_ref.h"

#ifdef HAVE_MPFR

#define WIDE 4400                 /* bits: 2^-2200 .. 2^2200 held exactly */

static double get(const void *x, wr_type t, size_t i)
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

static void wide_range(void)
{
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
}

int dref_have(void)
{
    return 1;
}

/* s = the exact dot product (or sum of the FMA parts). */
static void exact_dot(mpfr_t s, const void *x, const void *y, size_t n, wr_type t, int fma_parts)
{
    mpfr_t p;
    size_t i;
    wide_range();
    mpfr_init2(p, 128);
    mpfr_set_zero(s, 1);
    for (i = 0; i < n; i++) {
        const double a = get(x, t, i), b = get(y, t, i);
        if (fma_parts && t == WR_DOUBLE) {
            const double hi = a * b, lo = fma(a, b, -hi);
            mpfr_set_d(p, hi, MPFR_RNDN);
            mpfr_add(s, s, p, MPFR_RNDN);
            mpfr_set_d(p, lo, MPFR_RNDN);
            mpfr_add(s, s, p, MPFR_RNDN);
        } else {
            mpfr_set_d(p, a, MPFR_RNDN);
            mpfr_mul_d(p, p, b, MPFR_RNDN);       /* 106 bits: exact */
            mpfr_add(s, s, p, MPFR_RNDN);         /* exact within WIDE */
        }
    }
    mpfr_clear(p);
}

static void put(mpfr_t s, wr_type t, void *out)
{
    if (t == WR_FLOAT) {
        const float f = mpfr_get_flt(s, MPFR_RNDN);
        memcpy(out, &f, 4);
    } else {
        const double d = mpfr_get_d(s, MPFR_RNDN);
        memcpy(out, &d, 8);
    }
}

void dref_dot(const void *x, const void *y, size_t n, wr_type t, int fma_parts, void *out)
{
    mpfr_t s;
    mpfr_init2(s, WIDE);
    exact_dot(s, x, y, n, t, fma_parts);
    if (mpfr_zero_p(s)) {
        /* an exact zero: -0 only when every product is a negative zero */
        size_t i;
        int neg = n > 0;
        for (i = 0; i < n && neg; i++) {
            const double p = get(x, t, i) * get(y, t, i);
            neg = p == 0 && signbit(p);
        }
        mpfr_set_zero(s, neg ? -1 : 1);
    }
    put(s, t, out);
    mpfr_clear(s);
}

void dref_dot_err(const void *x, const void *y, size_t n, wr_type t, double r, double *err, double *absum)
{
    mpfr_t s, a, p;
    size_t i;
    mpfr_init2(s, WIDE);
    mpfr_init2(a, WIDE);
    mpfr_init2(p, 128);
    exact_dot(s, x, y, n, t, 0);
    mpfr_set_zero(a, 1);
    for (i = 0; i < n; i++) {
        mpfr_set_d(p, get(x, t, i), MPFR_RNDN);
        mpfr_mul_d(p, p, get(y, t, i), MPFR_RNDN);
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(a, a, p, MPFR_RNDN);
    }
    mpfr_sub_d(s, s, r, MPFR_RNDN);
    mpfr_abs(s, s, MPFR_RNDN);
    *err = mpfr_get_d(s, MPFR_RNDU);
    *absum = mpfr_get_d(a, MPFR_RNDU);
    mpfr_clear(s);
    mpfr_clear(a);
    mpfr_clear(p);
}

static void exact_asum(mpfr_t s, const void *x, size_t n, wr_type t)
{
    size_t i;
    wide_range();
    mpfr_set_zero(s, 1);
    for (i = 0; i < n; i++) mpfr_add_d(s, s, fabs(get(x, t, i)), MPFR_RNDN);
}

void dref_asum(const void *x, size_t n, wr_type t, void *out)
{
    mpfr_t s;
    mpfr_init2(s, WIDE);
    exact_asum(s, x, n, t);
    put(s, t, out);
    mpfr_clear(s);
}

double dref_asum_err(const void *x, size_t n, wr_type t, double r)
{
    mpfr_t s;
    double e;
    mpfr_init2(s, WIDE);
    exact_asum(s, x, n, t);
    mpfr_sub_d(s, s, r, MPFR_RNDN);
    e = fabs(mpfr_get_d(s, MPFR_RNDU));
    mpfr_clear(s);
    return e;
}

static void exact_ssq(mpfr_t s, const void *x, size_t n, wr_type t)
{
    mpfr_t p;
    size_t i;
    wide_range();
    mpfr_init2(p, 128);
    mpfr_set_zero(s, 1);
    for (i = 0; i < n; i++) {
        mpfr_set_d(p, get(x, t, i), MPFR_RNDN);
        mpfr_sqr(p, p, MPFR_RNDN);
        mpfr_add(s, s, p, MPFR_RNDN);
    }
    mpfr_clear(p);
}

void dref_nrm2(const void *x, size_t n, wr_type t, void *out)
{
    const int d = t == WR_DOUBLE;
    mpfr_t s, r;
    int i;
    mpfr_init2(s, WIDE);
    mpfr_init2(r, d ? 53 : 24);
    exact_ssq(s, x, n, t);
    i = mpfr_sqrt(r, s, MPFR_RNDN);
    /* then the format's range: overflow, and subnormals rounded once more
     * from the ternary value (no double rounding) */
    mpfr_set_emin(d ? -1073 : -148);
    mpfr_set_emax(d ? 1024 : 128);
    i = mpfr_check_range(r, i, MPFR_RNDN);
    mpfr_subnormalize(r, i, MPFR_RNDN);
    put(r, t, out);
    wide_range();
    mpfr_clear(s);
    mpfr_clear(r);
}

double dref_nrm2_relerr(const void *x, size_t n, wr_type t, double r)
{
    mpfr_t s;
    double e;
    mpfr_init2(s, WIDE);
    exact_ssq(s, x, n, t);
    mpfr_sqrt(s, s, MPFR_RNDN);                   /* WIDE bits: far below any bound */
    if (mpfr_zero_p(s)) {
        mpfr_clear(s);
        return r == 0 ? 0 : INFINITY;
    }
    {
        mpfr_t d;
        mpfr_init2(d, WIDE);
        mpfr_sub_d(d, s, r, MPFR_RNDN);
        mpfr_div(d, d, s, MPFR_RNDN);
        e = fabs(mpfr_get_d(d, MPFR_RNDU));
        mpfr_clear(d);
    }
    mpfr_clear(s);
    return e;
}

#else

int dref_have(void)
{
    return 0;
}
void dref_dot(const void *x, const void *y, size_t n, wr_type t, int fma_parts, void *out)
{
    (void)x; (void)y; (void)n; (void)t; (void)fma_parts; (void)out;
}
void dref_dot_err(const void *x, const void *y, size_t n, wr_type t, double r, double *err, double *absum)
{
    (void)x; (void)y; (void)n; (void)t; (void)r;
    *err = 0;
    *absum = 0;
}
void dref_asum(const void *x, size_t n, wr_type t, void *out)
{
    (void)x; (void)n; (void)t; (void)out;
}
double dref_asum_err(const void *x, size_t n, wr_type t, double r)
{
    (void)x; (void)n; (void)t; (void)r;
    return 0;
}
void dref_nrm2(const void *x, size_t n, wr_type t, void *out)
{
    (void)x; (void)n; (void)t; (void)out;
}
double dref_nrm2_relerr(const void *x, size_t n, wr_type t, double r)
{
    (void)x; (void)n; (void)t; (void)r;
    return 0;
}

#endif

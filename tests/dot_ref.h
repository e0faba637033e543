/*
 * dot_ref.h -- exact references for dot products and norms (tests/dot_ref.c),
 * written for the tests with MPFR, independently of lib/wr_exact*.h.
 *
 * Every value is summed exactly in an MPFR number wide enough for any sum
 * of products of doubles (4400 bits across the whole exponent range), and
 * rounded once by MPFR: mpfr_get_d / mpfr_get_flt for sums, mpfr_sqrt with
 * mpfr_subnormalize for norms (round to nearest even, the formats'
 * subnormals and overflow).  Finite elements only: the tests write the
 * rules for infinities and NaNs out themselves.  Without MPFR dref_have()
 * is 0 and nothing else may be called.
 */
#ifndef WR_TEST_DOT_REF_H
#define WR_TEST_DOT_REF_H

#include <stddef.h>
#include "warpred.h"

int dref_have(void);
/* The exact dot product of x and y (n elements of t) rounded once to t.
 * fma_parts: the sum of hi = fl(x y) and lo = fl(x y - hi) instead (what
 * reproducible wr_dot sums: equal unless products underflow or overflow). */
void dref_dot(const void *x, const void *y, size_t n, wr_type t, int fma_parts, void *out);
/* |r - exact dot| and sum |x[i] y[i]|, as doubles rounded up. */
void dref_dot_err(const void *x, const void *y, size_t n, wr_type t, double r, double *err, double *absum);
/* The exact sum of |x[i]| rounded once; |r - exact| rounded up. */
void dref_asum(const void *x, size_t n, wr_type t, void *out);
double dref_asum_err(const void *x, size_t n, wr_type t, double r);
/* sqrt of the exact sum of squares, rounded once; |r - exact norm| / exact
 * norm, rounded up (0 for a zero norm and r == 0). */
void dref_nrm2(const void *x, size_t n, wr_type t, void *out);
double dref_nrm2_relerr(const void *x, size_t n, wr_type t, double r);

#endif /* WR_TEST_DOT_REF_H */

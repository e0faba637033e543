/*
 * wr_exact_front.h -- the verified front end of reproducible float/double
 * sums (wr_exact.h says how the headers fit).
 *
 * Fast front ends: floating-point expansions built with error-free
 * transformations, after ExBLAS (S. Collange, D. Defour, S. Graillat,
 * R. Iakymchuk, "Numerical reproducibility for the parallel reduction on
 * multi- and many-core architectures", Parallel Computing 49, 2015).  A
 * float data path keeps a double running sum h; a double data path keeps
 * a pair (h, l) where h is updated with TwoSum (Knuth, TAOCP vol. 2,
 * 4.2.2; Moller 1965) and its rounding error goes to l.  Every addition
 * of the front end is *verified* exact (wrx_add_exact); an element whose
 * addition cannot be verified goes to the accumulator instead.  So the
 * front end never rounds: the exact sum is always (front-end values) +
 * (accumulator), and when nothing went to the accumulator the result is
 * rounded straight from the front end by one IEEE operation, which is
 * the correct rounding of an exact value.
 *
 * The front end's verification needs IEEE binary64 additions rounded to
 * nearest (no x87 excess precision, no -ffast-math reassociation).
 */
#ifndef WR_EXACT_FRONT_H
#define WR_EXACT_FRONT_H

#include "wr_exact_acc.h"

/*
 * *s = fl(a + b); returns 1 exactly when a + b was exact (then *s == a + b).
 * Exact: both differences are exact and give b and a back.  Inexact: one of
 * fl(s - a), fl(s - b) is exact (the one that subtracts the operand of larger
 * magnitude: the Sterbenz-based step of Dekker's Fast2Sum), so it differs
 * from what it would give back.  Infinities and NaNs fail the test too (an
 * infinite s makes one of the differences NaN or infinite).
 */
WR_HD int wrx_add_exact(double a, double b, double *s)
{
    const double t = a + b;
    *s = t;
    return (t - a == b) & (t - b == a);
}

/* TwoSum: s + e == a + b exactly, s = fl(a + b), when nothing overflows
 * (then e is finite; an overflow leaves e infinite or NaN). */
WR_HD void wrx_two_sum(double a, double b, double *s, double *e)
{
    const double t = a + b, bb = t - a;
    *s = t;
    *e = (a - (t - bb)) + (b - bb);
}

/*
 * The front end, one element at a time: a float data path keeps a double h,
 * a double data path a pair (h, l).  Each returns 1 when the addition was
 * verified exact; on 0, h (and l) hold rounded values, and the caller goes
 * back to its last verified state (or adds the elements to an
 * accumulator).  The cpu, omptarget and cuda backends all sum through
 * these, so what counts as verified is the same everywhere.
 */
WR_HD int wrx_front_f32(double *h, double x)
{
    double s;
    const int ok = wrx_add_exact(*h, x, &s);
    *h = s;
    return ok;
}

WR_HD int wrx_front_f64(double *h, double *l, double x)
{
    double s, e, t;
    int ok;
    wrx_two_sum(*h, x, &s, &e);
    ok = wrx_add_exact(*l, e, &t);
    *h = s;
    *l = t;
    return ok;
}

/* Add x to a pair (h, l) exactly (double data): h by TwoSum, its error into
 * l, verified.  Returns 0, leaving the pair as it was, when that could not
 * be verified: the caller then adds x to an accumulator. */
WR_HD int wrx_pair_add(double *h, double *l, double x)
{
    double s = *h, t = *l;
    if (!wrx_front_f64(&s, &t, x)) return 0;
    *h = s;
    *l = t;
    return 1;
}

/* (h, l) += (h2, l2) exactly; 0 (pair unchanged) when not verified. */
WR_HD int wrx_pair_merge(double *h, double *l, double h2, double l2)
{
    double s, e, t, u;
    int ok;
    wrx_two_sum(*h, h2, &s, &e);
    ok = wrx_add_exact(*l, l2, &t);
    ok &= wrx_add_exact(t, e, &u);
    if (!ok) return 0;
    *h = s;
    *l = u;
    return 1;
}

/* The correctly rounded double of an exact pair: one IEEE addition rounds
 * h + l once.  The pair's sign of zero is h's (l may be an error term whose
 * zero sign means nothing), so l == 0 leaves h alone. */
WR_HD double wrx_pair_round_f64(double h, double l)
{
    return l == 0 ? h : h + l;
}

/* Add the pair (h, l) of a front end to an accumulator: h is the running
 * IEEE sum of its elements (its zero sign is theirs: an element), l only a
 * value. */
WRX_HD void wrx_add_pair(wrx_acc *a, double h, double l)
{
    wrx_add(a, h);
    wrx_add_value(a, l);
}

/* fl(h + l) rounded to odd: the exact h + l rounded to the double of odd
 * last bit when it is not a double (e: the exact error of fl(h + l)). */
WR_HD double wrx_round_odd(double d, double e)
{
    uint64_t b = wrx_bits(d);
    if (e != 0 && (b & 1) == 0 && (b & 0x7ff0000000000000u) != 0x7ff0000000000000u)
        b += ((e > 0) == (d > 0)) ? 1 : (uint64_t)-1;   /* one step away from or towards zero */
    return wrx_from_bits(b);
}

/* The rounded prefix of the front end when r is zero (the common case). */
WR_HD uint64_t wrx_pair_round_bits(double h, double l, int is_double)
{
    double d, e;
    if (is_double) return wrx_bits(wrx_pair_round_f64(h, l));
    if (l == 0) return wrx_bits_f32((float)h);
    wrx_two_sum(h, l, &d, &e);
    return wrx_bits_f32((float)wrx_round_odd(d, e));
}

#endif /* WR_EXACT_FRONT_H */

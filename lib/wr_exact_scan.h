/*
 * wr_exact_scan.h -- the state of a reproducible scan: a correctly rounded
 * prefix at every element (wr_exact.h says how the headers fit).
 *
 * A reproducible scan writes out[i] = the exact prefix sum rounded once.  A
 * backend cuts the array into pieces, sums each piece exactly (an
 * accumulator), takes the exclusive prefix of the pieces' accumulators
 * (merges: exact, any order) and runs one struct wrx_scan per piece from
 * its prefix, element by element.
 *
 * The state holds the running prefix as h + l + r: a pair (h, l) of the
 * front end, updated by wrx_pair_add (verified exact), and r, the part of
 * the prefix the pair could not take when it was last seeded, with the
 * flags of every element before that.  r is usually zero, and then out[i]
 * is the pair rounded by one IEEE operation (a double: fl(h + l); a float:
 * h + l rounded to odd in double, then to float, which cannot round twice
 * wrongly since 53 >= 24 + 2).  When r is not zero, a candidate is the
 * rounding of h + l, taken when |h + l - candidate| + |r| is proven below
 * half the gap to the candidate's neighbours (|r| <= rb); else the whole
 * prefix is rounded from an accumulator and the pair seeded again.  An
 * addition the pair cannot verify folds everything into r and seeds the
 * pair again from r's rounding (a few accumulator roundings: rare on
 * ordinary data).  Seeding keeps l to a multiple of ulp(h) 2^-40, so that
 * l has room for the rounding errors of the elements to come, and r to
 * less than ulp(h) 2^-41, so that it rarely decides a rounding.  After an
 * infinity or a NaN only the flags matter (WRX_SCAN_SPECIAL); while the
 * prefix is beyond the double range it lives in r alone (WRX_SCAN_ACC).
 */
#ifndef WR_EXACT_SCAN_H
#define WR_EXACT_SCAN_H

#include "wr_exact_front.h"

#define WRX_SCAN_FRONT 0
#define WRX_SCAN_SPECIAL 1
#define WRX_SCAN_ACC 2

struct wrx_scan {
    double h, l;        /* WRX_SCAN_FRONT: the prefix is h + l + r; ACC: h is the rounded +-inf */
    double rb;          /* 0 when r is zero, else a bound on |r| */
    int mode;           /* WRX_SCAN_* */
    int is_double;      /* rounding to double (else float) */
    int empty;          /* the prefix it started from had no elements: an exclusive
                           output before the first element is +0, not the -0 of h */
    uint32_t flags;     /* WRX_SCAN_SPECIAL: the flags of the prefix */
    wrx_acc r;
};

/* Seed the pair from s->r, which holds the whole prefix (value and flags). */
WRX_HD void wrx_scan_reseed(struct wrx_scan *s)
{
    const uint32_t f = s->r.flags;
    uint64_t hb, rb;
    double h;
    if (f & (WRX_NAN | WRX_PINF | WRX_NINF)) {
        s->mode = WRX_SCAN_SPECIAL;
        s->flags = f;
        return;
    }
    hb = wrx_round_bits(&s->r, 1);
    if (!(f & WRX_SOME)) hb = (uint64_t)1 << 63;   /* no elements: h = -0, IEEE's neutral element */
    h = wrx_from_bits(hb);
    if ((hb & 0x7fffffffffffffffu) == 0x7ff0000000000000u) {   /* beyond the doubles */
        s->mode = WRX_SCAN_ACC;
        s->h = h;
        return;
    }
    s->mode = WRX_SCAN_FRONT;
    s->h = h;
    wrx_add_value(&s->r, -h);
    s->l = 0;
    if (h != 0) {
        /* l: the rest rounded to a multiple of g = ulp(h) 2^-40 (adding and
         * subtracting c = 1.5 2^52 g, whose ulp is g: both exact), so that
         * l keeps ~13 bits below g free for the rounding errors of the
         * elements to come; r, below g / 2, then rarely decides a rounding */
        const int E = (int)((hb >> 52) & 0x7ff), ge = (E ? E : 1) - 1075 - 40;
        const double g = ge >= -1022 ? wrx_from_bits((uint64_t)(ge + 1023) << 52)
                                     : wrx_from_bits((uint64_t)1 << (ge >= -1074 ? ge + 1074 : 0));
        const double c = 1.5 * 0x1p52 * g;
        s->l = (wrx_round_f64(&s->r) + c) - c;
        wrx_add_value(&s->r, -s->l);
    }
    /* every value here is a multiple of 2^-1074: r rounds to zero only when
     * it is zero; else |r| <= |fl(r)| (1 + 2^-53) + 2^-1075 */
    rb = wrx_round_bits(&s->r, 1) & 0x7fffffffffffffffu;
    s->rb = rb ? 2 * wrx_from_bits(rb) + wrx_from_bits(1) : 0;
}

/* Start from the exclusive prefix before the piece (NULL: no elements). */
WRX_HD void wrx_scan_init(struct wrx_scan *s, const wrx_acc *prefix, int is_double)
{
    s->is_double = is_double;
    s->flags = 0;
    s->h = 0;
    s->l = 0;
    s->rb = 0;
    if (prefix) s->r = *prefix;
    else wrx_init(&s->r);
    s->empty = !(s->r.flags & WRX_SOME);
    wrx_scan_reseed(s);
}

/* The slow part of wrx_scan_add: x (any double) did not go into the pair. */
WRX_HD void wrx_scan_add_slow(struct wrx_scan *s, double x)
{
    if (s->mode == WRX_SCAN_SPECIAL) {
        s->flags |= wrx_elem_flags(x);
        return;
    }
    if (s->mode == WRX_SCAN_FRONT) {
        wrx_add_pair(&s->r, s->h, s->l);    /* h: the IEEE sum of its elements since the seed */
        s->h = 0;
        s->l = 0;
    }
    wrx_add(&s->r, x);
    wrx_scan_reseed(s);
}

/* Add the next element. */
WR_HD void wrx_scan_add(struct wrx_scan *s, double x)
{
    if (s->mode != WRX_SCAN_FRONT || !wrx_pair_add(&s->h, &s->l, x)) wrx_scan_add_slow(s, x);
}

/* Half the smaller gap between the double (is_double) or float c (finite,
 * not zero) and its neighbours, as a double; 0 when that is not a double. */
WR_HD double wrx_half_gap(double c, int is_double)
{
    const uint64_t b = wrx_bits(c) & 0x7fffffffffffffffu;
    int e;                                   /* the exponent of half a gap */
    if (is_double) {
        const int E = (int)(b >> 52);
        e = (E ? E : 1) - 1076;
        if (E > 1 && (b & 0xfffffffffffffu) == 0) e--;
    } else {
        const uint32_t fb = (uint32_t)wrx_bits_f32((float)c);
        const int F = (int)((fb >> 23) & 0xff);
        e = (F ? F : 1) - 151;
        if (F > 1 && (fb & 0x7fffffu) == 0) e--;
    }
    if (e >= -1022) return wrx_from_bits((uint64_t)(e + 1023) << 52);
    if (e >= -1074) return wrx_from_bits((uint64_t)1 << (e + 1074));
    return 0;
}

/* The prefix rounded from the accumulator (r + the pair). */
WRX_HD uint64_t wrx_scan_full_bits(const struct wrx_scan *s)
{
    wrx_acc a = s->r;
    if (s->mode == WRX_SCAN_FRONT) wrx_add_pair(&a, s->h, s->l);
    return wrx_round_bits_inplace(&a, s->is_double);
}

/* The slow part of wrx_scan_bits: r is not zero, or not in FRONT mode.  When
 * the candidate cannot be shown right, the pair is seeded again from the
 * whole prefix (its rounding is paid for anyway), so that a prefix that
 * cancelled down towards r verifies again from the next element on. */
WRX_HD uint64_t wrx_scan_bits_slow(struct wrx_scan *s)
{
    double c, d, e, t, hu;
    if (s->mode == WRX_SCAN_SPECIAL) return wrx_special_bits(s->flags, s->is_double);
    if (s->mode == WRX_SCAN_ACC) {           /* +-inf in either format */
        return s->is_double ? wrx_bits(s->h) : (uint64_t)wrx_bits_f32((float)s->h);
    }
    wrx_two_sum(s->h, s->l, &d, &e);
    if (s->is_double) {
        c = d;                               /* the prefix is c + e + r */
        t = e;
    } else {
        c = (double)(float)wrx_round_odd(d, e);
        t = d - c;                           /* exact (Sterbenz: c is within a float gap of d) */
        e = 2 * (e < 0 ? -e : e);            /* bounds |e| + |r| below with one more rounding */
    }
    if (c != 0 && c - c == 0) {              /* finite, not zero */
        hu = wrx_half_gap(c, s->is_double);
        if (t < 0) t = -t;
        if (e < 0) e = -e;
        /* each sum rounds once, monotonically: below hu (a power of two)
         * rounded means below hu exactly */
        if (s->is_double ? (t + s->rb < hu) : (t + (e + 2 * s->rb) < hu))
            return s->is_double ? wrx_bits(c) : (uint64_t)wrx_bits_f32((float)c);
    }
    wrx_add_pair(&s->r, s->h, s->l);
    s->h = 0;
    s->l = 0;
    wrx_scan_reseed(s);
    return wrx_scan_full_bits(s);
}

/* The prefix so far rounded once: the bits of a double, or of a float in
 * the low 32 bits. */
WRX_HD uint64_t wrx_scan_bits(struct wrx_scan *s)
{
    if (s->mode == WRX_SCAN_FRONT && s->rb == 0) return wrx_pair_round_bits(s->h, s->l, s->is_double);
    return wrx_scan_bits_slow(s);
}

#endif /* WR_EXACT_SCAN_H */

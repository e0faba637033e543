/*
 * wr_exact.h -- exact float/double sums: one accumulator, one rounding
 * (internal; usable from C, C++ and CUDA device code).
 *
 * Reproducible mode (WR_FLOAT_REPRODUCIBLE) defines a float or double SUM as
 * the exact sum of the elements, rounded once to nearest-even.  Every backend
 * computes that exact sum and rounds it with the code of this header, so the
 * bits agree across backends, thread counts, devices and rank counts by
 * construction: a correctly rounded result is unique.
 *
 * Two layers:
 *
 *  1. The accumulator (wrx_acc): a fixed-point number wide enough for any
 *     double sum -- Neal's "small superaccumulator" (R. M. Neal, "Fast exact
 *     summation using small and large superaccumulators", arXiv:1505.05571,
 *     2015): 32-bit digits held in int64 words, so that carries can be left
 *     pending for 2^29 additions; Kulisch's long accumulator (U. Kulisch,
 *     "Computer Arithmetic and Validity", 2008) is the same idea with eager
 *     carries.  Digit k weighs 2^(32k - 1088): digit 0 reaches below the
 *     smallest subnormal (2^-1074), digit 65 holds the bits up to 2^1023,
 *     and digit 66, a signed word, everything above (overflow headroom of
 *     2^62 times the largest double).  Adding a double is exact; merging two
 *     accumulators is an integer addition per digit, so it is exact,
 *     commutative and associative: any split of the work, any order of
 *     merging, including integer atomics on a GPU, gives the same value.
 *     Infinities, NaNs and the sign of a zero sum travel as flags.
 *
 *  2. Fast front ends: floating-point expansions built with error-free
 *     transformations, after ExBLAS (S. Collange, D. Defour, S. Graillat,
 *     R. Iakymchuk, "Numerical reproducibility for the parallel reduction on
 *     multi- and many-core architectures", Parallel Computing 49, 2015).  A
 *     float data path keeps a double running sum h; a double data path keeps
 *     a pair (h, l) where h is updated with TwoSum (Knuth, TAOCP vol. 2,
 *     4.2.2; Moller 1965) and its rounding error goes to l.  Every addition
 *     of the front end is *verified* exact (wrx_add_exact); an element whose
 *     addition cannot be verified goes to the accumulator instead.  So the
 *     front end never rounds: the exact sum is always (front-end values) +
 *     (accumulator), and when nothing went to the accumulator the result is
 *     rounded straight from the front end by one IEEE operation, which is
 *     the correct rounding of an exact value.
 *
 * The rounding (wrx_round_bits) gives: NaN (the canonical quiet NaN, every
 * bit set but the sign, as the cpu backend stores float SUM/PROD NaNs) if a
 * NaN was added or +inf and -inf both were; else +-inf if one infinity was;
 * else the exact sum rounded to nearest-even, overflowing to the signed
 * infinity, with exact subnormals.  An exact zero sum is -0 when every
 * element was -0 (at least one), else +0: what IEEE 754 addition gives for
 * an exact zero in any order (-0 + -0 = -0, x + -x = +0), and +0 for no
 * elements at all.  A non-zero sum too small for the format (a double sum
 * rounded to float) gives a zero of its own sign.
 *
 * The front end's verification needs IEEE binary64 additions rounded to
 * nearest (no x87 excess precision, no -ffast-math reassociation).
 */
#ifndef WR_EXACT_H
#define WR_EXACT_H

#include <float.h>
#include <stdint.h>
#include <string.h>
#include "wr_ops.h"

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#  error "wr_exact.h needs double arithmetic without excess precision (FLT_EVAL_METHOD 0)"
#endif

/* WR_HD (wr_ops.h) force-inlines on the device: for the small helpers.  The
 * larger slow-path functions are ordinary inline functions there. */
#if defined(__CUDACC__)
#  define WRX_HD __host__ __device__ inline
#else
#  define WRX_HD static inline
#endif
#if defined(__CUDA_ARCH__)
#  define WRX_ROLLED _Pragma("unroll 1")   /* device code: loops over digits stay loops */
#else
#  define WRX_ROLLED
#endif

#define WRX_DIGITS 67              /* digits of an accumulator */
#define WRX_TOP (WRX_DIGITS - 1)   /* the signed top digit */
#define WRX_BIAS 1088              /* digit k weighs 2^(32k - WRX_BIAS) */
/* Pending carries: |d[k]| < load * 2^32 for k < WRX_TOP; an accumulator is
 * normalised before load would pass this (two merged ones stay below 2^62). */
#define WRX_LOAD_MAX ((uint32_t)1 << 29)

/* flags */
#define WRX_NAN 0x01u              /* a NaN was added */
#define WRX_PINF 0x02u             /* +inf was added */
#define WRX_NINF 0x04u             /* -inf was added */
#define WRX_SOME 0x08u             /* at least one element was added */
#define WRX_NOTNEGZ 0x10u          /* an element other than -0 was added */
#define WRX_FLAGS 0x1fu
/* The upper bits of flags in an accumulator made by wrx_init: "WR" and the
 * layout's version, so that the public API can refuse garbage. */
#define WRX_MAGIC 0x57520100u
#define WRX_MAGIC_MASK 0xffffff00u

typedef struct wrx_acc {
    int64_t d[WRX_DIGITS];         /* digits; d[WRX_TOP] signed, the others pending carries */
    uint32_t flags;                /* WRX_* | WRX_MAGIC */
    uint32_t load;                 /* see WRX_LOAD_MAX */
} wrx_acc;                         /* 544 bytes: the public wr_exact_sum */

/* ---- bits ------------------------------------------------------------------ */

WR_HD uint64_t wrx_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

WR_HD uint32_t wrx_bits_f32(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

WR_HD double wrx_from_bits(uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

WR_HD float wrx_from_bits32(uint32_t b)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/* Leading zeros of a non-zero 32-bit word. */
WR_HD int wrx_clz32(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return __clz((int)v);
#elif defined(__GNUC__)
    return __builtin_clz(v);
#else
    int n = 0;
    while (!(v & 0x80000000u)) { v <<= 1; n++; }
    return n;
#endif
}

/* ---- the accumulator ------------------------------------------------------------ */

/* The sum of no elements. */
WRX_HD void wrx_init(wrx_acc *a)
{
    int k;
    WRX_ROLLED for (k = 0; k < WRX_DIGITS; k++) a->d[k] = 0;
    a->flags = WRX_MAGIC;
    a->load = 1;
}

/* The flags that adding element x sets. */
WR_HD uint32_t wrx_elem_flags(double x)
{
    const uint64_t b = wrx_bits(x);
    const uint64_t mag = b & 0x7fffffffffffffffu;
    if (mag >= 0x7ff0000000000000u) {
        if (mag > 0x7ff0000000000000u) return WRX_NAN | WRX_SOME | WRX_NOTNEGZ;
        return ((b >> 63) ? WRX_NINF : WRX_PINF) | WRX_SOME | WRX_NOTNEGZ;
    }
    return b == 0x8000000000000000u ? WRX_SOME : WRX_SOME | WRX_NOTNEGZ;
}

/* A finite non-zero x as three signed pieces p[0..2], each of magnitude
 * below 2^32, to be added to digits k, k+1, k+2 (k <= WRX_TOP - 2): x =
 * (p[0] + p[1] 2^32 + p[2] 2^64) 2^(32k - WRX_BIAS).  Returns 0 (nothing to
 * add) for a zero, an infinity or a NaN. */
WR_HD int wrx_split(double x, int *k, int64_t p[3])
{
    const uint64_t b = wrx_bits(x);
    int e = (int)((b >> 52) & 0x7ff), pos, s;
    uint64_t m = b & 0xfffffffffffffu, lo;
    if (e == 0x7ff) return 0;
    if (e != 0) m |= (uint64_t)1 << 52;
    else e = 1;                           /* subnormal: same scale as the smallest normal */
    if (m == 0) return 0;
    pos = e + (WRX_BIAS - 1075);          /* position of m's lowest bit: 2^(e - 1075) */
    s = pos & 31;
    *k = pos >> 5;
    lo = m << s;                          /* the low 64 bits of m * 2^s (m < 2^53, s < 32) */
    p[0] = (int64_t)(lo & 0xffffffffu);
    p[1] = (int64_t)(lo >> 32);
    p[2] = (int64_t)((m >> 32) >> (32 - s));   /* the bits above 2^64; s == 0: none */
    if (b >> 63) {
        p[0] = -p[0];
        p[1] = -p[1];
        p[2] = -p[2];
    }
    return 1;
}

/* Propagate the pending carries: digits below the top in [0, 2^32), the
 * top digit signed.  (Dividing v - low by 2^32 is exact, so it needs no
 * implementation-defined shift of a negative number.) */
WRX_HD void wrx_normalize(wrx_acc *a)
{
    int64_t c = 0;
    int k;
    WRX_ROLLED for (k = 0; k < WRX_TOP; k++) {
        const int64_t v = a->d[k] + c;
        const int64_t low = (int64_t)(uint32_t)v;
        c = (v - low) / ((int64_t)1 << 32);
        a->d[k] = low;
    }
    a->d[WRX_TOP] += c;
    a->load = 1;
}

/* Add a finite value's digits, without touching the flags (for the parts of
 * a front end that are not elements, such as error terms).  Zero: nothing. */
WRX_HD void wrx_add_value(wrx_acc *a, double v)
{
    int64_t p[3];
    int k;
    if (!wrx_split(v, &k, p)) return;
    a->d[k] += p[0];
    a->d[k + 1] += p[1];
    a->d[k + 2] += p[2];
    if (++a->load > WRX_LOAD_MAX) wrx_normalize(a);
}

/* Add one element exactly (any double, and so any float). */
WRX_HD void wrx_add(wrx_acc *a, double x)
{
    a->flags |= wrx_elem_flags(x);
    wrx_add_value(a, x);
}

/* a += b (a == b allowed). */
WRX_HD void wrx_merge(wrx_acc *a, const wrx_acc *b)
{
    const uint32_t bl = b->load;
    int k;
    WRX_ROLLED for (k = 0; k < WRX_DIGITS; k++) a->d[k] += b->d[k];
    a->flags |= b->flags;
    a->load += bl;
    if (a->load > WRX_LOAD_MAX) wrx_normalize(a);
}

/* The 64 bits from position pos (pos >= 0) up of a normalised magnitude
 * (digits below the top in [0, 2^32), the top digit zero). */
WR_HD uint64_t wrx_window(const int64_t *d, int pos)
{
    const int k = pos >> 5, s = pos & 31;
    uint64_t w = (uint64_t)d[k] >> s;
    if (k + 1 < WRX_TOP) w |= (uint64_t)d[k + 1] << (32 - s);
    if (k + 2 < WRX_TOP && s != 0) w |= (uint64_t)d[k + 2] << (64 - s);
    return w;
}

/* The result of a sum to which an infinity or a NaN was added (flags f has
 * WRX_NAN, WRX_PINF or WRX_NINF): the bits of wrx_round_bits below. */
WR_HD uint64_t wrx_special_bits(uint32_t f, int is_double)
{
    const uint64_t inf = is_double ? 0x7ff0000000000000u : 0x7f800000u;
    if ((f & WRX_NAN) || ((f & WRX_PINF) && (f & WRX_NINF)))
        return is_double ? 0x7fffffffffffffffu : 0x7fffffffu;
    if (f & WRX_PINF) return inf;
    return inf | (is_double ? (uint64_t)1 << 63 : (uint64_t)1 << 31);
}

/*
 * The correctly rounded sum as the bits of a double (is_double) or of a
 * float (in the low 32 bits), normalising a on the way (a negative sum is
 * left as its magnitude).
 * The one rounding routine of the library.
 *
 * With the magnitude's highest bit at position M (weight 2^(M - WRX_BIAS)),
 * the result keeps the P bits from M down (P = 53 or 24), or fewer when it
 * is subnormal: its lowest kept position r is never below rmin, the
 * position of the smallest subnormal.  q = the kept bits, rounded to
 * nearest-even by the next bit (half) and all lower ones (sticky).  The
 * encoding is then ((r - rmin) << (P - 1)) + q: q's hidden bit, when it has
 * one, adds 1 to the exponent field, and a q rounded up to 2^P carries into
 * it, so subnormals, the step to the smallest normal and overflow to
 * infinity all fall out of one addition.
 */
WRX_HD uint64_t wrx_round_bits_inplace(wrx_acc *a, int is_double)
{
    const int P = is_double ? 53 : 24;
    const int rmin = WRX_BIAS - (is_double ? 1074 : 149);
    const uint64_t inf = is_double ? 0x7ff0000000000000u : 0x7f800000u;
    const uint64_t sign_bit = is_double ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    const uint32_t f = a->flags;
    uint64_t sign = 0, q, bits;
    int k, h, M, r, half = 0, sticky = 0;

    if (f & (WRX_NAN | WRX_PINF | WRX_NINF)) return wrx_special_bits(f, is_double);

    wrx_normalize(a);
    if (a->d[WRX_TOP] < 0) {                  /* magnitude of a negative sum */
        sign = sign_bit;
        WRX_ROLLED for (k = 0; k < WRX_DIGITS; k++) a->d[k] = -a->d[k];
        wrx_normalize(a);
    }
    if (a->d[WRX_TOP] != 0) return inf | sign;   /* at least 2^1024 */
    WRX_ROLLED for (h = WRX_TOP - 1; h >= 0 && a->d[h] == 0; h--) {}
    if (h < 0)                                /* an exact zero */
        return ((f & WRX_SOME) && !(f & WRX_NOTNEGZ)) ? sign_bit : 0;

    M = 32 * h + 31 - wrx_clz32((uint32_t)a->d[h]);
    r = M - P + 1;
    if (r < rmin) r = rmin;
    q = wrx_window(a->d, r);                  /* bits above M are zero */
    if (r - 1 <= M) {                         /* (r >= rmin >= 1) */
        const int hp = r - 1, hk = hp >> 5, hs = hp & 31;
        half = (int)(((uint64_t)a->d[hk] >> hs) & 1);
        sticky = ((uint64_t)a->d[hk] & (((uint64_t)1 << hs) - 1)) != 0;
        WRX_ROLLED for (k = hk - 1; k >= 0 && !sticky; k--) sticky = a->d[k] != 0;
    } else {
        sticky = 1;                           /* the whole (non-zero) value is below half */
    }
    if (half && (sticky || (q & 1))) q++;
    bits = ((uint64_t)(r - rmin) << (P - 1)) + q;
    if (bits >= inf) bits = inf;
    return bits | sign;
}

/* The same, leaving the accumulator as it is. */
WRX_HD uint64_t wrx_round_bits(const wrx_acc *in, int is_double)
{
    wrx_acc a = *in;
    return wrx_round_bits_inplace(&a, is_double);
}

WRX_HD double wrx_round_f64(const wrx_acc *a)
{
    return wrx_from_bits(wrx_round_bits(a, 1));
}

WRX_HD float wrx_round_f32(const wrx_acc *a)
{
    return wrx_from_bits32((uint32_t)wrx_round_bits(a, 0));
}

/* ---- the front ends' verified operations -------------------------------------- */

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

/* Add x to a pair (h, l) exactly (double data): h by TwoSum, its error into
 * l, verified.  Returns 0, leaving the pair as it was, when that could not
 * be verified: the caller then adds x to an accumulator. */
WR_HD int wrx_pair_add(double *h, double *l, double x)
{
    double s, e, t;
    wrx_two_sum(*h, x, &s, &e);
    if (!wrx_add_exact(*l, e, &t)) return 0;
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

/* ---- scans: a correctly rounded prefix at every element ------------------------
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

/* fl(h + l) rounded to odd: the exact h + l rounded to the double of odd
 * last bit when it is not a double (e: the exact error of fl(h + l)). */
WR_HD double wrx_round_odd(double d, double e)
{
    uint64_t b = wrx_bits(d);
    if (e != 0 && (b & 1) == 0 && (b & 0x7ff0000000000000u) != 0x7ff0000000000000u)
        b += ((e > 0) == (d > 0)) ? 1 : (uint64_t)-1;   /* one step away from or towards zero */
    return wrx_from_bits(b);
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

/* The rounded prefix of the front end when r is zero (the common case). */
WR_HD uint64_t wrx_pair_round_bits(double h, double l, int is_double)
{
    double d, e;
    if (is_double) return wrx_bits(wrx_pair_round_f64(h, l));
    if (l == 0) return wrx_bits_f32((float)h);
    wrx_two_sum(h, l, &d, &e);
    return wrx_bits_f32((float)wrx_round_odd(d, e));
}

/* The prefix so far rounded once: the bits of a double, or of a float in
 * the low 32 bits. */
WRX_HD uint64_t wrx_scan_bits(struct wrx_scan *s)
{
    if (s->mode == WRX_SCAN_FRONT && s->rb == 0) return wrx_pair_round_bits(s->h, s->l, s->is_double);
    return wrx_scan_bits_slow(s);
}

#endif /* WR_EXACT_H */

/*
 * wr_exact_acc.h -- the exact accumulator of reproducible float/double sums
 * and the one rounding of the library (wr_exact.h says how the headers fit).
 *
 * The accumulator (wrx_acc): a fixed-point number wide enough for any
 * double sum -- Neal's "small superaccumulator" (R. M. Neal, "Fast exact
 * summation using small and large superaccumulators", arXiv:1505.05571,
 * 2015): 32-bit digits held in int64 words, so that carries can be left
 * pending for 2^29 additions; Kulisch's long accumulator (U. Kulisch,
 * "Computer Arithmetic and Validity", 2008) is the same idea with eager
 * carries.  Digit k weighs 2^(32k - 1088): digit 0 reaches below the
 * smallest subnormal (2^-1074), digit 65 holds the bits up to 2^1023,
 * and digit 66, a signed word, everything above (overflow headroom of
 * 2^62 times the largest double).  Adding a double is exact; merging two
 * accumulators is an integer addition per digit, so it is exact,
 * commutative and associative: any split of the work, any order of
 * merging, including integer atomics on a GPU, gives the same value.
 * Infinities, NaNs and the sign of a zero sum travel as flags.
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
 */
#ifndef WR_EXACT_ACC_H
#define WR_EXACT_ACC_H

#include <float.h>
#include <stdint.h>
#include <string.h>
#include "wr_ops.h"

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#  error "wr_exact_acc.h needs double arithmetic without excess precision (FLT_EVAL_METHOD 0)"
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

#endif /* WR_EXACT_ACC_H */

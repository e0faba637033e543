/*
 * wr_exact_norm.h -- the reproducible Euclidean norm: the exact sum of
 * squares in three exact sums, and its square root rounded once
 * (internal; C and C++, host code; builds on wr_exact.h).
 *
 * Reproducible wr_nrm2 is sqrt(S) rounded once to nearest-even, S the exact
 * sum of the squares.  Squares of doubles span 2^-2148 .. 2^2048, twice the
 * range of one wrx_acc (2^-1088 .. 2^1086), so S is kept as three exact
 * sums, by the magnitude of the element (its exponent field alone: the same
 * split on every backend, in any order):
 *
 *   part 1: 2^-485 <= |x| < 2^512, and zeros, infinities, NaNs: x^2 as it is;
 *   part 2: |x| >= 2^512: (x 2^-608)^2, that is x^2 2^-1216;
 *   part 0: 0 < |x| < 2^-485: (x 2^608)^2, that is x^2 2^1216.
 *
 * The scalings by 2^-+608 are exact (the scaled element stays normal), and
 * every square that reaches an exact sum lies in [2^-970, 2^1024) with no
 * bit below 2^-1074, so an FMA splits it exactly into hi = fl(x^2) and lo =
 * x^2 - hi, both doubles: S = 2^-1216 S0 + S1 + 2^1216 S2 exactly.  Floats
 * all fall in part 1, and their squares are exact doubles (lo == 0).
 *
 * wrx_norm_round_bits then rounds sqrt(S) once: the three parts are merged
 * into one wide integer (1216 = 38 digits of 32 bits: the parts line up on
 * digit boundaries), an approximate root from its top 64 bits gives a
 * candidate, and exact integer comparisons of S with the squares of the
 * midpoints around the candidate move it to the correctly rounded one
 * (ties to even), subnormal and overflowing results included.  The
 * approximation only chooses where to start: the result is a function of S
 * alone, the same bits on any backend that computes S exactly.
 */
#ifndef WR_EXACT_NORM_H
#define WR_EXACT_NORM_H

#include "wr_exact.h"

#define WRX_NORM_SHIFT 608          /* elements of parts 0 and 2 are scaled by 2^-+608 */
#define WRX_NORM_DIGITS 38          /* 2 * 608 / 32: the parts' offset in digits */
#define WRX_NORM_WIDE (WRX_DIGITS + 2 * WRX_NORM_DIGITS)   /* digits of the merged S */
#define WRX_NORM_BIAS (WRX_BIAS + 2 * 608)                  /* wide digit k weighs 2^(32k - 2304) */

/* The part (0, 1 or 2) of a double element; floats are always part 1. */
WR_HD int wrx_norm_part(double x)
{
    const uint64_t b = wrx_bits(x) & 0x7fffffffffffffffu;
    const unsigned E = (unsigned)(b >> 52);
    if (E >= 1535u && E != 2047u) return 2;     /* 2^512 <= |x| < inf */
    if (E <= 537u && b != 0) return 0;          /* 0 < |x| < 2^-485 */
    return 1;
}

/* The element of part p as it is squared: scaled by 2^-608 (part 2) or
 * 2^608 (part 0), exactly. */
WR_HD double wrx_norm_scaled(double x, int p)
{
    if (p == 2) return x * 0x1p-608;
    if (p == 0) return x * 0x1p+608;
    return x;
}

/* sign(S - a^2 2^sh) for the wide non-negative S in w[0 .. WRX_NORM_WIDE)
 * (normalised: every digit in [0, 2^32)), a < 2^56, sh >= 0. */
static inline int wrx_norm_cmp(const int64_t *w, uint64_t a, int sh)
{
    uint64_t sq[5] = { 0, 0, 0, 0, 0 }, dig[6] = { 0, 0, 0, 0, 0, 0 };
    const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    const int k0 = sh >> 5, s = sh & 31;
    uint64_t t, c;
    int i, j;
    /* a^2 in 32-bit digits (a1 < 2^24: no partial product overflows) */
    t = a0 * a0;
    sq[0] = t & 0xffffffffu;
    c = t >> 32;
    t = 2 * (a0 * a1) + c;                      /* a0 a1 < 2^56: 2 a0 a1 + carry < 2^58 */
    sq[1] = t & 0xffffffffu;
    c = t >> 32;
    t = a1 * a1 + c;
    sq[2] = t & 0xffffffffu;
    sq[3] = t >> 32;
    /* shifted left by s bits, into digits k0 .. k0 + 4 */
    c = 0;
    for (i = 0; i < 5; i++) {
        t = (sq[i] << s) | c;
        dig[i] = t & 0xffffffffu;
        c = s ? sq[i] >> (32 - s) : 0;
    }
    dig[5] = c;
    for (j = (k0 + 6 > WRX_NORM_WIDE ? k0 + 6 : WRX_NORM_WIDE) - 1; j >= 0; j--) {
        const uint64_t wd = j < WRX_NORM_WIDE ? (uint64_t)w[j] : 0;
        const uint64_t ad = (j >= k0 && j < k0 + 6) ? dig[j - k0] : 0;
        if (wd != ad) return wd > ad ? 1 : -1;
    }
    return 0;
}

/*
 * sqrt(S) rounded once to nearest-even, as the bits of a double (is_double)
 * or of a float (the low 32 bits), for S = 2^-1216 a[0] + a[1] + 2^1216
 * a[2]: NaN (every bit but the sign) if a NaN was added or S < 0, else +inf
 * if an infinity was or the root passes the type's largest value, +0 for
 * S == 0.  The parts must be valid accumulators (their magnitude below
 * 2^1086).
 */
static inline uint64_t wrx_norm_round_bits(const wrx_acc a[3], int is_double)
{
    const int P = is_double ? 53 : 24, fmin = is_double ? -1074 : -149;
    const uint64_t nan = is_double ? 0x7fffffffffffffffu : 0x7fffffffu;
    const uint64_t inf = is_double ? 0x7ff0000000000000u : 0x7f800000u;
    const uint32_t f = a[0].flags | a[1].flags | a[2].flags;
    int64_t w[WRX_NORM_WIDE], carry = 0;
    uint64_t m, win;
    int k, p, h, M, q, fexp, E, guard;
    double td, sd;

    if (f & WRX_NAN) return nan;
    if (f & (WRX_PINF | WRX_NINF)) return inf;
    for (k = 0; k < WRX_NORM_WIDE; k++) w[k] = 0;
    for (p = 0; p < 3; p++) {
        wrx_acc t = a[p];
        wrx_normalize(&t);
        for (k = 0; k < WRX_DIGITS; k++) w[k + p * WRX_NORM_DIGITS] += t.d[k];
    }
    for (k = 0; k < WRX_NORM_WIDE - 1; k++) {     /* carries: digits in [0, 2^32), the top signed */
        const int64_t v = w[k] + carry, low = (int64_t)(uint32_t)v;
        carry = (v - low) / ((int64_t)1 << 32);
        w[k] = low;
    }
    w[WRX_NORM_WIDE - 1] += carry;
    if (w[WRX_NORM_WIDE - 1] < 0) return nan;
    /* the top digit of a valid sum is below 2^62 (+ 2^32): it fits the
     * comparisons' digit range only as a value, so bring it into digits */
    for (h = WRX_NORM_WIDE - 1; h >= 0 && w[h] == 0; h--) {}
    if (h < 0) return 0;                          /* S == 0: +0 */
    if (w[h] >= ((int64_t)1 << 32)) return inf;   /* S >= 2^(32 * 142 - 2304) = 2^2240: no real norm */
    M = 32 * h + 31 - wrx_clz32((uint32_t)w[h]);   /* S in [2^(M - 2304), 2^(M - 2303)) */

    /* the top 64 bits of S: S ~ win 2^q */
    q = M - 63;
    if (q >= 0) {
        const int kk = q >> 5, s = q & 31;
        win = (uint64_t)w[kk] >> s;
        if (kk + 1 < WRX_NORM_WIDE) win |= (uint64_t)w[kk + 1] << (32 - s);
        if (kk + 2 < WRX_NORM_WIDE && s != 0) win |= (uint64_t)w[kk + 2] << (64 - s);
    } else {
        win = ((uint64_t)w[1] << 32 | (uint64_t)w[0]) << -q;
    }
    q -= WRX_NORM_BIAS;
    td = (double)win;
    if (q & 1) {
        td *= 2;
        q--;
    }
    sd = __builtin_sqrt(td);                      /* sqrt(S) ~ sd 2^(q / 2) */
    {
        int e2;
        (void)__builtin_frexp(sd, &e2);           /* sd in [2^(e2 - 1), 2^e2) */
        E = e2 - 1 + q / 2;
    }
    fexp = E - P + 1 < fmin ? fmin : E - P + 1;
    m = (uint64_t)__builtin_llround(__builtin_ldexp(sd, q / 2 - fexp));
    if (m >> P) {
        m >>= 1;
        fexp++;
    }

    /* exact corrections: sqrt(S) rounds to m 2^fexp when S lies between the
     * squares of the midpoints below and above it */
    for (guard = 0; guard < 64; guard++) {
        /* upper midpoint (2m + 1) 2^(fexp - 1) */
        int c = wrx_norm_cmp(w, 2 * m + 1, 2 * fexp - 2 + WRX_NORM_BIAS);
        if (c > 0 || (c == 0 && (m & 1))) {
            m++;
            if (m >> P) {
                m >>= 1;
                fexp++;
            }
            continue;
        }
        if (m == 0) break;
        if (m == ((uint64_t)1 << (P - 1)) && fexp > fmin) {
            /* the next value below is (2^P - 1) 2^(fexp - 1): midpoint (2^(P+1) - 1) 2^(fexp - 2) */
            c = wrx_norm_cmp(w, ((uint64_t)1 << (P + 1)) - 1, 2 * fexp - 4 + WRX_NORM_BIAS);
            if (c < 0) {
                m = ((uint64_t)1 << P) - 1;
                fexp--;
                continue;
            }
        } else {
            c = wrx_norm_cmp(w, 2 * m - 1, 2 * fexp - 2 + WRX_NORM_BIAS);
            if (c < 0 || (c == 0 && (m & 1))) {
                m--;
                continue;
            }
        }
        break;
    }

    if (m == 0) return 0;
    if (m >> (P - 1)) {                            /* normal: fexp >= fmin */
        const uint64_t be = (uint64_t)(fexp - fmin + 1);   /* the biased exponent field */
        if (be >= (is_double ? 2047u : 255u)) return inf;
        return (be << (P - 1)) | (m & (((uint64_t)1 << (P - 1)) - 1));
    }
    return m;                                     /* subnormal (fexp == fmin) */
}

#endif /* WR_EXACT_NORM_H */

/*
 * exact_ref.c -- the tests' exact reference for float/double sums
 * (exact_ref.h says what it does).
 */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef HAVE_MPFR
#  include <mpfr.h>
#endif
#include "exact_ref.h"

void tx_init(tx_acc *a)
{
    memset(a, 0, sizeof *a);
}

/* w += v << (32 * k) (v < 2^32), or -= when neg, carrying all the way. */
static void tx_word(tx_acc *a, int k, uint64_t v, int neg)
{
    for (; k < TX_WORDS && v; k++) {
        if (!neg) {
            uint64_t s = (uint64_t)a->w[k] + v;
            a->w[k] = (uint32_t)s;
            v = s >> 32;
        } else {
            uint64_t cur = a->w[k];
            a->w[k] = (uint32_t)(cur - v);
            v = cur < v ? 1 : 0;          /* borrow (v <= 2^32) */
        }
    }
}

void tx_add(tx_acc *a, double x)
{
    uint64_t b, m;
    int e, pos, neg;
    memcpy(&b, &x, 8);
    a->n++;
    if (b != UINT64_C(0x8000000000000000)) a->notneg0 = 1;
    if (isnan(x)) { a->nan = 1; return; }
    if (isinf(x)) { if (x > 0) a->pinf = 1; else a->ninf = 1; return; }
    neg = (int)(b >> 63);
    e = (int)((b >> 52) & 0x7ff);
    m = b & UINT64_C(0xfffffffffffff);
    if (e) m |= UINT64_C(1) << 52; else e = 1;
    if (m == 0) return;
    pos = e - 1075 + TX_LOW;              /* bit of m's lowest bit */
    /* m << (pos % 32) in three words, each added with its own carry chain */
    {
        const int k = pos / 32, s = pos % 32;
        const uint64_t lo = m << s, hi = s ? (m >> (64 - s)) : 0;
        tx_word(a, k, lo & 0xffffffffu, neg);
        tx_word(a, k + 1, lo >> 32, neg);
        tx_word(a, k + 2, hi, neg);
    }
}

void tx_add_f(tx_acc *a, const void *buf, wr_type t, size_t i)
{
    if (t == WR_FLOAT) {
        float f;
        memcpy(&f, (const char *)buf + 4 * i, 4);
        tx_add(a, f);
    } else {
        double d;
        memcpy(&d, (const char *)buf + 8 * i, 8);
        tx_add(a, d);
    }
}

int have_ref(void)
{
#ifdef HAVE_MPFR
    return 1;
#else
    return 0;
#endif
}

void tx_result(const tx_acc *a, wr_type t, void *out)
{
    const int dbl = t == WR_DOUBLE;
    double d = 0;
    if (a->nan || (a->pinf && a->ninf)) {
        uint64_t q = UINT64_C(0x7fffffffffffffff);
        uint32_t qf = 0x7fffffffu;
        if (dbl) memcpy(out, &q, 8); else memcpy(out, &qf, 4);
        return;
    }
    if (a->pinf || a->ninf) {
        d = a->pinf ? INFINITY : -INFINITY;
    } else {
#ifdef HAVE_MPFR
        uint32_t w[TX_WORDS];
        int neg = (a->w[TX_WORDS - 1] >> 31) != 0, k, zero = 1;
        mpfr_t v;
        memcpy(w, a->w, sizeof w);
        if (neg) {                        /* two's complement negation */
            uint64_t c = 1;
            for (k = 0; k < TX_WORDS; k++) {
                uint64_t s = (uint64_t)(uint32_t)~w[k] + c;
                w[k] = (uint32_t)s;
                c = s >> 32;
            }
        }
        for (k = 0; k < TX_WORDS; k++) zero &= w[k] == 0;
        if (zero) {
            d = (a->n > 0 && !a->notneg0) ? -0.0 : 0.0;
        } else {
            mpfr_init2(v, 32 * TX_WORDS + 64);
            mpfr_set_ui(v, 0, MPFR_RNDN);
            for (k = TX_WORDS - 1; k >= 0; k--) {
                mpfr_mul_2ui(v, v, 32, MPFR_RNDN);
                mpfr_add_ui(v, v, w[k], MPFR_RNDN);
            }
            mpfr_div_2ui(v, v, TX_LOW, MPFR_RNDN);          /* exact */
            if (neg) mpfr_neg(v, v, MPFR_RNDN);
            if (dbl) {
                d = mpfr_get_d(v, MPFR_RNDN);
                if (d == 0) d = neg ? -0.0 : 0.0;
            } else {
                float f = mpfr_get_flt(v, MPFR_RNDN);
                if (f == 0) f = neg ? -0.0f : 0.0f;
                mpfr_clear(v);
                memcpy(out, &f, 4);
                return;
            }
            mpfr_clear(v);
        }
#endif
    }
    if (dbl) memcpy(out, &d, 8);
    else {
        float f = (float)d;               /* an infinity or a zero: exact */
        memcpy(out, &f, 4);
    }
}

void ref_sum(const void *x, size_t n, wr_type t, void *out)
{
    tx_acc a;
    size_t i;
    tx_init(&a);
    for (i = 0; i < n; i++) tx_add_f(&a, x, t, i);
    tx_result(&a, t, out);
}

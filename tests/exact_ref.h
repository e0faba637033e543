/*
 * exact_ref.h -- an exact reference for float/double sums, written for the
 * tests independently of lib/wr_exact.h (tests/exact_ref.c).
 *
 * Every element is added exactly into a wide two's complement fixed-point
 * number (32-bit words with eager carries, lowest bit 2^-1120, room for
 * 2^60 largest doubles); the result turns that into an MPFR number exactly
 * and lets MPFR round it (mpfr_get_d / mpfr_get_flt, round to nearest even,
 * with the formats' subnormals and overflow); infinities, NaNs and the sign
 * of a zero follow warpred.h's rule, written out here.  Without MPFR
 * (have_ref() == 0) only infinities, NaNs and zeros are right.
 */
#ifndef WR_TEST_EXACT_REF_H
#define WR_TEST_EXACT_REF_H

#include <stddef.h>
#include <stdint.h>
#include "warpred.h"

#define TX_WORDS 72               /* 2304 bits: 2^-1120 .. 2^1184, two's complement */
#define TX_LOW 1120

typedef struct tx_acc {
    uint32_t w[TX_WORDS];
    int nan, pinf, ninf, n, notneg0;
} tx_acc;

void tx_init(tx_acc *a);
/* Add one element exactly. */
void tx_add(tx_acc *a, double x);
/* Add element i of buf (type t). */
void tx_add_f(tx_acc *a, const void *buf, wr_type t, size_t i);
/* 1 when the reference rounds (built with MPFR). */
int have_ref(void);
/* The reference result (one element of t) of everything added to a. */
void tx_result(const tx_acc *a, wr_type t, void *out);
/* The reference sum of x[0..n). */
void ref_sum(const void *x, size_t n, wr_type t, void *out);

#endif /* WR_TEST_EXACT_REF_H */

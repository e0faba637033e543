/*
 * testutil.h -- what libwarpred's test programs share: a seeded PRNG, tables
 * of types and ops, an independent serial reference, data generators,
 * poisoned buffers and checks on error text.
 *
 * The reference deliberately does not use lib/wr_ops.h: a test that shares
 * the library's definition of "minimum" or "identity" cannot catch a mistake
 * in it.  Integers are computed on their bit patterns in uint64_t (so
 * wrap-around is modular arithmetic, never undefined behaviour); floats in
 * long double, with compensated (Neumaier) summation so that the reference is
 * far more accurate than the bounds the library is held to.
 */
#ifndef WR_TESTUTIL_H
#define WR_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include "warpred.h"
#include "tap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- random numbers: splitmix64 (Steele, Lea & Flood, OOPSLA 2014) ----- */
typedef struct tu_rng { uint64_t s; } tu_rng;
/* The run's seed: WR_TEST_SEED from the environment, else time and pid.
 * Printed once as a TAP diagnostic so that a failure can be repeated. */
uint64_t tu_seed(void);
void     tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rand(tu_rng *r);
uint64_t tu_below(tu_rng *r, uint64_t n);      /* uniform in [0, n); n > 0 */
double   tu_unit(tu_rng *r);                   /* uniform in [0, 1), 53 bits */

/* ---- types and ops ------------------------------------------------------ */
#define TU_NTYPES 6
#define TU_NOPS 7
extern const wr_type tu_types[TU_NTYPES];
extern const wr_op tu_ops[TU_NOPS];
const char *tu_type_name(wr_type t);
const char *tu_op_name(wr_op op);
size_t tu_size(wr_type t);                     /* bytes per element */
int    tu_is_float(wr_type t);
int    tu_is_signed(wr_type t);
int    tu_valid(wr_type t, wr_op op);          /* bitwise ops need an integer type */
/* for (every valid (t, op) pair): t and op must be declared by the caller. */
#define TU_FOR_PAIRS(t, op)                                                    \
    for (int tu_k_ = 0; tu_k_ < TU_NTYPES * TU_NOPS; tu_k_++)                  \
        if (((t) = tu_types[tu_k_ / TU_NOPS]), ((op) = tu_ops[tu_k_ % TU_NOPS]), \
            tu_valid((t), (op)))

/* The sizes every reduce/scan test covers (the list). */
extern const size_t tu_sizes[];
extern const size_t tu_nsizes;
/* tu_sizes followed by nrandom sizes drawn from [1, maxrandom]; out must hold
 * tu_nsizes + nrandom entries.  Returns how many were written, and the
 * largest in *maxn.  The random sizes are listed in a diagnostic. */
size_t tu_make_sizes(tu_rng *r, size_t *out, size_t nrandom, size_t maxrandom, size_t *maxn);

/* ---- elements ----------------------------------------------------------- */
uint64_t tu_get_bits(const void *buf, wr_type t, size_t i);     /* zero-extended */
void     tu_set_bits(void *buf, wr_type t, size_t i, uint64_t bits);
long double tu_get_f(const void *buf, wr_type t, size_t i);     /* float types only */
void     tu_set_f(void *buf, wr_type t, size_t i, double v);    /* float types only */
/* The element's value in readable form (decimal; floats also in %a). */
const char *tu_fmt(const void *elem, wr_type t, char *buf, size_t len);
/* A float or double element as C99 hex and its bits, "0x1.8p+1 (0x40400000)":
 * what a bit-exact check prints. */
const char *tu_fmt_bits(const void *elem, wr_type t, char *buf, size_t len);
/* The identity of op for t, written as one element (from DESIGN.md's table). */
void tu_identity(wr_type t, wr_op op, void *elem);
/* 1 if two elements are the same bits (any NaN matches any NaN). */
int tu_same(const void *a, const void *b, wr_type t);

/* ---- the reference ------------------------------------------------------ */
typedef struct tu_acc {
    wr_type t;
    wr_op op;
    uint64_t bits;           /* integers, float MIN/MAX: the running value's bits */
    long double s, c;        /* float SUM: Neumaier sum and compensation; PROD: s = product */
    long double mag;         /* float SUM: sum of |x| */
    size_t n;                /* elements added so far */
} tu_acc;
void tu_acc_init(tu_acc *a, wr_type t, wr_op op);
/* Add buf[i]. */
void tu_acc_add(tu_acc *a, const void *buf, size_t i);
/* The reference result rounded to the type, as one element. */
void tu_acc_value(const tu_acc *a, void *elem);
/* 1 if got agrees with the reference.  slack == 0: bit-identical.  slack > 0
 * (float SUM/PROD only): SUM within slack*u*sum|x|, PROD within gamma_slack
 * (= slack*u / (1 - slack*u)) relative, u the unit roundoff of the type. */
int tu_acc_match(const tu_acc *a, const void *got, double slack);
/* Why got did not match, for a diagnostic. */
void tu_acc_explain(const tu_acc *a, const void *got, char *buf, size_t len);

/* Bounds the library is held to (DESIGN.md), as slack for tu_acc_match:
 * a reduce of n elements, and output i of a scan that combined m elements. */
double tu_reduce_slack(wr_op op, size_t n);
double tu_scan_slack(wr_op op, size_t m);

/* Data generators.  TU_EXACT: data whose result is exact in any order of
 * evaluation (bit-exact check): integers of every op, integer-valued floats
 * for SUM, powers of two for float PROD, arbitrary floats for MIN/MAX.
 * TU_ROUNDED: random floats for SUM/PROD that round (bounded check).
 * group: how many elements one result combines (n for a reduce, cols for
 * rows); it keeps bitwise ops informative and float results in range. */
enum tu_kind { TU_EXACT, TU_ROUNDED };
void tu_fill(tu_rng *r, void *buf, size_t n, wr_type t, wr_op op, enum tu_kind kind, size_t group);
/* The kinds of data that apply to (t, op): TU_ROUNDED only to float SUM/PROD. */
int tu_kind_applies(wr_type t, wr_op op, enum tu_kind kind);
const char *tu_kind_name(enum tu_kind kind);

/* Reference checks of whole results; each returns 1 when everything agrees,
 * else 0 with a one-line reason in why.  bounded: use the DESIGN.md bound
 * (float SUM/PROD on TU_ROUNDED data), else bit-exact. */
int tu_check_reduce(const void *in, size_t n, wr_type t, wr_op op, const void *got,
                    int bounded, char *why, size_t len);
int tu_check_scan(const void *in, const void *out, size_t n, wr_type t, wr_op op,
                  int exclusive, int bounded, char *why, size_t len);
int tu_check_rows(const void *in, const void *out, size_t rows, size_t cols, wr_type t,
                  wr_op op, int bounded, char *why, size_t len);
int tu_check_segments(const void *in, const void *out, size_t nseg, const size_t *offsets,
                      wr_type t, wr_op op, int bounded, char *why, size_t len);
/* Reference argmin (is_max == 0) / argmax: the first NaN if any, else the
 * first index of the extreme value (-0 and +0 compare equal, as in NumPy).
 * n >= 1. */
size_t tu_ref_argext(const void *in, size_t n, wr_type t, int is_max);

/* ---- many checks, one TAP line ------------------------------------------- */
typedef struct tu_tally {
    unsigned long checks, fails;
    char first[768];          /* the first failure's reason */
} tu_tally;
void tu_tally_init(tu_tally *t);
/* Count one check; keep the reason of the first failure.  Returns cond. */
int tu_expect(tu_tally *t, int cond, const char *fmt, ...) TAP_PRINTF(3, 4);
/* One ok line for all checks of the tally, the first failure as a diagnostic. */
int tu_report(const tu_tally *t, const char *fmt, ...) TAP_PRINTF(2, 3);

/* ---- memory ------------------------------------------------------------- */
void *tu_xmalloc(size_t bytes);                 /* bails out on failure */
#define TU_POISON 0xA5
void tu_poison(void *buf, size_t bytes);
int  tu_poisoned(const void *buf, size_t bytes);   /* 1 if every byte is TU_POISON */
/* An output buffer with poisoned guard zones before and after, to catch a
 * write outside [p, p + bytes).  tu_guard_ok checks both zones. */
void *tu_guard_alloc(size_t bytes);
int   tu_guard_ok(const void *p);
void  tu_guard_free(void *p);

/* ---- error text --------------------------------------------------------- */
/* 1 if msg contains word as a whole word (not inside a longer identifier). */
int tu_mentions(const char *msg, const char *word);
/* 1 if msg contains sub anywhere. */
int tu_contains(const char *msg, const char *sub);

/* A context of the given backend, or bail out with the library's reason. */
wr_context *tu_context(wr_backend b);

#ifdef __cplusplus
}
#endif

#endif /* WR_TESTUTIL_H */

/*
 * check.c -- host references for warpred-bench: every measured result is
 * checked against them (a benchmark of a wrong answer is worthless).
 *
 * The semantics come from lib/wr_ops.h (the project's one definition of each
 * op), not from a second copy here.  Integers and MIN/MAX are exact, so they
 * must match bit for bit.  Float SUM is held to DESIGN.md's bound,
 * |r - exact| <= (ceil(log2 n) + 1024) u sum|x|, plus 4097 u sum|x| for a scan
 * (its blocks of <= 4096 elements are scanned in order); the "exact" value is
 * a compensated long double sum.  Float PROD has no bound in DESIGN.md: any
 * order of n-1 roundings has a relative error of about sqrt(n) u when the
 * roundings are independent, so the check allows 8 sqrt(n) u + 1024 u.
 *
 * The references run serially and keep O(1) state per output (scans are
 * checked as the running prefix streams past), so 2^28-element cells need no
 * second copy of the data.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "wr_ops.h"

static double ceil_log2(size_t n)
{
    double l = 0;
    while (n > 1) { l += 1; n = (n + 1) / 2; }
    return l;
}

/* A running reduction: exact in T for integers and MIN/MAX, compensated
 * long double (sum s, its error c, sum of magnitudes a) for float SUM,
 * long double product for float PROD. */
struct run {
    int mode;                 /* 0 exact, 1 float sum, 2 float prod */
    long double s, c, a;
    size_t k;                 /* elements added */
};

static int float_mode(wr_type t, wr_op op)
{
    if (t != WR_FLOAT && t != WR_DOUBLE) return 0;
    return op == WR_SUM ? 1 : op == WR_PROD ? 2 : 0;
}

static void run_init(struct run *r, int mode)
{
    r->mode = mode;
    r->s = mode == 2 ? 1.0L : 0.0L;
    r->c = r->a = 0.0L;
    r->k = 0;
}

static void run_add(struct run *r, long double x)
{
    if (r->mode == 1) {               /* Kahan-Babuska (Neumaier) */
        long double t = r->s + x;
        if (fabsl(r->s) >= fabsl(x)) r->c += (r->s - t) + x;
        else r->c += (x - t) + r->s;
        r->s = t;
        r->a += fabsl(x);
    } else {
        r->s *= x;
    }
    r->k++;
}

/* 0 if the float result got is within the tolerance of the running value. */
static int run_ok(const struct run *r, long double got, double u, int scan, size_t n_total)
{
    long double exact = r->s + r->c, tol;
    if (got != got) return 0;
    if (r->mode == 1)
        tol = (long double)(ceil_log2(n_total) + 1024 + (scan ? 4097 : 0)) * u * r->a;
    else
        tol = (8.0L * sqrtl((long double)r->k) + 1024) * u * fabsl(exact);
    return fabsl(got - exact) <= tol;
}

/* Same bits, or both NaN (a payload may differ). */
#define DEF_SAME(sfx, T, U, E)                                                 \
    static int same_##sfx(T a, T b)                                            \
    {                                                                          \
        return memcmp(&a, &b, sizeof a) == 0                                   \
               || (E >= WR_FLOAT && isnan((double)a) && isnan((double)b));     \
    }
WR_TYPES(DEF_SAME)

/* One checker per type, generated from the type list; the op switch reuses
 * wr_ops.h's combine functions. */
#define COMBINE_ARITH(sfx)                                                     \
    case WR_SUM:  return wr_sum_##sfx(a, b);                                   \
    case WR_PROD: return wr_prod_##sfx(a, b);                                  \
    case WR_MIN:  return wr_min_##sfx(a, b);                                   \
    case WR_MAX:  return wr_max_##sfx(a, b);
#define COMBINE_BITS(sfx)                                                      \
    case WR_BAND: return wr_band_##sfx(a, b);                                  \
    case WR_BOR:  return wr_bor_##sfx(a, b);                                   \
    case WR_BXOR: return wr_bxor_##sfx(a, b);
#define DEF_COMBINE_INT(sfx, T, U, E)                                          \
    static T combine_##sfx(wr_op op, T a, T b)                                 \
    { switch (op) { COMBINE_ARITH(sfx) COMBINE_BITS(sfx) default: return a; } }
#define DEF_COMBINE_FLT(sfx, T, U, E)                                          \
    static T combine_##sfx(wr_op op, T a, T b)                                 \
    { switch (op) { COMBINE_ARITH(sfx) default: return a; } }
WR_INT_TYPES(DEF_COMBINE_INT)
WR_FLOAT_TYPES(DEF_COMBINE_FLT)

#define DEF_VERIFY(sfx, T, U, E)                                               \
/* Reduce in[0..m) into *exact (exact modes) or r (float modes). */           \
static void ref_##sfx(const T *in, size_t m, wr_op op, T ident, struct run *r, T *exact) \
{                                                                              \
    size_t i;                                                                  \
    if (r->mode == 0) {                                                        \
        T v = ident;                                                           \
        for (i = 0; i < m; i++) v = combine_##sfx(op, v, in[i]);               \
        *exact = v;                                                            \
    } else {                                                                   \
        for (i = 0; i < m; i++) run_add(r, (long double)in[i]);                \
    }                                                                          \
}                                                                              \
/* Compare one result against the reference of m elements. */                \
static int one_##sfx(const struct bench_cell *c, const T *in, size_t m, T got, \
                     T ident, double u, int scan, char *what)                  \
{                                                                              \
    struct run r;                                                              \
    T exact = ident;                                                           \
    run_init(&r, float_mode(c->type, c->op));                                  \
    ref_##sfx(in, m, c->op, ident, &r, &exact);                                \
    if (r.mode == 0) {                                                         \
        if (same_##sfx(got, exact)) return 0;                                   \
        sprintf(what, "got %.17Lg, expected %.17Lg", (long double)got, (long double)exact); \
        return 1;                                                              \
    }                                                                          \
    if (run_ok(&r, (long double)got, u, scan, m)) return 0;                    \
    sprintf(what, "got %.17Lg, expected %.17Lg", (long double)got, (long double)(r.s + r.c)); \
    return 1;                                                                  \
}                                                                              \
static int verify_##sfx(const struct bench_cell *c, const T *in, const T *out, \
                        size_t index, const T *value, char *msg, size_t len)   \
{                                                                              \
    char what[128] = "";                                                       \
    double u = E == WR_FLOAT ? 0x1p-24 : 0x1p-53;                              \
    T ident = 0;                                                               \
    size_t i;                                                                  \
    if (c->func != BF_ARGMIN && c->func != BF_ARGMAX)                          \
        wr_identity(c->type, c->op, &ident);                                   \
    switch (c->func) {                                                         \
    case BF_REDUCE:                                                            \
        if (one_##sfx(c, in, c->n, out[0], ident, u, 0, what)) {               \
            snprintf(msg, len, "reduce %s", what); return 1; }                 \
        return 0;                                                              \
    case BF_ROWS:                                                              \
        for (i = 0; i < c->rows; i++)                                          \
            if (one_##sfx(c, in + i * c->cols, c->cols, out[i], ident, u, 0, what)) { \
                snprintf(msg, len, "row %zu: %s", i, what); return 1; }        \
        return 0;                                                              \
    case BF_SEGMENTS:                                                          \
        for (i = 0; i < c->nseg; i++) {                                        \
            size_t b = c->offsets[i], m = c->offsets[i + 1] - b;               \
            if (m == 0 ? !same_##sfx(out[i], ident)                             \
                       : one_##sfx(c, in + b, m, out[i], ident, u, 0, what)) { \
                snprintf(msg, len, "segment %zu: %s", i, m ? what : "not the identity"); \
                return 1; }                                                    \
        }                                                                      \
        return 0;                                                              \
    case BF_SEGSCAN:                                                           \
    case BF_SEGEXSCAN: {                                                       \
        int ex = c->func == BF_SEGEXSCAN;                                      \
        size_t sg;                                                             \
        for (sg = 0; sg < c->nseg; sg++) {                                     \
            const size_t b = c->offsets[sg], e = c->offsets[sg + 1];          \
            struct run r;                                                      \
            T v = ident;                                                       \
            run_init(&r, float_mode(c->type, c->op));                          \
            for (i = b; i < e; i++) {                                          \
                int bad;                                                       \
                if (!ex) { if (r.mode) run_add(&r, (long double)in[i]);       \
                           else v = combine_##sfx(c->op, v, in[i]); }          \
                if (r.mode == 0 || (ex && i == b)) bad = !same_##sfx(out[i], r.mode ? ident : v); \
                else bad = !run_ok(&r, (long double)out[i], u, 1, e - b);      \
                if (bad) {                                                     \
                    snprintf(msg, len, "segment %zu: out[%zu] = %.17Lg, expected %.17Lg", sg, i, \
                             (long double)out[i], r.mode ? r.s + r.c : (long double)v); \
                    return 1;                                                  \
                }                                                              \
                if (ex) { if (r.mode) run_add(&r, (long double)in[i]);        \
                          else v = combine_##sfx(c->op, v, in[i]); }           \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }                                                                          \
    case BF_SCAN:                                                              \
    case BF_EXSCAN: {                                                          \
        struct run r;                                                          \
        T v = ident;                                                           \
        int ex = c->func == BF_EXSCAN;                                         \
        run_init(&r, float_mode(c->type, c->op));                              \
        for (i = 0; i < c->n; i++) {                                           \
            int bad;                                                           \
            if (!ex) { if (r.mode) run_add(&r, (long double)in[i]);           \
                       else v = combine_##sfx(c->op, v, in[i]); }              \
            if (r.mode == 0 || (ex && i == 0)) bad = !same_##sfx(out[i], r.mode ? ident : v); \
            else bad = !run_ok(&r, (long double)out[i], u, 1, c->n);           \
            if (bad) {                                                         \
                snprintf(msg, len, "out[%zu] = %.17Lg, expected %.17Lg", i,    \
                         (long double)out[i], r.mode ? r.s + r.c : (long double)v); \
                return 1;                                                      \
            }                                                                  \
            if (ex) { if (r.mode) run_add(&r, (long double)in[i]);            \
                      else v = combine_##sfx(c->op, v, in[i]); }               \
        }                                                                      \
        return 0;                                                              \
    }                                                                          \
    case BF_ARGMIN:                                                            \
    case BF_ARGMAX: {                                                          \
        size_t best = 0;                                                       \
        int is_max = c->func == BF_ARGMAX;                                     \
        for (i = 1; i < c->n; i++)                                             \
            if (wr_arg_better_##sfx(in[best], in[i], is_max)) best = i;        \
        if (index != best) {                                                   \
            snprintf(msg, len, "index %zu, expected %zu", index, best); return 1; } \
        if (value && !same_##sfx(*value, in[best])) {                           \
            snprintf(msg, len, "value %.17Lg, expected %.17Lg", (long double)*value, \
                     (long double)in[best]); return 1; }                       \
        return 0;                                                              \
    }                                                                          \
    default:                                                                   \
        snprintf(msg, len, "unknown function"); return 1;                      \
    }                                                                          \
}
WR_TYPES(DEF_VERIFY)

int bench_verify(const struct bench_cell *c, const void *in, const void *out,
                 size_t index, const void *value, char *msg, size_t len)
{
    switch (c->type) {
#define CASE_VERIFY(sfx, T, U, E)                                              \
    case E: return verify_##sfx(c, (const T *)in, (const T *)out, index, (const T *)value, msg, len);
    WR_TYPES(CASE_VERIFY)
#undef CASE_VERIFY
    }
    snprintf(msg, len, "unknown type");
    return 1;
}

int bench_cell_exact(const struct bench_cell *c)
{
    return c->func == BF_ARGMIN || c->func == BF_ARGMAX || float_mode(c->type, c->op) == 0;
}

/*
 * wr_ops.h -- the arithmetic of libwarpred, in one place.
 *
 * Installed because warpred_device.cuh (the public CUDA primitives) builds
 * its op<O, T> traits on it; C programs need not include it.
 *
 * Identities and binary combine functions for every (type, op) pair, exactly
 * as DESIGN.md defines them.  Header-only and usable from C, C++ and CUDA
 * (every function is WR_HD: __host__ __device__ under nvcc), so the cpu
 * backend, the MPI layer, the tests' references and the CUDA kernels all share
 * one definition of "sum", "minimum" and so on.
 *
 *  - integer SUM/PROD wrap modulo 2^bits: computed in the unsigned type, so
 *    there is no signed-overflow undefined behaviour;
 *  - float MIN/MAX are IEEE 754-2019 minimum/maximum: a NaN operand gives a
 *    NaN, and -0.0 < +0.0;
 *  - bitwise ops exist only for the integer types.
 *
 * Generic code iterates the X-macro lists WR_TYPES / WR_INT_TYPES /
 * WR_FLOAT_TYPES and WR_OPS instead of copying loops per type.
 */
#ifndef WR_OPS_H
#define WR_OPS_H

#include <stdint.h>
#include <math.h>
#include "warpred.h"

#if defined(__CUDACC__)
#  define WR_HD __host__ __device__ __forceinline__
#else
#  define WR_HD static inline
#endif

/* X(sfx, ctype, utype, enum)  -- utype: the unsigned type of the same width,
 * used for wrapping arithmetic (floats list their own type; it is unused). */
#define WR_INT_TYPES(X)                                    \
    X(i32, int32_t,  uint32_t, WR_INT32)                   \
    X(i64, int64_t,  uint64_t, WR_INT64)                   \
    X(u32, uint32_t, uint32_t, WR_UINT32)                  \
    X(u64, uint64_t, uint64_t, WR_UINT64)
#define WR_FLOAT_TYPES(X)                                  \
    X(f32, float,    float,    WR_FLOAT)                   \
    X(f64, double,   double,   WR_DOUBLE)
#define WR_TYPES(X) WR_INT_TYPES(X) WR_FLOAT_TYPES(X)

/* X(name, enum) */
#define WR_ARITH_OPS(X) X(sum, WR_SUM) X(prod, WR_PROD) X(min, WR_MIN) X(max, WR_MAX)
#define WR_BIT_OPS(X)   X(band, WR_BAND) X(bor, WR_BOR) X(bxor, WR_BXOR)
#define WR_OPS(X)       WR_ARITH_OPS(X) WR_BIT_OPS(X)

/* 1 if op is defined for type (bitwise ops need an integer type). */
WR_HD int wr_op_valid(wr_type t, wr_op op)
{
    if ((int)t < (int)WR_INT32 || (int)t > (int)WR_DOUBLE) return 0;
    if ((int)op < (int)WR_SUM || (int)op > (int)WR_BXOR) return 0;
    return !(op >= WR_BAND && (t == WR_FLOAT || t == WR_DOUBLE));
}

/* ---- integer types ----------------------------------------------------- */
#define WR_DEF_INT_OPS(sfx, T, U, E)                                             \
    WR_HD T wr_sum_##sfx (T a, T b) { return (T)((U)a + (U)b); }                 \
    WR_HD T wr_prod_##sfx(T a, T b) { return (T)((U)a * (U)b); }                 \
    WR_HD T wr_min_##sfx (T a, T b) { return b < a ? b : a; }                    \
    WR_HD T wr_max_##sfx (T a, T b) { return a < b ? b : a; }                    \
    WR_HD T wr_band_##sfx(T a, T b) { return (T)(a & b); }                       \
    WR_HD T wr_bor_##sfx (T a, T b) { return (T)(a | b); }                       \
    WR_HD T wr_bxor_##sfx(T a, T b) { return (T)(a ^ b); }
WR_INT_TYPES(WR_DEF_INT_OPS)
#undef WR_DEF_INT_OPS

/* ---- floating types: IEEE 754-2019 minimum / maximum ------------------- */
#define WR_DEF_FLOAT_OPS(sfx, T, U, E)                                           \
    WR_HD T wr_sum_##sfx (T a, T b) { return a + b; }                            \
    WR_HD T wr_prod_##sfx(T a, T b) { return a * b; }                            \
    WR_HD T wr_min_##sfx (T a, T b)                                              \
    {                                                                            \
        if (a != a) return a;                                                    \
        if (b != b) return b;                                                    \
        if (a < b) return a;                                                     \
        if (b < a) return b;                                                     \
        return signbit(a) ? a : b;      /* equal: only -0 vs +0 differ */        \
    }                                                                            \
    WR_HD T wr_max_##sfx (T a, T b)                                              \
    {                                                                            \
        if (a != a) return a;                                                    \
        if (b != b) return b;                                                    \
        if (a < b) return b;                                                     \
        if (b < a) return a;                                                     \
        return signbit(a) ? b : a;                                               \
    }
WR_FLOAT_TYPES(WR_DEF_FLOAT_OPS)
#undef WR_DEF_FLOAT_OPS

/* ---- identities --------------------------------------------------------- */
WR_HD int32_t  wr_ident_min_i32(void) { return INT32_MAX; }
WR_HD int32_t  wr_ident_max_i32(void) { return INT32_MIN; }
WR_HD int64_t  wr_ident_min_i64(void) { return INT64_MAX; }
WR_HD int64_t  wr_ident_max_i64(void) { return INT64_MIN; }
WR_HD uint32_t wr_ident_min_u32(void) { return UINT32_MAX; }
WR_HD uint32_t wr_ident_max_u32(void) { return 0; }
WR_HD uint64_t wr_ident_min_u64(void) { return UINT64_MAX; }
WR_HD uint64_t wr_ident_max_u64(void) { return 0; }
WR_HD float    wr_ident_min_f32(void) { return (float)INFINITY; }
WR_HD float    wr_ident_max_f32(void) { return -(float)INFINITY; }
WR_HD double   wr_ident_min_f64(void) { return (double)INFINITY; }
WR_HD double   wr_ident_max_f64(void) { return -(double)INFINITY; }

#define WR_DEF_COMMON_IDENT(sfx, T, U, E)                                        \
    WR_HD T wr_ident_sum_##sfx (void) { return (T)0; }                           \
    WR_HD T wr_ident_prod_##sfx(void) { return (T)1; }
WR_TYPES(WR_DEF_COMMON_IDENT)
#undef WR_DEF_COMMON_IDENT
#define WR_DEF_BIT_IDENT(sfx, T, U, E)                                           \
    WR_HD T wr_ident_band_##sfx(void) { return (T)~(U)0; }                       \
    WR_HD T wr_ident_bor_##sfx (void) { return (T)0; }                           \
    WR_HD T wr_ident_bxor_##sfx(void) { return (T)0; }
WR_INT_TYPES(WR_DEF_BIT_IDENT)
#undef WR_DEF_BIT_IDENT

/* ---- argmin/argmax ordering -------------------------------------------- */
/* 1 if candidate value b (at a later index) replaces current best a for
 * argmin (is_max == 0) or argmax: a NaN wins over everything and the first
 * NaN is kept; otherwise strictly better replaces (ties keep the first).
 * -0.0 and +0.0 compare equal here (first index wins), as in NumPy. */
#define WR_DEF_ARG_BETTER(sfx, T, U, E)                                          \
    WR_HD int wr_arg_better_##sfx(T a, T b, int is_max)                          \
    {                                                                            \
        if (a != a) return 0;                                                    \
        if (b != b) return 1;                                                    \
        return is_max ? (a < b) : (b < a);                                       \
    }
WR_TYPES(WR_DEF_ARG_BETTER)
#undef WR_DEF_ARG_BETTER

/* Write the identity of op for type into *out (an element of that type).
 * Returns 0, or -1 if the pair is not valid. */
WR_HD int wr_identity(wr_type t, wr_op op, void *out)
{
    if (!wr_op_valid(t, op)) return -1;
    switch (t) {
#define WR_ID_CASE_OP(name, OE, sfx, T) case OE: *(T *)out = wr_ident_##name##_##sfx(); return 0;
#define WR_ID_CASE_INT(sfx, T, U, E)                                             \
    case E: switch (op) {                                                        \
        WR_ID_CASE_OP(sum, WR_SUM, sfx, T) WR_ID_CASE_OP(prod, WR_PROD, sfx, T)  \
        WR_ID_CASE_OP(min, WR_MIN, sfx, T) WR_ID_CASE_OP(max, WR_MAX, sfx, T)    \
        WR_ID_CASE_OP(band, WR_BAND, sfx, T) WR_ID_CASE_OP(bor, WR_BOR, sfx, T)  \
        WR_ID_CASE_OP(bxor, WR_BXOR, sfx, T) default: return -1; }
#define WR_ID_CASE_FLT(sfx, T, U, E)                                             \
    case E: switch (op) {                                                        \
        WR_ID_CASE_OP(sum, WR_SUM, sfx, T) WR_ID_CASE_OP(prod, WR_PROD, sfx, T)  \
        WR_ID_CASE_OP(min, WR_MIN, sfx, T) WR_ID_CASE_OP(max, WR_MAX, sfx, T)    \
        default: return -1; }
    WR_INT_TYPES(WR_ID_CASE_INT)
    WR_FLOAT_TYPES(WR_ID_CASE_FLT)
#undef WR_ID_CASE_FLT
#undef WR_ID_CASE_INT
#undef WR_ID_CASE_OP
    default: return -1;
    }
}

/* *acc = *acc op *x, for one element of type t.  Returns 0, or -1 if the
 * pair is not valid.  Slow (a switch per element): for scalars only. */
WR_HD int wr_combine(wr_type t, wr_op op, void *acc, const void *x)
{
    if (!wr_op_valid(t, op)) return -1;
    switch (t) {
#define WR_CB_CASE_OP(name, OE, sfx, T)                                          \
    case OE: *(T *)acc = wr_##name##_##sfx(*(T *)acc, *(const T *)x); return 0;
#define WR_CB_CASE_INT(sfx, T, U, E)                                             \
    case E: switch (op) {                                                        \
        WR_CB_CASE_OP(sum, WR_SUM, sfx, T) WR_CB_CASE_OP(prod, WR_PROD, sfx, T)  \
        WR_CB_CASE_OP(min, WR_MIN, sfx, T) WR_CB_CASE_OP(max, WR_MAX, sfx, T)    \
        WR_CB_CASE_OP(band, WR_BAND, sfx, T) WR_CB_CASE_OP(bor, WR_BOR, sfx, T)  \
        WR_CB_CASE_OP(bxor, WR_BXOR, sfx, T) default: return -1; }
#define WR_CB_CASE_FLT(sfx, T, U, E)                                             \
    case E: switch (op) {                                                        \
        WR_CB_CASE_OP(sum, WR_SUM, sfx, T) WR_CB_CASE_OP(prod, WR_PROD, sfx, T)  \
        WR_CB_CASE_OP(min, WR_MIN, sfx, T) WR_CB_CASE_OP(max, WR_MAX, sfx, T)    \
        default: return -1; }
    WR_INT_TYPES(WR_CB_CASE_INT)
    WR_FLOAT_TYPES(WR_CB_CASE_FLT)
#undef WR_CB_CASE_FLT
#undef WR_CB_CASE_INT
#undef WR_CB_CASE_OP
    default: return -1;
    }
}

#endif /* WR_OPS_H */

/*
 * mpi_base.c -- out[i] = base op out[i] on host memory: how a rank's base
 * (the combination of all lower ranks' elements) reaches its local scan.
 *
 * One typed loop per (type, op), generated from the pairs wr_ops.h defines,
 * so the arithmetic is exactly the single-process one.  The base is the left
 * operand: it stands for elements that come earlier in the global array.
 */
#include <config.h>
#include "wr_mpi_internal.h"
#include "wr_ops.h"

/* Below this many elements a parallel region costs more than the loop. */
#define WRM_PAR_MIN 32768

#define WRM_DEF_LOOP(name, sfx, T)                                                \
    static void base_##name##_##sfx(T b, T *o, size_t n)                          \
    {                                                                             \
        long long i, nn = (long long)n;                                           \
        _Pragma("omp parallel for schedule(static) if (nn >= WRM_PAR_MIN)")       \
        for (i = 0; i < nn; i++)                                                  \
            o[i] = wr_##name##_##sfx(b, o[i]);                                    \
    }
#define WRM_DEF_INT_LOOPS(sfx, T, U, E)                                           \
    WRM_DEF_LOOP(sum, sfx, T) WRM_DEF_LOOP(prod, sfx, T) WRM_DEF_LOOP(min, sfx, T) \
    WRM_DEF_LOOP(max, sfx, T) WRM_DEF_LOOP(band, sfx, T) WRM_DEF_LOOP(bor, sfx, T) \
    WRM_DEF_LOOP(bxor, sfx, T)
#define WRM_DEF_FLOAT_LOOPS(sfx, T, U, E)                                         \
    WRM_DEF_LOOP(sum, sfx, T) WRM_DEF_LOOP(prod, sfx, T) WRM_DEF_LOOP(min, sfx, T) \
    WRM_DEF_LOOP(max, sfx, T)
WR_INT_TYPES(WRM_DEF_INT_LOOPS)
WR_FLOAT_TYPES(WRM_DEF_FLOAT_LOOPS)
#undef WRM_DEF_FLOAT_LOOPS
#undef WRM_DEF_INT_LOOPS
#undef WRM_DEF_LOOP

void wrm_apply_base(wr_type type, wr_op op, const wrm_value *base, void *out, size_t count)
{
    switch (type) {
#define WRM_CALL(name, OE, sfx) case OE: base_##name##_##sfx(base->sfx, out, count); return;
#define WRM_INT_CASE(sfx, T, U, E)                                                \
    case E: switch (op) {                                                         \
        WRM_CALL(sum, WR_SUM, sfx) WRM_CALL(prod, WR_PROD, sfx)                   \
        WRM_CALL(min, WR_MIN, sfx) WRM_CALL(max, WR_MAX, sfx)                     \
        WRM_CALL(band, WR_BAND, sfx) WRM_CALL(bor, WR_BOR, sfx)                   \
        WRM_CALL(bxor, WR_BXOR, sfx) }                                            \
        return;
#define WRM_FLOAT_CASE(sfx, T, U, E)                                              \
    case E: switch (op) {                                                         \
        WRM_CALL(sum, WR_SUM, sfx) WRM_CALL(prod, WR_PROD, sfx)                   \
        WRM_CALL(min, WR_MIN, sfx) WRM_CALL(max, WR_MAX, sfx)                     \
        default: return; }
    WR_INT_TYPES(WRM_INT_CASE)
    WR_FLOAT_TYPES(WRM_FLOAT_CASE)
#undef WRM_FLOAT_CASE
#undef WRM_INT_CASE
#undef WRM_CALL
    }
}

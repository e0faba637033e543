/*
 * api.c -- the public operations: each fills a struct wr_call with its
 * arguments and runs it through its descriptor (ops.c), where every check,
 * the choice of backend and the error text are written once.
 */
#include <config.h>
#include <stdint.h>
#include <string.h>
#include "wr_internal.h"
#include "wr_exact.h"
#include "wr_exact_norm.h"

/* A call's arguments; what is not named is zero. */
#define CALL(...) (struct wr_call){ __VA_ARGS__ }

wr_status wr_reduce(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = count);
    return wri_run(ctx, "wr_reduce", WRI_REDUCE, &c);
}

wr_status wr_scan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = count);
    return wri_run(ctx, "wr_scan", WRI_SCAN, &c);
}

wr_status wr_exscan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = count);
    return wri_run(ctx, "wr_exscan", WRI_EXSCAN, &c);
}

wr_status wr_scan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                        const wr_exact_sum *base)
{
    struct wr_call c = CALL(.type = type, .in = in, .out = out, .count = count, .carry = base);
    return wri_run(ctx, "wr_scan_exact", WRI_XSCAN, &c);
}

wr_status wr_exscan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                          const wr_exact_sum *base)
{
    struct wr_call c = CALL(.type = type, .in = in, .out = out, .count = count, .carry = base);
    return wri_run(ctx, "wr_exscan_exact", WRI_XEXSCAN, &c);
}

wr_status wr_reduce_rows(wr_context *ctx, const void *in, void *out, size_t rows, size_t cols, wr_type type,
                         wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = rows, .cols = cols);
    return wri_run(ctx, "wr_reduce_rows", WRI_ROWS, &c);
}

wr_status wr_reduce_segments(wr_context *ctx, const void *in, void *out, size_t nsegments, const size_t *offsets,
                             wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = nsegments, .offsets = offsets);
    return wri_run(ctx, "wr_reduce_segments", WRI_SEGMENTS, &c);
}

wr_status wr_scan_segments(wr_context *ctx, const void *in, void *out, size_t nsegments, const size_t *offsets,
                           wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = nsegments, .offsets = offsets);
    return wri_run(ctx, "wr_scan_segments", WRI_SEGSCAN, &c);
}

wr_status wr_exscan_segments(wr_context *ctx, const void *in, void *out, size_t nsegments, const size_t *offsets,
                             wr_type type, wr_op op)
{
    struct wr_call c = CALL(.type = type, .op = op, .in = in, .out = out, .count = nsegments, .offsets = offsets);
    return wri_run(ctx, "wr_exscan_segments", WRI_SEGEXSCAN, &c);
}

wr_status wr_reduce_exact(wr_context *ctx, const void *in, size_t count, wr_type type, wr_exact_sum *sum)
{
    struct wr_call c = CALL(.type = type, .in = in, .count = count, .acc = sum);
    return wri_run(ctx, "wr_reduce_exact", WRI_XSUM, &c);
}

wr_status wr_argmin(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    struct wr_call c = CALL(.type = type, .in = in, .out = value, .index = index, .count = count);
    return wri_run(ctx, "wr_argmin", WRI_ARGMIN, &c);
}

wr_status wr_argmax(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    struct wr_call c = CALL(.type = type, .in = in, .out = value, .index = index, .count = count);
    return wri_run(ctx, "wr_argmax", WRI_ARGMAX, &c);
}

/* ---- dot products and norms ---- */

wr_status wr_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count, wr_type type)
{
    struct wr_call c = CALL(.type = type, .in = x, .in2 = y, .out = out, .count = count);
    return wri_run(ctx, "wr_dot", WRI_DOT, &c);
}

wr_status wr_dot_rows(wr_context *ctx, const void *x, const void *y, void *out, size_t rows, size_t cols,
                      wr_type type)
{
    struct wr_call c = CALL(.type = type, .in = x, .in2 = y, .out = out, .count = rows, .cols = cols);
    return wri_run(ctx, "wr_dot_rows", WRI_DOTROWS, &c);
}

wr_status wr_nrm2(wr_context *ctx, const void *x, void *out, size_t count, wr_type type)
{
    struct wr_call c = CALL(.type = type, .in = x, .out = out, .count = count);
    return wri_run(ctx, "wr_nrm2", WRI_NRM2, &c);
}

wr_status wr_asum(wr_context *ctx, const void *x, void *out, size_t count, wr_type type)
{
    struct wr_call c = CALL(.type = type, .in = x, .out = out, .count = count);
    return wri_run(ctx, "wr_asum", WRI_ASUM, &c);
}

wr_status wr_argmax_abs(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    struct wr_call c = CALL(.type = type, .in = in, .out = value, .index = index, .count = count);
    return wri_run(ctx, "wr_argmax_abs", WRI_IAMAX, &c);
}

wr_status wr_dot_exact(wr_context *ctx, const void *x, const void *y, size_t count, wr_type type,
                       wr_exact_sum *sum)
{
    struct wr_call c = CALL(.type = type, .in = x, .in2 = y, .count = count, .acc = sum);
    return wri_run(ctx, "wr_dot_exact", WRI_XDOTSUM, &c);
}

wr_status wr_asum_exact(wr_context *ctx, const void *x, size_t count, wr_type type, wr_exact_sum *sum)
{
    struct wr_call c = CALL(.type = type, .in = x, .count = count, .acc = sum);
    return wri_run(ctx, "wr_asum_exact", WRI_XASUMSUM, &c);
}

/* One pass per part (call->cols names it: wr_backend.h's XNRM2 with acc):
 * the parts are checked and written one by one, so a failure leaves every
 * part before it added to.  parts[1] first: its pass reads the elements
 * from memory, the others' from cache when the vector fits. */
wr_status wr_nrm2_exact(wr_context *ctx, const void *x, size_t count, wr_type type,
                        wr_exact_sum parts[WR_NRM2_PARTS])
{
    static const size_t order[WR_NRM2_PARTS] = { 1, 0, 2 };
    static const char *const fn[WR_NRM2_PARTS] = { "wr_nrm2_exact (parts[0])", "wr_nrm2_exact (parts[1])",
                                                   "wr_nrm2_exact (parts[2])" };
    wr_exact_sum tmp[WR_NRM2_PARTS];
    const size_t es = wr_type_size(type);
    wr_status st = WR_SUCCESS;
    size_t k;
    if (parts == NULL) {
        wri_set_error(ctx, "wr_nrm2_exact: parts is NULL");
        return WR_ERR_INVALID_ARG;
    }
    /* every argument first (a call of no element checks a part and adds
     * nothing to it), so that a refused call leaves all three parts as
     * they were; then the three passes on copies */
    for (k = 0; k < WR_NRM2_PARTS; k++) {
        struct wr_call c = CALL(.type = type, .in = x, .count = 0, .acc = &parts[k], .cols = k);
        if ((st = wri_run(ctx, fn[k], WRI_XNRM2SUM, &c)) != WR_SUCCESS) return st;
    }
    if (x != NULL && es != 0 && count <= SIZE_MAX / es) {
        const uintptr_t xa = (uintptr_t)x, pa = (uintptr_t)parts;
        if (xa < pa + sizeof tmp && pa < xa + count * es) {
            wri_set_error(ctx, "wr_nrm2_exact: parts overlaps x");
            return WR_ERR_INVALID_ARG;
        }
    }
    memcpy(tmp, parts, sizeof tmp);
    for (k = 0; k < WR_NRM2_PARTS && st == WR_SUCCESS; k++) {
        struct wr_call c = CALL(.type = type, .in = x, .count = count, .acc = &tmp[order[k]],
                                .cols = order[k]);
        st = wri_run(ctx, fn[order[k]], WRI_XNRM2SUM, &c);
    }
    if (st == WR_SUCCESS) memcpy(parts, tmp, sizeof tmp);
    return st;
}

wr_status wr_exact_norm_round(const wr_exact_sum parts[WR_NRM2_PARTS], wr_type type, void *out)
{
    static const char fn[] = "wr_exact_norm_round";
    wrx_acc a[WR_NRM2_PARTS];
    size_t k;
    if (wr_type_size(type) == 0) {
        wri_set_error(NULL, "%s: type %d is not a wr_type", fn, (int)type);
        return WR_ERR_INVALID_ARG;
    }
    if (type != WR_FLOAT && type != WR_DOUBLE) {
        wri_set_error(NULL, "%s: a norm rounds to float or double, not to an integer type", fn);
        return WR_ERR_UNSUPPORTED;
    }
    if (parts == NULL || out == NULL) {
        wri_set_error(NULL, "%s: %s is NULL", fn, parts == NULL ? "parts" : "out");
        return WR_ERR_INVALID_ARG;
    }
    for (k = 0; k < WR_NRM2_PARTS; k++) {
        memcpy(&a[k], &parts[k], sizeof a[k]);
        if (!wri_exact_valid(&a[k])) {
            wri_set_error(NULL, "%s: parts[%zu] is not a wr_exact_sum (not made by wr_exact_sum_init)", fn, k);
            return WR_ERR_INVALID_ARG;
        }
    }
    if (type == WR_FLOAT) {
        const float f = wrx_from_bits32((uint32_t)wrx_norm_round_bits(a, 0));
        memcpy(out, &f, sizeof f);
    } else {
        const double d = wrx_from_bits(wrx_norm_round_bits(a, 1));
        memcpy(out, &d, sizeof d);
    }
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

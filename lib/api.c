/*
 * api.c -- the public operations: each fills a struct wr_call with its
 * arguments and runs it through its descriptor (ops.c), where every check,
 * the choice of backend and the error text are written once.
 */
#include <config.h>
#include <string.h>
#include "wr_internal.h"

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

/*
 * mpi_dot.c -- wr_mpi_dot, wr_mpi_asum and wr_mpi_nrm2: the allreduce forms
 * of the dot products and norms, every rank getting the global value.
 *
 * The shape of wr_mpi_allreduce (mpi_api.c): the local call on ctx's
 * backend (public wr_* calls only: the buffers may be device memory), one
 * exchange that also agrees on the status, the result written through ctx.
 *
 * Fast mode: each rank's local value, combined in rank order (MPI's order
 * for the library's non-commutative op): sums for dot and asum; for the
 * norm, the local norms as (scale, sum of squares) pairs (n, 1) combined as
 * max * sqrt(1 + (min / max)^2), so that no square of a norm is formed and
 * nothing overflows or underflows that the result does not.
 * Reproducible mode: each rank's exact partial (wr_dot_exact,
 * wr_asum_exact, wr_nrm2_exact's three parts), merged across ranks
 * (mpi_exact.c) and rounded once: the bits of one process's reproducible
 * call on the whole vector, for any number of ranks and any split.
 */
#include <config.h>
#include <math.h>
#include <string.h>
#include "wr_mpi_internal.h"

enum kind { K_DOT, K_ASUM, K_NRM2 };

static wr_status local_fast(wr_context *ctx, enum kind k, const void *x, const void *y, void *out, size_t count,
                            wr_type type)
{
    switch (k) {
    case K_DOT: return wr_dot(ctx, x, y, out, count, type);
    case K_ASUM: return wr_asum(ctx, x, out, count, type);
    default: return wr_nrm2(ctx, x, out, count, type);
    }
}

static wr_status allreduce(const char *fn, enum kind k, wr_context *ctx, const void *x, const void *y, void *out,
                           size_t count, wr_type type, MPI_Comm comm)
{
    struct wrm_call c;
    wrm_item it;
    wr_exact_sum xs[WR_NRM2_PARTS];
    const size_t w = wr_type_size(type);
    const size_t bytes = w != 0 && count <= SIZE_MAX / w ? count * w : 0;
    const int exact = ctx != NULL && wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE &&
                      (type == WR_FLOAT || type == WR_DOUBLE);
    wr_status st;
    int p;

    if (wrm_begin(&c, fn, ctx, comm) != 0) return c.st;
    wrm_item_init(&c, &it, type,
                  exact ? WRM_KIND_EXACT_SUM : k == K_NRM2 ? WRM_KIND_NRM2 : (int)WR_SUM);
    for (p = 0; p < WR_NRM2_PARTS; p++) wr_exact_sum_init(&xs[p]);
    if (ctx == NULL)
        wrm_fail(&c, WR_ERR_INVALID_ARG, "ctx is NULL");
    else if (out == NULL)
        wrm_fail(&c, WR_ERR_INVALID_ARG, "out is NULL");
    else if (wrm_overlap(x, bytes, out, w) || (k == K_DOT && wrm_overlap(y, bytes, out, w)))
        wrm_fail(&c, WR_ERR_INVALID_ARG, "out overlaps %s", wrm_overlap(x, bytes, out, w) ? "x" : "y");
    else if ((st = !exact ? local_fast(ctx, k, x, y, &it.v, count, type)
                   : k == K_DOT ? wr_dot_exact(ctx, x, y, count, type, &xs[1])
                   : k == K_ASUM ? wr_asum_exact(ctx, x, count, type, &xs[1])
                                 : wr_nrm2_exact(ctx, x, count, type, xs)) != WR_SUCCESS)
        wrm_fail_call(&c, st);          /* also type, count, x and y */
    it.has = !exact && count > 0;
    if (wrm_allreduce_exact(&c, &it, &xs[1]) != WR_SUCCESS) return c.st;
    if (exact && k == K_NRM2) {
        /* the other two parts: the status is agreed already */
        for (p = 0; p < WR_NRM2_PARTS; p += 2) {
            wrm_item none;
            wrm_item_init(&c, &none, type, WRM_KIND_NONE);
            if (wrm_allreduce_exact(&c, &none, &xs[p]) != WR_SUCCESS) return c.st;
        }
    }
    if (exact) {
        st = k == K_NRM2 ? wr_exact_norm_round(xs, type, &it.v) : wr_exact_sum_round(&xs[1], type, &it.v);
        if (st != WR_SUCCESS) {
            wrm_fail(&c, st, "a rank sent a damaged exact sum");
            return c.st;
        }
    } else if (!it.has) {
        memset(&it.v, 0, sizeof it.v);   /* +0: no element on any rank */
    }
    {
        /* into the caller's out through ctx (it may be device memory) */
        st = wr_reduce(c.ctx, &it.v, out, 1, w == 4 ? WR_UINT32 : WR_UINT64, WR_BOR);
        if (st != WR_SUCCESS) wrm_fail_call(&c, st);
    }
    return wrm_end(&c);
}

wr_status wr_mpi_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count, wr_type type,
                     MPI_Comm comm)
{
    return allreduce("wr_mpi_dot", K_DOT, ctx, x, y, out, count, type, comm);
}

wr_status wr_mpi_asum(wr_context *ctx, const void *x, void *out, size_t count, wr_type type, MPI_Comm comm)
{
    return allreduce("wr_mpi_asum", K_ASUM, ctx, x, NULL, out, count, type, comm);
}

wr_status wr_mpi_nrm2(wr_context *ctx, const void *x, void *out, size_t count, wr_type type, MPI_Comm comm)
{
    return allreduce("wr_mpi_nrm2", K_NRM2, ctx, x, NULL, out, count, type, comm);
}

/* The norm of two norms a and b (lo's and hi's ranks), without squaring
 * either: NaN if either is, else +inf if either is. */
double wrm_norm_combine(double a, double b)
{
    double m, s, q;
    if (a != a || b != b) return a + b;
    if (isinf(a) || isinf(b)) return INFINITY;
    m = a > b ? a : b;
    s = a > b ? b : a;
    if (m == 0) return 0;
    q = s / m;
    return m * sqrt(1 + q * q);
}

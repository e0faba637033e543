/*
 * mpi_api.c -- the public wr_mpi_* calls.
 *
 * The block scan's pattern, one level up (CUB's BlockScan does it between
 * warps; here it is between ranks): each rank works on its piece with the
 * ordinary wr_* calls on its context's backend, the ranks exchange one
 * element each, and each rank folds what came from lower ranks into its piece.
 * libwarpred_mpi is a user of the public API only: it never dereferences a
 * buffer the context's backend may own (device memory), and reaches such
 * buffers only through wr_* calls.
 *
 * Every call has the same shape (see wr_mpi_internal.h): wrm_begin, the local
 * phase (which records this rank's failure instead of returning), one
 * exchange that also agrees on the status, then writing the outputs.
 */
#include <config.h>
#include <stdint.h>
#include <string.h>
#include "wr_mpi_internal.h"
#include "wr_ops.h"

/* Copy one element of w bytes from src to dst, either of which may be memory
 * that only ctx's backend reaches: a one-element BOR reduction over the
 * unsigned type of that width is a bit-exact copy (0 | x == x) that lib/
 * validates and routes like any other call. */
static wr_status copy_elem(wr_context *ctx, const void *src, void *dst, size_t w)
{
    return wr_reduce(ctx, src, dst, 1, w == 4 ? WR_UINT32 : WR_UINT64, WR_BOR);
}

/* Write a result (host staging) into the caller's output. */
static void put_result(struct wrm_call *c, const void *src, void *dst, size_t w)
{
    wr_status st = copy_elem(c->ctx, src, dst, w);
    if (st != WR_SUCCESS) wrm_fail_call(c, st);
}

wr_status wr_mpi_allreduce(wr_context *ctx, const void *in, void *out, size_t count,
                           wr_type type, wr_op op, MPI_Comm comm)
{
    struct wrm_call c;
    wrm_item it;
    wr_exact_sum xs;
    size_t w = wr_type_size(type);
    wr_status st;
    /* reproducible float SUM: ranks exchange exact sums (mpi_exact.c) */
    const int exact = ctx != NULL && wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE && op == WR_SUM &&
                      (type == WR_FLOAT || type == WR_DOUBLE);

    if (wrm_begin(&c, "wr_mpi_allreduce", ctx, comm) != 0) return c.st;
    wrm_item_init(&c, &it, type, exact ? WRM_KIND_EXACT_SUM : (int)op);
    wr_exact_sum_init(&xs);
    if (ctx == NULL)
        wrm_fail(&c, WR_ERR_INVALID_ARG, "ctx is NULL");
    else if (out == NULL)
        wrm_fail(&c, WR_ERR_INVALID_ARG, "out is NULL");
    else if (w != 0 && count <= SIZE_MAX / w && wrm_overlap(in, count * w, out, w))
        wrm_fail(&c, WR_ERR_INVALID_ARG, "in and out overlap");
    else if ((st = exact ? wr_reduce_exact(ctx, in, count, type, &xs)
                         : wr_reduce(ctx, in, &it.v, count, type, op)) != WR_SUCCESS)
        wrm_fail_call(&c, st);      /* also type, op, in and count */
    it.has = !exact && count > 0;
    if (wrm_allreduce_exact(&c, &it, &xs) != WR_SUCCESS) return c.st;
    if (exact) {
        if ((st = wr_exact_sum_round(&xs, type, &it.v)) != WR_SUCCESS) {
            wrm_fail(&c, st, "a rank sent a damaged exact sum");
            return c.st;
        }
    } else if (!it.has) {
        wr_identity(type, op, &it.v);
    }
    put_result(&c, &it.v, out, w);
    return wrm_end(&c);
}

static wr_status argext(const char *fn, wr_context *ctx, const void *in, size_t count, wr_type type,
                        int is_max, uint64_t *index, void *value, MPI_Comm comm)
{
    struct wrm_call c;
    wrm_item it;
    uint64_t mine = count, offset = 0;
    size_t w = wr_type_size(type), inb, local = 0;
    wr_status st;
    int rc;

    if (wrm_begin(&c, fn, ctx, comm) != 0) return c.st;
    wrm_item_init(&c, &it, type, is_max ? WRM_KIND_ARGMAX : WRM_KIND_ARGMIN);
    /* This rank's first global index.  Every rank takes part, whatever its
     * arguments; a failure is agreed on in the exchange below. */
    rc = MPI_Exscan(&mine, &offset, 1, MPI_UINT64_T, MPI_SUM, c.comm);
    if (rc != MPI_SUCCESS) {
        wrm_fail_mpi(&c, "MPI_Exscan", rc);
        return c.st;
    }
    if (c.rank == 0) offset = 0;    /* undefined there */

    inb = (w != 0 && count <= SIZE_MAX / w) ? count * w : 0;
    if (ctx == NULL) {
        wrm_fail(&c, WR_ERR_INVALID_ARG, "ctx is NULL");
    } else if (index == NULL) {
        wrm_fail(&c, WR_ERR_INVALID_ARG, "index is NULL");
    } else if (wrm_overlap(in, inb, index, sizeof *index) || wrm_overlap(in, inb, value, w) ||
               wrm_overlap(index, sizeof *index, value, w)) {
        wrm_fail(&c, WR_ERR_INVALID_ARG, "in, index and value overlap");
    } else {
        /* count == 0 still runs the call, for its checks of type and in */
        st = (is_max ? wr_argmax : wr_argmin)(ctx, in, count, type, &local, &it.v);
        if (st == WR_SUCCESS) {
            it.has = 1;
            it.index = offset + (uint64_t)local;
        } else if (!(st == WR_ERR_EMPTY && count == 0)) {
            wrm_fail_call(&c, st);
        }
    }
    if (wrm_allreduce(&c, &it) != WR_SUCCESS) return c.st;
    if (!it.has) {
        wrm_fail(&c, WR_ERR_EMPTY, "every rank has 0 elements: no element to pick");
        return c.st;
    }
    put_result(&c, &it.index, index, sizeof *index);
    if (value != NULL && c.st == WR_SUCCESS) put_result(&c, &it.v, value, w);
    return wrm_end(&c);
}

wr_status wr_mpi_argmin(wr_context *ctx, const void *in, size_t count, wr_type type,
                        uint64_t *index, void *value, MPI_Comm comm)
{
    return argext("wr_mpi_argmin", ctx, in, count, type, 0, index, value, comm);
}

wr_status wr_mpi_argmax(wr_context *ctx, const void *in, size_t count, wr_type type,
                        uint64_t *index, void *value, MPI_Comm comm)
{
    return argext("wr_mpi_argmax", ctx, in, count, type, 1, index, value, comm);
}

/* ---- scans ------------------------------------------------------------- */

/* One scan call: its arguments and what the local phase found. */
struct scan {
    struct wrm_call c;
    const void *in;
    void *out;
    size_t count, w;
    wr_type type;
    wr_op op;
    int exclusive;
    wrm_value total;        /* this rank's reduction, for the exchange */
};

static wr_status local_scan(struct scan *s, const void *in)
{
    return s->exclusive ? wr_exscan(s->c.ctx, in, s->out, s->count, s->type, s->op)
                        : wr_scan(s->c.ctx, in, s->out, s->count, s->type, s->op);
}

/*
 * Host path, local phase: the local scan into out, total from its last
 * output (so the next rank continues from exactly this rank's last prefix).
 * An exclusive scan in place overwrites in[count-1], which the total needs:
 * read it first, through a wr_* call that checks in like the scan would.
 */
static void host_local(struct scan *s)
{
    const char *last_in = NULL;
    wrm_value last;
    wr_status st;

    if (s->exclusive && s->count > 0 && s->in != NULL && s->w != 0 && s->count <= SIZE_MAX / s->w)
        last_in = (const char *)s->in + (s->count - 1) * s->w;
    if (last_in != NULL && s->in == s->out &&
        (st = copy_elem(s->c.ctx, last_in, &last, s->w)) != WR_SUCCESS) {
        wrm_fail_call(&s->c, st);
        return;
    }
    if ((st = local_scan(s, s->in)) != WR_SUCCESS) {
        wrm_fail_call(&s->c, st);
        return;
    }
    if (s->count == 0) return;
    /* the scan succeeded on a cpu-only context: in and out are host memory */
    memcpy(&s->total, (const char *)s->out + (s->count - 1) * s->w, s->w);
    if (s->exclusive) {
        if (s->in != s->out) memcpy(&last, last_in, s->w);
        if (s->count == 1)
            s->total = last;    /* out[0] is the empty prefix's identity: +0 + -0 would be +0 */
        else
            wr_combine(s->type, s->op, &s->total, &last);
    }
}

/* Host path, after the exchange: combine the base into every output. */
static void host_apply(struct scan *s, const wrm_item *base)
{
    if (!base->has || s->count == 0) return;
    if (s->exclusive) {
        /* out[0] is the identity: it becomes the base itself (bit for bit,
         * even where base op identity would not be, as -0.0 + 0.0) */
        wrm_apply_base(s->type, s->op, &base->v, (char *)s->out + s->w, s->count - 1);
        memcpy(s->out, &base->v, s->w);
    } else {
        wrm_apply_base(s->type, s->op, &base->v, s->out, s->count);
    }
}

/*
 * Fold path, local phase: the buffers may be device memory, so nothing here
 * or in fold_apply dereferences them.  The total is a wr_reduce of in (the
 * local scan runs only once the base is known).
 */
static void fold_local(struct scan *s)
{
    size_t bytes;
    wr_status st = wr_reduce(s->c.ctx, s->in, &s->total, s->count, s->type, s->op);
    if (st != WR_SUCCESS) {
        wrm_fail_call(&s->c, st);           /* type, op, count and in */
        return;
    }
    if (s->count == 0) return;
    bytes = s->count * s->w;                /* wr_reduce checked it fits */
    if (s->out == NULL)
        wrm_fail(&s->c, WR_ERR_INVALID_ARG, "out is NULL");
    else if (s->out != s->in && wrm_overlap(s->in, bytes, s->out, bytes))
        wrm_fail(&s->c, WR_ERR_INVALID_ARG, "in and out overlap (only out == in is allowed)");
}

/*
 * Fold path, after the exchange, through public calls only:
 *   out[1..] = in[1..]                      (wr_reduce_rows, 1 column, BOR: a copy)
 *   out[0]   = base op in[0]                (one element read, combined, written)
 *   out      = local scan of out, in place  (so every output carries the base)
 *   exclusive: out[0] = base                (the scan put the identity there)
 * Integers and MIN/MAX/bitwise give the host path's bits; float SUM/PROD carry
 * the base through the backend's scan as a leading element.
 */
static void fold_apply(struct scan *s, const wrm_item *base)
{
    wr_type raw = s->w == 4 ? WR_UINT32 : WR_UINT64;
    wrm_value first;
    wr_status st;

    if (s->count == 0) return;
    if (!base->has) {
        if ((st = local_scan(s, s->in)) != WR_SUCCESS) wrm_fail_call(&s->c, st);
        return;
    }
    if ((st = copy_elem(s->c.ctx, s->in, &first, s->w)) != WR_SUCCESS ||
        (s->in != s->out && s->count > 1 &&
         (st = wr_reduce_rows(s->c.ctx, (const char *)s->in + s->w, (char *)s->out + s->w,
                              s->count - 1, 1, raw, WR_BOR)) != WR_SUCCESS)) {
        wrm_fail_call(&s->c, st);
        return;
    }
    {
        wrm_value f = base->v;
        wr_combine(s->type, s->op, &f, &first);
        if ((st = copy_elem(s->c.ctx, &f, s->out, s->w)) != WR_SUCCESS ||
            (st = local_scan(s, s->out)) != WR_SUCCESS ||
            (s->exclusive && (st = copy_elem(s->c.ctx, &base->v, s->out, s->w)) != WR_SUCCESS))
            wrm_fail_call(&s->c, st);
    }
}

/*
 * Reproducible float SUM: each rank's exact sum (wr_reduce_exact), an
 * MPI_Exscan of those (mpi_exact.c) for the exact sum of everything on the
 * lower ranks, and the local scan continuing from it (wr_scan_exact), which
 * rounds each prefix once: the bits of one process scanning the whole
 * array, for any number of ranks and any split.  Public calls only, so the
 * buffers may be anywhere ctx reaches.
 */
static wr_status exact_scan(struct scan *s)
{
    wr_exact_sum mine, base;
    wrm_item it;
    wr_status st;
    wr_exact_sum_init(&mine);
    if (s->c.ctx == NULL) {
        wrm_fail(&s->c, WR_ERR_INVALID_ARG, "ctx is NULL");
    } else if ((st = wr_reduce_exact(s->c.ctx, s->in, s->count, s->type, &mine)) != WR_SUCCESS) {
        wrm_fail_call(&s->c, st);           /* in and count */
    } else if (s->count > 0) {
        const size_t bytes = s->count * s->w;   /* wr_reduce_exact checked it fits */
        if (s->out == NULL)
            wrm_fail(&s->c, WR_ERR_INVALID_ARG, "out is NULL");
        else if (s->out != s->in && wrm_overlap(s->in, bytes, s->out, bytes))
            wrm_fail(&s->c, WR_ERR_INVALID_ARG, "in and out overlap (only out == in is allowed)");
    }
    wrm_item_init(&s->c, &it, s->type, WRM_KIND_EXACT_SUM);
    if (wrm_allreduce(&s->c, &it) != WR_SUCCESS) return s->c.st;
    if (wrm_exscan_exact(&s->c, &mine, &base) != WR_SUCCESS) return s->c.st;
    if (s->count > 0 &&
        (st = (s->exclusive ? wr_exscan_exact : wr_scan_exact)(s->c.ctx, s->in, s->out, s->count, s->type,
                                                               &base)) != WR_SUCCESS)
        wrm_fail_call(&s->c, st);
    return wrm_end(&s->c);
}

/*
 * The path of a public scan call.  The host path reads and writes in and out
 * on the host once the local scan is done, so it is right only where the
 * buffers are host memory to every backend that may run ctx's calls: on a
 * context whose only backend is the cpu (which refuses device memory).  Any
 * other context may be handed device memory (cudaMalloc, omp_target_alloc,
 * an OpenMP use_device_ptr address), managed memory, or a host array mapped
 * with OpenMP, which an omptarget context takes for its device copy (as its
 * wr_scan reads and writes that copy) and an AUTO context for the host copy.
 * The public API does not say which a buffer is, and "no cuda backend" does
 * not mean "host memory".  The fold path needs no answer: it reaches the
 * buffers through wr_* calls on ctx only, so the MPI scan reads and writes
 * the very memory a wr_scan on ctx would, wherever that is.  (A backend added
 * to wr_backend that may hold device memory joins the list below.)
 */
static enum wrm_scan_path auto_path(const wr_context *ctx)
{
    if (ctx == NULL || !wr_context_has_backend(ctx, WR_BACKEND_CPU) ||
        wr_context_has_backend(ctx, WR_BACKEND_CUDA) || wr_context_has_backend(ctx, WR_BACKEND_OPENMP_TARGET))
        return WRM_PATH_FOLD;
    return WRM_PATH_HOST;
}

wr_status wri_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                       wr_op op, MPI_Comm comm, int exclusive, enum wrm_scan_path path)
{
    struct scan s;
    wrm_item it, base;

    memset(&s, 0, sizeof s);
    if (wrm_begin(&s.c, exclusive ? "wr_mpi_exscan" : "wr_mpi_scan", ctx, comm) != 0) return s.c.st;
    s.in = in;
    s.out = out;
    s.count = count;
    s.w = wr_type_size(type);
    s.type = type;
    s.op = op;
    s.exclusive = exclusive;
    if (ctx != NULL && wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE && op == WR_SUM &&
        (type == WR_FLOAT || type == WR_DOUBLE))
        return exact_scan(&s);
    if (path == WRM_PATH_AUTO) path = auto_path(ctx);

    if (ctx == NULL)
        wrm_fail(&s.c, WR_ERR_INVALID_ARG, "ctx is NULL");
    else if (path == WRM_PATH_HOST)
        host_local(&s);
    else
        fold_local(&s);

    /* Agree on the status first: the exscan below carries data only. */
    wrm_item_init(&s.c, &it, type, (int)op);
    if (wrm_allreduce(&s.c, &it) != WR_SUCCESS) return s.c.st;
    it.has = count > 0;
    it.v = s.total;
    if (wrm_exscan(&s.c, &it, &base) != WR_SUCCESS) return s.c.st;

    if (path == WRM_PATH_HOST)
        host_apply(&s, &base);
    else
        fold_apply(&s, &base);
    return wrm_end(&s.c);
}

wr_status wr_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count,
                      wr_type type, wr_op op, MPI_Comm comm)
{
    return wri_mpi_scan(ctx, in, out, count, type, op, comm, 0, WRM_PATH_AUTO);
}

wr_status wr_mpi_exscan(wr_context *ctx, const void *in, void *out, size_t count,
                        wr_type type, wr_op op, MPI_Comm comm)
{
    return wri_mpi_scan(ctx, in, out, count, type, op, comm, 1, WRM_PATH_AUTO);
}

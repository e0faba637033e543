/*
 * cpu_backend.c -- the cpu backend's ops table (OpenMP on the host).
 *
 * It keeps no state: every call works on its own stack and scratch, so one
 * context may be used from many threads at once, and a call made inside the
 * caller's own parallel region runs in that thread (OpenMP leaves nested
 * regions inactive) and gives the same bits.  lib/ has validated every
 * argument; the kernels live in cpu_reduce.c, cpu_scan.c and cpu_arg.c, in
 * one variant per instruction set, and cpu_isa.c chooses which one runs;
 * cpu_exact.c and cpu_segscan.c build on them.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "cpu_internal.h"
#include "cpu_exact.h"

/* WARPRED_CPU_ISA: which variant of the kernels runs (cpu_isa.c). */
static wr_status cpu_open(void **state, const struct wr_host_api *host, char *err)
{
    *state = NULL;
    return wrcpu_isa_open(host, err);
}

static void cpu_close(void *state)
{
    (void)state;
}

static void cpu_describe(void *state, char *buf, size_t len)
{
    (void)state;
#ifdef _OPENMP
    snprintf(buf, len, "OpenMP, %d thread%s, %s", omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s",
             wrcpu_isa_name());
#else
    snprintf(buf, len, "serial (built without OpenMP), %s", wrcpu_isa_name());
#endif
}

/* Threads a call made now from this thread would run on: lib/'s AUTO cost
 * model weighs the cpu by it.  Inside an active parallel region beyond the
 * nesting the runtime allows, the backend's regions get one thread. */
static int cpu_threads(void *state)
{
    (void)state;
#ifdef _OPENMP
    int n = omp_get_max_threads(), lim = omp_get_thread_limit();
    if (omp_get_active_level() >= omp_get_max_active_levels()) return 1;
    if (lim > 0 && n > lim) n = lim;
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

static wr_mem_kind cpu_locate(void *state, const void *ptr)
{
    (void)state;
    (void)ptr;
    return WR_MEM_HOST;
}

static wr_status cpu_check_offsets(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err)
{
    size_t s;
    (void)state;
    (void)err;
    sum[0] = offsets[0];
    sum[1] = offsets[nsegments];
    sum[2] = SIZE_MAX;
    for (s = 0; s < nsegments; s++)
        if (offsets[s + 1] < offsets[s]) {
            sum[2] = s;
            sum[3] = offsets[s];
            sum[4] = offsets[s + 1];
            break;
        }
    return WR_SUCCESS;
}

/* (lib/ answers wr_context_set_stream itself for a backend without streams) */
static wr_status cpu_set_stream(void *state, void *stream, char *err)
{
    (void)state;
    (void)stream;
    snprintf(err, WR_ERRLEN, "the cpu backend has no streams");
    return WR_ERR_NO_BACKEND;
}

/* Every call completes before it returns: nothing to wait for. */
static wr_status cpu_synchronize(void *state, char *err)
{
    (void)state;
    (void)err;
    return WR_SUCCESS;
}

/* Host memory of every kind; every operation but the stream-ordered ones. */
static void cpu_caps(void *state, struct wr_caps *c)
{
    int i;
    (void)state;
    for (i = 0; i < WR_NOPIDS; i++)
        if (wrcpu_backend_ops.op[i] != NULL) c->ops |= WR_OPID_BIT(i);
    c->types = 0x3f;
    c->mem = 1u << WR_MEM_HOST | 1u << WR_MEM_HOST_PINNED | 1u << WR_MEM_MANAGED | 1u << WR_MEM_MAPPED;
}

/* ---- the operations (lib/ has checked every argument) ---- */

static wr_status op_reduce(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_reduce(c->in, c->out, c->count, c->type, c->op, err);
}

static wr_status op_scan(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_scan(c->in, c->out, c->count, c->type, c->op, c->exclusive, err);
}

static wr_status op_rows(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_reduce_rows(c->in, c->out, c->count, c->cols, c->type, c->op, err);
}

static wr_status op_segments(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_reduce_segments(c->in, c->out, c->count, c->offsets, c->type, c->op, err);
}

static wr_status op_segscan(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_scan_segments(c->in, c->out, c->count, c->offsets, c->type, c->op, c->exclusive, 0, err);
}

static wr_status op_argext(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_argext(c->in, c->count, c->type, c->is_max, c->index, c->out, err);
}

static wr_status op_xreduce(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    (void)err;
    return wrcpu_exact_reduce(c->in, c->out, c->count, c->type);
}

static wr_status op_xscan(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_exact_scan(c->in, c->out, c->count, c->type, c->exclusive, (const wrx_acc *)c->carry, err);
}

static wr_status op_xrows(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    (void)err;
    return wrcpu_exact_rows(c->in, c->out, c->count, c->cols, c->type);
}

static wr_status op_xsegments(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    (void)err;
    return wrcpu_exact_segments(c->in, c->out, c->count, c->offsets, c->type);
}

static wr_status op_xsegscan(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_scan_segments(c->in, c->out, c->count, c->offsets, c->type, WR_SUM, c->exclusive, 1, err);
}

static wr_status op_xsum(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    (void)err;
    wrcpu_exact_sum(c->in, c->count, c->type, 1, (wrx_acc *)c->acc);
    return WR_SUCCESS;
}

/* Dot products and norms, fast and reproducible (cpu_dot.c); XDOT, XASUM
 * and XNRM2 with call->acc set write the exact partial (doc/DESIGN.md). */
static wr_status op_blas(void *st, const struct wr_call *c, char *err)
{
    (void)st;
    return wrcpu_blas(c, err);
}

const struct wr_backend_ops wrcpu_backend_ops = {
    .abi = WR_BACKEND_ABI,
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .caps = cpu_caps,
    .describe = cpu_describe,
    .threads = cpu_threads,
    .locate = cpu_locate,
    .check_offsets = cpu_check_offsets,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .op = {
        [WR_OPID_REDUCE] = op_reduce,
        [WR_OPID_SCAN] = op_scan,
        [WR_OPID_ROWS] = op_rows,
        [WR_OPID_SEGMENTS] = op_segments,
        [WR_OPID_SEGSCAN] = op_segscan,
        [WR_OPID_ARGEXT] = op_argext,
        [WR_OPID_XREDUCE] = op_xreduce,
        [WR_OPID_XSCAN] = op_xscan,
        [WR_OPID_XROWS] = op_xrows,
        [WR_OPID_XSEGMENTS] = op_xsegments,
        [WR_OPID_XSEGSCAN] = op_xsegscan,
        [WR_OPID_XSUM] = op_xsum,
        [WR_OPID_IAMAX] = op_blas,
        [WR_OPID_DOT] = op_blas,
        [WR_OPID_DOTROWS] = op_blas,
        [WR_OPID_NRM2] = op_blas,
        [WR_OPID_ASUM] = op_blas,
        [WR_OPID_XDOT] = op_blas,
        [WR_OPID_XDOTROWS] = op_blas,
        [WR_OPID_XNRM2] = op_blas,
        [WR_OPID_XASUM] = op_blas,
    },
};

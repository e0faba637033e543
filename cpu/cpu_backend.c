/*
 * cpu_backend.c -- the cpu backend's ops table (OpenMP on the host).
 *
 * It keeps no state: every call works on its own stack and scratch, so one
 * context may be used from many threads at once, and a call made inside the
 * caller's own parallel region runs in that thread (OpenMP leaves nested
 * regions inactive) and gives the same bits.  lib/api.c has validated every
 * argument; the kernels live in cpu_reduce.c, cpu_scan.c and cpu_arg.c.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "cpu_internal.h"
#include "cpu_exact.h"

static wr_status cpu_open(void **state, const struct wr_host_api *host, char *err)
{
    (void)host;
    (void)err;
    *state = NULL;
    return WR_SUCCESS;
}

static void cpu_close(void *state)
{
    (void)state;
}

static void cpu_describe(void *state, char *buf, size_t len)
{
    (void)state;
#ifdef _OPENMP
    snprintf(buf, len, "OpenMP, %d thread%s", omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s");
#else
    snprintf(buf, len, "serial (built without OpenMP)");
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

static wr_status cpu_reduce(void *state, const struct wr_call *call, const void *in, void *out, size_t count,
                            wr_type type, wr_op op, char *err)
{
    (void)state;
    if (wrx_applies(call->fmode, type, op)) return wrcpu_exact_reduce(in, out, count, type);   /* cpu_exact.c */
    return wrcpu_reduce(in, out, count, type, op, err);
}

static wr_status cpu_scan(void *state, const struct wr_call *call, const void *in, void *out, size_t count,
                          wr_type type, wr_op op, int exclusive, char *err)
{
    (void)state;
    (void)call;
    return wrcpu_scan(in, out, count, type, op, exclusive, err);
}

static wr_status cpu_reduce_rows(void *state, const struct wr_call *call, const void *in, void *out,
                                 size_t rows, size_t cols, wr_type type, wr_op op, char *err)
{
    (void)state;
    if (wrx_applies(call->fmode, type, op)) return wrcpu_exact_rows(in, out, rows, cols, type);
    return wrcpu_reduce_rows(in, out, rows, cols, type, op, err);
}

static wr_status cpu_reduce_segments(void *state, const struct wr_call *call, const void *in, void *out,
                                     size_t nsegments, const size_t *offsets, wr_type type, wr_op op, char *err)
{
    (void)state;
    if (wrx_applies(call->fmode, type, op)) return wrcpu_exact_segments(in, out, nsegments, offsets, type);
    return wrcpu_reduce_segments(in, out, nsegments, offsets, type, op, err);
}

static wr_status cpu_argext(void *state, const struct wr_call *call, const void *in, size_t count, wr_type type,
                            int is_max, size_t *index, void *value, char *err)
{
    (void)state;
    (void)call;
    return wrcpu_argext(in, count, type, is_max, index, value, err);
}

static wr_status cpu_reduce_exact(void *state, const struct wr_call *call, const void *in, size_t count,
                                  wr_type type, void *acc, char *err)
{
    (void)state;
    (void)call;
    (void)err;
    wrcpu_exact_sum(in, count, type, 1, (wrx_acc *)acc);
    return WR_SUCCESS;
}

const struct wr_backend_ops wrcpu_backend_ops = {
    .abi = WR_BACKEND_ABI,
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .threads = cpu_threads,
    .locate = cpu_locate,
    .check_offsets = cpu_check_offsets,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .reduce = cpu_reduce,
    .scan = cpu_scan,
    .reduce_rows = cpu_reduce_rows,
    .reduce_segments = cpu_reduce_segments,
    .argext = cpu_argext,
    .reduce_exact = cpu_reduce_exact,
};

/*
 * omp_backend.c -- the omptarget backend's ops table: open, close,
 * capabilities, and one entry per operation it provides.  The device is
 * found by omp_device.c, buffers are resolved, staged and given scratch by
 * omp_mem.c and omp_stage.c, and the operations are the kernel files'.
 *
 * Buffers follow OpenMP's own conventions (README, wr_context_create(3)):
 *  - host memory that is mapped (present in the device data environment of
 *    the context's device, omp_target_is_present) is used in place: the
 *    kernels work on its device copy, which must hold the whole buffer;
 *  - device memory (omp_target_alloc, or the address a use_device_ptr /
 *    use_device_addr clause gives) is used as it is.  OpenMP has no query
 *    for "is this a device address", so on NVIDIA devices the plugin asks
 *    the CUDA driver (cuPointerGetAttributes, from libcuda.so.1 opened with
 *    dlopen): libgomp's nvptx plugin allocates device memory with
 *    cuMemAlloc, so its pointers are CUDA device pointers.  Managed memory
 *    is used in place too;
 *  - any other host memory is copied in and results out, through staging
 *    buffers of WARPRED_OMPTARGET_STAGING_BYTES (default 64 MiB), chunk by
 *    chunk, cut on the kernels' own boundaries so that the bits are those
 *    of a device-resident call.
 * With no device the target regions run on the host (OpenMP's host
 * fallback): every buffer is then host memory and is used in place, unless
 * WARPRED_OMPTARGET_STAGING_BYTES is set, which makes host buffers go
 * through staging as on a device (the tests use it).
 *
 * Every call completes before it returns (target regions without nowait).
 * There are no streams: set_stream(NULL) is accepted, anything else is
 * WR_ERR_NO_BACKEND.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_internal.h"

#ifndef WRO_OFFLOAD_TARGETS
#  define WRO_OFFLOAD_TARGETS "host only"
#endif
#if defined(__clang__)
#  define WRO_COMPILER_FMT "clang %d", __clang_major__
#elif defined(__GNUC__)
#  define WRO_COMPILER_FMT "GCC %d", __GNUC__
#else
#  define WRO_COMPILER_FMT "%s", "unknown compiler"
#endif

/* ---- the table -------------------------------------------------------------- */

static wr_status wro_open(void **state, const struct wr_host_api *host, char *err)
{
    struct wro_state *st;
    size_t v;
    int r, ndev, arch = WRO_ARCH_HOST;
    char name[128] = "", comp[32];

    *state = NULL;
    st = calloc(1, sizeof *st);
    if (st == NULL) {
        snprintf(err, WR_ERRLEN, "out of memory");
        return WR_ERR_NO_MEMORY;
    }
    r = host->env_count("WARPRED_OMPTARGET_STAGING_BYTES", WRO_STAGING_MIN, (size_t)1 << 40, &v, err);
    if (r < 0) { free(st); return WR_ERR_INVALID_ARG; }
    st->staging = r ? v : WRO_STAGING_DEFAULT;
    st->stage_host = r > 0;

    ndev = omp_get_num_devices();
    st->initial = omp_get_initial_device();
    r = host->env_count("WARPRED_OMPTARGET_DEVICE", 0, 1 << 20, &v, err);
    if (r < 0) { free(st); return WR_ERR_INVALID_ARG; }
    if (r > 0 && (int)v >= ndev) {
        snprintf(err, WR_ERRLEN, "WARPRED_OMPTARGET_DEVICE=%zu: there %s %d offload device%s", v,
                 ndev == 1 ? "is" : "are", ndev, ndev == 1 ? "" : "s");
        free(st);
        return WR_ERR_NO_BACKEND;
    }
    st->dev = r > 0 ? (int)v : omp_get_default_device();
    st->host = ndev == 0 || st->dev < 0 || st->dev >= ndev;
    if (st->host) st->dev = st->initial;
    if (!st->host) arch = wro_device_arch(st->dev);
    if (arch == WRO_ARCH_NVPTX) st->cu = wro_cuda_open(st->dev, name, sizeof name);
    if (pthread_mutex_init(&st->mu, NULL) != 0) {
        free(st);
        snprintf(err, WR_ERRLEN, "pthread_mutex_init failed");
        return WR_ERR_NO_MEMORY;
    }

    snprintf(comp, sizeof comp, WRO_COMPILER_FMT);
    if (st->host)
        snprintf(st->desc, sizeof st->desc, "OpenMP offload, %s (%s), host fallback (no device)",
                 WRO_OFFLOAD_TARGETS, comp);
    else
        snprintf(st->desc, sizeof st->desc, "OpenMP offload, %s (%s), device %d of %d%s%s",
                 arch == WRO_ARCH_NVPTX ? "nvptx-none" : arch == WRO_ARCH_AMDGCN ? "amdgcn-amdhsa"
                                                                            : WRO_OFFLOAD_TARGETS,
                 comp, st->dev, ndev, name[0] ? ": " : "", name);
    *state = st;
    return WR_SUCCESS;
}

static void wro_close(void *state)
{
    struct wro_state *st = state;
    if (st == NULL) return;
    wro_pool_free(st);
    wro_cuda_close(st->cu);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static void wro_describe(void *state, char *buf, size_t len)
{
    const struct wro_state *st = state;
    snprintf(buf, len, "%s", st->desc);
}

/* On a device: 0.  On the host fallback the kernels run on the host's
 * OpenMP threads. */
static int wro_threads(void *state)
{
    const struct wro_state *st = state;
    return st->host ? omp_get_max_threads() : 0;
}

static wr_status wro_set_stream(void *state, void *stream, char *err)
{
    (void)state;
    if (stream == NULL) return WR_SUCCESS;
    snprintf(err, WR_ERRLEN, "the omptarget backend has no streams: its calls are target regions that "
             "complete before they return (order them with depend or taskwait)");
    return WR_ERR_NO_BACKEND;
}

/* Nothing is ever left queued. */
static wr_status wro_synchronize(void *state, char *err)
{
    (void)state;
    (void)err;
    return WR_SUCCESS;
}

static wr_status wro_check(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err)
{
    return wro_check_offsets(state, offsets, nsegments, sum, err);
}

/* The plugin's one exported symbol (plugin.map), below. */
extern const struct wr_backend_ops warpred_backend_ops;

/* Device, managed and mapped memory, and host memory through staging
 * buffers (on the host fallback: in place).  No streams. */
static void wro_caps(void *state, struct wr_caps *c)
{
    int i;
    (void)state;
    for (i = 0; i < WR_NOPIDS; i++)
        if (warpred_backend_ops.op[i] != NULL) c->ops |= WR_OPID_BIT(i);
    c->types = 0x3f;
    c->mem = 1u << WR_MEM_HOST | 1u << WR_MEM_HOST_PINNED | 1u << WR_MEM_DEVICE | 1u << WR_MEM_MANAGED |
             1u << WR_MEM_MAPPED;
    c->device = 1;
}

/* ---- the operations: omp_reduce.c, omp_scan.c, omp_segscan.c, omp_arg.c,
 * omp_exact.c, omp_xscan.c, omp_dot.c ------------------------------------- */

static wr_status op_reduce(void *s, const struct wr_call *c, char *err)
{
    return wro_reduce(s, c, c->in, c->out, c->count, c->type, c->op, err);
}

static wr_status op_scan(void *s, const struct wr_call *c, char *err)
{
    return wro_scan(s, c, c->in, c->out, c->count, c->type, c->op, c->exclusive, err);
}

static wr_status op_rows(void *s, const struct wr_call *c, char *err)
{
    return wro_reduce_rows(s, c, c->in, c->out, c->count, c->cols, c->type, c->op, err);
}

static wr_status op_segments(void *s, const struct wr_call *c, char *err)
{
    return wro_reduce_segments(s, c, c->in, c->out, c->count, c->offsets, c->type, c->op, err);
}

static wr_status op_argext(void *s, const struct wr_call *c, char *err)
{
    return wro_argext(s, c, c->in, c->count, c->type, c->is_max, c->id == WR_OPID_IAMAX, c->index, c->out, err);
}

static wr_status op_blas(void *s, const struct wr_call *c, char *err)
{
    return wro_blas(s, c, err);
}

static wr_status op_xreduce(void *s, const struct wr_call *c, char *err)
{
    return wro_exact_reduce(s, c, c->in, c->out, c->count, c->type, err);
}

static wr_status op_xrows(void *s, const struct wr_call *c, char *err)
{
    return wro_exact_rows(s, c, c->in, c->out, c->count, c->cols, c->type, err);
}

static wr_status op_xsegments(void *s, const struct wr_call *c, char *err)
{
    return wro_exact_segments(s, c, c->in, c->out, c->count, c->offsets, c->type, err);
}

static wr_status op_xsum(void *s, const struct wr_call *c, char *err)
{
    return wro_reduce_exact(s, c, c->in, c->count, c->type, c->acc, err);
}

static wr_status op_segscan(void *s, const struct wr_call *c, char *err)
{
    return wro_scan_segments(s, c, err);
}

static wr_status op_xscan(void *s, const struct wr_call *c, char *err)
{
    return wro_exact_scan(s, c, err);
}

static wr_status op_xsegscan(void *s, const struct wr_call *c, char *err)
{
    return wro_exact_scan_segments(s, c, err);
}

__attribute__((visibility("default"))) const struct wr_backend_ops warpred_backend_ops = {
    .abi = WR_BACKEND_ABI,
    .name = "omptarget",
    .open = wro_open,
    .close = wro_close,
    .caps = wro_caps,
    .describe = wro_describe,
    .threads = wro_threads,
    .locate = wro_locate,
    .check_offsets = wro_check,
    .set_stream = wro_set_stream,
    .synchronize = wro_synchronize,
    .op = {
        [WR_OPID_REDUCE] = op_reduce,
        [WR_OPID_SCAN] = op_scan,
        [WR_OPID_ROWS] = op_rows,
        [WR_OPID_SEGMENTS] = op_segments,
        [WR_OPID_SEGSCAN] = op_segscan,
        [WR_OPID_ARGEXT] = op_argext,
        [WR_OPID_IAMAX] = op_argext,
        [WR_OPID_DOT] = op_blas,
        [WR_OPID_DOTROWS] = op_blas,
        [WR_OPID_NRM2] = op_blas,
        [WR_OPID_ASUM] = op_blas,
        [WR_OPID_XREDUCE] = op_xreduce,
        [WR_OPID_XSCAN] = op_xscan,
        [WR_OPID_XROWS] = op_xrows,
        [WR_OPID_XSEGMENTS] = op_xsegments,
        [WR_OPID_XSEGSCAN] = op_xsegscan,
        [WR_OPID_XSUM] = op_xsum,
        [WR_OPID_XDOT] = op_blas,
        [WR_OPID_XDOTROWS] = op_blas,
        [WR_OPID_XNRM2] = op_blas,
        [WR_OPID_XASUM] = op_blas,
    },
};


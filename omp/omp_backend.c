/*
 * omp_backend.c -- the omptarget backend's ops table: the device it runs
 * on, where buffers live, staging and scratch memory.
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
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_internal.h"
#include "wr_exact.h"

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

/* ---- which device code runs: declare variant on the target's arch -------- */

enum { WRO_ARCH_HOST = 0, WRO_ARCH_NVPTX = 1, WRO_ARCH_AMDGCN = 2 };

#pragma omp declare target
/* Not static: a static variant is dropped before the offload compiler
 * resolves the call (GCC 12). */
int wro_arch_nvptx(void);
int wro_arch_amdgcn(void);
int wro_arch_nvptx(void) { return WRO_ARCH_NVPTX; }
int wro_arch_amdgcn(void) { return WRO_ARCH_AMDGCN; }
#if defined(__clang__)       /* clang's name of its 64-bit nvptx target */
#pragma omp declare variant(wro_arch_nvptx) match(device = {arch(nvptx64)})
#else
#pragma omp declare variant(wro_arch_nvptx) match(device = {arch(nvptx)})
#endif
#pragma omp declare variant(wro_arch_amdgcn) match(device = {arch(amdgcn)})
int wro_arch(void);
int wro_arch(void) { return WRO_ARCH_HOST; }
#pragma omp end declare target

static int device_arch(int dev)
{
    int a = WRO_ARCH_HOST;
#pragma omp target device(dev) map(from: a)
    a = wro_arch();
    return a;
}

/* ---- the CUDA driver, for device pointers on NVIDIA devices -------------- */

/* The few driver entry points used, with the driver API's own types as
 * plain C types (no CUDA header needed to build the plugin). */
struct wro_cuda {
    void *lib;
    int (*init)(unsigned flags);
    int (*device_get)(int *dev, int ordinal);
    int (*device_get_name)(char *name, int len, int dev);
    int (*pointer_get_attributes)(unsigned n, int *attrs, void **data, unsigned long long ptr);
    int (*ctx_get_current)(void **ctx);
    int (*primary_get_state)(int dev, unsigned *flags, int *active);
    int (*primary_retain)(void **ctx, int dev);
    int (*primary_release)(int dev);
    int ordinal;                 /* the CUDA device of the context's OpenMP device */
};
#define WRO_CU_MEMORY_TYPE 2     /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
#define WRO_CU_IS_MANAGED 8      /* CU_POINTER_ATTRIBUTE_IS_MANAGED */
#define WRO_CU_MEMTYPE_DEVICE 2  /* CU_MEMORYTYPE_DEVICE */

/*
 * libgomp's nvptx plugin opens a device in a thread that already has a
 * current CUDA context (the device's primary context, made current by the
 * CUDA runtime, e.g. by libwarpred's CUDA plugin) by using that context
 * without taking a reference to it.  The CUDA runtime releases its
 * reference when the process exits; when its exit handler runs before
 * libgomp's (libgomp initialised first), the context is destroyed under
 * libgomp, whose finalisation then fails ("cuMemFree_v2 error: context is
 * destroyed") and makes the process exit with status 1.  So when libgomp
 * computes in the primary context, the plugin takes one reference to it
 * for the life of the process (once per device; the driver frees it at
 * exit).  Called right after a target region ran on the device in this
 * thread, so libgomp's context is the current one.
 */
static void keep_primary_context(const struct wro_cuda *c, int d)
{
    static unsigned long kept;          /* devices done, one bit each */
    void *cur = NULL, *prim = NULL;
    unsigned flags = 0;
    int active = 0;
    if (d < 0 || d >= (int)(8 * sizeof kept) || !c->ctx_get_current || !c->primary_get_state ||
        !c->primary_retain || !c->primary_release)
        return;
    if (__atomic_fetch_or(&kept, 1ul << d, __ATOMIC_ACQ_REL) & (1ul << d)) return;
    if (c->ctx_get_current(&cur) != 0 || cur == NULL) return;
    if (c->primary_get_state(d, &flags, &active) != 0 || !active) return;
    if (c->primary_retain(&prim, d) != 0) return;
    if (prim != cur) c->primary_release(d);  /* libgomp has a context of its own */
}

/* libgomp's nvptx plugin numbers its devices as the CUDA driver does, so
 * OpenMP device dev (when all devices are NVIDIA ones) is CUDA device dev. */
static struct wro_cuda *cuda_open(int dev, char *name, size_t len)
{
    struct wro_cuda *c = calloc(1, sizeof *c);
    int d;
    if (c == NULL) return NULL;
    c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (c->lib == NULL) { free(c); return NULL; }
    *(void **)&c->init = dlsym(c->lib, "cuInit");
    *(void **)&c->device_get = dlsym(c->lib, "cuDeviceGet");
    *(void **)&c->device_get_name = dlsym(c->lib, "cuDeviceGetName");
    *(void **)&c->pointer_get_attributes = dlsym(c->lib, "cuPointerGetAttributes");
    *(void **)&c->ctx_get_current = dlsym(c->lib, "cuCtxGetCurrent");
    *(void **)&c->primary_get_state = dlsym(c->lib, "cuDevicePrimaryCtxGetState");
    *(void **)&c->primary_retain = dlsym(c->lib, "cuDevicePrimaryCtxRetain");
    *(void **)&c->primary_release = dlsym(c->lib, "cuDevicePrimaryCtxRelease_v2");
    if (c->primary_release == NULL) *(void **)&c->primary_release = dlsym(c->lib, "cuDevicePrimaryCtxRelease");
    if (!c->init || !c->device_get || !c->device_get_name || !c->pointer_get_attributes ||
        c->init(0) != 0 || c->device_get(&d, dev) != 0) {
        dlclose(c->lib);
        free(c);
        return NULL;
    }
    c->ordinal = dev;
    if (c->device_get_name(name, (int)len, d) != 0) name[0] = '\0';
    keep_primary_context(c, d);
    return c;
}

/* WR_MEM_DEVICE, WR_MEM_MANAGED, or WR_MEM_HOST for anything the driver
 * does not know (cuPointerGetAttributes leaves the attributes 0 then). */
static wr_mem_kind cuda_locate(const struct wro_cuda *c, const void *ptr)
{
    int attrs[2] = { WRO_CU_MEMORY_TYPE, WRO_CU_IS_MANAGED };
    unsigned type = 0, managed = 0;
    void *data[2] = { &type, &managed };
    if (c->pointer_get_attributes(2, attrs, data, (unsigned long long)(uintptr_t)ptr) != 0) return WR_MEM_HOST;
    if (managed) return WR_MEM_MANAGED;
    return type == WRO_CU_MEMTYPE_DEVICE ? WR_MEM_DEVICE : WR_MEM_HOST;
}

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
    if (!st->host) arch = device_arch(st->dev);
    if (arch == WRO_ARCH_NVPTX) st->cu = cuda_open(st->dev, name, sizeof name);
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
    int i;
    if (st == NULL) return;
    for (i = 0; i < st->npool; i++) omp_target_free(st->pool[i].p, st->dev);
    if (st->cu) {
        dlclose(st->cu->lib);
        free(st->cu);
    }
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

wr_mem_kind wro_locate(void *state, const void *ptr)
{
    struct wro_state *st = state;
    if (st->host || ptr == NULL) return WR_MEM_HOST;
    if (omp_target_is_present(ptr, st->dev)) return WR_MEM_MAPPED;
    if (st->cu) return cuda_locate(st->cu, ptr);
    return WR_MEM_HOST;
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

/* ---- the operations: omp_reduce.c, omp_scan.c, omp_arg.c, omp_exact.c ---- */

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
    return wro_argext(s, c, c->in, c->count, c->type, c->is_max, c->index, c->out, err);
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
        [WR_OPID_ARGEXT] = op_argext,
        [WR_OPID_XREDUCE] = op_xreduce,
        [WR_OPID_XROWS] = op_xrows,
        [WR_OPID_XSEGMENTS] = op_xsegments,
        [WR_OPID_XSUM] = op_xsum,
    },
};

/* ---- scratch, copies and buffers ------------------------------------------- */

int wro_par(const struct wro_state *st, size_t work)
{
    return !st->host || work >= WRO_HOST_PAR_MIN;
}

wr_status wro_scratch_open(struct wro_state *st, struct wro_scratch *s, size_t bytes, char *err)
{
    int i, best = -1;
    s->st = st;
    s->used = 0;
    s->blk.p = NULL;
    s->blk.bytes = 0;
    if (bytes < 256) bytes = 256;
    pthread_mutex_lock(&st->mu);
    for (i = 0; i < st->npool; i++)
        if (st->pool[i].bytes >= bytes && (best < 0 || st->pool[i].bytes < st->pool[best].bytes)) best = i;
    if (best >= 0) {
        s->blk = st->pool[best];
        st->pool[best] = st->pool[--st->npool];
    }
    pthread_mutex_unlock(&st->mu);
    if (s->blk.p != NULL) return WR_SUCCESS;
    /* a little more than asked, so that slightly larger calls reuse it */
    bytes = (bytes + bytes / 8 + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
    s->blk.p = omp_target_alloc(bytes, st->dev);
    if (s->blk.p == NULL) {
        snprintf(err, WR_ERRLEN, "omp_target_alloc of %zu bytes of scratch on device %d failed", bytes, st->dev);
        return WR_ERR_NO_MEMORY;
    }
    s->blk.bytes = bytes;
    return WR_SUCCESS;
}

void *wro_scratch_take(struct wro_scratch *s, size_t n)
{
    size_t need = WRO_SCRATCH_SIZE(n);
    char *p;
    if (s->blk.bytes - s->used < need) return NULL;
    p = (char *)s->blk.p + s->used;
    s->used += need;
    return p;
}

void wro_scratch_close(struct wro_scratch *s)
{
    struct wro_state *st = s->st;
    struct wro_block drop = { NULL, 0 };
    int i, small;
    if (st == NULL || s->blk.p == NULL) return;
    pthread_mutex_lock(&st->mu);
    if (st->npool < WRO_POOL) {
        st->pool[st->npool++] = s->blk;
    } else {
        /* keep the larger ones */
        for (small = 0, i = 1; i < st->npool; i++)
            if (st->pool[i].bytes < st->pool[small].bytes) small = i;
        if (st->pool[small].bytes < s->blk.bytes) {
            drop = st->pool[small];
            st->pool[small] = s->blk;
        } else {
            drop = s->blk;
        }
    }
    pthread_mutex_unlock(&st->mu);
    if (drop.p) omp_target_free(drop.p, st->dev);
    s->blk.p = NULL;
}

wr_status wro_copy(struct wro_state *st, void *dst, int dst_on_dev, const void *src, int src_on_dev,
                   size_t bytes, char *err)
{
    int r;
    if (bytes == 0) return WR_SUCCESS;
    r = omp_target_memcpy(dst, (void *)(uintptr_t)src, bytes, 0, 0, dst_on_dev ? st->dev : st->initial,
                          src_on_dev ? st->dev : st->initial);
    if (r != 0) {
        snprintf(err, WR_ERRLEN, "omp_target_memcpy of %zu bytes (%s to %s) failed", bytes,
                 src_on_dev ? "device" : "host", dst_on_dev ? "device" : "host");
        return WR_ERR_DEVICE;
    }
    return WR_SUCCESS;
}

/* The device address of mapped host address p (use_device_ptr translates an
 * address inside a mapped section to the same place in its device copy). */
static char *dev_addr(int dev, const void *p)
{
    char *q = (char *)(uintptr_t)p, *r = NULL;
#pragma omp target data use_device_ptr(q) device(dev)
    r = q;
    return r;
}

wr_status wro_resolve(struct wro_state *st, const void *ptr, size_t bytes, wr_mem_kind kind, const char *what,
                      struct wro_buf *b, char *err)
{
    b->p = (char *)(uintptr_t)ptr;
    b->direct = 1;
    b->on_dev = 1;
    if (bytes == 0 || ptr == NULL) return WR_SUCCESS;
    switch (kind) {
    case WR_MEM_DEVICE:
    case WR_MEM_MANAGED:
        return WR_SUCCESS;
    case WR_MEM_MAPPED: {
        const char *last = (const char *)ptr + bytes - 1;
        char *d0, *d1;
        if (!omp_target_is_present(last, st->dev)) {
            snprintf(err, WR_ERRLEN, "%s is mapped on device %d only in part: its last byte (%p, %zu bytes on) "
                     "is not present", what, st->dev, (const void *)last, bytes - 1);
            return WR_ERR_INVALID_ARG;
        }
        d0 = dev_addr(st->dev, ptr);
        d1 = dev_addr(st->dev, last);
        if (d0 == NULL || d1 == NULL || (size_t)(d1 - d0) != bytes - 1) {
            snprintf(err, WR_ERRLEN, "%s is not mapped as one piece on device %d (its first and last bytes "
                     "are in different mappings)", what, st->dev);
            return WR_ERR_INVALID_ARG;
        }
        b->p = d0;
        return WR_SUCCESS;
    }
    default:
        if (st->host && !st->stage_host) return WR_SUCCESS;
        b->direct = 0;
        b->on_dev = 0;
        return WR_SUCCESS;
    }
}

/*
 * omp_device.c -- which device the omptarget backend runs on: the
 * architecture of its code (a target region asks, through declare
 * variant), and on NVIDIA devices the CUDA driver, which recognises device
 * pointers (OpenMP has no query for "is this a device address"):
 * libgomp's nvptx plugin allocates device memory with cuMemAlloc, so its
 * pointers are CUDA device pointers.  The driver is opened with dlopen, so
 * the plugin needs no CUDA at build time and none on a machine without it.
 */
#include <config.h>
#include <dlfcn.h>
#include <stdlib.h>
#include "omp_internal.h"

/* ---- which device code runs: declare variant on the target's arch -------- */

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

int wro_device_arch(int dev)
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
struct wro_cuda *wro_cuda_open(int dev, char *name, size_t len)
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
wr_mem_kind wro_cuda_locate(const struct wro_cuda *c, const void *ptr)
{
    int attrs[2] = { WRO_CU_MEMORY_TYPE, WRO_CU_IS_MANAGED };
    unsigned type = 0, managed = 0;
    void *data[2] = { &type, &managed };
    if (c->pointer_get_attributes(2, attrs, data, (unsigned long long)(uintptr_t)ptr) != 0) return WR_MEM_HOST;
    if (managed) return WR_MEM_MANAGED;
    return type == WRO_CU_MEMTYPE_DEVICE ? WR_MEM_DEVICE : WR_MEM_HOST;
}

void wro_cuda_close(struct wro_cuda *c)
{
    if (c == NULL) return;
    dlclose(c->lib);
    free(c);
}

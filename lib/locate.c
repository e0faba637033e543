/*
 * locate.c -- where a buffer lives, for a context without a device backend.
 *
 * A cpu context must refuse device memory (the host cannot read it) but
 * must not pay for finding out: creating a CUDA context costs a process
 * hundreds of milliseconds and half a gigabyte of GPU memory (measured on
 * an H100: doc/perf-log/2026-12-05.md), which every MPI rank of a cpu-only
 * code on a GPU node would pay.  So the light locator never loads the CUDA
 * driver and never initialises it: a pointer can be device memory only if
 * the process itself loaded libcuda.so.1 and made CUDA allocations.  Only
 * then (dlopen with RTLD_NOLOAD finds the library already mapped) it asks
 * the driver (cuPointerGetAttributes, which answers for any pointer,
 * without a current context and without failing on host memory); while the
 * library is not loaded every pointer is host memory.
 */
#define _GNU_SOURCE 1            /* dl_iterate_phdr */
#include <config.h>
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include "wr_internal.h"

/* The driver API's values (cuda.h), which this file must not need. */
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_MEMORYTYPE_UNIFIED 4

typedef int (*get_attrs_fn)(unsigned n, int *attrs, void **data, unsigned long long ptr);

/* cuPointerGetAttributes once libcuda.so.1 is found loaded (then kept:
 * RTLD_NOLOAD takes a reference, so the library stays mapped). */
static get_attrs_fn get_attrs;
static pthread_mutex_t probe_mu = PTHREAD_MUTEX_INITIALIZER;
/* The loader's count of objects added when the driver was last looked for:
 * dlopen(RTLD_NOLOAD) of a library that is not loaded still searches the
 * library path (system calls, microseconds); dl_iterate_phdr's dlpi_adds
 * says in tens of nanoseconds whether anything was loaded since. */
static unsigned long long probed_adds = ~0ull;

static int loader_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    *(unsigned long long *)data = size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds
                                      ? (unsigned long long)info->dlpi_adds : 0;
    return 1;                                      /* the first object is enough */
}

static get_attrs_fn driver(void)
{
    get_attrs_fn f = __atomic_load_n(&get_attrs, __ATOMIC_ACQUIRE);
    unsigned long long adds = 0;
    void *h;
    if (f != NULL) return f;
    dl_iterate_phdr(loader_adds, &adds);
    if (adds != 0 && adds == __atomic_load_n(&probed_adds, __ATOMIC_RELAXED)) return NULL;
    pthread_mutex_lock(&probe_mu);
    f = get_attrs;
    if (f == NULL && (h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) != NULL) {
        f = (get_attrs_fn)(uintptr_t)dlsym(h, "cuPointerGetAttributes");
        if (f == NULL) dlclose(h);
        else __atomic_store_n(&get_attrs, f, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&probed_adds, adds, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&probe_mu);
    return f;
}

static wr_mem_kind light_locate(const void *p)
{
    get_attrs_fn f;
    int attrs[2] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED };
    unsigned type = 0, managed = 0;
    void *data[2] = { &type, &managed };
    if (p == NULL || (f = driver()) == NULL) return WR_MEM_HOST;
    if (f(2, attrs, data, (unsigned long long)(uintptr_t)p) != 0) return WR_MEM_HOST;
    if (managed) return WR_MEM_MANAGED;
    if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED) return WR_MEM_DEVICE;
    return type == CU_MEMORYTYPE_HOST ? WR_MEM_HOST_PINNED : WR_MEM_HOST;
}

wr_mem_kind wri_locate(const wr_context *ctx, const void *p)
{
    if (ctx->dev.ops != NULL) return ctx->dev.ops->locate(ctx->dev.state, p);
    return light_locate(p);
}

/*
 * fake_libcuda.c -- a stand-in for the CUDA driver (built with the soname
 * libcuda.so.1) with the one entry point libwarpred's light locator uses,
 * cuPointerGetAttributes.  It answers "device memory" for the address
 * range in WR_FAKE_CUDA_DEVICE and "managed memory" for WR_FAKE_CUDA_MANAGED
 * ("ADDRESS:BYTES", hex and decimal), read at each call; everything else
 * is unknown to it, as host memory is to the real driver.  Only
 * tests/light_locator loads it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static int in_env_range(const char *name, unsigned long long p)
{
    const char *v = getenv(name);
    uintmax_t a, n;
    return v != NULL && sscanf(v, "%jx:%ju", &a, &n) == 2 && p >= a && p < a + n;
}

/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) and _IS_MANAGED (8); CUDA_SUCCESS. */
__attribute__((visibility("default"))) int cuPointerGetAttributes(unsigned n, int *attrs, void **data,
                                                                  unsigned long long ptr)
{
    const int dev = in_env_range("WR_FAKE_CUDA_DEVICE", ptr), man = in_env_range("WR_FAKE_CUDA_MANAGED", ptr);
    unsigned i;
    for (i = 0; i < n; i++) {
        if (attrs[i] == 2) *(unsigned *)data[i] = dev ? 2u : man ? 2u : 0u;
        else if (attrs[i] == 8) *(unsigned *)data[i] = man ? 1u : 0u;
    }
    return 0;
}

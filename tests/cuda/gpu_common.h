/*
 * gpu_common.h -- what the GPU tests share: finding a device, buffers in each
 * residency, sizes bounded by WR_TEST_MAX_N, a seeded generator and
 * NaN-aware bit comparison.
 */
#ifndef WR_GPU_COMMON_H
#define WR_GPU_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "warpred.h"

/* A CUDA runtime call in a test: bail out (TAP "Bail out!") if it fails. */
#define GPU_CK(call)                                                                \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) bail("%s:%d: %s: %s", __FILE__, __LINE__, #call,     \
                                    cudaGetErrorString(e_));                         \
    } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* Where a test buffer lives. */
enum res { RES_DEVICE, RES_PINNED, RES_PAGEABLE, RES_MANAGED, RES_COUNT };
extern const char *const res_name[RES_COUNT];

/* Skip the whole test (TAP "1..0 # SKIP") unless a CUDA device is usable; with
 * WR_TEST_REQUIRE_GPU=1 in the environment, bail out instead. */
void gpu_require(void);

/* Largest element count a test may use: WR_TEST_MAX_N if set, else dflt. */
size_t test_max_n(size_t dflt);
/* Whether the full case lists run (WR_TEST_LARGE=1); by default a program
 * takes seconds, and less than a minute under compute-sanitizer. */
int test_large(void);
/* Seconds since gpu_require() found a device.  A program that got past
 * gpu_require() prints "# elapsed N s" when it exits. */
double test_elapsed(void);

/* A buffer of bytes in residency r (abort()s on failure: tests only). */
void *res_alloc(enum res r, size_t bytes);
void res_free(enum res r, void *p);
/* Copy between host memory and a buffer of residency r. */
void res_put(enum res r, void *dst, const void *src, size_t bytes);
void res_get(enum res r, void *dst, const void *src, size_t bytes);
/* Fill a buffer of residency r with the byte b (poison before a call). */
void res_poison(enum res r, void *p, size_t bytes, int b);

/* Device memory free / total, in bytes. */
void gpu_mem(size_t *free_b, size_t *total_b);

/* splitmix64: the tests' only random source, seeded per case. */
uint64_t rng_next(uint64_t *s);

/* 1 if elements a and b of type t have the same bits, or are both NaN. */
int same_elem(wr_type t, const void *a, const void *b);
/* Print element i of a buffer of type t as text into buf. */
const char *elem_str(wr_type t, const void *p, size_t i, char *buf, size_t len);

extern const char *const type_name[6];
extern const char *const op_name[7];

#ifdef __cplusplus
}
#endif

#endif

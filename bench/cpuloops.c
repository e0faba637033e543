/*
 * cpuloops.c -- the plain OpenMP loops the cpu backend is compared with
 * (the CPU performance targets of doc/PERFORMANCE.md), measured by warpred-bench in the same run:
 *
 *  - sum:  `#pragma omp parallel for simd reduction(+:s)`, what a user would
 *          write by hand (a per-thread/per-lane sequential accumulator: fast,
 *          but without the accuracy bound the library promises for floats);
 *  - copy: a parallel memcpy, one contiguous chunk per thread (one thread
 *          below 1 MiB), the memory ceiling of the cpu rows;
 *  - scan: the OpenMP 5.0 `scan` directive (`reduction(inscan, +:s)`), the
 *          textbook parallel prefix sum.
 *
 * Integer sums run in the unsigned type of the same width: the same bits as
 * the signed wrap-around, without signed-overflow undefined behaviour.
 */
#include <config.h>
#include <string.h>
#include "bench.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* clang 14 cannot vectorise the outlined `parallel for simd` reduction and
 * warns that it ignored the simd request; the loop is the reference GCC
 * builds, so the warning says nothing about our code. */
#ifdef __clang__
#  pragma clang diagnostic ignored "-Wpass-failed"
#endif

#ifdef _OPENMP
#  define OMP(x) _Pragma(#x)
/* GCC implements `omp scan` since GCC 10 while still defining _OPENMP as
 * 201511; clang since 11. */
#  if _OPENMP >= 201811 || (defined(__clang__) && __clang_major__ >= 11) \
      || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 10)
#    define HAVE_OMP_SCAN 1
#  endif
#else
#  define OMP(x)
#endif

int bench_omp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

const char *bench_loop_scan_name(void)
{
#ifdef HAVE_OMP_SCAN
    return "omp scan";
#else
    return "serial scan";
#endif
}

/* X(sfx, element type, accumulator type, enum) */
#define LOOP_TYPES(X)                                                          \
    X(i32, int32_t, uint32_t, WR_INT32) X(i64, int64_t, uint64_t, WR_INT64)    \
    X(u32, uint32_t, uint32_t, WR_UINT32) X(u64, uint64_t, uint64_t, WR_UINT64) \
    X(f32, float, float, WR_FLOAT) X(f64, double, double, WR_DOUBLE)

#define DEF_SUM(sfx, T, A, E)                                                    \
    static void sum_##sfx(const T *x, long long n, T *out)                     \
    {                                                                          \
        A s = 0;                                                               \
        long long i;                                                           \
        OMP(omp parallel for simd reduction(+:s) schedule(static))             \
        for (i = 0; i < n; i++) s += (A)x[i];                                  \
        *out = (T)s;                                                           \
    }
LOOP_TYPES(DEF_SUM)

#ifdef HAVE_OMP_SCAN
#  define DEF_SCAN(sfx, T, A, E)                                                 \
    static void scan_##sfx(const T *x, T *y, long long n, int exclusive)       \
    {                                                                          \
        A s = 0;                                                               \
        long long i;                                                           \
        if (!exclusive) {                                                      \
            OMP(omp parallel for reduction(inscan, +:s))                       \
            for (i = 0; i < n; i++) {                                          \
                s += (A)x[i];                                                  \
                OMP(omp scan inclusive(s))                                     \
                y[i] = (T)s;                                                   \
            }                                                                  \
        } else {                                                               \
            OMP(omp parallel for reduction(inscan, +:s))                       \
            for (i = 0; i < n; i++) {                                          \
                y[i] = (T)s;                                                   \
                OMP(omp scan exclusive(s))                                     \
                s += (A)x[i];                                                  \
            }                                                                  \
        }                                                                      \
    }
#else
#  define DEF_SCAN(sfx, T, A, E)                                                 \
    static void scan_##sfx(const T *x, T *y, long long n, int exclusive)       \
    {                                                                          \
        A s = 0;                                                               \
        long long i;                                                           \
        for (i = 0; i < n; i++) {                                              \
            A v = (A)x[i];                                                     \
            if (exclusive) { y[i] = (T)s; s += v; } else { s += v; y[i] = (T)s; } \
        }                                                                      \
    }
#endif
LOOP_TYPES(DEF_SCAN)

int bench_loop_sum(wr_type t, const void *in, size_t n, void *out)
{
    switch (t) {
#define CASE_SUM(sfx, T, A, E) case E: sum_##sfx((const T *)in, (long long)n, (T *)out); return 0;
    LOOP_TYPES(CASE_SUM)
    }
    return -1;
}

int bench_loop_scan(wr_type t, const void *in, void *out, size_t n, int exclusive)
{
    switch (t) {
#define CASE_SCAN(sfx, T, A, E)                                                \
    case E: scan_##sfx((const T *)in, (T *)out, (long long)n, exclusive); return 0;
    LOOP_TYPES(CASE_SCAN)
    }
    return -1;
}

/* Below 1 MiB one thread copies: waking a team costs more than it brings
 * there, and the ceiling should be the best copy, not a slow one. */
void bench_loop_copy(void *dst, const void *src, size_t bytes)
{
#ifdef _OPENMP
    OMP(omp parallel if (bytes >= ((size_t)1 << 20)))
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t chunk = ((bytes + nt - 1) / nt + 63) & ~(size_t)63;
        size_t b = t * chunk;
        if (b < bytes)
            memcpy((char *)dst + b, (const char *)src + b, bytes - b < chunk ? bytes - b : chunk);
    }
#else
    memcpy(dst, src, bytes);
#endif
}

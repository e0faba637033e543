/* util.c -- names, input data, byte counts and host timing for warpred-bench. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"

const char *bench_func_name(enum bench_func f)
{
    static const char *const names[BF_NFUNCS] = {
        "reduce", "scan", "exscan", "reduce_rows", "reduce_segments", "argmin", "argmax", "scan_segments",
        "exscan_segments"
    };
    return (unsigned)f < BF_NFUNCS ? names[f] : "?";
}

const char *bench_type_name(wr_type t)
{
    static const char *const names[] = { "i32", "i64", "u32", "u64", "f32", "f64" };
    return (unsigned)t <= (unsigned)WR_DOUBLE ? names[t] : "?";
}

const char *bench_op_name(wr_op op)
{
    static const char *const names[] = { "sum", "prod", "min", "max", "band", "bor", "bxor" };
    return (unsigned)op <= (unsigned)WR_BXOR ? names[op] : "?";
}

enum bench_data bench_data_for(enum bench_func f, wr_op op)
{
    return (f != BF_ARGMIN && f != BF_ARGMAX && op == WR_PROD) ? DATA_PROD : DATA_GENERAL;
}

/* splitmix64 of (seed, index): a counter-based generator, so the fill is
 * parallel and the data do not depend on the thread count. */
static uint64_t mix(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Integers: all bits random (sums wrap, which is defined and exact); odd for
 * PROD so that a wrapping product never collapses to 0.  Floats: uniform in
 * [0,1); for PROD uniform in 1 +- 2^-10, so that a product of 2^28 of them
 * stays within a few powers of e of 1 (a random walk of log(x)). */
#ifdef _OPENMP
#  define OMP_FOR _Pragma("omp parallel for schedule(static)")
#else
#  define OMP_FOR
#endif
/* One parallel loop per element type; h is the element's random word. */
#define FILL_LOOP(T, EXPR)                                                     \
    do {                                                                       \
        T *p = (T *)buf;                                                       \
        OMP_FOR                                                                \
        for (i = 0; i < nn; i++) {                                             \
            uint64_t h = mix(seed, (uint64_t)i);                               \
            p[i] = (EXPR);                                                     \
        }                                                                      \
    } while (0)

void bench_fill(void *buf, wr_type t, size_t n, enum bench_data kind, uint64_t seed)
{
    long long i, nn = (long long)n;
    int prod = kind == DATA_PROD;
    switch (t) {
    case WR_INT32: case WR_UINT32:
        FILL_LOOP(uint32_t, (uint32_t)(h >> 32) | (uint32_t)prod);
        break;
    case WR_INT64: case WR_UINT64:
        FILL_LOOP(uint64_t, h | (uint64_t)prod);
        break;
    case WR_FLOAT:
        FILL_LOOP(float, prod ? 1.0f + ((float)(h >> 40) * 0x1p-24f - 0.5f) * 0x1p-9f
                              : (float)(h >> 40) * 0x1p-24f);
        break;
    case WR_DOUBLE:
        FILL_LOOP(double, prod ? 1.0 + ((double)(h >> 11) * 0x1p-53 - 0.5) * 0x1p-9
                               : (double)(h >> 11) * 0x1p-53);
        break;
    }
}

/* Poison with all-ones bytes: a NaN for floats, -1 / max for integers. */
void bench_poison(void *buf, size_t bytes)
{
    memset(buf, 0xff, bytes);
}

size_t bench_out_count(const struct bench_cell *c)
{
    switch (c->func) {
    case BF_SCAN: case BF_EXSCAN: case BF_SEGSCAN: case BF_SEGEXSCAN: return c->n;
    case BF_ROWS:     return c->rows;
    case BF_SEGMENTS: return c->nseg;
    case BF_REDUCE:   return 1;
    default:          return 0;
    }
}

double bench_cell_bytes(const struct bench_cell *c)
{
    double s = (double)wr_type_size(c->type);
    switch (c->func) {
    case BF_REDUCE:   return s * (double)c->n + s;
    case BF_SCAN:
    case BF_EXSCAN:   return 2.0 * s * (double)c->n;
    /* (segmented scans: the input read once, the output written once; the
     * offsets, 8 bytes a segment, not counted) */
    case BF_SEGSCAN:
    case BF_SEGEXSCAN: return 2.0 * s * (double)c->n;
    case BF_ROWS:     return s * (double)c->rows * (double)c->cols + s * (double)c->rows;
    case BF_SEGMENTS: return s * (double)c->n + s * (double)c->nseg
                             + (double)sizeof(size_t) * (double)(c->nseg + 1);
    case BF_ARGMIN:
    case BF_ARGMAX:   return s * (double)c->n + s + (double)sizeof(size_t);
    default:          return 0;
    }
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_time_host(bench_call f, void *arg, int warmup, int reps, struct bench_timing *t, char *err)
{
    double *v;
    int i;
    memset(t, 0, sizeof *t);
    for (i = 0; i < warmup; i++)
        if (f(arg, err) != 0) return -1;
    v = (double *)malloc(sizeof *v * (size_t)(reps > 0 ? reps : 1));
    if (v == NULL) { strcpy(err, "out of memory"); return -1; }
    for (i = 0; i < reps; i++) {
        double t0 = bench_now();
        if (f(arg, err) != 0) { free(v); return -1; }
        v[i] = bench_now() - t0;
    }
    t->reps = reps;
    t->med = bench_median(v, reps);
    t->min = reps > 0 ? v[0] : 0;
    free(v);
    return 0;
}

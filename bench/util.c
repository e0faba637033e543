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
        "reduce", "scan", "exscan", "reduce_rows", "reduce_segments", "argmin", "argmax"
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
void bench_fill(void *buf, wr_type t, size_t n, enum bench_data kind, uint64_t seed)
{
    long long i, nn = (long long)n;
    switch (t) {
    case WR_INT32: case WR_UINT32: {
        uint32_t *p = (uint32_t *)buf;
        uint32_t odd = kind == DATA_PROD ? 1u : 0u;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (i = 0; i < nn; i++) p[i] = (uint32_t)(mix(seed, (uint64_t)i) >> 32) | odd;
        break;
    }
    case WR_INT64: case WR_UINT64: {
        uint64_t *p = (uint64_t *)buf;
        uint64_t odd = kind == DATA_PROD ? 1u : 0u;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (i = 0; i < nn; i++) p[i] = mix(seed, (uint64_t)i) | odd;
        break;
    }
    case WR_FLOAT: {
        float *p = (float *)buf;
        int prod = kind == DATA_PROD;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (i = 0; i < nn; i++) {
            float u = (float)(mix(seed, (uint64_t)i) >> 40) * 0x1p-24f;
            p[i] = prod ? 1.0f + (u - 0.5f) * 0x1p-9f : u;
        }
        break;
    }
    case WR_DOUBLE: {
        double *p = (double *)buf;
        int prod = kind == DATA_PROD;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (i = 0; i < nn; i++) {
            double u = (double)(mix(seed, (uint64_t)i) >> 11) * 0x1p-53;
            p[i] = prod ? 1.0 + (u - 0.5) * 0x1p-9 : u;
        }
        break;
    }
    }
}

/* Poison with all-ones bytes: a NaN for floats, -1 / max for integers. */
void bench_poison(void *buf, size_t bytes)
{
    memset(buf, 0xff, bytes);
}

double bench_cell_bytes(const struct bench_cell *c)
{
    double s = (double)wr_type_size(c->type);
    switch (c->func) {
    case BF_REDUCE:   return s * (double)c->n + s;
    case BF_SCAN:
    case BF_EXSCAN:   return 2.0 * s * (double)c->n;
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

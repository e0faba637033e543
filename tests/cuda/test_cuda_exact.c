/*
 * test_cuda_exact.c -- reproducible float/double SUM on the CUDA backend:
 * every result must be the cpu backend's bits (which tests/exact checks
 * against an exact reference), for reduce, reduce_rows, reduce_segments and
 * wr_reduce_exact, with input and output in device, pinned, pageable and
 * managed memory.
 *
 * Host memory goes through a context with 64 KiB staging buffers, so that
 * even modest arrays are many chunks and the exact accumulator carried
 * from chunk to chunk (and segments cut by a chunk's end) is exercised;
 * device and managed memory through a default context.  Data: adversarial
 * cases among cancelling pairs, every exponent, random data of the issue's
 * sizes (2^26 capped by WR_TEST_MAX_N), rows of 1 to 70000 columns,
 * segments with empty and long ones and special values sprinkled in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

static wr_context *cpu, *gpu, *gpu_small;
static uint64_t seed = 12345;

static wr_context *gctx(enum res r) { return (r == RES_PINNED || r == RES_PAGEABLE) ? gpu_small : gpu; }
static size_t es(wr_type t) { return t == WR_FLOAT ? 4 : 8; }
static double unit(void) { return (double)(rng_next(&seed) >> 11) * 0x1p-53; }

static void put(void *buf, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
}

/* Failures per (function, residency), the first reason of each. */
enum fn { F_REDUCE, F_EXACT, F_ROWS, F_SEGS, F_NFN };
static const char *const fn_name[F_NFN] = { "wr_reduce", "wr_reduce_exact", "wr_reduce_rows",
                                            "wr_reduce_segments" };
static unsigned long fails[F_NFN][2][RES_COUNT], runs[F_NFN][2][RES_COUNT];
static char first[F_NFN][2][RES_COUNT][200];

static void note(enum fn f, wr_type t, enum res r, int good, const char *fmt, const char *what, size_t n)
{
    const int ti = t == WR_DOUBLE;
    runs[f][ti][r]++;
    if (good) return;
    if (fails[f][ti][r]++ == 0) snprintf(first[f][ti][r], sizeof first[f][ti][r], fmt, what, n);
}

/* reduce and wr_reduce_exact of x[0..n) (host) on every residency: the cpu's bits. */
static void check_reduce(const char *what, const void *x, size_t n, wr_type t)
{
    const size_t w = es(t);
    unsigned char want[8], got[8];
    int r;
    if (wr_reduce(cpu, x, want, n, t, WR_SUM) != WR_SUCCESS) bail("cpu reduce: %s", wr_context_error(cpu));
    for (r = 0; r < RES_COUNT; r++) {
        void *in = res_alloc((enum res)r, n * w), *out = res_alloc((enum res)r, w);
        wr_exact_sum s;
        wr_status st;
        res_put((enum res)r, in, x, n * w);
        res_poison((enum res)r, out, w, 0xA5);
        st = wr_reduce(gctx((enum res)r), in, out, n, t, WR_SUM);
        res_get((enum res)r, got, out, w);
        note(F_REDUCE, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, w) == 0, "%s, %zu elements", what, n);
        memset(got, 0xA5, sizeof got);
        st = wr_exact_sum_init(&s);
        if (st == WR_SUCCESS) st = wr_reduce_exact(gctx((enum res)r), in, n, t, &s);
        if (st == WR_SUCCESS) st = wr_exact_sum_round(&s, t, got);
        note(F_EXACT, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, w) == 0, "%s, %zu elements", what, n);
        res_free((enum res)r, in);
        res_free((enum res)r, out);
    }
}

static const double adversarial[][3] = {
    { 1e308, 1, -1e308 }, { 1, 0x1p-53, 0 }, { 1, 0x1p-53, 0x1p-52 }, { 1, 0x1p-53, 0x1p-1074 },
    { 1, 0x1p-53, -0x1p-1074 }, { 1.7976931348623157e308, 1.7976931348623157e308, 0 },
    { 1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308 },
    { 1.7976931348623157e308, 0x1p970, 0 }, { 0x1p-1074, 0x1.8p-1060, -0x1p-1073 }, { 1, INFINITY, -5 },
    { INFINITY, -INFINITY, 0 }, { 1, NAN, 2 }, { -0.0, -0.0, -0.0 }, { -0.0, 0.0, -0.0 }, { 1, -1, -0.0 },
    { 1, 0x1p-24, 0 }, { 1, 0x1p-24, 0x1p-149 }, { 0x1.fffffep127, 0x1p103, 0 }, { 3e38, 3e38, -3e38 },
};

static void run_adversarial(wr_type t)
{
    const size_t pairs = 40000, nc = sizeof adversarial / sizeof adversarial[0];
    double *x = malloc((3 + 2 * pairs) * 8);
    size_t c, i;
    if (x == NULL) bail("out of memory");
    for (c = 0; c < nc; c++) {
        char what[64];
        for (i = 0; i < 3; i++) put(x, t, i, adversarial[c][i]);
        snprintf(what, sizeof what, "adversarial case %zu", c);
        check_reduce(what, x, 3, t);
        for (i = 0; i < pairs; i++) {      /* among cancelling pairs, spread out */
            double v = ldexp(unit() + 0.5, (int)(rng_next(&seed) % 100) - 50);
            put(x, t, 3 + i, v);
            put(x, t, 3 + pairs + i, t == WR_FLOAT ? -(double)(float)v : -v);
        }
        for (i = 0; i < 3; i++) {           /* the case's elements at scattered places */
            size_t j = (size_t)(rng_next(&seed) % (3 + 2 * pairs));
            unsigned char a[8], b[8];
            memcpy(a, (char *)x + i * es(t), es(t));
            memcpy(b, (char *)x + j * es(t), es(t));
            memcpy((char *)x + i * es(t), b, es(t));
            memcpy((char *)x + j * es(t), a, es(t));
        }
        snprintf(what, sizeof what, "adversarial case %zu among pairs", c);
        check_reduce(what, x, 3 + 2 * pairs, t);
    }
    {   /* every exponent */
        const int lo = t == WR_FLOAT ? -149 : -1074, hi = t == WR_FLOAT ? 127 : 1023;
        int e;
        for (e = lo; e <= hi; e++) put(x, t, (size_t)(e - lo), (rng_next(&seed) & 1 ? -1 : 1) * ldexp(1 + unit(), e));
        check_reduce("every exponent", x, (size_t)(hi - lo + 1), t);
    }
    free(x);
}

static void run_random(wr_type t, size_t max_n)
{
    static const size_t sizes[] = { 0, 1, 2, 31, 4097, ((size_t)1 << 20) + 3, (size_t)1 << 26 };
    size_t si, i;
    int d;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        void *x;
        if (n > max_n) continue;
        x = malloc(n * es(t) + 8);
        if (x == NULL) bail("out of memory");
        for (d = 0; d < 3; d++) {
            char what[64];
            for (i = 0; i < n; i++) {
                double v = unit();
                if (d == 1) v = 2 * v - 1;
                if (d == 2) v = ldexp(2 * v - 1, (int)(rng_next(&seed) % 80) - 40);
                put(x, t, i, v);
            }
            snprintf(what, sizeof what, "random data (kind %d)", d);
            check_reduce(what, x, n, t);
        }
        free(x);
    }
}

/* rows x cols, and the same matrix as segments with host or device offsets;
 * plus segments of random lengths with special values. */
static void run_rows_segments(wr_type t, size_t rows, size_t cols, int random_segments)
{
    const size_t w = es(t);
    size_t nseg = rows, n, i, s;
    size_t *off;
    void *x, *want, *got;
    int r;
    off = malloc((nseg + 1) * sizeof *off);
    if (off == NULL) bail("out of memory");
    off[0] = 0;
    for (s = 0; s < nseg; s++) {
        size_t len = cols;
        if (random_segments) len = rng_next(&seed) % 4 == 0 ? 0 : (size_t)(rng_next(&seed) % (2 * cols + 1));
        off[s + 1] = off[s] + len;
    }
    n = off[nseg];
    x = malloc(n * w + 8);
    want = malloc(nseg * w + 8);
    got = malloc(nseg * w + 8);
    if (!x || !want || !got) bail("out of memory");
    for (i = 0; i < n; i++) put(x, t, i, ldexp(2 * unit() - 1, (int)(rng_next(&seed) % 60) - 30));
    if (random_segments)
        for (i = 0; i < n / 40; i++) {
            static const double special[] = { 1e30, -1e30, 0x1p-140, -0.0, INFINITY, 1e300, -1e300, 0x1p-1070 };
            put(x, t, (size_t)(rng_next(&seed) % n), special[rng_next(&seed) % 8]);
        }
    if ((random_segments ? wr_reduce_segments(cpu, x, want, nseg, off, t, WR_SUM)
                         : wr_reduce_rows(cpu, x, want, rows, cols, t, WR_SUM)) != WR_SUCCESS)
        bail("cpu rows/segments: %s", wr_context_error(cpu));
    for (r = 0; r < RES_COUNT; r++) {
        void *in = res_alloc((enum res)r, n * w), *out = res_alloc((enum res)r, nseg * w);
        size_t *doff = res_alloc((enum res)r, (nseg + 1) * sizeof *doff);
        char what[80];
        wr_status st;
        snprintf(what, sizeof what, "%zu x %zu%s", rows, cols, random_segments ? " random segments" : "");
        res_put((enum res)r, in, x, n * w);
        res_put((enum res)r, doff, off, (nseg + 1) * sizeof *off);
        if (!random_segments) {
            res_poison((enum res)r, out, nseg * w, 0xA5);
            st = wr_reduce_rows(gctx((enum res)r), in, out, rows, cols, t, WR_SUM);
            res_get((enum res)r, got, out, nseg * w);
            note(F_ROWS, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, nseg * w) == 0, "%s (%zu)", what, n);
        }
        res_poison((enum res)r, out, nseg * w, 0xA5);
        st = wr_reduce_segments(gctx((enum res)r), in, out, nseg, doff, t, WR_SUM);
        res_get((enum res)r, got, out, nseg * w);
        note(F_SEGS, t, (enum res)r, st == WR_SUCCESS && memcmp(got, want, nseg * w) == 0, "%s (%zu)", what, n);
        res_free((enum res)r, in);
        res_free((enum res)r, out);
        res_free((enum res)r, doff);
    }
    free(x);
    free(want);
    free(got);
    free(off);
}

int main(void)
{
    size_t max_n;
    int ti, f, r;
    gpu_require();
    max_n = test_max_n((size_t)1 << 26);
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS ||
        wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS)
        bail("contexts: %s", wr_context_error(NULL));
    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (wr_context_create(&gpu_small, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    if (wr_context_set_float_mode(cpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu_small, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS)
        bail("set_float_mode failed");
    plan(F_NFN * 2 * RES_COUNT);
    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        run_adversarial(t);
        run_random(t, max_n);
        run_rows_segments(t, 1000, 1, 0);
        run_rows_segments(t, 333, 7, 0);
        run_rows_segments(t, 2000, 32, 0);
        run_rows_segments(t, 1024, 1024, 0);
        run_rows_segments(t, 50, 5000, 0);
        run_rows_segments(t, 6, 70000, 0);
        if (max_n >= ((size_t)1 << 25)) run_rows_segments(t, 32768, 1024, 0);
        run_rows_segments(t, 3000, 300, 1);
        run_rows_segments(t, 40, 30000, 1);
    }
    for (f = 0; f < F_NFN; f++)
        for (ti = 0; ti < 2; ti++)
            for (r = 0; r < RES_COUNT; r++) {
                if (!ok(fails[f][ti][r] == 0 && runs[f][ti][r] > 0, "%s %s, %s memory: the cpu's bits (%lu cases)",
                        fn_name[f], ti ? "double" : "float", res_name[r], runs[f][ti][r]))
                    diag("%lu failed; first: %s", fails[f][ti][r], first[f][ti][r]);
            }
    wr_context_destroy(gpu_small);
    wr_context_destroy(gpu);
    wr_context_destroy(cpu);
    return 0;
}

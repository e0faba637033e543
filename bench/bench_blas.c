/*
 * bench_blas.c -- warpred-bench's rows for the dot products and norms
 * (--funcs dot,nrm2,asum,argmax_abs,dot_rows) on the cpu backend, fast and
 * reproducible in one run (--float-mode), beside OpenBLAS's cblas_?dot,
 * ?nrm2, ?asum and i?amax on the same buffers when configure found it
 * (threaded OpenBLAS: its default thread count).  dot_rows has no BLAS
 * counterpart and is timed alone.  Each cell: the median of --reps calls
 * after --warmup (monotonic wall clock), as GB/s of input read, and its ratio to the reference
 * (OpenBLAS, or for reproducible rows the fast call).
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#ifdef HAVE_OPENBLAS
#  include <cblas.h>
#endif
#include "warpred.h"
#include "bench_blas.h"
#include "bench.h"

static double now(void) { return bench_now(); }   /* monotonic wall clock */

static const char *const names[BB_NFUNCS] = { "dot", "nrm2", "asum", "argmax_abs", "dot_rows" };

unsigned bench_blas_parse(const char *list, char *rest, size_t restlen)
{
    unsigned m = 0;
    char buf[512], *tok, *save = NULL;
    size_t used = 0;
    snprintf(buf, sizeof buf, "%s", list);
    rest[0] = '\0';
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i, hit = 0;
        for (i = 0; i < BB_NFUNCS; i++)
            if (!strcmp(tok, names[i])) {
                m |= 1u << i;
                hit = 1;
            }
        if (!hit && used + strlen(tok) + 2 < restlen) used += (size_t)snprintf(rest + used, restlen - used, "%s%s",
                                                                               used ? "," : "", tok);
    }
    return m;
}

/* One call of function f on the buffers (cols: dot_rows's columns). */
static int run(wr_context *c, int f, wr_type t, const void *x, const void *y, void *out, size_t n, size_t cols)
{
    size_t idx;
    switch (f) {
    case BB_DOT: return wr_dot(c, x, y, out, n, t);
    case BB_NRM2: return wr_nrm2(c, x, out, n, t);
    case BB_ASUM: return wr_asum(c, x, out, n, t);
    case BB_IAMAX: return wr_argmax_abs(c, x, n, t, &idx, NULL);
    default: return wr_dot_rows(c, x, y, out, n / cols, cols, t);
    }
}

#ifdef HAVE_OPENBLAS
static volatile double sink;
static void blas(int f, wr_type t, const void *x, const void *y, size_t n)
{
    const int in = (int)n;
    if (t == WR_DOUBLE) {
        const double *a = x, *b = y;
        sink = f == BB_DOT ? cblas_ddot(in, a, 1, b, 1) : f == BB_NRM2 ? cblas_dnrm2(in, a, 1)
             : f == BB_ASUM ? cblas_dasum(in, a, 1) : (double)cblas_idamax(in, a, 1);
    } else {
        const float *a = x, *b = y;
        sink = f == BB_DOT ? cblas_sdot(in, a, 1, b, 1) : f == BB_NRM2 ? cblas_snrm2(in, a, 1)
             : f == BB_ASUM ? cblas_sasum(in, a, 1) : (double)cblas_isamax(in, a, 1);
    }
}
#endif

/* Median seconds of reps calls (wall clock): mode 0 fast, 1 reproducible,
 * 2 OpenBLAS. */
static double timeit(wr_context *c, int mode, int f, wr_type t, const void *x, const void *y, void *out, size_t n,
                     size_t cols, int reps, int warmup)
{
    double *v, med;
    int k;
    if (reps < 1) reps = 1;
    if ((v = malloc((size_t)reps * sizeof *v)) == NULL) return NAN;
    for (k = -warmup; k < reps; k++) {
        const double t0 = now();
        if (mode == 2) {
#ifdef HAVE_OPENBLAS
            blas(f, t, x, y, n);
#endif
        } else if (run(c, f, t, x, y, out, n, cols) != WR_SUCCESS) {
            fprintf(stderr, "warpred-bench: %s: %s\n", names[f], wr_context_error(c));
            free(v);
            return NAN;
        }
        if (k >= 0) v[k] = now() - t0;
    }
    med = bench_median(v, reps);
    free(v);
    return med;
}

void bench_blas(unsigned funcs, unsigned types, const size_t *sizes, int nsizes, const size_t *cols, int ncols,
                int fmodes, int refs, int reps, int warmup)
{
    wr_context *c = NULL;
    int ti, si, f;
    if (wr_context_create(&c, WR_BACKEND_CPU) != WR_SUCCESS) {
        fprintf(stderr, "warpred-bench: cpu context: %s\n", wr_context_error(NULL));
        return;
    }
    printf("# dot products and norms, cpu backend (%s)", wr_context_describe(c));
#ifdef HAVE_OPENBLAS
    printf("; reference: OpenBLAS %s, %d threads\n", openblas_get_config(), openblas_get_num_threads());
#else
    printf("; no reference (built without OpenBLAS)\n");
    refs = 0;
#endif
    printf("%-10s %-4s %12s %6s %-13s %10s %9s %8s\n", "func", "type", "n", "cols", "who", "ms", "GB/s", "ratio");
    for (ti = WR_FLOAT; ti <= WR_DOUBLE; ti++) {
        const wr_type t = (wr_type)ti;
        const size_t w = t == WR_DOUBLE ? 8 : 4;
        if (!(types >> ti & 1)) continue;
        for (si = 0; si < nsizes; si++) {
            const size_t n = sizes[si];
            char *x = malloc(n * w + 64), *y = malloc(n * w + 64), *out = malloc(n * w / 16 + 64);
            size_t i;
            if (x == NULL || y == NULL || out == NULL) {
                fprintf(stderr, "warpred-bench: no memory for %zu elements\n", n);
                free(x); free(y); free(out);
                continue;
            }
#pragma omp parallel for schedule(static)
            for (i = 0; i < n; i++) {       /* first touch by the threads that read it */
                const double a = (double)(i % 1021) / 1021 - 0.4, b = 1.0 / (double)(1 + i % 77);
                if (t == WR_DOUBLE) { ((double *)x)[i] = a; ((double *)y)[i] = b; }
                else { ((float *)x)[i] = (float)a; ((float *)y)[i] = (float)b; }
            }
            for (f = 0; f < BB_NFUNCS; f++) {
                const int nc = f == BB_DOTROWS ? ncols : 1;
                int ci;
                if (!(funcs >> f & 1)) continue;
                for (ci = 0; ci < nc; ci++) {
                    const size_t cl = f == BB_DOTROWS ? cols[ci] : 0, nn = cl ? n / cl * cl : n;
                    const double bytes = (double)nn * w * (f == BB_DOT || f == BB_DOTROWS ? 2 : 1);
                    double tfast = NAN, tref = NAN;
                    int m;
                    if (refs && f != BB_DOTROWS && n <= 0x7fffffff) {
                        tref = timeit(c, 2, f, t, x, y, out, nn, cl, reps, warmup);
                        printf("%-10s %-4s %12zu %6s %-13s %10.3f %9.2f %8s\n", names[f], t == WR_DOUBLE ? "f64" : "f32",
                               nn, "-", "openblas", tref * 1e3, bytes / tref / 1e9, "1.00");
                    }
                    for (m = 0; m < 2; m++) {
                        double tm;
                        char ratio[32];
                        if (!(fmodes >> m & 1) || (m == 1 && f == BB_IAMAX)) continue;
                        wr_context_set_float_mode(c, m ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
                        tm = timeit(c, m, f, t, x, y, out, nn, cl ? cl : 1, reps, warmup);
                        if (m == 0) tfast = tm;
                        /* fast: against OpenBLAS; reproducible: against the fast call */
                        if (m == 0 && !isnan(tref)) snprintf(ratio, sizeof ratio, "%.2f", tref / tm);
                        else if (m == 1 && !isnan(tfast)) snprintf(ratio, sizeof ratio, "%.2f", tfast / tm);
                        else snprintf(ratio, sizeof ratio, "-");
                        if (cl) printf("%-10s %-4s %12zu %6zu %-13s %10.3f %9.2f %8s\n", names[f],
                                       t == WR_DOUBLE ? "f64" : "f32", nn, cl, m ? "reproducible" : "fast", tm * 1e3,
                                       bytes / tm / 1e9, ratio);
                        else printf("%-10s %-4s %12zu %6s %-13s %10.3f %9.2f %8s\n", names[f],
                                    t == WR_DOUBLE ? "f64" : "f32", nn, "-", m ? "reproducible" : "fast", tm * 1e3,
                                    bytes / tm / 1e9, ratio);
                    }
                }
            }
            free(x);
            free(y);
            free(out);
        }
    }
    fflush(stdout);
    wr_context_destroy(c);
}

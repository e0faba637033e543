/*
 * dot_xval.c -- cross-validation of the dot products and norms of every
 * device backend this build can load (cuda, omptarget) against the cpu
 * backend, on host buffers.
 *
 * For each backend that opens here (a context of its kind is created; one
 * that is missing, refused or finds no device is skipped with its reason),
 * and each operation it provides (a call answered WR_ERR_UNSUPPORTED skips
 * that operation, with a diagnostic): reproducible results must have the
 * cpu's bits (both are the exact value rounded once); fast results must be
 * within warpred.h's bound of that exact value; argmax_abs must pick the
 * cpu's index and value.  WR_XVAL_BACKENDS=cuda,omptarget narrows the
 * list (and WR_XVAL_BACKENDS=cpu checks the harness, cpu against cpu).  With no backend to compare, the program skips as a whole.
 */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static tu_rng rng;

struct be {
    wr_backend b;
    const char *name;
};
/* (cpu against itself only when WR_XVAL_BACKENDS names it: the harness's own check) */
static const struct be backends[] = { { WR_BACKEND_CUDA, "cuda" }, { WR_BACKEND_OPENMP_TARGET, "omptarget" },
                                      { WR_BACKEND_CPU, "cpu" } };

enum fn { F_DOT, F_ASUM, F_NRM2, F_ROWS, F_IAMAX, NFN };
static const char *const fn_name[] = { "wr_dot", "wr_asum", "wr_nrm2", "wr_dot_rows", "wr_argmax_abs" };

static double getd(const void *x, wr_type t, size_t i)
{
    if (t == WR_FLOAT) return ((const float *)x)[i];
    return ((const double *)x)[i];
}

static void setd(void *x, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)x)[i] = (float)v;
    else ((double *)x)[i] = v;
}

static double lbound(size_t n)
{
    double l = 1024;
    size_t m = 1;
    while (m < n) {
        m *= 2;
        l += 1;
    }
    return l;
}

/* One call of f (rows: rows x cols with out[rows]; iamax: index in *idx). */
static wr_status call(wr_context *c, enum fn f, const void *x, const void *y, void *out, size_t n, size_t cols,
                      wr_type t, size_t *idx)
{
    switch (f) {
    case F_DOT: return wr_dot(c, x, y, out, n, t);
    case F_ASUM: return wr_asum(c, x, out, n, t);
    case F_NRM2: return wr_nrm2(c, x, out, n, t);
    case F_ROWS: return wr_dot_rows(c, x, y, out, n / cols, cols, t);
    default: return wr_argmax_abs(c, x, n, t, idx, out);
    }
}

/* Fast result r (one element) against the exact rounded e: within the bound. */
static int within(enum fn f, const void *x, const void *y, size_t lo, size_t n, wr_type t, double r, double e)
{
    const double u = t == WR_FLOAT ? 0x1p-24 : 0x1p-53, L = lbound(n), eta = t == WR_FLOAT ? 0x1p-150 : 0x1p-1074;
    long double ab = 0;
    size_t i;
    if (isnan(e) || isinf(e)) return isnan(e) ? isnan(r) : r == e || fabs(r) > (t == WR_FLOAT ? FLT_MAX : DBL_MAX) / 2;
    for (i = lo; i < lo + n; i++)
        ab += f == F_NRM2 ? 0 : f == F_ASUM ? fabsl((long double)getd(x, t, i))
                                             : fabsl((long double)getd(x, t, i) * getd(y, t, i));
    /* the exact value is within half an ulp of e: add that */
    if (f == F_NRM2) return fabs(r - e) <= ((L / 2 + 2) * u + u) * e + eta;
    if (f == F_ASUM) return fabs(r - e) <= (L + 1) * u * e + eta;
    return fabsl((long double)r - e) <= (L + 1) * u * ab + u * fabs(e) + n * eta;
}

static void run_backend(const struct be *be)
{
    static const size_t sizes[] = { 0, 1, 7, 33, 4097, 65536, 1000003 };
    wr_context *cpu[2], *dev[2];
    int m, skip[NFN] = { 0 };
    wr_type t;
    if (wr_context_create(&dev[0], be->b) != WR_SUCCESS) {
        diag("%s: no backend here: %s", be->name, wr_context_error(NULL));
        skip_block(2 * NFN, "%s backend not available", be->name);
        return;
    }
    if (wr_context_create(&dev[1], be->b) != WR_SUCCESS) bail("a second %s context", be->name);
    cpu[0] = tu_context(WR_BACKEND_CPU);
    cpu[1] = tu_context(WR_BACKEND_CPU);
    for (m = 0; m < 2; m++) {
        wr_context_set_float_mode(cpu[m], m ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
        wr_context_set_float_mode(dev[m], m ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
    }
    for (t = WR_FLOAT; t <= WR_DOUBLE; t++) {
        enum fn f;
        for (f = F_DOT; f < NFN; f++) {
            tu_tally tl;
            size_t si;
            tu_tally_init(&tl);
            for (si = 0; si < sizeof sizes / sizeof sizes[0] && !skip[f]; si++) {
                const size_t n = sizes[si], w = tu_size(t), cols = n > 64 ? 64 : 1, nout = f == F_ROWS ? n / cols : 1;
                void *x = tu_xmalloc(n * w + 8), *y = tu_xmalloc(n * w + 8);
                unsigned char *a = tu_xmalloc(nout * w + 8), *b = tu_xmalloc(nout * w + 8), *e = tu_xmalloc(nout * w + 8);
                size_t i, ia = 0, ib = 0, r;
                int d;
                for (d = 0; d < 3 && !skip[f]; d++) {
                    for (i = 0; i < n; i++) {
                        const double s = tu_below(&rng, 2) ? -1 : 1;
                        setd(x, t, i, d == 0 ? s * tu_unit(&rng)
                                    : d == 1 ? s * ldexp(0.5 + tu_unit(&rng), (int)tu_below(&rng, 60) - 30)
                                             : (i % 1000 == 7 ? (t == WR_DOUBLE ? 1e300 : 1e30) : tu_unit(&rng)));
                        setd(y, t, i, tu_unit(&rng) - 0.25);
                    }
                    if (f == F_IAMAX && n == 0) continue;
                    for (m = 0; m < 2; m++) {
                        wr_status sa = call(cpu[m], f, x, y, a, n, cols, t, &ia);
                        wr_status sb = call(dev[m], f, x, y, b, n, cols, t, &ib);
                        /* a plugin older than its dot products (an installed one)
                         * refuses them; the cuda backend has every one: refusing
                         * one fails */
                        if (sb == WR_ERR_UNSUPPORTED && be->b != WR_BACKEND_CUDA) {
                            diag("%s: %s: %s", be->name, fn_name[f], wr_context_error(dev[m]));
                            skip[f] = 1;
                            break;
                        }
                        tu_expect(&tl, sa == WR_SUCCESS && sb == WR_SUCCESS, "%s %s n=%zu: cpu %s, %s %s", fn_name[f],
                                  tu_type_name(t), n, wr_status_string(sa), be->name, wr_context_error(dev[m]));
                        if (f == F_IAMAX) {
                            tu_expect(&tl, ia == ib && memcmp(a, b, w) == 0, "%s %s n=%zu: index %zu, cpu %zu",
                                      fn_name[f], tu_type_name(t), n, ib, ia);
                        } else if (m == 1) {
                            memcpy(e, a, nout * w);
                            tu_expect(&tl, memcmp(a, b, nout * w) == 0, "%s %s n=%zu data %d reproducible: not the cpu's bits",
                                      fn_name[f], tu_type_name(t), n, d);
                        }
                    }
                    if (f == F_IAMAX || skip[f]) continue;
                    /* the fast results against the exact ones (the cpu's reproducible) */
                    {
                        const wr_status sf = call(dev[0], f, x, y, b, n, cols, t, &ib);
                        tu_expect(&tl, sf == WR_SUCCESS, "%s %s n=%zu fast: %s", fn_name[f], tu_type_name(t), n,
                                  wr_context_error(dev[0]));
                        if (sf != WR_SUCCESS) continue;
                    }
                    for (r = 0; r < nout; r++) {
                        const size_t lo = f == F_ROWS ? r * cols : 0, len = f == F_ROWS ? cols : n;
                        tu_expect(&tl, within(f == F_ROWS ? F_DOT : f, x, y, lo, len, t, getd(b, t, r), getd(e, t, r)),
                                  "%s %s n=%zu data %d fast: %.17g, exact %.17g", fn_name[f], tu_type_name(t), n, d,
                                  getd(b, t, r), getd(e, t, r));
                    }
                }
                free(x);
                free(y);
                free(a);
                free(b);
                free(e);
            }
            if (skip[f]) skip_block(1, "%s lacks %s", be->name, fn_name[f]);
            else tu_report(&tl, "%s %s %s against the cpu: reproducible bits, fast bound", be->name, fn_name[f],
                           tu_type_name(t));
        }
    }
    wr_context_destroy(cpu[0]);
    wr_context_destroy(cpu[1]);
    wr_context_destroy(dev[0]);
    wr_context_destroy(dev[1]);
}

int main(void)
{
    const char *only = getenv("WR_XVAL_BACKENDS");
    int any = 0;
    size_t k;
    unsetenv("WARPRED_FLOAT_MODE");
    unsetenv("WARPRED_BACKEND");
    tu_rng_seed(&rng, tu_seed());
    for (k = 0; k < sizeof backends / sizeof backends[0]; k++) {
        wr_context *c;
        if (only ? !strstr(only, backends[k].name) : backends[k].b == WR_BACKEND_CPU) continue;
        if (wr_context_create(&c, backends[k].b) == WR_SUCCESS) {
            any = 1;
            wr_context_destroy(c);
        }
    }
    if (!any) skip_all("no cuda or omptarget backend to compare with the cpu");
    plan_lazy();
    for (k = 0; k < sizeof backends / sizeof backends[0]; k++)
        if (only ? strstr(only, backends[k].name) != NULL : backends[k].b != WR_BACKEND_CPU) run_backend(&backends[k]);
    return 0;
}

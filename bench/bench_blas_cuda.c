/*
 * bench_blas_cuda.c -- warpred-bench's rows for the dot products and norms
 * (--funcs dot,nrm2,asum,argmax_abs,dot_rows) on the cuda backend: the
 * library's calls on device arrays, fast and reproducible (--float-mode),
 * beside cuBLAS (cublas_ref.cu: cublas<S|D>dot, nrm2, asum, I<s|d>amax in
 * CUBLAS_POINTER_MODE_DEVICE, on the same buffers) and a device-to-device
 * copy of the same bytes read, as bench_blas.c sets the cpu's beside
 * OpenBLAS.  Every time is bcu_time's (events around the call, until its
 * result is complete), the median of --reps after --warmup.
 *
 * Columns: ms; GB/s of input read (dot and dot_rows read two arrays); the
 * ratio to the reference (cuBLAS for fast rows, the fast call for
 * reproducible ones; above 1: ours is faster); "copy": our bytes/s over
 * the copy's (a copy moves each byte twice: it reads n and writes n, and
 * its bytes/s counts both).  A check column compares every result with
 * cuBLAS's (fast: 1e-5 relative for double, 2e-3 for float; argmax_abs:
 * the same index) and the reproducible ones with the fast ones.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "warpred.h"
#include "bench.h"
#include "bench_blas.h"

static const char *const names[BB_NFUNCS] = { "dot", "nrm2", "asum", "argmax_abs", "dot_rows" };

struct call {
    wr_context *ctx;
    int f;
    wr_type t;
    const void *x, *y;
    void *out;             /* device */
    size_t *idx;           /* device */
    size_t n, cols;
};

static int our(void *arg, char *err)
{
    const struct call *a = (const struct call *)arg;
    wr_status st;
    switch (a->f) {
    case BB_DOT: st = wr_dot(a->ctx, a->x, a->y, a->out, a->n, a->t); break;
    case BB_NRM2: st = wr_nrm2(a->ctx, a->x, a->out, a->n, a->t); break;
    case BB_ASUM: st = wr_asum(a->ctx, a->x, a->out, a->n, a->t); break;
    case BB_IAMAX: st = wr_argmax_abs(a->ctx, a->x, a->n, a->t, a->idx, a->out); break;
    default: st = wr_dot_rows(a->ctx, a->x, a->y, a->out, a->n / a->cols, a->cols, a->t); break;
    }
    if (st == WR_SUCCESS) return 0;
    snprintf(err, WR_BENCH_ERRLEN, "%s: %s", names[a->f], wr_context_error(a->ctx));
    return -1;
}

static double value(const void *p, wr_type t) { return t == WR_DOUBLE ? *(const double *)p : *(const float *)p; }

static int close_to(double a, double b, wr_type t)
{
    const double tol = t == WR_DOUBLE ? 1e-5 : 2e-3;
    return fabs(a - b) <= tol * (fabs(b) > 1e-300 ? fabs(b) : 1);
}

int bench_blas_cuda(wr_context *ctx, unsigned funcs, unsigned types, const size_t *sizes, int nsizes,
                    const size_t *cols, int ncols, int fmodes, int refs, int reps, int warmup)
{
    char err[WR_BENCH_ERRLEN] = "", why[160] = "";
    const int have_cb = refs && bcu_cublas_available(why, sizeof why) == 0;
    int ti, si, f, failures = 0;
    if (ctx == NULL) {
        printf("# dot products and norms, cuda backend: no cuda context\n");
        return 0;
    }
    printf("# dot products and norms, cuda backend (%s); reference: %s\n", wr_context_describe(ctx),
           have_cb ? "cuBLAS (pointer mode device)" : refs ? why : "none (--no-ref)");
    printf("%-10s %-4s %12s %6s %-13s %10s %9s %8s %6s  %s\n", "func", "type", "n", "cols", "who", "ms", "GB/s",
           "ratio", "copy", "check");
    for (ti = WR_FLOAT; ti <= WR_DOUBLE; ti++) {
        const wr_type t = (wr_type)ti;
        const size_t w = t == WR_DOUBLE ? 8 : 4;
        if (!(types >> ti & 1)) continue;
        for (si = 0; si < nsizes; si++) {
            const size_t n = sizes[si];
            void *hx = malloc(n * w + 64), *hy = malloc(n * w + 64);
            void *x = bcu_dev_alloc(n * w + 64, err), *y = x ? bcu_dev_alloc(n * w + 64, err) : NULL;
            void *tmp = y ? bcu_dev_alloc(n * w + 64, err) : NULL;
            void *out = tmp ? bcu_dev_alloc(n * w + 256, err) : NULL;   /* (dot_rows: up to n rows) */
            void *cbo = out ? bcu_dev_alloc(64, err) : NULL;
            double tcopy = NAN;
            size_t i;
            if (!hx || !hy || !cbo) {
                printf("# %s n=%zu: no memory (%s)\n", t == WR_DOUBLE ? "f64" : "f32", n, err);
                goto next;
            }
            for (i = 0; i < n; i++) {
                const double a = (double)(i % 1021) / 1021 - 0.4, b = 1.0 / (double)(1 + i % 77);
                if (t == WR_DOUBLE) { ((double *)hx)[i] = a; ((double *)hy)[i] = b; }
                else { ((float *)hx)[i] = (float)a; ((float *)hy)[i] = (float)b; }
            }
            if (bcu_h2d(x, hx, n * w, err) || bcu_h2d(y, hy, n * w, err)) {
                printf("# copy to the device: %s\n", err);
                goto next;
            }
            {
                struct bcu_copy cp = { tmp, x, n * w };
                struct bench_timing tc;
                if (bcu_time(bcu_copy_d2d, &cp, warmup, reps, &tc, err) == 0) tcopy = tc.med;
            }
            for (f = 0; f < BB_NFUNCS; f++) {
                const int nc = f == BB_DOTROWS ? ncols : 1;
                int ci;
                if (!(funcs >> f & 1)) continue;
                for (ci = 0; ci < nc; ci++) {
                    const size_t cl = f == BB_DOTROWS ? cols[ci] : 0, nn = cl ? n / cl * cl : n;
                    const int two = f == BB_DOT || f == BB_DOTROWS;
                    const double bytes = (double)nn * (double)w * (two ? 2 : 1);
                    /* the copy's bytes/s, counting what it reads and writes */
                    const double copy_bps = isnan(tcopy) ? NAN : 2.0 * (double)(n * w) / tcopy;
                    double tref = NAN, tfast = NAN, vref = NAN, vfast = NAN;
                    int iref = -1;
                    size_t ifast = 0;
                    struct bench_timing tt;
                    int m;
                    if (cl && nn == 0) continue;
                    if (have_cb && f != BB_DOTROWS && nn <= 0x7fffffff) {
                        static const enum bcu_blas which[] = { BCU_DOT, BCU_NRM2, BCU_ASUM, BCU_IAMAX };
                        struct bcu_blas_call cb = { which[f], t, nn, x, y, cbo, NULL };
                        unsigned char r[8];
                        if (bcu_time(bcu_cublas_run, &cb, warmup, reps, &tt, err) == 0 && bcu_d2h(r, cbo, 8, err) == 0) {
                            tref = tt.med;
                            if (f == BB_IAMAX) memcpy(&iref, r, sizeof iref);
                            else vref = value(r, t);
                            printf("%-10s %-4s %12zu %6s %-13s %10.3f %9.1f %8s %6.3f\n", names[f],
                                   t == WR_DOUBLE ? "f64" : "f32", nn, "-", "cublas", tref * 1e3, bytes / tref / 1e9,
                                   "1.00", bytes / tref / copy_bps);
                        } else {
                            printf("%-10s %-4s %12zu %6s %-13s ERROR %s\n", names[f], t == WR_DOUBLE ? "f64" : "f32",
                                   nn, "-", "cublas", err);
                            failures++;
                        }
                    }
                    for (m = 0; m < 2; m++) {
                        struct call a = { ctx, f, t, x, y, out, (size_t *)cbo + 4, nn, cl ? cl : 1 };
                        char ratio[32], check[120] = "ok", cs[24];
                        unsigned char r[8];
                        double v;
                        if (!(fmodes >> m & 1) || (m == 1 && f == BB_IAMAX)) continue;
                        wr_context_set_float_mode(ctx, m ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
                        if (bcu_time(our, &a, warmup, reps, &tt, err) || bcu_d2h(r, out, 8, err)) {
                            printf("%-10s %-4s %12zu %6zu %-13s ERROR %s\n", names[f], t == WR_DOUBLE ? "f64" : "f32",
                                   nn, cl, m ? "reproducible" : "fast", err);
                            failures++;
                            continue;
                        }
                        v = value(r, t);
                        if (f == BB_IAMAX) {
                            (void)bcu_d2h(&ifast, (size_t *)cbo + 4, sizeof ifast, err);
                            if (iref >= 1 && ifast != (size_t)(iref - 1))
                                snprintf(check, sizeof check, "FAIL index %zu, cuBLAS %d - 1", ifast, iref);
                        } else if (f != BB_DOTROWS && !isnan(vref) && !close_to(v, vref, t)) {
                            snprintf(check, sizeof check, "FAIL %.9g, cuBLAS %.9g", v, vref);
                        } else if (m == 1 && !isnan(vfast) && !close_to(v, vfast, t)) {
                            snprintf(check, sizeof check, "FAIL %.9g, fast %.9g", v, vfast);
                        }
                        if (m == 0) {
                            tfast = tt.med;
                            vfast = v;
                        }
                        if (check[0] == 'F') failures++;
                        if (m == 0 && !isnan(tref)) snprintf(ratio, sizeof ratio, "%.2f", tref / tt.med);
                        else if (m == 1 && !isnan(tfast)) snprintf(ratio, sizeof ratio, "%.2f", tfast / tt.med);
                        else snprintf(ratio, sizeof ratio, "-");
                        if (cl) snprintf(cs, sizeof cs, "%zu", cl);
                        else snprintf(cs, sizeof cs, "-");
                        printf("%-10s %-4s %12zu %6s %-13s %10.3f %9.1f %8s %6.3f  %s\n", names[f],
                               t == WR_DOUBLE ? "f64" : "f32", nn, cs, m ? "reproducible" : "fast", tt.med * 1e3,
                               bytes / tt.med / 1e9, ratio, bytes / tt.med / copy_bps, check);
                    }
                    wr_context_set_float_mode(ctx, WR_FLOAT_FAST);
                }
            }
            if (!isnan(tcopy))
                printf("%-10s %-4s %12zu %6s %-13s %10.3f %9.1f %8s %6.3f\n", "copy", t == WR_DOUBLE ? "f64" : "f32",
                       n, "-", "d2d", tcopy * 1e3, 2.0 * (double)(n * w) / tcopy / 1e9, "-", 1.0);
        next:
            free(hx);
            free(hy);
            bcu_dev_free(x);
            bcu_dev_free(y);
            bcu_dev_free(tmp);
            bcu_dev_free(out);
            bcu_dev_free(cbo);
        }
    }
    fflush(stdout);
    return failures;
}

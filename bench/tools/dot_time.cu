/*
 * dot_time.cu -- the CUDA backend's dot products, norms, sums of magnitudes,
 * argmax |x| and row-wise dot products against cuBLAS and a device-to-device
 * copy, on the same buffers, kernel time only (CUDA events around the
 * launches), fast and reproducible.  The kernels are the plugin's, linked
 * from its objects (bench/tools/local.am); make check builds the tool.  Run
 * it from the build tree:
 *   bench/tools/dot_time [N]   (N elements, default 2^28; DOT_TIME_REPS runs, default 20)
 *
 * cuBLAS is not linked: bench/cublas_ref.cu (the benchmark's) finds it at run
 * time and calls cublasSdot/Ddot/Snrm2/Dnrm2/Sasum/Dasum/Isamax/Idamax in
 * CUBLAS_POINTER_MODE_DEVICE on the tool's stream; without it the cuBLAS
 * columns say "-".  Rows: dot_rows of N/8 elements (2^25 at the default N)
 * in rows of 32 and 1024 columns.
 *
 * Columns: the median in us, GB/s (bytes read once, as the copy's bytes
 * read and written), the ratio cuBLAS time / ours (above 1: ours faster),
 * the ratio of our bytes/s to the copy's, and the reproducible call's time
 * ratio fast / reproducible.  Results are checked against each other: the
 * fast and reproducible values within 1e-6 relative (2e-3 for float),
 * cuBLAS's within the same; argmax |x| must name cuBLAS's index (0-based).
 */
#include "tool_common.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dot.cuh"
#include "exact.cuh"
#include "../bench.h"

/* ---- cuBLAS (bench/cublas_ref.cu) ------------------------------------------------- */

struct cublas {
    bool ok = false;
    cudaStream_t st = nullptr;
};

/* Queue cuBLAS's f on x (and y) into d_out. */
static void cb_call(const cublas &cb, bcu_blas f, wr_type t, size_t n, const void *x, const void *y, void *d_out)
{
    char err[WR_BENCH_ERRLEN];
    bcu_blas_call c = { f, t, n, x, y, d_out, (void *)cb.st };
    if (bcu_cublas_run(&c, err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

/* ---- data --------------------------------------------------------------------------- */

__global__ void k_fill(double *d, float *f, size_t n, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = seed + i * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        const double u = (double)(z >> 11) * 0x1p-53 * 2 - 1;
        if (d) d[i] = u;
        if (f) f[i] = (float)u;
    }
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        if ((expr) != WR_SUCCESS) { fprintf(stderr, "%s: %s\n", #expr, err); exit(1); }            \
    } while (0)

static int reps;
static int failures;

static double rel(double a, double b) { return fabs(a - b) / (fabs(b) > 0 ? fabs(b) : 1); }

static void row(const char *name, const char *type, double bytes, double us, double copy_us, double cb_us,
                double repro_of, const char *check)
{
    printf("%-14s %-4s %10.1f %8.1f", name, type, us, bytes / us * 1e-3);
    if (cb_us > 0) printf(" %8.3f", cb_us / us);
    else printf(" %8s", "-");
    printf(" %8.3f", copy_us / us);
    if (repro_of > 0) printf(" %8.3f", repro_of / us);
    else printf(" %8s", "-");
    printf("  %s\n", check);
}

template <typename T>
static void run_type(wrcuda::strand &S, cublas &cb, const T *x, const T *y, size_t n)
{
    char err[WR_ERRLEN] = "";
    const bool dbl = sizeof(T) == 8;
    const wr_type t = dbl ? WR_DOUBLE : WR_FLOAT;
    const char *tn = dbl ? "f64" : "f32";
    T *out;
    size_t *idx;
    int *cbi;
    void *tmp;
    CK(cudaMalloc((void **)&out, 64 * sizeof(T)));
    CK(cudaMalloc((void **)&idx, sizeof(size_t)));
    CK(cudaMalloc((void **)&cbi, sizeof(int)));
    CK(cudaMalloc(&tmp, (size_t)n * sizeof(T)));
    const double es = sizeof(T);
    /* the copy of one vector: bytes read + written = 2 n es */
    const double copy1 = timed_median(S.st, reps, [&] {
        CK(cudaMemcpyAsync(tmp, x, n * sizeof(T), cudaMemcpyDeviceToDevice, S.st));
    });
    const int in = n < (size_t)1 << 31 ? (int)n : -1;
    T h[8];
    char check[200];
    auto fetch = [&](int k) {
        CK(cudaStreamSynchronize(S.st));
        CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        return (double)h[k];
    };
    const double tol = dbl ? 1e-6 : 2e-3;
    /* a fast call on device memory: one launch, its tiles folded by its last block */
    auto fast = [&](wrcuda::blas_op op, const T *a, const T *b, T *dst) {
        const size_t tile = wrcuda::blas_tile(op, t, n);
        return wrcuda::launch_blas(S, op, a, b, n, t, tile, 0, (n + tile - 1) / tile, true, nullptr, dst, nullptr,
                                   wrcuda::kNoDone, err);
    };

    /* dot: reads 2 n es; the copy moves 2 n es too */
    {
        const double f = timed_median(S.st, reps, [&] {
            TRY(fast(wrcuda::BLAS_DOT, x, y, out + 0));
        });
        const double xr = timed_median(S.st, reps, [&] {
            TRY(wrcuda::launch_exact_dot(S, x, y, n, t, nullptr, nullptr, out + 1, wrcuda::kNoDone, err));
        });
        double c = 0;
        if (cb.ok && in > 0) c = timed_median(S.st, reps, [&] { cb_call(cb, BCU_DOT, t, n, x, y, out + 2); });
        const double vf = fetch(0), vx = fetch(1), vc = cb.ok && in > 0 ? fetch(2) : vx;
        const bool good = rel(vf, vx) < tol && rel(vc, vx) < tol;
        snprintf(check, sizeof check, "%s (fast %.9g repro %.9g cublas %.9g)", good ? "ok" : "FAIL", vf, vx, vc);
        failures += !good;
        row("dot", tn, 2 * n * es, f, copy1, c, 0, check);
        row("dot repro", tn, 2 * n * es, xr, copy1, c, f, "");
    }
    /* nrm2, asum: read n es; the copy of half a vector moves as much */
    const double copyh = copy1 / 2;
    {
        const double f = timed_median(S.st, reps, [&] {
            TRY(fast(wrcuda::BLAS_NRM2, x, x, out + 0));
        });
        const double xr = timed_median(S.st, reps, [&] {
            /* part 1, the gated parts 0 and 2 (nothing to do on this data), the rounding */
            wrx_acc *parts = wrcuda::norm_parts(S);
            TRY(wrcuda::launch_exact_nrm2(S, x, n, t, 1, 0, nullptr, parts + 1, err));
            if (dbl) {
                TRY(wrcuda::launch_exact_nrm2(S, x, n, t, 0, 1, nullptr, parts + 0, err));
                TRY(wrcuda::launch_exact_nrm2(S, x, n, t, 2, 1, nullptr, parts + 2, err));
            }
            TRY(wrcuda::launch_norm_round(S, t, out + 1, wrcuda::kNoDone, err));
        });
        double c = 0;
        if (cb.ok && in > 0) c = timed_median(S.st, reps, [&] { cb_call(cb, BCU_NRM2, t, n, x, nullptr, out + 2); });
        const double vf = fetch(0), vx = fetch(1), vc = cb.ok && in > 0 ? fetch(2) : vx;
        const bool good = rel(vf, vx) < tol && rel(vc, vx) < tol;
        snprintf(check, sizeof check, "%s (fast %.9g repro %.9g cublas %.9g)", good ? "ok" : "FAIL", vf, vx, vc);
        failures += !good;
        row("nrm2", tn, n * es, f, copyh, c, 0, check);
        row("nrm2 repro", tn, n * es, xr, copyh, c, f, "");
    }
    {
        const double f = timed_median(S.st, reps, [&] {
            TRY(fast(wrcuda::BLAS_ASUM, x, x, out + 0));
        });
        const double xr = timed_median(S.st, reps, [&] {
            TRY(wrcuda::launch_exact_asum(S, x, n, t, nullptr, nullptr, out + 1, wrcuda::kNoDone, err));
        });
        double c = 0;
        if (cb.ok && in > 0) c = timed_median(S.st, reps, [&] { cb_call(cb, BCU_ASUM, t, n, x, nullptr, out + 2); });
        const double vf = fetch(0), vx = fetch(1), vc = cb.ok && in > 0 ? fetch(2) : vx;
        const bool good = rel(vf, vx) < tol && rel(vc, vx) < tol;
        snprintf(check, sizeof check, "%s (fast %.9g repro %.9g cublas %.9g)", good ? "ok" : "FAIL", vf, vx, vc);
        failures += !good;
        row("asum", tn, n * es, f, copyh, c, 0, check);
        row("asum repro", tn, n * es, xr, copyh, c, f, "");
    }
    {
        const double f = timed_median(S.st, reps, [&] {
            TRY(wrcuda::launch_iamax(S, x, n, t, 0, nullptr, nullptr, idx, out + 0, wrcuda::kNoDone, err));
        });
        double c = 0;
        if (cb.ok && in > 0) c = timed_median(S.st, reps, [&] { cb_call(cb, BCU_IAMAX, t, n, x, nullptr, cbi); });
        size_t gi = 0;
        int ci = 0;
        CK(cudaStreamSynchronize(S.st));
        CK(cudaMemcpy(&gi, idx, sizeof gi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&ci, cbi, sizeof ci, cudaMemcpyDeviceToHost));
        const bool good = !cb.ok || in <= 0 || (size_t)(ci - 1) == gi;
        snprintf(check, sizeof check, "%s (index %zu, cublas %d - 1)", good ? "ok" : "FAIL", gi, ci);
        failures += !good;
        row("argmax_abs", tn, n * es, f, copyh, c, 0, check);
    }
    /* rows: n / 8 elements (x and y), rows of 32 and 1024 */
    const size_t rn = n / 8;
    const double copyr = timed_median(S.st, reps, [&] {
        CK(cudaMemcpyAsync(tmp, x, rn * sizeof(T), cudaMemcpyDeviceToDevice, S.st));
    });
    for (size_t cols : { (size_t)32, (size_t)1024 }) {
        const size_t rows = rn / cols;
        T *ro;
        CK(cudaMalloc((void **)&ro, 2 * rows * sizeof(T)));
        const double f = timed_median(S.st, reps, [&] {
            TRY(wrcuda::launch_dot_rows(S, x, y, ro, rows, cols, t, wrcuda::kNoDone, err));
        });
        const double xr = timed_median(S.st, reps, [&] {
            TRY(wrcuda::launch_exact_dot_rows(S, x, y, ro + rows, rows, cols, t, wrcuda::kNoDone, err));
        });
        T a[2];
        CK(cudaStreamSynchronize(S.st));
        CK(cudaMemcpy(&a[0], ro + rows / 2, sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&a[1], ro + rows + rows / 2, sizeof(T), cudaMemcpyDeviceToHost));
        const bool good = rel(a[0], a[1]) < (dbl ? 1e-12 : 1e-4);
        snprintf(check, sizeof check, "%s (row %zu: fast %.9g repro %.9g)", good ? "ok" : "FAIL", rows / 2,
                 (double)a[0], (double)a[1]);
        failures += !good;
        char nm[32];
        snprintf(nm, sizeof nm, "dot_rows/%zu", cols);
        /* reads 2 rn es (+ rows es written); the copy of rn elements moves 2 rn es */
        row(nm, tn, 2 * rn * es, f, copyr, 0, 0, check);
        snprintf(nm, sizeof nm, "dot_rows/%zu re", cols);
        row(nm, tn, 2 * rn * es, xr, copyr, 0, f, "");
        CK(cudaFree(ro));
    }
    CK(cudaFree(out));
    CK(cudaFree(idx));
    CK(cudaFree(cbi));
    CK(cudaFree(tmp));
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (size_t)1 << 28;
    reps = getenv("DOT_TIME_REPS") ? atoi(getenv("DOT_TIME_REPS")) : 20;
    if (reps < 1) reps = 1;
    wrcuda::strand S{};
    tool_strand(S);
    char err[WR_ERRLEN] = "";
    TRY(wrcuda::exact_scratch(S, err));
    cublas cb;
    char why[160] = "";
    cb.ok = bcu_cublas_available(why, sizeof why) == 0;
    cb.st = S.st;
    const bool have_cb = cb.ok;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, S.dev));
    printf("# dot_time: %s, n = %zu, %d reps, cuBLAS %s\n", p.name, n, reps, have_cb ? "found" : why);
    printf("%-14s %-4s %10s %8s %8s %8s %8s  %s\n", "what", "type", "us", "GB/s", "cublas/", "vs copy", "fast/", "check");
    {
        double *x, *y;
        CK(cudaMalloc((void **)&x, n * 8));
        CK(cudaMalloc((void **)&y, n * 8));
        k_fill<<<4096, 256, 0, S.st>>>(x, nullptr, n, 1);
        k_fill<<<4096, 256, 0, S.st>>>(y, nullptr, n, 2);
        CK(cudaGetLastError());
        run_type<double>(S, cb, x, y, n);
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    {
        float *x, *y;
        CK(cudaMalloc((void **)&x, n * 4));
        CK(cudaMalloc((void **)&y, n * 4));
        k_fill<<<4096, 256, 0, S.st>>>(nullptr, x, n, 1);
        k_fill<<<4096, 256, 0, S.st>>>(nullptr, y, n, 2);
        CK(cudaGetLastError());
        run_type<float>(S, cb, x, y, n);
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    printf("# %d failed checks\n", failures);
    return failures != 0;
}

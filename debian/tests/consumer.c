/* consumer.c -- a program outside libwarpred, built by the autopkgtest
 * against the installed packages (through pkg-config and through CMake) and
 * run on the cpu backend.  Every result is checked against a value this
 * program computes itself from pseudo-random input.
 *
 * With the plugin directory as argument (pkg-config --variable=pluginsdir
 * warpred), it also checks what a GPU context does there: with a plugin's
 * package not installed, the context is refused with a reason that names
 * the package; with it installed and no device, refused with a reason too.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <warpred.h>

static int tests, failures;

static void check(int ok, const char *fmt, const char *detail)
{
    tests++;
    printf("%s %d - ", ok ? "ok" : "not ok", tests);
    printf(fmt, detail);
    printf("\n");
    if (!ok) failures++;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)                      /* splitmix64 */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A GPU backend's context: works (a GPU is there), or is refused with a
 * reason, which names the package when the plugin is not installed. */
static void gpu_context(const char *plugindir, wr_backend b, const char *file, const char *package)
{
    char path[4096], what[8192];
    wr_context *g = NULL;
    wr_status st = wr_context_create(&g, b);
    const char *why = wr_context_error(NULL);
    int installed;

    snprintf(path, sizeof path, "%s/%s", plugindir, file);
    installed = access(path, F_OK) == 0;
    snprintf(what, sizeof what, "%s context (%s %s): %s", package, path,
             installed ? "installed" : "not installed", st == WR_SUCCESS ? wr_context_describe(g) : why);
    if (st == WR_SUCCESS)
        check(installed, "%s", what);
    else if (installed)
        check(st == WR_ERR_NO_BACKEND && why[0] != '\0' && strstr(why, "not found") == NULL, "%s", what);
    else
        check(st == WR_ERR_NO_BACKEND && strstr(why, package) != NULL, "refused, naming the package: %s", what);
    wr_context_destroy(g);
}

#define N 100003
#define ROWS 301
#define COLS 257
#define NSEG 97

int main(int argc, char **argv)
{
    static int64_t k[N], kscan[N], kex[N];
    static double x[N], xscan[N];
    static int32_t m[ROWS * COLS], rows[ROWS], rref[ROWS];
    static int64_t seg[NSEG], sref[NSEG];
    size_t offsets[NSEG + 1];
    int64_t ksum = 0, kmin = INT64_MAX, kmax = INT64_MIN, got_i = 0, acc;
    uint64_t bx = 0, got_u = 0;
    double xsum = 0, xabs = 0, got_d = 0, tol, run;
    size_t i, j, kmin_at = 0, kmax_at = 0, at = 0;
    int ok;
    wr_context *ctx;
    char detail[512];

    if (wr_context_create(&ctx, WR_BACKEND_CPU) != WR_SUCCESS) {
        printf("not ok 1 - wr_context_create(cpu): %s\n", wr_context_error(NULL));
        return 1;
    }
    printf("# libwarpred %s: %s\n", wr_version(), wr_context_describe(ctx));
    check(strcmp(wr_version(), "0") > 0 && wr_context_has_backend(ctx, WR_BACKEND_CPU),
          "cpu context, version %s", wr_version());

    for (i = 0; i < N; i++) {
        k[i] = (int64_t)(next() % 2000001) - 1000000;
        x[i] = (double)(next() >> 11) * 0x1p-53;       /* uniform [0, 1) */
        ksum += k[i];
        bx ^= (uint64_t)k[i];
        if (k[i] < kmin) { kmin = k[i]; kmin_at = i; }
        if (k[i] > kmax) { kmax = k[i]; kmax_at = i; }
        xabs += fabs(x[i]);
    }
    /* the double sum's reference: Neumaier's compensated sum */
    {
        double s = 0, c = 0, t;
        for (i = 0; i < N; i++) {
            t = s + x[i];
            c += fabs(s) >= fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
            s = t;
        }
        xsum = s + c;
    }
    /* the bound of README's "Float SUM accuracy": (ceil(log2 n) + 1024) u sum|x| */
    tol = (ceil(log2((double)N)) + 1024) * 0x1p-53 * xabs;

    ok = wr_reduce(ctx, k, &got_i, N, WR_INT64, WR_SUM) == WR_SUCCESS && got_i == ksum;
    snprintf(detail, sizeof detail, "%lld, expected %lld", (long long)got_i, (long long)ksum);
    check(ok, "wr_reduce int64 SUM: %s", detail);
    ok = wr_reduce(ctx, k, &got_u, N, WR_UINT64, WR_BXOR) == WR_SUCCESS && got_u == bx;
    check(ok, "wr_reduce uint64 BXOR%s", "");
    ok = wr_reduce(ctx, k, &got_i, N, WR_INT64, WR_MIN) == WR_SUCCESS && got_i == kmin;
    check(ok, "wr_reduce int64 MIN%s", "");
    ok = wr_reduce(ctx, x, &got_d, N, WR_DOUBLE, WR_SUM) == WR_SUCCESS && fabs(got_d - xsum) <= tol;
    snprintf(detail, sizeof detail, "%.17g, compensated %.17g, bound %.3g", got_d, xsum, tol);
    check(ok, "wr_reduce double SUM: %s", detail);
    check(wr_context_last_backend(ctx) == WR_BACKEND_CPU, "the calls ran on the cpu backend%s", "");

    ok = wr_scan(ctx, k, kscan, N, WR_INT64, WR_SUM) == WR_SUCCESS;
    for (acc = 0, i = 0; ok && i < N; i++) { acc += k[i]; ok = kscan[i] == acc; }
    check(ok, "wr_scan int64 SUM, every prefix%s", "");
    ok = wr_exscan(ctx, k, kex, N, WR_INT64, WR_MAX) == WR_SUCCESS && kex[0] == INT64_MIN;
    for (acc = INT64_MIN, i = 1; ok && i < N; i++) { if (k[i - 1] > acc) acc = k[i - 1]; ok = kex[i] == acc; }
    check(ok, "wr_exscan int64 MAX, identity first%s", "");
    ok = wr_scan(ctx, x, xscan, N, WR_DOUBLE, WR_SUM) == WR_SUCCESS;
    for (run = 0, i = 0; ok && i < N; i++) { run += x[i]; ok = fabs(xscan[i] - run) <= 1e-9 * (run + 1); }
    check(ok, "wr_scan double SUM within 1e-9 of a running sum%s", "");

    ok = wr_argmin(ctx, k, N, WR_INT64, &at, &got_i) == WR_SUCCESS && at == kmin_at && got_i == kmin;
    check(ok, "wr_argmin int64: the first minimum%s", "");
    ok = wr_argmax(ctx, k, N, WR_INT64, &at, &got_i) == WR_SUCCESS && at == kmax_at && got_i == kmax;
    check(ok, "wr_argmax int64: the first maximum%s", "");

    for (i = 0; i < ROWS; i++)
        for (rref[i] = 0, j = 0; j < COLS; j++) {
            m[i * COLS + j] = (int32_t)(next() % 2001) - 1000;
            rref[i] = (int32_t)((uint32_t)rref[i] + (uint32_t)m[i * COLS + j]);
        }
    ok = wr_reduce_rows(ctx, m, rows, ROWS, COLS, WR_INT32, WR_SUM) == WR_SUCCESS;
    for (i = 0; ok && i < ROWS; i++) ok = rows[i] == rref[i];
    check(ok, "wr_reduce_rows int32 SUM, every row%s", "");

    offsets[0] = 0;
    for (i = 1; i <= NSEG; i++) offsets[i] = offsets[i - 1] + (size_t)(next() % (2 * N / NSEG));
    if (offsets[NSEG] > N) offsets[NSEG] = N;
    for (i = 0; i < NSEG; i++) {
        if (offsets[i] > offsets[NSEG]) offsets[i] = offsets[NSEG];
        for (sref[i] = 0, j = offsets[i]; j < offsets[i + 1] && j < offsets[NSEG]; j++) sref[i] += k[j];
    }
    ok = wr_reduce_segments(ctx, k, seg, NSEG, offsets, WR_INT64, WR_SUM) == WR_SUCCESS;
    for (i = 0; ok && i < NSEG; i++) ok = seg[i] == sref[i];
    check(ok, "wr_reduce_segments int64 SUM, every segment%s", "");

    ok = wr_reduce(ctx, NULL, &got_i, N, WR_INT64, WR_SUM) == WR_ERR_INVALID_ARG &&
         wr_context_error(ctx)[0] != '\0';
    check(ok, "a NULL input is refused with a reason: %s", wr_context_error(ctx));
    wr_context_destroy(ctx);

    if (argc > 1) {
        gpu_context(argv[1], WR_BACKEND_CUDA, "warpred_cuda.so", "libwarpred-cuda");
        gpu_context(argv[1], WR_BACKEND_OPENMP_TARGET, "warpred_omptarget.so", "libwarpred-omptarget");
    }
    printf("1..%d\n%d passed, %d failed\n", tests, tests - failures, failures);
    return failures != 0;
}

/* consumer.c -- built by CMake against the installed libwarpred (warpred::warpred):
 * reduce, scans and argmax on values whose results are exact. */
#include <stdint.h>
#include <stdio.h>
#include <warpred.h>

#define N 1000

static int failures;

static void check(int ok, const char *what)
{
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    if (!ok) failures++;
}

int main(void)
{
    static double x[N], excl[N];
    static int64_t k[N], incl[N];
    double sum = 0, maxval = 0;
    size_t i, at = 0;
    int scan_ok = 1, exscan_ok = 1;
    wr_context *ctx;

    if (wr_context_create(&ctx, WR_BACKEND_AUTO) != WR_SUCCESS) {
        printf("not ok - wr_context_create: %s\n", wr_context_error(NULL));
        return 1;
    }
    for (i = 0; i < N; i++) {
        x[i] = (double)(i + 1);           /* integer-valued: every sum is exact */
        k[i] = (int64_t)(i + 1);
    }
    x[N / 3] = 5000;                      /* the maximum, once */

    check(wr_reduce(ctx, x, &sum, N, WR_DOUBLE, WR_SUM) == WR_SUCCESS
          && sum == N * (N + 1) / 2.0 - (N / 3 + 1) + 5000, "wr_reduce double sum");
    check(wr_scan(ctx, k, incl, N, WR_INT64, WR_SUM) == WR_SUCCESS, "wr_scan int64");
    for (i = 0; i < N; i++)
        if (incl[i] != (int64_t)((i + 1) * (i + 2) / 2)) scan_ok = 0;
    check(scan_ok, "wr_scan values are k(k+1)/2");
    check(wr_exscan(ctx, x, excl, N, WR_DOUBLE, WR_MAX) == WR_SUCCESS, "wr_exscan double max");
    for (i = 1; i < N; i++)
        if (excl[i] != (i > N / 3 ? 5000.0 : (double)i)) exscan_ok = 0;
    check(exscan_ok && excl[0] < -1e308, "wr_exscan values, identity -inf first");
    check(wr_argmax(ctx, x, N, WR_DOUBLE, &at, &maxval) == WR_SUCCESS
          && at == N / 3 && maxval == 5000, "wr_argmax");

    printf("# libwarpred %s: %s\n", wr_version(), wr_context_describe(ctx));
    wr_context_destroy(ctx);
    return failures != 0;
}

/* quickstart.c -- the README's example: sum and prefix-sum an array. */
#include <stdio.h>
#include <warpred.h>

int main(void)
{
    double x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, sum, prefix[8];
    wr_context *ctx;
    if (wr_context_create(&ctx, WR_BACKEND_AUTO) != WR_SUCCESS) {
        fprintf(stderr, "warpred: %s\n", wr_context_error(NULL));
        return 1;
    }
    if (wr_reduce(ctx, x, &sum, 8, WR_DOUBLE, WR_SUM) != WR_SUCCESS ||
        wr_scan(ctx, x, prefix, 8, WR_DOUBLE, WR_SUM) != WR_SUCCESS) {
        fprintf(stderr, "warpred: %s\n", wr_context_error(ctx));
        return 1;
    }
    printf("sum = %g, last prefix = %g (%s)\n", sum, prefix[7], wr_context_describe(ctx));
    wr_context_destroy(ctx);
    return sum == 36 && prefix[7] == 36 ? 0 : 1;
}

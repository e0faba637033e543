/*
 * header_c.c -- the installed header warpred.h compiles on its own in
 * strict ISO C: this file is built twice, with -std=c89 -pedantic-errors
 * and with -std=c99 -pedantic-errors (so it is itself C89: no tap.h).
 * Running it checks that such a program links and calls the library.
 */
#include <stdio.h>
#include <string.h>
#include <warpred.h>

int main(void)
{
    wr_context *ctx = NULL;
    int x[3];
    int sum = 0;
    wr_status st;
    x[0] = 1;
    x[1] = 2;
    x[2] = 3;
    printf("1..2\n");
    printf("ok 1 - warpred.h compiles as strict ISO C (%s)\n", WR_HEADER_STD);
    st = wr_context_create(&ctx, WR_BACKEND_AUTO);
    if (st == WR_SUCCESS) st = wr_reduce(ctx, x, &sum, 3, WR_INT32, WR_SUM);
    printf("%sok 2 - a %s program links and calls the library (version %s, sum %d)\n",
           st == WR_SUCCESS && sum == 6 && strlen(wr_version()) > 0 ? "" : "not ", WR_HEADER_STD,
           wr_version(), sum);
    wr_context_destroy(ctx);
    return 0;
}

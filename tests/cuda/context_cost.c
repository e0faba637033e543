/*
 * context_cost.c -- what a context costs a process on a GPU node: the time
 * of wr_context_create() (cpu by default; --backend cuda|omptarget|auto)
 * and of its first call and the next ones on host memory, and (--hold
 * SECONDS) a pause during which the caller reads the GPU memory the process
 * holds (nvidia-smi --query-compute-apps).  It prints one line
 * "create_ms=... first_us=... reduce_us=... pid=..." and, with --hold,
 * "holding" before the pause.  Not a test: tools/gpu-bundle runs it on the
 * GPU machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "warpred.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    enum { N = 1 << 20 };
    static double x[N];
    double t0, t1, t2 = 0, t3, sum = 0, want = 0;
    unsigned hold = 0;
    wr_backend b = WR_BACKEND_CPU;
    wr_context *ctx;
    size_t i;
    int a;

    for (a = 1; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--hold") == 0) {
            hold = (unsigned)strtoul(argv[a + 1], NULL, 10);
        } else if (strcmp(argv[a], "--backend") == 0) {
            const char *v = argv[a + 1];
            b = strcmp(v, "cuda") == 0 ? WR_BACKEND_CUDA
              : strcmp(v, "omptarget") == 0 ? WR_BACKEND_OPENMP_TARGET
              : strcmp(v, "auto") == 0 ? WR_BACKEND_AUTO : WR_BACKEND_CPU;
        } else {
            fprintf(stderr, "usage: context_cost [--backend cpu|cuda|omptarget|auto] [--hold SECONDS]\n");
            return 2;
        }
    }
    for (i = 0; i < N; i++) {
        x[i] = (double)(i % 1000);
        want += x[i];
    }
    t0 = now_s();
    if (wr_context_create(&ctx, b) != WR_SUCCESS) {
        fprintf(stderr, "context_cost: wr_context_create failed\n");
        return 1;
    }
    t1 = now_s();
    for (i = 0; i < 11; i++) {
        if (wr_reduce(ctx, x, &sum, N, WR_DOUBLE, WR_SUM) != WR_SUCCESS) {
            fprintf(stderr, "context_cost: wr_reduce: %s\n", wr_context_error(ctx));
            return 1;
        }
        if (i == 0) t2 = now_s();
    }
    t3 = now_s();
    if (sum != want) {
        fprintf(stderr, "context_cost: sum %.17g, expected %.17g\n", sum, want);
        return 1;
    }
    printf("create_ms=%.3f first_us=%.1f reduce_us=%.1f pid=%ld context=\"%s\"\n", 1e3 * (t1 - t0),
           1e6 * (t2 - t1), 1e6 * (t3 - t2) / 10, (long)getpid(), wr_context_describe(ctx));
    fflush(stdout);
    if (hold) {
        printf("holding\n");
        fflush(stdout);
        sleep(hold);
    }
    wr_context_destroy(ctx);
    return 0;
}

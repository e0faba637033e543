/*
 * test_cuda_threads.c -- 8 host threads share one CUDA context, each making
 * a long series of calls (every function, several types and sizes, device,
 * pinned and pageable buffers) and checking every result against an exact
 * host reference.  Half the threads' host buffers are larger than the
 * context's staging buffers, so streamed and direct calls overlap.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "warpred.h"
#include "wr_ops.h"
#include "gpu_common.h"
#include "tap.h"

enum { NTHREADS = 8 };

static wr_context *ctx;
static size_t max_n;
static int iterations;

struct worker {
    int id;
    int calls, bad;
    char first[256];
};

static void note(struct worker *w, const char *fmt, const char *fn, size_t n, const char *extra)
{
    w->bad++;
    if (w->first[0] == '\0') snprintf(w->first, sizeof w->first, fmt, fn, n, extra);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    uint64_t s = 1234567u + (uint64_t)w->id * 1000003u;
    const size_t cap = max_n;
    enum res r = (enum res)(w->id % 3);        /* device, pinned, pageable */
    int64_t *h = malloc(cap * 8), *ref = malloc(cap * 8), *got = malloc(cap * 8);
    size_t *off = malloc((cap + 1) * sizeof *off);
    void *din = res_alloc(r, cap * 8), *dout = res_alloc(r, cap * 8), *dval = res_alloc(r, 8);
    size_t *dix = res_alloc(r, sizeof(size_t)), *doff = res_alloc(r, (cap + 1) * sizeof(size_t));
    if (!h || !ref || !got || !off) { w->bad++; snprintf(w->first, sizeof w->first, "out of host memory"); return NULL; }

    for (int it = 0; it < iterations; it++) {
        const size_t n = 1 + rng_next(&s) % (it % 4 == 0 ? cap : (cap < 5000 ? cap : 5000));
        const int what = (int)(rng_next(&s) % 6);
        const wr_type t = (wr_type)(rng_next(&s) % 4);          /* integer types: exact */
        const wr_op op = (wr_op)(rng_next(&s) % 7);
        const size_t es = wr_type_size(t);
        for (size_t i = 0; i < n * es / 8 + 1; i++) h[i] = (int64_t)rng_next(&s);
        res_put(r, din, h, n * es);
        wr_status st = WR_SUCCESS;
        w->calls++;
        switch (what) {
        case 0: {                                        /* reduce */
            unsigned char want[8], g[8];
            memcpy(want, h, es);
            for (size_t i = 1; i < n; i++) wr_combine(t, op, want, (char *)h + i * es);
            st = wr_reduce(ctx, din, dout, n, t, op);
            res_get(r, g, dout, es);
            if (st != WR_SUCCESS || memcmp(want, g, es)) note(w, "%s n=%zu %s", "wr_reduce", n, wr_context_error(ctx));
            break;
        }
        case 1:
        case 2: {                                        /* scan, exscan */
            unsigned char acc[8];
            memcpy(acc, h, es);
            if (what == 2) wr_identity(t, op, ref); else memcpy(ref, acc, es);
            for (size_t i = 1; i < n; i++) {
                if (what == 2) memcpy((char *)ref + i * es, acc, es);
                wr_combine(t, op, acc, (char *)h + i * es);
                if (what == 1) memcpy((char *)ref + i * es, acc, es);
            }
            st = (what == 2 ? wr_exscan : wr_scan)(ctx, din, dout, n, t, op);
            res_get(r, got, dout, n * es);
            if (st != WR_SUCCESS || memcmp(ref, got, n * es))
                note(w, "%s n=%zu %s", what == 2 ? "wr_exscan" : "wr_scan", n, wr_context_error(ctx));
            break;
        }
        case 3: {                                        /* rows */
            const size_t cols = 1 + rng_next(&s) % 200, rows = n / cols;
            for (size_t i = 0; i < rows; i++) {
                unsigned char *o = (unsigned char *)ref + i * es;
                memcpy(o, (char *)h + i * cols * es, es);
                for (size_t j = 1; j < cols; j++) wr_combine(t, op, o, (char *)h + (i * cols + j) * es);
            }
            st = wr_reduce_rows(ctx, din, dout, rows, cols, t, op);
            res_get(r, got, dout, rows * es);
            if (st != WR_SUCCESS || memcmp(ref, got, rows * es))
                note(w, "%s n=%zu %s", "wr_reduce_rows", n, wr_context_error(ctx));
            break;
        }
        case 4: {                                        /* segments */
            size_t nseg = 0;
            off[0] = 0;
            while (off[nseg] < n && nseg < cap) {
                size_t len = rng_next(&s) % 64;
                off[nseg + 1] = off[nseg] + len < n ? off[nseg] + len : n;
                nseg++;
            }
            for (size_t i = 0; i < nseg; i++) {
                unsigned char *o = (unsigned char *)ref + i * es;
                wr_identity(t, op, o);
                if (off[i + 1] > off[i]) memcpy(o, (char *)h + off[i] * es, es);
                for (size_t j = off[i] + 1; j < off[i + 1]; j++) wr_combine(t, op, o, (char *)h + j * es);
            }
            res_put(r, doff, off, (nseg + 1) * sizeof *off);
            st = wr_reduce_segments(ctx, din, dout, nseg, doff, t, op);
            res_get(r, got, dout, nseg * es);
            if (st != WR_SUCCESS || memcmp(ref, got, nseg * es))
                note(w, "%s n=%zu %s", "wr_reduce_segments", n, wr_context_error(ctx));
            break;
        }
        default: {                                       /* argmax */
            size_t want = 0, gi = 0;
            const int64_t *x64 = h;
            const int32_t *x32 = (const int32_t *)h;
            for (size_t i = 1; i < n; i++) {
                int better;
                switch (t) {
                case WR_INT32:  better = wr_arg_better_i32(x32[want], x32[i], 1); break;
                case WR_UINT32: better = wr_arg_better_u32((uint32_t)x32[want], (uint32_t)x32[i], 1); break;
                case WR_INT64:  better = wr_arg_better_i64(x64[want], x64[i], 1); break;
                default:        better = wr_arg_better_u64((uint64_t)x64[want], (uint64_t)x64[i], 1); break;
                }
                if (better) want = i;
            }
            st = wr_argmax(ctx, din, n, t, dix, dval);
            res_get(r, &gi, dix, sizeof gi);
            if (st != WR_SUCCESS || gi != want) note(w, "%s n=%zu %s", "wr_argmax", n, wr_context_error(ctx));
            break;
        }
        }
    }
    res_free(r, din);
    res_free(r, dout);
    res_free(r, dval);
    res_free(r, dix);
    res_free(r, doff);
    free(h);
    free(ref);
    free(got);
    free(off);
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];
    struct worker w[NTHREADS];
    gpu_require();
    unsetenv("WARPRED_BACKEND");
    max_n = test_max_n((size_t)1 << 21);
    if (max_n > ((size_t)1 << 21)) max_n = (size_t)1 << 21;
    if (max_n < 64) max_n = 64;
    iterations = max_n >= ((size_t)1 << 20) ? 60 : 25;
    /* staging buffers smaller than the largest arrays: streamed calls too */
    setenv("WARPRED_CUDA_STAGING_BYTES", "1048576", 1);
    if (wr_context_create(&ctx, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    plan(NTHREADS + 1);
    for (int i = 0; i < NTHREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        if (pthread_create(&th[i], NULL, work, &w[i]) != 0) bail("pthread_create failed");
    }
    int total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        total += w[i].calls;
        ok(w[i].bad == 0 && w[i].calls == iterations, "thread %d (%s memory): %d calls, %d wrong%s%s", i,
           res_name[i % 3], w[i].calls, w[i].bad, w[i].bad ? ": first: " : "", w[i].first);
    }
    ok(total == NTHREADS * iterations, "%d calls on one shared context, all checked", total);
    wr_context_destroy(ctx);
    return tap_failures() ? 1 : 0;
}

/*
 * determinism.c -- DESIGN.md: "for a given backend, type, op and count,
 * floating results are the same bits on every run".  The same random float
 * and double input goes through reduce (SUM, PROD), scan and exscan (SUM, out
 * of place and in place), reduce_rows and reduce_segments (SUM) repeatedly,
 * and, when built with OpenMP, with 1, 2, 3 and 8 threads
 * (omp_set_num_threads): every result must be bit-identical to the first.
 * (The results' accuracy is checked elsewhere; here only their stability.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "testutil.h"

#define REPEATS 3
static const int threads[] = { 1, 2, 3, 8 };
#define NTHREADS (sizeof threads / sizeof threads[0])
static const size_t sizes[] = { 4097, 65537, 1000003 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define ROWS 37
#define NSEG 301

enum fn { F_REDUCE_SUM, F_REDUCE_PROD, F_SCAN, F_EXSCAN, F_SCAN_INPLACE, F_ROWS, F_SEGMENTS, NFN };
static const char *const fn_name[NFN] = { "wr_reduce SUM", "wr_reduce PROD", "wr_scan SUM", "wr_exscan SUM",
                                          "wr_scan SUM in place (vs out of place)", "wr_reduce_rows SUM",
                                          "wr_reduce_segments SUM" };

struct input {
    wr_type t;
    size_t n;
    unsigned char *sum, *prod;  /* random data for SUM and for PROD */
    size_t off[NSEG + 1];
};

/* Run fn once; the result goes to res (n elements at most). */
static wr_status run(wr_context *ctx, enum fn f, const struct input *x, unsigned char *res, size_t *bytes)
{
    size_t sz = tu_size(x->t);
    switch (f) {
    case F_REDUCE_SUM:
        *bytes = sz;
        return wr_reduce(ctx, x->sum, res, x->n, x->t, WR_SUM);
    case F_REDUCE_PROD:
        *bytes = sz;
        return wr_reduce(ctx, x->prod, res, x->n, x->t, WR_PROD);
    case F_SCAN:
    case F_SCAN_INPLACE:
        *bytes = x->n * sz;
        if (f == F_SCAN_INPLACE) {
            memcpy(res, x->sum, x->n * sz);
            return wr_scan(ctx, res, res, x->n, x->t, WR_SUM);
        }
        return wr_scan(ctx, x->sum, res, x->n, x->t, WR_SUM);
    case F_EXSCAN:
        *bytes = x->n * sz;
        return wr_exscan(ctx, x->sum, res, x->n, x->t, WR_SUM);
    case F_ROWS:
        *bytes = ROWS * sz;
        return wr_reduce_rows(ctx, x->sum, res, ROWS, x->n / ROWS, x->t, WR_SUM);
    case F_SEGMENTS:
        *bytes = NSEG * sz;
        return wr_reduce_segments(ctx, x->sum, res, NSEG, x->off, x->t, WR_SUM);
    default:
        return WR_ERR_INVALID_ARG;
    }
}

static void compare(wr_context *ctx, tu_tally *tal, enum fn f, const struct input *x, const unsigned char *first,
                    size_t fbytes, unsigned char *res, const char *when)
{
    size_t bytes = 0, i, sz = tu_size(x->t);
    wr_status st = run(ctx, f, x, res, &bytes);
    if (!tu_expect(tal, st == WR_SUCCESS, "count %zu, %s: %s: %s", x->n, when, wr_status_string(st),
                   wr_context_error(ctx)))
        return;
    if (memcmp(first, res, fbytes) == 0) {
        tu_expect(tal, 1, "same");
        return;
    }
    for (i = 0; i + sz <= fbytes; i += sz)
        if (memcmp(first + i, res + i, sz) != 0) break;
    {
        char a[96], b[96];
        tu_expect(tal, 0, "count %zu, %s: element %zu differs: %s then %s", x->n, when, i / sz,
                  tu_fmt(first + i, x->t, a, sizeof a), tu_fmt(res + i, x->t, b, sizeof b));
    }
}

int main(void)
{
    static const wr_type types[2] = { WR_FLOAT, WR_DOUBLE };
    size_t maxn = sizes[NSIZES - 1], s, i;
    unsigned char *first, *res;
    wr_context *ctx;
    tu_rng r;
    int ti, f, rep;
#ifdef _OPENMP
    int default_threads = omp_get_max_threads();
#endif

    plan(2 * NFN);
    tu_rng_seed(&r, tu_seed());
    ctx = tu_context(WR_BACKEND_AUTO);
    diag("%s", wr_context_describe(ctx));
#ifndef _OPENMP
    diag("built without OpenMP: repeated runs only, thread counts not varied");
#endif
    first = (unsigned char *)tu_xmalloc(maxn * 8);
    res = (unsigned char *)tu_xmalloc(maxn * 8);

    for (ti = 0; ti < 2; ti++) {
        struct input in[NSIZES];
        wr_type t = types[ti];
        for (s = 0; s < NSIZES; s++) {
            in[s].t = t;
            in[s].n = sizes[s];
            in[s].sum = (unsigned char *)tu_xmalloc(sizes[s] * 8);
            in[s].prod = (unsigned char *)tu_xmalloc(sizes[s] * 8);
            tu_fill(&r, in[s].sum, sizes[s], t, WR_SUM, TU_ROUNDED, sizes[s]);
            tu_fill(&r, in[s].prod, sizes[s], t, WR_PROD, TU_ROUNDED, sizes[s]);
            in[s].off[0] = (size_t)tu_below(&r, 16);
            for (i = 1; i <= NSEG; i++)
                in[s].off[i] = in[s].off[0] + (sizes[s] - in[s].off[0]) / NSEG * i -
                               (i < NSEG && tu_below(&r, 2) ? (size_t)tu_below(&r, 3) : 0);
        }
        for (f = 0; f < NFN; f++) {
            tu_tally tal;
            tu_tally_init(&tal);
            for (s = 0; s < NSIZES; s++) {
                size_t fbytes = 0;
                wr_status st;
                /* the reference run: for in place, the out-of-place result */
                st = run(ctx, f == F_SCAN_INPLACE ? F_SCAN : (enum fn)f, &in[s], first, &fbytes);
                if (!tu_expect(&tal, st == WR_SUCCESS, "count %zu: %s: %s", sizes[s], wr_status_string(st),
                               wr_context_error(ctx)))
                    continue;
                for (rep = 0; rep < REPEATS; rep++)
                    compare(ctx, &tal, (enum fn)f, &in[s], first, fbytes, res, "repeated");
#ifdef _OPENMP
                for (i = 0; i < NTHREADS; i++) {
                    char when[64];
                    snprintf(when, sizeof when, "%d OpenMP threads", threads[i]);
                    omp_set_num_threads(threads[i]);
                    compare(ctx, &tal, (enum fn)f, &in[s], first, fbytes, res, when);
                }
                omp_set_num_threads(default_threads);
#endif
            }
            tu_report(&tal, "%s %s: the same bits on every run%s", fn_name[f], tu_type_name(t),
#ifdef _OPENMP
                      " and with 1, 2, 3, 8 OpenMP threads"
#else
                      ""
#endif
            );
        }
        for (s = 0; s < NSIZES; s++) {
            free(in[s].sum);
            free(in[s].prod);
        }
    }
    free(first);
    free(res);
    wr_context_destroy(ctx);
    return 0;
}

/*
 * threads.c -- DESIGN.md: "one context may be used from several host threads
 * at once; calls from inside the caller's own OpenMP parallel region are
 * correct".
 *
 * 8 pthreads share ONE context; each makes many different calls (every
 * function, random type, op and size) on its own data and checks every
 * result against the reference of testutil.c.  Each also provokes errors
 * whose text carries its own number and checks that wr_context_error() shows
 * its own reason while the others' calls succeed (the text is per thread).
 * Then the same calls from inside this program's own `#pragma omp parallel`
 * region and `omp parallel for` loop (when built with OpenMP).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "testutil.h"

#define NPTHREADS 8
#define CALLS 200
#define MAXN 50000
#define NSEG 40
#define OMP_THREADS 4
#define OMP_TASKS 32

static wr_context *shared;

struct worker {
    int id;
    uint64_t seed;
    tu_tally tal;
    unsigned long calls;
};

struct scratch {
    unsigned char *in, *copy, *out;
    size_t off[NSEG + 1];
};

static void scratch_init(struct scratch *s)
{
    s->in = (unsigned char *)tu_xmalloc(MAXN * 8);
    s->copy = (unsigned char *)tu_xmalloc(MAXN * 8);
    s->out = (unsigned char *)tu_xmalloc(MAXN * 8);
}

static void scratch_free(struct scratch *s)
{
    free(s->in);
    free(s->copy);
    free(s->out);
}

/* One random call on ctx with exact data, checked.  who names the caller. */
static void one_call(wr_context *ctx, tu_rng *r, struct scratch *s, tu_tally *tal, const char *who)
{
    wr_type t = tu_types[tu_below(r, TU_NTYPES)];
    wr_op op = tu_ops[tu_below(r, TU_NOPS)];
    size_t n = tu_below(r, 8) == 0 ? (size_t)tu_below(r, MAXN + 1) : (size_t)tu_below(r, 3000);
    size_t sz = tu_size(t), i;
    int fn = (int)tu_below(r, 7);
    char why[512];
    wr_status st;

    while (!tu_valid(t, op)) op = tu_ops[tu_below(r, TU_NOPS)];
    if (fn == 6 && n == 0) n = 1;    /* argmin/argmax of nothing is an error */
    tu_fill(r, s->in, n, t, op, TU_EXACT, n);
    memcpy(s->copy, s->in, n * sz);
    switch (fn) {
    case 0:
        st = wr_reduce(ctx, s->in, s->out, n, t, op);
        if (tu_expect(tal, st == WR_SUCCESS, "%s: wr_reduce: %s", who, wr_context_error(ctx)))
            tu_expect(tal, tu_check_reduce(s->in, n, t, op, s->out, 0, why, sizeof why), "%s: wr_reduce %s %s: %s",
                      who, tu_type_name(t), tu_op_name(op), why);
        break;
    case 1:
    case 2:
    case 3: {
        int ex = fn == 2, inplace = fn == 3;
        unsigned char *o = inplace ? s->in : s->out;
        st = ex ? wr_exscan(ctx, s->in, o, n, t, op) : wr_scan(ctx, s->in, o, n, t, op);
        if (tu_expect(tal, st == WR_SUCCESS, "%s: scan: %s", who, wr_context_error(ctx)))
            tu_expect(tal, tu_check_scan(s->copy, o, n, t, op, ex, 0, why, sizeof why), "%s: %s%s %s %s: %s", who,
                      ex ? "wr_exscan" : "wr_scan", inplace ? " in place" : "", tu_type_name(t), tu_op_name(op), why);
        break;
    }
    case 4: {
        size_t rows = 1 + (size_t)tu_below(r, 64), cols = n / rows;
        st = wr_reduce_rows(ctx, s->in, s->out, rows, cols, t, op);
        if (tu_expect(tal, st == WR_SUCCESS, "%s: wr_reduce_rows: %s", who, wr_context_error(ctx)))
            tu_expect(tal, tu_check_rows(s->in, s->out, rows, cols, t, op, 0, why, sizeof why),
                      "%s: wr_reduce_rows %s %s: %s", who, tu_type_name(t), tu_op_name(op), why);
        break;
    }
    case 5:
        s->off[0] = 0;
        for (i = 1; i <= NSEG; i++) s->off[i] = (size_t)tu_below(r, n + 1);
        /* sorting by insertion keeps it short; NSEG is small */
        for (i = 1; i <= NSEG; i++) {
            size_t v = s->off[i], j = i;
            while (j > 1 && s->off[j - 1] > v) { s->off[j] = s->off[j - 1]; j--; }
            s->off[j] = v;
        }
        st = wr_reduce_segments(ctx, s->in, s->out, NSEG, s->off, t, op);
        if (tu_expect(tal, st == WR_SUCCESS, "%s: wr_reduce_segments: %s", who, wr_context_error(ctx)))
            tu_expect(tal, tu_check_segments(s->in, s->out, NSEG, s->off, t, op, 0, why, sizeof why),
                      "%s: wr_reduce_segments %s %s: %s", who, tu_type_name(t), tu_op_name(op), why);
        break;
    default: {
        int is_max = tu_below(r, 2) != 0;
        size_t idx = 0, want;
        want = tu_ref_argext(s->in, n, t, is_max);
        st = is_max ? wr_argmax(ctx, s->in, n, t, &idx, s->out) : wr_argmin(ctx, s->in, n, t, &idx, s->out);
        tu_expect(tal, st == WR_SUCCESS && idx == want && memcmp(s->out, s->in + want * sz, sz) == 0,
                  "%s: %s %s count %zu: %s, index %zu want %zu", who, is_max ? "wr_argmax" : "wr_argmin",
                  tu_type_name(t), n, wr_status_string(st), idx, want);
        break;
    }
    }
    tu_expect(tal, memcmp(s->in, s->copy, n * sz) == 0 || fn == 3, "%s: the input was modified", who);
}

/* An error whose text carries this caller's number, then a success. */
static void own_error(wr_context *ctx, tu_tally *tal, int id, const char *who)
{
    char want[32];
    int32_t x = 1, y;
    wr_status st = wr_reduce(ctx, &x, &y, 1, (wr_type)(100 + id), WR_SUM);
    snprintf(want, sizeof want, "type %d", 100 + id);
    tu_expect(tal, st == WR_ERR_INVALID_ARG && tu_contains(wr_context_error(ctx), want),
              "%s: own error text expected (\"%s\"), got %s \"%s\"", who, want, wr_status_string(st),
              wr_context_error(ctx));
    st = wr_reduce(ctx, &x, &y, 1, WR_INT32, WR_SUM);
    tu_expect(tal, st == WR_SUCCESS && y == 1 && wr_context_error(ctx)[0] == '\0',
              "%s: after a success the error text is empty, got \"%s\"", who, wr_context_error(ctx));
}

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    struct scratch s;
    char who[32];
    tu_rng r;
    int c;
    snprintf(who, sizeof who, "thread %d", w->id);
    tu_rng_seed(&r, w->seed);
    scratch_init(&s);
    for (c = 0; c < CALLS; c++) {
        one_call(shared, &r, &s, &w->tal, who);
        if (c % 6 == 0) own_error(shared, &w->tal, w->id, who);
        w->calls++;
    }
    scratch_free(&s);
    return NULL;
}

static void test_pthreads(uint64_t seed)
{
    pthread_t th[NPTHREADS];
    struct worker w[NPTHREADS];
    int i, started[NPTHREADS];
    for (i = 0; i < NPTHREADS; i++) {
        w[i].id = i;
        w[i].seed = seed + 1000003u * (uint64_t)(i + 1);
        w[i].calls = 0;
        tu_tally_init(&w[i].tal);
        started[i] = pthread_create(&th[i], NULL, worker_main, &w[i]) == 0;
        if (!started[i]) diag("pthread_create %d failed", i);
    }
    for (i = 0; i < NPTHREADS; i++)
        if (started[i]) pthread_join(th[i], NULL);
    for (i = 0; i < NPTHREADS; i++)
        tu_report(&w[i].tal, "pthread %d of %d on one shared context: %lu calls, every result checked", i,
                  NPTHREADS, w[i].calls);
}

#ifdef _OPENMP
static void test_omp(uint64_t seed)
{
    tu_tally tal[OMP_THREADS], loop;
    int i, team = 0;
    for (i = 0; i < OMP_THREADS; i++) tu_tally_init(&tal[i]);
    tu_tally_init(&loop);

#pragma omp parallel num_threads(OMP_THREADS)
    {
        int me = omp_get_thread_num(), c;
        struct scratch s;
        char who[32];
        tu_rng r;
#pragma omp single
        team = omp_get_num_threads();
        snprintf(who, sizeof who, "omp thread %d", me);
        tu_rng_seed(&r, seed + 7777u * (uint64_t)(me + 1));
        scratch_init(&s);
        for (c = 0; c < CALLS / 2; c++) {
            one_call(shared, &r, &s, &tal[me], who);
            if (c % 5 == 0) own_error(shared, &tal[me], 50 + me, who);
        }
        scratch_free(&s);
    }
    for (i = 0; i < OMP_THREADS; i++)
        tu_report(&tal[i], "inside the caller's omp parallel region (%d threads): thread %d, every result checked",
                  team, i);

    /* a worksharing loop of independent scans of different sizes */
    {
        int k;
#pragma omp parallel for schedule(dynamic, 1) num_threads(OMP_THREADS)
        for (k = 0; k < OMP_TASKS; k++) {
            size_t n = 1000 + (size_t)k * 777, i2;
            double *a = (double *)tu_xmalloc(n * sizeof *a), *b = (double *)tu_xmalloc(n * sizeof *b);
            char why[512];
            tu_tally mine;
            wr_status st;
            tu_tally_init(&mine);
            for (i2 = 0; i2 < n; i2++) a[i2] = (double)((i2 * 7 + (size_t)k) % 13) - 6.0;
            st = wr_scan(shared, a, b, n, WR_DOUBLE, WR_SUM);
            tu_expect(&mine, st == WR_SUCCESS && tu_check_scan(a, b, n, WR_DOUBLE, WR_SUM, 0, 0, why, sizeof why),
                      "task %d: %s %s", k, wr_status_string(st), st == WR_SUCCESS ? why : wr_context_error(shared));
#pragma omp critical
            {
                loop.checks += mine.checks;
                if (mine.fails && loop.fails++ == 0) memcpy(loop.first, mine.first, sizeof loop.first);
            }
            free(a);
            free(b);
        }
    }
    tu_report(&loop, "inside the caller's omp parallel for: %d independent scans, each checked", OMP_TASKS);
}
#endif

int main(void)
{
    uint64_t seed;
    plan(NPTHREADS + OMP_THREADS + 1);
    seed = tu_seed();
    shared = tu_context(WR_BACKEND_AUTO);
    diag("%s", wr_context_describe(shared));
    test_pthreads(seed);
#ifdef _OPENMP
    test_omp(seed);
#else
    skip_block(OMP_THREADS + 1, "built without OpenMP");
#endif
    wr_context_destroy(shared);
    return 0;
}

/*
 * error_text.c -- wr_context_error() keeps one reason per (thread, context)
 * pair, as warpred.h says (issue #23, item 2):
 *
 *  - in one thread, a failure on context a survives successful and failed
 *    calls on another context b, calls with a NULL context, wr_context_create
 *    (succeeding and failing), and destroying another context; the string it
 *    returned stays readable (and unchanged) through all of them;
 *  - three threads failing on one shared context, each for its own reason,
 *    each see their own reason; a success clears only the calling thread's
 *    reason on that context;
 *  - a thread remembers its reasons in more contexts than its short list
 *    holds (error.c's THREAD_CTX_MAX) and clears each one on success;
 *  - destroying a context while other threads hold reasons in it, and
 *    threads ending while they hold reasons in live contexts, neither leak
 *    nor crash (run under the sanitizer builds: ASan's leak check, TSan).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static const int32_t x[4] = { 1, 2, 3, 4 };

/* ---- one thread, two contexts ---------------------------------------------- */

static void one_thread(void)
{
    wr_context *a = tu_context(WR_BACKEND_CPU), *b = tu_context(WR_BACKEND_AUTO), *c = NULL, *tmp = NULL;
    char want[512];
    const char *e;
    int32_t r = 0, rr[2];
    wr_status st;

    st = wr_reduce(a, NULL, &r, 4, WR_INT32, WR_SUM);
    e = wr_context_error(a);
    snprintf(want, sizeof want, "%s", e);
    ok(st == WR_ERR_INVALID_ARG && strcmp(e, "wr_reduce: in is NULL") == 0,
       "a failed call on a leaves its reason: \"%s\"", e);

    st = wr_reduce(b, x, &r, 4, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && r == 10 && strcmp(wr_context_error(a), want) == 0 && wr_context_error(b)[0] == '\0',
       "a successful call on b leaves a's reason (the issue's example): \"%s\"", wr_context_error(a));
    st = wr_scan(b, x, NULL, 4, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && strcmp(wr_context_error(a), want) == 0 &&
       tu_mentions(wr_context_error(b), "out") && !tu_mentions(wr_context_error(a), "out"),
       "a failed call on b leaves a's reason; b has its own: \"%s\"", wr_context_error(b));
    st = wr_reduce(NULL, x, &r, 4, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && strcmp(wr_context_error(a), want) == 0 &&
       tu_mentions(wr_context_error(NULL), "ctx"),
       "a call with a NULL context leaves a's reason; NULL's is its own: \"%s\"", wr_context_error(NULL));
    st = wr_context_create(&c, WR_BACKEND_CPU);
    ok(st == WR_SUCCESS && strcmp(wr_context_error(a), want) == 0 && wr_context_error(NULL)[0] == '\0' &&
       wr_context_error(c)[0] == '\0',
       "a successful wr_context_create leaves a's reason, clears NULL's, the new context has none");
    st = wr_context_create(&tmp, (wr_backend)99);
    ok(st == WR_ERR_INVALID_ARG && tmp == NULL && strcmp(wr_context_error(a), want) == 0 &&
       tu_mentions(wr_context_error(NULL), "backend"),
       "a failed wr_context_create leaves a's reason: \"%s\"", wr_context_error(NULL));
    st = wr_reduce(c, x, (char *)rr + 1, 4, WR_INT32, WR_SUM);      /* misaligned out */
    wr_context_destroy(c);
    ok(st == WR_ERR_INVALID_ARG && strcmp(wr_context_error(a), want) == 0,
       "destroying another context (holding a reason of its own) leaves a's reason");
    ok(strcmp(e, want) == 0, "the string wr_context_error(a) returned first is still the reason: \"%s\"", e);
    st = wr_reduce(a, x, &r, 4, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && wr_context_error(a)[0] == '\0' && tu_mentions(wr_context_error(b), "out"),
       "a success on a clears a's reason only (b keeps \"%s\")", wr_context_error(b));
    st = wr_reduce(b, x, &r, 4, (wr_type)42, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(b), "type") && wr_context_error(a)[0] == '\0',
       "a new failure on b replaces b's reason: \"%s\"", wr_context_error(b));
    wr_context_destroy(a);
    wr_context_destroy(b);
}

/* More contexts with a reason than the thread's short list holds. */
#define MANY 40
static void many_contexts(void)
{
    wr_context *c[MANY];
    int i, kept = 1, cleared = 1, others = 1;
    int32_t r;
    for (i = 0; i < MANY; i++) c[i] = tu_context(WR_BACKEND_CPU);
    for (i = 0; i < MANY; i++) wr_reduce(c[i], x, &r, (size_t)i + 1, WR_INT32, (wr_op)(100 + i));
    for (i = 0; i < MANY; i++) {
        char want[64];
        snprintf(want, sizeof want, "op %d is not a wr_op", 100 + i);
        kept = kept && tu_contains(wr_context_error(c[i]), want);
    }
    ok(kept, "%d contexts each keep their own reason for one thread", MANY);
    /* clear every other one, in reverse order */
    for (i = MANY - 1; i >= 0; i -= 2) {
        cleared = cleared && wr_reduce(c[i], x, &r, 4, WR_INT32, WR_SUM) == WR_SUCCESS &&
                  wr_context_error(c[i])[0] == '\0';
    }
    for (i = MANY - 2; i >= 0; i -= 2) others = others && tu_contains(wr_context_error(c[i]), "is not a wr_op");
    ok(cleared && others, "successes clear their own context's reason only (%d contexts)", MANY);
    for (i = 0; i < MANY; i++) wr_context_destroy(c[i]);
}

/* ---- three threads, one context -------------------------------------------- */

#define NT 3
static wr_context *shared, *doomed, *other;
static pthread_barrier_t bar;

struct tres {
    int own[NT];              /* each phase: saw its own reason */
    int after_clear;          /* after thread 0's success: as expected */
    int after_destroy;        /* after `doomed` went: calls on `other` work */
    char seen[3][256];
};
static struct tres res[NT];

/* Thread t's failure on ctx: a different argument for each thread. */
static wr_status fail(wr_context *ctx, int t)
{
    int32_t r = 0;
    switch (t) {
    case 0: return wr_reduce(ctx, NULL, &r, 4, WR_INT32, WR_SUM);          /* "in" */
    case 1: return wr_scan(ctx, x, NULL, 4, WR_INT32, WR_SUM);             /* "out" */
    default: return wr_reduce_rows(ctx, x, &r, 1, 4, WR_FLOAT, WR_BXOR);   /* "op" ... "float" */
    }
}
static const char *const reason_word[NT] = { "in", "out", "float" };

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, u;
    struct tres *me = &res[t];
    int32_t r;

    /* phase 1: each fails on the shared context, then all look */
    fail(shared, t);
    pthread_barrier_wait(&bar);
    snprintf(me->seen[0], sizeof me->seen[0], "%s", wr_context_error(shared));
    me->own[0] = tu_mentions(me->seen[0], reason_word[t]);
    for (u = 0; u < NT; u++)
        if (u != t && tu_mentions(me->seen[0], reason_word[u])) me->own[0] = 0;
    pthread_barrier_wait(&bar);

    /* phase 2: thread 0 succeeds; the others keep their reasons */
    if (t == 0) wr_reduce(shared, x, &r, 4, WR_INT32, WR_SUM);
    pthread_barrier_wait(&bar);
    snprintf(me->seen[1], sizeof me->seen[1], "%s", wr_context_error(shared));
    me->after_clear = t == 0 ? me->seen[1][0] == '\0' : strcmp(me->seen[1], me->seen[0]) == 0;
    pthread_barrier_wait(&bar);

    /* phase 3: each fails on `doomed`; main destroys it; each carries on */
    fail(doomed, t);
    pthread_barrier_wait(&bar);      /* main destroys doomed now */
    pthread_barrier_wait(&bar);
    me->after_destroy = wr_reduce(other, x, &r, 4, WR_INT32, WR_SUM) == WR_SUCCESS && r == 10 &&
                        wr_context_error(other)[0] == '\0' && strcmp(wr_context_error(shared), me->seen[1]) == 0;
    fail(other, t);                  /* and end holding a reason in a live context */
    snprintf(me->seen[2], sizeof me->seen[2], "%s", wr_context_error(other));
    return NULL;
}

static void three_threads(void)
{
    pthread_t th[NT];
    int t, all;

    shared = tu_context(WR_BACKEND_AUTO);
    doomed = tu_context(WR_BACKEND_CPU);
    other = tu_context(WR_BACKEND_CPU);
    if (pthread_barrier_init(&bar, NULL, NT + 1) != 0) bail("pthread_barrier_init");
    for (t = 0; t < NT; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0) bail("pthread_create");
    pthread_barrier_wait(&bar);              /* phase 1 failures made */
    ok(wr_context_error(shared)[0] == '\0', "main thread: no reason on the shared context (the failures are others')");
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);              /* phase 2 */
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);              /* phase 3: every thread holds a reason in doomed */
    wr_context_destroy(doomed);
    pthread_barrier_wait(&bar);
    for (t = 0; t < NT; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);

    for (t = 0; t < NT; t++)
        ok(res[t].own[0], "thread %d sees its own reason on the shared context: \"%s\"", t, res[t].seen[0]);
    all = 1;
    for (t = 0; t < NT; t++) all = all && res[t].after_clear;
    ok(all, "thread 0's success clears only its own reason (thread 1: \"%s\", thread 2: \"%s\")", res[1].seen[1],
       res[2].seen[1]);
    all = 1;
    for (t = 0; t < NT; t++) all = all && res[t].after_destroy && tu_mentions(res[t].seen[2], reason_word[t]);
    ok(all, "threads carry on after a context holding their reasons is destroyed, and end holding reasons");
    ok(wr_context_error(other)[0] == '\0', "the main thread sees none of the ended threads' reasons");
    wr_context_destroy(other);
    wr_context_destroy(shared);
    ok(1, "contexts destroyed after the threads that had reasons in them ended (no crash; leaks: sanitizer build)");
}

int main(void)
{
    unsetenv("WARPRED_BACKEND");
    plan(10 + 2 + 1 + NT + 4);
    one_thread();
    many_contexts();
    three_threads();
    return 0;
}

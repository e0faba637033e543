/*
 * error.c -- the failure reason of each (thread, context) pair.
 *
 * wr_context_error(ctx) is the reason for the calling thread's last call on
 * ctx, whatever the thread did with other contexts since, and whatever other
 * threads did with ctx.  So a context keeps a list of reasons, one for each
 * thread whose last call on it failed (a thread is named by a number given
 * out once per thread, never reused).  A success removes the thread's entry;
 * that costs nothing in the common case: each thread also keeps the short
 * list of contexts where it has an entry, and a context that is not on it
 * has nothing to remove.  Destroying a context frees its entries; a thread
 * that ends frees its entries in the contexts still alive.  Failures with a
 * NULL context (wr_context_create's) have a thread-local buffer of their own.
 */
#include <config.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wr_internal.h"

#define REASON_LEN (2 * WR_ERRLEN)
/* Contexts a thread remembers having an entry in; past that many it looks
 * in the context itself on every success (correct, just slower). */
#define THREAD_CTX_MAX 16

struct wri_reason {
    uint64_t thread;            /* the thread's number */
    struct wri_reason *next;
    char msg[REASON_LEN];
};

/* The calling thread's own bookkeeping. */
struct thread_errs {
    uint64_t id;                          /* 0 until the thread first fails */
    int n, overflow;                      /* entries in ctx[]; more than fit */
    const wr_context *ctx[THREAD_CTX_MAX];
    char null_msg[REASON_LEN];            /* the NULL context's reason ("" if none) */
};
static _Thread_local struct thread_errs tl;

static uint64_t next_thread_id = 1;                   /* atomic */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static wr_context *live_head;                         /* contexts not yet destroyed */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *arg);
static void make_exit_key(void)
{
    (void)pthread_key_create(&exit_key, thread_exit);
}

/* The reason entry of thread id in c (c->reasons_mu held), and the link that
 * points at it. */
static struct wri_reason **find(wr_context *c, uint64_t id)
{
    struct wri_reason **p;
    for (p = &c->reasons; *p != NULL; p = &(*p)->next)
        if ((*p)->thread == id) return p;
    return NULL;
}

static void forget_ctx(const wr_context *c)
{
    int i;
    for (i = 0; i < tl.n; i++)
        if (tl.ctx[i] == c) {
            tl.ctx[i] = tl.ctx[--tl.n];
            return;
        }
}

/* Remove the calling thread's entry from c, if it has one. */
static void drop(wr_context *c)
{
    struct wri_reason **p, *r = NULL;
    pthread_mutex_lock(&c->reasons_mu);
    if ((p = find(c, tl.id)) != NULL) {
        r = *p;
        *p = r->next;
    }
    pthread_mutex_unlock(&c->reasons_mu);
    free(r);
}

/* A thread ends: its entries in the contexts still alive go. */
static void thread_exit(void *arg)
{
    wr_context *c;
    (void)arg;
    pthread_mutex_lock(&live_mu);
    for (c = live_head; c != NULL; c = c->live_next)
        drop(c);
    pthread_mutex_unlock(&live_mu);
    tl.n = 0;
    tl.overflow = 0;
}

static void format(char *msg, const char *fmt, va_list ap)
{
    char *p;
    vsnprintf(msg, REASON_LEN, fmt, ap);
    for (p = msg; *p; p++)                 /* one line, always */
        if (*p == '\n' || *p == '\r') *p = ' ';
}

void wri_set_error(const wr_context *ctx, const char *fmt, ...)
{
    wr_context *c = (wr_context *)ctx;     /* the reasons are the context's mutable part */
    struct wri_reason **p, *r;
    char msg[REASON_LEN];
    va_list ap;

    va_start(ap, fmt);
    format(msg, fmt, ap);
    va_end(ap);
    if (c == NULL) {
        memcpy(tl.null_msg, msg, REASON_LEN);
        return;
    }
    if (tl.id == 0) {
        tl.id = __atomic_fetch_add(&next_thread_id, 1, __ATOMIC_RELAXED);
        pthread_once(&exit_once, make_exit_key);
        (void)pthread_setspecific(exit_key, &tl);   /* any non-NULL value: the destructor runs */
    }
    pthread_mutex_lock(&c->reasons_mu);
    p = find(c, tl.id);
    r = p ? *p : (struct wri_reason *)malloc(sizeof *r);
    if (r != NULL) {
        memcpy(r->msg, msg, REASON_LEN);
        if (p == NULL) {
            r->thread = tl.id;
            r->next = c->reasons;
            c->reasons = r;
        }
    }
    pthread_mutex_unlock(&c->reasons_mu);
    if (r != NULL && p == NULL) {
        forget_ctx(c);
        if (tl.n < THREAD_CTX_MAX) tl.ctx[tl.n++] = c;
        else tl.overflow = 1;
    }
}

void wri_clear_error(const wr_context *ctx)
{
    int i;
    if (ctx == NULL) {
        tl.null_msg[0] = '\0';
        return;
    }
    if (tl.overflow) {
        drop((wr_context *)ctx);
        forget_ctx(ctx);
        return;
    }
    for (i = 0; i < tl.n; i++)
        if (tl.ctx[i] == ctx) {
            drop((wr_context *)ctx);
            tl.ctx[i] = tl.ctx[--tl.n];
            return;
        }
}

const char *wr_context_error(const wr_context *ctx)
{
    wr_context *c = (wr_context *)ctx;
    struct wri_reason **p;
    const char *msg = "";
    if (c == NULL) return tl.null_msg;
    if (tl.id == 0) return "";
    pthread_mutex_lock(&c->reasons_mu);
    if ((p = find(c, tl.id)) != NULL) msg = (*p)->msg;   /* only this thread changes it */
    pthread_mutex_unlock(&c->reasons_mu);
    return msg;
}

void wr_context_set_error(const wr_context *ctx, const char *reason)
{
    if (reason == NULL || reason[0] == '\0')
        wri_clear_error(ctx);
    else
        wri_set_error(ctx, "%s", reason);
}

int wri_reasons_init(wr_context *c)
{
    if (pthread_mutex_init(&c->reasons_mu, NULL) != 0) return -1;
    c->reasons = NULL;
    pthread_mutex_lock(&live_mu);
    c->live_prev = NULL;
    c->live_next = live_head;
    if (live_head) live_head->live_prev = c;
    live_head = c;
    pthread_mutex_unlock(&live_mu);
    return 0;
}

void wri_reasons_destroy(wr_context *c)
{
    struct wri_reason *r, *next;
    pthread_mutex_lock(&live_mu);
    if (c->live_prev) c->live_prev->live_next = c->live_next;
    else live_head = c->live_next;
    if (c->live_next) c->live_next->live_prev = c->live_prev;
    pthread_mutex_unlock(&live_mu);
    for (r = c->reasons; r != NULL; r = next) {
        next = r->next;
        free(r);
    }
    c->reasons = NULL;
    forget_ctx(c);
    pthread_mutex_destroy(&c->reasons_mu);
}

/* tap.c -- see tap.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "tap.h"

static unsigned long tap_planned, tap_run, tap_failed;
static int tap_lazy;
/* checks may come from several threads */
static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;

static void tap_finish(void)
{
    if (tap_lazy)
        printf("1..%lu\n", tap_run);
    else if (tap_planned != tap_run)
        printf("# planned %lu checks but ran %lu\n", tap_planned, tap_run);
    fflush(stdout);
}

void plan(unsigned long n)
{
    tap_planned = n;
    printf("1..%lu\n", n);
    fflush(stdout);
    atexit(tap_finish);
}

void plan_lazy(void)
{
    tap_lazy = 1;
    atexit(tap_finish);
}

static void vskip_plan(const char *fmt, va_list ap)
{
    /* the skip plan is the only plan: a lazy plan registered earlier must not
     * print a second one at exit (tap-driver: "multiple test plans") */
    tap_lazy = 0;
    tap_planned = tap_run;
    printf("1..0 # SKIP ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
}

void skip_plan(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vskip_plan(fmt, ap);
    va_end(ap);
}

void skip_all(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vskip_plan(fmt, ap);
    va_end(ap);
    exit(0);
}

static int vok(int success, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&tap_lock);
    tap_run++;
    if (!success) tap_failed++;
    printf("%sok %lu", success ? "" : "not ", tap_run);
    if (fmt && *fmt) {
        printf(" - ");
        vprintf(fmt, ap);
    }
    printf("\n");
    fflush(stdout);
    pthread_mutex_unlock(&tap_lock);
    return success;
}

int ok(int success, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vok(success, fmt, ap);
    va_end(ap);
    return success;
}

void skip_block(unsigned long n, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&tap_lock);
    while (n-- > 0)
        printf("ok %lu # skip %s\n", ++tap_run, why);
    fflush(stdout);
    pthread_mutex_unlock(&tap_lock);
}

void diag(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&tap_lock);
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    pthread_mutex_unlock(&tap_lock);
}

void bail(const char *fmt, ...)
{
    va_list ap;
    printf("Bail out! ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(255);
}

int is_int(long long want, long long got, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vok(want == got, fmt, ap);
    va_end(ap);
    if (!r) diag("    wanted: %lld\n#        got: %lld", want, got);
    return r;
}

int is_uint(unsigned long long want, unsigned long long got, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vok(want == got, fmt, ap);
    va_end(ap);
    if (!r) diag("    wanted: %llu\n#        got: %llu", want, got);
    return r;
}

int is_string(const char *want, const char *got, const char *fmt, ...)
{
    va_list ap;
    int same = (want == NULL && got == NULL) || (want && got && strcmp(want, got) == 0);
    va_start(ap, fmt);
    vok(same, fmt, ap);
    va_end(ap);
    if (!same) diag("    wanted: %s\n#        got: %s", want ? want : "(null)", got ? got : "(null)");
    return same;
}

unsigned long tap_failures(void)
{
    return tap_failed;
}

/*
 * tap.h -- a small TAP producer for libwarpred's tests, in the spirit of
 * C TAP Harness (tests/tap/basic.h): decide whether to run before plan(),
 * then one ok() per check, diag() for detail.  Output goes to stdout.
 */
#ifndef WR_TAP_H
#define WR_TAP_H

#include <stddef.h>

#if defined(__GNUC__)
#  define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#  define TAP_NORETURN __attribute__((noreturn))
#else
#  define TAP_PRINTF(f, a)
#  define TAP_NORETURN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Announce n checks.  plan_lazy(): print the plan at exit instead. */
void plan(unsigned long n);
void plan_lazy(void);
/* Print "1..0 # SKIP reason" and exit 0. */
void skip_all(const char *fmt, ...) TAP_PRINTF(1, 2) TAP_NORETURN;
/* The same plan without exiting, for a program that must shut down first
 * (MPI_Finalize): it is the only plan, also after plan_lazy(). */
void skip_plan(const char *fmt, ...) TAP_PRINTF(1, 2);
/* One check; returns success so callers can add diagnostics. */
int ok(int success, const char *fmt, ...) TAP_PRINTF(2, 3);
/* "ok N # skip reason" for n checks. */
void skip_block(unsigned long n, const char *fmt, ...) TAP_PRINTF(2, 3);
/* Comment line "# ..." (on stdout; tap-driver shows it in the log). */
void diag(const char *fmt, ...) TAP_PRINTF(1, 2);
/* Abort the whole test with "Bail out!". */
void bail(const char *fmt, ...) TAP_PRINTF(1, 2) TAP_NORETURN;
/* Checks that compare, with a diagnostic on failure. */
int is_int(long long want, long long got, const char *fmt, ...) TAP_PRINTF(3, 4);
int is_uint(unsigned long long want, unsigned long long got, const char *fmt, ...) TAP_PRINTF(3, 4);
int is_string(const char *want, const char *got, const char *fmt, ...) TAP_PRINTF(3, 4);
/* Number of failed checks so far. */
unsigned long tap_failures(void);

#ifdef __cplusplus
}
#endif

#endif

/*
 * cpu_exact.h -- the cpu backend's reproducible float/double SUM
 * (cpu_exact.c; not installed).
 */
#ifndef WR_CPU_EXACT_H
#define WR_CPU_EXACT_H

#include <stddef.h>
#include "wr_backend.h"
#include "wr_exact.h"

/* *out = the exact sum of in[0..count) (WR_FLOAT or WR_DOUBLE), with a team
 * of threads when par and count is large enough. */
void wrcpu_exact_sum(const void *in, size_t count, wr_type t, int par, wrx_acc *out);
/* The correctly rounded sums of wr_reduce, wr_reduce_rows and
 * wr_reduce_segments (arguments as the backend ops get them). */
wr_status wrcpu_exact_reduce(const void *in, void *out, size_t count, wr_type t);
wr_status wrcpu_exact_rows(const void *in, void *out, size_t rows, size_t cols, wr_type t);
wr_status wrcpu_exact_segments(const void *in, void *out, size_t nseg, const size_t *off, wr_type t);
/* The reproducible scan (exclusive != 0: exscan) of count >= 1 elements,
 * every output the exact prefix rounded once, starting from the exact sum
 * *carry of what comes before in[0] (NULL: nothing). */
wr_status wrcpu_exact_scan(const void *in, void *out, size_t count, wr_type t, int exclusive,
                           const wrx_acc *carry, char *err);

/* Scans inside the nseg segments of off (cpu_segscan.c): exact selects the
 * reproducible scan (float/double SUM). */
wr_status wrcpu_scan_segments(const void *in, void *out, size_t nseg, const size_t *off, wr_type type, wr_op op,
                              int exclusive, int exact, char *err);

#endif /* WR_CPU_EXACT_H */

/* bench_omp.h -- warpred-bench's omptarget table (bench_omp.c, compiled by
 * the offloading compiler; present when the omptarget plugin is built). */
#ifndef WR_BENCH_OMP_H
#define WR_BENCH_OMP_H

#include <stddef.h>
#include "warpred.h"

struct bomp_opts {
    const size_t *sizes;       /* element counts of the reduce and scan rows */
    int nsizes;
    int reps, warmup;
    int check;                 /* verify every result against the host reference */
};

/* Emit the omptarget rows and the targets summary (bench_emit / bench_note);
 * cuda: a CUDA context for the hybrid rows, or NULL.  Returns the number of
 * failed libwarpred calls or checks. */
int bomp_table(const struct bomp_opts *o, wr_context *cuda);

#endif /* WR_BENCH_OMP_H */

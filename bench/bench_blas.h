/*
 * bench_blas.h -- warpred-bench's dot product and norm rows (bench_blas.c).
 */
#ifndef WR_BENCH_BLAS_H
#define WR_BENCH_BLAS_H

#include <stddef.h>

enum { BB_DOT, BB_NRM2, BB_ASUM, BB_IAMAX, BB_DOTROWS, BB_NFUNCS };

/* The BB_* bits of the names in the comma list `list`; the other names go
 * to rest (restlen bytes), comma-separated. */
unsigned bench_blas_parse(const char *list, char *rest, size_t restlen);
/* Time funcs (BB_* bits) for the float types in types (1 << WR_FLOAT,
 * 1 << WR_DOUBLE), sizes, cols (dot_rows), fmodes (1 fast, 2
 * reproducible), beside OpenBLAS when refs; prints one table. */
void bench_blas(unsigned funcs, unsigned types, const size_t *sizes, int nsizes, const size_t *cols, int ncols,
                int fmodes, int refs, int reps, int warmup);

#endif

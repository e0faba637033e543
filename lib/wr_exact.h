/*
 * wr_exact.h -- exact float/double sums: one accumulator, one rounding
 * (internal; usable from C, C++, CUDA device code and OpenMP target
 * regions).
 *
 * Reproducible mode (WR_FLOAT_REPRODUCIBLE) defines a float or double SUM as
 * the exact sum of the elements, rounded once to nearest-even.  Every backend
 * computes that exact sum and rounds it with the code of this header, so the
 * bits agree across backends, thread counts, devices and rank counts by
 * construction: a correctly rounded result is unique.
 *
 * Three headers, each on the one before:
 *
 *   wr_exact_acc.h    the accumulator (wrx_acc) and the rounding;
 *   wr_exact_front.h  the verified front end: a double, or a double pair,
 *                     whose every addition is checked exact, and its
 *                     rounding (the same steps in every backend);
 *   wr_exact_scan.h   a scan's state (struct wrx_scan): a correctly
 *                     rounded prefix at every element.
 */
#ifndef WR_EXACT_H
#define WR_EXACT_H

#include "wr_exact_scan.h"

#endif /* WR_EXACT_H */

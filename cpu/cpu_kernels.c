/*
 * cpu_kernels.c -- the entry points of one variant of the kernels, as the
 * table cpu_isa.c chooses from (compiled once per variant, like the kernel
 * files: the names below carry the variant's suffix, see cpu_internal.h).
 */
#include <config.h>
#include "cpu_internal.h"

const struct wrcpu_kernels wrcpu_kernels = {
    .reduce = wrcpu_reduce,
    .reduce_rows = wrcpu_reduce_rows,
    .reduce_segments = wrcpu_reduce_segments,
    .argext = wrcpu_argext,
    .scan = wrcpu_scan,
    .blas = wrcpu_blas,
};

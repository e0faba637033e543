/*
 * dot.cuh -- dot products, norms, sums of magnitudes and argmax |x| in fast
 * mode (cuda/dot.cu, cuda/reduce.cu; not installed).  Launchers in the
 * shape of backend.cuh's: each enqueues on S.st, takes device-accessible
 * pointers and the done word of the call's last launch.  The reproducible
 * forms are in exact.cuh.
 *
 * The order of every fast sum is a function of the count alone (dot.cu):
 * n elements are cut into tiles of blas_tile() elements, each summed in a
 * fixed order, and the tiles' sums folded in a fixed order, so that a
 * staged array whose chunks are whole tiles gives the bits of the same
 * array in device memory, and a row of wr_dot_rows the bits of wr_dot.
 */
#ifndef WRCUDA_DOT_CUH
#define WRCUDA_DOT_CUH

#include "backend.cuh"

namespace wrcuda {

enum blas_op { BLAS_DOT, BLAS_ASUM, BLAS_NRM2 };

/* Elements a tile of the fast sum of n elements (a multiple of 4096). */
size_t blas_tile(blas_op op, wr_type t, size_t n);
/* The tiles of x[0 .. len) (and y, for dot; y may be x) of `tile` elements
 * (len >= 1), their sums into the strand's partials from tbase on.  With
 * fold, then the partials [0, ntot) folded, merged after *carry (a state
 * in a slot, or NULL) into *acc_out (a slot, or NULL; may be carry) and/or
 * the result, one element of t, into *dst (or NULL; may be mapped host
 * memory).  The partials of a call's earlier launches (tbase > 0) must be
 * ordered before the folding one on the strand's stream. */
wr_status launch_blas(strand &S, blas_op op, const void *x, const void *y, size_t len, wr_type t, size_t tile,
                      size_t tbase, size_t ntot, bool fold, void *acc_out, void *dst, const void *carry, done_sig ds,
                      char *err);
/* out[r] = the dot product of row r of x and of y (rows >= 1, cols >= 1),
 * each the bits launch_blas gives that row alone. */
wr_status launch_dot_rows(strand &S, const void *x, const void *y, void *out, size_t rows, size_t cols, wr_type t,
                          done_sig ds, char *err);
/* launch_argext (backend.cuh) for the first largest |in[i]| (float/double;
 * a NaN is larger than anything, the first one wins), the pair's value
 * in[index] itself. */
wr_status launch_iamax(strand &S, const void *in, size_t n, wr_type t, size_t base, void *dst, const void *carry,
                       size_t *index_out, void *value_out, done_sig ds, char *err);

const void *probe_dot();

} /* namespace wrcuda */

#endif /* WRCUDA_DOT_CUH */

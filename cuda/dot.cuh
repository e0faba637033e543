/*
 * dot.cuh -- dot products, norms, sums of magnitudes and argmax |x| in fast
 * mode (cuda/dot.cu, cuda/reduce.cu; not installed).  Launchers in the
 * shape of backend.cuh's: each enqueues on S.st, takes device-accessible
 * pointers and the done word of the call's last launch.  The reproducible
 * forms are in exact.cuh.
 *
 * The linear ones (n >= 1 elements, t WR_FLOAT or WR_DOUBLE) chain staged
 * chunks through a state kept in a slot (kSlotBytes): carry (the state of
 * the chunks before, or NULL) is merged in first, acc_out (if not NULL; may
 * be carry) receives the state after this chunk, dst (if not NULL; may be
 * mapped host memory) the result, one element of type t.
 */
#ifndef WRCUDA_DOT_CUH
#define WRCUDA_DOT_CUH

#include "backend.cuh"

namespace wrcuda {

/* x[0]*y[0] + ... (y may be x). */
wr_status launch_dot(strand &S, const void *x, const void *y, size_t n, wr_type t, void *acc_out, void *dst,
                     const void *carry, done_sig ds, char *err);
/* |x[0]| + ... */
wr_status launch_asum(strand &S, const void *x, size_t n, wr_type t, void *acc_out, void *dst, const void *carry,
                      done_sig ds, char *err);
/* sqrt(x[0]^2 + ...) without intermediate overflow or underflow. */
wr_status launch_nrm2(strand &S, const void *x, size_t n, wr_type t, void *acc_out, void *dst, const void *carry,
                      done_sig ds, char *err);
/* out[r] = dot product of row r of x and of y (rows >= 1, cols >= 1). */
wr_status launch_dot_rows(strand &S, const void *x, const void *y, void *out, size_t rows, size_t cols, wr_type t,
                          done_sig ds, char *err);
/* launch_argext (backend.cuh) for the first largest |in[i]| (float/double;
 * a NaN is larger than anything, the first one wins), the pair's value
 * in[index] itself. */
wr_status launch_iamax(strand &S, const void *in, size_t n, wr_type t, size_t base, void *dst, const void *carry,
                       size_t *index_out, void *value_out, done_sig ds, char *err);

/* Grid of the one-launch passes (reduce.cu): enough blocks of kThreads to
 * fill the device, at most kMaxGrid (chained: no thread chains more than
 * ~256 vectors). */
unsigned reduce_grid(size_t n, size_t elem, int sms, int per_sm, bool chained);

const void *probe_dot();

} /* namespace wrcuda */

#endif /* WRCUDA_DOT_CUH */

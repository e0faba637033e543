/*
 * exact.cuh -- reproducible float/double SUM on the device (cuda/exact.cu;
 * not installed).
 *
 * Launchers in the shape of backend.cuh's: each enqueues on L.st, takes device-
 * accessible pointers and the done word of the call's last launch.  What
 * they use of the rest of the plugin: struct strand (st, sms, segctr and its
 * capacity, xs and its capacity), grow(), blocks_per_sm(), team_walk(),
 * last_arrival(), grid_done(), done_sig and the WRCUDA_* macros
 * (backend.cuh, kernel_common.cuh).
 *
 * Exact accumulators (lib/wr_exact.h's struct wrx_acc, kAccBytes) travel
 * between launches in device memory: a staged call carries one from chunk
 * to chunk in a carry slot (exact_carry()), never a rounded value.
 */
#ifndef WRCUDA_EXACT_CUH
#define WRCUDA_EXACT_CUH

#include "backend.cuh"
#include "kernel_common.cuh"
#include "wr_exact.h"

namespace wrcuda {

constexpr size_t kAccBytes = sizeof(wrx_acc);

/* Make the strand's scratch for exact sums (once; kept zero between calls
 * where the kernels need it). */
wr_status exact_scratch(strand &L, char *err);
/* The reproducible scans' accumulators, at their largest (a strand that may
 * not grow: a stream's). */
wr_status reserve_exact_scan(strand &L, char *err);
/* Carry slot i (0 or 1) of the strand's scratch: a device wrx_acc. */
void *exact_carry(strand &L, int i);

/* The exact sum of in[0..n) (n >= 1, t WR_FLOAT or WR_DOUBLE), plus *carry
 * when carry is not NULL: written as a wrx_acc to acc_out when that is not
 * NULL (it may be carry), and correctly rounded to one element of type t at
 * dst when that is not NULL (dst may be mapped host memory). */
wr_status launch_exact_reduce(strand &L, const void *in, size_t n, wr_type t, const void *carry,
                              void *acc_out, void *dst, done_sig ds, char *err);

/* out[s] = the correctly rounded sum of segment s of nseg (+0 when empty),
 * segments as launch_segments (backend.cuh) takes them: in[begin(s) ..
 * begin(s+1)) with begin(s) = off[s] - off_base, or s * cols when off is
 * NULL.  For a staged chunk: carry_in (if not NULL) is added to segment 0;
 * with carry_out not NULL, segment nseg-1's sum goes there as a wrx_acc and
 * out[nseg-1] is not written. */
wr_status launch_exact_segments(strand &L, const void *in, void *out, size_t nseg, const size_t *off,
                                size_t off_base, size_t cols, double avg_len, wr_type t,
                                const void *carry_in, void *carry_out, done_sig ds, char *err);

/* The reproducible inclusive (exclusive == 0) or exclusive scan of in[0..n)
 * (n >= 1, t WR_FLOAT or WR_DOUBLE) into out (out == in allowed): out[i] is
 * the exact sum of the prefix before in[0] and of in[0..i] (exclusive:
 * in[0..i)), rounded once as wr_exact.h's struct wrx_scan rounds it -- the
 * cpu backend's bits.  The prefix before in[0] is *carry_in (a normalised
 * device wrx_acc) when that is not NULL, else carry0 (normalised; by value).
 * With carry_out not NULL (a device wrx_acc, may be carry_in), the prefix
 * after in[n-1] is written there, normalised. */
wr_status launch_exact_scan(strand &L, const void *in, void *out, size_t n, wr_type t, int exclusive,
                            const void *carry_in, const wrx_acc &carry0, void *carry_out, done_sig ds, char *err);

/* The reproducible scans inside segments: launch_segscan's arguments
 * (backend.cuh) for t WR_FLOAT or WR_DOUBLE, every output the exact sum of
 * its segment's elements up to it (exclusive: before it; +0 at an offset)
 * rounded once -- the cpu backend's bits.  carry_in (a normalised device
 * wrx_acc, or NULL: nothing) is the running sum before element base;
 * carry_out (may be carry_in) receives the running sum after the last
 * element, normalised. */
wr_status launch_exact_segscan(strand &L, const void *in, void *out, size_t n, const size_t *off, size_t nseg,
                               size_t base, wr_type t, int exclusive, const void *carry_in, void *carry_out,
                               done_sig ds, char *err);
/* ---- dot products and norms (reproducible mode; dot.cuh has the fast ones) ---- */

/* The exact dot product of x[0..n) and y[0..n) (n >= 1; y may be x), each
 * product split exactly (double data: hi = x*y, lo = fma(x, y, -hi); float
 * data: the product in double, which is exact), with carry and acc_out as
 * launch_exact_reduce's, correctly rounded to one element of type t at dst.
 * A product that overflows counts as the infinity it rounds to. */
wr_status launch_exact_dot(strand &L, const void *x, const void *y, size_t n, wr_type t, const void *carry,
                           void *acc_out, void *dst, done_sig ds, char *err);
/* The exact sum of |x[i]|, as launch_exact_reduce. */
wr_status launch_exact_asum(strand &L, const void *x, size_t n, wr_type t, const void *carry, void *acc_out,
                            void *dst, done_sig ds, char *err);
/* out[r] = the exact dot product of row r of x and of y (rows >= 1 rows of
 * cols >= 1 elements, device-accessible), rounded once. */
wr_status launch_exact_dot_rows(strand &L, const void *x, const void *y, void *out, size_t rows, size_t cols,
                                wr_type t, done_sig ds, char *err);

/*
 * The reproducible norm (lib/wr_exact_norm.h): sqrt(S) rounded once, S the
 * exact sum of squares kept as three exact sums by the elements' magnitude
 * (parts 0, 1, 2; float data: part 1 only), in the strand's scratch
 * (norm_parts(), 3 wrx_acc).  launch_exact_nrm2 sums part `part` of
 * x[0..n) (n >= 1) after *carry (if not NULL) into *acc_out (a wrx_acc,
 * normalised; may be carry), as launch_exact_reduce's chunks do; the pass
 * of part 1 also notes there whether an element belongs to another part.
 * gated (parts 0 and 2): do nothing unless norm_parts()[1], written by the
 * whole part-1 pass before, noted one -- so a call queued on a stream runs
 * all three passes and needs no host decision.  launch_norm_round: *dst
 * (one element of t; may be mapped host memory) = sqrt of the sum of
 * norm_parts() (parts 0 and 2 counted only where part 1 noted them),
 * rounded once: the cpu backend's bits.
 */
constexpr size_t kNormCtlBytes = 3 * kAccBytes;
wrx_acc *norm_parts(strand &L);              /* exact_scratch first */
wr_status launch_exact_nrm2(strand &L, const void *x, size_t n, wr_type t, int part, int gated, const void *carry,
                            void *acc_out, char *err);
wr_status launch_norm_round(strand &L, wr_type t, void *dst, done_sig ds, char *err);

} /* namespace wrcuda */

#endif /* WRCUDA_EXACT_CUH */

/*
 * warpred_mpi.h -- libwarpred_mpi: reductions and prefix scans over arrays
 * distributed across the ranks of an MPI communicator.
 *
 * Each rank holds one piece of a global array; the global array is the
 * concatenation of the pieces in rank order.  Every function is collective
 * over comm: all its ranks call it, in the same order as their other
 * collectives on comm, with the same type and op (count may differ, and may be
 * 0).  The local work runs on ctx's backend through the ordinary wr_* calls,
 * so a rank's buffers may be anything ctx can reach (host memory everywhere;
 * device or managed memory with a cuda context); the ranks then exchange one
 * element each (MPI_Allreduce / MPI_Exscan with libwarpred's own MPI_Op).
 *
 * Semantics are those of warpred.h applied to the global array: identities,
 * wrapping integer SUM/PROD, IEEE 754-2019 minimum/maximum for float MIN/MAX,
 * the first-index and NaN rules of argmin/argmax.  Integer results (and every
 * MIN/MAX/bitwise result) are bit-identical to one process computing the whole
 * array.  Float SUM/PROD are combined across ranks in rank order, so for a
 * fixed number of ranks the bits are the same on every run and on every rank.
 *
 * Statuses (besides those of the local wr_* calls, which pass through):
 *   WR_ERR_INVALID_ARG  a bad argument on this rank (NULL ctx/buffer, bad enum,
 *                       overlap, comm is MPI_COMM_NULL or an intercommunicator,
 *                       MPI not initialized or already finalized), or the
 *                       ranks disagree on type or op;
 *   WR_ERR_DEVICE       an MPI call failed; wr_context_error(ctx) names the MPI
 *                       function and gives MPI_Error_string's text.
 * A rank that fails before the exchange does not leave the others waiting:
 * each call first agrees on a status across comm, and when rank r failed the
 * other ranks return r's status with the reason "rank r failed: ...".
 * (Exceptions: MPI_COMM_NULL, an intercommunicator or an uninitialised MPI
 * are detected without communicating; a failure that happens on one rank only
 * after the exchange -- writing its own output -- is reported by that rank
 * only, and the others' results are complete and correct.)
 * As in warpred.h, wr_context_error(ctx) gives the calling thread's reason
 * ("" after a success), also when ctx is NULL.
 * With a stream set on ctx (wr_context_set_stream), the local calls are
 * ordered on it, and each function waits for the context's work
 * (wr_context_synchronize) before it communicates and before it returns:
 * its results are complete on return, and a failure of queued work is this
 * rank's failure.  Do not call them while the stream is being captured.
 *
 * MPI use: the library duplicates comm once (cached on comm as an attribute,
 * freed with comm or at MPI_Finalize) and sets MPI_ERRORS_RETURN on the
 * duplicate, so its traffic never mixes with the caller's and MPI errors come
 * back as statuses.  The first call on a comm therefore calls MPI_Comm_dup
 * (under comm's own error handler).  Calls from several threads need
 * MPI_THREAD_MULTIPLE, and concurrent calls must use different comms.
 * Ranks must share one data representation (a homogeneous cluster).
 */
#ifndef WARPRED_MPI_H
#define WARPRED_MPI_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include <warpred.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WR_BUILDING_MPI) && defined(__GNUC__)
#  define WR_MPI_API __attribute__((visibility("default")))
#else
#  define WR_MPI_API
#endif

/*
 * wr_mpi_allreduce -- reduce the global array to one element, on every rank.
 *
 *   ctx    context whose backend reduces this rank's piece
 *   in     this rank's count elements of type (may be NULL if count == 0)
 *   out    one element of type: the reduction of the whole global array, or
 *          the identity of op if every rank has 0 elements; the same bits on
 *          every rank.  Must not overlap in.
 *   count  elements on this rank (may be 0; may differ between ranks)
 *   type, op  as in wr_reduce; the same on every rank
 *   comm   an intracommunicator
 *
 * The rank's piece is reduced with wr_reduce (its accuracy bound holds per
 * rank); the P partial results are then combined across ranks in rank order,
 * adding at most ceil(log2 P) (tree) to P-1 (chain) further roundings for
 * float SUM/PROD, as the MPI library associates them.
 * Reproducible mode (ctx in WR_FLOAT_REPRODUCIBLE, float or double SUM):
 * each rank makes the exact sum of its piece (wr_reduce_exact), the ranks
 * merge these exact sums, and the result is the exact sum of the global
 * array rounded once (wr_exact_sum_round): the same bits for any number of
 * ranks, any split of the array (empty pieces too) and any backend, equal to
 * one process's reproducible wr_reduce.  Every rank must then be in that
 * mode: ranks in different float modes get WR_ERR_INVALID_ARG.
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG, WR_ERR_UNSUPPORTED (bitwise op on a
 * float type), WR_ERR_DEVICE, or a status of the local wr_reduce.
 * out is untouched when the call fails on any rank.
 */
WR_MPI_API wr_status wr_mpi_allreduce(wr_context *ctx, const void *in, void *out, size_t count,
                                      wr_type type, wr_op op, MPI_Comm comm);

/*
 * wr_mpi_scan -- inclusive prefix over the global array.
 *
 *   in, out  this rank's count elements; out[i] receives the reduction of
 *            every element of lower ranks and in[0..i] of this rank.
 *            out == in (in place) is allowed; any other overlap is not.
 *   count, type, op, comm  as in wr_mpi_allreduce
 *
 * How: a local scan, MPI_Exscan of the ranks' totals to get each rank's base
 * (rank 0, and any rank whose lower ranks are all empty, has none: MPI leaves
 * rank 0's result undefined, so it is set explicitly), then the base combined
 * into every local output.  The base is carried as one value: for float SUM an
 * output is fl(base + local prefix), adding one rounding to the local scan's
 * error.  With a context that can run on cuda (whose buffers may be device
 * memory the host cannot touch), the base is instead folded into the first
 * element -- out = local scan of (base op in[0], in[1], ...) -- through public
 * wr_* calls only; integers and MIN/MAX are the same bits either way, float
 * SUM/PROD then carry the base through the backend's scan like one more
 * leading element, within the same bound as a single-process scan.
 * Returns as wr_mpi_allreduce, or a status of the local wr_scan.  When another
 * rank fails, out may already hold this rank's local scan.
 */
WR_MPI_API wr_status wr_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count,
                                 wr_type type, wr_op op, MPI_Comm comm);

/*
 * wr_mpi_exscan -- exclusive prefix over the global array: out[i] receives the
 * reduction of every element before in[i] in the global array (the identity
 * for the global array's first element).  Arguments, method and statuses as
 * wr_mpi_scan.
 */
WR_MPI_API wr_status wr_mpi_exscan(wr_context *ctx, const void *in, void *out, size_t count,
                                   wr_type type, wr_op op, MPI_Comm comm);

/*
 * wr_mpi_argmin / wr_mpi_argmax -- position of the global minimum (maximum).
 *
 *   in      this rank's count elements of type
 *   count   elements on this rank; a rank with 0 elements takes no part in
 *           the choice
 *   type    any wr_type, the same on every rank
 *   index   receives the global index (elements of lower ranks + local index)
 *           of the first element holding the extreme value, or, if the global
 *           array holds a NaN, of the first NaN; the same on every rank.
 *           -0.0 and +0.0 count as equal (the first one wins).
 *   value   receives that element (may be NULL); one element of type
 *   comm    an intracommunicator
 *
 * Returns WR_SUCCESS, WR_ERR_EMPTY (on every rank) when all ranks have 0
 * elements, WR_ERR_INVALID_ARG (index NULL, value overlapping in, ...),
 * WR_ERR_DEVICE, or a status of the local wr_argmin/wr_argmax.  index and value
 * are untouched when the call fails on any rank.
 */
WR_MPI_API wr_status wr_mpi_argmin(wr_context *ctx, const void *in, size_t count, wr_type type,
                                   uint64_t *index, void *value, MPI_Comm comm);
WR_MPI_API wr_status wr_mpi_argmax(wr_context *ctx, const void *in, size_t count, wr_type type,
                                   uint64_t *index, void *value, MPI_Comm comm);

/*
 * wr_mpi_dot, wr_mpi_nrm2, wr_mpi_asum (since 0.2) -- the dot product of
 * two distributed vectors, the Euclidean norm and the sum of magnitudes of
 * one, on every rank.
 *
 *   x, y   this rank's count elements of each vector (WR_FLOAT or
 *          WR_DOUBLE; the same type on every rank); x and y may be the
 *          same array
 *   out    one element: the global value, the same bits on every rank;
 *          must not overlap x or y
 *   count  elements on this rank (may be 0, may differ between ranks)
 *
 * Fast mode: the local wr_dot / wr_nrm2 / wr_asum (their bounds hold per
 * rank), combined across ranks in rank order: sums for dot and asum, each
 * adding one rounding per rank; for the norm the local norms are combined
 * pairwise as max * sqrt(1 + (min / max)^2) -- (scale, sum of squares)
 * pairs, never a squared norm -- so the global norm does not overflow or
 * underflow unless its value does (each combination within 3 u).  The bits
 * depend on the number of ranks and the split, not on the run.
 * Reproducible mode (ctx in WR_FLOAT_REPRODUCIBLE): each rank's exact
 * partial (wr_dot_exact, wr_asum_exact, wr_nrm2_exact), merged across the
 * ranks and rounded once: the bits of one process's reproducible wr_dot /
 * wr_nrm2 / wr_asum on the whole vector, for any number of ranks, any
 * split (empty pieces too) and any backend.  Every rank must then be in
 * that mode (WR_ERR_INVALID_ARG otherwise).  wr_mpi_nrm2 exchanges three
 * exact sums, and computes its local part in three passes.
 * Returns WR_SUCCESS, WR_ERR_INVALID_ARG, WR_ERR_UNSUPPORTED (an integer
 * type), WR_ERR_DEVICE, or a status of the local call; out is untouched
 * when the call fails on any rank.
 */
WR_MPI_API wr_status wr_mpi_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count,
                                wr_type type, MPI_Comm comm);
WR_MPI_API wr_status wr_mpi_nrm2(wr_context *ctx, const void *x, void *out, size_t count, wr_type type,
                                 MPI_Comm comm);
WR_MPI_API wr_status wr_mpi_asum(wr_context *ctx, const void *x, void *out, size_t count, wr_type type,
                                 MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* WARPRED_MPI_H */

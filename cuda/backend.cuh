/*
 * backend.cuh -- what the CUDA backend's source files share (not installed):
 * the per-call resources (struct strand), the end-of-call signal, the error
 * helpers, the kernel launchers and the (type, op) dispatch.
 *
 * The plugin is split by concern:
 *   plugin.cu     the ops table: open, close, describe, locate;
 *   arch.cu       which GPU code the device runs (the check at open);
 *   pool.cu       strands, their pool and the end of a call (done word);
 *   stream.cu     the context's stream; which strand a call takes;
 *   launch.cu     what every launcher uses: errors, scratch, occupancy;
 *   staging.cu    the pipelines that stream host memory through the device;
 *   ops.cu        the operations, on device memory or through staging;
 *   reduce.cu     reduce and argmin/argmax kernels;
 *   exact.cu      reproducible float sums (exact.cuh);
 *   scan.cu       the single-pass scan (scan_*.cuh: its parts);
 *   segments.cu   rows and segments kernels;
 *   segscan.cu    scans inside segments (segscan_kernel.cuh).
 * The kernel files export only "launchers": host functions that size a
 * grid, make sure the scratch they need exists and enqueue on the strand's
 * stream; of the other files they call launch.cu alone, so that calls go
 * one way (tests/cuda/call_graph.sh).  Device code they share is in
 * kernel_common.cuh.
 */
#ifndef WRCUDA_BACKEND_CUH
#define WRCUDA_BACKEND_CUH

#include <stddef.h>
#include <stdint.h>
#include <atomic>
#include <cuda_runtime.h>
#include "wr_backend.h"

namespace wrcuda {

constexpr int kThreads = 256;                 /* every kernel's block size (but the scan's) */
constexpr size_t kScanTileBytes = 32768;      /* scan tile: 8192 4-byte or 4096 8-byte elements */
constexpr int kUnroll = 4;                    /* 16-byte loads in flight per thread */
constexpr unsigned kMaxGrid = 32768;          /* reduce/argext blocks (partials capacity) */
constexpr size_t kSlotBytes = 32;             /* one result / carry slot */
constexpr int kSlots = 4;                     /* 0: result, 1-2: carries (ping-pong), 3: spare */
constexpr int kStagingBufs = 3;               /* staging buffers per strand */

/*
 * One call's resources: its streams and scratch, reused call after call.  A
 * context keeps a pool of strands; each call takes one (so threads sharing a
 * context run concurrently, each on its own streams) and gives it back.
 * ("Strand" as in Asio: work queued on it runs in order, and one call at a
 * time holds it.  "Lane" means a warp's lane only.)
 */
struct strand {
    int dev;                      /* the device (its primary context holds everything below) */
    int sms;                      /* multiprocessors of the device */
    cudaStream_t st;              /* kernels */
    cudaStream_t h2d, d2h;        /* staging copies (created with the staging buffers) */

    bool fixed;                   /* scratch made once and never grown: its calls may not allocate
                                   * (the stream strand, plugin.cuh) */
    unsigned *ctr;                /* 64 bytes: [0] last-block-done counter, [1] scan tickets, [2] scan
                                   * blocks done, [3] blocks done of a kernel that signals (all kept 0);
                                   * [4-5] the scan's launch count (epoch_word); [6-7] the first
                                   * decreasing offset a segments kernel found (bad_word) */
    unsigned char *slot;          /* kSlots slots of kSlotBytes: results and carries */
    void *part;                   /* per-block partials: kMaxGrid * 16 bytes */
    size_t part_cap;

    void *sblk;                   /* scan tile descriptors (scan_tile_state.cuh) */
    size_t scap;                  /* tiles they have room for */
    unsigned scan_blocks;         /* most resident blocks per scan (0: as many as fit) */
    bool scan_by_block;           /* scans run one block per tile (scan_block.cuh; arch.cu) */

    unsigned *segctr;             /* per-segment arrival counters (kept 0) */
    size_t segctr_cap;            /* entries */
    size_t *doff;                 /* host offsets copied to the device */
    size_t doff_cap;              /* bytes */
    void *xs;                     /* exact sums' accumulators (exact.cu; zeroed once, kept zero) */
    size_t xs_cap;                /* bytes */
    void *xscan;                  /* reproducible scans' tile and group accumulators (exact.cu) */
    size_t xscan_cap;             /* bytes */
    void *sscan;                  /* segmented scans: extent and tiles' first heads (segscan.cu) */
    size_t sscan_cap;             /* bytes */

    size_t sbytes;                /* bytes per staging buffer (0: not made yet) */
    size_t soff_n;                /* offsets per chunk buffer */
    void *sdev[kStagingBufs];     /* device staging: input chunk (scan output in place) */
    void *shost[kStagingBufs];    /* pinned staging for pageable buffers */
    size_t *soff_dev[kStagingBufs];   /* per-chunk segment offsets */
    size_t *soff_host[kStagingBufs];
    void *sres[kStagingBufs];     /* per-chunk segment results (device) */
    cudaEvent_t e_in[kStagingBufs], e_comp[kStagingBufs], e_out[kStagingBufs];
};

/* The scan's launch count on S's descriptors, a 64-bit word of S.ctr that
 * the scan kernel itself advances (scan_kernel.cuh): its epoch. */
inline unsigned long long *epoch_word(strand &S) { return (unsigned long long *)(S.ctr + 4); }
/* ~s for the least segment s whose offsets decrease, found by the segments
 * kernels that check their offsets (launch_segments_checked), or 0. */
inline unsigned long long *bad_word(strand &S) { return (unsigned long long *)(S.ctr + 6); }
/* 1 when a queued segmented scan found more tiles than the strand's
 * descriptors hold (launch_segscan_unchecked), or 0. */
inline unsigned long long *long_word(strand &S) { return (unsigned long long *)(S.ctr + 8); }

/*
 * The end of a call, told by its last kernel.  A call that returns complete
 * waits for its last kernel; cudaStreamSynchronize learns of the end only
 * after the kernel has retired and then wakes the host through the driver.
 * Instead, the block that finishes the kernel's work stores `seq` into
 * `word`, a word of mapped pinned host memory, and the host spins on it
 * (pool.cu, wait_call()): a small call returns 1-2 us sooner
 * (bench/tools/call_cost measures both waits).  The same wait behind a
 * cuStreamWriteValue32 gains nothing: that call costs about as much on the
 * host.  A launch that does not end a call gets kNoDone.
 */
struct done_sig {
    unsigned *word;               /* device alias of the mapped word, or NULL: nobody waits */
    unsigned seq;                 /* the value that says "done" (never 0) */
};
constexpr done_sig kNoDone = { nullptr, 0 };

/* ---- launch.cu ------------------------------------------------------------ */
/* err helpers: "call: CUDA error string"; out of memory is WR_ERR_NO_MEMORY. */
wr_status fail(char *err, const char *call, cudaError_t e);
/* Grow a device buffer to at least need bytes (contents not kept; zeroed if
 * zero).  A no-op in the steady state.  On failure *p is NULL and *cap 0. */
wr_status grow(strand &S, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err);
template <typename P>
wr_status grow(strand &S, P *&p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    void *v = p;
    wr_status st = grow(S, &v, cap, need, zero, what, err);
    p = (P *)v;
    return st;
}
/* Blocks of kThreads that fit on one multiprocessor of the current device
 * at once for kernel k. */
int blocks_per_sm(const void *kernel);
/* blocks_per_sm of one kernel, asked once per device: a process may hold
 * contexts on devices of several kinds.  A launcher keeps one, static, per
 * kernel it sizes grids for. */
class occupancy_cache {
public:
    int get(const strand &S, const void *kernel)
    {
        if (S.dev < 0 || S.dev >= kDevices) return blocks_per_sm(kernel);
        int n = per_dev_[S.dev].load(std::memory_order_relaxed);
        if (n == 0) {
            n = blocks_per_sm(kernel);
            per_dev_[S.dev].store(n, std::memory_order_relaxed);
        }
        return n;
    }

private:
    static constexpr int kDevices = 64;     /* devices beyond are asked every time */
    std::atomic<int> per_dev_[kDevices] = {};
};
/* Blocks of `threads` with dyn bytes of dynamic shared memory that fit on
 * one multiprocessor of S's device at once for kernel k (at least 1),
 * asked of the runtime once per (device, kernel, shape): a process may hold
 * contexts on devices of several kinds.  -1 on failure, with err set. */
int resident_blocks(strand &S, const void *kernel, int threads, size_t dyn, char *err);

/* ---- the check at open (arch.cu) ----------------------------------------- */
/* The driver picks machine code or PTX for each file of kernels (a module of
 * its own), so each such file gives arch.cu a kernel to probe. */
const void *probe_reduce();
const void *probe_segments();
const void *probe_exact();
const void *probe_scan();
const void *probe_segscan();
/* Whether scans can run the kernel of scan_kernel.cuh on the current device:
 * the scan's code (attributes fa, of probe_scan()) is for sm_80 or newer,
 * and a block's shared memory holds its stages.  If not, they run one
 * block per tile (scan_block.cuh). */
bool scan_stages_ok(const cudaFuncAttributes &fa);

#define WRCUDA_CK(fn, args)                                                    \
    do { cudaError_t e_ = fn args; if (e_ != cudaSuccess) return ::wrcuda::fail(err, #fn, e_); } while (0)
#define WRCUDA_CKLAUNCH(what)                                                  \
    do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) return ::wrcuda::fail(err, what, e_); } while (0)
#define WRCUDA_TRY(expr) do { wr_status s_ = (expr); if (s_ != WR_SUCCESS) return s_; } while (0)

/* ---- launchers (each enqueues on S.st; pointers are device-accessible) --- */
/* ds: the call's end is this launch's end (kNoDone if not). */

/* *dst = [*carry op] reduce(in[0..n)); n >= 1.  carry may be NULL, == dst, or
 * another slot (read before dst is written; dst may be mapped host memory). */
wr_status launch_reduce(strand &S, const void *in, size_t n, wr_type t, wr_op o,
                        void *dst, const void *carry, done_sig ds, char *err);
/* argmin/argmax of in[0..n) (n >= 1) as a pair {size_t index; T value} at
 * dst, indices offset by base; combined with the pair at carry if not NULL
 * (carry may be dst or another slot; dst may be mapped host memory).  Each
 * of dst, index_out and value_out may be NULL; the last two receive the
 * pair's index and value (device-accessible memory). */
wr_status launch_argext(strand &S, const void *in, size_t n, wr_type t, int is_max, size_t base,
                        void *dst, const void *carry, size_t *index_out, void *value_out, done_sig ds, char *err);
/* *dst = the bytes (4 or 8) at elem, read now, stored by a kernel. */
wr_status launch_store(strand &S, void *dst, const void *elem, size_t bytes, char *err);
/* Inclusive/exclusive scan of n >= 1 elements (out may equal in).  carry_in
 * (if not NULL) is the running prefix before in[0], in the carry type;
 * carry_out (if not NULL) receives the running prefix after in[n-1]. */
wr_status launch_scan(strand &S, const void *in, void *out, size_t n, wr_type t, wr_op o, int exclusive,
                      const void *carry_in, void *carry_out, done_sig ds, char *err);
/* Segment s of nseg: in[begin(s) .. begin(s+1)) with begin(s) = off[s] - off_base
 * (off a device-readable array of nseg+1 entries) or, with off == NULL,
 * s * cols (rows).  out[s] = its reduction (the identity if it is empty).
 * avg_len picks the mapping (a group of lanes, a block or several blocks per segment). */
wr_status launch_segments(strand &S, const void *in, void *out, size_t nseg, const size_t *off,
                          size_t off_base, size_t cols, double avg_len, wr_type t, wr_op o, done_sig ds,
                          char *err);
/* launch_segments over device-readable offsets that nobody has checked:
 * the mapping is chosen on the device from off[0] and off[nseg] exactly as
 * launch_segments chooses it from avg_len (the same bits); a segment whose
 * offsets decrease puts ~s into *bad_word(S) (the least s wins) and 1 into
 * *flag (mapped host memory, may be NULL), and gives the identity; no
 * element outside in[off[0] .. off[nseg]) is read. */
wr_status launch_segments_checked(strand &S, const void *in, void *out, size_t nseg, const size_t *off,
                                  unsigned *flag, wr_type t, wr_op o, done_sig ds, char *err);
/* Scratch that a strand whose calls may not allocate (fixed) needs made
 * beforehand: descriptors for scans of up to `bytes` of input (longer ones
 * run in pieces), and the counters of the segments kernels. */
wr_status reserve_scan(strand &S, size_t bytes, char *err);
wr_status reserve_segments(strand &S, char *err);
/* dst[0] = off[0], dst[1] = off[nseg], dst[2] = the least s < nseg with
 * off[s + 1] < off[s], or SIZE_MAX (dst may be mapped host memory). */
wr_status launch_check_offsets(strand &S, const size_t *off, size_t nseg, size_t *dst, char *err);
/* Scans inside segments (exclusive: exclusive) over the n >= 1 elements
 * [base, base + n) of the index space of off (nseg + 1 non-decreasing
 * device-readable offsets), in and out pointing at element base (out may
 * equal in): out[i] = the fold of the elements from the last offset <= i
 * on (exclusive: before i; the identity at an offset).  carry_in (if not
 * NULL) is the running value before element base, in the carry type;
 * carry_out (if not NULL) receives the running value after the last
 * element.  Float results depend on base's tiles alone: chunks that start
 * on tile boundaries give the bits of one launch. */
wr_status launch_segscan(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg,
                         size_t base, wr_type t, wr_op o, int exclusive, const void *carry_in, void *carry_out,
                         done_sig ds, char *err);
/* launch_segscan over offsets nobody has checked, in and out the caller's
 * (element 0 of the offsets' index space): the extent [off[0], off[nseg])
 * is read on the device, every pair of offsets checked; when one decreases
 * (~s into *bad_word(S), the least s wins, and 1 into *flag, mapped host
 * memory, may be NULL), or the extent needs more tiles than S's
 * descriptors hold (1 into *long_word(S) and *flag), nothing is written. */
wr_status launch_segscan_unchecked(strand &S, const void *in, void *out, const size_t *off, size_t nseg, wr_type t,
                                   wr_op o, int exclusive, unsigned *flag, done_sig ds, char *err);
/* The segmented scans' scratch on a strand that may not grow, for as many
 * tiles as its scan descriptors (after reserve_scan). */
wr_status reserve_segscan(strand &S, char *err);
/* Chunked segments: res[0] = *carry_in op res[0] if first_cont; then
 * *carry_out = res[m-1] if last_cont. */
wr_status launch_seg_fix(strand &S, void *res, size_t m, const void *carry_in, void *carry_out,
                         int first_cont, int last_cont, wr_type t, wr_op o, char *err);

/* ---- generic dispatch: F::run<O, T>(args...) for the (type, op) pair ----- */
template <class F, typename T, typename... A>
wr_status dispatch_int(wr_op o, A &&...a)
{
    switch (o) {
    case WR_SUM:  return F::template run<WR_SUM, T>(a...);
    case WR_PROD: return F::template run<WR_PROD, T>(a...);
    case WR_MIN:  return F::template run<WR_MIN, T>(a...);
    case WR_MAX:  return F::template run<WR_MAX, T>(a...);
    case WR_BAND: return F::template run<WR_BAND, T>(a...);
    case WR_BOR:  return F::template run<WR_BOR, T>(a...);
    case WR_BXOR: return F::template run<WR_BXOR, T>(a...);
    }
    return WR_ERR_UNSUPPORTED;
}
template <class F, typename T, typename... A>
wr_status dispatch_float(wr_op o, A &&...a)
{
    switch (o) {
    case WR_SUM:  return F::template run<WR_SUM, T>(a...);
    case WR_PROD: return F::template run<WR_PROD, T>(a...);
    case WR_MIN:  return F::template run<WR_MIN, T>(a...);
    case WR_MAX:  return F::template run<WR_MAX, T>(a...);
    default:      return WR_ERR_UNSUPPORTED;   /* lib/ never passes these */
    }
}
template <class F, typename... A>
wr_status dispatch(wr_type t, wr_op o, A &&...a)
{
    switch (t) {
    case WR_INT32:  return dispatch_int<F, int32_t>(o, a...);
    case WR_INT64:  return dispatch_int<F, int64_t>(o, a...);
    case WR_UINT32: return dispatch_int<F, uint32_t>(o, a...);
    case WR_UINT64: return dispatch_int<F, uint64_t>(o, a...);
    case WR_FLOAT:  return dispatch_float<F, float>(o, a...);
    case WR_DOUBLE: return dispatch_float<F, double>(o, a...);
    }
    return WR_ERR_UNSUPPORTED;
}
/* F::run<T>(args...) by type only (argmin/argmax). */
template <class F, typename... A>
wr_status dispatch_type(wr_type t, A &&...a)
{
    switch (t) {
    case WR_INT32:  return F::template run<int32_t>(a...);
    case WR_INT64:  return F::template run<int64_t>(a...);
    case WR_UINT32: return F::template run<uint32_t>(a...);
    case WR_UINT64: return F::template run<uint64_t>(a...);
    case WR_FLOAT:  return F::template run<float>(a...);
    case WR_DOUBLE: return F::template run<double>(a...);
    }
    return WR_ERR_UNSUPPORTED;
}

} /* namespace wrcuda */

#endif /* WRCUDA_BACKEND_CUH */

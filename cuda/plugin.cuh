/*
 * plugin.cuh -- what the host side of the CUDA plugin shares (not
 * installed): the context's state, the strands and their pool (pool.cu),
 * the context's stream and the start and end of a call (stream.cu), the
 * staging pipelines (staging.cu) and the operations
 * (ops.cu, dot_ops.cu) that plugin.cu's ops table points at.
 */
#ifndef WRCUDA_PLUGIN_CUH
#define WRCUDA_PLUGIN_CUH

#include <mutex>
#include <vector>
#include "backend.cuh"

namespace wrcuda {

/* A context's state, made by open() (plugin.cu). */
struct state {
    int dev;
    int sms;
    bool can_map;                /* the device can write mapped pinned host memory */
    bool spin;                   /* calls may spin on the strand's done word (pool.cu) */
    char desc[300];
    size_t stage_bytes;          /* per staging buffer */
    unsigned scan_blocks;        /* WARPRED_CUDA_SCAN_BLOCKS (0: as many as fit) */
    size_t scan_reserve;         /* bytes of scan input the stream strand's descriptors cover */
    bool scan_by_block;          /* scans run one block per tile (check_code) */
    std::mutex mu;
    std::vector<strand *> idle;  /* strands not in use */
    std::vector<strand *> all;

    /* The context's stream (stream.cu).  smu guards the three
     * below and is held by a call queued on the stream from its first
     * launch to its last. */
    std::mutex smu;
    cudaStream_t ustream = nullptr;     /* the caller's stream, or nullptr: the pool's own */
    strand *sstrand = nullptr;          /* the stream strand, made by the first set_stream */
    cudaEvent_t ev_switch = nullptr;    /* a new stream waits on it, recorded on the old */
    /* Set (to 1) by a queued segments kernel that found decreasing offsets:
     * mapped pinned memory in the stream strand's host area, or nullptr
     * where the device cannot map it. */
    unsigned *bad_flag = nullptr;
    unsigned *bad_flag_dev = nullptr;   /* its device alias, for the kernels */
};

/*
 * A strand as the host side sees it: the part the launchers use
 * (backend.cuh) plus the end of the call.
 *
 * Result delivery.  A reduce or argmin/argmax whose result goes to host
 * memory has its last kernel write the result straight into hres, a small
 * pinned host area mapped into the device's address space (zero-copy: the
 * store crosses PCIe as part of the kernel), and the end of the call copies
 * it to the caller with memcpy (give()).  A cudaMemcpyAsync from the device
 * to the caller's variable would be, for pageable memory, a staged,
 * synchronous copy: several microseconds of a small call.  Without mapping
 * (a device that cannot, or cudaHostGetDevicePointer refused) the kernel
 * writes slot 0 and a device-to-pinned cudaMemcpyAsync brings it into hres:
 * asynchronous, still no pageable copy.
 */
struct host_strand : strand {
    bool queued = false;                /* the stream strand: its calls are queued on the context's
                                           stream and return at once (stream.cu) */
    cudaStream_t own = nullptr;         /* the stream strand's own stream (st outside a call) */
    cudaEvent_t e_user = nullptr;       /* a pool strand's mark of the context's stream */
    unsigned char *hres = nullptr;      /* pinned host result area, kSlotBytes, then the done word */
    unsigned char *hres_dev = nullptr;  /* its device alias, or nullptr when not mapped */
    unsigned *done_host = nullptr;      /* the done word (in the hres allocation), or nullptr: no spin */
    unsigned *done_dev = nullptr;       /* its device alias */
    unsigned seq = 0;                   /* the last sequence number given out */
    unsigned armed = 0;                 /* this call's, if its last launch signals; else 0 */
    bool copies = false;                /* this call queued work on h2d/d2h */
    struct give { void *dst; size_t off, bytes; } gives[2];
    int ngive = 0;                      /* results to copy out of hres after the call's work */
};

/* every strand is a host_strand (pool.cu makes them) */
inline host_strand &host_side(strand &S) { return static_cast<host_strand &>(S); }

/* whether the device works on memory of kind k in place */
inline bool dev_ok(wr_mem_kind k) { return k == WR_MEM_DEVICE || k == WR_MEM_MANAGED; }

/* result / carry slot i of the strand */
inline unsigned char *slot(strand &S, int i) { return S.slot + (size_t)i * kSlotBytes; }

/* ---- which code the device runs (arch.cu) -------------------------------- */

struct code_info {
    char desc[200];              /* "NVIDIA H200 (sm_90, sm_90 machine code)" */
    bool scan_by_block;          /* scans run one block per tile (scan_block.cuh) */
};
/* When a context opens on the current device (properties p): whether the
 * plugin's code runs there.  A device below the floor, no code for it, or
 * PTX the driver cannot compile: WR_ERR_NO_BACKEND with a reason that names
 * the device's sm and what the plugin carries.  Reads
 * WARPRED_CUDA_SCAN_KERNEL. */
wr_status check_code(const cudaDeviceProp &p, const struct wr_host_api *host, code_info *ci, char *err);

/* ---- strands and their pool (pool.cu) ------------------------------------- */

/* A new strand on ctx's device: its stream, counters, slots, partials and
 * host result area (and, where calls spin, the done word).  queued: the
 * stream strand, on a non-blocking stream of its own (host_strand::own);
 * else a pool strand, on a blocking one.  NULL on failure, with *st and err
 * set. */
host_strand *strand_new(state *ctx, bool queued, wr_status *st, char *err);
/* Every strand of a context, when it closes (and a strand half made). */
void strand_destroy(strand *S);
/* An idle strand of ctx's pool, or a new one, ready for a call.  NULL on
 * failure, with *st and err set. */
strand *pool_take(state *ctx, wr_status *st, char *err);
/* Give a strand back to the pool (never allocates). */
void pool_put(state *ctx, strand *S);
/* The end of a call on a pool strand whose work queued with status st: on
 * success, wait for the work and deliver the host results; on failure,
 * drain the strand.  The strand goes back to the pool.  Returns the call's
 * status. */
wr_status pool_end(state *ctx, strand *S, wr_status st, char *err);

/* ---- the context's stream and the start and end of a call (stream.cu) ----- */

/* The device the plugin last made current on this thread (-1: none yet). */
extern thread_local int t_dev;

/* The start of a call: the context's device made current, and a strand:
 * the stream strand, when a stream is set and the call may be queued
 * (`queue`: every buffer it touches is device or managed memory); else one
 * from the pool, whose kernels then start after the work queued on the
 * context's stream so far (if one is set).  NULL on failure, with *st and
 * err set, also when queued work has failed (a pending failure). */
strand *call_begin(state *ctx, bool queue, wr_status *st, char *err);
/* The end of a call whose work queued with status st.  On the stream
 * strand: nothing to wait for, the call returns.  Else on success, wait for
 * the work and deliver the host results; on failure, drain the strand; the
 * strand goes back to the pool.  Returns the call's status. */
wr_status call_end(state *ctx, strand *S, wr_status st, char *err);
/* Whether S is the stream strand (its calls must not wait, allocate or
 * deliver to the host). */
inline bool queued(strand &S) { return host_side(S).queued; }

/* Run fn(strand) as one call on context state s: the shape of every
 * operation.  queue: as for call_begin(). */
template <class Fn>
wr_status with_strand(void *s, bool queue, char *err, Fn fn)
{
    state *ctx = (state *)s;
    wr_status st = WR_SUCCESS;
    strand *S = call_begin(ctx, queue, &st, err);
    if (S == nullptr) return st;
    return call_end(ctx, S, fn(*S), err);
}

/* set_stream, synchronize and close of the ops table. */
wr_status stream_set(state *ctx, cudaStream_t stream, char *err);
wr_status stream_sync(state *ctx, char *err);
void stream_close(state *ctx);

/* ---- the results of a call (pool.cu) --------------------------------------- */

/* The done word for a call's last launch (kNoDone where the strand has
 * none: the end of the call then synchronises the stream).  Only the launch
 * after which nothing else is queued may take it. */
done_sig arm(strand &S);
/* Where the last launch of a call writes a result bound for host memory. */
void *host_result(strand &S);
/* After that launch: bring the result into hres if the kernel could not
 * write there itself. */
wr_status fetch_result(strand &S, size_t bytes, char *err);
/* Copy bytes at hres + off to host dst once the call's work is done. */
void give(strand &S, void *dst, size_t off, size_t bytes);

/* ---- staging (staging.cu) ------------------------------------------------- */

/* The staging buffers and copy streams, made on a strand's first
 * host-memory call; every user of h2d/d2h comes through here. */
wr_status ensure_staging(state *ctx, strand &S, char *err);
/* Make bytes of host memory at src visible at S.sdev[b] (issued on S.h2d
 * once reuse_after has fired; S.st waits for the copy).  Pageable memory goes
 * through S.shost[b] first; extra (if any) is a second copy issued with it. */
wr_status stage_in(strand &S, int b, const void *src, size_t bytes, bool pageable, cudaEvent_t reuse_after,
                   char *err, void *x_dst = nullptr, const void *x_src = nullptr, size_t x_bytes = 0);

/* Enqueue launch(device pointer, len, offset) over count elements of in: once
 * over the whole array when the device can read it, else chunk by chunk
 * through the staging buffers (a chunk's launch folds its result onto the
 * previous chunks', so it needs to know its offset). */
template <class Launch>
wr_status each_chunk(state *ctx, strand &S, const void *in, wr_mem_kind kin, size_t count, size_t es, char *err,
                     Launch launch)
{
    if (dev_ok(kin)) return launch(in, count, 0);
    WRCUDA_TRY(ensure_staging(ctx, S, err));
    const size_t C = S.sbytes / es;
    for (size_t k = 0, off = 0; off < count; k++, off += C) {
        const int b = (int)(k % kStagingBufs);
        const size_t len = count - off < C ? count - off : C;
        WRCUDA_TRY(stage_in(S, b, (const char *)in + off * es, len * es, kin == WR_MEM_HOST, S.e_comp[b], err));
        WRCUDA_TRY(launch(S.sdev[b], len, off));
        WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
    }
    return WR_SUCCESS;
}

/* A scan with its input or output (or both) in host memory, chunk by chunk
 * through the staging buffers.  exact (a reproducible float/double SUM,
 * exact.cuh): the chunks carry an exact accumulator, starting from *carry0
 * (a normalised wrx_acc in host memory, read before this returns). */
wr_status scan_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                      size_t count, wr_type t, wr_op o, int exclusive, char *err, const void *carry0 = nullptr);
/* scan_segments over [first, last) of the offsets' index space (doff:
 * nseg + 1 device-readable offsets) with the input or the output in host
 * memory, chunk by chunk through the staging buffers (whole tiles from
 * first on, the running value carried from one chunk to the next on the
 * device: the bits of the same call on device memory).  exact: the
 * reproducible form (exact.cuh). */
wr_status segscan_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                         size_t first, size_t last, const size_t *doff, size_t nseg, wr_type t, wr_op o,
                         int exclusive, bool exact, char *err);
/* reduce_rows (hoff NULL: segment s begins at s * cols) or reduce_segments
 * (hoff: host-readable offsets) with the input or the output in host
 * memory, chunk by chunk through the staging buffers. */
wr_status segments_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                          size_t nseg, const size_t *hoff, size_t cols, wr_type t, wr_op o, bool exact, char *err);

/* ---- the operations (ops.cu), as the ops table calls them ---------------- */

wr_status cu_check_offsets(void *s, const size_t *offsets, size_t nseg, size_t sum[5], char *err);
/* The operations (ops.cu), one per wr_opid the plugin provides. */
wr_status cu_reduce(void *s, const wr_call *c, char *err);
wr_status cu_xreduce(void *s, const wr_call *c, char *err);
wr_status cu_scan(void *s, const wr_call *c, char *err);
wr_status cu_xscan(void *s, const wr_call *c, char *err);
wr_status cu_rows(void *s, const wr_call *c, char *err);
wr_status cu_xrows(void *s, const wr_call *c, char *err);
wr_status cu_segments(void *s, const wr_call *c, char *err);
wr_status cu_xsegments(void *s, const wr_call *c, char *err);
wr_status cu_segscan(void *s, const wr_call *c, char *err);
wr_status cu_xsegscan(void *s, const wr_call *c, char *err);
wr_status cu_argext(void *s, const wr_call *c, char *err);
wr_status cu_xsum(void *s, const wr_call *c, char *err);
/* dot_ops.cu */
wr_status cu_iamax(void *s, const wr_call *c, char *err);
wr_status cu_dot(void *s, const wr_call *c, char *err);
wr_status cu_xdot(void *s, const wr_call *c, char *err);
wr_status cu_dot_rows(void *s, const wr_call *c, char *err);
wr_status cu_xdot_rows(void *s, const wr_call *c, char *err);
wr_status cu_nrm2(void *s, const wr_call *c, char *err);
wr_status cu_xnrm2(void *s, const wr_call *c, char *err);
wr_status cu_asum(void *s, const wr_call *c, char *err);
wr_status cu_xasum(void *s, const wr_call *c, char *err);

} /* namespace wrcuda */

#endif /* WRCUDA_PLUGIN_CUH */

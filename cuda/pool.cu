/*
 * pool.cu -- the per-call resources of the CUDA plugin and the end of a
 * call.
 *
 * Threads.  Each call takes a strand (streams, scratch, staging) from the
 * context's pool and returns it, so threads sharing a context run their
 * calls concurrently on separate streams; scratch is allocated when a strand
 * is made and grown only when a call needs more, never on the steady-state
 * path.  The streams are ordinary (blocking) streams: a call starts after
 * the work the caller queued on the legacy default stream (a cudaMemset or
 * kernel that prepared the input), as a call on stream 0 would.
 *
 * The end of a call.  A call whose last launch is one kernel on device
 * memory (reduce, argmin/argmax, scans, rows, segments) learns that it is
 * done from the kernel itself: the block that finishes the work stores a
 * sequence number into a mapped word of the strand, and the host spins on
 * it (done_sig in backend.cuh), 1-2 us sooner than cudaStreamSynchronize.
 * The spin asks cudaStreamQuery now and then, so a kernel that fails (and
 * never stores) ends the wait with its error.  Where the application asked
 * the device to block or yield while waiting (cudaSetDeviceFlags), or with
 * WARPRED_CUDA_WAIT=sync in the environment, calls wait with
 * cudaStreamSynchronize as the others do.
 *
 * Errors.  Every CUDA failure becomes WR_ERR_DEVICE (out of memory:
 * WR_ERR_NO_MEMORY) with "call: CUDA error string" in err; the strand's
 * streams are drained and the error cleared, so the context stays usable
 * (an error that destroys the CUDA context itself, such as a kernel fault,
 * cannot be undone by anyone).  Nothing is ever printed.
 *
 * Streams.  wr_context_set_stream gives the context a stream of the
 * caller's (ctx->ustream).  A call whose buffers are all device or managed
 * memory is then queued on it and returns: it runs on one strand of its own,
 * the stream strand, made and fully sized by the first set_stream (its
 * scratch never grows: no allocation, no host wait and no driver call that
 * stream capture forbids on that path; the kernels reset their counters
 * and advance the scan's epoch themselves, so a CUDA graph may replay the
 * launches).  Its calls take ctx->smu from their first launch to their last,
 * so one call's launches are contiguous on the stream, and the stream runs
 * them one after the other: the scratch is reused in stream order, never
 * while a kernel that uses it may still run.  A call with a host buffer
 * takes a pool strand as without a stream, after waiting on the host for
 * what the stream holds so far (an event recorded there), so that its
 * copies and kernels (on the strand's streams) and its host-side reads see
 * what the caller queued before it; it completes before it returns, as
 * always.  Such a call cannot be captured: while the stream is capturing it
 * is refused.  Changing the stream orders the new one after the old one
 * (an event, no host wait); going back to the pool waits for the old one,
 * since the pool's calls are ordered only by completing.
 * A queued segments call checks its offsets on the device; a decrease sets
 * a mapped word (ctx->bad_flag), and every call reports it (and does
 * nothing else) until wr_context_synchronize names the segment and clears
 * it: the failure of queued work, reported as CUDA reports a kernel fault.
 */
#include <stdio.h>
#include <string.h>
#include <map>
#include <mutex>
#include <new>
#include <tuple>
#include "plugin.cuh"
#include "exact.cuh"

namespace wrcuda {

namespace {

wr_status strand_create(state *ctx, strand **out, char *err)
{
    host_strand *S = new (std::nothrow) host_strand();
    wr_status st = WR_SUCCESS;
    if (S == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory for a CUDA stream's state");
        return WR_ERR_NO_MEMORY;
    }
    S->dev = ctx->dev;
    S->sms = ctx->sms;
    S->scan_blocks = ctx->scan_blocks;
    S->scan_by_block = ctx->scan_by_block;
    st = [&]() -> wr_status {
        WRCUDA_CK(cudaStreamCreateWithFlags, (&S->st, cudaStreamDefault));
        WRCUDA_CK(cudaMalloc, ((void **)&S->ctr, 64));
        WRCUDA_CK(cudaMemsetAsync, (S->ctr, 0, 64, S->st));
        WRCUDA_CK(cudaMalloc, ((void **)&S->slot, kSlots * kSlotBytes));
        WRCUDA_CK(cudaMemsetAsync, (S->slot, 0, kSlots * kSlotBytes, S->st));
        WRCUDA_CK(cudaMalloc, (&S->part, (size_t)kMaxGrid * 16));
        S->part_cap = (size_t)kMaxGrid * 16;
        const unsigned hflags = ctx->can_map ? cudaHostAllocMapped : cudaHostAllocDefault;
        WRCUDA_CK(cudaHostAlloc, ((void **)&S->hres, 2 * kSlotBytes, hflags));
        if (ctx->can_map && cudaHostGetDevicePointer((void **)&S->hres_dev, S->hres, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            S->hres_dev = nullptr;                /* fall back to a copy into hres */
        }
        if (S->hres_dev && ctx->spin) {           /* the done word: after the result in hres */
            S->done_host = (unsigned *)(S->hres + kSlotBytes);
            S->done_dev = (unsigned *)(S->hres_dev + kSlotBytes);
            *S->done_host = 0;
        }
        return WR_SUCCESS;
    }();
    if (st != WR_SUCCESS) {
        strand_destroy(S);
        return st;
    }
    *out = S;
    return WR_SUCCESS;
}

strand *acquire(state *ctx, wr_status *st, char *err)
{
    strand *S = nullptr;
    {
        std::lock_guard<std::mutex> g(ctx->mu);
        if (!ctx->idle.empty()) {
            S = ctx->idle.back();
            ctx->idle.pop_back();
            return S;
        }
    }
    *st = strand_create(ctx, &S, err);
    if (*st != WR_SUCCESS) return nullptr;
    try {
        std::lock_guard<std::mutex> g(ctx->mu);
        ctx->all.push_back(S);
        ctx->idle.reserve(ctx->all.size());   /* so that release() never allocates */
    } catch (...) {
        strand_destroy(S);
        snprintf(err, WR_ERRLEN, "out of host memory for the stream pool");
        *st = WR_ERR_NO_MEMORY;
        return nullptr;
    }
    return S;
}

void release(state *ctx, strand *S)
{
    std::lock_guard<std::mutex> g(ctx->mu);
    ctx->idle.push_back(S);    /* no allocation: idle has room for every strand */
}

/* Let everything queued on the strand finish (or fail) and forget the error. */
void drain(strand &S)
{
    if (S.st) (void)cudaStreamSynchronize(S.st);
    if (S.h2d) (void)cudaStreamSynchronize(S.h2d);
    if (S.d2h) (void)cudaStreamSynchronize(S.d2h);
    (void)cudaGetLastError();
}

/* Spin until the armed launch has stored its number, or the stream has
 * finished (then everything is complete anyway), or failed. */
wr_status spin_done(strand &S, char *err)
{
    const host_strand &x = host_side(S);
    for (unsigned i = 1; __atomic_load_n(x.done_host, __ATOMIC_ACQUIRE) != x.armed; i++) {
        if (i % 256 == 0) {
            const cudaError_t e = cudaStreamQuery(S.st);
            if (e == cudaSuccess) break;
            if (e != cudaErrorNotReady) return fail(err, "cudaStreamQuery", e);
        }
    }
    return WR_SUCCESS;
}

/* Wait for the call's work: the copy streams only when this call used them
 * (a call on device memory leaves them idle: two synchronisations saved),
 * the kernel stream by its done word when the last launch took one. */
wr_status wait_call(strand &S, char *err)
{
    const host_strand &x = host_side(S);
    if (x.armed && !x.copies) return spin_done(S, err);
    if (x.copies) {
        if (S.h2d) WRCUDA_CK(cudaStreamSynchronize, (S.h2d));
        if (S.d2h) WRCUDA_CK(cudaStreamSynchronize, (S.d2h));
    }
    WRCUDA_CK(cudaStreamSynchronize, (S.st));
    return WR_SUCCESS;
}

} /* namespace */

void strand_destroy(strand *S)
{
    if (S == nullptr) return;
    if (host_side(*S).e_user) cudaEventDestroy(host_side(*S).e_user);
    if (S->st) (void)cudaStreamSynchronize(S->st);
    if (S->h2d) (void)cudaStreamSynchronize(S->h2d);
    if (S->d2h) (void)cudaStreamSynchronize(S->d2h);
    cudaFree(S->ctr);
    cudaFree(S->slot);
    cudaFree(S->part);
    cudaFree(S->sblk);
    cudaFree(S->segctr);
    cudaFree(S->doff);
    cudaFree(S->xs);
    cudaFree(S->xscan);
    cudaFree(S->sscan);
    cudaFreeHost(host_side(*S).hres);
    for (int b = 0; b < kStagingBufs; b++) {
        cudaFree(S->sdev[b]);
        cudaFreeHost(S->shost[b]);
        cudaFree(S->soff_dev[b]);
        cudaFreeHost(S->soff_host[b]);
        cudaFree(S->sres[b]);
        if (S->e_in[b]) cudaEventDestroy(S->e_in[b]);
        if (S->e_comp[b]) cudaEventDestroy(S->e_comp[b]);
        if (S->e_out[b]) cudaEventDestroy(S->e_out[b]);
    }
    if (S->st) cudaStreamDestroy(S->st);
    if (S->h2d) cudaStreamDestroy(S->h2d);
    if (S->d2h) cudaStreamDestroy(S->d2h);
    (void)cudaGetLastError();
    delete &host_side(*S);
}

thread_local int t_dev = -1;

namespace {

/* Refuse what cannot happen while `stream` is being captured into a CUDA
 * graph (a wait for it, or work on it that must complete before a call
 * returns): an attempt would end the caller's capture with an error. */
wr_status not_capturing(cudaStream_t stream, const char *what, char *err)
{
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    WRCUDA_CK(cudaStreamIsCapturing, (stream, &cs));
    if (cs == cudaStreamCaptureStatusNone) return WR_SUCCESS;
    snprintf(err, WR_ERRLEN, "%s, and the stream is being captured into a CUDA graph", what);
    return WR_ERR_INVALID_ARG;
}

/* The failure of queued work that a call reports instead of running (see
 * "Streams" above): mapped memory, read without waiting for anything. */
bool pending_failure(state *ctx, char *err)
{
    if (ctx->bad_flag == nullptr || __atomic_load_n(ctx->bad_flag, __ATOMIC_ACQUIRE) == 0) return false;
    snprintf(err, WR_ERRLEN, "a queued segmented call (wr_reduce_segments, wr_scan_segments, "
             "wr_exscan_segments) found bad offsets (this call did nothing; wr_context_synchronize says "
             "what, and clears it)");
    return true;
}

/* A pool strand's kernels and copies must see what the caller queued on its
 * stream: wait on the host for an event recorded there. */
wr_status after_stream(strand &S, cudaStream_t us, char *err)
{
    host_strand &x = host_side(S);
    if (!x.e_user) WRCUDA_CK(cudaEventCreateWithFlags, (&x.e_user, cudaEventDisableTiming));
    WRCUDA_CK(cudaEventRecord, (x.e_user, us));
    WRCUDA_CK(cudaEventSynchronize, (x.e_user));
    return WR_SUCCESS;
}

/* The stream strand: scratch for every launch a queued call may make
 * (exact sums' included), allocated now; its own stream (non-blocking: it never waits for the
 * legacy stream) for the set-up and for reading back the bad word. */
wr_status stream_strand_create(state *ctx, char *err)
{
    host_strand *S = new (std::nothrow) host_strand();
    if (S == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory for the stream's state");
        return WR_ERR_NO_MEMORY;
    }
    S->dev = ctx->dev;
    S->sms = ctx->sms;
    S->scan_blocks = ctx->scan_blocks;
    S->scan_by_block = ctx->scan_by_block;   /* as the pool's: where the staged kernel cannot run */
    S->queued = true;
    const wr_status st = [&]() -> wr_status {
        WRCUDA_CK(cudaStreamCreateWithFlags, (&S->own, cudaStreamNonBlocking));
        S->st = S->own;
        WRCUDA_CK(cudaMalloc, ((void **)&S->ctr, 64));
        WRCUDA_CK(cudaMemsetAsync, (S->ctr, 0, 64, S->st));
        WRCUDA_CK(cudaMalloc, ((void **)&S->slot, kSlots * kSlotBytes));
        WRCUDA_CK(cudaMemsetAsync, (S->slot, 0, kSlots * kSlotBytes, S->st));
        WRCUDA_CK(cudaMalloc, (&S->part, (size_t)kMaxGrid * 16));
        S->part_cap = (size_t)kMaxGrid * 16;
        WRCUDA_TRY(reserve_scan(*S, ctx->scan_reserve, err));
        WRCUDA_TRY(reserve_segments(*S, err));
        WRCUDA_TRY(reserve_segscan(*S, err));    /* (after reserve_scan: as many tiles) */
        WRCUDA_TRY(exact_scratch(*S, err));   /* reproducible float sums (exact.cu) */
        WRCUDA_TRY(reserve_exact_scan(*S, err));
        /* hres: [0, 8) where the bad word is read back; the flag after the
         * result slot, where a pool strand keeps its done word */
        const unsigned hflags = ctx->can_map ? cudaHostAllocMapped : cudaHostAllocDefault;
        WRCUDA_CK(cudaHostAlloc, ((void **)&S->hres, 2 * kSlotBytes, hflags));
        memset(S->hres, 0, 2 * kSlotBytes);
        if (ctx->can_map && cudaHostGetDevicePointer((void **)&S->hres_dev, S->hres, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            S->hres_dev = nullptr;                /* then only synchronize learns of bad offsets */
        }
        if (!ctx->ev_switch) WRCUDA_CK(cudaEventCreateWithFlags, (&ctx->ev_switch, cudaEventDisableTiming));
        WRCUDA_CK(cudaStreamSynchronize, (S->st));
        return WR_SUCCESS;
    }();
    if (st != WR_SUCCESS) {
        strand_destroy(S);
        return st;
    }
    S->fixed = true;
    ctx->sstrand = S;
    if (S->hres_dev) {
        ctx->bad_flag = (unsigned *)(S->hres + kSlotBytes);
        ctx->bad_flag_dev = (unsigned *)(S->hres_dev + kSlotBytes);
    }
    return WR_SUCCESS;
}

/* Report and clear what queued segments calls found (the queued work is
 * done: the caller waited for it).  The bad word is read when the flag says
 * so, or always where there is no flag. */
wr_status take_bad(state *ctx, char *err)
{
    strand *S = ctx->sstrand;
    if (S == nullptr) return WR_SUCCESS;
    host_strand &x = host_side(*S);
    if (ctx->bad_flag && __atomic_load_n(ctx->bad_flag, __ATOMIC_ACQUIRE) == 0) return WR_SUCCESS;
    cudaStream_t q = ctx->ustream ? ctx->ustream : x.own;
    /* the bad word and, after it, the long word (backend.cuh) */
    unsigned long long v[2] = { 0, 0 };
    WRCUDA_CK(cudaMemcpyAsync, (x.hres, bad_word(*S), sizeof v, cudaMemcpyDeviceToHost, q));
    WRCUDA_CK(cudaStreamSynchronize, (q));
    memcpy(v, x.hres, sizeof v);
    if (v[0] != 0 || v[1] != 0) {
        WRCUDA_CK(cudaMemsetAsync, (bad_word(*S), 0, sizeof v, q));
        WRCUDA_CK(cudaStreamSynchronize, (q));
    }
    if (ctx->bad_flag) __atomic_store_n(ctx->bad_flag, 0u, __ATOMIC_RELEASE);
    if (v[0] != 0) {
        const size_t s = (size_t)~v[0];
        snprintf(err, WR_ERRLEN, "a queued segmented call had offsets[%zu] < offsets[%zu]: offsets must not "
                 "decrease", s + 1, s);
        return WR_ERR_INVALID_ARG;
    }
    if (v[1] != 0) {
        snprintf(err, WR_ERRLEN, "a queued wr_scan_segments/wr_exscan_segments call spanned more than the %zu "
                 "bytes a queued scan covers (WARPRED_CUDA_STREAM_SCAN_BYTES): it did nothing", ctx->scan_reserve);
        return WR_ERR_INVALID_ARG;
    }
    return WR_SUCCESS;
}

} /* namespace */

wr_status stream_set(state *ctx, cudaStream_t nw, char *err)
{
    cudaError_t e = cudaSetDevice(ctx->dev);
    if (e != cudaSuccess) return fail(err, "cudaSetDevice", e);
    t_dev = ctx->dev;
    std::lock_guard<std::mutex> g(ctx->smu);
    cudaStream_t old = ctx->ustream;
    if (nw == old) return WR_SUCCESS;
    if (old) WRCUDA_TRY(not_capturing(old, "the context's stream cannot be changed now", err));
    if (nw) WRCUDA_TRY(not_capturing(nw, "a context cannot take a stream now", err));
#if CUDART_VERSION >= 12080
    if (nw) {
        int sdev = -1;
        if (cudaStreamGetDevice(nw, &sdev) != cudaSuccess) {
            (void)cudaGetLastError();
        } else if (sdev != ctx->dev) {
            snprintf(err, WR_ERRLEN, "the stream belongs to device %d, the context's device is %d", sdev, ctx->dev);
            return WR_ERR_INVALID_ARG;
        }
    }
#endif
    if (nw && !ctx->sstrand) WRCUDA_TRY(stream_strand_create(ctx, err));
    if (old && nw) {
        /* the stream strand's scratch passes from the old stream to the
         * new: the new one waits for the old one's work so far (the
         * runtime API's cudaEventRecord and cudaStreamWaitEvent: ordering
         * without a host wait) */
        WRCUDA_CK(cudaEventRecord, (ctx->ev_switch, old));
        WRCUDA_CK(cudaStreamWaitEvent, (nw, ctx->ev_switch, 0));
    } else if (old) {
        /* back to the pool: its calls are ordered by completing, so the
         * queued ones must be done first */
        WRCUDA_CK(cudaStreamSynchronize, (old));
    }
    ctx->ustream = nw;
    return WR_SUCCESS;
}

wr_status stream_sync(state *ctx, char *err)
{
    cudaError_t e = cudaSetDevice(ctx->dev);
    if (e != cudaSuccess) return fail(err, "cudaSetDevice", e);
    t_dev = ctx->dev;
    std::lock_guard<std::mutex> g(ctx->smu);
    if (ctx->ustream) {
        WRCUDA_TRY(not_capturing(ctx->ustream, "wr_context_synchronize waits for the context's stream", err));
        WRCUDA_CK(cudaStreamSynchronize, (ctx->ustream));
    }
    return take_bad(ctx, err);
}

void stream_close(state *ctx)
{
    if (ctx->sstrand) {
        /* queued work, or a graph replaying it on any stream, may still use
         * the stream strand's scratch, and the caller's stream may be gone:
         * wait for the whole device before freeing it */
        (void)cudaDeviceSynchronize();
        ctx->bad_flag = ctx->bad_flag_dev = nullptr;
        strand_destroy(ctx->sstrand);
        ctx->sstrand = nullptr;
    }
    if (ctx->ev_switch) cudaEventDestroy(ctx->ev_switch);
    ctx->ev_switch = nullptr;
    (void)cudaGetLastError();
}

strand *call_begin(state *ctx, bool queue, wr_status *st, char *err)
{
    /* Always set, not skipped when cudaGetDevice agrees: a caller's own
     * driver-API context on the same device would also say "dev", and the
     * strands' streams belong to the primary context.  (Cheap when the
     * device is already current; the one cudaSetDevice of a call, since
     * cu_locate() makes none once a thread has been here.) */
    cudaError_t e = cudaSetDevice(ctx->dev);
    if (e != cudaSuccess) {
        *st = fail(err, "cudaSetDevice", e);
        return nullptr;
    }
    t_dev = ctx->dev;
    if (pending_failure(ctx, err)) {
        *st = WR_ERR_INVALID_ARG;
        return nullptr;
    }
    ctx->smu.lock();
    cudaStream_t us = ctx->ustream;
    if (us && queue) {                   /* smu stays held until call_end() */
        strand *Q = ctx->sstrand;
        Q->st = us;
        return Q;
    }
    ctx->smu.unlock();
    /* before anything that capture forbids (acquire() may allocate): a
     * refusal must leave the caller's capture intact */
    if (us && (*st = not_capturing(us, "a call with host memory completes before it returns", err)) != WR_SUCCESS)
        return nullptr;
    strand *S = acquire(ctx, st, err);
    if (S == nullptr) return nullptr;
    host_strand &x = host_side(*S);
    x.copies = false;
    x.armed = 0;
    x.ngive = 0;
    if (us && (*st = after_stream(*S, us, err)) != WR_SUCCESS) {
        release(ctx, S);
        return nullptr;
    }
    return S;
}

wr_status call_end(state *ctx, strand *S, wr_status st, char *err)
{
    host_strand &x = host_side(*S);
    if (x.queued) {
        /* Queued: nothing is waited for.  A launch that failed queued
         * nothing; what the call queued before it runs, and its outputs are
         * undefined, as the status says. */
        S->st = x.own;
        ctx->smu.unlock();
        return st;
    }
    if (st == WR_SUCCESS) st = wait_call(*S, err);
    if (st == WR_SUCCESS)
        for (int i = 0; i < x.ngive; i++) memcpy(x.gives[i].dst, x.hres + x.gives[i].off, x.gives[i].bytes);
    if (st != WR_SUCCESS) drain(*S);
    release(ctx, S);
    return st;
}

done_sig arm(strand &S)
{
    host_strand &x = host_side(S);
    if (x.done_host == nullptr) return kNoDone;
    if (++x.seq == 0) ++x.seq;                /* 0 is "nothing yet" */
    x.armed = x.seq;
    return done_sig{ x.done_dev, x.seq };
}

void *host_result(strand &S)
{
    host_strand &x = host_side(S);
    return x.hres_dev ? (void *)x.hres_dev : (void *)slot(S, 0);
}

wr_status fetch_result(strand &S, size_t bytes, char *err)
{
    host_strand &x = host_side(S);
    if (!x.hres_dev) WRCUDA_CK(cudaMemcpyAsync, (x.hres, slot(S, 0), bytes, cudaMemcpyDeviceToHost, S.st));
    return WR_SUCCESS;
}

void give(strand &S, void *dst, size_t off, size_t bytes)
{
    host_strand &x = host_side(S);
    x.gives[x.ngive++] = host_strand::give{ dst, off, bytes };
}

/* ---- what the launchers need (backend.cuh) ------------------------------- */

wr_status fail(char *err, const char *call, cudaError_t e)
{
    snprintf(err, WR_ERRLEN, "%s: %s", call, cudaGetErrorString(e));
    (void)cudaGetLastError();        /* a non-sticky error must not poison the next call */
    return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
}

wr_status grow(strand &S, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    if (*p != nullptr && need <= *cap) return WR_SUCCESS;
    if (S.fixed) {                            /* reserve_*() sized it: a bug if reached */
        snprintf(err, WR_ERRLEN, "internal: a queued call needs %zu bytes of %s, %zu were reserved", need, what,
                 *p ? *cap : (size_t)0);
        return WR_ERR_DEVICE;
    }
    size_t nc = need + need / 4;
    nc = (nc + 255) & ~(size_t)255;
    if (*p != nullptr) {
        WRCUDA_CK(cudaStreamSynchronize, (S.st));
        cudaFree(*p);
        *p = nullptr;
        *cap = 0;
    }
    cudaError_t e = cudaMalloc(p, nc);
    if (e != cudaSuccess) {
        *p = nullptr;
        snprintf(err, WR_ERRLEN, "cudaMalloc: %s (%zu bytes of %s)", cudaGetErrorString(e), nc, what);
        (void)cudaGetLastError();
        return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
    }
    *cap = nc;
    if (zero) WRCUDA_CK(cudaMemsetAsync, (*p, 0, nc, S.st));
    return WR_SUCCESS;
}

int blocks_per_sm(const void *kernel)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 4;
    }
    return n > 0 ? n : 1;
}

namespace {
/* resident_blocks' answers, by (device, kernel, threads, dynamic shared memory) */
struct occupancy_key {
    int dev;
    const void *kernel;
    int threads;
    size_t dyn;
    bool operator<(const occupancy_key &o) const
    {
        return std::tie(dev, kernel, threads, dyn) < std::tie(o.dev, o.kernel, o.threads, o.dyn);
    }
};
std::mutex occupancy_mu;
std::map<occupancy_key, int> occupancy;
} /* namespace */

int resident_blocks(strand &S, const void *kernel, int threads, size_t dyn, char *err)
{
    const occupancy_key k = { S.dev, kernel, threads, dyn };
    {
        std::lock_guard<std::mutex> g(occupancy_mu);
        auto i = occupancy.find(k);
        if (i != occupancy.end()) return i->second;
    }
    int nb = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, threads, dyn);
    if (e != cudaSuccess) {
        fail(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
        return -1;
    }
    nb = nb > 0 ? nb : 1;
    std::lock_guard<std::mutex> g(occupancy_mu);
    occupancy[k] = nb;
    return nb;
}

} /* namespace wrcuda */

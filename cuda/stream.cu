/*
 * stream.cu -- the context's stream (wr_context_set_stream) and the start
 * and end of every call: which strand it takes, the stream strand or one of
 * the pool's (pool.cu).
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
#include <mutex>
#include "plugin.cuh"
#include "exact.cuh"

namespace wrcuda {

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
 * (exact sums' included), allocated now; its own stream (non-blocking: it
 * never waits for the legacy stream) for the set-up and for reading back
 * the bad word.  hres: [0, 8) where the bad word is read back; the flag
 * after the result slot, where a pool strand keeps its done word. */
wr_status stream_strand_create(state *ctx, char *err)
{
    wr_status st = WR_SUCCESS;
    host_strand *S = strand_new(ctx, true, &st, err);
    if (S == nullptr) return st;
    st = [&]() -> wr_status {
        WRCUDA_TRY(reserve_scan(*S, ctx->scan_reserve, err));
        WRCUDA_TRY(reserve_segments(*S, err));
        WRCUDA_TRY(reserve_segscan(*S, err));    /* (after reserve_scan: as many tiles) */
        WRCUDA_TRY(exact_scratch(*S, err));   /* reproducible float sums (exact.cu) */
        WRCUDA_TRY(reserve_exact_scan(*S, err));
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
    /* before anything that capture forbids (pool_take() may allocate): a
     * refusal must leave the caller's capture intact */
    if (us && (*st = not_capturing(us, "a call with host memory completes before it returns", err)) != WR_SUCCESS)
        return nullptr;
    strand *S = pool_take(ctx, st, err);
    if (S == nullptr) return nullptr;
    if (us && (*st = after_stream(*S, us, err)) != WR_SUCCESS) {
        pool_put(ctx, S);
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
    return pool_end(ctx, S, st, err);
}

} /* namespace wrcuda */

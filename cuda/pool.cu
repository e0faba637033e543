/*
 * pool.cu -- the per-call resources of the CUDA plugin (strands), the pool
 * a context keeps of them, and the end of a call on one.  The context's
 * stream, and which strand a call takes, are stream.cu's.
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
 */
#include <stdio.h>
#include <string.h>
#include <new>
#include "plugin.cuh"

namespace wrcuda {

namespace {

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

host_strand *strand_new(state *ctx, bool queued, wr_status *st, char *err)
{
    host_strand *S = new (std::nothrow) host_strand();
    if (S == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory for a CUDA stream's state");
        *st = WR_ERR_NO_MEMORY;
        return nullptr;
    }
    S->dev = ctx->dev;
    S->sms = ctx->sms;
    S->scan_blocks = ctx->scan_blocks;
    S->scan_by_block = ctx->scan_by_block;
    S->queued = queued;
    *st = [&]() -> wr_status {
        if (queued) {
            WRCUDA_CK(cudaStreamCreateWithFlags, (&S->own, cudaStreamNonBlocking));
            S->st = S->own;
        } else {
            WRCUDA_CK(cudaStreamCreateWithFlags, (&S->st, cudaStreamDefault));
        }
        WRCUDA_CK(cudaMalloc, ((void **)&S->ctr, 64));
        WRCUDA_CK(cudaMemsetAsync, (S->ctr, 0, 64, S->st));
        WRCUDA_CK(cudaMalloc, ((void **)&S->slot, kSlots * kSlotBytes));
        WRCUDA_CK(cudaMemsetAsync, (S->slot, 0, kSlots * kSlotBytes, S->st));
        WRCUDA_CK(cudaMalloc, (&S->part, (size_t)kMaxGrid * 16));
        S->part_cap = (size_t)kMaxGrid * 16;
        const unsigned hflags = ctx->can_map ? cudaHostAllocMapped : cudaHostAllocDefault;
        WRCUDA_CK(cudaHostAlloc, ((void **)&S->hres, 2 * kSlotBytes, hflags));
        memset(S->hres, 0, 2 * kSlotBytes);
        if (ctx->can_map && cudaHostGetDevicePointer((void **)&S->hres_dev, S->hres, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            S->hres_dev = nullptr;                /* results come by a copy into hres */
        }
        /* the done word: after the result in hres */
        if (S->hres_dev && ctx->spin && !queued) {
            S->done_host = (unsigned *)(S->hres + kSlotBytes);
            S->done_dev = (unsigned *)(S->hres_dev + kSlotBytes);
        }
        return WR_SUCCESS;
    }();
    if (*st != WR_SUCCESS) {
        strand_destroy(S);
        return nullptr;
    }
    return S;
}

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

strand *pool_take(state *ctx, wr_status *st, char *err)
{
    strand *S = nullptr;
    {
        std::lock_guard<std::mutex> g(ctx->mu);
        if (!ctx->idle.empty()) {
            S = ctx->idle.back();
            ctx->idle.pop_back();
        }
    }
    if (S == nullptr) {
        S = strand_new(ctx, false, st, err);
        if (S == nullptr) return nullptr;
        try {
            std::lock_guard<std::mutex> g(ctx->mu);
            ctx->all.push_back(S);
            ctx->idle.reserve(ctx->all.size());   /* so that pool_put() never allocates */
        } catch (...) {
            strand_destroy(S);
            snprintf(err, WR_ERRLEN, "out of host memory for the stream pool");
            *st = WR_ERR_NO_MEMORY;
            return nullptr;
        }
    }
    host_strand &x = host_side(*S);
    x.copies = false;
    x.armed = 0;
    x.ngive = 0;
    return S;
}

void pool_put(state *ctx, strand *S)
{
    std::lock_guard<std::mutex> g(ctx->mu);
    ctx->idle.push_back(S);    /* no allocation: idle has room for every strand */
}

wr_status pool_end(state *ctx, strand *S, wr_status st, char *err)
{
    host_strand &x = host_side(*S);
    if (st == WR_SUCCESS) st = wait_call(*S, err);
    if (st == WR_SUCCESS)
        for (int i = 0; i < x.ngive; i++) memcpy(x.gives[i].dst, x.hres + x.gives[i].off, x.gives[i].bytes);
    if (st != WR_SUCCESS) drain(*S);
    pool_put(ctx, S);
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

} /* namespace wrcuda */

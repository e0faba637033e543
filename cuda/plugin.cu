/*
 * plugin.cu -- the CUDA backend: a plugin that exports one symbol,
 * warpred_backend_ops (see lib/wr_backend.h), and nothing else.
 *
 * This file holds what is not a kernel: opening the device, telling where a
 * buffer lives, the pool of per-call resources ("strands"), and the staging
 * pipelines that stream host-resident buffers through pinned memory.
 *
 * Residency.  Device and managed buffers are used in place.  A host buffer
 * (pageable or pinned) is streamed in chunks through kStagingBufs device buffers:
 * pinned memory is copied by DMA straight from/to the caller's buffer,
 * pageable memory first through pinned staging buffers.  Copies in, kernels
 * and copies out run on three streams ordered by events, so chunk k+1 is
 * copied in while chunk k is computed and chunk k-1 copied out, and the
 * device memory a call holds for host data is kStagingBufs staging buffers
 * whatever the array's size.  Scans carry the running prefix from chunk to
 * chunk on the device; chunks are whole scan tiles, so a staged scan gives
 * the same bits as the same scan on device memory.
 *
 * Threads.  Each call takes a strand (stream, scratch, staging) from the
 * context's pool and returns it, so threads sharing a context run their
 * calls concurrently on separate streams; scratch is allocated when a strand is
 * made and grown only when a call needs more, never on the steady-state path.
 * The streams are ordinary (blocking) streams: a call starts after the work
 * the caller queued on the legacy default stream (a cudaMemset or kernel
 * that prepared the input), as a call on stream 0 would.
 *
 * The end of a call.  A call whose last launch is one kernel on device
 * memory (reduce, argmin/argmax, scans, rows, segments) learns that it is done
 * from the kernel itself: the block that finishes the work stores a
 * sequence number into a mapped word of the strand, and the host spins on it
 * (done_sig in backend.cuh), 1-2 us sooner than cudaStreamSynchronize.  The
 * spin asks cudaStreamQuery now and then, so a kernel that fails (and never
 * stores) ends the wait with its error.  Where the application asked the
 * device to block or yield while waiting (cudaSetDeviceFlags), or with
 * WARPRED_CUDA_WAIT=sync in the environment, calls wait with
 * cudaStreamSynchronize as the others do.
 *
 * Errors.  Every CUDA failure becomes WR_ERR_DEVICE (out of memory:
 * WR_ERR_NO_MEMORY) with "call: CUDA error string" in err; the strand's streams
 * are drained and the error cleared, so the context stays usable (an error
 * that destroys the CUDA context itself, such as a kernel fault, cannot be
 * undone by anyone).  Nothing is ever printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mutex>
#include <new>
#include <vector>
#include "backend.cuh"
#include "wr_ops.h"

#define WRCUDA_EXPORT __attribute__((visibility("default")))

namespace wrcuda {

namespace {

struct state {
    int dev;
    int sms;
    bool can_map;                /* the device can write mapped pinned host memory */
    bool spin;                   /* calls may spin on the strand's done word (see "The end of a call") */
    char desc[300];
    size_t stage_bytes;          /* per staging buffer */
    unsigned scan_blocks;        /* WARPRED_CUDA_SCAN_BLOCKS (0: as many as fit) */
    std::mutex mu;
    std::vector<strand *> idle;    /* strands not in use */
    std::vector<strand *> all;
};

/*
 * A strand as this file sees it: the shared part (backend.cuh) plus what only the
 * call machinery here uses.
 *
 * Result delivery.  A reduce or argmin/argmax whose result goes to host
 * memory has its last kernel write the result straight into hres, a small
 * pinned host area mapped into the device's address space (zero-copy: the
 * store crosses PCIe as part of the kernel), and with_strand() copies it to
 * the caller with memcpy once the stream is synchronised.  Before, the
 * result went to a device slot and came back with a cudaMemcpyAsync to the
 * caller's variable, which for pageable memory is a staged, synchronous copy
 * (several microseconds of the ~13 a small call took).  Without mapping
 * (a device that cannot, or cudaHostGetDevicePointer refused) the kernel
 * writes slot 0 and a device-to-pinned cudaMemcpyAsync brings it into hres:
 * asynchronous, still no pageable copy.
 */
struct host_strand : strand {
    unsigned char *hres = nullptr;      /* pinned host result area, kSlotBytes */
    unsigned char *hres_dev = nullptr;  /* its device alias, or nullptr when not mapped */
    unsigned *done_host = nullptr;      /* the done word (in the hres allocation), or nullptr: no spin */
    unsigned *done_dev = nullptr;       /* its device alias */
    unsigned seq = 0;                   /* the last sequence number given out */
    unsigned armed = 0;                 /* this call's, if its last launch signals; else 0 */
    bool copies = false;                /* this call queued work on h2d/d2h */
    struct give { void *dst; size_t off, bytes; } gives[2];
    int ngive = 0;                      /* results to copy out of hres after the sync */
};

host_strand &host_side(strand &S) { return static_cast<host_strand &>(S); }

/* A kernel that proves the plugin holds code this device can run. */
__global__ void k_probe(int *p) { if (p) *p = 0; }

bool dev_ok(wr_mem_kind k) { return k == WR_MEM_DEVICE || k == WR_MEM_MANAGED; }

wr_mem_kind kind_of(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return WR_MEM_HOST;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:  return WR_MEM_DEVICE;
    case cudaMemoryTypeManaged: return WR_MEM_MANAGED;
    case cudaMemoryTypeHost:    return WR_MEM_HOST_PINNED;
    default:                    return WR_MEM_HOST;
    }
}

unsigned char *slot(strand &S, int i) { return S.slot + (size_t)i * kSlotBytes; }

/* ---- strands --------------------------------------------------------------- */

void strand_destroy(strand *S)
{
    if (S == nullptr) return;
    if (S->st) (void)cudaStreamSynchronize(S->st);
    if (S->h2d) (void)cudaStreamSynchronize(S->h2d);
    if (S->d2h) (void)cudaStreamSynchronize(S->d2h);
    cudaFree(S->ctr);
    cudaFree(S->slot);
    cudaFree(S->part);
    cudaFree(S->sblk);
    cudaFree(S->segctr);
    cudaFree(S->doff);
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

wr_status strand_create(state *ctx, strand **out, char *err)
{
    host_strand *S = new (std::nothrow) host_strand();
    wr_status st = WR_SUCCESS;
    if (S == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory for a CUDA stream's state");
        return WR_ERR_NO_MEMORY;
    }
    S->sms = ctx->sms;
    S->scan_blocks = ctx->scan_blocks;
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
        if (S->hres_dev && ctx->spin) {             /* the done word: after the result in hres */
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

/* The staging buffers and copy streams, made on a strand's first host-memory call. */
wr_status ensure_staging(state *ctx, strand &S, char *err)
{
    host_side(S).copies = true;                     /* every user of h2d/d2h comes through here */
    if (S.sbytes) return WR_SUCCESS;
    /* after a failure (out of memory) the next call completes what is missing */
    if (!S.h2d) WRCUDA_CK(cudaStreamCreateWithFlags, (&S.h2d, cudaStreamDefault));
    if (!S.d2h) WRCUDA_CK(cudaStreamCreateWithFlags, (&S.d2h, cudaStreamDefault));
    for (int b = 0; b < kStagingBufs; b++) {
        if (!S.sdev[b]) WRCUDA_CK(cudaMalloc, (&S.sdev[b], ctx->stage_bytes));
        if (!S.shost[b]) WRCUDA_CK(cudaHostAlloc, (&S.shost[b], ctx->stage_bytes, cudaHostAllocDefault));
        if (!S.e_in[b]) WRCUDA_CK(cudaEventCreateWithFlags, (&S.e_in[b], cudaEventDisableTiming));
        if (!S.e_comp[b]) WRCUDA_CK(cudaEventCreateWithFlags, (&S.e_comp[b], cudaEventDisableTiming));
        if (!S.e_out[b]) WRCUDA_CK(cudaEventCreateWithFlags, (&S.e_out[b], cudaEventDisableTiming));
    }
    S.sbytes = ctx->stage_bytes;
    return WR_SUCCESS;
}

/* Per-chunk offsets and results for segmented work on host memory. */
wr_status ensure_seg_staging(state *ctx, strand &S, char *err)
{
    WRCUDA_TRY(ensure_staging(ctx, S, err));
    if (S.soff_n) return WR_SUCCESS;
    const size_t n = S.sbytes / 32;          /* segments per chunk, +1 offsets */
    for (int b = 0; b < kStagingBufs; b++) {
        if (!S.soff_dev[b]) WRCUDA_CK(cudaMalloc, ((void **)&S.soff_dev[b], (n + 1) * sizeof(size_t)));
        if (!S.soff_host[b])
            WRCUDA_CK(cudaHostAlloc, ((void **)&S.soff_host[b], (n + 1) * sizeof(size_t), cudaHostAllocDefault));
        if (!S.sres[b]) WRCUDA_CK(cudaMalloc, (&S.sres[b], n * 8));
    }
    S.soff_n = n + 1;
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
        ctx->idle.reserve(ctx->all.size());       /* so that release() never allocates */
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
    ctx->idle.push_back(S);      /* no allocation: idle has room for every strand */
}

/* Let everything queued on the strand finish (or fail) and forget the error. */
void drain(strand &S)
{
    if (S.st) (void)cudaStreamSynchronize(S.st);
    if (S.h2d) (void)cudaStreamSynchronize(S.h2d);
    if (S.d2h) (void)cudaStreamSynchronize(S.d2h);
    (void)cudaGetLastError();
}

/* The done word for a call's last launch (kNoDone where the strand has none:
 * wait_call() then synchronises the stream).  Only the launch after which
 * nothing else is queued may take it. */
done_sig arm(strand &S)
{
    host_strand &x = host_side(S);
    if (x.done_host == nullptr) return kNoDone;
    if (++x.seq == 0) ++x.seq;                /* 0 is "nothing yet" */
    x.armed = x.seq;
    return done_sig{ x.done_dev, x.seq };
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
    if (host_side(S).armed && !host_side(S).copies) return spin_done(S, err);
    if (host_side(S).copies) {
        if (S.h2d) WRCUDA_CK(cudaStreamSynchronize, (S.h2d));
        if (S.d2h) WRCUDA_CK(cudaStreamSynchronize, (S.d2h));
    }
    WRCUDA_CK(cudaStreamSynchronize, (S.st));
    return WR_SUCCESS;
}

/* Where the last launch of a call writes a result bound for host memory. */
void *host_result(strand &S) { return host_side(S).hres_dev ? (void *)host_side(S).hres_dev : (void *)slot(S, 0); }

/* After that launch: bring the result into hres if the kernel could not
 * write there itself. */
wr_status fetch_result(strand &S, size_t bytes, char *err)
{
    if (!host_side(S).hres_dev) WRCUDA_CK(cudaMemcpyAsync, (host_side(S).hres, slot(S, 0), bytes, cudaMemcpyDeviceToHost, S.st));
    return WR_SUCCESS;
}

/* Copy bytes at hres + off to host dst once the call's work is done. */
void give(strand &S, void *dst, size_t off, size_t bytes)
{
    host_strand &x = host_side(S);
    x.gives[x.ngive++] = host_strand::give{ dst, off, bytes };
}

/* Run fn(strand) on a strand of this context: the shape of every operation. */
template <class Fn>
wr_status with_strand(void *s, char *err, Fn fn)
{
    state *ctx = (state *)s;
    wr_status st = WR_SUCCESS;
    /* Always set, not skipped when cudaGetDevice agrees: a caller's own
     * driver-API context on the same device would also say "dev", and the
     * strands' streams belong to the primary context.  (Cheap when the
     * device is already current.) */
    cudaError_t e = cudaSetDevice(ctx->dev);
    if (e != cudaSuccess) {
        return fail(err, "cudaSetDevice", e);
    }
    strand *S = acquire(ctx, &st, err);
    if (S == nullptr) return st;
    host_strand &x = host_side(*S);
    x.copies = false;
    x.armed = 0;
    x.ngive = 0;
    st = fn(*S);
    if (st == WR_SUCCESS) st = wait_call(*S, err);
    if (st == WR_SUCCESS)
        for (int i = 0; i < x.ngive; i++) memcpy(x.gives[i].dst, x.hres + x.gives[i].off, x.gives[i].bytes);
    if (st != WR_SUCCESS) drain(*S);
    release(ctx, S);
    return st;
}

/* ---- staging ------------------------------------------------------------- */

/* Make bytes of host memory at src visible at S.sdev[b] (issued on S.h2d
 * once reuse_after has fired; S.st waits for the copy).  Pageable memory goes
 * through S.shost[b] first; extra (if any) is a second copy issued with it. */
wr_status stage_in(strand &S, int b, const void *src, size_t bytes, bool pageable, cudaEvent_t reuse_after,
                   char *err, void *x_dst = nullptr, const void *x_src = nullptr, size_t x_bytes = 0)
{
    WRCUDA_CK(cudaStreamWaitEvent, (S.h2d, reuse_after, 0));
    if (bytes) {
        if (pageable) {
            WRCUDA_CK(cudaEventSynchronize, (S.e_in[b]));
            memcpy(S.shost[b], src, bytes);
            src = S.shost[b];
        }
        WRCUDA_CK(cudaMemcpyAsync, (S.sdev[b], src, bytes, cudaMemcpyHostToDevice, S.h2d));
    }
    if (x_bytes) WRCUDA_CK(cudaMemcpyAsync, (x_dst, x_src, x_bytes, cudaMemcpyHostToDevice, S.h2d));
    WRCUDA_CK(cudaEventRecord, (S.e_in[b], S.h2d));
    WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_in[b], 0));
    return WR_SUCCESS;
}

/* Copy bytes from device src to host dst on S.d2h after S.st's work so far:
 * to a pinned dst directly, to a pageable one through S.shost[b] (the caller
 * copies it out with take_out() once e_out[b] fired). */
wr_status stage_out(strand &S, int b, void *dst, const void *src, size_t bytes, bool pageable, char *err)
{
    WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
    WRCUDA_CK(cudaStreamWaitEvent, (S.d2h, S.e_comp[b], 0));
    WRCUDA_CK(cudaMemcpyAsync, (pageable ? S.shost[b] : dst, src, bytes, cudaMemcpyDeviceToHost, S.d2h));
    WRCUDA_CK(cudaEventRecord, (S.e_out[b], S.d2h));
    return WR_SUCCESS;
}

/* A pageable output waiting in S.shost[b]. */
struct pending { void *dst; size_t bytes; };

wr_status take_out(strand &S, int b, pending &p, char *err)
{
    if (p.bytes == 0) return WR_SUCCESS;
    WRCUDA_CK(cudaEventSynchronize, (S.e_out[b]));
    memcpy(p.dst, S.shost[b], p.bytes);
    p.bytes = 0;
    return WR_SUCCESS;
}

/* ---- open / close / describe / locate / copy ------------------------------ */

wr_status cu_open(void **out, const struct wr_host_api *host, char *err)
{
    int n = 0, dev = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    *out = nullptr;
    if (e != cudaSuccess) {
        snprintf(err, WR_ERRLEN, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return WR_ERR_NO_BACKEND;
    }
    if (n == 0) {
        snprintf(err, WR_ERRLEN, "no CUDA-capable device");
        return WR_ERR_NO_BACKEND;
    }
    cudaDeviceProp p;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaSetDevice(dev)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess || (e = cudaFree(nullptr)) != cudaSuccess) {
        snprintf(err, WR_ERRLEN, "opening CUDA device %d: %s", dev, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return WR_ERR_NO_BACKEND;
    }
    cudaFuncAttributes fa;
    if ((e = cudaFuncGetAttributes(&fa, k_probe)) != cudaSuccess) {
        snprintf(err, WR_ERRLEN, "cudaFuncGetAttributes: %s (the plugin has no code for sm_%d%d)",
                 cudaGetErrorString(e), p.major, p.minor);
        (void)cudaGetLastError();
        return WR_ERR_NO_BACKEND;
    }
    state *ctx = new (std::nothrow) state();
    if (ctx == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    ctx->dev = dev;
    ctx->sms = p.multiProcessorCount > 0 ? p.multiProcessorCount : 1;
    ctx->can_map = p.canMapHostMemory != 0;
    /* Spin on done words only where waiting may spin: the application did
     * not ask for blocking or yielding waits (cudaSetDeviceFlags; "auto"
     * spins while the host has more cores than active CUDA contexts, as on
     * any machine this library is meant for), and the environment does not
     * say WARPRED_CUDA_WAIT=sync. */
    unsigned flags = 0;
    if (cudaGetDeviceFlags(&flags) != cudaSuccess) {
        (void)cudaGetLastError();
        flags = cudaDeviceScheduleBlockingSync;
    }
    const unsigned sched = flags & cudaDeviceScheduleMask;
    /* WARPRED_CUDA_WAIT=sync|spin (spin: the default, where waits may spin) */
    const char *w = host->getenv("WARPRED_CUDA_WAIT");
    if (w && *w && strcmp(w, "sync") != 0 && strcmp(w, "spin") != 0) {
        snprintf(err, WR_ERRLEN, "WARPRED_CUDA_WAIT=%.40s: expected sync or spin", w);
        delete ctx;
        return WR_ERR_INVALID_ARG;
    }
    ctx->spin = (sched == cudaDeviceScheduleAuto || sched == cudaDeviceScheduleSpin) && !(w && strcmp(w, "sync") == 0);
    snprintf(ctx->desc, sizeof ctx->desc, "%s (sm_%d%d)", p.name, p.major, p.minor);
    /* WARPRED_CUDA_STAGING_BYTES: size of one staging buffer (tests use small
     * ones to exercise many chunks), at most 16 GiB, rounded up to whole
     * scan tiles (of kScanTileBytes, whatever the type): every chunk of a
     * staged scan then starts on a tile boundary, and the staged scan has the
     * bits of the same scan on device memory (the left fold of
     * scan_tile_state.cuh). */
    size_t sb = (size_t)32 << 20;
    if (host->env_count("WARPRED_CUDA_STAGING_BYTES", 1, (size_t)16 << 30, &sb, err) < 0) {
        delete ctx;
        return WR_ERR_INVALID_ARG;
    }
    const size_t unit = kScanTileBytes;
    sb = (sb + unit - 1) / unit * unit;
    ctx->stage_bytes = sb;
    /* WARPRED_CUDA_SCAN_BLOCKS: the most resident blocks a scan uses, for
     * tests (with few blocks each one scans many tiles in turn: see
     * scan_kernel.cuh); the default is as many as fit */
    size_t nb = 0;
    if (host->env_count("WARPRED_CUDA_SCAN_BLOCKS", 1, 65535, &nb, err) < 0) {
        delete ctx;
        return WR_ERR_INVALID_ARG;
    }
    ctx->scan_blocks = (unsigned)nb;
    try {
        ctx->all.reserve(64);
        ctx->idle.reserve(64);
    } catch (...) {
        delete ctx;
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    *out = ctx;
    return WR_SUCCESS;
}

void cu_close(void *s)
{
    state *ctx = (state *)s;
    if (ctx == nullptr) return;
    (void)cudaSetDevice(ctx->dev);
    for (strand *S : ctx->all) strand_destroy(S);
    delete ctx;
}

void cu_describe(void *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((state *)s)->desc);
}

int cu_threads(void *) { return 0; }

wr_mem_kind cu_locate(void *s, const void *p)
{
    if (cudaSetDevice(((state *)s)->dev) != cudaSuccess) (void)cudaGetLastError();
    return kind_of(p);
}

wr_status cu_set_stream(void *, void *, char *err)
{
    snprintf(err, WR_ERRLEN, "stream-ordered calls are not available yet");
    return WR_ERR_NO_BACKEND;
}

/* Every call completes before it returns: nothing is left to wait for. */
wr_status cu_synchronize(void *, char *) { return WR_SUCCESS; }

/* check_offsets of offsets in device or managed memory, on the device. */
wr_status cu_check_offsets(void *s, const size_t *offsets, size_t nseg, size_t sum[5], char *err)
{
    WRCUDA_TRY(with_strand(s, err, [&](strand &S) -> wr_status {
        WRCUDA_TRY(launch_check_offsets(S, offsets, nseg, (size_t *)host_result(S), err));
        WRCUDA_TRY(fetch_result(S, 3 * sizeof(size_t), err));
        give(S, sum, 0, 3 * sizeof(size_t));
        return WR_SUCCESS;
    }));
    if (sum[2] == SIZE_MAX) return WR_SUCCESS;
    return with_strand(s, err, [&](strand &S) -> wr_status {   /* the two offsets the error names */
        WRCUDA_CK(cudaMemcpyAsync, (sum + 3, offsets + sum[2], 2 * sizeof(size_t), cudaMemcpyDefault, S.st));
        return WR_SUCCESS;
    });
}

/* ---- reduce ---------------------------------------------------------------- */

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

wr_status cu_reduce(void *s, const wr_call *call, const void *in, void *out, size_t count, wr_type t, wr_op o,
                    char *err)
{
    state *ctx = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const bool out_dev = dev_ok(call->out);
        if (count == 0) {
            unsigned char id[8];
            wr_identity(t, o, id);
            if (!out_dev) {                            /* host memory: no device call at all */
                memcpy(out, id, es);
                return WR_SUCCESS;
            }
            /* from the strand's pinned result area, not from the stack: a truly
             * asynchronous copy (a pageable source is staged by the driver) */
            memcpy(host_side(S).hres, id, es);
            WRCUDA_CK(cudaMemcpyAsync, (out, host_side(S).hres, es, cudaMemcpyDefault, S.st));
            return WR_SUCCESS;                         /* wait_call() synchronises */
        }
        /* Chunks of a staged input fold into slot 0 on the device (the carry);
         * the last launch writes the result where it is going: out itself
         * when the device can reach it, else the strand's host result area. */
        void *acc = out_dev ? out : (void *)slot(S, 0);
        void *fin = out_dev ? out : host_result(S);
        WRCUDA_TRY(each_chunk(ctx, S, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            /* (a strand whose hres is not mapped has no done word: fetch_result's
             * copy is then waited for by synchronising) */
            const bool last = off + len == count;
            return launch_reduce(S, d, len, t, o, last ? fin : acc, off ? acc : nullptr, last ? arm(S) : kNoDone, err);
        }));
        if (!out_dev) {
            WRCUDA_TRY(fetch_result(S, es, err));
            give(S, out, 0, es);
        }
        return WR_SUCCESS;
    });
}

/* ---- argmin / argmax --------------------------------------------------------- */

wr_status cu_argext(void *s, const wr_call *call, const void *in, size_t count, wr_type t, int is_max,
                    size_t *index, void *value, char *err)
{
    state *ctx = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_strand(s, err, [&](strand &S) -> wr_status {
        /* The pair {size_t index; T value} chains through slot 0; when both
         * outputs are host memory the last launch writes it into the strand's
         * host result area, else into slot 0, copied to each output. */
        unsigned char *acc = slot(S, 0);
        const bool to_host =
            !dev_ok(call->out) && (value == nullptr || !dev_ok(call->aux));
        void *fin = to_host ? host_result(S) : (void *)acc;
        WRCUDA_TRY(each_chunk(ctx, S, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            const bool last = off + len == count;     /* to device outputs, copies follow it */
            return launch_argext(S, d, len, t, is_max, off, last ? fin : acc, off ? acc : nullptr,
                                 last && to_host ? arm(S) : kNoDone, err);
        }));
        if (to_host) {
            WRCUDA_TRY(fetch_result(S, 8 + es, err));
            give(S, index, 0, sizeof(size_t));
            if (value) give(S, value, 8, es);
            return WR_SUCCESS;
        }
        WRCUDA_CK(cudaMemcpyAsync, (index, acc, sizeof(size_t), cudaMemcpyDefault, S.st));
        if (value) WRCUDA_CK(cudaMemcpyAsync, (value, acc + 8, es, cudaMemcpyDefault, S.st));
        return WR_SUCCESS;
    });
}

/* ---- scan ---------------------------------------------------------------------- */

wr_status cu_scan(void *s, const wr_call *call, const void *in, void *out, size_t count, wr_type t, wr_op o,
                  int exclusive, char *err)
{
    state *ctx = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const wr_mem_kind kin = call->in, kout = call->out;
        if (dev_ok(kin) && dev_ok(kout))
            return launch_scan(S, in, out, count, t, o, exclusive, nullptr, nullptr, arm(S), err);

        WRCUDA_TRY(ensure_staging(ctx, S, err));
        const bool in_dev = dev_ok(kin), out_dev = dev_ok(kout), out_pageable = kout == WR_MEM_HOST;
        const size_t C = S.sbytes / es;            /* whole tiles: staged == in-place bits */
        pending pend[kStagingBufs] = {};
        for (size_t k = 0, off = 0; off < count; k++, off += C) {
            const int b = (int)(k % kStagingBufs);
            const size_t len = count - off < C ? count - off : C;
            const char *src = (const char *)in + off * es;
            char *dst = (char *)out + off * es;
            WRCUDA_TRY(take_out(S, b, pend[b], err));                 /* frees S.shost[b] */
            const void *dsrc = src;
            if (!in_dev) {
                WRCUDA_TRY(stage_in(S, b, src, len * es, kin == WR_MEM_HOST, out_dev ? S.e_comp[b] : S.e_out[b], err));
                dsrc = S.sdev[b];
            } else {
                WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_out[b], 0));  /* S.sdev[b] copied out */
            }
            void *ddst = out_dev ? (void *)dst : S.sdev[b];
            WRCUDA_TRY(launch_scan(S, dsrc, ddst, len, t, o, exclusive, k ? slot(S, 1 + (int)((k + 1) % 2)) : nullptr,
                                slot(S, 1 + (int)(k % 2)), kNoDone, err));
            if (out_dev) {
                WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
            } else {
                WRCUDA_TRY(stage_out(S, b, dst, S.sdev[b], len * es, out_pageable, err));
                if (out_pageable) pend[b] = { dst, len * es };
            }
        }
        for (int b = 0; b < kStagingBufs; b++) WRCUDA_TRY(take_out(S, b, pend[b], err));
        return WR_SUCCESS;
    });
}

/* ---- rows and segments ------------------------------------------------------------ */

/*
 * Segmented work on host memory (input or output): chunks of at most
 * S.sbytes of input and S.soff_n - 1 segments.  A segment cut by a chunk's
 * end leaves its partial in a carry slot; the next chunk's first result is
 * combined with it (launch_seg_fix), in order.  begin(t) gives segment t's
 * first element as an index into in.
 */
template <class Begin>
wr_status segments_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                          size_t nseg, Begin begin, wr_type t, wr_op o, char *err)
{
    const size_t es = wr_backend_type_size(t);
    WRCUDA_TRY(ensure_seg_staging(ctx, S, err));
    const bool in_dev = dev_ok(kin), out_dev = dev_ok(kout), out_pageable = kout == WR_MEM_HOST;
    const size_t C = S.sbytes / es, smax = S.soff_n - 1, end = begin(nseg);
    pending pend[kStagingBufs] = {};
    size_t s = 0, c0 = 0;
    bool cont = false;
    for (size_t k = 0; s < nseg; k++) {
        const int b = (int)(k % kStagingBufs);
        WRCUDA_TRY(take_out(S, b, pend[b], err));
        if (!cont) c0 = begin(s);
        const size_t c1 = end - c0 < C ? end : c0 + C;
        WRCUDA_CK(cudaEventSynchronize, (S.e_in[b]));             /* S.soff_host[b] is free */
        size_t *ho = S.soff_host[b], m = 0;
        bool last_cont = false;
        ho[0] = 0;
        while (s + m < nseg && m < smax) {
            const size_t sb = begin(s + m), se = begin(s + m + 1);
            if (sb >= c1 && se > sb) break;                       /* starts in a later chunk */
            ho[m + 1] = (se < c1 ? se : c1) - c0;
            m++;
            if (se > c1) { last_cont = true; break; }
        }
        const size_t len = ho[m];
        const char *src = (const char *)in + c0 * es;
        const void *dsrc = src;
        if (!in_dev) {
            WRCUDA_TRY(stage_in(S, b, src, len * es, kin == WR_MEM_HOST, out_dev ? S.e_comp[b] : S.e_out[b], err,
                             S.soff_dev[b], ho, (m + 1) * sizeof(size_t)));
            dsrc = S.sdev[b];
        } else {
            WRCUDA_CK(cudaStreamWaitEvent, (S.h2d, S.e_comp[b], 0));
            WRCUDA_CK(cudaMemcpyAsync, (S.soff_dev[b], ho, (m + 1) * sizeof(size_t), cudaMemcpyHostToDevice, S.h2d));
            WRCUDA_CK(cudaEventRecord, (S.e_in[b], S.h2d));
            WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_in[b], 0));
        }
        if (!out_dev) WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_out[b], 0));   /* S.sres[b] copied out */
        char *res = out_dev ? (char *)out + s * es : (char *)S.sres[b];
        WRCUDA_TRY(launch_segments(S, dsrc, res, m, S.soff_dev[b], 0, 0, (double)len / (double)m, t, o, kNoDone, err));
        if (cont || last_cont)
            WRCUDA_TRY(launch_seg_fix(S, res, m, slot(S, 1 + (int)((k + 1) % 2)), slot(S, 1 + (int)(k % 2)),
                                   cont, last_cont, t, o, err));
        const size_t done = last_cont ? m - 1 : m;
        if (out_dev) {
            WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
        } else {
            char *dst = (char *)out + s * es;
            WRCUDA_TRY(stage_out(S, b, dst, res, done * es, out_pageable, err));
            if (out_pageable) pend[b] = { dst, done * es };
        }
        s += done;
        cont = last_cont;
        c0 += len;
    }
    for (int b = 0; b < kStagingBufs; b++) WRCUDA_TRY(take_out(S, b, pend[b], err));
    return WR_SUCCESS;
}

wr_status cu_reduce_rows(void *s, const wr_call *call, const void *in, void *out, size_t rows, size_t cols,
                         wr_type t, wr_op o, char *err)
{
    state *ctx = (state *)s;
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const wr_mem_kind kin = rows * cols != 0 ? call->in : WR_MEM_DEVICE, kout = call->out;
        if (dev_ok(kin) && dev_ok(kout))
            return launch_segments(S, in, out, rows, nullptr, 0, cols, (double)cols, t, o, arm(S), err);
        return segments_staged(ctx, S, in, kin, out, kout, rows, [cols](size_t r) { return r * cols; }, t, o, err);
    });
}

wr_status cu_reduce_segments(void *s, const wr_call *call, const void *in, void *out, size_t nseg,
                             const size_t *offsets, wr_type t, wr_op o, char *err)
{
    state *ctx = (state *)s;
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const wr_mem_kind koff = call->aux, kout = call->out;
        const size_t obytes = (nseg + 1) * sizeof(size_t);
        /* Host-readable offsets: the caller's when they are host memory;
         * else a copy, made only when the input or the output is host
         * memory (staged chunks need every offset on the host).  Managed
         * offsets count as device ones: the host must not touch managed
         * memory while another thread's kernel may run on a device without
         * concurrent managed access. */
        const bool off_dev = koff == WR_MEM_DEVICE || koff == WR_MEM_MANAGED;
        const size_t *hoff = off_dev ? nullptr : offsets;
        std::vector<size_t> copy;
        auto copy_offsets = [&]() -> wr_status {
            try { copy.resize(nseg + 1); } catch (...) {
                snprintf(err, WR_ERRLEN, "out of host memory for %zu offsets", nseg + 1);
                return WR_ERR_NO_MEMORY;
            }
            WRCUDA_CK(cudaMemcpyAsync, (copy.data(), offsets, obytes, cudaMemcpyDeviceToHost, S.st));
            WRCUDA_CK(cudaStreamSynchronize, (S.st));
            hoff = copy.data();
            return WR_SUCCESS;
        };
        const size_t total = call->last - call->first;
        const wr_mem_kind kin = total ? call->in : WR_MEM_DEVICE;
        if (dev_ok(kin) && dev_ok(kout)) {
            const size_t *doff = offsets;
            if (!dev_ok(koff)) {                      /* host offsets: give the kernel a copy */
                WRCUDA_TRY(grow(S, S.doff, &S.doff_cap, obytes, false, "segment offsets", err));
                WRCUDA_CK(cudaMemcpyAsync, (S.doff, offsets, obytes, cudaMemcpyHostToDevice, S.st));
                doff = S.doff;
            }
            return launch_segments(S, in, out, nseg, doff, 0, 0, (double)total / (double)nseg, t, o, arm(S), err);
        }
        if (!hoff) WRCUDA_TRY(copy_offsets());
        return segments_staged(ctx, S, in, kin, out, kout, nseg, [hoff](size_t i) { return hoff[i]; }, t, o, err);
    });
}

} /* namespace */

/* ---- shared helpers (backend.cuh) ------------------------------------------------------ */

wr_status fail(char *err, const char *call, cudaError_t e)
{
    snprintf(err, WR_ERRLEN, "%s: %s", call, cudaGetErrorString(e));
    (void)cudaGetLastError();        /* a non-sticky error must not poison the next call */
    return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
}

wr_status grow(strand &S, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    if (*p != nullptr && need <= *cap) return WR_SUCCESS;
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

} /* namespace wrcuda */

/* The plugin's one exported name (lib/plugin.c dlsym()s it). */
extern "C" WRCUDA_EXPORT const struct wr_backend_ops warpred_backend_ops = {
    /* abi             */ WR_BACKEND_ABI,
    /* name            */ "cuda",
    /* open            */ wrcuda::cu_open,
    /* close           */ wrcuda::cu_close,
    /* describe        */ wrcuda::cu_describe,
    /* threads         */ wrcuda::cu_threads,
    /* locate          */ wrcuda::cu_locate,
    /* check_offsets   */ wrcuda::cu_check_offsets,
    /* set_stream      */ wrcuda::cu_set_stream,
    /* synchronize     */ wrcuda::cu_synchronize,
    /* reduce          */ wrcuda::cu_reduce,
    /* scan            */ wrcuda::cu_scan,
    /* reduce_rows     */ wrcuda::cu_reduce_rows,
    /* reduce_segments */ wrcuda::cu_reduce_segments,
    /* argext          */ wrcuda::cu_argext,
};

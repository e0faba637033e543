/*
 * warpred_cuda.cu -- the CUDA backend: a plugin that exports one symbol,
 * warpred_backend_ops (see lib/wr_backend.h), and nothing else.
 *
 * This file holds what is not a kernel: opening the device, telling where a
 * buffer lives, the pool of per-call resources ("lanes"), and the staging
 * pipelines that stream host-resident buffers through pinned memory.
 *
 * Residency.  Device and managed buffers are used in place.  A host buffer
 * (pageable or pinned) is streamed in chunks through kStages device buffers:
 * pinned memory is copied by DMA straight from/to the caller's buffer,
 * pageable memory first through pinned staging buffers.  Copies in, kernels
 * and copies out run on three streams ordered by events, so chunk k+1 is
 * copied in while chunk k is computed and chunk k-1 copied out, and the
 * device memory a call holds for host data is kStages staging buffers
 * whatever the array's size.  Scans carry the running prefix from chunk to
 * chunk on the device; chunks are whole scan tiles, so a staged scan gives
 * the same bits as the same scan on device memory.
 *
 * Threads.  Each call takes a lane (stream, scratch, staging) from the
 * context's pool and returns it, so threads sharing a context run their
 * calls concurrently on separate streams; scratch is allocated when a lane is
 * made and grown only when a call needs more, never on the steady-state path.
 * The streams are ordinary (blocking) streams: a call starts after the work
 * the caller queued on the legacy default stream (a cudaMemset or kernel
 * that prepared the input), as a call on stream 0 would.
 *
 * The end of a call.  A call whose last launch is one kernel on device
 * memory (reduce, argmin/argmax, scans, rows, segments) learns that it is done
 * from the kernel itself: the block that finishes the work stores a
 * sequence number into a mapped word of the lane, and the host spins on it
 * (done_sig in wrc.cuh), 1-2 us sooner than cudaStreamSynchronize.  The
 * spin asks cudaStreamQuery now and then, so a kernel that fails (and never
 * stores) ends the wait with its error.  Where the application asked the
 * device to block or yield while waiting (cudaSetDeviceFlags), or with
 * WARPRED_CUDA_WAIT=sync in the environment, calls wait with
 * cudaStreamSynchronize as the others do.
 *
 * Errors.  Every CUDA failure becomes WR_ERR_DEVICE (out of memory:
 * WR_ERR_NO_MEMORY) with "call: CUDA error string" in err; the lane's streams
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
#include "wrc.cuh"
#include "exact.cuh"

#define WRC_EXPORT __attribute__((visibility("default")))

namespace wrc {

namespace {

struct state {
    int dev;
    int sms;
    bool can_map;                /* the device can write mapped pinned host memory */
    bool spin;                   /* calls may spin on the lane's done word (see "The end of a call") */
    char desc[300];
    size_t stage_bytes;          /* per staging buffer */
    unsigned scan_blocks;        /* WARPRED_CUDA_SCAN_BLOCKS (0: as many as fit) */
    std::mutex mu;
    std::vector<lane *> idle;    /* lanes not in use */
    std::vector<lane *> all;
};

/*
 * A lane as this file sees it: the shared part (wrc.cuh) plus what only the
 * call machinery here uses.
 *
 * Result delivery.  A reduce or argmin/argmax whose result goes to host
 * memory has its last kernel write the result straight into hres, a small
 * pinned host area mapped into the device's address space (zero-copy: the
 * store crosses PCIe as part of the kernel), and with_lane() copies it to
 * the caller with memcpy once the stream is synchronised.  Before, the
 * result went to a device slot and came back with a cudaMemcpyAsync to the
 * caller's variable, which for pageable memory is a staged, synchronous copy
 * (several microseconds of the ~13 a small call took).  Without mapping
 * (a device that cannot, or cudaHostGetDevicePointer refused) the kernel
 * writes slot 0 and a device-to-pinned cudaMemcpyAsync brings it into hres:
 * asynchronous, still no pageable copy.
 */
struct lane_x : lane {
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

lane_x &X(lane &L) { return static_cast<lane_x &>(L); }

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

unsigned char *slot(lane &L, int i) { return L.slot + (size_t)i * kSlotBytes; }

/* ---- lanes --------------------------------------------------------------- */

void lane_destroy(lane *L)
{
    if (L == nullptr) return;
    if (L->st) (void)cudaStreamSynchronize(L->st);
    if (L->h2d) (void)cudaStreamSynchronize(L->h2d);
    if (L->d2h) (void)cudaStreamSynchronize(L->d2h);
    cudaFree(L->ctr);
    cudaFree(L->slot);
    cudaFree(L->part);
    cudaFree(L->sblk);
    cudaFree(L->segctr);
    cudaFree(L->doff);
    cudaFree(L->xs);
    cudaFreeHost(X(*L).hres);
    for (int b = 0; b < kStages; b++) {
        cudaFree(L->sdev[b]);
        cudaFreeHost(L->shost[b]);
        cudaFree(L->soff_dev[b]);
        cudaFreeHost(L->soff_host[b]);
        cudaFree(L->sres[b]);
        if (L->e_in[b]) cudaEventDestroy(L->e_in[b]);
        if (L->e_comp[b]) cudaEventDestroy(L->e_comp[b]);
        if (L->e_out[b]) cudaEventDestroy(L->e_out[b]);
    }
    if (L->st) cudaStreamDestroy(L->st);
    if (L->h2d) cudaStreamDestroy(L->h2d);
    if (L->d2h) cudaStreamDestroy(L->d2h);
    (void)cudaGetLastError();
    delete &X(*L);
}

wr_status lane_create(state *S, lane **out, char *err)
{
    lane_x *L = new (std::nothrow) lane_x();
    wr_status st = WR_SUCCESS;
    if (L == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory for a CUDA stream's state");
        return WR_ERR_NO_MEMORY;
    }
    L->sms = S->sms;
    L->scan_blocks = S->scan_blocks;
    st = [&]() -> wr_status {
        WRC_CK(cudaStreamCreateWithFlags, (&L->st, cudaStreamDefault));
        WRC_CK(cudaMalloc, ((void **)&L->ctr, 64));
        WRC_CK(cudaMemsetAsync, (L->ctr, 0, 64, L->st));
        WRC_CK(cudaMalloc, ((void **)&L->slot, kSlots * kSlotBytes));
        WRC_CK(cudaMemsetAsync, (L->slot, 0, kSlots * kSlotBytes, L->st));
        WRC_CK(cudaMalloc, (&L->part, (size_t)kMaxGrid * 16));
        L->part_cap = (size_t)kMaxGrid * 16;
        const unsigned hflags = S->can_map ? cudaHostAllocMapped : cudaHostAllocDefault;
        WRC_CK(cudaHostAlloc, ((void **)&L->hres, 2 * kSlotBytes, hflags));
        if (S->can_map && cudaHostGetDevicePointer((void **)&L->hres_dev, L->hres, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            L->hres_dev = nullptr;                /* fall back to a copy into hres */
        }
        if (L->hres_dev && S->spin) {             /* the done word: the second slot of hres */
            L->done_host = (unsigned *)(L->hres + kSlotBytes);
            L->done_dev = (unsigned *)(L->hres_dev + kSlotBytes);
            *L->done_host = 0;
        }
        return WR_SUCCESS;
    }();
    if (st != WR_SUCCESS) {
        lane_destroy(L);
        return st;
    }
    *out = L;
    return WR_SUCCESS;
}

/* The staging buffers and copy streams, made on a lane's first host-memory call. */
wr_status ensure_staging(state *S, lane &L, char *err)
{
    X(L).copies = true;                     /* every user of h2d/d2h comes through here */
    if (L.sbytes) return WR_SUCCESS;
    /* after a failure (out of memory) the next call completes what is missing */
    if (!L.h2d) WRC_CK(cudaStreamCreateWithFlags, (&L.h2d, cudaStreamDefault));
    if (!L.d2h) WRC_CK(cudaStreamCreateWithFlags, (&L.d2h, cudaStreamDefault));
    for (int b = 0; b < kStages; b++) {
        if (!L.sdev[b]) WRC_CK(cudaMalloc, (&L.sdev[b], S->stage_bytes));
        if (!L.shost[b]) WRC_CK(cudaHostAlloc, (&L.shost[b], S->stage_bytes, cudaHostAllocDefault));
        if (!L.e_in[b]) WRC_CK(cudaEventCreateWithFlags, (&L.e_in[b], cudaEventDisableTiming));
        if (!L.e_comp[b]) WRC_CK(cudaEventCreateWithFlags, (&L.e_comp[b], cudaEventDisableTiming));
        if (!L.e_out[b]) WRC_CK(cudaEventCreateWithFlags, (&L.e_out[b], cudaEventDisableTiming));
    }
    L.sbytes = S->stage_bytes;
    return WR_SUCCESS;
}

/* Per-chunk offsets and results for segmented work on host memory. */
wr_status ensure_seg_staging(state *S, lane &L, char *err)
{
    WRC_TRY(ensure_staging(S, L, err));
    if (L.soff_n) return WR_SUCCESS;
    const size_t n = L.sbytes / 32;          /* segments per chunk, +1 offsets */
    for (int b = 0; b < kStages; b++) {
        if (!L.soff_dev[b]) WRC_CK(cudaMalloc, ((void **)&L.soff_dev[b], (n + 1) * sizeof(size_t)));
        if (!L.soff_host[b])
            WRC_CK(cudaHostAlloc, ((void **)&L.soff_host[b], (n + 1) * sizeof(size_t), cudaHostAllocDefault));
        if (!L.sres[b]) WRC_CK(cudaMalloc, (&L.sres[b], n * 8));
    }
    L.soff_n = n + 1;
    return WR_SUCCESS;
}

lane *acquire(state *S, wr_status *st, char *err)
{
    lane *L = nullptr;
    {
        std::lock_guard<std::mutex> g(S->mu);
        if (!S->idle.empty()) {
            L = S->idle.back();
            S->idle.pop_back();
            return L;
        }
    }
    *st = lane_create(S, &L, err);
    if (*st != WR_SUCCESS) return nullptr;
    try {
        std::lock_guard<std::mutex> g(S->mu);
        S->all.push_back(L);
        S->idle.reserve(S->all.size());       /* so that release() never allocates */
    } catch (...) {
        lane_destroy(L);
        snprintf(err, WR_ERRLEN, "out of host memory for the stream pool");
        *st = WR_ERR_NO_MEMORY;
        return nullptr;
    }
    return L;
}

void release(state *S, lane *L)
{
    std::lock_guard<std::mutex> g(S->mu);
    S->idle.push_back(L);      /* no allocation: idle has room for every lane */
}

/* Let everything queued on the lane finish (or fail) and forget the error. */
void drain(lane &L)
{
    if (L.st) (void)cudaStreamSynchronize(L.st);
    if (L.h2d) (void)cudaStreamSynchronize(L.h2d);
    if (L.d2h) (void)cudaStreamSynchronize(L.d2h);
    (void)cudaGetLastError();
}

/* The done word for a call's last launch (kNoDone where the lane has none:
 * finish() then synchronises the stream).  Only the launch after which
 * nothing else is queued may take it. */
done_sig arm(lane &L)
{
    lane_x &x = X(L);
    if (x.done_host == nullptr) return kNoDone;
    if (++x.seq == 0) ++x.seq;                /* 0 is "nothing yet" */
    x.armed = x.seq;
    return done_sig{ x.done_dev, x.seq };
}

/* Spin until the armed launch has stored its number, or the stream has
 * finished (then everything is complete anyway), or failed. */
wr_status wait_done(lane &L, char *err)
{
    const lane_x &x = X(L);
    for (unsigned i = 1; __atomic_load_n(x.done_host, __ATOMIC_ACQUIRE) != x.armed; i++) {
        if (i % 256 == 0) {
            const cudaError_t e = cudaStreamQuery(L.st);
            if (e == cudaSuccess) break;
            if (e != cudaErrorNotReady) return fail(err, "cudaStreamQuery", e);
        }
    }
    return WR_SUCCESS;
}

/* Wait for the call's work: the copy streams only when this call used them
 * (a call on device memory leaves them idle: two synchronisations saved),
 * the kernel stream by its done word when the last launch took one. */
wr_status finish(lane &L, char *err)
{
    if (X(L).armed && !X(L).copies) return wait_done(L, err);
    if (X(L).copies) {
        if (L.h2d) WRC_CK(cudaStreamSynchronize, (L.h2d));
        if (L.d2h) WRC_CK(cudaStreamSynchronize, (L.d2h));
    }
    WRC_CK(cudaStreamSynchronize, (L.st));
    return WR_SUCCESS;
}

/* Where the last launch of a call writes a result bound for host memory. */
void *host_result(lane &L) { return X(L).hres_dev ? (void *)X(L).hres_dev : (void *)slot(L, 0); }

/* After that launch: bring the result into hres if the kernel could not
 * write there itself. */
wr_status fetch_result(lane &L, size_t bytes, char *err)
{
    if (!X(L).hres_dev) WRC_CK(cudaMemcpyAsync, (X(L).hres, slot(L, 0), bytes, cudaMemcpyDeviceToHost, L.st));
    return WR_SUCCESS;
}

/* Copy bytes at hres + off to host dst once the call's work is done. */
void give(lane &L, void *dst, size_t off, size_t bytes)
{
    lane_x &x = X(L);
    x.gives[x.ngive++] = lane_x::give{ dst, off, bytes };
}

/* Run fn(lane) on a lane of this context: the shape of every operation. */
template <class Fn>
wr_status with_lane(void *s, char *err, Fn fn)
{
    state *S = (state *)s;
    wr_status st = WR_SUCCESS;
    /* Always set, not skipped when cudaGetDevice agrees: a caller's own
     * driver-API context on the same device would also say "dev", and the
     * lanes' streams belong to the primary context.  (Cheap when the
     * device is already current.) */
    cudaError_t e = cudaSetDevice(S->dev);
    if (e != cudaSuccess) {
        return fail(err, "cudaSetDevice", e);
    }
    lane *L = acquire(S, &st, err);
    if (L == nullptr) return st;
    lane_x &x = X(*L);
    x.copies = false;
    x.armed = 0;
    x.ngive = 0;
    st = fn(*L);
    if (st == WR_SUCCESS) st = finish(*L, err);
    if (st == WR_SUCCESS)
        for (int i = 0; i < x.ngive; i++) memcpy(x.gives[i].dst, x.hres + x.gives[i].off, x.gives[i].bytes);
    if (st != WR_SUCCESS) drain(*L);
    release(S, L);
    return st;
}

/* ---- staging ------------------------------------------------------------- */

/* Make bytes of host memory at src visible at L.sdev[b] (issued on L.h2d
 * once reuse_after has fired; L.st waits for the copy).  Pageable memory goes
 * through L.shost[b] first; extra (if any) is a second copy issued with it. */
wr_status stage_in(lane &L, int b, const void *src, size_t bytes, bool pageable, cudaEvent_t reuse_after,
                   char *err, void *x_dst = nullptr, const void *x_src = nullptr, size_t x_bytes = 0)
{
    WRC_CK(cudaStreamWaitEvent, (L.h2d, reuse_after, 0));
    if (bytes) {
        if (pageable) {
            WRC_CK(cudaEventSynchronize, (L.e_in[b]));
            memcpy(L.shost[b], src, bytes);
            src = L.shost[b];
        }
        WRC_CK(cudaMemcpyAsync, (L.sdev[b], src, bytes, cudaMemcpyHostToDevice, L.h2d));
    }
    if (x_bytes) WRC_CK(cudaMemcpyAsync, (x_dst, x_src, x_bytes, cudaMemcpyHostToDevice, L.h2d));
    WRC_CK(cudaEventRecord, (L.e_in[b], L.h2d));
    WRC_CK(cudaStreamWaitEvent, (L.st, L.e_in[b], 0));
    return WR_SUCCESS;
}

/* Copy bytes from device src to host dst on L.d2h after L.st's work so far:
 * to a pinned dst directly, to a pageable one through L.shost[b] (the caller
 * copies it out with take_out() once e_out[b] fired). */
wr_status stage_out(lane &L, int b, void *dst, const void *src, size_t bytes, bool pageable, char *err)
{
    WRC_CK(cudaEventRecord, (L.e_comp[b], L.st));
    WRC_CK(cudaStreamWaitEvent, (L.d2h, L.e_comp[b], 0));
    WRC_CK(cudaMemcpyAsync, (pageable ? L.shost[b] : dst, src, bytes, cudaMemcpyDeviceToHost, L.d2h));
    WRC_CK(cudaEventRecord, (L.e_out[b], L.d2h));
    return WR_SUCCESS;
}

/* A pageable output waiting in L.shost[b]. */
struct pending { void *dst; size_t bytes; };

wr_status take_out(lane &L, int b, pending &p, char *err)
{
    if (p.bytes == 0) return WR_SUCCESS;
    WRC_CK(cudaEventSynchronize, (L.e_out[b]));
    memcpy(p.dst, L.shost[b], p.bytes);
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
    state *S = new (std::nothrow) state();
    if (S == nullptr) {
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    S->dev = dev;
    S->sms = p.multiProcessorCount > 0 ? p.multiProcessorCount : 1;
    S->can_map = p.canMapHostMemory != 0;
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
        delete S;
        return WR_ERR_INVALID_ARG;
    }
    S->spin = (sched == cudaDeviceScheduleAuto || sched == cudaDeviceScheduleSpin) && !(w && strcmp(w, "sync") == 0);
    snprintf(S->desc, sizeof S->desc, "%s (sm_%d%d)", p.name, p.major, p.minor);
    /* WARPRED_CUDA_STAGING_BYTES: size of one staging buffer (tests use small
     * ones to exercise many chunks), at most 16 GiB, rounded up to whole
     * scan tiles (of kScanTileBytes, whatever the type): every chunk of a
     * staged scan then starts on a tile boundary, and the staged scan has the
     * bits of the same scan on device memory (the left fold of wrc_scan.cu). */
    size_t sb = (size_t)32 << 20;
    if (host->env_count("WARPRED_CUDA_STAGING_BYTES", 1, (size_t)16 << 30, &sb, err) < 0) {
        delete S;
        return WR_ERR_INVALID_ARG;
    }
    const size_t unit = kScanTileBytes;
    sb = (sb + unit - 1) / unit * unit;
    S->stage_bytes = sb;
    /* WARPRED_CUDA_SCAN_BLOCKS: the most resident blocks a scan uses, for
     * tests (with few blocks each one scans many tiles in turn: see
     * k_scan_ws in wrc_scan.cu); the default is as many as fit */
    size_t nb = 0;
    if (host->env_count("WARPRED_CUDA_SCAN_BLOCKS", 1, 65535, &nb, err) < 0) {
        delete S;
        return WR_ERR_INVALID_ARG;
    }
    S->scan_blocks = (unsigned)nb;
    try {
        S->all.reserve(64);
        S->idle.reserve(64);
    } catch (...) {
        delete S;
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    *out = S;
    return WR_SUCCESS;
}

void cu_close(void *s)
{
    state *S = (state *)s;
    if (S == nullptr) return;
    (void)cudaSetDevice(S->dev);
    for (lane *L : S->all) lane_destroy(L);
    delete S;
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
    WRC_TRY(with_lane(s, err, [&](lane &L) -> wr_status {
        WRC_TRY(launch_check_offsets(L, offsets, nseg, (size_t *)host_result(L), err));
        WRC_TRY(fetch_result(L, 3 * sizeof(size_t), err));
        give(L, sum, 0, 3 * sizeof(size_t));
        return WR_SUCCESS;
    }));
    if (sum[2] == SIZE_MAX) return WR_SUCCESS;
    return with_lane(s, err, [&](lane &L) -> wr_status {   /* the two offsets the error names */
        WRC_CK(cudaMemcpyAsync, (sum + 3, offsets + sum[2], 2 * sizeof(size_t), cudaMemcpyDefault, L.st));
        return WR_SUCCESS;
    });
}

/* ---- reduce ---------------------------------------------------------------- */

/* Enqueue launch(device pointer, len, offset) over count elements of in: once
 * over the whole array when the device can read it, else chunk by chunk
 * through the staging buffers (a chunk's launch folds its result onto the
 * previous chunks', so it needs to know its offset). */
template <class Launch>
wr_status each_chunk(state *S, lane &L, const void *in, wr_mem_kind kin, size_t count, size_t es, char *err,
                     Launch launch)
{
    if (dev_ok(kin)) return launch(in, count, 0);
    WRC_TRY(ensure_staging(S, L, err));
    const size_t C = L.sbytes / es;
    for (size_t k = 0, off = 0; off < count; k++, off += C) {
        const int b = (int)(k % kStages);
        const size_t len = count - off < C ? count - off : C;
        WRC_TRY(stage_in(L, b, (const char *)in + off * es, len * es, kin == WR_MEM_HOST, L.e_comp[b], err));
        WRC_TRY(launch(L.sdev[b], len, off));
        WRC_CK(cudaEventRecord, (L.e_comp[b], L.st));
    }
    return WR_SUCCESS;
}

wr_status cu_reduce(void *s, const wr_call *call, const void *in, void *out, size_t count, wr_type t, wr_op o,
                    char *err)
{
    state *S = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_lane(s, err, [&](lane &L) -> wr_status {
        const bool out_dev = dev_ok(call->out);
        if (count == 0) {
            unsigned char id[8];
            wr_identity(t, o, id);
            if (!out_dev) {                            /* host memory: no device call at all */
                memcpy(out, id, es);
                return WR_SUCCESS;
            }
            /* from the lane's pinned result area, not from the stack: a truly
             * asynchronous copy (a pageable source is staged by the driver) */
            memcpy(X(L).hres, id, es);
            WRC_CK(cudaMemcpyAsync, (out, X(L).hres, es, cudaMemcpyDefault, L.st));
            return WR_SUCCESS;                         /* finish() synchronises */
        }
        /* Chunks of a staged input fold into slot 0 on the device (the carry);
         * the last launch writes the result where it is going: out itself
         * when the device can reach it, else the lane's host result area. */
        void *acc = out_dev ? out : (void *)slot(L, 0);
        void *fin = out_dev ? out : host_result(L);
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (exact) WRC_TRY(exact_scratch(L, err));
        WRC_TRY(each_chunk(S, L, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            /* (a lane whose hres is not mapped has no done word: fetch_result's
             * copy is then waited for by synchronising) */
            const bool last = off + len == count;
            if (exact)          /* chunks carry an exact accumulator, not a rounded value */
                return launch_exact_reduce(L, d, len, t, off ? exact_carry(L, 0) : nullptr,
                                           last ? nullptr : exact_carry(L, 0), last ? fin : nullptr,
                                           last ? arm(L) : kNoDone, err);
            return launch_reduce(L, d, len, t, o, last ? fin : acc, off ? acc : nullptr, last ? arm(L) : kNoDone, err);
        }));
        if (!out_dev) {
            WRC_TRY(fetch_result(L, es, err));
            give(L, out, 0, es);
        }
        return WR_SUCCESS;
    });
}

/* The exact sum of a float/double array as a wrx_acc in host memory
 * (wr_reduce_exact): chunks carry the accumulator in a device slot. */
wr_status cu_reduce_exact(void *s, const wr_call *call, const void *in, size_t count, wr_type t, void *acc,
                          char *err)
{
    state *S = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_lane(s, err, [&](lane &L) -> wr_status {
        WRC_TRY(exact_scratch(L, err));
        void *c = exact_carry(L, 0);
        WRC_TRY(each_chunk(S, L, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            return launch_exact_reduce(L, d, len, t, off ? c : nullptr, c, nullptr, kNoDone, err);
        }));
        WRC_CK(cudaMemcpyAsync, (acc, c, kAccBytes, cudaMemcpyDeviceToHost, L.st));
        return WR_SUCCESS;
    });
}

/* ---- argmin / argmax --------------------------------------------------------- */

wr_status cu_argext(void *s, const wr_call *call, const void *in, size_t count, wr_type t, int is_max,
                    size_t *index, void *value, char *err)
{
    state *S = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_lane(s, err, [&](lane &L) -> wr_status {
        /* The pair {size_t index; T value} chains through slot 0; when both
         * outputs are host memory the last launch writes it into the lane's
         * host result area, else into slot 0, copied to each output. */
        unsigned char *acc = slot(L, 0);
        const bool to_host =
            !dev_ok(call->out) && (value == nullptr || !dev_ok(call->aux));
        void *fin = to_host ? host_result(L) : (void *)acc;
        WRC_TRY(each_chunk(S, L, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            const bool last = off + len == count;     /* to device outputs, copies follow it */
            return launch_argext(L, d, len, t, is_max, off, last ? fin : acc, off ? acc : nullptr,
                                 last && to_host ? arm(L) : kNoDone, err);
        }));
        if (to_host) {
            WRC_TRY(fetch_result(L, 8 + es, err));
            give(L, index, 0, sizeof(size_t));
            if (value) give(L, value, 8, es);
            return WR_SUCCESS;
        }
        WRC_CK(cudaMemcpyAsync, (index, acc, sizeof(size_t), cudaMemcpyDefault, L.st));
        if (value) WRC_CK(cudaMemcpyAsync, (value, acc + 8, es, cudaMemcpyDefault, L.st));
        return WR_SUCCESS;
    });
}

/* ---- scan ---------------------------------------------------------------------- */

wr_status cu_scan(void *s, const wr_call *call, const void *in, void *out, size_t count, wr_type t, wr_op o,
                  int exclusive, char *err)
{
    state *S = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_lane(s, err, [&](lane &L) -> wr_status {
        const wr_mem_kind kin = call->in, kout = call->out;
        if (dev_ok(kin) && dev_ok(kout))
            return launch_scan(L, in, out, count, t, o, exclusive, nullptr, nullptr, arm(L), err);

        WRC_TRY(ensure_staging(S, L, err));
        const bool in_dev = dev_ok(kin), out_dev = dev_ok(kout), out_pageable = kout == WR_MEM_HOST;
        const size_t C = L.sbytes / es;            /* whole tiles: staged == in-place bits */
        pending pend[kStages] = {};
        for (size_t k = 0, off = 0; off < count; k++, off += C) {
            const int b = (int)(k % kStages);
            const size_t len = count - off < C ? count - off : C;
            const char *src = (const char *)in + off * es;
            char *dst = (char *)out + off * es;
            WRC_TRY(take_out(L, b, pend[b], err));                 /* frees L.shost[b] */
            const void *dsrc = src;
            if (!in_dev) {
                WRC_TRY(stage_in(L, b, src, len * es, kin == WR_MEM_HOST, out_dev ? L.e_comp[b] : L.e_out[b], err));
                dsrc = L.sdev[b];
            } else {
                WRC_CK(cudaStreamWaitEvent, (L.st, L.e_out[b], 0));  /* L.sdev[b] copied out */
            }
            void *ddst = out_dev ? (void *)dst : L.sdev[b];
            WRC_TRY(launch_scan(L, dsrc, ddst, len, t, o, exclusive, k ? slot(L, 1 + (int)((k + 1) % 2)) : nullptr,
                                slot(L, 1 + (int)(k % 2)), kNoDone, err));
            if (out_dev) {
                WRC_CK(cudaEventRecord, (L.e_comp[b], L.st));
            } else {
                WRC_TRY(stage_out(L, b, dst, L.sdev[b], len * es, out_pageable, err));
                if (out_pageable) pend[b] = { dst, len * es };
            }
        }
        for (int b = 0; b < kStages; b++) WRC_TRY(take_out(L, b, pend[b], err));
        return WR_SUCCESS;
    });
}

/* ---- rows and segments ------------------------------------------------------------ */

/*
 * Segmented work on host memory (input or output): chunks of at most
 * L.sbytes of input and L.soff_n - 1 segments.  A segment cut by a chunk's
 * end leaves its partial in a carry slot; the next chunk's first result is
 * combined with it (launch_seg_fix), in order.  begin(t) gives segment t's
 * first element as an index into in.
 */
template <class Begin>
wr_status segments_staged(state *S, lane &L, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                          size_t nseg, Begin begin, wr_type t, wr_op o, bool exact, char *err)
{
    const size_t es = wr_backend_type_size(t);
    WRC_TRY(ensure_seg_staging(S, L, err));
    if (exact) WRC_TRY(exact_scratch(L, err));
    const bool in_dev = dev_ok(kin), out_dev = dev_ok(kout), out_pageable = kout == WR_MEM_HOST;
    const size_t C = L.sbytes / es, smax = L.soff_n - 1, end = begin(nseg);
    pending pend[kStages] = {};
    size_t s = 0, c0 = 0;
    bool cont = false;
    for (size_t k = 0; s < nseg; k++) {
        const int b = (int)(k % kStages);
        WRC_TRY(take_out(L, b, pend[b], err));
        if (!cont) c0 = begin(s);
        const size_t c1 = end - c0 < C ? end : c0 + C;
        WRC_CK(cudaEventSynchronize, (L.e_in[b]));             /* L.soff_host[b] is free */
        size_t *ho = L.soff_host[b], m = 0;
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
            WRC_TRY(stage_in(L, b, src, len * es, kin == WR_MEM_HOST, out_dev ? L.e_comp[b] : L.e_out[b], err,
                             L.soff_dev[b], ho, (m + 1) * sizeof(size_t)));
            dsrc = L.sdev[b];
        } else {
            WRC_CK(cudaStreamWaitEvent, (L.h2d, L.e_comp[b], 0));
            WRC_CK(cudaMemcpyAsync, (L.soff_dev[b], ho, (m + 1) * sizeof(size_t), cudaMemcpyHostToDevice, L.h2d));
            WRC_CK(cudaEventRecord, (L.e_in[b], L.h2d));
            WRC_CK(cudaStreamWaitEvent, (L.st, L.e_in[b], 0));
        }
        if (!out_dev) WRC_CK(cudaStreamWaitEvent, (L.st, L.e_out[b], 0));   /* L.sres[b] copied out */
        char *res = out_dev ? (char *)out + s * es : (char *)L.sres[b];
        if (exact) {        /* reproducible float SUM: cut segments carry exact accumulators */
            WRC_TRY(launch_exact_segments(L, dsrc, res, m, L.soff_dev[b], 0, 0, (double)len / (double)m, t,
                                          cont ? exact_carry(L, (int)((k + 1) % 2)) : nullptr,
                                          last_cont ? exact_carry(L, (int)(k % 2)) : nullptr, kNoDone, err));
        } else {
            WRC_TRY(launch_segments(L, dsrc, res, m, L.soff_dev[b], 0, 0, (double)len / (double)m, t, o, kNoDone,
                                    err));
            if (cont || last_cont)
                WRC_TRY(launch_seg_fix(L, res, m, slot(L, 1 + (int)((k + 1) % 2)), slot(L, 1 + (int)(k % 2)),
                                       cont, last_cont, t, o, err));
        }
        const size_t done = last_cont ? m - 1 : m;
        if (out_dev) {
            WRC_CK(cudaEventRecord, (L.e_comp[b], L.st));
        } else {
            char *dst = (char *)out + s * es;
            WRC_TRY(stage_out(L, b, dst, res, done * es, out_pageable, err));
            if (out_pageable) pend[b] = { dst, done * es };
        }
        s += done;
        cont = last_cont;
        c0 += len;
    }
    for (int b = 0; b < kStages; b++) WRC_TRY(take_out(L, b, pend[b], err));
    return WR_SUCCESS;
}

wr_status cu_reduce_rows(void *s, const wr_call *call, const void *in, void *out, size_t rows, size_t cols,
                         wr_type t, wr_op o, char *err)
{
    state *S = (state *)s;
    return with_lane(s, err, [&](lane &L) -> wr_status {
        const wr_mem_kind kin = rows * cols != 0 ? call->in : WR_MEM_DEVICE, kout = call->out;
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (dev_ok(kin) && dev_ok(kout) && exact)
            return launch_exact_segments(L, in, out, rows, nullptr, 0, cols, (double)cols, t, nullptr, nullptr,
                                         arm(L), err);
        if (dev_ok(kin) && dev_ok(kout))
            return launch_segments(L, in, out, rows, nullptr, 0, cols, (double)cols, t, o, arm(L), err);
        return segments_staged(S, L, in, kin, out, kout, rows, [cols](size_t r) { return r * cols; }, t, o, exact,
                               err);
    });
}

wr_status cu_reduce_segments(void *s, const wr_call *call, const void *in, void *out, size_t nseg,
                             const size_t *offsets, wr_type t, wr_op o, char *err)
{
    state *S = (state *)s;
    return with_lane(s, err, [&](lane &L) -> wr_status {
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
            WRC_CK(cudaMemcpyAsync, (copy.data(), offsets, obytes, cudaMemcpyDeviceToHost, L.st));
            WRC_CK(cudaStreamSynchronize, (L.st));
            hoff = copy.data();
            return WR_SUCCESS;
        };
        const size_t total = call->last - call->first;
        const wr_mem_kind kin = total ? call->in : WR_MEM_DEVICE;
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (dev_ok(kin) && dev_ok(kout)) {
            const size_t *doff = offsets;
            if (!dev_ok(koff)) {                      /* host offsets: give the kernel a copy */
                WRC_TRY(grow(L, L.doff, &L.doff_cap, obytes, false, "segment offsets", err));
                WRC_CK(cudaMemcpyAsync, (L.doff, offsets, obytes, cudaMemcpyHostToDevice, L.st));
                doff = L.doff;
            }
            if (exact)
                return launch_exact_segments(L, in, out, nseg, doff, 0, 0, (double)total / (double)nseg, t, nullptr,
                                             nullptr, arm(L), err);
            return launch_segments(L, in, out, nseg, doff, 0, 0, (double)total / (double)nseg, t, o, arm(L), err);
        }
        if (!hoff) WRC_TRY(copy_offsets());
        return segments_staged(S, L, in, kin, out, kout, nseg, [hoff](size_t i) { return hoff[i]; }, t, o, exact,
                               err);
    });
}

} /* namespace */

/* ---- shared helpers (wrc.cuh) ------------------------------------------------------ */

wr_status fail(char *err, const char *call, cudaError_t e)
{
    snprintf(err, WR_ERRLEN, "%s: %s", call, cudaGetErrorString(e));
    (void)cudaGetLastError();        /* a non-sticky error must not poison the next call */
    return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
}

wr_status grow(lane &L, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    if (*p != nullptr && need <= *cap) return WR_SUCCESS;
    size_t nc = need + need / 4;
    nc = (nc + 255) & ~(size_t)255;
    if (*p != nullptr) {
        WRC_CK(cudaStreamSynchronize, (L.st));
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
    if (zero) WRC_CK(cudaMemsetAsync, (*p, 0, nc, L.st));
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

} /* namespace wrc */

/* The plugin's one exported name (lib/plugin.c dlsym()s it). */
extern "C" WRC_EXPORT const struct wr_backend_ops warpred_backend_ops = {
    /* abi             */ WR_BACKEND_ABI,
    /* name            */ "cuda",
    /* open            */ wrc::cu_open,
    /* close           */ wrc::cu_close,
    /* describe        */ wrc::cu_describe,
    /* threads         */ wrc::cu_threads,
    /* locate          */ wrc::cu_locate,
    /* check_offsets   */ wrc::cu_check_offsets,
    /* set_stream      */ wrc::cu_set_stream,
    /* synchronize     */ wrc::cu_synchronize,
    /* reduce          */ wrc::cu_reduce,
    /* scan            */ wrc::cu_scan,
    /* reduce_rows     */ wrc::cu_reduce_rows,
    /* reduce_segments */ wrc::cu_reduce_segments,
    /* argext          */ wrc::cu_argext,
    /* reduce_exact    */ wrc::cu_reduce_exact,
};

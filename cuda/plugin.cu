/*
 * plugin.cu -- the CUDA backend: a plugin that exports one symbol,
 * warpred_backend_ops (see lib/wr_backend.h), and nothing else.
 *
 * This file holds the table and what is not an operation: opening the
 * device, describing it, telling where a buffer lives.  The strands and
 * their pool are in pool.cu, the context's stream and the start and end of
 * a call in stream.cu, the staging pipelines in staging.cu, the operations
 * in ops.cu and dot_ops.cu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <new>
#include "plugin.cuh"

#define WRCUDA_EXPORT __attribute__((visibility("default")))

namespace wrcuda {

namespace {

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
    code_info ci;
    const wr_status cst = check_code(p, host, &ci, err);     /* (arch.cu) */
    if (cst != WR_SUCCESS) return cst;
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
    snprintf(ctx->desc, sizeof ctx->desc, "%s", ci.desc);
    ctx->scan_by_block = ci.scan_by_block;
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
    /* WARPRED_CUDA_STREAM_SCAN_BYTES: the longest scan (in bytes of input)
     * that a call queued on a stream runs in one launch, for tests (longer
     * ones run in pieces).  By default the device's memory: the scan's tile
     * descriptors for it, reserved by the first wr_context_set_stream, are
     * 1/2048 of that (16 bytes per 32 KiB tile). */
    size_t rb = 0;
    if (host->env_count("WARPRED_CUDA_STREAM_SCAN_BYTES", 1, (size_t)1 << 50, &rb, err) < 0) {
        delete ctx;
        return WR_ERR_INVALID_ARG;
    }
    ctx->scan_reserve = rb ? rb : p.totalGlobalMem;
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
    stream_close(ctx);
    for (strand *S : ctx->all) strand_destroy(S);
    delete ctx;
}

void cu_describe(void *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((state *)s)->desc);
}

int cu_threads(void *) { return 0; }

/* lib/ asks once per buffer of every call.  cudaPointerGetAttributes
 * answers for any pointer from whichever context is current (unified
 * addressing), so the device is made current only on a thread where the
 * plugin has not done so yet: there, the query would otherwise create the
 * primary context of the runtime's default device.  (call_begin() sets the
 * device on every call, for the launches.) */
wr_mem_kind cu_locate(void *s, const void *p)
{
    const int dev = ((state *)s)->dev;
    if (t_dev != dev) {
        if (cudaSetDevice(dev) != cudaSuccess) (void)cudaGetLastError();
        else t_dev = dev;
    }
    return kind_of(p);
}

wr_status cu_set_stream(void *s, void *stream, char *err)
{
    return stream_set((state *)s, (cudaStream_t)stream, err);
}

wr_status cu_synchronize(void *s, char *err)
{
    return stream_sync((state *)s, err);
}

} /* namespace */

} /* namespace wrcuda */

/* The plugin's one exported name (lib/plugin.c dlsym()s it). */
namespace wrcuda {
namespace {

/* Device, managed and host memory of every kind (host memory through the
 * staging pipelines, pinned memory read directly); streams. */
void cu_caps(void *, struct wr_caps *c);

/* The table, built at compile time (a constexpr function: C++17 has no
 * designated array initialisers). */
constexpr wr_backend_ops make_ops()
{
    wr_backend_ops o{};
    o.abi = WR_BACKEND_ABI;
    o.name = "cuda";
    o.open = cu_open;
    o.close = cu_close;
    o.caps = cu_caps;
    o.describe = cu_describe;
    o.threads = cu_threads;
    o.locate = cu_locate;
    o.check_offsets = cu_check_offsets;
    o.set_stream = cu_set_stream;
    o.synchronize = cu_synchronize;
    o.op[WR_OPID_REDUCE] = cu_reduce;
    o.op[WR_OPID_SCAN] = cu_scan;
    o.op[WR_OPID_ROWS] = cu_rows;
    o.op[WR_OPID_SEGMENTS] = cu_segments;
    o.op[WR_OPID_SEGSCAN] = cu_segscan;
    o.op[WR_OPID_ARGEXT] = cu_argext;
    o.op[WR_OPID_XREDUCE] = cu_xreduce;
    o.op[WR_OPID_XSCAN] = cu_xscan;
    o.op[WR_OPID_XROWS] = cu_xrows;
    o.op[WR_OPID_XSEGMENTS] = cu_xsegments;
    o.op[WR_OPID_XSEGSCAN] = cu_xsegscan;
    o.op[WR_OPID_XSUM] = cu_xsum;
    o.op[WR_OPID_IAMAX] = cu_iamax;
    o.op[WR_OPID_DOT] = cu_dot;
    o.op[WR_OPID_DOTROWS] = cu_dot_rows;
    o.op[WR_OPID_NRM2] = cu_nrm2;
    o.op[WR_OPID_ASUM] = cu_asum;
    o.op[WR_OPID_XDOT] = cu_xdot;
    o.op[WR_OPID_XDOTROWS] = cu_xdot_rows;
    o.op[WR_OPID_XNRM2] = cu_xnrm2;
    o.op[WR_OPID_XASUM] = cu_xasum;
    return o;
}

} /* namespace */
} /* namespace wrcuda */

extern "C" WRCUDA_EXPORT const struct wr_backend_ops warpred_backend_ops = wrcuda::make_ops();

namespace wrcuda {
namespace {
void cu_caps(void *, struct wr_caps *c)
{
    for (int i = 0; i < WR_NOPIDS; i++)
        if (warpred_backend_ops.op[i] != nullptr) c->ops |= WR_OPID_BIT(i);
    c->types = 0x3f;
    c->mem = 1u << WR_MEM_HOST | 1u << WR_MEM_HOST_PINNED | 1u << WR_MEM_DEVICE | 1u << WR_MEM_MANAGED;
    c->device = 1;
    c->pinned_dma = 1;
    c->streams = 1;
}
} /* namespace */
} /* namespace wrcuda */

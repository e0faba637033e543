/*
 * staging.cu -- the pipelines that stream host-resident buffers through the
 * device.
 *
 * Device and managed buffers are used in place.  A host buffer (pageable or
 * pinned) is streamed in chunks through kStagingBufs device buffers: pinned
 * memory is copied by DMA straight from/to the caller's buffer, pageable
 * memory first through pinned staging buffers.  Copies in, kernels and
 * copies out run on three streams ordered by events, so chunk k+1 is copied
 * in while chunk k is computed and chunk k-1 copied out, and the device
 * memory a call holds for host data is kStagingBufs staging buffers whatever
 * the array's size.  Scans carry the running prefix from chunk to chunk on
 * the device; chunks are whole scan tiles, so a staged scan gives the same
 * bits as the same scan on device memory.
 */
#include <string.h>
#include "plugin.cuh"
#include "exact.cuh"

namespace wrcuda {

namespace {

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

} /* namespace */

wr_status ensure_staging(state *ctx, strand &S, char *err)
{
    host_side(S).copies = true;             /* every user of h2d/d2h comes through here */
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

wr_status stage_in(strand &S, int b, const void *src, size_t bytes, bool pageable, cudaEvent_t reuse_after,
                   char *err, void *x_dst, const void *x_src, size_t x_bytes)
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

wr_status scan_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                      size_t count, wr_type t, wr_op o, int exclusive, char *err, const void *carry0)
{
    const size_t es = wr_backend_type_size(t);
    WRCUDA_TRY(ensure_staging(ctx, S, err));
    if (carry0) WRCUDA_TRY(exact_scratch(S, err));   /* (exact_carry) */
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
        /* the running prefix in the carry slots, from one chunk to the next;
         * an exact scan's is a wrx_acc, updated in place in its own slot */
        if (carry0)
            WRCUDA_TRY(launch_exact_scan(S, dsrc, ddst, len, t, exclusive, k ? exact_carry(S, 0) : nullptr,
                                         *(const wrx_acc *)carry0, exact_carry(S, 0), kNoDone, err));
        else
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
}

/* As scan_staged, over [first, last) of the offsets' index space: chunk k
 * is [first + k C, ...), whole tiles from first on, so each chunk's launch
 * cuts the same tiles as one launch over the whole range would. */
wr_status segscan_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                         size_t first, size_t last, const size_t *doff, size_t nseg, wr_type t, wr_op o,
                         int exclusive, bool exact, char *err)
{
    const size_t es = wr_backend_type_size(t), count = last - first;
    WRCUDA_TRY(ensure_staging(ctx, S, err));
    if (exact) WRCUDA_TRY(exact_scratch(S, err));   /* (exact_carry) */
    const bool in_dev = dev_ok(kin), out_dev = dev_ok(kout), out_pageable = kout == WR_MEM_HOST;
    const size_t C = S.sbytes / es;            /* whole tiles: staged == in-place bits */
    pending pend[kStagingBufs] = {};
    for (size_t k = 0, off = 0; off < count; k++, off += C) {
        const int b = (int)(k % kStagingBufs);
        const size_t len = count - off < C ? count - off : C;
        const char *src = (const char *)in + (first + off) * es;
        char *dst = (char *)out + (first + off) * es;
        WRCUDA_TRY(take_out(S, b, pend[b], err));                 /* frees S.shost[b] */
        const void *dsrc = src;
        if (!in_dev) {
            WRCUDA_TRY(stage_in(S, b, src, len * es, kin == WR_MEM_HOST, out_dev ? S.e_comp[b] : S.e_out[b], err));
            dsrc = S.sdev[b];
        } else {
            WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_out[b], 0));  /* S.sdev[b] copied out */
        }
        void *ddst = out_dev ? (void *)dst : S.sdev[b];
        if (exact)      /* the running exact prefix in one slot, updated in place */
            WRCUDA_TRY(launch_exact_segscan(S, dsrc, ddst, len, doff, nseg, first + off, t, exclusive,
                                            k ? exact_carry(S, 0) : nullptr, exact_carry(S, 0), kNoDone, err));
        else
            WRCUDA_TRY(launch_segscan(S, dsrc, ddst, len, doff, nseg, first + off, t, o, exclusive,
                                      k ? slot(S, 1 + (int)((k + 1) % 2)) : nullptr, slot(S, 1 + (int)(k % 2)),
                                      kNoDone, err));
        if (out_dev) {
            WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
        } else {
            WRCUDA_TRY(stage_out(S, b, dst, S.sdev[b], len * es, out_pageable, err));
            if (out_pageable) pend[b] = { dst, len * es };
        }
    }
    for (int b = 0; b < kStagingBufs; b++) WRCUDA_TRY(take_out(S, b, pend[b], err));
    return WR_SUCCESS;
}

/*
 * Segmented work on host memory (input or output): chunks of at most
 * S.sbytes of input and S.soff_n - 1 segments.  A segment cut by a chunk's
 * end leaves its partial in a carry slot; the next chunk's first result is
 * combined with it (launch_seg_fix), in order.  begin(t) gives segment t's
 * first element as an index into in.
 */
wr_status segments_staged(state *ctx, strand &S, const void *in, wr_mem_kind kin, void *out, wr_mem_kind kout,
                          size_t nseg, const size_t *hoff, size_t cols, wr_type t, wr_op o, bool exact, char *err)
{
    auto begin = [hoff, cols](size_t i) { return hoff ? hoff[i] : i * cols; };
    const size_t es = wr_backend_type_size(t);
    WRCUDA_TRY(ensure_seg_staging(ctx, S, err));
    if (exact) WRCUDA_TRY(exact_scratch(S, err));
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
        if (exact) {        /* reproducible float SUM: cut segments carry exact accumulators */
            WRCUDA_TRY(launch_exact_segments(S, dsrc, res, m, S.soff_dev[b], 0, 0, (double)len / (double)m, t,
                                             cont ? exact_carry(S, (int)((k + 1) % 2)) : nullptr,
                                             last_cont ? exact_carry(S, (int)(k % 2)) : nullptr, kNoDone, err));
        } else {
            WRCUDA_TRY(launch_segments(S, dsrc, res, m, S.soff_dev[b], 0, 0, (double)len / (double)m, t, o, kNoDone,
                                       err));
            if (cont || last_cont)
                WRCUDA_TRY(launch_seg_fix(S, res, m, slot(S, 1 + (int)((k + 1) % 2)), slot(S, 1 + (int)(k % 2)),
                                          cont, last_cont, t, o, err));
        }
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

} /* namespace wrcuda */

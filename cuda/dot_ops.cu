/*
 * dot_ops.cu -- the CUDA plugin's dot products, norms, sums of magnitudes
 * and argmax |x| (lib/wr_backend.h: DOT, DOTROWS, NRM2, ASUM, IAMAX and the
 * reproducible XDOT, XDOTROWS, XNRM2, XASUM), as ops.cu writes the others:
 * a call on a strand, its kernels (dot.cu, exact.cu) on device and managed
 * memory in place, host memory through the staging buffers, queued on the
 * context's stream when every buffer is device or managed memory.
 */
#include <stdio.h>
#include <string.h>
#include "plugin.cuh"
#include "exact.cuh"
#include "dot.cuh"

namespace wrcuda {

namespace {

/*
 * each_chunk (plugin.cuh) for one or two inputs (y NULL: one): launch(dx,
 * dy, len, off) once over everything when the device reads both where they
 * are, else over chunks of at most C elements (C 0: as many as fit), each
 * input that is host memory copied into its half of a staging buffer (the
 * whole buffer when only one is), the other read in place.  x == y is
 * copied once.
 */
template <class Launch>
wr_status each_chunk2(state *ctx, strand &S, const void *x, wr_mem_kind kx, const void *y, wr_mem_kind ky,
                      size_t count, size_t es, size_t C, char *err, Launch launch)
{
    const bool sx = !dev_ok(kx), sy = y != nullptr && !dev_ok(ky) && y != x;
    if (!sx && !(y != nullptr && !dev_ok(ky))) return launch(x, y, count, 0);
    WRCUDA_TRY(ensure_staging(ctx, S, err));
    const size_t half = (sx && sy ? S.sbytes / 2 : S.sbytes) / 16 * 16;
    if (C == 0 || C > half / es) C = half / es;
    for (size_t k = 0, off = 0; off < count; k++, off += C) {
        const int b = (int)(k % kStagingBufs);
        const size_t len = count - off < C ? count - off : C;
        char *dev = (char *)S.sdev[b], *pin = (char *)S.shost[b];
        WRCUDA_CK(cudaStreamWaitEvent, (S.h2d, S.e_comp[b], 0));      /* the buffer's last kernel is done */
        if ((sx && kx == WR_MEM_HOST) || (sy && ky == WR_MEM_HOST))
            WRCUDA_CK(cudaEventSynchronize, (S.e_in[b]));               /* its pinned bounce buffer is free */
        const void *dx = (const char *)x + off * es, *dy = y ? (const char *)y + off * es : nullptr;
        int part = 0;
        for (int i = 0; i < 2; i++) {
            const bool staged = i == 0 ? sx : sy;
            if (!staged) continue;
            const void *src = i == 0 ? dx : dy;
            void *d = dev + part * half;
            if ((i == 0 ? kx : ky) == WR_MEM_HOST) {
                memcpy(pin + part * half, src, len * es);
                src = pin + part * half;
            }
            WRCUDA_CK(cudaMemcpyAsync, (d, src, len * es, cudaMemcpyHostToDevice, S.h2d));
            if (i == 0) dx = d;
            else dy = d;
            part++;
        }
        if (y == x) dy = dx;
        WRCUDA_CK(cudaEventRecord, (S.e_in[b], S.h2d));
        WRCUDA_CK(cudaStreamWaitEvent, (S.st, S.e_in[b], 0));
        WRCUDA_TRY(launch(dx, dy, len, off));
        WRCUDA_CK(cudaEventRecord, (S.e_comp[b], S.st));
    }
    return WR_SUCCESS;
}

enum lin { LIN_DOT, LIN_ASUM, LIN_NRM2 };

/* The exact pass of DOT or ASUM over chunk (dx, dy, len) at offset off of
 * count: the chunks chain an exact carry; the last one writes fin, or
 * (acc_last) leaves the exact sum in the carry. */
wr_status exact_pass(strand &S, lin which, bool acc_last, const void *dx, const void *dy, size_t len, size_t off,
                     size_t count, wr_type t, void *fin, done_sig ds, char *err)
{
    const bool last = off + len == count;
    const void *c = off ? exact_carry(S, 0) : nullptr;
    void *ao = last && !acc_last ? nullptr : exact_carry(S, 0), *dst = last && !acc_last ? fin : nullptr;
    if (which == LIN_DOT) return launch_exact_dot(S, dx, dy, len, t, c, ao, dst, ds, err);
    return launch_exact_asum(S, dx, len, t, c, ao, dst, ds, err);
}

/*
 * A fast DOT, ASUM or NRM2 of count elements into fin (dot.cuh): every tile
 * sum into the partials, folded by the last launch.  Staged, the chunks
 * are whole tiles, so the bits are those of the same call on device
 * memory; only where a tile is larger than a staging buffer (a huge array
 * through small buffers) is each chunk folded on its own, chained through
 * slot 0.
 */
wr_status fast_linear(state *ctx, strand &S, lin which, const void *x, wr_mem_kind kx, const void *y,
                      wr_mem_kind ky, size_t count, wr_type t, void *fin, done_sig ds, char *err)
{
    const blas_op op = which == LIN_DOT ? BLAS_DOT : which == LIN_ASUM ? BLAS_ASUM : BLAS_NRM2;
    const size_t es = wr_backend_type_size(t), tile = blas_tile(op, t, count), ntot = (count + tile - 1) / tile;
    const bool sx = !dev_ok(kx), sy = y != nullptr && !dev_ok(ky) && y != x;
    size_t C = 0;
    bool whole = true;
    if (sx || (y != nullptr && !dev_ok(ky))) {
        const size_t cap = (sx && sy ? ctx->stage_bytes / 2 : ctx->stage_bytes) / 16 * 16 / es;
        whole = cap >= tile;
        C = whole ? cap / tile * tile : 0;
    }
    return each_chunk2(ctx, S, x, kx, y, ky, count, es, C, err,
                       [&](const void *dx, const void *dy, size_t len, size_t off) {
                           const bool last = off + len == count;
                           if (whole)
                               return launch_blas(S, op, dx, dy, len, t, tile, off / tile, ntot, last, nullptr,
                                                  last ? fin : nullptr, nullptr, last ? ds : kNoDone, err);
                           const size_t tc = blas_tile(op, t, len);
                           return launch_blas(S, op, dx, dy, len, t, tc, 0, (len + tc - 1) / tc, true,
                                              last ? nullptr : slot(S, 0), last ? fin : nullptr,
                                              off ? slot(S, 0) : nullptr, last ? ds : kNoDone, err);
                       });
}

/*
 * XNRM2 (exact.cuh): the passes of the parts of the sum of squares, then
 * its rounding into fin; with acc_host (an exact partial), only part
 * acc_part, copied there.  Parts 0 and 2 (double data only) are gated on
 * the device: a call on device memory queues them unconditionally; a staged
 * one asks first whether part 1 saw an element of theirs (reading the input
 * again costs more than the question).
 */
wr_status xnorm(state *ctx, strand &S, const void *x, wr_mem_kind kx, size_t n, wr_type t, void *fin,
                void *acc_host, int acc_part, char *err)
{
    const size_t es = wr_backend_type_size(t);
    wrx_acc *parts = norm_parts(S);
    auto pass = [&](int p, int gated) {
        return each_chunk2(ctx, S, x, kx, nullptr, WR_MEM_DEVICE, n, es, 0, err,
                           [&](const void *d, const void *, size_t len, size_t off) {
                               return launch_exact_nrm2(S, d, len, t, p, gated, off ? parts + p : nullptr,
                                                        parts + p, err);
                           });
    };
    if (acc_host && t == WR_FLOAT && acc_part != 1) {
        wrx_init((wrx_acc *)acc_host);         /* floats are all part 1 */
        return WR_SUCCESS;
    }
    if (acc_host) {
        WRCUDA_TRY(pass(acc_part, 0));
        WRCUDA_CK(cudaMemcpyAsync, (acc_host, parts + acc_part, kAccBytes, cudaMemcpyDeviceToHost, S.st));
        WRCUDA_CK(cudaStreamSynchronize, (S.st));
        ((wrx_acc *)acc_host)->flags &= WRX_MAGIC_MASK | WRX_FLAGS;   /* (the parts' own note) */
        return WR_SUCCESS;
    }
    WRCUDA_TRY(pass(1, 0));
    if (t == WR_DOUBLE) {
        bool others = true;
        if (!dev_ok(kx)) {
            uint32_t f = 0;
            WRCUDA_CK(cudaMemcpyAsync, (&f, &parts[1].flags, sizeof f, cudaMemcpyDeviceToHost, S.st));
            WRCUDA_CK(cudaStreamSynchronize, (S.st));
            others = (f & ~(WRX_MAGIC_MASK | WRX_FLAGS)) != 0;
        }
        if (others) {
            WRCUDA_TRY(pass(0, 1));
            WRCUDA_TRY(pass(2, 1));
        }
    }
    return launch_norm_round(S, t, fin, arm(S), err);
}

/* DOT, ASUM, NRM2 and their X forms (with call->acc: the exact partial,
 * unrounded, for the X forms). */
wr_status linear(void *s, const wr_call *call, lin which, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *x = call->in, *y = which == LIN_DOT ? call->in2 : nullptr;
    void *out = call->out, *acc = exact ? call->acc : nullptr;
    const size_t count = call->count;
    const wr_type t = call->type;
    const size_t es = wr_backend_type_size(t);
    const wr_mem_kind kx = call->kin, ky = which == LIN_DOT ? call->kin2 : WR_MEM_DEVICE;
    const bool out_dev = acc == nullptr && dev_ok(call->kout), in_dev = dev_ok(kx) && dev_ok(ky);
    return with_strand(s, acc == nullptr && (count == 0 || in_dev) && out_dev, err, [&](strand &S) -> wr_status {
        if (count == 0) {                              /* +0 (lib/ sends no empty partial) */
            const unsigned char zero[8] = { 0 };
            if (!out_dev) {
                memcpy(out, zero, es);
                return WR_SUCCESS;
            }
            return launch_store(S, out, zero, es, err);
        }
        void *fin = acc ? nullptr : out_dev ? out : host_result(S);
        if (exact) WRCUDA_TRY(exact_scratch(S, err));
        if (exact && which == LIN_NRM2) {
            const int part = call->cols < 3 ? (int)call->cols : 1;
            WRCUDA_TRY(xnorm(ctx, S, x, kx, count, t, fin, acc, part, err));
        } else if (exact) {
            WRCUDA_TRY(each_chunk2(ctx, S, x, kx, y, ky, count, es, 0, err,
                                   [&](const void *dx, const void *dy, size_t len, size_t off) {
                                       const bool last = off + len == count;
                                       return exact_pass(S, which, acc != nullptr, dx, dy, len, off, count, t, fin,
                                                         last && !acc ? arm(S) : kNoDone, err);
                                   }));
            if (acc) WRCUDA_CK(cudaMemcpyAsync, (acc, exact_carry(S, 0), kAccBytes, cudaMemcpyDeviceToHost, S.st));
        } else {
            WRCUDA_TRY(fast_linear(ctx, S, which, x, kx, y, ky, count, t, fin, arm(S), err));
        }
        if (!acc && !out_dev) {
            WRCUDA_TRY(fetch_result(S, es, err));
            give(S, out, 0, es);
        }
        return WR_SUCCESS;
    });
}

/* DOTROWS and XDOTROWS. */
wr_status dot_rows(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *x = call->in, *y = call->in2;
    void *out = call->out;
    const size_t rows = call->count, cols = call->cols;
    const wr_type t = call->type;
    const size_t es = wr_backend_type_size(t);
    const wr_mem_kind kx = cols ? call->kin : WR_MEM_DEVICE, ky = cols ? call->kin2 : WR_MEM_DEVICE;
    const wr_mem_kind kout = call->kout;
    const bool out_dev = dev_ok(kout), in_dev = dev_ok(kx) && dev_ok(ky);
    return with_strand(s, in_dev && out_dev, err, [&](strand &S) -> wr_status {
        if (cols == 0) {                               /* +0 each */
            if (!out_dev) {
                memset(out, 0, rows * es);
                return WR_SUCCESS;
            }
            WRCUDA_CK(cudaMemsetAsync, (out, 0, rows * es, S.st));
            return WR_SUCCESS;
        }
        if (exact) WRCUDA_TRY(exact_scratch(S, err));
        auto rows_at = [&](const void *dx, const void *dy, void *o, size_t nr, done_sig ds) {
            return exact ? launch_exact_dot_rows(S, dx, dy, o, nr, cols, t, ds, err)
                         : launch_dot_rows(S, dx, dy, o, nr, cols, t, ds, err);
        };
        if (in_dev && out_dev) return rows_at(x, y, out, rows, arm(S));
        /* Host memory: whole rows a chunk, their results written where the
         * output is or into a device buffer copied out after each chunk
         * (S.doff: scratch of the staged calls; this call uses no offsets).
         * A row longer than a chunk is a dot product of its own, in chunks. */
        size_t per = rows;                                       /* rows a chunk */
        if (!in_dev) {
            WRCUDA_TRY(ensure_staging(ctx, S, err));
            const bool two = !dev_ok(kx) && !dev_ok(ky) && x != y;
            per = (two ? S.sbytes / 2 : S.sbytes) / 16 * 16 / (cols * es);
        }
        if (per == 0) {
            void *res = out;
            if (!out_dev) {
                WRCUDA_TRY(grow(S, S.doff, &S.doff_cap, rows * es, false, "row results", err));
                res = S.doff;
            }
            for (size_t r = 0; r < rows; r++) {
                const char *xr = (const char *)x + r * cols * es, *yr = (const char *)y + r * cols * es;
                void *fin = (char *)res + r * es;
                if (exact)
                    WRCUDA_TRY(each_chunk2(ctx, S, xr, kx, yr, ky, cols, es, 0, err,
                                           [&](const void *dx, const void *dy, size_t len, size_t off) {
                                               return exact_pass(S, LIN_DOT, false, dx, dy, len, off, cols, t, fin,
                                                                 kNoDone, err);
                                           }));
                else
                    WRCUDA_TRY(fast_linear(ctx, S, LIN_DOT, xr, kx, yr, ky, cols, t, fin, kNoDone, err));
            }
            if (!out_dev) WRCUDA_CK(cudaMemcpyAsync, (out, res, rows * es, cudaMemcpyDeviceToHost, S.st));
            return WR_SUCCESS;
        }
        const size_t chunk_rows = rows < per ? rows : per;
        if (!out_dev) WRCUDA_TRY(grow(S, S.doff, &S.doff_cap, chunk_rows * es, false, "row results", err));
        return each_chunk2(ctx, S, x, kx, y, ky, rows * cols, es, chunk_rows * cols, err,
                           [&](const void *dx, const void *dy, size_t len, size_t off) -> wr_status {
                               const size_t r0 = off / cols, nr = len / cols;
                               void *o = out_dev ? (void *)((char *)out + r0 * es) : (void *)S.doff;
                               WRCUDA_TRY(rows_at(dx, dy, o, nr, kNoDone));
                               if (!out_dev)
                                   WRCUDA_CK(cudaMemcpyAsync, ((char *)out + r0 * es, S.doff, nr * es,
                                                               cudaMemcpyDeviceToHost, S.st));
                               return WR_SUCCESS;
                           });
    });
}

} /* namespace */

/* IAMAX: argext's pair chain (ops.cu, cu_argext) with |x| compared. */
wr_status cu_iamax(void *s, const wr_call *call, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    const size_t count = call->count;
    const wr_type t = call->type;
    size_t *index = call->index;
    void *value = call->out;
    const size_t es = wr_backend_type_size(t);
    const bool idx_dev = dev_ok(call->kaux), val_dev = value != nullptr && dev_ok(call->kout);
    const bool queue = dev_ok(call->kin) && idx_dev && (value == nullptr || val_dev);
    return with_strand(s, queue, err, [&](strand &S) -> wr_status {
        unsigned char *acc = slot(S, 0);
        const bool to_host = !idx_dev && !val_dev, mixed = !to_host && (!idx_dev || (value && !val_dev));
        void *fin = to_host ? host_result(S) : mixed ? (void *)acc : nullptr;
        WRCUDA_TRY(each_chunk(ctx, S, in, call->kin, count, es, err, [&](const void *d, size_t len, size_t off) {
            const bool last = off + len == count;
            return launch_iamax(S, d, len, t, off, last ? fin : acc, off ? acc : nullptr,
                                last && idx_dev ? index : nullptr, last && val_dev ? value : nullptr,
                                last && !mixed ? arm(S) : kNoDone, err);
        }));
        if (to_host) {
            WRCUDA_TRY(fetch_result(S, 8 + es, err));
            give(S, index, 0, sizeof(size_t));
            if (value) give(S, value, 8, es);
            return WR_SUCCESS;
        }
        if (!idx_dev) WRCUDA_CK(cudaMemcpyAsync, (index, acc, sizeof(size_t), cudaMemcpyDefault, S.st));
        if (value && !val_dev) WRCUDA_CK(cudaMemcpyAsync, (value, acc + 8, es, cudaMemcpyDefault, S.st));
        return WR_SUCCESS;
    });
}

wr_status cu_dot(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_DOT, false, err); }
wr_status cu_xdot(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_DOT, true, err); }
wr_status cu_asum(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_ASUM, false, err); }
wr_status cu_xasum(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_ASUM, true, err); }
wr_status cu_nrm2(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_NRM2, false, err); }
wr_status cu_xnrm2(void *s, const wr_call *c, char *err) { return linear(s, c, LIN_NRM2, true, err); }
wr_status cu_dot_rows(void *s, const wr_call *c, char *err) { return dot_rows(s, c, false, err); }
wr_status cu_xdot_rows(void *s, const wr_call *c, char *err) { return dot_rows(s, c, true, err); }

} /* namespace wrcuda */

/*
 * ops.cu -- the CUDA plugin's operations (lib/wr_backend.h): each one a
 * call on a strand (pool.cu), its kernels launched in place on device and
 * managed memory, or through the staging pipelines (staging.cu) when a
 * buffer is host memory.
 */
#include <stdio.h>
#include <string.h>
#include <vector>
#include "plugin.cuh"
#include "exact.cuh"
#include "wr_ops.h"

namespace wrcuda {

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
            /* from the strand's pinned result area, not from the stack: a
             * truly asynchronous copy (a pageable source is staged by the
             * driver) */
            memcpy(host_side(S).hres, id, es);
            WRCUDA_CK(cudaMemcpyAsync, (out, host_side(S).hres, es, cudaMemcpyDefault, S.st));
            return WR_SUCCESS;                         /* the end of the call synchronises */
        }
        /* Chunks of a staged input fold into slot 0 on the device (the carry);
         * the last launch writes the result where it is going: out itself
         * when the device can reach it, else the strand's host result area. */
        void *acc = out_dev ? out : (void *)slot(S, 0);
        void *fin = out_dev ? out : host_result(S);
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (exact) WRCUDA_TRY(exact_scratch(S, err));
        WRCUDA_TRY(each_chunk(ctx, S, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            /* (a strand whose hres is not mapped has no done word:
             * fetch_result's copy is then waited for by synchronising) */
            const bool last = off + len == count;
            if (exact)          /* chunks carry an exact accumulator, not a rounded value */
                return launch_exact_reduce(S, d, len, t, off ? exact_carry(S, 0) : nullptr,
                                           last ? nullptr : exact_carry(S, 0), last ? fin : nullptr,
                                           last ? arm(S) : kNoDone, err);
            return launch_reduce(S, d, len, t, o, last ? fin : acc, off ? acc : nullptr, last ? arm(S) : kNoDone, err);
        }));
        if (!out_dev) {
            WRCUDA_TRY(fetch_result(S, es, err));
            give(S, out, 0, es);
        }
        return WR_SUCCESS;
    });
}

/* The exact sum of a float/double array as a wrx_acc in host memory
 * (wr_reduce_exact): chunks carry the accumulator in a device slot. */
wr_status cu_reduce_exact(void *s, const wr_call *call, const void *in, size_t count, wr_type t, void *acc,
                          char *err)
{
    state *ctx = (state *)s;
    const size_t es = wr_backend_type_size(t);
    return with_strand(s, err, [&](strand &S) -> wr_status {
        WRCUDA_TRY(exact_scratch(S, err));
        void *c = exact_carry(S, 0);
        WRCUDA_TRY(each_chunk(ctx, S, in, call->in, count, es, err, [&](const void *d, size_t len, size_t off) {
            return launch_exact_reduce(S, d, len, t, off ? c : nullptr, c, nullptr, kNoDone, err);
        }));
        WRCUDA_CK(cudaMemcpyAsync, (acc, c, kAccBytes, cudaMemcpyDeviceToHost, S.st));
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
    const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
    wrx_acc c0;                                          /* exact: the prefix before in[0], normalised */
    if (exact && call->carry) {
        memcpy(&c0, call->carry, sizeof c0);
        wrx_normalize(&c0);
    } else {
        wrx_init(&c0);
    }
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const wr_mem_kind kin = call->in, kout = call->out;
        if (dev_ok(kin) && dev_ok(kout) && exact)
            return launch_exact_scan(S, in, out, count, t, exclusive, nullptr, c0, nullptr, arm(S), err);
        if (dev_ok(kin) && dev_ok(kout))
            return launch_scan(S, in, out, count, t, o, exclusive, nullptr, nullptr, arm(S), err);
        return scan_staged(ctx, S, in, kin, out, kout, count, t, o, exclusive, err, exact ? &c0 : nullptr);
    });
}

/* ---- rows and segments ------------------------------------------------------------ */

wr_status cu_reduce_rows(void *s, const wr_call *call, const void *in, void *out, size_t rows, size_t cols,
                         wr_type t, wr_op o, char *err)
{
    state *ctx = (state *)s;
    return with_strand(s, err, [&](strand &S) -> wr_status {
        const wr_mem_kind kin = rows * cols != 0 ? call->in : WR_MEM_DEVICE, kout = call->out;
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (dev_ok(kin) && dev_ok(kout) && exact)
            return launch_exact_segments(S, in, out, rows, nullptr, 0, cols, (double)cols, t, nullptr, nullptr,
                                         arm(S), err);
        if (dev_ok(kin) && dev_ok(kout))
            return launch_segments(S, in, out, rows, nullptr, 0, cols, (double)cols, t, o, arm(S), err);
        return segments_staged(ctx, S, in, kin, out, kout, rows, nullptr, cols, t, o, exact, err);
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
        const bool exact = wrx_applies(call->fmode, t, o);   /* reproducible float SUM (exact.cu) */
        if (dev_ok(kin) && dev_ok(kout)) {
            const size_t *doff = offsets;
            if (!dev_ok(koff)) {                      /* host offsets: give the kernel a copy */
                WRCUDA_TRY(grow(S, S.doff, &S.doff_cap, obytes, false, "segment offsets", err));
                WRCUDA_CK(cudaMemcpyAsync, (S.doff, offsets, obytes, cudaMemcpyHostToDevice, S.st));
                doff = S.doff;
            }
            if (exact)
                return launch_exact_segments(S, in, out, nseg, doff, 0, 0, (double)total / (double)nseg, t, nullptr,
                                             nullptr, arm(S), err);
            return launch_segments(S, in, out, nseg, doff, 0, 0, (double)total / (double)nseg, t, o, arm(S), err);
        }
        if (!hoff) WRCUDA_TRY(copy_offsets());
        return segments_staged(ctx, S, in, kin, out, kout, nseg, hoff, 0, t, o, exact, err);
    });
}

} /* namespace wrcuda */

/*
 * ops.cu -- the CUDA plugin's operations (lib/wr_backend.h): each one a
 * call on a strand (stream.cu), its kernels launched in place on device and
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

namespace {

/* check_offsets (wr_backend.h) of device-readable offsets on pool strand S,
 * waited for on the spot: the summary, then the two offsets it names. */
wr_status check_now(strand &S, const size_t *offsets, size_t nseg, size_t sum[5], char *err)
{
    const host_strand &x = host_side(S);
    WRCUDA_TRY(launch_check_offsets(S, offsets, nseg, (size_t *)host_result(S), err));
    WRCUDA_TRY(fetch_result(S, 3 * sizeof(size_t), err));
    WRCUDA_CK(cudaStreamSynchronize, (S.st));
    memcpy(sum, x.hres, 3 * sizeof(size_t));
    if (sum[2] == SIZE_MAX) return WR_SUCCESS;
    WRCUDA_CK(cudaMemcpyAsync, (x.hres, offsets + sum[2], 2 * sizeof(size_t), cudaMemcpyDefault, S.st));
    WRCUDA_CK(cudaStreamSynchronize, (S.st));
    memcpy(sum + 3, x.hres, 2 * sizeof(size_t));
    return WR_SUCCESS;
}

} /* namespace */

/* check_offsets of offsets in device or managed memory, on the device. */
wr_status cu_check_offsets(void *s, const size_t *offsets, size_t nseg, size_t sum[5], char *err)
{
    return with_strand(s, false, err, [&](strand &S) { return check_now(S, offsets, nseg, sum, err); });
}

/* ---- reduce ---------------------------------------------------------------- */

/* REDUCE and XREDUCE (exact: the exact sum rounded once, exact.cu) */
static wr_status reduce(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    void *out = call->out;
    const size_t count = call->count;
    const wr_type t = call->type;
    const wr_op o = call->op;
    const size_t es = wr_backend_type_size(t);
    const bool out_dev = dev_ok(call->kout);
    return with_strand(s, (count == 0 || dev_ok(call->kin)) && out_dev, err, [&](strand &S) -> wr_status {
        if (count == 0) {
            unsigned char id[8];
            wr_identity(t, exact ? WR_SUM : o, id);
            if (!out_dev) {                            /* host memory: no device call at all */
                memcpy(out, id, es);
                return WR_SUCCESS;
            }
            /* by a kernel that gets the value as an argument: nothing on the
             * host must outlive the call, whenever the store runs */
            return launch_store(S, out, id, es, err);
        }
        /* Chunks of a staged input fold into slot 0 on the device (the carry);
         * the last launch writes the result where it is going: out itself
         * when the device can reach it, else the strand's host result area. */
        void *acc = out_dev ? out : (void *)slot(S, 0);
        void *fin = out_dev ? out : host_result(S);
        if (exact) WRCUDA_TRY(exact_scratch(S, err));
        WRCUDA_TRY(each_chunk(ctx, S, in, call->kin, count, es, err, [&](const void *d, size_t len, size_t off) {
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
wr_status cu_xsum(void *s, const wr_call *call, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    void *acc = call->acc;
    const size_t count = call->count;
    const wr_type t = call->type;
    const size_t es = wr_backend_type_size(t);
    return with_strand(s, false, err, [&](strand &S) -> wr_status {
        WRCUDA_TRY(exact_scratch(S, err));
        void *c = exact_carry(S, 0);
        WRCUDA_TRY(each_chunk(ctx, S, in, call->kin, count, es, err, [&](const void *d, size_t len, size_t off) {
            return launch_exact_reduce(S, d, len, t, off ? c : nullptr, c, nullptr, kNoDone, err);
        }));
        WRCUDA_CK(cudaMemcpyAsync, (acc, c, kAccBytes, cudaMemcpyDeviceToHost, S.st));
        return WR_SUCCESS;
    });
}

/* ---- argmin / argmax --------------------------------------------------------- */

wr_status cu_argext(void *s, const wr_call *call, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    const size_t count = call->count;
    const wr_type t = call->type;
    const int is_max = call->is_max;
    size_t *index = call->index;
    void *value = call->out;
    const size_t es = wr_backend_type_size(t);
    const bool idx_dev = dev_ok(call->kaux), val_dev = value != nullptr && dev_ok(call->kout);
    const bool queue = dev_ok(call->kin) && idx_dev && (value == nullptr || val_dev);
    return with_strand(s, queue, err, [&](strand &S) -> wr_status {
        /* The pair {size_t index; T value} chains through slot 0.  The last
         * launch writes the outputs the device reaches itself; when both are
         * host memory it writes the pair into the strand's host result area,
         * and when only one is, the pair into slot 0, copied to it. */
        unsigned char *acc = slot(S, 0);
        const bool to_host = !idx_dev && !val_dev, mixed = !to_host && (!idx_dev || (value && !val_dev));
        void *fin = to_host ? host_result(S) : mixed ? (void *)acc : nullptr;
        WRCUDA_TRY(each_chunk(ctx, S, in, call->kin, count, es, err, [&](const void *d, size_t len, size_t off) {
            const bool last = off + len == count;
            return launch_argext(S, d, len, t, is_max, off, last ? fin : acc, off ? acc : nullptr,
                                 last && idx_dev ? index : nullptr, last && val_dev ? value : nullptr,
                                 last && !mixed ? arm(S) : kNoDone, err);   /* (copies follow) */
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

/* ---- scan ---------------------------------------------------------------------- */

/* SCAN and XSCAN (exact: every output the exact prefix rounded once, exact.cu) */
static wr_status scan(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    void *out = call->out;
    const size_t count = call->count;
    const wr_type t = call->type;
    const wr_op o = call->op;
    const int exclusive = call->exclusive;
    wrx_acc c0;                                          /* exact: the prefix before in[0], normalised */
    if (exact && call->carry) {
        memcpy(&c0, call->carry, sizeof c0);
        wrx_normalize(&c0);
    } else {
        wrx_init(&c0);
    }
    return with_strand(s, dev_ok(call->kin) && dev_ok(call->kout), err, [&](strand &S) -> wr_status {
        const wr_mem_kind kin = call->kin, kout = call->kout;
        if (dev_ok(kin) && dev_ok(kout) && exact)
            return launch_exact_scan(S, in, out, count, t, exclusive, nullptr, c0, nullptr, arm(S), err);
        if (dev_ok(kin) && dev_ok(kout))
            return launch_scan(S, in, out, count, t, o, exclusive, nullptr, nullptr, arm(S), err);
        return scan_staged(ctx, S, in, kin, out, kout, count, t, o, exclusive, err, exact ? &c0 : nullptr);
    });
}

/* ---- rows and segments ------------------------------------------------------------ */

/* ROWS and XROWS */
static wr_status rows_op(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    void *out = call->out;
    const size_t rows = call->count, cols = call->cols;
    const wr_type t = call->type;
    const wr_op o = call->op;
    const wr_mem_kind kin = rows * cols != 0 ? call->kin : WR_MEM_DEVICE, kout = call->kout;
    return with_strand(s, dev_ok(kin) && dev_ok(kout), err, [&](strand &S) -> wr_status {
        if (dev_ok(kin) && dev_ok(kout) && exact)
            return launch_exact_segments(S, in, out, rows, nullptr, 0, cols, (double)cols, t, nullptr, nullptr,
                                         arm(S), err);
        if (dev_ok(kin) && dev_ok(kout))
            return launch_segments(S, in, out, rows, nullptr, 0, cols, (double)cols, t, o, arm(S), err);
        return segments_staged(ctx, S, in, kin, out, kout, rows, nullptr, cols, t, o, exact, err);
    });
}

/* SEGMENTS and XSEGMENTS */
static wr_status segments_op(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const void *in = call->in;
    void *out = call->out;
    const size_t nseg = call->count;
    const size_t *offsets = call->offsets;
    const wr_type t = call->type;
    const wr_op o = call->op;
    const wr_mem_kind koff = call->kaux, kout = call->kout;
    const bool unchecked = call->offsets_unchecked != 0;
    size_t first = call->first, last = call->last;
    const bool queue = dev_ok(koff) && dev_ok(kout) && (unchecked || last == first || dev_ok(call->kin));
    return with_strand(s, queue, err, [&](strand &S) -> wr_status {
        if (unchecked && queued(S)) {
            if (exact) {   /* (lib/ reads the offsets of exact sums) */
                snprintf(err, WR_ERRLEN, "internal: an exact segmented sum with unchecked offsets");
                return WR_ERR_INVALID_ARG;
            }
            return launch_segments_checked(S, in, out, nseg, offsets, ctx->bad_flag_dev, t, o, kNoDone, err);
        }
        if (unchecked) {
            /* lib/ left the offsets to the stream, which was unset since:
             * this call completes before it returns, so check them now */
            size_t sum[5];
            WRCUDA_TRY(check_now(S, offsets, nseg, sum, err));
            if (sum[2] != SIZE_MAX) {
                snprintf(err, WR_ERRLEN, "offsets[%zu] = %zu < offsets[%zu] = %zu: offsets must not decrease",
                         sum[2] + 1, sum[4], sum[2], sum[3]);
                return WR_ERR_INVALID_ARG;
            }
            first = sum[0];
            last = sum[1];
        }
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
        const size_t total = last - first;
        const wr_mem_kind kin = total ? call->kin : WR_MEM_DEVICE;
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

/* ---- scans inside segments ----------------------------------------------------- */

/* SEGSCAN and XSEGSCAN (exact: every output the exact prefix inside its
 * segment, rounded once, exact.cu).  The elements are [first, last) of the
 * offsets' index space; the kernels take device-readable offsets (the
 * caller's, or a copy of host ones) and in and out at element first. */
static wr_status segscan_op(void *s, const wr_call *call, bool exact, char *err)
{
    state *ctx = (state *)s;
    const size_t nseg = call->count;
    const size_t *offsets = call->offsets;
    const wr_type t = call->type;
    const wr_op o = call->op;
    const int exclusive = call->exclusive;
    const size_t es = wr_backend_type_size(t);
    const wr_mem_kind koff = call->kaux;
    const bool unchecked = call->offsets_unchecked != 0;
    size_t first = call->first, last = call->last;
    if (!unchecked && last == first) return WR_SUCCESS;       /* no element: nothing to do */
    const bool queue = dev_ok(koff) && (unchecked || (dev_ok(call->kin) && dev_ok(call->kout)));
    return with_strand(s, queue, err, [&](strand &S) -> wr_status {
        if (unchecked && queued(S)) {
            if (exact) {   /* (lib/ reads the offsets of exact sums) */
                snprintf(err, WR_ERRLEN, "internal: an exact segmented scan with unchecked offsets");
                return WR_ERR_INVALID_ARG;
            }
            return launch_segscan_unchecked(S, call->in, call->out, offsets, nseg, t, o, exclusive, ctx->bad_flag_dev,
                                            kNoDone, err);
        }
        if (unchecked) {
            /* the stream was unset since lib/ left the offsets to it: this
             * call completes before it returns, so check them now */
            size_t sum[5];
            WRCUDA_TRY(check_now(S, offsets, nseg, sum, err));
            if (sum[2] != SIZE_MAX) {
                snprintf(err, WR_ERRLEN, "offsets[%zu] = %zu < offsets[%zu] = %zu: offsets must not decrease",
                         sum[2] + 1, sum[4], sum[2], sum[3]);
                return WR_ERR_INVALID_ARG;
            }
            first = sum[0];
            last = sum[1];
            if (last == first) return WR_SUCCESS;
        }
        const size_t n = last - first;
        const size_t *doff = offsets;
        if (!dev_ok(koff)) {                          /* host offsets: the kernels read a copy */
            const size_t obytes = (nseg + 1) * sizeof(size_t);
            WRCUDA_TRY(grow(S, S.doff, &S.doff_cap, obytes, false, "segment offsets", err));
            WRCUDA_CK(cudaMemcpyAsync, (S.doff, offsets, obytes, cudaMemcpyHostToDevice, S.st));
            doff = S.doff;
        }
        const wr_mem_kind kin = call->kin, kout = call->kout;
        if (dev_ok(kin) && dev_ok(kout)) {
            const void *in = (const char *)call->in + first * es;
            void *out = (char *)call->out + first * es;
            if (exact)
                return launch_exact_segscan(S, in, out, n, doff, nseg, first, t, exclusive, nullptr, nullptr, arm(S),
                                            err);
            return launch_segscan(S, in, out, n, doff, nseg, first, t, o, exclusive, nullptr, nullptr, arm(S), err);
        }
        return segscan_staged(ctx, S, call->in, kin, call->out, kout, first, last, doff, nseg, t, o, exclusive, exact,
                              err);
    });
}

wr_status cu_reduce(void *s, const wr_call *c, char *err) { return reduce(s, c, false, err); }
wr_status cu_xreduce(void *s, const wr_call *c, char *err) { return reduce(s, c, true, err); }
wr_status cu_scan(void *s, const wr_call *c, char *err) { return scan(s, c, false, err); }
wr_status cu_xscan(void *s, const wr_call *c, char *err) { return scan(s, c, true, err); }
wr_status cu_rows(void *s, const wr_call *c, char *err) { return rows_op(s, c, false, err); }
wr_status cu_xrows(void *s, const wr_call *c, char *err) { return rows_op(s, c, true, err); }
wr_status cu_segments(void *s, const wr_call *c, char *err) { return segments_op(s, c, false, err); }
wr_status cu_xsegments(void *s, const wr_call *c, char *err) { return segments_op(s, c, true, err); }
wr_status cu_segscan(void *s, const wr_call *c, char *err) { return segscan_op(s, c, false, err); }
wr_status cu_xsegscan(void *s, const wr_call *c, char *err) { return segscan_op(s, c, true, err); }

} /* namespace wrcuda */

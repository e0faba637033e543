/*
 * test_cuda_streams.cu -- calls ordered on the caller's stream
 * (wr_context_set_stream).
 *
 * Each operation whose buffers are all device (or managed) memory, queued:
 * stale data in the input, then on the stream the caller's slow kernel (a
 * pause) and its fill, the wr call, and the caller's kernel copying the
 * output away; the call must return while the pause still runs (no host
 * wait), and the copy must hold the cpu backend's result (exact data).
 * Each case runs twice, the first time without the pause: a kernel's first
 * launch may load its module, which can wait for the device.
 * Then: float segments queued and not (the same bits: the mapping chosen on
 * the device is the host's); reproducible float sums (the cpu's bits);
 * decreasing offsets found on the device,
 * reported by the next call and by wr_context_synchronize; argument errors
 * (immediate, outputs untouched); calls with host buffers (ordered after the
 * stream's work, complete on return, refused during capture without ending
 * it); wr_context_synchronize without a stream; changing streams back and
 * forth; two contexts on two streams at once.
 *
 * S1 and S2 are non-blocking streams: whatever the host put on the legacy
 * stream (cudaMemset poison, cudaMemcpy of inputs) is waited for
 * (legacy_done) or written on S1 itself before a call queued there.
 */
#include <stdio.h>
#include <string.h>
#include <vector>
#include "stream_common.cuh"

static wr_context *cpu, *gpu;
static cudaStream_t S1, S2;
/* ns: the caller's slow kernel, which must outlast the host's part of the
 * calls queued behind it (WR_TEST_STREAM_PAUSE_MS: longer, for runs under
 * compute-sanitizer, whose host side is slower) */
static unsigned long long kPause = 250000000ull;

/* ---- queued calls ------------------------------------------------------------ */

/* Run call() queued as described at the top; late(st) queues more of the
 * caller's work that the call reads (offsets), after the fill. */
template <class Call, class Late>
static void queued(const char *what, wr_type t, void *din, size_t n, uint64_t seed, void *dout, size_t outbytes,
                   const void *want, Call call, Late late)
{
    const size_t es = wr_type_size(t);
    void *seen = dev_alloc(outbytes);
    void *got = host_alloc(outbytes);
    int good = 1;
    for (int pass = 0; pass < 2 && good; pass++) {
        if (n) CK(cudaMemsetAsync(din, 0x11, n * es, S1));          /* stale data */
        if (dout != din) CK(cudaMemsetAsync(dout, 0x5a, outbytes, S1));
        if (pass) k_pause<<<1, 1, 0, S1>>>(kPause);
        fill_on(S1, t, din, n, NULL, seed);
        late(S1);
        const wr_status st = call();
        if (pass && st == WR_SUCCESS && cudaStreamQuery(S1) != cudaErrorNotReady) {
            diag("%s: returned after the stream's earlier work had finished", what);
            good = 0;
        }
        copy_on(S1, seen, dout, outbytes);
        CK(cudaStreamSynchronize(S1));
        if (st != WR_SUCCESS) {
            diag("%s: %s", what, wr_context_error(gpu));
            good = 0;
            break;
        }
        CK(cudaMemcpy(got, seen, outbytes, cudaMemcpyDeviceToHost));
        if (memcmp(got, want, outbytes) != 0) {
            diag("%s, pass %d: not the cpu backend's result", what, pass);
            good = 0;
        }
    }
    ok(good, "queued %s: after the caller's kernels, before its consumer, returns at once, the cpu's result", what);
    CK(cudaFree(seen));
    free(got);
}

static void no_late(cudaStream_t) {}

static void check_reduce(void)
{
    static const struct { wr_type t; wr_op o; size_t n; } cs[] = {
        { WR_INT32, WR_SUM, 0 }, { WR_INT32, WR_SUM, 1 }, { WR_INT32, WR_SUM, 1000 },
        { WR_INT32, WR_SUM, (1u << 20) + 3 }, { WR_DOUBLE, WR_MIN, 100000 }, { WR_INT64, WR_BXOR, 70001 },
    };
    const size_t nmax = (1u << 20) + 3;
    void *din = dev_alloc(nmax * 8), *dout = dev_alloc(8), *h = host_alloc(nmax * 8);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        const wr_type t = cs[k].t;
        const size_t n = cs[k].n, es = wr_type_size(t);
        unsigned char want[8];
        char what[96];
        host_fill_t(t, h, n, 10 + k);
        if (wr_reduce(cpu, h, want, n, t, cs[k].o) != WR_SUCCESS) bail("cpu: %s", wr_context_error(cpu));
        snprintf(what, sizeof what, "wr_reduce %s %s n=%zu", type_name[t], op_name[cs[k].o], n);
        queued(what, t, din, n, 10 + k, dout, es, want,
               [&] { return wr_reduce(gpu, din, dout, n, t, cs[k].o); }, no_late);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(h);
}

static void check_scans(void)
{
    static const struct { wr_type t; wr_op o; size_t n; int ex, inplace; } cs[] = {
        { WR_INT32, WR_SUM, 1, 0, 0 }, { WR_INT32, WR_SUM, 1000, 1, 0 }, { WR_INT32, WR_SUM, 3 * 8192 + 5, 0, 0 },
        { WR_INT32, WR_SUM, (1u << 20) + 3, 1, 0 }, { WR_INT32, WR_SUM, (1u << 20) + 3, 0, 1 },
        { WR_DOUBLE, WR_SUM, 40000, 1, 0 }, { WR_INT64, WR_MAX, 100000, 0, 1 },
    };
    const size_t nmax = (1u << 20) + 3;
    void *din = dev_alloc(nmax * 8), *dout = dev_alloc(nmax * 8), *h = host_alloc(nmax * 8),
         *want = host_alloc(nmax * 8);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        const wr_type t = cs[k].t;
        const size_t n = cs[k].n, es = wr_type_size(t);
        auto fn = cs[k].ex ? wr_exscan : wr_scan;
        void *o = cs[k].inplace ? din : dout;
        char what[96];
        host_fill_t(t, h, n, 20 + k);
        if (fn(cpu, h, want, n, t, cs[k].o) != WR_SUCCESS) bail("cpu: %s", wr_context_error(cpu));
        snprintf(what, sizeof what, "%s %s %s n=%zu%s", cs[k].ex ? "wr_exscan" : "wr_scan", type_name[t],
                 op_name[cs[k].o], n, cs[k].inplace ? " in place" : "");
        queued(what, t, din, n, 20 + k, o, n * es, want, [&] { return fn(gpu, din, o, n, t, cs[k].o); }, no_late);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(h);
    free(want);
}

static void check_rows(void)
{
    /* groups of lanes on 16-byte rows, on other rows, a block per row,
     * several blocks per row */
    static const struct { wr_type t; wr_op o; size_t rows, cols; } cs[] = {
        { WR_INT32, WR_SUM, 4096, 32 }, { WR_INT32, WR_SUM, 5000, 3 }, { WR_INT32, WR_SUM, 48, 20000 },
        { WR_INT32, WR_SUM, 2, 300000 }, { WR_DOUBLE, WR_MAX, 1000, 33 },
    };
    const size_t nmax = 1000000;
    void *din = dev_alloc(nmax * 8), *dout = dev_alloc(5000 * 8), *h = host_alloc(nmax * 8),
         *want = host_alloc(5000 * 8);
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        const wr_type t = cs[k].t;
        const size_t rows = cs[k].rows, cols = cs[k].cols, es = wr_type_size(t);
        char what[96];
        host_fill_t(t, h, rows * cols, 30 + k);
        if (wr_reduce_rows(cpu, h, want, rows, cols, t, cs[k].o) != WR_SUCCESS) bail("cpu: %s", wr_context_error(cpu));
        snprintf(what, sizeof what, "wr_reduce_rows %s %s %zu x %zu", type_name[t], op_name[cs[k].o], rows, cols);
        queued(what, t, din, rows * cols, 30 + k, dout, rows * es, want,
               [&] { return wr_reduce_rows(gpu, din, dout, rows, cols, t, cs[k].o); }, no_late);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(h);
    free(want);
}

/* nseg + 1 offsets of segments of 0 .. 2 * avg elements (some empty); the
 * total, offsets[nseg]. */
static size_t make_offsets(size_t *off, size_t nseg, size_t avg, uint64_t seed)
{
    off[0] = 0;
    for (size_t s = 0; s < nseg; s++) off[s + 1] = off[s] + (size_t)(sc_mix(seed + s) % (2 * avg + 1));
    return off[nseg];
}

/* group mappings (short segments), a block per segment, several blocks per
 * segment (fewer segments than 4 x SMs) */
static const struct { size_t nseg, avg; } seg_shapes[] = {
    { 5000, 20 }, { 2000, 200 }, { 300, 3000 }, { 40, 50000 }, { 3, 300000 },
};

static void check_segments(void)
{
    const size_t nmax = (size_t)4 << 20;
    void *din = dev_alloc(nmax * 8), *dout = dev_alloc(5000 * 8), *h = host_alloc(nmax * 8),
         *want = host_alloc(5000 * 8);
    size_t *hoff = NULL, *doff = (size_t *)dev_alloc(5001 * sizeof(size_t));
    CK(cudaMallocHost((void **)&hoff, 5001 * sizeof(size_t)));
    for (size_t k = 0; k < sizeof seg_shapes / sizeof seg_shapes[0]; k++) {
        const size_t nseg = seg_shapes[k].nseg;
        const wr_type t = k & 1 ? WR_INT64 : WR_INT32;
        const size_t es = wr_type_size(t), total = make_offsets(hoff, nseg, seg_shapes[k].avg, 40 + k);
        char what[112];
        if (total > nmax) bail("segments: %zu elements", total);
        host_fill_t(t, h, total, 40 + k);
        if (wr_reduce_segments(cpu, h, want, nseg, hoff, t, WR_SUM) != WR_SUCCESS)
            bail("cpu: %s", wr_context_error(cpu));
        snprintf(what, sizeof what, "wr_reduce_segments %s, %zu segments of ~%zu, offsets written on the stream",
                 type_name[t], nseg, seg_shapes[k].avg);
        /* the offsets too come late, from the stream: the call must not read
         * them on the host */
        CK(cudaMemsetAsync(doff, 0xff, (nseg + 1) * sizeof(size_t), S1));
        queued(what, t, din, total, 40 + k, dout, nseg * es, want,
               [&] { return wr_reduce_segments(gpu, din, dout, nseg, doff, t, WR_SUM); },
               [&](cudaStream_t st) {
                   CK(cudaMemcpyAsync(doff, hoff, (nseg + 1) * sizeof(size_t), cudaMemcpyHostToDevice, st));
               });
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(doff));
    CK(cudaFreeHost(hoff));
    free(h);
    free(want);
}

static void check_argext(void)
{
    const size_t n = (1u << 20) + 3;
    void *din = dev_alloc(n * 8), *dout = dev_alloc(16), *h = host_alloc(n * 8);
    void *mout = res_alloc(RES_MANAGED, 16);
    for (int k = 0; k < 4; k++) {
        const wr_type t = k & 1 ? WR_DOUBLE : WR_INT32;
        const int is_max = k < 2, with_value = k != 1;
        void *o = k == 3 ? mout : dout;
        const size_t m = k == 2 ? 1000 : n, es = wr_type_size(t);
        unsigned char want[16];
        char what[112];
        memset(want, 0, sizeof want);
        host_fill_t(t, h, m, 50 + (uint64_t)k);
        if ((is_max ? wr_argmax : wr_argmin)(cpu, h, m, t, (size_t *)want, with_value ? want + 8 : NULL) != WR_SUCCESS)
            bail("cpu: %s", wr_context_error(cpu));
        if (with_value && es == 4) memset(want + 12, 0x5a, 4);   /* (poison beyond a 4-byte value) */
        snprintf(what, sizeof what, "%s %s n=%zu, index%s in %s memory", is_max ? "wr_argmax" : "wr_argmin",
                 type_name[t], m, with_value ? " and value" : "", k == 3 ? "managed" : "device");
        queued(what, t, din, m, 50 + (uint64_t)k, o, with_value ? 16 : 8, want,
               [&] {
                   return (is_max ? wr_argmax : wr_argmin)(gpu, din, m, t, (size_t *)o,
                                                           with_value ? (char *)o + 8 : NULL);
               },
               no_late);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    res_free(RES_MANAGED, mout);
    free(h);
}

/* Float segments: the mapping k_seg_checked picks on the device from
 * offsets the host never read must be the one the host picks from checked
 * offsets, or the float bits differ. */
static void check_segment_bits(void)
{
    const size_t nmax = (size_t)4 << 20;
    float *h = (float *)host_alloc(nmax * 4), *a = (float *)host_alloc(5000 * 4), *b = (float *)host_alloc(5000 * 4);
    size_t *hoff = (size_t *)host_alloc(5001 * sizeof(size_t));
    void *din = dev_alloc(nmax * 4), *dout = dev_alloc(5000 * 4), *doff = dev_alloc(5001 * sizeof(size_t));
    uint64_t r = 77;
    int good = 1;
    for (size_t i = 0; i < nmax; i++) h[i] = (float)(rng_next(&r) >> 40) * 0x1p-24f;
    CK(cudaMemcpy(din, h, nmax * 4, cudaMemcpyHostToDevice));
    for (size_t k = 0; k < sizeof seg_shapes / sizeof seg_shapes[0]; k++) {
        const size_t nseg = seg_shapes[k].nseg;
        make_offsets(hoff, nseg, seg_shapes[k].avg, 60 + k);
        CK(cudaMemcpy(doff, hoff, (nseg + 1) * sizeof(size_t), cudaMemcpyHostToDevice));
        if (wr_context_set_stream(gpu, NULL) != WR_SUCCESS ||
            wr_reduce_segments(gpu, din, dout, nseg, (const size_t *)doff, WR_FLOAT, WR_SUM) != WR_SUCCESS)
            bail("segments without a stream: %s", wr_context_error(gpu));
        CK(cudaMemcpy(a, dout, nseg * 4, cudaMemcpyDeviceToHost));
        if (wr_context_set_stream(gpu, S1) != WR_SUCCESS) bail("set_stream: %s", wr_context_error(gpu));
        /* the poison in stream order before the queued call (a cudaMemset
         * on the legacy stream could land after it: legacy_done()) */
        CK(cudaMemsetAsync(dout, 0x5a, nseg * 4, S1));
        if (wr_reduce_segments(gpu, din, dout, nseg, (const size_t *)doff, WR_FLOAT, WR_SUM) != WR_SUCCESS)
            bail("queued segments: %s", wr_context_error(gpu));
        CK(cudaStreamSynchronize(S1));
        CK(cudaMemcpy(b, dout, nseg * 4, cudaMemcpyDeviceToHost));
        if (memcmp(a, b, nseg * 4) != 0) {
            char what[96];
            snprintf(what, sizeof what, "%zu float segments of ~%zu: queued and waited-for results differ", nseg,
                     seg_shapes[k].avg);
            diag_first_diff(what, a, b, nseg);
            good = 0;
        }
    }
    ok(good, "wr_reduce_segments of floats, 5 shapes: queued (offsets unread) and not, the same bits");
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(doff));
    free(h);
    free(a);
    free(b);
    free(hoff);
}

/* Reproducible mode (exact float sums) queued: reduce and rows return at
 * once with the cpu backend's bits; segments read their offsets on the
 * host (they wait for the stream) and give the cpu's bits too. */
static void check_reproducible(void)
{
    const size_t n = (1u << 20) + 3, rows = 1000, cols = 1000, nseg = 300;
    float *h = (float *)host_alloc(n * 4), *want = (float *)host_alloc(rows * 4), *got = (float *)host_alloc(rows * 4);
    size_t hoff[nseg + 1];
    void *din = dev_alloc(n * 4), *dout = dev_alloc(rows * 4);
    size_t *doff = (size_t *)dev_alloc(sizeof hoff);
    uint64_t r = 99;
    int good = 1;
    for (size_t i = 0; i < n; i++) h[i] = (float)((int64_t)(rng_next(&r) >> 40) - (1 << 23)) * 0x1p-20f;
    if (make_offsets(hoff, nseg, 3000, 98) > n) bail("reproducible: segments past the input");
    CK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(doff, hoff, sizeof hoff, cudaMemcpyHostToDevice));
    legacy_done();                      /* the calls below are queued on S1 */
    if (wr_context_set_float_mode(cpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS)
        bail("set_float_mode: %s", wr_context_error(gpu));
    for (int k = 0; k < 3; k++) {
        const char *what[3] = { "wr_reduce", "wr_reduce_rows", "wr_reduce_segments" };
        const size_t m = k == 0 ? 1 : k == 1 ? rows : nseg;
        wr_status a, b;
        CK(cudaMemsetAsync(dout, 0x5a, rows * 4, S1));
        if (k == 1) k_pause<<<1, 1, 0, S1>>>(kPause / 5);
        if (k == 0) {
            a = wr_reduce(cpu, h, want, n, WR_FLOAT, WR_SUM);
            b = wr_reduce(gpu, din, dout, n, WR_FLOAT, WR_SUM);
        } else if (k == 1) {
            a = wr_reduce_rows(cpu, h, want, rows, cols, WR_FLOAT, WR_SUM);
            b = wr_reduce_rows(gpu, din, dout, rows, cols, WR_FLOAT, WR_SUM);
            if (b == WR_SUCCESS && cudaStreamQuery(S1) != cudaErrorNotReady) {
                diag("reproducible wr_reduce_rows: returned after the stream's earlier work had finished");
                good = 0;
            }
        } else {
            a = wr_reduce_segments(cpu, h, want, nseg, hoff, WR_FLOAT, WR_SUM);
            b = wr_reduce_segments(gpu, din, dout, nseg, doff, WR_FLOAT, WR_SUM);
        }
        CK(cudaStreamSynchronize(S1));
        CK(cudaMemcpy(got, dout, m * 4, cudaMemcpyDeviceToHost));
        if (a != WR_SUCCESS || b != WR_SUCCESS || memcmp(got, want, m * 4) != 0) {
            diag("reproducible %s: %s / %s, or not the cpu's bits", what[k], wr_context_error(cpu),
                 wr_context_error(gpu));
            good = 0;
        }
    }
    ok(good, "reproducible float SUM queued (reduce, rows) and with host-read offsets (segments): the cpu's bits");
    if (wr_context_set_float_mode(cpu, WR_FLOAT_FAST) != WR_SUCCESS ||
        wr_context_set_float_mode(gpu, WR_FLOAT_FAST) != WR_SUCCESS)
        bail("set_float_mode: %s", wr_context_error(gpu));
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(doff));
    free(h);
    free(want);
    free(got);
}

/* ---- decreasing offsets, found on the device -------------------------------- */

static void check_bad_offsets(void)
{
    const size_t nseg = 16, n = 160;
    size_t hoff[17];
    void *din = dev_alloc(n * 4), *dout = dev_alloc(nseg * 4), *dres = dev_alloc(8);
    size_t *doff = (size_t *)dev_alloc(sizeof hoff);
    int32_t hout[16], got;
    for (size_t s = 0; s <= nseg; s++) hoff[s] = 10 * s;
    hoff[8] = 5;                        /* offsets[8] < offsets[7]: segment 7 decreases */
    hoff[12] = (size_t)1 << 40;         /* far outside in: segment 11 reaches past it, 12 decreases */
    CK(cudaMemcpy(doff, hoff, sizeof hoff, cudaMemcpyHostToDevice));
    legacy_done();                      /* the offsets are read by work on S1 */
    fill_on(S1, WR_INT32, din, n, NULL, 70);
    CK(cudaMemsetAsync(dres, 0x5a, 8, S1));
    wr_status st = wr_reduce_segments(gpu, din, dout, nseg, doff, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS, "decreasing offsets on the device, queued: WR_SUCCESS at first (%s)", wr_context_error(gpu));
    CK(cudaStreamSynchronize(S1));      /* the caller's own wait: the kernel has run */
    st = wr_reduce(gpu, din, dres, n, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(gpu), "found bad offsets") != NULL,
       "the next call reports them (WR_ERR_INVALID_ARG): \"%s\"", wr_context_error(gpu));
    CK(cudaStreamSynchronize(S1));
    CK(cudaMemcpy(&got, dres, 4, cudaMemcpyDeviceToHost));
    ok(got == 0x5a5a5a5a, "... and does nothing else (its output untouched)");
    st = wr_context_synchronize(gpu);
    ok(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(gpu), "offsets[8] < offsets[7]") != NULL,
       "wr_context_synchronize names the first decrease: \"%s\"", wr_context_error(gpu));
    ok(wr_context_synchronize(gpu) == WR_SUCCESS && wr_reduce(gpu, din, dres, n, WR_INT32, WR_SUM) == WR_SUCCESS,
       "... and clears it: the next synchronize and call succeed");
    CK(cudaStreamSynchronize(S1));
    /* the same offsets where the call waits for its result (host output):
     * checked at once, as without a stream */
    st = wr_reduce_segments(gpu, din, hout, nseg, doff, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(gpu), "offsets[8] = 5 < offsets[7] = 70") != NULL,
       "decreasing offsets, host output: refused at once: \"%s\"", wr_context_error(gpu));
    ok(wr_context_synchronize(gpu) == WR_SUCCESS, "nothing pending after that");
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(dres));
    CK(cudaFree(doff));
}

/* ---- argument errors ------------------------------------------------------------ */

static void check_arg_errors(void)
{
    const size_t n = 1024;
    char *din = (char *)dev_alloc(n * 8), *dout = (char *)dev_alloc(n * 8), *got = (char *)host_alloc(n * 8);
    size_t *doff = (size_t *)dev_alloc(17 * sizeof(size_t)), hoff[17];
    for (int s = 0; s <= 16; s++) hoff[s] = 8 * (size_t)s;
    CK(cudaMemcpy(doff, hoff, sizeof hoff, cudaMemcpyHostToDevice));
    legacy_done();
    fill_on(S1, WR_INT32, din, n, NULL, 80);
    CK(cudaMemsetAsync(dout, 0x5a, n * 8, S1));
    CK(cudaStreamSynchronize(S1));
    struct { const char *what; wr_status want; wr_status got; } cs[] = {
        { "wr_reduce, out NULL", WR_ERR_INVALID_ARG, wr_reduce(gpu, din, NULL, n, WR_INT32, WR_SUM) },
        { "wr_reduce, BAND on float", WR_ERR_UNSUPPORTED, wr_reduce(gpu, din, dout, n, WR_FLOAT, WR_BAND) },
        { "wr_reduce, type 99", WR_ERR_INVALID_ARG, wr_reduce(gpu, din, dout, n, (wr_type)99, WR_SUM) },
        { "wr_scan, misaligned in", WR_ERR_INVALID_ARG, wr_scan(gpu, din + 2, dout, n - 1, WR_INT32, WR_SUM) },
        { "wr_exscan, out overlaps in", WR_ERR_INVALID_ARG, wr_exscan(gpu, din, din + 4, n - 1, WR_INT32, WR_SUM) },
        { "wr_reduce_rows, out overlaps in", WR_ERR_INVALID_ARG, wr_reduce_rows(gpu, din, din + 8, 16, 8, WR_INT32, WR_SUM) },
        { "wr_reduce_segments, out overlaps offsets", WR_ERR_INVALID_ARG,
          wr_reduce_segments(gpu, din, (char *)doff + 8, 16, doff, WR_INT32, WR_SUM) },
        { "wr_reduce_segments, misaligned in", WR_ERR_INVALID_ARG,
          wr_reduce_segments(gpu, din + 2, dout, 16, doff, WR_INT32, WR_SUM) },
        { "wr_argmax, count 0", WR_ERR_EMPTY, wr_argmax(gpu, din, 0, WR_INT32, (size_t *)dout, dout + 8) },
        { "wr_argmin, index NULL", WR_ERR_INVALID_ARG, wr_argmin(gpu, din, n, WR_INT32, NULL, dout) },
    };
    CK(cudaStreamSynchronize(S1));
    CK(cudaMemcpy(got, dout, n * 8, cudaMemcpyDeviceToHost));
    int untouched = 1;
    for (size_t i = 0; i < n * 8; i++) untouched &= (unsigned char)got[i] == 0x5a;
    CK(cudaMemcpy(hoff, doff, sizeof hoff, cudaMemcpyDeviceToHost));
    for (int s = 0; s <= 16; s++) untouched &= hoff[s] == 8 * (size_t)s;
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        ok(cs[k].got == cs[k].want, "stream set, %s: %s at once", cs[k].what, wr_status_string(cs[k].want));
    ok(untouched, "... and every output untouched");
    ok(wr_context_synchronize(gpu) == WR_SUCCESS, "... and nothing to report later");
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(doff));
    free(got);
}

/* ---- calls with host buffers ------------------------------------------------------- */

static void check_host_buffers(void)
{
    const size_t n = 300001;
    int32_t *pin = NULL, *h = (int32_t *)host_alloc(n * 4), *pg = (int32_t *)host_alloc(n * 4),
            *want = (int32_t *)host_alloc(n * 4);
    void *dsrc = dev_alloc(n * 4), *din = dev_alloc(n * 4);
    int32_t sum = 0, wsum = 0;
    CK(cudaMallocHost((void **)&pin, n * 4));
    host_fill(h, n, 90);
    if (wr_reduce(cpu, h, &wsum, n, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_scan(cpu, h, want, n, WR_INT32, WR_SUM) != WR_SUCCESS)
        bail("cpu: %s", wr_context_error(cpu));

    /* pinned input written by the stream (a device-to-host copy after the
     * caller's slow kernel), result to a pageable variable */
    memset(pin, 0x11, n * 4);
    k_pause<<<1, 1, 0, S1>>>(kPause);
    fill_on(S1, WR_INT32, dsrc, n, NULL, 90);
    CK(cudaMemcpyAsync(pin, dsrc, n * 4, cudaMemcpyDeviceToHost, S1));
    wr_status st = wr_reduce(gpu, pin, &sum, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && sum == wsum && cudaStreamQuery(S1) == cudaSuccess,
       "wr_reduce of pinned memory the stream writes: after it, complete on return (%s)", wr_context_error(gpu));

    /* device input written late, pageable output */
    memset(pg, 0x5a, n * 4);
    CK(cudaMemsetAsync(din, 0x11, n * 4, S1));
    k_pause<<<1, 1, 0, S1>>>(kPause);
    fill_on(S1, WR_INT32, din, n, NULL, 90);
    st = wr_scan(gpu, din, pg, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && memcmp(pg, want, n * 4) == 0,
       "wr_scan of device memory the stream writes, to pageable memory: complete on return (%s)",
       wr_context_error(gpu));

    /* device input, host index and value */
    size_t wi = 0, gi = 1;
    int32_t wv = 0, gv = 1;
    if (wr_argmin(cpu, h, n, WR_INT32, &wi, &wv) != WR_SUCCESS) bail("cpu: %s", wr_context_error(cpu));
    CK(cudaMemsetAsync(din, 0x11, n * 4, S1));
    k_pause<<<1, 1, 0, S1>>>(kPause);
    fill_on(S1, WR_INT32, din, n, NULL, 90);
    st = wr_argmin(gpu, din, n, WR_INT32, &gi, &gv);
    ok(st == WR_SUCCESS && gi == wi && gv == wv, "wr_argmin to host memory: after the stream's work (%s)",
       wr_context_error(gpu));

    /* a call that must complete cannot be captured: refused, and the
     * caller's capture goes on (a queued call inside it is captured) */
    cudaGraph_t g = NULL;
    CK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
    st = wr_reduce(gpu, din, &sum, n, WR_INT32, WR_SUM);
    char why[300];   /* the reason, before the next call on gpu clears it */
    snprintf(why, sizeof why, "%s", wr_context_error(gpu));
    const wr_status st2 = wr_reduce(gpu, din, dsrc, n, WR_INT32, WR_SUM);
    const cudaError_t e = cudaStreamEndCapture(S1, &g);
    ok(st == WR_ERR_INVALID_ARG && strstr(why, "captured") != NULL,
       "a call with a host output while the stream is captured: refused (\"%s\")", why);
    ok(st2 == WR_SUCCESS && e == cudaSuccess && g != NULL, "... and the capture goes on: a queued call joins it");
    if (g) CK(cudaGraphDestroy(g));
    (void)cudaGetLastError();
    CK(cudaStreamSynchronize(S1));
    CK(cudaFree(dsrc));
    CK(cudaFree(din));
    CK(cudaFreeHost(pin));
    free(h);
    free(pg);
    free(want);
}

/* ---- streams and contexts -------------------------------------------------------- */

static void check_no_stream(void)
{
    wr_context *c = NULL;
    if (wr_context_create(&c, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    ok(wr_context_synchronize(c) == WR_SUCCESS, "wr_context_synchronize, cuda context without a stream");
    ok(wr_context_set_stream(c, NULL) == WR_SUCCESS, "wr_context_set_stream(NULL) without a stream: a no-op");
    ok(wr_context_set_stream(c, S1) == WR_SUCCESS && wr_context_set_stream(c, S1) == WR_SUCCESS &&
       wr_context_set_stream(c, NULL) == WR_SUCCESS && wr_context_synchronize(c) == WR_SUCCESS,
       "a stream set twice, then none: nothing to wait for");
    wr_context_destroy(c);
    ok(wr_context_synchronize(cpu) == WR_SUCCESS, "wr_context_synchronize, cpu context");
    ok(wr_context_set_stream(cpu, S1) == WR_ERR_NO_BACKEND, "wr_context_set_stream, cpu context: WR_ERR_NO_BACKEND");
    ok(wr_context_set_stream(NULL, S1) == WR_ERR_INVALID_ARG && wr_context_synchronize(NULL) == WR_ERR_INVALID_ARG,
       "both with a NULL context: WR_ERR_INVALID_ARG");
}

/* S1: slow kernel, fill, queued scan into X; then S2: a queued reduce of X
 * must wait for S1's scan (an event, not the host); then no stream: a call
 * that waits; then S1 again. */
static void check_switch(void)
{
    const size_t n = (1u << 20) + 3;
    int32_t *h = (int32_t *)host_alloc(n * 4), *pre = (int32_t *)host_alloc(n * 4);
    void *din = dev_alloc(n * 4), *dx = dev_alloc(n * 4), *dr = dev_alloc(8), *seen = dev_alloc(8);
    int32_t want = 0, got = 0, host_r = 0;
    host_fill(h, n, 95);
    if (wr_scan(cpu, h, pre, n, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_reduce(cpu, pre, &want, n, WR_INT32, WR_SUM) != WR_SUCCESS)
        bail("cpu: %s", wr_context_error(cpu));
    for (int pass = 0; pass < 2; pass++) {
        int good = 1;
        if (wr_context_set_stream(gpu, S1) != WR_SUCCESS) bail("set_stream: %s", wr_context_error(gpu));
        CK(cudaMemsetAsync(dx, 0x11, n * 4, S1));
        CK(cudaMemsetAsync(dr, 0x5a, 8, S2));
        if (pass) k_pause<<<1, 1, 0, S1>>>(kPause);
        fill_on(S1, WR_INT32, din, n, NULL, 95);
        good &= wr_scan(gpu, din, dx, n, WR_INT32, WR_SUM) == WR_SUCCESS;
        good &= wr_context_set_stream(gpu, S2) == WR_SUCCESS;
        if (pass && cudaStreamQuery(S1) != cudaErrorNotReady) {
            diag("wr_context_set_stream waited for the old stream");
            good = 0;
        }
        good &= wr_reduce(gpu, dx, dr, n, WR_INT32, WR_SUM) == WR_SUCCESS;
        if (pass && cudaStreamQuery(S2) != cudaErrorNotReady) {
            diag("the new stream did not wait for the old one");
            good = 0;
        }
        copy_on(S2, seen, dr, 4);
        CK(cudaStreamSynchronize(S2));
        CK(cudaMemcpy(&got, seen, 4, cudaMemcpyDeviceToHost));
        good &= got == want;
        /* back to the library's streams: waits for S2, then calls complete */
        good &= wr_context_set_stream(gpu, NULL) == WR_SUCCESS;
        good &= wr_reduce(gpu, dx, &host_r, n, WR_INT32, WR_SUM) == WR_SUCCESS && host_r == want;
        ok(good, "stream S1, then S2 (ordered after S1 without a host wait), then none%s (%s)",
           pass ? ", S1 busy" : "", wr_context_error(gpu));
    }
    /* and S1 again, with a call queued after the pool's */
    CK(cudaMemsetAsync(dr, 0x5a, 8, S1));
    ok(wr_context_set_stream(gpu, S1) == WR_SUCCESS && wr_reduce(gpu, dx, dr, n, WR_INT32, WR_SUM) == WR_SUCCESS &&
       wr_context_synchronize(gpu) == WR_SUCCESS,
       "back to S1 after the library's own streams (%s)", wr_context_error(gpu));
    CK(cudaMemcpy(&got, dr, 4, cudaMemcpyDeviceToHost));
    ok(got == want, "... the queued result is right");
    CK(cudaFree(din));
    CK(cudaFree(dx));
    CK(cudaFree(dr));
    CK(cudaFree(seen));
    free(h);
    free(pre);
}

/* Two contexts, each on its own stream, their calls queued in turn. */
static void check_two_contexts(void)
{
    enum { K = 12 };
    const size_t na = (1u << 20) + 3, nb = 300007;
    wr_context *a = gpu, *b = NULL;
    if (wr_context_create(&b, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    void *ina = dev_alloc(K * na * 4), *inb = dev_alloc(K * nb * 8), *sa = dev_alloc(na * 4), *sb = dev_alloc(nb * 8);
    void *ra = dev_alloc(K * 4), *rb = dev_alloc(K * 8);
    int32_t *h = (int32_t *)host_alloc(na * 8), *pre = (int32_t *)host_alloc(na * 8);
    int32_t wa[K], ga[K];
    int64_t wb[K], gb[K];
    for (int k = 0; k < K; k++) {
        host_fill(h, na, 200 + k);
        if (wr_scan(cpu, h, pre, na, WR_INT32, WR_SUM) != WR_SUCCESS ||
            wr_reduce(cpu, pre, &wa[k], na, WR_INT32, WR_MAX) != WR_SUCCESS)
            bail("cpu: %s", wr_context_error(cpu));
        host_fill((int64_t *)h, nb, 300 + k);
        if (wr_scan(cpu, h, pre, nb, WR_INT64, WR_SUM) != WR_SUCCESS ||
            wr_reduce(cpu, pre, &wb[k], nb, WR_INT64, WR_MIN) != WR_SUCCESS)
            bail("cpu: %s", wr_context_error(cpu));
    }
    int good = wr_context_set_stream(a, S1) == WR_SUCCESS && wr_context_set_stream(b, S2) == WR_SUCCESS;
    for (int k = 0; k < K && good; k++) {
        int32_t *ia = (int32_t *)ina + k * na;
        int64_t *ib = (int64_t *)inb + k * nb;
        fill_on(S1, WR_INT32, ia, na, NULL, 200 + k);
        fill_on(S2, WR_INT64, ib, nb, NULL, 300 + k);
        good &= wr_scan(a, ia, sa, na, WR_INT32, WR_SUM) == WR_SUCCESS;
        good &= wr_scan(b, ib, sb, nb, WR_INT64, WR_SUM) == WR_SUCCESS;
        good &= wr_reduce(a, sa, (int32_t *)ra + k, na, WR_INT32, WR_MAX) == WR_SUCCESS;
        good &= wr_reduce(b, sb, (int64_t *)rb + k, nb, WR_INT64, WR_MIN) == WR_SUCCESS;
    }
    good &= wr_context_synchronize(a) == WR_SUCCESS && wr_context_synchronize(b) == WR_SUCCESS;
    CK(cudaMemcpy(ga, ra, sizeof ga, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gb, rb, sizeof gb, cudaMemcpyDeviceToHost));
    ok(good && memcmp(ga, wa, sizeof wa) == 0 && memcmp(gb, wb, sizeof wb) == 0,
       "two contexts on two streams at once, %d scans and reductions each: the cpu's results (%s / %s)", K,
       wr_context_error(a), wr_context_error(b));
    wr_context_destroy(b);
    CK(cudaFree(ina));
    CK(cudaFree(inb));
    CK(cudaFree(sa));
    CK(cudaFree(sb));
    CK(cudaFree(ra));
    CK(cudaFree(rb));
    free(h);
    free(pre);
}

int main(void)
{
    gpu_require();
    plan_lazy();
    if (const char *ms = getenv("WR_TEST_STREAM_PAUSE_MS")) {
        const unsigned long long v = strtoull(ms, NULL, 10);
        if (v > 0 && v < 600000) kPause = v * 1000000ull;
    }
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) bail("cpu context: %s", wr_context_error(NULL));
    if (wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    CK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
    check_no_stream();
    if (wr_context_set_stream(gpu, S1) != WR_SUCCESS) bail("wr_context_set_stream: %s", wr_context_error(gpu));
    check_reduce();
    check_scans();
    check_rows();
    check_segments();
    check_argext();
    check_segment_bits();
    check_reproducible();
    check_bad_offsets();
    check_arg_errors();
    check_host_buffers();
    check_switch();
    check_two_contexts();
    ok(wr_context_synchronize(gpu) == WR_SUCCESS, "wr_context_synchronize at the end (%s)", wr_context_error(gpu));
    wr_context_destroy(gpu);
    wr_context_destroy(cpu);
    CK(cudaStreamDestroy(S1));
    CK(cudaStreamDestroy(S2));
    return tap_failures() ? 1 : 0;
}

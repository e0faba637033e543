/*
 * test_cuda_graphs.cu -- calls queued on a stream captured into a CUDA graph
 * (cudaStreamCaptureModeGlobal: the strictest, where any forbidden driver
 * call of the library would end the capture with an error).
 *
 * One capture: the caller's fill (its seed read from device memory), every
 * operation on its output, and the caller's consumer; then three replays,
 * the host changing the seed between them (the last one on another
 * stream), each checked against the cpu backend: a scan replayed with a
 * stale epoch would take the previous replay's tile prefixes for its own.
 * Then calls queued after the replays (the epoch goes on), and scans longer
 * than the stream's reserved descriptors (WARPRED_CUDA_STREAM_SCAN_BYTES):
 * run in pieces, queued and captured (and with the block-per-tile kernel),
 * with the bits of the same scan without a stream.
 *
 * S1 and S2 are non-blocking streams: whatever the host put on the legacy
 * stream (cudaMemset poison, cudaMemcpy of inputs) is waited for
 * (legacy_done) or written on S1 itself before a call queued there.
 */
#include <stdio.h>
#include <string.h>
#include "stream_common.cuh"

static wr_context *cpu, *gpu;
static cudaStream_t S1, S2;

enum { NOUT = 9 };                      /* outputs of the captured sequence */

struct bufs {
    size_t n, rows, cols, nseg;
    uint64_t *seedp;
    void *in, *out[NOUT];
    size_t bytes[NOUT];
    size_t *off;
};

/* The captured (or eager) sequence on stream st. */
static wr_status sequence(const bufs &b, cudaStream_t st)
{
    wr_status s = WR_SUCCESS;
    fill_on(st, WR_INT32, b.in, b.n, b.seedp, 0);
    if (s == WR_SUCCESS) s = wr_scan(gpu, b.in, b.out[0], b.n, WR_INT32, WR_SUM);
    if (s == WR_SUCCESS) s = wr_exscan(gpu, b.in, b.out[1], b.n, WR_INT32, WR_SUM);
    if (s == WR_SUCCESS) s = wr_reduce(gpu, b.in, b.out[2], b.n, WR_INT32, WR_SUM);
    if (s == WR_SUCCESS) s = wr_reduce_rows(gpu, b.in, b.out[3], b.rows, b.cols, WR_INT32, WR_MAX);
    if (s == WR_SUCCESS) s = wr_reduce_segments(gpu, b.in, b.out[4], b.nseg, b.off, WR_INT32, WR_SUM);
    if (s == WR_SUCCESS) s = wr_argmax(gpu, b.in, b.n, WR_INT32, (size_t *)b.out[5], b.out[6]);
    if (s == WR_SUCCESS) s = wr_scan(gpu, b.out[0], b.out[7], b.n, WR_INT32, WR_BXOR);   /* on an output */
    if (s == WR_SUCCESS) copy_on(st, b.out[8], b.out[2], 4);                             /* the consumer */
    return s;
}

/* The cpu backend's outputs of the sequence for seed, compared with the
 * device's; returns 1 if all agree. */
static int check_outputs(const bufs &b, uint64_t seed, const char *what)
{
    int32_t *h = (int32_t *)host_alloc(b.n * 4);
    void *want[NOUT], *got = host_alloc(b.n * 8);
    size_t *hoff = (size_t *)host_alloc((b.nseg + 1) * sizeof(size_t));
    int good = 1;
    for (int k = 0; k < NOUT; k++) want[k] = host_alloc(b.bytes[k]);
    host_fill(h, b.n, seed);
    CK(cudaMemcpy(hoff, b.off, (b.nseg + 1) * sizeof(size_t), cudaMemcpyDeviceToHost));
    if (wr_scan(cpu, h, want[0], b.n, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_exscan(cpu, h, want[1], b.n, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_reduce(cpu, h, want[2], b.n, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_reduce_rows(cpu, h, want[3], b.rows, b.cols, WR_INT32, WR_MAX) != WR_SUCCESS ||
        wr_reduce_segments(cpu, h, want[4], b.nseg, hoff, WR_INT32, WR_SUM) != WR_SUCCESS ||
        wr_argmax(cpu, h, b.n, WR_INT32, (size_t *)want[5], want[6]) != WR_SUCCESS ||
        wr_scan(cpu, want[0], want[7], b.n, WR_INT32, WR_BXOR) != WR_SUCCESS)
        bail("cpu: %s", wr_context_error(cpu));
    memcpy(want[8], want[2], 4);
    static const char *const names[NOUT] = { "scan", "exscan", "reduce", "rows", "segments", "argmax index",
                                             "argmax value", "scan of the scan", "consumer's copy" };
    for (int k = 0; k < NOUT; k++) {
        CK(cudaMemcpy(got, b.out[k], b.bytes[k], cudaMemcpyDeviceToHost));
        if (memcmp(got, want[k], b.bytes[k]) != 0) {
            diag("%s: %s differs from the cpu's", what, names[k]);
            good = 0;
        }
        free(want[k]);
    }
    free(h);
    free(got);
    free(hoff);
    return good;
}

static void check_replays(void)
{
    bufs b;
    b.n = (1u << 20) + 3;                 /* 129 scan tiles */
    b.cols = 1000;
    b.rows = b.n / b.cols;
    b.nseg = 777;
    const size_t bytes[NOUT] = { b.n * 4, b.n * 4, 4, b.rows * 4, b.nseg * 4, 8, 4, b.n * 4, 4 };
    b.seedp = (uint64_t *)dev_alloc(8);
    b.in = dev_alloc(b.n * 4);
    for (int k = 0; k < NOUT; k++) {
        b.bytes[k] = bytes[k];
        b.out[k] = dev_alloc(bytes[k]);
        CK(cudaMemset(b.out[k], 0x5a, bytes[k]));
    }
    size_t *hoff = (size_t *)host_alloc((b.nseg + 1) * sizeof(size_t));
    for (size_t s = 0; s <= b.nseg; s++) hoff[s] = b.n * s / b.nseg - (s % 5 == 1 ? 3 : 0);
    b.off = (size_t *)dev_alloc((b.nseg + 1) * sizeof(size_t));
    CK(cudaMemcpy(b.off, hoff, (b.nseg + 1) * sizeof(size_t), cudaMemcpyHostToDevice));
    free(hoff);

    /* once eagerly: the kernels' modules are loaded before the capture */
    uint64_t seed = 1000;
    CK(cudaMemcpy(b.seedp, &seed, 8, cudaMemcpyHostToDevice));
    legacy_done();                        /* the poison, offsets and seed, before S1 reads them */
    ok(sequence(b, S1) == WR_SUCCESS && wr_context_synchronize(gpu) == WR_SUCCESS && check_outputs(b, seed, "eager"),
       "the sequence queued eagerly: the cpu's results (%s)", wr_context_error(gpu));

    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    CK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
    const wr_status st = sequence(b, S1);
    const cudaError_t e = cudaStreamEndCapture(S1, &g);
    ok(st == WR_SUCCESS && e == cudaSuccess && g != NULL,
       "captured in global mode: every call queued, the capture valid (%s; %s)", wr_context_error(gpu),
       cudaGetErrorString(e));
    if (g == NULL) bail("no graph to replay");
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int r = 0; r < 3; r++) {
        char what[64];
        seed = 2000 + 17 * (uint64_t)r;
        for (int k = 0; k < NOUT; k++) CK(cudaMemset(b.out[k], 0x5a, b.bytes[k]));
        CK(cudaMemcpy(b.seedp, &seed, 8, cudaMemcpyHostToDevice));
        legacy_done();
        cudaStream_t on = r == 2 ? S2 : S1;
        CK(cudaGraphLaunch(x, on));
        CK(cudaStreamSynchronize(on));
        snprintf(what, sizeof what, "replay %d", r + 1);
        ok(check_outputs(b, seed, what), "replay %d%s, new input: every output the cpu's", r + 1,
           r == 2 ? " (on another stream)" : "");
    }
    ok(wr_context_synchronize(gpu) == WR_SUCCESS, "nothing pending after the replays (%s)", wr_context_error(gpu));

    /* the same calls eagerly again: the scan's epoch went on in the replays */
    seed = 3000;
    CK(cudaMemcpy(b.seedp, &seed, 8, cudaMemcpyHostToDevice));
    legacy_done();
    ok(sequence(b, S1) == WR_SUCCESS && wr_context_synchronize(gpu) == WR_SUCCESS &&
       check_outputs(b, seed, "eager after the replays"),
       "queued again after the replays: the cpu's results (%s)", wr_context_error(gpu));

    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(b.seedp));
    CK(cudaFree(b.in));
    CK(cudaFree(b.off));
    for (int k = 0; k < NOUT; k++) CK(cudaFree(b.out[k]));
}

/* Scans longer than the reserved descriptors run in pieces: the bits of the
 * scan in one launch (float sums: exact only if the pieces are whole tiles
 * and carry the prefix as the tiles do).  The same queued on a context
 * whose scans run the block-per-tile kernel (WARPRED_CUDA_SCAN_KERNEL=block,
 * as on devices where the staged kernel cannot run): its stream strand
 * must run that kernel too, with the same bits. */
static void check_pieces(void)
{
    const size_t n = (3u << 18) + 11;     /* ~100 tiles of floats; the reserve holds 3 */
    wr_context *small = NULL, *plain = NULL, *blk = NULL;
    setenv("WARPRED_CUDA_STREAM_SCAN_BYTES", "65536", 1);
    wr_status cs = wr_context_create(&small, WR_BACKEND_CUDA);
    setenv("WARPRED_CUDA_SCAN_KERNEL", "block", 1);
    if (cs == WR_SUCCESS) cs = wr_context_create(&blk, WR_BACKEND_CUDA);
    unsetenv("WARPRED_CUDA_SCAN_KERNEL");
    unsetenv("WARPRED_CUDA_STREAM_SCAN_BYTES");
    if (cs != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    if (wr_context_create(&plain, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    float *h = (float *)host_alloc(n * 4), *a = (float *)host_alloc(n * 4), *b = (float *)host_alloc(n * 4);
    void *din = dev_alloc(n * 4), *dout = dev_alloc(n * 4);
    uint64_t r = 5;
    for (size_t i = 0; i < n; i++) h[i] = (float)(rng_next(&r) >> 40) * 0x1p-24f - 0.25f;
    CK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    for (int ex = 0; ex < 2; ex++) {
        auto fn = ex ? wr_exscan : wr_scan;
        if (fn(plain, din, dout, n, WR_FLOAT, WR_SUM) != WR_SUCCESS) bail("scan: %s", wr_context_error(plain));
        CK(cudaMemcpy(a, dout, n * 4, cudaMemcpyDeviceToHost));
        /* the poison on S1, in stream order before the queued call (a
         * cudaMemset could land after it: legacy_done()) */
        int good = wr_context_set_stream(small, S1) == WR_SUCCESS;
        CK(cudaMemsetAsync(dout, 0x5a, n * 4, S1));
        good = good && fn(small, din, dout, n, WR_FLOAT, WR_SUM) == WR_SUCCESS &&
               wr_context_synchronize(small) == WR_SUCCESS;
        CK(cudaMemcpy(b, dout, n * 4, cudaMemcpyDeviceToHost));
        char what[96];
        snprintf(what, sizeof what, "%s of %zu floats queued in pieces", ex ? "wr_exscan" : "wr_scan", n);
        if (good && memcmp(a, b, n * 4) != 0) diag_first_diff(what, a, b, n);
        ok(good && memcmp(a, b, n * 4) == 0, "%s: the bits of one launch (%s)", what, wr_context_error(small));
        /* the same in a graph, replayed twice */
        cudaGraph_t g = NULL;
        cudaGraphExec_t x = NULL;
        CK(cudaMemsetAsync(dout, 0x5a, n * 4, S1));
        CK(cudaStreamBeginCapture(S1, cudaStreamCaptureModeGlobal));
        good = fn(small, din, dout, n, WR_FLOAT, WR_SUM) == WR_SUCCESS;
        CK(cudaStreamEndCapture(S1, &g));
        CK(cudaGraphInstantiate(&x, g, 0));
        for (int k = 0; k < 2; k++) {
            CK(cudaGraphLaunch(x, S1));
            CK(cudaStreamSynchronize(S1));
            CK(cudaMemcpy(b, dout, n * 4, cudaMemcpyDeviceToHost));
            if (memcmp(a, b, n * 4) != 0) {
                snprintf(what, sizeof what, "%s of %zu floats, replay %d", ex ? "wr_exscan" : "wr_scan", n, k + 1);
                diag_first_diff(what, a, b, n);
                good = 0;
            }
            CK(cudaMemsetAsync(dout, 0x5a, n * 4, S1));
        }
        ok(good, "... captured and replayed twice: the same bits");
        CK(cudaGraphExecDestroy(x));
        CK(cudaGraphDestroy(g));
        /* the block-per-tile kernel, queued in pieces */
        good = wr_context_set_stream(blk, S1) == WR_SUCCESS && fn(blk, din, dout, n, WR_FLOAT, WR_SUM) == WR_SUCCESS &&
               wr_context_synchronize(blk) == WR_SUCCESS;
        CK(cudaMemcpy(b, dout, n * 4, cudaMemcpyDeviceToHost));
        snprintf(what, sizeof what, "%s of %zu floats, block-per-tile kernel, queued in pieces",
                 ex ? "wr_exscan" : "wr_scan", n);
        if (good && memcmp(a, b, n * 4) != 0) diag_first_diff(what, a, b, n);
        ok(good && memcmp(a, b, n * 4) == 0, "%s: the bits of one launch (%s)", what, wr_context_error(blk));
        CK(cudaStreamSynchronize(S1));    /* the next scan of `plain` (not on S1) writes dout */
    }
    wr_context_destroy(blk);
    wr_context_destroy(small);
    wr_context_destroy(plain);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(h);
    free(a);
    free(b);
}

int main(void)
{
    gpu_require();
    plan_lazy();
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) bail("cpu context: %s", wr_context_error(NULL));
    if (wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    CK(cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking));
    if (wr_context_set_stream(gpu, S1) != WR_SUCCESS) bail("wr_context_set_stream: %s", wr_context_error(gpu));
    check_replays();
    check_pieces();
    wr_context_destroy(gpu);
    wr_context_destroy(cpu);
    CK(cudaStreamDestroy(S1));
    CK(cudaStreamDestroy(S2));
    return tap_failures() ? 1 : 0;
}

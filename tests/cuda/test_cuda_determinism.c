/*
 * test_cuda_determinism.c -- DESIGN.md: "for a given backend, type, op and
 * count, floating results are the same bits on every run", on the cuda
 * backend, where it is not free: the single-pass scan's look-back stops at
 * whichever earlier tile has published its prefix, and that depends on
 * timing (cuda/scan_tile_state.cuh explains why the result does not).
 *
 * Float and double SUM, PROD and MAX (with NaNs of several bit patterns:
 * the first one met must come out, whatever the look-back did), scan and
 * exscan, on device memory, at sizes from a few tiles to a long chain of
 * them (2^16 + 5, 2^21 + 3 and 2^24 + 4097 elements, bounded by
 * WR_TEST_MAX_N): every one of REPEATS runs must be bit-identical to the
 * first, and so must the in-place run.  Meanwhile a second host thread keeps
 * the device busy with reductions on the same context, so the blocks of the
 * scan are scheduled differently from run to run.  The same scans on
 * contexts whose scans may use only 1 or 3 resident blocks
 * (WARPRED_CUDA_SCAN_BLOCKS: each block then scans many tiles one after the
 * other) must give the same bits too, and so must the scan kernel with one
 * block per tile (WARPRED_CUDA_SCAN_KERNEL=block: cuda/scan_block.cuh, the
 * kernel of code below sm_80, whose bits are by design those of the
 * warp-specialised kernel).  A digest of each result is printed ("# digest
 * WHAT HEX"), so that runs with plugins built for other architectures can
 * be compared (tools/gpu-check).  (Accuracy against a reference is
 * test_cuda_xval's job; this is only stability.)  Then float and double
 * segments and rows the same way (check_segments).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

#define REPEATS 6

static wr_context *gpu;
/* contexts whose scans run otherwise: on that many resident blocks, or
 * with the other kernel */
static const struct { const char *var, *val, *name; } few_blocks[] = {
    { "WARPRED_CUDA_SCAN_BLOCKS", "1", "1 block" },
    { "WARPRED_CUDA_SCAN_BLOCKS", "3", "3 blocks" },
    { "WARPRED_CUDA_SCAN_KERNEL", "block", "the block-per-tile kernel" },
};
#define NFEW (sizeof few_blocks / sizeof few_blocks[0])
static wr_context *few[NFEW];
static volatile int stop_bg;
static void *bg_in, *bg_out;
static size_t bg_n;

static void *background(void *arg)
{
    (void)arg;
    while (!stop_bg)
        if (wr_reduce(gpu, bg_in, bg_out, bg_n, WR_FLOAT, WR_SUM) != WR_SUCCESS) break;
    return NULL;
}

/* FNV-1a of the bytes */
static uint64_t digest(const void *p, size_t bytes)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

static void fill(void *h, wr_type t, wr_op op, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        /* uniform in [-1, 1); for PROD 1 + that / 256, so that 2^24 factors stay finite */
        uint64_t r = rng_next(&seed);
        double u = (double)(r >> 11) * 0x1p-52 - 1.0;
        double v = op == WR_PROD ? 1.0 + u / 256.0 : u;
        if (t == WR_FLOAT) ((float *)h)[i] = (float)v;
        else ((double *)h)[i] = v;
        /* MAX: about one element in 50000 a NaN, sign and payload from r */
        if (op == WR_MAX && r % 50000 == 7) {
            if (t == WR_FLOAT) {
                uint32_t b = 0x7fc00000u | (uint32_t)(r >> 40 & 0xffff) | (uint32_t)(r >> 63) << 31;
                memcpy((float *)h + i, &b, 4);
            } else {
                uint64_t b = 0x7ff8000000000000ull | (r >> 24 & 0xffffffull) | (r >> 63) << 63;
                memcpy((double *)h + i, &b, 8);
            }
        }
    }
}

/*
 * Float and double SUM over segments and rows (cuda/segments.cu): a group of
 * lanes a segment, a block a segment, and, with fewer segments than fill
 * the device, several blocks a segment whose partials the last block to
 * arrive folds in their order.  Which block arrives last depends on timing;
 * the bits must not: every one of REPEATS + 1 runs under the background
 * load, the runs on the other contexts, and the same call queued on a
 * stream (k_seg_checked: the mapping chosen on the device, from offsets the
 * host never read) give the first run's bits.
 */
static void check_segments(void *h, void *first, void *again, void *din, void *dout, size_t max_n)
{
    static const struct { size_t nseg, avg; } shapes[] = {
        { 5000, 20 }, { 300, 3000 }, { 40, 50000 }, { 3, 300000 },
    };
    static const struct { size_t rows, cols; } rshapes[] = { { 600, 3000 }, { 3, 65537 } };
    const size_t ns = sizeof shapes / sizeof shapes[0];
    size_t *hoff = malloc(5001 * sizeof *hoff);
    size_t *doff = res_alloc(RES_DEVICE, 5001 * sizeof *doff);
    wr_context *q = NULL;
    cudaStream_t st = NULL;
    if (hoff == NULL) bail("out of host memory");
    if (wr_context_create(&q, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess || wr_context_set_stream(q, st) != WR_SUCCESS)
        bail("a context on a stream: %s", wr_context_error(q));
    for (int ti = 0; ti < 2; ti++)
        for (size_t k = 0; k < ns + sizeof rshapes / sizeof rshapes[0]; k++) {
            const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
            const size_t es = wr_type_size(t);
            const int rows = k >= ns;
            size_t nseg, n;
            uint64_t s = 500 + 10 * k + (uint64_t)ti;
            char what[96];
            if (rows) {
                nseg = rshapes[k - ns].rows;
                n = nseg * rshapes[k - ns].cols;
                snprintf(what, sizeof what, "wr_reduce_rows %s SUM %zu x %zu", type_name[t], nseg, rshapes[k - ns].cols);
            } else {
                nseg = shapes[k].nseg;
                hoff[0] = 0;
                for (size_t i = 0; i < nseg; i++) hoff[i + 1] = hoff[i] + rng_next(&s) % (2 * shapes[k].avg + 1);
                n = hoff[nseg];
                snprintf(what, sizeof what, "wr_reduce_segments %s SUM, %zu segments of ~%zu", type_name[t], nseg,
                         shapes[k].avg);
            }
            if (n > max_n) continue;
            fill(h, t, WR_SUM, n, s);
            res_put(RES_DEVICE, din, h, n * es);
            if (!rows) res_put(RES_DEVICE, doff, hoff, (nseg + 1) * sizeof *hoff);
            int good = 1, run;
            const char *who = "a repeated run";
            for (run = 0; run < (int)NFEW + REPEATS + 2 && good; run++) {
                /* runs 0 .. REPEATS on gpu, then the other contexts, then queued */
                const int queued = run == (int)NFEW + REPEATS + 1;
                wr_context *c = run <= REPEATS ? gpu : queued ? q : few[run - REPEATS - 1];
                wr_status r;
                if (run > REPEATS) who = queued ? "the call queued on a stream" : few_blocks[run - REPEATS - 1].name;
                if (queued) {
                    if (cudaMemsetAsync(dout, 0x5a, nseg * es, st) != cudaSuccess) bail("cudaMemsetAsync failed");
                } else {
                    res_poison(RES_DEVICE, dout, nseg * es, 0x5a);
                }
                r = rows ? wr_reduce_rows(c, din, dout, nseg, n / nseg, t, WR_SUM)
                         : wr_reduce_segments(c, din, dout, nseg, doff, t, WR_SUM);
                if (queued && r == WR_SUCCESS) r = wr_context_synchronize(c);
                if (r != WR_SUCCESS) {
                    diag("%s on %s: %s", what, who, wr_context_error(c));
                    good = 0;
                    break;
                }
                res_get(RES_DEVICE, run ? again : first, dout, nseg * es);
                if (run && memcmp(first, again, nseg * es) != 0) good = 0;
                if (run == 0) diag("digest %s %016" PRIx64, what, digest(first, nseg * es));
            }
            if (!good) {
                size_t i = 0;
                char a[48], b[48];
                while (i + 1 < nseg && !memcmp((char *)first + i * es, (char *)again + i * es, es)) i++;
                diag("%s: %s differs first at [%zu]: %s vs %s", what, who, i, elem_str(t, first, i, a, sizeof a),
                     elem_str(t, again, i, b, sizeof b));
            }
            ok(good, "%s: %d runs under load, the other contexts and a queued call give the same bits", what,
               REPEATS + 1);
        }
    wr_context_destroy(q);
    if (cudaStreamDestroy(st) != cudaSuccess) bail("cudaStreamDestroy failed");
    res_free(RES_DEVICE, doff);
    free(hoff);
}

int main(void)
{
    static const size_t sizes[] = { ((size_t)1 << 16) + 5, ((size_t)1 << 21) + 3, ((size_t)1 << 24) + 4097 };
    static const wr_type types[] = { WR_FLOAT, WR_DOUBLE };
    static const wr_op ops[] = { WR_SUM, WR_PROD, WR_MAX };
    pthread_t th;

    gpu_require();
    const size_t max_n = test_max_n(sizes[2]);
    plan_lazy();
    if (wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    diag("cuda context: %s", wr_context_describe(gpu));
    for (size_t k = 0; k < NFEW; k++) {
        setenv(few_blocks[k].var, few_blocks[k].val, 1);
        if (wr_context_create(&few[k], WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
        unsetenv(few_blocks[k].var);
    }
    diag("with %s: %s", few_blocks[NFEW - 1].name, wr_context_describe(few[NFEW - 1]));

    const size_t cap = sizes[2] * 8;
    void *h = malloc(cap), *first = malloc(cap), *again = malloc(cap);
    void *din = res_alloc(RES_DEVICE, cap), *dout = res_alloc(RES_DEVICE, cap);
    if (!h || !first || !again) bail("out of host memory");
    bg_n = (size_t)1 << 22;
    bg_in = res_alloc(RES_DEVICE, bg_n * 4);
    bg_out = res_alloc(RES_DEVICE, 8);
    res_poison(RES_DEVICE, bg_in, bg_n * 4, 0);
    if (pthread_create(&th, NULL, background, NULL) != 0) bail("pthread_create failed");

    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        if (n > max_n) continue;
        for (size_t ti = 0; ti < 2; ti++)
            for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
                for (int ex = 0; ex < 2; ex++) {
                    const wr_type t = types[ti];
                    const wr_op op = ops[oi];
                    const size_t bytes = n * wr_type_size(t);
                    wr_status (*scan)(wr_context *, const void *, void *, size_t, wr_type, wr_op) =
                        ex ? wr_exscan : wr_scan;
                    char what[96];
                    int good = 1, run;
                    snprintf(what, sizeof what, "%s %s %s n=%zu", ex ? "wr_exscan" : "wr_scan", type_name[t],
                             op_name[op], n);
                    fill(h, t, op, n, 1000 * si + 10 * ti + oi);
                    res_put(RES_DEVICE, din, h, bytes);
                    for (run = 0; run <= REPEATS && good; run++) {
                        res_poison(RES_DEVICE, dout, bytes, 0x5a);
                        if (scan(gpu, din, dout, n, t, op) != WR_SUCCESS) {
                            diag("%s: %s", what, wr_context_error(gpu));
                            good = 0;
                            break;
                        }
                        res_get(RES_DEVICE, run ? again : first, dout, bytes);
                        if (run && memcmp(first, again, bytes) != 0) good = 0;
                        if (run == 0) diag("digest %s %016" PRIx64, what, digest(first, bytes));
                    }
                    const char *who = "a repeated run";
                    for (size_t k = 0; k < NFEW && good; k++) {    /* the other contexts */
                        who = few_blocks[k].name;
                        res_poison(RES_DEVICE, dout, bytes, 0x5a);
                        if (scan(few[k], din, dout, n, t, op) != WR_SUCCESS) {
                            diag("%s on %s: %s", what, who, wr_context_error(few[k]));
                            good = 0;
                        } else {
                            res_get(RES_DEVICE, again, dout, bytes);
                            if (memcmp(first, again, bytes) != 0) good = 0;
                        }
                    }
                    if (good) {                           /* in place: the same bits again */
                        who = "the in-place run";
                        if (scan(gpu, din, din, n, t, op) != WR_SUCCESS) {
                            diag("%s in place: %s", what, wr_context_error(gpu));
                            good = 0;
                        } else {
                            res_get(RES_DEVICE, again, din, bytes);
                            if (memcmp(first, again, bytes) != 0) good = 0;
                        }
                    }
                    if (!good) {
                        size_t i = 0, es = wr_type_size(t);
                        char a[48], b[48];
                        while (i + 1 < n && !memcmp((char *)first + i * es, (char *)again + i * es, es)) i++;
                        diag("%s: %s differs first at [%zu]: %s vs %s", what, who, i,
                             elem_str(t, first, i, a, sizeof a), elem_str(t, again, i, b, sizeof b));
                    }
                    ok(good, "%s: %d runs, runs on 1 and 3 resident blocks, the block-per-tile kernel and the "
                       "in-place run give the same bits", what, REPEATS + 1);
                }
    }
    check_segments(h, first, again, din, dout, max_n);
    stop_bg = 1;
    pthread_join(th, NULL);
    res_free(RES_DEVICE, din);
    res_free(RES_DEVICE, dout);
    res_free(RES_DEVICE, bg_in);
    res_free(RES_DEVICE, bg_out);
    free(h);
    free(first);
    free(again);
    for (size_t k = 0; k < NFEW; k++) wr_context_destroy(few[k]);
    wr_context_destroy(gpu);
    return 0;
}

/*
 * test_cuda_delivery.c -- where a reduce's or an argmin/argmax's result goes,
 * for every pair of residencies of input and outputs.
 *
 * The plugin delivers a result bound for host memory (pageable or pinned)
 * through a mapped pinned area of the lane and a memcpy after the stream
 * synchronisation, and one bound for device or managed memory by the kernel
 * (reduce) or a device copy (argmin/argmax); staged host inputs chain their
 * chunks through a device slot before the last chunk delivers.  Here every
 * input residency x output residency (argmin/argmax: index and value each
 * in any residency, value also NULL), at n = 0 (reduce), 1, 1024 and a size
 * that spans several staging chunks, must give the cpu backend's result
 * (integer-valued data: exact), and repeated calls must not see an earlier
 * call's result.  Then rows, segments and scans on device-readable memory,
 * whose calls end on a word their last kernel stores.  All of it twice:
 * with calls that wait by spinning on that word (the default) and with
 * WARPRED_CUDA_WAIT=sync (cudaStreamSynchronize).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "gpu_common.h"
#include "tap.h"

#define NMAX 70001          /* with 64 KiB staging buffers: 5 chunks of int32, 9 of double */

static const size_t sizes[] = { 0, 1, 1024, NMAX };
static const wr_type types[2] = { WR_INT32, WR_DOUBLE };
static const wr_op ops[2] = { WR_SUM, WR_MAX };
static wr_context *cpu, *gpu;
static void *in[RES_COUNT], *out[RES_COUNT], *idx[RES_COUNT], *val[RES_COUNT], *h;

static void fill(void *h, wr_type t, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        int v = (int)(rng_next(&seed) % 2001) - 1000;
        if (t == WR_INT32) ((int32_t *)h)[i] = v;
        else ((double *)h)[i] = v;
    }
}

/* Rows and segments on device memory, whose last kernel's blocks finish
 * independently (the done word is stored by the last block to finish):
 * each shape of the kernels (groups of lanes on 16-byte rows, on other
 * rows, a block per row, several blocks per row), 20 calls in a row that
 * alternate two inputs, each compared with the cpu backend. */
static void check_rows(const char *how)
{
    static const size_t shapes[][2] = { { 4096, 32 }, { 5000, 3 }, { 48, 20000 }, { 2, 300000 } };
    const size_t cap = 1000000;              /* elements; every shape + 7 fits */
    int32_t *hin = malloc(cap * 4), *want = malloc(5000 * 4), *got = malloc(5000 * 4);
    size_t *hoff = malloc(5001 * sizeof(size_t));
    void *din = res_alloc(RES_DEVICE, cap * 4), *dout = res_alloc(RES_DEVICE, 5000 * 4);
    void *doff = res_alloc(RES_DEVICE, 5001 * sizeof(size_t));
    uint64_t seed = 99;
    int good = 1;
    if (!hin || !want || !got || !hoff) bail("out of memory");
    for (size_t i = 0; i < cap; i++) hin[i] = (int32_t)(rng_next(&seed) % 2001) - 1000;
    res_put(RES_DEVICE, din, hin, cap * 4);
    for (int c = 0; c < 20 && good; c++) {
        const size_t rows = shapes[c % 4][0], cols = shapes[c % 4][1];
        const size_t at = c & 1 ? 7 : 0;          /* odd calls: rows not on 16-byte boundaries */
        const int32_t *src = (const int32_t *)din + at, *hsrc = hin + at;
        if (rows * cols + at > cap) bail("shape %zu x %zu does not fit", rows, cols);
        res_poison(RES_DEVICE, dout, rows * 4, 0x5a);
        if (wr_reduce_rows(cpu, hsrc, want, rows, cols, WR_INT32, WR_SUM) != WR_SUCCESS ||
            wr_reduce_rows(gpu, src, dout, rows, cols, WR_INT32, WR_SUM) != WR_SUCCESS) {
            diag("rows %zu x %zu: %s / %s", rows, cols, wr_context_error(cpu), wr_context_error(gpu));
            good = 0;
        } else {
            res_get(RES_DEVICE, got, dout, rows * 4);
            if (memcmp(want, got, rows * 4) != 0) {
                diag("rows %zu x %zu, call %d: wrong sums", rows, cols, c);
                good = 0;
            }
        }
        /* the same elements as segments of varying lengths (offsets on the device) */
        const size_t nseg = rows < 5000 ? rows : 5000;
        hoff[0] = 0;
        for (size_t q = 1; q <= nseg; q++) hoff[q] = rows * cols * q / nseg - (q < nseg && q % 3 == 0 ? 1 : 0);
        res_put(RES_DEVICE, doff, hoff, (nseg + 1) * sizeof(size_t));
        res_poison(RES_DEVICE, dout, nseg * 4, 0x5a);
        if (wr_reduce_segments(cpu, hsrc, want, nseg, hoff, WR_INT32, WR_SUM) != WR_SUCCESS ||
            wr_reduce_segments(gpu, src, dout, nseg, (const size_t *)doff, WR_INT32, WR_SUM) != WR_SUCCESS) {
            diag("segments %zu: %s / %s", nseg, wr_context_error(cpu), wr_context_error(gpu));
            good = 0;
        } else {
            res_get(RES_DEVICE, got, dout, nseg * 4);
            if (memcmp(want, got, nseg * 4) != 0) {
                diag("%zu segments of %zu elements, call %d: wrong sums", nseg, rows * cols, c);
                good = 0;
            }
        }
    }
    ok(good, "%s: wr_reduce_rows and wr_reduce_segments on device memory, 20 calls of 4 shapes: the cpu's sums",
       how);
    res_free(RES_DEVICE, din);
    res_free(RES_DEVICE, dout);
    res_free(RES_DEVICE, doff);
    free(hin);
    free(want);
    free(got);
    free(hoff);
}

/* Scans on device-readable memory (device and managed), whose kernel's
 * blocks also finish independently, and whose outputs a managed-memory
 * caller reads on the host as soon as the call returns: inclusive and
 * exclusive, int32 and double (integer values: exact), 20 calls of 5 sizes
 * (1, 1000, 3 * 8192 + 5, 40000 and 2^18 + 1 elements: one tile or several,
 * the last one partial), every input x output residency, in place every third call,
 * odd calls one element off the 16-byte boundary, each against the cpu
 * backend. */
static void check_scans(const char *how)
{
    static const size_t sizes_s[] = { 1, 1000, 3 * 8192 + 5, (1u << 18) + 1, 40000 };
    const size_t cap = (1u << 18) + 8;
    void *hin = malloc(cap * 8), *want = malloc(cap * 8), *got = malloc(cap * 8);
    void *din[2] = { res_alloc(RES_DEVICE, cap * 8), res_alloc(RES_MANAGED, cap * 8) };
    void *dout[2] = { res_alloc(RES_DEVICE, cap * 8), res_alloc(RES_MANAGED, cap * 8) };
    const enum res rk[2] = { RES_DEVICE, RES_MANAGED };
    int good = 1;
    if (!hin || !want || !got) bail("out of memory");
    for (int c = 0; c < 20 && good; c++) {
        const wr_type t = c & 2 ? WR_DOUBLE : WR_INT32;
        const size_t n = sizes_s[c % 5], es = wr_type_size(t), at = c & 1;
        const int ri = c % 2, ro = (c / 2) % 2, inplace = c % 3 == 0, ex = (c / 4) & 1;
        if (n + at > cap) bail("scan of %zu does not fit", n);
        fill(hin, t, n, 500 + (uint64_t)c);
        char *src = (char *)din[ri] + at * es, *dst = inplace ? src : (char *)dout[ro] + at * es;
        const enum res rdst = inplace ? rk[ri] : rk[ro];
        res_put(rk[ri], src, hin, n * es);
        if (!inplace) res_poison(rdst, dst, n * es, 0x5a);
        if ((ex ? wr_exscan : wr_scan)(cpu, hin, want, n, t, WR_SUM) != WR_SUCCESS ||
            (ex ? wr_exscan : wr_scan)(gpu, src, dst, n, t, WR_SUM) != WR_SUCCESS) {
            diag("scan of %zu: %s / %s", n, wr_context_error(cpu), wr_context_error(gpu));
            good = 0;
            continue;
        }
        res_get(rdst, got, dst, n * es);
        if (memcmp(want, got, n * es) != 0) {
            diag("%s %s of %zu, %s in, %s out%s, call %d: wrong outputs", ex ? "exscan" : "scan", type_name[t],
                 n, res_name[rk[ri]], res_name[rdst], inplace ? " (in place)" : "", c);
            good = 0;
        }
    }
    ok(good, "%s: wr_scan and wr_exscan on device and managed memory, 20 calls: the cpu's outputs", how);
    for (int k = 0; k < 2; k++) {
        res_free(rk[k], din[k]);
        res_free(rk[k], dout[k]);
    }
    free(hin);
    free(want);
    free(got);
}

/* Every residency pair, on a cuda context made with WARPRED_CUDA_WAIT=wait
 * (NULL: unset). */
static void check_all(const char *wait)
{
    const char *how = wait ? "WARPRED_CUDA_WAIT=sync" : "default wait";
    int r, o, v, k, ti;

    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (wait) setenv("WARPRED_CUDA_WAIT", wait, 1);
    if (wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    unsetenv("WARPRED_CUDA_WAIT");

    /* reduce: input residency x output residency */
    for (r = 0; r < RES_COUNT; r++)
        for (o = 0; o < RES_COUNT; o++) {
            int good = 1;
            for (ti = 0; ti < 2; ti++)
                for (k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
                    const size_t n = sizes[k], es = wr_type_size(types[ti]);
                    unsigned char want[8], got[8];
                    fill(h, types[ti], n, 100 * (uint64_t)k + (uint64_t)ti);
                    res_put((enum res)r, in[r], h, n * es);
                    res_poison((enum res)o, out[o], 8, 0x5a);
                    if (wr_reduce(cpu, h, want, n, types[ti], ops[ti]) != WR_SUCCESS ||
                        wr_reduce(gpu, in[r], out[o], n, types[ti], ops[ti]) != WR_SUCCESS) {
                        diag("%s in, %s out, n=%zu: %s / %s", res_name[r], res_name[o], n,
                             wr_context_error(cpu), wr_context_error(gpu));
                        good = 0;
                        continue;
                    }
                    res_get((enum res)o, got, out[o], es);
                    if (!same_elem(types[ti], want, got)) {
                        diag("%s in, %s out, %s n=%zu: wrong result", res_name[r], res_name[o],
                             type_name[types[ti]], n);
                        good = 0;
                    }
                }
            ok(good, "%s: wr_reduce, %s input, %s output: the cpu backend's results", how, res_name[r], res_name[o]);
        }

    /* argmin/argmax: input residency x index residency x value residency (or NULL) */
    for (r = 0; r < RES_COUNT; r++) {
        int good = 1;
        for (o = 0; o < RES_COUNT; o++)
            for (v = 0; v <= RES_COUNT; v++)
                for (ti = 0; ti < 2; ti++)
                    for (k = 1; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
                        const size_t n = sizes[k], es = wr_type_size(types[ti]);
                        const int is_max = (o + v + k) & 1;
                        void *value = v < RES_COUNT ? val[v] : NULL;
                        size_t wi = 0, gi = 0;
                        unsigned char wv[8], gv[8];
                        wr_status sc, sg;
                        fill(h, types[ti], n, 7000 + 10 * (uint64_t)k + (uint64_t)ti);
                        res_put((enum res)r, in[r], h, n * es);
                        res_poison((enum res)o, idx[o], sizeof(size_t), 0x5a);
                        if (value) res_poison((enum res)v, value, 8, 0x5a);
                        sc = (is_max ? wr_argmax : wr_argmin)(cpu, h, n, types[ti], &wi, wv);
                        sg = (is_max ? wr_argmax : wr_argmin)(gpu, in[r], n, types[ti], (size_t *)idx[o], value);
                        if (sc != WR_SUCCESS || sg != WR_SUCCESS) {
                            diag("%s in: %s / %s", res_name[r], wr_context_error(cpu), wr_context_error(gpu));
                            good = 0;
                            continue;
                        }
                        res_get((enum res)o, &gi, idx[o], sizeof gi);
                        if (value) res_get((enum res)v, gv, value, es);
                        if (gi != wi || (value && !same_elem(types[ti], wv, gv))) {
                            diag("%s in, index %s, value %s, %s n=%zu: index %zu, wanted %zu", res_name[r],
                                 res_name[o], value ? res_name[v] : "NULL", type_name[types[ti]], n, gi, wi);
                            good = 0;
                        }
                    }
        ok(good, "%s: wr_argmin/wr_argmax, %s input, index and value in every residency: the cpu's results",
           how, res_name[r]);
    }
    check_rows(how);
    check_scans(how);
    wr_context_destroy(gpu);
}

int main(void)
{
    int r;

    gpu_require();
    plan(2 * (RES_COUNT * RES_COUNT + RES_COUNT + 2));
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) bail("cpu context: %s", wr_context_error(NULL));
    h = malloc(NMAX * 8);
    if (h == NULL) bail("out of memory");
    for (r = 0; r < RES_COUNT; r++) {
        in[r] = res_alloc((enum res)r, NMAX * 8);
        out[r] = res_alloc((enum res)r, 8);
        idx[r] = res_alloc((enum res)r, sizeof(size_t));
        val[r] = res_alloc((enum res)r, 8);
    }
    check_all(NULL);
    check_all("sync");

    for (r = 0; r < RES_COUNT; r++) {
        res_free((enum res)r, in[r]);
        res_free((enum res)r, out[r]);
        res_free((enum res)r, idx[r]);
        res_free((enum res)r, val[r]);
    }
    free(h);
    wr_context_destroy(cpu);
    return tap_failures() ? 1 : 0;
}

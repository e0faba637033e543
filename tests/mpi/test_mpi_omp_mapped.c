/*
 * test_mpi_omp_mapped.c -- the wr_mpi_* calls on the buffers of an OpenMP
 * offload program: host arrays mapped with `target enter data`, and
 * omp_target_alloc memory, on an omptarget context and on an AUTO context
 * with the omptarget plugin.
 *
 * "The buffer" is what a single-process call on the same context works on:
 * an omptarget context reads and writes a mapped array's device copy (as its
 * wr_scan does), an AUTO context its host copy (lib/ takes mapped memory for
 * host memory there), and omp_target_alloc memory is device memory to both.
 * An MPI call must read and write that memory and nothing else:
 *  - scans and exclusive scans, in place and not: integers and exact float
 *    data against a serial scan of the global array; every case bit for bit
 *    against the fold path (wri_mpi_scan with WRM_PATH_FOLD, which reaches
 *    the buffers only through wr_* calls on the context);
 *  - allreduce and argmax of a mapped array whose two copies differ (on an
 *    offload device): the copy the context works on counts;
 *  - on an offload device, the other copy of a mapped output (the host copy
 *    under an omptarget context, the device copy under AUTO) is left alone.
 * On the host fallback (no offload device: CI) a mapped array's device copy
 * is the host array itself and omp_target_alloc gives host memory, so what
 * tells a scan that dereferences its buffers on the host from one that does
 * not is the bits: on more than one rank, float SUM over random data rounds
 * differently on the host path and the fold path.
 *
 * Runs under the tests/mpi/ wrappers -omp-np1 and -omp-np3 (WARPRED_PLUGIN_DIR
 * at the plugin); makes its two contexts itself, whatever WARPRED_BACKEND and
 * WR_TEST_MPI_DEVICE say.
 */
#include <config.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_mpi_internal.h"
#include "wr_ops.h"

enum kind { MAPPED, DEVADDR };
static const char *const kind_name[] = { "mapped array", "omp_target_alloc memory" };

enum { CTX_OMP, CTX_AUTO };
static const char *const ctx_name[] = { "omptarget context", "AUTO context" };

static int dev;         /* the OpenMP device the omptarget backend uses */
static int host_dev;    /* omp_get_initial_device() */
static int offload;     /* 1: target regions run on a device, not on the host */

/* A buffer as the program holds it: the address handed to libwarpred, and
 * for a mapped array its host copy. */
struct buf {
    enum kind kind;
    char *addr;         /* MAPPED: the host array (mapped); DEVADDR: device memory */
    size_t bytes;
};

static struct buf buf_new(enum kind kind, size_t bytes)
{
    struct buf b;
    size_t n = bytes ? bytes : 8;       /* never a zero-length mapping */
    b.kind = kind;
    b.bytes = bytes;
    if (kind == MAPPED) {
        b.addr = malloc(n);
        if (b.addr == NULL) bail("out of memory");
        {
            char *p = b.addr;
#pragma omp target enter data map(alloc: p[0:n]) device(dev)
            (void)p;                    /* GCC 12 calls it unused */
        }
        if (!omp_target_is_present(b.addr, dev)) bail("target enter data did not map %zu bytes", n);
    } else {
        b.addr = omp_target_alloc(n, dev);
        if (b.addr == NULL) bail("omp_target_alloc(%zu) failed", n);
    }
    return b;
}

static void buf_free(struct buf *b)
{
    if (b->kind == MAPPED) {
        char *p = b->addr;
        size_t n = b->bytes ? b->bytes : 8;
#pragma omp target exit data map(delete: p[0:n]) device(dev)
        (void)p;                        /* GCC 12 calls it unused */
        free(b->addr);
    } else {
        omp_target_free(b->addr, dev);
    }
}

/* The device copy of mapped host memory p (what use_device_ptr gives). */
static char *device_copy(char *p)
{
    char *q = p, *r = NULL;
#pragma omp target data use_device_ptr(q) device(dev)
    r = q;
    return r;
}

static void to_device(char *d, const void *src, size_t bytes)
{
    if (bytes && omp_target_memcpy(d, (void *)(uintptr_t)src, bytes, 0, 0, dev, host_dev) != 0)
        bail("omp_target_memcpy to the device failed");
}

static void from_device(void *dst, const char *d, size_t bytes)
{
    if (bytes && omp_target_memcpy(dst, (void *)(uintptr_t)d, bytes, 0, 0, host_dev, dev) != 0)
        bail("omp_target_memcpy from the device failed");
}

/* Both copies (a mapped array) or the device memory hold src. */
static void buf_set(struct buf *b, const void *src)
{
    if (b->kind == MAPPED) {
        memcpy(b->addr, src, b->bytes);
        to_device(device_copy(b->addr), src, b->bytes);
    } else {
        to_device(b->addr, src, b->bytes);
    }
}

/* The memory the context works on: a mapped array's device copy under the
 * omptarget context, its host copy under AUTO; device memory either way. */
static void buf_view(const struct buf *b, int c, void *dst)
{
    if (b->kind == MAPPED && c == CTX_AUTO)
        memcpy(dst, b->addr, b->bytes);
    else
        from_device(dst, b->kind == MAPPED ? device_copy(b->addr) : b->addr, b->bytes);
}

/* The other copy of a mapped array (the one the context must not touch). */
static void buf_other(const struct buf *b, int c, void *dst)
{
    if (c == CTX_OMP)
        memcpy(dst, b->addr, b->bytes);
    else
        from_device(dst, device_copy(b->addr), b->bytes);
}

/* Make the other copy of a mapped array hold src (an offload device only:
 * on the host fallback the two copies are one). */
static void buf_set_other(struct buf *b, int c, const void *src)
{
    if (c == CTX_OMP)
        memcpy(b->addr, src, b->bytes);
    else
        to_device(device_copy(b->addr), src, b->bytes);
}

struct tcase {
    wr_type type;
    wr_op op;
    enum mt_data data;
    int exact;          /* the result is exactly defined: compare with the serial scan */
};

static const struct tcase cases[] = {
    { WR_INT64, WR_SUM, MT_DATA_RANDOM, 1 },
    { WR_INT32, WR_MAX, MT_DATA_RANDOM, 1 },
    { WR_DOUBLE, WR_SUM, MT_DATA_EXACT, 1 },
    { WR_FLOAT, WR_SUM, MT_DATA_RANDOM, 0 },   /* host and fold paths round differently */
    { WR_DOUBLE, WR_SUM, MT_DATA_RANDOM, 0 },
};

static const int layouts[] = { 1, 2, 7 };   /* 1000 each, uneven, large uneven */

static void scans(wr_context *ctx, int c, enum kind kind, int layout)
{
    struct mt_piece piece = mt_layout(layout);
    size_t n = piece.n, count = piece.count, off = piece.off, k;
    int exclusive, inplace;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct tcase *tc = &cases[k];
        size_t w = wr_type_size(tc->type), bytes = count * w, where = 0;
        char *global = malloc(n * w + 1), *ref = malloc(n * w + 1), *sentinel = malloc(bytes + 1);
        char *got = malloc(bytes + 1), *fold = malloc(bytes + 1), *other = malloc(bytes + 1);
        struct buf in = buf_new(kind, bytes), out = buf_new(kind, bytes);

        if (!global || !ref || !sentinel || !got || !fold || !other) bail("out of memory");
        mt_fill(global, n, tc->type, tc->op, tc->data, 7000u * (unsigned)layout + (unsigned)k);
        memset(sentinel, 0xa5, bytes);
        for (exclusive = 0; exclusive <= 1; exclusive++) {
            mt_ref_scan(global, ref, n, tc->type, tc->op, exclusive);
            for (inplace = 0; inplace <= 1; inplace++) {
                struct buf *dst = inplace ? &in : &out;
                /* what the untouched copy of dst holds: the input in place */
                const char *keep = inplace ? global + off * w : sentinel;
                wr_status st, st2;
                int good, kept = 1;

                buf_set(&in, global + off * w);
                if (!inplace) buf_set(&out, sentinel);
                st = (exclusive ? wr_mpi_exscan : wr_mpi_scan)(ctx, in.addr, dst->addr, count, tc->type, tc->op,
                                                              MPI_COMM_WORLD);
                buf_view(dst, c, got);
                if (kind == MAPPED && offload) {
                    buf_other(dst, c, other);
                    kept = mt_same(other, keep, count, w, NULL);
                }
                buf_set(&in, global + off * w);
                if (!inplace) buf_set(&out, sentinel);
                st2 = wri_mpi_scan(ctx, in.addr, dst->addr, count, tc->type, tc->op, MPI_COMM_WORLD, exclusive,
                                   WRM_PATH_FOLD);
                buf_view(dst, c, fold);

                good = st == WR_SUCCESS && st2 == WR_SUCCESS;
                if (good && !mt_same(got, fold, count, w, &where)) {
                    good = 0;
                    mt_note("element %zu of %zu: %Lg, the fold path %Lg", where, count,
                            mt_get_ld(got, where, tc->type), mt_get_ld(fold, where, tc->type));
                }
                if (good && tc->exact && !mt_same(got, ref + off * w, count, w, &where)) {
                    good = 0;
                    mt_note("element %zu of %zu: %Lg, the serial scan %Lg", where, count,
                            mt_get_ld(got, where, tc->type), mt_get_ld(ref, off + where, tc->type));
                }
                if (!kept) mt_note("the %s copy of the output was written", c == CTX_OMP ? "host" : "device");
                if (st != WR_SUCCESS || st2 != WR_SUCCESS)
                    mt_note("status %d, fold %d: %s", (int)st, (int)st2, wr_context_error(ctx));
                mt_ok(good && kept, "%s %s %s %s, %s data, %s, %s (%zu elements), %s: %s", ctx_name[c],
                      exclusive ? "exscan" : "scan", mt_type_name(tc->type), mt_op_name(tc->op),
                      mt_data_name(tc->data), kind_name[kind], mt_layout_name(layout), n,
                      inplace ? "in place" : "out of place",
                      tc->exact ? "the serial scan's and the fold path's bits" : "the fold path's bits");
            }
        }
        buf_free(&in);
        buf_free(&out);
        free(global);
        free(ref);
        free(sentinel);
        free(got);
        free(fold);
        free(other);
    }
}

/* allreduce (int64 SUM) and argmax (double) of a mapped array or device
 * memory; on an offload device the other copy of a mapped input holds
 * different values, which must not count. */
static void reductions(wr_context *ctx, int c, enum kind kind, int layout)
{
    struct mt_piece piece = mt_layout(layout);
    size_t n = piece.n, count = piece.count, off = piece.off, i, at = 0;
    int64_t *k = malloc(n * 8 + 8), *junk = malloc(count * 8 + 8), want = 0, got = 0;
    double *x = malloc(n * 8 + 8);
    uint64_t index = 0;
    double value = 0, vgot = 0;
    struct buf kin = buf_new(kind, count * 8), xin = buf_new(kind, count * 8);
    struct buf kout = buf_new(kind, 8), vout = buf_new(kind, 8);
    wr_status st;
    int has;

    if (!k || !junk || !x) bail("out of memory");
    mt_fill(k, n, WR_INT64, WR_SUM, MT_DATA_RANDOM, 91u + (unsigned)layout);
    mt_fill(x, n, WR_DOUBLE, WR_MAX, MT_DATA_RANDOM, 93u + (unsigned)layout);
    for (i = 0; i < count; i++) junk[i] = INT64_C(0x7ff0000000000000);   /* +inf as a double, huge as int64 */
    mt_ref_reduce(k, &want, n, WR_INT64, WR_SUM);
    has = mt_ref_argext(x, n, WR_DOUBLE, 1, &at);

    buf_set(&kin, k + off);
    buf_set(&xin, x + off);
    if (kind == MAPPED && offload) {
        buf_set_other(&kin, c, junk);
        buf_set_other(&xin, c, junk);
    }
    st = wr_mpi_allreduce(ctx, kin.addr, kout.addr, count, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    buf_view(&kout, c, &got);
    mt_ok(st == WR_SUCCESS && got == want, "%s allreduce int64 SUM, %s, %s: %lld (want %lld)%s", ctx_name[c],
          kind_name[kind], mt_layout_name(layout), (long long)got, (long long)want,
          kind == MAPPED && offload ? ", the other copy holding other values" : "");
    st = wr_mpi_argmax(ctx, xin.addr, count, WR_DOUBLE, &index, vout.addr, MPI_COMM_WORLD);
    buf_view(&vout, c, &vgot);
    value = has ? x[at] : 0;
    mt_ok(st == WR_SUCCESS && has && index == at && mt_same(&vgot, &value, 1, 8, NULL),
          "%s argmax double, %s, %s: index %llu (want %zu)", ctx_name[c], kind_name[kind],
          mt_layout_name(layout), (unsigned long long)index, at);
    buf_free(&kin);
    buf_free(&xin);
    buf_free(&kout);
    buf_free(&vout);
    free(k);
    free(junk);
    free(x);
}

int main(int argc, char **argv)
{
    wr_context *ctx[2] = { NULL, NULL };
    char why[512] = "";
    int bad, any_bad, c, kind, l, initial = 1;

    /* the buffers are OpenMP's own: no CUDA device-buffer mode, which would
     * ask mt_init for a context with a cuda backend */
    unsetenv("WR_TEST_MPI_DEVICE");
    mt_init(&argc, &argv);
#ifdef WR_TEST_OMPT_PLUGIN_DIR
    if (getenv("WARPRED_PLUGIN_DIR") == NULL) setenv("WARPRED_PLUGIN_DIR", WR_TEST_OMPT_PLUGIN_DIR, 1);
#endif
    unsetenv("WARPRED_BACKEND");    /* the two contexts are the point */
    if (wr_context_create(&ctx[CTX_OMP], WR_BACKEND_OPENMP_TARGET) != WR_SUCCESS ||
        wr_context_create(&ctx[CTX_AUTO], WR_BACKEND_AUTO) != WR_SUCCESS)
        snprintf(why, sizeof why, "no omptarget context: %s", wr_context_error(NULL));
    else if (!wr_context_has_backend(ctx[CTX_AUTO], WR_BACKEND_OPENMP_TARGET) &&
             !wr_context_has_backend(ctx[CTX_AUTO], WR_BACKEND_CUDA))
        snprintf(why, sizeof why, "the AUTO context has no device backend (%s)", wr_context_describe(ctx[CTX_AUTO]));
    bad = why[0] != '\0';
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) {
        if (bad) mt_note("%s", why);
        wr_context_destroy(ctx[CTX_OMP]);
        wr_context_destroy(ctx[CTX_AUTO]);
        mt_skip_all(why[0] ? why : "another rank has no omptarget context");
    }
    dev = omp_get_default_device();
    host_dev = omp_get_initial_device();
#pragma omp target map(from: initial) device(dev)
    initial = omp_is_initial_device();
    offload = !initial;
    if (mt_rank == 0)
        diag("%s; omptarget: %s; AUTO: %s", offload ? "offload device: the two copies of a mapped array differ"
                                                    : "host fallback: a mapped array is its own device copy",
             wr_context_describe(ctx[CTX_OMP]), wr_context_describe(ctx[CTX_AUTO]));

    for (c = CTX_OMP; c <= CTX_AUTO; c++)
        for (kind = MAPPED; kind <= DEVADDR; kind++)
            for (l = 0; l < (int)(sizeof layouts / sizeof layouts[0]); l++) {
                scans(ctx[c], c, (enum kind)kind, layouts[l]);
                reductions(ctx[c], c, (enum kind)kind, layouts[l]);
            }
    wr_context_destroy(ctx[CTX_OMP]);
    wr_context_destroy(ctx[CTX_AUTO]);
    return mt_finish();
}

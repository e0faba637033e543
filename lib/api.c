/*
 * api.c -- the public operations: validate every argument once, choose the
 * backend, call it through its table, and keep the reason for any failure.
 *
 * Nothing here touches an output before all checks have passed, so an
 * argument error leaves the caller's buffers exactly as they were.
 */
#include <config.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "wr_internal.h"
#include "wr_ops.h"
#include "wr_exact.h"

/* One buffer of a call, for the checks and the choice of backend. */
struct buf {
    const char *name;     /* argument name for the error text */
    const void *ptr;
    size_t bytes;         /* bytes the call reads or writes through it */
    size_t align;         /* the alignment its elements need */
    int is_output;
    const char *count;    /* the argument that sizes it ("count"), for the error text */
    wr_mem_kind kind;     /* filled by prepare() when a device runtime can tell */
};

/* The end of the address space a buffer may reach: 2^57 on the 64-bit
 * platforms whose user addresses are below it (x86-64 with 5-level paging
 * has 2^56, aarch64 2^52), else the whole range. */
#if UINTPTR_MAX > 0xffffffffu && (defined(__x86_64__) || defined(__aarch64__) || \
    defined(__powerpc64__) || (defined(__riscv) && __riscv_xlen == 64))
#  define ADDR_END ((uintptr_t)1 << 57)
#else
#  define ADDR_END UINTPTR_MAX
#endif

static const char *type_name(wr_type t)
{
    static const char *const names[] = { "int32", "int64", "uint32", "uint64", "float", "double" };
    return ((int)t >= 0 && (int)t < 6) ? names[t] : "?";
}

static const char *op_name(wr_op op)
{
    static const char *const names[] = { "SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR" };
    return ((int)op >= 0 && (int)op < 7) ? names[op] : "?";
}

/* The type check every operation shares. */
static wr_status check_type(const wr_context *ctx, const char *fn, wr_type type)
{
    if (wr_type_size(type) == 0) {
        wri_set_error(ctx, "%s: type %d is not a wr_type", fn, (int)type);
        return WR_ERR_INVALID_ARG;
    }
    return WR_SUCCESS;
}

/* Type and op checks of the operations that combine elements.  (No op value
 * may stand for "no op": a caller's (wr_op)-1 must be refused, not skipped.) */
static wr_status check_type_op(const wr_context *ctx, const char *fn, wr_type type, wr_op op)
{
    wr_status st = check_type(ctx, fn, type);
    if (st != WR_SUCCESS) return st;
    if ((int)op < (int)WR_SUM || (int)op > (int)WR_BXOR) {
        wri_set_error(ctx, "%s: op %d is not a wr_op", fn, (int)op);
        return WR_ERR_INVALID_ARG;
    }
    if (!wr_op_valid(type, op)) {
        wri_set_error(ctx, "%s: op %s is not defined for type %s", fn, op_name(op), type_name(type));
        return WR_ERR_UNSUPPORTED;
    }
    return WR_SUCCESS;
}

/* bytes = n * size without overflow, and the range [p, p+bytes) must fit. */
static wr_status check_extent(const wr_context *ctx, const char *fn, const char *what,
                              size_t n, size_t size, size_t *bytes)
{
    if (size != 0 && n > SIZE_MAX / size) {
        wri_set_error(ctx, "%s: %s (%zu elements of %zu bytes) overflows size_t", fn, what, n, size);
        return WR_ERR_INVALID_ARG;
    }
    *bytes = n * size;
    return WR_SUCCESS;
}

static int ranges_overlap(const struct buf *a, const struct buf *b)
{
    uintptr_t a0 = (uintptr_t)a->ptr, b0 = (uintptr_t)b->ptr;
    if (a->bytes == 0 || b->bytes == 0) return 0;
    return a0 < b0 + b->bytes && b0 < a0 + a->bytes;
}

/*
 * AUTO on host memory: a fixed cost model, no timing at run time.
 *
 * The cpu backend streams host RAM at about AUTO_CPU_CORE_MBS per thread
 * (reduce-like reads; scans count read + write), up to what the memory
 * system gives (AUTO_HOST_MBS).  The cuda backend streams host memory over
 * PCIe: pinned buffers by DMA straight from/to the caller's memory, one way
 * at AUTO_PCIE_MBS for reductions, both ways overlapped for scans.  Pageable
 * memory must first be copied by the cpu into pinned staging (measured
 * 6-7 GB/s on the H200 host), so it never pays to send it.  Below
 * AUTO_MIN_BYTES a launch and the synchronisations (~10-20 us) cost more
 * than the cpu spends on the data.
 *
 * The rates below are warpred-bench --host-table figures (an H200 host with
 * 16 threads: cpu reduce 91 GB/s, scan 100 GB/s; cuda on pinned memory:
 * reduce 54 GB/s, scan 84 GB/s; a 2-core machine: cpu reduce 29 GB/s, scan
 * 19 GB/s).  So with 16 threads AUTO keeps both on the cpu; from about 8
 * threads down, pinned scans go to the GPU, and from 3 down, reductions too.
 * Only the CUDA backend reads pinned host memory directly: with the
 * omptarget backend, host memory always runs on the cpu.
 */
#define AUTO_MIN_BYTES ((size_t)1 << 20)   /* less data moved: always the cpu */
#define AUTO_SMALL_OUT ((size_t)4096)      /* an output this small may be pageable */
#define AUTO_CPU_CORE_MBS_READ 14000       /* per cpu thread, reduce-like */
#define AUTO_CPU_CORE_MBS_SCAN 9500        /* per cpu thread, scan (read + write) */
#define AUTO_HOST_MBS 95000                /* host memory ceiling, either class */
#define AUTO_PCIE_MBS_READ 50000           /* pinned host -> device */
#define AUTO_PCIE_MBS_SCAN 80000           /* pinned both ways, overlapped (read + write) */

/* What the operation does to its bytes, for the cost model. */
enum op_class { READS, READS_WRITES };

/* 1 when the cuda backend is expected to beat the cpu on these host buffers
 * (pageable or pinned: no device or managed memory among them). */
static int auto_host_to_cuda(const wr_context *ctx, const struct buf *bufs, int nbufs, enum op_class cls)
{
    long cpu, gpu, threads;
    int i, pinned_in = 0;

    for (i = 0; i < nbufs; i++) {
        if (bufs[i].bytes == 0) continue;
        if (bufs[i].kind == WR_MEM_HOST_PINNED) {
            if (!bufs[i].is_output && bufs[i].bytes >= AUTO_MIN_BYTES) pinned_in = 1;
        } else if (bufs[i].is_output ? bufs[i].bytes > AUTO_SMALL_OUT : bufs[i].bytes >= AUTO_MIN_BYTES) {
            return 0;       /* a large pageable buffer: the cpu's staging copy alone is slower */
        }
    }
    if (!pinned_in) return 0;            /* also: less than AUTO_MIN_BYTES to read */
    threads = ctx->cpu.ops->threads(ctx->cpu.state);
    if (threads > 4096) threads = 4096;  /* past any ceiling; keeps the product small */
    cpu = threads * (cls == READS ? AUTO_CPU_CORE_MBS_READ : AUTO_CPU_CORE_MBS_SCAN);
    if (cpu > AUTO_HOST_MBS) cpu = AUTO_HOST_MBS;
    gpu = cls == READS ? AUTO_PCIE_MBS_READ : AUTO_PCIE_MBS_SCAN;
    return gpu > cpu;
}

/* Where the buffer at p lives, as the context's locator sees it (AUTO takes
 * mapped host memory for what it is to the host: host memory). */
static wr_mem_kind locate(const wr_context *ctx, const void *p)
{
    wr_mem_kind k;
    if (ctx->loc == NULL) return WR_MEM_HOST;
    k = ctx->loc->ops->locate(ctx->loc->state, p);
    return k == WR_MEM_MAPPED && ctx->mode == WR_BACKEND_AUTO ? WR_MEM_HOST : k;
}

/*
 * The checks every operation shares, then the choice of backend:
 *  - a buffer through which bytes move must not be NULL, must be aligned to
 *    its elements and must end inside the address space (checked before the
 *    overlap, which a huge count would otherwise be mistaken for);
 *  - no two buffers may overlap, except in == out when allow_inplace (scans);
 *  - AUTO runs on the device backend when any buffer is device or managed
 *    memory; on host memory it runs where the cost model above expects it to
 *    be faster: the cpu, unless the large inputs are pinned (and outputs
 *    pinned or tiny) and the cpu has too few threads to beat the PCIe link;
 *  - the cpu backend cannot reach device memory: refused.
 * On success *run is the backend and call holds what was found out.
 */
static wr_status prepare(wr_context *ctx, const char *fn, struct buf *bufs, int nbufs,
                         int allow_inplace, enum op_class cls, struct wri_backend **run,
                         struct wr_call *call)
{
    struct wri_backend *dev = ctx->cuda.ops ? &ctx->cuda : ctx->omp.ops ? &ctx->omp : NULL;
    int any_dev = 0, any_managed = 0, i, j;
    const char *dev_name = NULL;

    for (i = 0; i < nbufs; i++) {
        uintptr_t p = (uintptr_t)bufs[i].ptr;
        if (bufs[i].bytes == 0) continue;
        if (bufs[i].ptr == NULL) {
            wri_set_error(ctx, "%s: %s is NULL", fn, bufs[i].name);
            return WR_ERR_INVALID_ARG;
        }
        if (p % bufs[i].align != 0) {
            wri_set_error(ctx, "%s: %s (%p) is not aligned to its %zu-byte elements", fn, bufs[i].name,
                          bufs[i].ptr, bufs[i].align);
            return WR_ERR_INVALID_ARG;
        }
        if (bufs[i].bytes > ADDR_END || p > ADDR_END - bufs[i].bytes) {
            if (bufs[i].count)
                wri_set_error(ctx, "%s: %s (%zu bytes from %s) runs past the end of the address space",
                              fn, bufs[i].count, bufs[i].bytes, bufs[i].name);
            else
                wri_set_error(ctx, "%s: %s runs past the end of the address space", fn, bufs[i].name);
            return WR_ERR_INVALID_ARG;
        }
    }
    for (i = 0; i < nbufs; i++)
        for (j = i + 1; j < nbufs; j++) {
            if (!bufs[i].is_output && !bufs[j].is_output) continue;
            if (!ranges_overlap(&bufs[i], &bufs[j])) continue;
            if (allow_inplace && bufs[i].ptr == bufs[j].ptr && bufs[i].bytes == bufs[j].bytes) continue;
            wri_set_error(ctx, "%s: %s and %s overlap%s", fn, bufs[i].name, bufs[j].name,
                          allow_inplace ? " (only out == in is allowed)" : "");
            return WR_ERR_INVALID_ARG;
        }

    for (i = 0; i < nbufs; i++) {
        wr_mem_kind k;
        if (bufs[i].bytes == 0) continue;
        /* (a kind the caller found out already is kept) */
        k = bufs[i].kind != WR_MEM_HOST ? bufs[i].kind : (bufs[i].kind = locate(ctx, bufs[i].ptr));
        if (k == WR_MEM_DEVICE) { any_dev = 1; if (!dev_name) dev_name = bufs[i].name; }
        if (k == WR_MEM_MANAGED) any_managed = 1;
    }

    switch (ctx->mode) {
    case WR_BACKEND_CUDA:
        *run = &ctx->cuda;
        break;
    case WR_BACKEND_OPENMP_TARGET:
        *run = &ctx->omp;
        break;
    case WR_BACKEND_AUTO:
        if (dev == NULL)
            *run = &ctx->cpu;
        else if (any_dev || any_managed)
            *run = dev;
        else
            *run = dev == &ctx->cuda && auto_host_to_cuda(ctx, bufs, nbufs, cls) ? dev : &ctx->cpu;
        break;
    default:
        *run = &ctx->cpu;
        break;
    }
    if (*run == &ctx->cpu && any_dev) {
        wri_set_error(ctx, "%s: %s is device memory, which the cpu backend cannot reach", fn, dev_name);
        return WR_ERR_INVALID_ARG;
    }
    memset(call, 0, sizeof *call);
    call->in = nbufs > 0 ? bufs[0].kind : WR_MEM_HOST;
    call->out = nbufs > 1 ? bufs[1].kind : WR_MEM_HOST;
    call->aux = nbufs > 2 ? bufs[2].kind : WR_MEM_HOST;
    call->fmode = wr_context_float_mode(ctx);
    return WR_SUCCESS;
}

/* Record how a backend call ended. */
static wr_status end_call(wr_context *ctx, const char *fn, const struct wri_backend *run, wr_status st,
                          const char *err)
{
    if (st == WR_SUCCESS) {
        int b = run == &ctx->cpu ? WR_BACKEND_CPU : run == &ctx->cuda ? WR_BACKEND_CUDA : WR_BACKEND_OPENMP_TARGET;
        __atomic_store_n(&ctx->last_backend, b, __ATOMIC_RELAXED);
        wri_clear_error(ctx);
    } else {
        wri_set_error(ctx, "%s: %s: %s", fn, run->ops->name, err[0] ? err : wr_status_string(st));
    }
    return st;
}

#define CHECK(expr) do { wr_status st_ = (expr); if (st_ != WR_SUCCESS) return st_; } while (0)
#define NO_CTX(fn)                                                             \
    do { if (ctx == NULL) {                                                    \
        wri_set_error(NULL, "%s: ctx is NULL", fn); return WR_ERR_INVALID_ARG; } } while (0)

/* A buffer entry: name, pointer, bytes, element alignment, output?, sizing argument. */
#define BUF(name, ptr, bytes, align, out, count) { name, ptr, bytes, align, out, count, WR_MEM_HOST }

wr_status wr_reduce(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce";
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    size_t inb, es;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    es = wr_type_size(type);
    CHECK(check_extent(ctx, fn, "count", count, es, &inb));
    {
        struct buf b[2] = { BUF("in", in, inb, es, 0, "count"), BUF("out", out, es, es, 1, NULL) };
        CHECK(prepare(ctx, fn, b, 2, 0, READS, &run, &call));
    }
    return end_call(ctx, fn, run, run->ops->reduce(run->state, &call, in, out, count, type, op, err), err);
}

/* The scans.  base (wr_scan_exact, wr_exscan_exact): a float/double SUM in
 * reproducible mode whatever ctx's mode, continuing from *base (may be NULL:
 * nothing before); is_exact tells those calls from wr_scan and wr_exscan. */
static wr_status scan_common(const char *fn, wr_context *ctx, const void *in, void *out, size_t count,
                             wr_type type, wr_op op, int exclusive, int is_exact, const wr_exact_sum *base)
{
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    size_t bytes, es;
    wrx_acc carry;
    NO_CTX(fn);
    if (is_exact) {
        CHECK(check_type(ctx, fn, type));
        if (type != WR_FLOAT && type != WR_DOUBLE) {
            wri_set_error(ctx, "%s: an exact scan takes float or double elements, not %s", fn, type_name(type));
            return WR_ERR_UNSUPPORTED;
        }
    } else {
        CHECK(check_type_op(ctx, fn, type, op));
    }
    es = wr_type_size(type);
    CHECK(check_extent(ctx, fn, "count", count, es, &bytes));
    {
        struct buf b[3] = { BUF("in", in, bytes, es, 0, "count"), BUF("out", out, bytes, es, 1, "count"),
                            BUF("base", base, base ? sizeof *base : 0, 8, 0, NULL) };
        CHECK(prepare(ctx, fn, b, is_exact ? 3 : 2, 1, READS_WRITES, &run, &call));
    }
    if (is_exact) {
        call.fmode = WR_FLOAT_REPRODUCIBLE;
        if (base != NULL) {
            if (call.aux == WR_MEM_DEVICE) {
                wri_set_error(ctx, "%s: base is device memory (it must be host memory)", fn);
                return WR_ERR_INVALID_ARG;
            }
            memcpy(&carry, base, sizeof carry);
            if (!wri_exact_valid(&carry)) {
                wri_set_error(ctx, "%s: base is not a wr_exact_sum (not made by wr_exact_sum_init)", fn);
                return WR_ERR_INVALID_ARG;
            }
            call.carry = &carry;
        }
        call.aux = WR_MEM_HOST;
    }
    /* reproducible float scans under AUTO: device and managed memory on the
     * cuda backend; host memory on the cpu, which scans it at memory speed
     * rather than stream it through the device; and on the cpu wherever it
     * can reach the buffers when the device backend is not cuda's */
    if (ctx->mode == WR_BACKEND_AUTO && run != &ctx->cpu && wrx_applies(call.fmode, type, op) &&
        call.in != WR_MEM_DEVICE && call.out != WR_MEM_DEVICE &&
        (run != &ctx->cuda || (call.in != WR_MEM_MANAGED && call.out != WR_MEM_MANAGED)))
        run = &ctx->cpu;
    if (count == 0) return end_call(ctx, fn, run, WR_SUCCESS, err);
    return end_call(ctx, fn, run, run->ops->scan(run->state, &call, in, out, count, type, op, exclusive, err), err);
}

wr_status wr_scan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    return scan_common("wr_scan", ctx, in, out, count, type, op, 0, 0, NULL);
}

wr_status wr_exscan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    return scan_common("wr_exscan", ctx, in, out, count, type, op, 1, 0, NULL);
}

wr_status wr_scan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                        const wr_exact_sum *base)
{
    return scan_common("wr_scan_exact", ctx, in, out, count, type, WR_SUM, 0, 1, base);
}

wr_status wr_exscan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
                          const wr_exact_sum *base)
{
    return scan_common("wr_exscan_exact", ctx, in, out, count, type, WR_SUM, 1, 1, base);
}

wr_status wr_reduce_rows(wr_context *ctx, const void *in, void *out, size_t rows, size_t cols,
                         wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce_rows";
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    size_t n, inb, outb, es;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    if (cols != 0 && rows > SIZE_MAX / cols) {
        wri_set_error(ctx, "%s: rows * cols (%zu * %zu) overflows size_t", fn, rows, cols);
        return WR_ERR_INVALID_ARG;
    }
    n = rows * cols;
    es = wr_type_size(type);
    CHECK(check_extent(ctx, fn, "rows * cols", n, es, &inb));
    CHECK(check_extent(ctx, fn, "rows", rows, es, &outb));
    {
        struct buf b[2] = { BUF("in", in, inb, es, 0, "rows * cols"), BUF("out", out, outb, es, 1, "rows") };
        CHECK(prepare(ctx, fn, b, 2, 0, READS, &run, &call));
    }
    if (rows == 0) return end_call(ctx, fn, run, WR_SUCCESS, err);
    return end_call(ctx, fn, run, run->ops->reduce_rows(run->state, &call, in, out, rows, cols, type, op, err),
                    err);
}

static int dev_kind(wr_mem_kind k) { return k == WR_MEM_DEVICE || k == WR_MEM_MANAGED; }

/*
 * reduce_segments queued on the context's stream without reading the
 * offsets: reading them on the host (check_offsets) would wait for the
 * stream, whose earlier work may still be writing them.  Taken when a
 * backend holds a stream and in, out and offsets are all device or managed
 * memory, and not in reproducible mode's exact sums; the backend then
 * checks the offsets on the device and reports a decrease asynchronously
 * (wr_backend.h, offsets_unchecked).  Unknown here:
 * where the segments of in begin and end, so their extent and their overlap
 * with out go unchecked.  Returns 0 when the path does not apply (the
 * caller checks the offsets as usual), else 1 with the call's status in *st.
 */
static int segments_on_stream(wr_context *ctx, const char *fn, const struct wri_backend *streamed,
                              const void *in, void *out, size_t nsegments, const size_t *offsets,
                              wr_mem_kind koff, size_t outb, size_t offb, size_t es, wr_type type, wr_op op,
                              wr_status *st)
{
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    wr_mem_kind kin, kout;
    if (in == NULL || out == NULL || !dev_kind(koff)) return 0;
    kin = locate(ctx, in);
    kout = locate(ctx, out);
    if (!dev_kind(kin) || !dev_kind(kout)) return 0;
    if ((uintptr_t)in % es != 0) {
        wri_set_error(ctx, "%s: in (%p) is not aligned to its %zu-byte elements", fn, in, es);
        *st = WR_ERR_INVALID_ARG;
        return 1;
    }
    {
        struct buf b[2] = { BUF("out", out, outb, es, 1, "nsegments"),
                            BUF("offsets", offsets, offb, sizeof(size_t), 0, "nsegments") };
        b[0].kind = kout;
        b[1].kind = koff;
        *st = prepare(ctx, fn, b, 2, 0, READS, &run, &call);
        if (*st != WR_SUCCESS) return 1;
    }
    /* (an exact sum's kernels take checked offsets: read them as usual) */
    if (run != streamed || wrx_applies(call.fmode, type, op)) return 0;
    call.in = kin;
    call.out = kout;
    call.aux = koff;
    call.first = call.last = 0;
    call.offsets_unchecked = 1;
    *st = end_call(ctx, fn, run,
                   run->ops->reduce_segments(run->state, &call, in, out, nsegments, offsets, type, op, err), err);
    return 1;
}

wr_status wr_reduce_segments(wr_context *ctx, const void *in, void *out, size_t nsegments,
                             const size_t *offsets, wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce_segments";
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    const struct wri_backend *checker, *streamed;
    struct wr_call call;
    size_t outb, offb, inb, skip, sum[5], es;
    const char *in_first = NULL;
    wr_mem_kind koff;
    wr_status st;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    es = wr_type_size(type);
    if (nsegments == 0) {
        /* nothing to read or write; still say which backend would have run */
        struct buf b[1] = { BUF("out", out, 0, es, 1, NULL) };
        CHECK(prepare(ctx, fn, b, 1, 0, READS, &run, &call));
        return end_call(ctx, fn, run, WR_SUCCESS, err);
    }
    if (offsets == NULL) {
        wri_set_error(ctx, "%s: offsets is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if (nsegments == SIZE_MAX) {
        wri_set_error(ctx, "%s: nsegments + 1 overflows size_t", fn);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_extent(ctx, fn, "nsegments + 1 offsets", nsegments + 1, sizeof(size_t), &offb));
    CHECK(check_extent(ctx, fn, "nsegments", nsegments, es, &outb));
    {
        /* the offsets are read before anything else: check them as a buffer first */
        struct buf b[1] = { BUF("offsets", offsets, offb, sizeof(size_t), 0, "nsegments") };
        CHECK(prepare(ctx, fn, b, 1, 0, READS, &run, &call));
        koff = b[0].kind;
    }
    streamed = __atomic_load_n(&ctx->streamed, __ATOMIC_ACQUIRE);
    if (streamed != NULL &&
        segments_on_stream(ctx, fn, streamed, in, out, nsegments, offsets, koff, outb, offb, es, type, op, &st))
        return st;

    /* Offsets in device memory are checked where they are, by the device
     * backend; managed ones too when there is one (on a device without
     * concurrent managed access the host must not read managed memory while
     * another thread's kernel runs), and mapped ones (the device copy is the
     * one that counts).  Host offsets: the cpu backend's summary. */
    checker = &ctx->cpu;
    if (ctx->loc != NULL && ctx->loc != &ctx->locator &&
        (koff == WR_MEM_DEVICE || koff == WR_MEM_MANAGED || koff == WR_MEM_MAPPED))
        checker = ctx->loc;
    if (koff == WR_MEM_DEVICE && checker == &ctx->cpu) {
        wri_set_error(ctx, "%s: offsets is device memory, which the cpu backend cannot reach", fn);
        return WR_ERR_INVALID_ARG;
    }
    st = checker->ops->check_offsets(checker->state, offsets, nsegments, sum, err);
    if (st != WR_SUCCESS) {
        wri_set_error(ctx, "%s: reading offsets: %s", fn, err);
        return st;
    }
    if (sum[2] != SIZE_MAX) {
        wri_set_error(ctx, "%s: offsets[%zu] = %zu < offsets[%zu] = %zu: offsets must not decrease",
                      fn, sum[2] + 1, sum[4], sum[2], sum[3]);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_extent(ctx, fn, "offsets[nsegments] - offsets[0]", sum[1] - sum[0], es, &inb));
    CHECK(check_extent(ctx, fn, "offsets[0]", sum[0], es, &skip));
    if (inb != 0) {
        if (in == NULL) {
            wri_set_error(ctx, "%s: in is NULL", fn);
            return WR_ERR_INVALID_ARG;
        }
        if (skip > ADDR_END || (uintptr_t)in > ADDR_END - skip) {
            wri_set_error(ctx, "%s: offsets[0] (%zu) puts in past the end of the address space", fn, sum[0]);
            return WR_ERR_INVALID_ARG;
        }
        in_first = (const char *)in + skip;
    }
    {
        struct buf b[3] = { BUF("in", in_first, inb, es, 0, "offsets[nsegments]"),
                            BUF("out", out, outb, es, 1, "nsegments"),
                            BUF("offsets", offsets, offb, sizeof(size_t), 0, "nsegments") };
        CHECK(prepare(ctx, fn, b, 3, 0, READS, &run, &call));
    }
    call.first = sum[0];
    call.last = sum[1];
    return end_call(ctx, fn, run,
                    run->ops->reduce_segments(run->state, &call, inb ? in : NULL, out, nsegments, offsets,
                                              type, op, err),
                    err);
}

wr_status wr_reduce_exact(wr_context *ctx, const void *in, size_t count, wr_type type, wr_exact_sum *sum)
{
    static const char fn[] = "wr_reduce_exact";
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    size_t inb, es;
    wrx_acc acc, part;
    wr_status st;
    NO_CTX(fn);
    CHECK(check_type(ctx, fn, type));
    if (type != WR_FLOAT && type != WR_DOUBLE) {
        wri_set_error(ctx, "%s: an exact sum takes float or double elements, not %s", fn, type_name(type));
        return WR_ERR_UNSUPPORTED;
    }
    if (sum == NULL) {
        wri_set_error(ctx, "%s: sum is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    es = wr_type_size(type);
    CHECK(check_extent(ctx, fn, "count", count, es, &inb));
    {
        struct buf b[2] = { BUF("in", in, inb, es, 0, "count"), BUF("sum", sum, sizeof *sum, 8, 1, NULL) };
        CHECK(prepare(ctx, fn, b, 2, 0, READS, &run, &call));
    }
    if (call.out == WR_MEM_DEVICE) {
        wri_set_error(ctx, "%s: sum is device memory (it must be host memory)", fn);
        return WR_ERR_INVALID_ARG;
    }
    memcpy(&acc, sum, sizeof acc);
    if (!wri_exact_valid(&acc)) {
        wri_set_error(ctx, "%s: sum is not a wr_exact_sum (not made by wr_exact_sum_init)", fn);
        return WR_ERR_INVALID_ARG;
    }
    if (count == 0) return end_call(ctx, fn, run, WR_SUCCESS, err);
    st = run->ops->reduce_exact(run->state, &call, in, count, type, &part, err);
    if (st == WR_SUCCESS) {
        wrx_merge(&acc, &part);
        memcpy(sum, &acc, sizeof acc);
    }
    return end_call(ctx, fn, run, st, err);
}

static wr_status argext(const char *fn, wr_context *ctx, const void *in, size_t count, wr_type type,
                        int is_max, size_t *index, void *value)
{
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct wr_call call;
    size_t inb, es;
    NO_CTX(fn);
    CHECK(check_type(ctx, fn, type));
    if (index == NULL) {
        wri_set_error(ctx, "%s: index is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    es = wr_type_size(type);
    CHECK(check_extent(ctx, fn, "count", count, es, &inb));
    {
        struct buf b[3] = { BUF("in", in, inb, es, 0, "count"),
                            BUF("index", index, sizeof *index, sizeof *index, 1, NULL),
                            BUF("value", value, value ? es : 0, es, 1, NULL) };
        CHECK(prepare(ctx, fn, b, 3, 0, READS, &run, &call));
    }
    if (count == 0) {
        wri_set_error(ctx, "%s: count is 0: no element to pick", fn);
        return WR_ERR_EMPTY;
    }
    return end_call(ctx, fn, run, run->ops->argext(run->state, &call, in, count, type, is_max, index, value, err),
                    err);
}

wr_status wr_argmin(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    return argext("wr_argmin", ctx, in, count, type, 0, index, value);
}

wr_status wr_argmax(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    return argext("wr_argmax", ctx, in, count, type, 1, index, value);
}

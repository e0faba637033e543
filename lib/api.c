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

/* One buffer of a call, for the reachability and overlap checks. */
struct buf {
    const char *name;     /* argument name for the error text */
    const void *ptr;
    size_t bytes;         /* bytes the call reads or writes through it */
    int is_output;
    wr_mem_kind kind;     /* filled by prepare() when a device runtime can tell */
};

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
 * Figures measured with warpred-bench --host-table: H200 host (16 threads),
 * 2^26 floats: cpu reduce 91 GB/s, scan 100 GB/s; cuda on pinned memory:
 * reduce 54 GB/s, scan 84 GB/s (97 in an earlier run).  A 2-core machine:
 * cpu reduce 29 GB/s, scan 19 GB/s -- there the PCIe path wins both.  So
 * with 16 threads AUTO keeps both on the cpu (a first version of this model
 * sent pinned scans to cuda at 95 vs 90 GB/s estimated, and measured 83 GB/s
 * against the cpu's 100); from about 8 threads down, pinned scans go to the
 * GPU, and from 3 down, reductions too.
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
static int auto_host_to_cuda(const struct buf *bufs, int nbufs, enum op_class cls)
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
    threads = wri_cpu_threads();
    if (threads > 4096) threads = 4096;  /* past any ceiling; keeps the product small */
    cpu = threads * (cls == READS ? AUTO_CPU_CORE_MBS_READ : AUTO_CPU_CORE_MBS_SCAN);
    if (cpu > AUTO_HOST_MBS) cpu = AUTO_HOST_MBS;
    gpu = cls == READS ? AUTO_PCIE_MBS_READ : AUTO_PCIE_MBS_SCAN;
    return gpu > cpu;
}

/*
 * The checks every operation shares, then the choice of backend:
 *  - a buffer through which bytes move must not be NULL, nor wrap the address space;
 *  - no two buffers may overlap, except in == out when allow_inplace (scans);
 *  - AUTO runs on cuda when any buffer is device or managed memory; on host
 *    memory it runs where the cost model above expects it to be faster:
 *    the cpu, unless the large inputs are pinned (and outputs pinned or
 *    tiny) and the cpu has too few threads to beat the PCIe link;
 *  - the cpu backend cannot reach device memory: refused.
 */
static wr_status prepare(wr_context *ctx, const char *fn, struct buf *bufs, int nbufs,
                         int allow_inplace, enum op_class cls, struct wr_slot **run)
{
    const struct wr_slot *loc;
    int any_dev = 0, any_managed = 0, i, j;
    const char *dev_name = NULL;

    for (i = 0; i < nbufs; i++) {
        if (bufs[i].bytes == 0) continue;
        if (bufs[i].ptr == NULL) {
            wri_set_error(ctx, "%s: %s is NULL", fn, bufs[i].name);
            return WR_ERR_INVALID_ARG;
        }
        if ((uintptr_t)bufs[i].ptr > UINTPTR_MAX - bufs[i].bytes) {
            wri_set_error(ctx, "%s: %s + %zu bytes wraps the address space", fn, bufs[i].name, bufs[i].bytes);
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

    loc = ctx->cuda.ops ? &ctx->cuda : (ctx->locator.ops ? &ctx->locator : NULL);
    if (loc != NULL)
        for (i = 0; i < nbufs; i++) {
            wr_mem_kind k;
            if (bufs[i].bytes == 0) continue;
            k = loc->ops->locate(loc->state, bufs[i].ptr);
            bufs[i].kind = k;
            if (k == WR_MEM_DEVICE) { any_dev = 1; if (!dev_name) dev_name = bufs[i].name; }
            if (k == WR_MEM_MANAGED) any_managed = 1;
        }

    switch (ctx->mode) {
    case WR_BACKEND_CUDA:
        *run = &ctx->cuda;
        break;
    case WR_BACKEND_AUTO:
        if (ctx->cuda.ops == NULL)
            *run = &ctx->cpu;
        else if (any_dev || any_managed)
            *run = &ctx->cuda;
        else
            *run = auto_host_to_cuda(bufs, nbufs, cls) ? &ctx->cuda : &ctx->cpu;
        break;
    default:
        *run = &ctx->cpu;
        break;
    }
    if (*run == &ctx->cpu && any_dev) {
        wri_set_error(ctx, "%s: %s is device memory, which the cpu backend cannot reach", fn, dev_name);
        return WR_ERR_INVALID_ARG;
    }
    return WR_SUCCESS;
}

/* Record how a backend call ended. */
static wr_status finish(wr_context *ctx, const char *fn, const struct wr_slot *run, wr_status st,
                        const char *err)
{
    if (st == WR_SUCCESS) {
        int b = run == &ctx->cpu ? WR_BACKEND_CPU : WR_BACKEND_CUDA;
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

wr_status wr_reduce(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce";
    char err[WR_ERRLEN] = "";
    struct wr_slot *run;
    size_t inb;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    CHECK(check_extent(ctx, fn, "count", count, wr_type_size(type), &inb));
    {
        struct buf b[2] = { { "in", in, inb, 0, WR_MEM_HOST },
                            { "out", out, wr_type_size(type), 1, WR_MEM_HOST } };
        CHECK(prepare(ctx, fn, b, 2, 0, READS, &run));
    }
    return finish(ctx, fn, run, run->ops->reduce(run->state, in, out, count, type, op, err), err);
}

static wr_status scan_common(const char *fn, wr_context *ctx, const void *in, void *out, size_t count,
                             wr_type type, wr_op op, int exclusive)
{
    char err[WR_ERRLEN] = "";
    struct wr_slot *run;
    size_t bytes;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    CHECK(check_extent(ctx, fn, "count", count, wr_type_size(type), &bytes));
    {
        struct buf b[2] = { { "in", in, bytes, 0, WR_MEM_HOST }, { "out", out, bytes, 1, WR_MEM_HOST } };
        CHECK(prepare(ctx, fn, b, 2, 1, READS_WRITES, &run));
    }
    if (count == 0) return finish(ctx, fn, run, WR_SUCCESS, err);
    return finish(ctx, fn, run, run->ops->scan(run->state, in, out, count, type, op, exclusive, err), err);
}

wr_status wr_scan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    return scan_common("wr_scan", ctx, in, out, count, type, op, 0);
}

wr_status wr_exscan(wr_context *ctx, const void *in, void *out, size_t count, wr_type type, wr_op op)
{
    return scan_common("wr_exscan", ctx, in, out, count, type, op, 1);
}

wr_status wr_reduce_rows(wr_context *ctx, const void *in, void *out, size_t rows, size_t cols,
                         wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce_rows";
    char err[WR_ERRLEN] = "";
    struct wr_slot *run;
    size_t n, inb, outb;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    if (cols != 0 && rows > SIZE_MAX / cols) {
        wri_set_error(ctx, "%s: rows * cols (%zu * %zu) overflows size_t", fn, rows, cols);
        return WR_ERR_INVALID_ARG;
    }
    n = rows * cols;
    CHECK(check_extent(ctx, fn, "rows * cols", n, wr_type_size(type), &inb));
    CHECK(check_extent(ctx, fn, "rows", rows, wr_type_size(type), &outb));
    {
        struct buf b[2] = { { "in", in, inb, 0, WR_MEM_HOST }, { "out", out, outb, 1, WR_MEM_HOST } };
        CHECK(prepare(ctx, fn, b, 2, 0, READS, &run));
    }
    if (rows == 0) return finish(ctx, fn, run, WR_SUCCESS, err);
    return finish(ctx, fn, run, run->ops->reduce_rows(run->state, in, out, rows, cols, type, op, err), err);
}

void wri_offsets_summary(const size_t *offsets, size_t nsegments, size_t sum[5])
{
    size_t s;
    sum[0] = offsets[0];
    sum[1] = offsets[nsegments];
    sum[2] = SIZE_MAX;
    for (s = 0; s < nsegments; s++)
        if (offsets[s + 1] < offsets[s]) {
            sum[2] = s;
            sum[3] = offsets[s];
            sum[4] = offsets[s + 1];
            break;
        }
}

wr_status wr_reduce_segments(wr_context *ctx, const void *in, void *out, size_t nsegments,
                             const size_t *offsets, wr_type type, wr_op op)
{
    static const char fn[] = "wr_reduce_segments";
    char err[WR_ERRLEN] = "";
    struct wr_slot *run, *loc;
    size_t outb, offb, first, last, sum[5];
    int on_device = 0;
    wr_status st;
    NO_CTX(fn);
    CHECK(check_type_op(ctx, fn, type, op));
    if (nsegments == 0) {
        /* nothing to read or write; still say which backend would have run */
        struct buf b[1] = { { "out", out, 0, 1, WR_MEM_HOST } };
        CHECK(prepare(ctx, fn, b, 1, 0, READS, &run));
        return finish(ctx, fn, run, WR_SUCCESS, err);
    }
    if (offsets == NULL) {
        wri_set_error(ctx, "%s: offsets is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_extent(ctx, fn, "nsegments + 1 offsets", nsegments == SIZE_MAX ? SIZE_MAX : nsegments + 1,
                       sizeof(size_t), &offb));
    if (nsegments == SIZE_MAX) {
        wri_set_error(ctx, "%s: nsegments + 1 overflows size_t", fn);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_extent(ctx, fn, "nsegments", nsegments, wr_type_size(type), &outb));

    /* offsets may live in device memory when a cuda backend will read them;
     * the backend checks them where they are.  Managed offsets go to the
     * backend too when a cuda backend is there: on devices without
     * concurrent managed access a host read can fault while another
     * thread's kernel runs. */
    loc = ctx->cuda.ops ? &ctx->cuda : (ctx->locator.ops ? &ctx->locator : NULL);
    if (loc) {
        wr_mem_kind k = loc->ops->locate(loc->state, offsets);
        if (k == WR_MEM_DEVICE || (k == WR_MEM_MANAGED && ctx->cuda.ops != NULL))
            on_device = 1;
        if (k == WR_MEM_DEVICE && ctx->cuda.ops == NULL) {
            wri_set_error(ctx, "%s: offsets is device memory, which the cpu backend cannot reach", fn);
            return WR_ERR_INVALID_ARG;
        }
    }
    if (on_device) {
        st = loc->ops->check_offsets(loc->state, offsets, nsegments, sum, err);
        if (st != WR_SUCCESS) {
            wri_set_error(ctx, "%s: reading offsets: %s", fn, err);
            return st;
        }
    } else {
        wri_offsets_summary(offsets, nsegments, sum);
    }
    if (sum[2] != SIZE_MAX) {
        wri_set_error(ctx, "%s: offsets[%zu] = %zu < offsets[%zu] = %zu: offsets must not decrease",
                      fn, sum[2] + 1, sum[4], sum[2], sum[3]);
        return WR_ERR_INVALID_ARG;
    }
    first = sum[0];
    last = sum[1];
    {
        size_t inb, skip;
        const char *in_first;
        if ((st = check_extent(ctx, fn, "offsets[nsegments]", last - first, wr_type_size(type), &inb)) != WR_SUCCESS ||
            (st = check_extent(ctx, fn, "offsets[0]", first, wr_type_size(type), &skip)) != WR_SUCCESS)
            return st;
        if (inb != 0 && in == NULL) {
            wri_set_error(ctx, "%s: in is NULL", fn);
            return WR_ERR_INVALID_ARG;
        }
        if (inb != 0 && (uintptr_t)in > UINTPTR_MAX - skip) {
            wri_set_error(ctx, "%s: in + offsets[0] wraps the address space", fn);
            return WR_ERR_INVALID_ARG;
        }
        in_first = inb ? (const char *)in + skip : NULL;
        {
            struct buf b[3] = { { "in", in_first, inb, 0, WR_MEM_HOST }, { "out", out, outb, 1, WR_MEM_HOST },
                                { "offsets", offsets, offb, 0, WR_MEM_HOST } };
            CHECK(prepare(ctx, fn, b, 3, 0, READS, &run));
        }
    }
    return finish(ctx, fn, run,
                  run->ops->reduce_segments(run->state, in, out, nsegments, offsets, type, op, err), err);
}

static wr_status argext(const char *fn, wr_context *ctx, const void *in, size_t count, wr_type type,
                        int is_max, size_t *index, void *value)
{
    char err[WR_ERRLEN] = "";
    struct wr_slot *run;
    size_t inb;
    NO_CTX(fn);
    CHECK(check_type(ctx, fn, type));
    if (index == NULL) {
        wri_set_error(ctx, "%s: index is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_extent(ctx, fn, "count", count, wr_type_size(type), &inb));
    {
        struct buf b[3] = { { "in", in, inb, 0, WR_MEM_HOST }, { "index", index, sizeof *index, 1, WR_MEM_HOST },
                            { "value", value, value ? wr_type_size(type) : 0, 1, WR_MEM_HOST } };
        CHECK(prepare(ctx, fn, b, 3, 0, READS, &run));
    }
    if (count == 0) {
        wri_set_error(ctx, "%s: count is 0: no element to pick", fn);
        return WR_ERR_EMPTY;
    }
    return finish(ctx, fn, run, run->ops->argext(run->state, in, count, type, is_max, index, value, err), err);
}

wr_status wr_argmin(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    return argext("wr_argmin", ctx, in, count, type, 0, index, value);
}

wr_status wr_argmax(wr_context *ctx, const void *in, size_t count, wr_type type, size_t *index, void *value)
{
    return argext("wr_argmax", ctx, in, count, type, 1, index, value);
}

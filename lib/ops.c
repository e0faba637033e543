/*
 * ops.c -- every public operation described once, and the one path that
 * checks a call's arguments, finds where its buffers live, chooses the
 * backend and runs it (doc/DESIGN.md, "Operations").
 *
 * A descriptor (struct wri_opdesc) says what an operation's arguments are:
 * its buffers' shape (linear, rows, segments), what the output covers,
 * whether it takes a wr_op or only float/double elements, whether out == in
 * is allowed, and which backend operation ids run it (the fast one and the
 * reproducible one).  The public functions (api.c) fill a struct wr_call
 * and call wri_run() with their descriptor.
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

/* ---- the descriptors ------------------------------------------------------ */

/* wri_opdesc.flags */
#define D_OP        0x001u  /* takes a wr_op, checked against the type */
#define D_FLOATS    0x002u  /* float and double elements only */
#define D_EXACT     0x004u  /* always the reproducible form (wr_*_exact) */
#define D_INPLACE   0x008u  /* out == in allowed */
#define D_EXCL      0x010u  /* exclusive scan */
#define D_TWO_IN    0x020u  /* a second input (in2) of in's shape; in2 == in allowed */
#define D_NEED_ONE  0x040u  /* zero elements: WR_ERR_EMPTY */
#define D_CARRY     0x080u  /* carry: an optional wr_exact_sum in host memory to start from */
#define D_ACC       0x100u  /* acc: a wr_exact_sum in host memory the exact sum is added to */
#define D_XNAME     0x200u  /* the input is named x (and the second one y), as BLAS names them */

/* What the output covers. */
enum wri_out {
    OUT_ONE,      /* one element */
    OUT_SAME,     /* as many elements as in (scans: linear, or the segments' range) */
    OUT_PER,      /* one element per row or segment */
    OUT_ARG,      /* index (a size_t) and value (one element, may be NULL) */
    OUT_NONE      /* nothing in out (the exact sum goes to acc) */
};

struct wri_opdesc {
    enum wr_opid id;        /* the backend operation */
    int xid;                /* its reproducible form (float/double SUM, or every float call of an
                               operation without a wr_op), or -1 */
    enum wri_shape shape;
    enum wri_out out;
    unsigned flags;
    const char *what;       /* what it does, for "the X backend does not ..." */
};

#define XNONE (-1)
static const struct wri_opdesc wri_desc[WRI_NDESC] = {
    [WRI_REDUCE]   = { WR_OPID_REDUCE,   WR_OPID_XREDUCE,   WRI_SHAPE_LINEAR, OUT_ONE,  D_OP, "reductions" },
    [WRI_SCAN]     = { WR_OPID_SCAN,     WR_OPID_XSCAN,     WRI_SHAPE_LINEAR, OUT_SAME, D_OP | D_INPLACE, "scans" },
    [WRI_EXSCAN]   = { WR_OPID_SCAN,     WR_OPID_XSCAN,     WRI_SHAPE_LINEAR, OUT_SAME, D_OP | D_INPLACE | D_EXCL,
                       "scans" },
    [WRI_ROWS]     = { WR_OPID_ROWS,     WR_OPID_XROWS,     WRI_SHAPE_ROWS,   OUT_PER,  D_OP, "row reductions" },
    [WRI_SEGMENTS] = { WR_OPID_SEGMENTS, WR_OPID_XSEGMENTS, WRI_SHAPE_SEGS,   OUT_PER,  D_OP, "segment reductions" },
    [WRI_SEGSCAN]  = { WR_OPID_SEGSCAN,  WR_OPID_XSEGSCAN,  WRI_SHAPE_SEGS,   OUT_SAME, D_OP | D_INPLACE,
                       "segmented scans" },
    [WRI_SEGEXSCAN] = { WR_OPID_SEGSCAN, WR_OPID_XSEGSCAN,  WRI_SHAPE_SEGS,   OUT_SAME, D_OP | D_INPLACE | D_EXCL,
                       "segmented scans" },
    [WRI_ARGMIN]   = { WR_OPID_ARGEXT,   XNONE,             WRI_SHAPE_LINEAR, OUT_ARG,  D_NEED_ONE, "argmin/argmax" },
    [WRI_ARGMAX]   = { WR_OPID_ARGEXT,   XNONE,             WRI_SHAPE_LINEAR, OUT_ARG,  D_NEED_ONE, "argmin/argmax" },
    [WRI_IAMAX]    = { WR_OPID_IAMAX,    XNONE,             WRI_SHAPE_LINEAR, OUT_ARG,  D_NEED_ONE | D_FLOATS,
                       "wr_argmax_abs" },
    [WRI_DOT]      = { WR_OPID_DOT,      WR_OPID_XDOT,      WRI_SHAPE_LINEAR, OUT_ONE,
                       D_FLOATS | D_TWO_IN | D_XNAME, "dot products" },
    [WRI_DOTROWS]  = { WR_OPID_DOTROWS,  WR_OPID_XDOTROWS,  WRI_SHAPE_ROWS,   OUT_PER,
                       D_FLOATS | D_TWO_IN | D_XNAME, "row dot products" },
    [WRI_NRM2]     = { WR_OPID_NRM2,     WR_OPID_XNRM2,     WRI_SHAPE_LINEAR, OUT_ONE,  D_FLOATS | D_XNAME, "norms" },
    [WRI_ASUM]     = { WR_OPID_ASUM,     WR_OPID_XASUM,     WRI_SHAPE_LINEAR, OUT_ONE,  D_FLOATS | D_XNAME,
                       "sums of magnitudes" },
    /* the exact values behind reproducible dot, asum and nrm2, unrounded:
     * the X ids with call->acc set (doc/DESIGN.md, "exact partials") */
    [WRI_XDOTSUM]  = { WR_OPID_XDOT,     XNONE,             WRI_SHAPE_LINEAR, OUT_NONE,
                       D_FLOATS | D_EXACT | D_ACC | D_TWO_IN | D_XNAME, "exact partial dot products" },
    [WRI_XASUMSUM] = { WR_OPID_XASUM,    XNONE,             WRI_SHAPE_LINEAR, OUT_NONE,
                       D_FLOATS | D_EXACT | D_ACC | D_XNAME, "exact partial sums of magnitudes" },
    [WRI_XNRM2SUM] = { WR_OPID_XNRM2,    XNONE,             WRI_SHAPE_LINEAR, OUT_NONE,
                       D_FLOATS | D_EXACT | D_ACC | D_XNAME, "exact partial norms" },
    [WRI_XSCAN]    = { WR_OPID_XSCAN,    XNONE,             WRI_SHAPE_LINEAR, OUT_SAME,
                       D_FLOATS | D_EXACT | D_INPLACE | D_CARRY, "exact scans" },
    [WRI_XEXSCAN]  = { WR_OPID_XSCAN,    XNONE,             WRI_SHAPE_LINEAR, OUT_SAME,
                       D_FLOATS | D_EXACT | D_INPLACE | D_CARRY | D_EXCL, "exact scans" },
    [WRI_XSUM]     = { WR_OPID_XSUM,     XNONE,             WRI_SHAPE_LINEAR, OUT_NONE,
                       D_FLOATS | D_EXACT | D_ACC, "exact sums" },
};

const char *wri_opid_name(enum wr_opid id)
{
    static const char *const names[WR_NOPIDS] = {
        [WR_OPID_REDUCE] = "reduce", [WR_OPID_SCAN] = "scan", [WR_OPID_ROWS] = "reduce_rows",
        [WR_OPID_SEGMENTS] = "reduce_segments", [WR_OPID_SEGSCAN] = "scan_segments", [WR_OPID_ARGEXT] = "argext",
        [WR_OPID_IAMAX] = "argmax_abs", [WR_OPID_DOT] = "dot", [WR_OPID_DOTROWS] = "dot_rows",
        [WR_OPID_NRM2] = "nrm2", [WR_OPID_ASUM] = "asum", [WR_OPID_XREDUCE] = "exact reduce",
        [WR_OPID_XSCAN] = "exact scan", [WR_OPID_XROWS] = "exact reduce_rows",
        [WR_OPID_XSEGMENTS] = "exact reduce_segments", [WR_OPID_XSEGSCAN] = "exact scan_segments",
        [WR_OPID_XSUM] = "exact sum", [WR_OPID_XDOT] = "exact dot", [WR_OPID_XDOTROWS] = "exact dot_rows",
        [WR_OPID_XNRM2] = "exact nrm2", [WR_OPID_XASUM] = "exact asum",
    };
    return (int)id >= 0 && id < WR_NOPIDS && names[id] ? names[id] : "?";
}

/* ---- one buffer of a call -------------------------------------------------- */

struct buf {
    const char *name;     /* argument name for the error text */
    const void *ptr;
    size_t bytes;         /* bytes the call reads or writes through it */
    size_t align;         /* the alignment its elements need */
    int is_output;
    const char *count;    /* the argument that sizes it ("count"), for the error text */
    wr_mem_kind kind;     /* filled by check_bufs() */
};

/* bytes = n * size without overflow. */
static wr_status check_extent(const wr_context *ctx, const char *fn, const char *what, size_t n, size_t size,
                              size_t *bytes)
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

/* Where the buffer at p lives, as the context's locator sees it (AUTO takes
 * mapped host memory for what it is to the host: host memory). */
static wr_mem_kind locate(const wr_context *ctx, const void *p)
{
    wr_mem_kind k = wri_locate(ctx, p);
    return k == WR_MEM_MAPPED && ctx->mode == WR_BACKEND_AUTO ? WR_MEM_HOST : k;
}

/*
 * The checks every operation shares, then where each buffer lives:
 *  - a buffer through which bytes move must not be NULL, must be aligned to
 *    its elements and must end inside the address space (checked before the
 *    overlap, which a huge count would otherwise be mistaken for);
 *  - no output may overlap another buffer, except out == in (the same
 *    range) when the operation allows it; inputs may overlap each other.
 */
static wr_status check_bufs(wr_context *ctx, const char *fn, struct buf *b, int n, int inplace)
{
    int i, j;
    for (i = 0; i < n; i++) {
        uintptr_t p = (uintptr_t)b[i].ptr;
        if (b[i].bytes == 0) continue;
        if (b[i].ptr == NULL) {
            wri_set_error(ctx, "%s: %s is NULL", fn, b[i].name);
            return WR_ERR_INVALID_ARG;
        }
        if (p % b[i].align != 0) {
            wri_set_error(ctx, "%s: %s (%p) is not aligned to its %zu-byte elements", fn, b[i].name, b[i].ptr,
                          b[i].align);
            return WR_ERR_INVALID_ARG;
        }
        if (b[i].bytes > ADDR_END || p > ADDR_END - b[i].bytes) {
            if (b[i].count)
                wri_set_error(ctx, "%s: %s (%zu bytes from %s) runs past the end of the address space", fn,
                              b[i].count, b[i].bytes, b[i].name);
            else
                wri_set_error(ctx, "%s: %s runs past the end of the address space", fn, b[i].name);
            return WR_ERR_INVALID_ARG;
        }
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            if (!b[i].is_output && !b[j].is_output) continue;
            if (!ranges_overlap(&b[i], &b[j])) continue;
            if (inplace && b[i].ptr == b[j].ptr && b[i].bytes == b[j].bytes) continue;
            wri_set_error(ctx, "%s: %s and %s overlap%s", fn, b[i].name, b[j].name,
                          inplace ? " (only out == in is allowed)" : "");
            return WR_ERR_INVALID_ARG;
        }
    for (i = 0; i < n; i++)
        if (b[i].bytes != 0 && b[i].kind == WR_MEM_HOST) b[i].kind = locate(ctx, b[i].ptr);
    return WR_SUCCESS;
}

/* ---- the choice of backend ------------------------------------------------- */

/*
 * AUTO on host memory: a fixed cost model, no timing at run time (the
 * constants and how they were measured: doc/DESIGN.md, "AUTO").
 *
 * A backend that reads pinned host memory over the bus (caps.pinned_dma)
 * may beat the cpu's threads on large pinned inputs when the cpu has few
 * threads; pageable memory must first be copied into pinned staging by the
 * cpu, so it never pays to send it, and below AUTO_MIN_BYTES a launch and
 * its synchronisations cost more than the cpu spends on the data.
 */
#define AUTO_MIN_BYTES ((size_t)1 << 20)   /* less data moved: always the cpu */
#define AUTO_SMALL_OUT ((size_t)4096)      /* an output this small may be pageable */
#define AUTO_CPU_THREAD_READ_MBS 14000     /* cpu stream rate per thread, reduce-like */
#define AUTO_CPU_THREAD_SCAN_MBS 9500      /* per thread, scan-like (read + write) */
#define AUTO_HOST_MBS 95000                /* host memory ceiling, either class */
#define AUTO_BUS_READ_MBS 50000            /* pinned host -> device */
#define AUTO_BUS_SCAN_MBS 80000            /* pinned both ways, overlapped (read + write) */

static int auto_host_to_device(const wr_context *ctx, const struct buf *b, int n, int scanlike)
{
    long cpu, bus, threads;
    int i, pinned_in = 0;
    for (i = 0; i < n; i++) {
        if (b[i].bytes == 0) continue;
        if (b[i].kind == WR_MEM_HOST_PINNED) {
            if (!b[i].is_output && b[i].bytes >= AUTO_MIN_BYTES) pinned_in = 1;
        } else if (b[i].is_output ? b[i].bytes > AUTO_SMALL_OUT : b[i].bytes >= AUTO_MIN_BYTES) {
            return 0;       /* a large pageable buffer: the cpu's staging copy alone is slower */
        }
    }
    if (!pinned_in) return 0;            /* also: less than AUTO_MIN_BYTES to read */
    threads = ctx->cpu.ops->threads(ctx->cpu.state);
    if (threads > 4096) threads = 4096;  /* past any ceiling; keeps the product small */
    cpu = threads * (scanlike ? AUTO_CPU_THREAD_SCAN_MBS : AUTO_CPU_THREAD_READ_MBS);
    if (cpu > AUTO_HOST_MBS) cpu = AUTO_HOST_MBS;
    bus = scanlike ? AUTO_BUS_SCAN_MBS : AUTO_BUS_READ_MBS;
    return bus > cpu;
}

static int can_reach(const struct wri_backend *be, const struct buf *b, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (b[i].bytes != 0 && !(be->caps.mem & (1u << b[i].kind))) return 0;
    return 1;
}

static const char *kind_name(wr_mem_kind k)
{
    switch (k) {
    case WR_MEM_DEVICE: return "device memory";
    case WR_MEM_MANAGED: return "managed memory";
    case WR_MEM_MAPPED: return "mapped host memory";
    case WR_MEM_HOST_PINNED: return "pinned host memory";
    default: return "host memory";
    }
}

/*
 * The backend that runs operation id on buffers b: the context's own for a
 * CPU, CUDA or OPENMP_TARGET context; under AUTO the device backend when any
 * buffer is device or managed memory, else where the cost model expects the
 * call to be faster (the cpu, unless large pinned inputs meet a device
 * backend with pinned_dma and a cpu with few threads; the exact scans stay
 * on the cpu, which scans host memory at memory speed).  Then it must take
 * the id and reach every buffer; under AUTO the other backend is tried when
 * it does.
 */
static wr_status route(wr_context *ctx, const char *fn, const struct wri_opdesc *d, enum wr_opid id,
                       const struct buf *b, int n, struct wri_backend **run)
{
    struct wri_backend *dev = ctx->dev.ops ? &ctx->dev : NULL, *first, *other = NULL;
    int any_dev = 0, i;
    for (i = 0; i < n; i++)
        if (b[i].bytes != 0 && (b[i].kind == WR_MEM_DEVICE || b[i].kind == WR_MEM_MANAGED)) any_dev = 1;

    if (ctx->mode != WR_BACKEND_AUTO) {
        first = ctx->mode == WR_BACKEND_CPU ? &ctx->cpu : dev;
    } else if (dev == NULL) {
        first = &ctx->cpu;
    } else if (any_dev) {
        first = dev;
        other = &ctx->cpu;
    } else {
        const int scanlike = d->out == OUT_SAME;
        const int xscan = id == WR_OPID_XSCAN || id == WR_OPID_XSEGSCAN;
        first = dev->caps.pinned_dma && !xscan && auto_host_to_device(ctx, b, n, scanlike) ? dev : &ctx->cpu;
        other = first == dev ? &ctx->cpu : dev;
    }
    if ((first->caps.ops & WR_OPID_BIT(id)) && can_reach(first, b, n)) {
        *run = first;
        return WR_SUCCESS;
    }
    if (other && (other->caps.ops & WR_OPID_BIT(id)) && can_reach(other, b, n)) {
        *run = other;
        return WR_SUCCESS;
    }
    if (!(first->caps.ops & WR_OPID_BIT(id))) {
        wri_set_error(ctx, "%s: the %s backend does not run %s%s", fn, first->ops->name, d->what,
                      id >= WR_OPID_XREDUCE ? " in reproducible mode" : "");
        return WR_ERR_UNSUPPORTED;
    }
    for (i = 0; i < n; i++)
        if (b[i].bytes != 0 && !(first->caps.mem & (1u << b[i].kind))) break;
    wri_set_error(ctx, "%s: %s is %s, which the %s backend cannot reach", fn, b[i].name, kind_name(b[i].kind),
                  first->ops->name);
    return WR_ERR_INVALID_ARG;
}

/* Record how a backend call ended. */
static wr_status end_call(wr_context *ctx, const char *fn, const struct wri_backend *run, wr_status st,
                          const char *err)
{
    if (st == WR_SUCCESS) {
        __atomic_store_n(&ctx->last_backend, (int)run->id, __ATOMIC_RELAXED);
        wri_clear_error(ctx);
    } else {
        wri_set_error(ctx, "%s: %s: %s", fn, run->ops->name, err[0] ? err : wr_status_string(st));
    }
    return st;
}

#define CHECK(expr) do { wr_status st_ = (expr); if (st_ != WR_SUCCESS) return st_; } while (0)

/* The type and op checks. */
static wr_status check_type_op(const wr_context *ctx, const char *fn, const struct wri_opdesc *d,
                               const struct wr_call *c)
{
    if (wr_type_size(c->type) == 0) {
        wri_set_error(ctx, "%s: type %d is not a wr_type", fn, (int)c->type);
        return WR_ERR_INVALID_ARG;
    }
    if (d->flags & D_OP) {
        /* (no op value may stand for "no op": a caller's (wr_op)-1 must be refused) */
        if ((int)c->op < (int)WR_SUM || (int)c->op > (int)WR_BXOR) {
            wri_set_error(ctx, "%s: op %d is not a wr_op", fn, (int)c->op);
            return WR_ERR_INVALID_ARG;
        }
        if (!wr_op_valid(c->type, c->op)) {
            wri_set_error(ctx, "%s: op %s is not defined for type %s", fn, op_name(c->op), type_name(c->type));
            return WR_ERR_UNSUPPORTED;
        }
    }
    if ((d->flags & D_FLOATS) && c->type != WR_FLOAT && c->type != WR_DOUBLE) {
        wri_set_error(ctx, "%s: %s takes float or double elements, not %s", fn,
                      (d->flags & D_EXACT) ? "an exact sum" : "it", type_name(c->type));
        return WR_ERR_UNSUPPORTED;
    }
    return WR_SUCCESS;
}

/* Whether the call runs the reproducible form: always for the wr_*_exact
 * functions; in reproducible mode for float/double SUM, and for every
 * float/double call of an operation that takes no wr_op (dot products,
 * norms). */
static int use_exact(const wr_context *ctx, const struct wri_opdesc *d, const struct wr_call *c)
{
    if (d->xid == XNONE) return 0;
    if (wr_context_float_mode(ctx) != WR_FLOAT_REPRODUCIBLE) return 0;
    if (c->type != WR_FLOAT && c->type != WR_DOUBLE) return 0;
    return !(d->flags & D_OP) || c->op == WR_SUM;
}

static int dev_kind(wr_mem_kind k) { return k == WR_MEM_DEVICE || k == WR_MEM_MANAGED; }

/*
 * The offsets of a segmented operation: checked as a buffer, then read
 * where they live (their first and last value, and the first decrease).
 * Offsets in device memory are read by the device backend; managed ones too
 * when there is one (on a device without concurrent managed access the host
 * must not read managed memory while another thread's kernel runs), and
 * mapped ones (the device copy is the one that counts).  Host offsets: the
 * cpu backend's summary.
 */
static wr_status read_offsets(wr_context *ctx, const char *fn, const struct wr_call *c, wr_mem_kind koff,
                              size_t sum[5])
{
    char err[WR_ERRLEN] = "";
    const struct wri_backend *checker = &ctx->cpu;
    wr_status st;
    if (ctx->dev.ops != NULL && (koff == WR_MEM_DEVICE || koff == WR_MEM_MANAGED || koff == WR_MEM_MAPPED))
        checker = &ctx->dev;
    if (koff == WR_MEM_DEVICE && checker == &ctx->cpu) {
        wri_set_error(ctx, "%s: offsets is device memory, which the cpu backend cannot reach", fn);
        return WR_ERR_INVALID_ARG;
    }
    st = checker->ops->check_offsets(checker->state, c->offsets, c->count, sum, err);
    if (st != WR_SUCCESS) {
        wri_set_error(ctx, "%s: reading offsets: %s", fn, err);
        return st;
    }
    if (sum[2] != SIZE_MAX) {
        wri_set_error(ctx, "%s: offsets[%zu] = %zu < offsets[%zu] = %zu: offsets must not decrease", fn,
                      sum[2] + 1, sum[4], sum[2], sum[3]);
        return WR_ERR_INVALID_ARG;
    }
    return WR_SUCCESS;
}

/*
 * A segmented call queued on the context's stream without reading the
 * offsets: reading them on the host would wait for the stream, whose
 * earlier work may still be writing them.  Taken when the backend that
 * holds a stream runs the call (not its exact form, whose kernels take
 * checked offsets) and in, out and offsets are all device or managed
 * memory; the backend then checks the offsets on the device and reports a
 * decrease asynchronously (wr_backend.h, offsets_unchecked).  Unknown here:
 * where the segments of in begin and end, so their extent and their overlap
 * with out go unchecked.  Returns 0 when the path does not apply (the
 * caller reads the offsets as usual), else 1 with the call's status in *st.
 */
static int segments_on_stream(wr_context *ctx, const char *fn, const struct wri_opdesc *d, struct wr_call *c,
                              wr_mem_kind koff, size_t outb, size_t offb, size_t es, wr_status *st)
{
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    const struct wri_backend *streamed = __atomic_load_n(&ctx->streamed, __ATOMIC_ACQUIRE);
    wr_mem_kind kin, kout;
    if (streamed == NULL || c->id != d->id || c->in == NULL || c->out == NULL || !dev_kind(koff)) return 0;
    kin = locate(ctx, c->in);
    kout = locate(ctx, c->out);
    if (!dev_kind(kin) || !dev_kind(kout)) return 0;
    if ((uintptr_t)c->in % es != 0) {
        wri_set_error(ctx, "%s: in (%p) is not aligned to its %zu-byte elements", fn, c->in, es);
        *st = WR_ERR_INVALID_ARG;
        return 1;
    }
    {
        /* (a segmented scan writes out over the segments' range, unknown here:
         * out is checked as one element, its alignment, and its overlap with
         * the offsets as far as one element goes) */
        struct buf b[2] = { { "out", c->out, d->out == OUT_PER ? outb : es, es, 1, "nsegments", kout },
                            { "offsets", c->offsets, offb, sizeof(size_t), 0, "nsegments", koff } };
        *st = check_bufs(ctx, fn, b, 2, 0);
        if (*st == WR_SUCCESS) *st = route(ctx, fn, d, c->id, b, 2, &run);
        if (*st != WR_SUCCESS) return 1;
    }
    if (run != streamed) return 0;
    c->kin = kin;
    c->kout = kout;
    c->kaux = koff;
    c->first = c->last = 0;
    c->offsets_unchecked = 1;
    *st = end_call(ctx, fn, run, run->ops->op[c->id](run->state, c, err), err);
    return 1;
}

wr_status wri_run(wr_context *ctx, const char *fn, enum wri_desc_id which, struct wr_call *c)
{
    const struct wri_opdesc *d = &wri_desc[which];
    char err[WR_ERRLEN] = "";
    struct wri_backend *run;
    struct buf b[5];
    int nb = 0;
    size_t es, inb = 0, outb = 0, offb = 0, n = 0;
    wrx_acc carry, acc;
    wr_status st;

    if (ctx == NULL) {
        wri_set_error(NULL, "%s: ctx is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    CHECK(check_type_op(ctx, fn, d, c));
    if (!(d->flags & D_OP)) c->op = WR_SUM;
    es = wr_type_size(c->type);
    c->exclusive = (d->flags & D_EXCL) != 0;
    c->is_max = which == WRI_ARGMAX || which == WRI_IAMAX;
    c->id = !(d->flags & D_EXACT) && use_exact(ctx, d, c) ? (enum wr_opid)d->xid : d->id;

    /* the extents */
    switch (d->shape) {
    case WRI_SHAPE_LINEAR:
        CHECK(check_extent(ctx, fn, "count", c->count, es, &inb));
        n = c->count;
        break;
    case WRI_SHAPE_ROWS:
        if (c->cols != 0 && c->count > SIZE_MAX / c->cols) {
            wri_set_error(ctx, "%s: rows * cols (%zu * %zu) overflows size_t", fn, c->count, c->cols);
            return WR_ERR_INVALID_ARG;
        }
        CHECK(check_extent(ctx, fn, "rows * cols", c->count * c->cols, es, &inb));
        CHECK(check_extent(ctx, fn, "rows", c->count, es, &outb));
        n = c->count;
        break;
    case WRI_SHAPE_SEGS:
        n = c->count;
        if (n == 0) break;
        if (c->offsets == NULL) {
            wri_set_error(ctx, "%s: offsets is NULL", fn);
            return WR_ERR_INVALID_ARG;
        }
        if (n == SIZE_MAX) {
            wri_set_error(ctx, "%s: nsegments + 1 overflows size_t", fn);
            return WR_ERR_INVALID_ARG;
        }
        CHECK(check_extent(ctx, fn, "nsegments + 1 offsets", n + 1, sizeof(size_t), &offb));
        CHECK(check_extent(ctx, fn, "nsegments", n, es, &outb));
        break;
    }

    if (d->shape == WRI_SHAPE_SEGS && n > 0) {
        size_t sum[5], skip;
        wr_mem_kind koff;
        {
            /* the offsets are read before anything else: check them as a buffer first */
            struct buf o[1] = { { "offsets", c->offsets, offb, sizeof(size_t), 0, "nsegments", WR_MEM_HOST } };
            CHECK(check_bufs(ctx, fn, o, 1, 0));
            koff = o[0].kind;
        }
        if (segments_on_stream(ctx, fn, d, c, koff, outb, offb, es, &st)) return st;
        CHECK(read_offsets(ctx, fn, c, koff, sum));
        CHECK(check_extent(ctx, fn, "offsets[nsegments] - offsets[0]", sum[1] - sum[0], es, &inb));
        CHECK(check_extent(ctx, fn, "offsets[0]", sum[0], es, &skip));
        if (inb != 0) {
            if (c->in == NULL) {
                wri_set_error(ctx, "%s: in is NULL", fn);
                return WR_ERR_INVALID_ARG;
            }
            if (skip > ADDR_END || (uintptr_t)c->in > ADDR_END - skip) {
                wri_set_error(ctx, "%s: offsets[0] (%zu) puts in past the end of the address space", fn, sum[0]);
                return WR_ERR_INVALID_ARG;
            }
            if (d->out == OUT_SAME && c->out != NULL && (uintptr_t)c->out > ADDR_END - skip) {
                wri_set_error(ctx, "%s: offsets[0] (%zu) puts out past the end of the address space", fn, sum[0]);
                return WR_ERR_INVALID_ARG;
            }
        }
        c->first = sum[0];
        c->last = sum[1];
        /* the buffers as the checks see them: the segments' range of in (and of out) */
        b[nb++] = (struct buf){ "in", inb ? (const char *)c->in + skip : NULL, inb, es, 0, "offsets[nsegments]",
                                WR_MEM_HOST };
        if (d->out == OUT_SAME)
            b[nb++] = (struct buf){ "out", inb ? (char *)c->out + skip : NULL, inb, es, 1, "offsets[nsegments]",
                                    WR_MEM_HOST };
        else
            b[nb++] = (struct buf){ "out", c->out, outb, es, 1, "nsegments", WR_MEM_HOST };
        b[nb++] = (struct buf){ "offsets", c->offsets, offb, sizeof(size_t), 0, "nsegments", koff };
        if (inb == 0) c->in = NULL;
    } else if (d->shape == WRI_SHAPE_SEGS) {
        b[nb++] = (struct buf){ "out", c->out, 0, es, 1, NULL, WR_MEM_HOST };
    } else {
        const char *cnt = d->shape == WRI_SHAPE_ROWS ? "rows * cols" : "count";
        b[nb++] = (struct buf){ "in", c->in, inb, es, 0, cnt, WR_MEM_HOST };
        switch (d->out) {
        case OUT_ONE:
            b[nb++] = (struct buf){ "out", c->out, es, es, 1, NULL, WR_MEM_HOST };
            break;
        case OUT_SAME:
            b[nb++] = (struct buf){ "out", c->out, inb, es, 1, "count", WR_MEM_HOST };
            break;
        case OUT_PER:
            b[nb++] = (struct buf){ "out", c->out, outb, es, 1, "rows", WR_MEM_HOST };
            break;
        case OUT_ARG:
            if (c->index == NULL) {
                wri_set_error(ctx, "%s: index is NULL", fn);
                return WR_ERR_INVALID_ARG;
            }
            b[nb++] = (struct buf){ "value", c->out, c->out ? es : 0, es, 1, NULL, WR_MEM_HOST };
            b[nb++] = (struct buf){ "index", c->index, sizeof(size_t), sizeof(size_t), 1, NULL, WR_MEM_HOST };
            break;
        case OUT_NONE:
            break;
        }
        if (d->flags & D_TWO_IN) b[nb++] = (struct buf){ "y", c->in2, inb, es, 0, cnt, WR_MEM_HOST };
        if (d->flags & (D_TWO_IN | D_XNAME)) b[0].name = "x";
    }
    if (d->flags & D_CARRY)
        b[nb++] = (struct buf){ "base", c->carry, c->carry ? sizeof(wr_exact_sum) : 0, 8, 0, NULL, WR_MEM_HOST };
    if (d->flags & D_ACC) {
        if (c->acc == NULL) {
            wri_set_error(ctx, "%s: sum is NULL", fn);
            return WR_ERR_INVALID_ARG;
        }
        b[nb++] = (struct buf){ "sum", c->acc, sizeof(wr_exact_sum), 8, 1, NULL, WR_MEM_HOST };
    }
    CHECK(check_bufs(ctx, fn, b, nb, (d->flags & D_INPLACE) != 0));

    /* the exact sums' own arguments: host memory, made by wr_exact_sum_init */
    if ((d->flags & D_CARRY) && c->carry != NULL) {
        if (b[nb - 1].kind == WR_MEM_DEVICE) {
            wri_set_error(ctx, "%s: base is device memory (it must be host memory)", fn);
            return WR_ERR_INVALID_ARG;
        }
        memcpy(&carry, c->carry, sizeof carry);
        if (!wri_exact_valid(&carry)) {
            wri_set_error(ctx, "%s: base is not a wr_exact_sum (not made by wr_exact_sum_init)", fn);
            return WR_ERR_INVALID_ARG;
        }
        c->carry = &carry;
    }
    if (d->flags & D_ACC) {
        if (b[nb - 1].kind == WR_MEM_DEVICE) {
            wri_set_error(ctx, "%s: sum is device memory (it must be host memory)", fn);
            return WR_ERR_INVALID_ARG;
        }
        memcpy(&acc, c->acc, sizeof acc);
        if (!wri_exact_valid(&acc)) {
            wri_set_error(ctx, "%s: sum is not a wr_exact_sum (not made by wr_exact_sum_init)", fn);
            return WR_ERR_INVALID_ARG;
        }
    }
    /* (the carry and the accumulator are the library's host copies from here on) */
    if (d->flags & (D_CARRY | D_ACC)) b[--nb].bytes = 0;

    CHECK(route(ctx, fn, d, c->id, b, nb, &run));
    c->kin = b[0].bytes ? b[0].kind : WR_MEM_HOST;
    c->kout = WR_MEM_HOST;
    c->kaux = WR_MEM_HOST;
    c->kin2 = WR_MEM_HOST;
    if (nb > 1 && d->out != OUT_NONE) c->kout = b[1].bytes ? b[1].kind : WR_MEM_HOST;
    if (d->out == OUT_ARG) c->kaux = b[2].kind;
    if (d->shape == WRI_SHAPE_SEGS && n > 0) c->kaux = b[2].kind;
    if (d->flags & D_TWO_IN) c->kin2 = b[nb - 1].bytes ? b[nb - 1].kind : WR_MEM_HOST;
    c->offsets_unchecked = 0;

    /* nothing to do (no element to scan, no row or segment), or nothing to pick */
    if ((n == 0 && d->out != OUT_ONE) || (d->shape == WRI_SHAPE_SEGS && d->out == OUT_SAME && inb == 0)) {
        if (d->flags & D_NEED_ONE) {
            wri_set_error(ctx, "%s: count is 0: no element to pick", fn);
            return WR_ERR_EMPTY;
        }
        return end_call(ctx, fn, run, WR_SUCCESS, err);
    }
    if (d->flags & D_ACC) {
        /* the backend's exact sum of these elements, added to the caller's */
        void *user = c->acc;
        wrx_acc part;
        c->acc = &part;
        st = run->ops->op[c->id](run->state, c, err);
        if (st == WR_SUCCESS) {
            wrx_merge(&acc, &part);
            memcpy(user, &acc, sizeof acc);
        }
        return end_call(ctx, fn, run, st, err);
    }
    return end_call(ctx, fn, run, run->ops->op[c->id](run->state, c, err), err);
}

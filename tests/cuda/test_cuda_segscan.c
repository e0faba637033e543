/*
 * test_cuda_segscan.c -- wr_scan_segments and wr_exscan_segments on the
 * CUDA backend, against the cpu backend and a sequential host reference.
 *
 *  - every (type, op) pair, inclusive and exclusive, on "exact" data
 *    (wrapping integers, small integer-valued floats, powers of two for
 *    float PROD, any values for MIN/MAX, NaNs sprinkled in): cuda == cpu ==
 *    reference bit for bit (any NaN matching any NaN); elements outside
 *    [offsets[0], offsets[nsegments]) untouched;
 *  - segment shapes: all empty, a single one, many tiny ones, one huge
 *    among short ones, lengths around a scan tile (crossing its
 *    boundaries), offsets[0] > 0 and not 16-byte aligned, lengths around a
 *    mean as the benchmark draws them, long segments with tiles without a
 *    head;
 *  - residencies: device, managed, pinned, pageable (through a context
 *    with 64 KiB staging buffers: many chunks, the running value carried
 *    from one to the next), offsets in device or host memory, in place;
 *  - random float/double SUM: within the scan bound of a long-double
 *    reference inside each segment, and the same bits on every run, on 2
 *    resident blocks, with the one-block-per-tile kernel
 *    (WARPRED_CUDA_SCAN_KERNEL=block) and through staging (the digest of
 *    each case is printed);
 *  - reproducible mode (float/double SUM): the cpu backend's bits exactly,
 *    on every residency, with NaN, infinities, -0 and cancelling data;
 *  - a stream set, everything in device memory: the call is queued with
 *    the offsets unread on the host, gives the same bits; decreasing
 *    offsets are reported by wr_context_synchronize naming the least
 *    decrease, and the output is left untouched; an exact call is queued
 *    too.
 *
 * Sizes: by default up to 2^20 elements a call and a few hundred calls,
 * seconds on a GPU and well under a minute under compute-sanitizer;
 * WR_TEST_LARGE=1 runs every pair on every residency and sizes up to 2^24.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "wr_ops.h"
#include "gpu_common.h"
#include "tap.h"

#define ES(t) wr_type_size(t)
#define AT(p, t, i) ((char *)(p) + (size_t)(i) * ES(t))
#define CAT(p, t, i) ((const char *)(p) + (size_t)(i) * ES(t))
#define IS_FLT(t) ((t) == WR_FLOAT || (t) == WR_DOUBLE)
#define RM(r) (1u << (r))
#define RM_ALL (RM(RES_DEVICE) | RM(RES_PINNED) | RM(RES_PAGEABLE) | RM(RES_MANAGED))

static wr_context *cpu, *cpu_x, *gpu, *gpu_small, *gpu_two, *gpu_block, *gpu_x, *gpu_small_x;
static int large;
static size_t cap;                                /* elements of every buffer */
static size_t ocap;                               /* offsets of every offsets buffer */
static void *rin[RES_COUNT], *rout[RES_COUNT];
static size_t *roff[RES_COUNT];
static void *hin, *href, *hcpu, *hgot, *hdev;     /* host: input, reference, cpu's, cuda's, the device run's */
static size_t *hoff;

static wr_context *gctx(enum res r, int exact)
{
    if (r == RES_PINNED || r == RES_PAGEABLE) return exact ? gpu_small_x : gpu_small;
    return exact ? gpu_x : gpu;
}

/* ---- data --------------------------------------------------------------------- */

enum pat { P_EXACT, P_NAN, P_RANDOM, P_XHARD };

static void put_d(wr_type t, void *p, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}

static void gen(wr_type t, wr_op op, enum pat pat, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng_next(&s);
        if (!IS_FLT(t)) {
            uint64_t v = r;
            if (op == WR_PROD) v = r | 1;
            else if (op == WR_BAND) v = r % 16 == 0 ? ~(1ull << (r >> 58)) : ~0ull;
            else if (op == WR_BOR) v = r % 16 == 0 ? 1ull << (r >> 58) : 0;
            switch (t) {
            case WR_INT32: ((int32_t *)hin)[i] = (int32_t)(uint32_t)v; break;
            case WR_UINT32: ((uint32_t *)hin)[i] = (uint32_t)v; break;
            case WR_INT64: ((int64_t *)hin)[i] = (int64_t)v; break;
            default: ((uint64_t *)hin)[i] = v; break;
            }
            continue;
        }
        double v;
        if (pat == P_RANDOM) {
            v = (double)(r >> 11) * 0x1p-53;
        } else if (pat == P_XHARD) {
            /* every exponent, cancelling pairs, tiny and huge values */
            const double m = 1.0 + (double)(r >> 12) * 0x1p-52;
            const int e = (int)((r >> 3) % 120) - 60;
            v = ldexp(m, t == WR_FLOAT ? e : e * 8) * ((r & 1) ? -1.0 : 1.0);
            if (r % 97 == 0) v = 0x1p-1074;
            if (r % 89 == 0 && i > 0) v = -(t == WR_FLOAT ? (double)((float *)hin)[i - 1] : ((double *)hin)[i - 1]);
        } else if (op == WR_SUM) {
            v = t == WR_FLOAT ? (double)((int)(r % 9) - 4) : (double)((int)(r % 2001) - 1000);
        } else if (op == WR_PROD) {
            static const double pv[5] = { -1.0, 2.0, 0.5, -2.0, -0.5 };
            v = (r >> 11) % 64 == 0 ? pv[(r >> 3) % 5] : 1.0;
        } else {
            switch (r % 29) {
            case 0: v = -0.0; break;
            case 1: v = 0.0; break;
            case 2: v = (r & 64) ? INFINITY : -INFINITY; break;
            default: v = (double)(int64_t)r * 0x1p-40; break;
            }
        }
        put_d(t, hin, i, v);
    }
    if ((pat == P_NAN || pat == P_XHARD) && n > 8 && IS_FLT(t)) {
        put_d(t, hin, seed % n, NAN);
        put_d(t, hin, (seed * 7 + 3) % n, -NAN);
        if (pat == P_XHARD) {
            put_d(t, hin, (seed * 13 + 5) % n, INFINITY);
            put_d(t, hin, (seed * 17 + 1) % n, -0.0);
        }
    }
}

/* ---- shapes ------------------------------------------------------------------- */

enum shape { S_EMPTY, S_SINGLE, S_TINY, S_HUGE, S_TILE, S_OFF0, S_MEAN, S_LONG, S_NSHAPES };
static const char *const shape_name[S_NSHAPES] = { "all empty", "single", "many tiny", "one huge among short",
                                                   "around a tile", "offsets[0] = 17", "mean 40", "mean 3000" };

/* Offsets of shape sh for about n elements of type t into hoff; returns
 * nsegments (offsets[nsegments] <= cap, nsegments < ocap). */
static size_t make_shape(enum shape sh, wr_type t, size_t n, uint64_t seed)
{
    const size_t E = 32768 / ES(t);                   /* a segmented scan tile */
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 3;
    size_t k = 0, pos = 0, huge_at = 0;
    if (n > cap - 64) n = cap - 64;
    switch (sh) {
    case S_EMPTY:
        for (k = 0; k <= 40; k++) hoff[k] = 5;
        return 40;
    case S_SINGLE:
        hoff[0] = 0;
        hoff[1] = n;
        return 1;
    case S_OFF0: pos = 17; break;
    case S_HUGE: pos = 3; huge_at = 100; break;
    default: break;
    }
    hoff[0] = pos;
    while (k + 2 < ocap) {
        const uint64_t r = rng_next(&s);
        size_t len;
        switch (sh) {
        case S_TINY: len = (size_t)(r % 4); break;
        case S_HUGE: len = k == huge_at ? n / 2 : (size_t)(r % 6); break;
        case S_TILE: {
            const size_t c[8] = { E - 1, E, E + 1, 2 * E + 3, 1, 0, E - 5, 3 * E };
            len = c[r % 8];
            break;
        }
        case S_OFF0: len = (size_t)(r % 101); break;
        case S_LONG: len = (size_t)(r % 6001); break;
        default: len = (size_t)(r % 81); break;
        }
        if (pos + len > n) break;
        pos += len;
        hoff[++k] = pos;
    }
    if (k == 0) hoff[++k] = pos;
    return k;
}

/* ---- references and comparisons ------------------------------------------------ */

static void ref_segscan(wr_type t, wr_op op, const size_t *off, size_t nseg, int ex)
{
    unsigned char acc[8];
    for (size_t s = 0; s < nseg; s++)
        for (size_t i = off[s]; i < off[s + 1]; i++) {
            if (i == off[s]) {
                memcpy(acc, CAT(hin, t, i), ES(t));
                if (ex) wr_identity(t, op, AT(href, t, i));
                else memcpy(AT(href, t, i), acc, ES(t));
            } else {
                if (ex) memcpy(AT(href, t, i), acc, ES(t));
                wr_combine(t, op, acc, CAT(hin, t, i));
                if (!ex) memcpy(AT(href, t, i), acc, ES(t));
            }
        }
}

static uint64_t digest(const void *p, size_t bytes)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* The segment holding element i (for diagnostics). */
static size_t seg_of(const size_t *off, size_t nseg, size_t i)
{
    size_t lo = 0, hi = nseg;
    while (hi - lo > 1) {
        const size_t m = (lo + hi) / 2;
        if (off[m] <= i) lo = m;
        else hi = m;
    }
    return lo;
}

/* got == want over [first, last) (same bits, NaN matches NaN), and got's
 * bytes outside it are still the 0x5a poison (over [0, last + 16)). */
static int same_range(const char *who, const char *what, wr_type t, const void *want, const void *got,
                      const size_t *off, size_t nseg)
{
    const size_t first = off[0], last = off[nseg], es = ES(t);
    for (size_t i = first; i < last; i++)
        if (!same_elem(t, CAT(want, t, i), CAT(got, t, i))) {
            char a[64], b[64];
            const size_t s = seg_of(off, nseg, i);
            diag("%s %s: element %zu (segment %zu = [%zu, %zu)): wanted %s, got %s", who, what, i, s, off[s],
                 off[s + 1], elem_str(t, want, i, a, sizeof a), elem_str(t, got, i, b, sizeof b));
            return 0;
        }
    for (size_t i = 0; i < first * es; i++)
        if (((const unsigned char *)got)[i] != 0x5a) {
            diag("%s %s: byte %zu before offsets[0] = %zu was written", who, what, i, first);
            return 0;
        }
    for (size_t i = last * es; i < (last + 16) * es && i < cap * 8; i++)
        if (((const unsigned char *)got)[i] != 0x5a) {
            diag("%s %s: byte %zu past offsets[nsegments] = %zu was written", who, what, i, last);
            return 0;
        }
    return 1;
}

/* Random float SUM: each output within (ceil(log2 len) + 1024 + 4096) u
 * sum|x| of its segment's exact (long double) prefix. */
static int within_bound(const char *who, const char *what, wr_type t, const void *got, const size_t *off, size_t nseg,
                        int ex)
{
    const long double u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
    for (size_t sg = 0; sg < nseg; sg++) {
        long double s = 0, a = 0;
        const size_t len = off[sg + 1] - off[sg];
        const long double c = ((long double)ceil(log2((double)len + 1)) + 1024 + 4096) * u;
        for (size_t i = off[sg]; i < off[sg + 1]; i++) {
            const long double v = t == WR_FLOAT ? (long double)((const float *)hin)[i] : ((const double *)hin)[i];
            if (!ex) { s += v; a += fabsl(v); }
            const long double g = t == WR_FLOAT ? (long double)((const float *)got)[i] : ((const double *)got)[i];
            if (!(fabsl(g - s) <= c * a)) {
                diag("%s %s: element %zu (segment %zu): |%Lg - %Lg| > %Lg", who, what, i, sg, g, s, c * a);
                return 0;
            }
            if (ex) { s += v; a += fabsl(v); }
        }
    }
    return 1;
}

static int status_ok(const char *who, const char *what, wr_context *c, wr_status st)
{
    if (st == WR_SUCCESS) return 1;
    diag("%s %s: %s (%s)", who, what, wr_status_string(st), wr_context_error(c));
    return 0;
}

typedef wr_status (*segscan_fn)(wr_context *, const void *, void *, size_t, const size_t *, wr_type, wr_op);

/* ---- one case -------------------------------------------------------------------- */

/* The tally, per (type, op, exact) x residency. */
static int ran[2][6][7][RES_COUNT], failed[2][6][7][RES_COUNT];
static int det_ran, det_failed;

enum { C_INPLACE = 1, C_HOSTOFF = 2, C_VARIANTS = 4 };

/*
 * Inclusive and exclusive scans of shape sh (about n elements) of pattern
 * pat on the residencies of rm; exact: reproducible mode.  Exact data (and
 * every reproducible case) must give the reference's (cpu's) bits; random
 * float SUM the bound, and the bits of the device run everywhere.
 */
static void run_case(wr_type t, wr_op op, enum pat pat, enum shape sh, size_t n, uint64_t seed, unsigned rm,
                     unsigned flags, int exact)
{
    const size_t nseg = make_shape(sh, t, n, seed), es = ES(t);
    const size_t first = hoff[0], last = hoff[nseg], obytes = (nseg + 1) * sizeof(size_t);
    const size_t span = (last + 16 < cap ? last + 16 : cap) * es;
    char what[160];
    gen(t, op, pat, last + 16 < cap ? last + 16 : cap, seed);
    for (int ex = 0; ex < 2; ex++) {
        const segscan_fn f = ex ? wr_exscan_segments : wr_scan_segments;
        const char *fname = ex ? "wr_exscan_segments" : "wr_scan_segments";
        int cpu_good = 1, have_dev = 0;
        snprintf(what, sizeof what, "%s %s %s, %s, %zu segments over [%zu, %zu), pattern %d%s", fname,
                 type_name[t], op_name[op], shape_name[sh], nseg, first, last, (int)pat, exact ? ", reproducible" : "");
        /* the reference: sequential (exact data), or the cpu (reproducible) */
        memset(href, 0x5a, span);
        memset(hcpu, 0x5a, span);
        if (!exact) ref_segscan(t, op, hoff, nseg, ex);
        cpu_good = status_ok("cpu", what, exact ? cpu_x : cpu, f(exact ? cpu_x : cpu, hin, hcpu, nseg, hoff, t, op));
        if (exact) memcpy(href, hcpu, span);
        else if (pat == P_RANDOM) cpu_good = cpu_good && within_bound("cpu", what, t, hcpu, hoff, nseg, ex);
        else cpu_good = cpu_good && same_range("cpu", what, t, href, hcpu, hoff, nseg);
        for (int r = 0; r < RES_COUNT; r++) {
            if (!(rm & RM(r))) continue;
            wr_context *g = gctx((enum res)r, exact);
            char who[96];
            int good = 1;
            for (int v = 0; v < ((flags & C_HOSTOFF) && r == RES_DEVICE ? 2 : 1); v++) {
                const int host_off = v == 1 || r == RES_PAGEABLE;
                const size_t *o = hoff;
                snprintf(who, sizeof who, "cuda/%s%s", res_name[r], host_off ? " (host offsets)" : "");
                if (!host_off) {
                    res_put((enum res)r, roff[r], hoff, obytes);
                    o = roff[r];
                }
                res_put((enum res)r, rin[r], hin, span);
                res_poison((enum res)r, rout[r], span, 0x5a);
                good = good && status_ok(who, what, g, f(g, rin[r], rout[r], nseg, o, t, op));
                res_get((enum res)r, hgot, rout[r], span);
                if (pat == P_RANDOM && !exact) good = good && within_bound(who, what, t, hgot, hoff, nseg, ex);
                else good = good && same_range(who, what, t, href, hgot, hoff, nseg);
                if (good && wr_context_last_backend(g) != WR_BACKEND_CUDA) {
                    diag("%s %s: did not run on cuda", who, what);
                    good = 0;
                }
                /* floats: the bits of the first run on the device, everywhere */
                if (pat == P_RANDOM && !exact) {
                    if (!have_dev) {
                        memcpy(hdev, hgot, span);
                        have_dev = 1;
                        diag("digest %s: %016llx", what, (unsigned long long)digest(AT(hgot, t, first), (last - first) * es));
                    } else if (!same_range(who, "bits of the first cuda run", t, hdev, hgot, hoff, nseg)) {
                        good = 0;
                    }
                }
            }
            if ((flags & C_INPLACE) && good) {
                const size_t *o = r == RES_PAGEABLE ? hoff : roff[r];
                res_put((enum res)r, rout[r], hin, span);
                good = status_ok(who, "in place", g, f(g, rout[r], rout[r], nseg, o, t, op));
                res_get((enum res)r, hgot, rout[r], span);
                /* (outside the range: the input is left, not the poison) */
                for (size_t i = first; i < last; i++)
                    if (!same_elem(t, CAT(have_dev ? hdev : href, t, i), CAT(hgot, t, i))) {
                        char a[64], b[64];
                        diag("%s %s in place: element %zu: wanted %s, got %s", who, what, i,
                             elem_str(t, have_dev ? hdev : href, i, a, sizeof a), elem_str(t, hgot, i, b, sizeof b));
                        good = 0;
                        break;
                    }
                if (good && memcmp(hgot, hin, first * es) != 0) {
                    diag("%s %s in place: an element before offsets[0] changed", who, what);
                    good = 0;
                }
            }
            if ((flags & C_VARIANTS) && r == RES_DEVICE && good) {
                /* the same bits on 2 resident blocks and with the block kernel, twice each */
                wr_context *vs[2] = { gpu_two, gpu_block };
                for (int k = 0; k < 4 && !exact; k++) {
                    wr_context *c = vs[k / 2];
                    res_poison(RES_DEVICE, rout[r], span, 0x5a);
                    good = good && status_ok(who, k / 2 ? "block kernel" : "2 blocks", c,
                                             f(c, rin[r], rout[r], nseg, roff[r], t, op));
                    res_get(RES_DEVICE, hgot, rout[r], span);
                    good = good && same_range(who, k / 2 ? "block kernel" : "2 blocks", t, have_dev ? hdev : href, hgot,
                                              hoff, nseg);
                }
                det_ran = 1;
                if (!good) det_failed = 1;
            }
            ran[exact][t][op][r] = 1;
            if (!(good && cpu_good)) failed[exact][t][op][r] = 1;
        }
    }
}

/* ---- queued on a stream ------------------------------------------------------------ */

static void run_stream(void)
{
    cudaStream_t st;
    wr_context *q = NULL;
    const wr_type t = WR_INT32;
    char what[128];
    GPU_CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    if (wr_context_create(&q, WR_BACKEND_CUDA) != WR_SUCCESS || wr_context_set_stream(q, st) != WR_SUCCESS)
        bail("a cuda context with a stream: %s", wr_context_error(q));

    /* int32 SUM, mean 40, device memory: queued == the reference */
    for (int ex = 0; ex < 2; ex++) {
        const segscan_fn f = ex ? wr_exscan_segments : wr_scan_segments;
        const size_t nseg = make_shape(S_MEAN, t, 200000, 99 + ex), last = hoff[nseg];
        const size_t span = (last + 16) * ES(t);
        gen(t, WR_SUM, P_EXACT, last + 16, 5 + ex);
        memset(href, 0x5a, span);
        ref_segscan(t, WR_SUM, hoff, nseg, ex);
        res_put(RES_DEVICE, rin[RES_DEVICE], hin, span);
        res_put(RES_DEVICE, roff[RES_DEVICE], hoff, (nseg + 1) * sizeof(size_t));
        res_poison(RES_DEVICE, rout[RES_DEVICE], span, 0x5a);
        snprintf(what, sizeof what, "%s int32 sum, %zu segments", ex ? "wr_exscan_segments" : "wr_scan_segments", nseg);
        wr_status s1 = f(q, rin[RES_DEVICE], rout[RES_DEVICE], nseg, roff[RES_DEVICE], t, WR_SUM);
        wr_status s2 = wr_context_synchronize(q);
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], span);
        ok(status_ok("queued", what, q, s1) && status_ok("queued", "synchronize", q, s2) &&
           same_range("queued", what, t, href, hgot, hoff, nseg), "queued %s: the reference's results", what);
        /* in place */
        res_put(RES_DEVICE, rout[RES_DEVICE], hin, span);
        s1 = f(q, rout[RES_DEVICE], rout[RES_DEVICE], nseg, roff[RES_DEVICE], t, WR_SUM);
        s2 = wr_context_synchronize(q);
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], span);
        int good = status_ok("queued", what, q, s1) && status_ok("queued", "synchronize", q, s2);
        for (size_t i = hoff[0]; good && i < last; i++) good = ((int32_t *)hgot)[i] == ((int32_t *)href)[i];
        ok(good, "queued %s in place: the reference's results", what);
    }

    /* float SUM, random data: the bits of the same call without a stream */
    {
        const wr_type tf = WR_FLOAT;
        const size_t nseg = make_shape(S_MEAN, tf, 300000, 7), last = hoff[nseg], span = (last + 16) * 4;
        gen(tf, WR_SUM, P_RANDOM, last + 16, 8);
        res_put(RES_DEVICE, rin[RES_DEVICE], hin, span);
        res_put(RES_DEVICE, roff[RES_DEVICE], hoff, (nseg + 1) * sizeof(size_t));
        res_poison(RES_DEVICE, rout[RES_DEVICE], span, 0x5a);
        int good = status_ok("blocking", "float", gpu,
                             wr_scan_segments(gpu, rin[RES_DEVICE], rout[RES_DEVICE], nseg, roff[RES_DEVICE], tf, WR_SUM));
        res_get(RES_DEVICE, hdev, rout[RES_DEVICE], span);
        res_poison(RES_DEVICE, rout[RES_DEVICE], span, 0x5a);
        good = good && status_ok("queued", "float", q,
                                 wr_scan_segments(q, rin[RES_DEVICE], rout[RES_DEVICE], nseg, roff[RES_DEVICE], tf, WR_SUM));
        good = good && status_ok("queued", "synchronize", q, wr_context_synchronize(q));
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], span);
        good = good && same_range("queued", "float sum", tf, hdev, hgot, hoff, nseg);
        ok(good, "queued float sum, %zu segments: the bits of the blocking call", nseg);
    }

    /* decreasing offsets: reported by synchronize, naming the least decrease; output untouched */
    {
        const size_t m = 1000, p = 617;
        for (size_t i = 0; i <= m; i++) hoff[i] = 3 * i + 1;
        hoff[p + 1] = 3 * p;                       /* offsets[p + 1] < offsets[p] */
        hoff[m - 1] = 2;                           /* a later one too */
        gen(t, WR_SUM, P_EXACT, 3 * m + 16, 11);
        res_put(RES_DEVICE, rin[RES_DEVICE], hin, (3 * m + 16) * 4);
        res_put(RES_DEVICE, roff[RES_DEVICE], hoff, (m + 1) * sizeof(size_t));
        res_poison(RES_DEVICE, rout[RES_DEVICE], (3 * m + 16) * 4, 0x5a);
        wr_status s1 = wr_scan_segments(q, rin[RES_DEVICE], rout[RES_DEVICE], m, roff[RES_DEVICE], t, WR_SUM);
        wr_status s2 = wr_context_synchronize(q);
        char want[96];
        snprintf(want, sizeof want, "offsets[%zu] < offsets[%zu]", p + 1, p);
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], (3 * m + 16) * 4);
        int untouched = 1;
        for (size_t i = 0; i < (3 * m + 16) * 4; i++) untouched &= ((unsigned char *)hgot)[i] == 0x5a;
        ok(s1 == WR_SUCCESS && s2 == WR_ERR_INVALID_ARG && strstr(wr_context_error(q), want) != NULL && untouched,
           "queued wr_scan_segments with offsets decreasing at %zu: queued (%s), synchronize says \"%s\", output "
           "untouched (%s)", p, wr_status_string(s1), wr_context_error(q), untouched ? "yes" : "no");
        /* mended: right again on the same context */
        hoff[p + 1] = 3 * p + 4;
        hoff[m - 1] = 3 * (m - 1) + 1;
        res_put(RES_DEVICE, roff[RES_DEVICE], hoff, (m + 1) * sizeof(size_t));
        memset(href, 0x5a, (3 * m + 16) * 4);
        ref_segscan(t, WR_SUM, hoff, m, 1);
        s1 = wr_exscan_segments(q, rin[RES_DEVICE], rout[RES_DEVICE], m, roff[RES_DEVICE], t, WR_SUM);
        s2 = wr_context_synchronize(q);
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], (3 * m + 16) * 4);
        int good = s1 == WR_SUCCESS && s2 == WR_SUCCESS;
        for (size_t i = hoff[0]; good && i < hoff[m]; i++) good = ((int32_t *)hgot)[i] == ((int32_t *)href)[i];
        ok(good, "queued wr_exscan_segments, mended offsets: right (%s)", wr_context_error(q));
    }

    /* reproducible mode queued (the offsets are read, the call queued): the cpu's bits */
    {
        const wr_type tf = WR_DOUBLE;
        const size_t nseg = make_shape(S_LONG, tf, 100000, 21), last = hoff[nseg], span = (last + 16) * 8;
        gen(tf, WR_SUM, P_XHARD, last + 16, 22);
        memset(href, 0x5a, span);
        int good = status_ok("cpu", "reproducible", cpu_x, wr_exscan_segments(cpu_x, hin, href, nseg, hoff, tf, WR_SUM));
        wr_context_set_float_mode(q, WR_FLOAT_REPRODUCIBLE);
        res_put(RES_DEVICE, rin[RES_DEVICE], hin, span);
        res_put(RES_DEVICE, roff[RES_DEVICE], hoff, (nseg + 1) * sizeof(size_t));
        res_poison(RES_DEVICE, rout[RES_DEVICE], span, 0x5a);
        good = good && status_ok("queued", "reproducible", q,
                                 wr_exscan_segments(q, rin[RES_DEVICE], rout[RES_DEVICE], nseg, roff[RES_DEVICE], tf,
                                                    WR_SUM));
        good = good && status_ok("queued", "synchronize", q, wr_context_synchronize(q));
        res_get(RES_DEVICE, hgot, rout[RES_DEVICE], span);
        good = good && same_range("queued", "reproducible double exscan", tf, href, hgot, hoff, nseg);
        ok(good, "queued reproducible wr_exscan_segments double, %zu segments: the cpu's bits", nseg);
    }
    wr_context_destroy(q);
    GPU_CK(cudaStreamDestroy(st));
}

int main(void)
{
    gpu_require();
    unsetenv("WARPRED_BACKEND");
    unsetenv("WARPRED_FLOAT_MODE");
    large = test_large();
    cap = test_max_n(large ? ((size_t)1 << 24) : ((size_t)1 << 20)) + 64;
    ocap = cap + 2;
    plan_lazy();
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS || wr_context_create(&cpu_x, WR_BACKEND_CPU) != WR_SUCCESS ||
        wr_context_create(&gpu, WR_BACKEND_CUDA) != WR_SUCCESS || wr_context_create(&gpu_x, WR_BACKEND_CUDA) != WR_SUCCESS)
        bail("contexts: %s", wr_context_error(NULL));
    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (wr_context_create(&gpu_small, WR_BACKEND_CUDA) != WR_SUCCESS ||
        wr_context_create(&gpu_small_x, WR_BACKEND_CUDA) != WR_SUCCESS)
        bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
    setenv("WARPRED_CUDA_SCAN_BLOCKS", "2", 1);
    if (wr_context_create(&gpu_two, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_SCAN_BLOCKS");
    setenv("WARPRED_CUDA_SCAN_KERNEL", "block", 1);
    if (wr_context_create(&gpu_block, WR_BACKEND_CUDA) != WR_SUCCESS) bail("cuda context: %s", wr_context_error(NULL));
    unsetenv("WARPRED_CUDA_SCAN_KERNEL");
    wr_context_set_float_mode(cpu_x, WR_FLOAT_REPRODUCIBLE);
    wr_context_set_float_mode(gpu_x, WR_FLOAT_REPRODUCIBLE);
    wr_context_set_float_mode(gpu_small_x, WR_FLOAT_REPRODUCIBLE);
    diag("%s", wr_context_describe(gpu));

    for (int r = 0; r < RES_COUNT; r++) {
        rin[r] = res_alloc((enum res)r, cap * 8);
        rout[r] = res_alloc((enum res)r, cap * 8);
        roff[r] = res_alloc((enum res)r, ocap * sizeof(size_t));
    }
    hin = malloc(cap * 8);
    href = malloc(cap * 8);
    hcpu = malloc(cap * 8);
    hgot = malloc(cap * 8);
    hdev = malloc(cap * 8);
    hoff = malloc(ocap * sizeof(size_t));
    if (!hin || !href || !hcpu || !hgot || !hdev || !hoff) bail("out of host memory");

    /* every pair: exact data, several shapes, on the device (WR_TEST_LARGE:
     * every shape on every residency); one op a type on every residency */
    double t0 = test_elapsed();
    static const wr_op rep[6] = { WR_SUM, WR_MAX, WR_BXOR, WR_PROD, WR_SUM, WR_MIN };
    const size_t mid = cap - 64 < ((size_t)1 << 18) ? cap - 64 : (size_t)1 << 18;
    for (int ti = 0; ti < 6; ti++)
        for (int oi = 0; oi < 7; oi++) {
            const wr_type t = (wr_type)ti;
            const wr_op op = (wr_op)oi;
            uint64_t sd = 1000 * (uint64_t)ti + 10 * (uint64_t)oi;
            if (!wr_op_valid(t, op)) continue;
            const unsigned rm = large || op == rep[ti] ? RM_ALL : RM(RES_DEVICE);
            const enum pat p = IS_FLT(t) ? P_NAN : P_EXACT;
            run_case(t, op, P_EXACT, S_TINY, 20000, sd++, RM(RES_DEVICE), 0, 0);
            run_case(t, op, p, S_TILE, mid, sd++, rm, C_HOSTOFF, 0);
            run_case(t, op, P_EXACT, S_HUGE, 60000, sd++, RM(RES_DEVICE), 0, 0);
            run_case(t, op, P_EXACT, S_OFF0, 30000, sd++, op == rep[ti] ? RM_ALL : RM(RES_DEVICE), C_INPLACE, 0);
            run_case(t, op, P_EXACT, S_EMPTY, 0, sd++, RM(RES_DEVICE), 0, 0);
            if (large) {
                for (int sh = 0; sh < S_NSHAPES; sh++)
                    run_case(t, op, p, (enum shape)sh, (size_t)1 << 22, sd++, RM_ALL, C_INPLACE | C_HOSTOFF, 0);
            } else if (op == rep[ti]) {
                run_case(t, op, P_EXACT, S_MEAN, mid, sd++, RM_ALL, C_INPLACE, 0);
                run_case(t, op, P_EXACT, S_SINGLE, 70001, sd++, RM_ALL, 0, 0);
                run_case(t, op, P_EXACT, S_EMPTY, 0, sd++, RM_ALL, 0, 0);
            }
        }
    diag("exact data, every pair: %.1f s", test_elapsed() - t0);

    /* random float/double SUM: bound, and the same bits everywhere */
    t0 = test_elapsed();
    for (int k = 0; k < 2; k++) {
        const wr_type t = k ? WR_DOUBLE : WR_FLOAT;
        const size_t big = cap - 64;
        run_case(t, WR_SUM, P_RANDOM, S_MEAN, big, 500 + k, RM_ALL, C_INPLACE | C_VARIANTS | C_HOSTOFF, 0);
        run_case(t, WR_SUM, P_RANDOM, S_SINGLE, big, 510 + k, RM_ALL, C_INPLACE | C_VARIANTS, 0);
        run_case(t, WR_SUM, P_RANDOM, S_LONG, big, 520 + k, RM_ALL, C_VARIANTS, 0);
        run_case(t, WR_SUM, P_RANDOM, S_TILE, big, 530 + k, RM(RES_DEVICE) | RM(RES_PAGEABLE), C_VARIANTS, 0);
        run_case(t, WR_SUM, P_RANDOM, S_OFF0, 100000, 540 + k, RM(RES_DEVICE) | RM(RES_PINNED), C_VARIANTS, 0);
    }
    diag("random float sums: %.1f s", test_elapsed() - t0);

    /* reproducible mode: the cpu's bits */
    t0 = test_elapsed();
    for (int k = 0; k < 2; k++) {
        const wr_type t = k ? WR_DOUBLE : WR_FLOAT;
        const size_t big = cap - 64 < ((size_t)1 << 19) ? cap - 64 : (size_t)1 << 19;
        run_case(t, WR_SUM, P_XHARD, S_MEAN, big, 600 + k, RM_ALL, C_INPLACE | C_HOSTOFF, 1);
        run_case(t, WR_SUM, P_XHARD, S_SINGLE, big, 610 + k, RM(RES_DEVICE) | RM(RES_PAGEABLE), C_INPLACE, 1);
        run_case(t, WR_SUM, P_RANDOM, S_LONG, big, 620 + k, RM_ALL, 0, 1);
        run_case(t, WR_SUM, P_XHARD, S_TILE, big, 630 + k, RM(RES_DEVICE) | RM(RES_PINNED), 0, 1);
        run_case(t, WR_SUM, P_XHARD, S_HUGE, 100000, 640 + k, RM(RES_DEVICE) | RM(RES_MANAGED), 0, 1);
        run_case(t, WR_SUM, P_XHARD, S_OFF0, 50000, 650 + k, RM_ALL, 0, 1);
        run_case(t, WR_SUM, P_XHARD, S_TINY, 50000, 660 + k, RM(RES_DEVICE), 0, 1);
        run_case(t, WR_SUM, P_XHARD, S_EMPTY, 0, 670 + k, RM(RES_DEVICE), 0, 1);
    }
    diag("reproducible mode: %.1f s", test_elapsed() - t0);

    for (int x = 0; x < 2; x++)
        for (int ti = 0; ti < 6; ti++)
            for (int oi = 0; oi < 7; oi++) {
                char where[80] = "";
                int any = 0, bad = 0;
                for (int r = 0; r < RES_COUNT; r++) {
                    bad |= failed[x][ti][oi][r];
                    if (ran[x][ti][oi][r]) {
                        any = 1;
                        snprintf(where + strlen(where), sizeof where - strlen(where), "%s%s", *where ? ", " : "",
                                 res_name[r]);
                    }
                }
                if (!any) continue;
                ok(!bad, "%s%s %s (%s memory): cuda == cpu == reference, inclusive and exclusive",
                   x ? "reproducible " : "", type_name[ti], op_name[oi], where);
            }
    for (int ti = 0; ti < 6; ti++) {
        int all = 1;
        for (int r = 0; r < RES_COUNT; r++) {
            int any = 0;
            for (int oi = 0; oi < 7; oi++) any |= ran[0][ti][oi][r];
            all &= any;
        }
        ok(all, "%s ran on every residency", type_name[ti]);
    }
    ok(det_ran && !det_failed, "random float sums: the same bits run to run, on 2 blocks, with the block kernel, "
       "through staging");

    t0 = test_elapsed();
    run_stream();
    diag("queued: %.1f s", test_elapsed() - t0);

    for (int r = 0; r < RES_COUNT; r++) {
        res_free((enum res)r, rin[r]);
        res_free((enum res)r, rout[r]);
        res_free((enum res)r, roff[r]);
    }
    free(hin);
    free(href);
    free(hcpu);
    free(hgot);
    free(hdev);
    free(hoff);
    wr_context_destroy(gpu_block);
    wr_context_destroy(gpu_two);
    wr_context_destroy(gpu_small_x);
    wr_context_destroy(gpu_small);
    wr_context_destroy(gpu_x);
    wr_context_destroy(gpu);
    wr_context_destroy(cpu_x);
    wr_context_destroy(cpu);
    return tap_failures() ? 1 : 0;
}

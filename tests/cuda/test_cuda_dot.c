/*
 * test_cuda_dot.c -- dot products, norms, sums of magnitudes, argmax |x|
 * and row-wise dot products on the CUDA backend: wr_dot, wr_nrm2, wr_asum,
 * wr_argmax_abs, wr_dot_rows, in fast and reproducible mode, float and
 * double, on every residency (device, managed in place; pinned and
 * pageable through a context with 64 KiB staging buffers, so that host
 * arrays are many chunks), inputs x == y and mixed residencies, queued on
 * a stream and captured in a CUDA graph.
 *
 * References, computed here: fast mode within DESIGN.md's bound,
 * (ceil(log2 n) + 1024) u sum |terms|, of a long double sum (a norm: that
 * bound relative to it); argmax |x| exactly (first index, first NaN);
 * reproducible mode the exact bits, from lib/wr_exact.h's accumulator:
 *  - dot: every product split exactly (double data: hi = x*y, lo =
 *    fma(x, y, -hi), lo left out when hi is not finite; float data: the
 *    product in double, exact), the sum rounded once;
 *  - asum: the exact sum of |x[i]| rounded once;
 *  - nrm2: sqrt of the exact sum of squares rounded once (warpred.h;
 *    lib/wr_exact_norm.h: the squares in three exact sums by the
 *    elements' magnitude, scaled by 2^-+1216, and its rounding).
 * Where the cpu backend runs an operation, the cuda results are compared
 * with its results as well: within the bound in fast mode, the same bits
 * in reproducible mode.
 *
 * The functions are looked up at run time: where libwarpred lacks them
 * the test calls the plugin's table itself, as lib/ would (lib/ops.c), and
 * checks against the references alone.  With them, the exact partials
 * (wr_dot_exact, wr_asum_exact, wr_nrm2_exact) are checked too: rounded,
 * the reproducible results, and the cpu's.
 *
 * Sizes: 0, 1, 7, 1000, 2^16 + 3, 2^20 + 5 (WR_TEST_LARGE=1: also 2^23 + 1),
 * capped by WR_TEST_MAX_N; seconds on a GPU, well within a minute under
 * compute-sanitizer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "warpred.h"
#include "wr_backend.h"
#include "wr_exact.h"
#include "wr_exact_norm.h"
#include "gpu_common.h"
#include "tap.h"

/* ---- the functions under test ------------------------------------------------ */

enum fn { F_DOT, F_NRM2, F_ASUM, F_IAMAX, F_ROWS, NF };
static const char *const fn_name[NF] = { "wr_dot", "wr_nrm2", "wr_asum", "wr_argmax_abs", "wr_dot_rows" };
enum { C_GPU, C_SMALL, C_CPU, NCTX };

/* the public functions, when libwarpred has them */
static wr_status (*p_dot)(wr_context *, const void *, const void *, void *, size_t, wr_type);
static wr_status (*p_nrm2)(wr_context *, const void *, void *, size_t, wr_type);
static wr_status (*p_asum)(wr_context *, const void *, void *, size_t, wr_type);
static wr_status (*p_iamax)(wr_context *, const void *, size_t, wr_type, size_t *, void *);
static wr_status (*p_rows)(wr_context *, const void *, const void *, void *, size_t, size_t, wr_type);
static wr_context *ctx[NCTX];
static int have_cpu[NF];           /* the cpu backend runs it (public mode) */

/* else the plugin's table, called directly */
static int direct;
static const struct wr_backend_ops *ops;
static void *pst[NCTX];

static const char *h_getenv(const char *n) { return getenv(n); }
static int h_env_count(const char *name, size_t min, size_t max, size_t *value, char *err)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;
    if (v == NULL || *v == 0) return 0;
    x = strtoull(v, &end, 10);
    if (*end || x < min || x > max) {
        snprintf(err, WR_ERRLEN, "%s=%s: out of range", name, v);
        return -1;
    }
    *value = (size_t)x;
    return 1;
}
static const struct wr_host_api host_api = { WR_BACKEND_ABI, h_getenv, h_env_count };

struct args {
    enum fn f;
    wr_type t;
    const void *x, *y;
    void *out;
    size_t *index;
    size_t n, cols;               /* F_ROWS: n rows of cols */
};

static wr_status run(int c, int repro, const struct args *a)
{
    if (!direct) {
        wr_context *k = ctx[c];
        wr_context_set_float_mode(k, repro ? WR_FLOAT_REPRODUCIBLE : WR_FLOAT_FAST);
        switch (a->f) {
        case F_DOT: return p_dot(k, a->x, a->y, a->out, a->n, a->t);
        case F_NRM2: return p_nrm2(k, a->x, a->out, a->n, a->t);
        case F_ASUM: return p_asum(k, a->x, a->out, a->n, a->t);
        case F_IAMAX: return p_iamax(k, a->x, a->n, a->t, a->index, a->out);
        default: return p_rows(k, a->x, a->y, a->out, a->n, a->cols, a->t);
        }
    }
    if (c == C_CPU) return WR_ERR_NO_BACKEND;
    static const enum wr_opid fid[NF] = { WR_OPID_DOT, WR_OPID_NRM2, WR_OPID_ASUM, WR_OPID_IAMAX, WR_OPID_DOTROWS };
    static const int xid[NF] = { WR_OPID_XDOT, WR_OPID_XNRM2, WR_OPID_XASUM, -1, WR_OPID_XDOTROWS };
    struct wr_call call;
    char err[WR_ERRLEN] = "";
    const size_t nin = a->f == F_ROWS ? a->n * a->cols : a->n;
    memset(&call, 0, sizeof call);
    call.id = repro && xid[a->f] >= 0 ? (enum wr_opid)xid[a->f] : fid[a->f];
    call.type = a->t;
    call.op = WR_SUM;
    call.is_max = 1;
    call.in = a->x;
    call.in2 = (a->f == F_DOT || a->f == F_ROWS) ? a->y : NULL;
    call.out = a->out;
    call.index = a->index;
    call.count = a->n;
    call.cols = a->cols;
    if (a->f == F_ROWS && a->n == 0) return WR_SUCCESS;
    if (a->f == F_IAMAX && a->n == 0) return WR_ERR_EMPTY;
    call.kin = nin ? ops->locate(pst[c], a->x) : WR_MEM_HOST;
    call.kin2 = nin && call.in2 ? ops->locate(pst[c], a->y) : WR_MEM_HOST;
    call.kout = a->out ? ops->locate(pst[c], a->out) : WR_MEM_HOST;
    call.kaux = a->index ? ops->locate(pst[c], a->index) : WR_MEM_HOST;
    const wr_status s = ops->op[call.id](pst[c], &call, err);
    if (s != WR_SUCCESS) diag("%s: %s", fn_name[a->f], err);
    return s;
}

static wr_status set_stream(void *stream)
{
    char err[WR_ERRLEN] = "";
    if (!direct) return wr_context_set_stream(ctx[C_GPU], stream);
    return ops->set_stream(pst[C_GPU], stream, err);
}

static wr_status sync_gpu(void)
{
    char err[WR_ERRLEN] = "";
    if (!direct) return wr_context_synchronize(ctx[C_GPU]);
    return ops->synchronize(pst[C_GPU], err);
}

static void open_api(void)
{
    *(void **)&p_dot = dlsym(RTLD_DEFAULT, "wr_dot");
    *(void **)&p_nrm2 = dlsym(RTLD_DEFAULT, "wr_nrm2");
    *(void **)&p_asum = dlsym(RTLD_DEFAULT, "wr_asum");
    *(void **)&p_iamax = dlsym(RTLD_DEFAULT, "wr_argmax_abs");
    *(void **)&p_rows = dlsym(RTLD_DEFAULT, "wr_dot_rows");
    /* libwarpred exports them (WARPRED_0.2): a missing one fails the test */
    if (!(p_dot && p_nrm2 && p_asum && p_iamax && p_rows)) bail("libwarpred lacks a dot product or norm");
    direct = 0;
    {
        if (wr_context_create(&ctx[C_CPU], WR_BACKEND_CPU) != WR_SUCCESS ||
            wr_context_create(&ctx[C_GPU], WR_BACKEND_CUDA) != WR_SUCCESS)
            bail("contexts: %s", wr_context_error(NULL));
        setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
        if (wr_context_create(&ctx[C_SMALL], WR_BACKEND_CUDA) != WR_SUCCESS)
            bail("cuda context: %s", wr_context_error(NULL));
        unsetenv("WARPRED_CUDA_STAGING_BYTES");
        /* which operations the cpu backend runs: one element of each */
        double one = 1, r = 0;
        size_t i = 0;
        have_cpu[F_DOT] = p_dot(ctx[C_CPU], &one, &one, &r, 1, WR_DOUBLE) == WR_SUCCESS;
        have_cpu[F_NRM2] = p_nrm2(ctx[C_CPU], &one, &r, 1, WR_DOUBLE) == WR_SUCCESS;
        have_cpu[F_ASUM] = p_asum(ctx[C_CPU], &one, &r, 1, WR_DOUBLE) == WR_SUCCESS;
        have_cpu[F_IAMAX] = p_iamax(ctx[C_CPU], &one, 1, WR_DOUBLE, &i, &r) == WR_SUCCESS;
        have_cpu[F_ROWS] = p_rows(ctx[C_CPU], &one, &one, &r, 1, 1, WR_DOUBLE) == WR_SUCCESS;
        for (int f = 0; f < (int)(sizeof have_cpu / sizeof have_cpu[0]); f++)
            if (!have_cpu[f]) bail("the cpu backend refuses function %d: %s", f, wr_context_error(ctx[C_CPU]));
        return;
    }
    const char *dir = getenv("WARPRED_PLUGIN_DIR");
    char path[4096], err[WR_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/warpred_cuda.so", dir ? dir : ".");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) bail("%s", dlerror());
    ops = (const struct wr_backend_ops *)dlsym(h, WR_BACKEND_SYMBOL);
    if (ops == NULL || ops->abi != WR_BACKEND_ABI) bail("%s: no table of ABI %d", path, WR_BACKEND_ABI);
    if (ops->open(&pst[C_GPU], &host_api, err) != WR_SUCCESS) bail("open: %s", err);
    setenv("WARPRED_CUDA_STAGING_BYTES", "65536", 1);
    if (ops->open(&pst[C_SMALL], &host_api, err) != WR_SUCCESS) bail("open: %s", err);
    unsetenv("WARPRED_CUDA_STAGING_BYTES");
}

/* ---- references ------------------------------------------------------------------ */

static size_t es(wr_type t) { return t == WR_FLOAT ? 4 : 8; }
static double get(const void *p, wr_type t, size_t i)
{
    return t == WR_FLOAT ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* The exact results of reproducible mode (see the top), as bits. */
static uint64_t exact_dot(const void *x, const void *y, size_t n, wr_type t)
{
    wrx_acc a;
    wrx_init(&a);
    for (size_t i = 0; i < n; i++) {
        if (t == WR_FLOAT) {
            wrx_add(&a, get(x, t, i) * get(y, t, i));
        } else {
            const double xi = get(x, t, i), yi = get(y, t, i), hi = xi * yi;
            wrx_add(&a, hi);
            if (isfinite(hi)) wrx_add_value(&a, fma(xi, yi, -hi));
        }
    }
    return wrx_round_bits(&a, t == WR_DOUBLE);
}

static uint64_t exact_asum(const void *x, size_t n, wr_type t)
{
    wrx_acc a;
    wrx_init(&a);
    for (size_t i = 0; i < n; i++) wrx_add(&a, fabs(get(x, t, i)));
    return wrx_round_bits(&a, t == WR_DOUBLE);
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static uint64_t exact_nrm2(const void *x, size_t n, wr_type t)
{
    wrx_acc a[3];
    for (int p = 0; p < 3; p++) wrx_init(&a[p]);
    for (size_t i = 0; i < n; i++) {
        const double v = get(x, t, i);
        if (t == WR_FLOAT) {
            wrx_add(&a[1], v * v);               /* exact in double */
            continue;
        }
        const int p = wrx_norm_part(v);
        const double sv = wrx_norm_scaled(v, p), hi = sv * sv;
        wrx_add(&a[p], hi);
        if (isfinite(hi)) wrx_add_value(&a[p], fma(sv, sv, -hi));
    }
    return wrx_norm_round_bits(a, t == WR_DOUBLE);
}

/* fast-mode reference: the sum (long double) and the sum of magnitudes */
static void ld_ref(enum fn f, const void *x, const void *y, size_t n, wr_type t, long double *val, long double *mag)
{
    long double s = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        const long double a = get(x, t, i), b = f == F_DOT || f == F_ROWS ? get(y, t, i) : a;
        const long double p = f == F_ASUM ? fabsl(a) : a * b;
        s += p;
        m += fabsl(p);
    }
    *val = f == F_NRM2 ? sqrtl(s) : s;
    *mag = m;
}

static unsigned lg2(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n && k < 63) k++;
    return k;
}

/* Whether got (type t) is within the fast-mode bound of the reference. */
static int fast_ok(enum fn f, double got, long double val, long double mag, size_t n, wr_type t)
{
    const long double u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
    const long double k = (long double)(lg2(n) + 1024) * u;
    /* the reference rounded to T: a result beyond T's range is its infinity */
    const double vt = t == WR_FLOAT ? (double)(float)val : (double)val;
    if (isnan(vt) || isnan(got)) return isnan(vt) && isnan(got);
    if (isinf(vt) || isinf(got)) return got == vt;
    if (f == F_NRM2) {
        const long double tiny = t == WR_FLOAT ? 0x1p-149L : 0x1p-1074L;
        return fabsl((long double)got - val) <= k * val + tiny;
    }
    const long double tiny = (t == WR_FLOAT ? 0x1p-149L : 0x1p-1074L) * (long double)(n + 1);
    return fabsl((long double)got - val) <= k * mag + tiny + fabsl(val) * u;
}

/* ---- checking ---------------------------------------------------------------------- */

/* Failures per (function, type, mode), the first reason of each. */
static unsigned long fails[NF][2][2], runs[NF][2][2];
static char first[NF][2][2][300];

TAP_PRINTF(5, 6)
static void note(enum fn f, wr_type t, int repro, int good, const char *fmt, ...)
{
    const int ti = t == WR_DOUBLE;
    runs[f][ti][repro]++;
    if (good) return;
    if (fails[f][ti][repro]++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(first[f][ti][repro], sizeof first[f][ti][repro], fmt, ap);
        va_end(ap);
    }
}

static uint64_t elem_bits(const void *p, wr_type t, size_t i)
{
    uint64_t b = 0;
    memcpy(&b, (const char *)p + i * es(t), es(t));
    return b;
}

/* A residency combination: x, y, out (and index), and the context. */
struct combo { enum res rx, ry, ro; int same; };
static const struct combo combos[] = {
    { RES_DEVICE, RES_DEVICE, RES_DEVICE, 0 },
    { RES_MANAGED, RES_MANAGED, RES_MANAGED, 0 },
    { RES_PINNED, RES_PAGEABLE, RES_PAGEABLE, 0 },
    { RES_PAGEABLE, RES_DEVICE, RES_PINNED, 0 },
    { RES_DEVICE, RES_DEVICE, RES_PAGEABLE, 1 },
    { RES_PAGEABLE, RES_PAGEABLE, RES_DEVICE, 1 },
};
#define NCOMBO (sizeof combos / sizeof combos[0])
static int host_side(enum res r) { return r == RES_PINNED || r == RES_PAGEABLE; }

/* One call of f on host data (x, y; n elements, or n rows of cols) in
 * combination cb, in mode repro: its results against the references and
 * the cpu's. */
static void check_one(enum fn f, wr_type t, int repro, const void *hx, const void *hy, size_t n, size_t cols,
                      const struct combo *cb, const char *what, uint64_t *same_bits, int *have_same)
{
    const size_t nin = f == F_ROWS ? n * cols : n, nout = f == F_ROWS ? n : 1, e = es(t);
    const void *yh = cb->same ? hx : hy;
    void *x = res_alloc(cb->rx, nin * e + 16), *y = cb->same ? x : res_alloc(cb->ry, nin * e + 16);
    void *out = res_alloc(cb->ro, nout * e + 8), *idx = res_alloc(cb->ro, sizeof(size_t));
    void *got = malloc(nout * e + 8), *cg = malloc(nout * e + 8);
    size_t gi = 0, ci = 0;
    const int c = host_side(cb->rx) || host_side(cb->ry) || host_side(cb->ro) ? C_SMALL : C_GPU;
    if (nin) {
        res_put(cb->rx, x, hx, nin * e);
        if (!cb->same) res_put(cb->ry, y, yh, nin * e);
    }
    res_poison(cb->ro, out, nout * e, 0x5a);
    struct args a = { f, t, x, y, out, (size_t *)idx, n, cols };
    wr_status s = run(c, repro, &a);
    char tag[160];
    snprintf(tag, sizeof tag, "%s %s %s %s=%zu cols=%zu x:%s y:%s out:%s", what, repro ? "repro" : "fast",
             t == WR_FLOAT ? "float" : "double", f == F_ROWS ? "rows" : "n", n, cols, res_name[cb->rx],
             cb->same ? "=x" : res_name[cb->ry], res_name[cb->ro]);
    if (f == F_IAMAX && n == 0) {
        note(f, t, repro, s == WR_ERR_EMPTY, "%s: status %d, want WR_ERR_EMPTY", tag, (int)s);
        goto done;
    }
    if (s != WR_SUCCESS) {
        note(f, t, repro, 0, "%s: status %d", tag, (int)s);
        goto done;
    }
    res_get(cb->ro, got, out, nout * e);
    if (f == F_IAMAX) res_get(cb->ro, &gi, idx, sizeof gi);
    /* the cpu's */
    int cpu_ran = 0;
    if (!direct && have_cpu[f]) {
        struct args b = { f, t, hx, yh, cg, &ci, n, cols };
        cpu_ran = run(C_CPU, repro, &b) == WR_SUCCESS;
    }
    for (size_t r = 0; r < nout; r++) {
        const void *rx = (const char *)hx + r * cols * e, *ry = (const char *)yh + r * cols * e;
        const size_t m = f == F_ROWS ? cols : n;
        const uint64_t gb = elem_bits(got, t, r);
        char why[200] = "";
        if (f == F_IAMAX) {
            size_t want = 0;
            double best = fabs(get(hx, t, 0));
            for (size_t i = 1; i < n && !isnan(best); i++) {
                const double v = fabs(get(hx, t, i));
                if (isnan(v) || v > best) {
                    best = v;
                    want = i;
                }
            }
            if (gi != want || gb != elem_bits(hx, t, want))
                snprintf(why, sizeof why, "index %zu value %.17g, want %zu %.17g", gi, get(got, t, 0), want,
                         get(hx, t, want));
            else if (cpu_ran && (ci != gi || elem_bits(cg, t, 0) != gb))
                snprintf(why, sizeof why, "index %zu, the cpu's %zu", gi, ci);
        } else if (repro) {
            const uint64_t want = f == F_ASUM ? exact_asum(rx, m, t) : f == F_NRM2 ? exact_nrm2(rx, m, t)
                                                                     : exact_dot(rx, ry, m, t);
            if (gb != want)
                snprintf(why, sizeof why, "[%zu] %a (%#llx), want %a (%#llx)", r, get(got, t, r),
                         (unsigned long long)gb, t == WR_FLOAT ? (double)wrx_from_bits32((uint32_t)want)
                                                               : wrx_from_bits(want), (unsigned long long)want);
            else if (cpu_ran && elem_bits(cg, t, r) != gb)
                snprintf(why, sizeof why, "[%zu] %a, the cpu's %a", r, get(got, t, r), get(cg, t, r));
        } else {
            long double val, mag;
            ld_ref(f, rx, ry, m, t, &val, &mag);
            if (!fast_ok(f, get(got, t, r), val, mag, m, t))
                snprintf(why, sizeof why, "[%zu] %.17g, want %.17Lg (sum |terms| %.3Lg)", r, get(got, t, r), val,
                         mag);
            else if (cpu_ran && !fast_ok(f, get(cg, t, r), val, mag, m, t))
                snprintf(why, sizeof why, "[%zu] the cpu's %.17g is off, want %.17Lg", r, get(cg, t, r), val);
        }
        /* fast mode: the bits are a function of the count alone, the same
         * on every residency (of the same data: x == y is other data) */
        if (!why[0] && !repro && f != F_IAMAX && f != F_ROWS && same_bits && !cb->same) {
            if (*have_same && gb != *same_bits)
                snprintf(why, sizeof why, "%a, but %a on device memory", get(got, t, 0),
                         t == WR_FLOAT ? (double)wrx_from_bits32((uint32_t)*same_bits) : wrx_from_bits(*same_bits));
            *same_bits = gb;
            *have_same = 1;
        }
        /* a row's bits are wr_dot's on that row (the first and the last) */
        if (!why[0] && f == F_ROWS && (r == 0 || r + 1 == nout)) {
            void *o2 = res_alloc(cb->ro, 8);
            const char *xrow = (const char *)x + r * cols * e, *yrow = (const char *)y + r * cols * e;
            struct args b = { F_DOT, t, xrow, yrow, o2, NULL, cols, 0 };
            uint64_t db = 0;
            if (run(c, repro, &b) != WR_SUCCESS) {
                snprintf(why, sizeof why, "wr_dot on row %zu failed", r);
            } else {
                res_get(cb->ro, &db, o2, e);
                if (db != gb)
                    snprintf(why, sizeof why, "[%zu] %a, but wr_dot on the row %a", r, get(got, t, r),
                             t == WR_FLOAT ? (double)wrx_from_bits32((uint32_t)db) : wrx_from_bits(db));
            }
            res_free(cb->ro, o2);
        }
        if (why[0]) {
            note(f, t, repro, 0, "%s: %s", tag, why);
            goto done;
        }
    }
    note(f, t, repro, 1, "%s", "");
done:
    res_free(cb->rx, x);
    if (!cb->same) res_free(cb->ry, y);
    res_free(cb->ro, out);
    res_free(cb->ro, idx);
    free(got);
    free(cg);
}

/* Every function and mode on x, y: by default on device memory and on one
 * other combination in turn (host memory only up to a few dozen staging
 * chunks), rows of one or two column counts in turn; WR_TEST_LARGE=1:
 * every combination and column count.  (A sanitizer makes every call slow:
 * the count of calls is what keeps the test within a minute there.) */
static void check_all(const char *what, const void *hx, const void *hy, size_t n, wr_type t, unsigned fmask)
{
    static const size_t colsv[] = { 1, 3, 32, 1024, 10007, 70001 };
    const size_t ncols = sizeof colsv / sizeof colsv[0];
    static unsigned turn, cturn;
    const int large = test_large();
    for (int f = 0; f < NF; f++) {
        if (!(fmask & (1u << f))) continue;
        for (int repro = 0; repro < 2; repro++) {
            uint64_t same_bits = 0;
            int have_same = 0;
            for (size_t k = 0; k < NCOMBO; k++) {
                const struct combo *cb = &combos[k];
                const int host = host_side(cb->rx) || host_side(cb->ry);
                if (!large && k != 0 && k != 1 + turn % (NCOMBO - 1)) continue;
                if (!large && host && n * es(t) > ((size_t)2 << 20)) continue;
                if (f != F_ROWS) {
                    check_one((enum fn)f, t, repro, hx, hy, n, 0, cb, what, &same_bits, &have_same);
                    continue;
                }
                for (size_t q = 0; q < ncols; q++) {
                    if (!large && q != cturn % ncols && q != (cturn + 3) % ncols) continue;
                    const size_t cols = colsv[q], rows = n / cols;
                    if (rows == 0 && cols > 1) continue;
                    check_one(F_ROWS, t, repro, hx, hy, rows, cols, cb, what, NULL, NULL);
                }
            }
        }
    }
    turn++;
    cturn++;
}

/* ---- data -------------------------------------------------------------------------- */

static uint64_t seed = 2718281828u;
static double unit(void) { return (double)(rng_next(&seed) >> 11) * 0x1p-53; }
static void put(void *p, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}

#define ALL ((1u << NF) - 1)
#define LIN ((1u << F_DOT) | (1u << F_NRM2) | (1u << F_ASUM) | (1u << F_IAMAX))

static void cases(wr_type t, size_t maxn)
{
    const size_t sizes[] = { 0, 1, 7, 1000, ((size_t)1 << 16) + 3, ((size_t)1 << 20) + 5, ((size_t)1 << 23) + 1 };
    const size_t nsz = test_large() ? 7 : 6;
    void *x = malloc(sizes[6] * 8 + 64), *y = malloc(sizes[6] * 8 + 64);
    char what[80];
    for (size_t k = 0; k < nsz; k++) {
        const size_t n = sizes[k] < maxn ? sizes[k] : maxn;
        for (size_t i = 0; i < n; i++) {
            put(x, t, i, 2 * unit() - 1);
            put(y, t, i, 2 * unit() - 1);
        }
        snprintf(what, sizeof what, "random");
        check_all(what, x, y, n, t, ALL);
    }
    /* ill-conditioned dot products: big products that cancel in pairs
     * (x[i + h] = x[i], y[i + h] = -y[i]) and small ones between them;
     * condition up to ~1e30 */
    {
        const size_t n = 20000 < maxn ? 20000 : maxn, h = n / 2;
        for (size_t i = 0; i < h; i++) {
            const double big = ldexp(2 * unit() - 1, (int)(rng_next(&seed) % (t == WR_FLOAT ? 40 : 100)));
            put(x, t, i, big);
            put(y, t, i, ldexp(2 * unit() - 1, (int)(rng_next(&seed) % 20)));
            put(x, t, i + h, get(x, t, i));
            put(y, t, i + h, -get(y, t, i));
        }
        for (size_t i = 2 * h; i < n; i++) put(x, t, i, 1), put(y, t, i, 0x1p-30);
        for (size_t i = 0; i < h; i += 97) put(y, t, i + h, -get(y, t, i) * (1 + (t == WR_FLOAT ? 0x1p-20 : 0x1p-50)));
        check_all("ill-conditioned", x, y, n, t, (1u << F_DOT) | (1u << F_ROWS));
    }
    /* special values: NaN, infinities, -0, in a few places */
    {
        const size_t n = 5000 < maxn ? 5000 : maxn;
        static const double sp[] = { NAN, INFINITY, -INFINITY, -0.0 };
        for (int q = 0; q < 4 && n > 2; q++) {
            for (size_t i = 0; i < n; i++) {
                put(x, t, i, 2 * unit() - 1);
                put(y, t, i, 2 * unit() - 1);
            }
            put(x, t, n / 3, sp[q]);
            put(x, t, n - 1, sp[q]);
            if (q == 1) put(y, t, n / 2, -INFINITY);
            snprintf(what, sizeof what, "special %g", sp[q]);
            check_all(what, x, y, n, t, ALL);
        }
        /* every product -0: an exact zero of sign - in reproducible mode */
        for (size_t i = 0; i < n; i++) {
            put(x, t, i, -0.0);
            put(y, t, i, i % 2 ? 1.0 : 0.0);
        }
        put(y, t, 0, 2.0);
        check_all("all -0", x, y, n, t, ALL);
        /* infinity times zero, an overflowing product */
        for (size_t i = 0; i < n; i++) put(x, t, i, 1), put(y, t, i, 1);
        put(x, t, 5, INFINITY);
        put(y, t, 5, 0);
        check_all("inf*0", x, y, n, t, (1u << F_DOT));
        put(x, t, 5, t == WR_FLOAT ? 1e30 : 1e300);
        put(y, t, 5, t == WR_FLOAT ? 1e30 : 1e300);
        check_all("overflowing product", x, y, n, t, (1u << F_DOT));
    }
    /* norms of vectors with huge, tiny and subnormal elements */
    {
        const size_t n = 3000 < maxn ? 3000 : maxn;
        const double big = t == WR_FLOAT ? 1e30 : 1e300, small = t == WR_FLOAT ? 1e-30 : 1e-300;
        const double sub = t == WR_FLOAT ? 1e-40 : 4e-320;
        for (int q = 0; q < 5; q++) {
            for (size_t i = 0; i < n; i++) {
                const double u = 1 + unit();
                put(x, t, i, q == 0 ? big * u : q == 1 ? small * u : q == 2 ? (i % 2 ? big : small) * u
                             : q == 3 ? sub * u : (i % 3 ? 1.0 : small) * u);
                put(y, t, i, 2 * unit() - 1);
            }
            static const char *const nm[] = { "huge", "tiny", "huge and tiny", "subnormal", "ones and tiny" };
            check_all(nm[q], x, y, n, t, LIN);
        }
    }
    free(x);
    free(y);
}

/* ---- streams and graphs ------------------------------------------------------------ */

/* Every function (double, n elements; rows of 32) queued on a stream, and
 * captured in a graph launched twice with new data between: the
 * references' results. */
static void check_queued(int graph, size_t n)
{
    const wr_type t = WR_DOUBLE;
    double *hx = malloc(n * 8), *hy = malloc(n * 8), *hout = malloc((n / 32 + 8) * 8);
    double *x, *y, *out;
    size_t *idx, hidx = 0;
    cudaStream_t s;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    int bad = 0;
    char why[300] = "";
    GPU_CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    GPU_CK(cudaMalloc((void **)&x, n * 8));
    GPU_CK(cudaMalloc((void **)&y, n * 8));
    GPU_CK(cudaMalloc((void **)&out, (n / 32 + 16) * 8));
    GPU_CK(cudaMalloc((void **)&idx, sizeof(size_t)));
    if (set_stream(s) != WR_SUCCESS) bail("set_stream failed");
    for (int round = 0; round < 2 && !bad; round++) {
        for (size_t i = 0; i < n; i++) {
            hx[i] = (2 * unit() - 1) * (round ? 1e300 : 1);    /* round 1: the norm's scaled pass */
            hy[i] = 2 * unit() - 1;
        }
        GPU_CK(cudaMemcpyAsync(x, hx, n * 8, cudaMemcpyHostToDevice, s));
        GPU_CK(cudaMemcpyAsync(y, hy, n * 8, cudaMemcpyHostToDevice, s));
        if (!graph || round == 0) {
            if (graph) GPU_CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
            const struct args calls[] = {
                { F_DOT, t, x, y, out + 0, NULL, n, 0 },  { F_DOT, t, x, y, out + 1, NULL, n, 0 },
                { F_NRM2, t, x, NULL, out + 2, NULL, n, 0 }, { F_NRM2, t, x, NULL, out + 3, NULL, n, 0 },
                { F_ASUM, t, x, NULL, out + 4, NULL, n, 0 }, { F_ASUM, t, x, NULL, out + 5, NULL, n, 0 },
                { F_IAMAX, t, x, NULL, out + 6, idx, n, 0 }, { F_ROWS, t, x, y, out + 8, NULL, n / 32, 32 },
            };
            for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++)
                if (run(C_GPU, (int)(k % 2), &calls[k]) != WR_SUCCESS) {
                    snprintf(why, sizeof why, "%s call %zu failed", graph ? "captured" : "queued", k);
                    bad = 1;
                }
            if (graph) {
                GPU_CK(cudaStreamEndCapture(s, &g));
                GPU_CK(cudaGraphInstantiate(&ge, g, 0));
            }
        }
        if (bad) break;
        if (graph) GPU_CK(cudaGraphLaunch(ge, s));
        if (sync_gpu() != WR_SUCCESS) bail("synchronize failed");
        GPU_CK(cudaStreamSynchronize(s));
        GPU_CK(cudaMemcpy(hout, out, (n / 32 + 8) * 8, cudaMemcpyDeviceToHost));
        GPU_CK(cudaMemcpy(&hidx, idx, sizeof hidx, cudaMemcpyDeviceToHost));
        long double val, mag;
        ld_ref(F_DOT, hx, hy, n, t, &val, &mag);
        if (!fast_ok(F_DOT, hout[0], val, mag, n, t)) snprintf(why, sizeof why, "dot %.17g want %.17Lg", hout[0], val);
        if (bits_of(hout[1]) != exact_dot(hx, hy, n, t)) snprintf(why, sizeof why, "exact dot %a", hout[1]);
        ld_ref(F_NRM2, hx, hx, n, t, &val, &mag);
        if (!fast_ok(F_NRM2, hout[2], val, mag, n, t)) snprintf(why, sizeof why, "nrm2 %.17g want %.17Lg", hout[2], val);
        if (bits_of(hout[3]) != exact_nrm2(hx, n, t))
            snprintf(why, sizeof why, "exact nrm2 %a want %a", hout[3], wrx_from_bits(exact_nrm2(hx, n, t)));
        ld_ref(F_ASUM, hx, hx, n, t, &val, &mag);
        if (!fast_ok(F_ASUM, hout[4], val, mag, n, t)) snprintf(why, sizeof why, "asum %.17g", hout[4]);
        if (bits_of(hout[5]) != exact_asum(hx, n, t)) snprintf(why, sizeof why, "exact asum %a", hout[5]);
        {
            size_t want = 0;
            for (size_t i = 1; i < n; i++)
                if (fabs(hx[i]) > fabs(hx[want])) want = i;
            if (hidx != want || hout[6] != hx[want]) snprintf(why, sizeof why, "iamax %zu want %zu", hidx, want);
        }
        for (size_t r = 0; r < n / 32; r++)
            if (bits_of(hout[8 + r]) != exact_dot(hx + r * 32, hy + r * 32, 32, t)) {
                snprintf(why, sizeof why, "exact dot_rows[%zu] %a", r, hout[8 + r]);
                break;
            }
        if (why[0]) bad = 1;
    }
    ok(!bad, "every function %s %s%s", graph ? "captured in a graph, launched twice," : "queued on a stream",
       bad ? ": " : "", why);
    if (set_stream(NULL) != WR_SUCCESS) bail("set_stream(NULL) failed");
    if (ge) cudaGraphExecDestroy(ge);
    if (g) cudaGraphDestroy(g);
    cudaFree(x);
    cudaFree(y);
    cudaFree(out);
    cudaFree(idx);
    cudaStreamDestroy(s);
    free(hx);
    free(hy);
    free(hout);
}

/* The exact partials (public mode): wr_dot_exact, wr_asum_exact and
 * wr_nrm2_exact on the cuda contexts, rounded, give the reproducible
 * results of the references and the cpu's; double norms with elements of
 * all three parts. */
static void check_partials(void)
{
    wr_status (*dx)(wr_context *, const void *, const void *, size_t, wr_type, wr_exact_sum *);
    wr_status (*ax)(wr_context *, const void *, size_t, wr_type, wr_exact_sum *);
    wr_status (*nx)(wr_context *, const void *, size_t, wr_type, wr_exact_sum *);
    wr_status (*nr)(const wr_exact_sum *, wr_type, void *);
    *(void **)&dx = dlsym(RTLD_DEFAULT, "wr_dot_exact");
    *(void **)&ax = dlsym(RTLD_DEFAULT, "wr_asum_exact");
    *(void **)&nx = dlsym(RTLD_DEFAULT, "wr_nrm2_exact");
    *(void **)&nr = dlsym(RTLD_DEFAULT, "wr_exact_norm_round");
    if (!dx || !ax || !nx || !nr) bail("libwarpred lacks the exact partials of the dot products");
    char why[300] = "";
    const size_t ns[] = { 1000, ((size_t)1 << 16) + 3 };
    for (int ti = 0; ti < 2 && !why[0]; ti++)
        for (size_t k = 0; k < 2 && !why[0]; k++)
            for (int r = 0; r < 2 && !why[0]; r++) {
                const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
                const enum res rs = r ? RES_PAGEABLE : RES_DEVICE;
                const size_t n = ns[k], e = es(t);
                void *hx = malloc(n * e), *hy = malloc(n * e);
                for (size_t i = 0; i < n; i++) {
                    put(hx, t, i, (2 * unit() - 1) * (ti && i % 97 == 3 ? 1e300 : ti && i % 89 == 5 ? 1e-300 : 1));
                    put(hy, t, i, 2 * unit() - 1);
                }
                void *x = res_alloc(rs, n * e), *y = res_alloc(rs, n * e);
                res_put(rs, x, hx, n * e);
                res_put(rs, y, hy, n * e);
                wr_context *g = ctx[r ? C_SMALL : C_GPU];
                wr_exact_sum sd, sa, sn[3], cd, ca, cn[3];
                wr_exact_sum_init(&sd);
                wr_exact_sum_init(&sa);
                wr_exact_sum_init(&cd);
                wr_exact_sum_init(&ca);
                for (int q = 0; q < 3; q++) wr_exact_sum_init(&sn[q]), wr_exact_sum_init(&cn[q]);
                uint64_t vd = 0, va = 0, vn = 0, wd = 0, wa = 0, wn = 0;
                if (dx(g, x, y, n, t, &sd) || ax(g, x, n, t, &sa) || nx(g, x, n, t, sn) ||
                    dx(ctx[C_CPU], hx, hy, n, t, &cd) || ax(ctx[C_CPU], hx, n, t, &ca) ||
                    nx(ctx[C_CPU], hx, n, t, cn)) {
                    snprintf(why, sizeof why, "a call failed: %s / %s", wr_context_error(g),
                             wr_context_error(ctx[C_CPU]));
                } else {
                    wr_exact_sum_round(&sd, t, &vd);
                    wr_exact_sum_round(&sa, t, &va);
                    nr(sn, t, &vn);
                    wr_exact_sum_round(&cd, t, &wd);
                    wr_exact_sum_round(&ca, t, &wa);
                    nr(cn, t, &wn);
                    if (vd != exact_dot(hx, hy, n, t) || vd != wd)
                        snprintf(why, sizeof why, "dot_exact %s n=%zu %s: %#llx, cpu %#llx", type_name[t], n,
                                 res_name[rs], (unsigned long long)vd, (unsigned long long)wd);
                    else if (va != exact_asum(hx, n, t) || va != wa)
                        snprintf(why, sizeof why, "asum_exact %s n=%zu %s", type_name[t], n, res_name[rs]);
                    else if (vn != exact_nrm2(hx, n, t) || vn != wn)
                        snprintf(why, sizeof why, "nrm2_exact %s n=%zu %s: %#llx, cpu %#llx, want %#llx",
                                 type_name[t], n, res_name[rs], (unsigned long long)vn, (unsigned long long)wn,
                                 (unsigned long long)exact_nrm2(hx, n, t));
                }
                res_free(rs, x);
                res_free(rs, y);
                free(hx);
                free(hy);
            }
    ok(!why[0], "exact partials (wr_dot_exact, wr_asum_exact, wr_nrm2_exact)%s%s", why[0] ? ": " : "", why);
}

int main(void)
{
    gpu_require();
    open_api();
    plan(NF * 2 * 2 + 3);
    if (direct) diag("libwarpred has no wr_dot yet: calling the plugin's table (references only)");
    else
        for (int f = 0; f < NF; f++)
            if (!have_cpu[f]) diag("the cpu backend does not run %s: references only", fn_name[f]);
    const size_t maxn = test_max_n((size_t)1 << 30);
    for (int ti = 0; ti < 2; ti++) {
        const double t0 = test_elapsed();
        cases(ti ? WR_DOUBLE : WR_FLOAT, maxn);
        diag("%s: %.1f s", ti ? "doubles" : "floats", test_elapsed() - t0);
    }
    for (int f = 0; f < NF; f++)
        for (int ti = 0; ti < 2; ti++)
            for (int repro = 0; repro < 2; repro++)
                ok(fails[f][ti][repro] == 0, "%s %s %s: %lu of %lu calls wrong%s%s", fn_name[f],
                   ti ? "double" : "float", repro ? "reproducible" : "fast", fails[f][ti][repro],
                   runs[f][ti][repro], fails[f][ti][repro] ? "; first: " : "", first[f][ti][repro]);
    const size_t qn = ((size_t)1 << 18) + 32 * 7 < maxn ? ((size_t)1 << 18) + 32 * 7 : maxn;
    check_queued(0, qn);
    check_queued(1, qn);
    check_partials();
    return 0;
}

/*
 * bench_omp.c -- warpred-bench --backend omptarget: the omptarget backend
 * against the OpenMP-offload loops a programmer would write, compiled by
 * the same compiler in the same run, on the same device arrays; and the
 * OpenMP-offload hybrid (the program's own loop on its mapped array against
 * libwarpred's cuda backend on the device copy).
 *
 * Arrays are host arrays mapped with `target enter data` (the program's
 * usual way); the OpenMP loops get their device addresses (use_device_ptr,
 * then is_device_ptr), the omptarget backend the mapped host addresses (it
 * finds the device copy), the cuda backend the device addresses.  Every
 * call is synchronous and timed on the host clock (median of --reps after
 * --warmup).  Rows (section "omptarget"):
 *   reduce f32/f64 SUM  omp reduction (the plain `target teams distribute
 *                       parallel for reduction(+:s)`), its hand-tuned
 *                       forms (simd; simd with 4 sums per iteration; teams
 *                       over chunks with a `parallel for simd` inside and a
 *                       per-team partial array), then libwarpred on
 *                       omptarget and on cuda;
 *   scan f32/f64 SUM    a plain OpenMP chunked scan (chunk sums by
 *                       reduction, their scan on one thread, a sequential
 *                       scan per chunk), libwarpred on omptarget and cuda;
 *   rows f32 SUM        the plain `target teams distribute` over rows with
 *                       an inner `parallel for simd reduction(+:s)`, then
 *                       libwarpred, for 32, 1024 and 32768 columns on
 *                       2^25 elements (or the largest --sizes below that);
 * and a summary of the targets from this run.  The launch geometry
 * the runtime chose (teams x threads per team) is printed first.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "bench.h"
#include "bench_omp.h"

/* ---- the OpenMP loops ----------------------------------------------------------- */

#define PLAIN_SUM(T, name)                                                          \
    static double name##_plain(const T *x, size_t n)                               \
    {                                                                              \
        T s = 0;                                                                   \
        _Pragma("omp target teams distribute parallel for reduction(+: s) map(tofrom: s) is_device_ptr(x)") \
        for (size_t i = 0; i < n; i++) s += x[i];                                  \
        return (double)s;                                                          \
    }                                                                              \
    static double name##_simd(const T *x, size_t n)                                \
    {                                                                              \
        T s = 0;                                                                   \
        _Pragma("omp target teams distribute parallel for simd reduction(+: s) map(tofrom: s) is_device_ptr(x)") \
        for (size_t i = 0; i < n; i++) s += x[i];                                  \
        return (double)s;                                                          \
    }                                                                              \
    /* four independent loads per iteration, each iteration's quarter of the */    \
    /* array coalesced with its neighbours' */                                     \
    static double name##_simd4(const T *x, size_t n)                               \
    {                                                                              \
        T s = 0;                                                                   \
        const size_t q = n / 4;                                                    \
        _Pragma("omp target teams distribute parallel for simd reduction(+: s) map(tofrom: s) is_device_ptr(x)") \
        for (size_t i = 0; i < q; i++) s += (x[i] + x[i + q]) + (x[i + 2 * q] + x[i + 3 * q]); \
        for (size_t i = 4 * q; i < n; i++) s += x[i];                              \
        return (double)s;                                                          \
    }                                                                              \
    /* teams over chunks, `parallel for simd` lanes inside, a per-team partial */  \
    /* array, and a second pass: the library's structure in its plainest form */   \
    static double name##_teams(const T *x, size_t n, T *part, size_t nchunk)       \
    {                                                                              \
        const size_t ch = (n + nchunk - 1) / nchunk;                               \
        T s = 0;                                                                   \
        _Pragma("omp target teams distribute is_device_ptr(x, part)")              \
        for (size_t c = 0; c < nchunk; c++) {                                      \
            T lane[256];                                                           \
            const size_t a = c * ch, e = a + ch < n ? a + ch : n;                  \
            _Pragma("omp parallel for simd")                                       \
            for (int l = 0; l < 256; l++) {                                        \
                T v = 0;                                                           \
                for (size_t i = a + (size_t)l; i < e; i += 256) v += x[i];         \
                lane[l] = v;                                                       \
            }                                                                      \
            T t = 0;                                                               \
            for (int l = 0; l < 256; l++) t += lane[l];                            \
            part[c] = t;                                                           \
        }                                                                          \
        _Pragma("omp target teams distribute parallel for simd reduction(+: s) map(tofrom: s) is_device_ptr(part)") \
        for (size_t c = 0; c < nchunk; c++) s += part[c];                          \
        return (double)s;                                                          \
    }                                                                              \
    /* plain scan: chunk sums (reduction), their exclusive scan on one thread, */ \
    /* then each chunk scanned in turn by one thread */                            \
    static void name##_scan(const T *x, T *y, size_t n, T *part, size_t nchunk)    \
    {                                                                              \
        const size_t ch = (n + nchunk - 1) / nchunk;                               \
        _Pragma("omp target teams distribute is_device_ptr(x, part)")              \
        for (size_t c = 0; c < nchunk; c++) {                                      \
            T t = 0;                                                               \
            const size_t a = c * ch, e = a + ch < n ? a + ch : n;                  \
            _Pragma("omp parallel for simd reduction(+: t)")                       \
            for (size_t i = a; i < e; i++) t += x[i];                              \
            part[c] = t;                                                           \
        }                                                                          \
        _Pragma("omp target is_device_ptr(part)")                                  \
        {                                                                          \
            T run = 0;                                                             \
            for (size_t c = 0; c < nchunk; c++) { T v = part[c]; part[c] = run; run += v; } \
        }                                                                          \
        _Pragma("omp target teams distribute parallel for is_device_ptr(x, y, part)") \
        for (size_t c = 0; c < nchunk; c++) {                                      \
            T run = part[c];                                                       \
            const size_t a = c * ch, e = a + ch < n ? a + ch : n;                  \
            for (size_t i = a; i < e; i++) { run += x[i]; y[i] = run; }            \
        }                                                                          \
    }                                                                              \
    static void name##_rows(const T *x, T *y, size_t rows, size_t cols)            \
    {                                                                              \
        _Pragma("omp target teams distribute is_device_ptr(x, y)")                 \
        for (size_t r = 0; r < rows; r++) {                                        \
            T s = 0;                                                               \
            _Pragma("omp parallel for simd reduction(+: s)")                       \
            for (size_t c = 0; c < cols; c++) s += x[r * cols + c];                \
            y[r] = s;                                                              \
        }                                                                          \
    }
PLAIN_SUM(float, f32)
PLAIN_SUM(double, f64)

/* Teams and threads per team the runtime launches for the plain loops. */
static void geometry(int simd, int *teams, int *threads)
{
    int t = 0, h = 0;
    if (simd) {
#pragma omp target teams distribute parallel for simd map(tofrom: t, h)
        for (int i = 0; i < 1 << 20; i++)
            if (i == 0) { t = omp_get_num_teams(); h = omp_get_num_threads(); }
    } else {
#pragma omp target teams distribute parallel for map(tofrom: t, h)
        for (int i = 0; i < 1 << 20; i++)
            if (i == 0) { t = omp_get_num_teams(); h = omp_get_num_threads(); }
    }
    *teams = t;
    *threads = h;
}

/* ---- measurement ----------------------------------------------------------------- */

enum kind { K_PLAIN, K_SIMD, K_SIMD4, K_TEAMS, K_SCAN, K_ROWS, K_WR };

struct mcall {
    enum kind k;
    wr_type t;
    const void *dx;          /* device address of the input */
    void *dy;                /* device address of the output array */
    void *part;              /* device scratch */
    size_t n, nchunk, rows, cols;
    double result;
    /* K_WR */
    wr_context *ctx;
    enum bench_func f;
    const void *in;
    void *out;
};

static int mcall_run(void *arg, char *err)
{
    struct mcall *m = arg;
    const int f = m->t == WR_FLOAT;
    wr_status st = WR_SUCCESS;
    switch (m->k) {
    case K_PLAIN: m->result = f ? f32_plain(m->dx, m->n) : f64_plain(m->dx, m->n); break;
    case K_SIMD:  m->result = f ? f32_simd(m->dx, m->n) : f64_simd(m->dx, m->n); break;
    case K_SIMD4: m->result = f ? f32_simd4(m->dx, m->n) : f64_simd4(m->dx, m->n); break;
    case K_TEAMS: m->result = f ? f32_teams(m->dx, m->n, m->part, m->nchunk) : f64_teams(m->dx, m->n, m->part, m->nchunk); break;
    case K_SCAN:
        if (f) f32_scan(m->dx, m->dy, m->n, m->part, m->nchunk);
        else f64_scan(m->dx, m->dy, m->n, m->part, m->nchunk);
        break;
    case K_ROWS:
        if (f) f32_rows(m->dx, m->dy, m->rows, m->cols);
        else f64_rows(m->dx, m->dy, m->rows, m->cols);
        break;
    case K_WR:
        switch (m->f) {
        case BF_REDUCE: st = wr_reduce(m->ctx, m->in, m->out, m->n, m->t, WR_SUM); break;
        case BF_SCAN:   st = wr_scan(m->ctx, m->in, m->out, m->n, m->t, WR_SUM); break;
        case BF_ROWS:   st = wr_reduce_rows(m->ctx, m->in, m->out, m->rows, m->cols, m->t, WR_SUM); break;
        default: break;
        }
        break;
    }
    if (st == WR_SUCCESS) return 0;
    snprintf(err, WR_BENCH_ERRLEN, "%s: %s", wr_status_string(st), wr_context_error(m->ctx));
    return -1;
}

/* What the summary needs: GB/s of each measured row by label. */
struct res {
    char label[48];
    wr_type t;
    size_t n, cols;
    double gbps;
};
static struct res results[256];
static int nresults;

static double find(const char *label, wr_type t, size_t n, size_t cols)
{
    int i;
    for (i = 0; i < nresults; i++)
        if (strcmp(results[i].label, label) == 0 && results[i].t == t && results[i].n == n && results[i].cols == cols)
            return results[i].gbps;
    return 0;
}

static int failures;

/* Time m, check the output (h_in: the host input; dev_out: the device array
 * to fetch into h_out first, or NULL), emit a row; returns the median time.
 * Only libwarpred's rows count as failures: a plain loop outside DESIGN.md's
 * float bound is a property of the loop, reported in the check column. */
static double measure(const struct bomp_opts *o, struct mcall *m, const char *backend, const char *label,
                    const struct bench_cell *c, const void *h_in, void *h_out, const void *dev_out,
                    double ref_time, const char *ref_name)
{
    struct bench_row row;
    char err[WR_BENCH_ERRLEN] = "", msg[200];
    bench_row_init(&row, "omptarget");
    snprintf(row.backend, sizeof row.backend, "%s", backend);
    snprintf(row.name, sizeof row.name, "%s", label);
    row.type = bench_type_name(c->type);
    row.op = "sum";
    row.n = c->n;
    if (c->func == BF_ROWS) snprintf(row.param, sizeof row.param, "cols=%zu", c->cols);
    row.bytes = bench_cell_bytes(c);
    if (ref_time > 0) {
        snprintf(row.ref_name, sizeof row.ref_name, "%s", ref_name);
        row.ref_time = ref_time;
    }
    if (bench_time_host(mcall_run, m, o->warmup, o->reps, &row.t, err) != 0) {
        bench_check_set(&row, "ERROR %s", err);
        row.failed = 1;
    } else if (!o->check) {
        strcpy(row.check, "unchecked");
    } else {
        size_t bytes = bench_out_count(c) * wr_type_size(c->type);
        const void *res = h_out;
        double one = m->result;
        unsigned char val[8];
        if (m->k == K_PLAIN || m->k == K_SIMD || m->k == K_SIMD4 || m->k == K_TEAMS) {
            if (c->type == WR_FLOAT) { float v = (float)one; memcpy(val, &v, 4); }
            else memcpy(val, &one, 8);
            res = val;
        } else if (dev_out != NULL) {
            omp_target_memcpy(h_out, (void *)(uintptr_t)dev_out, bytes, 0, 0, omp_get_initial_device(),
                              omp_get_default_device());
        }
        if (bench_verify(c, h_in, res, 0, NULL, msg, sizeof msg) != 0) {
            if (m->k == K_WR) {
                bench_check_set(&row, "FAIL %s", msg);
                row.failed = 1;
            } else {
                bench_check_set(&row, "inexact: %s", msg);
            }
        } else {
            strcpy(row.check, "ok");
        }
    }
    failures += row.failed;
    bench_emit(&row);
    if (nresults < (int)(sizeof results / sizeof results[0]) && row.t.med > 0) {
        struct res *r = &results[nresults++];
        snprintf(r->label, sizeof r->label, "%s/%s", backend, label);
        r->t = c->type;
        r->n = c->n;
        r->cols = c->func == BF_ROWS ? c->cols : 0;
        r->gbps = row.bytes / row.t.med * 1e-9;
    }
    return row.t.med;
}

/* The device address of mapped host memory. */
static void *dev_addr(void *p)
{
    char *q = p, *r = NULL;
#pragma omp target data use_device_ptr(q)
    r = q;
    return r;
}

/* An OPENMP_TARGET context; from the build tree, its plugin is in omp/.libs. */
static wr_context *omp_context(char *why, size_t len)
{
    wr_context *c = NULL;
    if (wr_context_create(&c, WR_BACKEND_OPENMP_TARGET) == WR_SUCCESS) return c;
#ifdef WR_BENCH_BUILDDIR
    {
        const char *old = getenv("WARPRED_PLUGIN_DIR");
        char *keep = old ? strdup(old) : NULL;
        setenv("WARPRED_PLUGIN_DIR", WR_BENCH_BUILDDIR "/omp/.libs", 1);
        if (wr_context_create(&c, WR_BACKEND_OPENMP_TARGET) != WR_SUCCESS) c = NULL;
        if (keep) { setenv("WARPRED_PLUGIN_DIR", keep, 1); free(keep); }
        else unsetenv("WARPRED_PLUGIN_DIR");
        if (c) return c;
    }
#endif
    snprintf(why, len, "%s", wr_context_error(NULL));
    return NULL;
}

static void summary(const struct bomp_opts *o, size_t rows_n)
{
    size_t n = 0;
    int i;
    static const size_t cols[3] = { 32, 1024, 32768 };
    for (i = 0; i < o->nsizes; i++) if (o->sizes[i] > n) n = o->sizes[i];
    bench_note("\nomptarget targets (issue #19; GB/s ratios of this run, n = %zu):", n);
    for (i = 0; i < 2; i++) {
        const wr_type t = i ? WR_DOUBLE : WR_FLOAT;
        const double lib = find("omptarget/wr_reduce", t, n, 0), cu = find("cuda/wr_reduce", t, n, 0);
        double best = 0, v;
        const char *names[4] = { "omp/reduction", "omp/reduction simd", "omp/reduction simd x4", "omp/teams+partials" };
        const char *bname = "-";
        int k;
        for (k = 0; k < 4; k++)
            if ((v = find(names[k], t, n, 0)) > best) { best = v; bname = names[k]; }
        bench_note("  reduce %s sum: omptarget %.1f GB/s / best plain (%s) %.1f GB/s = %.2fx (goal >= 2.0)%s",
                   bench_type_name(t), lib, bname, best, best > 0 ? lib / best : 0, "");
        if (cu > 0) bench_note("      cuda backend %.1f GB/s: omptarget / cuda = %.2fx", cu, lib / cu);
    }
    {
        const double sc = find("omptarget/wr_scan", WR_FLOAT, n, 0), rd = find("omptarget/wr_reduce", WR_FLOAT, n, 0);
        bench_note("  scan f32 sum: omptarget %.1f GB/s / its reduce %.1f GB/s = %.2fx (goal >= 0.5); "
                   "in elements/s %.2fx", sc, rd, rd > 0 ? sc / rd : 0, rd > 0 ? sc / rd / 2 : 0);
    }
    for (i = 0; i < 3; i++) {
        const double lib = find("omptarget/wr_reduce_rows", WR_FLOAT, rows_n, cols[i]);
        const double pl = find("omp/teams distribute rows", WR_FLOAT, rows_n, cols[i]);
        bench_note("  rows f32 x%zu (n = %zu): omptarget %.1f GB/s / plain %.1f GB/s = %.2fx (goal >= 2.0)", cols[i],
                   rows_n, lib, pl, pl > 0 ? lib / pl : 0);
    }
    {
        const double pl = find("omp/reduction", WR_FLOAT, n, 0), cu = find("cuda/wr_reduce", WR_FLOAT, n, 0);
        const double cs = find("cuda/wr_scan", WR_FLOAT, n, 0), ps = find("omp/chunked scan", WR_FLOAT, n, 0);
        if (cu > 0)
            bench_note("  hybrid (issue #18): wr_reduce on cuda, the mapped array's device copy: %.1f GB/s = %.2fx the "
                       "program's own reduction(+:s); wr_scan on cuda %.1f GB/s = %.2fx its plain chunked scan",
                       cu, pl > 0 ? cu / pl : 0, cs, ps > 0 ? cs / ps : 0);
        else
            bench_note("  hybrid (issue #18): no cuda backend in this run");
    }
}

int bomp_table(const struct bomp_opts *o, wr_context *cuda)
{
    wr_context *ompc;
    char why[WR_BENCH_ERRLEN];
    size_t n_max = 0, rows_n, nb, i;
    int si, ti, teams, threads;
    char *hx, *hy, *hout;           /* host arrays (mapped), sized for doubles */
    char *dx, *dy;
    void *part;
    const size_t nchunk = 65536;

    ompc = omp_context(why, sizeof why);
    if (ompc == NULL) {
        bench_note("\nomptarget: no omptarget backend (%s); table skipped", why);
        return 1;
    }
    bench_note("\nomptarget: %s", wr_context_describe(ompc));
    bench_note("offload devices: %d (default %d)%s", omp_get_num_devices(), omp_get_default_device(),
               omp_get_num_devices() ? "" : ": target regions run on the host");
    geometry(0, &teams, &threads);
    bench_note("launched by `target teams distribute parallel for`: %d teams x %d threads", teams, threads);
    geometry(1, &teams, &threads);
    bench_note("launched by `target teams distribute parallel for simd`: %d teams x %d threads "
               "(GCC on nvptx: a thread is a warp, simd lanes are its 32 threads)", teams, threads);

    for (si = 0; si < o->nsizes; si++) if (o->sizes[si] > n_max) n_max = o->sizes[si];
    rows_n = n_max < ((size_t)1 << 25) ? n_max : (size_t)1 << 25;
    hx = malloc(n_max * 8);
    hy = malloc(n_max * 8);
    hout = malloc(n_max * 8);
    part = omp_target_alloc(nchunk * 8, omp_get_default_device());
    if (!hx || !hy || !hout || !part || n_max == 0) {
        bench_note("omptarget: cannot allocate 3 x %zu bytes; table skipped", n_max * 8);
        free(hx); free(hy); free(hout);
        wr_context_destroy(ompc);
        return 1;
    }
    nb = n_max * 8;
#pragma omp target enter data map(alloc: hx[0:nb], hy[0:nb])
    dx = dev_addr(hx);
    dy = dev_addr(hy);

    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        const size_t es = wr_type_size(t);
        for (si = 0; si < o->nsizes; si++) {
            const size_t n = o->sizes[si];
            struct bench_cell c;
            struct mcall m;
            double plain_time;
            const size_t b = n * es;
            if (n == 0) continue;
            bench_progress("omptarget %s n=%zu", bench_type_name(t), n);
            bench_fill(hx, t, n, DATA_GENERAL, 0x5eed + n + ti);
#pragma omp target update to(hx[0:b])
            memset(&c, 0, sizeof c);
            c.func = BF_REDUCE;
            c.type = t;
            c.op = WR_SUM;
            c.n = n;
            memset(&m, 0, sizeof m);
            m.t = t;
            m.dx = dx;
            m.n = n;
            m.part = part;
            m.nchunk = n / 4096 + 1 < nchunk ? n / 4096 + 1 : nchunk;
            m.k = K_PLAIN;
            plain_time = measure(o, &m, "omp", "reduction", &c, hx, NULL, NULL, 0, "");
            m.k = K_SIMD;
            measure(o, &m, "omp", "reduction simd", &c, hx, NULL, NULL, plain_time, "omp reduction");
            m.k = K_SIMD4;
            measure(o, &m, "omp", "reduction simd x4", &c, hx, NULL, NULL, plain_time, "omp reduction");
            m.k = K_TEAMS;
            measure(o, &m, "omp", "teams+partials", &c, hx, NULL, NULL, plain_time, "omp reduction");
            m.k = K_WR;
            m.f = BF_REDUCE;
            m.ctx = ompc;
            m.in = hx;                 /* mapped: the backend finds the device copy */
            m.out = hout;
            measure(o, &m, "omptarget", "wr_reduce", &c, hx, hout, NULL, plain_time, "omp reduction");
            if (cuda) {
                m.ctx = cuda;
                m.in = dx;             /* the device copy */
                measure(o, &m, "cuda", "wr_reduce", &c, hx, hout, NULL, plain_time, "omp reduction");
            }

            /* scans: out to the second mapped array */
            c.func = BF_SCAN;
            memset(&m, 0, sizeof m);
            m.t = t;
            m.dx = dx;
            m.dy = dy;
            m.n = n;
            m.part = part;
            m.nchunk = n / 4096 + 1 < nchunk ? n / 4096 + 1 : nchunk;
            m.k = K_SCAN;
            plain_time = measure(o, &m, "omp", "chunked scan", &c, hx, hout, dy, 0, "");
            m.k = K_WR;
            m.f = BF_SCAN;
            m.ctx = ompc;
            m.in = hx;
            m.out = hy;
            measure(o, &m, "omptarget", "wr_scan", &c, hx, hout, dy, plain_time, "omp chunked scan");
            if (cuda) {
                m.ctx = cuda;
                m.in = dx;
                m.out = dy;
                measure(o, &m, "cuda", "wr_scan", &c, hx, hout, dy, plain_time, "omp chunked scan");
            }
        }
    }

    /* rows, f32 */
    {
        static const size_t cols[3] = { 32, 1024, 32768 };
        const size_t b = rows_n * 4;
        bench_fill(hx, WR_FLOAT, rows_n, DATA_GENERAL, 0x5eed);
#pragma omp target update to(hx[0:b])
        for (i = 0; i < 3; i++) {
            struct bench_cell c;
            struct mcall m;
            double plain_time;
            if (cols[i] > rows_n) continue;
            memset(&c, 0, sizeof c);
            c.func = BF_ROWS;
            c.type = WR_FLOAT;
            c.op = WR_SUM;
            c.n = rows_n;
            c.cols = cols[i];
            c.rows = rows_n / cols[i];
            memset(&m, 0, sizeof m);
            m.t = WR_FLOAT;
            m.dx = dx;
            m.dy = dy;
            m.rows = c.rows;
            m.cols = c.cols;
            m.k = K_ROWS;
            plain_time = measure(o, &m, "omp", "teams distribute rows", &c, hx, hout, dy, 0, "");
            m.k = K_WR;
            m.f = BF_ROWS;
            m.ctx = ompc;
            m.in = hx;
            m.out = hy;
            measure(o, &m, "omptarget", "wr_reduce_rows", &c, hx, hout, dy, plain_time, "omp rows");
            if (cuda) {
                m.ctx = cuda;
                m.in = dx;
                m.out = dy;
                measure(o, &m, "cuda", "wr_reduce_rows", &c, hx, hout, dy, plain_time, "omp rows");
            }
        }
    }
    summary(o, rows_n);

#pragma omp target exit data map(delete: hx[0:nb], hy[0:nb])
    omp_target_free(part, omp_get_default_device());
    free(hx);
    free(hy);
    free(hout);
    wr_context_destroy(ompc);
    return failures;
}

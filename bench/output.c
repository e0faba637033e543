/*
 * output.c -- warpred-bench's output: an aligned table (stdout, or stderr
 * when stdout carries CSV/JSON), CSV, JSON, progress lines on stderr, and the
 * summary of the performance targets (doc/PERFORMANCE.md) computed from the rows of this run.
 */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "output.h"

static struct {
    FILE *table, *csv, *json;
    int close_csv, close_json;
    int progress;
    int json_rows;
    const char *section;        /* of the last table header */
    struct bench_row *rows;     /* every row, for the targets summary */
    size_t nrows, cap;
} out;

static double gbps(double bytes, double t) { return t > 0 ? bytes / t * 1e-9 : 0; }

static FILE *open_out(const char *path, int *close_it)
{
    FILE *f;
    *close_it = 0;
    if (path == NULL) return NULL;
    if (strcmp(path, "-") == 0) return stdout;
    f = fopen(path, "w");
    if (f == NULL) { perror(path); exit(2); }
    *close_it = 1;
    return f;
}

/* A JSON string (our strings are plain ASCII; quote and backslash escaped). */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
}

static const char *const csv_header =
    "section,backend,name,type,op,n,param,bytes,time_us,min_us,reps,gbps,"
    "ceil_gbps,frac_of_ceil,ref,ref_time_us,ref_gbps,ref_time_over_time,ref_kernel_us,check";

void bench_output_open(const char *csv_path, const char *json_path, int progress,
                       const struct bench_meta *m)
{
    out.csv = open_out(csv_path, &out.close_csv);
    out.json = open_out(json_path, &out.close_json);
    /* Keep stdout machine-readable when CSV or JSON goes there. */
    out.table = (out.csv == stdout || out.json == stdout) ? stderr : stdout;
    out.progress = progress;
    fprintf(out.table, "warpred-bench %s, libwarpred %s, %s\n", PACKAGE_VERSION, m->lib_version, m->date);
    fprintf(out.table, "backends: %s\n", m->describe);
    if (m->loadavg[0])
        fprintf(out.table, "load average at start: %s (other processes on the cores skew the cpu rows)\n",
                m->loadavg);
    fprintf(out.table, "median of %d timed runs after %d warm-up runs; GB/s counts each input "
            "read once and each output written once\n", m->reps, m->warmup);
    if (out.csv) { fprintf(out.csv, "%s\n", csv_header); fflush(out.csv); }
    if (out.json) {
        fprintf(out.json, "{\n  \"program\": \"warpred-bench\",\n  \"version\": ");
        json_str(out.json, PACKAGE_VERSION);
        fprintf(out.json, ",\n  \"library_version\": ");
        json_str(out.json, m->lib_version);
        fprintf(out.json, ",\n  \"date\": ");
        json_str(out.json, m->date);
        fprintf(out.json, ",\n  \"backends\": ");
        json_str(out.json, m->describe);
        fprintf(out.json, ",\n  \"loadavg\": ");
        json_str(out.json, m->loadavg);
        fprintf(out.json, ",\n  \"command\": ");
        json_str(out.json, m->command);
        fprintf(out.json, ",\n  \"reps\": %d,\n  \"warmup\": %d,\n  \"rows\": [", m->reps, m->warmup);
    }
}

void bench_row_init(struct bench_row *r, const char *section)
{
    memset(r, 0, sizeof *r);
    r->section = section;
    r->type = "";
    r->op = "";
    strcpy(r->check, "-");
}

void bench_check_set(struct bench_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->check, sizeof r->check, fmt, ap);
    va_end(ap);
}

void bench_check_append(struct bench_row *r, const char *fmt, ...)
{
    va_list ap;
    size_t l = strlen(r->check);
    if (l + 2 >= sizeof r->check) return;
    memcpy(r->check + l, "; ", 3);
    l += 2;
    va_start(ap, fmt);
    vsnprintf(r->check + l, sizeof r->check - l, fmt, ap);
    va_end(ap);
}

/* "2^24" for powers of two from 2^10, else the number. */
static const char *show_n(size_t n, char *buf, size_t len)
{
    int k = 0;
    if (n >= 1024 && (n & (n - 1)) == 0) {
        while (((size_t)1 << k) < n) k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%zu", n);
    }
    return buf;
}

static void table_header(const char *section)
{
    const char *ratio = strcmp(section, "seed") == 0 ? "speed-up" : "ref/ours";
    fprintf(out.table, "\n%-14s %-20s %-4s %-4s %9s %-10s %10s %9s %9s %6s  %-12s %9s %8s  %s\n",
            "backend", "function", "type", "op", "n", "param", "time[us]", "GB/s", "copy GB/s",
            "%copy", "reference", "ref GB/s", ratio, "check");
}

void bench_emit(const struct bench_row *r)
{
    char nbuf[32];
    double g = gbps(r->bytes, r->t.med), rg = gbps(r->bytes, r->ref_time);
    double frac = r->ceil_gbps > 0 && g > 0 ? g / r->ceil_gbps : 0;
    double ratio = r->t.med > 0 && r->ref_time > 0 ? r->ref_time / r->t.med : 0;

    if (out.nrows == out.cap) {
        size_t cap = out.cap ? 2 * out.cap : 256;
        struct bench_row *p = (struct bench_row *)realloc(out.rows, cap * sizeof *p);
        if (p != NULL) { out.rows = p; out.cap = cap; }
    }
    if (out.nrows < out.cap) out.rows[out.nrows++] = *r;

    if (out.section == NULL || strcmp(out.section, r->section) != 0) {
        out.section = r->section;
        table_header(r->section);
    }
    fprintf(out.table, "%-14s %-20s %-4s %-4s %9s %-10s ", r->backend, r->name, r->type, r->op,
            show_n(r->n, nbuf, sizeof nbuf), r->param[0] ? r->param : "-");
    if (r->t.med > 0) fprintf(out.table, "%10.2f %9.2f ", r->t.med * 1e6, g);
    else fprintf(out.table, "%10s %9s ", "-", "-");
    if (r->ceil_gbps > 0) fprintf(out.table, "%9.2f ", r->ceil_gbps);
    else fprintf(out.table, "%9s ", "-");
    if (frac >= 100) fprintf(out.table, "%6s ", ">9999%");
    else if (frac > 0) fprintf(out.table, "%5.0f%% ", 100 * frac);
    else fprintf(out.table, "%6s ", "-");
    fprintf(out.table, " %-12s ", r->ref_name[0] ? r->ref_name : "-");
    if (r->ref_time > 0) fprintf(out.table, "%9.2f ", rg);
    else fprintf(out.table, "%9s ", "-");
    if (ratio > 0) fprintf(out.table, "%7.2fx ", ratio);
    else fprintf(out.table, "%8s ", "-");
    fprintf(out.table, " %s\n", r->check);
    fflush(out.table);

    if (out.csv) {
        fprintf(out.csv, "%s,%s,%s,%s,%s,%zu,%s,%.0f,%.6g,%.6g,%d,%.6g,%.6g,%.6g,%s,%.6g,%.6g,%.6g,%.6g,\"%s\"\n",
                r->section, r->backend, r->name, r->type, r->op, r->n, r->param, r->bytes,
                r->t.med * 1e6, r->t.min * 1e6, r->t.reps, g, r->ceil_gbps, frac, r->ref_name,
                r->ref_time * 1e6, rg, ratio, r->ref_kernel_time * 1e6, r->check);
        fflush(out.csv);
    }
    if (out.json) {
        fprintf(out.json, "%s\n    {\"section\": ", out.json_rows++ ? "," : "");
        json_str(out.json, r->section);
        fprintf(out.json, ", \"backend\": "); json_str(out.json, r->backend);
        fprintf(out.json, ", \"name\": "); json_str(out.json, r->name);
        fprintf(out.json, ", \"type\": "); json_str(out.json, r->type);
        fprintf(out.json, ", \"op\": "); json_str(out.json, r->op);
        fprintf(out.json, ", \"n\": %zu, \"param\": ", r->n); json_str(out.json, r->param);
        fprintf(out.json, ", \"bytes\": %.0f, \"time_us\": %.6g, \"min_us\": %.6g, \"reps\": %d, "
                "\"gbps\": %.6g, \"ceil_gbps\": %.6g, \"frac_of_ceil\": %.6g, \"ref\": ",
                r->bytes, r->t.med * 1e6, r->t.min * 1e6, r->t.reps, g, r->ceil_gbps, frac);
        json_str(out.json, r->ref_name);
        fprintf(out.json, ", \"ref_time_us\": %.6g, \"ref_gbps\": %.6g, \"ref_time_over_time\": %.6g, "
                "\"ref_kernel_us\": %.6g, \"check\": ", r->ref_time * 1e6, rg, ratio,
                r->ref_kernel_time * 1e6);
        json_str(out.json, r->check);
        fprintf(out.json, "}");
    }
}

void bench_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out.table, fmt, ap);
    va_end(ap);
    fputc('\n', out.table);
    fflush(out.table);
}

void bench_progress(const char *fmt, ...)
{
    va_list ap;
    if (!out.progress) return;
    fputs("warpred-bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- the performance targets, from this run's rows -------------------------- */

/* Whether row r is of (section, backend, name, type, op, param); a NULL
 * param matches any. */
static int row_is(const struct bench_row *r, const char *section, const char *backend, const char *name,
                  const char *type, const char *op, const char *param)
{
    return !strcmp(r->section, section) && !strcmp(r->backend, backend) && !strcmp(r->name, name)
        && !strcmp(r->type, type) && !strcmp(r->op, op) && (param == NULL || !strcmp(r->param, param));
}

/* The row of (section, backend, name, type, op, param) at n, or at the
 * largest n measured when n == 0. */
static const struct bench_row *find(const char *section, const char *backend, const char *name,
                                    const char *type, const char *op, const char *param, size_t n)
{
    const struct bench_row *best = NULL;
    size_t i;
    for (i = 0; i < out.nrows; i++) {
        const struct bench_row *r = &out.rows[i];
        if (!row_is(r, section, backend, name, type, op, param) || r->t.med <= 0)
            continue;
        if (n ? r->n == n : (best == NULL || r->n > best->n)) best = r;
    }
    return best;
}

enum tkind { T_REF_RATIO, T_CEIL_FRAC, T_GBPS };

static void targets_async(void);

/* Digits of a ratio on a target line: 2, or 3 where 2 would print the goal
 * itself for a ratio that falls short of it (0.998x against 1.00x). */
static int ratio_digits(double v, double goal)
{
    return fabs(v - goal) < 0.005 ? 3 : 2;
}

/* One line: what, where measured, our figure, the goal, met or not. */
static void target(const char *what, const char *backend, const char *name, const char *type,
                   const char *op, const char *param, size_t n, enum tkind k, double goal)
{
    const struct bench_row *r = find("matrix", backend, name, type, op, param, n);
    char nbuf[32], fig[120], at[48] = "";
    double v = 0;
    size_t i;
    for (i = 0; i < out.nrows; i++)      /* a backend this run did not measure: no line */
        if (strcmp(out.rows[i].section, "matrix") == 0 && strcmp(out.rows[i].backend, backend) == 0) break;
    if (i == out.nrows) return;
    if (r == NULL) r = n ? find("matrix", backend, name, type, op, param, 0) : NULL;
    if (r == NULL) {
        fprintf(out.table, "  %-44s %-40s\n", what, "not measured in this run");
        return;
    }
    if (r->n != n) snprintf(at, sizeof at, " (at n=%s)", show_n(r->n, nbuf, sizeof nbuf));
    switch (k) {
    case T_REF_RATIO:
        if (r->ref_time <= 0) { fprintf(out.table, "  %-44s no reference measured\n", what); return; }
        v = r->ref_time / r->t.med;
        if (r->ref_kernel_time > 0 && r->n <= ((size_t)1 << 25))
            snprintf(fig, sizeof fig, "%.*fx %s%s; %.1f us vs %.1f (kernel)", ratio_digits(v, goal), v,
                     r->ref_name, at, r->t.med * 1e6, r->ref_kernel_time * 1e6);
        else
            snprintf(fig, sizeof fig, "%.*fx %s%s", ratio_digits(v, goal), v, r->ref_name, at);
        break;
    case T_CEIL_FRAC:
        v = r->ceil_gbps > 0 ? r->bytes / r->t.med * 1e-9 / r->ceil_gbps : 0;
        snprintf(fig, sizeof fig, "%.*fx copy%s", ratio_digits(v, goal), v, at);
        break;
    case T_GBPS:
        v = r->bytes / r->t.med * 1e-9;
        snprintf(fig, sizeof fig, "%.0f GB/s%s", v, at);
        break;
    }
    fprintf(out.table, "  %-44s %-40s %s\n", what, fig,
            strncmp(r->check, "ok", 2) ? "(check failed)" : at[0] ? "(other n)"
            : v >= goal ? "met" : "NOT met");
}

void bench_targets(void)
{
    const size_t n28 = (size_t)1 << 28, n25 = (size_t)1 << 25;
    fprintf(out.table, "\nPerformance targets (doc/PERFORMANCE.md) from this run (ratios: reference time / our time; "
            "a figure at another n is indicative only):\n");
    target("cuda reduce sum f32 2^28 >= 1.00x CUB", "cuda", "reduce", "f32", "sum", "", n28, T_REF_RATIO, 1.0);
    target("cuda reduce sum f64 2^28 >= 1.00x CUB", "cuda", "reduce", "f64", "sum", "", n28, T_REF_RATIO, 1.0);
    target("cuda reduce sum i32 2^28 >= 1.00x CUB", "cuda", "reduce", "i32", "sum", "", n28, T_REF_RATIO, 1.0);
    target("cuda reduce sum f32 2^25 >= 1.10x CUB", "cuda", "reduce", "f32", "sum", "", n25, T_REF_RATIO, 1.1);
    target("cuda reduce sum f32 1024: time <= CUB", "cuda", "reduce", "f32", "sum", "", 1024, T_REF_RATIO, 1.0);
    target("cuda argmax f32 2^28 >= 1.00x CUB", "cuda", "argmax", "f32", "", "", n28, T_REF_RATIO, 1.0);
    target("cuda scan sum f32 2^28 >= 0.90x copy", "cuda", "scan", "f32", "sum", "", n28, T_CEIL_FRAC, 0.9);
    target("cuda exscan sum i32 2^28 >= 0.90x copy", "cuda", "exscan", "i32", "sum", "", n28, T_CEIL_FRAC, 0.9);
    target("cuda rows f32 2^25, 32 cols >= 2500 GB/s", "cuda", "reduce_rows", "f32", "sum", "cols=32", n25, T_GBPS, 2500);
    target("cuda rows f32 2^25, 1024 cols >= 3500 GB/s", "cuda", "reduce_rows", "f32", "sum", "cols=1024", n25, T_GBPS, 3500);
    target("cuda rows f32 2^25, 32768 cols >= 1.00x CUB", "cuda", "reduce_rows", "f32", "sum", "cols=32768", n25, T_REF_RATIO, 1.0);
    target("cpu reduce sum f32 2^28 >= 0.95x omp simd", "cpu", "reduce", "f32", "sum", "", n28, T_REF_RATIO, 0.95);
    target("cpu scan sum f32 2^28 >= 0.70x memcpy", "cpu", "scan", "f32", "sum", "", n28, T_CEIL_FRAC, 0.7);
    target("cpu scan sum f32 2^28 >= 3x omp scan", "cpu", "scan", "f32", "sum", "", n28, T_REF_RATIO, 3.0);
    targets_async();
}

/* One line over several sizes: the rows of (backend, name, type, op,
 * param) at each n of ns (ns NULL: every n measured from 2^10 to 2^28), their
 * ratio ref / ours against goal; the worst, or each when there are few.
 * Nothing when no such row was measured. */
static void target_sizes(const char *what, const char *backend, const char *name, const char *type,
                         const char *op, const char *param, const size_t *ns, int nns, double goal)
{
    char fig[200] = "", nbuf[32];
    double worst = 0;
    size_t worst_n = 0, i;
    int count = 0, below = 0, bad_check = 0, k;
    for (i = 0; i < out.nrows; i++) {
        const struct bench_row *r = &out.rows[i];
        int in = 0;
        double v;
        if (!row_is(r, "matrix", backend, name, type, op, param) || r->t.med <= 0 || r->ref_time <= 0) continue;
        if (ns == NULL) in = r->n >= ((size_t)1 << 10) && r->n <= ((size_t)1 << 28);
        for (k = 0; ns && k < nns; k++) in |= r->n == ns[k];
        if (!in) continue;
        v = r->ref_time / r->t.med;
        if (count == 0 || v < worst) { worst = v; worst_n = r->n; }
        below += v < goal;
        bad_check += strncmp(r->check, "ok", 2) != 0;
        if (ns != NULL) {
            size_t l = strlen(fig);
            snprintf(fig + l, sizeof fig - l, "%s%s: %.*fx", count ? ", " : "", show_n(r->n, nbuf, sizeof nbuf),
                     ratio_digits(v, goal), v);
        }
        count++;
    }
    if (count == 0) return;
    if (ns == NULL)
        snprintf(fig, sizeof fig, "worst %.*fx at n=%s; %d of %d sizes below", ratio_digits(worst, goal), worst,
                 show_n(worst_n, nbuf, sizeof nbuf), below, count);
    fprintf(out.table, "  %-52s %-46s %s\n", what, fig,
            bad_check ? "(check failed)" : below ? "NOT met" : "met");
}

/* The targets of stream-ordered calls (--async rows). */
static void targets_async(void)
{
    static const char *const types[] = { "f32", "i32", "f64", "i64", "u32", "u64" };
    static const char *const cols[] = { "cols=32", "cols=1024", "cols=32768" };
    static const char *const modes[2][2] = { { "cuda async", "queued" }, { "cuda graph", "in a graph" } };
    const size_t two[2] = { (size_t)1 << 20, (size_t)1 << 25 }, n28 = (size_t)1 << 28;
    char what[96];
    const struct bench_row *blk, *q;
    size_t i;
    int m, t, c;
    for (i = 0; i < out.nrows; i++)
        if (!strcmp(out.rows[i].backend, "cuda async") || !strcmp(out.rows[i].backend, "cuda graph")) break;
    if (i == out.nrows) return;
    fprintf(out.table, "\nStream-ordered calls (--async), ratios CUB time / ours, CUB queued or captured alike:\n");
    for (m = 0; m < 2; m++) {
        const char *b = modes[m][0], *how = modes[m][1];
        for (t = 0; t < 6; t++) {
            snprintf(what, sizeof what, "reduce sum %s %s, every n >= 1.00x CUB", types[t], how);
            target_sizes(what, b, "reduce", types[t], "sum", "", NULL, 0, 1.0);
        }
        for (t = 0; t < 6; t++) {
            snprintf(what, sizeof what, "argmax %s %s, every n >= 1.00x CUB", types[t], how);
            target_sizes(what, b, "argmax", types[t], "", "", NULL, 0, 1.0);
        }
        for (t = 0; t < 6; t++) {
            snprintf(what, sizeof what, "scan sum %s %s, every n >= 1.00x CUB", types[t], how);
            target_sizes(what, b, "scan", types[t], "sum", "", NULL, 0, 1.0);
            snprintf(what, sizeof what, "exscan sum %s %s, every n >= 1.00x CUB", types[t], how);
            target_sizes(what, b, "exscan", types[t], "sum", "", NULL, 0, 1.0);
        }
        if (m == 0)
            for (t = 0; t < 6; t++) {
                const char *fn[2] = { "scan", "exscan" };
                int f;
                for (f = 0; f < 2; f++) {
                    snprintf(what, sizeof what, "cuda async %s sum %s 2^28 >= 0.90x copy", fn[f], types[t]);
                    if (find("matrix", b, fn[f], types[t], "sum", "", n28))
                        target(what, b, fn[f], types[t], "sum", "", n28, T_CEIL_FRAC, 0.9);
                }
            }
        for (t = 0; t < 6; t++) {
            for (c = 0; c < 3; c++) {
                snprintf(what, sizeof what, "rows %s %s %s, 2^20 2^25 >= 1.00x CUB", types[t], cols[c], how);
                target_sizes(what, b, "reduce_rows", types[t], "sum", cols[c], two, 2, 1.0);
            }
            snprintf(what, sizeof what, "segments %s %s, 2^20 2^25 >= 1.00x CUB", types[t], how);
            target_sizes(what, b, "reduce_segments", types[t], "sum", NULL, two, 2, 1.0);
        }
    }
    /* what a call that waits costs over the same call queued, at 1024 */
    fprintf(out.table, "  blocking call (today's path) over the queued call, 1024 elements (event-timed "
            "blocking call vs device time queued):\n");
    for (c = 0; c < BF_NFUNCS; c++)
        for (t = 0; t < 6; t++) {
            const char *name = bench_func_name((enum bench_func)c);
            const char *op = c == BF_ARGMIN || c == BF_ARGMAX ? "" : "sum";
            blk = find("matrix", "cuda", name, types[t], op, NULL, 1024);
            q = blk ? find("matrix", "cuda async", name, types[t], op, blk->param, 1024) : NULL;
            if (blk == NULL || q == NULL || blk->n != 1024 || q->n != 1024) continue;
            fprintf(out.table, "    %-16s %-4s blocking %7.2f us, queued %7.2f us: +%.2f us (CUB: %.2f us synchronised, "
                    "%.2f us queued)\n", name, types[t], blk->t.med * 1e6, q->t.med * 1e6,
                    (blk->t.med - q->t.med) * 1e6, blk->ref_time * 1e6, q->ref_time * 1e6);
        }
}

void bench_output_close(int failures)
{
    if (out.json) {
        fprintf(out.json, "\n  ],\n  \"failures\": %d\n}\n", failures);
        if (out.close_json) fclose(out.json);
        else fflush(out.json);
    }
    if (out.csv) {
        if (out.close_csv) fclose(out.csv);
        else fflush(out.csv);
    }
    free(out.rows);
    out.rows = NULL;
    out.nrows = out.cap = 0;
}

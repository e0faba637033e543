/*
 * warpred-bench -- measure libwarpred through its public API against the
 * memory ceiling and a reference implementation, in one run, on the same
 * buffers.
 *
 *  matrix: function x type x op x size x backend.  cpu: host buffers, a
 *          monotonic clock, a parallel memcpy as the ceiling, the plain
 *          OpenMP loops (cpuloops.c) as the reference for SUM.  cuda: device
 *          buffers, CUDA events, a device-to-device cudaMemcpy as the
 *          ceiling, CUB as the reference for everything.
 *  host:   reduce/scan of host arrays (pageable, pinned) through cpu, cuda
 *          and AUTO contexts: which path AUTO should take.
 *  seed:   the source articles' kernels on 33,554,432 floats.
 *  --async adds to each cuda cell of the matrix the same call queued on a
 *          stream the context has (wr_context_set_stream) and, as 100
 *          calls captured into a CUDA graph, per call; CUB is queued and
 *          captured the same way on the same buffers (bench_cuda.cu).
 *
 * Every result is checked against a host reference (check.c) after the
 * timing (outputs poisoned first); the exit status is 1 if any measured call
 * failed or any check did, 2 on a usage error.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv, readlink, localtime_r */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "bench_blas.h"
#include "output.h"
#include "bench_omp.h"
#include "wr_ops.h"

/* ---- options ------------------------------------------------------------ */

enum { BK_CPU = 1, BK_CUDA = 2, BK_OMPT = 4 };
enum { FM_FAST = 1, FM_REPRO = 2 };

struct opts {
    int backends;              /* BK_* bits; 0: the default backend */
    unsigned funcs, types, ops;
    unsigned blas;             /* bench_blas.h's BB_* bits: dot products and norms */
    size_t *sizes; int nsizes;
    size_t *cols; int ncols;
    size_t seglen;
    int reps, warmup;
    int full, want_matrix, want_seed, want_host;
    int check, progress, targets;
    int async, graph_calls;    /* --async; calls per graph */
    int fmodes;                /* FM_* bits: float modes of the float SUM cells */
    int refs;                  /* time the reference loops (cpu) or CUB (cuda) */
    const char *csv, *json;
    uint64_t seed;
};

static void usage(FILE *f)
{
    fprintf(f,
"Usage: warpred-bench [OPTION]...\n"
"Time libwarpred's functions through its public API beside a memory-copy\n"
"ceiling and a reference implementation measured in the same run.\n"
"\n"
"Without options: a quick demo (every function, f32 and i32 sums, n = 2^10,\n"
"2^16, 2^20, 2^24) on the default backend (cuda if a device is usable,\n"
"else cpu).\n"
"\n"
"What to measure:\n"
"  --backend cpu|cuda|all   backends of the matrix (default: the default one)\n"
"  --backend omptarget      the omptarget table instead: reduce and scan f32/f64\n"
"                           SUM at --sizes, rows f32 (32, 1024, 32768 columns),\n"
"                           against the plain OpenMP-offload loops and the cuda\n"
"                           backend on the same device arrays, with the targets\n"
"  --funcs LIST             reduce,scan,exscan,reduce_rows,reduce_segments,\n"
"                           argmin,argmax,scan_segments,exscan_segments,\n"
"                           dot,nrm2,asum,argmax_abs,dot_rows (cpu rows beside\n"
"                           OpenBLAS when configure found it; cuda rows beside\n"
"                           cuBLAS, found at run time, and a copy) or all\n"
"                           (rows/segments/segscan/segexscan also accepted)\n"
"  --types LIST             i32,i64,u32,u64,f32,f64 or all\n"
"  --ops LIST               sum,prod,min,max,band,bor,bxor or all\n"
"                           (bitwise ops are skipped for floats)\n"
"  --sizes LIST             element counts: 1024,33554432  2^20  4M  and ranges\n"
"                           A..B (doubling), A..B*F, A..B+S\n"
"  --cols LIST              reduce_rows: columns per row (default 1024;\n"
"                           --full: 32,1024,32768)\n"
"  --seglen N               reduce_segments and the segmented scans: mean\n"
"                           segment length (default 1024;\n"
"                           lengths uniform in [0, 2N])\n"
"  --reps N                 timed runs per measurement, median reported (>= 1,\n"
"                           default 20)\n"
"  --warmup N               untimed runs first (default 2)\n"
"  --full                   the complete matrix: all functions, types and ops,\n"
"                           n = 2^10..2^28, cpu and cuda, plus the host and\n"
"                           seed tables when CUDA is usable\n"
"  --matrix                 run the matrix (the default unless --seed-table or\n"
"                           --host-table is given)\n"
"  --seed-table             the source articles' kernels on N = 33,554,432 floats\n"
"  --host-table             host-resident input through cpu, cuda and AUTO\n"
"  --no-check               skip the host-reference checks (faster)\n"
"  --async                  cuda cells also queued on a stream the context has\n"
"                           (device time between events, the host's launch\n"
"                           time hidden) and as calls captured into one CUDA\n"
"                           graph and replayed (time per call), and one call at\n"
"                           a time on the idle stream (the host's cost shows),\n"
"                           each beside CUB timed the same way; defaults become\n"
"                           --backend cuda --types f32,i32,f64 --sizes\n"
"                           2^10..2^28 --cols 32,1024,32768\n"
"  --graph-calls N          calls captured per graph with --async (default 100)\n"
"  --float-mode fast|reproducible|both\n"
"                           float mode of the float/double SUM of reduce, rows,\n"
"                           segments and scans (default fast); with both,\n"
"                           each reproducible row's reference is the fast row\n"
"                           of the same cell (ratio: fast time / reproducible)\n"
"  --no-ref                 skip the reference implementations (OpenMP loops,\n"
"                           CUB); the memory-copy ceiling is still measured\n"
"  --seed N                 seed of the input data (default 1)\n"
"Output:\n"
"  --csv FILE|-             all rows as CSV\n"
"  --json FILE|-            all rows as JSON\n"
"                           (with '-' the table goes to stderr)\n"
"  --progress, --no-progress  progress lines on stderr (default: with --full)\n"
"  --targets                after the matrix, the project's performance targets\n"
"                           with this run's figures (doc/PERFORMANCE.md)\n"
"  -h, --help               this text\n"
"  --version                the program's and the library's versions\n"
"\n"
"Environment: OMP_NUM_THREADS (cpu threads), WARPRED_PLUGIN_DIR (where the\n"
"CUDA plugin is; set automatically when run from the build tree).\n"
"Exit status: 0 all good, 1 a call failed or a result was wrong, 2 usage.\n");
}

static void die_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "warpred-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'warpred-bench --help'.\n");
    exit(2);
}

/* Bit mask of the names in a comma-separated list ("all": every one). */
static unsigned parse_names(const char *list, const char *const *names, int count,
                            const char *what)
{
    unsigned mask = 0;
    char *copy = strdup(list), *save = NULL, *tok;
    if (copy == NULL) exit(2);
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i, found = 0;
        if (strcmp(tok, "all") == 0) { mask = (1u << count) - 1; continue; }
        for (i = 0; i < count; i++)
            if (names[i] && strcmp(tok, names[i]) == 0) { mask |= 1u << i; found = 1; }
        if (!found) { fprintf(stderr, "warpred-bench: unknown %s '%s'\n", what, tok); exit(2); }
    }
    free(copy);
    if (mask == 0) die_usage("empty %s list", what);
    return mask;
}

/* A count: digits with an optional binary suffix k/m/g, or 2^K. */
static size_t parse_count(const char *s, const char **end)
{
    char *e;
    unsigned long long v;
    if (s[0] == '2' && s[1] == '^') {
        v = strtoull(s + 2, &e, 10);
        if (e == s + 2 || v >= 8 * sizeof(size_t)) die_usage("bad size '%s'", s);
        *end = e;
        return (size_t)1 << v;
    }
    errno = 0;
    v = strtoull(s, &e, 10);
    if (e == s || errno) die_usage("bad size '%s'", s);
    switch (*e) {
    case 'k': case 'K': v <<= 10; e++; break;
    case 'm': case 'M': v <<= 20; e++; break;
    case 'g': case 'G': v <<= 30; e++; break;
    }
    *end = e;
    return (size_t)v;
}

static void push(size_t **v, int *n, size_t x)
{
    size_t *p = (size_t *)realloc(*v, sizeof **v * (size_t)(*n + 1));
    if (p == NULL) exit(2);
    p[(*n)++] = x;
    *v = p;
}

/* "1024,2^20,4M,2^10..2^28,1k..1M*4,1000..5000+1000" */
static void parse_sizes(const char *list, size_t **v, int *n)
{
    const char *s = list;
    free(*v);
    *v = NULL;
    *n = 0;
    while (*s) {
        const char *e;
        size_t a = parse_count(s, &e), b, step = 0;
        int mul = 1;
        if (e[0] == '.' && e[1] == '.') {
            b = parse_count(e + 2, &e);
            if (*e == '*' || *e == '+') {
                mul = *e == '*';
                step = parse_count(e + 1, &e);
            } else {
                step = 2;
            }
            if ((mul && step < 2) || (!mul && step == 0) || a == 0 || b < a)
                die_usage("bad size range in '%s'", list);
            for (; a <= b; ) {
                push(v, n, a);
                if (mul ? a > b / step : a > b - step) break;
                a = mul ? a * step : a + step;
            }
        } else {
            push(v, n, a);
        }
        if (*e == ',') e++;
        else if (*e) die_usage("bad size list '%s'", list);
        s = e;
    }
    if (*n == 0) die_usage("empty size list%s", "");
}

static int parse_int(const char *s, int min)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (*s == 0 || *e || v < min || v > INT_MAX) die_usage("bad number '%s'", s);
    return (int)v;
}

static const char *const func_names[BF_NFUNCS] = {
    "reduce", "scan", "exscan", "reduce_rows", "reduce_segments", "argmin", "argmax", "scan_segments",
    "exscan_segments"
};
static const char *const func_aliases[BF_NFUNCS] = {
    NULL, "inscan", NULL, "rows", "segments", NULL, NULL, "segscan", "segexscan"
};
static const char *const type_names[] = { "i32", "i64", "u32", "u64", "f32", "f64" };
static const char *const op_names[] = { "sum", "prod", "min", "max", "band", "bor", "bxor" };

static void parse_args(int argc, char **argv, struct opts *o)
{
    int i;
    const char *sizes = NULL, *cols = NULL, *funcs = NULL, *types = NULL, *ops = NULL;
    int progress = -1;
    memset(o, 0, sizeof *o);
    o->reps = 20;
    o->warmup = 2;
    o->check = 1;
    o->refs = 1;
    o->seglen = 1024;
    o->seed = 1;
    o->graph_calls = 100;
    o->fmodes = FM_FAST;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        const char *eq = strchr(a, '=');
        char name[32];
        /* --opt=value and --opt value */
        if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            a = name;
            v = eq + 1;
        }
#define ARG() (v ? v : (i + 1 < argc ? argv[++i] : (die_usage("%s needs a value", a), "")))
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
        else if (!strcmp(a, "--version")) {
            printf("warpred-bench %s (libwarpred %s)\n", PACKAGE_VERSION, wr_version());
            exit(0);
        }
        else if (!strcmp(a, "--backend")) {
            const char *b = ARG();
            if (!strcmp(b, "cpu")) o->backends = BK_CPU;
            else if (!strcmp(b, "cuda")) o->backends = BK_CUDA;
            else if (!strcmp(b, "all")) o->backends = BK_CPU | BK_CUDA;
            else if (!strcmp(b, "omptarget")) o->backends = BK_OMPT;
            else if (!strcmp(b, "auto") || !strcmp(b, "default")) o->backends = 0;
            else die_usage("unknown backend '%s' (cpu, cuda, all, omptarget)", b);
        }
        else if (!strcmp(a, "--funcs")) funcs = ARG();
        else if (!strcmp(a, "--types")) types = ARG();
        else if (!strcmp(a, "--ops")) ops = ARG();
        else if (!strcmp(a, "--sizes")) sizes = ARG();
        else if (!strcmp(a, "--cols")) cols = ARG();
        else if (!strcmp(a, "--seglen")) { const char *e, *s = ARG(); o->seglen = parse_count(s, &e);
                                           if (*e || o->seglen == 0) die_usage("bad --seglen '%s'", s); }
        else if (!strcmp(a, "--reps")) o->reps = parse_int(ARG(), 1);
        else if (!strcmp(a, "--warmup")) o->warmup = parse_int(ARG(), 0);
        else if (!strcmp(a, "--seed")) o->seed = (uint64_t)strtoull(ARG(), NULL, 0);
        else if (!strcmp(a, "--full")) o->full = 1;
        else if (!strcmp(a, "--matrix")) o->want_matrix = 1;
        else if (!strcmp(a, "--seed-table")) o->want_seed = 1;
        else if (!strcmp(a, "--host-table")) o->want_host = 1;
        else if (!strcmp(a, "--no-check")) o->check = 0;
        else if (!strcmp(a, "--float-mode")) {
            const char *m = ARG();
            if (!strcmp(m, "fast")) o->fmodes = FM_FAST;
            else if (!strcmp(m, "reproducible")) o->fmodes = FM_REPRO;
            else if (!strcmp(m, "both")) o->fmodes = FM_FAST | FM_REPRO;
            else die_usage("unknown float mode '%s' (fast, reproducible, both)", m);
        }
        else if (!strcmp(a, "--no-ref")) o->refs = 0;
        else if (!strcmp(a, "--progress")) progress = 1;
        else if (!strcmp(a, "--no-progress")) progress = 0;
        else if (!strcmp(a, "--targets")) o->targets = 1;
        else if (!strcmp(a, "--async")) o->async = 1;
        else if (!strcmp(a, "--graph-calls")) o->graph_calls = parse_int(ARG(), 1);
        else if (!strcmp(a, "--csv")) o->csv = ARG();
        else if (!strcmp(a, "--json")) o->json = ARG();
        else die_usage("unknown option '%s'", argv[i]);
#undef ARG
    }
    /* Function names and their aliases. */
    if (funcs) {
        /* the dot products and norms have their own rows (bench_blas.c) */
        static char rest[512];
        o->blas = bench_blas_parse(funcs, rest, sizeof rest);
        funcs = rest;
    }
    if (funcs && !*funcs) {
        o->funcs = 0;
    } else if (funcs) {
        const char *all[2 * BF_NFUNCS];
        unsigned m;
        for (i = 0; i < BF_NFUNCS; i++) { all[i] = func_names[i]; all[BF_NFUNCS + i] = func_aliases[i]; }
        m = parse_names(funcs, all, 2 * BF_NFUNCS, "function");
        o->funcs = (m | (m >> BF_NFUNCS)) & ((1u << BF_NFUNCS) - 1);
    } else {
        o->funcs = (1u << BF_NFUNCS) - 1;
    }
    o->types = types ? parse_names(types, type_names, 6, "type")
             : o->full ? 0x3fu : o->async ? (1u << WR_FLOAT) | (1u << WR_INT32) | (1u << WR_DOUBLE)
             : (1u << WR_FLOAT) | (1u << WR_INT32);
    o->ops = ops ? parse_names(ops, op_names, 7, "op") : o->full ? 0x7fu : 1u << WR_SUM;
    parse_sizes(sizes ? sizes : o->full || o->async ? "2^10..2^28" : "2^10,2^16,2^20,2^24", &o->sizes, &o->nsizes);
    parse_sizes(cols ? cols : o->full || o->async ? "32,1024,32768" : "1024", &o->cols, &o->ncols);
    if (!o->want_matrix && !o->want_seed && !o->want_host) {
        o->want_matrix = 1;
        if (o->full) o->want_seed = o->want_host = 1;
    }
    if (o->full && o->backends == 0) o->backends = BK_CPU | BK_CUDA;
    if (o->async && o->backends == 0) o->backends = BK_CUDA;
    o->progress = progress >= 0 ? progress : o->full;
}

/* ---- without CUDA: the device side is absent --------------------------- */
#ifndef WR_BENCH_CUDA
int bcu_init(char *why, size_t len) { snprintf(why, len, "warpred-bench was built without CUDA"); return -1; }
const char *bcu_device_name(void) { return ""; }
void *bcu_dev_alloc(size_t bytes, char *err) { (void)bytes; strcpy(err, "no CUDA"); return NULL; }
void bcu_dev_free(void *p) { (void)p; }
void *bcu_pinned_alloc(size_t bytes, char *err) { (void)bytes; strcpy(err, "no CUDA"); return NULL; }
void bcu_pinned_free(void *p) { (void)p; }
int bcu_h2d(void *d, const void *s, size_t b, char *err) { (void)d; (void)s; (void)b; strcpy(err, "no CUDA"); return -1; }
int bcu_d2h(void *d, const void *s, size_t b, char *err) { (void)d; (void)s; (void)b; strcpy(err, "no CUDA"); return -1; }
int bcu_memset(void *d, int v, size_t b, char *err) { (void)d; (void)v; (void)b; strcpy(err, "no CUDA"); return -1; }
int bcu_time(bench_call f, void *arg, int w, int r, struct bench_timing *t, char *err)
{ (void)f; (void)arg; (void)w; (void)r; (void)t; strcpy(err, "no CUDA"); return -1; }
int bcu_copy_d2d(void *arg, char *err) { (void)arg; strcpy(err, "no CUDA"); return -1; }
int bcu_copy_h2d(void *arg, char *err) { (void)arg; strcpy(err, "no CUDA"); return -1; }
int bcu_copy_d2d_queued(void *arg, char *err) { (void)arg; strcpy(err, "no CUDA"); return -1; }
void *bcu_stream(void) { return NULL; }
int bcu_sync(char *err) { strcpy(err, "no CUDA"); return -1; }
int bcu_time_queued(bench_call f, void *arg, int w, int r, struct bench_timing *t, char *err)
{ (void)f; (void)arg; (void)w; (void)r; (void)t; strcpy(err, "no CUDA"); return -1; }
int bcu_time_one(bench_call f, void *arg, int w, int r, struct bench_timing *t, char *err)
{ (void)f; (void)arg; (void)w; (void)r; (void)t; strcpy(err, "no CUDA"); return -1; }
int bcu_time_graph(bench_call f, void *arg, int c, int r, struct bench_timing *t, const struct bcu_range *p, int np,
                   char *err)
{ (void)f; (void)arg; (void)c; (void)r; (void)t; (void)p; (void)np; strcpy(err, "no CUDA"); return -1; }
int bcu_cub_queue(void *c, char *err) { (void)c; strcpy(err, "no CUDA"); return -1; }
int bcu_cub_prepare(struct bcu_cub **c, const struct bench_cell *cell, const void *d_in,
                    const size_t *d_off, char *err)
{ (void)cell; (void)d_in; (void)d_off; *c = NULL; strcpy(err, "no CUDA"); return -1; }
int bcu_cub_run(void *c, char *err) { (void)c; strcpy(err, "no CUDA"); return -1; }
int bcu_cub_launch(void *c, char *err) { (void)c; strcpy(err, "no CUDA"); return -1; }
int bcu_cub_result(struct bcu_cub *c, void *o, size_t *i, void *v, char *err)
{ (void)c; (void)o; (void)i; (void)v; strcpy(err, "no CUDA"); return -1; }
void bcu_cub_free(struct bcu_cub *c) { (void)c; }
int bcu_seed_table(int w, int r, wr_context *ctx) { (void)w; (void)r; (void)ctx; return -1; }
#endif

/* ---- without the omptarget plugin: no omptarget table -------------------- */
#ifndef WR_BENCH_OMPT
int bomp_table(const struct bomp_opts *o, wr_context *cuda)
{
    (void)o;
    (void)cuda;
    bench_note("\nomptarget: warpred-bench was built without an OpenMP-offload compiler; table skipped");
    return 1;
}
#endif

/* ---- one backend's buffers ---------------------------------------------- */

struct env {
    const char *name;          /* "cpu", "cuda" */
    wr_backend backend;
    int device;                /* buffers in device memory, CUDA events */
    wr_context *ctx;           /* NULL: our backend is not usable (see why) */
    wr_context *ctx_q;         /* --async: a context with the benchmark's stream, or NULL */
    char why[WR_BENCH_ERRLEN];
    void *h_in, *h_out;        /* host: input (reference data), output copy */
    void *in, *out;            /* what the calls get (== h_* on the cpu) */
    size_t *h_off, *off;       /* segment offsets, host and as passed */
    size_t off_cap;
    void *d_aux;               /* --async: argmin/argmax's device index (0) and value (8) */
};

static void *host_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 64;
    if (posix_memalign(&p, 4096, bytes) != 0) return NULL;
    /* First touch in parallel, as the timed loops will touch it. */
    bench_fill(p, WR_UINT32, bytes / 4, DATA_GENERAL, 0);
    return p;
}

static int time_call(const struct env *e, bench_call f, void *arg, const struct opts *o,
                     struct bench_timing *t, char *err)
{
    return e->device ? bcu_time(f, arg, o->warmup, o->reps, t, err)
                     : bench_time_host(f, arg, o->warmup, o->reps, t, err);
}

static int host_copy(void *arg, char *err)
{
    struct bcu_copy *c = (struct bcu_copy *)arg;
    (void)err;
    bench_loop_copy(c->dst, c->src, c->bytes);
    return 0;
}

/* Our call through the public API. */
struct ourcall {
    wr_context *ctx;
    const struct bench_cell *c;
    const void *in;
    void *out;
    const size_t *off;
    size_t index;
    unsigned char value[8];
    size_t *idx;               /* argmin/argmax outputs elsewhere (device), or NULL: index, value */
    void *val;
};

static int our_call(void *arg, char *err)
{
    struct ourcall *a = (struct ourcall *)arg;
    const struct bench_cell *c = a->c;
    wr_status st = WR_ERR_INVALID_ARG;
    switch (c->func) {
    case BF_REDUCE:   st = wr_reduce(a->ctx, a->in, a->out, c->n, c->type, c->op); break;
    case BF_SCAN:     st = wr_scan(a->ctx, a->in, a->out, c->n, c->type, c->op); break;
    case BF_EXSCAN:   st = wr_exscan(a->ctx, a->in, a->out, c->n, c->type, c->op); break;
    case BF_ROWS:     st = wr_reduce_rows(a->ctx, a->in, a->out, c->rows, c->cols, c->type, c->op); break;
    case BF_SEGMENTS: st = wr_reduce_segments(a->ctx, a->in, a->out, c->nseg, a->off, c->type, c->op); break;
    case BF_SEGSCAN:  st = wr_scan_segments(a->ctx, a->in, a->out, c->nseg, a->off, c->type, c->op); break;
    case BF_SEGEXSCAN: st = wr_exscan_segments(a->ctx, a->in, a->out, c->nseg, a->off, c->type, c->op); break;
    case BF_ARGMIN:   st = wr_argmin(a->ctx, a->in, c->n, c->type, a->idx ? a->idx : &a->index,
                                 a->idx ? a->val : a->value); break;
    case BF_ARGMAX:   st = wr_argmax(a->ctx, a->in, c->n, c->type, a->idx ? a->idx : &a->index,
                                 a->idx ? a->val : a->value); break;
    default: break;
    }
    if (st == WR_SUCCESS) return 0;
    snprintf(err, WR_BENCH_ERRLEN, "%s: %s", wr_status_string(st), wr_context_error(a->ctx));
    return -1;
}

/* Whether f takes segment offsets. */
static int bench_segmented(enum bench_func f)
{
    return f == BF_SEGMENTS || f == BF_SEGSCAN || f == BF_SEGEXSCAN;
}

/* The cpu reference loops (SUM only). */
struct loopcall { const struct bench_cell *c; const void *in; void *out; };

static int loop_call(void *arg, char *err)
{
    struct loopcall *a = (struct loopcall *)arg;
    int r = a->c->func == BF_REDUCE ? bench_loop_sum(a->c->type, a->in, a->c->n, a->out)
          : bench_loop_scan(a->c->type, a->in, a->out, a->c->n, a->c->func == BF_EXSCAN);
    if (r) strcpy(err, "no loop for this type");
    return r;
}

/* Segment offsets for n elements: lengths uniform in [0, 2*seglen], the
 * last segment ends at n.  Returns the number of segments. */
static size_t make_offsets(size_t *off, size_t cap, size_t n, size_t seglen, uint64_t seed)
{
    size_t k = 0, pos = 0;
    uint64_t x = seed | 1;
    off[0] = 0;
    while (pos < n && k + 2 < cap) {
        size_t len;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;            /* xorshift64 */
        len = (size_t)(x % (2 * (uint64_t)seglen + 1));
        pos = len > n - pos ? n : pos + len;
        off[++k] = pos;
    }
    if (off[k] != n) off[++k] = n;
    return k;
}

static int failures;

/* Poison the output, run once, fetch and check the result. */
static void verify_ours(const struct env *e, struct ourcall *a, const struct opts *o,
                        struct bench_row *row)
{
    const struct bench_cell *c = a->c;
    size_t bytes = bench_out_count(c) * wr_type_size(c->type);
    char err[WR_BENCH_ERRLEN] = "", msg[200];
    const void *res = e->h_out;
    if (!o->check) { strcpy(row->check, "unchecked"); return; }
    if (e->device) { if (bytes && bcu_memset(e->out, 0xff, bytes, err)) goto fail; }
    else bench_poison(e->out, bytes);
    a->index = (size_t)-1;
    bench_poison(a->value, sizeof a->value);
    if (our_call(a, err)) goto fail;
    if (e->device) { if (bytes && bcu_d2h(e->h_out, e->out, bytes, err)) goto fail; }
    else res = e->out;
    if (bench_verify(c, e->h_in, res, a->index, a->value, msg, sizeof msg)) {
        bench_check_set(row, "FAIL %s", msg);
        row->failed = 1;
        return;
    }
    if (wr_context_last_backend(a->ctx) != e->backend)
        bench_check_set(row, "ok (ran on %s)",
                 wr_context_last_backend(a->ctx) == WR_BACKEND_CUDA ? "cuda" : "cpu");
    else
        strcpy(row->check, "ok");
    return;
fail:
    bench_check_set(row, "ERROR %s", err);
    row->failed = 1;
}

/* CUB on the same device buffers: timed as the reference; its result is
 * checked where results are exact (then it must equal ours bit for bit). */
static void run_cub(const struct env *e, const struct bench_cell *c, const struct opts *o,
                    struct bench_row *row)
{
    struct bcu_cub *cub = NULL;
    struct bench_timing t;
    char err[WR_BENCH_ERRLEN] = "", msg[200];
    size_t index = (size_t)-1;
    unsigned char value[8];
    if (bcu_cub_prepare(&cub, c, e->in, e->off, err) || time_call(e, bcu_cub_run, cub, o, &t, err)) {
        bench_check_append(row, "CUB ERROR %s", err);
        row->failed = 1;
        bcu_cub_free(cub);
        return;
    }
    strcpy(row->ref_name, "CUB");
    row->ref_time = t.med;
    /* CUB's kernel time alone, as the anchors were taken (CSV/JSON). */
    if (time_call(e, bcu_cub_launch, cub, o, &t, err) == 0) row->ref_kernel_time = t.med;
    if (o->check && bench_cell_exact(c)) {
        bench_poison(value, sizeof value);
        if (bcu_cub_result(cub, e->h_out, &index, value, err)) {
            bench_check_append(row, "CUB ERROR %s", err);
            row->failed = 1;
        } else if (bench_verify(c, e->h_in, e->h_out, index, value, msg, sizeof msg)) {
            bench_check_append(row, "CUB differs: %s", msg);
            row->failed = 1;
        }
    }
    bcu_cub_free(cub);
}

/* Check a queued call's outputs (device memory): after running it once
 * more, poisoned first, unless `ran` (a graph replay left them). */
static void verify_queued(const struct env *e, struct ourcall *a, const struct opts *o, int ran,
                          struct bench_row *row)
{
    const struct bench_cell *c = a->c;
    size_t bytes = bench_out_count(c) * wr_type_size(c->type);
    char err[WR_BENCH_ERRLEN] = "", msg[200];
    unsigned char aux[16];
    if (!o->check) { strcpy(row->check, "unchecked"); return; }
    if (!ran) {
        if ((bytes && bcu_memset(e->out, 0xff, bytes, err)) || bcu_memset(e->d_aux, 0xff, 16, err) ||
            our_call(a, err) || bcu_sync(err))
            goto fail;
    }
    if ((bytes && bcu_d2h(e->h_out, e->out, bytes, err)) || bcu_d2h(aux, e->d_aux, 16, err)) goto fail;
    memcpy(&a->index, aux, sizeof a->index);
    memcpy(a->value, aux + 8, sizeof a->value);
    if (bench_verify(c, e->h_in, e->h_out, a->index, a->value, msg, sizeof msg)) {
        bench_check_set(row, "FAIL %s", msg);
        row->failed = 1;
        return;
    }
    strcpy(row->check, "ok");
    return;
fail:
    bench_check_set(row, "ERROR %s", err);
    row->failed = 1;
}

/* --async: the cell's call queued on the benchmark's stream, then captured
 * in a graph, then one call at a time on the idle stream, each beside CUB
 * timed the same way. */
static void run_queued(struct env *e, const struct bench_cell *c, double ceil_gbps, const struct opts *o)
{
    const int graph_reps = o->reps / 4 > 3 ? o->reps / 4 : 3;
    int mode;
    for (mode = 0; mode < 3; mode++) {
        struct bench_row row;
        struct ourcall a;
        struct bcu_cub *cub = NULL;
        struct bench_timing t;
        const struct bcu_range pr[2] = { { e->out, bench_out_count(c) * wr_type_size(c->type) }, { e->d_aux, 16 } };
        char err[WR_BENCH_ERRLEN] = "";
        bench_row_init(&row, "matrix");
        snprintf(row.backend, sizeof row.backend, "%s", mode == 2 ? "cuda one call" : mode ? "cuda graph" : "cuda async");
        snprintf(row.name, sizeof row.name, "%s", bench_func_name(c->func));
        row.type = bench_type_name(c->type);
        row.op = (c->func == BF_ARGMIN || c->func == BF_ARGMAX) ? "" : bench_op_name(c->op);
        row.n = c->n;
        if (c->func == BF_ROWS) snprintf(row.param, sizeof row.param, "cols=%zu", c->cols);
        if (bench_segmented(c->func)) snprintf(row.param, sizeof row.param, "seg~%zu", o->seglen);
        row.bytes = bench_cell_bytes(c);
        row.ceil_gbps = ceil_gbps;
        memset(&a, 0, sizeof a);
        a.ctx = e->ctx_q;
        a.c = c;
        a.in = e->in;
        a.out = e->out;
        a.off = e->off;
        a.idx = (size_t *)e->d_aux;
        a.val = (char *)e->d_aux + 8;
        if (e->ctx_q == NULL) {
            bench_check_set(&row, "skipped: no context with a stream");
        } else if (mode == 0   ? bcu_time_queued(our_call, &a, o->warmup, o->reps, &row.t, err)
                   : mode == 1 ? bcu_time_graph(our_call, &a, o->graph_calls, graph_reps, &row.t, pr, 2, err)
                               : bcu_time_one(our_call, &a, o->warmup, o->reps, &row.t, err)) {
            memset(&row.t, 0, sizeof row.t);
            bench_check_set(&row, "ERROR %s", err);
            row.failed = 1;
            (void)bcu_sync(err);
        } else {
            verify_queued(e, &a, o, mode == 1, &row);
        }
        if (bcu_cub_prepare(&cub, c, e->in, e->off, err) ||
            (mode == 0   ? bcu_time_queued(bcu_cub_queue, cub, o->warmup, o->reps, &t, err)
             : mode == 1 ? bcu_time_graph(bcu_cub_queue, cub, o->graph_calls, graph_reps, &t, NULL, 0, err)
                         : bcu_time_one(bcu_cub_queue, cub, o->warmup, o->reps, &t, err))) {
            bench_check_append(&row, "CUB ERROR %s", err);
            row.failed = 1;
        } else {
            strcpy(row.ref_name, "CUB");
            row.ref_time = t.med;
        }
        bcu_cub_free(cub);
        failures += row.failed;
        bench_emit(&row);
    }
}

/* One cell in one float mode (repro: the context is in reproducible mode,
 * and fast_time, when not 0, is the reference).  Returns the median time. */
static double run_cell_mode(struct env *e, const struct bench_cell *c, double ceil_gbps,
                            const struct opts *o, int repro, double fast_time)
{
    struct bench_row row;
    struct ourcall a;
    char err[WR_BENCH_ERRLEN] = "";

    bench_row_init(&row, "matrix");
    snprintf(row.backend, sizeof row.backend, "%s", e->name);
    snprintf(row.name, sizeof row.name, "%s%s", bench_func_name(c->func), repro ? " repro" : "");
    row.type = bench_type_name(c->type);
    row.op = (c->func == BF_ARGMIN || c->func == BF_ARGMAX) ? "" : bench_op_name(c->op);
    row.n = c->n;
    if (c->func == BF_ROWS) snprintf(row.param, sizeof row.param, "cols=%zu", c->cols);
    if (bench_segmented(c->func)) snprintf(row.param, sizeof row.param, "seg~%zu", o->seglen);
    row.bytes = bench_cell_bytes(c);
    row.ceil_gbps = ceil_gbps;

    memset(&a, 0, sizeof a);
    a.ctx = e->ctx;
    a.c = c;
    a.in = e->in;
    a.out = e->out;
    a.off = e->off;
    if (e->ctx == NULL) {
        bench_check_set(&row, "skipped: %s", e->why);
    } else if (time_call(e, our_call, &a, o, &row.t, err)) {
        memset(&row.t, 0, sizeof row.t);
        bench_check_set(&row, "ERROR %s", err);
        row.failed = 1;
    } else {
        verify_ours(e, &a, o, &row);
    }

    if (repro) {
        if (fast_time > 0) {
            strcpy(row.ref_name, "fast mode");
            row.ref_time = fast_time;
        }
    } else if (!o->refs) {
        /* --no-ref */
    } else if (e->device) {
        run_cub(e, c, o, &row);
    } else if (c->op == WR_SUM && (c->func == BF_REDUCE || c->func == BF_SCAN || c->func == BF_EXSCAN)) {
        struct loopcall l = { c, e->in, e->out };
        struct bench_timing t;
        if (time_call(e, loop_call, &l, o, &t, err) == 0) {
            strcpy(row.ref_name, c->func == BF_REDUCE ? "omp simd" : bench_loop_scan_name());
            row.ref_time = t.med;
        }
    }
    failures += row.failed;
    bench_emit(&row);
    return row.t.med;
}

/* A cell in the float modes --float-mode asks for (only float/double SUM of
 * reduce, rows, segments and the scans depend on the mode; the others run
 * once), and with --async queued and in a graph (fast mode; ceil_q: a queued
 * copy). */
static void run_cell(struct env *e, const struct bench_cell *c, double ceil_gbps, double ceil_q,
                     const struct opts *o)
{
    const int moded = c->op == WR_SUM && (c->type == WR_FLOAT || c->type == WR_DOUBLE) &&
                      (c->func == BF_REDUCE || c->func == BF_ROWS || bench_segmented(c->func) ||
                       c->func == BF_SCAN || c->func == BF_EXSCAN);
    double fast = 0;
    if (!moded || (o->fmodes & FM_FAST)) fast = run_cell_mode(e, c, ceil_gbps, o, 0, 0);
    if (moded && (o->fmodes & FM_REPRO) && e->ctx) {
        wr_context_set_float_mode(e->ctx, WR_FLOAT_REPRODUCIBLE);
        run_cell_mode(e, c, ceil_gbps, o, 1, fast);
        wr_context_set_float_mode(e->ctx, WR_FLOAT_FAST);
    }
    if (o->async && e->device) run_queued(e, c, ceil_q, o);    /* (fast mode) */
}

static int env_alloc(struct env *e, size_t bytes, size_t max_n, const struct opts *o, char *err)
{
    e->off_cap = max_n / o->seglen * 2 + 16;
    if (e->off_cap > max_n + 2) e->off_cap = max_n + 2;
    e->h_in = host_alloc(bytes);
    e->h_out = host_alloc(bytes);
    e->h_off = (size_t *)malloc(e->off_cap * sizeof(size_t));
    if (!e->h_in || !e->h_out || !e->h_off) { strcpy(err, "out of host memory"); return -1; }
    if (!e->device) {
        e->in = e->h_in;
        e->out = e->h_out;
        e->off = e->h_off;
        return 0;
    }
    e->in = bcu_dev_alloc(bytes, err);
    e->out = e->in ? bcu_dev_alloc(bytes, err) : NULL;
    e->off = e->out ? (size_t *)bcu_dev_alloc(e->off_cap * sizeof(size_t), err) : NULL;
    e->d_aux = e->off ? bcu_dev_alloc(16, err) : NULL;
    return e->d_aux ? 0 : -1;
}

static void env_free(struct env *e)
{
    if (e->device) { bcu_dev_free(e->in); bcu_dev_free(e->out); bcu_dev_free(e->off); bcu_dev_free(e->d_aux); }
    free(e->h_in);
    free(e->h_out);
    free(e->h_off);
}

static uint64_t cell_seed(const struct opts *o, wr_type t, size_t n, int kind)
{
    return o->seed * 0x100000001b3ULL ^ ((uint64_t)t << 56) ^ ((uint64_t)kind << 48) ^ (uint64_t)n;
}

static void run_matrix(struct env *e, const struct opts *o)
{
    size_t max_n = 0, max_s = 0, bytes;
    char err[WR_BENCH_ERRLEN] = "";
    int ti, si, fi, oi, ci;
    for (si = 0; si < o->nsizes; si++) if (o->sizes[si] > max_n) max_n = o->sizes[si];
    for (ti = 0; ti < 6; ti++)
        if (o->types >> ti & 1 && wr_type_size((wr_type)ti) > max_s) max_s = wr_type_size((wr_type)ti);
    bytes = max_n * max_s;
    if (env_alloc(e, bytes, max_n, o, err)) {
        bench_note("%s: cannot allocate 2 x %zu bytes: %s; matrix skipped", e->name, bytes, err);
        failures++;
        env_free(e);
        return;
    }
    for (ti = 0; ti < 6; ti++) {
        wr_type t = (wr_type)ti;
        size_t s = wr_type_size(t);
        if (!(o->types >> ti & 1)) continue;
        for (si = 0; si < o->nsizes; si++) {
            size_t n = o->sizes[si];
            int kind = -1;
            size_t nseg = 0;
            struct bcu_copy cp = { e->out, e->in, n * s };
            struct bench_row row;
            double t0 = bench_now(), ceil_q;

            bench_progress("%s %s n=%zu", e->name, bench_type_name(t), n);
            /* The ceiling: a copy of the input, on the same buffers. */
            bench_row_init(&row, "matrix");
            snprintf(row.backend, sizeof row.backend, "%s", e->name);
            snprintf(row.name, sizeof row.name, "%s", e->device ? "copy (cudaMemcpy)" : "copy (memcpy)");
            row.type = bench_type_name(t);
            row.n = n;
            row.bytes = 2.0 * (double)(n * s);
            if (n == 0 || time_call(e, e->device ? bcu_copy_d2d : host_copy, &cp, o, &row.t, err)) {
                if (n) { bench_check_set(&row, "ERROR %s", err); row.failed = 1; failures++; }
                memset(&row.t, 0, sizeof row.t);
            }
            if (row.t.med > 0) row.ceil_gbps = row.bytes / row.t.med * 1e-9;
            bench_emit(&row);
            ceil_q = 0;
            if (o->async && e->device && n) {     /* the ceiling of queued calls: a queued copy */
                struct bench_row q;
                bench_row_init(&q, "matrix");
                snprintf(q.backend, sizeof q.backend, "cuda async");
                snprintf(q.name, sizeof q.name, "copy (cudaMemcpyAsync)");
                q.type = row.type;
                q.n = n;
                q.bytes = row.bytes;
                if (bcu_time_queued(bcu_copy_d2d_queued, &cp, o->warmup, o->reps, &q.t, err)) {
                    bench_check_set(&q, "ERROR %s", err);
                    q.failed = 1;
                    failures++;
                    memset(&q.t, 0, sizeof q.t);
                }
                if (q.t.med > 0) q.ceil_gbps = q.bytes / q.t.med * 1e-9;
                ceil_q = q.ceil_gbps;
                bench_emit(&q);
            }

            for (fi = 0; fi < BF_NFUNCS; fi++) {
                enum bench_func f = (enum bench_func)fi;
                int argext = f == BF_ARGMIN || f == BF_ARGMAX;
                if (!(o->funcs >> fi & 1)) continue;
                if (bench_segmented(f) && nseg == 0 && n > 0) {
                    nseg = make_offsets(e->h_off, e->off_cap, n, o->seglen, cell_seed(o, t, n, 7));
                    if (e->device && bcu_h2d(e->off, e->h_off, (nseg + 1) * sizeof(size_t), err)) {
                        bench_note("%s: offsets upload failed: %s", e->name, err);
                        failures++;
                        continue;
                    }
                }
                for (oi = 0; oi < 7; oi++) {
                    wr_op op = (wr_op)oi;
                    struct bench_cell c;
                    int want = argext ? oi == 0 : (o->ops >> oi & 1) && wr_op_valid(t, op);
                    if (!want) continue;
                    if (argext && n == 0) continue;       /* WR_ERR_EMPTY by definition */
                    if ((int)bench_data_for(f, op) != kind) {
                        kind = (int)bench_data_for(f, op);
                        bench_fill(e->h_in, t, n, (enum bench_data)kind, cell_seed(o, t, n, kind));
                        if (e->device && n && bcu_h2d(e->in, e->h_in, n * s, err)) {
                            bench_note("%s: upload failed: %s", e->name, err);
                            failures++;
                            kind = -1;
                            continue;
                        }
                    }
                    memset(&c, 0, sizeof c);
                    c.func = f;
                    c.type = t;
                    c.op = argext ? WR_MIN : op;
                    c.n = n;
                    if (bench_segmented(f)) { c.nseg = nseg; c.offsets = e->h_off; }
                    if (f != BF_ROWS) { run_cell(e, &c, row.ceil_gbps, ceil_q, o); continue; }
                    for (ci = 0; ci < o->ncols; ci++) {
                        if (o->cols[ci] == 0 || o->cols[ci] > n) continue;
                        c.cols = o->cols[ci];
                        c.rows = n / c.cols;
                        run_cell(e, &c, row.ceil_gbps, ceil_q, o);
                    }
                }
            }
            bench_progress("%s %s n=%zu done in %.1f s", e->name, bench_type_name(t), n, bench_now() - t0);
        }
    }
    env_free(e);
}

/* ---- host-resident input: which path should AUTO take? ------------------ */

struct hostcase { const char *label; wr_context *ctx; const void *in; void *out; int pinned; };

static void run_host_table(const struct opts *o, wr_context *cpu, wr_context *cuda)
{
    wr_context *aut = NULL;
    size_t n = 0;
    int si, fi, ci;
    char err[WR_BENCH_ERRLEN] = "";
    void *pg_in, *pg_out, *pn_in = NULL, *pn_out = NULL, *d_buf = NULL;

    /* The largest size of the list (at least 2^20: below that latency rules). */
    for (si = 0; si < o->nsizes; si++) if (o->sizes[si] > n) n = o->sizes[si];
    if (n < ((size_t)1 << 20)) n = (size_t)1 << 20;
    if (wr_context_create(&aut, WR_BACKEND_AUTO) != WR_SUCCESS) {
        bench_note("host table: no AUTO context: %s", wr_context_error(NULL));
        failures++;
        return;
    }
    pg_in = host_alloc(n * 4);
    pg_out = host_alloc(n * 4);
    if (pg_in && pg_out) {
        pn_in = bcu_pinned_alloc(n * 4, err);
        pn_out = pn_in ? bcu_pinned_alloc(n * 4, err) : NULL;
        d_buf = pn_out ? bcu_dev_alloc(n * 4, err) : NULL;
    } else {
        strcpy(err, "out of host memory");
    }
    if (d_buf == NULL) {
        bench_note("host table: %s", err);
        failures++;
        goto out;
    }
    bench_fill(pg_in, WR_FLOAT, n, DATA_GENERAL, cell_seed(o, WR_FLOAT, n, 9));
    memcpy(pn_in, pg_in, n * 4);

    {   /* ceilings: host memcpy, and the link in both kinds of host memory */
        struct { const char *label, *name; struct bcu_copy cp; int dev; } cps[] = {
            { "cpu/pageable", "copy (memcpy)", { pg_out, pg_in, n * 4 }, 0 },
            { "cuda/pageable", "copy H2D", { d_buf, pg_in, n * 4 }, 1 },
            { "cuda/pinned", "copy H2D", { d_buf, pn_in, n * 4 }, 1 },
        };
        double ceil[3];
        struct hostcase cases[5];
        int ncases = 0;
        for (ci = 0; ci < 3; ci++) {
            struct bench_row row;
            bench_row_init(&row, "host");
            snprintf(row.backend, sizeof row.backend, "%s", cps[ci].label);
            snprintf(row.name, sizeof row.name, "%s", cps[ci].name);
            row.type = "f32";
            row.n = n;
            row.bytes = (cps[ci].dev ? 1.0 : 2.0) * (double)(n * 4);
            if (bench_time_host(cps[ci].dev ? bcu_copy_h2d : host_copy, &cps[ci].cp,
                                o->warmup, o->reps, &row.t, err)) {
                bench_check_set(&row, "ERROR %s", err);
                row.failed = 1;
                failures++;
            }
            ceil[ci] = row.t.med > 0 ? row.bytes / row.t.med * 1e-9 : 0;
            bench_emit(&row);
        }
        cases[ncases++] = (struct hostcase){ "cpu/pageable", cpu, pg_in, pg_out, 0 };
        if (cuda) {
            cases[ncases++] = (struct hostcase){ "cuda/pageable", cuda, pg_in, pg_out, 0 };
            cases[ncases++] = (struct hostcase){ "cuda/pinned", cuda, pn_in, pn_out, 1 };
        } else {
            bench_note("host table: no cuda context (%s): only cpu and AUTO rows",
                       wr_context_error(NULL));
        }
        cases[ncases++] = (struct hostcase){ "auto/pageable", aut, pg_in, pg_out, 0 };
        cases[ncases++] = (struct hostcase){ "auto/pinned", aut, pn_in, pn_out, 1 };

        for (fi = 0; fi < 2; fi++) {
            struct bench_cell c;
            double cpu_time = 0;
            memset(&c, 0, sizeof c);
            c.func = fi ? BF_SCAN : BF_REDUCE;
            c.type = WR_FLOAT;
            c.op = WR_SUM;
            c.n = n;
            for (ci = 0; ci < ncases; ci++) {
                struct bench_row row;
                struct ourcall a;
                struct env e;
                memset(&a, 0, sizeof a);
                a.ctx = cases[ci].ctx;
                a.c = &c;
                a.in = cases[ci].in;
                a.out = cases[ci].out;
                bench_row_init(&row, "host");
                snprintf(row.name, sizeof row.name, "%s", bench_func_name(c.func));
                row.type = "f32";
                row.op = "sum";
                row.n = n;
                row.bytes = bench_cell_bytes(&c);
                row.ceil_gbps = ci == 0 ? ceil[0] : ceil[cases[ci].pinned ? 2 : 1];
                if (bench_time_host(our_call, &a, o->warmup, o->reps, &row.t, err)) {
                    memset(&row.t, 0, sizeof row.t);
                    bench_check_set(&row, "ERROR %s", err);
                    row.failed = 1;
                } else {
                    memset(&e, 0, sizeof e);
                    e.h_in = (void *)cases[ci].in;
                    e.in = (void *)cases[ci].in;
                    e.h_out = e.out = cases[ci].out;
                    e.backend = wr_context_last_backend(a.ctx);
                    verify_ours(&e, &a, o, &row);
                }
                /* AUTO: say where it went. */
                if (a.ctx == aut && row.t.med > 0)
                    snprintf(row.backend, sizeof row.backend, "%s->%s", cases[ci].label,
                             wr_context_last_backend(aut) == WR_BACKEND_CUDA ? "cuda" : "cpu");
                else
                    snprintf(row.backend, sizeof row.backend, "%s", cases[ci].label);
                if (ci == 0) cpu_time = row.t.med;
                else if (cpu_time > 0) { strcpy(row.ref_name, "cpu backend"); row.ref_time = cpu_time; }
                failures += row.failed;
                bench_emit(&row);
            }
        }
    }
out:
    bcu_dev_free(d_buf);
    bcu_pinned_free(pn_in);
    bcu_pinned_free(pn_out);
    free(pg_in);
    free(pg_out);
    wr_context_destroy(aut);
}

/* ---- main ------------------------------------------------------------------ */

/* Run from the build tree, use the build tree's CUDA plugin (an installed
 * program finds the installed one in $(pkglibdir)). */
static void use_build_tree_plugin(void)
{
#if defined(WR_BENCH_BUILDDIR) && defined(__linux__)
    char exe[4096];
    ssize_t len;
    size_t blen = strlen(WR_BENCH_BUILDDIR);
    if (getenv("WARPRED_PLUGIN_DIR") != NULL) return;
    len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return;
    exe[len] = 0;
    if (strncmp(exe, WR_BENCH_BUILDDIR, blen) == 0 && exe[blen] == '/')
        setenv("WARPRED_PLUGIN_DIR", WR_BENCH_BUILDDIR "/cuda/.libs", 0);
#endif
}

int main(int argc, char **argv)
{
    struct opts o;
    struct bench_meta meta;
    wr_context *cpu = NULL, *cuda = NULL, *cuda_q = NULL;
    char why_dev[WR_BENCH_ERRLEN] = "", why_cuda[WR_BENCH_ERRLEN] = "", date[64], describe[512];
    char command[1024] = "warpred-bench", la[3][16];
    int have_dev, i;
    time_t now = time(NULL);
    struct tm tm;

    parse_args(argc, argv, &o);
    use_build_tree_plugin();
    for (i = 1; i < argc; i++) {
        size_t l = strlen(command);
        snprintf(command + l, sizeof command - l, " %s", argv[i]);
    }
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", &tm);

    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS) {
        fprintf(stderr, "warpred-bench: no cpu context: %s\n", wr_context_error(NULL));
        return 1;
    }
    have_dev = bcu_init(why_dev, sizeof why_dev) == 0;
    if (have_dev && wr_context_create(&cuda, WR_BACKEND_CUDA) != WR_SUCCESS) {
        snprintf(why_cuda, sizeof why_cuda, "no cuda backend: %s", wr_context_error(NULL));
        cuda = NULL;
    }
    if (!have_dev) snprintf(why_cuda, sizeof why_cuda, "no CUDA device: %s", why_dev);
    if (o.backends == 0) o.backends = have_dev ? BK_CUDA : BK_CPU;

    snprintf(describe, sizeof describe, "%s; %s%s%s", wr_context_describe(cpu),
             cuda ? wr_context_describe(cuda) : why_cuda,
             have_dev && !cuda ? "; device " : "", have_dev && !cuda ? bcu_device_name() : "");
    memset(&meta, 0, sizeof meta);
    {   /* Linux: a busy machine explains noisy cpu rows */
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (fscanf(f, "%15s %15s %15s", la[0], la[1], la[2]) == 3)
                snprintf(meta.loadavg, sizeof meta.loadavg, "%s %s %s", la[0], la[1], la[2]);
            fclose(f);
        }
    }
    meta.lib_version = wr_version();
    meta.date = date;
    meta.describe = describe;
    meta.command = command;
    meta.reps = o.reps;
    meta.warmup = o.warmup;
    bench_output_open(o.csv, o.json, o.progress, &meta);
    if (o.async)
        bench_note("--async: \"cuda async\" rows time calls queued on one stream (the context's, for ours), each "
                   "between two events, all behind a kernel that holds the stream while the host queues them "
                   "(device time only); \"cuda graph\" rows, %d calls captured into one CUDA graph, time per call "
                   "over replays; CUB and the copy are queued and captured the same way, on the same buffers",
                   o.graph_calls);
    if (getenv("WARPRED_BACKEND"))
        bench_note("note: WARPRED_BACKEND=%s overrides the contexts' backends", getenv("WARPRED_BACKEND"));

    if (o.want_matrix && (o.backends & BK_OMPT)) {
        struct bomp_opts bo;
        bo.sizes = o.sizes;
        bo.nsizes = o.nsizes;
        bo.reps = o.reps;
        bo.warmup = o.warmup;
        bo.check = o.check;
        failures += bomp_table(&bo, cuda);
    }
    if (o.blas) {
        /* the cpu's rows (the cuda backend's are bench_cuda's business) */
        unsigned ft = o.types & ((1u << WR_FLOAT) | (1u << WR_DOUBLE));
        bench_blas(o.blas, ft ? ft : 1u << WR_DOUBLE, o.sizes, o.nsizes, o.cols, o.ncols, o.fmodes, o.refs,
                   o.reps, o.warmup);
#ifdef WR_BENCH_CUDA
        /* the cuda backend's, beside cuBLAS and a copy */
        if ((o.backends & BK_CUDA) && have_dev)
            failures += bench_blas_cuda(cuda, o.blas, ft ? ft : 1u << WR_DOUBLE, o.sizes, o.nsizes, o.cols, o.ncols,
                                        o.fmodes, o.refs, o.reps, o.warmup);
#endif
    }
    if (o.want_matrix && o.funcs) {
        if (o.backends & BK_CPU) {
            struct env e;
            memset(&e, 0, sizeof e);
            e.name = "cpu";
            e.backend = WR_BACKEND_CPU;
            e.ctx = cpu;
            run_matrix(&e, &o);
        }
        if (o.backends & BK_CUDA) {
            if (!have_dev) {
                bench_note("\ncuda: %s; cuda rows skipped", why_cuda);
            } else {
                struct env e;
                memset(&e, 0, sizeof e);
                e.name = "cuda";
                e.backend = WR_BACKEND_CUDA;
                e.device = 1;
                e.ctx = cuda;
                if (o.async && cuda) {
                    /* the queued calls' context: the same backend, with the
                     * benchmark's stream (the blocking rows keep theirs) */
                    if (wr_context_create(&cuda_q, WR_BACKEND_CUDA) != WR_SUCCESS ||
                        wr_context_set_stream(cuda_q, bcu_stream()) != WR_SUCCESS) {
                        bench_note("cuda: no context with a stream: %s",
                                   wr_context_error(cuda_q ? cuda_q : NULL));
                        failures++;
                        wr_context_destroy(cuda_q);
                        cuda_q = NULL;
                    }
                    e.ctx_q = cuda_q;
                }
                snprintf(e.why, sizeof e.why, "%s", why_cuda);
                if (!cuda) bench_note("\ncuda: %s; CUB and the copy ceiling still run", why_cuda);
                run_matrix(&e, &o);
            }
        }
    }
    if (o.want_host) {
        if (have_dev) run_host_table(&o, cpu, cuda);
        else bench_note("\nhost table skipped: %s", why_cuda);
    }
    if (o.want_seed) {
        if (have_dev) {
            int r = bcu_seed_table(o.warmup, o.reps, cuda);
            failures += r < 0 ? 1 : r;
        } else {
            bench_note("\nseed table skipped: %s", why_cuda);
        }
    }
    if (o.want_matrix && o.targets) bench_targets();
    bench_note("\n%d failure%s", failures, failures == 1 ? "" : "s");
    bench_output_close(failures);
    if (cuda_q && wr_context_synchronize(cuda_q) != WR_SUCCESS) {
        bench_note("cuda: wr_context_synchronize: %s", wr_context_error(cuda_q));
        failures++;
    }
    wr_context_destroy(cuda_q);
    wr_context_destroy(cuda);
    wr_context_destroy(cpu);
    free(o.sizes);
    free(o.cols);
    return failures ? 1 : 0;
}

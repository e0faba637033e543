/*
 * cpu_isa_digest.c -- the cpu backend's results as digests, for
 * tests/cpu_isa.sh, which runs this program once per instruction-set
 * variant (WARPRED_CPU_ISA) and wants the same lines from every one: the
 * variants are the same sources compiled for other instruction sets, and
 * must give the same bits.
 *
 *   cpu_isa_digest --probe   create a cpu context and print its description;
 *                            exit 0, or 2 when the variant cannot run here
 *                            (WR_ERR_NO_BACKEND), 3 when WARPRED_CPU_ISA
 *                            names none (WR_ERR_INVALID_ARG), 1 otherwise
 *   cpu_isa_digest --switch V  create a context, then set WARPRED_CPU_ISA=V
 *                            and create another: exit 0 when that one is
 *                            refused with WR_ERR_INVALID_ARG (the process
 *                            runs one variant), printing the reason
 *   cpu_isa_digest           one line per call: function, type, op, count,
 *                            data, and a 64-bit FNV-1a hash of the output
 *
 * Every (type, op) pair goes through reduce, scan, exscan (out of place and
 * in place), reduce_rows and reduce_segments at sizes that reach every path
 * of the kernels (short chains, one block, many blocks, the threads' runs,
 * streaming stores), and every type through argmin and argmax; the floating
 * data come twice, plain and with NaNs (of several payloads, signalling too),
 * infinities, signed zeros and subnormals sprinkled in.  Scan outputs are
 * compared with their NaNs made one (see canon_nans), everything else bit
 * for bit.  The data follow
 * WR_TEST_SEED, which the script sets once for all runs.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static const size_t sizes[] = { 0, 1, 7, 31, 33, 1000, 4095, 4097, 65537, ((size_t)1 << 20) + 3,
                                ((size_t)4 << 20) + 5 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NMAX (((size_t)4 << 20) + 5)
#define NSEG 200

static uint64_t fnv(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 14695981039346656037u;
    size_t i;
    for (i = 0; i < bytes; i++) h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* Scan outputs: every NaN made the same quiet NaN first.  Where two NaNs of
 * different bits meet in a float SUM or PROD, x86 passes on the first
 * operand's, and the compiler picks the operand order (it differs between
 * the inlined copies of a kernel in one build already); reduce, rows and
 * segments make their NaNs canonical (wrcpu_canon), scans do not. */
static void canon_nans(void *out, size_t n, wr_type t)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t b = tu_get_bits(out, t, i);
        int nan = t == WR_FLOAT ? (b & 0x7fffffffu) > 0x7f800000u
                                : (b & 0x7fffffffffffffffu) > 0x7ff0000000000000u;
        if (nan) tu_set_bits(out, t, i, t == WR_FLOAT ? 0x7fc00000u : 0x7ff8000000000000u);
    }
}

static void line(const char *fn, wr_type t, const char *op, size_t n, const char *data, void *out,
                 size_t bytes)
{
    if (tu_is_float(t) && strncmp(fn, "reduce", 6) != 0 && strcmp(fn, "rows") != 0 && strcmp(fn, "segments") != 0)
        canon_nans(out, bytes / tu_size(t), t);
    printf("%s %s %s %zu %s %016llx\n", fn, tu_type_name(t), op, n, data, (unsigned long long)fnv(out, bytes));
}

static void fail(wr_context *ctx, const char *what, wr_status st)
{
    fprintf(stderr, "cpu_isa_digest: %s: %s: %s\n", what, wr_status_string(st), wr_context_error(ctx));
    exit(1);
}

/* Floating specials, as bits (float, double). */
static const uint32_t special32[] = { 0x7fc00000u, 0x7fc00001u, 0xffc12345u, 0x7f800001u, 0x7f800000u,
                                      0xff800000u, 0x80000000u, 0x00000000u, 0x00000001u, 0x807fffffu,
                                      0x7f7fffffu };
static const uint64_t special64[] = { 0x7ff8000000000000u, 0x7ff8000000000001u, 0xfff8123456789abcu,
                                      0x7ff0000000000001u, 0x7ff0000000000000u, 0xfff0000000000000u,
                                      0x8000000000000000u, 0x0000000000000000u, 0x0000000000000001u,
                                      0x800fffffffffffffu, 0x7fefffffffffffffu };
#define NSPECIAL (sizeof special32 / sizeof special32[0])

/* Sprinkle specials over x[0..n): one in about every 3000 elements, and a
 * few in the first 40 so that the short sizes see them too. */
static void sprinkle(tu_rng *r, void *x, size_t n, wr_type t)
{
    size_t k, m = n / 3000 + 4;
    for (k = 0; k < m; k++) {
        size_t i = k < 4 ? tu_below(r, 40) : tu_below(r, n), s = tu_below(r, NSPECIAL);
        tu_set_bits(x, t, i, t == WR_FLOAT ? special32[s] : special64[s]);
    }
}

static int probe(void)
{
    wr_context *ctx;
    wr_status st = wr_context_create(&ctx, WR_BACKEND_CPU);
    if (st != WR_SUCCESS) {
        printf("%s: %s\n", wr_status_string(st), wr_context_error(NULL));
        return st == WR_ERR_NO_BACKEND ? 2 : st == WR_ERR_INVALID_ARG ? 3 : 1;
    }
    printf("%s\n", wr_context_describe(ctx));
    wr_context_destroy(ctx);
    return 0;
}

static int second(const char *other)
{
    wr_context *a, *b = NULL;
    wr_status st = wr_context_create(&a, WR_BACKEND_CPU);
    if (st != WR_SUCCESS) {
        printf("the first context: %s: %s\n", wr_status_string(st), wr_context_error(NULL));
        return 1;
    }
    setenv("WARPRED_CPU_ISA", other, 1);
    st = wr_context_create(&b, WR_BACKEND_CPU);
    printf("%s: %s\n", wr_status_string(st), st == WR_SUCCESS ? wr_context_describe(b) : wr_context_error(NULL));
    wr_context_destroy(b);
    wr_context_destroy(a);
    return !(st == WR_ERR_INVALID_ARG && strstr(wr_context_error(NULL), "already") != NULL);
}

int main(int argc, char **argv)
{
    wr_context *ctx;
    wr_status st;
    wr_type t;
    wr_op op;
    tu_rng rng;
    unsigned char *in, *out, *tmp;
    size_t off[NSEG + 1];

    if (argc > 1 && strcmp(argv[1], "--probe") == 0) return probe();
    if (argc > 2 && strcmp(argv[1], "--switch") == 0) return second(argv[2]);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    if (st != WR_SUCCESS) fail(NULL, "wr_context_create", st);
    in = malloc(NMAX * 8);
    out = malloc(NMAX * 8);
    tmp = malloc(NMAX * 8);
    if (in == NULL || out == NULL || tmp == NULL) {
        fprintf(stderr, "cpu_isa_digest: out of memory\n");
        return 1;
    }
    tu_rng_seed(&rng, tu_seed());

    TU_FOR_PAIRS(t, op) {
        const size_t sz = tu_size(t);
        const char *opn = tu_op_name(op);
        int d;
        for (d = 0; d < 1 + tu_is_float(t); d++) {
            const char *data = d ? "special" : "plain";
            size_t s, i, rows, cols;
            tu_fill(&rng, in, NMAX, t, op, tu_kind_applies(t, op, TU_ROUNDED) ? TU_ROUNDED : TU_EXACT, NMAX);
            if (d) sprinkle(&rng, in, NMAX, t);
            for (s = 0; s < NSIZES; s++) {
                size_t n = sizes[s];
                if ((st = wr_reduce(ctx, in, out, n, t, op)) != WR_SUCCESS) fail(ctx, "wr_reduce", st);
                line("reduce", t, opn, n, data, out, sz);
                if (n == 0) continue;
                if ((st = wr_scan(ctx, in, out, n, t, op)) != WR_SUCCESS) fail(ctx, "wr_scan", st);
                line("scan", t, opn, n, data, out, n * sz);
                if ((st = wr_exscan(ctx, in, out, n, t, op)) != WR_SUCCESS) fail(ctx, "wr_exscan", st);
                line("exscan", t, opn, n, data, out, n * sz);
                memcpy(tmp, in, n * sz);
                if ((st = wr_scan(ctx, tmp, tmp, n, t, op)) != WR_SUCCESS) fail(ctx, "wr_scan in place", st);
                line("scan-inplace", t, opn, n, data, tmp, n * sz);
            }
            /* rows: many short, a few across blocks, few long ones (the team) */
            for (rows = 1000, cols = 7; rows >= 3; rows /= 16, cols = cols * 37 + 3) {
                if ((st = wr_reduce_rows(ctx, in, out, rows, cols, t, op)) != WR_SUCCESS)
                    fail(ctx, "wr_reduce_rows", st);
                line("rows", t, opn, rows * cols, data, out, rows * sz);
            }
            /* segments: lengths 0..2000, and one over WRCPU_SEG_LONG (2^20) */
            off[0] = 0;
            for (i = 0; i < NSEG; i++) off[i + 1] = off[i] + (i == NSEG / 2 ? ((size_t)1 << 20) + 11 : tu_below(&rng, 2001));
            if ((st = wr_reduce_segments(ctx, in, out, NSEG, off, t, op)) != WR_SUCCESS)
                fail(ctx, "wr_reduce_segments", st);
            line("segments", t, opn, off[NSEG], data, out, NSEG * sz);
            /* argmin/argmax once per type and data, on the SUM data */
            if (op == WR_SUM) {
                for (s = 1; s < NSIZES; s++) {
                    size_t n = sizes[s], idx[2];
                    if ((st = wr_argmin(ctx, in, n, t, &idx[0], NULL)) != WR_SUCCESS) fail(ctx, "wr_argmin", st);
                    if ((st = wr_argmax(ctx, in, n, t, &idx[1], NULL)) != WR_SUCCESS) fail(ctx, "wr_argmax", st);
                    printf("argmin/argmax %s - %zu %s %zu %zu\n", tu_type_name(t), n, data, idx[0], idx[1]);
                }
            }
        }
    }
    free(in);
    free(out);
    free(tmp);
    wr_context_destroy(ctx);
    return 0;
}

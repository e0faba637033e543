/*
 * api_basics.c -- the public API around the operations: wr_version,
 * wr_status_string (every status and unknown values: never NULL),
 * wr_type_size, contexts (create, destroy, NULL destroy, has_backend,
 * describe, last_backend, per-context error text, wr_context_set_error),
 * wr_context_set_stream and wr_context_synchronize where there is no stream
 * to take (cpu contexts) or none set, the WARPRED_BACKEND
 * environment variable (cpu, cuda, auto, garbage), the identity of every
 * valid (type, op) pair on empty input, and WR_ERR_UNSUPPORTED for bitwise
 * ops on float and double in every function.
 *
 * A CUDA context is allowed to work (GPU machine) or to fail with
 * WR_ERR_NO_BACKEND (CI); what must hold in each case is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define NSTATUS 7

static void test_version(void)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", WR_VERSION_MAJOR, WR_VERSION_MINOR, WR_VERSION_PATCH);
    is_string(want, wr_version(), "wr_version() matches WR_VERSION_MAJOR.MINOR.PATCH");
}

static void test_status_strings(void)
{
    static const wr_status all[NSTATUS] = { WR_SUCCESS, WR_ERR_INVALID_ARG, WR_ERR_UNSUPPORTED, WR_ERR_EMPTY,
                                            WR_ERR_NO_BACKEND, WR_ERR_NO_MEMORY, WR_ERR_DEVICE };
    static const int unknown[] = { NSTATUS, -1, 1000, 0x7fffffff };
    int i, j;
    for (i = 0; i < NSTATUS; i++) {
        const char *s = wr_status_string(all[i]);
        int distinct = 1;
        for (j = 0; j < i; j++)
            if (s && strcmp(s, wr_status_string(all[j])) == 0) distinct = 0;
        ok(s != NULL && s[0] != '\0' && distinct, "wr_status_string(%d) is a non-empty text of its own: \"%s\"",
           (int)all[i], s ? s : "(null)");
    }
    for (i = 0; i < (int)(sizeof unknown / sizeof unknown[0]); i++) {
        const char *s = wr_status_string((wr_status)unknown[i]);
        ok(s != NULL && s[0] != '\0', "wr_status_string(%d) (unknown) is not NULL: \"%s\"", unknown[i],
           s ? s : "(null)");
    }
}

static void test_type_size(void)
{
    tu_tally tal;
    int i;
    tu_tally_init(&tal);
    for (i = 0; i < TU_NTYPES; i++)
        tu_expect(&tal, wr_type_size(tu_types[i]) == tu_size(tu_types[i]), "wr_type_size(%s) = %zu",
                  tu_type_name(tu_types[i]), wr_type_size(tu_types[i]));
    tu_expect(&tal, wr_type_size((wr_type)6) == 0, "wr_type_size(6) = %zu", wr_type_size((wr_type)6));
    tu_expect(&tal, wr_type_size((wr_type)-1) == 0, "wr_type_size(-1) = %zu", wr_type_size((wr_type)-1));
    tu_report(&tal, "wr_type_size: 4 or 8 bytes per type, 0 for a value that is not a wr_type");
}

static void test_contexts(void)
{
    wr_context *cpu = NULL, *aut = NULL, *bogus = (wr_context *)&bogus;
    wr_status st;
    int32_t in[3] = { 1, 2, 3 }, out = 0;

    st = wr_context_create(&cpu, WR_BACKEND_CPU);
    ok(st == WR_SUCCESS && cpu != NULL && wr_context_error(NULL)[0] == '\0',
       "CPU context created, no error text left");
    st = wr_context_create(&aut, WR_BACKEND_AUTO);
    ok(st == WR_SUCCESS && aut != NULL, "AUTO context created");
    if (cpu == NULL || aut == NULL) bail("no context: %s", wr_context_error(NULL));

    ok(wr_context_has_backend(cpu, WR_BACKEND_CPU) == 1 && wr_context_has_backend(cpu, WR_BACKEND_AUTO) == 1 &&
       wr_context_has_backend(cpu, WR_BACKEND_CUDA) == 0,
       "CPU context: has cpu and auto, not cuda");
    ok(wr_context_has_backend(aut, WR_BACKEND_CPU) == 1 && wr_context_has_backend(aut, WR_BACKEND_AUTO) == 1,
       "AUTO context: has cpu and auto (cuda: %d)", wr_context_has_backend(aut, WR_BACKEND_CUDA));
    ok(wr_context_has_backend(NULL, WR_BACKEND_CPU) == 0 && wr_context_has_backend(cpu, (wr_backend)7) == 0,
       "has_backend: 0 for a NULL context and for a value that is not a wr_backend");
    ok(tu_contains(wr_context_describe(cpu), "cpu") && tu_contains(wr_context_describe(aut), "cpu"),
       "describe names the cpu backend: \"%s\" / \"%s\"", wr_context_describe(cpu), wr_context_describe(aut));
    ok(wr_context_has_backend(aut, WR_BACKEND_CUDA) == tu_contains(wr_context_describe(aut), "; cuda:"),
       "AUTO describe lists cuda exactly when it has the cuda backend: \"%s\"", wr_context_describe(aut));
    ok(wr_context_describe(NULL) != NULL, "describe(NULL) is not NULL");

    ok(wr_context_last_backend(cpu) == WR_BACKEND_AUTO && wr_context_last_backend(NULL) == WR_BACKEND_AUTO,
       "last_backend is AUTO before any call and for NULL");
    st = wr_reduce(aut, in, &out, 3, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 6 && wr_context_last_backend(aut) == WR_BACKEND_CPU,
       "AUTO on host memory runs on the cpu: last_backend CPU");
    st = wr_reduce(cpu, in, &out, 3, WR_INT32, WR_MAX);
    ok(st == WR_SUCCESS && out == 3 && wr_context_last_backend(cpu) == WR_BACKEND_CPU,
       "CPU context: last_backend CPU after a call");

    /* errors are per context (and per thread): a failure on cpu is not aut's */
    st = wr_reduce(cpu, NULL, &out, 3, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && wr_context_error(cpu)[0] != '\0' && wr_context_error(aut)[0] == '\0' &&
       wr_context_error(NULL)[0] == '\0',
       "a failure leaves its text on its own context only: \"%s\"", wr_context_error(cpu));
    ok(wr_context_last_backend(cpu) == WR_BACKEND_CPU, "a failed call does not change last_backend");
    st = wr_reduce(cpu, in, &out, 3, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && wr_context_error(cpu)[0] == '\0', "the next successful call clears the error text");

    wr_context_destroy(cpu);
    wr_context_destroy(aut);
    wr_context_destroy(NULL);
    ok(1, "wr_context_destroy(NULL) is a no-op");

    st = wr_context_create(NULL, WR_BACKEND_CPU);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(NULL), "ctx"),
       "create with ctx == NULL: INVALID_ARG naming ctx: \"%s\"", wr_context_error(NULL));
    st = wr_context_create(&bogus, (wr_backend)(WR_BACKEND_OPENMP_TARGET + 1));
    ok(st == WR_ERR_INVALID_ARG && bogus == NULL && tu_mentions(wr_context_error(NULL), "backend"),
       "create with backend %d: INVALID_ARG, *ctx = NULL, naming backend: \"%s\"",
       (int)WR_BACKEND_OPENMP_TARGET + 1, wr_context_error(NULL));
    bogus = (wr_context *)&bogus;
    st = wr_context_create(&bogus, (wr_backend)-1);
    ok(st == WR_ERR_INVALID_ARG && bogus == NULL, "create with backend -1: INVALID_ARG, *ctx = NULL");
}

/* The stream calls without a stream: a cpu context has no device backend
 * (WR_ERR_NO_BACKEND, also for NULL), and there is never anything to wait
 * for. */
static void test_streams(void)
{
    wr_context *cpu = tu_context(WR_BACKEND_CPU), *aut = tu_context(WR_BACKEND_AUTO);
    int dummy = 0;
    wr_status st;
    st = wr_context_set_stream(cpu, &dummy);
    ok(st == WR_ERR_NO_BACKEND && tu_contains(wr_context_error(cpu), "device backend"),
       "set_stream on a cpu context: NO_BACKEND: \"%s\"", wr_context_error(cpu));
    ok(wr_context_set_stream(cpu, NULL) == WR_SUCCESS,
       "set_stream(NULL) on a cpu context: WR_SUCCESS (the library's own streams, as everywhere)");
    st = wr_context_synchronize(cpu);
    ok(st == WR_SUCCESS && wr_context_error(cpu)[0] == '\0',
       "synchronize on a cpu context: SUCCESS at once, error text cleared");
    ok(wr_context_set_stream(NULL, NULL) == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(NULL), "ctx") &&
       wr_context_synchronize(NULL) == WR_ERR_INVALID_ARG,
       "set_stream and synchronize with ctx NULL: INVALID_ARG");
    if (wr_context_has_backend(aut, WR_BACKEND_CUDA)) {
        /* (a GPU machine: the stream tests in tests/cuda do the rest) */
        ok(wr_context_set_stream(aut, NULL) == WR_SUCCESS && wr_context_synchronize(aut) == WR_SUCCESS,
           "AUTO context with cuda: set_stream(NULL) and synchronize without a stream succeed");
    } else {
        ok(wr_context_set_stream(aut, &dummy) == WR_ERR_NO_BACKEND && wr_context_synchronize(aut) == WR_SUCCESS,
           "AUTO context without a device backend: set_stream NO_BACKEND, synchronize SUCCESS");
    }
    wr_context_destroy(cpu);
    wr_context_destroy(aut);
}

/* wr_context_set_error: what layered libraries use to leave their own reason. */
static void test_set_error(void)
{
    wr_context *a = tu_context(WR_BACKEND_CPU), *b = tu_context(WR_BACKEND_CPU);
    char longer[2000];
    size_t len;

    wr_context_set_error(a, "mpi: rank 3 said no\nsecond line");
    ok(strcmp(wr_context_error(a), "mpi: rank 3 said no second line") == 0 && wr_context_error(b)[0] == '\0',
       "set_error: one line on its own context only: \"%s\"", wr_context_error(a));
    wr_context_set_error(a, "");
    ok(wr_context_error(a)[0] == '\0', "set_error with \"\" clears it");
    wr_context_set_error(a, "again");
    wr_context_set_error(a, NULL);
    ok(wr_context_error(a)[0] == '\0', "set_error with NULL clears it");
    wr_context_set_error(NULL, "no context");
    ok(strcmp(wr_context_error(NULL), "no context") == 0 && wr_context_error(a)[0] == '\0',
       "set_error(NULL, ...) is what wr_context_error(NULL) returns");
    wr_context_set_error(NULL, NULL);
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    wr_context_set_error(b, longer);
    len = strlen(wr_context_error(b));
    ok(len > 0 && len <= 511, "set_error truncates a long reason (%zu bytes kept)", len);
    wr_context_destroy(a);
    wr_context_destroy(b);
}

/* What a CUDA context must look like: usable with cuda, or refused with a reason. */
static wr_status check_cuda_context(const char *how, wr_backend asked)
{
    wr_context *ctx = (wr_context *)&ctx;
    wr_status st = wr_context_create(&ctx, asked);
    if (st == WR_SUCCESS) {
        ok(ctx != NULL && wr_context_has_backend(ctx, WR_BACKEND_CUDA) &&
           !wr_context_has_backend(ctx, WR_BACKEND_CPU) && tu_contains(wr_context_describe(ctx), "cuda"),
           "%s: a cuda context (has cuda only; \"%s\")", how, wr_context_describe(ctx));
        wr_context_destroy(ctx);
    } else {
        const char *e = wr_context_error(NULL);
        ok(st == WR_ERR_NO_BACKEND && ctx == NULL && tu_contains(e, "cuda"),
           "%s: refused with WR_ERR_NO_BACKEND and a reason: \"%s\"", how, e);
    }
    return st;
}

static void test_env(void)
{
    wr_context *ctx = NULL;
    wr_status direct, st;

    direct = check_cuda_context("CUDA context", WR_BACKEND_CUDA);

    setenv("WARPRED_BACKEND", "cpu", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    ok(st == WR_SUCCESS && ctx && wr_context_has_backend(ctx, WR_BACKEND_CPU) &&
       !wr_context_has_backend(ctx, WR_BACKEND_CUDA),
       "WARPRED_BACKEND=cpu turns a CUDA request into a cpu context");
    wr_context_destroy(ctx);
    ctx = NULL;

    setenv("WARPRED_BACKEND", "cuda", 1);
    st = check_cuda_context("WARPRED_BACKEND=cuda with a CPU request", WR_BACKEND_CPU);
    ok(st == direct, "WARPRED_BACKEND=cuda behaves as a CUDA request (%s, %s)", wr_status_string(st),
       wr_status_string(direct));

    setenv("WARPRED_BACKEND", "auto", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    ok(st == WR_SUCCESS && ctx && wr_context_has_backend(ctx, WR_BACKEND_CPU),
       "WARPRED_BACKEND=auto turns a CUDA request into AUTO (works without a GPU)");
    wr_context_destroy(ctx);
    ctx = (wr_context *)&ctx;

    setenv("WARPRED_BACKEND", "gpu-please", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    ok(st == WR_ERR_INVALID_ARG && ctx == NULL && tu_contains(wr_context_error(NULL), "WARPRED_BACKEND"),
       "WARPRED_BACKEND=gpu-please: INVALID_ARG naming the variable: \"%s\"", wr_context_error(NULL));

    setenv("WARPRED_BACKEND", "", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    ok(st == WR_SUCCESS && ctx != NULL, "WARPRED_BACKEND empty: as if unset");
    wr_context_destroy(ctx);
    unsetenv("WARPRED_BACKEND");
}

/* Every function's empty case gives the identity: reduce of 0 elements,
 * rows with 0 columns, empty segments, exscan's out[0]. */
static void test_identities(wr_context *ctx)
{
    int i, j;
    for (i = 0; i < TU_NTYPES; i++) {
        wr_type t = tu_types[i];
        size_t sz = tu_size(t);
        tu_tally tal;
        tu_tally_init(&tal);
        for (j = 0; j < TU_NOPS; j++) {
            wr_op op = tu_ops[j];
            unsigned char id[8], out[3 * 8], in[2 * 8];
            size_t off[4] = { 2, 2, 2, 2 };
            char w[96], g[96];
            wr_status st;
            tu_rng r;
            int k;
            if (!tu_valid(t, op)) continue;
            tu_identity(t, op, id);

            tu_poison(out, sizeof out);
            st = wr_reduce(ctx, NULL, out, 0, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_same(out, id, t) && tu_poisoned(out + sz, sz),
                      "%s: reduce of 0 elements: %s, got %s, identity %s", tu_op_name(op), wr_status_string(st),
                      tu_fmt(out, t, g, sizeof g), tu_fmt(id, t, w, sizeof w));

            tu_poison(out, sizeof out);
            st = wr_reduce_rows(ctx, NULL, out, 3, 0, t, op);
            for (k = 0; k < 3; k++)
                tu_expect(&tal, st == WR_SUCCESS && tu_same(out + k * sz, id, t),
                          "%s: rows 3 x 0: %s, out[%d] = %s, identity %s", tu_op_name(op), wr_status_string(st),
                          k, tu_fmt(out + k * sz, t, g, sizeof g), tu_fmt(id, t, w, sizeof w));

            tu_poison(out, sizeof out);
            st = wr_reduce_segments(ctx, in, out, 3, off, t, op);
            for (k = 0; k < 3; k++)
                tu_expect(&tal, st == WR_SUCCESS && tu_same(out + k * sz, id, t),
                          "%s: 3 empty segments: %s, out[%d] = %s, identity %s", tu_op_name(op),
                          wr_status_string(st), k, tu_fmt(out + k * sz, t, g, sizeof g), tu_fmt(id, t, w, sizeof w));

            tu_rng_seed(&r, 7u + (unsigned)j);
            tu_fill(&r, in, 2, t, op, TU_EXACT, 2);
            tu_poison(out, sizeof out);
            st = wr_exscan(ctx, in, out, 2, t, op);
            tu_expect(&tal, st == WR_SUCCESS && tu_same(out, id, t) && tu_same(out + sz, in, t),
                      "%s: exscan of 2: %s, out[0] = %s, identity %s", tu_op_name(op), wr_status_string(st),
                      tu_fmt(out, t, g, sizeof g), tu_fmt(id, t, w, sizeof w));
        }
        tu_report(&tal, "%s: identity of every op from reduce(0), rows x 0, empty segments, exscan out[0]",
                  tu_type_name(t));
    }
}

/* Bitwise ops are not defined on floats: WR_ERR_UNSUPPORTED everywhere,
 * also when there is nothing to compute, and no output written. */
static void test_unsupported(wr_context *ctx)
{
    static const wr_type ft[2] = { WR_FLOAT, WR_DOUBLE };
    static const wr_op bit[3] = { WR_BAND, WR_BOR, WR_BXOR };
    int i, j;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++) {
            wr_type t = ft[i];
            wr_op op = bit[j];
            double in[4] = { 1, 2, 3, 4 }, out[4];
            size_t off[3] = { 0, 2, 4 };
            tu_tally tal;
            wr_status st;
            int c;
            tu_tally_init(&tal);
            for (c = 0; c < 2; c++) {
                size_t n = c ? 4 : 0;
#define UNSUP(call, name)                                                                        \
                do {                                                                             \
                    tu_poison(out, sizeof out);                                                  \
                    st = (call);                                                                 \
                    tu_expect(&tal, st == WR_ERR_UNSUPPORTED && tu_mentions(wr_context_error(ctx), "op") && \
                              tu_poisoned(out, sizeof out),                                      \
                              "%s count %zu: %s, \"%s\"%s", name, n, wr_status_string(st),       \
                              wr_context_error(ctx), tu_poisoned(out, sizeof out) ? "" : ", output written"); \
                } while (0)
                UNSUP(wr_reduce(ctx, in, out, n, t, op), "wr_reduce");
                UNSUP(wr_scan(ctx, in, out, n, t, op), "wr_scan");
                UNSUP(wr_exscan(ctx, in, out, n, t, op), "wr_exscan");
                UNSUP(wr_scan(ctx, out, out, n, t, op), "wr_scan in place");
                UNSUP(wr_reduce_rows(ctx, in, out, 2, n / 2, t, op), "wr_reduce_rows");
                UNSUP(wr_reduce_segments(ctx, in, out, 2, off, t, op), "wr_reduce_segments");
#undef UNSUP
            }
            tu_report(&tal, "%s %s: WR_ERR_UNSUPPORTED from every function, error names op, output untouched",
                      tu_type_name(t), tu_op_name(op));
        }
}

int main(void)
{
    wr_context *ctx;
    /* this program checks the variable's effect itself */
    unsetenv("WARPRED_BACKEND");
    plan(1 + NSTATUS + 4 + 1 + 19 + 5 + 5 + 6 + TU_NTYPES + 6);
    test_version();
    test_status_strings();
    test_type_size();
    test_contexts();
    test_streams();
    test_set_error();
    test_env();
    ctx = tu_context(WR_BACKEND_AUTO);
    test_identities(ctx);
    test_unsupported(ctx);
    wr_context_destroy(ctx);
    return 0;
}

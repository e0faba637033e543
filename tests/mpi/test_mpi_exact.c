/*
 * test_mpi_exact.c -- reproducible float sums across ranks: wr_mpi_allreduce
 * with a context in WR_FLOAT_REPRODUCIBLE mode gives, on every rank, the
 * bits of one process's reproducible wr_reduce of the whole global array
 * (which tests/exact checks against an exact reference) -- for every
 * layout of the test harness (uneven pieces, empty ranks, all empty), for
 * one fixed global array cut at random places (so the bits cannot depend on
 * the number of ranks the harness runs this with: 1 to 4), for adversarial
 * values, and for a user's own distributed sum made of wr_reduce_exact, an
 * MPI_Allreduce of wr_exact_sum with a user op, and wr_exact_sum_round.
 * The same layouts and arrays for wr_mpi_scan and wr_mpi_exscan (out of
 * place and in place): every output the bits of one process's reproducible
 * scan of the whole array.  Ranks in different float modes are refused on
 * every rank.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

static wr_context *ctx;

/* The user's op: merge wr_exact_sums (MPI buffers: copies for alignment). */
static void merge_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        wr_exact_sum a, b;
        memcpy(&a, (char *)in + (size_t)i * sizeof a, sizeof a);
        memcpy(&b, (char *)inout + (size_t)i * sizeof b, sizeof b);
        wr_exact_sum_merge(&b, &a);
        memcpy((char *)inout + (size_t)i * sizeof b, &b, sizeof b);
    }
}

/* Element i of the wide-range data (the same on every rank). */
static double wide_value(uint64_t *s, int adversarial)
{
    double v = ldexp((double)(mt_rand(s) >> 11) * 0x1p-53 - 0.5, (int)(mt_rand(s) % 100) - 50);
    if (adversarial) {
        static const double spec[] = { 1e300, -1e300, 0x1p-1074, -0x1p-1060, 1e38, -1e38 };
        if (mt_rand(s) % 16 == 0) v = spec[mt_rand(s) % 6];
    }
    return v;
}

static void fill(void *g, size_t n, wr_type t, int kind, uint64_t seed)
{
    uint64_t s = seed;
    size_t i;
    if (kind == 0) {
        mt_fill(g, n, t, WR_SUM, MT_DATA_RANDOM, seed);
        return;
    }
    for (i = 0; i < n; i++) {
        double v = wide_value(&s, kind == 2);
        if (t == WR_FLOAT) ((float *)g)[i] = (float)v;
        else ((double *)g)[i] = v;
    }
}

/* Allreduce of this rank's piece [off, off+count) of g; checked against one
 * process's reproducible wr_reduce of g, and the same on every rank. */
static void check(const char *what, const void *g, size_t n, size_t off, size_t count, wr_type t)
{
    const size_t w = wr_type_size(t);
    unsigned char got[8], single[8], root[8], user[8];
    void *in = mt_alloc(count * w), *out = mt_alloc(w);
    wr_status st, st1, st2 = WR_SUCCESS;
    wr_exact_sum mine;
    MPI_Datatype dt;
    MPI_Op op;
    int good;
    mt_put(in, (const char *)g + off * w, count * w);
    st = wr_mpi_allreduce(ctx, in, out, count, t, WR_SUM, MPI_COMM_WORLD);
    mt_get(got, out, w);
    st1 = wr_reduce(ctx, g, single, n, t, WR_SUM);
    memcpy(root, got, w);
    MPI_Bcast(root, (int)w, MPI_BYTE, 0, MPI_COMM_WORLD);
    /* the same through the public API, as a user would write it */
    MPI_Type_contiguous(WR_EXACT_SUM_BYTES, MPI_BYTE, &dt);   /* one element a sum */
    MPI_Type_commit(&dt);
    MPI_Op_create(merge_fn, 1, &op);
    if (wr_exact_sum_init(&mine) != WR_SUCCESS || wr_reduce_exact(ctx, in, count, t, &mine) != WR_SUCCESS)
        st2 = WR_ERR_INVALID_ARG;
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, dt, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Type_free(&dt);
    if (st2 == WR_SUCCESS) st2 = wr_exact_sum_round(&mine, t, user);
    good = st == WR_SUCCESS && st1 == WR_SUCCESS && st2 == WR_SUCCESS && mt_same(got, single, 1, w, NULL) &&
           mt_same(got, root, 1, w, NULL) && mt_same(user, single, 1, w, NULL);
    if (!good)
        mt_note("%s (%s): status %d/%d/%d (%s), got %La, one process %La, user's %La", what, mt_type_name(t),
                (int)st, (int)st1, (int)st2, wr_context_error(ctx), mt_get_ld(got, 0, t), mt_get_ld(single, 0, t),
                mt_get_ld(user, 0, t));
    mt_ok(good, "%s (%s, %zu elements): the bits of one process, on every rank", what, mt_type_name(t), n);
    mt_free(in);
    mt_free(out);
}

/* wr_mpi_scan and wr_mpi_exscan of this rank's piece, out of place and in
 * place: the piece's slice of one process's reproducible wr_scan/wr_exscan
 * of g, which tests/exact_scan checks against an exact reference; with
 * device buffers too (the cuda backend's reproducible scans), and on the
 * omptarget backend (forced by WARPRED_BACKEND in the -omp runs), whose
 * reproducible scans give the cpu's bits. */
static void check_scan(const char *what, const void *g, size_t n, size_t off, size_t count, wr_type t)
{
    const size_t w = wr_type_size(t);
    char *single = malloc(n * w + 8), *got = malloc(count * w + 8);
    void *in = mt_alloc(count * w), *out = mt_alloc(count * w);
    int ex, inplace;
    if (single == NULL || got == NULL) bail("out of memory");
    for (ex = 0; ex < 2; ex++) {
        const wr_status st1 = (ex ? wr_exscan : wr_scan)(ctx, g, single, n, t, WR_SUM);
        for (inplace = 0; inplace < 2; inplace++) {
            wr_status st;
            size_t where = 0;
            int good;
            mt_put(in, (const char *)g + off * w, count * w);
            st = (ex ? wr_mpi_exscan : wr_mpi_scan)(ctx, in, inplace ? in : out, count, t, WR_SUM, MPI_COMM_WORLD);
            mt_get(got, inplace ? in : out, count * w);
            good = st == WR_SUCCESS && st1 == WR_SUCCESS && mt_same(got, single + off * w, count, w, &where);
            if (!good)
                mt_note("%s (%s): %s%s status %d (%s), first difference at local %zu of %zu", what,
                        mt_type_name(t), ex ? "wr_mpi_exscan" : "wr_mpi_scan", inplace ? " in place" : "", (int)st,
                        wr_context_error(ctx), where, count);
            mt_ok(good, "%s (%s, %zu elements): %s%s gives %s", what, mt_type_name(t), n,
                  ex ? "wr_mpi_exscan" : "wr_mpi_scan", inplace ? " in place" : "",
                  "one process's bits");
        }
    }
    free(single);
    free(got);
    mt_free(in);
    mt_free(out);
}

int main(int argc, char **argv)
{
    int layout, ti, kind;
    mt_init(&argc, &argv);
    ctx = mt_ctx();
    if (wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS) bail("set_float_mode failed");

    for (ti = 0; ti < 2; ti++) {
        const wr_type t = ti ? WR_DOUBLE : WR_FLOAT;
        const size_t w = wr_type_size(t);
        /* the harness's layouts: the global array depends on the rank count */
        for (layout = 0; layout < MT_NLAYOUTS; layout++) {
            struct mt_piece p = mt_layout(layout);
            for (kind = 0; kind < 3; kind++) {
                char what[96];
                char *g = malloc(p.n * w + 8);
                if (g == NULL) bail("out of memory");
                fill(g, p.n, t, kind, 77u * (unsigned)layout + (unsigned)kind + 1);
                snprintf(what, sizeof what, "%s, %s data", mt_layout_name(layout),
                         kind == 0 ? "random" : kind == 1 ? "wide-range" : "adversarial");
                check(what, g, p.n, p.off, p.count, t);
                check_scan(what, g, p.n, p.off, p.count, t);
                free(g);
            }
        }
        /* one global array whatever the rank count, cut at random places
         * (some pieces empty): the same bits for 1, 2, 3 or 4 ranks */
        {
            const size_t n = 100003;
            char *g = malloc(n * w);
            size_t *cut = malloc(((size_t)mt_size + 1) * sizeof *cut), off, count;
            uint64_t s = 4242;
            int r, k;
            if (g == NULL || cut == NULL) bail("out of memory");
            for (k = 0; k < 3; k++) {
                fill(g, n, t, 2, 99u + (unsigned)k);
                for (r = 1; r < mt_size; r++) cut[r] = (size_t)(mt_rand(&s) % (n + 1));
                cut[0] = 0;
                cut[mt_size] = n;
                for (r = 1; r < mt_size; r++) {          /* sort the cuts */
                    int q;
                    for (q = r; q > 1 && cut[q - 1] > cut[q]; q--) {
                        size_t tmp = cut[q];
                        cut[q] = cut[q - 1];
                        cut[q - 1] = tmp;
                    }
                }
                if (k == 2 && mt_size > 1) cut[1] = 0;   /* rank 0 empty */
                off = cut[mt_rank];
                count = cut[mt_rank + 1] - off;
                check("a fixed array cut at random places", g, n, off, count, t);
                check_scan("a fixed array cut at random places", g, n, off, count, t);
            }
            free(g);
            free(cut);
        }
    }

    /* ranks in different float modes: refused everywhere (no hang) */
    if (mt_size > 1) {
        float x[3] = { 1, 2, 3 }, r = 7;
        wr_status st;
        void *in = mt_alloc(sizeof x), *out = mt_alloc(sizeof r);
        mt_put(in, x, sizeof x);
        mt_put(out, &r, sizeof r);
        if (mt_rank == 1) wr_context_set_float_mode(ctx, WR_FLOAT_FAST);
        st = wr_mpi_allreduce(ctx, in, out, 3, WR_FLOAT, WR_SUM, MPI_COMM_WORLD);
        mt_get(&r, out, sizeof r);
        mt_ok(st == WR_ERR_INVALID_ARG && r == 7, "ranks in different float modes: WR_ERR_INVALID_ARG, out untouched");
        {
            float o[3] = { 7, 7, 7 };
            void *so = mt_alloc(sizeof o);
            mt_put(so, o, sizeof o);
            st = wr_mpi_scan(ctx, in, so, 3, WR_FLOAT, WR_SUM, MPI_COMM_WORLD);
            mt_get(o, so, sizeof o);
            mt_ok(st == WR_ERR_INVALID_ARG, "a scan by ranks in different float modes: WR_ERR_INVALID_ARG");
            mt_free(so);
        }
        wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE);
        mt_free(in);
        mt_free(out);
    }
    return mt_finish();
}

/*
 * test_mpi_dot.c -- wr_mpi_dot, wr_mpi_nrm2 and wr_mpi_asum across ranks.
 *
 * Reproducible mode: on every rank the bits of one process's reproducible
 * wr_dot / wr_nrm2 / wr_asum of the whole global vectors (which tests/dot
 * checks against MPFR) -- for every layout of the harness (uneven pieces,
 * empty ranks, all empty), so the bits cannot depend on the number of
 * ranks this runs with (1 to 4).  Fast mode: the same bits on every rank,
 * within the bound of warpred_mpi.h (the local bound plus one rounding per
 * rank) of the exact value; norms of 1e300 and 1e-300 elements spread over
 * the ranks without overflow.  Argument errors are agreed on every rank.
 */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

static wr_context *fast, *repro;

enum fn { F_DOT, F_ASUM, F_NRM2 };
static const char *const names[] = { "wr_mpi_dot", "wr_mpi_asum", "wr_mpi_nrm2" };

static wr_status local(wr_context *c, enum fn f, const void *x, const void *y, void *out, size_t n, wr_type t)
{
    return f == F_DOT ? wr_dot(c, x, y, out, n, t) : f == F_ASUM ? wr_asum(c, x, out, n, t) : wr_nrm2(c, x, out, n, t);
}

static wr_status global(wr_context *c, enum fn f, const void *x, const void *y, void *out, size_t n, wr_type t)
{
    return f == F_DOT ? wr_mpi_dot(c, x, y, out, n, t, MPI_COMM_WORLD)
         : f == F_ASUM ? wr_mpi_asum(c, x, out, n, t, MPI_COMM_WORLD)
                       : wr_mpi_nrm2(c, x, out, n, t, MPI_COMM_WORLD);
}

static double get(const void *p, wr_type t, size_t i)
{
    return t == WR_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void fill(void *g, size_t n, wr_type t, int kind, uint64_t seed)
{
    uint64_t s = seed;
    size_t i;
    for (i = 0; i < n; i++) {
        double v = ((double)(mt_rand(&s) >> 11) * 0x1p-53 - 0.5);
        if (kind == 1) v = ldexp(v, (int)(mt_rand(&s) % 60) - 30);
        if (kind == 2 && mt_rand(&s) % 8 == 0) {
            static const double spec[] = { 1e300, -1e300, 1e-300, 0x1p-1074, 1e30, -0.0 };
            v = spec[mt_rand(&s) % 6];
            if (t == WR_FLOAT) v = v > 1e30 ? 1e30 : v < -1e30 ? -1e30 : v;
        }
        if (t == WR_FLOAT) ((float *)g)[i] = (float)v;
        else ((double *)g)[i] = v;
    }
}

/* Whether the fast result r is within the bound of the exact e (the
 * reproducible result, within half an ulp of the exact value). */
static int within(enum fn f, const void *gx, const void *gy, size_t n, wr_type t, double r, double e)
{
    const double u = t == WR_FLOAT ? 0x1p-24 : 0x1p-53;
    double L = 1024 + mt_size + 1;
    long double ab = 0;
    size_t m = 1, i;
    while (m < n) {
        m *= 2;
        L += 1;
    }
    if (isnan(e)) return isnan(r);
    if (isinf(e)) return r == e;
    if (f == F_NRM2) return fabs(r - e) <= ((L / 2 + 2 + 3 * mt_size) * u + u) * e + 0x1p-1074;
    if (f == F_ASUM) return fabs(r - e) <= (L + 1) * u * e + 0x1p-1074;
    for (i = 0; i < n; i++) ab += fabsl((long double)get(gx, t, i) * get(gy, t, i));
    return fabsl((long double)r - e) <= (L + 1) * u * ab + u * fabs(e) + n * 0x1p-1074;
}

static void check(enum fn f, wr_type t, int layout, int kind)
{
    const size_t w = wr_type_size(t);
    const struct mt_piece p = mt_layout(layout);
    void *gx = malloc(p.n * w + 8), *gy = malloc(p.n * w + 8);
    void *x = mt_alloc(p.count * w), *y = mt_alloc(p.count * w);
    unsigned char rg[8], rl[8], fg[8], root[8];
    wr_status s1, s2, s3;
    int good;
    if (gx == NULL || gy == NULL) bail("out of memory");
    fill(gx, p.n, t, kind, 1000 + (uint64_t)layout * 7 + (uint64_t)kind);
    fill(gy, p.n, t, 0, 2000 + (uint64_t)layout);
    mt_put(x, (char *)gx + p.off * w, p.count * w);
    mt_put(y, (char *)gy + p.off * w, p.count * w);
    s1 = global(repro, f, x, y, rg, p.count, t);
    s2 = local(repro, f, gx, gy, rl, p.n, t);
    s3 = global(fast, f, x, y, fg, p.count, t);
    memcpy(root, fg, w);
    MPI_Bcast(root, (int)w, MPI_BYTE, 0, MPI_COMM_WORLD);
    good = s1 == WR_SUCCESS && s2 == WR_SUCCESS && s3 == WR_SUCCESS && mt_same(rg, rl, 1, w, NULL) &&
           mt_same(fg, root, 1, w, NULL) && within(f, gx, gy, p.n, t, get(fg, t, 0), get(rl, t, 0));
    if (!good)
        mt_note("%s %s layout %s data %d: status %d/%d/%d (%s), reproducible %a, one process %a, fast %a", names[f],
                mt_type_name(t), mt_layout_name(layout), kind, (int)s1, (int)s2, (int)s3, wr_context_error(repro),
                get(rg, t, 0), get(rl, t, 0), get(fg, t, 0));
    mt_ok(good, "%s %s, layout %s, data %d: reproducible bits of one process; fast within the bound, the same on "
          "every rank", names[f], mt_type_name(t), mt_layout_name(layout), kind);
    mt_free(x);
    mt_free(y);
    free(gx);
    free(gy);
}

/* A norm whose squares overflow and underflow, spread over the ranks. */
static void check_range(void)
{
    double x[3] = { 1e300, 1e-300, 3e299 }, r = 0, rr = 0, want = 0;
    double mine[3];
    size_t n = 0, i;
    /* element i lives on rank i % size */
    for (i = 0; i < 3; i++)
        if ((int)(i % (size_t)mt_size) == mt_rank) mine[n++] = x[i];
    wr_nrm2(repro, x, &want, 3, WR_DOUBLE);
    mt_ok(wr_mpi_nrm2(fast, mine, &r, n, WR_DOUBLE, MPI_COMM_WORLD) == WR_SUCCESS &&
          fabs(r - 1.0440306508910551e300) <= 4e285, "fast wr_mpi_nrm2 of 1e300, 1e-300, 3e299: %.17g", r);
    mt_ok(wr_mpi_nrm2(repro, mine, &rr, n, WR_DOUBLE, MPI_COMM_WORLD) == WR_SUCCESS && rr == want,
          "reproducible wr_mpi_nrm2 of 1e300, 1e-300, 3e299: one process's bits");
}

static void check_errors(void)
{
    double x[4] = { 1, 2, 3, 4 }, out = 42;
    int iv[4] = { 1, 2, 3, 4 }, io = 7;
    wr_status st = wr_mpi_dot(fast, x, x, mt_rank == 0 ? x + 1 : &out, 4, WR_DOUBLE, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_INVALID_ARG && x[1] == 2 && out == 42,
          "out overlapping x on rank 0: WR_ERR_INVALID_ARG on every rank, outputs untouched");
    st = wr_mpi_asum(repro, iv, &io, 4, WR_INT32, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_UNSUPPORTED && io == 7, "int32: WR_ERR_UNSUPPORTED on every rank");
    st = wr_mpi_nrm2(fast, x, NULL, 4, WR_DOUBLE, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_INVALID_ARG, "out NULL: WR_ERR_INVALID_ARG");
    st = wr_mpi_dot(mt_rank == mt_size - 1 ? NULL : fast, x, x, &out, 4, WR_DOUBLE, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_INVALID_ARG && out == 42,
          "a NULL ctx on the last rank: WR_ERR_INVALID_ARG everywhere");
    st = wr_mpi_dot(fast, x, x, &out, 0, WR_DOUBLE, MPI_COMM_WORLD);
    mt_ok(st == WR_SUCCESS && out == 0 && !signbit(out), "every rank empty: +0");
}

int main(int argc, char **argv)
{
    int layout, kind;
    enum fn f;
    wr_type t;
    mt_init(&argc, &argv);
    fast = mt_ctx();
    if (wr_context_create(&repro, WR_BACKEND_AUTO) != WR_SUCCESS) bail("context: %s", wr_context_error(NULL));
    wr_context_set_float_mode(fast, WR_FLOAT_FAST);
    wr_context_set_float_mode(repro, WR_FLOAT_REPRODUCIBLE);
    for (f = F_DOT; f <= F_NRM2; f++)
        for (t = WR_FLOAT; t <= WR_DOUBLE; t++)
            for (layout = 0; layout < MT_NLAYOUTS; layout++)
                for (kind = 0; kind < 3; kind++) check(f, t, layout, kind);
    check_range();
    check_errors();
    wr_context_destroy(repro);
    return mt_finish();
}

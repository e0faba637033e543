/*
 * test_mpi_allreduce.c -- wr_mpi_allreduce against one process reducing the
 * whole global array: every type and op, every layout (uneven pieces, empty
 * ranks, all empty), the same bits on every rank and on a second run.
 *
 * Every rank generates the whole global array from a seed shared by all, so
 * each can compute the references by itself: a serial fold of wr_ops.h's
 * definitions, and wr_reduce over the whole array on this one process.
 */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_ops.h"

/* DESIGN.md's reduce bound, plus one rounding per rank for the combination
 * across ranks: |r - exact| <= (ceil(log2 n) + 1024 + P) u sum|x|. */
static int within_bound(const void *global, size_t n, wr_type t, const void *got)
{
    long double exact = 0, mag = 0, u = t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
    size_t i;
    for (i = 0; i < n; i++) {
        long double x = mt_get_ld(global, i, t);
        exact += x;
        mag += fabsl(x);
    }
    return fabsl(mt_get_ld(got, 0, t) - exact) <=
           (ceill(log2l((long double)n + 1)) + 1024 + mt_size) * u * mag;
}

int main(int argc, char **argv)
{
    struct mt_case cases[64];
    int ncases, layout, k;
    wr_context *ctx;

    mt_init(&argc, &argv);
    ctx = mt_ctx();
    ncases = mt_cases(cases);

    for (layout = 0; layout < MT_NLAYOUTS; layout++) {
        struct mt_piece piece = mt_layout(layout);
        size_t n = piece.n, count = piece.count, off = piece.off;
        for (k = 0; k < ncases; k++) {
            const struct mt_case *c = &cases[k];
            size_t w = wr_type_size(c->type);
            unsigned char got[8], again[8], root[8], ref[8], single[8];
            char *global = malloc(n * w + 1);
            void *in = mt_alloc(count * w), *out = mt_alloc(w);
            wr_status st, st2, st3;
            int good;

            if (global == NULL) bail("out of memory");
            mt_fill(global, n, c->type, c->op, c->data, 1000u * (unsigned)layout + (unsigned)k);
            mt_put(in, global + off * w, count * w);
            st = wr_mpi_allreduce(ctx, in, out, count, c->type, c->op, MPI_COMM_WORLD);
            mt_get(got, out, w);
            st2 = wr_mpi_allreduce(ctx, in, out, count, c->type, c->op, MPI_COMM_WORLD);
            mt_get(again, out, w);
            memcpy(root, got, w);
            MPI_Bcast(root, (int)w, MPI_BYTE, 0, MPI_COMM_WORLD);

            mt_ref_reduce(global, ref, n, c->type, c->op);
            st3 = wr_reduce(ctx, global, single, n, c->type, c->op);
            good = st == WR_SUCCESS && st2 == WR_SUCCESS && st3 == WR_SUCCESS &&
                   mt_same(got, again, 1, w, NULL) && mt_same(got, root, 1, w, NULL);
            if (c->exact)
                good = good && mt_same(got, ref, 1, w, NULL) && mt_same(got, single, 1, w, NULL);
            else
                good = good && within_bound(global, n, c->type, got);
            if (!good)
                mt_note("allreduce %s %s: status %d/%d (%s), got %Lg, reference %Lg, one process %Lg",
                        mt_type_name(c->type), mt_op_name(c->op), (int)st, (int)st2,
                        wr_context_error(ctx), mt_get_ld(got, 0, c->type), mt_get_ld(ref, 0, c->type),
                        mt_get_ld(single, 0, c->type));
            mt_ok(good, "allreduce %s %s, %s data, %s (%zu elements)", mt_type_name(c->type),
                  mt_op_name(c->op), mt_data_name(c->data), mt_layout_name(layout), n);
            mt_free(in);
            mt_free(out);
            free(global);
        }
    }
    return mt_finish();
}

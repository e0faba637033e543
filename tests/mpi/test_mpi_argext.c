/*
 * test_mpi_argext.c -- wr_mpi_argmin / wr_mpi_argmax against one process
 * searching the whole global array: the first index of the extreme when it
 * appears on several ranks, a NaN on any rank winning (the first NaN
 * globally), -0.0 and +0.0 as ties, empty ranks taking no part, and
 * WR_ERR_EMPTY on every rank when all are empty (outputs untouched).
 */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_ops.h"

/* The data variants, plus NaNs placed only in the last quarter of the
 * global array (so on a late rank, behind every other candidate). */
enum { LATE_NAN = 100 };

static const char *variant_name(int v)
{
    return v == LATE_NAN ? "NaNs late" : mt_data_name((enum mt_data)v);
}

int main(int argc, char **argv)
{
    static const int int_variants[] = { MT_DATA_RANDOM, MT_DATA_TIES };
    static const int float_variants[] = { MT_DATA_RANDOM, MT_DATA_TIES, MT_DATA_SPECIAL, MT_DATA_NAN,
                                          LATE_NAN };
    int layout, t;
    wr_context *ctx;

    mt_init(&argc, &argv);
    ctx = mt_ctx();

    for (layout = 0; layout < MT_NLAYOUTS; layout++) {
        struct mt_piece piece = mt_layout(layout);
        size_t n = piece.n, count = piece.count, off = piece.off;
        for (t = WR_INT32; t <= WR_DOUBLE; t++) {
            int is_float = t == WR_FLOAT || t == WR_DOUBLE;
            const int *variants = is_float ? float_variants : int_variants;
            int nvariants = is_float ? 5 : 2, v, is_max;
            size_t w = wr_type_size((wr_type)t);
            for (v = 0; v < nvariants; v++)
                for (is_max = 0; is_max <= 1; is_max++) {
                    const char *name = is_max ? "argmax" : "argmin";
                    char *global = malloc(n * w + 1);
                    void *in = mt_alloc(count * w), *value = mt_alloc(w);
                    unsigned char got_value[8], sentinel[8], single_value[8];
                    uint64_t index = UINT64_MAX, index2 = UINT64_MAX;
                    size_t ref = 0, single = 0;
                    wr_status st, st2, sst;
                    int has_ref, good;

                    if (global == NULL) bail("out of memory");
                    if (variants[v] == LATE_NAN) {
                        mt_fill(global, n, (wr_type)t, WR_MIN, MT_DATA_SPECIAL, 3000u + (unsigned)layout);
                        if (n > 0) {
                            size_t a = n - 1 - (n - 1) / 4, b = n - 1;
                            if (t == WR_FLOAT) { ((float *)global)[a] = NAN; ((float *)global)[b] = NAN; }
                            else { ((double *)global)[a] = NAN; ((double *)global)[b] = NAN; }
                        }
                    } else {
                        mt_fill(global, n, (wr_type)t, WR_MIN, (enum mt_data)variants[v],
                                3000u + 100u * (unsigned)layout + 10u * (unsigned)v + (unsigned)t);
                    }
                    memset(sentinel, 0xA5, sizeof sentinel);
                    mt_put(value, sentinel, w);
                    mt_put(in, global + off * w, count * w);
                    st = (is_max ? wr_mpi_argmax : wr_mpi_argmin)(ctx, in, count, (wr_type)t, &index, value,
                                                                 MPI_COMM_WORLD);
                    mt_get(got_value, value, w);
                    st2 = (is_max ? wr_mpi_argmax : wr_mpi_argmin)(ctx, in, count, (wr_type)t, &index2, NULL,
                                                                  MPI_COMM_WORLD);
                    has_ref = mt_ref_argext(global, n, (wr_type)t, is_max, &ref);
                    sst = (is_max ? wr_argmax : wr_argmin)(ctx, global, n, (wr_type)t, &single, single_value);

                    if (!has_ref) {
                        /* every rank empty: WR_ERR_EMPTY everywhere, nothing written */
                        good = st == WR_ERR_EMPTY && st2 == WR_ERR_EMPTY && sst == WR_ERR_EMPTY &&
                               index == UINT64_MAX && index2 == UINT64_MAX &&
                               mt_same(got_value, sentinel, 1, w, NULL);
                    } else {
                        good = st == WR_SUCCESS && st2 == WR_SUCCESS && sst == WR_SUCCESS &&
                               index == (uint64_t)ref && index2 == (uint64_t)ref && single == ref &&
                               mt_same(got_value, global + ref * w, 1, w, NULL);
                    }
                    if (!good)
                        mt_note("%s %s %s: status %d/%d/%d (%s); index %llu/%llu, reference %zu, one "
                                "process %zu; value %Lg", name, mt_type_name((wr_type)t),
                                variant_name(variants[v]), (int)st, (int)st2, (int)sst, wr_context_error(ctx),
                                (unsigned long long)index, (unsigned long long)index2, ref, single,
                                mt_get_ld(got_value, 0, (wr_type)t));
                    mt_ok(good, "%s %s, %s, %s (%zu elements)%s", name, mt_type_name((wr_type)t),
                          variant_name(variants[v]), mt_layout_name(layout), n,
                          has_ref ? "" : ": WR_ERR_EMPTY everywhere");
                    mt_free(in);
                    mt_free(value);
                    free(global);
                }
        }
    }
    return mt_finish();
}

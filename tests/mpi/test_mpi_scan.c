/*
 * test_mpi_scan.c -- wr_mpi_scan and wr_mpi_exscan against one process
 * scanning the whole global array: every type and op, every layout, in place
 * and not, and both ways of applying a rank's base (the host loop, and the
 * fold through public calls that device buffers need), whichever the public
 * call picks for this context.
 *
 * References: a serial scan of wr_ops.h's definitions and wr_scan/wr_exscan
 * of the whole array on this one process (integers and every exact case must
 * match both bit for bit); float SUM of random data within DESIGN.md's scan
 * accuracy, against a long double prefix.
 */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_mpi_internal.h"
#include "wr_ops.h"

static const char *path_name(enum wrm_scan_path p)
{
    return p == WRM_PATH_AUTO ? "public call" : p == WRM_PATH_HOST ? "host loop" : "fold";
}

/* DESIGN.md: every output within 1e-4 relative of the exact prefix for float
 * (scaled by the precision for double), the prefix of |x| standing in for
 * the exact prefix when signs mix. */
static int within_bound(const char *global, size_t off, size_t count, wr_type t, int exclusive,
                        const void *got, size_t *where)
{
    long double exact = 0, mag = 0, rel = t == WR_FLOAT ? 1e-4L : 1e-4L * 0x1p-29L;
    size_t i;
    for (i = 0; i < off; i++) {
        long double x = mt_get_ld(global, i, t);
        exact += x;
        mag += fabsl(x);
    }
    for (i = 0; i < count; i++) {
        long double x = mt_get_ld(global, off + i, t);
        if (!exclusive) { exact += x; mag += fabsl(x); }
        if (!(fabsl(mt_get_ld(got, i, t) - exact) <= rel * mag)) {
            *where = i;
            return 0;
        }
        if (exclusive) { exact += x; mag += fabsl(x); }
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct mt_case cases[64];
    enum wrm_scan_path paths[3];
    int ncases, npaths = 0, layout, k, p, exclusive, inplace;
    wr_context *ctx;

    mt_init(&argc, &argv);
    ctx = mt_ctx();
    ncases = mt_cases(cases);
    paths[npaths++] = WRM_PATH_AUTO;
    paths[npaths++] = WRM_PATH_FOLD;
    if (!mt_device) paths[npaths++] = WRM_PATH_HOST;   /* the host loop cannot reach device memory */

    for (layout = 0; layout < MT_NLAYOUTS; layout++) {
        struct mt_piece piece = mt_layout(layout);
        size_t n = piece.n, count = piece.count, off = piece.off;
        for (k = 0; k < ncases; k++) {
            const struct mt_case *c = &cases[k];
            size_t w = wr_type_size(c->type);
            char *global = malloc(n * w + 1), *ref = malloc(n * w + 1), *single = malloc(n * w + 1);
            char *got = malloc(count * w + 1), *again = malloc(count * w + 1);
            void *in = mt_alloc(count * w), *out = mt_alloc(count * w);

            if (!global || !ref || !single || !got || !again) bail("out of memory");
            mt_fill(global, n, c->type, c->op, c->data, 2000u * (unsigned)layout + (unsigned)k);
            for (exclusive = 0; exclusive <= 1; exclusive++) {
                const char *name = exclusive ? "exscan" : "scan";
                wr_status sst;
                mt_ref_scan(global, ref, n, c->type, c->op, exclusive);
                sst = (exclusive ? wr_exscan : wr_scan)(ctx, global, single, n, c->type, c->op);
                for (p = 0; p < npaths; p++)
                    for (inplace = 0; inplace <= 1; inplace++) {
                        void *dst = inplace ? in : out;
                        size_t where = 0;
                        wr_status st, st2 = WR_SUCCESS;
                        int good, repeats = 1;

                        mt_put(in, global + off * w, count * w);
                        if (paths[p] == WRM_PATH_AUTO)
                            st = (exclusive ? wr_mpi_exscan : wr_mpi_scan)(ctx, in, dst, count, c->type,
                                                                          c->op, MPI_COMM_WORLD);
                        else
                            st = wri_mpi_scan(ctx, in, dst, count, c->type, c->op, MPI_COMM_WORLD,
                                              exclusive, paths[p]);
                        mt_get(got, dst, count * w);
                        if (!c->exact && !inplace) {
                            /* the same bits on a second run */
                            st2 = wri_mpi_scan(ctx, in, dst, count, c->type, c->op, MPI_COMM_WORLD,
                                               exclusive, paths[p]);
                            mt_get(again, dst, count * w);
                            repeats = mt_same(got, again, count, w, &where);
                        }
                        good = st == WR_SUCCESS && st2 == WR_SUCCESS && sst == WR_SUCCESS && repeats;
                        if (good && c->exact)
                            good = mt_same(got, ref + off * w, count, w, &where) &&
                                   mt_same(got, single + off * w, count, w, &where);
                        else if (good)
                            good = within_bound(global, off, count, c->type, exclusive, got, &where);
                        if (!good)
                            mt_note("%s %s %s (%s, %s): status %d/%d/%d (%s); element %zu of %zu: got %Lg, "
                                    "reference %Lg", name, mt_type_name(c->type), mt_op_name(c->op),
                                    path_name(paths[p]), inplace ? "in place" : "out of place", (int)st,
                                    (int)st2, (int)sst, wr_context_error(ctx), where, count,
                                    count ? mt_get_ld(got, where, c->type) : 0.0L,
                                    count ? mt_get_ld(ref, off + where, c->type) : 0.0L);
                        mt_ok(good, "%s %s %s, %s data, %s (%zu elements), %s, %s", name,
                              mt_type_name(c->type), mt_op_name(c->op), mt_data_name(c->data),
                              mt_layout_name(layout), n, path_name(paths[p]),
                              inplace ? "in place" : "out of place");
                    }
            }
            mt_free(in);
            mt_free(out);
            free(global);
            free(ref);
            free(single);
            free(got);
            free(again);
        }
    }
    return mt_finish();
}

/*
 * mpi_prefix_sum.c -- a prefix sum over an array spread across MPI ranks.
 *
 *   mpicc mpi_prefix_sum.c $(pkg-config --cflags --libs warpred_mpi) -o mpi_prefix_sum
 *   mpiexec -n 4 ./mpi_prefix_sum [elements-per-rank]
 *
 * Rank r holds a piece of the global array 1, 2, 3, ..., N (pieces of uneven
 * length; rank 1's is empty), and wants, for each of its elements, the sum of
 * the global array up to it.  Three collective calls:
 *   wr_mpi_exscan    where my piece starts (exclusive scan of the piece lengths),
 *   wr_mpi_scan      the prefix sums themselves,
 *   wr_mpi_allreduce the grand total.
 * Each rank checks its prefixes against k(k+1)/2; the exit status says
 * whether every rank got them right.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <warpred_mpi.h>

/* Stop every rank with the library's reason. */
static void check(wr_context *ctx, wr_status st, const char *what)
{
    if (st == WR_SUCCESS) return;
    fprintf(stderr, "%s: %s: %s\n", what, wr_status_string(st), wr_context_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    wr_context *ctx;
    int rank, size, bad = 0, any_bad = 0;
    size_t n = 1000, count, i;
    uint64_t mine, first;
    int64_t *x, *prefix, total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) n = (size_t)strtoull(argv[1], NULL, 10);

    /* AUTO: on a GPU node, buffers from cudaMalloc would run on the GPU. */
    check(NULL, wr_context_create(&ctx, WR_BACKEND_AUTO), "wr_context_create");

    /* Uneven pieces, one of them empty: the library does not mind. */
    count = rank == 1 ? 0 : n + (size_t)rank;
    x = malloc((count ? count : 1) * sizeof *x);
    prefix = malloc((count ? count : 1) * sizeof *prefix);
    if (x == NULL || prefix == NULL) MPI_Abort(MPI_COMM_WORLD, 1);

    /* My first global index: the lengths of all lower ranks' pieces. */
    mine = count;
    check(ctx, wr_mpi_exscan(ctx, &mine, &first, 1, WR_UINT64, WR_SUM, MPI_COMM_WORLD), "wr_mpi_exscan");
    for (i = 0; i < count; i++)
        x[i] = (int64_t)(first + i + 1);

    /* prefix[i] = x[0] + ... of every lower rank ... + x[i] */
    check(ctx, wr_mpi_scan(ctx, x, prefix, count, WR_INT64, WR_SUM, MPI_COMM_WORLD), "wr_mpi_scan");
    check(ctx, wr_mpi_allreduce(ctx, x, &total, count, WR_INT64, WR_SUM, MPI_COMM_WORLD),
          "wr_mpi_allreduce");

    for (i = 0; i < count; i++) {
        int64_t k = (int64_t)(first + i + 1);
        if (prefix[i] != k * (k + 1) / 2) bad = 1;
    }
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum of 1..N over %d ranks: %" PRId64 "; prefix sums %s on every rank\n",
               size, total, any_bad ? "WRONG" : "as expected");

    free(x);
    free(prefix);
    wr_context_destroy(ctx);
    MPI_Finalize();
    return any_bad;
}

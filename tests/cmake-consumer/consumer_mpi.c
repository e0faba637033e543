/* consumer_mpi.c -- built by CMake against the installed libwarpred_mpi
 * (warpred::mpi, which brings MPI::MPI_C): rank r holds r+1 elements, all
 * equal to r+1; the global array is 1, 2, 2, 3, 3, 3, ... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <warpred_mpi.h>

int main(int argc, char **argv)
{
    wr_context *ctx;
    int rank, size, bad = 0, any_bad = 0;
    size_t count, i;
    int64_t x[64], prefix[64], total, before = 0, want_total = 0;
    uint64_t at = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 63 || wr_context_create(&ctx, WR_BACKEND_AUTO) != WR_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    count = (size_t)rank + 1;
    for (i = 0; i < count; i++) x[i] = rank + 1;
    for (i = 1; i <= (size_t)rank; i++) before += (int64_t)(i * i);         /* lower ranks' sum */
    for (i = 1; i <= (size_t)size; i++) want_total += (int64_t)(i * i);

    if (wr_mpi_allreduce(ctx, x, &total, count, WR_INT64, WR_SUM, MPI_COMM_WORLD) != WR_SUCCESS
        || total != want_total)
        bad |= 1;
    if (wr_mpi_scan(ctx, x, prefix, count, WR_INT64, WR_SUM, MPI_COMM_WORLD) != WR_SUCCESS)
        bad |= 2;
    for (i = 0; i < count; i++)
        if (prefix[i] != before + (int64_t)(i + 1) * (rank + 1)) bad |= 2;
    /* the first element of the last rank is the first maximum: index
     * 1 + 2 + ... + (size-1) */
    if (wr_mpi_argmax(ctx, x, count, WR_INT64, &at, NULL, MPI_COMM_WORLD) != WR_SUCCESS
        || at != (uint64_t)size * (uint64_t)(size - 1) / 2)
        bad |= 4;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("consumer_mpi: %d ranks, total %lld, allreduce %s, scan %s, argmax %s\n", size,
               (long long)total, any_bad & 1 ? "WRONG" : "ok", any_bad & 2 ? "WRONG" : "ok",
               any_bad & 4 ? "WRONG" : "ok");
    wr_context_destroy(ctx);
    MPI_Finalize();
    return any_bad != 0;
}

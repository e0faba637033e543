/* consumer_mpi.c -- an MPI program outside libwarpred, built by the
 * autopkgtest against the installed libwarpred_mpi (pkg-config warpred_mpi)
 * and run on 2 ranks, each on the cpu backend.  Each rank holds a piece of a
 * global array whose elements are a function of their global index; every
 * rank computes the expected results of the whole array itself. */
#include <stdint.h>
#include <stdio.h>
#include <warpred_mpi.h>

static int rank, tests, failures;

static void check(int ok, const char *what)
{
    tests++;
    printf("%s %d - rank %d: %s\n", ok ? "ok" : "not ok", tests, rank, what);
    if (!ok) failures++;
}

static int64_t element(uint64_t g)              /* a hash of the global index */
{
    uint64_t z = g * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (int64_t)((z ^ (z >> 31)) % 2000001) - 1000000;
}

static size_t piece(int r) { return 50000 + 3331 * (size_t)r; }   /* pieces differ */

int main(int argc, char **argv)
{
    static int64_t x[200000], prefix[200000], exprefix[200000];
    int nranks, r, ok;
    uint64_t first = 0, g, total_n = 0, at = 0, want_at = 0;
    int64_t total = 0, got = 0, want_max = INT64_MIN, acc, val = 0;
    size_t i, n;
    wr_context *ctx;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (r = 0; r < nranks; r++) {
        if (r < rank) first += piece(r);
        total_n += piece(r);
    }
    for (g = 0; g < total_n; g++) {
        total += element(g);
        if (element(g) > want_max) { want_max = element(g); want_at = g; }
    }
    n = piece(rank);
    for (i = 0; i < n; i++) x[i] = element(first + i);

    if (wr_context_create(&ctx, WR_BACKEND_CPU) != WR_SUCCESS) {
        printf("not ok 1 - rank %d: wr_context_create: %s\n", rank, wr_context_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(nranks == 2, "2 ranks");
    ok = wr_mpi_allreduce(ctx, x, &got, n, WR_INT64, WR_SUM, MPI_COMM_WORLD) == WR_SUCCESS && got == total;
    check(ok, "wr_mpi_allreduce int64 SUM of the global array");
    ok = wr_mpi_scan(ctx, x, prefix, n, WR_INT64, WR_SUM, MPI_COMM_WORLD) == WR_SUCCESS;
    for (acc = 0, g = 0; g < first; g++) acc += element(g);
    for (i = 0; ok && i < n; i++) { acc += element(first + i); ok = prefix[i] == acc; }
    check(ok, "wr_mpi_scan int64 SUM: every global prefix");
    ok = wr_mpi_exscan(ctx, x, exprefix, n, WR_INT64, WR_SUM, MPI_COMM_WORLD) == WR_SUCCESS;
    for (acc = 0, g = 0; g < first; g++) acc += element(g);
    for (i = 0; ok && i < n; i++) { ok = exprefix[i] == acc; acc += element(first + i); }
    check(ok, "wr_mpi_exscan int64 SUM: every global exclusive prefix");
    ok = wr_mpi_argmax(ctx, x, n, WR_INT64, &at, &val, MPI_COMM_WORLD) == WR_SUCCESS &&
         at == want_at && val == want_max;
    check(ok, "wr_mpi_argmax int64: the global index of the first maximum");

    wr_context_destroy(ctx);
    printf("%d passed, %d failed\n", tests - failures, failures);
    MPI_Finalize();
    return failures != 0;
}

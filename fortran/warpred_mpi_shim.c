/*
 * warpred_mpi_shim.c -- the C side of the Fortran module warpred_mpi: each
 * wrf_mpi_* takes the communicator as a Fortran handle's value (an mpi_f08
 * type(MPI_Comm)'s MPI_VAL, or a `use mpi` integer; an int, which is C's
 * interoperable kind and what MPI_Fint is with default Fortran integers),
 * converts it with MPI_Comm_f2c and calls the wr_mpi_* function of
 * libwarpred_mpi.
 *
 * Lives in libwarpred_mpi_fortran with the module's own code, not in
 * libwarpred_mpi: these are the module's private entry points (no header,
 * no promise to C callers), so they change with the module, and
 * libwarpred_mpi keeps exporting exactly the documented wr_mpi_* functions.
 */
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include <warpred_mpi.h>

/* MPI_Comm_f2c needs MPI initialized; before MPI_Init or after
 * MPI_Finalize, hand the library MPI_COMM_NULL and let it report that. */
static MPI_Comm comm_f2c(int comm)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin ? MPI_Comm_f2c((MPI_Fint)comm) : MPI_COMM_NULL;
}

wr_status wrf_mpi_allreduce(wr_context *ctx, const void *in, void *out, size_t count,
                            wr_type type, wr_op op, int comm)
{
    return wr_mpi_allreduce(ctx, in, out, count, type, op, comm_f2c(comm));
}

wr_status wrf_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count,
                       wr_type type, wr_op op, int comm)
{
    return wr_mpi_scan(ctx, in, out, count, type, op, comm_f2c(comm));
}

wr_status wrf_mpi_exscan(wr_context *ctx, const void *in, void *out, size_t count,
                         wr_type type, wr_op op, int comm)
{
    return wr_mpi_exscan(ctx, in, out, count, type, op, comm_f2c(comm));
}

wr_status wrf_mpi_argmin(wr_context *ctx, const void *in, size_t count, wr_type type,
                         uint64_t *index, void *value, int comm)
{
    return wr_mpi_argmin(ctx, in, count, type, index, value, comm_f2c(comm));
}

wr_status wrf_mpi_argmax(wr_context *ctx, const void *in, size_t count, wr_type type,
                         uint64_t *index, void *value, int comm)
{
    return wr_mpi_argmax(ctx, in, count, type, index, value, comm_f2c(comm));
}

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
#include <stdio.h>
#include <mpi.h>
#include <warpred_mpi.h>

/*
 * *c = the C handle of Fortran handle f; 0, or -1 with fn's reason in ctx's
 * error when f names no communicator.
 *
 * Before MPI_Init or after MPI_Finalize MPI_Comm_f2c may not be called:
 * the library gets MPI_COMM_NULL and reports which of the two it is.
 *
 * A handle that names nothing must not reach the library: its first MPI
 * call on it (MPI_Comm_test_inter) would raise MPI_ERR_COMM on the error
 * handler of MPI_COMM_WORLD, fatal by default, ending the whole job.  MPI
 * has no portable validity test: MPI_Comm_f2c of an invalid handle returns
 * "an invalid handle" (MPI-4.0, 19.3.4), which one unspecified.  So this
 * refuses what an MPI library shows to be invalid: MPI_COMM_NULL from a
 * value other than MPI_COMM_NULL's own, and a null C handle, which Open
 * MPI returns for any value that is no live communicator's index (made up,
 * negative, or freed) and which is no valid handle in MPICH either (whose
 * handles are integers with a nonzero kind field).  MPICH's MPI_Comm_f2c is
 * a cast: a made-up value there still reaches MPI's error handler.
 *
 * Every rank decides alone, without communicating: a handle invalid on one
 * rank only leaves the others waiting in their collective, as any other
 * misuse of a communicator would.
 */
static int comm_f2c(wr_context *ctx, const char *fn, int f, MPI_Comm *c)
{
    int init = 0, fin = 0;
    char why[256];

    *c = MPI_COMM_NULL;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin) return 0;
    *c = MPI_Comm_f2c((MPI_Fint)f);
    if (*c == MPI_COMM_NULL ? (MPI_Fint)f == MPI_Comm_c2f(MPI_COMM_NULL) : *c != (MPI_Comm)0) return 0;
    snprintf(why, sizeof why, "%s: comm (Fortran handle %d) is not a communicator: MPI_Comm_f2c gave %s",
             fn, f, *c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "an invalid (null) handle");
    wr_context_set_error(ctx, why);
    return -1;
}

wr_status wrf_mpi_allreduce(wr_context *ctx, const void *in, void *out, size_t count,
                            wr_type type, wr_op op, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_allreduce", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_allreduce(ctx, in, out, count, type, op, c);
}

wr_status wrf_mpi_scan(wr_context *ctx, const void *in, void *out, size_t count,
                       wr_type type, wr_op op, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_scan", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_scan(ctx, in, out, count, type, op, c);
}

wr_status wrf_mpi_exscan(wr_context *ctx, const void *in, void *out, size_t count,
                         wr_type type, wr_op op, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_exscan", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_exscan(ctx, in, out, count, type, op, c);
}

wr_status wrf_mpi_argmin(wr_context *ctx, const void *in, size_t count, wr_type type,
                         uint64_t *index, void *value, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_argmin", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_argmin(ctx, in, count, type, index, value, c);
}

wr_status wrf_mpi_argmax(wr_context *ctx, const void *in, size_t count, wr_type type,
                         uint64_t *index, void *value, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_argmax", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_argmax(ctx, in, count, type, index, value, c);
}

wr_status wrf_mpi_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count, wr_type type,
                      int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, "wr_mpi_dot", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return wr_mpi_dot(ctx, x, y, out, count, type, c);
}

/* which: 0 wr_mpi_nrm2, 1 wr_mpi_asum (one shim for the two one-vector calls) */
wr_status wrf_mpi_norm(int which, wr_context *ctx, const void *x, void *out, size_t count, wr_type type, int comm)
{
    MPI_Comm c;
    if (comm_f2c(ctx, which ? "wr_mpi_asum" : "wr_mpi_nrm2", comm, &c) != 0) return WR_ERR_INVALID_ARG;
    return (which ? wr_mpi_asum : wr_mpi_nrm2)(ctx, x, out, count, type, c);
}

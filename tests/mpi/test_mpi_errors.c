/*
 * test_mpi_errors.c -- failures of the wr_mpi_* calls: a bad argument on one
 * rank gives that rank WR_ERR_INVALID_ARG with its reason and every other
 * rank the same status naming that rank, without anyone hanging (the test
 * runner's time limit catches a hang); outputs stay untouched; the ranks
 * disagreeing on type or op; communicators the library refuses; MPI errors
 * (injected through the MPI profiling interface) coming back as WR_ERR_DEVICE
 * with MPI_Error_string's text; communicators freed and made again; and a
 * call after MPI_Finalize.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_mpi_internal.h"

/* ---- MPI error injection (PMPI interposition) ------------------------------
 * These definitions take the place of the MPI library's for the test program
 * and for libwarpred_mpi (the MPI profiling interface, MPI-4.0 chapter 15):
 * while armed, the next call fails with MPI_ERR_OTHER on this rank. */
static int fail_next_allreduce, fail_next_exscan;

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (fail_next_allreduce) {
        fail_next_allreduce = 0;
        return MPI_ERR_OTHER;
    }
    return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (fail_next_exscan) {
        fail_next_exscan = 0;
        return MPI_ERR_OTHER;
    }
    return PMPI_Exscan(sendbuf, recvbuf, count, dt, op, comm);
}

static int contains(const char *s, const char *part)
{
    return s != NULL && strstr(s, part) != NULL;
}

/* The rank that misbehaves: the last one (rank 0 when alone). */
static int bad_rank(void)
{
    return mt_size - 1;
}

/* After a call in which bad_rank() alone had a bad argument: that rank has
 * want with its own reason (containing own), every other rank has want with
 * a reason naming the bad rank. */
static int blamed(wr_context *ctx, wr_status st, wr_status want, const char *own)
{
    char who[64];
    const char *err = wr_context_error(ctx);
    if (st != want) {
        mt_note("status %d (%s), wanted %d", (int)st, err, (int)want);
        return 0;
    }
    if (mt_rank == bad_rank()) {
        if (contains(err, own)) return 1;
        mt_note("reason '%s' lacks '%s'", err, own);
        return 0;
    }
    snprintf(who, sizeof who, "rank %d failed", bad_rank());
    if (contains(err, who)) return 1;
    mt_note("reason '%s' lacks '%s'", err, who);
    return 0;
}

int main(int argc, char **argv)
{
    enum { N = 100 };
    int64_t data[N], out[N], sentinel = INT64_C(0x5a5a5a5a5a5a5a5a), one;
    double ddata[N], dout[N];
    uint64_t index;
    char mpi_text[MPI_MAX_ERROR_STRING];
    int len, i, me_bad;
    wr_context *ctx;
    wr_status st;
    MPI_Comm comm;

    mt_init(&argc, &argv);
    if (mt_device) mt_skip_all("the error paths do not depend on where buffers live");
    ctx = mt_ctx();
    me_bad = mt_rank == bad_rank();
    for (i = 0; i < N; i++) {
        data[i] = (int64_t)(mt_rank * N + i);
        ddata[i] = (double)i;
    }

    /* ---- one rank with a bad argument ------------------------------------- */
    one = sentinel;
    st = wr_mpi_allreduce(ctx, me_bad ? NULL : data, &one, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "in is NULL") && one == sentinel,
          "allreduce: in NULL on rank %d: WR_ERR_INVALID_ARG everywhere, out untouched", bad_rank());

    st = wr_mpi_allreduce(me_bad ? NULL : ctx, data, &one, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(me_bad ? NULL : ctx, st, WR_ERR_INVALID_ARG, "ctx is NULL") && one == sentinel,
          "allreduce: ctx NULL on rank %d: WR_ERR_INVALID_ARG everywhere", bad_rank());

    st = wr_mpi_allreduce(ctx, data, me_bad ? (void *)&data[3] : (void *)&one, N, WR_INT64, WR_SUM,
                          MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "overlap") && one == sentinel,
          "allreduce: out inside in on rank %d", bad_rank());

    st = wr_mpi_allreduce(ctx, data, &one, N, WR_INT64, me_bad ? (wr_op)42 : WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "op 42") && one == sentinel,
          "allreduce: op 42 on rank %d", bad_rank());

    for (i = 0; i < N; i++) out[i] = sentinel;
    st = wr_mpi_scan(ctx, data, me_bad ? NULL : out, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "out is NULL"), "scan: out NULL on rank %d", bad_rank());

    for (i = 0; i < N; i++) out[i] = sentinel;
    st = wr_mpi_exscan(ctx, me_bad ? out + 1 : data, out, N - 1, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "overlap") && (!me_bad || out[0] == sentinel),
          "exscan: in and out overlap on rank %d (its out untouched)", bad_rank());

    for (i = 0; i < N; i++) out[i] = sentinel;
    st = wri_mpi_scan(ctx, data, me_bad ? NULL : out, N, WR_INT64, WR_SUM, MPI_COMM_WORLD, 0, WRM_PATH_FOLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "out is NULL"), "scan (fold path): out NULL on rank %d",
          bad_rank());

    index = UINT64_MAX;
    one = sentinel;
    st = wr_mpi_argmin(ctx, data, N, WR_INT64, me_bad ? NULL : &index, &one, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "index is NULL") && index == UINT64_MAX && one == sentinel,
          "argmin: index NULL on rank %d: index and value untouched everywhere", bad_rank());

    st = wr_mpi_argmax(ctx, data, N, WR_INT64, &index, me_bad ? (void *)&data[7] : (void *)&one, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "overlap") && index == UINT64_MAX && one == sentinel,
          "argmax: value inside in on rank %d", bad_rank());

    st = wr_mpi_argmax(ctx, data, N, me_bad ? (wr_type)9 : WR_INT64, &index, &one, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_INVALID_ARG, "type 9") && index == UINT64_MAX,
          "argmax: type 9 on rank %d", bad_rank());

    /* ---- ops the type does not have ----------------------------------------- */
    st = wr_mpi_scan(ctx, ddata, dout, N, WR_DOUBLE, WR_BAND, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_UNSUPPORTED && contains(wr_context_error(ctx), "BAND"),
          "scan: BAND on double everywhere: WR_ERR_UNSUPPORTED");
    st = wr_mpi_allreduce(ctx, ddata, dout, N, WR_DOUBLE, me_bad ? WR_BXOR : WR_SUM, MPI_COMM_WORLD);
    mt_ok(blamed(ctx, st, WR_ERR_UNSUPPORTED, "BXOR"), "allreduce: BXOR on double on rank %d only", bad_rank());

    /* ---- ranks that disagree ------------------------------------------------ */
    if (mt_size > 1) {
        st = wr_mpi_allreduce(ctx, data, &one, N, mt_rank == 0 ? WR_INT32 : WR_INT64, WR_SUM, MPI_COMM_WORLD);
        mt_ok(st == WR_ERR_INVALID_ARG && contains(wr_context_error(ctx), "different types or ops"),
              "allreduce: rank 0 says int32, the others int64: WR_ERR_INVALID_ARG everywhere");
        st = wr_mpi_scan(ctx, data, out, N, WR_INT64, mt_rank == 0 ? WR_MIN : WR_MAX, MPI_COMM_WORLD);
        mt_ok(st == WR_ERR_INVALID_ARG && contains(wr_context_error(ctx), "different types or ops"),
              "scan: rank 0 says MIN, the others MAX: WR_ERR_INVALID_ARG everywhere");
    } else if (mt_rank == 0) {
        skip_block(2, "needs two ranks to disagree");
    }

    /* ---- communicators ------------------------------------------------------- */
    st = wr_mpi_allreduce(ctx, data, &one, N, WR_INT64, WR_SUM, MPI_COMM_NULL);
    mt_ok(st == WR_ERR_INVALID_ARG && contains(wr_context_error(ctx), "MPI_COMM_NULL") && one == sentinel,
          "MPI_COMM_NULL: WR_ERR_INVALID_ARG");
    if (mt_size > 1) {
        MPI_Comm half, inter;
        int color = mt_rank < mt_size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &half);
        /* the other group's leader, in MPI_COMM_WORLD's numbering */
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? mt_size / 2 : 0, 7, &inter);
        st = wr_mpi_scan(ctx, data, out, N, WR_INT64, WR_SUM, inter);
        mt_ok(st == WR_ERR_INVALID_ARG && contains(wr_context_error(ctx), "intercommunicator"),
              "an intercommunicator: WR_ERR_INVALID_ARG");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    } else if (mt_rank == 0) {
        skip_block(1, "an intercommunicator needs two ranks");
    }

    /* a comm of our own: used, freed (the library's duplicate goes with it),
     * made again; the results still right */
    for (i = 0; i < 3; i++) {
        int64_t want = 0, got = sentinel;
        int r;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        st = wr_mpi_allreduce(ctx, data, &got, N, WR_INT64, WR_SUM, comm);
        for (r = 0; r < mt_size * N; r++) want += r;
        mt_ok(st == WR_SUCCESS && got == want && wr_context_error(ctx)[0] == '\0',
              "a fresh communicator (round %d), freed afterwards", i + 1);
        MPI_Comm_free(&comm);
    }
    {
        int64_t got = sentinel, want = 0;
        for (i = 0; i < N; i++) want += data[i];
        st = wr_mpi_allreduce(ctx, data, &got, N, WR_INT64, WR_SUM, MPI_COMM_SELF);
        mt_ok(st == WR_SUCCESS && got == want, "MPI_COMM_SELF: this rank's own sum");
    }

    /* ---- MPI failures -------------------------------------------------------- */
    MPI_Error_string(MPI_ERR_OTHER, mpi_text, &len);
    one = sentinel;
    fail_next_allreduce = 1;
    st = wr_mpi_allreduce(ctx, data, &one, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_DEVICE && contains(wr_context_error(ctx), "MPI_Allreduce") &&
          contains(wr_context_error(ctx), mpi_text) && one == sentinel,
          "a failing MPI_Allreduce: WR_ERR_DEVICE with MPI's text ('%s')", mpi_text);
    fail_next_exscan = 1;
    st = wr_mpi_scan(ctx, data, out, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_DEVICE && contains(wr_context_error(ctx), "MPI_Exscan") &&
          contains(wr_context_error(ctx), mpi_text), "a failing MPI_Exscan: WR_ERR_DEVICE");
    fail_next_exscan = 1;
    st = wr_mpi_argmin(ctx, data, N, WR_INT64, &index, NULL, MPI_COMM_WORLD);
    mt_ok(st == WR_ERR_DEVICE && contains(wr_context_error(ctx), "MPI_Exscan"),
          "argmin with a failing MPI_Exscan: WR_ERR_DEVICE");

    /* ---- and afterwards everything works, with no error left behind ---------- */
    st = wr_mpi_scan(ctx, data, out, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
    {
        int64_t want = 0;
        int good = st == WR_SUCCESS && wr_context_error(ctx)[0] == '\0';
        for (i = 0; i < mt_rank * N; i++) want += i;
        for (i = 0; i < N && good; i++) {
            want += data[i];
            good = out[i] == want;
        }
        mt_ok(good, "a good scan after the failures: right, and wr_context_error is empty");
    }

    /* ---- after MPI_Finalize (rank 0 only: no one to agree with) -------------- */
    {
        wr_context *local = NULL;
        wr_context_create(&local, WR_BACKEND_CPU);
        mt_finish();
        if (mt_rank == 0) {
            one = sentinel;
            st = wr_mpi_allreduce(local, data, &one, N, WR_INT64, WR_SUM, MPI_COMM_WORLD);
            ok(st == WR_ERR_INVALID_ARG && contains(wr_context_error(local), "finalized") && one == sentinel,
               "after MPI_Finalize: WR_ERR_INVALID_ARG, nothing written");
        }
        wr_context_destroy(local);
    }
    return 0;
}

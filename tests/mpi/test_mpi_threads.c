/*
 * test_mpi_threads.c -- wr_mpi_* from several threads at once
 * (MPI_THREAD_MULTIPLE), one communicator per thread, one shared context:
 * the library's MPI objects made once under contention (the threads' first
 * calls race), each thread's first call duplicating its own communicator,
 * right results everywhere, and wr_context_error() per thread: a thread whose
 * call failed sees its reason, the others, succeeding at the same time, see "".
 */
#include <config.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "mpi_test.h"

enum { NTHREADS = 4, ROUNDS = 40, N = 64 };

struct job {
    int id;
    MPI_Comm comm;
    int failures;
    char why[256];
};

static void fail(struct job *j, const char *what, int round, wr_status st)
{
    if (j->failures++ == 0)
        snprintf(j->why, sizeof j->why, "%s, round %d: status %d, reason '%s'", what, round, (int)st,
                 wr_context_error(mt_ctx()));
}

static void *worker(void *arg)
{
    struct job *j = arg;
    wr_context *ctx = mt_ctx();
    int64_t data[N], out[N], total, m = j->id + 1;
    int64_t all = (int64_t)mt_size * N;     /* elements in the global array */
    int round, i;

    for (round = 0; round < ROUNDS; round++) {
        wr_status st;
        /* global element g = rank * N + i holds m * g + round */
        for (i = 0; i < N; i++)
            data[i] = m * ((int64_t)mt_rank * N + i) + round;

        if (round % 8 == j->id) {
            /* this thread alone (on every rank) gets an error, while the
             * other threads' calls succeed */
            st = wr_mpi_allreduce(ctx, data, NULL, N, WR_INT64, WR_SUM, j->comm);
            if (st != WR_ERR_INVALID_ARG || !strstr(wr_context_error(ctx), "out is NULL"))
                fail(j, "allreduce with out NULL", round, st);
            continue;
        }
        st = wr_mpi_allreduce(ctx, data, &total, N, WR_INT64, WR_SUM, j->comm);
        if (st != WR_SUCCESS || wr_context_error(ctx)[0] != '\0' ||
            total != m * (all * (all - 1) / 2) + all * round)
            fail(j, "allreduce", round, st);
        st = wr_mpi_scan(ctx, data, out, N, WR_INT64, WR_SUM, j->comm);
        if (st != WR_SUCCESS || wr_context_error(ctx)[0] != '\0') {
            fail(j, "scan", round, st);
            continue;
        }
        for (i = 0; i < N; i++) {
            int64_t g = (int64_t)mt_rank * N + i;
            if (out[i] != m * (g * (g + 1) / 2) + (g + 1) * round) {
                fail(j, "scan value", round, st);
                break;
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct job jobs[NTHREADS];
    pthread_t tid[NTHREADS];
    int k;

    mt_init_threads(&argc, &argv);
    if (mt_device) mt_skip_all("threads do not depend on where buffers live");
    /* made here, in the same order on every rank */
    for (k = 0; k < NTHREADS; k++) {
        jobs[k].id = k;
        jobs[k].failures = 0;
        jobs[k].why[0] = '\0';
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[k].comm);
    }
    for (k = 0; k < NTHREADS; k++)
        if (pthread_create(&tid[k], NULL, worker, &jobs[k]) != 0) bail("pthread_create failed");
    for (k = 0; k < NTHREADS; k++)
        pthread_join(tid[k], NULL);
    for (k = 0; k < NTHREADS; k++) {
        if (jobs[k].failures) mt_note("thread %d: %d failures, first: %s", k, jobs[k].failures, jobs[k].why);
        mt_ok(jobs[k].failures == 0, "thread %d: %d rounds of allreduce and scan on its own communicator, "
              "its own errors only", k, ROUNDS);
        MPI_Comm_free(&jobs[k].comm);
    }
    return mt_finish();
}

/*
 * mpi_exact.c -- the exchange of exact sums: wr_mpi_allreduce in
 * reproducible mode (float/double SUM) sends every rank's wr_exact_sum,
 * not a rounded partial, and rounds the merge of all of them once.
 * Merging is exact and order-free (integer additions, see warpred.h), so
 * any number of ranks and any split of the global array, empty pieces
 * included, give the bits of one process summing it all.
 *
 * One MPI_Allreduce of {wrm_item, wr_exact_sum} carries the status
 * agreement of every call (mpi_support.c) and the sums together.  The
 * datatype and op are the library's own, made on first use and freed at
 * MPI_Finalize by the delete callback of an attribute on MPI_COMM_SELF,
 * as mpi_support.c does for its objects.  Only public wr_* functions touch
 * the sums.
 */
#include <config.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "wr_mpi_internal.h"

struct xitem {
    wrm_item it;
    wr_exact_sum sum;
};

static pthread_mutex_t xlock = PTHREAD_MUTEX_INITIALIZER;
static int xready;
static MPI_Datatype xitem_type = MPI_DATATYPE_NULL;
static MPI_Op xitem_op = MPI_OP_NULL;
static int xfinal_key = MPI_KEYVAL_INVALID;

/* MPI_User_function: combine the items, merge the sums (MPI's buffers may be
 * byte-aligned only: copies). */
static void xitem_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    struct xitem lo, hi;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        memcpy(&lo, (const char *)invec + (size_t)i * sizeof lo, sizeof lo);
        memcpy(&hi, (char *)inoutvec + (size_t)i * sizeof hi, sizeof hi);
        wrm_item_combine(&lo.it, &hi.it);
        /* every rank passes a sum made by wr_exact_sum_init (empty when it
         * failed or has no elements); a bad one is left out and fails the
         * rounding on every rank */
        if (wr_exact_sum_merge(&hi.sum, &lo.sum) != WR_SUCCESS) memset(&hi.sum, 0, sizeof hi.sum);
        memcpy((char *)inoutvec + (size_t)i * sizeof hi, &hi, sizeof hi);
    }
}

static void xfree_objects(void)
{
    if (xitem_op != MPI_OP_NULL) MPI_Op_free(&xitem_op);
    if (xitem_type != MPI_DATATYPE_NULL) MPI_Type_free(&xitem_type);
    if (xfinal_key != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&xfinal_key);
    xready = 0;
}

static int xat_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm; (void)key; (void)val; (void)extra;
    pthread_mutex_lock(&xlock);
    xfree_objects();
    pthread_mutex_unlock(&xlock);
    return MPI_SUCCESS;
}

static int xmake_objects(void)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&xlock);
    if (!xready) {
        /* non-commutative, as the library's other op: MPI then combines in
         * rank order, which the item part (float PROD, first failure) wants */
        if ((rc = MPI_Type_contiguous((int)sizeof(struct xitem), MPI_BYTE, &xitem_type)) == MPI_SUCCESS &&
            (rc = MPI_Type_commit(&xitem_type)) == MPI_SUCCESS &&
            (rc = MPI_Op_create(xitem_fn, 0, &xitem_op)) == MPI_SUCCESS &&
            (rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, xat_finalize, &xfinal_key, NULL)) == MPI_SUCCESS &&
            (rc = MPI_Comm_set_attr(MPI_COMM_SELF, xfinal_key, NULL)) == MPI_SUCCESS)
            xready = 1;
        else
            xfree_objects();
    }
    pthread_mutex_unlock(&xlock);
    return rc;
}

wr_status wrm_allreduce_exact(struct wrm_call *c, wrm_item *it, wr_exact_sum *sum)
{
    struct xitem x;
    char reason[512] = "";
    int rc;
    if (c->st != WR_SUCCESS) {
        it->has = 0;
        it->kind = WRM_KIND_NONE;
        it->fail = ((int64_t)c->rank << 4) | (int64_t)c->st;
        /* the merges below are calls without a context: they would clear
         * this rank's reason when its ctx is NULL */
        snprintf(reason, sizeof reason, "%s", wr_context_error(c->ctx));
    }
    if ((rc = xmake_objects()) != MPI_SUCCESS) {
        /* every rank fails alike here (the same MPI library), so none waits */
        wrm_fail_mpi(c, "creating the library's MPI datatype and op for exact sums", rc);
        return c->st;
    }
    memset(&x, 0, sizeof x);
    x.it = *it;
    x.sum = *sum;
    rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, xitem_type, xitem_op, c->comm);
    if (c->st != WR_SUCCESS) wr_context_set_error(c->ctx, reason);
    if (rc != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Allreduce", rc);
        return c->st;
    }
    *it = x.it;
    *sum = x.sum;
    return wrm_settle(c, it->fail);
}

/*
 * mpi_support.c -- the MPI side of libwarpred_mpi: the library's MPI objects,
 * its private duplicate of each communicator, the exchange of wrm_items and
 * how failures travel between ranks.
 *
 * MPI objects (one datatype, one MPI_Op, two attribute keys) are created on
 * first use and freed at MPI_Finalize through the delete callback of an
 * attribute on MPI_COMM_SELF: MPI_Finalize deletes MPI_COMM_SELF's attributes
 * first, in reverse order of setting, while MPI is still usable (MPI-2.2
 * section 8.7.1, "Allowing User Functions at Process Termination").
 *
 * Communicators: like any parallel library (MPI standard, section 6.1.2 "safe
 * libraries"; PETSc's inner communicators), we do not communicate on the
 * caller's comm.  Each comm gets one MPI_Comm_dup, cached on it as an
 * attribute whose delete callback frees the duplicate with comm, and
 * MPI_ERRORS_RETURN on the duplicate turns MPI errors into return codes.
 */
#include <config.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wr_mpi_internal.h"
#include "wr_ops.h"

/* ---- combining items -------------------------------------------------- */

static int arg_better(wr_type t, const wrm_value *a, const wrm_value *b, int is_max)
{
    switch (t) {
#define WRM_ARG_CASE(sfx, T, U, E) case E: return wr_arg_better_##sfx(a->sfx, b->sfx, is_max);
    WR_TYPES(WRM_ARG_CASE)
#undef WRM_ARG_CASE
    }
    return 0;
}

/* hi = lo op hi, where lo comes from lower ranks (MPI's invec/inoutvec
 * order).  Items with has == 0 are identities, so ranks without elements never
 * touch the value (for float SUM, -0.0 + +0.0 would otherwise turn a -0.0
 * prefix into +0.0). */
void wrm_item_combine(const wrm_item *lo, wrm_item *hi)
{
    if (lo->fail < hi->fail) hi->fail = lo->fail;
    if (lo->kind != WRM_KIND_NONE && hi->kind != WRM_KIND_NONE &&
        (lo->kind != hi->kind || lo->type != hi->type)) {
        hi->fail = WRM_FAIL_MISMATCH;
        hi->has = 0;
        return;
    }
    if (hi->kind == WRM_KIND_NONE) {
        hi->kind = lo->kind;
        hi->type = lo->type;
    }
    if (!lo->has) return;
    if (!hi->has) {
        hi->has = 1;
        hi->v = lo->v;
        hi->index = lo->index;
        return;
    }
    if (hi->kind == WRM_KIND_ARGMIN || hi->kind == WRM_KIND_ARGMAX) {
        /* wr_arg_better expects the candidate at the earlier index first:
         * deciding by index (not by rank order) keeps the choice exact and
         * independent of how MPI associates the ranks. */
        const wrm_item *first = lo->index <= hi->index ? lo : hi;
        const wrm_item *second = first == lo ? hi : lo;
        const wrm_item *win = arg_better((wr_type)hi->type, &first->v, &second->v,
                                         hi->kind == WRM_KIND_ARGMAX) ? second : first;
        if (win == lo) {
            hi->v = lo->v;
            hi->index = lo->index;
        }
    } else if (hi->kind == WRM_KIND_NRM2) {
        if (hi->type == WR_FLOAT) hi->v.f32 = (float)wrm_norm_combine(lo->v.f32, hi->v.f32);
        else hi->v.f64 = wrm_norm_combine(lo->v.f64, hi->v.f64);
    } else {
        wrm_value r = lo->v;
        wr_combine((wr_type)hi->type, (wr_op)hi->kind, &r, &hi->v);
        hi->v = r;
    }
}

/* The MPI_User_function.  MPI may hand us buffers of its own with no more
 * than byte alignment (the datatype is MPI_BYTEs), hence the copies. */
static void item_op_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    wrm_item lo, hi;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        memcpy(&lo, (const char *)invec + (size_t)i * sizeof lo, sizeof lo);
        memcpy(&hi, (char *)inoutvec + (size_t)i * sizeof hi, sizeof hi);
        wrm_item_combine(&lo, &hi);
        memcpy((char *)inoutvec + (size_t)i * sizeof hi, &hi, sizeof hi);
    }
}

/* ---- MPI objects, made once ------------------------------------------- */

/* A cached duplicate: the caller's comm (to find the attribute again at
 * finalize) and ours. */
struct inner {
    MPI_Comm parent, comm;
    struct inner *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static MPI_Datatype item_type = MPI_DATATYPE_NULL;
/* One MPI_Op for every exchange, declared non-commutative: MPI then combines
 * the ranks' items in rank order.  The exact operations (integers, MIN/MAX,
 * bitwise, argmin/argmax by index) do not care; float SUM/PROD do, and a fixed
 * order is what makes their bits the same on every run and every rank.  The
 * payload is one item per rank, so what this rules out (MPI's reordering
 * algorithms) costs no measurable time.  One op also means every rank passes
 * the same handle, even a rank whose own type or op was invalid. */
static MPI_Op item_op = MPI_OP_NULL;
static int inner_key = MPI_KEYVAL_INVALID, final_key = MPI_KEYVAL_INVALID;
static struct inner *inners;

static void unlink_inner(struct inner *e)
{
    struct inner **p;
    pthread_mutex_lock(&lock);
    for (p = &inners; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&lock);
}

/* inner_key's delete callback: the caller freed its comm (or MPI finalizes). */
static int inner_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    struct inner *e = val;
    (void)comm; (void)key; (void)extra;
    unlink_inner(e);
    MPI_Comm_free(&e->comm);
    free(e);
    return MPI_SUCCESS;
}

static void free_objects(void)
{
    if (item_op != MPI_OP_NULL) MPI_Op_free(&item_op);
    if (item_type != MPI_DATATYPE_NULL) MPI_Type_free(&item_type);
    if (inner_key != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&inner_key);
    if (final_key != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&final_key);
    ready = 0;
}

/* final_key's delete callback, run by MPI_Finalize: free every duplicate the
 * caller never freed (MPI_COMM_WORLD's, typically), then our objects. */
static int at_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm; (void)key; (void)val; (void)extra;
    for (;;) {
        struct inner *e;
        pthread_mutex_lock(&lock);
        e = inners;
        pthread_mutex_unlock(&lock);
        if (e == NULL) break;
        /* runs inner_delete, which unlinks e */
        if (MPI_Comm_delete_attr(e->parent, inner_key) != MPI_SUCCESS)
            inner_delete(e->parent, inner_key, e, NULL);
    }
    pthread_mutex_lock(&lock);
    free_objects();
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static int make_objects(void)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    if (!ready) {
        if ((rc = MPI_Type_contiguous((int)sizeof(wrm_item), MPI_BYTE, &item_type)) == MPI_SUCCESS &&
            (rc = MPI_Type_commit(&item_type)) == MPI_SUCCESS &&
            (rc = MPI_Op_create(item_op_fn, 0, &item_op)) == MPI_SUCCESS &&
            (rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, inner_delete, &inner_key, NULL)) == MPI_SUCCESS &&
            (rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &final_key, NULL)) == MPI_SUCCESS &&
            (rc = MPI_Comm_set_attr(MPI_COMM_SELF, final_key, NULL)) == MPI_SUCCESS)
            ready = 1;
        else
            free_objects();
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Our duplicate of comm; the first call on comm makes it (collectively, as
 * every wr_mpi_* call is collective). */
static int inner_comm(MPI_Comm comm, MPI_Comm *out)
{
    struct inner *e;
    void *val;
    int flag = 0, rc;

    rc = MPI_Comm_get_attr(comm, inner_key, &val, &flag);
    if (rc != MPI_SUCCESS) return rc;
    if (flag) {
        *out = ((struct inner *)val)->comm;
        return MPI_SUCCESS;
    }
    e = calloc(1, sizeof *e);
    if (e == NULL) return MPI_ERR_NO_MEM;
    rc = MPI_Comm_dup(comm, &e->comm);
    if (rc != MPI_SUCCESS) {
        free(e);
        return rc;
    }
    if ((rc = MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN)) != MPI_SUCCESS ||
        (rc = MPI_Comm_set_attr(comm, inner_key, e)) != MPI_SUCCESS) {
        MPI_Comm_free(&e->comm);
        free(e);
        return rc;
    }
    e->parent = comm;
    pthread_mutex_lock(&lock);
    e->next = inners;
    inners = e;
    pthread_mutex_unlock(&lock);
    *out = e->comm;
    return MPI_SUCCESS;
}

/* ---- calls -------------------------------------------------------------- */

void wrm_fail(struct wrm_call *c, wr_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int n;
    if (c->st != WR_SUCCESS) return;
    c->st = st;
    n = snprintf(msg, sizeof msg, "%s: ", c->fn);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    wr_context_set_error(c->ctx, msg);
}

void wrm_fail_call(struct wrm_call *c, wr_status st)
{
    wrm_fail(c, st, "%s", wr_context_error(c->ctx));
}

void wrm_fail_mpi(struct wrm_call *c, const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    wrm_fail(c, WR_ERR_DEVICE, "%s: %s", what, text);
}

int wrm_begin(struct wrm_call *c, const char *fn, wr_context *ctx, MPI_Comm comm)
{
    int flag = 0, rc;

    c->fn = fn;
    c->ctx = ctx;
    c->comm = MPI_COMM_NULL;
    c->rank = 0;
    c->size = 1;
    c->st = WR_SUCCESS;
    /* Nothing below communicates, and every rank decides alike (all see
     * the same comm kind), so returning early here hangs nobody. */
    MPI_Initialized(&flag);
    if (!flag) {
        wrm_fail(c, WR_ERR_INVALID_ARG, "MPI is not initialized");
        return -1;
    }
    MPI_Finalized(&flag);
    if (flag) {
        wrm_fail(c, WR_ERR_INVALID_ARG, "MPI is already finalized");
        return -1;
    }
    if (comm == MPI_COMM_NULL) {
        wrm_fail(c, WR_ERR_INVALID_ARG, "comm is MPI_COMM_NULL");
        return -1;
    }
    if ((rc = MPI_Comm_test_inter(comm, &flag)) != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Comm_test_inter", rc);
        return -1;
    }
    if (flag) {
        wrm_fail(c, WR_ERR_INVALID_ARG, "comm is an intercommunicator (an intracommunicator is needed)");
        return -1;
    }
    if ((rc = make_objects()) != MPI_SUCCESS) {
        wrm_fail_mpi(c, "creating the library's MPI datatype and op", rc);
        return -1;
    }
    if ((rc = inner_comm(comm, &c->comm)) != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Comm_dup", rc);
        return -1;
    }
    if ((rc = MPI_Comm_rank(c->comm, &c->rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(c->comm, &c->size)) != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Comm_rank", rc);
        return -1;
    }
    return 0;
}

void wrm_item_init(const struct wrm_call *c, wrm_item *it, wr_type type, int kind)
{
    (void)c;
    memset(it, 0, sizeof *it);
    it->fail = WRM_FAIL_NONE;
    it->kind = kind;
    it->type = (int32_t)type;
}

/* Fold the agreed lowest failure into this rank's status. */
wr_status wrm_settle(struct wrm_call *c, int64_t fail)
{
    if (c->st != WR_SUCCESS || fail == WRM_FAIL_NONE) return c->st;
    if (fail == WRM_FAIL_MISMATCH)
        wrm_fail(c, WR_ERR_INVALID_ARG, "the ranks of comm passed different types or ops (or float modes)");
    else
        wrm_fail(c, (wr_status)(fail & 15), "rank %d failed: %s (its wr_context_error() says why)",
                 (int)(fail >> 4), wr_status_string((wr_status)(fail & 15)));
    return c->st;
}

/* A context with a stream may still be running this rank's work (a call on
 * device memory returns once queued): wait for it, and take its failure as
 * this rank's, before anything goes to the other ranks. */
void wrm_settle_stream(struct wrm_call *c)
{
    wr_status st;
    if (c->st != WR_SUCCESS || c->ctx == NULL) return;
    if ((st = wr_context_synchronize(c->ctx)) != WR_SUCCESS) wrm_fail_call(c, st);
}

wr_status wrm_allreduce(struct wrm_call *c, wrm_item *it)
{
    int rc;
    wrm_settle_stream(c);
    if (c->st != WR_SUCCESS) {
        it->has = 0;
        it->kind = WRM_KIND_NONE;
        it->fail = ((int64_t)c->rank << 4) | (int64_t)c->st;
    }
    rc = MPI_Allreduce(MPI_IN_PLACE, it, 1, item_type, item_op, c->comm);
    if (rc != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Allreduce", rc);
        return c->st;
    }
    return wrm_settle(c, it->fail);
}

wr_status wrm_exscan(struct wrm_call *c, const wrm_item *it, wrm_item *base)
{
    int rc = MPI_Exscan(it, base, 1, item_type, item_op, c->comm);
    if (rc != MPI_SUCCESS) {
        wrm_fail_mpi(c, "MPI_Exscan", rc);
        return c->st;
    }
    /* MPI leaves rank 0's result undefined: it has no base. */
    if (c->rank == 0) {
        *base = *it;
        base->has = 0;
    }
    return WR_SUCCESS;
}

wr_status wrm_end(struct wrm_call *c)
{
    wrm_settle_stream(c);       /* the results are complete when the call returns */
    if (c->st == WR_SUCCESS) wr_context_set_error(c->ctx, NULL);
    return c->st;
}

int wrm_overlap(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    if (abytes == 0 || bbytes == 0 || a == NULL || b == NULL) return 0;
    return a0 < b0 + bbytes && b0 < a0 + abytes;
}

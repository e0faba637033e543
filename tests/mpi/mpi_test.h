/*
 * mpi_test.h -- what the MPI tests share: collective TAP (only rank 0
 * prints; a check passes when it passed on every rank), the layouts that
 * spread a global array over the ranks, data generators, serial references,
 * and buffers that live on the host or, with WR_TEST_MPI_DEVICE=1, in CUDA
 * device memory (allocated through the driver library, loaded at run time so
 * the tests build without CUDA).
 */
#ifndef WR_MPI_TEST_H
#define WR_MPI_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "warpred_mpi.h"
#include "tap.h"

extern int mt_rank, mt_size;
extern int mt_device;      /* 1: buffers passed to wr_mpi_* are device memory */

/* MPI_Init, rank and size, device mode from WR_TEST_MPI_DEVICE; creates the
 * context the tests use (skips everything when device mode finds no GPU);
 * rank 0 prints the plan at the end. */
void mt_init(int *argc, char ***argv);
/* The same with MPI_Init_thread(MPI_THREAD_MULTIPLE); skips everything when
 * the MPI library does not provide it. */
void mt_init_threads(int *argc, char ***argv);
wr_context *mt_ctx(void);
/* Collective skip of the whole program ("1..0 # SKIP ...", the only plan,
 * also after mt_init), then exit 0. */
void mt_skip_all(const char *reason) TAP_NORETURN;
/* rank 0: plan(n). */
void mt_plan(unsigned long n);
/* One collective check: passes when local_ok holds on every rank; rank 0
 * prints it (with the first failing rank). */
int mt_ok(int local_ok, const char *fmt, ...) TAP_PRINTF(2, 3);
/* A diagnostic from any rank, on stderr (kept in the test's log). */
void mt_note(const char *fmt, ...) TAP_PRINTF(1, 2);
/* Destroy the context, MPI_Finalize; returns the exit status for main. */
int mt_finish(void);

/* ---- buffers (host, or device memory in device mode) --------------------- */
void *mt_alloc(size_t bytes);          /* NULL for 0 bytes */
void mt_put(void *buf, const void *host, size_t bytes);
void mt_get(void *host, const void *buf, size_t bytes);
void mt_free(void *buf);

/* ---- layouts: how many elements each rank holds ----------------------------- */
#define MT_NLAYOUTS 8
const char *mt_layout_name(int layout);
size_t mt_layout_count(int layout, int rank, int size);
/* For a layout: the global array's length, this rank's piece and where it
 * starts in the global array. */
struct mt_piece {
    size_t n, count, off;
};
struct mt_piece mt_layout(int layout);

/* ---- data -------------------------------------------------------------------- */
uint64_t mt_rand(uint64_t *state);     /* splitmix64 */
/* Data variants (what the values exercise). */
enum mt_data {
    MT_DATA_RANDOM,     /* full-range integers / uniform floats in [0,1) (SUM) or [-1,1) */
    MT_DATA_EXACT,      /* floats whose SUM/PROD are exact: small integers, +-1 +-2 +-0.5 */
    MT_DATA_SPECIAL,    /* floats with -0.0, +0.0, +-inf sprinkled in */
    MT_DATA_NAN,        /* MT_DATA_SPECIAL plus some NaNs */
    MT_DATA_TIES,       /* few distinct values: the extreme appears on many ranks */
    MT_DATA_NEGZERO     /* -0.0, now and then +0.0: a SUM of -0s is -0 */
};
/* Fill n elements of type t, meant for op (WR_PROD and bitwise ops get
 * values that keep the result interesting). */
void mt_fill(void *buf, size_t n, wr_type t, wr_op op, enum mt_data data, uint64_t seed);
const char *mt_type_name(wr_type t);
const char *mt_op_name(wr_op op);
/* Bitwise equality of n elements of w bytes; index of the first difference
 * in *where (if not NULL). */
int mt_same(const void *a, const void *b, size_t n, size_t w, size_t *where);
/* Element i of an array of type t as long double (for the float references). */
long double mt_get_ld(const void *buf, size_t i, wr_type t);

/* The (type, op, data) combinations a reduce or scan test runs: every
 * valid (type, op) pair, floats with several data variants.  exact: the
 * result is exactly defined (compare bits); otherwise a float SUM of random
 * data (compare within a bound).  Returns how many were written (<= 64). */
struct mt_case {
    wr_type type;
    wr_op op;
    enum mt_data data;
    int exact;
};
int mt_cases(struct mt_case *cases);
const char *mt_data_name(enum mt_data d);

/* Serial references on one process, straight from wr_ops.h's definitions
 * and warpred.h's: a reduction is in[0] op in[1] op ..., the identity only
 * for no elements (so a float SUM of -0s is -0). */
void mt_ref_reduce(const void *in, void *out, size_t n, wr_type t, wr_op op);
void mt_ref_scan(const void *in, void *out, size_t n, wr_type t, wr_op op, int exclusive);
/* argmin/argmax: returns 0 for n == 0 (nothing written), else 1. */
int mt_ref_argext(const void *in, size_t n, wr_type t, int is_max, size_t *index);

#endif

/*
 * cpu_internal.h -- what the files of the cpu backend share (not installed).
 *
 * The backend is one ops table (cpu_backend.c) over three families of
 * kernels: reductions (cpu_reduce.c: reduce, rows, segments), argmin/argmax
 * (cpu_arg.c) and scans (cpu_scan.c).  Each family is written once as a
 * macro over a (type, op) pair and instantiated for every valid pair from the
 * list below; the parallel drivers are plain C over void pointers and call
 * the per-pair kernels through small tables, once per block of thousands of
 * elements.
 *
 * Determinism: every floating result is a fixed function of (type, op,
 * count).  Work is cut into blocks whose size depends on nothing but the
 * count, and block results are combined in a fixed order; which thread
 * computes which block only changes when, never what.
 *
 * The kernel files are compiled once per instruction-set variant (see
 * cpu_isa.h); cpu_isa.c chooses one per process, and the wrcpu_reduce,
 * wrcpu_scan... that cpu_backend.c calls are its dispatchers.
 */
#ifndef WR_CPU_INTERNAL_H
#define WR_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "wr_backend.h"
#include "wr_ops.h"
#include "cpu_isa.h"

/* In a variant's objects every cross-file name of the kernel files carries
 * the variant's suffix (wrcpu_scan_v3...); the unsuffixed entry points are
 * cpu_isa.c's dispatchers. */
#ifdef WRCPU_ISA
#  define wrcpu_red_kernels      WRCPU_ISA_NAME(wrcpu_red_kernels)
#  define wrcpu_reduce_tree      WRCPU_ISA_NAME(wrcpu_reduce_tree)
#  define wrcpu_store            WRCPU_ISA_NAME(wrcpu_store)
#  define wrcpu_reduce           WRCPU_ISA_NAME(wrcpu_reduce)
#  define wrcpu_reduce_rows      WRCPU_ISA_NAME(wrcpu_reduce_rows)
#  define wrcpu_reduce_segments  WRCPU_ISA_NAME(wrcpu_reduce_segments)
#  define wrcpu_argext           WRCPU_ISA_NAME(wrcpu_argext)
#  define wrcpu_scan             WRCPU_ISA_NAME(wrcpu_scan)
#  define wrcpu_kernels          WRCPU_ISA_NAME(wrcpu_kernels)
#  define wrcpu_blas             WRCPU_ISA_NAME(wrcpu_blas)
#endif

#ifdef _OPENMP
#  include <omp.h>
#  define WRCPU_PRAGMA(x) _Pragma(#x)
#else
#  define WRCPU_PRAGMA(x)
#endif

/* Full unrolling of the short fixed-count lane loops keeps the lane
 * accumulators in vector registers (gcc -O2 otherwise vectorises the lane
 * loop with the accumulators in memory).  Loops that select between floats
 * are left rolled: gcc vectorises those only in its loop vectoriser. */
#if defined(__GNUC__)
#  define WRCPU_UNROLL _Pragma("GCC unroll 64")
#else
#  define WRCPU_UNROLL
#endif
/* Bring the line at p towards L2 for a read soon (never faults). */
#if defined(__GNUC__)
#  define WRCPU_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#else
#  define WRCPU_PREFETCH(p) ((void)(p))
#endif
/* For the few helpers whose constant arguments must reach the loop inside. */
#if defined(__GNUC__)
#  define WRCPU_INLINE static inline __attribute__((always_inline))
#else
#  define WRCPU_INLINE static inline
#endif

/* ---- sizes ----------------------------------------------------------- */

/* Leaf block of reduce and argmin/argmax: reduced by vector lanes, so every
 * lane is a chain of at most WRCPU_BLOCK / lanes elements (128 for 4-byte
 * types, 256 for 8-byte ones); block results are then combined pairwise. */
#define WRCPU_BLOCK 4096
/* Bytes of lane accumulators: 32 lanes of a 4-byte type, 16 of an 8-byte
 * one (8 SSE registers; enough independent chains to hide add latency). */
#define WRCPU_LANE_BYTES 128
#define WRCPU_LANES(T) (WRCPU_LANE_BYTES / sizeof(T))
/* Blocks are grouped into at most this many chunks (the unit of parallel
 * work); the chunk size is a power of two of blocks, chosen from the count
 * alone, so the reduction tree does not depend on the number of threads. */
#define WRCPU_CHUNKS_MAX 1024
/* Below this many elements a call runs in the calling thread: starting a
 * team costs more than the work. */
#define WRCPU_PAR_MIN ((size_t)1 << 15)

/* Scan block: output i = base(block) op scan-inside-block(i).  Small enough
 * that a float scan inside a block stays within 6e-5 relative even as one
 * sequential chain; bases are carried in double.  Not a power of two: blocks
 * scanned side by side are then not 4 KiB apart, which would make every load
 * of one wait on the stores of another (4K aliasing) and put them all in one
 * L1 set.  1008 * 4 bytes is a multiple of 16, so SSE2 loads and stores keep
 * the array's alignment in every block. */
#define WRCPU_SCAN_BLOCK 1008
/* Blocks scanned side by side in one pass (independent dependency chains). */
#define WRCPU_SCAN_WAYS 8
/* Input bytes of one run of the scan: read once from memory to sum its
 * blocks, then scanned again while still in L2 (with the next run arriving
 * there by prefetch). */
#define WRCPU_SCAN_ROUND_BYTES ((size_t)256 * 1024)
/* Outputs at least this large are written with non-temporal stores: they
 * would not stay in cache anyway, and streaming stores save the read for
 * ownership that would otherwise make a scan move 3 bytes per 2. */
#define WRCPU_STREAM_MIN_BYTES ((size_t)16 << 20)

/* ---- the (type, op) pairs ---------------------------------------------- */

/* One row per type: sfx, T, U (unsigned of the same width), E (wr_type), as
 * in wr_ops.h's WR_TYPES, plus K: an unsigned integer of T's width, in which
 * kernels look at a float's bits (wr_ops.h's U is the float type itself). */
#define WRCPU_ROW_i32 i32, int32_t,  uint32_t, WR_INT32,  uint32_t
#define WRCPU_ROW_i64 i64, int64_t,  uint64_t, WR_INT64,  uint64_t
#define WRCPU_ROW_u32 u32, uint32_t, uint32_t, WR_UINT32, uint32_t
#define WRCPU_ROW_u64 u64, uint64_t, uint64_t, WR_UINT64, uint64_t
#define WRCPU_ROW_f32 f32, float,    float,    WR_FLOAT,  uint32_t
#define WRCPU_ROW_f64 f64, double,   double,   WR_DOUBLE, uint64_t

#define WRCPU_CALL(X, ...) X(__VA_ARGS__)

/* WRCPU_TYPES(X): X(sfx, T, U, E, K) for every type. */
#define WRCPU_TYPES(X)                                                          \
    WRCPU_CALL(X, WRCPU_ROW_i32) WRCPU_CALL(X, WRCPU_ROW_i64) WRCPU_CALL(X, WRCPU_ROW_u32) \
    WRCPU_CALL(X, WRCPU_ROW_u64) WRCPU_CALL(X, WRCPU_ROW_f32) WRCPU_CALL(X, WRCPU_ROW_f64)

/* WRCPU_PAIRS: WRCPU_PAIR(sfx, T, U, E, K, op, OE) for every valid pair, the ops
 * taken from wr_ops.h's lists (bitwise ops only for the integer types).  A
 * file defines WRCPU_PAIR, expands WRCPU_PAIRS, and undefines it. */
#define WRCPU_P_i32(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_i32, op, OE)
#define WRCPU_P_i64(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_i64, op, OE)
#define WRCPU_P_u32(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_u32, op, OE)
#define WRCPU_P_u64(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_u64, op, OE)
#define WRCPU_P_f32(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_f32, op, OE)
#define WRCPU_P_f64(op, OE) WRCPU_CALL(WRCPU_PAIR, WRCPU_ROW_f64, op, OE)
#define WRCPU_PAIRS                                                             \
    WR_OPS(WRCPU_P_i32) WR_OPS(WRCPU_P_i64) WR_OPS(WRCPU_P_u32) WR_OPS(WRCPU_P_u64)   \
    WR_ARITH_OPS(WRCPU_P_f32) WR_ARITH_OPS(WRCPU_P_f64)

/* 1 for a floating type: a compile-time constant the generic kernels branch
 * on (the other branch is dead code). */
#define WRCPU_IS_FLOAT(T) ((T)0.5 != (T)0)

/* The value accumulators start from: the identity, except for float SUM,
 * where it is -0.0, the true neutral of IEEE addition (-0 + x == x bit for
 * bit, while +0 + -0 == +0 would turn a sum of -0s into +0).  DESIGN.md's
 * identity, +0, is still what an empty SUM and exscan's out[0] give. */
#define WRCPU_NEUTRAL(T, OE, ident) ((WRCPU_IS_FLOAT(T) && (OE) == WR_SUM) ? (T)-0.0 : (ident))

#define WRCPU_NTYPES 6
#define WRCPU_NOPS 7

/* One element of any type, for results handed between the generic drivers
 * and the typed kernels. */
union wrcpu_val {
    int32_t i32; int64_t i64; uint32_t u32; uint64_t u64; float f32; double f64;
};

/* ---- reductions (cpu_reduce.c) ------------------------------------------ */

/* The typed kernels of one (type, op) pair, for the generic drivers. */
struct wrcpu_red {
    size_t size;                                   /* element bytes */
    int canon;                                     /* float SUM/PROD: results pass wrcpu_canon */
    void (*ident)(union wrcpu_val *v);               /* *v = identity */
    void (*combine)(union wrcpu_val *a, const union wrcpu_val *b); /* *a = *a op *b */
    /* *v = the reduction of x[0..n), 0 < n <= WRCPU_BLOCK, by lanes */
    void (*block)(const void *x, size_t n, union wrcpu_val *v);
    /* out[r] = reduction of row r, for rows [r0, r1) of cols elements */
    void (*rows)(const struct wrcpu_red *k, const void *in, void *out, size_t r0, size_t r1, size_t cols);
    /* out[s] = reduction of in[off[s]..off[s+1]) for s in [s0, s1) */
    void (*segments)(const struct wrcpu_red *k, const void *in, void *out, size_t s0, size_t s1,
                     const size_t *off);
};

/* A float SUM/PROD result as it is stored: a NaN becomes the quiet NaN with
 * every bit set but the sign, the one NVIDIA GPUs produce.  Which operand's
 * NaN an x86 instruction passes on depends on the order the compiler put
 * the operands in, which differs between the inlined copies of a kernel;
 * this way reduce, rows and segments give the same bits on the same
 * elements, and the cpu the bits of the GPU. */
static inline void wrcpu_canon(void *p, size_t size)
{
    if (size == 4) {
        uint32_t b;
        memcpy(&b, p, 4);
        if ((b & 0x7fffffffu) > 0x7f800000u) { b = 0x7fffffffu; memcpy(p, &b, 4); }
    } else {
        uint64_t b;
        memcpy(&b, p, 8);
        if ((b & 0x7fffffffffffffffu) > 0x7ff0000000000000u) { b = 0x7fffffffffffffffu; memcpy(p, &b, 8); }
    }
}
#define WRCPU_CANON(T, OE) (WRCPU_IS_FLOAT(T) && ((OE) == WR_SUM || (OE) == WR_PROD))

/* The kernels of a valid (type, op) pair. */
const struct wrcpu_red *wrcpu_red_kernels(wr_type t, wr_op op);
/* *v = the reduction of x[0..n) along the fixed tree (see cpu_reduce.c),
 * with a team of threads when par and n is large enough. */
void wrcpu_reduce_tree(const struct wrcpu_red *k, const void *x, size_t n, int par, union wrcpu_val *v);
/* Store one element of k's type from v to out. */
void wrcpu_store(const struct wrcpu_red *k, void *out, const union wrcpu_val *v);

wr_status wrcpu_reduce(const void *in, void *out, size_t count, wr_type type, wr_op op, char *err);
wr_status wrcpu_reduce_rows(const void *in, void *out, size_t rows, size_t cols, wr_type type, wr_op op,
                          char *err);
wr_status wrcpu_reduce_segments(const void *in, void *out, size_t nsegments, const size_t *offsets,
                              wr_type type, wr_op op, char *err);

/* ---- argmin / argmax (cpu_arg.c) ----------------------------------------- */
wr_status wrcpu_argext(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                     char *err);

/* ---- scans (cpu_scan.c) -------------------------------------------------- */
wr_status wrcpu_scan(const void *in, void *out, size_t count, wr_type type, wr_op op, int exclusive,
                   char *err);

/* ---- dot products and norms (cpu_dot.c) ---------------------------------- */
/* Every id of the family: DOT, DOTROWS, NRM2, ASUM, IAMAX and the X forms
 * (XDOT, XASUM, XNRM2 with call->acc set: the exact partial, unrounded). */
wr_status wrcpu_blas(const struct wr_call *c, char *err);

/* ---- variants (cpu_isa.h, cpu_isa.c) ------------------------------------ */

/* The entry points of one variant (cpu_kernels.c). */
struct wrcpu_kernels {
    wr_status (*reduce)(const void *in, void *out, size_t count, wr_type type, wr_op op, char *err);
    wr_status (*reduce_rows)(const void *in, void *out, size_t rows, size_t cols, wr_type type, wr_op op,
                             char *err);
    wr_status (*reduce_segments)(const void *in, void *out, size_t nsegments, const size_t *offsets,
                                 wr_type type, wr_op op, char *err);
    wr_status (*argext)(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                        char *err);
    wr_status (*scan)(const void *in, void *out, size_t count, wr_type type, wr_op op, int exclusive,
                      char *err);
    wr_status (*blas)(const struct wr_call *c, char *err);
};

#ifdef WRCPU_ISA
extern const struct wrcpu_kernels wrcpu_kernels;
#else
/* Choose the process's variant, once: the one WARPRED_CPU_ISA names
 * (through host), else the best the CPU runs.  Returns WR_SUCCESS;
 * WR_ERR_INVALID_ARG for a value that names no variant, or another variant
 * than the process already runs; WR_ERR_NO_BACKEND for a variant that this
 * build lacks or this CPU cannot run; with the reason in err. */
wr_status wrcpu_isa_open(const struct wr_host_api *host, char *err);
/* What wr_context_describe says of the process's variant ("x86-64-v3"). */
const char *wrcpu_isa_name(void);
#endif

/* Number of threads a parallel region of this call may use (1 without
 * OpenMP). */
static inline int wrcpu_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

#endif /* WR_CPU_INTERNAL_H */

/*
 * wrc.cuh -- what the CUDA backend's source files share (not installed).
 *
 * The plugin is split by concern: warpred_cuda.cu (the ops table, residency,
 * staging pipelines, per-call resources), wrc_reduce.cu (reduce, argmin/max),
 * wrc_scan.cu (single-pass scan), wrc_segments.cu (rows and segments).  The
 * kernel files export only "launchers": host functions that size a grid,
 * make sure the scratch they need exists and enqueue on the lane's stream.
 */
#ifndef WRC_CUH
#define WRC_CUH

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include "wr_backend.h"
#include "warpred_device.cuh"

namespace wrc {

constexpr int kThreads = 256;                 /* every kernel's block size */
constexpr size_t kScanTileBytes = 32768;      /* scan tile: 8192 4-byte or 4096 8-byte elements */
constexpr int kUnroll = 4;                    /* 16-byte loads in flight per thread */
constexpr unsigned kMaxGrid = 32768;          /* reduce/argext blocks (partials capacity) */
constexpr size_t kSlotBytes = 32;             /* one result / carry slot */
constexpr int kSlots = 4;                     /* 0: result, 1-2: carries (ping-pong), 3: spare */
constexpr int kStages = 3;                    /* staging buffers per lane */

/* One call's resources: a stream and scratch, reused call after call.  A
 * context keeps a pool of lanes; each call takes one (so threads sharing a
 * context run concurrently, each on its own stream) and gives it back. */
struct lane {
    int sms;                      /* multiprocessors of the device */
    cudaStream_t st;              /* kernels */
    cudaStream_t h2d, d2h;        /* staging copies (created with the staging buffers) */

    unsigned *ctr;                /* [0] last-block-done counter, [1] scan tickets, [2] scan blocks done,
                                   * [3] blocks done of a segment kernel that signals (all kept 0) */
    unsigned char *slot;          /* kSlots slots of kSlotBytes: results and carries */
    void *part;                   /* per-block partials: kMaxGrid * 16 bytes */
    size_t part_cap;

    void *sblk;                   /* scan tile descriptors (see wrc_scan.cu) */
    size_t scap;                  /* tiles they have room for */
    unsigned epoch;               /* statuses of other epochs read as "not yet" */
    unsigned scan_blocks;         /* most resident blocks per scan (0: as many as fit) */

    unsigned *segctr;             /* per-segment arrival counters (kept 0) */
    size_t segctr_cap;            /* entries */
    size_t *doff;                 /* host offsets copied to the device */
    size_t doff_cap;              /* bytes */
    void *xs;                     /* exact sums' accumulators (exact.cu; zeroed once, kept zero) */
    size_t xs_cap;                /* bytes */

    size_t sbytes;                /* bytes per staging buffer (0: not made yet) */
    size_t soff_n;                /* offsets per chunk buffer */
    void *sdev[kStages];          /* device staging: input chunk (scan output in place) */
    void *shost[kStages];         /* pinned staging for pageable buffers */
    size_t *soff_dev[kStages];    /* per-chunk segment offsets */
    size_t *soff_host[kStages];
    void *sres[kStages];          /* per-chunk segment results (device) */
    cudaEvent_t e_in[kStages], e_comp[kStages], e_out[kStages];
};

/*
 * The end of a call, told by its last kernel.  A call that returns complete
 * waits for its last kernel; cudaStreamSynchronize learns of the end only
 * after the kernel has retired and then wakes the host through the driver.
 * Instead, the block that finishes the kernel's work stores `seq` into
 * `word`, a word of mapped pinned host memory, and the host spins on it
 * (warpred_cuda.cu, finish()).  On the H200 that returned a call 1.3-1.6 us
 * sooner at 2^10, 2^25 and 2^28 elements (tools/call_cost.cu, 2026-12-01):
 * a 1024-element reduce in 11.3-11.8 us against 12.6-13.1 us.  The same wait
 * behind a cuStreamWriteValue32 gained nothing: that call costs ~1 us on the
 * host.
 * A launch that does not end a call gets kNoDone.
 */
struct done_sig {
    unsigned *word;               /* device alias of the mapped word, or NULL: nobody waits */
    unsigned seq;                 /* the value that says "done" (never 0) */
};
constexpr done_sig kNoDone = { nullptr, 0 };

/* err helpers: "call: CUDA error string"; out of memory is WR_ERR_NO_MEMORY. */
wr_status fail(char *err, const char *call, cudaError_t e);
/* Grow a device buffer to at least need bytes (contents not kept; zeroed if
 * zero).  A no-op in the steady state.  On failure *p is NULL and *cap 0. */
wr_status grow(lane &L, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err);
template <typename P>
wr_status grow(lane &L, P *&p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    void *v = p;
    wr_status st = grow(L, &v, cap, need, zero, what, err);
    p = (P *)v;
    return st;
}

#define WRC_CK(fn, args)                                                       \
    do { cudaError_t e_ = fn args; if (e_ != cudaSuccess) return ::wrc::fail(err, #fn, e_); } while (0)
#define WRC_CKLAUNCH(what)                                                     \
    do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) return ::wrc::fail(err, what, e_); } while (0)
#define WRC_TRY(expr) do { wr_status s_ = (expr); if (s_ != WR_SUCCESS) return s_; } while (0)

/* ---- launchers (each enqueues on L.st; pointers are device-accessible) --- */
/* ds: the call's end is this launch's end (kNoDone if not). */

/* *dst = [*carry op] reduce(in[0..n)); n >= 1.  carry may be NULL, == dst, or
 * another slot (read before dst is written; dst may be mapped host memory). */
wr_status launch_reduce(lane &L, const void *in, size_t n, wr_type t, wr_op o,
                        void *dst, const void *carry, done_sig ds, char *err);
/* argmin/argmax of in[0..n) (n >= 1) as a pair {size_t index; T value} at
 * dst, indices offset by base; combined with the pair at carry if not NULL
 * (carry may be dst or another slot; dst may be mapped host memory). */
wr_status launch_argext(lane &L, const void *in, size_t n, wr_type t, int is_max, size_t base,
                        void *dst, const void *carry, done_sig ds, char *err);
/* Inclusive/exclusive scan of n >= 1 elements (out may equal in).  carry_in
 * (if not NULL) is the running prefix before in[0], in the carry type;
 * carry_out (if not NULL) receives the running prefix after in[n-1]. */
wr_status launch_scan(lane &L, const void *in, void *out, size_t n, wr_type t, wr_op o, int exclusive,
                      const void *carry_in, void *carry_out, done_sig ds, char *err);
/* Segment s of nseg: in[begin(s) .. begin(s+1)) with begin(s) = off[s] - off_base
 * (off a device-readable array of nseg+1 entries) or, with off == NULL,
 * s * cols (rows).  out[s] = its reduction (the identity if it is empty).
 * avg_len picks the mapping (a group of lanes, a block or several blocks per segment). */
wr_status launch_segments(lane &L, const void *in, void *out, size_t nseg, const size_t *off,
                          size_t off_base, size_t cols, double avg_len, wr_type t, wr_op o, done_sig ds,
                          char *err);
/* dst[0] = off[0], dst[1] = off[nseg], dst[2] = the least s < nseg with
 * off[s + 1] < off[s], or SIZE_MAX (dst may be mapped host memory). */
wr_status launch_check_offsets(lane &L, const size_t *off, size_t nseg, size_t *dst, char *err);
/* Chunked segments: res[0] = *carry_in op res[0] if first_cont; then
 * *carry_out = res[m-1] if last_cont. */
wr_status launch_seg_fix(lane &L, void *res, size_t m, const void *carry_in, void *carry_out,
                         int first_cont, int last_cont, wr_type t, wr_op o, char *err);

/* ---- generic dispatch: F::run<O, T>(args...) for the (type, op) pair ----- */
template <class F, typename T, typename... A>
wr_status dispatch_int(wr_op o, A &&...a)
{
    switch (o) {
    case WR_SUM:  return F::template run<WR_SUM, T>(a...);
    case WR_PROD: return F::template run<WR_PROD, T>(a...);
    case WR_MIN:  return F::template run<WR_MIN, T>(a...);
    case WR_MAX:  return F::template run<WR_MAX, T>(a...);
    case WR_BAND: return F::template run<WR_BAND, T>(a...);
    case WR_BOR:  return F::template run<WR_BOR, T>(a...);
    case WR_BXOR: return F::template run<WR_BXOR, T>(a...);
    }
    return WR_ERR_UNSUPPORTED;
}
template <class F, typename T, typename... A>
wr_status dispatch_float(wr_op o, A &&...a)
{
    switch (o) {
    case WR_SUM:  return F::template run<WR_SUM, T>(a...);
    case WR_PROD: return F::template run<WR_PROD, T>(a...);
    case WR_MIN:  return F::template run<WR_MIN, T>(a...);
    case WR_MAX:  return F::template run<WR_MAX, T>(a...);
    default:      return WR_ERR_UNSUPPORTED;   /* lib/ never passes these */
    }
}
template <class F, typename... A>
wr_status dispatch(wr_type t, wr_op o, A &&...a)
{
    switch (t) {
    case WR_INT32:  return dispatch_int<F, int32_t>(o, a...);
    case WR_INT64:  return dispatch_int<F, int64_t>(o, a...);
    case WR_UINT32: return dispatch_int<F, uint32_t>(o, a...);
    case WR_UINT64: return dispatch_int<F, uint64_t>(o, a...);
    case WR_FLOAT:  return dispatch_float<F, float>(o, a...);
    case WR_DOUBLE: return dispatch_float<F, double>(o, a...);
    }
    return WR_ERR_UNSUPPORTED;
}
/* F::run<T>(args...) by type only (argmin/argmax). */
template <class F, typename... A>
wr_status dispatch_type(wr_type t, A &&...a)
{
    switch (t) {
    case WR_INT32:  return F::template run<int32_t>(a...);
    case WR_INT64:  return F::template run<int64_t>(a...);
    case WR_UINT32: return F::template run<uint32_t>(a...);
    case WR_UINT64: return F::template run<uint64_t>(a...);
    case WR_FLOAT:  return F::template run<float>(a...);
    case WR_DOUBLE: return F::template run<double>(a...);
    }
    return WR_ERR_UNSUPPORTED;
}

/* ---- device helpers shared by the kernels -------------------------------- */

/* 16 bytes of elements: one LDG.128 / STG.128. */
template <typename T> struct alignas(16) vec { T v[16 / sizeof(T)]; };

template <typename T>
__device__ __forceinline__ T ld_volatile(const T *p) { return *(const volatile T *)p; }

/* Combine the elements of one vector: pairwise, in a fixed order. */
template <class F, typename T>
__device__ __forceinline__ T vreduce(const vec<T> &x)
{
    if constexpr (sizeof(T) == 4)
        return F::combine(F::combine(x.v[0], x.v[1]), F::combine(x.v[2], x.v[3]));
    else
        return F::combine(x.v[0], x.v[1]);
}

/*
 * Walk in[b..e) with a team of `team` threads, this one being number `lane`:
 * a scalar head up to the first 16-byte boundary, then 16-byte vectors with
 * kUnroll independent loads in flight per thread, then a scalar tail.  Each
 * element goes to one of the thread's kUnroll accumulators, every
 * accumulator seeing its elements in increasing index order:
 * elem(acc, x, i) for a scalar, vect(acc, v, i) for the vector at index i.
 * The order of everything depends only on (b, e, team, lane): the same bits
 * on every run.
 */
template <typename T, typename A, class Elem, class Vect>
__device__ __forceinline__ void team_walk(const T *__restrict__ in, size_t b, size_t e, size_t lane, size_t team,
                                          A (&acc)[kUnroll], Elem elem, Vect vect)
{
    constexpr size_t V = 16 / sizeof(T);
    if (b >= e) return;
    size_t head = ((16 - ((uintptr_t)(in + b) & 15)) & 15) / sizeof(T);
    if (head > e - b) head = e - b;
    const size_t a0 = b + head, nv = (e - a0) / V, t0 = a0 + nv * V;
    for (size_t q = lane; q < head; q += team) elem(acc[0], in[b + q], b + q);
    const vec<T> *vp = reinterpret_cast<const vec<T> *>(in + a0);
    size_t i = lane;
    for (; i + (kUnroll - 1) * team < nv; i += kUnroll * team) {
        vec<T> x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) x[u] = vp[i + u * team];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) vect(acc[u], x[u], a0 + (i + u * team) * V);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; u++)
        if (i + u * team < nv) vect(acc[u], vp[i + u * team], a0 + (i + u * team) * V);
    for (size_t q = lane; q < e - t0; q += team) elem(acc[1], in[t0 + q], t0 + q);
}

/* This thread's share of the reduction of in[b..e) by a team (the neutral
 * element if it had none); the team combines the shares. */
template <class F, typename T>
__device__ __forceinline__ T team_reduce(const T *__restrict__ in, size_t b, size_t e, size_t lane, size_t team)
{
    T acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) acc[u] = F::neutral();
    team_walk(in, b, e, lane, team, acc,
              [](T &a, T x, size_t) { a = F::combine(a, x); },
              [](T &a, const vec<T> &x, size_t) { a = F::combine(a, vreduce<F>(x)); });
    return F::combine(F::combine(acc[0], acc[1]), F::combine(acc[2], acc[3]));
}

/*
 * The ticket of the "threadFenceReduction" pattern of the CUDA samples, for
 * one thread of a block after its last store that the others will read:
 * that store made visible device-wide, then the block counted in *ctr; true
 * for the last of the `of` arrivals, which may then read what all of them
 * stored (after a __threadfence of its own).  Whoever gets true resets *ctr.
 */
__device__ __forceinline__ bool last_arrival(unsigned *ctr, unsigned of)
{
    __threadfence();
    return atomicAdd(ctr, 1u) == of - 1;
}

/*
 * The end of a grid reduction in one launch (the "threadFenceReduction"
 * pattern of the CUDA samples): every block leaves its result r in
 * part[blockIdx.x]; the last block to arrive (an atomic ticket, after a
 * __threadfence) gets true, with the fold of all partials in block order in
 * r.  The others get false and are done.  The caller resets *ctr to 0 once
 * it has its answer.  s_last is a __shared__ int of the block.
 */
template <wr_op O, typename T>
__device__ __forceinline__ bool grid_fold(T &r, T *part, unsigned *ctr,
                                          warpred::block_storage<T> &bs, int &s_last)
{
    typedef warpred::op<O, T> F;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = r;
        s_last = last_arrival(ctr, gridDim.x);
    }
    __syncthreads();            /* also ends every read of bs before */
    if (!s_last) return false;
    __threadfence();
    T a = F::neutral();
    for (unsigned j = threadIdx.x; j < gridDim.x; j += kThreads) a = F::combine(a, ld_volatile(part + j));
    r = warpred::block_reduce<O>(a, bs);
    return true;
}

/* Tell the host the call is done: everything this thread wrote (and what it
 * has seen other threads write), then the word. */
__device__ __forceinline__ void signal_done(done_sig ds)
{
    __threadfence_system();
    *(volatile unsigned *)ds.word = ds.seq;
}

/* The end of a kernel whose blocks finish independently: each block counts
 * itself out in *count, and the last one resets the count and signals.  The
 * barrier orders the block's stores before its thread 0, whose fence before
 * the count makes them visible device-wide first (the pattern of the CUDA
 * samples' threadFenceReduction, with the barrier ahead of the fence:
 * last_arrival).
 * Every thread of every block must call it, after its last store. */
__device__ __forceinline__ void grid_done(done_sig ds, unsigned *count)
{
    if (ds.word == nullptr) return;           /* a kernel parameter: uniform */
    /* the thread index read afresh: one kept from the kernel's start would
     * hold a register through its main loop (the row kernels spilled) */
    unsigned tid;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
    __syncthreads();
    if (tid == 0 && last_arrival(count, gridDim.x)) {
        *count = 0;
        signal_done(ds);
    }
}

/* Blocks of kThreads that fit on one multiprocessor at once for kernel k. */
int blocks_per_sm(const void *kernel);

} /* namespace wrc */

#endif /* WRC_CUH */

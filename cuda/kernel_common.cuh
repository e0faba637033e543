/*
 * kernel_common.cuh -- device code the CUDA backend's kernels share (not
 * installed): 16-byte vectors, team walks and reductions, the last-arrival
 * ticket, the grid fold and the end-of-call signal.
 */
#ifndef WRCUDA_KERNEL_COMMON_CUH
#define WRCUDA_KERNEL_COMMON_CUH

#include "backend.cuh"
#include "warpred_device.cuh"

namespace wrcuda {

/* The second argument of __launch_bounds__ for `want` resident blocks of
 * kThreads: want where a multiprocessor of the architecture being compiled
 * holds that many, else 0, which asks for nothing (ptxas would ignore the
 * request, with a warning).  Threads per multiprocessor: 2048 on sm_80,
 * sm_90 and sm_10x, 1536 on sm_86-89, sm_110 and sm_12x, 1024 on sm_75.
 * (Host code sees 2048.) */
constexpr int fit_blocks(int want)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || \
    (__CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1100)
    constexpr int per_sm = 2048;
#elif __CUDA_ARCH__ < 800
    constexpr int per_sm = 1024;
#else
    constexpr int per_sm = 1536;
#endif
    return want * kThreads <= per_sm ? want : 0;
}

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
 * Walk in[b..e) with a team of `team` threads, this one being number `rank`:
 * a scalar head up to the first 16-byte boundary, then 16-byte vectors with
 * kUnroll independent loads in flight per thread, then a scalar tail.  Each
 * element goes to one of the thread's kUnroll accumulators, every
 * accumulator seeing its elements in increasing index order:
 * elem(acc, x, i) for a scalar, vect(acc, v, i) for the vector at index i.
 * The order of everything depends only on (b, e, team, rank): the same bits
 * on every run.
 */
template <typename T, typename A, class Elem, class Vect>
__device__ __forceinline__ void team_walk(const T *__restrict__ in, size_t b, size_t e, size_t rank, size_t team,
                                          A (&acc)[kUnroll], Elem elem, Vect vect)
{
    constexpr size_t V = 16 / sizeof(T);
    if (b >= e) return;
    size_t head = ((16 - ((uintptr_t)(in + b) & 15)) & 15) / sizeof(T);
    if (head > e - b) head = e - b;
    const size_t a0 = b + head, nv = (e - a0) / V, t0 = a0 + nv * V;
    for (size_t q = rank; q < head; q += team) elem(acc[0], in[b + q], b + q);
    const vec<T> *vp = reinterpret_cast<const vec<T> *>(in + a0);
    size_t i = rank;
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
    for (size_t q = rank; q < e - t0; q += team) elem(acc[1], in[t0 + q], t0 + q);
}

/*
 * team_walk over two arrays at once, x[b..e) and y[b..e) (a dot product's
 * inputs): elem(acc, x[i], y[i], i) for a scalar pair, vect(acc, xv, yv, i)
 * for the vectors at index i.  Where x and y share their offset inside 16
 * bytes (arrays from cudaMalloc, x == y, any two slices at the same index)
 * it is team_walk's head, vectors and tail on both; where they do not, one
 * of the two could not be read in 16-byte vectors, so both are read as
 * scalars, kPairs elements of each in flight per thread (coalesced 4- or
 * 8-byte loads still stream at memory speed with that many in flight).
 * The order depends only on (b, e, team, rank) and the two offsets.
 */
constexpr int kPairs = 8;
template <typename T, typename A, class Elem, class Vect>
__device__ __forceinline__ void team_walk2(const T *__restrict__ x, const T *__restrict__ y, size_t b, size_t e,
                                           size_t rank, size_t team, A (&acc)[kUnroll], Elem elem, Vect vect)
{
    constexpr size_t V = 16 / sizeof(T);
    if (b >= e) return;
    if ((((uintptr_t)x ^ (uintptr_t)y) & 15) != 0) {
        size_t i = b + rank;
        for (; i + (kPairs - 1) * team < e; i += kPairs * team) {
            T xs[kPairs], ys[kPairs];
#pragma unroll
            for (int u = 0; u < kPairs; u++) {
                xs[u] = x[i + u * team];
                ys[u] = y[i + u * team];
            }
#pragma unroll
            for (int u = 0; u < kPairs; u++) elem(acc[u % kUnroll], xs[u], ys[u], i + u * team);
        }
#pragma unroll
        for (int u = 0; u < kPairs; u++)
            if (i + u * team < e) elem(acc[u % kUnroll], x[i + u * team], y[i + u * team], i + u * team);
        return;
    }
    size_t head = ((16 - ((uintptr_t)(x + b) & 15)) & 15) / sizeof(T);
    if (head > e - b) head = e - b;
    const size_t a0 = b + head, nv = (e - a0) / V, t0 = a0 + nv * V;
    for (size_t q = rank; q < head; q += team) elem(acc[0], x[b + q], y[b + q], b + q);
    const vec<T> *xp = reinterpret_cast<const vec<T> *>(x + a0);
    const vec<T> *yp = reinterpret_cast<const vec<T> *>(y + a0);
    size_t i = rank;
    for (; i + (kUnroll - 1) * team < nv; i += kUnroll * team) {
        vec<T> xv[kUnroll], yv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            xv[u] = xp[i + u * team];
            yv[u] = yp[i + u * team];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) vect(acc[u], xv[u], yv[u], a0 + (i + u * team) * V);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; u++)
        if (i + u * team < nv) vect(acc[u], xp[i + u * team], yp[i + u * team], a0 + (i + u * team) * V);
    for (size_t q = rank; q < e - t0; q += team) elem(acc[1], x[t0 + q], y[t0 + q], t0 + q);
}

/* This thread's share of the reduction of in[b..e) by a team (the neutral
 * element if it had none); the team combines the shares. */
template <class F, typename T>
__device__ __forceinline__ T team_reduce(const T *__restrict__ in, size_t b, size_t e, size_t rank, size_t team)
{
    T acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) acc[u] = F::neutral();
    team_walk(in, b, e, rank, team, acc,
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

} /* namespace wrcuda */

#endif /* WRCUDA_KERNEL_COMMON_CUH */

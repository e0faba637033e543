/*
 * reduce.cu -- device-wide reduce and argmin/argmax in ONE kernel launch.
 *
 * Each block reduces a grid-strided share of the array (16-byte loads,
 * kUnroll in flight per thread) with the block_reduce of warpred_device.cuh
 * and leaves its partial in scratch; the last block to arrive (an atomic
 * ticket, after a __threadfence: the "threadFenceReduction" pattern of the
 * CUDA samples) folds the partials in block order.  No floating atomics and a
 * fixed order of every combination, so float results are the same bits on
 * every run; no second launch and no host round trip.
 */
#include <string.h>
#include <atomic>
#include <type_traits>
#include "kernel_common.cuh"
#include "dot.cuh"

namespace wrcuda {

namespace {

/* Blocks of k_reduce asked to fit on a multiprocessor: 8 (2048 threads,
 * at most 32 registers each) keeps the most 16-byte loads in flight.  The
 * register count is otherwise an accident of code generation: left free,
 * the 32-bit integer kernels can take 34 registers, 6 blocks a
 * multiprocessor, and lose a few percent at 2^28 elements.  Float MIN/MAX
 * need 36-48 registers for their NaN rules; asked for 8 blocks they spill,
 * so they are left free. */
template <wr_op O, typename T> constexpr int reduce_min_blocks()
{
    return std::is_floating_point<T>::value && (O == WR_MIN || O == WR_MAX) ? 1 : 8;
}

template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads, fit_blocks(reduce_min_blocks<O, T>()))
k_reduce(const T *__restrict__ in, size_t n, T *__restrict__ part, unsigned *__restrict__ ctr,
         T *dst, const T *carry, done_sig ds)
{
    typedef warpred::op<O, T> F;
    __shared__ warpred::block_storage<T> bs;
    __shared__ int s_last;
    T r = team_reduce<F>(in, 0, n, (size_t)blockIdx.x * kThreads + threadIdx.x, (size_t)gridDim.x * kThreads);
    r = warpred::block_reduce<O>(r, bs);
    if (gridDim.x > 1 && !grid_fold<O>(r, part, ctr, bs, s_last)) return;
    if (threadIdx.x == 0) {
        *dst = carry ? F::combine(*carry, r) : r;
        if (gridDim.x > 1) *ctr = 0;
        if (ds.word) signal_done(ds);
    }
}

/* Grid for a grid-strided pass over n elements: enough blocks to fill the
 * device (one wave: every block resident, no partial last wave), more only
 * where `chained` asks that no thread chains more than ~256 vectors (keeps
 * the float error bound of DESIGN.md for any n; argmin/argmax are exact and
 * do not need it), at most kMaxGrid. */
unsigned reduce_grid(size_t n, size_t elem, int sms, int per_sm, bool chained)
{
    const size_t nv = n / (16 / elem) + 1;
    const size_t per_iter = (size_t)kThreads * kUnroll;
    size_t need = (nv + per_iter - 1) / per_iter;
    size_t fill = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
    size_t chain = chained ? (nv + per_iter * 64 - 1) / (per_iter * 64) : 0;
    size_t g = need < fill ? need : (fill > chain ? fill : chain);
    if (g > kMaxGrid) g = kMaxGrid;
    return g ? (unsigned)g : 1u;
}

struct reduce_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, size_t n, void *dst, const void *carry, done_sig ds, char *err)
    {
        static occupancy_cache occ;
        auto k = k_reduce<O, T>;
        const int per_sm = occ.get(S, (const void *)k);
        unsigned g = reduce_grid(n, sizeof(T), S.sms, per_sm, true);
        k<<<g, kThreads, 0, S.st>>>((const T *)in, n, (T *)S.part, S.ctr, (T *)dst, (const T *)carry, ds);
        WRCUDA_CKLAUNCH("reduce kernel launch");
        return WR_SUCCESS;
    }
};

/* ---- argmin / argmax ----------------------------------------------------- */

constexpr size_t kNone = ~(size_t)0;     /* "no element yet" */

template <typename T> struct apair { size_t i; T v; };

/* wr_arg_better_* of lib/wr_ops.h (does b, at a later index, beat a?)
 * without its early returns, which ptxas keeps as branches in the hot loop:
 * a NaN a is never beaten (a == a fails), a NaN b beats any other a, and
 * otherwise b must be strictly better; !(a >= b) is "a < b or either is
 * NaN".  -0 and +0 compare equal, so neither beats the other. */
template <typename T>
__device__ __forceinline__ bool arg_better(T a, T b, bool is_max)
{
    return (a == a) & (is_max ? !(a >= b) : !(b >= a));
}

/* arg_better for argmin (M == kArgMin), argmax (kArgMax) or the argmax of
 * |x| (kArgAbsMax: wr_argmax_abs, whose pairs keep x itself, sign and all,
 * for the value output; fabs keeps a NaN a NaN). */
constexpr int kArgMin = 0, kArgMax = 1, kArgAbsMax = 2;
template <int M, typename T>
__device__ __forceinline__ bool better(T a, T b)
{
    if constexpr (M == kArgAbsMax) return arg_better(fabs(a), fabs(b), true);
    else return arg_better(a, b, M == kArgMax);
}

/* The winner of two candidates, whatever order they come in: the better
 * value, and on a tie (or two NaNs) the smaller index -- the rule of
 * wr_arg_better, which is stated for a candidate at the later index. */
template <int M, typename T>
__device__ __forceinline__ apair<T> pick(apair<T> a, apair<T> b)
{
    if (a.i == kNone) return b;
    if (b.i == kNone) return a;
    if (a.i < b.i) return better<M>(a.v, b.v) ? b : a;
    return better<M>(b.v, a.v) ? a : b;
}

template <int M, typename T>
__device__ __forceinline__ void visit(apair<T> &acc, T x, size_t i)
{
    if ((acc.i == kNone) | better<M>(acc.v, x)) { acc.v = x; acc.i = i; }   /* | : no branch */
}

template <int M, typename T>
__device__ __forceinline__ apair<T> warp_pick(apair<T> a)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        apair<T> b;
        b.i = __shfl_xor_sync(warpred::full_mask, a.i, off);
        b.v = __shfl_xor_sync(warpred::full_mask, a.v, off);
        a = pick<M>(a, b);
    }
    return a;
}

/* Block-wide pick with one barrier (block_reduce's relay, for pairs). */
template <int M, typename T>
__device__ __forceinline__ apair<T> block_pick(apair<T> a, apair<T> *s)
{
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    a = warp_pick<M>(a);
    if (lane == 0) s[w] = a;
    __syncthreads();
    if (lane < kThreads / 32) a = s[lane]; else a.i = kNone;
    return warp_pick<M>(a);
}

/* The best element of one vector and its offset there: a pairwise
 * tournament in which the earlier candidate is always the first argument of
 * arg_better, so a tie (or two NaNs) keeps the lower offset.  Ordering the
 * candidates by (better value, lower index) is a total order, so the
 * tournament picks what a left-to-right scan would. */
template <int M, typename T>
__device__ __forceinline__ T vpick(const vec<T> &x, unsigned &o)
{
    if constexpr (sizeof(T) == 4) {
        const bool b01 = better<M>(x.v[0], x.v[1]), b23 = better<M>(x.v[2], x.v[3]);
        const T a = b01 ? x.v[1] : x.v[0], c = b23 ? x.v[3] : x.v[2];
        const bool bac = better<M>(a, c);
        o = bac ? (b23 ? 3u : 2u) : (b01 ? 1u : 0u);
        return bac ? c : a;
    } else {
        const bool b = better<M>(x.v[0], x.v[1]);
        o = b ? 1u : 0u;
        return b ? x.v[1] : x.v[0];
    }
}

/* Thread share of an argext pass: visits its elements in increasing index
 * order per accumulator, so "strictly better replaces" keeps the first.  A
 * vector is first reduced to its best element with a small offset (vpick),
 * and only that candidate meets the accumulator: one "no element yet" test,
 * one full comparison and one 64-bit index per vector instead of per
 * element (the per-element work held argmax below the copy ceiling). */
template <int M, typename T>
__device__ __forceinline__ apair<T> team_pick(const T *__restrict__ in, size_t n, size_t rank, size_t team)
{
    apair<T> acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) { acc[u].i = kNone; acc[u].v = T(); }
    team_walk(in, 0, n, rank, team, acc,
              [](apair<T> &a, T x, size_t i) { visit<M>(a, x, i); },
              [](apair<T> &a, const vec<T> &x, size_t i) {
                  unsigned o;
                  visit<M>(a, vpick<M>(x, o), i + o);
              });
    return pick<M>(pick<M>(acc[0], acc[1]), pick<M>(acc[2], acc[3]));
}

template <int M, typename T>
__global__ void __launch_bounds__(kThreads)
k_argext(const T *__restrict__ in, size_t n, size_t base, apair<T> *__restrict__ part,
         unsigned *__restrict__ ctr, apair<T> *dst, const apair<T> *carry, size_t *idx_out, T *val_out,
         done_sig ds)
{
    __shared__ apair<T> s[32];
    __shared__ int s_last;
    apair<T> r = team_pick<M>(in, n, (size_t)blockIdx.x * kThreads + threadIdx.x, (size_t)gridDim.x * kThreads);
    r = block_pick<M>(r, s);
    if (gridDim.x > 1) {
        if (threadIdx.x == 0) {
            part[blockIdx.x] = r;
            s_last = last_arrival(ctr, gridDim.x);
        }
        __syncthreads();
        if (!s_last) return;
        __threadfence();
        apair<T> a;
        a.i = kNone; a.v = T();
        for (unsigned j = threadIdx.x; j < gridDim.x; j += kThreads) {
            apair<T> b;
            b.i = ld_volatile(&part[j].i);
            b.v = ld_volatile(&part[j].v);
            a = pick<M>(a, b);
        }
        r = block_pick<M>(a, s);
    }
    if (threadIdx.x == 0) {
        r.i += base;
        if (carry) r = pick<M>(*carry, r);
        if (dst) *dst = r;
        /* the caller's own outputs, when the device reaches them: no copy
         * after the kernel (each would be a node of its own in a graph, and
         * a few microseconds on the stream) */
        if (idx_out) *idx_out = r.i;
        if (val_out) *val_out = r.v;
        if (gridDim.x > 1) *ctr = 0;
        if (ds.word) signal_done(ds);
    }
}

/* One element of `bytes` (4 or 8) bytes, by value: a result known on the
 * host (the identity of an empty reduction) delivered to device memory in
 * stream order, with nothing on the host that must outlive the call. */
__global__ void k_store(void *dst, unsigned long long bits, unsigned bytes)
{
    if (bytes == 4) *(unsigned *)dst = (unsigned)bits;
    else *(unsigned long long *)dst = bits;
}

struct argext_fn {
    template <typename T>
    static wr_status run(strand &S, const void *in, size_t n, int mode, size_t base, void *dst,
                         const void *carry, size_t *idx_out, void *val_out, done_sig ds, char *err)
    {
        static occupancy_cache occ;
        auto k = mode == kArgMax ? k_argext<kArgMax, T> : k_argext<kArgMin, T>;
        if constexpr (std::is_floating_point<T>::value)
            if (mode == kArgAbsMax) k = k_argext<kArgAbsMax, T>;
        const int per_sm = occ.get(S, (const void *)k);
        unsigned g = reduce_grid(n, sizeof(T), S.sms, per_sm, false);
        k<<<g, kThreads, 0, S.st>>>((const T *)in, n, base, (apair<T> *)S.part, S.ctr,
                                    (apair<T> *)dst, (const apair<T> *)carry, idx_out, (T *)val_out, ds);
        WRCUDA_CKLAUNCH("argext kernel launch");
        return WR_SUCCESS;
    }
};

static_assert(sizeof(apair<double>) == 16 && sizeof(apair<float>) == 16, "pair layout: index at 0, value at 8");

} /* namespace */

wr_status launch_reduce(strand &S, const void *in, size_t n, wr_type t, wr_op o,
                        void *dst, const void *carry, done_sig ds, char *err)
{
    return dispatch<reduce_fn>(t, o, S, in, n, dst, carry, ds, err);
}

wr_status launch_argext(strand &S, const void *in, size_t n, wr_type t, int is_max, size_t base,
                        void *dst, const void *carry, size_t *index_out, void *value_out, done_sig ds, char *err)
{
    return dispatch_type<argext_fn>(t, S, in, n, is_max ? kArgMax : kArgMin, base, dst, carry, index_out, value_out,
                                    ds, err);
}

wr_status launch_iamax(strand &S, const void *in, size_t n, wr_type t, size_t base, void *dst, const void *carry,
                       size_t *index_out, void *value_out, done_sig ds, char *err)
{
    if (t != WR_FLOAT && t != WR_DOUBLE) return WR_ERR_UNSUPPORTED;
    return dispatch_type<argext_fn>(t, S, in, n, kArgAbsMax, base, dst, carry, index_out, value_out, ds, err);
}

wr_status launch_store(strand &S, void *dst, const void *elem, size_t bytes, char *err)
{
    unsigned long long bits = 0;
    memcpy(&bits, elem, bytes);
    k_store<<<1, 1, 0, S.st>>>(dst, bits, (unsigned)bytes);
    WRCUDA_CKLAUNCH("store kernel launch");
    return WR_SUCCESS;
}

const void *probe_reduce() { return (const void *)k_reduce<WR_SUM, float>; }

} /* namespace wrcuda */

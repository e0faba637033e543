/*
 * warpred_device.cuh -- warp and block reduce/scan primitives for CUDA C++.
 *
 * The building blocks libwarpred's CUDA backend is made of, for use in your
 * own kernels.  Everything is a header-only template over the element type T
 * (int32_t, int64_t, uint32_t, uint64_t, float, double) and the operation
 * O (a wr_op: WR_SUM, WR_PROD, WR_MIN, WR_MAX, WR_BAND, WR_BOR, WR_BXOR; the
 * bitwise ones for integer types only), with exactly the arithmetic of the
 * C library (wr_ops.h): integer SUM/PROD wrap, float MIN/MAX are IEEE 754-2019
 * minimum/maximum (NaN wins, -0.0 < +0.0).
 *
 *   #include <warpred_device.cuh>
 *   __global__ void k(const float *x, float *out) {
 *       __shared__ warpred::block_storage<float> tmp;
 *       float s = warpred::block_reduce<WR_SUM>(x[blockIdx.x * blockDim.x + threadIdx.x], tmp);
 *       if (threadIdx.x == 0) out[blockIdx.x] = s;
 *   }
 *
 * Needs C++17 (nvcc -std=c++17, the default of recent nvcc) and sm_30 or later;
 * on sm_80 and later the 32-bit integer warp reductions use the hardware
 * __reduce_*_sync instructions.
 *
 * Rules (the "mask rules"):
 *  - Warp primitives take a Width (1, 2, 4, 8, 16 or 32; default 32): the warp
 *    is cut into independent groups of Width consecutive lanes, and each group
 *    computes its own result, as the `width` argument of __shfl_*_sync does.
 *  - `mask` names the lanes that call the primitive (default: all 32).  Every
 *    lane named in mask must make the same call with the same mask and Width,
 *    lanes not named must not call, and each group of Width lanes is either
 *    wholly in the mask or wholly out of it.  With Width 32 that means the
 *    whole warp: the default mask.
 *  - Block primitives need a one-dimensional block whose size is a multiple
 *    of 32, from 32 to 1024 threads (every warp full), and every thread of the
 *    block must call them (they contain __syncthreads()).  They use a
 *    block_storage<T> in shared memory; call __syncthreads() before using the
 *    same storage again (for another primitive call).
 *  - Results are in every participating lane/thread, unless said otherwise.
 *
 * Sources: the shuffle reduce / scan idioms follow NVIDIA's CUDA C++
 * Programming Guide (warp shuffle functions, __reduce_*_sync) and the block
 * structure (per-warp partials relayed through shared memory; an exclusive
 * scan of warp totals as each warp's base) is the one taught in the
 * "Warp Shuffle" articles libwarpred was designed from; CUB's WarpReduce /
 * BlockScan offer the same services with more knobs.
 */
#ifndef WARPRED_DEVICE_CUH
#define WARPRED_DEVICE_CUH

#include <stdint.h>
#include <type_traits>
#include "warpred.h"
#include "wr_ops.h"

namespace warpred {

/* All 32 lanes. */
constexpr unsigned full_mask = 0xffffffffu;

/* ---- operations ---------------------------------------------------------
 * op<O, T>::combine(a, b)  a O b, as the C library computes it.
 * op<O, T>::identity()     the documented identity (0 for SUM, +inf for float
 *                          MIN, ...): the result over no element.
 * op<O, T>::neutral()      a value e with combine(e, x) == x bit for bit for
 *                          every x: the identity, except -0.0 for floating
 *                          SUM (+0.0 + -0.0 is +0.0, so +0.0 would turn a
 *                          sum of negative zeros into +0.0).  Use it to pad.
 * op<O, T>::valid          false for bitwise ops on float/double (and those
 *                          have no combine()).
 */
template <wr_op O, typename T> struct op { static constexpr bool valid = false; };

#define WARPRED_DEFINE_OP_(name, OE, sfx, T)                                        \
    template <> struct op<OE, T> {                                                  \
        typedef T value_type;                                                       \
        static constexpr bool valid = true;                                         \
        static __host__ __device__ __forceinline__ T combine(T a, T b)              \
        { return wr_##name##_##sfx(a, b); }                                         \
        static __host__ __device__ __forceinline__ T identity()                     \
        { return wr_ident_##name##_##sfx(); }                                       \
        static __host__ __device__ __forceinline__ T neutral()                      \
        {                                                                           \
            if constexpr (OE == WR_SUM && std::is_floating_point<T>::value)         \
                return (T)-0.0;                                                     \
            else                                                                    \
                return wr_ident_##name##_##sfx();                                   \
        }                                                                           \
    };
#define WARPRED_INT_OPS_(sfx, T, U, E)                                               \
    WARPRED_DEFINE_OP_(sum, WR_SUM, sfx, T) WARPRED_DEFINE_OP_(prod, WR_PROD, sfx, T)  \
    WARPRED_DEFINE_OP_(min, WR_MIN, sfx, T) WARPRED_DEFINE_OP_(max, WR_MAX, sfx, T)    \
    WARPRED_DEFINE_OP_(band, WR_BAND, sfx, T) WARPRED_DEFINE_OP_(bor, WR_BOR, sfx, T)  \
    WARPRED_DEFINE_OP_(bxor, WR_BXOR, sfx, T)
#define WARPRED_FLOAT_OPS_(sfx, T, U, E)                                             \
    WARPRED_DEFINE_OP_(sum, WR_SUM, sfx, T) WARPRED_DEFINE_OP_(prod, WR_PROD, sfx, T)  \
    WARPRED_DEFINE_OP_(min, WR_MIN, sfx, T) WARPRED_DEFINE_OP_(max, WR_MAX, sfx, T)
WR_INT_TYPES(WARPRED_INT_OPS_)
WR_FLOAT_TYPES(WARPRED_FLOAT_OPS_)
#undef WARPRED_FLOAT_OPS_
#undef WARPRED_INT_OPS_
#undef WARPRED_DEFINE_OP_

/* This thread's lane number in its warp (0..31), from the %laneid register. */
__device__ __forceinline__ unsigned lane_id()
{
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

/* ---- the four exchanges (register to register, no shared memory) ------- */

/* The value of lane `src` of this thread's group of Width lanes. */
template <int Width = 32, typename T>
__device__ __forceinline__ T warp_broadcast(T v, int src, unsigned mask = full_mask)
{
    return __shfl_sync(mask, v, src, Width);
}

/* Butterfly: the value of lane (lane ^ lane_mask) of the group; lane_mask < Width. */
template <int Width = 32, typename T>
__device__ __forceinline__ T warp_xor_exchange(T v, int lane_mask, unsigned mask = full_mask)
{
    return __shfl_xor_sync(mask, v, lane_mask, Width);
}

/* The value of lane (lane - delta) of the group; lanes below delta get their own v. */
template <int Width = 32, typename T>
__device__ __forceinline__ T warp_shift_up(T v, unsigned delta, unsigned mask = full_mask)
{
    return __shfl_up_sync(mask, v, delta, Width);
}

/* The value of lane (lane + delta) of the group; lanes past the end get their own v. */
template <int Width = 32, typename T>
__device__ __forceinline__ T warp_shift_down(T v, unsigned delta, unsigned mask = full_mask)
{
    return __shfl_down_sync(mask, v, delta, Width);
}

namespace detail {

static_assert(sizeof(int32_t) == sizeof(int) && sizeof(uint32_t) == sizeof(unsigned), "32-bit int");

/* The hardware warp reductions of sm_80+ (whole warp, 32-bit integers, and
 * no PROD).  Returns false where there is none, so the shuffle path runs. */
template <wr_op O, typename T>
__device__ __forceinline__ bool hw_warp_reduce(T &v, unsigned mask)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_integral<T>::value && sizeof(T) == 4) {
        const unsigned u = (unsigned)v;
        if constexpr (O == WR_SUM)       { v = (T)__reduce_add_sync(mask, u); return true; }
        else if constexpr (O == WR_MIN)  { v = __reduce_min_sync(mask, v); return true; }
        else if constexpr (O == WR_MAX)  { v = __reduce_max_sync(mask, v); return true; }
        else if constexpr (O == WR_BAND) { v = (T)__reduce_and_sync(mask, u); return true; }
        else if constexpr (O == WR_BOR)  { v = (T)__reduce_or_sync(mask, u); return true; }
        else if constexpr (O == WR_BXOR) { v = (T)__reduce_xor_sync(mask, u); return true; }
    }
#endif
    (void)v; (void)mask;
    return false;
}

} /* namespace detail */

/* ---- warp reduce -------------------------------------------------------- */

/* The O-reduction of v over this thread's group of Width lanes, in every
 * lane of the group: log2(Width) xor-butterfly steps (5 for a whole warp),
 * or one __reduce_*_sync instruction for 32-bit integers on sm_80+.  The
 * butterfly gives every lane the same bits (each pairing is commutative). */
template <wr_op O, int Width = 32, typename T>
__device__ __forceinline__ T warp_reduce(T v, unsigned mask = full_mask)
{
    static_assert(Width == 1 || Width == 2 || Width == 4 || Width == 8 || Width == 16 || Width == 32,
                  "Width must be a power of two from 1 to 32");
    static_assert(op<O, T>::valid, "this op is not defined for this type");
    if constexpr (Width == 32)
        if (detail::hw_warp_reduce<O>(v, mask)) return v;
#pragma unroll
    for (int off = Width / 2; off > 0; off /= 2)
        v = op<O, T>::combine(v, __shfl_xor_sync(mask, v, off, Width));
    return v;
}

/* ---- warp scans --------------------------------------------------------- */

/* Inclusive scan over the group: lane i of the group gets v_0 O ... O v_i.
 * Hillis-Steele with __shfl_up_sync; the `lane >= offset` guard matters:
 * a lane with no partner offset lanes up gets its own value back, which must
 * not be combined in. */
template <wr_op O, int Width = 32, typename T>
__device__ __forceinline__ T warp_inclusive_scan(T v, unsigned mask = full_mask)
{
    static_assert(Width == 1 || Width == 2 || Width == 4 || Width == 8 || Width == 16 || Width == 32,
                  "Width must be a power of two from 1 to 32");
    static_assert(op<O, T>::valid, "this op is not defined for this type");
    const unsigned gl = lane_id() & (unsigned)(Width - 1);
#pragma unroll
    for (int off = 1; off < Width; off *= 2) {
        T up = __shfl_up_sync(mask, v, off, Width);
        if (gl >= (unsigned)off) v = op<O, T>::combine(up, v);
    }
    return v;
}

/* Exclusive scan over the group: lane 0 gets the identity, lane i
 * v_0 O ... O v_{i-1}; *total receives the group's whole reduction. */
template <wr_op O, int Width = 32, typename T>
__device__ __forceinline__ T warp_exclusive_scan(T v, T &total, unsigned mask = full_mask)
{
    const unsigned gl = lane_id() & (unsigned)(Width - 1);
    T inc = warp_inclusive_scan<O, Width>(v, mask);
    total = __shfl_sync(mask, inc, Width - 1, Width);
    T ex = __shfl_up_sync(mask, inc, 1, Width);
    return gl == 0 ? op<O, T>::identity() : ex;
}

/* ---- block primitives --------------------------------------------------- */

/* Shared memory the block primitives relay per-warp values through. */
template <typename T> struct block_storage { T warp[32]; };

/* The O-reduction of v over the whole block, in every thread.  One warp
 * reduce per warp, lane 0 of each warp leaves its partial in shared memory,
 * ONE __syncthreads(), then every warp reduces the partials (padded with the
 * neutral element), so the result needs no second barrier to reach everyone. */
template <wr_op O, typename T>
__device__ __forceinline__ T block_reduce(T v, block_storage<T> &s)
{
    const unsigned lane = lane_id(), w = threadIdx.x / 32, nw = blockDim.x / 32;
    v = warp_reduce<O>(v);
    if (lane == 0) s.warp[w] = v;
    __syncthreads();
    v = lane < nw ? s.warp[lane] : op<O, T>::neutral();
    return warp_reduce<O>(v);
}

namespace detail {
/* Per-warp inclusive scans, then the base of each warp: an EXCLUSIVE scan of
 * the warp totals (an inclusive one would count a warp's own total twice).
 * One barrier: every warp scans the (at most 32) totals itself. */
template <wr_op O, typename T>
__device__ __forceinline__ T block_scan_parts(T v, block_storage<T> &s, T &base, T &total)
{
    const unsigned lane = lane_id(), w = threadIdx.x / 32, nw = blockDim.x / 32;
    T inc = warp_inclusive_scan<O>(v);
    if (lane == 31) s.warp[w] = inc;
    __syncthreads();
    T t = lane < nw ? s.warp[lane] : op<O, T>::neutral();
    T tinc = warp_inclusive_scan<O>(t);
    total = __shfl_sync(full_mask, tinc, nw - 1);
    base = __shfl_sync(full_mask, tinc, (w + 31) & 31); /* tinc of warp w-1; unused for w == 0 */
    return inc;
}
} /* namespace detail */

/* Inclusive scan over the block in thread order; *total (if not NULL)
 * receives the block's reduction, in every thread. */
template <wr_op O, typename T>
__device__ __forceinline__ T block_inclusive_scan(T v, block_storage<T> &s, T *total = nullptr)
{
    T base, tot;
    T inc = detail::block_scan_parts<O>(v, s, base, tot);
    if (total) *total = tot;
    return threadIdx.x < 32 ? inc : op<O, T>::combine(base, inc);
}

/* Exclusive scan over the block: thread 0 gets the identity. */
template <wr_op O, typename T>
__device__ __forceinline__ T block_exclusive_scan(T v, block_storage<T> &s, T *total = nullptr)
{
    T base, tot;
    const unsigned lane = lane_id();
    T inc = detail::block_scan_parts<O>(v, s, base, tot);
    T ex = __shfl_up_sync(full_mask, inc, 1);
    if (total) *total = tot;
    if (threadIdx.x < 32) return lane == 0 ? op<O, T>::identity() : ex;
    return lane == 0 ? base : op<O, T>::combine(base, ex);
}

} /* namespace warpred */

#endif /* WARPRED_DEVICE_CUH */

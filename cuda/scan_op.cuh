/*
 * scan_op.cuh -- the scan operators the tile kernels are written over (not
 * installed): what a squad thread folds, how folds combine, what an
 * element's output is.  The kernels (scan_kernel.cuh, scan_block.cuh) take
 * the operator as a template parameter, as CUB's agents take their scan
 * operator: plain_op for the device-wide scan (scan.cu), seg_op for the
 * scan inside segments (segscan_kernel.cuh, segscan.cu).
 *
 * An operator Op<O, T, I> (I: a squad thread's items) has
 *   args           the kernel's arguments;
 *   V              what a thread's, a warp's and a tile's fold carry;
 *   heads          what a thread knows of where segments begin among its
 *                  items (plain: nothing), read from the stage's marks;
 *   kMarks         whether tiles carry head marks (a heads warp, or warp
 *                  0 of the block kernel, sets them; stage_marks holds them);
 *   fold, warp_exclusive, cat, value, flag: the fold of a thread's items,
 *                  the warp's exclusive scan of the folds and its total, a .
 *                  b, the carry and whether a head is among the elements
 *                  (a tile with one publishes its aggregate as its prefix);
 *   run, base, put: a thread's running values, its base from the tile's
 *                  prefix and the earlier threads' fold, its outputs into
 *                  the stage.
 */
#ifndef WRCUDA_SCAN_OP_CUH
#define WRCUDA_SCAN_OP_CUH

#include <type_traits>
#include "kernel_common.cuh"
#include "scan_tile.cuh"
#include "scan_tile_state.cuh"

namespace wrcuda {

constexpr unsigned kEnd = 0xffffffffu;        /* ticket past the last tile */

/* What an element's output is, from its thread's base b (in the carry type;
 * hb: there is one) and its prefix x inside the thread.  Float sums carry in
 * double, and (float)(b + (double)x) costs two conversions and a double add
 * per element.  The base is split instead, once per tile, into the float
 * hi = (float)b and lo = (float)(b - hi), and an element costs hi + (lo + x),
 * within an ulp of the output.  Where b is a float already (which includes
 * -0 and the infinities) lo is -0, so that lo + x is x: the output is hi + x,
 * correctly rounded, with a float scan's signs of zeros; with no base both
 * are -0 and the output is x.  Only a finite b beyond the float range
 * (wide()) needs the double add. */
template <wr_op O, typename T> struct out_map {
    typedef typename carry_of<O, T>::type C;
    static constexpr bool split = !std::is_same<C, T>::value;
    C b;
    bool hb, wide_;
    T hi, lo;
    __device__ __forceinline__ out_map(C b_, bool hb_) : b(b_), hb(hb_), wide_(false), hi((T)-0.0), lo((T)-0.0)
    {
        if constexpr (split) {
            if (hb) {
                hi = (T)b;
                if (isinf(hi) && !isinf(b)) wide_ = true;
                else if (isfinite(b) && (C)hi != b) lo = (T)(b - (C)hi);
            }
        }
    }
    __device__ __forceinline__ bool wide() const { return wide_; }
    __device__ __forceinline__ T operator()(T x) const
    {
        if constexpr (split) return hi + (lo + x);
        else return hb ? warpred::op<O, T>::combine(b, x) : x;
    }
    __device__ __forceinline__ T wide_out(T x) const { return (T)(b + (C)x); }
    __device__ __forceinline__ T base() const { return hb ? (T)b : warpred::op<O, T>::identity(); }
};

/* ---- the plain scan ------------------------------------------------------ */

/* the plain scan's kernel arguments */
template <wr_op O, typename T> struct scan_args {
    typedef typename carry_of<O, T>::type C;
    const T *in;
    T *out;
    size_t n, tiles;
    int exclusive, vec_ok;
    unsigned long long *epoch;               /* launches so far on these descriptors (device) */
    tdesc *d;
    const C *carry_in;
    C *carry_out;
    done_sig ds;                             /* the call's end, if this launch is its last */
    unsigned *dcount;                        /* blocks finished, for grid_done */
};

/* No head marks: a stage has none to keep. */
template <int S, unsigned Words> struct no_marks {};

template <wr_op O, typename T, int I> struct plain_op {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef scan_args<O, T> args;
    typedef C V;
    static constexpr bool kMarks = false;
    template <int S, unsigned Words> using stage_marks = no_marks<S, Words>;
    struct heads {};

    /* the thread's fold, in tile order */
    static __device__ __forceinline__ V fold(const T (&x)[I], const heads &)
    {
        T f = x[0];
#pragma unroll
        for (int k = 1; k < I; k++) f = F::combine(f, x[k]);
        return (C)f;
    }
    static __device__ __forceinline__ V warp_exclusive(V x, V &total, int)
    {
        return warpred::warp_exclusive_scan<O>(x, total);
    }
    static __device__ __forceinline__ V cat(const V &a, const V &b) { return FC::combine(a, b); }
    static __device__ __forceinline__ C value(const V &v) { return v; }
    static __device__ __forceinline__ constexpr bool flag(const V &) { return false; }

    /* the thread's running values */
    static __device__ __forceinline__ void run(T (&x)[I], heads &)
    {
#pragma unroll
        for (int k = 1; k < I; k++) x[k] = F::combine(x[k - 1], x[k]);
    }
    /* the base of thread r from the tile's prefix (pre, if have) and the
     * earlier threads' fold tex; thread 0 has no earlier threads in the
     * tile, and has a base only if the tile has a prefix (r != 0 || have) */
    static __device__ __forceinline__ C base(int r, C pre, bool have, const V &tex)
    {
        return r == 0 ? pre : (have ? FC::combine(pre, tex) : tex);
    }
    template <class P, class M>
    static __device__ __forceinline__ void put(T *stage, int r, const T (&x)[I], const heads &, int exclusive, T b,
                                               M m)
    {
        put_outputs<P>(stage, r, x, exclusive, b, m);
    }
};

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_OP_CUH */

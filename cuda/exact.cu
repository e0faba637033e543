/*
 * exact.cu -- reproducible float/double SUM on the device: reduce, rows and
 * segments as the exact sum rounded once, with lib/wr_exact.h's accumulator
 * and rounding, so that the bits are the cpu backend's (see wr_exact.h).
 *
 * Front end (ExBLAS's approach: Collange, Defour, Graillat, Iakymchuk,
 * Parallel Computing 49, 2015): each thread keeps kUnroll expansions, a
 * double running sum h for float data (float to double is exact) and a pair
 * (h, l) for double data (h by TwoSum, its error into l).  A 16-byte vector
 * of elements is added with every addition verified exact (wrx_add_exact:
 * one add and two subtract-compares per element beyond TwoSum); when one is
 * not, the vector is added again element by element and the elements that
 * still fail go to an exact accumulator in shared memory (integer atomics,
 * a rare path: for uniform floats about one element in 10^6).  The
 * expansions then combine by verified additions (thread, warp butterfly,
 * block), and a result that was exact all the way is rounded by one IEEE
 * operation, the correct rounding of an exact value; anything else goes
 * through the accumulator and wrx_round_bits.  Both give the same bits.
 *
 * Cost per element on the fast path (sm_90, cuobjdump -sass): float data
 * one F2F.F64.F32 and five FP64 operations (DADD, two DADD + two DSETP, or
 * fewer with the compares fused); double data eleven FP64 operations.  The
 * H200 issues 64 FP64 operations per SM cycle, enough for ~12 floats or ~6
 * doubles per SM cycle against the ~4 and ~2 that HBM delivers.
 *
 * Kernels:
 *  - k_xblock: a block per piece of a segment (the reduce is one segment cut
 *    into one piece per resident block, as many as fill the device).  A
 *    segment of one piece rounds in its block; a segment of K pieces adds
 *    each block's exact result to a device accumulator with integer atomics
 *    (order-free, so exact and deterministic), and the last block to arrive
 *    (last_arrival) rounds it -- or, for a staged chunk, hands it on as a
 *    carry -- and zeroes it for the next call.
 *  - k_xgroup: short segments and rows, a group of G lanes per segment as in
 *    segments.cu; a segment whose sum was not exact all the way is done
 *    again by its whole warp with the shared accumulator.
 */
#include <atomic>
#include "exact.cuh"
#include "wr_exact_norm.h"

namespace wrcuda {

namespace {

/* Flags bit of a shared accumulator: something was added to it. */
constexpr uint32_t kUsed = 0x80u;

/* ---- one thread's expansion ------------------------------------------------------- */

template <typename T> struct fpe;
template <> struct fpe<float> { double h; };
template <> struct fpe<double> { double h, l; };

__device__ __forceinline__ void fpe_init(fpe<float> &a) { a.h = -0.0; }     /* -0: IEEE's neutral */
__device__ __forceinline__ void fpe_init(fpe<double> &a) { a.h = -0.0; a.l = -0.0; }

/* Add x[0..V) to a, every addition verified; a is unchanged when one was
 * not exact (returns false). */
template <int V>
__device__ __forceinline__ bool fpe_try(fpe<float> &a, const float *x)
{
    double s = a.h;
    bool ok = true;
#pragma unroll
    for (int j = 0; j < V; j++) ok &= wrx_front_f32(&s, (double)x[j]);
    if (ok) a.h = s;
    return ok;
}

template <int V>
__device__ __forceinline__ bool fpe_try(fpe<double> &a, const double *x)
{
    double h = a.h, l = a.l;
    bool ok = true;
    /* wrx_front_f64 written out: through it, nvcc orders the pair's
     * moves differently (the same arithmetic, other PTX) */
#pragma unroll
    for (int j = 0; j < V; j++) {
        double s, e, t;
        wrx_two_sum(h, x[j], &s, &e);
        ok &= wrx_add_exact(l, e, &t);
        h = s;
        l = t;
    }
    if (ok) {
        a.h = h;
        a.l = l;
    }
    return ok;
}

/* a += b verified; a unchanged and false when not exact. */
__device__ __forceinline__ bool fpe_merge(fpe<float> &a, const fpe<float> &b)
{
    double s;
    if (!wrx_add_exact(a.h, b.h, &s)) return false;
    a.h = s;
    return true;
}

__device__ __forceinline__ bool fpe_merge(fpe<double> &a, const fpe<double> &b)
{
    return wrx_pair_merge(&a.h, &a.l, b.h, b.l) != 0;
}

__device__ __forceinline__ fpe<float> fpe_shfl_xor(const fpe<float> &a, unsigned off)
{
    fpe<float> o;
    o.h = __shfl_xor_sync(warpred::full_mask, a.h, off);
    return o;
}

__device__ __forceinline__ fpe<double> fpe_shfl_xor(const fpe<double> &a, unsigned off)
{
    fpe<double> o;
    o.h = __shfl_xor_sync(warpred::full_mask, a.h, off);
    o.l = __shfl_xor_sync(warpred::full_mask, a.l, off);
    return o;
}

/* The correct rounding of an exact expansion: one IEEE operation. */
__device__ __forceinline__ float fpe_round(const fpe<float> &a) { return (float)a.h; }
__device__ __forceinline__ double fpe_round(const fpe<double> &a) { return wrx_pair_round_f64(a.h, a.l); }

/* ---- the shared accumulator: the exact path ------------------------------------------ */

/* Add x to acc with atomics (element: x is an element, for the flags; else
 * a value such as an error term, where zero adds nothing). */
__device__ __noinline__ void acc_add(wrx_acc *acc, double x, bool element)
{
    int64_t p[3];
    int k;
    atomicOr(&acc->flags, (element ? wrx_elem_flags(x) : 0u) | kUsed);
    if (!wrx_split(x, &k, p)) return;
    atomicAdd((unsigned long long *)&acc->d[k], (unsigned long long)p[0]);
    atomicAdd((unsigned long long *)&acc->d[k + 1], (unsigned long long)p[1]);
    atomicAdd((unsigned long long *)&acc->d[k + 2], (unsigned long long)p[2]);
}

__device__ __forceinline__ void acc_flush(wrx_acc *acc, const fpe<float> &a) { acc_add(acc, a.h, true); }
__device__ __forceinline__ void acc_flush(wrx_acc *acc, const fpe<double> &a)
{
    acc_add(acc, a.h, true);
    if (a.l != 0) acc_add(acc, a.l, false);
}

/* The element-by-element retry of a vector that was not exact as a whole:
 * each element into a if exact, else into acc.  By value: a stays in
 * registers on the fast path. */
template <typename T>
__device__ __noinline__ fpe<T> fpe_careful(fpe<T> a, vec<T> v, wrx_acc *acc)
{
#pragma unroll
    for (int j = 0; j < (int)(16 / sizeof(T)); j++)
        if (!fpe_try<1>(a, &v.v[j])) acc_add(acc, (double)v.v[j], true);
    return a;
}

template <typename T>
__device__ __noinline__ fpe<T> fpe_careful1(fpe<T> a, T x, wrx_acc *acc)
{
    if (!fpe_try<1>(a, &x)) acc_add(acc, (double)x, true);
    return a;
}

/* Zero an accumulator with the threads [0, n) of a team (me: this one). */
__device__ __forceinline__ void acc_zero(wrx_acc *acc, unsigned me, unsigned n)
{
    for (unsigned k = me; k < WRX_DIGITS; k += n) acc->d[k] = 0;
    if (me == 0) {
        acc->flags = 0;
        acc->load = 1;
    }
}

/* ---- two expansions: exact products of double data ----------------------------------- */

/*
 * A product of doubles (or a norm's square) is split exactly as hi = x*y and
 * lo = fma(x, y, -hi) (hi + lo == x*y while the product stays inside the
 * range of doubles); the his are summed in one expansion, the los in another:
 * a lo is some 2^-53 of its hi, and in the his' expansion it would rarely
 * verify.  The his are the elements (their flags, their sign of zero); the
 * los only values.  bad: a norm saw an element outside the range where its
 * squares are exact without scaling (dot.cuh).
 */
struct fpe2 { fpe<double> hi, lo; unsigned bad; };

/* Flags bit of an accumulator: a norm's element was outside [2^-484, 2^480]
 * (travels with the accumulator from block to block and chunk to chunk). */
constexpr uint32_t kOutside = 0x40u;

__device__ __forceinline__ void fpe_init(fpe2 &a)
{
    fpe_init(a.hi);
    fpe_init(a.lo);
    a.bad = 0;
}

/* Add his h[0..V) and los l[0..V): all or nothing. */
template <int V>
__device__ __forceinline__ bool fpe_try2(fpe2 &a, const double *h, const double *l)
{
    fpe<double> x = a.hi, y = a.lo;
    const bool ok = fpe_try<V>(x, h) & fpe_try<V>(y, l);
    if (ok) {
        a.hi = x;
        a.lo = y;
    }
    return ok;
}

__device__ __forceinline__ bool fpe_merge(fpe2 &a, const fpe2 &b)
{
    fpe<double> x = a.hi, y = a.lo;
    const bool ok = fpe_merge(x, b.hi) & fpe_merge(y, b.lo);
    if (ok) {
        a.hi = x;
        a.lo = y;
        a.bad |= b.bad;
    }
    return ok;
}

__device__ __forceinline__ fpe2 fpe_shfl_xor(const fpe2 &a, unsigned off)
{
    fpe2 o;
    o.hi = fpe_shfl_xor(a.hi, off);
    o.lo = fpe_shfl_xor(a.lo, off);
    o.bad = __shfl_xor_sync(warpred::full_mask, a.bad, off);
    return o;
}

__device__ __forceinline__ void acc_flush(wrx_acc *acc, const fpe2 &a)
{
    acc_flush(acc, a.hi);
    if (a.lo.h != 0) acc_add(acc, a.lo.h, false);
    if (a.lo.l != 0) acc_add(acc, a.lo.l, false);
    if (a.bad) atomicOr(&acc->flags, kOutside | kUsed);
}

/* The correctly rounded double of an exact fpe2, when the two expansions
 * merge exactly (a zero lo expansion is left out: its sign of zero means
 * nothing). */
__device__ __forceinline__ bool fpe2_value(const fpe2 &a, double *r)
{
    if (a.lo.h == 0 && a.lo.l == 0) {
        *r = wrx_pair_round_f64(a.hi.h, a.hi.l);
        return true;
    }
    double h = a.hi.h, l = a.hi.l;
    if (!wrx_pair_merge(&h, &l, a.lo.h, a.lo.l)) return false;
    *r = wrx_pair_round_f64(h, l);
    return true;
}

template <int V> struct dvec { double v[V]; };

/* The element-by-element retries (as fpe_careful) of values already in
 * double: products of floats (elements), and his (elements) with their los. */
template <int V>
__device__ __noinline__ fpe<double> fpe_careful_d(fpe<double> a, dvec<V> p, wrx_acc *acc)
{
#pragma unroll
    for (int j = 0; j < V; j++)
        if (!fpe_try<1>(a, &p.v[j])) acc_add(acc, p.v[j], true);
    return a;
}

template <int V>
__device__ __noinline__ fpe2 fpe_careful2(fpe2 a, dvec<V> h, dvec<V> l, wrx_acc *acc)
{
#pragma unroll
    for (int j = 0; j < V; j++) {
        if (!fpe_try<1>(a.hi, &h.v[j])) acc_add(acc, h.v[j], true);
        if (l.v[j] != 0 && !fpe_try<1>(a.lo, &l.v[j])) acc_add(acc, l.v[j], false);
    }
    return a;
}

/* Verified butterfly over groups of `width` lanes (a power of two): every
 * lane of a group ends with the group's sum, and ok says whether every
 * addition in the group was exact (the same on all its lanes). */
template <class FE>
__device__ __forceinline__ bool fpe_butterfly(FE &a, unsigned width, bool ok)
{
    for (unsigned off = width / 2; off > 0; off /= 2) {
        const FE o = fpe_shfl_xor(a, off);
        const bool oo = __shfl_xor_sync(warpred::full_mask, ok, off);
        ok = ok & oo & fpe_merge(a, o);
    }
    return ok;
}

template <typename T> __device__ __forceinline__ T from_bits(uint64_t b);
template <> __device__ __forceinline__ float from_bits<float>(uint64_t b) { return __uint_as_float((unsigned)b); }
template <> __device__ __forceinline__ double from_bits<double>(uint64_t b) { return __longlong_as_double((long long)b); }

/* The correct rounding of acc (which it normalises). */
template <typename T>
__device__ __noinline__ T acc_round(wrx_acc *acc)
{
    return from_bits<T>(wrx_round_bits_inplace(acc, sizeof(T) == 8));
}

/* Normalise a (shared) accumulator, out of line. */
__device__ __noinline__ void acc_normalize(wrx_acc *acc) { wrx_normalize(acc); }

/* ---- what an exact kernel sums ------------------------------------------------------ */

/*
 * The kernels below take a source (Src) that says what they sum:
 *   out_t             the element type of the results;
 *   fe                the front end a thread keeps;
 *   kV                elements of an input in 16 bytes (for the mappings);
 *   share(b, e, lane, team, acc)  this thread's share of elements [b, e)
 *                     (a team of `team`, this one number `lane`) in one
 *                     front end; what it cannot add exactly goes to acc;
 *   guess(b, e, lane, team, ok)   the same where nothing may go to an
 *                     accumulator: ok turns false when something did not verify;
 *   fin_fe(a, dst)    the result from a front end a holding the whole sum
 *                     exactly, into *dst; false (nothing written) when it
 *                     cannot be had from a;
 *   fin_acc(acc, dst) the result from an accumulator holding the whole
 *                     sum (normalises it);
 *   skip()            the kernel has nothing to do (a norm's scaled pass
 *                     that the first pass did not ask for).
 * A result that is not a rounded sum (a norm) is written only by fin_*.
 */

template <typename T> __device__ __forceinline__ T absv(T x);
template <> __device__ __forceinline__ float absv<float>(float x) { return fabsf(x); }
template <> __device__ __forceinline__ double absv<double>(double x) { return fabs(x); }

/* float/double SUM: the elements. */
template <typename T>
struct xsum_src {
    typedef T out_t;
    typedef fpe<T> fe;
    static constexpr int kV = 16 / sizeof(T);
    static constexpr int kMinBlocks = sizeof(T) == 4 ? 4 : 1;
    const T *in;
    __device__ __forceinline__ bool skip() const { return false; }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        team_walk(in, b, e, lane, team, a,
                  [acc](fe &f, T x, size_t) { if (!fpe_try<1>(f, &x)) f = fpe_careful1(f, x, acc); },
                  [acc](fe &f, const vec<T> &v, size_t) { if (!fpe_try<kV>(f, v.v)) f = fpe_careful(f, v, acc); });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) acc_flush(acc, a[u]);
        return r;
    }
    __device__ __forceinline__ fe guess(size_t b, size_t e, size_t lane, size_t team, bool &ok) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        /* optimistic: an element that is not exact only marks the sum */
        team_walk(in, b, e, lane, team, a, [&ok](fe &f, T x, size_t) { ok &= fpe_try<1>(f, &x); },
                  [&ok](fe &f, const vec<T> &v, size_t) { ok &= fpe_try<kV>(f, v.v); });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++) ok &= fpe_merge(r, a[u]);
        return r;
    }
    __device__ __forceinline__ bool fin_fe(const fe &a, T *dst) const
    {
        *dst = fpe_round(a);
        return true;
    }
    __device__ __forceinline__ void fin_acc(wrx_acc *acc, T *dst) const { *dst = acc_round<T>(acc); }
};

/* asum: the elements' magnitudes (exact). */
template <typename T>
struct xasum_src : xsum_src<T> {
    typedef fpe<T> fe;
    static constexpr int kV = 16 / sizeof(T);
    static constexpr int kMinBlocks = 1;
    __device__ static __forceinline__ vec<T> vabs(const vec<T> &v)
    {
        vec<T> r;
#pragma unroll
        for (int j = 0; j < kV; j++) r.v[j] = absv(v.v[j]);
        return r;
    }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        team_walk(this->in, b, e, lane, team, a,
                  [acc](fe &f, T x, size_t) {
                      x = absv(x);
                      if (!fpe_try<1>(f, &x)) f = fpe_careful1(f, x, acc);
                  },
                  [acc](fe &f, const vec<T> &v0, size_t) {
                      const vec<T> v = vabs(v0);
                      if (!fpe_try<kV>(f, v.v)) f = fpe_careful(f, v, acc);
                  });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) acc_flush(acc, a[u]);
        return r;
    }
};

/* The products of float data, exact in double. */
__device__ __forceinline__ double fprod(float x, float y) { return __dmul_rn((double)x, (double)y); }

/* dot, float: the exact products, summed in a pair. */
struct xdotf_src {
    typedef float out_t;
    typedef fpe<double> fe;
    static constexpr int kV = 4;
    static constexpr int kMinBlocks = 1;
    const float *x, *y;
    __device__ __forceinline__ bool skip() const { return false; }
    __device__ __forceinline__ fe walk(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc, bool *ok) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        team_walk2(x, y, b, e, lane, team, a,
                   [acc, ok](fe &f, float xi, float yi, size_t) {
                       const double p = fprod(xi, yi);
                       if (fpe_try<1>(f, &p)) return;
                       if (ok) *ok = false;
                       else f = fpe_careful1(f, p, acc);
                   },
                   [acc, ok](fe &f, const vec<float> &xv, const vec<float> &yv, size_t) {
                       dvec<4> p;
#pragma unroll
                       for (int j = 0; j < 4; j++) p.v[j] = fprod(xv.v[j], yv.v[j]);
                       if (fpe_try<4>(f, p.v)) return;
                       if (ok) *ok = false;
                       else f = fpe_careful_d<4>(f, p, acc);
                   });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) {
                if (ok) *ok = false;
                else acc_flush(acc, a[u]);
            }
        return r;
    }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        return walk(b, e, lane, team, acc, nullptr);
    }
    __device__ __forceinline__ fe guess(size_t b, size_t e, size_t lane, size_t team, bool &ok) const
    {
        return walk(b, e, lane, team, nullptr, &ok);
    }
    __device__ __forceinline__ bool fin_fe(const fe &a, float *dst) const
    {
        *dst = from_bits<float>(wrx_pair_round_bits(a.h, a.l, 0));
        return true;
    }
    __device__ __forceinline__ void fin_acc(wrx_acc *acc, float *dst) const { *dst = acc_round<float>(acc); }
};

/* dot, double: his and los. */
struct xdotd_src {
    typedef double out_t;
    typedef fpe2 fe;
    static constexpr int kV = 2;
    static constexpr int kMinBlocks = 1;
    const double *x, *y;
    __device__ __forceinline__ bool skip() const { return false; }
    __device__ __forceinline__ fe walk(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc, bool *ok) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        team_walk2(x, y, b, e, lane, team, a,
                   [acc, ok](fe &f, double xi, double yi, size_t) {
                       dvec<1> h, l;
                       h.v[0] = __dmul_rn(xi, yi);
                       l.v[0] = __fma_rn(xi, yi, -h.v[0]);
                       if (fpe_try2<1>(f, h.v, l.v)) return;
                       if (ok) *ok = false;
                       else f = fpe_careful2<1>(f, h, l, acc);
                   },
                   [acc, ok](fe &f, const vec<double> &xv, const vec<double> &yv, size_t) {
                       dvec<2> h, l;
#pragma unroll
                       for (int j = 0; j < 2; j++) {
                           h.v[j] = __dmul_rn(xv.v[j], yv.v[j]);
                           l.v[j] = __fma_rn(xv.v[j], yv.v[j], -h.v[j]);
                       }
                       if (fpe_try2<2>(f, h.v, l.v)) return;
                       if (ok) *ok = false;
                       else f = fpe_careful2<2>(f, h, l, acc);
                   });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) {
                if (ok) *ok = false;
                else acc_flush(acc, a[u]);
            }
        return r;
    }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        return walk(b, e, lane, team, acc, nullptr);
    }
    __device__ __forceinline__ fe guess(size_t b, size_t e, size_t lane, size_t team, bool &ok) const
    {
        return walk(b, e, lane, team, nullptr, &ok);
    }
    __device__ __forceinline__ bool fin_fe(const fe &a, double *dst) const { return fpe2_value(a, dst); }
    __device__ __forceinline__ void fin_acc(wrx_acc *acc, double *dst) const { *dst = acc_round<double>(acc); }
};

/*
 * nrm2: the exact squares of the elements of one part of wr_exact_norm.h
 * (part 1: 2^-485 <= |x| < 2^512, zeros, infinities and NaNs, as they
 * are; part 2 the larger ones times 2^-608, part 0 the smaller ones times
 * 2^608, so that every square is exactly hi + lo), the elements of the
 * other parts adding +0.  Float data is all part 1, its squares exact in
 * double.  A norm's passes only make accumulators (acc_out); k_norm_round
 * rounds sqrt of their sum.  The pass of part 1 notes an element of
 * another part (kOutside in its accumulator); a gated pass of part 0 or 2
 * does nothing unless part 1's accumulator (by then written) says so.
 */
template <typename T> struct xnrm2_src;

template <>
struct xnrm2_src<float> {
    typedef float out_t;
    typedef fpe<double> fe;
    static constexpr int kV = 4;
    static constexpr int kMinBlocks = 1;
    const float *x;
    const wrx_acc *part1;
    int part, gated;
    __device__ __forceinline__ bool skip() const { return part != 1; }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        team_walk(x, b, e, lane, team, a,
                  [acc](fe &f, float xi, size_t) {
                      const double p = fprod(xi, xi);
                      if (!fpe_try<1>(f, &p)) f = fpe_careful1(f, p, acc);
                  },
                  [acc](fe &f, const vec<float> &xv, size_t) {
                      dvec<4> p;
#pragma unroll
                      for (int j = 0; j < 4; j++) p.v[j] = fprod(xv.v[j], xv.v[j]);
                      if (!fpe_try<4>(f, p.v)) f = fpe_careful_d<4>(f, p, acc);
                  });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) acc_flush(acc, a[u]);
        return r;
    }
    /* (a norm's passes end in accumulators: never called) */
    __device__ __forceinline__ bool fin_fe(const fe &, float *) const { return false; }
    __device__ __forceinline__ void fin_acc(wrx_acc *, float *) const {}
};

template <>
struct xnrm2_src<double> {
    typedef double out_t;
    typedef fpe2 fe;
    static constexpr int kV = 2;
    static constexpr int kMinBlocks = 1;
    const double *x;
    const wrx_acc *part1;
    int part, gated;
    __device__ __forceinline__ bool skip() const
    {
        return gated && part != 1 && !(*(const volatile uint32_t *)&part1->flags & kOutside);
    }
    /* the square of x if it is of part pt (scaled), else +0 */
    __device__ static __forceinline__ void term(double xi, int pt, unsigned &bad, double &h, double &l)
    {
        const int p = wrx_norm_part(xi);
        bad |= p != 1;
        const double v = p == pt ? wrx_norm_scaled(xi, p) : 0.0;
        h = __dmul_rn(v, v);
        l = __fma_rn(v, v, -h);
    }
    __device__ __forceinline__ fe share(size_t b, size_t e, size_t lane, size_t team, wrx_acc *acc) const
    {
        fe a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) fpe_init(a[u]);
        const int pt = part;
        team_walk(x, b, e, lane, team, a,
                  [acc, pt](fe &f, double xi, size_t) {
                      dvec<1> h, l;
                      term(xi, pt, f.bad, h.v[0], l.v[0]);
                      if (!fpe_try2<1>(f, h.v, l.v)) f = fpe_careful2<1>(f, h, l, acc);
                  },
                  [acc, pt](fe &f, const vec<double> &xv, size_t) {
                      dvec<2> h, l;
                      term(xv.v[0], pt, f.bad, h.v[0], l.v[0]);
                      term(xv.v[1], pt, f.bad, h.v[1], l.v[1]);
                      if (!fpe_try2<2>(f, h.v, l.v)) f = fpe_careful2<2>(f, h, l, acc);
                  });
        fe r = a[0];
#pragma unroll
        for (int u = 1; u < kUnroll; u++)
            if (!fpe_merge(r, a[u])) acc_flush(acc, a[u]);
        return r;
    }
    __device__ __forceinline__ bool fin_fe(const fe &, double *) const { return false; }
    __device__ __forceinline__ void fin_acc(wrx_acc *, double *) const {}
};

/*
 * sqrt(S) rounded once, S = 2^-1216 a[0] + a[1] + 2^1216 a[2]: the device's
 * copy of wr_exact_norm.h's wrx_norm_cmp and wrx_norm_round_bits (host
 * functions there), line for line.  The result is a function of S alone
 * (the approximate root only picks where the exact comparisons start), so
 * the bits are the cpu backend's.
 */
__device__ int norm_cmp(const int64_t *w, uint64_t a, int sh)
{
    uint64_t sq[5] = { 0, 0, 0, 0, 0 }, dig[6] = { 0, 0, 0, 0, 0, 0 };
    const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    const int k0 = sh >> 5, s = sh & 31;
    uint64_t t, c;
    int i, j;
    t = a0 * a0;
    sq[0] = t & 0xffffffffu;
    c = t >> 32;
    t = 2 * (a0 * a1) + c;
    sq[1] = t & 0xffffffffu;
    c = t >> 32;
    t = a1 * a1 + c;
    sq[2] = t & 0xffffffffu;
    sq[3] = t >> 32;
    c = 0;
    for (i = 0; i < 5; i++) {
        t = (sq[i] << s) | c;
        dig[i] = t & 0xffffffffu;
        c = s ? sq[i] >> (32 - s) : 0;
    }
    dig[5] = c;
#pragma unroll 1
    for (j = (k0 + 6 > WRX_NORM_WIDE ? k0 + 6 : WRX_NORM_WIDE) - 1; j >= 0; j--) {
        const uint64_t wd = j < WRX_NORM_WIDE ? (uint64_t)w[j] : 0;
        const uint64_t ad = (j >= k0 && j < k0 + 6) ? dig[j - k0] : 0;
        if (wd != ad) return wd > ad ? 1 : -1;
    }
    return 0;
}

__device__ uint64_t norm_round_bits(wrx_acc *a, int is_double)
{
    const int P = is_double ? 53 : 24, fmin = is_double ? -1074 : -149;
    const uint64_t nan = is_double ? 0x7fffffffffffffffu : 0x7fffffffu;
    const uint64_t inf = is_double ? 0x7ff0000000000000u : 0x7f800000u;
    const uint32_t f = a[0].flags | a[1].flags | a[2].flags;
    int64_t w[WRX_NORM_WIDE], carry = 0;
    uint64_t m, win;
    int k, p, h, M, q, fexp, E, guard;
    double td, sd;

    if (f & WRX_NAN) return nan;
    if (f & (WRX_PINF | WRX_NINF)) return inf;
#pragma unroll 1
    for (k = 0; k < WRX_NORM_WIDE; k++) w[k] = 0;
#pragma unroll 1
    for (p = 0; p < 3; p++) {
        wrx_normalize(&a[p]);
#pragma unroll 1
        for (k = 0; k < WRX_DIGITS; k++) w[k + p * WRX_NORM_DIGITS] += a[p].d[k];
    }
#pragma unroll 1
    for (k = 0; k < WRX_NORM_WIDE - 1; k++) {
        const int64_t v = w[k] + carry, low = (int64_t)(uint32_t)v;
        carry = (v - low) / ((int64_t)1 << 32);
        w[k] = low;
    }
    w[WRX_NORM_WIDE - 1] += carry;
    if (w[WRX_NORM_WIDE - 1] < 0) return nan;
#pragma unroll 1
    for (h = WRX_NORM_WIDE - 1; h >= 0 && w[h] == 0; h--) {}
    if (h < 0) return 0;
    if (w[h] >= ((int64_t)1 << 32)) return inf;
    M = 32 * h + 31 - wrx_clz32((uint32_t)w[h]);
    q = M - 63;
    if (q >= 0) {
        const int kk = q >> 5, s = q & 31;
        win = (uint64_t)w[kk] >> s;
        if (kk + 1 < WRX_NORM_WIDE) win |= (uint64_t)w[kk + 1] << (32 - s);
        if (kk + 2 < WRX_NORM_WIDE && s != 0) win |= (uint64_t)w[kk + 2] << (64 - s);
    } else {
        win = ((uint64_t)w[1] << 32 | (uint64_t)w[0]) << -q;
    }
    q -= WRX_NORM_BIAS;
    td = (double)win;
    if (q & 1) {
        td *= 2;
        q--;
    }
    sd = sqrt(td);
    {
        int e2;
        (void)frexp(sd, &e2);
        E = e2 - 1 + q / 2;
    }
    fexp = E - P + 1 < fmin ? fmin : E - P + 1;
    m = (uint64_t)llround(ldexp(sd, q / 2 - fexp));
    if (m >> P) {
        m >>= 1;
        fexp++;
    }
#pragma unroll 1
    for (guard = 0; guard < 64; guard++) {
        int c = norm_cmp(w, 2 * m + 1, 2 * fexp - 2 + WRX_NORM_BIAS);
        if (c > 0 || (c == 0 && (m & 1))) {
            m++;
            if (m >> P) {
                m >>= 1;
                fexp++;
            }
            continue;
        }
        if (m == 0) break;
        if (m == ((uint64_t)1 << (P - 1)) && fexp > fmin) {
            c = norm_cmp(w, ((uint64_t)1 << (P + 1)) - 1, 2 * fexp - 4 + WRX_NORM_BIAS);
            if (c < 0) {
                m = ((uint64_t)1 << P) - 1;
                fexp--;
                continue;
            }
        } else {
            c = norm_cmp(w, 2 * m - 1, 2 * fexp - 2 + WRX_NORM_BIAS);
            if (c < 0 || (c == 0 && (m & 1))) {
                m--;
                continue;
            }
        }
        break;
    }
    if (m == 0) return 0;
    if (m >> (P - 1)) {
        const uint64_t be = (uint64_t)(fexp - fmin + 1);
        if (be >= (is_double ? 2047u : 255u)) return inf;
        return (be << (P - 1)) | (m & (((uint64_t)1 << (P - 1)) - 1));
    }
    return m;
}

/* *dst = the norm of the parts (parts 0 and 2 only where part 1 noted an
 * element of theirs; else they are empty).  One thread. */
template <typename T>
__global__ void k_norm_round(const wrx_acc *__restrict__ parts, T *dst, done_sig ds)
{
    wrx_acc a[3];
    a[1] = parts[1];
    if (a[1].flags & kOutside) {
        a[0] = parts[0];
        a[2] = parts[2];
    } else {
        wrx_init(&a[0]);
        wrx_init(&a[2]);
    }
    *dst = from_bits<T>(norm_round_bits(a, sizeof(T) == 8));
    if (ds.word) signal_done(ds);
}

/* The end of a segment's sum by one thread: acc (+ *carry_in) into
 * *carry_out (normalised), or its result into *dst.  Out of line: the
 * kernels' registers are for their loops. */
template <class Src>
__device__ __noinline__ void seg_finish(const Src &src, wrx_acc *acc, const wrx_acc *carry_in, wrx_acc *carry_out,
                                        typename Src::out_t *dst)
{
    if (carry_in) wrx_merge(acc, carry_in);
    if (carry_out) {
        wrx_normalize(acc);
#pragma unroll 1
        for (int k = 0; k < WRX_DIGITS; k++) carry_out->d[k] = acc->d[k];
        carry_out->flags = acc->flags;
        carry_out->load = acc->load;
    } else if (dst) {
        src.fin_acc(acc, dst);
    }
}

/* ---- where a segment begins (as segments.cu's segsrc) -------------------------- */

struct xsrc {
    const size_t *off;      /* nseg + 1 offsets, or NULL for rows */
    size_t off_base;        /* subtracted from every offset */
    size_t cols;            /* row length when off == NULL */
    __device__ __forceinline__ size_t begin(size_t s) const { return off ? off[s] - off_base : s * cols; }
};

/* ---- a block per piece -------------------------------------------------------------------- */

/* The most elements a block adds to its shared accumulator between
 * normalisations: each adds less than 2^32 to a digit, and 2^28 (plus the
 * flushes of the block's expansions) keeps every digit below 2^61.  (A
 * product adds two values, a hi and a lo, of which the lo's three pieces
 * are more than 2^32 below the hi's lowest: still at most two additions
 * to a digit an element.) */
constexpr size_t kPieceMax = (size_t)1 << 28;

/* Device accumulators of the segments cut into pieces: the strand's scratch
 * holds 2 carries, then kGroups global ones, each a wrx_acc kept zero
 * between calls. */
struct xglob {
    wrx_acc *g;             /* global accumulators */
    unsigned *ctr;          /* their arrival counters (kept zero) */
};

/* The block's exact result of [pb..pe) into acc (shared, zeroed) and, when
 * that stayed unused, into *res (thread 0): returns (to every thread)
 * whether acc holds the result instead. */
template <class Src>
__device__ __forceinline__ bool block_exact(const Src &src, size_t pb, size_t pe, wrx_acc *acc,
                                            typename Src::fe *s_w, int *s_ok, typename Src::fe &res)
{
    typedef typename Src::fe FE;
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    FE a = src.share(pb, pe, threadIdx.x, kThreads, acc);
    const FE mine = a;
    bool ok = fpe_butterfly(a, 32, true);
    if (!ok) acc_flush(acc, mine);                     /* the warp's sum is not exact: each lane's own */
    if (lane == 0) {
        s_w[w] = a;
        s_ok[w] = ok;
    }
    __syncthreads();
    if (w == 0) {
        FE b;
        bool bok = true;
        fpe_init(b);
        if (lane < kThreads / 32 && s_ok[lane]) b = s_w[lane];
        FE c = b;
        bok = fpe_butterfly(c, 32, bok);
        if (!bok && lane < kThreads / 32 && s_ok[lane]) acc_flush(acc, b);
        if (lane == 0 && bok) {
            if (acc->flags & kUsed) acc_flush(acc, c);   /* partly in acc already: all of it there */
            else res = c;                                /* (acc untouched: no atomic has run) */
        }
    }
    __syncthreads();
    return (acc->flags & kUsed) != 0;
}

/* Blocks of k_xblock asked to fit on a multiprocessor: 4 for float sums
 * (ptxas -v, nvcc 13.0, sm_90: 62 registers, no spill; left free it takes
 * 84).  Double data needs ~106 registers (two pairs a vector), products
 * more: asked for more blocks they spill, so they are left free (2 blocks,
 * 16 warps a multiprocessor, still 32 KB of loads in flight). */
template <class Src> constexpr int xblock_min_blocks() { return Src::kMinBlocks; }

/*
 * Work item w = (segment s, piece k of K).  K == 1 and no carry: the block
 * finishes the segment.  Otherwise the piece's exact result is added to the
 * segment's global accumulator (normalised digits, so K pieces of any size
 * never overflow an int64), and the last of the K blocks to arrive takes
 * the accumulator (atomicExch: read and zeroed at once), adds carry_in
 * (segment 0), and finishes it into out[s] or, for segment nseg-1 with
 * carry_out, writes it there.
 */
template <class Src>
__global__ void __launch_bounds__(kThreads, xblock_min_blocks<Src>())
k_xblock(Src src, typename Src::out_t *out, size_t nseg, xsrc seg, unsigned K, xglob gl, const wrx_acc *carry_in,
         wrx_acc *carry_out, done_sig ds, unsigned *__restrict__ dcount)
{
    typedef typename Src::fe FE;
    typedef typename Src::out_t T;
    __shared__ wrx_acc acc;
    __shared__ FE s_w[kThreads / 32];
    __shared__ int s_ok[kThreads / 32];
    __shared__ int s_last;
    const size_t items = src.skip() ? 0 : nseg * K;
    for (size_t w = blockIdx.x; w < items; w += gridDim.x) {
        const size_t s = w / K, k = w % K;
        const size_t b = seg.begin(s), e = seg.begin(s + 1), len = e - b;
        const size_t pb = b + (len / K) * k + (k < len % K ? k : len % K);
        const size_t pe = pb + len / K + (k < len % K ? 1 : 0);
        const bool in_c = carry_in && s == 0, out_c = carry_out && s == nseg - 1;
        acc_zero(&acc, threadIdx.x, kThreads);
        __syncthreads();
        FE res;
        fpe_init(res);
        bool used = false;
        /* rounds of at most kPieceMax elements (one but for huge segments),
         * so that no digit of acc takes 2^31 additions between normalisations */
        for (size_t q = pb; q < pe; q += kPieceMax) {
            const size_t qe = pe - q <= kPieceMax ? pe : q + kPieceMax;
            used = block_exact(src, q, qe, &acc, s_w, s_ok, res);
            if (q != pb || qe != pe) {
                if (threadIdx.x == 0) {
                    if (!used) acc_flush(&acc, res);
                    acc_normalize(&acc);
                }
                __syncthreads();
                used = true;
            }
        }
        if (K == 1 && !in_c && !out_c) {
            if (threadIdx.x == 0 && out) {
                if (len == 0) {
                    out[s] = T(0);
                } else if (used) {
                    src.fin_acc(&acc, out + s);
                } else if (!src.fin_fe(res, out + s)) {
                    acc_flush(&acc, res);
                    src.fin_acc(&acc, out + s);
                }
            }
        } else {
            const unsigned gi = K > 1 ? (unsigned)s : (s == 0 ? 0u : 1u);
            wrx_acc *g = gl.g + gi;
            if (len) {
                if (used) {
                    if (threadIdx.x == 0) acc_normalize(&acc);
                    __syncthreads();
                    for (unsigned q = threadIdx.x; q < WRX_DIGITS; q += kThreads)
                        if (acc.d[q] != 0) atomicAdd((unsigned long long *)&g->d[q], (unsigned long long)acc.d[q]);
                    if (threadIdx.x == 0) atomicOr(&g->flags, acc.flags & (WRX_FLAGS | kOutside));
                } else if (threadIdx.x == 0) {
                    acc_flush(g, res);
                }
            }
            __syncthreads();
            if (threadIdx.x == 0) s_last = last_arrival(gl.ctr + gi, K);
            __syncthreads();
            if (s_last) {
                __threadfence();
                for (unsigned q = threadIdx.x; q < WRX_DIGITS; q += kThreads)
                    acc.d[q] = (int64_t)atomicExch((unsigned long long *)&g->d[q], 0ull);
                if (threadIdx.x == 0) {
                    acc.flags = (atomicExch(&g->flags, 0u) & (WRX_FLAGS | kOutside)) | WRX_MAGIC;
                    acc.load = 2 * K + 2;          /* each piece: digits below 2^32 twice at most */
                    gl.ctr[gi] = 0;
                }
                __syncthreads();
                if (threadIdx.x == 0) seg_finish(src, &acc, in_c ? carry_in : nullptr, out_c ? carry_out : nullptr,
                                                 out_c ? nullptr : out ? out + s : nullptr);
            }
        }
        __syncthreads();                         /* acc, s_w, s_last are reused */
    }
    grid_done(ds, dcount);
}

/* ---- a group of lanes per segment ---------------------------------------------------- */

/* The warp's exact result of [b..e) (b < e) into *dst (by lane 0), with its
 * shared accumulator (zero on entry and on return). */
template <class Src>
__device__ __noinline__ void warp_exact(const Src &src, size_t b, size_t e, wrx_acc *acc,
                                        typename Src::out_t *dst)
{
    typedef typename Src::fe FE;
    const unsigned lane = threadIdx.x & 31;
    FE a = src.share(b, e, lane, 32, acc);
    const FE mine = a;
    const bool ok = fpe_butterfly(a, 32, true);
    __syncwarp();
    if (!ok) acc_flush(acc, mine);
    else if (lane == 0 && (acc->flags & kUsed)) acc_flush(acc, a);
    __syncwarp();
    if (lane == 0) {
        if (acc->flags & kUsed) {
            src.fin_acc(acc, dst);
        } else if (!src.fin_fe(a, dst)) {
            acc_flush(acc, a);
            src.fin_acc(acc, dst);
        }
    }
    __syncwarp();
    acc_zero(acc, lane, 32);
    __syncwarp();
}

template <class Src>
__global__ void __launch_bounds__(kThreads)
k_xgroup(Src src, typename Src::out_t *__restrict__ out, size_t nseg, xsrc seg, unsigned G, done_sig ds,
         unsigned *__restrict__ dcount)
{
    typedef typename Src::fe FE;
    typedef typename Src::out_t T;
    __shared__ wrx_acc wacc[kThreads / 32];
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    wrx_acc *acc = &wacc[threadIdx.x / 32];
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    acc_zero(acc, lane, 32);
    __syncwarp();
    /* the loop is uniform over the warp (the shuffles need every lane) */
    for (size_t s0 = warp * per_warp; s0 < nseg; s0 += nwarps * per_warp) {
        const size_t s = s0 + lane / G;
        const bool valid = s < nseg;
        size_t b = 0, e = 0;
        if (valid) { b = seg.begin(s); e = seg.begin(s + 1); }
        bool ok = true;
        FE r = src.guess(b, e, gl, G, ok);
        ok = fpe_butterfly(r, G, ok);
        bool done = false;
        if (valid && gl == 0 && ok) {
            if (b == e) {
                out[s] = T(0);
                done = true;
            } else {
                done = src.fin_fe(r, out + s);
            }
        }
        /* the segments that were not: again, each by the whole warp */
        unsigned redo = __ballot_sync(warpred::full_mask, valid && gl == 0 && !done);
        while (redo) {
            const unsigned j = (unsigned)__ffs(redo) - 1;
            redo &= redo - 1;
            const size_t sj = s0 + j / G;
            warp_exact(src, seg.begin(sj), seg.begin(sj + 1), acc, out + sj);
        }
    }
    grid_done(ds, dcount);
}

/* ---- launchers ------------------------------------------------------------------------------------- */

/* Accumulators in the strand's scratch: 2 carries, then the global ones,
 * then the norms' control words (dot.cuh). */
size_t n_global(const strand &L) { return (size_t)L.sms * 4 + 2; }

wrx_acc *global_accs(strand &L) { return (wrx_acc *)L.xs + 2; }

unsigned next_pow2(size_t x)
{
    unsigned g = 1;
    while (g < x && g < 32) g *= 2;
    return g;
}

wr_status segctr_for(strand &L, size_t n, char *err)
{
    size_t cap = L.segctr_cap * 4;
    const wr_status st = grow(L, L.segctr, &cap, n * 4, true, "segment counters", err);
    L.segctr_cap = cap / 4;
    return st;
}

template <class Src>
wr_status launch_block(strand &L, const Src &src, void *out, size_t nseg, xsrc seg, size_t K, const void *carry_in,
                       void *carry_out, done_sig ds, char *err)
{
    static occupancy_cache occ;
    auto kern = k_xblock<Src>;
    const int per_sm = occ.get(L, (const void *)kern);
    WRCUDA_TRY(segctr_for(L, K > 1 ? nseg : 2, err));
    size_t blocks = nseg * K;
    const size_t cap = (size_t)L.sms * (size_t)per_sm;
    if (blocks > cap) blocks = cap;
    if (blocks > kMaxGrid) blocks = kMaxGrid;
    const xglob gl = { global_accs(L), L.segctr };
    kern<<<(unsigned)blocks, kThreads, 0, L.st>>>(src, (typename Src::out_t *)out, nseg, seg, (unsigned)K, gl,
                                                  (const wrx_acc *)carry_in, (wrx_acc *)carry_out, ds, L.ctr + 3);
    WRCUDA_CKLAUNCH("exact block kernel launch");
    return WR_SUCCESS;
}

/* One segment of n elements, cut into as many pieces as blocks fill the
 * device, each at least one pass of the block (kUnroll vectors a thread). */
template <class Src>
wr_status xreduce_run(strand &L, const Src &src, size_t n, const void *carry, void *acc_out, void *dst, done_sig ds,
                      char *err)
{
    static occupancy_cache occ;
    const int per_sm = occ.get(L, (const void *)k_xblock<Src>);
    const size_t min_piece = (size_t)kThreads * kUnroll * Src::kV;
    size_t K = (size_t)L.sms * (size_t)per_sm;
    if (K > n / min_piece + 1) K = n / min_piece + 1;
    if (K > kMaxGrid) K = kMaxGrid;
    const xsrc seg = { nullptr, 0, n };
    return launch_block(L, src, dst, 1, seg, K, carry, acc_out, ds, err);
}

template <class Src>
wr_status xseg_run(strand &L, const Src &src, void *out, size_t nseg, const size_t *off, size_t off_base,
                   size_t cols, double avg_len, const void *carry_in, void *carry_out, done_sig ds, char *err)
{
    const double vecs = avg_len / Src::kV;
    const xsrc seg = { off, off_base, cols };
    if (vecs <= 16.0 * 32 && !carry_in && !carry_out) {
        /* a group of lanes per segment, about one vector per lane per pass */
        const unsigned G = next_pow2((size_t)(vecs + 0.999));
        size_t blocks = (nseg * G + kThreads - 1) / kThreads;
        const size_t cap = (size_t)L.sms * 16;
        if (blocks > cap) blocks = cap;
        k_xgroup<Src><<<(unsigned)blocks, kThreads, 0, L.st>>>(src, (typename Src::out_t *)out, nseg, seg, G, ds,
                                                              L.ctr + 3);
        WRCUDA_CKLAUNCH("exact segment kernel launch");
        return WR_SUCCESS;
    }
    /* a block per segment; several when the segments are too few to fill
     * the device, as in segments.cu (at most n_global accumulators) */
    const size_t want = (size_t)L.sms * 4;
    size_t K = 1;
    if (nseg < want) {
        K = (want + nseg - 1) / nseg;
        const size_t most = (size_t)(vecs / (kThreads * kUnroll)) + 1;
        if (K > most) K = most;
        if (K > 1024) K = 1024;
        if (K < 1) K = 1;
    }
    if (K == 1 && (double)avg_len > (double)kPieceMax) K = 2;   /* (then nseg < want) */
    if (K > 1 && nseg > n_global(L)) K = 1;
    return launch_block(L, src, out, nseg, seg, K, carry_in, carry_out, ds, err);
}

/* ---- scans -------------------------------------------------------------------------------------- */

/*
 * A reproducible scan, the cpu backend's method (cpu/cpu_exact.c) with
 * tiles for its pieces: the array is cut into tiles of kXTile elements (the
 * last one shorter), in passes of at most kXPassTiles tiles.  Per pass:
 *  1. k_xtiles: each tile's exact sum (block_exact: a block per tile) as a
 *     normalised wrx_acc in the strand's scratch;
 *  2. k_xgsum, k_xgpre, k_xtpre: the exclusive prefix of those sums, from
 *     the carry on, digit by digit (a thread per digit; integer additions,
 *     so exact in any order): sums of groups of kXGroup tiles, their prefix
 *     (one block, which also writes the carry after the pass), then each
 *     group's tiles' prefixes, written over their sums;
 *  3. k_xscan: a thread per tile runs a struct wrx_scan from its tile's
 *     prefix over the tile's elements, in rounds of kXStage elements staged
 *     through shared memory (loads and stores coalesced, the sequential
 *     pass reading shared memory).
 * Every output is the exact prefix rounded once, so the cut into tiles,
 * passes and staged chunks changes no bit.  The tiles' sums are all taken
 * (step 1) before any output is written (step 3), and step 3 reads each
 * element before it writes it: out == in works.
 */
constexpr size_t kXTile = 2048;                               /* elements a tile */
constexpr unsigned kXGroup = 256;                             /* tiles a group of the prefix */
constexpr size_t kXPassTiles = (size_t)kXGroup * kXGroup;     /* tiles a pass */
constexpr unsigned kXScanThreads = 128;                       /* tiles a block of k_xscan */
constexpr unsigned kXStage = 32;                              /* elements a tile stages per round */
constexpr unsigned kXDigitThreads = 96;                       /* >= WRX_DIGITS + 1: a thread per digit, one for the flags */
static_assert(kXDigitThreads >= WRX_DIGITS + 1, "a thread per digit and one for the flags");
static_assert(kXTile % kXStage == 0, "whole rounds a tile");
/* loads: a tile's prefix holds the carry and fewer than kXPassTiles tiles'
 * normalised sums, each digit below 2^32 in magnitude */
static_assert(kXPassTiles + 2 < WRX_LOAD_MAX, "prefix loads within an accumulator's");

/* 1: the exact sum of tile t (in[t kXTile ..), at most kXTile elements) of
 * n elements into xa[t], normalised. */
template <typename T>
__global__ void __launch_bounds__(kThreads, xblock_min_blocks<xsum_src<T>>())
k_xtiles(const T *__restrict__ in, size_t n, size_t ntiles, wrx_acc *__restrict__ xa)
{
    __shared__ wrx_acc acc;
    __shared__ fpe<T> s_w[kThreads / 32];
    __shared__ int s_ok[kThreads / 32];
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const size_t b = t * kXTile, e = n - b < kXTile ? n : b + kXTile;
        acc_zero(&acc, threadIdx.x, kThreads);
        __syncthreads();
        fpe<T> res;
        fpe_init(res);
        const bool used = block_exact(xsum_src<T>{ in }, b, e, &acc, s_w, s_ok, res);
        if (threadIdx.x == 0) {
            if (!used) acc_flush(&acc, res);   /* res: thread 0's, the block's sum */
            acc_normalize(&acc);
        }
        __syncthreads();
        for (unsigned k = threadIdx.x; k < WRX_DIGITS; k += kThreads) xa[t].d[k] = acc.d[k];
        if (threadIdx.x == 0) {
            xa[t].flags = (acc.flags & WRX_FLAGS) | WRX_MAGIC;
            xa[t].load = 1;
        }
        __syncthreads();                       /* acc, s_w are reused */
    }
}

/* 2a: xg[g] = the sum of tiles [g kXGroup, (g+1) kXGroup) of ntiles (a block
 * a group). */
__global__ void __launch_bounds__(kXDigitThreads)
k_xgsum(const wrx_acc *__restrict__ xa, size_t ntiles, wrx_acc *__restrict__ xg)
{
    const unsigned k = threadIdx.x;
    const size_t g = blockIdx.x, t0 = g * kXGroup, t1 = ntiles - t0 < kXGroup ? ntiles : t0 + kXGroup;
    if (k < WRX_DIGITS) {
        int64_t s = 0;
#pragma unroll 8
        for (size_t t = t0; t < t1; t++) s += xa[t].d[k];
        xg[g].d[k] = s;
    } else if (k == WRX_DIGITS) {
        uint32_t f = 0;
#pragma unroll 8
        for (size_t t = t0; t < t1; t++) f |= xa[t].flags;
        xg[g].flags = (f & WRX_FLAGS) | WRX_MAGIC;
        xg[g].load = (uint32_t)(t1 - t0) + 1;
    }
}

/* 2b: xg[0..ngroups) becomes its exclusive prefix from the carry (*carry_in,
 * or carry0 when that is NULL: both normalised), and *carry_out (if not
 * NULL; may be carry_in) the carry plus every group, normalised.  One block. */
__global__ void __launch_bounds__(kXDigitThreads)
k_xgpre(wrx_acc *__restrict__ xg, size_t ngroups, const wrx_acc *carry_in, const wrx_acc carry0, wrx_acc *carry_out)
{
    __shared__ wrx_acc tot;
    const wrx_acc *c = carry_in ? carry_in : &carry0;
    const unsigned k = threadIdx.x;
    if (k < WRX_DIGITS) {
        int64_t run = c->d[k];
        for (size_t g = 0; g < ngroups; g++) {
            const int64_t v = xg[g].d[k];
            xg[g].d[k] = run;
            run += v;
        }
        tot.d[k] = run;
    } else if (k == WRX_DIGITS) {
        uint32_t f = c->flags & WRX_FLAGS, load = 1;   /* the carry: normalised */
        for (size_t g = 0; g < ngroups; g++) {
            const uint32_t vf = xg[g].flags, vl = xg[g].load;
            xg[g].flags = f | WRX_MAGIC;
            xg[g].load = load + 1;
            f |= vf & WRX_FLAGS;
            load += vl;
        }
        tot.flags = f | WRX_MAGIC;
        tot.load = load + 1;
    }
    __syncthreads();                           /* every read of carry_in is done */
    if (carry_out == nullptr) return;          /* (a kernel parameter: uniform) */
    if (k == 0) acc_normalize(&tot);
    __syncthreads();
    for (unsigned q = k; q < WRX_DIGITS; q += kXDigitThreads) carry_out->d[q] = tot.d[q];
    if (k == 0) {
        carry_out->flags = tot.flags;
        carry_out->load = tot.load;
    }
}

/* 2c: each tile's sum xa[t] becomes its exclusive prefix: its group's (xg)
 * plus the group's tiles before it (a block a group). */
__global__ void __launch_bounds__(kXDigitThreads)
k_xtpre(wrx_acc *__restrict__ xa, size_t ntiles, const wrx_acc *__restrict__ xg)
{
    const unsigned k = threadIdx.x;
    const size_t g = blockIdx.x, t0 = g * kXGroup, t1 = ntiles - t0 < kXGroup ? ntiles : t0 + kXGroup;
    if (k < WRX_DIGITS) {
        int64_t run = xg[g].d[k];
        for (size_t t = t0; t < t1; t++) {
            const int64_t v = xa[t].d[k];
            xa[t].d[k] = run;
            run += v;
        }
    } else if (k == WRX_DIGITS) {
        uint32_t f = xg[g].flags & WRX_FLAGS, load = xg[g].load;
        for (size_t t = t0; t < t1; t++) {
            const uint32_t vf = xa[t].flags;
            xa[t].flags = f | WRX_MAGIC;
            xa[t].load = load;
            f |= vf & WRX_FLAGS;
            load += 1;                         /* each tile's sum: normalised */
        }
    }
}

/* The slow parts of struct wrx_scan, out of line. */
__device__ __noinline__ void xs_init(struct wrx_scan *s, const wrx_acc *prefix, int is_double)
{
    wrx_scan_init(s, prefix, is_double);
}
__device__ __noinline__ uint64_t xs_bits_slow(struct wrx_scan *s) { return wrx_scan_bits_slow(s); }
__device__ __noinline__ void xs_add_slow(struct wrx_scan *s, double x) { wrx_scan_add_slow(s, x); }

/* Scan x[0..m) in place (shared memory) with s, as cpu_exact.c's SCAN_PIECE:
 * the pair (h, l) in registers, s's slow paths when the pair cannot verify
 * or r is not zero. */
template <typename T>
__device__ __forceinline__ void xscan_run(T *x, unsigned m, struct wrx_scan *s, bool excl)
{
    constexpr int D = sizeof(T) == 8;
    double h = s->h, l = s->l;
    bool front = s->mode == WRX_SCAN_FRONT, quick = front && s->rb == 0;
#define XS_RELOAD()                                                                                  \
    do {                                                                                             \
        h = s->h;                                                                                    \
        l = s->l;                                                                                    \
        front = s->mode == WRX_SCAN_FRONT;                                                           \
        quick = front && s->rb == 0;                                                                 \
    } while (0)
    for (unsigned i = 0; i < m; i++) {
        const double xi = (double)x[i];
        uint64_t before = 0, bits;
        if (excl) {
            if (quick) {
                before = wrx_pair_round_bits(h, l, D);
            } else {
                s->h = h;
                s->l = l;
                before = xs_bits_slow(s);
                XS_RELOAD();
            }
        }
        if (!(front && wrx_pair_add(&h, &l, xi))) {
            s->h = h;
            s->l = l;
            xs_add_slow(s, xi);
            XS_RELOAD();
        }
        if (excl) {
            bits = before;
        } else if (quick) {
            bits = wrx_pair_round_bits(h, l, D);
        } else {
            s->h = h;
            s->l = l;
            bits = xs_bits_slow(s);
            XS_RELOAD();
        }
        x[i] = from_bits<T>(bits);
    }
#undef XS_RELOAD
    s->h = h;
    s->l = l;
}

/* 3: a thread per tile (tile t of n elements, from its prefix xa[t]); the
 * block's kXScanThreads tiles staged kXStage elements each per round. */
template <typename T>
__global__ void __launch_bounds__(kXScanThreads)
k_xscan(const T *in, T *out, size_t n, size_t ntiles, const wrx_acc *__restrict__ xa, int excl, done_sig ds,
        unsigned *__restrict__ dcount)
{
    __shared__ T sm[kXScanThreads][kXStage + 1];   /* +1: a thread's row starts in another bank */
    const size_t tile0 = (size_t)blockIdx.x * kXScanThreads, t = tile0 + threadIdx.x;
    const bool mine = t < ntiles;
    struct wrx_scan s;
    if (mine) xs_init(&s, xa + t, sizeof(T) == 8);
    /* round r0 of the block's first tile (the longest) empty: all are */
    for (size_t r0 = 0; r0 < kXTile && tile0 * kXTile + r0 < n; r0 += kXStage) {
        for (unsigned i = threadIdx.x; i < kXScanThreads * kXStage; i += kXScanThreads) {
            const size_t gi = (tile0 + i / kXStage) * kXTile + r0 + i % kXStage;
            if (gi < n) sm[i / kXStage][i % kXStage] = in[gi];
        }
        __syncthreads();
        if (mine) {
            const size_t b = t * kXTile + r0;   /* this round's first element of the tile */
            const unsigned m = b >= n ? 0u : n - b < kXStage ? (unsigned)(n - b) : kXStage;
            xscan_run<T>(&sm[threadIdx.x][0], m, &s, excl != 0);
            /* the exclusive output before the first element of everything: +0 */
            if (excl && r0 == 0 && s.empty) sm[threadIdx.x][0] = T(0);
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < kXScanThreads * kXStage; i += kXScanThreads) {
            const size_t gi = (tile0 + i / kXStage) * kXTile + r0 + i % kXStage;
            if (gi < n) out[gi] = sm[i / kXStage][i % kXStage];
        }
        __syncthreads();                       /* sm is reused */
    }
    grid_done(ds, dcount);
}

struct xscan_fn {
    template <typename T>
    static wr_status run(strand &L, const void *in, void *out, size_t n, int excl, const wrx_acc *carry_in,
                         const wrx_acc &carry0, wrx_acc *carry_out, done_sig ds, char *err)
    {
        static occupancy_cache occ;
        const int per_sm = occ.get(L, (const void *)k_xtiles<T>);
        const size_t ntot = (n + kXTile - 1) / kXTile;
        const size_t most = ntot < kXPassTiles ? ntot : kXPassTiles;
        WRCUDA_TRY(grow(L, L.xscan, &L.xscan_cap, (most + kXGroup) * kAccBytes, false,
                        "reproducible scan accumulators", err));
        wrx_acc *xa = (wrx_acc *)L.xscan, *xg = xa + most;
        /* passes after the first continue from the carry after the last */
        wrx_acc *cout = carry_out ? carry_out : (wrx_acc *)exact_carry(L, 0);
        const size_t cap = (size_t)L.sms * (size_t)per_sm;
        const size_t pass = kXPassTiles * kXTile;
        for (size_t off = 0; off < n; off += pass) {
            const size_t len = n - off < pass ? n - off : pass;
            const size_t nt = (len + kXTile - 1) / kXTile, ng = (nt + kXGroup - 1) / kXGroup;
            const bool last = off + len == n;
            const T *pin = (const T *)in + off;
            T *pout = (T *)out + off;
            size_t blocks = nt < cap ? nt : cap;
            if (blocks > kMaxGrid) blocks = kMaxGrid;
            k_xtiles<T><<<(unsigned)blocks, kThreads, 0, L.st>>>(pin, len, nt, xa);
            WRCUDA_CKLAUNCH("reproducible scan tile kernel launch");
            k_xgsum<<<(unsigned)ng, kXDigitThreads, 0, L.st>>>(xa, nt, xg);
            WRCUDA_CKLAUNCH("reproducible scan group kernel launch");
            k_xgpre<<<1, kXDigitThreads, 0, L.st>>>(xg, ng, off ? cout : carry_in, carry0,
                                                    last && !carry_out ? nullptr : cout);
            WRCUDA_CKLAUNCH("reproducible scan prefix kernel launch");
            k_xtpre<<<(unsigned)ng, kXDigitThreads, 0, L.st>>>(xa, nt, xg);
            WRCUDA_CKLAUNCH("reproducible scan tile prefix kernel launch");
            k_xscan<T><<<(unsigned)((nt + kXScanThreads - 1) / kXScanThreads), kXScanThreads, 0, L.st>>>(
                pin, pout, len, nt, xa, excl, last ? ds : kNoDone, L.ctr + 3);
            WRCUDA_CKLAUNCH("reproducible scan kernel launch");
        }
        return WR_SUCCESS;
    }
};

/* ---- scans inside segments -------------------------------------------------------- */

/*
 * The reproducible scan inside segments: the pipeline of the scan above
 * with the segmented operator on the tiles' sums.  Tile t's sum is taken
 * from its last head on (the last offset inside it), or over all of it,
 * and carries kXHead when it has a head; the exclusive prefix of those sums
 * restarts after each tile with a head (exact integer additions digit by
 * digit, as above); then a thread per tile runs a struct wrx_scan from its
 * tile's prefix and starts again from nothing at each head.  Every output
 * is its segment's exact prefix rounded once, the cpu backend's bits
 * whatever the tiles.
 */
constexpr uint32_t kXHead = 0x40u;        /* flags bit of a tile's or group's sum: a head inside */
static_assert((kXHead & (WRX_FLAGS | WRX_MAGIC_MASK | kUsed)) == 0, "a free flags bit");

/* The first index s in [0, count) with off[s] >= key (count if none). */
__device__ __forceinline__ size_t xoff_lower_bound(const size_t *off, size_t count, size_t key)
{
    size_t lo = 0, len = count;
    while (len > 0) {
        const size_t h = len / 2;
        if (off[lo + h] < key) {
            lo += h + 1;
            len -= h + 1;
        } else {
            len = h;
        }
    }
    return lo;
}

/* 1: tile t of n elements (element 0 is base in the offsets' index space):
 * the exact sum from its last head on, or of all of it, into xa[t],
 * normalised, with kXHead when it has a head. */
template <typename T>
__global__ void __launch_bounds__(kThreads, xblock_min_blocks<xsum_src<T>>())
k_xsegtiles(const T *__restrict__ in, size_t n, size_t ntiles, const size_t *__restrict__ off, size_t nseg,
            size_t base, wrx_acc *__restrict__ xa)
{
    __shared__ wrx_acc acc;
    __shared__ fpe<T> s_w[kThreads / 32];
    __shared__ int s_ok[kThreads / 32];
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const size_t b = t * kXTile, e = n - b < kXTile ? n : b + kXTile;
        /* the last offset below the tile's end, if it is inside the tile */
        const size_t j = xoff_lower_bound(off, nseg + 1, base + e);
        size_t pb = b;
        bool head = false;
        if (j > 0 && off[j - 1] >= base + b) {
            pb = off[j - 1] - base;
            head = true;
        }
        acc_zero(&acc, threadIdx.x, kThreads);
        __syncthreads();
        fpe<T> res;
        fpe_init(res);
        const bool used = block_exact(xsum_src<T>{ in }, pb, e, &acc, s_w, s_ok, res);
        if (threadIdx.x == 0) {
            if (!used) acc_flush(&acc, res);
            acc_normalize(&acc);
        }
        __syncthreads();
        for (unsigned k = threadIdx.x; k < WRX_DIGITS; k += kThreads) xa[t].d[k] = acc.d[k];
        if (threadIdx.x == 0) {
            xa[t].flags = (acc.flags & WRX_FLAGS) | WRX_MAGIC | (head ? kXHead : 0u);
            xa[t].load = 1;
        }
        __syncthreads();
    }
}

/* 2a: xg[g] = the segmented sum of the group's tiles (from its last tile
 * with a head on), kXHead when one has. */
__global__ void __launch_bounds__(kXDigitThreads)
k_xsgsum(const wrx_acc *__restrict__ xa, size_t ntiles, wrx_acc *__restrict__ xg)
{
    const unsigned k = threadIdx.x;
    const size_t g = blockIdx.x, t0 = g * kXGroup, t1 = ntiles - t0 < kXGroup ? ntiles : t0 + kXGroup;
    if (k < WRX_DIGITS) {
        int64_t s = 0;
        for (size_t t = t0; t < t1; t++) s = (xa[t].flags & kXHead) ? xa[t].d[k] : s + xa[t].d[k];
        xg[g].d[k] = s;
    } else if (k == WRX_DIGITS) {
        uint32_t f = 0, load = 0, h = 0;
        for (size_t t = t0; t < t1; t++) {
            const uint32_t vf = xa[t].flags;
            if (vf & kXHead) {
                f = vf & WRX_FLAGS;
                load = 1;
                h = kXHead;
            } else {
                f |= vf & WRX_FLAGS;
                load += 1;
            }
        }
        xg[g].flags = f | WRX_MAGIC | h;
        xg[g].load = load + 1;
    }
}

/* 2b: xg[0..ngroups) becomes its segmented exclusive prefix from *carry_in
 * (NULL: nothing), and *carry_out (if not NULL; may be carry_in) the
 * running sum after the last group, normalised.  One block. */
__global__ void __launch_bounds__(kXDigitThreads)
k_xsgpre(wrx_acc *__restrict__ xg, size_t ngroups, const wrx_acc *carry_in, wrx_acc *carry_out)
{
    __shared__ wrx_acc tot;
    __shared__ unsigned char hd[kXGroup];
    const unsigned k = threadIdx.x;
    for (size_t g = k; g < ngroups; g += kXDigitThreads) hd[g] = (xg[g].flags & kXHead) != 0;
    __syncthreads();                           /* (xg's flags are rewritten below) */
    if (k < WRX_DIGITS) {
        int64_t run = carry_in ? carry_in->d[k] : 0;
        for (size_t g = 0; g < ngroups; g++) {
            const int64_t v = xg[g].d[k];
            xg[g].d[k] = run;
            run = hd[g] ? v : run + v;
        }
        tot.d[k] = run;
    } else if (k == WRX_DIGITS) {
        uint32_t f = carry_in ? carry_in->flags & WRX_FLAGS : 0u, load = 1;
        for (size_t g = 0; g < ngroups; g++) {
            const uint32_t vf = xg[g].flags, vl = xg[g].load;
            xg[g].flags = f | WRX_MAGIC;
            xg[g].load = load + 1;
            if (hd[g]) {
                f = vf & WRX_FLAGS;
                load = vl;
            } else {
                f |= vf & WRX_FLAGS;
                load += vl;
            }
        }
        tot.flags = f | WRX_MAGIC;
        tot.load = load + 1;
    }
    __syncthreads();                           /* every read of carry_in is done */
    if (carry_out == nullptr) return;
    if (k == 0) acc_normalize(&tot);
    __syncthreads();
    for (unsigned q = k; q < WRX_DIGITS; q += kXDigitThreads) carry_out->d[q] = tot.d[q];
    if (k == 0) {
        carry_out->flags = tot.flags;
        carry_out->load = tot.load;
    }
}

/* 2c: each tile's sum xa[t] becomes its exclusive prefix inside its
 * segment: its group's (xg) and the group's tiles before it, from the last
 * one with a head on (a block a group). */
__global__ void __launch_bounds__(kXDigitThreads)
k_xstpre(wrx_acc *__restrict__ xa, size_t ntiles, const wrx_acc *__restrict__ xg)
{
    __shared__ unsigned char hd[kXGroup];
    const unsigned k = threadIdx.x;
    const size_t g = blockIdx.x, t0 = g * kXGroup, t1 = ntiles - t0 < kXGroup ? ntiles : t0 + kXGroup;
    for (size_t t = t0 + k; t < t1; t += kXDigitThreads) hd[t - t0] = (xa[t].flags & kXHead) != 0;
    __syncthreads();                           /* (xa's flags are rewritten below) */
    if (k < WRX_DIGITS) {
        int64_t run = xg[g].d[k];
        for (size_t t = t0; t < t1; t++) {
            const int64_t v = xa[t].d[k];
            xa[t].d[k] = run;
            run = hd[t - t0] ? v : run + v;
        }
    } else if (k == WRX_DIGITS) {
        uint32_t f = xg[g].flags & WRX_FLAGS, load = xg[g].load;
        for (size_t t = t0; t < t1; t++) {
            const uint32_t vf = xa[t].flags;
            xa[t].flags = f | WRX_MAGIC;
            xa[t].load = load;
            if (hd[t - t0]) {
                f = vf & WRX_FLAGS;
                load = 2;
            } else {
                f |= vf & WRX_FLAGS;
                load += 1;
            }
        }
    }
}

/* 3: a thread per tile (tile t of n elements from its prefix xa[t]),
 * staged as k_xscan, the scan started afresh at each head (an exclusive
 * output there is +0). */
template <typename T>
__global__ void __launch_bounds__(kXScanThreads)
k_xsegscan(const T *in, T *out, size_t n, size_t ntiles, const wrx_acc *__restrict__ xa,
           const size_t *__restrict__ off, size_t nseg, size_t base, int excl, done_sig ds,
           unsigned *__restrict__ dcount)
{
    __shared__ T sm[kXScanThreads][kXStage + 1];
    const size_t tile0 = (size_t)blockIdx.x * kXScanThreads, t = tile0 + threadIdx.x;
    const bool mine = t < ntiles;
    struct wrx_scan s;
    size_t j = 0, nh = SIZE_MAX;               /* the next head: offset j, element nh */
    bool start_empty = false;
    if (mine) {
        xs_init(&s, xa + t, sizeof(T) == 8);
        start_empty = s.empty != 0;
        j = xoff_lower_bound(off, nseg + 1, base + t * kXTile);
        nh = j <= nseg ? off[j] - base : SIZE_MAX;
    }
    for (size_t r0 = 0; r0 < kXTile && tile0 * kXTile + r0 < n; r0 += kXStage) {
        for (unsigned i = threadIdx.x; i < kXScanThreads * kXStage; i += kXScanThreads) {
            const size_t gi = (tile0 + i / kXStage) * kXTile + r0 + i % kXStage;
            if (gi < n) sm[i / kXStage][i % kXStage] = in[gi];
        }
        __syncthreads();
        if (mine) {
            const size_t b = t * kXTile + r0;
            const unsigned m = b >= n ? 0u : n - b < kXStage ? (unsigned)(n - b) : kXStage;
            T *x = &sm[threadIdx.x][0];
            unsigned i = 0;
            while (i < m) {
                bool head = false;
                if (b + i == nh) {                 /* a segment (or several empty ones and one) begins */
                    xs_init(&s, nullptr, sizeof(T) == 8);
                    head = true;
                    do j++;
                    while (j <= nseg && off[j] - base == b + i);
                    nh = j <= nseg ? off[j] - base : SIZE_MAX;
                }
                const unsigned e = nh > b + i && nh - b < m ? (unsigned)(nh - b) : m;
                xscan_run<T>(x + i, e - i, &s, excl != 0);
                /* the exclusive output before a segment's first element: +0 */
                if (excl && (head || (r0 == 0 && i == 0 && start_empty))) x[i] = T(0);
                i = e;
            }
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < kXScanThreads * kXStage; i += kXScanThreads) {
            const size_t gi = (tile0 + i / kXStage) * kXTile + r0 + i % kXStage;
            if (gi < n) out[gi] = sm[i / kXStage][i % kXStage];
        }
        __syncthreads();
    }
    grid_done(ds, dcount);
}

struct xsegscan_fn {
    template <typename T>
    static wr_status run(strand &L, const void *in, void *out, size_t n, const size_t *off, size_t nseg, size_t base,
                         int excl, const wrx_acc *carry_in, wrx_acc *carry_out, done_sig ds, char *err)
    {
        static occupancy_cache occ;
        const int per_sm = occ.get(L, (const void *)k_xsegtiles<T>);
        const size_t ntot = (n + kXTile - 1) / kXTile;
        const size_t most = ntot < kXPassTiles ? ntot : kXPassTiles;
        WRCUDA_TRY(grow(L, L.xscan, &L.xscan_cap, (most + kXGroup) * kAccBytes, false,
                        "reproducible scan accumulators", err));
        wrx_acc *xa = (wrx_acc *)L.xscan, *xg = xa + most;
        wrx_acc *cout = carry_out ? carry_out : (wrx_acc *)exact_carry(L, 0);
        const size_t cap = (size_t)L.sms * (size_t)per_sm;
        const size_t pass = kXPassTiles * kXTile;
        for (size_t p = 0; p < n; p += pass) {
            const size_t len = n - p < pass ? n - p : pass;
            const size_t nt = (len + kXTile - 1) / kXTile, ng = (nt + kXGroup - 1) / kXGroup;
            const bool last = p + len == n;
            const T *pin = (const T *)in + p;
            T *pout = (T *)out + p;
            size_t blocks = nt < cap ? nt : cap;
            if (blocks > kMaxGrid) blocks = kMaxGrid;
            k_xsegtiles<T><<<(unsigned)blocks, kThreads, 0, L.st>>>(pin, len, nt, off, nseg, base + p, xa);
            WRCUDA_CKLAUNCH("reproducible segmented scan tile kernel launch");
            k_xsgsum<<<(unsigned)ng, kXDigitThreads, 0, L.st>>>(xa, nt, xg);
            WRCUDA_CKLAUNCH("reproducible segmented scan group kernel launch");
            k_xsgpre<<<1, kXDigitThreads, 0, L.st>>>(xg, ng, p ? cout : carry_in, last && !carry_out ? nullptr : cout);
            WRCUDA_CKLAUNCH("reproducible segmented scan prefix kernel launch");
            k_xstpre<<<(unsigned)ng, kXDigitThreads, 0, L.st>>>(xa, nt, xg);
            WRCUDA_CKLAUNCH("reproducible segmented scan tile prefix kernel launch");
            k_xsegscan<T><<<(unsigned)((nt + kXScanThreads - 1) / kXScanThreads), kXScanThreads, 0, L.st>>>(
                pin, pout, len, nt, xa, off, nseg, base + p, excl, last ? ds : kNoDone, L.ctr + 3);
            WRCUDA_CKLAUNCH("reproducible segmented scan kernel launch");
        }
        return WR_SUCCESS;
    }
};

template <class F, typename... A>
wr_status dispatch_fp(wr_type t, A &&...a)
{
    if (t == WR_FLOAT) return F::template run<float>(a...);
    if (t == WR_DOUBLE) return F::template run<double>(a...);
    return WR_ERR_UNSUPPORTED;
}

} /* namespace */

wr_status launch_exact_scan(strand &L, const void *in, void *out, size_t n, wr_type t, int exclusive,
                            const void *carry_in, const wrx_acc &carry0, void *carry_out, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    return dispatch_fp<xscan_fn>(t, L, in, out, n, exclusive, (const wrx_acc *)carry_in, carry0,
                                 (wrx_acc *)carry_out, ds, err);
}

wr_status launch_exact_segscan(strand &L, const void *in, void *out, size_t n, const size_t *off, size_t nseg,
                               size_t base, wr_type t, int exclusive, const void *carry_in, void *carry_out,
                               done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    return dispatch_fp<xsegscan_fn>(t, L, in, out, n, off, nseg, base, exclusive, (const wrx_acc *)carry_in,
                                    (wrx_acc *)carry_out, ds, err);
}

wr_status exact_scratch(strand &L, char *err)
{
    if (L.xs) return WR_SUCCESS;
    /* zeroed once: the global accumulators are kept zero by their last
     * block; the norms' control words are written before they are read */
    return grow(L, L.xs, &L.xs_cap, (n_global(L) + 2) * kAccBytes + kNormCtlBytes, true, "exact-sum accumulators",
                err);
}

wr_status reserve_exact_scan(strand &L, char *err)
{
    /* a whole pass's tile and group accumulators: the most xscan_fn asks for */
    return grow(L, L.xscan, &L.xscan_cap, (kXPassTiles + kXGroup) * kAccBytes, false,
                "reproducible scan accumulators", err);
}

void *exact_carry(strand &L, int i) { return (wrx_acc *)L.xs + i; }

wr_status launch_exact_reduce(strand &L, const void *in, size_t n, wr_type t, const void *carry,
                              void *acc_out, void *dst, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT) return xreduce_run(L, xsum_src<float>{ (const float *)in }, n, carry, acc_out, dst, ds, err);
    return xreduce_run(L, xsum_src<double>{ (const double *)in }, n, carry, acc_out, dst, ds, err);
}

wr_status launch_exact_segments(strand &L, const void *in, void *out, size_t nseg, const size_t *off,
                                size_t off_base, size_t cols, double avg_len, wr_type t,
                                const void *carry_in, void *carry_out, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT)
        return xseg_run(L, xsum_src<float>{ (const float *)in }, out, nseg, off, off_base, cols, avg_len, carry_in,
                        carry_out, ds, err);
    return xseg_run(L, xsum_src<double>{ (const double *)in }, out, nseg, off, off_base, cols, avg_len, carry_in,
                    carry_out, ds, err);
}

wr_status launch_exact_asum(strand &L, const void *x, size_t n, wr_type t, const void *carry, void *acc_out,
                            void *dst, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT) {
        xasum_src<float> src;
        src.in = (const float *)x;
        return xreduce_run(L, src, n, carry, acc_out, dst, ds, err);
    }
    xasum_src<double> src;
    src.in = (const double *)x;
    return xreduce_run(L, src, n, carry, acc_out, dst, ds, err);
}

wr_status launch_exact_dot(strand &L, const void *x, const void *y, size_t n, wr_type t, const void *carry,
                           void *acc_out, void *dst, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT)
        return xreduce_run(L, xdotf_src{ (const float *)x, (const float *)y }, n, carry, acc_out, dst, ds, err);
    return xreduce_run(L, xdotd_src{ (const double *)x, (const double *)y }, n, carry, acc_out, dst, ds, err);
}

wr_status launch_exact_dot_rows(strand &L, const void *x, const void *y, void *out, size_t rows, size_t cols,
                                wr_type t, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT)
        return xseg_run(L, xdotf_src{ (const float *)x, (const float *)y }, out, rows, nullptr, 0, cols,
                        (double)cols, nullptr, nullptr, ds, err);
    return xseg_run(L, xdotd_src{ (const double *)x, (const double *)y }, out, rows, nullptr, 0, cols, (double)cols,
                    nullptr, nullptr, ds, err);
}

wrx_acc *norm_parts(strand &L)
{
    return (wrx_acc *)((char *)L.xs + (n_global(L) + 2) * kAccBytes);
}

wr_status launch_exact_nrm2(strand &L, const void *x, size_t n, wr_type t, int part, int gated, const void *carry,
                            void *acc_out, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    const wrx_acc *p1 = norm_parts(L) + 1;
    if (t == WR_FLOAT)
        return xreduce_run(L, xnrm2_src<float>{ (const float *)x, p1, part, gated }, n, carry, acc_out, nullptr,
                           kNoDone, err);
    return xreduce_run(L, xnrm2_src<double>{ (const double *)x, p1, part, gated }, n, carry, acc_out, nullptr,
                       kNoDone, err);
}

wr_status launch_norm_round(strand &L, wr_type t, void *dst, done_sig ds, char *err)
{
    WRCUDA_TRY(exact_scratch(L, err));
    if (t == WR_FLOAT) k_norm_round<float><<<1, 1, 0, L.st>>>(norm_parts(L), (float *)dst, ds);
    else k_norm_round<double><<<1, 1, 0, L.st>>>(norm_parts(L), (double *)dst, ds);
    WRCUDA_CKLAUNCH("norm rounding launch");
    return WR_SUCCESS;
}

const void *probe_exact() { return (const void *)k_xblock<xsum_src<double>>; }

} /* namespace wrcuda */

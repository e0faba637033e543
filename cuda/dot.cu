/*
 * dot.cu -- dot products, norms and sums of magnitudes (fast mode), each in
 * ONE kernel launch as reduce.cu's reduce, and the row-wise dot products.
 *
 * One kernel family, k_blas1<P>, for every linear operation: a policy P
 * says what a thread keeps (P::S), how it takes its grid-strided share of
 * the input(s), how two states combine and what the final state gives.
 * Blocks fold their threads' states with xor butterflies and leave one
 * partial each; the last block to arrive (reduce.cu's ticket) folds the
 * partials in block order.  No floating atomics and a fixed order of every
 * combination: the same bits on every run.
 *
 *  - dot: x[i] * y[i] by FMA into kUnroll accumulators of T a thread (as
 *    cublasSdot/Ddot), both inputs read in 16-byte vectors where they share
 *    their offset inside 16 bytes (team_walk2);
 *  - nrm2, float: squares in double (exact), summed in double: no overflow
 *    or underflow for any float data, one rounding at the end;
 *  - nrm2, double: Blue's three accumulators with the thresholds and scale
 *    factors of LAPACK 3.10's dnrm2 (E. Anderson, "Algorithm 978: Safe
 *    scaling in the Level 1 BLAS", ACM TOMS 44, 2017): elements above 2^486
 *    are squared after scaling by 2^-538, below 2^-511 after scaling by
 *    2^537, the rest as they are, and the three sums are put together once,
 *    at the end, as dnrm2 does;
 *  - asum: |x[i]| summed in T, as reduce's SUM.
 * Every one reads its input once: memory speed, like the copy.
 *
 * Rows (dot_rows): the mappings of segments.cu for rows -- a group of G
 * lanes a row, batches of R rows with their loads hoisted (aligned rows),
 * a block a row, or K blocks a row when the rows are too few to fill the
 * device -- with two inputs.
 */
#include <atomic>
#include "kernel_common.cuh"
#include "dot.cuh"

namespace wrcuda {

namespace {

__device__ __forceinline__ float fmac(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fmac(double a, double b, double c) { return __fma_rn(a, b, c); }

__device__ __forceinline__ float shfl_x(float a, int off) { return __shfl_xor_sync(warpred::full_mask, a, off); }
__device__ __forceinline__ double shfl_x(double a, int off) { return __shfl_xor_sync(warpred::full_mask, a, off); }

/* A NaN as warpred.h's results give it: every bit set but the sign. */
__device__ __forceinline__ float canon(float a) { return a == a ? a : __int_as_float(0x7fffffff); }
__device__ __forceinline__ double canon(double a) { return a == a ? a : __longlong_as_double(0x7fffffffffffffffll); }

/* ---- the policies ---------------------------------------------------------------- */

/* dot: sum of x[i] * y[i] in T (fused multiply-adds). */
template <typename T>
struct dot_pol {
    typedef T S;
    typedef T R;
    const T *x, *y;
    __device__ __forceinline__ static S zero() { return T(-0.0); }   /* -0: IEEE's neutral */
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return a; }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ S share(size_t b, size_t e, size_t rank, size_t team) const
    {
        S acc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) acc[u] = zero();
        team_walk2(x, y, b, e, rank, team, acc, [](S &a, T xi, T yi, size_t) { a = fmac(xi, yi, a); },
                   [](S &a, const vec<T> &xv, const vec<T> &yv, size_t) {
#pragma unroll
                       for (int j = 0; j < (int)(16 / sizeof(T)); j++) a = fmac(xv.v[j], yv.v[j], a);
                   });
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
};

/* asum: sum of |x[i]| in T. */
template <typename T>
struct asum_pol {
    typedef T S;
    typedef T R;
    const T *x;
    __device__ __forceinline__ static S zero() { return T(0); }
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return a; }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ S share(size_t b, size_t e, size_t rank, size_t team) const
    {
        S acc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) acc[u] = zero();
        team_walk(x, b, e, rank, team, acc, [](S &a, T v, size_t) { a = a + (v < T(0) ? -v : v); },
                  [](S &a, const vec<T> &v, size_t) {
                      if constexpr (sizeof(T) == 4)
                          a = a + ((fabsf(v.v[0]) + fabsf(v.v[1])) + (fabsf(v.v[2]) + fabsf(v.v[3])));
                      else
                          a = a + (fabs(v.v[0]) + fabs(v.v[1]));
                  });
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
};

/* nrm2 of floats: squares in double are exact and cannot overflow or
 * underflow (2^-298 .. 2^256), so a double sum needs no scaling. */
struct nrm2f_pol {
    typedef double S;
    typedef float R;
    const float *x;
    __device__ __forceinline__ static S zero() { return 0.0; }
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return (float)sqrt(a); }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ S share(size_t b, size_t e, size_t rank, size_t team) const
    {
        S acc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) acc[u] = zero();
        team_walk(x, b, e, rank, team, acc, [](S &a, float v, size_t) { a = fmac((double)v, (double)v, a); },
                  [](S &a, const vec<float> &v, size_t) {
                      const double d0 = v.v[0], d1 = v.v[1], d2 = v.v[2], d3 = v.v[3];
                      a = fmac(d3, d3, fmac(d2, d2, fmac(d1, d1, fmac(d0, d0, a))));
                  });
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
};

/* Blue's accumulators: sums of squares of the big elements scaled down, of
 * the middle ones, of the small ones scaled up. */
struct blue { double big, med, sml; };

/* dnrm2's constants (LAPACK 3.10, la_constants): tsml = 2^ceil((minexp - 1)/2),
 * tbig = 2^floor((maxexp - digits + 1)/2), ssml = 2^-floor((minexp - digits)/2),
 * sbig = 2^-ceil((maxexp + digits - 1)/2) with minexp = -1021, maxexp = 1024,
 * digits = 53. */
constexpr double kTsml = 0x1p-511, kTbig = 0x1p486, kSsml = 0x1p537, kSbig = 0x1p-538;

__device__ __forceinline__ void blue_add(blue &a, double v)
{
    const double ax = fabs(v);
    const bool big = ax > kTbig, sml = ax < kTsml;   /* a NaN is neither: it goes to med */
    const double yb = big ? ax * kSbig : 0.0, ys = sml ? ax * kSsml : 0.0, ym = big || sml ? 0.0 : ax;
    a.big = fmac(yb, yb, a.big);
    a.med = fmac(ym, ym, a.med);
    a.sml = fmac(ys, ys, a.sml);
}

struct nrm2d_pol {
    typedef blue S;
    typedef double R;
    const double *x;
    __device__ __forceinline__ static S zero() { return blue{ 0.0, 0.0, 0.0 }; }
    __device__ __forceinline__ static S merge(S a, S b) { return blue{ a.big + b.big, a.med + b.med, a.sml + b.sml }; }
    __device__ __forceinline__ static S shfl(S a, int off)
    {
        return blue{ shfl_x(a.big, off), shfl_x(a.med, off), shfl_x(a.sml, off) };
    }
    __device__ __forceinline__ static S ld(const S *p)
    {
        return blue{ ld_volatile(&p->big), ld_volatile(&p->med), ld_volatile(&p->sml) };
    }
    /* dnrm2's ending: the big sum takes the middle one (if any), or the
     * middle and small sums are put together by their square roots, or one
     * sum alone; a NaN anywhere stays a NaN. */
    __device__ __forceinline__ static R fin(S a)
    {
        double scl = 1.0, sumsq;
        if (a.big > 0) {
            if (a.med > 0 || a.med != a.med) a.big += (a.med * kSbig) * kSbig;
            scl = 1.0 / kSbig;
            sumsq = a.big;
        } else if (a.sml > 0) {
            if (a.med > 0 || a.med != a.med) {
                const double m = sqrt(a.med), s = sqrt(a.sml) / kSsml;
                const double ymin = s > m ? m : s, ymax = s > m ? s : m;
                const double q = ymin / ymax;
                sumsq = ymax * ymax * (1.0 + q * q);
            } else {
                scl = 1.0 / kSsml;
                sumsq = a.sml;
            }
        } else {
            sumsq = a.med;
        }
        return scl * sqrt(sumsq);
    }
    __device__ __forceinline__ S share(size_t b, size_t e, size_t rank, size_t team) const
    {
        S acc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) acc[u] = zero();
        team_walk(x, b, e, rank, team, acc, [](S &a, double v, size_t) { blue_add(a, v); },
                  [](S &a, const vec<double> &v, size_t) {
                      blue_add(a, v.v[0]);
                      blue_add(a, v.v[1]);
                  });
        return merge(merge(acc[0], acc[1]), merge(acc[2], acc[3]));
    }
};

/* ---- the kernel ---------------------------------------------------------------------- */

/* The fold of a block's states (every thread passes one; thread 0 gets the
 * result): xor butterflies in each warp, then over the warps' results. */
template <class P>
__device__ __forceinline__ typename P::S block_fold(typename P::S a, typename P::S *sw)
{
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
#pragma unroll
    for (int off = 16; off > 0; off /= 2) a = P::merge(a, P::shfl(a, off));
    if (lane == 0) sw[w] = a;
    __syncthreads();
    if (w == 0) {
        a = lane < kThreads / 32 ? sw[lane] : P::zero();
#pragma unroll
        for (int off = 16; off > 0; off /= 2) a = P::merge(a, P::shfl(a, off));
    }
    return a;
}

/*
 * One pass of policy P over n elements: the state of everything (merged
 * after *carry when carry is not NULL) into *acc_out and/or P::fin of it
 * into *dst (each may be NULL; dst may be mapped host memory), a NaN as
 * the canonical one (every bit set but the sign, as warpred.h says).
 */
template <class P>
__global__ void __launch_bounds__(kThreads)
k_blas1(P p, size_t n, typename P::S *__restrict__ part, unsigned *__restrict__ ctr, typename P::S *acc_out,
        typename P::R *dst, const typename P::S *carry, done_sig ds)
{
    typedef typename P::S S;
    __shared__ S sw[kThreads / 32];
    __shared__ int s_last;
    S r = p.share(0, n, (size_t)blockIdx.x * kThreads + threadIdx.x, (size_t)gridDim.x * kThreads);
    r = block_fold<P>(r, sw);
    if (gridDim.x > 1) {
        if (threadIdx.x == 0) {
            part[blockIdx.x] = r;
            s_last = last_arrival(ctr, gridDim.x);
        }
        __syncthreads();
        if (!s_last) return;
        __threadfence();
        S a = P::zero();
        for (unsigned j = threadIdx.x; j < gridDim.x; j += kThreads) a = P::merge(a, P::ld(part + j));
        r = block_fold<P>(a, sw);
    }
    if (threadIdx.x == 0) {
        if (carry) r = P::merge(*carry, r);
        if (acc_out) *acc_out = r;
        if (dst) *dst = canon(P::fin(r));
        if (gridDim.x > 1) *ctr = 0;
        if (ds.word) signal_done(ds);
    }
}

template <class P>
wr_status run_blas1(strand &S, const P &p, size_t n, size_t elem, void *acc_out, void *dst, const void *carry,
                    done_sig ds, char *err)
{
    static std::atomic<int> per_sm{0};
    auto k = k_blas1<P>;
    if (per_sm.load(std::memory_order_relaxed) == 0) per_sm.store(blocks_per_sm((const void *)k));
    unsigned g = reduce_grid(n, elem, S.sms, per_sm.load(std::memory_order_relaxed), true);
    const size_t most = S.part_cap / sizeof(typename P::S);
    if (g > most) g = (unsigned)most;
    k<<<g, kThreads, 0, S.st>>>(p, n, (typename P::S *)S.part, S.ctr, (typename P::S *)acc_out,
                                (typename P::R *)dst, (const typename P::S *)carry, ds);
    WRCUDA_CKLAUNCH("blas1 kernel launch");
    return WR_SUCCESS;
}

/* ---- rows -------------------------------------------------------------------------------- */

__host__ __device__ __forceinline__ unsigned pow2_upto32(size_t x)
{
    unsigned g = 1;
    while (g < x && g < 32) g *= 2;
    return g;
}

/*
 * Rows that start on 16-byte boundaries in both inputs (x and y aligned,
 * cols * sizeof(T) a multiple of 16), as segments.cu's k_rows_group: a
 * group of G lanes a row, the lane's k-th vector of a row into accumulator
 * k % kUnroll, and the loads of R rows (short rows) or of Q = 4 / R
 * vectors of one row hoisted before any is used: 8 independent 16-byte
 * loads in flight per thread (4 of x, 4 of y).
 */
template <typename T, int R>
__global__ void __launch_bounds__(kThreads)
k_dotrows_group(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t rows, size_t nv,
                unsigned G, unsigned m, done_sig ds, unsigned *__restrict__ dcount)
{
    constexpr int Q = 4 / R, V = 16 / sizeof(T);
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    const vec<T> *__restrict__ xp = reinterpret_cast<const vec<T> *>(x);
    const vec<T> *__restrict__ yp = reinterpret_cast<const vec<T> *>(y);
    for (size_t r0 = warp * per_warp * R; r0 < rows; r0 += nwarps * per_warp * R) {
        const size_t s0 = r0 + lane / G;
        T acc[R][kUnroll];
#pragma unroll
        for (int j = 0; j < R; j++)
#pragma unroll
            for (int u = 0; u < kUnroll; u++) acc[j][u] = T(-0.0);
        for (unsigned c = 0; c < m; c += Q) {
            vec<T> xv[R][Q], yv[R][Q];
#pragma unroll
            for (int j = 0; j < R; j++)
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    const size_t s = s0 + j * per_warp, vi = gl + (size_t)(c + q) * G;
                    if (s < rows && vi < nv) {
                        xv[j][q] = xp[s * nv + vi];
                        yv[j][q] = yp[s * nv + vi];
                    }
                }
#pragma unroll
            for (int j = 0; j < R; j++)
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    const size_t s = s0 + j * per_warp, vi = gl + (size_t)(c + q) * G;
                    /* (c + q) % kUnroll == q: c is a multiple of Q, and Q of kUnroll when c > 0 */
                    if (s < rows && vi < nv) {
                        T &a = acc[j][q % kUnroll];
#pragma unroll
                        for (int v = 0; v < V; v++) a = fmac(xv[j][q].v[v], yv[j][q].v[v], a);
                    }
                }
        }
#pragma unroll
        for (int j = 0; j < R; j++) {
            T v = (acc[j][0] + acc[j][1]) + (acc[j][2] + acc[j][3]);
            for (unsigned off = G / 2; off > 0; off /= 2) v += shfl_x(v, off);
            const size_t s = s0 + j * per_warp;
            if (s < rows && gl == 0) out[s] = canon(v);
        }
    }
    grid_done(ds, dcount);
}

/* Any rows, a group of G lanes a row (team_walk2: inputs of any offset). */
template <typename T>
__global__ void __launch_bounds__(kThreads)
k_dotrows_any(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t rows, size_t cols,
              unsigned G, done_sig ds, unsigned *__restrict__ dcount)
{
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    const dot_pol<T> p = { x, y };
    for (size_t s0 = warp * per_warp; s0 < rows; s0 += nwarps * per_warp) {
        const size_t s = s0 + lane / G;
        const bool valid = s < rows;
        const size_t b = valid ? s * cols : 0, e = valid ? b + cols : 0;
        T v = p.share(b, e, gl, G);
        for (unsigned off = G / 2; off > 0; off /= 2) v += shfl_x(v, off);
        if (valid && gl == 0) out[s] = canon(v);
    }
    grid_done(ds, dcount);
}

/* Long rows: K blocks a row (K == 1: a block), whose partials the last one
 * to arrive adds in order (segments.cu's k_seg_block). */
template <typename T>
__global__ void __launch_bounds__(kThreads)
k_dotrows_block(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t rows, size_t cols,
                unsigned K, T *__restrict__ part, unsigned *__restrict__ segctr, done_sig ds,
                unsigned *__restrict__ dcount)
{
    typedef dot_pol<T> P;
    __shared__ T sw[kThreads / 32];
    __shared__ int s_last;
    const P p = { x, y };
    for (size_t w = blockIdx.x; w < rows * K; w += gridDim.x) {
        const size_t s = w / K, k = w % K, b = s * cols, len = cols;
        const size_t pb = b + (len / K) * k + (k < len % K ? k : len % K);
        const size_t pe = pb + len / K + (k < len % K ? 1 : 0);
        T r = block_fold<P>(p.share(pb, pe, threadIdx.x, kThreads), sw);
        if (K == 1) {
            if (threadIdx.x == 0) out[s] = canon(r);
        } else {
            if (threadIdx.x == 0) {
                part[w] = r;
                s_last = last_arrival(segctr + s, K);
            }
            __syncthreads();
            if (s_last && threadIdx.x == 0) {
                __threadfence();
                T a = ld_volatile(part + s * K);
                for (size_t q = 1; q < K; q++) a += ld_volatile(part + s * K + q);
                out[s] = canon(a);
                segctr[s] = 0;
            }
        }
        __syncthreads();            /* sw and s_last are reused by the next row */
    }
    grid_done(ds, dcount);
}

template <class K, typename... A>
wr_status launch_grid(strand &S, K kern, size_t units, size_t cap, const char *what, char *err, A... a)
{
    size_t blocks = units;
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;
    kern<<<(unsigned)blocks, kThreads, 0, S.st>>>(a...);
    WRCUDA_CKLAUNCH(what);
    return WR_SUCCESS;
}

template <typename T, int R>
wr_status launch_dotrows_group(strand &S, const T *x, const T *y, T *out, size_t rows, size_t nv, unsigned G,
                               unsigned m, done_sig ds, char *err)
{
    static std::atomic<int> per_sm{0};
    auto k = k_dotrows_group<T, R>;
    if (per_sm.load(std::memory_order_relaxed) == 0) per_sm.store(blocks_per_sm((const void *)k));
    /* as many warps as make whole rounds of batches, at most one wave (segments.cu's launch_rows) */
    const size_t wpb = kThreads / 32;
    const size_t units = (rows + (32 / G) * R - 1) / ((32 / G) * R);
    const size_t most = (size_t)S.sms * (size_t)per_sm.load(std::memory_order_relaxed) * wpb;
    const size_t rounds = (units + most - 1) / most;
    const size_t warps = (units + rounds - 1) / rounds;
    k<<<(unsigned)((warps + wpb - 1) / wpb), kThreads, 0, S.st>>>(x, y, out, rows, nv, G, m, ds, S.ctr + 3);
    WRCUDA_CKLAUNCH("row dot kernel launch");
    return WR_SUCCESS;
}

struct dotrows_fn {
    template <typename T>
    static wr_status run(strand &S, const void *xv, const void *yv, void *outv, size_t rows, size_t cols,
                         done_sig ds, char *err)
    {
        const T *x = (const T *)xv, *y = (const T *)yv;
        T *out = (T *)outv;
        constexpr size_t V = 16 / sizeof(T);
        const double vecs = (double)cols / V;
        if (vecs <= 16.0 * 32) {
            const unsigned G = pow2_upto32((size_t)(vecs + 0.999));
            if (cols > 0 && cols % V == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0) {
                const size_t nv = cols / V;
                const unsigned m = (unsigned)((nv + G - 1) / G);    /* vectors a lane, <= 16 */
                if (m <= 1) return launch_dotrows_group<T, 4>(S, x, y, out, rows, nv, G, m, ds, err);
                if (m <= 2) return launch_dotrows_group<T, 2>(S, x, y, out, rows, nv, G, m, ds, err);
                return launch_dotrows_group<T, 1>(S, x, y, out, rows, nv, G, m, ds, err);
            }
            return launch_grid(S, k_dotrows_any<T>, (rows * G + kThreads - 1) / kThreads, (size_t)S.sms * 16,
                               "row dot kernel launch", err, x, y, out, rows, cols, G, ds, S.ctr + 3);
        }
        /* a block a row; several when the rows are too few to fill the device
         * (4 blocks a multiprocessor), each a full pass at least */
        size_t K = 1;
        const size_t want = (size_t)S.sms * 4;
        if (rows < want) {
            K = (want + rows - 1) / rows;
            const size_t most = (size_t)(vecs / (kThreads * kUnroll)) + 1;
            if (K > most) K = most;
            if (K > 1024) K = 1024;
            if (K > S.part_cap / sizeof(T) / rows) K = S.part_cap / sizeof(T) / rows;
            if (K < 1) K = 1;
        }
        if (K > 1) {       /* (a strand that may not grow has counters for 4 x SMs rows: reserve_segments) */
            size_t cap = S.segctr_cap * 4;
            const wr_status st = grow(S, S.segctr, &cap, rows * 4, true, "segment counters", err);
            S.segctr_cap = cap / 4;
            if (st != WR_SUCCESS) return st;
        }
        return launch_grid(S, k_dotrows_block<T>, rows * K, (size_t)S.sms * 16, "row dot kernel launch", err, x, y,
                           out, rows, cols, (unsigned)K, (T *)S.part, S.segctr, ds, S.ctr + 3);
    }
};

} /* namespace */

/* ---- launchers ------------------------------------------------------------------------------ */

wr_status launch_dot(strand &S, const void *x, const void *y, size_t n, wr_type t, void *acc_out, void *dst,
                     const void *carry, done_sig ds, char *err)
{
    if (t == WR_FLOAT) return run_blas1(S, dot_pol<float>{ (const float *)x, (const float *)y }, n, 4, acc_out, dst, carry, ds, err);
    return run_blas1(S, dot_pol<double>{ (const double *)x, (const double *)y }, n, 8, acc_out, dst, carry, ds, err);
}

wr_status launch_asum(strand &S, const void *x, size_t n, wr_type t, void *acc_out, void *dst, const void *carry,
                      done_sig ds, char *err)
{
    if (t == WR_FLOAT) return run_blas1(S, asum_pol<float>{ (const float *)x }, n, 4, acc_out, dst, carry, ds, err);
    return run_blas1(S, asum_pol<double>{ (const double *)x }, n, 8, acc_out, dst, carry, ds, err);
}

wr_status launch_nrm2(strand &S, const void *x, size_t n, wr_type t, void *acc_out, void *dst, const void *carry,
                      done_sig ds, char *err)
{
    if (t == WR_FLOAT) return run_blas1(S, nrm2f_pol{ (const float *)x }, n, 4, acc_out, dst, carry, ds, err);
    return run_blas1(S, nrm2d_pol{ (const double *)x }, n, 8, acc_out, dst, carry, ds, err);
}

wr_status launch_dot_rows(strand &S, const void *x, const void *y, void *out, size_t rows, size_t cols, wr_type t,
                          done_sig ds, char *err)
{
    if (t == WR_FLOAT) return dotrows_fn::run<float>(S, x, y, out, rows, cols, ds, err);
    return dotrows_fn::run<double>(S, x, y, out, rows, cols, ds, err);
}

const void *probe_dot() { return (const void *)k_blas1<dot_pol<float>>; }

} /* namespace wrcuda */

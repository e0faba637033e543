/*
 * dot.cu -- dot products, norms and sums of magnitudes in fast mode, and
 * the row-wise dot products.
 *
 * The order of every sum is a function of the count alone (warpred.h: the
 * bits depend on the backend, type and count; wr_dot_rows gives each row
 * the bits wr_dot gives it), never of the grid, of the device's size or of
 * where the arrays start:
 *  - the n elements are cut into tiles of tile_of(n) elements (4096, or
 *    more where more tiles than the partials' room would be needed);
 *  - a tile is summed by a team of 32 lanes: lane l takes the "virtual
 *    vectors" l, l + 32, ... of V = 16 / sizeof(T) consecutive elements
 *    from the tile's start, its k-th one into accumulator k % kUnroll
 *    (elements of a vector in order, a vector cut by the end element by
 *    element), the accumulators combined ((0, 1), (2, 3)), then the lanes
 *    by an xor butterfly (16, 8, 4, 2, 1);
 *  - the tiles' sums p[0 .. T) are folded as a block of kThreads folds:
 *    thread j adds p[j], p[j + kThreads], ... in order, then the block's
 *    xor butterflies (each warp, then the warps' sums).
 * A virtual vector is loaded as one 16-byte vector where its address is 16-
 * byte aligned, else element by element: the same values, the same bits.
 * A tile of at most 32 vectors gives the same bits summed by G < 32 lanes
 * (G >= its vector count): the other lanes' sums are the neutral element.
 *
 * Kernels: k_tiles, a warp a tile over the grid, each tile's sum to the
 * strand's partials, the last block to arrive (reduce.cu's ticket) folding
 * them; rows of one tile by groups of G lanes (k_dotrows_group with the
 * loads of several rows hoisted, aligned rows; k_dotrows_any, any), longer
 * rows by a block each (k_dotrows_block: the tiles in rounds of kThreads,
 * folded as they come).
 *
 * What is summed (a policy P): dot, x[i] * y[i] by FMA into T (as
 * cublasSdot/Ddot); asum, |x[i]| in T; nrm2 of floats, the exact squares in
 * double; nrm2 of doubles, Blue's three sums with the thresholds and scale
 * factors of LAPACK 3.10's dnrm2 (E. Anderson, "Algorithm 978: Safe scaling
 * in the Level 1 BLAS", ACM TOMS 44, 2017), put together at the end as
 * dnrm2 does.  Every input is read once: memory speed, like the copy.
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

/* ---- the policies: E the elements, S what is summed, R the result ---------------- */

template <typename T>
struct dot_pol {
    typedef T E;
    typedef T S;
    typedef T R;
    static constexpr bool kTwo = true;
    __device__ __forceinline__ static S zero() { return T(-0.0); }   /* -0: IEEE's neutral */
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return a; }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ static void elem(S &a, T x, T y) { a = fmac(x, y, a); }
    __device__ __forceinline__ static void vect(S &a, const vec<T> &x, const vec<T> &y)
    {
#pragma unroll
        for (int j = 0; j < (int)(16 / sizeof(T)); j++) a = fmac(x.v[j], y.v[j], a);
    }
};

template <typename T>
struct asum_pol {
    typedef T E;
    typedef T S;
    typedef T R;
    static constexpr bool kTwo = false;
    __device__ __forceinline__ static S zero() { return T(0); }
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return a; }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ static void elem(S &a, T x, T) { a = a + fabs(x); }
    __device__ __forceinline__ static void vect(S &a, const vec<T> &x, const vec<T> &)
    {
        if constexpr (sizeof(T) == 4)
            a = a + ((fabsf(x.v[0]) + fabsf(x.v[1])) + (fabsf(x.v[2]) + fabsf(x.v[3])));
        else
            a = a + (fabs(x.v[0]) + fabs(x.v[1]));
    }
};

/* nrm2 of floats: squares in double are exact and cannot overflow or
 * underflow (2^-298 .. 2^256), so a double sum needs no scaling. */
struct nrm2f_pol {
    typedef float E;
    typedef double S;
    typedef float R;
    static constexpr bool kTwo = false;
    __device__ __forceinline__ static S zero() { return 0.0; }
    __device__ __forceinline__ static S merge(S a, S b) { return a + b; }
    __device__ __forceinline__ static R fin(S a) { return (float)sqrt(a); }
    __device__ __forceinline__ static S shfl(S a, int off) { return shfl_x(a, off); }
    __device__ __forceinline__ static S ld(const S *p) { return ld_volatile(p); }
    __device__ __forceinline__ static void elem(S &a, float x, float) { a = fmac((double)x, (double)x, a); }
    __device__ __forceinline__ static void vect(S &a, const vec<float> &x, const vec<float> &)
    {
        const double d0 = x.v[0], d1 = x.v[1], d2 = x.v[2], d3 = x.v[3];
        a = fmac(d3, d3, fmac(d2, d2, fmac(d1, d1, fmac(d0, d0, a))));
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
    typedef double E;
    typedef blue S;
    typedef double R;
    static constexpr bool kTwo = false;
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
    __device__ __forceinline__ static void elem(S &a, double x, double) { blue_add(a, x); }
    __device__ __forceinline__ static void vect(S &a, const vec<double> &x, const vec<double> &)
    {
        blue_add(a, x.v[0]);
        blue_add(a, x.v[1]);
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
};

/* ---- the order (see the top) --------------------------------------------------------- */

/* Tiles of the sum of n elements: 4096 elements, doubled until the tiles'
 * sums fit the strand's partials (a constant: the order must not depend on
 * anything but n). */
template <class P>
__host__ __device__ __forceinline__ size_t tile_of(size_t n)
{
    const size_t most = (size_t)kMaxGrid * 16 / sizeof(typename P::S);
    size_t t = 4096;
    while ((n + t - 1) / t > most) t *= 2;
    return t;
}

/* The virtual vector at p: one 16-byte load where a (p is 16-byte aligned). */
template <typename T>
__device__ __forceinline__ vec<T> vload(const T *__restrict__ p, bool a)
{
    if (a) return *reinterpret_cast<const vec<T> *>(p);
    vec<T> r;
#pragma unroll
    for (int j = 0; j < (int)(16 / sizeof(T)); j++) r.v[j] = p[j];
    return r;
}

/* This lane's sum over the tile x[0 .. len) (and y) of a team of G lanes
 * (lane < G): virtual vectors lane, lane + G, ..., the k-th into
 * accumulator k % kUnroll, kUnroll of them loaded at a time. */
template <class P>
__device__ __forceinline__ typename P::S tile_lane(const typename P::E *__restrict__ x,
                                                   const typename P::E *__restrict__ y, size_t len, unsigned lane,
                                                   unsigned G)
{
    typedef typename P::E T;
    typedef typename P::S S;
    constexpr size_t V = 16 / sizeof(T);
    S acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) acc[u] = P::zero();
    const size_t nfull = len / V;
    const bool ax = ((uintptr_t)x & 15) == 0, ay = !P::kTwo || ((uintptr_t)y & 15) == 0;
    size_t v = lane;
    for (; v + (kUnroll - 1) * (size_t)G < nfull; v += kUnroll * (size_t)G) {
        vec<T> xv[kUnroll], yv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            xv[u] = vload(x + (v + u * G) * V, ax);
            if (P::kTwo) yv[u] = vload(y + (v + u * G) * V, ay);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) P::vect(acc[u], xv[u], yv[u]);
    }
    /* (the lane's count of vectors is a multiple of kUnroll here: fewer
     * than kUnroll full ones are left, then maybe the one cut by the end,
     * all at static accumulator indices) */
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
        const size_t vu = v + u * (size_t)G;
        if (vu < nfull) {
            vec<T> yv;
            const vec<T> xv = vload(x + vu * V, ax);
            if (P::kTwo) yv = vload(y + vu * V, ay);
            P::vect(acc[u], xv, yv);
        } else if (vu == nfull) {
            for (size_t e = nfull * V; e < len; e++) P::elem(acc[u], x[e], P::kTwo ? y[e] : x[e]);
        }
    }
    return P::merge(P::merge(acc[0], acc[1]), P::merge(acc[2], acc[3]));
}

/* The xor butterfly of a group of G lanes: every lane ends with the sum. */
template <class P>
__device__ __forceinline__ typename P::S group_sum(typename P::S v, unsigned G)
{
    for (unsigned off = G / 2; off > 0; off /= 2) v = P::merge(v, P::shfl(v, (int)off));
    return v;
}

/* The block's fold of its threads' states (thread 0 gets the result). */
template <class P>
__device__ __forceinline__ typename P::S block_fold(typename P::S a, typename P::S *sw)
{
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    a = group_sum<P>(a, 32);
    if (lane == 0) sw[w] = a;
    __syncthreads();
    if (w == 0) {
        a = lane < kThreads / 32 ? sw[lane] : P::zero();
        a = group_sum<P>(a, 32);
    }
    return a;
}

/*
 * The tiles of x[0 .. len) (and y) of `tile` elements, a warp a tile, their
 * sums to part[tbase + t].  With fold: then the last block to arrive folds
 * part[0 .. ntot), merged after *carry (if not NULL), into *acc_out and/or
 * P::fin of it into *dst (each may be NULL; dst may be mapped host memory;
 * a NaN as the canonical one).
 */
template <class P>
__global__ void __launch_bounds__(kThreads)
k_tiles(const typename P::E *__restrict__ x, const typename P::E *__restrict__ y, size_t len, size_t tile,
        size_t tbase, size_t ntot, int fold, typename P::S *__restrict__ part, unsigned *__restrict__ ctr,
        typename P::S *acc_out, typename P::R *dst, const typename P::S *carry, done_sig ds)
{
    typedef typename P::S S;
    __shared__ S sw[kThreads / 32];
    __shared__ int s_last;
    const unsigned lane = threadIdx.x & 31;
    const size_t nt = (len + tile - 1) / tile;
    for (size_t t = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32; t < nt; t += (size_t)gridDim.x * (kThreads / 32)) {
        const size_t b = t * tile, l = len - b < tile ? len - b : tile;
        const S v = group_sum<P>(tile_lane<P>(x + b, P::kTwo ? y + b : x + b, l, lane, 32), 32);
        if (lane == 0) {
            part[tbase + t] = v;
            __threadfence();
        }
    }
    if (!fold) return;
    __syncthreads();
    if (threadIdx.x == 0) s_last = last_arrival(ctr, gridDim.x);
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    S a = P::zero();
    for (size_t j = threadIdx.x; j < ntot; j += kThreads) a = P::merge(a, P::ld(part + j));
    a = block_fold<P>(a, sw);
    if (threadIdx.x == 0) {
        if (carry) a = P::merge(*carry, a);
        if (acc_out) *acc_out = a;
        if (dst) *dst = canon(P::fin(a));
        *ctr = 0;
        if (ds.word) signal_done(ds);
    }
}

template <class P>
wr_status run_tiles(strand &S, const void *x, const void *y, size_t len, size_t tile, size_t tbase, size_t ntot,
                    bool fold, void *acc_out, void *dst, const void *carry, done_sig ds, char *err)
{
    static occupancy_cache occ;
    auto k = k_tiles<P>;
    const int per_sm = occ.get(S, (const void *)k);
    const size_t nt = (len + tile - 1) / tile, wpb = kThreads / 32;
    size_t g = (nt + wpb - 1) / wpb;
    const size_t fill = (size_t)S.sms * (size_t)per_sm;
    if (g > fill) g = fill;
    if (g < 1) g = 1;
    typedef typename P::E T;
    k<<<(unsigned)g, kThreads, 0, S.st>>>((const T *)x, (const T *)y, len, tile, tbase, ntot, fold ? 1 : 0,
                                          (typename P::S *)S.part, S.ctr, (typename P::S *)acc_out,
                                          (typename P::R *)dst, (const typename P::S *)carry, ds);
    WRCUDA_CKLAUNCH("dot kernel launch");
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
 * Rows of one tile that start on 16-byte boundaries in both inputs (x and
 * y aligned, cols * sizeof(T) a multiple of 16): a group of G lanes a row,
 * the lane's k-th vector of a row into accumulator k % kUnroll (the order
 * above), with the loads of R rows (short rows) or of Q = 4 / R vectors of
 * one row hoisted before any is used: 8 independent 16-byte loads in
 * flight per thread (4 of x, 4 of y), as segments.cu's k_rows_group.
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
            v = group_sum<dot_pol<T>>(v, G);
            const size_t s = s0 + j * per_warp;
            if (s < rows && gl == 0) out[s] = canon(v);
        }
    }
    grid_done(ds, dcount);
}

/* Any rows of one tile, a group of G lanes a row. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
k_dotrows_any(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t rows, size_t cols,
              unsigned G, done_sig ds, unsigned *__restrict__ dcount)
{
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    for (size_t s0 = warp * per_warp; s0 < rows; s0 += nwarps * per_warp) {
        const size_t s = s0 + lane / G;
        const bool valid = s < rows;
        const size_t b = valid ? s * cols : 0, l = valid ? cols : 0;
        T v = tile_lane<dot_pol<T>>(x + b, y + b, l, gl, G);
        v = group_sum<dot_pol<T>>(v, G);
        if (valid && gl == 0) out[s] = canon(v);
    }
    grid_done(ds, dcount);
}

/* Rows of several tiles (of `tile`), a block a row: the row's tiles in
 * rounds of kThreads, a warp a tile, thread j adding tile j of each round
 * as the rounds come: the fold of the order above. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
k_dotrows_block(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t rows, size_t cols,
                size_t tile, done_sig ds, unsigned *__restrict__ dcount)
{
    typedef dot_pol<T> P;
    __shared__ T sp[kThreads];
    __shared__ T sw[kThreads / 32];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32;
    const size_t nt = (cols + tile - 1) / tile;
    for (size_t s = blockIdx.x; s < rows; s += gridDim.x) {
        const T *xr = x + s * cols, *yr = y + s * cols;
        T a = P::zero();
        for (size_t r0 = 0; r0 < nt; r0 += kThreads) {
            for (size_t t = r0 + w; t < r0 + kThreads && t < nt; t += kThreads / 32) {
                const size_t b = t * tile, l = cols - b < tile ? cols - b : tile;
                const T v = group_sum<P>(tile_lane<P>(xr + b, yr + b, l, lane, 32), 32);
                if (lane == 0) sp[t - r0] = v;
            }
            __syncthreads();
            if (r0 + threadIdx.x < nt) a = P::merge(a, sp[threadIdx.x]);
            __syncthreads();
        }
        a = block_fold<P>(a, sw);
        if (threadIdx.x == 0) out[s] = canon(a);
        __syncthreads();            /* sw is reused by the next row */
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
    static occupancy_cache occ;
    auto k = k_dotrows_group<T, R>;
    const int per_sm = occ.get(S, (const void *)k);
    /* as many warps as make whole rounds of batches, at most one wave (segments.cu's launch_rows) */
    const size_t wpb = kThreads / 32;
    const size_t units = (rows + (32 / G) * R - 1) / ((32 / G) * R);
    const size_t most = (size_t)S.sms * (size_t)per_sm * wpb;
    const size_t rounds = (units + most - 1) / most;
    const size_t warps = (units + rounds - 1) / rounds;
    k<<<(unsigned)((warps + wpb - 1) / wpb), kThreads, 0, S.st>>>(x, y, out, rows, nv, G, m, ds, S.ctr + 3);
    WRCUDA_CKLAUNCH("row dot kernel launch");
    return WR_SUCCESS;
}

template <typename T>
wr_status dot_rows_run(strand &S, const void *xv, const void *yv, void *outv, size_t rows, size_t cols, done_sig ds,
                       char *err)
{
    const T *x = (const T *)xv, *y = (const T *)yv;
    T *out = (T *)outv;
    constexpr size_t V = 16 / sizeof(T);
    const size_t tile = tile_of<dot_pol<T>>(cols);
    if (cols <= tile) {
        const size_t nvirt = (cols + V - 1) / V;
        const unsigned G = pow2_upto32(nvirt);
        if (cols % V == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0) {
            const size_t nv = cols / V;
            const unsigned m = (unsigned)((nv + G - 1) / G);    /* vectors a lane */
            if (m <= 1) return launch_dotrows_group<T, 4>(S, x, y, out, rows, nv, G, m, ds, err);
            if (m <= 2) return launch_dotrows_group<T, 2>(S, x, y, out, rows, nv, G, m, ds, err);
            return launch_dotrows_group<T, 1>(S, x, y, out, rows, nv, G, m, ds, err);
        }
        return launch_grid(S, k_dotrows_any<T>, (rows * G + kThreads - 1) / kThreads, (size_t)S.sms * 16,
                           "row dot kernel launch", err, x, y, out, rows, cols, G, ds, S.ctr + 3);
    }
    return launch_grid(S, k_dotrows_block<T>, rows, (size_t)S.sms * 16, "row dot kernel launch", err, x, y, out,
                       rows, cols, tile, ds, S.ctr + 3);
}

/* Dispatch of the linear operations. */
template <template <class> class F, typename... A>
wr_status by_op(blas_op op, wr_type t, A... a)
{
    switch (op) {
    case BLAS_DOT: return t == WR_FLOAT ? F<dot_pol<float>>::run(a...) : F<dot_pol<double>>::run(a...);
    case BLAS_ASUM: return t == WR_FLOAT ? F<asum_pol<float>>::run(a...) : F<asum_pol<double>>::run(a...);
    case BLAS_NRM2: return t == WR_FLOAT ? F<nrm2f_pol>::run(a...) : F<nrm2d_pol>::run(a...);
    }
    return WR_ERR_UNSUPPORTED;
}

template <class P> struct tile_fn {
    static wr_status run(size_t n, size_t *tile) { *tile = tile_of<P>(n); return WR_SUCCESS; }
};
template <class P> struct pass_fn {
    static wr_status run(strand &S, const void *x, const void *y, size_t len, size_t tile, size_t tbase, size_t ntot,
                         bool fold, void *acc_out, void *dst, const void *carry, done_sig ds, char *err)
    {
        return run_tiles<P>(S, x, y, len, tile, tbase, ntot, fold, acc_out, dst, carry, ds, err);
    }
};

} /* namespace */

/* ---- launchers ------------------------------------------------------------------------------ */

size_t blas_tile(blas_op op, wr_type t, size_t n)
{
    size_t tile = 4096;
    (void)by_op<tile_fn>(op, t, n, &tile);
    return tile;
}

wr_status launch_blas(strand &S, blas_op op, const void *x, const void *y, size_t len, wr_type t, size_t tile,
                      size_t tbase, size_t ntot, bool fold, void *acc_out, void *dst, const void *carry, done_sig ds,
                      char *err)
{
    return by_op<pass_fn>(op, t, S, x, y, len, tile, tbase, ntot, fold, acc_out, dst, carry, ds, err);
}

wr_status launch_dot_rows(strand &S, const void *x, const void *y, void *out, size_t rows, size_t cols, wr_type t,
                          done_sig ds, char *err)
{
    if (t == WR_FLOAT) return dot_rows_run<float>(S, x, y, out, rows, cols, ds, err);
    return dot_rows_run<double>(S, x, y, out, rows, cols, ds, err);
}

const void *probe_dot() { return (const void *)k_tiles<dot_pol<float>>; }

} /* namespace wrcuda */

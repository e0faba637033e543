/*
 * segments.cu -- reduce_rows and reduce_segments.
 *
 * A row of a row-major matrix is a segment whose offsets are implicit
 * (s * cols), so both operations run on the same two kernels; the mapping is
 * chosen by the (average) segment length, counted in 16-byte vectors:
 *  - short (up to 16 vectors a lane): a group of G = 1..32 lanes per segment,
 *    G the power of two nearest the vector count, reduced with an xor
 *    butterfly inside the group (sub-warp shuffles);
 *  - longer: a block per segment, or, when there are too few segments to fill
 *    the device, K blocks per segment whose partials the last one to arrive
 *    folds in order (no floating atomics: the same bits on every run).
 * Empty segments give the identity.
 */
#include <atomic>
#include <type_traits>
#include "kernel_common.cuh"

namespace wrcuda {

namespace {

/* Where segment s begins (relative to the `in` the kernel gets). */
struct segsrc {
    const size_t *off;      /* nseg + 1 offsets, or NULL for rows */
    size_t off_base;        /* subtracted from every offset */
    size_t cols;            /* row length when off == NULL */
    __device__ __forceinline__ size_t begin(size_t s) const { return off ? off[s] - off_base : s * cols; }
};

/* Offsets that nobody has checked (k_seg_checked): the first and the last,
 * and where a decrease is noted. */
struct segcheck {
    size_t lo, hi;                    /* off[0], off[nseg] */
    unsigned long long *bad;          /* bad_word(): ~s of the least decreasing s, by atomicMax */
    unsigned *flag;                   /* mapped host word, set to 1 as well (NULL: none) */
};

/* Segment s = [b, e) of unchecked offsets (Check): a decrease is noted (by
 * the thread `noter` of those that read the segment), and a segment that is
 * not in order inside [lo, hi] is taken as empty, so that no element outside
 * in[lo .. hi) is read whatever the offsets.  (Offsets that never decrease
 * keep every segment inside: a segment outside means that some pair
 * decreases, and that pair is noted.) */
template <bool Check>
__device__ __forceinline__ void seg_bounds(const segcheck &ck, size_t s, size_t &b, size_t &e, bool noter)
{
    if constexpr (Check) {
        if (e < b && noter) {
            atomicMax(ck.bad, ~(unsigned long long)s);
            if (ck.flag) *(volatile unsigned *)ck.flag = 1u;
        }
        if (!(ck.lo <= b && b <= e && e <= ck.hi)) b = e = ck.lo;
    }
}

/* A group of G lanes per segment (the body of k_seg_group). */
template <wr_op O, typename T, bool Check>
__device__ __forceinline__ void seg_group(const T *__restrict__ in, T *__restrict__ out, size_t nseg,
                                          segsrc src, unsigned G, const segcheck &ck)
{
    typedef warpred::op<O, T> F;
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    /* the loop is uniform over the warp (the shuffles need every lane) */
    for (size_t s0 = warp * per_warp; s0 < nseg; s0 += nwarps * per_warp) {
        const size_t s = s0 + lane / G;
        const bool valid = s < nseg;
        size_t b = 0, e = 0;
        if (valid) {
            b = src.begin(s);
            e = src.begin(s + 1);
            seg_bounds<Check>(ck, s, b, e, gl == 0);
        }
        T v = team_reduce<F>(in, b, e, gl, G);
        for (unsigned off = G / 2; off > 0; off /= 2)
            v = F::combine(v, __shfl_xor_sync(warpred::full_mask, v, off));
        if (valid && gl == 0) out[s] = b == e ? F::identity() : v;
    }
}

template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads)
k_seg_group(const T *__restrict__ in, T *__restrict__ out, size_t nseg, segsrc src, unsigned G,
            done_sig ds, unsigned *__restrict__ dcount)
{
    seg_group<O, T, false>(in, out, nseg, src, G, segcheck{});
    grid_done(ds, dcount);
}

/*
 * Rows that start on 16-byte boundaries (in aligned, cols * sizeof(T) a
 * multiple of 16) with the same group mapping as k_seg_group, but with the
 * loads of R rows (short rows: R passes of the warp) or of up to 8 vectors
 * of one row hoisted before any of them is reduced: 8 independent 16-byte
 * loads in flight per thread instead of one (short rows) or four.  By
 * Little's law an SM streaming its ~16 B/cycle share of HBM with ~1000+
 * cycles of latency needs 16-32 KB in flight; k_seg_group on 128-byte rows
 * kept one vector per thread between a load and the shuffles and stores
 * that follow, and its tail (fewer warps left) far less.
 * The lane's k-th vector of a row goes to accumulator k % kUnroll, in
 * increasing k, and the accumulators and the group combine as in
 * team_reduce and k_seg_group: every row gets the same bits as there.
 * S = 8 / R vector loads per row per batch; only R == 1 (long rows, m > 8
 * vectors a lane) takes more than one batch per row.
 */
template <wr_op O, typename T, int R>
__global__ void __launch_bounds__(kThreads)
k_rows_group(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t nv, unsigned G, unsigned m,
             done_sig ds, unsigned *__restrict__ dcount)
{
    typedef warpred::op<O, T> F;
    constexpr int S = 8 / R;
    const unsigned lane = threadIdx.x & 31, gl = lane & (G - 1);
    const size_t per_warp = 32 / G;
    const size_t warp = ((size_t)blockIdx.x * kThreads + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * (kThreads / 32);
    const vec<T> *__restrict__ vp = reinterpret_cast<const vec<T> *>(in);
    /* the loop is uniform over the warp (the shuffles need every lane) */
    for (size_t r0 = warp * per_warp * R; r0 < rows; r0 += nwarps * per_warp * R) {
        const size_t s0 = r0 + lane / G;
        T acc[R][kUnroll];
#pragma unroll
        for (int j = 0; j < R; j++)
#pragma unroll
            for (int u = 0; u < kUnroll; u++) acc[j][u] = F::neutral();
        for (unsigned c = 0; c < m; c += S) {
            vec<T> x[R][S];
#pragma unroll
            for (int j = 0; j < R; j++)
#pragma unroll
                for (int q = 0; q < S; q++) {
                    const size_t s = s0 + j * per_warp, vi = gl + (size_t)(c + q) * G;
                    if (s < rows && vi < nv) x[j][q] = vp[s * nv + vi];
                }
#pragma unroll
            for (int j = 0; j < R; j++)
#pragma unroll
                for (int q = 0; q < S; q++) {
                    const size_t s = s0 + j * per_warp, vi = gl + (size_t)(c + q) * G;
                    /* (c + q) % kUnroll == q % kUnroll: c is a multiple of S, and S of kUnroll when c > 0 */
                    if (s < rows && vi < nv) acc[j][q % kUnroll] = F::combine(acc[j][q % kUnroll], vreduce<F>(x[j][q]));
                }
        }
#pragma unroll
        for (int j = 0; j < R; j++) {
            T v = F::combine(F::combine(acc[j][0], acc[j][1]), F::combine(acc[j][2], acc[j][3]));
            for (unsigned off = G / 2; off > 0; off /= 2)
                v = F::combine(v, __shfl_xor_sync(warpred::full_mask, v, off));
            const size_t s = s0 + j * per_warp;
            if (s < rows && gl == 0) out[s] = v;
        }
    }
    grid_done(ds, dcount);
}

/* Blocks of k_seg_block asked to fit on a multiprocessor: 8 (32 registers)
 * where that costs no spill, as for k_reduce (reduce.cu).  Left free,
 * ptxas gives the float sum 34 registers, 6 blocks a multiprocessor, and
 * long rows run a few percent slower (bench/tools/rows_time).  Asked for 8,
 * the 8-byte types and the integer PROD/MIN/MAX spill (ptxas -v, sm_90:
 * 4-104 bytes), so those are left free. */
template <wr_op O, typename T> constexpr int seg_min_blocks()
{
    return sizeof(T) == 4 && (std::is_floating_point<T>::value || !(O == WR_PROD || O == WR_MIN || O == WR_MAX))
        ? 8 : 1;
}

/* K blocks per segment (the body of k_seg_block; bs and s_last: the
 * block's shared memory). */
template <wr_op O, typename T, bool Check>
__device__ __forceinline__ void seg_block(const T *__restrict__ in, T *__restrict__ out, size_t nseg, segsrc src,
                                          unsigned K, T *__restrict__ part, unsigned *__restrict__ segctr,
                                          const segcheck &ck, warpred::block_storage<T> &bs, int &s_last)
{
    typedef warpred::op<O, T> F;
    for (size_t w = blockIdx.x; w < nseg * K; w += gridDim.x) {
        const size_t s = w / K, k = w % K;
        size_t b = src.begin(s), e = src.begin(s + 1);
        seg_bounds<Check>(ck, s, b, e, threadIdx.x == 0 && k == 0);
        const size_t len = e - b;
        /* piece k of K, balanced: the first len % K pieces get one more */
        const size_t pb = b + (len / K) * k + (k < len % K ? k : len % K);
        const size_t pe = pb + len / K + (k < len % K ? 1 : 0);
        T r = team_reduce<F>(in, pb, pe, threadIdx.x, kThreads);
        r = warpred::block_reduce<O>(r, bs);
        if (K == 1) {
            if (threadIdx.x == 0) out[s] = len ? r : F::identity();
        } else {
            if (threadIdx.x == 0) {
                part[w] = r;
                s_last = last_arrival(segctr + s, K);
            }
            __syncthreads();
            if (s_last && threadIdx.x == 0) {
                __threadfence();
                T a = ld_volatile(part + s * K);
                for (size_t q = 1; q < K; q++) a = F::combine(a, ld_volatile(part + s * K + q));
                out[s] = len ? a : F::identity();
                segctr[s] = 0;
            }
        }
        __syncthreads();            /* bs and s_last are reused by the next segment */
    }
}

template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads, fit_blocks(seg_min_blocks<O, T>()))
k_seg_block(const T *__restrict__ in, T *__restrict__ out, size_t nseg, segsrc src, unsigned K,
            T *__restrict__ part, unsigned *__restrict__ segctr, done_sig ds, unsigned *__restrict__ dcount)
{
    __shared__ warpred::block_storage<T> bs;
    __shared__ int s_last;
    seg_block<O, T, false>(in, out, nseg, src, K, part, segctr, segcheck{}, bs, s_last);
    grid_done(ds, dcount);
}

/* How segments are mapped: G > 0, a group of G lanes (1-32) each; else K
 * blocks each. */
struct seg_map { unsigned G, K; };

__host__ __device__ __forceinline__ unsigned next_pow2(size_t x)
{
    unsigned g = 1;
    while (g < x && g < 32) g *= 2;
    return g;
}

/* The mapping for segments of avg_len elements of T on average, with at most
 * kbound blocks a segment (seg_kbound()).  The host (seg_fn) and
 * k_seg_checked (on the device, from offsets the host has not read) both
 * choose here, so that they choose alike: the bits of a float result depend
 * on the mapping.  (The arithmetic is a few IEEE divisions and an addition,
 * the same on both sides.) */
template <typename T>
__host__ __device__ __forceinline__ seg_map seg_mapping(double avg_len, unsigned kbound)
{
    const double vecs = avg_len / (16 / sizeof(T));
    seg_map m = { 0u, 1u };
    if (vecs <= 16.0 * 32) {
        /* a group of lanes per segment, about one vector per lane per pass */
        m.G = next_pow2((size_t)(vecs + 0.999));
        return m;
    }
    if (kbound > 1) {
        const size_t most = (size_t)(vecs / (kThreads * kUnroll)) + 1;   /* each block a full pass at least */
        m.K = kbound < most ? kbound : (unsigned)most;
    }
    return m;
}

/* The most blocks a segment gets, from the count alone: when the segments
 * are too few to fill the device (4 blocks a multiprocessor), enough to,
 * at most 1024, and no more partials than part_cap holds. */
unsigned seg_kbound(size_t nseg, int sms, size_t part_cap)
{
    const size_t want = (size_t)sms * 4;
    if (nseg >= want) return 1;
    size_t K = (want + nseg - 1) / nseg;
    if (K > 1024) K = 1024;
    if (K > part_cap / 16 / nseg) K = part_cap / 16 / nseg;
    return K < 1 ? 1u : (unsigned)K;
}

/* Segments over offsets nobody has checked: the mapping is chosen here, from
 * off[0] and off[nseg], as seg_fn chooses it on the host from the checked
 * ones (the grid covers either mapping: extra blocks find no work), and
 * every segment's offsets are checked (seg_bounds). */
template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads)
k_seg_checked(const T *__restrict__ in, T *__restrict__ out, size_t nseg, const size_t *off, unsigned kbound,
              T *__restrict__ part, unsigned *__restrict__ segctr, unsigned long long *bad, unsigned *flag,
              done_sig ds, unsigned *__restrict__ dcount)
{
    __shared__ warpred::block_storage<T> bs;
    __shared__ int s_last;
    segcheck ck;
    ck.lo = off[0];
    ck.hi = off[nseg];
    ck.bad = bad;
    ck.flag = flag;
    const segsrc src = { off, 0, 0 };
    const seg_map m = seg_mapping<T>((double)(ck.hi >= ck.lo ? ck.hi - ck.lo : 0) / (double)nseg, kbound);
    if (m.G) seg_group<O, T, true>(in, out, nseg, src, m.G, ck);       /* (uniform over the grid) */
    else seg_block<O, T, true>(in, out, nseg, src, m.K, part, segctr, ck, bs, s_last);
    grid_done(ds, dcount);
}

/* The summary of check_offsets (wr_backend.h) for offsets the host cannot
 * read: one pass over them on the device instead of a copy of 8 bytes per
 * segment to the host.  A thread's first decrease is its least, so it stops
 * there; the blocks' least go through grid_fold (MIN). */
__global__ void __launch_bounds__(kThreads)
k_check_offsets(const size_t *__restrict__ off, size_t nseg, uint64_t *__restrict__ part,
                unsigned *__restrict__ ctr, size_t *dst)
{
    __shared__ warpred::block_storage<uint64_t> bs;
    __shared__ int s_last;
    uint64_t bad = UINT64_MAX;
    for (size_t s = (size_t)blockIdx.x * kThreads + threadIdx.x; s < nseg; s += (size_t)gridDim.x * kThreads)
        if (off[s + 1] < off[s]) {
            bad = s;
            break;
        }
    bad = warpred::block_reduce<WR_MIN>(bad, bs);
    if (gridDim.x > 1 && !grid_fold<WR_MIN>(bad, part, ctr, bs, s_last)) return;
    if (threadIdx.x == 0) {
        dst[0] = off[0];
        dst[1] = off[nseg];
        dst[2] = (size_t)bad;
        if (gridDim.x > 1) *ctr = 0;
    }
}

template <wr_op O, typename T>
__global__ void k_seg_fix(T *res, size_t m, const T *carry_in, T *carry_out, int first_cont, int last_cont)
{
    typedef warpred::op<O, T> F;
    if (first_cont) res[0] = F::combine(*carry_in, res[0]);
    if (last_cont) *carry_out = res[m - 1];
}

/* Launch k_rows_group<O, T, R>: as many warps as make whole rounds of
 * batches, at most one wave (every block resident), so that no warp is left
 * with one more batch than most others while the rest of the device idles. */
template <wr_op O, typename T, int R>
wr_status launch_rows(strand &S, const T *in, T *out, size_t rows, size_t nv, unsigned G, unsigned m, done_sig ds,
                      char *err)
{
    static occupancy_cache occ;
    auto k = k_rows_group<O, T, R>;
    const int per_sm = occ.get(S, (const void *)k);
    const size_t wpb = kThreads / 32;
    const size_t units = (rows + (32 / G) * R - 1) / ((32 / G) * R);      /* warp batches */
    const size_t most = (size_t)S.sms * (size_t)per_sm * wpb;
    const size_t rounds = (units + most - 1) / most;
    const size_t warps = (units + rounds - 1) / rounds;
    k<<<(unsigned)((warps + wpb - 1) / wpb), kThreads, 0, S.st>>>(in, out, rows, nv, G, m, ds, S.ctr + 3);
    WRCUDA_CKLAUNCH("row kernel launch");
    return WR_SUCCESS;
}

struct seg_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t nseg, const size_t *off, size_t off_base,
                         size_t cols, double avg_len, done_sig ds, char *err)
    {
        const seg_map mp = seg_mapping<T>(avg_len, seg_kbound(nseg, S.sms, S.part_cap));
        segsrc src = { off, off_base, cols };
        if (mp.G) {
            const unsigned G = mp.G;
            if (!off && cols > 0 && (cols * sizeof(T)) % 16 == 0 && ((uintptr_t)in & 15) == 0) {
                const size_t nv = cols / (16 / sizeof(T));
                const unsigned m = (unsigned)((nv + G - 1) / G);       /* vectors a lane, <= 16 */
                const T *i = (const T *)in;
                T *o = (T *)out;
                if (m <= 1) return launch_rows<O, T, 8>(S, i, o, nseg, nv, G, m, ds, err);
                if (m <= 2) return launch_rows<O, T, 4>(S, i, o, nseg, nv, G, m, ds, err);
                if (m <= 4) return launch_rows<O, T, 2>(S, i, o, nseg, nv, G, m, ds, err);
                return launch_rows<O, T, 1>(S, i, o, nseg, nv, G, m, ds, err);
            }
            size_t blocks = (nseg * G + kThreads - 1) / kThreads;
            const size_t cap = (size_t)S.sms * 16;
            if (blocks > cap) blocks = cap;
            k_seg_group<O, T><<<(unsigned)blocks, kThreads, 0, S.st>>>((const T *)in, (T *)out, nseg, src, G, ds,
                                                                  S.ctr + 3);
            WRCUDA_CKLAUNCH("segment kernel launch");
            return WR_SUCCESS;
        }
        /* a block per segment; several when the segments are too few to fill the device */
        const size_t K = mp.K;
        if (K > 1) {
            size_t cap = S.segctr_cap * 4;
            const wr_status st = grow(S, S.segctr, &cap, nseg * 4, true, "segment counters", err);
            S.segctr_cap = cap / 4;
            if (st != WR_SUCCESS) return st;
        }
        size_t blocks = nseg * K;
        const size_t cap = (size_t)S.sms * 16;
        if (blocks > cap) blocks = cap;
        k_seg_block<O, T><<<(unsigned)blocks, kThreads, 0, S.st>>>((const T *)in, (T *)out, nseg, src,
                                                                  (unsigned)K, (T *)S.part, S.segctr, ds, S.ctr + 3);
        WRCUDA_CKLAUNCH("segment kernel launch");
        return WR_SUCCESS;
    }
};

struct checked_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t nseg, const size_t *off, unsigned *flag,
                         done_sig ds, char *err)
    {
        const unsigned kb = seg_kbound(nseg, S.sms, S.part_cap);
        if (kb > 1) {                     /* (reserved on a strand that may not grow: reserve_segments) */
            size_t cap = S.segctr_cap * 4;
            const wr_status st = grow(S, S.segctr, &cap, nseg * 4, true, "segment counters", err);
            S.segctr_cap = cap / 4;
            if (st != WR_SUCCESS) return st;
        }
        /* blocks enough for either mapping: groups of up to 32 lanes, or kb
         * blocks a segment; at most 16 a multiprocessor, as seg_fn */
        const size_t cap = (size_t)S.sms * 16;
        size_t blocks = nseg >= cap * (kThreads / 32) ? cap : (nseg * 32 + kThreads - 1) / kThreads;
        if (kb > 1 && nseg * kb > blocks) blocks = nseg * kb;
        if (blocks > cap) blocks = cap;
        k_seg_checked<O, T><<<(unsigned)blocks, kThreads, 0, S.st>>>((const T *)in, (T *)out, nseg, off, kb,
                                                                     (T *)S.part, S.segctr, bad_word(S), flag,
                                                                     ds, S.ctr + 3);
        WRCUDA_CKLAUNCH("segment kernel launch");
        return WR_SUCCESS;
    }
};

struct fix_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, void *res, size_t m, const void *carry_in, void *carry_out,
                         int first_cont, int last_cont, char *err)
    {
        k_seg_fix<O, T><<<1, 1, 0, S.st>>>((T *)res, m, (const T *)carry_in, (T *)carry_out, first_cont, last_cont);
        WRCUDA_CKLAUNCH("segment fix-up launch");
        return WR_SUCCESS;
    }
};

} /* namespace */

wr_status launch_segments(strand &S, const void *in, void *out, size_t nseg, const size_t *off,
                          size_t off_base, size_t cols, double avg_len, wr_type t, wr_op o, done_sig ds,
                          char *err)
{
    return dispatch<seg_fn>(t, o, S, in, out, nseg, off, off_base, cols, avg_len, ds, err);
}

wr_status launch_segments_checked(strand &S, const void *in, void *out, size_t nseg, const size_t *off,
                                  unsigned *flag, wr_type t, wr_op o, done_sig ds, char *err)
{
    return dispatch<checked_fn>(t, o, S, in, out, nseg, off, flag, ds, err);
}

wr_status reserve_segments(strand &S, char *err)
{
    /* several blocks a segment (and a counter each) only for fewer than
     * 4 x SMs segments (seg_kbound) */
    size_t cap = S.segctr_cap * 4;
    const wr_status st = grow(S, S.segctr, &cap, (size_t)S.sms * 4 * 4, true, "segment counters", err);
    S.segctr_cap = cap / 4;
    return st;
}

wr_status launch_check_offsets(strand &S, const size_t *off, size_t nseg, size_t *dst, char *err)
{
    static_assert(sizeof(size_t) == sizeof(uint64_t), "offsets are 64-bit");
    static occupancy_cache occ;
    const int per_sm = occ.get(S, (const void *)k_check_offsets);
    size_t g = (nseg + kThreads - 1) / kThreads;
    const size_t fill = (size_t)S.sms * (size_t)per_sm;
    if (g > fill) g = fill;
    if (g > kMaxGrid) g = kMaxGrid;
    k_check_offsets<<<(unsigned)g, kThreads, 0, S.st>>>(off, nseg, (uint64_t *)S.part, S.ctr, dst);
    WRCUDA_CKLAUNCH("offsets check launch");
    return WR_SUCCESS;
}

wr_status launch_seg_fix(strand &S, void *res, size_t m, const void *carry_in, void *carry_out,
                         int first_cont, int last_cont, wr_type t, wr_op o, char *err)
{
    return dispatch<fix_fn>(t, o, S, res, m, carry_in, carry_out, first_cont, last_cont, err);
}

const void *probe_segments() { return (const void *)k_check_offsets; }

} /* namespace wrcuda */

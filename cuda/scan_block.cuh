/*
 * scan_block.cuh -- the single-pass scan with one block per tile, for code
 * below sm_80 and for devices whose shared memory cannot hold the stages of
 * the warp-specialised kernel (not installed).
 *
 * scan_kernel.cuh's kernel needs mbarriers and cp.async (sm_80) and a block
 * of P::stages tiles of shared memory (about 200 KB with the shipped policy:
 * an H100, H200 or B200 has 227 KB a block, an A100 163 KB, an RTX or L40S
 * 99 KB, a Turing 64 KB).  Where it cannot run, the launcher of
 * scan_kernel.cuh comes here (strand::scan_by_block, chosen when the
 * context opens: check_code() in arch.cu, with scan.cu's scan_stages_ok()).
 *
 * The same bits.  A scan's float results are defined by the tile
 * decomposition and the order of every combination in it (the left fold of
 * scan_tile_state.cuh across tiles; inside a tile, each squad thread's fold
 * of its `items` consecutive elements, the warps' exclusive scan of those
 * folds and the bases from the warp totals, in the carry type).  This
 * kernel keeps all of it: the tile shape of the same policy P (tile_shape:
 * P::squad warps of threads, each owning the same run of elements), the
 * same look_back(), and per thread the arithmetic of scan_agent's reduce
 * and scan squads, step for step (the comments below name the step each
 * mirrors).  What differs does not touch a value: plain loads instead of
 * asynchronous copies, __syncthreads instead of mbarriers, one thread doing
 * both squads' work on its run of elements, a look-back that reads 32 *
 * P::lb_k1 descriptors a pass (the result does not depend on where it
 * stops).  tests/cuda/test_cuda_determinism compares the two kernels bit
 * for bit (WARPRED_CUDA_SCAN_KERNEL=block forces this one).
 *
 * A block: the P::squad warps of a squad (128 threads), the tile staged in
 * static shared memory (32 KB, under the 48 KB that needs no opt-in), the
 * swizzled layout of scan_tile.cuh.  Per tile: thread 0 draws a ticket,
 * the block copies the tile in, each thread folds its run, warp 0 publishes
 * the aggregate and looks back while every thread scans its run, then the
 * outputs go into the stage and out with coalesced 16-byte stores.
 *
 * Forward progress.  Tiles are handed out in order by an atomic ticket, and
 * a block draws its next ticket only when its tile is done, so a block
 * holds at most one tile without a prefix, and only running blocks hold
 * tiles.  The smallest tile m without a published prefix is held by a
 * running block; every tile before m has its prefix out (so its
 * descriptor carries this launch's epoch), and the block's previous tile
 * is one of them: m's look-back ends, m's prefix goes out, and by induction
 * every tile finishes, whatever the scheduling and however many blocks are
 * resident.  Nothing waits for a tile drawn later.
 */
#ifndef WRCUDA_SCAN_BLOCK_CUH
#define WRCUDA_SCAN_BLOCK_CUH

#include "scan_kernel.cuh"

namespace wrcuda {

/* P's tile, always in the swizzled layout of scan_tile.cuh (no bulk
 * copies: plain loads fill the stage). */
template <class P> struct block_tile_policy : P {
    static constexpr bool bulk_copies = false;
};

/* The work of one block of k_scan_block for (O, T) under policy P. */
template <wr_op O, typename T, class P> struct scan_block_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef block_tile_policy<P> Q;
    typedef tile_shape<Q, T> W;
    typedef scan_args<O, T> args;
    static constexpr int kSquad = P::squad;
    static constexpr int threads = W::squad_threads;
    static constexpr int kLbK = P::lb_k1;
    static constexpr unsigned kChunks = (unsigned)(W::elems / W::V);   /* 16-byte chunks of a tile */
    static_assert(kChunks % threads == 0, "whole chunks per thread");

    struct smem {
        vec<T> stage[kChunks];               /* the tile (swizzled) */
        C wsum[kSquad];                      /* the warps' totals */
        C pre;                               /* the tile's exclusive prefix ... */
        int have;                            /* ... if there is one (not tile 0 without carry) */
        unsigned t;                          /* the tile, or kEnd */
        unsigned long long ep;               /* this launch's epoch << 2 (scan_tile_state.cuh) */
        C lbv[32 * kLbK];                    /* look-back: the values read, nearest first */
    };

    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, smem &sm)
    {
        constexpr int I = W::items, V = W::V;
        const int r = (int)threadIdx.x, w = r / 32, lane = r & 31;
        T *stage = reinterpret_cast<T *>(sm.stage);
        long long prev = -1;                 /* warp 0: the block's previous tile */
        C pmine = C();                       /* warp 0: its inclusive prefix */
        /* this launch's epoch: one past the last launch's, read before this
         * block's first ticket (as scan_agent does) */
        if (r == 0) sm.ep = (ld_volatile(a.epoch) + 1) << 2;
        __syncthreads();
        const unsigned long long ep = sm.ep;
        for (;;) {
            if (r == 0) {
                /* the first ticket past the end stops the block; the last
                 * block to stop puts both counters back for the next launch
                 * (as scan_agent's load warp does) */
                unsigned t = atomicAdd(tctr, 1u);
                if (t >= a.tiles) {
                    t = kEnd;
                    if (last_arrival(tctr + 1, gridDim.x)) {
                        atomicExch(tctr, 0u);
                        atomicExch(tctr + 1, 0u);
                        /* every block read the epoch before its count: the
                         * next launch (a graph's replay too) takes the next */
                        __threadfence();
                        *(volatile unsigned long long *)a.epoch = ep >> 2;
                    }
                }
                sm.t = t;
            }
            __syncthreads();                 /* the ticket; the last tile's outputs are out of the stage */
            const unsigned t = sm.t;
            if (t == kEnd) break;
            const size_t base = (size_t)t * W::elems;
            const bool whole = a.vec_ok && base + W::elems <= a.n;
            const unsigned lim = (unsigned)(a.n - base < W::elems ? a.n - base : W::elems);

            /* in: 16-byte loads, all in flight before the first store */
            if (whole) {
                constexpr unsigned per = kChunks / threads;
                const vec<T> *src = reinterpret_cast<const vec<T> *>(a.in + base);
                vec<T> v[per];
#pragma unroll
                for (unsigned k = 0; k < per; k++) v[k] = src[r + k * threads];
#pragma unroll
                for (unsigned k = 0; k < per; k++) sm.stage[swz<W>(r + k * threads)] = v[k];
            } else {
                for (unsigned e = r; e < lim; e += threads) stage[swz<W>(e / V) * V + e % V] = a.in[base + e];
            }
            __syncthreads();                 /* the tile is in */

            /* scan_agent::reduce: the thread's fold, the warps' exclusive
             * scan of the folds in the carry type, the warp totals */
            T x[I];
            read_items<Q>(x, stage, r);
            past_n<Q, F>(x, a.n, t, r);
            T f = x[0];
#pragma unroll
            for (int k = 1; k < I; k++) f = F::combine(f, x[k]);
            C wt;
            const C wex = warpred::warp_exclusive_scan<O>((C)f, wt);
            if (lane == 0) sm.wsum[w] = wt;
            __syncthreads();                 /* the warp totals */
            /* the thread's base inside the tile (scan_agent's tex) */
            C b = sm.wsum[0];
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = FC::combine(b, sm.wsum[v]);
            const C tex = w == 0 ? wex : (lane == 0 ? b : FC::combine(b, wex));

            if (w == 0) {
                /* the aggregate (every lane of warp 0 folds it, as thread 0
                 * of the reduce squad does), published at once */
                C agg = sm.wsum[0];
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = FC::combine(agg, sm.wsum[v]);
                if (lane == 0) {
                    if (t == 0) {
                        const C incl = a.carry_in ? FC::combine(*a.carry_in, agg) : agg;
                        st_desc(a.d, to_bits(incl), ep | kPrefix);
                    } else {
                        st_desc(a.d + t, to_bits(agg), ep | kAggregate);
                    }
                }
                /* scan_agent::look_back_warp: the tile's exclusive prefix,
                 * back to the block's previous tile, whose prefix it knows */
                bool have = true;
                C pre = C();
                if (t == 0) {
                    have = a.carry_in != nullptr;
                    if (have) pre = *a.carry_in;
                } else {
                    pre = look_back<O, C, kLbK, no_hooks>((long long)t, prev, [&]() -> C { return pmine; }, ep,
                                                          a.d, sm.lbv, lane);
                }
                const C incl = have ? FC::combine(pre, agg) : agg;
                if (lane == 0) {
                    if (t > 0) st_desc(a.d + t, to_bits(incl), ep | kPrefix);
                    if (a.carry_out && t == a.tiles - 1) *a.carry_out = incl;
                    sm.pre = pre;
                    sm.have = have;
                }
                prev = t;
                pmine = incl;
            }

            /* scan_agent::scan: the thread's run scanned (meanwhile) ... */
#pragma unroll
            for (int k = 1; k < I; k++) x[k] = F::combine(x[k - 1], x[k]);
            __syncthreads();                 /* the prefix */
            const C pre = sm.pre;
            const bool have = sm.have != 0;
            /* ... from its base; thread 0 has no earlier threads in the tile */
            const out_map<O, T> m(r == 0 ? pre : (have ? FC::combine(pre, tex) : tex), r != 0 || have);
            if (m.wide()) put_outputs<Q>(stage, r, x, a.exclusive, m.base(), [&](T v) { return m.wide_out(v); });
            else          put_outputs<Q>(stage, r, x, a.exclusive, m.base(), [&](T v) { return m(v); });
            __syncthreads();                 /* the outputs are in the stage */
            /* out: consecutive threads, consecutive chunks */
            if (whole) {
                vec<T> *dst = reinterpret_cast<vec<T> *>(a.out + base);
#pragma unroll 4
                for (unsigned c = r; c < kChunks; c += threads) dst[c] = sm.stage[swz<W>(c)];
            } else {
                for (unsigned e = r; e < lim; e += threads) a.out[base + e] = stage[swz<W>(e / V) * V + e % V];
            }
        }
        grid_done(a.ds, a.dcount);
    }
};

template <wr_op O, typename T, class P>
static __global__ void __launch_bounds__(scan_block_agent<O, T, P>::threads)
k_scan_block(scan_args<O, T> a, unsigned *tctr)
{
    __shared__ typename scan_block_agent<O, T, P>::smem sm;
    scan_block_agent<O, T, P>::run(a, tctr, sm);
}

/* The launch of k_scan_block, for scan_launcher::run (scan_kernel.cuh),
 * which has checked the tile count and made the descriptors and the epoch
 * ready. */
template <wr_op O, typename T, class P>
wr_status scan_block_launch(strand &S, const void *in, void *out, size_t n, size_t tiles, int exclusive, int vec_ok,
                            const void *carry_in, void *carry_out, done_sig ds, char *err)
{
    typedef scan_block_agent<O, T, P> A;
    typedef typename A::C C;
    auto kp = k_scan_block<O, T, P>;
    static std::atomic<int> per_sm{0};
    if (per_sm.load(std::memory_order_relaxed) == 0) {
        int nb = 0;
        WRCUDA_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kp, A::threads, 0));
        per_sm.store(nb > 0 ? nb : 1);
    }
    /* resident blocks are enough (tiles are drawn, not assigned); at most
     * 65536, as scan_launcher's tickets assume */
    size_t grid = (size_t)(S.sms > 0 ? S.sms : 1) * (size_t)per_sm.load(std::memory_order_relaxed);
    if (S.scan_blocks && S.scan_blocks < grid) grid = S.scan_blocks;
    if (grid > tiles) grid = tiles;
    if (grid > 0x10000u) grid = 0x10000u;
    scan_args<O, T> a;
    a.in = (const T *)in;
    a.out = (T *)out;
    a.n = n;
    a.tiles = tiles;
    a.exclusive = exclusive;
    a.vec_ok = vec_ok;
    a.epoch = epoch_word(S);
    a.d = (tdesc *)S.sblk;
    a.carry_in = (const C *)carry_in;
    a.carry_out = (C *)carry_out;
    a.ds = ds;
    a.dcount = S.ctr + 3;
    kp<<<(unsigned)grid, A::threads, 0, S.st>>>(a, S.ctr + 1);  /* tickets [1], blocks done [2] */
    WRCUDA_CKLAUNCH("scan kernel launch");
    return WR_SUCCESS;
}

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_BLOCK_CUH */

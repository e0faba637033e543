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
 * context opens: check_code() in arch.cu, with scan.cu's scan_stages_ok();
 * or the opt-in refused).
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

/* The work of one block of k_scan_block for (O, T) under policy P and the
 * scan operator Op (scan_op.cuh).  An operator with head marks has warp 0
 * mark the tile's heads while the tile comes in. */
template <wr_op O, typename T, class P, template <wr_op, typename, int> class Op = plain_op>
struct scan_block_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef block_tile_policy<P> Q;
    typedef tile_shape<Q, T> W;
    typedef Op<O, T, W::items> K;
    typedef typename K::args args;
    typedef typename K::V fold_t;      /* a fold, in the carry type (and a head flag) */
    typedef typename K::heads heads;
    static constexpr bool kMarks = K::kMarks;
    static constexpr unsigned kWords = (unsigned)(W::elems / 32);  /* head mark words of the tile */
    static constexpr int kSquad = P::squad;
    static constexpr int threads = W::squad_threads;
    static constexpr int kLbK = P::lb_k1;
    static constexpr unsigned kChunks = (unsigned)(W::elems / W::V);   /* 16-byte chunks of a tile */
    static_assert(kChunks % threads == 0, "whole chunks per thread");

    struct smem : K::template stage_marks<1, kWords> {
        vec<T> stage[kChunks];               /* the tile (swizzled) */
        fold_t wsum[kSquad];                      /* the warps' totals */
        C pre;                               /* the tile's exclusive prefix ... */
        int have;                            /* ... if there is one (not tile 0 without carry) */
        unsigned t;                          /* the tile, or kEnd */
        unsigned long long ep;               /* this launch's epoch << 2 (scan_tile_state.cuh) */
        C lbv[32 * kLbK];                    /* look-back: the values read, nearest first */
    };

    /* the kernel's body: the extent (an operator may read it on the
     * device, and find nothing to do), then the tiles */
    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, smem &sm)
    {
        if constexpr (!kMarks) {
            tiles(a, a, tctr, sm);
        } else {
            typename K::extent e;
            if (!K::read_extent(a, e)) {
                grid_done(a.ds, a.dcount);
                return;
            }
            tiles(e, a, tctr, sm);
        }
    }

    template <class E>
    static __device__ __forceinline__ void tiles(const E &e, const args &a, unsigned *tctr, smem &sm)
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
                if (t >= e.tiles) {
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
            const bool whole = e.vec_ok && base + W::elems <= e.n;
            const unsigned lim = (unsigned)(e.n - base < W::elems ? e.n - base : W::elems);

            /* in: 16-byte loads, all in flight before the first store */
            if (whole) {
                constexpr unsigned per = kChunks / threads;
                const vec<T> *src = reinterpret_cast<const vec<T> *>(e.in + base);
                vec<T> v[per];
#pragma unroll
                for (unsigned k = 0; k < per; k++) v[k] = src[r + k * threads];
#pragma unroll
                for (unsigned k = 0; k < per; k++) sm.stage[swz<W>(r + k * threads)] = v[k];
            } else {
                for (unsigned q = r; q < lim; q += threads) stage[swz<W>(q / V) * V + q % V] = e.in[base + q];
            }
            if constexpr (kMarks)
                if (w == 0) K::template mark_heads<P>(sm.hb[0], e, a, t, lane);
            __syncthreads();                 /* the tile (and its heads) are in */

            /* scan_agent::reduce: the thread's fold, the warps' exclusive
             * scan of the folds in the carry type, the warp totals */
            T x[I];
            read_items<Q>(x, stage, r);
            past_n<Q, F>(x, e.n, t, r);
            heads h;
            if constexpr (kMarks) K::read_heads(h, sm.hb[0], r);
            fold_t wt;
            const fold_t wex = K::warp_exclusive(K::fold(x, h), wt, lane);
            if (lane == 0) sm.wsum[w] = wt;
            __syncthreads();                 /* the warp totals */
            /* the thread's base inside the tile (scan_agent's tex) */
            fold_t b = sm.wsum[0];
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = K::cat(b, sm.wsum[v]);
            const fold_t tex = w == 0 ? wex : (lane == 0 ? b : K::cat(b, wex));

            if (w == 0) {
                /* the aggregate (every lane of warp 0 folds it, as thread 0
                 * of the reduce squad does), published at once */
                fold_t agg = sm.wsum[0];
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = K::cat(agg, sm.wsum[v]);
                if (lane == 0) {
                    /* a tile with a head: its aggregate is its prefix */
                    if (t == 0) {
                        const C incl = a.carry_in && !K::flag(agg) ? FC::combine(*a.carry_in, K::value(agg))
                                                                    : K::value(agg);
                        st_desc(a.d, to_bits(incl), ep | kPrefix);
                    } else {
                        st_desc(a.d + t, to_bits(K::value(agg)), ep | (K::flag(agg) ? kPrefix : kAggregate));
                    }
                }
                /* scan_agent::look_back_warp: the tile's exclusive prefix,
                 * back to the block's previous tile, whose prefix it knows */
                /* (a tile whose first element is a head needs none) */
                bool need = true;
                if constexpr (kMarks) need = (sm.hb[0][0] & 1u) == 0;
                bool have = true;
                C pre = C();
                if (t == 0) {
                    have = a.carry_in != nullptr;
                    if (have) pre = *a.carry_in;
                } else if (!need) {
                    have = false;
                } else {
                    pre = look_back<O, C, kLbK, no_hooks>((long long)t, prev, [&]() -> C { return pmine; }, ep,
                                                          a.d, sm.lbv, lane);
                }
                const C incl = have && !K::flag(agg) ? FC::combine(pre, K::value(agg)) : K::value(agg);
                if (lane == 0) {
                    if (t > 0 && !K::flag(agg)) st_desc(a.d + t, to_bits(incl), ep | kPrefix);
                    if (a.carry_out && t == e.tiles - 1) *a.carry_out = incl;
                    sm.pre = pre;
                    sm.have = have;
                }
                prev = t;
                pmine = incl;
            }

            /* scan_agent::scan: the thread's run scanned (meanwhile) ... */
            K::run(x, h);
            __syncthreads();                 /* the prefix */
            const C pre = sm.pre;
            const bool have = sm.have != 0;
            /* ... from its base */
            const out_map<O, T> m(K::base(r, pre, have, tex), r != 0 || have);
            if (m.wide()) K::template put<Q>(stage, r, x, h, a.exclusive, m.base(), [&](T v) { return m.wide_out(v); });
            else          K::template put<Q>(stage, r, x, h, a.exclusive, m.base(), [&](T v) { return m(v); });
            __syncthreads();                 /* the outputs are in the stage */
            /* out: consecutive threads, consecutive chunks */
            if (whole) {
                vec<T> *dst = reinterpret_cast<vec<T> *>(e.out + base);
#pragma unroll 4
                for (unsigned c = r; c < kChunks; c += threads) dst[c] = sm.stage[swz<W>(c)];
            } else {
                for (unsigned q = r; q < lim; q += threads) e.out[base + q] = stage[swz<W>(q / V) * V + q % V];
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

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_BLOCK_CUH */

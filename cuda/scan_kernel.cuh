/*
 * scan_kernel.cuh -- the warp-specialised single-pass scan kernel and its
 * launcher, for a policy P and hooks H (scan_policy.cuh); not installed.
 * scan.cu instantiates it for the plugin.
 *
 * Tiles are P::tile_bytes.  A few blocks per multiprocessor (P::min_blocks;
 * one by default) stay resident and draw tile numbers from an atomic
 * counter, so every smaller tile is held by a running block (no deadlock
 * whatever the scheduling).  A block is split into squads that each do one
 * step for every tile the block owns, so that no step waits for another's
 * latency (the idea of CCCL's "warpspeed" scan for sm_100,
 * cub/device/dispatch/kernels/scan_warpspeed.cuh, here on sm_90 with bulk
 * copies and mbarriers but without cluster launch control):
 *   load     (1 warp):  waits for a free stage, takes the ticket it drew a
 *                       tile earlier, copies the tile in (bulk copies on
 *                       sm_90, cp.async below);
 *   reduce   (P::squad warps): the tile's per-thread folds, their exclusive
 *                       scan (the bases the scan squad starts from) and the
 *                       tile's aggregate, published at once;
 *   look-back (look_back_shape::warps, taking the tiles in turn): the
 *                       exclusive prefix of the tile from the predecessors'
 *                       descriptors (scan_tile_state.cuh), back to the
 *                       block's own previous tile, whose prefix the block
 *                       knows; then the tile's inclusive prefix, published;
 *   scan     (P::squad warps): each thread's elements scanned from its base,
 *                       written back into the stage, then copied out with
 *                       coalesced 16-byte stores; the stage is free again.
 * The stages form a ring of P::stages tiles; each has five mbarriers: tkb
 * (its tile number is in tk), full (the tile has landed), red (bases and
 * aggregate are in shared memory), pre (its prefix is), empty (its outputs
 * are out).  The tile number has a barrier of its own, arrived on by the
 * thread that wrote it: full completes with the copies' asynchronous
 * arrivals, and compute-sanitizer's racecheck does not take those as
 * ordering the write of tk before its reads.  With two look-back warps, a
 * chain of two more barriers per iteration (lbs, lpre) hands the block's
 * previous tile and its prefix from one to the other.
 *
 * Deadlock: a block holds at most P::ahead tickets it has not staged, and
 * they wait only for its stages, which hold earlier tiles; every staged tile
 * is loaded and reduced without waiting for any other tile, and its
 * aggregate is published.  The smallest tile m without a published prefix
 * belongs to a running block whose earlier tiles all have theirs; their
 * outputs go out, so m is staged (if it was not yet); the look-back warp of
 * m's iteration is done with its earlier ones (they hold earlier tiles), the
 * block's previous tile has its prefix, and every descriptor between them is
 * out: m's prefix is published, and every tile finishes.
 */
#ifndef WRCUDA_SCAN_KERNEL_CUH
#define WRCUDA_SCAN_KERNEL_CUH

#include <atomic>
#include "kernel_common.cuh"
#include "ptx_async.cuh"
#include "scan_policy.cuh"
#include "scan_tile.cuh"
#include "scan_tile_state.cuh"
#include "scan_op.cuh"
#include "scan_launch.cuh"

namespace wrcuda {

/* The work of one block for (O, T) under policy P, hooks H and the scan
 * operator Op (scan_op.cuh): its shared memory, its roles and the kernel's
 * body.  An operator with head marks (kMarks) adds a heads warp, which
 * marks each stage's heads once its tile number is out. */
template <wr_op O, typename T, class P, class H, template <wr_op, typename, int> class Op = plain_op>
struct scan_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef tile_shape<P, T> W;
    typedef Op<O, T, W::items> K;
    typedef typename K::args args;
    typedef typename K::V fold_t;      /* a fold, in the carry type (and a head flag) */
    typedef typename K::heads heads;
    static constexpr int kStages = P::stages;
    static constexpr int kSquad = P::squad;
    static constexpr int kSquadThreads = W::squad_threads;
    static constexpr int kAhead = P::ahead;
    static constexpr int kLb = look_back_shape<P, C>::warps;
    static constexpr int kLbK = look_back_shape<P, C>::k;
    static constexpr unsigned kLbDelay = look_back_shape<P, C>::delay;
    static constexpr bool kBulk = bulk_loads<P>();
    /* Entries of the look-back chain.  Iteration it + kChain cannot start
     * before iteration it + 1 has its prefix (its tile needs a stage freed
     * by the scan squad, which takes the iterations in order), so a warp
     * waiting for entry it's phase never sees the entry's next phase
     * instead. */
    static constexpr int kChain = 2 * kStages;
    static constexpr bool kMarks = K::kMarks;
    static constexpr unsigned kWords = (unsigned)(W::elems / 32);  /* head mark words of a stage */
    /* reduce and scan squads, look-back warps, the load warp (and the heads warp) */
    static constexpr int threads = (2 * kSquad + kLb + 1 + (kMarks ? 1 : 0)) * 32;
    /* dynamic shared memory: the stages, from a P::align boundary */
    static constexpr size_t dyn_bytes = (size_t)kStages * P::tile_bytes + P::align;

    /* the shared memory of a block besides its stages (the operator's
     * head marks first, if it has any) */
    struct smem : K::template stage_marks<kStages, kWords> {
        unsigned long long ep;                /* this launch's epoch << 2 (scan_tile_state.cuh) */
        unsigned long long tkb[kStages], full[kStages], red[kStages], pre[kStages], empty[kStages];
        unsigned tk[kStages];                 /* the stage's tile, or kEnd */
        fold_t tex[kStages][kSquadThreads];        /* each scan thread's base inside the tile */
        fold_t wsum[kStages][kSquad];              /* the reduce warps' totals */
        fold_t agg[kStages];                       /* the tile's aggregate */
        C pre_v[kStages];                     /* the tile's exclusive prefix */
        int pre_have[kStages];                /* ... if there is one (not tile 0 without carry) */
        /* the chain between look-back warps (kLb > 1), by iteration %
         * kChain: the tile (ltk, once lbs completes) and its inclusive
         * prefix (lincl, once lpre completes) */
        unsigned long long lbs[kChain], lpre[kChain];
        long long ltk[kChain];
        C lincl[kChain];
        C lbv[kLb][32 * kLbK];                /* look-back: the values read, nearest first */
    };

    /* The tile of iteration it's stage, once the load warp has written it
     * (kEnd: no more), and once the tile has landed. */
    static __device__ __forceinline__ unsigned tile_of(smem &sm, unsigned it)
    {
        const int s = (int)(it % kStages);
        const unsigned ph = (it / kStages) & 1u;
        mbar_wait(&sm.tkb[s], ph);
        const unsigned t = sm.tk[s];
        if (t != kEnd) mbar_wait(&sm.full[s], ph);
        return t;
    }

    /* a barrier among the threads of one squad (ids 1 and 2) */
    static __device__ __forceinline__ void squad_sync(int id) { bar_sync<kSquadThreads>(id); }

    /* this thread's heads in iteration it's stage, once the heads warp has
     * marked them (an operator without marks: nothing) */
    static __device__ __forceinline__ void heads_of(heads &h, smem &sm, unsigned it, int r)
    {
        if constexpr (kMarks) {
            const int s = (int)(it % kStages);
            mbar_wait(&sm.hds[s], (it / kStages) & 1u);
            K::read_heads(h, sm.hb[s], r);
        }
    }

    /* whether iteration it's tile needs the prefix of the tiles before it
     * (not when its first element is a head) */
    static __device__ __forceinline__ bool needs_prefix(smem &sm, unsigned it)
    {
        if constexpr (kMarks) {
            const int s = (int)(it % kStages);
            mbar_wait(&sm.hds[s], (it / kStages) & 1u);
            return (sm.hb[s][0] & 1u) == 0;
        } else {
            return true;
        }
    }

    /* Load warp, over the extent e (the plain scan's: its arguments). */
    template <class E>
    static __device__ __forceinline__ void load(const E &e, const args &a, T *stages, smem &sm, unsigned *tctr,
                                                int lane)
    {
        /* Tickets are drawn kAhead tiles ahead, so that their round trips
         * overlap the wait for a free stage and the copies of the tiles
         * before (a block then holds up to kAhead tiles it has not staged
         * yet: its stages hold earlier tiles, which finish without them, so
         * the deadlock argument above holds).  A block draws until it gets a
         * ticket past the end (it may hold kAhead of those); the last block
         * to stop drawing puts both counters back for the next launch.  The
         * first ticket past the end is followed by kLb - 1 end marks, so
         * that every look-back warp meets one. */
        unsigned q[kAhead];                       /* lane 0's: the tickets drawn, by iteration % kAhead */
        unsigned long long qt[kAhead];            /* when they were drawn (for the hooks) */
        bool drawing = true;
        /* Draw ticket k.  The atomic's value is looked at only when it is
         * taken, kAhead iterations later, and each of q[] is a register of
         * its own (the loop below is unrolled by kAhead), so that the warp
         * does not wait for the round trip (about 2 us under a full memory
         * load) in between: shifting the tickets along an array, or checking
         * the value as soon as drawn, would. */
        auto draw = [&](int k) {
            if constexpr (H::enabled) qt[k] = H::now();
            q[k] = lane == 0 && drawing ? atomicAdd(tctr, 1u) : kEnd;
        };
        /* ticket k; the first one past the end stops the drawing */
        auto take = [&](int k) -> unsigned {
            const unsigned t = q[k];
            if constexpr (H::enabled)
                if (lane == 0 && t < e.tiles) H::note(t, kSDrawn, qt[k]);
            if (lane == 0 && drawing && t >= e.tiles) {
                drawing = false;
                if (last_arrival(tctr + 1, gridDim.x)) {  /* this block's draws come before its count */
                    atomicExch(tctr, 0u);
                    atomicExch(tctr + 1, 0u);
                    /* Every block read the epoch word before its count
                     * (run()), so none of this launch sees the new value:
                     * the next launch on these descriptors uses the next
                     * epoch.  On the device, not passed in by the host,
                     * so that a CUDA graph replaying the launch gets a new
                     * epoch each time. */
                    __threadfence();
                    *(volatile unsigned long long *)a.epoch = sm.ep >> 2;
                }
            }
            return __shfl_sync(warpred::full_mask, t, 0);
        };
#pragma unroll
        for (int k = 0; k < kAhead; k++) draw(k);
        int ends = 0;
        for (unsigned it0 = 0;; it0 += kAhead) {
#pragma unroll
            for (int k = 0; k < kAhead; k++) {
                const unsigned it = it0 + (unsigned)k;
                const int s = (int)(it % kStages);
                unsigned t = kEnd;
                [[maybe_unused]] const unsigned long long t_it = H::now();
                if (ends == 0) {
                    t = take(k);
                    draw(k);                      /* the ticket of iteration it + kAhead */
                }
                if constexpr (H::enabled)
                    if (lane == 0 && t < e.tiles) {
                        H::note(t, kSLoadIter, t_it);
                        H::stamp(t, kSTicket);
                    }
                const bool end = t >= e.tiles;
                ends += end;
                mbar_wait(&sm.empty[s], ((it / kStages) & 1u) ^ 1u);
                if (lane == 0) {
                    sm.tk[s] = end ? kEnd : t;
                    mbar_arrive(&sm.tkb[s]);
                }
                if constexpr (H::enabled)
                    if (lane == 0 && !end) H::stamp(t, kSStaged);
                const bool whole = !end && e.vec_ok && ((size_t)t + 1) * W::elems <= e.n;
                T *stage = stages + (size_t)s * W::elems;
                if (kBulk && whole) {
                    /* lane 0 expects the tile's bytes, then copies it in four
                     * bulk copies; the other lanes just arrive */
                    if (lane == 0) {
                        constexpr unsigned part = (unsigned)(P::tile_bytes / 4);
                        mbar_arrive_expect_tx(&sm.full[s], (unsigned)P::tile_bytes);
                        const char *src = reinterpret_cast<const char *>(e.in + (size_t)t * W::elems);
#pragma unroll
                        for (int k = 0; k < 4; k++)
                            bulk_copy(reinterpret_cast<char *>(stage) + k * part, src + k * part, part, &sm.full[s]);
                    } else {
                        mbar_arrive(&sm.full[s]);
                    }
                } else {
                    if (!end) stage_tile<P>(stage, e.in, e.n, t, whole, lane);
                }
                if (kBulk) {
                    if (!whole) {
                        cp_async_wait_all();
                        mbar_arrive(&sm.full[s]);
                    }
                } else if (whole) {
                    mbar_arrive_cp_async(&sm.full[s]);   /* when this lane's copies have landed */
                    mbar_arrive(&sm.full[s]);
                } else {
                    /* A partial or unaligned tile (rare) waits for its copies
                     * here, so that full completes by ordinary arrivals,
                     * which order the neutral fill's stores before the reads
                     * (compute-sanitizer's racecheck does not take the
                     * copies' asynchronous arrivals as doing so). */
                    cp_async_wait_all();
                    mbar_arrive(&sm.full[s]);
                    mbar_arrive(&sm.full[s]);
                }
                if (ends == kLb) return;
            }
        }
    }

    /* Reduce squad (r = 0..kSquadThreads-1): per-thread folds, their
     * exclusive scan in the carry type, the aggregate. */
    template <class E>
    static __device__ __forceinline__ void reduce(const E &e, const args &a, T *stages, smem &sm, int r)
    {
        constexpr int I = W::items;
        const int w = r / 32, lane = r & 31;
        const unsigned long long ep = sm.ep;
        for (unsigned it = 0;; it++) {
            const int s = (int)(it % kStages);
            const unsigned t = tile_of(sm, it);
            if (t == kEnd) return;
            if constexpr (H::enabled)
                if (r == 0) H::stamp(t, kSLanded);
            T x[I];
            read_items<P>(x, stages + (size_t)s * W::elems, r);
            past_n<P, F>(x, e.n, t, r);
            heads h;
            heads_of(h, sm, it, r);
            fold_t wt;
            const fold_t wex = K::warp_exclusive(K::fold(x, h), wt, lane);
            if (lane == 0) sm.wsum[s][w] = wt;
            squad_sync(1);
            /* base of this thread: the earlier warps' totals, in order, then
             * the earlier lanes' (warp 0 lane 0 has none: the scan squad
             * knows) */
            fold_t b = sm.wsum[s][0];
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = K::cat(b, sm.wsum[s][v]);
            sm.tex[s][r] = w == 0 ? wex : (lane == 0 ? b : K::cat(b, wex));
            if (r == 0) {
                fold_t agg = sm.wsum[s][0];
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = K::cat(agg, sm.wsum[s][v]);
                sm.agg[s] = agg;
                /* a tile with a head: its aggregate is its prefix */
                if (t == 0) {
                    const C incl = a.carry_in && !K::flag(agg) ? FC::combine(*a.carry_in, K::value(agg))
                                                                : K::value(agg);
                    st_desc(a.d, to_bits(incl), ep | kPrefix);
                } else {
                    st_desc(a.d + t, to_bits(K::value(agg)), ep | (K::flag(agg) ? kPrefix : kAggregate));
                }
                if constexpr (H::enabled) H::stamp(t, kSAggregate);
            }
            mbar_arrive(&sm.red[s]);
        }
    }

    /* Look-back warp k of kLb: the tiles of the iterations k, k + kLb, ...
     * The block's previous tile and its prefix come from the warp itself
     * (kLb = 1) or from the warp that had the previous iteration, through
     * shared memory: its tile number as soon as it starts (ltk, ordered by
     * `lbs`), its prefix when it has it (lincl, ordered by `lpre`), so that
     * a warp's global reads for its tile overlap the other warps' work on
     * theirs.  Waiting on the previous iteration's barriers is safe: their
     * next phases need this iteration's prefix first. */
    template <class E>
    static __device__ __forceinline__ void look_back_warp(const E &e, const args &a, smem &sm, int k, int lane)
    {
        long long mine = -1;                      /* this warp's previous tile */
        C pmine = C();                            /* its inclusive prefix */
        const unsigned long long ep = sm.ep;
        for (unsigned it = (unsigned)k;; it += kLb) {
            const int s = (int)(it % kStages);
            const unsigned ph = (it / kStages) & 1u;
            const unsigned t = tile_of(sm, it);   /* (starting before the tile lands gains nothing) */
            if (t == kEnd) return;
            const int c = (int)(it % kChain), cq = (int)((it - 1) % kChain);
            const unsigned phq = ((it - 1) / kChain) & 1u;  /* the previous iteration's */
            long long prev = mine;
            if (kLb > 1) {
                if (it > 0) {
                    mbar_wait(&sm.lbs[cq], phq);
                    prev = sm.ltk[cq];
                }
                if (lane == 0) sm.ltk[c] = t;
                mbar_arrive(&sm.lbs[c]);
            }
            /* (a tile whose first element is a head needs no look-back) */
            const bool need = needs_prefix(sm, it);
            if (kLbDelay > 0 && t > 0 && need) {
                const unsigned long long t0 = globaltimer_ns();
                while (globaltimer_ns() - t0 < kLbDelay) __nanosleep(32);
            }
            if constexpr (H::enabled)
                if (lane == 0) {
                    H::stamp(t, kSLbStart);
                    H::note(t, kSBlock, blockIdx.x);
                    H::note(t, kSPrev, prev);
                    H::stamp(t, kSPrevPrefix);
                }
            bool have = true;
            C pre = C();
            if (t == 0) {
                have = a.carry_in != nullptr;
                if (have) pre = *a.carry_in;
            } else if (!need) {
                have = false;
            } else {
                auto pprev = [&]() -> C {
                    if (kLb == 1 || it == 0) return pmine;
                    mbar_wait(&sm.lpre[cq], phq);
                    return sm.lincl[cq];
                };
                pre = look_back<O, C, kLbK, H>((long long)t, prev, pprev, ep, a.d, sm.lbv[k], lane);
            }
            mbar_wait(&sm.red[s], ph);
            /* (a tile with a head published its aggregate as its prefix) */
            const C incl = have && !K::flag(sm.agg[s]) ? FC::combine(pre, K::value(sm.agg[s])) : K::value(sm.agg[s]);
            if (lane == 0) {
                if (t > 0 && !K::flag(sm.agg[s]))
                    st_desc(a.d + t, to_bits(incl), ep | kPrefix);  /* (tile 0: the reduce squad) */
                if (a.carry_out && t == e.tiles - 1) *a.carry_out = incl;
                sm.pre_v[s] = pre;
                sm.pre_have[s] = have;
                if (kLb > 1) sm.lincl[c] = incl;
                if constexpr (H::enabled) {
                    const unsigned long long now = H::now();
                    H::note(t, kSPrefixOut, now);
                    if (t == 0) H::note(0, kSAnswered, now);   /* tile 0 has no look-back */
                }
            }
            /* every lane arrives, after its own reads of tk and agg (lane 0
             * also after its writes), so that each read is ordered before the
             * stage's next tile number and aggregate by a barrier of its own,
             * not by the warp's convergence (racecheck reported the tk write
             * against a tile_of() read now and then when lane 0 arrived for
             * the warp) */
            mbar_arrive(&sm.pre[s]);
            if (kLb > 1) mbar_arrive(&sm.lpre[c]);
            mine = t;
            pmine = incl;
        }
    }

    /* Scan squad (r = 0..kSquadThreads-1). */
    template <class E>
    static __device__ __forceinline__ void scan(const E &e, const args &a, T *stages, smem &sm, int r)
    {
        constexpr int I = W::items, V = W::V;
        for (unsigned it = 0;; it++) {
            const int s = (int)(it % kStages);
            const unsigned ph = (it / kStages) & 1u;
            const unsigned t = tile_of(sm, it);
            if (t == kEnd) return;
            T *stage = stages + (size_t)s * W::elems;
            T x[I];
            read_items<P>(x, stage, r);
            heads h;
            heads_of(h, sm, it, r);
            K::run(x, h);
            mbar_wait(&sm.red[s], ph);
            const fold_t tex = sm.tex[s][r];
            if constexpr (H::enabled)
                if (r == 0) H::stamp(t, kSScanWait);
            mbar_wait(&sm.pre[s], ph);
            const C pre = sm.pre_v[s];
            const bool have = sm.pre_have[s] != 0;
            const out_map<O, T> m(K::base(r, pre, have, tex), r != 0 || have);
            /* (one branch per thread and tile, not per element) */
            if (m.wide()) K::template put<P>(stage, r, x, h, a.exclusive, m.base(), [&](T v) { return m.wide_out(v); });
            else          K::template put<P>(stage, r, x, h, a.exclusive, m.base(), [&](T v) { return m(v); });
            squad_sync(2);
            /* copy out: consecutive threads, consecutive chunks */
            const size_t base = (size_t)t * W::elems;
            if (e.vec_ok && base + W::elems <= e.n) {
                vec<T> *dst = reinterpret_cast<vec<T> *>(e.out + base);
                const vec<T> *vs = reinterpret_cast<const vec<T> *>(stage);
#pragma unroll 4
                for (unsigned c = r; c < W::elems / V; c += kSquadThreads) dst[c] = vs[phys<P, W>(c)];
            } else {
                const unsigned lim = (unsigned)(e.n - base < W::elems ? e.n - base : W::elems);
                for (unsigned q = r; q < lim; q += kSquadThreads) e.out[base + q] = stage[phys<P, W>(q / V) * V + q % V];
            }
            if constexpr (H::enabled)
                if (r == 0) H::stamp(t, kSStored);
            mbar_arrive(&sm.empty[s]);
        }
    }

    /* Heads warp (an operator with marks): each iteration's tile's heads
     * into its stage's marks, once the load warp has its number out. */
    template <class E>
    static __device__ __forceinline__ void mark(const E &e, const args &a, smem &sm, int lane)
    {
        for (unsigned it = 0;; it++) {
            const int s = (int)(it % kStages);
            mbar_wait(&sm.tkb[s], (it / kStages) & 1u);
            const unsigned t = sm.tk[s];
            if (t == kEnd) return;
            K::template mark_heads<P>(sm.hb[s], e, a, t, lane);
            mbar_arrive(&sm.hds[s]);
        }
    }

    /* the kernel's body: the extent (an operator may read it on the
     * device, and find nothing to do), then roles() */
    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, T *stages, smem &sm)
    {
        if constexpr (!kMarks) {
            roles(a, a, tctr, stages, sm);
        } else {
            typename K::extent e;
            if (!K::read_extent(a, e)) {          /* (uniform over the grid) */
                grid_done(a.ds, a.dcount);
                return;
            }
            roles(e, a, tctr, stages, sm);
        }
    }

    /* barriers, then each warp to its role */
    template <class E>
    static __device__ __forceinline__ void roles(const E &e, const args &a, unsigned *tctr, T *stages, smem &sm)
    {
        const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x & 31;
        if (threadIdx.x == 0) {
            /* this launch's epoch: one past the last launch's (the load
             * role's last block stores it); read before the barrier, so
             * before any of this block's draws */
            sm.ep = (ld_volatile(a.epoch) + 1) << 2;
            for (int s = 0; s < kStages; s++) {
                mbar_init(&sm.tkb[s], 1);              /* the load warp's lane 0, with tk */
                mbar_init(&sm.full[s], kBulk ? 32 : 64); /* the load warp's lanes, twice each (bulk copies: once) */
                if constexpr (kMarks) mbar_init(&sm.hds[s], 32);  /* the heads warp's lanes */
                mbar_init(&sm.red[s], kSquadThreads);
                mbar_init(&sm.pre[s], 32);             /* the look-back warp's 32 lanes */
                mbar_init(&sm.empty[s], kSquadThreads);
            }
            for (int c = 0; c < kChain; c++) {
                mbar_init(&sm.lbs[c], 32);             /* a look-back warp's lanes (kLb > 1) */
                mbar_init(&sm.lpre[c], 32);
            }
        }
        __syncthreads();
        if (warp < kSquad) reduce(e, a, stages, sm, (int)threadIdx.x);
        else if (warp < 2 * kSquad) scan(e, a, stages, sm, (int)threadIdx.x - kSquadThreads);
        else if (warp < 2 * kSquad + kLb) look_back_warp(e, a, sm, warp - 2 * kSquad, lane);
        else if constexpr (!kMarks) load(e, a, stages, sm, tctr, lane);
        else if (warp == 2 * kSquad + kLb) load(e, a, stages, sm, tctr, lane);
        else mark(e, a, sm, lane);
        cp_async_wait_all();
        grid_done(a.ds, a.dcount);
    }
};

/* The kernel (static: each translation unit that instantiates it has its
 * own, with the policy and hooks it chose). */
template <wr_op O, typename T, class P, class H>
static __global__ void __launch_bounds__(scan_agent<O, T, P, H>::threads, P::min_blocks)
k_scan(scan_args<O, T> a, unsigned *tctr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    /* no mbarriers or cp.async: never launched on such code (the host runs
     * k_scan_block, scan_block.cuh) */
    __trap();
#else
    typedef scan_agent<O, T, P, H> A;
    extern __shared__ uint4 s_dyn[];              /* P::stages tiles, from a P::align boundary */
    __shared__ typename A::smem sm;
    const unsigned s0 = smem_addr(s_dyn);
    T *stages = reinterpret_cast<T *>(reinterpret_cast<char *>(s_dyn) + (P::align - s0 % P::align) % P::align);
    A::run(a, tctr, stages, sm);
#endif
}

} /* namespace wrcuda */

#include "scan_block.cuh"

namespace wrcuda {

/* The launcher of k_scan<O, T, P, H> (and of k_scan_block, scan_block.cuh,
 * where it cannot run): run<O, T>() as dispatch() (backend.cuh) calls it,
 * with launch_scan()'s arguments but the type and op. */
template <class P, class H> struct scan_launcher {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef scan_agent<O, T, P, H> A;
        const size_t tiles = (n + A::W::elems - 1) / A::W::elems;
        if (!S.fixed || tiles <= S.scap) return one<O, T>(S, in, out, n, exclusive, carry_in, carry_out, ds, err);
        const T *i = (const T *)in;
        T *o = (T *)out;
        return tile_pieces(S, n, A::W::elems, carry_in, carry_out, ds, "scan: no descriptors reserved", err,
                           [&](size_t off, size_t len, const void *cin, void *cout, done_sig d) {
                               return one<O, T>(S, i + off, o + off, len, exclusive, cin, cout, d, err);
                           });
    }

    /* One launch over n elements. */
    template <wr_op O, typename T>
    static wr_status one(strand &S, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef scan_agent<O, T, P, H> A;
        typedef scan_block_agent<O, T, P> B;
        typedef typename A::C C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + A::W::elems - 1) / A::W::elems;
        WRCUDA_TRY(tile_descriptors(S, tiles, "scan: too many tiles", err));
        scan_args<O, T> a;
        a.in = (const T *)in;
        a.out = (T *)out;
        a.n = n;
        a.tiles = tiles;
        a.exclusive = exclusive;
        a.vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        tile_args(a, S, (const C *)carry_in, (C *)carry_out, ds);
        return launch_tile_kernel<A>(S, k_scan<O, T, P, H>, k_scan_block<O, T, P>, B::threads, tiles, a,
                                     "scan kernel launch", err);
    }
};

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_KERNEL_CUH */

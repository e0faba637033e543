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

namespace wrcuda {

constexpr unsigned kEnd = 0xffffffffu;        /* ticket past the last tile */

/* the kernel's arguments */
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

/* The work of one block for (O, T) under policy P and hooks H: its shared
 * memory, its four roles and the kernel's body. */
template <wr_op O, typename T, class P, class H> struct scan_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef tile_shape<P, T> W;
    typedef scan_args<O, T> args;
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
    /* reduce and scan squads, look-back warps, the load warp */
    static constexpr int threads = (2 * kSquad + kLb + 1) * 32;
    /* dynamic shared memory: the stages, from a P::align boundary */
    static constexpr size_t dyn_bytes = (size_t)kStages * P::tile_bytes + P::align;

    /* the shared memory of a block besides its stages */
    struct smem {
        unsigned long long ep;                /* this launch's epoch << 2 (scan_tile_state.cuh) */
        unsigned long long tkb[kStages], full[kStages], red[kStages], pre[kStages], empty[kStages];
        unsigned tk[kStages];                 /* the stage's tile, or kEnd */
        C tex[kStages][kSquadThreads];        /* each scan thread's base inside the tile */
        C wsum[kStages][kSquad];              /* the reduce warps' totals */
        C agg[kStages];                       /* the tile's aggregate */
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

    /* Load warp. */
    static __device__ __forceinline__ void load(const args &a, T *stages, smem &sm, unsigned *tctr, int lane)
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
                if (lane == 0 && t < a.tiles) H::note(t, kSDrawn, qt[k]);
            if (lane == 0 && drawing && t >= a.tiles) {
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
                    if (lane == 0 && t < a.tiles) {
                        H::note(t, kSLoadIter, t_it);
                        H::stamp(t, kSTicket);
                    }
                const bool end = t >= a.tiles;
                ends += end;
                mbar_wait(&sm.empty[s], ((it / kStages) & 1u) ^ 1u);
                if (lane == 0) {
                    sm.tk[s] = end ? kEnd : t;
                    mbar_arrive(&sm.tkb[s]);
                }
                if constexpr (H::enabled)
                    if (lane == 0 && !end) H::stamp(t, kSStaged);
                const bool whole = !end && a.vec_ok && ((size_t)t + 1) * W::elems <= a.n;
                T *stage = stages + (size_t)s * W::elems;
                if (kBulk && whole) {
                    /* lane 0 expects the tile's bytes, then copies it in four
                     * bulk copies; the other lanes just arrive */
                    if (lane == 0) {
                        constexpr unsigned part = (unsigned)(P::tile_bytes / 4);
                        mbar_arrive_expect_tx(&sm.full[s], (unsigned)P::tile_bytes);
                        const char *src = reinterpret_cast<const char *>(a.in + (size_t)t * W::elems);
#pragma unroll
                        for (int k = 0; k < 4; k++)
                            bulk_copy(reinterpret_cast<char *>(stage) + k * part, src + k * part, part, &sm.full[s]);
                    } else {
                        mbar_arrive(&sm.full[s]);
                    }
                } else {
                    if (!end) stage_tile<P>(stage, a.in, a.n, t, whole, lane);
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
    static __device__ __forceinline__ void reduce(const args &a, T *stages, smem &sm, int r)
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
            past_n<P, F>(x, a.n, t, r);
            T f = x[0];
#pragma unroll
            for (int k = 1; k < I; k++) f = F::combine(f, x[k]);
            C wt;
            const C wex = warpred::warp_exclusive_scan<O>((C)f, wt);
            if (lane == 0) sm.wsum[s][w] = wt;
            squad_sync(1);
            /* base of this thread: the earlier warps' totals, in order, then
             * the earlier lanes' (warp 0 lane 0 has none: the scan squad
             * knows) */
            C b = sm.wsum[s][0];
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = FC::combine(b, sm.wsum[s][v]);
            sm.tex[s][r] = w == 0 ? wex : (lane == 0 ? b : FC::combine(b, wex));
            if (r == 0) {
                C agg = sm.wsum[s][0];
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = FC::combine(agg, sm.wsum[s][v]);
                sm.agg[s] = agg;
                if (t == 0) {
                    const C incl = a.carry_in ? FC::combine(*a.carry_in, agg) : agg;
                    st_desc(a.d, to_bits(incl), ep | kPrefix);
                } else {
                    st_desc(a.d + t, to_bits(agg), ep | kAggregate);
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
    static __device__ __forceinline__ void look_back_warp(const args &a, smem &sm, int k, int lane)
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
            if (kLbDelay > 0 && t > 0) {
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
            } else {
                auto pprev = [&]() -> C {
                    if (kLb == 1 || it == 0) return pmine;
                    mbar_wait(&sm.lpre[cq], phq);
                    return sm.lincl[cq];
                };
                pre = look_back<O, C, kLbK, H>((long long)t, prev, pprev, ep, a.d, sm.lbv[k], lane);
            }
            mbar_wait(&sm.red[s], ph);
            const C incl = have ? FC::combine(pre, sm.agg[s]) : sm.agg[s];
            if (lane == 0) {
                if (t > 0) st_desc(a.d + t, to_bits(incl), ep | kPrefix);  /* (tile 0: the reduce squad) */
                if (a.carry_out && t == a.tiles - 1) *a.carry_out = incl;
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
    static __device__ __forceinline__ void scan(const args &a, T *stages, smem &sm, int r)
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
#pragma unroll
            for (int k = 1; k < I; k++) x[k] = F::combine(x[k - 1], x[k]);
            mbar_wait(&sm.red[s], ph);
            const C tex = sm.tex[s][r];
            if constexpr (H::enabled)
                if (r == 0) H::stamp(t, kSScanWait);
            mbar_wait(&sm.pre[s], ph);
            const C pre = sm.pre_v[s];
            const bool have = sm.pre_have[s] != 0;
            /* thread 0 has no earlier threads in the tile */
            const out_map<O, T> m(r == 0 ? pre : (have ? FC::combine(pre, tex) : tex), r != 0 || have);
            /* (one branch per thread and tile, not per element) */
            if (m.wide()) put_outputs<P>(stage, r, x, a.exclusive, m.base(), [&](T v) { return m.wide_out(v); });
            else          put_outputs<P>(stage, r, x, a.exclusive, m.base(), [&](T v) { return m(v); });
            squad_sync(2);
            /* copy out: consecutive threads, consecutive chunks */
            const size_t base = (size_t)t * W::elems;
            if (a.vec_ok && base + W::elems <= a.n) {
                vec<T> *dst = reinterpret_cast<vec<T> *>(a.out + base);
                const vec<T> *vs = reinterpret_cast<const vec<T> *>(stage);
#pragma unroll 4
                for (unsigned c = r; c < W::elems / V; c += kSquadThreads) dst[c] = vs[phys<P, W>(c)];
            } else {
                const unsigned lim = (unsigned)(a.n - base < W::elems ? a.n - base : W::elems);
                for (unsigned e = r; e < lim; e += kSquadThreads) a.out[base + e] = stage[phys<P, W>(e / V) * V + e % V];
            }
            if constexpr (H::enabled)
                if (r == 0) H::stamp(t, kSStored);
            mbar_arrive(&sm.empty[s]);
        }
    }

    /* the kernel's body: barriers, then each warp to its role */
    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, T *stages, smem &sm)
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
        if (warp < kSquad) reduce(a, stages, sm, (int)threadIdx.x);
        else if (warp < 2 * kSquad) scan(a, stages, sm, (int)threadIdx.x - kSquadThreads);
        else if (warp < 2 * kSquad + kLb) look_back_warp(a, sm, warp - 2 * kSquad, lane);
        else load(a, stages, sm, tctr, lane);
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

/* the scan with one block per tile (scan_block.cuh, included below) */
template <wr_op O, typename T, class P>
wr_status scan_block_launch(strand &S, const void *in, void *out, size_t n, size_t tiles, int exclusive, int vec_ok,
                            const void *carry_in, void *carry_out, done_sig ds, char *err);

/* The launcher of k_scan<O, T, P, H>: run<O, T>() as dispatch() (backend.cuh)
 * calls it, with launch_scan()'s arguments but the type and op. */
template <class P, class H> struct scan_launcher {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef scan_agent<O, T, P, H> A;
        const size_t tiles = (n + A::W::elems - 1) / A::W::elems;
        if (!S.fixed || tiles <= S.scap) return one<O, T>(S, in, out, n, exclusive, carry_in, carry_out, ds, err);
        /* Scratch that may not grow (a call queued on a stream, whose
         * descriptors cover the device's memory: only a longer managed
         * array gets here): pieces of S.scap whole tiles, the running prefix
         * carried from one to the next on the device in slots 1 and 2, as
         * the staged scans do (staging.cu), which gives the same bits. */
        if (S.scap == 0) return fail(err, "scan: no descriptors reserved", cudaErrorInvalidValue);
        const size_t step = S.scap * A::W::elems;
        const T *i = (const T *)in;
        T *o = (T *)out;
        for (size_t k = 0, off = 0; off < n; k++, off += step) {
            const size_t len = n - off < step ? n - off : step;
            const bool last = len == n - off;
            const void *cin = k ? (const void *)(S.slot + (1 + (k + 1) % 2) * kSlotBytes) : carry_in;
            void *cout = last ? carry_out : (void *)(S.slot + (1 + k % 2) * kSlotBytes);
            WRCUDA_TRY((one<O, T>(S, i + off, o + off, len, exclusive, cin, cout, last ? ds : kNoDone, err)));
        }
        return WR_SUCCESS;
    }

    /* One launch over n elements. */
    template <wr_op O, typename T>
    static wr_status one(strand &S, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef scan_agent<O, T, P, H> A;
        typedef typename A::C C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + A::W::elems - 1) / A::W::elems;
        /* tickets (tiles + grid of them) are 32-bit */
        if (tiles > 0xffffffffu - 0x10000u) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
        if (tiles > S.scap) {
            /* a new block is zeroed: status 0 is epoch 0, which no launch
             * uses (the first is 1) */
            const size_t cap = tiles + tiles / 4;
            size_t bytes = S.scap ? descriptor_bytes(S.scap) : 0;
            S.scap = 0;                       /* until the new block exists */
            WRCUDA_TRY(grow(S, S.sblk, &bytes, descriptor_bytes(cap), true, "scan descriptors", err));
            S.scap = cap;
        }
        const int vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        if (S.scan_by_block)    /* code below sm_80, or too little shared memory for the stages */
            return scan_block_launch<O, T, P>(S, in, out, n, tiles, exclusive, vec_ok, carry_in, carry_out, ds, err);
        /* resident blocks only (at most 65536: see the ticket check above),
         * each with its ring of stages.  The shared-memory opt-in is a
         * property of the kernel in a device's context (the primary one,
         * where every strand lives, and which outlives them), so it is made
         * once per device, not on every call: a host-side driver call less
         * on each scan. */
        auto kp = k_scan<O, T, P, H>;
        constexpr size_t dyn = A::dyn_bytes;
        static std::atomic<int> per_sm{0};
        static std::atomic<unsigned long long> opted{0};      /* devices 0-63 done, by bit */
        const unsigned long long bit = S.dev >= 0 && S.dev < 64 ? 1ull << S.dev : 0;
        if (bit == 0 || !(opted.load(std::memory_order_acquire) & bit)) {
            WRCUDA_CK(cudaFuncSetAttribute, ((const void *)kp, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
            opted.fetch_or(bit, std::memory_order_release);
        }
        if (per_sm.load(std::memory_order_relaxed) == 0) {
            int nb = 0;
            WRCUDA_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kp, A::threads, dyn));
            per_sm.store(nb > 0 ? nb : 1);
        }
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
        kp<<<(unsigned)grid, A::threads, dyn, S.st>>>(a, S.ctr + 1);  /* tickets [1], blocks done [2] */
        WRCUDA_CKLAUNCH("scan kernel launch");
        return WR_SUCCESS;
    }
};

} /* namespace wrcuda */

#include "scan_block.cuh"

#endif /* WRCUDA_SCAN_KERNEL_CUH */

/*
 * segscan_kernel.cuh -- scans inside segments (wr_scan_segments,
 * wr_exscan_segments): the single-pass scan of scan_kernel.cuh with the
 * segmented operator, for a policy P and hooks H; not installed.
 * segscan.cu instantiates it for the plugin.
 *
 * The operator.  A segmented scan is a plain scan over pairs (f, v), f
 * saying "a segment begins among these elements":
 *     (f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 op v2),
 * associative whenever op is.  The pairs are never stored per element:
 * each tile's head flags (the elements where a segment begins) come from
 * the offsets, as a bitmask in shared memory beside the tile's stage, and
 * the flag travels only with the folds (a thread's run, a warp's, the
 * tile's).  What is read from memory is the input, once, and the offsets
 * that fall inside the tile (8 bytes a segment), not a key per element as
 * a scan by key reads.
 *
 * Where the heads come from.  A tile is P::tile_bytes of the range
 * [base, base + n) (base: the absolute index of the launch's first element,
 * offsets[0] on the device, a staged chunk's first element, a piece's).  A
 * small kernel first (k_segscan_prep) finds, by binary search, L[t] = the
 * first offset index s with offsets[s] >= base + min(t E, n) for every
 * tile t and t = tiles: the heads of tile t are offsets[L[t] .. L[t+1]).
 * In the kernel a heads warp, once the load warp has put the tile number
 * in the stage, clears the stage's bitmask and sets a bit per offset read
 * (coalesced, P::head_loads per lane in flight), then arrives on the
 * stage's `hds` barrier; the squads wait on it before they read bits.
 *
 * Tiles with a head need no prefix from their predecessors for their own
 * inclusive prefix: it is their aggregate (the fold from their last head
 * on), published as a prefix at once by the reduce squad.  So every
 * descriptor that says "aggregate" belongs to a tile without a head, and a
 * look-back's fold P_j op A_{j+1} op ... op A_{t-1} from the nearest prefix
 * P_j is the plain fold of scan_tile_state.cuh: P_t is the left fold of the
 * aggregates from the last tile with a head, whichever tile the look-back
 * stops at, so the float results do not depend on timing.  A tile whose
 * first element is a head needs no prefix at all and skips its look-back.
 *
 * Inside a tile, per squad thread (its `items` consecutive elements), the
 * same fixed order as the plain scan: the thread's fold restarts at each of
 * its heads; the warps' exclusive scan of the threads' pairs and the fold
 * of the warps' totals go in the carry type (double for float sums) in the
 * same order; outputs before the thread's first head are its base (the
 * tile's prefix and the earlier threads' folds since the last head) plus
 * its own running value (out_map), outputs from its first head on are its
 * own running value.  Exclusive outputs: the identity at a head, else the
 * inclusive output before.  Float SUM and PROD outputs that are NaN are
 * stored as the canonical NaN (every bit set but the sign), as the cpu
 * backend stores them.
 *
 * Unchecked offsets (a call queued on a stream, offsets in device memory
 * that the host has not read): k_segscan_prep also checks that they do not
 * decrease (the least decreasing s into bad_word as ~s, 1 into the mapped
 * flag), and computes base = offsets[0] and n = offsets[nseg] - offsets[0]
 * itself; the scan kernel then reads its extent from the prep kernel's
 * segscan_dims and, when the offsets decrease (or need more tiles than the
 * strand's descriptors hold), writes nothing at all.
 *
 * Deadlock: as scan_kernel.cuh; the heads warp waits only for the tile
 * number of its iteration, which the load warp writes after the stage is
 * free, and its consumers wait for it only after they have that number.
 */
#ifndef WRCUDA_SEGSCAN_KERNEL_CUH
#define WRCUDA_SEGSCAN_KERNEL_CUH

#include <atomic>
#include "kernel_common.cuh"
#include "ptx_async.cuh"
#include "scan_policy.cuh"
#include "scan_tile.cuh"
#include "scan_tile_state.cuh"
#include "scan_kernel.cuh"

namespace wrcuda {

/* What k_segscan_prep found, for the scan kernel (device memory, zeroed
 * before each prep). */
struct segscan_dims {
    size_t base;             /* absolute index of the launch's element 0 */
    size_t n;                /* elements */
    size_t tiles;
    unsigned bad;            /* the offsets decrease, or need too many tiles: write nothing */
    unsigned pad;
};
constexpr size_t kSegDimsBytes = 64;          /* the dims, then L[] */
static_assert(sizeof(segscan_dims) <= kSegDimsBytes, "segscan_dims fits its slot");

/* The first index s in [0, count) with off[s] >= key (count if none), for
 * any contents of off (a binary search that always ends). */
__device__ __forceinline__ size_t off_lower_bound(const size_t *off, size_t count, size_t key)
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

/* ---- the segmented operator ------------------------------------------------ */

template <typename C> struct segpair {
    C v;                     /* the fold since the last head (or of everything) */
    bool f;                  /* a head among the elements */
};

/* a . b (a first) */
template <class FC, typename C>
__device__ __forceinline__ segpair<C> seg_cat(const segpair<C> &a, const segpair<C> &b)
{
    segpair<C> r;
    r.v = b.f ? b.v : FC::combine(a.v, b.v);
    r.f = a.f || b.f;
    return r;
}

/* The warp's exclusive scan of the pairs x (lane 0: no flag, the identity)
 * and its total, by the shifts of warpred::warp_inclusive_scan. */
template <wr_op O, typename C>
__device__ __forceinline__ segpair<C> warp_seg_exclusive(segpair<C> x, segpair<C> &total, int lane)
{
    typedef warpred::op<O, C> FC;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
        const C uv = __shfl_up_sync(warpred::full_mask, x.v, off);
        const int uf = __shfl_up_sync(warpred::full_mask, (int)x.f, off);
        if (lane >= off) {
            if (!x.f) x.v = FC::combine(uv, x.v);
            x.f = x.f || uf != 0;
        }
    }
    total.v = __shfl_sync(warpred::full_mask, x.v, 31);
    total.f = __shfl_sync(warpred::full_mask, (int)x.f, 31) != 0;
    segpair<C> e;
    e.v = __shfl_up_sync(warpred::full_mask, x.v, 1);
    e.f = __shfl_up_sync(warpred::full_mask, (int)x.f, 1) != 0;
    if (lane == 0) {
        e.v = FC::identity();
        e.f = false;
    }
    return e;
}

/* Bit k of a thread's head words. */
template <int HW> __device__ __forceinline__ bool head_at(const unsigned (&h)[HW], int k)
{
    return (h[k >> 5] >> (k & 31)) & 1u;
}

/* A float SUM/PROD output as stored: a NaN is the canonical quiet NaN. */
template <wr_op O, typename T> __device__ __forceinline__ T canon_out(T v)
{
    if constexpr (std::is_floating_point<T>::value && (O == WR_SUM || O == WR_PROD)) {
        if (v != v) {
            if constexpr (sizeof(T) == 4) return __uint_as_float(0x7fffffffu);
            else return __longlong_as_double(0x7fffffffffffffffll);
        }
    }
    return v;
}

/* The per-thread arithmetic both kernels share (so that they give the same
 * bits): a squad thread's I items x[] and head words h[]. */
template <wr_op O, typename T, int I> struct seg_thread {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    static constexpr int HW = I / 32;
    static_assert(I % 32 == 0, "whole head words a thread");

    /* the thread's pair: the fold from its last head on (or of all) */
    static __device__ __forceinline__ segpair<C> fold(const T (&x)[I], const unsigned (&h)[HW])
    {
        T f = x[0];
        bool any = head_at(h, 0);
#pragma unroll
        for (int k = 1; k < I; k++) {
            const bool hk = head_at(h, k);
            f = hk ? x[k] : F::combine(f, x[k]);
            any = any || hk;
        }
        segpair<C> p;
        p.v = (C)f;
        p.f = any;
        return p;
    }

    /* the thread's running values, restarting at its heads */
    static __device__ __forceinline__ void run(T (&x)[I], const unsigned (&h)[HW])
    {
#pragma unroll
        for (int k = 1; k < I; k++)
            if (!head_at(h, k)) x[k] = F::combine(x[k - 1], x[k]);
    }

    /* the base of thread r: from the tile's prefix (pre, have) and the
     * earlier threads' pair tex (r > 0) */
    static __device__ __forceinline__ out_map<O, T> base(int r, C pre, bool have, const segpair<C> &tex)
    {
        if (r == 0) return out_map<O, T>(pre, have);
        if (tex.f) return out_map<O, T>(tex.v, true);
        return out_map<O, T>(have ? FC::combine(pre, tex.v) : tex.v, true);
    }

    /* Output k: inclusive, x[k] through m before the thread's first head
     * (fh), x[k] itself from there; exclusive, the identity at a head, else
     * the inclusive output before (the base for k = 0). */
    template <class M>
    static __device__ __forceinline__ T out(const T (&x)[I], const unsigned (&h)[HW], int fh, int exclusive, T b,
                                            M m, int k)
    {
        if (!exclusive) return canon_out<O>(k < fh ? m(x[k]) : x[k]);
        if (head_at(h, k)) return F::identity();
        if (k == 0) return canon_out<O>(b);
        return canon_out<O>(k - 1 < fh ? m(x[k - 1]) : x[k - 1]);
    }
};

/* this squad thread's outputs (out(k) for its items, in tile order) into
 * its part of the stage, in the stage's layout (scan_tile.cuh) */
template <class P, typename T, typename Out>
__device__ __forceinline__ void put_items(T *stage, int r, Out out)
{
    typedef tile_shape<P, T> W;
    constexpr int V = W::V;
    if constexpr (bulk_loads<P>()) {
        vec<T> v[W::chunks];
#pragma unroll
        for (int i = 0; i < W::chunks; i++)
#pragma unroll
            for (int j = 0; j < V; j++) v[i].v[j] = out(i * V + j);
        xor_perm<W>(v, (unsigned)r & 7u);
#pragma unroll
        for (int i = 0; i < W::chunks; i++) chunk<W>(stage, r, i) = v[i];
    } else {
#pragma unroll
        for (int i = 0; i < W::chunks; i++) {
            vec<T> v;
#pragma unroll
            for (int j = 0; j < V; j++) v.v[j] = out(i * V + j);
            chunk<W>(stage, r, i) = v;
        }
    }
}

/* The heads of tile t (tb: its first element's absolute index, E its
 * elements) into bits[] (E / 32 words), by one warp: cleared, then a bit
 * set for each of off[lo .. hi) inside the tile.  K loads a lane in flight. */
template <int K>
__device__ __forceinline__ void mark_heads(unsigned *bits, unsigned words, const size_t *off, size_t lo, size_t hi,
                                           size_t tb, size_t E, int lane)
{
    for (unsigned w = (unsigned)lane; w < words; w += 32) bits[w] = 0;
    __syncwarp();
    for (size_t j = lo + (size_t)lane; j < hi; j += 32 * K) {
        size_t o[K];
#pragma unroll
        for (int u = 0; u < K; u++) o[u] = j + 32 * (size_t)u < hi ? off[j + 32 * (size_t)u] : tb - 1;
#pragma unroll
        for (int u = 0; u < K; u++) {
            const size_t p = o[u] - tb;                /* (below tb: huge) */
            if (p < E) atomicOr(&bits[p >> 5], 1u << (p & 31));
        }
    }
    __syncwarp();
}

/* The kernel's arguments. */
template <wr_op O, typename T> struct segscan_args {
    typedef typename carry_of<O, T>::type C;
    const T *in;                             /* element 0 of the launch (shift: element 0 of the offsets) */
    T *out;
    int shift;                               /* unchecked offsets: in and out move by dims->base */
    int exclusive;
    const segscan_dims *dims;                /* the extent (k_segscan_prep) */
    const size_t *off;                       /* nseg + 1 offsets (device-readable) */
    const size_t *L;                         /* tiles + 1 first head indices (k_segscan_prep) */
    unsigned long long *epoch;               /* launches so far on these descriptors (device) */
    tdesc *d;
    const C *carry_in;                       /* the running value before element 0 (NULL: none) */
    C *carry_out;
    done_sig ds;
    unsigned *dcount;
};

/* What every role of a block reads of its launch. */
template <typename T> struct seg_extent {
    const T *in;
    T *out;
    size_t base, n, tiles;
    int vec_ok;
};

/* The work of one block of k_segscan for (O, T) under policy P and hooks H:
 * scan_agent's roles (scan_kernel.cuh) plus a heads warp. */
template <wr_op O, typename T, class P, class H> struct segscan_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef tile_shape<P, T> W;
    typedef segscan_args<O, T> args;
    typedef seg_extent<T> ext;
    typedef seg_thread<O, T, W::items> TH;
    static constexpr int kStages = P::stages;
    static constexpr int kSquad = P::squad;
    static constexpr int kSquadThreads = W::squad_threads;
    static constexpr int kAhead = P::ahead;
    static constexpr int kLb = look_back_shape<P, C>::warps;
    static constexpr int kLbK = look_back_shape<P, C>::k;
    static constexpr unsigned kLbDelay = look_back_shape<P, C>::delay;
    static constexpr bool kBulk = bulk_loads<P>();
    static constexpr int kChain = 2 * kStages;                     /* as scan_agent's */
    static constexpr unsigned kWords = (unsigned)(W::elems / 32);  /* head words a stage */
    static constexpr int HW = TH::HW;
    /* reduce and scan squads, look-back warps, the load warp, the heads warp */
    static constexpr int threads = (2 * kSquad + kLb + 2) * 32;
    static constexpr size_t dyn_bytes = (size_t)kStages * P::tile_bytes + P::align;

    struct smem {
        unsigned long long ep;
        unsigned long long tkb[kStages], full[kStages], hds[kStages], red[kStages], pre[kStages], empty[kStages];
        unsigned tk[kStages];
        unsigned hb[kStages][kWords];         /* the tile's heads, a bit an element */
        C tex[kStages][kSquadThreads];        /* each scan thread's earlier threads' pair */
        unsigned char texf[kStages][kSquadThreads];
        C wsum[kStages][kSquad];
        unsigned char wsumf[kStages][kSquad];
        C agg[kStages];
        int aggf[kStages];
        C pre_v[kStages];
        int pre_have[kStages];
        unsigned long long lbs[kChain], lpre[kChain];
        long long ltk[kChain];
        C lincl[kChain];
        C lbv[kLb][32 * kLbK];
    };

    static __device__ __forceinline__ unsigned tile_of(smem &sm, unsigned it)
    {
        const int s = (int)(it % kStages);
        const unsigned ph = (it / kStages) & 1u;
        mbar_wait(&sm.tkb[s], ph);
        const unsigned t = sm.tk[s];
        if (t != kEnd) mbar_wait(&sm.full[s], ph);
        return t;
    }

    static __device__ __forceinline__ void squad_sync(int id) { bar_sync<kSquadThreads>(id); }

    /* this thread's head words of stage s, once the heads warp is done */
    static __device__ __forceinline__ void heads_of(unsigned (&h)[HW], smem &sm, int s, unsigned ph, int r)
    {
        mbar_wait(&sm.hds[s], ph);
#pragma unroll
        for (int j = 0; j < HW; j++) h[j] = sm.hb[s][r * HW + j];
    }

    /* Load warp: scan_agent::load, over the extent e. */
    static __device__ __forceinline__ void load(const ext &e, const args &a, T *stages, smem &sm, unsigned *tctr,
                                                int lane)
    {
        unsigned q[kAhead];
        bool drawing = true;
        auto draw = [&](int k) { q[k] = lane == 0 && drawing ? atomicAdd(tctr, 1u) : kEnd; };
        auto take = [&](int k) -> unsigned {
            const unsigned t = q[k];
            if (lane == 0 && drawing && t >= e.tiles) {
                drawing = false;
                if (last_arrival(tctr + 1, gridDim.x)) {
                    atomicExch(tctr, 0u);
                    atomicExch(tctr + 1, 0u);
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
                if (ends == 0) {
                    t = take(k);
                    draw(k);
                }
                const bool end = t >= e.tiles;
                ends += end;
                mbar_wait(&sm.empty[s], ((it / kStages) & 1u) ^ 1u);
                if (lane == 0) {
                    sm.tk[s] = end ? kEnd : t;
                    mbar_arrive(&sm.tkb[s]);
                }
                const bool whole = !end && e.vec_ok && ((size_t)t + 1) * W::elems <= e.n;
                T *stage = stages + (size_t)s * W::elems;
                if (kBulk && whole) {
                    if (lane == 0) {
                        constexpr unsigned part = (unsigned)(P::tile_bytes / 4);
                        mbar_arrive_expect_tx(&sm.full[s], (unsigned)P::tile_bytes);
                        const char *src = reinterpret_cast<const char *>(e.in + (size_t)t * W::elems);
#pragma unroll
                        for (int k2 = 0; k2 < 4; k2++)
                            bulk_copy(reinterpret_cast<char *>(stage) + k2 * part, src + k2 * part, part, &sm.full[s]);
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
                    mbar_arrive_cp_async(&sm.full[s]);
                    mbar_arrive(&sm.full[s]);
                } else {
                    cp_async_wait_all();
                    mbar_arrive(&sm.full[s]);
                    mbar_arrive(&sm.full[s]);
                }
                if (ends == kLb) return;
            }
        }
    }

    /* Heads warp: the bitmask of each iteration's tile. */
    static __device__ __forceinline__ void heads(const ext &e, const args &a, smem &sm, int lane)
    {
        for (unsigned it = 0;; it++) {
            const int s = (int)(it % kStages);
            mbar_wait(&sm.tkb[s], (it / kStages) & 1u);
            const unsigned t = sm.tk[s];
            if (t == kEnd) return;
            mark_heads<P::head_loads>(sm.hb[s], kWords, a.off, a.L[t], a.L[t + 1], e.base + (size_t)t * W::elems,
                                      W::elems, lane);
            mbar_arrive(&sm.hds[s]);
        }
    }

    /* Reduce squad: the threads' pairs, their exclusive scan, the
     * aggregate, published (a tile with a head: as its prefix). */
    static __device__ __forceinline__ void reduce(const ext &e, const args &a, T *stages, smem &sm, int r)
    {
        constexpr int I = W::items;
        const int w = r / 32, lane = r & 31;
        const unsigned long long ep = sm.ep;
        for (unsigned it = 0;; it++) {
            const int s = (int)(it % kStages);
            const unsigned ph = (it / kStages) & 1u;
            const unsigned t = tile_of(sm, it);
            if (t == kEnd) return;
            T x[I];
            read_items<P>(x, stages + (size_t)s * W::elems, r);
            past_n<P, F>(x, e.n, t, r);
            unsigned h[HW];
            heads_of(h, sm, s, ph, r);
            segpair<C> wt;
            const segpair<C> wex = warp_seg_exclusive<O>(TH::fold(x, h), wt, lane);
            if (lane == 0) {
                sm.wsum[s][w] = wt.v;
                sm.wsumf[s][w] = wt.f;
            }
            squad_sync(1);
            segpair<C> b;
            b.v = sm.wsum[s][0];
            b.f = sm.wsumf[s][0] != 0;
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = seg_cat<FC>(b, segpair<C>{ sm.wsum[s][v], sm.wsumf[s][v] != 0 });
            const segpair<C> tx = w == 0 ? wex : (lane == 0 ? b : seg_cat<FC>(b, wex));
            sm.tex[s][r] = tx.v;
            sm.texf[s][r] = tx.f;
            if (r == 0) {
                segpair<C> agg;
                agg.v = sm.wsum[s][0];
                agg.f = sm.wsumf[s][0] != 0;
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = seg_cat<FC>(agg, segpair<C>{ sm.wsum[s][v], sm.wsumf[s][v] != 0 });
                sm.agg[s] = agg.v;
                sm.aggf[s] = agg.f;
                if (t == 0) {
                    const C incl = a.carry_in && !agg.f ? FC::combine(*a.carry_in, agg.v) : agg.v;
                    st_desc(a.d, to_bits(incl), ep | kPrefix);
                } else {
                    st_desc(a.d + t, to_bits(agg.v), ep | (agg.f ? kPrefix : kAggregate));
                }
            }
            mbar_arrive(&sm.red[s]);
        }
    }

    /* Look-back warp k of kLb: scan_agent::look_back_warp, with no look-back
     * for a tile whose first element is a head, and no second publication
     * for a tile with a head (its aggregate went out as its prefix). */
    static __device__ __forceinline__ void look_back_warp(const ext &e, const args &a, smem &sm, int k, int lane)
    {
        long long mine = -1;
        C pmine = C();
        const unsigned long long ep = sm.ep;
        for (unsigned it = (unsigned)k;; it += kLb) {
            const int s = (int)(it % kStages);
            const unsigned ph = (it / kStages) & 1u;
            const unsigned t = tile_of(sm, it);
            if (t == kEnd) return;
            const int c = (int)(it % kChain), cq = (int)((it - 1) % kChain);
            const unsigned phq = ((it - 1) / kChain) & 1u;
            long long prev = mine;
            if (kLb > 1) {
                if (it > 0) {
                    mbar_wait(&sm.lbs[cq], phq);
                    prev = sm.ltk[cq];
                }
                if (lane == 0) sm.ltk[c] = t;
                mbar_arrive(&sm.lbs[c]);
            }
            mbar_wait(&sm.hds[s], ph);
            const bool need = (sm.hb[s][0] & 1u) == 0;       /* element 0 is not a head */
            bool have = true;
            C pre = C();
            if (t == 0) {
                have = a.carry_in != nullptr;
                if (have) pre = *a.carry_in;
            } else if (!need) {
                have = false;
            } else {
                if (kLbDelay > 0) {
                    const unsigned long long t0 = globaltimer_ns();
                    while (globaltimer_ns() - t0 < kLbDelay) __nanosleep(32);
                }
                auto pprev = [&]() -> C {
                    if (kLb == 1 || it == 0) return pmine;
                    mbar_wait(&sm.lpre[cq], phq);
                    return sm.lincl[cq];
                };
                pre = look_back<O, C, kLbK, H>((long long)t, prev, pprev, ep, a.d, sm.lbv[k], lane);
            }
            mbar_wait(&sm.red[s], ph);
            const bool aggf = sm.aggf[s] != 0;
            const C incl = aggf || !have ? sm.agg[s] : FC::combine(pre, sm.agg[s]);
            if (lane == 0) {
                if (t > 0 && !aggf) st_desc(a.d + t, to_bits(incl), ep | kPrefix);
                if (a.carry_out && t == e.tiles - 1) *a.carry_out = incl;
                sm.pre_v[s] = pre;
                sm.pre_have[s] = have;
                if (kLb > 1) sm.lincl[c] = incl;
            }
            mbar_arrive(&sm.pre[s]);
            if (kLb > 1) mbar_arrive(&sm.lpre[c]);
            mine = t;
            pmine = incl;
        }
    }

    /* Scan squad. */
    static __device__ __forceinline__ void scan(const ext &e, const args &a, T *stages, smem &sm, int r)
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
            unsigned h[HW];
            heads_of(h, sm, s, ph, r);
            TH::run(x, h);
            int fh = I;                                     /* the thread's first head */
#pragma unroll
            for (int j = HW - 1; j >= 0; j--)
                if (h[j]) fh = 32 * j + __ffs(h[j]) - 1;
            mbar_wait(&sm.red[s], ph);
            const segpair<C> tex{ sm.tex[s][r], sm.texf[s][r] != 0 };
            mbar_wait(&sm.pre[s], ph);
            const out_map<O, T> m = TH::base(r, sm.pre_v[s], sm.pre_have[s] != 0, tex);
            const T b = m.base();
            auto wide = [&](T v) { return m.wide_out(v); };
            auto narrow = [&](T v) { return m(v); };
            if (m.wide()) put_items<P>(stage, r, [&](int k) { return TH::out(x, h, fh, a.exclusive, b, wide, k); });
            else          put_items<P>(stage, r, [&](int k) { return TH::out(x, h, fh, a.exclusive, b, narrow, k); });
            squad_sync(2);
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
            mbar_arrive(&sm.empty[s]);
        }
    }

    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, T *stages, smem &sm)
    {
        const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x & 31;
        const segscan_dims dm = *a.dims;
        if (dm.bad || dm.tiles == 0) {                     /* (uniform over the grid) */
            grid_done(a.ds, a.dcount);
            return;
        }
        ext e;
        e.in = a.in + (a.shift ? dm.base : 0);
        e.out = a.out + (a.shift ? dm.base : 0);
        e.base = dm.base;
        e.n = dm.n;
        e.tiles = dm.tiles;
        e.vec_ok = ((uintptr_t)e.in % 16 == 0) && ((uintptr_t)e.out % 16 == 0);
        if (threadIdx.x == 0) {
            sm.ep = (ld_volatile(a.epoch) + 1) << 2;
            for (int s = 0; s < kStages; s++) {
                mbar_init(&sm.tkb[s], 1);
                mbar_init(&sm.full[s], kBulk ? 32 : 64);
                mbar_init(&sm.hds[s], 32);
                mbar_init(&sm.red[s], kSquadThreads);
                mbar_init(&sm.pre[s], 32);
                mbar_init(&sm.empty[s], kSquadThreads);
            }
            for (int c = 0; c < kChain; c++) {
                mbar_init(&sm.lbs[c], 32);
                mbar_init(&sm.lpre[c], 32);
            }
        }
        __syncthreads();
        if (warp < kSquad) reduce(e, a, stages, sm, (int)threadIdx.x);
        else if (warp < 2 * kSquad) scan(e, a, stages, sm, (int)threadIdx.x - kSquadThreads);
        else if (warp < 2 * kSquad + kLb) look_back_warp(e, a, sm, warp - 2 * kSquad, lane);
        else if (warp == 2 * kSquad + kLb) load(e, a, stages, sm, tctr, lane);
        else heads(e, a, sm, lane);
        cp_async_wait_all();
        grid_done(a.ds, a.dcount);
    }
};

template <wr_op O, typename T, class P, class H>
static __global__ void __launch_bounds__(segscan_agent<O, T, P, H>::threads, P::min_blocks)
k_segscan(segscan_args<O, T> a, unsigned *tctr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();                                       /* (k_segscan_block runs there) */
#else
    typedef segscan_agent<O, T, P, H> A;
    extern __shared__ uint4 s_dyn[];
    __shared__ typename A::smem sm;
    const unsigned s0 = smem_addr(s_dyn);
    T *stages = reinterpret_cast<T *>(reinterpret_cast<char *>(s_dyn) + (P::align - s0 % P::align) % P::align);
    A::run(a, tctr, stages, sm);
#endif
}

/*
 * The segmented scan with one block per tile (scan_block.cuh's shape, for
 * code below sm_80 and devices whose shared memory cannot hold the stages):
 * the tile shape of P, the per-thread arithmetic of seg_thread and the same
 * warp scans, folds and look-back as segscan_agent, so the same bits.
 */
template <wr_op O, typename T, class P> struct segscan_block_agent {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef block_tile_policy<P> Q;
    typedef tile_shape<Q, T> W;
    typedef segscan_args<O, T> args;
    typedef seg_thread<O, T, W::items> TH;
    static constexpr int kSquad = P::squad;
    static constexpr int threads = W::squad_threads;
    static constexpr int kLbK = P::lb_k1;
    static constexpr int HW = TH::HW;
    static constexpr unsigned kWords = (unsigned)(W::elems / 32);
    static constexpr unsigned kChunks = (unsigned)(W::elems / W::V);
    static_assert(kChunks % threads == 0, "whole chunks per thread");

    struct smem {
        vec<T> stage[kChunks];
        unsigned hb[kWords];
        C wsum[kSquad];
        unsigned char wsumf[kSquad];
        C pre;
        int have;
        unsigned t;
        unsigned long long ep;
        C lbv[32 * kLbK];
    };

    static __device__ __forceinline__ void run(const args &a, unsigned *tctr, smem &sm)
    {
        constexpr int I = W::items, V = W::V;
        const int r = (int)threadIdx.x, w = r / 32, lane = r & 31;
        const segscan_dims dm = *a.dims;
        if (dm.bad || dm.tiles == 0) {
            grid_done(a.ds, a.dcount);
            return;
        }
        const T *in = a.in + (a.shift ? dm.base : 0);
        T *out = a.out + (a.shift ? dm.base : 0);
        const size_t n = dm.n, tiles = dm.tiles;
        const int vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        T *stage = reinterpret_cast<T *>(sm.stage);
        long long prev = -1;
        C pmine = C();
        if (r == 0) sm.ep = (ld_volatile(a.epoch) + 1) << 2;
        __syncthreads();
        const unsigned long long ep = sm.ep;
        for (;;) {
            if (r == 0) {
                unsigned t = atomicAdd(tctr, 1u);
                if (t >= tiles) {
                    t = kEnd;
                    if (last_arrival(tctr + 1, gridDim.x)) {
                        atomicExch(tctr, 0u);
                        atomicExch(tctr + 1, 0u);
                        __threadfence();
                        *(volatile unsigned long long *)a.epoch = ep >> 2;
                    }
                }
                sm.t = t;
            }
            __syncthreads();
            const unsigned t = sm.t;
            if (t == kEnd) break;
            const size_t base = (size_t)t * W::elems;
            const bool whole = vec_ok && base + W::elems <= n;
            const unsigned lim = (unsigned)(n - base < W::elems ? n - base : W::elems);
            if (whole) {
                constexpr unsigned per = kChunks / threads;
                const vec<T> *src = reinterpret_cast<const vec<T> *>(in + base);
                vec<T> v[per];
#pragma unroll
                for (unsigned k = 0; k < per; k++) v[k] = src[r + k * threads];
#pragma unroll
                for (unsigned k = 0; k < per; k++) sm.stage[swz<W>(r + k * threads)] = v[k];
            } else {
                for (unsigned q = r; q < lim; q += threads) stage[swz<W>(q / V) * V + q % V] = in[base + q];
            }
            if (w == 0) mark_heads<P::head_loads>(sm.hb, kWords, a.off, a.L[t], a.L[t + 1], dm.base + base, W::elems, lane);
            __syncthreads();                 /* the tile and its heads are in */

            T x[I];
            read_items<Q>(x, stage, r);
            past_n<Q, F>(x, n, t, r);
            unsigned h[HW];
#pragma unroll
            for (int j = 0; j < HW; j++) h[j] = sm.hb[r * HW + j];
            segpair<C> wt;
            const segpair<C> wex = warp_seg_exclusive<O>(TH::fold(x, h), wt, lane);
            if (lane == 0) {
                sm.wsum[w] = wt.v;
                sm.wsumf[w] = wt.f;
            }
            __syncthreads();
            segpair<C> b;
            b.v = sm.wsum[0];
            b.f = sm.wsumf[0] != 0;
#pragma unroll
            for (int v = 1; v < kSquad; v++)
                if (v < w) b = seg_cat<FC>(b, segpair<C>{ sm.wsum[v], sm.wsumf[v] != 0 });
            const segpair<C> tex = w == 0 ? wex : (lane == 0 ? b : seg_cat<FC>(b, wex));

            if (w == 0) {
                segpair<C> agg;
                agg.v = sm.wsum[0];
                agg.f = sm.wsumf[0] != 0;
#pragma unroll
                for (int v = 1; v < kSquad; v++) agg = seg_cat<FC>(agg, segpair<C>{ sm.wsum[v], sm.wsumf[v] != 0 });
                if (lane == 0) {
                    if (t == 0) {
                        const C incl = a.carry_in && !agg.f ? FC::combine(*a.carry_in, agg.v) : agg.v;
                        st_desc(a.d, to_bits(incl), ep | kPrefix);
                    } else {
                        st_desc(a.d + t, to_bits(agg.v), ep | (agg.f ? kPrefix : kAggregate));
                    }
                }
                const bool need = (sm.hb[0] & 1u) == 0;
                bool have = true;
                C pre = C();
                if (t == 0) {
                    have = a.carry_in != nullptr;
                    if (have) pre = *a.carry_in;
                } else if (!need) {
                    have = false;
                } else {
                    pre = look_back<O, C, kLbK, no_hooks>((long long)t, prev, [&]() -> C { return pmine; }, ep, a.d,
                                                          sm.lbv, lane);
                }
                const C incl = agg.f || !have ? agg.v : FC::combine(pre, agg.v);
                if (lane == 0) {
                    if (t > 0 && !agg.f) st_desc(a.d + t, to_bits(incl), ep | kPrefix);
                    if (a.carry_out && t == tiles - 1) *a.carry_out = incl;
                    sm.pre = pre;
                    sm.have = have;
                }
                prev = t;
                pmine = incl;
            }

            TH::run(x, h);
            int fh = I;
#pragma unroll
            for (int j = HW - 1; j >= 0; j--)
                if (h[j]) fh = 32 * j + __ffs(h[j]) - 1;
            __syncthreads();                 /* the prefix */
            const out_map<O, T> m = TH::base(r, sm.pre, sm.have != 0, tex);
            const T bo = m.base();
            auto wide = [&](T v) { return m.wide_out(v); };
            auto narrow = [&](T v) { return m(v); };
            if (m.wide()) put_items<Q>(stage, r, [&](int k) { return TH::out(x, h, fh, a.exclusive, bo, wide, k); });
            else          put_items<Q>(stage, r, [&](int k) { return TH::out(x, h, fh, a.exclusive, bo, narrow, k); });
            __syncthreads();
            if (whole) {
                vec<T> *dst = reinterpret_cast<vec<T> *>(out + base);
#pragma unroll 4
                for (unsigned c = r; c < kChunks; c += threads) dst[c] = sm.stage[swz<W>(c)];
            } else {
                for (unsigned q = r; q < lim; q += threads) out[base + q] = stage[swz<W>(q / V) * V + q % V];
            }
        }
        grid_done(a.ds, a.dcount);
    }
};

template <wr_op O, typename T, class P>
static __global__ void __launch_bounds__(segscan_block_agent<O, T, P>::threads)
k_segscan_block(segscan_args<O, T> a, unsigned *tctr)
{
    __shared__ typename segscan_block_agent<O, T, P>::smem sm;
    segscan_block_agent<O, T, P>::run(a, tctr, sm);
}

/*
 * The extent and the tiles' first heads (see the top).  Checked offsets:
 * [base, base + n) as given.  Unchecked: base = off[0], n = off[nseg] -
 * off[0] (0 when negative), every pair checked (a thread's first decrease
 * is its least: ~s into *bad by atomicMax, 1 into *flag), and more than
 * cap tiles refused (*too_long = 1); either way dims->bad stops the scan.
 */
__global__ void __launch_bounds__(kThreads)
k_segscan_prep(const size_t *__restrict__ off, size_t nseg, size_t base, size_t n, int unchecked, size_t E,
               size_t cap, segscan_dims *dims, size_t *__restrict__ L, unsigned long long *bad, unsigned *flag,
               unsigned long long *too_long);

/* The launcher: run<O, T>() as dispatch() (backend.cuh) calls it. */
template <class P, class H> struct segscan_launcher {
    /* Checked offsets: [base, base + n) of the offsets' index space, in and
     * out pointing at element base.  Pieces of whole tiles where the
     * strand's descriptors may not grow (as scan_launcher::run). */
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg, size_t base,
                         int exclusive, const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef tile_shape<P, T> W;
        const size_t tiles = (n + W::elems - 1) / W::elems;
        if (!S.fixed || tiles <= S.scap)
            return one<O, T>(S, in, out, n, off, nseg, base, 0, exclusive, carry_in, carry_out, ds, nullptr, err);
        if (S.scap == 0) return fail(err, "segmented scan: no descriptors reserved", cudaErrorInvalidValue);
        const size_t step = S.scap * W::elems;
        const T *i = (const T *)in;
        T *o = (T *)out;
        for (size_t k = 0, p = 0; p < n; k++, p += step) {
            const size_t len = n - p < step ? n - p : step;
            const bool last = len == n - p;
            const void *cin = k ? (const void *)(S.slot + (1 + (k + 1) % 2) * kSlotBytes) : carry_in;
            void *cout = last ? carry_out : (void *)(S.slot + (1 + k % 2) * kSlotBytes);
            WRCUDA_TRY((one<O, T>(S, i + p, o + p, len, off, nseg, base + p, 0, exclusive, cin, cout,
                                  last ? ds : kNoDone, nullptr, err)));
        }
        return WR_SUCCESS;
    }

    /* Unchecked offsets (a queued call): in and out are the caller's (element
     * 0 of the offsets' index space); at most S.scap tiles. */
    template <wr_op O, typename T>
    static wr_status unchecked(strand &S, const void *in, void *out, const size_t *off, size_t nseg, int exclusive,
                               unsigned *flag, done_sig ds, char *err)
    {
        return one<O, T>(S, in, out, 0, off, nseg, 0, 1, exclusive, nullptr, nullptr, ds, flag, err);
    }

    template <wr_op O, typename T>
    static wr_status one(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg, size_t base,
                         int unchecked, int exclusive, const void *carry_in, void *carry_out, done_sig ds,
                         unsigned *flag, char *err)
    {
        typedef segscan_agent<O, T, P, H> A;
        typedef segscan_block_agent<O, T, P> B;
        typedef typename A::C C;
        typedef tile_shape<P, T> W;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        /* checked: the tiles are known; unchecked: the descriptors there are */
        size_t tiles = unchecked ? S.scap : (n + W::elems - 1) / W::elems;
        if (tiles > 0xffffffffu - 0x10000u) return fail(err, "segmented scan: too many tiles", cudaErrorInvalidValue);
        if (tiles > S.scap) {
            const size_t cap = tiles + tiles / 4;
            size_t bytes = S.scap ? descriptor_bytes(S.scap) : 0;
            S.scap = 0;
            WRCUDA_TRY(grow(S, S.sblk, &bytes, descriptor_bytes(cap), true, "scan descriptors", err));
            S.scap = cap;
        }
        WRCUDA_TRY(grow(S, S.sscan, &S.sscan_cap, kSegDimsBytes + (tiles + 2) * sizeof(size_t), false,
                        "segmented scan tile heads", err));
        segscan_dims *dims = (segscan_dims *)S.sscan;
        size_t *L = (size_t *)((char *)S.sscan + kSegDimsBytes);
        WRCUDA_CK(cudaMemsetAsync, (dims, 0, sizeof(segscan_dims), S.st));
        {
            const size_t work = unchecked ? (nseg > tiles + 1 ? nseg : tiles + 1) : tiles + 1;
            size_t g = (work + kThreads - 1) / kThreads;
            const size_t most = (size_t)(S.sms > 0 ? S.sms : 1) * 8;
            if (g > most) g = most;
            if (g < 1) g = 1;
            k_segscan_prep<<<(unsigned)g, kThreads, 0, S.st>>>(off, nseg, base, n, unchecked, W::elems, tiles, dims, L,
                                                                bad_word(S), flag, long_word(S));
            WRCUDA_CKLAUNCH("segmented scan prep launch");
        }
        segscan_args<O, T> a;
        a.in = (const T *)in;
        a.out = (T *)out;
        a.shift = unchecked;
        a.exclusive = exclusive;
        a.dims = dims;
        a.off = off;
        a.L = L;
        a.epoch = epoch_word(S);
        a.d = (tdesc *)S.sblk;
        a.carry_in = (const C *)carry_in;
        a.carry_out = (C *)carry_out;
        a.ds = ds;
        a.dcount = S.ctr + 3;
        const size_t sms = (size_t)(S.sms > 0 ? S.sms : 1);
        auto kp = k_segscan<O, T, P, H>;
        constexpr size_t dyn = A::dyn_bytes;
        /* The shared-memory opt-in, once per device (as scan_launcher's).
         * The heads take a little more shared memory than the plain scan's
         * kernel: where this kernel's does not fit, the block kernel runs. */
        static std::atomic<unsigned long long> opted{0}, refused{0};
        const unsigned long long bit = S.dev >= 0 && S.dev < 64 ? 1ull << S.dev : 0;
        bool by_block = S.scan_by_block || (bit && (refused.load(std::memory_order_acquire) & bit));
        if (!by_block && (bit == 0 || !(opted.load(std::memory_order_acquire) & bit))) {
            const cudaError_t e = cudaFuncSetAttribute((const void *)kp, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                       (int)dyn);
            if (e == cudaSuccess) {
                opted.fetch_or(bit, std::memory_order_release);
            } else {
                (void)cudaGetLastError();
                refused.fetch_or(bit, std::memory_order_release);
                by_block = true;
            }
        }
        if (by_block) {
            auto kb = k_segscan_block<O, T, P>;
            static std::atomic<int> per_sm_b{0};
            if (per_sm_b.load(std::memory_order_relaxed) == 0) {
                int nb = 0;
                WRCUDA_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kb, B::threads, 0));
                per_sm_b.store(nb > 0 ? nb : 1);
            }
            size_t grid = sms * (size_t)per_sm_b.load(std::memory_order_relaxed);
            if (S.scan_blocks && S.scan_blocks < grid) grid = S.scan_blocks;
            if (grid > tiles) grid = tiles;
            if (grid < 1) grid = 1;
            if (grid > 0x10000u) grid = 0x10000u;
            kb<<<(unsigned)grid, B::threads, 0, S.st>>>(a, S.ctr + 1);
            WRCUDA_CKLAUNCH("segmented scan kernel launch");
            return WR_SUCCESS;
        }
        static std::atomic<int> per_sm{0};
        if (per_sm.load(std::memory_order_relaxed) == 0) {
            int nb = 0;
            WRCUDA_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kp, A::threads, dyn));
            per_sm.store(nb > 0 ? nb : 1);
        }
        size_t grid = sms * (size_t)per_sm.load(std::memory_order_relaxed);
        if (S.scan_blocks && S.scan_blocks < grid) grid = S.scan_blocks;
        if (grid > tiles) grid = tiles;
        if (grid < 1) grid = 1;
        if (grid > 0x10000u) grid = 0x10000u;
        kp<<<(unsigned)grid, A::threads, dyn, S.st>>>(a, S.ctr + 1);
        WRCUDA_CKLAUNCH("segmented scan kernel launch");
        return WR_SUCCESS;
    }
};

} /* namespace wrcuda */

#endif /* WRCUDA_SEGSCAN_KERNEL_CUH */

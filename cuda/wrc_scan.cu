/*
 * wrc_scan.cu -- device-wide inclusive/exclusive scan in a single pass with
 * decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 * with Decoupled Look-back", NVIDIA NVR-2016-002).
 *
 * Tiles of kTile = 4096 elements; a persistent grid (as many blocks of 256
 * threads as fit on the device at once) takes tile numbers from an atomic
 * counter, so every smaller tile has been taken by a running block and a
 * block works through its tiles in increasing order: no deadlock whatever
 * the scheduling, also when other kernels share the device.
 *
 * Keeping the memory system busy.  A look-back waits on other tiles, and a
 * block that waits with nothing in flight wastes its share of the memory
 * bandwidth (the first version of this kernel, one tile per block with the
 * loads issued only after the ticket, ran at 0.43x the D2D copy).  Here each
 * block keeps kStages - 1 tiles ahead of the one it scans in flight: their
 * tickets are drawn early and their data is copied into shared memory with
 * cp.async (sm_80+; a plain copy before), so the loads of the next tiles
 * proceed while the block scans, publishes and looks back.  Every thread
 * copies and later reads only its own 16-byte vectors, so the staging needs
 * no barrier, and the accesses are warp-striped: each load and store
 * instruction of a warp covers 512 contiguous bytes (fully coalesced, and
 * conflict-free in shared memory).  In the warp-striped layout a warp owns
 * 512 consecutive elements as R rows of 32 vectors; a tile is scanned as
 * per-vector scans, one warp scan per row, a fold of the row totals and a
 * fold of the 8 warp totals.
 *
 * Look-back.  Warp 0 forms the tile's prefix inside its window (below) while
 * warp 1 looks back over the windows before it, concurrently; there is no
 * other atomic on the way, so a tile's wait is about one trip to L2 plus the
 * time its predecessors take to publish.
 *
 * Determinism.  A plain look-back stops at the nearest tile that has
 * published its prefix, which depends on timing, so float results would
 * change from run to run.  Here every tile's prefix has a fixed shape: tiles
 * are grouped in windows of 32, a window's prefix is the left fold of the
 * earlier windows' aggregates, and a tile's prefix is its window's prefix
 * combined with a warp scan over the earlier tiles of its window.  The
 * look-back runs over window descriptors and folds forward from the nearest
 * published window prefix, one window at a time, which performs exactly the
 * operations that produced the window prefix it skips to.  The last tile of
 * a window (by number) publishes the window's aggregate, then its prefix.
 *
 * Accuracy.  Float sums carry the tile prefixes in double; each output is
 * (double prefix of the earlier tiles) + (float scan inside its tile), so a
 * 2^26-element float scan stays within 1e-4 relative of the exact prefix.
 *
 * Descriptors are reused call after call without clearing: a status word is
 * (epoch << 2 | flag) and each launch has a new epoch.  The ticket counter is
 * put back to 0 by the last block to finish.
 */
#include <atomic>
#include <stdio.h>
#include <stdlib.h>
#include "wrc.cuh"

namespace wrc {

namespace {

constexpr unsigned kAggregate = 1, kPrefix = 2;
constexpr unsigned kNoTile = 0xffffffffu;
constexpr int kWarps = kThreads / 32;
constexpr int kRing = 8;                  /* ticket ring: > kScanStages */

/* Tiles in flight per block (the one being scanned included). */
template <typename T> __host__ __device__ constexpr int scan_stages() { return sizeof(T) == 4 ? 4 : 3; }
template <typename T> constexpr size_t scan_smem() { return (size_t)scan_stages<T>() * kTile * sizeof(T); }

template <wr_op O, typename T> struct carry_of { typedef T type; };
template <> struct carry_of<WR_SUM, float> { typedef double type; };

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

/* Wait until the status word at p belongs to this epoch; return it.  The
 * pause between polls grows from the tuning's first to its last value:
 * many warps polling a few L2 lines at a short interval slow down the very
 * stores they wait for (CUB waits a fixed ~350 ns on Hopper). */
struct poll_tune { unsigned first, most; int skip; };

__device__ __forceinline__ unsigned wait_epoch(const unsigned *p, unsigned epoch, poll_tune pt)
{
    unsigned st, ns = pt.first;
    if (pt.skip & 4) return epoch << 2 | 2u;
    while (((st = ld_acquire(p)) >> 2) != epoch) {
        __nanosleep(ns);
        ns = ns * 2 < pt.most ? ns * 2 : pt.most;
    }
    return st;
}

/* 16 bytes global -> shared without going through registers (cp.async, sm_80+). */
__device__ __forceinline__ void cp16(void *s, const void *g)
{
#if __CUDA_ARCH__ >= 800
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(g) : "memory");
#else
    *(int4 *)s = *(const int4 *)g;
#endif
}
__device__ __forceinline__ void cp_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/* Wait until at most N of this thread's committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cp_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
#endif
}

/* Where the descriptors of one launch live: per tile its aggregate A, per
 * window of 32 tiles its aggregate W and inclusive prefix, status words.
 * One zeroed block of scan_bytes(tiles) in lane scratch. */
template <typename C> struct desc {
    C *tagg, *wagg, *wincl;
    unsigned *tstat, *wstat;
};

size_t scan_bytes(size_t tiles)         /* tiles: a multiple of 32 */
{
    return tiles * (8 + 4) + tiles / 32 * (8 + 8 + 4);
}

template <typename C> desc<C> scan_desc(void *blk, size_t tiles)
{
    desc<C> d;
    char *p = (char *)blk;
    const size_t w = tiles / 32;
    d.tagg = (C *)p;                      p += tiles * 8;
    d.wagg = (C *)p;                      p += w * 8;
    d.wincl = (C *)p;                     p += w * 8;
    d.tstat = (unsigned *)p;              p += tiles * 4;
    d.wstat = (unsigned *)p;
    return d;
}

/* The prefix of window k (> 0) from the window descriptors: the nearest
 * earlier window j that published its inclusive prefix, then the aggregates
 * of windows j+1 .. k-1 folded onto it one by one, in order.  Whichever j
 * is found, the operations are those that produced the prefix of window k-1
 * and then one more: the same bits on every run.  All 32 lanes of a warp. */
template <class FC, typename C>
__device__ __forceinline__ C look_back(long long k, unsigned epoch, const unsigned *stat, const C *agg,
                                       const C *incl, poll_tune pt)
{
    const int lane = (int)(threadIdx.x & 31);
    long long top = k - 1, jp;
    for (;;) {
        const long long j = top - lane;
        unsigned flag = 0;                /* lanes before window 0 see nothing */
        if (j >= 0) flag = wait_epoch(stat + j, epoch, pt) & 3u;
        const unsigned pm = __ballot_sync(warpred::full_mask, flag == kPrefix);
        if (pm) { jp = top - (__ffs(pm) - 1); break; }
        /* no prefix among these windows: further back, or, when these reach
         * window 0, again (window 0 publishes its prefix without looking back) */
        if (top >= 32) top -= 32;
        else __nanosleep(pt.most);
    }
    (void)ld_acquire(stat + jp);
    C e = ld_volatile(incl + jp);
    for (long long b = jp + 1; b < k; b += 32) {
        const long long j = b + lane;
        C a = C();
        if (j < k) { (void)ld_acquire(stat + j); a = ld_volatile(agg + j); }
        const int cnt = k - b < 32 ? (int)(k - b) : 32;
        for (int q = 0; q < cnt; q++) e = FC::combine(e, __shfl_sync(warpred::full_mask, a, q));
    }
    return e;
}

/*
 * Tile i = 32k + r has the exclusive prefix
 *     PB_k op S(k, r)          (PB_k alone when r == 0)
 * where S(k, r) is lane r-1 of the warp's inclusive scan over the aggregates
 * of tiles 32k, 32k+1, ... (lane r-1 depends on lanes 0..r-1 only, so every
 * tile that forms it gets the same bits) and PB_k, the prefix of window k,
 * is the left fold of the window aggregates W_0, ..., W_{k-1} (W_j the same
 * warp scan over the whole window, read at its last lane) after the carry if
 * any.  The last tile of window k publishes W_k, then PB_k op W_k.
 */
template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads)
k_scan(const T *in, T *out, size_t n, unsigned ntiles, int exclusive, unsigned epoch,
       desc<typename carry_of<O, T>::type> d, unsigned *tctr, unsigned *dctr,
       const typename carry_of<O, T>::type *carry_in, typename carry_of<O, T>::type *carry_out, int vec_ok,
       poll_tune pt, int burst)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int V = 16 / sizeof(T);                   /* elements per vector */
    constexpr int R = kTileItems / V;                   /* vectors per thread: rows of a warp's chunk */
    constexpr int S = scan_stages<T>();
    static_assert(S + 2 <= kRing && S <= 4, "ticket ring too small, or cp_wait below too short");
    extern __shared__ __align__(16) unsigned char s_raw[];
    vec<T> *const sbuf = reinterpret_cast<vec<T> *>(s_raw);
    __shared__ unsigned s_tick[kRing];
    __shared__ T s_wt[kWarps], s_wt2[kWarps];
    __shared__ C s_pb, s_sp;
    __shared__ int s_have;
    __shared__ unsigned s_nd;

    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
    const unsigned vo = warp * 32 * R + lane;           /* this thread's first vector in a tile */
    const unsigned drawer = kThreads - 1;               /* warp 7 is idle during the look-back */
    /* drawer only: tickets drawn so far, and whether the last one was a tile */
    unsigned nd = 0;
    bool drawing = true;
    auto record = [&](unsigned t) {
        if (!drawing) return;
        if (t >= ntiles) { t = kNoTile; drawing = false; }
        s_tick[nd % kRing] = t;
        nd++;
    };
    auto full_tile = [&](unsigned t) { return vec_ok && ((size_t)t + 1) * kTile <= n; };
    /* issue this thread's copies of tile t into stage s (one group, maybe empty) */
    auto issue = [&](int s, unsigned t) {
        if (t != kNoTile && full_tile(t)) {
            const vec<T> *g = reinterpret_cast<const vec<T> *>(in + (size_t)t * kTile) + vo;
            vec<T> *sp = sbuf + (size_t)s * (kTile / V) + vo;
#pragma unroll
            for (int q = 0; q < R; q++) cp16(sp + q * 32, g + q * 32);
        }
        cp_commit();
    };

    auto wait_copies = [&](unsigned pend) {             /* at most pend of this thread's groups left */
        switch (pend) {
        case 0:  cp_wait<0>(); break;
        case 1:  cp_wait<1>(); break;
        case 2:  cp_wait<2>(); break;
        default: cp_wait<3>(); break;
        }
    };
    /* this thread's R vectors of tile t (warp-striped): from stage s once its
     * copies are in (pend groups issued after them), or from memory */
    auto load = [&](unsigned t, int s, unsigned pend, T (&x)[R][V]) {
        if (full_tile(t)) {
            wait_copies(pend);
            const vec<T> *sp = sbuf + (size_t)s * (kTile / V) + vo;
#pragma unroll
            for (int q = 0; q < R; q++) {
                const vec<T> v = sp[q * 32];
#pragma unroll
                for (int j = 0; j < V; j++) x[q][j] = v.v[j];
            }
        } else {
            const size_t e0 = (size_t)t * kTile + (size_t)vo * V;
#pragma unroll
            for (int q = 0; q < R; q++)
#pragma unroll
                for (int j = 0; j < V; j++) {
                    const size_t e = e0 + (size_t)q * 32 * V + j;
                    x[q][j] = e < n ? in[e] : F::neutral();
                }
        }
    };
    auto window_of = [&](unsigned t, unsigned &k, unsigned &r, unsigned &wsize) {
        k = t / 32;
        r = t % 32;
        wsize = ntiles - 32 * k < 32 ? ntiles - 32 * k : 32;
    };
    /* Ahead of its scan, tile u's aggregate: every thread folds its elements
     * (a fixed shape), each warp reduces, and after a barrier thread 0 folds
     * the warp values and publishes it.  Then, if u is the last tile of its
     * window, warp 0 forms and publishes the window's aggregate W and keeps it
     * (lane 0) for the window's prefix, published after u's look-back. */
    auto ahead_part = [&](unsigned u, int s, unsigned pend) {
        T acc = F::neutral();
        if (u != kNoTile) {
            T y[R][V];
            load(u, s, pend, y);
#pragma unroll
            for (int q = 0; q < R; q++)
#pragma unroll
                for (int j = 0; j < V; j++) acc = F::combine(acc, y[q][j]);
            acc = warpred::warp_reduce<O>(acc);
        }
        if (lane == 0) s_wt2[warp] = acc;
    };
    auto ahead_publish = [&](unsigned u, C &w) {       /* warp 0, after a barrier since ahead_part */
        if (u == kNoTile) return;
        if (lane == 0) {
            T bt = s_wt2[0];
#pragma unroll
            for (int q = 1; q < kWarps; q++) bt = F::combine(bt, s_wt2[q]);
            d.tagg[u] = (C)bt;
            st_release(d.tstat + u, epoch << 2 | kAggregate);
        }
        unsigned k, r, wsize;
        window_of(u, k, r, wsize);
        if (r != wsize - 1) return;
        C a = FC::neutral();
        if (lane < wsize) {
            const unsigned j = 32 * k + lane;
            if (!(pt.skip & 1)) (void)wait_epoch(d.tstat + j, epoch, pt);
            a = ld_volatile(d.tagg + j);
        }
        a = warpred::warp_inclusive_scan<O>(a);
        w = __shfl_sync(warpred::full_mask, a, wsize - 1);
        if (lane == 0) {
            d.wagg[k] = w;
            st_release(d.wstat + k, epoch << 2 | kAggregate);
        }
    };

    /*
     * Tickets and aggregates ahead.  A tile's successors in its window wait
     * for its aggregate, and every tile of the next window for the window's
     * aggregate.  If a block published a tile's aggregate only when it
     * scanned that tile (after its earlier tiles were done), those waits
     * would chain the tiles held in the blocks' queues: the first versions
     * of this kernel did, and ran at 0.14-0.24x the copy; without any wait
     * the same kernel ran at 0.70x.  So each iteration also publishes the
     * aggregate of the block's NEXT tile (and its window's aggregate when it
     * closes a window): by the time tiles are scanned, everything they wait
     * for was published an iteration earlier.  The block's first two tickets
     * are drawn together, then one per iteration (plus one more while the
     * queue fills).
     */
    if (tid == drawer) {
        record(atomicAdd(tctr, 1u));
        record(atomicAdd(tctr, 1u));
        for (int q = 2; burst && q < S; q++) record(atomicAdd(tctr, 1u));
        s_nd = nd;
    }
    __syncthreads();
    unsigned issued = 0;                                /* tickets whose copies were issued (uniform) */
    for (; issued < s_nd && issued < (unsigned)S - 1; issued++) issue((int)(issued % S), s_tick[issued % kRing]);
    unsigned dx = 0;                                    /* drawer: the extra ticket drawn at the end */
    bool extra = false;                                 /* of the last iteration, not yet recorded */
    C w_cur = C(), w_next = C();                        /* thread 0: W of the window that t, u close */
    {
        const unsigned t0 = s_tick[0];
        ahead_part(t0, 0, issued - 1);
        __syncthreads();
        if (warp == 0) ahead_publish(t0, w_next);
        __syncthreads();                                /* s_wt2 is written again in the loop */
    }

    for (unsigned it = 0;; it++) {
        const unsigned t = s_tick[it % kRing];          /* it < s_nd: drawn */
        if (t == kNoTile) break;                        /* uniform: read after a barrier */
        const unsigned u = s_tick[(it + 1) % kRing];    /* drawn too: s_nd >= it + 2 */
        w_cur = w_next;
        {
            const unsigned known = s_nd, lim = known < it + S ? known : it + S;
            for (; issued < lim; issued++) issue((int)(issued % S), s_tick[issued % kRing]);
        }
        unsigned d1 = 0;
        const bool draw1 = tid == drawer && drawing;
        if (draw1) d1 = atomicAdd(tctr, 1u);           /* recorded before barrier B */

        /* ---- this tile's data (arrived: its aggregate was formed from it), and the next tile's aggregate ---- */
        T x[R][V];
        load(t, (int)(it % S), issued - (it + 1), x);
        ahead_part(u, (int)((it + 1) % S), issued - (it + 2));
        const bool full = full_tile(t);

        /* ---- the tile's own scan ---- */
        T rx[R];                /* before vector q of this lane: earlier rows op earlier lanes of row q */
        T run = F::neutral();   /* fold of the warp's row totals so far */
#pragma unroll
        for (int q = 0; q < R; q++) {
#pragma unroll
            for (int j = 1; j < V; j++) x[q][j] = F::combine(x[q][j - 1], x[q][j]);
            const T inc = warpred::warp_inclusive_scan<O>(x[q][V - 1]);
            const T tot = __shfl_sync(warpred::full_mask, inc, 31);
            const T up = __shfl_up_sync(warpred::full_mask, inc, 1);
            rx[q] = lane ? F::combine(run, up) : run;
            run = F::combine(run, tot);
        }
        if (lane == 31) s_wt[warp] = run;
        __syncthreads();                                /* barrier A */
        T wb = F::neutral();                            /* the earlier warps of the tile */
        for (unsigned q = 0; q < warp; q++) wb = F::combine(wb, s_wt[q]);

        /* ---- warp 0: next tile's aggregate, this tile's prefix in its window; warp 1: look-back ---- */
        unsigned k, r, wsize;
        window_of(t, k, r, wsize);
        const bool wlast = r == wsize - 1;
        if (warp == 0) {
            ahead_publish(u, w_next);
            C sp = C();
            if (r) {
                C a = FC::neutral();
                if (lane < r) {
                    const unsigned j = 32 * k + lane;
                    if (!(pt.skip & 1)) (void)wait_epoch(d.tstat + j, epoch, pt);
                    a = ld_volatile(d.tagg + j);
                }
                a = warpred::warp_inclusive_scan<O>(a);
                sp = __shfl_sync(warpred::full_mask, a, r - 1);
            }
            if (lane == 0) s_sp = sp;
        } else if (warp == 1) {
            C pb = C();
            int have = 1;
            if (k == 0) {
                have = carry_in != nullptr;
                if (have) pb = *carry_in;
            } else if (!(pt.skip & 2)) {
                pb = look_back<FC>((long long)k, epoch, d.wstat, d.wagg, d.wincl, pt);
            }
            if (lane == 0) {
                s_pb = pb;
                s_have = have;
            }
        }
        if (tid == drawer) {
            if (extra) record(dx);                     /* drawn before d1: a smaller ticket */
            extra = false;
            if (draw1) record(d1);
            s_nd = nd;
        }
        __syncthreads();                                /* barrier B */
        if (tid == drawer && drawing && nd < it + S + 1) {  /* the queue is not full yet */
            dx = atomicAdd(tctr, 1u);
            extra = true;
        }
        const C pb = s_pb;
        bool have = s_have;
        if (tid == 0 && wlast) {
            const C wi = have ? FC::combine(pb, w_cur) : w_cur;
            d.wincl[k] = wi;
            st_release(d.wstat + k, epoch << 2 | kPrefix);
            if (carry_out && 32 * k + wsize == ntiles) *carry_out = wi;
        }
        C excl = pb;
        if (r) {
            excl = have ? FC::combine(pb, s_sp) : s_sp;
            have = true;
        }

        /* ---- outputs ---- */
        T y[R][V];
#pragma unroll
        for (int q = 0; q < R; q++) {
            const T pre = F::combine(wb, rx[q]);        /* everything in the tile before vector q */
#pragma unroll
            for (int j = 0; j < V; j++) {
                T loc;
                bool any = true;
                if (!exclusive) loc = F::combine(pre, x[q][j]);
                else if (j) loc = F::combine(pre, x[q][j - 1]);
                else { loc = pre; any = (vo | q) != 0; }  /* element 0 of the tile has nothing before it */
                if (any) y[q][j] = have ? (T)FC::combine(excl, (C)loc) : loc;
                else     y[q][j] = have ? (T)excl : F::identity();
            }
        }
        if (full) {
            vec<T> *gp = reinterpret_cast<vec<T> *>(out + (size_t)t * kTile) + vo;
#pragma unroll
            for (int q = 0; q < R; q++) {
                vec<T> v;
#pragma unroll
                for (int j = 0; j < V; j++) v.v[j] = y[q][j];
                gp[q * 32] = v;
            }
        } else {
            const size_t e0 = (size_t)t * kTile + (size_t)vo * V;
#pragma unroll
            for (int q = 0; q < R; q++)
#pragma unroll
                for (int j = 0; j < V; j++) {
                    const size_t e = e0 + (size_t)q * 32 * V + j;
                    if (e < n) out[e] = y[q][j];
                }
        }
    }
    cp_wait<0>();
    /* the last block out puts the ticket counter back for the next launch */
    __syncthreads();
    if (tid == 0) {
        __threadfence();
        if (atomicAdd(dctr, 1u) == gridDim.x - 1) {
            *tctr = 0;
            *dctr = 0;
        }
    }
}

/* Polling and ticket tuning: WARPRED_CUDA_SCAN_TUNE="first,most[,burst[,per_sm]]"
 * (nanoseconds; burst 1 draws a block's first S tickets back to back;
 * blocks per SM, 0: as many as fit). */
struct scan_tuning { poll_tune pt; int burst, per_sm; };

const scan_tuning &tune()
{
    static const scan_tuning t = [] {
        scan_tuning r = { { 128, 512, 0 }, 0, 0 };
        const char *v = getenv("WARPRED_CUDA_SCAN_TUNE");
        unsigned a, b;
        int c = 0, e = 0, f = 0;
        if (v && sscanf(v, "%u,%u,%d,%d,%d", &a, &b, &c, &e, &f) >= 2 && a > 0 && b >= a && b <= 100000) {
            r.pt.skip = f;
            r.pt.first = a;
            r.pt.most = b;
            r.burst = c != 0;
            r.per_sm = e > 0 ? e : 0;
        }
        return r;
    }();
    return t;
}

struct scan_fn {
    template <wr_op O, typename T>
    static wr_status run(lane &L, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, char *err)
    {
        typedef typename carry_of<O, T>::type C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        static std::atomic<int> per_sm{0};
        const size_t tiles = (n + kTile - 1) / kTile;
        if (tiles >= kNoTile) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
        auto k = k_scan<O, T>;
        constexpr size_t smem = scan_smem<T>();
        if (per_sm.load(std::memory_order_relaxed) == 0) {
            WRC_CK(cudaFuncSetAttribute, ((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            int b = 0;
            WRC_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&b, k, kThreads, smem));
            per_sm.store(b > 0 ? b : 1, std::memory_order_relaxed);
        }
        if (tiles > L.scap) {
            const size_t cap = (tiles + tiles / 4 + 31) / 32 * 32;
            size_t bytes = L.scap ? scan_bytes(L.scap) : 0;
            L.scap = 0;                       /* until the new block exists */
            L.epoch = 0;
            WRC_TRY(grow(L, L.sblk, &bytes, scan_bytes(cap), true, "scan descriptors", err));
            L.scap = cap;
        }
        if (++L.epoch >= (1u << 30)) {      /* epochs wrap: clear the statuses once */
            WRC_CK(cudaMemsetAsync, (L.sblk, 0, scan_bytes(L.scap), L.st));
            L.epoch = 1;
        }
        const int vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        size_t grid = (size_t)L.sms * (size_t)per_sm.load(std::memory_order_relaxed);
        if (tune().per_sm > 0 && tune().per_sm < per_sm.load(std::memory_order_relaxed))
            grid = (size_t)L.sms * (size_t)tune().per_sm;
        if (grid > tiles) grid = tiles;
        k<<<(unsigned)grid, kThreads, smem, L.st>>>((const T *)in, (T *)out, n, (unsigned)tiles, exclusive,
                                                   L.epoch, scan_desc<C>(L.sblk, L.scap), L.ctr + 1, L.ctr + 2,
                                                   (const C *)carry_in, (C *)carry_out, vec_ok, tune().pt,
                                                   tune().burst);
        WRC_CKLAUNCH("scan kernel launch");
        return WR_SUCCESS;
    }
};

} /* namespace */

wr_status launch_scan(lane &L, const void *in, void *out, size_t n, wr_type t, wr_op o, int exclusive,
                      const void *carry_in, void *carry_out, char *err)
{
    return dispatch<scan_fn>(t, o, L, in, out, n, exclusive, carry_in, carry_out, err);
}

} /* namespace wrc */

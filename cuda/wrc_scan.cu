/*
 * wrc_scan.cu -- device-wide inclusive/exclusive scan in a single pass with
 * decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 * with Decoupled Look-back", NVIDIA NVR-2016-002).
 *
 * One block per tile of kTile = 4096 elements (16 per thread, read as
 * 16-byte vectors).  A block takes the next tile number from an atomic
 * counter, so every smaller tile has already started (no deadlock whatever
 * the scheduling); it scans its tile (thread-local scan, then the block scan
 * of warpred_device.cuh: per-warp shuffle scans plus an exclusive scan of the
 * warp totals), publishes the tile's aggregate, and warp 0 looks back over
 * the predecessors' descriptors for the tile's exclusive prefix.
 *
 * Determinism.  A plain look-back stops at the nearest tile that has
 * published its prefix, which depends on timing, so float results would
 * change from run to run.  Here every tile's prefix has a fixed shape: tiles
 * are grouped in windows of 32, a window's prefix is the left fold of the
 * earlier windows' aggregates, and a tile's prefix is its window's prefix
 * combined with a warp scan over the earlier tiles of its window (see k_scan).
 * The look-back runs over window descriptors and folds forward from the
 * nearest published window prefix, one window at a time, which performs
 * exactly the operations that produced the window prefix it skips to.
 *
 * Accuracy.  Float sums carry the tile prefixes in double; each output is
 * (double prefix of the earlier tiles) + (float scan inside its tile), so a
 * 2^26-element float scan stays within 1e-4 relative of the exact prefix.
 *
 * Descriptors are reused call after call without clearing: a status word is
 * (epoch << 2 | flag) and each launch has a new epoch; the window arrival
 * counters are put back to 0 by the tile that completes the window.
 */
#include "wrc.cuh"

namespace wrc {

namespace {

constexpr unsigned kAggregate = 1, kPrefix = 2;

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

/* Where the descriptors of one launch live: per tile its aggregate A, per
 * window of 32 tiles its aggregate W and inclusive prefix, status words and
 * an arrival counter.  One zeroed block of scan_bytes(tiles) in lane scratch. */
template <typename C> struct desc {
    C *tagg, *wagg, *wincl;
    unsigned *tstat, *wstat, *wcnt;
};

size_t scan_bytes(size_t tiles)         /* tiles: a multiple of 32 */
{
    return tiles * (8 + 4) + tiles / 32 * (8 + 8 + 4 + 4);
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
    d.wstat = (unsigned *)p;              p += w * 4;
    d.wcnt = (unsigned *)p;
    return d;
}

/* The prefix of window k (> 0) from the window descriptors: the nearest
 * earlier window j that published its inclusive prefix, then the aggregates
 * of windows j+1 .. k-1 folded onto it one by one, in order.  Whichever j
 * is found, the operations are those that produced the prefix of window k-1
 * and then one more: the same bits on every run.  All 32 lanes of a warp. */
template <class FC, typename C>
__device__ __forceinline__ C look_back(long long k, unsigned epoch, const unsigned *stat, const C *agg,
                                       const C *incl)
{
    const int lane = (int)(threadIdx.x & 31);
    long long top = k - 1, jp;
    for (;;) {
        const long long j = top - lane;
        unsigned flag = 0;                /* lanes before window 0 see nothing */
        if (j >= 0) {
            unsigned st;
            while (((st = ld_acquire(stat + j)) >> 2) != epoch) __nanosleep(32);
            flag = st & 3u;
        }
        const unsigned pm = __ballot_sync(warpred::full_mask, flag == kPrefix);
        if (pm) { jp = top - (__ffs(pm) - 1); break; }
        /* no prefix among these windows: further back, or, when these reach
         * window 0, again (window 0 publishes its prefix without looking back) */
        if (top >= 32) top -= 32;
        else __nanosleep(64);
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

/* The aggregates of tiles w0 .. w0+r-1 (r = 1..32) combined by the warp's
 * inclusive scan, read at lane r-1: a fixed shape that lanes r.. do not
 * touch, so every tile that asks gets the same bits.  All 32 lanes. */
template <wr_op O, typename C>
__device__ __forceinline__ C window_partial(size_t w0, int r, unsigned epoch, const unsigned *tstat, const C *tagg)
{
    const int lane = (int)(threadIdx.x & 31);
    C a = warpred::op<O, C>::neutral();
    if (lane < r) {
        while ((ld_acquire(tstat + w0 + lane) >> 2) != epoch) __nanosleep(32);
        a = ld_volatile(tagg + w0 + lane);
    }
    a = warpred::warp_inclusive_scan<O>(a);
    return __shfl_sync(warpred::full_mask, a, r - 1);
}

/*
 * Tile i = 32k + r has the exclusive prefix
 *     PB_k op S(k, r)          (PB_k alone when r == 0)
 * where S(k, r) is window_partial over tiles 32k .. i-1 and PB_k, the prefix
 * of window k, is the left fold of the window aggregates W_0, W_1, ..., W_{k-1}
 * (each W the window_partial of its whole window), after the carry if any.
 * Every term has a fixed shape, so the scan is deterministic; the look-back
 * runs over windows (a few steps back) rather than tiles, and the in-window
 * part is a 5-step warp scan.  The last tile of a window to arrive (an
 * atomic counter) publishes W_k, then, once it knows PB_k, PB_k op W_k.
 */
template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads)
k_scan(const T *in, T *out, size_t n, int exclusive, unsigned epoch, desc<typename carry_of<O, T>::type> d,
       unsigned *tctr, const typename carry_of<O, T>::type *carry_in, typename carry_of<O, T>::type *carry_out,
       int vec_ok)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int I = kTileItems, V = 16 / sizeof(T);
    __shared__ warpred::block_storage<T> bs;
    __shared__ unsigned s_tile;
    __shared__ C s_excl;
    __shared__ int s_have;
    const unsigned tid = threadIdx.x;

    if (tid == 0) {
        const unsigned t = atomicAdd(tctr, 1u);
        s_tile = t;
        if (t == gridDim.x - 1) atomicExch(tctr, 0u);   /* the last ticket: every block has taken one */
    }
    __syncthreads();
    const size_t tile = s_tile;
    const size_t first = tile * kTile + (size_t)tid * I;
    const bool full = vec_ok && (tile + 1) * kTile <= n;

    T x[I];
    if (full) {
        const vec<T> *vp = reinterpret_cast<const vec<T> *>(in + first);
#pragma unroll
        for (int q = 0; q < I / V; q++) {
            vec<T> v = vp[q];
#pragma unroll
            for (int j = 0; j < V; j++) x[q * V + j] = v.v[j];
        }
    } else {
#pragma unroll
        for (int k = 0; k < I; k++) x[k] = first + k < n ? in[first + k] : F::neutral();
    }
    /* thread-local inclusive scan, in place */
#pragma unroll
    for (int k = 1; k < I; k++) x[k] = F::combine(x[k - 1], x[k]);

    T btot;
    const T tex = warpred::block_exclusive_scan<O>(x[I - 1], bs, &btot);   /* unused by thread 0 */

    if (tid < 32) {
        const size_t k = tile / 32, nwin = (gridDim.x + 31) / 32;
        const int r = (int)(tile % 32);
        const int wsize = gridDim.x - 32 * k < 32 ? (int)(gridDim.x - 32 * k) : 32;
        int last = 0;
        if (tid == 0) {
            d.tagg[tile] = (C)btot;
            st_release(d.tstat + tile, epoch << 2 | kAggregate);
            __threadfence();
            last = atomicAdd(d.wcnt + k, 1u) == (unsigned)wsize - 1;
        }
        last = __shfl_sync(warpred::full_mask, last, 0);
        C w = C();
        if (last) {                                   /* every tile of window k has its A out */
            __threadfence();
            w = window_partial<O>(32 * k, wsize, epoch, d.tstat, d.tagg);
            if (tid == 0) {
                d.wagg[k] = w;
                st_release(d.wstat + k, epoch << 2 | kAggregate);
                d.wcnt[k] = 0;
            }
        }
        C pb = C();
        int have = 1;
        if (k == 0) {
            have = carry_in != nullptr;
            if (have) pb = *carry_in;
        } else {
            pb = look_back<FC>((long long)k, epoch, d.wstat, d.wagg, d.wincl);
        }
        if (last && tid == 0) {
            const C wi = have ? FC::combine(pb, w) : w;
            d.wincl[k] = wi;
            st_release(d.wstat + k, epoch << 2 | kPrefix);
            if (carry_out && k == nwin - 1) *carry_out = wi;
        }
        C excl = pb;
        if (r > 0) {
            const C sp = window_partial<O>(32 * k, r, epoch, d.tstat, d.tagg);
            excl = have ? FC::combine(pb, sp) : sp;
            have = 1;
        }
        if (tid == 0) {
            s_excl = excl;
            s_have = have;
        }
    }
    __syncthreads();
    const C excl = s_excl;
    const bool have = s_have;

    T y[I];
#pragma unroll
    for (int k = 0; k < I; k++) {
        /* this element's prefix inside the tile; thread 0 has no earlier threads,
         * and element 0 of an exclusive scan no earlier element of its own */
        T loc;
        bool any = true;
        if (!exclusive) loc = tid ? F::combine(tex, x[k]) : x[k];
        else if (k) loc = tid ? F::combine(tex, x[k - 1]) : x[k - 1];
        else { loc = tex; any = tid != 0; }
        if (any) y[k] = have ? (T)FC::combine(excl, (C)loc) : loc;
        else     y[k] = have ? (T)excl : F::identity();
    }
    if (full) {
        vec<T> *vp = reinterpret_cast<vec<T> *>(out + first);
#pragma unroll
        for (int q = 0; q < I / V; q++) {
            vec<T> v;
#pragma unroll
            for (int j = 0; j < V; j++) v.v[j] = y[q * V + j];
            vp[q] = v;
        }
    } else {
#pragma unroll
        for (int k = 0; k < I; k++) if (first + k < n) out[first + k] = y[k];
    }
}

struct scan_fn {
    template <wr_op O, typename T>
    static wr_status run(lane &L, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, char *err)
    {
        typedef typename carry_of<O, T>::type C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + kTile - 1) / kTile;
        if (tiles > 0xffffffffu) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
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
        k_scan<O, T><<<(unsigned)tiles, kThreads, 0, L.st>>>((const T *)in, (T *)out, n, exclusive, L.epoch,
                                                           scan_desc<C>(L.sblk, L.scap), L.ctr + 1,
                                                           (const C *)carry_in, (C *)carry_out, vec_ok);
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

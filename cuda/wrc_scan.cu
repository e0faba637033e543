/*
 * wrc_scan.cu -- device-wide inclusive/exclusive scan in a single pass with
 * decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 * with Decoupled Look-back", NVIDIA NVR-2016-002).
 *
 * Tiles are 32 KB: 2 sub-tiles of kTile = 4096 elements of 4-byte types,
 * 1 of 8-byte types (16 elements per thread each).  Blocks stay resident
 * (one wave) and draw tile numbers from an atomic counter, so every smaller
 * tile is held by a running block (no deadlock whatever the scheduling).
 * Each block runs a software pipeline over two shared-memory buffers
 * (k_scan_pipe): it copies the next tile in with cp.async while it finishes
 * the current one; once a tile has landed it scans it in the block
 * (thread-local scan, then the block scan of warpred_device.cuh: per-warp
 * shuffle scans plus an exclusive scan of the warp totals) and publishes its
 * aggregate A at once, before it looks back for the tile before it; the
 * whole block then looks back over the predecessors' descriptors for the
 * older tile's exclusive prefix (see look_back for why the whole block),
 * publishes its prefix, and stores its outputs.
 *
 * Determinism.  A plain look-back combines the aggregates it meets back to
 * the nearest tile that has published its inclusive prefix, and which tile
 * that is depends on timing: float results would change from run to run.
 * Here the inclusive prefix of tile t is *defined* as the left fold
 *     P_t = (...((A_0 op A_1) op A_2) ... ) op A_t      (after the carry, if any)
 * and the look-back computes it as P_j op A_{j+1} op ... op A_t, one term
 * at a time from the nearest published P_j.  Since P_j itself came from
 * exactly the operations that precede it in that fold, every j gives the
 * same bits: the result does not depend on where the look-back stops, on
 * the grid, or on the scheduling (tests/cuda/test_cuda_determinism).
 * Integer scans are exact in any order, so there the terms are combined by
 * a block reduction instead of one by one (float MIN/MAX fold too: with
 * several NaNs the order decides which NaN's bits come out).  The look-back has
 * no chain of its own beyond that of CUB's: a tile needs only the nearest
 * prefix and the aggregates after it.
 *
 * Descriptors.  A tile's descriptor is 16 bytes, {value, epoch << 2 | flag},
 * written and read as one 128-bit access (PTX .b128, sm_70+), so a reader
 * never sees a flag without its value.  They are reused call after call
 * without clearing: each launch has a new epoch and statuses of another
 * epoch read as "not yet".
 *
 * Accuracy.  Float sums carry the tile prefixes in double; each output is
 * (double base of its sub-tile: the prefix of the earlier tiles, then of the
 * earlier sub-tile) + (float scan inside its sub-tile of 4096), so a
 * 2^26-element float scan stays within 1e-4 relative of the exact prefix.
 */
#include <atomic>
#include "wrc.cuh"

namespace wrc {

namespace {

constexpr unsigned kAggregate = 1, kPrefix = 2;

/* Build-time knobs for tools/scan_phases.cu's experiments (WRC_SCAN_MINB,
 * WRC_SCAN_BUFS, WRC_SCAN_TILE_BYTES); the plugin uses the defaults.
 * Minimum blocks per SM, only when asked: even a 1 there changes ptxas's
 * register allocation (int32: 64 -> 71 registers, one block less per SM). */
#ifdef WRC_SCAN_MINB
#define WRC_SCAN_BOUNDS __launch_bounds__(kThreads, WRC_SCAN_MINB)
#else
#define WRC_SCAN_BOUNDS __launch_bounds__(kThreads)
#endif

/* Per-phase timestamps of every tile, for tools/scan_phases.cu only: the
 * plugin is built without them. */
#ifdef WRC_SCAN_PROFILE
__device__ unsigned long long *wrc_scan_stamps;
#define WRC_STAMP(k, v)                                                                 \
    do {                                                                                \
        if (threadIdx.x == 0) wrc_scan_stamps[tile * 8 + (k)] = (v);                    \
    } while (0)
__device__ __forceinline__ unsigned long long wrc_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#else
#define WRC_STAMP(k, v) do { } while (0)
#endif

template <wr_op O, typename T> struct carry_of { typedef T type; };
template <> struct carry_of<WR_SUM, float> { typedef double type; };

struct alignas(16) tdesc {
    unsigned long long bits;             /* the value, in the low bytes */
    unsigned long long status;           /* epoch << 2 | flag */
};

size_t scan_bytes(size_t tiles) { return tiles * sizeof(tdesc); }

template <typename C> __device__ __forceinline__ unsigned long long to_bits(C v)
{
    unsigned long long b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <typename C> __device__ __forceinline__ C from_bits(unsigned long long b)
{
    C v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* One 128-bit store / load of a descriptor (relaxed, gpu scope: the value
 * travels in the same access as its flag, so no other ordering is needed). */
__device__ __forceinline__ void st_desc(tdesc *p, unsigned long long bits, unsigned long long status)
{
    asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}"
                 :: "l"(p), "l"(bits), "l"(status) : "memory");
}

__device__ __forceinline__ void ld_desc(const tdesc *p, unsigned long long &bits, unsigned long long &status)
{
    asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
                 : "=l"(bits), "=l"(status) : "l"(p) : "memory");
}

/*
 * The inclusive prefix P_{t-1} of the tiles before tile t (t > 0), by the
 * left fold described above, in every thread of the block.  Each thread
 * reads the descriptor of one of the kThreads tiles before t, waiting for it
 * to carry this launch's epoch (ep = epoch << 2); the nearest one with a
 * prefix starts the fold and thread 0 folds the aggregates after it on, in
 * order (integers: a block reduction).  Without a prefix among them, the
 * block waits a little and reads again: prefixes appear meanwhile.  Tile 0
 * publishes its prefix without looking back, so the walk always ends.
 *
 * Why a whole block reads: one read of the descriptors is a round trip
 * through L2 (~0.5 us) and a prefix is only published after its tile's
 * look-back, so the nearest one lags behind.  Measured with
 * tools/scan_phases.cu on an H200 at 2^28 elements, it is 13-51 tiles back
 * on average with the pipeline below (p90 35-108; 100-130 with one tile per
 * block): often more than a warp's 32 descriptors per round trip (CUB's
 * look-back).
 */
template <wr_op O, typename C>
__device__ __forceinline__ C look_back(long long t, unsigned long long ep, const tdesc *d, C *s_val,
                                       unsigned *s_pm, warpred::block_storage<C> &s_red)
{
    typedef warpred::op<O, C> FC;
    /* integer ops give the same bits in any order.  Float MIN/MAX are exact
     * too, but with several NaNs the one that comes out depends on the order
     * of the operands (wr_ops.h returns the first), and a tree over a window
     * that varies from run to run would change the NaN's bits: they fold. */
    constexpr bool exact = std::is_integral<C>::value;
    const int tid = (int)threadIdx.x, lane = tid & 31;
#ifdef WRC_SCAN_PROFILE
    const long long tile = t;
    int passes = 0;
#endif
    for (;;) {
        const long long j = t - 1 - tid;
        unsigned long long bits = 0, st = 0;
        if (j >= 0) {
            ld_desc(d + j, bits, st);
            while ((st & ~3ull) != ep) {
                __nanosleep(20);
                ld_desc(d + j, bits, st);
            }
        }
        s_val[tid] = from_bits<C>(bits);
        const unsigned pm = __ballot_sync(warpred::full_mask, j >= 0 && (st & 3u) == kPrefix);
        if (lane == 0) s_pm[tid / 32] = pm;
        __syncthreads();
        int p = -1;                               /* tile t-1-p: the nearest prefix */
#pragma unroll
        for (int w = kThreads / 32 - 1; w >= 0; w--)
            if (s_pm[w]) p = w * 32 + __ffs(s_pm[w]) - 1;
        if (p >= 0) {
            WRC_STAMP(4, (unsigned long long)p);
            WRC_STAMP(5, (unsigned long long)passes);
            WRC_STAMP(6, wrc_now());
            if constexpr (exact) {
                /* P_j and the aggregates after it in a block reduction: ~0.1 us
                 * whatever the distance, where a serial fold takes ~10 ns a tile */
                return warpred::block_reduce<O>(tid <= p ? s_val[tid] : FC::neutral(), s_red);
            } else {
                /* the left fold, in thread 0: smem loads 8 at a time ahead of the
                 * dependent combines, so it runs at the combine's latency */
                if (tid == 0) {
                    C e = s_val[p];
                    int q = p - 1;
                    for (; q >= 7; q -= 8) {
                        C a[8];
#pragma unroll
                        for (int u = 0; u < 8; u++) a[u] = s_val[q - u];
#pragma unroll
                        for (int u = 0; u < 8; u++) e = FC::combine(e, a[u]);
                    }
                    for (; q >= 0; q--) e = FC::combine(e, s_val[q]);
                    s_red.warp[0] = e;
                }
                __syncthreads();
                return s_red.warp[0];
            }
        }
        __syncthreads();                          /* s_val and s_pm are read again */
        __nanosleep(256);
#ifdef WRC_SCAN_PROFILE
        passes++;
#endif
    }
}

/* ---- the pipelined tile loop ---------------------------------------------
 * The previous kernel took one tile per block (tools/scan_phases.cu, on an
 * H200: a tile spent ~45 % of its life waiting for its look-back with no
 * loads of its own in flight).  Here blocks stay resident and loop over
 * tiles in a software pipeline over kBufs shared-memory buffers filled by
 * cp.async (sm_80+):
 *   - a tile is staged (copied into shared memory) as soon as its ticket is
 *     drawn, while the block finishes the tile before it;
 *   - once it has landed, the block computes its aggregate and publishes it,
 *     *before* it looks back for its older tile: aggregates go out a whole
 *     step early, so look-backs find them (no extra look-back passes);
 *   - then the older tile is finished: look-back, prefix out, scan, store.
 * Measured (doc/PERFORMANCE.md): +3-8 % over one tile per block, 2 buffers
 * (3 blocks per SM) ahead of 3 buffers (2 per SM), 32 KB tiles ahead of 16.
 * Deadlock: tickets are drawn in order by running blocks only, so the
 * smallest unfinished tile belongs to a running block whose earlier tiles
 * are all finished, and every tile before it has published at least its
 * aggregate.  A tile's aggregate is computed exactly as its scan computes
 * the sub-tile totals (thread fold, then the block scan's total), and the
 * left fold makes the bits independent of which block scans which tile.
 * Shared layout: 16-byte chunk c of a tile lives at chunk swz(c), which
 * spreads the 16-byte reads of 8 consecutive threads (64 or 128 bytes
 * apart) over all 32 banks.
 */
#ifndef WRC_SCAN_BUFS
#define WRC_SCAN_BUFS 2
#endif
#ifndef WRC_SCAN_TILE_BYTES
#define WRC_SCAN_TILE_BYTES 32768
#endif
constexpr int kBufs = WRC_SCAN_BUFS;
static_assert(kBufs == 2 || kBufs == 3, "2 or 3 staging buffers");

template <typename T> struct ptile {
    /* sub-tiles of kTile elements: 2 of 4-byte, 1 of 8-byte elements */
    static constexpr int sub = WRC_SCAN_TILE_BYTES / (kTile * sizeof(T)) > 0 ? WRC_SCAN_TILE_BYTES / (kTile * sizeof(T)) : 1;
    static constexpr size_t elems = sub * kTile, bytes = elems * sizeof(T);
    static constexpr int V = 16 / sizeof(T);
    /* staging chunks (warpred_cuda.cu) start on tile boundaries */
    static_assert(kScanTileBytes % bytes == 0, "kScanTileBytes is whole tiles");
    static_assert(sub <= 2, "scan_smem has block-scan storage for 2 sub-tiles");
};

__device__ __forceinline__ unsigned swz(unsigned c) { return c ^ ((c >> 3) & 7u); }

/* Copy tile t (if t < tiles) into buf: 16-byte cp.async when the tile is
 * whole and aligned, else element by element with the neutral element past
 * n.  Always one commit group, so that waits can count groups. */
template <typename T, typename F>
__device__ __forceinline__ void stage(T *buf, const T *in, size_t n, size_t t, size_t tiles, int vec_ok)
{
    typedef ptile<T> P;
    const unsigned tid = threadIdx.x;
    if (t < tiles) {
        const size_t base = t * P::elems;
        if (vec_ok && base + P::elems <= n) {
            const vec<T> *src = reinterpret_cast<const vec<T> *>(in + base);
            vec<T> *vb = reinterpret_cast<vec<T> *>(buf);
#pragma unroll
            for (unsigned r = 0; r < P::bytes / 16 / kThreads; r++) {
                const unsigned c = r * kThreads + tid;
                const unsigned dst = (unsigned)__cvta_generic_to_shared(vb + swz(c));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src + c) : "memory");
            }
        } else {
            for (unsigned e = tid; e < P::elems; e += kThreads) {
                T *dst = buf + swz(e / P::V) * P::V + e % P::V;
                if (base + e < n) {
                    const unsigned sa = (unsigned)__cvta_generic_to_shared(dst);
                    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                                 :: "r"(sa), "l"(in + base + e), "n"(sizeof(T)) : "memory");
                } else {
                    *dst = F::neutral();
                }
            }
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N> __device__ __forceinline__ void staged_wait()
{
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
    __syncthreads();
}

/* this thread's 16 consecutive elements of each sub-tile, from the buffer */
template <typename T>
__device__ __forceinline__ void unstage(T (&x)[ptile<T>::sub][kTileItems], const T *buf)
{
    constexpr int I = kTileItems, V = ptile<T>::V;
    constexpr unsigned sub_chunks = kTile * sizeof(T) / 16;
    const vec<T> *vb = reinterpret_cast<const vec<T> *>(buf);
#pragma unroll
    for (int s = 0; s < ptile<T>::sub; s++) {
#pragma unroll
        for (int q = 0; q < I / V; q++) {
            const vec<T> v = vb[swz(s * sub_chunks + threadIdx.x * (I / V) + q)];
#pragma unroll
            for (int j = 0; j < V; j++) x[s][q * V + j] = v.v[j];
        }
    }
}

/* thread-local inclusive scans, then across the block: tex[s] = the exclusive
 * prefix of this thread's part of sub-tile s, tot[s] = the sub-tile's total */
template <wr_op O, typename T, int S>
__device__ __forceinline__ void in_tile_scan(T (&x)[S][kTileItems], T (&tex)[S], T (&tot)[S],
                                             warpred::block_storage<T> *bs)
{
    typedef warpred::op<O, T> F;
#pragma unroll
    for (int s = 0; s < S; s++) {
#pragma unroll
        for (int k = 1; k < kTileItems; k++) x[s][k] = F::combine(x[s][k - 1], x[s][k]);
        tex[s] = warpred::block_exclusive_scan<O>(x[s][kTileItems - 1], bs[s], &tot[s]);
    }
}

/* the shared memory of a block besides its staging buffers */
template <typename T, typename C> struct scan_smem {
    warpred::block_storage<T> bs[2];     /* the block scans of the (up to 2) sub-tiles */
    C s_val[kThreads];                   /* look-back: the descriptors' values */
    unsigned s_pm[kThreads / 32];        /* look-back: which of them are prefixes */
    warpred::block_storage<C> s_red;     /* look-back: the combine of the terms */
};

/* pipe_* helpers share the kernel's arguments */
template <wr_op O, typename T> struct pipe_args {
    typedef typename carry_of<O, T>::type C;
    const T *in;
    T *out;
    size_t n, tiles;
    int exclusive, vec_ok;
    unsigned long long ep;
    tdesc *d;
    const C *carry_in;
    C *carry_out;
};

/* The aggregate of the staged tile `tile`, published (tile 0: its prefix,
 * carry op A_0, at once); returned for the finish. */
template <wr_op O, typename T>
__device__ __forceinline__ typename carry_of<O, T>::type
pipe_aggregate(const pipe_args<O, T> &a, const T *buf, size_t tile, scan_smem<T, typename carry_of<O, T>::type> &sm)
{
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int S = ptile<T>::sub;
    T x[S][kTileItems], tex[S], tot[S];
    unstage(x, buf);
    in_tile_scan<O>(x, tex, tot, sm.bs);
    C agg = (C)tot[0];
#pragma unroll
    for (int s = 1; s < S; s++) agg = FC::combine(agg, (C)tot[s]);
    if (threadIdx.x == 0) {
        if (tile == 0) {
            const C incl = a.carry_in ? FC::combine(*a.carry_in, agg) : agg;
            st_desc(a.d, to_bits(incl), a.ep | kPrefix);
            if (a.carry_out && a.tiles == 1) *a.carry_out = incl;
        } else {
            st_desc(a.d + tile, to_bits(agg), a.ep | kAggregate);
        }
    }
    WRC_STAMP(1, wrc_now());
    return agg;
}

/* Finish the staged tile `tile` whose aggregate is agg: look back, publish
 * its prefix, scan, store.  after_unstage() runs once the buffer has been
 * read into registers (the 2-buffer pipeline refills it there). */
template <wr_op O, typename T, typename H>
__device__ __forceinline__ void pipe_finish(const pipe_args<O, T> &a, const T *buf, size_t tile,
                                            typename carry_of<O, T>::type agg,
                                            scan_smem<T, typename carry_of<O, T>::type> &sm, H after_unstage)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int S = ptile<T>::sub, I = kTileItems, V = ptile<T>::V;
    const unsigned tid = threadIdx.x;
    C pre = C();
    bool have = true;
    if (tile == 0) {
        have = a.carry_in != nullptr;
        if (have) pre = *a.carry_in;
        __syncthreads();                 /* sm.bs is reused below (look_back has barriers of its own) */
    } else {
        pre = look_back<O>((long long)tile, a.ep, a.d, sm.s_val, sm.s_pm, sm.s_red);
        if (tid == 0) {
            const C incl = FC::combine(pre, agg);
            st_desc(a.d + tile, to_bits(incl), a.ep | kPrefix);
            if (a.carry_out && tile == a.tiles - 1) *a.carry_out = incl;
        }
    }
    WRC_STAMP(2, wrc_now());
    T x[S][I], tex[S], tot[S];
    unstage(x, buf);
    after_unstage();
    in_tile_scan<O>(x, tex, tot, sm.bs);
    const size_t base = tile * ptile<T>::elems;
    const bool whole = a.vec_ok && base + ptile<T>::elems <= a.n;
#pragma unroll
    for (int s = 0; s < S; s++) {
        const size_t first = base + s * kTile + (size_t)tid * I;
        T y[I];
#pragma unroll
        for (int k = 0; k < I; k++) {
            /* this element's prefix inside the sub-tile; thread 0 has no earlier
             * threads, and element 0 of an exclusive scan no earlier element */
            T loc;
            bool any = true;
            if (!a.exclusive) loc = tid ? F::combine(tex[s], x[s][k]) : x[s][k];
            else if (k) loc = tid ? F::combine(tex[s], x[s][k - 1]) : x[s][k - 1];
            else { loc = tex[s]; any = tid != 0; }
            if (any) y[k] = have ? (T)FC::combine(pre, (C)loc) : loc;
            else     y[k] = have ? (T)pre : F::identity();
        }
        if (whole) {
            vec<T> *vp = reinterpret_cast<vec<T> *>(a.out + first);
#pragma unroll
            for (int q = 0; q < I / V; q++) {
                vec<T> v;
#pragma unroll
                for (int j = 0; j < V; j++) v.v[j] = y[q * V + j];
                vp[q] = v;
            }
        } else {
#pragma unroll
            for (int k = 0; k < I; k++) if (first + k < a.n) a.out[first + k] = y[k];
        }
        /* the next sub-tile's base */
        pre = have ? FC::combine(pre, (C)tot[s]) : (C)tot[s];
        have = true;
    }
    WRC_STAMP(3, wrc_now());
}

template <wr_op O, typename T>
__global__ void WRC_SCAN_BOUNDS
k_scan_pipe(pipe_args<O, T> a, unsigned *tctr)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    extern __shared__ uint4 s_dyn[];                 /* kBufs tiles */
    __shared__ scan_smem<T, C> sm;
    __shared__ unsigned s_tk;
    auto buf = [&](int b) { return reinterpret_cast<T *>(s_dyn) + (size_t)(b % kBufs) * ptile<T>::elems; };
    /* Every block draws tickets until one is past the end and then no more:
     * tiles + gridDim.x tickets in all, and whoever draws the last one puts
     * the counter back for the next launch. */
    const unsigned last_ticket = (unsigned)a.tiles + gridDim.x - 1;
    bool out_of_tiles = false;
    auto ticket = [&]() -> size_t {
        if (out_of_tiles) return a.tiles;
        if (threadIdx.x == 0) {
            const unsigned t = atomicAdd(tctr, 1u);
            s_tk = t;
            if (t == last_ticket) atomicExch(tctr, 0u);
        }
        __syncthreads();
        size_t t = s_tk;
        __syncthreads();                             /* s_tk is written again by the next draw */
        if (t >= a.tiles) { out_of_tiles = true; t = a.tiles; }
#ifdef WRC_SCAN_PROFILE
        else if (threadIdx.x == 0) wrc_scan_stamps[t * 8] = wrc_now();
#endif
        return t;
    };
    auto nothing = [] {};

    size_t cur = ticket();
    if (cur >= a.tiles) return;
    int b = 0;
    stage<T, F>(buf(0), a.in, a.n, cur, a.tiles, a.vec_ok);
    size_t nxt = ticket();
    stage<T, F>(buf(1), a.in, a.n, nxt, a.tiles, a.vec_ok);
    staged_wait<1>();
    C agg = pipe_aggregate(a, buf(0), cur, sm);
    for (;;) {
        size_t nn = a.tiles;
        if constexpr (kBufs == 3) {
            nn = ticket();                           /* (its barrier: buf(b + 2) is no longer read) */
            stage<T, F>(buf(b + 2), a.in, a.n, nn, a.tiles, a.vec_ok);
            staged_wait<1>();                        /* nxt has landed */
        } else {
            staged_wait<0>();
        }
        const C agg_n = nxt < a.tiles ? pipe_aggregate(a, buf(b + 1), nxt, sm) : C();
        if constexpr (kBufs == 3) {
            pipe_finish(a, buf(b), cur, agg, sm, nothing);
        } else {
            pipe_finish(a, buf(b), cur, agg, sm, [&] {
                nn = ticket();                       /* (its barrier: every thread has read buf(b)) */
                stage<T, F>(buf(b), a.in, a.n, nn, a.tiles, a.vec_ok);
            });
        }
        if (nxt >= a.tiles) break;
        cur = nxt;
        nxt = nn;
        agg = agg_n;
        b = (b + 1) % kBufs;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

struct scan_fn {
    template <wr_op O, typename T>
    static wr_status run(lane &L, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, char *err)
    {
        typedef typename carry_of<O, T>::type C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + ptile<T>::elems - 1) / ptile<T>::elems;
        /* tickets (tiles + grid of them) are 32-bit */
        if (tiles > 0xffffffffu - 0x10000u) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
        if (tiles > L.scap) {
            const size_t cap = tiles + tiles / 4;
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
        /* resident blocks only (at most 65536: see the ticket check above),
         * each with its staging buffers; the shared-memory opt-in is per
         * device, so it is renewed on every call (a host-side call) */
        auto kp = k_scan_pipe<O, T>;
        constexpr size_t dyn = (size_t)kBufs * ptile<T>::bytes;
        static std::atomic<int> per_sm{0};
        WRC_CK(cudaFuncSetAttribute, ((const void *)kp, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        if (per_sm.load(std::memory_order_relaxed) == 0) {
            int nb = 0;
            WRC_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kp, kThreads, dyn));
            per_sm.store(nb > 0 ? nb : 1);
        }
        size_t grid = (size_t)(L.sms > 0 ? L.sms : 1) * (size_t)per_sm.load(std::memory_order_relaxed);
        if (L.scan_blocks && L.scan_blocks < grid) grid = L.scan_blocks;
        if (grid > tiles) grid = tiles;
        if (grid > 0x10000u) grid = 0x10000u;
        pipe_args<O, T> a;
        a.in = (const T *)in;
        a.out = (T *)out;
        a.n = n;
        a.tiles = tiles;
        a.exclusive = exclusive;
        a.vec_ok = vec_ok;
        a.ep = (unsigned long long)L.epoch << 2;
        a.d = (tdesc *)L.sblk;
        a.carry_in = (const C *)carry_in;
        a.carry_out = (C *)carry_out;
        kp<<<(unsigned)grid, kThreads, dyn, L.st>>>(a, L.ctr + 1);
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

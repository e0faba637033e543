/*
 * wrc_scan.cu -- device-wide inclusive/exclusive scan in a single pass with
 * decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 * with Decoupled Look-back", NVIDIA NVR-2016-002).
 *
 * One block per tile of kSub = 2 sub-tiles of kTile = 4096 elements (16 per
 * thread each, read as 16-byte vectors).  A block takes the next tile number
 * from an atomic counter, so every smaller tile has already started (no
 * deadlock whatever the scheduling); it scans each sub-tile (thread-local
 * scan, then the block scan of warpred_device.cuh: per-warp shuffle scans
 * plus an exclusive scan of the warp totals), publishes the tile's aggregate
 * A, and the whole block looks back over the predecessors' descriptors for
 * the tile's exclusive prefix (see look_back for why the whole block).
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
#include "wrc.cuh"

namespace wrc {

namespace {

constexpr unsigned kAggregate = 1, kPrefix = 2;

/* Build-time knobs for tools/scan_phases.cu's experiments; the plugin uses
 * the defaults. */
#ifndef WRC_SCAN_SUB
#define WRC_SCAN_SUB 2
#endif
/* minimum blocks per SM, only when asked: even a 1 there changes ptxas's
 * register allocation (int32: 64 -> 71 registers, one block less per SM) */
#ifdef WRC_SCAN_MINB
#define WRC_SCAN_BOUNDS __launch_bounds__(kThreads, WRC_SCAN_MINB)
#else
#define WRC_SCAN_BOUNDS __launch_bounds__(kThreads)
#endif
constexpr int kSub = WRC_SCAN_SUB;       /* sub-tiles of kTile elements per block */
constexpr size_t kBlockTile = kSub * kTile;

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
 * block waits a little and reads again: prefixes appear meanwhile.  Tile 0 publishes its prefix without
 * looking back, so the walk always ends.
 *
 * Why a whole block reads: one read of the descriptors is a round trip
 * through L2 (~0.5 us) and a prefix is only published after its tile's
 * look-back, so the nearest one lags behind.  Measured with
 * tools/scan_phases.cu on an H200 at 2^28 elements, it is 100-130 tiles back
 * on average (p90 ~230): a warp's 32 descriptors per round trip (CUB's
 * look-back) would need four trips.
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

/*
 * A block scans a tile of kSub sub-tiles of kTile elements: each sub-tile is
 * loaded (16 elements per thread, as 16-byte vectors), scanned in the thread
 * and across the block, the tile's aggregate A_t = T_0 op T_1 (sub-tile
 * totals, in the carry type) goes out, the look-back gives the prefix, and
 * each sub-tile's outputs are (its base) op (its in-block scan) with bases
 * P_{t-1}, P_{t-1} op T_0, ...  Two sub-tiles per block halve the number of
 * tiles the look-back chain runs through, keep DESIGN.md's "block of <= 4096
 * elements", and put 8 loads of 16 bytes in flight per thread.
 */
template <wr_op O, typename T>
__global__ void WRC_SCAN_BOUNDS
k_scan(const T *in, T *out, size_t n, int exclusive, unsigned epoch, tdesc *d, unsigned *tctr,
       const typename carry_of<O, T>::type *carry_in, typename carry_of<O, T>::type *carry_out, int vec_ok)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int I = kTileItems, V = 16 / sizeof(T);
    __shared__ warpred::block_storage<T> bs[kSub];
    __shared__ C s_val[kThreads];
    __shared__ unsigned s_pm[kThreads / 32];
    __shared__ warpred::block_storage<C> s_red;
    __shared__ unsigned s_tile;
    const unsigned tid = threadIdx.x;

    if (tid == 0) {
        const unsigned t = atomicAdd(tctr, 1u);
        s_tile = t;
        if (t == gridDim.x - 1) atomicExch(tctr, 0u);   /* the last ticket: every block has taken one */
    }
    __syncthreads();
    const size_t tile = s_tile;
    WRC_STAMP(0, wrc_now());
    const size_t base = tile * kBlockTile;
    const bool full = vec_ok && base + kBlockTile <= n;

    T x[kSub][I];
#pragma unroll
    for (int s = 0; s < kSub; s++) {
        const size_t first = base + s * kTile + (size_t)tid * I;
        if (full) {
            const vec<T> *vp = reinterpret_cast<const vec<T> *>(in + first);
#pragma unroll
            for (int q = 0; q < I / V; q++) {
                vec<T> v = vp[q];
#pragma unroll
                for (int j = 0; j < V; j++) x[s][q * V + j] = v.v[j];
            }
        } else {
#pragma unroll
            for (int k = 0; k < I; k++) x[s][k] = first + k < n ? in[first + k] : F::neutral();
        }
    }
    T tex[kSub], tot[kSub];
#pragma unroll
    for (int s = 0; s < kSub; s++) {
        /* thread-local inclusive scan, in place, then across the block */
#pragma unroll
        for (int k = 1; k < I; k++) x[s][k] = F::combine(x[s][k - 1], x[s][k]);
        tex[s] = warpred::block_exclusive_scan<O>(x[s][I - 1], bs[s], &tot[s]);  /* unused by thread 0 */
    }
    C agg = (C)tot[0];
#pragma unroll
    for (int s = 1; s < kSub; s++) agg = FC::combine(agg, (C)tot[s]);
    WRC_STAMP(1, wrc_now());

    /* the exclusive prefix of this tile: the carry for tile 0, else P_{t-1};
     * then P_t = prefix op A_t goes out for the tiles after this one */
    const unsigned long long ep = (unsigned long long)epoch << 2;
    C pre = C();
    bool have = true;
    if (tile == 0) {
        have = carry_in != nullptr;
        if (have) pre = *carry_in;
    } else {
        if (tid == 0) st_desc(d + tile, to_bits(agg), ep | kAggregate);
        pre = look_back<O>((long long)tile, ep, d, s_val, s_pm, s_red);
    }
    WRC_STAMP(2, wrc_now());
    if (tid == 0) {
        const C incl = have ? FC::combine(pre, agg) : agg;
        st_desc(d + tile, to_bits(incl), ep | kPrefix);
        if (carry_out && tile == gridDim.x - 1) *carry_out = incl;
    }

#pragma unroll
    for (int s = 0; s < kSub; s++) {
        const size_t first = base + s * kTile + (size_t)tid * I;
        T y[I];
#pragma unroll
        for (int k = 0; k < I; k++) {
            /* this element's prefix inside the sub-tile; thread 0 has no earlier
             * threads, and element 0 of an exclusive scan no earlier element */
            T loc;
            bool any = true;
            if (!exclusive) loc = tid ? F::combine(tex[s], x[s][k]) : x[s][k];
            else if (k) loc = tid ? F::combine(tex[s], x[s][k - 1]) : x[s][k - 1];
            else { loc = tex[s]; any = tid != 0; }
            if (any) y[k] = have ? (T)FC::combine(pre, (C)loc) : loc;
            else     y[k] = have ? (T)pre : F::identity();
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
        /* the next sub-tile's base */
        pre = have ? FC::combine(pre, (C)tot[s]) : (C)tot[s];
        have = true;
    }
    WRC_STAMP(3, wrc_now());
}

struct scan_fn {
    template <wr_op O, typename T>
    static wr_status run(lane &L, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, char *err)
    {
        typedef typename carry_of<O, T>::type C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + kBlockTile - 1) / kBlockTile;
        if (tiles > 0xffffffffu) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
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
        k_scan<O, T><<<(unsigned)tiles, kThreads, 0, L.st>>>((const T *)in, (T *)out, n, exclusive, L.epoch,
                                                  (tdesc *)L.sblk, L.ctr + 1,
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

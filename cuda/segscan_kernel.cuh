/*
 * segscan_kernel.cuh -- scans inside segments (wr_scan_segments,
 * wr_exscan_segments): the single-pass scan of scan_kernel.cuh and
 * scan_block.cuh with the segmented operator (seg_op below), for a policy
 * P and hooks H; not installed.
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

#include "scan_kernel.cuh"
#include "scan_launch.cuh"

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

/* The heads of tile t (tb: its first element's absolute index, E its
 * elements) into bits[] (E / 32 words), by one warp: cleared, then a bit
 * set for each of off[lo .. hi) inside the tile.  K loads a lane in flight. */
template <int K>
__device__ __forceinline__ void mark_tile_heads(unsigned *bits, unsigned words, const size_t *off, size_t lo,
                                                size_t hi, size_t tb, size_t E, int lane)
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

/* The kernels' arguments. */
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

/* The segmented operator (scan_op.cuh has the interface): pairs, head
 * marks, a thread's fold restarting at its heads. */
template <wr_op O, typename T, int I> struct seg_op {
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, T> F;
    typedef warpred::op<O, C> FC;
    typedef segscan_args<O, T> args;
    typedef segpair<C> V;
    typedef seg_extent<T> extent;
    static constexpr bool kMarks = true;
    static constexpr int HW = I / 32;        /* head words a thread */
    static_assert(I % 32 == 0, "whole head words a thread");
    /* a stage's heads, a bit an element, and the barrier that says they are marked */
    template <int S, unsigned Words> struct stage_marks {
        unsigned long long hds[S];
        unsigned hb[S][Words];
    };
    struct heads {
        unsigned w[HW];                      /* bit k: item k is a head */
        int fh;                              /* the first head (I: none), once run() */
    };

    static __device__ __forceinline__ bool head_at(const heads &h, int k) { return (h.w[k >> 5] >> (k & 31)) & 1u; }

    /* the extent from k_segscan_prep's dims; false: nothing to do */
    static __device__ __forceinline__ bool read_extent(const args &a, extent &e)
    {
        const segscan_dims dm = *a.dims;
        if (dm.bad || dm.tiles == 0) return false;
        e.in = a.in + (a.shift ? dm.base : 0);
        e.out = a.out + (a.shift ? dm.base : 0);
        e.base = dm.base;
        e.n = dm.n;
        e.tiles = dm.tiles;
        e.vec_ok = ((uintptr_t)e.in % 16 == 0) && ((uintptr_t)e.out % 16 == 0);
        return true;
    }
    /* tile t's heads into bits, by one warp (P::head_loads offsets a lane in flight) */
    template <class P>
    static __device__ __forceinline__ void mark_heads(unsigned *bits, const extent &e, const args &a, unsigned t,
                                                      int lane)
    {
        constexpr size_t E = tile_shape<P, T>::elems;
        mark_tile_heads<P::head_loads>(bits, (unsigned)(E / 32), a.off, a.L[t], a.L[t + 1], e.base + (size_t)t * E,
                                       E, lane);
    }
    /* squad thread r's head words of a stage's marks */
    static __device__ __forceinline__ void read_heads(heads &h, const unsigned *hb, int r)
    {
#pragma unroll
        for (int j = 0; j < HW; j++) h.w[j] = hb[r * HW + j];
    }

    /* the thread's pair: the fold from its last head on (or of all) */
    static __device__ __forceinline__ V fold(const T (&x)[I], const heads &h)
    {
        T f = x[0];
        bool any = head_at(h, 0);
#pragma unroll
        for (int k = 1; k < I; k++) {
            const bool hk = head_at(h, k);
            f = hk ? x[k] : F::combine(f, x[k]);
            any = any || hk;
        }
        V p;
        p.v = (C)f;
        p.f = any;
        return p;
    }
    static __device__ __forceinline__ V warp_exclusive(V x, V &total, int lane)
    {
        return warp_seg_exclusive<O>(x, total, lane);
    }
    static __device__ __forceinline__ V cat(const V &a, const V &b) { return seg_cat<FC>(a, b); }
    static __device__ __forceinline__ C value(const V &v) { return v.v; }
    static __device__ __forceinline__ bool flag(const V &v) { return v.f; }

    /* the thread's running values, restarting at its heads; its first head */
    static __device__ __forceinline__ void run(T (&x)[I], heads &h)
    {
#pragma unroll
        for (int k = 1; k < I; k++)
            if (!head_at(h, k)) x[k] = F::combine(x[k - 1], x[k]);
        h.fh = I;
#pragma unroll
        for (int j = HW - 1; j >= 0; j--)
            if (h.w[j]) h.fh = 32 * j + __ffs(h.w[j]) - 1;
    }
    /* the base of thread r: from the tile's prefix (pre, have) and the
     * earlier threads' pair tex (r > 0), which restarts at a head */
    static __device__ __forceinline__ C base(int r, C pre, bool have, const V &tex)
    {
        return r == 0 ? pre : tex.f ? tex.v : (have ? FC::combine(pre, tex.v) : tex.v);
    }
    /* Output k: inclusive, x[k] through m before the thread's first head,
     * x[k] itself from there; exclusive, the identity at a head, else the
     * inclusive output before (the base b for k = 0). */
    template <class M>
    static __device__ __forceinline__ T out(const T (&x)[I], const heads &h, int exclusive, T b, M m, int k)
    {
        if (!exclusive) return canon_out<O>(k < h.fh ? m(x[k]) : x[k]);
        if (head_at(h, k)) return F::identity();
        if (k == 0) return canon_out<O>(b);
        return canon_out<O>(k - 1 < h.fh ? m(x[k - 1]) : x[k - 1]);
    }
    template <class P, class M>
    static __device__ __forceinline__ void put(T *stage, int r, const T (&x)[I], const heads &h, int exclusive, T b,
                                               M m)
    {
        put_items<P>(stage, r, [&](int k) { return out(x, h, exclusive, b, m, k); });
    }
};

/* The kernels: scan_agent and scan_block_agent with the segmented
 * operator. */
template <wr_op O, typename T, class P, class H>
static __global__ void __launch_bounds__(scan_agent<O, T, P, H, seg_op>::threads, P::min_blocks)
k_segscan(segscan_args<O, T> a, unsigned *tctr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();                                       /* (k_segscan_block runs there) */
#else
    typedef scan_agent<O, T, P, H, seg_op> A;
    extern __shared__ uint4 s_dyn[];
    __shared__ typename A::smem sm;
    const unsigned s0 = smem_addr(s_dyn);
    T *stages = reinterpret_cast<T *>(reinterpret_cast<char *>(s_dyn) + (P::align - s0 % P::align) % P::align);
    A::run(a, tctr, stages, sm);
#endif
}

template <wr_op O, typename T, class P>
static __global__ void __launch_bounds__(scan_block_agent<O, T, P, seg_op>::threads)
k_segscan_block(segscan_args<O, T> a, unsigned *tctr)
{
    __shared__ typename scan_block_agent<O, T, P, seg_op>::smem sm;
    scan_block_agent<O, T, P, seg_op>::run(a, tctr, sm);
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
     * strand's descriptors may not grow (tile_pieces). */
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg, size_t base,
                         int exclusive, const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef tile_shape<P, T> W;
        const size_t tiles = (n + W::elems - 1) / W::elems;
        if (!S.fixed || tiles <= S.scap)
            return one<O, T>(S, in, out, n, off, nseg, base, 0, exclusive, carry_in, carry_out, ds, nullptr, err);
        const T *i = (const T *)in;
        T *o = (T *)out;
        return tile_pieces(S, n, W::elems, carry_in, carry_out, ds, "segmented scan: no descriptors reserved", err,
                           [&](size_t p, size_t len, const void *cin, void *cout, done_sig d) {
                               return one<O, T>(S, i + p, o + p, len, off, nseg, base + p, 0, exclusive, cin, cout,
                                                d, nullptr, err);
                           });
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
        typedef scan_agent<O, T, P, H, seg_op> A;
        typedef scan_block_agent<O, T, P, seg_op> B;
        typedef typename A::C C;
        typedef tile_shape<P, T> W;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        /* checked: the tiles are known; unchecked: the descriptors there are */
        const size_t tiles = unchecked ? S.scap : (n + W::elems - 1) / W::elems;
        WRCUDA_TRY(tile_descriptors(S, tiles, "segmented scan: too many tiles", err));
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
        tile_args(a, S, (const C *)carry_in, (C *)carry_out, ds);
        /* The heads take a little more shared memory than the plain scan's
         * kernel: where this kernel's does not fit, the block kernel runs. */
        return launch_tile_kernel<A>(S, k_segscan<O, T, P, H>, k_segscan_block<O, T, P>, B::threads, tiles, a,
                                     "segmented scan kernel launch", err);
    }
};

} /* namespace wrcuda */

#endif /* WRCUDA_SEGSCAN_KERNEL_CUH */

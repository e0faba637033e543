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
 * Determinism.  The look-back stops at the nearest tile that has published
 * its inclusive prefix P_j, which depends on timing.  To give the same bits
 * on every run, prefixes are defined as a left fold P_k = P_{k-1} op A_k and
 * the look-back folds forward from P_j through A_{j+1}, ..., A_{i-1} in that
 * order: whichever j it finds, it performs exactly the operations that
 * produced P_{i-1}.  The fold is serial but short (the nearest P is usually
 * a few tiles back) and runs in registers through shuffles.
 *
 * Accuracy.  Float sums carry the tile prefixes in double; each output is
 * (double prefix of the earlier tiles) + (float scan inside its tile), so a
 * 2^26-element float scan stays within 1e-4 relative of the exact prefix.
 *
 * Descriptors are reused call after call without clearing: a status word is
 * (epoch << 2 | flag) and each launch has a new epoch.
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

/* Warp 0 of tile `tile` (> 0): the exclusive prefix of the tile, as the left
 * fold described above.  All 32 lanes call it and get the result. */
template <class FC, typename C>
__device__ __forceinline__ C look_back(long long tile, unsigned epoch, const unsigned *tstat,
                                       const C *tagg, const C *tincl)
{
    const int lane = (int)(threadIdx.x & 31);
    long long top = tile - 1, jp;
    for (;;) {
        const long long k = top - lane;
        unsigned flag = kPrefix;          /* before tile 0: never reached, tile 0 has a prefix */
        if (k >= 0) {
            unsigned st;
            while (((st = ld_acquire(tstat + k)) >> 2) != epoch) __nanosleep(32);
            flag = st & 3u;
        }
        const unsigned pm = __ballot_sync(warpred::full_mask, flag == kPrefix);
        if (pm) { jp = top - (__ffs(pm) - 1); break; }
        top -= 32;
    }
    (void)ld_acquire(tstat + jp);
    C e = ld_volatile(tincl + jp);
    for (long long b = jp + 1; b < tile; b += 32) {
        const long long k = b + lane;
        C a = C();
        if (k < tile) { (void)ld_acquire(tstat + k); a = ld_volatile(tagg + k); }
        const int cnt = tile - b < 32 ? (int)(tile - b) : 32;
        for (int q = 0; q < cnt; q++) e = FC::combine(e, __shfl_sync(warpred::full_mask, a, q));
    }
    return e;
}

template <wr_op O, typename T>
__global__ void __launch_bounds__(kThreads)
k_scan(const T *in, T *out, size_t n, int exclusive, unsigned epoch, unsigned *tstat,
       typename carry_of<O, T>::type *tagg, typename carry_of<O, T>::type *tincl, unsigned *tctr,
       const typename carry_of<O, T>::type *carry_in, typename carry_of<O, T>::type *carry_out, int vec_ok)
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
        const C agg = (C)btot;
        C excl = C(), p;
        int have = 1;
        if (tile == 0) {
            have = carry_in != nullptr;
            if (have) excl = *carry_in;
            p = have ? FC::combine(excl, agg) : agg;
        } else {
            if (tid == 0) {
                tagg[tile] = agg;
                st_release(tstat + tile, epoch << 2 | kAggregate);
            }
            excl = look_back<FC>((long long)tile, epoch, tstat, tagg, tincl);
            p = FC::combine(excl, agg);
        }
        if (tid == 0) {
            tincl[tile] = p;
            st_release(tstat + tile, epoch << 2 | kPrefix);
            if (carry_out && tile == gridDim.x - 1) *carry_out = p;
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
        if (tiles > L.tcap) {
            size_t cap = L.tcap * 4 * 5, need = tiles * 4 * 5;   /* status + two 8-byte values */
            void *blk = L.tstat;
            WRC_TRY(grow(L, &blk, &cap, need, true, "scan descriptors", err));
            L.tcap = cap / 20;
            L.tstat = (unsigned *)blk;
            L.tagg = (char *)blk + L.tcap * 4;
            L.tincl = (char *)blk + L.tcap * 12;
            L.epoch = 0;
        }
        if (++L.epoch >= (1u << 30)) {      /* epochs wrap: clear the statuses once */
            WRC_CK(cudaMemsetAsync, (L.tstat, 0, L.tcap * 4, L.st));
            L.epoch = 1;
        }
        const int vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        k_scan<O, T><<<(unsigned)tiles, kThreads, 0, L.st>>>(
            (const T *)in, (T *)out, n, exclusive, L.epoch, L.tstat, (C *)L.tagg, (C *)L.tincl, L.ctr + 1,
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

/*
 * scan_tile_state.cuh -- the tile-state protocol of the single-pass scan
 * with decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back", NVIDIA NVR-2016-002): the carry type, the
 * tiles' descriptors and their epochs, and the look-back (not installed).
 * It knows nothing of how a block gets its tiles (scan_kernel.cuh).
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
 * The same holds inside a tile: each thread's fold, the scan of the folds
 * and the tile's aggregate are computed in one fixed order.  Integer scans
 * are exact in any order, so there the look-back's terms are combined by a
 * warp reduction instead of one by one (float MIN/MAX fold too: with
 * several NaNs the order decides which NaN's bits come out).  The look-back
 * has no chain of its own beyond that of CUB's: a tile needs only the
 * nearest prefix and the aggregates after it.
 *
 * Descriptors.  A tile's descriptor is 16 bytes, {value, epoch << 2 | flag},
 * written and read as one 128-bit access (PTX .b128, sm_70+), so a reader
 * never sees a flag without its value.  They are reused call after call
 * without clearing: each launch has a new epoch and statuses of another
 * epoch read as "not yet".  The epoch is the count of launches on the
 * descriptors, kept in device memory and advanced by the kernel itself
 * (scan_kernel.cuh), so that a launch replayed from a CUDA graph gets a new
 * one too; at 62 bits (the status keeps 2 for the flag) it never wraps, and
 * status 0 (a zeroed block) is epoch 0, which no launch uses.
 *
 * Accuracy.  Float sums carry the prefixes in double (carry_of): the
 * per-thread bases inside a tile and the tile prefixes are doubles, and only
 * each thread's own run of elements is scanned in float, so a 2^26-element
 * float scan stays well within 1e-4 relative of the exact prefix.
 */
#ifndef WRCUDA_SCAN_TILE_STATE_CUH
#define WRCUDA_SCAN_TILE_STATE_CUH

#include <string.h>
#include <type_traits>
#include "warpred_device.cuh"
#include "scan_policy.cuh"

namespace wrcuda {

/* the type prefixes are carried in */
template <wr_op O, typename T> struct carry_of { typedef T type; };
template <> struct carry_of<WR_SUM, float> { typedef double type; };

constexpr unsigned kAggregate = 1, kPrefix = 2;   /* a descriptor's flag */

struct alignas(16) tdesc {
    unsigned long long bits;             /* the value, in the low bytes */
    unsigned long long status;           /* epoch << 2 | flag */
};

/* bytes of the descriptors of `tiles` tiles */
inline size_t descriptor_bytes(size_t tiles) { return tiles * sizeof(tdesc); }

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
 * Look-back: the inclusive prefix P_{t-1} of the tiles before tile t (t > 0)
 * by the left fold described at the top, for one warp.  `prev` is the
 * block's previous tile (or -1), whose prefix the block computes itself:
 * `pprev()` returns it, waiting for it if need be.  Lane l reads the
 * descriptors of tiles t-1-l-32i (i < K) above prev and, nearest 32 first,
 * waits for each to carry this launch's epoch (ep = epoch << 2) and looks
 * for a prefix among them, prev counting as one; the farther ones are waited
 * for only when the nearer hold none, and prev's prefix only when no nearer
 * one is out.  The nearest prefix starts the fold and lane 0 folds the
 * aggregates after it on, in order (integers: a warp reduction; lbv: 32 * K
 * values of shared memory for the fold).  Without a prefix among them (only
 * when prev is further back than 32 * K) the warp waits a little and reads
 * again: prefixes appear meanwhile.  H: the hooks (scan_policy.cuh).
 */
template <wr_op O, typename C, int K, class H, typename Pre>
__device__ __forceinline__ C look_back(long long t, long long prev, Pre pprev, unsigned long long ep,
                                       const tdesc *d, C *lbv, int lane)
{
    typedef warpred::op<O, C> FC;
    /* integer ops give the same bits in any order; float MIN/MAX with
     * several NaNs do not (wr_ops.h returns the first): they fold */
    constexpr bool exact = std::is_integral<C>::value;
    [[maybe_unused]] const long long tile = t;
    int passes = 0;                              /* for the hooks */
    unsigned long long bits[K], st[K];
    auto issue = [&]() {
#pragma unroll
        for (int i = 0; i < K; i++) {
            const long long j = t - 1 - lane - 32 * i;
            bits[i] = 0;
            st[i] = 0;
            if (j > prev) ld_desc(d + j, bits[i], st[i]);
        }
    };
    issue();
    for (;;) {
        int p = -1;                              /* tile t-1-p: the nearest prefix */
#pragma unroll
        for (int i = 0; i < K; i++) {
            const long long j = t - 1 - lane - 32 * i;
            while (j > prev && (st[i] & ~3ull) != ep) {
                __nanosleep(20);
                ld_desc(d + j, bits[i], st[i]);
            }
            const unsigned m = __ballot_sync(warpred::full_mask,
                                             (j > prev && (st[i] & 3u) == kPrefix) || (j == prev && j >= 0));
            if (m) {
                p = 32 * i + __ffs(m) - 1;
                break;
            }
        }
        if (p >= 0) {
            if (t - 1 - p == prev) {
                /* the block's own previous tile is the nearest prefix */
                const C v = pprev();
                if constexpr (H::enabled)
                    if (lane == 0) H::stamp(tile, kSPrevPrefix);
#pragma unroll
                for (int i = 0; i < K; i++)
                    if (lane + 32 * i == p) bits[i] = to_bits(v);
            }
            if constexpr (H::enabled)
                if (lane == 0) {
                    H::note(tile, kSDistance, p);
                    H::note(tile, kSPasses, passes);
                    H::stamp(tile, kSAnswered);
                }
            if constexpr (exact) {
                C e = FC::neutral();
#pragma unroll
                for (int i = 0; i < K; i++)
                    if (lane + 32 * i <= p) e = FC::combine(e, from_bits<C>(bits[i]));
                return warpred::warp_reduce<O>(e);
            } else {
#pragma unroll
                for (int i = 0; i < K; i++)
                    if (lane + 32 * i <= p) lbv[lane + 32 * i] = from_bits<C>(bits[i]);
                __syncwarp();
                C e = C();
                if (lane == 0) {
                    /* loads 8 at a time ahead of the dependent combines */
                    e = lbv[p];
                    int q = p - 1;
                    for (; q >= 7; q -= 8) {
                        C v[8];
#pragma unroll
                        for (int u = 0; u < 8; u++) v[u] = lbv[q - u];
#pragma unroll
                        for (int u = 0; u < 8; u++) e = FC::combine(e, v[u]);
                    }
                    for (; q >= 0; q--) e = FC::combine(e, lbv[q]);
                }
                e = __shfl_sync(warpred::full_mask, e, 0);
                __syncwarp();                    /* lbv is written again by the next tile */
                return e;
            }
        }
        __nanosleep(256);
        issue();
        passes++;
    }
}

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_TILE_STATE_CUH */

/*
 * scan_policy.cuh -- the tuning of the single-pass scan kernel
 * (scan_kernel.cuh) and its profiling hooks (not installed).
 *
 * The kernel takes both as template parameters, as CUB's agents take their
 * policies: the plugin instantiates scan_policy and no_hooks (scan.cu);
 * experiments (bench/tools/scan_phases.cu) derive policies of their own,
 * overriding the members they vary, and a hooks type that takes stamps.  The
 * shipped kernel carries no experiment knob.
 */
#ifndef WRCUDA_SCAN_POLICY_CUH
#define WRCUDA_SCAN_POLICY_CUH

#include <stddef.h>
#include <type_traits>

namespace wrcuda {

struct scan_policy {
    /* Tiles in a block's ring of shared-memory stages. */
    static constexpr int stages = 6;
    /* Resident blocks per multiprocessor asked of ptxas (__launch_bounds__):
     * one block per multiprocessor holds the whole ring. */
    static constexpr int min_blocks = 1;
    /* Warps of the reduce squad and of the scan squad each. */
    static constexpr int squad = 4;
    /* Tickets a load warp draws ahead of the stage they go to. */
    static constexpr int ahead = 1;
    /* A tile: 8192 4-byte or 4096 8-byte elements, 64 or 32 per squad
     * thread.  Staging chunks start on tile boundaries (scan.cu). */
    static constexpr size_t tile_bytes = 32768;
    /* Whole tiles come in by bulk copies (sm_90's TMA: four per tile, one
     * instruction each, issued by one lane) into a stage in natural order;
     * below sm_90, or with false here, by 16-byte cp.async, 64 per lane and
     * tile, into a swizzled stage.  The cp.async copies hold the load warp
     * back: their issue stalls it for about 1.6 us per tile under a full
     * memory load. */
    static constexpr bool bulk_copies = true;
    /* The stages start on a boundary of this many bytes.  Dynamic shared
     * memory follows the static (the kernel's smem struct), so without this
     * its offset moves with that struct's size, which differs by type.  At
     * some offsets mod 128 (64 for float sums, 48 for a 4016-byte struct)
     * the scans ran 3-12 % slower on an H200, the same code otherwise.  The
     * bulk copies into a stage and its reads are 16-byte aligned either way;
     * what the offset costs is measured, not explained. */
    static constexpr unsigned align = 1024;
    /* Look-back warps, taking the tiles in turn: one for integer carries,
     * whose fold is a warp reduction; two for floats, whose fold of up to
     * 32 * k values is serial (for the bits) and, with the reads, takes
     * longer than a tile's turn on the multiprocessor. */
    static constexpr int lb_warps_int = 1, lb_warps_float = 2;
    /* Descriptors a look-back lane reads per pass, with one look-back warp
     * and with more: with two warps alternating, 192 reach the block's
     * previous tile in all but 2 % of the tiles (with 128, 0.55 extra passes
     * per tile, 1.5-2 us each). */
    static constexpr int lb_k1 = 4, lb_k2 = 6;
    /* A pause, in ns, between a look-back warp taking its tile and its first
     * read of the descriptors, with one look-back warp and with more.  The
     * stamping build of the kernel ran 1-4 % faster than this one; their
     * machine code differs only by the stamp stores, which hold back the
     * start of each look-back.  With the pause, 2^28 scans on an H200 take
     * 2-3 % less time (0 - 2000 ns tried; longer pauses slow the integers'
     * single warp down). */
    static constexpr unsigned lb_delay1 = 300, lb_delay2 = 1200;
};

/* The segmented scan (segscan_kernel.cuh): the scan's tiling, stages and
 * look-back (the same tiles, so that staged chunks start on tile
 * boundaries here too), and the offsets each lane of the heads warp has
 * in flight while it marks a tile's heads. */
struct segscan_policy : scan_policy {
    static constexpr int head_loads = 4;
};

/* What a policy P's look-back members come to for the carry type C. */
template <class P, typename C> struct look_back_shape {
    static constexpr int warps = std::is_integral<C>::value ? P::lb_warps_int : P::lb_warps_float;
    static constexpr int k = warps > 1 ? P::lb_k2 : P::lb_k1;
    static constexpr unsigned delay = warps == 1 ? P::lb_delay1 : P::lb_delay2;
};

/* The steps of a tile a hooks type may stamp: when it was staged, its
 * aggregate out, its prefix out, its outputs stored; the distance to the
 * nearest prefix and the extra passes of its look-back; when the look-back
 * answered; when its ticket was drawn; when its look-back started, in which
 * block, after which tile of the block (kSPrev) and when that tile's prefix
 * came (kSPrevPrefix); when the load warp began the iteration and had the
 * ticket in hand; when the scan squad began to wait for the prefix; when
 * the tile had landed.  kStamps: how many. */
enum scan_stamp : int {
    kSStaged, kSAggregate, kSPrefixOut, kSStored, kSDistance, kSPasses, kSAnswered, kSDrawn, kSLbStart, kSBlock,
    kSPrev, kSPrevPrefix, kSLoadIter, kSTicket, kSScanWait, kSLanded, kStamps
};

/* Hooks that do nothing: the shipped kernel.  A hooks type has `enabled`;
 * now(), a time for a stamp taken later; stamp(), the time now, and note(),
 * a value or an earlier time, for step `what` of tile `tile`.  The kernel
 * calls them from one thread per step, each call site inside `if constexpr
 * (H::enabled)`: with these hooks the sites compile to nothing, and the
 * kernel's code is what it would be without them. */
struct no_hooks {
    static constexpr bool enabled = false;
    __device__ static unsigned long long now() { return 0; }
    __device__ static void stamp(size_t, int) {}
    __device__ static void note(size_t, int, unsigned long long) {}
};

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_POLICY_CUH */

/*
 * scan_launch.cuh -- what the launchers of the tile scans share (host code,
 * not installed): the tile descriptors, pieces where they may not grow, and
 * the launch of a kernel of resident blocks (shared-memory opt-in,
 * occupancy, grid, arguments).  scan_kernel.cuh and segscan_kernel.cuh
 * build their launchers from these.
 */
#ifndef WRCUDA_SCAN_LAUNCH_CUH
#define WRCUDA_SCAN_LAUNCH_CUH

#include <atomic>
#include "backend.cuh"
#include "scan_tile_state.cuh"

namespace wrcuda {

/* Descriptors for `tiles` tiles on S (a new block is zeroed: status 0 is
 * epoch 0, which no launch uses; the first is 1).  Tickets (tiles + grid of
 * them) are 32-bit: more tiles fail with too_many. */
inline wr_status tile_descriptors(strand &S, size_t tiles, const char *too_many, char *err)
{
    if (tiles > 0xffffffffu - 0x10000u) return fail(err, too_many, cudaErrorInvalidValue);
    if (tiles > S.scap) {
        const size_t cap = tiles + tiles / 4;
        size_t bytes = S.scap ? descriptor_bytes(S.scap) : 0;
        S.scap = 0;                       /* until the new block exists */
        WRCUDA_TRY(grow(S, S.sblk, &bytes, descriptor_bytes(cap), true, "scan descriptors", err));
        S.scap = cap;
    }
    return WR_SUCCESS;
}

/* Scratch that may not grow (a call queued on a stream, whose descriptors
 * cover the device's memory: only a longer managed array gets here): n
 * elements in pieces of S.scap whole tiles of `elems`, the running value
 * carried from one to the next on the device in slots 1 and 2, as the
 * staged scans do (staging.cu), which gives the same bits.  one(off, len,
 * carry_in, carry_out, ds) launches a piece. */
template <class One>
wr_status tile_pieces(strand &S, size_t n, size_t elems, const void *carry_in, void *carry_out, done_sig ds,
                      const char *none, char *err, One one)
{
    if (S.scap == 0) return fail(err, none, cudaErrorInvalidValue);
    const size_t step = S.scap * elems;
    for (size_t k = 0, off = 0; off < n; k++, off += step) {
        const size_t len = n - off < step ? n - off : step;
        const bool last = len == n - off;
        const void *cin = k ? (const void *)(S.slot + (1 + (k + 1) % 2) * kSlotBytes) : carry_in;
        void *cout = last ? carry_out : (void *)(S.slot + (1 + k % 2) * kSlotBytes);
        WRCUDA_TRY(one(off, len, cin, cout, last ? ds : kNoDone));
    }
    return WR_SUCCESS;
}

/* What a tile kernel's launches learn once per device: its dynamic
 * shared-memory opt-in, made or refused (by bit, devices 0-63; a device
 * beyond asks every time).  Tag: the kernel's agent type. */
template <class Tag> struct tile_kernel_cache {
    static std::atomic<unsigned long long> opted, refused;
};
template <class Tag> std::atomic<unsigned long long> tile_kernel_cache<Tag>::opted{0};
template <class Tag> std::atomic<unsigned long long> tile_kernel_cache<Tag>::refused{0};

/* Whether kernel kp may have dyn bytes of dynamic shared memory on S's
 * device.  The opt-in is a property of the kernel in a device's context
 * (the primary one, where every strand lives, and which outlives them), so
 * it is made once per device, not on every call: a host-side driver call
 * less on each scan.  Refused where the stages and the static part do not
 * fit in a block's shared memory. */
template <class Tag> bool tile_opt_in(strand &S, const void *kp, size_t dyn)
{
    typedef tile_kernel_cache<Tag> K;
    const unsigned long long bit = S.dev >= 0 && S.dev < 64 ? 1ull << S.dev : 0;
    if (bit && (K::refused.load(std::memory_order_acquire) & bit)) return false;
    if (bit && (K::opted.load(std::memory_order_acquire) & bit)) return true;
    if (cudaFuncSetAttribute(kp, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn) != cudaSuccess) {
        (void)cudaGetLastError();
        K::refused.fetch_or(bit, std::memory_order_release);
        return false;
    }
    K::opted.fetch_or(bit, std::memory_order_release);
    return true;
}

/* Launch kp(a, tickets) over `tiles` tiles with blocks of `threads` and dyn
 * bytes of dynamic shared memory: resident blocks only (tiles are drawn,
 * not assigned), at most WARPRED_CUDA_SCAN_BLOCKS, the tiles and 65536 (the
 * ticket check of tile_descriptors). */
template <class Args>
wr_status launch_tiles(strand &S, void (*kp)(Args, unsigned *), int threads, size_t dyn, size_t tiles, const Args &a,
                       const char *what, char *err)
{
    const int per_sm = resident_blocks(S, (const void *)kp, threads, dyn, err);
    if (per_sm < 0) return WR_ERR_DEVICE;
    size_t grid = (size_t)(S.sms > 0 ? S.sms : 1) * (size_t)per_sm;
    if (S.scan_blocks && S.scan_blocks < grid) grid = S.scan_blocks;
    if (grid > tiles) grid = tiles;
    if (grid < 1) grid = 1;
    if (grid > 0x10000u) grid = 0x10000u;
    kp<<<(unsigned)grid, threads, dyn, S.st>>>(a, S.ctr + 1);  /* tickets [1], blocks done [2] */
    WRCUDA_CKLAUNCH(what);
    return WR_SUCCESS;
}

/* The arguments every tile kernel has: the descriptors and their epoch,
 * the carries, the end of the call and the count of blocks done. */
template <class Args, typename C>
void tile_args(Args &a, strand &S, const C *carry_in, C *carry_out, done_sig ds)
{
    a.epoch = epoch_word(S);
    a.d = (tdesc *)S.sblk;
    a.carry_in = carry_in;
    a.carry_out = carry_out;
    a.ds = ds;
    a.dcount = S.ctr + 3;
}

/* Launch the warp-specialised kernel kp of agent A (A::threads, A::dyn_bytes
 * of stages), or kb, the kernel with one block per tile (kb_threads, static
 * shared memory only), where kp cannot run: code below sm_80 or too little
 * shared memory for the stages (S.scan_by_block, arch.cu's check_code), or
 * the opt-in refused.  Both give the same bits. */
template <class A, class Args>
wr_status launch_tile_kernel(strand &S, void (*kp)(Args, unsigned *), void (*kb)(Args, unsigned *), int kb_threads,
                             size_t tiles, const Args &a, const char *what, char *err)
{
    if (!S.scan_by_block && tile_opt_in<A>(S, (const void *)kp, A::dyn_bytes))
        return launch_tiles(S, kp, A::threads, A::dyn_bytes, tiles, a, what, err);
    return launch_tiles(S, kb, kb_threads, 0, tiles, a, what, err);
}

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_LAUNCH_CUH */

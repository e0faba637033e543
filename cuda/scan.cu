/*
 * scan.cu -- the plugin's device-wide inclusive/exclusive scan: one pass
 * with decoupled look-back, the kernel of scan_kernel.cuh under the shipped
 * tuning (scan_policy) and no profiling hooks.
 *
 * The parts, one concern each:
 *   scan_policy.cuh      the tuning (a policy type) and the profiling hooks;
 *   scan_tile_state.cuh  the tile-state protocol: carry type, descriptors,
 *                        epochs, the deterministic look-back;
 *   ptx_async.cuh        mbarriers, cp.async, bulk copies;
 *   scan_tile.cuh        a tile in a shared-memory stage: geometry, swizzle,
 *                        a squad thread's items;
 *   scan_op.cuh          the scan operator the kernels are written over
 *                        (plain here; segscan_kernel.cuh's segmented one);
 *   scan_kernel.cuh      the warp roles, the kernel and its launcher;
 *   scan_block.cuh       the kernel with one block per tile, where the
 *                        warp-specialised one cannot run;
 *   scan_launch.cuh      descriptors, pieces, opt-in, grid and launch, for
 *                        every tile kernel.
 */
#include <stdio.h>
#include "scan_kernel.cuh"

namespace wrcuda {

/* Staging chunks start on tile boundaries, so that a staged scan gives the
 * bits of the same scan on device memory (staging.cu). */
static_assert(kScanTileBytes % scan_policy::tile_bytes == 0, "kScanTileBytes is whole tiles");

wr_status launch_scan(strand &S, const void *in, void *out, size_t n, wr_type t, wr_op o, int exclusive,
                      const void *carry_in, void *carry_out, done_sig ds, char *err)
{
    return dispatch<scan_launcher<scan_policy, no_hooks>>(t, o, S, in, out, n, exclusive, carry_in, carry_out, ds,
                                                          err);
}

wr_status reserve_scan(strand &S, size_t bytes, char *err)
{
    const size_t tiles = bytes / scan_policy::tile_bytes + 1;
    if (S.sblk != nullptr && tiles <= S.scap) return WR_SUCCESS;
    /* zeroed: status 0 is epoch 0, which no launch uses */
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, descriptor_bytes(tiles));
    if (e != cudaSuccess) {
        snprintf(err, WR_ERRLEN, "cudaMalloc: %s (%zu bytes of scan descriptors)", cudaGetErrorString(e),
                 descriptor_bytes(tiles));
        (void)cudaGetLastError();
        return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
    }
    if ((e = cudaMemsetAsync(p, 0, descriptor_bytes(tiles), S.st)) != cudaSuccess) {
        cudaFree(p);
        return fail(err, "cudaMemsetAsync", e);
    }
    if (S.sblk) {
        if ((e = cudaStreamSynchronize(S.st)) != cudaSuccess) {
            cudaFree(p);
            return fail(err, "cudaStreamSynchronize", e);
        }
        cudaFree(S.sblk);
    }
    S.sblk = p;
    S.scap = tiles;
    return WR_SUCCESS;
}

/* The largest static shared memory of the scan kernels: the one the check
 * below opts in for. */
typedef scan_agent<WR_SUM, double, scan_policy, no_hooks> scan_widest;
static_assert(sizeof(scan_widest::smem) >= sizeof(scan_agent<WR_MAX, float, scan_policy, no_hooks>::smem) &&
              sizeof(scan_widest::smem) >= sizeof(scan_agent<WR_SUM, int64_t, scan_policy, no_hooks>::smem),
              "a double carry with the float look-back takes the most shared memory");

const void *probe_scan() { return (const void *)k_scan_block<WR_SUM, double, scan_policy>; }

bool scan_stages_ok(const cudaFuncAttributes &fa)
{
    /* ptxVersion: the virtual architecture the code was made from (80 for
     * compute_80), whatever machine code the driver made of it */
    if (fa.ptxVersion < 80) return false;
    /* The opt-in fails where the stages and the static part do not fit in
     * a block's shared memory (an A100's 163 KB, an RTX's 99 KB).  Every
     * other instantiation needs less, so each call's own opt-in
     * (scan_launcher) then succeeds. */
    const cudaError_t e = cudaFuncSetAttribute((const void *)k_scan<WR_SUM, double, scan_policy, no_hooks>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)scan_widest::dyn_bytes);
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess;
}

} /* namespace wrcuda */

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
 *   scan_kernel.cuh      the warp roles, the kernel and its launcher.
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

} /* namespace wrcuda */

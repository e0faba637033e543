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
 *   scan_kernel.cuh      the warp roles, the kernel and its launcher;
 *   scan_block.cuh       the kernel with one block per tile, where the
 *                        warp-specialised one cannot run.
 */
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

} /* namespace wrcuda */

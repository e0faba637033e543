/*
 * segscan.cu -- the plugin's scans inside segments: the kernels of
 * segscan_kernel.cuh under the shipped tuning (segscan_policy) and no
 * profiling hooks, and the prep kernel that finds each tile's heads.
 */
#include <stdio.h>
#include "segscan_kernel.cuh"

namespace wrcuda {

/* Staging chunks start on tile boundaries (scan.cu's reason). */
static_assert(kScanTileBytes % segscan_policy::tile_bytes == 0, "kScanTileBytes is whole tiles");

__global__ void __launch_bounds__(kThreads)
k_segscan_prep(const size_t *__restrict__ off, size_t nseg, size_t base, size_t n, int unchecked, size_t E,
               size_t cap, segscan_dims *dims, size_t *__restrict__ L, unsigned long long *bad, unsigned *flag,
               unsigned long long *too_long)
{
    size_t lo = base, hi = base + n;
    if (unchecked) {
        lo = off[0];
        hi = off[nseg];
    }
    const size_t m = hi >= lo ? hi - lo : 0;
    const size_t tiles = (m + E - 1) / E;
    const size_t tid = (size_t)blockIdx.x * kThreads + threadIdx.x, nth = (size_t)gridDim.x * kThreads;
    if (unchecked) {
        for (size_t s = tid; s < nseg; s += nth)
            if (off[s + 1] < off[s]) {
                atomicMax(bad, ~(unsigned long long)s);
                if (flag) *(volatile unsigned *)flag = 1u;
                dims->bad = 1u;
                break;
            }
        if (tiles > cap && tid == 0) {
            atomicExch(too_long, 1ull);
            if (flag) *(volatile unsigned *)flag = 1u;
            dims->bad = 1u;
        }
    }
    if (tid == 0) {
        dims->base = lo;
        dims->n = m;
        dims->tiles = tiles;
    }
    if (tiles > cap) return;
    for (size_t t = tid; t <= tiles; t += nth) {
        const size_t at = t * E < m ? t * E : m;
        L[t] = off_lower_bound(off, nseg + 1, lo + at);
    }
}

namespace {

struct segscan_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg, size_t base,
                         int exclusive, const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        return segscan_launcher<segscan_policy, no_hooks>::run<O, T>(S, in, out, n, off, nseg, base, exclusive,
                                                                      carry_in, carry_out, ds, err);
    }
};

struct segscan_unchecked_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, const size_t *off, size_t nseg, int exclusive,
                         unsigned *flag, done_sig ds, char *err)
    {
        return segscan_launcher<segscan_policy, no_hooks>::unchecked<O, T>(S, in, out, off, nseg, exclusive, flag, ds,
                                                                            err);
    }
};

} /* namespace */

wr_status launch_segscan(strand &S, const void *in, void *out, size_t n, const size_t *off, size_t nseg,
                         size_t base, wr_type t, wr_op o, int exclusive, const void *carry_in, void *carry_out,
                         done_sig ds, char *err)
{
    return dispatch<segscan_fn>(t, o, S, in, out, n, off, nseg, base, exclusive, carry_in, carry_out, ds, err);
}

wr_status launch_segscan_unchecked(strand &S, const void *in, void *out, const size_t *off, size_t nseg, wr_type t,
                                   wr_op o, int exclusive, unsigned *flag, done_sig ds, char *err)
{
    return dispatch<segscan_unchecked_fn>(t, o, S, in, out, off, nseg, exclusive, flag, ds, err);
}

wr_status reserve_segscan(strand &S, char *err)
{
    /* the dims and L[] for as many tiles as the descriptors (reserve_scan) */
    return grow(S, S.sscan, &S.sscan_cap, kSegDimsBytes + (S.scap + 2) * sizeof(size_t), false,
                "segmented scan tile heads", err);
}

/* The largest static shared memory of the segmented kernels is checked by
 * the opt-in of each launch; this kernel is the file's probe. */
const void *probe_segscan() { return (const void *)k_segscan_prep; }

} /* namespace wrcuda */

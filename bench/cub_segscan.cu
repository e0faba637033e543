/* cub_segscan.cu -- the reference for wr_scan_segments and
 * wr_exscan_segments: cub::DeviceScan::InclusiveScanByKey /
 * ExclusiveScanByKey (the Sum forms for SUM) with each element's segment id
 * as its key.  A scan by key reads a key per element besides the value: the
 * keys are made once, before any timing (bcu_segscan_keys), as a user of
 * CUB with offsets would have to. */
#include <config.h>
#include <cub/device/device_scan.cuh>
#include "cub_common.cuh"

namespace {
struct SegScanRun : BcuCall {
    using BcuCall::BcuCall;
    const unsigned *keys = nullptr;
    template <class T, int OP> int run()
    {
        const T *i = (const T *)in;
        T *o = (T *)out;
        int n = (int)c->n;
        if (c->func == BF_SEGSCAN) {
            if constexpr (OP == WR_SUM) return (int)cub::DeviceScan::InclusiveSumByKey(temp, *bytes, keys, i, o, n,
                                                                                       ::cuda::std::equal_to<>(), st);
            else return (int)cub::DeviceScan::InclusiveScanByKey(temp, *bytes, keys, i, o, BcuOp<T, OP>(), n,
                                                                 ::cuda::std::equal_to<>(), st);
        }
        if constexpr (OP == WR_SUM) return (int)cub::DeviceScan::ExclusiveSumByKey(temp, *bytes, keys, i, o, n,
                                                                                   ::cuda::std::equal_to<>(), st);
        else return (int)cub::DeviceScan::ExclusiveScanByKey(temp, *bytes, keys, i, o, BcuOp<T, OP>(),
                                                             bcu_identity<T>(OP), n, ::cuda::std::equal_to<>(), st);
    }
};

/* keys[i] = the segment s with off[s] <= i < off[s + 1] (a binary search) */
__global__ void k_keys(const size_t *off, size_t nseg, size_t n, unsigned *keys)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t lo = 0, hi = nseg;             /* off[lo] <= i < off[hi] */
        while (hi - lo > 1) {
            const size_t m = lo + (hi - lo) / 2;
            if (off[m] <= i) lo = m;
            else hi = m;
        }
        keys[i] = (unsigned)lo;
    }
}
} // namespace

extern "C" int bcu_cub_segscan(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                               const void *d_in, void *d_out, const unsigned *d_keys, void *stream)
{
    SegScanRun r(c, temp, temp_bytes, d_in, d_out, stream);
    r.keys = d_keys;
    return bcu_dispatch(c, r);
}

extern "C" int bcu_segscan_keys(const size_t *d_offsets, size_t nseg, size_t n, unsigned *d_keys)
{
    if (n == 0) return 0;
    const size_t blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
    k_keys<<<(unsigned)blocks, 256>>>(d_offsets, nseg, n, d_keys);
    return (int)cudaGetLastError();
}

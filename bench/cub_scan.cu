/* cub_scan.cu -- the reference for wr_scan and wr_exscan:
 * cub::DeviceScan::InclusiveSum / ExclusiveSum / InclusiveScan / ExclusiveScan. */
#include <config.h>
#include <cub/device/device_scan.cuh>
#include "cub_common.cuh"

namespace {
struct ScanRun : BcuCall {
    using BcuCall::BcuCall;
    template <class T, int OP> int run()
    {
        const T *i = (const T *)in;
        T *o = (T *)out;
        int n = (int)c->n;
        if (c->func == BF_SCAN) {
            if constexpr (OP == WR_SUM) return (int)cub::DeviceScan::InclusiveSum(temp, *bytes, i, o, n, st);
            else return (int)cub::DeviceScan::InclusiveScan(temp, *bytes, i, o, BcuOp<T, OP>(), n, st);
        }
        if constexpr (OP == WR_SUM) return (int)cub::DeviceScan::ExclusiveSum(temp, *bytes, i, o, n, st);
        else return (int)cub::DeviceScan::ExclusiveScan(temp, *bytes, i, o, BcuOp<T, OP>(),
                                                        bcu_identity<T>(OP), n, st);
    }
};
} // namespace

extern "C" int bcu_cub_scan(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                            const void *d_in, void *d_out, void *stream)
{
    ScanRun r(c, temp, temp_bytes, d_in, d_out, stream);
    return bcu_dispatch(c, r);
}

/* cub_segreduce.cu -- the reference for wr_reduce_rows and
 * wr_reduce_segments: cub::DeviceSegmentedReduce::Sum / Reduce.  Rows are
 * segments whose offsets a transform iterator computes (row * cols), so CUB
 * reads no offsets array for them. */
#include <config.h>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "cub_common.cuh"

namespace {
struct RowOffset {
    int cols;
    __host__ __device__ int operator()(int row) const { return row * cols; }
};

struct SegRun : BcuCall {
    using BcuCall::BcuCall;
    const size_t *off = nullptr;
    template <class T, int OP, class It> int seg(It begin, It end, long long nseg)
    {
        const T *i = (const T *)in;
        T *o = (T *)out;
        if constexpr (OP == WR_SUM)
            return (int)cub::DeviceSegmentedReduce::Sum(temp, *bytes, i, o, nseg, begin, end, st);
        else
            return (int)cub::DeviceSegmentedReduce::Reduce(temp, *bytes, i, o, nseg, begin, end,
                                                           BcuOp<T, OP>(), bcu_identity<T>(OP), st);
    }
    template <class T, int OP> int run()
    {
        if (c->func == BF_ROWS) {
            auto rows = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0),
                                                        RowOffset{(int)c->cols});
            return seg<T, OP>(rows, rows + 1, (long long)c->rows);
        }
        return seg<T, OP>(off, off + 1, (long long)c->nseg);
    }
};
} // namespace

extern "C" int bcu_cub_segreduce(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                                 const void *d_in, void *d_out, const size_t *d_offsets, void *stream)
{
    SegRun r(c, temp, temp_bytes, d_in, d_out, stream);
    r.off = d_offsets;
    return bcu_dispatch(c, r);
}

/* cub_reduce.cu -- the reference for wr_reduce, wr_argmin and wr_argmax:
 * cub::DeviceReduce::Sum / Reduce / ArgMin / ArgMax. */
#include <config.h>
#include <cub/device/device_reduce.cuh>
#include "cub_common.cuh"

namespace {
struct ReduceRun : BcuCall {
    using BcuCall::BcuCall;
    template <class T, int OP> int run()
    {
        const T *i = (const T *)in;
        T *o = (T *)out;
        int n = (int)c->n;
        if constexpr (OP == WR_SUM)
            return (int)cub::DeviceReduce::Sum(temp, *bytes, i, o, n, st);
        else
            return (int)cub::DeviceReduce::Reduce(temp, *bytes, i, o, n, BcuOp<T, OP>(), bcu_identity<T>(OP), st);
    }
};

/* CCCL 3.x: ArgMin/ArgMax write the extremum and an int64 index to two
 * separate outputs (the KeyValuePair form is deprecated). */
template <class T> int arg_run(const struct bench_cell *c, void *temp, size_t *bytes,
                               const void *in, void *out, void *aux, cudaStream_t st)
{
    const T *i = (const T *)in;
    ::cuda::std::int64_t *idx = (::cuda::std::int64_t *)aux;
    if (c->func == BF_ARGMIN)
        return (int)cub::DeviceReduce::ArgMin(temp, *bytes, i, (T *)out, idx, (::cuda::std::int64_t)c->n, st);
    return (int)cub::DeviceReduce::ArgMax(temp, *bytes, i, (T *)out, idx, (::cuda::std::int64_t)c->n, st);
}
} // namespace

extern "C" int bcu_cub_reduce(const struct bench_cell *c, void *temp, size_t *temp_bytes,
                              const void *d_in, void *d_out, void *d_aux, void *stream)
{
    const cudaStream_t st = (cudaStream_t)stream;
    if (c->func == BF_ARGMIN || c->func == BF_ARGMAX) {
        switch (c->type) {
        case WR_INT32:  return arg_run<int32_t>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        case WR_INT64:  return arg_run<int64_t>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        case WR_UINT32: return arg_run<uint32_t>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        case WR_UINT64: return arg_run<uint64_t>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        case WR_FLOAT:  return arg_run<float>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        case WR_DOUBLE: return arg_run<double>(c, temp, temp_bytes, d_in, d_out, d_aux, st);
        }
        return (int)cudaErrorInvalidValue;
    }
    ReduceRun r(c, temp, temp_bytes, d_in, d_out, stream);
    return bcu_dispatch(c, r);
}

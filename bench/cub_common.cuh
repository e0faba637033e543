/*
 * cub_common.cuh -- what the CUB reference calls share: functors with
 * libwarpred's exact semantics (from lib/wr_ops.h, so CUB computes the same
 * function as our backends: wrapping integers, IEEE 754-2019 min/max), the
 * identities, and a dispatch from (wr_type, wr_op) to a template.
 *
 * Integer SUM, PROD and the bitwise ops give the same bits in the signed and
 * the unsigned type of a width (two's complement wrap-around), so they run on
 * the unsigned type: half the template instantiations, the same work.
 */
#ifndef WR_BENCH_CUB_COMMON_CUH
#define WR_BENCH_CUB_COMMON_CUH

#include <cuda_runtime.h>
#include "bench.h"
#include "wr_ops.h"

template <int OP> struct wr_op_tag {};

#define BCU_DEF_OPS(sfx, T)                                                               \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_SUM>, T a, T b) { return wr_sum_##sfx(a, b); }  \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_PROD>, T a, T b) { return wr_prod_##sfx(a, b); } \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_MIN>, T a, T b) { return wr_min_##sfx(a, b); }  \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_MAX>, T a, T b) { return wr_max_##sfx(a, b); }
#define BCU_DEF_BITS(sfx, T)                                                              \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_BAND>, T a, T b) { return wr_band_##sfx(a, b); } \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_BOR>, T a, T b) { return wr_bor_##sfx(a, b); }   \
    __host__ __device__ __forceinline__ T bcu_apply(wr_op_tag<WR_BXOR>, T a, T b) { return wr_bxor_##sfx(a, b); }
BCU_DEF_OPS(i32, int32_t) BCU_DEF_OPS(i64, int64_t) BCU_DEF_OPS(u32, uint32_t) BCU_DEF_OPS(u64, uint64_t)
BCU_DEF_OPS(f32, float) BCU_DEF_OPS(f64, double)
BCU_DEF_BITS(u32, uint32_t) BCU_DEF_BITS(u64, uint64_t)
#undef BCU_DEF_OPS
#undef BCU_DEF_BITS

template <class T, int OP> struct BcuOp {
    __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const
    {
        return bcu_apply(wr_op_tag<OP>(), a, b);
    }
};

template <class T> struct bcu_type_of;
template <> struct bcu_type_of<int32_t>  { static const wr_type value = WR_INT32; };
template <> struct bcu_type_of<int64_t>  { static const wr_type value = WR_INT64; };
template <> struct bcu_type_of<uint32_t> { static const wr_type value = WR_UINT32; };
template <> struct bcu_type_of<uint64_t> { static const wr_type value = WR_UINT64; };
template <> struct bcu_type_of<float>    { static const wr_type value = WR_FLOAT; };
template <> struct bcu_type_of<double>   { static const wr_type value = WR_DOUBLE; };

template <class T> T bcu_identity(int op)
{
    T v = T();
    wr_identity(bcu_type_of<T>::value, (wr_op)op, &v);
    return v;
}

/* What every CUB call gets; the runners add a template run<T, OP>(). */
struct BcuCall {
    const struct bench_cell *c;
    void *temp;                /* NULL: ask for the temporary storage size */
    size_t *bytes;
    const void *in;
    void *out;
    cudaStream_t st;           /* where the call is queued */
    BcuCall(const struct bench_cell *c_, void *temp_, size_t *bytes_, const void *in_, void *out_, void *st_)
        : c(c_), temp(temp_), bytes(bytes_), in(in_), out(out_), st((cudaStream_t)st_) {}
};

/* R::run<T, OP>() for the cell's type and op. */
template <class S, class U, class R> int bcu_dispatch_int(const struct bench_cell *c, R &r)
{
    bool sgn = c->type == WR_INT32 || c->type == WR_INT64;
    switch (c->op) {
    case WR_SUM:  return r.template run<U, WR_SUM>();
    case WR_PROD: return r.template run<U, WR_PROD>();
    case WR_MIN:  return sgn ? r.template run<S, WR_MIN>() : r.template run<U, WR_MIN>();
    case WR_MAX:  return sgn ? r.template run<S, WR_MAX>() : r.template run<U, WR_MAX>();
    case WR_BAND: return r.template run<U, WR_BAND>();
    case WR_BOR:  return r.template run<U, WR_BOR>();
    case WR_BXOR: return r.template run<U, WR_BXOR>();
    }
    return (int)cudaErrorInvalidValue;
}

template <class T, class R> int bcu_dispatch_float(const struct bench_cell *c, R &r)
{
    switch (c->op) {
    case WR_SUM:  return r.template run<T, WR_SUM>();
    case WR_PROD: return r.template run<T, WR_PROD>();
    case WR_MIN:  return r.template run<T, WR_MIN>();
    case WR_MAX:  return r.template run<T, WR_MAX>();
    default:      return (int)cudaErrorInvalidValue;
    }
}

template <class R> int bcu_dispatch(const struct bench_cell *c, R &r)
{
    switch (c->type) {
    case WR_INT32: case WR_UINT32: return bcu_dispatch_int<int32_t, uint32_t>(c, r);
    case WR_INT64: case WR_UINT64: return bcu_dispatch_int<int64_t, uint64_t>(c, r);
    case WR_FLOAT:  return bcu_dispatch_float<float>(c, r);
    case WR_DOUBLE: return bcu_dispatch_float<double>(c, r);
    }
    return (int)cudaErrorInvalidValue;
}

#endif /* WR_BENCH_CUB_COMMON_CUH */

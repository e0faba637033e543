/*
 * ptx_async.cuh -- PTX wrappers for asynchronous copies into shared memory
 * and their completion (not installed): mbarriers (sm_80+; try_wait on
 * sm_90), cp.async (sm_80+), bulk copies (sm_90), named barriers and the
 * global timer.
 */
#ifndef WRCUDA_PTX_ASYNC_CUH
#define WRCUDA_PTX_ASYNC_CUH

namespace wrcuda {

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* nanoseconds of the global timer */
__device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* ---- mbarriers ---- */

__device__ __forceinline__ void mbar_init(unsigned long long *b, unsigned count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(smem_addr(b)), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned long long *b)
{
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared.b64 st, [%0];\n\t}" :: "r"(smem_addr(b)) : "memory");
}

/* the arrival of this thread's earlier cp.async copies, when they complete */
__device__ __forceinline__ void mbar_arrive_cp_async(unsigned long long *b)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(smem_addr(b)) : "memory");
}

/* sm_90: arrive and expect `bytes` of bulk copies */
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long *b, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared.b64 st, [%0], %1;\n\t}"
                 :: "r"(smem_addr(b)), "r"(bytes) : "memory");
#endif
}

/* wait for the phase of parity ph to complete (acquire: what the arriving
 * threads wrote before arriving is visible after) */
__device__ __forceinline__ void mbar_wait(unsigned long long *b, unsigned ph)
{
    const unsigned a = smem_addr(b);
    unsigned done;
    for (;;) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(a), "r"(ph) : "memory");
#else
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(a), "r"(ph) : "memory");
#endif
        if (done) return;
    }
}

/* ---- copies ---- */

/* sm_90: one bulk copy of `bytes` (a multiple of 16, both addresses 16-byte
 * aligned) completing on b */
__device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes, unsigned long long *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(b)) : "memory");
#endif
}

/* 16 bytes by cp.async, cached in L2 only (shared address dst) */
__device__ __forceinline__ void cp_async_16(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
}

/* one element of N bytes (4 or 8) by cp.async (shared address dst) */
template <int N> __device__ __forceinline__ void cp_async_elem(unsigned dst, const void *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"(dst), "l"(src), "n"(N) : "memory");
}

/* wait for all of this thread's cp.async copies */
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/* ---- named barriers ---- */

/* a barrier among N threads (ids 1 to 15; 0 is __syncthreads) */
template <int N> __device__ __forceinline__ void bar_sync(int id)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "n"(N) : "memory");
}

} /* namespace wrcuda */

#endif /* WRCUDA_PTX_ASYNC_CUH */

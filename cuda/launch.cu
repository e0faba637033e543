/*
 * launch.cu -- what every launcher of the CUDA plugin uses (backend.cuh):
 * the error text of a failed CUDA call, the growing of a strand's scratch,
 * and the occupancy that sizes a grid, asked once per device and kernel.
 * It calls nothing of the plugin's other files, so every file may call it.
 */
#include <stdio.h>
#include <map>
#include <mutex>
#include <tuple>
#include "backend.cuh"

namespace wrcuda {

wr_status fail(char *err, const char *call, cudaError_t e)
{
    snprintf(err, WR_ERRLEN, "%s: %s", call, cudaGetErrorString(e));
    (void)cudaGetLastError();        /* a non-sticky error must not poison the next call */
    return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
}

wr_status grow(strand &S, void **p, size_t *cap, size_t need, bool zero, const char *what, char *err)
{
    if (*p != nullptr && need <= *cap) return WR_SUCCESS;
    if (S.fixed) {                            /* reserve_*() sized it: a bug if reached */
        snprintf(err, WR_ERRLEN, "internal: a queued call needs %zu bytes of %s, %zu were reserved", need, what,
                 *p ? *cap : (size_t)0);
        return WR_ERR_DEVICE;
    }
    size_t nc = need + need / 4;
    nc = (nc + 255) & ~(size_t)255;
    if (*p != nullptr) {
        WRCUDA_CK(cudaStreamSynchronize, (S.st));
        cudaFree(*p);
        *p = nullptr;
        *cap = 0;
    }
    cudaError_t e = cudaMalloc(p, nc);
    if (e != cudaSuccess) {
        *p = nullptr;
        snprintf(err, WR_ERRLEN, "cudaMalloc: %s (%zu bytes of %s)", cudaGetErrorString(e), nc, what);
        (void)cudaGetLastError();
        return e == cudaErrorMemoryAllocation ? WR_ERR_NO_MEMORY : WR_ERR_DEVICE;
    }
    *cap = nc;
    if (zero) WRCUDA_CK(cudaMemsetAsync, (*p, 0, nc, S.st));
    return WR_SUCCESS;
}

int blocks_per_sm(const void *kernel)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 4;
    }
    return n > 0 ? n : 1;
}

namespace {
/* resident_blocks' answers, by (device, kernel, threads, dynamic shared memory) */
struct occupancy_key {
    int dev;
    const void *kernel;
    int threads;
    size_t dyn;
    bool operator<(const occupancy_key &o) const
    {
        return std::tie(dev, kernel, threads, dyn) < std::tie(o.dev, o.kernel, o.threads, o.dyn);
    }
};
std::mutex occupancy_mu;
std::map<occupancy_key, int> occupancy;
} /* namespace */

int resident_blocks(strand &S, const void *kernel, int threads, size_t dyn, char *err)
{
    const occupancy_key k = { S.dev, kernel, threads, dyn };
    {
        std::lock_guard<std::mutex> g(occupancy_mu);
        auto i = occupancy.find(k);
        if (i != occupancy.end()) return i->second;
    }
    int nb = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, threads, dyn);
    if (e != cudaSuccess) {
        fail(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
        return -1;
    }
    nb = nb > 0 ? nb : 1;
    std::lock_guard<std::mutex> g(occupancy_mu);
    occupancy[k] = nb;
    return nb;
}

} /* namespace wrcuda */

/*
 * rows_time.cu -- the CUDA backend's row reduce (f32 sums of rows of COLS
 * columns) against cub::DeviceSegmentedReduce::Sum on the same buffers,
 * kernel time only (CUDA events around the launches), for A/B experiments
 * on the segment kernels (build the variant's tree, compare with the
 * plugin's).  The kernels are the plugin's, linked from its objects
 * (bench/tools/local.am); make check builds the tool.  How many blocks of
 * the block-per-row kernel fit on a multiprocessor follows from its
 * registers: cuobjdump --dump-resource-usage cuda/.libs/segments.o.  Run it
 * from the build tree:
 *   bench/tools/rows_time [N [COLS]]   (N elements, default 2^25; COLS default
 *                                       32768; ROWS_TIME_REPS runs, default 20)
 *
 * The input is all ones: every row's sum must be COLS, in ours and CUB's.
 */
#include "tool_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

struct RowOffset {
    int cols;
    __host__ __device__ int operator()(int row) const { return row * cols; }
};

__global__ void k_ones(float *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 1.0f;
}

static size_t wrong_rows(const float *d, size_t rows, size_t cols)
{
    std::vector<float> h(rows);
    CK(cudaMemcpy(h.data(), d, rows * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (float v : h) bad += v != (float)cols;
    return bad;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (size_t)1 << 25;
    const size_t cols = argc > 2 ? strtoull(argv[2], nullptr, 0) : 32768;
    const size_t rows = n / cols;
    const char *r = getenv("ROWS_TIME_REPS");
    const int reps = r && *r ? std::max(1, atoi(r)) : 20;
    wrcuda::strand S{};
    char err[WR_ERRLEN];
    tool_strand(S);
    float *in, *ours, *cub_out;
    CK(cudaMalloc((void **)&in, rows * cols * sizeof(float)));
    CK(cudaMalloc((void **)&ours, rows * sizeof(float)));
    CK(cudaMalloc((void **)&cub_out, rows * sizeof(float)));
    k_ones<<<4096, 256, 0, S.st>>>(in, rows * cols);
    CK(cudaGetLastError());
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0), RowOffset{(int)cols});
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cub::DeviceSegmentedReduce::Sum(tmp, tmp_bytes, in, cub_out, (long long)rows, begin, begin + 1, S.st));
    CK(cudaMalloc(&tmp, tmp_bytes));
    const double t_ours = timed_median(S.st, reps, [&] {
        if (wrcuda::launch_segments(S, in, ours, rows, nullptr, 0, cols, (double)cols, WR_FLOAT, WR_SUM, wrcuda::kNoDone,
                                 err) != WR_SUCCESS) {
            fprintf(stderr, "launch_segments: %s\n", err);
            exit(1);
        }
    });
    const double t_cub = timed_median(S.st, reps, [&] {
        CK(cub::DeviceSegmentedReduce::Sum(tmp, tmp_bytes, in, cub_out, (long long)rows, begin, begin + 1, S.st));
    });
    const size_t bad = wrong_rows(ours, rows, cols) + wrong_rows(cub_out, rows, cols);
    const double gb = (double)rows * cols * sizeof(float) * 1e-3;
    printf("rows_time: %zu rows x %zu cols: ours %.1f us (%.0f GB/s), "
           "CUB %.1f us (%.0f GB/s); CUB time / ours %.3f%s\n", rows, cols, t_ours, gb / t_ours, t_cub, gb / t_cub, t_cub / t_ours,
           bad ? "  WRONG RESULT" : "");
    return bad ? 1 : 0;
}

/* cuBLAS's loader of the benchmark (bench/cublas_ref.cu) for dot_time: the
 * benchmark's CUDA library, which holds it too, is not built everywhere the
 * tools are. */
#include "../cublas_ref.cu"

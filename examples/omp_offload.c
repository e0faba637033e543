/*
 * omp_offload.c -- libwarpred inside an OpenMP-offload program.
 *
 * The program keeps its array on the device with OpenMP (`target enter
 * data`), fills it there in a deferred target task, and hands the device
 * copy to libwarpred (`target data use_device_ptr`): an in-place prefix sum
 * and a sum, with no copy to the host in between.  Then it maps the array
 * back and checks every element.
 *
 * With an AUTO context the calls run where the device copy is: on an NVIDIA
 * GPU the copy is CUDA device memory (libgomp's nvptx plugin and
 * libwarpred's CUDA plugin share the device's primary context), so they run
 * on the cuda backend; without a device, OpenMP's target regions run on the
 * host, the "device copy" is the array itself, and libwarpred runs on the
 * cpu.  WARPRED_BACKEND=omptarget runs them on the omptarget plugin.
 *
 * Ordering the calls after the fill:
 *  - where the compiler offers OpenMP 5.1's interop objects (omp_interop_t,
 *    `interop init(targetsync: ...)`; LLVM clang 16 and later), the
 *    libwarpred calls join OpenMP's task graph: the interop object's stream
 *    waits for the fill (depend), libwarpred queues its work on that stream
 *    (wr_context_set_stream), and a second interop construct orders later
 *    OpenMP tasks after it; no host thread waits in between;
 *  - otherwise (GCC 12 has no interop construct) a taskwait waits for the
 *    fill first, and the calls, made after the parallel region that holds
 *    the task graph, complete before they return.
 * Build with your offloading compiler, e.g.
 *   gcc -fopenmp -foffload=nvptx-none omp_offload.c $(pkg-config --cflags --libs warpred)
 * Exit status 0 when every element is right.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include <warpred.h>

#if !defined(WR_EXAMPLE_NO_INTEROP) && defined(_OPENMP) && _OPENMP >= 202011
#  define USE_INTEROP 1
#else
#  define USE_INTEROP 0
#endif

static const char *backend_name(wr_backend b)
{
    switch (b) {
    case WR_BACKEND_CPU: return "cpu";
    case WR_BACKEND_CUDA: return "cuda";
    case WR_BACKEND_OPENMP_TARGET: return "omptarget";
    default: return "none";
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : (size_t)1 << 20;
    int64_t *x = malloc((n ? n : 1) * sizeof *x), sum = -1, want = 0;
    wr_context *ctx;
    wr_status st = WR_SUCCESS;
    size_t i, bad = 0;
    int joined = 0;

    if (x == NULL || n == 0) return 2;
    if (wr_context_create(&ctx, WR_BACKEND_AUTO) != WR_SUCCESS) {
        fprintf(stderr, "omp_offload: %s\n", wr_context_error(NULL));
        return 1;
    }

    /* the array lives on the device from here on */
#pragma omp target enter data map(alloc: x[0:n])

    /* The task graph lives where OpenMP tasks belong, in one thread of a
     * parallel region (with GCC 12's libgomp, a nowait target task outside
     * any parallel region can leave a later parallel region, such as the cpu
     * backend's, hanging).  First fill the array there, as a deferred task
     * that later work depends on. */
#pragma omp parallel
#pragma omp single
    {
#pragma omp target teams distribute parallel for simd nowait depend(out: x[0])
        for (size_t j = 0; j < n; j++) x[j] = (int64_t)(j % 7) - 2;

#if USE_INTEROP
        {
            /* a stream that waits for the fill; libwarpred queues on it */
            omp_interop_t obj = omp_interop_none;
            int rc = 0;
            void *stream;
#pragma omp interop init(targetsync: obj) depend(in: x[0])
            stream = omp_get_interop_ptr(obj, omp_ipr_targetsync, &rc);
            if (rc == omp_irc_success && stream != NULL && wr_context_set_stream(ctx, stream) == WR_SUCCESS) {
                joined = 1;
#pragma omp target data use_device_ptr(x)
                {
                    st = wr_reduce(ctx, x, &sum, n, WR_INT64, WR_SUM);      /* host output: completes */
                    if (st == WR_SUCCESS) st = wr_scan(ctx, x, x, n, WR_INT64, WR_SUM);   /* queued */
                }
                /* later OpenMP tasks on x wait for the stream's work */
#pragma omp interop destroy(obj) depend(inout: x[0])
                wr_context_set_stream(ctx, NULL);
            } else {
#pragma omp interop destroy(obj)
            }
        }
#endif
        if (!joined) {
            /* no interop object: wait for the fill */
#pragma omp taskwait
        }
    }   /* end of the parallel region: every task is complete */
    if (!joined) {
        /* then call, from outside the region: the cpu backend's threads are free */
#pragma omp target data use_device_ptr(x)
        {
            st = wr_reduce(ctx, x, &sum, n, WR_INT64, WR_SUM);
            if (st == WR_SUCCESS) st = wr_scan(ctx, x, x, n, WR_INT64, WR_SUM);
        }
    }
    if (st != WR_SUCCESS) {
        fprintf(stderr, "omp_offload: %s: %s\n", wr_status_string(st), wr_context_error(ctx));
#pragma omp target exit data map(delete: x[0:n])
        return 1;
    }

#pragma omp taskwait
#pragma omp target exit data map(from: x[0:n])
    for (i = 0; i < n; i++) {
        want += (int64_t)(i % 7) - 2;
        if (x[i] != want && bad++ < 3) fprintf(stderr, "omp_offload: x[%zu] = %lld, want %lld\n", i, (long long)x[i], (long long)want);
    }
    if (sum != want) {
        fprintf(stderr, "omp_offload: sum %lld, want %lld\n", (long long)sum, (long long)want);
        bad++;
    }
    printf("omp_offload: %zu elements on %d offload device%s, %s: wr_reduce and in-place wr_scan on the "
           "device copy ran on %s: %s\n", n, omp_get_num_devices(), omp_get_num_devices() == 1 ? "" : "s",
           joined ? "joined through an interop stream" : "after a taskwait",
           backend_name(wr_context_last_backend(ctx)), bad ? "WRONG" : "ok");
    printf("omp_offload: context: %s\n", wr_context_describe(ctx));
    wr_context_destroy(ctx);
    free(x);
    return bad ? 1 : 0;
}

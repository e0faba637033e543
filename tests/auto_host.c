/*
 * auto_host.c -- AUTO's choice for host-resident buffers (lib/api.c's cost
 * model), on any machine: the good fake plugin of tests/fake_plugin.c calls
 * the address range in WR_FAKE_PINNED pinned host memory, and tags its int32
 * SUM results, so the value and wr_context_last_backend() tell where a call
 * ran.
 *
 *  - one cpu thread: a large pinned input goes to cuda (the PCIe link beats
 *    one core) for reduce, scan (in place too), argmax and segments, with a
 *    small pageable output allowed;
 *  - pageable input, a large pageable output, or a small pinned input: cpu;
 *  - many cpu threads (64): pinned reduce and scan stay on the cpu (host
 *    memory beats the link); 6 threads: a pinned scan goes to cuda (both
 *    directions of the link at once beat 6 cores) while a pinned reduce
 *    stays on the cpu;
 *  - inside the caller's parallel region (nested regions inactive) the cpu
 *    backend has one thread: cuda;
 *  - CPU and CUDA contexts are not affected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "testutil.h"
#include "fake_plugin.h"
#include "testfs.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

#define N ((size_t)1 << 19)              /* 2 MiB of int32: past AUTO's small-call limit */
#define SMALL ((size_t)1 << 12)          /* 16 KiB: below it */

static int32_t pinned[2][N], pageable[2][N];

static void set_range(const char *name, const void *p, size_t bytes)
{
    char v[64];
    snprintf(v, sizeof v, "%" PRIxPTR ":%zu", (uintptr_t)p, bytes);
    setenv(name, v, 1);
}

static int32_t ref_sum(const int32_t *x, size_t n)
{
    uint32_t s = 0;
    size_t i;
    for (i = 0; i < n; i++) s += (uint32_t)x[i];
    return (int32_t)s;
}

static int32_t tagged(int32_t v) { return (int32_t)((uint32_t)v + (uint32_t)FAKE_TAG); }

static const char *where(const wr_context *ctx)
{
    switch (wr_context_last_backend(ctx)) {
    case WR_BACKEND_CPU:  return "cpu";
    case WR_BACKEND_CUDA: return "cuda";
    default:              return "none";
    }
}

/* wr_reduce of n elements at in ran on want (checked by value and by last_backend). */
static void reduce_on(wr_context *ctx, const int32_t *in, size_t n, wr_backend want, const char *what)
{
    int32_t out = -5, sum = ref_sum(in, n);
    wr_status st = wr_reduce(ctx, in, &out, n, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && wr_context_last_backend(ctx) == want &&
       out == (want == WR_BACKEND_CUDA ? tagged(sum) : sum),
       "%s: reduce ran on %s (%s)", what, want == WR_BACKEND_CUDA ? "cuda" : "cpu", where(ctx));
}

/* wr_scan of N elements from in to out ran on want (last element checked). */
static void scan_on(wr_context *ctx, const int32_t *in, int32_t *out, wr_backend want, const char *what)
{
    int32_t sum = ref_sum(in, N);
    wr_status st = wr_scan(ctx, in, out, N, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && wr_context_last_backend(ctx) == want &&
       out[N - 1] == (want == WR_BACKEND_CUDA ? tagged(sum) : sum),
       "%s: scan ran on %s (%s)", what, want == WR_BACKEND_CUDA ? "cuda" : "cpu", where(ctx));
}

static void fill(void)
{
    size_t i;
    for (i = 0; i < N; i++) {
        pinned[0][i] = pageable[0][i] = (int32_t)(i % 1000) - 400;
        pinned[1][i] = pageable[1][i] = 0;
    }
    pinned[0][N / 3] = pageable[0][N / 3] = 5000;      /* the one maximum */
}

static void one_thread(wr_context *ctx)
{
    size_t idx = 0, off[3] = { 0, N / 2, N };
    int32_t val = 0, seg[2] = { -5, -5 };
    wr_status st;

    reduce_on(ctx, pinned[0], N, WR_BACKEND_CUDA, "1 thread, pinned input, pageable scalar out");
    scan_on(ctx, pinned[0], pinned[1], WR_BACKEND_CUDA, "1 thread, pinned in and out");
    fill();
    scan_on(ctx, pinned[1], pinned[1], WR_BACKEND_CUDA, "1 thread, pinned, in place");
    fill();
    st = wr_argmax(ctx, pinned[0], N, WR_INT32, &idx, &val);
    ok(st == WR_SUCCESS && idx == N / 3 && val == 5000 && wr_context_last_backend(ctx) == WR_BACKEND_CUDA,
       "1 thread, pinned input: argmax ran on cuda (%s, index %zu)", where(ctx), idx);
    st = wr_reduce_segments(ctx, pinned[0], seg, 2, off, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && wr_context_last_backend(ctx) == WR_BACKEND_CUDA &&
       seg[0] == tagged(ref_sum(pinned[0], N / 2)) && seg[1] == tagged(ref_sum(pinned[0] + N / 2, N - N / 2)),
       "1 thread, pinned input, small pageable offsets and output: segments ran on cuda (%s)", where(ctx));

    reduce_on(ctx, pageable[0], N, WR_BACKEND_CPU, "1 thread, pageable input");
    reduce_on(ctx, pinned[0], SMALL, WR_BACKEND_CPU, "1 thread, small pinned input");
    scan_on(ctx, pinned[0], pageable[1], WR_BACKEND_CPU, "1 thread, pinned input, large pageable output");
    scan_on(ctx, pageable[0], pinned[1], WR_BACKEND_CPU, "1 thread, pageable input, pinned output");
}

static void other_contexts(void)
{
    wr_context *cpu = NULL, *cuda = NULL;
    if (wr_context_create(&cpu, WR_BACKEND_CPU) != WR_SUCCESS ||
        wr_context_create(&cuda, WR_BACKEND_CUDA) != WR_SUCCESS)
        bail("CPU/CUDA contexts with the good fake: %s", wr_context_error(NULL));
    reduce_on(cpu, pinned[0], N, WR_BACKEND_CPU, "CPU context, pinned input");
    reduce_on(cuda, pageable[0], N, WR_BACKEND_CUDA, "CUDA context, pageable input");
    wr_context_destroy(cpu);
    wr_context_destroy(cuda);
}

int main(void)
{
    wr_context *ctx = NULL;

    plan(9 + 5 + 1 + 2);
    unsetenv("WARPRED_BACKEND");
    /* a private copy: the loader trusts it whatever the build's umask */
    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good"), 1);
    set_range("WR_FAKE_PINNED", pinned, sizeof pinned);
    fill();
    if (wr_context_create(&ctx, WR_BACKEND_AUTO) != WR_SUCCESS || !wr_context_has_backend(ctx, WR_BACKEND_CUDA))
        bail("AUTO context with the good fake plugin: %s", wr_context_error(NULL));

#ifdef _OPENMP
    omp_set_max_active_levels(1);
    omp_set_num_threads(1);
#endif
    one_thread(ctx);

#ifdef _OPENMP
    omp_set_num_threads(64);
    reduce_on(ctx, pinned[0], N, WR_BACKEND_CPU, "64 threads, pinned input");
    scan_on(ctx, pinned[0], pinned[1], WR_BACKEND_CPU, "64 threads, pinned in and out");
    reduce_on(ctx, pageable[0], N, WR_BACKEND_CPU, "64 threads, pageable input");
    omp_set_num_threads(6);
    reduce_on(ctx, pinned[0], N, WR_BACKEND_CPU, "6 threads, pinned input");
    scan_on(ctx, pinned[0], pinned[1], WR_BACKEND_CUDA, "6 threads, pinned in and out");
    omp_set_num_threads(64);
    {
        int cuda_inside = 0, team = 0;
#pragma omp parallel num_threads(2) reduction(+ : cuda_inside)
        {
            int32_t out = 0;
#pragma omp single nowait
            team = omp_get_num_threads();
            /* both threads use ctx; last_backend is shared, so judge by the tag */
            if (wr_reduce(ctx, pinned[0], &out, N, WR_INT32, WR_SUM) == WR_SUCCESS &&
                out == tagged(ref_sum(pinned[0], N)))
                cuda_inside++;
        }
        /* a team of one is not a parallel region: the cpu would have 64 threads */
        ok(team < 2 || cuda_inside == team,
           "inside the caller's parallel region (nested regions inactive): pinned reduce ran on cuda "
           "in %d of %d threads", cuda_inside, team);
    }
#else
    skip_block(6, "built without OpenMP: the cpu backend always has one thread");
#endif
    other_contexts();
    wr_context_destroy(ctx);
    return 0;
}

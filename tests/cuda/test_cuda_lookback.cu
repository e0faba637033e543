/*
 * test_cuda_lookback.cu -- the single-pass scan's float results do not
 * depend on timing.
 *
 * A tile's look-back (cuda/scan_tile_state.cuh) stops at the nearest earlier
 * tile that has published its inclusive prefix, and which tile that is
 * depends on which blocks ran first.  The float results must not: the
 * prefix of tile t is defined as the left fold of the tiles' aggregates,
 * and the look-back continues that fold from wherever it stops.  Left to
 * the scheduler, nearly every look-back stops at the tile just before, or at
 * the block's own previous tile, so a run of the plain kernel shows little.
 * Here the kernel of cuda/scan_kernel.cuh is instantiated with hooks of the
 * test's own (the kernel's hooks parameter, scan_policy.cuh: the shipped
 * kernel has none, as bench/tools/scan_phases does it) that hold chosen
 * steps of chosen tiles back: the load of a tile, its reduction before and
 * after its aggregate is published (so that its inclusive prefix comes
 * late and the tiles after it look further back), and the start of its
 * look-back; pseudo-random tiles and delays (up to 30 us) from a seed per
 * run, or every look-back of whole windows of 32 tiles delayed (chains of
 * aggregates longer than one pass of the look-back's lanes).  The hooks
 * also record each tile's look-back distance and extra passes.
 *
 * Every run must give the bits of the plugin's own kernel (the same
 * objects, run without hooks): float and double SUM, float PROD, float MAX
 * with NaNs of several payloads (the fold decides which one comes out),
 * inclusive and exclusive, a few tiles and 2^21 + 3 elements, on all the
 * resident blocks and on 2, 3 and 7 of them, in pieces of 3 tiles carried
 * from one launch to the next (as a stream's scans longer than its
 * reserved descriptors run), and with the block-per-tile kernel
 * (cuda/scan_block.cuh).  A last check makes sure the delays did move the
 * look-backs: some tile's look-back stopped at other distances in
 * different runs.  WR_TEST_MAX_N caps the sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "scan_kernel.cuh"
#include "gpu_common.h"
#include "tap.h"

#define CK(call) GPU_CK(call)

namespace {

__device__ unsigned long long g_seed;      /* this run's delays (0: none) */
__device__ unsigned g_mode;                /* 1: random steps of random tiles; 2: windows of look-backs */
__device__ int *g_dist;                    /* per tile: look-back distance (-1: none), or NULL */
__device__ int *g_pass;                    /* per tile: extra look-back passes, or NULL */

__host__ __device__ inline unsigned long long mix(unsigned long long z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

__device__ void pause_ns(unsigned long long ns)
{
    const unsigned long long t0 = wrcuda::globaltimer_ns();
    while (wrcuda::globaltimer_ns() - t0 < ns) __nanosleep(256);
}

/* The hooks (see scan_policy.cuh's no_hooks): each call comes from one
 * thread of the warp or squad doing the step, so a delay holds the whole
 * step back (the others wait for that thread at their next barrier or
 * ballot). */
struct jitter_hooks {
    static constexpr bool enabled = true;
    __device__ static unsigned long long now() { return 0; }
    __device__ static void note(size_t tile, int what, unsigned long long v)
    {
        if (what == wrcuda::kSDistance && g_dist) g_dist[tile] = (int)v;
        if (what == wrcuda::kSPasses && g_pass) g_pass[tile] = (int)v;
    }
    __device__ static void stamp(size_t tile, int what)
    {
        const unsigned long long s = g_seed;
        if (s == 0) return;
        if (g_mode == 2) {
            /* every look-back of the odd windows of 32 tiles, 40 us */
            if (what == wrcuda::kSLbStart && (tile >> 5) % 2 == 1) pause_ns(40000);
            return;
        }
        /* the tile's load, its reduction before and after its aggregate
         * is out, its look-back: one step in six, 0-30 us */
        if (what != wrcuda::kSStaged && what != wrcuda::kSLanded && what != wrcuda::kSAggregate &&
            what != wrcuda::kSLbStart)
            return;
        const unsigned long long h = mix(s ^ ((unsigned long long)tile << 5 | (unsigned long long)what));
        if (h % 6 == 0) pause_ns((h >> 20) % 30000);
    }
};

typedef wrcuda::scan_launcher<wrcuda::scan_policy, jitter_hooks> jitter_scan;

/* a strand as the launchers need it (cf. pool.cu): stream, counters,
 * partials, slots; descriptors grown by the scan, or reserved (fixed: a
 * scan longer than `fixed_bytes` runs in pieces) */
void make_strand(wrcuda::strand &S, size_t fixed_bytes, bool by_block, unsigned blocks)
{
    char err[WR_ERRLEN];
    S = wrcuda::strand{};
    CK(cudaGetDevice(&S.dev));
    CK(cudaDeviceGetAttribute(&S.sms, cudaDevAttrMultiProcessorCount, S.dev));
    CK(cudaStreamCreateWithFlags(&S.st, cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&S.ctr, 64));
    CK(cudaMemset(S.ctr, 0, 64));
    CK(cudaMalloc((void **)&S.slot, wrcuda::kSlots * wrcuda::kSlotBytes));
    CK(cudaMemset(S.slot, 0, wrcuda::kSlots * wrcuda::kSlotBytes));
    S.part_cap = (size_t)wrcuda::kMaxGrid * 16;
    CK(cudaMalloc(&S.part, S.part_cap));
    S.scan_by_block = by_block;
    S.scan_blocks = blocks;
    if (fixed_bytes) {
        if (wrcuda::reserve_scan(S, fixed_bytes, err) != WR_SUCCESS) bail("reserve_scan: %s", err);
        S.fixed = true;
    }
    CK(cudaDeviceSynchronize());
}

void free_strand(wrcuda::strand &S)
{
    CK(cudaStreamSynchronize(S.st));
    CK(cudaStreamDestroy(S.st));
    CK(cudaFree(S.ctr));
    CK(cudaFree(S.slot));
    CK(cudaFree(S.part));
    CK(cudaFree(S.sblk));
}

struct kase {
    wr_type t;
    wr_op op;
};

/* data for a case: SUM uniform in [-0.25, 0.75) (cancellation), PROD
 * 1 + [-1, 1) / 256, MAX random with about one NaN in 3000 of random sign
 * and payload */
void fill(void *h, wr_type t, wr_op op, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng_next(&seed);
        const double u = (double)(r >> 11) * 0x1p-53;
        const double v = op == WR_PROD ? 1.0 + (2 * u - 1) / 256 : op == WR_SUM ? u - 0.25 : 2 * u - 1;
        if (t == WR_FLOAT) {
            float f = (float)v;
            if (op == WR_MAX && r % 3000 == 17) {
                const uint32_t b = 0x7fc00000u | (uint32_t)(r >> 40 & 0x3fffff) | (uint32_t)(r >> 63) << 31;
                memcpy(&f, &b, 4);
            }
            ((float *)h)[i] = f;
        } else {
            ((double *)h)[i] = v;
        }
    }
}

template <wr_op O, typename T>
wr_status jitter_run(wrcuda::strand &S, const void *in, void *out, size_t n, int ex, char *err)
{
    return jitter_scan::run<O, T>(S, in, out, n, ex, nullptr, nullptr, wrcuda::kNoDone, err);
}

/* the hooked kernel for (t, op) */
wr_status jitter(wrcuda::strand &S, wr_type t, wr_op op, const void *in, void *out, size_t n, int ex, char *err)
{
    if (t == WR_FLOAT && op == WR_SUM) return jitter_run<WR_SUM, float>(S, in, out, n, ex, err);
    if (t == WR_FLOAT && op == WR_PROD) return jitter_run<WR_PROD, float>(S, in, out, n, ex, err);
    if (t == WR_FLOAT && op == WR_MAX) return jitter_run<WR_MAX, float>(S, in, out, n, ex, err);
    if (t == WR_DOUBLE && op == WR_SUM) return jitter_run<WR_SUM, double>(S, in, out, n, ex, err);
    bail("no hooked kernel for %s %s", type_name[t], op_name[op]);
}

/* One run's settings: seed and mode of the delays (0: none), the strand. */
struct variant {
    const char *name;
    unsigned long long seed;
    unsigned mode;
    int strand;                               /* 0: all blocks, 1-3: 2, 3, 7 blocks, 4: pieces, 5: block kernel */
};

const variant runs[] = {
    { "random delays (seed 1)", 1, 1, 0 },
    { "random delays (seed 2)", 2, 1, 0 },
    { "random delays (seed 3)", 3, 1, 0 },
    { "windows of delayed look-backs", 4, 2, 0 },
    { "random delays on 2 blocks", 5, 1, 1 },
    { "random delays on 3 blocks", 6, 1, 2 },
    { "random delays on 7 blocks", 7, 1, 3 },
    { "random delays, in pieces of 3 tiles", 8, 1, 4 },
    { "the block-per-tile kernel", 0, 0, 5 },
};
constexpr int kRuns = sizeof runs / sizeof runs[0];
constexpr int kStrands = 6;

} /* namespace */

int main(void)
{
    gpu_require();
    {
        /* as the plugin decides (arch.cu): the staged kernel needs sm_80
         * code and room for its stages */
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, wrcuda::probe_scan()));
        if (!wrcuda::scan_stages_ok(fa)) skip_all("the staged scan kernel cannot run on this device with this code");
    }
    const size_t big = test_max_n(((size_t)1 << 21) + 3);
    plan_lazy();
    const kase kases[] = { { WR_FLOAT, WR_SUM }, { WR_DOUBLE, WR_SUM }, { WR_FLOAT, WR_PROD }, { WR_FLOAT, WR_MAX } };
    const size_t sizes[] = { 3 * 8192 + 100, ((size_t)1 << 21) + 3 };
    wrcuda::strand S[kStrands];
    make_strand(S[0], 0, false, 0);
    make_strand(S[1], 0, false, 2);
    make_strand(S[2], 0, false, 3);
    make_strand(S[3], 0, false, 7);
    make_strand(S[4], 65536, false, 0);       /* descriptors for 3 tiles (scan.cu's reserve_scan) */
    make_strand(S[5], 0, true, 0);
    diag("%d multiprocessors; the stream-strand reserve holds %zu tiles", S[0].sms, S[4].scap);

    const size_t cap = sizes[1] < big ? sizes[1] : big;
    void *h = malloc(cap * 8), *want = malloc(cap * 8), *got = malloc(cap * 8);
    void *din = NULL, *dout = NULL;
    int *ddist = NULL, *dpass = NULL;
    if (!h || !want || !got) bail("out of host memory");
    CK(cudaMalloc(&din, cap * 8));
    CK(cudaMalloc(&dout, cap * 8));
    const size_t max_tiles = cap / 4096 + 2;
    CK(cudaMalloc((void **)&ddist, max_tiles * sizeof(int)));
    CK(cudaMalloc((void **)&dpass, max_tiles * sizeof(int)));
    std::vector<int> dist(max_tiles), pass(max_tiles), first_dist(max_tiles);
    long moved = 0, far = 0, passes = 0, watched = 0;
    int maxd = 0;
    char err[WR_ERRLEN];

    for (const kase &k : kases)
        for (size_t si = 0; si < 2; si++)
            for (int ex = 0; ex < 2; ex++) {
                const size_t n = sizes[si], es = k.t == WR_FLOAT ? 4 : 8, bytes = n * es;
                const size_t tiles = (n + 32768 / es - 1) / (32768 / es);
                char what[96];
                if (n > big) continue;
                snprintf(what, sizeof what, "%s %s %s n=%zu (%zu tiles)", ex ? "exscan" : "scan", type_name[k.t],
                         op_name[k.op], n, tiles);
                fill(h, k.t, k.op, n, 1000 * si + 10 * (size_t)k.op + (size_t)k.t);
                CK(cudaMemcpy(din, h, bytes, cudaMemcpyHostToDevice));
                /* the plugin's kernel: the bits every run must give */
                CK(cudaMemset(dout, 0x5a, bytes));
                CK(cudaDeviceSynchronize());
                if (wrcuda::launch_scan(S[0], din, dout, n, k.t, k.op, ex, nullptr, nullptr, wrcuda::kNoDone, err) !=
                    WR_SUCCESS)
                    bail("%s: %s", what, err);
                CK(cudaStreamSynchronize(S[0].st));
                CK(cudaMemcpy(want, dout, bytes, cudaMemcpyDeviceToHost));
                int good = 1, seen = 0;
                for (int ri = 0; ri < kRuns; ri++) {
                    const variant &r = runs[ri];
                    int *dp = r.mode ? ddist : nullptr, *pp = r.mode ? dpass : nullptr;
                    CK(cudaMemcpyToSymbol(g_seed, &r.seed, sizeof r.seed));
                    CK(cudaMemcpyToSymbol(g_mode, &r.mode, sizeof r.mode));
                    CK(cudaMemcpyToSymbol(g_dist, &dp, sizeof dp));
                    CK(cudaMemcpyToSymbol(g_pass, &pp, sizeof pp));
                    CK(cudaMemset(ddist, 0xff, max_tiles * sizeof(int)));
                    CK(cudaMemset(dpass, 0, max_tiles * sizeof(int)));
                    CK(cudaMemset(dout, 0x5a, bytes));
                    CK(cudaDeviceSynchronize());
                    wrcuda::strand &Q = S[r.strand];
                    const wr_status st = r.strand == 5
                        ? wrcuda::launch_scan(Q, din, dout, n, k.t, k.op, ex, nullptr, nullptr, wrcuda::kNoDone, err)
                        : jitter(Q, k.t, k.op, din, dout, n, ex, err);
                    if (st != WR_SUCCESS) bail("%s, %s: %s", what, r.name, err);
                    CK(cudaStreamSynchronize(Q.st));
                    CK(cudaMemcpy(got, dout, bytes, cudaMemcpyDeviceToHost));
                    if (memcmp(want, got, bytes) != 0) {
                        size_t i = 0;
                        char a[48], b[48];
                        while (i + 1 < n && !memcmp((char *)want + i * es, (char *)got + i * es, es)) i++;
                        diag("%s, %s: differs first at [%zu] (tile %zu): %s vs %s", what, r.name, i,
                             i / (32768 / es), elem_str(k.t, want, i, a, sizeof a), elem_str(k.t, got, i, b, sizeof b));
                        good = 0;
                    }
                    /* the look-backs of the long scans' delayed runs (pieces:
                     * tiles numbered per piece) */
                    if (!r.mode || r.strand == 4 || si == 0) continue;
                    CK(cudaMemcpy(dist.data(), ddist, tiles * sizeof(int), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(pass.data(), dpass, tiles * sizeof(int), cudaMemcpyDeviceToHost));
                    for (size_t t = 1; t < tiles; t++) {
                        if (dist[t] < 0) continue;
                        if (dist[t] > maxd) maxd = dist[t];
                        far += dist[t] >= 32;
                        passes += pass[t];
                        if (!seen) first_dist[t] = dist[t];
                        else moved += first_dist[t] != dist[t];
                        watched++;
                    }
                    seen = 1;
                }
                ok(good, "%s: the plugin's bits in %d runs with look-backs delayed, on 2-7 blocks, in pieces, and "
                   "with the block-per-tile kernel", what, kRuns);
            }
    diag("look-backs of the long scans: %ld watched, the longest %d tiles back, %ld stopped 32 or more back, %ld "
         "extra passes; %ld stopped elsewhere than in their case's first delayed run", watched, maxd, far, passes,
         moved);
    if (watched == 0) skip_block(1, "no long scan ran (WR_TEST_MAX_N)");
    else ok(moved > 0 && maxd >= 2, "the delays moved the look-backs (the runs above took different paths)");

    for (int i = 0; i < kStrands; i++) free_strand(S[i]);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(ddist));
    CK(cudaFree(dpass));
    free(h);
    free(want);
    free(got);
    return tap_failures() ? 1 : 0;
}

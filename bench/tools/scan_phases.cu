/*
 * scan_phases.cu -- where the time of the device-wide scan goes, tile by tile.
 *
 * The kernel of cuda/scan_kernel.cuh is instantiated here with its own
 * policy (phases_policy below: the shipped scan_policy, with the members
 * that -DSCAN_PHASES_<NAME>= macros set) and hooks that stamp
 * %globaltimer at each step of a tile: ticket drawn, staged (its ticket is
 * in hand and a stage free: the load warp starts the copy), landed,
 * aggregate out (reduce squad), look-back started, answered (its reads
 * valid) and prefix out (look-back warps), outputs stored (scan squad);
 * plus the distance to the nearest published prefix, the number of extra
 * look-back passes, the block and the block's previous tile.  The squads
 * work on different tiles at once, so the steps of one tile overlap those of
 * others (the differences are signed).  Scans of N elements (default 2^28)
 * of f32, i32 and f64 SUM on device memory, timed (the median of
 * SCAN_PHASES_REPS runs, default 3) and checked: the int32 one element by
 * element, the float ones against (k + 1) times the one value and for the
 * same bits in a second run (SCAN_PHASES_CHECK=0: not checked); printed:
 * the kernel's time, GB/s and ratio to a device-to-device copy of the same
 * bytes (CUDA events), each step's mean and percentiles over the tiles, how
 * many tiles were in flight on average, what the load warp and the scan
 * squad waited for, and what each look-back waited for: the slowest
 * aggregate between the block's previous tile and its own, and when a
 * look-back knowing every stamp could have answered.
 * SCAN_PHASES_DUMP=PREFIX writes the raw stamps to PREFIX-f32.bin etc.;
 * SCAN_PHASES_RANDOM=1 scans random bits, SCAN_PHASES_CALLSTYLE=1 times as
 * warpred-bench does, and SCAN_PHASES_GAP=BYTES moves the output that much
 * further from the input (below).
 *
 * The policy's members, at build time: -DSCAN_PHASES_STAGES=, _MINB
 * (min_blocks), _SQUAD, _AHEAD, _TILE_BYTES, _TMA (bulk_copies), _ALIGN,
 * _LB (look-back warps, every type), _LBK (descriptors a look-back lane
 * reads per pass, every type), _LBDELAY1 and _LBDELAY2; with
 * -DSCAN_PHASES_NOSTAMPS the hooks are the plugin's (none), so that the
 * kernel is the plugin's when no member is set.  make check builds it as it
 * is (bench/tools/local.am); a variant, from the build tree:
 *
 *   rm -f bench/tools/scan_phases.o
 *   make bench/tools/scan_phases NVCCFLAGS='-DSCAN_PHASES_STAGES=4'
 *   bench/tools/scan_phases [N]
 */
#include "scan_kernel.cuh"
#include "tool_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <algorithm>
#include <vector>

/* the policy under study: the shipped one, with what the macros set */
struct phases_policy : wrcuda::scan_policy {
#ifdef SCAN_PHASES_STAGES
    static constexpr int stages = SCAN_PHASES_STAGES;
#endif
#ifdef SCAN_PHASES_MINB
    static constexpr int min_blocks = SCAN_PHASES_MINB;
#endif
#ifdef SCAN_PHASES_SQUAD
    static constexpr int squad = SCAN_PHASES_SQUAD;
#endif
#ifdef SCAN_PHASES_AHEAD
    static constexpr int ahead = SCAN_PHASES_AHEAD;
#endif
#ifdef SCAN_PHASES_TILE_BYTES
    static constexpr size_t tile_bytes = SCAN_PHASES_TILE_BYTES;
#endif
#ifdef SCAN_PHASES_TMA
    static constexpr bool bulk_copies = SCAN_PHASES_TMA != 0;
#endif
#ifdef SCAN_PHASES_ALIGN
    static constexpr unsigned align = SCAN_PHASES_ALIGN;
#endif
#ifdef SCAN_PHASES_LB
    static constexpr int lb_warps_int = SCAN_PHASES_LB, lb_warps_float = SCAN_PHASES_LB;
#endif
#ifdef SCAN_PHASES_LBK
    static constexpr int lb_k1 = SCAN_PHASES_LBK, lb_k2 = SCAN_PHASES_LBK;
#endif
#ifdef SCAN_PHASES_LBDELAY1
    static constexpr unsigned lb_delay1 = SCAN_PHASES_LBDELAY1;
#endif
#ifdef SCAN_PHASES_LBDELAY2
    static constexpr unsigned lb_delay2 = SCAN_PHASES_LBDELAY2;
#endif
};
typedef phases_policy P;

/* the stamps: wrcuda::kStamps words per tile (wrcuda::kS..., in
 * cuda/scan_policy.cuh) */
__device__ unsigned long long *g_stamps;

struct stamp_hooks {
    static constexpr bool enabled = true;
    __device__ static unsigned long long now() { return wrcuda::globaltimer_ns(); }
    __device__ static void note(size_t tile, int what, unsigned long long v)
    {
        g_stamps[tile * wrcuda::kStamps + what] = v;
    }
    __device__ static void stamp(size_t tile, int what) { note(tile, what, now()); }
};

#ifdef SCAN_PHASES_NOSTAMPS
typedef wrcuda::no_hooks phases_hooks;
#else
typedef stamp_hooks phases_hooks;
#endif

/* a SUM scan of n elements of T from in to out under the policy and hooks */
template <typename T> static wr_status scan_sum(wrcuda::strand &S, const void *in, void *out, size_t n, char *err)
{
    return wrcuda::scan_launcher<P, phases_hooks>::run<WR_SUM, T>(S, in, out, n, 0, nullptr, nullptr, wrcuda::kNoDone,
                                                                  err);
}

/* SCAN_PHASES_<name> as a number, or def when unset */
static unsigned long long env_num(const char *name, unsigned long long def)
{
    char var[64];
    snprintf(var, sizeof var, "SCAN_PHASES_%s", name);
    const char *v = getenv(var);
    return v && *v ? strtoull(v, nullptr, 0) : def;
}

static void stats(const char *name, std::vector<double> v)
{
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    double s = 0;
    for (double x : v) s += x;
    const size_t m = v.size();
    printf("  %-38s mean %8.2f  p10 %8.2f  p50 %8.2f  p90 %8.2f  p99 %8.2f\n", name, s / m, v[m / 10], v[m / 2],
           v[m * 9 / 10], v[m * 99 / 100]);
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (size_t)1 << 28;
    const wr_type types[3] = { WR_FLOAT, WR_INT32, WR_DOUBLE };
    const char *names[3] = { "f32", "i32", "f64" };
    wrcuda::strand S{};
    char err[WR_ERRLEN];
    tool_strand(S);
    void *in, *out;
    /* SCAN_PHASES_GAP=BYTES: that much more between the input and the output */
    const size_t gap = env_num("GAP", 0);
    CK(cudaMalloc(&in, n * 8 + gap));
    CK(cudaMalloc(&out, n * 8));
    /* bytes of 1: every int32 is 0x01010101, so the int32 scan is checked
     * against (k + 1) * 0x01010101 mod 2^32; SCAN_PHASES_RANDOM=1: random
     * bits instead (floats then hold NaNs and infinities too; the check is
     * a host scan) */
    const bool rnd = env_num("RANDOM", 0) != 0;
    std::vector<unsigned> hin;
    if (rnd) {
        hin.resize(n * 2);
        unsigned long long x = 0x9e3779b97f4a7c15ull;
        for (size_t k = 0; k < n * 2; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            hin[k] = (unsigned)(x >> 32);
        }
        CK(cudaMemcpy(in, hin.data(), n * 8, cudaMemcpyHostToDevice));
    } else {
        CK(cudaMemset(in, 1, n * 8));
    }
    /* SCAN_PHASES_REPS: timed runs per type (default 3); the time printed is
     * the median's (first and last shown); the stamps are the last run's
     * (for floats the check's, below).  SCAN_PHASES_CALLSTYLE=1 times each
     * run as warpred-bench times a library call: events on the legacy
     * stream around the launch and a synchronisation of the scan's stream. */
    const int reps = (int)std::min(std::max(env_num("REPS", 3), 1ull), 10000ull);
    const bool callstyle = env_num("CALLSTYLE", 0) != 0;
    const bool check = env_num("CHECK", 1) != 0;
    auto tile_elems = [](size_t es) -> size_t { return P::tile_bytes / es; };
    const size_t max_tiles = (n + tile_elems(8) - 1) / tile_elems(8) + (n + tile_elems(4) - 1) / tile_elems(4);
    bool stamped = phases_hooks::enabled;        /* (not const: no unreachable code without stamps) */
    unsigned long long *stamps = nullptr;
    std::vector<unsigned long long> h;
    if (stamped) {
        CK(cudaMalloc((void **)&stamps, max_tiles * wrcuda::kStamps * sizeof *stamps));
        CK(cudaMemcpyToSymbol(g_stamps, &stamps, sizeof stamps));
        h.resize(max_tiles * wrcuda::kStamps);
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    typedef wrcuda::look_back_shape<P, int> lb_int;
    typedef wrcuda::look_back_shape<P, double> lb_float;
    printf("scan_phases: n = %zu, %d stages per block, %d block(s) per SM at least, tiles of %zu bytes, squads of %d "
           "warps, %d / %d look-back warp(s) reading %d / %d descriptors per lane after %u / %u ns (integers / "
           "floats), tickets %d ahead, %s loads, stages aligned to %u bytes, %s\n",
           n, P::stages, P::min_blocks, P::tile_bytes, P::squad, lb_int::warps, lb_float::warps, lb_int::k,
           lb_float::k, lb_int::delay, lb_float::delay, P::ahead, wrcuda::bulk_loads<P>() ? "bulk (TMA)" : "cp.async",
           P::align, stamped ? "stamps" : "no stamps");
    for (int ti = 0; ti < 3; ti++) {
        const size_t es = ti == 2 ? 8 : 4;
        const size_t tiles = (n + tile_elems(es) - 1) / tile_elems(es);
        auto scan = [&]() {
            const wr_status st = types[ti] == WR_FLOAT ? scan_sum<float>(S, in, out, n, err)
                               : types[ti] == WR_INT32 ? scan_sum<int32_t>(S, in, out, n, err)
                                                       : scan_sum<double>(S, in, out, n, err);
            if (st != WR_SUCCESS) {
                fprintf(stderr, "%s\n", err);
                exit(1);
            }
        };
        /* reps runs of f between events on stream sr, in ms, in run order */
        auto timed = [&](cudaStream_t sr, auto f) {
            std::vector<double> v;
            for (int r = 0; r < reps; r++) {
                float m1 = 0;
                CK(cudaEventRecord(e0, sr));
                f();
                CK(cudaEventRecord(e1, sr));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&m1, e0, e1));
                v.push_back(m1);
            }
            return v;
        };
        std::vector<double> runs = timed(callstyle ? 0 : S.st, [&]() {
            scan();
            if (callstyle) CK(cudaStreamSynchronize(S.st));
        });
        const double first = runs.front(), last = runs.back();
        std::sort(runs.begin(), runs.end());
        const double ms = runs[runs.size() / 2];
        if (!check) {
            /* (SCAN_PHASES_CHECK=0) */
        } else if (types[ti] == WR_INT32) {
            std::vector<unsigned> o(n);
            CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
            size_t bad = 0, at1 = 0;
            unsigned acc = 0;
            for (size_t k = 0; k < n; k++) {
                acc += rnd ? hin[k] : 0x01010101u;
                if (o[k] != acc) { if (!bad++) at1 = k; }
            }
            if (bad) printf("i32 check: %zu wrong, first at %zu\n", bad, at1);
            else printf("i32 check: all %zu outputs right\n", n);
        } else if (!rnd) {
            /* every element is the same tiny value v (bytes of 1): output k
             * is (k + 1) v within the accuracy of DESIGN.md, and a second run
             * gives the same bits (its look-backs stop elsewhere) */
            std::vector<unsigned char> o(n * es), o2(n * es);
            CK(cudaMemcpy(o.data(), out, n * es, cudaMemcpyDeviceToHost));
            scan();
            CK(cudaMemcpy(o2.data(), out, n * es, cudaMemcpyDeviceToHost));
            size_t bad = 0, at1 = 0;
            double worst = 0;
            unsigned char ones[8];
            float vf;
            double vd;
            memset(ones, 1, sizeof ones);
            memcpy(&vf, ones, sizeof vf);
            memcpy(&vd, ones, sizeof vd);
            const double v = es == 4 ? (double)vf : vd;
            for (size_t k = 0; k < n; k++) {
                const double got = es == 4 ? (double)((const float *)o.data())[k] : ((const double *)o.data())[k];
                const double rel = fabs(got - (double)(k + 1) * v) / ((double)(k + 1) * v);
                worst = std::max(worst, rel);
                if (!(rel <= (es == 4 ? 1e-5 : 1e-12))) { if (!bad++) at1 = k; }
            }
            const bool same = memcmp(o.data(), o2.data(), n * es) == 0;
            if (bad) printf("%s check: %zu wrong, first at %zu\n", names[ti], bad, at1);
            else printf("%s check: all %zu outputs within %.1e relative (worst %.1e)\n", names[ti], n,
                        es == 4 ? 1e-5 : 1e-12, worst);
            printf("%s check: a second run gives %s\n", names[ti], same ? "the same bits" : "OTHER BITS (wrong)");
        }
        /* the ceiling, after the check (which reads out): a device-to-device
         * copy of the same bytes between the same buffers */
        std::vector<double> cruns =
            timed(S.st, [&]() { CK(cudaMemcpyAsync(out, in, n * es, cudaMemcpyDeviceToDevice, S.st)); });
        std::sort(cruns.begin(), cruns.end());
        const double cms = cruns[cruns.size() / 2];
        auto print_runs = [&]() {
            printf("  %d runs: median %.1f us, first %.1f, last %.1f, min %.1f, max %.1f; copy median %.1f us\n",
                   reps, ms * 1e3, first * 1e3, last * 1e3, runs.front() * 1e3, runs.back() * 1e3, cms * 1e3);
        };
        /* -DSCAN_PHASES_NOSTAMPS (the kernel as the plugin has it) or
         * SCAN_PHASES_STATS=0: the time only */
        const bool analyse = stamped && env_num("STATS", 1) != 0;
        if (!analyse) {
            printf("%s SUM: kernel %.1f us, %.0f GB/s (read + write), %.2fx the copy; time only\n", names[ti],
                   ms * 1e3, 2.0 * n * es / (ms * 1e-3) / 1e9, cms / ms);
            print_runs();
            continue;
        }
        CK(cudaMemcpy(h.data(), stamps, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
        /* steps overlap (the look-back may answer before the tile's own
         * aggregate is out): signed differences */
        auto us = [](unsigned long long b, unsigned long long a) { return (double)(long long)(b - a) / 1e3; };
        std::vector<double> held, load, wait, fold, store, life, dist, passes;
        std::vector<double> lstart, lqueue, lchain, lvalid, lslow, lideal, sdist, shold;
        std::vector<double> ltake, lempty, lland, lred, swait;
        unsigned long long t0 = ~0ull, t1 = 0;
        double busy = 0;
        using namespace wrcuda;                   /* the stamp names, kS... */
        auto at = [&](long long tile, int k) { return h[(size_t)tile * kStamps + k]; };
        for (size_t t = 0; t < tiles; t++) {
            const unsigned long long *s = &h[t * kStamps];
            t0 = std::min(t0, s[kSStaged]);
            t1 = std::max(t1, s[kSStored]);
            busy += (double)(s[kSStored] - s[kSStaged]);
            held.push_back(us(s[kSStaged], s[kSDrawn]));
            load.push_back(us(s[kSAggregate], s[kSStaged]));
            store.push_back(us(s[kSStored], s[kSPrefixOut]));
            life.push_back(us(s[kSStored], s[kSStaged]));
            /* the load warp: waiting for the ticket's value, then for a
             * free stage; the copy's latency; the reduce squad's work; the
             * scan squad's wait for the prefix after its own scan */
            ltake.push_back(us(s[kSTicket], s[kSLoadIter]));
            lempty.push_back(us(s[kSStaged], s[kSTicket]));
            lland.push_back(us(s[kSLanded], s[kSStaged]));
            lred.push_back(us(s[kSAggregate], s[kSLanded]));
            swait.push_back(us(std::max(s[kSPrefixOut], s[kSScanWait]), s[kSScanWait]));
            if (t == 0) continue;
            wait.push_back(us(s[kSAnswered], s[kSAggregate]));
            fold.push_back(us(s[kSPrefixOut], s[kSAnswered]));
            dist.push_back((double)s[kSDistance] + 1);
            passes.push_back((double)s[kSPasses]);
            /* the look-back of tile t: when it started, how long its reads
             * took to be valid (it answers as soon as they are), and what
             * they waited for: the slowest aggregate between the block's
             * previous tile and t, and the earliest time a look-back knowing
             * every stamp could have answered (a prefix out, every aggregate
             * after it out) */
            const long long prev = (long long)s[kSPrev];
            lstart.push_back(us(s[kSLbStart], s[kSAggregate]));
            if (prev >= 0) lqueue.push_back(us(s[kSLbStart], at(prev, kSPrefixOut)));
            lchain.push_back(us(s[kSPrevPrefix], s[kSLbStart]));
            lvalid.push_back(us(s[kSAnswered], s[kSLbStart]));
            unsigned long long mx = 0, ideal = ~0ull;
            long long arg = -1;
            for (long long j = (long long)t - 1; j >= std::max(prev, 0ll); j--) {
                ideal = std::min(ideal, std::max(at(j, kSPrefixOut), mx));
                if (j > prev && at(j, kSAggregate) > mx) {
                    mx = at(j, kSAggregate);
                    arg = j;
                }
            }
            lslow.push_back(us(std::max(mx, s[kSLbStart]), s[kSLbStart]));
            lideal.push_back(us(std::max(ideal, s[kSLbStart]), s[kSLbStart]));
            if (arg >= 0) {
                sdist.push_back((double)((long long)t - arg));
                shold.push_back(us(at(arg, kSStaged), at(arg, kSDrawn)));
            }
        }
        printf("%s SUM: kernel %.1f us, %.0f GB/s (read + write), %.2fx the copy; stamps span %.1f us; tiles in flight %.1f\n",
               names[ti], ms * 1e3, 2.0 * n * es / (ms * 1e-3) / 1e9, cms / ms, (t1 - t0) / 1e3,
               busy / (double)(t1 - t0));
        print_runs();
        stats("ticket drawn -> staged [us]", held);
        stats("staged -> aggregate out [us]", load);
        stats("aggregate -> look-back answered [us]", wait);
        stats("fold, prefix out [us]", fold);
        stats("scan and store [us]", store);
        stats("block lifetime [us]", life);
        stats("distance to nearest prefix", dist);
        stats("extra look-back passes", passes);
        stats("load: wait for the ticket's value [us]", ltake);
        stats("load: wait for a free stage [us]", lempty);
        stats("staged -> landed [us]", lland);
        stats("landed -> aggregate out [us]", lred);
        stats("scan squad: wait for the prefix [us]", swait);
        stats("look-back start - aggregate [us]", lstart);
        stats("look-back start - its previous answer [us]", lqueue);
        stats("look-back start -> previous tile's prefix", lchain);
        stats("look-back start -> reads valid [us]", lvalid);
        stats("  slowest aggregate then [us]", lslow);
        stats("  answer knowing every stamp [us]", lideal);
        stats("  slowest: distance", sdist);
        stats("  slowest: ticket drawn -> staged", shold);
        if (const char *dump = getenv("SCAN_PHASES_DUMP")) {
            /* raw stamps, kStamps 64-bit words per tile (named kS... in
             * cuda/scan_policy.cuh), for offline study */
            char path[4096];
            snprintf(path, sizeof path, "%s-%s.bin", dump, names[ti]);
            if (FILE *f = fopen(path, "wb")) {
                fwrite(h.data(), sizeof h[0], tiles * kStamps, f);
                fclose(f);
            }
        }
    }
    return 0;
}

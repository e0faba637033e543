/*
 * scan.cu -- device-wide inclusive/exclusive scan in a single pass with
 * decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 * with Decoupled Look-back", NVIDIA NVR-2016-002).
 *
 * Tiles are 32 KB (kScanTileBytes: 8192 4-byte or 4096 8-byte elements).
 * One block per multiprocessor stays resident and draws tile numbers from
 * an atomic counter, so every smaller tile is held by a running block (no
 * deadlock whatever the scheduling).  Its warps are specialised
 * (k_scan_ws below): a load warp copies tiles into a ring of shared-memory
 * stages, a reduce squad publishes each tile's aggregate as soon as it has
 * landed, a look-back warp finds each tile's prefix from its predecessors'
 * descriptors and publishes it, and a scan squad writes the outputs, all on
 * different tiles at once.
 *
 * Determinism.  A plain look-back combines the aggregates it meets back to
 * the nearest tile that has published its inclusive prefix, and which tile
 * that is depends on timing: float results would change from run to run.
 * Here the inclusive prefix of tile t is *defined* as the left fold
 *     P_t = (...((A_0 op A_1) op A_2) ... ) op A_t      (after the carry, if any)
 * and the look-back computes it as P_j op A_{j+1} op ... op A_t, one term
 * at a time from the nearest published P_j.  Since P_j itself came from
 * exactly the operations that precede it in that fold, every j gives the
 * same bits: the result does not depend on where the look-back stops, on
 * the grid, or on the scheduling (tests/cuda/test_cuda_determinism).
 * The same holds inside a tile: each thread's fold, the scan of the folds
 * and the tile's aggregate are computed in one fixed order.  Integer scans
 * are exact in any order, so there the look-back's terms are combined by a
 * warp reduction instead of one by one (float MIN/MAX fold too: with
 * several NaNs the order decides which NaN's bits come out).  The look-back
 * has no chain of its own beyond that of CUB's: a tile needs only the
 * nearest prefix and the aggregates after it.
 *
 * Descriptors.  A tile's descriptor is 16 bytes, {value, epoch << 2 | flag},
 * written and read as one 128-bit access (PTX .b128, sm_70+), so a reader
 * never sees a flag without its value.  They are reused call after call
 * without clearing: each launch has a new epoch and statuses of another
 * epoch read as "not yet".
 *
 * Accuracy.  Float sums carry the prefixes in double: the per-thread bases
 * inside a tile and the tile prefixes are doubles, and only each thread's
 * own run of 64 elements is scanned in float, so a 2^26-element float scan
 * stays well within 1e-4 relative of the exact prefix.
 */
#include <atomic>
#include "backend.cuh"

namespace wrcuda {

namespace {

constexpr unsigned kAggregate = 1, kPrefix = 2;

/* Per-phase timestamps of every tile, for tools/scan_phases.cu only (which
 * also varies the build-time knobs WRC_WS_STAGES and WRC_WS_MINB below): the
 * plugin is built without them. */
#ifdef WRC_SCAN_PROFILE
__device__ unsigned long long *wrc_scan_stamps;
/* the stamps of a tile, read by tools/scan_phases.cu: when it was staged,
 * its aggregate out, its prefix out, its outputs stored; the distance to the
 * nearest prefix and the extra passes of its look-back; when the look-back
 * answered; when its ticket was drawn; when its look-back started, in which
 * block, after which tile of the block (kSPrev) and when that tile's prefix
 * came (kSPrevPrefix); when the load warp began the iteration and had the
 * ticket in hand; when the scan squad began to wait for the prefix; when the
 * tile had landed */
enum : int {
    kSStaged, kSAggregate, kSPrefixOut, kSStored, kSDistance, kSPasses, kSAnswered, kSDrawn, kSLbStart, kSBlock,
    kSPrev, kSPrevPrefix, kSLoadIter, kSTicket, kSScanWait, kSLanded, kStamps
};
#define WRC_STAMP(t, k, v) (wrc_scan_stamps[(size_t)(t) * kStamps + (k)] = (unsigned long long)(v))
#endif
__device__ __forceinline__ unsigned long long wrc_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <wr_op O, typename T> struct carry_of { typedef T type; };
template <> struct carry_of<WR_SUM, float> { typedef double type; };

struct alignas(16) tdesc {
    unsigned long long bits;             /* the value, in the low bytes */
    unsigned long long status;           /* epoch << 2 | flag */
};

size_t scan_bytes(size_t tiles) { return tiles * sizeof(tdesc); }

template <typename C> __device__ __forceinline__ unsigned long long to_bits(C v)
{
    unsigned long long b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <typename C> __device__ __forceinline__ C from_bits(unsigned long long b)
{
    C v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* One 128-bit store / load of a descriptor (relaxed, gpu scope: the value
 * travels in the same access as its flag, so no other ordering is needed). */
__device__ __forceinline__ void st_desc(tdesc *p, unsigned long long bits, unsigned long long status)
{
    asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}"
                 :: "l"(p), "l"(bits), "l"(status) : "memory");
}

__device__ __forceinline__ void ld_desc(const tdesc *p, unsigned long long &bits, unsigned long long &status)
{
    asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
                 : "=l"(bits), "=l"(status) : "l"(p) : "memory");
}

/* ---- the warp-specialised kernel -----------------------------------------
 * One resident block per multiprocessor (or a few: WRC_WS_MINB), split into
 * squads that each do one step for every tile the block owns, so that no
 * step waits for another's latency (the idea of CCCL's "warpspeed" scan for
 * sm_100, cub/device/dispatch/kernels/scan_warpspeed.cuh, here on sm_90
 * with bulk copies and mbarriers but without cluster launch control):
 *   load     (1 warp):  waits for a free stage, takes the ticket it drew a
 *                       tile earlier, copies the tile in (bulk copies on
 *                       sm_90, cp.async below);
 *   reduce   (kSquad warps): the tile's per-thread folds, their exclusive
 *                       scan (the bases the scan squad starts from) and the
 *                       tile's aggregate, published at once;
 *   look-back (lb_warps: 1 for integers, 2 for floats, taking the tiles in
 *                       turn): the exclusive prefix of the tile from the
 *                       predecessors' descriptors, back to the block's own
 *                       previous tile, whose prefix the block knows; then
 *                       the tile's inclusive prefix, published;
 *   scan     (kSquad warps): each thread's elements scanned from its base,
 *                       written back into the stage, then copied out with
 *                       coalesced 16-byte stores; the stage is free again.
 * The stages form a ring of kStagesWs tiles; each has five mbarriers: tkb
 * (its tile number is in tk), full (the tile has landed), red (bases and
 * aggregate are in shared memory), pre (its prefix is), empty (its outputs
 * are out).  The tile number has a barrier of its own, arrived on by the
 * thread that wrote it: full completes with the copies' asynchronous
 * arrivals, and compute-sanitizer's racecheck did not take those as
 * ordering the write of tk before its reads.  With two look-back warps, a
 * chain of two more barriers per iteration (lbs, lpre) hands the block's
 * previous tile and its prefix from one to the other.  The previous kernel
 * (one squad doing every step of two tiles in turn) reached 0.56x of a copy
 * on an H200, this one with cp.async loads and one look-back warp
 * 0.76-0.81x, with bulk loads and the look-back above 0.84-0.90x
 * (doc/PERFORMANCE.md).
 *
 * Deadlock: a block holds at most kAhead tickets it has not staged, and they
 * wait only for its stages, which hold earlier tiles; every staged tile is
 * loaded and reduced without waiting for any other tile, and its aggregate
 * is published.  The smallest tile m without a published prefix belongs to a
 * running block whose earlier tiles all have theirs; their outputs go out,
 * so m is staged (if it was not yet); the look-back warp of m's iteration
 * is done with its earlier ones (they hold earlier tiles), the block's
 * previous tile has its prefix, and every descriptor between them is out:
 * m's prefix is published, and every tile finishes.
 */
#ifndef WRC_WS_STAGES
#define WRC_WS_STAGES 6
#endif
#ifndef WRC_WS_MINB
#define WRC_WS_MINB 1
#endif
#ifndef WRC_WS_SQUAD
#define WRC_WS_SQUAD 4
#endif
#ifndef WRC_WS_AHEAD
#define WRC_WS_AHEAD 1
#endif
#ifndef WRC_WS_TILE_BYTES
#define WRC_WS_TILE_BYTES 32768
#endif
/* experiments only (tools/scan_phases.cu), wrong results: each tile's
 * prefix taken as none, without a look-back; no outputs written */
#ifndef WRC_WS_NOLB
#define WRC_WS_NOLB 0
#endif
#ifndef WRC_WS_NOSTORE
#define WRC_WS_NOSTORE 0
#endif
constexpr int kStagesWs = WRC_WS_STAGES;      /* tiles in a block's ring */
constexpr int kSquad = WRC_WS_SQUAD;          /* warps of the reduce and of the scan squad */
constexpr int kAhead = WRC_WS_AHEAD;          /* tickets drawn ahead of the stage they go to */
constexpr size_t kWsTileBytes = WRC_WS_TILE_BYTES;
#ifndef WRC_SCAN_PROFILE
/* staging chunks (plugin.cu) start on tile boundaries */
static_assert(kScanTileBytes % kWsTileBytes == 0, "kScanTileBytes is whole tiles");
#endif
constexpr int kSquadThreads = kSquad * 32;
/* Whole tiles come in by bulk copies (sm_90's TMA: four per tile, one
 * instruction each, issued by one lane) into a stage in natural order; below
 * sm_90, and with -DWRC_WS_TMA=0, by 16-byte cp.async, 64 per lane and tile,
 * into a swizzled stage.  The cp.async copies are what held the load warp
 * back: their issue stalled it for about 1.6 us per tile under a full memory
 * load (doc/PERFORMANCE.md). */
#ifndef WRC_WS_TMA
#define WRC_WS_TMA 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr bool kTma = false;
#else
constexpr bool kTma = WRC_WS_TMA != 0;
#endif
/* Look-back warps, taking the tiles in turn: one for integers, whose fold
 * is a warp reduction; two for floats, whose fold of up to 32*lb_k values is
 * serial (for the bits) and, with the reads, takes longer than a tile's
 * turn on the multiprocessor (doc/PERFORMANCE.md, 2026-11-30 evening).
 * -DWRC_WS_LB= sets the number for every type (tools/scan_phases.cu). */
template <typename C> __host__ __device__ constexpr int lb_warps()
{
#ifdef WRC_WS_LB
    return WRC_WS_LB;
#else
    return std::is_integral<C>::value ? 1 : 2;
#endif
}
/* Descriptors a look-back lane reads per pass: 4 for integers; 6 for
 * floats, whose two warps alternate, so that the block's previous tile is
 * within the 192 read in all but 2 % of the tiles (with 128, 0.55 extra
 * passes per tile, 1.5-2 us each).  -DWRC_WS_LBK= sets it for every type. */
template <typename C> __host__ __device__ constexpr int lb_k()
{
#ifdef WRC_WS_LBK
    return WRC_WS_LBK;
#else
    return lb_warps<C>() > 1 ? 6 : 4;
#endif
}
/* A pause, in ns, between a look-back warp taking its tile and its first
 * read of the descriptors: 300 with one look-back warp (integers), 1200 with
 * two (floats).  Found through the profile build, which ran 1-4 % faster
 * than this kernel without its stamps: the machine code of the two differs
 * only by the stamp stores, which hold back the start of each look-back.
 * With the pause, 2^28 scans on an H200 take 2-3 % less time (0.88 -> 0.90
 * of a copy; 0 - 2000 ns measured, longer pauses slow the integers' single
 * warp down: doc/PERFORMANCE.md, 2026-12-01).  -DWRC_WS_LBDELAY1= and
 * -DWRC_WS_LBDELAY2= set them (tools/scan_phases.cu). */
#ifndef WRC_WS_LBDELAY1
#define WRC_WS_LBDELAY1 300
#endif
#ifndef WRC_WS_LBDELAY2
#define WRC_WS_LBDELAY2 1200
#endif
template <typename C> __host__ __device__ constexpr unsigned lb_delay()
{
    return lb_warps<C>() == 1 ? WRC_WS_LBDELAY1 : WRC_WS_LBDELAY2;
}
/* reduce and scan squads, look-back warps, the load warp */
template <typename C> __host__ __device__ constexpr int ws_threads() { return (2 * kSquad + lb_warps<C>() + 1) * 32; }
constexpr unsigned kEnd = 0xffffffffu;        /* ticket past the last tile */
/* The stages start on a 1024-byte boundary.  Dynamic shared memory follows
 * the static (ws_smem here), so without this its offset moves with that
 * struct's size: 10176 bytes for float sums (64 mod 128), 4352 for int32
 * (0 mod 128).  Aligned, the float scans ran 0.91-0.92x a copy instead of
 * 0.88-0.89x; with a 4016-byte struct (48 mod 128) the int32 scan ran 0.79x
 * instead of 0.90x, the same code otherwise (tools/scan_phases,
 * doc/PERFORMANCE.md, 2026-11-30 23:11 UTC).  The bulk copies into a stage
 * and its reads are 16-byte aligned either way; what the offset costs is
 * measured, not explained. */
#ifndef WRC_WS_ALIGN
#define WRC_WS_ALIGN 1024
#endif
constexpr unsigned kStageAlign = WRC_WS_ALIGN;
/* Entries of the look-back chain.  Iteration it + kChain cannot start before
 * iteration it + 1 has its prefix (its tile needs a stage freed by the scan
 * squad, which takes the iterations in order), so a warp waiting for entry
 * it's phase never sees the entry's next phase instead. */
constexpr int kChain = 2 * kStagesWs;

/* A tile is kScanTileBytes: 8192 4-byte or 4096 8-byte elements, 64 or 32
 * per squad thread, 16 chunks of 16 bytes each. */
template <typename T> struct wtile {
    static constexpr size_t elems = kWsTileBytes / sizeof(T);
    static constexpr int items = (int)(elems / kSquadThreads);
    static constexpr int V = 16 / sizeof(T);
    static constexpr int chunks = items / V;  /* per squad thread */
    static constexpr int shift = chunks == 8 ? 3 : chunks == 16 ? 4 : 5;
    static_assert(chunks == 8 || chunks == 16 || chunks == 32, "8, 16 or 32 chunks per thread");
};

/* Shared layout of a stage: 16-byte chunk c of the tile lives at chunk
 * swz(c).  A squad thread reads its `chunks` consecutive chunks one at a
 * time, so the 8 threads of one 16-byte access phase read chunks `chunks`
 * apart; the XOR with (c / chunks) % 8 spreads them over all 32 banks.
 * Consecutive chunks (the copies in and out) stay 8 to a bank-free group. */
template <typename T> __device__ __forceinline__ unsigned swz(unsigned c)
{
    return c ^ ((c >> wtile<T>::shift) & 7u);
}

/* where chunk c of the tile lives in the stage: swizzled, or in place when
 * bulk copies fill it (the squads then read the same conflict-free
 * addresses and put the chunks back in order in registers: xor_perm) */
template <typename T> __device__ __forceinline__ unsigned phys(unsigned c)
{
    return kTma ? c : swz<T>(c);
}

/* y[i] <- y[i ^ m] for m < 8, by three stages of selects (m differs from
 * lane to lane, so no branches) */
template <typename T> __device__ __forceinline__ void xor_perm(vec<T> (&y)[wtile<T>::chunks], unsigned m)
{
#pragma unroll
    for (int b = 0; b < 3; b++) {
        const bool f = (m >> b) & 1u;
#pragma unroll
        for (int i = 0; i < wtile<T>::chunks; i++) {
            if (i & (1 << b)) continue;
            const vec<T> u = y[i], w = y[i | (1 << b)];
#pragma unroll
            for (int j = 0; j < wtile<T>::V; j++) {
                y[i].v[j] = f ? w.v[j] : u.v[j];
                y[i | (1 << b)].v[j] = f ? u.v[j] : w.v[j];
            }
        }
    }
}

/* ---- mbarriers (sm_80+; try_wait on sm_90) ---- */
__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

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

/* sm_90: arrive and expect `bytes` of bulk copies; one bulk copy of `bytes`
 * (a multiple of 16, both addresses 16-byte aligned) completing on b */
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long *b, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared.b64 st, [%0], %1;\n\t}"
                 :: "r"(smem_addr(b)), "r"(bytes) : "memory");
#endif
}

__device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes, unsigned long long *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(b)) : "memory");
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

/* a barrier among the n threads of one squad (ids 1 and 2; 0 is __syncthreads) */
__device__ __forceinline__ void squad_sync(int id)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "n"(kSquadThreads) : "memory");
}

/* the shared memory of a block besides its stages */
template <typename C> struct ws_smem {
    unsigned long long tkb[kStagesWs], full[kStagesWs], red[kStagesWs], pre[kStagesWs], empty[kStagesWs];
    unsigned tk[kStagesWs];                   /* the stage's tile, or kEnd */
    C tex[kStagesWs][kSquadThreads];          /* each scan thread's base inside the tile */
    C wsum[kStagesWs][kSquad];                /* the reduce warps' totals */
    C agg[kStagesWs];                         /* the tile's aggregate */
    C pre_v[kStagesWs];                       /* the tile's exclusive prefix */
    int pre_have[kStagesWs];                  /* ... if there is one (not tile 0 without carry) */
    /* the chain between look-back warps (kLb > 1), by iteration % kChain:
     * the tile (ltk, once lbs completes) and its inclusive prefix (lincl,
     * once lpre completes) */
    unsigned long long lbs[kChain], lpre[kChain];
    long long ltk[kChain];
    C lincl[kChain];
    C lbv[lb_warps<C>()][32 * lb_k<C>()];     /* look-back: the values read, nearest first */
};

/* the kernel's arguments */
template <wr_op O, typename T> struct ws_args {
    typedef typename carry_of<O, T>::type C;
    const T *in;
    T *out;
    size_t n, tiles;
    int exclusive, vec_ok;
    unsigned long long ep;
    tdesc *d;
    const C *carry_in;
    C *carry_out;
    done_sig ds;                             /* the call's end, if this launch is its last */
    unsigned *dcount;                        /* blocks finished, for grid_done */
};

/* The tile of iteration it's stage, once the load warp has written it
 * (kEnd: no more), and once the tile has landed. */
template <typename C> __device__ __forceinline__ unsigned ws_tile(ws_smem<C> &sm, unsigned it)
{
    const int s = (int)(it % kStagesWs);
    const unsigned ph = (it / kStagesWs) & 1u;
    mbar_wait(&sm.tkb[s], ph);
    const unsigned t = sm.tk[s];
    if (t != kEnd) mbar_wait(&sm.full[s], ph);
    return t;
}

/* 16-byte chunk i of this squad thread's part of the stage (r: its rank) */
template <typename T> __device__ __forceinline__ vec<T> &chunk(T *stage, int r, int i)
{
    return reinterpret_cast<vec<T> *>(stage)[swz<T>((unsigned)(r * wtile<T>::chunks + i))];
}

template <typename T> __device__ __forceinline__ void read_items(T (&x)[wtile<T>::items], T *stage, int r)
{
    constexpr int V = wtile<T>::V;
    vec<T> y[wtile<T>::chunks];
#pragma unroll
    for (int i = 0; i < wtile<T>::chunks; i++) y[i] = chunk(stage, r, i);
    if (kTma) xor_perm(y, (unsigned)r & 7u);
#pragma unroll
    for (int i = 0; i < wtile<T>::chunks; i++)
#pragma unroll
        for (int j = 0; j < V; j++) x[i * V + j] = y[i].v[j];
}

/* Load warp: copy tile t into the stage, 16-byte cp.async when the tile is
 * whole and aligned (`whole`), else element by element up to n.  Past n a
 * partial tile's stage holds whatever it held: the reduce squad takes the
 * neutral element there (past_n), the scan squad stores nothing from there.
 * (Filling the rest of the stage with the neutral element, one element per
 * lane at a time, took the load warp 3-4 us for the last tile of a scan:
 * of a 1024-element scan's 14.7 us, tools/scan_phases, 2026-12-01.) */
template <typename T>
__device__ __forceinline__ void ws_stage(T *stage, const T *in, size_t n, size_t t, bool whole, int lane)
{
    typedef wtile<T> W;
    const size_t base = t * W::elems;
    if (whole) {
        const vec<T> *src = reinterpret_cast<const vec<T> *>(in + base);
        vec<T> *vs = reinterpret_cast<vec<T> *>(stage);
#pragma unroll 8
        for (unsigned c = lane; c < W::elems / W::V; c += 32)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_addr(vs + swz<T>(c))), "l"(src + c) : "memory");
    } else {
        const unsigned lim = (unsigned)(n - base < W::elems ? n - base : W::elems);
        for (unsigned e = lane; e < lim; e += 32) {
            T *dst = stage + phys<T>(e / W::V) * W::V + e % W::V;
            asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"(smem_addr(dst)), "l"(in + base + e), "n"(sizeof(T)) : "memory");
        }
    }
}

/* The elements of a partial tile past n, in a squad thread's items (x[k] is
 * element r * items + k of the tile, in either layout of the stage: see
 * read_items), replaced by the neutral element. */
template <typename F, typename T>
__device__ __forceinline__ void past_n(T (&x)[wtile<T>::items], size_t n, size_t t, int r)
{
    constexpr int I = wtile<T>::items;
    const size_t base = t * wtile<T>::elems;
    if (base + wtile<T>::elems <= n) return;
    const size_t lim = n - base;
#pragma unroll
    for (int k = 0; k < I; k++)
        if ((size_t)r * I + k >= lim) x[k] = F::neutral();
}

template <wr_op O, typename T>
__device__ __forceinline__ void ws_load(const ws_args<O, T> &a, T *stages, ws_smem<typename carry_of<O, T>::type> &sm,
                                        unsigned *tctr, int lane)
{
    constexpr int kLb = lb_warps<typename carry_of<O, T>::type>();
    /* Tickets are drawn kAhead tiles ahead, so that their round trips
     * overlap the wait for a free stage and the copies of the tiles before (a
     * block then holds up to kAhead tiles it has not staged yet: its stages
     * hold earlier tiles, which finish without them, so the deadlock argument
     * above holds).  A block draws until it gets a ticket past the end (it
     * may hold kAhead of those); the last block to stop drawing puts both
     * counters back for the next launch.  The first ticket past the end is
     * followed by kLb - 1 end marks, so that every look-back warp meets one. */
    unsigned q[kAhead];                           /* lane 0's: the tickets drawn, by iteration % kAhead */
#ifdef WRC_SCAN_PROFILE
    unsigned long long qt[kAhead];                /* when they were drawn */
#endif
    bool drawing = true;
    /* Draw ticket k.  The atomic's value is looked at only when it is
     * taken, kAhead iterations later, and each of q[] is a register of its
     * own (the loop below is unrolled by kAhead), so that the warp does
     * not wait for the round trip (about 2 us under a full memory load) in
     * between: shifting the tickets along an array, or checking the value
     * as soon as drawn, would. */
    auto draw = [&](int k) {
#ifdef WRC_SCAN_PROFILE
        qt[k] = wrc_now();
#endif
        q[k] = lane == 0 && drawing ? atomicAdd(tctr, 1u) : kEnd;
    };
    /* ticket k; the first one past the end stops the drawing */
    auto take = [&](int k) -> unsigned {
        const unsigned t = q[k];
#ifdef WRC_SCAN_PROFILE
        if (lane == 0 && t < a.tiles) WRC_STAMP(t, kSDrawn, qt[k]);
#endif
        if (lane == 0 && drawing && t >= a.tiles) {
            drawing = false;
            if (last_arrival(tctr + 1, gridDim.x)) {  /* this block's draws come before its count */
                atomicExch(tctr, 0u);
                atomicExch(tctr + 1, 0u);
            }
        }
        return __shfl_sync(warpred::full_mask, t, 0);
    };
#pragma unroll
    for (int k = 0; k < kAhead; k++) draw(k);
    int ends = 0;
    for (unsigned it0 = 0;; it0 += kAhead) {
#pragma unroll
        for (int k = 0; k < kAhead; k++) {
            const unsigned it = it0 + (unsigned)k;
            const int s = (int)(it % kStagesWs);
            unsigned t = kEnd;
#ifdef WRC_SCAN_PROFILE
            const unsigned long long t_it = wrc_now();
#endif
            if (ends == 0) {
                t = take(k);
                draw(k);                          /* the ticket of iteration it + kAhead */
            }
#ifdef WRC_SCAN_PROFILE
            if (lane == 0 && t < a.tiles) {
                WRC_STAMP(t, kSLoadIter, t_it);
                WRC_STAMP(t, kSTicket, wrc_now());
            }
#endif
            const bool end = t >= a.tiles;
            ends += end;
            mbar_wait(&sm.empty[s], ((it / kStagesWs) & 1u) ^ 1u);
            if (lane == 0) {
                sm.tk[s] = end ? kEnd : t;
                mbar_arrive(&sm.tkb[s]);
            }
#ifdef WRC_SCAN_PROFILE
            if (lane == 0 && !end) WRC_STAMP(t, kSStaged, wrc_now());
#endif
            const bool whole = !end && a.vec_ok && ((size_t)t + 1) * wtile<T>::elems <= a.n;
            T *stage = stages + (size_t)s * wtile<T>::elems;
            if (kTma && whole) {
                /* lane 0 expects the tile's bytes, then copies it in four
                 * bulk copies; the other lanes just arrive */
                if (lane == 0) {
                    constexpr unsigned part = (unsigned)(kWsTileBytes / 4);
                    mbar_arrive_expect_tx(&sm.full[s], (unsigned)kWsTileBytes);
                    const char *src = reinterpret_cast<const char *>(a.in + (size_t)t * wtile<T>::elems);
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        bulk_copy(reinterpret_cast<char *>(stage) + k * part, src + k * part, part, &sm.full[s]);
                } else {
                    mbar_arrive(&sm.full[s]);
                }
            } else {
                if (!end) ws_stage(stage, a.in, a.n, t, whole, lane);
            }
            if (kTma) {
                if (!whole) {
                    asm volatile("cp.async.wait_all;" ::: "memory");
                    mbar_arrive(&sm.full[s]);
                }
            } else if (whole) {
                mbar_arrive_cp_async(&sm.full[s]);   /* when this lane's copies have landed */
                mbar_arrive(&sm.full[s]);
            } else {
                /* A partial or unaligned tile (rare) waits for its copies here,
                 * so that full completes by ordinary arrivals, which order the
                 * neutral fill's stores before the reads (compute-sanitizer's
                 * racecheck does not take the copies' asynchronous arrivals as
                 * doing so). */
                asm volatile("cp.async.wait_all;" ::: "memory");
                mbar_arrive(&sm.full[s]);
                mbar_arrive(&sm.full[s]);
            }
            if (ends == kLb) return;
        }
    }
}

/* Reduce squad (r = 0..kSquadThreads-1): per-thread folds, their exclusive
 * scan in the carry type, the aggregate. */
template <wr_op O, typename T>
__device__ __forceinline__ void ws_reduce(const ws_args<O, T> &a, T *stages, ws_smem<typename carry_of<O, T>::type> &sm,
                                          int r)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    constexpr int I = wtile<T>::items;
    const int w = r / 32, lane = r & 31;
    for (unsigned it = 0;; it++) {
        const int s = (int)(it % kStagesWs);
        const unsigned t = ws_tile(sm, it);
        if (t == kEnd) return;
#ifdef WRC_SCAN_PROFILE
        if (r == 0) WRC_STAMP(t, kSLanded, wrc_now());
#endif
        T x[I];
        read_items(x, stages + (size_t)s * wtile<T>::elems, r);
        past_n<F>(x, a.n, t, r);
        T f = x[0];
#pragma unroll
        for (int k = 1; k < I; k++) f = F::combine(f, x[k]);
        C wt;
        const C wex = warpred::warp_exclusive_scan<O>((C)f, wt);
        if (lane == 0) sm.wsum[s][w] = wt;
        squad_sync(1);
        /* base of this thread: the earlier warps' totals, in order, then the
         * earlier lanes' (warp 0 lane 0 has none: the scan squad knows) */
        C b = sm.wsum[s][0];
#pragma unroll
        for (int v = 1; v < kSquad; v++)
            if (v < w) b = FC::combine(b, sm.wsum[s][v]);
        sm.tex[s][r] = w == 0 ? wex : (lane == 0 ? b : FC::combine(b, wex));
        if (r == 0) {
            C agg = sm.wsum[s][0];
#pragma unroll
            for (int v = 1; v < kSquad; v++) agg = FC::combine(agg, sm.wsum[s][v]);
            sm.agg[s] = agg;
            if (t == 0) {
                const C incl = a.carry_in ? FC::combine(*a.carry_in, agg) : agg;
                st_desc(a.d, to_bits(incl), a.ep | kPrefix);
            } else {
                st_desc(a.d + t, to_bits(agg), a.ep | kAggregate);
            }
#ifdef WRC_SCAN_PROFILE
            WRC_STAMP(t, kSAggregate, wrc_now());
#endif
        }
        mbar_arrive(&sm.red[s]);
    }
}

/*
 * Look-back: the inclusive prefix P_{t-1} of the tiles before tile t (t > 0)
 * by the left fold described at the top.  `prev` is the block's previous
 * tile (or -1), whose prefix the block computes itself: `pprev()` returns
 * it, waiting for it if need be.  Lane l reads the descriptors of tiles
 * t-1-l-32i (i < kLbK = lb_k) above prev and, nearest 32 first, waits for each to
 * carry this launch's epoch (ep = epoch << 2) and looks for a prefix among
 * them, prev counting as one; the farther ones are waited for only when the
 * nearer hold none, and prev's prefix only when no nearer one is out.  The
 * nearest prefix starts the fold and lane 0 folds the aggregates after it
 * on, in order (integers: a warp reduction).  Without a prefix among them
 * (only when prev is further back than 32*kLbK) the warp waits a little and
 * reads again: prefixes appear meanwhile.
 */
template <wr_op O, typename C, typename Pre>
__device__ __forceinline__ C ws_look_back(long long t, long long prev, Pre pprev, unsigned long long ep,
                                          const tdesc *d, C *lbv, int lane)
{
    constexpr int kLbK = lb_k<C>();
    typedef warpred::op<O, C> FC;
    /* integer ops give the same bits in any order; float MIN/MAX with
     * several NaNs do not (wr_ops.h returns the first): they fold */
    constexpr bool exact = std::is_integral<C>::value;
#ifdef WRC_SCAN_PROFILE
    const long long tile = t;
    int passes = 0;
#endif
    unsigned long long bits[kLbK], st[kLbK];
    auto issue = [&]() {
#pragma unroll
        for (int i = 0; i < kLbK; i++) {
            const long long j = t - 1 - lane - 32 * i;
            bits[i] = 0;
            st[i] = 0;
            if (j > prev) ld_desc(d + j, bits[i], st[i]);
        }
    };
    issue();
    for (;;) {
        int p = -1;                              /* tile t-1-p: the nearest prefix */
#pragma unroll
        for (int i = 0; i < kLbK; i++) {
            const long long j = t - 1 - lane - 32 * i;
            while (j > prev && (st[i] & ~3ull) != ep) {
                __nanosleep(20);
                ld_desc(d + j, bits[i], st[i]);
            }
            const unsigned m = __ballot_sync(warpred::full_mask,
                                             (j > prev && (st[i] & 3u) == kPrefix) || (j == prev && j >= 0));
            if (m) {
                p = 32 * i + __ffs(m) - 1;
                break;
            }
        }
        if (p >= 0) {
            if (t - 1 - p == prev) {
                /* the block's own previous tile is the nearest prefix */
                const C v = pprev();
#ifdef WRC_SCAN_PROFILE
                if (lane == 0) WRC_STAMP(tile, kSPrevPrefix, wrc_now());
#endif
#pragma unroll
                for (int i = 0; i < kLbK; i++)
                    if (lane + 32 * i == p) bits[i] = to_bits(v);
            }
#ifdef WRC_SCAN_PROFILE
            if (lane == 0) {
                WRC_STAMP(tile, kSDistance, p);
                WRC_STAMP(tile, kSPasses, passes);
                WRC_STAMP(tile, kSAnswered, wrc_now());
            }
#endif
            if constexpr (exact) {
                C e = FC::neutral();
#pragma unroll
                for (int i = 0; i < kLbK; i++)
                    if (lane + 32 * i <= p) e = FC::combine(e, from_bits<C>(bits[i]));
                return warpred::warp_reduce<O>(e);
            } else {
#pragma unroll
                for (int i = 0; i < kLbK; i++)
                    if (lane + 32 * i <= p) lbv[lane + 32 * i] = from_bits<C>(bits[i]);
                __syncwarp();
                C e = C();
                if (lane == 0) {
                    /* loads 8 at a time ahead of the dependent combines */
                    e = lbv[p];
                    int q = p - 1;
                    for (; q >= 7; q -= 8) {
                        C v[8];
#pragma unroll
                        for (int u = 0; u < 8; u++) v[u] = lbv[q - u];
#pragma unroll
                        for (int u = 0; u < 8; u++) e = FC::combine(e, v[u]);
                    }
                    for (; q >= 0; q--) e = FC::combine(e, lbv[q]);
                }
                e = __shfl_sync(warpred::full_mask, e, 0);
                __syncwarp();                    /* lbv is written again by the next tile */
                return e;
            }
        }
        __nanosleep(256);
        issue();
#ifdef WRC_SCAN_PROFILE
        passes++;
#endif
    }
}

/* Look-back warp k of kLb: the tiles of the iterations k, k + kLb, ...  The
 * block's previous tile and its prefix come from the warp itself (kLb = 1)
 * or from the warp that had the previous iteration, through shared memory:
 * its tile number as soon as it starts (ltk, ordered by `lbs`), its prefix
 * when it has it (lincl, ordered by `pre`), so that a warp's global reads
 * for its tile overlap the other warps' work on theirs.  Waiting on the
 * previous iteration's barriers is safe: their next phases need this
 * iteration's prefix first. */
template <wr_op O, typename T>
__device__ __forceinline__ void ws_lookback(const ws_args<O, T> &a, ws_smem<typename carry_of<O, T>::type> &sm,
                                            int k, int lane)
{
    constexpr int kLb = lb_warps<typename carry_of<O, T>::type>();
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    long long mine = -1;                          /* this warp's previous tile */
    C pmine = C();                                /* its inclusive prefix */
    for (unsigned it = (unsigned)k;; it += kLb) {
        const int s = (int)(it % kStagesWs);
        const unsigned ph = (it / kStagesWs) & 1u;
        const unsigned t = ws_tile(sm, it);      /* (starting before the tile lands gains nothing) */
        if (t == kEnd) return;
        const int c = (int)(it % kChain), cq = (int)((it - 1) % kChain);
        const unsigned phq = ((it - 1) / kChain) & 1u;  /* the previous iteration's */
        long long prev = mine;
        if (kLb > 1) {
            if (it > 0) {
                mbar_wait(&sm.lbs[cq], phq);
                prev = sm.ltk[cq];
            }
            if (lane == 0) sm.ltk[c] = t;
            mbar_arrive(&sm.lbs[c]);
        }
        if (lb_delay<C>() > 0 && t > 0) {
            const unsigned long long t0 = wrc_now();
            while (wrc_now() - t0 < lb_delay<C>()) __nanosleep(32);
        }
#ifdef WRC_SCAN_PROFILE
        if (lane == 0) {
            WRC_STAMP(t, kSLbStart, wrc_now());
            WRC_STAMP(t, kSBlock, blockIdx.x);
            WRC_STAMP(t, kSPrev, prev);
            WRC_STAMP(t, kSPrevPrefix, wrc_now());
        }
#endif
        bool have = true;
        C pre = C();
        if (t == 0) {
            have = a.carry_in != nullptr;
            if (have) pre = *a.carry_in;
        } else {
#if WRC_WS_NOLB
            have = false;                         /* (experiment: no look-back, wrong results) */
#else
            auto pprev = [&]() -> C {
                if (kLb == 1 || it == 0) return pmine;
                mbar_wait(&sm.lpre[cq], phq);
                return sm.lincl[cq];
            };
            pre = ws_look_back<O>((long long)t, prev, pprev, a.ep, a.d, sm.lbv[k], lane);
#endif
        }
        mbar_wait(&sm.red[s], ph);
        const C incl = have ? FC::combine(pre, sm.agg[s]) : sm.agg[s];
        if (lane == 0) {
            if (t > 0) st_desc(a.d + t, to_bits(incl), a.ep | kPrefix);  /* (tile 0: the reduce squad) */
            if (a.carry_out && t == a.tiles - 1) *a.carry_out = incl;
            sm.pre_v[s] = pre;
            sm.pre_have[s] = have;
            if (kLb > 1) sm.lincl[c] = incl;
#ifdef WRC_SCAN_PROFILE
            WRC_STAMP(t, kSPrefixOut, wrc_now());
            if (t == 0) WRC_STAMP(0, kSAnswered, wrc_scan_stamps[kSPrefixOut]);
#endif
        }
        /* every lane arrives, after its own reads of tk and agg (lane 0 also
         * after its writes), so that each read is ordered before the stage's
         * next tile number and aggregate by a barrier of its own, not by the
         * warp's convergence (racecheck reported the tk write against a
         * ws_tile read now and then when lane 0 arrived for the warp) */
        mbar_arrive(&sm.pre[s]);
        if (kLb > 1) mbar_arrive(&sm.lpre[c]);
        mine = t;
        pmine = incl;
    }
}

/* What an element's output is, from its thread's base b (in the carry type;
 * hb: there is one) and its prefix x inside the thread.  Float sums carry in
 * double, and (float)(b + (double)x) costs two conversions and a double add
 * per element.  The base is split instead, once per tile, into the float
 * hi = (float)b and lo = (float)(b - hi), and an element costs hi + (lo + x),
 * within an ulp of the output.  Where b is a float already (which includes
 * -0 and the infinities) lo is -0, so that lo + x is x: the output is hi + x,
 * correctly rounded, with a float scan's signs of zeros; with no base both
 * are -0 and the output is x.  Only a finite b beyond the float range
 * (wide()) needs the double add. */
template <wr_op O, typename T> struct out_map {
    typedef typename carry_of<O, T>::type C;
    static constexpr bool split = !std::is_same<C, T>::value;
    C b;
    bool hb, wide_;
    T hi, lo;
    __device__ __forceinline__ out_map(C b_, bool hb_) : b(b_), hb(hb_), wide_(false), hi((T)-0.0), lo((T)-0.0)
    {
        if constexpr (split) {
            if (hb) {
                hi = (T)b;
                if (isinf(hi) && !isinf(b)) wide_ = true;
                else if (isfinite(b) && (C)hi != b) lo = (T)(b - (C)hi);
            }
        }
    }
    __device__ __forceinline__ bool wide() const { return wide_; }
    __device__ __forceinline__ T operator()(T x) const
    {
        if constexpr (split) return hi + (lo + x);
        else return hb ? warpred::op<O, T>::combine(b, x) : x;
    }
    __device__ __forceinline__ T wide_out(T x) const { return (T)(b + (C)x); }
    __device__ __forceinline__ T base() const { return hb ? (T)b : warpred::op<O, T>::identity(); }
};

/* the outputs of this thread's elements (x: their prefixes inside the
 * thread) into its part of the stage, through f */
template <typename T, typename M>
__device__ __forceinline__ void put_outputs(T *stage, int r, const T (&x)[wtile<T>::items], int exclusive, T base, M f)
{
    constexpr int V = wtile<T>::V;
    auto out = [&](int k) -> T { return !exclusive ? f(x[k]) : k ? f(x[k - 1]) : base; };
    if constexpr (kTma) {
        /* all of them first: they go out in the order the stage wants */
        vec<T> v[wtile<T>::chunks];
#pragma unroll
        for (int i = 0; i < wtile<T>::chunks; i++)
#pragma unroll
            for (int j = 0; j < V; j++) v[i].v[j] = out(i * V + j);
        xor_perm(v, (unsigned)r & 7u);
#pragma unroll
        for (int i = 0; i < wtile<T>::chunks; i++) chunk(stage, r, i) = v[i];
    } else {
#pragma unroll
        for (int i = 0; i < wtile<T>::chunks; i++) {
            vec<T> v;
#pragma unroll
            for (int j = 0; j < V; j++) v.v[j] = out(i * V + j);
            chunk(stage, r, i) = v;
        }
    }
}

/* Scan squad (r = 0..kSquadThreads-1). */
template <wr_op O, typename T>
__device__ __forceinline__ void ws_scan(const ws_args<O, T> &a, T *stages, ws_smem<typename carry_of<O, T>::type> &sm,
                                        int r)
{
    typedef warpred::op<O, T> F;
    typedef typename carry_of<O, T>::type C;
    typedef warpred::op<O, C> FC;
    typedef wtile<T> W;
    constexpr int I = W::items, V = W::V;
    for (unsigned it = 0;; it++) {
        const int s = (int)(it % kStagesWs);
        const unsigned ph = (it / kStagesWs) & 1u;
        const unsigned t = ws_tile(sm, it);
        if (t == kEnd) return;
        T *stage = stages + (size_t)s * W::elems;
        T x[I];
        read_items(x, stage, r);
#pragma unroll
        for (int k = 1; k < I; k++) x[k] = F::combine(x[k - 1], x[k]);
        mbar_wait(&sm.red[s], ph);
        const C tex = sm.tex[s][r];
#ifdef WRC_SCAN_PROFILE
        if (r == 0) WRC_STAMP(t, kSScanWait, wrc_now());
#endif
        mbar_wait(&sm.pre[s], ph);
        const C pre = sm.pre_v[s];
        const bool have = sm.pre_have[s] != 0;
        /* thread 0 has no earlier threads in the tile */
        const out_map<O, T> m(r == 0 ? pre : (have ? FC::combine(pre, tex) : tex), r != 0 || have);
        /* (one branch per thread and tile, not per element) */
        if (m.wide()) put_outputs(stage, r, x, a.exclusive, m.base(), [&](T v) { return m.wide_out(v); });
        else          put_outputs(stage, r, x, a.exclusive, m.base(), [&](T v) { return m(v); });
        squad_sync(2);
        /* copy out: consecutive threads, consecutive chunks */
        const size_t base = (size_t)t * W::elems;
        if (WRC_WS_NOSTORE) {
            /* (experiment: no outputs) */
        } else if (a.vec_ok && base + W::elems <= a.n) {
            vec<T> *dst = reinterpret_cast<vec<T> *>(a.out + base);
            const vec<T> *vs = reinterpret_cast<const vec<T> *>(stage);
#pragma unroll 4
            for (unsigned c = r; c < W::elems / V; c += kSquadThreads) dst[c] = vs[phys<T>(c)];
        } else {
            const unsigned lim = (unsigned)(a.n - base < W::elems ? a.n - base : W::elems);
            for (unsigned e = r; e < lim; e += kSquadThreads) a.out[base + e] = stage[phys<T>(e / V) * V + e % V];
        }
#ifdef WRC_SCAN_PROFILE
        if (r == 0) WRC_STAMP(t, kSStored, wrc_now());
#endif
        mbar_arrive(&sm.empty[s]);
    }
}

template <wr_op O, typename T>
__global__ void __launch_bounds__(ws_threads<typename carry_of<O, T>::type>(), WRC_WS_MINB)
k_scan_ws(ws_args<O, T> a, unsigned *tctr)
{
    constexpr int kLb = lb_warps<typename carry_of<O, T>::type>();
    typedef typename carry_of<O, T>::type C;
    extern __shared__ uint4 s_dyn[];              /* kStagesWs tiles, from a kStageAlign boundary */
    __shared__ ws_smem<C> sm;
    const unsigned s0 = smem_addr(s_dyn);
    T *stages = reinterpret_cast<T *>(reinterpret_cast<char *>(s_dyn) + (kStageAlign - s0 % kStageAlign) % kStageAlign);
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x & 31;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStagesWs; s++) {
            mbar_init(&sm.tkb[s], 1);              /* the load warp's lane 0, with tk */
            mbar_init(&sm.full[s], kTma ? 32 : 64); /* the load warp's lanes, twice each (bulk copies: once) */
            mbar_init(&sm.red[s], kSquadThreads);
            mbar_init(&sm.pre[s], 32);             /* the look-back warp's 32 lanes */
            mbar_init(&sm.empty[s], kSquadThreads);
        }
        for (int c = 0; c < kChain; c++) {
            mbar_init(&sm.lbs[c], 32);             /* a look-back warp's lanes (kLb > 1) */
            mbar_init(&sm.lpre[c], 32);
        }
    }
    __syncthreads();
    if (warp < kSquad) ws_reduce(a, stages, sm, (int)threadIdx.x);
    else if (warp < 2 * kSquad) ws_scan(a, stages, sm, (int)threadIdx.x - kSquadThreads);
    else if (warp < 2 * kSquad + kLb) ws_lookback(a, sm, warp - 2 * kSquad, lane);
    else ws_load(a, stages, sm, tctr, lane);
    asm volatile("cp.async.wait_all;" ::: "memory");
    grid_done(a.ds, a.dcount);
}

struct scan_fn {
    template <wr_op O, typename T>
    static wr_status run(strand &S, const void *in, void *out, size_t n, int exclusive,
                         const void *carry_in, void *carry_out, done_sig ds, char *err)
    {
        typedef typename carry_of<O, T>::type C;
        static_assert(sizeof(C) <= 8, "descriptor values are 8 bytes");
        const size_t tiles = (n + wtile<T>::elems - 1) / wtile<T>::elems;
        /* tickets (tiles + grid of them) are 32-bit */
        if (tiles > 0xffffffffu - 0x10000u) return fail(err, "scan: too many tiles", cudaErrorInvalidValue);
        if (tiles > S.scap) {
            const size_t cap = tiles + tiles / 4;
            size_t bytes = S.scap ? scan_bytes(S.scap) : 0;
            S.scap = 0;                       /* until the new block exists */
            S.epoch = 0;
            WRCUDA_TRY(grow(S, S.sblk, &bytes, scan_bytes(cap), true, "scan descriptors", err));
            S.scap = cap;
        }
        if (++S.epoch >= (1u << 30)) {      /* epochs wrap: clear the statuses once */
            WRCUDA_CK(cudaMemsetAsync, (S.sblk, 0, scan_bytes(S.scap), S.st));
            S.epoch = 1;
        }
        const int vec_ok = ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0);
        /* resident blocks only (at most 65536: see the ticket check above),
         * each with its ring of stages; the shared-memory opt-in is per
         * device, so it is renewed on every call (a host-side call) */
        auto kp = k_scan_ws<O, T>;
        constexpr size_t dyn = (size_t)kStagesWs * kWsTileBytes + kStageAlign;
        static std::atomic<int> per_sm{0};
        WRCUDA_CK(cudaFuncSetAttribute, ((const void *)kp, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        if (per_sm.load(std::memory_order_relaxed) == 0) {
            int nb = 0;
            WRCUDA_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor, (&nb, (const void *)kp, ws_threads<C>(), dyn));
            per_sm.store(nb > 0 ? nb : 1);
        }
        size_t grid = (size_t)(S.sms > 0 ? S.sms : 1) * (size_t)per_sm.load(std::memory_order_relaxed);
        if (S.scan_blocks && S.scan_blocks < grid) grid = S.scan_blocks;
        if (grid > tiles) grid = tiles;
        if (grid > 0x10000u) grid = 0x10000u;
        ws_args<O, T> a;
        a.in = (const T *)in;
        a.out = (T *)out;
        a.n = n;
        a.tiles = tiles;
        a.exclusive = exclusive;
        a.vec_ok = vec_ok;
        a.ep = (unsigned long long)S.epoch << 2;
        a.d = (tdesc *)S.sblk;
        a.carry_in = (const C *)carry_in;
        a.carry_out = (C *)carry_out;
        a.ds = ds;
        a.dcount = S.ctr + 3;
        kp<<<(unsigned)grid, ws_threads<C>(), dyn, S.st>>>(a, S.ctr + 1);  /* tickets [1], blocks done [2] */
        WRCUDA_CKLAUNCH("scan kernel launch");
        return WR_SUCCESS;
    }
};

} /* namespace */

wr_status launch_scan(strand &S, const void *in, void *out, size_t n, wr_type t, wr_op o, int exclusive,
                      const void *carry_in, void *carry_out, done_sig ds, char *err)
{
    return dispatch<scan_fn>(t, o, S, in, out, n, exclusive, carry_in, carry_out, ds, err);
}

} /* namespace wrcuda */

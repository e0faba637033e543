/*
 * omp_reduce.c -- reduce, reduce_rows and reduce_segments as OpenMP target
 * regions, and the device-side check of segment offsets.
 *
 * Reduce of n elements (n > WRO_DIRECT_MAX):
 *   pass 1  `target teams distribute parallel for simd` over G lane slots:
 *           tile t (L*K elements) has L lanes, lane l folds elements
 *           t*L*K + l + j*L, j < K (by 8 accumulators) into part[t*L + l].
 *           K, a power of two from 16 to 2048, and so G, depend on n only;
 *   pass 2  one team (a plain `target` region with a `parallel` inside)
 *           folds part[0..G) (the team fold of omp_kern.h) and stores the
 *           result.
 * Up to WRO_DIRECT_MAX elements, the one-team pass alone.  The partials are
 * explicit arrays in device memory, written by whatever team runs their
 * tile: no team-shared memory and no barrier in pass 1, which is what GCC's
 * nvptx code for nested parallel regions handles worst.
 * Float SUM error: a chain of at most K/8 + 3 additions in pass 1 and of
 * G/(8*TL) + 3 + log2(TL) + log2(chunks) in pass 2: for 2^28 elements
 * (K = 1024, G = 2^18) 128 + 3 + 128 + 3 + 8 + 0, within DESIGN.md's
 * 1024 + log2(n); at most 256 + 3 + 256 + 3 + 8 + log2(n / 2^29) beyond.
 *
 * Rows: up to WRO_ROW_LANE columns one lane per row; up to WRO_ROW_MID,
 * RL lanes per row (RL from cols only) and a second kernel folding each
 * row's RL partials; longer rows one reduce each.
 *
 * Segments: one lane per segment up to WRO_SEG_LANE elements; the longer
 * ones are listed (flags, an exclusive scan of them, a scatter) and each is
 * folded by one team.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_kern.h"

/* ---- the kernels of one (type, op) pair ------------------------------------ */

#define WRO_DEF_RED(sfx, T, E, wsfx, W, op, OE)                                       \
    /* pass 1: part[0 .. (n + L*K - 1) / (L*K) * L) */                               \
    static void wro_p1_##sfx##_##op(int dev, int par, const void *vx, size_t n, size_t K, void *vpart) \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *part = (T *)vpart;                                                        \
        const size_t tile = (size_t)WRO_L * K, G = (n + tile - 1) / tile * WRO_L;   \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, part)) \
        for (size_t g = 0; g < G; g++) {                                             \
            const size_t first = g / WRO_L * tile + g % WRO_L;                       \
            size_t k = first < n ? (n - first + WRO_L - 1) / WRO_L : 0;              \
            part[g] = wro_fold_##sfx##_##op(x, first, WRO_L, k < K ? k : K);         \
        }                                                                            \
    }                                                                                \
    /* one team (a target region, no teams construct): *res = the fold of     */ \
    /* x[0 .. n), n >= 1, as stored */                                          \
    static void wro_fin_##sfx##_##op(int dev, int par, const void *vx, size_t n, void *vres)  \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *res = (T *)vres;                                                          \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(x, res))  \
        {                                                                            \
            T lanes[WRO_TL], stk[64];                                                \
            unsigned top = 0;                                                        \
            size_t cnt = 0;                                                          \
            WRO_TEAM_RANGE(sfx, op, x, n, lanes, stk, &top, &cnt)                    \
            *res = WRO_STORE(sfx, T, OE, wro_stack_##sfx##_##op(stk, top));          \
        }                                                                            \
    }                                                                                \
    /* rows of at most WRO_ROW_LANE columns (cols >= 1): one lane each */            \
    static void wro_rlane_##sfx##_##op(int dev, int par, const void *vx, size_t rows, size_t cols, void *vout) \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *out = (T *)vout;                                                          \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, out)) \
        for (size_t r = 0; r < rows; r++)                                            \
            out[r] = WRO_STORE(sfx, T, OE, wro_fold_##sfx##_##op(x, r * cols, 1, cols)); \
    }                                                                                \
    /* rows cut into RL lanes: part[r * RL + l] */                                  \
    static void wro_rpart_##sfx##_##op(int dev, int par, const void *vx, size_t rows, size_t cols, size_t RL, \
                                       void *vpart)                                  \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *part = (T *)vpart;                                                        \
        const size_t G = rows * RL;                                                  \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, part)) \
        for (size_t g = 0; g < G; g++) {                                             \
            const size_t r = g / RL, l = g % RL;                                     \
            const size_t k = l < cols ? (cols - l + RL - 1) / RL : 0;                \
            part[g] = wro_fold_##sfx##_##op(x, r * cols + l, RL, k);                 \
        }                                                                            \
    }                                                                                \
    static void wro_rfold_##sfx##_##op(int dev, int par, const void *vpart, size_t rows, size_t RL, void *vout) \
    {                                                                                \
        const T *part = (const T *)vpart;                                            \
        T *out = (T *)vout;                                                          \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(part, out)) \
        for (size_t r = 0; r < rows; r++)                                            \
            out[r] = WRO_STORE(sfx, T, OE, wro_fold_##sfx##_##op(part, r * RL, 1, RL)); \
    }                                                                                \
    /* segments of at most WRO_SEG_LANE elements, one lane each; flag[s] = 1  */    \
    /* marks a longer one; returns how many are longer */                          \
    static size_t wro_sshort_##sfx##_##op(int dev, int par, const void *vx, const size_t *off, size_t nseg, \
                                          void *vout, uint64_t *flag)                \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *out = (T *)vout;                                                          \
        size_t nlong = 0;                                                            \
        WRO_PRAGMA(omp target teams distribute parallel for simd if(parallel: par) device(dev) is_device_ptr(x, off, out, flag) \
                   map(tofrom: nlong) reduction(+: nlong))                            \
        for (size_t s = 0; s < nseg; s++) {                                          \
            const size_t a = off[s], len = off[s + 1] - a;                           \
            flag[s] = len > WRO_SEG_LANE;                                            \
            nlong += len > WRO_SEG_LANE;                                             \
            if (len == 0)                                                            \
                out[s] = wr_ident_##op##_##sfx();                                    \
            else if (len <= WRO_SEG_LANE)                                            \
                out[s] = WRO_STORE(sfx, T, OE, wro_fold_##sfx##_##op(x, a, 1, len)); \
        }                                                                            \
        return nlong;                                                                \
    }                                                                                \
    /* the listed long segments, one team each */                                   \
    static void wro_slong_##sfx##_##op(int dev, int par, const void *vx, const size_t *off, const size_t *list, \
                                       size_t nlong, void *vout)                     \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *out = (T *)vout;                                                          \
        WRO_PRAGMA(omp target teams distribute device(dev) is_device_ptr(x, off, list, out)) \
        for (size_t i = 0; i < nlong; i++) {                                         \
            const size_t s = list[i], a = off[s], len = off[s + 1] - a;              \
            T lanes[WRO_TL], stk[64];                                                \
            unsigned top = 0;                                                        \
            size_t cnt = 0;                                                          \
            WRO_TEAM_RANGE(sfx, op, x + a, len, lanes, stk, &top, &cnt)              \
            out[s] = WRO_STORE(sfx, T, OE, wro_stack_##sfx##_##op(stk, top));        \
        }                                                                            \
    }                                                                                \
    /* one segment in pieces (staged): the team fold of x[0 .. n) goes on from  */  \
    /* the stack in stk/meta (meta: top, count); res != NULL: store the result */   \
    static void wro_spiece_##sfx##_##op(int dev, int par, const void *vx, size_t n, void *vstk, size_t *meta, \
                                        void *vres)                                  \
    {                                                                                \
        const T *x = (const T *)vx;                                                  \
        T *stk = (T *)vstk, *res = (T *)vres;                                        \
        WRO_PRAGMA(omp target device(dev) is_device_ptr(x, stk, meta, res)) \
        {                                                                            \
            T lanes[WRO_TL];                                                         \
            unsigned top = (unsigned)meta[0];                                        \
            size_t cnt = meta[1];                                                    \
            WRO_TEAM_RANGE(sfx, op, x, n, lanes, stk, &top, &cnt)                    \
            meta[0] = top;                                                           \
            meta[1] = cnt;                                                           \
            if (res != NULL) *res = WRO_STORE(sfx, T, OE, wro_stack_##sfx##_##op(stk, top)); \
        }                                                                            \
    }
#define WRO_PAIR WRO_DEF_RED
WRO_PAIRS
#undef WRO_PAIR

struct wro_red {
    size_t size;
    void (*p1)(int dev, int par, const void *x, size_t n, size_t K, void *part);
    void (*fin)(int dev, int par, const void *x, size_t n, void *res);
    void (*rlane)(int dev, int par, const void *x, size_t rows, size_t cols, void *out);
    void (*rpart)(int dev, int par, const void *x, size_t rows, size_t cols, size_t RL, void *part);
    void (*rfold)(int dev, int par, const void *part, size_t rows, size_t RL, void *out);
    size_t (*sshort)(int dev, int par, const void *x, const size_t *off, size_t nseg, void *out, uint64_t *flag);
    void (*slong)(int dev, int par, const void *x, const size_t *off, const size_t *list, size_t nlong, void *out);
    void (*spiece)(int dev, int par, const void *x, size_t n, void *stk, size_t *meta, void *res);
};

#define WRO_RED_ENTRY(sfx, T, E, wsfx, W, op, OE)                                    \
    [E][OE] = { sizeof(T), wro_p1_##sfx##_##op, wro_fin_##sfx##_##op, wro_rlane_##sfx##_##op, \
                wro_rpart_##sfx##_##op, wro_rfold_##sfx##_##op, wro_sshort_##sfx##_##op, \
                wro_slong_##sfx##_##op, wro_spiece_##sfx##_##op },
static const struct wro_red wro_red_tab[WRO_NTYPES][WRO_NOPS] = {
#define WRO_PAIR WRO_RED_ENTRY
    WRO_PAIRS
#undef WRO_PAIR
};
#undef WRO_RED_ENTRY

/* ---- reduce ------------------------------------------------------------------ */

/* Scratch bytes reduce_core needs for n elements from a staged (!direct)
 * or direct input. */
static size_t reduce_scratch(const struct wro_state *st, size_t n, size_t es, int direct)
{
    size_t K = wro_plan_k(n), b = WRO_SCRATCH_SIZE(es);
    if (K) b += WRO_SCRATCH_SIZE(wro_plan_g(n, K) * es);
    if (!direct) b += WRO_SCRATCH_SIZE(n * es < st->staging ? n * es : st->staging);
    return b;
}

/* *res (device memory) = the reduction of the n >= 1 elements at x (direct:
 * a device address; else host memory, staged through the scratch). */
static wr_status reduce_core(struct wro_state *st, struct wro_scratch *s, const struct wro_red *k,
                             const struct wro_buf *x, size_t n, void *res, char *err)
{
    const size_t es = k->size, K = wro_plan_k(n);
    const int par = wro_par(st, n);
    char *stage = NULL;
    void *part = NULL;
    wr_status rc;
    if (K) part = wro_scratch_take(s, wro_plan_g(n, K) * es);
    if (!x->direct) stage = wro_scratch_take(s, n * es < st->staging ? n * es : st->staging);
    if ((K && part == NULL) || (!x->direct && stage == NULL)) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    if (x->direct) {
        if (K) {
            k->p1(st->dev, par, x->p, n, K, part);
            k->fin(st->dev, par, part, wro_plan_g(n, K), res);
        } else {
            k->fin(st->dev, par, x->p, n, res);
        }
        return WR_SUCCESS;
    }
    if (!K) {                                     /* fits the staging buffer */
        if ((rc = wro_copy(st, stage, 1, x->p, x->on_dev, n * es, err)) != WR_SUCCESS) return rc;
        k->fin(st->dev, par, stage, n, res);
        return WR_SUCCESS;
    }
    {
        /* whole tiles per chunk: the partials are those of a direct call */
        const size_t tile = WRO_L * K, chunk = st->staging / es / tile * tile;
        size_t c0;
        for (c0 = 0; c0 < n; c0 += chunk) {
            const size_t m = n - c0 < chunk ? n - c0 : chunk;
            if ((rc = wro_copy(st, stage, 1, x->p + c0 * es, x->on_dev, m * es, err)) != WR_SUCCESS) return rc;
            k->p1(st->dev, par, stage, m, K, (char *)part + c0 / tile * WRO_L * es);
        }
        k->fin(st->dev, par, part, wro_plan_g(n, K), res);
    }
    return WR_SUCCESS;
}

/* Write count elements of value v (es bytes each) to out. */
static wr_status fill(struct wro_state *st, const struct wro_buf *out, size_t count, size_t es, const void *v,
                      char *err)
{
    char *h = malloc(count * es);
    size_t i;
    wr_status rc;
    if (h == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory for %zu bytes", count * es);
        return WR_ERR_NO_MEMORY;
    }
    for (i = 0; i < count; i++) memcpy(h + i * es, v, es);
    rc = wro_copy(st, out->p, out->on_dev, h, 0, count * es, err);
    free(h);
    return rc;
}

wr_status wro_reduce(struct wro_state *st, const struct wr_call *call, const void *in, void *out, size_t count,
                     wr_type type, wr_op op, char *err)
{
    const struct wro_red *k = &wro_red_tab[type][op];
    const size_t es = k->size;
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc;
    void *res;

    if ((rc = wro_resolve(st, in, count * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (count == 0) {
        unsigned char id[8];
        wr_identity(type, op, id);
        return fill(st, &bo, 1, es, id, err);
    }
    if ((rc = wro_scratch_open(st, &s, reduce_scratch(st, count, es, bi.direct), err)) != WR_SUCCESS) return rc;
    res = bo.direct ? bo.p : wro_scratch_take(&s, es);
    rc = reduce_core(st, &s, k, &bi, count, res, err);
    if (rc == WR_SUCCESS && !bo.direct) rc = wro_copy(st, bo.p, 0, res, 1, es, err);
    wro_scratch_close(&s);
    return rc;
}

/* ---- rows -------------------------------------------------------------------- */

/* Lanes per row for WRO_ROW_LANE < cols <= WRO_ROW_MID: the least power of
 * two, at most 256, that leaves at most 32 elements a lane (up to 1024 for
 * the longest rows): 4 lanes for 65 columns, 32 for 1024, 256 for 32768. */
static size_t row_lanes(size_t cols)
{
    size_t RL = 1;
    while (RL < 256 && RL * 32 < cols) RL *= 2;
    return RL;
}

wr_status wro_reduce_rows(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                          size_t rows, size_t cols, wr_type type, wr_op op, char *err)
{
    const struct wro_red *k = &wro_red_tab[type][op];
    const size_t es = k->size;
    struct wro_buf bi, bo;
    struct wro_scratch s;
    wr_status rc = WR_SUCCESS;
    size_t r0, per, need;

    if ((rc = wro_resolve(st, in, rows * cols * es, call->kin, "in", &bi, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, out, rows * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if (cols == 0) {
        unsigned char id[8];
        wr_identity(type, op, id);
        return fill(st, &bo, rows, es, id, err);
    }

    if (cols > WRO_ROW_MID) {
        /* long rows: one reduce each, its result straight into out[r] */
        struct wro_buf row = bi;
        if ((rc = wro_scratch_open(st, &s, reduce_scratch(st, cols, es, bi.direct) + WRO_SCRATCH_SIZE(es), err))
            != WR_SUCCESS)
            return rc;
        for (r0 = 0; r0 < rows && rc == WR_SUCCESS; r0++) {
            struct wro_scratch one = s;            /* the same block, carved afresh per row */
            void *res = bo.direct ? bo.p + r0 * es : wro_scratch_take(&one, es);
            row.p = bi.p + r0 * cols * es;
            rc = reduce_core(st, &one, k, &row, cols, res, err);
            if (rc == WR_SUCCESS && !bo.direct) rc = wro_copy(st, bo.p + r0 * es, 0, res, 1, es, err);
        }
        wro_scratch_close(&s);
        return rc;
    }

    /* rows in chunks: all of them when in and out are direct, else as many
     * whole rows as the staging buffer holds */
    per = bi.direct ? rows : st->staging / (cols * es);
    if (!bo.direct && per > st->staging / es) per = st->staging / es;
    if (per > rows) per = rows;
    need = WRO_SCRATCH_SIZE(bi.direct ? 0 : per * cols * es) + WRO_SCRATCH_SIZE(bo.direct ? 0 : per * es);
    if (cols > WRO_ROW_LANE) need += WRO_SCRATCH_SIZE(per * row_lanes(cols) * es);
    if ((rc = wro_scratch_open(st, &s, need, err)) != WR_SUCCESS) return rc;
    {
        char *istage = bi.direct ? NULL : wro_scratch_take(&s, per * cols * es);
        char *ostage = bo.direct ? NULL : wro_scratch_take(&s, per * es);
        void *part = cols > WRO_ROW_LANE ? wro_scratch_take(&s, per * row_lanes(cols) * es) : NULL;
        for (r0 = 0; r0 < rows && rc == WR_SUCCESS; r0 += per) {
            const size_t m = rows - r0 < per ? rows - r0 : per;
            const char *x = bi.direct ? bi.p + r0 * cols * es : istage;
            const int par = wro_par(st, m * cols);
            char *y = bo.direct ? bo.p + r0 * es : ostage;
            if (!bi.direct && (rc = wro_copy(st, istage, 1, bi.p + r0 * cols * es, bi.on_dev, m * cols * es, err))
                != WR_SUCCESS)
                break;
            if (cols <= WRO_ROW_LANE) {
                k->rlane(st->dev, par, x, m, cols, y);
            } else {
                k->rpart(st->dev, par, x, m, cols, row_lanes(cols), part);
                k->rfold(st->dev, par, part, m, row_lanes(cols), y);
            }
            if (!bo.direct) rc = wro_copy(st, bo.p + r0 * es, 0, ostage, 1, m * es, err);
        }
    }
    wro_scratch_close(&s);
    return rc;
}

/* ---- segments ---------------------------------------------------------------- */

static size_t segs_core_scratch(size_t nseg)
{
    return 2 * WRO_SCRATCH_SIZE(nseg * sizeof(uint64_t)) + wro_scan_scratch(nseg, WR_UINT64);
}

/* out[s] for nseg segments of x at the device offsets off (all direct). */
static wr_status segs_core(struct wro_state *st, int par, struct wro_scratch *s, const struct wro_red *k,
                           const char *x, const size_t *off, size_t nseg, char *out, char *err)
{
    uint64_t *flag = wro_scratch_take(s, nseg * sizeof(uint64_t));
    size_t *list = wro_scratch_take(s, nseg * sizeof(size_t)), nlong;
    wr_status rc;
    if (flag == NULL || list == NULL) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    nlong = k->sshort(st->dev, par, x, off, nseg, out, flag);
    if (nlong == 0) return WR_SUCCESS;
    /* where each long segment goes in the list: an exclusive scan of the flags */
    if ((rc = wro_scan_dev(st, s, flag, flag, nseg, WR_UINT64, WR_SUM, 1, err)) != WR_SUCCESS) return rc;
#pragma omp target teams distribute parallel for simd if(parallel: par) device(st->dev) is_device_ptr(off, flag, list)
    for (size_t i = 0; i < nseg; i++)
        if (off[i + 1] - off[i] > WRO_SEG_LANE) list[flag[i]] = i;
    k->slong(st->dev, par, x, off, list, nlong, out);
    return WR_SUCCESS;
}

/* Staged segments: runs of whole segments through the staging buffer; a
 * segment longer than the buffer in pieces of whole team chunks. */
static wr_status segs_staged(struct wro_state *st, const struct wro_red *k, const struct wro_buf *bi,
                             const struct wro_buf *bo, const size_t *off, size_t nseg, char *err)
{
    const size_t es = k->size, cap = st->staging / es, segcap = st->staging / 64;
    struct wro_scratch s;
    size_t s0 = 0, *rel;
    wr_status rc;
    char *stage, *ostage, *stk;
    size_t *drel, *meta;

    rel = malloc((segcap + 1) * sizeof *rel);
    if (rel == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    rc = wro_scratch_open(st, &s, WRO_SCRATCH_SIZE(st->staging) + WRO_SCRATCH_SIZE(segcap * es) +
                                      WRO_SCRATCH_SIZE((segcap + 1) * sizeof(size_t)) + WRO_SCRATCH_SIZE(64 * es) +
                                      WRO_SCRATCH_SIZE(2 * sizeof(size_t)) + segs_core_scratch(segcap), err);
    if (rc != WR_SUCCESS) { free(rel); return rc; }
    stage = wro_scratch_take(&s, st->staging);
    ostage = wro_scratch_take(&s, segcap * es);
    drel = wro_scratch_take(&s, (segcap + 1) * sizeof(size_t));
    stk = wro_scratch_take(&s, 64 * es);
    meta = wro_scratch_take(&s, 2 * sizeof(size_t));
    while (s0 < nseg && rc == WR_SUCCESS) {
        size_t s1 = s0 + 1, i;
        if (off[s0 + 1] - off[s0] > cap) {
            /* one segment longer than the buffer: pieces of whole chunks */
            const size_t a = off[s0], len = off[s0 + 1] - a, piece = cap / WRO_CH * WRO_CH;
            const size_t zero[2] = { 0, 0 };
            size_t c0;
            char *res = bo->direct ? bo->p + s0 * es : ostage;
            rc = wro_copy(st, meta, 1, zero, 0, sizeof zero, err);
            for (c0 = 0; c0 < len && rc == WR_SUCCESS; c0 += piece) {
                const size_t m = len - c0 < piece ? len - c0 : piece;
                rc = wro_copy(st, stage, 1, bi->p + (a + c0) * es, bi->on_dev, m * es, err);
                if (rc == WR_SUCCESS)
                    k->spiece(st->dev, wro_par(st, m), stage, m, stk, meta, c0 + m == len ? res : NULL);
            }
            if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, es, err);
            s0++;
            continue;
        }
        while (s1 < nseg && s1 - s0 < segcap && off[s1 + 1] - off[s0] <= cap) s1++;
        for (i = s0; i <= s1; i++) rel[i - s0] = off[i] - off[s0];
        rc = wro_copy(st, drel, 1, rel, 0, (s1 - s0 + 1) * sizeof(size_t), err);
        if (rc == WR_SUCCESS)
            rc = wro_copy(st, stage, 1, bi->p + off[s0] * es, bi->on_dev, (off[s1] - off[s0]) * es, err);
        if (rc == WR_SUCCESS) {
            struct wro_scratch one = s;           /* the core's scratch, afresh per run */
            rc = segs_core(st, wro_par(st, off[s1] - off[s0] + (s1 - s0)), &one, k, stage, drel, s1 - s0,
                           bo->direct ? bo->p + s0 * es : ostage, err);
        }
        if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, (s1 - s0) * es, err);
        s0 = s1;
    }
    wro_scratch_close(&s);
    free(rel);
    return rc;
}

wr_status wro_reduce_segments(struct wro_state *st, const struct wr_call *call, const void *in, void *out,
                              size_t nsegments, const size_t *offsets, wr_type type, wr_op op, char *err)
{
    const struct wro_red *k = &wro_red_tab[type][op];
    const size_t es = k->size, first = call->first, last = call->last;
    struct wro_buf bi, bo, bf;
    wr_status rc;

    /* in as lib/ located it: from element offsets[0] on */
    if ((rc = wro_resolve(st, in ? (const char *)in + first * es : NULL, (last - first) * es, call->kin, "in",
                          &bi, err)) != WR_SUCCESS)
        return rc;
    if (bi.p != NULL) bi.p -= first * es;       /* back to the caller's element 0 */
    if ((rc = wro_resolve(st, out, nsegments * es, call->kout, "out", &bo, err)) != WR_SUCCESS) return rc;
    if ((rc = wro_resolve(st, offsets, (nsegments + 1) * sizeof(size_t), call->kaux, "offsets", &bf, err))
        != WR_SUCCESS)
        return rc;
    if (in == NULL) {                          /* every segment is empty */
        unsigned char id[8];
        wr_identity(type, op, id);
        return fill(st, &bo, nsegments, es, id, err);
    }

    if (bi.direct && bo.direct && bf.direct) {
        struct wro_scratch s;
        if ((rc = wro_scratch_open(st, &s, segs_core_scratch(nsegments), err)) != WR_SUCCESS) return rc;
        rc = segs_core(st, wro_par(st, last - first + nsegments), &s, k, bi.p, (const size_t *)(void *)bf.p,
                       nsegments, bo.p, err);
        wro_scratch_close(&s);
        return rc;
    }
    if (bf.on_dev && !(st->host)) {
        /* staged, with offsets in device memory: bring them to the host */
        size_t *h = malloc((nsegments + 1) * sizeof *h);
        if (h == NULL) {
            snprintf(err, WR_ERRLEN, "out of host memory for %zu offsets", nsegments + 1);
            return WR_ERR_NO_MEMORY;
        }
        rc = wro_copy(st, h, 0, bf.p, 1, (nsegments + 1) * sizeof *h, err);
        if (rc == WR_SUCCESS) rc = segs_staged(st, k, &bi, &bo, h, nsegments, err);
        free(h);
        return rc;
    }
    return segs_staged(st, k, &bi, &bo, offsets, nsegments, err);
}

/* ---- offsets --------------------------------------------------------------------- */

wr_status wro_check_offsets(struct wro_state *st, const size_t *offsets, size_t nsegments, size_t sum[5], char *err)
{
    const wr_mem_kind kind = wro_locate(st, offsets);
    struct wro_buf b;
    size_t bad = SIZE_MAX, v[2];
    wr_status rc;
    if ((rc = wro_resolve(st, offsets, (nsegments + 1) * sizeof(size_t), kind, "offsets", &b, err)) != WR_SUCCESS)
        return rc;
    if (!b.direct || st->host) {
        /* host memory the host can read */
        const size_t *o = offsets;
        size_t s;
        for (s = 0; s < nsegments && bad == SIZE_MAX; s++)
            if (o[s + 1] < o[s]) bad = s;
        sum[0] = o[0];
        sum[1] = o[nsegments];
        sum[2] = bad;
        if (bad != SIZE_MAX) { sum[3] = o[bad]; sum[4] = o[bad + 1]; }
        return WR_SUCCESS;
    }
    {
        const size_t *o = (const size_t *)(void *)b.p;
#pragma omp target teams distribute parallel for simd device(st->dev) is_device_ptr(o) map(tofrom: bad) \
        reduction(min: bad)
        for (size_t s = 0; s < nsegments; s++)
            if (o[s + 1] < o[s] && s < bad) bad = s;
    }
    if ((rc = wro_copy(st, &sum[0], 0, b.p, 1, sizeof(size_t), err)) != WR_SUCCESS) return rc;
    if ((rc = wro_copy(st, &sum[1], 0, b.p + nsegments * sizeof(size_t), 1, sizeof(size_t), err)) != WR_SUCCESS)
        return rc;
    sum[2] = bad;
    if (bad != SIZE_MAX) {
        if ((rc = wro_copy(st, v, 0, b.p + bad * sizeof(size_t), 1, sizeof v, err)) != WR_SUCCESS) return rc;
        sum[3] = v[0];
        sum[4] = v[1];
    }
    return WR_SUCCESS;
}

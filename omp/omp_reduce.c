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

/* The chunks of a reduce: whole pass-1 tiles (K), or everything at once
 * (the one-team pass alone). */
static struct wro_plan reduce_plan(size_t n, size_t es)
{
    const size_t K = wro_plan_k(n);
    const struct wro_plan p = { n, es, 0, K ? WRO_L * K : 1, 0 };
    return p;
}

/* Scratch bytes reduce_core needs for the n elements of x. */
static size_t reduce_scratch(const struct wro_state *st, size_t n, size_t es, const struct wro_buf *x)
{
    const struct wro_plan p = reduce_plan(n, es);
    size_t K = wro_plan_k(n), b = WRO_SCRATCH_SIZE(es);
    if (K) b += WRO_SCRATCH_SIZE(wro_plan_g(n, K) * es);
    return b + wro_plan_scratch(st, &p, x, NULL);
}

struct red_arg {
    struct wro_state *st;
    const struct wro_red *k;
    size_t K;
    int par;
    char *part;
    void *res;
};

/* pass 1 of a chunk of whole tiles into its partials, or the one-team pass */
static wr_status red_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct red_arg *a = va;
    (void)err;
    if (a->K)
        a->k->p1(a->st->dev, a->par, c->in, c->len, a->K, a->part + c->off / (WRO_L * a->K) * WRO_L * a->k->size);
    else
        a->k->fin(a->st->dev, a->par, c->in, c->len, a->res);
    return WR_SUCCESS;
}

/* *res (device memory) = the reduction of the n >= 1 elements at x (direct:
 * a device address; else host memory, staged through the scratch). */
static wr_status reduce_core(struct wro_state *st, struct wro_scratch *s, const struct wro_red *k,
                             const struct wro_buf *x, size_t n, void *res, char *err)
{
    const struct wro_plan p = reduce_plan(n, k->size);
    struct red_arg a = { st, k, wro_plan_k(n), wro_par(st, n), NULL, res };
    wr_status rc;
    if (a.K && (a.part = wro_scratch_take(s, wro_plan_g(n, a.K) * k->size)) == NULL) {
        snprintf(err, WR_ERRLEN, "internal error: scratch too small");
        return WR_ERR_NO_MEMORY;
    }
    if ((rc = wro_each_chunk(st, s, &p, x, NULL, red_chunk, &a, err)) != WR_SUCCESS) return rc;
    if (a.K) k->fin(st->dev, a.par, a.part, wro_plan_g(n, a.K), res);
    return WR_SUCCESS;
}

size_t wro_reduce_dev_scratch(const struct wro_state *st, size_t n, wr_type type)
{
    const struct wro_buf x = { NULL, 1, 1 };
    return reduce_scratch(st, n, wr_backend_type_size(type), &x);
}

wr_status wro_reduce_dev(struct wro_state *st, struct wro_scratch *s, const void *x, size_t n, wr_type type, wr_op op,
                         void *res, char *err)
{
    const struct wro_buf b = { (char *)(uintptr_t)x, 1, 1 };
    return reduce_core(st, s, &wro_red_tab[type][op], &b, n, res, err);
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
        return wro_fill(st, &bo, 1, es, id, err);
    }
    if ((rc = wro_scratch_open(st, &s, reduce_scratch(st, count, es, &bi), err)) != WR_SUCCESS) return rc;
    res = bo.direct ? bo.p : wro_scratch_take(&s, es);
    rc = reduce_core(st, &s, k, &bi, count, res, err);
    if (rc == WR_SUCCESS && !bo.direct) rc = wro_copy(st, bo.p, 0, res, 1, es, err);
    wro_scratch_close(&s);
    return rc;
}

/* ---- rows -------------------------------------------------------------------- */

struct rows_arg {
    struct wro_state *st;
    const struct wro_red *k;
    size_t cols;
    void *part;
};

/* the rows of one chunk: one lane each, or lanes and their fold */
static wr_status rows_chunk(void *va, const struct wro_chunk *c, char *err)
{
    const struct rows_arg *a = va;
    const int par = wro_par(a->st, c->len * a->cols);
    (void)err;
    if (a->cols <= WRO_ROW_LANE) {
        a->k->rlane(a->st->dev, par, c->in, c->len, a->cols, c->out);
    } else {
        a->k->rpart(a->st->dev, par, c->in, c->len, a->cols, wro_row_lanes(a->cols), a->part);
        a->k->rfold(a->st->dev, par, a->part, c->len, wro_row_lanes(a->cols), c->out);
    }
    return WR_SUCCESS;
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
        return wro_fill(st, &bo, rows, es, id, err);
    }

    if (cols > WRO_ROW_MID) {
        /* long rows: one reduce each, its result straight into out[r] */
        struct wro_buf row = bi;
        if ((rc = wro_scratch_open(st, &s, reduce_scratch(st, cols, es, &bi) + WRO_SCRATCH_SIZE(es), err))
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
    {
        const struct wro_plan p = { rows, cols * es, es, 1, 0 };
        struct rows_arg a = { st, k, cols, NULL };
        per = wro_plan_items(st, &p, &bi, &bo);
        need = wro_plan_scratch(st, &p, &bi, &bo);
        if (cols > WRO_ROW_LANE) need += WRO_SCRATCH_SIZE(per * wro_row_lanes(cols) * es);
        if ((rc = wro_scratch_open(st, &s, need, err)) != WR_SUCCESS) return rc;
        if (cols > WRO_ROW_LANE) a.part = wro_scratch_take(&s, per * wro_row_lanes(cols) * es);
        rc = wro_each_chunk(st, &s, &p, &bi, &bo, rows_chunk, &a, err);
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

struct segs_arg {
    struct wro_state *st;
    const struct wro_red *k;
};

/* a staged run of whole segments */
static wr_status segs_run(void *va, struct wro_scratch *work, const char *x, const size_t *rel, size_t nseg,
                          size_t n, char *out, char *err)
{
    const struct segs_arg *a = va;
    return segs_core(a->st, wro_par(a->st, n + nseg), work, a->k, x, rel, nseg, out, err);
}

/* a piece of whole team chunks of a segment longer than the staging
 * buffer: the team fold goes on from the stack kept in keep */
static wr_status segs_piece(void *va, struct wro_scratch *work, void *keep, const char *x, size_t m, int first,
                            int last, char *res, char *err)
{
    const struct segs_arg *a = va;
    char *stk = keep;
    size_t *meta = (size_t *)(void *)(stk + WRO_SCRATCH_SIZE(64 * a->k->size));
    (void)work;
    if (first) {
        const size_t zero[2] = { 0, 0 };
        wr_status rc = wro_copy(a->st, meta, 1, zero, 0, sizeof zero, err);
        if (rc != WR_SUCCESS) return rc;
    }
    a->k->spiece(a->st->dev, wro_par(a->st, m), x, m, stk, meta, last ? res : NULL);
    return WR_SUCCESS;
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
        return wro_fill(st, &bo, nsegments, es, id, err);
    }

    if (bi.direct && bo.direct && bf.direct) {
        struct wro_scratch s;
        if ((rc = wro_scratch_open(st, &s, segs_core_scratch(nsegments), err)) != WR_SUCCESS) return rc;
        rc = segs_core(st, wro_par(st, last - first + nsegments), &s, k, bi.p, (const size_t *)(void *)bf.p,
                       nsegments, bo.p, err);
        wro_scratch_close(&s);
        return rc;
    }
    {
        /* runs of whole segments through the staging buffer; a segment
         * longer than it in pieces of whole team chunks */
        const struct wro_segwalk w = { es, WRO_CH, segs_core_scratch(wro_segrun_cap(st)),
                                       WRO_SCRATCH_SIZE(64 * es) + WRO_SCRATCH_SIZE(2 * sizeof(size_t)), segs_run,
                                       segs_piece };
        struct segs_arg a = { st, k };
        size_t *h;
        if ((rc = wro_host_offsets(st, &bf, nsegments, &h, err)) != WR_SUCCESS) return rc;
        rc = wro_each_segrun(st, &w, &a, &bi, &bo, h ? h : offsets, nsegments, err);
        free(h);
        return rc;
    }
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

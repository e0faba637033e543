/*
 * omp_stage.c -- the chunk planner of the omptarget backend: how an
 * operation walks its buffers when some of them are host memory the device
 * cannot reach (staged through the call's scratch), written once for every
 * operation.
 *
 * wro_each_chunk: items in order (elements, or rows), in chunks of whole
 * multiples of the operation's unit (a pass-1 tile, a scan group), so that
 * a staged call cuts its work where a device-resident call does and gives
 * its bits.  When nothing is staged there is one chunk, the whole array.
 *
 * wro_each_segrun: the segments of a reduction over host-readable offsets,
 * in runs of whole segments that fit the staging buffer; a segment longer
 * than the buffer goes through it in pieces.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_internal.h"

/* 1 when the side is there and staged. */
static int staged(const struct wro_buf *b, size_t item_bytes)
{
    return b != NULL && item_bytes != 0 && !b->direct;
}

/* 1 when in2 is a second buffer to stage (not in itself). */
static int staged2(const struct wro_buf *in, const struct wro_buf *in2, size_t item_bytes)
{
    return staged(in2, item_bytes) && !(in != NULL && in->p == in2->p);
}

size_t wro_plan_items2(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                       const struct wro_buf *in2, const struct wro_buf *out)
{
    size_t per = p->count;
    if (staged(in, p->in_bytes) && per > st->staging / p->in_bytes) per = st->staging / p->in_bytes;
    if (staged(in2, p->in_bytes) && per > st->staging / p->in_bytes) per = st->staging / p->in_bytes;
    if (staged(out, p->out_bytes) && per > st->staging / p->out_bytes) per = st->staging / p->out_bytes;
    if (per < p->count) per = per / p->unit * p->unit;
    return per;
}

size_t wro_plan_items(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                      const struct wro_buf *out)
{
    return wro_plan_items2(st, p, in, NULL, out);
}

size_t wro_plan_scratch2(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                         const struct wro_buf *in2, const struct wro_buf *out)
{
    const size_t per = wro_plan_items2(st, p, in, in2, out);
    const int si = staged(in, p->in_bytes), so = staged(out, p->out_bytes), s2 = staged2(in, in2, p->in_bytes);
    const size_t extra = s2 ? WRO_SCRATCH_SIZE(per * p->in_bytes) : 0;
    if (p->inplace && (si || so)) return WRO_SCRATCH_SIZE(per * p->in_bytes) + extra;
    return (si ? WRO_SCRATCH_SIZE(per * p->in_bytes) : 0) + (so ? WRO_SCRATCH_SIZE(per * p->out_bytes) : 0) + extra;
}

size_t wro_plan_scratch(const struct wro_state *st, const struct wro_plan *p, const struct wro_buf *in,
                        const struct wro_buf *out)
{
    return wro_plan_scratch2(st, p, in, NULL, out);
}

wr_status wro_each_chunk2(struct wro_state *st, struct wro_scratch *s, const struct wro_plan *p,
                          const struct wro_buf *in, const struct wro_buf *in2, const struct wro_buf *out,
                          wro_chunk_fn fn, void *arg, char *err)
{
    const size_t per = wro_plan_items2(st, p, in, in2, out);
    const int si = staged(in, p->in_bytes), so = staged(out, p->out_bytes), s2 = staged2(in, in2, p->in_bytes);
    const int same2 = in2 != NULL && in != NULL && in2->p == in->p;
    char *istage = NULL, *ostage = NULL, *stage2 = NULL;
    size_t off;
    wr_status rc = WR_SUCCESS;

    if (p->count == 0) return WR_SUCCESS;
    if (per == 0) {
        snprintf(err, WR_ERRLEN, "internal error: a chunk holds no item");
        return WR_ERR_NO_MEMORY;
    }
    if (p->inplace && (si || so)) {
        istage = ostage = wro_scratch_take(s, per * p->in_bytes);
        if (istage == NULL) goto small;
    } else {
        if (si && (istage = wro_scratch_take(s, per * p->in_bytes)) == NULL) goto small;
        if (so && (ostage = wro_scratch_take(s, per * p->out_bytes)) == NULL) goto small;
    }
    if (s2 && (stage2 = wro_scratch_take(s, per * p->in_bytes)) == NULL) goto small;
    for (off = 0; off < p->count && rc == WR_SUCCESS; off += per) {
        struct wro_chunk c;
        c.off = off;
        c.len = p->count - off < per ? p->count - off : per;
        c.in = in == NULL || p->in_bytes == 0 ? NULL : si ? istage : in->p + off * p->in_bytes;
        c.out = out == NULL || p->out_bytes == 0 ? NULL : so ? ostage : out->p + off * p->out_bytes;
        c.in2 = in2 == NULL || p->in_bytes == 0 ? NULL : same2 ? c.in : s2 ? stage2 : in2->p + off * p->in_bytes;
        if (si && (rc = wro_copy(st, istage, 1, in->p + off * p->in_bytes, in->on_dev, c.len * p->in_bytes, err))
            != WR_SUCCESS)
            break;
        if (s2 && (rc = wro_copy(st, stage2, 1, in2->p + off * p->in_bytes, in2->on_dev, c.len * p->in_bytes, err))
            != WR_SUCCESS)
            break;
        if ((rc = fn(arg, &c, err)) != WR_SUCCESS) break;
        if (so) rc = wro_copy(st, out->p + off * p->out_bytes, 0, ostage, 1, c.len * p->out_bytes, err);
    }
    return rc;
small:
    snprintf(err, WR_ERRLEN, "internal error: scratch too small");
    return WR_ERR_NO_MEMORY;
}

wr_status wro_each_chunk(struct wro_state *st, struct wro_scratch *s, const struct wro_plan *p,
                         const struct wro_buf *in, const struct wro_buf *out, wro_chunk_fn fn, void *arg, char *err)
{
    return wro_each_chunk2(st, s, p, in, NULL, out, fn, arg, err);
}

/* ---- runs of whole segments --------------------------------------------------- */

/* Segments a run holds at most (their offsets and results live in the
 * call's scratch). */
static size_t segcap(const struct wro_state *st)
{
    return st->staging / 64;
}

static size_t segrun_scratch(const struct wro_state *st, const struct wro_segwalk *w)
{
    const size_t sc = segcap(st);
    return WRO_SCRATCH_SIZE(st->staging) + WRO_SCRATCH_SIZE(sc * w->es) + WRO_SCRATCH_SIZE((sc + 1) * sizeof(size_t)) +
           WRO_SCRATCH_SIZE(w->keep) + w->work;
}

size_t wro_segrun_cap(const struct wro_state *st)
{
    return segcap(st);
}

wr_status wro_each_segrun(struct wro_state *st, const struct wro_segwalk *w, void *arg, const struct wro_buf *bi,
                          const struct wro_buf *bo, const size_t *off, size_t nseg, char *err)
{
    const size_t es = w->es, cap = st->staging / es, sc = segcap(st);
    struct wro_scratch s;
    size_t s0 = 0, *rel;
    wr_status rc;
    char *stage, *ostage, *keep;
    size_t *drel;

    rel = malloc((sc + 1) * sizeof *rel);
    if (rel == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory");
        return WR_ERR_NO_MEMORY;
    }
    rc = wro_scratch_open(st, &s, segrun_scratch(st, w), err);
    if (rc != WR_SUCCESS) {
        free(rel);
        return rc;
    }
    stage = wro_scratch_take(&s, st->staging);
    ostage = wro_scratch_take(&s, sc * es);
    drel = wro_scratch_take(&s, (sc + 1) * sizeof(size_t));
    keep = w->keep ? wro_scratch_take(&s, w->keep) : NULL;
    while (s0 < nseg && rc == WR_SUCCESS) {
        size_t s1 = s0 + 1, i;
        struct wro_scratch one = s;              /* the work area, afresh for every call */
        if (off[s0 + 1] - off[s0] > cap) {
            /* one segment longer than the buffer: pieces of whole units */
            const size_t a = off[s0], len = off[s0 + 1] - a, piece = cap / w->piece_unit * w->piece_unit;
            size_t c0;
            char *res = bo->direct ? bo->p + s0 * es : ostage;
            for (c0 = 0; c0 < len && rc == WR_SUCCESS; c0 += piece) {
                const size_t m = len - c0 < piece ? len - c0 : piece;
                one = s;
                rc = wro_copy(st, stage, 1, bi->p + (a + c0) * es, bi->on_dev, m * es, err);
                if (rc == WR_SUCCESS) rc = w->piece(arg, &one, keep, stage, m, c0 == 0, c0 + m == len, res, err);
            }
            if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, es, err);
            s0++;
            continue;
        }
        while (s1 < nseg && s1 - s0 < sc && off[s1 + 1] - off[s0] <= cap) s1++;
        for (i = s0; i <= s1; i++) rel[i - s0] = off[i] - off[s0];
        rc = wro_copy(st, drel, 1, rel, 0, (s1 - s0 + 1) * sizeof(size_t), err);
        if (rc == WR_SUCCESS)
            rc = wro_copy(st, stage, 1, bi->p + off[s0] * es, bi->on_dev, (off[s1] - off[s0]) * es, err);
        if (rc == WR_SUCCESS)
            rc = w->run(arg, &one, stage, drel, s1 - s0, off[s1] - off[s0], bo->direct ? bo->p + s0 * es : ostage, err);
        if (rc == WR_SUCCESS && !bo->direct) rc = wro_copy(st, bo->p + s0 * es, 0, ostage, 1, (s1 - s0) * es, err);
        s0 = s1;
    }
    wro_scratch_close(&s);
    free(rel);
    return rc;
}

wr_status wro_host_offsets(struct wro_state *st, const struct wro_buf *bf, size_t nseg, size_t **hoff, char *err)
{
    size_t *h;
    wr_status rc;
    *hoff = NULL;
    if (!(bf->on_dev && !st->host)) return WR_SUCCESS;     /* the host reads them where they are */
    h = malloc((nseg + 1) * sizeof *h);
    if (h == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory for %zu offsets", nseg + 1);
        return WR_ERR_NO_MEMORY;
    }
    rc = wro_copy(st, h, 0, bf->p, 1, (nseg + 1) * sizeof *h, err);
    if (rc != WR_SUCCESS) {
        free(h);
        return rc;
    }
    *hoff = h;
    return WR_SUCCESS;
}

/* ---- segment starts as bits ----------------------------------------------------- */

#pragma omp declare target
/* The least k <= n with a[k] >= v (a: n + 1 non-decreasing values). */
static inline size_t wro_lower(const size_t *a, size_t n, size_t v)
{
    size_t lo = 0, hi = n + 1;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
#pragma omp end declare target

wr_status wro_heads_bits(struct wro_state *st, struct wro_heads *h, size_t lo, size_t n, uint64_t *hb, char *err)
{
    const size_t nw = (n + 63) / 64, nseg = h->nseg;
    if (n == 0) return WR_SUCCESS;
    if (h->dev_off) {
        /* a lane a word: the offsets in its 64 elements, by binary search
         * (a run of empty segments is one value: skipped in one search) */
        const size_t *off = h->off;
        const int par = wro_par(st, n);
#pragma omp target teams distribute parallel for simd if(parallel: par) device(st->dev) is_device_ptr(off, hb)
        for (size_t w = 0; w < nw; w++) {
            const size_t a = lo + 64 * w, e = 64 * (w + 1) < n ? a + 64 : lo + n;
            size_t k = wro_lower(off, nseg, a);
            uint64_t word = 0;
            while (k <= nseg && off[k] < e) {
                word |= (uint64_t)1 << (off[k] - a);
                k = wro_lower(off, nseg, off[k] + 1);
            }
            hb[w] = word;
        }
        return WR_SUCCESS;
    }
    /* host offsets: walked once over all the chunks (they come in order) */
    if (h->host == NULL || h->host_words < nw) {
        free(h->host);
        h->host = malloc(nw * sizeof *h->host);
        h->host_words = h->host ? nw : 0;
        if (h->host == NULL) {
            snprintf(err, WR_ERRLEN, "out of host memory for %zu segment starts", n);
            return WR_ERR_NO_MEMORY;
        }
    }
    memset(h->host, 0, nw * sizeof *h->host);
    while (h->cursor <= nseg && h->off[h->cursor] < lo) h->cursor++;
    while (h->cursor <= nseg && h->off[h->cursor] < lo + n) {
        const size_t i = h->off[h->cursor] - lo;
        h->host[i / 64] |= (uint64_t)1 << (i % 64);
        h->cursor++;
    }
    return wro_copy(st, hb, 1, h->host, 0, nw * sizeof *hb, err);
}

void wro_heads_done(struct wro_heads *h)
{
    free(h->host);
    h->host = NULL;
    h->host_words = 0;
}

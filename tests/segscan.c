/*
 * segscan.c -- wr_scan_segments and wr_exscan_segments.
 *
 * Every (type, op), inclusive and exclusive, out of place and in place, on
 * segment shapes that matter: none empty, all empty, many tiny, lengths
 * around the one-thread limit (4096) and far beyond it, one long among
 * short, offsets[0] > 0.  Each segment's outputs are checked against the
 * independent reference of tu_check_scan on that segment alone (exact data
 * bit for bit, rounded floats within DESIGN.md's bounds); elements outside
 * [offsets[0], offsets[nsegments]) must keep their poison.  The same call
 * gives the same bits with 1, 2, 3 and 7 threads.
 *
 * Reproducible mode (float/double SUM): every output is the exact prefix
 * inside its segment rounded once -- the bits of the MPFR reference
 * (exact_ref.c) -- on data with cancellation, every binade, subnormals,
 * infinities and NaNs; the same bits with every thread count.
 *
 * Then the arguments: decreasing offsets, NULL offsets, out overlapping in
 * other than exactly, misaligned buffers, types and ops, nsegments 0.
 *
 * WARPRED_BACKEND picks another backend to run the same checks on.
 */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif
#include "exact_ref.h"
#include "testutil.h"

static wr_context *ctx;
static tu_rng rng;
static const int thread_counts[] = { 1, 2, 3, 7 };
#define NTC ((int)(sizeof thread_counts / sizeof thread_counts[0]))

static void set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* A segment layout: nseg segments from offsets[0] = lead, lengths drawn
 * from [lo, hi] (one segment of length `big` at position `at` if big). */
static size_t layout(size_t *off, size_t nseg, size_t lead, size_t lo, size_t hi, size_t big, size_t at)
{
    size_t s;
    off[0] = lead;
    for (s = 0; s < nseg; s++)
        off[s + 1] = off[s] + (big && s == at ? big : lo + (size_t)tu_below(&rng, hi - lo + 1));
    return off[nseg];
}

struct shape {
    const char *name;
    size_t nseg, lead, lo, hi, big, at;
};

static const struct shape shapes[] = {
    { "one segment", 1, 0, 1000, 1000, 0, 0 },
    { "all empty", 50, 3, 0, 0, 0, 0 },
    { "many tiny, some empty", 3000, 5, 0, 6, 0, 0 },
    { "around the one-thread limit", 40, 0, 4090, 4100, 0, 0 },
    { "one long among short", 400, 7, 0, 40, 200003, 150 },
    { "long ones", 3, 1, 65537, 70000, 0, 0 },
    { "mean 1024", 300, 0, 0, 2048, 0, 0 },
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* Each segment of out (a scan of in) against the reference; the poison
 * outside the segments' range. */
static int check(const char *in, const char *out, const size_t *off, size_t nseg, size_t total, wr_type t, wr_op op,
                 int exclusive, int bounded, char *why, size_t len)
{
    const size_t es = tu_size(t);
    size_t s;
    if (!tu_poisoned(out, off[0] * es) || !tu_poisoned(out + off[nseg] * es, (total - off[nseg]) * es)) {
        snprintf(why, len, "an element outside [offsets[0], offsets[nsegments]) was written");
        return 0;
    }
    for (s = 0; s < nseg; s++) {
        const size_t a = off[s], n = off[s + 1] - a;
        char w[300];
        if (n && !tu_check_scan(in + a * es, out + a * es, n, t, op, exclusive, bounded, w, sizeof w)) {
            snprintf(why, len, "segment %zu [%zu, %zu): %s", s, a, a + n, w);
            return 0;
        }
    }
    return 1;
}

static void fast(void)
{
    static const size_t guard = 37;
    wr_type t;
    wr_op op;
    int k;
    for (k = 0; k < NSHAPES; k++) {
        const struct shape *sh = &shapes[k];
        size_t *off = tu_xmalloc((sh->nseg + 1) * sizeof *off);
        const size_t end = layout(off, sh->nseg, sh->lead, sh->lo, sh->hi, sh->big, sh->at), total = end + guard;
        char *in = tu_xmalloc(total * 8 + 8), *out = tu_xmalloc(total * 8 + 8), *ref = tu_xmalloc(total * 8 + 8);
        size_t longest = 1, s;
        tu_tally tl;
        tu_tally_init(&tl);
        /* (exact data stays exact, and in range, over a whole segment) */
        for (s = 0; s < sh->nseg; s++)
            if (off[s + 1] - off[s] > longest) longest = off[s + 1] - off[s];
        TU_FOR_PAIRS(t, op) {
            const size_t es = tu_size(t);
            enum tu_kind kind;
            for (kind = TU_EXACT; kind <= TU_ROUNDED; kind++) {
                int ex;
                if (!tu_kind_applies(t, op, kind)) continue;
                tu_fill(&rng, in, total, t, op, kind, longest);
                for (ex = 0; ex < 2; ex++) {
                    wr_status (*fn)(wr_context *, const void *, void *, size_t, const size_t *, wr_type, wr_op) =
                        ex ? wr_exscan_segments : wr_scan_segments;
                    char why[400];
                    int tc;
                    wr_status st;
                    /* out of place, with every thread count: the same bits */
                    for (tc = 0; tc < NTC; tc++) {
                        set_threads(thread_counts[tc]);
                        tu_poison(out, total * es);
                        st = fn(ctx, in, out, sh->nseg, off, t, op);
                        if (!tu_expect(&tl, st == WR_SUCCESS, "%s %s %s %s: %s: %s", sh->name, tu_type_name(t),
                                       tu_op_name(op), ex ? "exscan" : "scan", wr_status_string(st),
                                       wr_context_error(ctx)))
                            break;
                        if (tc == 0) {
                            tu_expect(&tl, check(in, out, off, sh->nseg, total, t, op, ex, kind == TU_ROUNDED, why,
                                                 sizeof why),
                                      "%s %s %s %s (%s data): %s", sh->name, tu_type_name(t), tu_op_name(op),
                                      ex ? "exscan" : "scan", tu_kind_name(kind), why);
                            memcpy(ref, out, total * es);
                        } else {
                            tu_expect(&tl, memcmp(ref, out, total * es) == 0,
                                      "%s %s %s %s: %d threads give other bits than 1", sh->name, tu_type_name(t),
                                      tu_op_name(op), ex ? "exscan" : "scan", thread_counts[tc]);
                        }
                    }
                    set_threads(thread_counts[NTC - 1]);
                    /* in place: the bits of out of place */
                    memcpy(out, in, total * es);
                    st = fn(ctx, out, out, sh->nseg, off, t, op);
                    tu_expect(&tl,
                              st == WR_SUCCESS && memcmp(out + off[0] * es, ref + off[0] * es,
                                                         (end - off[0]) * es) == 0 &&
                                  memcmp(out, in, off[0] * es) == 0 && memcmp(out + end * es, in + end * es,
                                                                              guard * es) == 0,
                              "%s %s %s %s in place: the bits of out of place, nothing else touched (%s)",
                              sh->name, tu_type_name(t), tu_op_name(op), ex ? "exscan" : "scan",
                              wr_context_error(ctx));
                }
            }
        }
        tu_report(&tl, "scan_segments / exscan_segments, %s (%zu segments, %zu elements): every type and op, "
                       "in and out of place, 1/2/3/7 threads", sh->name, sh->nseg, end - off[0]);
        free(off);
        free(in);
        free(out);
        free(ref);
    }
}

/* Reproducible float/double SUM: every output is the MPFR-rounded exact
 * prefix inside its segment, the same with every thread count. */
static void reproducible(void)
{
    wr_type t;
    int k;
    if (wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE) != WR_SUCCESS) bail("set_float_mode");
    for (t = WR_FLOAT; t <= WR_DOUBLE; t++) {
        const size_t es = tu_size(t);
        for (k = 0; k < NSHAPES; k++) {
            const struct shape *sh = &shapes[k];
            size_t *off = tu_xmalloc((sh->nseg + 1) * sizeof *off), i, s;
            const size_t end = layout(off, sh->nseg, sh->lead, sh->lo, sh->hi, sh->big, sh->at);
            char *in = tu_xmalloc(end * 8 + 8), *out = tu_xmalloc(end * 8 + 8), *ref = tu_xmalloc(end * 8 + 8),
                 *first = tu_xmalloc(end * 8 + 8);
            tu_tally tl;
            int ex, tc;
            const int emax = t == WR_FLOAT ? 127 : 1023, emin = t == WR_FLOAT ? -149 : -1074;
            tu_tally_init(&tl);
            /* every binade, subnormals, cancellation; a few infinities and NaNs */
            for (i = 0; i < end; i++) {
                double v = ldexp(tu_unit(&rng) + 0.5, (int)tu_below(&rng, (uint64_t)(emax - emin)) + emin);
                if (t == WR_FLOAT && !((float)v < INFINITY)) v = 1.0;
                if (tu_below(&rng, 2)) v = -v;
                if (i > 0 && tu_below(&rng, 4) == 0) v = -tu_get_f(in, t, i - 1);
                if (tu_below(&rng, 5000) == 0) v = tu_below(&rng, 2) ? INFINITY : NAN;
                tu_set_f(in, t, i, v);
            }
            for (ex = 0; ex < 2; ex++) {
                wr_status (*fn)(wr_context *, const void *, void *, size_t, const size_t *, wr_type, wr_op) =
                    ex ? wr_exscan_segments : wr_scan_segments;
                /* the reference: the exact prefix of each segment, rounded once */
                for (s = 0; s < sh->nseg; s++) {
                    tx_acc a;
                    tx_init(&a);
                    for (i = off[s]; i < off[s + 1]; i++) {
                        if (ex) tx_result(&a, t, ref + i * es);
                        tx_add_f(&a, in, t, i);
                        if (!ex) tx_result(&a, t, ref + i * es);
                    }
                }
                for (tc = 0; tc < NTC; tc++) {
                    wr_status st;
                    set_threads(thread_counts[tc]);
                    st = fn(ctx, in, out, sh->nseg, off, t, WR_SUM);
                    if (!tu_expect(&tl, st == WR_SUCCESS, "%s: %s", wr_status_string(st), wr_context_error(ctx)))
                        break;
                    if (tc == 0) memcpy(first, out, end * es);
                    else
                        tu_expect(&tl, memcmp(first + off[0] * es, out + off[0] * es, (end - off[0]) * es) == 0,
                                  "%s %s %s: %d threads give other bits", sh->name, tu_type_name(t),
                                  ex ? "exscan" : "scan", thread_counts[tc]);
                }
                if (have_ref())
                    for (i = off[0]; i < end; i++)
                        if (!tu_same(out + i * es, ref + i * es, t)) {
                            char a[96], b[96];
                            tu_expect(&tl, 0, "%s %s %s: output %zu is %s, the correctly rounded prefix %s",
                                      sh->name, tu_type_name(t), ex ? "exscan" : "scan", i,
                                      tu_fmt_bits(out + i * es, t, a, sizeof a), tu_fmt_bits(ref + i * es, t, b, sizeof b));
                            break;
                        }
            }
            tu_report(&tl, "reproducible %s scan_segments / exscan_segments, %s: %s, 1/2/3/7 threads the same bits",
                      tu_type_name(t), sh->name,
                      have_ref() ? "every output the MPFR-rounded exact prefix" : "(no MPFR: agreement only)");
            free(off);
            free(in);
            free(out);
            free(ref);
            free(first);
        }
    }
    wr_context_set_float_mode(ctx, WR_FLOAT_FAST);
    set_threads(thread_counts[NTC - 1]);
}

static void arguments(void)
{
    _Alignas(16) int32_t in[64], out[64];
    size_t off[4] = { 0, 10, 5, 20 }, good[4] = { 0, 10, 15, 20 }, i;
    wr_status st;
    for (i = 0; i < 64; i++) in[i] = (int32_t)i;
    tu_poison(out, sizeof out);
    st = wr_scan_segments(ctx, in, out, 3, off, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(ctx), "decrease") && tu_poisoned(out, sizeof out),
       "decreasing offsets: INVALID_ARG, out untouched: \"%s\"", wr_context_error(ctx));
    st = wr_scan_segments(ctx, in, out, 3, NULL, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(ctx), "offsets"), "NULL offsets: INVALID_ARG: \"%s\"",
       wr_context_error(ctx));
    st = wr_exscan_segments(ctx, in, in + 1, 3, good, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(ctx), "overlap"),
       "out overlapping in other than exactly: INVALID_ARG: \"%s\"", wr_context_error(ctx));
    st = wr_scan_segments(ctx, (const char *)in + 2, out, 3, good, WR_INT32, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG && tu_mentions(wr_context_error(ctx), "aligned"), "misaligned in: INVALID_ARG: \"%s\"",
       wr_context_error(ctx));
    st = wr_scan_segments(ctx, in, out, 3, good, WR_FLOAT, WR_BAND);
    ok(st == WR_ERR_UNSUPPORTED, "BAND on floats: UNSUPPORTED: \"%s\"", wr_context_error(ctx));
    st = wr_scan_segments(ctx, in, out, 3, good, (wr_type)17, WR_SUM);
    ok(st == WR_ERR_INVALID_ARG, "type 17: INVALID_ARG: \"%s\"", wr_context_error(ctx));
    tu_poison(out, sizeof out);
    st = wr_exscan_segments(ctx, NULL, NULL, 0, NULL, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS, "nsegments 0, everything NULL: SUCCESS (%s)", wr_context_error(ctx));
    /* in place, offsets[0] > 0: only the segments' range changes */
    memcpy(out, in, sizeof in);
    good[0] = 3;
    st = wr_exscan_segments(ctx, out, out, 3, good, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out[2] == 2 && out[3] == 0 && out[4] == 3 && out[10] == 0 && out[11] == 10 &&
           out[15] == 0 && out[19] == 15 + 16 + 17 + 18 && out[20] == 20,
       "exscan in place from offsets[0] = 3: the identity at each segment's start, nothing else touched");
}

int main(void)
{
    plan_lazy();
    tu_rng_seed(&rng, tu_seed());
    ctx = tu_context(WR_BACKEND_AUTO);
    diag("%s", wr_context_describe(ctx));
    fast();
    reproducible();
    arguments();
    wr_context_destroy(ctx);
    return 0;
}

/*
 * cpu_scan.c -- inclusive and exclusive scans on the host.
 *
 * Output i is base(block of i) op scan-inside-the-block(i), blocks of
 * WRC_SCAN_BLOCK elements:
 *   - the scan inside a block is one sequential chain in the element type,
 *     started from the identity (for float SUM, from the low part of the
 *     base, see below);
 *   - the base of block j is the total of blocks 0..j-1, carried block by
 *     block in a fixed order: in the element type for integers (exact,
 *     wrapping), in double for floats, and for float SUM as an unevaluated
 *     sum hi + lo kept by TwoSum (Knuth, TAOCP vol. 2, 4.2.2), so that the
 *     bases of a 2^30-element float or double scan are as good as the
 *     format allows.  A float SUM block then starts its chain from the part
 *     of the base that the element type cannot hold, and adds the rest when
 *     writing: out = hi + (lo + x0 + x1 + ...).
 * Block totals come from the reduce block kernel, so every output is a fixed
 * function of the input and the count, whatever the number of threads.
 *
 * Parallel form (a "reduce-then-scan" in rounds, as in Merrill and
 * Garland's single-pass scan, made cache-sized for the CPU): each round, every
 * thread takes the next run of blocks (about WRC_SCAN_ROUND_BYTES), sums its
 * blocks while reading them from memory, meets the others at one barrier,
 * computes the carry through all blocks of the round (a few hundred steps:
 * cheaper than a second barrier), and scans its run again while it is still
 * in its L2, WRC_SCAN_WAYS blocks side by side so that the dependency
 * chains overlap.  The input is read from memory once and the output written
 * once, with streaming stores when it is larger than the caches.
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#include "cpu_internal.h"

/* The running total before a block. */
struct wrc_carry {
    union wrc_val v;      /* integers: the total */
    double hi, lo;        /* floats: the total is hi + lo (lo only for SUM) */
};

struct wrc_scan {
    size_t size;
    /* the carry before element 0 (the identity) */
    void (*start)(struct wrc_carry *c);
    /* for j in [0, n): bases[j] = *c (when bases != NULL); *c = *c op t[j] */
    void (*advance)(struct wrc_carry *c, const union wrc_val *t, size_t n, struct wrc_carry *bases);
    /* scan nblk <= WRC_SCAN_WAYS consecutive blocks, full but the last (of
     * len_last elements), block w starting from bases[w]; streaming
     * stores when stream */
    void (*tile)(const void *in, void *out, size_t nblk, size_t len_last, const struct wrc_carry *bases,
                 int exclusive, int stream);
};

/* Elements of one way staged per step before streaming them out. */
#define WRC_SCAN_SLICE 128
/* Most blocks a thread takes per round (the smallest type has 4 bytes). */
#define WRC_SCAN_RUN_MAX (WRC_SCAN_ROUND_BYTES / (WRC_SCAN_BLOCK * 4))

/* Copy bytes (whole elements) to dst with non-temporal stores where dst is
 * 16-byte aligned; the caller fences (wrc_stream_fence) before its results
 * are read by anyone. */
static void wrc_stream_copy(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    char *d = (char *)dst;
    const char *s = (const char *)src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    d += head;
    s += head;
    bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    for (; bytes >= 16; bytes -= 16, d += 16, s += 16)
        _mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
    memcpy(d, s, bytes);
#else
    memcpy(dst, src, bytes);
#endif
}

static void wrc_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* a op b for the double carry of a float scan (op is a constant where this
 * is inlined; the bitwise ops never reach here). */
static inline double wrc_dop(wr_op op, double a, double b)
{
    switch (op) {
    case WR_SUM:  return a + b;
    case WR_PROD: return a * b;
    case WR_MIN:  return wr_min_f64(a, b);
    case WR_MAX:  return wr_max_f64(a, b);
    default:      return a;
    }
}

#define WRC_DEF_SCAN(sfx, T, U, E, K, op, OE)                                    \
    static void wrc_sstart_##sfx##_##op(struct wrc_carry *c)                     \
    {                                                                            \
        c->v.sfx = wr_ident_##op##_##sfx();                                      \
        c->hi = (double)wr_ident_##op##_##sfx();                                 \
        c->lo = 0;                                                               \
    }                                                                            \
    static void wrc_sadv_##sfx##_##op(struct wrc_carry *c, const union wrc_val *t, \
                                      size_t n, struct wrc_carry *bases)         \
    {                                                                            \
        size_t j;                                                                \
        for (j = 0; j < n; j++) {                                                \
            if (bases != NULL) bases[j] = *c;                                    \
            if (!WRC_IS_FLOAT(T)) {                                              \
                c->v.sfx = wr_##op##_##sfx(c->v.sfx, t[j].sfx);                  \
            } else if (OE == WR_SUM) {  /* TwoSum: hi + lo gains t exactly */    \
                double a = c->hi, b = (double)t[j].sfx, s = a + b, bb = s - a;   \
                c->lo += (a - (s - bb)) + (b - bb);                              \
                c->hi = s;                                                       \
            } else {                                                             \
                c->hi = wrc_dop(OE, c->hi, (double)t[j].sfx);                    \
            }                                                                    \
        }                                                                        \
    }                                                                            \
    /* the block's base as written (hi) and where its chain starts */            \
    static inline void wrc_sbase_##sfx##_##op(const struct wrc_carry *c, T *hi, T *start) \
    {                                                                            \
        *start = wr_ident_##op##_##sfx();                                        \
        if (!WRC_IS_FLOAT(T)) {                                                  \
            *hi = c->v.sfx;                                                      \
        } else {                                                                 \
            *hi = (T)c->hi;                                                      \
            if (OE == WR_SUM && isfinite((double)*hi))                                 \
                *start = (T)((c->hi - (double)*hi) + c->lo);                     \
        }                                                                        \
    }                                                                            \
    /* n steps of ways blocks side by side (ways a constant where inlined): */   \
    /* block w reads in[w * S + k] and writes dst[w * dstride + k] */            \
    static inline void wrc_srun_##sfx##_##op(const T *in, T *dst, size_t dstride, \
                                             const T *hi, T *acc, size_t ways,   \
                                             size_t n, int exclusive)            \
    {                                                                            \
        size_t k, w;                                                             \
        for (k = 0; k < n; k++) {                                                \
            WRC_UNROLL                                                           \
            for (w = 0; w < ways; w++) {                                         \
                T x = in[w * WRC_SCAN_BLOCK + k];                                \
                if (exclusive) {                                                 \
                    dst[w * dstride + k] = wr_##op##_##sfx(hi[w], acc[w]);       \
                    acc[w] = wr_##op##_##sfx(acc[w], x);                         \
                } else {                                                         \
                    acc[w] = wr_##op##_##sfx(acc[w], x);                         \
                    dst[w * dstride + k] = wr_##op##_##sfx(hi[w], acc[w]);       \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }                                                                            \
    static void wrc_stile_##sfx##_##op(const void *vin, void *vout, size_t nblk,  \
                                       size_t len_last, const struct wrc_carry *bases, \
                                       int exclusive, int stream)                \
    {                                                                            \
        enum { W = WRC_SCAN_WAYS, S = WRC_SCAN_BLOCK, SL = WRC_SCAN_SLICE };     \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        T hi[W], acc[W], stage[W * SL];                                          \
        size_t w, k0;                                                            \
        for (w = 0; w < nblk; w++) wrc_sbase_##sfx##_##op(&bases[w], &hi[w], &acc[w]); \
        if (nblk == W && len_last == S) {                                        \
            for (k0 = 0; k0 < S; k0 += SL) {                                     \
                T *dst = stream ? stage : out + k0;                              \
                size_t ds = stream ? SL : S;                                     \
                if (exclusive) wrc_srun_##sfx##_##op(in + k0, dst, ds, hi, acc, W, SL, 1); \
                else           wrc_srun_##sfx##_##op(in + k0, dst, ds, hi, acc, W, SL, 0); \
                if (stream)                                                      \
                    for (w = 0; w < W; w++)                                      \
                        wrc_stream_copy(out + w * S + k0, stage + w * SL, SL * sizeof(T)); \
            }                                                                    \
        } else {                 /* the end of the array: one block at a time */ \
            for (w = 0; w < nblk; w++) {                                         \
                size_t len = w + 1 == nblk ? len_last : S;                       \
                wrc_srun_##sfx##_##op(in + w * S, out + w * S, 0, hi + w, acc + w, 1, len, exclusive); \
            }                                                                    \
        }                                                                        \
    }
#define WRC_PAIR WRC_DEF_SCAN
WRC_PAIRS
#undef WRC_PAIR

#define WRC_SCAN_ENTRY(sfx, T, U, E, K, op, OE)                                  \
    [E][OE] = { sizeof(T), wrc_sstart_##sfx##_##op, wrc_sadv_##sfx##_##op, \
                wrc_stile_##sfx##_##op },
static const struct wrc_scan wrc_scan_tab[WRC_NTYPES][WRC_NOPS] = {
#define WRC_PAIR WRC_SCAN_ENTRY
    WRC_PAIRS
#undef WRC_PAIR
};
#undef WRC_SCAN_ENTRY

/* Totals of blocks [b0, b1) into t[0..b1-b0), by the reduce block kernel. */
static void block_totals(const struct wrc_red *red, const char *in, size_t count, size_t b0, size_t b1,
                         union wrc_val *t)
{
    size_t b;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRC_SCAN_BLOCK, len = count - i < WRC_SCAN_BLOCK ? count - i : WRC_SCAN_BLOCK;
        red->block(in + i * red->size, len, &t[b - b0]);
    }
}

/* Scan blocks [b0, b1) with their bases, WRC_SCAN_WAYS at a time. */
static void scan_blocks(const struct wrc_scan *k, const char *in, char *out, size_t count, size_t b0,
                        size_t b1, const struct wrc_carry *bases, int exclusive, int stream)
{
    size_t nb = (count + WRC_SCAN_BLOCK - 1) / WRC_SCAN_BLOCK, b;
    for (b = b0; b < b1; b += WRC_SCAN_WAYS) {
        size_t nblk = b1 - b < WRC_SCAN_WAYS ? b1 - b : WRC_SCAN_WAYS;
        size_t len_last = b + nblk == nb ? count - (nb - 1) * WRC_SCAN_BLOCK : WRC_SCAN_BLOCK;
        size_t off = b * WRC_SCAN_BLOCK * k->size;
        k->tile(in + off, out + off, nblk, len_last, bases + (b - b0), exclusive, stream);
    }
}

wr_status wrc_scan(const void *in, void *out, size_t count, wr_type type, wr_op op, int exclusive,
                   char *err)
{
    const struct wrc_scan *k = &wrc_scan_tab[type][op];
    const struct wrc_red *red = wrc_red_kernels(type, op);
    const char *x = (const char *)in;
    char *y = (char *)out;
    size_t nb = (count + WRC_SCAN_BLOCK - 1) / WRC_SCAN_BLOCK;
    size_t run = WRC_SCAN_ROUND_BYTES / (WRC_SCAN_BLOCK * k->size);   /* blocks per thread per round */
    int stream = count * k->size >= WRC_STREAM_MIN_BYTES;
    int nt = wrc_max_threads();

    if (nt > 1 && nb > (size_t)nt && count >= 4 * WRC_PAR_MIN) {
        union wrc_val *tot;
        /* fewer blocks per round when the array is small, so every thread works */
        size_t even = (nb + (size_t)nt - 1) / (size_t)nt;
        even = (even + WRC_SCAN_WAYS - 1) / WRC_SCAN_WAYS * WRC_SCAN_WAYS;
        if (even < run) run = even;
        tot = (union wrc_val *)malloc(2 * (size_t)nt * run * sizeof *tot);
        if (tot == NULL) {
            snprintf(err, WR_ERRLEN, "out of memory for %d threads' block totals", nt);
            return WR_ERR_NO_MEMORY;
        }
        WRC_PRAGMA(omp parallel num_threads(nt))
        {
#ifdef _OPENMP
            size_t team = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
#else
            size_t team = 1, me = 0;
#endif
            struct wrc_carry carry, bases[WRC_SCAN_RUN_MAX];
            size_t per_round = team * run, rounds = (nb + per_round - 1) / per_round, r;
            k->start(&carry);
            for (r = 0; r < rounds; r++) {
                union wrc_val *t = tot + (r & 1) * (size_t)nt * run;
                size_t rb = r * per_round, re = rb + per_round < nb ? rb + per_round : nb;
                size_t b0 = rb + me * run < re ? rb + me * run : re;
                size_t b1 = b0 + run < re ? b0 + run : re;
                block_totals(red, x, count, b0, b1, t + (b0 - rb));
                /* totals of this round are read after the barrier; those of
                 * the next round go to the other half of tot, which nobody
                 * reads any more once everybody has passed this barrier */
                WRC_PRAGMA(omp barrier)
                k->advance(&carry, t, b0 - rb, NULL);
                k->advance(&carry, t + (b0 - rb), b1 - b0, bases);
                k->advance(&carry, t + (b1 - rb), re - b1, NULL);
                scan_blocks(k, x, y, count, b0, b1, bases, exclusive, stream);
            }
            if (stream) wrc_stream_fence();
        }
        free(tot);
    } else {
        /* the same computation, one tile at a time */
        union wrc_val t[WRC_SCAN_WAYS];
        struct wrc_carry carry, bases[WRC_SCAN_WAYS];
        size_t b;
        k->start(&carry);
        for (b = 0; b < nb; b += WRC_SCAN_WAYS) {
            size_t b1 = b + WRC_SCAN_WAYS < nb ? b + WRC_SCAN_WAYS : nb;
            block_totals(red, x, count, b, b1, t);
            k->advance(&carry, t, b1 - b, bases);
            scan_blocks(k, x, y, count, b, b1, bases, exclusive, stream);
        }
        if (stream) wrc_stream_fence();
    }
    return WR_SUCCESS;
}

/*
 * cpu_scan.c -- inclusive and exclusive scans on the host.
 *
 * Output i is base(block of i) op scan-inside-the-block(i), blocks of
 * WRCPU_SCAN_BLOCK elements:
 *   - the scan inside a block runs in the element type from the neutral
 *     value: one sequential chain in the generic kernel; for SUM on x86-64,
 *     a prefix per SSE2 register plus a chain from register to register;
 *   - the base of block j is the total of blocks 0..j-1, carried block by
 *     block in a fixed order: in the element type for integers (exact,
 *     wrapping), in double for floats, and for float SUM as an unevaluated
 *     sum hi + lo kept by TwoSum (Knuth, TAOCP vol. 2, 4.2.2), so that the
 *     bases of a 2^30-element float or double scan are as good as the
 *     format allows.  A float SUM block starts its chain from the part of
 *     the base that the element type cannot hold, and adds the rest when
 *     writing: out = hi + (lo + x0 + x1 + ...).
 * Block totals come from the reduce block kernel, so every output is a fixed
 * function of the input and the count, whatever the number of threads.
 *
 * The array is processed in runs of about WRCPU_SCAN_ROUND_BYTES (see
 * wrcpu_scan): a run is read from memory once to sum its blocks, then scanned
 * again while it is still in L2, several blocks side by side so that their
 * dependency chains overlap, while the next run is prefetched.  The output is
 * written once, with streaming stores when it is larger than the caches.
 * Threads take runs in order and hand the carry from one run to the next.
 */
#include <config.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#include "cpu_internal.h"

WRCPU_TARGET_BEGIN                 /* this variant's instruction set, to the end */

/* The running total before a block. */
struct wrcpu_carry {
    union wrcpu_val v;      /* integers: the total */
    double hi, lo;        /* floats: the total is hi + lo (lo only for SUM) */
};

struct wrcpu_scan {
    size_t size;
    /* the carry before element 0 (the identity) */
    void (*start)(struct wrcpu_carry *c);
    /* for j in [0, n): bases[j] = *c (when bases != NULL); *c = *c op t[j] */
    void (*advance)(struct wrcpu_carry *c, const union wrcpu_val *t, size_t n, struct wrcpu_carry *bases);
    /* scan nblk <= WRCPU_SCAN_RUN_MAX consecutive blocks, full but the last
     * (of len_last elements), block w starting from bases[w]; streaming
     * stores when stream; pf: as many input bytes as this call reads, to
     * prefetch at the pace it reads its own (NULL: none) */
    void (*tile)(const void *in, void *out, size_t nblk, size_t len_last, const struct wrcpu_carry *bases,
                 int exclusive, int stream, const char *pf);
};

/* Bytes of scanned blocks the SSE2 kernel stages in L1 before streaming them
 * out (whole blocks: 4 of float, 2 of double). */
#define WRCPU_SCAN_STAGE 16384
/* Most blocks a thread takes per round (the smallest type has 4 bytes). */
#define WRCPU_SCAN_RUN_MAX (WRCPU_SCAN_ROUND_BYTES / (WRCPU_SCAN_BLOCK * 4))

/* Copy bytes (whole elements) to dst with non-temporal stores where dst is
 * 16-byte aligned; the caller fences (wrcpu_stream_fence) before its results
 * are read by anyone. */
#if defined(__SSE2__)
static void wrcpu_stream_copy(void *dst, const void *src, size_t bytes)
{
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
}
#endif

static void wrcpu_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* a op b for the double carry of a float scan (op is a constant where this
 * is inlined; the bitwise ops never reach here). */
static inline double wrcpu_dop(wr_op op, double a, double b)
{
    switch (op) {
    case WR_SUM:  return a + b;
    case WR_PROD: return a * b;
    case WR_MIN:  return wr_min_f64(a, b);
    case WR_MAX:  return wr_max_f64(a, b);
    default:      return a;
    }
}

#define WRCPU_DEF_SCAN(sfx, T, U, E, K, op, OE)                                    \
    static void wrcpu_sstart_##sfx##_##op(struct wrcpu_carry *c)                     \
    {                                                                            \
        c->v.sfx = wr_ident_##op##_##sfx();                                      \
        c->hi = (double)WRCPU_NEUTRAL(T, OE, wr_ident_##op##_##sfx());             \
        c->lo = 0;                                                               \
    }                                                                            \
    static void wrcpu_sadv_##sfx##_##op(struct wrcpu_carry *c, const union wrcpu_val *t, \
                                      size_t n, struct wrcpu_carry *bases)         \
    {                                                                            \
        size_t j;                                                                \
        for (j = 0; j < n; j++) {                                                \
            if (bases != NULL) bases[j] = *c;                                    \
            if (!WRCPU_IS_FLOAT(T)) {                                              \
                c->v.sfx = wr_##op##_##sfx(c->v.sfx, t[j].sfx);                  \
            } else if (OE == WR_SUM) {  /* TwoSum: hi + lo gains t exactly */    \
                double a = c->hi, b = (double)t[j].sfx, s = a + b, bb = s - a;   \
                c->lo += (a - (s - bb)) + (b - bb);                              \
                c->hi = s;                                                       \
            } else {                                                             \
                c->hi = wrcpu_dop(OE, c->hi, (double)t[j].sfx);                    \
            }                                                                    \
        }                                                                        \
    }                                                                            \
    /* the block's base as written (hi) and where its chain starts */            \
    static inline void wrcpu_sbase_##sfx##_##op(const struct wrcpu_carry *c, T *hi, T *start) \
    {                                                                            \
        *start = WRCPU_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                    \
        if (!WRCPU_IS_FLOAT(T)) {                                                  \
            *hi = c->v.sfx;                                                      \
        } else {                                                                 \
            *hi = (T)c->hi;                                                      \
            if (OE == WR_SUM && isfinite((double)*hi)) {                         \
                double r = (c->hi - (double)*hi) + c->lo;                        \
                if (r != 0) *start = (T)r;          /* else keep -0 */           \
            }                                                                    \
        }                                                                        \
    }                                                                            \
    /* n steps of ways blocks side by side (ways a constant where inlined): */   \
    /* block w reads in[w * S + k] and writes out[w * S + k] */                  \
    static inline void wrcpu_srun_##sfx##_##op(const T *in, T *out, const T *hi,   \
                                             T *acc, size_t ways, size_t n,      \
                                             int exclusive, const char *pf)      \
    {                                                                            \
        size_t k, w;                                                             \
        for (k = 0; k < n; k++) {                                                \
            if (pf != NULL) WRCPU_PREFETCH(pf + k * ways * sizeof(T));             \
            WRCPU_UNROLL                                                           \
            for (w = 0; w < ways; w++) {                                         \
                T x = in[w * WRCPU_SCAN_BLOCK + k];                                \
                if (exclusive) {                                                 \
                    out[w * WRCPU_SCAN_BLOCK + k] = wr_##op##_##sfx(hi[w], acc[w]); \
                    acc[w] = wr_##op##_##sfx(acc[w], x);                         \
                } else {                                                         \
                    acc[w] = wr_##op##_##sfx(acc[w], x);                         \
                    out[w * WRCPU_SCAN_BLOCK + k] = wr_##op##_##sfx(hi[w], acc[w]); \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }                                                                            \
    /* scalar chains, compute-bound: plain stores (stream is not used) */      \
    static void wrcpu_stile_##sfx##_##op(const void *vin, void *vout, size_t nblk,  \
                                       size_t len_last, const struct wrcpu_carry *bases, \
                                       int exclusive, int stream, const char *pf) \
    {                                                                            \
        enum { W = WRCPU_SCAN_WAYS, S = WRCPU_SCAN_BLOCK };                          \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        T hi[W], acc[W];                                                         \
        size_t g, w;                                                             \
        (void)stream;                                                            \
        for (g = 0; g < nblk; g += W) {         /* W blocks side by side */      \
            size_t nw = nblk - g < W ? nblk - g : W;                             \
            const char *p = pf ? pf + g * S * sizeof(T) : NULL;                  \
            for (w = 0; w < nw; w++) wrcpu_sbase_##sfx##_##op(&bases[g + w], &hi[w], &acc[w]); \
            if (nw == W && (g + W < nblk || len_last == S)) {                    \
                if (exclusive) wrcpu_srun_##sfx##_##op(in + g * S, out + g * S, hi, acc, W, S, 1, p); \
                else           wrcpu_srun_##sfx##_##op(in + g * S, out + g * S, hi, acc, W, S, 0, p); \
            } else {             /* the end of the array: one block at a time */ \
                for (w = 0; w < nw; w++) {                                       \
                    size_t len = g + w + 1 == nblk ? len_last : S;               \
                    wrcpu_srun_##sfx##_##op(in + (g + w) * S, out + (g + w) * S, hi + w, acc + w, 1, \
                                          len, exclusive, NULL);                 \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }
#define WRCPU_PAIR WRCPU_DEF_SCAN
WRCPU_PAIRS
#undef WRCPU_PAIR

#define WRCPU_SCAN_ENTRY(sfx, T, U, E, K, op, OE)                                  \
    [E][OE] = { sizeof(T), wrcpu_sstart_##sfx##_##op, wrcpu_sadv_##sfx##_##op, \
                wrcpu_stile_##sfx##_##op },
static const struct wrcpu_scan wrcpu_scan_tab[WRCPU_NTYPES][WRCPU_NOPS] = {
#define WRCPU_PAIR WRCPU_SCAN_ENTRY
    WRCPU_PAIRS
#undef WRCPU_PAIR
};
#undef WRCPU_SCAN_ENTRY

#if defined(__SSE2__)
/*
 * SUM on x86-64: the scan inside a block in SSE2 registers.  Each vector of
 * 16 bytes gets its own prefix by shift-and-add (Hillis and Steele inside
 * the register: log2(lanes) steps), then the running total of the block is
 * added; the new running total is the last lane (a shuffle).  The chain
 * from one vector to the next is one add and one shuffle, and four blocks go
 * side by side, so the scan runs near the speed of its loads and stores.
 * Lanes shifted in hold the neutral (-0 for floats), so a scan of -0s stays
 * -0.  Same structure as the generic kernel, out = hi + (start + prefix
 * inside the block), with the prefix summed in another (equally fixed)
 * order.
 */
static inline __m128i wrcpu_vadd(__m128i a, __m128i b, int is_float, size_t size)
{
    if (is_float && size == 4) return _mm_castps_si128(_mm_add_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
    if (is_float) return _mm_castpd_si128(_mm_add_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
    if (size == 4) return _mm_add_epi32(a, b);
    return _mm_add_epi64(a, b);
}

#define WRCPU_DEF_VSCAN(sfx, T, U, E, K)                                           \
    static inline __m128i wrcpu_vadd_##sfx(__m128i a, __m128i b)                   \
    {                                                                            \
        return wrcpu_vadd(a, b, WRCPU_IS_FLOAT(T), sizeof(T));                       \
    }                                                                            \
    static inline __m128i wrcpu_vset_##sfx(T v)                                    \
    {                                                                            \
        T lane[16 / sizeof(T)];                                                  \
        size_t i;                                                                \
        for (i = 0; i < 16 / sizeof(T); i++) lane[i] = v;                        \
        return _mm_loadu_si128((const __m128i *)(const void *)lane);             \
    }                                                                            \
    /* ways blocks side by side, n elements each (a multiple of the lanes);   */ \
    /* per step, prefetch what the step reads from pf and stream what it     */ \
    /* writes from cps (an earlier stage) to cpd, when they are not NULL     */ \
    WRCPU_INLINE void wrcpu_vrun_##sfx(const T *in, T *out, size_t ways, size_t n, \
                                   const __m128i *hi, __m128i *carry, int exclusive, \
                                   const char *pf, const __m128i *cps, __m128i *cpd) \
    {                                                                            \
        /* lanes shifted in hold the neutral: -0 for floats (bits of the */     \
        /* sign only), 0 for integers */                                         \
        const T f1[16 / sizeof(T)] = { WRCPU_NEUTRAL(T, WR_SUM, 0) };              \
        const T f2[16 / sizeof(T)] = { WRCPU_NEUTRAL(T, WR_SUM, 0), WRCPU_NEUTRAL(T, WR_SUM, 0) }; \
        const __m128i fill1 = _mm_loadu_si128((const __m128i *)(const void *)f1); \
        const __m128i fill2 = _mm_loadu_si128((const __m128i *)(const void *)f2); \
        __m128i c[4], h[4];                 /* in registers, not through carry */ \
        size_t k, w, j = 0;                                                      \
        for (w = 0; w < ways; w++) { c[w] = carry[w]; h[w] = hi[w]; }            \
        for (k = 0; k < n; k += 16 / sizeof(T)) {                                \
            if (pf != NULL) WRCPU_PREFETCH(pf + k * ways * sizeof(T));             \
            if (cps != NULL) {                                                   \
                for (w = 0; w < ways; w++)                                       \
                    _mm_stream_si128(cpd + j + w, _mm_load_si128(cps + j + w));  \
                j += ways;                                                       \
            }                                                                    \
            WRCPU_UNROLL                                                           \
            for (w = 0; w < ways; w++) {                                         \
                __m128i l = _mm_loadu_si128((const __m128i *)(const void *)(in + w * WRCPU_SCAN_BLOCK + k)); \
                __m128i r;                                                       \
                l = wrcpu_vadd_##sfx(l, _mm_or_si128(_mm_slli_si128(l, sizeof(T)), fill1)); \
                if (sizeof(T) == 4)                                              \
                    l = wrcpu_vadd_##sfx(l, _mm_or_si128(_mm_slli_si128(l, 8), fill2)); \
                if (exclusive) {                                                 \
                    r = wrcpu_vadd_##sfx(c[w], _mm_or_si128(_mm_slli_si128(l, sizeof(T)), fill1)); \
                    c[w] = wrcpu_vadd_##sfx(c[w], sizeof(T) == 4 ? _mm_shuffle_epi32(l, 0xff) \
                                                               : _mm_shuffle_epi32(l, 0xee)); \
                } else {        /* the last lane is the new running total */    \
                    r = wrcpu_vadd_##sfx(c[w], l);                                 \
                    c[w] = sizeof(T) == 4 ? _mm_shuffle_epi32(r, 0xff) : _mm_shuffle_epi32(r, 0xee); \
                }                                                                \
                r = wrcpu_vadd_##sfx(h[w], r);                                     \
                _mm_storeu_si128((__m128i *)(void *)(out + w * WRCPU_SCAN_BLOCK + k), r); \
            }                                                                    \
        }                                                                        \
        for (w = 0; w < ways; w++) carry[w] = c[w];                              \
    }                                                                            \
    /* the loop above with constant ways and exclusive, so that the running  */ \
    /* totals stay in registers */                                             \
    WRCPU_INLINE void wrcpu_vrun2_##sfx(const T *in, T *out, size_t ways, size_t n, \
                                    const __m128i *hi, __m128i *carry, int exclusive, \
                                    const char *pf, const __m128i *cps, __m128i *cpd) \
    {                                                                            \
        if (ways == 4) {                                                         \
            if (exclusive) wrcpu_vrun_##sfx(in, out, 4, n, hi, carry, 1, pf, cps, cpd); \
            else           wrcpu_vrun_##sfx(in, out, 4, n, hi, carry, 0, pf, cps, cpd); \
        } else if (ways == 2) {                                                  \
            if (exclusive) wrcpu_vrun_##sfx(in, out, 2, n, hi, carry, 1, pf, cps, cpd); \
            else           wrcpu_vrun_##sfx(in, out, 2, n, hi, carry, 0, pf, cps, cpd); \
        } else {                                                                 \
            if (exclusive) wrcpu_vrun_##sfx(in, out, 1, n, hi, carry, 1, pf, cps, cpd); \
            else           wrcpu_vrun_##sfx(in, out, 1, n, hi, carry, 0, pf, cps, cpd); \
        }                                                                        \
    }                                                                            \
    static void wrcpu_vtile_##sfx(const void *vin, void *vout, size_t nblk,        \
                                size_t len_last, const struct wrcpu_carry *bases,  \
                                int exclusive, int stream, const char *pf)       \
    {                                                                            \
        enum { S = WRCPU_SCAN_BLOCK, V = 16 / sizeof(T) };                         \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        __m128i hi[WRCPU_SCAN_RUN_MAX], carry[WRCPU_SCAN_RUN_MAX];                   \
        T h[WRCPU_SCAN_RUN_MAX], lane[V];                                          \
        size_t w, nfull = len_last == S ? nblk : nblk - 1;                       \
        /* the blocks' starts keep out's alignment (S * size % 16 == 0) */       \
        stream = stream && ((uintptr_t)out & 15) == 0;                           \
        for (w = 0; w < nblk; w++) {                                             \
            T start;                                                             \
            wrcpu_sbase_##sfx##_sum(&bases[w], &h[w], &start);                     \
            hi[w] = wrcpu_vset_##sfx(h[w]);                                        \
            carry[w] = wrcpu_vset_##sfx(start);                                    \
        }                                                                        \
        w = 0;                                                                   \
        if (stream) {                                                            \
            /* G blocks side by side into an L1 stage; while one stage is   */ \
            /* filled, the other streams out a line per step: one          */ \
            /* contiguous write-combining stream (blocks side by side would */ \
            /* need one each), drained while the arithmetic goes on          */ \
            enum { G = WRCPU_SCAN_STAGE / (S * sizeof(T)), GB = G * S * sizeof(T) }; \
            __m128i stage[2][WRCPU_SCAN_STAGE / 16];                               \
            size_t g = 0;                                                        \
            for (; w + G <= nfull; w += G, g++)                                  \
                wrcpu_vrun2_##sfx(in + w * S, (T *)(void *)stage[g & 1], G, S, hi + w, carry + w, \
                                exclusive, pf ? pf + w * S * sizeof(T) : NULL,   \
                                g ? stage[(g - 1) & 1] : NULL,                   \
                                g ? (__m128i *)(void *)(out + (w - G) * S) : NULL); \
            if (g) wrcpu_stream_copy(out + (w - G) * S, stage[(g - 1) & 1], GB);   \
        }                                                                        \
        for (; w + 4 <= nfull; w += 4)                                           \
            wrcpu_vrun2_##sfx(in + w * S, out + w * S, 4, S, hi + w, carry + w, exclusive, \
                            pf ? pf + w * S * sizeof(T) : NULL, NULL, NULL);     \
        for (; w + 2 <= nfull; w += 2)                                           \
            wrcpu_vrun2_##sfx(in + w * S, out + w * S, 2, S, hi + w, carry + w, exclusive, \
                            pf ? pf + w * S * sizeof(T) : NULL, NULL, NULL);     \
        if (w < nfull)                                                           \
            wrcpu_vrun2_##sfx(in + w * S, out + w * S, 1, S, hi + w, carry + w, exclusive, \
                            pf ? pf + w * S * sizeof(T) : NULL, NULL, NULL);     \
        if (nfull < nblk) {        /* a short last block: vectors, then one by one */ \
            size_t nv = len_last / V * V, k;                                     \
            T acc;                                                               \
            w = nfull;                                                           \
            wrcpu_vrun2_##sfx(in + w * S, out + w * S, 1, nv, hi + w, carry + w, exclusive, NULL, NULL, NULL); \
            _mm_storeu_si128((__m128i *)(void *)lane, carry[w]);                 \
            acc = lane[V - 1];                                                   \
            for (k = nv; k < len_last; k++) {                                    \
                T x = in[w * S + k];                                             \
                if (exclusive) {                                                 \
                    out[w * S + k] = wr_sum_##sfx(h[w], acc);                    \
                    acc = wr_sum_##sfx(acc, x);                                  \
                } else {                                                         \
                    acc = wr_sum_##sfx(acc, x);                                  \
                    out[w * S + k] = wr_sum_##sfx(h[w], acc);                    \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }
WRCPU_TYPES(WRCPU_DEF_VSCAN)
#undef WRCPU_DEF_VSCAN

#define WRCPU_VTILE_ENTRY(sfx, T, U, E, K) [E] = wrcpu_vtile_##sfx,
static void (*const wrcpu_vtile_tab[WRCPU_NTYPES])(const void *, void *, size_t, size_t,
                                               const struct wrcpu_carry *, int, int, const char *) = {
    WRCPU_TYPES(WRCPU_VTILE_ENTRY)
};
#undef WRCPU_VTILE_ENTRY
#endif /* __SSE2__ */

/* Totals of blocks [b0, b1) into t[0..b1-b0), by the reduce block kernel. */
static void block_totals(const struct wrcpu_red *red, const char *in, size_t count, size_t b0, size_t b1,
                         union wrcpu_val *t)
{
    size_t b;
    for (b = b0; b < b1; b++) {
        size_t i = b * WRCPU_SCAN_BLOCK, len = count - i < WRCPU_SCAN_BLOCK ? count - i : WRCPU_SCAN_BLOCK;
        red->block(in + i * red->size, len, &t[b - b0]);
    }
}

/* One run of the scan: what a thread knows about the call. */
struct wrcpu_scan_call {
    const struct wrcpu_scan *k;
    const struct wrcpu_red *red;
    const char *in;
    char *out;
    size_t count, nb, run;        /* elements, blocks, blocks per run */
    int exclusive, stream;
};

/*
 * Scan blocks [b0, b1) with their bases.  While they are scanned, the run
 * this thread does next (pf: its first input byte, pf_len bytes, or NULL) is
 * prefetched at the pace the scan reads its own input, so that reading the
 * next run from memory overlaps this run's arithmetic instead of following
 * it (the last run, shorter, is not prefetched).
 */
static void scan_blocks(const struct wrcpu_scan_call *c, size_t b0, size_t b1, const struct wrcpu_carry *bases,
                        const char *pf, size_t pf_len)
{
    size_t len_last = b1 == c->nb ? c->count - (c->nb - 1) * WRCPU_SCAN_BLOCK : WRCPU_SCAN_BLOCK;
    size_t off = b0 * WRCPU_SCAN_BLOCK * c->k->size;
    const char *p = pf != NULL && pf_len >= (b1 - b0) * WRCPU_SCAN_BLOCK * c->k->size ? pf : NULL;
    c->k->tile(c->in + off, c->out + off, b1 - b0, len_last, bases, c->exclusive, c->stream, p);
}

/* Input bytes of run j (NULL when there is none). */
static const char *run_start(const struct wrcpu_scan_call *c, size_t j, size_t *len)
{
    size_t b0 = j * c->run, b1 = b0 + c->run < c->nb ? b0 + c->run : c->nb;
    if (b0 >= c->nb) {
        *len = 0;
        return NULL;
    }
    *len = ((b1 == c->nb ? c->count : b1 * WRCPU_SCAN_BLOCK) - b0 * WRCPU_SCAN_BLOCK) * c->k->size;
    return c->in + b0 * WRCPU_SCAN_BLOCK * c->k->size;
}

/* exscan's out[0] is the identity (+0 for float SUM, whose chains start
 * from -0). */
static void set_first(const struct wrcpu_red *red, void *out, int exclusive)
{
    union wrcpu_val v;
    if (!exclusive) return;
    red->ident(&v);
    wrcpu_store(red, out, &v);
}

/*
 * The hand-off between consecutive runs: run j publishes the carry after its
 * last block in handoff[j % WRCPU_SCAN_HANDOFFS] and then sets seq to j + 1.
 * Run j+1 reads it before it publishes its own, so by the time run
 * j + WRCPU_SCAN_HANDOFFS reuses the entry its reader is done (any ring of
 * two or more entries is safe).
 */
#define WRCPU_SCAN_HANDOFFS 64
struct wrcpu_handoff {
    struct wrcpu_carry carry;
    size_t seq;                        /* accessed atomically */
    char pad[64 - (sizeof(struct wrcpu_carry) + sizeof(size_t)) % 64];
};

#ifdef _OPENMP
/* Wait until *seq == want: spin briefly, then give the processor away, so
 * that an oversubscribed machine still runs the thread being waited for. */
static void wait_seq(const size_t *seq, size_t want)
{
    unsigned spins = 0;
    while (__atomic_load_n(seq, __ATOMIC_ACQUIRE) != want) {
        if (++spins < 256) {
#if defined(__SSE2__)
            _mm_pause();
#endif
        } else {
            sched_yield();
        }
    }
}
#endif

wr_status wrcpu_scan(const void *in, void *out, size_t count, wr_type type, wr_op op, int exclusive,
                   char *err)
{
    struct wrcpu_scan kern = wrcpu_scan_tab[type][op];
    struct wrcpu_scan_call c;
    union wrcpu_val t[WRCPU_SCAN_RUN_MAX];
    struct wrcpu_carry carry, bases[WRCPU_SCAN_RUN_MAX];
    size_t j, nruns;
    int nt = wrcpu_max_threads();
    (void)err;
#if defined(__SSE2__)
    if (op == WR_SUM) kern.tile = wrcpu_vtile_tab[type];
#endif
    c.k = &kern;
    c.red = wrcpu_red_kernels(type, op);
    c.in = (const char *)in;
    c.out = (char *)out;
    c.count = count;
    c.nb = (count + WRCPU_SCAN_BLOCK - 1) / WRCPU_SCAN_BLOCK;
    c.exclusive = exclusive;
    /* out == in: the lines are in cache already, plain stores cost no extra read */
    c.stream = count * kern.size >= WRCPU_STREAM_MIN_BYTES && in != out;
    /* blocks per run: whole tiles, at most WRCPU_SCAN_ROUND_BYTES */
    c.run = WRCPU_SCAN_ROUND_BYTES / (WRCPU_SCAN_BLOCK * kern.size) / WRCPU_SCAN_WAYS * WRCPU_SCAN_WAYS;

#ifdef _OPENMP
    if (nt > 1 && count >= 4 * WRCPU_PAR_MIN) {
        /*
         * Chained single pass (StreamScan, Yan, Long and Zhang, PPoPP 2013;
         * CUB's decoupled look-back without the look-back, since summing
         * predecessors' aggregates in whatever grouping happens to be ready
         * would make floating results depend on timing).  Threads take runs
         * of blocks in order from a counter; a run sums its blocks while
         * reading them from memory, waits for the carry of the run before
         * it, passes its own on, takes its next run and scans this one while
         * it is still in cache, prefetching the next.
         */
        struct wrcpu_handoff handoff[WRCPU_SCAN_HANDOFFS];
        size_t next = 0, i;
        size_t even = (c.nb + 2 * (size_t)nt - 1) / (2 * (size_t)nt);    /* every thread busy */
        even = (even + WRCPU_SCAN_WAYS - 1) / WRCPU_SCAN_WAYS * WRCPU_SCAN_WAYS;
        if (c.run > even) c.run = even;
        nruns = (c.nb + c.run - 1) / c.run;
        for (i = 0; i < WRCPU_SCAN_HANDOFFS; i++) handoff[i].seq = 0;
        WRCPU_PRAGMA(omp parallel num_threads(nt) private(t, carry, bases, j))
        {
            j = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
            while (j < nruns) {
                size_t b0 = j * c.run, b1 = b0 + c.run < c.nb ? b0 + c.run : c.nb, jn, pf_len;
                struct wrcpu_handoff *mine = &handoff[j % WRCPU_SCAN_HANDOFFS];
                const char *pf;
                block_totals(c.red, c.in, count, b0, b1, t);
                if (j == 0) {
                    kern.start(&carry);
                } else {
                    const struct wrcpu_handoff *prev = &handoff[(j - 1) % WRCPU_SCAN_HANDOFFS];
                    wait_seq(&prev->seq, j);
                    carry = prev->carry;
                }
                kern.advance(&carry, t, b1 - b0, bases);
                mine->carry = carry;
                __atomic_store_n(&mine->seq, j + 1, __ATOMIC_RELEASE);
                jn = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
                pf = run_start(&c, jn, &pf_len);
                scan_blocks(&c, b0, b1, bases, pf, pf_len);
                j = jn;
            }
            if (c.stream) wrcpu_stream_fence();
        }
        set_first(c.red, out, exclusive);
        return WR_SUCCESS;
    }
#endif
    /* the same runs in this thread */
    (void)nt;
    nruns = (c.nb + c.run - 1) / c.run;
    kern.start(&carry);
    for (j = 0; j < nruns; j++) {
        size_t b0 = j * c.run, b1 = b0 + c.run < c.nb ? b0 + c.run : c.nb, pf_len;
        const char *pf = run_start(&c, j + 1, &pf_len);
        block_totals(c.red, c.in, count, b0, b1, t);
        kern.advance(&carry, t, b1 - b0, bases);
        scan_blocks(&c, b0, b1, bases, pf, pf_len);
    }
    if (c.stream) wrcpu_stream_fence();
    set_first(c.red, out, exclusive);
    return WR_SUCCESS;
}

WRCPU_TARGET_END

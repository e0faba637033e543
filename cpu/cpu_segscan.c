/*
 * cpu_segscan.c -- scans inside segments (wr_scan_segments,
 * wr_exscan_segments) on the cpu backend, fast and reproducible.
 *
 * A segment of at most WRCPU_SEGSCAN_SHORT elements is one block, scanned
 * in order by one thread (DESIGN.md: an output is its block's base plus the
 * scan inside a block of at most 4096 elements); the short segments are
 * shared among the threads.  A longer segment is a wr_scan of its own,
 * whose blocks and threads wrcpu_scan arranges: its bits are the bits
 * wr_scan gives on that range.  Either way the bits depend on the offsets
 * alone, never on the number of threads.  In reproducible mode each segment
 * is a reproducible scan (cpu_exact.c): every output correctly rounded.
 */
#include <config.h>
#include <stdio.h>
#include "cpu_internal.h"
#include "cpu_exact.h"

/* Segments up to this long are one block, one thread's. */
#define WRCPU_SEGSCAN_SHORT ((size_t)4096)

/* out[a..b) = the scan of in[a..b) (exclusive: from the identity), in order. */
typedef void (*wrcpu_segscan_fn)(const void *in, void *out, size_t a, size_t b, int exclusive);

#define WRCPU_DEF_SEGSCAN(sfx, T, U, E, K, op, OE)                                  \
    static void wrcpu_segscan_##sfx##_##op(const void *vin, void *vout, size_t a, size_t b, int exclusive) \
    {                                                                            \
        const T *in = (const T *)vin;                                            \
        T *out = (T *)vout;                                                      \
        T acc = WRCPU_NEUTRAL(T, OE, wr_ident_##op##_##sfx());                   \
        size_t i;                                                                \
        for (i = a; i < b; i++) {                                                \
            const T x = in[i];                                                   \
            const T prev = i == a ? wr_ident_##op##_##sfx() : acc;              \
            acc = wr_##op##_##sfx(acc, x);                                       \
            out[i] = exclusive ? prev : acc;                                     \
            if (WRCPU_CANON(T, OE)) wrcpu_canon(&out[i], sizeof(T));             \
        }                                                                        \
    }
#define WRCPU_PAIR WRCPU_DEF_SEGSCAN
WRCPU_PAIRS
#undef WRCPU_PAIR

#define WRCPU_SEGSCAN_ENTRY(sfx, T, U, E, K, op, OE) [E][OE] = wrcpu_segscan_##sfx##_##op,
static const wrcpu_segscan_fn wrcpu_segscan_tab[WRCPU_NTYPES][WRCPU_NOPS] = {
#define WRCPU_PAIR WRCPU_SEGSCAN_ENTRY
    WRCPU_PAIRS
#undef WRCPU_PAIR
};
#undef WRCPU_SEGSCAN_ENTRY

/* The short segments in [0, nseg), among the threads when there is enough
 * work; then each long one with every thread.  exact: the reproducible
 * scan.  Returns the first failure. */
static wr_status segments(const char *in, char *out, size_t nseg, const size_t *off, wr_type type, wr_op op,
                          int exclusive, int exact, char *err)
{
    const size_t es = wr_type_size(type);
    const wrcpu_segscan_fn k = exact ? NULL : wrcpu_segscan_tab[type][op];
    wr_status st = WR_SUCCESS;
    size_t s;
    long ss;
    int failed = 0;
    const int par = wrcpu_max_threads() > 1 && off[nseg] - off[0] >= WRCPU_PAR_MIN && nseg > 1;
    (void)par;
    WRCPU_PRAGMA(omp parallel for schedule(dynamic, 16) if(par) reduction(max: failed))
    for (ss = 0; ss < (long)nseg; ss++) {
        const size_t a = off[ss], n = off[ss + 1] - a;
        char e2[WR_ERRLEN];
        if (n == 0 || n > WRCPU_SEGSCAN_SHORT) continue;
        if (exact) {
            if (wrcpu_exact_scan(in + a * es, out + a * es, n, type, exclusive, NULL, e2) != WR_SUCCESS) failed = 1;
        } else {
            k(in, out, a, a + n, exclusive);
        }
    }
    if (failed) {
        snprintf(err, WR_ERRLEN, "out of memory in a reproducible segment scan");
        return WR_ERR_NO_MEMORY;
    }
    for (s = 0; s < nseg && st == WR_SUCCESS; s++) {
        const size_t a = off[s], n = off[s + 1] - a;
        if (n <= WRCPU_SEGSCAN_SHORT) continue;
        st = exact ? wrcpu_exact_scan(in + a * es, out + a * es, n, type, exclusive, NULL, err)
                   : wrcpu_scan(in + a * es, out + a * es, n, type, op, exclusive, err);
    }
    return st;
}

wr_status wrcpu_scan_segments(const void *in, void *out, size_t nseg, const size_t *off, wr_type type, wr_op op,
                              int exclusive, int exact, char *err)
{
    return segments((const char *)in, (char *)out, nseg, off, type, op, exclusive, exact, err);
}

/*
 * fuzz_api.c -- a fuzz target for libwarpred's public operations.
 *
 * One input (a byte string) is one call: which function, which context
 * (cpu, AUTO or NULL), type and op (valid or not), sizes (0 to a few
 * thousand elements, or past the address space, or overflowing size_t),
 * where each buffer lies in one arena (its own place, NULL, misaligned by a
 * few bytes, inside or across another buffer, in == out), the offsets of
 * segments (ordered or not, offsets[0] > 0, huge), and the element values.
 *
 * An oracle written from warpred.h, independently of lib/, lists what is
 * wrong with the call, each as (status, the argument the reason must name).
 * A call with nothing wrong must succeed, give the serial reference's result
 * (tests/testutil.h; bit for bit, or within DESIGN.md's bound for float sums
 * and products of rounded data), write nothing outside its outputs, leave
 * its inputs as they were and leave wr_context_error() empty.  A call with
 * something wrong must return the status of one of its faults, with a
 * one-line reason that names that fault's argument, and leave the whole
 * arena (every output included) untouched.
 *
 * Built two ways from this one file:
 *  - with -DWR_FUZZ_LIBFUZZER (clang, -fsanitize=fuzzer,address,undefined;
 *    configure --enable-fuzzer): LLVMFuzzerTestOneInput for libFuzzer, which
 *    aborts on a failed check;
 *  - otherwise: a random-argument driver, a main() that feeds the same
 *    harness random inputs from a seed (WR_TEST_SEED, as every test) for a
 *    bounded number of iterations and seconds (WR_FUZZ_ITERATIONS,
 *    WR_FUZZ_SECONDS), as a TAP test; given file names, it replays them as
 *    inputs instead (a libFuzzer crash file, say).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"

#if SIZE_MAX < UINT64_MAX
#  error "the fuzz target assumes a 64-bit size_t"
#endif

/* ---- the arena ------------------------------------------------------------ */

#define MAXN 3000                 /* the most elements a valid call moves */
#define MAXSEG 64                 /* the most segments of a valid call */
#define REGION (32 * 1024)        /* bytes per region: MAXN elements of 8 bytes and slack */
#define IN_AT (0 * REGION)
#define OUT_AT (1 * REGION)
#define OFF_AT (2 * REGION)
#define IDX_AT (2 * REGION + 4096)
#define VAL_AT (2 * REGION + 4096 + 64)
#define ARENA (3 * REGION)

static unsigned char *arena, *snap;

/* ---- reading the input ------------------------------------------------------ */

struct reader {
    const uint8_t *p;
    size_t n, i;
};

static unsigned byte(struct reader *r)
{
    return r->i < r->n ? r->p[r->i++] : 0;
}

static unsigned u16(struct reader *r)
{
    unsigned a = byte(r);
    return a | byte(r) << 8;
}

static uint64_t u64(struct reader *r)
{
    uint64_t v = 0;
    int k;
    for (k = 0; k < 8; k++) v |= (uint64_t)byte(r) << (8 * k);
    return v;
}

/* ---- the oracle's faults ----------------------------------------------------- */

#define MAXFAULT 24
struct fault {
    wr_status st;
    const char *word;      /* an argument the reason must name */
};
struct call {
    int fn;                /* F_* */
    wr_context *ctx;
    wr_type type;
    wr_op op;
    size_t es;             /* element bytes, 0 for a bad type */
    size_t count, rows, cols, nseg;
    unsigned char *in, *out, *value;
    size_t *offsets, *index;
    size_t off[MAXSEG + 1];   /* the offsets' values (nseg + 1 of them when nseg <= MAXSEG) */
    int nfault;
    struct fault fault[MAXFAULT];
};

enum { F_REDUCE, F_SCAN, F_EXSCAN, F_ROWS, F_SEGMENTS, F_ARGMIN, F_ARGMAX, F_N };
static const char *const fn_name[F_N] = { "wr_reduce", "wr_scan", "wr_exscan", "wr_reduce_rows",
                                          "wr_reduce_segments", "wr_argmin", "wr_argmax" };

static void fault(struct call *c, wr_status st, const char *word)
{
    if (c->nfault < MAXFAULT) {
        c->fault[c->nfault].st = st;
        c->fault[c->nfault].word = word;
        c->nfault++;
    }
}

/* a * b, or 1 in *over when it overflows size_t */
static size_t mul(size_t a, size_t b, int *over)
{
    if (b != 0 && a > SIZE_MAX / b) {
        *over = 1;
        return 0;
    }
    return a * b;
}

/* No 64-bit platform gives user space addresses at or above 2^57. */
#define PAST ((size_t)1 << 57)

/* One buffer as the oracle sees it. */
struct obuf {
    const char *name;
    const void *p;
    size_t bytes;
    size_t align;
    int out;
    const char *count;     /* the argument that sizes it */
};

/* The buffer checks of warpred.h: NULL, alignment, address space, overlap. */
static void check_bufs(struct call *c, const struct obuf *b, int n, int inplace_ok)
{
    int i, j;
    for (i = 0; i < n; i++) {
        if (b[i].bytes == 0) continue;
        if (b[i].p == NULL) fault(c, WR_ERR_INVALID_ARG, b[i].name);
        else if ((uintptr_t)b[i].p % b[i].align) fault(c, WR_ERR_INVALID_ARG, b[i].name);
        if (b[i].bytes >= PAST) fault(c, WR_ERR_INVALID_ARG, b[i].count);
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            uintptr_t a0 = (uintptr_t)b[i].p, b0 = (uintptr_t)b[j].p;
            if (!b[i].out && !b[j].out) continue;
            if (b[i].bytes == 0 || b[j].bytes == 0 || b[i].p == NULL || b[j].p == NULL) continue;
            if (b[i].bytes >= PAST || b[j].bytes >= PAST) continue;   /* refused for that already */
            if (!(a0 < b0 + b[j].bytes && b0 < a0 + b[i].bytes)) continue;
            if (inplace_ok && a0 == b0 && b[i].bytes == b[j].bytes) continue;
            fault(c, WR_ERR_INVALID_ARG, b[i].name);
            fault(c, WR_ERR_INVALID_ARG, b[j].name);
        }
}

static int op_defined(wr_type t, wr_op op)
{
    return !((t == WR_FLOAT || t == WR_DOUBLE) && (op == WR_BAND || op == WR_BOR || op == WR_BXOR));
}

/* What is wrong with call c, per warpred.h. */
static void oracle(struct call *c)
{
    int over = 0;
    size_t es = c->es;
    if (c->ctx == NULL) fault(c, WR_ERR_INVALID_ARG, "ctx");
    if (es == 0) {
        fault(c, WR_ERR_INVALID_ARG, "type");
        return;                                 /* no size can be worked out */
    }
    if (c->fn < F_ARGMIN) {
        if ((int)c->op < 0 || (int)c->op > 6) fault(c, WR_ERR_INVALID_ARG, "op");
        else if (!op_defined(c->type, c->op)) fault(c, WR_ERR_UNSUPPORTED, "op");
    }
    switch (c->fn) {
    case F_REDUCE: {
        size_t inb = mul(c->count, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "count"); return; }
        {
            struct obuf b[2] = { { "in", c->in, inb, es, 0, "count" }, { "out", c->out, es, es, 1, "out" } };
            check_bufs(c, b, 2, 0);
        }
        break;
    }
    case F_SCAN:
    case F_EXSCAN: {
        size_t b_ = mul(c->count, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "count"); return; }
        {
            struct obuf b[2] = { { "in", c->in, b_, es, 0, "count" }, { "out", c->out, b_, es, 1, "count" } };
            check_bufs(c, b, 2, 1);
        }
        break;
    }
    case F_ROWS: {
        size_t n = mul(c->rows, c->cols, &over), inb, outb;
        if (over) { fault(c, WR_ERR_INVALID_ARG, "rows"); return; }
        inb = mul(n, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "rows"); return; }
        outb = mul(c->rows, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "rows"); return; }
        {
            struct obuf b[2] = { { "in", c->in, inb, es, 0, "rows" }, { "out", c->out, outb, es, 1, "rows" } };
            check_bufs(c, b, 2, 0);
        }
        break;
    }
    case F_SEGMENTS: {
        size_t offb, outb, off0, offn, s, inb, skip;
        int bad_offsets_buffer = 0, decreasing = 0;
        if (c->nseg == 0) break;               /* nothing is read or written */
        if (c->offsets == NULL) { fault(c, WR_ERR_INVALID_ARG, "offsets"); return; }
        if (c->nseg == SIZE_MAX) { fault(c, WR_ERR_INVALID_ARG, "nsegments"); return; }
        offb = mul(c->nseg + 1, sizeof(size_t), &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "nsegments"); return; }
        outb = mul(c->nseg, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "nsegments"); return; }
        if ((uintptr_t)c->offsets % sizeof(size_t)) { fault(c, WR_ERR_INVALID_ARG, "offsets"); bad_offsets_buffer = 1; }
        if (offb >= PAST) { fault(c, WR_ERR_INVALID_ARG, "nsegments"); bad_offsets_buffer = 1; }
        if (bad_offsets_buffer) return;        /* the offsets cannot be read */
        off0 = c->off[0];
        offn = c->off[c->nseg];
        for (s = 0; s < c->nseg; s++)
            if (c->off[s + 1] < c->off[s]) decreasing = 1;
        if (decreasing) { fault(c, WR_ERR_INVALID_ARG, "offsets"); return; }
        inb = mul(offn - off0, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "offsets"); return; }
        skip = mul(off0, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "offsets"); return; }
        if (inb != 0 && c->in == NULL) { fault(c, WR_ERR_INVALID_ARG, "in"); return; }
        if (inb != 0 && skip >= PAST) { fault(c, WR_ERR_INVALID_ARG, "offsets"); return; }
        {
            struct obuf b[3] = { { "in", inb ? c->in + skip : NULL, inb, es, 0, "offsets" },
                                 { "out", c->out, outb, es, 1, "nsegments" },
                                 { "offsets", c->offsets, offb, sizeof(size_t), 0, "nsegments" } };
            check_bufs(c, b, 3, 0);
        }
        break;
    }
    default: {                                  /* argmin, argmax */
        size_t inb;
        if (c->index == NULL) fault(c, WR_ERR_INVALID_ARG, "index");
        inb = mul(c->count, es, &over);
        if (over) { fault(c, WR_ERR_INVALID_ARG, "count"); return; }
        {
            struct obuf b[3] = { { "in", c->in, inb, es, 0, "count" },
                                 { "index", c->index, sizeof(size_t), sizeof(size_t), 1, "index" },
                                 { "value", c->value, c->value ? es : 0, es, 1, "value" } };
            check_bufs(c, b, 3, 0);
        }
        if (c->count == 0) fault(c, WR_ERR_EMPTY, "count");
        break;
    }
    }
}

/* ---- building a call from the input ------------------------------------------- */

static wr_context *ctx_cpu, *ctx_auto;

static const size_t huge[] = {
    (size_t)1 << 60, SIZE_MAX, SIZE_MAX / 8 + 1, SIZE_MAX / 4 + 1, (size_t)1 << 58, ((size_t)1 << 62) + 3,
    SIZE_MAX / 2, (size_t)1 << 61,
};
#define NHUGE (sizeof huge / sizeof huge[0])

/* A count: mostly small, sometimes 0, sometimes past everything. */
static size_t draw_count(struct reader *r, size_t max)
{
    unsigned k = byte(r), v = u16(r);
    if (k < 16) return huge[k % NHUGE];
    if (k < 28) return 0;
    if (k < 160) return v % (max < 70 ? max + 1 : 70);
    return v % (max + 1);
}

/* Where a buffer of `bytes` goes: its region, NULL, misaligned, or over
 * another buffer (other, when not NULL). */
static unsigned char *place(struct reader *r, size_t region, size_t es, unsigned char *other)
{
    unsigned m = byte(r), shift = byte(r) % 8;
    if (m < 12) return NULL;
    if (m < 28) return arena + region + shift * es + 1 + byte(r) % (es > 1 ? es - 1 : 1);   /* misaligned */
    if (m < 48 && other != NULL) return other + (byte(r) % 24) * es;                         /* over other */
    if (m < 56 && other != NULL) return other;                                             /* in place */
    return arena + region + shift * es;
}

static wr_type draw_type(struct reader *r)
{
    unsigned k = byte(r);
    static const int bad[] = { 6, -1, 1000, 7, -2147483647 - 1 };
    if (k < 240) return (wr_type)(k % 6);
    return (wr_type)bad[k % 5];
}

static wr_op draw_op(struct reader *r)
{
    unsigned k = byte(r);
    static const int bad[] = { 7, -1, 99, 8 };
    if (k < 240) return (wr_op)(k % 7);
    return (wr_op)bad[k % 4];
}

/* Fill n elements at dst (which may be misaligned: built in an aligned
 * buffer, then copied): float SUM/PROD from the generator of testutil.h, so
 * that results stay in range and DESIGN.md's bounds apply (returns 1 for
 * rounded data); everything else from the generator overlaid, now and then,
 * with the input's own bytes (any bit pattern: NaNs, infinities, signed
 * zeros, extremes). */
static int fill_elements(struct reader *r, unsigned char *dst, size_t n, wr_type t, wr_op op, size_t group,
                         int is_arg)
{
    static unsigned char tmp[REGION];
    size_t es = wr_type_size(t), i;
    int isf = t == WR_FLOAT || t == WR_DOUBLE;
    unsigned how = byte(r);
    tu_rng g;
    tu_rng_seed(&g, u64(r));
    if (isf && !is_arg && (op == WR_SUM || op == WR_PROD)) {
        enum tu_kind kind = how & 1 ? TU_ROUNDED : TU_EXACT;
        tu_fill(&g, tmp, n, t, op, kind, group);
        memcpy(dst, tmp, n * es);
        return kind == TU_ROUNDED;
    }
    tu_fill(&g, tmp, n, t, is_arg || (int)op < 0 || (int)op > 6 ? WR_MIN : op, TU_EXACT, group);
    if (how & 2)
        for (i = 0; i < n * es && r->i < r->n; i++) tmp[i] = (unsigned char)byte(r);
    memcpy(dst, tmp, n * es);
    return 0;
}

/* ---- one call ------------------------------------------------------------------ */

static int mentions_any(const struct call *c, wr_status st, const char *e)
{
    int i;
    for (i = 0; i < c->nfault; i++)
        if (c->fault[i].st == st && tu_mentions(e, c->fault[i].word)) return 1;
    return 0;
}

static void faults_text(const struct call *c, char *buf, size_t len)
{
    int i;
    size_t k = 0;
    buf[0] = '\0';
    for (i = 0; i < c->nfault && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s:%s", i ? ", " : "", wr_status_string(c->fault[i].st),
                              c->fault[i].word);
}

/* The byte ranges [lo, hi) of the arena a successful call may write (at
 * most two); returns how many. */
static int written(const struct call *c, size_t lo[2], size_t hi[2])
{
    size_t es = c->es, n = 0;
    switch (c->fn) {
    case F_REDUCE: n = es; break;
    case F_SCAN:
    case F_EXSCAN: n = c->count * es; break;
    case F_ROWS: n = c->rows * es; break;
    case F_SEGMENTS: n = c->nseg * es; break;
    default:
        lo[0] = (size_t)((unsigned char *)c->index - arena);
        hi[0] = lo[0] + sizeof(size_t);
        if (c->value == NULL) return 1;
        lo[1] = (size_t)(c->value - arena);
        hi[1] = lo[1] + es;
        if (lo[1] < lo[0]) {
            size_t t = lo[0]; lo[0] = lo[1]; lo[1] = t;
            t = hi[0]; hi[0] = hi[1]; hi[1] = t;
        }
        return 2;
    }
    if (n == 0) return 0;
    lo[0] = (size_t)(c->out - arena);
    hi[0] = lo[0] + n;
    return 1;
}

/* The first arena byte outside [lo, hi) ranges that differs from the
 * snapshot, or ARENA. */
static size_t changed_outside(const size_t *lo, const size_t *hi, int nr)
{
    size_t at = 0, i;
    int k;
    for (k = 0; k <= nr; k++) {
        size_t end = k < nr ? lo[k] : ARENA;
        if (end > at && memcmp(arena + at, snap + at, end - at) != 0) {
            for (i = at; arena[i] == snap[i]; i++) continue;
            return i;
        }
        if (k < nr && hi[k] > at) at = hi[k];
    }
    return ARENA;
}

/* "NULL" or "arena+N", or "arena+N+1" style for a pointer of the call. */
static const char *where(const void *p, char *buf, size_t len)
{
    if (p == NULL) return "NULL";
    snprintf(buf, len, "arena+%td", (const unsigned char *)p - arena);
    return buf;
}

static const char *call_text(const struct call *c, char *buf, size_t len)
{
    char a[5][32];
    snprintf(buf, len,
             "%s(ctx %s, type %d, op %d, in %s, out %s, count %zu, rows %zu, cols %zu, nsegments %zu, "
             "offsets %s, index %s, value %s)",
             fn_name[c->fn], c->ctx == NULL ? "NULL" : c->ctx == ctx_cpu ? "cpu" : "auto", (int)c->type,
             (int)c->op, where(c->in, a[0], 32), where(c->out, a[1], 32), c->count, c->rows, c->cols, c->nseg,
             where(c->offsets, a[2], 32), where(c->index, a[3], 32), where(c->value, a[4], 32));
    return buf;
}

/* Per function: valid calls and refused calls made (the driver's summary). */
static unsigned long n_valid[F_N], n_refused[F_N];

/* Run the call the input describes; 0 if every check held, else 1 and why. */
static int fuzz_one(const uint8_t *data, size_t size, char *why, size_t len)
{
    struct reader rd = { data, size, 0 };
    struct call c;
    unsigned char *in_copy = NULL;
    size_t i, inbytes = 0, group = 1;
    int rounded = 0, overlaid_prod = 0, ok_ = 1;
    unsigned k;
    wr_status st;
    const char *e;
    char ctext[512], ftext[256];

    memset(&c, 0, sizeof c);
    c.fn = (int)(byte(&rd) % F_N);
    k = byte(&rd);
    c.ctx = k < 8 ? NULL : k & 1 ? ctx_cpu : ctx_auto;
    c.type = draw_type(&rd);
    c.op = draw_op(&rd);
    c.es = wr_type_size(c.type);
    memset(arena, TU_POISON, ARENA);

    {
        size_t es = c.es ? c.es : 4;       /* a bad type: any buffers will do */
        switch (c.fn) {
        case F_ROWS:
            c.rows = draw_count(&rd, byte(&rd) < 24 ? MAXN : 64);
            c.cols = draw_count(&rd, MAXN);
            /* a valid call must stay in the arena: small sizes multiply to at most MAXN */
            if (c.rows > 0 && c.rows <= MAXN && c.cols <= MAXN && c.rows * c.cols > MAXN) c.cols = MAXN / c.rows;
            if (c.rows <= MAXN && c.cols <= MAXN) inbytes = c.rows * c.cols * es;
            group = c.cols;
            break;
        case F_SEGMENTS: {
            size_t s, total;
            unsigned how = byte(&rd);
            c.nseg = how < 8 ? huge[how % NHUGE] : how < 24 ? 0 : byte(&rd) % (MAXSEG + 1);
            if (c.nseg <= MAXSEG) {
                c.off[0] = byte(&rd) < 200 ? 0 : u16(&rd) % 100;
                total = c.off[0];
                for (s = 1; s <= c.nseg; s++) {
                    total += u16(&rd) % (MAXN / (MAXSEG + 1) + 1) * (byte(&rd) < 64 ? 0 : 1);
                    c.off[s] = total;
                }
                k = byte(&rd);
                if (k < 20 && c.nseg > 0) {        /* out of order */
                    s = byte(&rd) % c.nseg;
                    c.off[s + 1] = c.off[s] ? c.off[s] - 1 - byte(&rd) % c.off[s] : c.off[s];
                    if (c.off[s + 1] == c.off[s]) c.off[s] = c.off[s + 1] + 1;
                } else if (k < 30) {               /* huge */
                    c.off[c.nseg] = huge[byte(&rd) % NHUGE];
                }
                inbytes = 0;
                for (s = 0; s <= c.nseg; s++)
                    if (c.off[s] <= MAXN + 200 && c.off[s] * es > inbytes) inbytes = c.off[s] * es;
                group = 1;
                for (s = 0; s < c.nseg; s++)
                    if (c.off[s + 1] >= c.off[s] && c.off[s + 1] - c.off[s] > group) group = c.off[s + 1] - c.off[s];
            }
            break;
        }
        default:
            c.count = draw_count(&rd, MAXN);
            if (c.count <= MAXN) inbytes = c.count * es;
            group = c.count;
            break;
        }
        c.in = place(&rd, IN_AT, es, NULL);
        if (c.fn == F_ARGMIN || c.fn == F_ARGMAX) {
            c.index = (size_t *)(void *)place(&rd, IDX_AT, sizeof(size_t), byte(&rd) < 128 ? c.in : NULL);
            c.value = byte(&rd) < 40 ? NULL : place(&rd, VAL_AT, es, byte(&rd) < 128 ? c.in : (unsigned char *)c.index);
            if (c.value == NULL && byte(&rd) < 128) c.value = arena + VAL_AT;
        } else {
            unsigned char *other = c.in;
            c.out = place(&rd, OUT_AT, es, other);
            if (c.fn == F_SEGMENTS) {
                k = byte(&rd);
                c.offsets = (size_t *)(void *)place(&rd, OFF_AT, sizeof(size_t), k < 128 ? c.out : c.in);
                if (c.offsets != NULL && c.nseg <= MAXSEG) memcpy(c.offsets, c.off, (c.nseg + 1) * sizeof(size_t));
                else if (c.offsets != NULL) memcpy(c.offsets, c.off, sizeof(size_t)); /* huge nsegments: unread */
            }
        }
        if (c.in != NULL && inbytes > 0 && c.es != 0) {
            size_t n = inbytes / c.es;
            /* segments: the elements before offsets[0] are never read, fill them anyway */
            rounded = fill_elements(&rd, c.in, n, c.type, c.op, group, c.fn >= F_ARGMIN);
            if (c.fn == F_SEGMENTS && c.offsets != NULL && c.nseg <= MAXSEG) {
                memcpy(c.offsets, c.off, (c.nseg + 1) * sizeof(size_t));     /* in may lie over them */
                /* offsets written over float data put other bits among it
                 * (small integers read as subnormals, zeros): a SUM of it
                 * rounds, so it is held to the error bound; a PROD may
                 * underflow, which no relative bound covers, so only its
                 * status and writes are checked */
                if (tu_is_float(c.type) && (unsigned char *)c.offsets < c.in + inbytes &&
                    (unsigned char *)(c.offsets + c.nseg + 1) > c.in) {
                    if (c.op == WR_SUM) rounded = 1;
                    else if (c.op == WR_PROD) overlaid_prod = 1;
                }
            }
        }
    }
    oracle(&c);
    if (c.nfault == 0 && c.in != NULL && inbytes > 0) {
        in_copy = (unsigned char *)malloc(inbytes);
        if (in_copy == NULL) abort();
        memcpy(in_copy, c.in, inbytes);
    }
    memcpy(snap, arena, ARENA);

    switch (c.fn) {
    case F_REDUCE: st = wr_reduce(c.ctx, c.in, c.out, c.count, c.type, c.op); break;
    case F_SCAN: st = wr_scan(c.ctx, c.in, c.out, c.count, c.type, c.op); break;
    case F_EXSCAN: st = wr_exscan(c.ctx, c.in, c.out, c.count, c.type, c.op); break;
    case F_ROWS: st = wr_reduce_rows(c.ctx, c.in, c.out, c.rows, c.cols, c.type, c.op); break;
    case F_SEGMENTS: st = wr_reduce_segments(c.ctx, c.in, c.out, c.nseg, c.offsets, c.type, c.op); break;
    case F_ARGMIN: st = wr_argmin(c.ctx, c.in, c.count, c.type, c.index, c.value); break;
    default: st = wr_argmax(c.ctx, c.in, c.count, c.type, c.index, c.value); break;
    }
    e = wr_context_error(c.ctx);
    faults_text(&c, ftext, sizeof ftext);
    call_text(&c, ctext, sizeof ctext);

    if (c.nfault > 0) {
        n_refused[c.fn]++;
        if (st == WR_SUCCESS) {
            snprintf(why, len, "%s: accepted, but it has faults (%s)", ctext, ftext);
            ok_ = 0;
        } else if (!mentions_any(&c, st, e) || strchr(e, '\n') != NULL) {
            snprintf(why, len, "%s: %s \"%s\", expected one of (%s) with a reason naming its argument", ctext,
                     wr_status_string(st), e, ftext);
            ok_ = 0;
        } else if ((i = changed_outside(NULL, NULL, 0)) != ARENA) {
            snprintf(why, len, "%s: refused (%s) but arena byte %zu changed", ctext, e, i);
            ok_ = 0;
        }
    } else {
        n_valid[c.fn]++;
        if (st != WR_SUCCESS || e[0] != '\0') {
            snprintf(why, len, "%s: a valid call failed: %s \"%s\"", ctext, wr_status_string(st), e);
            ok_ = 0;
        } else {
            const unsigned char *ref = in_copy ? in_copy : c.in;
            char w[512] = "";
            int good = 1;
            switch (c.fn) {
            case F_REDUCE: good = tu_check_reduce(ref, c.count, c.type, c.op, c.out, rounded, w, sizeof w); break;
            case F_SCAN:
            case F_EXSCAN:
                good = c.count == 0 ||
                       tu_check_scan(ref, c.out, c.count, c.type, c.op, c.fn == F_EXSCAN, rounded, w, sizeof w);
                break;
            case F_ROWS:
                good = c.rows == 0 || tu_check_rows(ref, c.out, c.rows, c.cols, c.type, c.op, rounded, w, sizeof w);
                break;
            case F_SEGMENTS:
                good = c.nseg == 0 || overlaid_prod ||
                       tu_check_segments(ref, c.out, c.nseg, c.off, c.type, c.op, rounded, w, sizeof w);
                break;
            default: {
                size_t want = tu_ref_argext(ref, c.count, c.type, c.fn == F_ARGMAX);
                good = *c.index == want && (c.value == NULL || memcmp(c.value, ref + want * c.es, c.es) == 0);
                if (!good) snprintf(w, sizeof w, "index %zu, expected %zu (or the value differs)", *c.index, want);
                break;
            }
            }
            if (!good) {
                snprintf(why, len, "%s: wrong result: %s", ctext, w);
                ok_ = 0;
            }
            if (ok_) {
                size_t lo[2], hi[2];
                i = changed_outside(lo, hi, written(&c, lo, hi));
                if (i != ARENA) {
                    snprintf(why, len, "%s: wrote arena byte %zu, outside its outputs", ctext, i);
                    ok_ = 0;
                }
            }
        }
    }
    free(in_copy);
    return ok_ ? 0 : 1;
}

static void setup(void)
{
    if (arena != NULL) return;
    arena = (unsigned char *)aligned_alloc(64, ARENA);
    snap = (unsigned char *)malloc(ARENA);
    if (arena == NULL || snap == NULL) abort();
    unsetenv("WARPRED_BACKEND");
    unsetenv("WARPRED_FLOAT_MODE");
    if (wr_context_create(&ctx_cpu, WR_BACKEND_CPU) != WR_SUCCESS ||
        wr_context_create(&ctx_auto, WR_BACKEND_AUTO) != WR_SUCCESS) {
        fprintf(stderr, "fuzz_api: no context: %s\n", wr_context_error(NULL));
        abort();
    }
}

#ifdef WR_FUZZ_LIBFUZZER

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[2048];
    setup();
    if (fuzz_one(data, size, why, sizeof why) != 0) {
        fprintf(stderr, "fuzz_api: %s\n", why);
        abort();
    }
    return 0;
}

#else /* the random-argument driver */

static unsigned long env_ul(const char *name, unsigned long dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long x;
    if (v == NULL || v[0] == '\0') return dflt;
    errno = 0;
    x = strtoul(v, &end, 10);
    return errno || *end ? dflt : x;
}

static void print_input(const uint8_t *p, size_t n)
{
    char line[3 * 32 + 1];
    size_t i, k = 0;
    diag("the input (%zu bytes), to replay: write these bytes to a file and run fuzz_api FILE", n);
    for (i = 0; i < n; i++) {
        k += (size_t)snprintf(line + k, sizeof line - k, "%02x ", p[i]);
        if (i % 32 == 31 || i + 1 == n) {
            diag("  %s", line);
            k = 0;
        }
    }
}

static int replay(int argc, char **argv)
{
    int i;
    plan((unsigned long)argc - 1);
    setup();
    for (i = 1; i < argc; i++) {
        static uint8_t buf[1 << 16];
        char why[2048] = "";
        size_t n;
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) bail("%s: %s", argv[i], strerror(errno));
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ok(fuzz_one(buf, n, why, sizeof why) == 0, "%s: %s", argv[i], why[0] ? why : "all checks hold");
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long iters = env_ul("WR_FUZZ_ITERATIONS", 200000), secs = env_ul("WR_FUZZ_SECONDS", 5), it, fails = 0;
    unsigned long valid = 0, refused = 0;
    int f, every = 1;
    time_t t0 = time(NULL);
    tu_rng r;
    char why[2048];
    uint8_t buf[512];

    if (argc > 1) return replay(argc, argv);
    plan(2);
    setup();
    tu_rng_seed(&r, tu_seed());
    for (it = 0; it < iters; it++) {
        size_t n = 16 + tu_below(&r, sizeof buf - 15), i;
        for (i = 0; i < n; i++) buf[i] = (uint8_t)tu_rand(&r);
        if (fuzz_one(buf, n, why, sizeof why) != 0) {
            if (fails++ == 0) {
                diag("%s", why);
                print_input(buf, n);
            }
        }
        if ((it & 255) == 0 && secs && (unsigned long)(time(NULL) - t0) >= secs) {
            it++;
            break;
        }
    }
    for (f = 0; f < F_N; f++) {
        valid += n_valid[f];
        refused += n_refused[f];
        every = every && n_valid[f] > 0 && n_refused[f] > 0;
        diag("%-18s %8lu valid, %8lu refused", fn_name[f], n_valid[f], n_refused[f]);
    }
    ok(fails == 0, "%lu random calls (%lu valid, %lu refused): %lu failed a check", it, valid, refused, fails);
    ok(every, "every function made both valid and refused calls");
    wr_context_destroy(ctx_cpu);
    wr_context_destroy(ctx_auto);
    free(arena);
    free(snap);
    return 0;
}

#endif

/* testutil.c -- see testutil.h. */
#include <ctype.h>
#include <stdarg.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

/* Inline versions of the element helpers for the reference's inner loops. */
static inline size_t size_of(wr_type t)
{
    return (t == WR_INT64 || t == WR_UINT64 || t == WR_DOUBLE) ? 8 : 4;
}

static inline uint64_t get_bits(const void *buf, wr_type t, size_t i)
{
    if (size_of(t) == 4) {
        uint32_t v;
        memcpy(&v, (const char *)buf + i * 4, 4);
        return v;
    } else {
        uint64_t v;
        memcpy(&v, (const char *)buf + i * 8, 8);
        return v;
    }
}

static inline long double get_f(const void *buf, wr_type t, size_t i)
{
    if (t == WR_FLOAT) {
        float f;
        memcpy(&f, (const char *)buf + i * 4, 4);
        return f;
    } else {
        double d;
        memcpy(&d, (const char *)buf + i * 8, 8);
        return d;
    }
}

/* ---- random numbers ------------------------------------------------------ */

uint64_t tu_seed(void)
{
    static int have;
    static uint64_t seed;
    if (!have) {
        const char *v = getenv("WR_TEST_SEED");
        if (v != NULL && v[0] != '\0')
            seed = strtoull(v, NULL, 0);
        else
            seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
        have = 1;
        diag("seed %" PRIu64 " (set WR_TEST_SEED=%" PRIu64 " to repeat this run)", seed, seed);
    }
    return seed;
}

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
    r->s = seed;
}

uint64_t tu_rand(tu_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t tu_below(tu_rng *r, uint64_t n)
{
    /* rejection keeps it uniform; the loop almost never repeats */
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do x = tu_rand(r); while (x >= lim);
    return x % n;
}

double tu_unit(tu_rng *r)
{
    return (double)(tu_rand(r) >> 11) * 0x1p-53;
}

/* ---- types and ops -------------------------------------------------------- */

const wr_type tu_types[TU_NTYPES] = { WR_INT32, WR_INT64, WR_UINT32, WR_UINT64, WR_FLOAT, WR_DOUBLE };
const wr_op tu_ops[TU_NOPS] = { WR_SUM, WR_PROD, WR_MIN, WR_MAX, WR_BAND, WR_BOR, WR_BXOR };

const size_t tu_sizes[] = { 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025,
                            4095, 4096, 4097, 65537, ((size_t)1 << 20) + 3 };
const size_t tu_nsizes = sizeof tu_sizes / sizeof tu_sizes[0];

size_t tu_make_sizes(tu_rng *r, size_t *out, size_t nrandom, size_t maxrandom, size_t *maxn)
{
    char list[256] = "";
    size_t i, n = 0, used = 0;
    for (i = 0; i < tu_nsizes; i++) out[n++] = tu_sizes[i];
    for (i = 0; i < nrandom; i++) {
        out[n] = 1 + (size_t)tu_below(r, maxrandom);
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, " %zu", out[n]);
        n++;
    }
    if (nrandom) diag("random sizes:%s", list);
    *maxn = 0;
    for (i = 0; i < n; i++)
        if (out[i] > *maxn) *maxn = out[i];
    return n;
}

const char *tu_type_name(wr_type t)
{
    switch (t) {
    case WR_INT32: return "int32";
    case WR_INT64: return "int64";
    case WR_UINT32: return "uint32";
    case WR_UINT64: return "uint64";
    case WR_FLOAT: return "float";
    case WR_DOUBLE: return "double";
    }
    return "bad-type";
}

const char *tu_op_name(wr_op op)
{
    switch (op) {
    case WR_SUM: return "SUM";
    case WR_PROD: return "PROD";
    case WR_MIN: return "MIN";
    case WR_MAX: return "MAX";
    case WR_BAND: return "BAND";
    case WR_BOR: return "BOR";
    case WR_BXOR: return "BXOR";
    }
    return "bad-op";
}

size_t tu_size(wr_type t)
{
    return size_of(t);
}

int tu_is_float(wr_type t)
{
    return t == WR_FLOAT || t == WR_DOUBLE;
}

int tu_is_signed(wr_type t)
{
    return t == WR_INT32 || t == WR_INT64;
}

int tu_valid(wr_type t, wr_op op)
{
    int bitwise = op == WR_BAND || op == WR_BOR || op == WR_BXOR;
    return !(bitwise && tu_is_float(t));
}

static inline unsigned width(wr_type t)
{
    return (unsigned)size_of(t) * 8;
}

static inline uint64_t mask(wr_type t)
{
    return width(t) == 64 ? UINT64_MAX : (UINT64_C(1) << width(t)) - 1;
}

static inline uint64_t sign_bit(wr_type t)
{
    return UINT64_C(1) << (width(t) - 1);
}

/* ---- elements -------------------------------------------------------------- */

uint64_t tu_get_bits(const void *buf, wr_type t, size_t i)
{
    return get_bits(buf, t, i);
}

void tu_set_bits(void *buf, wr_type t, size_t i, uint64_t bits)
{
    if (tu_size(t) == 4) {
        uint32_t v = (uint32_t)bits;
        memcpy((char *)buf + i * 4, &v, 4);
    } else {
        memcpy((char *)buf + i * 8, &bits, 8);
    }
}

long double tu_get_f(const void *buf, wr_type t, size_t i)
{
    return get_f(buf, t, i);
}

void tu_set_f(void *buf, wr_type t, size_t i, double v)
{
    if (t == WR_FLOAT) {
        float f = (float)v;
        memcpy((char *)buf + i * 4, &f, 4);
    } else {
        memcpy((char *)buf + i * 8, &v, 8);
    }
}

const char *tu_fmt(const void *elem, wr_type t, char *buf, size_t len)
{
    uint64_t b = tu_get_bits(elem, t, 0);
    switch (t) {
    case WR_INT32:
        snprintf(buf, len, "%" PRId64, (int64_t)(b & 0x7fffffffu) - (int64_t)(b & 0x80000000u));
        break;
    case WR_INT64:
        if (b & sign_bit(t))
            snprintf(buf, len, "-%" PRIu64, (~b) + 1);
        else
            snprintf(buf, len, "%" PRIu64, b);
        break;
    case WR_UINT32: case WR_UINT64:
        snprintf(buf, len, "%" PRIu64, b);
        break;
    case WR_FLOAT: {
        float f;
        memcpy(&f, elem, 4);
        snprintf(buf, len, "%.9g (%a)", (double)f, (double)f);
        break;
    }
    case WR_DOUBLE: {
        double d;
        memcpy(&d, elem, 8);
        snprintf(buf, len, "%.17g (%a)", d, d);
        break;
    }
    }
    return buf;
}

void tu_identity(wr_type t, wr_op op, void *elem)
{
    /* DESIGN.md: SUM 0, PROD 1, MIN +inf / type max, MAX -inf / type min,
     * BAND all ones, BOR 0, BXOR 0. */
    if (tu_is_float(t)) {
        double v = 0.0;
        switch (op) {
        case WR_PROD: v = 1.0; break;
        case WR_MIN: v = HUGE_VAL; break;
        case WR_MAX: v = -HUGE_VAL; break;
        default: v = 0.0; break;
        }
        tu_set_f(elem, t, 0, v);
        return;
    }
    {
        uint64_t v = 0;
        switch (op) {
        case WR_PROD: v = 1; break;
        case WR_MIN: v = tu_is_signed(t) ? mask(t) >> 1 : mask(t); break;
        case WR_MAX: v = tu_is_signed(t) ? sign_bit(t) : 0; break;
        case WR_BAND: v = mask(t); break;
        default: v = 0; break;
        }
        tu_set_bits(elem, t, 0, v);
    }
}

static inline int is_nan_bits(uint64_t b, wr_type t)
{
    if (t == WR_FLOAT) return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
    if (t == WR_DOUBLE)
        return (b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000) &&
               (b & UINT64_C(0x000fffffffffffff)) != 0;
    return 0;
}

const char *tu_fmt_bits(const void *elem, wr_type t, char *buf, size_t len)
{
    uint64_t b = tu_get_bits(elem, t, 0);
    if (t == WR_FLOAT) {
        float f;
        memcpy(&f, elem, 4);
        snprintf(buf, len, "%a (0x%08" PRIx64 ")", (double)f, b);
    } else {
        double d;
        memcpy(&d, elem, 8);
        snprintf(buf, len, "%a (0x%016" PRIx64 ")", d, b);
    }
    return buf;
}

int tu_same(const void *a, const void *b, wr_type t)
{
    uint64_t x = get_bits(a, t, 0), y = get_bits(b, t, 0);
    if (is_nan_bits(x, t) && is_nan_bits(y, t)) return 1;
    return x == y;
}

/* ---- the reference ---------------------------------------------------------- */

/* An order key: key(a) < key(b) exactly when a < b, for integers of either
 * signedness, and for non-NaN floats with -0 < +0 (IEEE 754-2019 minimum /
 * maximum order; the sign-magnitude float becomes an offset-binary integer). */
static inline uint64_t order_key(uint64_t b, wr_type t)
{
    if (tu_is_float(t))
        return (b & sign_bit(t)) ? (~b & mask(t)) : (b | sign_bit(t));
    if (tu_is_signed(t))
        return b ^ sign_bit(t);
    return b;
}

static inline uint64_t combine_bits(uint64_t a, uint64_t b, wr_type t, wr_op op)
{
    switch (op) {
    case WR_SUM: return (a + b) & mask(t);
    case WR_PROD: return (a * b) & mask(t);
    case WR_MIN:
    case WR_MAX:
        if (is_nan_bits(a, t)) return a;
        if (is_nan_bits(b, t)) return b;
        if (op == WR_MIN) return order_key(b, t) < order_key(a, t) ? b : a;
        return order_key(b, t) > order_key(a, t) ? b : a;
    case WR_BAND: return a & b;
    case WR_BOR: return a | b;
    case WR_BXOR: return a ^ b;
    }
    return a;
}

static inline int by_bits(const tu_acc *a)
{
    return !tu_is_float(a->t) || a->op == WR_MIN || a->op == WR_MAX;
}

void tu_acc_init(tu_acc *a, wr_type t, wr_op op)
{
    unsigned char id[8];
    memset(a, 0, sizeof *a);
    a->t = t;
    a->op = op;
    tu_identity(t, op, id);
    a->bits = get_bits(id, t, 0);
    /* -0 is the true neutral of IEEE addition (-0 + x == x, bit for bit;
     * +0 would turn a sum of -0s into +0); the identity DESIGN.md gives for
     * an empty SUM, +0, is what tu_acc_value returns before any element. */
    a->s = op == WR_PROD ? 1.0L : -0.0L;
}

void tu_acc_add(tu_acc *a, const void *buf, size_t i)
{
    a->n++;
    if (by_bits(a)) {
        a->bits = combine_bits(a->bits, get_bits(buf, a->t, i), a->t, a->op);
    } else if (a->op == WR_PROD) {
        a->s *= get_f(buf, a->t, i);
    } else {
        /* Neumaier's variant of Kahan summation; non-finite input makes the
         * compensation meaningless, so from then on it is a plain sum. */
        long double x = get_f(buf, a->t, i), s = a->s + x;
        if (isfinite(s) && isfinite(x)) {
            if (fabsl(a->s) >= fabsl(x)) a->c += (a->s - s) + x;
            else a->c += (x - s) + a->s;
        } else {
            a->c = 0.0L;
        }
        a->s = s;
        a->mag += fabsl(x);
    }
}

static long double acc_exact(const tu_acc *a)
{
    /* adding a zero compensation would turn -0 into +0 */
    return isfinite(a->s) && a->c != 0.0L ? a->s + a->c : a->s;
}

void tu_acc_value(const tu_acc *a, void *elem)
{
    if (a->n == 0)
        tu_identity(a->t, a->op, elem);
    else if (by_bits(a))
        tu_set_bits(elem, a->t, 0, a->bits);
    else if (a->t == WR_FLOAT) {
        float f = (float)acc_exact(a);   /* one rounding, long double to float */
        memcpy(elem, &f, 4);
    } else {
        double d = (double)acc_exact(a);
        memcpy(elem, &d, 8);
    }
}

static long double unit_roundoff(wr_type t)
{
    return t == WR_FLOAT ? 0x1p-24L : 0x1p-53L;
}

int tu_acc_match(const tu_acc *a, const void *got, double slack)
{
    unsigned char want[8];
    long double g, x, err, bound;
    if (by_bits(a)) {
        uint64_t b = get_bits(got, a->t, 0);
        return b == a->bits || (is_nan_bits(b, a->t) && is_nan_bits(a->bits, a->t));
    }
    tu_acc_value(a, want);
    if (tu_same(want, got, a->t)) return 1;
    if (slack <= 0) return 0;
    g = get_f(got, a->t, 0);
    x = acc_exact(a);
    if (!isfinite(x) || !isfinite(g)) return 0;   /* non-finite results must match exactly */
    err = fabsl(g - x);
    if (a->op == WR_SUM) {
        bound = (long double)slack * unit_roundoff(a->t) * a->mag;
    } else {
        long double mu = (long double)slack * unit_roundoff(a->t);
        if (mu >= 1.0L) return 1;
        bound = mu / (1.0L - mu) * fabsl(x);
    }
    return err <= bound;
}

void tu_acc_explain(const tu_acc *a, const void *got, char *buf, size_t len)
{
    unsigned char want[8];
    char w[96], g[96];
    tu_acc_value(a, want);
    tu_fmt(want, a->t, w, sizeof w);
    tu_fmt(got, a->t, g, sizeof g);
    if (by_bits(a))
        snprintf(buf, len, "expected %s, got %s", w, g);
    else
        snprintf(buf, len, "expected %s, got %s (error %Lg, sum|x| %Lg)", w, g,
                 fabsl(get_f(got, a->t, 0) - acc_exact(a)), a->mag);
}

static unsigned ceil_log2(size_t n)
{
    unsigned k = 0;
    while (k < 64 && ((size_t)1 << k) < n) k++;
    return k;
}

double tu_reduce_slack(wr_op op, size_t n)
{
    /* DESIGN.md: |r - exact| <= (ceil(log2 n) + 1024) u sum|x| for SUM.  A
     * product in any order is within gamma_{n-1} relative. */
    if (op == WR_PROD) return (double)n;
    return (double)ceil_log2(n) + 1024.0;
}

double tu_scan_slack(wr_op op, size_t m)
{
    /* DESIGN.md: output i = (base of its block) + (scan inside a block of at
     * most 4096 elements).  The in-block scan adds at most 4096 roundings, the
     * base one per earlier block; 64 more cover a per-thread level of bases. */
    if (op == WR_PROD) return (double)m;
    return 4096.0 + (double)((m + 4095) / 4096) + (double)ceil_log2(m) + 64.0;
}

/* ---- data ------------------------------------------------------------------- */

int tu_kind_applies(wr_type t, wr_op op, enum tu_kind kind)
{
    if (kind == TU_EXACT) return 1;
    return tu_is_float(t) && (op == WR_SUM || op == WR_PROD);
}

const char *tu_kind_name(enum tu_kind kind)
{
    return kind == TU_EXACT ? "exact" : "rounded";
}

/* 1 with probability about k/group (always when group <= k). */
static int now_and_then(tu_rng *r, size_t k, size_t group)
{
    return group <= k || tu_below(r, group) < k;
}

void tu_fill(tu_rng *r, void *buf, size_t n, wr_type t, wr_op op, enum tu_kind kind, size_t group)
{
    size_t i;
    if (group == 0) group = 1;
    if (!tu_is_float(t)) {
        unsigned w = width(t);
        for (i = 0; i < n; i++) {
            uint64_t v = tu_rand(r) & mask(t);
            switch (op) {
            case WR_PROD:
                /* odd factors keep the wrapped product from collapsing to 0;
                 * a few even ones still exercise the carries */
                v |= 1;
                if (now_and_then(r, 4, group < 16 ? 16 : group)) v &= ~(uint64_t)1;
                break;
            case WR_BAND:
                v = mask(t);
                if (now_and_then(r, 8, group)) v &= ~(UINT64_C(1) << tu_below(r, w));
                break;
            case WR_BOR:
                v = 0;
                if (now_and_then(r, 8, group)) v |= UINT64_C(1) << tu_below(r, w);
                break;
            default:
                break;
            }
            tu_set_bits(buf, t, i, v);
        }
        return;
    }
    for (i = 0; i < n; i++) {
        double v;
        if (op == WR_MIN || op == WR_MAX) {
            v = ldexp(tu_unit(r) - 0.5, (int)tu_below(r, 41) - 20);
        } else if (kind == TU_EXACT && op == WR_SUM) {
            /* integer values whose every partial sum is exact in the type */
            size_t range = t == WR_FLOAT ? ((size_t)1 << 23) / group : 1000;
            if (t == WR_FLOAT && range > 8) range = 8;
            if (range < 1) range = 1;
            v = (double)tu_below(r, 2 * range + 1) - (double)range;
        } else if (kind == TU_EXACT) {
            /* +-1 with a few +-2 and +-0.5: every product is a power of two */
            v = 1.0;
            if (now_and_then(r, 16, group < 64 ? 64 : group)) v = tu_below(r, 2) ? 2.0 : 0.5;
            if (tu_below(r, 2)) v = -v;
        } else if (op == WR_SUM) {
            /* mostly positive, so that partial sums grow and a long
             * sequential accumulation shows its error */
            v = ldexp(tu_unit(r), (int)tu_below(r, 17) - 8);
            if (tu_below(r, 4) == 0) v = -v;
        } else {
            /* factors near 1 whose product stays in range for any group */
            double a = 2.0 / sqrt((double)group);
            if (a > 0.5) a = 0.5;
            v = 1.0 + (2.0 * tu_unit(r) - 1.0) * a;
            if (tu_below(r, 2)) v = -v;
        }
        tu_set_f(buf, t, i, v);
    }
}

/* ---- whole-result checks -------------------------------------------------------- */

int tu_check_reduce(const void *in, size_t n, wr_type t, wr_op op, const void *got,
                    int bounded, char *why, size_t len)
{
    tu_acc a;
    size_t i;
    char e[256];
    tu_acc_init(&a, t, op);
    for (i = 0; i < n; i++) tu_acc_add(&a, in, i);
    if (tu_acc_match(&a, got, bounded ? tu_reduce_slack(op, n) : 0)) return 1;
    tu_acc_explain(&a, got, e, sizeof e);
    snprintf(why, len, "count %zu: %s", n, e);
    return 0;
}

int tu_check_scan(const void *in, const void *out, size_t n, wr_type t, wr_op op,
                  int exclusive, int bounded, char *why, size_t len)
{
    tu_acc a;
    size_t i, sz = size_of(t);
    char e[256];
    tu_acc_init(&a, t, op);
    for (i = 0; i < n; i++) {
        const void *got = (const char *)out + i * sz;
        if (!exclusive) tu_acc_add(&a, in, i);
        if (!tu_acc_match(&a, got, bounded ? tu_scan_slack(op, a.n) : 0)) {
            tu_acc_explain(&a, got, e, sizeof e);
            snprintf(why, len, "count %zu: out[%zu]: %s", n, i, e);
            return 0;
        }
        if (exclusive) tu_acc_add(&a, in, i);
    }
    return 1;
}

int tu_check_rows(const void *in, const void *out, size_t rows, size_t cols, wr_type t,
                  wr_op op, int bounded, char *why, size_t len)
{
    size_t r, c, sz = size_of(t);
    char e[256];
    for (r = 0; r < rows; r++) {
        tu_acc a;
        const void *got = (const char *)out + r * sz;
        tu_acc_init(&a, t, op);
        for (c = 0; c < cols; c++) tu_acc_add(&a, in, r * cols + c);
        if (!tu_acc_match(&a, got, bounded ? tu_reduce_slack(op, cols) : 0)) {
            tu_acc_explain(&a, got, e, sizeof e);
            snprintf(why, len, "%zu x %zu: row %zu: %s", rows, cols, r, e);
            return 0;
        }
    }
    return 1;
}

int tu_check_segments(const void *in, const void *out, size_t nseg, const size_t *offsets,
                      wr_type t, wr_op op, int bounded, char *why, size_t len)
{
    size_t s, i, sz = size_of(t);
    char e[256];
    for (s = 0; s < nseg; s++) {
        tu_acc a;
        const void *got = (const char *)out + s * sz;
        tu_acc_init(&a, t, op);
        for (i = offsets[s]; i < offsets[s + 1]; i++) tu_acc_add(&a, in, i);
        if (!tu_acc_match(&a, got, bounded ? tu_reduce_slack(op, offsets[s + 1] - offsets[s]) : 0)) {
            tu_acc_explain(&a, got, e, sizeof e);
            snprintf(why, len, "%zu segments: segment %zu [%zu, %zu): %s", nseg, s, offsets[s],
                     offsets[s + 1], e);
            return 0;
        }
    }
    return 1;
}

size_t tu_ref_argext(const void *in, size_t n, wr_type t, int is_max)
{
    size_t i, best = 0;
    for (i = 0; i < n; i++) {
        if (tu_is_float(t)) {
            long double x = get_f(in, t, i), b;
            if (isnan(x)) return i;                 /* the first NaN wins */
            b = get_f(in, t, best);
            if (is_max ? x > b : x < b) best = i;   /* -0 == +0: ties keep the first */
        } else {
            uint64_t x = order_key(get_bits(in, t, i), t), b = order_key(get_bits(in, t, best), t);
            if (is_max ? x > b : x < b) best = i;
        }
    }
    return best;
}

/* ---- many checks, one TAP line ------------------------------------------------- */

void tu_tally_init(tu_tally *t)
{
    memset(t, 0, sizeof *t);
}

int tu_expect(tu_tally *t, int cond, const char *fmt, ...)
{
    t->checks++;
    if (!cond && t->fails++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->first, sizeof t->first, fmt, ap);
        va_end(ap);
    }
    return cond;
}

int tu_report(const tu_tally *t, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!ok(t->fails == 0 && t->checks > 0, "%s", what)) {
        if (t->checks == 0) diag("    no check ran");
        else diag("    %lu of %lu checks failed; first: %s", t->fails, t->checks, t->first);
        return 0;
    }
    return 1;
}

/* ---- memory -------------------------------------------------------------------- */

void *tu_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) bail("out of memory allocating %zu bytes", bytes);
    return p;
}

void tu_poison(void *buf, size_t bytes)
{
    memset(buf, TU_POISON, bytes);
}

int tu_poisoned(const void *buf, size_t bytes)
{
    /* every byte equals the first, and the first is the poison */
    const unsigned char *p = (const unsigned char *)buf;
    return bytes == 0 || (p[0] == TU_POISON && memcmp(p, p + 1, bytes - 1) == 0);
}

#define GUARD 64   /* bytes of poison on each side; also keeps the payload aligned */

void *tu_guard_alloc(size_t bytes)
{
    unsigned char *base = (unsigned char *)tu_xmalloc(GUARD + GUARD + bytes + GUARD);
    memcpy(base, &bytes, sizeof bytes);
    tu_poison(base + GUARD, GUARD + bytes + GUARD);
    return base + 2 * GUARD;
}

int tu_guard_ok(const void *p)
{
    const unsigned char *q = (const unsigned char *)p;
    size_t bytes;
    memcpy(&bytes, q - 2 * GUARD, sizeof bytes);
    return tu_poisoned(q - GUARD, GUARD) && tu_poisoned(q + bytes, GUARD);
}

void tu_guard_free(void *p)
{
    if (p) free((unsigned char *)p - 2 * GUARD);
}

/* ---- error text ------------------------------------------------------------------ */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

int tu_mentions(const char *msg, const char *word)
{
    size_t wl = strlen(word);
    const char *p = msg;
    if (msg == NULL || wl == 0) return 0;
    while ((p = strstr(p, word)) != NULL) {
        int before = p == msg || !ident_char(p[-1]);
        int after = !ident_char(p[wl]);
        if (before && after) return 1;
        p++;
    }
    return 0;
}

int tu_contains(const char *msg, const char *sub)
{
    return msg != NULL && strstr(msg, sub) != NULL;
}

wr_context *tu_context(wr_backend b)
{
    wr_context *ctx = NULL;
    wr_status st = wr_context_create(&ctx, b);
    if (st != WR_SUCCESS)
        bail("wr_context_create(%d): %s: %s", (int)b, wr_status_string(st), wr_context_error(NULL));
    return ctx;
}

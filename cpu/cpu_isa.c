/*
 * cpu_isa.c -- which variant of the kernels the process runs (cpu_isa.h),
 * and the entry points that cpu_backend.c calls, which go through it.
 *
 * The variant is chosen once per process, when the first context opens the
 * cpu backend: the one WARPRED_CPU_ISA names (for tests and comparisons),
 * else the best one this build has and the CPU runs.  From then on a call
 * costs one load of a pointer that never changes again and one indirect
 * call.  A process runs one variant only: a later context whose
 * WARPRED_CPU_ISA names another one is refused rather than silently given
 * the first (the variable is read, like every libwarpred variable, through
 * the host api: a privileged process sees none).
 *
 * The CPU is asked with cpuid (x86-64: every feature the variant's target
 * pragma names, and whether the OS saves the AVX/AVX-512 registers) or the
 * kernel's hwcaps (aarch64), as libsodium's runtime.c and glibc's
 * cpu_features do; __builtin_cpu_supports knows too few of the x86-64-v3
 * features in clang 14.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#if defined(__x86_64__) && defined(__GNUC__)
#  include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(HAVE_SYS_AUXV_H) && defined(HAVE_GETAUXVAL)
#  include <sys/auxv.h>
#endif
#include "cpu_internal.h"

/* The variants' tables, where this build has them (config.h). */
extern const struct wrcpu_kernels wrcpu_kernels_baseline;
#define WRCPU_HAS_baseline (&wrcpu_kernels_baseline)
#ifdef WR_CPU_ISA_V3
extern const struct wrcpu_kernels wrcpu_kernels_v3;
#  define WRCPU_HAS_v3 (&wrcpu_kernels_v3)
#else
#  define WRCPU_HAS_v3 NULL
#endif
#ifdef WR_CPU_ISA_V4
extern const struct wrcpu_kernels wrcpu_kernels_v4;
#  define WRCPU_HAS_v4 (&wrcpu_kernels_v4)
#else
#  define WRCPU_HAS_v4 NULL
#endif
#ifdef WR_CPU_ISA_SVE
extern const struct wrcpu_kernels wrcpu_kernels_sve;
#  define WRCPU_HAS_sve (&wrcpu_kernels_sve)
#else
#  define WRCPU_HAS_sve NULL
#endif

/* ---- what the CPU has ----------------------------------------------------- */

/* Each lacks_<id>() writes the features the CPU lacks for variant id into
 * buf ("AVX-512BW, AVX-512VL") and returns it, or returns NULL when the CPU
 * runs the variant. */
static const char *lacks_baseline(char *buf, size_t len)
{
    (void)buf;
    (void)len;
    return NULL;
}

/* Append name to the list in buf. */
static void add_missing(char *buf, size_t len, const char *name)
{
    size_t n = strlen(buf);
    if (n < len) snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

#if defined(__x86_64__) && defined(__GNUC__)
enum { EAX, EBX, ECX, EDX };
struct x86_feature {
    const char *name;
    unsigned leaf, reg, bit;     /* cpuid leaf (subleaf 0), register, bit */
};
/* x86-64-v3: the features of WRCPU_TARGET_V3 (x86-64-v2's among them). */
static const struct x86_feature x86_v3[] = {
    { "SSE3", 1, ECX, 0 },        { "SSSE3", 1, ECX, 9 },      { "FMA", 1, ECX, 12 },
    { "CMPXCHG16B", 1, ECX, 13 }, { "SSE4.1", 1, ECX, 19 },    { "SSE4.2", 1, ECX, 20 },
    { "MOVBE", 1, ECX, 22 },      { "POPCNT", 1, ECX, 23 },    { "XSAVE", 1, ECX, 26 },
    { "AVX", 1, ECX, 28 },        { "F16C", 1, ECX, 29 },      { "BMI1", 7, EBX, 3 },
    { "AVX2", 7, EBX, 5 },        { "BMI2", 7, EBX, 8 },       { "LAHF/SAHF", 0x80000001u, ECX, 0 },
    { "LZCNT", 0x80000001u, ECX, 5 },
};
/* x86-64-v4: those of WRCPU_TARGET_V4 beyond x86-64-v3. */
static const struct x86_feature x86_v4[] = {
    { "AVX-512F", 7, EBX, 16 }, { "AVX-512DQ", 7, EBX, 17 }, { "AVX-512CD", 7, EBX, 28 },
    { "AVX-512BW", 7, EBX, 30 }, { "AVX-512VL", 7, EBX, 31 },
};
/* XCR0: the register state the OS saves (SSE, AVX; AVX-512's opmask and
 * upper ZMM halves and registers). */
#define XCR0_AVX 0x06u
#define XCR0_AVX512 0xe6u

static int x86_has(const struct x86_feature *f)
{
    unsigned r[4] = { 0, 0, 0, 0 };
    if (!__get_cpuid_count(f->leaf, 0, &r[EAX], &r[EBX], &r[ECX], &r[EDX])) return 0;
    return (r[f->reg] >> f->bit) & 1;
}

/* The register state the OS saves and restores (0 without OSXSAVE). */
static unsigned x86_xcr0(void)
{
    unsigned a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return lo;
}

static void x86_missing(const struct x86_feature *f, size_t n, char *buf, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!x86_has(&f[i])) add_missing(buf, len, f[i].name);
}

static const char *lacks_v3(char *buf, size_t len)
{
    buf[0] = '\0';
    x86_missing(x86_v3, sizeof x86_v3 / sizeof x86_v3[0], buf, len);
    if ((x86_xcr0() & XCR0_AVX) != XCR0_AVX) add_missing(buf, len, "AVX state saved by the OS");
    return buf[0] ? buf : NULL;
}

static const char *lacks_v4(char *buf, size_t len)
{
    buf[0] = '\0';
    x86_missing(x86_v3, sizeof x86_v3 / sizeof x86_v3[0], buf, len);
    x86_missing(x86_v4, sizeof x86_v4 / sizeof x86_v4[0], buf, len);
    if ((x86_xcr0() & XCR0_AVX512) != XCR0_AVX512) add_missing(buf, len, "AVX-512 state saved by the OS");
    return buf[0] ? buf : NULL;
}
#elif defined(__x86_64__)
/* No cpuid.h: the baseline only (configure builds no other variant for a
 * compiler without GCC's pragmas either). */
static const char *lacks_v3(char *buf, size_t len)
{
    snprintf(buf, len, "a way to ask (built without cpuid.h)");
    return buf;
}
#  define lacks_v4 lacks_v3
#endif

#if defined(__aarch64__)
#  ifndef HWCAP_SVE
#    define HWCAP_SVE (1ul << 22)
#  endif
static const char *lacks_sve(char *buf, size_t len)
{
#  if defined(HAVE_SYS_AUXV_H) && defined(HAVE_GETAUXVAL)
    if (getauxval(AT_HWCAP) & HWCAP_SVE) return NULL;
    snprintf(buf, len, "SVE");
#  else
    snprintf(buf, len, "a way to ask (no getauxval)");
#  endif
    return buf;
}
#endif

/* ---- the choice ------------------------------------------------------------ */

struct wrcpu_variant {
    const char *id;                      /* "v3": WRCPU_ISA, WARPRED_CPU_ISA */
    const char *name;                    /* "x86-64-v3": wr_context_describe */
    const struct wrcpu_kernels *k;       /* NULL: not in this build */
    const char *(*lacks)(char *buf, size_t len);
};

#define WRCPU_VARIANT_ENTRY(id, name) { #id, name, WRCPU_HAS_##id, lacks_##id },
static const struct wrcpu_variant wrcpu_variants[] = { WRCPU_VARIANTS(WRCPU_VARIANT_ENTRY) };
#undef WRCPU_VARIANT_ENTRY
#define WRCPU_NVARIANTS (sizeof wrcpu_variants / sizeof wrcpu_variants[0])

/* The process's variant; NULL until the first context opens the backend. */
static const struct wrcpu_variant *wrcpu_current;

/* The best variant that this build has and the CPU runs (the baseline at
 * least). */
static const struct wrcpu_variant *best_variant(void)
{
    char buf[WR_ERRLEN];
    size_t i;
    for (i = WRCPU_NVARIANTS; i-- > 1;)
        if (wrcpu_variants[i].k != NULL && wrcpu_variants[i].lacks(buf, sizeof buf) == NULL)
            return &wrcpu_variants[i];
    return &wrcpu_variants[0];
}

/* Make v the process's variant unless it has one; return the one it has. */
static const struct wrcpu_variant *settle(const struct wrcpu_variant *v)
{
    const struct wrcpu_variant *none = NULL;
    if (__atomic_compare_exchange_n(&wrcpu_current, &none, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return v;
    return none;
}

static const struct wrcpu_variant *current(void)
{
    const struct wrcpu_variant *v = __atomic_load_n(&wrcpu_current, __ATOMIC_ACQUIRE);
    return v != NULL ? v : settle(best_variant());
}

wr_status wrcpu_isa_open(const struct wr_host_api *host, char *err)
{
    const char *want = host->getenv("WARPRED_CPU_ISA"), *why;
    const struct wrcpu_variant *v = NULL, *cur;
    char buf[WR_ERRLEN];
    size_t i;

    if (want == NULL || want[0] == '\0' || strcasecmp(want, "auto") == 0) {
        (void)current();
        return WR_SUCCESS;
    }
    for (i = 0; i < WRCPU_NVARIANTS && v == NULL; i++)
        if (strcasecmp(want, wrcpu_variants[i].id) == 0 || strcasecmp(want, wrcpu_variants[i].name) == 0)
            v = &wrcpu_variants[i];
    if (v == NULL) {
        buf[0] = '\0';
        for (i = 0; i < WRCPU_NVARIANTS; i++) add_missing(buf, sizeof buf, wrcpu_variants[i].id);
        snprintf(err, WR_ERRLEN, "WARPRED_CPU_ISA=%.40s: expected one of auto, %s", want, buf);
        return WR_ERR_INVALID_ARG;
    }
    if (v->k == NULL) {
        snprintf(err, WR_ERRLEN, "WARPRED_CPU_ISA=%.40s: this libwarpred was built without the %s kernels"
                 " (its compiler could not target them)", want, v->name);
        return WR_ERR_NO_BACKEND;
    }
    if ((why = v->lacks(buf, sizeof buf)) != NULL) {
        snprintf(err, WR_ERRLEN, "WARPRED_CPU_ISA=%.40s: this CPU cannot run the %s kernels; it lacks %s", want,
                 v->name, why);
        return WR_ERR_NO_BACKEND;
    }
    if ((cur = settle(v)) != v) {
        snprintf(err, WR_ERRLEN, "WARPRED_CPU_ISA=%.40s: this process runs the %s kernels already"
                 " (chosen when its first context was created)", want, cur->name);
        return WR_ERR_INVALID_ARG;
    }
    return WR_SUCCESS;
}

const char *wrcpu_isa_name(void)
{
    return current()->name;
}

/* ---- the entry points -------------------------------------------------------- */

wr_status wrcpu_reduce(const void *in, void *out, size_t count, wr_type type, wr_op op, char *err)
{
    return current()->k->reduce(in, out, count, type, op, err);
}

wr_status wrcpu_reduce_rows(const void *in, void *out, size_t rows, size_t cols, wr_type type, wr_op op,
                            char *err)
{
    return current()->k->reduce_rows(in, out, rows, cols, type, op, err);
}

wr_status wrcpu_reduce_segments(const void *in, void *out, size_t nsegments, const size_t *offsets,
                                wr_type type, wr_op op, char *err)
{
    return current()->k->reduce_segments(in, out, nsegments, offsets, type, op, err);
}

wr_status wrcpu_argext(const void *in, size_t count, wr_type type, int is_max, size_t *index, void *value,
                       char *err)
{
    return current()->k->argext(in, count, type, is_max, index, value, err);
}

wr_status wrcpu_scan(const void *in, void *out, size_t count, wr_type type, wr_op op, int exclusive,
                     char *err)
{
    return current()->k->scan(in, out, count, type, op, exclusive, err);
}

wr_status wrcpu_blas(const struct wr_call *c, char *err)
{
    return current()->k->blas(c, err);
}

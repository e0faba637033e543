/* mpi_test.c -- see mpi_test.h. */
#include <config.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"
#include "wr_ops.h"

int mt_rank, mt_size = 1;
int mt_device;
static wr_context *ctx;

/* ---- CUDA device memory through the driver library (libcuda.so.1) -------
 * Loaded at run time: the tests need no CUDA to build, and on a GPU node the
 * driver is all there is to rely on.  Allocations live in the device's
 * primary context, the one the cuda backend's runtime uses too. */
typedef int cu_result;
typedef unsigned long long cu_ptr;
static struct {
    cu_result (*init)(unsigned);
    cu_result (*device_get_count)(int *);
    cu_result (*device_get)(int *, int);
    cu_result (*primary_retain)(void **, int);
    cu_result (*ctx_set_current)(void *);
    cu_result (*mem_alloc)(cu_ptr *, size_t);
    cu_result (*mem_free)(cu_ptr);
    cu_result (*htod)(cu_ptr, const void *, size_t);
    cu_result (*dtoh)(void *, cu_ptr, size_t);
} cu;

/* "" when device memory is usable, else why not. */
static const char *cuda_open(void)
{
    static const char *const names[] = { "cuInit", "cuDeviceGetCount", "cuDeviceGet",
        "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuMemAlloc_v2", "cuMemFree_v2",
        "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2" };
    void **slots[] = { (void **)&cu.init, (void **)&cu.device_get_count, (void **)&cu.device_get,
        (void **)&cu.primary_retain, (void **)&cu.ctx_set_current, (void **)&cu.mem_alloc,
        (void **)&cu.mem_free, (void **)&cu.htod, (void **)&cu.dtoh };
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    void *pctx = NULL;
    int n = 0, dev = 0;
    size_t i;
    if (lib == NULL) return "no CUDA driver (libcuda.so.1)";
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*slots[i] = dlsym(lib, names[i])) == NULL) return "CUDA driver lacks a needed function";
    if (cu.init(0) != 0 || cu.device_get_count(&n) != 0 || n < 1) return "no CUDA device";
    /* device 0 for every rank: the cuda backend's runtime uses it too */
    if (cu.device_get(&dev, 0) != 0 || cu.primary_retain(&pctx, dev) != 0 ||
        cu.ctx_set_current(pctx) != 0)
        return "cannot use CUDA device 0";
    return "";
}

void *mt_alloc(size_t bytes)
{
    void *p;
    if (bytes == 0) return NULL;
    if (mt_device) {
        cu_ptr d = 0;
        if (cu.mem_alloc(&d, bytes) != 0) bail("cuMemAlloc(%zu) failed", bytes);
        return (void *)(uintptr_t)d;
    }
    p = malloc(bytes);
    if (p == NULL) bail("out of memory");
    return p;
}

void mt_put(void *buf, const void *host, size_t bytes)
{
    if (bytes == 0) return;
    if (mt_device) {
        if (cu.htod((cu_ptr)(uintptr_t)buf, host, bytes) != 0) bail("cuMemcpyHtoD failed");
    } else {
        memcpy(buf, host, bytes);
    }
}

void mt_get(void *host, const void *buf, size_t bytes)
{
    if (bytes == 0) return;
    if (mt_device) {
        if (cu.dtoh(host, (cu_ptr)(uintptr_t)buf, bytes) != 0) bail("cuMemcpyDtoH failed");
    } else {
        memcpy(host, buf, bytes);
    }
}

void mt_free(void *buf)
{
    if (buf == NULL) return;
    if (mt_device)
        cu.mem_free((cu_ptr)(uintptr_t)buf);
    else
        free(buf);
}

/* ---- collective TAP ----------------------------------------------------- */

void mt_skip_all(const char *reason)
{
    /* through tap.c: after mt_init, rank 0 has a lazy plan to drop */
    if (mt_rank == 0) skip_plan("%s", reason);
    wr_context_destroy(ctx);
    MPI_Finalize();
    exit(0);
}

static void start(int *argc, char ***argv, int threads)
{
    const char *dev = getenv("WR_TEST_MPI_DEVICE");
    char why[256] = "";
    int bad, any_bad, provided = MPI_THREAD_SINGLE;
    wr_status st;

    if (threads)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    mt_device = dev != NULL && strcmp(dev, "1") == 0;
    if (threads && provided < MPI_THREAD_MULTIPLE)
        snprintf(why, sizeof why, "the MPI library does not provide MPI_THREAD_MULTIPLE");
    if (mt_device && !why[0]) {
        const char *r = cuda_open();
        if (r[0]) snprintf(why, sizeof why, "WR_TEST_MPI_DEVICE=1: %s", r);
    }
    if (!why[0]) {
        st = wr_context_create(&ctx, WR_BACKEND_AUTO);
        if (st != WR_SUCCESS)
            snprintf(why, sizeof why, "wr_context_create: %s", wr_context_error(NULL));
        else if (mt_device && !wr_context_has_backend(ctx, WR_BACKEND_CUDA))
            snprintf(why, sizeof why, "WR_TEST_MPI_DEVICE=1: the context has no cuda backend (%s)",
                     wr_context_describe(ctx));
    }
    bad = why[0] != '\0';
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) {
        if (bad) mt_note("%s", why);
        mt_skip_all(why[0] ? why : "another rank cannot run the test");
    }
    if (mt_rank == 0) {
        plan_lazy();
        diag("%d ranks, %s buffers; %s", mt_size, mt_device ? "device" : "host", wr_context_describe(ctx));
    }
}

void mt_init(int *argc, char ***argv)
{
    start(argc, argv, 0);
}

void mt_init_threads(int *argc, char ***argv)
{
    start(argc, argv, 1);
}

wr_context *mt_ctx(void)
{
    return ctx;
}

void mt_plan(unsigned long n)
{
    if (mt_rank == 0) plan(n);
}

int mt_ok(int local_ok, const char *fmt, ...)
{
    int mine = local_ok ? INT_MAX : mt_rank, first_bad = INT_MAX;
    MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        ok(first_bad == INT_MAX, "%s", msg);
        if (first_bad != INT_MAX) diag("    failed on rank %d of %d (and maybe others)", first_bad, mt_size);
    }
    return first_bad == INT_MAX;
}

void mt_note(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "# rank %d: ", mt_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

int mt_finish(void)
{
    wr_context_destroy(ctx);
    ctx = NULL;
    MPI_Finalize();
    return 0;
}

/* ---- layouts ------------------------------------------------------------ */

const char *mt_layout_name(int layout)
{
    static const char *const names[MT_NLAYOUTS] = { "one each", "1000 each", "uneven",
        "odd ranks empty", "last rank only", "first rank only", "all empty", "large uneven" };
    return layout >= 0 && layout < MT_NLAYOUTS ? names[layout] : "?";
}

size_t mt_layout_count(int layout, int rank, int size)
{
    switch (layout) {
    case 0: return 1;
    case 1: return 1000;
    case 2: return (size_t)((rank * 37 + 11) % 53);
    case 3: return rank % 2 ? 0 : 777 + (size_t)rank;
    case 4: return rank == size - 1 ? 3001 : 0;
    case 5: return rank == 0 ? 2999 : 0;
    case 6: return 0;
    /* past the cpu backend's 4096-element blocks everywhere, and the last
     * rank (which has a base to apply when there are several) past the
     * size where that becomes a parallel loop */
    case 7: return rank == size - 1 ? 40000 : 4097 + 4099 * (size_t)rank;
    }
    return 0;
}

struct mt_piece mt_layout(int layout)
{
    struct mt_piece p = { 0, 0, 0 };
    int r;
    for (r = 0; r < mt_size; r++) {
        size_t c = mt_layout_count(layout, r, mt_size);
        if (r == mt_rank) {
            p.off = p.n;
            p.count = c;
        }
        p.n += c;
    }
    return p;
}

/* ---- data --------------------------------------------------------------- */

uint64_t mt_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* uniform in [0,1) with 53 random bits */
static double unit(uint64_t *s)
{
    return (double)(mt_rand(s) >> 11) * 0x1.0p-53;
}

static uint64_t int_value(uint64_t *s, wr_op op, enum mt_data data, unsigned bits)
{
    uint64_t r = mt_rand(s);
    if (data == MT_DATA_TIES) return r % 8;
    switch (op) {
    case WR_PROD: return (r >> 8) % 16 ? r | 1 : r;   /* mostly odd: the product stays nonzero */
    case WR_BAND: return ~(UINT64_C(1) << (r % bits));  /* bits drop out one at a time */
    case WR_BOR:  return UINT64_C(1) << (r % bits);     /* and come in one at a time */
    default:      return r;
    }
}

static double float_value(uint64_t *s, wr_op op, enum mt_data data)
{
    static const double prod_rare[] = { 2.0, -2.0, 0.5, -0.5 };
    static const double special[] = { -0.0, 0.0, INFINITY, -INFINITY };
    uint64_t r = mt_rand(s);
    switch (data) {
    case MT_DATA_EXACT:
        if (op == WR_PROD)  /* exponents random-walk slowly: no overflow */
            return r % 128 == 0 ? prod_rare[(r >> 8) % 4] : ((r >> 8) & 1 ? 1.0 : -1.0);
        return (double)((int)(r % 17) - 8);
    case MT_DATA_TIES: {
        double v = (double)(r % 4);
        return v == 0.0 && (r >> 8) & 1 ? -0.0 : v;
    }
    case MT_DATA_NEGZERO:
        return r % 128 == 0 ? 0.0 : -0.0;
    case MT_DATA_NAN:
        if (r % 64 == 0) return NAN;
        /* fall through */
    case MT_DATA_SPECIAL:
        if (r % 16 == 1) return special[(r >> 8) % 4];
        return 2.0 * unit(s) - 1.0;
    case MT_DATA_RANDOM:
    default:
        return op == WR_SUM ? unit(s) : 2.0 * unit(s) - 1.0;
    }
}

void mt_fill(void *buf, size_t n, wr_type t, wr_op op, enum mt_data data, uint64_t seed)
{
    uint64_t s = seed;
    size_t i;
    for (i = 0; i < n; i++) {
        switch (t) {
        case WR_INT32:  ((int32_t *)buf)[i] = (int32_t)(uint32_t)int_value(&s, op, data, 32); break;
        case WR_UINT32: ((uint32_t *)buf)[i] = (uint32_t)int_value(&s, op, data, 32); break;
        case WR_INT64:  ((int64_t *)buf)[i] = (int64_t)int_value(&s, op, data, 64); break;
        case WR_UINT64: ((uint64_t *)buf)[i] = int_value(&s, op, data, 64); break;
        case WR_FLOAT:  ((float *)buf)[i] = (float)float_value(&s, op, data); break;
        case WR_DOUBLE: ((double *)buf)[i] = float_value(&s, op, data); break;
        }
    }
}

const char *mt_type_name(wr_type t)
{
    static const char *const names[] = { "int32", "int64", "uint32", "uint64", "float", "double" };
    return (int)t >= 0 && (int)t < 6 ? names[t] : "?";
}

const char *mt_op_name(wr_op op)
{
    static const char *const names[] = { "SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR" };
    return (int)op >= 0 && (int)op < 7 ? names[op] : "?";
}

const char *mt_data_name(enum mt_data d)
{
    static const char *const names[] = { "random", "exact", "signed zeros and infinities",
                                         "with NaNs", "ties", "negative zeros" };
    return (int)d >= 0 && (int)d < 6 ? names[d] : "?";
}

int mt_cases(struct mt_case *cases)
{
    int n = 0, t, op;
    for (t = WR_INT32; t <= WR_DOUBLE; t++)
        for (op = WR_SUM; op <= WR_BXOR; op++) {
            struct mt_case c = { (wr_type)t, (wr_op)op, MT_DATA_RANDOM, 1 };
            if (!wr_op_valid(c.type, c.op)) continue;
            if (t == WR_FLOAT || t == WR_DOUBLE) {
                if (op == WR_SUM) {
                    c.exact = 0;
                    cases[n++] = c;         /* random: within the bound */
                    c.exact = 1;
                    c.data = MT_DATA_NEGZERO;
                    cases[n++] = c;
                }
                c.data = op == WR_SUM || op == WR_PROD ? MT_DATA_EXACT : MT_DATA_SPECIAL;
                cases[n++] = c;
                if (op == WR_MIN || op == WR_MAX) {
                    c.data = MT_DATA_NAN;
                    cases[n++] = c;
                }
            } else {
                cases[n++] = c;
            }
        }
    return n;
}

int mt_same(const void *a, const void *b, size_t n, size_t w, size_t *where)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp((const char *)a + i * w, (const char *)b + i * w, w) != 0) {
            if (where) *where = i;
            return 0;
        }
    return 1;
}

long double mt_get_ld(const void *buf, size_t i, wr_type t)
{
    switch (t) {
#define MT_GET(sfx, T, U, E) case E: return (long double)((const T *)buf)[i];
    WR_TYPES(MT_GET)
#undef MT_GET
    }
    return 0;
}

void mt_ref_reduce(const void *in, void *out, size_t n, wr_type t, wr_op op)
{
    size_t w = wr_type_size(t), i;
    if (n == 0) {
        wr_identity(t, op, out);
        return;
    }
    memcpy(out, in, w);
    for (i = 1; i < n; i++)
        wr_combine(t, op, out, (const char *)in + i * w);
}

void mt_ref_scan(const void *in, void *out, size_t n, wr_type t, wr_op op, int exclusive)
{
    size_t w = wr_type_size(t), i;
    unsigned char acc[8];
    for (i = 0; i < n; i++) {
        const char *x = (const char *)in + i * w;
        if (exclusive) {
            if (i == 0) wr_identity(t, op, (char *)out);
            else memcpy((char *)out + i * w, acc, w);
        }
        if (i == 0) memcpy(acc, x, w);
        else wr_combine(t, op, acc, x);
        if (!exclusive) memcpy((char *)out + i * w, acc, w);
    }
}

static int better(const void *in, size_t a, size_t b, wr_type t, int is_max)
{
    switch (t) {
#define MT_BETTER(sfx, T, U, E) \
    case E: return wr_arg_better_##sfx(((const T *)in)[a], ((const T *)in)[b], is_max);
    WR_TYPES(MT_BETTER)
#undef MT_BETTER
    }
    return 0;
}

int mt_ref_argext(const void *in, size_t n, wr_type t, int is_max, size_t *index)
{
    size_t best = 0, i;
    if (n == 0) return 0;
    for (i = 1; i < n; i++)
        if (better(in, best, i, t, is_max)) best = i;
    *index = best;
    return 1;
}

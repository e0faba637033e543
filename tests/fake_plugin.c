/*
 * fake_plugin.c -- stand-ins for the CUDA plugin, built only for the tests
 * (check_LTLIBRARIES with -rpath /nowhere, hwloc's idiom), one variant per
 * folder so that each file is named warpred_cuda.so like the real one:
 *
 *   FAKE_GOOD   a complete table.  int32 SUM (reduce, scans, segments) by a
 *               simple loop, every result tagged with + FAKE_TAG so that a
 *               test can tell it ran; argmin/argmax on int32; anything else
 *               fails with WR_ERR_UNSUPPORTED and a reason.  A reduce of
 *               exactly FAKE_FAIL_COUNT elements fails like a broken kernel
 *               launch (WR_ERR_DEVICE).
 *   FAKE_ABI    the same table with a wrong ABI number.
 *   FAKE_NODEV  open() fails: WR_ERR_NO_BACKEND, "no CUDA device".
 *   FAKE_NOSYM  the table exported under another name.
 *   FAKE_NULLFN the good table without its reduce_rows, which its caps
 *               still name.
 *   FAKE_HOSTILE the good table, plus a constructor that runs at dlopen()
 *               and creates the file named by WR_HOSTILE_MARKER (read with
 *               plain getenv, as an attacker's code would): tests/setuid.c
 *               checks that a privileged process never maps it.
 *   FAKE_NEEDSCORE the good table, but open() calls wr_type_size(), a symbol
 *               of libwarpred: it loads only where libwarpred's symbols are
 *               global, and tests/dlopen_local.c checks that the failure
 *               under dlopen(RTLD_LOCAL) is reported, never silent.
 *
 * Every variant whose open() can succeed parses WR_FAKE_COUNT (a whole
 * number from 1 to 1000000) with the host's env_count, as the CUDA plugin
 * parses its own variables once it has found a device, so that
 * tests/env_values.c can check a plugin's bad value without a GPU.
 *
 * "Device memory" of FAKE_GOOD: the address ranges in the environment
 * variables WR_FAKE_DEVICE, WR_FAKE_MANAGED and WR_FAKE_PINNED (pinned host
 * memory) ("ADDRESS:BYTES" in hex and decimal), read by open().  locate()
 * reports them; as they are really host
 * memory, the fake can compute on them, which lets a test check lib/'s
 * routing of device pointers without a GPU.
 */
#include <config.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wr_backend.h"
#include "fake_plugin.h"
#include <unistd.h>

#ifdef FAKE_HOSTILE
/* What a hostile plugin does first: anything, with the process's privileges. */
__attribute__((constructor)) static void fake_hostile_constructor(void)
{
    const char *marker = getenv("WR_HOSTILE_MARKER");
    int fd;
    if (marker == NULL || marker[0] == '\0') return;
    fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        char line[64];
        int n = snprintf(line, sizeof line, "uid %ld euid %ld\n", (long)getuid(), (long)geteuid());
        if (n > 0) (void)!write(fd, line, (size_t)n);
        close(fd);
    }
}
#endif

struct range { uintptr_t lo, hi; };
struct fake { struct range dev, managed, pinned; };

static struct range env_range(const struct wr_host_api *host, const char *name)
{
    struct range r = { 0, 0 };
    const char *v = host->getenv(name);
    char *end;
    if (v == NULL) return r;
    r.lo = (uintptr_t)strtoull(v, &end, 16);
    if (*end == ':') r.hi = r.lo + (uintptr_t)strtoull(end + 1, NULL, 10);
    return r;
}

static int in_range(const struct range *r, const void *p)
{
    return (uintptr_t)p >= r->lo && (uintptr_t)p < r->hi;
}

static wr_status fake_open(void **state, const struct wr_host_api *host, char *err)
{
#ifdef FAKE_NODEV
    (void)state;
    (void)host;
    (void)env_range;
    snprintf(err, WR_ERRLEN, "no CUDA device (fake plugin)");
    return WR_ERR_NO_BACKEND;
#else
    struct fake *f;
    size_t count = 0;
#ifdef FAKE_NEEDSCORE
    if (wr_type_size(WR_INT32) != 4) {            /* a libwarpred symbol */
        snprintf(err, WR_ERRLEN, "fake plugin: wr_type_size is not libwarpred's");
        return WR_ERR_NO_BACKEND;
    }
#endif
    if (host->env_count("WR_FAKE_COUNT", 1, 1000000, &count, err) < 0) return WR_ERR_INVALID_ARG;
    f = (struct fake *)malloc(sizeof *f);
    if (f == NULL) {
        snprintf(err, WR_ERRLEN, "fake plugin: out of memory");
        return WR_ERR_NO_MEMORY;
    }
    f->dev = env_range(host, "WR_FAKE_DEVICE");
    f->managed = env_range(host, "WR_FAKE_MANAGED");
    f->pinned = env_range(host, "WR_FAKE_PINNED");
    *state = f;
    return WR_SUCCESS;
#endif
}

static void fake_close(void *state)
{
    free(state);
}

static void fake_describe(void *state, char *buf, size_t len)
{
    (void)state;
    snprintf(buf, len, FAKE_DESCRIPTION);
}

static int fake_threads(void *state)
{
    (void)state;
    return 0;
}

static wr_status fake_set_stream(void *state, void *stream, char *err)
{
    (void)state;
    (void)stream;
    snprintf(err, WR_ERRLEN, "fake plugin: no streams");
    return WR_ERR_NO_BACKEND;
}

static wr_status fake_synchronize(void *state, char *err)
{
    (void)state;
    (void)err;
    return WR_SUCCESS;
}

static wr_mem_kind fake_locate(void *state, const void *ptr)
{
    struct fake *f = (struct fake *)state;
    if (in_range(&f->dev, ptr)) return WR_MEM_DEVICE;
    if (in_range(&f->managed, ptr)) return WR_MEM_MANAGED;
    if (in_range(&f->pinned, ptr)) return WR_MEM_HOST_PINNED;
    return WR_MEM_HOST;
}

/* check_offsets on "device" offsets: the fake's device memory is host memory */
static wr_status fake_check_offsets(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err)
{
    size_t s;
    (void)state;
    (void)err;
    sum[0] = offsets[0];
    sum[1] = offsets[nsegments];
    sum[2] = SIZE_MAX;
    for (s = 0; s < nsegments && sum[2] == SIZE_MAX; s++)
        if (offsets[s + 1] < offsets[s]) {
            sum[2] = s;
            sum[3] = offsets[s];
            sum[4] = offsets[s + 1];
        }
    return WR_SUCCESS;
}

static wr_status only_int32_sum(wr_type type, wr_op op, char *err)
{
    if (type == WR_INT32 && op == WR_SUM) return WR_SUCCESS;
    snprintf(err, WR_ERRLEN, "fake plugin: only int32 SUM");
    return WR_ERR_UNSUPPORTED;
}

/* sum of in[lo..hi) plus the tag, wrapping like the real thing */
static int32_t tagged_sum(const int32_t *in, size_t lo, size_t hi)
{
    uint32_t s = (uint32_t)FAKE_TAG;
    size_t i;
    for (i = lo; i < hi; i++) s += (uint32_t)in[i];
    return (int32_t)s;
}

static wr_status fake_reduce(void *state, const struct wr_call *c, char *err)
{
    wr_status st = only_int32_sum(c->type, c->op, err);
    (void)state;
    if (st != WR_SUCCESS) return st;
    if (c->count == FAKE_FAIL_COUNT) {
        snprintf(err, WR_ERRLEN, "fake kernel launch failed");
        return WR_ERR_DEVICE;
    }
    *(int32_t *)c->out = tagged_sum((const int32_t *)c->in, 0, c->count);
    return WR_SUCCESS;
}

static wr_status fake_scan(void *state, const struct wr_call *c, char *err)
{
    const int32_t *x = (const int32_t *)c->in;
    int32_t *y = (int32_t *)c->out;
    uint32_t run = 0;
    size_t i;
    wr_status st = only_int32_sum(c->type, c->op, err);
    (void)state;
    if (st != WR_SUCCESS) return st;
    for (i = 0; i < c->count; i++) {
        uint32_t xi = (uint32_t)x[i];   /* read before writing: out may be in */
        if (!c->exclusive) run += xi;
        y[i] = (int32_t)(run + (uint32_t)FAKE_TAG);
        if (c->exclusive) run += xi;
    }
    return WR_SUCCESS;
}

#ifdef FAKE_NULLFN
#  define FAKE_ROWS NULL               /* what the loader must refuse: its caps name it */
#else
#  define FAKE_ROWS fake_rows
static wr_status fake_rows(void *state, const struct wr_call *c, char *err)
{
    (void)state; (void)c;
    snprintf(err, WR_ERRLEN, "fake plugin: no reduce_rows");
    return WR_ERR_UNSUPPORTED;
}
#endif

static wr_status fake_segments(void *state, const struct wr_call *c, char *err)
{
    size_t s;
    wr_status st = only_int32_sum(c->type, c->op, err);
    (void)state;
    if (c->offsets_unchecked) {      /* (only for a backend that took a stream) */
        snprintf(err, WR_ERRLEN, "fake plugin: unchecked offsets, and it takes no stream");
        return WR_ERR_INVALID_ARG;
    }
    if (st != WR_SUCCESS) return st;
    for (s = 0; s < c->count; s++)
        ((int32_t *)c->out)[s] = tagged_sum((const int32_t *)c->in, c->offsets[s], c->offsets[s + 1]);
    return WR_SUCCESS;
}

static wr_status fake_argext(void *state, const struct wr_call *c, char *err)
{
    const int32_t *x = (const int32_t *)c->in;
    size_t i, best = 0;
    (void)state;
    if (c->type != WR_INT32) {
        snprintf(err, WR_ERRLEN, "fake plugin: only int32 argmin/argmax");
        return WR_ERR_UNSUPPORTED;
    }
    for (i = 1; i < c->count; i++)
        if (c->is_max ? x[i] > x[best] : x[i] < x[best]) best = i;
    *c->index = best;
    if (c->out) *(int32_t *)c->out = x[best];
    return WR_SUCCESS;
}

/* What the fake claims: the operations above, "device" memory (host memory
 * really), no exact sums and no streams. */
static void fake_caps(void *state, struct wr_caps *c)
{
    (void)state;
    c->ops = WR_OPID_BIT(WR_OPID_REDUCE) | WR_OPID_BIT(WR_OPID_SCAN) | WR_OPID_BIT(WR_OPID_ROWS) |
             WR_OPID_BIT(WR_OPID_SEGMENTS) | WR_OPID_BIT(WR_OPID_ARGEXT);
    c->types = 0x3f;
    c->mem = 1u << WR_MEM_HOST | 1u << WR_MEM_HOST_PINNED | 1u << WR_MEM_DEVICE | 1u << WR_MEM_MANAGED;
    c->device = 1;
    c->pinned_dma = 1;
}

#ifdef FAKE_NOSYM
#  define FAKE_TABLE warpred_backend_ops_renamed
#else
#  define FAKE_TABLE warpred_backend_ops
#endif
#ifdef FAKE_ABI
#  define FAKE_ABI_NUMBER (WR_BACKEND_ABI + 100)
#else
#  define FAKE_ABI_NUMBER WR_BACKEND_ABI
#endif

extern const struct wr_backend_ops FAKE_TABLE;
const struct wr_backend_ops FAKE_TABLE = {
    .abi = FAKE_ABI_NUMBER,
    .name = "cuda",
    .open = fake_open,
    .close = fake_close,
    .caps = fake_caps,
    .describe = fake_describe,
    .threads = fake_threads,
    .locate = fake_locate,
    .check_offsets = fake_check_offsets,
    .set_stream = fake_set_stream,
    .synchronize = fake_synchronize,
    .op = {
        [WR_OPID_REDUCE] = fake_reduce,
        [WR_OPID_SCAN] = fake_scan,
        [WR_OPID_ROWS] = FAKE_ROWS,
        [WR_OPID_SEGMENTS] = fake_segments,
        [WR_OPID_ARGEXT] = fake_argext,
    },
};

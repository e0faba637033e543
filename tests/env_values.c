/*
 * env_values.c -- bad values of libwarpred's environment variables fail
 * wr_context_create with WR_ERR_INVALID_ARG and a reason that names the
 * variable, where the variable is read; nothing hangs or wraps (issue #23,
 * item 7).
 *
 *  - WARPRED_BACKEND=bogus and WARPRED_FLOAT_MODE=bogus (read by lib/ for
 *    every context); the good values, in any case, are taken;
 *  - a plugin's numeric variable, parsed by the host's env_count as the CUDA
 *    plugin parses WARPRED_CUDA_STAGING_BYTES: the fake plugin's
 *    WR_FAKE_COUNT (1 to 1000000) with 2^64 - 1, 2^64, 0, above the
 *    maximum, a sign, spaces, hex, trailing text, letters: refused for CUDA
 *    and AUTO contexts, not for CPU contexts (they load no plugin); the
 *    bounds and the empty string are taken;
 *  - the CUDA plugin's own variables (WARPRED_CUDA_STAGING_BYTES =
 *    18446744073709551615, 0, abc; WARPRED_CUDA_SCAN_BLOCKS=0;
 *    WARPRED_CUDA_WAIT=bogus), which it reads only once it has found a
 *    device: where a CUDA context opens; skipped elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "testfs.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

static const char *const bname[] = { "AUTO", "CPU", "CUDA" };

/* Create a context of backend b: its status; the context is destroyed. */
static wr_status try_create(wr_backend b)
{
    wr_context *ctx = (wr_context *)&ctx;
    wr_status st = wr_context_create(&ctx, b);
    if (st != WR_SUCCESS && ctx != NULL) return (wr_status)-1;      /* *ctx must be NULL on failure */
    wr_context_destroy(ctx);
    return st;
}

/* With name=value set: every backend in bs refused, naming the variable. */
static void refused(const char *name, const char *value, const wr_backend *bs, int nb)
{
    int i;
    setenv(name, value, 1);
    for (i = 0; i < nb; i++) {
        wr_status st = try_create(bs[i]);
        const char *e = wr_context_error(NULL);
        ok(st == WR_ERR_INVALID_ARG && tu_contains(e, name) && strchr(e, '\n') == NULL,
           "%s=\"%s\": %s context refused, WR_ERR_INVALID_ARG naming it (%s: \"%s\")", name, value, bname[bs[i]],
           wr_status_string(st), e);
    }
    unsetenv(name);
}

static void taken(const char *name, const char *value, wr_backend b)
{
    wr_status st;
    setenv(name, value, 1);
    st = try_create(b);
    ok(st == WR_SUCCESS, "%s=\"%s\": %s context created (%s: %s)", name, value, bname[b], wr_status_string(st),
       st == WR_SUCCESS ? "" : wr_context_error(NULL));
    unsetenv(name);
}

static void lib_variables(void)
{
    static const wr_backend all[3] = { WR_BACKEND_AUTO, WR_BACKEND_CPU, WR_BACKEND_CUDA };
    wr_context *ctx = NULL;
    refused("WARPRED_BACKEND", "bogus", all, 3);
    refused("WARPRED_BACKEND", "cpu ", all, 1);
    refused("WARPRED_FLOAT_MODE", "bogus", all, 3);
    refused("WARPRED_FLOAT_MODE", "1", all, 1);
    taken("WARPRED_BACKEND", "CPU", WR_BACKEND_CUDA);
    setenv("WARPRED_FLOAT_MODE", "Reproducible", 1);
    ok(wr_context_create(&ctx, WR_BACKEND_CPU) == WR_SUCCESS && wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE,
       "WARPRED_FLOAT_MODE=Reproducible: taken, the context's mode is reproducible");
    wr_context_destroy(ctx);
    unsetenv("WARPRED_FLOAT_MODE");
}
#define N_LIB (3 + 1 + 3 + 1 + 1 + 1)

static const char *const bad_counts[] = {
    "18446744073709551615", "18446744073709551616", "99999999999999999999999", "0", "1000001", "-1", "+5",
    " 5", "5 ", "0x10", "5x", "abc", "1e3",
};
#define N_BAD (sizeof bad_counts / sizeof bad_counts[0])

static void plugin_count(void)
{
    static const wr_backend users[2] = { WR_BACKEND_AUTO, WR_BACKEND_CUDA };
    size_t i;
    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good"), 1);
    for (i = 0; i < N_BAD; i++) {
        refused("WR_FAKE_COUNT", bad_counts[i], users, 2);
        /* a CPU context loads no plugin: the plugin's variables do not concern it */
        ok(try_create(WR_BACKEND_CPU) == WR_SUCCESS, "WR_FAKE_COUNT=\"%s\": a CPU context, which loads no plugin, "
           "is created", bad_counts[i]);
    }
    taken("WR_FAKE_COUNT", "1", WR_BACKEND_CUDA);
    taken("WR_FAKE_COUNT", "1000000", WR_BACKEND_CUDA);
    taken("WR_FAKE_COUNT", "", WR_BACKEND_CUDA);
}
#define N_PLUGIN (3 * N_BAD + 3)

/* The CUDA plugin's variables, where a CUDA context opens. */
static void cuda_variables(const char *dir)
{
    static const wr_backend cuda[1] = { WR_BACKEND_CUDA };
    static const char *const vars[][2] = {
        { "WARPRED_CUDA_STAGING_BYTES", "18446744073709551615" },
        { "WARPRED_CUDA_STAGING_BYTES", "0" },
        { "WARPRED_CUDA_STAGING_BYTES", "abc" },
        { "WARPRED_CUDA_STAGING_BYTES", "17179869185" },       /* 16 GiB + 1 */
        { "WARPRED_CUDA_SCAN_BLOCKS", "0" },
        { "WARPRED_CUDA_SCAN_BLOCKS", "65536" },
        { "WARPRED_CUDA_WAIT", "bogus" },
    };
    size_t i, n = sizeof vars / sizeof vars[0];
    wr_status st;
    if (dir == NULL) {
        skip_block(n + 1, "no CUDA plugin (WARPRED_PLUGIN_DIR unset)");
        return;
    }
    setenv("WARPRED_PLUGIN_DIR", dir, 1);
    st = try_create(WR_BACKEND_CUDA);
    if (st != WR_SUCCESS) {
        skip_block(n + 1, "no CUDA context here (%s: %s)", wr_status_string(st), wr_context_error(NULL));
        return;
    }
    for (i = 0; i < n; i++) refused(vars[i][0], vars[i][1], cuda, 1);
    taken("WARPRED_CUDA_STAGING_BYTES", "1", WR_BACKEND_CUDA);
}
#define N_CUDA (7 + 1)

int main(void)
{
    const char *d = getenv("WARPRED_PLUGIN_DIR");
    char *plugdir = d ? strdup(d) : NULL;
    static const char *const clear[] = {
        "WARPRED_BACKEND", "WARPRED_FLOAT_MODE", "WR_FAKE_COUNT", "WARPRED_CUDA_STAGING_BYTES",
        "WARPRED_CUDA_SCAN_BLOCKS", "WARPRED_CUDA_WAIT",
    };
    size_t i;
    for (i = 0; i < sizeof clear / sizeof clear[0]; i++) unsetenv(clear[i]);
    plan(N_LIB + N_PLUGIN + N_CUDA);
    lib_variables();
    plugin_count();
    cuda_variables(plugdir);
    free(plugdir);
    return 0;
}

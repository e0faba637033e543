/*
 * context.c -- contexts: which backends a context has, their description,
 * its stream and its float mode.
 *
 * The cpu backend is always there (the Open MPI "null backend" idea: the
 * fallback is a real, complete backend).  A CUDA context loads the CUDA
 * plugin, an OPENMP_TARGET context the omptarget plugin; AUTO loads the CUDA
 * plugin and, when that does not open, the omptarget plugin, and otherwise
 * runs on the cpu, and says in its description why a plugin that is
 * installed did not open.  CPU contexts load the
 * CUDA plugin too when it opens, only so that lib/ can recognise device
 * pointers and refuse them instead of letting the host dereference them.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "wr_internal.h"

#define CUDA_PLUGIN "warpred_cuda.so"
#define OMP_PLUGIN "warpred_omptarget.so"

/* WARPRED_BACKEND=cpu|cuda|omptarget|auto overrides what the caller asked for. */
static int env_backend(wr_backend *b, char *err)
{
    const char *v = wri_getenv("WARPRED_BACKEND");
    if (v == NULL || v[0] == '\0') return 0;
    if (strcasecmp(v, "cpu") == 0)       { *b = WR_BACKEND_CPU;  return 0; }
    if (strcasecmp(v, "cuda") == 0)      { *b = WR_BACKEND_CUDA; return 0; }
    if (strcasecmp(v, "omptarget") == 0) { *b = WR_BACKEND_OPENMP_TARGET; return 0; }
    if (strcasecmp(v, "auto") == 0)      { *b = WR_BACKEND_AUTO; return 0; }
    snprintf(err, WR_ERRLEN, "WARPRED_BACKEND=%.64s: expected cpu, cuda, omptarget or auto", v);
    return -1;
}

/* WARPRED_FLOAT_MODE=fast|reproducible: the mode every call runs in. */
static int env_float_mode(int *mode, char *err)
{
    const char *v = wri_getenv("WARPRED_FLOAT_MODE");
    *mode = -1;
    if (v == NULL || v[0] == '\0') return 0;
    if (strcasecmp(v, "fast") == 0)         { *mode = WR_FLOAT_FAST; return 0; }
    if (strcasecmp(v, "reproducible") == 0) { *mode = WR_FLOAT_REPRODUCIBLE; return 0; }
    snprintf(err, WR_ERRLEN, "WARPRED_FLOAT_MODE=%.64s: expected fast or reproducible", v);
    return -1;
}

/* Append "; name: text" (the first part without "; "). */
static void describe_add(wr_context *c, const char *name, const char *text)
{
    size_t n = strlen(c->describe);
    if (n < sizeof c->describe)
        snprintf(c->describe + n, sizeof c->describe - n, "%s%s: %s", n ? "; " : "", name, text);
}

static void describe_backend(wr_context *c, const struct wri_backend *b)
{
    char part[WR_ERRLEN];
    b->ops->describe(b->state, part, sizeof part);
    describe_add(c, b->ops->name, part);
}

static void close_backend(struct wri_backend *b)
{
    if (b->ops) b->ops->close(b->state);
    b->ops = NULL;
}

static void destroy(wr_context *c)
{
    close_backend(&c->cuda);
    close_backend(&c->omp);
    close_backend(&c->locator);
    close_backend(&c->cpu);
    wri_reasons_destroy(c);
    free(c);
}

/* Open the plugin `file` into b.  The failure is the call's (returned) when
 * the context needs the backend (`need`); otherwise it is kept in `why`
 * unless the plugin is simply not installed. */
static wr_status open_plugin(const char *file, struct wri_backend *b, int need, char *why, char *err)
{
    int missing;
    wr_status s = wri_plugin_open(file, b, &missing, err);
    if (s == WR_SUCCESS || need || s == WR_ERR_INVALID_ARG || s == WR_ERR_NO_MEMORY) return s;
    if (!missing && why[0] == '\0') snprintf(why, WR_ERRLEN, "%s", err);
    return WR_SUCCESS;
}

wr_status wr_context_create(wr_context **ctx, wr_backend backend)
{
    char err[WR_ERRLEN] = "", why[WR_ERRLEN] = "";
    wr_context *c;
    wr_status st;
    int fmode;

    if (ctx == NULL) {
        wri_set_error(NULL, "wr_context_create: ctx is NULL");
        return WR_ERR_INVALID_ARG;
    }
    *ctx = NULL;
    if ((int)backend < (int)WR_BACKEND_AUTO || (int)backend > (int)WR_BACKEND_OPENMP_TARGET) {
        wri_set_error(NULL, "wr_context_create: backend %d is not a wr_backend", (int)backend);
        return WR_ERR_INVALID_ARG;
    }
    if (env_backend(&backend, err) != 0 || env_float_mode(&fmode, err) != 0) {
        wri_set_error(NULL, "wr_context_create: %s", err);
        return WR_ERR_INVALID_ARG;
    }
    c = calloc(1, sizeof *c);
    if (c == NULL || wri_reasons_init(c) != 0) {
        free(c);
        wri_set_error(NULL, "wr_context_create: out of memory");
        return WR_ERR_NO_MEMORY;
    }
    c->mode = backend;
    c->fmode = WR_FLOAT_FAST;
    c->fmode_env = fmode;
    c->last_backend = WR_BACKEND_AUTO;

    c->cpu.ops = &wrcpu_backend_ops;
    st = c->cpu.ops->open(&c->cpu.state, &wri_host_api, err);
    if (st != WR_SUCCESS) {
        c->cpu.ops = NULL;
        wri_set_error(NULL, "wr_context_create: cpu backend: %s", err);
        destroy(c);
        return st;
    }
    switch (backend) {
    case WR_BACKEND_CPU:
        st = open_plugin(CUDA_PLUGIN, &c->locator, 0, why, err);
        why[0] = '\0';                 /* the locator is a convenience: nothing to report */
        c->loc = c->locator.ops ? &c->locator : NULL;
        break;
    case WR_BACKEND_CUDA:
        st = open_plugin(CUDA_PLUGIN, &c->cuda, 1, why, err);
        c->loc = &c->cuda;
        break;
    case WR_BACKEND_OPENMP_TARGET:
        st = open_plugin(OMP_PLUGIN, &c->omp, 1, why, err);
        c->loc = &c->omp;
        break;
    default:
        st = open_plugin(CUDA_PLUGIN, &c->cuda, 0, why, err);
        if (st == WR_SUCCESS && c->cuda.ops == NULL) st = open_plugin(OMP_PLUGIN, &c->omp, 0, why, err);
        c->loc = c->cuda.ops ? &c->cuda : c->omp.ops ? &c->omp : NULL;
        break;
    }
    if (st != WR_SUCCESS) {
        wri_set_error(NULL, "wr_context_create: %s", err);
        destroy(c);
        return st;
    }

    if (backend == WR_BACKEND_AUTO || backend == WR_BACKEND_CPU) describe_backend(c, &c->cpu);
    if (c->cuda.ops) describe_backend(c, &c->cuda);
    if (c->omp.ops) describe_backend(c, &c->omp);
    if (why[0] != '\0') describe_add(c, "not loaded", why);

    *ctx = c;
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

void wr_context_destroy(wr_context *ctx)
{
    if (ctx != NULL) destroy(ctx);
}

int wr_context_has_backend(const wr_context *ctx, wr_backend b)
{
    if (ctx == NULL) return 0;
    switch (b) {
    case WR_BACKEND_AUTO: return 1;
    case WR_BACKEND_CPU:  return ctx->mode == WR_BACKEND_AUTO || ctx->mode == WR_BACKEND_CPU;
    case WR_BACKEND_CUDA: return ctx->cuda.ops != NULL;
    case WR_BACKEND_OPENMP_TARGET: return ctx->omp.ops != NULL;
    }
    return 0;
}

wr_backend wr_context_last_backend(const wr_context *ctx)
{
    if (ctx == NULL) return WR_BACKEND_AUTO;
    return (wr_backend)__atomic_load_n(&ctx->last_backend, __ATOMIC_RELAXED);
}

const char *wr_context_describe(const wr_context *ctx)
{
    return ctx ? ctx->describe : "";
}

/* The device backend of a context (cuda before omptarget), or NULL. */
static struct wri_backend *device_backend(wr_context *ctx)
{
    if (ctx->cuda.ops) return &ctx->cuda;
    if (ctx->omp.ops) return &ctx->omp;
    return NULL;
}

wr_status wr_context_set_stream(wr_context *ctx, void *stream)
{
    static const char fn[] = "wr_context_set_stream";
    char err[WR_ERRLEN] = "";
    struct wri_backend *d;
    wr_status st;
    if (ctx == NULL) {
        wri_set_error(NULL, "%s: ctx is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if ((d = device_backend(ctx)) == NULL) {
        wri_set_error(ctx, "%s: the context has no device backend (it runs on the cpu)", fn);
        return WR_ERR_NO_BACKEND;
    }
    st = d->ops->set_stream(d->state, stream, err);
    if (st != WR_SUCCESS) {
        wri_set_error(ctx, "%s: %s: %s", fn, d->ops->name, err[0] ? err : wr_status_string(st));
        return st;
    }
    /* from now on wr_reduce_segments may leave device offsets to the
     * backend (api.c) */
    __atomic_store_n(&ctx->streamed, stream != NULL ? d : NULL, __ATOMIC_RELEASE);
    wri_clear_error(ctx);
    return st;
}

wr_status wr_context_synchronize(wr_context *ctx)
{
    static const char fn[] = "wr_context_synchronize";
    char err[WR_ERRLEN] = "";
    struct wri_backend *d;
    wr_status st = WR_SUCCESS;
    if (ctx == NULL) {
        wri_set_error(NULL, "%s: ctx is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if ((d = device_backend(ctx)) != NULL) st = d->ops->synchronize(d->state, err);
    if (st != WR_SUCCESS) wri_set_error(ctx, "%s: %s: %s", fn, d->ops->name, err[0] ? err : wr_status_string(st));
    else wri_clear_error(ctx);
    return st;
}

wr_status wr_context_set_float_mode(wr_context *ctx, wr_float_mode mode)
{
    static const char fn[] = "wr_context_set_float_mode";
    if (ctx == NULL) {
        wri_set_error(NULL, "%s: ctx is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if ((int)mode != (int)WR_FLOAT_FAST && (int)mode != (int)WR_FLOAT_REPRODUCIBLE) {
        wri_set_error(ctx, "%s: mode %d is not a wr_float_mode", fn, (int)mode);
        return WR_ERR_INVALID_ARG;
    }
    __atomic_store_n(&ctx->fmode, (int)mode, __ATOMIC_RELAXED);
    wri_clear_error(ctx);
    return WR_SUCCESS;
}

wr_float_mode wr_context_float_mode(const wr_context *ctx)
{
    if (ctx == NULL) return WR_FLOAT_FAST;
    if (ctx->fmode_env >= 0) return (wr_float_mode)ctx->fmode_env;
    return (wr_float_mode)__atomic_load_n(&ctx->fmode, __ATOMIC_RELAXED);
}

/*
 * context.c -- contexts: which backends a context has, their description,
 * its stream and its float mode.
 *
 * The cpu backend is always there (the Open MPI "null backend" idea: the
 * fallback is a real, complete backend).  A CUDA context loads the CUDA
 * plugin, an OPENMP_TARGET context the omptarget plugin; AUTO loads the CUDA
 * plugin and, when that does not open, the omptarget plugin, and otherwise
 * runs on the cpu, and says in its description why a plugin that is
 * installed did not open.  A CPU context loads no plugin: locate.c tells
 * device pointers apart without creating a CUDA context.
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
    close_backend(&c->dev);
    close_backend(&c->cpu);
    wri_reasons_destroy(c);
    free(c);
}

/* What an open backend can do; refuses (with the reason in err) one whose
 * caps name an operation its table lacks. */
static wr_status take_caps(struct wri_backend *b, wr_backend id, char *err)
{
    int i;
    b->id = id;
    memset(&b->caps, 0, sizeof b->caps);
    b->ops->caps(b->state, &b->caps);
    for (i = 0; i < WR_NOPIDS; i++)
        if ((b->caps.ops & WR_OPID_BIT(i)) && b->ops->op[i] == NULL) {
            snprintf(err, WR_ERRLEN, "%s: refused: its table has no %s, which its caps name", b->ops->name,
                     wri_opid_name((enum wr_opid)i));
            return WR_ERR_NO_BACKEND;
        }
    return WR_SUCCESS;
}

/* Open the plugin `file` into b as backend id.  The failure is the call's
 * (returned) when the context needs the backend (`need`); otherwise it is
 * kept in `why` unless the plugin is simply not installed. */
static wr_status open_plugin(const char *file, wr_backend id, struct wri_backend *b, int need, char *why, char *err)
{
    int missing = 0;
    wr_status s = wri_plugin_open(file, b, &missing, err);
    if (s == WR_SUCCESS && (s = take_caps(b, id, err)) != WR_SUCCESS) close_backend(b);
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
    if (st != WR_SUCCESS) c->cpu.ops = NULL;            /* (nothing to close) */
    else st = take_caps(&c->cpu, WR_BACKEND_CPU, err);
    if (st != WR_SUCCESS) {
        wri_set_error(NULL, "wr_context_create: cpu backend: %s", err);
        destroy(c);
        return st;
    }
    switch (backend) {
    case WR_BACKEND_CPU:
        st = WR_SUCCESS;
        break;
    case WR_BACKEND_CUDA:
        st = open_plugin(CUDA_PLUGIN, WR_BACKEND_CUDA, &c->dev, 1, why, err);
        break;
    case WR_BACKEND_OPENMP_TARGET:
        st = open_plugin(OMP_PLUGIN, WR_BACKEND_OPENMP_TARGET, &c->dev, 1, why, err);
        break;
    default:
        st = open_plugin(CUDA_PLUGIN, WR_BACKEND_CUDA, &c->dev, 0, why, err);
        if (st == WR_SUCCESS && c->dev.ops == NULL)
            st = open_plugin(OMP_PLUGIN, WR_BACKEND_OPENMP_TARGET, &c->dev, 0, why, err);
        break;
    }
    if (st != WR_SUCCESS) {
        wri_set_error(NULL, "wr_context_create: %s", err);
        destroy(c);
        return st;
    }

    if (backend == WR_BACKEND_AUTO || backend == WR_BACKEND_CPU) describe_backend(c, &c->cpu);
    if (c->dev.ops) describe_backend(c, &c->dev);
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
    case WR_BACKEND_CUDA:
    case WR_BACKEND_OPENMP_TARGET: return ctx->dev.ops != NULL && ctx->dev.id == b;
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

/*
 * The stream is the device backend's.  NULL (the library's own streams)
 * holds on every context: a context without a backend that takes streams
 * has nothing to order, so it succeeds there too; a stream is refused,
 * with the reason, by a context whose backends take none.
 */
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
    d = ctx->dev.ops != NULL && ctx->dev.caps.streams ? &ctx->dev : NULL;
    if (d == NULL) {
        if (stream == NULL) {
            wri_clear_error(ctx);
            return WR_SUCCESS;
        }
        if (ctx->dev.ops != NULL)
            wri_set_error(ctx, "%s: the %s backend has no streams: its calls complete before they return "
                          "(order them with depend or taskwait)", fn, ctx->dev.ops->name);
        else
            wri_set_error(ctx, "%s: the context has no device backend (it runs on the cpu)", fn);
        return WR_ERR_NO_BACKEND;
    }
    st = d->ops->set_stream(d->state, stream, err);
    if (st != WR_SUCCESS) {
        wri_set_error(ctx, "%s: %s: %s", fn, d->ops->name, err[0] ? err : wr_status_string(st));
        return st;
    }
    /* from now on segmented calls may leave device offsets to the backend
     * (ops.c) */
    __atomic_store_n(&ctx->streamed, stream != NULL ? d : NULL, __ATOMIC_RELEASE);
    wri_clear_error(ctx);
    return st;
}

wr_status wr_context_synchronize(wr_context *ctx)
{
    static const char fn[] = "wr_context_synchronize";
    char err[WR_ERRLEN] = "";
    wr_status st = WR_SUCCESS;
    if (ctx == NULL) {
        wri_set_error(NULL, "%s: ctx is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if (ctx->dev.ops != NULL) st = ctx->dev.ops->synchronize(ctx->dev.state, err);
    if (st != WR_SUCCESS)
        wri_set_error(ctx, "%s: %s: %s", fn, ctx->dev.ops->name, err[0] ? err : wr_status_string(st));
    else
        wri_clear_error(ctx);
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

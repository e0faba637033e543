/*
 * context.c -- contexts: which backends a context has, and their description.
 *
 * The cpu backend is always there (the Open MPI "null backend" idea: the
 * fallback is a real, complete backend).  AUTO and CUDA contexts also load
 * the CUDA plugin; AUTO quietly does without it.  CPU contexts load it too
 * when it opens, only so that lib/ can recognise device pointers and refuse
 * them instead of letting the host dereference them.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "wr_internal.h"

/* WARPRED_BACKEND=cpu|cuda|auto overrides what the caller asked for. */
static int env_backend(wr_backend *b, char *err)
{
    const char *v = getenv("WARPRED_BACKEND");
    if (v == NULL || v[0] == '\0') return 0;
    if (strcasecmp(v, "cpu") == 0)  { *b = WR_BACKEND_CPU;  return 0; }
    if (strcasecmp(v, "cuda") == 0) { *b = WR_BACKEND_CUDA; return 0; }
    if (strcasecmp(v, "auto") == 0) { *b = WR_BACKEND_AUTO; return 0; }
    snprintf(err, WR_ERRLEN, "WARPRED_BACKEND=%.64s: expected cpu, cuda or auto", v);
    return -1;
}

static void describe(wr_context *c)
{
    char part[WR_ERRLEN];
    size_t n;
    c->cpu.ops->describe(c->cpu.state, part, sizeof part);
    n = (size_t)snprintf(c->describe, sizeof c->describe, "cpu: %s", part);
    if (c->cuda.ops != NULL && n < sizeof c->describe) {
        c->cuda.ops->describe(c->cuda.state, part, sizeof part);
        snprintf(c->describe + n, sizeof c->describe - n, "; cuda: %s", part);
    }
    if (c->mode == WR_BACKEND_CUDA) {
        /* a CUDA context never runs on the cpu: say only what it uses */
        c->cuda.ops->describe(c->cuda.state, part, sizeof part);
        snprintf(c->describe, sizeof c->describe, "cuda: %s", part);
    }
}

wr_status wr_context_create(wr_context **ctx, wr_backend backend)
{
    char err[WR_ERRLEN] = "";
    wr_context *c;
    wr_status st;

    if (ctx == NULL) {
        wri_set_error(NULL, "wr_context_create: ctx is NULL");
        return WR_ERR_INVALID_ARG;
    }
    *ctx = NULL;
    if ((int)backend < (int)WR_BACKEND_AUTO || (int)backend > (int)WR_BACKEND_CUDA) {
        wri_set_error(NULL, "wr_context_create: backend %d is not a wr_backend", (int)backend);
        return WR_ERR_INVALID_ARG;
    }
    if (env_backend(&backend, err) != 0) {
        wri_set_error(NULL, "wr_context_create: %s", err);
        return WR_ERR_INVALID_ARG;
    }
    c = calloc(1, sizeof *c);
    if (c == NULL) {
        wri_set_error(NULL, "wr_context_create: out of memory");
        return WR_ERR_NO_MEMORY;
    }
    c->mode = backend;
    c->last_backend = WR_BACKEND_AUTO;

    c->cpu.ops = &wri_cpu_backend_ops;
    st = c->cpu.ops->open(&c->cpu.state, err);
    if (st != WR_SUCCESS) {
        wri_set_error(NULL, "wr_context_create: cpu backend: %s", err);
        free(c);
        return st;
    }

    st = wri_plugin_open(backend == WR_BACKEND_CPU ? &c->locator : &c->cuda, err);
    if (st != WR_SUCCESS && backend == WR_BACKEND_CUDA) {
        wri_set_error(NULL, "wr_context_create: %s", err);
        c->cpu.ops->close(c->cpu.state);
        free(c);
        return st;
    }
    describe(c);
    *ctx = c;
    wri_clear_error(c);
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

void wr_context_destroy(wr_context *ctx)
{
    if (ctx == NULL) return;
    if (ctx->cuda.ops) ctx->cuda.ops->close(ctx->cuda.state);
    if (ctx->locator.ops) ctx->locator.ops->close(ctx->locator.state);
    ctx->cpu.ops->close(ctx->cpu.state);
    free(ctx);
}

int wr_context_has_backend(const wr_context *ctx, wr_backend b)
{
    if (ctx == NULL) return 0;
    switch (b) {
    case WR_BACKEND_AUTO: return 1;
    case WR_BACKEND_CPU:  return ctx->mode != WR_BACKEND_CUDA;
    case WR_BACKEND_CUDA: return ctx->cuda.ops != NULL;
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

/* status.c -- version, status text, per-thread error detail. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "wr_internal.h"

const char *wr_version(void)
{
    return PACKAGE_VERSION;
}

const char *wr_status_string(wr_status s)
{
    switch (s) {
    case WR_SUCCESS:         return "success";
    case WR_ERR_INVALID_ARG: return "invalid argument";
    case WR_ERR_UNSUPPORTED: return "operation not supported for this type";
    case WR_ERR_EMPTY:       return "no elements (argmin/argmax of an empty array)";
    case WR_ERR_NO_BACKEND:  return "backend not available";
    case WR_ERR_NO_MEMORY:   return "out of memory";
    case WR_ERR_DEVICE:      return "device or driver call failed";
    }
    return "unknown status";
}

size_t wr_type_size(wr_type t)
{
    switch (t) {
    case WR_INT32: case WR_UINT32: case WR_FLOAT: return 4;
    case WR_INT64: case WR_UINT64: case WR_DOUBLE: return 8;
    }
    return 0;
}

/* Errors are kept per thread (one context may be shared by many threads, and
 * each must see the reason for its own failure), tagged with the context so
 * that wr_context_error(other) does not report it. */
static _Thread_local struct {
    const wr_context *ctx;
    int set;
    char msg[WR_ERRLEN * 2];
} tl_err;

void wri_set_error(const wr_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_err.msg, sizeof tl_err.msg, fmt, ap);
    va_end(ap);
    /* one line, always */
    for (char *p = tl_err.msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    tl_err.ctx = ctx;
    tl_err.set = 1;
}

void wri_clear_error(const wr_context *ctx)
{
    tl_err.ctx = ctx;
    tl_err.set = 0;
    tl_err.msg[0] = '\0';
}

const char *wr_context_error(const wr_context *ctx)
{
    if (tl_err.set && tl_err.ctx == ctx)
        return tl_err.msg;
    return "";
}

void wr_context_set_error(const wr_context *ctx, const char *reason)
{
    if (reason == NULL || reason[0] == '\0')
        wri_clear_error(ctx);
    else
        wri_set_error(ctx, "%s", reason);
}

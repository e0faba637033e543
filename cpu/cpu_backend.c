/* cpu_backend.c -- placeholder table; the OpenMP kernels replace it. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "wr_backend.h"

static wr_status cpu_open(void **state, char *err) { (void)err; *state = NULL; return WR_SUCCESS; }
static void cpu_close(void *state) { (void)state; }
static void cpu_describe(void *state, char *buf, size_t len) { (void)state; snprintf(buf, len, "serial"); }
static wr_mem_kind cpu_locate(void *state, const void *p) { (void)state; (void)p; return WR_MEM_HOST; }
static wr_status cpu_copy(void *s, void *d, const void *src, size_t n, char *err)
{ (void)s; (void)err; memcpy(d, src, n); return WR_SUCCESS; }
static wr_status nyi(char *err) { snprintf(err, 256, "not yet implemented"); return WR_ERR_UNSUPPORTED; }
static wr_status r(void *s, const void *i, void *o, size_t c, wr_type t, wr_op op, char *e)
{ (void)s; (void)i; (void)o; (void)c; (void)t; (void)op; return nyi(e); }
static wr_status sc(void *s, const void *i, void *o, size_t c, wr_type t, wr_op op, int x, char *e)
{ (void)s; (void)i; (void)o; (void)c; (void)t; (void)op; (void)x; return nyi(e); }
static wr_status rr(void *s, const void *i, void *o, size_t a, size_t b, wr_type t, wr_op op, char *e)
{ (void)s; (void)i; (void)o; (void)a; (void)b; (void)t; (void)op; return nyi(e); }
static wr_status rs(void *s, const void *i, void *o, size_t a, const size_t *b, wr_type t, wr_op op, char *e)
{ (void)s; (void)i; (void)o; (void)a; (void)b; (void)t; (void)op; return nyi(e); }
static wr_status ax(void *s, const void *i, size_t c, wr_type t, int m, size_t *x, void *v, char *e)
{ (void)s; (void)i; (void)c; (void)t; (void)m; (void)x; (void)v; return nyi(e); }

const struct wr_backend_ops wri_cpu_backend_ops = {
    .abi = WR_BACKEND_ABI, .name = "cpu", .open = cpu_open, .close = cpu_close,
    .describe = cpu_describe, .locate = cpu_locate, .copy_to_host = cpu_copy,
    .reduce = r, .scan = sc, .reduce_rows = rr, .reduce_segments = rs, .argext = ax,
};

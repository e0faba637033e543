/*
 * wr_internal.h -- what lib/'s files share with each other (not installed).
 */
#ifndef WR_INTERNAL_H
#define WR_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include "warpred.h"
#include "wr_backend.h"

#if defined(__GNUC__)
#  define WR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define WR_PRINTF(f, a)
#endif

/* One backend as a context holds it: its table, its per-context state, what
 * it can do and which public backend it is. */
struct wri_backend {
    const struct wr_backend_ops *ops;   /* NULL: not available in this context */
    void *state;                        /* what ops->open() returned */
    struct wr_caps caps;                /* what ops->caps() said after open() */
    wr_backend id;                      /* WR_BACKEND_CPU, _CUDA or _OPENMP_TARGET */
};

/* The reason for the last failed call of one thread on one context (see
 * error.c).  It exists only while that call is the thread's last on it. */
struct wri_reason;

struct wr_context {
    wr_backend mode;            /* what the context runs on (after WARPRED_BACKEND) */
    int fmode;                  /* wr_float_mode, atomic access */
    int fmode_env;              /* WARPRED_FLOAT_MODE's wr_float_mode, or -1 */
    struct wri_backend cpu;     /* always present */
    struct wri_backend dev;     /* the device backend (a plugin), if any: CUDA and
                                   OPENMP_TARGET contexts, and AUTO ones whose cuda or
                                   (failing that) omptarget plugin opened */
    const struct wri_backend *streamed; /* dev once its set_stream took a stream, or NULL
                                   (atomic access) */
    int last_backend;           /* wr_backend of the last successful call (atomic access) */
    char describe[768];

    pthread_mutex_t reasons_mu; /* guards reasons */
    struct wri_reason *reasons; /* one per thread whose last call on the context failed */
    struct wr_context *live_prev, *live_next;  /* the list of live contexts (error.c) */
};

/* ---- error text (error.c) ---- */
/* Record the calling thread's failure reason for ctx (ctx may be NULL). */
void wri_set_error(const wr_context *ctx, const char *fmt, ...) WR_PRINTF(2, 3);
/* Mark the calling thread's last call on ctx as successful. */
void wri_clear_error(const wr_context *ctx);
/* A new context's reason list; and the end of it (frees every reason). */
int wri_reasons_init(wr_context *ctx);
void wri_reasons_destroy(wr_context *ctx);

/* ---- environment (env.c) ---- */
/* getenv, except that a privileged process (setuid/setgid) sees no
 * environment at all: NULL. */
const char *wri_getenv(const char *name);
/* A decimal count in [min, max] from the environment: 0 unset or empty, 1
 * set (*value), -1 bad (err, WR_ERRLEN bytes, says why). */
int wri_env_count(const char *name, size_t min, size_t max, size_t *value, char *err);
/* What plugins get of the core. */
extern const struct wr_host_api wri_host_api;

/* ---- exact sums (exact.c) ---- */
struct wrx_acc;
/* 1 if a (a wr_exact_sum's contents) is an accumulator wr_exact.h can use. */
int wri_exact_valid(const struct wrx_acc *a);

/* ---- operations (ops.c) ---- */
/* The public operations, each described once (ops.c's wri_desc). */
enum wri_desc_id {
    WRI_REDUCE, WRI_SCAN, WRI_EXSCAN, WRI_ROWS, WRI_SEGMENTS, WRI_SEGSCAN, WRI_SEGEXSCAN,
    WRI_ARGMIN, WRI_ARGMAX, WRI_IAMAX, WRI_DOT, WRI_DOTROWS, WRI_NRM2, WRI_ASUM,
    WRI_XSCAN, WRI_XEXSCAN, WRI_XSUM, WRI_XDOTSUM, WRI_XASUMSUM, WRI_XNRM2SUM,
    WRI_NDESC
};
/* How a descriptor's buffers are sized. */
enum wri_shape {
    WRI_SHAPE_LINEAR,   /* count elements (in2 too) */
    WRI_SHAPE_ROWS,     /* rows (call->count) x cols */
    WRI_SHAPE_SEGS      /* nsegments (call->count) + 1 offsets */
};
/* Check the arguments of public function fn (operation `which`, arguments in
 * c: type, op, in, in2, out, index, count, cols, offsets, carry, acc), find
 * where its buffers live, choose the backend, run it, and keep the reason
 * of a failure. */
wr_status wri_run(wr_context *ctx, const char *fn, enum wri_desc_id which, struct wr_call *c);
/* A backend operation's name ("reduce_rows"), for reasons. */
const char *wri_opid_name(enum wr_opid id);

/* ---- where memory lives (locate.c) ---- */
/* Where the memory at p lives: the device backend's answer, or else the
 * light locator's (device and managed memory of a CUDA driver the process
 * has already loaded; everything else is host memory). */
wr_mem_kind wri_locate(const wr_context *ctx, const void *p);

/* ---- plugins (plugin.c) ---- */
/* Load the plugin file `file` (e.g. "warpred_cuda.so") from the plugin
 * directory and open it.  Returns WR_SUCCESS and fills *b; WR_ERR_NO_BACKEND
 * with the reason in err (not found: *missing set to 1; refused, dlopen
 * error, missing symbol, wrong ABI or table, or the plugin's own open()
 * failure); or the plugin's WR_ERR_INVALID_ARG / WR_ERR_NO_MEMORY. */
wr_status wri_plugin_open(const char *file, struct wri_backend *b, int *missing, char *err);

#endif /* WR_INTERNAL_H */

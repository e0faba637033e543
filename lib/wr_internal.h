/*
 * wr_internal.h -- what lib/'s files share with each other (not installed).
 */
#ifndef WR_INTERNAL_H
#define WR_INTERNAL_H

#include <stdarg.h>
#include "warpred.h"
#include "wr_backend.h"

#if defined(__GNUC__)
#  define WR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define WR_PRINTF(f, a)
#endif

/* One backend as a context holds it: its table and its per-context state. */
struct wr_slot {
    const struct wr_backend_ops *ops;   /* NULL: not available in this context */
    void *state;                        /* what ops->open() returned */
};

struct wr_context {
    wr_backend mode;        /* what the context runs on: AUTO, CPU or CUDA (after WARPRED_BACKEND) */
    struct wr_slot cpu;     /* always present */
    struct wr_slot cuda;    /* present for AUTO/CUDA contexts whose plugin opened */
    struct wr_slot locator; /* plugin opened only to tell device pointers apart (cpu contexts) */
    int last_backend;       /* wr_backend of the last successful call (atomic access) */
    char describe[512];
};

/* Record the calling thread's error for ctx (ctx may be NULL), formatted. */
void wri_set_error(const wr_context *ctx, const char *fmt, ...) WR_PRINTF(2, 3);
/* Mark the calling thread's last call on ctx as successful. */
void wri_clear_error(const wr_context *ctx);

/* Load and open the CUDA plugin.  Returns WR_SUCCESS and fills *slot, or
 * WR_ERR_NO_BACKEND with the reason (not found, dlopen error, missing symbol,
 * ABI mismatch, the plugin's own open() failure) in err. */
wr_status wri_plugin_open(struct wr_slot *slot, char *err);

#endif /* WR_INTERNAL_H */

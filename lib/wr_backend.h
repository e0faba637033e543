/*
 * wr_backend.h -- the contract between lib/ and a backend (internal).
 *
 * A backend is one const struct wr_backend_ops filled with designated
 * initializers (the libsodium/hwloc pattern).  The cpu backend is linked into
 * libwarpred.so; the cuda and omptarget backends are plugins that each export
 * exactly one symbol, WR_BACKEND_SYMBOL, of this type, and need nothing else
 * from libwarpred: what they use of the core comes through struct
 * wr_host_api, so a plugin loads whatever namespace the host program loaded
 * libwarpred into (dlopen RTLD_LOCAL, as Python's ctypes does).
 *
 * lib/ validates every argument before it calls a backend, so a backend may
 * assume: valid enums, the op is defined for the type, non-NULL buffers
 * wherever an element is read or written, buffers aligned to their element
 * size that end inside the address space, non-decreasing offsets, and no
 * overlap except in == out for scans.  Everything lib/ found out about a call
 * (where each buffer lives, the first and last offsets, the float mode)
 * comes to the operation in a struct wr_call: a backend keeps no memory of
 * one call for the next.  A backend never prints; it reports a failure as a
 * status plus a one-line reason written into err (WR_ERRLEN bytes).
 *
 * Change anything in these structs or in the meaning of a field: bump
 * WR_BACKEND_ABI.  The loader refuses a plugin whose abi differs, and one
 * whose table has a NULL function pointer.
 */
#ifndef WR_BACKEND_H
#define WR_BACKEND_H

#include <stddef.h>
#include "warpred.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WR_BACKEND_ABI 4
#define WR_BACKEND_SYMBOL "warpred_backend_ops"   /* a plugin's one exported name */
#define WR_ERRLEN 256                             /* size of every err buffer */

/* Where a buffer lives, as a backend that can tell sees it. */
typedef enum wr_mem_kind {
    WR_MEM_HOST = 0,       /* ordinary (pageable) host memory, or not known to the backend */
    WR_MEM_HOST_PINNED,    /* page-locked host memory registered with the device runtime */
    WR_MEM_DEVICE,         /* device memory: the host cannot dereference it */
    WR_MEM_MANAGED,        /* managed/unified memory: both sides can reach it */
    WR_MEM_MAPPED          /* host memory the backend holds a device copy of (OpenMP: present
                              in the device data environment); the backend works on that copy */
} wr_mem_kind;

/* What a plugin may use of the core, handed to open() (valid until the
 * process ends). */
struct wr_host_api {
    /* WR_BACKEND_ABI of the core. */
    unsigned abi;
    /* The value of an environment variable, or NULL when it is unset or when
     * the process is privileged (setuid/setgid: AT_SECURE), where libwarpred
     * ignores its environment.  Never NULL. */
    const char *(*getenv)(const char *name);
    /* Parse the environment variable `name` as a decimal count in [min, max]:
     * returns 0 when it is unset or empty (*value untouched), 1 with *value
     * set, or -1 with "NAME=VALUE: why" in err (WR_ERRLEN bytes).  Never NULL. */
    int (*env_count)(const char *name, size_t min, size_t max, size_t *value, char *err);
};

/* What lib/ found out about one call, for the operation it calls next. */
struct wr_call {
    wr_mem_kind in;          /* the input (WR_MEM_HOST when no element is read) */
    wr_mem_kind out;         /* the output; argext: index */
    wr_mem_kind aux;         /* reduce_segments: offsets; argext: value (WR_MEM_HOST when NULL) */
    wr_float_mode fmode;     /* the float mode the call runs in */
    size_t first, last;      /* reduce_segments: offsets[0] and offsets[nsegments], checked */
};

/* Element bytes of a valid wr_type (a plugin's own copy of wr_type_size). */
static inline size_t wr_backend_type_size(wr_type t)
{
    return (t == WR_INT64 || t == WR_UINT64 || t == WR_DOUBLE) ? 8 : 4;
}

struct wr_backend_ops {
    /* WR_BACKEND_ABI of the header the backend was built with.  Never 0. */
    unsigned abi;
    /* Short lower-case name ("cpu", "cuda", "omptarget").  Never NULL. */
    const char *name;

    /* Create per-context state in *state (may be set to NULL if the backend
     * keeps none).  Returns WR_SUCCESS; WR_ERR_NO_BACKEND when the backend
     * cannot run here (no driver, no device, no code for the device);
     * WR_ERR_INVALID_ARG when one of its environment variables is bad;
     * WR_ERR_NO_MEMORY or WR_ERR_DEVICE; with the reason in err. */
    wr_status (*open)(void **state, const struct wr_host_api *host, char *err);
    /* Free what open() made, after the work it queued has finished.  Called
     * once per successful open(). */
    void (*close)(void *state);
    /* Write a one-line description ("OpenMP, 16 threads", "NVIDIA H200
     * (sm_90, sm_90 machine code)") into buf of len bytes, NUL-terminated. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Host threads a call made now from the calling thread would run on (the
     * cpu backend: its OpenMP team), for AUTO's cost model; 0 for a backend
     * that computes on a device. */
    int (*threads)(void *state);
    /* Residency of the memory at ptr (a wr_mem_kind).  The cpu backend
     * answers WR_MEM_HOST for everything. */
    wr_mem_kind (*locate)(void *state, const void *ptr);
    /* Summarise nsegments + 1 offsets (nsegments >= 1) where they are (for a
     * device backend: where locate() said device or managed memory, without
     * bringing them to the host): sum[0] = offsets[0], sum[1] =
     * offsets[nsegments], sum[2] = the least s with offsets[s + 1] <
     * offsets[s] (SIZE_MAX when there is none) and, when there is one, sum[3]
     * = offsets[s], sum[4] = offsets[s + 1]. */
    wr_status (*check_offsets)(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err);
    /* Order the context's device work on stream (a cudaStream_t; NULL: the
     * backend's own), after what the backend queued before.  A backend
     * without streams returns WR_ERR_NO_BACKEND with a reason. */
    wr_status (*set_stream)(void *state, void *stream, char *err);
    /* Wait for all work the backend queued for this context; report a failure
     * of asynchronous work. */
    wr_status (*synchronize)(void *state, char *err);

    /* The operations; see warpred.h for their meaning.  Each one must write
     * its outputs completely before returning WR_SUCCESS, or have queued the
     * work that does when a stream is set and every buffer is device or
     * managed memory; and must leave them untouched when it fails before any
     * work started.  A backend without an operation points it at a function
     * that returns WR_ERR_UNSUPPORTED with a reason. */
    wr_status (*reduce)(void *state, const struct wr_call *call, const void *in, void *out,
                        size_t count, wr_type type, wr_op op, char *err);
    /* count >= 1.  exclusive == 0: inclusive scan; otherwise exclusive. */
    wr_status (*scan)(void *state, const struct wr_call *call, const void *in, void *out,
                      size_t count, wr_type type, wr_op op, int exclusive, char *err);
    /* rows >= 1. */
    wr_status (*reduce_rows)(void *state, const struct wr_call *call, const void *in, void *out,
                             size_t rows, size_t cols, wr_type type, wr_op op, char *err);
    /* nsegments >= 1; offsets: nsegments+1 entries where call->aux says.
     * in is the caller's pointer (element offsets[s] is in[offsets[s]]); it
     * is NULL only when every segment is empty. */
    wr_status (*reduce_segments)(void *state, const struct wr_call *call, const void *in, void *out,
                                 size_t nsegments, const size_t *offsets, wr_type type, wr_op op,
                                 char *err);
    /* count >= 1.  is_max == 0: argmin, else argmax.  value may be NULL. */
    wr_status (*argext)(void *state, const struct wr_call *call, const void *in, size_t count,
                        wr_type type, int is_max, size_t *index, void *value, char *err);
    /* count >= 1, type WR_FLOAT or WR_DOUBLE: write the exact sum of
     * in[0..count) to acc, a struct wrx_acc of lib/wr_exact.h in host
     * memory, whatever call->fmode says (wr_reduce_exact).  In reproducible
     * mode, reduce, reduce_rows and reduce_segments of float/double SUM must
     * round that exact sum with wr_exact.h (wrx_applies() says when). */
    wr_status (*reduce_exact)(void *state, const struct wr_call *call, const void *in, size_t count,
                              wr_type type, void *acc, char *err);
};

/* The cpu backend's table (cpu/), linked into libwarpred.so. */
extern const struct wr_backend_ops wrcpu_backend_ops;

#ifdef __cplusplus
}
#endif

#endif /* WR_BACKEND_H */

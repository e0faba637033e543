/*
 * wr_backend.h -- the contract between lib/ and a backend (internal).
 *
 * A backend is one const struct wr_backend_ops filled with designated
 * initializers (the libsodium/hwloc pattern).  The cpu backend is linked into
 * libwarpred.so; the cuda backend is a plugin that exports exactly one symbol,
 * WR_BACKEND_SYMBOL, of this type.  lib/ validates every argument before it
 * calls a backend, so a backend may assume: valid enums, the op is defined for
 * the type, non-NULL buffers wherever an element is read or written, sizes that
 * do not overflow size_t, non-decreasing offsets, and no overlap except
 * in == out for scans.  A backend never prints; it reports a failure as a
 * status plus a one-line reason written into err (WR_ERRLEN bytes).
 *
 * Change anything in this struct or in the meaning of a field: bump
 * WR_BACKEND_ABI.  The loader refuses a plugin whose abi differs.
 */
#ifndef WR_BACKEND_H
#define WR_BACKEND_H

#include <stddef.h>
#include "warpred.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WR_BACKEND_ABI 2
#define WR_BACKEND_SYMBOL "warpred_backend_ops"   /* the plugin's one exported name */
#define WR_PLUGIN_FILE "warpred_cuda.so"          /* file the loader dlopen()s */
#define WR_ERRLEN 256                             /* size of every err buffer */

/* Where a buffer lives, as a backend that can tell sees it. */
typedef enum wr_mem_kind {
    WR_MEM_HOST = 0,       /* ordinary (pageable) host memory, or not known to the backend */
    WR_MEM_HOST_PINNED,    /* page-locked host memory registered with the device runtime */
    WR_MEM_DEVICE,         /* device memory: the host cannot dereference it */
    WR_MEM_MANAGED         /* managed/unified memory: both sides can reach it */
} wr_mem_kind;

struct wr_backend_ops {
    /* WR_BACKEND_ABI of the header the backend was built with.  Never 0. */
    unsigned abi;
    /* Short lower-case name ("cpu", "cuda").  Never NULL. */
    const char *name;

    /* Create per-context state in *state (may be set to NULL if the backend
     * keeps none).  Returns WR_SUCCESS, or WR_ERR_NO_BACKEND when the backend
     * cannot run here (no driver, no device), WR_ERR_NO_MEMORY or
     * WR_ERR_DEVICE, with the reason in err.  Never NULL. */
    wr_status (*open)(void **state, char *err);
    /* Free what open() made.  Called once per successful open().  Never NULL. */
    void (*close)(void *state);
    /* Write a one-line description ("OpenMP, 16 threads", "NVIDIA H200
     * (sm_90)") into buf of len bytes, NUL-terminated.  Never NULL. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Residency of the memory at ptr (a wr_mem_kind).  The cpu backend
     * answers WR_MEM_HOST for everything.  Never NULL.  lib/ calls it, in the
     * calling thread, for every buffer an operation reads or writes right
     * before calling that operation (and for nothing in between), so a
     * backend may remember the answers for the operation that follows. */
    wr_mem_kind (*locate)(void *state, const void *ptr);
    /* Summarise nsegments + 1 offsets (nsegments >= 1) that live where
     * locate() said device or managed memory, without bringing them to the
     * host: sum[0] = offsets[0], sum[1] = offsets[nsegments], sum[2] = the
     * least s with offsets[s + 1] < offsets[s] (SIZE_MAX when there is none)
     * and, when there is one, sum[3] = offsets[s], sum[4] = offsets[s + 1].
     * lib/ validates such offsets with it (a copy of 8 bytes per segment
     * across the bus took longer than the reduction).  Never NULL. */
    wr_status (*check_offsets)(void *state, const size_t *offsets, size_t nsegments, size_t sum[5], char *err);

    /* The operations; see warpred.h for their meaning.  Each one must write
     * its outputs completely before returning WR_SUCCESS and must leave them
     * untouched when it fails before any work started.  None may be NULL: a
     * backend without an operation points it at a function that returns
     * WR_ERR_UNSUPPORTED with a reason. */
    wr_status (*reduce)(void *state, const void *in, void *out, size_t count,
                        wr_type type, wr_op op, char *err);
    /* exclusive == 0: inclusive scan; otherwise exclusive (out[0] = identity). */
    wr_status (*scan)(void *state, const void *in, void *out, size_t count,
                      wr_type type, wr_op op, int exclusive, char *err);
    wr_status (*reduce_rows)(void *state, const void *in, void *out, size_t rows,
                             size_t cols, wr_type type, wr_op op, char *err);
    /* offsets: nsegments+1 entries, in memory of the same kind as lib/ found
     * (host, or device when locate() said so). */
    wr_status (*reduce_segments)(void *state, const void *in, void *out, size_t nsegments,
                                 const size_t *offsets, wr_type type, wr_op op, char *err);
    /* is_max == 0: argmin, else argmax.  count >= 1.  value may be NULL. */
    wr_status (*argext)(void *state, const void *in, size_t count, wr_type type,
                        int is_max, size_t *index, void *value, char *err);
};

/* The cpu backend's table (cpu/), linked into libwarpred.so. */
extern const struct wr_backend_ops wri_cpu_backend_ops;
/* Threads the cpu backend would use for a call made now from the calling
 * thread (1 without OpenMP); for AUTO's choice in lib/api.c. */
int wri_cpu_threads(void);
/* check_offsets' summary of offsets the host can read (lib/api.c). */
void wri_offsets_summary(const size_t *offsets, size_t nsegments, size_t sum[5]);

#ifdef __cplusplus
}
#endif

#endif /* WR_BACKEND_H */

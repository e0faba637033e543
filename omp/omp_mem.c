/*
 * omp_mem.c -- the memory of the omptarget backend: where a buffer lives
 * (locate), how a kernel reaches it (resolve: mapped host memory becomes
 * its device copy, device and managed memory are used as they are, other
 * host memory is staged), the per-context pool of device scratch blocks,
 * and copies between host and device.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "omp_internal.h"

int wro_par(const struct wro_state *st, size_t work)
{
    return !st->host || work >= WRO_HOST_PAR_MIN;
}

wr_mem_kind wro_locate(void *state, const void *ptr)
{
    struct wro_state *st = state;
    if (st->host || ptr == NULL) return WR_MEM_HOST;
    if (omp_target_is_present(ptr, st->dev)) return WR_MEM_MAPPED;
    if (st->cu) return wro_cuda_locate(st->cu, ptr);
    return WR_MEM_HOST;
}

wr_status wro_scratch_open(struct wro_state *st, struct wro_scratch *s, size_t bytes, char *err)
{
    int i, best = -1;
    s->st = st;
    s->used = 0;
    s->blk.p = NULL;
    s->blk.bytes = 0;
    if (bytes < 256) bytes = 256;
    pthread_mutex_lock(&st->mu);
    for (i = 0; i < st->npool; i++)
        if (st->pool[i].bytes >= bytes && (best < 0 || st->pool[i].bytes < st->pool[best].bytes)) best = i;
    if (best >= 0) {
        s->blk = st->pool[best];
        st->pool[best] = st->pool[--st->npool];
    }
    pthread_mutex_unlock(&st->mu);
    if (s->blk.p != NULL) return WR_SUCCESS;
    /* a little more than asked, so that slightly larger calls reuse it */
    bytes = (bytes + bytes / 8 + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
    s->blk.p = omp_target_alloc(bytes, st->dev);
    if (s->blk.p == NULL) {
        snprintf(err, WR_ERRLEN, "omp_target_alloc of %zu bytes of scratch on device %d failed", bytes, st->dev);
        return WR_ERR_NO_MEMORY;
    }
    s->blk.bytes = bytes;
    return WR_SUCCESS;
}

void *wro_scratch_take(struct wro_scratch *s, size_t n)
{
    size_t need = WRO_SCRATCH_SIZE(n);
    char *p;
    if (s->blk.bytes - s->used < need) return NULL;
    p = (char *)s->blk.p + s->used;
    s->used += need;
    return p;
}

void wro_scratch_close(struct wro_scratch *s)
{
    struct wro_state *st = s->st;
    struct wro_block drop = { NULL, 0 };
    int i, small;
    if (st == NULL || s->blk.p == NULL) return;
    pthread_mutex_lock(&st->mu);
    if (st->npool < WRO_POOL) {
        st->pool[st->npool++] = s->blk;
    } else {
        /* keep the larger ones */
        for (small = 0, i = 1; i < st->npool; i++)
            if (st->pool[i].bytes < st->pool[small].bytes) small = i;
        if (st->pool[small].bytes < s->blk.bytes) {
            drop = st->pool[small];
            st->pool[small] = s->blk;
        } else {
            drop = s->blk;
        }
    }
    pthread_mutex_unlock(&st->mu);
    if (drop.p) omp_target_free(drop.p, st->dev);
    s->blk.p = NULL;
}

wr_status wro_copy(struct wro_state *st, void *dst, int dst_on_dev, const void *src, int src_on_dev,
                   size_t bytes, char *err)
{
    int r;
    if (bytes == 0) return WR_SUCCESS;
    r = omp_target_memcpy(dst, (void *)(uintptr_t)src, bytes, 0, 0, dst_on_dev ? st->dev : st->initial,
                          src_on_dev ? st->dev : st->initial);
    if (r != 0) {
        snprintf(err, WR_ERRLEN, "omp_target_memcpy of %zu bytes (%s to %s) failed", bytes,
                 src_on_dev ? "device" : "host", dst_on_dev ? "device" : "host");
        return WR_ERR_DEVICE;
    }
    return WR_SUCCESS;
}

/* The device address of mapped host address p (use_device_ptr translates an
 * address inside a mapped section to the same place in its device copy). */
static char *dev_addr(int dev, const void *p)
{
    char *q = (char *)(uintptr_t)p, *r = NULL;
#pragma omp target data use_device_ptr(q) device(dev)
    r = q;
    return r;
}

wr_status wro_resolve(struct wro_state *st, const void *ptr, size_t bytes, wr_mem_kind kind, const char *what,
                      struct wro_buf *b, char *err)
{
    b->p = (char *)(uintptr_t)ptr;
    b->direct = 1;
    b->on_dev = 1;
    if (bytes == 0 || ptr == NULL) return WR_SUCCESS;
    switch (kind) {
    case WR_MEM_DEVICE:
    case WR_MEM_MANAGED:
        return WR_SUCCESS;
    case WR_MEM_MAPPED: {
        const char *last = (const char *)ptr + bytes - 1;
        char *d0, *d1;
        if (!omp_target_is_present(last, st->dev)) {
            snprintf(err, WR_ERRLEN, "%s is mapped on device %d only in part: its last byte (%p, %zu bytes on) "
                     "is not present", what, st->dev, (const void *)last, bytes - 1);
            return WR_ERR_INVALID_ARG;
        }
        d0 = dev_addr(st->dev, ptr);
        d1 = dev_addr(st->dev, last);
        if (d0 == NULL || d1 == NULL || (size_t)(d1 - d0) != bytes - 1) {
            snprintf(err, WR_ERRLEN, "%s is not mapped as one piece on device %d (its first and last bytes "
                     "are in different mappings)", what, st->dev);
            return WR_ERR_INVALID_ARG;
        }
        b->p = d0;
        return WR_SUCCESS;
    }
    default:
        if (st->host && !st->stage_host) return WR_SUCCESS;
        b->direct = 0;
        b->on_dev = 0;
        return WR_SUCCESS;
    }
}

wr_status wro_fill(struct wro_state *st, const struct wro_buf *out, size_t count, size_t es, const void *v,
                   char *err)
{
    char *h = malloc(count * es);
    size_t i;
    wr_status rc;
    if (h == NULL) {
        snprintf(err, WR_ERRLEN, "out of host memory for %zu bytes", count * es);
        return WR_ERR_NO_MEMORY;
    }
    for (i = 0; i < count; i++) memcpy(h + i * es, v, es);
    rc = wro_copy(st, out->p, out->on_dev, h, 0, count * es, err);
    free(h);
    return rc;
}

void wro_pool_free(struct wro_state *st)
{
    int i;
    for (i = 0; i < st->npool; i++) omp_target_free(st->pool[i].p, st->dev);
    st->npool = 0;
}

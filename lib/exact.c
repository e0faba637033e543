/*
 * exact.c -- wr_exact_sum: the public face of lib/wr_exact.h's accumulator
 * (wr_reduce_exact, which needs a backend, is in api.c).
 *
 * A wr_exact_sum is a struct wrx_acc in the caller's storage, copied in and
 * out with memcpy (the public type promises only 8-byte alignment and
 * size).  A sum from outside -- another process, or garbage -- is checked
 * before use: the magic word, and digits within the bounds their pending
 * carries allow, so that a merge can never overflow an int64.
 */
#include <config.h>
#include <string.h>
#include "wr_internal.h"
#include "wr_exact.h"

typedef char wri_exact_size_matches[sizeof(wr_exact_sum) == sizeof(wrx_acc) ? 1 : -1];

int wri_exact_valid(const wrx_acc *a)
{
    int64_t lim;
    int k;
    if ((a->flags & WRX_MAGIC_MASK) != WRX_MAGIC || (a->flags & ~WRX_MAGIC_MASK & ~WRX_FLAGS) != 0) return 0;
    if (a->load < 1 || a->load > WRX_LOAD_MAX) return 0;
    lim = (int64_t)a->load << 32; /* only once load is known to be small */
    for (k = 0; k < WRX_TOP; k++)
        if (a->d[k] <= -lim || a->d[k] >= lim) return 0;
    /* the top digit: at most 2^62 times the largest double, and room for
     * the carries of a merge */
    return a->d[WRX_TOP] > -((int64_t)1 << 62) && a->d[WRX_TOP] < ((int64_t)1 << 62);
}

/* The sum at p, checked, into *a; 0 with the reason set when it is not one. */
static int load(const char *fn, const char *what, const wr_exact_sum *p, wrx_acc *a)
{
    if (p == NULL) {
        wri_set_error(NULL, "%s: %s is NULL", fn, what);
        return 0;
    }
    memcpy(a, p, sizeof *a);
    if (!wri_exact_valid(a)) {
        wri_set_error(NULL, "%s: %s is not a wr_exact_sum (not made by wr_exact_sum_init)", fn, what);
        return 0;
    }
    return 1;
}

wr_status wr_exact_sum_init(wr_exact_sum *sum)
{
    wrx_acc a;
    if (sum == NULL) {
        wri_set_error(NULL, "wr_exact_sum_init: sum is NULL");
        return WR_ERR_INVALID_ARG;
    }
    wrx_init(&a);
    memcpy(sum, &a, sizeof a);
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

wr_status wr_exact_sum_merge(wr_exact_sum *sum, const wr_exact_sum *other)
{
    static const char fn[] = "wr_exact_sum_merge";
    wrx_acc a, b;
    if (!load(fn, "sum", sum, &a) || !load(fn, "other", other, &b)) return WR_ERR_INVALID_ARG;
    wrx_merge(&a, &b);
    if (a.d[WRX_TOP] <= -((int64_t)1 << 62) || a.d[WRX_TOP] >= ((int64_t)1 << 62)) {
        /* more than 2^62 times the largest double: no real count of elements gets here */
        wri_set_error(NULL, "%s: the sum's magnitude passes 2^1086", fn);
        return WR_ERR_INVALID_ARG;
    }
    memcpy(sum, &a, sizeof a);
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

wr_status wr_exact_sum_round(const wr_exact_sum *sum, wr_type type, void *out)
{
    static const char fn[] = "wr_exact_sum_round";
    wrx_acc a;
    if (wr_type_size(type) == 0) {
        wri_set_error(NULL, "%s: type %d is not a wr_type", fn, (int)type);
        return WR_ERR_INVALID_ARG;
    }
    if (type != WR_FLOAT && type != WR_DOUBLE) {
        wri_set_error(NULL, "%s: an exact sum rounds to float or double, not to an integer type", fn);
        return WR_ERR_UNSUPPORTED;
    }
    if (out == NULL) {
        wri_set_error(NULL, "%s: out is NULL", fn);
        return WR_ERR_INVALID_ARG;
    }
    if (!load(fn, "sum", sum, &a)) return WR_ERR_INVALID_ARG;
    if (type == WR_FLOAT) {
        const float f = wrx_round_f32(&a);
        memcpy(out, &f, sizeof f);
    } else {
        const double d = wrx_round_f64(&a);
        memcpy(out, &d, sizeof d);
    }
    wri_clear_error(NULL);
    return WR_SUCCESS;
}

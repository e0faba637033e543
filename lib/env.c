/*
 * env.c -- the one way libwarpred (and its plugins, through wr_host_api)
 * reads its environment.
 *
 * A setuid or setgid program must not let its caller steer it through the
 * environment: WARPRED_PLUGIN_DIR would load any shared object with the
 * program's privileges.  So a privileged process (the kernel's AT_SECURE,
 * which glibc's secure_getenv tests) sees no libwarpred variable at all.
 */
#define _GNU_SOURCE 1            /* secure_getenv */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_AUXV_H
#  include <sys/auxv.h>
#endif
#include "wr_internal.h"

const char *wri_getenv(const char *name)
{
#if defined(HAVE_SECURE_GETENV)
    return secure_getenv(name);
#else
#  if defined(HAVE_GETAUXVAL) && defined(AT_SECURE)
    if (getauxval(AT_SECURE) != 0) return NULL;
#  endif
    if (getuid() != geteuid() || getgid() != getegid()) return NULL;
    return getenv(name);
#endif
}

int wri_env_count(const char *name, size_t min, size_t max, size_t *value, char *err)
{
    const char *v = wri_getenv(name), *p;
    unsigned long long x;
    char *end;

    if (v == NULL || v[0] == '\0') return 0;
    for (p = v; *p; p++)
        if (*p < '0' || *p > '9') break;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (*p != '\0' || *end != '\0' || errno == ERANGE || x < min || x > max) {
        snprintf(err, WR_ERRLEN, "%s=%.40s: expected a whole number from %zu to %zu", name, v, min, max);
        return -1;
    }
    *value = (size_t)x;
    return 1;
}

const struct wr_host_api wri_host_api = {
    .abi = WR_BACKEND_ABI,
    .getenv = wri_getenv,
    .env_count = wri_env_count,
};

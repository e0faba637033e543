/*
 * plugin.c -- find, check, load and open a backend plugin.
 *
 * The hwloc way (hwloc/components.c): dlopen() one file, dlsym() one name,
 * refuse a table whose ABI number differs, and say exactly why.  Before
 * anything is mapped, the directory and the file are checked the way OpenSSH
 * checks the files it trusts (misc.c, safe_path): an absolute directory that
 * is owned by root or by this user and that nobody else can write to, and a
 * regular file likewise (a FIFO or a directory under the plugin's name would
 * make dlopen block or fail obscurely).  As safe_path does, the file's path
 * is then made canonical (realpath: no symbolic links, no "..") and every
 * directory on it, up to and including "/", must pass the same owner and
 * mode test: whoever can write to any of them can rename a directory below
 * and put a plugin of their own in its place.  One exception, where
 * safe_path (which stops at the user's home directory) has no need of one:
 * a sticky parent such as /tmp, owned by root or this user, is safe, since
 * there nobody but the owner of an entry (already checked to be root or
 * this user) or of the directory may rename or remove it -- the rule the
 * kernel's protected_* settings and systemd's path checks apply; a build
 * tree below /tmp keeps its plugins.  The plugin directory itself may not
 * be group or world writable, sticky or not: anyone could add a plugin
 * there.  The canonical path is what dlopen() then opens, so a symbolic
 * link swapped after the check changes nothing.  WARPRED_PLUGIN_DIR is read through
 * wri_getenv, so a setuid program never looks at it.  After dlopen, every
 * function pointer of the table is checked, so a broken plugin is refused
 * with a reason instead of crashing a later call.
 *
 * A plugin is opened with RTLD_NODELETE and never dlclose()d for good: the
 * CUDA plugin links cudart statically, whose exit handlers must stay mapped
 * until the process ends.
 */
#include <config.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wr_internal.h"

#ifndef WR_PLUGIN_DIR
#  define WR_PLUGIN_DIR "/usr/local/lib/libwarpred"
#endif

static void say(char *err, const char *fmt, ...) WR_PRINTF(2, 3);
static void say(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, WR_ERRLEN, fmt, ap);
    va_end(ap);
}

/* A distribution's build (configure --with-plugin-package=PREFIX) names the
 * package of a missing plugin: PREFIX and the backend, warpred_cuda.so ->
 * "libwarpred-cuda" for PREFIX "libwarpred-". */
static void say_package(char *err, const char *file)
{
#ifdef WR_PLUGIN_PACKAGE_PREFIX
    size_t n = strlen(err);
    if (strncmp(file, "warpred_", 8) == 0 && n < WR_ERRLEN)
        snprintf(err + n, WR_ERRLEN - n, " (install the package %s%.*s)", WR_PLUGIN_PACKAGE_PREFIX,
                 (int)strcspn(file + 8, "."), file + 8);
#else
    (void)err; (void)file;
#endif
}

/* NULL if st (of path, a `what`) may be trusted, else why not. */
static const char *untrusted(const struct stat *st, int want_dir)
{
    if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
        return want_dir ? "not a directory" : "not a regular file";
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return "owned by another user";
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return "writable by group or others";
    return NULL;
}

/* NULL if every directory on the canonical path real (that of a file) is
 * owned by root or this user and writable by nobody else -- or, above the
 * plugin's own directory, sticky; else why not, with the offending
 * directory in bad. */
static const char *unsafe_parent(const char *real, char *bad, size_t badlen, unsigned *mode)
{
    struct stat st;
    size_t n = strlen(real);
    int up = 0;                                   /* 0: the plugin's own directory */

    if (n >= badlen) return "too long a path";
    memcpy(bad, real, n + 1);
    for (;;) {
        char *slash = strrchr(bad, '/');
        if (slash == NULL) return "not an absolute path";
        slash[slash == bad ? 1 : 0] = '\0';       /* the parent; "/" stays "/" */
        *mode = 0;
        if (stat(bad, &st) != 0) return "impossible to examine (stat failed)";
        *mode = (unsigned)(st.st_mode & 07777);
        if (!S_ISDIR(st.st_mode)) return "not a directory";
        if (st.st_uid != 0 && st.st_uid != geteuid()) return "owned by another user";
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(up > 0 && (st.st_mode & S_ISVTX)))
            return "writable by group or others";
        if (bad[1] == '\0') return NULL;           /* checked "/" */
        up++;
    }
}

/* The table's function pointers, by name, for the check. */
static const char *missing_function(const struct wr_backend_ops *o)
{
#define WRI_NEED(f) if (o->f == NULL) return #f;
    WRI_NEED(open) WRI_NEED(close) WRI_NEED(caps) WRI_NEED(describe) WRI_NEED(threads) WRI_NEED(locate)
    WRI_NEED(check_offsets) WRI_NEED(set_stream) WRI_NEED(synchronize)
#undef WRI_NEED
    /* (the operations a backend leaves NULL are checked against its caps
     * once it is open: wri_backend_caps()) */
    return NULL;
}

wr_status wri_plugin_open(const char *file, struct wri_backend *b, int *missing, char *err)
{
    const char *dir = wri_getenv("WARPRED_PLUGIN_DIR"), *why;
    char path[4096], real[PATH_MAX], bad[PATH_MAX];
    unsigned mode = 0;
    struct stat st;
    void *handle, *sym;
    const struct wr_backend_ops *ops;
    void *state = NULL;
    wr_status s;

    *missing = 0;
    if (dir == NULL || dir[0] == '\0') dir = WR_PLUGIN_DIR;
    if (dir[0] != '/') {
        say(err, "plugin directory '%.200s' is not an absolute path: refused", dir);
        return WR_ERR_NO_BACKEND;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) {
        say(err, "plugin path too long (WARPRED_PLUGIN_DIR)");
        return WR_ERR_NO_BACKEND;
    }
    if (stat(dir, &st) != 0) {
        int e = errno;
        *missing = e == ENOENT;
        say(err, "%s %s: %.200s: %s", file, e == ENOENT ? "not found" : "cannot be opened", dir, strerror(e));
        if (*missing) say_package(err, file);
        return WR_ERR_NO_BACKEND;
    }
    if ((why = untrusted(&st, 1)) != NULL) {
        say(err, "plugin directory %.200s is %s (mode %04o): refused", dir, why, (unsigned)(st.st_mode & 07777));
        return WR_ERR_NO_BACKEND;
    }
    if (stat(path, &st) != 0) {
        int e = errno;
        *missing = e == ENOENT;
        say(err, "%s %s: %.200s: %s", file, e == ENOENT ? "not found" : "cannot be opened", path, strerror(e));
        if (*missing) say_package(err, file);
        return WR_ERR_NO_BACKEND;
    }
    if ((why = untrusted(&st, 0)) != NULL) {
        say(err, "plugin %.200s is %s (mode %04o): refused", path, why, (unsigned)(st.st_mode & 07777));
        return WR_ERR_NO_BACKEND;
    }
    if (realpath(path, real) == NULL) {
        int e = errno;
        *missing = e == ENOENT;
        say(err, "%s cannot be opened: %.200s: realpath: %s", file, path, strerror(e));
        return WR_ERR_NO_BACKEND;
    }
    if ((why = unsafe_parent(real, bad, sizeof bad, &mode)) != NULL) {
        say(err, "plugin %s refused: directory %.170s on its path is %s (mode %04o)", file, bad, why, mode);
        return WR_ERR_NO_BACKEND;
    }
    dlerror();
    handle = dlopen(real, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *e = dlerror();
        say(err, "plugin %.200s cannot be loaded: %s", path, e ? e : "dlopen failed");
        return WR_ERR_NO_BACKEND;
    }
    sym = dlsym(handle, WR_BACKEND_SYMBOL);
    ops = (const struct wr_backend_ops *)sym;
    if (ops == NULL) {
        say(err, "plugin %.200s refused: it does not export %s", path, WR_BACKEND_SYMBOL);
    } else if (ops->abi != WR_BACKEND_ABI) {
        say(err, "plugin %.200s refused: ABI mismatch (plugin has %u, libwarpred expects %u)",
            path, ops->abi, (unsigned)WR_BACKEND_ABI);
        ops = NULL;
    } else if (ops->name == NULL || (why = missing_function(ops)) != NULL) {
        say(err, "plugin %.200s refused: its table has no %s", path, ops->name ? why : "name");
        ops = NULL;
    }
    if (ops == NULL) {
        dlclose(handle);
        return WR_ERR_NO_BACKEND;
    }
    err[0] = '\0';
    s = ops->open(&state, &wri_host_api, err);
    /* the handle's reference goes; RTLD_NODELETE keeps the code mapped (also
     * after a failed open: a driver may be half-initialised) */
    dlclose(handle);
    if (s != WR_SUCCESS) {
        char why2[WR_ERRLEN];
        snprintf(why2, sizeof why2, "%s", err[0] ? err : wr_status_string(s));
        say(err, "%s: %s", ops->name, why2);
        return s == WR_ERR_NO_MEMORY || s == WR_ERR_INVALID_ARG ? s : WR_ERR_NO_BACKEND;
    }
    b->ops = ops;
    b->state = state;
    return WR_SUCCESS;
}

/*
 * plugin.c -- find, load and check the CUDA backend plugin.
 *
 * The hwloc way (hwloc/components.c): dlopen() one file, dlsym() one name,
 * refuse a table whose ABI number differs, and say exactly why.  The plugin
 * is opened with RTLD_NODELETE and never dlclose()d: it links cudart
 * statically, whose exit handlers must stay mapped until the process ends.
 */
#include <config.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wr_internal.h"

#ifndef WR_PLUGIN_DIR
#  define WR_PLUGIN_DIR "/usr/local/lib/libwarpred"
#endif

/* snprintf into err through vsnprintf: a path may be cut, and that is fine. */
static void say(char *err, const char *fmt, ...) WR_PRINTF(2, 3);
static void say(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, WR_ERRLEN, fmt, ap);
    va_end(ap);
}

wr_status wri_plugin_open(struct wr_slot *slot, char *err)
{
    const char *dir = getenv("WARPRED_PLUGIN_DIR");
    char path[4096];
    void *handle, *sym;
    const struct wr_backend_ops *ops;
    void *state = NULL;
    wr_status st;

    if (dir == NULL || dir[0] == '\0')
        dir = WR_PLUGIN_DIR;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, WR_PLUGIN_FILE) >= sizeof path) {
        say(err, "cuda plugin path too long (WARPRED_PLUGIN_DIR)");
        return WR_ERR_NO_BACKEND;
    }
    if (access(path, R_OK) != 0) {
        say(err, "cuda plugin not found: %s: %s", path, strerror(errno));
        return WR_ERR_NO_BACKEND;
    }
    dlerror();
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *why = dlerror();
        say(err, "cuda plugin %s cannot be loaded: %s", path, why ? why : "dlopen failed");
        return WR_ERR_NO_BACKEND;
    }
    sym = dlsym(handle, WR_BACKEND_SYMBOL);
    if (sym == NULL) {
        say(err, "cuda plugin %s refused: it does not export %s", path, WR_BACKEND_SYMBOL);
        dlclose(handle);
        return WR_ERR_NO_BACKEND;
    }
    ops = (const struct wr_backend_ops *)sym;
    if (ops->abi != WR_BACKEND_ABI) {
        say(err, "cuda plugin %s refused: ABI mismatch (plugin has %u, libwarpred expects %u)",
                 path, ops->abi, (unsigned)WR_BACKEND_ABI);
        dlclose(handle);
        return WR_ERR_NO_BACKEND;
    }
    err[0] = '\0';
    st = ops->open(&state, err);
    if (st != WR_SUCCESS) {
        if (err[0] == '\0')
            say(err, "cuda plugin %s: open failed: %s", path, wr_status_string(st));
        /* keep the plugin mapped (RTLD_NODELETE); a driver may be half-initialised */
        dlclose(handle);
        return st == WR_ERR_NO_MEMORY ? st : WR_ERR_NO_BACKEND;
    }
    /* The handle's reference is dropped; RTLD_NODELETE keeps the code mapped. */
    dlclose(handle);
    slot->ops = ops;
    slot->state = state;
    return WR_SUCCESS;
}

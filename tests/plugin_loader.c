/*
 * plugin_loader.c -- the CUDA plugin loader and backend choice, on any
 * machine (no GPU needed), with the fake plugins of tests/fake_plugin.c and
 * with crafted files.  Each plugin is copied into a private directory of the
 * build tree (tests/testfs.h), which the test points WARPRED_PLUGIN_DIR at
 * before creating contexts.
 *
 *  - every plugin that cannot be used (not installed, wrong ABI, open()
 *    fails, table not exported, a NULL function pointer in the table, a file
 *    that is not ELF or is empty, a directory or a FIFO under the plugin's
 *    name, a symbolic-link loop, an unreadable file, a relative directory, a
 *    directory or file writable by group or others or owned by another user,
 *    a directory that is a file, a directory above the plugin's, up to
 *    "/", that is writable by group or others (as OpenSSH's safe_path; a
 *    sticky parent such as /tmp is accepted) or owned by another user, a
 *    plugin that is a
 *    symbolic link into such a place): a CUDA context fails with
 *    WR_ERR_NO_BACKEND and a reason that says which; AUTO runs on the cpu
 *    and its description says why the plugin did not load (unless it is
 *    simply not installed); a CPU context works.  Each case runs in a child
 *    process with a time limit, so a loader that hangs (a FIFO blocks open())
 *    or crashes (a NULL function pointer) fails the case and not the test;
 *  - the good fake: a CUDA context calls it and its (tagged) results come
 *    back through the public API, last_backend says CUDA, describe shows it;
 *    a failure inside it comes back with its status and reason, the output
 *    untouched;
 *  - lib/'s routing: AUTO sends a call whose buffer the plugin calls device
 *    or managed memory to cuda and host buffers to the cpu; a CPU context
 *    refuses device pointers (also offsets) with WR_ERR_INVALID_ARG and
 *    takes managed ones; offsets in device memory are validated through
 *    the plugin's check_offsets, whose summary names the decrease;
 *  - WARPRED_BACKEND=cpu / cuda override the request with the plugin present.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "fake_plugin.h"
#include "testfs.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

static void use_plugin(const char *variant)
{
    setenv("WARPRED_PLUGIN_DIR", tf_stage_plugin(WR_TEST_BUILDDIR, variant), 1);
}

static void set_range(const char *name, const void *p, size_t bytes)
{
    char v[64];
    snprintf(v, sizeof v, "%" PRIxPTR ":%zu", (uintptr_t)p, bytes);
    setenv(name, v, 1);
}

static const int32_t host_in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };   /* sum 36 */
static _Alignas(16) int32_t dev[16], managed[16];                           /* "device" and "managed" memory */

/* ---- cases in a child process -------------------------------------------- */

/* Seconds a case may take; a loader that blocks is killed by SIGALRM. */
#define CASE_TIMEOUT 30

static int child_fd = -1;       /* in a case's child: where its checks go */

/* A check made in a case's child: sent to the parent, which reports it. */
static int cok(int success, const char *fmt, ...) TAP_PRINTF(2, 3);
static int cok(int success, const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%d ", success ? 1 : 0);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; p++)
        if (*p == '\n') *p = ' ';
    strcat(line, "\n");
    if (write(child_fd, line, strlen(line)) < 0) _exit(3);
    return success;
}

/* Run body(arg) in a child with a time limit; it makes exactly nchecks
 * cok() checks, which come out here as TAP lines.  Checks it did not make
 * (it crashed or hung) are failures that say how it ended. */
static void isolated(int nchecks, const char *what, void (*body)(const void *), const void *arg)
{
    int fd[2], status, got = 0;
    char line[1024];
    FILE *f;
    pid_t pid;

    fflush(stdout);
    if (pipe(fd) != 0) bail("pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) bail("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fd[0]);
        child_fd = fd[1];
        alarm(CASE_TIMEOUT);
        body(arg);
        _exit(0);                 /* no atexit: the plan and the files are the parent's */
    }
    close(fd[1]);
    f = fdopen(fd[0], "r");
    if (f == NULL) bail("fdopen: %s", strerror(errno));
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (got++ < nchecks) ok(line[0] == '1', "%s", line + 2);
    }
    fclose(f);
    if (waitpid(pid, &status, 0) != pid) bail("waitpid: %s", strerror(errno));
    if (got != nchecks || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char how[128];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "killed by signal %d (%s)%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
                     WTERMSIG(status) == SIGALRM ? ": it hung" : "");
        else
            snprintf(how, sizeof how, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        diag("%s: the case's process made %d of %d checks, %s", what, got, nchecks, how);
        for (; got < nchecks; got++) ok(0, "%s: check %d not made: %s", what, got + 1, how);
    }
}

/* ---- plugins that cannot be used ------------------------------------------- */

struct refusal {
    const char *what;      /* the case */
    const char *dir;       /* WARPRED_PLUGIN_DIR */
    const char *reason;    /* what the reason must contain */
    int not_installed;     /* the plugin is simply missing: AUTO need not say anything */
};

/* CUDA refused with the reason; AUTO falls back to the cpu and says why; CPU works. */
static void refused_body(const void *arg)
{
    const struct refusal *r = (const struct refusal *)arg;
    wr_context *ctx = (wr_context *)&ctx;
    wr_status st;
    int32_t out = 0;
    const char *d;

    setenv("WARPRED_PLUGIN_DIR", r->dir, 1);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    /* "not found" only for what is not there */
    cok(st == WR_ERR_NO_BACKEND && ctx == NULL && tu_contains(wr_context_error(NULL), r->reason) &&
            (r->not_installed || !tu_contains(wr_context_error(NULL), "not found")),
        "%s: CUDA context refused, WR_ERR_NO_BACKEND (%s), reason mentions \"%s\": \"%s\"", r->what,
        wr_status_string(st), r->reason, wr_context_error(NULL));
    st = wr_context_create(&ctx, WR_BACKEND_AUTO);
    if (st != WR_SUCCESS) {
        cok(0, "%s: AUTO falls back to the cpu: %s: %s", r->what, wr_status_string(st), wr_context_error(NULL));
    } else {
        st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
        d = wr_context_describe(ctx);
        cok(wr_context_error(NULL)[0] == '\0' && !wr_context_has_backend(ctx, WR_BACKEND_CUDA) &&
            !tu_contains(d, "; cuda:") &&
            /* a plugin that is not installed is not news; one that is and did not load is */
            (r->not_installed ? !tu_contains(d, "not loaded")
                              : tu_contains(d, "not loaded") && tu_contains(d, r->reason)) &&
            st == WR_SUCCESS && out == 36 && wr_context_last_backend(ctx) == WR_BACKEND_CPU,
            "%s: AUTO falls back to the cpu and says why (sum %d, describe \"%s\")", r->what, (int)out, d);
        wr_context_destroy(ctx);
    }
    out = 0;
    ctx = NULL;
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    if (st == WR_SUCCESS) st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
    cok(st == WR_SUCCESS && out == 36, "%s: CPU context unaffected (%s, sum %d)", r->what, wr_status_string(st),
        (int)out);
    wr_context_destroy(ctx);
}

static void refused(const char *what, const char *dir, const char *reason, int not_installed)
{
    struct refusal r = { what, dir, reason, not_installed };
    isolated(3, what, refused_body, &r);
}

#define N_REFUSED 22

/* dir with a copy of the good fake plugin in it (mode 0644); returns dir. */
static char *good_copy(char *dir)
{
    char *from = tf_printf("%s/tests/fake_good/.libs/warpred_cuda.so", WR_TEST_BUILDDIR);
    if (tf_copy(from, tf_path(dir, "warpred_cuda.so"), 0644) != 0) bail("copying %s: %s", from, strerror(errno));
    return dir;
}

/* Each way a plugin directory can hold something unusable. */
static void refusals(void)
{
    static char real[PATH_MAX];
    char *top = tf_tmpdir(WR_TEST_BUILDDIR "/tests", "plugin_loader"), *d, *f;
    struct passwd *pw = getpwnam("nobody");
    int root = geteuid() == 0;

    /* the loader names directories by their real path (the build tree may
     * be reached through a symbolic link) */
    if (realpath(top, real) != NULL) top = real;

    refused("no plugin file", tf_mkdir(top, "empty", 0700), "not found", 1);
    refused("wrong ABI number", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_abi"), "ABI", 0);
    refused("the plugin's open() fails", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_nodev"), "no CUDA device", 0);
    refused("table not exported", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_nosym"), "warpred_backend_ops", 0);
    refused("a NULL function pointer in the table", tf_stage_plugin(WR_TEST_BUILDDIR, "fake_nullfn"),
            "reduce_rows", 0);

    d = tf_mkdir(top, "notelf", 0755);
    tf_write(tf_path(d, "warpred_cuda.so"),
             "#!/bin/sh\n# a script where a shared object should be: longer than an ELF header, so that\n"
             "# the loader reads it and finds no ELF magic number\necho hello\n", 0644);
    refused("a file that is not ELF", d, "cannot be loaded", 0);
    d = tf_mkdir(top, "emptyfile", 0755);
    tf_write(tf_path(d, "warpred_cuda.so"), "", 0644);
    refused("an empty file", d, "cannot be loaded", 0);
    d = tf_mkdir(top, "dir", 0755);
    tf_mkdir(d, "warpred_cuda.so", 0755);
    refused("a directory named warpred_cuda.so", d, "not a regular file", 0);
    d = tf_mkdir(top, "fifo", 0755);
    if (mkfifo(tf_path(d, "warpred_cuda.so"), 0644) != 0) bail("mkfifo: %s", strerror(errno));
    refused("a FIFO named warpred_cuda.so (must not block)", d, "not a regular file", 0);
    d = tf_mkdir(top, "loop", 0755);
    if (symlink("warpred_cuda.so", tf_path(d, "warpred_cuda.so")) != 0) bail("symlink: %s", strerror(errno));
    refused("a symbolic link to itself (open fails: ELOOP)", d, strerror(ELOOP), 0);
    if (!root) {
        d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
        chmod(f = tf_path(d, "warpred_cuda.so"), 0);
        refused("an unreadable plugin (open fails: EACCES)", d, "cannot be loaded", 0);
        chmod(f, 0644);
    } else {
        skip_block(3, "an unreadable plugin: root reads a file of mode 0000");
    }

    refused("a relative WARPRED_PLUGIN_DIR", "tests/fake_good/.libs", "not an absolute path", 0);
    d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
    chmod(d, 0770);
    refused("a group-writable plugin directory", d, "writable by group or others", 0);
    d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
    chmod(d, 01777);
    refused("a world-writable plugin directory (even sticky)", d, "writable by group or others", 0);
    d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
    chmod(tf_path(d, "warpred_cuda.so"), 0664);
    refused("a group-writable plugin file", d, "writable by group or others", 0);
    if (root && pw != NULL && pw->pw_uid != 0) {
        d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
        if (chown(d, pw->pw_uid, pw->pw_gid) != 0) bail("chown %s: %s", d, strerror(errno));
        refused("a plugin directory owned by another user", d, "owned by another user", 0);
        d = tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good");
        if (chown(tf_path(d, "warpred_cuda.so"), pw->pw_uid, pw->pw_gid) != 0) bail("chown: %s", strerror(errno));
        refused("a plugin file owned by another user", d, "owned by another user", 0);
    } else {
        skip_block(6, "files owned by another user: %s", root ? "no user nobody" : "only root can give files away");
    }
    refused("a WARPRED_PLUGIN_DIR that is a file", tf_path(tf_stage_plugin(WR_TEST_BUILDDIR, "fake_good"),
                                                           "warpred_cuda.so"),
            "not a directory", 0);

    /* Directories above the plugin directory, up to "/", as OpenSSH's
     * safe_path checks them: whoever may write to one of them can replace
     * the plugin directory.  The reason names the directory at fault. */
    d = tf_mkdir(top, "open", 0777);
    refused("a 0755 plugin directory inside a 0777 parent", good_copy(tf_mkdir(d, "plugins", 0755)),
            tf_printf("directory %s on its path is writable by group or others (mode 0777)", d), 0);
    /* a sticky parent (as /tmp): nobody else may rename what is in it */
    d = tf_mkdir(top, "sticky", 01777);
    setenv("WARPRED_PLUGIN_DIR", good_copy(tf_mkdir(d, "plugins", 0755)), 1);
    {
        wr_context *c = NULL;
        wr_status st = wr_context_create(&c, WR_BACKEND_CUDA);
        ok(st == WR_SUCCESS, "a 0755 plugin directory inside a sticky 1777 parent: loaded (%s)",
           wr_context_error(NULL));
        wr_context_destroy(c);
    }
    d = tf_mkdir(top, "groupw", 0775);
    refused("a plugin directory two levels inside a group-writable directory",
            good_copy(tf_mkdir(tf_mkdir(d, "a", 0755), "b", 0700)),
            tf_printf("directory %s on its path is writable by group or others (mode 0775)", d), 0);
    /* a safe directory whose plugin is a symbolic link into an unsafe one:
     * the real path counts */
    f = tf_path(good_copy(tf_mkdir(tf_mkdir(top, "open2", 0777), "plugins", 0755)), "warpred_cuda.so");
    d = tf_mkdir(top, "link", 0755);
    if (symlink(f, tf_path(d, "warpred_cuda.so")) != 0) bail("symlink: %s", strerror(errno));
    refused("a plugin that is a symbolic link to a file below a 0777 directory", d,
            tf_printf("directory %s/open2 on its path is writable by group or others", top), 0);
    if (root && pw != NULL && pw->pw_uid != 0) {
        d = tf_mkdir(top, "theirs", 0755);
        if (chown(d, pw->pw_uid, pw->pw_gid) != 0) bail("chown %s: %s", d, strerror(errno));
        refused("a plugin directory inside a directory owned by another user",
                good_copy(tf_mkdir(d, "plugins", 0755)),
                tf_printf("directory %s on its path is owned by another user", d), 0);
    } else {
        skip_block(3, "a parent owned by another user: %s", root ? "no user nobody" : "only root can give files away");
    }
}

static void good_cuda(void)
{
    wr_context *ctx = NULL;
    wr_status st;
    int32_t out = 0, scan[8], seg[2];
    size_t off[3] = { 0, 3, 8 }, idx = 99, i;
    int all;

    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    if (!ok(st == WR_SUCCESS && ctx != NULL, "good fake: CUDA context created (%s)", wr_context_error(NULL)))
        bail("the good fake plugin was not loaded: %s", wr_context_error(NULL));
    ok(wr_context_has_backend(ctx, WR_BACKEND_CUDA) && !wr_context_has_backend(ctx, WR_BACKEND_CPU) &&
       tu_contains(wr_context_describe(ctx), FAKE_DESCRIPTION),
       "good fake: has cuda only, describe shows the plugin: \"%s\"", wr_context_describe(ctx));

    st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(ctx) == WR_BACKEND_CUDA,
       "good fake: wr_reduce ran in the plugin (%d = 36 + tag), last_backend CUDA", (int)out);

    st = wr_scan(ctx, host_in, scan, 8, WR_INT32, WR_SUM);
    all = st == WR_SUCCESS;
    for (i = 0; i < 8; i++) all = all && scan[i] == (int32_t)((i + 1) * (i + 2) / 2 + FAKE_TAG);
    st = wr_exscan(ctx, host_in, scan, 8, WR_INT32, WR_SUM);
    all = all && st == WR_SUCCESS;
    for (i = 0; i < 8; i++) all = all && scan[i] == (int32_t)(i * (i + 1) / 2 + FAKE_TAG);
    st = wr_reduce_segments(ctx, host_in, seg, 2, off, WR_INT32, WR_SUM);
    all = all && st == WR_SUCCESS && seg[0] == 6 + FAKE_TAG && seg[1] == 30 + FAKE_TAG;
    st = wr_argmax(ctx, host_in, 8, WR_INT32, &idx, &out);
    ok(all && st == WR_SUCCESS && idx == 7 && out == 8,
       "good fake: scan, exscan, segments and argmax come back through the public API");

    /* failures inside the plugin: status and reason come back, output untouched */
    out = -5;
    st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_MAX);
    ok(st == WR_ERR_UNSUPPORTED && out == -5 && tu_contains(wr_context_error(ctx), "only int32 SUM") &&
       tu_contains(wr_context_error(ctx), "cuda"),
       "good fake: its WR_ERR_UNSUPPORTED comes back with its reason: \"%s\"", wr_context_error(ctx));
    {
        int32_t thirteen[FAKE_FAIL_COUNT] = { 0 };
        st = wr_reduce(ctx, thirteen, &out, FAKE_FAIL_COUNT, WR_INT32, WR_SUM);
        ok(st == WR_ERR_DEVICE && out == -5 && tu_contains(wr_context_error(ctx), "fake kernel launch failed") &&
           tu_mentions(wr_context_error(ctx), "wr_reduce"),
           "good fake: a device failure comes back as WR_ERR_DEVICE naming the call: \"%s\"",
           wr_context_error(ctx));
    }
    st = wr_reduce_rows(ctx, host_in, seg, 2, 4, WR_INT32, WR_SUM);
    ok(st == WR_ERR_UNSUPPORTED && tu_contains(wr_context_error(ctx), "no reduce_rows"),
       "good fake: a missing operation says so: \"%s\"", wr_context_error(ctx));

    /* offsets in "device" memory: lib/ validates them through check_offsets */
    {
        size_t *doff = (size_t *)(void *)dev;   /* 64 bytes: room for 8 offsets */
        doff[0] = 0;
        doff[1] = 5;
        doff[2] = 3;
        seg[0] = seg[1] = -5;
        st = wr_reduce_segments(ctx, host_in, seg, 2, doff, WR_INT32, WR_SUM);
        ok(st == WR_ERR_INVALID_ARG && seg[0] == -5 && seg[1] == -5 &&
           tu_contains(wr_context_error(ctx), "offsets[2] = 3 < offsets[1] = 5"),
           "good fake: decreasing offsets in device memory are refused: \"%s\"", wr_context_error(ctx));
        doff[2] = 8;
        st = wr_reduce_segments(ctx, host_in, seg, 2, doff, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && seg[0] == 15 + FAKE_TAG && seg[1] == 21 + FAKE_TAG,
           "good fake: valid offsets in device memory are used (%d, %d)", (int)seg[0], (int)seg[1]);
    }
    wr_context_destroy(ctx);
}

static void good_auto_and_cpu(void)
{
    wr_context *aut = NULL, *cpu = NULL;
    wr_status st;
    int32_t out = 0, seg[2] = { -5, -5 };
    const size_t off1[2] = { 0, 8 };
    size_t i;

    for (i = 0; i < 16; i++) dev[i] = managed[i] = (int32_t)i + 1;   /* sums of 8: 36 */
    st = wr_context_create(&aut, WR_BACKEND_AUTO);
    ok(st == WR_SUCCESS && wr_context_has_backend(aut, WR_BACKEND_CUDA) && wr_context_has_backend(aut, WR_BACKEND_CPU) &&
       tu_contains(wr_context_describe(aut), "cpu") && tu_contains(wr_context_describe(aut), FAKE_DESCRIPTION),
       "AUTO with the good fake: has cpu and cuda, describe shows both: \"%s\"",
       aut ? wr_context_describe(aut) : "");
    if (aut == NULL) bail("no AUTO context: %s", wr_context_error(NULL));

    st = wr_reduce(aut, host_in, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 && wr_context_last_backend(aut) == WR_BACKEND_CPU,
       "AUTO: host memory runs on the cpu (%d, untagged)", (int)out);
    st = wr_reduce(aut, dev, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(aut) == WR_BACKEND_CUDA,
       "AUTO: an input in device memory runs on cuda (%d)", (int)out);
    st = wr_reduce(aut, host_in, &managed[12], 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && managed[12] == 36 + FAKE_TAG && wr_context_last_backend(aut) == WR_BACKEND_CUDA,
       "AUTO: an output in managed memory runs on cuda (%d)", (int)managed[12]);
    managed[12] = 13;

    st = wr_context_create(&cpu, WR_BACKEND_CPU);
    if (cpu == NULL) bail("no CPU context: %s", wr_context_error(NULL));
    ok(!wr_context_has_backend(cpu, WR_BACKEND_CUDA), "CPU context with the plugin present: no cuda backend");
    /* a CPU context asks no plugin where memory lives (lib/locate.c; the
     * refusal of real device memory: tests/light_locator): what only the
     * fake calls device memory is host memory to it */
    out = -5;
    st = wr_reduce(cpu, dev, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 && wr_context_last_backend(cpu) == WR_BACKEND_CPU,
       "CPU context: a pointer only the plugin calls device memory is host memory to it (%d, untagged)", (int)out);
    ok(!tu_contains(wr_context_describe(cpu), "cuda"), "CPU context: no plugin in its description: \"%s\"",
       wr_context_describe(cpu));
    st = wr_reduce_segments(cpu, host_in, seg, 1, off1, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && seg[0] == 36, "CPU context: segments of host memory (%d)", (int)seg[0]);
    st = wr_reduce(cpu, managed, &out, 8, WR_INT32, WR_SUM);
    ok(st == WR_SUCCESS && out == 36 && wr_context_last_backend(cpu) == WR_BACKEND_CPU,
       "CPU context: managed memory runs on the cpu (%d)", (int)out);

    wr_context_destroy(aut);
    wr_context_destroy(cpu);
}

static void env_override(void)
{
    wr_context *ctx = NULL;
    wr_status st;
    int32_t out = 0;

    setenv("WARPRED_BACKEND", "cpu", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CUDA);
    if (ctx) {
        st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && out == 36 && !wr_context_has_backend(ctx, WR_BACKEND_CUDA) &&
           wr_context_last_backend(ctx) == WR_BACKEND_CPU && !tu_contains(wr_context_describe(ctx), "cuda"),
           "WARPRED_BACKEND=cpu with a CUDA request and the plugin present: cpu only, no plugin loaded");
        wr_context_destroy(ctx);
    } else {
        ok(0, "WARPRED_BACKEND=cpu with a CUDA request: %s: %s", wr_status_string(st), wr_context_error(NULL));
    }
    ctx = NULL;
    setenv("WARPRED_BACKEND", "cuda", 1);
    st = wr_context_create(&ctx, WR_BACKEND_CPU);
    if (ctx) {
        st = wr_reduce(ctx, host_in, &out, 8, WR_INT32, WR_SUM);
        ok(st == WR_SUCCESS && out == 36 + FAKE_TAG && wr_context_last_backend(ctx) == WR_BACKEND_CUDA,
           "WARPRED_BACKEND=cuda with a CPU request: host memory runs in the plugin (%d)", (int)out);
        wr_context_destroy(ctx);
    } else {
        ok(0, "WARPRED_BACKEND=cuda with a CPU request: %s: %s", wr_status_string(st), wr_context_error(NULL));
    }
    unsetenv("WARPRED_BACKEND");
}

int main(void)
{
    unsetenv("WARPRED_BACKEND");
    unsetenv("WR_FAKE_COUNT");
    plan(3 * N_REFUSED + 1 + 9 + 9 + 2);
    set_range("WR_FAKE_DEVICE", dev, sizeof dev);
    set_range("WR_FAKE_MANAGED", managed, sizeof managed);

    refusals();           /* first: the cases fork, before any OpenMP team exists */

    use_plugin("fake_good");
    good_cuda();
    good_auto_and_cpu();
    env_override();
    return 0;
}

/*
 * setuid.c -- a setuid or setgid program ignores libwarpred's environment
 * (issue #23, item 1): run as `nobody` with WARPRED_PLUGIN_DIR pointing at a
 * directory that holds a plugin whose constructor creates a marker file, a
 * root-owned setuid (then setgid) copy of this program must not run that
 * constructor, for a CPU, an AUTO and a CUDA context; and WARPRED_BACKEND
 * and WARPRED_FLOAT_MODE set to nonsense (which fail wr_context_create in
 * an unprivileged process) must not disturb the setuid copy either.
 *
 * The hostile directory passes every other check of the loader (owned by
 * root, writable by nobody else, the plugin a regular root-owned file, and
 * so is every directory above it: it lives in the build tree, not beside the
 * copy in /tmp, which anyone may write to), so only the environment rule
 * keeps the plugin out; a control run of the same
 * copy by root, unprivileged (AT_SECURE 0), shows that the plugin does load
 * and its constructor does run when the variable is honoured.
 *
 * How: the test (root) copies this program, libwarpred.so and the hostile
 * fake plugin into a fresh directory that the user nobody can reach, on a
 * file system that honours the setuid bit (/tmp, /var/tmp or the build tree:
 * the first that is neither nosuid nor noexec), makes the copy setuid root,
 * then forks, becomes nobody (setgid, setuid) and executes it.  The copy
 * loads libwarpred with dlopen(RTLD_GLOBAL) by absolute path, as a linked
 * program would have it: a setuid process ignores LD_LIBRARY_PATH, through
 * which libtool's uninstalled programs find the library, and AT_SECURE (what
 * secure_getenv tests) applies to the whole process either way.  The copy
 * reports what it saw as lines on its standard output.
 *
 * Skips, with the reason, where the test cannot make another user run a
 * setuid program: not root, no user nobody, no file system that allows it.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "warpred.h"
#include "tap.h"
#include "testfs.h"
#include "fake_plugin.h"

#ifndef WR_TEST_BUILDDIR
#  error "WR_TEST_BUILDDIR must name the top build directory"
#endif

/* ---- the copy's side: load libwarpred, make contexts, say what happened ---- */

/* In a sanitizer build, the copy skips LeakSanitizer: it cannot trace a
 * setgid process (not dumpable), and its options in the environment are out
 * of reach there. */
static int in_copy;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return in_copy;
}

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        printf("error dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static int child_main(const char *libpath, const char *which)
{
    wr_status (*create)(wr_context **, wr_backend);
    void (*destroy)(wr_context *);
    const char *(*error)(const wr_context *), *(*describe)(const wr_context *);
    wr_status (*reduce)(wr_context *, const void *, void *, size_t, wr_type, wr_op);
    static const char *const names[] = { "auto", "cpu", "cuda" };
    static const int x[4] = { 1, 2, 3, 4 };
    void *lib;
    int b;

    in_copy = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);     /* every line out, however the process ends */
    printf("secure %lu uid %ld euid %ld gid %ld egid %ld\n", getauxval(AT_SECURE), (long)getuid(), (long)geteuid(),
           (long)getgid(), (long)getegid());
    fflush(stdout);
    lib = dlopen(libpath, RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        printf("error dlopen: %s\n", dlerror());
        return 2;
    }
    *(void **)&create = sym(lib, "wr_context_create");
    *(void **)&destroy = sym(lib, "wr_context_destroy");
    *(void **)&error = sym(lib, "wr_context_error");
    *(void **)&describe = sym(lib, "wr_context_describe");
    *(void **)&reduce = sym(lib, "wr_reduce");
    for (b = WR_BACKEND_AUTO; b <= WR_BACKEND_CUDA; b++) {
        wr_context *ctx = NULL;
        wr_status st;
        int sum = 0;
        if (strcmp(which, "all") != 0 && strcmp(which, names[b]) != 0) continue;
        st = create(&ctx, (wr_backend)b);
        if (st != WR_SUCCESS) {
            printf("%s %d 0 %s\n", names[b], (int)st, error(NULL));
            continue;
        }
        st = reduce(ctx, x, &sum, 4, WR_INT32, WR_SUM);
        printf("%s %d %d %s\n", names[b], (int)st, sum, describe(ctx));
        destroy(ctx);
    }
    return 0;
}

/* ---- the test's side ------------------------------------------------------ */

/* What one run of the copy said. */
struct run {
    int ran;                 /* it printed its first line */
    unsigned long secure;    /* getauxval(AT_SECURE) */
    long uid, euid, gid, egid;
    int st[3], sum[3];       /* per backend (auto, cpu, cuda): status and sum */
    char text[3][1024];      /* describe, or the error */
    int marker;              /* the hostile constructor's marker exists afterwards */
    char how[256];           /* how it ended, when not normally */
};

/* Run prog --child lib which (the contexts to make: auto, cpu, cuda or all)
 * as user pw (NULL: as we are) with env; fill r. */
static void run_copy(const char *prog, const char *lib, const char *which, const struct passwd *pw,
                     char *const env[], const char *marker, struct run *r)
{
    int fd[2], status, i;
    char line[2048];
    FILE *f;
    pid_t pid;

    memset(r, 0, sizeof *r);
    for (i = 0; i < 3; i++) r->st[i] = -1;
    unlink(marker);
    fflush(stdout);
    if (pipe(fd) != 0) bail("pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) bail("fork: %s", strerror(errno));
    if (pid == 0) {
        char *argv[] = { (char *)prog, (char *)"--child", (char *)lib, (char *)which, NULL };
        close(fd[0]);
        if (dup2(fd[1], 1) < 0) _exit(125);
        if (pw && (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)) _exit(124);
        alarm(60);
        execve(prog, argv, env);
        printf("exec %s\n", strerror(errno));
        _exit(126);
    }
    close(fd[1]);
    f = fdopen(fd[0], "r");
    if (f == NULL) bail("fdopen: %s", strerror(errno));
    while (fgets(line, sizeof line, f) != NULL) {
        static const char *const names[] = { "auto ", "cpu ", "cuda " };
        int n = 0;
        line[strcspn(line, "\n")] = '\0';
        diag("    %s: %s", pw ? "privileged copy" : "control (root)", line);
        if (sscanf(line, "secure %lu uid %ld euid %ld gid %ld egid %ld", &r->secure, &r->uid, &r->euid, &r->gid,
                   &r->egid) == 5)
            r->ran = 1;
        for (i = 0; i < 3; i++)
            if (strncmp(line, names[i], strlen(names[i])) == 0 &&
                sscanf(line + strlen(names[i]), "%d %d %n", &r->st[i], &r->sum[i], &n) == 2)
                snprintf(r->text[i], sizeof r->text[i], "%s", line + strlen(names[i]) + n);
        if (strncmp(line, "exec ", 5) == 0 || strncmp(line, "error ", 6) == 0)
            snprintf(r->how, sizeof r->how, "%.200s", line);
    }
    fclose(f);
    if (waitpid(pid, &status, 0) != pid) bail("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(status))
        snprintf(r->how, sizeof r->how, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0 && r->how[0] == '\0')
        snprintf(r->how, sizeof r->how, "exit status %d", WEXITSTATUS(status));
    r->marker = access(marker, F_OK) == 0;
}

/* A file system where nobody may run a setuid copy: "" if dir is one, else why not. */
static const char *unusable(const char *dir)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0) return strerror(errno);
    if (v.f_flag & ST_NOSUID) return "mounted nosuid";
    if (v.f_flag & ST_NOEXEC) return "mounted noexec";
    return "";
}

static void copy_or_bail(const char *from, const char *to, mode_t mode)
{
    if (tf_copy(from, to, mode) != 0) bail("copying %s to %s: %s", from, to, strerror(errno));
    if (chown(to, 0, 0) != 0 || chmod(to, mode) != 0) bail("chown/chmod %s: %s", to, strerror(errno));
}

/* The file in the build tree's .libs of a libtool library (or the override). */
static const char *built(const char *override_var, const char *rel, char *buf, size_t len)
{
    const char *o = getenv(override_var);   /* to run the same test against another build */
    if (o && o[0]) return o;
    snprintf(buf, len, "%s/%s", WR_TEST_BUILDDIR, rel);
    return buf;
}

/* Checks on the privileged runs of one kind (setuid or setgid): r[b] made
 * only a context of backend b (AUTO, CPU, CUDA). */
static void check_privileged(const char *what, const struct run r[3], const struct passwd *pw)
{
    static const char *const names[] = { "an AUTO", "a CPU", "a CUDA" };
    int b, priv = 1;
    for (b = 0; b < 3; b++)
        priv = priv && r[b].ran && r[b].secure == 1 && r[b].uid == (long)pw->pw_uid &&
               (strcmp(what, "setuid") == 0 ? r[b].euid == 0 : r[b].egid == 0);
    ok(priv, "%s copy run by %s: privileged (AT_SECURE %lu, uid %ld euid %ld gid %ld egid %ld)%s%s", what,
       pw->pw_name, r[0].secure, r[0].uid, r[0].euid, r[0].gid, r[0].egid, r[0].how[0] ? ": " : "", r[0].how);
    for (b = 0; b < 3; b++) {
        int used = strstr(r[b].text[b], FAKE_DESCRIPTION) != NULL || strstr(r[b].text[b], "hostile") != NULL;
        int works = b == 2 || (r[b].st[b] == WR_SUCCESS && r[b].sum[b] == 10);
        ok(r[b].ran && !r[b].marker && !used && works,
           "%s: %s context ignores WARPRED_PLUGIN_DIR: the hostile plugin's constructor did not run%s "
           "(status %d, sum %d: \"%s\")",
           what, names[b], r[b].marker ? " (IT DID: the marker file exists)" : "", r[b].st[b], r[b].sum[b],
           r[b].text[b]);
    }
}

int main(int argc, char **argv)
{
    static const char *const places[] = { "/tmp", "/var/tmp", WR_TEST_BUILDDIR "/tests" };
    char self[4096], libbuf[4096], plugbuf[4096], why[2048] = "";
    const char *lib, *plugin;
    struct passwd *pw;
    struct run control, suid[3], sgid[3], senv;
    size_t i;
    ssize_t n;
    int found = 0, b;
    static const char *const which[3] = { "auto", "cpu", "cuda" };

    if (argc == 4 && strcmp(argv[1], "--child") == 0) return child_main(argv[2], argv[3]);

    if (geteuid() != 0) skip_all("not root: cannot make a setuid-root program or run one as another user");
    pw = getpwnam("nobody");
    if (pw == NULL || pw->pw_uid == 0) skip_all("no unprivileged user nobody to run the setuid program as");
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) skip_all("cannot find this program (/proc/self/exe): %s", strerror(errno));
    self[n] = '\0';
    lib = built("WR_TEST_LIBWARPRED", "lib/.libs/libwarpred.so", libbuf, sizeof libbuf);
    plugin = built("WR_TEST_HOSTILE_PLUGIN", "tests/fake_hostile/.libs/warpred_cuda.so", plugbuf, sizeof plugbuf);

    for (i = 0; i < sizeof places / sizeof places[0] && !found; i++) {
        const char *bad = unusable(places[i]);
        char *dir, *prog, *hostile, *markers, *mark, *libcopy, *envdir, *envmark;
        char *env[5], *env_bogus[8];
        size_t k = strlen(why);
        if (bad[0]) {
            snprintf(why + k, sizeof why - k, "%s%s: %s", k ? "; " : "", places[i], bad);
            continue;
        }
        dir = tf_tmpdir(places[i], "warpred-setuid");
        if (chmod(dir, 0755) != 0) bail("chmod %s: %s", dir, strerror(errno));
        prog = tf_path(dir, "setuid-copy");
        libcopy = tf_path(dir, "libwarpred.so");
        copy_or_bail(self, prog, 04755);
        copy_or_bail(lib, libcopy, 0644);
        /* in the build tree: the loader refuses a plugin below /tmp or /var/tmp */
        hostile = tf_tmpdir(WR_TEST_BUILDDIR "/tests", "setuid-hostile");
        if (chmod(hostile, 0755) != 0) bail("chmod %s: %s", hostile, strerror(errno));
        copy_or_bail(plugin, tf_path(hostile, "warpred_cuda.so"), 0644);
        markers = tf_mkdir(dir, "markers", 01777);      /* any constructor can write here */
        mark = tf_path(markers, "constructor-ran");

        envdir = tf_printf("WARPRED_PLUGIN_DIR=%s", hostile);
        envmark = tf_printf("WR_HOSTILE_MARKER=%s", mark);
        env[0] = envdir;
        env[1] = envmark;
        env[2] = (char *)"PATH=/usr/bin:/bin";
        env[3] = (char *)"ASAN_OPTIONS=detect_leaks=0";
        env[4] = NULL;
        memcpy(env_bogus, env, 4 * sizeof env[0]);
        env_bogus[4] = (char *)"WARPRED_BACKEND=bogus";
        env_bogus[5] = (char *)"WARPRED_FLOAT_MODE=bogus";
        env_bogus[6] = NULL;

        diag("setuid copy in %s", dir);
        run_copy(prog, libcopy, "cpu", pw, env, mark, &suid[1]);
        if (!suid[1].ran) {
            snprintf(why + k, sizeof why - k, "%s%s: nobody cannot run the copy: %s", k ? "; " : "", places[i],
                     suid[1].how[0] ? suid[1].how : "it printed nothing");
            tf_rm_rf(dir);
            continue;
        }
        found = 1;
        for (b = 0; b < 3; b++)
            if (b != 1) run_copy(prog, libcopy, which[b], pw, env, mark, &suid[b]);
        run_copy(prog, libcopy, "all", pw, env_bogus, mark, &senv);
        if (chmod(prog, 02755) != 0) bail("chmod %s: %s", prog, strerror(errno));
        for (b = 0; b < 3; b++) run_copy(prog, libcopy, which[b], pw, env, mark, &sgid[b]);
        if (chmod(prog, 0755) != 0) bail("chmod %s: %s", prog, strerror(errno));
        run_copy(prog, libcopy, "all", NULL, env, mark, &control);
    }
    if (!found) skip_all("no place where nobody can run a setuid copy: %s", why);

    plan(1 + 2 * 4 + 1);
    ok(control.ran && control.secure == 0 && control.marker,
       "control: root, unprivileged (AT_SECURE %lu), loads the hostile plugin from WARPRED_PLUGIN_DIR and its "
       "constructor runs (marker %s; CUDA context: status %d, \"%s\")",
       control.secure, control.marker ? "made" : "not made", control.st[2], control.text[2]);
    check_privileged("setuid", suid, pw);
    check_privileged("setgid", sgid, pw);
    ok(senv.ran && senv.secure == 1 && senv.st[0] == WR_SUCCESS && senv.sum[0] == 10 && senv.st[1] == WR_SUCCESS &&
       senv.sum[1] == 10,
       "setuid, WARPRED_BACKEND=bogus and WARPRED_FLOAT_MODE=bogus: ignored, AUTO and CPU contexts work "
       "(status %d, %d: \"%s\")", senv.st[0], senv.st[1], senv.text[0]);
    return 0;
}

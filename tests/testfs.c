/* testfs.c -- see testfs.h. */
#define _XOPEN_SOURCE 700        /* nftw */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "testfs.h"

#define TF_MAX_DIRS 64
static char *tf_dirs[TF_MAX_DIRS];
static int tf_ndirs;
static pid_t tf_owner;

/* Every string handed out, freed at exit (so that leak checkers stay quiet). */
struct tf_str {
    struct tf_str *next;
    char s[];
};
static struct tf_str *tf_strs;
static int tf_registered;

static void tf_cleanup(void);
static void tf_register(void)
{
    if (tf_registered) return;
    tf_registered = 1;
    tf_owner = getpid();
    atexit(tf_cleanup);
}

static char *tf_alloc(size_t n)
{
    struct tf_str *p = (struct tf_str *)malloc(sizeof *p + n);
    if (p == NULL) bail("out of memory");
    tf_register();
    p->next = tf_strs;
    tf_strs = p;
    return p->s;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

void tf_rm_rf(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void tf_cleanup(void)
{
    int i;
    if (getpid() != tf_owner) return;     /* a forked child leaves them alone */
    for (i = 0; i < tf_ndirs; i++) tf_rm_rf(tf_dirs[i]);
    while (tf_strs != NULL) {
        struct tf_str *next = tf_strs->next;
        free(tf_strs);
        tf_strs = next;
    }
}

char *tf_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = tf_alloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *tf_printf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) bail("tf_printf: bad format");
    p = tf_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

char *tf_tmpdir(const char *parent, const char *prefix)
{
    char *p = tf_printf("%s/%s.XXXXXX", parent, prefix);
    if (mkdtemp(p) == NULL) bail("mkdtemp %s: %s", p, strerror(errno));
    if (chmod(p, 0700) != 0) bail("chmod %s: %s", p, strerror(errno));
    tf_register();
    if (tf_ndirs == TF_MAX_DIRS) bail("tf_tmpdir: too many directories");
    tf_dirs[tf_ndirs++] = p;
    return p;
}

char *tf_mkdir(const char *dir, const char *name, mode_t mode)
{
    char *p = tf_path(dir, name);
    if (mkdir(p, 0700) != 0 || chmod(p, mode) != 0) bail("mkdir %s: %s", p, strerror(errno));
    return p;
}

int tf_copy(const char *from, const char *to, mode_t mode)
{
    char buf[65536];
    ssize_t n;
    int in = open(from, O_RDONLY), out, e;
    if (in < 0) return -1;
    out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (out < 0) {
        e = errno;
        close(in);
        errno = e;
        return -1;
    }
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    e = errno;
    close(in);
    if (close(out) != 0 && n == 0) n = -1;
    if (n == 0 && chmod(to, mode) != 0) n = -1;
    errno = e;
    return n == 0 ? 0 : -1;
}

void tf_write(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "wx");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0 || chmod(path, mode) != 0)
        bail("writing %s: %s", path, strerror(errno));
}

char *tf_stage_plugin(const char *builddir, const char *variant)
{
    char *from = tf_printf("%s/tests/%s/.libs/warpred_cuda.so", builddir, variant);
    char *dir = tf_tmpdir(tf_path(builddir, "tests"), variant);
    if (tf_copy(from, tf_path(dir, "warpred_cuda.so"), 0644) != 0) bail("copying %s: %s", from, strerror(errno));
    return dir;
}

/*
 * testfs.h -- files and directories the tests make for the plugin loader:
 * private temporary directories in the build tree (removed when the process
 * that made them exits) and copies of the fake plugins with the owner and
 * modes the loader trusts, whatever the umask the tree was built with (with
 * umask 002 the build tree's own .libs folders are group-writable, which the
 * loader refuses).  No libwarpred here: tests that dlopen() the library use
 * it too.
 */
#ifndef WR_TESTFS_H
#define WR_TESTFS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A new directory parent/prefix.XXXXXX, mode 0700, removed with everything
 * in it when this process exits (not a child forked from it).  Bails out on
 * failure.  The string is freed at exit. */
char *tf_tmpdir(const char *parent, const char *prefix);
/* dir/name (allocated, freed at exit). */
char *tf_path(const char *dir, const char *name);
/* A formatted string (allocated, freed at exit). */
char *tf_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Create the directory dir/name with exactly this mode; returns its path
 * (freed at exit).  Bails out on failure. */
char *tf_mkdir(const char *dir, const char *name, mode_t mode);
/* Copy the file from to the new file to, with exactly this mode.  0 on
 * success, -1 with errno. */
int tf_copy(const char *from, const char *to, mode_t mode);
/* Write text into the new file path with exactly this mode (bails out). */
void tf_write(const char *path, const char *text, mode_t mode);
/* A new private directory holding a copy of the fake plugin built in
 * builddir/tests/<variant>/.libs, as warpred_cuda.so, mode 0644. */
char *tf_stage_plugin(const char *builddir, const char *variant);
/* Remove path and, for a directory, everything under it. */
void tf_rm_rf(const char *path);

#ifdef __cplusplus
}
#endif

#endif

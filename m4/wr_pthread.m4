# AX_PTHREAD_SIMPLE: find the flag that gives POSIX threads (for the loader's
# once-only initialisation and the tests' threads).  Sets PTHREAD_CFLAGS/LIBS.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  PTHREAD_CFLAGS=-pthread
  PTHREAD_LIBS=-pthread
  save_CFLAGS=$CFLAGS; CFLAGS="$CFLAGS -pthread"
  AC_MSG_CHECKING([whether $CC accepts -pthread])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>]],
                    [[pthread_once_t o = PTHREAD_ONCE_INIT; (void)o; return pthread_self() == 0;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); PTHREAD_CFLAGS=; PTHREAD_LIBS=-lpthread])
  CFLAGS=$save_CFLAGS
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])

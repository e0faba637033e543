# WR_CHECK_OPENBLAS: OpenBLAS, for warpred-bench's reference rows of the
# dot products and norms (cblas_ddot, _dnrm2, _dasum, _idamax and their
# single forms).  --with-openblas (default: use it when found); found means
# cblas.h and openblas_set_num_threads link, with the flags pkg-config
# gives for openblas (Debian's libopenblas-dev) or none.  Defines
# HAVE_OPENBLAS and substitutes OPENBLAS_CFLAGS and OPENBLAS_LIBS; absent,
# the benchmark has no reference rows.
AC_DEFUN([WR_CHECK_OPENBLAS], [
  AC_ARG_WITH([openblas],
    [AS_HELP_STRING([--with-openblas], [time OpenBLAS beside the dot products and norms in warpred-bench (default: when found)])],
    [], [with_openblas=check])
  wr_have_openblas=no
  OPENBLAS_CFLAGS=
  OPENBLAS_LIBS=
  AS_IF([test "x$with_openblas" != xno], [
    AC_CHECK_PROG([WR_PKG_CONFIG], [pkg-config], [pkg-config])
    AS_IF([test -n "$WR_PKG_CONFIG" && $WR_PKG_CONFIG --exists openblas 2>/dev/null], [
      OPENBLAS_CFLAGS=`$WR_PKG_CONFIG --cflags openblas`
      OPENBLAS_LIBS=`$WR_PKG_CONFIG --libs openblas`], [OPENBLAS_LIBS=-lopenblas])
    save_CFLAGS=$CFLAGS; save_LIBS=$LIBS
    CFLAGS="$CFLAGS $OPENBLAS_CFLAGS"; LIBS="$OPENBLAS_LIBS $LIBS"
    AC_MSG_CHECKING([for OpenBLAS (cblas.h, openblas_set_num_threads)])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cblas.h>]],
        [[double x = 1; openblas_set_num_threads(1); return (int)cblas_ddot(1, &x, 1, &x, 1) - 1;]])],
      [wr_have_openblas=yes], [])
    AC_MSG_RESULT([$wr_have_openblas])
    CFLAGS=$save_CFLAGS; LIBS=$save_LIBS
    AS_IF([test "x$wr_have_openblas" = xno], [
      OPENBLAS_CFLAGS=; OPENBLAS_LIBS=
      AS_IF([test "x$with_openblas" = xyes], [AC_MSG_ERROR([--with-openblas: OpenBLAS not found])])])
  ])
  AS_IF([test "x$wr_have_openblas" = xyes],
    [AC_DEFINE([HAVE_OPENBLAS], [1], [Define to 1 if OpenBLAS is available (benchmark references).])])
  AC_SUBST([OPENBLAS_CFLAGS])
  AC_SUBST([OPENBLAS_LIBS])
])

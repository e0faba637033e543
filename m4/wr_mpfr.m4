# WR_CHECK_MPFR: MPFR (with GMP) for the exact reference of the tests.
# Optional: without it the tests that need it skip their reference checks.
# Defines HAVE_MPFR and substitutes MPFR_LIBS.
AC_DEFUN([WR_CHECK_MPFR], [
  wr_have_mpfr=no
  MPFR_LIBS=
  AC_CHECK_HEADER([mpfr.h], [
    AC_CHECK_LIB([mpfr], [mpfr_get_flt], [wr_have_mpfr=yes; MPFR_LIBS="-lmpfr -lgmp"], [], [-lgmp])])
  AS_IF([test "x$wr_have_mpfr" = xyes],
    [AC_DEFINE([HAVE_MPFR], [1], [Define to 1 if MPFR is available (test references).])])
  AC_SUBST([MPFR_LIBS])
])

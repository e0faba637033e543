# WR_CHECK_MPI: --with-mpi[=MPICC|DIR] (default: guess).  Builds libwarpred_mpi
# only when an MPI C compiler wrapper is found and the flags it adds, given to
# $CC (which builds the library), link an MPI program; an explicit --with-mpi
# that cannot be satisfied is an error.  MPI_CFLAGS and MPI_LIBS may also be
# given directly (then no wrapper is asked).
AC_DEFUN([WR_CHECK_MPI], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi@<:@=MPICC|DIR@:>@],
      [build libwarpred_mpi with this MPI C compiler wrapper, or DIR/bin/mpicc
       (default: guess mpicc from PATH)])],
    [], [with_mpi=guess])
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (asked for MPI's flags)])
  AC_ARG_VAR([MPI_CFLAGS], [C preprocessor flags for MPI (default: from the wrapper)])
  AC_ARG_VAR([MPI_LIBS], [linker flags for MPI (default: from the wrapper)])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by the MPI tests])
  wr_have_mpi=no
  AS_IF([test "x$with_mpi" != xno], [
    AS_CASE(["x$with_mpi"],
      [xyes|xguess], [AC_PATH_PROGS([MPICC], [mpicc])],
      [AS_IF([test -d "$with_mpi"],
        [AC_PATH_PROGS([MPICC], [mpicc], [], [$with_mpi/bin])],
        [MPICC=$with_mpi])])
    AS_IF([test -n "$MPICC$MPI_CFLAGS$MPI_LIBS"], [
      AS_IF([test -n "$MPICC" && test -z "$MPI_CFLAGS$MPI_LIBS"], [
        # Open MPI answers --showme:compile / --showme:link with the flags;
        # MPICH prints whole command lines for -compile-info / -link-info, of
        # which only the flags are wanted.
        MPI_CFLAGS=`$MPICC --showme:compile 2>/dev/null`
        MPI_LIBS=`$MPICC --showme:link 2>/dev/null`
        AS_IF([test -z "$MPI_LIBS"], [
          MPI_CFLAGS=
          for wr_flag in `$MPICC -compile-info 2>/dev/null`; do
            AS_CASE([$wr_flag], [-I*|-D*|-pthread], [MPI_CFLAGS="$MPI_CFLAGS $wr_flag"])
          done
          MPI_LIBS=
          for wr_flag in `$MPICC -link-info 2>/dev/null`; do
            AS_CASE([$wr_flag], [-L*|-l*|-Wl,*|-pthread], [MPI_LIBS="$MPI_LIBS $wr_flag"])
          done])
      ])
      AC_MSG_CHECKING([whether $CC links an MPI program with MPI_CFLAGS and MPI_LIBS])
      wr_save_CFLAGS=$CFLAGS
      wr_save_LIBS=$LIBS
      CFLAGS="$CFLAGS $MPI_CFLAGS"
      LIBS="$MPI_LIBS $LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
          [[int flag = 0; MPI_Initialized(&flag); return flag;]])],
        [wr_have_mpi=yes])
      CFLAGS=$wr_save_CFLAGS
      LIBS=$wr_save_LIBS
      AC_MSG_RESULT([$wr_have_mpi])
    ])
    AS_IF([test "$wr_have_mpi" = yes],
      [AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun], [],
        [`dirname "${MPICC:-mpicc}"`$PATH_SEPARATOR$PATH])])
    AS_IF([test "$wr_have_mpi" = no],
      [AS_IF([test "x$with_mpi" = xguess],
        [AC_MSG_WARN([no working MPI compiler wrapper: libwarpred_mpi will not be built])],
        [AC_MSG_ERROR([--with-mpi was given but no working MPI was found (see config.log)])])])
  ])
  AC_SUBST([MPI_CFLAGS])
  AC_SUBST([MPI_LIBS])
  AM_CONDITIONAL([HAVE_MPI], [test "$wr_have_mpi" = yes])
])

# WR_CHECK_MPI: --with-mpi[=MPICC] (default: guess).  Builds libwarpred_mpi
# only when an MPI C compiler wrapper is found and links an MPI program; an
# explicit --with-mpi that cannot be satisfied is an error.
AC_DEFUN([WR_CHECK_MPI], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi@<:@=MPICC@:>@],
      [build libwarpred_mpi with this MPI compiler wrapper (default: guess mpicc)])],
    [], [with_mpi=guess])
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by the MPI tests])
  wr_have_mpi=no
  AS_IF([test "x$with_mpi" != xno], [
    AS_CASE(["x$with_mpi"],
      [xyes|xguess], [AC_PATH_PROGS([MPICC], [mpicc])],
      [MPICC=$with_mpi])
    AS_IF([test -n "$MPICC"], [
      AC_MSG_CHECKING([whether $MPICC links an MPI program])
      cat > conftest_mpi.c <<_WREOF
#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
_WREOF
      AS_IF([$MPICC conftest_mpi.c -o conftest_mpi$EXEEXT >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes]); wr_have_mpi=yes], [AC_MSG_RESULT([no])])
      rm -f conftest_mpi.c conftest_mpi$EXEEXT
    ])
    AS_IF([test "$wr_have_mpi" = yes], [
      MPI_CFLAGS=`$MPICC --showme:compile 2>/dev/null`
      MPI_LIBS=`$MPICC --showme:link 2>/dev/null`
      AS_IF([test -z "$MPI_LIBS"], [
        # MPICH-style wrappers: -compile-info / -link-info print the whole command.
        MPI_CFLAGS=`$MPICC -compile-info 2>/dev/null | cut -d' ' -f2-`
        MPI_LIBS=`$MPICC -link-info 2>/dev/null | cut -d' ' -f2-`])
      AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun], [], [`dirname "$MPICC"`$PATH_SEPARATOR$PATH])
    ])
    AS_IF([test "$wr_have_mpi" = no],
      [AS_IF([test "x$with_mpi" = xguess],
        [AC_MSG_WARN([no working MPI compiler wrapper: libwarpred_mpi will not be built])],
        [AC_MSG_ERROR([--with-mpi was given but no working MPI was found])])])
  ])
  AC_SUBST([MPI_CFLAGS])
  AC_SUBST([MPI_LIBS])
  AM_CONDITIONAL([HAVE_MPI], [test "$wr_have_mpi" = yes])
])

# WR_CHECK_FORTRAN: the Fortran modules (fortran/local.am).  Optional: built
# when a Fortran compiler is found that takes the ISO_C_BINDING and
# assumed-type (type(*), Fortran 2018 / TS 29113) interfaces of
# fortran/warpred.f90; --disable-fortran leaves them out, --enable-fortran
# makes a missing compiler an error.  With libwarpred_mpi, the warpred_mpi
# module too when the compiler reaches MPI's mpi_f08 module (flags from the
# MPI Fortran wrapper, MPIFC, or MPI_FCFLAGS / MPI_FCLIBS).
#
# The .mod files are compiler-specific, so they go in a directory named
# after the compiler and its module format (as Debian does):
# $(libdir)/fortran/gfortran-mod-<N>/warpred for gfortran's format <N>, else
# $(libdir)/fortran/<compiler>/warpred; --with-fmoddir=DIR overrides.
AC_DEFUN([WR_CHECK_FORTRAN], [
  AC_ARG_ENABLE([fortran],
    [AS_HELP_STRING([--disable-fortran],
      [do not build the Fortran modules (default: build them when a Fortran
       compiler works)])],
    [], [enable_fortran=guess])
  AC_ARG_WITH([fmoddir],
    [AS_HELP_STRING([--with-fmoddir=DIR],
      [install the Fortran .mod files in DIR
       (default: LIBDIR/fortran/<compiler>-mod-<format>/warpred)])],
    [], [with_fmoddir=])
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper (asked for MPI's Fortran flags)])
  AC_ARG_VAR([MPI_FCFLAGS], [Fortran flags for MPI's mpi_f08 module (default: from MPIFC)])
  AC_ARG_VAR([MPI_FCLIBS], [linker flags for MPI's Fortran bindings (default: from MPIFC)])

  AC_REQUIRE([AC_PROG_FC])
  wr_have_fortran=no
  wr_have_mpi_fortran=no
  AS_IF([test "x$enable_fortran" != xno && test -n "$FC"], [
    AC_LANG_PUSH([Fortran])
    AC_FC_SRCEXT([f90], [
      AC_MSG_CHECKING([whether $FC takes the interfaces of the warpred module])
      AC_COMPILE_IFELSE([[
      module conftest_mod
        use, intrinsic :: iso_c_binding
        implicit none
        interface
          function f(x, y, n, s) bind(C, name="f") result(st)
            import :: c_int, c_size_t
            type(*), intent(in) :: x(*)
            type(*), intent(inout) :: y
            integer(c_size_t), value :: n
            type(*), intent(inout), optional :: s
            integer(c_int) :: st
          end function
        end interface
      contains
        function g() result(s)
          character(len=:), allocatable :: s
          s = 'ok'
        end function
      end module]],
        [wr_have_fortran=yes])
      AC_MSG_RESULT([$wr_have_fortran])])
    AS_IF([test $wr_have_fortran = yes], [
      AC_FC_MODULE_OUTPUT_FLAG([], [wr_have_fortran=no])
      AC_FC_MODULE_FLAG([], [wr_have_fortran=no])])
    AS_IF([test $wr_have_fortran = yes && test -z "$with_fmoddir"], [
      AC_MSG_CHECKING([the Fortran module directory])
      wr_fc_id=`basename "$FC" | sed 's/ .*//'`
      AS_IF([test "x$ac_cv_fc_compiler_gnu" = xyes], [
        # gfortran's .mod files are gzipped; line 1 names their format.
        wr_fc_id=gfortran
        rm -rf conftest.dir && mkdir conftest.dir && cd conftest.dir
        printf '      module conftest_mod\n      end module\n' > conftest.f90
        AS_IF([$FC $FCFLAGS -c conftest.f90 >/dev/null 2>&1],
          [wr_fc_modver=`gzip -dc conftest_mod.mod 2>/dev/null | sed -n "1s/.*module version '\([[0-9]]*\)'.*/\1/p"`
           AS_IF([test -n "$wr_fc_modver"], [wr_fc_id=gfortran-mod-$wr_fc_modver])])
        cd .. && rm -rf conftest.dir])
      with_fmoddir="\${libdir}/fortran/$wr_fc_id/warpred"
      AC_MSG_RESULT([$with_fmoddir])])
    AS_IF([test $wr_have_fortran = yes && test "$wr_have_mpi" = yes], [
      AS_IF([test -z "$MPI_FCFLAGS$MPI_FCLIBS"], [
        AS_IF([test -z "$MPIFC"],
          [AC_PATH_PROGS([MPIFC], [mpifort mpif90], [],
            [`dirname "${MPICC:-mpicc}"`$PATH_SEPARATOR$PATH])])
        AS_IF([test -n "$MPIFC"], [
          MPI_FCFLAGS=`$MPIFC --showme:compile 2>/dev/null`
          MPI_FCLIBS=`$MPIFC --showme:link 2>/dev/null`
          AS_IF([test -z "$MPI_FCLIBS"], [
            MPI_FCFLAGS=
            for wr_flag in `$MPIFC -compile-info 2>/dev/null`; do
              AS_CASE([$wr_flag], [-I*|-D*|-pthread], [MPI_FCFLAGS="$MPI_FCFLAGS $wr_flag"])
            done
            MPI_FCLIBS=
            for wr_flag in `$MPIFC -link-info 2>/dev/null`; do
              AS_CASE([$wr_flag], [-L*|-l*|-Wl,*|-pthread], [MPI_FCLIBS="$MPI_FCLIBS $wr_flag"])
            done])])])
      AC_MSG_CHECKING([whether $FC links an mpi_f08 program with MPI_FCFLAGS and MPI_FCLIBS])
      wr_save_FCFLAGS=$FCFLAGS
      wr_save_LIBS=$LIBS
      FCFLAGS="$FCFLAGS $MPI_FCFLAGS"
      LIBS="$MPI_FCLIBS $LIBS"
      AC_LINK_IFELSE([[
      program conftest
        use mpi_f08
        implicit none
        type(MPI_Comm) :: comm
        logical :: flag
        comm = MPI_COMM_WORLD
        call MPI_Initialized(flag)
        if (comm%MPI_VAL < 0) stop 1
      end program]],
        [wr_have_mpi_fortran=yes])
      FCFLAGS=$wr_save_FCFLAGS
      LIBS=$wr_save_LIBS
      AC_MSG_RESULT([$wr_have_mpi_fortran])])
    AC_LANG_POP([Fortran])
    AS_IF([test $wr_have_fortran = no && test "x$enable_fortran" = xyes],
      [AC_MSG_ERROR([--enable-fortran was given but $FC cannot build the warpred module (see config.log)])])
  ], [
    AS_IF([test "x$enable_fortran" = xyes],
      [AC_MSG_ERROR([--enable-fortran was given but no Fortran compiler was found])])
  ])
  AS_IF([test $wr_have_fortran = no && test "x$enable_fortran" = xguess],
    [AC_MSG_WARN([no usable Fortran compiler: the Fortran modules will not be built])])

  # gfortran's warnings (-Wall, not -Wextra: its -Wcompare-reals flags the
  # exact comparisons the tests make on purpose).
  WARN_FCFLAGS=
  AS_IF([test "x$ac_cv_fc_compiler_gnu" = xyes], [WARN_FCFLAGS="-Wall"
    AS_IF([test "x$enable_werror" = xyes], [WARN_FCFLAGS="$WARN_FCFLAGS -Werror"])])
  AC_SUBST([WARN_FCFLAGS])
  AS_IF([test $wr_have_fortran = yes],
    [wr_fortran_summary="yes $FC (warpred_mpi module: $wr_have_mpi_fortran; .mod files in $with_fmoddir)"],
    [wr_fortran_summary=no])
  AC_SUBST([fmoddir], [$with_fmoddir])
  dnl warpred.pc's fflags: the -I of the module directory, when there is one
  AS_IF([test $wr_have_fortran = yes], [WR_PC_FFLAGS="-I\${fmoddir}"], [WR_PC_FFLAGS=])
  AC_SUBST([WR_PC_FFLAGS])
  AC_SUBST([MPI_FCFLAGS])
  AC_SUBST([MPI_FCLIBS])
  AM_CONDITIONAL([HAVE_FORTRAN], [test $wr_have_fortran = yes])
  AM_CONDITIONAL([HAVE_MPI_FORTRAN], [test $wr_have_mpi_fortran = yes])
])

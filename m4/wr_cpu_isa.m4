# WR_CHECK_CPU_ISA: the instruction-set variants of the cpu kernels
# (cpu/cpu_isa.h, cpu/local.am).  The baseline (the build's own target) is
# always built; on x86-64 also x86-64-v3 and x86-64-v4, on aarch64 SVE, each
# when the compiler takes its target pragma and compiles an intrinsic of it.
# cpu/cpu_isa.c picks one at run time.  --disable-cpu-dispatch builds the
# baseline only (a build for one machine, e.g. with CFLAGS=-march=native).
#
# Defines WR_CPU_ISA_V3 / _V4 / _SVE (config.h) and the Automake
# conditionals of the same names; WRCPU_KERNEL_CFLAGS: what the kernel
# objects of every variant add to the build's flags.
AC_DEFUN([WR_CHECK_CPU_ISA], [
  AC_REQUIRE([AC_CANONICAL_HOST])
  AC_ARG_ENABLE([cpu-dispatch],
    [AS_HELP_STRING([--disable-cpu-dispatch],
      [build the cpu kernels for the compiler's target only (default: also
       for x86-64-v3 and x86-64-v4, or aarch64 SVE, chosen at run time)])],
    [], [enable_cpu_dispatch=yes])

  # Results must not depend on the variant: never fuse a multiply and an add
  # (x86-64-v3 has FMA; GNU C would contract by default).
  WRCPU_KERNEL_CFLAGS=
  save_CFLAGS=$CFLAGS; CFLAGS="$CFLAGS -ffp-contract=off"
  AC_MSG_CHECKING([whether $CC accepts -ffp-contract=off])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[]], [[]])],
    [AC_MSG_RESULT([yes]); WRCPU_KERNEL_CFLAGS=-ffp-contract=off],
    [AC_MSG_RESULT([no])])
  CFLAGS=$save_CFLAGS
  AC_SUBST([WRCPU_KERNEL_CFLAGS])

  wr_cpu_isas=baseline
  wr_isa_candidates=
  AS_IF([test "x$enable_cpu_dispatch" != xno],
    [AS_CASE([$host_cpu],
      [x86_64|amd64], [wr_isa_candidates="v3 v4"],
      [aarch64|arm64], [wr_isa_candidates="sve"])])
  wr_have_isa_v3=no; wr_have_isa_v4=no; wr_have_isa_sve=no
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS -I$srcdir/cpu"
  for wr_isa in $wr_isa_candidates; do
    AS_CASE([$wr_isa],
      [v3], [wr_isa_inc='#include <immintrin.h>'
             wr_isa_fn='__m256 wr_probe(__m256 a, __m256 b) { return _mm256_fmadd_ps(a, b, a); }'],
      [v4], [wr_isa_inc='#include <immintrin.h>'
             wr_isa_fn='__m512 wr_probe(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }'],
      [sve], [wr_isa_inc='#include <arm_sve.h>'
              wr_isa_fn='svfloat32_t wr_probe(svfloat32_t a) { return svadd_f32_x(svptrue_b32(), a, a); }'])
    AC_MSG_CHECKING([whether $CC compiles the $wr_isa kernels])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
#define WRCPU_ISA $wr_isa
$wr_isa_inc
#include "cpu_isa.h"
WRCPU_TARGET_BEGIN
$wr_isa_fn
WRCPU_TARGET_END
]])],
      [AC_MSG_RESULT([yes]); eval wr_have_isa_$wr_isa=yes; wr_cpu_isas="$wr_cpu_isas $wr_isa"],
      [AC_MSG_RESULT([no])])
  done
  CPPFLAGS=$save_CPPFLAGS
  AS_IF([test $wr_have_isa_v3 = yes],
    [AC_DEFINE([WR_CPU_ISA_V3], [1], [Define to 1 to build the x86-64-v3 cpu kernels.])])
  AS_IF([test $wr_have_isa_v4 = yes],
    [AC_DEFINE([WR_CPU_ISA_V4], [1], [Define to 1 to build the x86-64-v4 cpu kernels.])])
  AS_IF([test $wr_have_isa_sve = yes],
    [AC_DEFINE([WR_CPU_ISA_SVE], [1], [Define to 1 to build the aarch64 SVE cpu kernels.])])
  AM_CONDITIONAL([WR_CPU_ISA_V3], [test $wr_have_isa_v3 = yes])
  AM_CONDITIONAL([WR_CPU_ISA_V4], [test $wr_have_isa_v4 = yes])
  AM_CONDITIONAL([WR_CPU_ISA_SVE], [test $wr_have_isa_sve = yes])
])

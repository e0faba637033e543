# WR_CHECK_OPENMP_OFFLOAD: --with-openmp-offload[=TARGETS] (default: guess).
#
# Finds out whether $CC offloads OpenMP target regions, and to which
# targets: for each candidate it compiles AND links a program with a target
# region.  GCC: -foffload=nvptx-none (with -misa=sm_80) and amdgcn-amdhsa;
# clang: --offload-arch=sm_80 (or gfx90a), which clang must not call
# unused.  TARGETS (comma-separated) limits the candidates: GCC's target
# triplets (nvptx-none, amdgcn-amdhsa) or clang's offload archs (sm_80,
# gfx90a).  With "guess" (the default) no working target is a warning and
# the omptarget plugin is not built; with an explicit --with-openmp-offload
# it is an error.
#
# Sets OMPT_CFLAGS (compile), OMPT_LDFLAGS (link a program or library with
# the C driver), OMPT_LTLDFLAGS (the same through libtool: -Xcompiler
# each), OMPT_TARGETS (the list, for the plugin's description), and
# AM_CONDITIONAL HAVE_OMPT; OMPT_EXAMPLE_CPPFLAGS tells examples/omp_offload.c
# whether the compiler has OpenMP 5.1 interop objects.
# WR_OMPT_CRT: GCC 12's crtoffloadtable.o (the table of a library's offload
# images) is built without -fPIC on Debian, so a shared object that
# offloads gets text relocations; when a PIC copy fixes that, the build
# makes one (omp/crtoffloadtable.c) and links with -B to it.
AC_DEFUN([WR_CHECK_OPENMP_OFFLOAD], [
  AC_ARG_WITH([openmp-offload],
    [AS_HELP_STRING([--with-openmp-offload@<:@=TARGETS@:>@],
      [build the omptarget plugin (OpenMP target offload); TARGETS: comma-separated offload
       targets (GCC: nvptx-none, amdgcn-amdhsa; clang: sm_80, gfx90a ...) (default: guess, every
       target the compiler offloads to)])],
    [], [with_openmp_offload=guess])
  wr_have_ompt=no
  OMPT_CFLAGS=
  OMPT_LDFLAGS=
  OMPT_LTLDFLAGS=
  OMPT_TARGETS=
  OMPT_EXAMPLE_CPPFLAGS=
  wr_ompt_interop=no
  wr_ompt_crt=no
  AS_IF([test "x$with_openmp_offload" != xno], [
    AS_IF([test -z "$OPENMP_CFLAGS"],
      [AS_IF([test "x$with_openmp_offload" != xguess],
         [AC_MSG_ERROR([--with-openmp-offload needs OpenMP (do not --disable-openmp)])])
       AC_MSG_WARN([no OpenMP: the omptarget plugin will not be built])],
    [
    AC_LANG_PUSH([C])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [[
#ifndef __clang__
#error not clang
#endif
]])], [wr_ompt_clang=yes], [wr_ompt_clang=no])
    AS_CASE(["x$with_openmp_offload"],
      [xyes|xguess], [AS_IF([test $wr_ompt_clang = yes],
                       [wr_ompt_cands="sm_80 gfx90a"], [wr_ompt_cands="nvptx-none amdgcn-amdhsa"])],
      [wr_ompt_cands=`echo "$with_openmp_offload" | tr ',' ' '`])
    wr_ompt_save_CFLAGS=$CFLAGS
    wr_ompt_ok=
    wr_ompt_gcc_targets=
    # -fno-stack-protector after CFLAGS, as omp/local.am builds the plugin:
    # GCC instruments offloaded code too, which ptxas rejects.
    for wr_t in $wr_ompt_cands; do
      AS_IF([test $wr_ompt_clang = yes],
        [wr_f="-fopenmp --offload-arch=$wr_t -Werror=unused-command-line-argument"],
        [AS_CASE([$wr_t],
          [nvptx-none], [wr_f="-fopenmp -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80 -fcf-protection=none"],
          [wr_f="-fopenmp -foffload=$wr_t -fcf-protection=none"])])
      AC_MSG_CHECKING([whether $CC offloads OpenMP target regions to $wr_t])
      CFLAGS="$wr_ompt_save_CFLAGS $wr_f -fno-stack-protector"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <omp.h>]], [[
        int a = 0;
#pragma omp target map(tofrom: a)
        a = omp_is_initial_device() + 1;
        return a == 0;]])],
        [AC_MSG_RESULT([yes])
         wr_ompt_ok="$wr_ompt_ok $wr_t"],
        [AC_MSG_RESULT([no])])
    done
    CFLAGS=$wr_ompt_save_CFLAGS
    AS_IF([test -n "$wr_ompt_ok"], [
      wr_have_ompt=yes
      OMPT_TARGETS=`echo $wr_ompt_ok | sed 's/ /, /g'`
      AS_IF([test $wr_ompt_clang = yes], [
        OMPT_CFLAGS="-fopenmp"
        for wr_t in $wr_ompt_ok; do OMPT_CFLAGS="$OMPT_CFLAGS --offload-arch=$wr_t"; done
      ], [
        wr_list=`echo $wr_ompt_ok | sed 's/ /,/g'`
        OMPT_CFLAGS="-fopenmp -foffload=$wr_list -fcf-protection=none"
        AS_CASE([" $wr_ompt_ok "], [*" nvptx-none "*],
          [OMPT_CFLAGS="$OMPT_CFLAGS -foffload-options=nvptx-none=-misa=sm_80"])
      ])
    ])
    AS_IF([test $wr_have_ompt = no],
      [AS_IF([test "x$with_openmp_offload" = xguess],
        [AC_MSG_WARN([$CC offloads OpenMP target regions to none of: $wr_ompt_cands; the omptarget plugin will not be built])],
        [AC_MSG_ERROR([--with-openmp-offload=$with_openmp_offload: $CC offloads OpenMP target regions to none of: $wr_ompt_cands])])])

    # A shared object that offloads, without text relocations?
    AS_IF([test $wr_have_ompt = yes && test $wr_ompt_clang = no], [
      AC_MSG_CHECKING([whether an offloading shared object links without text relocations])
      CFLAGS="$wr_ompt_save_CFLAGS $OMPT_CFLAGS -fPIC -fno-stack-protector"
      wr_ompt_save_LDFLAGS=$LDFLAGS
      LDFLAGS="$LDFLAGS -shared -Wl,-z,text"
      AC_LINK_IFELSE([AC_LANG_SOURCE([[
int f(int *p, int n)
{
    int s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: p[0:n])
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}]])], [AC_MSG_RESULT([yes])], [
        AC_MSG_RESULT([no])
        AC_MSG_CHECKING([whether a PIC crtoffloadtable.o fixes that])
        rm -rf conftest.crt
        mkdir conftest.crt
        cat > conftest.crt/t.c <<_WREOF
extern const void *const __offload_func_table[[]], *const __offload_funcs_end[[]];
extern const void *const __offload_var_table[[]], *const __offload_vars_end[[]];
__attribute__((__visibility__("hidden"))) const void *const __OFFLOAD_TABLE__[[]] = {
    &__offload_func_table, &__offload_funcs_end, &__offload_var_table, &__offload_vars_end
};
_WREOF
        AS_IF([$CC -fPIC -c conftest.crt/t.c -o conftest.crt/crtoffloadtable.o >&AS_MESSAGE_LOG_FD 2>&1],
          [LDFLAGS="$LDFLAGS -B`pwd`/conftest.crt/"
           AC_LINK_IFELSE([AC_LANG_SOURCE([[
int f(int *p, int n)
{
    int s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: p[0:n])
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}]])], [wr_ompt_crt=yes])])
        rm -rf conftest.crt
        AC_MSG_RESULT([$wr_ompt_crt])
        AS_IF([test $wr_ompt_crt = no],
          [AC_MSG_WARN([the omptarget plugin will have text relocations])])
      ])
      LDFLAGS=$wr_ompt_save_LDFLAGS
      CFLAGS=$wr_ompt_save_CFLAGS
    ])
    # OpenMP 5.1's interop objects, for examples/omp_offload.c
    AS_IF([test $wr_have_ompt = yes], [
      AC_MSG_CHECKING([whether $CC has OpenMP interop objects (omp_interop_t)])
      CFLAGS="$wr_ompt_save_CFLAGS $OMPT_CFLAGS"
      AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <omp.h>]], [[
        omp_interop_t obj = omp_interop_none;
        int rc = 0;
        void *s;
#pragma omp interop init(targetsync: obj)
        s = omp_get_interop_ptr(obj, omp_ipr_targetsync, &rc);
#pragma omp interop destroy(obj)
        return s == 0;]])], [wr_ompt_interop=yes], [wr_ompt_interop=no])
      CFLAGS=$wr_ompt_save_CFLAGS
      AC_MSG_RESULT([$wr_ompt_interop])
      AS_IF([test $wr_ompt_interop = no], [OMPT_EXAMPLE_CPPFLAGS=-DWR_EXAMPLE_NO_INTEROP])
    ])
    AC_LANG_POP([C])
    ])
  ])
  # Sanitizers instrument the offloaded code too, which the offload
  # compilers cannot link (no device libubsan): a sanitizer build runs the
  # plugin's target regions on the host fallback only.
  AS_IF([test $wr_have_ompt = yes && test "x$enable_sanitizers" != xno], [
    AS_IF([test "$wr_ompt_clang" = yes], [OMPT_CFLAGS="-fopenmp"], [OMPT_CFLAGS="-fopenmp -foffload=disable"])
    OMPT_TARGETS="host only (sanitizer build)"
    wr_ompt_crt=no
  ])
  OMPT_LDFLAGS=$OMPT_CFLAGS
  AS_IF([test $wr_ompt_crt = yes], [OMPT_LDFLAGS="$OMPT_LDFLAGS -B\$(abs_top_builddir)/omp/crt/"])
  for wr_f in $OMPT_LDFLAGS; do OMPT_LTLDFLAGS="$OMPT_LTLDFLAGS -Xcompiler $wr_f"; done
  AC_SUBST([OMPT_CFLAGS])
  AC_SUBST([OMPT_LDFLAGS])
  AC_SUBST([OMPT_LTLDFLAGS])
  AC_SUBST([OMPT_TARGETS])
  AC_SUBST([OMPT_EXAMPLE_CPPFLAGS])
  AM_CONDITIONAL([HAVE_OMPT], [test $wr_have_ompt = yes])
  AM_CONDITIONAL([WR_OMPT_CRT], [test $wr_ompt_crt = yes])
])

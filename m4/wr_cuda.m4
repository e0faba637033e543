# WR_CHECK_CUDA: --with-cuda[=DIR] (default: guess) and --with-nvcc-gencode.
# Idea from UCX's config/m4/cuda.m4: find nvcc, prove it compiles a kernel,
# then AM_CONDITIONAL([HAVE_CUDA]).  With "guess" a missing toolkit is a
# warning; with an explicit --with-cuda it is an error.
AC_DEFUN([WR_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
      [build the CUDA plugin; DIR is the toolkit root (default: guess from PATH and /usr/local/cuda)])],
    [], [with_cuda=guess])
  AC_ARG_WITH([nvcc-gencode],
    [AS_HELP_STRING([--with-nvcc-gencode=FLAGS],
      [nvcc code-generation flags (default: sm_90 machine code plus compute_90 PTX)])],
    [NVCC_GENCODE=$withval],
    [NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90"])
  AC_ARG_VAR([NVCC], [the CUDA compiler])
  AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc])
  wr_have_cuda=no
  AS_IF([test "x$with_cuda" != xno], [
    AS_CASE(["x$with_cuda"],
      [xyes|xguess], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$with_cuda/bin])])
    AS_IF([test -n "$NVCC"], [
      CUDA_HOME=`dirname "$NVCC"`; CUDA_HOME=`dirname "$CUDA_HOME"`
      AC_MSG_CHECKING([whether $NVCC compiles a kernel])
      cat > conftest.cu <<_WREOF
__global__ void k(int *p) { p[[threadIdx.x]] = __shfl_sync(0xffffffffu, 1, 0); }
int main(void) { k<<<1, 32>>>(0); return 0; }
_WREOF
      AS_IF([$NVCC $NVCC_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes]); wr_have_cuda=yes], [AC_MSG_RESULT([no])])
      rm -f conftest.cu conftest.$OBJEXT
      CUDA_LIBDIR=
      for d in "$CUDA_HOME/lib64" "$CUDA_HOME/lib" "$CUDA_HOME/targets/x86_64-linux/lib" "$CUDA_HOME/targets/sbsa-linux/lib"; do
        AS_IF([test -f "$d/libcudart_static.a"], [CUDA_LIBDIR=$d; break])
      done
      AS_IF([test "$wr_have_cuda" = yes && test -z "$CUDA_LIBDIR"],
        [AC_MSG_WARN([libcudart_static.a not found under $CUDA_HOME]); wr_have_cuda=no])
    ])
    AS_IF([test "$wr_have_cuda" = no],
      [AS_IF([test "x$with_cuda" = xguess],
        [AC_MSG_WARN([nvcc not found or not working: the CUDA plugin will not be built])],
        [AC_MSG_ERROR([--with-cuda was given but no working nvcc/CUDA toolkit was found])])])
  ])
  CUDA_CPPFLAGS="-I$CUDA_HOME/include"
  CUDA_LDFLAGS="-L$CUDA_LIBDIR"
  AC_SUBST([CUDA_HOME])
  AC_SUBST([CUDA_CPPFLAGS])
  AC_SUBST([CUDA_LDFLAGS])
  AC_SUBST([NVCC_GENCODE])
  AM_CONDITIONAL([HAVE_CUDA], [test "$wr_have_cuda" = yes])
])

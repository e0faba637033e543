# WR_CHECK_CUDA: --with-cuda[=DIR] (default: guess), --with-cuda-arch, --with-nvcc-gencode.
# Idea from UCX's config/m4/cuda.m4: find nvcc, prove it compiles a kernel,
# then AM_CONDITIONAL([HAVE_CUDA]).  With "guess" a missing toolkit is a
# warning; with an explicit --with-cuda it is an error.
AC_DEFUN([WR_CHECK_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
      [build the CUDA plugin; DIR is the toolkit root (default: guess from PATH and /usr/local/cuda)])],
    [], [with_cuda=guess])
  AC_ARG_WITH([cuda-arch],
    [AS_HELP_STRING([--with-cuda-arch=LIST|native],
      [GPU architectures to build machine code for, e.g. 80,90 (PTX of the
       newest is added for GPUs to come), or native: the GPUs of this machine
       (default: every architecture family nvcc supports from sm_75 up)])],
    [], [with_cuda_arch=default])
  AC_ARG_WITH([nvcc-gencode],
    [AS_HELP_STRING([--with-nvcc-gencode=FLAGS],
      [raw nvcc code-generation flags; override --with-cuda-arch])],
    [NVCC_GENCODE=$withval], [NVCC_GENCODE=])
  AC_ARG_VAR([NVCC], [the CUDA compiler])
  AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc])
  wr_have_cuda=no
  AS_IF([test "x$with_cuda" != xno], [
    AS_CASE(["x$with_cuda"],
      [xyes|xguess], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$with_cuda/bin])])
    AS_IF([test -n "$NVCC"], [
      CUDA_HOME=`dirname "$NVCC"`; CUDA_HOME=`dirname "$CUDA_HOME"`
      WR_CUDA_GENCODE
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
  AC_SUBST([NVCC_ARCH_DEFS])
  AM_CONDITIONAL([HAVE_CUDA], [test "$wr_have_cuda" = yes])
])

# WR_CUDA_GENCODE: NVCC_GENCODE from --with-nvcc-gencode or --with-cuda-arch.
# The default list is one architecture per family of binary compatibility
# (machine code for sm_XY runs on every sm_XZ with Z >= Y): 75, 80, 86, 89,
# 90, 100, 110 and 120, those nvcc supports, plus PTX of the newest, which the
# driver compiles for GPUs newer than any of them.  NVCC_ARCH_DEFS tells the
# plugin which machine code (WRCUDA_SASS_LIST) and which PTX
# (WRCUDA_PTX_LIST) it carries, so that it can say whether the device runs
# machine code or JIT-compiled PTX, and name what it has when it has
# nothing for the device.  sm_75 is the oldest the CUDA backend supports.
AC_DEFUN([WR_CUDA_GENCODE], [
  wr_sass=
  wr_ptx=
  AS_IF([test -n "$NVCC_GENCODE"], [
    AC_MSG_NOTICE([nvcc code generation: $NVCC_GENCODE (--with-nvcc-gencode)])
    dnl code=sm_XY and code=compute_XY of -gencode, and -arch=sm_XY (both)
    wr_tok=`echo "$NVCC_GENCODE" | tr ' ,' '\n\n'`
    wr_sass=`echo "$wr_tok" | sed -n -e 's/^code=sm_\([[0-9]]*\).*/\1/p' \
      -e 's/^-arch=sm_\([[0-9]]*\).*/\1/p' -e 's/^--gpu-architecture=sm_\([[0-9]]*\).*/\1/p' | tr '\n' ' '`
    wr_ptx=`echo "$wr_tok" | sed -n -e 's/^code=compute_\([[0-9]]*\).*/\1/p' \
      -e 's/^-arch=[[a-z]]*_\([[0-9]]*\).*/\1/p' -e 's/^--gpu-architecture=[[a-z]]*_\([[0-9]]*\).*/\1/p' | tr '\n' ' '`
    AS_CASE([" $wr_tok "],
      [*-arch=native*|*-architecture=native*], [wr_sass=native; wr_ptx=native],
      [*-arch=all*|*-architecture=all*|*code=\@<:@*], [wr_sass=unknown; wr_ptx=unknown])
  ], [
    wr_supported=`$NVCC --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([[0-9]]*\)$/\1/p' | tr '\n' ' '`
    AS_CASE(["$with_cuda_arch"],
      [default], [wr_want="75 80 86 89 90 100 110 120"],
      [native], [wr_want=native],
      [wr_want=`echo "$with_cuda_arch" | tr ',' ' ' | sed 's/sm_//g; s/compute_//g'`])
    AS_IF([test "$wr_want" = native], [
      NVCC_GENCODE="-arch=native"
      wr_sass=native
      wr_ptx=native
      AC_MSG_NOTICE([GPU code: for the GPUs of this machine (-arch=native)])
    ], [
      wr_max=
      for a in $wr_want; do
        AS_IF([test "$a" -lt 75 2>/dev/null],
          [AC_MSG_ERROR([--with-cuda-arch: sm_$a is older than sm_75, the oldest the CUDA backend supports])])
        AS_CASE([" $wr_supported "], [*" $a "*], [], [
          AS_IF([test "$with_cuda_arch" = default], [continue],
            [AC_MSG_ERROR([--with-cuda-arch: $NVCC cannot build sm_$a (it supports: $wr_supported)])])])
        NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$a,code=sm_$a"
        wr_sass="$wr_sass $a"
        AS_IF([test -z "$wr_max" || test "$a" -gt "$wr_max"], [wr_max=$a])
      done
      AS_IF([test -z "$wr_max"], [AC_MSG_ERROR([no GPU architecture to build for ($NVCC supports: $wr_supported)])])
      NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$wr_max,code=compute_$wr_max"
      wr_ptx=$wr_max
      AC_MSG_NOTICE([GPU code: machine code for$wr_sass, PTX for compute_$wr_ptx])
    ])
  ])
  dnl string literals, quoted for the shell of make's rules: nvcc splits an
  dnl unquoted -D value at its commas
  NVCC_ARCH_DEFS="-DWRCUDA_SASS_LIST='\"`echo $wr_sass | tr ' ' ','`\"' -DWRCUDA_PTX_LIST='\"`echo $wr_ptx | tr ' ' ','`\"'"
  dnl compile the architectures of one file side by side where nvcc can
  AS_IF([$NVCC --threads 0 --version >/dev/null 2>&1], [NVCC_GENCODE="$NVCC_GENCODE --threads 0"])
])

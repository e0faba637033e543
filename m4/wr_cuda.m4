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
    [AS_HELP_STRING([--with-cuda-arch=auto|all|native|LIST],
      [GPU architectures to build machine code for: auto (the default):
       the GPUs nvidia-smi sees on this machine, or all when it sees none;
       all: one architecture per GPU generation nvcc supports from sm_75
       up; native: nvcc -arch=native; LIST: e.g. 80,90.  PTX of the newest
       is added for GPUs to come (but with native)])],
    [], [with_cuda_arch=auto])
  AC_ARG_VAR([NVIDIA_SMI], [nvidia-smi, which --with-cuda-arch=auto asks for the GPUs of this machine])
  AC_ARG_WITH([nvcc-gencode],
    [AS_HELP_STRING([--with-nvcc-gencode=FLAGS],
      [raw nvcc code-generation flags; override --with-cuda-arch])],
    [NVCC_GENCODE=$withval], [NVCC_GENCODE=])
  AC_ARG_ENABLE([bench-cuda],
    [AS_HELP_STRING([--enable-bench-cuda],
      [build the CUDA side of warpred-bench (device timing, the CUB references),
       which its GPU measurements need (default: with the CUDA plugin, but when
       --with-cuda-arch=auto found no GPU to build for: nothing here could run
       it, and its CUB kernels for every GPU generation take longer to compile
       than the plugin)])],
    [], [enable_bench_cuda=auto])
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
  AC_SUBST([NVCC_HOST_GENCODE])
  AC_SUBST([NVCC_ARCH_DEFS])
  AM_CONDITIONAL([HAVE_CUDA], [test "$wr_have_cuda" = yes])
  dnl warpred-bench's CUDA side (bench/local.am)
  wr_bench_cuda=no
  AS_IF([test "$wr_have_cuda" = yes], [
    AS_CASE(["x$enable_bench_cuda"],
      [xyes], [wr_bench_cuda=yes],
      [xno], [wr_bench_cuda="no (--disable-bench-cuda)"],
      [AS_IF([test "x$wr_cuda_nogpu" = xyes],
        [wr_bench_cuda="no: no GPU here to run it on (--enable-bench-cuda builds it)"],
        [wr_bench_cuda=yes])])],
    [AS_IF([test "x$enable_bench_cuda" = xyes], [AC_MSG_ERROR([--enable-bench-cuda needs the CUDA plugin (nvcc)])])])
  AM_CONDITIONAL([WR_BENCH_CUDA], [test "$wr_bench_cuda" = yes])
])

# WR_CUDA_GENCODE: NVCC_GENCODE from --with-nvcc-gencode or --with-cuda-arch.
#
# all: one architecture per generation, the oldest nvcc supports (from sm_75,
# the oldest the CUDA backend supports) of each major compute capability --
# with nvcc 13: 75, 80, 90, 100, 110 and 120 -- because machine code for
# sm_XY runs on every sm_XZ with Z >= Y (sm_80 code on an sm_86 or sm_89
# GPU, sm_100 code on sm_103, sm_120 code on sm_121), plus PTX of the newest,
# which the driver compiles for GPUs newer than any of them.
# auto (the default): the compute capabilities nvidia-smi reports for this
# machine's GPUs (machine code for each, PTX of the newest), or all when it
# reports none it can build for (no GPU, no driver, a distribution's build
# machine).  wr_cuda_code says in words which code, and why; wr_cuda_hint,
# when the build carries every generation, the flag that makes it quicker.
#
# NVCC_ARCH_DEFS tells the plugin which machine code (WRCUDA_SASS_LIST) and
# which PTX (WRCUDA_PTX_LIST) it carries, so that it can say whether the
# device runs machine code or JIT-compiled PTX, and name what it has when it
# has nothing for the device.
AC_DEFUN([WR_CUDA_GENCODE], [
  NVCC_HOST_GENCODE=
  wr_cuda_nogpu=no
  wr_sass=
  wr_ptx=
  wr_cuda_hint=
  AS_IF([test -n "$NVCC_GENCODE"], [
    dnl code=sm_XY and code=compute_XY of -gencode, and -arch=sm_XY (both)
    wr_tok=`echo "$NVCC_GENCODE" | tr ' ,' '\n\n'`
    wr_sass=`echo "$wr_tok" | sed -n -e 's/^code=sm_\([[0-9]]*\).*/\1/p' \
      -e 's/^-arch=sm_\([[0-9]]*\).*/\1/p' -e 's/^--gpu-architecture=sm_\([[0-9]]*\).*/\1/p' | tr '\n' ' '`
    wr_ptx=`echo "$wr_tok" | sed -n -e 's/^code=compute_\([[0-9]]*\).*/\1/p' \
      -e 's/^-arch=[[a-z]]*_\([[0-9]]*\).*/\1/p' -e 's/^--gpu-architecture=[[a-z]]*_\([[0-9]]*\).*/\1/p' | tr '\n' ' '`
    AS_CASE([" $wr_tok "],
      [*-arch=native*|*-architecture=native*], [wr_sass=native; wr_ptx=native],
      [*-arch=all*|*-architecture=all*|*code=\@<:@*], [wr_sass=unknown; wr_ptx=unknown])
    wr_cuda_code="$NVCC_GENCODE (--with-nvcc-gencode)"
  ], [
    wr_supported=`$NVCC --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([[0-9]]*\)$/\1/p' | sort -n | tr '\n' ' '`
    dnl all: the oldest architecture of each major compute capability, from 75
    wr_all=
    wr_major=
    for a in $wr_supported; do
      AS_IF([test "$a" -ge 75], [
        AS_IF([test "x`expr $a / 10`" != "x$wr_major"], [wr_all="$wr_all $a"; wr_major=`expr $a / 10`])])
    done
    wr_all=`echo $wr_all`
    AS_IF([test -z "$wr_all"], [AC_MSG_ERROR([$NVCC builds for no GPU architecture from sm_75 up (nvcc --list-gpu-code: $wr_supported)])])
    AS_CASE(["$with_cuda_arch"],
      [auto|yes|default], [
        dnl the GPUs of this machine, as the driver reports them ("9.0")
        AC_PATH_PROG([NVIDIA_SMI], [nvidia-smi])
        wr_seen=
        wr_why=
        AS_IF([test -z "$NVIDIA_SMI"], [wr_why="nvidia-smi not found"], [
          wr_caps=`"$NVIDIA_SMI" --query-gpu=compute_cap --format=csv,noheader 2>&AS_MESSAGE_LOG_FD`
          AS_IF([test $? -ne 0], [wr_why="nvidia-smi failed"], [
            wr_caps=`echo "$wr_caps" | tr -d ' \r' | sort -u`
            wr_caps=`echo $wr_caps`
            AS_IF([test -z "$wr_caps"], [wr_why="nvidia-smi lists no GPU"])
            for c in $wr_caps; do
              AS_CASE(["$c"],
                [[[0-9]].[[0-9]]|[[0-9]][[0-9]].[[0-9]]], [a=`echo "$c" | tr -d .`],
                [wr_why="nvidia-smi reports compute capability '$c'"; wr_seen=; break])
              AS_IF([test "$a" -lt 75],
                [AC_MSG_WARN([a GPU of this machine is sm_$a, older than the CUDA backend supports (sm_75)])
                 continue])
              AS_CASE([" $wr_supported "], [*" $a "*], [], [
                wr_why="this machine has an sm_$a GPU, which $NVCC cannot build for"; wr_seen=; break])
              wr_seen="$wr_seen $a"
            done
            wr_seen=`echo $wr_seen | tr ' ' '\n' | sort -n -u | tr '\n' ' '`
            wr_seen=`echo $wr_seen`
            AS_IF([test -z "$wr_seen" && test -z "$wr_why"],
              [wr_why="no GPU of this machine is sm_75 or newer (nvidia-smi: $wr_caps)"])
          ])
        ])
        AS_IF([test -n "$wr_seen"], [
          wr_want=$wr_seen
          wr_cuda_code="the GPUs of this machine (nvidia-smi: `echo $wr_caps`; --with-cuda-arch=auto)"
        ], [
          wr_want=$wr_all
          wr_cuda_nogpu=yes
          wr_cuda_code="every GPU generation, as configure found no GPU to build for ($wr_why; --with-cuda-arch=auto)"
          wr_cuda_hint="for a quicker build, configure for your GPU's generation only, e.g. --with-cuda-arch=90 (H100/H200; 80: A100, A10, L40S; 120: RTX 50x0), or --with-cuda-arch=native on the GPU machine"
        ])],
      [all], [
        wr_want=$wr_all
        wr_cuda_code="every GPU generation (--with-cuda-arch=all)"
        wr_cuda_hint="for a quicker build, configure for your GPU's generation only, e.g. --with-cuda-arch=90 (H100/H200), or --with-cuda-arch=native on the GPU machine"],
      [native], [wr_want=native],
      [no], [AC_MSG_ERROR([--without-cuda-arch: give --without-cuda to build no CUDA plugin])],
      [wr_want=`echo "$with_cuda_arch" | tr ',' ' ' | sed 's/sm_//g; s/compute_//g'`
       wr_cuda_code="--with-cuda-arch=$with_cuda_arch"])
    AS_IF([test "$wr_want" = native], [
      NVCC_GENCODE="-arch=native"
      wr_sass=native
      wr_ptx=native
      wr_cuda_code="-arch=native: nvcc builds for the GPUs of this machine (--with-cuda-arch=native)"
    ], [
      wr_max=
      wr_min=
      for a in $wr_want; do
        AS_CASE(["$a"], [*[[!0-9]]*|''],
          [AC_MSG_ERROR([--with-cuda-arch: '$a' is not an architecture (e.g. 90 or sm_90); expected auto, all, native or a list])])
        AS_IF([test "$a" -lt 75],
          [AC_MSG_ERROR([--with-cuda-arch: sm_$a is older than sm_75, the oldest the CUDA backend supports])])
        AS_CASE([" $wr_supported "], [*" $a "*], [],
          [AC_MSG_ERROR([--with-cuda-arch: $NVCC cannot build sm_$a (it supports: $wr_supported)])])
        NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$a,code=sm_$a"
        wr_sass="$wr_sass $a"
        AS_IF([test -z "$wr_max" || test "$a" -gt "$wr_max"], [wr_max=$a])
        AS_IF([test -z "$wr_min" || test "$a" -lt "$wr_min"], [wr_min=$a])
      done
      AS_IF([test -z "$wr_max"], [AC_MSG_ERROR([no GPU architecture to build for ($NVCC supports: $wr_supported)])])
      NVCC_GENCODE="$NVCC_GENCODE -gencode=arch=compute_$wr_max,code=compute_$wr_max"
      wr_ptx=$wr_max
      wr_sass=`echo $wr_sass`
      dnl files of host code only (cuda/local.am): one architecture
      NVCC_HOST_GENCODE="-gencode=arch=compute_$wr_min,code=sm_$wr_min"
      wr_cuda_code="machine code for sm_`echo $wr_sass | sed 's/ /, sm_/g'` and compute_$wr_ptx PTX: $wr_cuda_code"
    ])
  ])
  AS_IF([test -z "$NVCC_HOST_GENCODE"], [NVCC_HOST_GENCODE=$NVCC_GENCODE])
  AC_MSG_NOTICE([GPU code: $wr_cuda_code])
  dnl string literals, quoted for the shell of make's rules: nvcc splits an
  dnl unquoted -D value at its commas
  NVCC_ARCH_DEFS="-DWRCUDA_SASS_LIST='\"`echo $wr_sass | tr ' ' ','`\"' -DWRCUDA_PTX_LIST='\"`echo $wr_ptx | tr ' ' ','`\"'"
  dnl compile the architectures of one file side by side where nvcc can
  AS_IF([$NVCC --threads 0 --version >/dev/null 2>&1], [NVCC_GENCODE="$NVCC_GENCODE --threads 0"])
])

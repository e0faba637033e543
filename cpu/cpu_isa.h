/*
 * cpu_isa.h -- the instruction-set variants of the cpu kernels (not
 * installed).
 *
 * The kernel files (cpu_reduce.c, cpu_scan.c, cpu_arg.c and the table in
 * cpu_kernels.c) are compiled once per variant, the same sources each time,
 * as glibc and libsodium build their per-ISA objects: cpu/local.am passes
 * -DWRCPU_ISA=<id>, cpu_internal.h then gives every cross-file name of those
 * files the suffix _<id>, and each variant exports one table,
 * wrcpu_kernels_<id>.  cpu_isa.c picks one table per process from what the
 * CPU has (or from WARPRED_CPU_ISA) and the backend calls through it.
 *
 * A variant's instruction set is set here, by a target pragma that a kernel
 * file opens with WRCPU_TARGET_BEGIN after its #includes and closes with
 * WRCPU_TARGET_END at its end, not by -march on the command line: Automake
 * puts the user's CFLAGS after per-file flags, and a distribution's CFLAGS
 * that carry their own -march (Arch's x86-64, RHEL's x86-64-v2) would
 * silently turn every variant into that one.  The pragma names features,
 * not arch=, so that the headers' inline functions (compiled for the
 * build's target before the pragma) still inline into the variant's code.
 *
 * Same bits in every variant: the kernels fix their order of operations in
 * the source (explicit lanes, fixed trees), which compilers keep unless
 * told -ffast-math or -fassociative-math (never used here); and the kernel
 * objects are compiled with -ffp-contract=off, so that x86-64-v3's FMA
 * never fuses a multiply and an add (GNU C's default would).
 * tests/cpu_isa.sh compares the variants' results bit for bit, but for one
 * thing no variant fixes: which NaN a float SUM/PROD scan output carries
 * where NaNs of different bits meet (x86 passes on the first operand's, and
 * the operand order is the compiler's, different already between the
 * inlined copies of one kernel; the reductions make theirs canonical).
 */
#ifndef WR_CPU_ISA_H
#define WR_CPU_ISA_H

/*
 * WRCPU_VARIANTS(X): X(id, name) for every variant of this architecture,
 * baseline first, then in order of preference; whether one is built is
 * WR_CPU_ISA_<ID> in config.h (configure's test of its pragma), and whether
 * the CPU runs it is cpu_isa.c's question.  id: the suffix, the value of
 * WRCPU_ISA and of WARPRED_CPU_ISA; name: what wr_context_describe says.
 */
#if defined(__x86_64__)
#  define WRCPU_VARIANTS(X) X(baseline, "x86-64") X(v3, "x86-64-v3") X(v4, "x86-64-v4")
#elif defined(__aarch64__)
#  define WRCPU_VARIANTS(X) X(baseline, "aarch64") X(sve, "aarch64+sve")
#else
#  define WRCPU_VARIANTS(X) X(baseline, "baseline")
#endif

/* The features of the x86-64 psABI levels (x86-64-v2 included in v3), as
 * GCC's and clang's target attributes spell them; cpu_isa.c tests the same
 * list with cpuid. */
#define WRCPU_TARGET_V3 "popcnt,sse3,ssse3,sse4.1,sse4.2,cx16,sahf,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe,xsave"
#define WRCPU_TARGET_V4 "popcnt,sse3,ssse3,sse4.1,sse4.2,cx16,sahf,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe,xsave," \
                        "avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
#if defined(__clang__)
#  define WRCPU_TARGET_SVE "sve"
#else
#  define WRCPU_TARGET_SVE "+sve"
#endif

#define WRCPU_STR(x) #x
#define WRCPU_XSTR(x) WRCPU_STR(x)
#define WRCPU_XCAT(a, b) WRCPU_CAT(a, b)
#define WRCPU_CAT(a, b) a##b

/* Everything between WRCPU_TARGET_PUSH(features) and WRCPU_TARGET_POP is
 * compiled for the build's target plus features. */
#if defined(__clang__)
#  define WRCPU_TARGET_PUSH(f) \
    _Pragma(WRCPU_XSTR(clang attribute push(__attribute__((target(f))), apply_to = function)))
#  define WRCPU_TARGET_POP _Pragma("clang attribute pop")
#elif defined(__GNUC__)
#  define WRCPU_TARGET_PUSH(f) _Pragma("GCC push_options") _Pragma(WRCPU_XSTR(GCC target(f)))
#  define WRCPU_TARGET_POP _Pragma("GCC pop_options")
#endif

/* Per variant id: WRCPU_BEGIN_<id> and WRCPU_END_<id>. */
#define WRCPU_BEGIN_baseline
#define WRCPU_END_baseline
#define WRCPU_BEGIN_v3 WRCPU_TARGET_PUSH(WRCPU_TARGET_V3)
#define WRCPU_END_v3 WRCPU_TARGET_POP
#define WRCPU_BEGIN_v4 WRCPU_TARGET_PUSH(WRCPU_TARGET_V4)
#define WRCPU_END_v4 WRCPU_TARGET_POP
#define WRCPU_BEGIN_sve WRCPU_TARGET_PUSH(WRCPU_TARGET_SVE)
#define WRCPU_END_sve WRCPU_TARGET_POP

#ifdef WRCPU_ISA
#  define WRCPU_TARGET_BEGIN WRCPU_XCAT(WRCPU_BEGIN_, WRCPU_ISA)
#  define WRCPU_TARGET_END WRCPU_XCAT(WRCPU_END_, WRCPU_ISA)
/* name -> name_<id>, for the cross-file names of the kernel files */
#  define WRCPU_ISA_NAME(f) WRCPU_XCAT(f, WRCPU_XCAT(_, WRCPU_ISA))
#endif

#endif /* WR_CPU_ISA_H */

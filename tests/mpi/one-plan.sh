#!/bin/sh
# one-plan.sh BUILDDIR -- every way an MPI test program skips leaves exactly
# one TAP plan on its output.  test_mpi_errors and test_mpi_threads skip
# with device buffers (WR_TEST_MPI_DEVICE=1) after mt_init() has started
# the lazy plan: on a GPU node they printed "1..0 # SKIP ..." and then "1..0"
# (tap-driver: "multiple test plans").  test_mpi_skip does the same on any
# machine; the two programs themselves skip before the plan where there is
# no GPU, after it on a GPU node: both must print one plan.
#   MPIEXEC   the launcher (default: mpiexec from PATH)
build=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)

echo 1..3
n=0
for case in "test_mpi_skip" "test_mpi_errors WR_TEST_MPI_DEVICE=1" "test_mpi_threads WR_TEST_MPI_DEVICE=1"; do
    n=$((n + 1))
    prog=${case%% *}
    env=
    [ "$prog" = "$case" ] || env=${case#* }
    out=$(env $env WR_MPI_TEST_TIMEOUT=300 "${SHELL:-sh}" "$here/mpi-run.sh" 2 "$build/tests/mpi/$prog" 2>/dev/null)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/#   /'
    plans=$(printf '%s\n' "$out" | grep -c '^1\.\.')
    if [ "$rc" -eq 0 ] && [ "$plans" -eq 1 ]; then
        echo "ok $n - $prog${env:+ with $env} on 2 ranks: one plan"
    else
        echo "not ok $n - $prog${env:+ with $env} on 2 ranks: $plans plans, exit status $rc"
    fi
done

#!/bin/sh
# mpi-run.sh NP PROGRAM [ARGS...] -- run an MPI test program under mpiexec
# with NP ranks; rank 0 writes the TAP stream.
#
#   MPIEXEC               the launcher (default: mpiexec from PATH)
#   WR_MPI_TEST_TIMEOUT   seconds before a hung run is killed (default 600):
#                         a collective that hangs must fail the test, not CI
#   WR_MPI_RUN_EXIT=1     PROGRAM prints no TAP: report its exit status as
#                         one TAP check (for the example program)
np=$1
shift
prog=$1
: "${MPIEXEC:=mpiexec}"
: "${WR_MPI_TEST_TIMEOUT:=600}"

if ! command -v "$MPIEXEC" >/dev/null 2>&1; then
    echo "1..0 # SKIP no MPI launcher ($MPIEXEC)"
    exit 0
fi

# Open MPI refuses to run as root (CI containers run as root) unless told,
# and more ranks than cores unless --oversubscribe.  Its shared-memory
# transport's single-copy mode needs ptrace rights containers often lack.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
: "${OMPI_MCA_btl_vader_single_copy_mechanism:=none}"
export OMPI_MCA_btl_vader_single_copy_mechanism
# Open MPI's own allocations outlive MPI_Finalize (many in components it has
# unloaded by then, which no suppression can name): LeakSanitizer would fail
# every MPI program of a --enable-sanitizers build.  Address and UB checks stay.
if [ -n "${ASAN_OPTIONS+set}" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
fi
launch="$MPIEXEC -n $np"
if "$MPIEXEC" --version 2>&1 | grep -qi -e 'open mpi' -e 'openrte' -e 'prte'; then
    launch="$launch --oversubscribe"
fi

limit=
if command -v timeout >/dev/null 2>&1; then
    limit="timeout $WR_MPI_TEST_TIMEOUT"
fi

if [ "${WR_MPI_RUN_EXIT:-0}" = 1 ]; then
    echo "1..1"
    if $limit $launch "$@"; then
        echo "ok 1 - $(basename "$prog") on $np ranks"
    else
        echo "not ok 1 - $(basename "$prog") on $np ranks: exit status $?"
    fi
    exit 0
fi
$limit $launch "$@"
status=$?
if [ $status -eq 124 ]; then
    echo "Bail out! killed after ${WR_MPI_TEST_TIMEOUT}s: a collective hangs?"
fi
exit $status

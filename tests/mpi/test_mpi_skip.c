/*
 * test_mpi_skip.c -- an MPI test program that decides to skip after
 * mt_init(), whose rank 0 has by then started TAP's lazy plan: what
 * test_mpi_errors and test_mpi_threads do with WR_TEST_MPI_DEVICE=1 on a
 * GPU node.  mt_skip_all() must leave "1..0 # SKIP ..." as the only plan
 * (a second one, "1..0" at exit, is tap-driver's "multiple test plans").
 * tests/mpi/one-plan.sh runs it and counts the plans.
 */
#include <config.h>
#include "mpi_test.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    mt_skip_all("skipped after mt_init, as the device-mode skips are");
}

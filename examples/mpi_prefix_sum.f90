! mpi_prefix_sum.f90 -- a prefix sum over an array spread across MPI ranks,
! from Fortran (examples/mpi_prefix_sum.c in C).
!
!   mpifort mpi_prefix_sum.f90 $(pkg-config --cflags --libs warpred_mpi_fortran)
!   mpiexec -n 4 ./a.out
!
! Rank r holds a piece of the global array 1, 2, 3, ..., N (pieces of uneven
! length; rank 1's is empty).  wr_mpi_exscan gives where each piece starts,
! wr_mpi_scan the prefix sums, wr_mpi_allreduce the total and wr_mpi_argmax
! where the largest element is.  Every rank checks its prefixes against
! k(k+1)/2; the exit status says whether every rank got them right.
program mpi_prefix_sum
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int64_t, c_size_t
  use mpi_f08
  use warpred
  use warpred_mpi
  implicit none
  integer, parameter :: n = 1000
  type(c_ptr) :: ctx
  integer :: rank, nranks, i
  integer(c_int64_t), allocatable :: x(:), prefix(:)
  integer(c_int64_t) :: mine(1), first(1), total, k, top, at
  integer(c_size_t) :: count
  logical :: bad, any_bad

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call check(wr_context_create(ctx, WR_BACKEND_AUTO), 'wr_context_create')

  count = merge(0, n + rank, rank == 1)          ! uneven pieces, one empty
  allocate (x(count), prefix(count))

  ! My first global index: the lengths of all lower ranks' pieces.
  mine(1) = int(count, c_int64_t)
  call check(wr_mpi_exscan(ctx, mine, first, 1_c_size_t, WR_UINT64, WR_SUM, MPI_COMM_WORLD), &
             'wr_mpi_exscan')
  x = [(first(1) + i, i = 1, int(count))]

  ! prefix(i) = every element of lower ranks + x(1) + ... + x(i)
  call check(wr_mpi_scan(ctx, x, prefix, count, WR_INT64, WR_SUM, MPI_COMM_WORLD), 'wr_mpi_scan')
  call check(wr_mpi_allreduce(ctx, x, total, count, WR_INT64, WR_SUM, MPI_COMM_WORLD), &
             'wr_mpi_allreduce')
  ! at: global index from 0 of the largest element, the last of the last rank
  call check(wr_mpi_argmax(ctx, x, count, WR_INT64, at, top, MPI_COMM_WORLD), 'wr_mpi_argmax')

  bad = top /= at + 1
  do i = 1, int(count)
    k = first(1) + i
    if (prefix(i) /= k * (k + 1) / 2) bad = .true.
  end do
  call MPI_Allreduce(bad, any_bad, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a, i0, a, i0, 2a)', 'sum of 1..', top, ' over ', nranks, &
       ' ranks: ', total, '; prefix sums ', merge('WRONG      ', 'as expected', any_bad)

  call wr_context_destroy(ctx)
  call MPI_Finalize()
  if (any_bad) error stop 1

contains

  ! Stop every rank with the library's reason.
  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status == WR_SUCCESS) return
    print '(4a)', what, ': ', wr_status_string(status), ': ' // wr_context_error(ctx)
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end program mpi_prefix_sum

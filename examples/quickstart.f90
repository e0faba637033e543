! quickstart.f90 -- the README's Fortran example: sum, prefix sum and the
! position of the maximum of a real(8) array.
!
!   gfortran quickstart.f90 $(pkg-config --cflags --libs warpred_fortran)
program quickstart
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_null_ptr
  use warpred
  implicit none
  real(c_double) :: x(8) = [3, 1, 4, 1, 5, 9, 2, 6], sum, prefix(8), top
  integer(c_size_t) :: n, at
  type(c_ptr) :: ctx

  n = size(x, kind=c_size_t)
  if (wr_context_create(ctx, WR_BACKEND_AUTO) /= WR_SUCCESS) &
       error stop 'warpred: ' // wr_context_error(c_null_ptr)
  if (wr_reduce(ctx, x, sum, n, WR_DOUBLE, WR_SUM) /= WR_SUCCESS .or. &
      wr_scan(ctx, x, prefix, n, WR_DOUBLE, WR_SUM) /= WR_SUCCESS .or. &
      wr_argmax(ctx, x, n, WR_DOUBLE, at, top) /= WR_SUCCESS) &
       error stop 'warpred: ' // wr_context_error(ctx)
  ! at counts from 0, as in C: x(at + 1) is the maximum
  print '(a, f0.1, a, f0.1, a, f0.1, a, i0, 2a)', 'sum = ', sum, ', last prefix = ', prefix(8), &
       ', max ', top, ' at x(', at + 1, ') on ', wr_context_describe(ctx)
  call wr_context_destroy(ctx)
  if (sum /= 31 .or. prefix(8) /= 31 .or. at /= 5 .or. top /= 9) error stop 1
end program quickstart

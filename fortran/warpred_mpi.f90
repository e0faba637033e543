! warpred_mpi.f90 -- the Fortran module `warpred_mpi`: the five wr_mpi_*
! functions of libwarpred_mpi (warpred_mpi.h), reductions and prefix scans
! over an array spread across the ranks of a communicator.
!
!   use mpi_f08
!   use warpred
!   use warpred_mpi
!   st = wr_mpi_scan(ctx, x, prefix, size(x, kind=c_size_t), WR_INT64, WR_SUM, MPI_COMM_WORLD)
!
! Arguments as in C and as in the module warpred (buffers of any type and
! kind, integer(c_size_t) counts, integer(c_int) enums and statuses); the
! global index of wr_mpi_argmin/wr_mpi_argmax is an integer(c_int64_t)
! (uint64_t in C), counted from 0.  The communicator is either an mpi_f08
! type(MPI_Comm) or an integer handle of `use mpi` / mpif.h: each name is a
! generic interface with both.  A small C shim (wrf_mpi_* in
! libwarpred_mpi_fortran) turns the handle into a C MPI_Comm with
! MPI_Comm_f2c.
module warpred_mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_size_t, c_ptr
  use mpi_f08, only: MPI_Comm
  implicit none
  private

  public :: wr_mpi_allreduce, wr_mpi_scan, wr_mpi_exscan, wr_mpi_argmin, wr_mpi_argmax
  public :: wr_mpi_dot, wr_mpi_nrm2, wr_mpi_asum

  interface wr_mpi_allreduce
    module procedure allreduce_f08, allreduce_int
  end interface wr_mpi_allreduce
  interface wr_mpi_scan
    module procedure scan_f08, scan_int
  end interface wr_mpi_scan
  interface wr_mpi_exscan
    module procedure exscan_f08, exscan_int
  end interface wr_mpi_exscan
  interface wr_mpi_argmin
    module procedure argmin_f08, argmin_int
  end interface wr_mpi_argmin
  interface wr_mpi_argmax
    module procedure argmax_f08, argmax_int
  end interface wr_mpi_argmax
  interface wr_mpi_dot
    module procedure dot_f08, dot_int
  end interface wr_mpi_dot
  interface wr_mpi_nrm2
    module procedure nrm2_f08, nrm2_int
  end interface wr_mpi_nrm2
  interface wr_mpi_asum
    module procedure asum_f08, asum_int
  end interface wr_mpi_asum

  ! fortran/warpred_mpi_shim.c: comm is the Fortran handle's value (an
  ! MPI_Fint, which handles' values fit in whatever the integer kind).
  interface
    function wrf_mpi_allreduce(ctx, in, out, count, type, op, comm) &
         bind(C, name="wrf_mpi_allreduce") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function wrf_mpi_allreduce

    function wrf_mpi_scan(ctx, in, out, count, type, op, comm) &
         bind(C, name="wrf_mpi_scan") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function wrf_mpi_scan

    function wrf_mpi_exscan(ctx, in, out, count, type, op, comm) &
         bind(C, name="wrf_mpi_exscan") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function wrf_mpi_exscan

    function wrf_mpi_argmin(ctx, in, count, type, index, value, comm) &
         bind(C, name="wrf_mpi_argmin") result(status)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_int64_t), intent(inout) :: index
      type(*), intent(inout), optional :: value
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function wrf_mpi_argmin

    function wrf_mpi_argmax(ctx, in, count, type, index, value, comm) &
         bind(C, name="wrf_mpi_argmax") result(status)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_int64_t), intent(inout) :: index
      type(*), intent(inout), optional :: value
      integer(c_int), value :: comm
      integer(c_int) :: status
    end function wrf_mpi_argmax
    function wrf_mpi_dot(ctx, x, y, out, count, type, comm) bind(C, name="wrf_mpi_dot") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*), y(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type, comm
      integer(c_int) :: status
    end function wrf_mpi_dot
    ! which: 0 wr_mpi_nrm2, 1 wr_mpi_asum
    function wrf_mpi_norm(which, ctx, x, out, count, type, comm) bind(C, name="wrf_mpi_norm") result(status)
      import :: c_int, c_size_t, c_ptr
      integer(c_int), value :: which
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type, comm
      integer(c_int) :: status
    end function wrf_mpi_norm
  end interface

contains

  ! wr_status wr_mpi_allreduce(wr_context *ctx, const void *in, void *out,
  !                            size_t count, wr_type type, wr_op op, MPI_Comm comm)
  function allreduce_f08(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_allreduce(ctx, in, out, count, type, op, int(comm%MPI_VAL, c_int))
  end function allreduce_f08

  function allreduce_int(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_allreduce(ctx, in, out, count, type, op, int(comm, c_int))
  end function allreduce_int

  ! wr_status wr_mpi_scan(wr_context *ctx, const void *in, void *out,
  !                       size_t count, wr_type type, wr_op op, MPI_Comm comm)
  function scan_f08(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_scan(ctx, in, out, count, type, op, int(comm%MPI_VAL, c_int))
  end function scan_f08

  function scan_int(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_scan(ctx, in, out, count, type, op, int(comm, c_int))
  end function scan_int

  ! wr_status wr_mpi_exscan(wr_context *ctx, const void *in, void *out,
  !                         size_t count, wr_type type, wr_op op, MPI_Comm comm)
  function exscan_f08(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_exscan(ctx, in, out, count, type, op, int(comm%MPI_VAL, c_int))
  end function exscan_f08

  function exscan_int(ctx, in, out, count, type, op, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    type(*), intent(inout) :: out(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type, op
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_exscan(ctx, in, out, count, type, op, int(comm, c_int))
  end function exscan_int

  ! wr_status wr_mpi_argmin(wr_context *ctx, const void *in, size_t count, wr_type type,
  !                         uint64_t *index, void *value, MPI_Comm comm)
  function argmin_f08(ctx, in, count, type, index, value, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(inout) :: index
    type(*), intent(inout), optional :: value
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_argmin(ctx, in, count, type, index, value, int(comm%MPI_VAL, c_int))
  end function argmin_f08

  function argmin_int(ctx, in, count, type, index, value, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(inout) :: index
    type(*), intent(inout), optional :: value
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_argmin(ctx, in, count, type, index, value, int(comm, c_int))
  end function argmin_int

  ! wr_status wr_mpi_argmax(wr_context *ctx, const void *in, size_t count, wr_type type,
  !                         uint64_t *index, void *value, MPI_Comm comm)
  function argmax_f08(ctx, in, count, type, index, value, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(inout) :: index
    type(*), intent(inout), optional :: value
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_argmax(ctx, in, count, type, index, value, int(comm%MPI_VAL, c_int))
  end function argmax_f08

  function argmax_int(ctx, in, count, type, index, value, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: in(*)
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(inout) :: index
    type(*), intent(inout), optional :: value
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_argmax(ctx, in, count, type, index, value, int(comm, c_int))
  end function argmax_int

  ! wr_status wr_mpi_dot(wr_context *ctx, const void *x, const void *y, void *out,
  !                      size_t count, wr_type type, MPI_Comm comm)
  function dot_f08(ctx, x, y, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*), y(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_dot(ctx, x, y, out, count, type, int(comm%MPI_VAL, c_int))
  end function dot_f08

  function dot_int(ctx, x, y, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*), y(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_dot(ctx, x, y, out, count, type, int(comm, c_int))
  end function dot_int

  ! wr_status wr_mpi_nrm2(wr_context *ctx, const void *x, void *out, size_t count,
  !                       wr_type type, MPI_Comm comm)
  function nrm2_f08(ctx, x, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_norm(0_c_int, ctx, x, out, count, type, int(comm%MPI_VAL, c_int))
  end function nrm2_f08

  function nrm2_int(ctx, x, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_norm(0_c_int, ctx, x, out, count, type, int(comm, c_int))
  end function nrm2_int

  ! wr_status wr_mpi_asum(wr_context *ctx, const void *x, void *out, size_t count,
  !                       wr_type type, MPI_Comm comm)
  function asum_f08(ctx, x, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    type(MPI_Comm), intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_norm(1_c_int, ctx, x, out, count, type, int(comm%MPI_VAL, c_int))
  end function asum_f08

  function asum_int(ctx, x, out, count, type, comm) result(status)
    type(c_ptr), intent(in) :: ctx
    type(*), intent(in) :: x(*)
    type(*), intent(inout) :: out
    integer(c_size_t), intent(in) :: count
    integer(c_int), intent(in) :: type
    integer, intent(in) :: comm
    integer(c_int) :: status
    status = wrf_mpi_norm(1_c_int, ctx, x, out, count, type, int(comm, c_int))
  end function asum_int

end module warpred_mpi

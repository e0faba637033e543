! test_mpi_fortran.f90 -- the Fortran module warpred_mpi (TAP, printed by rank
! 0; a check passes when it passed on every rank): the five wr_mpi_*
! functions with an mpi_f08 type(MPI_Comm) and with an integer handle, on
! MPI_COMM_WORLD and on a communicator of our own, against references every
! rank computes for the whole global array; handles that name no
! communicator (made up, or freed) refused with WR_ERR_INVALID_ARG and a
! reason instead of ending the job inside MPI.
!
! Rank r holds c(r) elements (rank 1 none), the global elements 1, 2, 3, ...
! in rank order.
program test_mpi_fortran
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use warpred
  use warpred_mpi
  implicit none
  integer, parameter :: planned = 18
  type(c_ptr) :: ctx
  type(MPI_Comm) :: world, reversed, made_up
  integer :: rank, nranks, checks = 0, i, freed, verlen
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: libver
  logical :: open_mpi
  integer(c_size_t) :: count
  integer(c_int64_t) :: first, total, g, at, mine(1), start(1)
  integer(c_int64_t), allocatable :: k(:), kscan(:)
  real(c_double), allocatable :: x(:), xscan(:)
  integer(c_int32_t), allocatable :: big(:)
  integer(c_int32_t) :: s32
  real(c_double) :: d
  integer(c_int) :: st
  logical :: good

  call MPI_Init()
  world = MPI_COMM_WORLD
  call MPI_Get_library_version(libver, verlen)
  open_mpi = index(libver(1:verlen), 'Open MPI') > 0
  call MPI_Comm_rank(world, rank)
  call MPI_Comm_size(world, nranks)
  if (wr_context_create(ctx, WR_BACKEND_AUTO) /= WR_SUCCESS) &
       call MPI_Abort(world, 1)
  if (rank == 0) print '(a, i0)', '1..', planned

  count = int(pieces(rank), c_size_t)
  first = sum([(int(pieces(i), c_int64_t), i = 0, rank - 1)])  ! elements of lower ranks
  g = sum([(int(pieces(i), c_int64_t), i = 0, nranks - 1)])     ! the global array's length
  allocate (k(count), kscan(count), x(count), xscan(count), big(count))
  k = [(first + i, i = 1, int(count))]
  x = real(k, c_double)
  big = huge(1_c_int32_t) - int(k, c_int32_t)

  ! ---- with type(MPI_Comm) ----------------------------------------------------
  st = wr_mpi_allreduce(ctx, k, total, count, WR_INT64, WR_SUM, world)
  call ok(st == WR_SUCCESS .and. total == g * (g + 1) / 2, 'allreduce int64 SUM (type(MPI_Comm))')
  st = wr_mpi_scan(ctx, k, kscan, count, WR_INT64, WR_SUM, world)
  good = st == WR_SUCCESS
  do i = 1, int(count)
    if (kscan(i) /= k(i) * (k(i) + 1) / 2) good = .false.
  end do
  call ok(good, 'scan int64 SUM: k(k+1)/2 (type(MPI_Comm))')
  mine(1) = int(count, c_int64_t)
  st = wr_mpi_exscan(ctx, mine, start, 1_c_size_t, WR_UINT64, WR_SUM, world)
  call ok(st == WR_SUCCESS .and. start(1) == first, 'exscan uint64 of the counts: where my piece starts')
  st = wr_mpi_argmax(ctx, x, count, WR_DOUBLE, at, d, world)
  call ok(st == WR_SUCCESS .and. at == g - 1 .and. d == real(g, c_double), &
          'argmax real(8) with value: the last element (type(MPI_Comm))')

  ! ---- with an integer handle ---------------------------------------------------
  st = wr_mpi_allreduce(ctx, x, d, count, WR_DOUBLE, WR_SUM, world%MPI_VAL)
  call ok(st == WR_SUCCESS .and. d == real(g * (g + 1) / 2, c_double), &
          'allreduce real(8) SUM of integers, exact (integer handle)')
  st = wr_mpi_exscan(ctx, x, xscan, count, WR_DOUBLE, WR_SUM, world%MPI_VAL)
  good = st == WR_SUCCESS
  do i = 1, int(count)
    if (xscan(i) /= real((k(i) - 1) * k(i) / 2, c_double)) good = .false.
  end do
  if (rank == 0 .and. count > 0) good = good .and. xscan(1) == 0
  call ok(good, 'exscan real(8) SUM: 0 first, then k(k-1)/2 (integer handle)')
  st = wr_mpi_scan(ctx, x, xscan, count, WR_DOUBLE, WR_MAX, world%MPI_VAL)
  call ok(st == WR_SUCCESS .and. all(xscan == x), 'scan real(8) MAX of increasing values (integer handle)')
  st = wr_mpi_argmin(ctx, x, count, WR_DOUBLE, at, comm=world%MPI_VAL)
  call ok(st == WR_SUCCESS .and. at == 0, 'argmin real(8) without value (integer handle)')

  ! ---- int32 wrapping across ranks ------------------------------------------------
  st = wr_mpi_allreduce(ctx, big, s32, count, WR_INT32, WR_SUM, world)
  call ok(st == WR_SUCCESS .and. s32 == wrap32_sum(), 'allreduce int32 SUM wraps across ranks')

  ! ---- a communicator of our own: the ranks in reverse order ------------------------
  call MPI_Comm_split(world, 0, nranks - rank, reversed)
  st = wr_mpi_scan(ctx, mine, start, 1_c_size_t, WR_UINT64, WR_SUM, reversed)
  call ok(st == WR_SUCCESS .and. start(1) == g - first, 'scan over a split communicator (reversed ranks)')
  ! The largest element, g, ends the piece of the last rank that has one,
  ! which comes first in reversed order.
  st = wr_mpi_argmax(ctx, x, count, WR_DOUBLE, at, d, reversed%MPI_VAL)
  call ok(st == WR_SUCCESS .and. at == pieces(merge(0, nranks - 1, nranks == 2)) - 1 .and. &
          d == real(g, c_double), 'argmax over the reversed communicator (integer handle)')
  freed = reversed%MPI_VAL
  call MPI_Comm_free(reversed)

  ! ---- errors ----------------------------------------------------------------------
  st = wr_mpi_argmax(ctx, x, 0_c_size_t, WR_DOUBLE, at, comm=world)
  call ok(st == WR_ERR_EMPTY, 'argmax with every piece empty: WR_ERR_EMPTY')
  st = wr_mpi_allreduce(ctx, k, total, count, WR_INT64, WR_SUM, MPI_COMM_NULL)
  call ok(st == WR_ERR_INVALID_ARG .and. index(wr_context_error(ctx), 'MPI_COMM_NULL') > 0, &
          'MPI_COMM_NULL: WR_ERR_INVALID_ARG, "' // wr_context_error(ctx) // '"')
  st = wr_mpi_allreduce(ctx, k, total, count, WR_INT64, WR_SUM, MPI_COMM_NULL%MPI_VAL)
  call ok(st == WR_ERR_INVALID_ARG, 'MPI_COMM_NULL as an integer handle: WR_ERR_INVALID_ARG')

  ! ---- handles that name no communicator ---------------------------------------------
  ! MPI has no portable test of a handle: MPI_Comm_f2c of an invalid one gives
  ! some invalid C handle.  Open MPI's is a null pointer, which the shim
  ! refuses; an MPI library whose MPI_Comm_f2c only converts (MPICH: a cast)
  ! hands the made-up value on, and MPI's error handler ends the job.
  if (open_mpi) then
    total = -7
    st = wr_mpi_allreduce(ctx, k, total, count, WR_INT64, WR_SUM, 12345)
    call ok(st == WR_ERR_INVALID_ARG .and. total == -7 .and. index(wr_context_error(ctx), '12345') > 0 .and. &
            index(wr_context_error(ctx), 'wr_mpi_allreduce') > 0, &
            'integer handle 12345: WR_ERR_INVALID_ARG, out untouched, "' // wr_context_error(ctx) // '"')
    made_up%MPI_VAL = -1
    st = wr_mpi_scan(ctx, k, kscan, count, WR_INT64, WR_SUM, made_up)
    call ok(st == WR_ERR_INVALID_ARG .and. index(wr_context_error(ctx), 'not a communicator') > 0, &
            'type(MPI_Comm) holding -1: WR_ERR_INVALID_ARG, "' // wr_context_error(ctx) // '"')
    st = wr_mpi_argmax(ctx, x, count, WR_DOUBLE, at, d, freed)
    call ok(st == WR_ERR_INVALID_ARG .and. index(wr_context_error(ctx), 'not a communicator') > 0, &
            'the integer handle of a freed communicator: WR_ERR_INVALID_ARG, "' // wr_context_error(ctx) // '"')
  else
    call skip(3, 'this MPI library''s MPI_Comm_f2c does not tell an invalid handle')
  end if
  st = wr_mpi_allreduce(ctx, k, total, count, WR_INT64, WR_SUM, world%MPI_VAL)
  call ok(st == WR_SUCCESS .and. total == g * (g + 1) / 2 .and. len(wr_context_error(ctx)) == 0, &
          'and then a good call works, its reason empty')

  if (rank == 0 .and. checks /= planned) print '(a, i0, a, i0)', '# planned ', planned, ', ran ', checks
  call wr_context_destroy(ctx)
  call MPI_Finalize()

contains

  ! Elements held by rank r.
  pure integer function pieces(r)
    integer, intent(in) :: r
    pieces = merge(0, 100 + 7 * r, r == 1)
  end function pieces

  ! One collective check: passes when cond holds on every rank.
  subroutine ok(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    logical :: all_ok
    checks = checks + 1
    call MPI_Allreduce(cond, all_ok, 1, MPI_LOGICAL, MPI_LAND, world)
    if (rank /= 0) return
    if (all_ok) then
      print '(a, i0, 2a)', 'ok ', checks, ' - ', what
    else
      print '(a, i0, 2a)', 'not ok ', checks, ' - ', what
    end if
  end subroutine ok

  ! n checks skipped (on every rank alike), with the reason.
  subroutine skip(n, why)
    integer, intent(in) :: n
    character(len=*), intent(in) :: why
    integer :: j
    do j = 1, n
      checks = checks + 1
      if (rank == 0) print '(a, i0, 2a)', 'ok ', checks, ' # skip ', why
    end do
  end subroutine skip

  ! The int32 sum of huge - k over the global array, wrapped modulo 2**32.
  integer(c_int32_t) function wrap32_sum()
    integer(c_int64_t) :: r, j
    r = 0
    do j = 1, g
      r = modulo(r + (huge(1_c_int32_t) - j), 2_c_int64_t**32)
    end do
    if (r >= 2_c_int64_t**31) r = r - 2_c_int64_t**32
    wrap32_sum = int(r, c_int32_t)
  end function wrap32_sum
end program test_mpi_fortran

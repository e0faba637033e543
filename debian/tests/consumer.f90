! consumer.f90 -- a Fortran program outside libwarpred, built by the
! autopkgtest against the installed module (pkg-config warpred_fortran) and
! run on the cpu backend.  Every result is checked against a value this
! program computes itself from pseudo-random input.
program consumer
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_double, c_int32_t, c_int64_t, c_size_t
  use warpred
  implicit none
  integer, parameter :: n = 100003, rows = 301, cols = 257
  real(c_double), allocatable :: x(:), xs(:), u(:)
  integer(c_int64_t), allocatable :: k(:), ks(:)
  integer(c_int32_t), allocatable :: m(:, :), r(:)
  real(c_double) :: s, ref, comp, t, tol, top
  integer(c_int64_t) :: ksum, acc
  integer(c_size_t) :: at
  integer :: i, failures = 0, tests = 0
  logical :: ok
  type(c_ptr) :: ctx
  integer, allocatable :: seed(:)

  allocate(x(n), xs(n), u(n), k(n), ks(n), m(cols, rows), r(rows))
  call random_seed(size=i)
  allocate(seed(i))
  seed = [(1234567 + 7919 * i, i = 1, size(seed))]
  call random_seed(put=seed)
  call random_number(x)
  call random_number(u)
  k = int(u * 2000001, c_int64_t) - 1000000
  call random_number(u)
  m = reshape(int(u(1:rows * cols) * 2001, c_int32_t) - 1000, [cols, rows])

  if (wr_context_create(ctx, WR_BACKEND_CPU) /= WR_SUCCESS) then
    print '(2a)', 'not ok 1 - wr_context_create(cpu): ', wr_context_error(c_null_ptr)
    error stop 1
  end if
  print '(4a)', '# libwarpred ', wr_version(), ': ', wr_context_describe(ctx)

  ! double SUM against Neumaier's compensated sum, within README's bound
  ref = 0; comp = 0
  do i = 1, n
    t = ref + x(i)
    if (abs(ref) >= abs(x(i))) then
      comp = comp + ((ref - t) + x(i))
    else
      comp = comp + ((x(i) - t) + ref)
    end if
    ref = t
  end do
  ref = ref + comp
  tol = (ceiling(log(real(n, c_double)) / log(2.0_c_double)) + 1024) * epsilon(1.0_c_double) / 2 * sum(abs(x))
  ok = wr_reduce(ctx, x, s, int(n, c_size_t), WR_DOUBLE, WR_SUM) == WR_SUCCESS
  call check(ok .and. abs(s - ref) <= tol, 'wr_reduce double SUM')

  ksum = sum(k)
  acc = 0
  ok = wr_reduce(ctx, k, acc, int(n, c_size_t), WR_INT64, WR_SUM) == WR_SUCCESS
  call check(ok .and. acc == ksum, 'wr_reduce int64 SUM')

  ok = wr_scan(ctx, k, ks, int(n, c_size_t), WR_INT64, WR_SUM) == WR_SUCCESS
  acc = 0
  do i = 1, n
    acc = acc + k(i)
    if (ks(i) /= acc) ok = .false.
  end do
  call check(ok, 'wr_scan int64 SUM, every prefix')

  ok = wr_scan(ctx, x, xs, int(n, c_size_t), WR_DOUBLE, WR_MAX) == WR_SUCCESS
  do i = 1, n
    if (xs(i) /= maxval(x(1:i))) ok = .false.
    if (.not. ok) exit
  end do
  call check(ok, 'wr_scan double MAX, every prefix')

  ! maxloc gives the first maximum; the library's index counts from 0
  ok = wr_argmax(ctx, x, int(n, c_size_t), WR_DOUBLE, at, top) == WR_SUCCESS
  call check(ok .and. at + 1 == maxloc(x, 1) .and. top == maxval(x), 'wr_argmax double: the first maximum')

  ! C's rows x cols matrix is Fortran's m(cols, rows): r(j) reduces m(:, j)
  ok = wr_reduce_rows(ctx, m, r, int(rows, c_size_t), int(cols, c_size_t), WR_INT32, WR_SUM) == WR_SUCCESS
  call check(ok .and. all(r == sum(m, 1)), 'wr_reduce_rows int32 SUM, every row')

  ok = wr_reduce(ctx, x, s, int(n, c_size_t), WR_DOUBLE, WR_BXOR) == WR_ERR_UNSUPPORTED
  call check(ok .and. len(wr_context_error(ctx)) > 0, 'BXOR on doubles is refused: ' // wr_context_error(ctx))

  call wr_context_destroy(ctx)
  print '(a, i0)', '1..', tests
  print '(i0, a, i0, a)', tests - failures, ' passed, ', failures, ' failed'
  if (failures /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    tests = tests + 1
    if (ok) then
      print '(a, i0, 2a)', 'ok ', tests, ' - ', what
    else
      print '(a, i0, 2a)', 'not ok ', tests, ' - ', what
      failures = failures + 1
    end if
  end subroutine check
end program consumer

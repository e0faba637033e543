! fortran_api.f90 -- the Fortran module warpred (TAP): every function of
! warpred.h through it, with values checked against references computed
! here in Fortran: sums of integer-valued reals (exact), int32/int64 sums and
! products that wrap, argmin/argmax's first index, scans, exscan's identity
! first, rows (a Fortran in(cols, rows) array), segments, array sections,
! errors and their text, float modes and streams.
program fortran_api
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_class, ieee_negative_inf, ieee_positive_inf, &
       operator(==)
  use warpred
  implicit none
  integer, parameter :: n = 3001              ! odd, several blocks' worth
  integer, parameter :: rows = 37, cols = 101
  integer, parameter :: planned = 59
  integer(c_int64_t), parameter :: mask32 = int(z'FFFFFFFF', c_int64_t)
  type(c_ptr) :: ctx
  integer, target :: checks = 0
  integer :: i, j, k
  integer(c_int) :: st
  integer(c_size_t) :: nn, at
  real(c_double) :: x(n), d, dref, dscan(n), dmax, m(cols, rows), mrows(rows)
  real(c_float) :: f(n), fs, fsum(n)
  integer(c_int32_t) :: i32(n), s32, s32ref, p32, scan32(n), u32(2), u32max
  integer(c_int64_t) :: i64(n), s64, s64ref, run64, ex64(n), seg(5)
  integer(c_int64_t) :: run
  integer(c_size_t) :: offsets(6)
  character(len=:), allocatable :: text
  type(wr_exact_sum) :: es, es2
  real(c_double) :: big(3)

  print '(a, i0)', '1..', planned
  nn = int(n, c_size_t)

  ! ---- version, statuses, types -------------------------------------------
  text = wr_version()
  call ok(text == version_string(), 'wr_version() "' // text // '" matches WR_VERSION_*')
  call ok(wr_status_string(WR_SUCCESS) /= '' .and. wr_status_string(WR_ERR_EMPTY) /= '' &
          .and. wr_status_string(12345_c_int) /= '', 'wr_status_string: never empty')
  call ok(wr_type_size(WR_INT32) == 4 .and. wr_type_size(WR_INT64) == 8 .and. &
          wr_type_size(WR_UINT32) == 4 .and. wr_type_size(WR_UINT64) == 8 .and. &
          wr_type_size(WR_FLOAT) == 4 .and. wr_type_size(WR_DOUBLE) == 8 .and. &
          wr_type_size(99_c_int) == 0, 'wr_type_size of every type, 0 for a bad one')
  call ok(c_sizeof(x(1)) == wr_type_size(WR_DOUBLE) .and. c_sizeof(f(1)) == wr_type_size(WR_FLOAT), &
          'real(c_double) and real(c_float) are WR_DOUBLE and WR_FLOAT')

  ! ---- contexts ------------------------------------------------------------
  ctx = c_loc(checks)
  st = wr_context_create(ctx, 99_c_int)
  call ok(st == WR_ERR_INVALID_ARG .and. .not. c_associated(ctx) .and. &
          wr_context_error(c_null_ptr) /= '', &
          'wr_context_create with a bad backend: WR_ERR_INVALID_ARG, NULL, a reason')
  st = wr_context_create(ctx, WR_BACKEND_AUTO)
  call ok(st == WR_SUCCESS .and. c_associated(ctx), 'wr_context_create(AUTO)')
  if (st /= WR_SUCCESS) then
    print '(a)', 'Bail out! no context: ' // wr_context_error(c_null_ptr)
    stop
  end if
  call ok(wr_context_has_backend(ctx, WR_BACKEND_CPU) == 1 .and. &
          wr_context_has_backend(ctx, WR_BACKEND_AUTO) == 1, 'wr_context_has_backend: cpu and auto')
  call ok(wr_context_last_backend(ctx) == WR_BACKEND_AUTO, 'wr_context_last_backend before any call')
  text = wr_context_describe(ctx)
  call ok(index(text, 'cpu') > 0, 'wr_context_describe: "' // text // '"')

  ! ---- reduce ----------------------------------------------------------------
  do i = 1, n
    x(i) = real(mod(i * 7919, 2001) - 1000, c_double)     ! integers in -1000..1000
    f(i) = real(mod(i * 31, 201) - 100, c_float)
  end do
  st = wr_reduce(ctx, x, d, nn, WR_DOUBLE, WR_SUM)
  call ok(st == WR_SUCCESS .and. d == sum(x), 'reduce real(8) SUM of integers is exact')
  call ok(wr_context_last_backend(ctx) /= WR_BACKEND_AUTO, 'wr_context_last_backend after a call')
  st = wr_reduce(ctx, f, fs, nn, WR_FLOAT, WR_SUM)
  call ok(st == WR_SUCCESS .and. fs == sum(f), 'reduce real(4) SUM of integers is exact')
  st = wr_reduce(ctx, x, d, nn, WR_DOUBLE, WR_MIN)
  call ok(st == WR_SUCCESS .and. d == minval(x), 'reduce real(8) MIN')
  dref = product(x(1:40:3) / 64)
  st = wr_reduce(ctx, x(1:40:3) / 64, d, 14_c_size_t, WR_DOUBLE, WR_PROD)
  call ok(st == WR_SUCCESS .and. abs(d - dref) <= 1e-12_c_double * abs(dref), &
          'reduce real(8) PROD of an expression')
  st = wr_reduce(ctx, x(2:n:2), d, size(x(2:n:2), kind=c_size_t), WR_DOUBLE, WR_SUM)
  call ok(st == WR_SUCCESS .and. d == sum(x(2:n:2)), 'reduce of a strided section (copied in)')
  st = wr_reduce(ctx, x, d, 0_c_size_t, WR_DOUBLE, WR_MAX)
  call ok(st == WR_SUCCESS .and. ieee_class(d) == ieee_negative_inf, 'reduce of nothing: MAX identity -inf')

  ! int32 SUM and PROD wrap modulo 2**32 (reference in int64, then wrapped)
  do i = 1, n
    i32(i) = huge(1_c_int32_t) - int(mod(i * 104729, 1000003), c_int32_t)
  end do
  run = 0
  do i = 1, n
    run = wrap32(run + i32(i))
  end do
  s32ref = int(run, c_int32_t)
  st = wr_reduce(ctx, i32, s32, nn, WR_INT32, WR_SUM)
  call ok(st == WR_SUCCESS .and. s32 == s32ref, 'reduce int32 SUM wraps as two''s complement')
  run = 1
  do i = 1, 50
    run = wrap32(run * int(i32(i), c_int64_t))     ! |run| < 2**31, |i32| < 2**31: no overflow
  end do
  st = wr_reduce(ctx, i32, p32, 50_c_size_t, WR_INT32, WR_PROD)
  call ok(st == WR_SUCCESS .and. p32 == int(run, c_int32_t), 'reduce int32 PROD wraps')

  ! int64 SUM wraps modulo 2**64 (reference: add64, in 32-bit halves)
  do i = 1, n
    i64(i) = huge(1_c_int64_t) - int(i, c_int64_t) * 1000000007_c_int64_t
  end do
  s64ref = 0
  do i = 1, n
    s64ref = add64(s64ref, i64(i))
  end do
  st = wr_reduce(ctx, i64, s64, nn, WR_INT64, WR_SUM)
  call ok(st == WR_SUCCESS .and. s64 == s64ref, 'reduce int64 SUM wraps as two''s complement')
  st = wr_reduce(ctx, i64, s64, nn, WR_INT64, WR_BXOR)
  run = 0
  do i = 1, n
    run = ieor(run, i64(i))
  end do
  call ok(st == WR_SUCCESS .and. s64 == run, 'reduce int64 BXOR')

  ! uint32 through int32 bits: -1 is 2**32-1, the largest
  u32 = [5_c_int32_t, -1_c_int32_t]
  st = wr_reduce(ctx, u32, u32max, 2_c_size_t, WR_UINT32, WR_MAX)
  call ok(st == WR_SUCCESS .and. u32max == -1_c_int32_t, 'reduce uint32 MAX on int32 bit patterns')

  ! ---- scans -----------------------------------------------------------------
  st = wr_scan(ctx, x, dscan, nn, WR_DOUBLE, WR_SUM)
  dref = 0
  j = 0
  do i = 1, n
    dref = dref + x(i)
    if (dscan(i) /= dref) j = j + 1
  end do
  call ok(st == WR_SUCCESS .and. j == 0, 'scan real(8) SUM: every prefix exact')
  st = wr_scan(ctx, f, fsum, nn, WR_FLOAT, WR_MAX)
  j = 0
  do i = 1, n
    if (fsum(i) /= maxval(f(1:i))) j = j + 1
  end do
  call ok(st == WR_SUCCESS .and. j == 0, 'scan real(4) MAX')
  st = wr_scan(ctx, i32, scan32, nn, WR_INT32, WR_SUM)
  run = 0
  j = 0
  do i = 1, n
    run = wrap32(run + i32(i))
    if (scan32(i) /= int(run, c_int32_t)) j = j + 1
  end do
  call ok(st == WR_SUCCESS .and. j == 0, 'scan int32 SUM wraps like the reference')
  st = wr_exscan(ctx, i64, ex64, nn, WR_INT64, WR_SUM)
  run64 = 0
  j = 0
  do i = 1, n
    if (ex64(i) /= run64) j = j + 1
    run64 = add64(run64, i64(i))
  end do
  call ok(st == WR_SUCCESS .and. j == 0 .and. ex64(1) == 0, 'exscan int64 SUM: 0 first, then the prefixes')
  st = wr_exscan(ctx, x, dscan, nn, WR_DOUBLE, WR_MIN)
  call ok(st == WR_SUCCESS .and. ieee_class(dscan(1)) == ieee_positive_inf .and. &
          dscan(n) == minval(x(1:n - 1)), 'exscan real(8) MIN: +inf first')
  st = wr_exscan(ctx, i32, scan32, nn, WR_INT32, WR_PROD)
  call ok(st == WR_SUCCESS .and. scan32(1) == 1, 'exscan int32 PROD: 1 first')

  ! ---- rows and segments ------------------------------------------------------
  do j = 1, rows
    do i = 1, cols
      m(i, j) = real(i - 3 * j, c_double)
    end do
  end do
  st = wr_reduce_rows(ctx, m, mrows, int(rows, c_size_t), int(cols, c_size_t), WR_DOUBLE, WR_SUM)
  call ok(st == WR_SUCCESS .and. all(mrows == sum(m, dim=1)), &
          'reduce_rows: C''s rows are the columns of m(cols, rows)')
  st = wr_reduce_rows(ctx, m, mrows, int(rows, c_size_t), int(cols, c_size_t), WR_DOUBLE, WR_MAX)
  call ok(st == WR_SUCCESS .and. all(mrows == maxval(m, dim=1)), 'reduce_rows MAX')
  offsets = [0_c_size_t, 10_c_size_t, 10_c_size_t, 500_c_size_t, 2999_c_size_t, nn]
  st = wr_reduce_segments(ctx, i64, seg, 5_c_size_t, offsets, WR_INT64, WR_MIN)
  j = 0
  do i = 1, 5
    if (offsets(i) == offsets(i + 1)) then
      if (seg(i) /= huge(1_c_int64_t)) j = j + 1
    else if (seg(i) /= minval(i64(offsets(i) + 1:offsets(i + 1)))) then
      j = j + 1
    end if
  end do
  call ok(st == WR_SUCCESS .and. j == 0, 'reduce_segments int64 MIN, an empty segment gives huge()')
  ! the scan inside each segment, in place on a copy: a running sum that
  ! starts again at every segment
  ex64 = i64
  st = wr_scan_segments(ctx, ex64, ex64, 5_c_size_t, offsets, WR_INT64, WR_SUM)
  j = 0
  do i = 1, 5
    if (offsets(i) < offsets(i + 1)) then
      run64 = 0
      do k = int(offsets(i)) + 1, int(offsets(i + 1))
        run64 = add64(run64, i64(k))
        if (ex64(k) /= run64) j = j + 1
      end do
    end if
  end do
  call ok(st == WR_SUCCESS .and. j == 0, 'scan_segments int64 SUM in place: each segment''s running sum')

  ! ---- argmin / argmax ----------------------------------------------------------
  x(100) = 5000
  x(2000) = 5000
  x(7) = -5000
  x(2500) = -5000
  st = wr_argmax(ctx, x, nn, WR_DOUBLE, at, dmax)
  call ok(st == WR_SUCCESS .and. at == maxloc(x, dim=1) - 1 .and. at == 99 .and. dmax == 5000, &
          'argmax real(8): first of two maxima, index from 0')
  st = wr_argmin(ctx, x, nn, WR_DOUBLE, at)
  call ok(st == WR_SUCCESS .and. at == minloc(x, dim=1) - 1 .and. at == 6, &
          'argmin real(8) without value: first minimum')
  st = wr_argmin(ctx, i32, nn, WR_INT32, at, s32)
  call ok(st == WR_SUCCESS .and. at == minloc(i32, dim=1) - 1 .and. s32 == minval(i32), &
          'argmin int32 with value')
  at = 77
  st = wr_argmax(ctx, x, 0_c_size_t, WR_DOUBLE, at)
  call ok(st == WR_ERR_EMPTY .and. at == 77, 'argmax of nothing: WR_ERR_EMPTY, index untouched')

  ! ---- dot products and norms ---------------------------------------------------
  block
    real(c_double) :: v(4) = [3.0_c_double, -4.0_c_double, 0.0_c_double, 12.0_c_double]
    real(c_double) :: w(4) = [1.0_c_double, 1.0_c_double, 1.0_c_double, 1.0_c_double]
    real(c_double) :: r, rows(2)
    real(c_float) :: fv(2) = [3.0e30_c_float, 4.0e30_c_float], fr
    type(wr_exact_sum) :: parts(WR_NRM2_PARTS)
    integer(c_size_t) :: k
    st = wr_dot(ctx, v, w, r, 4_c_size_t, WR_DOUBLE)
    call ok(st == WR_SUCCESS .and. r == 11, 'wr_dot real(8)')
    st = wr_nrm2(ctx, v, r, 4_c_size_t, WR_DOUBLE)
    call ok(st == WR_SUCCESS .and. r == 13, 'wr_nrm2 real(8): 13')
    st = wr_nrm2(ctx, fv, fr, 2_c_size_t, WR_FLOAT)
    call ok(st == WR_SUCCESS .and. abs(fr - 5.0e30_c_float) < 1.0e24_c_float, 'wr_nrm2 real(4) of 3e30, 4e30: 5e30')
    st = wr_asum(ctx, v, r, 4_c_size_t, WR_DOUBLE)
    call ok(st == WR_SUCCESS .and. r == 19, 'wr_asum real(8)')
    st = wr_argmax_abs(ctx, v, 4_c_size_t, WR_DOUBLE, k, r)
    call ok(st == WR_SUCCESS .and. k == 3 .and. r == 12, 'wr_argmax_abs: index from 0, signed value')
    st = wr_dot_rows(ctx, v, w, rows, 2_c_size_t, 2_c_size_t, WR_DOUBLE)
    call ok(st == WR_SUCCESS .and. rows(1) == -1 .and. rows(2) == 12, 'wr_dot_rows 2 x 2')
    do k = 1, WR_NRM2_PARTS
      st = wr_exact_sum_init(parts(k))
    end do
    st = wr_nrm2_exact(ctx, v, 4_c_size_t, WR_DOUBLE, parts)
    if (st == WR_SUCCESS) st = wr_exact_norm_round(parts, WR_DOUBLE, r)
    call ok(st == WR_SUCCESS .and. r == 13, 'wr_nrm2_exact and wr_exact_norm_round: 13')
    st = wr_dot(ctx, i32, i32, s32, 4_c_size_t, WR_INT32)
    call ok(st == WR_ERR_UNSUPPORTED, 'wr_dot on int32: WR_ERR_UNSUPPORTED')
  end block

  ! ---- errors and their text ------------------------------------------------------
  d = 42
  st = wr_reduce(ctx, x, d, nn, WR_DOUBLE, WR_BXOR)
  text = wr_context_error(ctx)
  call ok(st == WR_ERR_UNSUPPORTED .and. d == 42 .and. len(text) > 0, &
          'bitwise op on real(8): WR_ERR_UNSUPPORTED, "' // text // '"')
  st = wr_reduce(ctx, x, d, nn, 99_c_int, WR_SUM)
  call ok(st == WR_ERR_INVALID_ARG .and. wr_context_error(ctx) /= '', 'bad type: WR_ERR_INVALID_ARG')
  st = wr_reduce(ctx, x, d, nn, WR_DOUBLE, WR_SUM)
  call ok(st == WR_SUCCESS .and. wr_context_error(ctx) == '', 'a success clears wr_context_error')
  call wr_context_set_error(ctx, 'set from Fortran')
  call ok(wr_context_error(ctx) == 'set from Fortran', 'wr_context_set_error sets the text')
  call wr_context_set_error(ctx)
  call ok(wr_context_error(ctx) == '', 'wr_context_set_error without a reason clears it')

  ! ---- float modes and streams ------------------------------------------------------
  call get_environment_variable('WARPRED_FLOAT_MODE', length=i)
  if (i == 0) then
    st = wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE)
    call ok(st == WR_SUCCESS .and. wr_context_float_mode(ctx) == WR_FLOAT_REPRODUCIBLE, &
            'wr_context_set_float_mode(REPRODUCIBLE), read back')
    st = wr_context_set_float_mode(ctx, WR_FLOAT_FAST)
    call ok(st == WR_SUCCESS .and. wr_context_float_mode(ctx) == WR_FLOAT_FAST, &
            'wr_context_set_float_mode(FAST), read back')
  else
    call skip(2, 'WARPRED_FLOAT_MODE is set (it overrides the context''s mode)')
  end if
  ! the exact sum of 1e308, 1, -1e308 is 1: an ordinary double sum loses the 1
  big = [1.0e308_c_double, 1.0_c_double, -1.0e308_c_double]
  st = wr_exact_sum_init(es)
  if (st == WR_SUCCESS) st = wr_reduce_exact(ctx, big, 3_c_size_t, WR_DOUBLE, es)
  if (st == WR_SUCCESS) st = wr_exact_sum_round(es, WR_DOUBLE, d)
  call ok(st == WR_SUCCESS .and. d == 1.0_c_double, 'wr_reduce_exact + wr_exact_sum_round: 1e308 + 1 - 1e308 = 1')
  st = wr_exact_sum_init(es2)
  if (st == WR_SUCCESS) st = wr_reduce_exact(ctx, big(1:2), 2_c_size_t, WR_DOUBLE, es2)
  if (st == WR_SUCCESS) st = wr_exact_sum_init(es)
  if (st == WR_SUCCESS) st = wr_reduce_exact(ctx, big(3:3), 1_c_size_t, WR_DOUBLE, es)
  if (st == WR_SUCCESS) st = wr_exact_sum_merge(es, es2)
  if (st == WR_SUCCESS) st = wr_exact_sum_round(es, WR_FLOAT, fs)
  call ok(st == WR_SUCCESS .and. fs == 1.0_c_float, 'wr_exact_sum_merge of two pieces, rounded to real(4): 1')
  call get_environment_variable('WARPRED_FLOAT_MODE', length=i)
  if (i == 0) then
    st = wr_context_set_float_mode(ctx, WR_FLOAT_REPRODUCIBLE)
    if (st == WR_SUCCESS) st = wr_reduce(ctx, big, d, 3_c_size_t, WR_DOUBLE, WR_SUM)
    call ok(st == WR_SUCCESS .and. d == 1.0_c_double, 'reproducible mode: wr_reduce of 1e308, 1, -1e308 is 1')
    st = wr_context_set_float_mode(ctx, WR_FLOAT_FAST)
  else
    call skip(1, 'WARPRED_FLOAT_MODE is set (it overrides the context''s mode)')
  end if
  st = wr_context_set_float_mode(ctx, 7_c_int)
  call ok(st == WR_ERR_INVALID_ARG .and. wr_context_error(ctx) /= '', &
          'wr_context_set_float_mode(7): WR_ERR_INVALID_ARG')
  call ok(wr_context_float_mode(c_null_ptr) == WR_FLOAT_FAST, 'wr_context_float_mode(NULL): FAST')
  ! c_null_ptr, the library's own streams: success on every context
  st = wr_context_set_stream(ctx, c_null_ptr)
  call ok(st == WR_SUCCESS, 'wr_context_set_stream(ctx, c_null_ptr): the own streams, on any context')
  call ok(wr_context_synchronize(ctx) == WR_SUCCESS, 'wr_context_synchronize')
  call ok(wr_context_set_stream(c_null_ptr, c_null_ptr) == WR_ERR_INVALID_ARG .and. &
          wr_context_synchronize(c_null_ptr) == WR_ERR_INVALID_ARG, &
          'wr_context_set_stream and _synchronize of c_null_ptr: WR_ERR_INVALID_ARG')

  deallocate (text)      ! the main program's locals are not freed at the end (LeakSanitizer)
  call wr_context_destroy(ctx)
  call wr_context_destroy(c_null_ptr)
  call ok(.true., 'wr_context_destroy, also of c_null_ptr')
  if (checks /= planned) print '(a, i0, a, i0)', '# planned ', planned, ', ran ', checks

contains

  subroutine ok(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (cond) then
      print '(a, i0, 2a)', 'ok ', checks, ' - ', what
    else
      print '(a, i0, 2a)', 'not ok ', checks, ' - ', what
    end if
  end subroutine ok

  subroutine skip(count, why)
    integer, intent(in) :: count
    character(len=*), intent(in) :: why
    integer :: k
    do k = 1, count
      checks = checks + 1
      print '(a, i0, 2a)', 'ok ', checks, ' # skip ', why
    end do
  end subroutine skip

  function version_string() result(s)
    character(len=32) :: buf
    character(len=:), allocatable :: s
    write (buf, '(i0, ".", i0, ".", i0)') WR_VERSION_MAJOR, WR_VERSION_MINOR, WR_VERSION_PATCH
    s = trim(buf)
  end function version_string

  ! v modulo 2**32 as a signed 32-bit value (v well inside int64's range).
  pure function wrap32(v) result(r)
    integer(c_int64_t), intent(in) :: v
    integer(c_int64_t) :: r
    r = modulo(v, 2_c_int64_t**32)
    if (r >= 2_c_int64_t**31) r = r - 2_c_int64_t**32
  end function wrap32

  ! a + b modulo 2**64 as two's complement, without signed overflow: the
  ! 32-bit halves are added apart and the bits put back together.
  pure function add64(a, b) result(r)
    integer(c_int64_t), intent(in) :: a, b
    integer(c_int64_t) :: r, lo, hi
    lo = iand(a, mask32) + iand(b, mask32)
    hi = iand(shiftr(a, 32) + shiftr(b, 32) + shiftr(lo, 32), mask32)
    r = ior(shiftl(hi, 32), iand(lo, mask32))
  end function add64
end program fortran_api

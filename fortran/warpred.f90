! warpred.f90 -- the Fortran module `warpred`: libwarpred's C API
! (warpred.h) through ISO_C_BINDING.
!
!   use, intrinsic :: iso_c_binding
!   use warpred
!   type(c_ptr) :: ctx
!   real(c_double) :: x(1000), s
!   if (wr_context_create(ctx, WR_BACKEND_AUTO) /= WR_SUCCESS) error stop wr_context_error(c_null_ptr)
!   if (wr_reduce(ctx, x, s, size(x, kind=c_size_t), WR_DOUBLE, WR_SUM) /= WR_SUCCESS) &
!       error stop wr_context_error(ctx)
!   call wr_context_destroy(ctx)
!
! Every function of warpred.h, with the C names and arguments:
!  - the enums are integer(c_int) named constants, statuses the functions'
!    integer(c_int) results;
!  - a context (wr_context *) is a type(c_ptr);
!  - counts, sizes, indexes and offsets are integer(c_size_t), and indexes
!    and offsets count from 0, as in C (wr_argmax's index of x(1) is 0);
!    outputs are intent(inout), as a failed call leaves them untouched;
!  - buffers are assumed-type: an array of any type and kind (`in` and
!    array outputs are assumed-size, type(*) :: in(*)), or a scalar for the
!    one-element outputs (wr_reduce's out, wr_argmin's value).  The element
!    type is the `type` argument's business, as in C: WR_DOUBLE wants
!    real(c_double), WR_INT32 and WR_UINT32 integer(c_int32_t), ...  A
!    non-contiguous array section is passed as a contiguous copy (copied
!    back for outputs) by the compiler;
!  - the strings (wr_version, wr_status_string, wr_context_describe,
!    wr_context_error) come back as character(len=:), allocatable, and
!    wr_context_set_error takes a Fortran string (absent: NULL).
! The library allows a scan in place (out == in), but Fortran does not let
! one array be passed as two arguments of which one is modified: pass two.
module warpred
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_ptr, c_char, c_double, &
       c_null_char, c_associated, c_f_pointer
  implicit none
  private

  ! WR_VERSION_* of the warpred.h this module was written for.
  integer(c_int), parameter, public :: WR_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: WR_VERSION_MINOR = 1
  integer(c_int), parameter, public :: WR_VERSION_PATCH = 0

  ! wr_status
  integer(c_int), parameter, public :: WR_SUCCESS = 0
  integer(c_int), parameter, public :: WR_ERR_INVALID_ARG = 1
  integer(c_int), parameter, public :: WR_ERR_UNSUPPORTED = 2
  integer(c_int), parameter, public :: WR_ERR_EMPTY = 3
  integer(c_int), parameter, public :: WR_ERR_NO_BACKEND = 4
  integer(c_int), parameter, public :: WR_ERR_NO_MEMORY = 5
  integer(c_int), parameter, public :: WR_ERR_DEVICE = 6

  ! wr_type
  integer(c_int), parameter, public :: WR_INT32 = 0
  integer(c_int), parameter, public :: WR_INT64 = 1
  integer(c_int), parameter, public :: WR_UINT32 = 2
  integer(c_int), parameter, public :: WR_UINT64 = 3
  integer(c_int), parameter, public :: WR_FLOAT = 4
  integer(c_int), parameter, public :: WR_DOUBLE = 5

  ! wr_op
  integer(c_int), parameter, public :: WR_SUM = 0
  integer(c_int), parameter, public :: WR_PROD = 1
  integer(c_int), parameter, public :: WR_MIN = 2
  integer(c_int), parameter, public :: WR_MAX = 3
  integer(c_int), parameter, public :: WR_BAND = 4
  integer(c_int), parameter, public :: WR_BOR = 5
  integer(c_int), parameter, public :: WR_BXOR = 6

  ! wr_backend
  integer(c_int), parameter, public :: WR_BACKEND_AUTO = 0
  integer(c_int), parameter, public :: WR_BACKEND_CPU = 1
  integer(c_int), parameter, public :: WR_BACKEND_CUDA = 2
  integer(c_int), parameter, public :: WR_BACKEND_OPENMP_TARGET = 3

  ! wr_float_mode
  integer(c_int), parameter, public :: WR_FLOAT_FAST = 0
  integer(c_int), parameter, public :: WR_FLOAT_REPRODUCIBLE = 1

  ! wr_exact_sum: an exact float/double sum in progress (contents private)
  integer(c_int), parameter, public :: WR_EXACT_SUM_BYTES = 544
  type, bind(C), public :: wr_exact_sum
    real(c_double), private :: opaque_(WR_EXACT_SUM_BYTES / 8)
  end type wr_exact_sum
  ! wr_nrm2_exact's parts: type(wr_exact_sum) :: parts(WR_NRM2_PARTS)
  integer(c_int), parameter, public :: WR_NRM2_PARTS = 3

  public :: wr_version, wr_status_string, wr_type_size
  public :: wr_context_create, wr_context_destroy, wr_context_has_backend
  public :: wr_context_last_backend, wr_context_describe, wr_context_error
  public :: wr_context_set_error
  public :: wr_reduce, wr_scan, wr_exscan, wr_reduce_rows, wr_reduce_segments
  public :: wr_scan_segments, wr_exscan_segments
  public :: wr_argmin, wr_argmax
  public :: wr_context_set_stream, wr_context_synchronize
  public :: wr_context_set_float_mode, wr_context_float_mode
  public :: wr_exact_sum_init, wr_reduce_exact, wr_exact_sum_merge, wr_exact_sum_round
  public :: wr_scan_exact, wr_exscan_exact
  public :: wr_dot, wr_nrm2, wr_asum, wr_argmax_abs, wr_dot_rows
  public :: wr_dot_exact, wr_asum_exact, wr_nrm2_exact, wr_exact_norm_round

  interface
    ! size_t wr_type_size(wr_type t)
    function wr_type_size(type) bind(C, name="wr_type_size") result(bytes)
      import :: c_int, c_size_t
      integer(c_int), value :: type
      integer(c_size_t) :: bytes
    end function wr_type_size

    ! wr_status wr_context_create(wr_context **ctx, wr_backend backend)
    function wr_context_create(ctx, backend) bind(C, name="wr_context_create") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: ctx
      integer(c_int), value :: backend
      integer(c_int) :: status
    end function wr_context_create

    ! void wr_context_destroy(wr_context *ctx)
    subroutine wr_context_destroy(ctx) bind(C, name="wr_context_destroy")
      import :: c_ptr
      type(c_ptr), value :: ctx
    end subroutine wr_context_destroy

    ! int wr_context_has_backend(const wr_context *ctx, wr_backend b)
    function wr_context_has_backend(ctx, b) bind(C, name="wr_context_has_backend") result(has)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: b
      integer(c_int) :: has
    end function wr_context_has_backend

    ! wr_backend wr_context_last_backend(const wr_context *ctx)
    function wr_context_last_backend(ctx) bind(C, name="wr_context_last_backend") result(b)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int) :: b
    end function wr_context_last_backend

    ! wr_status wr_reduce(wr_context *ctx, const void *in, void *out,
    !                     size_t count, wr_type type, wr_op op)
    function wr_reduce(ctx, in, out, count, type, op) bind(C, name="wr_reduce") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_reduce

    ! wr_status wr_scan(wr_context *ctx, const void *in, void *out,
    !                   size_t count, wr_type type, wr_op op)   -- inclusive
    function wr_scan(ctx, in, out, count, type, op) bind(C, name="wr_scan") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_scan

    ! wr_status wr_exscan(wr_context *ctx, const void *in, void *out,
    !                     size_t count, wr_type type, wr_op op)  -- exclusive
    function wr_exscan(ctx, in, out, count, type, op) bind(C, name="wr_exscan") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_exscan

    ! wr_status wr_reduce_rows(wr_context *ctx, const void *in, void *out,
    !                          size_t rows, size_t cols, wr_type type, wr_op op)
    ! C's row-major rows x cols matrix is Fortran's in(cols, rows): out(r)
    ! reduces the column in(:, r).
    function wr_reduce_rows(ctx, in, out, rows, cols, type, op) &
         bind(C, name="wr_reduce_rows") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: rows, cols
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_reduce_rows

    ! wr_status wr_reduce_segments(wr_context *ctx, const void *in, void *out,
    !                              size_t nsegments, const size_t *offsets,
    !                              wr_type type, wr_op op)
    ! Segment s (1-based here) is in(offsets(s)+1 : offsets(s+1)).
    function wr_reduce_segments(ctx, in, out, nsegments, offsets, type, op) &
         bind(C, name="wr_reduce_segments") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: nsegments
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_reduce_segments

    ! wr_status wr_scan_segments(wr_context *ctx, const void *in, void *out,
    !                            size_t nsegments, const size_t *offsets,
    !                            wr_type type, wr_op op)
    ! The scan inside each segment (offsets as wr_reduce_segments); out may be in.
    function wr_scan_segments(ctx, in, out, nsegments, offsets, type, op) &
         bind(C, name="wr_scan_segments") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: nsegments
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_scan_segments

    ! wr_status wr_exscan_segments(...): the same, exclusive.
    function wr_exscan_segments(ctx, in, out, nsegments, offsets, type, op) &
         bind(C, name="wr_exscan_segments") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: nsegments
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_int), value :: type, op
      integer(c_int) :: status
    end function wr_exscan_segments

    ! wr_status wr_argmin(wr_context *ctx, const void *in, size_t count,
    !                     wr_type type, size_t *index, void *value)
    function wr_argmin(ctx, in, count, type, index, value) bind(C, name="wr_argmin") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_size_t), intent(inout) :: index
      type(*), intent(inout), optional :: value
      integer(c_int) :: status
    end function wr_argmin

    ! wr_status wr_argmax(wr_context *ctx, const void *in, size_t count,
    !                     wr_type type, size_t *index, void *value)
    function wr_argmax(ctx, in, count, type, index, value) bind(C, name="wr_argmax") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_size_t), intent(inout) :: index
      type(*), intent(inout), optional :: value
      integer(c_int) :: status
    end function wr_argmax

    ! wr_status wr_context_set_stream(wr_context *ctx, void *stream)
    ! stream: a cudaStream_t (from CUDA Fortran, or c_null_ptr: the own).
    function wr_context_set_stream(ctx, stream) bind(C, name="wr_context_set_stream") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr), value :: stream
      integer(c_int) :: status
    end function wr_context_set_stream

    ! wr_status wr_context_synchronize(wr_context *ctx)
    function wr_context_synchronize(ctx) bind(C, name="wr_context_synchronize") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int) :: status
    end function wr_context_synchronize

    ! wr_status wr_context_set_float_mode(wr_context *ctx, wr_float_mode mode)
    function wr_context_set_float_mode(ctx, mode) bind(C, name="wr_context_set_float_mode") &
         result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: mode
      integer(c_int) :: status
    end function wr_context_set_float_mode

    ! wr_float_mode wr_context_float_mode(const wr_context *ctx)
    function wr_context_float_mode(ctx) bind(C, name="wr_context_float_mode") result(mode)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int) :: mode
    end function wr_context_float_mode

    ! wr_status wr_exact_sum_init(wr_exact_sum *sum)
    function wr_exact_sum_init(sum) bind(C, name="wr_exact_sum_init") result(status)
      import :: c_int, wr_exact_sum
      type(wr_exact_sum), intent(inout) :: sum
      integer(c_int) :: status
    end function wr_exact_sum_init

    ! wr_status wr_reduce_exact(wr_context *ctx, const void *in, size_t count, wr_type type,
    !                           wr_exact_sum *sum)
    function wr_reduce_exact(ctx, in, count, type, sum) bind(C, name="wr_reduce_exact") result(status)
      import :: c_int, c_ptr, c_size_t, wr_exact_sum
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(wr_exact_sum), intent(inout) :: sum
      integer(c_int) :: status
    end function wr_reduce_exact

    ! wr_status wr_exact_sum_merge(wr_exact_sum *sum, const wr_exact_sum *other)
    function wr_exact_sum_merge(sum, other) bind(C, name="wr_exact_sum_merge") result(status)
      import :: c_int, wr_exact_sum
      type(wr_exact_sum), intent(inout) :: sum
      type(wr_exact_sum), intent(in) :: other
      integer(c_int) :: status
    end function wr_exact_sum_merge

    ! wr_status wr_exact_sum_round(const wr_exact_sum *sum, wr_type type, void *out)
    function wr_exact_sum_round(sum, type, out) bind(C, name="wr_exact_sum_round") result(status)
      import :: c_int, wr_exact_sum
      type(wr_exact_sum), intent(in) :: sum
      integer(c_int), value :: type
      type(*), intent(inout) :: out
      integer(c_int) :: status
    end function wr_exact_sum_round

    ! wr_status wr_scan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
    !                         const wr_exact_sum *base)
    ! base: pass c_null_ptr for nothing before, or c_loc of a wr_exact_sum
    function wr_scan_exact(ctx, in, out, count, type, base) bind(C, name="wr_scan_exact") result(status)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(c_ptr), value :: base
      integer(c_int) :: status
    end function wr_scan_exact

    ! wr_status wr_exscan_exact(wr_context *ctx, const void *in, void *out, size_t count, wr_type type,
    !                           const wr_exact_sum *base)
    function wr_exscan_exact(ctx, in, out, count, type, base) bind(C, name="wr_exscan_exact") result(status)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(c_ptr), value :: base
      integer(c_int) :: status
    end function wr_exscan_exact

    ! ---- dot products and norms (since 0.2) ----
    ! wr_status wr_dot(wr_context *ctx, const void *x, const void *y, void *out, size_t count, wr_type type)
    function wr_dot(ctx, x, y, out, count, type) bind(C, name="wr_dot") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*), y(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_int) :: status
    end function wr_dot

    ! wr_status wr_nrm2(wr_context *ctx, const void *x, void *out, size_t count, wr_type type)
    function wr_nrm2(ctx, x, out, count, type) bind(C, name="wr_nrm2") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_int) :: status
    end function wr_nrm2

    ! wr_status wr_asum(wr_context *ctx, const void *x, void *out, size_t count, wr_type type)
    function wr_asum(ctx, x, out, count, type) bind(C, name="wr_asum") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*)
      type(*), intent(inout) :: out
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_int) :: status
    end function wr_asum

    ! wr_status wr_argmax_abs(wr_context *ctx, const void *in, size_t count, wr_type type,
    !                         size_t *index, void *value)
    ! index counts from 0; value is optional (absent: NULL)
    function wr_argmax_abs(ctx, in, count, type, index, value) bind(C, name="wr_argmax_abs") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: in(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      integer(c_size_t), intent(inout) :: index
      type(*), intent(inout), optional :: value
      integer(c_int) :: status
    end function wr_argmax_abs

    ! wr_status wr_dot_rows(wr_context *ctx, const void *x, const void *y, void *out,
    !                       size_t rows, size_t cols, wr_type type)
    ! row-major, as in C: a Fortran array x(cols, rows) has its rows contiguous
    function wr_dot_rows(ctx, x, y, out, rows, cols, type) bind(C, name="wr_dot_rows") result(status)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*), y(*)
      type(*), intent(inout) :: out(*)
      integer(c_size_t), value :: rows, cols
      integer(c_int), value :: type
      integer(c_int) :: status
    end function wr_dot_rows

    ! wr_status wr_dot_exact(wr_context *ctx, const void *x, const void *y, size_t count, wr_type type,
    !                        wr_exact_sum *sum)
    function wr_dot_exact(ctx, x, y, count, type, sum) bind(C, name="wr_dot_exact") result(status)
      import :: c_int, c_size_t, c_ptr, wr_exact_sum
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*), y(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(wr_exact_sum), intent(inout) :: sum
      integer(c_int) :: status
    end function wr_dot_exact

    ! wr_status wr_asum_exact(wr_context *ctx, const void *x, size_t count, wr_type type, wr_exact_sum *sum)
    function wr_asum_exact(ctx, x, count, type, sum) bind(C, name="wr_asum_exact") result(status)
      import :: c_int, c_size_t, c_ptr, wr_exact_sum
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(wr_exact_sum), intent(inout) :: sum
      integer(c_int) :: status
    end function wr_asum_exact

    ! wr_status wr_nrm2_exact(wr_context *ctx, const void *x, size_t count, wr_type type,
    !                         wr_exact_sum parts[WR_NRM2_PARTS])
    function wr_nrm2_exact(ctx, x, count, type, parts) bind(C, name="wr_nrm2_exact") result(status)
      import :: c_int, c_size_t, c_ptr, wr_exact_sum, WR_NRM2_PARTS
      type(c_ptr), value :: ctx
      type(*), intent(in) :: x(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: type
      type(wr_exact_sum), intent(inout) :: parts(WR_NRM2_PARTS)
      integer(c_int) :: status
    end function wr_nrm2_exact

    ! wr_status wr_exact_norm_round(const wr_exact_sum parts[WR_NRM2_PARTS], wr_type type, void *out)
    function wr_exact_norm_round(parts, type, out) bind(C, name="wr_exact_norm_round") result(status)
      import :: c_int, wr_exact_sum, WR_NRM2_PARTS
      type(wr_exact_sum), intent(in) :: parts(WR_NRM2_PARTS)
      integer(c_int), value :: type
      type(*), intent(inout) :: out
      integer(c_int) :: status
    end function wr_exact_norm_round
  end interface

  ! The C functions behind the string wrappers below.
  interface
    function c_wr_version() bind(C, name="wr_version") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function c_wr_version

    function c_wr_status_string(status) bind(C, name="wr_status_string") result(s)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: s
    end function c_wr_status_string

    function c_wr_context_describe(ctx) bind(C, name="wr_context_describe") result(s)
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: s
    end function c_wr_context_describe

    function c_wr_context_error(ctx) bind(C, name="wr_context_error") result(s)
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: s
    end function c_wr_context_error

    subroutine c_wr_context_set_error(ctx, reason) bind(C, name="wr_context_set_error")
      import :: c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in), optional :: reason(*)
    end subroutine c_wr_context_set_error

    function c_strlen(s) bind(C, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

contains

  ! s = a copy of the NUL-terminated C string at p ("" for NULL).  A
  ! subroutine: gfortran keeps the length of a deferred-length function
  ! result that is assigned on in a static variable, which threads calling
  ! at once would share.
  subroutine get_string(p, s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable, intent(out) :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i

    if (.not. c_associated(p)) then
      allocate (character(len=0) :: s)
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end subroutine get_string

  ! const char *wr_version(void): the run-time library's "MAJOR.MINOR.PATCH".
  function wr_version() result(s)
    character(len=:), allocatable :: s
    call get_string(c_wr_version(), s)
  end function wr_version

  ! const char *wr_status_string(wr_status s)
  function wr_status_string(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    call get_string(c_wr_status_string(status), s)
  end function wr_status_string

  ! const char *wr_context_describe(const wr_context *ctx)
  function wr_context_describe(ctx) result(s)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: s
    call get_string(c_wr_context_describe(ctx), s)
  end function wr_context_describe

  ! const char *wr_context_error(const wr_context *ctx): the reason for the
  ! calling thread's last failed call on ctx ("" after a success); ctx may
  ! be c_null_ptr (the last failed wr_context_create).
  function wr_context_error(ctx) result(s)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: s
    call get_string(c_wr_context_error(ctx), s)
  end function wr_context_error

  ! void wr_context_set_error(const wr_context *ctx, const char *reason):
  ! reason absent (NULL) or '' marks the last call as successful.
  subroutine wr_context_set_error(ctx, reason)
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in), optional :: reason

    if (present(reason)) then
      call c_wr_context_set_error(ctx, reason // c_null_char)
    else
      call c_wr_context_set_error(ctx)
    end if
  end subroutine wr_context_set_error

end module warpred

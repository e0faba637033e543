# WR_CMAKE_PACKAGE: what the CMake package (cmake/local.am) needs: the
# pointer size its version file checks, and cmake for `make installcheck`
# to build tests/cmake-consumer (skipped when there is none).
AC_DEFUN([WR_CMAKE_PACKAGE], [
  AC_CHECK_SIZEOF([void *])
  AC_SUBST([WR_SIZEOF_VOID_P], [$ac_cv_sizeof_void_p])
  AC_ARG_VAR([CMAKE], [cmake, for `make installcheck' (tests/cmake-consumer)])
  AC_PATH_PROG([CMAKE], [cmake])
])

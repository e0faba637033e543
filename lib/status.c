/* status.c -- version, status text, type sizes. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "wr_internal.h"

const char *wr_version(void)
{
    return PACKAGE_VERSION;
}

const char *wr_status_string(wr_status s)
{
    switch (s) {
    case WR_SUCCESS:         return "success";
    case WR_ERR_INVALID_ARG: return "invalid argument";
    case WR_ERR_UNSUPPORTED: return "operation not supported for this type";
    case WR_ERR_EMPTY:       return "no elements (argmin/argmax of an empty array)";
    case WR_ERR_NO_BACKEND:  return "backend not available";
    case WR_ERR_NO_MEMORY:   return "out of memory";
    case WR_ERR_DEVICE:      return "device or driver call failed";
    }
    return "unknown status";
}

size_t wr_type_size(wr_type t)
{
    switch (t) {
    case WR_INT32: case WR_UINT32: case WR_FLOAT: return 4;
    case WR_INT64: case WR_UINT64: case WR_DOUBLE: return 8;
    }
    return 0;
}

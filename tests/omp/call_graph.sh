#!/bin/sh
# call_graph.sh -- the source files of the omptarget plugin call each other
# without a circle (tests/call_graph.sh): the table calls the operations,
# the operations the chunk planner and the memory, the memory the device
# detection, never back.  Run from the build tree.
top=${WR_TOP_SRCDIR:-$(dirname "$0")/../..}
exec sh "$top/tests/call_graph.sh" omp/ omp/.libs/warpred_omptarget_la-*.o

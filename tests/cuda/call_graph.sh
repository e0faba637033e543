#!/bin/sh
# call_graph.sh -- the source files of the CUDA plugin call each other
# without a circle (tests/call_graph.sh): the table calls the operations,
# the operations the context's stream, the pool, the staging and the
# launchers, the stream the pool and the launchers, and every launcher
# launch.cu alone, never back.  Run from the build tree.
top=${WR_TOP_SRCDIR:-$(dirname "$0")/../..}
exec sh "$top/tests/call_graph.sh" cuda/ cuda/.libs/*.o

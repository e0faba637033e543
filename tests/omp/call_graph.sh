#!/bin/sh
# call_graph.sh -- the source files of the omptarget plugin call each other
# without a circle (tools/file-call-graph: file A calls file B when a
# symbol A's object leaves undefined is one B's object defines): the table
# calls the operations, the operations the chunk planner and the memory,
# the memory the device detection, never back.  Run from the build tree.
top=${WR_TOP_SRCDIR:-$(dirname "$0")/../..}
if ! command -v python3 >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 or nm not found"
    exit 0
fi
set -- omp/.libs/warpred_omptarget_la-*.o
if [ ! -f "$1" ]; then
    echo "1..0 # SKIP the plugin's objects are not built"
    exit 0
fi
echo "1..1"
out=$(python3 "$top/tools/file-call-graph" "$@" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
    echo "ok 1 - omp/: no two files call each other in a circle"
else
    echo "not ok 1 - omp/: files call each other in a circle"
fi

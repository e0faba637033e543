#!/bin/sh
# call_graph.sh DIR OBJ... -- the TAP check that the source files of a
# plugin (DIR: omp/, cuda/; OBJ: its built objects) call each other without
# a circle (tools/file-call-graph: file A calls file B when a symbol A's
# object leaves undefined is one B's object defines).  Run from the build
# tree by tests/omp/call_graph.sh and tests/cuda/call_graph.sh.
top=${WR_TOP_SRCDIR:-$(dirname "$0")/..}
dir=$1
shift
if ! command -v python3 >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 or nm not found"
    exit 0
fi
if [ ! -f "$1" ]; then
    echo "1..0 # SKIP the plugin's objects are not built"
    exit 0
fi
echo "1..1"
out=$(python3 "$top/tools/file-call-graph" "$@" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
    echo "ok 1 - $dir: no two files call each other in a circle"
else
    echo "not ok 1 - $dir: files call each other in a circle"
fi

#!/bin/sh
# omp_offload.sh -- examples/omp_offload as a TAP test: once on an AUTO
# context (cuda on a GPU machine where the CUDA plugin is found, else cpu),
# once on the omptarget backend.  Run from the build tree (make check) or
# with the paths given:
#   WR_OMP_OFFLOAD_EXAMPLE  the program (default: ./examples/omp_offload)
#   WR_OMPT_PLUGIN_DIR      the directory of warpred_omptarget.so
#                           (default: ./omp/.libs)
prog=${WR_OMP_OFFLOAD_EXAMPLE:-./examples/omp_offload}
ompdir=${WR_OMPT_PLUGIN_DIR:-$(pwd)/omp/.libs}

echo 1..2
out=$("$prog" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
    echo "ok 1 - omp_offload on an AUTO context"
else
    echo "not ok 1 - omp_offload on an AUTO context: exit status $rc"
fi

out=$(WARPRED_BACKEND=omptarget WARPRED_PLUGIN_DIR=$ompdir "$prog" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
case $out in
    *"ran on omptarget: ok"*) ran=1 ;;
    *) ran=0 ;;
esac
if [ $rc -eq 0 ] && [ $ran -eq 1 ]; then
    echo "ok 2 - omp_offload with WARPRED_BACKEND=omptarget"
else
    echo "not ok 2 - omp_offload with WARPRED_BACKEND=omptarget: exit status $rc"
fi

#!/bin/sh
# simt_check.sh -- the nvptx code of the omptarget plugin (and of the
# benchmark's and the example's target regions) holds none of the patterns
# that GCC's nvptx SIMT lanes get wrong on a GPU (tools/nvptx-simt-check):
# a soft-stack frame taken inside a simd loop, a 16-byte access to an
# 8-byte aligned lane stack, a frame its lanes would share.  Those run on
# the host fallback here without fault, so only this check sees them.
# Run from the build tree.
top=${WR_TOP_SRCDIR:-$(dirname "$0")/../..}
if ! command -v python3 >/dev/null 2>&1 || ! command -v strings >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 or strings not found"
    exit 0
fi
set -- omp/.libs/warpred_omptarget.so bench/.libs/warpred-bench examples/.libs/omp_offload
echo "1..$#"
n=0
for f in "$@"; do
    n=$((n + 1))
    if [ ! -f "$f" ]; then
        echo "ok $n - $f # SKIP not built"
        continue
    fi
    out=$(python3 "$top/tools/nvptx-simt-check" "$f" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/# /'
    case $rc in
        0) echo "ok $n - $f: no SIMT hazard in its nvptx code" ;;
        2) echo "ok $n - $f # SKIP no nvptx code" ;;
        *) echo "not ok $n - $f: SIMT hazards in its nvptx code" ;;
    esac
done

#!/bin/sh
# exports.sh -- libwarpred.so exports exactly the wr_* functions: nothing but
# wr_* (`nm -D --defined-only`, as the issue asks), and every function that
# warpred.h declares with WR_API.  Runs from the top build directory.
lib=lib/.libs/libwarpred.so
hdr=${srcdir:-.}/lib/warpred.h
NM=${NM:-nm}

if ! command -v "$NM" >/dev/null 2>&1; then
    echo "1..0 # SKIP $NM not found"
    exit 0
fi
if [ ! -f "$lib" ]; then
    echo "1..0 # SKIP $lib not built (a static-only build?)"
    exit 0
fi
echo "1..2"

# symbol names, without any @VERSION suffix
exported=$("$NM" -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)
others=$(printf '%s\n' "$exported" | grep -v '^wr_' | grep -v '^$')
if [ -z "$others" ]; then
    echo "ok 1 - $lib exports only wr_* symbols ($(printf '%s\n' "$exported" | grep -c .) of them)"
else
    echo "not ok 1 - $lib exports only wr_* symbols"
    printf '%s\n' "$others" | sed 's/^/#     also exported: /'
fi

declared=$(grep 'WR_API' "$hdr" | grep -o 'wr_[a-z_0-9]*[ ]*(' | tr -d ' (' | sort -u)
missing=
for f in $declared; do
    printf '%s\n' "$exported" | grep -qx "$f" || missing="$missing $f"
done
if [ -n "$declared" ] && [ -z "$missing" ]; then
    echo "ok 2 - every function warpred.h declares is exported ($(printf '%s\n' "$declared" | grep -c .))"
else
    echo "not ok 2 - every function warpred.h declares is exported"
    echo "#     missing:${missing:- (no declaration found in $hdr)}"
fi

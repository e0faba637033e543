#!/bin/sh
# exports.sh -- libwarpred.so exports exactly the wr_* functions: nothing but
# wr_* (`nm -D --defined-only`, as the issue asks), every function that
# warpred.h declares with WR_API, each in a version node WARPRED_<major>.<minor>
# of lib/libwarpred.map, and every function that version script lists.
# Runs from the top build directory.
lib=lib/.libs/libwarpred.so
hdr=${srcdir:-.}/lib/warpred.h
map=${srcdir:-.}/lib/libwarpred.map
NM=${NM:-nm}

if ! command -v "$NM" >/dev/null 2>&1; then
    echo "1..0 # SKIP $NM not found"
    exit 0
fi
if [ ! -f "$lib" ]; then
    echo "1..0 # SKIP $lib not built (a static-only build?)"
    exit 0
fi
echo "1..4"

# defined symbols as NAME@@VERSION (NAME if unversioned), less the absolute
# symbols that name the version nodes themselves
symbols=$("$NM" -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sort -u)
# symbol names, without any @VERSION suffix
exported=$(printf '%s\n' "$symbols" | sed 's/@.*//' | sort -u)
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
    [ -z "$missing" ] || echo "#     (a new function goes in the next release's node of $map)"
fi

unversioned=$(printf '%s\n' "$symbols" | grep '^wr_' | grep -v '@@WARPRED_[0-9][0-9]*\.[0-9][0-9]*$')
nodes=$(printf '%s\n' "$symbols" | sed -n 's/^wr_.*@@//p' | sort -u | tr '\n' ' ' | sed 's/ $//')
if [ -z "$unversioned" ]; then
    echo "ok 3 - every wr_* symbol is in a version node WARPRED_<major>.<minor> ($nodes)"
else
    echo "not ok 3 - every wr_* symbol is in a version node WARPRED_<major>.<minor>"
    printf '%s\n' "$unversioned" | sed 's/^/#     not so: /'
fi

# the names the version script lists, its comments left out
listed=$(awk '{ out = ""; s = $0
               while (s != "") {
                   if (inc) { i = index(s, "*/"); if (!i) s = ""; else { s = substr(s, i + 2); inc = 0 } }
                   else { i = index(s, "/*"); if (!i) { out = out s; s = "" }
                          else { out = out substr(s, 1, i - 1) " "; s = substr(s, i + 2); inc = 1 } }
               }
               print out }' "$map" | grep -o 'wr_[a-z_0-9]*' | sort -u)
unexported=
for f in $listed; do
    printf '%s\n' "$exported" | grep -qx "$f" || unexported="$unexported $f"
done
if [ -n "$listed" ] && [ -z "$unexported" ]; then
    echo "ok 4 - every function $map lists is exported ($(printf '%s\n' "$listed" | grep -c .))"
else
    echo "not ok 4 - every function $map lists is exported"
    echo "#     not exported:${unexported:- (no function found in $map)}"
fi

#!/bin/sh
# installed-libs.sh LIBDIR PLUGINDIR "PLUGINS" -- run by `make installcheck`:
# what the installed shared objects export and need.  libwarpred.so and
# libwarpred_mpi.so export only wr_* symbols, each in a version node of its
# version script (WARPRED_<major>.<minor>, WARPRED_MPI_<major>.<minor>:
# lib/libwarpred.map, mpi/libwarpred_mpi.map); no installed library needs the
# CUDA runtime or driver (the cuda plugin links cudart statically and the
# driver is dlopen()ed); each plugin configure built (PLUGINS, e.g.
# "warpred_cuda warpred_omptarget") is installed, exports only its ops table
# and has no text relocations.  Needs nm and readelf (binutils, which the
# toolchain that built the library comes with): without them it fails.
libdir=$1 plugindir=$2 plugins=$3
NM=${NM:-nm} READELF=${READELF:-readelf}
for t in "$NM" "$READELF"; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "installed-libs: $t not found (binutils)" >&2
        exit 1
    fi
done
fail=0
bad() { echo "installed-libs: $*" >&2; fail=1; }

# defined dynamic symbols as NAME@@VERSION (NAME if unversioned), less the
# absolute symbols that name version nodes
versioned() { "$NM" -D --defined-only "$1" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sort -u; }
# defined dynamic symbols, without any @VERSION suffix
exports() { versioned "$1" | sed 's/@.*//' | sort -u; }

for name in libwarpred libwarpred_mpi; do
    so=$libdir/$name.so
    [ -e "$so" ] || { [ $name = libwarpred ] && bad "$so is not installed"; continue; }
    extra=$(exports "$so" | grep -v '^wr_')
    [ -z "$extra" ] || bad "$so exports non-wr_ symbols:" $extra
    case $name in libwarpred) node=WARPRED ;; *) node=WARPRED_MPI ;; esac
    loose=$(versioned "$so" | grep -v "@@${node}_[0-9][0-9]*\.[0-9][0-9]*\$")
    [ -z "$loose" ] || bad "$so exports symbols outside its ${node}_<major>.<minor> version nodes:" $loose
done
for so in "$libdir"/libwarpred*.so "$plugindir"/*.so; do
    [ -e "$so" ] || continue
    if "$READELF" -d "$so" | grep -i 'NEEDED.*\(cuda\|nvidia\)'; then
        bad "$so needs a CUDA library at load time"
    fi
done
for p in $plugins; do
    so=$plugindir/$p.so
    if [ ! -f "$so" ]; then bad "$so is not installed"; continue; fi
    extra=$(exports "$so" | grep -vx 'warpred_backend_ops')
    [ -z "$extra" ] || bad "$so exports more than its ops table:" $extra
    if "$READELF" -d "$so" | grep -q TEXTREL; then bad "$so has text relocations"; fi
done
[ $fail = 0 ] && echo "  CHECK    installed libraries: exports and their version nodes, CUDA-free load, plugins ($plugins)"
exit $fail

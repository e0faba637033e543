#!/bin/sh
# fortran_interfaces.sh -- the Fortran modules keep up with the C headers:
# every function warpred.h declares has a bind(C) interface in
# fortran/warpred.f90, every enumerator (and WR_VERSION_*) is a named
# constant there with the C value, and every function of warpred_mpi.h is
# public in fortran/warpred_mpi.f90.  Reads sources only.
top=${srcdir:-.}
hdr=$top/lib/warpred.h
mhdr=$top/mpi/warpred_mpi.h
mod=$top/fortran/warpred.f90
mmod=$top/fortran/warpred_mpi.f90
echo "1..4"

# One line per enumerator (with its value) and WR_VERSION_* define: NAME VALUE
c_constants() {
    awk '{ text = text $0 "\n" }
        END {
            # C comments out (they may span lines, and hold commas)
            while ((i = index(text, "/*")) > 0) {
                rest = substr(text, i + 2)
                j = index(rest, "*/")
                text = substr(text, 1, i - 1) " " substr(rest, j + 2)
            }
            n = split(text, lines, "\n")
            for (l = 1; l <= n; l++) {
                line = lines[l]
                if (line ~ /^#define WR_VERSION_[A-Z]* /) {
                    split(line, w, /[ \t]+/); print w[2], w[3]; continue
                }
                if (line ~ /typedef enum/) { inside = 1; value = 0; sub(/.*\{/, "", line) }
                if (!inside) continue
                closing = line ~ /\}/
                sub(/\}.*/, "", line)
                m = split(line, items, ",")
                for (k = 1; k <= m; k++) {
                    item = items[k]
                    if (item !~ /WR_[A-Z0-9_]/) continue
                    name = item; sub(/^[^W]*/, "", name); sub(/[ \t=].*$/, "", name)
                    if (item ~ /=/) { v = item; sub(/.*=[ \t]*/, "", v); value = v + 0 }
                    print name, value
                    value++
                }
                if (closing) inside = 0
            }
        }' "$hdr"
}

declared=$(grep 'WR_API' "$hdr" | grep -o 'wr_[a-z_0-9]*[ ]*(' | tr -d ' (' | sort -u)
missing=
for f in $declared; do
    grep -q "bind(C, name=\"$f\")" "$mod" || missing="$missing $f"
done
if [ -n "$declared" ] && [ -z "$missing" ]; then
    echo "ok 1 - fortran/warpred.f90 binds every function of warpred.h ($(echo $declared | wc -w))"
else
    echo "not ok 1 - fortran/warpred.f90 binds every function of warpred.h"
    echo "#     missing:${missing:- (none found in $hdr)}"
fi

bad=
count=0
for pair in $(c_constants | tr ' ' ':'); do
    name=${pair%%:*}
    value=${pair#*:}
    count=$((count + 1))
    grep -qi "parameter, public :: $name = $value\$" "$mod" || bad="$bad $name=$value"
done
if [ $count -gt 20 ] && [ -z "$bad" ]; then
    echo "ok 2 - every enumerator and WR_VERSION_* is a constant of the module, same value ($count)"
else
    echo "not ok 2 - every enumerator and WR_VERSION_* is a constant of the module, same value"
    echo "#     missing or different:${bad:- (only $count found in $hdr)}"
fi

mpi_declared=$(grep 'WR_MPI_API' "$mhdr" | grep -o 'wr_mpi_[a-z_0-9]*[ ]*(' | tr -d ' (' | sort -u)
missing=
for f in $mpi_declared; do
    grep -q "public ::.*\\b$f\\b" "$mmod" && grep -q "interface $f\$" "$mmod" || missing="$missing $f"
done
if [ -n "$mpi_declared" ] && [ -z "$missing" ]; then
    echo "ok 3 - fortran/warpred_mpi.f90 has every function of warpred_mpi.h ($(echo $mpi_declared | wc -w))"
else
    echo "not ok 3 - fortran/warpred_mpi.f90 has every function of warpred_mpi.h"
    echo "#     missing:${missing:- (none found in $mhdr)}"
fi

# nothing bound that C does not declare (a renamed function)
extra=
for f in $(grep -o 'bind(C, name="wr_[a-z_0-9]*")' "$mod" | sed 's/.*name="//; s/")//' | sort -u); do
    printf '%s\n' $declared | grep -qx "$f" || extra="$extra $f"
done
if [ -z "$extra" ]; then
    echo "ok 4 - fortran/warpred.f90 binds nothing that warpred.h does not declare"
else
    echo "not ok 4 - fortran/warpred.f90 binds nothing that warpred.h does not declare"
    echo "#     not in warpred.h:$extra"
fi

#!/bin/sh
# manpages.sh -- every man page in doc/man3 formats without a single groff
# warning (groff -ww: all warnings; groff exits 0 on warnings, so its
# messages are what fails a page).  .so links are formatted too, from doc/,
# so a link to a missing page fails.
dir=${srcdir:-.}/doc
GROFF=${GROFF:-groff}

if ! command -v "$GROFF" >/dev/null 2>&1; then
    echo "1..0 # SKIP $GROFF not found"
    exit 0
fi
pages=$(cd "$dir" && ls man3/*.3 2>/dev/null)
if [ -z "$pages" ]; then
    echo "1..0 # SKIP no man pages in $dir/man3"
    exit 0
fi
echo "1..$(printf '%s\n' "$pages" | grep -c .)"
i=0
for p in $pages; do
    i=$((i + 1))
    msgs=$(cd "$dir" && "$GROFF" -ww -t -mandoc -Tutf8 -z "$p" 2>&1)
    status=$?
    if [ $status -eq 0 ] && [ -z "$msgs" ]; then
        echo "ok $i - $p"
    else
        echo "not ok $i - $p (exit status $status)"
        printf '%s\n' "$msgs" | sed 's/^/#     /'
    fi
done

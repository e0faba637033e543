#!/bin/sh
# cpu_isa.sh -- the cpu backend under every instruction-set variant this
# machine runs (cpu/cpu_isa.h): for each one that WARPRED_CPU_ISA can force
# here, the results of tests/cpu_isa_digest must be the bits the baseline
# gives, and the cpu test programs must pass under it (but the default
# choice, under which make check runs them anyway).  Also: a value that
# names no variant, and a second context that asks for another variant than
# the process runs, are refused with a reason.  Runs from the top build
# directory; WR_TEST_SEED (set once here) gives every run the same data.
digest=tests/cpu_isa_digest
programs="tests/reduce tests/scan tests/special tests/rows_segments tests/determinism tests/threads"
candidates="baseline v3 v4 sve"
WR_TEST_SEED=${WR_TEST_SEED:-$(date +%s)}
export WR_TEST_SEED
unset WARPRED_BACKEND

tmp=${TMPDIR:-/tmp}/cpu_isa.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' 0

n=0
pass() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # skip $*"; }
check() { if [ "$1" = 0 ]; then shift; pass "$@"; else shift; fail "$@"; fi; }
# the first lines of a file, as TAP diagnostics
show() { head -n "${2:-8}" "$1" | sed 's/^/#     /'; }

echo "# WR_TEST_SEED=$WR_TEST_SEED"

# Which variants run here, and what each context says it runs; make check
# runs the test programs under the one chosen by default already.
auto=$(unset WARPRED_CPU_ISA; $digest --probe 2>&1)
runs=
for v in $candidates; do
    WARPRED_CPU_ISA=$v $digest --probe >"$tmp/probe" 2>&1
    rc=$?
    desc=$(cat "$tmp/probe")
    case $v in
        baseline) name=;;
        v3) name=x86-64-v3;;
        v4) name=x86-64-v4;;
        sve) name=aarch64+sve;;
    esac
    case $rc in
        0)
            if [ -n "$name" ]; then
                case $desc in *", $name"*) ok=0;; *) ok=1;; esac
            else
                case $desc in *-v3*|*-v4*|*+sve*) ok=1;; *) ok=0;; esac
            fi
            check $ok "WARPRED_CPU_ISA=$v: a context runs it and says so: $desc"
            [ $ok = 0 ] && runs="$runs $v"
            [ $ok = 0 ] && [ "$desc" = "$auto" ] && auto=$v;;
        2) skip "WARPRED_CPU_ISA=$v: not runnable here: $desc";;
        3)
            if [ $v = baseline ]; then fail "WARPRED_CPU_ISA=baseline refused: $desc"
            else skip "WARPRED_CPU_ISA=$v: not a variant of this architecture: $desc"; fi;;
        *) fail "WARPRED_CPU_ISA=$v: --probe exited $rc: $desc";;
    esac
done

# Refusals.
WARPRED_CPU_ISA=no-such-isa $digest --probe >"$tmp/probe" 2>&1
ok=$?
[ $ok = 3 ] && grep -q 'WARPRED_CPU_ISA=no-such-isa: expected one of auto, baseline' "$tmp/probe" && ok=0
check $ok "WARPRED_CPU_ISA=no-such-isa: WR_ERR_INVALID_ARG with a reason: $(cat "$tmp/probe")"
set -- $runs
if [ $# -ge 2 ]; then
    WARPRED_CPU_ISA=$1 $digest --switch "$2" >"$tmp/switch" 2>&1
    check $? "a second context asking for $2 in a process that runs $1 is refused: $(cat "$tmp/switch")"
else
    skip "one variant runs here: no second one to ask for"
fi

# Same bits as the baseline.
WARPRED_CPU_ISA=baseline $digest >"$tmp/baseline" 2>"$tmp/err"
rc=$?
check $rc "cpu_isa_digest under the baseline ($(grep -vc '^#' "$tmp/baseline") results)"
[ $rc = 0 ] || show "$tmp/err"
for v in $runs; do
    [ $v = baseline ] && continue
    WARPRED_CPU_ISA=$v $digest >"$tmp/$v" 2>"$tmp/err"
    if [ $? != 0 ]; then
        fail "cpu_isa_digest under $v"
        show "$tmp/err"
    elif cmp -s "$tmp/baseline" "$tmp/$v"; then
        pass "$v gives the baseline's bits ($(grep -vc '^#' "$tmp/$v") results)"
    else
        fail "$v gives the baseline's bits"
        diff "$tmp/baseline" "$tmp/$v" >"$tmp/diff"
        echo "#   $(grep -c '^>' "$tmp/diff") of $(grep -vc '^#' "$tmp/$v") results differ (< baseline, > $v):"
        show "$tmp/diff" 12
    fi
done

# The cpu test programs under each variant.
for v in $runs; do
    for p in $programs; do
        if [ $v = "$auto" ]; then
            skip "$p under $v: the default choice here, which make check runs it under"
            continue
        fi
        WARPRED_CPU_ISA=$v ./$p >"$tmp/out" 2>&1
        rc=$?
        if [ $rc = 0 ] && ! grep -q '^not ok' "$tmp/out"; then
            pass "$p under $v ($(grep -c '^ok' "$tmp/out") passed, $(grep -c '^ok.*# [Ss][Kk][Ii][Pp]' "$tmp/out") of them skipped)"
        else
            fail "$p under $v (exit $rc)"
            grep '^not ok' "$tmp/out" | head -n 8 | sed 's/^/#     /'
            [ $rc = 0 ] || tail -n 4 "$tmp/out" | sed 's/^/#     /'
        fi
    done
done
echo "1..$n"

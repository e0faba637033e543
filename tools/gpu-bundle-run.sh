#!/usr/bin/env bash
# run.sh [STEP...] -- the GPU run of a bundle made by tools/gpu-bundle.
#
# Test steps (the default, in this order):
#   info       the machine: GPU, driver, CPU count
#   gputests   every GPU test program alone, WR_TEST_REQUIRE_GPU=1 (a
#              missing GPU fails them), at its default sizes
#   cputests   the other test programs of make check, 8 at a time, with
#              the CUDA plugin found (AUTO and the plugin's refusals run)
#   oom        test_cuda_errors alone with WR_TEST_DEVICE_OOM=1
#   cost       what a cpu / cuda / omptarget context costs a process
#              (create time, first call, GPU memory held)
#   omptarget  omptarget_xval and the OpenMP-offload example on the GPU
#              (on a failure: the same again with GOMP_DEBUG=1, the last
#              kernel launches kept, and under compute-sanitizer memcheck)
#   mpi        the MPI tests on 1-4 ranks with device buffers (cuda), and
#              on 1 and 3 ranks on omptarget contexts (host buffers)
#   sanitize   compute-sanitizer memcheck, racecheck, synccheck and
#              initcheck over the GPU test programs, 4 at a time
# Benchmark steps (never in the default):
#   bench      warpred-bench on cuda beside CUB and the copy (blocking)
#   async      warpred-bench --async: one queued call, queued calls and
#              CUDA graphs beside CUB treated alike
#   ompbench   warpred-bench --backend omptarget beside plain OpenMP loops
#   cpubench   warpred-bench --backend cpu
#   segbench   scans inside segments beside CUB's scan-by-key (mean
#              segment lengths 32, 1024, 65536)
#   dotbench   dot products and norms beside cuBLAS, fast and reproducible
#   callcost   bench/tools/call_cost: where a call's fixed host and GPU cost
#              goes (driver queries, launches, waits; ours beside CUB)
# Environment:
#   OUT                  where logs.tar (every log, appended as each program
#                        ends) and summary.txt go (default ./out)
#   WR_RUN_DEADLINE      seconds from the start after which no program is
#                        started and running ones are stopped (default 570)
#   WR_RUN_TEST_TIMEOUT  seconds allowed to one test program (default 120)
#   WR_RUN_SAN_TIMEOUT   seconds allowed to one sanitizer run (default 150)
#   WR_RUN_SAN_PROGS     GPU test programs run under the sanitizers (default:
#                        every GPU test but test_cuda_huge and test_cuda_errors)
#   WR_RUN_SAN_TOOLS     default "memcheck racecheck synccheck initcheck"
#   WR_RUN_SAN_JOBS      sanitizer runs at a time (default 4)
#   WR_RUN_BENCH_ARGS, WR_RUN_ASYNC_ARGS, WR_RUN_OMPBENCH_ARGS,
#   WR_RUN_CPUBENCH_ARGS the benchmark options of those steps
#   WR_RUN_ONLY          an extended regular expression: only the test
#                        programs whose names match run (gputests, cputests)
#   WR_TEST_MAX_N etc.   passed on to the test programs
# Each program runs under `timeout`; a step that would start after the
# deadline is recorded as not run.  The summary (one line per program:
# status, seconds, TAP counts) is printed last and kept in summary.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
deadline=$((start + ${WR_RUN_DEADLINE:-570}))
OUT=${OUT:-$here/out}
mkdir -p "$OUT"
logs=$(mktemp -d "${TMPDIR:-/tmp}/wr-run.XXXXXX")
mkdir -p "$logs/logs"
tarball=$OUT/logs.tar
summary=$logs/logs/summary.txt
: > "$summary"

export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WARPRED_PLUGIN_DIR=$here/plugins
unset WARPRED_BACKEND WARPRED_FLOAT_MODE
# the plugin loader trusts no directory others can write
chmod go-w "$here" "$here/plugins" "$here/lib" 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the driver's JIT cache for the omptarget plugin's PTX (GCC emits no machine code)
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-$logs/cuda-cache} CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}

# the tests that read their build tree find the bundle's copy where it was
if [ -f "$here/BUILDDIR" ]; then
    orig=$(cat "$here/BUILDDIR")
    if [ ! -e "$orig" ] || [ -L "$orig" ]; then
        mkdir -p "$(dirname "$orig")" && ln -sfn "$here/tree" "$orig"
    fi
fi

steps=${*:-info gputests cputests oom cost omptarget mpi sanitize}
failed=0

# keep LOG in the tarball now, so that a run cut off still returns it
keep() { flock "$logs/tar.lock" tar -rf "$tarball" -C "$logs" "logs/$1" 2>/dev/null; }
left() { echo $((deadline - $(date +%s))); }
# tap_counts LOG: "P pass F fail S skip (plan N)"
tap_counts() {
    local p f s n
    p=$(grep -a '^ok ' "$1" | grep -avc '# [Ss][Kk][Ii][Pp]')
    s=$(grep -a '^ok ' "$1" | grep -ac '# [Ss][Kk][Ii][Pp]')
    f=$(grep -ac '^not ok' "$1")
    n=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$1" | head -n 1)
    if grep -aq '^1\.\.0 # SKIP' "$1"; then s=all; fi
    echo "$p pass $f fail $s skip (plan ${n:-none})"
}
# record NAME STATUS SECONDS DETAIL
record() {
    printf '%-44s %-5s %5ss  %s\n' "$1" "$2" "$3" "$4" >> "$summary"
    case $2 in FAIL|TIME|SKIP) failed=1 ;; esac
    keep summary.txt
}
# run_one NAME TIMEOUT LOG [env...] COMMAND...: run, keep the log, record the
# TAP verdict (FAIL on a failed check, a missing or short plan, an exit
# status other than 0, or a whole-program skip)
run_one() {
    local name=$1 t=$2 log=$3 t0 rc st counts lim
    shift 3
    lim=$(left)
    if [ "$lim" -le 5 ]; then record "$name" "NOTRUN" 0 "deadline reached"; return 1; fi
    [ "$t" -lt "$lim" ] || t=$((lim - 2))
    t0=$(date +%s)
    timeout -k 5 "$t" env "$@" > "$logs/logs/$log" 2>&1
    rc=$?
    counts=$(tap_counts "$logs/logs/$log")
    st=ok
    case $counts in
        *" 0 fail "*"(plan none)"|*"skip all"*) st=FAIL ;;
        *" 0 fail "*) ;;
        *) st=FAIL ;;
    esac
    case $counts in *" all skip"*) st=SKIP ;; esac
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then st=TIME; fi
    if [ $st = ok ] && [ $rc -ne 0 ]; then st=FAIL; fi
    if [ $st = ok ]; then
        local p n
        p=$(echo "$counts" | awk '{print $1 + ($5 == "all" ? 0 : $5)}')
        n=$(echo "$counts" | sed -n 's/.*(plan \([0-9]*\)).*/\1/p')
        [ -z "$n" ] || [ "$p" -eq "$n" ] || st=FAIL
    fi
    record "$name" "$st" $(( $(date +%s) - t0 )) "$counts, exit $rc"
    keep "$log"
}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
only() { grep -E "${WR_RUN_ONLY:-.}"; }
gpu_tests=$(only < "$here/GPU_TESTS.list")

echo "== run.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), steps: $steps"

if want info; then
    {
        cat "$here/MANIFEST"
        nvidia-smi -L
        nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.mem,compute_cap --format=csv
        echo "cpus: $(nproc)"; uname -r
        command -v compute-sanitizer mpiexec
        mpiexec --version 2>&1 | head -n 1
    } > "$logs/logs/info.log" 2>&1
    cat "$logs/logs/info.log"
    keep info.log
fi

# slot N: wait until fewer than N jobs of this shell run (then start one with &)
slot() { while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do wait -n; done; }

if want gputests; then
    # 3 at a time: one GPU, 16 cores (each test's time grows a little)
    for t in $gpu_tests; do
        slot "${WR_RUN_GPU_JOBS:-3}"
        run_one "gpu $t" "${WR_RUN_TEST_TIMEOUT:-120}" "gpu-$t.log" WR_TEST_REQUIRE_GPU=1 "$here/bin/$t" &
    done
    wait
fi

if want cputests; then
    # the others, 8 at a time
    for t in $(grep -vxF -f "$here/GPU_TESTS.list" "$here/tests.list" | only); do
        slot 8
        run_one "cpu $t" "${WR_RUN_TEST_TIMEOUT:-120}" "cpu-$t.log" "$here/bin/$t" &
    done
    wait
fi

if want oom; then
    run_one "oom test_cuda_errors" 120 oom.log WR_TEST_DEVICE_OOM=1 WR_TEST_REQUIRE_GPU=1 "$here/bin/test_cuda_errors"
fi

if want cost; then
    {
        for b in cpu cpu cuda omptarget omptarget; do
            echo "-- context_cost --backend $b"
            "$here/bin/context_cost" --backend "$b" --hold 2 > "$logs/cost.out" 2>&1 &
            pid=$!
            for i in $(seq 1 300); do grep -q holding "$logs/cost.out" 2>/dev/null && break; sleep 0.1; done
            cat "$logs/cost.out"
            echo "GPU memory of the process: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader |
                awk -v p=$pid -F', ' '$1 == p { print $2 } END { }' | head -n 1)"
            nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
            wait $pid
        done
    } > "$logs/logs/cost.log" 2>&1
    cat "$logs/logs/cost.log"
    record cost ok 0 "see cost.log"
    keep cost.log
fi

if want omptarget; then
    if [ -f "$here/plugins/warpred_omptarget.so" ]; then
        run_one "omptarget omptarget_xval" 240 omp-xval.log "$here/bin/omptarget_xval"
        if ! grep -q '^omptarget omptarget_xval *ok' "$summary"; then
            # which kernel and which call, at the sizes that failed: libgomp's
            # debug output names every launch, WR_TEST_TRACE every call that
            # returned, memcheck the faulting access
            t=$(( $(left) / 3 )); [ "$t" -le 240 ] || t=240
            if [ "$t" -gt 10 ]; then
                timeout -k 5 "$t" env GOMP_DEBUG=1 WR_TEST_TRACE=1 "$here/bin/omptarget_xval" 2>&1 |
                    grep -a -v '^ok ' | tail -n 400 > "$logs/logs/omp-xval-gompdebug.log"
                keep omp-xval-gompdebug.log
                timeout -k 5 "$t" compute-sanitizer --tool memcheck --print-limit 20 env WR_TEST_TRACE=1 \
                    "$here/bin/omptarget_xval" 2>&1 | grep -a -v '^ok ' | tail -n 400 > "$logs/logs/omp-xval-memcheck.log"
                keep omp-xval-memcheck.log
            fi
        fi
        run_one "omptarget omp_offload.sh" 120 omp-example.log WR_OMP_OFFLOAD_EXAMPLE="$here/bin/omp_offload" \
            WR_OMPT_PLUGIN_DIR="$here/plugins" sh "$here/omp_offload.sh"
    else
        record omptarget SKIP 0 "no omptarget plugin in the bundle"
    fi
fi

if want mpi; then
    # 3 runs at a time (up to 4 ranks each)
    for p in $(ls "$here/bin" | grep '^test_mpi_' | grep -v fortran); do
        for np in 1 2 3 4; do
            slot 3
            run_one "mpi-dev $p np$np" 120 "mpi-dev-$p-np$np.log" WR_TEST_MPI_DEVICE=1 \
                sh "$here/mpi-run.sh" "$np" "$here/bin/$p" &
        done
        if [ -f "$here/plugins/warpred_omptarget.so" ]; then
            for np in 1 3; do
                slot 3
                run_one "mpi-omp $p np$np" 180 "mpi-omp-$p-np$np.log" WARPRED_BACKEND=omptarget \
                    sh "$here/mpi-run.sh" "$np" "$here/bin/$p" &
            done
        fi
    done
    wait
fi

if want sanitize; then
    san_progs=${WR_RUN_SAN_PROGS:-$(echo "$gpu_tests" | grep -v -e test_cuda_huge -e test_cuda_errors)}
    for tool in ${WR_RUN_SAN_TOOLS:-memcheck racecheck synccheck initcheck}; do
        for p in $san_progs; do
            slot "${WR_RUN_SAN_JOBS:-4}"
            {
                run_one "$tool $p" "${WR_RUN_SAN_TIMEOUT:-150}" "san-$tool-$p.log" WR_TEST_REQUIRE_GPU=1 \
                    compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 50 "$here/bin/$p"
                e=$(grep -a 'ERROR SUMMARY\|RACECHECK SUMMARY' "$logs/logs/san-$tool-$p.log" | tail -n 1)
                [ -z "$e" ] || echo "$tool $p: $e" >> "$logs/logs/san-summaries.txt"
            } &
        done
    done
    wait
    keep san-summaries.txt
fi

bench() {  # bench NAME TIMEOUT ARGS...
    local name=$1 t=$2 t0 rc lim
    shift 2
    lim=$(left)
    if [ "$lim" -le 10 ]; then record "$name" NOTRUN 0 "deadline reached"; return; fi
    [ "$t" -lt "$lim" ] || t=$((lim - 5))
    t0=$(date +%s)
    timeout -k 5 "$t" "$here/bin/warpred-bench" "$@" --csv "$logs/logs/$name.csv" > "$logs/logs/$name.log" 2>&1
    rc=$?
    record "$name" "$([ $rc -eq 0 ] && echo ok || { [ $rc -eq 124 ] && echo TIME || echo FAIL; })" \
        $(( $(date +%s) - t0 )) "exit $rc: warpred-bench $*"
    keep "$name.log"
    keep "$name.csv"
    tail -n 60 "$logs/logs/$name.log"
}
if want bench; then
    # shellcheck disable=SC2086
    bench bench 300 ${WR_RUN_BENCH_ARGS:---backend cuda --funcs reduce,scan,exscan,argmax,reduce_rows,reduce_segments --types f32,f64,i32 --ops sum --sizes 2^20,2^28 --reps 20}
fi
if want async; then
    # shellcheck disable=SC2086
    bench async 300 ${WR_RUN_ASYNC_ARGS:---async --funcs reduce,scan,argmax --types f32 --ops sum --sizes 2^10,2^16,2^20,2^28 --reps 20}
fi
if want ompbench; then
    # shellcheck disable=SC2086
    bench ompbench 240 ${WR_RUN_OMPBENCH_ARGS:---backend omptarget --funcs reduce,scan --types f32,f64 --ops sum --sizes 2^28 --reps 5 --warmup 2}
fi
if want segbench; then
    for L in 32 1024 65536; do
        # shellcheck disable=SC2086
        bench "segbench-$L" 120 ${WR_RUN_SEGBENCH_ARGS:---backend cuda --funcs scan_segments,exscan_segments --types f32 --ops sum --sizes 2^28 --reps 20} --seglen "$L"
    done
fi
if want dotbench; then
    # shellcheck disable=SC2086
    bench dotbench 240 ${WR_RUN_DOTBENCH_ARGS:---backend cuda --funcs dot,nrm2,asum,argmax_abs,dot_rows --types f32,f64 --sizes 2^25,2^28 --cols 32,1024 --float-mode both --reps 20}
fi
if want callcost; then
    t0=$(date +%s); t=$(left); [ "$t" -le 180 ] || t=180
    if [ "$t" -gt 10 ]; then
        timeout -k 5 "$t" "$here/bin/call_cost" > "$logs/logs/callcost.log" 2>&1
        rc=$?
        record callcost "$([ $rc -eq 0 ] && echo ok || echo FAIL)" $(( $(date +%s) - t0 )) "exit $rc: call_cost"
        keep callcost.log
        cat "$logs/logs/callcost.log"
    else
        record callcost NOTRUN 0 "deadline reached"
    fi
fi
if want cpubench; then
    # shellcheck disable=SC2086
    bench cpubench 240 ${WR_RUN_CPUBENCH_ARGS:---backend cpu --funcs reduce,scan --types f32,f64 --ops sum --sizes 2^27 --reps 10}
fi

echo "== summary ($(( $(date +%s) - start )) s)"
cat "$summary"
[ ! -f "$logs/logs/san-summaries.txt" ] || cat "$logs/logs/san-summaries.txt"
# (steps run in the background record into the summary file only)
grep -qE '^.{44} (FAIL|TIME|SKIP|NOTRUN) ' "$summary" && failed=1
echo "run.sh: $([ $failed -eq 0 ] && echo PASS || echo FAIL)"
keep summary.txt
exit $failed

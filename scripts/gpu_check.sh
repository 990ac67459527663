#!/usr/bin/env bash
# The one command to run on a GPU machine: builds everything (Release, sm_90; the type matrix in
# full, tests/matrix), runs the test suite, runs the benchmark and its plot, runs every test
# program (the type matrix's aside) under compute-sanitizer's memcheck, racecheck, synccheck and
# initcheck, and prints a summary table last.
#
# Usage: scripts/gpu_check.sh [--skip-bench] [--skip-ctest] [--skip-sanitizer] [--only-bench] [--help]
#   --skip-bench       no benchmark, no plot
#   --skip-ctest       no ctest (it ran in an earlier call on this build: the sanitizer runs then
#                      get the whole budget after the build)
#   --skip-sanitizer   no compute-sanitizer runs
#   --only-bench       build the benchmark only, run it and the plot (no tests, no sanitizer)
#
# Output goes to $OUT (default ./out), flat, eight files at most:
#   build.log  ctest.log  sanitizer.log (all tools, all programs, one after another)
#   bench.log (scan_bench's output, anchor_scan_bench's, the anchor table, the plot script's, then
#   scan_by_key_bench's, call_time_bench's, select_bench's, compaction_bench's, reduce_by_key_bench's,
#   sharded_scan_bench's and
#   ablation_bench's tables, then ablation_bench's CSV)  bench.csv  anchor.csv (CUB of the
#   newest CCCL, where its headers are installed: bench/CMakeLists.txt)  bench.png  summary.txt
# The summary (also summary.txt) is the last thing printed. Exit status: 0 when the build, every
# test, every sanitizer run and the benchmark succeeded; 1 otherwise. Sanitizer runs that time out
# or are not started for lack of time are listed under "problems", and a failed plot (no
# matplotlib, say) is shown on the bench line; neither changes the status.
#
# Time: everything fits in GPU_CHECK_BUDGET_S seconds (default 540, i.e. 9 minutes on an H100):
# the build (-j = all cores) and ctest come first, then the benchmark (on a quiet GPU, before the
# sanitizer runs, so that its timings are not disturbed by them), then the sanitizer runs, which
# take whatever time is left: each run has its own `timeout`, runs start only while time remains,
# and memcheck runs are queued first. ctest and the benchmark are each cut off (with `timeout`)
# early enough to leave the phases after them a minute and a half to two minutes.
#
# memcheck runs with --leak-check full: device memory still allocated when a program ends (spscan's
# kept temporary storage included) is an error.
# Sanitizer runs are made small through the environment the tests read:
#   SPSCAN_TEST_MAX_ELEMENTS  largest element count a test uses (larger sizes skip)
#   SPSCAN_STRESS_CALLS       call count of the randomized stress test
# per tool below (racecheck, which tracks every shared-memory access, gets the smallest sizes).
# GoogleTest cases that stay too slow under a sanitizer even at those sizes are filtered out with
# --gtest_filter in `sanitizer_filter` below (with the reason next to each pattern).
#
# Knobs (environment): OUT, BUILD_DIR (default ./build), GPU_CHECK_BUDGET_S, CTEST_JOBS (default 4:
# the tests share one GPU, and several of them time or stress it), SANITIZER_JOBS (concurrent
# sanitizer runs, default 8), SANITIZER_RUN_TIMEOUT_S (default 180), BENCH_TIMEOUT_S (default 240,
# lowered when less time is left).
set -uo pipefail

skip_bench=0
skip_ctest=0
skip_sanitizer=0
only_bench=0
for arg in "$@"; do
  case "$arg" in
    --skip-bench) skip_bench=1 ;;
    --skip-ctest) skip_ctest=1 ;;
    --skip-sanitizer) skip_sanitizer=1 ;;
    --only-bench) only_bench=1 ;;
    -h | --help)
      sed -n '2,/^set -uo pipefail$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "gpu_check.sh: unknown option '$arg' (see --help)" >&2
      exit 2
      ;;
  esac
done
if ((only_bench && skip_bench)); then
  echo "gpu_check.sh: --only-bench and --skip-bench leave nothing to do" >&2
  exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${BUILD_DIR:-$root/build}
work="$build/gpu-check" # per-run scratch (sanitizer logs before they are merged, ctest's JUnit)
mkdir -p "$work"

budget=${GPU_CHECK_BUDGET_S:-540}
ctest_jobs=${CTEST_JOBS:-4}
sanitizer_jobs=${SANITIZER_JOBS:-8}
sanitizer_run_timeout=${SANITIZER_RUN_TIMEOUT_S:-180}
bench_timeout=${BENCH_TIMEOUT_S:-240}
build_jobs=$(nproc)
start=$SECONDS

# NVLink multicast stays off in NCCL (the sharded scans' test and benchmark): the machines are shared.
export NCCL_NVLS_ENABLE=0

if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

build_log="$OUT/build.log"
ctest_log="$OUT/ctest.log"
sanitizer_log="$OUT/sanitizer.log"
bench_log="$OUT/bench.log"
bench_csv="$OUT/bench.csv"
anchor_csv="$OUT/anchor.csv"
bench_png="$OUT/bench.png"
summary="$OUT/summary.txt"

elapsed() { echo $((SECONDS - start)); }
# Seconds later phases need kept free: after ctest, 90 for the benchmark and 90 for the sanitizer
# runs; after the benchmark, 120 for the sanitizer runs (where they will run).
reserve_after_ctest() { echo $(((skip_bench ? 0 : 90) + (skip_sanitizer ? 0 : 90))); }
reserve_after_bench() { echo $((only_bench || skip_sanitizer ? 0 : 120)); }
remaining() { echo $((budget - (SECONDS - start))); }
note() { echo "[gpu_check $(elapsed)s] $*"; }

overall_ok=1
build_status="not run"
ctest_status="not run"
bench_status="not run"
sanitizer_table=""
sanitizer_problems=""
sanitizer_settings=""

# ------------------------------------------------------------------------------------------------
# Build

phase_build() {
  local targets=()
  note "configure and build (Release, sm_90, -j$build_jobs) -> $build_log"
  local t0=$SECONDS
  {
    echo "## configure"
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSPSCAN_TYPE_MATRIX=FULL -DSPSCAN_TYPE_MATRIX_ARCHITECTURES=90 \
      -DSPSCAN_TESTS_SYNTAX_ONLY=OFF -DSPSCAN_TYPE_MATRIX_SYNTAX_ONLY=OFF
  } > "$build_log" 2>&1
  local rc=$?
  if ((rc != 0)); then
    build_status="FAILED at configure (see build.log)"
    overall_ok=0
    return 1
  fi
  if ((only_bench)); then
    targets=(--target scan_bench scan_by_key_bench call_time_bench select_bench compaction_bench reduce_by_key_bench ablation_bench)
    # Built where the configuration found what they need (NCCL; the newest CCCL's headers).
    local available
    available=$(cmake --build "$build" --target help 2> /dev/null)
    local optional
    for optional in anchor_scan_bench sharded_scan_bench; do
      grep -q "^$optional:" <<< "$available" && targets+=("$optional")
    done
  fi
  # -k 0: a program that fails to compile does not stop the others, whose tests still run.
  echo "## build" >> "$build_log"
  cmake --build "$build" -j "$build_jobs" "${targets[@]}" -- -k 0 >> "$build_log" 2>&1
  rc=$?
  local failed
  failed=$(grep -c '^FAILED: ' "$build_log")
  if ((rc == 0)); then
    build_status="ok ($((SECONDS - t0)) s)"
  else
    build_status="FAILED: $failed target(s) did not build (see build.log) ($((SECONDS - t0)) s)"
    overall_ok=0
  fi
  return 0
}

# ------------------------------------------------------------------------------------------------
# ctest

xml_count() { # xml_count <attribute> <file>: the first `attribute="N"` in the file, else 0
  local value
  value=$(grep -m1 -o "$1=\"[0-9]*\"" "$2" 2> /dev/null | grep -o '[0-9]*')
  echo "${value:-0}"
}

phase_ctest() {
  local junit="$work/ctest-junit.xml"
  rm -f "$junit"
  local limit=$(($(remaining) - $(reserve_after_ctest)))
  ((limit < 60)) && limit=60
  note "ctest -j$ctest_jobs (at most ${limit}s) -> $ctest_log"
  local t0=$SECONDS
  timeout -k 10 "$limit" ctest --test-dir "$build" --output-on-failure -j "$ctest_jobs" --timeout 300 \
    --output-junit "$junit" > "$ctest_log" 2>&1
  local rc=$?
  local total passed failed skipped
  if [ -s "$junit" ]; then
    total=$(xml_count tests "$junit")
    failed=$(xml_count failures "$junit")
    skipped=$(($(xml_count skipped "$junit") + $(xml_count disabled "$junit")))
  else # ctest was cut short: count the result lines it printed
    local results="$work/ctest-results.txt"
    grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$ctest_log" > "$results"
    total=$(wc -l < "$results")
    failed=$(grep -cE '\*\*\*(Failed|Timeout|Exception|Not Run)' "$results")
    skipped=$(grep -c '\*\*\*Skipped' "$results")
  fi
  passed=$((total - failed - skipped))
  ctest_status="$total run: $passed passed, $failed failed, $skipped skipped ($((SECONDS - t0)) s)"
  if ((rc == 124 || rc == 137)); then
    ctest_status="$ctest_status; CUT SHORT by the time budget"
    overall_ok=0
  elif ((rc != 0 || failed != 0 || total == 0)); then
    overall_ok=0
  fi
}

# ------------------------------------------------------------------------------------------------
# Benchmark and plot

# One more benchmark after scan_bench: its output is appended to bench.log and kept in
# $work/<name>.stdout; returns its exit status (0 when it was not built).
run_extra_bench() { # run_extra_bench <name> [arguments...]
  local name=$1
  shift
  local program="$build/bench/$name"
  rm -f "$work/$name.stdout"
  [ -x "$program" ] || return 0
  local limit=$(($(remaining) - $(reserve_after_bench)))
  ((limit > 180)) && limit=180
  ((limit < 30)) && limit=30
  note "$name (at most ${limit}s) -> $bench_log"
  echo "## $program" >> "$bench_log"
  timeout -k 10 "$limit" "$program" "$@" > "$work/$name.stdout" 2>&1
  local status=$?
  cat "$work/$name.stdout" >> "$bench_log"
  echo "## $name exit status $status" >> "$bench_log"
  return $status
}

phase_bench() {
  local bench="$build/bench/scan_bench"
  local stdout="$work/bench.stdout"
  : > "$stdout"
  if [ ! -x "$bench" ]; then
    bench_status="FAILED: $bench was not built"
    echo "$bench was not built" > "$bench_log"
    overall_ok=0
    return
  fi
  local limit=$(($(remaining) - $(reserve_after_bench)))
  ((limit > bench_timeout)) && limit=$bench_timeout
  ((limit < 30)) && limit=30
  note "benchmark (at most ${limit}s) -> $bench_log, $bench_csv"
  local t0=$SECONDS
  timeout -k 10 "$limit" "$bench" --csv "$bench_csv" > "$stdout" 2>&1
  local rc=$?
  {
    echo "## $bench --csv $bench_csv (exit status $rc)"
    cat "$stdout"
  } > "$bench_log"
  # The anchors of the same run (CUB of the newest CCCL), and spscan against every anchor.
  local anchors=()
  rm -f "$anchor_csv" "$work/anchor_table.stdout"
  run_extra_bench anchor_scan_bench --csv "$anchor_csv" || rc=$?
  if [ -s "$anchor_csv" ]; then
    anchors=(--anchors "$anchor_csv")
    echo "## python3 bench/anchor_table.py $bench_csv $anchor_csv --markdown" >> "$bench_log"
    python3 "$root/bench/anchor_table.py" "$bench_csv" "$anchor_csv" --markdown > "$work/anchor_table.stdout" 2>&1
    cat "$work/anchor_table.stdout" >> "$bench_log"
  fi
  echo "## python3 bench/plot_results.py $bench_csv $bench_png ${anchors[*]}" >> "$bench_log"
  python3 "$root/bench/plot_results.py" "$bench_csv" "$bench_png" "${anchors[@]}" >> "$bench_log" 2>&1
  local plot_rc=$?
  echo "## plot exit status $plot_rc" >> "$bench_log"
  # The by-key scans against CUB's and Thrust's, then call times as users write the call (their
  # tables go into bench.log).
  local extra
  for extra in scan_by_key_bench call_time_bench select_bench compaction_bench reduce_by_key_bench sharded_scan_bench; do
    run_extra_bench "$extra" || rc=$?
  done
  # The ablation's CSV goes into bench.log as well ($OUT holds eight files at most):
  # bench/ABLATION.md's tables and plot are made from it.
  local ablation_csv="$work/ablation.csv"
  rm -f "$ablation_csv"
  run_extra_bench ablation_bench --csv "$ablation_csv" || rc=$?
  if [ -s "$ablation_csv" ]; then
    echo "## ablation_bench's CSV ($ablation_csv)" >> "$bench_log"
    cat "$ablation_csv" >> "$bench_log"
    echo "## end of ablation_bench's CSV" >> "$bench_log"
  fi
  if ((rc != 0)); then
    bench_status="FAILED (exit status $rc$( ((rc == 124)) && echo ': timed out'))"
    overall_ok=0
  elif ((plot_rc != 0)); then
    bench_status="ok ($((SECONDS - t0)) s); the plot FAILED: $(grep -v '^##' "$bench_log" | tail -n 1)"
  else
    bench_status="ok ($((SECONDS - t0)) s)"
  fi
}

# The benchmark's summary: from its first line mentioning "summary" on (at most 40 lines), else
# its last 15 lines.
bench_summary_lines() {
  local stdout="$work/bench.stdout"
  [ -s "$stdout" ] || return 0
  local lines
  lines=$(awk 'tolower($0) ~ /summary/ { found = 1 } found' "$stdout" | head -n 40)
  if [ -n "$lines" ]; then
    echo "$lines"
  else
    tail -n 15 "$stdout"
  fi
  [ -s "$work/anchor_table.stdout" ] && grep -E '^(summary|an anchor|no anchor|kept storage)' "$work/anchor_table.stdout" | sed 's/^/anchors: /'
  [ -s "$work/scan_by_key_bench.stdout" ] && grep -i '^summary' "$work/scan_by_key_bench.stdout"
  [ -s "$work/call_time_bench.stdout" ] && grep -E '^(checks|goal|floor)' "$work/call_time_bench.stdout"
  [ -s "$work/select_bench.stdout" ] && grep -i '^summary' "$work/select_bench.stdout"
  [ -s "$work/compaction_bench.stdout" ] && grep -i '^summary' "$work/compaction_bench.stdout"
  [ -s "$work/reduce_by_key_bench.stdout" ] && grep -i '^summary' "$work/reduce_by_key_bench.stdout"
  [ -s "$work/ablation_bench.stdout" ] && grep -i '^summary' "$work/ablation_bench.stdout"
  [ -s "$work/sharded_scan_bench.stdout" ] && grep -E '^(\| [0-9]|checks)' "$work/sharded_scan_bench.stdout" | sed 's/^/sharded: /'
}

# ------------------------------------------------------------------------------------------------
# compute-sanitizer

sanitizer_tools=(memcheck racecheck synccheck initcheck)

# Sizes per tool: racecheck instruments every shared-memory access and is the slowest.
sanitizer_max_elements() {
  case "$1" in
    racecheck) echo $((1 << 16)) ;;
    synccheck) echo $((1 << 18)) ;;
    *) echo $((1 << 20)) ;;
  esac
}
sanitizer_stress_calls() {
  case "$1" in
    racecheck | synccheck) echo 60 ;;
    *) echo 150 ;;
  esac
}

# GoogleTest filter per program (and tool). Every case runs unless listed here with its reason.
# The tests of this repository already shrink under SPSCAN_TEST_MAX_ELEMENTS and SPSCAN_STRESS_CALLS
# (sizes above the cap skip, repeat counts drop), so none needs filtering today; add patterns as
# `name) echo '-Suite.SlowCase:Other.*' ;;` when a case is slow at any size.
# Cases left out under every sanitizer, with why:
#  - tests that assert a call returned while its stream was still busy (nosync): the sanitizers
#    serialize work, so "still busy" is not observable under them; they run in the plain ctest pass.
#  - under racecheck, temporary_storage_test's two tests that launch from several host threads at
#    once: racecheck loses track of such launches (concurrency_test.cu says more) and each has run
#    past its limit there in one run and not in another; memcheck, synccheck and initcheck run
#    them, and so does the plain ctest pass.
#  - the test that provokes a CUDA error on purpose (a synchronize refused during graph capture):
#    memcheck reports that API error as an error although the test expects and checks it.
#  - sharded_scan_test's cases that call NCCL (one rank, and every GPU): NCCL provokes and handles
#    CUDA API errors of its own (cudaErrorNoKernelImageForDevice from cudaFuncGetAttributes,
#    cudaErrorPeerAccessAlreadyEnabled), which memcheck counts as errors, and its all-gather
#    kernels read words of its own buffers that initcheck calls uninitialized. The cases with
#    several shards of one GPU run every spscan kernel of the sharded scans without NCCL.
sanitizer_filter() { # sanitizer_filter <program name> <tool>
  case "$1" in
    scan_policies_test) echo '*:-*ReturnsWhileItIsBusy*:*CudaErrorDuringTheCallIsThrownAsThrustSystemError*' ;;
    par_policy_test) echo '*:-*NosyncFormsReturnWhileTheirStreamIsStillBusy*' ;;
    temporary_storage_test) [ "$2" = racecheck ] && echo '*:-*EightThreadsGrowing*:*PerThreadStreams*' || echo '*' ;;
    sharded_scan_test) echo '*:-*OneRank*:ShardedScanGpus.*' ;;
    *) echo '*' ;;
  esac
}

# GoogleTest shards a program runs in under a tool, each its own sanitizer run at the same time as
# the others (1: the whole program in one run). Under racecheck the ring programs' tests take
# ~200 s in one run (every shared-memory access of the ring's stages instrumented), past a run's
# time limit when eight runs share the host; in four shards each takes under a minute. Since the
# ring engine's tests run every case with and without the prefix service, they, select_test and
# temporary_storage_test ran past the limit under racecheck, and the ring tests under synccheck:
# they run in shards too.
sanitizer_shards() { # sanitizer_shards <program name> <tool>
  case "$1:$2" in
    ring_programs_test:racecheck | ring_engine_test:racecheck) echo 4 ;;
    ring_programs_test:synccheck | ring_engine_test:synccheck) echo 2 ;;
    select_test:racecheck | temporary_storage_test:racecheck) echo 2 ;;
    *) echo 1 ;;
  esac
}

# Programs that make no CUDA call at all (host fallback, the protocol models, the host models of the
# ablation bench's block scans, its CSV, the version, the exact-operator trait, the planner's
# choices): compute-sanitizer refuses them ("terminated before first instrumented API call"), so
# they are not run under it.
host_only_program() { # host_only_program <program name>
  case "$1" in
    host_fallback_test | lookback_model_test | ring_model_test | ablation_block_scans_test | ablation_csv_test | version_test \
      | exact_association_test | planner_test | in_place_compaction_model_test) return 0 ;;
    *) return 1 ;;
  esac
}

find_sanitizer() {
  local candidate
  for candidate in "$(command -v compute-sanitizer 2> /dev/null)" /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# One run (shard <shard> of <shards>), in the background; writes <log> and <log>.rc.
sanitizer_run() { # sanitizer_run <sanitizer> <tool> <program> <log> <seconds> <shard> <shards>
  local sanitizer=$1 tool=$2 program=$3 log=$4 limit=$5 shard=$6 shards=$7
  local name filter max_elements calls part=""
  name=$(basename "$program")
  filter=$(sanitizer_filter "$name" "$tool")
  max_elements=$(sanitizer_max_elements "$tool")
  calls=$(sanitizer_stress_calls "$tool")
  ((shards > 1)) && part=", shard $((shard + 1)) of $shards"
  {
    echo "######## $tool: $name (filter '$filter'$part, SPSCAN_TEST_MAX_ELEMENTS=$max_elements," \
      "SPSCAN_STRESS_CALLS=$calls, timeout ${limit}s)"
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
      SPSCAN_TEST_MAX_ELEMENTS=$max_elements SPSCAN_STRESS_CALLS=$calls \
      timeout -k 10 "$limit" "$sanitizer" --tool "$tool" $( [ "$tool" = memcheck ] && echo --leak-check full) \
      --error-exitcode 1 --print-limit 20 "$program" --gtest_filter="$filter"
    echo "$?" > "$log.rc"
  } > "$log" 2>&1
}

# The log of a program's run under a tool, or of one of its shards.
sanitizer_log_of() { # sanitizer_log_of <logs dir> <tool> <program> <shard> <shards>
  if (($5 > 1)); then
    echo "$1/$2.$(basename "$3").shard$4.log"
  else
    echo "$1/$2.$(basename "$3").log"
  fi
}

# Errors a sanitizer log reports: racecheck's hazard errors, or the tools' error summary.
sanitizer_errors() { # sanitizer_errors <log>
  local n
  n=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?' "$1" | grep -oE '\([0-9]+' |
    tr -d '(' | awk '{ s += $1 } END { print s + 0 }')
  local m
  m=$(grep -oE 'ERROR SUMMARY: [0-9]+ errors?' "$1" | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
  echo $((n > m ? n : m))
}
sanitizer_has_summary() {
  grep -qE 'ERROR SUMMARY:|RACECHECK SUMMARY:' "$1"
}
gtest_failures() { # failed test names in a GoogleTest log
  grep -E '^\[  FAILED  \] [A-Za-z]' "$1" | sed 's/ (.*//' | sort -u | wc -l
}

phase_sanitizer() {
  local sanitizer
  if ! sanitizer=$(find_sanitizer); then
    sanitizer_table="  compute-sanitizer not found"
    echo "compute-sanitizer not found" > "$sanitizer_log"
    overall_ok=0
    return
  fi
  local programs=()
  local program
  while IFS= read -r program; do
    programs+=("$program")
  done < <(find "$build/tests" -maxdepth 1 -type f -executable -name '*_test' 2> /dev/null | sort |
    while IFS= read -r p; do host_only_program "$(basename "$p")" || echo "$p"; done)
  if ((${#programs[@]} == 0)); then
    sanitizer_table="  no test programs found in $build/tests"
    echo "no test programs found" > "$sanitizer_log"
    overall_ok=0
    return
  fi
  local tool
  for tool in "${sanitizer_tools[@]}"; do
    sanitizer_settings+="  $tool: SPSCAN_TEST_MAX_ELEMENTS=$(sanitizer_max_elements "$tool")"
    sanitizer_settings+=" SPSCAN_STRESS_CALLS=$(sanitizer_stress_calls "$tool")"$'\n'
  done

  local logs="$work/sanitizer"
  rm -rf "$logs"
  mkdir -p "$logs"
  # Memcheck runs are queued first: if time runs out, the most informative tool is complete.
  local jobs=() shards shard
  for tool in "${sanitizer_tools[@]}"; do
    for program in "${programs[@]}"; do
      shards=$(sanitizer_shards "$(basename "$program")" "$tool")
      for ((shard = 0; shard < shards; ++shard)); do
        jobs+=("$tool $shard $shards $program")
      done
    done
  done
  # Stop starting runs 20 s before the budget ends, to leave time for the summary.
  local deadline=$((start + budget - 20))
  note "compute-sanitizer: ${#jobs[@]} runs, $sanitizer_jobs at a time, until $((deadline - start))s -> $sanitizer_log"
  local job
  for job in "${jobs[@]}"; do
    read -r tool shard shards program <<< "$job"
    local log
    log=$(sanitizer_log_of "$logs" "$tool" "$program" "$shard" "$shards")
    while (($(jobs -rp | wc -l) >= sanitizer_jobs)); do
      wait -n
    done
    local left=$((deadline - SECONDS))
    if ((left < 15)); then
      echo "######## $tool: $(basename "$program"): not run (time budget exhausted)" > "$log"
      echo "budget" > "$log.rc"
      continue
    fi
    local limit=$((left < sanitizer_run_timeout ? left : sanitizer_run_timeout))
    sanitizer_run "$sanitizer" "$tool" "$program" "$log" "$limit" "$shard" "$shards" &
  done
  wait

  # A run that failed only because the sanitizer lost track of a kernel launch ("Internal
  # Sanitizer Error", seen with racecheck when several programs that launch from many host
  # threads run at once) is repeated once, alone; the repeat counts, and both attempts go to the
  # merged log.
  for job in "${jobs[@]}"; do
    read -r tool shard shards program <<< "$job"
    local log
    log=$(sanitizer_log_of "$logs" "$tool" "$program" "$shard" "$shards")
    if [ "$(cat "$log.rc" 2> /dev/null)" != "0" ] && grep -q 'Internal Sanitizer Error' "$log" &&
      ! grep -qE '^========= (Invalid|Barrier|Uninitialized|Race|Error:)' "$log"; then
      local left=$((deadline - SECONDS))
      ((left < 15)) && continue
      mv "$log" "$log.first"
      sanitizer_problems+="  $tool $(basename "$program"): internal sanitizer error, repeated alone (result below)"$'\n'
      sanitizer_run "$sanitizer" "$tool" "$program" "$log" $((left < sanitizer_run_timeout ? left : sanitizer_run_timeout)) \
        "$shard" "$shards"
    fi
  done

  # Merge the logs and tabulate.
  : > "$sanitizer_log"
  sanitizer_table=$(printf '  %-10s %5s %6s %7s %14s %9s %8s\n' tool runs clean errors test-failures timeouts "not-run")
  for tool in "${sanitizer_tools[@]}"; do
    local runs=0 clean=0 errors=0 failing=0 timeouts=0 skipped=0
    for program in "${programs[@]}"; do
      # A program's shards count as one run: clean when every shard is.
      local name log shards shard r e=0 f=0 rc=0 summaries=1 timed_out=0 not_run=0
      name=$(basename "$program")
      shards=$(sanitizer_shards "$name" "$tool")
      for ((shard = 0; shard < shards; ++shard)); do
        log=$(sanitizer_log_of "$logs" "$tool" "$program" "$shard" "$shards")
        if [ -f "$log.first" ]; then
          { echo "######## first attempt, not counted (internal sanitizer error; repeated alone below):"; cat "$log.first"; } >> "$sanitizer_log"
        fi
        cat "$log" >> "$sanitizer_log" 2> /dev/null
        r=$(cat "$log.rc" 2> /dev/null || echo "missing")
        if [ "$r" = "budget" ]; then
          not_run=1
          continue
        fi
        e=$((e + $(sanitizer_errors "$log")))
        f=$((f + $(gtest_failures "$log")))
        if [ "$r" = "124" ] || [ "$r" = "137" ]; then
          timed_out=1
        elif [ "$r" != "0" ]; then
          rc=$r
        fi
        sanitizer_has_summary "$log" || summaries=0
      done
      errors=$((errors + e))
      ((e > 0)) && overall_ok=0
      if ((not_run)); then
        skipped=$((skipped + 1))
        sanitizer_problems+="  $tool $name: not run (time budget; sanitizer errors in what ran: $e)"$'\n'
        continue
      fi
      runs=$((runs + 1))
      if ((timed_out)); then
        timeouts=$((timeouts + 1))
        sanitizer_problems+="  $tool $name: timed out (errors so far: $e)"$'\n'
      elif [ "$rc" = "0" ] && ((e == 0 && f == 0 && summaries)); then
        clean=$((clean + 1))
      else
        ((f > 0)) && failing=$((failing + 1))
        sanitizer_problems+="  $tool $name: exit status $rc, $e sanitizer error(s), $f failed test(s)"$'\n'
        overall_ok=0
      fi
    done
    sanitizer_table+=$'\n'$(printf '  %-10s %5d %6d %7d %14d %9d %8d' \
      "$tool" "$runs" "$clean" "$errors" "$failing" "$timeouts" "$skipped")
  done
}

# ------------------------------------------------------------------------------------------------
# Run and summarize

device=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null | head -n 1)

phase_build
if ((!only_bench && !skip_ctest)); then
  phase_ctest
fi
if ((!skip_bench)); then
  phase_bench
fi
if ((!only_bench && !skip_sanitizer)); then
  phase_sanitizer
fi

{
  echo "==================== spscan GPU check ===================="
  echo "device:    ${device:-unknown (nvidia-smi failed)}"
  commit=$(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)
  if git -C "$root" status --porcelain 2> /dev/null | grep -q .; then
    commit="$commit (with local changes)"
  fi
  echo "commit:    $commit"
  echo "build:     $build_status"
  echo "ctest:     $ctest_status"
  if ((!only_bench && !skip_sanitizer)); then
    echo "sanitizer: per tool (runs = test programs run under it; errors = sanitizer-reported)"
    printf '%s' "$sanitizer_settings"
    echo "$sanitizer_table"
    if [ -n "$sanitizer_problems" ]; then
      echo "  problems:"
      printf '%s' "$sanitizer_problems"
    fi
  else
    echo "sanitizer: not run"
  fi
  echo "bench:     $bench_status"
  if ((!skip_bench)); then
    bench_summary_lines | sed 's/^/  | /'
  fi
  echo "files:     $(find "$OUT" -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' ')(in $OUT)"
  echo "total:     $(elapsed) s of a ${budget} s budget; overall: $( ((overall_ok)) && echo PASS || echo FAIL)"
} > "$summary"
cat "$summary"
((overall_ok)) && exit 0 || exit 1

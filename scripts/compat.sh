#!/usr/bin/env bash
# The compatibility matrix: builds spscan's tests with each toolchain below and runs them (on a
# machine without a GPU, the tests that need one report skipped), then prints one line per
# configuration, last:
#
#   compat <nvcc version> <CCCL version>: N passed, M failed
#
# Configurations:
#   native   the CUDA toolkit's nvcc with the CCCL it ships
#   newest   the toolkit's nvcc with the newest CCCL headers (CCCL 3.5, from PyPI)
#   cuda12   nvcc 12.4 with CCCL 2.8 (scripts/install-compat-toolchains.sh)
# The toolchains install into build/toolchains; each configuration builds in build/compat/<name>
# (tests only: the examples and the benchmark use nothing the tests do not). The test programs'
# device code goes through the front end only (SPSCAN_TESTS_SYNTAX_ONLY: their GPU tests could not
# run here anyway), and a slice of the type matrix (tests/matrix) is compiled to machine code, so
# that each toolchain's code generation is checked too: for sm_90 with the newest CCCL's headers,
# and for sm_70, sm_80 and sm_90 with nvcc 12 (nvcc 13 builds no sm_70).
#
# Usage: scripts/compat.sh [--native-build DIR [--native-junit FILE]] [--jobs N]
#   --native-build DIR   the native configuration is already built in DIR (scripts/run-tests.sh's
#                        build): run its tests there instead of building it again
#   --native-junit FILE  and its tests have run already: count them from CTest's JUnit report
# Exit status: 0 when every configuration built and passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

native_build=""
native_junit=""
jobs=$(nproc)
while (($#)); do
  case "$1" in
    --native-build) native_build=$2; shift 2 ;;
    --native-junit) native_junit=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "compat.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

source scripts/env.sh
[[ -z $native_build ]] || native_build=$(cd "$native_build" && pwd)
[[ -z $native_junit ]] || native_junit=$(cd "$(dirname "$native_junit")" && pwd)/$(basename "$native_junit")
mkdir -p "$root/build/compat"
toolchains="$root/build/toolchains"
scripts/install-compat-toolchains.sh "$toolchains" || exit 1

status=0
lines=()

xml_count() { # xml_count <attribute> <file>: the first `attribute="N"` in the file, else 0
  local value
  value=$(grep -m1 -o "$1=\"[0-9]*\"" "$2" 2> /dev/null | grep -o '[0-9]*')
  echo "${value:-0}"
}

# run_configuration <name> <build dir> <nvcc> <CCCL include dir or ""> <library dir or "">
#                   <type matrix architectures> [build]
run_configuration() {
  local name=$1 dir=$2 nvcc=$3 cccl=$4 libdir=$5 matrix_architectures=$6 build=${7:-build}
  local log="$root/build/compat/$name.log"
  echo "== compat: $name ($nvcc${cccl:+, CCCL from $cccl}) -> $log"
  local ok=1
  if [[ $build == build ]]; then
    local options=(-DCMAKE_BUILD_TYPE=Release -DSPSCAN_BUILD_EXAMPLES=OFF -DSPSCAN_BUILD_BENCH=OFF
      -DCMAKE_CUDA_COMPILER="$nvcc" -DSPSCAN_TESTS_SYNTAX_ONLY=ON
      -DSPSCAN_TYPE_MATRIX=SLICE "-DSPSCAN_TYPE_MATRIX_ARCHITECTURES=$matrix_architectures")
    # -I, not -isystem: the toolkit's own include directory is a -I one, searched before every
    # -isystem one, and it holds an older <nv/target>.
    [[ -n $cccl ]] && options+=("-DCMAKE_CUDA_FLAGS=-I$cccl")
    {
      cmake -S "$root" -B "$dir" -G Ninja "${options[@]}" && cmake --build "$dir" --parallel "$jobs" -- -k 0
    } > "$log" 2>&1 || ok=0
  else
    : > "$log"
  fi
  local junit="$dir/compat-junit.xml"
  rm -f "$junit"
  local versions
  versions=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$dir/tests/toolchain_version" 2> /dev/null)
  [[ -n $versions ]] || versions="unknown unknown"
  if [[ $build == reuse && -n $native_junit ]]; then
    cp "$native_junit" "$junit" || ok=0
  else
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      ctest --test-dir "$dir" --output-on-failure --parallel "${SPSCAN_TEST_JOBS:-2}" --output-junit "$junit" \
      >> "$log" 2>&1 || ok=0
  fi
  local total failed skipped passed
  total=$(xml_count tests "$junit")
  failed=$(xml_count failures "$junit")
  skipped=$(($(xml_count skipped "$junit") + $(xml_count disabled "$junit")))
  passed=$((total - failed - skipped))
  if ((ok == 0 || failed != 0 || total == 0)); then
    status=1
    ((failed == 0)) && failed=1 # a build or ctest failure with no failed test to show for it
    echo "   $name FAILED: see $log"
  fi
  lines+=("compat $versions: $passed passed, $failed failed")
  echo "   $name: $passed passed, $failed failed, $skipped skipped (need a GPU)"
}

toolkit_nvcc=$(command -v nvcc)
if [[ -n $native_build ]]; then
  run_configuration native "$native_build" "$toolkit_nvcc" "" "" "" reuse
else
  run_configuration native "$root/build/compat/native" "$toolkit_nvcc" "" "" "75;80;90"
fi
run_configuration newest "$root/build/compat/newest" "$toolkit_nvcc" "$toolchains/cccl-3.5/include" "" "90"
run_configuration cuda12 "$root/build/compat/cuda12" "$toolchains/cuda-12.4/bin/nvcc" "$toolchains/cccl-2.8/include" \
  "$toolchains/cuda-12.4/lib64" "70;80;90"

printf '%s\n' "${lines[@]}"
exit $status

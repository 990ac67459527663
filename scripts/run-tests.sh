#!/usr/bin/env bash
# Builds the tests and runs them (CTest). Tests that need a GPU are reported as skipped on a
# machine without one; there their device code (and the type matrix slice's) goes through nvcc's
# front end only, where templates are instantiated and static assertions decided, and the build
# takes a few minutes on 2 cores instead of about ten. SPSCAN_TESTS_SYNTAX_ONLY=ON or OFF decides
# it instead of the GPU's presence. SPSCAN_CTEST_JUNIT=FILE: CTest's JUnit report there as well.
# The examples, the benchmarks and the whole type matrix have their own commands
# (scripts/run-example.sh, docs/benchmarks.md, scripts/type-matrix.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
syntax_only=${SPSCAN_TESTS_SYNTAX_ONLY:-}
if [[ -z $syntax_only ]]; then
  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
    syntax_only=OFF
  else
    syntax_only=ON
  fi
fi
if [[ $syntax_only == ON ]]; then
  echo "run-tests: device code through nvcc's front end only (no GPU here: the GPU tests skip)"
else
  echo "run-tests: device code compiled for the GPU"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSPSCAN_TESTS_SYNTAX_ONLY="$syntax_only" -DSPSCAN_TYPE_MATRIX_SYNTAX_ONLY="$syntax_only"
cmake --build build --target spscan_tests --parallel "${SPSCAN_BUILD_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure --parallel "${SPSCAN_TEST_JOBS:-2}" \
  ${SPSCAN_CTEST_JUNIT:+--output-junit "$SPSCAN_CTEST_JUNIT"}

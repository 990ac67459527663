#!/usr/bin/env bash
# Builds the tests and runs them (CTest). Tests that need a GPU are reported as skipped on a
# machine without one. The examples, the benchmarks and the type matrix have their own commands
# (scripts/run-example.sh, docs/benchmarks.md, scripts/type-matrix.sh). On 2 cores without a GPU
# it takes about 10 minutes, almost all of it compiling.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPSCAN_TESTS_SYNTAX_ONLY=OFF
cmake --build build --target spscan_tests --parallel "${SPSCAN_BUILD_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure --parallel "${SPSCAN_TEST_JOBS:-2}"

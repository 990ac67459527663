#!/usr/bin/env bash
# Builds everything (library tests, examples, benchmark) and runs the tests. Tests that need a GPU
# are reported as skipped on a machine without one.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "${SPSCAN_BUILD_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure --parallel "${SPSCAN_TEST_JOBS:-2}"

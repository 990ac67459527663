#!/usr/bin/env bash
# Builds the type matrix (tests/matrix) in full into a configured build folder, for the given CUDA
# architectures, and runs its tests (on a machine without a GPU they are reported skipped: the
# build is the check). Every call Thrust accepts, for every element type and every output, init
# and accumulator type it accepts with it, must compile for every architecture spscan supports.
#
# Usage: scripts/type-matrix.sh [BUILD_DIR] [ARCHITECTURES]   (default: build "75;80;90")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
architectures=${2:-75;80;90}
source scripts/env.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPSCAN_TYPE_MATRIX=FULL \
  "-DSPSCAN_TYPE_MATRIX_ARCHITECTURES=$architectures" > /dev/null
cmake --build "$build" --target type_matrix --parallel "${SPSCAN_BUILD_JOBS:-$(nproc)}"
ctest --test-dir "$build" --label-regex type_matrix --output-on-failure

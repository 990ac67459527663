#!/usr/bin/env bash
# Builds the type matrix (tests/matrix) in full into a configured build folder, for the given CUDA
# architectures, and runs its tests. Every call Thrust accepts, for every element type and every
# output, init and accumulator type it accepts with it, must compile for every architecture spscan
# supports.
#
# Usage: scripts/type-matrix.sh [--syntax-only] [BUILD_DIR] [ARCHITECTURES]
#                               (default: build "75;80;90")
#   --syntax-only   device code through nvcc's front end only (-fdevice-syntax-only): every cell's
#                   templates and static assertions for every architecture, about 5x faster, and
#                   nothing to run (the check of a machine without a GPU: CI's)
set -euo pipefail
cd "$(dirname "$0")/.."
syntax_only=OFF
if [[ ${1:-} == --syntax-only ]]; then
  syntax_only=ON
  shift
fi
build=${1:-build}
architectures=${2:-75;80;90}
source scripts/env.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPSCAN_TYPE_MATRIX=FULL \
  "-DSPSCAN_TYPE_MATRIX_ARCHITECTURES=$architectures" "-DSPSCAN_TYPE_MATRIX_SYNTAX_ONLY=$syntax_only" > /dev/null
cmake --build "$build" --target type_matrix --parallel "${SPSCAN_BUILD_JOBS:-$(nproc)}"
if [[ $syntax_only == ON ]]; then
  echo "type matrix: every cell compiled for $architectures (device code through the front end)"
else
  ctest --test-dir "$build" --label-regex type_matrix --output-on-failure
fi

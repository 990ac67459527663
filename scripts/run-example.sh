#!/usr/bin/env bash
# Builds and runs the main example: a Thrust program switched to spscan with a one-line change.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target swap_thrust
build/examples/swap_thrust

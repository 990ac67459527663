#!/usr/bin/env bash
# consumer test: run.sh <find_package|add_subdirectory|fetchcontent> <spscan source dir> <scratch dir> [cmake option]...
# fetchcontent: FetchContent_Declare(spscan URL ...) from an archive of the source tree, as a
# project that downloads a release would.
# The options (the compiler and flags of the build that runs the test) configure the consumer.
set -euo pipefail
mode=$1 source_dir=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
options=(-DCMAKE_CUDA_ARCHITECTURES=90 "$@")
if [[ $mode == find_package ]]; then
  cmake -S "$source_dir" -B "$work/spscan-build" -DSPSCAN_BUILD_TESTS=OFF -DSPSCAN_BUILD_EXAMPLES=OFF \
    -DSPSCAN_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --install "$work/spscan-build" >/dev/null
  cmake -S "$source_dir/tests/consumer" -B "$work/consumer" "${options[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
elif [[ $mode == fetchcontent ]]; then
  tar -czf "$work/spscan.tar.gz" -C "$source_dir" CMakeLists.txt cmake include LICENSE
  cmake -S "$source_dir/tests/consumer" -B "$work/consumer" "${options[@]}" -DSPSCAN_ARCHIVE="$work/spscan.tar.gz" >/dev/null
else
  cmake -S "$source_dir/tests/consumer" -B "$work/consumer" "${options[@]}" -DSPSCAN_SOURCE_DIR="$source_dir" >/dev/null
fi
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"

#!/usr/bin/env bash
# Installs what spscan's build needs, where it is missing: CMake (>= 3.25), Ninja and GoogleTest
# from the system's packages; matplotlib (Python) for the benchmark plots and their test. The CUDA toolkit (nvcc 12.x/13.x with its CCCL) must already be
# installed; this script only checks for it.
set -euo pipefail

# any_exists PATH...: whether at least one of the paths (globs expanded) exists.
any_exists() {
  local path
  for path in "$@"; do
    [[ -e $path ]] && return 0
  done
  return 1
}

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
# GoogleTest: an installed package config, or the sources Debian's googletest package installs
# (tests/CMakeLists.txt takes either).
if ! any_exists /usr/lib/*/cmake/GTest/GTestConfig.cmake /usr/lib/cmake/GTest/GTestConfig.cmake \
  /usr/local/lib/cmake/GTest/GTestConfig.cmake /usr/src/googletest/CMakeLists.txt; then
  missing+=(libgtest-dev googletest)
fi

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "error: the CUDA toolkit (nvcc) is required: install it from NVIDIA, then run this again" >&2
  exit 1
fi

# NCCL, for the sharded scans' test and benchmark (cmake/spscan_nccl.cmake): the toolkit's or the
# system's where there is one, else NVIDIA's Python package for the toolkit's CUDA major version.
if ! any_exists /usr/local/cuda/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h &&
  ! python3 -c "import nvidia.nccl" >/dev/null 2>&1; then
  nvcc_path=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  cuda_major=$("$nvcc_path" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  echo "installing: nvidia-nccl-cu${cuda_major} (Python package)"
  # NCCL is optional: without it only the sharded scans' test and benchmark are left out.
  python3 -m pip install --quiet "nvidia-nccl-cu${cuda_major}" ||
    echo "warning: NCCL could not be installed; the sharded scans' test and benchmark will not be built" >&2
fi

# matplotlib, for the benchmark plots (bench/plot_*.py) and the test that draws one
# (tests/ablation_csv_test.cu, which skips without it).
if ! python3 -c "import matplotlib" >/dev/null 2>&1; then
  echo "installing: matplotlib (Python package)"
  python3 -m pip install --quiet matplotlib ||
    echo "warning: matplotlib could not be installed; the plots and the plot test will not run" >&2
fi

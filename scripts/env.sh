# Sourced by the scripts: puts the CUDA toolkit's nvcc on PATH where it is installed but not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

#!/usr/bin/env bash
# Installs the toolchains of spscan's compatibility matrix (scripts/compat.sh) into a folder of the
# build, without root and without touching the system:
#
#   cccl-3.5/   the newest CCCL headers (PyPI: nvidia-cuda-cccl), used with the toolkit's nvcc
#   cccl-2.8/   CCCL 2.8 headers (PyPI: nvidia-cuda-cccl-cu12), used with nvcc 12.4
#   cuda-12.4/  a CUDA 12.4 compiler in the toolkit's usual layout: the compiler driver and its
#               front and back ends from Debian's nvidia-cuda-toolkit (trixie, non-free; PyPI has
#               no CUDA 12 nvcc driver), ptxas, libnvvm, libdevice and the crt headers from PyPI's
#               nvidia-cuda-nvcc-cu12, the runtime's headers and libcudart from
#               nvidia-cuda-runtime-cu12
#
# Usage: scripts/install-compat-toolchains.sh [DEST]   (default: build/toolchains)
# Each toolchain is installed once; delete its folder to install it again.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-build/toolchains}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

cccl35_version=13.3.5.0.6     # nvidia-cuda-cccl: CCCL 3.5
cccl28_version=12.9.27        # nvidia-cuda-cccl-cu12: CCCL 2.8
cuda124_nvcc_wheel=12.4.131   # nvidia-cuda-nvcc-cu12
cuda124_runtime_wheel=12.4.127 # nvidia-cuda-runtime-cu12

pip_install() { # pip_install <target folder> <requirement>...
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --no-cache-dir --target "$@"
}

if [[ ! -f $dest/cccl-3.5/.installed ]]; then
  echo "compat: installing CCCL 3.5 headers"
  rm -rf "$dest/cccl-3.5"
  pip_install "$dest/cccl-3.5/pip" "nvidia-cuda-cccl==$cccl35_version"
  ln -sfn pip/nvidia/cu13/include/cccl "$dest/cccl-3.5/include"
  touch "$dest/cccl-3.5/.installed"
fi

if [[ ! -f $dest/cccl-2.8/.installed ]]; then
  echo "compat: installing CCCL 2.8 headers"
  rm -rf "$dest/cccl-2.8"
  pip_install "$dest/cccl-2.8/pip" "nvidia-cuda-cccl-cu12==$cccl28_version"
  ln -sfn pip/nvidia/cuda_cccl/include "$dest/cccl-2.8/include"
  touch "$dest/cccl-2.8/.installed"
fi

if [[ ! -f $dest/cuda-12.4/.installed ]]; then
  echo "compat: installing a CUDA 12.4 compiler"
  work="$dest/cuda-12.4.download"
  root="$dest/cuda-12.4"
  rm -rf "$work" "$root"
  mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs"
  # Debian trixie's non-free section, read with a private apt configuration.
  echo "deb http://deb.debian.org/debian trixie non-free" > "$work/apt/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)")
  apt-get "${apt_options[@]}" -qq update
  (cd "$work/debs" && apt-get "${apt_options[@]}" -qq download nvidia-cuda-toolkit)
  dpkg-deb -x "$work"/debs/nvidia-cuda-toolkit_*.deb "$work/deb"
  pip_install "$work/pip" "nvidia-cuda-nvcc-cu12==$cuda124_nvcc_wheel" "nvidia-cuda-runtime-cu12==$cuda124_runtime_wheel"

  toolkit_bin="$work/deb/usr/lib/nvidia-cuda-toolkit/bin"
  wheel_nvcc="$work/pip/nvidia/cuda_nvcc"
  wheel_runtime="$work/pip/nvidia/cuda_runtime"
  mkdir -p "$root/bin/crt" "$root/nvvm/bin" "$root/nvvm/lib64" "$root/nvvm/libdevice" "$root/include" "$root/lib64"
  cp "$toolkit_bin/nvcc" "$root/bin/"
  cp "$toolkit_bin/cicc" "$root/nvvm/bin/"
  cp "$toolkit_bin"/crt/*.stub "$root/bin/crt/"
  for tool in cudafe++ fatbinary nvlink bin2c; do
    cp "$work/deb/usr/bin/$tool" "$root/bin/"
  done
  cp "$wheel_nvcc/bin/ptxas" "$root/bin/"
  cp "$wheel_nvcc/nvvm/lib64/libnvvm.so" "$root/nvvm/lib64/"
  cp "$wheel_nvcc"/nvvm/libdevice/*.bc "$root/nvvm/libdevice/"
  cp -r "$wheel_nvcc/include/crt" "$wheel_nvcc"/include/*.h "$root/include/"
  cp -r "$wheel_runtime/include/." "$root/include/"
  rm -rf "$root/include/__init__.py" "$root/include/__pycache__"
  cp "$wheel_runtime/lib/libcudart.so.12" "$root/lib64/"
  ln -sfn libcudart.so.12 "$root/lib64/libcudart.so"
  # PyPI has the shared runtime only. nvcc's (and CMake's compiler checks') default link line names
  # the static one and the device runtime: a linker script forwards the first to the shared
  # runtime, and an empty archive stands for the second (needed only for relocatable device code).
  echo 'INPUT(libcudart.so.12)' > "$root/lib64/libcudart_static.a"
  ar rc "$root/lib64/libcudadevrt.a"
  # Where nvcc finds its parts, relative to its own folder.
  cat > "$root/bin/nvcc.profile" << 'PROFILE'
TOP                = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH   += $(TOP)/lib64:
PATH              += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES          += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES         =+ $(_SPACE_) "-L$(TOP)/lib64"
PROFILE
  version=$("$root/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  if [[ $version != 12.4 ]]; then
    echo "compat: Debian's nvidia-cuda-toolkit is nvcc $version, not the 12.4 the PyPI wheels match" >&2
    exit 1
  fi
  rm -rf "$work"
  touch "$root/.installed"
fi
echo "compat: toolchains in $dest"

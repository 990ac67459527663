// Shared macros, the library version, and the toolchains spscan supports.
#pragma once

#include <thrust/version.h>

// Supported: CCCL 2.8 to 3.x (Thrust's version is CCCL's) with nvcc 12 or 13. docs/toolchains.md lists the
// combinations that are built and tested. Stop here, with a message, rather than deep inside a
// template that an older CCCL lacks.
#if THRUST_VERSION < 200800 || THRUST_VERSION >= 400000
#  error "spscan supports CCCL (Thrust/CUB) 2.8 to 3.x; this CCCL's THRUST_VERSION is outside that range. Put a supported CCCL's include directory first on the include path."
#endif
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 12
#  error "spscan needs nvcc 12 or newer (C++17 with CCCL 2.8 or newer)."
#endif

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#define SPSCAN_VERSION_MAJOR 0
#define SPSCAN_VERSION_MINOR 1
#define SPSCAN_VERSION_PATCH 0

#if defined(__CUDACC__)
#  define SPSCAN_HOST_DEVICE __host__ __device__
#else
#  define SPSCAN_HOST_DEVICE
#endif

// Kernels carry no visibility attribute: a hidden one warns (nvcc 1407) whenever a user's
// operator lives in an anonymous namespace, which is common.
#if defined(__CUDACC__)
#  define SPSCAN_KERNEL __global__
#endif

// 128-bit single-copy-atomic loads and stores (PTX 8.3, sm_70) let 8-byte accumulators share one
// word with their tile status. Define SPSCAN_HAS_WORD128 to 0 to use the split layout instead.
#if !defined(SPSCAN_HAS_WORD128)
#  if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 3))
#    define SPSCAN_HAS_WORD128 1
#  else
#    define SPSCAN_HAS_WORD128 0
#  endif
#endif
#if SPSCAN_HAS_WORD128 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#  error "spscan: 128-bit tile states need sm_70 or newer; compile with -DSPSCAN_HAS_WORD128=0"
#endif

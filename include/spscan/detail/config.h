// Shared macros and the library version.
#pragma once

#include <thrust/detail/config.h>

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

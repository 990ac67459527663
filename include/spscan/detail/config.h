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

// Kernels are hidden so that two shared libraries built for different architectures
// can never bind each other's instantiations.
#if defined(__CUDACC__)
#  define SPSCAN_KERNEL __global__ __attribute__((visibility("hidden")))
#endif

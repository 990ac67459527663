// GPU presence for tests: tests that need a device skip, visibly, where none exists.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace spscan_test
{

inline bool gpu_available()
{
  static const bool available = [] {
    int count             = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError(); // a machine without a driver leaves an error behind
    return err == cudaSuccess && count > 0;
  }();
  return available;
}

} // namespace spscan_test

// First statement of every test that needs a GPU.
#define SPSCAN_REQUIRE_GPU()                                              \
  do                                                                      \
  {                                                                       \
    if (!::spscan_test::gpu_available())                                  \
    {                                                                     \
      GTEST_SKIP() << "needs a CUDA GPU; none is available on this machine"; \
    }                                                                     \
  } while (0)

// GPU presence for tests: tests that need a device skip, visibly, where none exists.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
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

namespace spscan_test
{

// Upper bound on the element counts a test uses: SPSCAN_TEST_MAX_ELEMENTS in the environment
// (set by the sanitizer runs, which are 10-100x slower), else no bound. Tests skip larger sizes.
inline std::size_t max_test_elements()
{
  const char* text = std::getenv("SPSCAN_TEST_MAX_ELEMENTS");
  return text ? static_cast<std::size_t>(std::strtoull(text, nullptr, 10)) : ~std::size_t{0};
}

} // namespace spscan_test

// GPU presence for tests: tests that need a device skip, visibly, where none exists.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
#include <gtest/gtest.h>

namespace spscan_test
{

// A build that checks compilation only (nvcc -fdevice-syntax-only: SPSCAN_TESTS_SYNTAX_ONLY in
// tests/CMakeLists.txt) holds no kernel to run, GPU or not.
#if defined(SPSCAN_TEST_NO_DEVICE_CODE)
inline constexpr const char* no_gpu_reason = "needs device code; this build checked it through nvcc's front end only";
#else
inline constexpr const char* no_gpu_reason = "needs a CUDA GPU; none is available on this machine";
#endif

inline bool gpu_available()
{
#if defined(SPSCAN_TEST_NO_DEVICE_CODE)
  return false;
#else
  static const bool available = [] {
    int count             = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError(); // a machine without a driver leaves an error behind
    return err == cudaSuccess && count > 0;
  }();
  return available;
#endif
}

} // namespace spscan_test

// First statement of every test that needs a GPU.
#define SPSCAN_REQUIRE_GPU()                                              \
  do                                                                      \
  {                                                                       \
    if (!::spscan_test::gpu_available())                                  \
    {                                                                     \
      GTEST_SKIP() << ::spscan_test::no_gpu_reason;                       \
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

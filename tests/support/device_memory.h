// Device memory and streams for GPU tests, released however a test ends, and CUDA status checks
// that throw (a test reports the exception as a failure).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace spscan_test
{

inline void cuda_check(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

// n elements of device memory (at least one element's worth, so that `data` is never null).
template <class T>
struct device_array
{
  T* data = nullptr;
  explicit device_array(std::size_t n)
  {
    cuda_check(cudaMalloc(&data, (n > 0 ? n : 1) * sizeof(T)), "cudaMalloc");
  }
  ~device_array()
  {
    cudaFree(data);
  }
  device_array(const device_array&)            = delete;
  device_array& operator=(const device_array&) = delete;
};

// A non-blocking stream, drained before it is destroyed.
struct owned_stream
{
  cudaStream_t stream{};
  owned_stream()
  {
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~owned_stream()
  {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  owned_stream(const owned_stream&)            = delete;
  owned_stream& operator=(const owned_stream&) = delete;
};

// An allocator (Thrust's interface) that lends the same block again and again, each time filled
// with garbage on the default stream (after the previous call's kernels, before the next call's):
// tile statuses that read as published aggregates and prefixes, and a tile counter far past the
// end.
struct garbage_allocator
{
  using value_type = char;
  static constexpr unsigned char garbage = 0xa5;
  char* block       = nullptr;
  std::size_t bytes = 0;
  int lent          = 0;
  char* allocate(std::ptrdiff_t n)
  {
    const auto wanted = static_cast<std::size_t>(n);
    if (wanted > bytes)
    {
      cuda_check(cudaFree(block), "cudaFree");
      cuda_check(cudaMalloc(&block, wanted), "cudaMalloc");
      bytes = wanted;
    }
    cuda_check(cudaMemsetAsync(block, garbage, bytes, 0), "garbage");
    ++lent;
    return block;
  }
  void deallocate(char*, std::size_t) {}
  ~garbage_allocator()
  {
    cudaFree(block);
  }
};

} // namespace spscan_test

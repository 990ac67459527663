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

} // namespace spscan_test

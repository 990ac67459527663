// What the current device grants a block, read once per device: the tile shapes (classic/
// kernel_shape.h) and the ring's depth (ring/ring_launch.h) are chosen from it.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/thrust_bridge.h>

#include <atomic>
#include <cstddef>

namespace spscan::detail
{

// What a device grants one block.
struct device_limits
{
  std::size_t shared_bytes_per_block; // the most shared memory a kernel may opt in to
};

// Every CUDA GPU grants a block 48 KiB of shared memory.
constexpr std::size_t guaranteed_shared_bytes = 48 * 1024;

// The current device's limits, read once per device.
inline device_limits current_device_limits()
{
  constexpr int max_devices = 64;
  static std::atomic<std::size_t> known[max_devices]; // 0: not read yet
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  if (device < max_devices)
  {
    if (const std::size_t bytes = known[device].load(std::memory_order_relaxed))
    {
      return {bytes};
    }
  }
  int bytes = 0;
  throw_if_failed(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                  "spscan: reading the device's shared memory per block failed");
  if (device < max_devices)
  {
    known[device].store(static_cast<std::size_t>(bytes), std::memory_order_relaxed);
  }
  return {static_cast<std::size_t>(bytes)};
}

} // namespace spscan::detail

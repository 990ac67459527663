// Clearing a launch's tile storage, and launching the kernel that uses it. Storage that a call
// cannot know to be zero (a caller's allocator, a larger call than the kept block served) is
// cleared on the stream before that kernel. Two ways, each where it measured faster (H100,
// scan_bench, bench/NOTES.md v16):
//  - a memset, then the kernel: the classic engine's. A small memset before its kernel costs
//    about nothing (int32 2^20: 13.0 us a call with it, 13.4 without), where a clearing kernel
//    cost ~2.5 us more.
//  - a small kernel that clears, and the kernel launched as its programmatic dependent (sm_90 and
//    newer): the ring engine's. Its persistent CTAs, with ~200 KiB of shared memory each, start
//    only once the SMs are free; as a dependent launch they become resident and set up their
//    barriers beside the clear, and wait for it (wait_for_cleared_storage) only before their
//    first access to the counter or the tile states (int32 2^22: the clear's cost 2.6 -> 1.3 us).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/thrust_bridge.h>

#include <nv/target>

#include <atomic>
#include <cstddef>

namespace spscan::detail
{

// In a kernel launched after clear_storage_kernel: returns once that kernel has finished and its
// stores are visible. Returns at once where the launch was not a dependent one.
__device__ inline void wait_for_cleared_storage()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.wait;" ::: "memory");))
}

// Writes `count` zero words from `words` on. It asks first for the dependent grid's launch: that
// grid waits for the end of this one anyway (wait_for_cleared_storage). (A template, so that every
// translation unit may have it.)
template <class Word>
SPSCAN_KERNEL void clear_storage_kernel(Word* words, std::size_t count)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.launch_dependents;");))
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    words[i] = Word{};
  }
}

// Whether the current device launches a grid before the one it depends on has finished
// (compute capability 9.0 and newer). Read once per device.
inline bool device_launches_dependents()
{
  constexpr int max_devices = 64;
  static std::atomic<int> known[max_devices]; // 0: not read yet; 1: no; 2: yes
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  if (device < max_devices)
  {
    if (const int answer = known[device].load(std::memory_order_relaxed))
    {
      return answer == 2;
    }
  }
  int major = 0;
  throw_if_failed(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                  "spscan: reading the device's compute capability failed");
  if (device < max_devices)
  {
    known[device].store(major >= 9 ? 2 : 1, std::memory_order_relaxed);
  }
  return major >= 9;
}

// How the kernel that uses a launch's tile storage is launched: after a clear it may start early
// (it then waits in wait_for_cleared_storage), otherwise as any launch.
struct storage_launch
{
  bool after_clear;

  // Launches `kernel` on `stream` with `args`; a launch error is thrown.
  template <class... Params, class... Args>
  void operator()(void (*kernel)(Params...), unsigned grid, unsigned threads, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) const
  {
    cudaLaunchAttribute early_start{};
    early_start.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
    early_start.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim          = dim3(grid);
    config.blockDim         = dim3(threads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream           = stream;
    config.attrs            = &early_start;
    config.numAttrs         = after_clear ? 1 : 0;
    throw_if_failed(cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...), "spscan: kernel launch failed");
  }
};

// How a launch's storage is cleared: see the top of this file.
enum class storage_clear
{
  memset_first,
  beside_dependent_launch
};

// Clears the first `bytes` (a multiple of 16) from `base` on `stream`, and says how to launch the
// kernel that uses them.
inline storage_launch clear_storage(void* base, std::size_t bytes, cudaStream_t stream, storage_clear how)
{
  // A call captured into a graph keeps the memset and a plain launch: a programmatic edge in a
  // graph is neither measured nor tested here. (Asked only where the answer matters: the classic
  // engine's calls make no extra API call.)
  const auto capturing = [&] {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    throw_if_failed(cudaStreamIsCapturing(stream, &capture), "spscan: cudaStreamIsCapturing failed");
    return capture != cudaStreamCaptureStatusNone;
  };
  if (how == storage_clear::memset_first || !device_launches_dependents() || capturing())
  {
    throw_if_failed(cudaMemsetAsync(base, 0, bytes, stream), "spscan: clearing tile states failed");
    return {false};
  }
  constexpr unsigned threads  = 256;
  constexpr std::size_t most  = 1024; // CTAs; a larger clear loops
  const std::size_t count     = bytes / sizeof(uint4);
  const std::size_t wanted    = (count + threads - 1) / threads;
  const unsigned grid         = static_cast<unsigned>(wanted < most ? wanted : most);
  clear_storage_kernel<uint4><<<grid, threads, 0, stream>>>(static_cast<uint4*>(base), count);
  throw_if_failed(cudaGetLastError(), "spscan: clearing tile states failed");
  return {true};
}

} // namespace spscan::detail

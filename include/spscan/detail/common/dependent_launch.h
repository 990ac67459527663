// Clearing a launch's tile storage, and launching the kernel that uses it. Storage that a call
// cannot know to be zero (a caller's allocator, a larger call than the kept block served) is
// cleared before that kernel reads it. Three ways, each where it measured faster:
//  - a memset, then the kernel: the classic engine's. A small memset before its kernel costs
//    about nothing, where a clearing kernel cost ~2.5 us a call
//    (docs/design.md#tile-storage-kept-epoch-tagged).
//  - the ring engine's: its kernel launched cooperatively (every CTA resident at once, which its
//    one CTA per SM allows), whose CTAs clear the storage, each a share, and meet at a grid
//    barrier before their first access to it (take_cleared_storage). One launch instead of two:
//    the host issues half as much, and a call timed from an idle GPU is ~2 us shorter.
//  - where a cooperative launch is not possible (stream capture; a device or a share of one
//    that cannot hold the whole grid at once), a small kernel that clears, and the kernel
//    launched as its programmatic dependent (sm_90 and newer): its CTAs become resident and set
//    up their barriers beside the clear, and wait for it (wait_for_cleared_storage) only before
//    their first access to the counter or the tile states (half the cost of a memset before).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/thrust_bridge.h>

#include <cooperative_groups.h>
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

// How the kernel that uses a launch's tile storage is launched: as any launch (its storage is
// clear), after a clear that it may start beside (it then waits in wait_for_cleared_storage), or
// cooperatively, clearing the storage itself (take_cleared_storage).
enum class storage_launch_kind
{
  plain,
  after_clear,
  clearing
};

struct storage_launch
{
  storage_launch_kind kind;

  // Launches `kernel` on `stream` with `args`, and returns true; returns false, having launched
  // nothing, only where a clearing launch's grid does not fit on the device at once (the caller
  // then clears another way). Any other launch error is thrown.
  template <class... Params, class... Args>
  bool operator()(void (*kernel)(Params...), unsigned grid, unsigned threads, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) const
  {
    cudaLaunchAttribute attribute{};
    if (kind == storage_launch_kind::after_clear)
    {
      attribute.id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
      attribute.val.programmaticStreamSerializationAllowed = 1;
    }
    else if (kind == storage_launch_kind::clearing)
    {
      attribute.id              = cudaLaunchAttributeCooperative;
      attribute.val.cooperative = 1;
    }
    cudaLaunchConfig_t config{};
    config.gridDim          = dim3(grid);
    config.blockDim         = dim3(threads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream           = stream;
    config.attrs            = &attribute;
    config.numAttrs         = kind == storage_launch_kind::plain ? 0 : 1;
    const cudaError_t status = cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
    if (status == cudaErrorCooperativeLaunchTooLarge && kind == storage_launch_kind::clearing)
    {
      cudaGetLastError(); // not the caller's error: the storage is cleared another way
      return false;
    }
    throw_if_failed(status, "spscan: kernel launch failed");
    return true;
  }
};

// How a launch's storage is cleared: see the top of this file.
enum class storage_clear
{
  memset_first,
  beside_dependent_launch,
  by_the_kernel // where a cooperative launch is possible, else beside_dependent_launch
};

// Whether `stream` is capturing a graph: a call captured keeps the memset and a plain launch (a
// programmatic edge or a cooperative node in a graph is neither measured nor tested here).
inline bool capturing(cudaStream_t stream)
{
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  throw_if_failed(cudaStreamIsCapturing(stream, &capture), "spscan: cudaStreamIsCapturing failed");
  return capture != cudaStreamCaptureStatusNone;
}

// Clears the first `bytes` (a multiple of 16) from `base` on `stream` before the kernel that uses
// them, by a memset or by a kernel beside whose end that kernel may start, and says how to launch
// it. (A launch that clears its storage itself needs nothing here.)
inline storage_launch clear_storage(void* base, std::size_t bytes, cudaStream_t stream, storage_clear how)
{
  // (Asked only where the answer matters: the classic engine's calls make no extra API call.)
  if (how == storage_clear::memset_first || !device_launches_dependents() || capturing(stream))
  {
    throw_if_failed(cudaMemsetAsync(base, 0, bytes, stream), "spscan: clearing tile states failed");
    return {storage_launch_kind::plain};
  }
  constexpr unsigned threads  = 256;
  constexpr std::size_t most  = 1024; // CTAs; a larger clear loops
  const std::size_t count     = bytes / sizeof(uint4);
  const std::size_t wanted    = (count + threads - 1) / threads;
  const unsigned grid         = static_cast<unsigned>(wanted < most ? wanted : most);
  clear_storage_kernel<uint4><<<grid, threads, 0, stream>>>(static_cast<uint4*>(base), count);
  throw_if_failed(cudaGetLastError(), "spscan: clearing tile states failed");
  return {storage_launch_kind::after_clear};
}

// A clearing launch's CTAs clear `count` words from `words`, each a share, and meet at a grid
// barrier, which also orders every CTA's clearing before every later access. Not inlined: its
// registers stay out of the kernel's roles (inline, the double scan's ring kernel spilled). (A
// template, so that every translation unit may have it.)
template <class Word>
__device__ __noinline__ void clear_and_meet(Word* words, std::size_t count)
{
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
  {
    words[i] = Word{};
  }
  cooperative_groups::this_grid().sync();
}

// In a kernel launched by a storage_launch, before its first access to its tile storage: a
// clearing launch's CTAs clear its first `clear_bytes` (a multiple of 16) from `base`; any other
// launch waits for the clear before it, if any.
__device__ inline void take_cleared_storage(void* base, std::size_t clear_bytes)
{
  if (clear_bytes != 0)
  {
    clear_and_meet(static_cast<uint4*>(base), clear_bytes / sizeof(uint4));
  }
  else
  {
    wait_for_cleared_storage();
  }
}

} // namespace spscan::detail

// The ring engine's host side: whether it runs on the current device, how deep its ring is there,
// and its launch. The classic engine (engine/launch.h) takes every call the ring does not.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/engine/kernel_shape.h>
#include <spscan/detail/engine/launch.h>
#include <spscan/detail/ring/ring_driver.h>
#include <spscan/detail/ring/tensor_map.h>
#include <spscan/detail/thrust_bridge.h>

#include <atomic>

namespace spscan::detail::ring
{

// Stages of the ring: at least 3 (one loading, one being reduced, one being scanned), at most 12
// (tiles of 16 KiB in about 200 KiB).
constexpr int min_stages = 3;
constexpr int max_stages = 12;

// A tile program whose warps issue many instructions per element may name ring_ctas_per_sm = 2:
// two CTAs on each SM, each with half the stages, give the SM twice the working warps (at most
// 56 registers a thread). None does now: the selection, the one that did, runs faster with one
// CTA and two prefix warps (bench/NOTES.md v13, v17). Others run one.
template <class Program, class = void>
struct ring_ctas_per_sm_of
{
  static constexpr int value = 1;
};
template <class Program>
struct ring_ctas_per_sm_of<Program, ::cuda::std::void_t<decltype(Program::ring_ctas_per_sm)>>
{
  static constexpr int value = Program::ring_ctas_per_sm;
};

// What the current device offers the ring kernels of `Program`: their stages with one CTA per SM
// and with two (0: that kernel does not run there: compute capability below 9.0, a kernel built
// without sm_90 code, or too little shared memory), and its multiprocessors. Read once per device.
struct ring_device
{
  int stages;
  int paired_stages;
  int multiprocessors;

  int stages_for(int ctas_per_sm) const
  {
    return ctas_per_sm == 2 ? paired_stages : stages;
  }
};

// The deepest ring whose `ctas_per_sm` CTAs fit an SM's shared memory, or 0.
template <class Program>
int deepest_ring(int ctas_per_sm, std::size_t per_block, std::size_t per_sm, std::size_t reserved_per_block)
{
  for (int s = max_stages; s >= min_stages; --s)
  {
    const std::size_t bytes = ring_layout<Program>::shared_bytes(s);
    if (bytes <= per_block && ctas_per_sm * (bytes + reserved_per_block) <= per_sm)
    {
      return s;
    }
  }
  return 0;
}

template <class Program>
ring_device current_ring_device()
{
  constexpr int max_devices = 64;
  // stages << 40 | paired stages << 32 | multiprocessors, + 1; 0: not read yet
  static std::atomic<long long> known[max_devices];
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  if (device < max_devices)
  {
    if (const long long word = known[device].load(std::memory_order_relaxed))
    {
      const long long w = word - 1;
      return {static_cast<int>(w >> 40), static_cast<int>((w >> 32) & 0xff), static_cast<int>(w & 0xffffffff)};
    }
  }
  int major = 0, multiprocessors = 0, per_sm = 0, reserved = 0;
  throw_if_failed(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                  "spscan: reading the device's compute capability failed");
  throw_if_failed(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
                  "spscan: reading the device's multiprocessor count failed");
  throw_if_failed(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
                  "spscan: reading the device's shared memory per multiprocessor failed");
  throw_if_failed(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device),
                  "spscan: reading the device's reserved shared memory failed");
  int stages = 0, paired_stages = 0;
  const auto built_for_device = [](auto kernel) {
    cudaFuncAttributes attributes{};
    return cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess && attributes.ptxVersion >= 90;
  };
  if (major >= 9)
  {
    const std::size_t per_block = current_device_limits().shared_bytes_per_block;
    if (built_for_device(ring_kernel<Program, 1>))
    {
      stages = deepest_ring<Program>(1, per_block, per_sm, reserved);
    }
    if constexpr (ring_ctas_per_sm_of<Program>::value == 2) // only then is there that kernel
    {
      if (built_for_device(ring_kernel<Program, 2>))
      {
        paired_stages = deepest_ring<Program>(2, per_block, per_sm, reserved);
      }
    }
  }
  cudaGetLastError(); // a kernel without code for this device is not the caller's error
  if (device < max_devices)
  {
    const long long word = (static_cast<long long>(stages) << 40) | (static_cast<long long>(paired_stages) << 32) | multiprocessors;
    known[device].store(word + 1, std::memory_order_relaxed);
  }
  return {stages, paired_stages, multiprocessors};
}

// The options a launch of `Program` takes on `device`. Measured on an H200 (bench/NOTES.md, v11):
// the deepest ring; the threads' stores beat the copy engine's at 3 stages (int64 2^28 0.91
// against 0.76 of copy) and matched or beat them at 6 from 2^24 up (int32 2^28 0.94 against 0.93).
// Two CTAs per SM where the program asks for them and they fit (bench/NOTES.md, v13).
template <class Program>
ring_options default_ring_options(const ring_device& device)
{
  const int ctas_per_sm = ring_ctas_per_sm_of<Program>::value == 2 && device.paired_stages >= min_stages ? 2 : 1;
  return {device.stages_for(ctas_per_sm), true, 0, ctas_per_sm};
}

// Inputs below this many bytes run on the classic engine: with fewer tiles than about four per
// SM the ring's deep start does not pay (H200, v11: int32 2^20 0.61-0.65 of copy on the ring
// against 0.65 classic, 2^22 (16 MiB) 0.61 against 0.51; int8 2^22 0.65 against 0.69).
constexpr std::size_t ring_min_bytes = std::size_t{16} << 20;

// Runs `Program` over `n` elements on the ring engine, and returns true; or returns false, having
// done nothing, where the ring does not serve the call (fewer bytes than ring_min_bytes; one tile;
// a device without the ring; a range the copy engine cannot describe). `in`: the input (raw,
// 16-byte aligned) where the program brings tiles by bulk copy, else null; `out` likewise where it
// stores them by bulk copy. `forced`: other options than the device's default (tests and the
// probe; stages no deeper than the device allows).
template <class Program, class Derived>
bool launch_ring(cuda_policy<Derived>& policy,
                 const typename Program::params& program,
                 std::size_t n,
                 const void* in,
                 void* out,
                 const ring_options* forced = nullptr)
{
  static_assert(Program::runs_on_ring);
  using params = driver_params<Program>;
  using layout = ring_layout<Program>;
  constexpr std::size_t tile_items = Program::tuning::tile_items;
  const std::size_t tiles          = (n + tile_items - 1) / tile_items;
  if (tiles < 2)
  {
    return false;
  }
  constexpr std::size_t element_bytes = Program::ring_tile_bytes / tile_items;
  if (forced == nullptr && n * element_bytes < ring_min_bytes)
  {
    return false;
  }
  const ring_device device = current_ring_device<Program>();
  const ring_options options_wanted = forced != nullptr ? *forced : default_ring_options<Program>(device);
  const int deepest = options_wanted.ctas_per_sm == 1 || options_wanted.ctas_per_sm == 2 ? device.stages_for(options_wanted.ctas_per_sm) : 0;
  if (deepest == 0 || options_wanted.stages < min_stages || options_wanted.stages > deepest)
  {
    return false;
  }
  ring_options options = options_wanted;
  options.stores_by_threads = options.stores_by_threads || !Program::ring_stores_by_copy;
  constexpr int box_rows  = box_rows_for(Program::ring_tile_bytes);
  const std::size_t bytes = n * element_bytes;
  tile_tensors tensors{};
  if ((Program::ring_copies_input && !encode_rows(tensors.in, in, bytes, box_rows))
      || (Program::ring_stores_by_copy && !encode_rows(tensors.out, out, bytes, box_rows)))
  {
    return false;
  }
  params p{program, tiles, typename params::state{}, nullptr, 0};
  const cudaStream_t stream = stream_of(policy);
  cudaGetLastError(); // as launch_single_pass: only this call's errors are reported
  const std::size_t shared_bytes = layout::shared_bytes(options.stages);
  const std::size_t all_ctas     = static_cast<std::size_t>(options.ctas_per_sm) * device.multiprocessors;
  const std::size_t ctas         = options.ctas > 0 && static_cast<std::size_t>(options.ctas) < all_ctas ? options.ctas : all_ctas;
  const unsigned grid            = static_cast<unsigned>(tiles < ctas ? tiles : ctas);
  const auto launch = [&](auto ctas_per_sm) {
    constexpr auto kernel = ring_kernel<Program, decltype(ctas_per_sm)::value>;
    // The kernel is allowed its deepest ring on the device once; a launch may take fewer stages.
    prepare_kernel<kernel>(layout::shared_bytes(deepest));
    with_tile_storage(policy, p, stream, storage_clear::beside_dependent_launch, [&](const storage_launch& launch) {
      launch(kernel, grid, layout::cta_threads, shared_bytes, stream, p, options, tensors);
    });
  };
  using one = ::cuda::std::integral_constant<int, 1>;
  if constexpr (ring_ctas_per_sm_of<Program>::value == 2)
  {
    if (options.ctas_per_sm == 2)
    {
      launch(::cuda::std::integral_constant<int, 2>{});
    }
    else
    {
      launch(one{});
    }
  }
  else
  {
    launch(one{}); // only programs that name two CTAs per SM have that kernel
  }
  finish_call(policy, "spscan: failed to synchronize");
  return true;
}

} // namespace spscan::detail::ring

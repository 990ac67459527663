// The ring engine's host side: whether it runs on the current device, how deep its ring is there,
// and its launch. The classic engine (classic/launch.h) takes every call the ring does not.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/device_limits.h>
#include <spscan/detail/common/tile_storage_launch.h>
#include <spscan/detail/common/optional_members.h>
#include <spscan/detail/ring/ring_driver.h>
#include <spscan/detail/ring/tensor_map.h>
#include <spscan/detail/thrust_bridge.h>

#include <cuda/std/type_traits>

#include <atomic>
#include <optional>

namespace spscan::detail::ring
{

// Stages of the ring: at least 3 (one loading, one being reduced, one being scanned), at most 12
// (tiles of 16 KiB in about 200 KiB).
constexpr int min_stages = 3;
constexpr int max_stages = 12;

// What the current device offers the ring kernel of `Program`: its deepest ring (0: the kernel
// does not run there: compute capability below 9.0, a kernel built without sm_90 code, or too
// little shared memory), and its multiprocessors. Read once per device.
//
// One CTA per SM: two CTAs per SM, each with half the stages, were measured for the selection
// and the staged inputs and gave nothing that one CTA with two prefix warps does not
// (docs/design.md#the-ring-engine).
struct ring_device
{
  int stages;
  int multiprocessors;
};

// The deepest ring whose CTA fits an SM's shared memory, or 0.
template <class Program>
int deepest_ring(std::size_t per_block, std::size_t per_sm, std::size_t reserved_per_block)
{
  constexpr int most = ring_layout<Program>::generated ? ring_layout<Program>::max_generated_stages : max_stages;
  for (int s = most; s >= min_stages; --s)
  {
    const std::size_t bytes = ring_layout<Program>::shared_bytes(s);
    if (bytes <= per_block && bytes + reserved_per_block <= per_sm)
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
  // stages << 32 | multiprocessors, + 1; 0: not read yet
  static std::atomic<long long> known[max_devices];
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  if (device < max_devices)
  {
    if (const long long word = known[device].load(std::memory_order_relaxed))
    {
      const long long w = word - 1;
      return {static_cast<int>(w >> 32), static_cast<int>(w & 0xffffffff)};
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
  int stages = 0;
  cudaFuncAttributes attributes{};
  if (major >= 9 && cudaFuncGetAttributes(&attributes, ring_kernel<Program, false>) == cudaSuccess && attributes.ptxVersion >= 90)
  {
    stages = deepest_ring<Program>(current_device_limits().shared_bytes_per_block, per_sm, reserved);
  }
  cudaGetLastError(); // a kernel without code for this device is not the caller's error
  if (device < max_devices)
  {
    const long long word = (static_cast<long long>(stages) << 32) | multiprocessors;
    known[device].store(word + 1, std::memory_order_relaxed);
  }
  return {stages, multiprocessors};
}

// Whether the copy engine stores `Program`'s tiles by default (a program's `ring_bulk_stores`;
// else the scan squad's threads do).
template <class Program>
using ring_bulk_stores_member = ::cuda::std::bool_constant<Program::ring_bulk_stores>;
template <class Program>
using ring_bulk_stores_of = member_value_or<Program, ring_bulk_stores_member, false>;

// The options a launch of `Program` takes on `device`: the deepest ring, stored by the threads
// (faster than the copy engine's stores at every depth, docs/design.md#the-ring-engine), unless
// the program asks for the copy engine's.
template <class Program>
ring_options default_ring_options(const ring_device& device)
{
  return {device.stages, !ring_bulk_stores_of<Program>::value, 0};
}

// Inputs below this many bytes, or of fewer tiles than the device has SMs, run on the classic
// engine: there the ring's start does not pay (docs/design.md#the-ring-engine).
constexpr std::size_t ring_min_bytes = std::size_t{8} << 20;

// A program whose ring measured better from fewer bytes states `ring_min_input_bytes`.
template <class Program>
using ring_min_input_bytes_member = ::cuda::std::integral_constant<std::size_t, Program::ring_min_input_bytes>;
template <class Program>
using ring_min_bytes_of = member_value_or<Program, ring_min_input_bytes_member, ring_min_bytes>;

// Whether a program prepares its ring launches (a program's `ring_prepares`): then
// `Program::ring_prepare(policy, params, launch)` does what the launch needs first (a by-key scan
// finds its segment heads) and calls launch(params as the kernel takes them) while what it made
// lasts, returning launch's result.
template <class Program>
using ring_prepares_member = ::cuda::std::bool_constant<Program::ring_prepares>;
template <class Program>
using ring_prepares_of = member_value_or<Program, ring_prepares_member, false>;

// Whether a call of `n` elements of `Program` has the bytes the ring needs (ring_min_bytes_of).
template <class Program>
bool ring_takes_bytes(std::size_t n)
{
  return n * (Program::ring_tile_bytes / Program::tuning::tile_items) >= ring_min_bytes_of<Program>::value;
}

// The options a call of `tiles` tiles of `Program` runs the ring with on `device`, or none where
// the ring does not take it: fewer tiles than SMs, unless the options are `forced`; no ring on the
// device; a depth the device cannot hold.
template <class Program>
std::optional<ring_options> ring_options_for(std::size_t tiles, const ring_device& device, const ring_options* forced)
{
  if (forced == nullptr && tiles < static_cast<std::size_t>(device.multiprocessors))
  {
    return std::nullopt;
  }
  ring_options options = forced != nullptr ? *forced : default_ring_options<Program>(device);
  if (device.stages == 0 || options.stages < min_stages || options.stages > device.stages)
  {
    return std::nullopt;
  }
  options.stores_by_threads = options.stores_by_threads || !Program::ring_stores_by_copy;
  return options;
}

// The copy engine's descriptions of the input and output tiles (`in` and `out` hold the tile's
// elements), where the program copies them; false where the copy engine cannot describe a range.
template <class Program>
bool describe_element_tiles(tile_tensors& tensors, const void* in, void* out, std::size_t n)
{
  constexpr std::size_t tile_items        = Program::tuning::tile_items;
  constexpr std::size_t input_tile_bytes  = ring_input_tile_bytes_of<Program>::value;
  constexpr std::size_t output_tile_bytes = ring_output_tile_bytes_of<Program>::value;
  return (!Program::ring_copies_input || encode_rows(tensors.in, in, n * (input_tile_bytes / tile_items), box_rows_for(input_tile_bytes)))
      && (!Program::ring_stores_by_copy
          || encode_rows(tensors.out, out, n * (output_tile_bytes / tile_items), box_rows_for(output_tile_bytes)));
}

// Launches the ring kernel of `Program` over `tiles` tiles, one CTA an SM (or options.ctas), with
// the prefix service where the call has one, and finishes the call as Thrust would.
template <class Program, class Derived>
void launch_ring_kernel(cuda_policy<Derived>& policy,
                        driver_params<Program>& p,
                        const ring_options& options,
                        const tile_tensors& tensors,
                        const ring_device& device)
{
  using layout              = ring_layout<Program>;
  const cudaStream_t stream = stream_of(policy);
  cudaGetLastError(); // as launch_single_pass: only this call's errors are reported
  const std::size_t tiles        = p.tiles;
  const std::size_t shared_bytes = layout::shared_bytes(options.stages);
  const std::size_t all_ctas     = static_cast<std::size_t>(device.multiprocessors);
  const std::size_t ctas = options.ctas > 0 && static_cast<std::size_t>(options.ctas) < all_ctas ? options.ctas : all_ctas;
  const unsigned grid    = static_cast<unsigned>(tiles < ctas ? tiles : ctas);
  // A served call has a kernel of its own (ring_driver.h), and keeps each tile's P beside the
  // aggregates (prefix_service.h). Each CTA takes one id past the last tile, its end, or the
  // service's id (ring_driver.h, the producer).
  const bool served      = has_prefix_service(options.service, layout::servable, tiles, grid);
  const auto launch_with = [&](auto served_kernel) {
    constexpr auto kernel = ring_kernel<Program, decltype(served_kernel)::value>;
    // The kernel is allowed its deepest ring on the device once; a launch may take fewer stages.
    prepare_kernel<kernel>(layout::shared_bytes(device.stages));
    with_tile_storage(policy, p, stream, options.clear, served ? 2 * tiles : tiles, tiles + grid, [&](const storage_launch& launch) {
      return launch(kernel, grid, layout::cta_threads, shared_bytes, stream, p, options, tensors);
    });
  };
  if (!served)
  {
    launch_with(::cuda::std::false_type{});
  }
  else if constexpr (layout::servable) // served only where servable: no served kernel otherwise
  {
    launch_with(::cuda::std::true_type{});
  }
  finish_call(policy, "spscan: failed to synchronize");
}

// Runs `Program` over `n` elements on the ring engine, and returns true; or returns false, having
// done nothing (but what a program prepares, into its own temporary storage), where the ring does
// not serve the call (one tile; ring_takes_bytes, ring_options_for; a range the copy engine cannot
// describe). `in`: the input (raw, 16-byte aligned) where the program brings tiles by bulk copy,
// else null; `out` likewise where it stores them by bulk copy. `forced`: other options than the
// device's default (tests and the probe; stages no deeper than the device allows).
template <class Program, class Derived>
bool launch_ring(cuda_policy<Derived>& policy,
                 const typename Program::params& program,
                 std::size_t n,
                 const void* in,
                 void* out,
                 const ring_options* forced = nullptr)
{
  static_assert(Program::runs_on_ring);
  constexpr std::size_t tile_items = Program::tuning::tile_items;
  const std::size_t tiles          = (n + tile_items - 1) / tile_items;
  if (tiles < 2)
  {
    return false;
  }
  // The byte floor first: it needs no device query.
  if (forced == nullptr && !ring_takes_bytes<Program>(n))
  {
    return false;
  }
  const ring_device device                  = current_ring_device<Program>();
  const std::optional<ring_options> options = ring_options_for<Program>(tiles, device, forced);
  tile_tensors tensors{};
  if (!options || !describe_element_tiles<Program>(tensors, in, out, n))
  {
    return false;
  }
  const auto launch_prepared = [&](const typename Program::params& prepared) {
    // Keys, where the program has them, lie beside the elements: whole tiles only
    // (tensor_map.h), as for the elements.
    constexpr std::size_t key_tile_bytes = ring_key_tile_bytes_of<Program>::value;
    if constexpr (key_tile_bytes > 0)
    {
      if (!encode_rows(tensors.keys, Program::ring_keys(prepared), n / tile_items * key_tile_bytes, box_rows_for(key_tile_bytes)))
      {
        return false;
      }
    }
    driver_params<Program> p{prepared, tiles, typename driver_params<Program>::state{}, nullptr, 0};
    launch_ring_kernel(policy, p, *options, tensors, device);
    return true;
  };
  if constexpr (ring_prepares_of<Program>::value)
  {
    return Program::ring_prepare(policy, program, launch_prepared);
  }
  else
  {
    return launch_prepared(program);
  }
}

} // namespace spscan::detail::ring

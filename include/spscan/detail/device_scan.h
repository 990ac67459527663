// Host side of a scan on the device: sizes and takes the temporary storage, clears the tile
// states, launches, and finishes the call the way Thrust does (stream, errors, synchronization).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/config.h>
#include <spscan/detail/scan_kernel.h>
#include <spscan/detail/scan_tuning.h>
#include <spscan/detail/thrust_bridge.h>

#include <atomic>
#include <cstdint>

namespace spscan::detail
{

// Prepares a scan kernel, once per device: allows it its dynamic shared memory and asks for the
// largest shared-memory carveout (the tile stays in shared memory, and the SM's default split
// would hold fewer CTAs than its registers allow).
template <class Kernel>
void prepare_kernel(Kernel kernel, std::size_t shared_bytes)
{
  constexpr int max_devices = 64;
  static std::atomic<bool> done[max_devices];
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  if (device < max_devices && done[device].load(std::memory_order_relaxed))
  {
    return;
  }
  throw_if_failed(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)),
                  "spscan: the scan kernel's shared memory does not fit this device");
  throw_if_failed(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
                  "spscan: setting the scan kernel's shared memory carveout failed");
  if (device < max_devices)
  {
    done[device].store(true, std::memory_order_relaxed);
  }
}

inline bool is_16_byte_aligned(const void* p)
{
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <class Iterator>
bool allows_vector_access(const Iterator& it)
{
  if constexpr (::cuda::std::is_pointer_v<Iterator>)
  {
    return is_16_byte_aligned(it);
  }
  else
  {
    return false;
  }
}

// The kernel's parameters for a scan of InputIt into OutputIt in the shape `Tuning`. Contiguous
// iterators (device_ptr, vector iterators) are unwrapped to raw pointers, so they share the
// kernels of raw pointers and can use vectorized accesses.
template <scan_kind Kind, class Accum, class Tuning, class InputIt, class OutputIt, class Op>
using scan_params_for =
  scan_params<unwrapped_iterator<InputIt>, unwrapped_iterator<OutputIt>, Accum, Op, Kind, Tuning>;

// Shared memory a CTA of that kernel takes (dynamic, sized at launch).
template <class Params>
constexpr std::size_t scan_shared_bytes = sizeof(typename scan_tile<Params>::shared_storage);

// Scans `count` elements (negative counts are empty ranges, as in Thrust) in the tile shape
// `Tuning` and returns result + count. route.h chooses the shape; tests and the ablation bench
// may pass their own.
template <scan_kind Kind, class Accum, class Tuning, class Derived, class InputIt, class Size, class OutputIt, class Op>
OutputIt device_scan(cuda_policy<Derived>& policy, InputIt first, Size count, OutputIt result, Op op, Accum init)
{
  const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
  if (n != 0)
  {
    auto in  = thrust::try_unwrap_contiguous_iterator(first);
    auto out = thrust::try_unwrap_contiguous_iterator(result);
    using params = scan_params_for<Kind, Accum, Tuning, InputIt, OutputIt, Op>;
    using state  = typename params::state;

    params p{in, out, n, (n + Tuning::tile_items - 1) / Tuning::tile_items, op, init, state{}, nullptr,
             allows_vector_access(in), allows_vector_access(out)};
    const cudaStream_t stream = stream_of(policy);
    // An error left pending by earlier, unrelated work is not this call's: Thrust clears it
    // before launching, and so does spscan, so the check after the launch sees only its own.
    cudaGetLastError();
    constexpr std::size_t shared_bytes = scan_shared_bytes<params>;
    constexpr unsigned cta_threads     = scan_tile<params>::cta_threads;
    prepare_kernel(scan_kernel<params>, shared_bytes);
    if (p.tiles == 1)
    {
      scan_kernel<params><<<1, cta_threads, shared_bytes, stream>>>(p);
      throw_if_failed(cudaGetLastError(), "spscan: scan kernel launch failed");
    }
    else
    {
      const tile_storage_layout<state> layout{p.tiles};
      temporary_bytes<Derived> storage(policy, layout.total_bytes());
      void* base = thrust::raw_pointer_cast(storage.data());
      throw_if_failed(cudaMemsetAsync(base, 0, layout.zeroed_bytes(), stream), "spscan: clearing tile states failed");
      p.tile_counter = layout.counter(base);
      p.tiles_state  = layout.state(base);
      scan_kernel<params><<<static_cast<unsigned>(p.tiles), cta_threads, shared_bytes, stream>>>(p);
      throw_if_failed(cudaGetLastError(), "spscan: scan kernel launch failed");
    }
  }
  finish_call(policy, "spscan: scan failed to synchronize");
  return result + (count > 0 ? count : Size{0});
}

} // namespace spscan::detail

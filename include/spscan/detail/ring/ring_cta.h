// What every role of a ring CTA works with: the call's parameters, its tensor maps, and the
// stages of shared memory with their controls (ring_layout.h). The roles are ring_driver.h's
// (producer, reduce squad, scan squad) and prefix_warps.h's.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/ring/ring_layout.h>
#include <spscan/detail/ring/tensor_map.h>

#include <cstddef>

namespace spscan::detail::ring
{

template <class Program>
class ring_cta
{
public:
  using layout  = ring_layout<Program>;
  using control = typename layout::control;
  using carry   = typename Program::carry;
  using trace   = trace_hook_of<typename Program::tuning>;

  __device__ ring_cta(driver_params<Program>& p, const tile_tensors& tensors, ring_options options, unsigned char* shared)
      : p_(p)
      , tensors_(tensors)
      , stages_(options.stages)
      , stores_by_threads_(options.stores_by_threads)
      , data_(shared)
      , controls_(reinterpret_cast<control*>(shared + static_cast<std::size_t>(layout::data_regions(options.stages)) * layout::stage_bytes))
      , lane_values_(reinterpret_cast<typename layout::lane_values*>(controls_ + options.stages))
  {}

protected:
  __device__ unsigned char* stage(int s) const
  {
    return data_ + static_cast<std::size_t>(s) * layout::stage_bytes;
  }

  driver_params<Program>& p_;
  const tile_tensors& tensors_;
  int stages_;
  bool stores_by_threads_;
  unsigned char* data_;
  control* controls_;
  typename layout::lane_values* lane_values_; // one per prefix warp, where it has any
};

} // namespace spscan::detail::ring

// How a selection runs: its tile shapes, its plan (planner.h) and the entry the dispatch calls
// (select.inl). The tile program: select_program.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/call_count.h>
#include <spscan/detail/planner.h>
#include <spscan/detail/programs/select_program.h>

namespace spscan::detail
{

inline no_stencil unwrap_stencil(no_stencil none)
{
  return none;
}
template <class SameRun>
run_head_stencil<SameRun> unwrap_stencil(run_head_stencil<SameRun> heads)
{
  return heads;
}
template <class StencilIt>
unwrapped_iterator<StencilIt> unwrap_stencil(StencilIt stencil)
{
  return thrust::try_unwrap_contiguous_iterator(stencil);
}

// Tile shapes: 32 elements per thread up to 4-byte values (8192 per tile), 128 bytes per thread
// above (32 KiB tiles), 5 CTAs per SM as the scan; and half of that for inputs of a few tiles
// (select_plan) and for a GPU that grants a block less than the primary shape takes.
template <class Value>
using select_tuning = tile_shape<int(sizeof(Value)), sizeof(Value) <= 4 ? 32 * int(sizeof(Value)) : 128, 5>;
template <class Value>
using reduced_select_tuning = tile_shape<int(sizeof(Value)), sizeof(Value) <= 4 ? 16 * int(sizeof(Value)) : 64, 5>;

template <bool Partition, class Tuning, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
using select_program_for = select_program<Tuning, InputIt, StencilIt, SelectedIt, RejectedIt, Pred, Partition>;

// How a selection runs (planner.h). A few tiles leave most SMs idle: where the device's tile makes
// 2 to 32 of them, the half tile of the reduced shape runs twice as many CTAs of the classic
// engine: +10-15 % at 8 to 32 tiles, level at 64, slower at 128; with one tile a CTA the ring lost
// to the classic tile (docs/design.md#stream-compaction). Larger inputs take the ring engine where
// the device has it and the call suits it (a raw, 16-byte aligned input of at least
// ring_min_input_bytes and a tile per SM): there it measured 1.1-1.8x the classic engine's
// copy_if, stencils and partition_copy's second output included.
template <bool Partition, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
struct select_plan : classic_launch
{
  using value = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<InputIt>::value_type>;
  template <class Tuning>
  using in_shape = select_program_for<Partition, Tuning, InputIt, StencilIt, SelectedIt, RejectedIt, Pred>;
  using shapes   = kernel_shapes<in_shape<select_tuning<value>>, in_shape<reduced_select_tuning<value>>>;
  using params   = select_params<InputIt, StencilIt, SelectedIt, RejectedIt, Pred>;

  static constexpr std::size_t item_bytes = sizeof(value);

  template <class Fitting>
  using steps = plan_steps<for_few_tiles<32, typename shapes::reduced>, for_every_size<Fitting, Fitting>>;

  template <class RingProgram>
  static bool ring_accepts(const params& p)
  {
    return p.vector_load;
  }
  template <class RingProgram>
  static const void* ring_input(const params& p)
  {
    return p.in;
  }
  static void* ring_output(const params&)
  {
    return nullptr;
  }
};

// Selects from the n elements at `first` (negative counts are empty, as in Thrust) on the
// policy's stream; returns how many were selected. Synchronizes: the count is the call's result.
template <bool Partition, class Derived, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
std::uint64_t select_on_device(cuda_policy<Derived>& policy, InputIt first, std::size_t n, StencilIt stencil,
                               SelectedIt selected, RejectedIt rejected, Pred pred)
{
  if (n == 0)
  {
    return 0;
  }
  using plan = select_plan<Partition,
                           unwrapped_iterator<InputIt>,
                           decltype(unwrap_stencil(stencil)),
                           unwrapped_iterator<SelectedIt>,
                           unwrapped_iterator<RejectedIt>,
                           Pred>;

  const call_count<Derived> total(policy);
  const typename plan::params params{thrust::try_unwrap_contiguous_iterator(first),
                                     unwrap_stencil(stencil),
                                     thrust::try_unwrap_contiguous_iterator(selected),
                                     thrust::try_unwrap_contiguous_iterator(rejected),
                                     n,
                                     pred,
                                     total.address(),
                                     allows_vector_access(thrust::try_unwrap_contiguous_iterator(first))};
  run_planned<plan>(policy, params, n);
  return total.read("spscan: selection failed");
}

} // namespace spscan::detail

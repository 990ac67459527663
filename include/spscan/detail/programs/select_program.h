// Stream compaction as a tile program of the single-pass driver (engine/driver.h): copy_if,
// remove_copy_if (the predicate negated) and partition_copy, with or without a stencil.
//
// A tile: each data warp stages its segment of the input in shared memory (engine/tile_io.h) and
// tests it a row of 32 elements at a time (one ballot per row; the value, or the stencil element
// read straight from memory); the warps' counts give each warp its offset in the tile and the
// tile's count, and the driver exchanges that count for the count selected before the tile: the
// carry is an integer, so the look-back is exact, and the output keeps the input's order. Then
// each warp writes its rows out again, a row's selected elements to consecutive outputs from
// consecutive lanes; element k of the input that is rejected goes to k - (elements selected
// before it). The last tile writes the total to device memory, from where the call returns the
// end iterator(s): one pass over the input.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/engine/block_scan.h>
#include <spscan/detail/engine/kernel_shape.h>
#include <spscan/detail/engine/launch.h>
#include <spscan/detail/engine/temporary_storage.h>
#include <spscan/detail/engine/tile_io.h>
#include <spscan/detail/engine/tuning.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

// No stencil: the predicate sees the value itself.
struct no_stencil
{};

template <class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
struct select_params
{
  InputIt in;
  StencilIt stencil; // no_stencil where the call has none
  SelectedIt selected;
  RejectedIt rejected; // partition_copy's out_false; unused otherwise
  std::size_t n;
  Pred pred;
  std::uint64_t* selected_total; // written by the last tile
  bool vector_load; // input is a 16-byte aligned raw pointer
};

struct add_counts
{
  __device__ std::uint64_t operator()(std::uint64_t earlier, std::uint64_t later) const
  {
    return earlier + later;
  }
};

template <class Tuning, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred, bool Partition>
struct select_program
{
  using carry  = std::uint64_t; // elements selected before a tile (any input size)
  using tuning = Tuning;
  using params = select_params<InputIt, StencilIt, SelectedIt, RejectedIt, Pred>;
  using value  = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<InputIt>::value_type>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;
  static_assert(items <= warp_threads, "row j's ballot is kept by lane j");

  static constexpr bool vector_layout = vector_layout_fits<InputIt, value*, items>; // tile_io.h
  using vectors  = vector_slice<value, items>;
  using elements = element_slice<value, items>;
  using block    = block_scan<std::uint32_t, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    typename block::shared_storage block;
  };

  // Counting starts at zero: every tile's exchange returns a prefix.
  static constexpr bool has_initial_prefix = true;
  __device__ static carry initial_prefix(const params&)
  {
    return 0;
  }
  __device__ static add_counts carry_op(params&)
  {
    return {};
  }

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    with_staged_segment<vectors, elements, vector_layout>(
      shared.slices[at.warp], p.in + static_cast<difference_of<InputIt>>(at.first), at, p.vector_load, [&](const auto& staged) {
        select_staged(p, shared, tile, at, staged);
      });
  }

  // Tests, counts and writes out the staged segment, a row of 32 elements at a time (row j:
  // elements 32 j + lane), so that a row's tests are one ballot and its selected elements go out
  // to consecutive outputs from consecutive lanes.
  template <class Tile, class Segment, class Slice>
  __device__ static void
  select_staged(params& p, shared_storage& shared, const Tile& tile, const Segment& at, const Slice& staged)
  {
    const int valid = at.valid() < segment ? (at.valid() > 0 ? at.valid() : 0) : segment;
    const int rows  = (valid + warp_threads - 1) / warp_threads;

    // Row j's ballot is kept by lane j.
    std::uint32_t row_kept   = 0;
    std::uint32_t warp_count = 0;
#pragma unroll 4
    for (int j = 0; j < rows; ++j)
    {
      const int e              = j * warp_threads + at.lane;
      const std::uint32_t kept = __ballot_sync(0xffffffffu, e < valid && test(p, at, staged, e));
      row_kept                 = at.lane == j ? kept : row_kept;
      warp_count += __popc(kept);
    }

    // The tile's count and each warp's offset in it; then the count before the tile.
    add_counts add;
    const auto before = block::scan(shared.block, at.lane == 0 ? warp_count : 0u, add, threads, [&] {
      tile.sync_data_warps();
    });
    const carry tile_before = tile.exchange(before.total);
    if (threadIdx.x == 0 && at.tile_begin + static_cast<std::size_t>(at.tile_valid) == p.n)
    {
      *p.selected_total = tile_before + before.total;
    }
    const std::uint32_t warp_offset = __shfl_sync(0xffffffffu, before.has_exclusive ? before.exclusive : 0u, 0);

    // Element k of the input that is rejected goes to k - (elements selected before it).
    std::uint64_t next_selected = tile_before + warp_offset;
    std::uint64_t next_rejected = at.first - next_selected;
    const std::uint32_t lanes_below = (1u << at.lane) - 1u;
#pragma unroll 4
    for (int j = 0; j < rows; ++j)
    {
      const int e              = j * warp_threads + at.lane;
      const std::uint32_t kept = __shfl_sync(0xffffffffu, row_kept, j);
      if ((kept >> at.lane) & 1u)
      {
        p.selected[static_cast<difference_of<SelectedIt>>(next_selected + __popc(kept & lanes_below))] = staged.at(e);
      }
      else if constexpr (Partition)
      {
        if (e < valid) // the valid lanes of a row are its first ones
        {
          p.rejected[static_cast<difference_of<RejectedIt>>(next_rejected + __popc(~kept & lanes_below))] = staged.at(e);
        }
      }
      next_selected += __popc(kept);
      if constexpr (Partition)
      {
        const int row_valid = valid - j * warp_threads < warp_threads ? valid - j * warp_threads : warp_threads;
        next_rejected += static_cast<std::uint32_t>(row_valid) - __popc(kept);
      }
    }
  }

  // The predicate on element e of the segment: on its value, or on its stencil element.
  template <class Segment, class Slice>
  __device__ static bool test(params& p, const Segment& at, const Slice& staged, int e)
  {
    if constexpr (::cuda::std::is_same_v<StencilIt, no_stencil>)
    {
      return p.pred(staged.at(e));
    }
    else
    {
      return p.pred(p.stencil[static_cast<difference_of<StencilIt>>(at.first + static_cast<std::size_t>(e))]);
    }
  }
};

inline no_stencil unwrap_stencil(no_stencil none)
{
  return none;
}
template <class StencilIt>
unwrapped_iterator<StencilIt> unwrap_stencil(StencilIt stencil)
{
  return thrust::try_unwrap_contiguous_iterator(stencil);
}

// Tile shapes: 32 elements per thread up to 4-byte values (8192 per tile), 128 bytes per thread
// above (32 KiB tiles), 5 CTAs per SM as the scan; and, for a GPU that grants a block less than
// the primary shape takes, half of that.
template <class Value>
using select_tuning = tile_shape<int(sizeof(Value)), sizeof(Value) <= 4 ? 32 * int(sizeof(Value)) : 128, 5>;
template <class Value>
using reduced_select_tuning = tile_shape<int(sizeof(Value)), sizeof(Value) <= 4 ? 16 * int(sizeof(Value)) : 64, 5>;

template <bool Partition, class Tuning, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
using select_program_for = select_program<Tuning, InputIt, StencilIt, SelectedIt, RejectedIt, Pred, Partition>;

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
  using in_type       = unwrapped_iterator<InputIt>;
  using stencil_type  = decltype(unwrap_stencil(stencil));
  using selected_type = unwrapped_iterator<SelectedIt>;
  using rejected_type = unwrapped_iterator<RejectedIt>;
  using value         = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<in_type>::value_type>;
  using shapes        = kernel_shapes<
    select_program_for<Partition, select_tuning<value>, in_type, stencil_type, selected_type, rejected_type, Pred>,
    select_program_for<Partition, reduced_select_tuning<value>, in_type, stencil_type, selected_type, rejected_type, Pred>>;

  call_storage<Derived> total_storage(policy, sizeof(std::uint64_t));
  auto* total = static_cast<std::uint64_t*>(total_storage.data());
  const select_params<in_type, stencil_type, selected_type, rejected_type, Pred> params{
    thrust::try_unwrap_contiguous_iterator(first),
    unwrap_stencil(stencil),
    thrust::try_unwrap_contiguous_iterator(selected),
    thrust::try_unwrap_contiguous_iterator(rejected),
    n,
    pred,
    total,
    allows_vector_access(thrust::try_unwrap_contiguous_iterator(first))};
  with_fitting_shape<shapes>([&](auto shape) {
    launch_single_pass<typename decltype(shape)::type>(policy, params, n);
  });
  std::uint64_t count = 0;
  const cudaStream_t stream = stream_of(policy);
  throw_if_failed(cudaMemcpyAsync(&count, total, sizeof(count), cudaMemcpyDeviceToHost, stream),
                  "spscan: reading the selected count failed");
  throw_if_failed(cudaStreamSynchronize(stream), "spscan: selection failed");
  return count;
}

} // namespace spscan::detail

// unique_count as a reduction: how many elements head a run (element i heads one where i is 0 or
// same_run(element i-1, element i) is false). Each tile counts its heads on its own, with no
// look-back (classic/independent_tiles.h): a warp stages its segment (common/tile_io.h), each lane
// tests its consecutive elements against their predecessors, the one before a lane's first read
// from the segment, the one before a segment's first from the input. The tiles' counts are then
// summed level after level (reduce_program.h), exactly: they are integers. The selection program
// counting into a discarding output ran at 0.57-0.79x of Thrust's unique_count from 2^24: a
// read-only pass through the look-back's pipeline (docs/design.md#stream-compaction).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/classic/independent_tiles.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/common/call_count.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/programs/reduce_program.h>
#include <spscan/detail/programs/select_program.h>
#include <spscan/detail/programs/selection_rows.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

template <class InputIt, class SameRun>
struct run_head_count_params
{
  InputIt in;
  std::size_t n; // > 0
  SameRun same_run;
  bool vector_load; // input is a 16-byte aligned raw pointer
};

template <class Tuning, class InputIt, class SameRun>
struct run_head_count_program
{
  using carry  = std::uint64_t;
  using tuning = Tuning;
  using params = run_head_count_params<InputIt, SameRun>;
  using value  = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<InputIt>::value_type>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;

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

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    with_staged_segment<vectors, elements, vector_layout>(
      shared.slices[at.warp], p.in + static_cast<difference_of<InputIt>>(at.first), at, p.vector_load, [&](const auto& staged) {
        const std::uint32_t warp_heads = warp_sum(lane_heads(p, at, staged));
        add_counts add;
        const auto tile_heads = block::scan(shared.block, at.lane == 0 ? warp_heads : 0u, add, threads, [&] {
          tile.sync_data_warps();
        });
        tile.exchange(tile_heads.total);
      });
  }

  // The heads among this lane's elements of the staged segment (elements lane * items on).
  template <class Segment, class Slice>
  __device__ static std::uint32_t lane_heads(params& p, const Segment& at, const Slice& staged)
  {
    const int mine = at.lane * items;
    if (mine >= at.valid())
    {
      return 0;
    }
    // The element before this lane's first, where there is one.
    const bool has_previous = at.first + static_cast<std::size_t>(mine) > 0;
    value previous{};
    if (has_previous)
    {
      previous = mine > 0 ? value(staged.at(mine - 1)) : value(p.in[static_cast<difference_of<InputIt>>(at.first - 1)]);
    }
    std::uint32_t heads = has_previous ? 0u : 1u; // the input's first element heads its run
    bool compare        = has_previous;
    staged.for_each([&](const value& x) {
      heads += compare && !p.same_run(previous, x) ? 1u : 0u;
      previous = x;
      compare  = true;
    });
    return heads;
  }
};

// The count's tile shape: 128 bytes per thread, the reduction's (reduce_program.h).
template <class Value>
using run_head_count_tuning = tile_shape<int(sizeof(Value)), 128, 4>;

// The heads of the runs of the n elements at `first` (negative counts are empty, as in Thrust)
// on the policy's stream. Synchronizes: the count is the call's result.
template <class Derived, class ForwardIt, class SameRun>
std::uint64_t count_run_heads_on_device(cuda_policy<Derived>& policy, ForwardIt first, std::size_t n, SameRun same_run)
{
  if (n == 0)
  {
    return 0;
  }
  using in_type = unwrapped_iterator<ForwardIt>;
  using program = run_head_count_program<run_head_count_tuning<value_of<in_type>>, in_type, SameRun>;
  const cudaStream_t stream = stream_of(policy);
  const auto in             = thrust::try_unwrap_contiguous_iterator(first);
  const std::size_t tiles   = (n + program::tuning::tile_items - 1) / program::tuning::tile_items;
  const call_count<Derived> total(policy);
  if (tiles == 1)
  {
    launch_independent_tiles<program>(stream, {in, n, same_run, allows_vector_access(in)}, 1, total.address());
    return total.read("spscan: unique_count failed");
  }
  // The tiles' counts, 16-byte aligned (the levels read them as words), then the levels' scratch.
  const std::size_t counts_bytes = (tiles * sizeof(std::uint64_t) + 15) / 16 * 16;
  call_storage<Derived> storage(policy, counts_bytes + reduce_scratch_bytes<std::uint64_t, std::uint64_t*>(tiles));
  auto* const counts = static_cast<std::uint64_t*>(storage.data());
  launch_independent_tiles<program>(stream, {in, n, same_run, allows_vector_access(in)}, tiles, counts);
  reduce_on_device<std::uint64_t>(
    stream, counts, tiles, add_counts{}, total.address(), static_cast<unsigned char*>(storage.data()) + counts_bytes);
  return total.read("spscan: unique_count failed");
}

} // namespace spscan::detail

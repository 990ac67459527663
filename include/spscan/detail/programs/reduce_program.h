// The reduction of a range to one value, in an association fixed by the input's size and the tile
// shape, for operators that are associative but not commutative: each tile is folded as the scan
// folds it (each thread its consecutive elements, then the block scan's total), the tiles run
// independently (classic/independent_tiles.h), and the tiles' aggregates are reduced the same way,
// level after level, until one remains. It reads its input once, at the speed of a read, with no
// look-back; the sharded scans use it for each shard's total.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/config.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/classic/independent_tiles.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

template <class InputIt, class Op>
struct reduce_params
{
  InputIt in;
  std::size_t n; // > 0
  Op op;
  bool vector_load; // input is a 16-byte aligned raw pointer
};

template <class Tuning, class InputIt, class Accum, class Op>
struct reduce_program
{
  using carry  = Accum;
  using tuning = Tuning;
  using params = reduce_params<InputIt, Op>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;

  using input_value = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<InputIt>::value_type>;
  static constexpr bool vector_layout = vector_layout_fits<InputIt, input_value*, items>;

  using vectors  = vector_slice<input_value, items>;
  using elements = element_slice<Accum, items>;
  using block    = block_scan<Accum, warps>;

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
    // A thread with no element (only in a partial tile) holds the input's last element, which
    // the block scan leaves out of the total (block_scan.h).
    Accum last{};
    if (!at.full_tile)
    {
      last = p.in[static_cast<difference_of<InputIt>>(p.n - 1)];
    }
    with_staged_segment<vectors, elements, vector_layout>(
      shared.slices[at.warp], p.in + static_cast<difference_of<InputIt>>(at.first), at, p.vector_load, [&](const auto& staged) {
        reduce_staged(p, shared, tile, staged, at.tile_valid, last);
      });
  }

  template <class Tile, class Slice>
  __device__ static void reduce_staged(
    params& p, shared_storage& shared, const Tile& tile, const Slice& staged, int tile_valid, const Accum& stand_in)
  {
    bool first         = true;
    Accum thread_total = stand_in;
    staged.for_each([&](Accum x) {
      thread_total = first ? x : p.op(thread_total, x);
      first        = false;
    });
    const int valid_threads = (tile_valid + items - 1) / items;
    const auto folded = block::scan(shared.block, thread_total, p.op, valid_threads, [&] {
      tile.sync_data_warps();
    });
    tile.exchange(folded.total);
  }
};

// The reduction's tile shape: 128 bytes per thread, which fits the shared memory every GPU grants,
// so that the association is the same on every GPU.
template <class InputValue, class Accum>
using reduce_tuning = tile_shape<widest_of<InputValue, Accum, InputValue>, 128, 4>;

// Device bytes the reduction of n > 0 elements needs for its levels' aggregates.
template <class Accum, class InputIt>
std::size_t reduce_scratch_bytes(std::size_t n)
{
  constexpr std::size_t tile_items = reduce_tuning<value_of<unwrapped_iterator<InputIt>>, Accum>::tile_items;
  constexpr std::size_t level_items = reduce_tuning<Accum, Accum>::tile_items;
  std::size_t bytes = 0;
  for (std::size_t tiles = (n + tile_items - 1) / tile_items; tiles > 1; tiles = (tiles + level_items - 1) / level_items)
  {
    bytes += tiles * sizeof(Accum);
  }
  return bytes;
}

// Reduces the n > 0 elements at `first` on `stream` into *result (device memory), using `scratch`
// (reduce_scratch_bytes<Accum, InputIt>(n) bytes, aligned for Accum).
template <class Accum, class InputIt, class Op>
void reduce_on_device(cudaStream_t stream, InputIt first, std::size_t n, Op op, Accum* result, void* scratch)
{
  using in_type  = unwrapped_iterator<InputIt>;
  using program  = reduce_program<reduce_tuning<value_of<in_type>, Accum>, in_type, Accum, Op>;
  const auto in  = thrust::try_unwrap_contiguous_iterator(first);
  const std::size_t tiles = (n + program::tuning::tile_items - 1) / program::tuning::tile_items;
  Accum* aggregates       = tiles == 1 ? result : static_cast<Accum*>(scratch);
  launch_independent_tiles<program>(stream, {in, n, op, allows_vector_access(in)}, tiles, aggregates);
  // The aggregates, level after level: each level's input is the previous level's output.
  using level_program = reduce_program<reduce_tuning<Accum, Accum>, Accum*, Accum, Op>;
  std::size_t count = tiles;
  while (count > 1)
  {
    const std::size_t level_tiles = (count + level_program::tuning::tile_items - 1) / level_program::tuning::tile_items;
    Accum* next = level_tiles == 1 ? result : aggregates + count;
    launch_independent_tiles<level_program>(stream, {aggregates, count, op, allows_vector_access(aggregates)}, level_tiles, next);
    aggregates = next;
    count      = level_tiles;
  }
}

} // namespace spscan::detail

// What the tile programs on the ring engine (programs/scan_program.h, select_program.h,
// scan_by_key_program.h) share: where a warp's part of a tile lies, and the exclusive folds the
// reduce squad keeps for the scan squad (ring/ring_driver.h names the squads).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/ring/tensor_map.h>

#include <cuda/std/type_traits>

#include <cstddef>

namespace spscan::detail::ring
{

template <class Slice>
struct is_vector_slice : ::cuda::std::false_type
{};
template <class T, int Items>
struct is_vector_slice<vector_slice<T, Items>> : ::cuda::std::true_type
{};

// The copy engine swizzles each 1024-byte block of a tile's image from the block's start
// (tensor_map.h), and a vector slice counts its swizzle from its own start: one that starts inside
// a block (512 bytes, one 16-byte word a lane, as a 1-byte image beside 8-byte accumulators has)
// is given the phase of the block it starts in.
template <class Slice>
constexpr bool starts_inside_swizzle_block = is_vector_slice<Slice>::value && Slice::bytes % swizzle_block_bytes != 0;

// The slice of warp `warp` in a stage, as lane `lane` reads it. A tile brought in by bulk copy is
// its bytes' image, so the warps' segments lie back to back, `Slice::bytes` each; `extra` follows
// the lane in the slice's constructor.
template <class Slice, class... Extra>
__device__ Slice slice_of_warp(void* stage, int warp, int lane, Extra... extra)
{
  unsigned char* const first = static_cast<unsigned char*>(stage) + warp * Slice::bytes;
  if constexpr (starts_inside_swizzle_block<Slice>)
  {
    static_assert(swizzle_block_bytes % Slice::bytes == 0, "vector slices tile a swizzle block");
    const int phase_rows = static_cast<int>((warp * Slice::bytes % swizzle_block_bytes) / (16 * 8));
    return Slice(first, lane, phase_rows);
  }
  else
  {
    return Slice(first, lane, extra...);
  }
}

// The same for the data thread `rank`.
template <class Slice, class... Extra>
__device__ Slice warp_slice_in_stage(void* stage, int rank, Extra... extra)
{
  if constexpr (starts_inside_swizzle_block<Slice>)
  {
    return slice_of_warp<Slice>(stage, rank / warp_threads, rank % warp_threads);
  }
  else
  {
    return Slice(static_cast<unsigned char*>(stage) + (rank / warp_threads) * Slice::bytes, rank % warp_threads, extra...);
  }
}

// The slice of warp `warp` in a second image that follows a tile's first in its stage, from byte
// `first_image_bytes` (a whole number of swizzle blocks): the keys behind a by-key tile's values.
template <class Slice>
__device__ Slice slice_behind_image(void* stage, std::size_t first_image_bytes, int warp, int lane)
{
  unsigned char* const image = static_cast<unsigned char*>(stage) + first_image_bytes;
  if constexpr (starts_inside_swizzle_block<Slice>)
  {
    return slice_of_warp<Slice>(image, warp, lane);
  }
  else
  {
    return Slice(image + warp * Slice::bytes, lane);
  }
}

// The input element where the segment of `rank`'s warp in `tile` begins (segments of `segment`
// elements, tiles of `tile_items`).
__device__ inline std::size_t warp_segment_first(std::size_t tile, std::size_t tile_items, int rank, int segment)
{
  return tile * tile_items + static_cast<std::size_t>((rank / warp_threads) * segment);
}

// Each thread's exclusive fold from the tile's block scan, kept in ring_storage by the reduce squad
// (which publishes the total) for the scan squad, which adds the tile's prefix to it.
template <class T, int Threads>
struct kept_exclusives
{
  alignas(T) unsigned char slots[Threads][sizeof(T)];

  // Keeps `thread`'s exclusive fold where it has one (every thread but the first); returns the
  // scan's total (defined in thread 0).
  template <class ScanResult>
  __device__ T keep(int thread, const ScanResult& scanned)
  {
    if (scanned.has_exclusive)
    {
      *reinterpret_cast<T*>(slots[thread]) = scanned.exclusive;
    }
    return scanned.total;
  }

  // `thread`'s kept fold (thread > 0).
  __device__ T of(int thread) const
  {
    return *reinterpret_cast<const T*>(slots[thread]);
  }

  // The fold of everything before `thread`'s first element, for the scan squad: the tile's
  // prefix where the tile has one, then the thread's kept fold where it has one; T{} for the
  // input's first thread, which has neither.
  template <class Tile, class Op>
  __device__ T before(int thread, const Tile& tile, const T& tile_prefix, Op&& op) const
  {
    T running{};
    if (thread > 0)
    {
      const T exclusive = of(thread);
      running           = tile.has_prefix() ? op(tile_prefix, exclusive) : exclusive;
    }
    else if (tile.has_prefix())
    {
      running = tile_prefix;
    }
    return running;
  }
};

} // namespace spscan::detail::ring

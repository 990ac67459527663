// A tile's trip through shared memory: staged in, scanned in place, written out.
//
// Every warp owns a contiguous segment of 32 * Items elements of the tile and its own slice of
// shared memory, so only __syncwarp is needed. Device memory is read and written warp-striped
// (consecutive lanes touch consecutive addresses); each lane works on Items consecutive elements
// of its segment ("blocked") in shared memory. The tile stays in shared memory from its load to
// its store, and registers hold only the element being worked on: a CTA that waits for its
// look-back then holds few registers, so more CTAs fit on an SM and keep loads in flight
// (docs/design.md#tile-shapes).
//
// Two layouts of a slice: vector_slice (vector_slice.h), 16-byte words, for raw pointers of one
// element size, and element_slice (element_slice.h), element by element, for any iterator.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/element_slice.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/common/vector_slice.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

// Whether a warp's segment of Items elements per lane, read through InputIt and written through
// OutputIt, can take the vector layout: raw pointers in and out, elements of one size that divides
// 16 bytes, whole 16-byte words per lane. (allows_vector_access checks the alignment per call.)
template <class InputIt, class OutputIt, int Items>
constexpr bool vector_layout_fits = [] {
  using in  = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<InputIt>>;
  using out = ::cuda::std::remove_pointer_t<OutputIt>;
  if constexpr (::cuda::std::is_pointer_v<InputIt> && ::cuda::std::is_pointer_v<OutputIt> && !::cuda::std::is_void_v<out>)
  {
    return !::cuda::std::is_const_v<out> && sizeof(in) == sizeof(out) && 16 % sizeof(in) == 0
        && vector_shape<in, Items>::fits;
  }
  else
  {
    return false;
  }
}();

// Whether an iterator allows the vector layout's 16-byte accesses: a raw pointer, 16-byte aligned
// (a tile program checks it once per call, on the host).
template <class Iterator>
bool allows_vector_access(const Iterator& it)
{
  if constexpr (::cuda::std::is_pointer_v<Iterator>)
  {
    return reinterpret_cast<std::uintptr_t>(it) % 16 == 0;
  }
  else
  {
    return false;
  }
}

// Where a data thread's warp segment lies in its tile, for an input of n elements: what every
// tile program works out first. Segment w is elements [w * Segment, (w + 1) * Segment) of the tile.
template <int TileItems, int Segment>
struct warp_segment
{
  int lane;
  int warp;
  std::size_t tile_begin; // the tile's first element in the input
  bool full_tile;
  int tile_valid; // the tile's elements that exist (all but in the last tile)
  int begin; // the segment's first element, counted from the tile's start
  std::size_t first; // the segment's first element in the input

  __device__ warp_segment(std::size_t tile_first_item, std::size_t n)
      : lane(static_cast<int>(threadIdx.x) % warp_threads)
      , warp(static_cast<int>(threadIdx.x) / warp_threads)
      , tile_begin(tile_first_item)
      , full_tile(n - tile_first_item >= static_cast<std::size_t>(TileItems))
      , tile_valid(full_tile ? TileItems : static_cast<int>(n - tile_first_item))
      , begin(warp * Segment)
      , first(tile_first_item + static_cast<std::size_t>(begin))
  {}

  // Elements of this segment that exist (<= 0 past the end of the input).
  __device__ int valid() const
  {
    return tile_valid - begin;
  }
  __device__ bool whole() const
  {
    return tile_valid >= begin + Segment;
  }
};


// Stages this warp's segment and hands the slice to `use`: as 16-byte words (Vectors) where the
// program's types allow the vector layout, the input is aligned and the warp's whole segment
// exists; else its existing elements one by one (Elements).
template <class Vectors, class Elements, bool VectorLayout, class InputIt, class Segment, class Use>
__device__ void with_staged_segment(void* slice, InputIt in, const Segment& at, bool vector_load, Use&& use)
{
  if constexpr (VectorLayout)
  {
    if (at.whole() && vector_load)
    {
      const Vectors staged(slice, at.lane);
      staged.stage(in);
      use(staged);
      return;
    }
  }
  const Elements staged(slice, at.lane, at.valid());
  staged.stage(in);
  use(staged);
}

// with_staged_segment for a program that stages two inputs side by side: the vector layout's
// loads are only issued, so that the other input's go out while they are in flight; `use` calls
// wait_for_staged_words() before it reads the slice. A whole segment of elements is read a batch
// of rows at a time (element_slice::stage_whole), its loads in flight together.
template <class Vectors, class Elements, bool VectorLayout, class InputIt, class Segment, class Use>
__device__ void with_segment_on_its_way(void* slice, InputIt in, const Segment& at, bool vector_load, Use&& use)
{
  if constexpr (VectorLayout)
  {
    if (at.whole() && vector_load)
    {
      const Vectors staged(slice, at.lane);
      staged.start_stage(in);
      use(staged);
      return;
    }
  }
  const Elements staged(slice, at.lane, at.valid());
  if (at.whole())
  {
    staged.stage_whole(in);
  }
  else
  {
    staged.stage(in);
  }
  use(staged);
}

} // namespace spscan::detail

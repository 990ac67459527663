// The element layout of a warp's slice of a tile (common/tile_io.h): any iterator, element by
// element, converted to the accumulator type on the way in; only the elements that exist are
// staged and scanned. One element in 33 is padding, against bank conflicts.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tuning.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

template <class Iterator>
using difference_of = typename thrust::iterator_traits<Iterator>::difference_type;

// Slice of accumulators holding the first `valid` of 32 * Items elements, one in 33 slots
// padding. Only valid elements are staged, scanned and written: they are a prefix of the tile
// (the last tile is the only partial one, and nothing after it reads its aggregate), so a lane
// whose elements all lie past the end contributes one stand-in element instead. Small inputs then
// cost what they hold, not a whole tile. Loops are unrolled by 4 only: fully unrolled, the
// compiler kept a whole segment's loads in flight and the kernel, whose vector path needs 40
// registers, took 128 (int32, 256 x 32; ptxas -v).
template <class Accum, int Items>
class element_slice
{
public:
  static constexpr std::size_t bytes = sizeof(Accum) * (warp_threads * Items + Items);

  // `valid`: elements of this warp's segment that exist (may be <= 0 past the end of the input).
  __device__ element_slice(void* slice, int lane, int valid)
      : elements_(static_cast<Accum*>(slice))
      , lane_(lane)
      , valid_(valid < 0 ? 0 : (valid > warp_threads * Items ? warp_threads * Items : valid))
  {}

  // Elements of this lane that exist.
  __device__ int lane_count() const
  {
    const int count = valid_ - lane_ * Items;
    return count < 0 ? 0 : (count > Items ? Items : count);
  }

  // Element i of the segment (staged, i < valid).
  __device__ const Accum& at(int i) const
  {
    return elements_[slot(i)];
  }

  template <class Iterator>
  __device__ void stage(Iterator segment) const
  {
    const int rows = (valid_ + warp_threads - 1) / warp_threads;
#pragma unroll 4
    for (int j = 0; j < rows; ++j)
    {
      const int i = j * warp_threads + lane_;
      if (i < valid_)
      {
        elements_[slot(i)] = segment[static_cast<difference_of<Iterator>>(i)];
      }
    }
    __syncwarp();
  }

  // stage() for a whole segment: the loads of a batch of rows (up to 128 bytes of this lane's
  // elements) are all issued before the first is stored, so that they are in flight together (on
  // the ring engine a few warps stage whole tiles alone).
  template <class Iterator>
  __device__ void stage_whole(Iterator segment) const
  {
#pragma unroll
    for (int batch = 0; batch < Items; batch += whole_batch_rows)
    {
      Accum loaded[whole_batch_rows];
#pragma unroll
      for (int b = 0; b < whole_batch_rows; ++b)
      {
        loaded[b] = segment[static_cast<difference_of<Iterator>>((batch + b) * warp_threads + lane_)];
      }
#pragma unroll
      for (int b = 0; b < whole_batch_rows; ++b)
      {
        elements_[slot((batch + b) * warp_threads + lane_)] = loaded[b];
      }
    }
    __syncwarp();
  }

  // write() for a whole segment, every row's store issued back to back.
  template <class Iterator>
  __device__ void write_whole(Iterator segment) const
  {
    __syncwarp();
#pragma unroll
    for (int j = 0; j < Items; ++j)
    {
      const int i                                      = j * warp_threads + lane_;
      segment[static_cast<difference_of<Iterator>>(i)] = elements_[slot(i)];
    }
  }

  template <class F>
  __device__ void for_each(F&& f) const
  {
    const int count = lane_count();
#pragma unroll 4
    for (int j = 0; j < count; ++j)
    {
      f(static_cast<const Accum&>(elements_[slot(lane_ * Items + j)]));
    }
  }

  template <class Out, class F>
  __device__ void transform(F&& f) const
  {
    const int count = lane_count();
#pragma unroll 4
    for (int j = 0; j < count; ++j)
    {
      Accum& element = elements_[slot(lane_ * Items + j)];
      element        = f(static_cast<const Accum&>(element));
    }
  }

  template <class Iterator>
  __device__ void write(Iterator segment) const
  {
    __syncwarp();
    const int rows = (valid_ + warp_threads - 1) / warp_threads;
#pragma unroll 4
    for (int j = 0; j < rows; ++j)
    {
      const int i = j * warp_threads + lane_;
      if (i < valid_)
      {
        segment[static_cast<difference_of<Iterator>>(i)] = elements_[slot(i)];
      }
    }
  }

private:
  __device__ static int slot(int i)
  {
    return i + i / warp_threads;
  }

  static constexpr int whole_batch_rows = [] {
    int rows = 128 / int(sizeof(Accum)) > 0 ? 128 / int(sizeof(Accum)) : 1;
    rows     = rows < Items ? rows : Items;
    while (Items % rows != 0)
    {
      --rows;
    }
    return rows;
  }();

  Accum* elements_;
  int lane_;
  int valid_;
};

} // namespace spscan::detail

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
// Two layouts of a slice:
//  - vector_slice: a warp's whole segment (a partial tile's too), of raw pointers, 16-byte
//    aligned, whose input and output elements have one size, moves as 16-byte words (uint4)
//    whatever the element size; this is what lets 1- and 2-byte types run at copy speed. The
//    load is a cp.async (sm_80 and newer) straight into shared memory. Words are placed with an
//    XOR swizzle, so that both the striped accesses and the blocked ones are free of bank
//    conflicts.
//  - element_slice: any iterator, element by element, converted to the accumulator type on the way
//    in; only the elements that exist are staged and scanned (see the class). One element in 33
//    is padding, against bank conflicts.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tuning.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

#include <cstring>

#include <nv/target>

namespace spscan::detail
{

template <class T, int Items>
struct vector_shape
{
  static constexpr bool fits      = (Items * sizeof(T)) % 16 == 0;
  static constexpr int per_thread = int(Items * sizeof(T) / 16);
};

template <class Iterator>
using difference_of = typename thrust::iterator_traits<Iterator>::difference_type;

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

// Slice of 16-byte words holding 32 * Items elements of type T.
template <class T, int Items>
class vector_slice
{
public:
  static constexpr int words_per_lane = vector_shape<T, Items>::per_thread;
  static constexpr int per_word       = int(16 / sizeof(T));
  static constexpr std::size_t bytes  = 16 * warp_threads * words_per_lane;

  // `swizzle_phase`: where the slice starts in a block of the swizzle, in rows of 8 words (0 for a
  // slice of its own, or one that starts a block; see slot()).
  __device__ vector_slice(void* slice, int lane, int swizzle_phase = 0)
      : words_(static_cast<uint4*>(slice))
      , lane_(lane)
      , phase_(swizzle_phase)
  {}

  // Loads the segment and makes it visible to the warp.
  __device__ void stage(const T* segment) const
  {
    start_stage(segment);
    finish_stage();
  }

  // The two halves of stage(), so that a warp can do other work (other loads) while the segment
  // is on its way: start_stage issues the loads, finish_stage waits for them.
  __device__ void start_stage(const T* segment) const
  {
    const uint4* source = reinterpret_cast<const uint4*>(segment);
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j)
    {
      const int i = j * warp_threads + lane_;
      NV_IF_ELSE_TARGET(
        NV_PROVIDES_SM_80,
        (asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(
                        __cvta_generic_to_shared(words_ + slot(i)))),
                      "l"(source + i)
                      : "memory");),
        (words_[slot(i)] = source[i];))
    }
  }

  __device__ void finish_stage() const
  {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_all;" ::: "memory");))
    __syncwarp();
  }

  // stage() for the input's last warp segment, of which only the first `valid` elements exist:
  // whole words move as words, the word across the end element by element, and every element
  // past the end is `stand_in` (the input's last element: the operator then sees only input
  // values; the results they give are never written, and nothing reads the last tile's
  // aggregate). Element by element, 128 int8s a lane cost ~5 us. Once a call, so its loops stay
  // rolled: unrolled, they cost the hot paths registers and spills.
  template <class Source>
  __device__ void stage_partial(const Source* segment, int valid, const Source& stand_in) const
  {
    static_assert(::cuda::std::is_same_v<::cuda::std::remove_cv_t<Source>, T>);
    const uint4* source = reinterpret_cast<const uint4*>(segment);
    T fill[per_word]; // a word of stand-ins, for the words wholly past the end
#pragma unroll
    for (int k = 0; k < per_word; ++k)
    {
      fill[k] = stand_in;
    }
    uint4 fill_word;
    memcpy(&fill_word, fill, 16);
#pragma unroll 1
    for (int j = 0; j < words_per_lane; ++j)
    {
      const int i = j * warp_threads + lane_;
      if ((i + 1) * per_word <= valid)
      {
        words_[slot(i)] = source[i];
      }
      else if (i * per_word >= valid)
      {
        words_[slot(i)] = fill_word;
      }
      else
      {
        unsigned char* word = reinterpret_cast<unsigned char*>(words_ + slot(i));
#pragma unroll 1
        for (int k = 0; k < per_word; ++k)
        {
          const int e     = i * per_word + k;
          const T element = e < valid ? segment[e] : stand_in;
          memcpy(word + k * sizeof(T), &element, sizeof(T));
        }
      }
    }
    __syncwarp();
  }

  // Stages this lane's elements from `element(i)`, i the element's place in the segment, in order
  // (an input whose elements are computed, not read, programs/scan_input.h), as values of T or of
  // `Out`, a type of T's size (results written where the elements would be staged).
  template <class Out = T, class F>
  __device__ void generate(F&& element) const
  {
    static_assert(sizeof(Out) == sizeof(T));
#pragma unroll
    for (int w = 0; w < words_per_lane; ++w)
    {
      const int i = lane_ * words_per_lane + w;
      Out elements[per_word];
#pragma unroll
      for (int k = 0; k < per_word; ++k)
      {
        elements[k] = element(i * per_word + k);
      }
      uint4 word;
      memcpy(&word, elements, 16);
      words_[slot(i)] = word;
    }
  }

  // Stages this lane's elements from the same lane's elements of `narrow` (the segment's image in
  // a type narrower than T), each converted by `convert`.
  template <class Narrow, class F>
  __device__ void widen(const vector_slice<Narrow, Items>& narrow, F&& convert) const
  {
    using narrow_slice             = vector_slice<Narrow, Items>;
    constexpr int words_per_narrow = words_per_lane / narrow_slice::words_per_lane;
    static_assert(words_per_narrow * narrow_slice::words_per_lane == words_per_lane);
#pragma unroll
    for (int n = 0; n < narrow_slice::words_per_lane; ++n)
    {
      Narrow narrow_elements[narrow_slice::per_word];
      narrow.word_elements(lane_ * narrow_slice::words_per_lane + n, narrow_elements);
#pragma unroll
      for (int w = 0; w < words_per_narrow; ++w)
      {
        T elements[per_word];
#pragma unroll
        for (int k = 0; k < per_word; ++k)
        {
          elements[k] = convert(narrow_elements[w * per_word + k]);
        }
        uint4 word;
        memcpy(&word, elements, 16);
        words_[slot(lane_ * words_per_lane + n * words_per_narrow + w)] = word;
      }
    }
  }

  // Element i of the segment (staged).
  __device__ T at(int i) const
  {
    T element;
    memcpy(&element, reinterpret_cast<const unsigned char*>(words_ + slot(i / per_word)) + (i % per_word) * sizeof(T),
           sizeof(T));
    return element;
  }

  // Where the slice lies in shared memory (a warp may reuse it once every lane has read what it
  // needs).
  __device__ void* data() const
  {
    return words_;
  }

  // The per_word elements of word i of the segment (staged).
  __device__ void word_elements(int i, T* elements) const
  {
    const uint4 word = words_[slot(i)];
    memcpy(elements, &word, 16);
  }

  // f(element) for this lane's elements, in order.
  template <class F>
  __device__ void for_each(F&& f) const
  {
#pragma unroll
    for (int w = 0; w < words_per_lane; ++w)
    {
      T elements[per_word];
      const uint4 word = words_[slot(lane_ * words_per_lane + w)];
      memcpy(elements, &word, 16);
#pragma unroll
      for (int k = 0; k < per_word; ++k)
      {
        f(elements[k]);
      }
    }
  }

  // Replaces this lane's elements, in order, by f(element), converted to Out (of T's size).
  template <class Out, class F>
  __device__ void transform(F&& f) const
  {
    static_assert(sizeof(Out) == sizeof(T));
#pragma unroll
    for (int w = 0; w < words_per_lane; ++w)
    {
      uint4& word = words_[slot(lane_ * words_per_lane + w)];
      T elements[per_word];
      const uint4 in = word;
      memcpy(elements, &in, 16);
      Out results[per_word];
#pragma unroll
      for (int k = 0; k < per_word; ++k)
      {
        results[k] = f(elements[k]);
      }
      uint4 out;
      memcpy(&out, results, 16);
      word = out;
    }
  }

  template <class Out>
  __device__ void write(Out* segment) const
  {
    __syncwarp();
    uint4* target = reinterpret_cast<uint4*>(segment);
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j)
    {
      const int i = j * warp_threads + lane_;
      target[i]   = words_[slot(i)];
    }
  }

  // write() of the first `valid` elements only (the input's last warp segment).
  template <class Out>
  __device__ void write_partial(Out* segment, int valid) const
  {
    __syncwarp();
    uint4* target = reinterpret_cast<uint4*>(segment);
#pragma unroll 1
    for (int j = 0; j < words_per_lane; ++j)
    {
      const int i = j * warp_threads + lane_;
      if ((i + 1) * per_word <= valid)
      {
        target[i] = words_[slot(i)];
      }
      else
      {
        const unsigned char* word = reinterpret_cast<const unsigned char*>(words_ + slot(i));
#pragma unroll 1
        for (int k = 0; k < per_word && i * per_word + k < valid; ++k)
        {
          Out element;
          memcpy(&element, word + k * sizeof(Out), sizeof(Out));
          segment[i * per_word + k] = element;
        }
      }
    }
  }

private:
  // Word i of the segment lives in slot i ^ ((i / 8) % 8): a quarter warp's 16-byte accesses,
  // striped (i = 32 j + lane) or blocked (i = lane * words_per_lane + w, for up to 8 words per
  // lane), land on 8 different groups of banks. A slice that starts `phase_` rows of 8 words into
  // a block of that pattern (a warp's 512 bytes in a bulk-copied image, ring/program_support.h)
  // counts its rows from the block's start.
  __device__ int slot(int i) const
  {
    return i ^ (((i >> 3) + phase_) & 7);
  }

  uint4* words_;
  int lane_;
  int phase_;
};

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

  // stage() for a whole segment, on the ring engine, where a few warps stage whole tiles alone:
  // the loads of a batch of rows (up to 128 bytes of this lane's elements) are all issued before
  // the first is stored, so that they are in flight together.
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

} // namespace spscan::detail

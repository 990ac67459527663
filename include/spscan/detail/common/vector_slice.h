// The vector layout of a warp's slice of a tile (common/tile_io.h): a warp's whole segment, of
// raw pointers, 16-byte aligned, whose input and output elements have one size, moves as 16-byte
// words (uint4) whatever the element size; this is what lets 1- and 2-byte types run at copy
// speed. The load is a cp.async (sm_80 and newer) straight into shared memory. Words are placed
// with an XOR swizzle, so that both the striped accesses and the blocked ones are free of bank
// conflicts.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tuning.h>

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

// Waits for every word this thread's start_stage calls issued, and makes the warp's visible to
// the warp.
__device__ inline void wait_for_staged_words()
{
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_all;" ::: "memory");))
  __syncwarp();
}

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
    wait_for_staged_words();
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
    memcpy(&element, element_address(i), sizeof(T));
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

  // Where element i lies. Its alignment is stated because the compiler cannot see it: without
  // it, memcpy of an element becomes sizeof(T) byte loads. Words are 16-byte aligned and element
  // k of a word starts k * sizeof(T) bytes in, so the element is aligned to sizeof(T)'s lowest
  // set bit.
  __device__ const unsigned char* element_address(int i) const
  {
    constexpr std::size_t alignment = sizeof(T) & (~sizeof(T) + 1);
    const unsigned char* word       = reinterpret_cast<const unsigned char*>(words_ + slot(i / per_word));
    return static_cast<const unsigned char*>(
      __builtin_assume_aligned(word + (i % per_word) * sizeof(T), alignment < 16 ? alignment : 16));
  }

  uint4* words_;
  int lane_;
  int phase_;
};

} // namespace spscan::detail

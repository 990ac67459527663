// Moving one tile between device memory and registers.
//
// Every warp owns a contiguous segment of 32 * Items elements of the tile; each lane ends up with
// Items consecutive elements ("blocked"), which is what the per-thread scan needs. Device memory
// is read and written warp-striped (consecutive lanes touch consecutive addresses) and the two
// orders are exchanged through the warp's own slice of shared memory, so only __syncwarp is needed.
//
// Two paths:
//  - vectorized: a full tile of a raw pointer whose address is 16-byte aligned moves as 16-byte
//    words (uint4), whatever the element size; this is what lets 1- and 2-byte types run at copy
//    speed.
//  - generic: any iterator, element by element; positions past the end of a partial tile repeat
//    the tile's last element, so the scan operator only ever sees values of the input.
// Shared memory is padded (one 16-byte word in nine, one element in 33) so that the blocked
// reads and writes are free of bank conflicts.
#pragma once

#include <spscan/detail/config.h>

#include <cuda/std/cstring>
#include <cuda/std/type_traits>

namespace spscan::detail
{

constexpr int warp_threads = 32;

// Padded shared-memory index of 16-byte word `i` / of element `i`.
__device__ __forceinline__ int vector_slot(int i)
{
  return i + i / 8;
}
__device__ __forceinline__ int element_slot(int i)
{
  return i + i / warp_threads;
}

template <class T, int Items>
struct vector_shape
{
  static constexpr bool fits      = (Items * sizeof(T)) % 16 == 0;
  static constexpr int per_thread = int(Items * sizeof(T) / 16);
};

// Bytes of shared memory one warp needs to exchange Items elements of type T per lane.
template <class T, int Items>
constexpr std::size_t element_exchange_bytes = sizeof(T) * (warp_threads * Items + Items);
template <class T, int Items>
constexpr std::size_t vector_exchange_bytes =
  vector_shape<T, Items>::fits ? 16 * (warp_threads * vector_shape<T, Items>::per_thread * 9 / 8 + 1) : 0;

template <class Iterator>
using difference_of = typename thrust::iterator_traits<Iterator>::difference_type;

// Loads `Items` elements per lane, blocked, from warp segment `segment` (an iterator to the
// segment's first element); `valid` elements of the segment exist (may be <= 0 for a warp past
// the end of a partial tile: it then repeats `last`).
template <int Items, class Accum, class Iterator, class Last>
__device__ __forceinline__ void
load_elements(Iterator segment, int valid, Last last, Accum (&items)[Items], Accum* exchange, int lane)
{
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    const int i = j * warp_threads + lane;
    if (i < valid)
    {
      exchange[element_slot(i)] = segment[static_cast<difference_of<Iterator>>(i)];
    }
    else
    {
      exchange[element_slot(i)] = last;
    }
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    items[j] = exchange[element_slot(lane * Items + j)];
  }
}

template <int Items, class Accum, class T>
__device__ __forceinline__ void load_vectors(const T* segment, Accum (&items)[Items], uint4* exchange, int lane)
{
  constexpr int per_thread = vector_shape<T, Items>::per_thread;
  const uint4* source      = reinterpret_cast<const uint4*>(segment);
  uint4 words[per_thread];
#pragma unroll
  for (int j = 0; j < per_thread; ++j)
  {
    words[j] = source[j * warp_threads + lane];
  }
#pragma unroll
  for (int j = 0; j < per_thread; ++j)
  {
    exchange[vector_slot(j * warp_threads + lane)] = words[j];
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < per_thread; ++j)
  {
    words[j] = exchange[vector_slot(lane * per_thread + j)];
  }
  T raw[Items];
  ::cuda::std::memcpy(raw, words, sizeof(raw));
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    items[j] = raw[j];
  }
}

// Stores the first `valid` elements of the warp segment.
template <int Items, class Accum, class Iterator>
__device__ __forceinline__ void
store_elements(Iterator segment, int valid, const Accum (&items)[Items], Accum* exchange, int lane)
{
  __syncwarp(); // the exchange slice may still be read by the load
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    exchange[element_slot(lane * Items + j)] = items[j];
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    const int i = j * warp_threads + lane;
    if (i < valid)
    {
      segment[static_cast<difference_of<Iterator>>(i)] = exchange[element_slot(i)];
    }
  }
}

template <int Items, class Accum, class T>
__device__ __forceinline__ void store_vectors(T* segment, const Accum (&items)[Items], uint4* exchange, int lane)
{
  constexpr int per_thread = vector_shape<T, Items>::per_thread;
  T raw[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j)
  {
    raw[j] = items[j];
  }
  uint4 words[per_thread];
  ::cuda::std::memcpy(words, raw, sizeof(raw));
  __syncwarp(); // the exchange slice may still be read by the load
#pragma unroll
  for (int j = 0; j < per_thread; ++j)
  {
    exchange[vector_slot(lane * per_thread + j)] = words[j];
  }
  __syncwarp();
  uint4* target = reinterpret_cast<uint4*>(segment);
#pragma unroll
  for (int j = 0; j < per_thread; ++j)
  {
    target[j * warp_threads + lane] = exchange[vector_slot(j * warp_threads + lane)];
  }
}

} // namespace spscan::detail

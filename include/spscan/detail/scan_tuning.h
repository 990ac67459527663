// How a scan is cut into tiles, per element size.
#pragma once

#include <spscan/detail/config.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

// sizeof(T), or 0 for the `void` value type of some output iterators.
template <class T>
constexpr int size_or_zero = ::cuda::std::is_void_v<T> ? 0 : int(sizeof(::cuda::std::conditional_t<::cuda::std::is_void_v<T>, char, T>));

constexpr int max3(int a, int b, int c)
{
  return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

// Input value type, accumulator and output value type decide the tile shape. Each thread holds
// `items` accumulators in registers; a tile is threads * items elements.
// Initial choice: 256 threads and about 64 bytes per thread of the widest type, 32 items for
// 1- and 2-byte types (8 KiB and 16 KiB tiles), so that every thread's share is a whole number
// of 16-byte vectors for 1/2/4/8-byte types.
template <class InputValue, class Accum, class OutputValue>
struct scan_tuning
{
  static constexpr int threads = 256;
  static constexpr int widest  = max3(size_or_zero<InputValue>, int(sizeof(Accum)), size_or_zero<OutputValue>);
  static constexpr int items      = widest <= 2 ? 32 : (64 / widest > 0 ? 64 / widest : 1);
  static constexpr int tile_items = threads * items;
};

} // namespace spscan::detail

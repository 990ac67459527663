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
//
// Measured on an H200 (bench/NOTES.md, "v0 -> v1"): a CTA's lifetime is dominated by per-tile
// latency (load, block scan, look-back), about 20-28 ns of device time per tile whatever its size,
// so bytes per tile set the throughput. 128 bytes per thread of the widest type (32 KiB tiles of
// int32) beat 64 bytes (int32 2^28: 0.55 vs 0.39 of copy) and 128 threads per CTA lost to 256
// (0.22). Every thread's share stays a whole number of 16-byte vectors for 1/2/4/8-byte types.
template <class InputValue, class Accum, class OutputValue>
struct scan_tuning
{
  static constexpr int threads    = 256;
  static constexpr int widest     = max3(size_or_zero<InputValue>, int(sizeof(Accum)), size_or_zero<OutputValue>);
  static constexpr int items      = widest <= 2 ? 64 : (128 / widest > 0 ? 128 / widest : 1);
  static constexpr int tile_items = threads * items;
};

} // namespace spscan::detail

// A by-key scan's segment heads, found before the scan: bit b of word w is set where element
// 32 w + b starts a segment (the input's first element, or one whose key the predicate does not
// find equal to the key before it). The ring engine brings a tile's words beside its values
// instead of its keys, which do not fit its stage beside 8-byte values
// (programs/scan_by_key_program.h).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/engine/launch.h>
#include <spscan/detail/engine/tile_io.h>
#include <spscan/detail/engine/tuning.h>
#include <spscan/detail/thrust_bridge.h>

#include <cub/util_ptx.cuh>

#include <cstdint>

namespace spscan::detail
{

// The words of n elements' head bits (bits past n are clear).
SPSCAN_HOST_DEVICE constexpr std::size_t segment_head_words(std::size_t n)
{
  return (n + warp_threads - 1) / warp_threads;
}

// Each warp takes `rows` words (32 elements each) at a time, every lane reading one key of each
// with all of their loads in flight together: the key before an element is the left lane's, the
// previous row's last, or, for the first row, read by the first lane; each row's vote is its
// word, and lane r stores row r's.
constexpr int segment_head_rows = 8;

template <class KeysIt, class Key, class Pred>
SPSCAN_KERNEL void find_segment_heads(KeysIt keys, std::size_t n, Pred pred, std::uint32_t* words)
{
  constexpr int rows           = segment_head_rows;
  const int lane               = static_cast<int>(threadIdx.x % warp_threads);
  const std::size_t warp       = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / warp_threads;
  const std::size_t warps      = std::size_t{gridDim.x} * blockDim.x / warp_threads;
  const std::size_t word_count = segment_head_words(n);
  for (std::size_t first_word = warp * rows; first_word < word_count; first_word += warps * rows)
  {
    const std::size_t first = first_word * warp_threads;
    Key current[rows];
#pragma unroll
    for (int r = 0; r < rows; ++r)
    {
      const std::size_t i = first + static_cast<std::size_t>(r * warp_threads + lane);
      current[r]          = i < n ? Key(keys[static_cast<difference_of<KeysIt>>(i)]) : Key{};
    }
    Key before_rows{};
    if (lane == 0 && first > 0)
    {
      before_rows = keys[static_cast<difference_of<KeysIt>>(first - 1)];
    }
    std::uint32_t mine = 0;
#pragma unroll
    for (int r = 0; r < rows; ++r)
    {
      const std::size_t i  = first + static_cast<std::size_t>(r * warp_threads + lane);
      Key before           = cub::ShuffleUp<warp_threads>(current[r], 1, 0, 0xffffffffu);
      const Key before_row = r == 0 ? before_rows : cub::ShuffleIndex<warp_threads>(current[r - 1], warp_threads - 1, 0xffffffffu);
      before               = lane == 0 ? before_row : before;
      const bool head      = i < n && (i == 0 || !pred(before, current[r]));
      const std::uint32_t word = __ballot_sync(0xffffffffu, head);
      mine                     = lane == r ? word : mine;
    }
    if (lane < rows && first_word + static_cast<std::size_t>(lane) < word_count)
    {
      words[first_word + static_cast<std::size_t>(lane)] = mine;
    }
  }
}

// Writes the head words of [keys, keys + n) to `words` (segment_head_words(n) of them) on the
// policy's stream.
template <class Key, class Derived, class KeysIt, class Pred>
void launch_find_segment_heads(cuda_policy<Derived>& policy, KeysIt keys, std::size_t n, Pred pred, std::uint32_t* words)
{
  constexpr unsigned threads        = 256;
  constexpr std::size_t most_blocks = 4096; // the loop covers the rest; enough to fill any GPU
  constexpr std::size_t words_a_block = threads / warp_threads * segment_head_rows;
  const std::size_t blocks_needed     = (segment_head_words(n) + words_a_block - 1) / words_a_block;
  const unsigned blocks = static_cast<unsigned>(blocks_needed < most_blocks ? blocks_needed : most_blocks);
  cudaGetLastError(); // not this call's (launch.h)
  find_segment_heads<KeysIt, Key, Pred><<<blocks, threads, 0, stream_of(policy)>>>(keys, n, pred, words);
  throw_if_failed(cudaGetLastError(), "spscan: finding the segment heads failed");
}

} // namespace spscan::detail

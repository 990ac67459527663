// A by-key scan's segment heads: bit b of a row's word is set where element b of the row of 32
// starts a segment (the input's first element, or one whose key the predicate does not find equal
// to the key before it). The by-key program finds a tile's rows as it stages them; for the ring
// engine, a kernel finds every row's word before the scan, and the ring brings a tile's words
// beside its values instead of its keys, which do not fit its stage beside 8-byte values
// (programs/scan_by_key_program.h).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/thrust_bridge.h>

#include <cub/util_ptx.cuh>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

// Where a by-key kernel can hold the keys: it shuffles them between lanes.
template <class Key>
constexpr bool kernel_holds_key = ::cuda::std::is_trivially_copyable_v<Key> && sizeof(Key) <= 16;

// The words of n elements' head bits (bits past n are clear).
SPSCAN_HOST_DEVICE constexpr std::size_t segment_head_words(std::size_t n)
{
  return (n + warp_threads - 1) / warp_threads;
}

// The head word of a row of 32 elements whose keys the warp's lanes hold, one each. The key before
// lane l's is lane l - 1's, or `before_row` (the key before the row) for lane 0; `exists`: this
// lane's element is in the input; `first_of_input`: it is the input's first, a head whatever the
// keys. The next row's `before_row` is row_last_key of this one.
template <class Key, class Pred>
__device__ std::uint32_t
row_head_word(const Key& current, const Key& before_row, bool exists, bool first_of_input, Pred& pred, int lane)
{
  Key before = cub::ShuffleUp<warp_threads>(current, 1, 0, 0xffffffffu);
  if (lane == 0)
  {
    before = before_row;
  }
  const bool head = exists && (first_of_input || !pred(before, current));
  return __ballot_sync(0xffffffffu, head);
}

template <class Key>
__device__ Key row_last_key(const Key& current)
{
  return cub::ShuffleIndex<warp_threads>(current, warp_threads - 1, 0xffffffffu);
}

// Rows of keys a lane holds at once while it finds a segment's heads, their loads in flight
// together: 32 bytes of keys (all 32 rows of 4-byte keys, or 16, spilled registers at 4 CTAs per
// SM).
template <class Key, int Rows>
constexpr int segment_head_batch = [] {
  const int batch = 32 / int(sizeof(Key)) > 0 ? 32 / int(sizeof(Key)) : 1;
  return batch < Rows ? batch : Rows;
}();

// A tile program's warp: loads the keys of its segment (`Rows` rows of 32 from input element
// `first`, `valid` of them in the input) warp-striped (row j, lane l: element 32 j + l), a batch
// of rows at a time with all of a batch's loads in flight, and stores row j's head word in
// heads[j] (every row's, zero past the input). The key before an element is the previous lane's
// (a shuffle), the previous row's last lane's, or, for the segment's first element, `before_row`.
template <int Rows, int KeyBatch, class KeysIt, class Key, class Pred>
__device__ void stage_segment_heads(
  const KeysIt& keys, Pred& pred, Key before_row, std::uint32_t* heads, std::size_t first, int valid, int lane)
{
  static_assert(Rows % KeyBatch == 0);
#pragma unroll
  for (int batch_begin = 0; batch_begin < Rows; batch_begin += KeyBatch)
  {
    Key current[KeyBatch];
#pragma unroll
    for (int b = 0; b < KeyBatch; ++b)
    {
      const int i = (batch_begin + b) * warp_threads + lane;
      if (i < valid)
      {
        current[b] = keys[static_cast<difference_of<KeysIt>>(first + static_cast<std::size_t>(i))];
      }
    }
#pragma unroll
    for (int b = 0; b < KeyBatch; ++b)
    {
      const int i = (batch_begin + b) * warp_threads + lane;
      const std::uint32_t row_heads = row_head_word(current[b], before_row, i < valid, first == 0 && i == 0, pred, lane);
      before_row                    = row_last_key(current[b]);
      if (lane == 0)
      {
        heads[batch_begin + b] = row_heads;
      }
    }
  }
}

// The head words of a warp's staged segment of keys (`keys.at(i)`: element i of the segment, for
// i < valid; `first`: the segment's first element in the input, `before_segment` the key before
// it where first > 0), row j's (elements 32 j + lane) in heads[j], zero past the input. Every key
// comes from shared memory, so a row's vote waits on no load.
template <int Rows, class KeySlice, class Key, class Pred>
__device__ void staged_segment_heads(
  const KeySlice& keys, Pred& pred, const Key& before_segment, std::uint32_t* heads, std::size_t first, int valid, int lane)
{
#pragma unroll 4
  for (int j = 0; j < Rows; ++j)
  {
    const int i = j * warp_threads + lane;
    bool head   = false;
    if (i < valid)
    {
      if (i == 0)
      {
        head = first == 0 || !pred(before_segment, keys.at(0));
      }
      else
      {
        head = !pred(keys.at(i - 1), keys.at(i));
      }
    }
    const std::uint32_t row_heads = __ballot_sync(0xffffffffu, head);
    if (lane == 0)
    {
      heads[j] = row_heads;
    }
  }
  __syncwarp();
}

// The head flags of data thread `rank`'s elements in a tile whose keys are staged, each thread's
// `items` keys blocked in its warp's slice (`key_slice(w, l)`: warp w's slice as lane l reads it,
// a segment of `Segment` keys): bit k for its element k. The key before the tile is
// `before_tile` (read by rank 0 alone); the input's first element is a head where `tile_is_first`.
template <int Segment, class KeySliceOf, class Key, class Pred>
__device__ std::uint32_t
staged_tile_thread_heads(KeySliceOf&& key_slice, Pred& pred, const Key& before_tile, bool tile_is_first, int rank)
{
  const int lane = rank % warp_threads;
  const int warp = rank / warp_threads;
  // This thread's keys, left to right: every head but its first element's.
  std::uint32_t heads = 0;
  Key first{}, last{};
  int k = 0;
  key_slice(warp, lane).for_each([&](const Key& x) {
    if (k == 0)
    {
      first = x;
    }
    else if (!pred(last, x))
    {
      heads |= 1u << k;
    }
    last = x;
    ++k;
  });
  // The key before the first element: the previous lane's last, the previous segment's last, or
  // the key before the tile.
  Key before = cub::ShuffleUp<warp_threads>(last, 1, 0, 0xffffffffu);
  if (lane == 0)
  {
    before = warp > 0 ? key_slice(warp - 1, 0).at(Segment - 1) : before_tile;
  }
  if ((rank == 0 && tile_is_first) || !pred(before, first))
  {
    heads |= 1u;
  }
  return heads;
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
    Key before_row{};
    if (lane == 0 && first > 0)
    {
      before_row = keys[static_cast<difference_of<KeysIt>>(first - 1)];
    }
    std::uint32_t mine = 0;
#pragma unroll
    for (int r = 0; r < rows; ++r)
    {
      const std::size_t i      = first + static_cast<std::size_t>(r * warp_threads + lane);
      const std::uint32_t word = row_head_word(current[r], before_row, i < n, i == 0, pred, lane);
      before_row               = row_last_key(current[r]);
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

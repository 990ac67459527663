// How a warp of the selection (select_program.h) counts what it selected, for its word-wide code:
// a warp's segment staged as 16-byte words, word row r being its words 32 r + lane, each lane
// holding one test bit per element of its words (bit r * PerWord + k for element k of its word in
// row r). The counts say where each lane's selected elements go; on the ring the reduce squad
// keeps them in the stage for the scan squad.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tuning.h>

#include <cstdint>

namespace spscan::detail
{

// The bits of one word's elements in a lane's test bits.
template <int PerWord>
inline constexpr std::uint32_t word_row_mask = PerWord == 32 ? ~0u : (1u << PerWord) - 1u;

// The sum of `count` over the warp, in every lane.
__device__ inline std::uint32_t warp_sum(std::uint32_t count)
{
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2)
  {
    count += __shfl_xor_sync(0xffffffffu, count, offset);
  }
  return count;
}

// The selected elements of each row before each lane's word, and each row's total, two rows to a
// 32-bit word (16-bit fields: a row holds at most 32 * PerWord <= 1024).
template <int WordRows, int PerWord>
struct word_row_counts
{
  static constexpr int row_pairs = (WordRows + 1) / 2;
  std::uint32_t exclusive[row_pairs];
  std::uint32_t totals[row_pairs];

  __device__ std::uint32_t before(int r) const
  {
    return (exclusive[r / 2] >> ((r % 2) * 16)) & 0xffffu;
  }
  __device__ std::uint32_t total(int r) const
  {
    return (totals[r / 2] >> ((r % 2) * 16)) & 0xffffu;
  }
};

// The rows' warp scans run side by side, two rows a word, so that their exchanges overlap instead
// of waiting on each other row after row.
template <int WordRows, int PerWord>
__device__ word_row_counts<WordRows, PerWord> count_word_rows(std::uint32_t bits, int lane)
{
  constexpr int row_pairs          = word_row_counts<WordRows, PerWord>::row_pairs;
  constexpr std::uint32_t row_mask = word_row_mask<PerWord>;
  word_row_counts<WordRows, PerWord> rows;
  std::uint32_t through[row_pairs];
#pragma unroll
  for (int q = 0; q < row_pairs; ++q)
  {
    const std::uint32_t low  = __popc((bits >> (2 * q * PerWord)) & row_mask);
    const std::uint32_t high = 2 * q + 1 < WordRows ? __popc((bits >> ((2 * q + 1) * PerWord)) & row_mask) : 0u;
    rows.exclusive[q]        = low | high << 16;
    through[q]               = rows.exclusive[q];
  }
#pragma unroll
  for (int offset = 1; offset < warp_threads; offset *= 2)
  {
#pragma unroll
    for (int q = 0; q < row_pairs; ++q)
    {
      const std::uint32_t lower = __shfl_up_sync(0xffffffffu, through[q], offset);
      through[q] += lane >= offset ? lower : 0u;
    }
  }
#pragma unroll
  for (int q = 0; q < row_pairs; ++q)
  {
    rows.exclusive[q] = through[q] - rows.exclusive[q];
    rows.totals[q]    = __shfl_sync(0xffffffffu, through[q], warp_threads - 1);
  }
  return rows;
}

// The row counts as the ring's reduce squad keeps them in a stage of `Threads` lanes: the counts
// before each lane's word in fields of 8 bits where they fit (at most 31 * PerWord), else 16, and
// each warp's row totals (int64, which stores from the lanes, lost by it).
template <int WordRows, int PerWord, int Threads>
struct kept_word_rows
{
  static constexpr int field_bits      = (warp_threads - 1) * PerWord < 256 ? 8 : 16;
  static constexpr int fields_per_word = 32 / field_bits;
  static constexpr int words           = (WordRows + fields_per_word - 1) / fields_per_word;

  std::uint32_t before[words][Threads];
  std::uint16_t totals[Threads / warp_threads][WordRows];

  // Reduce squad thread `rank` keeps its rows' counts (the warp's last lane, the totals too).
  __device__ void keep(const word_row_counts<WordRows, PerWord>& rows, int rank)
  {
    std::uint32_t fields[words] = {};
#pragma unroll
    for (int r = 0; r < WordRows; ++r)
    {
      fields[r / fields_per_word] |= rows.before(r) << ((r % fields_per_word) * field_bits);
      if (rank % warp_threads == warp_threads - 1)
      {
        totals[rank / warp_threads][r] = static_cast<std::uint16_t>(rows.total(r));
      }
    }
#pragma unroll
    for (int w = 0; w < words; ++w)
    {
      before[w][rank] = fields[w];
    }
  }
};

// The scan squad's view of the row counts the reduce squad kept.
template <int WordRows, int PerWord, int Threads>
struct kept_word_row_counts
{
  using kept = kept_word_rows<WordRows, PerWord, Threads>;
  std::uint32_t fields[kept::words];
  const std::uint16_t* totals;

  __device__ kept_word_row_counts(const kept& rows, int rank)
      : totals(rows.totals[rank / warp_threads])
  {
#pragma unroll
    for (int w = 0; w < kept::words; ++w)
    {
      fields[w] = rows.before[w][rank];
    }
  }
  __device__ std::uint32_t before(int r) const
  {
    return (fields[r / kept::fields_per_word] >> ((r % kept::fields_per_word) * kept::field_bits))
         & ((1u << kept::field_bits) - 1u);
  }
  __device__ std::uint32_t total(int r) const
  {
    return totals[r];
  }
};

} // namespace spscan::detail

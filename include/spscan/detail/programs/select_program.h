// Stream compaction as a tile program of the single-pass driver (classic/driver.h): copy_if,
// remove_copy_if (the predicate negated) and partition_copy, with or without a stencil.
//
// A tile: each data warp stages its segment of the input in shared memory (common/tile_io.h) and
// tests it; the warps' counts give each warp its offset in the tile and the tile's count, and the
// driver exchanges that count for the count selected before the tile: the carry is an integer, so
// the look-back is exact, and the output keeps the input's order. Then each warp writes its
// selected elements to consecutive outputs; element k of the input that is rejected goes to
// k - (elements selected before it). A segment staged as 16-byte words (a raw, aligned input) is
// tested a word a lane and its selected elements leave packed (the word-wide code, shared with the
// ring engine); one staged element by element, a row of 32 elements a ballot. The last tile writes
// the total where the host reads it (common/host_result.h), from which the call returns the end
// iterator(s): one pass over the input.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/classic/kernel_shape.h>
#include <spscan/detail/common/host_result.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/temporary_storage.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/programs/select_params.h>
#include <spscan/detail/programs/selection_rows.h>
#include <spscan/detail/ring/program_support.h>
#include <spscan/detail/ring/ring_driver.h>
#include <spscan/detail/ring/ring_launch.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/iterator/iterator_traits.h>

#include <cuda/std/type_traits>

#include <cstdint>
#include <optional>

namespace spscan::detail
{

template <class Tuning, class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred, bool Partition>
struct select_program
{
  using carry  = std::uint64_t; // elements selected before a tile (any input size)
  using tuning = Tuning;
  using params = select_params<InputIt, StencilIt, SelectedIt, RejectedIt, Pred>;
  using value  = ::cuda::std::remove_cv_t<typename thrust::iterator_traits<InputIt>::value_type>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;
  static_assert(items <= warp_threads, "row j's ballot is kept by lane j");

  static constexpr bool vector_layout = vector_layout_fits<InputIt, value*, items>; // tile_io.h
  static constexpr bool writes_output = Partition || !is_discarding<SelectedIt>;
  using vectors  = vector_slice<value, items>;
  using elements = element_slice<value, items>;
  using block    = block_scan<std::uint32_t, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    typename block::shared_storage block;
  };

  // Counting starts at zero: every tile's exchange returns a prefix.
  static constexpr bool has_initial_prefix = true;
  __device__ static carry initial_prefix(const params&)
  {
    return 0;
  }
  __device__ static add_counts carry_op(params&)
  {
    return {};
  }

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    with_staged_segment<vectors, elements, vector_layout>(
      shared.slices[at.warp], p.in + static_cast<difference_of<InputIt>>(at.first), at, p.vector_load, [&](const auto& staged) {
        select_staged(p, shared, tile, at, staged);
      });
  }

  // Tests, counts and writes out the staged segment: a 16-byte word a lane where it is staged as
  // words, else a row of 32 elements at a time (row j: elements 32 j + lane), so that a row's tests
  // are one ballot and its selected elements go out to consecutive outputs from consecutive lanes.
  template <class Tile, class Segment, class Slice>
  __device__ static void
  select_staged(params& p, shared_storage& shared, const Tile& tile, const Segment& at, const Slice& staged)
  {
    if constexpr (::cuda::std::is_same_v<Slice, vectors>)
    {
      select_words(p, shared, tile, at, staged);
    }
    else
    {
      select_rows(p, shared, tile, at, staged);
    }
  }

  template <class Tile, class Segment, class Slice>
  __device__ static void
  select_rows(params& p, shared_storage& shared, const Tile& tile, const Segment& at, const Slice& staged)
  {
    const int valid           = at.valid() < segment ? (at.valid() > 0 ? at.valid() : 0) : segment;
    const row_ballots ballots = test_rows(p, at.first, at.lane, staged, valid);
    const carry warp_first    = exchange_counts(p, shared, tile, at, ballots.count);
    write_rows(p, at.first, at.lane, staged, valid, ballots.kept, warp_first);
  }

  // A whole segment staged as words, in the classic tile: the ring's word-wide tests, row counts and
  // writes (below), faster than a ballot a row of elements (docs/design.md#stream-compaction).
  template <class Tile, class Segment>
  __device__ static void
  select_words(params& p, shared_storage& shared, const Tile& tile, const Segment& at, const vectors& staged)
  {
    const std::uint32_t bits = test_words<1>(p, at.first, at.lane, staged);
    const carry warp_first   = exchange_counts(p, shared, tile, at, warp_sum(__popc(bits)));
    // The rows' counts after the exchange: held across it, they cost the classic kernel (40
    // registers) spills.
    write_words(p, at.first, at.lane, staged, bits, count_rows(bits, at.lane), [&] {
      return warp_first;
    });
  }

  // The tile's count and each warp's offset in it (from each warp's count, in every lane); then the
  // count before the tile, for which the driver exchanges the tile's. Returns the count of elements
  // selected before the warp's segment; the last tile also writes the total.
  template <class Tile, class Segment>
  __device__ static carry
  exchange_counts(params& p, shared_storage& shared, const Tile& tile, const Segment& at, std::uint32_t warp_count)
  {
    add_counts add;
    const auto before = block::scan(shared.block, at.lane == 0 ? warp_count : 0u, add, threads, [&] {
      tile.sync_data_warps();
    });
    const carry tile_before = tile.exchange(before.total);
    if (threadIdx.x == 0 && at.tile_begin + static_cast<std::size_t>(at.tile_valid) == p.n)
    {
      *p.selected_total = tile_before + before.total;
    }
    return tile_before + __shfl_sync(0xffffffffu, before.has_exclusive ? before.exclusive : 0u, 0);
  }

  // A warp's tests of the first `valid` elements of its segment (which starts at input element
  // `first`): row j's ballot, kept by lane j, and the warp's count.
  struct row_ballots
  {
    std::uint32_t kept;
    std::uint32_t count;
  };

  template <class Slice>
  __device__ static row_ballots test_rows(params& p, std::size_t first, int lane, const Slice& staged, int valid)
  {
    const int valid_rows = (valid + warp_threads - 1) / warp_threads;
    row_ballots ballots{0, 0};
#pragma unroll 4
    for (int j = 0; j < valid_rows; ++j)
    {
      const int e              = j * warp_threads + lane;
      const std::uint32_t kept = __ballot_sync(0xffffffffu, e < valid && test(p, first, staged.at(e), e, [&] {
                                                 return element_before(p, first, staged, e);
                                               }));
      ballots.kept             = lane == j ? kept : ballots.kept;
      ballots.count += __popc(kept);
    }
    return ballots;
  }

  // Writes a warp's rows out, its selected elements from output `next_selected` on. Element k of
  // the input that is rejected goes to k - (elements selected before it).
  template <class Slice>
  __device__ static void write_rows(
    params& p, std::size_t first, int lane, const Slice& staged, int valid, std::uint32_t row_kept, std::uint64_t next_selected)
  {
    if constexpr (!writes_output)
    {
      return;
    }
    const int valid_rows            = (valid + warp_threads - 1) / warp_threads;
    std::uint64_t next_rejected     = first - next_selected;
    const std::uint32_t lanes_below = (1u << lane) - 1u;
#pragma unroll 4
    for (int j = 0; j < valid_rows; ++j)
    {
      const int e              = j * warp_threads + lane;
      const std::uint32_t kept = __shfl_sync(0xffffffffu, row_kept, j);
      if ((kept >> lane) & 1u)
      {
        p.selected[static_cast<difference_of<SelectedIt>>(next_selected + __popc(kept & lanes_below))] = staged.at(e);
      }
      else if constexpr (Partition)
      {
        if (e < valid) // the valid lanes of a row are its first ones
        {
          p.rejected[static_cast<difference_of<RejectedIt>>(next_rejected + __popc(~kept & lanes_below))] = staged.at(e);
        }
      }
      next_selected += __popc(kept);
      if constexpr (Partition)
      {
        const int row_valid = valid - j * warp_threads < warp_threads ? valid - j * warp_threads : warp_threads;
        next_rejected += static_cast<std::uint32_t>(row_valid) - __popc(kept);
      }
    }
  }

  // The predicate on element e of the segment that starts at input element `first`, whose value
  // is x: on the value, on its stencil element (then x is not used, and its load goes unmade), or
  // on whether it heads a run (`previous()`: the element before it, asked for only where there
  // is one).
  template <class Previous>
  __device__ static bool test(params& p, std::size_t first, const value& x, int e, Previous&& previous)
  {
    if constexpr (::cuda::std::is_same_v<StencilIt, no_stencil>)
    {
      return p.pred(x);
    }
    else if constexpr (is_run_head_stencil<StencilIt>)
    {
      return p.pred(first + static_cast<std::size_t>(e) == 0 || !p.stencil.same_run(previous(), x));
    }
    else
    {
      return p.pred(p.stencil[static_cast<difference_of<StencilIt>>(first + static_cast<std::size_t>(e))]);
    }
  }

  // The input element before element e > 0 of the staged segment that starts at input element
  // `first`, or before the segment (e == 0, first > 0).
  template <class Slice>
  __device__ static value element_before(params& p, std::size_t first, const Slice& staged, int e)
  {
    if (e > 0)
    {
      return staged.at(e - 1);
    }
    return p.in[static_cast<difference_of<InputIt>>(first - 1)];
  }

  // The word-wide code, for a warp's whole segment staged as 16-byte words: in the classic tile
  // (select_words) and on the ring engine, where a few warps test and write whole tiles alone (a
  // row of 32 elements per ballot cost about 4x the instructions there). Word row r of a warp's
  // segment is its words 32 r + lane, and a lane keeps one bit per element it tested, bit
  // r * per_word + k for element k of its word in row r (items <= 32 bits; the rows' counts:
  // selection_rows.h). The output is the row code's: every selected element, in input order.
  static constexpr int per_word  = vectors::per_word;
  static constexpr int word_rows = vectors::words_per_lane;
  static constexpr std::uint32_t row_mask = word_row_mask<per_word>;

  // Elements of 8 bytes and partition_copy's two outputs keep each lane's own stores; the others
  // are packed in the warp's slice first (write_words).
  static constexpr bool packs_selected = !Partition && per_word > 2;

  // This lane's tests of its words of the segment that starts at input element `first`, `Unroll`
  // rows at a time: the ring's kernels (96 registers) take every row at once; the classic kernel
  // (40 registers) one, else its loads of every row at once spilled (ptxas: up to 400 bytes for
  // int32's primary tile, 0-24 bytes a row at a time).
  template <int Unroll>
  __device__ static std::uint32_t test_words(params& p, std::size_t first, int lane, const vectors& staged)
  {
    std::uint32_t bits = 0;
#pragma unroll(Unroll)
    for (int r = 0; r < word_rows; ++r)
    {
      const int word = r * warp_threads + lane;
      value elements[per_word];
      staged.word_elements(word, elements);
#pragma unroll
      for (int k = 0; k < per_word; ++k)
      {
        // The element before element k: in the same word, or the last of the word before (the
        // inner index stays in range where k is 0, whose branch does not read it).
        const auto previous = [&] {
          return k > 0 ? elements[k > 0 ? k - 1 : 0] : element_before(p, first, staged, word * per_word);
        };
        bits |= test(p, first, elements[k], word * per_word + k, previous) ? 1u << (r * per_word + k) : 0u;
      }
    }
    return bits;
  }

  // The selected elements of each row before each lane's word, and each row's total.
  using row_counts = word_row_counts<word_rows, per_word>;
  __device__ static row_counts count_rows(std::uint32_t bits, int lane)
  {
    return count_word_rows<word_rows, per_word>(bits, lane);
  }

  // Writes out the selected (and rejected) elements of this lane's words, the warp's selected ones
  // from output `warp_first()` on, given the lane's test bits and the rows' counts (`Rows`:
  // before(r), total(r)). (warp_first is asked for where it is needed: held across the packing,
  // it cost the ring's kernels registers.)
  template <class Rows, class WarpFirst>
  __device__ static void write_words(
    params& p, std::size_t first, int lane, const vectors& staged, std::uint32_t bits, const Rows& rows, WarpFirst&& warp_first)
  {
    // Elements of 8 bytes and partition_copy's two outputs keep the lane's own stores: packing
    // measured slower for int64 (docs/design.md#stream-compaction).
    if constexpr (!writes_output)
    {
      return;
    }
    else if constexpr (!packs_selected)
    {
      std::uint64_t row_start = warp_first(); // selected before the row
#pragma unroll
      for (int r = 0; r < word_rows; ++r)
      {
        const std::uint32_t row_bits   = (bits >> (r * per_word)) & row_mask;
        const std::uint64_t word_start = row_start + rows.before(r);
        const int word                 = r * warp_threads + lane;
        if (Partition || row_bits != 0)
        {
          value elements[per_word];
          staged.word_elements(word, elements);
#pragma unroll
          for (int k = 0; k < per_word; ++k)
          {
            const std::uint64_t selected_before = word_start + __popc(row_bits & ((1u << k) - 1u));
            if ((row_bits >> k) & 1u)
            {
              p.selected[static_cast<difference_of<SelectedIt>>(selected_before)] = elements[k];
            }
            else if constexpr (Partition)
            {
              const std::size_t e = first + static_cast<std::size_t>(word * per_word + k);
              p.rejected[static_cast<difference_of<RejectedIt>>(e - selected_before)] = elements[k];
            }
          }
        }
        row_start += rows.total(r);
      }
    }
    else
    {
      // The warp's selected elements go to consecutive places: they are packed first, in order, at
      // the start of the warp's slice (row r's packed elements land at or before the end of row r,
      // which every lane has read by then: the swizzle moves words within their 128 bytes), then
      // stored by consecutive lanes, so that each store instruction writes whole sectors rather
      // than every per_word-th element.
      value* packed           = static_cast<value*>(staged.data());
      std::uint32_t row_first = 0; // the warp's selected elements in the rows before
#pragma unroll
      for (int r = 0; r < word_rows; ++r)
      {
        const std::uint32_t row_bits = (bits >> (r * per_word)) & row_mask;
        const std::uint32_t before   = row_first + rows.before(r);
        value elements[per_word];
        if (row_bits != 0)
        {
          staged.word_elements(r * warp_threads + lane, elements);
        }
        __syncwarp();
#pragma unroll
        for (int k = 0; k < per_word; ++k)
        {
          if ((row_bits >> k) & 1u)
          {
            packed[before + __popc(row_bits & ((1u << k) - 1u))] = elements[k];
          }
        }
        row_first += rows.total(r);
      }
      __syncwarp();
      const std::uint64_t packed_first = warp_first();
      for (std::uint32_t i = static_cast<std::uint32_t>(lane); i < row_first; i += warp_threads)
      {
        p.selected[static_cast<difference_of<SelectedIt>>(packed_first + i)] = packed[i];
      }
    }
  }

  // On the ring engine (ring/ring_driver.h), where the input is a raw, 16-byte aligned pointer: a
  // whole tile is the image of its bytes, brought by the copy engine, and the word-wide code reads
  // it as it reads a staged segment, which holds where every warp's slice starts on a block of the
  // copy engine's swizzle (ring/tensor_map.h; int8's half tile has slices of 512 bytes, so it stays
  // on the classic engine). The reduce squad tests, publishes the tile's count and counts, row by
  // row, the selected elements before each lane's word; the scan squad writes the selected (and
  // rejected) elements out once the count before the tile is known.
  static constexpr bool runs_on_ring           = vector_layout && vectors::bytes % ring::swizzle_block_bytes == 0;
  static constexpr bool ring_copies_input      = true;
  static constexpr bool ring_stores_by_copy    = false; // results go where the count says
  static constexpr std::size_t ring_tile_bytes = std::size_t{tuning::tile_items} * sizeof(value);
  // Two prefix warps taking turns (ring_driver.h): with one, the count's prefix warp was the
  // queue, a round trip of state reads per tile (docs/design.md#the-prefix-warp).
  static constexpr int ring_prefix_warps = 2;
  // The ring from 1 MiB where the input has a tile per SM (launch_ring's floor decides: 132 int8
  // tiles are 1.03 MiB). Below the floor the classic tile, whose word-wide code is the ring's, is
  // faster (docs/design.md#stream-compaction). Scans keep ring_min_bytes.
  static constexpr std::size_t ring_min_input_bytes = std::size_t{1} << 20;

  // Where the selected elements are packed, the scan squad is the ring's queue (1.4-1.9 us a tile
  // against the reduce squad's 0.8), so the reduce squad counts the rows and keeps the counts in
  // the stage (selection_rows.h).
  using kept_rows       = kept_word_rows<word_rows, per_word, threads>;
  using kept_row_counts = kept_word_row_counts<word_rows, per_word, threads>;

  struct no_kept_rows
  {};

  struct ring_storage
  {
    std::uint32_t lane_bits[threads];
    ::cuda::std::conditional_t<packs_selected, kept_rows, no_kept_rows> rows;
    std::uint32_t warp_offset[warps];
    std::uint32_t tile_count;
    typename block::shared_storage block;
  };

  template <class Tensors, class Barrier>
  __device__ static void ring_load(const Tensors& tensors, void* stage, std::size_t tile, Barrier& loaded)
  {
    ring::load_tile_image<ring_tile_bytes>(tensors.in, stage, tile, loaded);
  }

  // Nothing: the scan squad's ring_scan has written the tile's results already (their places
  // depend on the count before the tile).
  __device__ static void ring_write(params&, void*, int, std::size_t) {}

  // Reduce squad (threads [0, threads)): the tile's count, in thread 0.
  template <class Tile>
  __device__ static carry ring_reduce(params& p, void* stage, ring_storage& storage, const Tile& tile)
  {
    const int rank                 = static_cast<int>(threadIdx.x);
    const int lane                 = rank % warp_threads;
    const std::size_t first        = ring::warp_segment_first(tile.index(), tuning::tile_items, rank, segment);
    const std::uint32_t bits       = test_words<word_rows>(p, first, lane, ring::warp_slice_in_stage<vectors>(stage, rank));
    const std::uint32_t warp_count = warp_sum(__popc(bits));
    add_counts add;
    const auto before = block::scan(storage.block, lane == 0 ? warp_count : 0u, add, threads, [&] {
      tile.sync_data_warps();
    });
    storage.lane_bits[rank] = bits;
    if (lane == 0)
    {
      storage.warp_offset[rank / warp_threads] = before.has_exclusive ? before.exclusive : 0u;
    }
    if (rank == 0)
    {
      storage.tile_count = before.total;
    }
    if constexpr (packs_selected)
    {
      // The rows' counts for the scan squad, after the tile's count (it goes out once this returns).
      storage.rows.keep(count_rows(bits, lane), rank);
    }
    return before.total;
  }

  // Scan squad (rank in [0, threads)): the selected (and rejected) elements of its lane's words,
  // written out; the total, after the last tile.
  template <class Tile>
  __device__ static void
  ring_scan(params& p, void* stage, const ring_storage& storage, int rank, const Tile& tile, const carry& tile_before)
  {
    if (rank == 0 && (tile.index() + 1) * static_cast<std::size_t>(tuning::tile_items) == p.n)
    {
      *p.selected_total = tile_before + storage.tile_count;
    }
    const int lane           = rank % warp_threads;
    const std::size_t first  = ring::warp_segment_first(tile.index(), tuning::tile_items, rank, segment);
    const vectors staged     = ring::warp_slice_in_stage<vectors>(stage, rank);
    const std::uint32_t bits = storage.lane_bits[rank];
    const auto warp_first    = [&] {
      return tile_before + storage.warp_offset[rank / warp_threads];
    };
    if constexpr (packs_selected)
    {
      write_words(p, first, lane, staged, bits, kept_row_counts(storage.rows, rank), warp_first);
    }
    else
    {
      write_words(p, first, lane, staged, bits, count_rows(bits, lane), warp_first);
    }
  }
};

} // namespace spscan::detail

// reduce_by_key as a tile program of the single-pass driver (classic/driver.h): for each run of
// equal keys, its first key and the fold of its values, in order; Thrust's semantics.
//
// Runs: element i starts one (is a head) when i == 0 or pred(key[i-1], key[i]) is false, the
// predicate called as (previous, current); it ends (is a tail) where the next element starts one,
// or at the input's last element. What travels through the look-back is a run carry: for a span of
// the input, how many heads lie in it and the fold of its values since its last head. Run k's last
// key (the one Thrust's CUDA backend writes, where a predicate coarser than == lets a run's keys
// differ) and its fold go to keys_out[k] and values_out[k] from its tail, where k + 1 is the count
// of heads up to the tail.
//
// A tile: each data warp finds its segment's head bits as the by-key scan does
// (programs/segment_heads.h), keeping the keys it reads in shared memory, and stages its values;
// each thread folds its elements into a carry, the block scan gives every thread the carry before
// it and the tile's aggregate, the driver exchanges the aggregate for the tile's exclusive prefix,
// and each thread replaces its values by their running folds. Then each warp goes through its
// segment a row of 32 at a time (row j: elements 32 j + lane), so that a row's tails go out to
// consecutive outputs from consecutive lanes. The folds are the by-key scan's, so their bits depend
// on the input size and where the runs start only. The last tile writes the count of runs where
// the host reads it.
//
// In place (keys_out over the keys, values_out over the values): a tile writes only at or below
// its own elements, and only once it has its prefix, which every earlier tile publishes after it
// has staged its keys and values; a tile reads two keys beyond its own, the one before it (which an
// earlier tile can overwrite only with itself: run k's key goes to k <= its tail, and k == tail
// means every element up to it is a run of one) and the one after it (which no tile writes before
// this one has published).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/config.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/programs/segment_heads.h>
#include <spscan/detail/thrust_bridge.h>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

// Heads up to 2^32 - 1 in a 4-byte count (the carry of a value of up to 4 bytes then packs with
// its status in one 128-bit word, common/tile_state.h), more in an 8-byte one.
template <class Accum, class Count>
struct run_carry
{
  Accum value;
  Count heads;
};

// The run carries' combine, from the user's op: op(earlier, later) only, never on a value that is
// not the fold of input values:
//   (a, b) -> {b.heads ? b.value : op(a.value, b.value), a.heads + b.heads},
// associative whenever op is.
template <class Accum, class Count, class Op>
struct run_carry_op
{
  Op& op;

  _CCCL_EXEC_CHECK_DISABLE
  SPSCAN_HOST_DEVICE run_carry<Accum, Count> operator()(const run_carry<Accum, Count>& a,
                                                        const run_carry<Accum, Count>& b) const
  {
    // Zeroed first, padding too: a carry in the split tile layout is published whole.
    run_carry<Accum, Count> combined{};
    combined.value = b.heads != 0 ? b.value : static_cast<Accum>(op(a.value, b.value));
    combined.heads = static_cast<Count>(a.heads + b.heads);
    return combined;
  }
};

template <class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Pred, class Op>
struct reduce_by_key_params
{
  KeysIt keys;
  ValuesIt values;
  KeysOutIt keys_out;
  ValuesOutIt values_out;
  std::size_t n; // > 0
  Pred pred;
  Op op;
  std::uint64_t* runs_total; // written by the last tile
  bool vector_load; // values are a 16-byte aligned raw pointer
};

template <class Tuning, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Accum, class Count, class Pred, class Op>
struct reduce_by_key_program
{
  using carry  = run_carry<Accum, Count>;
  using tuning = Tuning;
  using params = reduce_by_key_params<KeysIt, ValuesIt, KeysOutIt, ValuesOutIt, Pred, Op>;
  using key    = value_of<KeysIt>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;
  static constexpr int rows    = items; // warp-striped rows of a segment: 32 elements each
  static_assert(items <= warp_threads && warp_threads % items == 0, "a thread's head flags share one word");
  static constexpr int key_batch = segment_head_batch<key, rows>;

  using value_in = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<ValuesIt>>;
  // Values move as 16-byte words straight into shared memory where they can (tile_io.h), their
  // loads in flight while the keys are read and compared.
  static constexpr bool vector_layout = vector_layout_fits<ValuesIt, Accum*, items> && ::cuda::std::is_same_v<value_in, Accum>;
  using elements = element_slice<Accum, items>;
  using vectors  = vector_slice<Accum, items>;
  using block    = block_scan<carry, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    std::uint32_t heads[warps][rows]; // bit l of row j: element 32 j + l of the warp's segment heads a run
    key keys[warps][segment]; // the warp's keys, for the runs' keys
    typename block::shared_storage block;
    bool after_tile_heads; // the element after the tile heads a run (or there is none)
  };

  // Counting starts at zero, and the first run at the first element.
  static constexpr bool has_initial_prefix = false;
  __device__ static carry initial_prefix(const params&)
  {
    return carry{};
  }

  __device__ static run_carry_op<Accum, Count, Op> carry_op(params& p)
  {
    return {p.op};
  }

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    const std::size_t tile_end = at.tile_begin + static_cast<std::size_t>(at.tile_valid);
    if (threadIdx.x == 0)
    {
      // The last tile's last element is the input's: a tail. Another tile's is one where the next
      // tile's first element heads a run.
      shared.after_tile_heads =
        tile_end == p.n
        || !p.pred(key(p.keys[static_cast<difference_of<KeysIt>>(tile_end - 1)]),
                   key(p.keys[static_cast<difference_of<KeysIt>>(tile_end)]));
    }
    const auto values = p.values + static_cast<difference_of<ValuesIt>>(at.first);
    void* slice       = shared.slices[at.warp];
    if constexpr (vector_layout)
    {
      if (at.whole() && p.vector_load)
      {
        const vectors staged(slice, at.lane);
        staged.start_stage(values);
        stage_heads(p, shared, at);
        staged.finish_stage();
        reduce_staged(p, shared, tile, at, staged);
        return;
      }
    }
    stage_heads(p, shared, at);
    const elements staged(slice, at.lane, at.valid());
    staged.stage(values);
    reduce_staged(p, shared, tile, at, staged);
  }

  template <class Segment>
  __device__ static void stage_heads(params& p, shared_storage& shared, const Segment& at)
  {
    key before_row{};
    if (at.valid() > 0 && at.first > 0)
    {
      before_row = p.keys[static_cast<difference_of<KeysIt>>(at.first - 1)];
    }
    key* kept = shared.keys[at.warp];
    stage_segment_heads<rows, key_batch>(
      p.keys, p.pred, before_row, shared.heads[at.warp], at.first, at.valid(), at.lane, [&](int i, const key& k) {
        kept[i] = k;
      });
  }

  // Folds the staged values into runs: thread carries, the block scan, the exchange with the
  // driver, the running folds in place, then the runs written out.
  template <class Tile, class Segment, class Slice>
  __device__ static void
  reduce_staged(params& p, shared_storage& shared, const Tile& tile, const Segment& at, const Slice& staged)
  {
    const std::size_t tile_end = at.tile_begin + static_cast<std::size_t>(at.tile_valid);
    // This thread's head flags: its `items` elements are bits [lane * items, lane * items + items)
    // of the segment, all in one row's word.
    const int first_bit      = at.lane * items;
    const std::uint32_t word = shared.heads[at.warp][first_bit / warp_threads];
    const std::uint32_t heads =
      items == warp_threads ? word : (word >> (first_bit % warp_threads)) & ((1u << (items % warp_threads)) - 1u);

    auto op                 = carry_op(p);
    const int valid_threads = (at.tile_valid + items - 1) / items;
    const auto before       = block::scan(shared.block, thread_carry_of(p, staged, heads), op, valid_threads, [&] {
      tile.sync_data_warps();
    });
    // Whether the element after the segment heads a run, read before the exchange: the
    // exchange's barrier keeps the next warp's words (and after_tile_heads) until then.
    const bool after_segment_heads = at.warp + 1 < warps && at.valid() > segment
                                     ? (shared.heads[at.warp + 1][0] & 1u) != 0
                                     : shared.after_tile_heads;
    const carry tile_prefix = tile.exchange(before.total);
    if (threadIdx.x == 0 && tile_end == p.n)
    {
      *p.runs_total = static_cast<std::uint64_t>(before.total.heads) + (tile.has_prefix() ? tile_prefix.heads : 0u);
    }

    // The carry of everything before this thread's first element, where something is: the
    // input's first element is a head, so every element that is not has a predecessor.
    carry running{};
    if (tile.has_prefix())
    {
      running = before.has_exclusive ? op(tile_prefix, before.exclusive) : tile_prefix;
    }
    else if (before.has_exclusive)
    {
      running = before.exclusive;
    }
    // The heads before the warp's segment: lane 0's.
    const Count heads_before_segment = __shfl_sync(0xffffffffu, running.heads, 0);
    fold_in_place(p, staged, heads, running.value);
    write_runs(p, shared.heads[at.warp], shared.keys[at.warp], staged, at, heads_before_segment, after_segment_heads);
  }

  // The fold of this thread's elements (bit k of `heads`: its element k heads a run). A thread
  // with no element takes part in the block scan with a carry that holds a head, which the combine
  // passes on without calling op; the block scan leaves it out of every result anyway.
  template <class Slice>
  __device__ static carry thread_carry_of(params& p, const Slice& staged, std::uint32_t heads)
  {
    carry thread_carry{Accum{}, Count{1}};
    int k = 0;
    staged.for_each([&](const Accum& x) {
      const bool head = (heads >> k) & 1u;
      if (k == 0)
      {
        thread_carry = carry{x, static_cast<Count>(head)};
      }
      else if (head)
      {
        thread_carry.value = x;
        ++thread_carry.heads;
      }
      else
      {
        thread_carry.value = p.op(thread_carry.value, x);
      }
      ++k;
    });
    return thread_carry;
  }

  // Replaces this thread's elements by the fold of their run up to them, from `running`, the fold
  // before its first element (unused where that element is a head).
  template <class Slice>
  __device__ static void fold_in_place(params& p, const Slice& staged, std::uint32_t heads, Accum running)
  {
    int k = 0;
    staged.template transform<Accum>([&](const Accum& x) {
      const bool head = (heads >> k) & 1u;
      ++k;
      running = head ? x : static_cast<Accum>(p.op(running, x));
      return running;
    });
  }

  // Writes the warp's runs, a row of 32 elements at a time: each tail's key to keys_out and its
  // fold to values_out, at (heads up to it) - 1.
  template <class Slice, class Segment>
  __device__ static void write_runs(params& p,
                                    const std::uint32_t* head_words,
                                    const key* keys,
                                    const Slice& staged,
                                    const Segment& at,
                                    Count heads_before,
                                    bool after_segment_heads)
  {
    __syncwarp();
    const int valid = at.valid() < segment ? at.valid() : segment;
    if (valid <= 0)
    {
      return;
    }
    const int valid_rows              = (valid + warp_threads - 1) / warp_threads;
    const std::uint32_t lanes_up_to   = 0xffffffffu >> (warp_threads - 1 - at.lane);
    const std::uint32_t lane_bit      = 1u << at.lane;
    const int last_row                = valid_rows - 1;
    const std::uint32_t last_row_tail = 1u << ((valid - 1) % warp_threads);
#pragma unroll 4
    for (int j = 0; j < valid_rows; ++j)
    {
      const std::uint32_t row_heads = head_words[j];
      // A row's tails: the elements before its heads; its last where the element after it heads
      // a run; in a partial segment's last row, the input's last element.
      std::uint32_t row_tails = row_heads >> 1;
      if (j < last_row)
      {
        row_tails |= (head_words[j + 1] & 1u) << (warp_threads - 1);
      }
      else if (valid == segment)
      {
        row_tails |= after_segment_heads ? 1u << (warp_threads - 1) : 0u;
      }
      else
      {
        row_tails |= last_row_tail;
      }
      const Count run = static_cast<Count>(heads_before + __popc(row_heads & lanes_up_to));
      const int e     = j * warp_threads + at.lane;
      if (row_tails & lane_bit)
      {
        p.keys_out[static_cast<difference_of<KeysOutIt>>(run - 1)]     = keys[e];
        p.values_out[static_cast<difference_of<ValuesOutIt>>(run - 1)] = staged.at(e);
      }
      heads_before = static_cast<Count>(heads_before + __popc(row_heads));
    }
  }
};

} // namespace spscan::detail

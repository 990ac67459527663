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
// A tile: each data warp stages its segment's keys and values in shared memory, both inputs' loads
// in flight together (as 16-byte words by cp.async where an input is an aligned pointer), and finds
// the segment's head bits from the staged keys (programs/segment_heads.h); each thread folds its elements into a carry, the block scan gives every thread the carry before
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
#include <spscan/detail/programs/run_carry.h>
#include <spscan/detail/programs/segment_heads.h>
#include <spscan/detail/ring/program_support.h>
#include <spscan/detail/thrust_bridge.h>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

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
  bool keys_vector_load; // keys are a 16-byte aligned raw pointer
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

  using value_in = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<ValuesIt>>;
  // Keys and values move as 16-byte words straight into shared memory where they can (tile_io.h);
  // the keys stay there for the head test and the runs' keys.
  static constexpr bool vector_layout = vector_layout_fits<ValuesIt, Accum*, items> && ::cuda::std::is_same_v<value_in, Accum>;
  static constexpr bool key_vector_layout =
    ::cuda::std::is_pointer_v<KeysIt> && 16 % sizeof(key) == 0 && vector_shape<key, items>::fits;
  using elements     = element_slice<Accum, items>;
  using vectors      = vector_slice<Accum, items>;
  using key_elements = element_slice<key, items>;
  using key_vectors  = vector_slice<key, items>;
  using block        = block_scan<carry, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;
  static constexpr std::size_t key_slice_bytes =
    key_vector_layout && key_vectors::bytes > key_elements::bytes ? key_vectors::bytes : key_elements::bytes;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    alignas(16) unsigned char key_slices[warps][key_slice_bytes];
    std::uint32_t heads[warps][rows]; // bit l of row j: element 32 j + l of the warp's segment heads a run
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
    key before_segment{};
    if (at.valid() > 0 && at.first > 0)
    {
      before_segment = p.keys[static_cast<difference_of<KeysIt>>(at.first - 1)];
    }
    with_segment_on_its_way<key_vectors, key_elements, key_vector_layout>(
      shared.key_slices[at.warp], p.keys + static_cast<difference_of<KeysIt>>(at.first), at, p.keys_vector_load, [&](const auto& keys) {
        with_segment_on_its_way<vectors, elements, vector_layout>(
          shared.slices[at.warp],
          p.values + static_cast<difference_of<ValuesIt>>(at.first),
          at,
          p.vector_load,
          [&](const auto& staged) {
            wait_for_staged_words();
            staged_segment_heads<rows>(keys, p.pred, before_segment, shared.heads[at.warp], at.first, at.valid(), at.lane);
            reduce_staged(p, shared, tile, at, keys, staged);
          });
      });
  }

  // Folds the staged values into runs: thread carries, the block scan, the exchange with the
  // driver, the running folds in place, then the runs written out.
  template <class Tile, class Segment, class KeySlice, class Slice>
  __device__ static void reduce_staged(
    params& p, shared_storage& shared, const Tile& tile, const Segment& at, const KeySlice& keys, const Slice& staged)
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
    const int valid = at.valid() < segment ? at.valid() : segment;
    write_runs(
      p,
      [&](int j) {
        return shared.heads[at.warp][j];
      },
      keys,
      staged,
      at.lane,
      valid,
      heads_before_segment,
      after_segment_heads);
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
  // fold to values_out, at (heads up to it) - 1. `row_heads(j)`: row j's head word; `valid`: the
  // segment's elements that exist.
  template <class RowHeads, class KeySlice, class Slice>
  __device__ static void write_runs(params& p,
                                    RowHeads&& row_heads,
                                    const KeySlice& keys,
                                    const Slice& staged,
                                    int lane,
                                    int valid,
                                    Count heads_before,
                                    bool after_segment_heads)
  {
    __syncwarp();
    if (valid <= 0)
    {
      return;
    }
    const int valid_rows              = (valid + warp_threads - 1) / warp_threads;
    const std::uint32_t lanes_up_to   = 0xffffffffu >> (warp_threads - 1 - lane);
    const std::uint32_t lane_bit      = 1u << lane;
    const int last_row                = valid_rows - 1;
    const std::uint32_t last_row_tail = 1u << ((valid - 1) % warp_threads);
    std::uint32_t next_heads          = row_heads(0);
#pragma unroll 4
    for (int j = 0; j < valid_rows; ++j)
    {
      const std::uint32_t this_heads = next_heads;
      // A row's tails: the elements before its heads; its last where the element after it heads
      // a run; in a partial segment's last row, the input's last element.
      std::uint32_t row_tails = this_heads >> 1;
      if (j < last_row)
      {
        next_heads = row_heads(j + 1);
        row_tails |= (next_heads & 1u) << (warp_threads - 1);
      }
      else if (valid == segment)
      {
        row_tails |= after_segment_heads ? 1u << (warp_threads - 1) : 0u;
      }
      else
      {
        row_tails |= last_row_tail;
      }
      const Count run = static_cast<Count>(heads_before + __popc(this_heads & lanes_up_to));
      const int e     = j * warp_threads + lane;
      if (row_tails & lane_bit)
      {
        p.keys_out[static_cast<difference_of<KeysOutIt>>(run - 1)]     = keys.at(e);
        p.values_out[static_cast<difference_of<ValuesOutIt>>(run - 1)] = staged.at(e);
      }
      heads_before = static_cast<Count>(heads_before + __popc(this_heads));
    }
  }

  // On the ring engine (ring/ring_driver.h), where keys and values are raw, 16-byte aligned
  // pointers that take the vector layout and a tile of both fits a 64 KiB stage: the producer
  // brings a tile's values and, behind them, its keys, each by bulk copy as its bytes' image; the
  // reduce squad finds each thread's head flags from the keys in the stage (kept for the scan
  // squad, with the thread's exclusive carry), folds the thread's carry and publishes the tile's;
  // the scan squad turns the values into their running folds in the stage and writes the runs a
  // row at a time, as the classic tile does: the same heads, carries and block scan, the same bits.
  static constexpr std::size_t ring_stage_limit      = std::size_t{64} * 1024; // three stages fit an SM
  static constexpr std::size_t ring_value_tile_bytes = std::size_t{tuning::tile_items} * sizeof(Accum);
  static constexpr std::size_t ring_key_tile_bytes   = std::size_t{tuning::tile_items} * sizeof(key);
  static constexpr std::size_t ring_tile_bytes       = ring_value_tile_bytes + ring_key_tile_bytes;
  static constexpr bool runs_on_ring = vector_layout && key_vector_layout && ring_tile_bytes <= ring_stage_limit
                                    && vectors::bytes % ring::swizzle_block_bytes == 0;
  static constexpr bool ring_copies_input   = true;
  static constexpr bool ring_stores_by_copy = false; // runs go where the count says
  // Two prefix warps taking turns, as the selection's: the count needs every aggregate, so a
  // single prefix warp would read a round trip of states a tile (docs/design.md#the-prefix-warp).
  static constexpr int ring_prefix_warps = 2;
  // From 1 MiB of values with a tile per SM, where the few-tile shape ends (reduce_by_key_plan.h).
  static constexpr std::size_t ring_min_input_bytes = std::size_t{1} << 20;

  struct ring_storage
  {
    std::uint32_t heads[threads]; // bit k: element k of the thread heads a run
    ring::kept_exclusives<carry, threads> exclusive;
    typename block::shared_storage block;
    Count tile_heads; // the tile's count of heads
    bool after_tile_heads; // the element after the tile heads a run (or there is none)
  };

  static const void* ring_keys(const params& p)
  {
    return p.keys;
  }

  // The keys of warp `warp`'s segment, behind the tile's values in the stage.
  __device__ static key_vectors ring_key_slice(void* stage, int warp, int lane)
  {
    return ring::slice_behind_image<key_vectors>(stage, ring_value_tile_bytes, warp, lane);
  }

  template <class Tensors, class Barrier>
  __device__ static void ring_load(const Tensors& tensors, void* stage, std::size_t tile, Barrier& loaded)
  {
    ring::load_values_and_keys<ring_value_tile_bytes, ring_key_tile_bytes>(tensors, stage, tile, loaded);
  }

  // Nothing: the scan squad's ring_scan has written the tile's runs already (their places depend
  // on the count before the tile).
  __device__ static void ring_write(params&, void*, int, std::size_t) {}

  // Reduce squad (threads [0, threads)): the tile's aggregate, in thread 0.
  template <class Tile>
  __device__ static carry ring_reduce(params& p, void* stage, ring_storage& storage, const Tile& tile)
  {
    const int rank               = static_cast<int>(threadIdx.x);
    const int lane               = rank % warp_threads;
    const std::size_t tile_first = tile.first_item();
    const std::size_t tile_end   = tile_first + static_cast<std::size_t>(tuning::tile_items);
    // The keys on either side of the tile lie in other tiles: read from device memory, their
    // loads issued first so that they fly while the heads in the stage are found.
    key before_tile{}, after_tile{};
    if (rank == 0 && tile_first > 0)
    {
      before_tile = p.keys[static_cast<difference_of<KeysIt>>(tile_first - 1)];
    }
    if (rank == threads - 1 && tile_end < p.n)
    {
      after_tile = p.keys[static_cast<difference_of<KeysIt>>(tile_end)];
    }
    const std::uint32_t heads = staged_tile_thread_heads<segment>(
      [&](int warp, int slice_lane) {
        return ring_key_slice(stage, warp, slice_lane);
      },
      p.pred,
      before_tile,
      tile_first == 0,
      rank);
    if (rank == threads - 1)
    {
      storage.after_tile_heads = tile_end == p.n || !p.pred(ring_key_slice(stage, warps - 1, lane).at(segment - 1), after_tile);
    }
    storage.heads[rank] = heads;
    auto op             = carry_op(p);
    const carry thread_carry = thread_carry_of(p, ring::warp_slice_in_stage<vectors>(stage, rank), heads);
    const auto before_thread = block::scan(storage.block, thread_carry, op, threads, [&] {
      tile.sync_data_warps();
    });
    const carry total = storage.exclusive.keep(rank, before_thread);
    if (rank == 0)
    {
      storage.tile_heads = total.heads;
    }
    return total;
  }

  // Scan squad (rank in [0, threads)): the running folds over the tile's values in its stage, then
  // its runs written out; the count of runs, after the last tile.
  template <class Tile>
  __device__ static void
  ring_scan(params& p, void* stage, const ring_storage& storage, int rank, const Tile& tile, const carry& tile_prefix)
  {
    const int lane = rank % warp_threads;
    const int warp = rank / warp_threads;
    if (rank == 0 && tile.first_item() + static_cast<std::size_t>(tuning::tile_items) == p.n)
    {
      *p.runs_total = static_cast<std::uint64_t>(storage.tile_heads) + (tile.has_prefix() ? tile_prefix.heads : 0u);
    }
    const carry running = storage.exclusive.before(rank, tile, tile_prefix, carry_op(p));
    const std::uint32_t heads          = storage.heads[rank];
    const Count heads_before_segment   = __shfl_sync(0xffffffffu, running.heads, 0);
    const vectors staged               = ring::warp_slice_in_stage<vectors>(stage, rank);
    const std::uint32_t* warp_heads    = storage.heads + warp * warp_threads;
    const bool after_segment_heads     = warp + 1 < warps ? (warp_heads[warp_threads] & 1u) != 0 : storage.after_tile_heads;
    fold_in_place(p, staged, heads, running.value);
    write_runs(
      p,
      [&](int j) {
        return row_heads_of_threads(warp_heads, j);
      },
      ring_key_slice(stage, warp, lane),
      staged,
      lane,
      segment,
      heads_before_segment,
      after_segment_heads);
  }

  // Row j's head word of a warp's segment, from its threads' head flags (each thread's `items`
  // elements blocked, so a row holds 32 / items threads' flags).
  __device__ static std::uint32_t row_heads_of_threads(const std::uint32_t* warp_heads, int j)
  {
    constexpr int threads_a_row = warp_threads / items;
    std::uint32_t word          = 0;
#pragma unroll
    for (int t = 0; t < threads_a_row; ++t)
    {
      word |= warp_heads[j * threads_a_row + t] << (t * items);
    }
    return word;
  }
};

} // namespace spscan::detail

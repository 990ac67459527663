// The by-key scans as a tile program of the single-pass driver (classic/driver.h): inclusive and
// exclusive scans of the values within each run of equal keys, Thrust's semantics.
//
// Segments: element i starts one (is a head) when i == 0 or pred(key[i-1], key[i]) is false, the
// predicate called as (previous, current). What travels through the look-back is a segment carry
// (programs/segment_carry.h): for a span of the input, whether a head lies in it and the fold of
// its values since its last head (from init there, for the exclusive scans).
//
// A tile: each data warp loads its segment's keys warp-striped and turns them into head flags (one
// bit per element, in shared memory; the key before the segment is read from the input, or, where
// the output overwrites the keys, from a copy taken before the scan, predecessor_keys), and stages
// its values in shared memory. Each thread folds its elements into a carry, the block scan gives
// every thread the carry of the threads before it and the tile's aggregate, the driver exchanges
// the aggregate for the tile's exclusive prefix, and every value is replaced by its result and
// stored. Keys are read once (and one more per warp), values once, results written once. On the
// ring engine (ring/ring_driver.h) the same tile arrives with its keys by bulk copy: see
// ring_reduce and ring_scan below.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/config.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/common/exact_association.h>
#include <spscan/detail/classic/kernel_shape.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/temporary_storage.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/programs/segment_carry.h>
#include <spscan/detail/programs/segment_heads.h>
#include <spscan/detail/ring/program_support.h>
#include <spscan/detail/ring/ring_launch.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/distance.h>

#include <cub/util_ptx.cuh>

#include <cuda/std/type_traits>

namespace spscan::detail
{

template <class KeysIt, class ValuesIt, class OutputIt, class Accum, class Pred, class Op, bool Exclusive>
struct scan_by_key_params
{
  using key = value_of<KeysIt>;

  KeysIt keys;
  ValuesIt values;
  OutputIt out;
  std::size_t n;
  Pred pred;
  Op op;
  Accum init; // exclusive scans only: every segment's first result
  const key* predecessor_keys; // [tile] = key[tile * tile_items - 1], where the output overwrites the keys; else null
  bool vector_load; // values are a 16-byte aligned raw pointer
  bool vector_store; // likewise for the output
  // The segment heads found before a ring launch whose keys do not fit its stage
  // (programs/segment_heads.h); else null.
  const std::uint32_t* head_words = nullptr;
};

template <class Tuning, class KeysIt, class ValuesIt, class OutputIt, class Accum, class Pred, class Op, bool Exclusive>
struct scan_by_key_program
{
  using carry  = segment_carry<Accum>;
  using tuning = Tuning;
  using params = scan_by_key_params<KeysIt, ValuesIt, OutputIt, Accum, Pred, Op, Exclusive>;
  using key    = typename params::key;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;
  static constexpr int rows    = items; // warp-striped rows of a segment: 32 elements each
  static_assert(items <= warp_threads && warp_threads % items == 0, "a thread's head flags share one word");

  using value_in  = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<ValuesIt>>;
  using value_out = ::cuda::std::remove_pointer_t<OutputIt>;
  // Values move as 16-byte words straight into shared memory where they can (tile_io.h).
  static constexpr bool vector_layout = vector_layout_fits<ValuesIt, OutputIt, items>;

  using elements = element_slice<Accum, items>;
  using vectors  = vector_slice<value_in, items>;
  using block    = block_scan<carry, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;

  static constexpr int key_batch = segment_head_batch<key, rows>;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    std::uint32_t heads[warps][rows]; // bit l of row j: element 32 j + l of the warp's segment starts a segment
    typename block::shared_storage block;
  };

  // A carry whose span starts a segment absorbs what precedes it: the look-back stops at the
  // nearest tile with a segment start (look_back.h), whatever lies before.
  struct absorbing
  {
    static constexpr bool enabled = true;
    SPSCAN_HOST_DEVICE static bool absorbs(const carry& c)
    {
      return c.head;
    }
  };

  // Segments restart at init; nothing comes before the first tile.
  static constexpr bool has_initial_prefix = false;

  __device__ static carry initial_prefix(const params&)
  {
    return carry{};
  }

  __device__ static segmented_op<Accum, Op> carry_op(params& p)
  {
    return {p.op};
  }

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    const auto values = p.values + static_cast<difference_of<ValuesIt>>(at.first);
    const auto out    = p.out + static_cast<difference_of<OutputIt>>(at.first);
    void* slice       = shared.slices[at.warp];

    if constexpr (vector_layout)
    {
      if (at.whole() && p.vector_load && p.vector_store)
      {
        // The values' loads go out first and fly while the keys are read and compared.
        const vectors staged(slice, at.lane);
        staged.start_stage(values);
        stage_heads(p, shared.heads[at.warp], tile.index(), at.first, segment, at.lane);
        staged.finish_stage();
        scan_staged(p, shared, tile, staged, at.tile_valid);
        staged.write(out);
        return;
      }
    }
    const elements staged(slice, at.lane, at.valid());
    stage_heads(p, shared.heads[at.warp], tile.index(), at.first, at.valid(), at.lane);
    staged.stage(values);
    scan_staged(p, shared, tile, staged, at.tile_valid);
    staged.write(out);
  }

  // Scans the staged values in place: thread carries, the block scan, the exchange with the
  // driver, then every value replaced by its result.
  template <class Tile, class Slice>
  __device__ static void scan_staged(params& p, shared_storage& shared, const Tile& tile, const Slice& staged, int tile_valid)
  {
    const int thread = static_cast<int>(threadIdx.x);
    const int lane   = thread % warp_threads;
    const int warp   = thread / warp_threads;

    // This thread's head flags: its `items` elements are bits [lane * items, lane * items + items)
    // of the segment, all in one row's word.
    const int first_bit      = lane * items;
    const std::uint32_t word = shared.heads[warp][first_bit / warp_threads];
    const std::uint32_t heads =
      items == warp_threads ? word : (word >> (first_bit % warp_threads)) & ((1u << (items % warp_threads)) - 1u);

    auto op                 = carry_op(p);
    const int valid_threads = (tile_valid + items - 1) / items;
    const auto before       = block::scan(shared.block, thread_carry_of(p, staged, heads), op, valid_threads, [&] {
      tile.sync_data_warps();
    });
    const carry tile_prefix = tile.exchange(before.total);

    // The carry of everything before this thread's first element, where something is: the first
    // element of the input is a head, so every element that is not has a predecessor.
    carry running{};
    if (tile.has_prefix())
    {
      running = before.has_exclusive ? op(tile_prefix, before.exclusive) : tile_prefix;
    }
    else if (before.has_exclusive)
    {
      running = before.exclusive;
    }
    write_results(p, staged, heads, running);
  }

  // The fold of this thread's elements (bit k of `heads`: its element k starts a segment). A
  // thread with no element takes part in the block scan with a head carry, which the segmented
  // combine passes on without calling op; the block scan leaves it out of every result anyway.
  template <class Slice>
  __device__ static carry thread_carry_of(params& p, const Slice& staged, std::uint32_t heads)
  {
    carry thread_carry{Accum{}, true};
    int k = 0;
    staged.for_each([&](const Accum& x) {
      const bool head = (heads >> k) & 1u;
      if (k == 0 || head)
      {
        thread_carry = carry{head ? start(p, x) : x, head};
      }
      else
      {
        thread_carry.value = p.op(thread_carry.value, x);
      }
      ++k;
    });
    return thread_carry;
  }

  // Replaces this thread's elements by their results, from `running`, the carry of everything
  // before its first element (unused where that element is a head).
  template <class Slice>
  __device__ static void write_results(params& p, const Slice& staged, std::uint32_t heads, carry running)
  {
    int k = 0;
    staged.template transform<output_of<Slice>>([&](const Accum& x) {
      const bool head = (heads >> k) & 1u;
      ++k;
      const Accum folded = head ? start(p, x) : static_cast<Accum>(p.op(running.value, x));
      if constexpr (Exclusive)
      {
        const Accum result = head ? p.init : running.value;
        running.value      = folded;
        return result;
      }
      else
      {
        running.value = folded;
        return folded;
      }
    });
  }

  // The fold of a segment's first value: the value, after init for the exclusive scans.
  __device__ static Accum start(params& p, const Accum& x)
  {
    if constexpr (Exclusive)
    {
      return p.op(p.init, x);
    }
    else
    {
      return x;
    }
  }

  // Stores which elements of the warp's segment start a segment (segment_heads.h), from the key
  // before the segment: read from the input, or, where the output overwrites the keys, from the
  // copy taken before the scan.
  __device__ static void
  stage_heads(params& p, std::uint32_t* heads, std::size_t tile, std::size_t first, int valid, int lane)
  {
    key before_row{};
    if (valid > 0 && first > 0)
    {
      const bool tile_start = first == tile * static_cast<std::size_t>(tuning::tile_items);
      before_row = tile_start && p.predecessor_keys != nullptr
                   ? p.predecessor_keys[tile]
                   : key(p.keys[static_cast<difference_of<KeysIt>>(first - 1)]);
    }
    stage_segment_heads<rows, key_batch>(p.keys, p.pred, before_row, heads, first, valid, lane);
  }

  // On the ring engine (ring/ring_driver.h), where keys, values and output are raw, 16-byte aligned
  // pointers and keys and values both take the vector layout: the producer brings a tile's values
  // and, behind them in the stage, its keys, each by bulk copy as its bytes' image; the reduce
  // squad finds every thread's head flags from the keys in the stage (one word a thread, kept for
  // the scan squad), folds the thread's carry and publishes the tile's; the scan squad writes the
  // results over the values, and they leave as the stage's image. The heads, the carries and their
  // block scan are the classic run's: the same bits.
  //
  // Where keys and values together pass 64 KiB a tile (8-byte values by 4-byte keys: 96 KiB,
  // two stages), a first kernel finds every element's head bit (programs/segment_heads.h), and the
  // stage holds the tile's 1 KiB of head words behind its values instead of its keys: each thread's
  // 32 elements are one word (docs/design.md#by-key-scans).
  using key_vectors = vector_slice<key, items>;

  static constexpr bool keys_take_vector_layout =
    ::cuda::std::is_pointer_v<KeysIt> && ::cuda::std::is_trivially_copyable_v<key> && 16 % sizeof(key) == 0
    && vector_shape<key, items>::fits;
  static constexpr std::size_t ring_stage_limit      = std::size_t{64} * 1024; // three stages fit an SM
  static constexpr std::size_t ring_value_tile_bytes = std::size_t{tuning::tile_items} * sizeof(value_in);
  static constexpr std::size_t ring_tile_key_bytes   = std::size_t{tuning::tile_items} * sizeof(key);
  // Head words for what was measured and tested: 8-byte values by 4-byte keys.
  static constexpr bool ring_reads_head_words = ring_value_tile_bytes + ring_tile_key_bytes > ring_stage_limit
                                             && ring_value_tile_bytes <= ring_stage_limit && items == warp_threads
                                             && sizeof(value_in) == 8 && sizeof(key) == 4;
  static constexpr std::size_t ring_head_tile_bytes = std::size_t{tuning::tile_items} / 8;
  static constexpr std::size_t ring_key_tile_bytes  = ring_reads_head_words ? ring_head_tile_bytes : ring_tile_key_bytes;
  static constexpr std::size_t ring_tile_bytes      = ring_value_tile_bytes + ring_key_tile_bytes;
  static constexpr bool runs_on_ring =
    vector_layout && keys_take_vector_layout && (ring_reads_head_words || ring_tile_bytes <= ring_stage_limit);
  static constexpr bool ring_copies_input   = true;
  static constexpr bool ring_stores_by_copy = true;
  // The prefix warp reads a tile's gap once the tile is reduced (ring_driver.h): a by-key prefix
  // waited mostly for gaps not yet published. Double values (head words, the blocked
  // association) lost by it and keep the early read (docs/design.md#by-key-scans).
  static constexpr bool ring_reads_gap_once_reduced = !ring_reads_head_words;
  static_assert(!runs_on_ring || ring_value_tile_bytes % ring::swizzle_block_bytes == 0,
                "the keys' image starts on a swizzle block");

  struct ring_storage
  {
    std::uint32_t heads[threads]; // bit k: element k of the thread starts a segment
    ring::kept_exclusives<carry, threads> exclusive;
    typename block::shared_storage block;
  };

  // What the producer brings beside the values: the keys, or their head words.
  static const void* ring_keys(const params& p)
  {
    if constexpr (ring_reads_head_words)
    {
      return p.head_words;
    }
    else
    {
      return p.keys;
    }
  }

  // Before a ring launch whose stage takes head words: finds them, into storage that lasts
  // through `launch(params)`; else just `launch(params)` (ring_launch.h, ring_prepares_of).
  static constexpr bool ring_prepares = true;
  template <class Derived, class Launch>
  static bool ring_prepare(cuda_policy<Derived>& policy, const params& p, Launch&& launch)
  {
    if constexpr (ring_reads_head_words)
    {
      call_storage<Derived> words(policy, segment_head_words(p.n) * sizeof(std::uint32_t));
      params with_heads     = p;
      with_heads.head_words = static_cast<const std::uint32_t*>(words.data());
      launch_find_segment_heads<key>(policy, p.keys, p.n, p.pred, static_cast<std::uint32_t*>(words.data()));
      return launch(with_heads);
    }
    else
    {
      return launch(p);
    }
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

  template <class Tensors>
  __device__ static void ring_store(const Tensors& tensors, const void* stage, std::size_t tile)
  {
    ring::store_tile_image<ring_value_tile_bytes>(tensors.out, stage, tile);
  }

  __device__ static void ring_write(params& p, void* stage, int rank, std::size_t tile)
  {
    const std::size_t first = ring::warp_segment_first(tile, tuning::tile_items, rank, segment);
    ring::warp_slice_in_stage<vectors>(stage, rank).write(p.out + static_cast<difference_of<OutputIt>>(first));
  }

  // Reduce squad (threads [0, threads)): the tile's aggregate, in thread 0.
  template <class Tile>
  __device__ static carry ring_reduce(params& p, void* stage, ring_storage& storage, const Tile& tile)
  {
    if constexpr (ring_reads_head_words)
    {
      return reduce_with_heads(p, stage, storage, tile, head_word_in_stage(stage));
    }
    else
    {
      return reduce_with_heads(p, stage, storage, tile, heads_from_keys_in_stage(p, stage, tile));
    }
  }

  // This thread's head word, behind the values: word `rank` of the tile's 1 KiB, placed by the
  // copy engine's 128-byte swizzle (ring/tensor_map.h: 16-byte word i at i ^ ((i / 8) % 8)).
  __device__ static std::uint32_t head_word_in_stage(void* stage)
  {
    const int rank   = static_cast<int>(threadIdx.x);
    const int word16 = rank / 4;
    const int placed = word16 ^ ((word16 / 8) % 8);
    return *reinterpret_cast<const std::uint32_t*>(static_cast<const unsigned char*>(stage) + ring_value_tile_bytes
                                                   + placed * 16 + (rank % 4) * 4);
  }

  // This thread's head flags from the tile's keys in the stage.
  template <class Tile>
  __device__ static std::uint32_t heads_from_keys_in_stage(params& p, void* stage, const Tile& tile)
  {
    const int rank = static_cast<int>(threadIdx.x);
    // The key before the tile lies in another tile: read from device memory, its load issued
    // first so that it flies while the heads in the stage are found.
    const std::size_t tile_first = tile.first_item();
    key before_tile{};
    if (rank == 0 && tile_first > 0)
    {
      before_tile = p.keys[static_cast<difference_of<KeysIt>>(tile_first - 1)];
    }
    return staged_tile_thread_heads<segment>(
      [&](int warp, int lane) {
        return ring_key_slice(stage, warp, lane);
      },
      p.pred,
      before_tile,
      tile_first == 0,
      rank);
  }

  // Keeps the thread's heads for the scan squad, folds its carry and runs the block scan: the
  // tile's aggregate, in thread 0.
  template <class Tile>
  __device__ static carry reduce_with_heads(params& p, void* stage, ring_storage& storage, const Tile& tile, std::uint32_t heads)
  {
    const int rank           = static_cast<int>(threadIdx.x);
    storage.heads[rank]      = heads;
    auto op                  = carry_op(p);
    const carry thread_carry = thread_carry_of(p, ring::warp_slice_in_stage<vectors>(stage, rank), heads);
    const auto before_thread = block::scan(storage.block, thread_carry, op, threads, [&] {
      tile.sync_data_warps();
    });
    return storage.exclusive.keep(rank, before_thread);
  }

  // Scan squad (rank in [0, threads)): the tile's results over its values, in its stage.
  template <class Tile>
  __device__ static void
  ring_scan(params& p, void* stage, const ring_storage& storage, int rank, const Tile& tile, const carry& tile_prefix)
  {
    const carry running = storage.exclusive.before(rank, tile, tile_prefix, carry_op(p));
    write_results(p, ring::warp_slice_in_stage<vectors>(stage, rank), storage.heads[rank], running);
  }

  // What a slice holds after the scan: output values (vector layout) or accumulators.
  template <class Slice>
  using output_of = ::cuda::std::conditional_t<::cuda::std::is_same_v<Slice, vectors>, value_out, Accum>;
};

} // namespace spscan::detail

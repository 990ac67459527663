// The scan as a tile program of the single-pass driver (classic/driver.h): inclusive, inclusive
// with an initial value, and exclusive scans of any iterator into any iterator.
//
// A tile: each data warp stages its segment of the tile in shared memory (common/tile_io.h), each
// thread folds its elements left to right, the block scan (common/block_scan.h) gives every
// thread the fold of the threads before it and the tile's aggregate, the driver exchanges the
// aggregate for the tile's exclusive prefix, and every element is replaced in place by its scan
// result and stored. Each element is read once and written once. The carry is the accumulator.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/config.h>
#include <spscan/detail/common/block_scan.h>
#include <spscan/detail/common/exact_association.h>
#include <spscan/detail/classic/kernel_shape.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/programs/scan_input.h>
#include <spscan/detail/ring/program_support.h>
#include <spscan/detail/ring/ring_launch.h>
#include <spscan/detail/thrust_bridge.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

enum class scan_kind
{
  inclusive, // out[i] = x0 op ... op xi
  inclusive_init, // out[i] = init op x0 op ... op xi
  exclusive, // out[i] = init op x0 op ... op x(i-1)
};

// An initial value that is not known when the scan is launched: an earlier kernel on the same
// stream writes it to device memory, and the scan's first tile reads it there. It may be absent
// (`present == 0`), and then the scan starts from its first element, as one without init does.
// The sharded scans start each shard from the fold of the shards before it this way. Slots are
// 16-byte aligned, so their size is a multiple of 16: NCCL's kernels move them in 16-byte words.
template <class Accum>
struct alignas(16) initial_value_slot
{
  Accum value;
  std::uint32_t present;
};

template <class Accum>
struct device_initial_value
{
  const initial_value_slot<Accum>* slot;
};

// The initial value as the first tile sees it: given, or read from its slot.
template <class Accum>
__device__ Accum initial_value_of(const Accum& init)
{
  return init;
}
template <class Accum>
__device__ Accum initial_value_of(const device_initial_value<Accum>& init)
{
  return init.slot->value;
}
template <class Accum>
__device__ bool initial_value_present(const device_initial_value<Accum>& init)
{
  return init.slot->present != 0;
}

// A scan's parameters, the same for every tile shape. Iterators are unwrapped (raw pointers for
// contiguous ones, so that they share kernels and can use vectorized accesses). `Init` is the
// accumulator itself, or a device_initial_value<Accum>.
template <class InputIt, class OutputIt, class Accum, class Op, scan_kind Kind, class Init = Accum>
struct scan_params
{
  InputIt in;
  OutputIt out;
  std::size_t n;
  Op op;
  Init init; // unused for scan_kind::inclusive
  bool vector_load; // input is a 16-byte aligned raw pointer
  bool vector_store; // likewise for the output
};

template <class Tuning, class InputIt, class OutputIt, class Accum, class Op, scan_kind Kind, class Init = Accum>
struct scan_program
{
  using carry  = Accum;
  using tuning = Tuning;
  using params = scan_params<InputIt, OutputIt, Accum, Op, Kind, Init>;

  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;

  using input_value  = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<InputIt>>;
  using output_value = ::cuda::std::remove_pointer_t<OutputIt>;
  static constexpr bool vector_layout = vector_layout_fits<InputIt, OutputIt, items>; // tile_io.h

  using vectors  = vector_slice<input_value, items>;
  using elements = element_slice<Accum, items>;
  using block    = block_scan<Accum, warps>;

  static constexpr std::size_t slice_bytes =
    vector_layout && vectors::bytes > elements::bytes ? vectors::bytes : elements::bytes;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    typename block::shared_storage block;
  };

  // An exclusive scan, and an inclusive one with init, start from init.
  static constexpr bool has_initial_prefix = Kind != scan_kind::inclusive;

  __device__ static Accum initial_prefix(const params& p)
  {
    return initial_value_of(p.init);
  }

  // Declared only where the init is read from device memory, where it may be absent (driver.h).
  template <class I = Init, class = ::cuda::std::enable_if_t<!::cuda::std::is_same_v<I, Accum>>>
  __device__ static bool initial_prefix_present(const params& p)
  {
    return initial_value_present(p.init);
  }

  __device__ static Op& carry_op(params& p)
  {
    return p.op;
  }

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    const auto in = p.in + static_cast<difference_of<InputIt>>(at.first);
    const auto out = p.out + static_cast<difference_of<OutputIt>>(at.first);
    void* slice    = shared.slices[at.warp];

    if constexpr (vector_layout)
    {
      // Vectorized wherever this warp's whole segment exists, in the last, partial tile too: an
      // input smaller than one tile (one CTA does it all) then moves 16-byte words through all
      // but its last warp instead of single elements (int8 2^14: 0.71x of CUB's speed before).
      if (at.whole() && p.vector_load && p.vector_store)
      {
        const vectors staged(slice, at.lane);
        staged.stage(in);
        if (threadIdx.x == 0)
        {
          tile.trace(trace_staged);
        }
        scan_staged(p, shared, tile, staged, at.tile_valid, Accum{});
        staged.write(out);
        if (threadIdx.x == 0)
        {
          tile.trace(trace_stored);
        }
        return;
      }
      // The last warp's segment too where a lane holds 1- or 2-byte elements (128 or 64 of them,
      // which the element path below folds one by one); 4- and 8-byte elements (32 a lane) gained
      // nothing by it and keep the element path (docs/design.md#tile-shapes).
      if constexpr (sizeof(input_value) < 4)
      {
        if (at.valid() > 0 && p.vector_load && p.vector_store)
        {
          const vectors staged(slice, at.lane);
          staged.stage_partial(in, at.valid(), p.in[static_cast<difference_of<InputIt>>(p.n - 1)]);
          scan_staged(p, shared, tile, staged, at.tile_valid, Accum{});
          staged.write_partial(out, at.valid());
          return;
        }
      }
    }
    // A thread with no element of the input (only in a partial tile) takes part in the block
    // scan with the input's last element, so that the operator sees only input values; the block
    // scan leaves it out of every result.
    Accum last{};
    if (!at.full_tile)
    {
      last = p.in[static_cast<difference_of<InputIt>>(p.n - 1)];
    }
    const elements staged(slice, at.lane, at.valid());
    staged.stage(in);
    scan_staged(p, shared, tile, staged, at.tile_valid, last);
    staged.write(out);
  }

  // Scans the staged tile in place: thread totals, the block scan, the exchange with the driver,
  // then every element replaced by its scan result.
  template <class Tile, class Slice>
  __device__ static void scan_staged(
    params& p, shared_storage& shared, const Tile& tile, const Slice& staged, int tile_valid, const Accum& stand_in)
  {
    const Accum thread_total = thread_total_of(p, staged, stand_in);
    const int valid_threads  = (tile_valid + items - 1) / items;
    const auto before        = block::scan(shared.block, thread_total, p.op, valid_threads, [&] {
      tile.sync_data_warps();
    });
    const Accum tile_prefix = tile.exchange(before.total);
    write_results(p, staged, tile.has_prefix(), tile_prefix, before.has_exclusive, before.exclusive);
  }

  // The fold of this thread's elements, left to right (`stand_in` for a thread with none).
  template <class Slice>
  __device__ static Accum thread_total_of(params& p, const Slice& staged, const Accum& stand_in)
  {
    bool first         = true;
    Accum thread_total = stand_in; // kept only by a thread with no element
    staged.for_each([&](Accum x) {
      thread_total = first ? x : p.op(thread_total, x);
      first        = false;
    });
    return thread_total;
  }

  // Replaces this thread's elements by their results, from the tile's prefix (where has_prefix)
  // and the fold of the threads before this one in the tile (where has_exclusive).
  template <class Slice>
  __device__ static void write_results(
    params& p, const Slice& staged, bool has_prefix, const Accum& tile_prefix, bool has_exclusive, const Accum& exclusive)
  {
    write_results_by(p, has_prefix, tile_prefix, has_exclusive, exclusive, [&](auto&& result_of) {
      staged.template transform<output_of<Slice>>(result_of);
    });
  }

  // The same, where `replace_each(result_of)` replaces this thread's elements, in order, by
  // result_of(element): the staged elements, or elements computed on the way (a generated tile).
  template <class ReplaceEach>
  __device__ static void write_results_by(
    params& p, bool has_prefix, const Accum& tile_prefix, bool has_exclusive, const Accum& exclusive, ReplaceEach&& replace_each)
  {
    // This thread's exclusive prefix, if it has one (only thread 0 of the first tile of a scan
    // without init has none): the tile's prefix, then the threads before this one.
    bool has_running = has_prefix || has_exclusive;
    Accum running{};
    if (has_prefix)
    {
      running = has_exclusive ? p.op(tile_prefix, exclusive) : tile_prefix;
    }
    else if (has_exclusive)
    {
      running = exclusive;
    }

    if constexpr (Kind == scan_kind::exclusive)
    {
      replace_each([&](Accum x) {
        const Accum result = running;
        running            = p.op(running, x);
        return result;
      });
    }
    else
    {
      replace_each([&](Accum x) {
        running     = has_running ? p.op(running, x) : x;
        has_running = true;
        return running;
      });
    }
  }

  // On the ring engine (ring/ring_driver.h). The input reaches the stage as programs/scan_input.h
  // says: the tile's image by bulk copy (raw arrays of the output's type); computed, transformed
  // in place or converted by the reduce squad into a stage of accumulators (then stored as the
  // output's image); or staged element by element (kept on the classic engine, scan_plan).
  // The reduce squad leaves each thread's exclusive fold for the scan squad.
  static constexpr bool runs_on_ring         = true;
  static constexpr ring_input ring_input_kind = ring_input_of<InputIt, OutputIt, Accum, items>;
  static constexpr bool ring_holds_words      = ring_input_kind == ring_input::generated
                                        || ring_input_kind == ring_input::transformed
                                        || ring_input_kind == ring_input::converted;
  static constexpr bool ring_copies_input = ring_input_kind == ring_input::copied
                                         || ring_input_kind == ring_input::transformed
                                         || ring_input_kind == ring_input::converted;
  static constexpr bool ring_stores_by_copy    = vector_layout || ring_holds_words;
  // A computed tile is folded in registers and computed again by the scan squad, which writes
  // each element's result as it computes it: the tile takes shared memory only from its scan to
  // its store (ring/ring_driver.h; docs/design.md#computed-transformed-and-widened-inputs).
  static constexpr bool ring_generates_input = ring_input_kind == ring_input::generated;
  // Tiles the reduce squad computes leave by the copy engine: with no loads beside them its stores
  // measured faster than the threads'; tiles read from memory keep the threads' (the copy engine's
  // measured slower there: docs/design.md#computed-transformed-and-widened-inputs).
  static constexpr bool ring_bulk_stores = ring_input_kind == ring_input::generated;
  // The input's image (transformed in place, or converted into the accumulators before it) and the
  // output's (the accumulators, or the input's image for a raw array).
  using image_value = typename ring_image_value<InputIt, Accum, ring_input_kind>::type;
  static constexpr std::size_t ring_output_tile_bytes =
    std::size_t{tuning::tile_items} * (vector_layout ? sizeof(input_value) : sizeof(Accum));
  static constexpr std::size_t ring_input_tile_bytes =
    vector_layout ? ring_output_tile_bytes : std::size_t{tuning::tile_items} * sizeof(image_value);
  static constexpr std::size_t ring_image_offset = ring_input_kind == ring_input::converted ? ring_output_tile_bytes : 0;
  static constexpr std::size_t ring_tile_bytes =
    ring_output_tile_bytes + (ring_input_kind == ring_input::converted ? ring_input_tile_bytes : 0);

  using accumulator_words = vector_slice<Accum, items>;
  using ring_slice_type   = ::cuda::std::
    conditional_t<vector_layout, vectors, ::cuda::std::conditional_t<ring_holds_words, accumulator_words, elements>>;

  // The array the copy engine reads (host; null where it reads none).
  static const void* ring_source(const params& p)
  {
    if constexpr (ring_input_kind == ring_input::copied || ring_input_kind == ring_input::converted)
    {
      return p.in;
    }
    else if constexpr (ring_input_kind == ring_input::transformed)
    {
      return transformed_array<InputIt>::raw_base(p.in);
    }
    else
    {
      return nullptr;
    }
  }

  // Whether the ring takes this call (host): every input but the staged kind, the arrays it
  // copies and the output 16-byte aligned.
  static bool ring_serves(const params& p)
  {
    if constexpr (ring_input_kind == ring_input::staged)
    {
      return false;
    }
    else
    {
      return p.vector_store && (ring_input_kind == ring_input::generated || allows_vector_access(ring_source(p)));
    }
  }

  struct ring_storage
  {
    ring::kept_exclusives<Accum, threads> exclusive;
    typename block::shared_storage block;
  };

  __device__ static ring_slice_type ring_slice(void* stage, int rank)
  {
    if constexpr (vector_layout || ring_holds_words)
    {
      return ring::warp_slice_in_stage<ring_slice_type>(stage, rank);
    }
    else
    {
      return ring::warp_slice_in_stage<elements>(stage, rank, segment);
    }
  }

  template <class Tensors, class Barrier>
  __device__ static void ring_load(const Tensors& tensors, void* stage, std::size_t tile, Barrier& loaded)
  {
    ring::load_tile_image<ring_input_tile_bytes>(tensors.in, static_cast<unsigned char*>(stage) + ring_image_offset, tile, loaded);
  }

  template <class Tensors>
  __device__ static void ring_store(const Tensors& tensors, const void* stage, std::size_t tile)
  {
    ring::store_tile_image<ring_output_tile_bytes>(tensors.out, stage, tile);
  }

  // A scan squad thread's part of storing the tile from its stage: its warp's segment.
  __device__ static void ring_write(params& p, void* stage, int rank, std::size_t tile)
  {
    const std::size_t first = ring::warp_segment_first(tile, tuning::tile_items, rank, segment);
    const auto out          = p.out + static_cast<difference_of<OutputIt>>(first);
    if constexpr (vector_layout || ring_holds_words)
    {
      ring_slice(stage, rank).write(out);
    }
    else
    {
      ring_slice(stage, rank).write_whole(out);
    }
  }

  // Reduce squad (threads [0, threads)): the tile's aggregate, in thread 0.
  template <class Tile>
  __device__ static Accum ring_reduce(params& p, void* stage, ring_storage& storage, const Tile& tile)
  {
    const int rank = static_cast<int>(threadIdx.x);
    Accum thread_total{};
    if constexpr (ring_generates_input)
    {
      thread_total = generated_thread_total(p, rank, tile.index());
    }
    else
    {
      const auto staged = ring_slice(stage, rank);
      if constexpr (!vector_layout)
      {
        stage_in_ring(p, stage, rank, staged, tile.index());
      }
      thread_total = thread_total_of(p, staged, Accum{});
    }
    const auto before = block::scan(storage.block, thread_total, p.op, threads, [&] {
      tile.sync_data_warps();
    });
    return storage.exclusive.keep(rank, before);
  }

  // A thread's elements of a computed input, as a staged slice offers them to thread_total_of:
  // the lane's `items` elements of its warp's segment, from lane x items on (those
  // vector_slice::generate gives the lane), computed in registers.
  struct computed_elements
  {
    InputIt first;

    template <class F>
    __device__ void for_each(F&& f) const
    {
#pragma unroll
      for (int j = 0; j < items; ++j)
      {
        f(static_cast<Accum>(first[static_cast<difference_of<InputIt>>(j)]));
      }
    }
  };

  // The first element of a computed input's warp segment.
  __device__ static InputIt generated_segment(const params& p, int rank, std::size_t tile)
  {
    return p.in + static_cast<difference_of<InputIt>>(ring::warp_segment_first(tile, tuning::tile_items, rank, segment));
  }

  // The fold of this thread's elements of a computed input, left to right, as if staged.
  __device__ static Accum generated_thread_total(params& p, int rank, std::size_t tile)
  {
    const computed_elements mine{generated_segment(p, rank, tile) + static_cast<difference_of<InputIt>>((rank % warp_threads) * items)};
    return thread_total_of(p, mine, Accum{});
  }

  // Bringing an input that is not the output's image into the stage (the reduce squad's part):
  // this thread's elements (a transformed or converted input: each lane's own words, so no warp
  // barrier before it folds them), or its warp's segment element by element.
  __device__ static void
  stage_in_ring(params& p, void* stage, int rank, const ring_slice_type& staged, std::size_t tile)
  {
    if constexpr (ring_input_kind == ring_input::transformed)
    {
      using reference = typename transformed_array<InputIt>::reference;
      auto f          = p.in.functor(); // not const: a transform_iterator's functor may not be
      ring::warp_slice_in_stage<vector_slice<image_value, items>>(stage, rank)
        .template transform<Accum>([&](const image_value& x) -> Accum {
          return static_cast<reference>(f(x));
        });
    }
    else if constexpr (ring_input_kind == ring_input::converted)
    {
      staged.widen(ring::warp_slice_in_stage<vector_slice<image_value, items>>(
                     static_cast<unsigned char*>(stage) + ring_image_offset, rank),
                   [](const image_value& x) -> Accum {
                     return x;
                   });
    }
    else
    {
      staged.stage_whole(p.in + static_cast<difference_of<InputIt>>(ring::warp_segment_first(tile, tuning::tile_items, rank, segment)));
    }
  }

  // Scan squad (rank in [0, threads)): the tile's results over it, in its stage (a computed tile:
  // each element computed again and its result written into the result buffer the ring gives as
  // `stage`, in one pass).
  template <class Tile>
  __device__ static void
  ring_scan(params& p, void* stage, const ring_storage& storage, int rank, const Tile& tile, const Accum& tile_prefix)
  {
    const bool has_exclusive = rank > 0;
    Accum exclusive{};
    if (has_exclusive)
    {
      exclusive = storage.exclusive.of(rank);
    }
    if constexpr (ring_generates_input)
    {
      const InputIt in = generated_segment(p, rank, tile.index());
      write_results_by(p, tile.has_prefix(), tile_prefix, has_exclusive, exclusive, [&](auto&& result_of) {
        ring_slice(stage, rank).template generate<output_value>([&](int i) {
          return result_of(static_cast<Accum>(in[static_cast<difference_of<InputIt>>(i)]));
        });
      });
    }
    else
    {
      write_results(p, ring_slice(stage, rank), tile.has_prefix(), tile_prefix, has_exclusive, exclusive);
    }
  }

  // What a slice holds after the scan: output values (16-byte words, written out as they are) or
  // accumulators (element slices, converted on their way out).
  template <class Slice>
  using output_of = ::cuda::std::conditional_t<::cuda::std::is_same_v<Slice, elements>, Accum, output_value>;
};

} // namespace spscan::detail

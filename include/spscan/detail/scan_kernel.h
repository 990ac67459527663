// The single-pass scan kernel: one CTA scans one tile. A CTA has 8 data warps and one look-back
// warp.
//
//  1. take a tile id from the global counter (ids are handed out in the order CTAs start, so
//     every lower id belongs to a CTA that is already running: waiting on it cannot deadlock);
//  2. the look-back warp looks back (look_back.h) for the tile's exclusive prefix; it needs only
//     the predecessors' states, so it runs while the data warps
//  3. stage the tile in shared memory (tile_io.h), fold each thread's elements, scan the thread
//     totals across the CTA (warp scans, then the warp totals folded left to right) and publish
//     the tile's aggregate (A);
//  4. the two halves meet at a barrier; the inclusive prefix (P) is published;
//  5. every element is replaced in place by its scan result and the tile is stored.
// Each element is read once and written once. A scan of a single tile skips 1, 2 and the
// publications, and needs no temporary storage.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/look_back.h>
#include <spscan/detail/scan_tuning.h>
#include <spscan/detail/tile_io.h>
#include <spscan/detail/tile_state.h>

#include <cub/warp/warp_scan.cuh>
#include <cub/util_ptx.cuh>

#include <cuda/std/type_traits>

// A probe of where a CTA's time goes (bench/scan_timeline.cu) defines
// SPSCAN_DETAIL_TRACE(tile, stage) before including spscan, to time each tile's stages; by
// default it is nothing.
#ifndef SPSCAN_DETAIL_TRACE
#  define SPSCAN_DETAIL_TRACE(tile, stage) ((void) 0)
#endif

namespace spscan::detail
{

// The stages a trace records, in the order a tile passes them.
enum trace_stage
{
  trace_started, // thread 0 has the tile id
  trace_staged, // warp 0's part of the tile is in shared memory (vector path only)
  trace_aggregate, // the tile's aggregate is known (published, in a scan of several tiles)
  trace_prefix_found, // the look-back warp has the tile's exclusive prefix
  trace_prefix_published, // the tile's inclusive prefix is published
  trace_stored, // warp 0 has issued its stores (vector path only)
};

enum class scan_kind
{
  inclusive, // out[i] = x0 op ... op xi
  inclusive_init, // out[i] = init op x0 op ... op xi
  exclusive, // out[i] = init op x0 op ... op x(i-1)
};

template <class InputIt, class OutputIt, class Accum, class Op, scan_kind Kind, class Tuning>
struct scan_params
{
  using accum  = Accum;
  using tuning = Tuning;
  using state  = tile_state_for<Accum>;
  static constexpr scan_kind kind = Kind;

  InputIt in;
  OutputIt out;
  std::size_t n;
  std::size_t tiles;
  Op op;
  Accum init; // unused for scan_kind::inclusive
  state tiles_state;
  std::uint32_t* tile_counter; // null when tiles == 1
  bool vector_load; // input is a 16-byte aligned raw pointer and the type allows it
  bool vector_store; // likewise for the output
};

// The warp as seen by the look-back: lane l of window w reads tile first - 32 w + l.
template <class Accum, int Depth>
struct warp_lanes
{
  static constexpr int depth                          = Depth;
  static constexpr std::uint32_t status_out_of_range = 0xffu;

  tile_snapshot<Accum> mine[Depth];
  unsigned pause_ns = 0;

  template <class State>
  __device__ void load(const State& state, long long first)
  {
    const long long lane_tile = first + static_cast<long long>(threadIdx.x % warp_threads);
#pragma unroll
    for (int w = 0; w < Depth; ++w)
    {
      const long long tile = lane_tile - static_cast<long long>(warp_threads) * w;
      if (tile >= 0)
      {
        mine[w] = state.load(static_cast<std::size_t>(tile));
      }
      else
      {
        mine[w].status = status_out_of_range;
      }
    }
  }
  __device__ std::uint32_t mask(int w, tile_status status) const
  {
    return __ballot_sync(0xffffffffu, snapshot(w).status == status);
  }
  __device__ Accum value(int w, int lane) const
  {
    return cub::ShuffleIndex<warp_threads>(snapshot(w).value, lane, 0xffffffffu);
  }
  // Suffix combination by shuffles (lane l ends with lanes [l, 32) combined), then lane from's.
  template <class Op>
  __device__ Accum fold_from(int w, int from_lane, Op& op) const
  {
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    Accum v        = snapshot(w).value;
#pragma unroll
    for (int offset = 1; offset < warp_threads; offset *= 2)
    {
      const Accum later = cub::ShuffleDown<warp_threads>(v, offset, warp_threads - 1, 0xffffffffu);
      if (lane + offset < warp_threads)
      {
        v = op(v, later);
      }
    }
    return cub::ShuffleIndex<warp_threads>(v, from_lane, 0xffffffffu);
  }
  // Exponential back-off keeps polling from flooding L2 while predecessors finish.
  __device__ void pause()
  {
    __nanosleep(pause_ns);
    pause_ns = pause_ns < 1024 ? pause_ns * 2 + 32 : pause_ns;
  }

private:
  // mine[w] selected by value, so that the array stays in registers when w is not a constant.
  __device__ tile_snapshot<Accum> snapshot(int w) const
  {
    tile_snapshot<Accum> s = mine[0];
#pragma unroll
    for (int i = 1; i < Depth; ++i)
    {
      if (i == w)
      {
        s = mine[i];
      }
    }
    return s;
  }
};

template <class Params>
struct scan_tile
{
  using accum                  = typename Params::accum;
  using tuning                 = typename Params::tuning;
  static constexpr int threads = tuning::threads;
  static constexpr int items   = tuning::items;
  static constexpr int warps   = threads / warp_threads;
  static constexpr int segment = warp_threads * items;

  using input_value  = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<decltype(Params::in)>>;
  using output_value = ::cuda::std::remove_pointer_t<decltype(Params::out)>;
  // The vector layout (tile_io.h) needs raw pointers in and out, elements of one size that divides
  // 16 bytes, and whole 16-byte words per lane.
  static constexpr bool vector_layout =
    ::cuda::std::is_pointer_v<decltype(Params::in)> && ::cuda::std::is_pointer_v<decltype(Params::out)>
    && !::cuda::std::is_const_v<output_value> && sizeof(input_value) == size_or_zero<output_value>
    && 16 % sizeof(input_value) == 0 && vector_shape<input_value, items>::fits;

  using vectors  = vector_slice<input_value, items>;
  using elements = element_slice<accum, items>;

  static constexpr std::size_t largest(std::size_t a, std::size_t b)
  {
    return a > b ? a : b;
  }
  static constexpr std::size_t slice_bytes = largest(elements::bytes, vector_layout ? vectors::bytes : 0);

  using warp_scan = cub::WarpScan<accum>;

  struct shared_storage
  {
    alignas(16) unsigned char slices[warps][slice_bytes];
    typename warp_scan::TempStorage warp_scans[warps];
    alignas(accum) unsigned char warp_totals[warps][sizeof(accum)];
    alignas(accum) unsigned char tile_prefix[sizeof(accum)];
    std::uint32_t tile_id;
  };

  // The CTA: `warps` data warps, which stage, scan and store the tile, and one look-back warp
  // (the last), which finds the tile's exclusive prefix meanwhile.
  static constexpr int cta_threads = threads + warp_threads;

  __device__ static void run(Params& p, shared_storage& shared)
  {
    const int thread = static_cast<int>(threadIdx.x);
    const int lane   = thread % warp_threads;
    const int warp   = thread / warp_threads;

    std::size_t tile = 0;
    if (p.tiles > 1)
    {
      if (thread == 0)
      {
        shared.tile_id = device_atomic_ref<std::uint32_t>(*p.tile_counter).fetch_add(1, ::cuda::std::memory_order_relaxed);
      }
      __syncthreads();
      tile = shared.tile_id;
    }
    if (thread == 0)
    {
      SPSCAN_DETAIL_TRACE(tile, trace_started);
    }

    if (warp == warps)
    {
      // The look-back needs only the predecessors' states, not this tile's data: it runs while
      // the data warps load and reduce the tile.
      if (tile > 0)
      {
        warp_lanes<accum, tuning::look_back_depth> lanes;
        const accum prefix =
          exclusive_prefix_of<accum, tree_fold_of<tuning>::value>(p.tiles_state, static_cast<long long>(tile), p.op, lanes);
        if (lane == 0)
        {
          *reinterpret_cast<accum*>(shared.tile_prefix) = prefix;
          SPSCAN_DETAIL_TRACE(tile, trace_prefix_found);
        }
      }
      meet_look_back_warp(); // the prefix is ready (the data warps meet it in scan_staged)
      return;
    }

    const std::size_t tile_begin = tile * tuning::tile_items;
    const std::size_t remaining  = p.n - tile_begin;
    const bool full_tile         = remaining >= static_cast<std::size_t>(tuning::tile_items);
    const int tile_valid         = full_tile ? tuning::tile_items : static_cast<int>(remaining);
    const auto segment_begin     = static_cast<std::size_t>(warp * segment);
    const auto in  = p.in + static_cast<difference_of<decltype(Params::in)>>(tile_begin + segment_begin);
    const auto out = p.out + static_cast<difference_of<decltype(Params::out)>>(tile_begin + segment_begin);
    void* slice    = shared.slices[warp];

    if constexpr (vector_layout)
    {
      // Vectorized wherever this warp's whole segment exists, in the last, partial tile too: an
      // input smaller than one tile (one CTA does it all) then moves 16-byte words through all
      // but its last warp instead of single elements (int8 2^14: 0.71x of CUB's speed before).
      const bool whole_segment = tile_valid >= static_cast<int>(segment_begin) + segment;
      if (whole_segment && p.vector_load && p.vector_store)
      {
        const vectors staged(slice, lane);
        staged.stage(in);
        if (thread == 0)
        {
          SPSCAN_DETAIL_TRACE(tile, trace_staged);
        }
        scan_staged(p, shared, tile, staged, accum{});
        staged.write(out);
        if (thread == 0)
        {
          SPSCAN_DETAIL_TRACE(tile, trace_stored);
        }
        return;
      }
    }
    // A lane with no element of the input (only in a partial tile) contributes the input's last
    // element instead (scan_staged).
    accum last{};
    if (!full_tile)
    {
      last = p.in[static_cast<difference_of<decltype(Params::in)>>(p.n - 1)];
    }
    const elements staged(slice, lane, tile_valid - static_cast<int>(segment_begin));
    staged.stage(in);
    scan_staged(p, shared, tile, staged, last);
    staged.write(out);
  }

  // Named barriers (ids 1 and 2; __syncthreads is 0), since the two kinds of warps reach them at
  // different places in the code. Barrier 1: the data warps only (the look-back warp may still be
  // looking back). Barrier 2: all warps, once the prefix and the tile's total are known. Lanes
  // come to them from `if (lane == 0)` publications: each warp is reconverged first (__syncwarp),
  // and the barrier is the non-aligned form, since compute-sanitizer's synccheck reported
  // divergent arrivals at `bar.sync`.
  __device__ static void sync_data_warps()
  {
    __syncwarp();
    asm volatile("barrier.sync 1, %0;" ::"r"(threads) : "memory");
  }
  __device__ static void meet_look_back_warp()
  {
    __syncwarp();
    asm volatile("barrier.sync 2, %0;" ::"r"(cta_threads) : "memory");
  }

  // Scans the staged tile in place (data warps): thread totals, a scan across the CTA whose
  // association is fixed (warp scans, then the warp totals folded left to right), A published,
  // the look-back warp's prefix awaited and P published, then every element replaced by its
  // scan result.
  template <class Slice>
  __device__ static void
  scan_staged(Params& p, shared_storage& shared, std::size_t tile, const Slice& staged, const accum& stand_in)
  {
    const int thread = static_cast<int>(threadIdx.x);
    const int lane   = thread % warp_threads;
    const int warp   = thread / warp_threads;

    bool first         = true;
    accum thread_total = stand_in; // kept only by a lane with no element
    staged.for_each([&](accum x) {
      thread_total = first ? x : p.op(thread_total, x);
      first        = false;
    });

    accum warp_prefix; // exclusive, undefined for lane 0
    accum warp_total;
    warp_scan(shared.warp_scans[warp]).ExclusiveScan(thread_total, warp_prefix, p.op, warp_total);
    auto* warp_totals = reinterpret_cast<accum*>(shared.warp_totals);
    if (lane == 0)
    {
      warp_totals[warp] = warp_total;
    }
    sync_data_warps();
    // The fold of the totals of the warps before this one (meaningful for warp > 0).
    accum before = warp_totals[0];
#pragma unroll
    for (int w = 1; w < warps; ++w)
    {
      if (w < warp)
      {
        before = p.op(before, warp_totals[w]);
      }
    }
    accum tile_total = warp_totals[0]; // thread 0 completes it
    if (thread == 0)
    {
#pragma unroll
      for (int w = 1; w < warps; ++w)
      {
        tile_total = p.op(tile_total, warp_totals[w]);
      }
    }

    if (thread == 0)
    {
      SPSCAN_DETAIL_TRACE(tile, trace_aggregate);
    }
    if (thread == 0 && p.tiles > 1)
    {
      if (tile == 0)
      {
        p.tiles_state.publish(0, status_prefix, Params::kind == scan_kind::inclusive ? tile_total : p.op(p.init, tile_total));
      }
      else
      {
        p.tiles_state.publish(tile, status_aggregate, tile_total);
      }
    }
    meet_look_back_warp(); // the tile prefix is ready
    const accum& tile_prefix = *reinterpret_cast<const accum*>(shared.tile_prefix);
    if (thread == 0 && tile > 0)
    {
      p.tiles_state.publish(tile, status_prefix, p.op(tile_prefix, tile_total));
    }
    if (thread == 0)
    {
      SPSCAN_DETAIL_TRACE(tile, trace_prefix_published);
    }

    // This thread's exclusive prefix, if it has one (only thread 0 of tile 0 of a scan without
    // init has none): fold(tile prefix or init, warps before, lanes before).
    bool has_running = tile > 0 || Params::kind != scan_kind::inclusive;
    accum running{};
    if (has_running)
    {
      running = tile > 0 ? tile_prefix : p.init;
      if (warp > 0)
      {
        running = p.op(running, before);
      }
    }
    else if (warp > 0)
    {
      running     = before;
      has_running = true;
    }
    if (lane > 0)
    {
      running     = has_running ? p.op(running, warp_prefix) : warp_prefix;
      has_running = true;
    }

    if constexpr (Params::kind == scan_kind::exclusive)
    {
      staged.template transform<output_of<Slice>>([&](accum x) {
        const accum result = running;
        running            = p.op(running, x);
        return result;
      });
    }
    else
    {
      staged.template transform<output_of<Slice>>([&](accum x) {
        running     = has_running ? p.op(running, x) : x;
        has_running = true;
        return running;
      });
    }
  }

  // What a slice holds after the scan: output values (vector layout) or accumulators.
  template <class Slice>
  using output_of = ::cuda::std::conditional_t<::cuda::std::is_same_v<Slice, vectors>, output_value, accum>;
};

// Shared memory is dynamic (scan_tile<Params>::shared_storage, sized at launch): a tile of more
// than 48 KiB needs it.
template <class Params>
SPSCAN_KERNEL void __launch_bounds__(scan_tile<Params>::cta_threads, min_ctas_per_sm_of<typename Params::tuning>::value) scan_kernel(Params p)
{
  using tile = scan_tile<Params>;
  extern __shared__ uint4 scan_shared_memory[];
  tile::run(p, *reinterpret_cast<typename tile::shared_storage*>(scan_shared_memory));
}

} // namespace spscan::detail

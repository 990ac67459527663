// The single-pass driver: the kernel every single-pass algorithm runs. One CTA takes one tile; the
// driver owns what all algorithms share, the tile program (programs/) owns the data.
//
//  1. The CTA takes a tile id from a global counter. Ids are handed out in the order CTAs start,
//     so every lower id belongs to a CTA that is already running: waiting on it cannot deadlock.
//  2. Its last warp, the look-back warp, finds the tile's exclusive prefix from its predecessors'
//     published states (look_back.h). It needs no data of this tile, so it works while
//  3. the data warps run the tile program: the program loads its tile and reduces it to the
//     tile's aggregate, then calls `tile.exchange(aggregate)` (every data thread, once), which
//     publishes the aggregate (A), meets the look-back warp, publishes the inclusive prefix (P)
//     and returns the exclusive prefix; with it, the program finishes the tile (scans it, writes
//     it out). Under the blocked association (blocked_association.h) a tile publishes P only at
//     the end of its block of 32, and the first tile publishes its A as every other does.
// A single tile skips 1, 2 and the publications, and needs no temporary storage (launch.h).
//  4. Where the storage is kept for the next call (temporary_storage.h), nothing clears it: the
//     tile states carry the call's epoch (tile_state.h), so the next call reads this one's as
//     nothing, and the tile counter, 64 bits, goes on counting (a call's ids start at
//     first_tile_id); the kernel ends with its last tile, nothing to count or clear (a count and
//     clear at the end cost a call 1-2 us: docs/design.md#tile-storage-kept-epoch-tagged). Other
//     storage is cleared before the call (a caller's allocator, a graph), and the counter starts
//     at 0. The ring engine (ring/ring_driver.h) counts on its storage the same way.
//
//
// What a tile program provides, to this driver and the ring's: common/program_contract.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_look_back.h>
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/polling_backoff.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tile_position.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/common/tuning.h>

#include <cub/util_ptx.cuh>

#include <cuda/std/type_traits>

namespace spscan::detail
{

template <class Program>
struct driver_shared
{
  using carry = typename Program::carry;

  typename Program::shared_storage program;
  alignas(carry) unsigned char prefix[sizeof(carry)];
  std::uint32_t tile_id;
};

// The data warps and the look-back warp.
template <class Program>
constexpr int cta_threads_of = data_threads_of<Program> + warp_threads;

// The warp as seen by the look-back: lane l of window w reads tile first - 32 w + l where that
// lies in [0, end).
template <class Accum, int Depth>
struct warp_lanes
{
  static constexpr int depth                          = Depth;
  static constexpr std::uint32_t status_out_of_range = 0xffu;

  tile_snapshot<Accum> mine[Depth];
  polling_backoff<1024> backoff;

  template <class State>
  __device__ void load(const State& state, long long first, long long end)
  {
    const long long lane_tile = first + static_cast<long long>(threadIdx.x % warp_threads);
#pragma unroll
    for (int w = 0; w < Depth; ++w)
    {
      const long long tile = lane_tile - static_cast<long long>(warp_threads) * w;
      if (tile >= 0 && tile < end)
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
  template <class Pred>
  __device__ std::uint32_t published_where(int w, Pred pred) const
  {
    const tile_snapshot<Accum> s = snapshot(w);
    return __ballot_sync(0xffffffffu, (s.status == status_aggregate || s.status == status_prefix) && pred(s.value));
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
  // The blocked association's tree of lanes [0, run) (common/blocked_association.h).
  template <class Op>
  __device__ Accum tree(int w, int run, Op& op) const
  {
    return warp_leading_tree(snapshot(w).value, run, op);
  }
  // Predecessors still being reduced or scanned: whole tiles' work, hence the longer cap.
  __device__ void pause()
  {
    backoff.pause();
  }

private:
  __device__ tile_snapshot<Accum> snapshot(int w) const
  {
    return snapshot_at(mine, w);
  }
};

// Named barrier 2 (1 is the data warps': program_contract.h, sync_data_warps): all warps, once
// the prefix and the tile's aggregate are known; reconverged first and non-aligned, as barrier 1.
template <class Program>
__device__ void meet_look_back_warp()
{
  __syncwarp();
  asm volatile("barrier.sync 2, %0;" ::"r"(cta_threads_of<Program>) : "memory");
}

// What the driver offers a tile program's data threads (common/tile_position.h): the exchange
// through the look-back, and the tuning's trace hook.
template <class Program>
class tile_context : public tile_position<Program>
{
public:
  using carry = typename Program::carry;

  __device__ tile_context(driver_params<Program>& p, driver_shared<Program>& shared, std::size_t tile)
      : tile_position<Program>(p.program, tile)
      , p_(p)
      , shared_(shared)
  {}

  // Called by every data thread once, with the tile's aggregate in thread 0: publishes it, waits
  // for the look-back warp's exclusive prefix, publishes the inclusive prefix, and returns the
  // exclusive prefix (defined where has_prefix()).
  __device__ carry exchange(const carry& aggregate) const
  {
    constexpr bool blocked = blocked_association_of<typename Program::tuning>::value;
    const bool leader      = threadIdx.x == 0;
    auto op           = Program::carry_op(p_.program);
    if (leader)
    {
      trace(trace_aggregate);
    }
    if (leader && p_.tiles > 1)
    {
      if (tile_ == 0 && !blocked)
      {
        p_.tiles_state.publish(0, status_prefix, first_inclusive_prefix(aggregate, op));
      }
      else
      {
        p_.tiles_state.publish(tile_, status_aggregate, aggregate);
      }
    }
    meet_look_back_warp<Program>(); // the tile's prefix is ready
    carry prefix;
    if (tile_ > 0)
    {
      prefix = *reinterpret_cast<const carry*>(shared_.prefix);
    }
    else if (initial_prefix_exists<Program>(p_.program))
    {
      prefix = Program::initial_prefix(p_.program);
    }
    if (leader && tile_ > 0 && (!blocked || tile_ % association_block == association_block - 1))
    {
      p_.tiles_state.publish(tile_, status_prefix, op(prefix, aggregate));
    }
    if (leader)
    {
      trace(trace_prefix_taken);
    }
    return prefix;
  }

  // Records a stage of this tile where the tuning names a trace hook (tuning.h); nothing else.
  __device__ void trace(trace_stage stage) const
  {
    trace_hook_of<typename Program::tuning>::record(tile_, stage);
  }

private:
  template <class Op>
  __device__ carry first_inclusive_prefix(const carry& aggregate, Op& op) const
  {
    if (initial_prefix_exists<Program>(p_.program))
    {
      return op(Program::initial_prefix(p_.program), aggregate);
    }
    return aggregate;
  }

  using tile_position<Program>::tile_;
  driver_params<Program>& p_;
  driver_shared<Program>& shared_;
};

template <class Program>
__device__ void run_tile(driver_params<Program>& p, driver_shared<Program>& shared)
{
  using carry      = typename Program::carry;
  using tuning     = typename Program::tuning;
  const int thread = static_cast<int>(threadIdx.x);
  const int warp   = thread / warp_threads;

  std::size_t tile = 0;
  if (p.tiles > 1)
  {
    if (thread == 0)
    {
      const std::uint64_t id = take_tile_id(p);
      shared.tile_id         = id < p.tiles ? static_cast<std::uint32_t>(id) : ~std::uint32_t{0};
    }
    __syncthreads();
    tile = shared.tile_id;
    if (tile >= p.tiles)
    {
      __trap(); // the counter is not where the host counted it (launch.h): stop, write nothing
    }
  }
  if (thread == 0)
  {
    trace_hook_of<tuning>::record(tile, trace_started);
  }

  if (warp == data_threads_of<Program> / warp_threads)
  {
    if (tile > 0)
    {
      warp_lanes<carry, tuning::look_back_depth> lanes;
      auto op = Program::carry_op(p.program);
      carry prefix;
      if constexpr (blocked_association_of<tuning>::value)
      {
        prefix = blocked_exclusive_prefix_of(
          p.tiles_state, static_cast<long long>(tile), initial_prefix_of<Program>(p.program), op, lanes);
      }
      else
      {
        prefix = exclusive_prefix_of<carry, tree_fold_of<tuning>::value, absorbing_of<Program>>(
          p.tiles_state, static_cast<long long>(tile), op, lanes);
      }
      if (thread % warp_threads == 0)
      {
        *reinterpret_cast<carry*>(shared.prefix) = prefix;
        trace_hook_of<tuning>::record(tile, trace_prefix_found);
      }
    }
    meet_look_back_warp<Program>(); // the prefix is ready (the data warps meet it in exchange)
    return;
  }
  const tile_context<Program> context(p, shared, tile);
  Program::run(p.program, shared.program, context);
}

// Shared memory is dynamic (driver_shared<Program>, sized at launch): a tile of more than 48 KiB
// needs it.
template <class Program>
SPSCAN_KERNEL void __launch_bounds__(cta_threads_of<Program>, launch_bound_ctas<typename Program::tuning, cta_threads_of<Program>>)
  single_pass_kernel(driver_params<Program> p)
{
  extern __shared__ uint4 single_pass_shared_memory[];
  auto& shared = *reinterpret_cast<driver_shared<Program>*>(single_pass_shared_memory);
  run_tile(p, shared);
}

} // namespace spscan::detail

// The ring engine: the second driver of the single-pass tile programs, for sm_90 and newer.
//
// One persistent CTA per SM works through tiles in a ring of shared-memory stages. Its warps
// split into four roles, each running down the same sequence of tiles:
//  - the producer warp takes the CTA's next tile id from the global counter (ids are handed out in
//    the order they are asked for, so every lower id belongs to a running CTA; for a reused stage
//    in a call without the prefix service, as soon as the stage's previous tile has its prefix)
//    and brings the tile into the next free stage with bulk tensor copies;
//  - the reduce squad (the tile program's data threads, threads [0, T)) reduces each loaded tile,
//    publishes its aggregate at once, and leaves each thread's part of the tile's scan in the
//    stage (Program::ring_reduce);
//  - the prefix warp folds the aggregates of the tiles between the CTA's previous tile and this
//    one onto its running prefix (running_prefix.h); a program may name two prefix warps, which
//    take turns, each reading its tile's gap while the other finds the tile before; or, in a call
//    with a prefix service (prefix_service.h), it reads the P of the tile before its own, which
//    the prefix warp of the CTA that took the call's first id publishes (that CTA takes no tiles);
//  - the scan squad (threads [T, 2T)) combines the two, writes the tile's results over it in
//    shared memory (Program::ring_scan), and stores them with a bulk copy; then the stage is free.
// So loads run ahead of prefixes by up to the ring's depth, and a tile's prefix waits only for
// aggregates, which wait only for loads: no prefix travels from tile to tile between CTAs.
// Tile storage kept between calls is counted on as the classic engine counts on it (epochs and a
// counter that goes on, classic/driver.h, 4.). Other storage (a caller's allocator) is cleared by
// the CTAs themselves, which meet at a grid barrier before any role touches it (a cooperative
// launch), or, where that launch is not possible, by a kernel before, beside which the CTAs
// start: they set up their barriers, then wait for the clear (common/dependent_launch.h).
//
// A last, partial tile is not in the copy engine's view (tensor_map.h): the reduce squad runs it
// the classic way (Program::run), with the prefix from the prefix warp. Results are the same bits
// as the classic engine's for the same tile shape: the same fold inside a tile, the same left fold
// of aggregates across tiles.
//
// An input that the copy engine cannot read (an iterator that computes its elements) is staged by
// the reduce squad itself, from the program's input, before it reduces the tile: the producer
// then only hands out tile ids. A program may instead fold such a tile without staging it and
// have the scan squad compute it again (`ring_generates_input`): then a stage holds no tile, only
// its bookkeeping, and the scan squad keeps a few result buffers of its own, each holding a tile
// from its scan until the copy engine has read its results (ring_layout). An input the copy
// engine can read may still need a pass of the reduce squad before the fold (an input transformed
// or widened in the stage, programs/scan_input.h). Results that do not leave as the stage's image
// (a selection's, whose places depend on the prefix) are stored by the scan squad's threads.
//
// A probe may trace each tile through the ring (a tuning's trace hook, common/tuning.h; the library
// names none, and the hook then compiles to nothing): trace_started when the producer has its id,
// trace_staged when the reduce squad finds it loaded, trace_aggregate when its aggregate is
// published, trace_prefix_found when the prefix warp has its prefix, trace_prefix_taken when
// the scan squad starts on it, trace_stored when the scan squad's first thread is done with it.
//
// What a program provides to run here: ring_contract.h; the shared memory: ring_layout.h; what
// every role works with: ring_cta.h; the prefix warps: prefix_warps.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/dependent_launch.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/ring/async_copy.h>
#include <spscan/detail/ring/pending_stores.h>
#include <spscan/detail/ring/prefix_warps.h>
#include <spscan/detail/ring/ring_contract.h>
#include <spscan/detail/ring/ring_layout.h>
#include <spscan/detail/ring/ring_tile_context.h>
#include <spscan/detail/ring/tensor_map.h>
#include <spscan/detail/ring/tile_image.h>

#include <cstddef>
#include <cstdint>

namespace spscan::detail::ring
{

// One tile program's run over the ring; see the top of this file. `Served`: the call has a prefix
// service (prefix_service.h). It is the kernel's template argument, not a flag read at run time,
// so each kernel holds one prefix loop: with both, the servable programs' kernels went to the
// register cap with a spill, and the unserved calls of int8 lost about 2 %
// (docs/design.md#the-prefix-service).
template <class Program, bool Served>
class ring_driver : public ring_prefix_warps<Program>
{
  static_assert(!Served || ring_layout<Program>::servable, "a served kernel of a program that cannot be served");
  using base = ring_prefix_warps<Program>;

public:
  using base::base;
  using typename base::carry;
  using typename base::control;
  using typename base::layout;
  using typename base::trace;

  __device__ void init_barriers()
  {
    if (threadIdx.x == 0)
    {
      for (int s = 0; s < stages_; ++s)
      {
        controls_[s].id_known.init(1);
        controls_[s].loaded.init(1);
        // Every thread of a squad arrives for itself: an arrival orders its own thread's accesses
        // before the waiter's, not those of threads it met at a barrier (compute-sanitizer's
        // racecheck holds to that).
        controls_[s].reduced.init(layout::squad_threads);
        controls_[s].prefixed.init(1);
        controls_[s].released.init(layout::squad_threads);
      }
      publish_barrier_init();
    }
    __syncthreads();
  }

  __device__ void run_role()
  {
    const int warp = static_cast<int>(threadIdx.x) / warp_threads;
    if (warp < layout::squad_warps)
    {
      reduce_squad();
    }
    else if (warp < 2 * layout::squad_warps)
    {
      scan_squad();
    }
    else if (warp == layout::producer_warp)
    {
      producer();
    }
    else if constexpr (Served)
    {
      served_prefix_warp();
    }
    else
    {
      prefix_warp(warp - layout::prefix_warp);
    }
  }

private:
  using base::controls_;
  using base::p_;
  using base::prefix_warp;
  using base::served_prefix_warp;
  using base::stage;
  using base::stages_;
  using base::stores_by_threads_;
  using base::tensors_;

  // The scan squad's threads meet at named barrier 3 (the reduce squad's is 1, classic/driver.h).
  __device__ static void sync_scan_squad()
  {
    __syncwarp();
    asm volatile("barrier.sync 3, %0;" ::"r"(layout::squad_threads) : "memory");
  }

  // The producer hands out the CTA's tiles; past the last it marks the end in as many stages as
  // there are prefix warps, since each prefix warp looks only at its own turns.
  __device__ void producer()
  {
    const bool leader = threadIdx.x % warp_threads == 0;
    ring_cursor at{stages_};
    std::size_t previous = no_more_tiles;
    int ends_marked      = 0;
    for (;;)
    {
      control& c       = controls_[at.stage];
      std::size_t tile = no_more_tiles;
      if (leader)
      {
        // A reused stage: in an unserved call the next id is taken once the stage's previous
        // tile has its prefix, so that the counter's round trip runs beside that tile's scan and
        // store rather than after the stage's release (docs/design.md#the-prefix-warp). A tile's
        // progress still waits only for lower ids: that tile's id is lower than the one taken
        // here. A served call takes its ids once the stage is free, as its service folds the
        // aggregates in id order (there the early id was level to -1 %).
        const bool refill          = at.uses >= static_cast<std::size_t>(stages_);
        const bool id_before_store = !Served && ends_marked == 0;
        if (refill)
        {
          if (id_before_store)
          {
            c.prefixed.wait(at.previous_parity());
          }
          else
          {
            c.released.wait(at.previous_parity()); // the stage's previous tile is stored
          }
        }
        if (ends_marked == 0)
        {
          // Each CTA takes one id past the last tile, its end: the host counts tiles + CTAs. In a
          // served call the first id is the service's, which takes no end: the same count.
          const std::uint64_t id = take_tile_id(p_);
          if (id >= p_.tiles + gridDim.x)
          {
            __trap(); // the counter is not where the host counted it (launch.h): stop, write nothing
          }
          const std::uint64_t tile_id = Served ? id - 1 : id;
          tile = Served && id == 0 ? serves_prefixes : (tile_id < p_.tiles ? static_cast<std::size_t>(tile_id) : no_more_tiles);
        }
        if (refill && id_before_store)
        {
          c.released.wait(at.previous_parity()); // the stage's previous tile is stored
        }
        c.tile          = tile;
        c.previous_tile = previous;
        previous        = tile;
        if (!takes_no_tile(tile))
        {
          trace::record(tile, trace_started);
        }
        c.id_known.arrive();
        bool copying = false;
        if constexpr (Program::ring_copies_input)
        {
          copying = !takes_no_tile(tile) && whole_tile(p_, tile);
        }
        if (copying)
        {
          c.loaded.arrive_expecting(static_cast<std::uint32_t>(ring_loaded_bytes<Program>));
          Program::ring_load(tensors_, stage(at.stage), tile, c.loaded);
        }
        else
        {
          c.loaded.arrive(); // the stage is free for the tile (and its input, if the copy brings none)
        }
      }
      tile = __shfl_sync(0xffffffffu, tile, 0);
      if (tile == serves_prefixes || (tile == no_more_tiles && ++ends_marked == layout::prefix_warps))
      {
        return;
      }
      at.advance();
    }
  }

  __device__ void reduce_squad()
  {
    ring_cursor at{stages_};
    for (;;)
    {
      control& c = controls_[at.stage];
      c.loaded.wait(at.parity);
      const std::size_t tile = c.tile;
      if (takes_no_tile(tile) || !whole_tile(p_, tile))
      {
        // The scan squad learns from `reduced` that the CTA is done, or that this (last) tile is
        // the reduce squad's.
        c.reduced.arrive();
        if (takes_no_tile(tile))
        {
          return;
        }
        const ring_tile_context<Program> context(p_, c, tile, at.parity);
        unsigned char* storage = stage(layout::generated ? layout::result_buffers : at.stage);
        Program::run(p_.program, *reinterpret_cast<typename Program::shared_storage*>(storage), context);
      }
      else
      {
        if (threadIdx.x == 0)
        {
          trace::record(tile, trace_staged);
        }
        const ring_tile_context<Program> context(p_, c, tile, at.parity);
        const carry aggregate = Program::ring_reduce(p_.program, layout::generated ? nullptr : stage(at.stage), c.program, context);
        if (threadIdx.x == 0)
        {
          p_.tiles_state.publish(tile, status_aggregate, aggregate);
          trace::record(tile, trace_aggregate);
        }
        c.reduced.arrive();
      }
      at.advance();
    }
  }

  __device__ void scan_squad()
  {
    const int rank = static_cast<int>(threadIdx.x) - layout::squad_threads;
    ring_cursor at{stages_};
    pending_stores<control> stores{stages_};
    std::size_t results = 0; // tiles whose results went through the result buffers (generated input)
    for (;;)
    {
      control& c = controls_[at.stage];
      c.reduced.wait(at.parity);
      const std::size_t tile = c.tile;
      if (takes_no_tile(tile))
      {
        break;
      }
      if (whole_tile(p_, tile))
      {
        const ring_tile_context<Program> context(p_, c, tile, at.parity);
        carry prefix{};
        if (context.has_prefix())
        {
          prefix = context.prefix();
        }
        else
        {
          c.prefixed.wait(at.parity);
        }
        if (rank == 0)
        {
          trace::record(tile, trace_prefix_taken);
        }
        if constexpr (layout::generated)
        {
          scan_generated_tile(c, tile, rank, context, prefix, results);
          at.advance();
          continue;
        }
        Program::ring_scan(p_.program, stage(at.stage), c.program, rank, context, prefix);
        if (!Program::ring_stores_by_copy || stores_by_threads_)
        {
          // Each warp stores its segment from the stage; the stage is free once all have read it.
          Program::ring_write(p_.program, stage(at.stage), rank, tile);
          if constexpr (Program::ring_copies_input)
          {
            // The copy engine refills the stage after this thread's writes to it (the results,
            // in place): they are ordered before its accesses only by this fence.
            fence_shared_for_bulk_copies();
          }
          if (rank == 0)
          {
            trace::record(tile, trace_stored);
          }
          c.released.arrive();
          at.advance();
          continue;
        }
        if constexpr (Program::ring_stores_by_copy)
        {
          fence_shared_for_bulk_copies();
          sync_scan_squad();
          if (rank == 0)
          {
            // Its arrival waits until the copy engine has read the stage (pending_stores).
            Program::ring_store(tensors_, stage(at.stage), tile);
            stores.issued(at.stage, controls_);
          }
          else
          {
            c.released.arrive();
          }
        }
      }
      at.advance();
    }
    if (Program::ring_stores_by_copy && rank == 0 && !stores_by_threads_)
    {
      stores.drain(); // shared memory must outlive the stores' reads
    }
  }

  // A generated tile's scan: into the next result buffer, once the copy engine has read what the
  // buffer held (its store, result_buffers tiles back, was this thread's if it was rank 0's); then
  // stored, and the stage is free at once: it holds no results.
  __device__ void scan_generated_tile(control& c,
                                      std::size_t tile,
                                      int rank,
                                      const ring_tile_context<Program>& context,
                                      const carry& prefix,
                                      std::size_t& results)
  {
    if (results >= static_cast<std::size_t>(layout::result_buffers))
    {
      if (rank == 0 && !stores_by_threads_)
      {
        wait_bulk_groups_read<layout::result_buffers - 1>();
      }
      sync_scan_squad(); // every thread is done with the buffer (the threads' stores read it)
    }
    unsigned char* buffer = stage(static_cast<int>(results % layout::result_buffers));
    ++results;
    Program::ring_scan(p_.program, buffer, c.program, rank, context, prefix);
    if (stores_by_threads_)
    {
      Program::ring_write(p_.program, buffer, rank, tile);
    }
    else
    {
      fence_shared_for_bulk_copies();
      sync_scan_squad();
      if (rank == 0)
      {
        Program::ring_store(tensors_, buffer, tile);
        bulk_commit_group();
      }
    }
    if (rank == 0)
    {
      trace::record(tile, trace_stored);
    }
    c.released.arrive();
  }
};

// One CTA per SM (ring_launch.h); `Served` as for ring_driver.
template <class Program, bool Served>
SPSCAN_KERNEL void __launch_bounds__(ring_layout<Program>::cta_threads, 1)
  ring_kernel(driver_params<Program> p, ring_options options, const __grid_constant__ tile_tensors tensors)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, ({
                 extern __shared__ uint4 ring_shared_memory[];
                 const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(ring_shared_memory);
                 auto* shared             = reinterpret_cast<unsigned char*>((raw + 1023) / 1024 * 1024);
                 ring_driver<Program, Served> driver(p, tensors, options, shared);
                 driver.init_barriers();
                 take_cleared_storage(p.tile_counter, p.clear_first_bytes); // touched from here on
                 driver.run_role();
               }))
}

} // namespace spscan::detail::ring

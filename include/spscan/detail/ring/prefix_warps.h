// The ring's prefix warps (ring_driver.h): each finds the prefixes of its share of the CTA's
// tiles from the aggregates the other CTAs publish (running_prefix.h, blocked_prefix.h), or, in a
// call with a prefix service, reads them from the service (prefix_service.h).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/polling_backoff.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/ring/blocked_prefix.h>
#include <spscan/detail/ring/prefix_service.h>
#include <spscan/detail/ring/ring_contract.h>
#include <spscan/detail/ring/ring_cta.h>
#include <spscan/detail/ring/running_prefix.h>

#include <cstddef>

namespace spscan::detail::ring
{

template <class Program>
class ring_prefix_warps : public ring_cta<Program>
{
  using base = ring_cta<Program>;

public:
  using base::base;
  using typename base::carry;
  using typename base::control;
  using typename base::layout;
  using typename base::trace;

protected:
  using base::controls_;
  using base::lane_values_;
  using base::p_;
  using base::stages_;

  // Prefix warp `turn` of layout::prefix_warps finds the prefixes of the CTA's tiles number turn,
  // turn + prefix_warps, ... . A single prefix warp carries its running prefix from tile to tile,
  // folding each gap's aggregates as they come. Warps taking turns read their tile's gap first,
  // then take the prefix of the tile before, which the warp before writes into that tile's stage
  // (it stays there until this warp's own prefix is written: the stage is refilled only after its
  // scan, which needs prefixes in order). (A single warp waiting for its whole gap before folding
  // measured slower for the scans, docs/design.md#the-prefix-warp.) Under the blocked association
  // the single warp carries the B of the blocks it has passed instead (blocked_prefix.h).
  __device__ void prefix_warp(int turn)
  {
    auto op                          = Program::carry_op(p_.program);
    const maybe_value<carry> initial = initial_prefix_of<Program>(p_.program);
    running_prefix<carry> prefix{initial.value, initial.present, 0}; // where the first tile starts
    forward_lanes<carry, layout::prefix_windows> lanes(layout::lane_values_bytes > 0 ? lane_values_ + turn : nullptr);
    ring_cursor at{stages_};
    at.advance(turn);
    for (;;)
    {
      control& c = controls_[at.stage];
      c.id_known.wait(at.parity);
      // One lane reads the ids (its arrival on `prefixed` below orders that read before the
      // stage's reuse) and hands them to the others.
      std::size_t tile = 0, previous = 0;
      if (threadIdx.x % warp_threads == 0)
      {
        tile     = c.tile;
        previous = c.previous_tile;
      }
      tile     = __shfl_sync(0xffffffffu, tile, 0);
      previous = __shfl_sync(0xffffffffu, previous, 0);
      if (tile == no_more_tiles)
      {
        return;
      }
      if constexpr (ring_reads_gap_once_reduced_of<Program>::value)
      {
        // The other CTAs' tiles in the gap are loaded and reduced about when this one is: a read
        // issued before then mostly finds them unpublished and costs another round trip. (The
        // reduce squad arrives on `reduced` before anything it does waits for this warp, the last
        // partial tile's run included: no wait cycle.)
        c.reduced.wait(at.parity);
      }
      if constexpr (layout::blocked)
      {
        const running_prefix<carry> found = blocked_prefix_of(p_.tiles_state, prefix, tile, op, lanes);
        if (threadIdx.x % warp_threads == 0 && found.present)
        {
          *reinterpret_cast<carry*>(c.prefix) = found.value;
        }
      }
      else if (layout::prefix_warps == 1 || previous == no_more_tiles)
      {
        fold_aggregates_until(p_.tiles_state, prefix, tile, op, lanes);
      }
      else
      {
        const ring_cursor before   = at.one_back();
        const auto previous_prefix = [&] {
          return prefix_left_in(before, previous, initial.present);
        };
        fold_gap_onto(p_.tiles_state, previous, tile, previous_prefix, prefix, op, lanes);
      }
      if (threadIdx.x % warp_threads == 0)
      {
        if (!layout::blocked && prefix.present)
        {
          *reinterpret_cast<carry*>(c.prefix) = prefix.value;
        }
        trace::record(tile, trace_prefix_found);
        c.prefixed.arrive();
      }
      at.advance(layout::prefix_warps);
    }
  }

  // The prefix of the CTA's tile before this warp's (`previous`), which the prefix warp before
  // this one leaves in that tile's stage (`before`), as a running prefix through `previous`.
  __device__ running_prefix<carry> prefix_left_in(const ring_cursor& before, std::size_t previous, bool initial_present) const
  {
    control& b = controls_[before.stage];
    b.prefixed.wait(before.parity);
    running_prefix<carry> known{};
    known.present = previous > 0 || initial_present;
    if (known.present)
    {
      known.value = *reinterpret_cast<const carry*>(b.prefix);
    }
    known.next = previous;
    return known;
  }

  // The prefix warp of a served call (prefix_service.h): in the CTA that took the call's first
  // id, the service; in every other, each tile's prefix is the service's P of the tile before, read
  // by one lane once the tile is reduced (the P comes microseconds after the aggregates before
  // it, and polls of a word about to be stored cost the service:
  // docs/design.md#the-prefix-service).
  __device__ void served_prefix_warp()
  {
    const bool initial_given = initial_prefix_exists<Program>(p_.program);
    ring_cursor at{stages_};
    for (;;)
    {
      control& c = controls_[at.stage];
      c.id_known.wait(at.parity);
      // One lane reads the id and hands it to the others: the shuffle keeps the warp's lanes
      // within a tile of each other. (With every lane reading it and waiting on its own while
      // the first polled, the kernel hung from about 12 tiles a CTA: by our reading the others fell
      // a ring's turn behind and waited for a phase that had passed.)
      std::size_t tile = 0;
      if (threadIdx.x % warp_threads == 0)
      {
        tile = c.tile;
      }
      tile = __shfl_sync(0xffffffffu, tile, 0);
      if (tile == no_more_tiles)
      {
        return;
      }
      if (tile == serves_prefixes)
      {
        auto op                          = Program::carry_op(p_.program);
        const maybe_value<carry> initial = initial_prefix_of<Program>(p_.program);
        service_lanes<carry, service_read_windows> lanes;
        if constexpr (layout::blocked)
        {
          serve_blocked_prefixes(p_.tiles_state, p_.tiles, initial, op, lanes);
        }
        else
        {
          serve_prefixes(p_.tiles_state, p_.tiles, running_prefix<carry>{initial.value, initial.present, 0}, op, lanes);
        }
        return;
      }
      if (threadIdx.x % warp_threads == 0)
      {
        c.reduced.wait(at.parity);
        if (tile > 0)
        {
          polling_backoff<256> backoff;
          *reinterpret_cast<carry*>(c.prefix) = served_prefix(p_.tiles_state, p_.tiles, tile, [&] {
            backoff.pause();
          });
        }
        else if (initial_given)
        {
          *reinterpret_cast<carry*>(c.prefix) = Program::initial_prefix(p_.program);
        }
        trace::record(tile, trace_prefix_found);
        c.prefixed.arrive();
      }
      at.advance();
    }
  }
};

} // namespace spscan::detail::ring

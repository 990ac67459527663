// The ring engine's prefix warp: a CTA's running prefix, carried from one of its tiles to the
// next by folding the aggregates of the tiles in between.
//
// Tiles publish only their aggregates (A), as soon as they are reduced, and never wait for a
// prefix to do so; no inclusive prefix travels from CTA to CTA. A CTA whose previous tile was p
// and whose next is t folds the aggregates of p, p + 1, ..., t - 1 onto the prefix it already
// holds, strictly left to right:
//   prefix(t) = op(...op(op(prefix(p), a(p)), a(p + 1))..., a(t - 1)),
// which is, bit for bit, the left fold of every aggregate before t that the classic look-back
// computes (common/look_back.h): the association depends on the input size and tile shape only.
//
// The reads of those states are independent of each other (their addresses are known), so one
// round of reads covers the whole gap; the fold waits only where an aggregate is not yet there.
//
// The fold is written against a `Lanes` type, as the classic look-back is: forward_lanes below on
// the device, host threads in the protocol model test (tests/ring_model_test.cu). Lanes provide
//   static constexpr int windows;
//   void load(const State&, std::size_t first, std::size_t end)   lane l of window w reads tile
//                                      first + 32 w + l where that is below end, else nothing
//   std::uint32_t published(int w)     lanes of window w that read a published state
//   void share(int w)                  makes window w's values readable by value(), once a read
//   Accum value(int w, int lane)       that lane's value as of window w's last share(), in every
//                                      lane (a window not shared since the read gives stale values)
//   Accum reduce(int w, int run, op)   the fold of lanes [0, run) of window w, in every lane, in the
//                                      tree of common/blocked_association.h (for exactly associative
//                                      operators, common/exact_association.h, it equals the left fold;
//                                      the blocked association is defined by it); any value where run
//                                      is 0 (the caller ignores it)
//   void pause()                       back off before reading again
//   std::uint32_t which(int w, pred)   lanes of window w whose value satisfies pred (used only for
//                                      operators that restart, below)
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/common/exact_association.h>
#include <spscan/detail/common/optional_members.h>
#include <spscan/detail/common/polling_backoff.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/common/tuning.h>

#include <cub/util_ptx.cuh>

#include <nv/target>

namespace spscan::detail::ring
{

// Windows of 32 tile states a prefix warp reads at once. A CTA's next tile is about as many tiles
// past its previous one as there are CTAs (132 on an H100 or H200), so the windows decide how many
// round trips a gap takes; but the fold is unrolled over them only up to ~5: with 8 the compiler
// leaves the loop rolled, the window index becomes a run-time value and a carry costs ~29
// instructions instead of ~9 (docs/design.md#the-prefix-warp).
//  - Warps taking turns (fold_gap_onto) gather the whole gap before folding: 8 windows, one
//    round (the selection's; with 5 its 50 % case lost 6 %).
//  - A single warp adding windows in a tree (exactly associative operators): 5, one round for
//    132 CTAs.
//  - A single warp folding in order carries of up to 4 bytes (floats, user operators): 5 too, one
//    round a gap instead of two; larger carries (doubles, by-key carries): 4.
//  - A single warp under the blocked association (blocked_prefix.h): 5, trees side by side too.
template <class Accum, class Op, int PrefixWarps>
inline constexpr int prefix_read_windows =
  PrefixWarps > 1 ? 8 : (exactly_associative<Accum, Op> || sizeof(Accum) <= 4 ? 5 : 4);

inline constexpr int blocked_prefix_windows = 5;

// The prefix a warp carries: the fold of every aggregate before `next`, if there is one (a scan
// without init has none before its first tile).
template <class Accum>
struct running_prefix
{
  Accum value;
  bool present;
  std::size_t next; // the first tile whose aggregate is not folded in yet
};

// How many of the lowest bits of `mask` are set before the first clear one.
SPSCAN_HOST_DEVICE inline int leading_run(std::uint32_t mask)
{
  int run = 0;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (run = mask == 0xffffffffu ? 32 : __ffs(~mask) - 1;),
                    (while (run < 32 && ((mask >> run) & 1u) != 0) { ++run; }))
  return run;
}

// Folds lanes [from, run) of window w, shared, onto the prefix (present), one after the other, by
// step(prefix, lane's value). The window's values reach every lane a chunk at a time (independent
// loads), then the chain of steps runs through the chunk in order: the whole window for carries
// of up to 4 bytes, half of it for larger ones (32 of 8-byte carries spilled ~1 KiB, and chunks
// of 8 measured slower).
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Step>
SPSCAN_HOST_DEVICE void fold_lanes(Lanes& lanes, running_prefix<Accum>& prefix, int w, int from, int run, Step&& step)
{
  constexpr int lanes_per_window = warp_threads;
  constexpr int chunk            = sizeof(Accum) > 4 ? 16 : 32;
#pragma unroll
  for (int c = 0; c < lanes_per_window; c += chunk)
  {
    if (c + chunk > from && c < run)
    {
      Accum values[chunk];
#pragma unroll
      for (int j = 0; j < chunk; ++j)
      {
        values[j] = lanes.value(w, c + j);
      }
#pragma unroll
      for (int j = 0; j < chunk; ++j)
      {
        if (c + j >= from && c + j < run)
        {
          prefix.value = step(prefix.value, values[j]);
        }
      }
    }
  }
}

// Folds lanes [0, run) of window w, shared, onto the prefix, one after the other, by step (the
// first lane starts the prefix where there is none yet).
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Step>
SPSCAN_HOST_DEVICE void fold_shared_run_in_order(Lanes& lanes, running_prefix<Accum>& prefix, int w, int run, Step&& step)
{
  const int from = !prefix.present && run > 0 ? 1 : 0;
  if (from == 1)
  {
    prefix.value   = lanes.value(w, 0);
    prefix.present = true;
  }
  fold_lanes(lanes, prefix, w, from, run, step);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Step>
SPSCAN_HOST_DEVICE void fold_run_in_order(Lanes& lanes, running_prefix<Accum>& prefix, int w, int run, Step&& step)
{
  if (run > 0)
  {
    lanes.share(w);
    fold_shared_run_in_order(lanes, prefix, w, run, step);
  }
}

// An operator that restarts (a by-key scan's segmented combine) states `restarts_at_heads` and
// provides restarts(c) (c begins anew: whatever precedes it is dropped) and extend(c, later)
// (c's fold continued by a later carry that does not restart). Its left fold over a run is then
// the carry of the run's last restart extended by the carries after it, in order, or, where none
// restarts, the prefix extended by all: the same bits as combining one carry after the other, with
// the restarts found by one vote instead of a test in every step of the chain
// (docs/design.md#the-prefix-warp).
template <class Op>
using restarts_at_heads_member = ::cuda::std::bool_constant<Op::restarts_at_heads>;
template <class Op>
using restarts_at_heads = member_value_or<Op, restarts_at_heads_member, false>;

// A restarting operator's extend and restarts as callables, for the lane folds: host and device
// code, as the functions here are (the protocol model's operator is host code).
template <class Op>
struct extend_with
{
  Op& op;
  _CCCL_EXEC_CHECK_DISABLE
  template <class Accum>
  SPSCAN_HOST_DEVICE Accum operator()(const Accum& earlier, const Accum& later) const
  {
    return op.extend(earlier, later);
  }
};
template <class Op>
struct restarts_with
{
  Op& op;
  _CCCL_EXEC_CHECK_DISABLE
  template <class Accum>
  SPSCAN_HOST_DEVICE bool operator()(const Accum& c) const
  {
    return op.restarts(c);
  }
};

_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Op>
SPSCAN_HOST_DEVICE void fold_run_restarting(Lanes& lanes, running_prefix<Accum>& prefix, int w, int run, Op& op)
{
  if (run == 0)
  {
    return;
  }
  const extend_with<Op> extend{op};
  const std::uint32_t in_run   = run == warp_threads ? 0xffffffffu : (1u << run) - 1u;
  const std::uint32_t restarts = lanes.which(w, restarts_with<Op>{op}) & in_run;
  lanes.share(w);
  if (restarts == 0)
  {
    fold_shared_run_in_order(lanes, prefix, w, run, extend);
    return;
  }
  int last = warp_threads - 1;
  while (((restarts >> last) & 1u) == 0)
  {
    --last;
  }
  prefix.value   = lanes.value(w, last);
  prefix.present = true;
  fold_lanes(lanes, prefix, w, last + 1, run, extend);
}

// Folds lanes [0, run) of window w, all published, onto the prefix: from the run's last restart
// for an operator that restarts, in a tree where the operator's grouping cannot change the result,
// else one after the other.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Op>
SPSCAN_HOST_DEVICE void fold_run(Lanes& lanes, running_prefix<Accum>& prefix, int w, int run, Op& op)
{
  if constexpr (restarts_at_heads<::cuda::std::remove_cv_t<Op>>::value)
  {
    fold_run_restarting(lanes, prefix, w, run, op);
  }
  else if constexpr (exactly_associative<Accum, Op>)
  {
    if (run > 0)
    {
      const Accum total = lanes.reduce(w, run, op);
      prefix.value      = prefix.present ? op(prefix.value, total) : total;
      prefix.present    = true;
    }
  }
  else
  {
    fold_run_in_order(lanes, prefix, w, run, op);
  }
}

// Folds the leading run of published aggregates in the lanes' windows onto the prefix (the first
// aggregate not yet published ends it), and returns whether the run had any. A single prefix warp
// (up to 5 windows) under an exactly associative operator that does not restart first finds every
// window's run, then adds the windows in trees side by side, so that their shuffles overlap, and
// folds the window totals left to right: the same trees as window by window, in a quarter less of
// the prefix warp's time a tile. Warps taking turns (8 windows, the selection) keep window by
// window: side by side cost their 1 % case 3-7 % (docs/design.md#the-prefix-warp).
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class Accum, class Op>
SPSCAN_HOST_DEVICE bool fold_published_run(Lanes& lanes, running_prefix<Accum>& prefix, Op& op)
{
  constexpr int lanes_per_window = warp_threads;
  bool progressed = false;
  bool stopped    = false;
  if constexpr (exactly_associative<Accum, Op> && !restarts_at_heads<::cuda::std::remove_cv_t<Op>>::value && Lanes::windows <= 5)
  {
    int runs[Lanes::windows];
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      runs[w] = stopped ? 0 : leading_run(lanes.published(w));
      stopped = stopped || runs[w] < lanes_per_window;
    }
    Accum totals[Lanes::windows];
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      totals[w] = lanes.reduce(w, runs[w], op); // ignored below where the run is empty
    }
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      if (runs[w] > 0)
      {
        prefix.value   = prefix.present ? op(prefix.value, totals[w]) : totals[w];
        prefix.present = true;
        prefix.next += static_cast<std::size_t>(runs[w]);
        progressed = true;
      }
    }
  }
  else
  {
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      if (!stopped)
      {
        const int run = leading_run(lanes.published(w));
        fold_run(lanes, prefix, w, run, op);
        prefix.next += static_cast<std::size_t>(run);
        progressed = progressed || run > 0;
        stopped    = run < lanes_per_window;
      }
    }
  }
  return progressed;
}

// Folds the aggregates of tiles [prefix.next, to) onto the prefix, waiting for those that are not
// published yet. Called by a whole warp with the same arguments; every lane ends with the result.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class State, class Accum, class Op>
SPSCAN_HOST_DEVICE void fold_aggregates_until(const State& states, running_prefix<Accum>& prefix, std::size_t to, Op& op, Lanes& lanes)
{
  while (prefix.next < to)
  {
    lanes.load(states, prefix.next, to);
    if (!fold_published_run(lanes, prefix, op))
    {
      lanes.pause(); // the aggregate at the front is being reduced right now
    }
  }
}

// A CTA's prefix warps may take turns (ring_driver.h): the one that finds tile t's prefix, t
// being the CTA's tile after `previous`, first gathers the aggregates of [previous, t) as far as
// its lanes reach, waiting until each is published, and only then takes prefix(previous), which
// the warp before it may still be finding (`previous_prefix()`, which may wait, returns it with
// next == previous). So the gap's reads overlap the previous tile's; the fold is the same left
// fold (or, for exact operators, the same tree per window) as fold_aggregates_until's.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class State, class Accum, class Op, class PreviousPrefix>
SPSCAN_HOST_DEVICE void fold_gap_onto(const State& states,
                                      std::size_t previous,
                                      std::size_t tile,
                                      PreviousPrefix&& previous_prefix,
                                      running_prefix<Accum>& prefix,
                                      Op& op,
                                      Lanes& lanes)
{
  constexpr std::size_t reach = static_cast<std::size_t>(Lanes::windows) * warp_threads;
  const std::size_t gathered  = tile - previous < reach ? tile : previous + reach;
  const auto published_in     = [&](int w) {
    const std::size_t first = previous + static_cast<std::size_t>(w) * warp_threads;
    return first >= gathered ? 0 : (gathered - first >= warp_threads ? warp_threads : static_cast<int>(gathered - first));
  };
  for (;;)
  {
    lanes.load(states, previous, gathered);
    bool complete = true;
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      complete = complete && leading_run(lanes.published(w)) >= published_in(w);
    }
    if (complete)
    {
      break;
    }
    lanes.pause();
  }
  prefix = previous_prefix();
#pragma unroll
  for (int w = 0; w < Lanes::windows; ++w)
  {
    fold_run(lanes, prefix, w, published_in(w), op);
  }
  prefix.next = gathered;
  fold_aggregates_until(states, prefix, tile, op, lanes); // the rest of a gap wider than the lanes
}

// Whether a prefix warp's fold reads single lanes' values (in order, or from a restart on): the
// trees of exactly associative operators read none.
template <class Accum, class Op>
inline constexpr bool prefix_folds_lanes = restarts_at_heads<Op>::value || !exactly_associative<Accum, Op>;

// Where a prefix warp shares its read's values (forward_lanes::share): Windows x 32 of them, in
// shared memory.
template <class Accum, int Windows>
struct shared_lane_values
{
  alignas(Accum) unsigned char bytes[sizeof(Accum) * Windows * warp_threads];
};

#if defined(__CUDACC__)
// The device's lanes: one warp, `Windows` windows of 32 states per read, kept in registers. A
// window folded lane by lane is first shared: each lane stores its value into `shared`, and the
// chain of steps takes each value by one broadcast load instead of a shuffle
// (docs/design.md#the-prefix-warp).
// The trees keep their shuffles: with their values in shared memory too, the 1- and 2-byte
// scans lost 3-4 %.
template <class Accum, int Windows>
class forward_lanes
{
public:
  static constexpr int windows = Windows;

  // `shared` may be null where the fold never shares (!prefix_folds_lanes).
  __device__ explicit forward_lanes(shared_lane_values<Accum, Windows>* shared)
      : shared_(shared == nullptr ? nullptr : reinterpret_cast<Accum*>(shared->bytes))
  {}

  template <class State>
  __device__ void load(const State& states, std::size_t first, std::size_t end)
  {
    if (progressed_)
    {
      backoff_.restart();
    }
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    if (shared_ != nullptr)
    {
      __syncwarp(); // every lane is done with the values the last read shared
    }
#pragma unroll
    for (int w = 0; w < Windows; ++w)
    {
      const std::size_t tile = first + static_cast<std::size_t>(w * warp_threads + lane);
      window_[w].status      = status_empty;
      if (tile < end)
      {
        window_[w] = states.load(tile);
      }
    }
    progressed_ = true;
  }
  __device__ std::uint32_t published(int w) const
  {
    return __ballot_sync(0xffffffffu, snapshot(w).status != status_empty);
  }
  template <class Pred>
  __device__ std::uint32_t which(int w, Pred&& pred) const
  {
    return __ballot_sync(0xffffffffu, pred(snapshot(w).value));
  }
  __device__ void share(int w)
  {
    shared_[w * warp_threads + static_cast<int>(threadIdx.x % warp_threads)] = snapshot(w).value;
    __syncwarp();
  }
  __device__ Accum value(int w, int lane) const
  {
    return shared_[w * warp_threads + lane];
  }
  template <class Op>
  __device__ Accum reduce(int w, int run, Op& op) const
  {
    return warp_leading_tree(snapshot(w).value, run, op);
  }
  __device__ Accum shuffled(int w, int lane) const
  {
    return cub::ShuffleIndex<warp_threads>(snapshot(w).value, lane, 0xffffffffu);
  }
  // Short pauses: the aggregates waited for are those of tiles being reduced at this moment.
  __device__ void pause()
  {
    progressed_ = false;
    backoff_.pause();
  }

protected:
  __device__ tile_snapshot<Accum> snapshot(int w) const
  {
    return snapshot_at(window_, w);
  }

private:
  Accum* shared_;
  tile_snapshot<Accum> window_[Windows];
  polling_backoff<256> backoff_;
  bool progressed_ = true;
};
#endif

} // namespace spscan::detail::ring

// The look-back: find the exclusive prefix of a tile from its predecessors' published states.
//
// A window is 32 consecutive predecessors, one per lane of a warp. One read takes `depth`
// windows at once (each lane reads `depth` tiles, 32 apart, with independent loads, so the read
// costs one memory round trip however deep it is): the nearest window [first, first + 32), then
// [first - 32, first), and so on.
//
// Backward: the windows of a read are examined nearest first. A window whose nearest P has only
// A after it ends the walk; an X after the nearest P (or anywhere in a window without P) means a
// predecessor has not published yet, and the read is repeated after a pause; a window of A only
// sends the examination to the next window, and past the last window of the read, to the next
// read further back (tile 0 always publishes P, so the walk ends).
//
// Forward: from that P, the prefix is the LEFT FOLD op(op(op(P_j, A_j+1), A_j+2), ...) through
// tile - 1: first over the windows of the last read, which are still in registers, then over the
// reads nearer the tile, read again on the way (every tile there has published by then), each
// time restarting from the highest P found. Every tile publishes P_i = op(prefix_i, A_i), so by
// induction P_i == fold(A_0, ..., A_i) in exactly that association whichever P a tile happened
// to use: restarting from a fresher P changes no bit. Hence the combine order, and every bit of a
// floating-point result, is fixed by the input size and the tile size, never by timing (nor by
// the depth). Operands are always combined (earlier, later): ops need only be associative.
//
// Why deep reads: a P travels at most one read's span of tiles per memory round trip, so the
// span bounds the throughput of the whole scan (docs/design.md#tile-shapes, look_back_depth).
//
// `Lanes` abstracts the warp so that the same code runs on the device (lanes are the 32 threads
// of a warp) and on the host (one thread plays all 32 lanes). It provides:
//   static constexpr int depth                        windows per read
//   void load(const State&, long long first_tile,     lane l of window w reads tile
//             long long end)                          first_tile - 32 w + l (if in [0, end))
//   std::uint32_t mask(int w, tile_status) const      lanes of window w whose snapshot has that status
//   std::uint32_t published_where(int w, Pred) const  lanes of window w holding an A or a P whose
//                                                     value satisfies Pred (absorbing carries only)
//   Accum value(int w, int lane) const                the value read by that lane of window w
//   void pause()                                      back off before reading again
// and, for the ablation bench's timing-dependent fold only (tuning.h, tree_fold):
//   Accum fold_from(int w, int from_lane, Op&)        the values of lanes [from_lane, 32) of
//                                                     window w combined as a tree of shuffles
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_state.h>

#include <nv/target>

namespace spscan::detail
{

constexpr int look_back_window = 32;

SPSCAN_HOST_DEVICE inline int highest_set_lane(std::uint32_t mask)
{
  NV_IF_TARGET(NV_IS_DEVICE, (return mask ? 31 - __clz(mask) : -1;), ({
                 int lane = -1;
                 for (int l = 0; l < look_back_window; ++l)
                 {
                   lane = (mask >> l) & 1u ? l : lane;
                 }
                 return lane;
               }));
}

// Absorbing carries. A carry type may have values that absorb whatever precedes them:
// op(x, b) == b for every x (a by-key carry whose span starts a segment). A tile whose published
// aggregate absorbs is then as good a start as a P: the left fold through it equals that
// aggregate, bit for bit, so the look-back may stop walking back there and restart its fold from
// it without changing any result. `Absorbing` says which values absorb (`enabled`, `absorbs(v)`);
// the default has none.
struct nothing_absorbs
{
  static constexpr bool enabled = false;
};

// Lanes of window w the fold may start from: those holding a P, and an A that absorbs.
_CCCL_EXEC_CHECK_DISABLE
template <class Absorbing, class Lanes>
SPSCAN_HOST_DEVICE std::uint32_t start_lanes(const Lanes& lanes, int w)
{
  if constexpr (Absorbing::enabled)
  {
    return lanes.mask(w, status_prefix) | lanes.published_where(w, [](const auto& value) {
             return Absorbing::absorbs(value);
           });
  }
  else
  {
    return lanes.mask(w, status_prefix);
  }
}

// Lanes after `lane` (all lanes for lane == -1).
SPSCAN_HOST_DEVICE inline std::uint32_t lanes_after(int lane)
{
  return lane == look_back_window - 1 ? 0u : (~0u << (lane + 1));
}

// Folds the values of lanes [from_lane, 32) of window w of the read just made onto `prefix`,
// left to right. The values are fetched for every lane so that a warp can issue all its shuffles
// ahead of the dependent chain of ops.
//
// With `TreeFold` the window's values are first combined among themselves, in a tree whose shape
// depends on from_lane, i.e. on where the look-back happened to find its P: what CUB does, and
// not reproducible for floating point. It exists only to measure what the left fold costs
// (bench/probes/scan_timeline.cu); the library never selects it.
_CCCL_EXEC_CHECK_DISABLE
template <bool TreeFold, class Accum, class Op, class Lanes>
SPSCAN_HOST_DEVICE void fold_window(Accum& prefix, int w, int from_lane, Op& op, const Lanes& lanes)
{
  if constexpr (TreeFold)
  {
    if (from_lane < look_back_window)
    {
      prefix = op(prefix, lanes.fold_from(w, from_lane, op));
    }
  }
  else
  {
#pragma unroll 8
    for (int l = 0; l < look_back_window; ++l)
    {
      const Accum v = lanes.value(w, l);
      if (l >= from_lane)
      {
        prefix = op(prefix, v);
      }
    }
  }
}

// Folds every window of the read just made that lies nearer the tile than window `from_w`, and
// window `from_w` itself from lane `from_lane`, restarting from the highest start lane (a P, or an
// absorbing A) of each window it folds whole when `restart` is set.
_CCCL_EXEC_CHECK_DISABLE
template <bool Restart, bool TreeFold, class Absorbing, class Accum, class Op, class Lanes>
SPSCAN_HOST_DEVICE void fold_read(Accum& prefix, int from_w, int from_lane, Op& op, const Lanes& lanes)
{
#pragma unroll
  for (int w = Lanes::depth - 1; w >= 0; --w)
  {
    if (w > from_w)
    {
      continue;
    }
    int from = w == from_w ? from_lane : 0;
    if constexpr (Restart)
    {
      const int p = highest_set_lane(start_lanes<Absorbing>(lanes, w));
      if (p >= 0)
      {
        prefix = lanes.value(w, p);
        from   = p + 1;
      }
    }
    fold_window<TreeFold>(prefix, w, from, op, lanes);
  }
}

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, bool TreeFold = false, class Absorbing = nothing_absorbs, class State, class Op, class Lanes>
SPSCAN_HOST_DEVICE Accum exclusive_prefix_of(const State& state, long long tile, Op& op, Lanes& lanes)
{
  constexpr long long span = static_cast<long long>(look_back_window) * Lanes::depth;

  // Backward: find the nearest window holding a start lane (a P, or an absorbing A) with no X
  // after it.
  long long first = tile - look_back_window;
  int found_w     = -1;
  int found_lane  = -1;
  for (;;)
  {
    lanes.load(state, first, tile);
    bool blocked = false;
#pragma unroll
    for (int w = 0; w < Lanes::depth; ++w)
    {
      if (found_w < 0 && !blocked)
      {
        const int p = highest_set_lane(start_lanes<Absorbing>(lanes, w));
        if ((lanes.mask(w, status_empty) & lanes_after(p)) != 0)
        {
          blocked = true;
        }
        else if (p >= 0)
        {
          found_w    = w;
          found_lane = p;
        }
      }
    }
    if (found_w >= 0)
    {
      break;
    }
    if (blocked)
    {
      lanes.pause();
      continue;
    }
    first -= span;
  }

  // Forward: fold from that start through tile - 1.
  Accum prefix = lanes.value(found_w, found_lane);
  fold_read<false, TreeFold, Absorbing>(prefix, found_w, found_lane + 1, op, lanes);
  for (first += span; first < tile; first += span)
  {
    lanes.load(state, first, tile);
    fold_read<true, TreeFold, Absorbing>(prefix, Lanes::depth - 1, 0, op, lanes);
  }
  return prefix;
}

} // namespace spscan::detail

// The look-back: find the exclusive prefix of a tile from its predecessors' published states.
//
// Backward: a warp-wide window reads 32 predecessors at a time, nearest first. A window whose
// nearest P has only A after it ends the walk; an X after the nearest P means a predecessor has
// not published yet, and the window is read again after a pause; a window of A only sends the walk
// one window further back (tile 0 always publishes P, so the walk ends).
//
// Forward: from that P, the prefix is the LEFT FOLD op(op(op(P_j, A_j+1), A_j+2), ...) through
// tile - 1, re-reading each window on the way and restarting from the highest P found in it.
// Every tile publishes P_i = op(prefix_i, A_i), so by induction P_i == fold(A_0, ..., A_i) in
// exactly that association whichever P a tile happened to use: restarting from a fresher P changes
// no bit. Hence the combine order, and every bit of a floating-point result, is fixed by the input
// size and the tuning, never by timing. Operands are always combined (earlier, later): ops need
// only be associative.
//
// `Lanes` abstracts the warp so that the same code runs on the device (lanes are the 32 threads
// of a warp) and on the host (one thread plays all 32 lanes). It provides:
//   void load(const State&, long long first_tile)   each lane reads tile first_tile + lane (if >= 0)
//   std::uint32_t mask(tile_status) const           lanes whose snapshot has that status
//   Accum value(int lane) const                     the value read by that lane
//   void pause()                                    back off before reading again
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/tile_state.h>

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

// Folds the values of lanes [from_lane, 32) of the window just loaded onto `prefix`, left to right.
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op, class Lanes>
SPSCAN_HOST_DEVICE void fold_window(Accum& prefix, int from_lane, Op& op, const Lanes& lanes)
{
  for (int l = from_lane; l < look_back_window; ++l)
  {
    prefix = op(prefix, lanes.value(l));
  }
}

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class State, class Op, class Lanes>
SPSCAN_HOST_DEVICE Accum exclusive_prefix_of(const State& state, long long tile, Op& op, Lanes& lanes)
{
  // Backward: find the nearest window holding a P with no X after it.
  long long first = tile - look_back_window;
  int nearest_p   = -1;
  for (;;)
  {
    lanes.load(state, first);
    nearest_p = highest_set_lane(lanes.mask(status_prefix));
    // Lanes after the nearest P (all lanes if there is none) must have published.
    const std::uint32_t after_p = nearest_p == look_back_window - 1 ? 0u : (~0u << (nearest_p + 1));
    if ((lanes.mask(status_empty) & after_p) != 0)
    {
      lanes.pause();
      continue;
    }
    if (nearest_p >= 0)
    {
      break;
    }
    first -= look_back_window;
  }

  // Forward: fold from that P through tile - 1.
  Accum prefix = lanes.value(nearest_p);
  fold_window(prefix, nearest_p + 1, op, lanes);
  for (first += look_back_window; first < tile; first += look_back_window)
  {
    lanes.load(state, first); // every tile here has published (A or P) already
    const int restart = highest_set_lane(lanes.mask(status_prefix));
    if (restart >= 0)
    {
      prefix = lanes.value(restart);
    }
    fold_window(prefix, restart + 1, op, lanes);
  }
  return prefix;
}

} // namespace spscan::detail

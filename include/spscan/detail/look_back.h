// The look-back: find the exclusive prefix of a tile from its predecessors' published states.
//
// A warp-wide window reads the 32 predecessors [hi - 32, hi). The nearest P in the window ends
// the search, provided every tile after it has published (no X); otherwise the window is read
// again after a pause. The prefix is then the LEFT FOLD op(op(op(P_j, A_j+1), A_j+2), ...): since
// every tile publishes P_i = op(prefix_i, A_i), induction gives P_i == fold(A_0, ..., A_i) in
// exactly that association, whichever P a tile happened to find. So the combine order, and hence
// every bit of a floating-point result, is fixed by the input size and the tuning, never by timing.
// Operands are always combined (earlier, later): ops need only be associative.
//
// A window with no P (all A) is read again rather than extended further back: folding across
// windows would need all their values at once. Lower tile ids always belong to running CTAs, so
// a P reaches every window eventually and waiting cannot deadlock.
//
// `Lanes` abstracts the warp so that the same loop runs on the device (lanes are the 32 threads
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

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class State, class Op, class Lanes>
SPSCAN_HOST_DEVICE Accum exclusive_prefix_of(const State& state, long long tile, Op& op, Lanes& lanes)
{
  const long long first = tile - look_back_window;
  for (;;)
  {
    lanes.load(state, first);
    const int nearest_p = highest_set_lane(lanes.mask(status_prefix));
    // Lanes after the nearest P must all have published; lanes before it do not matter.
    const std::uint32_t after_p = nearest_p == look_back_window - 1 ? 0u : (~0u << (nearest_p + 1));
    const bool waiting_on_x     = (lanes.mask(status_empty) & after_p) != 0;
    if (nearest_p < 0 || waiting_on_x)
    {
      lanes.pause();
      continue;
    }
    Accum prefix = lanes.value(nearest_p);
    for (int l = nearest_p + 1; l < look_back_window; ++l)
    {
      prefix = op(prefix, lanes.value(l));
    }
    return prefix;
  }
}

} // namespace spscan::detail

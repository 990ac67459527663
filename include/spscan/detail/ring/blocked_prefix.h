// The ring engine's prefix warp under the blocked association (common/blocked_association.h): a
// CTA carries B of the last block it has passed, and finds a tile's prefix from it.
//
// The running prefix (running_prefix.h's struct) holds B(k - 1) with next == 32k: every aggregate
// before block k is in it. For the CTA's next tile t, in block m, the warp reads blocks k .. m
// (window w covering block k + w, lanes up to the tile), adds each whole block before m onto B
// (its tree of 31, then its last aggregate) and returns B(m - 1) combined with the tree of block
// m's lanes before t; the running prefix stays at B(m - 1). The windows' trees are shuffled side
// by side (independent), and the steps between them are two a block: a gap of ~132 tiles is ~5
// trees and ~10 steps where the left fold takes ~132 steps in order
// (docs/design.md#the-blocked-association). The
// reads of the blocks already passed before the CTA's previous tile are repeated; they are
// published and cost no wait.
//
// Lanes as for fold_aggregates_until (running_prefix.h), plus
//   Accum shuffled(int w, int lane)   that lane's value of window w's read, in every lane
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/ring/running_prefix.h>

namespace spscan::detail::ring
{

// Whether a read's trees are shuffled side by side (all computed before any is folded, so that
// their shuffles overlap) or one window at a time. Side by side for carries of up to 8 bytes
// (doubles one at a time lost 3 %); larger carries (a by-key scan's segment carry of an 8-byte
// value) one at a time: five trees of them side by side took the ring kernel to its register cap
// and spilled (docs/design.md#the-blocked-association).
template <class Accum>
inline constexpr bool blocked_trees_side_by_side = sizeof(Accum) <= 8;

// The tree a window takes: 31 lanes of a whole block (its last aggregate follows the tree, B's
// definition), the lanes before the tile in the tile's own block, none past it.
SPSCAN_HOST_DEVICE constexpr int tree_run(int needed)
{
  return needed == association_block ? association_block - 1 : needed;
}

// Advances `running` (B(k - 1), next == 32k) to the block of `tile` and returns the tile's prefix
// (absent only for tile 0 without an initial value). Called by a whole warp with the same
// arguments; every lane ends with the result.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class State, class Accum, class Op>
SPSCAN_HOST_DEVICE running_prefix<Accum>
blocked_prefix_of(const State& states, running_prefix<Accum>& running, std::size_t tile, Op& op, Lanes& lanes)
{
  constexpr std::size_t block_tiles = association_block;
  const std::size_t tile_block      = tile / block_tiles;
  const int j                       = static_cast<int>(tile % block_tiles);
  for (;;)
  {
    const std::size_t first_block = running.next / block_tiles;
    lanes.load(states, running.next, tile);
    int needed[Lanes::windows];
    Accum trees[Lanes::windows]; // side by side only
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      const std::size_t block = first_block + static_cast<std::size_t>(w);
      needed[w]               = block < tile_block ? association_block : (block == tile_block ? j : -1);
      if constexpr (blocked_trees_side_by_side<Accum>)
      {
        trees[w] = lanes.reduce(w, tree_run(needed[w]), op);
      }
    }
    bool stopped    = false;
    bool progressed = false;
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      if (stopped || needed[w] < 0 || leading_run(lanes.published(w)) < needed[w])
      {
        stopped = true;
        continue;
      }
      const Accum tree = [&] {
        if constexpr (blocked_trees_side_by_side<Accum>)
        {
          return trees[w];
        }
        else
        {
          return lanes.reduce(w, tree_run(needed[w]), op);
        }
      }();
      maybe_value<Accum> before{running.value, running.present};
      if (needed[w] == association_block)
      {
        before          = block_prefix_after(before, tree, lanes.shuffled(w, association_block - 1), op);
        running.value   = before.value;
        running.present = true;
        running.next += block_tiles;
        progressed = true;
      }
      else
      {
        const maybe_value<Accum> prefix = tile_prefix_after(before, j, tree, op);
        return {prefix.value, prefix.present, running.next};
      }
    }
    if (!progressed)
    {
      lanes.pause(); // an aggregate of these blocks is being reduced right now
    }
  }
}

} // namespace spscan::detail::ring

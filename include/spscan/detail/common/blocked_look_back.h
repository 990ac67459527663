// The classic engine's look-back under the blocked association (common/blocked_association.h):
// the exclusive prefix of a tile from its predecessors' published states, where only the last
// tile of each block of 32 publishes a P (the block's B) and every other tile its A only.
//
// The lanes read whole blocks: window w of a read starting at block k covers block k - w (lane l
// reads tile 32 (k - w) + l). The first read starts at the tile's own block.
//
// Backward: the windows are examined nearest first. The tile's own block needs its lanes before
// the tile published; an earlier block ends the walk where its last lane holds P, and otherwise
// needs all 32 lanes published (A) and sends the examination one block further back; block 0
// passed so ends the walk at B(-1). A needed lane still X means its tile has not published: the
// read is repeated after a pause.
//
// Forward: from that B, each whole block nearer the tile adds its tree of 31 and its last
// aggregate (or, where its last lane now holds P, restarts from that P: the same bits), and the
// tile's own block adds its tree of the lanes before the tile. The windows of a read are trees
// side by side, so their shuffles overlap; reads nearer the tile than the one that found the B are
// made again on the way (every tile there has published by then).
//
// `Lanes` as for exclusive_prefix_of (common/look_back.h), with load taking an end (lanes whose
// tile is at or past it read nothing: status_out_of_range), plus
//   Accum tree(int w, int run, Op&)   tree_run of window w's lanes [0, run), in every lane (any value
//                                     where run is 0)
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/tile_state.h>

namespace spscan::detail
{

// Lanes [0, run).
SPSCAN_HOST_DEVICE inline std::uint32_t leading_lanes(int run)
{
  return run >= association_block ? ~0u : (1u << run) - 1u;
}

SPSCAN_HOST_DEVICE inline bool last_lane_holds(std::uint32_t mask)
{
  return (mask >> (association_block - 1)) & 1u;
}

// Folds the windows [0, to_w) of the read just made (nearest last) onto `before`, window w
// covering block first_block - w of which the tile's own block `tile_block` needs j lanes. Returns
// the tile's prefix once the own block is folded; `before` then holds the B of the block before it.
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op, class Lanes>
SPSCAN_HOST_DEVICE maybe_value<Accum> fold_blocks_of_read(
  maybe_value<Accum>& before, long long first_block, int to_w, long long tile_block, int j, Op& op, const Lanes& lanes)
{
  Accum trees[Lanes::depth];
#pragma unroll
  for (int w = 0; w < Lanes::depth; ++w)
  {
    const long long block = first_block - w;
    trees[w]              = lanes.tree(w, block == tile_block ? j : association_block - 1, op);
  }
  maybe_value<Accum> prefix = before;
#pragma unroll
  for (int w = Lanes::depth - 1; w >= 0; --w)
  {
    const long long block = first_block - w;
    if (w >= to_w || block < 0)
    {
      continue;
    }
    if (block == tile_block)
    {
      prefix = tile_prefix_after(before, j, trees[w], op);
    }
    else if (last_lane_holds(lanes.mask(w, status_prefix)))
    {
      before = {lanes.value(w, association_block - 1), true};
    }
    else
    {
      before = block_prefix_after(before, trees[w], lanes.value(w, association_block - 1), op);
    }
  }
  return prefix;
}

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class State, class Op, class Lanes>
SPSCAN_HOST_DEVICE Accum blocked_exclusive_prefix_of(
  const State& state, long long tile, const maybe_value<Accum>& initial, Op& op, Lanes& lanes)
{
  const long long tile_block = tile / association_block;
  const int j                = static_cast<int>(tile % association_block);

  // Backward: the nearest earlier block whose last lane holds P, or the start.
  long long first_block = tile_block;
  int found_w           = -1;
  for (;;)
  {
    lanes.load(state, first_block * association_block, tile);
    bool blocked = false;
#pragma unroll
    for (int w = 0; w < Lanes::depth; ++w)
    {
      const long long block = first_block - w;
      if (found_w >= 0 || blocked)
      {
        continue;
      }
      if (block < 0 || (block < tile_block && last_lane_holds(lanes.mask(w, status_prefix))))
      {
        found_w = w;
      }
      else if ((lanes.mask(w, status_empty) & leading_lanes(block == tile_block ? j : association_block)) != 0)
      {
        blocked = true;
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
    if (first_block < Lanes::depth)
    {
      found_w = static_cast<int>(first_block) + 1; // block 0 was in this read: the walk starts at B(-1)
      break;
    }
    first_block -= Lanes::depth;
  }

  // Forward: from that B through the tile's own block.
  maybe_value<Accum> before = first_block - found_w < 0 ? initial
                                                        : maybe_value<Accum>{lanes.value(found_w, association_block - 1), true};
  maybe_value<Accum> prefix = fold_blocks_of_read(before, first_block, found_w, tile_block, j, op, lanes);
  for (first_block += Lanes::depth; first_block <= tile_block; first_block += Lanes::depth)
  {
    lanes.load(state, first_block * association_block, tile);
    prefix = fold_blocks_of_read(before, first_block, Lanes::depth, tile_block, j, op, lanes);
  }
  return prefix.value; // present: a tile past the first has a predecessor
}

} // namespace spscan::detail

// The blocked association: how a scan whose operator shows its grouping in the bits (floating
// point, user functors) combines its tiles' aggregates when its tile shape asks for it
// (tuning.h, blocked_association_of). It exists because the left fold makes every tile's prefix
// wait for a chain of one step per tile (docs/design.md#the-blocked-association).
//
// The tiles form aligned blocks of 32 (one warp window each): block k holds tiles 32k .. 32k + 31.
// With A_i the aggregate of tile i and op(none, x) == x:
//   tree_j(k) = A_32k .. A_32k+j-1 combined in the warp tree below          (1 <= j <= 31)
//   prefix(t) = B(k - 1)                             for t = 32k
//             = op(B(k - 1), tree_j(k))              for t = 32k + j, 0 < j < 32
//   B(k)      = op(prefix(32k + 31), A_32k+31)       the inclusive prefix through block k
//   B(-1)     = the initial value where the scan has one, else none.
// So a tile's prefix needs the earlier aggregates of its own block (one tree) and the B of the
// block before, which its last tile publishes as a P; where that P is not there yet, a reader
// builds it from the block's 32 aggregates (the same tree and two steps) onto the block before,
// and so on back to a published B or the start. Between blocks the chain is two steps where the
// left fold has 32. Every grouping is fixed by the tile index and the tile shape alone: results
// are reproducible as under the left fold, and the same on both engines (common/blocked_look_back.h,
// ring/blocked_prefix.h). Operands are always combined (earlier, later): ops need only be associative.
//
// tree_j: the lanes of a warp hold A_32k+l in lane l; at offsets 1, 2, 4, 8 and 16 every lane l with
// l + offset < j combines (its own value, lane l + offset's value), and lane 0 ends with the tree.
// leading_tree is that tree on the host (the model tests' reference); warp_leading_tree is the
// device's, by shuffles.
#pragma once

#include <spscan/detail/config.h>

#include <nv/target>

#if defined(__CUDACC__)
#  include <cub/util_ptx.cuh>
#endif

namespace spscan::detail
{

constexpr int association_block = 32;

// tree_j of values[0 .. run), 1 <= run <= 32, on one thread. Lane l's step at an offset reads lane
// l + offset's value of the step before, which a pass in increasing l has not overwritten yet.
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE Accum leading_tree(const Accum* values, int run, Op& op)
{
  Accum lanes[association_block];
  for (int l = 0; l < run; ++l)
  {
    lanes[l] = values[l];
  }
  for (int offset = 1; offset < association_block; offset *= 2)
  {
    for (int l = 0; l + offset < run; ++l)
    {
      lanes[l] = op(lanes[l], lanes[l + offset]);
    }
  }
  return lanes[0];
}

// The trees of one block for every run at once, as the prefix service forms them
// (ring/prefix_service.h). tree_j is the block's tree with the lanes from j on left out: for each
// digit s set in j it takes the whole tree of the 2^s lanes from p_s = j with digits 0..s cleared
// (chunk_s(p_s): the lanes' own grouping, an aligned group of 2^s lanes combining its two halves),
// and combines them later groups first:
//   tree_j = op(chunk_a(p_a), op(chunk_b(p_b), ... chunk_z(p_z)))   for j's digits a > b > ... > z.
// (tree_7 = op(chunk_2(0), op(chunk_1(4), chunk_0(6))).) So every lane finds its own tree from the
// block's chunks: four exchange steps build them, five independent reads and up to five steps
// combine them, where 31 trees one after the other would take 155 steps. chunk_in_run(s, j):
// p_s; leading_tree_of_chunks: tree_j (1 <= j <= 31) this way on one thread, from a block's 32
// values (those from j on may be anything), as the host's model of the service forms it.
SPSCAN_HOST_DEVICE constexpr int chunk_in_run(int s, int run)
{
  return run & ~((2 << s) - 1);
}

constexpr int association_chunk_sizes = 5; // chunks of 1, 2, 4, 8 and 16 lanes

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE Accum leading_tree_of_chunks(const Accum* values, int run, Op& op)
{
  Accum chunks[association_chunk_sizes][association_block]; // chunks[s][l]: chunk_s of the group holding l
  for (int l = 0; l < association_block; ++l)
  {
    chunks[0][l] = values[l];
  }
  for (int s = 0; s + 1 < association_chunk_sizes; ++s)
  {
    for (int l = 0; l < association_block; ++l)
    {
      const int low    = l & ~((2 << s) - 1);
      chunks[s + 1][l] = op(chunks[s][low], chunks[s][low + (1 << s)]);
    }
  }
  Accum tree{};
  bool started = false;
  for (int s = 0; s < association_chunk_sizes; ++s)
  {
    if ((run >> s) & 1)
    {
      const Accum& chunk = chunks[s][chunk_in_run(s, run)];
      tree               = started ? op(chunk, tree) : chunk;
      started            = true;
    }
  }
  return tree;
}

#if defined(__CUDACC__)
// The same tree over the lanes of a warp (lane l holding `value` as values[l]), returned in every
// lane; any value where run is 0. Called by the whole warp.
template <class Accum, class Op>
__device__ Accum warp_leading_tree(Accum value, int run, Op& op)
{
  const int lane = static_cast<int>(threadIdx.x % association_block);
#  pragma unroll
  for (int offset = 1; offset < association_block; offset *= 2)
  {
    const Accum later = cub::ShuffleDown<association_block>(value, offset, association_block - 1, 0xffffffffu);
    if (lane + offset < run)
    {
      value = op(value, later);
    }
  }
  return cub::ShuffleIndex<association_block>(value, 0, 0xffffffffu);
}
#endif

// A value that may be none (B(-1) without an initial value), combined as op(none, x) == x.
template <class Accum>
struct maybe_value
{
  Accum value;
  bool present;
};

_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE Accum combine_after(const maybe_value<Accum>& earlier, const Accum& later, Op& op)
{
  return earlier.present ? op(earlier.value, later) : later;
}

// B(k) from B(k - 1), tree_31(k) and A_32k+31.
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE maybe_value<Accum>
block_prefix_after(const maybe_value<Accum>& before, const Accum& tree_of_31, const Accum& last, Op& op)
{
  return {static_cast<Accum>(op(combine_after(before, tree_of_31, op), last)), true};
}

// prefix(t) from B(k - 1) and tree_j(k), j = t mod 32 (the tree is ignored where j is 0).
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE maybe_value<Accum> tile_prefix_after(const maybe_value<Accum>& before, int j, const Accum& tree, Op& op)
{
  if (j == 0)
  {
    return before;
  }
  return {combine_after(before, tree, op), true};
}

} // namespace spscan::detail

// The blocked association (common/blocked_association.h) computed sequentially on one thread, as
// its definition states it, for the protocol model tests to compare the library's look-backs with.
// Its tree is written out step by step here (a copy of the lanes per step), independently of the
// library's leading_tree, so that the two check each other.
#pragma once

#include <cstddef>
#include <vector>

namespace spscan_test
{

constexpr int reference_block = 32;

// Lanes [0, run) of values combined as a warp does it: at offsets 1, 2, 4, 8, 16, lane l takes
// op(lane l, lane l + offset) where l + offset < run, all from the values before the step.
template <class Accum, class Op>
Accum reference_tree(const Accum* values, int run, const Op& op)
{
  std::vector<Accum> current(values, values + run);
  for (int offset = 1; offset < reference_block; offset *= 2)
  {
    std::vector<Accum> next = current;
    for (int l = 0; l + offset < run; ++l)
    {
      next[static_cast<std::size_t>(l)] = op(current[static_cast<std::size_t>(l)], current[static_cast<std::size_t>(l + offset)]);
    }
    current = next;
  }
  return current[0];
}

template <class Accum>
struct blocked_fold
{
  std::vector<Accum> prefix; // each tile's exclusive prefix (tile 0's: the initial value, if any)
  std::vector<bool> has_prefix;
  std::vector<Accum> block_prefix; // B(k), for every whole block
};

// prefix(32k) = B(k - 1); prefix(32k + j) = op(B(k - 1), tree_j(k)); B(k) = op(prefix(32k + 31), A_32k+31);
// B(-1) the initial value where there is one, else none (op(none, x) = x).
template <class Accum, class Op>
blocked_fold<Accum> reference_blocked_fold(const std::vector<Accum>& aggregates, bool has_init, const Accum& init, const Op& op)
{
  const std::size_t tiles = aggregates.size();
  blocked_fold<Accum> fold;
  fold.prefix.resize(tiles);
  fold.has_prefix.resize(tiles);
  bool before_present = has_init;
  Accum before        = init;
  for (std::size_t first = 0; first < tiles; first += reference_block)
  {
    for (std::size_t t = first; t < tiles && t < first + reference_block; ++t)
    {
      const int j = static_cast<int>(t - first);
      if (j == 0)
      {
        fold.prefix[t]     = before;
        fold.has_prefix[t] = before_present;
      }
      else
      {
        const Accum tree   = reference_tree(&aggregates[first], j, op);
        fold.prefix[t]     = before_present ? op(before, tree) : tree;
        fold.has_prefix[t] = true;
      }
    }
    const std::size_t last = first + reference_block - 1;
    if (last < tiles)
    {
      before         = op(fold.prefix[last], aggregates[last]);
      before_present = true;
      fold.block_prefix.push_back(before);
    }
  }
  return fold;
}

} // namespace spscan_test

// The ring engine's prefix service: one warp, alone on an SM, folds every tile's aggregate once, in
// order, and publishes each tile's inclusive prefix (P); every other CTA's prefix warp then reads a
// single word, the P of the tile before its own, instead of folding the aggregates of its gap.
//
// Why: with each CTA folding its own gaps (running_prefix.h), every CTA's prefix warp carries a
// backlog of reads at the start and the end of a call, where the gaps are widest or the front of
// published aggregates is uneven; a service that folds each aggregate once removes that backlog,
// and mid-run the tiles' life is what it was. It costs an SM's share of the data path, which shows
// where a call has many tiles a CTA: a launch is served only up to served_tiles_per_cta (below;
// docs/design.md#the-prefix-service).
//
// Who serves: the CTA whose producer takes the call's first tile id (ring_driver.h). It has
// started, so it runs: no CTA waits for a service that is not resident. It takes no tiles; the
// others' tile ids are one past those of an unserved call, so the host counts the same ids.
//
// The P of tile t lies in the tile states at index `tiles + t` (the launch takes twice the states:
// the same epochs keep a kept block's earlier P's from reading as this call's, classic/launch.h).
// The last tile's P is nobody's. The fold is the left fold of the aggregates, from the initial
// prefix where the call has one: for an exactly associative operator a tree within each window of
// 32 (any grouping gives the same bits), else each lane's chain through its own tile, so that every
// result keeps the bits of the per-CTA fold. Under the blocked association
// (common/blocked_association.h) the service publishes at index tiles + t the prefix of tile t + 1 in that
// association instead (serve_blocked_prefixes): B(k - 1) combined with tree_j(k) for each lane of
// block k, every lane's tree from the block's chunks, and B(k) at the block's last lane; a
// client's read is the same.
//
// The service is written against `Lanes`, as the per-CTA fold is (running_prefix.h): the device's
// service_lanes below, host threads in the protocol model (tests/ring_model_test.cu). Beside
// load, published and pause (running_prefix.h), they provide
//   Accum publish_prefixes(const State&, std::size_t first_slot, int w, int run, const
//                          running_prefix<Accum>& prefix, Op&)
//       lane l < run of window w publishes at first_slot + l (status_prefix) the fold of the
//       prefix (if present) and the window's lanes 0..l, and every lane returns lane run - 1's.
//   Accum publish_blocked_prefixes(const State&, std::size_t first_slot, int w, int from, int run,
//                                  const maybe_value<Accum>& before, Op&)
//       window w holding block k (before: B(k - 1)), lane l in [from, run) publishes at
//       first_slot + l the prefix of tile 32k + l + 1: op(before, tree_l+1(k)), or for lane 31
//       B(k); every lane returns lane 31's.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/common/exact_association.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/ring/running_prefix.h>

#include <cub/util_ptx.cuh>

namespace spscan::detail::ring
{

// Whether a launch has a prefix service: as the size of the call says (has_prefix_service
// below), or, in tests, always (where the program allows it and there are two CTAs or more) or
// never. The kernel sees only `on` or `off`.
enum class prefix_service
{
  by_size,
  on,
  off
};

// Calls of up to this many tiles a CTA have a prefix service where the program allows one: it
// gains up to 31 tiles a CTA, is level at 62 and costs about the SM it takes beyond
// (docs/design.md#the-prefix-service).
constexpr std::size_t served_tiles_per_cta = 32;

// Whether a launch of `tiles` tiles over `ctas` CTAs has a prefix service, as `asked` says: never
// with one CTA (it would serve nobody).
constexpr bool has_prefix_service(prefix_service asked, bool servable, std::size_t tiles, std::size_t ctas)
{
  return servable && ctas > 1
      && (asked == prefix_service::on || (asked == prefix_service::by_size && tiles <= served_tiles_per_cta * ctas));
}

// Windows of 32 aggregates a service read covers: 4, the reach it was measured with
// (docs/design.md#the-prefix-service).
inline constexpr int service_read_windows = 4;

// Folds the aggregates of tiles 0 .. tiles - 2 onto `prefix` (next == 0: the initial prefix, if
// any), in order as they are published, and publishes each tile's P at index tiles + t. Called by
// a whole warp.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class State, class Accum, class Op>
SPSCAN_HOST_DEVICE void serve_prefixes(const State& states, std::size_t tiles, running_prefix<Accum> prefix, Op& op, Lanes& lanes)
{
  const std::size_t last = tiles - 1; // the last tile's P is nobody's
  while (prefix.next < last)
  {
    lanes.load(states, prefix.next, last);
    bool progressed = false;
    bool stopped    = false;
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      if (!stopped)
      {
        // Windows lie end to end from the read's first tile, and folding stops at the first
        // unpublished aggregate: window w starts at prefix.next.
        const int run = leading_run(lanes.published(w));
        if (run > 0)
        {
          prefix.value   = lanes.publish_prefixes(states, tiles + prefix.next, w, run, prefix, op);
          prefix.present = true;
          prefix.next += static_cast<std::size_t>(run);
          progressed = true;
        }
        stopped = run < warp_threads;
      }
    }
    if (!progressed)
    {
      lanes.pause(); // the aggregate at the front is being reduced right now
    }
  }
}

// serve_prefixes under the blocked association: the same P slots, each holding the prefix of the
// tile after it in that association. Reads start at the block being served, whose lanes before
// `done` have their P's out; a whole block moves B on. Called by a whole warp.
_CCCL_EXEC_CHECK_DISABLE
template <class Lanes, class State, class Accum, class Op>
SPSCAN_HOST_DEVICE void serve_blocked_prefixes(const State& states, std::size_t tiles, maybe_value<Accum> before, Op& op, Lanes& lanes)
{
  const std::size_t last = tiles - 1; // slot `last` would hold the prefix of a tile past the end
  std::size_t block_first = 0;
  int done                = 0;
  while (block_first + static_cast<std::size_t>(done) < last)
  {
    lanes.load(states, block_first, last);
    bool progressed = false;
    bool stopped    = false;
#pragma unroll
    for (int w = 0; w < Lanes::windows; ++w)
    {
      if (!stopped)
      {
        // Window w holds the block being served: the windows before it were whole.
        const int run = leading_run(lanes.published(w));
        if (run > done)
        {
          const Accum block_prefix = lanes.publish_blocked_prefixes(states, tiles + block_first, w, done, run, before, op);
          progressed               = true;
          done                     = run;
          if (run == association_block)
          {
            before      = {block_prefix, true};
            block_first += association_block;
            done        = 0;
          }
        }
        stopped = run < association_block;
      }
    }
    if (!progressed)
    {
      lanes.pause(); // the aggregate at the front is being reduced right now
    }
  }
}

// The prefix of `tile` (> 0) in a served call: the P of the tile before, once the service has
// published it; `pause()` between reads.
_CCCL_EXEC_CHECK_DISABLE
template <class State, class Pause>
SPSCAN_HOST_DEVICE auto served_prefix(const State& states, std::size_t tiles, std::size_t tile, Pause&& pause)
{
  for (;;)
  {
    const auto got = states.load(tiles + tile - 1);
    if (got.status == status_prefix)
    {
      return got.value;
    }
    pause();
  }
}

#if defined(__CUDACC__)
// The device's service lanes: forward_lanes' reads, and each lane's P from shuffles.
template <class Accum, int Windows>
class service_lanes : public forward_lanes<Accum, Windows>
{
public:
  __device__ service_lanes()
      : forward_lanes<Accum, Windows>(nullptr)
  {}

  template <class State, class Op>
  __device__ Accum publish_prefixes(const State& states, std::size_t first_slot, int w, int run, const running_prefix<Accum>& prefix, Op& op) const
  {
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    const Accum mine = this->snapshot(w).value;
    Accum inclusive;
    if constexpr (exactly_associative<Accum, Op>)
    {
      // An inclusive scan of the window in log2(32) shuffles; lanes at or past the run hold
      // anything, and lanes before it depend only on lanes before them.
      Accum x = mine;
#pragma unroll
      for (int d = 1; d < warp_threads; d *= 2)
      {
        const Accum y = cub::ShuffleUp<warp_threads>(x, d, 0, 0xffffffffu);
        if (lane >= d)
        {
          x = op(y, x);
        }
      }
      inclusive = prefix.present ? op(prefix.value, x) : x;
    }
    else
    {
      // Every lane takes the window's values by independent shuffles, then runs the left fold
      // through its own lane from registers (from shared memory, floats lost 20-27 %: the
      // service fell behind the published front).
      Accum values[warp_threads];
#pragma unroll
      for (int k = 0; k < warp_threads; ++k)
      {
        values[k] = cub::ShuffleIndex<warp_threads>(mine, k, 0xffffffffu);
      }
      Accum x = prefix.present ? prefix.value : values[0];
#pragma unroll
      for (int k = 0; k < warp_threads; ++k)
      {
        if (k <= lane && (prefix.present || k > 0))
        {
          x = op(x, values[k]);
        }
      }
      inclusive = x;
    }
    if (lane < run)
    {
      states.publish(first_slot + static_cast<std::size_t>(lane), status_prefix, inclusive);
    }
    return cub::ShuffleIndex<warp_threads>(inclusive, run - 1, 0xffffffffu);
  }

  // Each lane's tree from the block's chunks (common/blocked_association.h): chunk_s of every
  // lane's group by exchanges with the lane 2^s away, then tree_j from the chunks j names.
  template <class State, class Op>
  __device__ Accum publish_blocked_prefixes(
    const State& states, std::size_t first_slot, int w, int from, int run, const maybe_value<Accum>& before, Op& op) const
  {
    const int lane   = static_cast<int>(threadIdx.x % warp_threads);
    const Accum mine = this->snapshot(w).value;
    Accum chunks[association_chunk_sizes];
    chunks[0] = mine;
#pragma unroll
    for (int s = 0; s + 1 < association_chunk_sizes; ++s)
    {
      const Accum other = cub::ShuffleIndex<warp_threads>(chunks[s], lane ^ (1 << s), 0xffffffffu);
      chunks[s + 1]     = (lane >> s) & 1 ? op(other, chunks[s]) : op(chunks[s], other);
    }
    const int j = lane < association_block - 1 ? lane + 1 : association_block - 1;
    Accum tree  = mine;
    bool started = false;
#pragma unroll
    for (int s = 0; s < association_chunk_sizes; ++s)
    {
      const Accum chunk = cub::ShuffleIndex<warp_threads>(chunks[s], chunk_in_run(s, j), 0xffffffffu);
      if ((j >> s) & 1)
      {
        tree    = started ? op(chunk, tree) : chunk;
        started = true;
      }
    }
    Accum prefix = combine_after(before, tree, op);
    if (lane == association_block - 1)
    {
      prefix = op(prefix, mine); // B(k)
    }
    if (lane >= from && lane < run)
    {
      states.publish(first_slot + static_cast<std::size_t>(lane), status_prefix, prefix);
    }
    return cub::ShuffleIndex<warp_threads>(prefix, association_block - 1, 0xffffffffu);
  }
};
#endif

} // namespace spscan::detail::ring

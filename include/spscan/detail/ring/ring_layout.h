// The ring's shared memory (stages, their bookkeeping, the prefix warps' lane values), a launch's
// options, and a role's place in the ring.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/dependent_launch.h>
#include <spscan/detail/common/optional_members.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/ring/async_copy.h>
#include <spscan/detail/ring/blocked_prefix.h>
#include <spscan/detail/ring/prefix_service.h>
#include <spscan/detail/ring/running_prefix.h>
#include <spscan/detail/ring/ring_contract.h>

namespace spscan::detail::ring
{

template <class Program>
struct ring_layout
{
  using carry = typename Program::carry;

  static constexpr int squad_threads = Program::tuning::threads;
  static constexpr int squad_warps   = squad_threads / warp_threads;
  static constexpr int producer_warp = 2 * squad_warps;
  static constexpr int prefix_warp   = producer_warp + 1; // the first of them
  static constexpr int prefix_warps  = ring_prefix_warps_of<Program>::value;
  static constexpr int cta_threads   = (2 * squad_warps + 1 + prefix_warps) * warp_threads;

  // A stage holds a whole tile as loaded, or the classic program's shared storage for the last,
  // partial tile; 1024-byte aligned for the copy engine's swizzle.
  static constexpr std::size_t stage_bytes = [] {
    const std::size_t need = Program::ring_tile_bytes > sizeof(typename Program::shared_storage)
                             ? Program::ring_tile_bytes
                             : sizeof(typename Program::shared_storage);
    return (need + 1023) / 1024 * 1024;
  }();

  // Each stage's bookkeeping: its barriers, the tile in it, the prefix, the program's part.
  struct control
  {
    barrier id_known; // the producer has written `tile`
    barrier loaded; // the tile's bytes have landed
    barrier reduced; // the reduce squad is done with the stage
    barrier prefixed; // the prefix warp has written `prefix`
    barrier released; // the scan squad is done with the stage and its store has read it
    std::size_t tile;
    std::size_t previous_tile; // the CTA's tile before `tile`; no_more_tiles for its first
    alignas(carry) unsigned char prefix[sizeof(carry)];
    typename Program::ring_storage program;
  };

  // Each prefix warp's window values, after the stages' controls, where its fold shares them.
  using carry_op = ::cuda::std::remove_cvref_t<decltype(Program::carry_op(::cuda::std::declval<typename Program::params&>()))>;
  static constexpr bool blocked = blocked_association_of<typename Program::tuning>::value;
  static_assert(!blocked || prefix_warps == 1, "the blocked association's prefix is carried by a single warp");
  static constexpr int prefix_windows = blocked ? blocked_prefix_windows : prefix_read_windows<carry, carry_op, prefix_warps>;
  using lane_values                   = shared_lane_values<carry, prefix_windows>;
  static constexpr std::size_t lane_values_bytes = !blocked && prefix_folds_lanes<carry, carry_op> ? sizeof(lane_values) : 0;

  // Whether a call may have a prefix service (prefix_service.h): a single prefix warp over
  // carries that do not restart and staged tiles (a generated input's scan squad is its bound,
  // not the prefix: not measured with a service), where the service's lanes form their P's in
  // registers: under the left fold by a tree, or by chains of carries of up to 4 bytes (the
  // measured floats; 16-byte matrices spilled 2 KiB); under the blocked association from each
  // block's chunks, for carries of up to 8 bytes (the doubles).
  static constexpr bool servable = prefix_warps == 1 && !restarts_at_heads<carry_op>::value
                                && !ring_generates_input_of<Program>::value && !ring_reads_gap_once_reduced_of<Program>::value
                                && (blocked ? sizeof(carry) <= 8 : exactly_associative<carry, carry_op> || sizeof(carry) <= 4);

  static constexpr std::size_t alignment_slack = 1024;

  // A program that generates its input holds a tile in shared memory only from its scan until the
  // copy engine has read its results: its stages are bookkeeping alone, and the scan squad takes
  // turns over `result_buffers` of its own, beside one for the last, partial tile (the classic
  // program's storage): as many as fit in 216 KiB with the last tile's region, at most 3 (sm_90
  // gives a CTA 227 KiB; the rest is for the stages), so that the 64 KiB tiles of computed inputs
  // under exact operators (common/tuning.h) take 2; with 1 they lost a third
  // (docs/design.md#computed-transformed-and-widened-inputs).
  static constexpr bool generated     = ring_generates_input_of<Program>::value;
  static constexpr int result_buffers = [] {
    const int fit = static_cast<int>((std::size_t{216} << 10) / stage_bytes) - 1;
    return fit < 1 ? 1 : (fit > 3 ? 3 : fit);
  }();
  static constexpr int max_generated_stages = 8;
  SPSCAN_HOST_DEVICE static constexpr int data_regions(int stages)
  {
    return generated ? result_buffers + 1 : stages;
  }

  static constexpr std::size_t shared_bytes(int stages)
  {
    return alignment_slack + static_cast<std::size_t>(data_regions(stages)) * stage_bytes
         + static_cast<std::size_t>(stages) * sizeof(control) + prefix_warps * lane_values_bytes;
  }
};

// How a launch runs its ring: its depth, and who stores a tile's results. The copy engine stores
// from the stage, which stays taken until the store has read it (about the tile's share of the
// memory bandwidth under full load); with few stages the scan squad's threads store instead, and
// the stage is free as soon as they have read it.
struct ring_options
{
  int stages;
  bool stores_by_threads;
  int ctas = 0; // 0: one per SM; fewer only in tests (more tiles per CTA, every stage reused)
  // How storage that is not known to be clear is cleared (common/dependent_launch.h): by the
  // ring's own CTAs in a cooperative launch; tests also force the clearing kernel before it.
  storage_clear clear = storage_clear::by_the_kernel;
  prefix_service service = prefix_service::by_size; // on the host: which kernel runs (ring_launch.h)
};

// A tile id past the last tile: the producer's word that the CTA is done.
constexpr std::size_t no_more_tiles = ~std::size_t{0};
// The producer's word that the CTA serves the call's prefixes and takes no tiles.
constexpr std::size_t serves_prefixes = no_more_tiles - 1;

// Whether the producer's word ends the CTA's tiles: past the last, or the CTA serves.
SPSCAN_HOST_DEVICE constexpr bool takes_no_tile(std::size_t tile)
{
  return tile >= serves_prefixes;
}

// Where a role is in the ring: stage and the parity of the stage's current use. Each of a stage's
// barriers completes one phase per use, so a role waits on the current use's phase (`parity`), or
// on the previous use's (`previous_parity()`) before it takes the stage again.
struct ring_cursor
{
  int stages;
  int stage       = 0;
  unsigned parity = 0;
  std::size_t uses = 0; // how many tiles this role has passed

  __device__ void advance()
  {
    ++uses;
    if (++stage == stages)
    {
      stage  = 0;
      parity ^= 1u;
    }
  }
  __device__ void advance(int tiles)
  {
    for (int i = 0; i < tiles; ++i)
    {
      advance();
    }
  }
  __device__ unsigned previous_parity() const
  {
    return parity ^ 1u;
  }
  // The stage of the tile before, in that tile's use.
  __device__ ring_cursor one_back() const
  {
    ring_cursor before = *this;
    before.stage       = stage == 0 ? stages - 1 : stage - 1;
    before.parity      = stage == 0 ? previous_parity() : parity;
    return before;
  }
};

} // namespace spscan::detail::ring

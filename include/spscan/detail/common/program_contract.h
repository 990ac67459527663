// What a tile program provides to either engine (classic/driver.h, ring/ring_driver.h; the ring
// asks more: ring/ring_contract.h), and what both engines take from it the same way: the launch's
// parameters, tile ids, the initial prefix, the data warps' barrier.
//
// What travels through the look-back is the program's `carry`, combined by the program's
// `carry_op` (associative, not necessarily commutative), always as op(earlier, later).
//
// A tile program provides:
//   using carry, tuning (tile shape: threads, items, tile_items, look_back_depth...), params,
//   shared_storage;
//   static constexpr bool has_initial_prefix;   the first tile's exclusive prefix exists (an init)
//   static carry initial_prefix(const params&);
// optionally, where the init is known only on the device and may be absent,
//   static bool initial_prefix_present(const params&);
//   static <op> carry_op(params&);
//   template <class Tile> static void run(params&, shared_storage&, const Tile&);   data warps
// and optionally `absorbing`, the carries that absorb what precedes them (look_back.h).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/optional_members.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/common/tuning.h>

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

namespace spscan::detail
{

// Everything a launch of either driver needs: the program's parameters and the look-back's state.
template <class Program>
struct driver_params
{
  using carry = typename Program::carry;
  using state = tile_state_for<carry>;

  typename Program::params program;
  std::size_t tiles;
  state tiles_state;
  std::uint32_t* tile_counter; // null when tiles == 1; its first two words: the 64-bit id counter
  // Bytes from tile_counter on that the CTAs of a clearing launch clear before any of them reads
  // them (dependent_launch.h, take_cleared_storage); 0: they are clear, or being cleared before.
  std::size_t clear_first_bytes;
  // The 64-bit tile counter before the call's first id (classic/driver.h, 4.).
  std::uint64_t first_tile_id = 0;
};

// Takes the call's next tile id (classic/driver.h, 4.): the call's first CTA to ask gets 0.
template <class Program>
__device__ std::uint64_t take_tile_id(const driver_params<Program>& p)
{
  auto& counter = *reinterpret_cast<std::uint64_t*>(p.tile_counter);
  return device_atomic_ref<std::uint64_t>(counter).fetch_add(1, ::cuda::std::memory_order_relaxed) - p.first_tile_id;
}

template <class Program>
constexpr int data_threads_of = Program::tuning::threads;

// Program::absorbing where a program names it (its carries' absorbing values, look_back.h), else
// nothing_absorbs.
template <class Program>
using absorbing_of = member_type_or<nothing_absorbs, Program, member_absorbing>;

// Whether the program's first tile starts from an initial prefix in this launch: never, always, or
// as Program::initial_prefix_present says where the program has it.
template <class Program>
using initial_prefix_present_member = decltype(&Program::template initial_prefix_present<>);
template <class Program>
using initial_prefix_may_be_absent = has_member<Program, initial_prefix_present_member>;

template <class Program>
__device__ bool initial_prefix_exists(const typename Program::params& p)
{
  if constexpr (!Program::has_initial_prefix)
  {
    return false;
  }
  else if constexpr (initial_prefix_may_be_absent<Program>::value)
  {
    return Program::initial_prefix_present(p);
  }
  else
  {
    return true;
  }
}

// The prefix the launch's first tile starts from: the program's initial prefix, where it exists.
template <class Program>
__device__ maybe_value<typename Program::carry> initial_prefix_of(const typename Program::params& p)
{
  maybe_value<typename Program::carry> initial{{}, initial_prefix_exists<Program>(p)};
  if (initial.present)
  {
    initial.value = Program::initial_prefix(p);
  }
  return initial;
}

// Named barrier 1 (__syncthreads is 0): the data warps only, while the classic engine's
// look-back warp may still be looking back. Lanes come to it from `if (lane == 0)` publications:
// each warp is reconverged first (__syncwarp), and the barrier is the non-aligned form, since
// compute-sanitizer's synccheck reported divergent arrivals at `bar.sync`.
template <class Program>
__device__ void sync_data_warps()
{
  __syncwarp();
  asm volatile("barrier.sync 1, %0;" ::"r"(data_threads_of<Program>) : "memory");
}

} // namespace spscan::detail

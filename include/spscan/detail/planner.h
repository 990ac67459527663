// Which engine and which tile shape run a call that spscan's kernel serves (route.h decides that
// it does): the one place that decides it, for every program, from the plan its family declares.
//
// A family (scan_program.h, scan_by_key_program.h, select_program.h) declares:
//   params          what its programs take, whatever their shape;
//   shapes          kernel_shapes<Primary, Reduced> (classic/kernel_shape.h): the device's shape;
//   steps<Fitting>  plan_steps<Step...>: the shape and the engines of each window of input size,
//                   given the device's shape `Fitting`; the first step whose window holds runs,
//                   and the last one, for_every_size, holds for every size;
//   item_bytes      the bytes an element counts for in the windows;
//   ring_accepts<RingProgram>(params)  whether the call's ranges suit the ring (alignment, aliasing);
//   ring_input<RingProgram>(params), ring_output(params)  what the ring's copy engine reads and
//                   writes (null where the program's threads do it);
//   launch_classic<Program>(policy, params, n)  the classic engine's launch (classic_launch: the
//                   single-pass kernel as it is).
// A step names its program, and the ring's program where the ring may take its window. The ring
// engine runs a step where the device has it, the call suits it and the ring's own limits hold
// (ring/ring_launch.h: bytes, tiles per SM); the classic engine (classic/launch.h) every other.
// The same input in the same shape gives the same bits on either engine; the shape follows the
// input size, so a floating-point result's bits depend on the size (docs/reproducibility.md).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/classic/kernel_shape.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/ring/ring_launch.h>
#include <spscan/detail/thrust_bridge.h>

#include <cuda/std/type_traits>

#include <cstddef>

namespace spscan::detail
{

// A step that the ring engine never takes.
struct no_ring
{};

// Two to MaxTiles tiles of the device's shape: smaller tiles keep more SMs busy (one tile keeps
// the one-tile path of the device's shape).
template <std::size_t MaxTiles, class Program, class RingProgram = no_ring>
struct for_few_tiles
{
  using program      = Program;
  using ring_program = RingProgram;
  static constexpr bool holds(std::size_t n, std::size_t tile_items, std::size_t)
  {
    const std::size_t tiles = (n + tile_items - 1) / tile_items;
    return tiles > 1 && tiles <= MaxTiles;
  }
};

// More than one tile of the device's shape, and at most MaxBytes.
template <std::size_t MaxBytes, class Program, class RingProgram = no_ring>
struct for_small_inputs
{
  using program      = Program;
  using ring_program = RingProgram;
  static constexpr bool holds(std::size_t n, std::size_t tile_items, std::size_t bytes)
  {
    return n > tile_items && bytes <= MaxBytes;
  }
};

// At least MinBytes.
template <std::size_t MinBytes, class Program, class RingProgram = no_ring>
struct for_large_inputs
{
  using program      = Program;
  using ring_program = RingProgram;
  static constexpr bool holds(std::size_t, std::size_t, std::size_t bytes)
  {
    return bytes >= MinBytes;
  }
};

// Every size: a plan's last step.
template <class Program, class RingProgram = no_ring>
struct for_every_size
{
  using program      = Program;
  using ring_program = RingProgram;
  static constexpr bool holds(std::size_t, std::size_t, std::size_t)
  {
    return true;
  }
};

// What step_if<Exists, Step> is where the step's shape does not exist (for some types, or in the
// reduced shape): it never holds, and Step's programs are named there, never instantiated.
struct no_step
{
  using program      = void;
  using ring_program = no_ring;
  static constexpr bool holds(std::size_t, std::size_t, std::size_t)
  {
    return false;
  }
};
template <bool Exists, class Step>
using step_if = ::cuda::std::conditional_t<Exists, Step, no_step>;

template <class... Steps>
struct plan_steps
{};

template <class Step>
constexpr bool covers_every_size = false;
template <class Program, class RingProgram>
constexpr bool covers_every_size<for_every_size<Program, RingProgram>> = true;

// The index of the step that runs `n` elements (of `tile_items` a tile in the device's shape, of
// `item_bytes` each).
template <class... Steps>
constexpr std::size_t planned_step(plan_steps<Steps...>, std::size_t n, std::size_t tile_items, std::size_t item_bytes)
{
  constexpr bool every_size[] = {covers_every_size<Steps>...};
  static_assert(every_size[sizeof...(Steps) - 1], "spscan: a plan ends with for_every_size");
  const bool holds[] = {Steps::holds(n, tile_items, n * item_bytes)...};
  std::size_t step   = 0;
  while (!holds[step])
  {
    ++step;
  }
  return step;
}

// The classic engine's launch of a family whose programs need nothing before their kernel.
struct classic_launch
{
  template <class Program, class Derived, class Params>
  static void launch_classic(cuda_policy<Derived>& policy, const Params& params, std::size_t n)
  {
    launch_single_pass<Program>(policy, params, n);
  }
};

// Runs one step: on the ring engine where it may and will take the call, else on the classic one.
template <class Family, class Step, class Derived>
void run_step(cuda_policy<Derived>& policy, const typename Family::params& params, std::size_t n)
{
  using ring_program = typename Step::ring_program;
  if constexpr (!::cuda::std::is_same_v<ring_program, no_ring>)
  {
    if constexpr (ring_program::runs_on_ring)
    {
      if (Family::template ring_accepts<ring_program>(params)
          && ring::launch_ring<ring_program>(
            policy, params, n, Family::template ring_input<ring_program>(params), Family::ring_output(params)))
      {
        return;
      }
    }
  }
  Family::template launch_classic<typename Step::program>(policy, params, n);
}

// no_step has no program to run, nor to instantiate.
template <class Family, class Step, class Derived>
void run_existing_step(cuda_policy<Derived>& policy, const typename Family::params& params, std::size_t n)
{
  if constexpr (!::cuda::std::is_same_v<Step, no_step>)
  {
    run_step<Family, Step>(policy, params, n);
  }
}

template <class Family, class... Steps, class Derived>
void run_planned_step(
  plan_steps<Steps...> steps, cuda_policy<Derived>& policy, const typename Family::params& params, std::size_t n, std::size_t tile_items)
{
  const std::size_t chosen = planned_step(steps, n, tile_items, Family::item_bytes);
  std::size_t index        = 0;
  (void) ((index++ == chosen && (run_existing_step<Family, Steps>(policy, params, n), true)) || ...);
}

// Runs a call of `n` elements as `Family` plans it, in the shape the current device can launch.
template <class Family, class Derived>
void run_planned(cuda_policy<Derived>& policy, const typename Family::params& params, std::size_t n)
{
  with_fitting_shape<typename Family::shapes>([&](auto shape) {
    using fitting = typename decltype(shape)::type;
    run_planned_step<Family>(typename Family::template steps<fitting>{}, policy, params, n, fitting::tuning::tile_items);
  });
}

} // namespace spscan::detail

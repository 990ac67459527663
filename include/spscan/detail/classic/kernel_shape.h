// Which tile shape a program launches with, chosen at run time from the device's limits.
//
// A tile lives in shared memory (tile_io.h). The primary shape for 8-byte types needs about
// 66 KiB per block, which most GPUs grant (sm_70: 96 KiB, sm_80: 163 KiB, sm_90: 227 KiB) and some
// do not (sm_75: 64 KiB). There a call runs the reduced shape (tuning.h), built to fit the 48 KiB
// every CUDA GPU grants, so no call has to fail or leave spscan for lack of shared memory. The
// shape is part of the association of a floating-point result, so such a GPU gives other bits
// than one that runs the primary shape (docs/reproducibility.md).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/device_limits.h>
#include <spscan/detail/thrust_bridge.h>

#include <atomic>
#include <cstddef>

namespace spscan::detail
{

enum class kernel_shape
{
  primary, // the measured best
  reduced, // fits every GPU
};

// The two shapes of one program (same parameters, other tuning), and the shared memory each takes.
template <class Primary, class Reduced>
struct kernel_shapes
{
  using primary = Primary;
  using reduced = Reduced;

  static constexpr std::size_t primary_bytes = shared_bytes_of<Primary>;
  static constexpr std::size_t reduced_bytes = shared_bytes_of<Reduced>;

  // Only a primary shape that some GPU may not grant has a reduced one (and a second kernel).
  static constexpr bool has_reduced = primary_bytes > guaranteed_shared_bytes;
  static_assert(!has_reduced || reduced_bytes <= guaranteed_shared_bytes,
                "spscan: the reduced tile shape must fit the shared memory every GPU grants");
};

// The shape a device with `limits` launches.
template <class Shapes>
constexpr kernel_shape choose_kernel_shape(device_limits limits)
{
  return !Shapes::has_reduced || Shapes::primary_bytes <= limits.shared_bytes_per_block ? kernel_shape::primary
                                                                                         : kernel_shape::reduced;
}

// Names a program for with_fitting_shape's callable.
template <class Program>
struct program_tag
{
  using type = Program;
};

// Calls `launch(program_tag<P>{})` with P the shape of the program the current device can launch.
template <class Shapes, class Launch>
void with_fitting_shape(Launch&& launch)
{
  if constexpr (Shapes::has_reduced)
  {
    if (choose_kernel_shape<Shapes>(current_device_limits()) == kernel_shape::reduced)
    {
      launch(program_tag<typename Shapes::reduced>{});
      return;
    }
  }
  launch(program_tag<typename Shapes::primary>{});
}

} // namespace spscan::detail

// The classic driver's host side: launches the driver (driver.h) for a tile program on the
// call's tile storage (common/tile_storage_launch.h), and finishes the call the way Thrust does
// (stream, errors, synchronization). A single tile is launched alone, with no temporary storage.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/classic/driver.h>
#include <spscan/detail/common/dependent_launch.h>
#include <spscan/detail/common/tile_storage_launch.h>
#include <spscan/detail/thrust_bridge.h>

#include <cstddef>

namespace spscan::detail
{

// Shared memory a CTA of the driver takes with this program.
template <class Program>
constexpr std::size_t shared_bytes_of = sizeof(driver_shared<Program>);

// Runs `Program` over `n` elements (tiles of Program::tuning::tile_items) on the policy's stream.
template <class Program, class Derived>
void launch_single_pass(cuda_policy<Derived>& policy, const typename Program::params& program, std::size_t n)
{
  using params = driver_params<Program>;
  using state  = typename params::state;
  constexpr std::size_t tile_items = Program::tuning::tile_items;
  if (n != 0)
  {
    params p{program, (n + tile_items - 1) / tile_items, state{}, nullptr, 0};
    const cudaStream_t stream = stream_of(policy);
    // An error left pending by earlier, unrelated work is not this call's: Thrust clears it
    // before launching, and so does spscan, so the check after the launch sees only its own.
    cudaGetLastError();
    constexpr std::size_t shared_bytes = shared_bytes_of<Program>;
    constexpr unsigned cta_threads     = cta_threads_of<Program>;
    prepare_kernel<single_pass_kernel<Program>>(shared_bytes);
    if (p.tiles == 1)
    {
      single_pass_kernel<Program><<<1, cta_threads, shared_bytes, stream>>>(p);
      throw_if_failed(cudaGetLastError(), "spscan: kernel launch failed");
    }
    else
    {
      // Each CTA takes one id.
      with_tile_storage(policy, p, stream, storage_clear::memset_first, p.tiles, p.tiles, [&](const storage_launch& launch) {
        return launch(single_pass_kernel<Program>, static_cast<unsigned>(p.tiles), cta_threads, shared_bytes, stream, p);
      });
    }
  }
  finish_call(policy, "spscan: failed to synchronize");
}

} // namespace spscan::detail

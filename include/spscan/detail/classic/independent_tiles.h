// Runs a tile program's tiles independently of each other: no tile ids, no look-back, no tile
// states, no temporary storage of its own. CTA b takes tile b; the program's
// `tile.exchange(aggregate)` stores the tile's aggregate in `aggregates[b]` and gives no prefix.
// A reduction in a fixed association is this, level after level (programs/reduce_program.h).
//
// The program is the same kind of tile program the single-pass driver runs (driver.h), but all
// of a CTA's threads are data threads.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/tile_position.h>
#include <spscan/detail/common/tuning.h>
#include <spscan/detail/thrust_bridge.h>

namespace spscan::detail
{

template <class Program>
struct independent_tiles_params
{
  typename Program::params program;
  typename Program::carry* aggregates; // one per tile
};

// What the tile program's threads see (common/tile_position.h): every thread is a data thread,
// and no tile has a prefix.
template <class Program>
class independent_tile : public tile_position<Program>
{
public:
  using carry = typename Program::carry;

  __device__ independent_tile(const independent_tiles_params<Program>& p, std::size_t tile)
      : tile_position<Program>(p.program, tile)
      , aggregates_(p.aggregates)
  {}

  __device__ bool has_prefix() const
  {
    return false;
  }
  // Thread 0 holds the aggregate; the returned prefix is never defined (has_prefix()).
  __device__ carry exchange(const carry& aggregate) const
  {
    if (threadIdx.x == 0)
    {
      aggregates_[this->tile_] = aggregate;
    }
    return carry{};
  }

private:
  carry* aggregates_;
};

template <class Program>
SPSCAN_KERNEL void __launch_bounds__(Program::tuning::threads, launch_bound_ctas<typename Program::tuning, Program::tuning::threads>)
  independent_tiles_kernel(independent_tiles_params<Program> p)
{
  extern __shared__ uint4 independent_tiles_shared_memory[];
  auto& shared = *reinterpret_cast<typename Program::shared_storage*>(independent_tiles_shared_memory);
  auto program = p.program;
  Program::run(program, shared, independent_tile<Program>(p, blockIdx.x));
}

// Runs `Program` over the `tiles` tiles of its input on `stream`, their aggregates to `aggregates`.
template <class Program>
void launch_independent_tiles(cudaStream_t stream, const typename Program::params& program, std::size_t tiles,
                              typename Program::carry* aggregates)
{
  constexpr std::size_t shared_bytes = sizeof(typename Program::shared_storage);
  static_assert(shared_bytes <= 48 * 1024, "spscan: an independent tile must fit the shared memory every GPU grants");
  cudaGetLastError(); // an earlier, unrelated error is not this launch's
  prepare_kernel<independent_tiles_kernel<Program>>(shared_bytes);
  independent_tiles_kernel<Program><<<static_cast<unsigned>(tiles), Program::tuning::threads, shared_bytes, stream>>>(
    independent_tiles_params<Program>{program, aggregates});
  throw_if_failed(cudaGetLastError(), "spscan: kernel launch failed");
}

} // namespace spscan::detail

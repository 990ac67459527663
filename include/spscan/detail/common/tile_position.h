// What every tile context tells a tile program about its tile, whichever engine runs it: the
// classic driver's (classic/driver.h), the ring's partial tile (ring/ring_tile_context.h) and the
// independent tiles' (classic/independent_tiles.h) extend it with their exchange.
//
// A tile context is what `Program::run` receives as `tile`:
//   index(), first_item()       the tile's place in the input
//   has_prefix()                whether exchange() returns a prefix
//   sync_data_warps()           the data warps' barrier
//   exchange(aggregate)         the tile's aggregate in, its exclusive prefix out
//   trace(stage)                a stage of the tile, for a tuning's trace hook (tuning.h)
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tuning.h>

#include <cstddef>

namespace spscan::detail
{

template <class Program>
class tile_position
{
public:
  __device__ tile_position(const typename Program::params& program, std::size_t tile)
      : program_(program)
      , tile_(tile)
  {}

  __device__ std::size_t index() const
  {
    return tile_;
  }
  __device__ std::size_t first_item() const
  {
    return tile_ * Program::tuning::tile_items;
  }
  // Every tile but the first has a prefix, and the first where the program has an initial one.
  __device__ bool has_prefix() const
  {
    return tile_ > 0 || initial_prefix_exists<Program>(program_);
  }
  __device__ void sync_data_warps() const
  {
    detail::sync_data_warps<Program>();
  }
  __device__ void trace(trace_stage) const {}

protected:
  const typename Program::params& program_;
  std::size_t tile_;
};

} // namespace spscan::detail

// The tile context the ring gives a tile program for its last, partial tile (common/tile_position.h),
// so that the tile runs the classic program code.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/tile_position.h>
#include <spscan/detail/ring/ring_layout.h>

#include <cstddef>

namespace spscan::detail::ring
{

// What the ring offers a tile program's threads for its last, partial tile: the tile context of
// common/tile_position.h, so that the tile runs the classic program code.
template <class Program>
class ring_tile_context : public tile_position<Program>
{
public:
  using carry   = typename Program::carry;
  using control = typename ring_layout<Program>::control;

  __device__ ring_tile_context(const driver_params<Program>& p, control& c, std::size_t tile, unsigned parity)
      : tile_position<Program>(p.program, tile)
      , control_(c)
      , parity_(parity)
  {}

  // The last tile's exchange: nothing after it reads its aggregate; its prefix is the prefix
  // warp's.
  __device__ carry exchange(const carry&) const
  {
    return prefix();
  }
  __device__ carry prefix() const
  {
    control_.prefixed.wait(parity_);
    return *reinterpret_cast<const carry*>(control_.prefix);
  }

private:
  control& control_;
  unsigned parity_;
};

template <class Program>
__device__ bool whole_tile(const driver_params<Program>& p, std::size_t tile)
{
  return (tile + 1) * static_cast<std::size_t>(Program::tuning::tile_items) <= p.program.n;
}

} // namespace spscan::detail::ring

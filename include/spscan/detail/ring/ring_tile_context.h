// The tile context the ring gives a tile program (the classic one's interface, classic/driver.h), so
// that the last, partial tile runs the classic program code.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/ring/ring_layout.h>

#include <cstddef>

namespace spscan::detail::ring
{

// What the ring offers a tile program's threads for one tile: the classic tile context's
// interface (classic/driver.h), so that the last, partial tile runs the classic program code.
template <class Program>
class ring_tile_context
{
public:
  using carry   = typename Program::carry;
  using control = typename ring_layout<Program>::control;

  __device__ ring_tile_context(const driver_params<Program>& p, control& c, std::size_t tile, unsigned parity)
      : p_(p)
      , control_(c)
      , tile_(tile)
      , parity_(parity)
  {}

  __device__ std::size_t index() const
  {
    return tile_;
  }
  __device__ std::size_t first_item() const
  {
    return tile_ * Program::tuning::tile_items;
  }
  __device__ bool has_prefix() const
  {
    return tile_ > 0 || initial_prefix_exists<Program>(p_.program);
  }
  __device__ void sync_data_warps() const
  {
    detail::sync_data_warps<Program>();
  }
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
  __device__ void trace(trace_stage) const {}

private:
  const driver_params<Program>& p_;
  control& control_;
  std::size_t tile_;
  unsigned parity_;
};

template <class Program>
__device__ bool whole_tile(const driver_params<Program>& p, std::size_t tile)
{
  return (tile + 1) * static_cast<std::size_t>(Program::tuning::tile_items) <= p.program.n;
}

} // namespace spscan::detail::ring

// The ring's stores by the copy engine that have not yet read their stage (ring_driver.h, the scan
// squad), and when each stage is released.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/ring/async_copy.h>

namespace spscan::detail::ring
{

// The scan squad's stores in flight (kept by its first thread, who issues them): a stage is
// released once its store has read it, which under full load takes about as long as the tile's
// share of the memory bandwidth; waiting for it before the next tile would serialize the two.
// Stores are issued in ring order, so the oldest pending one is `count` stages back.
template <class Control>
struct pending_stores
{
  int stages;
  int count = 0;

  // At most `lag` stores stay in flight: fewer stages than that leaves too few to load into.
  __device__ int lag() const
  {
    return stages > 4 ? 2 : 1;
  }
  __device__ void issued(int stage, Control* controls)
  {
    bulk_commit_group();
    if (++count > lag())
    {
      if (lag() == 2)
      {
        wait_bulk_groups_read<2>();
      }
      else
      {
        wait_bulk_groups_read<1>();
      }
      controls[(stage - lag() + stages) % stages].released.arrive();
      --count;
    }
  }
  __device__ void drain()
  {
    wait_bulk_groups_read<0>();
  }
};

} // namespace spscan::detail::ring

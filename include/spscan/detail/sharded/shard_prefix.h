// The cross-shard step of a sharded scan. Every rank reduces its shard to its total; the totals
// are gathered on every rank (nccl_exchange.h); rank r then starts its shard's scan from the fold,
// left to right, of the init (exclusive scans) and the totals of ranks 0..r-1 that have one (an
// empty shard has none). With this, out = scan of the concatenation of the shards, associated as
//   ((init op T0) op T1) ... op T(r-1)   then the shard's own scan from that value,
// which depends on the shard layout and the tile shape only (reproducible).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/programs/scan_plan.h>

#include <cstdint>

namespace spscan::detail
{

// A rank's total, as it travels between ranks: the value, and whether the shard had one.
template <class Accum>
using shard_total = initial_value_slot<Accum>;

// The value shard `rank` starts from: `start` (the init, or absent), then the totals before it.
_CCCL_EXEC_CHECK_DISABLE
template <class Accum, class Op>
SPSCAN_HOST_DEVICE shard_total<Accum> shard_start(const shard_total<Accum>* totals, int rank, Op op, shard_total<Accum> start)
{
  for (int r = 0; r < rank; ++r)
  {
    if (totals[r].present != 0)
    {
      start.value   = start.present != 0 ? op(start.value, totals[r].value) : totals[r].value;
      start.present = 1;
    }
  }
  return start;
}

template <class Accum, class Op>
SPSCAN_KERNEL void shard_start_kernel(const shard_total<Accum>* totals, int rank, Op op, shard_total<Accum> start,
                                      shard_total<Accum>* result)
{
  *result = shard_start(totals, rank, op, start);
}

} // namespace spscan::detail

// The scan across a tile's data threads of one value per thread, in an association fixed by the
// tile shape: each warp scans its lanes (cub::WarpScan), then the warp totals are folded left to
// right. Tile programs use it to turn per-thread totals into per-thread exclusive prefixes and the
// tile's aggregate.
//
// A partial tile (the last one) has values in a prefix of its threads only. The other threads
// still take part, holding a stand-in (a value of the input, so that an operator never sees
// anything else), but their values count nowhere: the total is exactly the fold of the threads
// that hold values, so an algorithm that returns what the last tile's prefix holds (a count) gets
// it right.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tuning.h>

#include <cub/util_ptx.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cuda/std/type_traits>

namespace spscan::detail
{

// An operator as it is, under a type of its own. CUB's warp scan takes an integral sum's exclusive
// prefix as inclusive - input, which a sum of bools does not allow (true + true is true): a bool
// accumulator's scan goes through the operator in this disguise.
template <class Op>
struct opaque_operator
{
  Op& op;
  template <class A, class B>
  __device__ auto operator()(const A& a, const B& b) const
  {
    return op(a, b);
  }
};

template <class T, int Warps>
struct block_scan
{
  using warp_scan = cub::WarpScan<T>;

  struct shared_storage
  {
    typename warp_scan::TempStorage warp_scans[Warps];
    alignas(T) unsigned char warp_totals[Warps][sizeof(T)];
  };

  // What a thread learns from the scan.
  struct result
  {
    T exclusive; // fold of the values of the threads before this one; defined where has_exclusive
    bool has_exclusive; // false for thread 0 only
    T total; // fold of every value; defined in thread 0
  };

  // Every data thread calls it with its value; the threads [0, valid_threads) hold values (all of
  // them in a whole tile). `sync_data_warps` is a barrier of the data threads alone.
  template <class Op, class SyncDataWarps>
  __device__ static result
  scan(shared_storage& shared, const T& value, Op& op, int valid_threads, SyncDataWarps sync_data_warps)
  {
    const int thread = static_cast<int>(threadIdx.x);
    const int lane   = thread % warp_threads;
    const int warp   = thread / warp_threads;

    T warp_prefix; // exclusive, undefined for lane 0
    T warp_total;
    if constexpr (::cuda::std::is_same_v<T, bool>)
    {
      warp_scan(shared.warp_scans[warp]).ExclusiveScan(value, warp_prefix, opaque_operator<Op>{op}, warp_total);
    }
    else
    {
      warp_scan(shared.warp_scans[warp]).ExclusiveScan(value, warp_prefix, op, warp_total);
    }
    const int valid_warps = (valid_threads + warp_threads - 1) / warp_threads;
    if (valid_threads < Warps * warp_threads)
    {
      // The warp that holds the last value: its total ends at that lane.
      const int last_lane = valid_threads - 1 - warp * warp_threads;
      if (last_lane >= 0 && last_lane < warp_threads - 1)
      {
        const T inclusive = lane == 0 ? value : op(warp_prefix, value);
        warp_total        = cub::ShuffleIndex<warp_threads>(inclusive, last_lane, 0xffffffffu);
      }
    }
    auto* warp_totals = reinterpret_cast<T*>(shared.warp_totals);
    if (lane == 0)
    {
      warp_totals[warp] = warp_total;
    }
    sync_data_warps();

    result r;
    // The fold of the totals of the warps before this one (meaningful for warp > 0).
    T before = warp_totals[0];
#pragma unroll
    for (int w = 1; w < Warps; ++w)
    {
      if (w < warp)
      {
        before = op(before, warp_totals[w]);
      }
    }
    r.total = warp_totals[0]; // thread 0 completes it
    if (thread == 0)
    {
#pragma unroll
      for (int w = 1; w < Warps; ++w)
      {
        if (w < valid_warps)
        {
          r.total = op(r.total, warp_totals[w]);
        }
      }
    }
    r.has_exclusive = thread > 0;
    if (warp > 0)
    {
      r.exclusive = lane > 0 ? op(before, warp_prefix) : before;
    }
    else if (lane > 0)
    {
      r.exclusive = warp_prefix;
    }
    return r;
  }
};

} // namespace spscan::detail

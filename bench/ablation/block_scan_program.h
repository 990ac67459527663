// A scan tile program of int32 whose block-level scan is one of the classic ones: the tile is
// staged through the library's tile I/O (each thread owns Items consecutive elements: thread
// coarsening), each thread adds its elements, the chosen block scan turns the 256 thread totals
// into each thread's exclusive prefix and the tile's total, the tile exchanges its total for its
// prefix (device_schemes.h says how), and every element is replaced by its inclusive scan.
// Every thread is a data thread, so the block scans may use __syncthreads (and CUB's BlockScan).
#pragma once

#include "block_scans.h"

#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/common/tuning.h>

#include <cub/block/block_scan.cuh>

#include <cstddef>

namespace ablation
{

constexpr int block_threads = 256;

// The block scans, as the program calls them: value in, this thread's exclusive prefix and (in
// thread 0) the block's total out.
template <class Steps>
struct stepped_block_scan
{
  static constexpr int slots = Steps::padded ? slots_for<block_threads, true> : block_threads;
  struct storage
  {
    int buffers[2][slots];
    int last_value;
  };
  __device__ static void scan(storage& s, int value, int& exclusive, int& total)
  {
    const int t = static_cast<int>(threadIdx.x);
    s.buffers[0][slot<Steps::padded>(t)] = value;
    if (t == block_threads - 1)
    {
      s.last_value = value;
    }
    __syncthreads();
    const int* result = run_on_device<Steps, block_threads>(s.buffers[0], s.buffers[1]);
    if constexpr (Steps::inclusive)
    {
      exclusive = t > 0 ? result[slot<Steps::padded>(t - 1)] : 0;
      total     = result[slot<Steps::padded>(block_threads - 1)];
    }
    else
    {
      exclusive = result[slot<Steps::padded>(t)];
      total     = result[slot<Steps::padded>(block_threads - 1)] + s.last_value;
    }
  }
};

// Each warp scans its lanes by shuffles (Kogge-Stone in registers), then the first warp scans
// the warp totals the same way.
struct warp_shuffle_block_scan
{
  static constexpr int warps = block_threads / 32;
  struct storage
  {
    int warp_totals[warps];
  };
  __device__ static int inclusive_in_warp(int value, int lane)
  {
    for (int reach = 1; reach < 32; reach *= 2)
    {
      const int before = __shfl_up_sync(0xffffffffu, value, reach);
      value += lane >= reach ? before : 0;
    }
    return value;
  }
  __device__ static void scan(storage& s, int value, int& exclusive, int& total)
  {
    const int lane      = static_cast<int>(threadIdx.x) % 32;
    const int warp      = static_cast<int>(threadIdx.x) / 32;
    const int inclusive = inclusive_in_warp(value, lane);
    if (lane == 31)
    {
      s.warp_totals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0)
    {
      const int warp_total = lane < warps ? s.warp_totals[lane] : 0;
      const int scanned    = inclusive_in_warp(warp_total, lane);
      if (lane < warps)
      {
        s.warp_totals[lane] = scanned - warp_total; // exclusive
      }
      if (lane == warps - 1)
      {
        total = scanned;
      }
      total = __shfl_sync(0xffffffffu, total, warps - 1);
    }
    __syncthreads();
    exclusive = s.warp_totals[warp] + inclusive - value;
  }
};

struct cub_block_scan
{
  using scan_type = cub::BlockScan<int, block_threads>;
  using storage   = typename scan_type::TempStorage;
  __device__ static void scan(storage& s, int value, int& exclusive, int& total)
  {
    scan_type(s).ExclusiveSum(value, exclusive, total);
  }
};

template <class BlockScan, int Items>
struct block_scan_program
{
  using carry  = int;
  using tuning = spscan::detail::tile_shape<4, 4 * Items, 1>;
  static_assert(tuning::threads == block_threads);
  struct params
  {
    const int* in;
    int* out;
    std::size_t n;
  };
  static constexpr int items   = Items;
  static constexpr int segment = 32 * Items;
  using elements               = spscan::detail::element_slice<int, Items>;

  struct shared_storage
  {
    alignas(16) unsigned char slices[block_threads / 32][elements::bytes];
    typename BlockScan::storage block;
  };

  template <class Tile>
  __device__ static void run(params& p, shared_storage& shared, const Tile& tile)
  {
    const spscan::detail::warp_segment<tuning::tile_items, segment> at(tile.first_item(), p.n);
    const elements staged(shared.slices[at.warp], at.lane, at.valid());
    staged.stage(p.in + at.first);
    int thread_total = 0;
    staged.for_each([&](int x) {
      thread_total += x;
    });
    int exclusive = 0;
    int total     = 0;
    BlockScan::scan(shared.block, thread_total, exclusive, total);
    const int tile_prefix = tile.exchange(total);
    int running           = (tile.has_prefix() ? tile_prefix : 0) + exclusive;
    staged.template transform<int>([&](int x) {
      running += x;
      return running;
    });
    staged.write(p.out + at.first);
  }
};

} // namespace ablation

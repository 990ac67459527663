// The device-level schemes of the ablation bench: how a tile learns the sum of the tiles before
// it. Each is a tile context (the interface spscan's driver offers a tile program: first_item,
// has_prefix, exchange, sync_data_warps, trace) for the same tile program, so that only the
// scheme differs between them:
//  - reduce_then_scan: three kernels. The tiles' totals (spscan's order-keeping reduction of one
//    tile each, classic/independent_tiles.h), their exclusive scan (spscan's), then every tile
//    scanned with its prefix read from that array. Reads the input twice.
//  - chained_in_block_order / chained_dynamic: one pass; a tile's thread 0 waits for the tile
//    before it to publish its inclusive prefix, then publishes its own (a serial chain). Tile =
//    blockIdx.x (relies on the hardware starting blocks in order), or a tile id taken from a
//    global counter when the CTA starts (cannot deadlock).
//  - independent: every tile scanned alone, no carry between tiles (not a scan of the input: what
//    a single pass could at most reach, the tile program's cost with nothing to wait for).
//  - decoupled_one_thread: one pass, dynamic tile ids; a tile publishes its total (A) at once,
//    and its thread 0 walks back one predecessor at a time, adding totals until it meets an
//    inclusive prefix (P). The library's tile states (common/tile_state.h) carry A and P.
//  - decoupled_warp_serial_fold: the same protocol, but the tile's first warp reads 32
//    predecessors' states at once (a window, waiting until every state up to the nearest P is
//    published), and its lane 0 adds the window's totals one after another.
//  - decoupled_warp_tree_fold: the same window, added by the whole warp in a shuffle tree (five
//    steps instead of up to 32 additions; for a non-commutative or rounding operator the grouping
//    would depend on where the P is, which is why spscan folds left to right).
// spscan itself (a look-back warp beside the data warps, reading 64 predecessors at a time while
// they load) is the library's call, on the classic engine or, from 16 MiB on sm_90, the ring.
#pragma once

#include <spscan/detail/classic/independent_tiles.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/programs/reduce_program.h>
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace ablation
{

enum class scheme
{
  independent,
  reduce_then_scan,
  chained_in_block_order,
  chained_dynamic,
  decoupled_one_thread,
  decoupled_warp_serial_fold,
  decoupled_warp_tree_fold,
};

template <class Program>
using state_of = spscan::detail::tile_state_for<typename Program::carry>;

// reduce_then_scan's first kernel reduces tiles of at most 32 KiB (an independent tile must fit the
// shared memory every GPU grants): a scan tile of 64 KiB is reduced as two halves.
template <class Program>
constexpr std::size_t reduce_split =
  Program::tuning::tile_items * sizeof(typename Program::carry) > 32 * 1024 ? 2 : 1;

template <class Program>
struct scheme_params
{
  using carry = typename Program::carry;
  typename Program::params program;
  std::size_t tiles;
  state_of<Program> states; // chained and decoupled schemes
  std::uint32_t* tile_counter; // dynamic tile ids
  const carry* prefixes; // reduce_then_scan: the exclusive prefix of every tile
};

__host__ __device__ constexpr bool uses_dynamic_ids(scheme s)
{
  return s == scheme::chained_dynamic || s == scheme::decoupled_one_thread || s == scheme::decoupled_warp_serial_fold
      || s == scheme::decoupled_warp_tree_fold;
}

__host__ __device__ constexpr bool looks_back_by_warp(scheme s)
{
  return s == scheme::decoupled_warp_serial_fold || s == scheme::decoupled_warp_tree_fold;
}

template <scheme Scheme, class Program>
class scheme_tile
{
public:
  using carry = typename Program::carry;

  __device__ scheme_tile(const scheme_params<Program>& p, std::size_t tile, carry* shared_prefix)
      : p_(p)
      , tile_(tile)
      , shared_prefix_(shared_prefix)
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
    return Scheme != scheme::independent && tile_ > 0;
  }
  __device__ void sync_data_warps() const
  {
    __syncthreads();
  }
  __device__ void trace(spscan::detail::trace_stage) const {}

  // Every thread calls it; thread 0 holds the tile's total. Returns the tile's exclusive prefix
  // (defined where has_prefix()).
  __device__ carry exchange(carry total) const
  {
    if constexpr (looks_back_by_warp(Scheme))
    {
      total = __shfl_sync(0xffffffffu, total, 0); // the first warp looks back together
      if (threadIdx.x < spscan::detail::warp_threads)
      {
        const carry prefix = prefix_by_first_warp(total);
        if (threadIdx.x == 0)
        {
          *shared_prefix_ = prefix;
        }
      }
    }
    else if (threadIdx.x == 0)
    {
      *shared_prefix_ = prefix_by_thread_0(total);
    }
    __syncthreads();
    return *shared_prefix_;
  }

private:
  __device__ carry prefix_by_thread_0(carry total) const
  {
    using spscan::detail::status_aggregate;
    using spscan::detail::status_empty;
    using spscan::detail::status_prefix;
    if constexpr (Scheme == scheme::independent)
    {
      return carry{};
    }
    else if constexpr (Scheme == scheme::reduce_then_scan)
    {
      return p_.prefixes[tile_ * reduce_split<Program>];
    }
    else if constexpr (Scheme == scheme::chained_in_block_order || Scheme == scheme::chained_dynamic)
    {
      carry prefix{};
      if (tile_ > 0)
      {
        auto before = p_.states.load(tile_ - 1);
        while (before.status != status_prefix)
        {
          before = p_.states.load(tile_ - 1);
        }
        prefix = before.value;
      }
      p_.states.publish(tile_, status_prefix, static_cast<carry>(prefix + total));
      return prefix;
    }
    else
    {
      if (tile_ == 0)
      {
        p_.states.publish(0, status_prefix, total);
        return carry{};
      }
      p_.states.publish(tile_, status_aggregate, total);
      carry after{}; // the totals of the tiles between the P found and this tile
      for (std::size_t j = tile_ - 1;; --j)
      {
        auto s = p_.states.load(j);
        while (s.status == status_empty)
        {
          s = p_.states.load(j);
        }
        after = static_cast<carry>(after + s.value);
        if (s.status == status_prefix)
        {
          break;
        }
      }
      p_.states.publish(tile_, status_prefix, static_cast<carry>(after + total));
      return after;
    }
  }

  // The first warp's look-back: windows of 32 predecessors, nearest first (lane l reads tile
  // - 1 - l); a window is used once every state up to its nearest P (or all 32) is published.
  __device__ carry prefix_by_first_warp(carry total) const
  {
    using spscan::detail::status_aggregate;
    using spscan::detail::status_empty;
    using spscan::detail::status_prefix;
    constexpr int lanes = spscan::detail::warp_threads;
    const int lane      = static_cast<int>(threadIdx.x);
    if (tile_ == 0)
    {
      if (lane == 0)
      {
        p_.states.publish(0, status_prefix, total);
      }
      return carry{};
    }
    if (lane == 0)
    {
      p_.states.publish(tile_, status_aggregate, total);
    }
    carry after{};
    std::size_t window_end = tile_; // this window reads tiles [window_end - 32, window_end)
    for (;;)
    {
      const bool exists   = window_end >= static_cast<std::size_t>(lane) + 1;
      const std::size_t j = exists ? window_end - 1 - static_cast<std::size_t>(lane) : 0;
      spscan::detail::tile_snapshot<carry> s{status_empty, carry{}};
      if (exists)
      {
        s = p_.states.load(j);
      }
      unsigned prefixes = 0, needed = 0;
      for (;;)
      {
        // Lanes up to the nearest P (lane 0 is nearest), or all that exist, must be published.
        prefixes               = __ballot_sync(0xffffffffu, exists && s.status == status_prefix);
        const unsigned present = __ballot_sync(0xffffffffu, exists && s.status != status_empty);
        needed                 = prefixes != 0 ? ((prefixes & (~prefixes + 1u)) << 1) - 1u : __ballot_sync(0xffffffffu, exists);
        if ((present & needed) == needed)
        {
          break;
        }
        if (exists && s.status == status_empty)
        {
          s = p_.states.load(j);
        }
      }
      const bool counted = (needed >> lane) & 1u;
      const carry value  = counted ? static_cast<carry>(s.value) : carry{};
      if constexpr (Scheme == scheme::decoupled_warp_serial_fold)
      {
        carry window{};
        for (int k = 0; k < lanes; ++k)
        {
          const carry v = __shfl_sync(0xffffffffu, value, k);
          if (lane == 0)
          {
            window = static_cast<carry>(window + v);
          }
        }
        after = static_cast<carry>(after + window); // lane 0's is the one used
      }
      else
      {
        carry window = value;
        for (int offset = lanes / 2; offset > 0; offset /= 2)
        {
          window = static_cast<carry>(window + __shfl_down_sync(0xffffffffu, window, offset));
        }
        after = static_cast<carry>(after + window);
      }
      if (prefixes != 0 || window_end <= static_cast<std::size_t>(lanes))
      {
        break;
      }
      window_end -= lanes;
    }
    after = __shfl_sync(0xffffffffu, after, 0);
    if (lane == 0)
    {
      p_.states.publish(tile_, status_prefix, static_cast<carry>(after + total));
    }
    return after;
  }

  const scheme_params<Program>& p_;
  std::size_t tile_;
  carry* shared_prefix_;
};

template <scheme Scheme, class Program>
__global__ void __launch_bounds__(Program::tuning::threads) scheme_kernel(scheme_params<Program> p)
{
  extern __shared__ uint4 scheme_shared_memory[];
  auto& shared = *reinterpret_cast<typename Program::shared_storage*>(scheme_shared_memory);
  __shared__ std::uint32_t tile_id;
  __shared__ typename Program::carry prefix;
  std::size_t tile = blockIdx.x;
  if constexpr (uses_dynamic_ids(Scheme))
  {
    if (threadIdx.x == 0)
    {
      tile_id = atomicAdd(p.tile_counter, 1u);
    }
    __syncthreads();
    tile = tile_id;
  }
  auto program = p.program;
  Program::run(program, shared, scheme_tile<Scheme, Program>(p, tile, &prefix));
}

inline void check(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

// Device memory a scheme needs for n elements, taken once by the caller.
template <class Program>
std::size_t scheme_scratch_bytes(std::size_t n)
{
  const std::size_t tiles = (n + Program::tuning::tile_items - 1) / Program::tuning::tile_items;
  const spscan::detail::tile_storage_layout<state_of<Program>> layout{tiles};
  return layout.total_bytes() + 2 * tiles * reduce_split<Program> * sizeof(typename Program::carry) + 256;
}

// Runs `Program` over n > 0 elements on `stream` in scheme `Scheme`, with `scratch`
// (scheme_scratch_bytes<Program>(n) bytes).
template <scheme Scheme, class Program>
void run_scheme(cudaStream_t stream, const typename Program::params& program, std::size_t n, void* scratch)
{
  constexpr std::size_t tile_items = Program::tuning::tile_items;
  const std::size_t tiles          = (n + tile_items - 1) / tile_items;
  using carry                      = typename Program::carry;
  const spscan::detail::tile_storage_layout<state_of<Program>> layout{tiles};
  auto* bytes       = static_cast<unsigned char*>(scratch);
  carry* aggregates = reinterpret_cast<carry*>(bytes + (layout.total_bytes() + 15) / 16 * 16);
  constexpr std::size_t split = reduce_split<Program>;
  carry* prefixes             = aggregates + tiles * split;
  scheme_params<Program> p{program, tiles, layout.state(scratch), layout.counter(scratch), prefixes};
  if constexpr (Scheme == scheme::reduce_then_scan)
  {
    using tuning        = typename Program::tuning;
    using reduce_tuning = spscan::detail::tile_shape<int(sizeof(carry)), tuning::bytes_per_thread / int(split), 1>;
    using reduce        = spscan::detail::reduce_program<reduce_tuning, const carry*, carry, thrust::plus<carry>>;
    const std::size_t parts = (n + reduce_tuning::tile_items - 1) / reduce_tuning::tile_items;
    spscan::detail::launch_independent_tiles<reduce>(stream, {program.in, n, thrust::plus<carry>{}, false}, parts, aggregates);
    spscan::exclusive_scan(thrust::cuda::par_nosync.on(stream), aggregates, aggregates + parts, prefixes);
  }
  else if constexpr (Scheme != scheme::independent)
  {
    check(cudaMemsetAsync(scratch, 0, layout.zeroed_bytes(), stream), "clearing tile states");
  }
  constexpr std::size_t shared_bytes = sizeof(typename Program::shared_storage);
  check(cudaFuncSetAttribute(scheme_kernel<Scheme, Program>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared_bytes)),
        "kernel shared memory");
  scheme_kernel<Scheme, Program>
    <<<static_cast<unsigned>(tiles), Program::tuning::threads, shared_bytes, stream>>>(p);
  check(cudaGetLastError(), "scheme kernel launch");
}

} // namespace ablation

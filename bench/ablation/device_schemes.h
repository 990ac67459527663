// The device-level schemes of the ablation bench: how a tile learns the sum of the tiles before
// it. Each is a tile context (the interface spscan's driver offers a tile program: first_item,
// has_prefix, exchange, sync_data_warps, trace) for the same tile program, so that only the
// scheme differs between them:
//  - reduce_then_scan: three kernels. The tiles' totals (spscan's order-keeping reduction of one
//    tile each, engine/independent_tiles.h), their exclusive scan (spscan's), then every tile
//    scanned with its prefix read from that array. Reads the input twice.
//  - chained_in_block_order / chained_dynamic: one pass; a tile's thread 0 waits for the tile
//    before it to publish its inclusive prefix, then publishes its own (a serial chain). Tile =
//    blockIdx.x (relies on the hardware starting blocks in order), or a tile id taken from a
//    global counter when the CTA starts (cannot deadlock).
//  - decoupled_one_thread: one pass, dynamic tile ids; a tile publishes its total (A) at once,
//    and its thread 0 walks back one predecessor at a time, adding totals until it meets an
//    inclusive prefix (P). The library's tile states (engine/tile_state.h) carry A and P.
// spscan itself (a look-back warp reading 64 predecessors at a time, while the data warps load)
// is the library's call.
#pragma once

#include <spscan/detail/engine/independent_tiles.h>
#include <spscan/detail/engine/tile_state.h>
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
  reduce_then_scan,
  chained_in_block_order,
  chained_dynamic,
  decoupled_one_thread,
};

using state = spscan::detail::tile_state_for<int>;

template <class Program>
struct scheme_params
{
  typename Program::params program;
  std::size_t tiles;
  state states; // chained and decoupled schemes
  std::uint32_t* tile_counter; // dynamic tile ids
  const int* prefixes; // reduce_then_scan: the exclusive prefix of every tile
};

template <scheme Scheme, class Program>
class scheme_tile
{
public:
  __device__ scheme_tile(const scheme_params<Program>& p, std::size_t tile, int* shared_prefix)
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
    return tile_ > 0;
  }
  __device__ void sync_data_warps() const
  {
    __syncthreads();
  }
  __device__ void trace(spscan::detail::trace_stage) const {}

  // Every thread calls it; thread 0 holds the tile's total. Returns the tile's exclusive prefix
  // (defined for every tile but the first).
  __device__ int exchange(int total) const
  {
    if (threadIdx.x == 0)
    {
      *shared_prefix_ = prefix_by_thread_0(total);
    }
    __syncthreads();
    return *shared_prefix_;
  }

private:
  __device__ int prefix_by_thread_0(int total) const
  {
    using spscan::detail::status_aggregate;
    using spscan::detail::status_empty;
    using spscan::detail::status_prefix;
    if constexpr (Scheme == scheme::reduce_then_scan)
    {
      return p_.prefixes[tile_];
    }
    else if constexpr (Scheme == scheme::chained_in_block_order || Scheme == scheme::chained_dynamic)
    {
      int prefix = 0;
      if (tile_ > 0)
      {
        auto before = p_.states.load(tile_ - 1);
        while (before.status != status_prefix)
        {
          before = p_.states.load(tile_ - 1);
        }
        prefix = before.value;
      }
      p_.states.publish(tile_, status_prefix, prefix + total);
      return prefix;
    }
    else
    {
      if (tile_ == 0)
      {
        p_.states.publish(0, status_prefix, total);
        return 0;
      }
      p_.states.publish(tile_, status_aggregate, total);
      int after = 0; // the totals of the tiles between the P found and this tile
      for (std::size_t j = tile_ - 1;; --j)
      {
        auto s = p_.states.load(j);
        while (s.status == status_empty)
        {
          s = p_.states.load(j);
        }
        after += s.value;
        if (s.status == status_prefix)
        {
          break;
        }
      }
      p_.states.publish(tile_, status_prefix, after + total);
      return after;
    }
  }

  const scheme_params<Program>& p_;
  std::size_t tile_;
  int* shared_prefix_;
};

template <scheme Scheme, class Program>
__global__ void __launch_bounds__(Program::tuning::threads) scheme_kernel(scheme_params<Program> p)
{
  extern __shared__ uint4 scheme_shared_memory[];
  auto& shared = *reinterpret_cast<typename Program::shared_storage*>(scheme_shared_memory);
  __shared__ std::uint32_t tile_id;
  __shared__ int prefix;
  std::size_t tile = blockIdx.x;
  if constexpr (Scheme == scheme::chained_dynamic || Scheme == scheme::decoupled_one_thread)
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
  const spscan::detail::tile_storage_layout<state> layout{tiles};
  return layout.total_bytes() + 2 * tiles * sizeof(int) + 256;
}

// Runs `Program` over n > 0 ints on `stream` in scheme `Scheme`, with `scratch`
// (scheme_scratch_bytes<Program>(n) bytes).
template <scheme Scheme, class Program>
void run_scheme(cudaStream_t stream, const typename Program::params& program, std::size_t n, void* scratch)
{
  constexpr std::size_t tile_items = Program::tuning::tile_items;
  const std::size_t tiles          = (n + tile_items - 1) / tile_items;
  const spscan::detail::tile_storage_layout<state> layout{tiles};
  auto* bytes      = static_cast<unsigned char*>(scratch);
  int* aggregates  = reinterpret_cast<int*>(bytes + (layout.total_bytes() + 15) / 16 * 16);
  int* prefixes    = aggregates + tiles;
  scheme_params<Program> p{program, tiles, layout.state(scratch), layout.counter(scratch), prefixes};
  if constexpr (Scheme == scheme::reduce_then_scan)
  {
    using reduce = spscan::detail::reduce_program<typename Program::tuning, const int*, int, thrust::plus<int>>;
    spscan::detail::launch_independent_tiles<reduce>(stream, {program.in, n, thrust::plus<int>{}, false}, tiles, aggregates);
    spscan::exclusive_scan(thrust::cuda::par_nosync.on(stream), aggregates, aggregates + tiles, prefixes);
  }
  else
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

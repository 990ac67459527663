// What the ring engine needs of Hopper's asynchronous copies: shared-memory barriers that count
// arrivals and bytes (mbarrier), bulk tensor copies between device memory and shared memory (TMA),
// and the fence that orders a thread's shared-memory writes before a bulk copy reads them.
//
// Each is CCCL's cuda::ptx wrapper of the instruction, which every supported CCCL has, but the
// barrier's arrivals (below); the inline PTX elsewhere in spscan is what CCCL 2.8's cuda::ptx
// lacks. Everything here is sm_90 and newer; the ring engine's kernel compiles its body only
// there (ring_driver.h), and the host chooses it only where that body exists (ring_launch.h).
#pragma once

#include <spscan/detail/config.h>

#include <cuda.h>
#include <cuda/ptx>

#include <cstdint>

#include <nv/target>

namespace spscan::detail::ring
{

// A barrier in shared memory. A phase completes when its expected arrivals have arrived and the
// bytes announced with expect_tx have landed; waiters name the phase by its parity.
struct alignas(8) barrier
{
  std::uint64_t word;

  __device__ std::uint32_t shared_address() const
  {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(&word));
  }

  __device__ void init(std::uint32_t arrivals)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (::cuda::ptx::mbarrier_init(&word, arrivals);))
  }
  // The arrivals are inline PTX: they discard the barrier's state (`_`), where cuda::ptx's
  // shared::cta forms return it into a register, which changed the by-key ring kernels' machine
  // code (scripts/ptx-identity.sh --machine-code).

  // Release: what this thread wrote before is seen by a thread that waits for the phase.
  __device__ void arrive()
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90,
                 (asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address()) : "memory");))
  }
  // Arrives and announces `bytes` that bulk copies will bring in this phase.
  __device__ void arrive_expecting(std::uint32_t bytes)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90,
                 (asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address()),
                               "r"(bytes)
                               : "memory");))
  }
  // Acquire: returns once the phase of this parity has completed.
  __device__ void wait(std::uint32_t parity)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (while (!::cuda::ptx::mbarrier_try_wait_parity(&word, parity)) {}))
  }
};

// Makes barriers initialized by this thread visible to the other threads and to the copy engine.
__device__ inline void publish_barrier_init()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);))
}

// Orders this thread's ordinary shared-memory writes before later bulk copies that read them.
__device__ inline void fence_shared_for_bulk_copies()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);))
}

// Box (x, y) of a 2D tensor into shared memory at `target`; its bytes complete `done`'s phase.
__device__ inline void bulk_load_box(void* target, const CUtensorMap& map, int x, int y, barrier& done)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, ({
                 const std::int32_t box[2] = {x, y};
                 ::cuda::ptx::cp_async_bulk_tensor(
                   ::cuda::ptx::space_cluster, ::cuda::ptx::space_global, target, &map, box, &done.word);
               }))
}

// Shared memory at `source` into box (x, y) of a 2D tensor, in this thread's current bulk group.
__device__ inline void bulk_store_box(const CUtensorMap& map, int x, int y, const void* source)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, ({
                 const std::int32_t box[2] = {x, y};
                 ::cuda::ptx::cp_async_bulk_tensor(::cuda::ptx::space_global, ::cuda::ptx::space_shared, &map, box, source);
               }))
}

// Closes this thread's current group of bulk stores.
__device__ inline void bulk_commit_group()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (::cuda::ptx::cp_async_bulk_commit_group();))
}

// Waits until at most `Pending` of this thread's newest bulk groups may still be reading shared
// memory (their writes to device memory may still be under way).
template <int Pending>
__device__ void wait_bulk_groups_read()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (::cuda::ptx::cp_async_bulk_wait_group_read(::cuda::ptx::n32_t<Pending>{});))
}

} // namespace spscan::detail::ring

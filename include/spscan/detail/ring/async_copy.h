// What the ring engine needs of Hopper's asynchronous copies: shared-memory barriers that count
// arrivals and bytes (mbarrier), bulk tensor copies between device memory and shared memory (TMA),
// and the fence that orders a thread's shared-memory writes before a bulk copy reads them.
//
// Everything here is sm_90 and newer; the ring engine's kernel compiles its body only there
// (ring_driver.h), and the host chooses it only where that body exists (ring_launch.h).
#pragma once

#include <spscan/detail/config.h>

#include <cuda.h>

#include <cstdint>

#include <nv/target>

namespace spscan::detail::ring
{

__device__ inline std::uint32_t shared_address(const void* p)
{
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// A barrier in shared memory. A phase completes when its expected arrivals have arrived and the
// bytes announced with expect_tx have landed; waiters name the phase by its parity.
struct alignas(8) barrier
{
  unsigned long long word;

  __device__ void init(unsigned arrivals)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90,
                 (asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(this)), "r"(arrivals)
                               : "memory");))
  }
  // Release: what this thread wrote before is seen by a thread that waits for the phase.
  __device__ void arrive()
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90,
                 (asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(this)) : "memory");))
  }
  // Arrives and announces `bytes` that bulk copies will bring in this phase.
  __device__ void arrive_expecting(std::uint32_t bytes)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90,
                 (asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(this)),
                               "r"(bytes)
                               : "memory");))
  }
  // Acquire: returns once the phase of this parity has completed.
  __device__ void wait(unsigned parity)
  {
    NV_IF_TARGET(NV_PROVIDES_SM_90, ({
                   std::uint32_t done = 0;
                   do
                   {
                     asm volatile("{\n\t.reg .pred p;\n\t"
                                  "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                                  "selp.u32 %0, 1, 0, p;\n\t}"
                                  : "=r"(done)
                                  : "r"(shared_address(this)), "r"(parity)
                                  : "memory");
                   } while (!done);
                 }))
  }
};

// Makes barriers initialized by this thread visible to the other threads and to the copy engine.
__device__ inline void publish_barrier_init()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");))
}

// Orders this thread's ordinary shared-memory writes before later bulk copies that read them.
__device__ inline void fence_shared_for_bulk_copies()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async.shared::cta;" ::: "memory");))
}

// Box (x, y) of a 2D tensor into shared memory at `target`; its bytes complete `done`'s phase.
__device__ inline void bulk_load_box(void* target, const CUtensorMap& map, int x, int y, barrier& done)
{
  NV_IF_TARGET(
    NV_PROVIDES_SM_90,
    (asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                    shared_address(target)),
                  "l"(&map),
                  "r"(x),
                  "r"(y),
                  "r"(shared_address(&done))
                  : "memory");))
}

// Shared memory at `source` into box (x, y) of a 2D tensor, in this thread's current bulk group.
__device__ inline void bulk_store_box(const CUtensorMap& map, int x, int y, const void* source)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90,
               (asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map),
                             "r"(x),
                             "r"(y),
                             "r"(shared_address(source))
                             : "memory");))
}

// Closes this thread's current group of bulk stores.
__device__ inline void bulk_commit_group()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.commit_group;" ::: "memory");))
}

// Waits until at most `Pending` of this thread's newest bulk groups may still be reading shared
// memory (their writes to device memory may still be under way).
template <int Pending>
__device__ void wait_bulk_groups_read()
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");))
}

} // namespace spscan::detail::ring

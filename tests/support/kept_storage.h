// What spscan keeps for calls without an allocator (<spscan/temporary_storage.h>), as tests see
// it: what its pool for the current device holds and lends, and a way back to nothing kept.
#pragma once

#include <spscan/temporary_storage.h>

#include <support/device_memory.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace spscan_test
{

// What spscan's pool for the current device holds (reserved) or lends (used); 0 without a pool.
inline std::uint64_t pool_attribute(cudaMemPoolAttr attribute)
{
  std::uint64_t bytes = 0;
  if (cudaMemPool_t pool = spscan::detail::storage_cache::current_pool())
  {
    cuda_check(cudaMemPoolGetAttribute(pool, attribute, &bytes), "cudaMemPoolGetAttribute");
  }
  return bytes;
}
inline std::uint64_t pool_reserved_bytes()
{
  return pool_attribute(cudaMemPoolAttrReservedMemCurrent);
}
inline std::uint64_t pool_used_bytes()
{
  return pool_attribute(cudaMemPoolAttrUsedMemCurrent);
}

// Frees what spscan keeps and what its pool holds: a known starting point.
inline void empty_the_pool()
{
  cuda_check(cudaDeviceSynchronize(), "synchronize");
  spscan::release_temporary_storage();
  if (cudaMemPool_t pool = spscan::detail::storage_cache::current_pool())
  {
    cuda_check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
  }
}

} // namespace spscan_test

// What the scan's host side takes from Thrust's CUDA backend: the policy's stream, temporary
// storage through the policy's allocator, Thrust's optional synchronization and Thrust's error
// type. (The policy types and the overloads name Thrust's policy base classes as well; see
// par_policy.h and par.inl.)
#pragma once

#include <spscan/detail/config.h>

#include <thrust/detail/temporary_array.h>
#include <thrust/system/cuda/detail/execution_policy.h>
#include <thrust/system/cuda/detail/util.h>

#include <cstdint>

namespace spscan::detail
{

template <class Derived>
using cuda_policy = thrust::cuda_cub::execution_policy<Derived>;

template <class Derived>
cudaStream_t stream_of(cuda_policy<Derived>& policy)
{
  return thrust::cuda_cub::stream(policy);
}

// Device bytes owned for the duration of one call, taken from (and returned to) the policy's
// allocator: a caching allocator attached with `par(alloc)` sees every byte spscan uses.
template <class Derived>
using temporary_bytes = thrust::detail::temporary_array<std::uint8_t, Derived>;

// Throws thrust::system_error (cuda_category) for any error, as Thrust does.
inline void throw_if_failed(cudaError_t status, const char* what)
{
  thrust::cuda_cub::throw_on_error(status, what);
}

// Synchronizes the policy's stream exactly when Thrust would (not for par_nosync).
template <class Derived>
void finish_call(cuda_policy<Derived>& policy, const char* what)
{
  throw_if_failed(thrust::cuda_cub::synchronize_optional(policy), what);
}

} // namespace spscan::detail

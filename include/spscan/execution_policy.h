// spscan::par and spscan::par_nosync — execution policies that send Thrust's own scan calls to
// spscan. For code whose calls cannot be renamed, changing the policy is enough:
//
//   thrust::inclusive_scan(thrust::device, first, last, result);   // Thrust's scan
//   thrust::inclusive_scan(spscan::par,    first, last, result);   // spscan's scan
//
// With these policies, every overload of thrust::inclusive_scan, exclusive_scan,
// transform_inclusive_scan, transform_exclusive_scan, inclusive_scan_by_key and
// exclusive_scan_by_key behaves exactly like spscan's function of the same name (<spscan/scan.h>,
// <spscan/transform_scan.h>): spscan's kernel where it can serve the call, Thrust's CUDA
// implementation where it cannot, same results and return value. copy_if, remove_copy_if and
// partition_copy go through spscan's dispatch too (<spscan/copy.h>), which today runs Thrust's
// CUDA implementation for them. Every other Thrust algorithm (sort, reduce, transform...) runs
// Thrust's CUDA implementation unchanged: the policies derive from Thrust's CUDA policy.
// One exception: Thrust builds thrust::shuffle and thrust::shuffle_copy on a
// thrust::inclusive_scan with the caller's policy, so their scan runs on spscan (same results).
//
// Each policy behaves as its Thrust counterpart in stream, allocation and synchronization:
//
//   spscan::par                      thrust::cuda::par          default stream, synchronizes
//   spscan::par.on(stream)           thrust::cuda::par.on(s)    `stream`, synchronizes
//   spscan::par(alloc)               thrust::cuda::par(alloc)   temporary storage from `alloc`
//   spscan::par(alloc).on(stream)    ...                        both
//   spscan::par_nosync[...]          thrust::cuda::par_nosync   the same forms, without the final
//                                                               synchronization
//
// Without an allocator, a scan's temporary storage is kept by spscan between calls, stream-ordered
// (<spscan/temporary_storage.h>); with one, it comes from the allocator, as in Thrust.
//
// `alloc` is held by reference when it is an lvalue, by value otherwise, as in Thrust. Calls made
// from device code run sequentially, as Thrust's do.
#pragma once

#include <spscan/detail/par.inl>

namespace spscan
{

_CCCL_GLOBAL_CONSTANT detail::scan_routing::par_t par{};
_CCCL_GLOBAL_CONSTANT detail::scan_routing::par_nosync_t par_nosync{};

} // namespace spscan

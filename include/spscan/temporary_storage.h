// The temporary storage spscan keeps between calls.
//
// A scan of more than one tile needs a little device memory for its tile states (16 bytes per
// tile). Where the caller gives no allocator (no policy, thrust::device, thrust::cuda::par,
// par_nosync, spscan::par, spscan::par_nosync, each with .on(stream)), spscan keeps that memory
// per device and stream between calls instead of allocating and freeing it on every call; a
// caller's allocator (`par(alloc)`) gets every request instead, and nothing is kept. A selection
// (copy_if, remove_copy_if, partition_copy) leaves its count in a slot of pinned host memory, which
// is kept per device for every policy.
//
// What is kept is freed at exit, and dropped (by the driver) with its context at cudaDeviceReset.
// release_temporary_storage() frees it now: to give the memory back, or before a cudaDeviceReset
// in a program checked by compute-sanitizer's leak check, which counts memory still allocated at
// a reset as leaked.
#pragma once

#include <spscan/detail/common/host_result.h>
#include <spscan/detail/common/temporary_storage.h>

namespace spscan
{

// Waits for the current device to finish its work, then frees the temporary storage spscan keeps
// for it, and its pinned count slots where no call holds one. Later calls take new storage as needed. Throws thrust::system_error if the device
// cannot be queried.
inline void release_temporary_storage()
{
  detail::storage_cache::release_idle_blocks();
  detail::host_result_slot::release_idle_pages();
}

} // namespace spscan

// Scans of an array sharded over GPUs: shard r is a device range on the GPU of rank r, in array
// order, and the ranks exchange through NCCL (link with -lnccl).
//
// Each rank reduces its shard to its total, the totals are all-gathered (one ncclAllGather of a
// few bytes per rank), and each rank scans its shard with spscan's single-pass scan, starting
// from the fold of the totals before it (and the init). A shard is read twice and written once.
// The association depends on the shard layout and the tile shape only, so results are
// reproducible for a fixed layout; integer results equal the scan of the concatenation bit for
// bit. `binary_op` must be associative, not commutative. The accumulator is Thrust's (the input's
// value type for inclusive scans, the init's type for exclusive ones), trivially copyable and at
// most 32 bytes.
//
// Two ways to call them:
//  - one rank per process or host thread (the NCCL way): every rank of `comm` calls with its own
//    shard, on its communicator's device, with any CUDA policy (thrust::device,
//    thrust::cuda::par[_nosync][.on(stream)], spscan::par, par(alloc) ...). It synchronizes
//    unless the policy is a nosync one; the NCCL call is on the policy's stream.
//  - the whole array from one host thread: a spscan::shard_communicator (over devices, spscan's
//    NCCL communicators, or over the caller's communicators), one shard and one result iterator
//    per rank; it returns when every shard is scanned.
// Results may be written in place (result == first).
#pragma once

#include <spscan/detail/sharded/sharded_scan.inl>

#include <thrust/functional.h>

#include <nccl.h>

#include <vector>

namespace spscan
{

// Shard r of a sharded array: a range on the device of rank r.
template <class Iterator>
using shard = detail::shard_range<Iterator>;

// ---- one rank's call -----------------------------------------------------------------------------

template <class Derived, class InputIt, class OutputIt, class BinaryOp>
OutputIt sharded_inclusive_scan(ncclComm_t comm, const thrust::detail::execution_policy_base<Derived>& policy,
                                InputIt first, InputIt last, OutputIt result, BinaryOp binary_op)
{
  static_assert(detail::is_cuda_policy<Derived>, "spscan: a sharded scan runs on a CUDA execution policy");
  return detail::scan_this_shard<detail::scan_kind::inclusive, detail::inclusive_accumulator<InputIt>>(
    comm, detail::derived_policy(policy), first, last, result, binary_op, detail::inclusive_accumulator<InputIt>{});
}

template <class Derived, class InputIt, class OutputIt>
OutputIt sharded_inclusive_scan(ncclComm_t comm, const thrust::detail::execution_policy_base<Derived>& policy,
                                InputIt first, InputIt last, OutputIt result)
{
  return sharded_inclusive_scan(comm, policy, first, last, result, detail::default_plus{});
}

template <class Derived, class InputIt, class OutputIt, class T, class BinaryOp>
OutputIt sharded_exclusive_scan(ncclComm_t comm, const thrust::detail::execution_policy_base<Derived>& policy,
                                InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  static_assert(detail::is_cuda_policy<Derived>, "spscan: a sharded scan runs on a CUDA execution policy");
  return detail::scan_this_shard<detail::scan_kind::exclusive, T>(
    comm, detail::derived_policy(policy), first, last, result, binary_op, init);
}

template <class Derived, class InputIt, class OutputIt, class T>
OutputIt sharded_exclusive_scan(ncclComm_t comm, const thrust::detail::execution_policy_base<Derived>& policy,
                                InputIt first, InputIt last, OutputIt result, T init)
{
  return sharded_exclusive_scan(comm, policy, first, last, result, init, detail::default_plus{});
}

// ---- the whole array from one host thread -------------------------------------------------------

template <class InputIt, class OutputIt, class BinaryOp>
void sharded_inclusive_scan(const shard_communicator& group, const std::vector<shard<InputIt>>& shards,
                            const std::vector<OutputIt>& results, BinaryOp binary_op)
{
  using accum = detail::inclusive_accumulator<InputIt>;
  detail::scan_all_shards<detail::scan_kind::inclusive, accum>(group, shards, results, binary_op, accum{});
}

template <class InputIt, class OutputIt>
void sharded_inclusive_scan(const shard_communicator& group, const std::vector<shard<InputIt>>& shards,
                            const std::vector<OutputIt>& results)
{
  sharded_inclusive_scan(group, shards, results, detail::default_plus{});
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
void sharded_exclusive_scan(const shard_communicator& group, const std::vector<shard<InputIt>>& shards,
                            const std::vector<OutputIt>& results, T init, BinaryOp binary_op)
{
  detail::scan_all_shards<detail::scan_kind::exclusive, T>(group, shards, results, binary_op, init);
}

template <class InputIt, class OutputIt, class T>
void sharded_exclusive_scan(const shard_communicator& group, const std::vector<shard<InputIt>>& shards,
                            const std::vector<OutputIt>& results, T init)
{
  sharded_exclusive_scan(group, shards, results, init, detail::default_plus{});
}

} // namespace spscan

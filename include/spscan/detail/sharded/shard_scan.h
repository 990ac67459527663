// One rank's part of a sharded scan, in the three steps that the other ranks meet in between:
//  1. reduce(): the shard's total into this rank's slot of the totals (programs/reduce_program.h);
//     the last rank skips it, since no rank starts from its total.
//  2. the exchange of the slots (nccl_exchange.h, or copies where the ranks share one GPU);
//  3. scan(): the shard's start value from the totals before it (shard_prefix.h), then the
//     shard's single-pass scan from that value, read by its first tile from device memory.
// Everything runs on the policy's stream in stream order; only the scan's end synchronizes, as
// the policy says. Memory traffic: the shard is read twice and written once.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/temporary_storage.h>
#include <spscan/detail/programs/reduce_program.h>
#include <spscan/detail/programs/scan_plan.h>
#include <spscan/detail/route.h>
#include <spscan/detail/sharded/shard_prefix.h>
#include <spscan/detail/thrust_bridge.h>

#include <cstdint>

namespace spscan::detail
{

// Kind: scan_kind::inclusive (no init) or scan_kind::exclusive.
template <scan_kind Kind, class Accum, class Derived, class InputIt, class OutputIt, class Op>
class shard_scan
{
  static_assert(Kind == scan_kind::inclusive || Kind == scan_kind::exclusive);
  static_assert(kernel_accepts<Accum>,
                "spscan: a sharded scan's accumulator must be trivially copyable and at most 32 bytes (route.h), "
                "since the shard totals travel between GPUs as bytes");

public:
  using total = shard_total<Accum>;
  static constexpr std::size_t slot_bytes = sizeof(total); // a multiple of 16 (scan_program.h)
  static_assert(slot_bytes % 16 == 0);

  shard_scan(cuda_policy<Derived>& policy, int rank, int ranks, InputIt first, std::size_t n, OutputIt result, Op op, Accum init)
      : policy_(policy)
      , rank_(rank)
      , ranks_(ranks)
      , first_(first)
      , n_(n)
      , result_(result)
      , op_(op)
      , init_(init)
      , storage_(policy, storage_bytes(ranks, n))
  {}

  // The gathered totals, slot r for rank r (slot_bytes each); this rank's is filled by reduce().
  void* slots() const
  {
    return storage_.data();
  }
  void* own_slot() const
  {
    return slot(rank_);
  }

  void reduce()
  {
    const cudaStream_t stream = stream_of(policy_);
    auto* mine                = static_cast<total*>(own_slot());
    const bool needed         = rank_ + 1 < ranks_ && n_ > 0;
    // Every slot starts cleared (nothing uninitialized travels), and `present` is nonzero where
    // the shard has a total (the second memset writes 0x01 to each of its bytes).
    throw_if_failed(cudaMemsetAsync(slots(), 0, slots_bytes(ranks_), stream), "spscan: clearing the shard totals failed");
    if (needed)
    {
      throw_if_failed(cudaMemsetAsync(&mine->present, 1, sizeof(mine->present), stream),
                      "spscan: marking the shard total failed");
      reduce_on_device<Accum>(stream, first_, n_, op_, &mine->value, scratch());
    }
  }

  OutputIt scan()
  {
    if (rank_ == 0 || n_ == 0)
    { // nothing before it, or nothing to scan: the scan of one GPU, with the init where it has one
      return scan_on_device<Kind, Accum>(policy_, first_, n_, result_, op_, init_);
    }
    const cudaStream_t stream = stream_of(policy_);
    auto* start               = static_cast<total*>(start_slot());
    const total given{init_, Kind == scan_kind::exclusive ? 1u : 0u};
    shard_start_kernel<<<1, 1, 0, stream>>>(static_cast<const total*>(slots()), rank_, op_, given, start);
    throw_if_failed(cudaGetLastError(), "spscan: kernel launch failed");
    constexpr scan_kind from_start = Kind == scan_kind::exclusive ? scan_kind::exclusive : scan_kind::inclusive_init;
    return scan_on_device<from_start, Accum>(policy_, first_, n_, result_, op_, device_initial_value<Accum>{start});
  }

private:
  static constexpr std::size_t align(std::size_t bytes)
  {
    return (bytes + 15) / 16 * 16;
  }
  static std::size_t slots_bytes(int ranks)
  {
    return align(static_cast<std::size_t>(ranks) * slot_bytes);
  }
  static std::size_t storage_bytes(int ranks, std::size_t n)
  {
    return slots_bytes(ranks) + align(slot_bytes) + (n > 0 ? reduce_scratch_bytes<Accum, InputIt>(n) : 0);
  }
  void* slot(int r) const
  {
    return static_cast<unsigned char*>(storage_.data()) + static_cast<std::size_t>(r) * slot_bytes;
  }
  void* start_slot() const
  {
    return static_cast<unsigned char*>(storage_.data()) + slots_bytes(ranks_);
  }
  void* scratch() const
  {
    return static_cast<unsigned char*>(start_slot()) + align(slot_bytes);
  }

  cuda_policy<Derived>& policy_;
  int rank_;
  int ranks_;
  InputIt first_;
  std::size_t n_;
  OutputIt result_;
  Op op_;
  Accum init_;
  call_storage<Derived> storage_;
};

} // namespace spscan::detail

// The sharded scans: one rank's call (shard_scan.h's three steps around one NCCL all-gather), and
// the whole array's call from one host thread (every rank's step 1, the all-gathers as one NCCL
// group, every rank's step 3, then a wait for all).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/sharded/nccl_exchange.h>
#include <spscan/detail/sharded/shard_communicator.h>
#include <spscan/detail/sharded/shard_scan.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/distance.h>
#include <thrust/execution_policy.h>

#include <optional>
#include <stdexcept>
#include <vector>

namespace spscan::detail
{

// Makes `device` current for its lifetime, then restores the caller's.
class current_device_scope
{
public:
  explicit current_device_scope(int device)
  {
    throw_if_failed(cudaGetDevice(&previous_), "spscan: cudaGetDevice failed");
    throw_if_failed(cudaSetDevice(device), "spscan: cudaSetDevice failed");
  }
  ~current_device_scope()
  {
    cudaSetDevice(previous_);
  }
  current_device_scope(const current_device_scope&)            = delete;
  current_device_scope& operator=(const current_device_scope&) = delete;

private:
  int previous_ = 0;
};

template <class InputIt>
std::size_t shard_size(InputIt first, InputIt last)
{
  const auto n = iterator_distance(first, last);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

// One rank's call: collective over `comm`, on the current device, which must be comm's.
template <scan_kind Kind, class Accum, class Derived, class InputIt, class OutputIt, class Op>
OutputIt scan_this_shard(ncclComm_t comm, cuda_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, Op op, Accum init)
{
  const nccl_rank place = rank_in(comm);
  int comm_device = 0, current = 0;
  throw_if_nccl_failed(ncclCommCuDevice(comm, &comm_device), "spscan: ncclCommCuDevice failed");
  throw_if_failed(cudaGetDevice(&current), "spscan: cudaGetDevice failed");
  if (comm_device != current)
  {
    throw std::invalid_argument("spscan: a sharded scan runs on its communicator's device; make it current first");
  }
  using rank_scan = shard_scan<Kind, Accum, Derived, InputIt, OutputIt, Op>;
  rank_scan scan(policy, place.rank, place.ranks, first, shard_size(first, last), result, op, init);
  scan.reduce();
  all_gather_slots(comm, scan.slots(), rank_scan::slot_bytes, place.rank, stream_of(policy));
  return scan.scan();
}

template <class Iterator>
struct shard_range
{
  Iterator first;
  Iterator last;
};

// The whole array's call from one host thread; blocks until every shard is scanned.
template <scan_kind Kind, class Accum, class InputIt, class OutputIt, class Op>
void scan_all_shards(const shard_communicator& group,
                     const std::vector<shard_range<InputIt>>& shards,
                     const std::vector<OutputIt>& results,
                     Op op,
                     Accum init)
{
  const int ranks = group.size();
  if (shards.size() != static_cast<std::size_t>(ranks) || results.size() != shards.size())
  {
    throw std::invalid_argument("spscan: a sharded scan takes one shard and one result per rank of its communicator");
  }
  using policy    = thrust::cuda_cub::execute_on_stream_nosync;
  using rank_scan = shard_scan<Kind, Accum, policy, InputIt, OutputIt, Op>;
  std::vector<policy> policies;
  for (int r = 0; r < ranks; ++r)
  {
    policies.push_back(thrust::cuda::par_nosync.on(group.stream(r)));
  }
  std::vector<std::optional<rank_scan>> steps(static_cast<std::size_t>(ranks));
  struct release_on_its_device
  { // a rank's storage goes back on its own device, also where a step throws
    const shard_communicator& group;
    std::vector<std::optional<rank_scan>>& steps;
    ~release_on_its_device()
    { // no throwing here: this may run while an exception unwinds
      int previous = 0;
      cudaGetDevice(&previous);
      for (std::size_t r = 0; r < steps.size(); ++r)
      {
        if (steps[r])
        {
          cudaSetDevice(group.device(static_cast<int>(r)));
          steps[r].reset();
        }
      }
      cudaSetDevice(previous);
    }
  } release{group, steps};

  for (int r = 0; r < ranks; ++r)
  {
    const auto& s = shards[static_cast<std::size_t>(r)];
    current_device_scope on(group.device(r));
    auto& step = steps[static_cast<std::size_t>(r)];
    step.emplace(policies[static_cast<std::size_t>(r)], r, ranks, s.first, shard_size(s.first, s.last),
                 results[static_cast<std::size_t>(r)], op, init);
    step->reduce();
  }
  if (group.one_device())
  { // one stream: each rank's copy of every total comes after every reduction
    current_device_scope on(group.device(0));
    for (int r = 1; r < ranks; ++r)
    {
      for (int j = 0; j < r; ++j)
      {
        void* to = static_cast<unsigned char*>(steps[static_cast<std::size_t>(r)]->slots()) + j * rank_scan::slot_bytes;
        throw_if_failed(cudaMemcpyAsync(to, steps[static_cast<std::size_t>(j)]->own_slot(), rank_scan::slot_bytes,
                                        cudaMemcpyDeviceToDevice, group.stream(r)),
                        "spscan: copying a shard total failed");
      }
    }
  }
  else
  {
    throw_if_nccl_failed(ncclGroupStart(), "spscan: ncclGroupStart failed");
    ncclResult_t gathered = ncclSuccess;
    for (int r = 0; r < ranks && gathered == ncclSuccess; ++r)
    {
      auto& step = steps[static_cast<std::size_t>(r)];
      auto* slots = static_cast<unsigned char*>(step->slots());
      gathered    = ncclAllGather(slots + r * rank_scan::slot_bytes, slots, rank_scan::slot_bytes, ncclUint8,
                               group.comm(r), group.stream(r));
    }
    const ncclResult_t ended = ncclGroupEnd();
    throw_if_nccl_failed(gathered, "spscan: ncclAllGather of the shard totals failed");
    throw_if_nccl_failed(ended, "spscan: ncclGroupEnd failed");
  }
  for (int r = 0; r < ranks; ++r)
  {
    current_device_scope on(group.device(r));
    steps[static_cast<std::size_t>(r)]->scan();
  }
  for (int r = 0; r < ranks; ++r)
  {
    current_device_scope on(group.device(r));
    throw_if_failed(cudaStreamSynchronize(group.stream(r)), "spscan: sharded scan failed");
  }
}

} // namespace spscan::detail

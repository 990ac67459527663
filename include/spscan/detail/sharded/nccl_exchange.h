// How the ranks of a sharded scan exchange their totals: one all-gather through NCCL on the rank's
// stream, in place (rank r's total already sits at slot r of the gathered array). NCCL's errors
// become thrust::system_error, as CUDA's do, in a category of their own.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/system/error_code.h>
#include <thrust/system_error.h>

#include <nccl.h>

#include <string>

namespace spscan::detail
{

class nccl_error_category : public thrust::error_category
{
public:
  const char* name() const noexcept override
  {
    return "nccl";
  }
  std::string message(int status) const override
  {
    return ncclGetErrorString(static_cast<ncclResult_t>(status));
  }
};

inline const thrust::error_category& nccl_category()
{
  static const nccl_error_category category;
  return category;
}

inline void throw_if_nccl_failed(ncclResult_t status, const char* what)
{
  if (status != ncclSuccess)
  {
    throw thrust::system_error(static_cast<int>(status), nccl_category(), what);
  }
}

// The communicator's size and this rank's place in it.
struct nccl_rank
{
  int rank;
  int ranks;
};

inline nccl_rank rank_in(ncclComm_t comm)
{
  nccl_rank r{};
  throw_if_nccl_failed(ncclCommUserRank(comm, &r.rank), "spscan: ncclCommUserRank failed");
  throw_if_nccl_failed(ncclCommCount(comm, &r.ranks), "spscan: ncclCommCount failed");
  return r;
}

// Gathers every rank's `slot_bytes` (at slots + rank * slot_bytes) into `slots` on every rank.
inline void all_gather_slots(ncclComm_t comm, void* slots, std::size_t slot_bytes, int rank, cudaStream_t stream)
{
  auto* bytes = static_cast<unsigned char*>(slots);
  throw_if_nccl_failed(ncclAllGather(bytes + static_cast<std::size_t>(rank) * slot_bytes, bytes, slot_bytes, ncclUint8, comm, stream),
                       "spscan: ncclAllGather of the shard totals failed");
}

} // namespace spscan::detail

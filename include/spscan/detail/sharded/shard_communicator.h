// The ranks of a sharded array driven from one host thread: rank r's GPU, its NCCL communicator
// and a stream of spscan's on that GPU.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/sharded/nccl_exchange.h>
#include <spscan/detail/thrust_bridge.h>

#include <nccl.h>

#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace spscan
{

class shard_communicator
{
public:
  // One rank per entry, in array order. Distinct devices: spscan creates one NCCL communicator
  // per device (ncclCommInitAll) and destroys them with this object. The same device in every
  // entry: several shards of one GPU, whose totals travel through its memory (NCCL allows one
  // rank per GPU in a communicator). Any other repetition is an std::invalid_argument.
  explicit shard_communicator(std::vector<int> devices)
      : devices_(std::move(devices))
      , owns_comms_(true)
  {
    if (devices_.empty())
    {
      throw std::invalid_argument("spscan::shard_communicator: no devices");
    }
    check_layout();
    if (!one_device())
    {
      comms_.resize(devices_.size());
      const ncclResult_t made = ncclCommInitAll(comms_.data(), size(), devices_.data());
      if (made != ncclSuccess)
      {
        comms_.clear();
        detail::throw_if_nccl_failed(made, "spscan::shard_communicator: ncclCommInitAll failed");
      }
    }
    make_streams_or_release();
  }

  // shard_communicator({0, 1}), shard_communicator({0, 0, 0}): devices (a list of zeros would
  // otherwise also read as null communicators).
  explicit shard_communicator(std::initializer_list<int> devices)
      : shard_communicator(std::vector<int>(devices))
  {}

  // The caller's communicators, rank r's at index r, one process driving them all; they stay the
  // caller's (not destroyed here). Each rank's device is its communicator's.
  explicit shard_communicator(const std::vector<ncclComm_t>& comms)
      : comms_(comms)
      , owns_comms_(false)
  {
    if (comms_.empty())
    {
      throw std::invalid_argument("spscan::shard_communicator: no communicators");
    }
    for (std::size_t r = 0; r < comms_.size(); ++r)
    {
      const detail::nccl_rank place = detail::rank_in(comms_[r]);
      if (place.rank != static_cast<int>(r) || place.ranks != size())
      {
        throw std::invalid_argument("spscan::shard_communicator: communicator r must be rank r of all of them");
      }
      int device = 0;
      detail::throw_if_nccl_failed(ncclCommCuDevice(comms_[r], &device), "spscan: ncclCommCuDevice failed");
      devices_.push_back(device);
    }
    check_layout();
    make_streams_or_release();
  }

  shard_communicator(const shard_communicator&)            = delete;
  shard_communicator& operator=(const shard_communicator&) = delete;

  ~shard_communicator()
  {
    release();
  }

  int size() const
  {
    return static_cast<int>(devices_.size());
  }
  int device(int rank) const
  {
    return devices_[static_cast<std::size_t>(rank)];
  }
  // Whether every rank is on one GPU (then there are no NCCL communicators).
  bool one_device() const
  {
    for (int d : devices_)
    {
      if (d != devices_.front())
      {
        return false;
      }
    }
    return true;
  }
  ncclComm_t comm(int rank) const
  {
    return comms_.empty() ? nullptr : comms_[static_cast<std::size_t>(rank)];
  }
  // The stream rank r's work runs on (one stream for all where they share a GPU).
  cudaStream_t stream(int rank) const
  {
    return streams_[one_device() ? 0 : static_cast<std::size_t>(rank)];
  }

private:
  // Destroys the streams, and the communicators where they are spscan's.
  void release() noexcept
  {
    int current = 0;
    cudaGetDevice(&current);
    for (std::size_t r = 0; r < streams_.size(); ++r)
    {
      cudaSetDevice(devices_[r]);
      cudaStreamDestroy(streams_[r]);
    }
    if (owns_comms_)
    {
      for (ncclComm_t comm : comms_)
      {
        ncclCommDestroy(comm);
      }
    }
    cudaSetDevice(current);
  }

  // The streams; where making one fails, what was made so far is released before the error.
  void make_streams_or_release()
  {
    try
    {
      make_streams();
    }
    catch (...)
    {
      release();
      throw;
    }
  }

  void check_layout() const
  {
    if (one_device())
    {
      return;
    }
    for (std::size_t i = 0; i < devices_.size(); ++i)
    {
      for (std::size_t j = i + 1; j < devices_.size(); ++j)
      {
        if (devices_[i] == devices_[j])
        {
          throw std::invalid_argument(
            "spscan::shard_communicator: a device appears twice; shards share a GPU only where all of them do");
        }
      }
    }
  }

  void make_streams()
  {
    int current = 0;
    detail::throw_if_failed(cudaGetDevice(&current), "spscan: cudaGetDevice failed");
    const std::size_t count = one_device() ? 1 : devices_.size();
    cudaError_t status      = cudaSuccess;
    for (std::size_t r = 0; r < count && status == cudaSuccess; ++r)
    {
      cudaStream_t stream = nullptr;
      status              = cudaSetDevice(devices_[r]);
      if (status == cudaSuccess)
      {
        status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      }
      if (status == cudaSuccess)
      {
        streams_.push_back(stream);
      }
    }
    cudaSetDevice(current); // the caller's device again, whatever happened
    detail::throw_if_failed(status, "spscan::shard_communicator: making a stream on a rank's device failed");
  }

  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  bool owns_comms_;
  std::vector<cudaStream_t> streams_;
};

} // namespace spscan

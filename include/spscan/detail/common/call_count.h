// The count a call returns to the host (a selection's, unique_count's): its kernels write it to
// `address()`, a host result slot where one can be had (common/host_result.h), else the call's
// device memory; read() waits for the stream and returns it.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/host_result.h>
#include <spscan/detail/common/temporary_storage.h>
#include <spscan/detail/thrust_bridge.h>

#include <cstdint>
#include <optional>

namespace spscan::detail
{

template <class Derived>
class call_count
{
public:
  explicit call_count(cuda_policy<Derived>& policy)
      : stream_(stream_of(policy))
      , on_host_(host_result_slot::take())
  {
    if (!on_host_)
    {
      on_device_.emplace(policy, sizeof(std::uint64_t));
    }
  }

  std::uint64_t* address() const
  {
    return on_host_ ? on_host_.address() : static_cast<std::uint64_t*>(on_device_->data());
  }

  // `what`: the call, for the error message.
  std::uint64_t read(const char* what) const
  {
    std::uint64_t count = 0;
    if (!on_host_)
    {
      throw_if_failed(cudaMemcpyAsync(&count, address(), sizeof(count), cudaMemcpyDeviceToHost, stream_),
                      "spscan: reading a call's count failed");
    }
    throw_if_failed(cudaStreamSynchronize(stream_), what);
    return on_host_ ? on_host_.read() : count;
  }

private:
  cudaStream_t stream_;
  host_result_slot on_host_;
  std::optional<call_storage<Derived>> on_device_;
};

} // namespace spscan::detail

// The types behind spscan::par and spscan::par_nosync: Thrust CUDA execution policies that keep
// the stream, allocator and synchronization behaviour of thrust::cuda::par / par_nosync and
// differ from them only in the namespace they live in.
//
// Thrust's entry points call their backend unqualified with the derived policy first, so
// argument-dependent lookup searches this namespace and finds the overloads of par.inl (the scans
// and the selections);
// every other algorithm reaches Thrust's CUDA backend through the base class, unchanged.
// Because every Thrust call made with an spscan policy searches this namespace, it holds only
// what such calls are meant to find: the policy types, their hidden friends, the nosync
// temporary-buffer customization and those overloads. Helpers live in spscan::detail.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/pair.h>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

namespace spscan::detail::scan_routing
{

// Root of every spscan policy. The extra level between the concrete policy and Thrust's CUDA
// policy is what makes spscan's scan overloads (which take this type) better matches than the
// CUDA backend's (which take thrust::cuda_cub::execution_policy<Derived>).
template <class Derived>
struct execution_policy : cuda_policy<Derived>
{};

// A policy bound to a stream. `Synchronizes` is false for the par_nosync family: calls may
// return before their work is done. CRTP, because par(alloc) builds on it (Thrust's
// execute_with_allocator derives from Base<itself>).
template <class Derived, bool Synchronizes>
class stream_policy : public execution_policy<Derived>
{
public:
  _CCCL_EXEC_CHECK_DISABLE
  SPSCAN_HOST_DEVICE stream_policy(cudaStream_t stream = default_stream())
      : stream_(stream)
  {}

  // The same policy, allocator included, on another stream.
  __host__ Derived on(const cudaStream_t& stream) const
  {
    Derived moved                               = static_cast<const Derived&>(*this);
    static_cast<stream_policy&>(moved).stream_ = stream;
    return moved;
  }

private:
  cudaStream_t stream_;

  // Thrust's CUDA backend asks for these unqualified with the derived policy.
  friend SPSCAN_HOST_DEVICE cudaStream_t get_stream(const stream_policy& policy)
  {
    return policy.stream_;
  }

  friend SPSCAN_HOST_DEVICE bool must_perform_optional_stream_synchronization(const stream_policy&)
  {
    return Synchronizes;
  }
};

// One-parameter names, as allocator_aware_policy (Thrust's mix-in) expects them.
template <class Derived>
using synchronizing_stream_policy = stream_policy<Derived, true>;

template <class Derived>
using nonsynchronizing_stream_policy = stream_policy<Derived, false>;

// What par.on(s) and par_nosync.on(s) return.
template <bool Synchronizes>
struct on_stream : stream_policy<on_stream<Synchronizes>, Synchronizes>
{
  using stream_policy<on_stream<Synchronizes>, Synchronizes>::stream_policy;
};

// spscan::par: the default stream, synchronizing; par(alloc) takes temporary storage through
// `alloc` (by reference for an lvalue, as Thrust does).
struct par_t
    : execution_policy<par_t>
    , allocator_aware_policy<synchronizing_stream_policy>
{
  __host__ on_stream<true> on(const cudaStream_t& stream) const
  {
    return on_stream<true>(stream);
  }
};

// spscan::par_nosync: the default stream, no synchronization that correctness does not need.
struct par_nosync_t
    : execution_policy<par_nosync_t>
    , allocator_aware_policy<nonsynchronizing_stream_policy>
{
  __host__ on_stream<false> on(const cudaStream_t& stream) const
  {
    return on_stream<false>(stream);
  }

private:
  friend SPSCAN_HOST_DEVICE bool must_perform_optional_stream_synchronization(const par_nosync_t&)
  {
    return false;
  }
};

#if SPSCAN_DETAIL_THRUST_NOSYNC_IS_STREAM_ORDERED
// Without an allocator, Thrust's par_nosync and par_nosync.on(s) take temporary storage
// stream-ordered (cudaMallocAsync / cudaFreeAsync on their stream) instead of through cudaMalloc /
// cudaFree, which would synchronize. spscan's nosync policies hand each request to Thrust's own
// implementation for the corresponding Thrust policy (thrust_bridge.h), so the two cannot drift.
// (Where Thrust's par_nosync allocates like par, CCCL 2.8, so do spscan's, through the same
// generic path.)
template <class T>
thrust::pair<T*, ::cuda::std::ptrdiff_t> get_temporary_buffer(par_nosync_t&, ::cuda::std::ptrdiff_t n)
{
  return nosync_temporary_buffer<T>(default_stream(), n);
}

template <class Pointer>
void return_temporary_buffer(par_nosync_t&, Pointer p, ::cuda::std::ptrdiff_t n)
{
  return_nosync_temporary_buffer(default_stream(), p, n);
}

template <class T>
thrust::pair<T*, ::cuda::std::ptrdiff_t> get_temporary_buffer(on_stream<false>& policy, ::cuda::std::ptrdiff_t n)
{
  return nosync_temporary_buffer<T>(stream_of(policy), n);
}

template <class Pointer>
void return_temporary_buffer(on_stream<false>& policy, Pointer p, ::cuda::std::ptrdiff_t n)
{
  return_nosync_temporary_buffer(stream_of(policy), p, n);
}
#endif

} // namespace spscan::detail::scan_routing

namespace spscan::detail
{

// True for spscan::par and every policy made from it (.on, (alloc), par_nosync...).
template <class Policy>
constexpr bool is_spscan_policy = ::cuda::std::is_base_of_v<scan_routing::execution_policy<Policy>, Policy>;

// spscan's policies that carry no allocator: par, par_nosync, each with .on(stream).
template <class Policy>
constexpr bool is_spscan_policy_without_allocator =
  ::cuda::std::is_same_v<Policy, scan_routing::par_t> || ::cuda::std::is_same_v<Policy, scan_routing::par_nosync_t>
  || ::cuda::std::is_same_v<Policy, scan_routing::on_stream<true>>
  || ::cuda::std::is_same_v<Policy, scan_routing::on_stream<false>>;

} // namespace spscan::detail

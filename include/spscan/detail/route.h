// The one place that decides where a scan runs: spscan's kernel, or Thrust's own implementation
// called with exactly the caller's arguments.
//
// spscan's kernel serves a call when
//   - the execution policy is a CUDA one (thrust::device, thrust::cuda::par[_nosync][(alloc)]
//     [.on(s)], the CUDA system tag of device iterators, or a policy derived from these), and
//   - it is called from host code, and
//   - the accumulator type is one the kernel holds in registers and shared memory: trivially
//     copy-constructible and destructible, default-constructible, copy-assignable, and at most
//     `max_kernel_accumulator_bytes` bytes.
// Everything else (host/cpp/omp/tbb policies, host iterators, calls from device code, larger or
// non-trivial accumulators) runs Thrust's implementation.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/device_scan.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/detail/execution_policy.h>
#include <thrust/distance.h>
#include <thrust/execution_policy.h>

#include <cuda/std/type_traits>

#include <atomic>

#include <nv/target>

namespace spscan::detail
{

constexpr std::size_t max_kernel_accumulator_bytes = 32;

template <class Derived>
constexpr bool is_cuda_policy = ::cuda::std::is_base_of_v<cuda_policy<Derived>, Derived>;

template <class Accum>
constexpr bool kernel_accepts =
  !::cuda::std::is_reference_v<Accum> && ::cuda::std::is_trivially_copy_constructible_v<Accum>
  && ::cuda::std::is_trivially_destructible_v<Accum> && ::cuda::std::is_default_constructible_v<Accum>
  && ::cuda::std::is_copy_assignable_v<Accum> && sizeof(Accum) <= max_kernel_accumulator_bytes;

template <class Derived, class Accum>
constexpr bool runs_on_kernel = is_cuda_policy<Derived> && kernel_accepts<Accum>;

// How many host calls took each route, so that tests can observe the routing itself.
struct route_counters
{
  std::atomic<unsigned long long> kernel{0};
  std::atomic<unsigned long long> thrust{0};
};

inline route_counters& route_stats()
{
  static route_counters counters;
  return counters;
}

// Marks "no initial value" for inclusive scans without init.
struct no_init
{};

template <class Accum, class Init>
Accum initial_accumulator(const Init& init)
{
  if constexpr (::cuda::std::is_same_v<Init, no_init>)
  {
    return Accum{};
  }
  else
  {
    return static_cast<Accum>(init);
  }
}

// Runs the scan of [first, last) on spscan's kernel where it can serve; otherwise calls
// `thrust_scan(policy)`, which calls the Thrust algorithm the user asked for, with the user's
// arguments and the given policy. It is instantiated only for the policies it is called with:
// the caller's own where the kernel cannot serve it, and thrust::seq in device code (what
// Thrust's CUDA backend runs there).
_CCCL_EXEC_CHECK_DISABLE
template <scan_kind Kind, class Accum, class Derived, class InputIt, class OutputIt, class Op, class Init, class ThrustScan>
SPSCAN_HOST_DEVICE OutputIt scan_or_fallback(
  const thrust::detail::execution_policy_base<Derived>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  Op op,
  const Init& init,
  ThrustScan thrust_scan)
{
  if constexpr (runs_on_kernel<Derived, Accum>)
  {
    auto& policy = thrust::detail::derived_cast(thrust::detail::strip_const(exec));
#if defined(__CUDA_ARCH__)
    if (false)
    { // The device pass must see the host-side launch, or it would compile no kernel.
      device_scan<Kind, Accum>(policy, first, thrust::distance(first, last), result, op, initial_accumulator<Accum>(init));
    }
#endif
    NV_IF_TARGET(NV_IS_HOST,
                 (route_stats().kernel.fetch_add(1, std::memory_order_relaxed);
                  return device_scan<Kind, Accum>(
                    policy, first, thrust::distance(first, last), result, op, initial_accumulator<Accum>(init));),
                 (return thrust_scan(thrust::seq);));
  }
  else
  {
    NV_IF_TARGET(NV_IS_HOST, (route_stats().thrust.fetch_add(1, std::memory_order_relaxed);));
    return thrust_scan(exec);
  }
}

// Calls `call(system)` with the system Thrust selects for a call without a policy.
template <class InputIt, class OutputIt, class Call>
decltype(auto) with_iterator_system(Call&& call)
{
  using thrust::system::detail::generic::select_system;
  typename thrust::iterator_system<InputIt>::type input_system;
  typename thrust::iterator_system<OutputIt>::type output_system;
  return call(select_system(input_system, output_system));
}

} // namespace spscan::detail

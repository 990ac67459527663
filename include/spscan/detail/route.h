// The one place that decides whether Thrust or spscan runs a call (planner.h then decides which of
// spscan's engines and tile shapes).
//
//  1. Who serves it (at compile time): Thrust's own dispatch, unchanged, except that where it would
//     run Thrust's CUDA backend, spscan's algorithm runs instead. A user's overload for their
//     policy or retagged system wins exactly as it wins in Thrust; host, cpp, omp and tbb policies,
//     host iterators and every other system run Thrust. spscan's own policies (spscan::par...)
//     always run spscan's algorithm.
//  2. Within spscan's algorithm: its kernel when the call is made from host code and the
//     accumulator is one the kernel holds in registers and shared memory (trivially
//     copy-constructible and destructible, default-constructible, copy-assignable, at most
//     `max_kernel_accumulator_bytes` bytes); otherwise Thrust's CUDA backend with the caller's
//     arguments (which, in device code, scans sequentially, as Thrust does).
//  3. At run time: the engine and tile shape (planner.h).
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/par_policy.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/execution_policy.h>

#include <cuda/std/type_traits>

#include <atomic>

#include <nv/target>

namespace spscan::detail
{

constexpr std::size_t max_kernel_accumulator_bytes = 32;

template <class Accum>
constexpr bool kernel_accepts =
  !::cuda::std::is_reference_v<Accum> && ::cuda::std::is_trivially_copy_constructible_v<Accum>
  && ::cuda::std::is_trivially_destructible_v<Accum> && ::cuda::std::is_default_constructible_v<Accum>
  && ::cuda::std::is_copy_assignable_v<Accum> && sizeof(Accum) <= max_kernel_accumulator_bytes;

// Whether spscan's kernel serves a call that reaches spscan's algorithm with this policy and
// accumulator (from host code).
template <class Derived, class Accum>
constexpr bool runs_on_kernel = is_cuda_policy<Derived> && kernel_accepts<Accum>;

// How many host calls took each route (the kernel, or any Thrust implementation: its CUDA
// backend, a host system, a user's overload), so that tests can observe the routing itself. Each
// call counts once.
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

inline void count_route(std::atomic<unsigned long long> route_counters::* route)
{
  (route_stats().*route).fetch_add(1, std::memory_order_relaxed);
}

// Runs `Algorithm` as `thrust::<algorithm>(policy, args...)` would run, with spscan's algorithm
// (`Algorithm::run`) in place of Thrust's CUDA backend. `Algorithm` names Thrust's entry point
// (`thrust_entry`) and the probe of its dispatch (`thrust_target`, thrust_bridge.h).
_CCCL_EXEC_CHECK_DISABLE
template <class Algorithm, class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) dispatch(Derived& policy, Args&... args)
{
  if constexpr (is_spscan_policy<Derived>)
  {
    return Algorithm::run(policy, args...);
  }
  else if constexpr (thrust_reaches_cuda_backend<Algorithm::template thrust_target, Derived, Args...>)
  {
    return Algorithm::run(policy, args...);
  }
  else
  {
    NV_IF_TARGET(NV_IS_HOST, (count_route(&route_counters::thrust);));
    return Algorithm::thrust_entry(policy, args...);
  }
}

// Thrust's answer to a call made in device code: what its CUDA backend runs there, the sequential
// algorithm, called as that directly (thrust_bridge.h, thrust_cuda_backend) unless the backend
// launches kernels from device code.
_CCCL_EXEC_CHECK_DISABLE
template <class ThrustBackend, class Derived>
SPSCAN_HOST_DEVICE auto thrust_backend_in_device_code(ThrustBackend& thrust_backend, Derived& policy)
{
  if constexpr (thrust_launches_from_device)
  {
    return thrust_backend(policy);
  }
  else
  {
    sequential_policy sequential;
    return thrust_backend(sequential);
  }
}

// spscan's algorithm: `Kernel::launch(policy, args...)` (host code, the kernel) where
// `KernelServes` (2. above), else `thrust_backend(policy)`, Thrust's CUDA backend called with the
// caller's arguments. `thrust_backend` takes the policy as its argument, so that its body is
// instantiated only where it runs: a call the kernel serves compiles none of Thrust's kernels.
_CCCL_EXEC_CHECK_DISABLE
template <class Kernel, bool KernelServes, class ThrustBackend, class Derived, class... Args>
SPSCAN_HOST_DEVICE auto kernel_or_thrust_backend(ThrustBackend thrust_backend, Derived& policy, Args&&... args)
{
  if constexpr (KernelServes)
  {
#if defined(__CUDA_ARCH__)
    if (false)
    { // The device pass must see the host-side launch, or it would compile no kernel.
      Kernel::launch(policy, args...);
    }
#endif
    NV_IF_TARGET(NV_IS_HOST,
                 (count_route(&route_counters::kernel); //
                  return Kernel::launch(policy, args...);),
                 (return thrust_backend_in_device_code(thrust_backend, policy);));
  }
  else
  {
    NV_IF_TARGET(NV_IS_HOST, (count_route(&route_counters::thrust);));
    return thrust_backend(policy);
  }
}

// A kernel route that never serves: the algorithm runs Thrust's CUDA backend wherever Thrust would.
struct thrust_backend_only
{
  template <class Derived, class... Args>
  static constexpr bool serves = false;
};

} // namespace spscan::detail

// The algorithm `name##_algorithm` for dispatch (above): Thrust's entry point thrust::name, the probe
// of its dispatch (thrust_bridge.h), and `run`, where Thrust would run its CUDA backend: the kernel
// route `Kernel` where `Kernel::serves<Derived, Args...>`, else Thrust's CUDA backend.
#define SPSCAN_DETAIL_ROUTED_ALGORITHM(name, Kernel)                                                             \
  struct name##_algorithm                                                                                        \
  {                                                                                                              \
    template <class Policy, class... Args>                                                                       \
    using thrust_target = thrust_dispatch::name##_target<Policy, Args...>;                                       \
                                                                                                                 \
    _CCCL_EXEC_CHECK_DISABLE                                                                                     \
    template <class Policy, class... Args>                                                                       \
    SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)                                    \
    {                                                                                                            \
      return thrust::name(policy, args...);                                                                      \
    }                                                                                                            \
                                                                                                                 \
    _CCCL_EXEC_CHECK_DISABLE                                                                                     \
    template <class Derived, class... Args>                                                                      \
    SPSCAN_HOST_DEVICE static auto run(Derived& policy, Args... args)                                            \
    {                                                                                                            \
      return kernel_or_thrust_backend<Kernel, Kernel::template serves<Derived, Args...>>(                        \
        [&](auto& thrust_policy) {                                                                               \
          return thrust_cuda_backend::name(thrust_policy, args...);                                              \
        },                                                                                                       \
        policy,                                                                                                  \
        args...);                                                                                                \
    }                                                                                                            \
  }

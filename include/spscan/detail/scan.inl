// spscan's inclusive_scan and exclusive_scan: Thrust's overload set, dispatched as Thrust
// dispatches it (route.h). Each algorithm is defined once, here, for spscan's functions and for
// Thrust's entry points called with spscan::par (par.inl).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/programs/scan_plan.h>
#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/distance.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

namespace spscan::detail
{

// A scan's kernel route (route.h): the scan program in the shape the device can launch.
template <scan_kind Kind, class Accum>
struct scan_on_kernel
{
  template <class Derived, class InputIt, class OutputIt, class Op, class Init>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result, Op op, const Init& init)
  {
    return scan_on_device<Kind, Accum>(
      policy, first, iterator_distance(first, last), result, op, initial_accumulator<Accum>(init));
  }
};

// Every scan form ends here: spscan's kernel where it serves the call, else `thrust_backend()`.
_CCCL_EXEC_CHECK_DISABLE
template <scan_kind Kind, class Accum, class Derived, class InputIt, class OutputIt, class Op, class Init, class ThrustBackend>
SPSCAN_HOST_DEVICE OutputIt scan_or_fallback(
  Derived& policy, InputIt first, InputIt last, OutputIt result, Op op, const Init& init, ThrustBackend thrust_backend)
{
  return kernel_or_thrust_backend<scan_on_kernel<Kind, Accum>, runs_on_kernel<Derived, Accum>>(
    thrust_backend, policy, first, last, result, op, init);
}

// inclusive_scan where Thrust would run its CUDA backend. Accumulator: the input's value type, or
// with init what op(init, value) returns (accumulator.h).
struct inclusive_scan_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::inclusive_scan_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::inclusive_scan(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result)
  {
    return run(policy, first, last, result, default_plus{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class Op>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result, Op op)
  {
    return scan_or_fallback<scan_kind::inclusive, inclusive_accumulator<InputIt>>(
      policy, first, last, result, op, no_init{}, [&](auto& thrust_policy) {
        return thrust_cuda_backend::inclusive_scan(thrust_policy, first, last, result, op);
      });
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class T, class Op>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result, T init, Op op)
  {
    return scan_or_fallback<scan_kind::inclusive_init, inclusive_init_accumulator<InputIt, T, Op>>(
      policy, first, last, result, op, init, [&](auto& thrust_policy) {
        return thrust_cuda_backend::inclusive_scan(thrust_policy, first, last, result, init, op);
      });
  }
};

// exclusive_scan where Thrust would run its CUDA backend. Accumulator: the type of init, by
// default the input's value_type{}; op by default thrust::plus<>.
struct exclusive_scan_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::exclusive_scan_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::exclusive_scan(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result)
  {
    return run(policy, first, last, result, value_of<InputIt>{}, default_plus{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class T>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result, T init)
  {
    return run(policy, first, last, result, init, default_plus{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class T, class Op>
  SPSCAN_HOST_DEVICE static OutputIt run(Derived& policy, InputIt first, InputIt last, OutputIt result, T init, Op op)
  {
    return scan_or_fallback<scan_kind::exclusive, exclusive_accumulator<T>>(
      policy, first, last, result, op, init, [&](auto& thrust_policy) {
        return thrust_cuda_backend::exclusive_scan(thrust_policy, first, last, result, init, op);
      });
  }
};

} // namespace spscan::detail

namespace spscan
{

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt
inclusive_scan(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result)
{
  return detail::dispatch<detail::inclusive_scan_algorithm>(detail::derived_policy(exec), first, last, result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, BinaryOp binary_op)
{
  return detail::dispatch<detail::inclusive_scan_algorithm>(detail::derived_policy(exec), first, last, result, binary_op);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  return detail::dispatch<detail::inclusive_scan_algorithm>(
    detail::derived_policy(exec), first, last, result, init, binary_op);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt
exclusive_scan(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result)
{
  return detail::dispatch<detail::exclusive_scan_algorithm>(detail::derived_policy(exec), first, last, result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T>
SPSCAN_HOST_DEVICE OutputIt
exclusive_scan(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, T init)
{
  return detail::dispatch<detail::exclusive_scan_algorithm>(detail::derived_policy(exec), first, last, result, init);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  return detail::dispatch<detail::exclusive_scan_algorithm>(
    detail::derived_policy(exec), first, last, result, init, binary_op);
}

// Without a policy, the system comes from the iterators, as in Thrust.

template <class InputIt, class OutputIt>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::inclusive_scan(system, first, last, result);
}

template <class InputIt, class OutputIt, class BinaryOp>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::inclusive_scan(system, first, last, result, binary_op);
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::inclusive_scan(system, first, last, result, init, binary_op);
}

template <class InputIt, class OutputIt>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::exclusive_scan(system, first, last, result);
}

template <class InputIt, class OutputIt, class T>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result, T init)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::exclusive_scan(system, first, last, result, init);
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::exclusive_scan(system, first, last, result, init, binary_op);
}

} // namespace spscan

// spscan's transform_inclusive_scan and transform_exclusive_scan: a scan of the same
// transform_iterator Thrust's CUDA backend scans, so value types and results match Thrust's.
// Dispatched as Thrust dispatches them (route.h); each algorithm is defined once, here, for
// spscan's functions and for Thrust's entry points called with spscan::par (par.inl).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/route.h>
#include <spscan/detail/scan.inl>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/transform_scan.h>

namespace spscan::detail
{

// transform_inclusive_scan where Thrust would run its CUDA backend: an inclusive scan of the
// transformed values, whose type is what unary_op returns.
struct transform_inclusive_scan_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::transform_inclusive_scan_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::transform_inclusive_scan(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, BinaryOp binary_op)
  {
    using value   = transformed_value<InputIt, UnaryOp>;
    using input_t = transformed_input<InputIt, UnaryOp, value>;
    return scan_or_fallback<scan_kind::inclusive, value>(
      policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, no_init{}, [&](auto& thrust_policy) {
        return thrust_cuda_backend::transform_inclusive_scan(thrust_policy, first, last, result, unary_op, binary_op);
      });
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
  {
    using value   = transformed_value<InputIt, UnaryOp>;
    using input_t = transformed_input<InputIt, UnaryOp, value>;
    using accum   = inclusive_init_accumulator<input_t, T, BinaryOp>;
    return scan_or_fallback<scan_kind::inclusive_init, accum>(
      policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& thrust_policy) {
        return thrust_cuda_backend::transform_inclusive_scan(thrust_policy, first, last, result, unary_op, init, binary_op);
      });
  }
};

// transform_exclusive_scan where Thrust would run its CUDA backend: an exclusive scan of the
// values transformed to the init's type.
struct transform_exclusive_scan_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::transform_exclusive_scan_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::transform_exclusive_scan(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
  {
    using accum   = ::cuda::std::remove_cvref_t<T>;
    using input_t = transformed_input<InputIt, UnaryOp, accum>;
    return scan_or_fallback<scan_kind::exclusive, accum>(
      policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& thrust_policy) {
        return thrust_cuda_backend::transform_exclusive_scan(thrust_policy, first, last, result, unary_op, init, binary_op);
      });
  }
};

} // namespace spscan::detail

namespace spscan
{

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  BinaryOp binary_op)
{
  return detail::dispatch<detail::transform_inclusive_scan_algorithm>(
    detail::derived_policy(exec), first, last, result, unary_op, binary_op);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  T init,
  BinaryOp binary_op)
{
  return detail::dispatch<detail::transform_inclusive_scan_algorithm>(
    detail::derived_policy(exec), first, last, result, unary_op, init, binary_op);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_exclusive_scan(
  const detail::policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  T init,
  BinaryOp binary_op)
{
  return detail::dispatch<detail::transform_exclusive_scan_algorithm>(
    detail::derived_policy(exec), first, last, result, unary_op, init, binary_op);
}

template <class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
OutputIt transform_inclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::transform_inclusive_scan(system, first, last, result, unary_op, binary_op);
}

template <class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
OutputIt
transform_inclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::transform_inclusive_scan(system, first, last, result, unary_op, init, binary_op);
}

template <class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
OutputIt
transform_exclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::transform_exclusive_scan(system, first, last, result, unary_op, init, binary_op);
}

} // namespace spscan

// Thrust's scan entry points called with an spscan policy land here: one overload per form of
// inclusive_scan, exclusive_scan, transform_inclusive_scan and transform_exclusive_scan. Each
// goes through route.h like spscan's own functions: spscan's kernel where it can serve the call,
// otherwise Thrust's implementation.
//
// Every form needs its own overload, not only the widest one: Thrust's entry point for, say,
// exclusive_scan(exec, first, last, result) looks up exactly that arity, and a missing one would
// resolve to Thrust's CUDA backend, which forwards to its other forms by qualified calls that
// never come back here.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/par_policy.h>
#include <spscan/detail/route.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/detail/scan.h>
#include <thrust/system/cuda/detail/transform_scan.h>
#include <thrust/transform_scan.h>

namespace spscan::detail
{

// Thrust's implementation of a scan for the policy route.h falls back with. An spscan policy
// goes straight to Thrust's CUDA backend, seen as the CUDA policy it derives from: through
// Thrust's entry point it would find the overloads below again. Any other policy (thrust::seq,
// in device code) goes through Thrust's entry point.
template <class Derived>
SPSCAN_HOST_DEVICE cuda_policy<Derived>& as_thrust_cuda_policy(const thrust::detail::execution_policy_base<Derived>& policy)
{
  return thrust::detail::derived_cast(thrust::detail::strip_const(policy));
}

struct thrust_inclusive_scan
{
  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE auto operator()(const thrust::detail::execution_policy_base<Derived>& policy, Args... args) const
  {
    if constexpr (is_spscan_policy<Derived>)
    {
      return thrust::cuda_cub::inclusive_scan(as_thrust_cuda_policy(policy), args...);
    }
    else
    {
      return thrust::inclusive_scan(policy, args...);
    }
  }
};

struct thrust_exclusive_scan
{
  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE auto operator()(const thrust::detail::execution_policy_base<Derived>& policy, Args... args) const
  {
    if constexpr (is_spscan_policy<Derived>)
    {
      return thrust::cuda_cub::exclusive_scan(as_thrust_cuda_policy(policy), args...);
    }
    else
    {
      return thrust::exclusive_scan(policy, args...);
    }
  }
};

struct thrust_transform_inclusive_scan
{
  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE auto operator()(const thrust::detail::execution_policy_base<Derived>& policy, Args... args) const
  {
    if constexpr (is_spscan_policy<Derived>)
    {
      return thrust::cuda_cub::transform_inclusive_scan(as_thrust_cuda_policy(policy), args...);
    }
    else
    {
      return thrust::transform_inclusive_scan(policy, args...);
    }
  }
};

struct thrust_transform_exclusive_scan
{
  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE auto operator()(const thrust::detail::execution_policy_base<Derived>& policy, Args... args) const
  {
    if constexpr (is_spscan_policy<Derived>)
    {
      return thrust::cuda_cub::transform_exclusive_scan(as_thrust_cuda_policy(policy), args...);
    }
    else
    {
      return thrust::transform_exclusive_scan(policy, args...);
    }
  }
};

} // namespace spscan::detail

namespace spscan::detail::scan_routing
{

// The accumulator types and transformed inputs are those of spscan's public functions
// (accumulator.h), which are Thrust's.

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt
inclusive_scan(execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result)
{
  using accum = detail::inclusive_accumulator<InputIt>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, accum>(
    policy, first, last, result, thrust::plus<>{}, detail::no_init{}, [&](auto& fallback) {
      return detail::thrust_inclusive_scan{}(fallback, first, last, result);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt
inclusive_scan(execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, BinaryOp binary_op)
{
  using accum = detail::inclusive_accumulator<InputIt>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, accum>(
    policy, first, last, result, binary_op, detail::no_init{}, [&](auto& fallback) {
      return detail::thrust_inclusive_scan{}(fallback, first, last, result, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  using accum = detail::inclusive_init_accumulator<InputIt, T, BinaryOp>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive_init, accum>(
    policy, first, last, result, binary_op, init, [&](auto& fallback) {
      return detail::thrust_inclusive_scan{}(fallback, first, last, result, init, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan(
  execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  using accum = detail::exclusive_accumulator<T>;
  return detail::scan_or_fallback<detail::scan_kind::exclusive, accum>(
    policy, first, last, result, binary_op, init, [&](auto& fallback) {
      return detail::thrust_exclusive_scan{}(fallback, first, last, result, init, binary_op);
    });
}

// Thrust's defaults for the shorter forms: op thrust::plus<>, init the input's value_type{}.
_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class T>
SPSCAN_HOST_DEVICE OutputIt
exclusive_scan(execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, T init)
{
  return scan_routing::exclusive_scan(policy, first, last, result, init, thrust::plus<>{});
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt
exclusive_scan(execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result)
{
  return scan_routing::exclusive_scan(policy, first, last, result, detail::value_of<InputIt>{}, thrust::plus<>{});
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  execution_policy<Derived>& policy, InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, BinaryOp binary_op)
{
  using value   = detail::transformed_value<InputIt, UnaryOp>;
  using input_t = detail::transformed_input<InputIt, UnaryOp, value>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, value>(
    policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, detail::no_init{}, [&](auto& fallback) {
      return detail::thrust_transform_inclusive_scan{}(fallback, first, last, result, unary_op, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  execution_policy<Derived>& policy,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  T init,
  BinaryOp binary_op)
{
  using value   = detail::transformed_value<InputIt, UnaryOp>;
  using input_t = detail::transformed_input<InputIt, UnaryOp, value>;
  using accum   = detail::inclusive_init_accumulator<input_t, T, BinaryOp>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive_init, accum>(
    policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& fallback) {
      return detail::thrust_transform_inclusive_scan{}(fallback, first, last, result, unary_op, init, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_exclusive_scan(
  execution_policy<Derived>& policy,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  T init,
  BinaryOp binary_op)
{
  using accum   = ::cuda::std::remove_cvref_t<T>;
  using input_t = detail::transformed_input<InputIt, UnaryOp, accum>;
  return detail::scan_or_fallback<detail::scan_kind::exclusive, accum>(
    policy, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& fallback) {
      return detail::thrust_transform_exclusive_scan{}(fallback, first, last, result, unary_op, init, binary_op);
    });
}

} // namespace spscan::detail::scan_routing

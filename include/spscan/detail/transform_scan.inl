// spscan's transform_inclusive_scan and transform_exclusive_scan: a scan of the same
// transform_iterator Thrust's CUDA backend scans, so value types and results match Thrust's.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/route.h>

#include <thrust/system/detail/generic/select_system.h>
#include <thrust/transform_scan.h>

namespace spscan
{

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  UnaryOp unary_op,
  BinaryOp binary_op)
{
  using value   = detail::transformed_value<InputIt, UnaryOp>;
  using input_t = detail::transformed_input<InputIt, UnaryOp, value>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, value>(
    exec, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, detail::no_init{}, [&](auto& policy) {
      return thrust::transform_inclusive_scan(policy, first, last, result, unary_op, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_inclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
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
    exec, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& policy) {
      return thrust::transform_inclusive_scan(policy, first, last, result, unary_op, init, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt transform_exclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
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
    exec, input_t(first, unary_op), input_t(last, unary_op), result, binary_op, init, [&](auto& policy) {
      return thrust::transform_exclusive_scan(policy, first, last, result, unary_op, init, binary_op);
    });
}

template <class InputIt, class OutputIt, class UnaryOp, class BinaryOp>
OutputIt transform_inclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::transform_inclusive_scan(system, first, last, result, unary_op, binary_op);
  });
}

template <class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
OutputIt
transform_inclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::transform_inclusive_scan(system, first, last, result, unary_op, init, binary_op);
  });
}

template <class InputIt, class OutputIt, class UnaryOp, class T, class BinaryOp>
OutputIt
transform_exclusive_scan(InputIt first, InputIt last, OutputIt result, UnaryOp unary_op, T init, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::transform_exclusive_scan(system, first, last, result, unary_op, init, binary_op);
  });
}

} // namespace spscan

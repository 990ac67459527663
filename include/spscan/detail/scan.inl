// spscan's inclusive_scan and exclusive_scan: Thrust's overload set, routed by route.h.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/route.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/system/detail/generic/select_system.h>

namespace spscan
{

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result)
{
  using accum = detail::inclusive_accumulator<InputIt>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, accum>(
    exec, first, last, result, thrust::plus<>{}, detail::no_init{}, [&](auto& policy) {
      return thrust::inclusive_scan(policy, first, last, result);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  BinaryOp binary_op)
{
  using accum = detail::inclusive_accumulator<InputIt>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive, accum>(
    exec, first, last, result, binary_op, detail::no_init{}, [&](auto& policy) {
      return thrust::inclusive_scan(policy, first, last, result, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  T init,
  BinaryOp binary_op)
{
  using accum = detail::inclusive_init_accumulator<InputIt, T, BinaryOp>;
  return detail::scan_or_fallback<detail::scan_kind::inclusive_init, accum>(
    exec, first, last, result, binary_op, init, [&](auto& policy) {
      return thrust::inclusive_scan(policy, first, last, result, init, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
  InputIt first,
  InputIt last,
  OutputIt result,
  T init,
  BinaryOp binary_op)
{
  using accum = detail::exclusive_accumulator<T>;
  return detail::scan_or_fallback<detail::scan_kind::exclusive, accum>(
    exec, first, last, result, binary_op, init, [&](auto& policy) {
      return thrust::exclusive_scan(policy, first, last, result, init, binary_op);
    });
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, T init)
{
  return spscan::exclusive_scan(exec, first, last, result, init, thrust::plus<>{});
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan(
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result)
{
  return spscan::exclusive_scan(exec, first, last, result, detail::value_of<InputIt>{});
}

// Without a policy, the system comes from the iterators, as in Thrust.

template <class InputIt, class OutputIt>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::inclusive_scan(system, first, last, result);
  });
}

template <class InputIt, class OutputIt, class BinaryOp>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::inclusive_scan(system, first, last, result, binary_op);
  });
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
OutputIt inclusive_scan(InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::inclusive_scan(system, first, last, result, init, binary_op);
  });
}

template <class InputIt, class OutputIt>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::exclusive_scan(system, first, last, result);
  });
}

template <class InputIt, class OutputIt, class T>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result, T init)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::exclusive_scan(system, first, last, result, init);
  });
}

template <class InputIt, class OutputIt, class T, class BinaryOp>
OutputIt exclusive_scan(InputIt first, InputIt last, OutputIt result, T init, BinaryOp binary_op)
{
  return detail::with_iterator_system<InputIt, OutputIt>([&](auto& system) {
    return spscan::exclusive_scan(system, first, last, result, init, binary_op);
  });
}

} // namespace spscan

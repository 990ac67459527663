// spscan::reduce_by_key: Thrust's overload set (with and without a key predicate and a reduction),
// dispatched as Thrust dispatches it (route.h), so that code swapped to spscan (or passing
// spscan::par) keeps its calls. It runs Thrust's CUDA backend wherever Thrust would: results,
// return values, synchronization and allocation are Thrust's. A single-pass program of its own,
// with the by-key scan's carry across tiles (programs/segment_carry.h), is what would make its
// float results reproducible.
#pragma once

#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

namespace spscan::detail
{

SPSCAN_DETAIL_ROUTED_ALGORITHM(reduce_by_key, thrust_backend_only);

} // namespace spscan::detail

namespace spscan
{

// reduce_by_key: for each run of equal keys (binary_pred; default ==), its first key and the
// reduction (binary_op; default +) of its values, in order; returns the ends of both outputs.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt>
SPSCAN_HOST_DEVICE thrust::pair<KeyOutIt, ValueOutIt> reduce_by_key(const detail::policy_base<DerivedPolicy>& exec,
                                                                     KeyIt keys_first,
                                                                     KeyIt keys_last,
                                                                     ValueIt values_first,
                                                                     KeyOutIt keys_output,
                                                                     ValueOutIt values_output)
{
  return detail::dispatch<detail::reduce_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, keys_output, values_output);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE thrust::pair<KeyOutIt, ValueOutIt> reduce_by_key(const detail::policy_base<DerivedPolicy>& exec,
                                                                     KeyIt keys_first,
                                                                     KeyIt keys_last,
                                                                     ValueIt values_first,
                                                                     KeyOutIt keys_output,
                                                                     ValueOutIt values_output,
                                                                     BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::reduce_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, keys_output, values_output, binary_pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy,
          class KeyIt,
          class ValueIt,
          class KeyOutIt,
          class ValueOutIt,
          class BinaryPredicate,
          class BinaryFunction>
SPSCAN_HOST_DEVICE thrust::pair<KeyOutIt, ValueOutIt> reduce_by_key(const detail::policy_base<DerivedPolicy>& exec,
                                                                     KeyIt keys_first,
                                                                     KeyIt keys_last,
                                                                     ValueIt values_first,
                                                                     KeyOutIt keys_output,
                                                                     ValueOutIt values_output,
                                                                     BinaryPredicate binary_pred,
                                                                     BinaryFunction binary_op)
{
  return detail::dispatch<detail::reduce_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, keys_output, values_output, binary_pred, binary_op);
}

template <class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt>
thrust::pair<KeyOutIt, ValueOutIt>
reduce_by_key(KeyIt keys_first, KeyIt keys_last, ValueIt values_first, KeyOutIt keys_output, ValueOutIt values_output)
{
  detail::iterator_system<KeyIt, ValueIt, KeyOutIt, ValueOutIt> system;
  return spscan::reduce_by_key(system, keys_first, keys_last, values_first, keys_output, values_output);
}

template <class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPredicate>
thrust::pair<KeyOutIt, ValueOutIt> reduce_by_key(KeyIt keys_first,
                                                 KeyIt keys_last,
                                                 ValueIt values_first,
                                                 KeyOutIt keys_output,
                                                 ValueOutIt values_output,
                                                 BinaryPredicate binary_pred)
{
  detail::iterator_system<KeyIt, ValueIt, KeyOutIt, ValueOutIt> system;
  return spscan::reduce_by_key(system, keys_first, keys_last, values_first, keys_output, values_output, binary_pred);
}

template <class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPredicate, class BinaryFunction>
thrust::pair<KeyOutIt, ValueOutIt> reduce_by_key(KeyIt keys_first,
                                                 KeyIt keys_last,
                                                 ValueIt values_first,
                                                 KeyOutIt keys_output,
                                                 ValueOutIt values_output,
                                                 BinaryPredicate binary_pred,
                                                 BinaryFunction binary_op)
{
  detail::iterator_system<KeyIt, ValueIt, KeyOutIt, ValueOutIt> system;
  return spscan::reduce_by_key(
    system, keys_first, keys_last, values_first, keys_output, values_output, binary_pred, binary_op);
}

} // namespace spscan

// spscan::reduce_by_key: Thrust's overload set (with and without a key predicate and a reduction),
// dispatched as Thrust dispatches it (route.h), so that code swapped to spscan (or passing
// spscan::par) keeps its calls. Where Thrust would run its CUDA backend, spscan's single-pass
// program runs where it is the default (reduce_by_key_program_is_default;
// programs/reduce_by_key_program.h): the runs' folds are the by-key scan's, so float results are
// the same bits from run to run and on another GPU of the same tile shape. Keys the kernel cannot
// shuffle and values it cannot hold go to Thrust's CUDA backend.
#pragma once

#include <spscan/detail/programs/reduce_by_key_plan.h>
#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/distance.h>
#include <thrust/functional.h>
#include <thrust/iterator/detail/any_assign.h>
#include <thrust/pair.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

// Thrust's default reduction: plus of the values' output type, or of their input type where the
// output has none (a discard_iterator's).
template <class ValuesIt, class ValuesOutIt>
using default_run_reduction =
  thrust::plus<::cuda::std::conditional_t<::cuda::std::is_void_v<value_of<ValuesOutIt>>
                                             || ::cuda::std::is_same_v<value_of<ValuesOutIt>, thrust::detail::any_assign>,
                                           value_of<ValuesIt>,
                                           value_of<ValuesOutIt>>>;

// Whether reduce_by_key runs its program by default (else Thrust's CUDA backend, through the
// same dispatch): once reduce_by_key_bench measures it at Thrust's speed or better in every cell.
// It is built and tested, reproducible, and trails Thrust's (docs/design.md#reduce-by-key).
constexpr bool reduce_by_key_program_is_default = false;

// reduce_by_key's kernel route (route.h), with Thrust's defaults: == of the keys' type, and
// default_run_reduction. Its accumulator is the values' value type, as Thrust's.
struct reduce_by_key_on_kernel
{
  template <class Derived, class KeysIt, class KeysLast, class ValuesIt, class... Rest>
  static constexpr bool serves = reduce_by_key_program_is_default
                              && runs_on_kernel<Derived, run_carry<value_of<ValuesIt>, std::uint64_t>>
                              && kernel_holds_key<value_of<KeysIt>>;

  template <class Derived, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Pred, class Op>
  static thrust::pair<KeysOutIt, ValuesOutIt> launch(Derived& policy,
                                                     KeysIt keys_first,
                                                     KeysIt keys_last,
                                                     ValuesIt values,
                                                     KeysOutIt keys_out,
                                                     ValuesOutIt values_out,
                                                     Pred pred,
                                                     Op op)
  {
    const auto distance = iterator_distance(keys_first, keys_last);
    const std::size_t n = distance > 0 ? static_cast<std::size_t>(distance) : 0;
    const auto runs =
      reduce_by_key_on_device<value_of<ValuesIt>>(policy, keys_first, n, values, keys_out, values_out, pred, op);
    return thrust::make_pair(keys_out + static_cast<difference_of<KeysOutIt>>(runs),
                             values_out + static_cast<difference_of<ValuesOutIt>>(runs));
  }
  template <class Derived, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Pred>
  static thrust::pair<KeysOutIt, ValuesOutIt> launch(
    Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, KeysOutIt keys_out, ValuesOutIt values_out, Pred pred)
  {
    return launch(
      policy, keys_first, keys_last, values, keys_out, values_out, pred, default_run_reduction<ValuesIt, ValuesOutIt>{});
  }
  template <class Derived, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt>
  static thrust::pair<KeysOutIt, ValuesOutIt>
  launch(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, KeysOutIt keys_out, ValuesOutIt values_out)
  {
    return launch(policy, keys_first, keys_last, values, keys_out, values_out, thrust::equal_to<value_of<KeysIt>>{});
  }
};

SPSCAN_DETAIL_ROUTED_ALGORITHM(reduce_by_key, reduce_by_key_on_kernel);

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

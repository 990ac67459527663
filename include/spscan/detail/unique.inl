// spscan's run heads: unique (in place), unique_copy, unique_count, unique_by_key (in place) and
// unique_by_key_copy, Thrust's overload set dispatched as Thrust dispatches it (route.h). Element i
// heads a run when i is 0 or binary_pred(element i-1, element i) is false, as Thrust's CUDA
// backend defines it. unique_count counts the heads (programs/run_head_count_program.h); the others
// are the selection of the heads (programs/select_program.h, the head test as its stencil), where
// their route is the default (select.inl; else Thrust's CUDA backend). The in-place forms write over
// their input as remove_if does (remove.inl says why that is safe; the one element a tile reads
// below its own input, its predecessor's last, can be written before the tile has read it only by
// the predecessor, with its own value).
#pragma once

#include <spscan/detail/programs/run_head_count_program.h>
#include <spscan/detail/remove.inl>

#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

namespace spscan::detail
{

// The selection's stencil that tests each element for the head of a run
// (programs/select_program.h).
template <class BinaryPred>
run_head_stencil<BinaryPred> run_heads(BinaryPred same_run)
{
  return {same_run};
}

// unique_by_key's runs: of pairs, by their keys.
template <class BinaryPred>
struct same_keys
{
  mutable BinaryPred same_run;

  template <class Pair>
  SPSCAN_HOST_DEVICE bool operator()(const Pair& earlier, const Pair& later) const
  {
    return same_run(thrust::get<0>(earlier), thrust::get<0>(later));
  }
};

struct is_head
{
  SPSCAN_HOST_DEVICE bool operator()(bool head) const
  {
    return head;
  }
};

template <class Iterator>
using equal_values = thrust::equal_to<value_of<Iterator>>;

struct unique_copy_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = run_head_selection_is_default && selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class InputIt, class OutputIt, class BinaryPred>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result, BinaryPred binary_pred)
  {
    return copy_if_on_kernel::launch(policy, first, last, run_heads(binary_pred), result, is_head{});
  }
  template <class Derived, class InputIt, class OutputIt>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result)
  {
    return launch(policy, first, last, result, equal_values<InputIt>{});
  }
};

struct unique_on_kernel
{
  template <class Derived, class ForwardIt, class... Rest>
  static constexpr bool serves = in_place_selection_is_default && selection_runs_on_kernel<Derived, ForwardIt>;

  template <class Derived, class ForwardIt, class... BinaryPred>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, BinaryPred... binary_pred)
  {
    return unique_copy_on_kernel::launch(policy, first, last, first, binary_pred...);
  }
};

// unique_count as a count of the heads (programs/run_head_count_program.h), not a selection.
struct unique_count_on_kernel
{
  template <class Derived, class ForwardIt, class... Rest>
  static constexpr bool serves = run_head_count_is_default && selection_runs_on_kernel<Derived, ForwardIt>;

  template <class Derived, class ForwardIt, class BinaryPred>
  static difference_of<ForwardIt> launch(Derived& policy, ForwardIt first, ForwardIt last, BinaryPred binary_pred)
  {
    return static_cast<difference_of<ForwardIt>>(
      count_run_heads_on_device(policy, first, selection_size(first, last), binary_pred));
  }
  template <class Derived, class ForwardIt>
  static difference_of<ForwardIt> launch(Derived& policy, ForwardIt first, ForwardIt last)
  {
    return launch(policy, first, last, equal_values<ForwardIt>{});
  }
};

// unique_count's algorithm for dispatch (route.h), written out where the others are made by
// SPSCAN_DETAIL_ROUTED_ALGORITHM: Thrust's CUDA backend has only the form with a predicate (its
// generic algorithm supplies ==), so a call without one reaches the CUDA backend exactly where
// the same call with == would, and runs it with ==. A user's overload of the form without a
// predicate still wins through Thrust's entry point.
struct unique_count_algorithm
{
  template <class ForwardIt, class... BinaryPred>
  struct predicate_of
  {
    using type = equal_values<ForwardIt>;
  };
  template <class ForwardIt, class BinaryPred>
  struct predicate_of<ForwardIt, BinaryPred>
  {
    using type = BinaryPred;
  };
  template <class Policy, class ForwardIt, class... BinaryPred>
  using thrust_target = thrust_dispatch::
    unique_count_target<Policy, ForwardIt, ForwardIt, typename predicate_of<ForwardIt, BinaryPred...>::type>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::unique_count(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class ForwardIt, class... BinaryPred>
  SPSCAN_HOST_DEVICE static auto run(Derived& policy, ForwardIt first, ForwardIt last, BinaryPred... binary_pred)
  {
    return kernel_or_thrust_backend<unique_count_on_kernel, unique_count_on_kernel::serves<Derived, ForwardIt>>(
      [&](auto& thrust_policy) {
        if constexpr (sizeof...(BinaryPred) == 0)
        {
          return thrust_cuda_backend::unique_count(thrust_policy, first, last, equal_values<ForwardIt>{});
        }
        else
        {
          return thrust_cuda_backend::unique_count(thrust_policy, first, last, binary_pred...);
        }
      },
      policy,
      first,
      last,
      binary_pred...);
  }
};

// unique_by_key: the keys and values as one sequence of pairs, selected on the keys' heads.
struct unique_by_key_copy_on_kernel
{
  template <class KeyIt, class ValueIt>
  using pairs = thrust::zip_iterator<thrust::tuple<KeyIt, ValueIt>>;

  template <class Derived, class KeyIt, class KeyIt2, class ValueIt, class... Rest>
  static constexpr bool serves =
    run_head_selection_is_default && selection_runs_on_kernel<Derived, pairs<KeyIt, ValueIt>>;

  template <class Derived, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPred>
  static thrust::pair<KeyOutIt, ValueOutIt> launch(Derived& policy,
                                                   KeyIt keys_first,
                                                   KeyIt keys_last,
                                                   ValueIt values_first,
                                                   KeyOutIt keys_result,
                                                   ValueOutIt values_result,
                                                   BinaryPred binary_pred)
  {
    const auto n     = iterator_distance(keys_first, keys_last);
    const auto first = thrust::make_zip_iterator(thrust::make_tuple(keys_first, values_first));
    const auto out   = thrust::make_zip_iterator(thrust::make_tuple(keys_result, values_result));
    const auto end =
      copy_if_on_kernel::launch(policy, first, first + n, run_heads(same_keys<BinaryPred>{binary_pred}), out, is_head{});
    const auto count = end - out;
    return {keys_result + count, values_result + count};
  }
  template <class Derived, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt>
  static thrust::pair<KeyOutIt, ValueOutIt> launch(
    Derived& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first, KeyOutIt keys_result, ValueOutIt values_result)
  {
    return launch(policy, keys_first, keys_last, values_first, keys_result, values_result, equal_values<KeyIt>{});
  }
};

struct unique_by_key_on_kernel
{
  template <class Derived, class KeyIt, class KeyIt2, class ValueIt, class... Rest>
  static constexpr bool serves = unique_by_key_copy_on_kernel::serves<Derived, KeyIt, KeyIt2, ValueIt>;

  template <class Derived, class KeyIt, class ValueIt, class... BinaryPred>
  static thrust::pair<KeyIt, ValueIt>
  launch(Derived& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first, BinaryPred... binary_pred)
  {
    return unique_by_key_copy_on_kernel::launch(
      policy, keys_first, keys_last, values_first, keys_first, values_first, binary_pred...);
  }
};

SPSCAN_DETAIL_ROUTED_ALGORITHM(unique, unique_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(unique_copy, unique_copy_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(unique_by_key, unique_by_key_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(unique_by_key_copy, unique_by_key_copy_on_kernel);

} // namespace spscan::detail

namespace spscan
{

// unique: the first element of each run of equal elements (binary_pred: equality of neighbours;
// default ==), in order, moved to the front of [first, last); returns the end of what is kept.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt>
SPSCAN_HOST_DEVICE ForwardIt unique(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last)
{
  return detail::dispatch<detail::unique_algorithm>(detail::derived_policy(exec), first, last);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE ForwardIt
unique(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::unique_algorithm>(detail::derived_policy(exec), first, last, binary_pred);
}

template <class ForwardIt>
ForwardIt unique(ForwardIt first, ForwardIt last)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::unique(system, first, last);
}

template <class ForwardIt, class BinaryPredicate>
ForwardIt unique(ForwardIt first, ForwardIt last, BinaryPredicate binary_pred)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::unique(system, first, last, binary_pred);
}

// unique_copy: unique's elements written to result; returns the end of the output.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt
unique_copy(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result)
{
  return detail::dispatch<detail::unique_copy_algorithm>(detail::derived_policy(exec), first, last, result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE OutputIt unique_copy(const detail::policy_base<DerivedPolicy>& exec,
                                        InputIt first,
                                        InputIt last,
                                        OutputIt result,
                                        BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::unique_copy_algorithm>(detail::derived_policy(exec), first, last, result, binary_pred);
}

template <class InputIt, class OutputIt>
OutputIt unique_copy(InputIt first, InputIt last, OutputIt result)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::unique_copy(system, first, last, result);
}

template <class InputIt, class OutputIt, class BinaryPredicate>
OutputIt unique_copy(InputIt first, InputIt last, OutputIt result, BinaryPredicate binary_pred)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::unique_copy(system, first, last, result, binary_pred);
}

// unique_count: the number of runs of equal elements (binary_pred: equality of neighbours; default
// ==).

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE detail::difference_of<ForwardIt> unique_count(
  const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::unique_count_algorithm>(detail::derived_policy(exec), first, last, binary_pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt>
SPSCAN_HOST_DEVICE detail::difference_of<ForwardIt>
unique_count(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last)
{
  return detail::dispatch<detail::unique_count_algorithm>(detail::derived_policy(exec), first, last);
}

template <class ForwardIt, class BinaryPredicate>
detail::difference_of<ForwardIt> unique_count(ForwardIt first, ForwardIt last, BinaryPredicate binary_pred)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::unique_count(system, first, last, binary_pred);
}

template <class ForwardIt>
detail::difference_of<ForwardIt> unique_count(ForwardIt first, ForwardIt last)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::unique_count(system, first, last);
}

// unique_by_key: the first key of each run of equal keys and its value, in order, moved to the
// fronts of the keys and the values; returns the ends of both.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt>
SPSCAN_HOST_DEVICE thrust::pair<KeyIt, ValueIt> unique_by_key(
  const detail::policy_base<DerivedPolicy>& exec, KeyIt keys_first, KeyIt keys_last, ValueIt values_first)
{
  return detail::dispatch<detail::unique_by_key_algorithm>(detail::derived_policy(exec), keys_first, keys_last, values_first);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE thrust::pair<KeyIt, ValueIt> unique_by_key(const detail::policy_base<DerivedPolicy>& exec,
                                                               KeyIt keys_first,
                                                               KeyIt keys_last,
                                                               ValueIt values_first,
                                                               BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::unique_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, binary_pred);
}

template <class KeyIt, class ValueIt>
thrust::pair<KeyIt, ValueIt> unique_by_key(KeyIt keys_first, KeyIt keys_last, ValueIt values_first)
{
  detail::iterator_system<KeyIt, ValueIt> system;
  return spscan::unique_by_key(system, keys_first, keys_last, values_first);
}

template <class KeyIt, class ValueIt, class BinaryPredicate>
thrust::pair<KeyIt, ValueIt>
unique_by_key(KeyIt keys_first, KeyIt keys_last, ValueIt values_first, BinaryPredicate binary_pred)
{
  detail::iterator_system<KeyIt, ValueIt> system;
  return spscan::unique_by_key(system, keys_first, keys_last, values_first, binary_pred);
}

// unique_by_key_copy: unique_by_key's keys and values written to keys_result and values_result;
// returns the ends of both outputs.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt>
SPSCAN_HOST_DEVICE thrust::pair<KeyOutIt, ValueOutIt> unique_by_key_copy(const detail::policy_base<DerivedPolicy>& exec,
                                                                          KeyIt keys_first,
                                                                          KeyIt keys_last,
                                                                          ValueIt values_first,
                                                                          KeyOutIt keys_result,
                                                                          ValueOutIt values_result)
{
  return detail::dispatch<detail::unique_by_key_copy_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, keys_result, values_result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPredicate>
SPSCAN_HOST_DEVICE thrust::pair<KeyOutIt, ValueOutIt> unique_by_key_copy(const detail::policy_base<DerivedPolicy>& exec,
                                                                          KeyIt keys_first,
                                                                          KeyIt keys_last,
                                                                          ValueIt values_first,
                                                                          KeyOutIt keys_result,
                                                                          ValueOutIt values_result,
                                                                          BinaryPredicate binary_pred)
{
  return detail::dispatch<detail::unique_by_key_copy_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, keys_result, values_result, binary_pred);
}

template <class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt>
thrust::pair<KeyOutIt, ValueOutIt> unique_by_key_copy(
  KeyIt keys_first, KeyIt keys_last, ValueIt values_first, KeyOutIt keys_result, ValueOutIt values_result)
{
  detail::iterator_system<KeyIt, ValueIt, KeyOutIt, ValueOutIt> system;
  return spscan::unique_by_key_copy(system, keys_first, keys_last, values_first, keys_result, values_result);
}

template <class KeyIt, class ValueIt, class KeyOutIt, class ValueOutIt, class BinaryPredicate>
thrust::pair<KeyOutIt, ValueOutIt> unique_by_key_copy(KeyIt keys_first,
                                                      KeyIt keys_last,
                                                      ValueIt values_first,
                                                      KeyOutIt keys_result,
                                                      ValueOutIt values_result,
                                                      BinaryPredicate binary_pred)
{
  detail::iterator_system<KeyIt, ValueIt, KeyOutIt, ValueOutIt> system;
  return spscan::unique_by_key_copy(system, keys_first, keys_last, values_first, keys_result, values_result, binary_pred);
}

} // namespace spscan

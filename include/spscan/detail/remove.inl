// spscan's removals: remove and remove_if (in place, remove_if with and without a stencil) and
// remove_copy, Thrust's overload set dispatched as Thrust dispatches it (route.h). On the
// selection program (by default: in_place_selection_is_default, select.inl) each is the selection
// of the elements to keep, and remove and remove_if write over their own input, in a single pass.
// That is safe for a stable compaction on the look-back: tile t writes its kept elements to [kept before t, kept before t+1), which lies
// below the end of tile t's input, and it writes only once it has the count of every tile before
// it, which each of those tiles publishes after reading its own input. So an element is never
// overwritten before the tile that reads it has read it (tests/in_place_compaction_model_test.cu
// plays the protocol through, in place).
#pragma once

#include <spscan/detail/select.inl>

namespace spscan::detail
{

// remove's and remove_copy's predicate: the element equals `value` (as Thrust tests it: *i == value).
template <class T>
struct equal_to_value
{
  T value;
  template <class U>
  SPSCAN_HOST_DEVICE bool operator()(const U& x) const
  {
    return x == value;
  }
};

struct remove_if_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = in_place_selection_is_default && selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class ForwardIt, class Pred>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, Pred pred)
  {
    return copy_if_on_kernel::launch(policy, first, last, first, rejected_by<Pred>{pred});
  }
  template <class Derived, class ForwardIt, class StencilIt, class Pred>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, StencilIt stencil, Pred pred)
  {
    return copy_if_on_kernel::launch(policy, first, last, stencil, first, rejected_by<Pred>{pred});
  }
};

struct remove_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = in_place_selection_is_default && selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class ForwardIt, class T>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, const T& value)
  {
    return remove_if_on_kernel::launch(policy, first, last, equal_to_value<T>{value});
  }
};

struct remove_copy_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class InputIt, class OutputIt, class T>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result, const T& value)
  {
    return remove_copy_if_on_kernel::launch(policy, first, last, result, equal_to_value<T>{value});
  }
};

SPSCAN_DETAIL_ROUTED_ALGORITHM(remove, remove_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(remove_if, remove_if_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(remove_copy, remove_copy_on_kernel);

} // namespace spscan::detail

namespace spscan
{

// remove: the elements not equal to value, in order, moved to the front of [first, last); returns
// the end of what is kept.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class T>
SPSCAN_HOST_DEVICE ForwardIt
remove(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, const T& value)
{
  return detail::dispatch<detail::remove_algorithm>(detail::derived_policy(exec), first, last, value);
}

template <class ForwardIt, class T>
ForwardIt remove(ForwardIt first, ForwardIt last, const T& value)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::remove(system, first, last, value);
}

// remove_if: the elements (or those whose stencil element) not satisfying pred, in order, moved to
// the front of [first, last); returns the end of what is kept.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt
remove_if(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, Predicate pred)
{
  return detail::dispatch<detail::remove_if_algorithm>(detail::derived_policy(exec), first, last, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class StencilIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt remove_if(
  const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  return detail::dispatch<detail::remove_if_algorithm>(detail::derived_policy(exec), first, last, stencil, pred);
}

template <class ForwardIt, class Predicate>
ForwardIt remove_if(ForwardIt first, ForwardIt last, Predicate pred)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::remove_if(system, first, last, pred);
}

template <class ForwardIt, class StencilIt, class Predicate>
ForwardIt remove_if(ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  detail::iterator_system<ForwardIt, StencilIt> system;
  return spscan::remove_if(system, first, last, stencil, pred);
}

// remove_copy: the elements not equal to value, in order; returns the end of the output.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class T>
SPSCAN_HOST_DEVICE OutputIt remove_copy(
  const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, const T& value)
{
  return detail::dispatch<detail::remove_copy_algorithm>(detail::derived_policy(exec), first, last, result, value);
}

template <class InputIt, class OutputIt, class T>
OutputIt remove_copy(InputIt first, InputIt last, OutputIt result, const T& value)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::remove_copy(system, first, last, result, value);
}

} // namespace spscan

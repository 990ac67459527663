// spscan's selections: copy_if, remove_copy_if and partition_copy, each with and without a
// stencil, with and without a policy: Thrust's overload set, dispatched as Thrust dispatches it
// (route.h), so that code swapped to spscan (or passing spscan::par) keeps its calls. Where Thrust
// would run its CUDA backend, they run spscan's single-pass selection (programs/select_program.h)
// for every value type the kernel holds (route.h), and Thrust's CUDA backend for the others. The
// selection measures ahead of Thrust's same call at every size and of CUB with its count read back
// (docs/design.md#stream-compaction). Results, return values and synchronization are Thrust's: the
// call waits for its count.
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/programs/select_plan.h>
#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/copy.h>
#include <thrust/distance.h>
#include <thrust/pair.h>
#include <thrust/partition.h>
#include <thrust/remove.h>

#include <nv/target>

namespace spscan::detail
{

// remove_copy_if's selection: what pred rejects.
template <class Pred>
struct rejected_by
{
  Pred pred;
  template <class T>
  SPSCAN_HOST_DEVICE bool operator()(T&& x)
  {
    return !pred(static_cast<T&&>(x));
  }
};

template <class InputIt>
std::size_t selection_size(InputIt first, InputIt last)
{
  const auto n = iterator_distance(first, last);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

// Whether the selection program serves a call whose input is `InputIt` (route.h).
template <class Derived, class InputIt>
constexpr bool selection_runs_on_kernel = runs_on_kernel<Derived, value_of<InputIt>>;

// The compactions run spscan's programs by default where compaction_bench and select_bench
// measure them at Thrust's speed or better: the selections, the in-place forms (remove, remove_if,
// partition, stable_partition and unique: remove.inl, partition.inl, unique.inl) and unique_count's
// count of run heads (unique.inl). The copying run heads and unique_by_key have their kernel route
// built and tested, and run Thrust's CUDA backend through the same dispatch: from 2^24 they trail
// CUB with its count read back (unique_copy) or Thrust (unique_by_key_copy)
// (docs/design.md#stream-compaction).
constexpr bool in_place_selection_is_default = true;
constexpr bool run_head_selection_is_default = false;
constexpr bool run_head_count_is_default     = true;

// The kernel routes (route.h) of the selections, with and without a stencil.
struct copy_if_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class InputIt, class OutputIt, class Pred>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result, Pred pred)
  {
    const auto count = select_on_device<false>(policy, first, selection_size(first, last), no_stencil{}, result, result, pred);
    return result + static_cast<difference_of<OutputIt>>(count);
  }
  template <class Derived, class InputIt, class StencilIt, class OutputIt, class Pred>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, StencilIt stencil, OutputIt result, Pred pred)
  {
    const auto count = select_on_device<false>(policy, first, selection_size(first, last), stencil, result, result, pred);
    return result + static_cast<difference_of<OutputIt>>(count);
  }
};

struct remove_copy_if_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class InputIt, class OutputIt, class Pred>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, OutputIt result, Pred pred)
  {
    return copy_if_on_kernel::launch(policy, first, last, result, rejected_by<Pred>{pred});
  }
  template <class Derived, class InputIt, class StencilIt, class OutputIt, class Pred>
  static OutputIt launch(Derived& policy, InputIt first, InputIt last, StencilIt stencil, OutputIt result, Pred pred)
  {
    return copy_if_on_kernel::launch(policy, first, last, stencil, result, rejected_by<Pred>{pred});
  }
};

struct partition_copy_on_kernel
{
  template <class Derived, class InputIt, class... Rest>
  static constexpr bool serves = selection_runs_on_kernel<Derived, InputIt>;

  template <class Derived, class InputIt, class OutputIt1, class OutputIt2, class Pred>
  static thrust::pair<OutputIt1, OutputIt2>
  launch(Derived& policy, InputIt first, InputIt last, OutputIt1 out_true, OutputIt2 out_false, Pred pred)
  {
    return launch(policy, first, last, no_stencil{}, out_true, out_false, pred);
  }
  template <class Derived, class InputIt, class StencilIt, class OutputIt1, class OutputIt2, class Pred>
  static thrust::pair<OutputIt1, OutputIt2>
  launch(Derived& policy, InputIt first, InputIt last, StencilIt stencil, OutputIt1 out_true, OutputIt2 out_false, Pred pred)
  {
    const std::size_t n = selection_size(first, last);
    const auto count    = select_on_device<true>(policy, first, n, stencil, out_true, out_false, pred);
    return {out_true + static_cast<difference_of<OutputIt1>>(count),
            out_false + static_cast<difference_of<OutputIt2>>(n - count)};
  }
};

SPSCAN_DETAIL_ROUTED_ALGORITHM(copy_if, copy_if_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(remove_copy_if, remove_copy_if_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(partition_copy, partition_copy_on_kernel);

} // namespace spscan::detail

namespace spscan
{

// copy_if: the elements (or those whose stencil element) satisfying pred, in order; returns the
// end of the output.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
SPSCAN_HOST_DEVICE OutputIt
copy_if(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, Predicate pred)
{
  return detail::dispatch<detail::copy_if_algorithm>(detail::derived_policy(exec), first, last, result, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class StencilIt, class OutputIt, class Predicate>
SPSCAN_HOST_DEVICE OutputIt copy_if(const detail::policy_base<DerivedPolicy>& exec,
                                    InputIt first,
                                    InputIt last,
                                    StencilIt stencil,
                                    OutputIt result,
                                    Predicate pred)
{
  return detail::dispatch<detail::copy_if_algorithm>(detail::derived_policy(exec), first, last, stencil, result, pred);
}

template <class InputIt, class OutputIt, class Predicate>
OutputIt copy_if(InputIt first, InputIt last, OutputIt result, Predicate pred)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::copy_if(system, first, last, result, pred);
}

template <class InputIt, class StencilIt, class OutputIt, class Predicate>
OutputIt copy_if(InputIt first, InputIt last, StencilIt stencil, OutputIt result, Predicate pred)
{
  detail::iterator_system<InputIt, StencilIt, OutputIt> system;
  return spscan::copy_if(system, first, last, stencil, result, pred);
}

// remove_copy_if: the elements (or those whose stencil element) not satisfying pred, in order;
// returns the end of the output.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
SPSCAN_HOST_DEVICE OutputIt
remove_copy_if(const detail::policy_base<DerivedPolicy>& exec, InputIt first, InputIt last, OutputIt result, Predicate pred)
{
  return detail::dispatch<detail::remove_copy_if_algorithm>(detail::derived_policy(exec), first, last, result, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class StencilIt, class OutputIt, class Predicate>
SPSCAN_HOST_DEVICE OutputIt remove_copy_if(const detail::policy_base<DerivedPolicy>& exec,
                                           InputIt first,
                                           InputIt last,
                                           StencilIt stencil,
                                           OutputIt result,
                                           Predicate pred)
{
  return detail::dispatch<detail::remove_copy_if_algorithm>(
    detail::derived_policy(exec), first, last, stencil, result, pred);
}

template <class InputIt, class OutputIt, class Predicate>
OutputIt remove_copy_if(InputIt first, InputIt last, OutputIt result, Predicate pred)
{
  detail::iterator_system<InputIt, OutputIt> system;
  return spscan::remove_copy_if(system, first, last, result, pred);
}

template <class InputIt, class StencilIt, class OutputIt, class Predicate>
OutputIt remove_copy_if(InputIt first, InputIt last, StencilIt stencil, OutputIt result, Predicate pred)
{
  detail::iterator_system<InputIt, StencilIt, OutputIt> system;
  return spscan::remove_copy_if(system, first, last, stencil, result, pred);
}

// partition_copy: the elements satisfying pred (or whose stencil element does) to out_true, the
// others to out_false, each in order; returns the ends of both outputs.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt1, class OutputIt2, class Predicate>
SPSCAN_HOST_DEVICE thrust::pair<OutputIt1, OutputIt2> partition_copy(const detail::policy_base<DerivedPolicy>& exec,
                                                                     InputIt first,
                                                                     InputIt last,
                                                                     OutputIt1 out_true,
                                                                     OutputIt2 out_false,
                                                                     Predicate pred)
{
  return detail::dispatch<detail::partition_copy_algorithm>(
    detail::derived_policy(exec), first, last, out_true, out_false, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class StencilIt, class OutputIt1, class OutputIt2, class Predicate>
SPSCAN_HOST_DEVICE thrust::pair<OutputIt1, OutputIt2> partition_copy(const detail::policy_base<DerivedPolicy>& exec,
                                                                     InputIt first,
                                                                     InputIt last,
                                                                     StencilIt stencil,
                                                                     OutputIt1 out_true,
                                                                     OutputIt2 out_false,
                                                                     Predicate pred)
{
  return detail::dispatch<detail::partition_copy_algorithm>(
    detail::derived_policy(exec), first, last, stencil, out_true, out_false, pred);
}

template <class InputIt, class OutputIt1, class OutputIt2, class Predicate>
thrust::pair<OutputIt1, OutputIt2>
partition_copy(InputIt first, InputIt last, OutputIt1 out_true, OutputIt2 out_false, Predicate pred)
{
  detail::iterator_system<InputIt, OutputIt1, OutputIt2> system;
  return spscan::partition_copy(system, first, last, out_true, out_false, pred);
}

template <class InputIt, class StencilIt, class OutputIt1, class OutputIt2, class Predicate>
thrust::pair<OutputIt1, OutputIt2>
partition_copy(InputIt first, InputIt last, StencilIt stencil, OutputIt1 out_true, OutputIt2 out_false, Predicate pred)
{
  detail::iterator_system<InputIt, StencilIt, OutputIt1, OutputIt2> system;
  return spscan::partition_copy(system, first, last, stencil, out_true, out_false, pred);
}

} // namespace spscan

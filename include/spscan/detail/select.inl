// spscan's selections: copy_if, remove_copy_if and partition_copy, each with and without a
// stencil, with and without a policy: Thrust's overload set, dispatched as Thrust dispatches it
// (route.h), so that code swapped to spscan (or passing spscan::par) keeps its calls.
//
// Where Thrust would run its CUDA backend, these run Thrust's CUDA backend too, for now: spscan's
// own single-pass selection (a tile program on the engine, the selected count carried through the
// look-back) comes when it has been proven on a GPU. Results, return values, synchronization and
// allocation are therefore exactly Thrust's.
#pragma once

#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/copy.h>
#include <thrust/pair.h>
#include <thrust/partition.h>
#include <thrust/remove.h>

#include <nv/target>

namespace spscan::detail
{

// Each selection's algorithm for dispatch (route.h): Thrust's entry point, the probe of its
// dispatch, and `run`, where Thrust would run its CUDA backend (which runs, counted as Thrust's).
struct copy_if_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::copy_if_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::copy_if(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE static auto run(Derived& policy, Args... args)
  {
    NV_IF_TARGET(NV_IS_HOST, (count_route(&route_counters::thrust);));
    return thrust_cuda_backend::copy_if(policy, args...);
  }
};

struct remove_copy_if_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::remove_copy_if_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::remove_copy_if(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE static auto run(Derived& policy, Args... args)
  {
    NV_IF_TARGET(NV_IS_HOST, (count_route(&route_counters::thrust);));
    return thrust_cuda_backend::remove_copy_if(policy, args...);
  }
};

struct partition_copy_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::partition_copy_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::partition_copy(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class... Args>
  SPSCAN_HOST_DEVICE static auto run(Derived& policy, Args... args)
  {
    NV_IF_TARGET(NV_IS_HOST, (count_route(&route_counters::thrust);));
    return thrust_cuda_backend::partition_copy(policy, args...);
  }
};

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

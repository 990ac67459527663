// spscan's partitions: stable_partition_copy (partition_copy's stable order, which spscan's
// partition_copy already keeps: select.inl) on the selection program, and partition and
// stable_partition (in place, with and without a stencil), Thrust's overload set dispatched as
// Thrust dispatches it (route.h). The in-place partitions run Thrust's CUDA backend wherever Thrust
// would: their rejected elements go after all the selected ones, a place only the whole input's
// count fixes, so a single pass cannot write them in place.
#pragma once

#include <spscan/detail/select.inl>

namespace spscan::detail
{

struct stable_partition_copy_on_kernel : partition_copy_on_kernel
{};

SPSCAN_DETAIL_ROUTED_ALGORITHM(partition, thrust_backend_only);
SPSCAN_DETAIL_ROUTED_ALGORITHM(stable_partition, thrust_backend_only);
SPSCAN_DETAIL_ROUTED_ALGORITHM(stable_partition_copy, stable_partition_copy_on_kernel);

} // namespace spscan::detail

namespace spscan
{

// partition: the elements (or those whose stencil element) satisfying pred moved before the others;
// returns the start of the others. stable_partition: the same, each part in its input order.

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt
partition(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, Predicate pred)
{
  return detail::dispatch<detail::partition_algorithm>(detail::derived_policy(exec), first, last, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class StencilIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt partition(
  const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  return detail::dispatch<detail::partition_algorithm>(detail::derived_policy(exec), first, last, stencil, pred);
}

template <class ForwardIt, class Predicate>
ForwardIt partition(ForwardIt first, ForwardIt last, Predicate pred)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::partition(system, first, last, pred);
}

template <class ForwardIt, class StencilIt, class Predicate>
ForwardIt partition(ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  detail::iterator_system<ForwardIt, StencilIt> system;
  return spscan::partition(system, first, last, stencil, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt
stable_partition(const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, Predicate pred)
{
  return detail::dispatch<detail::stable_partition_algorithm>(detail::derived_policy(exec), first, last, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class ForwardIt, class StencilIt, class Predicate>
SPSCAN_HOST_DEVICE ForwardIt stable_partition(
  const detail::policy_base<DerivedPolicy>& exec, ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  return detail::dispatch<detail::stable_partition_algorithm>(detail::derived_policy(exec), first, last, stencil, pred);
}

template <class ForwardIt, class Predicate>
ForwardIt stable_partition(ForwardIt first, ForwardIt last, Predicate pred)
{
  detail::iterator_system<ForwardIt> system;
  return spscan::stable_partition(system, first, last, pred);
}

template <class ForwardIt, class StencilIt, class Predicate>
ForwardIt stable_partition(ForwardIt first, ForwardIt last, StencilIt stencil, Predicate pred)
{
  detail::iterator_system<ForwardIt, StencilIt> system;
  return spscan::stable_partition(system, first, last, stencil, pred);
}

// stable_partition_copy: partition_copy (which keeps each part in its input order).

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class OutputIt1, class OutputIt2, class Predicate>
SPSCAN_HOST_DEVICE thrust::pair<OutputIt1, OutputIt2>
stable_partition_copy(const detail::policy_base<DerivedPolicy>& exec,
                      InputIt first,
                      InputIt last,
                      OutputIt1 out_true,
                      OutputIt2 out_false,
                      Predicate pred)
{
  return detail::dispatch<detail::stable_partition_copy_algorithm>(
    detail::derived_policy(exec), first, last, out_true, out_false, pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class InputIt, class StencilIt, class OutputIt1, class OutputIt2, class Predicate>
SPSCAN_HOST_DEVICE thrust::pair<OutputIt1, OutputIt2>
stable_partition_copy(const detail::policy_base<DerivedPolicy>& exec,
                      InputIt first,
                      InputIt last,
                      StencilIt stencil,
                      OutputIt1 out_true,
                      OutputIt2 out_false,
                      Predicate pred)
{
  return detail::dispatch<detail::stable_partition_copy_algorithm>(
    detail::derived_policy(exec), first, last, stencil, out_true, out_false, pred);
}

template <class InputIt, class OutputIt1, class OutputIt2, class Predicate>
thrust::pair<OutputIt1, OutputIt2>
stable_partition_copy(InputIt first, InputIt last, OutputIt1 out_true, OutputIt2 out_false, Predicate pred)
{
  detail::iterator_system<InputIt, OutputIt1, OutputIt2> system;
  return spscan::stable_partition_copy(system, first, last, out_true, out_false, pred);
}

template <class InputIt, class StencilIt, class OutputIt1, class OutputIt2, class Predicate>
thrust::pair<OutputIt1, OutputIt2> stable_partition_copy(
  InputIt first, InputIt last, StencilIt stencil, OutputIt1 out_true, OutputIt2 out_false, Predicate pred)
{
  detail::iterator_system<InputIt, StencilIt, OutputIt1, OutputIt2> system;
  return spscan::stable_partition_copy(system, first, last, stencil, out_true, out_false, pred);
}

} // namespace spscan

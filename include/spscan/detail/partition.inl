// spscan's partitions: stable_partition_copy (partition_copy's stable order, which spscan's
// partition_copy already keeps: select.inl), and partition and stable_partition (in place, with
// and without a stencil), all on the selection program, Thrust's overload set dispatched as
// Thrust dispatches it (route.h). In place, the rejected elements go after all the selected ones,
// a place only the whole input's count fixes: the selection writes its selected elements over the
// input (as remove_if does: remove.inl says why that is safe) and its rejected ones, in order, to
// temporary storage, from which they are copied back behind the selected ones once the count is
// known. So the input is read once, and only the rejected elements move twice (Thrust's copies
// the whole input out and partitions it back). partition is stable_partition: any order is a
// partition.
#pragma once

#include <spscan/detail/select.inl>

namespace spscan::detail
{

struct stable_partition_copy_on_kernel : partition_copy_on_kernel
{};

struct stable_partition_on_kernel
{
  // The rejected elements are copied back with one device-to-device copy, into a contiguous input.
  template <class Derived, class ForwardIt, class... Rest>
  static constexpr bool serves = in_place_selection_is_default && selection_runs_on_kernel<Derived, ForwardIt>
                              && ::cuda::std::is_pointer_v<unwrapped_iterator<ForwardIt>>;

  template <class Derived, class ForwardIt, class Pred>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, Pred pred)
  {
    return launch(policy, first, last, no_stencil{}, pred);
  }
  template <class Derived, class ForwardIt, class StencilIt, class Pred>
  static ForwardIt launch(Derived& policy, ForwardIt first, ForwardIt last, StencilIt stencil, Pred pred)
  {
    using value         = value_of<ForwardIt>;
    const std::size_t n = selection_size(first, last);
    if (n == 0)
    {
      return first;
    }
    call_storage<Derived> aside(policy, n * sizeof(value));
    value* const rejected      = static_cast<value*>(aside.data());
    const std::uint64_t kept   = select_on_device<true>(policy, first, n, stencil, first, rejected, pred);
    const ForwardIt middle     = first + static_cast<difference_of<ForwardIt>>(kept);
    const cudaStream_t stream  = stream_of(policy);
    throw_if_failed(cudaMemcpyAsync(thrust::try_unwrap_contiguous_iterator(middle),
                                    rejected,
                                    (n - kept) * sizeof(value),
                                    cudaMemcpyDeviceToDevice,
                                    stream),
                    "spscan: copying the rejected elements back failed");
    // The temporary storage goes back when this returns; Thrust's partitions return after their
    // results are written, too.
    throw_if_failed(cudaStreamSynchronize(stream), "spscan: partition failed");
    return middle;
  }
};

using partition_on_kernel = stable_partition_on_kernel;

SPSCAN_DETAIL_ROUTED_ALGORITHM(partition, partition_on_kernel);
SPSCAN_DETAIL_ROUTED_ALGORITHM(stable_partition, stable_partition_on_kernel);
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

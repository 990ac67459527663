// Thrust's entry points called with an spscan policy land here. A Thrust entry point calls the
// algorithm unqualified with the derived policy first, so argument-dependent lookup finds these
// overloads in the policies' namespace, and they win over Thrust's CUDA backend for every form and
// arity: their policy parameter is the more derived base class (par_policy.h). Each one hands the
// call to the same algorithm spscan's own function of that name runs (route.h, dispatch).
#pragma once

#include <spscan/detail/par_policy.h>
#include <spscan/detail/partition.inl>
#include <spscan/detail/reduce_by_key.inl>
#include <spscan/detail/remove.inl>
#include <spscan/detail/route.h>
#include <spscan/detail/scan.inl>
#include <spscan/detail/scan_by_key.inl>
#include <spscan/detail/select.inl>
#include <spscan/detail/transform_scan.inl>
#include <spscan/detail/unique.inl>

namespace spscan::detail::scan_routing
{

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) inclusive_scan(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<inclusive_scan_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) exclusive_scan(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<exclusive_scan_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) transform_inclusive_scan(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<transform_inclusive_scan_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) transform_exclusive_scan(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<transform_exclusive_scan_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) inclusive_scan_by_key(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<inclusive_scan_by_key_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) exclusive_scan_by_key(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<exclusive_scan_by_key_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) copy_if(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<copy_if_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) remove_copy_if(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<remove_copy_if_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) partition_copy(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<partition_copy_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) remove(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<remove_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) remove_if(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<remove_if_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) remove_copy(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<remove_copy_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) partition(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<partition_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) stable_partition(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<stable_partition_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) stable_partition_copy(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<stable_partition_copy_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) unique(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<unique_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) unique_copy(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<unique_copy_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class ForwardIt, class BinaryPred>
SPSCAN_HOST_DEVICE decltype(auto)
unique_count(execution_policy<Derived>& policy, ForwardIt first, ForwardIt last, BinaryPred binary_pred)
{
  return dispatch<unique_count_algorithm>(static_cast<Derived&>(policy), first, last, binary_pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class ForwardIt>
SPSCAN_HOST_DEVICE decltype(auto) unique_count(execution_policy<Derived>& policy, ForwardIt first, ForwardIt last)
{
  return dispatch<unique_count_algorithm>(static_cast<Derived&>(policy), first, last);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) unique_by_key(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<unique_by_key_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) unique_by_key_copy(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<unique_by_key_copy_algorithm>(static_cast<Derived&>(policy), args...);
}

_CCCL_EXEC_CHECK_DISABLE
template <class Derived, class... Args>
SPSCAN_HOST_DEVICE decltype(auto) reduce_by_key(execution_policy<Derived>& policy, Args... args)
{
  return dispatch<reduce_by_key_algorithm>(static_cast<Derived&>(policy), args...);
}

} // namespace spscan::detail::scan_routing

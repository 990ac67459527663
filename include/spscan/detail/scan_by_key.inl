// spscan's inclusive_scan_by_key and exclusive_scan_by_key: Thrust's overload set, dispatched as
// Thrust dispatches it (route.h). Each algorithm is defined once, here, for spscan's functions and
// for Thrust's entry points called with spscan::par (par.inl).
#pragma once

#include <spscan/detail/accumulator.h>
#include <spscan/detail/programs/scan_by_key_plan.h>
#include <spscan/detail/route.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/distance.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

namespace spscan::detail
{

// A by-key scan's kernel route (route.h).
template <bool Exclusive, class Accum>
struct scan_by_key_on_kernel
{
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op, class Init>
  static OutputIt
  launch(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, Pred pred, Op op, const Init& init)
  {
    return scan_by_key_on_device<Exclusive>(
      policy, keys_first, keys_last, values, result, pred, op, initial_accumulator<Accum>(init));
  }
};

// Every by-key form ends here: spscan's kernel where it serves the call (its carry is one the
// kernel holds, and so are its keys), else `thrust_backend()`.
_CCCL_EXEC_CHECK_DISABLE
template <bool Exclusive,
          class Accum,
          class Derived,
          class KeysIt,
          class ValuesIt,
          class OutputIt,
          class Pred,
          class Op,
          class Init,
          class ThrustBackend>
SPSCAN_HOST_DEVICE OutputIt scan_by_key_or_fallback(
  Derived& policy,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values,
  OutputIt result,
  Pred pred,
  Op op,
  const Init& init,
  ThrustBackend thrust_backend)
{
  constexpr bool kernel_serves =
    runs_on_kernel<Derived, segment_carry<Accum>> && kernel_holds_key<value_of<KeysIt>>;
  return kernel_or_thrust_backend<scan_by_key_on_kernel<Exclusive, Accum>, kernel_serves>(
    thrust_backend, policy, keys_first, keys_last, values, result, pred, op, init);
}

// The by-key scans where Thrust would run its CUDA backend. Accumulator: the values' value type
// (inclusive), the type of init (exclusive; by default the values' value_type{}). Predicate by
// default thrust::equal_to<>, op thrust::plus<>.
struct inclusive_scan_by_key_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::inclusive_scan_by_key_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::inclusive_scan_by_key(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result)
  {
    return run(policy, keys_first, keys_last, values, result, default_equal_to{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class Pred>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, Pred pred)
  {
    return run(policy, keys_first, keys_last, values, result, pred, default_plus{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, Pred pred, Op op)
  {
    using accum = value_of<ValuesIt>;
    return scan_by_key_or_fallback<false, accum>(
      policy, keys_first, keys_last, values, result, pred, op, no_init{}, [&](auto& thrust_policy) {
        return thrust_cuda_backend::inclusive_scan_by_key(thrust_policy, keys_first, keys_last, values, result, pred, op);
      });
  }
};

struct exclusive_scan_by_key_algorithm
{
  template <class Policy, class... Args>
  using thrust_target = thrust_dispatch::exclusive_scan_by_key_target<Policy, Args...>;

  _CCCL_EXEC_CHECK_DISABLE
  template <class Policy, class... Args>
  SPSCAN_HOST_DEVICE static auto thrust_entry(Policy& policy, Args... args)
  {
    return thrust::exclusive_scan_by_key(policy, args...);
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result)
  {
    return run(policy, keys_first, keys_last, values, result, value_of<ValuesIt>{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class T>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, T init)
  {
    return run(policy, keys_first, keys_last, values, result, init, default_equal_to{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class T, class Pred>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, T init, Pred pred)
  {
    return run(policy, keys_first, keys_last, values, result, init, pred, default_plus{});
  }

  _CCCL_EXEC_CHECK_DISABLE
  template <class Derived, class KeysIt, class ValuesIt, class OutputIt, class T, class Pred, class Op>
  SPSCAN_HOST_DEVICE static OutputIt
  run(Derived& policy, KeysIt keys_first, KeysIt keys_last, ValuesIt values, OutputIt result, T init, Pred pred, Op op)
  {
    using accum = exclusive_accumulator<T>;
    return scan_by_key_or_fallback<true, accum>(
      policy, keys_first, keys_last, values, result, pred, op, init, [&](auto& thrust_policy) {
        return thrust_cuda_backend::exclusive_scan_by_key(thrust_policy, keys_first, keys_last, values, result, init, pred, op);
      });
  }
};

} // namespace spscan::detail

namespace spscan
{

// inclusive_scan_by_key([exec,] keys_first, keys_last, values_first, result[, pred[, op]])

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec, KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result)
{
  return detail::dispatch<detail::inclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt, class BinaryPred>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  BinaryPred binary_pred)
{
  return detail::dispatch<detail::inclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result, binary_pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt, class BinaryPred, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt inclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  BinaryPred binary_pred,
  BinaryOp binary_op)
{
  return detail::dispatch<detail::inclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result, binary_pred, binary_op);
}

// exclusive_scan_by_key([exec,] keys_first, keys_last, values_first, result[, init[, pred[, op]]])

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec, KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result)
{
  return detail::dispatch<detail::exclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt, class T>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  T init)
{
  return detail::dispatch<detail::exclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result, init);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt, class T, class BinaryPred>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  T init,
  BinaryPred binary_pred)
{
  return detail::dispatch<detail::exclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result, init, binary_pred);
}

_CCCL_EXEC_CHECK_DISABLE
template <class DerivedPolicy, class KeysIt, class ValuesIt, class OutputIt, class T, class BinaryPred, class BinaryOp>
SPSCAN_HOST_DEVICE OutputIt exclusive_scan_by_key(
  const detail::policy_base<DerivedPolicy>& exec,
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  T init,
  BinaryPred binary_pred,
  BinaryOp binary_op)
{
  return detail::dispatch<detail::exclusive_scan_by_key_algorithm>(
    detail::derived_policy(exec), keys_first, keys_last, values_first, result, init, binary_pred, binary_op);
}

// Without a policy, the system comes from the iterators (keys, values, result), as in Thrust.

template <class KeysIt, class ValuesIt, class OutputIt>
OutputIt inclusive_scan_by_key(KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::inclusive_scan_by_key(system, keys_first, keys_last, values_first, result);
}

template <class KeysIt, class ValuesIt, class OutputIt, class BinaryPred>
OutputIt
inclusive_scan_by_key(KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result, BinaryPred binary_pred)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::inclusive_scan_by_key(system, keys_first, keys_last, values_first, result, binary_pred);
}

template <class KeysIt, class ValuesIt, class OutputIt, class BinaryPred, class BinaryOp>
OutputIt inclusive_scan_by_key(
  KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result, BinaryPred binary_pred, BinaryOp binary_op)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::inclusive_scan_by_key(system, keys_first, keys_last, values_first, result, binary_pred, binary_op);
}

template <class KeysIt, class ValuesIt, class OutputIt>
OutputIt exclusive_scan_by_key(KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::exclusive_scan_by_key(system, keys_first, keys_last, values_first, result);
}

template <class KeysIt, class ValuesIt, class OutputIt, class T>
OutputIt exclusive_scan_by_key(KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result, T init)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::exclusive_scan_by_key(system, keys_first, keys_last, values_first, result, init);
}

template <class KeysIt, class ValuesIt, class OutputIt, class T, class BinaryPred>
OutputIt exclusive_scan_by_key(
  KeysIt keys_first, KeysIt keys_last, ValuesIt values_first, OutputIt result, T init, BinaryPred binary_pred)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::exclusive_scan_by_key(system, keys_first, keys_last, values_first, result, init, binary_pred);
}

template <class KeysIt, class ValuesIt, class OutputIt, class T, class BinaryPred, class BinaryOp>
OutputIt exclusive_scan_by_key(
  KeysIt keys_first,
  KeysIt keys_last,
  ValuesIt values_first,
  OutputIt result,
  T init,
  BinaryPred binary_pred,
  BinaryOp binary_op)
{
  detail::iterator_system<KeysIt, ValuesIt, OutputIt> system;
  return spscan::exclusive_scan_by_key(system, keys_first, keys_last, values_first, result, init, binary_pred, binary_op);
}

} // namespace spscan

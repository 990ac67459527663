// spscan dispatches as Thrust dispatches, for every scan and by-key scan. A program that derives
// its own execution policy, or
// retags its iterators to a system of its own, and overloads a scan for it, gets its overload from
// spscan::<scan>(...) exactly where thrust::<scan>(...) would call it: the policy object itself
// (no copy), every form and arity, placeholder arguments that only the overload receives. Every
// form it does not overload, on a CUDA policy, runs spscan's algorithm (where Thrust would run its
// CUDA backend), counted once. Thrust's own CUDA policies reach spscan's algorithm for every
// form, which also checks that this CCCL's CUDA backend has the signatures spscan's probe mirrors
// (thrust_bridge.h). A CUDA policy that customizes only temporary allocation keeps spscan's kernel,
// and the kernel's temporary storage goes through the policy's overloads (needs a GPU).
#include <spscan/spscan.h>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/retag.h>
#include <thrust/memory.h>
#include <thrust/pair.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>
#include <support/wide_value.h>

// ---------------------------------------------------------------------------------------------
// A program's own policies and systems, with overloads in its own namespace, as Thrust documents
// them. Each overload records which form it received; none touches the data.

namespace user_code
{

enum form
{
  inclusive_3, // inclusive_scan(first, last, result)
  inclusive_op,
  inclusive_init_op,
  exclusive_3,
  exclusive_init,
  exclusive_init_op,
  transform_inclusive,
  transform_inclusive_init,
  transform_exclusive,
  inclusive_by_key_4, // inclusive_scan_by_key(keys, keys_last, values, result)
  inclusive_by_key_pred,
  inclusive_by_key_pred_op,
  exclusive_by_key_4,
  exclusive_by_key_init,
  exclusive_by_key_init_pred,
  exclusive_by_key_init_pred_op,
  form_count,
};

// Derived from thrust::device_execution_policy, taken by reference: the overload must receive
// the caller's object, so copies are counted (as in Thrust's own dispatch tests).
struct audited : thrust::device_execution_policy<audited>
{
  audited() = default;
  audited(const audited& other)
      : copies(other.copies + 1)
  {}
  audited& operator=(const audited&) = delete;

  int copies = 0;
  int calls[form_count] = {};
  int calls_on_original = 0; // calls that received an object never copied

  void record(form f)
  {
    ++calls[f];
    calls_on_original += copies == 0 ? 1 : 0;
  }
};

template <class In, class Out>
Out inclusive_scan(audited& policy, In, In, Out result)
{
  policy.record(inclusive_3);
  return result;
}
template <class In, class Out, class Op>
Out inclusive_scan(audited& policy, In, In, Out result, Op)
{
  policy.record(inclusive_op);
  return result;
}
template <class In, class Out, class T, class Op>
Out inclusive_scan(audited& policy, In, In, Out result, T, Op)
{
  policy.record(inclusive_init_op);
  return result;
}
template <class In, class Out>
Out exclusive_scan(audited& policy, In, In, Out result)
{
  policy.record(exclusive_3);
  return result;
}
template <class In, class Out, class T>
Out exclusive_scan(audited& policy, In, In, Out result, T)
{
  policy.record(exclusive_init);
  return result;
}
template <class In, class Out, class T, class Op>
Out exclusive_scan(audited& policy, In, In, Out result, T, Op)
{
  policy.record(exclusive_init_op);
  return result;
}
template <class In, class Out, class F, class Op>
Out transform_inclusive_scan(audited& policy, In, In, Out result, F, Op)
{
  policy.record(transform_inclusive);
  return result;
}
template <class In, class Out, class F, class T, class Op>
Out transform_inclusive_scan(audited& policy, In, In, Out result, F, T, Op)
{
  policy.record(transform_inclusive_init);
  return result;
}
template <class In, class Out, class F, class T, class Op>
Out transform_exclusive_scan(audited& policy, In, In, Out result, F, T, Op)
{
  policy.record(transform_exclusive);
  return result;
}

template <class K, class V, class Out>
Out inclusive_scan_by_key(audited& policy, K, K, V, Out result)
{
  policy.record(inclusive_by_key_4);
  return result;
}
template <class K, class V, class Out, class P>
Out inclusive_scan_by_key(audited& policy, K, K, V, Out result, P)
{
  policy.record(inclusive_by_key_pred);
  return result;
}
template <class K, class V, class Out, class P, class Op>
Out inclusive_scan_by_key(audited& policy, K, K, V, Out result, P, Op)
{
  policy.record(inclusive_by_key_pred_op);
  return result;
}
template <class K, class V, class Out>
Out exclusive_scan_by_key(audited& policy, K, K, V, Out result)
{
  policy.record(exclusive_by_key_4);
  return result;
}
template <class K, class V, class Out, class T>
Out exclusive_scan_by_key(audited& policy, K, K, V, Out result, T)
{
  policy.record(exclusive_by_key_init);
  return result;
}
template <class K, class V, class Out, class T, class P>
Out exclusive_scan_by_key(audited& policy, K, K, V, Out result, T, P)
{
  policy.record(exclusive_by_key_init_pred);
  return result;
}
template <class K, class V, class Out, class T, class P, class Op>
Out exclusive_scan_by_key(audited& policy, K, K, V, Out result, T, P, Op)
{
  policy.record(exclusive_by_key_init_pred_op);
  return result;
}

// A system of the program's own for retagged iterators, taken by value (Thrust's retag pattern).
struct own_tag : thrust::device_execution_policy<own_tag>
{};

int own_tag_calls[form_count] = {};

template <class In, class Out>
Out inclusive_scan(own_tag, In, In, Out result)
{
  ++own_tag_calls[inclusive_3];
  return result;
}
template <class In, class Out, class Op>
Out inclusive_scan(own_tag, In, In, Out result, Op)
{
  ++own_tag_calls[inclusive_op];
  return result;
}
template <class In, class Out, class T, class Op>
Out inclusive_scan(own_tag, In, In, Out result, T, Op)
{
  ++own_tag_calls[inclusive_init_op];
  return result;
}
template <class In, class Out>
Out exclusive_scan(own_tag, In, In, Out result)
{
  ++own_tag_calls[exclusive_3];
  return result;
}
template <class In, class Out, class T>
Out exclusive_scan(own_tag, In, In, Out result, T)
{
  ++own_tag_calls[exclusive_init];
  return result;
}
template <class In, class Out, class T, class Op>
Out exclusive_scan(own_tag, In, In, Out result, T, Op)
{
  ++own_tag_calls[exclusive_init_op];
  return result;
}
template <class In, class Out, class F, class Op>
Out transform_inclusive_scan(own_tag, In, In, Out result, F, Op)
{
  ++own_tag_calls[transform_inclusive];
  return result;
}
template <class In, class Out, class F, class T, class Op>
Out transform_inclusive_scan(own_tag, In, In, Out result, F, T, Op)
{
  ++own_tag_calls[transform_inclusive_init];
  return result;
}
template <class In, class Out, class F, class T, class Op>
Out transform_exclusive_scan(own_tag, In, In, Out result, F, T, Op)
{
  ++own_tag_calls[transform_exclusive];
  return result;
}
template <class K, class V, class Out>
Out inclusive_scan_by_key(own_tag, K, K, V, Out result)
{
  ++own_tag_calls[inclusive_by_key_4];
  return result;
}
template <class K, class V, class Out, class P>
Out inclusive_scan_by_key(own_tag, K, K, V, Out result, P)
{
  ++own_tag_calls[inclusive_by_key_pred];
  return result;
}
template <class K, class V, class Out, class P, class Op>
Out inclusive_scan_by_key(own_tag, K, K, V, Out result, P, Op)
{
  ++own_tag_calls[inclusive_by_key_pred_op];
  return result;
}
template <class K, class V, class Out>
Out exclusive_scan_by_key(own_tag, K, K, V, Out result)
{
  ++own_tag_calls[exclusive_by_key_4];
  return result;
}
template <class K, class V, class Out, class T>
Out exclusive_scan_by_key(own_tag, K, K, V, Out result, T)
{
  ++own_tag_calls[exclusive_by_key_init];
  return result;
}
template <class K, class V, class Out, class T, class P>
Out exclusive_scan_by_key(own_tag, K, K, V, Out result, T, P)
{
  ++own_tag_calls[exclusive_by_key_init_pred];
  return result;
}
template <class K, class V, class Out, class T, class P, class Op>
Out exclusive_scan_by_key(own_tag, K, K, V, Out result, T, P, Op)
{
  ++own_tag_calls[exclusive_by_key_init_pred_op];
  return result;
}

// A system that is not a CUDA one (derived from thrust::execution_policy), with its own scans.
struct own_system : thrust::execution_policy<own_system>
{
  int calls = 0;
};

template <class In, class Out>
Out inclusive_scan(own_system& system, In, In, Out result)
{
  ++system.calls;
  return result;
}
template <class In, class Out, class T>
Out exclusive_scan(own_system& system, In, In, Out result, T)
{
  ++system.calls;
  return result;
}

// A CUDA policy with one overload: the other forms fall through to the CUDA backend in Thrust,
// so to spscan's algorithm in spscan.
struct partly_audited : thrust::cuda::execution_policy<partly_audited>
{
  int calls = 0;
};

template <class In, class Out>
Out inclusive_scan(partly_audited& policy, In, In, Out result)
{
  ++policy.calls;
  return result;
}

// A CUDA policy that customizes only temporary allocation (Thrust's get_temporary_buffer /
// return_temporary_buffer customization points), counting what goes through it.
struct allocation_tally
{
  std::size_t allocations   = 0;
  std::size_t deallocations = 0;
  std::size_t bytes         = 0;
  bool failed               = false;
};

struct counted_temporaries : thrust::cuda::execution_policy<counted_temporaries>
{
  allocation_tally* tally = nullptr;
};

template <class T>
thrust::pair<thrust::pointer<T, counted_temporaries>, std::ptrdiff_t>
get_temporary_buffer(counted_temporaries& policy, std::ptrdiff_t n)
{
  void* p = nullptr;
  if (cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(T)) != cudaSuccess)
  {
    policy.tally->failed = true;
    return {thrust::pointer<T, counted_temporaries>(nullptr), 0};
  }
  ++policy.tally->allocations;
  policy.tally->bytes += static_cast<std::size_t>(n) * sizeof(T);
  return {thrust::pointer<T, counted_temporaries>(static_cast<T*>(p)), n};
}

template <class Pointer>
void return_temporary_buffer(counted_temporaries& policy, Pointer p, std::ptrdiff_t)
{
  cudaFree(thrust::raw_pointer_cast(p));
  ++policy.tally->deallocations;
}

} // namespace user_code

namespace
{

using user_code::form;
using user_code::form_count;

const char* const form_names[form_count] = {
  "inclusive_scan(first, last, result)",
  "inclusive_scan(first, last, result, op)",
  "inclusive_scan(first, last, result, init, op)",
  "exclusive_scan(first, last, result)",
  "exclusive_scan(first, last, result, init)",
  "exclusive_scan(first, last, result, init, op)",
  "transform_inclusive_scan(first, last, result, unary_op, op)",
  "transform_inclusive_scan(first, last, result, unary_op, init, op)",
  "transform_exclusive_scan(first, last, result, unary_op, init, op)",
  "inclusive_scan_by_key(keys, keys_last, values, result)",
  "inclusive_scan_by_key(keys, keys_last, values, result, pred)",
  "inclusive_scan_by_key(keys, keys_last, values, result, pred, op)",
  "exclusive_scan_by_key(keys, keys_last, values, result)",
  "exclusive_scan_by_key(keys, keys_last, values, result, init)",
  "exclusive_scan_by_key(keys, keys_last, values, result, init, pred)",
  "exclusive_scan_by_key(keys, keys_last, values, result, init, pred, op)"};

// Calls spscan's form `f` with the given policy (or, for `no_policy`, none) and placeholder ops
// and inits (the int 0), as Thrust's dispatch tests do: only a user's overload can take them.
struct no_policy
{};

template <class Policy, class In, class Out>
Out call_spscan_with_placeholders(Policy& policy, form f, In first, In last, Out result)
{
  auto call = [&](auto scan, auto... trailing) {
    if constexpr (std::is_same_v<Policy, no_policy>)
    {
      return scan(first, last, result, trailing...);
    }
    else
    {
      return scan(policy, first, last, result, trailing...);
    }
  };
  // By key: the keys are [first, last), the values start at first too.
  auto call_by_key = [&](auto scan, auto... trailing) {
    if constexpr (std::is_same_v<Policy, no_policy>)
    {
      return scan(first, last, first, result, trailing...);
    }
    else
    {
      return scan(policy, first, last, first, result, trailing...);
    }
  };
  auto inclusive           = [](auto&&... a) { return spscan::inclusive_scan(a...); };
  auto exclusive           = [](auto&&... a) { return spscan::exclusive_scan(a...); };
  auto transform_inclusive = [](auto&&... a) { return spscan::transform_inclusive_scan(a...); };
  auto transform_exclusive = [](auto&&... a) { return spscan::transform_exclusive_scan(a...); };
  auto inclusive_by_key    = [](auto&&... a) { return spscan::inclusive_scan_by_key(a...); };
  auto exclusive_by_key    = [](auto&&... a) { return spscan::exclusive_scan_by_key(a...); };
  switch (f)
  {
    case user_code::inclusive_by_key_4:
      return call_by_key(inclusive_by_key);
    case user_code::inclusive_by_key_pred:
      return call_by_key(inclusive_by_key, 0);
    case user_code::inclusive_by_key_pred_op:
      return call_by_key(inclusive_by_key, 0, 0);
    case user_code::exclusive_by_key_4:
      return call_by_key(exclusive_by_key);
    case user_code::exclusive_by_key_init:
      return call_by_key(exclusive_by_key, 0);
    case user_code::exclusive_by_key_init_pred:
      return call_by_key(exclusive_by_key, 0, 0);
    case user_code::exclusive_by_key_init_pred_op:
      return call_by_key(exclusive_by_key, 0, 0, 0);
    case user_code::inclusive_3:
      return call(inclusive);
    case user_code::inclusive_op:
      return call(inclusive, 0);
    case user_code::inclusive_init_op:
      return call(inclusive, 0, 0);
    case user_code::exclusive_3:
      return call(exclusive);
    case user_code::exclusive_init:
      return call(exclusive, 0);
    case user_code::exclusive_init_op:
      return call(exclusive, 0, 0);
    case user_code::transform_inclusive:
      return call(transform_inclusive, 0, 0);
    case user_code::transform_inclusive_init:
      return call(transform_inclusive, 0, 0, 0);
    default:
      return call(transform_exclusive, 0, 0, 0);
  }
}

// The same forms with real operators, for the policies whose calls reach spscan's algorithm.
template <class Policy>
int* call_spscan(Policy& policy, form f, int* first, int* last, int* result)
{
  switch (f)
  {
    case user_code::inclusive_3:
      return spscan::inclusive_scan(policy, first, last, result);
    case user_code::inclusive_op:
      return spscan::inclusive_scan(policy, first, last, result, thrust::maximum<int>{});
    case user_code::inclusive_init_op:
      return spscan::inclusive_scan(policy, first, last, result, 5, thrust::plus<int>{});
    case user_code::exclusive_3:
      return spscan::exclusive_scan(policy, first, last, result);
    case user_code::exclusive_init:
      return spscan::exclusive_scan(policy, first, last, result, 5);
    case user_code::exclusive_init_op:
      return spscan::exclusive_scan(policy, first, last, result, 5, thrust::maximum<int>{});
    case user_code::transform_inclusive:
      return spscan::transform_inclusive_scan(policy, first, last, result, thrust::negate<int>{}, thrust::plus<int>{});
    case user_code::transform_inclusive_init:
      return spscan::transform_inclusive_scan(
        policy, first, last, result, thrust::negate<int>{}, 5, thrust::plus<int>{});
    case user_code::transform_exclusive:
      return spscan::transform_exclusive_scan(
        policy, first, last, result, thrust::negate<int>{}, 5, thrust::plus<int>{});
    case user_code::inclusive_by_key_4:
      return spscan::inclusive_scan_by_key(policy, first, last, first, result);
    case user_code::inclusive_by_key_pred:
      return spscan::inclusive_scan_by_key(policy, first, last, first, result, thrust::equal_to<int>{});
    case user_code::inclusive_by_key_pred_op:
      return spscan::inclusive_scan_by_key(policy, first, last, first, result, thrust::equal_to<int>{}, thrust::maximum<int>{});
    case user_code::exclusive_by_key_4:
      return spscan::exclusive_scan_by_key(policy, first, last, first, result);
    case user_code::exclusive_by_key_init:
      return spscan::exclusive_scan_by_key(policy, first, last, first, result, 5);
    case user_code::exclusive_by_key_init_pred:
      return spscan::exclusive_scan_by_key(policy, first, last, first, result, 5, thrust::equal_to<int>{});
    default:
      return spscan::exclusive_scan_by_key(
        policy, first, last, first, result, 5, thrust::equal_to<int>{}, thrust::maximum<int>{});
  }
}

// Without a GPU, a call that reaches spscan's kernel route throws thrust::system_error from its
// final synchronization (after the route was counted); with one, nothing may throw.
template <class Call>
void call_tolerating_missing_gpu(Call&& call)
{
  try
  {
    call();
  }
  catch (const thrust::system_error&)
  {
    if (spscan_test::gpu_available())
    {
      throw;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Compile-time: where Thrust's dispatch goes, as spscan's probe sees it

namespace probe = spscan::detail::thrust_dispatch;
using spscan::detail::thrust_reaches_cuda_backend;

template <class Policy>
constexpr bool every_scan_form_reaches_cuda_backend()
{
  using P = Policy;
  using I = const int*;
  using O = int*;
  using op = thrust::plus<int>;
  using f  = thrust::negate<int>;
  using eq = thrust::equal_to<int>;
  return thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O>
      && thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O, op>
      && thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O, int, op>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O, int>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O, int, op>
      && thrust_reaches_cuda_backend<probe::transform_inclusive_scan_target, P, I, I, O, f, op>
      && thrust_reaches_cuda_backend<probe::transform_inclusive_scan_target, P, I, I, O, f, int, op>
      && thrust_reaches_cuda_backend<probe::transform_exclusive_scan_target, P, I, I, O, f, int, op>
      && thrust_reaches_cuda_backend<probe::inclusive_scan_by_key_target, P, I, I, I, O>
      && thrust_reaches_cuda_backend<probe::inclusive_scan_by_key_target, P, I, I, I, O, eq>
      && thrust_reaches_cuda_backend<probe::inclusive_scan_by_key_target, P, I, I, I, O, eq, op>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O, int>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O, int, eq>
      && thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O, int, eq, op>;
}

template <class Policy>
constexpr bool no_scan_form_reaches_cuda_backend()
{
  using P = Policy;
  using I = const int*;
  using O = int*;
  return !thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O>
      && !thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O, int>
      && !thrust_reaches_cuda_backend<probe::inclusive_scan_target, P, I, I, O, int, int>
      && !thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O>
      && !thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O, int>
      && !thrust_reaches_cuda_backend<probe::exclusive_scan_target, P, I, I, O, int, int>
      && !thrust_reaches_cuda_backend<probe::transform_inclusive_scan_target, P, I, I, O, int, int>
      && !thrust_reaches_cuda_backend<probe::transform_inclusive_scan_target, P, I, I, O, int, int, int>
      && !thrust_reaches_cuda_backend<probe::transform_exclusive_scan_target, P, I, I, O, int, int, int>
      && !thrust_reaches_cuda_backend<probe::inclusive_scan_by_key_target, P, I, I, I, O>
      && !thrust_reaches_cuda_backend<probe::inclusive_scan_by_key_target, P, I, I, I, O, int, int>
      && !thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O>
      && !thrust_reaches_cuda_backend<probe::exclusive_scan_by_key_target, P, I, I, I, O, int, int, int>;
}

template <class Policy>
using policy_type = std::remove_cv_t<Policy>;

// Thrust's own CUDA policies and the CUDA system of device iterators: the CUDA backend for every
// form. If a CCCL version changed a CUDA backend signature, the probe's twin would no longer tie
// with it and these would fail to hold.
static_assert(every_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::device)>>());
static_assert(every_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::cuda::par)>>());
static_assert(every_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::cuda::par_nosync)>>());
static_assert(every_scan_form_reaches_cuda_backend<decltype(thrust::cuda::par.on(cudaStream_t{}))>());
static_assert(every_scan_form_reaches_cuda_backend<thrust::iterator_system<thrust::device_ptr<int>>::type>());
static_assert(every_scan_form_reaches_cuda_backend<user_code::counted_temporaries>());
// The program's overloads win, as in Thrust; a non-CUDA policy never reaches the CUDA backend.
static_assert(no_scan_form_reaches_cuda_backend<user_code::audited>());
static_assert(no_scan_form_reaches_cuda_backend<user_code::own_tag>());
static_assert(no_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::host)>>());
static_assert(no_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::seq)>>());

TEST(ThrustDispatch, ThrustsCudaPoliciesReachTheCudaBackendForEveryForm)
{
  EXPECT_TRUE(every_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::device)>>());
  EXPECT_TRUE(every_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::cuda::par)>>());
  EXPECT_TRUE(every_scan_form_reaches_cuda_backend<thrust::iterator_system<thrust::device_ptr<int>>::type>());
  EXPECT_TRUE(no_scan_form_reaches_cuda_backend<user_code::audited>());
  EXPECT_TRUE(no_scan_form_reaches_cuda_backend<policy_type<decltype(thrust::host)>>());
}

// ---------------------------------------------------------------------------------------------
// Explicit dispatch: the program's policy

TEST(UserPolicyDispatch, EveryFormReachesTheProgramsOverloadWithTheCallersObject)
{
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    user_code::audited policy;
    spscan_test::route_probe routed;
    int* const data    = reinterpret_cast<int*>(std::uintptr_t{64});
    int* const returned = call_spscan_with_placeholders(policy, form(f), data, data, data + 3);
    EXPECT_EQ(returned, data + 3) << "the overload's return value";
    for (int g = 0; g < form_count; ++g)
    {
      EXPECT_EQ(policy.calls[g], g == f ? 1 : 0) << "calls of " << form_names[g];
    }
    EXPECT_EQ(policy.calls_on_original, 1) << "the overload received a copy of the policy";
    EXPECT_EQ(routed.kernel_calls(), 0u) << "spscan's kernel ran instead of the program's overload";
  }
}

TEST(UserPolicyDispatch, ThrustsEntryPointsReachTheSameOverloads)
{
  // The reference behaviour spscan reproduces: Thrust's entry point with the same policy.
  user_code::audited policy;
  int* const data = reinterpret_cast<int*>(std::uintptr_t{64});
  thrust::inclusive_scan(policy, data, data, data);
  thrust::transform_exclusive_scan(policy, data, data, data, 0, 0, 0);
  EXPECT_EQ(policy.calls[user_code::inclusive_3], 1);
  EXPECT_EQ(policy.calls[user_code::transform_exclusive], 1);
  EXPECT_EQ(policy.calls_on_original, 2);
}

TEST(UserPolicyDispatch, NonCudaSystemsOverloadsAreReached)
{
  user_code::own_system system;
  int* const data = reinterpret_cast<int*>(std::uintptr_t{64});
  EXPECT_EQ(spscan::inclusive_scan(system, data, data, data + 1), data + 1);
  EXPECT_EQ(spscan::exclusive_scan(system, data, data, data + 2, 0), data + 2);
  EXPECT_EQ(system.calls, 2);
}

TEST(UserPolicyDispatch, FormsTheProgramDoesNotOverloadRunSpscansAlgorithmOnce)
{
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    user_code::partly_audited policy;
    spscan_test::route_probe routed;
    int* const nowhere = nullptr;
    call_tolerating_missing_gpu([&] {
      EXPECT_EQ(call_spscan(policy, form(f), nowhere, nowhere, nowhere), nowhere);
    });
    const bool overloaded = f == user_code::inclusive_3;
    EXPECT_EQ(policy.calls, overloaded ? 1 : 0) << "calls of the program's overload";
    EXPECT_EQ(routed.kernel_calls(), overloaded ? 0u : 1u) << "calls of spscan's kernel";
    EXPECT_EQ(routed.thrust_calls(), overloaded ? 1u : 0u) << "calls left to Thrust's dispatch";
  }
}

// ---------------------------------------------------------------------------------------------
// Implicit dispatch: iterators retagged to the program's system

TEST(RetaggedDispatch, EveryFormReachesTheSystemsOverload)
{
  thrust::device_ptr<int> device_data(reinterpret_cast<int*>(std::uintptr_t{64}));
  auto first  = thrust::retag<user_code::own_tag>(device_data);
  auto result = thrust::retag<user_code::own_tag>(device_data + 3);
  no_policy none;
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    std::fill(std::begin(user_code::own_tag_calls), std::end(user_code::own_tag_calls), 0);
    spscan_test::route_probe routed;
    const auto returned = call_spscan_with_placeholders(none, form(f), first, first, result);
    EXPECT_TRUE(returned == result) << "the overload's return value";
    for (int g = 0; g < form_count; ++g)
    {
      EXPECT_EQ(user_code::own_tag_calls[g], g == f ? 1 : 0) << "calls of " << form_names[g];
    }
    EXPECT_EQ(routed.kernel_calls(), 0u);
  }
}

// ---------------------------------------------------------------------------------------------
// spscan's own policies: one route per call

using spscan_test::wide::add_wide;
using spscan_test::wide::wide_value;

TEST(SpscanPolicyDispatch, AFallbackThroughSpscansFunctionCountsOnce)
{
  // spscan::<scan>(spscan::par...) and thrust::<scan>(spscan::par...) both run spscan's algorithm,
  // which falls back to Thrust's CUDA backend for an accumulator the kernel cannot hold: one call,
  // one route, however the call came in.
  wide_value* const nowhere = nullptr;
  const wide_value zero{};
  {
    spscan_test::route_probe routed;
    call_tolerating_missing_gpu([&] {
      spscan::inclusive_scan(spscan::par_nosync, nowhere, nowhere, nowhere, add_wide{});
    });
    EXPECT_EQ(routed.thrust_calls(), 1u);
    EXPECT_EQ(routed.kernel_calls(), 0u);
  }
  {
    spscan_test::route_probe routed;
    call_tolerating_missing_gpu([&] {
      spscan::exclusive_scan(spscan::par, nowhere, nowhere, nowhere, zero, add_wide{});
    });
    EXPECT_EQ(routed.thrust_calls(), 1u);
    EXPECT_EQ(routed.kernel_calls(), 0u);
  }
  {
    spscan_test::route_probe routed;
    call_tolerating_missing_gpu([&] {
      thrust::inclusive_scan(spscan::par_nosync, nowhere, nowhere, nowhere, add_wide{});
    });
    EXPECT_EQ(routed.thrust_calls(), 1u);
    EXPECT_EQ(routed.kernel_calls(), 0u);
  }
}

TEST(SpscanPolicyDispatch, EveryFormThroughSpscansFunctionRunsTheKernelOnce)
{
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    auto policy = spscan::par_nosync;
    spscan_test::route_probe routed;
    int* const nowhere = nullptr;
    call_tolerating_missing_gpu([&] {
      call_spscan(policy, form(f), nowhere, nowhere, nowhere);
    });
    EXPECT_EQ(routed.kernel_calls(), 1u);
    EXPECT_EQ(routed.thrust_calls(), 0u);
  }
}

// ---------------------------------------------------------------------------------------------
// Temporary allocation customized by the policy (GPU)

// The sequential result of call_spscan's form `f`.
std::vector<int> expected_form(form f, const std::vector<int>& in)
{
  using spscan_test::reference_exclusive;
  using spscan_test::reference_inclusive;
  std::vector<int> negated(in.size());
  std::transform(in.begin(), in.end(), negated.begin(), [](int x) {
    return -x;
  });
  const thrust::plus<int> plus;
  const thrust::maximum<int> maximum;
  switch (f)
  {
    case user_code::inclusive_3:
      return reference_inclusive<int>(in, plus);
    case user_code::inclusive_op:
      return reference_inclusive<int>(in, maximum);
    case user_code::inclusive_init_op:
      return reference_inclusive<int>(in, 5, plus);
    case user_code::exclusive_3:
      return reference_exclusive<int>(in, 0, plus);
    case user_code::exclusive_init:
      return reference_exclusive<int>(in, 5, plus);
    case user_code::exclusive_init_op:
      return reference_exclusive<int>(in, 5, maximum);
    case user_code::transform_inclusive:
      return reference_inclusive<int>(negated, plus);
    case user_code::transform_inclusive_init:
      return reference_inclusive<int>(negated, 5, plus);
    case user_code::transform_exclusive:
      return reference_exclusive<int>(negated, 5, plus);
    default:
      break;
  }
  // By key, with the input as keys and as values.
  using spscan_test::reference_exclusive_by_key;
  using spscan_test::reference_inclusive_by_key;
  const thrust::equal_to<int> equal;
  switch (f)
  {
    case user_code::inclusive_by_key_4:
    case user_code::inclusive_by_key_pred:
      return reference_inclusive_by_key<int>(in, in, equal, plus);
    case user_code::inclusive_by_key_pred_op:
      return reference_inclusive_by_key<int>(in, in, equal, maximum);
    case user_code::exclusive_by_key_4:
      return reference_exclusive_by_key<int>(in, in, 0, equal, plus);
    case user_code::exclusive_by_key_init:
    case user_code::exclusive_by_key_init_pred:
      return reference_exclusive_by_key<int>(in, in, 5, equal, plus);
    default:
      return reference_exclusive_by_key<int>(in, in, 5, equal, maximum);
  }
}

TEST(CustomTemporaryAllocation, TheKernelsTemporaryStorageGoesThroughThePolicysOverloads)
{
  SPSCAN_REQUIRE_GPU();
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::size_t n               = std::size_t{1} << 20; // many tiles: tile states are needed
  const std::vector<int> host_input = spscan_test::random_values<int>(n, seed);
  thrust::device_vector<int> in     = spscan_test::to_device(host_input);

  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    user_code::allocation_tally tally;
    user_code::counted_temporaries policy;
    policy.tally = &tally;
    thrust::device_vector<int> out(n);
    spscan_test::poison(out);
    spscan_test::route_probe routed;
    int* const first    = thrust::raw_pointer_cast(in.data());
    int* const result   = thrust::raw_pointer_cast(out.data());
    int* const returned = call_spscan(policy, form(f), first, first + n, result);
    EXPECT_EQ(returned, result + n);
    EXPECT_EQ(routed.kernel_calls(), 1u) << "spscan's kernel did not run";
    EXPECT_FALSE(tally.failed);
    EXPECT_GE(tally.allocations, 1u) << "the tile states did not come from the policy's get_temporary_buffer";
    EXPECT_EQ(tally.allocations, tally.deallocations) << "every buffer is returned through the policy";
    EXPECT_GT(tally.bytes, 0u);
    spscan_test::expect_bitwise_equal(
      expected_form(form(f), host_input), spscan_test::to_host(out), "against the sequential reference");
  }
}

TEST(CustomTemporaryAllocation, ASingleTileNeedsNoTemporaryStorage)
{
  SPSCAN_REQUIRE_GPU();
  const std::vector<int> host_input = spscan_test::random_values<int>(1000, spscan_test::fresh_seed());
  thrust::device_vector<int> in     = spscan_test::to_device(host_input);
  thrust::device_vector<int> out(in.size());
  spscan_test::poison(out);
  user_code::allocation_tally tally;
  user_code::counted_temporaries policy;
  policy.tally        = &tally;
  int* const first    = thrust::raw_pointer_cast(in.data());
  int* const returned = spscan::inclusive_scan(policy, first, first + in.size(), thrust::raw_pointer_cast(out.data()));
  EXPECT_EQ(returned, thrust::raw_pointer_cast(out.data()) + in.size());
  EXPECT_EQ(tally.allocations, 0u);
  spscan_test::expect_bitwise_equal(
    expected_form(user_code::inclusive_3, host_input), spscan_test::to_host(out), "against the sequential reference");
}

} // namespace

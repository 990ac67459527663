// Everything spscan takes from Thrust's internals, in one file: when a CCCL version changes them,
// this is the file to read. The rest of spscan uses Thrust's public API (its algorithms, iterators,
// functional objects and execution policies) and the names defined here.
//
//  - policies: the base classes Thrust's entry points and its CUDA backend take, the cast Thrust
//    applies before it dispatches, the allocator-aware policy mix-in of `par(alloc)`;
//  - a call's host side: the policy's stream, temporary storage through the policy's allocator,
//    Thrust's optional synchronization and its error type;
//  - dispatch: the system Thrust selects for iterators, and whether Thrust's own dispatch of a
//    call would reach its CUDA backend (where spscan runs instead) or another overload (a user's
//    overload for their policy or system, a host system), which spscan then leaves to Thrust;
//  - the CUDA backend's entry points, for the calls spscan's kernel cannot serve.
#pragma once

#include <spscan/detail/config.h>

#include <thrust/detail/allocator_aware_execution_policy.h>
#include <thrust/detail/execute_with_allocator.h>
#include <thrust/detail/temporary_array.h>
#include <thrust/execution_policy.h>
#include <thrust/memory.h>
#include <thrust/pair.h>
#include <thrust/system/cuda/detail/copy_if.h>
#include <thrust/system/cuda/detail/execution_policy.h>
#include <thrust/system/cuda/detail/partition.h>
#include <thrust/system/cuda/detail/reduce_by_key.h>
#include <thrust/system/cuda/detail/remove.h>
#include <thrust/system/cuda/detail/scan.h>
#include <thrust/system/cuda/detail/scan_by_key.h>
#include <thrust/system/cuda/detail/transform_scan.h>
#include <thrust/system/cuda/detail/unique.h>
#include <thrust/system/cuda/detail/unique_by_key.h>
#include <thrust/system/cuda/detail/util.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/detail/bad_alloc.h>
#include <thrust/system/detail/generic/copy_if.h>
#include <thrust/system/detail/generic/partition.h>
#include <thrust/system/detail/generic/reduce_by_key.h>
#include <thrust/system/detail/generic/remove.h>
#include <thrust/system/detail/generic/scan.h>
#include <thrust/system/detail/generic/scan_by_key.h>
#include <thrust/system/detail/generic/select_system.h>
#include <thrust/system/detail/generic/transform_scan.h>
#include <thrust/system/detail/generic/unique.h>
#include <thrust/system/detail/generic/unique_by_key.h>

#include <thrust/system/cuda/execution_policy.h>

// The public algorithms the sequential fallbacks call (thrust_cuda_backend below).
#include <thrust/copy.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>
#include <thrust/unique.h>

// thrust::try_unwrap_contiguous_iterator (public API) moved to a header of its own in CCCL 3.0.
// Decided by version, not __has_include: another CCCL's headers may be further down the path.
#if THRUST_VERSION >= 300000
#  include <thrust/type_traits/unwrap_contiguous_iterator.h>
#else
#  include <thrust/type_traits/is_contiguous_iterator.h>
#endif

#include <cuda/std/cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include <cstdint>

namespace spscan::detail
{

// ------------------------------------------------------------------------------------------------
// Policies

// What Thrust's entry points take: every execution policy derives from it.
template <class Derived>
using policy_base = thrust::detail::execution_policy_base<Derived>;

// What Thrust's CUDA backend takes: thrust::device, thrust::cuda::par[_nosync][(alloc)][.on(s)],
// the CUDA system of device iterators, spscan::par and every policy derived from these.
template <class Derived>
using cuda_policy = thrust::cuda_cub::execution_policy<Derived>;

template <class Derived>
constexpr bool is_cuda_policy = ::cuda::std::is_base_of_v<cuda_policy<Derived>, Derived>;

// The policy as Thrust's entry points pass it on: the most derived type, not const.
_CCCL_EXEC_CHECK_DISABLE
template <class Derived>
SPSCAN_HOST_DEVICE Derived& derived_policy(const policy_base<Derived>& exec)
{
  return thrust::detail::derived_cast(thrust::detail::strip_const(exec));
}

// The mix-in that gives a policy `policy(alloc)`, as thrust::cuda::par has it.
template <template <class> class StreamPolicy>
using allocator_aware_policy = thrust::detail::allocator_aware_execution_policy<StreamPolicy>;

inline cudaStream_t default_stream()
{
  return thrust::cuda_cub::default_stream();
}

// ------------------------------------------------------------------------------------------------
// A call's host side

template <class Derived>
cudaStream_t stream_of(cuda_policy<Derived>& policy)
{
  return thrust::cuda_cub::stream(policy);
}

// Device bytes owned for the duration of one call, taken from (and returned to) the policy's
// allocator through Thrust's get_temporary_buffer / return_temporary_buffer customization points:
// a caching allocator attached with `par(alloc)`, or a policy's own overloads, sees every byte.
template <class Derived>
using temporary_bytes = thrust::detail::temporary_array<std::uint8_t, Derived>;

// Thrust's CUDA policies that carry no allocator of the caller's: thrust::device (par_t),
// thrust::cuda::par, par_nosync, each with .on(stream), and the system of device iterators (a call
// without a policy). Thrust takes their temporary storage with cudaMalloc (par_nosync in CCCL 3:
// cudaMallocAsync), where nothing of the caller's sees it.
template <class Derived>
constexpr bool is_thrust_policy_without_allocator =
  ::cuda::std::is_same_v<Derived, thrust::cuda_cub::par_t> || ::cuda::std::is_same_v<Derived, thrust::cuda_cub::par_nosync_t>
  || ::cuda::std::is_same_v<Derived, thrust::cuda_cub::execute_on_stream>
  || ::cuda::std::is_same_v<Derived, thrust::cuda_cub::execute_on_stream_nosync>
  || ::cuda::std::is_same_v<Derived, thrust::cuda_cub::tag>;

// What Thrust throws when temporary storage cannot be had: thrust::system::detail::bad_alloc, a
// std::bad_alloc.
[[noreturn]] inline void throw_bad_alloc(cudaError_t status)
{
  throw thrust::system::detail::bad_alloc(thrust::cuda_category().message(status).c_str());
}

// Throws thrust::system_error (cuda_category) for any error, as Thrust does.
inline void throw_if_failed(cudaError_t status, const char* what)
{
  thrust::cuda_cub::throw_on_error(status, what);
}

// Synchronizes the policy's stream exactly when Thrust would (not for par_nosync).
template <class Derived>
void finish_call(cuda_policy<Derived>& policy, const char* what)
{
  throw_if_failed(thrust::cuda_cub::synchronize_optional(policy), what);
}

// Whether Thrust's CUDA backend takes par_nosync's temporary storage stream-ordered
// (cudaMallocAsync / cudaFreeAsync): CCCL 3 does; CCCL 2.8 takes it through cudaMalloc, as for par.
#define SPSCAN_DETAIL_THRUST_NOSYNC_IS_STREAM_ORDERED (THRUST_VERSION >= 300000)

// Temporary storage as Thrust's own par_nosync.on(stream) takes it, through Thrust's dispatch for
// that policy.
template <class T>
thrust::pair<T*, ::cuda::std::ptrdiff_t> nosync_temporary_buffer(cudaStream_t stream, ::cuda::std::ptrdiff_t n)
{
  thrust::cuda_cub::execute_on_stream_nosync thrust_policy(stream);
  const auto buffer = thrust::get_temporary_buffer<T>(thrust_policy, n);
  return {thrust::raw_pointer_cast(buffer.first), buffer.second};
}

template <class Pointer>
void return_nosync_temporary_buffer(cudaStream_t stream, Pointer p, ::cuda::std::ptrdiff_t n)
{
  using element = ::cuda::std::remove_pointer_t<decltype(thrust::raw_pointer_cast(p))>;
  thrust::cuda_cub::execute_on_stream_nosync thrust_policy(stream);
  thrust::return_temporary_buffer(
    thrust_policy, thrust::pointer<element, thrust::cuda_cub::execute_on_stream_nosync>(thrust::raw_pointer_cast(p)), n);
}

// The length of [first, last): thrust::distance, which CCCL 3.5 deprecates for cuda::std::distance
// (its implementation there).
template <class Iterator>
auto iterator_distance(Iterator first, Iterator last)
{
#if THRUST_VERSION >= 300500
  return ::cuda::std::distance(first, last);
#else
  return thrust::distance(first, last);
#endif
}

// Thrust's default operator and key predicate: cuda::std's from CCCL 3 on (Thrust's names are
// aliases of them there, deprecated from 3.5), Thrust's own before.
#if THRUST_VERSION >= 300000
using default_plus     = ::cuda::std::plus<>;
using default_equal_to = ::cuda::std::equal_to<>;
#else
using default_plus     = thrust::plus<>;
using default_equal_to = thrust::equal_to<>;
#endif

// What thrust::try_unwrap_contiguous_iterator makes of an iterator: the raw pointer behind a
// contiguous one (device_ptr, a device_vector's iterator), else the iterator itself.
template <class Iterator>
using unwrapped_iterator = thrust::try_unwrap_contiguous_iterator_t<Iterator>;

// ------------------------------------------------------------------------------------------------
// Dispatch

// The system Thrust selects for a call without a policy, from its iterators' systems.
template <class... Iterators>
using iterator_system = ::cuda::std::remove_cvref_t<decltype(thrust::system::detail::generic::select_system(
  ::cuda::std::declval<typename thrust::iterator_system<Iterators>::type&>()...))>;

// Which overload Thrust's dispatch reaches. A Thrust entry point calls the algorithm unqualified,
// with the derived policy first and Thrust's generic implementation in scope, so argument-dependent
// lookup adds the CUDA backend's overloads and those of the user's namespaces, and the best match
// runs. The probe makes the same call with one more candidate per CUDA backend overload: a twin,
// with the same parameters in another namespace. Where the CUDA backend's overload is the best
// match, its twin ties with it and the call is ambiguous; where anything else is better (a user's
// overload for their policy or system, spscan's own for spscan::par), that one is chosen and the
// call is well-formed. So "ambiguous" means exactly "Thrust would run its CUDA backend". The twins
// are declarations only, never called. They spell the CUDA backend's parameter types exactly as it
// does: nvcc ranks a parameter written through an alias template (cuda_policy<D>&) as more
// specialized, which would break the tie. The CUDA backend's signatures are the same in every
// supported CCCL version; tests/dispatch_test.cu checks that Thrust's own policies still tie.
namespace thrust_dispatch
{

struct cuda_backend_twin
{};

template <class D, class I, class O>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O);
template <class D, class I, class O, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, Op);
template <class D, class I, class O, class T, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, T, Op);

template <class D, class I, class O>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O);
template <class D, class I, class O, class T>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, T);
template <class D, class I, class O, class T, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, T, Op);

template <class D, class I, class O, class F, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin transform_inclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, F, Op);
template <class D, class I, class O, class F, class T, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin transform_inclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, F, T, Op);

template <class D, class I, class O, class F, class T, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin transform_exclusive_scan(thrust::cuda_cub::execution_policy<D>&, I, I, O, F, T, Op);

template <class D, class K, class V, class O>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O);
template <class D, class K, class V, class O, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O, P);
template <class D, class K, class V, class O, class P, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin inclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O, P, Op);

template <class D, class K, class V, class O>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O);
template <class D, class K, class V, class O, class T>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O, T);
template <class D, class K, class V, class O, class T, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O, T, P);
template <class D, class K, class V, class O, class T, class P, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin exclusive_scan_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, O, T, P, Op);

// The selections (copy_if, remove_copy_if, partition_copy), with and without a stencil.
template <class D, class I, class O, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin copy_if(thrust::cuda_cub::execution_policy<D>&, I, I, O, P);
template <class D, class I, class S, class O, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin copy_if(thrust::cuda_cub::execution_policy<D>&, I, I, S, O, P);

template <class D, class I, class O, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin remove_copy_if(thrust::cuda_cub::execution_policy<D>&, I, I, O, P);
template <class D, class I, class S, class O, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin remove_copy_if(thrust::cuda_cub::execution_policy<D>&, I, I, S, O, P);

template <class D, class I, class O1, class O2, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin partition_copy(thrust::cuda_cub::execution_policy<D>&, I, I, O1, O2, P);
template <class D, class I, class S, class O1, class O2, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin partition_copy(thrust::cuda_cub::execution_policy<D>&, I, I, S, O1, O2, P);

// In place: remove, remove_if (with and without a stencil), partition and stable_partition.
template <class D, class I, class T>
SPSCAN_HOST_DEVICE cuda_backend_twin remove(thrust::cuda_cub::execution_policy<D>&, I, I, const T&);
template <class D, class I, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin remove_if(thrust::cuda_cub::execution_policy<D>&, I, I, P);
template <class D, class I, class S, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin remove_if(thrust::cuda_cub::execution_policy<D>&, I, I, S, P);
template <class D, class I, class O, class T>
SPSCAN_HOST_DEVICE cuda_backend_twin remove_copy(thrust::cuda_cub::execution_policy<D>&, I, I, O, const T&);

template <class D, class I, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin partition(thrust::cuda_cub::execution_policy<D>&, I, I, P);
template <class D, class I, class S, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin partition(thrust::cuda_cub::execution_policy<D>&, I, I, S, P);
template <class D, class I, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin stable_partition(thrust::cuda_cub::execution_policy<D>&, I, I, P);
template <class D, class I, class S, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin stable_partition(thrust::cuda_cub::execution_policy<D>&, I, I, S, P);
template <class D, class I, class O1, class O2, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin stable_partition_copy(thrust::cuda_cub::execution_policy<D>&, I, I, O1, O2, P);
template <class D, class I, class S, class O1, class O2, class P>
SPSCAN_HOST_DEVICE cuda_backend_twin stable_partition_copy(thrust::cuda_cub::execution_policy<D>&, I, I, S, O1, O2, P);

// The runs: unique, unique_copy, unique_count, unique_by_key, unique_by_key_copy, reduce_by_key.
template <class D, class F>
SPSCAN_HOST_DEVICE cuda_backend_twin unique(thrust::cuda_cub::execution_policy<D>&, F, F);
template <class D, class F, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin unique(thrust::cuda_cub::execution_policy<D>&, F, F, B);
template <class D, class I, class O>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_copy(thrust::cuda_cub::execution_policy<D>&, I, I, O);
template <class D, class I, class O, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_copy(thrust::cuda_cub::execution_policy<D>&, I, I, O, B);
template <class D, class F, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_count(thrust::cuda_cub::execution_policy<D>&, F, F, B);
template <class D, class K, class V>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V);
template <class D, class K, class V, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, B);
template <class D, class K, class V, class KO, class VO>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_by_key_copy(thrust::cuda_cub::execution_policy<D>&, K, K, V, KO, VO);
template <class D, class K, class V, class KO, class VO, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin unique_by_key_copy(thrust::cuda_cub::execution_policy<D>&, K, K, V, KO, VO, B);
template <class D, class K, class V, class KO, class VO>
SPSCAN_HOST_DEVICE cuda_backend_twin reduce_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, KO, VO);
template <class D, class K, class V, class KO, class VO, class B>
SPSCAN_HOST_DEVICE cuda_backend_twin reduce_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, KO, VO, B);
template <class D, class K, class V, class KO, class VO, class B, class Op>
SPSCAN_HOST_DEVICE cuda_backend_twin reduce_by_key(thrust::cuda_cub::execution_policy<D>&, K, K, V, KO, VO, B, Op);

using thrust::system::detail::generic::copy_if;
using thrust::system::detail::generic::exclusive_scan;
using thrust::system::detail::generic::exclusive_scan_by_key;
using thrust::system::detail::generic::inclusive_scan;
using thrust::system::detail::generic::inclusive_scan_by_key;
using thrust::system::detail::generic::partition;
using thrust::system::detail::generic::partition_copy;
using thrust::system::detail::generic::reduce_by_key;
using thrust::system::detail::generic::remove;
using thrust::system::detail::generic::remove_copy;
using thrust::system::detail::generic::remove_copy_if;
using thrust::system::detail::generic::remove_if;
using thrust::system::detail::generic::stable_partition;
using thrust::system::detail::generic::stable_partition_copy;
using thrust::system::detail::generic::unique;
using thrust::system::detail::generic::unique_by_key;
using thrust::system::detail::generic::unique_by_key_copy;
using thrust::system::detail::generic::unique_copy;
using thrust::system::detail::generic::unique_count;
using thrust::system::detail::generic::transform_exclusive_scan;
using thrust::system::detail::generic::transform_inclusive_scan;

// The overload Thrust's dispatch resolves to, for the policy and the arguments (as lvalues, as
// Thrust's entry points pass them). Ill-formed (ambiguous) where it is the CUDA backend's.
#define SPSCAN_DETAIL_THRUST_TARGET(name) \
  template <class P, class... A>          \
  using name##_target = decltype(name(::cuda::std::declval<P&>(), ::cuda::std::declval<A&>()...))
SPSCAN_DETAIL_THRUST_TARGET(inclusive_scan);
SPSCAN_DETAIL_THRUST_TARGET(exclusive_scan);
SPSCAN_DETAIL_THRUST_TARGET(transform_inclusive_scan);
SPSCAN_DETAIL_THRUST_TARGET(transform_exclusive_scan);
SPSCAN_DETAIL_THRUST_TARGET(inclusive_scan_by_key);
SPSCAN_DETAIL_THRUST_TARGET(exclusive_scan_by_key);
SPSCAN_DETAIL_THRUST_TARGET(copy_if);
SPSCAN_DETAIL_THRUST_TARGET(remove_copy_if);
SPSCAN_DETAIL_THRUST_TARGET(partition_copy);
SPSCAN_DETAIL_THRUST_TARGET(remove);
SPSCAN_DETAIL_THRUST_TARGET(remove_if);
SPSCAN_DETAIL_THRUST_TARGET(remove_copy);
SPSCAN_DETAIL_THRUST_TARGET(partition);
SPSCAN_DETAIL_THRUST_TARGET(stable_partition);
SPSCAN_DETAIL_THRUST_TARGET(stable_partition_copy);
SPSCAN_DETAIL_THRUST_TARGET(unique);
SPSCAN_DETAIL_THRUST_TARGET(unique_copy);
SPSCAN_DETAIL_THRUST_TARGET(unique_count);
SPSCAN_DETAIL_THRUST_TARGET(unique_by_key);
SPSCAN_DETAIL_THRUST_TARGET(unique_by_key_copy);
SPSCAN_DETAIL_THRUST_TARGET(reduce_by_key);
#undef SPSCAN_DETAIL_THRUST_TARGET

template <class Void, template <class...> class Target, class... Args>
struct resolves_elsewhere : ::cuda::std::false_type
{};
template <template <class...> class Target, class... Args>
struct resolves_elsewhere<::cuda::std::void_t<Target<Args...>>, Target, Args...> : ::cuda::std::true_type
{};

} // namespace thrust_dispatch

// True where Thrust's dispatch of `algorithm(policy, args...)` runs its CUDA backend: the policy
// is a CUDA one and no other overload (a user's, spscan's) is a better match. `Target` is one of
// the thrust_dispatch::*_target templates above.
template <template <class...> class Target, class Policy, class... Args>
constexpr bool thrust_reaches_cuda_backend =
  is_cuda_policy<Policy> && !thrust_dispatch::resolves_elsewhere<void, Target, Policy, Args...>::value;

// Thrust's sequential policy: what Thrust's CUDA backend runs a call with in device code, unless
// it launches kernels from there (CCCL 2.8's opt-in CUB_DETAIL_CDPv1).
using sequential_policy = thrust::detail::seq_t;
#if defined(CUB_DETAIL_CDPv1)
constexpr bool thrust_launches_from_device = true;
#else
constexpr bool thrust_launches_from_device = false;
#endif

// Thrust's own implementation of a call, for the calls spscan's kernel does not serve. With a CUDA
// policy, the CUDA backend's entry point, called with the policy seen as a CUDA one (a qualified
// call: it never comes back to spscan through argument-dependent lookup); with the sequential
// policy, the sequential algorithm, which is what that entry point runs in device code. A call
// made in device code that spscan's kernel would serve from the host takes the second: the first
// would compile Thrust's kernels into every program that makes the call, for nothing.
namespace thrust_cuda_backend
{

// The same pair for every algorithm.
#define SPSCAN_DETAIL_THRUST_BACKEND(name)                                     \
  _CCCL_EXEC_CHECK_DISABLE                                                     \
  template <class Derived, class... Args>                                      \
  SPSCAN_HOST_DEVICE auto name(cuda_policy<Derived>& policy, Args... args)     \
  {                                                                            \
    return thrust::cuda_cub::name(policy, args...);                            \
  }                                                                            \
  _CCCL_EXEC_CHECK_DISABLE                                                     \
  template <class... Args>                                                     \
  SPSCAN_HOST_DEVICE auto name(sequential_policy& policy, Args... args)        \
  {                                                                            \
    return thrust::name(policy, args...);                                      \
  }
SPSCAN_DETAIL_THRUST_BACKEND(inclusive_scan)
SPSCAN_DETAIL_THRUST_BACKEND(exclusive_scan)
SPSCAN_DETAIL_THRUST_BACKEND(transform_inclusive_scan)
SPSCAN_DETAIL_THRUST_BACKEND(transform_exclusive_scan)
SPSCAN_DETAIL_THRUST_BACKEND(inclusive_scan_by_key)
SPSCAN_DETAIL_THRUST_BACKEND(exclusive_scan_by_key)
SPSCAN_DETAIL_THRUST_BACKEND(copy_if)
SPSCAN_DETAIL_THRUST_BACKEND(remove_copy_if)
SPSCAN_DETAIL_THRUST_BACKEND(partition_copy)
SPSCAN_DETAIL_THRUST_BACKEND(remove)
SPSCAN_DETAIL_THRUST_BACKEND(remove_if)
SPSCAN_DETAIL_THRUST_BACKEND(remove_copy)
SPSCAN_DETAIL_THRUST_BACKEND(partition)
SPSCAN_DETAIL_THRUST_BACKEND(stable_partition)
SPSCAN_DETAIL_THRUST_BACKEND(stable_partition_copy)
SPSCAN_DETAIL_THRUST_BACKEND(unique)
SPSCAN_DETAIL_THRUST_BACKEND(unique_copy)
SPSCAN_DETAIL_THRUST_BACKEND(unique_count)
SPSCAN_DETAIL_THRUST_BACKEND(unique_by_key)
SPSCAN_DETAIL_THRUST_BACKEND(unique_by_key_copy)
SPSCAN_DETAIL_THRUST_BACKEND(reduce_by_key)
#undef SPSCAN_DETAIL_THRUST_BACKEND

} // namespace thrust_cuda_backend

} // namespace spscan::detail

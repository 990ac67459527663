// spscan::par and spscan::par_nosync: a Thrust call left as it is, with only its policy changed,
// runs its scan on spscan (every form of the four scans, every form of the policy) and does
// everything else exactly as Thrust does: same results, stream, synchronization and allocation,
// and Thrust's own implementation for every other algorithm.
//
// The routing itself is observed through spscan::detail::route_stats(), which counts host calls
// per route; results are compared with the same call made with thrust::device and with a
// sequential CPU reference.
#include <spscan/execution_policy.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>
#include <support/wide_value.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/random.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/shuffle.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace
{

using spscan_test::route_probe;

// ---------------------------------------------------------------------------------------------
// Observing the route (spscan_test::route_probe), the allocator and the stream

struct allocation_tally
{
  std::size_t allocations   = 0;
  std::size_t deallocations = 0;
  std::size_t bytes         = 0;
};

// A Thrust temporary-storage allocator (device memory) that counts what goes through it. Copies
// share the tally, so it counts whether the policy holds it by reference or by value.
struct counting_allocator
{
  using value_type = char;

  allocation_tally* tally;

  char* allocate(std::ptrdiff_t bytes)
  {
    void* p = nullptr;
    if (cudaMalloc(&p, static_cast<std::size_t>(bytes)) != cudaSuccess)
    {
      throw std::bad_alloc();
    }
    ++tally->allocations;
    tally->bytes += static_cast<std::size_t>(bytes);
    return static_cast<char*>(p);
  }

  void deallocate(char* p, std::size_t)
  {
    cudaFree(p);
    ++tally->deallocations;
  }
};

template <class Policy>
struct holds_allocator : std::false_type
{};

template <class Allocator, template <class> class Base>
struct holds_allocator<thrust::detail::execute_with_allocator<Allocator, Base>> : std::true_type
{};

class scoped_stream
{
public:
  scoped_stream()
  {
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  ~scoped_stream()
  {
    cudaStreamDestroy(stream_);
  }
  scoped_stream(const scoped_stream&)            = delete;
  scoped_stream& operator=(const scoped_stream&) = delete;

  cudaStream_t get() const
  {
    return stream_;
  }

private:
  cudaStream_t stream_{};
};

// Calls visit(name, policy) with every form of spscan's policies. `stream` and `alloc` are those
// the `.on` and `(alloc)` forms get; the allocator is an lvalue, so the policies hold it by
// reference, the way caching allocators are used.
template <class Visit>
void for_each_policy_form(cudaStream_t stream, counting_allocator& alloc, Visit&& visit)
{
  visit("spscan::par", spscan::par);
  visit("spscan::par.on(stream)", spscan::par.on(stream));
  visit("spscan::par(alloc)", spscan::par(alloc));
  visit("spscan::par(alloc).on(stream)", spscan::par(alloc).on(stream));
  visit("spscan::par_nosync", spscan::par_nosync);
  visit("spscan::par_nosync.on(stream)", spscan::par_nosync.on(stream));
  visit("spscan::par_nosync(alloc)", spscan::par_nosync(alloc));
  visit("spscan::par_nosync(alloc).on(stream)", spscan::par_nosync(alloc).on(stream));
}

// ---------------------------------------------------------------------------------------------
// The nine forms of the four scans. Each explicit op or init differs from the default, so a form
// whose arguments got lost on the way would give a different result.

constexpr int scan_form_count = 9;

const char* const scan_form_names[scan_form_count] = {
  "inclusive_scan(first, last, result)",
  "inclusive_scan(first, last, result, maximum)",
  "inclusive_scan(first, last, result, init, plus)",
  "exclusive_scan(first, last, result)",
  "exclusive_scan(first, last, result, init)",
  "exclusive_scan(first, last, result, init, maximum)",
  "transform_inclusive_scan(first, last, result, negate, plus)",
  "transform_inclusive_scan(first, last, result, negate, init, plus)",
  "transform_exclusive_scan(first, last, result, negate, init, plus)"};

constexpr int inclusive_init           = 1000;
constexpr int exclusive_init           = 7;
constexpr int exclusive_maximum_init   = -100;
constexpr int transform_inclusive_init = 11;
constexpr int transform_exclusive_init = 13;

// Returns what the Thrust call returned. Callable from device code too.
template <class Policy>
__host__ __device__ int* run_scan_form(const Policy& policy, int form, const int* in, std::size_t n, int* out)
{
  const int* last = in + n;
  switch (form)
  {
    case 0:
      return thrust::inclusive_scan(policy, in, last, out);
    case 1:
      return thrust::inclusive_scan(policy, in, last, out, thrust::maximum<int>{});
    case 2:
      return thrust::inclusive_scan(policy, in, last, out, inclusive_init, thrust::plus<int>{});
    case 3:
      return thrust::exclusive_scan(policy, in, last, out);
    case 4:
      return thrust::exclusive_scan(policy, in, last, out, exclusive_init);
    case 5:
      return thrust::exclusive_scan(policy, in, last, out, exclusive_maximum_init, thrust::maximum<int>{});
    case 6:
      return thrust::transform_inclusive_scan(policy, in, last, out, thrust::negate<int>{}, thrust::plus<int>{});
    case 7:
      return thrust::transform_inclusive_scan(
        policy, in, last, out, thrust::negate<int>{}, transform_inclusive_init, thrust::plus<int>{});
    default:
      return thrust::transform_exclusive_scan(
        policy, in, last, out, thrust::negate<int>{}, transform_exclusive_init, thrust::plus<int>{});
  }
}

std::vector<int> expected_scan_form(int form, const std::vector<int>& in)
{
  using spscan_test::reference_exclusive;
  using spscan_test::reference_inclusive;
  std::vector<int> negated(in.size());
  std::transform(in.begin(), in.end(), negated.begin(), [](int x) {
    return -x;
  });
  const thrust::plus<int> plus;
  const thrust::maximum<int> maximum;
  switch (form)
  {
    case 0:
      return reference_inclusive<int>(in, plus);
    case 1:
      return reference_inclusive<int>(in, maximum);
    case 2:
      return reference_inclusive<int>(in, inclusive_init, plus);
    case 3:
      return reference_exclusive<int>(in, 0, plus);
    case 4:
      return reference_exclusive<int>(in, exclusive_init, plus);
    case 5:
      return reference_exclusive<int>(in, exclusive_maximum_init, maximum);
    case 6:
      return reference_inclusive<int>(negated, plus);
    case 7:
      return reference_inclusive<int>(negated, transform_inclusive_init, plus);
    default:
      return reference_exclusive<int>(negated, transform_exclusive_init, plus);
  }
}

// ---------------------------------------------------------------------------------------------
// Device data

template <class T>
void poison(thrust::device_vector<T>& v)
{
  ASSERT_EQ(cudaMemset(thrust::raw_pointer_cast(v.data()), spscan_test::poison_byte, v.size() * sizeof(T)),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <class T>
thrust::device_vector<T> poisoned(std::size_t n)
{
  thrust::device_vector<T> v(n);
  poison(v);
  return v;
}

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& v)
{
  std::vector<T> host(v.size());
  thrust::copy(v.begin(), v.end(), host.begin());
  return host;
}

// Checks every element; reports how many differ and the first one.
template <class T>
void expect_same_elements(const std::vector<T>& expected, const std::vector<T>& actual, const std::string& what)
{
  ASSERT_EQ(expected.size(), actual.size()) << what;
  std::size_t mismatches = 0;
  std::size_t first      = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
  {
    if (!(expected[i] == actual[i]))
    {
      first = mismatches == 0 ? i : first;
      ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << expected.size()
                            << " elements differ, the first at index " << first;
}

std::string trace(std::uint64_t seed, std::size_t n)
{
  return "seed " + std::to_string(seed) + ", n " + std::to_string(n);
}

#define SKIP_IF_ABOVE_TEST_CAP(n)                                                       \
  do                                                                                    \
  {                                                                                     \
    if ((n) > spscan_test::max_test_elements())                                         \
    {                                                                                   \
      GTEST_SKIP() << (n) << " elements exceed SPSCAN_TEST_MAX_ELEMENTS for this run"; \
    }                                                                                   \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Compile-time facts, asserted again at run time so that they show up as passing tests.

using par_type                 = std::remove_cv_t<decltype(spscan::par)>;
using par_on_type              = decltype(spscan::par.on(cudaStream_t{}));
using par_alloc_type           = decltype(spscan::par(std::declval<counting_allocator&>()));
using par_alloc_by_value_type  = decltype(spscan::par(counting_allocator{}));
using par_alloc_on_type        = decltype(spscan::par(std::declval<counting_allocator&>()).on(cudaStream_t{}));
using nosync_type              = std::remove_cv_t<decltype(spscan::par_nosync)>;
using nosync_on_type           = decltype(spscan::par_nosync.on(cudaStream_t{}));
using nosync_alloc_type        = decltype(spscan::par_nosync(std::declval<counting_allocator&>()));
using nosync_alloc_on_type     = decltype(spscan::par_nosync(std::declval<counting_allocator&>()).on(cudaStream_t{}));

template <class... Policies>
struct policy_list
{};

using every_policy_type = policy_list<par_type,
                                      par_on_type,
                                      par_alloc_type,
                                      par_alloc_by_value_type,
                                      par_alloc_on_type,
                                      nosync_type,
                                      nosync_on_type,
                                      nosync_alloc_type,
                                      nosync_alloc_on_type>;

template <class... Policies>
constexpr bool all_derive_from_thrusts_cuda_policy(policy_list<Policies...>)
{
  return (std::is_base_of_v<thrust::cuda_cub::execution_policy<Policies>, Policies> && ...)
      && (spscan::detail::is_cuda_policy<Policies> && ...);
}

template <class... Policies>
constexpr bool all_are_spscan_policies(policy_list<Policies...>)
{
  return (spscan::detail::is_spscan_policy<Policies> && ...);
}

// Overload resolution at Thrust's dispatch point (`inclusive_scan(derived_policy, ...)`, found
// by argument-dependent lookup), modelled on its one deciding parameter: the candidates are
// spscan's overload (par.inl), Thrust's CUDA backend, Thrust's generic implementation and
// Thrust's entry point, and their other parameters are the same templates, so the candidate
// whose policy parameter matches best is the one Thrust calls.
namespace dispatch_model
{
template <class D>
std::integral_constant<int, 0> policy_match(spscan::detail::scan_routing::execution_policy<D>&);
template <class D>
std::integral_constant<int, 1> policy_match(thrust::cuda_cub::execution_policy<D>&);
template <class D>
std::integral_constant<int, 2> policy_match(thrust::execution_policy<D>&);
template <class D>
std::integral_constant<int, 3> policy_match(const thrust::detail::execution_policy_base<D>&);

template <class Policy>
constexpr int best_match = decltype(policy_match(std::declval<Policy&>()))::value;

constexpr int spscan_overload      = 0;
constexpr int thrust_cuda_overload = 1;
} // namespace dispatch_model

template <class... Policies>
constexpr bool spscan_overload_wins_for_all(policy_list<Policies...>)
{
  return ((dispatch_model::best_match<Policies> == dispatch_model::spscan_overload) && ...);
}

// Every arity Thrust's entry points look up has an spscan overload; a missing one would not
// compile here (and would silently go to Thrust's CUDA backend in user code).
template <class Policy>
constexpr bool spscan_declares_every_form()
{
  namespace routing = spscan::detail::scan_routing;
  using neg         = thrust::negate<int>;
  using add         = thrust::plus<int>;
  Policy& (*p)()    = nullptr; // only named inside decltype
  int* it           = nullptr;
  using all_return_int_pointers = std::conjunction<
    std::is_same<decltype(routing::inclusive_scan(p(), it, it, it)), int*>,
    std::is_same<decltype(routing::inclusive_scan(p(), it, it, it, add{})), int*>,
    std::is_same<decltype(routing::inclusive_scan(p(), it, it, it, 1, add{})), int*>,
    std::is_same<decltype(routing::exclusive_scan(p(), it, it, it)), int*>,
    std::is_same<decltype(routing::exclusive_scan(p(), it, it, it, 1)), int*>,
    std::is_same<decltype(routing::exclusive_scan(p(), it, it, it, 1, add{})), int*>,
    std::is_same<decltype(routing::transform_inclusive_scan(p(), it, it, it, neg{}, add{})), int*>,
    std::is_same<decltype(routing::transform_inclusive_scan(p(), it, it, it, neg{}, 1, add{})), int*>,
    std::is_same<decltype(routing::transform_exclusive_scan(p(), it, it, it, neg{}, 1, add{})), int*>>;
  return all_return_int_pointers::value;
}

template <class... Policies>
constexpr bool spscan_declares_every_form_for_all(policy_list<Policies...>)
{
  return (spscan_declares_every_form<Policies>() && ...);
}

// How Thrust's temporary storage finds its allocation function for a policy (its
// get_temporary_buffer looks it up unqualified, beside two fallbacks). The stream-ordered
// functions of the nosync policies return raw pointers; the generic cudaMalloc path returns
// thrust::pointer, so the return type says which one a policy gets.
namespace temporary_storage_model
{
template <class Policy>
auto allocate(Policy& policy)
{
  using thrust::detail::get_temporary_buffer;
  using thrust::system::detail::generic::get_temporary_buffer;
  return get_temporary_buffer<int>(policy, std::ptrdiff_t{1});
}

template <class Policy>
constexpr bool is_stream_ordered =
  std::is_same_v<decltype(allocate(std::declval<Policy&>())), thrust::pair<int*, std::ptrdiff_t>>;
} // namespace temporary_storage_model

template <class Spscan, class Thrust>
constexpr bool allocates_like = temporary_storage_model::is_stream_ordered<Spscan>
                             == temporary_storage_model::is_stream_ordered<Thrust>;

constexpr bool every_form_allocates_like_thrust =
  allocates_like<par_type, std::remove_cv_t<decltype(thrust::cuda::par)>>
  && allocates_like<par_on_type, decltype(thrust::cuda::par.on(cudaStream_t{}))>
  && allocates_like<nosync_type, std::remove_cv_t<decltype(thrust::cuda::par_nosync)>>
  && allocates_like<nosync_on_type, decltype(thrust::cuda::par_nosync.on(cudaStream_t{}))>
  // Thrust's nosync policies allocate stream-ordered since CCCL 3 (CCCL 2.8: as par does).
  && (THRUST_VERSION < 300000
      || (temporary_storage_model::is_stream_ordered<nosync_type>
          && temporary_storage_model::is_stream_ordered<nosync_on_type>))
  && !temporary_storage_model::is_stream_ordered<par_type> && !temporary_storage_model::is_stream_ordered<par_on_type>;

static_assert(all_derive_from_thrusts_cuda_policy(every_policy_type{}));
static_assert(all_are_spscan_policies(every_policy_type{}));
static_assert(!spscan::detail::is_spscan_policy<std::remove_cv_t<decltype(thrust::cuda::par)>>);
static_assert(!spscan::detail::is_spscan_policy<std::remove_cv_t<decltype(thrust::device)>>);
static_assert(spscan_overload_wins_for_all(every_policy_type{}));
static_assert(dispatch_model::best_match<std::remove_cv_t<decltype(thrust::cuda::par)>>
              == dispatch_model::thrust_cuda_overload);
static_assert(spscan_declares_every_form_for_all(every_policy_type{}));
static_assert(every_form_allocates_like_thrust);

TEST(ParPolicyTypes, EveryFormIsAThrustCudaPolicyAndAnSpscanOne)
{
  EXPECT_TRUE(all_derive_from_thrusts_cuda_policy(every_policy_type{}));
  EXPECT_TRUE(all_are_spscan_policies(every_policy_type{}));
  EXPECT_FALSE(spscan::detail::is_spscan_policy<std::remove_cv_t<decltype(thrust::cuda::par)>>);
}

TEST(ParPolicyTypes, SpscansOverloadIsTheBestMatchForEveryFormAndArity)
{
  EXPECT_TRUE(spscan_overload_wins_for_all(every_policy_type{}));
  // The model tells the candidates apart: Thrust's own policy still picks Thrust's backend.
  EXPECT_EQ(dispatch_model::best_match<std::remove_cv_t<decltype(thrust::cuda::par)>>,
            dispatch_model::thrust_cuda_overload);
  EXPECT_TRUE(spscan_declares_every_form_for_all(every_policy_type{}));
}

// Thrust's CUDA backend takes every algorithm's stream and synchronization from these two
// customization points, so equal answers mean equal behaviour for every algorithm.
template <class Spscan, class Thrust>
void expect_same_stream_and_sync(Spscan spscan_policy, Thrust thrust_policy, const char* what)
{
  SCOPED_TRACE(what);
  EXPECT_EQ(thrust::cuda_cub::stream(spscan_policy), thrust::cuda_cub::stream(thrust_policy));
  EXPECT_EQ(thrust::cuda_cub::must_perform_optional_synchronization(spscan_policy),
            thrust::cuda_cub::must_perform_optional_synchronization(thrust_policy));
}

TEST(ParPolicyTypes, StreamSynchronizationAndAllocatorMatchThrustsPolicies)
{
  // A stream handle is only compared here, never used, so no GPU is needed.
  const cudaStream_t stream = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x5000});
  allocation_tally tally;
  counting_allocator alloc{&tally};

  expect_same_stream_and_sync(spscan::par, thrust::cuda::par, "par");
  expect_same_stream_and_sync(spscan::par.on(stream), thrust::cuda::par.on(stream), "par.on");
  expect_same_stream_and_sync(spscan::par(alloc), thrust::cuda::par(alloc), "par(alloc)");
  expect_same_stream_and_sync(spscan::par(alloc).on(stream), thrust::cuda::par(alloc).on(stream), "par(alloc).on");
  expect_same_stream_and_sync(spscan::par_nosync, thrust::cuda::par_nosync, "par_nosync");
  expect_same_stream_and_sync(spscan::par_nosync.on(stream), thrust::cuda::par_nosync.on(stream), "par_nosync.on");
  expect_same_stream_and_sync(spscan::par_nosync(alloc), thrust::cuda::par_nosync(alloc), "par_nosync(alloc)");
  expect_same_stream_and_sync(
    spscan::par_nosync(alloc).on(stream), thrust::cuda::par_nosync(alloc).on(stream), "par_nosync(alloc).on");
  auto synchronizing     = spscan::par(alloc).on(stream);
  auto not_synchronizing = spscan::par_nosync(alloc).on(stream);
  auto on_stream         = spscan::par.on(stream);
  auto on_default_stream = spscan::par;
  EXPECT_TRUE(thrust::cuda_cub::must_perform_optional_synchronization(synchronizing));
  EXPECT_FALSE(thrust::cuda_cub::must_perform_optional_synchronization(not_synchronizing));
  EXPECT_EQ(thrust::cuda_cub::stream(on_stream), stream);
  EXPECT_NE(thrust::cuda_cub::stream(on_default_stream), stream);

  // An lvalue allocator is held by reference, through .on() too; an rvalue one by value.
  auto by_reference = spscan::par(alloc).on(stream);
  EXPECT_EQ(&by_reference.get_allocator(), &alloc);
  auto by_value = spscan::par(counting_allocator{&tally});
  EXPECT_NE(&by_value.get_allocator(), &alloc);
  EXPECT_EQ(by_value.get_allocator().tally, &tally);

  // Without an allocator, par_nosync[.on] allocate stream-ordered and par[.on] do not, as in Thrust.
  EXPECT_TRUE(every_form_allocates_like_thrust);
}

// Without a GPU, the synchronizing forms throw thrust::system_error from their final
// synchronization, after the route was taken; with one, nothing may throw.
// Returns whether the call returned normally.
template <class Call>
bool call_tolerating_missing_gpu(Call&& call)
{
  try
  {
    call();
    return true;
  }
  catch (const thrust::system_error&)
  {
    if (spscan_test::gpu_available())
    {
      throw;
    }
    return false;
  }
}

TEST(ParPolicyDispatch, ThrustEntryPointsReachSpscanForEveryPolicyAndForm)
{
  // Empty ranges: the call reaches spscan's route and returns without touching the device.
  allocation_tally tally;
  counting_allocator alloc{&tally};
  for_each_policy_form(cudaStreamPerThread, alloc, [&](const char* policy_name, const auto& policy) {
    SCOPED_TRACE(policy_name);
    for (int form = 0; form < scan_form_count; ++form)
    {
      SCOPED_TRACE(scan_form_names[form]);
      int* const nowhere = nullptr;
      route_probe routed;
      int* end            = reinterpret_cast<int*>(std::uintptr_t{16});
      const bool returned = call_tolerating_missing_gpu([&] {
        end = run_scan_form(policy, form, nowhere, 0, nowhere);
      });
      EXPECT_EQ(routed.kernel_calls(), 1u);
      EXPECT_EQ(routed.thrust_calls(), 0u);
      if (returned)
      {
        EXPECT_EQ(end, nowhere);
      }
    }
  });
  EXPECT_EQ(tally.allocations, 0u);
}

// ---------------------------------------------------------------------------------------------
// An accumulator wider than the kernel holds (route.h: 32 bytes) takes the fallback, which must
// run Thrust's CUDA backend once, not come back to spscan's overload.

using spscan_test::wide::add_wide;
using spscan_test::wide::wide_value;

struct widen
{
  __host__ __device__ wide_value operator()(int x) const
  {
    return wide_value{{x, -2LL * x, 1LL * x * x, 1, 3LL - x}};
  }
};

constexpr wide_value wide_init{{5, -6, 7, -8, 9}};

constexpr int fallback_form_count                     = 4;
const char* const fallback_form_names[fallback_form_count] = {
  "inclusive_scan(first, last, result, op)",
  "exclusive_scan(first, last, result, init, op)",
  "transform_inclusive_scan(first, last, result, widen, op)",
  "transform_exclusive_scan(first, last, result, widen, init, op)"};

// Forms 0 and 1 scan `wide_in`; forms 2 and 3 transform `ints`.
template <class Policy>
wide_value* run_fallback_form(
  const Policy& policy, int form, const wide_value* wide_in, const int* ints, std::size_t n, wide_value* out)
{
  switch (form)
  {
    case 0:
      return thrust::inclusive_scan(policy, wide_in, wide_in + n, out, add_wide{});
    case 1:
      return thrust::exclusive_scan(policy, wide_in, wide_in + n, out, wide_init, add_wide{});
    case 2:
      return thrust::transform_inclusive_scan(policy, ints, ints + n, out, widen{}, add_wide{});
    default:
      return thrust::transform_exclusive_scan(policy, ints, ints + n, out, widen{}, wide_init, add_wide{});
  }
}

TEST(ParPolicyDispatch, WideAccumulatorsTakeThrustsRouteOnceForEveryForm)
{
  for (int form = 0; form < fallback_form_count; ++form)
  {
    SCOPED_TRACE(fallback_form_names[form]);
    wide_value* const nowhere = nullptr;
    route_probe routed;
    call_tolerating_missing_gpu([&] {
      run_fallback_form(spscan::par_nosync, form, nowhere, nullptr, 0, nowhere);
    });
    EXPECT_EQ(routed.thrust_calls(), 1u);
    EXPECT_EQ(routed.kernel_calls(), 0u);
  }
}

TEST(ParPolicyOnGpu, WideAccumulatorsRunThrustsCudaBackendWithThrustsResults)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 20'011;
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));

  const std::vector<int> ints = spscan_test::random_values<int>(n, seed);
  std::vector<wide_value> wide(n);
  std::transform(ints.begin(), ints.end(), wide.begin(), widen{});
  const thrust::device_vector<int> d_ints(ints.begin(), ints.end());
  const thrust::device_vector<wide_value> d_wide(wide.begin(), wide.end());
  const wide_value* wide_in = thrust::raw_pointer_cast(d_wide.data());
  const int* ints_in        = thrust::raw_pointer_cast(d_ints.data());

  for (int form = 0; form < fallback_form_count; ++form)
  {
    SCOPED_TRACE(fallback_form_names[form]);
    const bool exclusive = form == 1 || form == 3;
    const std::vector<wide_value> expected =
      exclusive ? spscan_test::reference_exclusive<wide_value>(wide, wide_init, add_wide{})
                : spscan_test::reference_inclusive<wide_value>(wide, add_wide{});

    auto by_thrust = poisoned<wide_value>(n);
    run_fallback_form(thrust::device, form, wide_in, ints_in, n, thrust::raw_pointer_cast(by_thrust.data()));

    auto by_spscan_policy = poisoned<wide_value>(n);
    wide_value* out       = thrust::raw_pointer_cast(by_spscan_policy.data());
    route_probe routed;
    wide_value* end = run_fallback_form(spscan::par, form, wide_in, ints_in, n, out);
    EXPECT_EQ(routed.thrust_calls(), 1u);
    EXPECT_EQ(routed.kernel_calls(), 0u);
    EXPECT_EQ(end, out + n);

    expect_same_elements(expected, to_host(by_thrust), "thrust::device vs CPU reference");
    expect_same_elements(to_host(by_thrust), to_host(by_spscan_policy), "spscan::par vs thrust::device");
  }
}

// ---------------------------------------------------------------------------------------------
// On the GPU: every policy form × every scan form runs spscan's kernel with Thrust's results.

TEST(ParPolicyOnGpu, EveryPolicyAndScanFormRunsSpscansKernelWithThrustsResults)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 50'003; // many tiles, so every call takes temporary storage
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));

  const std::vector<int> input = spscan_test::random_values<int>(n, seed);
  const thrust::device_vector<int> d_input(input.begin(), input.end());
  const int* in = thrust::raw_pointer_cast(d_input.data());

  std::vector<std::vector<int>> expected(scan_form_count);
  for (int form = 0; form < scan_form_count; ++form)
  {
    SCOPED_TRACE(scan_form_names[form]);
    expected[form] = expected_scan_form(form, input);
    auto by_thrust = poisoned<int>(n);
    run_scan_form(thrust::device, form, in, n, thrust::raw_pointer_cast(by_thrust.data()));
    expect_same_elements(expected[form], to_host(by_thrust), "thrust::device vs CPU reference");
  }

  scoped_stream stream;
  allocation_tally tally;
  counting_allocator alloc{&tally};
  auto out_vector = poisoned<int>(n);
  int* out        = thrust::raw_pointer_cast(out_vector.data());
  for_each_policy_form(stream.get(), alloc, [&](const char* policy_name, const auto& policy) {
    SCOPED_TRACE(policy_name);
    for (int form = 0; form < scan_form_count; ++form)
    {
      SCOPED_TRACE(scan_form_names[form]);
      poison(out_vector);
      route_probe routed;
      int* end = run_scan_form(policy, form, in, n, out);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the nosync forms may still be running
      EXPECT_EQ(routed.kernel_calls(), 1u);
      EXPECT_EQ(routed.thrust_calls(), 0u);
      EXPECT_EQ(end, out + n);
      expect_same_elements(expected[form], to_host(out_vector), "spscan policy vs thrust::device");
    }
  });
}

TEST(ParPolicyOnGpu, AllocatorFormsTakeEveryTemporaryThroughTheAllocatorAndOthersNever)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 50'003; // many tiles: spscan needs temporary storage for the tile states
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));

  const std::vector<int> input = spscan_test::random_values<int>(n, seed);
  const thrust::device_vector<int> d_input(input.begin(), input.end());
  auto out_vector = poisoned<int>(n);

  scoped_stream stream;
  allocation_tally tally;
  counting_allocator alloc{&tally};
  for_each_policy_form(stream.get(), alloc, [&](const char* policy_name, const auto& policy) {
    SCOPED_TRACE(policy_name);
    constexpr bool with_allocator = holds_allocator<std::remove_cv_t<std::remove_reference_t<decltype(policy)>>>::value;
    for (int form = 0; form < scan_form_count; ++form)
    {
      SCOPED_TRACE(scan_form_names[form]);
      const allocation_tally before = tally;
      run_scan_form(policy, form, thrust::raw_pointer_cast(d_input.data()), n, thrust::raw_pointer_cast(out_vector.data()));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (with_allocator)
      {
        EXPECT_GE(tally.allocations - before.allocations, 1u);
        EXPECT_GT(tally.bytes - before.bytes, 0u);
      }
      else
      {
        EXPECT_EQ(tally.allocations, before.allocations);
      }
      EXPECT_EQ(tally.allocations, tally.deallocations); // all given back by the end of the call
    }
  });
  EXPECT_GE(tally.allocations, 4u * scan_form_count);
}

// ---------------------------------------------------------------------------------------------
// Synchronization: nosync forms may return while the stream still works; the others may not.

__device__ unsigned long long nanoseconds_now()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Keeps the stream busy until the host releases it, or gives up after `limit_ns` and says so
// (a call that wrongly waits for the stream then fails the test instead of hanging it).
__global__ void hold_stream_until_released(const volatile int* release, int* gave_up, unsigned long long limit_ns)
{
  const unsigned long long start = nanoseconds_now();
  while (*release == 0)
  {
    if (nanoseconds_now() - start > limit_ns)
    {
      *gave_up = 1;
      return;
    }
  }
}

__global__ void keep_busy_for(unsigned long long duration_ns)
{
  const unsigned long long start = nanoseconds_now();
  while (nanoseconds_now() - start < duration_ns)
  {
  }
}

class mapped_flags
{
public:
  mapped_flags()
  {
    EXPECT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped), cudaSuccess);
    host_[0] = 0;
    host_[1] = 0;
    EXPECT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0), cudaSuccess);
  }
  ~mapped_flags()
  {
    cudaFreeHost(host_);
  }
  mapped_flags(const mapped_flags&)            = delete;
  mapped_flags& operator=(const mapped_flags&) = delete;

  void release()
  {
    static_cast<volatile int*>(host_)[0] = 1;
  }
  bool gave_up() const
  {
    return static_cast<const volatile int*>(host_)[1] != 0;
  }
  const int* release_flag_on_device() const
  {
    return device_;
  }
  int* gave_up_flag_on_device() const
  {
    return device_ + 1;
  }

private:
  int* host_   = nullptr;
  int* device_ = nullptr;
};

template <class MakePolicy>
void expect_returns_before_stream_is_idle(cudaStream_t stream, MakePolicy make_policy)
{
  const std::size_t n = 50'003; // many tiles: temporary storage is taken and given back too
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const std::vector<int> input = spscan_test::random_values<int>(n, seed);
  const thrust::device_vector<int> d_input(input.begin(), input.end());
  auto out_vector = poisoned<int>(n);

  mapped_flags flags;
  hold_stream_until_released<<<1, 1, 0, stream>>>(flags.release_flag_on_device(), flags.gave_up_flag_on_device(), 5'000'000'000ull);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);

  route_probe routed;
  int* end = thrust::inclusive_scan(
    make_policy(), d_input.data().get(), d_input.data().get() + n, thrust::raw_pointer_cast(out_vector.data()));
  const cudaError_t right_after_return = cudaStreamQuery(stream);
  flags.release();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  EXPECT_EQ(right_after_return, cudaErrorNotReady) << "the call waited for its stream";
  EXPECT_FALSE(flags.gave_up()) << "the call waited for its stream";
  EXPECT_EQ(routed.kernel_calls(), 1u);
  EXPECT_EQ(end, thrust::raw_pointer_cast(out_vector.data()) + n);
  expect_same_elements(spscan_test::reference_inclusive<int>(input, thrust::plus<int>{}), to_host(out_vector), "result");
}

TEST(ParPolicyOnGpu, NosyncFormsReturnWhileTheirStreamIsStillBusy)
{
  SPSCAN_REQUIRE_GPU();
  SKIP_IF_ABOVE_TEST_CAP(std::size_t{50'003});
  scoped_stream stream;
  {
    SCOPED_TRACE("spscan::par_nosync.on(stream)");
    expect_returns_before_stream_is_idle(stream.get(), [&] {
      return spscan::par_nosync.on(stream.get());
    });
  }
  {
    SCOPED_TRACE("spscan::par_nosync on the default stream");
    expect_returns_before_stream_is_idle(cudaStream_t{}, [] {
      return spscan::par_nosync;
    });
  }
}

// Within one tile: no temporary storage, whose cudaFree would wait for the device by itself.
constexpr std::size_t one_tile_of_ints = spscan::detail::scan_tuning<int, int, int>::tile_items / 8;

template <class Policy>
void expect_returns_with_stream_idle(cudaStream_t stream, const Policy& policy)
{
  const std::size_t n      = one_tile_of_ints;
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const std::vector<int> input = spscan_test::random_values<int>(n, seed);
  const thrust::device_vector<int> d_input(input.begin(), input.end());
  auto out_vector = poisoned<int>(n);

  keep_busy_for<<<1, 1, 0, stream>>>(200'000'000ull); // 0.2 s: far longer than the call itself
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  route_probe routed;
  thrust::inclusive_scan(policy, d_input.data().get(), d_input.data().get() + n, thrust::raw_pointer_cast(out_vector.data()));
  EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess) << "the call returned before its stream finished";
  EXPECT_EQ(routed.kernel_calls(), 1u);
  expect_same_elements(spscan_test::reference_inclusive<int>(input, thrust::plus<int>{}), to_host(out_vector), "result");
}

TEST(ParPolicyOnGpu, SynchronizingFormsReturnWithTheirStreamIdle)
{
  SPSCAN_REQUIRE_GPU();
  SKIP_IF_ABOVE_TEST_CAP(one_tile_of_ints);
  scoped_stream stream;
  {
    SCOPED_TRACE("spscan::par.on(stream)");
    expect_returns_with_stream_idle(stream.get(), spscan::par.on(stream.get()));
  }
  {
    SCOPED_TRACE("spscan::par on the default stream");
    expect_returns_with_stream_idle(cudaStream_t{}, spscan::par);
  }
}

// ---------------------------------------------------------------------------------------------
// Every other algorithm is Thrust's, untouched.

struct is_odd
{
  __host__ __device__ bool operator()(int x) const
  {
    return x % 2 != 0;
  }
};

struct other_algorithm_results
{
  std::vector<int> sorted;
  int sum;
  std::vector<int> negated;
  std::vector<int> odd;
  std::vector<int> inclusive_by_key;
  std::vector<int> exclusive_by_key;
};

constexpr int by_key_init = 3;

template <class Policy>
other_algorithm_results run_other_algorithms(const Policy& policy, const std::vector<int>& keys, const std::vector<int>& values)
{
  const std::size_t n = values.size();
  const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<int> d_values(values.begin(), values.end());
  other_algorithm_results r;

  thrust::device_vector<int> sorted = d_values;
  thrust::sort(policy, sorted.begin(), sorted.end());
  r.sorted = to_host(sorted);

  r.sum = thrust::reduce(policy, d_values.begin(), d_values.end());

  auto negated = poisoned<int>(n);
  thrust::transform(policy, d_values.begin(), d_values.end(), negated.begin(), thrust::negate<int>{});
  r.negated = to_host(negated);

  auto odd = poisoned<int>(n);
  odd.resize(thrust::copy_if(policy, d_values.begin(), d_values.end(), odd.begin(), is_odd{}) - odd.begin());
  r.odd = to_host(odd);

  auto inclusive = poisoned<int>(n);
  thrust::inclusive_scan_by_key(policy, d_keys.begin(), d_keys.end(), d_values.begin(), inclusive.begin());
  r.inclusive_by_key = to_host(inclusive);

  auto exclusive = poisoned<int>(n);
  thrust::exclusive_scan_by_key(policy, d_keys.begin(), d_keys.end(), d_values.begin(), exclusive.begin(), by_key_init);
  r.exclusive_by_key = to_host(exclusive);
  return r;
}

other_algorithm_results other_algorithms_on_cpu(const std::vector<int>& keys, const std::vector<int>& values)
{
  other_algorithm_results r;
  r.sorted = values;
  std::sort(r.sorted.begin(), r.sorted.end());
  r.sum = std::accumulate(values.begin(), values.end(), 0);
  for (int v : values)
  {
    r.negated.push_back(-v);
    if (is_odd{}(v))
    {
      r.odd.push_back(v);
    }
  }
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    const bool run_starts = i == 0 || keys[i] != keys[i - 1];
    r.inclusive_by_key.push_back(run_starts ? values[i] : r.inclusive_by_key.back() + values[i]);
    r.exclusive_by_key.push_back(run_starts ? by_key_init : r.exclusive_by_key.back() + values[i - 1]);
  }
  return r;
}

void expect_same_results(const other_algorithm_results& expected, const other_algorithm_results& actual, const char* what)
{
  SCOPED_TRACE(what);
  expect_same_elements(expected.sorted, actual.sorted, "sort");
  EXPECT_EQ(expected.sum, actual.sum) << "reduce";
  expect_same_elements(expected.negated, actual.negated, "transform");
  expect_same_elements(expected.odd, actual.odd, "copy_if");
  expect_same_elements(expected.inclusive_by_key, actual.inclusive_by_key, "inclusive_scan_by_key");
  expect_same_elements(expected.exclusive_by_key, actual.exclusive_by_key, "exclusive_scan_by_key");
}

// sort, reduce and transform run Thrust's implementation, never spscan's route; copy_if and the
// two by-key scans run spscan's kernels. All give Thrust's results.
TEST(ParPolicyOnGpu, OtherAlgorithmsRunThrustsImplementationAndSelectionsAndByKeyScansRunSpscans)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 30'011;
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const std::vector<int> values = spscan_test::random_values<int>(n, seed);
  // Keys in runs: the sign of another random sequence.
  std::vector<int> keys = spscan_test::random_values<int>(n, seed ^ 0x9e3779b97f4a7c15ull);
  for (int& k : keys)
  {
    k = k > 0 ? 1 : 2;
  }

  const other_algorithm_results by_thrust = run_other_algorithms(thrust::device, keys, values);
  route_probe routed;
  const other_algorithm_results by_spscan_policy = run_other_algorithms(spscan::par, keys, values);
  EXPECT_EQ(routed.kernel_calls(), 3u) << "copy_if and the by-key scans";
  EXPECT_EQ(routed.thrust_calls(), 0u) << "nothing of spscan's routes to Thrust";

  expect_same_results(other_algorithms_on_cpu(keys, values), by_thrust, "thrust::device vs CPU reference");
  expect_same_results(by_thrust, by_spscan_policy, "spscan::par vs thrust::device");
}

// thrust::shuffle is built on thrust::inclusive_scan with the caller's policy (Thrust's generic
// implementation; the CUDA backend has no shuffle of its own), so with spscan::par its scan runs
// on spscan. The permutation must be Thrust's, element for element.
TEST(ParPolicyOnGpu, ShuffleScansOnSpscanAndGivesThrustsPermutation)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 20'011;
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const std::vector<int> values = spscan_test::random_values<int>(n, seed);
  const auto engine_seed        = static_cast<thrust::default_random_engine::result_type>(seed);

  thrust::device_vector<int> by_thrust(values.begin(), values.end());
  thrust::shuffle(thrust::device, by_thrust.begin(), by_thrust.end(), thrust::default_random_engine(engine_seed));

  thrust::device_vector<int> by_spscan_policy(values.begin(), values.end());
  route_probe routed;
  thrust::shuffle(spscan::par, by_spscan_policy.begin(), by_spscan_policy.end(), thrust::default_random_engine(engine_seed));
  EXPECT_EQ(routed.kernel_calls(), 1u);
  EXPECT_EQ(routed.thrust_calls(), 0u);

  const std::vector<int> thrust_permutation = to_host(by_thrust);
  expect_same_elements(thrust_permutation, to_host(by_spscan_policy), "spscan::par vs thrust::device");
  std::vector<int> sorted_values = values;
  std::vector<int> sorted_result = thrust_permutation;
  std::sort(sorted_values.begin(), sorted_values.end());
  std::sort(sorted_result.begin(), sorted_result.end());
  expect_same_elements(sorted_values, sorted_result, "a permutation of the input");
}

// ---------------------------------------------------------------------------------------------
// From device code, Thrust runs scans sequentially in the calling thread; so must spscan::par.

__global__ void run_every_scan_form_on_device(const int* in, std::size_t n, int* outs, int** ends)
{
  for (int form = 0; form < scan_form_count; ++form)
  {
    ends[form] = run_scan_form(spscan::par, form, in, n, outs + form * n);
  }
}

TEST(ParPolicyOnGpu, DeviceSideCallsRunEveryFormSequentially)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 3'001;
  SKIP_IF_ABOVE_TEST_CAP(n);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const std::vector<int> input = spscan_test::random_values<int>(n, seed);
  const thrust::device_vector<int> d_input(input.begin(), input.end());
  auto outs = poisoned<int>(n * scan_form_count);
  thrust::device_vector<int*> ends(scan_form_count);

  route_probe routed;
  run_every_scan_form_on_device<<<1, 1>>>(
    thrust::raw_pointer_cast(d_input.data()), n, thrust::raw_pointer_cast(outs.data()), thrust::raw_pointer_cast(ends.data()));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(routed.kernel_calls() + routed.thrust_calls(), 0u); // host calls only are counted

  const std::vector<int> all = to_host(outs);
  for (int form = 0; form < scan_form_count; ++form)
  {
    SCOPED_TRACE(scan_form_names[form]);
    const std::vector<int> got(all.begin() + form * n, all.begin() + (form + 1) * n);
    expect_same_elements(expected_scan_form(form, input), got, "device-side call vs CPU reference");
    EXPECT_EQ(static_cast<int*>(ends[form]), thrust::raw_pointer_cast(outs.data()) + (form + 1) * n);
  }
}

} // namespace

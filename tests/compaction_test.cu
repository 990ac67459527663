// Thrust's compactions beyond the three selections keep Thrust's contract on spscan: remove_copy
// and stable_partition_copy on the selection program; unique_count on its count of run heads, and
// remove, remove_if, partition, stable_partition, unique (in place), unique_copy, unique_by_key (in
// place) and unique_by_key_copy on the selection program, where their routes are the default
// (select.inl), Thrust's CUDA backend otherwise; reduce_by_key on its own program where that is
// its default (reduce_by_key.inl; reduce_by_key_test.cu tests the program), all through spscan's
// dispatch. On the CPU: host policies give the sequential results, a program's own system gets its own
// overloads, and Thrust's CUDA policies are recognized as reaching its CUDA backend in every form.
// On a GPU: each kernel route (called as its dispatch calls it, so that it runs whatever the
// default) gives the sequential reference's and Thrust's results and ends, in place too, around
// tile edges and on inputs large enough for the ring engine; each public call takes the route it
// should, from spscan's functions and from Thrust's entry points with spscan::par.
#include <spscan/execution_policy.h>
#include <spscan/partition.h>
#include <spscan/reduce.h>
#include <spscan/remove.h>
#include <spscan/unique.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/unique.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/random.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace
{

struct is_odd
{
  template <class T>
  SPSCAN_HOST_DEVICE bool operator()(const T& x) const
  {
    return (static_cast<long long>(x) & 1) != 0;
  }
};

// An equivalence coarser than ==: the same value divided by 4.
struct same_quarter
{
  template <class A, class B>
  SPSCAN_HOST_DEVICE bool operator()(const A& a, const B& b) const
  {
    return static_cast<long long>(a) / 4 == static_cast<long long>(b) / 4;
  }
};

// The kernel routes, called as the dispatch calls them (route.h), with a copy of the policy.
namespace kernel
{
#define SPSCAN_TEST_KERNEL_ROUTE(name)                                  \
  template <class Policy, class... Args>                                \
  auto name(const Policy& policy, Args... args)                         \
  {                                                                     \
    auto p = policy;                                                    \
    return spscan::detail::name##_on_kernel::launch(p, args...);        \
  }
SPSCAN_TEST_KERNEL_ROUTE(remove)
SPSCAN_TEST_KERNEL_ROUTE(remove_if)
SPSCAN_TEST_KERNEL_ROUTE(remove_copy)
SPSCAN_TEST_KERNEL_ROUTE(unique)
SPSCAN_TEST_KERNEL_ROUTE(unique_copy)
SPSCAN_TEST_KERNEL_ROUTE(unique_count)
SPSCAN_TEST_KERNEL_ROUTE(unique_by_key)
SPSCAN_TEST_KERNEL_ROUTE(unique_by_key_copy)
SPSCAN_TEST_KERNEL_ROUTE(partition)
SPSCAN_TEST_KERNEL_ROUTE(stable_partition)
SPSCAN_TEST_KERNEL_ROUTE(reduce_by_key)
#undef SPSCAN_TEST_KERNEL_ROUTE
} // namespace kernel

// Sequential references.
template <class T, class Pred>
std::vector<T> kept_unless(const std::vector<T>& in, const std::vector<T>& decides, Pred pred)
{
  std::vector<T> out;
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    if (!pred(decides[i]))
    {
      out.push_back(in[i]);
    }
  }
  return out;
}

// The run heads' positions: i == 0 or !pred(in[i-1], in[i]).
template <class T, class Pred>
std::vector<std::size_t> run_heads(const std::vector<T>& in, Pred pred)
{
  std::vector<std::size_t> heads;
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    if (i == 0 || !pred(in[i - 1], in[i]))
    {
      heads.push_back(i);
    }
  }
  return heads;
}

template <class T>
std::vector<T> at(const std::vector<T>& in, const std::vector<std::size_t>& positions)
{
  std::vector<T> out;
  for (const std::size_t i : positions)
  {
    out.push_back(in[i]);
  }
  return out;
}

template <class T>
std::vector<T> prefix(const thrust::device_vector<T>& values, std::ptrdiff_t size)
{
  const std::vector<T> all = spscan_test::to_host(values);
  return std::vector<T>(all.begin(), all.begin() + size);
}

// Values with runs of equal neighbours about `mean` long, and a payload that differs within runs
// where the type has room for one.
template <class T>
std::vector<T> run_values(std::size_t n, double mean, std::uint64_t seed)
{
  const std::vector<int> keys = spscan_test::random_segment_keys<int>(n, mean, seed);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    out[i] = static_cast<T>(keys[i] * 4 + static_cast<int>((i * 2654435761u) >> 30)); // key * 4 + 0..3
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CPU

TEST(Compaction, HostPoliciesGiveTheSequentialResults)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, 1000));
  const std::vector<int> in      = run_values<int>(1000, 3.0, seed);
  const std::vector<int> stencil = spscan_test::random_values<int>(1000, seed + 1);
  const auto exact_heads         = run_heads(in, std::equal_to<int>{});
  const auto quarter_heads       = run_heads(in, same_quarter{});

  std::vector<int> v = in;
  auto end = spscan::remove_if(thrust::host, v.begin(), v.end(), is_odd{});
  EXPECT_EQ(std::vector<int>(v.begin(), end), kept_unless(in, in, is_odd{})) << "remove_if";
  v   = in;
  end = spscan::remove_if(v.begin(), v.end(), stencil.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(v.begin(), end), kept_unless(in, stencil, is_odd{})) << "remove_if with stencil";
  v   = in;
  end = spscan::remove(v.begin(), v.end(), in[0]);
  EXPECT_EQ(std::vector<int>(v.begin(), end), kept_unless(in, in, [&](int x) { return x == in[0]; })) << "remove";
  std::vector<int> out(in.size(), -7), other(in.size(), -7);
  end = spscan::remove_copy(thrust::host, in.begin(), in.end(), out.begin(), in[0]);
  EXPECT_EQ(std::vector<int>(out.begin(), end), kept_unless(in, in, [&](int x) { return x == in[0]; })) << "remove_copy";

  v   = in;
  end = spscan::unique(v.begin(), v.end());
  EXPECT_EQ(std::vector<int>(v.begin(), end), at(in, exact_heads)) << "unique";
  end = spscan::unique_copy(thrust::host, in.begin(), in.end(), out.begin(), same_quarter{});
  EXPECT_EQ(std::vector<int>(out.begin(), end), at(in, quarter_heads)) << "unique_copy with a predicate";
  EXPECT_EQ(spscan::unique_count(in.begin(), in.end()), static_cast<std::ptrdiff_t>(exact_heads.size())) << "unique_count";

  std::vector<int> keys = in, values(in.size());
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    values[i] = static_cast<int>(i);
  }
  const std::vector<int> positions(values);
  const auto by_key = spscan::unique_by_key(thrust::host, keys.begin(), keys.end(), values.begin(), same_quarter{});
  EXPECT_EQ(std::vector<int>(keys.begin(), by_key.first), at(in, quarter_heads)) << "unique_by_key: keys";
  EXPECT_EQ(std::vector<int>(values.begin(), by_key.second), at(positions, quarter_heads)) << "unique_by_key: values";

  std::vector<int> sums(in.size());
  const auto reduced = spscan::reduce_by_key(in.begin(), in.end(), positions.begin(), out.begin(), sums.begin());
  std::vector<int> expected_sums;
  for (std::size_t k = 0; k < exact_heads.size(); ++k)
  {
    const std::size_t stop = k + 1 < exact_heads.size() ? exact_heads[k + 1] : in.size();
    int sum                = 0;
    for (std::size_t i = exact_heads[k]; i < stop; ++i)
    {
      sum += positions[i];
    }
    expected_sums.push_back(sum);
  }
  EXPECT_EQ(std::vector<int>(out.begin(), reduced.first), at(in, exact_heads)) << "reduce_by_key: keys";
  EXPECT_EQ(std::vector<int>(sums.begin(), reduced.second), expected_sums) << "reduce_by_key: sums";

  v                      = in;
  const auto stable_mid  = spscan::stable_partition(thrust::host, v.begin(), v.end(), is_odd{});
  std::vector<int> odd   = kept_unless(in, in, [](int x) { return !is_odd{}(x); });
  std::vector<int> even  = kept_unless(in, in, is_odd{});
  EXPECT_EQ(std::vector<int>(v.begin(), stable_mid), odd) << "stable_partition: selected";
  EXPECT_EQ(std::vector<int>(stable_mid, v.end()), even) << "stable_partition: rejected";
  v             = in;
  const auto mid = spscan::partition(v.begin(), v.end(), is_odd{});
  EXPECT_EQ(mid - v.begin(), static_cast<std::ptrdiff_t>(odd.size())) << "partition";
  EXPECT_TRUE(std::all_of(v.begin(), mid, is_odd{}) && std::none_of(mid, v.end(), is_odd{})) << "partition";
  const auto ends = spscan::stable_partition_copy(in.begin(), in.end(), out.begin(), other.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), ends.first), odd) << "stable_partition_copy: selected";
  EXPECT_EQ(std::vector<int>(other.begin(), ends.second), even) << "stable_partition_copy: rejected";
}

template <template <class...> class Target, class Policy, class... Args>
constexpr bool reaches_cuda_backend = spscan::detail::thrust_reaches_cuda_backend<Target, Policy, Args...>;

TEST(Compaction, ThrustsCudaPoliciesReachTheCudaBackendForEveryForm)
{
  namespace probe = spscan::detail::thrust_dispatch;
  using device    = thrust::cuda_cub::par_t;
  using nosync    = thrust::cuda_cub::execute_on_stream_nosync;
  using host      = ::cuda::std::remove_cvref_t<decltype(spscan::detail::derived_policy(thrust::host))>;
  using it        = thrust::device_vector<int>::iterator;
  using eq        = thrust::equal_to<int>;
  using plus      = thrust::plus<int>;
  static_assert(reaches_cuda_backend<probe::remove_target, device, it, it, int>);
  static_assert(reaches_cuda_backend<probe::remove_if_target, device, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::remove_if_target, nosync, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::remove_copy_target, device, it, it, it, int>);
  static_assert(reaches_cuda_backend<probe::unique_target, device, it, it>);
  static_assert(reaches_cuda_backend<probe::unique_target, nosync, it, it, eq>);
  static_assert(reaches_cuda_backend<probe::unique_copy_target, device, it, it, it>);
  static_assert(reaches_cuda_backend<probe::unique_copy_target, device, it, it, it, eq>);
  static_assert(reaches_cuda_backend<probe::unique_count_target, device, it, it, eq>);
  static_assert(reaches_cuda_backend<spscan::detail::unique_count_algorithm::thrust_target, device, it, it>,
                "unique_count without a predicate: where the same call with == reaches it");
  static_assert(reaches_cuda_backend<probe::unique_by_key_target, device, it, it, it>);
  static_assert(reaches_cuda_backend<probe::unique_by_key_target, device, it, it, it, eq>);
  static_assert(reaches_cuda_backend<probe::unique_by_key_copy_target, device, it, it, it, it, it>);
  static_assert(reaches_cuda_backend<probe::unique_by_key_copy_target, nosync, it, it, it, it, it, eq>);
  static_assert(reaches_cuda_backend<probe::reduce_by_key_target, device, it, it, it, it, it>);
  static_assert(reaches_cuda_backend<probe::reduce_by_key_target, device, it, it, it, it, it, eq>);
  static_assert(reaches_cuda_backend<probe::reduce_by_key_target, device, it, it, it, it, it, eq, plus>);
  static_assert(reaches_cuda_backend<probe::partition_target, device, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::partition_target, device, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::stable_partition_target, device, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::stable_partition_target, nosync, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::stable_partition_copy_target, device, it, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::stable_partition_copy_target, device, it, it, it, it, it, is_odd>);
  static_assert(!reaches_cuda_backend<probe::unique_target, host, int*, int*>);
  static_assert(!reaches_cuda_backend<probe::reduce_by_key_target, host, int*, int*, int*, int*, int*>);
  SUCCEED();
}

// CPU: a program's own system with its own overloads gets them, in every arity Thrust's entry
// points take (unique_count without a predicate included, which Thrust's CUDA backend lacks).
namespace user_code
{
struct audited : thrust::execution_policy<audited>
{
  int unique_count_calls  = 0;
  int unique_calls        = 0;
  int reduce_by_key_calls = 0;
};

template <class It>
std::ptrdiff_t unique_count(audited& system, It, It)
{
  ++system.unique_count_calls;
  return 0;
}

template <class It>
It unique(audited& system, It first, It)
{
  ++system.unique_calls;
  return first;
}

template <class K, class V, class KO, class VO>
thrust::pair<KO, VO> reduce_by_key(audited& system, K, K, V, KO keys_out, VO values_out)
{
  ++system.reduce_by_key_calls;
  return {keys_out, values_out};
}
} // namespace user_code

TEST(Compaction, AProgramsOwnSystemGetsItsOwnOverloads)
{
  user_code::audited system;
  int data[4] = {1, 1, 2, 3};
  int out[4]  = {};
  spscan::unique_count(system, data, data + 4);
  spscan::unique(system, data, data + 4);
  spscan::reduce_by_key(system, data, data + 4, data, out, out);
  EXPECT_EQ(system.unique_count_calls, 1) << "spscan::unique_count reached the program's overload";
  EXPECT_EQ(system.unique_calls, 1) << "spscan::unique reached the program's overload";
  EXPECT_EQ(system.reduce_by_key_calls, 1) << "spscan::reduce_by_key reached the program's overload";
}

// ---------------------------------------------------------------------------------------------
// GPU

// Sizes around the selection's tiles (8192 elements up to 4-byte values, 4096 for 8-byte ones),
// around 1 MiB (the ring's floor) and past it, within the test cap.
std::vector<std::size_t> compaction_sizes()
{
  std::vector<std::size_t> sizes;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{4095}, std::size_t{4097}, std::size_t{8192},
                              std::size_t{8193}, std::size_t{3 * 8192 + 17}, (std::size_t{1} << 20) + 3,
                              (std::size_t{1} << 22) + 5})
  {
    if (n <= spscan_test::max_test_elements())
    {
      sizes.push_back(n);
    }
  }
  return sizes;
}

template <class T>
void expect_removals_exact(std::size_t n, int odd_per_mille)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte values, " << odd_per_mille << " odd per mille, "
                                    << spscan_test::case_name(seed, n));
  spscan_test::splitmix64 rng{seed};
  std::vector<T> host(n), decider(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const bool odd = static_cast<int>(rng.below(1000)) < odd_per_mille;
    host[i]        = static_cast<T>(static_cast<int>(rng.below(50)) * 2 + (odd ? 1 : 0));
    decider[i]     = static_cast<T>(rng.below(2));
  }
  const thrust::device_vector<T> in(host.begin(), host.end()), stencil(decider.begin(), decider.end());
  const T removed_value = host[n / 2];
  const auto without    = kept_unless(host, host, [&](const T& x) { return x == removed_value; });

  thrust::device_vector<T> mine = in, theirs = in;
  auto my_end    = kernel::remove_if(thrust::device, mine.begin(), mine.end(), is_odd{});
  auto their_end = thrust::remove_if(thrust::device, theirs.begin(), theirs.end(), is_odd{});
  ASSERT_EQ(my_end - mine.begin(), their_end - theirs.begin()) << "remove_if: end";
  EXPECT_EQ(prefix(mine, my_end - mine.begin()), kept_unless(host, host, is_odd{})) << "remove_if";

  mine   = in;
  my_end = kernel::remove_if(thrust::cuda::par_nosync, mine.begin(), mine.end(), stencil.begin(), is_odd{});
  EXPECT_EQ(prefix(mine, my_end - mine.begin()), kept_unless(host, decider, is_odd{})) << "remove_if with stencil";

  mine   = in;
  my_end = kernel::remove(spscan::par, mine.begin(), mine.end(), removed_value);
  EXPECT_EQ(prefix(mine, my_end - mine.begin()), without) << "remove";

  mine             = in;
  theirs           = in;
  auto my_middle   = kernel::stable_partition(thrust::device, mine.begin(), mine.end(), is_odd{});
  auto their_middle = thrust::stable_partition(thrust::device, theirs.begin(), theirs.end(), is_odd{});
  ASSERT_EQ(my_middle - mine.begin(), their_middle - theirs.begin()) << "stable_partition: middle";
  EXPECT_EQ(spscan_test::to_host(mine), spscan_test::to_host(theirs)) << "stable_partition";

  mine         = in;
  theirs       = in;
  my_middle    = kernel::partition(thrust::cuda::par_nosync, mine.begin(), mine.end(), stencil.begin(), is_odd{});
  their_middle = thrust::stable_partition(thrust::device, theirs.begin(), theirs.end(), stencil.begin(), is_odd{});
  ASSERT_EQ(my_middle - mine.begin(), their_middle - theirs.begin()) << "partition with stencil: middle";
  EXPECT_EQ(spscan_test::to_host(mine), spscan_test::to_host(theirs)) << "partition with stencil (stable)";

  thrust::device_vector<T> out(n + 1);
  spscan_test::poison(out);
  my_end = kernel::remove_copy(thrust::device, in.begin(), in.end(), out.begin(), removed_value);
  ASSERT_EQ(my_end - out.begin(), static_cast<std::ptrdiff_t>(without.size())) << "remove_copy: end";
  const std::vector<T> copied = spscan_test::to_host(out);
  EXPECT_TRUE(std::equal(without.begin(), without.end(), copied.begin())) << "remove_copy";
  EXPECT_TRUE(spscan_test::all_poisoned(std::vector<T>(copied.begin() + (my_end - out.begin()), copied.end())))
    << "remove_copy wrote past its end";
}

TEST(CompactionOnGpu, InPlaceRemovalsAreExactAroundTileEdgesAndOnTheRing)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : compaction_sizes())
  {
    for (const int odd_per_mille : {0, 10, 500, 990, 1000})
    {
      expect_removals_exact<std::int32_t>(n, odd_per_mille);
      expect_removals_exact<std::int8_t>(n, odd_per_mille);
      expect_removals_exact<std::int64_t>(n, odd_per_mille);
      expect_removals_exact<float>(n, odd_per_mille);
    }
  }
}

template <class K, class V>
void expect_unique_forms_exact(std::size_t n, double mean_run)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << sizeof(K) << "-byte keys, " << sizeof(V) << "-byte values, runs of about "
                                    << mean_run << ", " << spscan_test::case_name(seed, n));
  const std::vector<K> keys = run_values<K>(n, mean_run, seed);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    values[i] = static_cast<V>(i % 1000003);
  }
  const auto exact   = run_heads(keys, std::equal_to<K>{});
  const auto quarter = run_heads(keys, same_quarter{});
  const thrust::device_vector<K> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<V> d_values(values.begin(), values.end());

  thrust::device_vector<K> k = d_keys;
  auto k_end                 = kernel::unique(thrust::device, k.begin(), k.end());
  EXPECT_EQ(prefix(k, k_end - k.begin()), at(keys, exact)) << "unique";
  k     = d_keys;
  k_end = kernel::unique(thrust::cuda::par, k.begin(), k.end(), same_quarter{});
  EXPECT_EQ(prefix(k, k_end - k.begin()), at(keys, quarter)) << "unique with a predicate";

  thrust::device_vector<K> out(n + 1), theirs(n + 1);
  spscan_test::poison(out);
  k_end             = kernel::unique_copy(thrust::cuda::par, d_keys.begin(), d_keys.end(), out.begin(), same_quarter{});
  const auto t_end  = thrust::unique_copy(thrust::device, d_keys.begin(), d_keys.end(), theirs.begin(), same_quarter{});
  ASSERT_EQ(k_end - out.begin(), t_end - theirs.begin()) << "unique_copy: end against Thrust's";
  EXPECT_EQ(prefix(out, k_end - out.begin()), at(keys, quarter)) << "unique_copy";
  const std::vector<K> written = spscan_test::to_host(out);
  EXPECT_TRUE(spscan_test::all_poisoned(std::vector<K>(written.begin() + (k_end - out.begin()), written.end())))
    << "unique_copy wrote past its end";

  EXPECT_EQ(kernel::unique_count(spscan::par, d_keys.begin(), d_keys.end()), static_cast<std::ptrdiff_t>(exact.size()))
    << "unique_count";
  EXPECT_EQ(kernel::unique_count(thrust::device, d_keys.begin(), d_keys.end(), same_quarter{}), static_cast<std::ptrdiff_t>(quarter.size()))
    << "unique_count with a predicate";

  k                          = d_keys;
  thrust::device_vector<V> v = d_values;
  const auto in_place        = kernel::unique_by_key(thrust::device, k.begin(), k.end(), v.begin());
  EXPECT_EQ(prefix(k, in_place.first - k.begin()), at(keys, exact)) << "unique_by_key: keys";
  EXPECT_EQ(prefix(v, in_place.second - v.begin()), at(values, exact)) << "unique_by_key: values";

  thrust::device_vector<V> out_values(n + 1);
  const auto copied = kernel::unique_by_key_copy(
    thrust::cuda::par_nosync, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), out_values.begin(), same_quarter{});
  EXPECT_EQ(prefix(out, copied.first - out.begin()), at(keys, quarter)) << "unique_by_key_copy: keys";
  EXPECT_EQ(prefix(out_values, copied.second - out_values.begin()), at(values, quarter)) << "unique_by_key_copy: values";
}

TEST(CompactionOnGpu, UniqueFormsAreExactForRunsOfEveryLength)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : compaction_sizes())
  {
    for (const double mean_run : {1.0, 2.0, 40.0, 5000.0})
    {
      expect_unique_forms_exact<std::int32_t, std::int64_t>(n, mean_run);
      expect_unique_forms_exact<std::int8_t, std::int32_t>(n, mean_run);
      expect_unique_forms_exact<float, float>(n, mean_run);
      expect_unique_forms_exact<std::int64_t, std::int8_t>(n, mean_run);
    }
  }
}

TEST(CompactionOnGpu, PartitionsAndReduceByKeyGiveThrustsResults)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : compaction_sizes())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<int> host          = run_values<int>(n, 6.0, seed);
    const thrust::device_vector<int> in  = spscan_test::to_device(host);
    const thrust::device_vector<int> stencil = spscan_test::to_device(spscan_test::random_values<int>(n, seed + 1));
    thrust::device_vector<int> mine = in, theirs = in;
    auto my_mid    = spscan::stable_partition(thrust::device, mine.begin(), mine.end(), stencil.begin(), is_odd{});
    auto their_mid = thrust::stable_partition(thrust::device, theirs.begin(), theirs.end(), stencil.begin(), is_odd{});
    EXPECT_EQ(my_mid - mine.begin(), their_mid - theirs.begin()) << "stable_partition: middle";
    EXPECT_EQ(spscan_test::to_host(mine), spscan_test::to_host(theirs)) << "stable_partition";
    mine   = in;
    my_mid = spscan::partition(mine.begin(), mine.end(), is_odd{});
    const std::vector<int> partitioned = spscan_test::to_host(mine);
    EXPECT_EQ(my_mid - mine.begin(), std::count_if(host.begin(), host.end(), is_odd{})) << "partition: middle";
    EXPECT_TRUE(std::all_of(partitioned.begin(), partitioned.begin() + (my_mid - mine.begin()), is_odd{}))
      << "partition: selected first";

    thrust::device_vector<int> a(n), b(n), c(n), d(n);
    const auto my_ends    = spscan::stable_partition_copy(in.begin(), in.end(), a.begin(), b.begin(), is_odd{});
    const auto their_ends = thrust::stable_partition_copy(thrust::device, in.begin(), in.end(), c.begin(), d.begin(), is_odd{});
    ASSERT_EQ(my_ends.first - a.begin(), their_ends.first - c.begin()) << "stable_partition_copy: selected end";
    EXPECT_EQ(prefix(a, my_ends.first - a.begin()), prefix(c, their_ends.first - c.begin()));
    EXPECT_EQ(prefix(b, my_ends.second - b.begin()), prefix(d, their_ends.second - d.begin()));

    const auto my_sums = kernel::reduce_by_key(thrust::device, in.begin(), in.end(), thrust::make_constant_iterator(3),
                                               a.begin(), b.begin(), same_quarter{}, thrust::plus<int>{});
    const auto their_sums = thrust::reduce_by_key(thrust::device, in.begin(), in.end(), thrust::make_constant_iterator(3),
                                                  c.begin(), d.begin(), same_quarter{}, thrust::plus<int>{});
    ASSERT_EQ(my_sums.first - a.begin(), their_sums.first - c.begin()) << "reduce_by_key: end";
    EXPECT_EQ(prefix(a, my_sums.first - a.begin()), prefix(c, their_sums.first - c.begin())) << "reduce_by_key: keys";
    EXPECT_EQ(prefix(b, my_sums.second - b.begin()), prefix(d, their_sums.second - d.begin())) << "reduce_by_key: sums";
  }
}

// The routes: remove_copy and stable_partition_copy run spscan's programs (one kernel call each);
// remove, remove_if, partition, stable_partition, the unique family and reduce_by_key where their
// routes are the default, else Thrust's CUDA backend; each one call
// on its route, from spscan's functions and from Thrust's entry points with spscan::par.
TEST(CompactionOnGpu, EachFormTakesItsRouteFromSpscanAndFromThrustWithSpscanPar)
{
  SPSCAN_REQUIRE_GPU();
  constexpr unsigned in_place_on_kernel = spscan::detail::in_place_selection_is_default ? 1u : 0u;
  constexpr unsigned run_heads_on_kernel = spscan::detail::run_head_selection_is_default ? 1u : 0u;
  constexpr unsigned reduce_on_kernel    = spscan::detail::reduce_by_key_program_is_default ? 1u : 0u;
  constexpr unsigned count_on_kernel     = spscan::detail::run_head_count_is_default ? 1u : 0u;
  const std::size_t n = 20000;
  const thrust::device_vector<int> in = spscan_test::to_device(run_values<int>(n, 3.0, 11));
  thrust::device_vector<int> a = in, b(n), c(n);
  {
    const spscan_test::route_probe routed;
    spscan::remove_copy(in.begin(), in.end(), b.begin(), 4);
    spscan::stable_partition_copy(in.begin(), in.end(), b.begin(), c.begin(), is_odd{});
    spscan::remove_if(a.begin(), a.end(), is_odd{});
    spscan::remove(thrust::device, a.begin(), a.end(), 4);
    spscan::unique(a.begin(), a.end());
    spscan::unique_copy(in.begin(), in.end(), b.begin());
    spscan::unique_count(in.begin(), in.end());
    spscan::unique_by_key(a.begin(), a.end(), c.begin());
    spscan::unique_by_key_copy(in.begin(), in.end(), in.begin(), b.begin(), c.begin());
    EXPECT_EQ(routed.kernel_calls(), 2u + count_on_kernel + 3 * in_place_on_kernel + 3 * run_heads_on_kernel)
      << "spscan's programs";
    EXPECT_EQ(routed.kernel_calls() + routed.thrust_calls(), 9u) << "one call each";
  }
  {
    const spscan_test::route_probe routed;
    spscan::partition(a.begin(), a.end(), is_odd{});
    spscan::stable_partition(a.begin(), a.end(), is_odd{});
    spscan::reduce_by_key(in.begin(), in.end(), in.begin(), b.begin(), c.begin());
    EXPECT_EQ(routed.kernel_calls(), reduce_on_kernel + 2 * in_place_on_kernel) << "the defaults";
    EXPECT_EQ(routed.kernel_calls() + routed.thrust_calls(), 3u) << "one call each";
  }
  {
    a = in;
    const spscan_test::route_probe routed;
    const auto end      = thrust::unique(spscan::par, a.begin(), a.end());
    const auto count    = thrust::unique_count(spscan::par, in.begin(), in.end());
    const auto kept_end = thrust::remove_if(spscan::par, b.begin(), b.begin() + 10, is_odd{});
    thrust::unique_by_key_copy(spscan::par, in.begin(), in.end(), in.begin(), b.begin(), c.begin());
    thrust::remove_copy(spscan::par, in.begin(), in.end(), b.begin(), 4);
    thrust::reduce_by_key(spscan::par, in.begin(), in.end(), in.begin(), b.begin(), c.begin());
    EXPECT_EQ(routed.kernel_calls(), 1u + count_on_kernel + reduce_on_kernel + 2 * in_place_on_kernel + run_heads_on_kernel)
      << "remove_copy, and the defaults";
    EXPECT_EQ(routed.kernel_calls() + routed.thrust_calls(), 6u) << "each through spscan's dispatch once";
    EXPECT_EQ(end - a.begin(), count) << "unique's end and unique_count agree";
    EXPECT_LE(kept_end - b.begin(), 10);
  }
}

} // namespace

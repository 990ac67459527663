// Scans on the host: with thrust::host, thrust::cpp::par, thrust::seq, and without a policy on
// std::vector iterators, every overload of spscan's four scans runs Thrust's own implementation
// (route_stats().thrust counts the call, .kernel does not) and gives exactly Thrust's result and
// the sequential reference's. Also the type rules spscan routes by: the accumulator types, and
// which policies and accumulators the kernel serves. Needs no GPU.
#include <spscan/spscan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/transform_scan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/scan_calls.h>
#include <support/data.h>

namespace host_test
{

struct triple_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return 3 * x + 1;
  }
};

// For the type rules: a transform returning a const reference (the transformed value type drops
// it), and accumulator candidates the kernel must refuse.
struct widen_to_double
{
  __host__ __device__ double operator()(int x) const
  {
    return x;
  }
};

struct pass_reference
{
  __host__ __device__ const long& operator()(const long& x) const
  {
    return x;
  }
};

struct bytes16
{
  std::uint64_t a, b;
};

struct bytes48
{
  std::uint64_t words[6];
};

struct not_trivially_copyable
{
  int value;
  not_trivially_copyable() = default;
  not_trivially_copyable(const not_trivially_copyable& other)
      : value(other.value)
  {}
  not_trivially_copyable& operator=(const not_trivially_copyable&) = default;
};

} // namespace host_test

namespace
{

using host_test::triple_plus_one;
using xor_op = thrust::bit_xor<int>;

using namespace spscan_test::scan_calls; // support/scan_calls.h

// Runs `check(with_system)` once per host system; `with_system(scan, args...)` calls the scan with
// that system's policy in front of the arguments, or with none.
template <class Check>
void for_each_host_system(Check check)
{
  {
    SCOPED_TRACE("thrust::host");
    check([](auto scan, auto&&... args) { return scan(thrust::host, args...); });
  }
  {
    SCOPED_TRACE("thrust::cpp::par");
    check([](auto scan, auto&&... args) { return scan(thrust::cpp::par, args...); });
  }
  {
    SCOPED_TRACE("thrust::seq");
    check([](auto scan, auto&&... args) { return scan(thrust::seq, args...); });
  }
  {
    SCOPED_TRACE("no policy, std::vector iterators");
    check([](auto scan, auto&&... args) { return scan(args...); });
  }
}

// spscan's call and Thrust's same call, each into a poisoned std::vector: both return result + n,
// spscan's call is counted on Thrust's route, and both outputs equal the reference bit for bit.
template <class WithSystem, class SpscanScan, class ThrustScan, class... Trailing>
void expect_host_scan_exact(
  WithSystem with_system,
  const std::vector<int>& input,
  const std::vector<int>& reference,
  SpscanScan spscan_scan,
  ThrustScan thrust_scan,
  const Trailing&... trailing)
{
  const auto n = static_cast<std::ptrdiff_t>(input.size());

  std::vector<int> mine = spscan_test::poisoned_host_vector<int>(input.size());
  const auto before     = spscan_test::route_counts::now();
  const auto mine_end   = with_system(spscan_scan, input.begin(), input.end(), mine.begin(), trailing...);
  spscan_test::expect_one_call_on(spscan_test::route::thrust, before);
  static_assert(std::is_same_v<std::remove_const_t<decltype(mine_end)>, std::vector<int>::iterator>);
  EXPECT_EQ(n, mine_end - mine.begin()) << "spscan's return value";

  std::vector<int> theirs = spscan_test::poisoned_host_vector<int>(input.size());
  const auto theirs_end   = with_system(thrust_scan, input.begin(), input.end(), theirs.begin(), trailing...);
  EXPECT_EQ(n, theirs_end - theirs.begin()) << "Thrust's return value";

  spscan_test::expect_bitwise_equal(reference, mine, "spscan vs sequential reference");
  spscan_test::expect_bitwise_equal(theirs, mine, "spscan vs Thrust's same call");
}

std::vector<int> transformed(const std::vector<int>& input)
{
  std::vector<int> values;
  for (const int x : input)
  {
    values.push_back(triple_plus_one{}(x));
  }
  return values;
}

class HostFallback : public ::testing::TestWithParam<std::size_t>
{
protected:
  std::uint64_t seed    = spscan_test::fresh_seed();
  std::size_t n         = GetParam();
  std::vector<int> input = spscan_test::random_values<int>(n, seed);
  int init              = 17 + static_cast<int>(seed % 1000);
};

TEST_P(HostFallback, InclusiveScanRunsThrustAndMatchesIt)
{
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const auto plus_reference = spscan_test::reference_inclusive<int>(input, std::plus<>{});
  const auto xor_reference  = spscan_test::reference_inclusive<int>(input, xor_op{});
  const auto init_reference = spscan_test::reference_inclusive<int>(input, init, xor_op{});
  for_each_host_system([&](auto with_system) {
    expect_host_scan_exact(with_system, input, plus_reference, spscan_inclusive, thrust_inclusive);
    expect_host_scan_exact(with_system, input, xor_reference, spscan_inclusive, thrust_inclusive, xor_op{});
    expect_host_scan_exact(with_system, input, init_reference, spscan_inclusive, thrust_inclusive, init, xor_op{});
  });
}

TEST_P(HostFallback, ExclusiveScanRunsThrustAndMatchesIt)
{
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const auto default_reference = spscan_test::reference_exclusive<int>(input, int{}, std::plus<>{});
  const auto init_reference    = spscan_test::reference_exclusive<int>(input, init, std::plus<>{});
  const auto op_reference      = spscan_test::reference_exclusive<int>(input, init, xor_op{});
  for_each_host_system([&](auto with_system) {
    expect_host_scan_exact(with_system, input, default_reference, spscan_exclusive, thrust_exclusive);
    expect_host_scan_exact(with_system, input, init_reference, spscan_exclusive, thrust_exclusive, init);
    expect_host_scan_exact(with_system, input, op_reference, spscan_exclusive, thrust_exclusive, init, xor_op{});
  });
}

TEST_P(HostFallback, TransformInclusiveScanRunsThrustAndMatchesIt)
{
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> values = transformed(input);
  const auto op_reference       = spscan_test::reference_inclusive<int>(values, xor_op{});
  const auto init_reference     = spscan_test::reference_inclusive<int>(values, init, xor_op{});
  for_each_host_system([&](auto with_system) {
    expect_host_scan_exact(
      with_system, input, op_reference, spscan_transform_inclusive, thrust_transform_inclusive, triple_plus_one{}, xor_op{});
    expect_host_scan_exact(
      with_system, input, init_reference, spscan_transform_inclusive, thrust_transform_inclusive, triple_plus_one{}, init, xor_op{});
  });
}

TEST_P(HostFallback, TransformExclusiveScanRunsThrustAndMatchesIt)
{
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const auto reference = spscan_test::reference_exclusive<int>(transformed(input), init, xor_op{});
  for_each_host_system([&](auto with_system) {
    expect_host_scan_exact(
      with_system, input, reference, spscan_transform_exclusive, thrust_transform_exclusive, triple_plus_one{}, init, xor_op{});
  });
}

std::string size_name(const ::testing::TestParamInfo<std::size_t>& info)
{
  return "n" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(Sizes, HostFallback, ::testing::Values(0, 1, 2, 33, 4097, 100'003), size_name);

// ---------------------------------------------------------------------------------------------
// Type rules. Each fact is a static_assert (a wrong rule does not compile) and an EXPECT (so the
// test reports what it checked).

namespace detail = spscan::detail;
using host_test::bytes16;
using host_test::bytes48;
using host_test::not_trivially_copyable;

// inclusive_scan without init accumulates in the input's value type, even into a wider output.
static_assert(std::is_same_v<detail::inclusive_accumulator<const std::int8_t*>, std::int8_t>);
static_assert(std::is_same_v<detail::inclusive_accumulator<std::vector<std::int64_t>::iterator>, std::int64_t>);
// inclusive_scan with init: what op(init, value) returns.
static_assert(std::is_same_v<detail::inclusive_init_accumulator<const std::int8_t*, int, thrust::plus<>>, int>);
static_assert(std::is_same_v<detail::inclusive_init_accumulator<const int*, std::int64_t, thrust::plus<>>, std::int64_t>);
static_assert(std::is_same_v<detail::inclusive_init_accumulator<const std::int8_t*, int, thrust::plus<std::int8_t>>, std::int8_t>);
static_assert(std::is_same_v<detail::inclusive_init_accumulator<const float*, double, thrust::plus<>>, double>);
// exclusive_scan: the init's type.
static_assert(std::is_same_v<detail::exclusive_accumulator<int>, int>);
// Transform scans: the unary op's result, without cv or reference.
static_assert(std::is_same_v<detail::transformed_value<const int*, host_test::widen_to_double>, double>);
static_assert(std::is_same_v<detail::transformed_value<const long*, host_test::pass_reference>, long>);

using cuda_par        = thrust::cuda_cub::par_t;
using cuda_par_nosync = thrust::cuda_cub::par_nosync_t;
using device_policy   = std::decay_t<decltype(thrust::device)>;
using host_policy     = std::decay_t<decltype(thrust::host)>;
using cpp_par_policy  = std::decay_t<decltype(thrust::cpp::par)>;
using seq_policy      = std::decay_t<decltype(thrust::seq)>;

static_assert(detail::runs_on_kernel<cuda_par, int>);
static_assert(detail::runs_on_kernel<cuda_par, double>);
static_assert(detail::runs_on_kernel<cuda_par, bytes16>);
static_assert(detail::runs_on_kernel<cuda_par_nosync, int>);
static_assert(detail::runs_on_kernel<device_policy, int>);
static_assert(!detail::runs_on_kernel<host_policy, int>);
static_assert(!detail::runs_on_kernel<cpp_par_policy, int>);
static_assert(!detail::runs_on_kernel<seq_policy, int>);
static_assert(!detail::runs_on_kernel<cuda_par, bytes48>);
static_assert(!detail::runs_on_kernel<cuda_par, not_trivially_copyable>);

TEST(ScanTypeRules, AccumulatorTypesFollowThrust)
{
  EXPECT_TRUE((std::is_same_v<detail::inclusive_accumulator<const std::int8_t*>, std::int8_t>))
    << "inclusive_scan without init: the input's value type";
  EXPECT_TRUE((std::is_same_v<detail::inclusive_accumulator<std::vector<std::int64_t>::iterator>, std::int64_t>));
  EXPECT_TRUE((std::is_same_v<detail::inclusive_init_accumulator<const std::int8_t*, int, thrust::plus<>>, int>))
    << "inclusive_scan with init: op(init, value)'s type";
  EXPECT_TRUE((std::is_same_v<detail::inclusive_init_accumulator<const int*, std::int64_t, thrust::plus<>>, std::int64_t>));
  EXPECT_TRUE(
    (std::is_same_v<detail::inclusive_init_accumulator<const std::int8_t*, int, thrust::plus<std::int8_t>>, std::int8_t>));
  EXPECT_TRUE((std::is_same_v<detail::inclusive_init_accumulator<const float*, double, thrust::plus<>>, double>));
  EXPECT_TRUE((std::is_same_v<detail::exclusive_accumulator<int>, int>)) << "exclusive_scan: the init's type";
  EXPECT_TRUE((std::is_same_v<detail::transformed_value<const int*, host_test::widen_to_double>, double>))
    << "transform scans: the unary op's result";
  EXPECT_TRUE((std::is_same_v<detail::transformed_value<const long*, host_test::pass_reference>, long>))
    << "transform scans: cv and reference removed";
}

TEST(ScanTypeRules, KernelServesCudaPoliciesWithSmallTrivialAccumulatorsOnly)
{
  EXPECT_TRUE((detail::runs_on_kernel<cuda_par, int>));
  EXPECT_TRUE((detail::runs_on_kernel<cuda_par, double>));
  EXPECT_TRUE((detail::runs_on_kernel<cuda_par, bytes16>));
  EXPECT_TRUE((detail::runs_on_kernel<cuda_par_nosync, int>));
  EXPECT_TRUE((detail::runs_on_kernel<device_policy, int>));
  EXPECT_FALSE((detail::runs_on_kernel<host_policy, int>));
  EXPECT_FALSE((detail::runs_on_kernel<cpp_par_policy, int>));
  EXPECT_FALSE((detail::runs_on_kernel<seq_policy, int>));
  EXPECT_FALSE((detail::runs_on_kernel<cuda_par, bytes48>)) << "48 bytes exceed the kernel's accumulator limit";
  EXPECT_FALSE((detail::runs_on_kernel<cuda_par, not_trivially_copyable>));
}

} // namespace

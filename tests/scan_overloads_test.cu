// Every overload of spscan's four scans, with thrust::device and without a policy (the system then
// comes from thrust::device_vector iterators), on int32 data of edge and multi-tile sizes:
// the return value is result + n, the call runs on spscan's kernel, and every element equals a
// sequential reference and Thrust's same call bit for bit. Also: the defaults (op = plus,
// exclusive init = value_type{}), negative ranges, and in-place scans.
#include <spscan/spscan.h>

#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/scan_calls.h>
#include <support/data.h>
#include <support/gpu.h>

namespace
{

// The unary op of the transform scans: changes every value, so skipping it shows.
struct triple_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return 3 * x + 1;
  }
};

using spscan_test::route;
using spscan_test::system_from;

constexpr std::size_t tile = spscan::detail::scan_tuning<int, int, int>::tile_items;

// A non-default op, so that a call ignoring the op it is given fails.
using xor_op = thrust::bit_xor<int>;

// Each scan as a callable that forwards to the whole overload set.
using namespace spscan_test::scan_calls; // support/scan_calls.h

constexpr system_from both_systems[] = {system_from::policy, system_from::iterators};

// The same call with thrust::device and without a policy, each checked against the reference
// and Thrust, and each counted on spscan's kernel.
template <class SpscanScan, class ThrustScan, class... Trailing>
void expect_exact_with_and_without_policy(
  const char* form,
  const std::vector<int>& input,
  const std::vector<int>& reference,
  SpscanScan spscan_scan,
  ThrustScan thrust_scan,
  const Trailing&... trailing)
{
  SCOPED_TRACE(form);
  for (const system_from system : both_systems)
  {
    spscan_test::expect_device_scan_exact(system, route::kernel, input, reference, spscan_scan, thrust_scan, trailing...);
  }
}

std::vector<int> transformed(const std::vector<int>& input)
{
  std::vector<int> values;
  values.reserve(input.size());
  for (const int x : input)
  {
    values.push_back(triple_plus_one{}(x));
  }
  return values;
}

// Fresh input for one size, and the init the forms with an init use.
struct scan_case
{
  std::size_t n;
  std::uint64_t seed;
  std::vector<int> input;
  int init;

  explicit scan_case(std::size_t size)
      : n(size)
      , seed(spscan_test::fresh_seed())
      , input(spscan_test::random_values<int>(size, seed))
      , init(17 + static_cast<int>(seed % 1000))
  {}
};

std::vector<std::size_t> tested_sizes()
{
  return {0, 1, 2, 31, 32, 33, tile - 1, tile, tile + 1, 7 * tile + 5, 2'999'999, std::size_t{1} << 24};
}

class ScanOverloads : public ::testing::TestWithParam<std::size_t>
{
protected:
  void SetUp() override
  {
    SPSCAN_REQUIRE_GPU();
    if (GetParam() > spscan_test::max_test_elements())
    {
      GTEST_SKIP() << GetParam() << " elements exceed SPSCAN_TEST_MAX_ELEMENTS";
    }
  }
};

TEST_P(ScanOverloads, InclusiveScanEveryOverloadMatchesReferenceAndThrust)
{
  const scan_case c(GetParam());
  SCOPED_TRACE(spscan_test::case_name(c.seed, c.n));

  expect_exact_with_and_without_policy(
    "inclusive_scan(first, last, result): op defaults to plus",
    c.input,
    spscan_test::reference_inclusive<int>(c.input, std::plus<>{}),
    spscan_inclusive,
    thrust_inclusive);
  expect_exact_with_and_without_policy(
    "inclusive_scan(first, last, result, op)",
    c.input,
    spscan_test::reference_inclusive<int>(c.input, xor_op{}),
    spscan_inclusive,
    thrust_inclusive,
    xor_op{});
  expect_exact_with_and_without_policy(
    "inclusive_scan(first, last, result, init, op)",
    c.input,
    spscan_test::reference_inclusive<int>(c.input, c.init, xor_op{}),
    spscan_inclusive,
    thrust_inclusive,
    c.init,
    xor_op{});
}

TEST_P(ScanOverloads, ExclusiveScanEveryOverloadMatchesReferenceAndThrust)
{
  const scan_case c(GetParam());
  SCOPED_TRACE(spscan_test::case_name(c.seed, c.n));

  expect_exact_with_and_without_policy(
    "exclusive_scan(first, last, result): init defaults to value_type{}, op to plus",
    c.input,
    spscan_test::reference_exclusive<int>(c.input, int{}, std::plus<>{}),
    spscan_exclusive,
    thrust_exclusive);
  expect_exact_with_and_without_policy(
    "exclusive_scan(first, last, result, init): op defaults to plus",
    c.input,
    spscan_test::reference_exclusive<int>(c.input, c.init, std::plus<>{}),
    spscan_exclusive,
    thrust_exclusive,
    c.init);
  expect_exact_with_and_without_policy(
    "exclusive_scan(first, last, result, init, op)",
    c.input,
    spscan_test::reference_exclusive<int>(c.input, c.init, xor_op{}),
    spscan_exclusive,
    thrust_exclusive,
    c.init,
    xor_op{});
}

TEST_P(ScanOverloads, TransformInclusiveScanEveryOverloadMatchesReferenceAndThrust)
{
  const scan_case c(GetParam());
  SCOPED_TRACE(spscan_test::case_name(c.seed, c.n));
  const std::vector<int> values = transformed(c.input);

  expect_exact_with_and_without_policy(
    "transform_inclusive_scan(first, last, result, unary_op, op)",
    c.input,
    spscan_test::reference_inclusive<int>(values, xor_op{}),
    spscan_transform_inclusive,
    thrust_transform_inclusive,
    triple_plus_one{},
    xor_op{});
  expect_exact_with_and_without_policy(
    "transform_inclusive_scan(first, last, result, unary_op, init, op)",
    c.input,
    spscan_test::reference_inclusive<int>(values, c.init, xor_op{}),
    spscan_transform_inclusive,
    thrust_transform_inclusive,
    triple_plus_one{},
    c.init,
    xor_op{});
}

TEST_P(ScanOverloads, TransformExclusiveScanMatchesReferenceAndThrust)
{
  const scan_case c(GetParam());
  SCOPED_TRACE(spscan_test::case_name(c.seed, c.n));

  expect_exact_with_and_without_policy(
    "transform_exclusive_scan(first, last, result, unary_op, init, op)",
    c.input,
    spscan_test::reference_exclusive<int>(transformed(c.input), c.init, xor_op{}),
    spscan_transform_exclusive,
    thrust_transform_exclusive,
    triple_plus_one{},
    c.init,
    xor_op{});
}

// Scans `data` in place (result == first) and returns the result; checks the return value.
template <class Scan, class... Trailing>
std::vector<int> scan_in_place(system_from system, const std::vector<int>& input, Scan scan, const Trailing&... trailing)
{
  thrust::device_vector<int> data = spscan_test::to_device(input);
  const auto n                    = static_cast<std::ptrdiff_t>(input.size());
  EXPECT_EQ(n, spscan_test::invoke_on_device(system, data, 0, n, data, 0, scan, trailing...)) << "return value";
  return spscan_test::to_host(data);
}

template <class SpscanScan, class ThrustScan, class... Trailing>
void expect_in_place_exact(
  const char* form,
  const std::vector<int>& input,
  const std::vector<int>& reference,
  SpscanScan spscan_scan,
  ThrustScan thrust_scan,
  const Trailing&... trailing)
{
  SCOPED_TRACE(form);
  for (const system_from system : both_systems)
  {
    SCOPED_TRACE(spscan_test::describe(system));
    const auto before                = spscan_test::route_counts::now();
    const std::vector<int> in_spscan = scan_in_place(system, input, spscan_scan, trailing...);
    spscan_test::expect_one_call_on(route::kernel, before);
    const std::vector<int> in_thrust = scan_in_place(system, input, thrust_scan, trailing...);
    spscan_test::expect_bitwise_equal(reference, in_spscan, "in-place spscan vs sequential reference");
    spscan_test::expect_bitwise_equal(in_thrust, in_spscan, "in-place spscan vs Thrust in place");
  }
}

// Each tile reads all of its input before it writes, and no tile writes another tile's elements,
// so result == first must give the out-of-place result.
TEST_P(ScanOverloads, InPlaceScansMatchReferenceAndThrust)
{
  const scan_case c(GetParam());
  SCOPED_TRACE(spscan_test::case_name(c.seed, c.n));
  const std::vector<int> values = transformed(c.input);

  expect_in_place_exact("inclusive_scan in place",
                        c.input,
                        spscan_test::reference_inclusive<int>(c.input, std::plus<>{}),
                        spscan_inclusive,
                        thrust_inclusive);
  expect_in_place_exact("inclusive_scan with init in place",
                        c.input,
                        spscan_test::reference_inclusive<int>(c.input, c.init, xor_op{}),
                        spscan_inclusive,
                        thrust_inclusive,
                        c.init,
                        xor_op{});
  expect_in_place_exact("exclusive_scan in place",
                        c.input,
                        spscan_test::reference_exclusive<int>(c.input, int{}, std::plus<>{}),
                        spscan_exclusive,
                        thrust_exclusive);
  expect_in_place_exact("exclusive_scan with init and op in place",
                        c.input,
                        spscan_test::reference_exclusive<int>(c.input, c.init, xor_op{}),
                        spscan_exclusive,
                        thrust_exclusive,
                        c.init,
                        xor_op{});
  expect_in_place_exact("transform_inclusive_scan in place",
                        c.input,
                        spscan_test::reference_inclusive<int>(values, xor_op{}),
                        spscan_transform_inclusive,
                        thrust_transform_inclusive,
                        triple_plus_one{},
                        xor_op{});
  expect_in_place_exact("transform_exclusive_scan in place",
                        c.input,
                        spscan_test::reference_exclusive<int>(values, c.init, xor_op{}),
                        spscan_transform_exclusive,
                        thrust_transform_exclusive,
                        triple_plus_one{},
                        c.init,
                        xor_op{});
}

std::string size_name(const ::testing::TestParamInfo<std::size_t>& info)
{
  return "n" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScanOverloads, ::testing::ValuesIn(tested_sizes()), size_name);

// ---------------------------------------------------------------------------------------------
// Negative ranges (last before first): Thrust treats them as empty. Nothing may be written and
// the call returns `result`, exactly as Thrust's same call does.

template <class SpscanScan, class ThrustScan, class... Trailing>
void expect_negative_range_is_empty(const char* form, SpscanScan spscan_scan, ThrustScan thrust_scan, const Trailing&... trailing)
{
  SCOPED_TRACE(form);
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr std::ptrdiff_t span   = 1000; // last = first - span
  const std::vector<int> input    = spscan_test::random_values<int>(2 * span, seed);
  thrust::device_vector<int> d_in = spscan_test::to_device(input);
  thrust::device_vector<int> d_out(input.size());

  for (const system_from system : both_systems)
  {
    SCOPED_TRACE(spscan_test::describe(system));
    spscan_test::poison(d_out);
    const auto before = spscan_test::route_counts::now();
    EXPECT_EQ(0, spscan_test::invoke_on_device(system, d_in, span, 0, d_out, 0, spscan_scan, trailing...))
      << "spscan must return result for a negative range";
    spscan_test::expect_one_call_on(route::kernel, before);
    EXPECT_TRUE(spscan_test::all_poisoned(spscan_test::to_host(d_out))) << "spscan wrote to the output";

    spscan_test::poison(d_out);
    EXPECT_EQ(0, spscan_test::invoke_on_device(system, d_in, span, 0, d_out, 0, thrust_scan, trailing...))
      << "Thrust's return value for a negative range";
    EXPECT_TRUE(spscan_test::all_poisoned(spscan_test::to_host(d_out))) << "Thrust wrote to the output";
  }
}

TEST(ScanNegativeRange, EveryOverloadWritesNothingAndReturnsResult)
{
  SPSCAN_REQUIRE_GPU();
  const int init = 5;
  expect_negative_range_is_empty("inclusive_scan(first, last, result)", spscan_inclusive, thrust_inclusive);
  expect_negative_range_is_empty("inclusive_scan(..., op)", spscan_inclusive, thrust_inclusive, xor_op{});
  expect_negative_range_is_empty("inclusive_scan(..., init, op)", spscan_inclusive, thrust_inclusive, init, xor_op{});
  expect_negative_range_is_empty("exclusive_scan(first, last, result)", spscan_exclusive, thrust_exclusive);
  expect_negative_range_is_empty("exclusive_scan(..., init)", spscan_exclusive, thrust_exclusive, init);
  expect_negative_range_is_empty("exclusive_scan(..., init, op)", spscan_exclusive, thrust_exclusive, init, xor_op{});
  expect_negative_range_is_empty(
    "transform_inclusive_scan(..., unary_op, op)",
    spscan_transform_inclusive,
    thrust_transform_inclusive,
    triple_plus_one{},
    xor_op{});
  expect_negative_range_is_empty(
    "transform_inclusive_scan(..., unary_op, init, op)",
    spscan_transform_inclusive,
    thrust_transform_inclusive,
    triple_plus_one{},
    init,
    xor_op{});
  expect_negative_range_is_empty(
    "transform_exclusive_scan(..., unary_op, init, op)",
    spscan_transform_exclusive,
    thrust_transform_exclusive,
    triple_plus_one{},
    init,
    xor_op{});
}

} // namespace

// spscan's scans over every element size the kernel serves, and over the accumulator types Thrust
// derives from the arguments:
//  - 1/2/4/8-byte integers and floating point, inclusive and exclusive, edge and multi-tile sizes,
//    aligned and misaligned ranges: bit for bit equal to a sequential reference and to Thrust
//    (floating point on data whose partial sums are all exact);
//  - floating point on data whose sums round: within a stated error bound of a long double
//    reference, and of Thrust;
//  - Thrust's accumulator corner cases (an 8-bit accumulator behind a 32-bit output, an int init
//    over 64-bit data, an init whose type widens the accumulator): bit for bit equal to Thrust;
//  - associative but non-commutative ops on 8-, 16- and 32-byte values (the kernel) and on a
//    48-byte value (Thrust's fallback): bit for bit equal to the reference and to Thrust.
#include <spscan/spscan.h>

#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/scan_calls.h>
#include <support/data.h>
#include <support/gpu.h>

namespace
{

// ---------------------------------------------------------------------------------------------
// Associative, non-commutative ops. Inputs are kept invertible (odd multipliers, odd
// determinants) so that long products never collapse to zero modulo 2^32 or 2^64, which would
// make every later result equal and hide a wrongly combined tile.

// x -> a*x + b (mod 2^32). 8 bytes.
struct affine_map
{
  std::uint32_t a, b;
};

// Applies `earlier`, then `later`.
struct compose_affine
{
  using value = affine_map;
  static constexpr spscan_test::route expected_route = spscan_test::route::kernel;

  __host__ __device__ affine_map operator()(const affine_map& earlier, const affine_map& later) const
  {
    return {later.a * earlier.a, later.a * earlier.b + later.b};
  }
  static void make_invertible(affine_map& f)
  {
    f.a |= 1u;
  }
};

// 2x2 matrix over the integers modulo 2^32 (Word = uint32, 16 bytes) or 2^64 (Word = uint64, 32
// bytes).
template <class Word>
struct matrix2
{
  Word m00, m01, m10, m11;
};

template <class Word, spscan_test::route Route>
struct multiply_matrix2
{
  using value                                        = matrix2<Word>;
  static constexpr spscan_test::route expected_route = Route;

  __host__ __device__ value operator()(const value& x, const value& y) const
  {
    return {x.m00 * y.m00 + x.m01 * y.m10,
            x.m00 * y.m01 + x.m01 * y.m11,
            x.m10 * y.m00 + x.m11 * y.m10,
            x.m10 * y.m01 + x.m11 * y.m11};
  }
  // Odd diagonal, even off-diagonal: an odd determinant.
  static void make_invertible(value& x)
  {
    x.m00 |= 1u;
    x.m11 |= 1u;
    x.m01 &= ~Word{1};
    x.m10 &= ~Word{1};
  }
};

// Upper-triangular 3x3 matrix modulo 2^64: 48 bytes, above the kernel's 32-byte accumulator limit.
struct upper3
{
  std::uint64_t a00, a01, a02, a11, a12, a22;
};

struct multiply_upper3
{
  using value                                        = upper3;
  static constexpr spscan_test::route expected_route = spscan_test::route::thrust;

  __host__ __device__ upper3 operator()(const upper3& x, const upper3& y) const
  {
    return {x.a00 * y.a00,
            x.a00 * y.a01 + x.a01 * y.a11,
            x.a00 * y.a02 + x.a01 * y.a12 + x.a02 * y.a22,
            x.a11 * y.a11,
            x.a11 * y.a12 + x.a12 * y.a22,
            x.a22 * y.a22};
  }
  static void make_invertible(upper3& x)
  {
    x.a00 |= 1u;
    x.a11 |= 1u;
    x.a22 |= 1u;
  }
};

static_assert(sizeof(affine_map) == 8 && sizeof(matrix2<std::uint32_t>) == 16 && sizeof(matrix2<std::uint64_t>) == 32
                && sizeof(upper3) == 48,
              "the op values cover 8, 16, 32 and 48 bytes");

// Passes the int it is given: the transform of the transform_exclusive_scan corner case.
struct identity_int
{
  __host__ __device__ int operator()(int x) const
  {
    return x;
  }
};

using spscan_test::route;
using spscan_test::system_from;

using namespace spscan_test::scan_calls; // support/scan_calls.h

template <class In, class Accum = In, class Out = In>
constexpr std::size_t tile_of = spscan::detail::scan_tuning<In, Accum, Out>::tile_items;

// One and a few elements, the edges of one tile, both ends of the small inputs' smaller tiles
// (tile + 1, and 32 tiles less 3: just under 1 MiB, or 2 MiB for 8-byte types; common/tuning.h),
// and enough tiles that the look-back walks through several full 32-tile windows.
std::vector<std::size_t> sizes_around(std::size_t tile)
{
  std::vector<std::size_t> sizes;
  for (const std::size_t n : {std::size_t{1}, std::size_t{33}, tile - 1, tile, tile + 1, 32 * tile - 3, 70 * tile + 3})
  {
    if (n <= spscan_test::max_test_elements())
    {
      sizes.push_back(n);
    }
  }
  return sizes;
}

// Integers: random values (small, mixed signs). Floating point: multiples of 1/8 between -7/8 and
// 7/8, so that every partial sum of up to 2^21 of them is a multiple of 1/8 below 2^21 in
// magnitude, exactly representable in float: the result is exact whatever the association.
template <class T>
std::vector<T> exact_input(std::size_t n, std::uint64_t seed)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    const std::vector<int> eighths = spscan_test::random_values<int>(n, seed);
    std::vector<T> values;
    values.reserve(n);
    for (const int k : eighths)
    {
      values.push_back(static_cast<T>(k) / T(8));
    }
    return values;
  }
  else
  {
    return spscan_test::random_values<T>(n, seed);
  }
}

template <class T>
T exclusive_init()
{
  return std::is_floating_point_v<T> ? static_cast<T>(0.25) : static_cast<T>(3);
}

struct type_names
{
  template <class T>
  static std::string GetName(int)
  {
    if constexpr (std::is_floating_point_v<T>)
    {
      return sizeof(T) == 4 ? "float" : "double";
    }
    else
    {
      return (std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Every element size, results exact

template <class T>
class ScanTypes : public ::testing::Test
{};

using element_types = ::testing::
  Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ScanTypes, element_types, type_names);

TYPED_TEST(ScanTypes, InclusiveScanMatchesReferenceAndThrustBitForBit)
{
  SPSCAN_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::size_t n : sizes_around(tile_of<T>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<T> input = exact_input<T>(n, seed);
    spscan_test::expect_device_scan_exact(
      system_from::policy,
      route::kernel,
      input,
      spscan_test::reference_inclusive<T>(input, std::plus<>{}),
      spscan_inclusive,
      thrust_inclusive);
  }
}

TYPED_TEST(ScanTypes, ExclusiveScanMatchesReferenceAndThrustBitForBit)
{
  SPSCAN_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::size_t n : sizes_around(tile_of<T>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<T> input = exact_input<T>(n, seed);
    spscan_test::expect_device_scan_exact(
      system_from::policy,
      route::kernel,
      input,
      spscan_test::reference_exclusive<T>(input, exclusive_init<T>(), std::plus<>{}),
      spscan_exclusive,
      thrust_exclusive,
      exclusive_init<T>(),
      thrust::plus<>{});
  }
}

// Ranges that start one element past a 16-byte boundary (input) and three past one (output)
// take the element-wise path even for full tiles; the elements around the output range must
// stay untouched.
template <class T, class SpscanScan, class ThrustScan, class... Trailing>
void expect_misaligned_exact(
  const std::vector<T>& input, const std::vector<T>& reference, SpscanScan spscan_scan, ThrustScan thrust_scan, const Trailing&... trailing)
{
  constexpr std::ptrdiff_t in_offset = 1, out_offset = 3, guard = 1;
  const auto n                       = static_cast<std::ptrdiff_t>(input.size());
  std::vector<T> shifted(input.size() + in_offset);
  std::copy(input.begin(), input.end(), shifted.begin() + in_offset);
  thrust::device_vector<T> d_in = spscan_test::to_device(shifted);
  thrust::device_vector<T> d_out(input.size() + out_offset + guard);

  const auto run = [&](auto scan, const char* who) {
    SCOPED_TRACE(who);
    spscan_test::poison(d_out);
    EXPECT_EQ(n, spscan_test::invoke_on_device(system_from::policy, d_in, in_offset, in_offset + n, d_out, out_offset, scan, trailing...))
      << "return value";
    const std::vector<T> all = spscan_test::to_host(d_out);
    EXPECT_TRUE(spscan_test::all_poisoned(std::vector<T>(all.begin(), all.begin() + out_offset)))
      << "written before result";
    EXPECT_TRUE(spscan_test::all_poisoned(std::vector<T>(all.end() - guard, all.end()))) << "written past result + n";
    return std::vector<T>(all.begin() + out_offset, all.end() - guard);
  };
  const auto before          = spscan_test::route_counts::now();
  const std::vector<T> mine  = run(spscan_scan, "spscan");
  spscan_test::expect_one_call_on(route::kernel, before);
  const std::vector<T> theirs = run(thrust_scan, "Thrust");
  spscan_test::expect_bitwise_equal(reference, mine, "misaligned spscan vs sequential reference");
  spscan_test::expect_bitwise_equal(theirs, mine, "misaligned spscan vs Thrust's same call");
}

TYPED_TEST(ScanTypes, MisalignedRangesMatchReferenceAndThrustBitForBit)
{
  SPSCAN_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::size_t n : {tile_of<T>, 5 * tile_of<T> + 7})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<T> input = exact_input<T>(n, seed);
    {
      SCOPED_TRACE("inclusive_scan");
      expect_misaligned_exact(
        input, spscan_test::reference_inclusive<T>(input, std::plus<>{}), spscan_inclusive, thrust_inclusive);
    }
    {
      SCOPED_TRACE("exclusive_scan");
      expect_misaligned_exact(
        input,
        spscan_test::reference_exclusive<T>(input, exclusive_init<T>(), std::plus<>{}),
        spscan_exclusive,
        thrust_exclusive,
        exclusive_init<T>(),
        thrust::plus<>{});
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Floating point whose sums round
//
// Error bound. Result element i combines m terms (the init, if any, and x_0..x_i) in T, in an
// association of the implementation's choosing. Whatever the association, each term takes part in
// at most m - 1 rounded additions, so |computed - exact| <= gamma(m - 1) * sum|terms| with
// gamma(k) = k*u / (1 - k*u) and u = epsilon / 2. The test checks the slightly larger
//     |computed - exact| <= m * epsilon * sum|terms|,
// valid while m*u <= 1/2 (here m*u < 0.05). `exact` is the long double sequential sum, whose own
// error is far below the bound. spscan and Thrust each satisfy it, so they differ by at most twice it.
// For float at thousands of elements the bound is wider than one element's value, so this test
// checks rounding only; the exact-data tests above are the ones that catch a lost or repeated element.

template <class T>
class FloatingScan : public ::testing::Test
{};

using floating_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatingScan, floating_types, type_names);

template <class T>
void expect_within_rounding_bound(const std::vector<T>& input, bool exclusive, const std::vector<T>& mine, const std::vector<T>& theirs)
{
  std::vector<long double> exact(input.size()), bound(input.size());
  long double sum = exclusive ? static_cast<long double>(exclusive_init<T>()) : 0.0L;
  long double magnitude = exclusive ? std::fabs(static_cast<long double>(exclusive_init<T>())) : 0.0L;
  std::size_t terms     = exclusive ? 1 : 0;
  const long double eps = std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < input.size(); ++i)
  {
    if (!exclusive)
    {
      sum += input[i];
      magnitude += std::fabs(static_cast<long double>(input[i]));
      ++terms;
    }
    exact[i] = sum;
    bound[i] = static_cast<long double>(terms) * eps * magnitude;
    if (exclusive)
    {
      sum += input[i];
      magnitude += std::fabs(static_cast<long double>(input[i]));
      ++terms;
    }
  }
  spscan_test::expect_all_elements(exact, mine, "spscan vs long double reference", [&](long double e, T got, std::size_t i) {
    return std::fabs(static_cast<long double>(got) - e) <= bound[i];
  });
  spscan_test::expect_all_elements(theirs, mine, "spscan vs Thrust's same call", [&](T them, T got, std::size_t i) {
    return std::fabs(static_cast<long double>(got) - static_cast<long double>(them)) <= 2 * bound[i];
  });
}

TYPED_TEST(FloatingScan, RoundedScansStayWithinErrorBoundOfReferenceAndThrust)
{
  SPSCAN_REQUIRE_GPU();
  using T = TypeParam;
  for (const std::size_t n : sizes_around(tile_of<T>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<T> input = spscan_test::random_values<T>(n, seed); // in [-0.5, 0.5): sums round
    {
      SCOPED_TRACE("inclusive_scan");
      const auto outputs = spscan_test::run_device_scans<T>(
        system_from::policy, route::kernel, input, spscan_inclusive, thrust_inclusive);
      expect_within_rounding_bound(input, false, outputs.spscan, outputs.thrust);
    }
    {
      SCOPED_TRACE("exclusive_scan");
      const auto outputs = spscan_test::run_device_scans<T>(
        system_from::policy, route::kernel, input, spscan_exclusive, thrust_exclusive, exclusive_init<T>(), thrust::plus<>{});
      expect_within_rounding_bound(input, true, outputs.spscan, outputs.thrust);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Thrust's accumulator types, including the surprising ones: spscan is a drop-in, not a fix.

// int8 values 1..7: sums pass 127 within a few dozen elements, so an 8-bit accumulator wraps.
std::vector<std::int8_t> positive_int8(std::size_t n, std::uint64_t seed)
{
  std::vector<std::int8_t> values = spscan_test::random_values<std::int8_t>(n, seed);
  for (auto& v : values)
  {
    v = static_cast<std::int8_t>(v < 0 ? -v : v);
  }
  return values;
}

template <class To, class From>
std::vector<To> converted(const std::vector<From>& values)
{
  return std::vector<To>(values.begin(), values.end());
}

template <class T>
bool any_negative(const std::vector<T>& values)
{
  for (const T& v : values)
  {
    if (v < 0)
    {
      return true;
    }
  }
  return false;
}

std::vector<std::size_t> corner_case_sizes(std::size_t tile)
{
  std::vector<std::size_t> sizes;
  for (const std::size_t n : {std::size_t{100}, tile + 1, 70 * tile + 3})
  {
    if (n <= spscan_test::max_test_elements())
    {
      sizes.push_back(n);
    }
  }
  return sizes;
}

TEST(ThrustAccumulatorRules, Int8InclusiveScanIntoInt32OutputWrapsAtEightBits)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : corner_case_sizes(tile_of<std::int8_t, std::int8_t, int>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<std::int8_t> input = positive_int8(n, seed);
    // The accumulator is the input's value type: sums wrap at 8 bits before they are widened.
    const std::vector<int> reference = converted<int>(spscan_test::reference_inclusive<std::int8_t>(input, std::plus<>{}));
    ASSERT_TRUE(any_negative(reference)) << "the input must make an 8-bit accumulator wrap";
    spscan_test::expect_device_scan_exact(
      system_from::policy, route::kernel, input, reference, spscan_inclusive, thrust_inclusive);
  }
}

TEST(ThrustAccumulatorRules, Int64ExclusiveScanWithIntInitAccumulatesInInt)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : corner_case_sizes(tile_of<std::int64_t, int, std::int64_t>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    // Each value is a multiple of 2^32 plus a small number: converted to int, only the small
    // number survives, so an int accumulator gives small sums where an int64 one gives huge ones.
    std::vector<std::int64_t> input = spscan_test::random_values<std::int64_t>(n, seed);
    std::mt19937_64 engine(seed);
    for (auto& v : input)
    {
      v += static_cast<std::int64_t>(1 + engine() % 1000) << 32;
    }
    const int init = 5;
    const std::vector<std::int64_t> reference =
      converted<std::int64_t>(spscan_test::reference_exclusive<int>(input, init, std::plus<>{}));
    ASSERT_NE(reference.back(), spscan_test::reference_exclusive<std::int64_t>(input, init, std::plus<>{}).back())
      << "the input must tell an int accumulator from an int64 one";
    spscan_test::expect_device_scan_exact(
      system_from::policy, route::kernel, input, reference, spscan_exclusive, thrust_exclusive, init);
  }
}

TEST(ThrustAccumulatorRules, InclusiveScanWithIntInitOverInt8DataAccumulatesInInt)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : corner_case_sizes(tile_of<std::int8_t, int, int>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<std::int8_t> input = positive_int8(n, seed);
    const int init                       = 100;
    // The accumulator is what op(init, value) returns: int, so nothing wraps.
    const std::vector<int> reference = spscan_test::reference_inclusive<int>(input, init, std::plus<>{});
    ASSERT_GT(reference.back(), 127) << "the input must overflow an 8-bit accumulator";
    spscan_test::expect_device_scan_exact(
      system_from::policy, route::kernel, input, reference, spscan_inclusive, thrust_inclusive, init, thrust::plus<>{});
  }
}

TEST(ThrustAccumulatorRules, TransformExclusiveScanAccumulatesInTheInitType)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : corner_case_sizes(tile_of<int, std::int8_t, int>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<int> input = converted<int>(positive_int8(n, seed));
    const std::int8_t init       = 1;
    // The transformed values take the init's type, int8: sums wrap at 8 bits.
    const std::vector<int> reference =
      converted<int>(spscan_test::reference_exclusive<std::int8_t>(input, init, std::plus<>{}));
    ASSERT_TRUE(any_negative(reference)) << "the input must make an 8-bit accumulator wrap";
    spscan_test::expect_device_scan_exact(
      system_from::policy,
      route::kernel,
      input,
      reference,
      spscan_transform_exclusive,
      thrust_transform_exclusive,
      identity_int{},
      init,
      thrust::plus<>{});
  }
}

// ---------------------------------------------------------------------------------------------
// Non-commutative ops: operands must be combined (earlier, later) everywhere.

template <class Op>
class NonCommutativeScan : public ::testing::Test
{};

using non_commutative_ops = ::testing::Types<compose_affine,
                                             multiply_matrix2<std::uint32_t, route::kernel>,
                                             multiply_matrix2<std::uint64_t, route::kernel>,
                                             multiply_upper3>;

struct op_names
{
  template <class Op>
  static std::string GetName(int)
  {
    return "bytes" + std::to_string(sizeof(typename Op::value));
  }
};
TYPED_TEST_SUITE(NonCommutativeScan, non_commutative_ops, op_names);

template <class Op>
std::vector<typename Op::value> invertible_values(std::size_t n, std::uint64_t seed)
{
  std::vector<typename Op::value> values = spscan_test::random_values<typename Op::value>(n, seed);
  for (auto& v : values)
  {
    Op::make_invertible(v);
  }
  return values;
}

TYPED_TEST(NonCommutativeScan, ScansMatchReferenceAndThrustBitForBit)
{
  SPSCAN_REQUIRE_GPU();
  using Op = TypeParam;
  using V  = typename Op::value;
  for (const std::size_t n : sizes_around(tile_of<V>))
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<V> input = invertible_values<Op>(n, seed);
    const V init               = invertible_values<Op>(1, seed ^ 0x5bd1e995u).front();

    if (n >= 2)
    { // The op must really depend on the order of its operands, or this test proves nothing.
      const V ab = Op{}(input[0], input[1]);
      const V ba = Op{}(input[1], input[0]);
      ASSERT_NE(0, std::memcmp(&ab, &ba, sizeof(V))) << "op(a, b) == op(b, a) for the first two inputs";
    }
    {
      SCOPED_TRACE("inclusive_scan(..., op)");
      spscan_test::expect_device_scan_exact(
        system_from::policy,
        Op::expected_route,
        input,
        spscan_test::reference_inclusive<V>(input, Op{}),
        spscan_inclusive,
        thrust_inclusive,
        Op{});
    }
    {
      SCOPED_TRACE("inclusive_scan(..., init, op)");
      spscan_test::expect_device_scan_exact(
        system_from::policy,
        Op::expected_route,
        input,
        spscan_test::reference_inclusive<V>(input, init, Op{}),
        spscan_inclusive,
        thrust_inclusive,
        init,
        Op{});
    }
    {
      SCOPED_TRACE("exclusive_scan(..., init, op)");
      spscan_test::expect_device_scan_exact(
        system_from::policy,
        Op::expected_route,
        input,
        spscan_test::reference_exclusive<V>(input, init, Op{}),
        spscan_exclusive,
        thrust_exclusive,
        init,
        Op{});
    }
  }
}

} // namespace

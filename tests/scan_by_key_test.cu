// spscan::inclusive_scan_by_key and exclusive_scan_by_key against a sequential reference and
// against Thrust, bit for bit for integers: every form, with and without a policy and through
// spscan::par; segments crossing tile boundaries, every element its own segment, one segment,
// empty and one-element inputs; in place over the keys and over the values; a head-flag
// predicate; a non-commutative operator; mixed types; more than 2^31 elements; floating-point
// results within a stated bound of a float64 reference and identical bits run to run under
// concurrent load. On the CPU: host policies run Thrust and match it, and the accumulator rules.
#include <spscan/spscan.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/count.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/noncommutative.h>
#include <support/wide_value.h>

namespace
{

using spscan_test::route_probe;

// The seven forms, as callables forwarding to one overload set (spscan's or Thrust's) with a
// policy-or-none prefix. Each explicit init, predicate and op differs from the default.
constexpr int form_count                   = 7;
const char* const form_names[form_count] = {
  "inclusive_scan_by_key(keys, keys_end, values, result)",
  "inclusive_scan_by_key(..., result, pred)",
  "inclusive_scan_by_key(..., result, pred, maximum)",
  "exclusive_scan_by_key(keys, keys_end, values, result)",
  "exclusive_scan_by_key(..., result, init)",
  "exclusive_scan_by_key(..., result, init, pred)",
  "exclusive_scan_by_key(..., result, init, pred, maximum)"};

constexpr int by_key_init = 7;

// Keys equal when they agree modulo 1000: not the default predicate, so a lost predicate shows.
struct same_modulo_1000
{
  __host__ __device__ bool operator()(int a, int b) const
  {
    return a % 1000 == b % 1000;
  }
};

struct spscan_calls
{
  template <class... A>
  auto inclusive(A... a) const
  {
    return spscan::inclusive_scan_by_key(a...);
  }
  template <class... A>
  auto exclusive(A... a) const
  {
    return spscan::exclusive_scan_by_key(a...);
  }
};

struct thrust_calls
{
  template <class... A>
  auto inclusive(A... a) const
  {
    return thrust::inclusive_scan_by_key(a...);
  }
  template <class... A>
  auto exclusive(A... a) const
  {
    return thrust::exclusive_scan_by_key(a...);
  }
};

// Runs form `f` with `calls` as calls.inclusive/exclusive(prefix..., keys, keys_end, values, result, ...).
template <class Calls, class KeysIt, class ValuesIt, class OutputIt, class... Prefix>
OutputIt run_form(Calls calls, int f, KeysIt keys, KeysIt keys_end, ValuesIt values, OutputIt result, Prefix... prefix)
{
  const same_modulo_1000 pred;
  const thrust::maximum<int> maximum;
  switch (f)
  {
    case 0:
      return calls.inclusive(prefix..., keys, keys_end, values, result);
    case 1:
      return calls.inclusive(prefix..., keys, keys_end, values, result, pred);
    case 2:
      return calls.inclusive(prefix..., keys, keys_end, values, result, pred, maximum);
    case 3:
      return calls.exclusive(prefix..., keys, keys_end, values, result);
    case 4:
      return calls.exclusive(prefix..., keys, keys_end, values, result, by_key_init);
    case 5:
      return calls.exclusive(prefix..., keys, keys_end, values, result, by_key_init, pred);
    default:
      return calls.exclusive(prefix..., keys, keys_end, values, result, by_key_init, pred, maximum);
  }
}

std::vector<int> expected_form(int f, const std::vector<int>& keys, const std::vector<int>& values)
{
  using spscan_test::reference_exclusive_by_key;
  using spscan_test::reference_inclusive_by_key;
  const thrust::equal_to<int> equal;
  const same_modulo_1000 pred;
  const thrust::plus<int> plus;
  const thrust::maximum<int> maximum;
  switch (f)
  {
    case 0:
      return reference_inclusive_by_key<int>(keys, values, equal, plus);
    case 1:
      return reference_inclusive_by_key<int>(keys, values, pred, plus);
    case 2:
      return reference_inclusive_by_key<int>(keys, values, pred, maximum);
    case 3:
      return reference_exclusive_by_key<int>(keys, values, 0, equal, plus);
    case 4:
      return reference_exclusive_by_key<int>(keys, values, by_key_init, equal, plus);
    case 5:
      return reference_exclusive_by_key<int>(keys, values, by_key_init, pred, plus);
    default:
      return reference_exclusive_by_key<int>(keys, values, by_key_init, pred, maximum);
  }
}

// Keys for `same_modulo_1000`: neighbours that agree modulo 1000 but differ, so that the default
// predicate (equal_to) and same_modulo_1000 cut different segments.
std::vector<int> keys_with_aliases(const std::vector<int>& keys, std::uint64_t seed)
{
  std::vector<int> out(keys);
  std::mt19937_64 engine(seed);
  for (auto& k : out)
  {
    k += 1000 * static_cast<int>(engine() % 3);
  }
  return out;
}

constexpr std::size_t tile_items = spscan::detail::scan_by_key_tuning<int>::tile_items;

// Sizes around tile boundaries and a few many-tile ones: 2 to 8 and 9 to 32 of scan_by_key_tuning's
// tiles run in quarter and half tiles (scan_by_key_on_device), more in the full ones.
std::vector<std::size_t> interesting_sizes()
{
  std::vector<std::size_t> sizes{0, 1, 2, 31, 33, tile_items - 1, tile_items, tile_items + 1, 3 * tile_items + 17,
                                 8 * tile_items, 20 * tile_items + 5, (std::size_t{1} << 20) + 3, std::size_t{1} << 24};
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](std::size_t n) { return n > spscan_test::max_test_elements(); }),
              sizes.end());
  return sizes;
}

// One case: fresh keys with segments of mean length `mean`, fresh values; every form through
// `policy...`, against the reference and against Thrust with thrust::device.
template <class... Policy>
void expect_every_form_exact(std::size_t n, double mean, const char* how, Policy... policy)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << how << ", " << spscan_test::case_name(seed, n) << ", mean segment " << mean);
  const std::vector<int> keys   = keys_with_aliases(spscan_test::random_segment_keys<int>(n, mean, seed), seed);
  const std::vector<int> values = spscan_test::random_values<int>(n, seed + 1);
  thrust::device_vector<int> d_keys   = spscan_test::to_device(keys);
  thrust::device_vector<int> d_values = spscan_test::to_device(values);
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    thrust::device_vector<int> out(n);
    thrust::device_vector<int> thrust_out(n);
    spscan_test::poison(out);
    spscan_test::poison(thrust_out);
    route_probe routed;
    const auto end = run_form(spscan_calls{}, f, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), policy...);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n)) << "returned iterator";
    EXPECT_EQ(routed.kernel_calls(), 1u) << "spscan's kernel did not run";
    run_form(thrust_calls{}, f, d_keys.begin(), d_keys.end(), d_values.begin(), thrust_out.begin(), thrust::device);
    const std::vector<int> got = spscan_test::to_host(out);
    spscan_test::expect_bitwise_equal(expected_form(f, keys, values), got, "against the sequential reference");
    spscan_test::expect_bitwise_equal(spscan_test::to_host(thrust_out), got, "against Thrust");
  }
}

TEST(ScanByKey, EveryFormMatchesReferenceAndThrustWithDeviceIterators)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : interesting_sizes())
  {
    expect_every_form_exact(n, 8, "no policy");
  }
}

TEST(ScanByKey, EverySegmentLengthMatchesReferenceAndThrust)
{
  SPSCAN_REQUIRE_GPU();
  // Every element its own segment, short, tile-sized and longer segments, and one segment.
  const std::size_t n = std::min<std::size_t>(std::size_t{1} << 22, spscan_test::max_test_elements());
  for (const double mean : {1.0, 3.0, 8.0, 4096.0, double(tile_items), 3.0 * tile_items, 1e18})
  {
    expect_every_form_exact(n, mean, "thrust::device", thrust::device);
  }
}

TEST(ScanByKey, EveryPolicyMatchesReferenceAndThrust)
{
  SPSCAN_REQUIRE_GPU();
  spscan_test::owned_stream stream;
  const std::size_t n = std::min<std::size_t>(5 * tile_items + 123, spscan_test::max_test_elements());
  expect_every_form_exact(n, 8, "thrust::device", thrust::device);
  expect_every_form_exact(n, 8, "thrust::cuda::par.on(stream)", thrust::cuda::par.on(stream.stream));
  expect_every_form_exact(n, 8, "thrust::cuda::par_nosync", thrust::cuda::par_nosync);
  expect_every_form_exact(n, 8, "spscan::par", spscan::par);
  expect_every_form_exact(n, 8, "spscan::par_nosync.on(stream)", spscan::par_nosync.on(stream.stream));
}

TEST(ScanByKey, ThrustsEntryPointsWithSpscanParRunSpscan)
{
  SPSCAN_REQUIRE_GPU();
  const std::uint64_t seed      = spscan_test::fresh_seed();
  const std::size_t n           = std::min<std::size_t>(7 * tile_items + 5, spscan_test::max_test_elements());
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> keys   = spscan_test::random_segment_keys<int>(n, 100, seed);
  const std::vector<int> values = spscan_test::random_values<int>(n, seed + 1);
  thrust::device_vector<int> d_keys = spscan_test::to_device(keys), d_values = spscan_test::to_device(values);
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    thrust::device_vector<int> out(n);
    spscan_test::poison(out);
    route_probe routed;
    run_form(thrust_calls{}, f, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), spscan::par);
    EXPECT_EQ(routed.kernel_calls(), 1u);
    EXPECT_EQ(routed.thrust_calls(), 0u);
    spscan_test::expect_bitwise_equal(expected_form(f, keys, values), spscan_test::to_host(out), "against the reference");
  }
}

TEST(ScanByKey, InPlaceOverKeysAndOverValues)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : interesting_sizes())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    // Segments of ~3 elements: almost every tile starts with a key compared to the one before it.
    const std::vector<int> keys   = spscan_test::random_segment_keys<int>(n, 3, seed);
    const std::vector<int> values = spscan_test::random_values<int>(n, seed + 1);
    for (int f = 0; f < form_count; ++f)
    {
      SCOPED_TRACE(form_names[f]);
      const std::vector<int> expected = expected_form(f, keys, values);
      {
        thrust::device_vector<int> d_keys = spscan_test::to_device(keys), d_values = spscan_test::to_device(values);
        const auto end = run_form(spscan_calls{}, f, d_keys.begin(), d_keys.end(), d_values.begin(), d_keys.begin());
        EXPECT_EQ(end - d_keys.begin(), static_cast<std::ptrdiff_t>(n));
        spscan_test::expect_bitwise_equal(expected, spscan_test::to_host(d_keys), "result over the keys");
      }
      {
        thrust::device_vector<int> d_keys = spscan_test::to_device(keys), d_values = spscan_test::to_device(values);
        run_form(spscan_calls{}, f, d_keys.begin(), d_keys.end(), d_values.begin(), d_values.begin(), thrust::device);
        spscan_test::expect_bitwise_equal(expected, spscan_test::to_host(d_values), "result over the values");
        spscan_test::expect_bitwise_equal(keys, spscan_test::to_host(d_keys), "keys untouched");
      }
    }
  }
}

// Thrust's head-flag pattern: key 1 marks a segment's first element; pred(previous, current) is
// true when `current` continues the segment. Not symmetric.
struct continues_unless_flagged
{
  __host__ __device__ bool operator()(int, int current) const
  {
    return current == 0;
  }
};

TEST(ScanByKey, HeadFlagPredicateIsCalledAsPreviousThenCurrent)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(9 * tile_items + 77, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  std::mt19937_64 engine(seed);
  std::vector<int> flags(n);
  for (auto& flag : flags)
  {
    flag = engine() % 50 == 0 ? 1 : 0;
  }
  const std::vector<int> values = spscan_test::random_values<int>(n, seed + 1);
  thrust::device_vector<int> d_flags = spscan_test::to_device(flags), d_values = spscan_test::to_device(values);
  thrust::device_vector<int> out(n);
  spscan_test::poison(out);
  spscan::inclusive_scan_by_key(
    thrust::device, d_flags.begin(), d_flags.end(), d_values.begin(), out.begin(), continues_unless_flagged{});
  spscan_test::expect_bitwise_equal(
    spscan_test::reference_inclusive_by_key<int>(flags, values, continues_unless_flagged{}, thrust::plus<int>{}),
    spscan_test::to_host(out),
    "inclusive");
  spscan_test::poison(out);
  spscan::exclusive_scan_by_key(
    thrust::device, d_flags.begin(), d_flags.end(), d_values.begin(), out.begin(), 10, continues_unless_flagged{});
  spscan_test::expect_bitwise_equal(
    spscan_test::reference_exclusive_by_key<int>(flags, values, 10, continues_unless_flagged{}, thrust::plus<int>{}),
    spscan_test::to_host(out),
    "exclusive");
}

template <class T, class Op>
void expect_noncommutative_exact(std::size_t n, Op op, T init)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> keys   = spscan_test::random_segment_keys<int>(n, 2000, seed);
  const std::vector<T> values   = spscan_test::random_values<T>(n, seed + 1);
  thrust::device_vector<int> d_keys = spscan_test::to_device(keys);
  thrust::device_vector<T> d_values = spscan_test::to_device(values);
  thrust::device_vector<T> out(n);
  spscan_test::poison(out);
  route_probe routed;
  spscan::inclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), thrust::equal_to<int>{}, op);
  spscan_test::expect_bitwise_equal(
    spscan_test::reference_inclusive_by_key<T>(keys, values, thrust::equal_to<int>{}, op), spscan_test::to_host(out), "inclusive");
  spscan_test::poison(out);
  spscan::exclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), init, thrust::equal_to<int>{}, op);
  spscan_test::expect_bitwise_equal(
    spscan_test::reference_exclusive_by_key<T>(keys, values, init, thrust::equal_to<int>{}, op), spscan_test::to_host(out), "exclusive");
  EXPECT_EQ(routed.kernel_calls(), 2u);
}

TEST(ScanByKey, NonCommutativeOperatorsComposeInOrder)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>((std::size_t{1} << 20) + 9, spscan_test::max_test_elements());
  expect_noncommutative_exact(n, spscan_test::compose_affine16{}, spscan_test::affine16{3, 5});
  expect_noncommutative_exact(n, spscan_test::compose_affine32{}, spscan_test::affine32{3, 5});
  expect_noncommutative_exact(n, spscan_test::multiply_matrix2{}, spscan_test::matrix2{1, 2, 3, 4});
}

TEST(ScanByKey, AccumulatorTypesFollowThrust)
{
  SPSCAN_REQUIRE_GPU();
  // int8 values: the inclusive scan accumulates in int8 and wraps, into a wider output.
  const std::size_t n          = std::min<std::size_t>(3 * tile_items + 1, spscan_test::max_test_elements());
  const std::vector<int> keys  = spscan_test::random_segment_keys<int>(n, 500, 11);
  std::vector<std::int8_t> values(n, 100);
  thrust::device_vector<int> d_keys             = spscan_test::to_device(keys);
  thrust::device_vector<std::int8_t> d_values   = spscan_test::to_device(values);
  thrust::device_vector<int> out(n), thrust_out(n);
  spscan::inclusive_scan_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), out.begin());
  thrust::inclusive_scan_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), thrust_out.begin());
  const auto reference = spscan_test::reference_inclusive_by_key<std::int8_t>(keys, values, thrust::equal_to<int>{}, thrust::plus<int>{});
  const std::vector<int> expected(reference.begin(), reference.end());
  spscan_test::expect_bitwise_equal(expected, spscan_test::to_host(out), "int8 inclusive, int output");
  spscan_test::expect_bitwise_equal(spscan_test::to_host(thrust_out), spscan_test::to_host(out), "against Thrust");
  // Exclusive: the init's type. A float init over int values accumulates in float.
  std::vector<int> ints(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    ints[i] = static_cast<int>(i % 10);
  }
  thrust::device_vector<int> d_ints = spscan_test::to_device(ints);
  thrust::device_vector<float> f_out(n), f_thrust(n);
  spscan::exclusive_scan_by_key(d_keys.begin(), d_keys.end(), d_ints.begin(), f_out.begin(), 3.5f);
  thrust::exclusive_scan_by_key(d_keys.begin(), d_keys.end(), d_ints.begin(), f_thrust.begin(), 3.5f);
  spscan_test::expect_bitwise_equal(spscan_test::to_host(f_thrust), spscan_test::to_host(f_out), "float init, against Thrust");
}

// Floats: within the bound of a sequential sum of each segment, (m-1) eps sum|x| for a segment of
// m elements, of a float64 reference; and the same bits every run, whatever runs beside.
TEST(ScanByKey, FloatResultsStayWithinBoundAndAreReproducibleUnderLoad)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(std::size_t{1} << 22, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> keys     = spscan_test::random_segment_keys<int>(n, 4096, seed);
  const std::vector<float> values = spscan_test::random_values<float>(n, seed + 1);
  thrust::device_vector<int> d_keys     = spscan_test::to_device(keys);
  thrust::device_vector<float> d_values = spscan_test::to_device(values);
  thrust::device_vector<float> out(n), again(n);

  // float64 reference and the bound, segment by segment.
  std::vector<double> reference(n), magnitude(n);
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const bool head = i == 0 || keys[i - 1] != keys[i];
    reference[i]    = head ? values[i] : reference[i - 1] + values[i];
    magnitude[i]    = head ? std::fabs(values[i]) : magnitude[i - 1] + std::fabs(values[i]);
    position[i]     = head ? 0 : position[i - 1] + 1;
  }
  spscan::inclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin());
  const std::vector<float> first = spscan_test::to_host(out);
  const double eps               = 5.96e-8; // 2^-24
  std::size_t beyond             = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const double bound = (double(position[i]) + 1) * eps * magnitude[i] * 1.01 + 1e-30;
    beyond += std::fabs(first[i] - reference[i]) > bound ? 1 : 0;
  }
  EXPECT_EQ(beyond, 0u) << "elements outside the error bound";

  // Reruns with other streams busy: identical bits.
  spscan_test::owned_stream busy;
  thrust::device_vector<float> noise_in(std::size_t{1} << 24, 1.0f), noise_out(std::size_t{1} << 24);
  for (int run = 0; run < 10; ++run)
  {
    spscan::inclusive_scan(thrust::cuda::par_nosync.on(busy.stream), noise_in.begin(), noise_in.end(), noise_out.begin());
    spscan_test::poison(again);
    spscan::inclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), again.begin());
    spscan_test::expect_bitwise_equal(first, spscan_test::to_host(again), "rerun under load");
  }
}

TEST(ScanByKey, DoubleValuesMatchThrustWithinBound)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>((std::size_t{1} << 21) + 1, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> keys      = spscan_test::random_segment_keys<int>(n, 8, seed);
  const std::vector<double> values = spscan_test::random_values<double>(n, seed + 1);
  thrust::device_vector<int> d_keys      = spscan_test::to_device(keys);
  thrust::device_vector<double> d_values = spscan_test::to_device(values);
  thrust::device_vector<double> out(n);
  spscan::exclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), 0.25);
  const auto reference = spscan_test::reference_exclusive_by_key<double>(keys, values, 0.25, thrust::equal_to<int>{}, thrust::plus<double>{});
  const std::vector<double> got = spscan_test::to_host(out);
  std::size_t beyond = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    // Segments of ~8 elements of magnitude <= 0.5: a few ulps of 4.
    beyond += std::fabs(got[i] - reference[i]) > 1e-13 * (1 + std::fabs(reference[i])) * 64 ? 1 : 0;
  }
  EXPECT_EQ(beyond, 0u);
}

// Keys and values beyond 2^31 elements, generated on the fly: key i / 1000 (segments of 1000),
// value 1, so the inclusive result is i % 1000 + 1; checked on the device.
struct segment_of
{
  __host__ __device__ long long operator()(long long i) const
  {
    return i / 1000;
  }
};

struct wrong_count_in_segment
{
  __host__ __device__ bool operator()(const thrust::tuple<int, long long>& result_and_index) const
  {
    return thrust::get<0>(result_and_index) != static_cast<int>(thrust::get<1>(result_and_index) % 1000 + 1);
  }
};

TEST(ScanByKey, MoreThanTwoToThe31Elements)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 31) + 4097;
  if (n > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << n << " elements exceed SPSCAN_TEST_MAX_ELEMENTS for this run";
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  if (free_bytes < n * sizeof(int) + (std::size_t{1} << 30))
  {
    GTEST_SKIP() << "needs " << n * sizeof(int) << " bytes of free device memory";
  }
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), segment_of{});
  thrust::device_vector<int> out(n);
  spscan_test::poison(out);
  const auto end = spscan::inclusive_scan_by_key(thrust::device, keys, keys + n, thrust::constant_iterator<int>(1), out.begin());
  EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n));
  const auto checked = thrust::make_zip_iterator(thrust::make_tuple(out.begin(), thrust::counting_iterator<long long>(0)));
  EXPECT_EQ(thrust::count_if(thrust::device, checked, checked + n, wrong_count_in_segment{}), 0);
}

using spscan_test::wide::add_wide;
using spscan_test::wide::wide_value;

TEST(ScanByKey, AccumulatorsTheKernelCannotHoldRunThrusts)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 10000;
  std::vector<wide_value> values(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    for (int j = 0; j < 5; ++j)
    {
      values[i].part[j] = static_cast<long long>(i * 7 + j);
    }
  }
  const std::vector<int> keys = spscan_test::random_segment_keys<int>(n, 30, 5);
  thrust::device_vector<int> d_keys = spscan_test::to_device(keys);
  thrust::device_vector<wide_value> d_values(values.begin(), values.end()), out(n);
  route_probe routed;
  spscan::inclusive_scan_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), out.begin(), thrust::equal_to<int>{}, add_wide{});
  EXPECT_EQ(routed.thrust_calls(), 1u);
  EXPECT_EQ(routed.kernel_calls(), 0u);
  std::vector<wide_value> got(n);
  thrust::copy(out.begin(), out.end(), got.begin());
  const auto expected = spscan_test::reference_inclusive_by_key<wide_value>(keys, values, thrust::equal_to<int>{}, add_wide{});
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    wrong += expected[i] == got[i] ? 0 : 1;
  }
  EXPECT_EQ(wrong, 0u);
}

// ---------------------------------------------------------------------------------------------
// On the CPU

TEST(ScanByKeyOnHost, HostPoliciesRunThrustAndMatchIt)
{
  const std::size_t n          = 5000;
  const std::vector<int> keys  = keys_with_aliases(spscan_test::random_segment_keys<int>(n, 6, 3), 3);
  const std::vector<int> values = spscan_test::random_values<int>(n, 4);
  for (int f = 0; f < form_count; ++f)
  {
    SCOPED_TRACE(form_names[f]);
    std::vector<int> with_policy(n, -1), without(n, -1), thrusts(n, -1);
    route_probe routed;
    auto end = run_form(spscan_calls{}, f, keys.begin(), keys.end(), values.begin(), with_policy.begin(), thrust::host);
    run_form(spscan_calls{}, f, keys.begin(), keys.end(), values.begin(), without.begin());
    run_form(thrust_calls{}, f, keys.begin(), keys.end(), values.begin(), thrusts.begin(), thrust::host);
    EXPECT_TRUE(end == with_policy.end());
    EXPECT_EQ(routed.kernel_calls(), 0u);
    EXPECT_EQ(routed.thrust_calls(), 2u);
    EXPECT_EQ(with_policy, expected_form(f, keys, values));
    EXPECT_EQ(without, thrusts);
    EXPECT_EQ(with_policy, thrusts);
  }
}

using spscan::detail::runs_on_kernel;
using spscan::detail::segment_carry;
// What travels through the look-back: the accumulator and a head flag, which the kernel holds for
// accumulators of up to 16 bytes plus the flag.
static_assert(runs_on_kernel<std::remove_cv_t<decltype(thrust::device)>, segment_carry<double>>);
static_assert(runs_on_kernel<std::remove_cv_t<decltype(thrust::device)>, segment_carry<spscan_test::matrix2>>);
static_assert(!runs_on_kernel<std::remove_cv_t<decltype(thrust::host)>, segment_carry<int>>);
// The head flag takes the value's padding and nothing more: a double's carry stays 16 bytes, and a
// byte-aligned value of 31 bytes keeps a 32-byte carry, which the kernel still serves.
struct bytes31
{
  unsigned char byte[31];
};
static_assert(sizeof(segment_carry<double>) == 16 && sizeof(segment_carry<int>) == 8);
static_assert(sizeof(segment_carry<bytes31>) == 32);
static_assert(runs_on_kernel<std::remove_cv_t<decltype(thrust::device)>, segment_carry<bytes31>>);
struct key32
{
  long long part[4];
};
static_assert(spscan::detail::kernel_holds_key<long long> && !spscan::detail::kernel_holds_key<key32>);

TEST(ScanByKeyOnHost, EmptyInputsReturnTheirResult)
{
  std::vector<int> none, out(1, -1);
  EXPECT_TRUE(spscan::inclusive_scan_by_key(thrust::host, none.begin(), none.end(), none.begin(), out.begin()) == out.begin());
  EXPECT_TRUE(spscan::exclusive_scan_by_key(none.begin(), none.end(), none.begin(), out.begin(), 3) == out.begin());
  EXPECT_EQ(out[0], -1);
}

} // namespace

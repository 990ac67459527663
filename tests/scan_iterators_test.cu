// spscan scans over Thrust's fancy iterators and over raw and device pointers.
//
// Every scan is checked element by element against a sequential CPU reference and against the same
// Thrust call, at a single-tile size and at multi-tile sizes (3 tiles + a partial one, and about a
// million elements), and each spscan call is checked to have run on spscan's kernel. The raw-pointer
// sweep moves input and output off 16-byte alignment one step at a time, so that full tiles take the
// vectorized path exactly when a pointer is aligned and the element-wise path otherwise, and checks
// that nothing outside the output range is written.
#include <spscan/scan.h>
#include <spscan/transform_scan.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

// A named namespace, not an anonymous one: spscan's kernels have hidden visibility, which needs
// template arguments (the functors below) with external linkage.
namespace spscan_iterators_test
{

using spscan_test::fresh_seed;
using spscan_test::route_probe;
using spscan_test::poison_byte;
using spscan_test::random_values;

using device_policy = std::decay_t<decltype(thrust::device)>;
using int_pair      = thrust::tuple<int, int>;

// ---------------------------------------------------------------------------------------------
// Operators: functor structs, callable on host (references, fallbacks) and device (kernels).

struct square_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return x * x + 1;
  }
};

struct twice_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return 2 * x + 1;
  }
};

struct product_of_pair
{
  __host__ __device__ int operator()(const int_pair& p) const
  {
    return thrust::get<0>(p) * thrust::get<1>(p);
  }
};

// Sum in the first component, maximum in the second: an associative op on a tuple accumulator.
struct sum_and_max
{
  __host__ __device__ int_pair operator()(const int_pair& a, const int_pair& b) const
  {
    const int a1 = thrust::get<1>(a);
    const int b1 = thrust::get<1>(b);
    return int_pair(thrust::get<0>(a) + thrust::get<0>(b), a1 > b1 ? a1 : b1);
  }
};

// ---------------------------------------------------------------------------------------------
// Helpers.

void check_cuda(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

template <class T>
auto printable(const T& value)
{
  if constexpr (std::is_integral_v<T> && sizeof(T) == 1)
  {
    return static_cast<int>(value); // not as a character
  }
  else
  {
    return value;
  }
}

// Compares every element; reports how many differ and the first one.
template <class T>
::testing::AssertionResult same_elements(const T* actual, const T* expected, std::size_t n)
{
  std::size_t mismatches = 0;
  std::size_t first      = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (!(actual[i] == expected[i]))
    {
      first = mismatches == 0 ? i : first;
      ++mismatches;
    }
  }
  if (mismatches == 0)
  {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << mismatches << " of " << n << " elements differ; first at " << first
                                       << ": got " << printable(actual[first]) << ", expected "
                                       << printable(expected[first]);
}

template <class T>
::testing::AssertionResult same_elements(const std::vector<T>& actual, const std::vector<T>& expected)
{
  if (actual.size() != expected.size())
  {
    return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs " << expected.size();
  }
  return same_elements(actual.data(), expected.data(), actual.size());
}

// Every byte of [values, values + n) still holds the poison.
template <class T>
::testing::AssertionResult still_poisoned(const T* values, std::size_t n)
{
  const auto* bytes = reinterpret_cast<const unsigned char*>(values);
  for (std::size_t i = 0; i < n * sizeof(T); ++i)
  {
    if (bytes[i] != poison_byte)
    {
      return ::testing::AssertionFailure() << "element " << i / sizeof(T) << " was written";
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
void poison(thrust::device_vector<T>& v)
{
  check_cuda(cudaMemset(thrust::raw_pointer_cast(v.data()), poison_byte, v.size() * sizeof(T)), "poisoning");
  check_cuda(cudaDeviceSynchronize(), "poisoning");
}

template <class T>
thrust::device_vector<T> poisoned(std::size_t n)
{
  thrust::device_vector<T> v(n);
  poison(v);
  return v;
}

template <class T>
std::vector<T> download(const thrust::device_vector<T>& v)
{
  std::vector<T> host(v.size());
  check_cuda(cudaMemcpy(host.data(), thrust::raw_pointer_cast(v.data()), v.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "download");
  return host;
}


// One tile, three full tiles and a partial one, and about a million elements; sizes above the
// environment's cap (sanitizer runs) are left out.
template <class InputValue, class Accum, class OutputValue>
std::vector<std::size_t> test_sizes()
{
  const std::size_t tile = spscan::detail::scan_tuning<InputValue, Accum, OutputValue>::tile_items;
  std::vector<std::size_t> sizes;
  for (std::size_t n : {std::size_t{1000}, 3 * tile + 17, std::size_t{1000003}})
  {
    if (n <= spscan_test::max_test_elements())
    {
      sizes.push_back(n);
    }
  }
  return sizes;
}

::testing::Message trace(std::uint64_t seed, std::size_t n)
{
  return ::testing::Message() << "seed " << seed << ", n " << n;
}

// Runs `spscan_call(out)` and `thrust_call(out)` into two poisoned vectors of n elements and
// checks: spscan ran on its kernel, both return out + n, spscan's result equals the reference
// and Thrust's result.
template <class T, class SpscanCall, class ThrustCall>
void expect_matches_reference_and_thrust(
  std::size_t n, const std::vector<T>& reference, SpscanCall spscan_call, ThrustCall thrust_call)
{
  auto out        = poisoned<T>(n);
  auto thrust_out = poisoned<T>(n);

  const route_probe probe;
  const auto end = spscan_call(out.begin());
  EXPECT_EQ(probe.kernel_calls(), 1u);
  EXPECT_EQ(probe.thrust_calls(), 0u);
  EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n));

  const auto thrust_end = thrust_call(thrust_out.begin());
  EXPECT_EQ(thrust_end - thrust_out.begin(), static_cast<std::ptrdiff_t>(n));

  const auto got = download(out);
  EXPECT_TRUE(same_elements(got, reference)) << "spscan vs CPU reference";
  EXPECT_TRUE(same_elements(got, download(thrust_out))) << "spscan vs Thrust";
}

// ---------------------------------------------------------------------------------------------
// Fancy input iterators.

TEST(ScanIterators, CountingIteratorInputInclusiveSumWrapsLikeThrust)
{
  SPSCAN_REQUIRE_GPU();
  using value = std::uint32_t; // unsigned: the sums of a million counts wrap, with defined results
  for (std::size_t n : test_sizes<value, value, value>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto start = static_cast<value>(std::mt19937_64(seed)());
    const thrust::counting_iterator<value> first(start);

    std::vector<value> host_in(n);
    std::iota(host_in.begin(), host_in.end(), start);
    const auto reference = spscan_test::reference_inclusive<value>(host_in, thrust::plus<>{});

    expect_matches_reference_and_thrust<value>(
      n,
      reference,
      [&](auto out) {
        return spscan::inclusive_scan(thrust::device, first, first + n, out);
      },
      [&](auto out) {
        return thrust::inclusive_scan(thrust::device, first, first + n, out);
      });
  }
}

TEST(ScanIterators, ConstantIteratorInputExclusiveSumWithInit)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto drawn = random_values<int>(2, seed);
    const int value  = drawn[0];
    const int init   = drawn[1];
    const thrust::constant_iterator<int> first(value);

    const std::vector<int> host_in(n, value);
    const auto reference = spscan_test::reference_exclusive(host_in, init, thrust::plus<>{});

    expect_matches_reference_and_thrust<int>(
      n,
      reference,
      [&](auto out) {
        return spscan::exclusive_scan(thrust::device, first, first + n, out, init);
      },
      [&](auto out) {
        return thrust::exclusive_scan(thrust::device, first, first + n, out, init);
      });
  }
}

TEST(ScanIterators, TransformIteratorOverDeviceVectorInclusiveSumWithInit)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in = random_values<int>(n, seed);
    const int init     = random_values<int>(1, seed + 1)[0];
    const thrust::device_vector<int> d_in(host_in.begin(), host_in.end());
    const auto first = thrust::make_transform_iterator(d_in.begin(), square_plus_one{});
    const auto last  = thrust::make_transform_iterator(d_in.end(), square_plus_one{});

    std::vector<int> transformed(n);
    std::transform(host_in.begin(), host_in.end(), transformed.begin(), square_plus_one{});
    const auto reference = spscan_test::reference_inclusive<int>(transformed, init, thrust::plus<>{});

    expect_matches_reference_and_thrust<int>(
      n,
      reference,
      [&](auto out) {
        return spscan::inclusive_scan(thrust::device, first, last, out, init, thrust::plus<>{});
      },
      [&](auto out) {
        return thrust::inclusive_scan(thrust::device, first, last, out, init, thrust::plus<>{});
      });
  }
}

TEST(ScanIterators, ZipIteratorInputTransformedToScalarSum)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_a = random_values<int>(n, seed);
    const auto host_b = random_values<int>(n, seed + 1);
    const thrust::device_vector<int> a(host_a.begin(), host_a.end());
    const thrust::device_vector<int> b(host_b.begin(), host_b.end());
    const auto first = thrust::make_zip_iterator(a.begin(), b.begin());
    const auto last  = thrust::make_zip_iterator(a.end(), b.end());

    std::vector<int> products(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      products[i] = host_a[i] * host_b[i];
    }
    const auto reference = spscan_test::reference_inclusive<int>(products, thrust::plus<>{});

    expect_matches_reference_and_thrust<int>(
      n,
      reference,
      [&](auto out) {
        return spscan::transform_inclusive_scan(thrust::device, first, last, out, product_of_pair{}, thrust::plus<>{});
      },
      [&](auto out) {
        return thrust::transform_inclusive_scan(thrust::device, first, last, out, product_of_pair{}, thrust::plus<>{});
      });
  }
}

// The zip's tuple is itself the accumulator, and the output is a zip of two vectors.
TEST(ScanIterators, ZipIteratorInputWithTupleAccumulatorIntoZipOutput)
{
  SPSCAN_REQUIRE_GPU();
  // A tuple of two ints is trivially copyable and 8 bytes: route.h's rules put it on the kernel.
  constexpr bool on_kernel = spscan::detail::runs_on_kernel<device_policy, int_pair>;
  EXPECT_TRUE(on_kernel) << "a thrust::tuple<int, int> accumulator is expected to run on spscan's kernel";

  for (std::size_t n : test_sizes<int_pair, int_pair, int_pair>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_a = random_values<int>(n, seed);
    const auto host_b = random_values<int>(n, seed + 1);
    const thrust::device_vector<int> a(host_a.begin(), host_a.end());
    const thrust::device_vector<int> b(host_b.begin(), host_b.end());
    const auto first = thrust::make_zip_iterator(a.begin(), b.begin());
    const auto last  = thrust::make_zip_iterator(a.end(), b.end());

    std::vector<int> sums(n);
    std::vector<int> maxima(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      sums[i]   = i == 0 ? host_a[0] : sums[i - 1] + host_a[i];
      maxima[i] = i == 0 ? host_b[0] : std::max(maxima[i - 1], host_b[i]);
    }

    auto out_sums          = poisoned<int>(n);
    auto out_maxima        = poisoned<int>(n);
    auto thrust_out_sums   = poisoned<int>(n);
    auto thrust_out_maxima = poisoned<int>(n);
    const auto out         = thrust::make_zip_iterator(out_sums.begin(), out_maxima.begin());
    const auto thrust_out  = thrust::make_zip_iterator(thrust_out_sums.begin(), thrust_out_maxima.begin());

    const route_probe probe;
    const auto end = spscan::inclusive_scan(thrust::device, first, last, out, sum_and_max{});
    EXPECT_EQ(probe.kernel_calls(), on_kernel ? 1u : 0u);
    EXPECT_EQ(probe.thrust_calls(), on_kernel ? 0u : 1u);
    EXPECT_EQ(end - out, static_cast<std::ptrdiff_t>(n));
    thrust::inclusive_scan(thrust::device, first, last, thrust_out, sum_and_max{});

    const auto got_sums   = download(out_sums);
    const auto got_maxima = download(out_maxima);
    EXPECT_TRUE(same_elements(got_sums, sums)) << "sums vs CPU reference";
    EXPECT_TRUE(same_elements(got_maxima, maxima)) << "maxima vs CPU reference";
    EXPECT_TRUE(same_elements(got_sums, download(thrust_out_sums))) << "sums vs Thrust";
    EXPECT_TRUE(same_elements(got_maxima, download(thrust_out_maxima))) << "maxima vs Thrust";
  }
}

TEST(ScanIterators, PermutationIteratorInputExclusiveSum)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_values = random_values<int>(n, seed);
    const int init         = random_values<int>(1, seed + 1)[0];
    std::vector<int> host_order(n);
    std::iota(host_order.begin(), host_order.end(), 0);
    std::shuffle(host_order.begin(), host_order.end(), std::mt19937_64(seed + 2));
    const thrust::device_vector<int> values(host_values.begin(), host_values.end());
    const thrust::device_vector<int> order(host_order.begin(), host_order.end());
    const auto first = thrust::make_permutation_iterator(values.begin(), order.begin());
    const auto last  = thrust::make_permutation_iterator(values.begin(), order.end());

    std::vector<int> gathered(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      gathered[i] = host_values[static_cast<std::size_t>(host_order[i])];
    }
    const auto reference = spscan_test::reference_exclusive(gathered, init, thrust::plus<>{});

    expect_matches_reference_and_thrust<int>(
      n,
      reference,
      [&](auto out) {
        return spscan::exclusive_scan(thrust::device, first, last, out, init, thrust::plus<>{});
      },
      [&](auto out) {
        return thrust::exclusive_scan(thrust::device, first, last, out, init, thrust::plus<>{});
      });
  }
}

TEST(ScanIterators, ReverseIteratorInputInclusiveSum)
{
  SPSCAN_REQUIRE_GPU();
  using value = std::int64_t;
  for (std::size_t n : test_sizes<value, value, value>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in = random_values<value>(n, seed);
    const thrust::device_vector<value> d_in(host_in.begin(), host_in.end());

    const std::vector<value> reversed(host_in.rbegin(), host_in.rend());
    const auto reference = spscan_test::reference_inclusive<value>(reversed, thrust::plus<>{});

    expect_matches_reference_and_thrust<value>(
      n,
      reference,
      [&](auto out) {
        return spscan::inclusive_scan(thrust::device, d_in.rbegin(), d_in.rend(), out);
      },
      [&](auto out) {
        return thrust::inclusive_scan(thrust::device, d_in.rbegin(), d_in.rend(), out);
      });
  }
}

// ---------------------------------------------------------------------------------------------
// Fancy output iterators.

TEST(ScanIterators, DiscardIteratorOutputReturnsEndAndLeavesInputIntact)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, thrust::discard_iterator<>::value_type>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in = random_values<int>(n, seed);
    const thrust::device_vector<int> d_in(host_in.begin(), host_in.end());
    const auto out = thrust::make_discard_iterator();

    const route_probe probe;
    const auto end = spscan::inclusive_scan(thrust::device, d_in.begin(), d_in.end(), out);
    EXPECT_EQ(probe.kernel_calls(), 1u);
    EXPECT_EQ(probe.thrust_calls(), 0u);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);

    const auto thrust_end = thrust::inclusive_scan(thrust::device, d_in.begin(), d_in.end(), out);
    EXPECT_EQ(end - out, static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(end - out, thrust_end - out);
    EXPECT_TRUE(same_elements(download(d_in), host_in)) << "input changed";
  }
}

TEST(ScanIterators, TransformOutputIteratorReceivesEveryPartialSum)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in = random_values<int>(n, seed);
    const thrust::device_vector<int> d_in(host_in.begin(), host_in.end());

    auto reference = spscan_test::reference_inclusive<int>(host_in, thrust::plus<>{});
    std::transform(reference.begin(), reference.end(), reference.begin(), twice_plus_one{});

    expect_matches_reference_and_thrust<int>(
      n,
      reference,
      [&](auto out) {
        const auto transformed = thrust::make_transform_output_iterator(out, twice_plus_one{});
        return out + (spscan::inclusive_scan(thrust::device, d_in.begin(), d_in.end(), transformed) - transformed);
      },
      [&](auto out) {
        const auto transformed = thrust::make_transform_output_iterator(out, twice_plus_one{});
        return out + (thrust::inclusive_scan(thrust::device, d_in.begin(), d_in.end(), transformed) - transformed);
      });
  }
}

// ---------------------------------------------------------------------------------------------
// Raw pointers at every alignment offset, and device_ptr.

// Element offsets swept: every byte offset of a 16-byte word for 1-byte types, 0..3 elements for
// 4- and 8-byte types (0, 4, 8, 12 bytes; 0, 8, 16, 24 bytes).
template <class T>
constexpr std::size_t offset_count = sizeof(T) == 1 ? 16 : 4;

// Input offsets k and output offsets m: at the small and the multi-tile size every k, each with
// m = 0, m = k and an m half a word away; at the large size aligned and misaligned pairs only.
template <class T>
std::vector<std::pair<std::size_t, std::size_t>> offset_pairs(bool full_sweep)
{
  constexpr std::size_t count = offset_count<T>;
  if (!full_sweep)
  {
    return {{0, 0}, {1, 1}, {0, 1}, {1, 0}};
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t k = 0; k < count; ++k)
  {
    for (std::size_t m : std::set<std::size_t>{0, k, (k + count / 2 + 1) % count})
    {
      pairs.emplace_back(k, m);
    }
  }
  return pairs;
}

enum class scan_form
{
  inclusive,
  exclusive_with_init,
};

// Scans [in, in + n) into out with thrust::device through spscan or Thrust.
template <class T>
T* spscan_pointer_scan(scan_form form, const T* in, std::size_t n, T* out, T init)
{
  return form == scan_form::inclusive ? spscan::inclusive_scan(thrust::device, in, in + n, out)
                                      : spscan::exclusive_scan(thrust::device, in, in + n, out, init);
}

template <class T>
T* thrust_pointer_scan(scan_form form, const T* in, std::size_t n, T* out, T init)
{
  return form == scan_form::inclusive ? thrust::inclusive_scan(thrust::device, in, in + n, out)
                                      : thrust::exclusive_scan(thrust::device, in, in + n, out, init);
}

// Buffers with room for every offset; cudaMalloc's alignment makes offset 0 16-byte aligned.
template <class T>
struct offset_buffers
{
  std::size_t n;
  thrust::device_vector<T> input;
  thrust::device_vector<T> output;
  thrust::device_vector<T> thrust_output;

  explicit offset_buffers(std::size_t n_)
      : n(n_)
      , input(n_ + offset_count<T>)
      , output(n_ + offset_count<T>)
      , thrust_output(n_ + offset_count<T>)
  {}

  static T* at(thrust::device_vector<T>& v, std::size_t offset)
  {
    return thrust::raw_pointer_cast(v.data()) + offset;
  }

  void upload(thrust::device_vector<T>& v, std::size_t offset, const std::vector<T>& values)
  {
    check_cuda(cudaMemcpy(at(v, offset), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
};

// Checks one output buffer: the reference at [offset, offset + n), the poison everywhere else.
template <class T>
void expect_only_range_written(const std::vector<T>& buffer, std::size_t offset, const std::vector<T>& expected)
{
  const std::size_t n = expected.size();
  EXPECT_TRUE(same_elements(buffer.data() + offset, expected.data(), n));
  EXPECT_TRUE(still_poisoned(buffer.data(), offset)) << "before the output range";
  EXPECT_TRUE(still_poisoned(buffer.data() + offset + n, buffer.size() - offset - n)) << "after the output range";
}

template <class T>
void expect_pointer_scans_correct_at_every_offset()
{
  for (std::size_t n : test_sizes<T, T, T>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in   = random_values<T>(n, seed);
    const T init         = random_values<T>(1, seed + 1)[0];
    const auto inclusive = spscan_test::reference_inclusive<T>(host_in, thrust::plus<>{});
    const auto exclusive = spscan_test::reference_exclusive(host_in, init, thrust::plus<>{});

    offset_buffers<T> buffers(n);
    ASSERT_TRUE(spscan::detail::allows_vector_access(offset_buffers<T>::at(buffers.input, 0)));
    ASSERT_TRUE(spscan::detail::allows_vector_access(offset_buffers<T>::at(buffers.output, 0)));

    const bool full_sweep = n < 1000000;
    for (scan_form form : {scan_form::inclusive, scan_form::exclusive_with_init})
    {
      const auto& reference = form == scan_form::inclusive ? inclusive : exclusive;
      SCOPED_TRACE(form == scan_form::inclusive ? "inclusive_scan" : "exclusive_scan with init");

      for (const auto& [k, m] : offset_pairs<T>(full_sweep))
      {
        SCOPED_TRACE(::testing::Message() << "input offset " << k << ", output offset " << m << " elements");
        poison(buffers.input);
        buffers.upload(buffers.input, k, host_in);
        poison(buffers.output);
        poison(buffers.thrust_output);
        const T* in = offset_buffers<T>::at(buffers.input, k);
        T* out      = offset_buffers<T>::at(buffers.output, m);

        const route_probe probe;
        EXPECT_EQ(spscan_pointer_scan(form, in, n, out, init), out + n);
        EXPECT_EQ(probe.kernel_calls(), 1u);
        thrust_pointer_scan(form, in, n, offset_buffers<T>::at(buffers.thrust_output, m), init);

        const auto got = download(buffers.output);
        expect_only_range_written(got, m, reference);
        EXPECT_TRUE(same_elements(got.data() + m, download(buffers.thrust_output).data() + m, n)) << "vs Thrust";
        const auto input_after = download(buffers.input);
        EXPECT_TRUE(same_elements(input_after.data() + k, host_in.data(), n)) << "input changed";
      }

      // In place, at every input offset of the sweep.
      for (std::size_t k = 0; k < (full_sweep ? offset_count<T> : 2); ++k)
      {
        SCOPED_TRACE(::testing::Message() << "in place at offset " << k << " elements");
        poison(buffers.output);
        buffers.upload(buffers.output, k, host_in);
        poison(buffers.thrust_output);
        buffers.upload(buffers.thrust_output, k, host_in);
        T* data = offset_buffers<T>::at(buffers.output, k);

        const route_probe probe;
        EXPECT_EQ(spscan_pointer_scan(form, data, n, data, init), data + n);
        EXPECT_EQ(probe.kernel_calls(), 1u);
        T* thrust_data = offset_buffers<T>::at(buffers.thrust_output, k);
        thrust_pointer_scan(form, thrust_data, n, thrust_data, init);

        const auto got = download(buffers.output);
        expect_only_range_written(got, k, reference);
        EXPECT_TRUE(same_elements(got.data() + k, download(buffers.thrust_output).data() + k, n)) << "vs Thrust";
      }
    }
  }
}

TEST(ScanIterators, RawInt8PointersAtEveryByteOffsetIncludingInPlace)
{
  SPSCAN_REQUIRE_GPU();
  expect_pointer_scans_correct_at_every_offset<std::int8_t>();
}

TEST(ScanIterators, RawInt32PointersAtEveryElementOffsetIncludingInPlace)
{
  SPSCAN_REQUIRE_GPU();
  expect_pointer_scans_correct_at_every_offset<std::int32_t>();
}

TEST(ScanIterators, RawInt64PointersAtEveryElementOffsetIncludingInPlace)
{
  SPSCAN_REQUIRE_GPU();
  expect_pointer_scans_correct_at_every_offset<std::int64_t>();
}

// device_ptr with and without a policy: without one, the device_ptr's system picks the CUDA backend.
TEST(ScanIterators, DevicePtrInputAndOutputWithAndWithoutPolicy)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : test_sizes<int, int, int>())
  {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(trace(seed, n));
    const auto host_in = random_values<int>(n, seed);
    thrust::device_vector<int> d_in(host_in.begin(), host_in.end());
    const thrust::device_ptr<int> in = d_in.data();
    const auto reference             = spscan_test::reference_inclusive<int>(host_in, thrust::plus<>{});

    for (const bool with_policy : {true, false})
    {
      SCOPED_TRACE(with_policy ? "with thrust::device" : "without a policy");
      expect_matches_reference_and_thrust<int>(
        n,
        reference,
        [&](auto out_iterator) {
          const thrust::device_ptr<int> out = &*out_iterator;
          const thrust::device_ptr<int> end =
            with_policy ? spscan::inclusive_scan(thrust::device, in, in + n, out) : spscan::inclusive_scan(in, in + n, out);
          return out_iterator + (end - out);
        },
        [&](auto out_iterator) {
          const thrust::device_ptr<int> out = &*out_iterator;
          const thrust::device_ptr<int> end =
            with_policy ? thrust::inclusive_scan(thrust::device, in, in + n, out) : thrust::inclusive_scan(in, in + n, out);
          return out_iterator + (end - out);
        });
    }
  }
}

} // namespace spscan_iterators_test

// Scans of more than 2^31 elements: element counts, offsets and tile ids past the 32-bit signed
// range. int8 data keeps the buffers at about 2.15 GB each; plus wraps at 8 bits (the accumulator
// is the input's value type), and every element is checked against a host reference.
#include <spscan/spscan.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/tabulate.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>

namespace
{

// Random int8 values in [-8, 7] without zeros, derived from (seed, index) so that the device can
// fill 2^31 elements in place. The host reference reads the input back rather than recomputing it.
struct hashed_int8
{
  std::uint64_t seed;

  __host__ __device__ std::int8_t operator()(std::size_t i) const
  {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const int v = static_cast<int>(z & 15u) - 8;
    return static_cast<std::int8_t>(v == 0 ? 1 : v);
  }
};

constexpr std::size_t large_count = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 7;
constexpr std::size_t chunk       = std::size_t{1} << 27; // host-side verification window

// Device memory the test needs: input and output, the look-back's tile states, and headroom.
constexpr std::size_t required_free_bytes = std::size_t{8} << 30;

class LargeScan : public ::testing::Test
{
protected:
  void SetUp() override
  {
    SPSCAN_REQUIRE_GPU();
    if (large_count > spscan_test::max_test_elements())
    {
      GTEST_SKIP() << large_count << " elements exceed SPSCAN_TEST_MAX_ELEMENTS";
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < required_free_bytes)
    {
      GTEST_SKIP() << "needs 8 GiB of free device memory; " << (free_bytes >> 20) << " MiB are free";
    }
  }
};

// Walks input and output together, chunk by chunk, computing the sequential int8 scan as it
// goes; reports the first wrong element and the number of wrong elements.
void expect_matches_int8_reference(
  const thrust::device_vector<std::int8_t>& input, const thrust::device_vector<std::int8_t>& output, bool exclusive)
{
  ASSERT_EQ(input.size(), output.size());
  std::vector<std::int8_t> in(chunk), out(chunk), expected(chunk);
  std::int8_t running    = 0; // exclusive_scan's default init: value_type{}
  std::size_t mismatches = 0, first_mismatch = 0;
  for (std::size_t begin = 0; begin < input.size(); begin += chunk)
  {
    const std::size_t count = std::min(chunk, input.size() - begin);
    ASSERT_EQ(cudaSuccess, cudaMemcpy(in.data(), thrust::raw_pointer_cast(input.data()) + begin, count, cudaMemcpyDeviceToHost));
    ASSERT_EQ(cudaSuccess, cudaMemcpy(out.data(), thrust::raw_pointer_cast(output.data()) + begin, count, cudaMemcpyDeviceToHost));
    const std::int8_t* const x = in.data();
    std::int8_t* const e       = expected.data();
    for (std::size_t i = 0; i < count; ++i)
    {
      const std::int8_t next = static_cast<std::int8_t>(running + x[i]);
      e[i]                   = exclusive ? running : next;
      running                = next;
    }
    if (std::memcmp(e, out.data(), count) != 0)
    {
      for (std::size_t i = 0; i < count; ++i)
      {
        if (e[i] != out[i])
        {
          first_mismatch = mismatches == 0 ? begin + i : first_mismatch;
          ++mismatches;
        }
      }
    }
  }
  EXPECT_EQ(0u, mismatches) << "elements differ from the sequential reference; first at index " << first_mismatch;
}

template <class Scan>
void expect_large_scan_matches_reference(bool exclusive, Scan scan)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, large_count));
  thrust::device_vector<std::int8_t> input(large_count);
  thrust::tabulate(thrust::device, input.begin(), input.end(), hashed_int8{seed});
  thrust::device_vector<std::int8_t> output(large_count);
  spscan_test::poison(output);

  std::int8_t* const first  = thrust::raw_pointer_cast(input.data());
  std::int8_t* const result = thrust::raw_pointer_cast(output.data());
  const auto before         = spscan_test::route_counts::now();
  std::int8_t* const end    = scan(first, first + large_count, result);
  spscan_test::expect_one_call_on(spscan_test::route::kernel, before);
  EXPECT_EQ(static_cast<std::ptrdiff_t>(large_count), end - result) << "return value";
  expect_matches_int8_reference(input, output, exclusive);
}

TEST_F(LargeScan, Int8InclusiveScanPast2To31ElementsMatchesReference)
{
  expect_large_scan_matches_reference(false, [](auto first, auto last, auto result) {
    return spscan::inclusive_scan(thrust::device, first, last, result);
  });
}

TEST_F(LargeScan, Int8ExclusiveScanPast2To31ElementsMatchesReference)
{
  expect_large_scan_matches_reference(true, [](auto first, auto last, auto result) {
    return spscan::exclusive_scan(thrust::device, first, last, result);
  });
}

} // namespace

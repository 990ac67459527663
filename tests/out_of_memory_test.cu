// A device out of memory: with the device's memory taken, a call that needs new temporary
// storage throws std::bad_alloc (as Thrust's does), leaves no CUDA error behind, and the next
// call, with memory back, succeeds.
//
// It takes all of the device's memory for a moment, so CTest runs it alone (RUN_SERIAL,
// tests/CMakeLists.txt), and it does not run under a sanitizer, which allocates as it runs.
#include <spscan/scan.h>
#include <spscan/temporary_storage.h>

#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>

#include <support/data.h>
#include <support/gpu.h>
#include <support/kept_storage.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include <gtest/gtest.h>

namespace
{

TEST(OutOfMemory, AnExhaustedDeviceThrowsBadAllocAndTheNextCallSucceeds)
{
  SPSCAN_REQUIRE_GPU();
  if (spscan_test::max_test_elements() != ~std::size_t{0})
  {
    GTEST_SKIP() << "filling the device's memory is not run under a sanitizer, which keeps its own";
  }
  const std::size_t n = std::size_t{1} << 20;
  const auto values   = spscan_test::random_values<std::int64_t>(n, spscan_test::fresh_seed());
  thrust::device_vector<std::int64_t> in(values.begin(), values.end()), out(n);
  spscan_test::empty_the_pool(); // what spscan keeps would serve the call

  // Take the device's memory, largest blocks first, down to 1 MiB blocks.
  std::vector<void*> taken;
  for (std::size_t block = std::size_t{1} << 34; block >= (std::size_t{1} << 20); block /= 2)
  {
    void* p = nullptr;
    while (cudaMalloc(&p, block) == cudaSuccess)
    {
      taken.push_back(p);
    }
    cudaGetLastError();
  }
  bool threw_bad_alloc = false;
  try
  {
    spscan::inclusive_scan(thrust::device, in.begin(), in.end(), out.begin());
  }
  catch (const std::bad_alloc&)
  {
    threw_bad_alloc = true;
  }
  const cudaError_t left_behind = cudaGetLastError();
  for (void* p : taken)
  {
    cudaFree(p);
  }
  EXPECT_TRUE(threw_bad_alloc) << "with no memory left for tile states the call throws std::bad_alloc";
  EXPECT_EQ(left_behind, cudaSuccess) << "and leaves no CUDA error for the next call";

  thrust::fill(out.begin(), out.end(), std::int64_t{-7});
  spscan::inclusive_scan(thrust::device, in.begin(), in.end(), out.begin());
  const thrust::host_vector<std::int64_t> got = out;
  const auto expected = spscan_test::reference_inclusive<std::int64_t>(values, thrust::plus<>{});
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin())) << "the next call is exact";
}

} // namespace

// transform_iterator: where does each variable-length record go in a packed buffer?
//
// 10 M records of 1..1000 bytes are packed into one buffer, each starting at a 16-byte aligned
// offset. The offset of record i is the sum of the padded sizes of records 0..i-1: an exclusive
// scan of round_up(size, 16). spscan does it in one pass without materializing the padded sizes,
// either with transform_exclusive_scan or by scanning a transform_iterator:
//
//   spscan::transform_exclusive_scan(thrust::device, sizes.begin(), sizes.end(), offsets.begin(),
//                                    padded_size{}, std::uint64_t{0}, thrust::plus<std::uint64_t>{});
//   spscan::exclusive_scan(thrust::device, thrust::make_transform_iterator(sizes.begin(), padded_size{}),
//                          ..., offsets.begin(), std::uint64_t{0});
//
// The type of the initial value is the type the sums are computed in (Thrust's rule), so it is a
// 64-bit zero: the buffer is larger than 4 GiB and 32-bit offsets would wrap.
// Both results are checked against a CPU computation. Exit status 0 when they match, 1 otherwise.

#include <spscan/scan.h>
#include <spscan/transform_scan.h>

#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>

// Bytes a record occupies in the buffer: its size rounded up to the 16-byte alignment.
struct padded_size
{
  static constexpr std::uint64_t alignment = 16;

  __host__ __device__ std::uint64_t operator()(std::uint32_t size) const
  {
    return (std::uint64_t{size} + alignment - 1) / alignment * alignment;
  }
};

namespace
{

bool gpu_available()
{
  int count                = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
  {
    std::fprintf(stderr, "transform_iterator: this example needs a CUDA GPU (%s)\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "no device found");
    return false;
  }
  return true;
}

// Index of the first offset that differs from the CPU's, or offsets.size() when all agree.
std::size_t first_difference(const thrust::host_vector<std::uint64_t>& offsets,
                             const thrust::host_vector<std::uint64_t>& expected)
{
  for (std::size_t i = 0; i < expected.size(); ++i)
  {
    if (offsets[i] != expected[i])
    {
      return i;
    }
  }
  return expected.size();
}

bool report(const char* how, const thrust::device_vector<std::uint64_t>& offsets,
            const thrust::host_vector<std::uint64_t>& expected)
{
  const thrust::host_vector<std::uint64_t> got = offsets;
  const std::size_t at                         = first_difference(got, expected);
  if (at != expected.size())
  {
    std::printf("FAILED (%s): offset of record %zu is %llu, the CPU says %llu\n", how, at,
                static_cast<unsigned long long>(got[at]), static_cast<unsigned long long>(expected[at]));
    return false;
  }
  std::printf("%-28s all %zu offsets match the CPU\n", how, expected.size());
  return true;
}

int run()
{
  const std::size_t records = 10'000'000;
  const std::uint32_t seed  = std::random_device{}();
  std::mt19937 engine(seed);
  std::uniform_int_distribution<std::uint32_t> record_size(1, 1000);
  thrust::host_vector<std::uint32_t> host_sizes(records);
  for (auto& size : host_sizes)
  {
    size = record_size(engine);
  }
  std::printf("%zu records of 1..1000 bytes, aligned to %llu bytes (seed %u)\n", records,
              static_cast<unsigned long long>(padded_size::alignment), seed);

  // The CPU's answer: a running sum of the padded sizes.
  thrust::host_vector<std::uint64_t> expected(records);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < records; ++i)
  {
    expected[i] = running;
    running += padded_size{}(host_sizes[i]);
  }
  const std::uint64_t buffer_bytes = running;

  const thrust::device_vector<std::uint32_t> sizes = host_sizes;
  // Offsets start as a value no scan produces, so that no stale result can pass a check.
  const std::uint64_t poison = ~std::uint64_t{0};
  thrust::device_vector<std::uint64_t> offsets(records, poison);

  // 1. transform_exclusive_scan: the transform and the scan in one call.
  spscan::transform_exclusive_scan(
    thrust::device, sizes.begin(), sizes.end(), offsets.begin(), padded_size{}, std::uint64_t{0},
    thrust::plus<std::uint64_t>{});
  bool ok = report("transform_exclusive_scan:", offsets, expected);

  // 2. The same scan written as an exclusive_scan of a transform_iterator.
  thrust::fill(offsets.begin(), offsets.end(), poison);
  const auto padded_begin = thrust::make_transform_iterator(sizes.begin(), padded_size{});
  const auto padded_end   = thrust::make_transform_iterator(sizes.end(), padded_size{});
  spscan::exclusive_scan(thrust::device, padded_begin, padded_end, offsets.begin(), std::uint64_t{0});
  ok = report("exclusive_scan of iterator:", offsets, expected) && ok;

  const thrust::host_vector<std::uint64_t> first_offsets(offsets.begin(), offsets.begin() + 6);
  std::printf("\n%8s %6s %8s %12s\n", "record", "size", "padded", "offset");
  for (std::size_t i = 0; i < first_offsets.size(); ++i)
  {
    std::printf("%8zu %6u %8llu %12llu\n", i, static_cast<unsigned>(host_sizes[i]),
                static_cast<unsigned long long>(padded_size{}(host_sizes[i])),
                static_cast<unsigned long long>(first_offsets[i]));
  }
  const std::uint64_t last_offset = offsets.back();
  std::printf("%8zu %6u %8llu %12llu\n", records - 1, static_cast<unsigned>(host_sizes[records - 1]),
              static_cast<unsigned long long>(padded_size{}(host_sizes[records - 1])),
              static_cast<unsigned long long>(last_offset));
  std::printf("\nbuffer size: %llu bytes (%.2f GiB%s)\n", static_cast<unsigned long long>(buffer_bytes),
              static_cast<double>(buffer_bytes) / (1ull << 30),
              buffer_bytes > 0xffffffffull ? ", beyond 32-bit offsets" : "");

  return ok ? 0 : 1;
}

} // namespace

int main()
{
  if (!gpu_available())
  {
    return 1;
  }
  try
  {
    return run();
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "transform_iterator: %s\n", e.what());
    return 1;
  }
}

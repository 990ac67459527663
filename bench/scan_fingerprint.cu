// Prints a fingerprint (FNV-1a of the output bits) of spscan's float and double inclusive sums of
// fixed pseudo-random inputs, at sizes from one tile to 2^28 elements, and whether a second run
// gave the same bits. Run it on two GPUs (models, drivers, loads) with the same build: equal
// fingerprints mean bitwise-equal results. The inputs are multiples of 1/1024 up to ~1000 in
// magnitude, so long float sums round at almost every step.
#include <spscan/spscan.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace
{

template <class T>
std::uint64_t fnv1a(const std::vector<T>& values)
{
  std::uint64_t hash = 1469598103934665603ull;
  const auto* bytes  = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(T); ++i)
  {
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  }
  return hash;
}

template <class T>
void fingerprint(const char* type, std::size_t n)
{
  std::vector<T> input(n);
  std::uint64_t state = 0x243f6a8885a308d3ull ^ n;
  for (auto& x : input)
  {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x     = static_cast<T>(static_cast<double>(static_cast<std::int64_t>(state >> 11) % 2000001 - 1000000) / 1024.0);
  }
  thrust::device_vector<T> in(input.begin(), input.end());
  thrust::device_vector<T> out(n);
  std::vector<T> result(n);

  std::uint64_t runs[2];
  for (auto& run : runs)
  {
    spscan::inclusive_scan(thrust::device, in.begin(), in.end(), out.begin());
    thrust::copy(out.begin(), out.end(), result.begin());
    run = fnv1a(result);
  }
  std::printf("%-6s n=%-10zu fingerprint %016llx  second run: %s\n", type, n, static_cast<unsigned long long>(runs[0]),
              runs[1] == runs[0] ? "same bits" : "DIFFERENT BITS");
}

} // namespace

int main()
{
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
  {
    std::fprintf(stderr, "scan_fingerprint: no CUDA device\n");
    return 1;
  }
  std::printf("%s, %d SMs; spscan %d.%d.%d\n", properties.name, properties.multiProcessorCount, SPSCAN_VERSION_MAJOR,
              SPSCAN_VERSION_MINOR, SPSCAN_VERSION_PATCH);
  for (const std::size_t n : {std::size_t{8192}, std::size_t{3 * 8192 + 77}, std::size_t{1} << 24, std::size_t{1} << 28})
  {
    fingerprint<float>("float", n);
    fingerprint<double>("double", n);
  }
}

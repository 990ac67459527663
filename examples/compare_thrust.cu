// compare_thrust: thrust::inclusive_scan against spscan::inclusive_scan, as users call them.
//
// For int32, float, int64 and int8 and sizes 2^10 .. 2^26 it times both calls with
// thrust::device (each call allocates its temporary storage and synchronizes, so a host clock
// measures what the caller waits for), prints the median of 15 calls and the speedup, and checks
// the results: integers bit for bit; floats, whose inputs are multiples of 1/256 so that sums are
// exact in practice, within a relative 1e-5 of the largest result.
// Exit status 0 when every check passes, 1 otherwise or on any CUDA error.

#include <spscan/scan.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/tabulate.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <type_traits>
#include <vector>

// Pseudo-random values from the element index: small integers 1..7 (never zero) or floats
// k/256 in [-0.5, 0.5) with mean zero.
template <class T>
struct random_value
{
  std::uint64_t seed;

  __host__ __device__ T operator()(std::size_t i) const
  {
    std::uint64_t x = seed ^ (i * 0x9e3779b97f4a7c15ull);
    x               = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x               = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    if constexpr (std::is_floating_point_v<T>)
    {
      return static_cast<T>(static_cast<int>(x % 255) - 127) / static_cast<T>(256);
    }
    else
    {
      return static_cast<T>(1 + x % 7);
    }
  }
};

// |a - b| and |b| of one element pair, as doubles, for the float check.
struct abs_difference
{
  template <class Pair>
  __host__ __device__ double operator()(const Pair& p) const
  {
    return fabs(double(thrust::get<0>(p)) - double(thrust::get<1>(p)));
  }
};

struct abs_value
{
  template <class T>
  __host__ __device__ double operator()(T x) const
  {
    return fabs(double(x));
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
    std::fprintf(stderr, "compare_thrust: this example needs a CUDA GPU (%s)\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "no device found");
    return false;
  }
  return true;
}

template <class Call>
double median_us(Call call, int runs)
{
  call(); // warm-up: first-call costs (module load, allocator) are not what is compared
  std::vector<double> times;
  for (int i = 0; i < runs; ++i)
  {
    const auto begin = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Integers: equal element for element. Floats: largest difference relative to the largest result.
template <class T>
bool results_agree(const thrust::device_vector<T>& got, const thrust::device_vector<T>& want, char* note, int note_size)
{
  if constexpr (std::is_floating_point_v<T>)
  {
    const auto pairs = thrust::make_zip_iterator(thrust::make_tuple(got.begin(), want.begin()));
    const double max_diff = thrust::transform_reduce(
      thrust::device, pairs, pairs + got.size(), abs_difference{}, 0.0, thrust::maximum<double>{});
    const double max_value =
      thrust::transform_reduce(thrust::device, want.begin(), want.end(), abs_value{}, 0.0, thrust::maximum<double>{});
    const double relative = max_diff / std::max(max_value, 1.0);
    std::snprintf(note, note_size, relative == 0 ? "exact" : "rel %.1e", relative);
    return relative <= 1e-5; // false for NaN
  }
  else
  {
    const bool equal = thrust::equal(thrust::device, got.begin(), got.end(), want.begin());
    std::snprintf(note, note_size, equal ? "equal" : "DIFFERENT");
    return equal;
  }
}

template <class T>
bool compare_type(const char* type_name, std::uint64_t seed)
{
  bool all_agree = true;
  for (int log2n = 10; log2n <= 26; log2n += 2)
  {
    const std::size_t n = std::size_t{1} << log2n;
    thrust::device_vector<T> input(n);
    thrust::tabulate(thrust::device, input.begin(), input.end(), random_value<T>{seed + log2n});
    thrust::device_vector<T> out_thrust(n), out_spscan(n);
    const T* in = thrust::raw_pointer_cast(input.data());
    T* to_thrust = thrust::raw_pointer_cast(out_thrust.data());
    T* to_spscan = thrust::raw_pointer_cast(out_spscan.data());

    const double thrust_us = median_us([&] { thrust::inclusive_scan(thrust::device, in, in + n, to_thrust); }, 15);
    const double spscan_us = median_us([&] { spscan::inclusive_scan(thrust::device, in, in + n, to_spscan); }, 15);

    char note[32];
    const bool agree = results_agree(out_spscan, out_thrust, note, sizeof(note));
    all_agree        = all_agree && agree;
    std::printf("%-6s 2^%-3d %11.1f %11.1f %8.2fx  %s\n", type_name, log2n, thrust_us, spscan_us,
                thrust_us / spscan_us, note);
  }
  return all_agree;
}

int run()
{
  const std::uint64_t seed = std::random_device{}();
  std::printf("inclusive_scan with thrust::device, median of 15 calls (seed %llu)\n",
              static_cast<unsigned long long>(seed));
  std::printf("%-6s %-5s %11s %11s %9s  %s\n", "type", "n", "thrust_us", "spscan_us", "speedup", "check");
  bool ok = compare_type<std::int32_t>("int32", seed);
  ok      = compare_type<float>("float", seed) && ok;
  ok      = compare_type<std::int64_t>("int64", seed) && ok;
  ok      = compare_type<std::int8_t>("int8", seed) && ok;
  std::printf(ok ? "OK: spscan's results agree with Thrust's everywhere\n"
                 : "FAILED: spscan's results differ from Thrust's (see the check column)\n");
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
    std::fprintf(stderr, "compare_thrust: %s\n", e.what());
    return 1;
  }
}

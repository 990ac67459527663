// run_length_encoding: run-length encoding as Thrust's example writes it, on spscan.
//
// The input is 16 M bytes of a scanline-like signal (runs of one value, 1 to 64 long). Thrust's
// example encodes it with reduce_by_key over a constant_iterator of ones (each run's value and its
// length); with spscan the call is the same:
//
//   spscan::reduce_by_key(signal.begin(), signal.end(), thrust::make_constant_iterator(1),
//                         run_values.begin(), run_lengths.begin());
//
// The program runs it beside Thrust's same call and CUB's DeviceRunLengthEncode::Encode (its count
// of runs read back, as the call's caller needs it), checks that the three agree run for run (and
// that decoding gives the input's length back), and prints the median time of each (host clock
// around the calls). Exit status 0 when they agree, 1 otherwise or on any CUDA error.

#include <spscan/reduce.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/reduce.h>

#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

bool gpu_available()
{
  int count                = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
  {
    std::fprintf(stderr, "run_length_encoding: this example needs a CUDA GPU (%s)\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "no device found");
    return false;
  }
  return true;
}

// Runs of 1 to 64 equal bytes; neighbouring runs differ.
thrust::host_vector<std::uint8_t> make_signal(std::size_t count, std::uint64_t seed)
{
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int> length(1, 64), level(0, 254);
  thrust::host_vector<std::uint8_t> signal(count);
  std::size_t i = 0;
  int previous  = -1;
  while (i < count)
  {
    int value = level(engine);
    value     = value == previous ? 255 : value;
    for (int k = length(engine); k > 0 && i < count; --k)
    {
      signal[i++] = static_cast<std::uint8_t>(value);
    }
    previous = value;
  }
  return signal;
}

template <class Call>
double median_ms(Call call, int runs)
{
  call();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i)
  {
    const auto begin = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void check(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

int run()
{
  const std::size_t n      = std::size_t{1} << 24;
  const std::uint64_t seed = std::random_device{}();
  const thrust::device_vector<std::uint8_t> signal = make_signal(n, seed);
  std::printf("signal: %zu bytes (seed %llu)\n", n, static_cast<unsigned long long>(seed));

  thrust::device_vector<std::uint8_t> thrust_values(n), spscan_values(n), cub_values(n);
  thrust::device_vector<std::int32_t> thrust_lengths(n), spscan_lengths(n), cub_lengths(n);
  thrust::device_vector<std::int64_t> cub_count(1);
  std::int64_t thrust_runs = 0, spscan_runs = 0, cub_runs = 0;
  const auto ones = thrust::make_constant_iterator(std::int32_t{1});

  // Each run's value and the sum of its ones: Thrust's, then spscan's, the same call.
  const double thrust_ms = median_ms(
    [&] {
      const auto ends =
        thrust::reduce_by_key(signal.begin(), signal.end(), ones, thrust_values.begin(), thrust_lengths.begin());
      thrust_runs = ends.first - thrust_values.begin();
    },
    11);
  const double spscan_ms = median_ms(
    [&] {
      const auto ends =
        spscan::reduce_by_key(signal.begin(), signal.end(), ones, spscan_values.begin(), spscan_lengths.begin());
      spscan_runs = ends.first - spscan_values.begin();
    },
    11);
  // CUB's encoder, its temporary storage allocated once, before timing.
  const auto* in = thrust::raw_pointer_cast(signal.data());
  std::size_t temp_bytes = 0;
  check(cub::DeviceRunLengthEncode::Encode(nullptr, temp_bytes, in, thrust::raw_pointer_cast(cub_values.data()),
                                           thrust::raw_pointer_cast(cub_lengths.data()),
                                           thrust::raw_pointer_cast(cub_count.data()), static_cast<std::int64_t>(n)),
        "sizing CUB's encoder");
  thrust::device_vector<unsigned char> temp(temp_bytes);
  const double cub_ms = median_ms(
    [&] {
      check(cub::DeviceRunLengthEncode::Encode(thrust::raw_pointer_cast(temp.data()), temp_bytes, in,
                                               thrust::raw_pointer_cast(cub_values.data()),
                                               thrust::raw_pointer_cast(cub_lengths.data()),
                                               thrust::raw_pointer_cast(cub_count.data()), static_cast<std::int64_t>(n)),
            "CUB's encoder");
      check(cudaMemcpy(&cub_runs, thrust::raw_pointer_cast(cub_count.data()), sizeof(cub_runs), cudaMemcpyDeviceToHost),
            "reading CUB's count");
    },
    11);

  const auto same_as_spscan = [&](std::int64_t runs, const auto& values, const auto& lengths) {
    return runs == spscan_runs && thrust::equal(values.begin(), values.begin() + runs, spscan_values.begin())
        && thrust::equal(lengths.begin(), lengths.begin() + runs, spscan_lengths.begin());
  };
  const bool same_runs = same_as_spscan(thrust_runs, thrust_values, thrust_lengths)
                      && same_as_spscan(cub_runs, cub_values, cub_lengths);
  // Decoding: the lengths' sum is the input's length.
  const std::int64_t decoded = thrust::reduce(spscan_lengths.begin(), spscan_lengths.begin() + spscan_runs, std::int64_t{0});

  std::printf("runs: %lld (Thrust: %lld, CUB: %lld), %.1f bytes a run; decoded length %lld of %zu\n",
              static_cast<long long>(spscan_runs), static_cast<long long>(thrust_runs), static_cast<long long>(cub_runs),
              static_cast<double>(n) / static_cast<double>(spscan_runs), static_cast<long long>(decoded), n);
  std::printf("encoding %zu bytes (host clock per encoding, median of 11):\n", n);
  std::printf("  thrust::reduce_by_key over ones                 %9.1f us\n", 1000 * thrust_ms);
  std::printf("  cub::DeviceRunLengthEncode::Encode + count read %9.1f us\n", 1000 * cub_ms);
  std::printf("  spscan::reduce_by_key over ones                 %9.1f us  (%.2fx Thrust, %.2fx CUB)\n", 1000 * spscan_ms,
              thrust_ms / spscan_ms, cub_ms / spscan_ms);
  const bool ok = same_runs && decoded == static_cast<std::int64_t>(n);
  std::printf("%s\n", ok ? "run_length_encoding: the encodings agree" : "run_length_encoding: MISMATCH");
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
    std::fprintf(stderr, "run_length_encoding: %s\n", e.what());
    return 1;
  }
}

// run_length_encoding: a run-length encoding on spscan's compactions, beside Thrust's own.
//
// The input is 16 M bytes of a scanline-like signal (runs of one value, 1 to 64 long). Thrust's
// example encodes it with reduce_by_key over a constant_iterator of ones (each run's value and its
// length). With spscan's calls the same encoding is a compaction and a subtraction (the compaction
// runs spscan's selection where run heads are its default route, detail/select.inl, and Thrust's
// unique_by_key_copy until then):
//
//   spscan::unique_by_key_copy(values, values + n, counting_iterator(0), run_values, run_starts);
//   run length k = run_starts[k + 1] - run_starts[k]   (the last: n - run_starts[last])
//
// The program runs both, checks that they agree run for run (and that decoding gives the input
// back), and prints the median time of each (host clock around the calls; each returns its count,
// so each waits for its result). Exit status 0 when they agree, 1 otherwise or on any CUDA error.

#include <spscan/reduce.h>
#include <spscan/unique.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
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

// Run k's length from the starts of runs k and k + 1 (the end of the input after the last).
struct run_length
{
  const std::int64_t* starts;
  std::int64_t runs;
  std::int64_t n;
  __host__ __device__ std::int32_t operator()(std::int64_t k) const
  {
    return static_cast<std::int32_t>((k + 1 < runs ? starts[k + 1] : n) - starts[k]);
  }
};

int run()
{
  const std::size_t n      = std::size_t{1} << 24;
  const std::uint64_t seed = std::random_device{}();
  const thrust::device_vector<std::uint8_t> signal = make_signal(n, seed);
  std::printf("signal: %zu bytes (seed %llu)\n", n, static_cast<unsigned long long>(seed));

  thrust::device_vector<std::uint8_t> thrust_values(n), spscan_values(n);
  thrust::device_vector<std::int32_t> thrust_lengths(n), spscan_lengths(n);
  thrust::device_vector<std::int64_t> starts(n);
  std::int64_t thrust_runs = 0, spscan_runs = 0;

  // Thrust's encoding: each run's value and the sum of its ones.
  const double thrust_ms = median_ms(
    [&] {
      const auto ends = thrust::reduce_by_key(signal.begin(), signal.end(), thrust::make_constant_iterator(std::int32_t{1}),
                                              thrust_values.begin(), thrust_lengths.begin());
      thrust_runs     = ends.first - thrust_values.begin();
    },
    11);
  // spscan's: the runs' first values and where they start, then the lengths from the starts.
  const double spscan_ms = median_ms(
    [&] {
      const auto ends = spscan::unique_by_key_copy(signal.begin(), signal.end(), thrust::make_counting_iterator(std::int64_t{0}),
                                                   spscan_values.begin(), starts.begin());
      spscan_runs     = ends.first - spscan_values.begin();
      thrust::transform(thrust::make_counting_iterator(std::int64_t{0}), thrust::make_counting_iterator(spscan_runs),
                        spscan_lengths.begin(),
                        run_length{thrust::raw_pointer_cast(starts.data()), spscan_runs, static_cast<std::int64_t>(n)});
    },
    11);

  const bool same_runs = thrust_runs == spscan_runs
                      && thrust::equal(thrust_values.begin(), thrust_values.begin() + spscan_runs, spscan_values.begin())
                      && thrust::equal(thrust_lengths.begin(), thrust_lengths.begin() + spscan_runs, spscan_lengths.begin());
  // Decoding: the lengths' sum is the input's length.
  const std::int64_t decoded = thrust::reduce(spscan_lengths.begin(), spscan_lengths.begin() + spscan_runs, std::int64_t{0});

  std::printf("runs: %lld (Thrust: %lld), %.1f bytes a run; decoded length %lld of %zu\n",
              static_cast<long long>(spscan_runs), static_cast<long long>(thrust_runs),
              static_cast<double>(n) / static_cast<double>(spscan_runs), static_cast<long long>(decoded), n);
  std::printf("encoding %zu bytes (host clock per encoding, median of 11):\n", n);
  std::printf("  thrust::reduce_by_key over ones              %9.1f us\n", 1000 * thrust_ms);
  std::printf("  spscan::unique_by_key_copy + run lengths     %9.1f us  (%.2fx)\n", 1000 * spscan_ms,
              thrust_ms / spscan_ms);
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

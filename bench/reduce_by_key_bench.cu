// reduce_by_key: spscan's program (called as the dispatch calls it, so that it runs whether or not
// it is the default route: detail/reduce_by_key.inl) against Thrust's and CUB's DeviceReduce::ReduceByKey
// (temporary storage allocated before timing), and run-length encoding as Thrust's example writes
// it (reduce_by_key over a constant_iterator of ones) against CUB's DeviceRunLengthEncode::Encode;
// int32 keys with int32 and float values, int64 keys with double values, 2^16 to 2^28 elements,
// runs of 1, 4, 32 and 1024 equal keys. CUB is timed as a caller of the Thrust call sees it (its
// count of runs read back to the host) and as its kernel alone. The roofline is the call's
// traffic: a read of keys and values and a write of a key and a sum a run, at the rate of a
// device-to-device copy of half those bytes. Keys, counts and integer sums are checked against
// Thrust's exactly; float sums within a relative 1e-5 (1e-12 double) of the largest, and spscan's
// the same bits in 10 calls, whose fingerprint (a hash of the sums' bits; the input is the same on
// every GPU) is printed to compare across GPUs. CUDA events, median of --reps after warm-up;
// spscan and Thrust through par_nosync with a caching allocator (no allocation timed).
static const char* bench_name = "reduce_by_key_bench";

#include "bench_support.h"

#include <spscan/reduce.h>

#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/reduce.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using namespace bench;

namespace
{

// Integers 0..7; floats in [0, 1) with every bit of their mantissa in use, so that sums round.
template <class V>
__global__ void fill_values(V* out, std::size_t n, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const std::uint64_t bits = hash_index(seed ^ (i * 0xd1b54a32d192ed03ull));
    if constexpr (std::is_floating_point_v<V>)
    {
      out[i] = static_cast<V>(static_cast<double>(bits >> 11) * 0x1.0p-53);
    }
    else
    {
      out[i] = static_cast<V>(bits % 8);
    }
  }
}

// A fingerprint of n values' bits: the sum modulo 2^64 of a hash of each value's bits and index,
// on the device (any changed bit changes it, whatever order the sums are added in).
template <class V>
__global__ void add_hashes(const V* values, std::size_t n, unsigned long long* sum)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  unsigned long long mine  = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    unsigned long long bits = 0;
    memcpy(&bits, values + i, sizeof(V));
    mine += hash_index(bits ^ (i * 0x9e3779b97f4a7c15ull));
  }
  atomicAdd(sum, mine);
}

template <class V>
unsigned long long fingerprint(const V* values, std::size_t n, int sm_count)
{
  device_array<unsigned long long> sum(1);
  CHECK_CUDA(cudaMemsetAsync(sum.get(), 0, sizeof(unsigned long long), bench_stream));
  add_hashes<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(values, n, sum.get());
  CHECK_CUDA(cudaGetLastError());
  unsigned long long result = 0;
  CHECK_CUDA(cudaMemcpyAsync(&result, sum.get(), sizeof(result), cudaMemcpyDeviceToHost, bench_stream));
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  return result;
}

struct row
{
  std::string types;
  const char* form;
  int log2n;
  int run;
  double spscan_ms, thrust_ms, cub_read_ms, cub_ms, roofline_ms;
  bool exact;
  unsigned long long print; // the sums' fingerprint (floats), else 0
};

template <class K, class V>
void run_types(const char* types, int reps, int max_log2, std::vector<row>& rows, int sm_count)
{
  const std::size_t max_n = std::size_t{1} << max_log2;
  device_array<K> keys(max_n), our_keys(max_n), their_keys(max_n), cub_keys(max_n);
  device_array<V> values(max_n), our_sums(max_n), their_sums(max_n), cub_sums(max_n);
  device_array<int> our_lengths(max_n), their_lengths(max_n);
  device_array<std::int64_t> cub_count(1);
  const std::size_t roofline_max_bytes = max_n * (sizeof(K) + sizeof(V));
  device_array<unsigned char> copy_from(roofline_max_bytes), copy_to(roofline_max_bytes);
  fill_values<<<grid_for(max_n, sm_count), 256>>>(values.get(), max_n, 5);
  caching_allocator alloc;
  event_timer timer;
  const int warmups = 3;
  const auto policy = [&] { return thrust::cuda::par_nosync(alloc).on(bench_stream); };
  auto ours_policy  = policy(); // the kernel route takes the policy by reference
  for (int log2n = 16; log2n <= max_log2; log2n += 4)
  {
    const std::size_t n = std::size_t{1} << log2n;
    for (int run : {1, 4, 32, 1024})
    {
      fill_runs<<<grid_for(n, sm_count), 256>>>(keys.get(), n, static_cast<std::size_t>(run), 77);
      CHECK_CUDA(cudaDeviceSynchronize());
      const std::size_t runs = (n + static_cast<std::size_t>(run) - 1) / static_cast<std::size_t>(run);
      const auto roofline = [&](std::size_t bytes) {
        return timer.median_ms(
          [&] { CHECK_CUDA(cudaMemcpyAsync(copy_to.get(), copy_from.get(), bytes, cudaMemcpyDeviceToDevice, bench_stream)); },
          warmups, reps);
      };

      // reduce_by_key of the values.
      {
        std::size_t temp_bytes = 0;
        CHECK_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, keys.get(), cub_keys.get(), values.get(),
                                                  cub_sums.get(), cub_count.get(), ::cuda::std::plus<>{}, n, bench_stream));
        device_array<unsigned char> temp(temp_bytes);
        std::int64_t read_back = 0;
        const auto cub_call    = [&] {
          CHECK_CUDA(cub::DeviceReduce::ReduceByKey(temp.get(), temp_bytes, keys.get(), cub_keys.get(), values.get(),
                                                    cub_sums.get(), cub_count.get(), ::cuda::std::plus<>{}, n, bench_stream));
        };
        const auto cub_read_call = [&] {
          cub_call();
          CHECK_CUDA(cudaMemcpyAsync(&read_back, cub_count.get(), sizeof(read_back), cudaMemcpyDeviceToHost, bench_stream));
          CHECK_CUDA(cudaStreamSynchronize(bench_stream));
        };
        thrust::pair<K*, V*> got{}, want{};
        const auto mine = [&] {
          got = spscan::detail::reduce_by_key_on_kernel::launch(
            ours_policy, keys.get(), keys.get() + n, values.get(), our_keys.get(), our_sums.get());
        };
        const auto thrust_call = [&] {
          want = thrust::reduce_by_key(policy(), keys.get(), keys.get() + n, values.get(), their_keys.get(), their_sums.get());
        };
        mine();
        thrust_call();
        cub_read_call();
        const std::ptrdiff_t got_runs = got.first - our_keys.get();
        bool exact = got_runs == want.first - their_keys.get() && got.second - our_sums.get() == got_runs
                  && got_runs == static_cast<std::ptrdiff_t>(runs) && read_back == got_runs
                  && compare_on_device(our_keys.get(), their_keys.get(), runs, sm_count).passed
                  && compare_on_device(our_sums.get(), their_sums.get(), runs, sm_count).passed;
        unsigned long long print = 0;
        if constexpr (std::is_floating_point_v<V>)
        {
          print = fingerprint(our_sums.get(), runs, sm_count);
          for (int call = 0; call < 10; ++call)
          {
            CHECK_CUDA(cudaMemsetAsync(our_sums.get(), 0xff, runs * sizeof(V), bench_stream));
            mine();
            CHECK_CUDA(cudaStreamSynchronize(bench_stream));
            exact = exact && fingerprint(our_sums.get(), runs, sm_count) == print;
          }
        }
        row r{types, "reduce_by_key", log2n, run, 0, 0, 0, 0, 0, exact, print};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps);
        r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
        r.cub_read_ms = timer.median_ms(cub_read_call, warmups, reps);
        r.cub_ms      = timer.median_ms(cub_call, warmups, reps);
        r.roofline_ms = roofline((n + runs) * (sizeof(K) + sizeof(V)) / 2);
        rows.push_back(r);
      }
      // Run-length encoding (int keys only): reduce_by_key over ones, against
      // DeviceRunLengthEncode::Encode.
      if constexpr (std::is_same_v<V, int>)
      {
        const auto ones        = thrust::make_constant_iterator(1);
        std::size_t temp_bytes = 0;
        CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, temp_bytes, keys.get(), cub_keys.get(), cub_sums.get(),
                                                      cub_count.get(), n, bench_stream));
        device_array<unsigned char> temp(temp_bytes);
        std::int64_t read_back = 0;
        const auto cub_call    = [&] {
          CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(temp.get(), temp_bytes, keys.get(), cub_keys.get(), cub_sums.get(),
                                                        cub_count.get(), n, bench_stream));
        };
        const auto cub_read_call = [&] {
          cub_call();
          CHECK_CUDA(cudaMemcpyAsync(&read_back, cub_count.get(), sizeof(read_back), cudaMemcpyDeviceToHost, bench_stream));
          CHECK_CUDA(cudaStreamSynchronize(bench_stream));
        };
        thrust::pair<K*, int*> got{}, want{};
        const auto mine = [&] {
          got = spscan::detail::reduce_by_key_on_kernel::launch(
            ours_policy, keys.get(), keys.get() + n, ones, our_keys.get(), our_lengths.get());
        };
        const auto thrust_call = [&] {
          want = thrust::reduce_by_key(policy(), keys.get(), keys.get() + n, ones, their_keys.get(), their_lengths.get());
        };
        mine();
        thrust_call();
        cub_read_call();
        const std::ptrdiff_t got_runs = got.first - our_keys.get();
        const bool exact = got_runs == want.first - their_keys.get() && got_runs == static_cast<std::ptrdiff_t>(runs)
                        && read_back == got_runs && compare_on_device(our_keys.get(), their_keys.get(), runs, sm_count).passed
                        && compare_on_device(our_lengths.get(), their_lengths.get(), runs, sm_count).passed
                        && compare_on_device(our_lengths.get(), cub_sums.get(), runs, sm_count).passed;
        row r{types, "run-length encoding", log2n, run, 0, 0, 0, 0, 0, exact, 0};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps);
        r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
        r.cub_read_ms = timer.median_ms(cub_read_call, warmups, reps);
        r.cub_ms      = timer.median_ms(cub_call, warmups, reps);
        r.roofline_ms = roofline((n * sizeof(K) + runs * (sizeof(K) + sizeof(int))) / 2);
        rows.push_back(r);
      }
    }
  }
}

} // namespace

int main(int argc, char** argv)
{
  int reps     = 15;
  int max_log2 = 28; // --max-log2: the largest size, 16, 20, 24 or 28
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-log2")) max_log2 = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (max_log2 < 16 || max_log2 > 28 || max_log2 % 4 != 0)
  {
    fail("--max-log2 takes 16, 20, 24 or 28");
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("reduce_by_key_bench: %s, CUB %d, THRUST %d; ratio = roofline time / call time; median of %d\n", prop.name,
              CUB_VERSION, THRUST_VERSION, reps);
  std::vector<row> rows;
  run_types<std::int32_t, int>("int32 keys, int32 values", reps, max_log2, rows, prop.multiProcessorCount);
  run_types<std::int32_t, float>("int32 keys, float values", reps, max_log2, rows, prop.multiProcessorCount);
  run_types<std::int64_t, double>("int64 keys, double values", reps, max_log2, rows, prop.multiProcessorCount);

  std::printf("\n| types | form | n | run | spscan ms | thrust ms | cub + count read ms | cub ms | spscan ratio | vs thrust | "
              "vs cub + count read | vs cub | check | sums' fingerprint |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_exact = true;
  double slowest_vs_thrust = 1e9, slowest_vs_cub_read = 1e9, slowest_vs_cub = 1e9, lowest_ratio_large = 1e9;
  for (const row& r : rows)
  {
    all_exact &= r.exact;
    slowest_vs_thrust   = std::min(slowest_vs_thrust, r.thrust_ms / r.spscan_ms);
    slowest_vs_cub_read = std::min(slowest_vs_cub_read, r.cub_read_ms / r.spscan_ms);
    if (r.log2n >= 24)
    {
      slowest_vs_cub     = std::min(slowest_vs_cub, r.cub_ms / r.spscan_ms);
      lowest_ratio_large = std::min(lowest_ratio_large, r.roofline_ms / r.spscan_ms);
    }
    char print[24] = "-";
    if (r.print != 0)
    {
      std::snprintf(print, sizeof(print), "%016llx", r.print);
    }
    std::printf("| %s | %s | 2^%d | %d | %.4f | %.4f | %.4f | %.4f | %.3f | %.2fx | %.2fx | %.2fx | %s | %s |\n",
                r.types.c_str(), r.form, r.log2n, r.run, r.spscan_ms, r.thrust_ms, r.cub_read_ms, r.cub_ms,
                r.roofline_ms / r.spscan_ms, r.thrust_ms / r.spscan_ms, r.cub_read_ms / r.spscan_ms,
                r.cub_ms / r.spscan_ms, r.exact ? "exact" : "WRONG", print);
  }
  std::printf("summary: reduce_by_key checks %s; slowest spscan against Thrust: %.2fx, against CUB with its count read "
              "back: %.2fx, against CUB's kernel from 2^24: %.2fx; lowest roofline ratio from 2^24: %.3f\n",
              all_exact ? "all exact" : "FAILED", slowest_vs_thrust, slowest_vs_cub_read, slowest_vs_cub, lowest_ratio_large);
  return all_exact ? 0 : 1;
}

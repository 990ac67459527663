// scan_by_key_bench: spscan::inclusive_scan_by_key side by side with CUB's and Thrust's, and with a
// device-to-device copy of the same traffic, measured back to back in one process on the default
// stream.
//
// Cases: int32 keys with int32, float and double values; segments of random length, 8 and 4096 on
// average, and a single segment; 2^16 .. 2^28 elements (step 4x). Times with CUDA events, 3
// warm-ups, then the median of 100 reps (20 at 2^24 elements and above):
//   copy     cudaMemcpyAsync of n * (sizeof(key) + 2 sizeof(value)) / 2 bytes: it reads and writes
//            what the scan reads (keys and values) and writes (values), the roofline;
//   spscan   spscan::inclusive_scan_by_key(thrust::cuda::par_nosync(alloc), ...) with a caching
//            allocator: the kernel's own cost;
//   cub      cub::DeviceScan::InclusiveSumByKey with temporary storage allocated before timing;
//   thrust   thrust::inclusive_scan_by_key(thrust::device, ...) as users call it.
// Ratio = copy time / scan time (1.0 = copy speed). spscan's output is checked against CUB's
// once per case, bit for bit (values are multiples of 1/256 or small integers: every sum is exact).
//
// Options: --csv PATH  --min-log2 N  --max-log2 N  --quick (fewer reps)
// Exit status: 0 when every check passed, 1 on a mismatch or any CUDA error.
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cub/device/device_scan.cuh>

static const char* const bench_name = "scan_by_key_bench";
#include "bench_support.h"

#include <cstdio>
#include <string>
#include <vector>

namespace
{

using namespace bench;

// Segment heads with probability 1 / mean (element 0 always), from a hash of the index.
__global__ void fill_heads(int* heads, std::size_t n, double mean, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const auto threshold     = mean > 1 ? static_cast<std::uint64_t>(18446744073709551615.0 / mean) : ~0ull;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    heads[i] = i == 0 || (mean > 0 && hash_index(seed ^ (i * 0x9e3779b97f4a7c15ull)) < threshold) ? 1 : 0;
  }
}

struct options
{
  std::string csv;
  int min_log2 = 16;
  int max_log2 = 28;
  rep_plan reps{3, 100, 20};
};

struct result_row
{
  std::string value_type;
  std::string segments;
  int log2n;
  double copy_ms, spscan_ms, cub_ms, thrust_ms;
  bool exact;
};

template <class V>
result_row run_case(const char* value_name, const char* segment_name, double mean, int log2n, const options& opts, int sm_count)
{
  const std::size_t n = std::size_t{1} << log2n;
  device_array<int> keys(n);
  device_array<V> values(n);
  device_array<V> out(n);
  device_array<V> cub_out(n);
  // Keys: the running count of heads (every head starts a new key).
  fill_heads<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(keys.get(), n, mean, 17 + log2n);
  CHECK_CUDA(cudaGetLastError());
  thrust::inclusive_scan(thrust::cuda::par.on(bench_stream), keys.get(), keys.get() + n, keys.get());
  fill_random<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(values.get(), n, 1000 + log2n);
  CHECK_CUDA(cudaGetLastError());

  caching_allocator alloc;
  auto spscan_policy = thrust::cuda::par_nosync(alloc).on(bench_stream);
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, keys.get(), values.get(), cub_out.get(), n,
                                                ::cuda::std::equal_to<>{}, bench_stream));
  device_array<char> temp(temp_bytes);

  const std::size_t copy_bytes = by_key_copy_bytes<V>(n);
  device_array<char> copy_in(copy_bytes), copy_out(copy_bytes);

  event_timer timer;
  const int reps = opts.reps.reps_for(log2n);
  result_row r{value_name, segment_name, log2n, 0, 0, 0, 0, false};
  r.copy_ms = timer.median_ms([&] {
    CHECK_CUDA(cudaMemcpyAsync(copy_out.get(), copy_in.get(), copy_bytes, cudaMemcpyDeviceToDevice, bench_stream));
  }, opts.reps.warmups, reps);
  r.spscan_ms = timer.median_ms([&] {
    spscan::inclusive_scan_by_key(spscan_policy, keys.get(), keys.get() + n, values.get(), out.get());
  }, opts.reps.warmups, reps);
  r.cub_ms = timer.median_ms([&] {
    std::size_t bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceScan::InclusiveSumByKey(temp.get(), bytes, keys.get(), values.get(), cub_out.get(), n,
                                                  ::cuda::std::equal_to<>{}, bench_stream));
  }, opts.reps.warmups, reps);
  r.thrust_ms = timer.median_ms([&] {
    thrust::inclusive_scan_by_key(thrust::device, keys.get(), keys.get() + n, values.get(), out.get());
  }, opts.reps.warmups, reps);
  // The last call wrote `out` with Thrust's result: run spscan once more for the check.
  spscan::inclusive_scan_by_key(spscan_policy, keys.get(), keys.get() + n, values.get(), out.get());
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  r.exact = compare_on_device(out.get(), cub_out.get(), n, sm_count).differing == 0;
  return r;
}

options parse_options(int argc, char** argv)
{
  options opts;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    auto value            = [&]() -> std::string {
      if (i + 1 >= argc)
      {
        fail("option " + arg + " needs a value");
      }
      return argv[++i];
    };
    if (arg == "--csv")
    {
      opts.csv = value();
    }
    else if (arg == "--min-log2")
    {
      opts.min_log2 = std::stoi(value());
    }
    else if (arg == "--max-log2")
    {
      opts.max_log2 = std::stoi(value());
    }
    else if (arg == "--quick")
    {
      opts.reps = rep_plan{1, 10, 5};
    }
    else
    {
      fail("usage: scan_by_key_bench [--csv PATH] [--min-log2 N] [--max-log2 N] [--quick]");
    }
  }
  return opts;
}

} // namespace

int main(int argc, char** argv)
{
  const options opts = parse_options(argc, argv);
  int device = 0, sm_count = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("scan_by_key_bench on %s; ratio = copy time / scan time (copy of the same traffic)\n", prop.name);

  std::vector<result_row> rows;
  const struct
  {
    const char* name;
    double mean;
  } segments[] = {{"avg8", 8}, {"avg4096", 4096}, {"one", 0}};
  for (const auto& segment : segments)
  {
    for (int log2n = opts.min_log2; log2n <= opts.max_log2; log2n += 2)
    {
      rows.push_back(run_case<int>("int32", segment.name, segment.mean, log2n, opts, sm_count));
      rows.push_back(run_case<float>("float", segment.name, segment.mean, log2n, opts, sm_count));
      rows.push_back(run_case<double>("double", segment.name, segment.mean, log2n, opts, sm_count));
    }
  }

  std::FILE* csv = opts.csv.empty() ? nullptr : std::fopen(opts.csv.c_str(), "w");
  if (csv != nullptr)
  {
    std::fprintf(csv, "value,segments,log2n,copy_ms,spscan_ms,cub_ms,thrust_ms,spscan_ratio,cub_ratio,thrust_ratio,"
                      "spscan_vs_cub,spscan_vs_thrust,exact\n");
  }
  bool all_exact = true;
  double worst_vs_cub = 1e30;
  std::string worst_case;
  std::printf("\n%-7s %-8s %5s  %9s %9s %9s %9s  %6s %6s %6s  %7s %7s  %s\n", "value", "segments", "log2n", "copy_ms",
              "spscan_ms", "cub_ms", "thrust_ms", "spscan", "cub", "thrust", "vs_cub", "vs_thr", "check");
  for (const auto& r : rows)
  {
    const double vs_cub = r.cub_ms / r.spscan_ms;
    std::printf("%-7s %-8s %5d  %9.4f %9.4f %9.4f %9.4f  %6.3f %6.3f %6.3f  %6.2fx %6.2fx  %s\n", r.value_type.c_str(),
                r.segments.c_str(), r.log2n, r.copy_ms, r.spscan_ms, r.cub_ms, r.thrust_ms, r.copy_ms / r.spscan_ms,
                r.copy_ms / r.cub_ms, r.copy_ms / r.thrust_ms, vs_cub, r.thrust_ms / r.spscan_ms,
                r.exact ? "exact" : "MISMATCH");
    if (csv != nullptr)
    {
      std::fprintf(csv, "%s,%s,%d,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", r.value_type.c_str(),
                   r.segments.c_str(), r.log2n, r.copy_ms, r.spscan_ms, r.cub_ms, r.thrust_ms, r.copy_ms / r.spscan_ms,
                   r.copy_ms / r.cub_ms, r.copy_ms / r.thrust_ms, vs_cub, r.thrust_ms / r.spscan_ms,
                   r.exact ? "exact" : "mismatch");
    }
    all_exact = all_exact && r.exact;
    if (vs_cub < worst_vs_cub)
    {
      worst_vs_cub = vs_cub;
      worst_case   = r.value_type + " " + r.segments + " 2^" + std::to_string(r.log2n);
    }
  }
  if (csv != nullptr)
  {
    std::fclose(csv);
  }
  std::printf("\nsummary: by-key %s; slowest against CUB: %.2fx (%s)\n", all_exact ? "every check exact" : "MISMATCHES",
              worst_vs_cub, worst_case.c_str());
  return all_exact ? 0 : 1;
}

// scan_bench: spscan::inclusive_scan side by side with a device-to-device copy, CUB and Thrust,
// measured back to back in one process on the default stream.
//
// For each element type and size (2^10 .. 2^30, step 4x) it times with CUDA events, 3 warm-ups
// then the median of 200 reps (30 reps at 2^24 elements and above):
//   copy          cudaMemcpyAsync device to device of n * sizeof(T) bytes: the physical limit,
//                 since a scan reads n elements and writes n;
//   spscan_alloc  spscan::inclusive_scan(thrust::cuda::par_nosync(alloc), ...) with a caching
//                 allocator: the kernel's own cost, no allocation inside the timed call (the main
//                 spscan number);
//   spscan        spscan::inclusive_scan(thrust::cuda::par_nosync, ...): a scan of more than one
//                 tile takes its tile states through stream-ordered cudaMallocAsync/cudaFreeAsync;
//   cub           cub::DeviceScan::InclusiveSum with temporary storage allocated before timing;
//   thrust        thrust::inclusive_scan(thrust::device, ...) as users call it (default allocator,
//                 stream synchronized at the end).
// Each rep is timed on its own (event, call, event, wait), so small sizes show the cost of one
// call, launch included. Ratio = copy time / scan time (1.0 = copy speed).
//
// Outside the timed loops, spscan's output is checked against CUB's once per type and size:
// bit for bit for integers; for floats the largest difference relative to the largest result.
// The float inputs are multiples of 1/256, so sums in any order are exact in practice and even
// that check is tight.
//
// Extra measurements: call times at 2^16 int32 for the synchronizing and the nosync policies
// (host clock), and at 2^28 int32 scans of a counting_iterator (against cudaMemsetAsync of the
// output) and of a transform_iterator (against copy), and an exclusive scan of uint8 into int32
// (against a copy of 5/2 bytes an element).
//
// CSV (--csv): one row per type and size with type, log2n, n, bytes (= n * sizeof(T), one
// array), the five times in ms (spscan_ms = plain par_nosync, spscan_alloc_ms = caching
// allocator), the ratios, the speedups of spscan_alloc over CUB and Thrust, and the check.
//
// Options: --csv PATH  --types int8,int16,int32,float,int64,double  --min-log2 N  --max-log2 N
//          --quick (fewer reps, for smoke runs)  --no-extras
// Exit status: 0 when every check passed, 1 on a mismatch or any CUDA error.

#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/version.h>

#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>

#include <cuda/std/type_traits>

// The name error messages start with (bench_support.h).
static const char* const bench_name = "scan_bench";
#include "bench_support.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace
{

using namespace bench;

// An inclusive sum of 0, 1, 2, ...: out[i] = i (i + 1) / 2 in int32's wrap-around arithmetic.
__global__ void count_wrong_triangular(const int* got, std::size_t n, unsigned long long* wrong)
{
  unsigned long long mine   = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const auto expected = static_cast<std::uint32_t>(static_cast<unsigned long long>(i) * (i + 1) / 2);
    mine += static_cast<std::uint32_t>(got[i]) != expected;
  }
  if (mine != 0)
  {
    atomicAdd(wrong, mine);
  }
}

template <class T>
double element_as_double(const T* device_data, unsigned long long index)
{
  T value;
  CHECK_CUDA(cudaMemcpy(&value, device_data + index, sizeof(T), cudaMemcpyDeviceToHost));
  return static_cast<double>(value);
}

// ---------------------------------------------------------------------------------------------
// One row of the matrix

struct row
{
  std::string type;
  int log2n;
  std::size_t n;
  std::size_t bytes; // n * sizeof(T): one array; a scan or a copy moves twice this
  double copy_ms;
  double spscan_ms; // par_nosync, stream-ordered allocation inside the call
  double spscan_alloc_ms; // par_nosync(caching allocator): the main spscan number
  double cub_ms;
  double thrust_ms;
  check_outcome check;

  double spscan_ratio() const
  {
    return copy_ms / spscan_alloc_ms;
  }
  double spscan_nosync_ratio() const
  {
    return copy_ms / spscan_ms;
  }
  double cub_ratio() const
  {
    return copy_ms / cub_ms;
  }
  double thrust_ratio() const
  {
    return copy_ms / thrust_ms;
  }
  double speedup_vs_cub() const
  {
    return cub_ms / spscan_alloc_ms;
  }
  double speedup_vs_thrust() const
  {
    return thrust_ms / spscan_alloc_ms;
  }
};

struct bench_context
{
  int sm_count;
  rep_plan plan;
  event_timer timer;
  caching_allocator allocator;
};

// True when an input and an output of `bytes` each fit together in 40% of the free device memory
// (the reference output for the check comes on top of that).
bool fits_in_device(std::size_t bytes)
{
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return 2.0 * double(bytes) <= 0.4 * double(free_bytes);
}

template <class T>
std::size_t cub_temp_bytes(const T* in, T* out, int n)
{
  std::size_t bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, bench_stream));
  return bytes;
}

template <class T>
bool measure(bench_context& ctx, const char* type_name, int log2n, std::uint64_t seed, row& out_row)
{
  const std::size_t n     = std::size_t{1} << log2n;
  const std::size_t bytes = n * sizeof(T);
  if (!fits_in_device(bytes))
  {
    std::printf("%-6s 2^%-2d skipped: in + out (%.1f GB) exceed 40%% of free device memory\n",
                type_name, log2n, 2.0 * double(bytes) / 1e9);
    return false;
  }
  const int count = static_cast<int>(n); // n <= 2^30 fits CUB's 32-bit item count

  device_array<T> input(n), output(n), reference(n);
  T* in  = input.get();
  T* out = output.get();
  fill_random<<<grid_for(n, ctx.sm_count), 256, 0, bench_stream>>>(in, n, seed);
  CHECK_CUDA(cudaGetLastError());
  device_array<unsigned char> cub_temp(cub_temp_bytes<T>(in, reference.get(), count));
  std::size_t cub_bytes = cub_temp.bytes();

  auto policy       = thrust::cuda::par_nosync;
  auto alloc_policy = thrust::cuda::par_nosync(ctx.allocator);

  // Correctness, outside the timed loops: both outputs poisoned, then spscan against CUB.
  CHECK_CUDA(cudaMemsetAsync(out, 0xA5, bytes, bench_stream));
  CHECK_CUDA(cudaMemsetAsync(reference.get(), 0x5A, bytes, bench_stream));
  spscan::inclusive_scan(alloc_policy, in, in + n, out);
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp.get(), cub_bytes, in, reference.get(), count, bench_stream));
  const check_outcome check = compare_on_device(out, reference.get(), n, ctx.sm_count);
  if (!check.passed)
  {
    const auto at = check.first_differing == ~0ull ? 0ull : check.first_differing;
    std::printf("MISMATCH %s 2^%d (n=%zu): %llu elements differ, first at %llu: spscan %.17g, cub %.17g; "
                "max relative difference %.3g\n",
                type_name, log2n, n, check.differing, at, element_as_double(out, at),
                element_as_double(reference.get(), at), check.relative_diff);
  }

  const int reps = ctx.plan.reps_for(log2n);
  const int warm = ctx.plan.warmups;
  row r{type_name, log2n, n, bytes, 0, 0, 0, 0, 0, check};
  r.copy_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, bench_stream)); }, warm, reps);
  r.spscan_ms = ctx.timer.median_ms([&] { spscan::inclusive_scan(policy, in, in + n, out); }, warm, reps);
  r.spscan_alloc_ms = ctx.timer.median_ms([&] { spscan::inclusive_scan(alloc_policy, in, in + n, out); }, warm, reps);
  r.cub_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp.get(), cub_bytes, in, out, count, bench_stream)); },
    warm,
    reps);
  r.thrust_ms = ctx.timer.median_ms([&] { thrust::inclusive_scan(thrust::device, in, in + n, out); }, warm, reps);
  out_row = r;
  return true;
}

void print_table_header()
{
  std::printf("%-6s %-5s %10s %10s %10s %10s %10s | %7s %7s %7s %7s | %7s %7s  %s\n",
              "type", "n", "copy_ms", "spscan_ms", "nosync_ms", "cub_ms", "thrust_ms",
              "spscan", "nosync", "cub", "thrust", "vs_cub", "vs_thr", "check");
  std::printf("%-6s %-5s %10s %10s %10s %10s %10s | %7s %7s %7s %7s | %7s %7s\n",
              "", "", "", "(cached)", "(mallocA)", "", "", "/copy", "/copy", "/copy", "/copy", "x", "x");
}

void print_row(const row& r)
{
  char check_text[64];
  if (!r.check.passed)
  {
    std::snprintf(check_text, sizeof(check_text), "MISMATCH");
  }
  else if (r.check.differing == 0)
  {
    std::snprintf(check_text, sizeof(check_text), "exact");
  }
  else
  {
    std::snprintf(check_text, sizeof(check_text), "rel %.1e", r.check.relative_diff);
  }
  std::printf("%-6s 2^%-3d %10.4f %10.4f %10.4f %10.4f %10.4f | %7.3f %7.3f %7.3f %7.3f | %7.2f %7.2f  %s\n",
              r.type.c_str(), r.log2n, r.copy_ms, r.spscan_alloc_ms, r.spscan_ms, r.cub_ms, r.thrust_ms,
              r.spscan_ratio(), r.spscan_nosync_ratio(), r.cub_ratio(), r.thrust_ratio(), r.speedup_vs_cub(),
              r.speedup_vs_thrust(), check_text);
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// Extra measurements

struct call_time
{
  std::string what;
  double us;
};

// Call times at 2^16 int32: what one call costs a user with each policy.
std::vector<call_time> measure_call_times(bench_context& ctx)
{
  const int log2n         = 16;
  const std::size_t n     = std::size_t{1} << log2n;
  const int calls         = ctx.plan.reps_small * 10;
  device_array<int> input(n), output(n);
  int* in  = input.get();
  int* out = output.get();
  fill_random<<<grid_for(n, ctx.sm_count), 256, 0, bench_stream>>>(in, n, 16);
  CHECK_CUDA(cudaGetLastError());
  device_array<unsigned char> cub_temp(cub_temp_bytes<int>(in, out, int(n)));
  std::size_t cub_bytes = cub_temp.bytes();
  auto alloc_policy     = thrust::cuda::par_nosync(ctx.allocator);

  std::vector<call_time> times;
  times.push_back({"spscan  thrust::device", host_us_per_call([&] {
                     spscan::inclusive_scan(thrust::device, in, in + n, out);
                   }, calls)});
  times.push_back({"thrust  thrust::device", host_us_per_call([&] {
                     thrust::inclusive_scan(thrust::device, in, in + n, out);
                   }, calls)});
  times.push_back({"spscan  par_nosync", host_us_per_call([&] {
                     spscan::inclusive_scan(thrust::cuda::par_nosync, in, in + n, out);
                   }, calls)});
  times.push_back({"thrust  par_nosync", host_us_per_call([&] {
                     thrust::inclusive_scan(thrust::cuda::par_nosync, in, in + n, out);
                   }, calls)});
  times.push_back({"spscan  par_nosync(caching alloc)", host_us_per_call([&] {
                     spscan::inclusive_scan(alloc_policy, in, in + n, out);
                   }, calls)});
  times.push_back({"thrust  par_nosync(caching alloc)", host_us_per_call([&] {
                     thrust::inclusive_scan(alloc_policy, in, in + n, out);
                   }, calls)});
  times.push_back({"cub     InclusiveSum (temp preallocated)", host_us_per_call([&] {
                     CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp.get(), cub_bytes, in, out, int(n), bench_stream));
                   }, calls)});
  times.push_back({"copy    cudaMemcpyAsync", host_us_per_call([&] {
                     CHECK_CUDA(cudaMemcpyAsync(out, in, n * sizeof(int), cudaMemcpyDeviceToDevice, bench_stream));
                   }, calls)});
  return times;
}

// The transform of the transform_iterator measurement.
struct times_two_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return 2 * x + 1;
  }
};

struct iterator_result
{
  int log2n = 0;
  double counting_ms = 0, memset_ms = 0, cub_counting_ms = 0;
  double transform_ms = 0, copy_ms = 0, cub_transform_ms = 0;
  double flags_ms = 0, flags_copy_ms = 0, cub_flags_ms = 0;
  double wide_flags_ms = 0, wide_flags_copy_ms = 0, cub_wide_flags_ms = 0;
  bool counting_ok = false, transform_ok = false, flags_ok = false, wide_flags_ok = false;
};

// Scans of iterators that read nothing (counting) or compute on the fly (transform), and exclusive
// scans of byte flags into int32 and into int64 offsets (input narrower than the accumulator;
// roofline a copy of 5/2 and 9/2 bytes an element, the bytes each moves each way).
bool measure_iterator_inputs(bench_context& ctx, int max_log2, iterator_result& result)
{
  int log2n = std::min(28, max_log2);
  // Five int32 arrays' worth: the int32 input, output and reference, the int64 offsets and theirs.
  while (log2n > 10 && !fits_in_device((std::size_t{1} << log2n) * 7 * sizeof(int)))
  {
    log2n -= 2;
  }
  const std::size_t n   = std::size_t{1} << log2n;
  const std::size_t bytes = n * sizeof(int);
  const int count       = static_cast<int>(n);
  const int reps        = ctx.plan.reps_for(log2n);
  const int warm        = ctx.plan.warmups;
  result.log2n          = log2n;

  device_array<int> input(n), output(n), reference(n);
  int* in  = input.get();
  int* out = output.get();
  fill_random<<<grid_for(n, ctx.sm_count), 256, 0, bench_stream>>>(in, n, 28);
  CHECK_CUDA(cudaGetLastError());
  auto alloc_policy = thrust::cuda::par_nosync(ctx.allocator);

  const thrust::counting_iterator<int> counting(0);
  const auto transformed = thrust::make_transform_iterator(in, times_two_plus_one{});
  std::size_t counting_temp_bytes = 0, transform_temp_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, counting_temp_bytes, counting, out, count, bench_stream));
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, transform_temp_bytes, transformed, out, count, bench_stream));
  device_array<std::uint8_t> flag_input(n);
  const std::uint8_t* flags = flag_input.get();
  fill_random<<<grid_for(n, ctx.sm_count), 256, 0, bench_stream>>>(flag_input.get(), n, 29);
  CHECK_CUDA(cudaGetLastError());
  std::size_t flags_temp_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, flags_temp_bytes, flags, out, thrust::plus<int>{}, 0, count, bench_stream));
  device_array<std::int64_t> wide_output(n), wide_reference(n);
  std::int64_t* wide_out = wide_output.get();
  std::size_t wide_flags_temp_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::ExclusiveScan(
    nullptr, wide_flags_temp_bytes, flags, wide_out, thrust::plus<std::int64_t>{}, std::int64_t{0}, count, bench_stream));
  device_array<unsigned char> cub_temp(
    std::max({counting_temp_bytes, transform_temp_bytes, flags_temp_bytes, wide_flags_temp_bytes}));

  // Checks first: the counting scan against its closed form, the transform scan against CUB's.
  CHECK_CUDA(cudaMemsetAsync(out, 0xA5, bytes, bench_stream));
  spscan::inclusive_scan(alloc_policy, counting, counting + count, out);
  unsigned long long* wrong = nullptr;
  CHECK_CUDA(cudaMallocManaged(&wrong, sizeof(*wrong)));
  *wrong = 0;
  count_wrong_triangular<<<grid_for(n, ctx.sm_count), 256, 0, bench_stream>>>(out, n, wrong);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  result.counting_ok = *wrong == 0;
  if (!result.counting_ok)
  {
    std::printf("MISMATCH counting_iterator int32 2^%d: %llu elements differ from i(i+1)/2\n", log2n, *wrong);
  }
  CHECK_CUDA(cudaFree(wrong));

  CHECK_CUDA(cudaMemsetAsync(out, 0xA5, bytes, bench_stream));
  CHECK_CUDA(cudaMemsetAsync(reference.get(), 0x5A, bytes, bench_stream));
  spscan::inclusive_scan(alloc_policy, transformed, transformed + count, out);
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(
    cub_temp.get(), transform_temp_bytes, transformed, reference.get(), count, bench_stream));
  const check_outcome check = compare_on_device(out, reference.get(), n, ctx.sm_count);
  result.transform_ok       = check.passed;
  if (!check.passed)
  {
    std::printf("MISMATCH transform_iterator int32 2^%d: %llu elements differ from CUB, first at %llu\n",
                log2n, check.differing, check.first_differing);
  }

  CHECK_CUDA(cudaMemsetAsync(out, 0xA5, bytes, bench_stream));
  CHECK_CUDA(cudaMemsetAsync(reference.get(), 0x5A, bytes, bench_stream));
  spscan::exclusive_scan(alloc_policy, flags, flags + count, out, 0);
  CHECK_CUDA(cub::DeviceScan::ExclusiveScan(
    cub_temp.get(), flags_temp_bytes, flags, reference.get(), thrust::plus<int>{}, 0, count, bench_stream));
  const check_outcome flags_check = compare_on_device(out, reference.get(), n, ctx.sm_count);
  result.flags_ok                 = flags_check.passed;
  if (!flags_check.passed)
  {
    std::printf("MISMATCH uint8 into int32 2^%d: %llu elements differ from CUB, first at %llu\n",
                log2n, flags_check.differing, flags_check.first_differing);
  }

  CHECK_CUDA(cudaMemsetAsync(wide_out, 0xA5, n * sizeof(std::int64_t), bench_stream));
  CHECK_CUDA(cudaMemsetAsync(wide_reference.get(), 0x5A, n * sizeof(std::int64_t), bench_stream));
  spscan::exclusive_scan(alloc_policy, flags, flags + count, wide_out, std::int64_t{0});
  CHECK_CUDA(cub::DeviceScan::ExclusiveScan(cub_temp.get(), wide_flags_temp_bytes, flags, wide_reference.get(),
                                            thrust::plus<std::int64_t>{}, std::int64_t{0}, count, bench_stream));
  const check_outcome wide_check = compare_on_device(wide_out, wide_reference.get(), n, ctx.sm_count);
  result.wide_flags_ok           = wide_check.passed;
  if (!wide_check.passed)
  {
    std::printf("MISMATCH uint8 into int64 2^%d: %llu elements differ from CUB, first at %llu\n",
                log2n, wide_check.differing, wide_check.first_differing);
  }

  result.counting_ms = ctx.timer.median_ms(
    [&] { spscan::inclusive_scan(alloc_policy, counting, counting + count, out); }, warm, reps);
  result.memset_ms =
    ctx.timer.median_ms([&] { CHECK_CUDA(cudaMemsetAsync(out, 0x11, bytes, bench_stream)); }, warm, reps);
  result.cub_counting_ms = ctx.timer.median_ms(
    [&] {
      CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp.get(), counting_temp_bytes, counting, out, count, bench_stream));
    },
    warm,
    reps);
  result.transform_ms = ctx.timer.median_ms(
    [&] { spscan::inclusive_scan(alloc_policy, transformed, transformed + count, out); }, warm, reps);
  result.copy_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, bench_stream)); }, warm, reps);
  result.cub_transform_ms = ctx.timer.median_ms(
    [&] {
      CHECK_CUDA(
        cub::DeviceScan::InclusiveSum(cub_temp.get(), transform_temp_bytes, transformed, out, count, bench_stream));
    },
    warm,
    reps);
  result.flags_ms = ctx.timer.median_ms(
    [&] { spscan::exclusive_scan(alloc_policy, flags, flags + count, out, 0); }, warm, reps);
  result.flags_copy_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, n * 5 / 2, cudaMemcpyDeviceToDevice, bench_stream)); }, warm, reps);
  result.cub_flags_ms = ctx.timer.median_ms(
    [&] {
      CHECK_CUDA(cub::DeviceScan::ExclusiveScan(
        cub_temp.get(), flags_temp_bytes, flags, out, thrust::plus<int>{}, 0, count, bench_stream));
    },
    warm,
    reps);
  result.wide_flags_ms = ctx.timer.median_ms(
    [&] { spscan::exclusive_scan(alloc_policy, flags, flags + count, wide_out, std::int64_t{0}); }, warm, reps);
  result.wide_flags_copy_ms = ctx.timer.median_ms(
    [&] {
      CHECK_CUDA(cudaMemcpyAsync(wide_out, wide_reference.get(), n * 9 / 2, cudaMemcpyDeviceToDevice, bench_stream));
    },
    warm,
    reps);
  result.cub_wide_flags_ms = ctx.timer.median_ms(
    [&] {
      CHECK_CUDA(cub::DeviceScan::ExclusiveScan(cub_temp.get(), wide_flags_temp_bytes, flags, wide_out,
                                                thrust::plus<std::int64_t>{}, std::int64_t{0}, count, bench_stream));
    },
    warm,
    reps);
  return result.counting_ok && result.transform_ok && result.flags_ok && result.wide_flags_ok;
}

// ---------------------------------------------------------------------------------------------
// Command line and the type list

struct options
{
  std::string csv_path;
  std::vector<std::string> types{"int8", "int16", "int32", "float", "int64", "double"};
  int min_log2 = 10;
  int max_log2 = 30;
  bool quick   = false;
  bool extras  = true;
};

using measure_fn = bool (*)(bench_context&, const char*, int, std::uint64_t, row&);

const std::vector<std::pair<std::string, measure_fn>>& known_types()
{
  static const std::vector<std::pair<std::string, measure_fn>> types{
    {"int8", &measure<std::int8_t>},
    {"int16", &measure<std::int16_t>},
    {"int32", &measure<std::int32_t>},
    {"float", &measure<float>},
    {"int64", &measure<std::int64_t>},
    {"double", &measure<double>},
  };
  return types;
}

measure_fn find_type(const std::string& name)
{
  for (const auto& entry : known_types())
  {
    if (entry.first == name)
    {
      return entry.second;
    }
  }
  return nullptr;
}

[[noreturn]] void usage(const char* message)
{
  std::fprintf(stderr,
               "scan_bench: %s\n"
               "usage: scan_bench [--csv PATH] [--types int8,int16,int32,float,int64,double]\n"
               "                  [--min-log2 N] [--max-log2 N] [--quick] [--no-extras]\n",
               message);
  std::exit(2);
}

int parse_log2(const char* text)
{
  char* end        = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 30)
  {
    usage("--min-log2/--max-log2 take an integer in 0..30");
  }
  return static_cast<int>(value);
}

options parse_options(int argc, char** argv)
{
  options opts;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    auto value            = [&]() -> const char* {
      if (i + 1 >= argc)
      {
        usage((arg + " needs a value").c_str());
      }
      return argv[++i];
    };
    if (arg == "--csv")
    {
      opts.csv_path = value();
    }
    else if (arg == "--types")
    {
      opts.types.clear();
      std::string list = value();
      std::size_t begin = 0;
      while (begin <= list.size())
      {
        const std::size_t comma = std::min(list.find(',', begin), list.size());
        const std::string name  = list.substr(begin, comma - begin);
        if (!find_type(name))
        {
          usage(("unknown type '" + name + "'").c_str());
        }
        opts.types.push_back(name);
        begin = comma + 1;
      }
    }
    else if (arg == "--min-log2")
    {
      opts.min_log2 = parse_log2(value());
    }
    else if (arg == "--max-log2")
    {
      opts.max_log2 = parse_log2(value());
    }
    else if (arg == "--quick")
    {
      opts.quick = true;
    }
    else if (arg == "--no-extras")
    {
      opts.extras = false;
    }
    else if (arg == "--help" || arg == "-h")
    {
      usage("spscan against copy, CUB and Thrust");
    }
    else
    {
      usage(("unknown option '" + arg + "'").c_str());
    }
  }
  if (opts.min_log2 > opts.max_log2)
  {
    usage("--min-log2 is larger than --max-log2");
  }
  return opts;
}

void write_csv(const std::string& path, const std::vector<row>& rows)
{
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file)
  {
    fail("cannot open " + path + " for writing: " + std::strerror(errno));
  }
  std::fprintf(file,
               "type,log2n,n,bytes,copy_ms,spscan_ms,spscan_alloc_ms,cub_ms,thrust_ms,spscan_ratio,"
               "spscan_nosync_ratio,cub_ratio,thrust_ratio,speedup_vs_cub,speedup_vs_thrust,check,"
               "max_relative_diff\n");
  for (const row& r : rows)
  {
    std::fprintf(file, "%s,%d,%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%.3g\n",
                 r.type.c_str(), r.log2n, r.n, r.bytes, r.copy_ms, r.spscan_ms, r.spscan_alloc_ms, r.cub_ms,
                 r.thrust_ms, r.spscan_ratio(), r.spscan_nosync_ratio(), r.cub_ratio(), r.thrust_ratio(),
                 r.speedup_vs_cub(), r.speedup_vs_thrust(), r.check.passed ? "ok" : "MISMATCH",
                 r.check.relative_diff);
  }
  if (std::fclose(file) != 0)
  {
    fail("cannot finish writing " + path);
  }
}

void print_device(int& sm_count)
{
  int device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess || device_count == 0)
  {
    fail(std::string("scan_bench needs a CUDA GPU: ") +
         (status != cudaSuccess ? cudaGetErrorString(status) : "no device found"));
  }
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp props{};
  CHECK_CUDA(cudaGetDeviceProperties(&props, device));
  int l2_bytes = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  sm_count = props.multiProcessorCount;
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::printf("device: %s (sm_%d%d), %d SMs, L2 %.1f MB, memory %.1f GB (%.1f GB free)\n", props.name,
              props.major, props.minor, sm_count, l2_bytes / 1048576.0, total_bytes / 1e9, free_bytes / 1e9);
  std::printf("CCCL_VERSION %d, THRUST_VERSION %d, CUB_VERSION %d, spscan %d.%d.%d\n", CCCL_VERSION, THRUST_VERSION,
              CUB_VERSION, SPSCAN_VERSION_MAJOR, SPSCAN_VERSION_MINOR, SPSCAN_VERSION_PATCH);
}

// ---------------------------------------------------------------------------------------------
// Summary

const row* find_row(const std::vector<row>& rows, const std::string& type, int log2n)
{
  for (const row& r : rows)
  {
    if (r.type == type && r.log2n == log2n)
    {
      return &r;
    }
  }
  return nullptr;
}

void print_summary(const std::vector<row>& rows,
                   const std::vector<call_time>& call_times,
                   const iterator_result* iterators)
{
  std::printf("\n== summary ==\n");
  if (!rows.empty())
  {
    const auto slowest = std::min_element(rows.begin(), rows.end(), [](const row& a, const row& b) {
      return a.speedup_vs_cub() < b.speedup_vs_cub();
    });
    std::printf("minimum spscan-vs-cub speedup over the matrix: %.3fx (%s 2^%d)\n", slowest->speedup_vs_cub(),
                slowest->type.c_str(), slowest->log2n);
    const auto slowest_thrust = std::min_element(rows.begin(), rows.end(), [](const row& a, const row& b) {
      return a.speedup_vs_thrust() < b.speedup_vs_thrust();
    });
    std::printf("minimum spscan-vs-thrust speedup over the matrix: %.3fx (%s 2^%d)\n",
                slowest_thrust->speedup_vs_thrust(), slowest_thrust->type.c_str(), slowest_thrust->log2n);

    std::printf("\ntarget points (ratio = copy time / scan time; spscan = par_nosync with caching allocator):\n");
    std::printf("%-6s %-5s %8s %8s %8s %8s | %7s %7s\n", "type", "n", "spscan", "nosync", "cub", "thrust",
                "vs_cub", "vs_thr");
    struct target
    {
      const char* type;
      std::vector<int> sizes;
    };
    const std::vector<target> targets{
      {"int32", {16, 20, 24, 26, 28, 30}},
      {"float", {26, 28, 30}},
      {"int64", {26, 28, 30}},
      {"double", {26, 28, 30}},
      {"int8", {28, 30}},
      {"int16", {28, 30}},
    };
    for (const target& t : targets)
    {
      for (int log2n : t.sizes)
      {
        if (const row* r = find_row(rows, t.type, log2n))
        {
          std::printf("%-6s 2^%-3d %8.3f %8.3f %8.3f %8.3f | %6.2fx %6.2fx\n", r->type.c_str(), r->log2n,
                      r->spscan_ratio(), r->spscan_nosync_ratio(), r->cub_ratio(), r->thrust_ratio(),
                      r->speedup_vs_cub(), r->speedup_vs_thrust());
        }
      }
    }
  }
  if (!call_times.empty())
  {
    std::printf("\ncall time at 2^16 int32 (host clock: mean over back-to-back calls, then one stream sync):\n");
    for (const call_time& t : call_times)
    {
      std::printf("  %-42s %8.2f us\n", t.what.c_str(), t.us);
    }
  }
  if (iterators)
  {
    const iterator_result& it = *iterators;
    std::printf("\niterator inputs at 2^%d int32 (CUDA events, median):\n", it.log2n);
    std::printf("  spscan over counting_iterator   %8.4f ms   memset %8.4f ms   memset/spscan %.3f   "
                "(cub %8.4f ms, %.3f)  %s\n",
                it.counting_ms, it.memset_ms, it.memset_ms / it.counting_ms, it.cub_counting_ms,
                it.memset_ms / it.cub_counting_ms, it.counting_ok ? "exact" : "MISMATCH");
    std::printf("  spscan over transform_iterator  %8.4f ms   copy   %8.4f ms   copy/spscan   %.3f   "
                "(cub %8.4f ms, %.3f)  %s\n",
                it.transform_ms, it.copy_ms, it.copy_ms / it.transform_ms, it.cub_transform_ms,
                it.copy_ms / it.cub_transform_ms, it.transform_ok ? "exact" : "MISMATCH");
    std::printf("  spscan of uint8 into int32      %8.4f ms   copy   %8.4f ms   copy/spscan   %.3f   "
                "(cub %8.4f ms, %.3f)  %s   (exclusive, init 0; copy of 5/2 bytes an element)\n",
                it.flags_ms, it.flags_copy_ms, it.flags_copy_ms / it.flags_ms, it.cub_flags_ms,
                it.flags_copy_ms / it.cub_flags_ms, it.flags_ok ? "exact" : "MISMATCH");
    std::printf("  spscan of uint8 into int64      %8.4f ms   copy   %8.4f ms   copy/spscan   %.3f   "
                "(cub %8.4f ms, %.3f)  %s   (exclusive, init 0; copy of 9/2 bytes an element)\n",
                it.wide_flags_ms, it.wide_flags_copy_ms, it.wide_flags_copy_ms / it.wide_flags_ms, it.cub_wide_flags_ms,
                it.wide_flags_copy_ms / it.cub_wide_flags_ms, it.wide_flags_ok ? "exact" : "MISMATCH");
  }
}

int run(const options& opts)
{
  int sm_count = 0;
  print_device(sm_count);
  bench_context ctx{sm_count, opts.quick ? rep_plan{2, 20, 5} : rep_plan{3, 200, 30}, {}, {}};
  std::printf("method: default stream, CUDA events around each call, %d warm-ups, median of %d reps below 2^24 "
              "and %d at or above;\n        ratio = copy time / scan time; vs_cub, vs_thr = other's time / spscan "
              "time; spscan = par_nosync(caching allocator), nosync = par_nosync\n\n",
              ctx.plan.warmups, ctx.plan.reps_small, ctx.plan.reps_large);

  bool all_passed = true;
  std::vector<row> rows;
  print_table_header();
  for (std::size_t t = 0; t < opts.types.size(); ++t)
  {
    const measure_fn measure_type = find_type(opts.types[t]);
    for (int log2n = opts.min_log2; log2n <= opts.max_log2; log2n += 2)
    {
      row r;
      const std::uint64_t seed = (std::uint64_t{t + 1} << 32) | std::uint64_t(log2n);
      if (measure_type(ctx, opts.types[t].c_str(), log2n, seed, r))
      {
        print_row(r);
        all_passed = all_passed && r.check.passed;
        rows.push_back(r);
      }
    }
  }

  std::vector<call_time> call_times;
  iterator_result iterators;
  if (opts.extras)
  {
    call_times = measure_call_times(ctx);
    all_passed = measure_iterator_inputs(ctx, opts.max_log2, iterators) && all_passed;
  }
  print_summary(rows, call_times, opts.extras ? &iterators : nullptr);

  if (!opts.csv_path.empty())
  {
    write_csv(opts.csv_path, rows);
    std::printf("\nwrote %zu rows to %s\n", rows.size(), opts.csv_path.c_str());
  }
  if (!all_passed)
  {
    std::printf("\nFAILED: spscan's output differs from CUB's (MISMATCH lines above)\n");
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  const options opts = parse_options(argc, argv);
  try
  {
    return run(opts);
  }
  catch (const std::exception& e)
  {
    fail(std::string("exception: ") + e.what());
  }
}

// What each idea of the single-pass scan is worth: the classic scan algorithms side by side, each a
// complete device scan (inclusive sums) checked against spscan's result, timed against a
// device-to-device copy of the same bytes in the same run (ratio = copy time / scan time).
// bench/ABLATION.md reads the tables.
//  - block level, int32, inside one device scheme (three-kernel reduce-then-scan, so that no wait
//    between tiles hides the block scan's cost): Kogge-Stone, Brent-Kung, Blelloch with and
//    without padding, a warp-shuffle scan and CUB's BlockScan, each with 1, 4, 16 and 32
//    elements per thread (thread coarsening);
//  - device level, int8, int16, int32 and int64, all with spscan's tile program (the library's
//    tile shape for the type): every tile scanned alone (no carry: the most a single pass could
//    reach), three kernels reduce-then-scan, a chained scan (blockIdx order and dynamic tile ids),
//    decoupled look-back walked by one thread, by a warp reading 32 predecessors and one thread
//    adding them, by a warp adding them in a shuffle tree (ablation/device_schemes.h), spscan's
//    classic engine (a look-back warp beside the data warps), spscan as the library runs it (from
//    8 MiB on sm_90 the ring engine), and CUB's DeviceScan::InclusiveSum (temporary storage
//    allocated before timing).
// Usage: ablation_bench [--csv FILE] [--reps N] [--max-log2n K] [--only block|device]
static const char* bench_name = "ablation_bench";

#include "ablation/block_scan_program.h"
#include "ablation/csv.h"
#include "ablation/device_schemes.h"
#include "bench_support.h"

#include <spscan/detail/programs/scan_plan.h>
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cub/device/device_scan.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace bench;

namespace
{

// A variant: how it scans n elements of T from `in` into `out` with `scratch`.
template <class T>
struct variant
{
  const char* level; // "block" or "device"
  std::string name;
  std::function<void(const T*, T*, std::size_t, void*)> run;
  bool tiles_alone = false; // checked tile by tile (each tile's own scan), not as a scan
};

template <class T>
const char* type_name();
template <>
const char* type_name<std::int8_t>()
{
  return "int8";
}
template <>
const char* type_name<std::int16_t>()
{
  return "int16";
}
template <>
const char* type_name<int>()
{
  return "int32";
}
template <>
const char* type_name<std::int64_t>()
{
  return "int64";
}

template <class BlockScan, int Items>
variant<int> block_variant(const char* algorithm)
{
  using program = ablation::block_scan_program<BlockScan, Items>;
  return {"block", std::string(algorithm) + ", " + std::to_string(Items) + " per thread",
          [](const int* in, int* out, std::size_t n, void* scratch) {
            ablation::run_scheme<ablation::scheme::reduce_then_scan, program>(bench_stream, {in, out, n}, n, scratch);
          }};
}

template <class BlockScan>
void add_coarsened(std::vector<variant<int>>& variants, const char* algorithm)
{
  variants.push_back(block_variant<BlockScan, 1>(algorithm));
  variants.push_back(block_variant<BlockScan, 4>(algorithm));
  variants.push_back(block_variant<BlockScan, 16>(algorithm));
  variants.push_back(block_variant<BlockScan, 32>(algorithm));
}

std::vector<variant<int>> block_variants()
{
  using ablation::blelloch;
  using ablation::brent_kung;
  using ablation::kogge_stone;
  using ablation::stepped_block_scan;
  constexpr int B = ablation::block_threads;
  std::vector<variant<int>> variants;
  add_coarsened<stepped_block_scan<kogge_stone<B>>>(variants, "Kogge-Stone");
  add_coarsened<stepped_block_scan<brent_kung<B>>>(variants, "Brent-Kung");
  add_coarsened<stepped_block_scan<blelloch<B, false>>>(variants, "Blelloch");
  add_coarsened<stepped_block_scan<blelloch<B, true>>>(variants, "Blelloch padded");
  add_coarsened<ablation::warp_shuffle_block_scan>(variants, "warp shuffles");
  add_coarsened<ablation::cub_block_scan>(variants, "CUB BlockScan");
  return variants;
}

// spscan's own tile program for T (the library's scan, in the library's tile shape for T).
template <class T>
using spscan_tile_program = spscan::detail::scan_program_for<spscan::detail::scan_kind::inclusive,
                                                             T,
                                                             spscan::detail::scan_tuning<T, T, T>,
                                                             const T*,
                                                             T*,
                                                             thrust::plus<T>>;

template <class T>
auto scan_params(const T* in, T* out, std::size_t n)
{
  return spscan::detail::make_scan_params<spscan::detail::scan_kind::inclusive, T>(in, n, out, thrust::plus<T>{}, T{});
}

template <class T, ablation::scheme Scheme>
variant<T> scheme_variant(const char* name)
{
  return {"device", name,
          [](const T* in, T* out, std::size_t n, void* scratch) {
            ablation::run_scheme<Scheme, spscan_tile_program<T>>(bench_stream, scan_params(in, out, n), n, scratch);
          },
          Scheme == ablation::scheme::independent};
}

template <class T>
std::vector<variant<T>> device_variants(std::size_t max_n)
{
  using ablation::scheme;
  std::vector<variant<T>> variants{
    scheme_variant<T, scheme::independent>("every tile alone (no carry)"),
    scheme_variant<T, scheme::reduce_then_scan>("reduce-then-scan (3 kernels)"),
    scheme_variant<T, scheme::chained_in_block_order>("chained, blockIdx order"),
    scheme_variant<T, scheme::chained_dynamic>("chained, dynamic tile ids"),
    scheme_variant<T, scheme::decoupled_one_thread>("decoupled look-back, one thread"),
    scheme_variant<T, scheme::decoupled_warp_serial_fold>("look-back, warp reads, one thread adds"),
    scheme_variant<T, scheme::decoupled_warp_tree_fold>("look-back, warp reads and adds (tree)"),
    {"device", "spscan, classic engine",
     [](const T* in, T* out, std::size_t n, void*) {
       auto policy = thrust::cuda::par_nosync.on(bench_stream);
       spscan::detail::launch_single_pass<spscan_tile_program<T>>(policy, scan_params(in, out, n), n);
     }},
    {"device", "spscan (library: ring from 8 MiB on sm_90)",
     [](const T* in, T* out, std::size_t n, void*) {
       spscan::inclusive_scan(thrust::cuda::par_nosync.on(bench_stream), in, in + n, out);
     }},
  };
  // CUB's DeviceScan with its temporary storage taken once, before any timing.
  std::size_t cub_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), max_n));
  const auto cub_temp = std::make_shared<device_array<unsigned char>>(cub_bytes);
  variants.push_back({"device", "CUB DeviceScan::InclusiveSum", [cub_temp, cub_bytes](const T* in, T* out, std::size_t n, void*) {
                        std::size_t bytes = cub_bytes;
                        CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp->get(), bytes, in, out, n, bench_stream));
                      }});
  return variants;
}

// Elements of `out` that differ from every tile's own scan, read off the full scan `want`:
// element i of tile t is want[i] - want[first of t - 1] (integers, exact modulo 2^bits).
template <class T>
__global__ void count_tile_scan_mismatches(const T* out, const T* want, std::size_t n, std::size_t tile_items,
                                           unsigned long long* mismatches)
{
  unsigned long long wrong = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const std::size_t first = i / tile_items * tile_items;
    const T expected        = first == 0 ? want[i] : static_cast<T>(want[i] - want[first - 1]);
    wrong += out[i] != expected;
  }
  if (wrong != 0)
  {
    atomicAdd(mismatches, wrong);
  }
}

template <class T>
bool tiles_alone_exact(const T* out, const T* want, std::size_t n, std::size_t tile_items, int sm_count)
{
  unsigned long long* mismatches = nullptr;
  CHECK_CUDA(cudaMallocManaged(&mismatches, sizeof(*mismatches)));
  *mismatches = 0;
  count_tile_scan_mismatches<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(out, want, n, tile_items, mismatches);
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  const bool exact = *mismatches == 0;
  CHECK_CUDA(cudaFree(mismatches));
  return exact;
}

struct run_settings
{
  int reps;
  int sm_count;
  std::FILE* csv;
};

// Times every variant at every size of `sizes` (log2), each against spscan's library result and a
// copy of the same bytes, and prints one markdown table.
template <class T>
bool run_rows(const std::vector<variant<T>>& variants, const std::vector<int>& sizes, std::size_t tile_items,
              const run_settings& settings)
{
  const std::size_t max_n = std::size_t{1} << sizes.back();
  device_array<T> in(max_n), out(max_n), want(max_n), copy_target(max_n);
  // The largest scratch any variant takes: tile states, totals and prefixes of 256-element tiles.
  device_array<unsigned char> scratch(ablation::scheme_scratch_bytes<ablation::block_scan_program<ablation::cub_block_scan, 1>>(max_n) * 2);
  fill_random<<<grid_for(max_n, settings.sm_count), 256>>>(in.get(), max_n, 2026);
  CHECK_CUDA(cudaDeviceSynchronize());
  event_timer timer;
  bool all_exact = true;
  std::printf("\n%s, %s elements: ratio = copy time / scan time\n\n| level | variant |", variants.front().level, type_name<T>());
  for (const int log2n : sizes)
  {
    std::printf(" 2^%d |", log2n);
  }
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < sizes.size(); ++i)
  {
    std::printf("---|");
  }
  std::printf("\n");
  for (const variant<T>& v : variants)
  {
    std::printf("| %s | %s |", v.level, v.name.c_str());
    for (const int log2n : sizes)
    {
      const std::size_t n = std::size_t{1} << log2n;
      spscan::inclusive_scan(thrust::cuda::par.on(bench_stream), in.get(), in.get() + n, want.get());
      CHECK_CUDA(cudaMemsetAsync(out.get(), 0xab, n * sizeof(T), bench_stream));
      v.run(in.get(), out.get(), n, scratch.get());
      CHECK_CUDA(cudaStreamSynchronize(bench_stream));
      const bool exact = v.tiles_alone ? tiles_alone_exact(out.get(), want.get(), n, tile_items, settings.sm_count)
                                       : compare_on_device(out.get(), want.get(), n, settings.sm_count).passed;
      all_exact &= exact;
      const double ms      = timer.median_ms([&] { v.run(in.get(), out.get(), n, scratch.get()); }, 2, settings.reps);
      const double copy_ms = timer.median_ms([&] {
        CHECK_CUDA(cudaMemcpyAsync(copy_target.get(), in.get(), n * sizeof(T), cudaMemcpyDeviceToDevice, bench_stream));
      }, 2, settings.reps);
      std::printf(" %.3f%s |", copy_ms / ms, exact ? "" : " WRONG");
      std::fflush(stdout);
      if (settings.csv)
      {
        ablation::csv_measurement row;
        row.level   = v.level;
        row.variant = v.name;
        row.type    = type_name<T>();
        row.log2n   = log2n;
        row.ms      = ms;
        row.copy_ms = copy_ms;
        row.exact   = exact;
        ablation::write_csv_row(settings.csv, row);
      }
    }
    std::printf("\n");
  }
  return all_exact;
}

template <class T>
bool run_device_rows(int max_log2n, const run_settings& settings)
{
  std::vector<int> sizes;
  for (const int log2n : {16, 20, 24, 28})
  {
    if (log2n <= max_log2n)
    {
      sizes.push_back(log2n);
    }
  }
  return run_rows(device_variants<T>(std::size_t{1} << sizes.back()), sizes, spscan_tile_program<T>::tuning::tile_items,
                  settings);
}

} // namespace

int main(int argc, char** argv)
{
  const char* csv_path = nullptr;
  std::string only;
  int reps = 10, max_log2n = 28;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-log2n")) max_log2n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (max_log2n < 16)
  {
    fail("--max-log2n must be at least 16");
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("ablation_bench: %s, inclusive sums; ratio = copy time / scan time (same bytes, same run); median of %d\n",
              prop.name, reps);
  std::FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv)
  {
    ablation::write_csv_header(csv);
  }
  const run_settings settings{reps, prop.multiProcessorCount, csv};
  bool all_exact = true;
  if (only.empty() || only == "device")
  {
    all_exact &= run_device_rows<std::int8_t>(max_log2n, settings);
    all_exact &= run_device_rows<std::int16_t>(max_log2n, settings);
    all_exact &= run_device_rows<int>(max_log2n, settings);
    all_exact &= run_device_rows<std::int64_t>(max_log2n, settings);
  }
  if (only.empty() || only == "block")
  {
    std::vector<int> sizes;
    for (int log2n = 16; log2n <= max_log2n; log2n += 2)
    {
      sizes.push_back(log2n);
    }
    all_exact &= run_rows(block_variants(), sizes, 0, settings);
  }
  if (csv)
  {
    std::fclose(csv);
  }
  std::printf("\nsummary: ablation checks %s (every variant against spscan's result, every size)\n",
              all_exact ? "all exact" : "FAILED");
  return all_exact ? 0 : 1;
}

// What each idea of the single-pass scan is worth: the classic scan algorithms side by side, each a
// complete device scan of int32 checked against spscan's result, timed against a device-to-device
// copy of the same bytes in the same run (ratio = copy time / scan time). bench/ABLATION.md reads
// the table.
//  - block level, inside one device scheme (three-kernel reduce-then-scan, so that no wait
//    between tiles hides the block scan's cost): Kogge-Stone, Brent-Kung, Blelloch with and
//    without padding, a warp-shuffle scan and CUB's BlockScan, one element per thread; thread
//    coarsening with the warp-shuffle scan at 1, 4, 16 and 32 elements per thread;
//  - device level, all with spscan's tile program (32 elements per thread, warp scans): three
//    kernels reduce-then-scan; a chained scan whose thread 0 waits for the tile before it, in
//    blockIdx order and with dynamic tile ids; a decoupled look-back walked by one thread; and
//    spscan itself (a look-back warp reading 64 predecessors at a time).
// Usage: ablation_bench [--csv FILE] [--reps N] [--max-log2n K]
static const char* bench_name = "ablation_bench";

#include "ablation/block_scan_program.h"
#include "ablation/csv.h"
#include "ablation/device_schemes.h"
#include "bench_support.h"

#include <spscan/detail/programs/scan_program.h>
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace bench;

namespace
{

struct variant
{
  const char* level; // "block" or "device"
  const char* name;
  std::function<void(const int*, int*, std::size_t, void*)> run; // in, out, n, scratch
};

template <class BlockScan, int Items>
variant block_variant(const char* name)
{
  using program = ablation::block_scan_program<BlockScan, Items>;
  return {"block", name, [](const int* in, int* out, std::size_t n, void* scratch) {
            ablation::run_scheme<ablation::scheme::reduce_then_scan, program>(bench_stream, {in, out, n}, n, scratch);
          }};
}

// spscan's own tile program (the library's scan, 32 elements per thread) in another scheme.
using spscan_tile_program = spscan::detail::scan_program_for<spscan::detail::scan_kind::inclusive,
                                                             int,
                                                             spscan::detail::scan_tuning<int, int, int>,
                                                             const int*,
                                                             int*,
                                                             thrust::plus<int>>;

template <ablation::scheme Scheme>
variant device_variant(const char* name)
{
  return {"device", name, [](const int* in, int* out, std::size_t n, void* scratch) {
            const auto params = spscan::detail::make_scan_params<spscan::detail::scan_kind::inclusive, int>(
              in, n, out, thrust::plus<int>{}, 0);
            ablation::run_scheme<Scheme, spscan_tile_program>(bench_stream, params, n, scratch);
          }};
}

} // namespace

int main(int argc, char** argv)
{
  const char* csv_path = nullptr;
  int reps = 10, max_log2n = 28;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-log2n")) max_log2n = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sm_count = prop.multiProcessorCount;

  using ablation::blelloch;
  using ablation::brent_kung;
  using ablation::kogge_stone;
  using ablation::stepped_block_scan;
  constexpr int B = ablation::block_threads;
  const std::vector<variant> variants{
    block_variant<stepped_block_scan<kogge_stone<B>>, 1>("Kogge-Stone, 1 per thread"),
    block_variant<stepped_block_scan<brent_kung<B>>, 1>("Brent-Kung, 1 per thread"),
    block_variant<stepped_block_scan<blelloch<B, false>>, 1>("Blelloch, 1 per thread"),
    block_variant<stepped_block_scan<blelloch<B, true>>, 1>("Blelloch padded, 1 per thread"),
    block_variant<ablation::warp_shuffle_block_scan, 1>("warp shuffles, 1 per thread"),
    block_variant<ablation::cub_block_scan, 1>("CUB BlockScan, 1 per thread"),
    block_variant<ablation::warp_shuffle_block_scan, 4>("warp shuffles, 4 per thread"),
    block_variant<ablation::warp_shuffle_block_scan, 16>("warp shuffles, 16 per thread"),
    block_variant<ablation::warp_shuffle_block_scan, 32>("warp shuffles, 32 per thread"),
    device_variant<ablation::scheme::reduce_then_scan>("reduce-then-scan (3 kernels)"),
    device_variant<ablation::scheme::chained_in_block_order>("chained, blockIdx order"),
    device_variant<ablation::scheme::chained_dynamic>("chained, dynamic tile ids"),
    device_variant<ablation::scheme::decoupled_one_thread>("decoupled look-back, one thread"),
    {"device", "spscan (look-back warp, 64 per read)",
     [](const int* in, int* out, std::size_t n, void*) {
       spscan::inclusive_scan(thrust::cuda::par_nosync.on(bench_stream), in, in + n, out);
     }},
  };

  const std::size_t max_n = std::size_t{1} << max_log2n;
  device_array<int> in(max_n), out(max_n), want(max_n), copy_target(max_n);
  // The largest scratch any variant takes: tile states, totals and prefixes of 256-element tiles.
  device_array<unsigned char> scratch(ablation::scheme_scratch_bytes<ablation::block_scan_program<ablation::cub_block_scan, 1>>(max_n));
  fill_random<<<grid_for(max_n, sm_count), 256>>>(in.get(), max_n, 2026);
  CHECK_CUDA(cudaDeviceSynchronize());

  std::printf("ablation_bench: %s, int32 inclusive sums; ratio = copy time / scan time (same bytes, same run); "
              "median of %d\n\n",
              prop.name, reps);
  std::FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv)
  {
    ablation::write_csv_header(csv);
  }
  event_timer timer;
  bool all_exact = true;
  std::printf("| level | variant |");
  for (int log2n = 16; log2n <= max_log2n; log2n += 2)
  {
    std::printf(" 2^%d |", log2n);
  }
  std::printf("\n|---|---|");
  for (int log2n = 16; log2n <= max_log2n; log2n += 2)
  {
    std::printf("---|");
  }
  std::printf("\n");
  for (const variant& v : variants)
  {
    std::printf("| %s | %s |", v.level, v.name);
    for (int log2n = 16; log2n <= max_log2n; log2n += 2)
    {
      const std::size_t n = std::size_t{1} << log2n;
      spscan::inclusive_scan(thrust::cuda::par.on(bench_stream), in.get(), in.get() + n, want.get());
      CHECK_CUDA(cudaMemsetAsync(out.get(), 0xab, n * sizeof(int), bench_stream));
      v.run(in.get(), out.get(), n, scratch.get());
      CHECK_CUDA(cudaStreamSynchronize(bench_stream));
      const bool exact = compare_on_device(out.get(), want.get(), n, sm_count).passed;
      all_exact &= exact;
      const double ms = timer.median_ms([&] { v.run(in.get(), out.get(), n, scratch.get()); }, 2, reps);
      const double copy_ms = timer.median_ms([&] {
        CHECK_CUDA(cudaMemcpyAsync(copy_target.get(), in.get(), n * sizeof(int), cudaMemcpyDeviceToDevice, bench_stream));
      }, 2, reps);
      std::printf(" %.3f%s |", copy_ms / ms, exact ? "" : " WRONG");
      std::fflush(stdout);
      if (csv)
      {
        ablation::write_csv_row(csv, {v.level, v.name, log2n, ms, copy_ms, exact});
      }
    }
    std::printf("\n");
  }
  if (csv)
  {
    std::fclose(csv);
  }
  std::printf("\nsummary: ablation checks %s (every variant against spscan's result, every size)\n",
              all_exact ? "all exact" : "FAILED");
  return all_exact ? 0 : 1;
}

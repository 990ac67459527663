// call_time_bench: what one scan call costs as users write it, spscan beside Thrust, in one run.
//
// For int32 and int64 at 2^10 .. 2^22 elements (step 4x), the host clock around each call
// (std::chrono::steady_clock), median of the samples, in microseconds:
//   no policy          scan(in.begin(), in.end(), out.begin()) on device_vectors: synchronizes
//   thrust::device     scan(thrust::device, ...): synchronizes
//   par_nosync         scan(thrust::cuda::par_nosync, ...), then cudaStreamSynchronize
//   par_nosync(alloc)  scan(thrust::cuda::par_nosync(caching_allocator), ...), then
//                      cudaStreamSynchronize: the cost of a call that allocates nothing
// each for spscan:: and thrust::. The nosync rows include the synchronization, so every row is
// the time until the result is ready on the host's side of the stream. Each variant runs in
// blocks of 21 calls in a row (the first of each block untimed), the variants taking turns
// block by block, so drifts of clock or load reach all of them alike.
// Two floors, measured the same way, say what any call costs on this machine: one empty kernel
// launch + sync (a call of one launch can be no faster), and a cudaMemsetAsync + empty kernel +
// sync (two stream operations, as a multi-tile call that clears its tile states).
//
// The goals it checks (printed, and the exit status when --enforce is given):
//   speedup   Thrust's time / spscan's >= 2 through no policy and thrust::device, every type and size
//   nosync    spscan par_nosync <= spscan thrust::device
//   overhead  spscan no policy and thrust::device <= 1.10 x spscan par_nosync(alloc) + sync
// spscan's results are checked against Thrust's once per type and size (bit for bit).
//
// Options: --csv PATH  --reps N (default 301)  --enforce
// Exit status: 0 when every check passed (and with --enforce every goal held), 1 otherwise.

#include <spscan/scan.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/fill.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>

// The name error messages start with (bench_support.h).
static const char* const bench_name = "call_time_bench";
#include "bench_support.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace
{

using namespace bench;

// The rows, in print order. Even: spscan; odd: Thrust.
enum variant : int
{
  spscan_no_policy,
  thrust_no_policy,
  spscan_device,
  thrust_device,
  spscan_nosync,
  thrust_nosync,
  spscan_nosync_alloc,
  thrust_nosync_alloc,
  variant_count
};

const char* const variant_names[variant_count] = {
  "spscan  no policy",
  "thrust  no policy",
  "spscan  thrust::device",
  "thrust  thrust::device",
  "spscan  par_nosync + sync",
  "thrust  par_nosync + sync",
  "spscan  par_nosync(alloc) + sync",
  "thrust  par_nosync(alloc) + sync",
};

struct row
{
  const char* type;
  int log2n;
  double us[variant_count];
  bool exact;
};

// Host time of each call, in microseconds: rounds of blocks, each variant running `block` calls
// in a row (the first untimed) before the next variant's block; so a call follows a call of its
// own kind (what a loop in a program sees), and slow drifts reach every variant alike.
std::vector<std::vector<double>> time_in_blocks(const std::function<void()>* calls, int variants, int reps)
{
  const int block  = 21;
  const int rounds = (reps + block - 2) / (block - 1);
  std::vector<std::vector<double>> samples(variants);
  for (int v = 0; v < variants; ++v)
  {
    for (int i = 0; i < 20; ++i)
    {
      calls[v]();
    }
  }
  for (int round = 0; round < rounds; ++round)
  {
    for (int v = 0; v < variants; ++v)
    {
      for (int i = 0; i < block; ++i)
      {
        const auto begin = std::chrono::steady_clock::now();
        calls[v]();
        const auto end = std::chrono::steady_clock::now();
        if (i > 0)
        {
          samples[v].push_back(std::chrono::duration<double, std::micro>(end - begin).count());
        }
      }
    }
  }
  return samples;
}

__global__ void empty_kernel() {}

// What any call costs on this machine: one kernel launch + sync; a memset + a launch + sync.
struct floors
{
  double launch_sync_us;
  double memset_launch_sync_us;
};

floors measure_floors(int reps)
{
  device_array<unsigned char> scratch(4096);
  const std::function<void()> calls[2] = {
    [] {
      empty_kernel<<<1, 32, 0, bench_stream>>>();
      CHECK_CUDA(cudaStreamSynchronize(bench_stream));
    },
    [&] {
      CHECK_CUDA(cudaMemsetAsync(scratch.get(), 0, 4096, bench_stream));
      empty_kernel<<<1, 32, 0, bench_stream>>>();
      CHECK_CUDA(cudaStreamSynchronize(bench_stream));
    },
  };
  const auto samples = time_in_blocks(calls, 2, reps);
  CHECK_CUDA(cudaGetLastError());
  return {median_of(samples[0]), median_of(samples[1])};
}

template <class T>
row measure(const char* type, int log2n, int reps, caching_allocator& allocator, int sm_count)
{
  const std::size_t n = std::size_t{1} << log2n;
  thrust::device_vector<T> in(n), out_spscan(n), out_thrust(n);
  fill_random<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(thrust::raw_pointer_cast(in.data()), n, 1000 + log2n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));

  const auto nosync       = thrust::cuda::par_nosync;
  const auto nosync_alloc = thrust::cuda::par_nosync(allocator);
  auto sync               = [] { CHECK_CUDA(cudaStreamSynchronize(bench_stream)); };
  auto& a                 = in;
  auto& s                 = out_spscan;
  auto& t                 = out_thrust;
  const std::function<void()> calls[variant_count] = {
    [&] { spscan::inclusive_scan(a.begin(), a.end(), s.begin()); },
    [&] { thrust::inclusive_scan(a.begin(), a.end(), t.begin()); },
    [&] { spscan::inclusive_scan(thrust::device, a.begin(), a.end(), s.begin()); },
    [&] { thrust::inclusive_scan(thrust::device, a.begin(), a.end(), t.begin()); },
    [&] { spscan::inclusive_scan(nosync, a.begin(), a.end(), s.begin()); sync(); },
    [&] { thrust::inclusive_scan(nosync, a.begin(), a.end(), t.begin()); sync(); },
    [&] { spscan::inclusive_scan(nosync_alloc, a.begin(), a.end(), s.begin()); sync(); },
    [&] { thrust::inclusive_scan(nosync_alloc, a.begin(), a.end(), t.begin()); sync(); },
  };

  row r{type, log2n, {}, false};
  // Correctness first, on a poisoned output.
  thrust::fill(out_spscan.begin(), out_spscan.end(), T(-7));
  calls[spscan_no_policy]();
  calls[thrust_no_policy]();
  r.exact = thrust::equal(out_spscan.begin(), out_spscan.end(), out_thrust.begin());

  const std::vector<std::vector<double>> samples = time_in_blocks(calls, variant_count, reps);
  CHECK_CUDA(cudaGetLastError());
  for (int v = 0; v < variant_count; ++v)
  {
    r.us[v] = median_of(samples[v]);
  }
  return r;
}

struct goals
{
  bool speedup  = true;
  bool nosync   = true;
  bool overhead = true;
};

void print_table(const std::vector<row>& rows, goals& g)
{
  for (const char* type : {"int32", "int64"})
  {
    std::printf("\n%s: call time in us (host clock, median)\n%-34s", type, "");
    for (const row& r : rows)
    {
      if (std::string(r.type) == type)
      {
        std::printf("   2^%-4d", r.log2n);
      }
    }
    std::printf("\n");
    // One line: `label`, then value(row) for each size of this type.
    const auto line = [&](const char* label, const char* format, auto value) {
      std::printf("%-34s", label);
      for (const row& r : rows)
      {
        if (std::string(r.type) == type)
        {
          std::printf(format, value(r));
        }
      }
      std::printf("\n");
    };
    for (int v = 0; v < variant_count; ++v)
    {
      line(variant_names[v], " %8.2f", [v](const row& r) { return r.us[v]; });
    }
    line("speedup no policy (thrust/spscan)", " %7.2fx", [](const row& r) { return r.us[thrust_no_policy] / r.us[spscan_no_policy]; });
    line("speedup thrust::device", " %7.2fx", [](const row& r) { return r.us[thrust_device] / r.us[spscan_device]; });
    line("no policy / (nosync(alloc)+sync)", " %8.3f", [](const row& r) { return r.us[spscan_no_policy] / r.us[spscan_nosync_alloc]; });
    line("device / (nosync(alloc)+sync)", " %8.3f", [](const row& r) { return r.us[spscan_device] / r.us[spscan_nosync_alloc]; });
  }
  for (const row& r : rows)
  {
    g.speedup = g.speedup && r.us[thrust_no_policy] >= 2 * r.us[spscan_no_policy]
             && r.us[thrust_device] >= 2 * r.us[spscan_device];
    g.nosync   = g.nosync && r.us[spscan_nosync] <= r.us[spscan_device];
    g.overhead = g.overhead && r.us[spscan_no_policy] <= 1.10 * r.us[spscan_nosync_alloc]
              && r.us[spscan_device] <= 1.10 * r.us[spscan_nosync_alloc];
  }
}

void write_csv(const std::string& path, const std::vector<row>& rows)
{
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
  {
    fail("cannot write " + path);
  }
  std::fprintf(f, "type,log2n,variant,us\n");
  for (const row& r : rows)
  {
    for (int v = 0; v < variant_count; ++v)
    {
      std::fprintf(f, "%s,%d,%s,%.3f\n", r.type, r.log2n, variant_names[v], r.us[v]);
    }
  }
  std::fclose(f);
}

} // namespace

int main(int argc, char** argv)
{
  std::string csv_path;
  int reps     = 301;
  bool enforce = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg == "--csv" && i + 1 < argc)
    {
      csv_path = argv[++i];
    }
    else if (arg == "--reps" && i + 1 < argc)
    {
      reps = std::max(1, std::atoi(argv[++i]));
    }
    else if (arg == "--enforce")
    {
      enforce = true;
    }
    else
    {
      std::fprintf(stderr, "usage: call_time_bench [--csv PATH] [--reps N] [--enforce]\n");
      return 1;
    }
  }
  int device = 0, sm_count = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("call_time_bench on %s, %d reps per cell\n", prop.name, reps);

  const floors f = measure_floors(reps);
  std::printf("floor: empty kernel launch + sync               %7.2f us\n", f.launch_sync_us);
  std::printf("floor: cudaMemsetAsync + empty kernel + sync    %7.2f us\n", f.memset_launch_sync_us);

  caching_allocator allocator;
  std::vector<row> rows;
  for (int log2n = 10; log2n <= 22; log2n += 2)
  {
    rows.push_back(measure<std::int32_t>("int32", log2n, reps, allocator, sm_count));
  }
  for (int log2n = 10; log2n <= 22; log2n += 2)
  {
    rows.push_back(measure<std::int64_t>("int64", log2n, reps, allocator, sm_count));
  }

  goals g;
  print_table(rows, g);
  bool exact = true;
  for (const row& r : rows)
  {
    if (!r.exact)
    {
      std::printf("MISMATCH: %s 2^%d spscan differs from Thrust\n", r.type, r.log2n);
      exact = false;
    }
  }
  std::printf("\nchecks: %s (spscan equal to Thrust bit for bit at every type and size)\n", exact ? "exact" : "FAILED");
  std::printf("goal speedup  (>= 2x Thrust, no policy and thrust::device): %s\n", g.speedup ? "met" : "NOT met");
  std::printf("goal nosync   (par_nosync + sync <= thrust::device):        %s\n", g.nosync ? "met" : "NOT met");
  std::printf("goal overhead (<= 1.10 x par_nosync(alloc) + sync):         %s\n", g.overhead ? "met" : "NOT met");
  if (!csv_path.empty())
  {
    write_csv(csv_path, rows);
    std::printf("wrote %s\n", csv_path.c_str());
  }
  const bool goals_met = g.speedup && g.nosync && g.overhead;
  return exact && (!enforce || goals_met) ? 0 : 1;
}

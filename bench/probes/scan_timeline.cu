// scan_timeline: where a scan's time goes, tile by tile.
//
// Every CTA of one scan records, with the GPU's global timer, when its tile reaches each stage
// (classic/driver.h and programs/scan_program.h: started, staged, aggregate known, prefix found by
// the look-back warp, prefix published, stored), and on which SM it ran, through the trace hook a
// tuning may name (common/tuning.h). From that the program prints, per
// case, the distribution of each stage's duration and the two parts of the wait for the prefix:
//   order wait   how long after its own aggregate a tile had to wait for the last of its
//                predecessors' aggregates (no look-back, however fast, can publish earlier), and
//   protocol     what the look-back added on top of that.
// The scan is timed (CUDA events, median) with tracing off and on, against a device-to-device
// copy of the same bytes, to show the tracing costs little. Then the round trip of a state read
// (a dependent relaxed load from L2) on an idle GPU, during a copy and during a scan. Last, the
// scan's speed at each
// look-back depth (windows per look-back read), what the reproducible left fold of the
// look-back costs against a timing-dependent tree fold (with reruns compared bit for bit), and, at
// mid sizes (2^20-2^26), smaller tiles and deeper reads against the library's shape and CUB.
// The ring section traces the ring engine's tiles the same way (ring/ring_driver.h: the producer's
// id, loaded, aggregate published, prefix found by the prefix warp, scan squad started, done) for
// the scan, the selection and the by-key scan, and shows whether the ring ran full
// (bench/probes/ring_trace_gaps.py reads its CSVs: what each tile's prefix waited for, and the run's start
// and drain); ring8 does so for 8-byte scans, ring26 for 1-, 2- and 4-byte scans at 2^26 and 2^28,
// ring22 for scans at mid sizes, the exact ones also with two prefix warps (ring_trace_gaps.py
// --rounds reads them round by round), ringbk8 for by-key scans of double values.
//
// Usage: scan_timeline [--csv-dir DIR] [--only SECTION]   (DIR gets one CSV per traced case: tile,
//        sm, the six times in ns; SECTION: trace, ring, ring8, ring26, ring22, ringbk8, ringgen,
//        small, latency, depth, fold, shape or mid)

static const char* bench_name = "scan_timeline";
#include "bench_support.h"

#include <spscan/detail/programs/scan_by_key_plan.h>
#include <spscan/detail/programs/scan_plan.h>
#include <spscan/detail/programs/select_plan.h>
#include <spscan/detail/ring/ring_launch.h>
#include <spscan/scan.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

__device__ unsigned long long* timeline_trace = nullptr; // [tile][8]: six stages, CTA, SM

__device__ __forceinline__ void timeline_record(std::size_t tile, int stage)
{
  unsigned long long* trace = timeline_trace;
  if (trace != nullptr)
  {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    trace[tile * 8 + stage] = now;
    if (stage == 0)
    {
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      trace[tile * 8 + 6] = blockIdx.x;
      trace[tile * 8 + 7] = sm;
    }
  }
}

// The driver's trace hook (common/tuning.h: a tuning's `trace`): records each stage of a tile.
struct timeline_hook
{
  __device__ static void record(std::size_t tile, spscan::detail::trace_stage stage)
  {
    timeline_record(tile, stage);
  }
};

// The library's tuning with the trace hook; tracing is off while timeline_trace is null.
template <class Base>
struct traced : Base
{
  using trace = timeline_hook;
};


void check(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    std::fprintf(stderr, "scan_timeline: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// Hands out one block, allocated once: no allocation inside a timed call.
class single_block_allocator
{
public:
  using value_type = char;
  explicit single_block_allocator(std::size_t bytes)
      : bytes_(bytes)
  {
    check(cudaMalloc(&block_, bytes), "cudaMalloc");
  }
  ~single_block_allocator()
  {
    cudaFree(block_);
  }
  single_block_allocator(const single_block_allocator&)            = delete;
  single_block_allocator& operator=(const single_block_allocator&) = delete;

  char* allocate(std::ptrdiff_t bytes)
  {
    if (static_cast<std::size_t>(bytes) > bytes_)
    {
      std::fprintf(stderr, "scan_timeline: temporary storage of %td bytes exceeds the block\n", bytes);
      std::exit(1);
    }
    return block_;
  }
  void deallocate(char*, std::size_t) {}

private:
  char* block_ = nullptr;
  std::size_t bytes_;
};

template <class T>
__global__ void fill(T* out, std::size_t n)
{
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
  {
    std::uint64_t x = i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    out[i] = static_cast<T>(x % 8 + 1);
  }
}

// An input of 2^log2n elements (filled by `fill`) and an output as large, freed at scope exit.
template <class T>
struct scan_buffers
{
  std::size_t n;
  T* in  = nullptr;
  T* out = nullptr;

  scan_buffers(int log2n, cudaStream_t stream)
      : n(std::size_t{1} << log2n)
  {
    check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
    fill<<<1024, 256, 0, stream>>>(in, n);
    check(cudaGetLastError(), "fill");
  }
  ~scan_buffers()
  {
    cudaFree(in);
    cudaFree(out);
  }
  scan_buffers(const scan_buffers&)            = delete;
  scan_buffers& operator=(const scan_buffers&) = delete;
};

template <class Call>
double median_ms(cudaStream_t stream, Call call, int reps)
{
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < 3; ++i)
  {
    call();
  }
  std::vector<float> ms(reps);
  for (auto& m : ms)
  {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    call();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&m, start, stop), "cudaEventElapsedTime");
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct percentiles
{
  double p10, p50, p90;
};
percentiles of(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * double(v.size() - 1))]; };
  return {at(0.1), at(0.5), at(0.9)};
}

// One traced call: its time with tracing off and on (medians), and the records of the last traced
// run, [tile][8]: the six stage times, the CTA, the SM.
struct trace_capture
{
  double plain_ms;
  double traced_ms;
  std::vector<unsigned long long> records;
};

template <class Call>
trace_capture capture_trace(std::size_t tiles, cudaStream_t stream, Call call, int reps)
{
  unsigned long long* trace = nullptr;
  check(cudaMalloc(&trace, tiles * 8 * sizeof(unsigned long long)), "cudaMalloc");
  unsigned long long* off = nullptr;
  check(cudaMemcpyToSymbol(timeline_trace, &off, sizeof(off)), "cudaMemcpyToSymbol");
  trace_capture c{median_ms(stream, call, reps), 0.0, std::vector<unsigned long long>(tiles * 8)};
  check(cudaMemcpyToSymbol(timeline_trace, &trace, sizeof(trace)), "cudaMemcpyToSymbol");
  c.traced_ms = median_ms(stream, call, reps); // the last traced run stays in `trace`
  check(cudaStreamSynchronize(stream), "sync");
  check(cudaMemcpyToSymbol(timeline_trace, &off, sizeof(off)), "cudaMemcpyToSymbol");
  check(cudaMemcpy(c.records.data(), trace, c.records.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(trace);
  return c;
}

// The first tile's start and the last tile's end among the first `tiles` records.
struct trace_span
{
  unsigned long long origin = ~0ull;
  unsigned long long end    = 0;
};
trace_span span_of(const std::vector<unsigned long long>& t, std::size_t tiles)
{
  trace_span span;
  for (std::size_t i = 0; i < tiles; ++i)
  {
    span.origin = std::min(span.origin, t[i * 8 + 0]);
    span.end    = std::max(span.end, t[i * 8 + 5]);
  }
  return span;
}

// A stage's p10 / p50 / p90 in us, its name in a column `width` wide; nothing for no samples.
void print_stage(int width, const char* what, const std::vector<double>& v)
{
  if (v.empty())
  {
    return;
  }
  const percentiles p = of(v);
  std::printf("  %-*s %8.2f %8.2f %8.2f\n", width, what, p.p10, p.p50, p.p90);
}

// The records as a CSV: tile, (CTA,) SM, then the six times in ns from the first start.
void write_trace_csv(const std::string& path, const char* header, const std::vector<unsigned long long>& t, std::size_t tiles,
                     unsigned long long origin, bool with_cta)
{
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
  {
    return;
  }
  std::fprintf(f, "%s\n", header);
  for (std::size_t i = 0; i < tiles; ++i)
  {
    std::fprintf(f, "%zu", i);
    if (with_cta)
    {
      std::fprintf(f, ",%llu", t[i * 8 + 6]);
    }
    std::fprintf(f, ",%llu", t[i * 8 + 7]);
    for (int stage = 0; stage < 6; ++stage)
    {
      std::fprintf(f, ",%llu", t[i * 8 + stage] - origin);
    }
    std::fprintf(f, "\n");
  }
  std::fclose(f);
}

template <class T>
void run_case(const char* name, int log2n, cudaStream_t stream, const std::string& csv_dir)
{
  const scan_buffers<T> buffers(log2n, stream);
  const std::size_t n = buffers.n;
  T* const in         = buffers.in;
  T* const out        = buffers.out;

  using tuning              = traced<spscan::detail::scan_tuning<T, T, T>>;
  const std::size_t tiles   = (n + tuning::tile_items - 1) / tuning::tile_items;
  single_block_allocator alloc(tiles * 32 + (1 << 20));
  auto policy               = thrust::cuda::par_nosync(alloc).on(stream);
  auto scan                 = [&] {
    spscan::detail::device_scan<spscan::detail::scan_kind::inclusive, T, tuning>(policy, in, n, out, thrust::plus<T>{}, T{});
  };
  const int reps            = log2n >= 24 ? 30 : 200;

  const double copy_ms =
    median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy"); }, reps);
  const trace_capture captured             = capture_trace(tiles, stream, scan, reps);
  const double plain_ms                    = captured.plain_ms;
  const double traced_ms                   = captured.traced_ms;
  const std::vector<unsigned long long>& t = captured.records;
  const trace_span span                    = span_of(t, tiles);
  const unsigned long long origin          = span.origin;
  const unsigned long long end             = span.end;
  auto at = [&](std::size_t i, int stage) { return double(t[i * 8 + stage] - origin) * 1e-3; }; // us

  std::vector<double> load, fold, look_back, wait, order_wait, protocol, finish, life;
  double latest_aggregate = 0, busy = 0;
  for (std::size_t i = 0; i < tiles; ++i)
  {
    load.push_back(at(i, 1) - at(i, 0));
    fold.push_back(at(i, 2) - at(i, 1));
    wait.push_back(at(i, 4) - at(i, 2));
    finish.push_back(at(i, 5) - at(i, 4));
    life.push_back(at(i, 5) - at(i, 0));
    busy += at(i, 5) - at(i, 0);
    if (i > 0)
    {
      look_back.push_back(at(i, 3) - at(i, 0));
      const double ready = std::max(latest_aggregate, at(i, 2)); // all aggregates through i known
      order_wait.push_back(ready - at(i, 2));
      protocol.push_back(at(i, 4) - ready);
    }
    latest_aggregate = std::max(latest_aggregate, at(i, 2));
  }
  const double span_us = double(end - origin) * 1e-3;
  std::printf("\n%s 2^%d: %zu tiles; copy %.4f ms, scan %.4f ms (%.3f of copy), traced %.4f ms (%.3f); "
              "traced span %.1f us, %.1f CTAs resident on average\n",
              name, log2n, tiles, copy_ms, plain_ms, copy_ms / plain_ms, traced_ms, copy_ms / traced_ms, span_us,
              busy / span_us);
  std::printf("  %-44s %8s %8s %8s  (us)\n", "stage", "p10", "p50", "p90");
  const auto line = [](const char* what, const std::vector<double>& v) { print_stage(44, what, v); };
  line("start -> warp 0 staged", load);
  line("warp 0 staged -> aggregate", fold);
  line("start -> prefix found (look-back warp)", look_back);
  line("aggregate -> prefix published", wait);
  line("  of which order wait (last earlier aggregate)", order_wait);
  line("  of which protocol (after all were known)", protocol);
  line("prefix published -> warp 0 stored", finish);
  line("lifetime", life);

  if (!csv_dir.empty())
  {
    write_trace_csv(csv_dir + "/timeline-" + name + "-" + std::to_string(log2n) + ".csv",
                    "tile,sm,started,staged,aggregate,prefix_found,prefix_taken,stored", t, tiles, origin, false);
  }
}

// The library's tuning with another look-back depth (windows per look-back read).
template <class Base, int Depth>
struct with_depth : Base
{
  static constexpr int look_back_depth = Depth;
};

// A scan of 2^log2n elements with `Tuning` (spscan::detail::device_scan), against copy.
template <class T, class Tuning>
double tuned_ratio(int log2n, cudaStream_t stream)
{
  const scan_buffers<T> buffers(log2n, stream);
  const std::size_t n = buffers.n;
  T* const in         = buffers.in;
  T* const out        = buffers.out;
  single_block_allocator alloc((n / Tuning::tile_items + 1) * 32 + (1 << 20));
  auto policy    = thrust::cuda::par_nosync(alloc).on(stream);
  const int reps = log2n >= 24 ? 30 : 200;
  const double copy_ms =
    median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy"); }, reps);
  const double scan_ms = median_ms(stream, [&] {
    spscan::detail::device_scan<spscan::detail::scan_kind::inclusive, T, Tuning>(policy, in, n, out, thrust::plus<T>{}, T{});
  }, reps);
  return copy_ms / scan_ms;
}

template <class T, int Depth>
double depth_ratio(int log2n, cudaStream_t stream)
{
  return tuned_ratio<T, with_depth<spscan::detail::scan_tuning<T, T, T>, Depth>>(log2n, stream);
}

template <class T>
void depth_sweep(const char* name, int log2n, cudaStream_t stream)
{
  std::printf("%-6s 2^%-2d  depth 1 %.3f  2 %.3f  4 %.3f  8 %.3f  (of copy)\n", name, log2n, depth_ratio<T, 1>(log2n, stream),
              depth_ratio<T, 2>(log2n, stream), depth_ratio<T, 4>(log2n, stream), depth_ratio<T, 8>(log2n, stream));
}

// The look-back's fold: the library's left fold, or a timing-dependent tree (look_back.h).
template <class Base, bool Tree>
struct with_fold : Base
{
  static constexpr bool tree_fold = Tree;
};

// Floats with full mantissas, in [-0.5, 0.5): partial sums round, so the association shows.
template <class T>
__global__ void fill_rounding(T* out, std::size_t n)
{
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
  {
    std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
    x               = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    out[i] = static_cast<T>(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
  }
}

// Speed of the left fold against the tree fold, and how many of 8 reruns differ bitwise from the
// first run with each.
template <class T>
void fold_ablation(const char* name, int log2n, cudaStream_t stream)
{
  const std::size_t n = std::size_t{1} << log2n;
  T *in = nullptr, *out = nullptr, *first = nullptr;
  check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&first, n * sizeof(T)), "cudaMalloc");
  fill_rounding<<<1024, 256, 0, stream>>>(in, n);
  check(cudaGetLastError(), "fill");
  using base = spscan::detail::scan_tuning<T, T, T>;
  single_block_allocator alloc((n / base::tile_items + 1) * 32 + (1 << 20));
  auto policy    = thrust::cuda::par_nosync(alloc).on(stream);
  const int reps = log2n >= 24 ? 30 : 200;
  const double copy_ms =
    median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy"); }, reps);
  auto run = [&](auto tuning_tag) {
    using tuning = decltype(tuning_tag);
    spscan::detail::device_scan<spscan::detail::scan_kind::inclusive, T, tuning>(policy, in, n, out, thrust::plus<T>{}, T{});
  };
  auto reruns_differing = [&](auto tuning_tag) {
    run(tuning_tag);
    check(cudaMemcpyAsync(first, out, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy");
    std::vector<T> a(n), b(n);
    check(cudaMemcpyAsync(a.data(), first, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy");
    int differing = 0;
    for (int r = 0; r < 8; ++r)
    {
      run(tuning_tag);
      check(cudaMemcpyAsync(b.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy");
      check(cudaStreamSynchronize(stream), "sync");
      differing += std::memcmp(a.data(), b.data(), n * sizeof(T)) != 0 ? 1 : 0;
    }
    return differing;
  };
  const double left_ms = median_ms(stream, [&] { run(with_fold<base, false>{}); }, reps);
  const double tree_ms = median_ms(stream, [&] { run(with_fold<base, true>{}); }, reps);
  const int left_differ = log2n <= 26 ? reruns_differing(with_fold<base, false>{}) : -1;
  const int tree_differ = log2n <= 26 ? reruns_differing(with_fold<base, true>{}) : -1;
  std::printf("%-6s 2^%-2d  left fold %.3f  tree %.3f  left/tree time %.3f  reruns differing: left %d/8, tree %d/8\n",
              name, log2n, copy_ms / left_ms, copy_ms / tree_ms, left_ms / tree_ms, left_differ, tree_differ);
  cudaFree(in);
  cudaFree(out);
  cudaFree(first);
}

// Another tile shape: 256 data threads with `Bytes` bytes of the element type each.
template <class T, int Bytes, int MinCtas>
struct tile_shape
{
  static constexpr int threads         = 256;
  static constexpr int items           = Bytes / int(sizeof(T));
  static constexpr int tile_items      = threads * items;
  static constexpr int look_back_depth = 2;
  static constexpr int min_ctas_per_sm = MinCtas;
};

template <class T, int Bytes, int MinCtas>
double shape_ratio(int log2n, cudaStream_t stream)
{
  return tuned_ratio<T, tile_shape<T, Bytes, MinCtas>>(log2n, stream);
}

template <class T>
void shape_sweep(const char* name, int log2n, cudaStream_t stream)
{
  if constexpr (sizeof(T) == 8)
  {
    std::printf("%-6s 2^%-2d  256 B/thread %.3f  272 %.3f  (3 CTAs per SM)\n", name, log2n,
                shape_ratio<T, 256, 3>(log2n, stream), shape_ratio<T, 272, 3>(log2n, stream));
  }
  else
  {
    std::printf("%-6s 2^%-2d  128 B/thread %.3f  144 %.3f  160 %.3f  (5 CTAs per SM)\n", name, log2n,
                shape_ratio<T, 128, 5>(log2n, stream), shape_ratio<T, 144, 5>(log2n, stream),
                shape_ratio<T, 160, 5>(log2n, stream));
  }
}

// CUB's scan of the same input with its temporary storage allocated before timing, against copy.
template <class T>
double cub_ratio(int log2n, cudaStream_t stream)
{
  const scan_buffers<T> buffers(log2n, stream);
  const std::size_t n = buffers.n;
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, buffers.in, buffers.out, n, stream), "cub");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  const int reps = log2n >= 24 ? 30 : 200;
  const double copy_ms = median_ms(stream, [&] {
    check(cudaMemcpyAsync(buffers.out, buffers.in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy");
  }, reps);
  const double cub_ms = median_ms(stream, [&] {
    check(cub::DeviceScan::InclusiveSum(temp, temp_bytes, buffers.in, buffers.out, n, stream), "cub");
  }, reps);
  cudaFree(temp);
  return copy_ms / cub_ms;
}

// Mid sizes (one or a few waves of CTAs): smaller tiles and deeper look-back reads against the
// library's shape, with CUB in the same run.
template <class T>
void mid_size_sweep(const char* name, int log2n, cudaStream_t stream)
{
  using base = spscan::detail::scan_tuning<T, T, T>;
  if constexpr (sizeof(T) == 8)
  {
    std::printf("%-6s 2^%-2d  cub %.3f  library %.3f  depth 4 %.3f  128 B/thread (4 CTAs/SM) %.3f  64 B (5) %.3f\n", name,
                log2n, cub_ratio<T>(log2n, stream), tuned_ratio<T, base>(log2n, stream),
                tuned_ratio<T, with_depth<base, 4>>(log2n, stream), shape_ratio<T, 128, 4>(log2n, stream),
                shape_ratio<T, 64, 5>(log2n, stream));
  }
  else
  {
    std::printf("%-6s 2^%-2d  cub %.3f  library %.3f  depth 4 %.3f  64 B/thread %.3f  32 B %.3f  (5 CTAs/SM)\n", name,
                log2n, cub_ratio<T>(log2n, stream), tuned_ratio<T, base>(log2n, stream),
                tuned_ratio<T, with_depth<base, 4>>(log2n, stream), shape_ratio<T, 64, 5>(log2n, stream),
                shape_ratio<T, 32, 5>(log2n, stream));
  }
}

// The cases every tuning sweep times: int32 at three sizes, then a large input of every other type.
template <class Sweep>
void for_sweep_cases(Sweep&& sweep)
{
  sweep(std::int32_t{}, "int32", 20);
  sweep(std::int32_t{}, "int32", 24);
  sweep(std::int32_t{}, "int32", 28);
  sweep(float{}, "float", 28);
  sweep(std::int64_t{}, "int64", 28);
  sweep(double{}, "double", 28);
  sweep(std::int16_t{}, "int16", 30);
  sweep(std::int8_t{}, "int8", 30);
}

// Round trips of a look-back's kind of read: one thread chases a chain through L2-resident words
// with ld.relaxed.gpu (each address depends on the last value, so reads never overlap), after
// waiting `delay_ns` so that work launched just before it on another stream is streaming. Every
// 16 reads it records the global timer.
constexpr int chain_words  = 1024 * 32; // 1024 words, one per 128-byte line
constexpr int probe_reads  = 256;
constexpr int probe_stride = 16;

__global__ void probe_round_trips(const unsigned* chain, unsigned long long* stamps, unsigned long long delay_ns)
{
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
  {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < delay_ns);
  unsigned at = 0;
  for (int k = 0; k <= probe_reads; ++k)
  {
    if (k % probe_stride == 0)
    {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now) : "r"(at) : "memory");
      stamps[k / probe_stride] = now + (at == 0xffffffffu ? 1 : 0); // `at` is used: the read is complete
    }
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(at) : "l"(chain + at) : "memory");
  }
}

// Mean ns per read of each group of 16, while `background` runs on another stream.
template <class Background>
std::vector<double> round_trips(const unsigned* chain, cudaStream_t stream, cudaStream_t other, Background background)
{
  unsigned long long* stamps = nullptr;
  check(cudaMalloc(&stamps, (probe_reads / probe_stride + 1) * sizeof(unsigned long long)), "cudaMalloc");
  check(cudaStreamSynchronize(stream), "sync");
  background();
  probe_round_trips<<<1, 1, 0, other>>>(chain, stamps, 50'000);
  check(cudaGetLastError(), "probe");
  check(cudaDeviceSynchronize(), "sync");
  std::vector<unsigned long long> t(probe_reads / probe_stride + 1);
  check(cudaMemcpy(t.data(), stamps, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(stamps);
  std::vector<double> per_read;
  for (std::size_t i = 1; i < t.size(); ++i)
  {
    per_read.push_back(double(t[i] - t[i - 1]) / probe_stride);
  }
  return per_read;
}

void latency_probe(cudaStream_t stream)
{
  std::vector<unsigned> words(chain_words, 0);
  for (int k = 0; k < chain_words / 32; ++k)
  {
    words[k * 32] = static_cast<unsigned>(((k * 389 + 1) % (chain_words / 32)) * 32); // a cycle through all lines
  }
  unsigned* chain = nullptr;
  check(cudaMalloc(&chain, chain_words * sizeof(unsigned)), "cudaMalloc");
  check(cudaMemcpy(chain, words.data(), chain_words * sizeof(unsigned), cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t other;
  check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");

  const scan_buffers<std::int32_t> buffers(28, stream);
  const std::size_t n     = buffers.n;
  std::int32_t* const in  = buffers.in;
  std::int32_t* const out = buffers.out;
  single_block_allocator alloc((n / 8192 + 1) * 32 + (1 << 20));
  auto policy = thrust::cuda::par_nosync(alloc).on(stream);
  spscan::inclusive_scan(policy, in, in + n, out); // warm-up

  auto report = [](const char* what, std::vector<double> v) {
    const percentiles p = of(v);
    std::printf("  %-40s %7.0f %7.0f %7.0f\n", what, p.p10, p.p50, p.p90);
  };
  std::printf("\nround trip of a dependent ld.relaxed.gpu of an L2-resident word (ns per read, over groups of %d):\n"
              "  %-40s %7s %7s %7s\n",
              probe_stride, "while", "p10", "p50", "p90");
  report("nothing else runs", round_trips(chain, stream, other, [] {}));
  report("a device copy of 2^28 int32 streams", round_trips(chain, stream, other, [&] {
           check(cudaMemcpyAsync(out, in, n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, stream), "copy");
         }));
  report("spscan scans 2^28 int32", round_trips(chain, stream, other, [&] {
           spscan::inclusive_scan(policy, in, in + n, out);
         }));
  cudaFree(chain);
  cudaStreamDestroy(other);
}


// The ring engine (ring/ring_driver.h), tile by tile: the trace hook's six stages are there the
// producer's id, the reduce squad finding the tile loaded, its aggregate published, the prefix
// warp's prefix, the scan squad's start and its first thread's end. A CTA reuses a stage every
// `stages` tiles, so the wait of the producer for a stage shows whether the ring ran full.
template <class Program>
void ring_trace_case(const char* name, int log2n, const typename Program::params& params, std::size_t n, const void* in,
                     void* out, spscan::detail::ring::ring_options options, double roofline_ms, cudaStream_t stream,
                     const std::string& csv_dir)
{
  namespace sd              = spscan::detail;
  const std::size_t tiles   = (n + Program::tuning::tile_items - 1) / Program::tuning::tile_items;
  single_block_allocator alloc(tiles * 32 + (1 << 20) + n / 4); // room for a by-key scan's heads (n / 8 bytes)
  auto policy               = thrust::cuda::par_nosync(alloc).on(stream);
  bool ran                  = true;
  auto run                  = [&] { ran = sd::ring::launch_ring<Program>(policy, params, n, in, out, &options) && ran; };
  const trace_capture captured = capture_trace(tiles, stream, run, 30);
  if (!ran)
  {
    std::printf("\nring %s 2^%d: the ring declined the launch\n", name, log2n);
    return;
  }
  const std::vector<unsigned long long>& t = captured.records;
  const double plain_ms                    = captured.plain_ms;
  const double traced_ms                   = captured.traced_ms;
  // The last tile, if partial, runs the classic way and records only some stages: left out.
  const std::size_t traced = n % Program::tuning::tile_items == 0 ? tiles : tiles - 1;
  const trace_span span           = span_of(t, traced);
  const unsigned long long origin = span.origin;
  const unsigned long long end    = span.end;
  auto at = [&](std::size_t i, int stage) { return double(t[i * 8 + stage] - origin) * 1e-3; }; // us
  std::vector<double> load, reduce, prefix, prefix_after_aggregate, scan_queue, scan, life, stage_wait, interval;
  std::vector<std::vector<std::size_t>> by_cta;
  for (std::size_t i = 0; i < traced; ++i)
  {
    load.push_back(at(i, 1) - at(i, 0));
    reduce.push_back(at(i, 2) - at(i, 1));
    prefix.push_back(at(i, 3) - at(i, 0));
    prefix_after_aggregate.push_back(at(i, 3) - at(i, 2));
    scan_queue.push_back(at(i, 4) - std::max(at(i, 2), at(i, 3)));
    scan.push_back(at(i, 5) - at(i, 4));
    life.push_back(at(i, 5) - at(i, 0));
    const std::size_t cta = t[i * 8 + 6];
    if (cta >= by_cta.size())
    {
      by_cta.resize(cta + 1);
    }
    by_cta[cta].push_back(i); // ids rise with time within a CTA
  }
  for (const auto& mine : by_cta)
  {
    for (std::size_t k = 1; k < mine.size(); ++k)
    {
      interval.push_back(at(mine[k], 0) - at(mine[k - 1], 0));
      if (k >= static_cast<std::size_t>(options.stages))
      {
        stage_wait.push_back(at(mine[k], 0) - at(mine[k - options.stages], 5));
      }
    }
  }
  std::printf("\nring %s 2^%d (%d stages): %zu tiles; roofline %.4f ms; plain %.4f ms (%.3f), traced %.4f ms (%.3f); "
              "span %.1f us\n",
              name, log2n, options.stages, tiles, roofline_ms, plain_ms, roofline_ms / plain_ms, traced_ms,
              roofline_ms / traced_ms, double(end - origin) * 1e-3);
  std::printf("  %-52s %8s %8s %8s  (us)\n", "stage", "p10", "p50", "p90");
  const auto line = [](const char* what, const std::vector<double>& v) { print_stage(52, what, v); };
  line("id -> loaded, seen by the reduce squad", load);
  line("loaded -> aggregate published", reduce);
  line("id -> prefix found", prefix);
  line("aggregate -> prefix found", prefix_after_aggregate);
  line("later of aggregate and prefix -> scan squad starts", scan_queue);
  line("scan squad starts -> its first thread done", scan);
  line("lifetime (id -> done)", life);
  line("stage's previous tile done -> next id (< 0: ring full)", stage_wait);
  line("between a CTA's consecutive ids", interval);
  if (!csv_dir.empty())
  {
    write_trace_csv(csv_dir + "/ring-" + name + "-" + std::to_string(log2n) + ".csv",
                    "tile,cta,sm,id,loaded,aggregate,prefix,scan_start,done", t, traced, origin, true);
  }
}

template <class T>
struct type_tag
{
  using type = T;
};

template <class Tuning>
using by_key_uint32 = spscan::detail::scan_by_key_program<Tuning, const std::uint32_t*, const std::uint32_t*, std::uint32_t*, std::uint32_t,
                                                          thrust::equal_to<std::uint32_t>, thrust::plus<std::uint32_t>, false>;

// A ring program as the library's, with two prefix warps taking turns (ring/ring_driver.h).
template <class Program>
struct with_two_prefix_warps : Program
{
  static constexpr int ring_prefix_warps = 2;
};

void ring_section(cudaStream_t stream, const std::string& csv_dir)
{
  namespace sd = spscan::detail;
  for (const int log2n : {24, 28})
  {
    const std::size_t n = std::size_t{1} << log2n;
    std::uint32_t *in = nullptr, *out = nullptr;
    std::uint64_t* total = nullptr;
    check(cudaMalloc(&in, n * sizeof(std::uint32_t)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(std::uint32_t)), "cudaMalloc");
    check(cudaMalloc(&total, sizeof(std::uint64_t)), "cudaMalloc");
    bench::fill_hashed<<<1024, 256, 0, stream>>>(in, n, 77);
    check(cudaGetLastError(), "fill");
    const auto copy_ms = [&](std::size_t bytes) {
      return median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream), "copy"); }, 30);
    };
    {
      using program = sd::scan_program_for<sd::scan_kind::inclusive, std::uint32_t, traced<sd::scan_tuning<std::uint32_t, std::uint32_t, std::uint32_t>>,
                                           const std::uint32_t*, std::uint32_t*, thrust::plus<std::uint32_t>>;
      const auto params  = sd::make_scan_params<sd::scan_kind::inclusive, std::uint32_t>(static_cast<const std::uint32_t*>(in), n, out,
                                                                                         thrust::plus<std::uint32_t>{}, 0u);
      const auto options = sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>());
      ring_trace_case<program>("scan uint32", log2n, params, n, in, out, options, copy_ms(n * 4), stream, csv_dir);
    }
    for (const unsigned percent : {1u, 50u})
    {
      using pred_type = bench::below_permille<std::uint32_t>;
      using program   = sd::select_program_for<false, traced<sd::select_tuning<std::uint32_t>>, std::uint32_t*, sd::no_stencil,
                                               std::uint32_t*, std::uint32_t*, pred_type>;
      const pred_type pred{percent * 10};
      const typename program::params params{in, sd::no_stencil{}, out, out, n, pred, total, true};
      const auto device = sd::ring::current_ring_device<program>();
      const double roofline = copy_ms(n * 4 * (100 + percent) / 200);
      const std::string name = "select uint32 " + std::to_string(percent) + "%";
      ring_trace_case<program>(name.c_str(), log2n, params, n, in, nullptr, sd::ring::default_ring_options<program>(device), roofline, stream,
                               csv_dir);
      // Half the tile (16 per thread, 16 KiB), twice the stages: whether the ring's depth holds it.
      using small_tiles = sd::select_program_for<false, traced<sd::tile_shape<4, 64, 5>>, std::uint32_t*, sd::no_stencil,
                                                 std::uint32_t*, std::uint32_t*, pred_type>;
      const typename small_tiles::params small_params{in, sd::no_stencil{}, out, out, n, pred, total, true};
      const auto small_device = sd::ring::current_ring_device<small_tiles>();
      ring_trace_case<small_tiles>((name + " 16 KiB tiles").c_str(), log2n, small_params, n, in, nullptr,
                                   sd::ring::default_ring_options<small_tiles>(small_device), roofline, stream, csv_dir);
    }
    // The by-key scan (uint32 keys and values), one segment, at its own tile shape and at half of it
    // (16 KiB of values and 16 KiB of keys a stage, twice the stages): whether the ring's depth holds
    // it; and with two prefix warps taking turns: whether reading a tile's gap while the other warp
    // folds shortens the prefix warps' time a tile.
    {
      std::uint32_t* keys = nullptr;
      check(cudaMalloc(&keys, n * sizeof(std::uint32_t)), "cudaMalloc");
      check(cudaMemsetAsync(keys, 0, n * sizeof(std::uint32_t), stream), "memset");
      const double roofline = copy_ms(n * 4) * 1.5; // keys and values read, values written: 12 bytes an element
      const auto by_key = [&](auto tag, const char* name) {
        using program = typename decltype(tag)::type;
        const typename program::params params{keys, in, out, n, {}, {}, 0u, nullptr, true, true};
        ring_trace_case<program>(name, log2n, params, n, in, out, sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()),
                                 roofline, stream, csv_dir);
      };
      using library_shape = by_key_uint32<traced<sd::scan_by_key_tuning<std::uint32_t>>>;
      by_key(type_tag<library_shape>{}, "by-key uint32, one segment");
      by_key(type_tag<by_key_uint32<traced<sd::tile_shape<4, 64, 3>>>>{}, "by-key uint32, one segment, 16 KiB tiles");
      by_key(type_tag<with_two_prefix_warps<library_shape>>{}, "by-key uint32, one segment, two prefix warps");
      cudaFree(keys);
    }
    cudaFree(in);
    cudaFree(out);
    cudaFree(total);
  }
}

// 8-byte scans on the ring: doubles in the library's 64 KiB tile (3 stages), with one prefix warp
// and with two taking turns, against doubles in 32 KiB tiles (6 stages, another association, so
// not the library's bits: what the smaller tile alone would give) and int64 (exact: 32 KiB tiles).
// Each tile's prefix waits for a chain of steps through its gap's aggregates where the operator
// is folded in order (doubles), and for trees where it is exact (int64).
void ring_eight_byte_section(cudaStream_t stream, const std::string& csv_dir)
{
  namespace sd = spscan::detail;
  for (const int log2n : {26, 28})
  {
    const std::size_t n = std::size_t{1} << log2n;
    void *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, n * 8), "cudaMalloc");
    check(cudaMalloc(&out, n * 8), "cudaMalloc");
    const double copy_ms =
      median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * 8, cudaMemcpyDeviceToDevice, stream), "copy"); }, 30);
    const auto trace_double = [&](auto tag, const char* name) {
      using program = typename decltype(tag)::type;
      auto* d_in    = static_cast<const double*>(in);
      auto* d_out   = static_cast<double*>(out);
      const auto params = sd::make_scan_params<sd::scan_kind::inclusive, double>(d_in, n, d_out, thrust::plus<double>{}, 0.0);
      ring_trace_case<program>(name, log2n, params, n, in, out, sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()),
                               copy_ms, stream, csv_dir);
    };
    bench::fill_random<<<1024, 256, 0, stream>>>(static_cast<double*>(in), n, 91);
    check(cudaGetLastError(), "fill");
    using library_shape =
      sd::scan_program_for<sd::scan_kind::inclusive, double, traced<sd::scan_tuning<double, double, double>>, const double*, double*,
                           thrust::plus<double>>;
    trace_double(type_tag<library_shape>{}, "scan double, 64 KiB tiles");
    trace_double(type_tag<with_two_prefix_warps<library_shape>>{}, "scan double, 64 KiB tiles, two prefix warps");
    trace_double(type_tag<sd::scan_program_for<sd::scan_kind::inclusive, double, traced<sd::reduced_scan_tuning<double, double, double>>,
                                               const double*, double*, thrust::plus<double>>>{},
                 "scan double, 32 KiB tiles");
    bench::fill_random<<<1024, 256, 0, stream>>>(static_cast<std::int64_t*>(in), n, 91);
    check(cudaGetLastError(), "fill");
    {
      using program = sd::scan_program_for<sd::scan_kind::inclusive, std::int64_t, traced<sd::reduced_scan_tuning<std::int64_t, std::int64_t, std::int64_t>>,
                                           const std::int64_t*, std::int64_t*, thrust::plus<std::int64_t>>;
      const auto params = sd::make_scan_params<sd::scan_kind::inclusive, std::int64_t>(static_cast<const std::int64_t*>(in), n,
                                                                                       static_cast<std::int64_t*>(out), thrust::plus<std::int64_t>{},
                                                                                       std::int64_t{0});
      ring_trace_case<program>("scan int64, 32 KiB tiles", log2n, params, n, in, out,
                               sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()), copy_ms, stream, csv_dir);
    }
    cudaFree(in);
    cudaFree(out);
  }
}

// Keys of segments `1 << shift` long (shift 0..): key i is i >> shift.
__global__ void fill_run_keys(int* keys, std::size_t n, int shift)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    keys[i] = static_cast<int>(i >> shift);
  }
}

// By-key scans of double values by int keys on the ring: the library's shape from 8 MiB (32 KiB
// value tiles under the blocked association, the prefix warp's trees one window at a time) with
// one segment and with segments of 8, beside the shape before it (64 KiB value tiles folded in
// order, behind the segment-head pass); the trace says whether the bound is the prefix warp (id ->
// prefix) or the tile's own work.
void ring_by_key_double_section(cudaStream_t stream, const std::string& csv_dir)
{
  namespace sd = spscan::detail;
  for (const int log2n : {26, 28})
  {
    const std::size_t n = std::size_t{1} << log2n;
    int* keys           = nullptr;
    double *in = nullptr, *out = nullptr;
    check(cudaMalloc(&keys, n * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&in, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(double)), "cudaMalloc");
    bench::fill_random<<<1024, 256, 0, stream>>>(in, n, 95);
    check(cudaGetLastError(), "fill");
    // Keys and values read, values written: 20 bytes an element, a copy of 16 scaled by 20 / 16.
    const double roofline =
      median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * 8, cudaMemcpyDeviceToDevice, stream), "copy"); }, 30) * 1.25;
    const auto by_key = [&](auto tag, const char* name) {
      using program = typename decltype(tag)::type;
      const typename program::params params{keys, in, out, n, {}, {}, 0.0, nullptr, true, true};
      ring_trace_case<program>(name, log2n, params, n, in, out, sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()),
                               roofline, stream, csv_dir);
    };
    using blocked_shape = sd::scan_by_key_program<traced<sd::blocked_scan_by_key_tuning<double>>, const int*, const double*, double*, double,
                                                  thrust::equal_to<int>, thrust::plus<double>, false>;
    using folded_shape  = sd::scan_by_key_program<traced<sd::scan_by_key_tuning<double>>, const int*, const double*, double*, double,
                                                  thrust::equal_to<int>, thrust::plus<double>, false>;
    for (const int shift : {-1, 3})
    {
      if (shift < 0)
      {
        check(cudaMemsetAsync(keys, 0, n * sizeof(int), stream), "memset");
      }
      else
      {
        fill_run_keys<<<1024, 256, 0, stream>>>(keys, n, shift);
        check(cudaGetLastError(), "fill keys");
      }
      const std::string segments = shift < 0 ? "one-segment" : "segments-of-8";
      by_key(type_tag<blocked_shape>{}, ("by-key-double-blocked-32KiB-" + segments).c_str());
      by_key(type_tag<folded_shape>{}, ("by-key-double-in-order-64KiB-" + segments).c_str());
    }
    cudaFree(keys);
    cudaFree(in);
    cudaFree(out);
  }
}

// Goal 2's cells: scans of every 1-, 2- and 4-byte type at 2^26 on the ring (64 MiB of int8: ~15
// tiles a CTA, so the ring's start and drain weigh), and at 2^28 for the steady state beside them.
// The CSVs say when each CTA's first tile was loaded and its last one stored
// (docs/design.md#a-calls-fixed-cost).
template <class T, bool TwoPrefixWarps = false>
void ring_narrow_case(const char* name, int log2n, cudaStream_t stream, const std::string& csv_dir)
{
  namespace sd        = spscan::detail;
  const std::size_t n = std::size_t{1} << log2n;
  T *in = nullptr, *out = nullptr;
  check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
  bench::fill_random<<<1024, 256, 0, stream>>>(in, n, 93);
  check(cudaGetLastError(), "fill");
  const double copy_ms =
    median_ms(stream, [&] { check(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy"); }, 30);
  using library_shape = sd::scan_program_for<sd::scan_kind::inclusive, T, traced<sd::scan_tuning<T, T, T>>, const T*, T*, thrust::plus<T>>;
  using program = ::cuda::std::conditional_t<TwoPrefixWarps, with_two_prefix_warps<library_shape>, library_shape>;
  const auto params = sd::make_scan_params<sd::scan_kind::inclusive, T>(static_cast<const T*>(in), n, out, thrust::plus<T>{}, T{});
  ring_trace_case<program>(name, log2n, params, n, in, out, sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()),
                           copy_ms, stream, csv_dir);
  cudaFree(in);
  cudaFree(out);
}

void ring_narrow_section(cudaStream_t stream, const std::string& csv_dir)
{
  for (const int log2n : {26, 28})
  {
    ring_narrow_case<std::int8_t>("scan int8", log2n, stream, csv_dir);
    ring_narrow_case<std::int16_t>("scan int16", log2n, stream, csv_dir);
    ring_narrow_case<std::int32_t>("scan int32", log2n, stream, csv_dir);
    ring_narrow_case<float>("scan float", log2n, stream, csv_dir);
  }
}

// Goal 3's ring cells: scans at 2^22, 2^24 and 2^26 (about 4, 16 and 64 tiles of 32 KiB a CTA
// for int32), int8 at four times the elements; the exact ones also with two prefix warps taking
// turns (two lost at every size: docs/design.md#the-prefix-warp).
void ring_mid_section(cudaStream_t stream, const std::string& csv_dir)
{
  for (const int log2n : {22, 24, 26})
  {
    ring_narrow_case<std::int32_t>("scan int32", log2n, stream, csv_dir);
    ring_narrow_case<std::int32_t, true>("scan int32, two prefix warps", log2n, stream, csv_dir);
    ring_narrow_case<float>("scan float", log2n, stream, csv_dir);
    ring_narrow_case<double>("scan double", log2n, stream, csv_dir);
    ring_narrow_case<std::int64_t>("scan int64", log2n, stream, csv_dir);
    ring_narrow_case<std::int64_t, true>("scan int64, two prefix warps", log2n, stream, csv_dir);
    ring_narrow_case<std::int8_t>("scan int8", log2n + 2, stream, csv_dir);
    ring_narrow_case<std::int8_t, true>("scan int8, two prefix warps", log2n + 2, stream, csv_dir);
  }
}

// A generated input on the ring (a counting_iterator: no reads, the reduce squad computes each
// tile), against a memset of the output: the library's 32 KiB tiles, the same with two prefix
// warps, and 64 KiB tiles (an exact operator: any tile gives the same bits). A write-only tile
// passes in half the time of a read one, so the prefix warp has half the time for its gap.
void ring_generated_section(cudaStream_t stream, const std::string& csv_dir)
{
  namespace sd = spscan::detail;
  using counting = thrust::counting_iterator<int>;
  for (const int log2n : {26, 28})
  {
    const std::size_t n = std::size_t{1} << log2n;
    int* out            = nullptr;
    check(cudaMalloc(&out, n * sizeof(int)), "cudaMalloc");
    const double memset_ms =
      median_ms(stream, [&] { check(cudaMemsetAsync(out, 1, n * sizeof(int), stream), "memset"); }, 30);
    const auto params = sd::make_scan_params<sd::scan_kind::inclusive, int>(counting(0), n, out, thrust::plus<int>{}, 0);
    const auto trace_counting = [&](auto tag, const char* name) {
      using program = typename decltype(tag)::type;
      ring_trace_case<program>(name, log2n, params, n, nullptr, out,
                               sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>()), memset_ms, stream,
                               csv_dir);
    };
    using library_shape =
      sd::scan_program_for<sd::scan_kind::inclusive, int, traced<sd::scan_tuning<int, int, int>>, counting, int*, thrust::plus<int>>;
    trace_counting(type_tag<library_shape>{}, "counting int32");
    trace_counting(type_tag<with_two_prefix_warps<library_shape>>{}, "counting int32, two prefix warps");
    trace_counting(type_tag<sd::scan_program_for<sd::scan_kind::inclusive, int, traced<sd::tile_shape<4, 256, 5>>, counting, int*,
                                                 thrust::plus<int>>>{},
                   "counting int32, 64 KiB tiles");
    cudaFree(out);
  }
}

} // namespace

int main(int argc, char** argv)
{
  std::string csv_dir;
  std::string only; // one section: trace, ring, ring8, ring26, ring22, ringbk8, ringgen, small, latency, depth, fold, shape or mid
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if ((arg == "--csv-dir" || arg == "--only") && i + 1 < argc)
    {
      (arg == "--csv-dir" ? csv_dir : only) = argv[++i];
    }
    else
    {
      std::fprintf(stderr, "usage: scan_timeline [--csv-dir DIR] [--only trace|ring|ring8|ring26|ring22|ringbk8|ringgen|small|latency|depth|fold|shape|mid]\n");
      return 2;
    }
  }
  auto section = [&](const char* name) { return only.empty() || only == name; };
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  if (section("trace"))
  {
    run_case<std::int32_t>("int32", 28, stream, csv_dir);
    run_case<std::int32_t>("int32", 24, stream, csv_dir);
    run_case<std::int64_t>("int64", 28, stream, csv_dir);
    run_case<std::int8_t>("int8", 30, stream, csv_dir);
  }
  if (section("ring"))
  {
    ring_section(stream, csv_dir);
  }
  if (section("ring8"))
  {
    ring_eight_byte_section(stream, csv_dir);
  }
  if (section("ring26"))
  {
    ring_narrow_section(stream, csv_dir);
  }
  if (section("ringbk8"))
  {
    ring_by_key_double_section(stream, csv_dir);
  }
  if (section("ring22"))
  {
    ring_mid_section(stream, csv_dir);
  }
  if (section("ringgen"))
  {
    ring_generated_section(stream, csv_dir);
  }
  if (section("mid"))
  {
    std::printf("\nmid sizes: tile shapes and look-back depth against the library and CUB, against copy:\n");
    for (int log2n : {20, 22, 24, 26})
    {
      mid_size_sweep<std::int32_t>("int32", log2n, stream);
      mid_size_sweep<float>("float", log2n, stream);
      mid_size_sweep<std::int64_t>("int64", log2n, stream);
      mid_size_sweep<double>("double", log2n, stream);
      mid_size_sweep<std::int16_t>("int16", log2n, stream);
      mid_size_sweep<std::int8_t>("int8", log2n, stream);
    }
  }
  if (section("small"))
  {
    std::printf("\nsmall sizes (exact types: every shape gives the same bits; floats: each shape its own association):"
                " tile shapes against the library and CUB, against copy:\n");
    for (int log2n : {14, 16, 18, 20})
    {
      mid_size_sweep<std::int32_t>("int32", log2n, stream);
      mid_size_sweep<std::int64_t>("int64", log2n, stream);
      mid_size_sweep<float>("float", log2n, stream);
      mid_size_sweep<double>("double", log2n, stream);
    }
    for (int log2n : {16, 18, 20, 22})
    {
      mid_size_sweep<std::int16_t>("int16", log2n, stream);
      mid_size_sweep<std::int8_t>("int8", log2n, stream);
    }
  }
  if (section("latency"))
  {
    latency_probe(stream);
  }
  if (section("depth"))
  {
    std::printf("\nlook-back depth (windows of 32 tiles per read), scan against copy:\n");
    for_sweep_cases([&](auto type, const char* name, int log2n) { depth_sweep<decltype(type)>(name, log2n, stream); });
  }
  if (section("fold"))
  {
    std::printf("\nreproducibility's cost: the left fold against a timing-dependent tree fold"
                " (-1: not checked):\n");
    for (int log2n : {16, 20, 22, 24, 26, 28, 30})
    {
      fold_ablation<float>("float", log2n, stream);
    }
    for (int log2n : {16, 20, 22, 24, 26, 28})
    {
      fold_ablation<double>("double", log2n, stream);
    }
  }
  if (section("shape"))
  {
    std::printf("\ntile shape (bytes of the element type per data thread), scan against copy:\n");
    for_sweep_cases([&](auto type, const char* name, int log2n) { shape_sweep<decltype(type)>(name, log2n, stream); });
  }
  return 0;
}

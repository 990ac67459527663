// anchor_scan_bench: CUB's device-wide inclusive sum from the newest CCCL (3.5) beside a
// device-to-device copy, measured back to back in one process on the default stream. It is built
// against those headers alone, without spscan: its numbers are the anchor that spscan's are read
// against.
//
// For each element type and size (2^10 .. 2^30, step 4x) it times with CUDA events, 3 warm-ups
// then the median of 200 reps (30 reps at 2^24 elements and above); each rep is timed on its own
// (event, call, event, wait), so small sizes show the cost of one call, launch included:
//   copy           cudaMemcpyAsync device to device of n * sizeof(T) bytes: the physical limit,
//                  since a scan reads n elements and writes n;
//   cub_default    cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, in, out, n), temporary storage
//                  queried and allocated once before timing: whichever algorithm CUB picks on this
//                  GPU by itself (the header line names it; on sm_90 CUB 3.5 keeps its decoupled
//                  look-back scan, its lookahead scan being its default from sm_100 on);
//   cub_lookahead  CUB's lookahead scan kernel, forced through its public tuning API:
//                  cub::DeviceScan::InclusiveSum(in, out, n, env), where env holds
//                  cuda::execution::tune(forced_lookahead<T>{}), a policy selector that returns a
//                  cub::ScanPolicy with algorithm = cub::ScanAlgorithm::lookahead whatever the
//                  architecture, and a memory resource for the temporary storage (below).
// Ratio = copy time / scan time (1.0 = copy speed).
//
// The lookahead shape (cub::ScanLookaheadPolicy) is the one CUB's own policy selector returns for
// T's sum on sm_100 (a B200), where the lookahead kernel is CUB's default and its shapes are tuned
// per input size (cub/device/dispatch/tuning/tuning_scan.cuh): the strongest form of the kernel
// CUB ships. On sm_90 CUB runs that kernel only for run-to-run deterministic float sums, with its
// generic sm_100 shape (4 warps, 256 / sizeof(accumulator) - 1 items per thread), which measured
// slower here on every 8-byte and 4-byte integer case (H200, 2026-11-23: int64 2^28 0.69 of copy).
// The header line prints the shape per type.
//
// Temporary storage of the forced lookahead scan: the environment overloads take no (d_temp,
// temp_bytes); they ask the environment's memory resource (cuda::mr::get_memory_resource) for it
// and hand it back inside every call (cudaMallocAsync / cudaFreeAsync when the environment names
// none). The environment therefore carries preallocated_buffer, a resource that hands out one
// device buffer allocated before timing and frees nothing, so nothing is allocated inside the
// timed loop. Its size is queried through the same environment: a first call through a resource
// without a buffer records the size CUB asks for and refuses it, which CUB reports as
// cudaErrorMemoryAllocation before it launches anything. Both CUB columns still pay CUB's own
// host-side work per call (the lookahead dispatch also sets the kernel's shared-memory limit on
// each call); at small sizes that is part of what a call costs.
//
// Accumulators: InclusiveSum adds with cuda::std::plus<>, so its accumulator is C++'s type of
// a + b: int for int8 and int16, T otherwise; outputs are stored as T, so every output equals the
// wrap-around sum of the inputs in T itself.
//
// Checks, outside the timed loops, once per type, size and CUB column, the output poisoned first
// (so a kernel that writes nothing cannot pass), against a sequential host reference computed
// from the same inputs: integers bit for bit (inputs 1..8 from a hash of the index, never 0);
// float and double with inputs that are multiples of 1/256 in [-0.5, 0.5), so sums in any order
// are exact while they stay below 2^15 in magnitude (then the results must be exact); float sums of
// 2^26 elements and more round in every order, and are held to 1e-4 of the largest result.
//
// If the forced lookahead kernel cannot run here (a GPU or a PTX target below sm_90, where CUB has
// no lookahead kernel body; a toolkit whose PTX ISA is below 8.6, where CUB does not compile it;
// or CUB returning an error for the call), its column reads n/a and the row says why; that is not
// a failure. A kernel that does not fit CUB's 48 KiB single-stage shared-memory bound is rejected
// by CUB at compile time instead (none of the shapes above comes near it).
//
// Build from the repository root (sm_90; the -I puts CCCL 3.5's cub/, thrust/ and cuda/ before the
// toolkit's own), or through the anchor_scan_bench target of bench/CMakeLists.txt:
//   source scripts/env.sh
//   nvcc -O3 -std=c++17 -arch=sm_90 -I build/toolchains/cccl-3.5/include bench/anchor_scan_bench.cu -o build/anchor_scan_bench
//
// CSV (--csv): type,log2n,copy_ms,cub_default_ms,cub_lookahead_ms,ratio_default,ratio_lookahead,
// check (n/a where the lookahead column is).
//
// Options: --csv PATH  --types int8,int16,int32,float,int64,double  --min-log2 N  --max-log2 N
//          --quick (20 / 5 reps, for smoke runs)
// Exit status: 0 when every check passed, 1 on a mismatch or any CUDA error.

#include <cub/device/device_scan.cuh>
#include <cub/util_device.cuh>
#include <cub/version.cuh>

#include <cuda/devices>
#include <cuda/execution>
#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/std/functional>
#include <cuda/stream_ref>
#include <cuda/version>

#include <cuda_runtime.h>

// The name error messages start with (bench_support.h).
static const char* const bench_name = "anchor_scan_bench";
#include "bench_support.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// CUB compiles its lookahead kernel only with PTX ISA 8.6 (CUDA 12.8) and newer; below that the
// forced column cannot even be instantiated, so it is left out and reads n/a.
#if defined(__cccl_ptx_isa) && __cccl_ptx_isa >= 860ULL \
  && (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1208)
#  define ANCHOR_HAS_LOOKAHEAD 1
#else
#  define ANCHOR_HAS_LOOKAHEAD 0
#endif

namespace
{

using bench::check_cuda; // CHECK_CUDA's function (bench_support.h)
using bench::fail;

// ---------------------------------------------------------------------------------------------
// Memory

// Page-locked staging for the checks: outputs come back in slices, so the host holds no copy of a
// whole 8 GB array, and at full PCIe speed.
class pinned_buffer
{
public:
  explicit pinned_buffer(std::size_t bytes)
      : bytes_(bytes)
  {
    CHECK_CUDA(cudaMallocHost(&data_, bytes_));
  }
  ~pinned_buffer()
  {
    cudaFreeHost(data_);
  }
  pinned_buffer(const pinned_buffer&)            = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  template <class T>
  T* as() const
  {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const
  {
    return bytes_;
  }

private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// A memory resource over one device buffer allocated before timing (see the header comment). CUB
// copies the resource it finds in the environment, so the record of the largest request sits
// behind a pointer that every copy shares.
struct preallocated_buffer
{
  void* base                   = nullptr;
  std::size_t capacity         = 0;
  std::size_t* largest_request = nullptr;

  void* allocate(cuda::stream_ref, std::size_t bytes, std::size_t alignment)
  {
    return take(bytes, alignment);
  }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t alignment)
  {
    return take(bytes, alignment);
  }
  void deallocate_sync(void*, std::size_t, std::size_t) noexcept {}

  friend bool operator==(const preallocated_buffer& a, const preallocated_buffer& b) noexcept
  {
    return a.base == b.base && a.capacity == b.capacity;
  }
  friend bool operator!=(const preallocated_buffer& a, const preallocated_buffer& b) noexcept
  {
    return !(a == b);
  }

  void* take(std::size_t bytes, std::size_t alignment)
  {
    if (largest_request)
    {
      *largest_request = std::max(*largest_request, bytes);
    }
    // cudaMalloc's buffers are 256-byte aligned; CUB asks for alignof(max_align_t).
    if (base == nullptr || bytes > capacity || reinterpret_cast<std::uintptr_t>(base) % alignment != 0)
    {
      throw std::bad_alloc();
    }
    return base;
  }
};

// ---------------------------------------------------------------------------------------------
// The forced lookahead policy

// The accumulator InclusiveSum uses: cuda::std::plus<> of two T.
template <class T>
using sum_accum_t = std::decay_t<decltype(std::declval<T>() + std::declval<T>())>;

// CUB's own policy for T's sum on a compute capability: its selector (tuning_scan.cuh), asked
// directly. StableReductionOrder: the selector of its run-to-run deterministic float sums.
template <class T, bool StableReductionOrder>
__host__ __device__ constexpr cub::ScanPolicy cub_own_policy(cuda::compute_capability cc)
{
  using selector = cub::detail::scan::policy_selector_from_types<const T*,
                                                                 T*,
                                                                 sum_accum_t<T>,
                                                                 cub::detail::choose_offset_t<int>,
                                                                 cuda::std::plus<>,
                                                                 StableReductionOrder>;
  return selector{}(cc);
}

// The lookahead shape: the one CUB runs T's sum with on a B200 (sm_100), where the lookahead
// kernel is CUB's default and its shapes are tuned per input size; the strongest form of the
// kernel CUB ships. Where CUB would not pick lookahead there, its generic sm_100 shape.
template <class T>
__host__ __device__ constexpr cub::ScanLookaheadPolicy lookahead_shape()
{
  const cub::ScanPolicy on_b200 = cub_own_policy<T, false>(cuda::compute_capability{10, 0});
  if (on_b200.algorithm == cub::ScanAlgorithm::lookahead)
  {
    return on_b200.lookahead;
  }
  constexpr int input_size = int{sizeof(T)};
  constexpr int accum_size = int{sizeof(sum_accum_t<T>)};
  constexpr int items      = 256 / (input_size == 2 ? 2 : accum_size) - 1;
  cub::ScanLookaheadPolicy shape{};
  shape.reduce_and_scan_warps      = 4;
  shape.items_per_thread           = items > 1 ? items : 1;
  shape.lookahead_items_per_thread = accum_size == 2 ? 3 : 4;
  return shape; // lookahead_stages = 2, block_idx_stages = -1: the struct's defaults
}

// The policy selector put in the environment. It answers lookahead for every compute capability
// (CUB's own selector falls back to its look-back scan wherever it decides lookahead does not
// pay); the look-back half of the policy is never read on that path. Stateless, as
// cuda::execution::tune requires: the shape comes from the type.
template <class T>
struct forced_lookahead
{
  __host__ __device__ constexpr cub::ScanPolicy operator()(cuda::compute_capability) const
  {
    return cub::ScanPolicy{cub::ScanAlgorithm::lookahead, cub::ScanLookbackPolicy{}, lookahead_shape<T>()};
  }
};

template <class T>
auto lookahead_env(preallocated_buffer resource)
{
  return cuda::std::execution::env{cuda::execution::tune(forced_lookahead<T>{}),
                                   cuda::std::execution::prop{cuda::mr::get_memory_resource, resource}};
}

// ---------------------------------------------------------------------------------------------
// Inputs and the host reference

__host__ __device__ inline std::uint64_t mix(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Integers 1..8 (never 0: a skipped or doubled element always shows); floats (k - 128) / 256.
template <class T>
__host__ __device__ inline T input_at(std::uint64_t i)
{
  const std::uint64_t h = mix(i);
  if constexpr (std::is_integral_v<T>)
  {
    return static_cast<T>(1 + (h >> 61));
  }
  else
  {
    return static_cast<T>(static_cast<double>(static_cast<int>(h >> 56) - 128) / 256.0);
  }
}

template <class T>
__global__ void fill_inputs(T* in, std::size_t n)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    in[i] = input_at<T>(i);
  }
}

struct check_outcome
{
  bool passed                  = true;
  unsigned long long differing = 0; // elements not equal to the reference (floats: at all)
  unsigned long long first     = 0; // the first of them
  double got                   = 0;
  double expected              = 0;
  double relative_diff         = 0; // floats: largest |difference| / largest |result|
};

// Brings d_out back slice by slice and walks the sequential sum beside it. Integers accumulate in
// 64-bit unsigned arithmetic and compare the low bits: the wrap-around sum in T.
template <class T>
check_outcome check_against_host(const T* d_out, std::size_t n, const pinned_buffer& staging)
{
  check_outcome outcome;
  const std::size_t slice = staging.bytes() / sizeof(T);
  const T* host           = staging.as<T>();
  std::uint64_t int_sum   = 0;
  double float_sum        = 0;
  double max_diff         = 0;
  double max_result       = 0;
  bool saw_nan            = false;
  for (std::size_t begin = 0; begin < n; begin += slice)
  {
    const std::size_t count = std::min(slice, n - begin);
    CHECK_CUDA(cudaMemcpy(staging.as<T>(), d_out + begin, count * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t k = 0; k < count; ++k)
    {
      const std::size_t i = begin + k;
      const T value       = input_at<T>(i);
      bool differs        = false;
      double expected     = 0;
      if constexpr (std::is_integral_v<T>)
      {
        using bits_t = std::make_unsigned_t<T>;
        int_sum += static_cast<std::uint64_t>(value);
        differs  = static_cast<bits_t>(host[k]) != static_cast<bits_t>(int_sum);
        expected = static_cast<double>(static_cast<T>(static_cast<bits_t>(int_sum)));
      }
      else
      {
        float_sum += static_cast<double>(value);
        const double diff = std::fabs(static_cast<double>(host[k]) - float_sum);
        max_result        = std::max(max_result, std::fabs(float_sum));
        if (std::isnan(diff))
        {
          saw_nan = true;
        }
        else
        {
          max_diff = std::max(max_diff, diff);
        }
        differs  = !(diff == 0);
        expected = float_sum;
      }
      if (differs)
      {
        if (outcome.differing == 0)
        {
          outcome.first    = i;
          outcome.got      = static_cast<double>(host[k]);
          outcome.expected = expected;
        }
        ++outcome.differing;
      }
    }
  }
  if constexpr (std::is_integral_v<T>)
  {
    outcome.passed = outcome.differing == 0;
  }
  else
  {
    // Inputs are multiples of 2^-8, so every partial sum, in any association, is exact while the
    // sums stay below 2^15 in magnitude (float: 24 bits) or 2^44 (double): there the result must
    // equal the sequential sum exactly. Past that, float sums round in every association (and an
    // element lost or counted twice moves a sum by less than one ulp of it), so the check is a
    // relative bound of 1e-4 of the largest result, which only a gross error exceeds.
    const double exact_below = std::is_same_v<T, float> ? 0x1p15 : 0x1p44;
    outcome.relative_diff    = max_result > 0 ? max_diff / max_result : max_diff;
    outcome.passed = !saw_nan && (max_result < exact_below ? max_diff == 0 : outcome.relative_diff <= 1e-4);
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// One row

struct row
{
  std::string type;
  int log2n           = 0;
  double copy_ms      = 0;
  double default_ms   = 0;
  bool has_lookahead  = false;
  double lookahead_ms = 0;
  std::string not_run; // why the lookahead column reads n/a
  bool passed = true; // both CUB outputs equal the host reference
};

struct bench_context
{
  int sm_count    = 0;
  int ptx_version = 0; // the target CUB dispatches for on this GPU, e.g. 900
  std::string cub_tag; // "cub-3.5"
  bench::rep_plan plan{3, 200, 30}; // warm-ups, reps below 2^24 elements, reps from 2^24 on
  bench::event_timer timer;
  pinned_buffer staging{std::size_t{64} << 20};
};

// True when an input and an output of `bytes` each fit together in 40% of the free device memory.
bool fits_in_device(std::size_t bytes)
{
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return 2.0 * double(bytes) <= 0.4 * double(free_bytes);
}

template <class T>
void report_mismatch(const char* type_name, int log2n, const char* column, const check_outcome& c)
{
  std::printf("MISMATCH %s 2^%d %s: %llu elements differ, first at %llu: got %.17g, expected %.17g",
              type_name, log2n, column, c.differing, c.first, c.got, c.expected);
  if constexpr (!std::is_integral_v<T>)
  {
    std::printf("; largest difference relative to the largest result %.3g", c.relative_diff);
  }
  std::printf("\n");
}

// A CUB call that failed without launching leaves no error behind; one that failed in a launch may
// leave a sticky error, after which nothing on this device can be trusted.
void recover_from(const char* what)
{
  cudaGetLastError();
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess)
  {
    fail(std::string(what) + " left the device unusable: " + cudaGetErrorString(status));
  }
}

template <class T>
bool measure(bench_context& ctx, const char* type_name, int log2n, row& out_row)
{
  const std::size_t n     = std::size_t{1} << log2n;
  const std::size_t bytes = n * sizeof(T);
  if (!fits_in_device(bytes))
  {
    std::printf("%-6s 2^%-2d  skipped: in + out (%.1f GB) exceed 40%% of free device memory\n", type_name, log2n,
                2.0 * double(bytes) / 1e9);
    return false;
  }
  const int count = static_cast<int>(n); // n <= 2^30 fits CUB's 32-bit item count

  bench::device_array<T> input(n), output(n);
  const T* in = input.get();
  T* out      = output.get();
  const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, static_cast<std::size_t>(ctx.sm_count) * 8);
  fill_inputs<<<static_cast<unsigned>(blocks), 256>>>(input.get(), n);
  CHECK_CUDA(cudaGetLastError());

  row r;
  r.type  = type_name;
  r.log2n = log2n;
  const int reps = ctx.plan.reps_for(log2n);
  const int warm = ctx.plan.warmups;

  // CUB's default.
  std::size_t default_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, default_bytes, in, out, count));
  bench::device_array<unsigned char> default_temp(default_bytes);
  CHECK_CUDA(cudaMemsetAsync(out, 0xA5, bytes, nullptr));
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(default_temp.get(), default_bytes, in, out, count));
  CHECK_CUDA(cudaDeviceSynchronize());
  const check_outcome default_check = check_against_host(out, n, ctx.staging);
  if (!default_check.passed)
  {
    report_mismatch<T>(type_name, log2n, "default", default_check);
    r.passed = false;
  }

  // CUB's lookahead kernel, forced.
#if ANCHOR_HAS_LOOKAHEAD
  std::size_t lookahead_bytes = 0;
  std::unique_ptr<bench::device_array<unsigned char>> lookahead_temp;
  if (ctx.ptx_version < 900)
  {
    r.not_run = "no lookahead kernel below sm_90";
  }
  else
  {
    const cudaError_t probe = cub::DeviceScan::InclusiveSum(
      in, out, count, lookahead_env<T>(preallocated_buffer{nullptr, 0, &lookahead_bytes}));
    if (lookahead_bytes == 0)
    {
      recover_from("the lookahead probe");
      r.not_run = std::string("CUB: ") + cudaGetErrorString(probe);
    }
    else
    {
      lookahead_temp = std::make_unique<bench::device_array<unsigned char>>(lookahead_bytes);
    }
  }
  const auto env = lookahead_env<T>(
    preallocated_buffer{lookahead_temp ? lookahead_temp->get() : nullptr, lookahead_bytes, nullptr});
  if (lookahead_temp)
  {
    CHECK_CUDA(cudaMemsetAsync(out, 0x5A, bytes, nullptr));
    const cudaError_t status = cub::DeviceScan::InclusiveSum(in, out, count, env);
    if (status != cudaSuccess)
    {
      recover_from("the lookahead scan");
      r.not_run = std::string("CUB: ") + cudaGetErrorString(status);
    }
    else
    {
      CHECK_CUDA(cudaDeviceSynchronize());
      const check_outcome lookahead_check = check_against_host(out, n, ctx.staging);
      if (!lookahead_check.passed)
      {
        report_mismatch<T>(type_name, log2n, "lookahead", lookahead_check);
        r.passed = false;
      }
      r.has_lookahead = true;
    }
  }
#else
  r.not_run = "CUB's lookahead scan needs PTX ISA 8.6 (CUDA 12.8) to build";
#endif

  r.copy_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr)); }, warm, reps);
  r.default_ms = ctx.timer.median_ms(
    [&] { CHECK_CUDA(cub::DeviceScan::InclusiveSum(default_temp.get(), default_bytes, in, out, count)); },
    warm,
    reps);
#if ANCHOR_HAS_LOOKAHEAD
  if (r.has_lookahead)
  {
    r.lookahead_ms = ctx.timer.median_ms(
      [&] { CHECK_CUDA(cub::DeviceScan::InclusiveSum(in, out, count, env)); }, warm, reps);
  }
#endif
  out_row = r;
  return true;
}

void print_row(const bench_context& ctx, const row& r)
{
  char lookahead[96];
  if (r.has_lookahead)
  {
    std::snprintf(lookahead, sizeof(lookahead), "%.4f ms %.3f", r.lookahead_ms, r.copy_ms / r.lookahead_ms);
  }
  else
  {
    std::snprintf(lookahead, sizeof(lookahead), "n/a");
  }
  std::printf("%-6s 2^%-2d  copy %.4f ms | %s default %.4f ms %.3f | %s lookahead %s | %s", r.type.c_str(), r.log2n,
              r.copy_ms, ctx.cub_tag.c_str(), r.default_ms, r.copy_ms / r.default_ms, ctx.cub_tag.c_str(), lookahead,
              r.passed ? "ok" : "MISMATCH");
  if (!r.not_run.empty())
  {
    std::printf("  (lookahead n/a: %s)", r.not_run.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// Types, command line, header

using measure_fn  = bool (*)(bench_context&, const char*, int, row&);
using describe_fn = void (*)(const char*, cuda::compute_capability);

template <class T>
void describe(const char* type_name, cuda::compute_capability cc)
{
  constexpr cub::ScanLookaheadPolicy shape = lookahead_shape<T>();
  const cub::ScanPolicy cub_default        = cub_own_policy<T, false>(cc);
  const cub::ScanPolicy cub_on_b200        = cub_own_policy<T, false>(cuda::compute_capability{10, 0});
  const bool same_as_cub = cub_on_b200.algorithm == cub::ScanAlgorithm::lookahead && cub_on_b200.lookahead == shape;
  char block_idx_stages[32];
  if (shape.block_idx_stages > 0)
  {
    std::snprintf(block_idx_stages, sizeof(block_idx_stages), "%d", shape.block_idx_stages);
  }
  else
  {
    std::snprintf(block_idx_stages, sizeof(block_idx_stages), "stages%+d", shape.block_idx_stages);
  }
  std::printf("  %-6s default %-9s | lookahead %d warps x %3d items (tile %5d), %d lookahead items, %d lookahead "
              "stages, block-index stages %s, %d threads/block, %s\n",
              type_name, cub_default.algorithm == cub::ScanAlgorithm::lookahead ? "lookahead" : "look-back",
              shape.reduce_and_scan_warps, shape.items_per_thread, shape.tile_size(),
              shape.lookahead_items_per_thread, shape.lookahead_stages, block_idx_stages,
              (2 * shape.reduce_and_scan_warps + 3) * 32,
              same_as_cub ? "= CUB's own shape on sm_100" : "CUB's generic sm_100 shape");
}

struct type_entry
{
  const char* name;
  measure_fn measure;
  describe_fn describe;
};

const std::vector<type_entry>& known_types()
{
  static const std::vector<type_entry> types{
    {"int8", &measure<std::int8_t>, &describe<std::int8_t>},
    {"int16", &measure<std::int16_t>, &describe<std::int16_t>},
    {"int32", &measure<std::int32_t>, &describe<std::int32_t>},
    {"float", &measure<float>, &describe<float>},
    {"int64", &measure<std::int64_t>, &describe<std::int64_t>},
    {"double", &measure<double>, &describe<double>},
  };
  return types;
}

const type_entry* find_type(const std::string& name)
{
  for (const type_entry& entry : known_types())
  {
    if (name == entry.name)
    {
      return &entry;
    }
  }
  return nullptr;
}

struct options
{
  std::string csv_path;
  std::vector<std::string> types{"int8", "int16", "int32", "float", "int64", "double"};
  int min_log2 = 10;
  int max_log2 = 30;
  bool quick   = false;
};

[[noreturn]] void usage(const std::string& message)
{
  std::fprintf(stderr,
               "anchor_scan_bench: %s\n"
               "usage: anchor_scan_bench [--csv PATH] [--types int8,int16,int32,float,int64,double]\n"
               "                         [--min-log2 N] [--max-log2 N] [--quick]\n",
               message.c_str());
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
        usage(arg + " needs a value");
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
      const std::string list = value();
      for (std::size_t begin = 0; begin <= list.size();)
      {
        const std::size_t comma = std::min(list.find(',', begin), list.size());
        const std::string name  = list.substr(begin, comma - begin);
        if (!find_type(name))
        {
          usage("unknown type '" + name + "'");
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
    else if (arg == "--help" || arg == "-h")
    {
      usage("CUB's default and forced lookahead inclusive sums against a device-to-device copy");
    }
    else
    {
      usage("unknown option '" + arg + "'");
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
  std::fprintf(file, "type,log2n,copy_ms,cub_default_ms,cub_lookahead_ms,ratio_default,ratio_lookahead,check\n");
  for (const row& r : rows)
  {
    char lookahead_ms[32] = "n/a", lookahead_ratio[32] = "n/a";
    if (r.has_lookahead)
    {
      std::snprintf(lookahead_ms, sizeof(lookahead_ms), "%.6f", r.lookahead_ms);
      std::snprintf(lookahead_ratio, sizeof(lookahead_ratio), "%.4f", r.copy_ms / r.lookahead_ms);
    }
    std::fprintf(file, "%s,%d,%.6f,%.6f,%s,%.4f,%s,%s\n", r.type.c_str(), r.log2n, r.copy_ms, r.default_ms,
                 lookahead_ms, r.copy_ms / r.default_ms, lookahead_ratio, r.passed ? "ok" : "MISMATCH");
  }
  if (std::fclose(file) != 0)
  {
    fail("cannot finish writing " + path);
  }
}

} // namespace

int main(int argc, char** argv)
{
  const options opts = parse_options(argc, argv);

  int device_count         = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess || device_count == 0)
  {
    fail(std::string("needs a CUDA GPU: ") + (status != cudaSuccess ? cudaGetErrorString(status) : "no device found"));
  }
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp props{};
  CHECK_CUDA(cudaGetDeviceProperties(&props, device));

  bench_context ctx;
  ctx.sm_count = props.multiProcessorCount;
  CHECK_CUDA(cub::PtxVersion(ctx.ptx_version));
  ctx.cub_tag = "cub-" + std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000);
  if (opts.quick)
  {
    ctx.plan.reps_small = 20;
    ctx.plan.reps_large = 5;
  }
  const cuda::compute_capability dispatch_cc{ctx.ptx_version / 100, ctx.ptx_version / 10 % 10};

  std::printf("device: %s (sm_%d%d), %d SMs; CUB dispatches for sm_%d\n", props.name, props.major, props.minor,
              ctx.sm_count, ctx.ptx_version / 10);
  std::printf("CCCL_VERSION %d, CUB_VERSION %d; reps: %d warm-ups, median of %d (%d at 2^24 and above)\n",
              CCCL_VERSION, CUB_VERSION, ctx.plan.warmups, ctx.plan.reps_small, ctx.plan.reps_large);
  std::printf("lookahead forced through cuda::execution::tune with CUB's own sm_100 (B200) shape for the type"
              "%s:\n",
              ANCHOR_HAS_LOOKAHEAD ? "" : " (not built: PTX ISA below 8.6)");
  for (const std::string& name : opts.types)
  {
    find_type(name)->describe(name.c_str(), dispatch_cc);
  }
  std::fflush(stdout);

  std::vector<row> rows;
  bool all_passed = true;
  for (const std::string& name : opts.types)
  {
    const type_entry* entry = find_type(name);
    for (int log2n = opts.min_log2; log2n <= opts.max_log2; log2n += 2)
    {
      row r;
      if (entry->measure(ctx, entry->name, log2n, r))
      {
        print_row(ctx, r);
        all_passed = all_passed && r.passed;
        rows.push_back(r);
      }
    }
  }

  if (!opts.csv_path.empty())
  {
    write_csv(opts.csv_path, rows);
  }
  std::printf("%s\n", all_passed ? "all checks passed" : "MISMATCH: some results differ from the host reference");
  return all_passed ? 0 : 1;
}

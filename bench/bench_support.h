// What the benchmarks share: CUDA error checks, device arrays, a caching allocator, inputs
// generated on the device, output comparison on the device, and timing (CUDA events, median).
// Each benchmark defines `bench_name` (for error messages) before including this file.
#pragma once

#include <cuda_runtime.h>

#include <cuda/std/type_traits>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bench
{

// ---------------------------------------------------------------------------------------------
// Errors: every CUDA call is checked; a failure ends the program with a message and status 1.

[[noreturn]] void fail(const std::string& message)
{
  std::fprintf(stderr, "%s: error: %s\n", bench_name, message.c_str());
  std::exit(1);
}

void check_cuda(cudaError_t status, const char* call, int line)
{
  if (status != cudaSuccess)
  {
    fail(std::string(call) + " (line " + std::to_string(line) + "): " + cudaGetErrorString(status));
  }
}

#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)

// Every operation runs on the default stream, the stream Thrust's policies use when none is given.
constexpr cudaStream_t bench_stream = 0;

// ---------------------------------------------------------------------------------------------
// Device memory

template <class T>
class device_array
{
public:
  explicit device_array(std::size_t count)
      : count_(count)
  {
    CHECK_CUDA(cudaMalloc(&data_, bytes() == 0 ? 1 : bytes()));
  }
  ~device_array()
  {
    cudaFree(data_); // a destructor cannot report; errors surface at the next checked call
  }
  device_array(const device_array&)            = delete;
  device_array& operator=(const device_array&) = delete;

  T* get() const
  {
    return data_;
  }
  std::size_t bytes() const
  {
    return count_ * sizeof(T);
  }

private:
  T* data_ = nullptr;
  std::size_t count_;
};

// Hands out device blocks and keeps freed ones for reuse, so that after the first call a scan
// through `par_nosync(alloc)` pays for no allocation. Freed blocks are reused by later work on the
// same stream only, which stream order makes safe.
class caching_allocator
{
public:
  using value_type = char;

  caching_allocator() = default;
  caching_allocator(const caching_allocator&)            = delete;
  caching_allocator& operator=(const caching_allocator&) = delete;
  ~caching_allocator()
  {
    release_cached();
    for (auto& block : in_use_)
    {
      cudaFree(block.first);
    }
  }

  char* allocate(std::ptrdiff_t bytes)
  {
    const std::size_t size = bytes > 0 ? static_cast<std::size_t>(bytes) : 1;
    auto cached            = free_.lower_bound(size);
    if (cached != free_.end() && cached->first <= 2 * size) // reuse, but never a far larger block
    {
      char* block = cached->second;
      in_use_.emplace(block, cached->first);
      free_.erase(cached);
      return block;
    }
    char* block = nullptr;
    if (cudaMalloc(&block, size) != cudaSuccess)
    {
      cudaGetLastError();
      release_cached(); // the cache may be what fills the device
      if (cudaMalloc(&block, size) != cudaSuccess)
      {
        cudaGetLastError();
        throw std::bad_alloc();
      }
    }
    in_use_.emplace(block, size);
    return block;
  }

  void deallocate(char* block, std::size_t)
  {
    const auto entry = in_use_.find(block);
    if (entry == in_use_.end())
    {
      fail("caching_allocator: deallocate of a block it did not hand out");
    }
    free_.emplace(entry->second, block);
    in_use_.erase(entry);
  }

private:
  void release_cached()
  {
    for (auto& block : free_)
    {
      cudaFree(block.second);
    }
    free_.clear();
  }

  std::multimap<std::size_t, char*> free_;
  std::unordered_map<char*, std::size_t> in_use_;
};

// ---------------------------------------------------------------------------------------------
// Inputs: generated on the device from a hash of the index, so no host transfer is timed or needed.

__device__ std::uint64_t hash_index(std::uint64_t x)
{
  // splitmix64's finalizer: consecutive indices give unrelated bits.
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Integers: 0..7. Floats: k/256 with k in [-127, 127], inside [-0.5, 0.5) with mean zero, so
// partial sums stay small and exact in float.
template <class T>
__global__ void fill_random(T* out, std::size_t n, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const std::uint64_t bits = hash_index(seed ^ (i * 0xd1b54a32d192ed03ull));
    if constexpr (std::is_floating_point_v<T>)
    {
      out[i] = static_cast<T>(static_cast<int>(bits % 255) - 127) / static_cast<T>(256);
    }
    else
    {
      out[i] = static_cast<T>(bits % 8);
    }
  }
}

// Every value from the hash of its index, all bits used (the selection benchmarks' input).
template <class T>
__global__ void fill_hashed(T* out, std::size_t n, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    out[i] = static_cast<T>(hash_index(seed ^ (i * 0xd1b54a32d192ed03ull)));
  }
}

// Keys in runs of `run` equal elements (hashed run numbers: neighbouring runs differ).
template <class T>
__global__ void fill_runs(T* out, std::size_t n, std::size_t run, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const std::size_t r = i / run;
    out[i]              = static_cast<T>(2 * (hash_index(seed ^ (r * 0xd1b54a32d192ed03ull)) >> 2) + (r & 1));
  }
}

// Selects a value where its bits (the low 32 of wider types; random: the input is hashed),
// scaled to [0, 1000), fall below the threshold (the selectivity in permille). One multiply: the
// predicate must not be what is measured (a 64-bit modulo here once cost more than the memory
// traffic).
template <class T>
struct below_permille
{
  unsigned threshold;
  __host__ __device__ bool operator()(const T& x) const
  {
    constexpr int bits      = sizeof(T) < 4 ? int(8 * sizeof(T)) : 32;
    const std::uint64_t low = sizeof(T) < 4 ? std::uint64_t{static_cast<::cuda::std::make_unsigned_t<T>>(x)} : std::uint64_t{static_cast<std::uint32_t>(x)};
    return static_cast<unsigned>((low * 1000u) >> bits) < threshold;
  }
};

unsigned grid_for(std::size_t n, int sm_count)
{
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, std::size_t(sm_count) * 8)));
}

// ---------------------------------------------------------------------------------------------
// Checking one output against another on the device.

struct comparison
{
  unsigned long long differing; // elements whose bits differ
  unsigned long long first_differing; // lowest such index, or ~0
  unsigned long long max_abs_diff_bits; // bits of the largest |got - want| (a non-negative double)
  unsigned long long max_abs_want_bits; // bits of the largest |want|
};

// Non-negative doubles order like their bit patterns, so a max of bits is a max of values.
__device__ unsigned long long nonnegative_bits(double x)
{
  return static_cast<unsigned long long>(__double_as_longlong(x));
}

template <class T>
__device__ auto bits_of(const T& value)
{
  using word = ::cuda::std::conditional_t<
    sizeof(T) == 1,
    std::uint8_t,
    ::cuda::std::conditional_t<sizeof(T) == 2, std::uint16_t, ::cuda::std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  static_assert(sizeof(word) == sizeof(T), "bits_of handles 1-, 2-, 4- and 8-byte types");
  word bits;
  memcpy(&bits, &value, sizeof(T));
  return bits;
}

__device__ unsigned long long warp_max(unsigned long long v)
{
  for (int offset = 16; offset > 0; offset /= 2)
  {
    v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

template <class T>
__global__ void compare_outputs(const T* got, const T* want, std::size_t n, comparison* result)
{
  unsigned long long differing = 0, first = ~0ull, max_diff = 0, max_want = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const T g = got[i];
    const T w = want[i];
    // Compare bits, not values, so that -0.0 vs 0.0 or a NaN would count as a difference.
    if (bits_of(g) != bits_of(w))
    {
      ++differing;
      first = min(first, static_cast<unsigned long long>(i));
    }
    if constexpr (std::is_floating_point_v<T>)
    {
      max_diff = max(max_diff, nonnegative_bits(fabs(double(g) - double(w))));
      max_want = max(max_want, nonnegative_bits(fabs(double(w))));
    }
  }
  max_diff = warp_max(max_diff);
  max_want = warp_max(max_want);
  if (differing != 0)
  {
    atomicAdd(&result->differing, differing);
    atomicMin(&result->first_differing, first);
  }
  if (threadIdx.x % 32 == 0 && max_diff != 0)
  {
    atomicMax(&result->max_abs_diff_bits, max_diff);
  }
  if (threadIdx.x % 32 == 0 && max_want != 0)
  {
    atomicMax(&result->max_abs_want_bits, max_want);
  }
}

double from_bits(unsigned long long bits)
{
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

struct check_outcome
{
  bool passed;
  unsigned long long differing;
  unsigned long long first_differing;
  double relative_diff; // max |got - want| / max(max |want|, 1); 0 for integers that match
};

// Largest accepted relative difference for float results (exact in practice, see fill_random).
template <class T>
constexpr double float_tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;

template <class T>
check_outcome compare_on_device(const T* got, const T* want, std::size_t n, int sm_count)
{
  comparison* result = nullptr;
  CHECK_CUDA(cudaMallocManaged(&result, sizeof(comparison)));
  *result = comparison{0, ~0ull, 0, 0};
  compare_outputs<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(got, want, n, result);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  const comparison c = *result;
  CHECK_CUDA(cudaFree(result));

  check_outcome outcome{true, c.differing, c.first_differing, 0.0};
  if constexpr (std::is_floating_point_v<T>)
  {
    outcome.relative_diff = from_bits(c.max_abs_diff_bits) / std::max(from_bits(c.max_abs_want_bits), 1.0);
    outcome.passed        = outcome.relative_diff <= float_tolerance<T>; // false for NaN
  }
  else
  {
    outcome.relative_diff = c.differing == 0 ? 0.0 : 1.0;
    outcome.passed        = c.differing == 0;
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Timing

// The bytes of the copy a by-key scan of n int keys and values V is set beside: it reads keys and
// values and writes values, each once, and a copy of half those bytes moves as many (each byte
// read and written).
template <class V>
std::size_t by_key_copy_bytes(std::size_t n)
{
  return n * (sizeof(int) + 2 * sizeof(V)) / 2;
}

// The median of the samples (the mean of the middle two for an even count).
template <class T>
double median_of(std::vector<T> samples)
{
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

struct rep_plan
{
  int warmups;
  int reps_small; // below 2^24 elements
  int reps_large; // at 2^24 elements and above

  int reps_for(int log2n) const
  {
    return log2n < 24 ? reps_small : reps_large;
  }
};

class event_timer
{
public:
  event_timer()
  {
    CHECK_CUDA(cudaEventCreate(&start_));
    CHECK_CUDA(cudaEventCreate(&stop_));
  }
  ~event_timer()
  {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&)            = delete;
  event_timer& operator=(const event_timer&) = delete;

  // Median over `reps` individually timed calls, after `warmups` untimed ones.
  template <class Call>
  double median_ms(Call call, int warmups, int reps)
  {
    for (int i = 0; i < warmups; ++i)
    {
      call();
    }
    CHECK_CUDA(cudaStreamSynchronize(bench_stream));
    std::vector<float> samples(static_cast<std::size_t>(reps));
    for (auto& sample : samples)
    {
      CHECK_CUDA(cudaEventRecord(start_, bench_stream));
      call();
      CHECK_CUDA(cudaEventRecord(stop_, bench_stream));
      CHECK_CUDA(cudaEventSynchronize(stop_));
      CHECK_CUDA(cudaEventElapsedTime(&sample, start_, stop_));
    }
    CHECK_CUDA(cudaGetLastError());
    return median_of(std::move(samples));
  }

private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

// Mean host time per call over `calls` back-to-back calls followed by one stream
// synchronization: for synchronizing calls the full call time, for nosync calls the rate at
// which calls can be issued and completed.
template <class Call>
double host_us_per_call(Call call, int calls)
{
  for (int i = 0; i < 10; ++i)
  {
    call();
  }
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
  {
    call();
  }
  CHECK_CUDA(cudaStreamSynchronize(bench_stream));
  const auto end = std::chrono::steady_clock::now();
  CHECK_CUDA(cudaGetLastError());
  return std::chrono::duration<double, std::micro>(end - begin).count() / calls;
}

} // namespace bench

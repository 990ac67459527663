// Run-to-run reproducibility: a floating-point scan gives the same bits every time, whatever the
// timing of the look-back.
//
// For float +, double + and a float non-commutative operator (affine maps x -> a*x + b composed in
// order), at one tile, a few tiles, 2^24 and 2^28 elements (sizes above SPSCAN_TEST_MAX_ELEMENTS
// skip), the same input is scanned 51 times; every run is preceded by other work on two other
// streams (a spinning kernel of random width and length, then another scan) so that the CTAs of
// the scan start, and their look-backs find predecessors' states, in a different pattern each
// time. Each rerun's whole output must equal the first run's bit for bit (compared on the device,
// word by word).
//
// The test also shows the data is one where order matters, so that a scan whose combine order
// depended on timing would fail it: on the first run some element differs from the same-precision
// sequential left fold, and some element differs from the correctly rounded exact result. And it
// checks accuracy against a long double reference with the bound stated at `error_bound`.
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/random.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace
{

// x -> a*x + b in float, composed "earlier, then later": 8 bytes, non-commutative.
struct affine_float
{
  float a, b;
};
struct compose_affine_float
{
  __host__ __device__ affine_float operator()(const affine_float& earlier, const affine_float& later) const
  {
    return {later.a * earlier.a, later.a * earlier.b + later.b};
  }
};

using spscan_test::cuda_check;
using spscan_test::device_array;
using spscan_test::owned_stream;
using spscan_test::splitmix64;

// ---------------------------------------------------------------------------------------------
// Device helpers: load on other streams, and the bitwise comparison of two outputs.

__global__ void spin_for(long long cycles)
{
  const long long start = clock64();
  while (clock64() - start < cycles)
  {
  }
}

__global__ void count_differing_words(
  const std::uint32_t* a, const std::uint32_t* b, std::size_t words, unsigned long long* differing)
{
  unsigned long long mine = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words; i += stride)
  {
    mine += a[i] != b[i];
  }
  if (mine != 0)
  {
    atomicAdd(differing, mine);
  }
}

// Two streams that keep the GPU busy around every run: a spinning kernel of random width (up to
// two waves of SMs) and length (up to ~0.2 ms), then a 2^22-element scan.
class background_load
{
public:
  explicit background_load(std::uint64_t seed)
      : rng_{seed}
      , n_(std::min<std::size_t>(std::size_t{1} << 22, spscan_test::max_test_elements()))
  {
    int device = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device), "SM count");
    for (int i = 0; i < 2; ++i)
    {
      cuda_check(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking), "cudaStreamCreate");
      cuda_check(cudaMalloc(&data_[i], n_ * sizeof(std::uint32_t)), "cudaMalloc");
      cuda_check(cudaMemset(data_[i], 1, n_ * sizeof(std::uint32_t)), "cudaMemset");
    }
  }
  ~background_load()
  {
    cudaDeviceSynchronize();
    for (int i = 0; i < 2; ++i)
    {
      cudaStreamDestroy(streams_[i]);
      cudaFree(data_[i]);
    }
  }
  background_load(const background_load&)            = delete;
  background_load& operator=(const background_load&) = delete;

  // Queues new load on both streams; returns at once.
  void launch()
  {
    for (int i = 0; i < 2; ++i)
    {
      const unsigned blocks  = 1 + static_cast<unsigned>(rng_.next() % (2 * static_cast<unsigned>(sms_)));
      const long long cycles = static_cast<long long>(rng_.next() % 400000);
      spin_for<<<blocks, 128, 0, streams_[i]>>>(cycles);
      cuda_check(cudaGetLastError(), "spin_for launch");
      spscan::inclusive_scan(thrust::cuda::par_nosync.on(streams_[i]), data_[i], data_[i] + n_, data_[i]);
    }
  }

private:
  splitmix64 rng_;
  std::size_t n_;
  int sms_ = 1;
  cudaStream_t streams_[2]{};
  std::uint32_t* data_[2]{}; // one buffer per stream, scanned in place
};

// ---------------------------------------------------------------------------------------------
// Workloads: input, and what the first run is checked against.

// Accuracy bound. Each output i is a sum (for the affine maps: the b part, a sum of b_k scaled by
// exact powers of two) of terms t_0..t_i evaluated as a binary tree. With unit roundoff u and tree
// depth d, |computed - exact| <= gamma_d * sum |t_k|, gamma_d = d*u/(1 - d*u) (the standard error
// analysis of summation in any order). spscan's tree: each thread's items folded in order, a block
// scan (5-level warp scans and a fold over the warps), then the look-back's left fold over tiles,
// one level per tile: d <= tile + 4*items + 2*warps + 64, and d <= i (i additions in all). The long
// double reference adds at most (i+1) * 2^-64 * sum |t_k|; 1.01 covers gamma_d / (d*u).
template <class T, class Tuning>
long double error_bound(std::size_t i, long double magnitude_sum)
{
  const long double u      = std::numeric_limits<T>::epsilon() / 2;
  const std::size_t levels = i / Tuning::tile_items + 4 * Tuning::items + 2 * (Tuning::threads / 32) + 64;
  const std::size_t depth  = std::min(levels, i);
  return 1.01L * (static_cast<long double>(depth) * u + static_cast<long double>(i + 1) * 0x1p-64L) * magnitude_sum;
}

static_assert(std::numeric_limits<long double>::digits >= 64, "the reference needs an extended long double");

struct first_run_report
{
  std::size_t over_bound           = 0; // elements whose error exceeds the bound
  std::size_t first_over           = 0;
  std::size_t differ_from_sequential = 0; // elements unlike the same-precision sequential fold
  std::size_t differ_from_rounded_exact = 0; // elements unlike the rounded long double reference
  std::size_t wrong_multiplier     = 0; // affine maps only: the exact a part
};

// Float or double +: values in [-1/4, 3/4) with full mantissas, so the sums drift upward and
// every partial sum past a few elements rounds.
template <class T>
struct sum_workload
{
  using value  = T;
  using tuning = spscan::detail::scan_tuning<T, T, T>;
  static constexpr const char* name = std::is_same_v<T, float> ? "float +" : "double +";

  static std::vector<T> input(std::size_t n, std::uint64_t seed)
  {
    splitmix64 rng{seed};
    std::vector<T> values(n);
    for (auto& v : values)
    {
      v = static_cast<T>(rng.unit() - 0.25);
      v = v != T(0) ? v : T(0.5);
    }
    return values;
  }

  template <class Policy>
  static void scan(const Policy& policy, const T* in, std::size_t n, T* out)
  {
    spscan::inclusive_scan(policy, in, in + n, out);
  }

  static first_run_report check(const std::vector<T>& in, const std::vector<T>& got)
  {
    first_run_report r;
    long double exact = 0, magnitude = 0;
    T sequential      = 0;
    for (std::size_t i = 0; i < in.size(); ++i)
    {
      exact += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
      sequential = i == 0 ? in[0] : sequential + in[i];
      const long double error = std::fabs(static_cast<long double>(got[i]) - exact);
      if (!(error <= error_bound<T, tuning>(i, magnitude)) && r.over_bound++ == 0)
      {
        r.first_over = i;
      }
      r.differ_from_sequential += std::memcmp(&got[i], &sequential, sizeof(T)) != 0;
      const T rounded = static_cast<T>(exact);
      r.differ_from_rounded_exact += std::memcmp(&got[i], &rounded, sizeof(T)) != 0;
    }
    return r;
  }
};

// Affine maps in float. Multipliers are powers of two (1 mostly, 2 or 1/2 one time in eight each,
// the running exponent kept within +-3), so every product of a contiguous range is an exact power
// of two in [2^-6, 2^6]: the a parts must come out exact, and the b parts are sums of b_k scaled
// exactly, to which the summation bound applies. The b_k are full-mantissa floats in [-1/4, 3/4)
// (drifting upward, as for the sums, so the bound is a relative one of a useful size).
struct affine_workload
{
  using value  = affine_float;
  using tuning = spscan::detail::scan_tuning<affine_float, affine_float, affine_float>;
  static constexpr const char* name = "float affine compose";

  static std::vector<affine_float> input(std::size_t n, std::uint64_t seed)
  {
    splitmix64 rng{seed};
    std::vector<affine_float> values(n);
    int exponent = 0;
    for (auto& v : values)
    {
      const std::uint64_t r = rng.next();
      int step              = (r & 7) == 0 ? 1 : ((r & 7) == 1 ? -1 : 0);
      if (std::abs(exponent + step) > 3)
      {
        step = -step;
      }
      exponent += step;
      v.a = std::ldexp(1.0f, step);
      v.b = static_cast<float>(rng.unit() - 0.25);
      v.b = v.b != 0.0f ? v.b : 0.5f;
    }
    return values;
  }

  template <class Policy>
  static void scan(const Policy& policy, const affine_float* in, std::size_t n, affine_float* out)
  {
    spscan::inclusive_scan(policy, in, in + n, out, compose_affine_float{});
  }

  static first_run_report check(const std::vector<affine_float>& in, const std::vector<affine_float>& got)
  {
    first_run_report r;
    long double a = 1, b = 0, magnitude = 0;
    affine_float sequential{1, 0};
    for (std::size_t i = 0; i < in.size(); ++i)
    {
      a         = a * in[i].a;
      b         = in[i].a * b + in[i].b;
      magnitude = in[i].a * magnitude + std::fabs(static_cast<long double>(in[i].b));
      sequential = i == 0 ? in[0] : compose_affine_float{}(sequential, in[i]);
      r.wrong_multiplier += static_cast<long double>(got[i].a) != a;
      const long double error = std::fabs(static_cast<long double>(got[i].b) - b);
      if (!(error <= error_bound<float, tuning>(i, magnitude)) && r.over_bound++ == 0)
      {
        r.first_over = i;
      }
      r.differ_from_sequential += std::memcmp(&got[i], &sequential, sizeof(affine_float)) != 0;
      r.differ_from_rounded_exact += got[i].b != static_cast<float>(b);
    }
    return r;
  }
};

// ---------------------------------------------------------------------------------------------

template <class Workload>
void check_reproducible(std::size_t n)
{
  using T = typename Workload::value;
  static_assert(sizeof(T) % 4 == 0, "outputs are compared as 32-bit words");
  if (n > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << n << " elements exceed SPSCAN_TEST_MAX_ELEMENTS";
  }
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << Workload::name << ", n " << n << ", seed " << seed);
  // 50 reruns; 5 under a sanitizer (SPSCAN_TEST_MAX_ELEMENTS set), which is 10-100x slower.
  const int reruns = spscan_test::max_test_elements() == ~std::size_t{0} ? 50 : 5;

  const std::vector<T> input = Workload::input(n, seed);
  const device_array<T> in_buffer(n), first_buffer(n), again_buffer(n);
  const device_array<unsigned long long> differing_count(1);
  T* const in                         = in_buffer.data;
  T* const first                      = first_buffer.data;
  T* const again                      = again_buffer.data;
  unsigned long long* const differing = differing_count.data;
  ASSERT_EQ(cudaMemcpy(in, input.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  background_load load(seed ^ 0x5eed);
  const owned_stream owned; // declared last: destroyed first, after its work drains
  const cudaStream_t stream = owned.stream;

  // The first run, checked for accuracy and for the data being order-sensitive.
  load.launch();
  ASSERT_EQ(cudaMemsetAsync(first, spscan_test::poison_byte, n * sizeof(T), stream), cudaSuccess);
  Workload::scan(thrust::cuda::par.on(stream), in, n, first);
  std::vector<T> got(n);
  ASSERT_EQ(cudaMemcpy(got.data(), first, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  const first_run_report report = Workload::check(input, got);
  EXPECT_EQ(report.over_bound, 0u) << "first element over the error bound: " << report.first_over;
  EXPECT_EQ(report.wrong_multiplier, 0u) << "products of powers of two must be exact";
  EXPECT_GT(report.differ_from_sequential, 0u)
    << "the data must be order-sensitive: no element differs from the sequential fold";
  EXPECT_GT(report.differ_from_rounded_exact, 0u) << "the data must make the scan round";

  // The reruns: policies alternate between par_nosync and par, both on the test's stream.
  const std::size_t words = n * sizeof(T) / 4;
  const unsigned blocks   = static_cast<unsigned>(std::min<std::size_t>((words + 255) / 256, 4096));
  int differing_reruns    = 0;
  for (int rerun = 1; rerun <= reruns; ++rerun)
  {
    load.launch();
    ASSERT_EQ(cudaMemsetAsync(again, spscan_test::poison_byte, n * sizeof(T), stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(differing, 0, sizeof(unsigned long long), stream), cudaSuccess);
    if (rerun % 2 == 0)
    {
      Workload::scan(thrust::cuda::par_nosync.on(stream), in, n, again);
    }
    else
    {
      Workload::scan(thrust::cuda::par.on(stream), in, n, again);
    }
    count_differing_words<<<blocks, 256, 0, stream>>>(
      reinterpret_cast<const std::uint32_t*>(first), reinterpret_cast<const std::uint32_t*>(again), words, differing);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    unsigned long long count = 0;
    ASSERT_EQ(cudaMemcpyAsync(&count, differing, sizeof(count), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    if (count != 0)
    {
      ++differing_reruns;
      ADD_FAILURE() << "rerun " << rerun << ": " << count << " of " << words
                    << " 32-bit words differ from the first run";
    }
  }
  EXPECT_EQ(differing_reruns, 0) << "of " << reruns << " reruns";
}

// Sizes: exactly one tile, a few tiles with a partial last one, 2^24 and 2^28.
struct size_case
{
  const char* label;
  std::size_t n;
};
template <class Workload>
std::vector<size_case> sizes()
{
  const std::size_t tile = Workload::tuning::tile_items;
  return {{"OneTile", tile},
          {"FewTiles", 5 * tile + tile / 3},
          {"Pow24", std::size_t{1} << 24},
          {"Pow28", std::size_t{1} << 28}};
}
std::string size_label(const testing::TestParamInfo<size_case>& info)
{
  return info.param.label;
}
void PrintTo(const size_case& c, std::ostream* os)
{
  *os << c.label << " (" << c.n << " elements)";
}

class FloatSum : public testing::TestWithParam<size_case>
{};
class DoubleSum : public testing::TestWithParam<size_case>
{};
class FloatAffine : public testing::TestWithParam<size_case>
{};

TEST_P(FloatSum, BitwiseIdenticalAcrossRerunsUnderConcurrentLoad)
{
  SPSCAN_REQUIRE_GPU();
  check_reproducible<sum_workload<float>>(GetParam().n);
}
TEST_P(DoubleSum, BitwiseIdenticalAcrossRerunsUnderConcurrentLoad)
{
  SPSCAN_REQUIRE_GPU();
  check_reproducible<sum_workload<double>>(GetParam().n);
}
TEST_P(FloatAffine, BitwiseIdenticalAcrossRerunsUnderConcurrentLoad)
{
  SPSCAN_REQUIRE_GPU();
  check_reproducible<affine_workload>(GetParam().n);
}

INSTANTIATE_TEST_SUITE_P(Reproducibility, FloatSum, testing::ValuesIn(sizes<sum_workload<float>>()), size_label);
INSTANTIATE_TEST_SUITE_P(Reproducibility, DoubleSum, testing::ValuesIn(sizes<sum_workload<double>>()), size_label);
INSTANTIATE_TEST_SUITE_P(Reproducibility, FloatAffine, testing::ValuesIn(sizes<affine_workload>()), size_label);

} // namespace

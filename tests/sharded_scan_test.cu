// Sharded scans (<spscan/sharded_scan.h>): the cross-shard step modelled on the CPU; the
// order-preserving reduction each rank runs; on one GPU, the single-rank path through NCCL and
// several shards of one GPU through the same code; on every GPU of the machine (two or more),
// bit for bit against one GPU's scan of the concatenation, from one host thread and from one
// thread per rank with the caller's communicators.
#include <spscan/scan.h>
#include <spscan/sharded_scan.h>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/noncommutative.h>
#include <support/random.h>

namespace
{

using spscan_test::affine32;
using spscan_test::compose_affine32;
using spscan_test::splitmix64;

bool same_affine(const affine32& x, const affine32& y)
{
  return x.a == y.a && x.b == y.b;
}

std::vector<affine32> random_affines(std::size_t n, std::uint64_t seed)
{
  splitmix64 rng{seed};
  std::vector<affine32> v(n);
  for (auto& x : v)
  {
    x = {static_cast<std::uint32_t>(rng.next()) | 1u, static_cast<std::uint32_t>(rng.next())};
  }
  return v;
}

// Shard sizes with empty shards, one-element shards and multi-tile shards among them.
std::vector<std::size_t> shard_sizes(int shards, std::size_t largest, std::uint64_t seed)
{
  splitmix64 rng{seed};
  std::vector<std::size_t> sizes;
  for (int r = 0; r < shards; ++r)
  {
    switch (rng.below(4))
    {
      case 0: sizes.push_back(0); break;
      case 1: sizes.push_back(1 + rng.below(3)); break;
      default: sizes.push_back(1 + rng.below(largest)); break;
    }
  }
  return sizes;
}

// The scan of the whole array, one element after another (inclusive: no init).
std::vector<affine32> sequential_scan(const std::vector<affine32>& x, bool exclusive, affine32 init)
{
  const compose_affine32 op;
  std::vector<affine32> result;
  affine32 running = init;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    if (exclusive)
    {
      result.push_back(running);
      running = op(running, x[i]);
    }
    else
    {
      running = i == 0 ? x[0] : op(running, x[i]);
      result.push_back(running);
    }
  }
  return result;
}

// ---- the cross-shard step, on the CPU ------------------------------------------------------------

// The whole algorithm with host folds in place of the GPU's: each shard's total, the start value
// from shard_start (the code the GPU runs), each shard scanned from it. With a non-commutative
// operator, any slip in order, a lost empty shard or a double-counted init shows.
TEST(ShardedScanModel, StartValuesReproduceTheScanOfTheConcatenation)
{
  using total = spscan::detail::shard_total<affine32>;
  const compose_affine32 op;
  for (std::uint64_t seed = 1; seed <= 200; ++seed)
  {
    const int shards   = 1 + static_cast<int>(seed % 9);
    const auto sizes   = shard_sizes(shards, 50, seed);
    std::vector<std::vector<affine32>> data;
    std::vector<affine32> concatenation;
    for (int r = 0; r < shards; ++r)
    {
      data.push_back(random_affines(sizes[r], seed * 100 + r));
      concatenation.insert(concatenation.end(), data.back().begin(), data.back().end());
    }
    std::vector<total> totals(shards);
    for (int r = 0; r < shards; ++r)
    {
      totals[r].present = data[r].empty() ? 0 : 1;
      for (std::size_t i = 0; i < data[r].size(); ++i)
      {
        totals[r].value = i == 0 ? data[r][0] : op(totals[r].value, data[r][i]);
      }
    }
    const affine32 init{3, 7};
    for (bool exclusive : {false, true})
    {
      const std::vector<affine32> expected = sequential_scan(concatenation, exclusive, init);
      std::vector<affine32> sharded;
      for (int r = 0; r < shards; ++r)
      {
        total start = spscan::detail::shard_start(totals.data(), r, op, total{init, exclusive ? 1u : 0u});
        for (const affine32& x : data[r])
        {
          if (exclusive)
          {
            sharded.push_back(start.value);
            start.value = op(start.value, x);
          }
          else
          {
            start.value   = start.present ? op(start.value, x) : x;
            start.present = 1;
            sharded.push_back(start.value);
          }
        }
      }
      ASSERT_EQ(expected.size(), sharded.size());
      for (std::size_t i = 0; i < expected.size(); ++i)
      {
        ASSERT_TRUE(same_affine(expected[i], sharded[i])) << "seed " << seed << " exclusive " << exclusive << " at " << i;
      }
    }
  }
}

TEST(ShardedScanModel, ACommunicatorRejectsADeviceRepeatedAmongOthers)
{
  EXPECT_THROW(spscan::shard_communicator(std::vector<int>{0, 0, 1}), std::invalid_argument);
  // The list form, as users write it (a list of zeros is devices, not null communicators).
  const auto list_form = [] { spscan::shard_communicator group({0, 0, 1}); };
  EXPECT_THROW(list_form(), std::invalid_argument);
  EXPECT_THROW(spscan::shard_communicator(std::vector<int>{}), std::invalid_argument);
}

// ---- the reduction --------------------------------------------------------------------------------

// Sizes around one tile, two levels of aggregates and (int64) three levels; a non-commutative
// operator; raw, misaligned and fancy inputs.
TEST(ShardReduce, EqualsTheSequentialFoldInOrder)
{
  SPSCAN_REQUIRE_GPU();
  const compose_affine32 op;
  for (std::size_t n : {std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{1} << 20,
                        (std::size_t{1} << 24) + 12345})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    const auto host = random_affines(n + 1, n);
    affine32 expected = host[1];
    for (std::size_t i = 2; i <= n; ++i)
    {
      expected = op(expected, host[i]);
    }
    const thrust::device_vector<affine32> input(host.begin(), host.end());
    thrust::device_vector<unsigned char> scratch(spscan::detail::reduce_scratch_bytes<affine32, const affine32*>(n) + 16);
    thrust::device_vector<affine32> result(1);
    // input + 1: 8-byte aligned, not 16: the element path
    spscan::detail::reduce_on_device<affine32>(nullptr, thrust::raw_pointer_cast(input.data()) + 1, n, op,
                                               thrust::raw_pointer_cast(result.data()),
                                               thrust::raw_pointer_cast(scratch.data()));
    const affine32 got = result[0];
    EXPECT_TRUE(same_affine(expected, got)) << "n " << n;
  }
  for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 22, (std::size_t{1} << 25) + 3})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    thrust::device_vector<unsigned char> scratch(spscan::detail::reduce_scratch_bytes<std::int64_t, thrust::counting_iterator<std::int64_t>>(n) + 16);
    thrust::device_vector<std::int64_t> result(1);
    spscan::detail::reduce_on_device<std::int64_t>(nullptr, thrust::counting_iterator<std::int64_t>(1), n, thrust::plus<>{},
                                                   thrust::raw_pointer_cast(result.data()),
                                                   thrust::raw_pointer_cast(scratch.data()));
    const std::int64_t expected = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(n + 1) / 2;
    EXPECT_EQ(expected, static_cast<std::int64_t>(result[0])) << "n " << n;
  }
}

// ---- one GPU --------------------------------------------------------------------------------------

std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t seed)
{
  splitmix64 rng{seed};
  std::vector<std::int32_t> v(n);
  for (auto& x : v)
  {
    x = static_cast<std::int32_t>(rng.next());
  }
  return v;
}

// One rank: the NCCL path with a communicator of one, against spscan's scan (same code, same bits).
TEST(ShardedScanOneGpu, OneRankEqualsTheScanBitForBit)
{
  SPSCAN_REQUIRE_GPU();
  ncclComm_t comm = nullptr;
  int device      = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  ASSERT_EQ(ncclSuccess, ncclCommInitAll(&comm, 1, &device));
  splitmix64 rng{42};
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{100000}, std::size_t{3} << 20})
  {
    std::vector<float> host(n);
    for (auto& x : host)
    {
      x = static_cast<float>(rng.unit() * 2.0 - 0.5);
    }
    const thrust::device_vector<float> in(host.begin(), host.end());
    thrust::device_vector<float> expected(n), got(n);
    spscan_test::poison(got);
    spscan::inclusive_scan(thrust::device, in.begin(), in.end(), expected.begin());
    auto end = spscan::sharded_inclusive_scan(comm, thrust::device, in.begin(), in.end(), got.begin());
    EXPECT_EQ(n, static_cast<std::size_t>(end - got.begin()));
    spscan_test::expect_bitwise_equal(spscan_test::to_host(expected), spscan_test::to_host(got), "inclusive, one rank");
    spscan::exclusive_scan(thrust::device, in.begin(), in.end(), expected.begin(), 0.25f);
    spscan_test::poison(got);
    spscan::sharded_exclusive_scan(comm, thrust::cuda::par_nosync, in.begin(), in.end(), got.begin(), 0.25f);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    spscan_test::expect_bitwise_equal(spscan_test::to_host(expected), spscan_test::to_host(got), "exclusive, one rank, nosync");
  }
  ncclCommDestroy(comm);
}

// Several shards of one GPU, through the same steps (the totals through its memory): a
// non-commutative operator and plain integers, empty and multi-tile shards, in place and not.
TEST(ShardedScanOneGpu, SeveralShardsEqualTheSequentialScan)
{
  SPSCAN_REQUIRE_GPU();
  int device = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  const compose_affine32 op;
  for (std::uint64_t seed = 1; seed <= 12; ++seed)
  {
    const int shards = 1 + static_cast<int>(seed % 5);
    spscan::shard_communicator group(std::vector<int>(shards, device));
    const auto sizes = shard_sizes(shards, seed % 3 == 0 ? 300000 : 20000, seed);
    std::vector<thrust::device_vector<affine32>> in, out;
    in.reserve(shards);
    out.reserve(shards);
    std::vector<affine32> concatenation;
    for (int r = 0; r < shards; ++r)
    {
      const auto host = random_affines(sizes[r], seed * 31 + r);
      concatenation.insert(concatenation.end(), host.begin(), host.end());
      in.emplace_back(host.begin(), host.end());
      out.emplace_back(sizes[r]);
      spscan_test::poison(out.back());
    }
    std::vector<spscan::shard<thrust::device_vector<affine32>::iterator>> input;
    std::vector<thrust::device_vector<affine32>::iterator> results;
    const bool in_place = seed % 2 == 0;
    for (int r = 0; r < shards; ++r)
    {
      input.push_back({in[r].begin(), in[r].end()});
      results.push_back(in_place ? in[r].begin() : out[r].begin());
    }
    const affine32 init{5, 11};
    const bool exclusive = seed % 4 >= 2;
    if (exclusive)
    {
      spscan::sharded_exclusive_scan(group, input, results, init, op);
    }
    else
    {
      spscan::sharded_inclusive_scan(group, input, results, op);
    }
    const std::vector<affine32> expected = sequential_scan(concatenation, exclusive, init);
    std::size_t at = 0;
    for (int r = 0; r < shards; ++r)
    {
      const auto got = spscan_test::to_host(in_place ? in[r] : out[r]);
      for (std::size_t i = 0; i < got.size(); ++i, ++at)
      {
        ASSERT_TRUE(same_affine(expected[at], got[i])) << "seed " << seed << " shard " << r << " at " << i;
      }
    }
  }
}

// Floats over several shards of one GPU: the same bits every run, and within a bound of a float64
// scan, on data whose sums round. A summation tree of depth d is within d * 2^-24 * sum |x| of the
// exact sum; spscan's is at most 32 per-thread + 5 warp + 8 block additions, one per tile before
// (n / 8192) and one per shard: d < 64 + n / 1024 is a generous bound that still catches a lost
// or doubled shard total (thousands here).
TEST(ShardedScanOneGpu, FloatsAreReproducibleAndNearTheExactSum)
{
  SPSCAN_REQUIRE_GPU();
  int device = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  spscan::shard_communicator group(std::vector<int>(3, device));
  const std::vector<std::size_t> sizes{1 << 20, 12345, (1 << 19) + 7};
  splitmix64 rng{9};
  std::vector<thrust::device_vector<float>> in, first_run, second_run;
  std::vector<double> exact;
  double running = 0, magnitude = 0;
  for (std::size_t n : sizes)
  {
    std::vector<float> host(n);
    for (auto& x : host)
    {
      x = static_cast<float>(rng.unit() * 3.0 - 1.0);
      running += x;
      magnitude += std::fabs(x);
      exact.push_back(running);
    }
    in.emplace_back(host.begin(), host.end());
    first_run.emplace_back(n);
    second_run.emplace_back(n);
  }
  auto run = [&](std::vector<thrust::device_vector<float>>& out) {
    std::vector<spscan::shard<thrust::device_vector<float>::iterator>> input;
    std::vector<thrust::device_vector<float>::iterator> results;
    for (std::size_t r = 0; r < in.size(); ++r)
    {
      spscan_test::poison(out[r]);
      input.push_back({in[r].begin(), in[r].end()});
      results.push_back(out[r].begin());
    }
    spscan::sharded_inclusive_scan(group, input, results);
  };
  run(first_run);
  run(second_run);
  const double bound = (64.0 + static_cast<double>(exact.size()) / 1024) * 0x1.0p-24 * magnitude;
  std::size_t at     = 0;
  for (std::size_t r = 0; r < in.size(); ++r)
  {
    spscan_test::expect_bitwise_equal(spscan_test::to_host(first_run[r]), spscan_test::to_host(second_run[r]), "run to run");
    const auto got = spscan_test::to_host(first_run[r]);
    for (std::size_t i = 0; i < got.size(); ++i, ++at)
    {
      ASSERT_LE(std::fabs(got[i] - exact[at]), bound) << "shard " << r << " at " << i;
    }
  }
}

// ---- every GPU of the machine ---------------------------------------------------------------------

int gpu_count()
{
  int count = 0;
  if (!spscan_test::gpu_available() || cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError();
    return 0;
  }
  return count;
}

#define SPSCAN_REQUIRE_GPUS(n)                                                              \
  do                                                                                        \
  {                                                                                         \
    if (gpu_count() < (n))                                                                  \
    {                                                                                       \
      GTEST_SKIP() << "needs " << (n) << " CUDA GPUs; this machine has " << gpu_count(); \
    }                                                                                       \
  } while (0)

// Shards on every GPU, int32 and a non-commutative operator: the same bits as one GPU's scan of
// the concatenation, from one host thread (spscan's communicators).
TEST(ShardedScanGpus, EqualOneGpusScanOfTheConcatenation)
{
  SPSCAN_REQUIRE_GPUS(2);
  const int gpus = gpu_count();
  std::vector<int> devices;
  for (int d = 0; d < gpus; ++d)
  {
    devices.push_back(d);
  }
  spscan::shard_communicator group(devices);
  for (std::uint64_t seed = 1; seed <= 6; ++seed)
  {
    auto sizes = shard_sizes(gpus, seed % 2 ? 3000000 : 5000, seed);
    std::vector<std::int32_t> concatenation;
    std::vector<thrust::device_vector<std::int32_t>> in, out;
    // Reserved: a reallocation would copy a device_vector onto the device current at that time.
    in.reserve(gpus);
    out.reserve(gpus);
    for (int r = 0; r < gpus; ++r)
    {
      const auto host = random_ints(sizes[r], seed * 17 + r);
      concatenation.insert(concatenation.end(), host.begin(), host.end());
      ASSERT_EQ(cudaSuccess, cudaSetDevice(r));
      in.emplace_back(host.begin(), host.end());
      out.emplace_back(sizes[r]);
      spscan_test::poison(out.back());
    }
    ASSERT_EQ(cudaSuccess, cudaSetDevice(0));
    const thrust::device_vector<std::int32_t> whole(concatenation.begin(), concatenation.end());
    thrust::device_vector<std::int32_t> one_gpu(whole.size());
    const std::int32_t init = 1234567;
    const bool exclusive    = seed % 3 == 0;
    if (exclusive)
    {
      spscan::exclusive_scan(whole.begin(), whole.end(), one_gpu.begin(), init);
    }
    else
    {
      spscan::inclusive_scan(whole.begin(), whole.end(), one_gpu.begin());
    }
    std::vector<spscan::shard<thrust::device_vector<std::int32_t>::iterator>> input;
    std::vector<thrust::device_vector<std::int32_t>::iterator> results;
    for (int r = 0; r < gpus; ++r)
    {
      input.push_back({in[r].begin(), in[r].end()});
      results.push_back(out[r].begin());
    }
    if (exclusive)
    {
      spscan::sharded_exclusive_scan(group, input, results, init);
    }
    else
    {
      spscan::sharded_inclusive_scan(group, input, results);
    }
    std::vector<std::int32_t> sharded;
    for (int r = 0; r < gpus; ++r)
    {
      const auto part = spscan_test::to_host(out[r]);
      sharded.insert(sharded.end(), part.begin(), part.end());
    }
    spscan_test::expect_bitwise_equal(spscan_test::to_host(one_gpu), sharded, exclusive ? "exclusive" : "inclusive");
  }
}

// One host thread per rank, each with the caller's communicator, on its own stream (nosync, then
// synchronized by the caller): the NCCL way of calling it.
TEST(ShardedScanGpus, OneThreadPerRankWithTheCallersCommunicators)
{
  SPSCAN_REQUIRE_GPUS(2);
  const int gpus = gpu_count();
  std::vector<int> devices(gpus);
  for (int d = 0; d < gpus; ++d)
  {
    devices[d] = d;
  }
  std::vector<ncclComm_t> comms(gpus);
  ASSERT_EQ(ncclSuccess, ncclCommInitAll(comms.data(), gpus, devices.data()));
  const compose_affine32 op;
  const std::size_t per_rank = (std::size_t{1} << 21) + 5;
  std::vector<affine32> concatenation;
  std::vector<std::vector<affine32>> parts;
  for (int r = 0; r < gpus; ++r)
  {
    parts.push_back(random_affines(per_rank, 500 + r));
    concatenation.insert(concatenation.end(), parts.back().begin(), parts.back().end());
  }
  std::vector<std::vector<affine32>> got(gpus);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(gpus);
  for (int r = 0; r < gpus; ++r)
  {
    threads.emplace_back([&, r] {
      try
      {
        spscan_test::cuda_check(cudaSetDevice(r), "cudaSetDevice");
        cudaStream_t stream = nullptr;
        spscan_test::cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        thrust::device_vector<affine32> data(parts[r].begin(), parts[r].end());
        spscan::sharded_inclusive_scan(comms[r], thrust::cuda::par_nosync.on(stream), data.begin(), data.end(),
                                       data.begin(), op); // in place
        spscan_test::cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        got[r] = spscan_test::to_host(data);
        cudaStreamDestroy(stream);
      }
      catch (const std::exception& e)
      {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads)
  {
    t.join();
  }
  for (int r = 0; r < gpus; ++r)
  {
    ASSERT_EQ("", errors[r]) << "rank " << r;
    ncclCommDestroy(comms[r]);
  }
  affine32 running = concatenation[0];
  std::size_t at   = 0;
  for (int r = 0; r < gpus; ++r)
  {
    for (std::size_t i = 0; i < got[r].size(); ++i, ++at)
    {
      running = at == 0 ? concatenation[0] : op(running, concatenation[at]);
      ASSERT_TRUE(same_affine(running, got[r][i])) << "rank " << r << " at " << i;
    }
  }
  EXPECT_EQ(concatenation.size(), at);
}

} // namespace

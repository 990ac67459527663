// spscan's temporary storage for calls without an allocator of the caller's
// (common/temporary_storage.h): which calls take it from spscan's per-device pool and which from
// the caller's allocator; correct results while eight host threads grow their calls on their own
// streams at once; graph capture; failure to allocate; cudaDeviceReset between calls; and no
// memory kept or lost over 10^5 calls.
//
// Outputs are poisoned and compared bit for bit with a sequential CPU reference.
#include <spscan/execution_policy.h>
#include <spscan/scan.h>
#include <spscan/temporary_storage.h>
#include <spscan/detail/classic/launch.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>

#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/kept_storage.h>
#include <support/noncommutative.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace
{

using spscan::detail::takes_pooled_storage;
using spscan_test::cuda_check;
using spscan_test::device_array;
using spscan_test::empty_the_pool;
using spscan_test::pool_reserved_bytes;
using spscan_test::pool_used_bytes;

// ---------------------------------------------------------------------------------------------
// Which policies take spscan's pool (CPU): exactly those where nothing of the caller's sees
// temporary storage.

template <class Policy>
constexpr bool pooled = takes_pooled_storage<::cuda::std::remove_cvref_t<decltype(spscan::detail::derived_policy(
  ::cuda::std::declval<const Policy&>()))>>;

struct refusing_allocator
{
  using value_type = char;
  char* allocate(std::ptrdiff_t)
  {
    throw std::bad_alloc();
  }
  void deallocate(char*, std::size_t) {}
};

struct user_policy : thrust::cuda::execution_policy<user_policy>
{};

// ---------------------------------------------------------------------------------------------
// Calls on kept storage, of either engine (classic/launch.h, plan_tagged_launch): host logic, run
// on the CPU. A call that took a stale epoch or a tile counter not where it stands would read
// the last call's states as its own, or take tile ids past its last tile.
using spscan::detail::plan_tagged_launch;
using spscan::detail::storage_tags;
constexpr std::uint32_t packed64 = spscan::detail::packed_tile_state<int>::epoch_layout;
constexpr std::uint32_t split    = spscan::detail::split_tile_state<int>::epoch_layout;
constexpr std::uint32_t epochs   = 1000; // the last epoch, in these tests

// A call whose CTAs take `ids` tile ids, needing `needed` bytes, in the packed 64-bit layout (no
// value slots).
spscan::detail::tagged_launch packed_call(storage_tags tags, std::size_t needed, std::size_t ids)
{
  return plan_tagged_launch(tags, needed, packed64, false, epochs, ids);
}
// The same in the split layout (its value slots follow its status words).
spscan::detail::tagged_launch split_call(storage_tags tags, std::size_t needed, std::size_t ids)
{
  return plan_tagged_launch(tags, needed, split, true, epochs, ids);
}

// Whether a call clears first or not, and takes this epoch and first tile id.
::testing::AssertionResult launches(const spscan::detail::tagged_launch& plan, bool clear_first, std::uint32_t epoch, std::uint64_t first_tile_id)
{
  if (plan.clear_first == clear_first && plan.epoch == epoch && plan.first_tile_id == first_tile_id)
  {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "clears first " << plan.clear_first << ", epoch " << plan.epoch
                                       << ", first tile id " << plan.first_tile_id << "; expected " << clear_first
                                       << ", " << epoch << ", " << first_tile_id;
}

TEST(TaggedStorage, ABlocksFirstCallClearsItThenCallsOfThatSizeRunWithoutClearingEachInTheNextEpoch)
{
  const auto first = packed_call(storage_tags{}, 4096, 5);
  EXPECT_TRUE(launches(first, true, 1, 0));
  const auto second = packed_call(first.after, 4096, 7);
  EXPECT_TRUE(launches(second, false, 2, 5)) << "the first call's five CTAs took ids 0-4";
  const auto smaller = packed_call(second.after, 512, 2);
  EXPECT_TRUE(launches(smaller, false, 3, 12));
  EXPECT_EQ(smaller.after.tagged_bytes, 4096u) << "a smaller call keeps what the tags vouch for";
}

TEST(TaggedStorage, ACallNeedingMoreThanTheTagsVouchForClearsFirstAndRestartsTheIdsNotTheEpochs)
{
  const auto larger = packed_call(storage_tags{4096, 41, 900, packed64}, 8192, 9);
  EXPECT_TRUE(launches(larger, true, 42, 0))
    << "past the cleared bytes nothing is read, so the epochs go on; the clear zeroes the counter";
  EXPECT_EQ(larger.after.tagged_bytes, 8192u);
  EXPECT_EQ(larger.after.next_tile_id, 9u);
}

TEST(TaggedStorage, AfterTheLastEpochTheNextCallClearsFirstAndStartsAgainAtEpochOne)
{
  const auto last = packed_call(storage_tags{4096, epochs - 1, 77, packed64}, 4096, 3);
  EXPECT_TRUE(launches(last, false, epochs, 77)) << "the last epoch a status word holds is used";
  const auto next = packed_call(last.after, 4096, 3);
  EXPECT_TRUE(launches(next, true, 1, 0));
  EXPECT_EQ(next.after.tagged_bytes, 4096u) << "only the bytes cleared now are vouched for";
}

// A ring call's CTAs each take one id past its last tile (ring_driver.h): 10 tiles on 4 CTAs take
// 14 ids, and the classic call after it starts there, on the same states, without a clear.
TEST(TaggedStorage, ACallStartsWhereTheLastCallsIdsEndedWhicheverEngineTookThem)
{
  const auto ring    = packed_call(storage_tags{}, 4096, 10 + 4);
  const auto classic = packed_call(ring.after, 2048, 6);
  EXPECT_TRUE(launches(classic, false, 2, 14));
  const auto next_ring = packed_call(classic.after, 4096, 10 + 4);
  EXPECT_TRUE(launches(next_ring, false, 3, 20)) << "a smaller call left the larger one's bytes vouched for";
}

TEST(TaggedStorage, ACallWhoseStatusWordsLieElsewhereOrReadOtherwiseClearsFirst)
{
  const auto other = split_call(storage_tags{4096, 50, 300, packed64}, 1024, 4);
  EXPECT_TRUE(launches(other, true, 1, 0)) << "a packed block's value bits would be read as split statuses";
  EXPECT_EQ(other.after.layout, split);
}

TEST(TaggedStorage, ASplitCallLeavesOnlyItsOwnStatusWordsVouchedFor)
{
  const auto small = split_call(storage_tags{4096, 7, 10, split}, 512, 2);
  EXPECT_TRUE(launches(small, false, 8, 10));
  EXPECT_EQ(small.after.tagged_bytes, 512u) << "its value slots follow its 512 bytes, over the old status words";
  EXPECT_TRUE(split_call(small.after, 4096, 20).clear_first);
}

TEST(PooledStorage, PoliciesWithoutAnAllocatorOfTheCallersTakeThePool)
{
  static_assert(pooled<decltype(thrust::device)>);
  static_assert(pooled<decltype(thrust::cuda::par)>);
  static_assert(pooled<decltype(thrust::cuda::par.on(cudaStream_t{}))>);
  static_assert(pooled<decltype(thrust::cuda::par_nosync)>);
  static_assert(pooled<decltype(thrust::cuda::par_nosync.on(cudaStream_t{}))>);
  static_assert(pooled<thrust::device_system_tag>); // a call without a policy, on device iterators
  static_assert(pooled<decltype(spscan::par)>);
  static_assert(pooled<decltype(spscan::par.on(cudaStream_t{}))>);
  static_assert(pooled<decltype(spscan::par_nosync)>);
  static_assert(pooled<decltype(spscan::par_nosync.on(cudaStream_t{}))>);
  SUCCEED();
}

TEST(PooledStorage, PoliciesWithTheCallersAllocatorDoNot)
{
  refusing_allocator alloc;
  static_assert(!pooled<decltype(thrust::cuda::par(alloc))>);
  static_assert(!pooled<decltype(thrust::cuda::par_nosync(alloc).on(cudaStream_t{}))>);
  static_assert(!pooled<decltype(spscan::par(alloc))>);
  static_assert(!pooled<decltype(spscan::par_nosync(alloc).on(cudaStream_t{}))>);
  // A policy of the user's may customize get_temporary_buffer: it keeps Thrust's path.
  static_assert(!pooled<user_policy>);
  SUCCEED();
}

// ---------------------------------------------------------------------------------------------
// Helpers

// Whether every block a call took came back: with the kept blocks freed, the pool lends nothing.
bool every_block_came_back()
{
  cuda_check(cudaDeviceSynchronize(), "synchronize");
  spscan::release_temporary_storage();
  return pool_used_bytes() == 0;
}

// Several tiles of every scan shape, fewer under a sanitizer.
std::size_t multi_tile_elements()
{
  return std::min<std::size_t>(std::size_t{1} << 20, spscan_test::max_test_elements());
}

// An inclusive int64 + scan of fresh data through `policy`, checked against the CPU; returns
// whether it was exact.
template <class Policy>
::testing::AssertionResult scan_is_exact(const Policy& policy, std::size_t n, cudaStream_t stream, std::uint64_t seed)
{
  const auto values = spscan_test::random_values<std::int64_t>(n, seed);
  device_array<std::int64_t> in(n), out(n);
  cuda_check(cudaMemcpyAsync(in.data, values.data(), n * 8, cudaMemcpyHostToDevice, stream), "upload");
  cuda_check(cudaMemsetAsync(out.data, spscan_test::poison_byte, n * 8, stream), "poison");
  spscan::inclusive_scan(policy, in.data, in.data + n, out.data);
  std::vector<std::int64_t> got(n);
  cuda_check(cudaMemcpyAsync(got.data(), out.data, n * 8, cudaMemcpyDeviceToHost, stream), "download");
  cuda_check(cudaStreamSynchronize(stream), "synchronize");
  const auto expected = spscan_test::reference_inclusive<std::int64_t>(values, thrust::plus<>{});
  for (std::size_t i = 0; i < n; ++i)
  {
    if (got[i] != expected[i])
    {
      return ::testing::AssertionFailure() << "n " << n << ", seed " << seed << ": element " << i << " is " << got[i]
                                           << ", expected " << expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs body(t, check) on `count` host threads at the same time, where check(result) records a
// thread's first failed AssertionResult; returns each thread's first failure ("" for none).
template <class Body>
std::vector<std::string> failures_on_threads(int count, Body body)
{
  std::vector<std::string> failures(count);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
  {
    threads.emplace_back([&, t] {
      const auto check = [&](const ::testing::AssertionResult& result) {
        if (!result && failures[t].empty())
        {
          failures[t] = result.message();
        }
      };
      try
      {
        ready.fetch_add(1); // start together, so that the calls really overlap
        while (ready.load() < count)
        {
          std::this_thread::yield();
        }
        body(t, check);
      }
      catch (const std::exception& e)
      {
        failures[t] = e.what();
      }
    });
  }
  for (auto& thread : threads)
  {
    thread.join();
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------
// Routing on the GPU: the pool serves calls without an allocator; a caller's allocator sees
// every byte and the pool none.

struct counting_allocator
{
  using value_type = char;
  std::size_t bytes = 0;
  char* allocate(std::ptrdiff_t n)
  {
    bytes += static_cast<std::size_t>(n);
    char* p = nullptr;
    cuda_check(cudaMalloc(&p, static_cast<std::size_t>(n)), "cudaMalloc");
    return p;
  }
  void deallocate(char* p, std::size_t)
  {
    cudaFree(p);
  }
};

TEST(PooledStorage, TheCallersAllocatorSeesEveryByteAndThePoolServesTheRest)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = multi_tile_elements();
  empty_the_pool();
  ASSERT_EQ(pool_reserved_bytes(), 0u);

  counting_allocator alloc;
  EXPECT_TRUE(scan_is_exact(thrust::cuda::par(alloc), n, 0, spscan_test::fresh_seed()));
  EXPECT_GT(alloc.bytes, 0u) << "a multi-tile scan takes its tile states from the caller's allocator";
  EXPECT_EQ(pool_reserved_bytes(), 0u) << "and nothing from spscan's pool";

  EXPECT_TRUE(scan_is_exact(thrust::device, n, 0, spscan_test::fresh_seed()));
  EXPECT_GT(pool_reserved_bytes(), 0u) << "thrust::device takes its tile states from spscan's pool";
  EXPECT_TRUE(every_block_came_back());
}

// Storage from a caller's allocator holds whatever was there: every call clears its tile states
// and counter before its kernel reads them (on sm_90 and newer the kernel starts beside the clear
// and waits for it). Classic-engine and ring-engine sizes, calls back to back on one stream.
TEST(PooledStorage, GarbageInTheCallersStorageIsClearedBeforeTheKernelReadsIt)
{
  SPSCAN_REQUIRE_GPU();
  spscan_test::garbage_allocator alloc;
  const std::size_t ring_size = std::size_t{1} << 21; // 16 MiB of int64: the ring where the device has it
  std::vector<std::size_t> sizes{multi_tile_elements(), 3 * 4096 + 5};
  if (ring_size <= spscan_test::max_test_elements())
  {
    sizes.push_back(ring_size);
  }
  for (const std::size_t n : sizes)
  {
    for (int call = 0; call < 8; ++call)
    {
      EXPECT_TRUE(scan_is_exact(thrust::cuda::par(alloc), n - 97 * call, 0, spscan_test::fresh_seed()));
    }
  }
  EXPECT_EQ(alloc.lent, 8 * static_cast<int>(sizes.size())) << "every call took its storage from the allocator";
}

// Calls on one stream reuse one kept block: after the first, the pool lends no more memory.
TEST(PooledStorage, CallsOnOneStreamReuseTheirBlock)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = multi_tile_elements();
  empty_the_pool();
  spscan_test::owned_stream own;
  EXPECT_TRUE(scan_is_exact(thrust::cuda::par_nosync.on(own.stream), n, own.stream, spscan_test::fresh_seed()));
  const std::uint64_t lent = pool_used_bytes();
  EXPECT_GT(lent, 0u) << "the first call's block is kept";
  for (int i = 0; i < 20; ++i)
  {
    EXPECT_TRUE(scan_is_exact(thrust::cuda::par.on(own.stream), n - 1000 * i, own.stream, spscan_test::fresh_seed()));
  }
  EXPECT_EQ(pool_used_bytes(), lent) << "later calls on the stream, no larger, took that block again";
  EXPECT_TRUE(every_block_came_back());
}

// Storage kept for the next call is not cleared between calls (each call, on either engine, tags
// its tile states with the call's epoch and counts its tile ids on from where the last call left
// the counter): calls queued back to back on one stream, of sizes that grow
// and shrink (a larger call clears more first), on both engines (up to 2^21 elements), and of
// types whose tile statuses are laid out differently (8-byte packed, 16-byte packed, split), are
// all exact. A status of the call before read as this call's, or a tile counter not where the
// call counts it, would make a tile combine a stale prefix or take a tile id past the end.
TEST(PooledStorage, KeptStorageCarriesNothingIntoTheNextCallOnItsStream)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t top    = std::min<std::size_t>(std::size_t{1} << 21, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  empty_the_pool();
  spscan_test::owned_stream own;
  const auto policy = thrust::cuda::par_nosync.on(own.stream);

  struct call
  {
    int type; // 0: int32, 1: int64, 2: affine maps
    std::size_t n;
    std::vector<std::uint32_t> words; // the input, as 32-bit words
  };
  std::mt19937_64 engine(seed);
  std::vector<call> calls;
  for (int i = 0; i < 30; ++i)
  {
    const int type      = static_cast<int>(engine() % 3);
    const double bits   = std::uniform_real_distribution<double>(10, std::log2(static_cast<double>(top)))(engine);
    const std::size_t n = static_cast<std::size_t>(std::exp2(bits));
    const std::size_t words_per = type == 0 ? 1 : 2;
    call c{type, n, std::vector<std::uint32_t>(n * words_per)};
    for (auto& w : c.words)
    {
      w = static_cast<std::uint32_t>(engine()) | 1u; // odd: affine multipliers stay invertible
    }
    calls.push_back(std::move(c));
  }
  std::vector<std::unique_ptr<device_array<std::uint32_t>>> ins, outs;
  for (const call& c : calls)
  {
    ins.push_back(std::make_unique<device_array<std::uint32_t>>(c.words.size()));
    outs.push_back(std::make_unique<device_array<std::uint32_t>>(c.words.size()));
    cuda_check(cudaMemcpyAsync(ins.back()->data, c.words.data(), c.words.size() * 4, cudaMemcpyHostToDevice, own.stream),
               "upload");
    cuda_check(cudaMemsetAsync(outs.back()->data, spscan_test::poison_byte, c.words.size() * 4, own.stream), "poison");
  }
  for (std::size_t i = 0; i < calls.size(); ++i)
  {
    const std::size_t n = calls[i].n;
    if (calls[i].type == 0)
    {
      auto* in = ins[i]->data;
      spscan::inclusive_scan(policy, in, in + n, outs[i]->data);
    }
    else if (calls[i].type == 1)
    {
      auto* in = reinterpret_cast<std::int64_t*>(ins[i]->data);
      spscan::inclusive_scan(policy, in, in + n, reinterpret_cast<std::int64_t*>(outs[i]->data));
    }
    else
    {
      auto* in = reinterpret_cast<spscan_test::affine32*>(ins[i]->data);
      spscan::inclusive_scan(
        policy, in, in + n, reinterpret_cast<spscan_test::affine32*>(outs[i]->data), spscan_test::compose_affine32{});
    }
  }
  for (std::size_t i = 0; i < calls.size(); ++i)
  {
    const call& c = calls[i];
    std::vector<std::uint32_t> got(c.words.size());
    cuda_check(cudaMemcpyAsync(got.data(), outs[i]->data, got.size() * 4, cudaMemcpyDeviceToHost, own.stream), "download");
    cuda_check(cudaStreamSynchronize(own.stream), "synchronize");
    std::vector<std::uint32_t> expected(c.words.size());
    if (c.type == 0)
    {
      expected = spscan_test::reference_inclusive<std::uint32_t>(c.words, thrust::plus<>{});
    }
    else if (c.type == 1)
    {
      std::vector<std::int64_t> values(c.n);
      std::memcpy(values.data(), c.words.data(), c.n * 8);
      const auto sums = spscan_test::reference_inclusive<std::int64_t>(values, thrust::plus<>{});
      std::memcpy(expected.data(), sums.data(), c.n * 8);
    }
    else
    {
      std::vector<spscan_test::affine32> maps(c.n);
      std::memcpy(maps.data(), c.words.data(), c.n * 8);
      const auto composed = spscan_test::reference_inclusive<spscan_test::affine32>(maps, spscan_test::compose_affine32{});
      std::memcpy(expected.data(), composed.data(), c.n * 8);
    }
    EXPECT_TRUE(got == expected) << "call " << i << " (type " << c.type << ", n " << c.n << ") is not exact";
  }
  EXPECT_TRUE(every_block_came_back());
}

// Streams are told apart by their ids: each host thread's per-thread default stream is its own
// stream (one handle, cudaStreamPerThread), and a stream created after another is destroyed (a
// handle CUDA may reuse) is a new one. Either mistake would let two calls share tile states
// without order between them.
TEST(PooledStorage, PerThreadStreamsAndRecreatedStreamsGetBlocksOfTheirOwn)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n      = multi_tile_elements();
  const std::uint64_t seed = spscan_test::fresh_seed();
  const std::vector<std::string> failures = failures_on_threads(4, [&](int t, const auto& check) {
    for (int round = 0; round < 6; ++round)
    {
      check(scan_is_exact(
        thrust::cuda::par_nosync.on(cudaStreamPerThread), n, cudaStreamPerThread, seed + 10 * t + round));
    }
  });
  for (int t = 0; t < 4; ++t)
  {
    EXPECT_TRUE(failures[t].empty()) << "thread " << t << " on its per-thread stream: " << failures[t];
  }
  for (int round = 0; round < 6; ++round)
  {
    spscan_test::owned_stream fresh;
    EXPECT_TRUE(scan_is_exact(thrust::cuda::par_nosync.on(fresh.stream), n, fresh.stream, seed + 100 + round));
  }
  EXPECT_TRUE(every_block_came_back());
}

// ---------------------------------------------------------------------------------------------
// Eight host threads (two under a sanitizer), each on its own stream, grow their scans from one
// tile to 2^22 elements at the same time, so the pool grows while other streams use it; with
// thrust::device and no policy (the legacy default stream, shared) in between.

TEST(PooledStorage, EightThreadsGrowingTheirCallsOnTheirOwnStreamsGetExactResults)
{
  SPSCAN_REQUIRE_GPU();
  empty_the_pool();
  const bool sanitized  = spscan_test::max_test_elements() != ~std::size_t{0};
  const int threads     = sanitized ? 2 : 8;
  const std::size_t top = std::min<std::size_t>(std::size_t{1} << 22, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  std::vector<int> scans(threads, 0);
  int rounds = 0;
  for (std::size_t n = 1000; n <= top; n = n * 2 + 17)
  {
    ++rounds;
  }
  const std::vector<std::string> failures = failures_on_threads(threads, [&](int t, const auto& check) {
    spscan_test::owned_stream own;
    int round = 0;
    for (std::size_t n = 1000; n <= top; n = n * 2 + 17, ++round)
    {
      const std::uint64_t s = seed + 1000 * t + round;
      switch (round % 4)
      {
        case 0: check(scan_is_exact(thrust::cuda::par_nosync.on(own.stream), n, own.stream, s)); break;
        case 1: check(scan_is_exact(thrust::cuda::par.on(own.stream), n, own.stream, s)); break;
        case 2: check(scan_is_exact(spscan::par_nosync.on(own.stream), n, own.stream, s)); break;
        default: check(scan_is_exact(thrust::device, n, 0, s)); break;
      }
      ++scans[t];
    }
  });
  for (int t = 0; t < threads; ++t)
  {
    EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
    EXPECT_EQ(scans[t], rounds) << "thread " << t << " ran all its calls";
  }
  EXPECT_TRUE(every_block_came_back()) << "every call gave its storage back";
}

// ---------------------------------------------------------------------------------------------
// Graph capture: a captured call takes graph-owned storage, so replays of the graph and eager
// calls on another stream at the same time do not share tile states.

// A captured call's storage is the graph's own, cleared by the call itself: a classic-engine size
// and, where the test size allows, one the ring engine takes (16 MiB of int64).
std::vector<std::size_t> captured_sizes()
{
  std::vector<std::size_t> sizes{multi_tile_elements()};
  if ((std::size_t{1} << 21) <= spscan_test::max_test_elements())
  {
    sizes.push_back((std::size_t{1} << 21) + 7);
  }
  return sizes;
}

void expect_captured_call_replays_exactly(std::size_t n)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", n " << n);
  spscan_test::owned_stream captured, eager;
  device_array<std::int64_t> in(n), out(n);

  ASSERT_EQ(cudaStreamBeginCapture(captured.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  spscan::inclusive_scan(thrust::cuda::par_nosync.on(captured.stream), in.data, in.data + n, out.data);
  cudaGraph_t graph{};
  ASSERT_EQ(cudaStreamEndCapture(captured.stream, &graph), cudaSuccess);
  cudaGraphExec_t exec{};
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  for (int replay = 0; replay < 4; ++replay)
  {
    const auto values = spscan_test::random_values<std::int64_t>(n, seed + replay);
    ASSERT_EQ(cudaMemcpyAsync(in.data, values.data(), n * 8, cudaMemcpyHostToDevice, captured.stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(out.data, spscan_test::poison_byte, n * 8, captured.stream), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, captured.stream), cudaSuccess);
    // Meanwhile, eager calls through the pool on another stream.
    EXPECT_TRUE(scan_is_exact(thrust::cuda::par_nosync.on(eager.stream), n, eager.stream, seed + 100 + replay));
    std::vector<std::int64_t> got(n);
    ASSERT_EQ(cudaMemcpyAsync(got.data(), out.data, n * 8, cudaMemcpyDeviceToHost, captured.stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(captured.stream), cudaSuccess);
    const auto expected = spscan_test::reference_inclusive<std::int64_t>(values, thrust::plus<>{});
    EXPECT_TRUE(got == expected) << "replay " << replay << " differs from the sequential reference";
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST(PooledStorage, CapturedCallsReplayWhileEagerCallsRunBeside)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : captured_sizes())
  {
    expect_captured_call_replays_exactly(n);
  }
}

// ---------------------------------------------------------------------------------------------
// Failure to allocate: a caller's allocator that throws stops the call with its exception, and
// the next call succeeds. (A device out of memory: out_of_memory_test.cu.)

TEST(PooledStorage, ACallersAllocatorThatThrowsStopsTheCallAndTheNextCallSucceeds)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = multi_tile_elements();
  device_array<std::int64_t> in(n), out(n);
  refusing_allocator refuse;
  EXPECT_THROW(spscan::inclusive_scan(thrust::cuda::par(refuse), in.data, in.data + n, out.data), std::bad_alloc);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_TRUE(scan_is_exact(thrust::device, n, 0, spscan_test::fresh_seed()));
}

// ---------------------------------------------------------------------------------------------
// cudaDeviceReset between calls: the pool and the kernels' shared-memory attributes belonged to
// the old context; the next calls make them again (8-byte scans need more than 48 KiB of shared
// memory, which a kernel gets only when it is prepared in the new context).

TEST(PooledStorage, CallsAfterCudaDeviceResetAreExact)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = multi_tile_elements();
  ASSERT_TRUE(scan_is_exact(thrust::device, n, 0, spscan_test::fresh_seed()));
  // First reset: with blocks kept, as in a program that knows nothing of them. (Not under a
  // sanitizer: its leak check counts memory allocated at a reset as leaked, although the reset
  // frees it.)
  if (spscan_test::max_test_elements() != ~std::size_t{0})
  {
    spscan::release_temporary_storage();
  }
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_TRUE(scan_is_exact(thrust::device, n, 0, spscan_test::fresh_seed())) << "first call after the reset";
  EXPECT_TRUE(scan_is_exact(thrust::cuda::par_nosync, n, cudaStreamLegacy, spscan_test::fresh_seed()));
  {
    spscan_test::owned_stream own;
    EXPECT_TRUE(scan_is_exact(spscan::par.on(own.stream), n, own.stream, spscan_test::fresh_seed()));
  }
  // Second reset: as a program checked for leaks does it, after releasing what spscan keeps.
  spscan::release_temporary_storage();
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  // By key too: its key copies are pooled as well (the output overwrites the keys).
  const auto keys = spscan_test::random_segment_keys<std::int64_t>(n, 50, spscan_test::fresh_seed());
  thrust::device_vector<std::int64_t> d_keys(keys.begin(), keys.end());
  const auto values = spscan_test::random_values<std::int64_t>(n, spscan_test::fresh_seed());
  thrust::device_vector<std::int64_t> d_values(values.begin(), values.end());
  spscan::inclusive_scan_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), d_keys.begin());
  const thrust::host_vector<std::int64_t> got = d_keys;
  const auto expected = spscan_test::reference_inclusive_by_key<std::int64_t>(
    keys, values, thrust::equal_to<>{}, thrust::plus<>{});
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin())) << "by-key scan in place after the reset";
}

// ---------------------------------------------------------------------------------------------
// 10^5 calls (10^3 under a sanitizer) through every pooled path keep no more memory and lose
// none: after a warm-up, the pool holds and lends what it did, and the device's free memory is
// what it was (within one 2 MiB granule of the pool's; not under a sanitizer, which allocates as
// it runs); at the end every block comes back.

TEST(PooledStorage, OneHundredThousandCallsLeakNothing)
{
  SPSCAN_REQUIRE_GPU();
  const bool sanitized = spscan_test::max_test_elements() != ~std::size_t{0};
  const int calls      = sanitized ? 1000 : 100000;
  const std::size_t n  = std::size_t{1} << 16; // several tiles of every shape
  const auto values    = spscan_test::random_values<std::int32_t>(n, spscan_test::fresh_seed());
  thrust::device_vector<std::int32_t> in(values.begin(), values.end()), out(n), keys(n, 3);
  thrust::device_vector<std::int32_t> key_out(n);
  spscan_test::owned_stream own;

  const auto one_round = [&](int i) {
    switch (i % 5)
    {
      case 0: spscan::inclusive_scan(in.begin(), in.end(), out.begin()); break;
      case 1: spscan::exclusive_scan(thrust::device, in.begin(), in.end(), out.begin()); break;
      case 2: spscan::inclusive_scan(thrust::cuda::par_nosync.on(own.stream), in.begin(), in.end(), out.begin()); break;
      case 3: spscan::inclusive_scan(spscan::par_nosync, in.begin(), in.end(), out.begin()); break;
      default: spscan::inclusive_scan_by_key(thrust::cuda::par_nosync.on(own.stream), keys.begin(), keys.end(), in.begin(), key_out.begin()); break;
    }
  };
  for (int i = 0; i < 50; ++i)
  {
    one_round(i);
  }
  cuda_check(cudaDeviceSynchronize(), "synchronize");
  std::size_t free_before = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
  const std::uint64_t reserved_before = pool_reserved_bytes();
  const std::uint64_t lent_before     = pool_used_bytes();

  for (int i = 0; i < calls; ++i)
  {
    one_round(i);
  }
  cuda_check(cudaDeviceSynchronize(), "synchronize");
  std::size_t free_after = 0;
  cuda_check(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo");
  EXPECT_EQ(pool_used_bytes(), lent_before) << "the calls reused the blocks kept after the warm-up";
  EXPECT_EQ(pool_reserved_bytes(), reserved_before) << "the pool did not grow after the warm-up";
  if (!sanitized) // a sanitizer takes device memory of its own as the program runs
  {
    EXPECT_LE(free_before, free_after + (std::size_t{2} << 20)) << "device memory lost over " << calls << " calls";
  }

  spscan::inclusive_scan(in.begin(), in.end(), out.begin());
  const thrust::host_vector<std::int32_t> got = out;
  const auto expected = spscan_test::reference_inclusive<std::int32_t>(values, thrust::plus<>{});
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got.begin())) << "the last call is exact";
  EXPECT_TRUE(every_block_came_back());
}

} // namespace

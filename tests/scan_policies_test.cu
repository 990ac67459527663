// spscan scans under every CUDA execution policy Thrust offers: results, the stream the scan runs
// on, synchronization (par syncs, par_nosync does not), temporary storage taken through an attached
// allocator (and none for a single tile), allocation failures, and CUDA errors as
// thrust::system_error.
#include <spscan/scan.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

// A named namespace, not an anonymous one: spscan's kernels have hidden visibility, which needs
// template arguments with external linkage.
namespace spscan_policies_test
{

using spscan_test::fresh_seed;
using spscan_test::route_probe;
using spscan_test::poison_byte;
using spscan_test::random_values;

// int data, int accumulator, int output: the tile every scan in this file is cut into.
constexpr std::size_t tile = spscan::detail::scan_tuning<int, int, int>::tile_items;
constexpr std::size_t single_tile_size = 1000;
constexpr std::size_t multi_tile_size  = 3 * tile + 17;

// ---------------------------------------------------------------------------------------------
// Helpers.

void check_cuda(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

::testing::AssertionResult same_elements(const std::vector<int>& actual, const std::vector<int>& expected)
{
  if (actual.size() != expected.size())
  {
    return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs " << expected.size();
  }
  std::size_t mismatches = 0;
  std::size_t first      = 0;
  for (std::size_t i = 0; i < actual.size(); ++i)
  {
    if (actual[i] != expected[i])
    {
      first = mismatches == 0 ? i : first;
      ++mismatches;
    }
  }
  if (mismatches == 0)
  {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << mismatches << " of " << actual.size() << " elements differ; first at "
                                       << first << ": got " << actual[first] << ", expected " << expected[first];
}

::testing::AssertionResult still_poisoned(const std::vector<int>& values)
{
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(int); ++i)
  {
    if (bytes[i] != poison_byte)
    {
      return ::testing::AssertionFailure() << "element " << i / sizeof(int) << " was written";
    }
  }
  return ::testing::AssertionSuccess();
}

// Poisons and waits, so that no later work on another stream can overtake the memset.
void poison(thrust::device_vector<int>& v)
{
  check_cuda(cudaMemset(thrust::raw_pointer_cast(v.data()), poison_byte, v.size() * sizeof(int)), "poisoning");
  check_cuda(cudaDeviceSynchronize(), "poisoning");
}

thrust::device_vector<int> poisoned(std::size_t n)
{
  thrust::device_vector<int> v(n);
  poison(v);
  return v;
}

std::vector<int> download(const thrust::device_vector<int>& v)
{
  std::vector<int> host(v.size());
  check_cuda(
    cudaMemcpy(host.data(), thrust::raw_pointer_cast(v.data()), v.size() * sizeof(int), cudaMemcpyDeviceToHost),
    "download");
  return host;
}

// A stream that does not synchronize with the legacy default stream, so that nothing the test does
// on the default stream can hide which stream a scan really ran on.
class owned_stream
{
public:
  owned_stream()
  {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
  }
  ~owned_stream()
  {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  owned_stream(const owned_stream&)            = delete;
  owned_stream& operator=(const owned_stream&) = delete;

  cudaStream_t get() const
  {
    return stream_;
  }

private:
  cudaStream_t stream_{};
};


::testing::Message trace(std::uint64_t seed, std::size_t n)
{
  return ::testing::Message() << "seed " << seed << ", n " << n;
}

// Inputs and references for one size: random ints, an init, the CPU references and the results of
// the same scans through Thrust with thrust::device.
struct scan_case
{
  std::size_t n;
  std::uint64_t seed;
  std::vector<int> host_in;
  int init;
  thrust::device_vector<int> input;
  std::vector<int> inclusive;
  std::vector<int> exclusive;
  std::vector<int> thrust_inclusive;
  std::vector<int> thrust_exclusive;

  scan_case(std::size_t n_, std::uint64_t seed_)
      : n(n_)
      , seed(seed_)
      , host_in(random_values<int>(n_, seed_))
      , init(random_values<int>(1, seed_ + 1)[0])
      , input(host_in.begin(), host_in.end())
      , inclusive(spscan_test::reference_inclusive<int>(host_in, thrust::plus<>{}))
      , exclusive(spscan_test::reference_exclusive(host_in, init, thrust::plus<>{}))
  {
    auto out = poisoned(n);
    thrust::inclusive_scan(thrust::device, input.begin(), input.end(), out.begin());
    thrust_inclusive = download(out);
    poison(out);
    thrust::exclusive_scan(thrust::device, input.begin(), input.end(), out.begin(), init);
    thrust_exclusive = download(out);
  }
};

// Holds a stream busy for `duration_ns`, timed by the GPU's global nanosecond timer (so the time
// does not depend on the SM clock); __nanosleep keeps the waiting thread from hogging its SM.
__global__ void hold_stream_busy(unsigned long long duration_ns)
{
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;)
  {
    unsigned long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= duration_ns)
    {
      return;
    }
    __nanosleep(1000);
  }
}

// Long enough that the host side of a scan (microseconds) ends well before the kernel does, even
// on a loaded machine; short enough to keep each test well under a second.
constexpr unsigned long long busy_ns = 100'000'000;

// ---------------------------------------------------------------------------------------------
// Allocators for thrust::cuda::par(alloc).

struct allocation_log
{
  std::size_t allocations   = 0;
  std::size_t deallocations = 0;
  std::size_t bytes_allocated = 0;
  std::size_t bytes_freed     = 0;
};

// Device memory from cudaMalloc, every call and byte recorded in a log the test owns.
class counting_allocator
{
public:
  using value_type = char;

  explicit counting_allocator(allocation_log& log)
      : log_(&log)
  {}

  char* allocate(std::size_t bytes)
  {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
    {
      cudaGetLastError();
      throw std::bad_alloc();
    }
    ++log_->allocations;
    log_->bytes_allocated += bytes;
    return static_cast<char*>(p);
  }

  void deallocate(char* p, std::size_t bytes)
  {
    ++log_->deallocations;
    log_->bytes_freed += bytes;
    cudaFree(p);
  }

private:
  allocation_log* log_;
};

// Fails every allocation; records the deallocations it is (wrongly) asked for.
class throwing_allocator
{
public:
  using value_type = char;

  explicit throwing_allocator(allocation_log& log)
      : log_(&log)
  {}

  char* allocate(std::size_t)
  {
    ++log_->allocations;
    throw std::bad_alloc();
  }

  void deallocate(char*, std::size_t bytes)
  {
    ++log_->deallocations;
    log_->bytes_freed += bytes;
  }

private:
  allocation_log* log_;
};

// ---------------------------------------------------------------------------------------------
// Results under each policy.

// Inclusive and exclusive scans, one tile, several tiles and about a million elements, checked
// against the CPU reference and Thrust. `stream` is the policy's stream; nosync policies are
// waited for before the results are read, the others are read straight away.
template <class Policy>
void expect_correct_results(const Policy& policy, cudaStream_t stream, bool synchronizes)
{
  for (std::size_t n : {single_tile_size, multi_tile_size, std::size_t{1000003}})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    const scan_case c(n, fresh_seed());
    SCOPED_TRACE(trace(c.seed, n));
    auto out = poisoned(n);

    route_probe probe;
    auto end = spscan::inclusive_scan(policy, c.input.begin(), c.input.end(), out.begin());
    if (!synchronizes)
    {
      check_cuda(cudaStreamSynchronize(stream), "waiting for a nosync scan");
    }
    EXPECT_EQ(probe.kernel_calls(), 1u);
    EXPECT_EQ(probe.thrust_calls(), 0u);
    EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n));
    auto got = download(out);
    EXPECT_TRUE(same_elements(got, c.inclusive)) << "inclusive_scan vs CPU reference";
    EXPECT_TRUE(same_elements(got, c.thrust_inclusive)) << "inclusive_scan vs Thrust";

    poison(out);
    probe = route_probe{};
    end   = spscan::exclusive_scan(policy, c.input.begin(), c.input.end(), out.begin(), c.init);
    if (!synchronizes)
    {
      check_cuda(cudaStreamSynchronize(stream), "waiting for a nosync scan");
    }
    EXPECT_EQ(probe.kernel_calls(), 1u);
    EXPECT_EQ(probe.thrust_calls(), 0u);
    EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n));
    got = download(out);
    EXPECT_TRUE(same_elements(got, c.exclusive)) << "exclusive_scan vs CPU reference";
    EXPECT_TRUE(same_elements(got, c.thrust_exclusive)) << "exclusive_scan vs Thrust";
  }
}

TEST(ScanPolicies, ThrustDeviceScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  expect_correct_results(thrust::device, cudaStream_t{}, true);
}

TEST(ScanPolicies, CudaParScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  expect_correct_results(thrust::cuda::par, cudaStream_t{}, true);
}

TEST(ScanPolicies, CudaParOnStreamScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  expect_correct_results(thrust::cuda::par.on(stream.get()), stream.get(), true);
}

TEST(ScanPolicies, CudaParNosyncScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  expect_correct_results(thrust::cuda::par_nosync, cudaStream_t{}, false);
}

TEST(ScanPolicies, CudaParNosyncOnStreamScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  expect_correct_results(thrust::cuda::par_nosync.on(stream.get()), stream.get(), false);
}

TEST(ScanPolicies, CudaParWithAllocatorScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  allocation_log log;
  counting_allocator alloc(log);
  expect_correct_results(thrust::cuda::par(alloc), cudaStream_t{}, true);
}

TEST(ScanPolicies, CudaParWithAllocatorOnStreamScansCorrectly)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  allocation_log log;
  counting_allocator alloc(log);
  expect_correct_results(thrust::cuda::par(alloc).on(stream.get()), stream.get(), true);
}

// ---------------------------------------------------------------------------------------------
// Temporary storage through the policy's allocator.

// A multi-tile scan takes its tile states from the attached allocator and gives every byte back
// before returning; results are still right.
template <class MakePolicy>
void expect_multi_tile_storage_through_allocator(MakePolicy make_policy)
{
  const scan_case c(multi_tile_size, fresh_seed());
  SCOPED_TRACE(trace(c.seed, c.n));
  allocation_log log;
  counting_allocator alloc(log);
  auto out = poisoned(c.n);

  spscan::inclusive_scan(make_policy(alloc), c.input.begin(), c.input.end(), out.begin());

  EXPECT_GT(log.allocations, 0u) << "the multi-tile scan took no storage from the allocator";
  EXPECT_GT(log.bytes_allocated, 0u);
  EXPECT_EQ(log.deallocations, log.allocations) << "allocations not returned";
  EXPECT_EQ(log.bytes_freed, log.bytes_allocated) << "bytes not returned";
  EXPECT_TRUE(same_elements(download(out), c.inclusive));
}

TEST(ScanPolicies, MultiTileScanTakesAndReturnsItsStorageThroughParAllocator)
{
  SPSCAN_REQUIRE_GPU();
  expect_multi_tile_storage_through_allocator([](counting_allocator& alloc) {
    return thrust::cuda::par(alloc);
  });
}

TEST(ScanPolicies, MultiTileScanTakesAndReturnsItsStorageThroughParAllocatorOnStream)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  expect_multi_tile_storage_through_allocator([&](counting_allocator& alloc) {
    return thrust::cuda::par(alloc).on(stream.get());
  });
}

// A scan of at most one tile needs no tile states, so it must not touch the allocator at all; a
// throwing allocator therefore does not fail it.
TEST(ScanPolicies, SingleTileScanAllocatesNothing)
{
  SPSCAN_REQUIRE_GPU();
  for (std::size_t n : {single_tile_size, tile})
  {
    const scan_case c(n, fresh_seed());
    SCOPED_TRACE(trace(c.seed, n));
    auto out = poisoned(n);

    allocation_log counted;
    counting_allocator counting(counted);
    spscan::inclusive_scan(thrust::cuda::par(counting), c.input.begin(), c.input.end(), out.begin());
    EXPECT_EQ(counted.allocations, 0u);
    EXPECT_EQ(counted.bytes_allocated, 0u);
    EXPECT_TRUE(same_elements(download(out), c.inclusive));

    poison(out);
    allocation_log refused;
    throwing_allocator throwing(refused);
    EXPECT_NO_THROW(
      spscan::exclusive_scan(thrust::cuda::par(throwing), c.input.begin(), c.input.end(), out.begin(), c.init));
    EXPECT_EQ(refused.allocations, 0u);
    EXPECT_TRUE(same_elements(download(out), c.exclusive));
  }
}

// The allocator's exception reaches the caller unchanged, nothing is launched (the output keeps
// its poison, every element) and nothing is handed back that was never given.
template <class MakePolicy>
void expect_allocation_failure_propagates(MakePolicy make_policy)
{
  const scan_case c(multi_tile_size, fresh_seed());
  SCOPED_TRACE(trace(c.seed, c.n));
  allocation_log log;
  throwing_allocator alloc(log);
  auto out = poisoned(c.n);

  EXPECT_THROW(spscan::inclusive_scan(make_policy(alloc), c.input.begin(), c.input.end(), out.begin()), std::bad_alloc);
  check_cuda(cudaDeviceSynchronize(), "after the failed scan");
  EXPECT_EQ(log.allocations, 1u);
  EXPECT_EQ(log.deallocations, 0u);
  EXPECT_TRUE(still_poisoned(download(out)));
}

TEST(ScanPolicies, AllocatorFailureThrowsAndLeavesOutputUntouched)
{
  SPSCAN_REQUIRE_GPU();
  expect_allocation_failure_propagates([](throwing_allocator& alloc) {
    return thrust::cuda::par(alloc);
  });
}

TEST(ScanPolicies, AllocatorFailureOnStreamThrowsAndLeavesOutputUntouched)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  expect_allocation_failure_propagates([&](throwing_allocator& alloc) {
    return thrust::cuda::par(alloc).on(stream.get());
  });
}

// ---------------------------------------------------------------------------------------------
// The policy's stream and synchronization.

// Queues, on `stream`: a kernel that keeps it busy for busy_ns, the copy of the real input over a
// stale one, then the scan under `policy`. Returns cudaStreamQuery(stream) taken the moment the
// scan returns. The scan sees the real input only if it ran on `stream`, after the copy: a scan on
// any other stream would read the stale values, and the results checked afterwards would differ.
template <class Policy>
cudaError_t stream_state_when_scan_returns(const Policy& policy, cudaStream_t stream, std::size_t n)
{
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(trace(seed, n));
  const auto host_in = random_values<int>(n, seed);
  const auto stale   = random_values<int>(n, seed + 1);
  const thrust::device_vector<int> source(host_in.begin(), host_in.end());
  thrust::device_vector<int> input(stale.begin(), stale.end());
  auto out = poisoned(n);

  // The same scan once beforehand: loading its kernel lazily must not happen while the stream is
  // held (module loading may wait for the device).
  spscan::inclusive_scan(policy, input.begin(), input.end(), out.begin());
  check_cuda(cudaStreamSynchronize(stream), "warm-up scan");
  poison(out);

  hold_stream_busy<<<1, 1, 0, stream>>>(busy_ns);
  check_cuda(cudaGetLastError(), "launching the busy kernel");
  check_cuda(cudaMemcpyAsync(thrust::raw_pointer_cast(input.data()),
                             thrust::raw_pointer_cast(source.data()),
                             n * sizeof(int),
                             cudaMemcpyDeviceToDevice,
                             stream),
             "queueing the input copy");
  const route_probe probe;
  const auto end           = spscan::inclusive_scan(policy, input.begin(), input.end(), out.begin());
  const cudaError_t status = cudaStreamQuery(stream);
  cudaGetLastError(); // cudaErrorNotReady is a state, not an error: keep it from reaching later checks

  check_cuda(cudaStreamSynchronize(stream), "waiting for the stream");
  EXPECT_EQ(probe.kernel_calls(), 1u);
  EXPECT_EQ(end - out.begin(), static_cast<std::ptrdiff_t>(n));
  EXPECT_TRUE(same_elements(download(out), spscan_test::reference_inclusive<int>(host_in, thrust::plus<>{})))
    << "the scan did not run on the policy's stream after the work queued there";
  return status;
}

TEST(ScanPolicies, ParNosyncOnStreamRunsOnThatStreamAndReturnsWhileItIsBusy)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  for (std::size_t n : {single_tile_size, multi_tile_size})
  {
    EXPECT_EQ(stream_state_when_scan_returns(thrust::cuda::par_nosync.on(stream.get()), stream.get(), n),
              cudaErrorNotReady)
      << "par_nosync waited for the stream (n " << n << ")";
  }
}

TEST(ScanPolicies, ParOnStreamRunsOnThatStreamAndReturnsOnlyWhenItIsIdle)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  for (std::size_t n : {single_tile_size, multi_tile_size})
  {
    EXPECT_EQ(stream_state_when_scan_returns(thrust::cuda::par.on(stream.get()), stream.get(), n), cudaSuccess)
      << "par returned before its stream was idle (n " << n << ")";
  }
}

TEST(ScanPolicies, ParWithAllocatorOnStreamRunsOnThatStreamAndReturnsOnlyWhenItIsIdle)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  allocation_log log;
  counting_allocator alloc(log);
  for (std::size_t n : {single_tile_size, multi_tile_size})
  {
    EXPECT_EQ(stream_state_when_scan_returns(thrust::cuda::par(alloc).on(stream.get()), stream.get(), n), cudaSuccess)
      << "par(alloc) returned before its stream was idle (n " << n << ")";
  }
  EXPECT_EQ(log.bytes_freed, log.bytes_allocated);
}

// ---------------------------------------------------------------------------------------------
// CUDA errors.

// The trigger must be an error in one of spscan's own CUDA calls, well defined, and not sticky (a
// sticky error would poison every later test in the process). Candidates rejected:
//  - freed or host pointers as input, destroyed streams: undefined behaviour;
//  - a failed launch left pending before the call: not one of spscan's errors, and Thrust itself
//    clears such a pending error (its error check resets the runtime's last error) before it
//    launches anything, so a drop-in cannot promise to report it.
// Chosen: a stream being captured into a CUDA graph (relaxed mode, so only calls that truly
// conflict with capture fail). A single-tile scan under thrust::cuda::par.on(stream) records its
// kernel into the graph, then synchronizes the stream as Thrust would, and synchronizing a
// capturing stream is refused with a stream-capture error. Nothing runs, the error is not sticky,
// and ending the capture restores the stream.
TEST(ScanPolicies, CudaErrorDuringTheCallIsThrownAsThrustSystemError)
{
  SPSCAN_REQUIRE_GPU();
  const owned_stream stream;
  const scan_case c(single_tile_size, fresh_seed());
  SCOPED_TRACE(trace(c.seed, c.n));
  auto out = poisoned(c.n);

  // Load the kernel before capturing (see the busy-stream tests).
  spscan::inclusive_scan(thrust::cuda::par.on(stream.get()), c.input.begin(), c.input.end(), out.begin());
  poison(out);

  check_cuda(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeRelaxed), "beginning capture");
  bool thrown = false;
  try
  {
    spscan::inclusive_scan(thrust::cuda::par.on(stream.get()), c.input.begin(), c.input.end(), out.begin());
  }
  catch (const thrust::system_error& error)
  {
    thrown = true;
    EXPECT_TRUE(error.code().category() == thrust::cuda_category());
    const int code = error.code().value();
    EXPECT_TRUE(code == cudaErrorStreamCaptureUnsupported || code == cudaErrorStreamCaptureInvalidated)
      << "unexpected CUDA error " << code << ": " << error.what();
  }
  EXPECT_TRUE(thrown) << "synchronizing a capturing stream did not throw thrust::system_error";

  // Ending the capture reports the invalidated capture (or hands back a graph); either way the
  // stream leaves capture mode.
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(stream.get(), &graph);
  if (graph != nullptr)
  {
    cudaGraphDestroy(graph);
  }
  cudaGetLastError(); // the invalidated capture's error is expected; clear it

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusActive;
  ASSERT_EQ(cudaStreamIsCapturing(stream.get(), &capture), cudaSuccess);
  ASSERT_EQ(capture, cudaStreamCaptureStatusNone);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the error must not be sticky";
  EXPECT_TRUE(still_poisoned(download(out))) << "the captured scan must never have run";

  // The stream and the library work normally afterwards.
  spscan::inclusive_scan(thrust::cuda::par.on(stream.get()), c.input.begin(), c.input.end(), out.begin());
  EXPECT_TRUE(same_elements(download(out), c.inclusive));
}

} // namespace spscan_policies_test

// Sharded scans over the GPUs of one host (<spscan/sharded_scan.h>): throughput against one GPU's
// scan of one shard's worth, for every GPU count from 1 to what the machine has, and the two
// schemes a sharded scan can take:
//  - reduce-then-scan (spscan's): each GPU reduces its shard, the totals are all-gathered, each
//    GPU scans its shard from the fold of the totals before it. Reads a shard twice, writes once.
//  - scan-then-fix-up (here only, to compare): each GPU scans its shard alone, the last elements
//    are all-gathered, each GPU but the first adds its prefix to every element. Reads twice,
//    writes twice.
// Also, on GPU 0 alone: the reduction and a device-to-device copy of one shard, which bound what
// the sharded scan can reach (docs/design.md#sharded-scans). Int32 shards of 2^log2n elements (default 2^30);
// every scheme is first checked bit for bit against GPU 0's scan of the concatenation at 2^24 per
// GPU. Host clock around each whole call (every GPU's stream synchronized), median of --reps.
static const char* bench_name = "sharded_scan_bench";

#include "bench_support.h"

#include <spscan/scan.h>
#include <spscan/sharded_scan.h>

#include <thrust/execution_policy.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace bench;

namespace
{

using value = std::int32_t;

void check_nccl(ncclResult_t status, const char* call)
{
  if (status != ncclSuccess)
  {
    bench::fail(std::string(call) + ": " + ncclGetErrorString(status));
  }
}

// The arrays of one GPU.
struct gpu_arrays
{
  int device;
  cudaStream_t stream;
  std::unique_ptr<bench::device_array<value>> in, out;
  std::unique_ptr<bench::device_array<value>> slots; // scan-then-fix-up's gathered totals
};

__global__ void add_prefix(value* data, std::size_t n, const value* slots, int rank)
{
  value prefix = 0;
  for (int r = 0; r < rank; ++r)
  {
    prefix += slots[r];
  }
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  int4* words              = reinterpret_cast<int4*>(data);
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n / 4; i += stride)
  {
    int4 w = words[i];
    w.x += prefix, w.y += prefix, w.z += prefix, w.w += prefix;
    words[i] = w;
  }
  for (std::size_t i = n / 4 * 4 + std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    data[i] += prefix;
  }
}

void sync_all(const std::vector<gpu_arrays>& gpus, int count)
{
  for (int r = 0; r < count; ++r)
  {
    CHECK_CUDA(cudaSetDevice(gpus[r].device));
    CHECK_CUDA(cudaStreamSynchronize(gpus[r].stream));
  }
  CHECK_CUDA(cudaSetDevice(0));
}

// scan-then-fix-up over the first `count` GPUs, n elements each.
void scan_then_fix_up(std::vector<gpu_arrays>& gpus, const std::vector<ncclComm_t>& comms, int count, std::size_t n,
                      int sm_count)
{
  for (int r = 0; r < count; ++r)
  {
    CHECK_CUDA(cudaSetDevice(gpus[r].device));
    spscan::inclusive_scan(thrust::cuda::par_nosync.on(gpus[r].stream), gpus[r].in->get(), gpus[r].in->get() + n,
                           gpus[r].out->get());
    CHECK_CUDA(cudaMemcpyAsync(gpus[r].slots->get() + r, gpus[r].out->get() + n - 1, sizeof(value),
                               cudaMemcpyDeviceToDevice, gpus[r].stream));
  }
  if (count > 1)
  {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < count; ++r)
    {
      check_nccl(ncclAllGather(gpus[r].slots->get() + r, gpus[r].slots->get(), 1, ncclInt32, comms[r], gpus[r].stream),
                 "ncclAllGather");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
  for (int r = 1; r < count; ++r)
  {
    CHECK_CUDA(cudaSetDevice(gpus[r].device));
    add_prefix<<<sm_count * 8, 256, 0, gpus[r].stream>>>(gpus[r].out->get(), n, gpus[r].slots->get(), r);
    CHECK_CUDA(cudaGetLastError());
  }
  sync_all(gpus, count);
}

void reduce_then_scan(std::vector<gpu_arrays>& gpus, const spscan::shard_communicator& group, std::size_t n)
{
  std::vector<spscan::shard<const value*>> shards;
  std::vector<value*> results;
  for (int r = 0; r < group.size(); ++r)
  {
    shards.push_back({gpus[r].in->get(), gpus[r].in->get() + n});
    results.push_back(gpus[r].out->get());
  }
  spscan::sharded_inclusive_scan(group, shards, results);
}

template <class Call>
double median_host_ms(Call call, int reps)
{
  call();
  call();
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i)
  {
    const auto begin = std::chrono::steady_clock::now();
    call();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  }
  return bench::median_of(samples);
}

// Every scheme's output at `n` per GPU against GPU 0's scan of the concatenation, bit for bit.
bool check_scheme(const char* scheme, std::vector<gpu_arrays>& gpus, int count, std::size_t n, int sm_count)
{
  CHECK_CUDA(cudaSetDevice(0));
  bench::device_array<value> whole(n * count), sharded(n * count), want(n * count);
  for (int r = 0; r < count; ++r)
  {
    CHECK_CUDA(cudaMemcpyPeer(whole.get() + r * n, 0, gpus[r].in->get(), gpus[r].device, n * sizeof(value)));
    CHECK_CUDA(cudaMemcpyPeer(sharded.get() + r * n, 0, gpus[r].out->get(), gpus[r].device, n * sizeof(value)));
  }
  spscan::inclusive_scan(thrust::device, whole.get(), whole.get() + n * count, want.get());
  const auto outcome = bench::compare_on_device(sharded.get(), want.get(), n * count, sm_count);
  if (!outcome.passed)
  {
    std::printf("check FAILED: %s on %d GPUs: %llu elements differ, first at %llu\n", scheme, count, outcome.differing,
                outcome.first_differing);
  }
  return outcome.passed;
}

} // namespace

int main(int argc, char** argv)
{
  int log2n = 30, reps = 10, check_log2n = 24;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--log2n")) log2n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--check-log2n")) check_log2n = std::atoi(argv[i + 1]);
    else bench::fail(std::string("unknown option ") + argv[i]);
  }
  int gpu_count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&gpu_count));
  int sm_count = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  const std::size_t n = std::size_t{1} << log2n;
  std::printf("sharded_scan_bench: %d x %s, NCCL %d, int32 shards of 2^%d, median of %d, host clock\n", gpu_count,
              prop.name, nccl_version, log2n, reps);

  std::vector<gpu_arrays> gpus(static_cast<std::size_t>(gpu_count));
  std::vector<int> devices;
  for (int r = 0; r < gpu_count; ++r)
  {
    CHECK_CUDA(cudaSetDevice(r));
    for (int peer = 0; peer < gpu_count; ++peer)
    {
      int can = 0;
      CHECK_CUDA(cudaDeviceCanAccessPeer(&can, r, peer));
      if (peer != r && can)
      {
        cudaDeviceEnablePeerAccess(peer, 0);
        cudaGetLastError();
      }
    }
    gpus[r].device = r;
    CHECK_CUDA(cudaStreamCreateWithFlags(&gpus[r].stream, cudaStreamNonBlocking));
    gpus[r].in    = std::make_unique<bench::device_array<value>>(n);
    gpus[r].out   = std::make_unique<bench::device_array<value>>(n);
    gpus[r].slots = std::make_unique<bench::device_array<value>>(gpu_count);
    bench::fill_random<<<bench::grid_for(n, sm_count), 256>>>(gpus[r].in->get(), n, 1000 + r);
    CHECK_CUDA(cudaDeviceSynchronize());
    devices.push_back(r);
  }
  CHECK_CUDA(cudaSetDevice(0));

  // GPU 0 alone: one GPU's scan, the reduction and a copy of one shard (CUDA events).
  bench::event_timer timer;
  bench::device_array<unsigned char> scratch(spscan::detail::reduce_scratch_bytes<value, const value*>(n) + 16);
  bench::device_array<value> total(1);
  const double copy_ms = timer.median_ms([&] {
    CHECK_CUDA(cudaMemcpyAsync(gpus[0].out->get(), gpus[0].in->get(), n * sizeof(value), cudaMemcpyDeviceToDevice, bench::bench_stream));
  }, 3, reps);
  const double reduce_ms = timer.median_ms([&] {
    spscan::detail::reduce_on_device<value>(bench::bench_stream, gpus[0].in->get(), n, thrust::plus<>{}, total.get(), scratch.get());
  }, 3, reps);
  const double scan_event_ms = timer.median_ms([&] {
    spscan::inclusive_scan(thrust::cuda::par_nosync.on(bench::bench_stream), gpus[0].in->get(), gpus[0].in->get() + n, gpus[0].out->get());
  }, 3, reps);
  const double one_gpu_ms = median_host_ms([&] {
    spscan::inclusive_scan(thrust::cuda::par.on(gpus[0].stream), gpus[0].in->get(), gpus[0].in->get() + n, gpus[0].out->get());
  }, reps);
  std::printf("GPU 0, 2^%d int32: copy %.3f ms, reduce %.3f ms (%.2f of copy's time), scan %.3f ms events / %.3f ms host\n",
              log2n, copy_ms, reduce_ms, reduce_ms / copy_ms, scan_event_ms, one_gpu_ms);
  std::printf("model: reduce-then-scan on G GPUs takes reduce + scan, so its speedup is at most G * scan / (reduce + scan) = %.2f * G\n",
              one_gpu_ms / (reduce_ms + one_gpu_ms));

  bool all_passed = true;
  struct row
  {
    int gpus;
    const char* scheme;
    double ms;
  };
  std::vector<row> rows;
  for (int count = 1; count <= gpu_count; ++count)
  {
    std::vector<int> used(devices.begin(), devices.begin() + count);
    spscan::shard_communicator group(used);
    std::vector<ncclComm_t> comms;
    for (int r = 0; r < count; ++r)
    {
      comms.push_back(group.comm(r));
    }
    const std::size_t check_n = std::size_t{1} << check_log2n;
    reduce_then_scan(gpus, group, check_n);
    // The check reads outputs written through other streams: they were synchronized by the call.
    all_passed &= check_scheme("reduce-then-scan", gpus, count, check_n, sm_count);
    scan_then_fix_up(gpus, comms, count, check_n, sm_count);
    all_passed &= check_scheme("scan-then-fix-up", gpus, count, check_n, sm_count);

    rows.push_back({count, "reduce-then-scan", median_host_ms([&] { reduce_then_scan(gpus, group, n); }, reps)});
    rows.push_back({count, "scan-then-fix-up", median_host_ms([&] { scan_then_fix_up(gpus, comms, count, n, sm_count); }, reps)});
  }

  std::printf("\n| GPUs | scheme | ms | elements/s (G) | speedup vs one GPU's scan |\n|---|---|---|---|---|\n");
  std::printf("| 1 | one GPU's scan (spscan::inclusive_scan) | %.3f | %.1f | 1.00 |\n", one_gpu_ms, double(n) / one_gpu_ms / 1e6);
  for (const row& r : rows)
  {
    const double elements = double(n) * r.gpus;
    std::printf("| %d | %s | %.3f | %.1f | %.2f |\n", r.gpus, r.scheme, r.ms, elements / r.ms / 1e6,
                (elements / r.ms) / (double(n) / one_gpu_ms));
  }
  std::printf("checks: %s\n", all_passed ? "all exact" : "FAILED");
  return all_passed ? 0 : 1;
}

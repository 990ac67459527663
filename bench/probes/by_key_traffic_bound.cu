// by_key_traffic_bound: the ceiling of any single-pass by-key scan, measured.
//
// A by-key scan reads its keys and values and writes its values, each once. This program moves
// exactly that traffic with the plainest streaming kernel (16-byte loads and stores, one or four
// in flight a thread, grid-stride, 2-32 CTAs of 256 threads an SM; the fastest of them counts) and
// sets it beside cub::DeviceScan::InclusiveSumByKey (temporary storage allocated before timing)
// and scan_by_key_bench's copy (a cudaMemcpyAsync of half the traffic's bytes). No scan that
// reads and writes every element once can beat the stream by much: where the stream is under
// 1.2x of CUB, so is every design (docs/design.md#traffic-bound-of-by-key-scans-h100).
// Each value leaves negated unless its key equals its pair's (elements 2k and 2k + 1), so the keys
// are used; the output is checked against a one-element-a-thread kernel doing the same.
//
//   by_key_traffic_bound [--min 20] [--max 28]
static const char* bench_name = "by_key_traffic_bound";
#include "bench_support.h"

#include <cub/device/device_scan.cuh>

#include <cstdlib>
#include <string>

using namespace bench;

namespace
{

// 16 bytes of values and the keys beside them: two doubles, or four 4-byte values.
template <class V>
struct vectors;
template <>
struct vectors<double>
{
  using values = double2;
  using keys   = int2;
};
template <>
struct vectors<float>
{
  using values = float4;
  using keys   = int4;
};
template <>
struct vectors<int>
{
  using values = int4;
  using keys   = int4;
};

template <class V>
__host__ __device__ V kept_if_pair_equal(V v, int key, int pair_key)
{
  return key == pair_key ? v : -v;
}

__device__ double2 transform(double2 v, int2 k)
{
  return {kept_if_pair_equal(v.x, k.x, k.y), kept_if_pair_equal(v.y, k.y, k.x)};
}
template <class V4>
__device__ V4 transform(V4 v, int4 k)
{
  return {kept_if_pair_equal(v.x, k.x, k.y), kept_if_pair_equal(v.y, k.y, k.x),
          kept_if_pair_equal(v.z, k.z, k.w), kept_if_pair_equal(v.w, k.w, k.z)};
}

// `Unroll` vectors a thread in flight: all loads first, then all stores.
template <class V, int Unroll>
__global__ void stream_by_key_traffic(const int* keys, const V* values, V* out, std::size_t vector_count)
{
  using value_vector = typename vectors<V>::values;
  using key_vector   = typename vectors<V>::keys;
  const auto* in_values = reinterpret_cast<const value_vector*>(values);
  const auto* in_keys   = reinterpret_cast<const key_vector*>(keys);
  auto* out_values      = reinterpret_cast<value_vector*>(out);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t first = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; first < vector_count; first += stride * Unroll)
  {
    value_vector v[Unroll];
    key_vector k[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      const std::size_t at = first + u * stride;
      if (at < vector_count)
      {
        v[u] = in_values[at];
        k[u] = in_keys[at];
      }
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
    {
      const std::size_t at = first + u * stride;
      if (at < vector_count)
      {
        out_values[at] = transform(v[u], k[u]);
      }
    }
  }
}

// The same result, one element a thread: what the stream's output is checked against.
template <class V>
__global__ void reference_by_key_traffic(const int* keys, const V* values, V* out, std::size_t n)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    out[i] = kept_if_pair_equal(values[i], keys[i], keys[i ^ 1]);
  }
}

// Keys in runs of 8 with a few longer (the hash decides), so pairs mostly share a key.
__global__ void fill_keys(int* keys, std::size_t n, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    keys[i] = static_cast<int>((i >> 3) + (hash_index(seed ^ (i >> 3)) % 4 == 0 ? i % 3 : 0));
  }
}

int failures = 0;

template <class V>
void run_case(const char* value_name, int log2n, int sm_count)
{
  const std::size_t n = std::size_t{1} << log2n;
  device_array<int> keys(n);
  device_array<V> values(n), out(n), reference(n);
  fill_keys<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(keys.get(), n, 11 + log2n);
  fill_random<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(values.get(), n, 23 + log2n);
  CHECK_CUDA(cudaGetLastError());
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, keys.get(), values.get(), out.get(), n,
                                                ::cuda::std::equal_to<>{}, bench_stream));
  device_array<char> temp(temp_bytes);
  const std::size_t copy_bytes = by_key_copy_bytes<V>(n);
  device_array<char> copy_in(copy_bytes), copy_out(copy_bytes);

  event_timer timer;
  const int reps = log2n >= 26 ? 21 : 41;
  const double copy_ms = timer.median_ms([&] {
    CHECK_CUDA(cudaMemcpyAsync(copy_out.get(), copy_in.get(), copy_bytes, cudaMemcpyDeviceToDevice, bench_stream));
  }, 3, reps);
  const double cub_ms = timer.median_ms([&] {
    std::size_t bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceScan::InclusiveSumByKey(temp.get(), bytes, keys.get(), values.get(), out.get(), n,
                                                  ::cuda::std::equal_to<>{}, bench_stream));
  }, 3, reps);
  const std::size_t vector_count = n * sizeof(V) / 16;
  double stream_ms = 0;
  int best_per_sm = 0, best_unroll = 0;
  for (int per_sm : {2, 4, 8, 16, 32})
  {
    const unsigned blocks = static_cast<unsigned>(sm_count * per_sm);
    const auto consider = [&](double ms, int unroll) {
      if (stream_ms == 0 || ms < stream_ms)
      {
        stream_ms = ms, best_per_sm = per_sm, best_unroll = unroll;
      }
    };
    consider(timer.median_ms([&] {
      stream_by_key_traffic<V, 1><<<blocks, 256, 0, bench_stream>>>(keys.get(), values.get(), out.get(), vector_count);
    }, 3, reps), 1);
    consider(timer.median_ms([&] {
      stream_by_key_traffic<V, 4><<<blocks, 256, 0, bench_stream>>>(keys.get(), values.get(), out.get(), vector_count);
    }, 3, reps), 4);
  }
  reference_by_key_traffic<<<grid_for(n, sm_count), 256, 0, bench_stream>>>(keys.get(), values.get(), reference.get(), n);
  CHECK_CUDA(cudaGetLastError());
  const bool exact = compare_on_device(out.get(), reference.get(), n, sm_count).differing == 0;
  failures += exact ? 0 : 1;
  std::printf("%-7s 2^%-3d %9.4f %9.4f %9.4f   %3d/SM x%d   %6.3f %6.3f   %6.3fx   %s\n", value_name, log2n, copy_ms, cub_ms,
              stream_ms, best_per_sm, best_unroll, copy_ms / cub_ms, copy_ms / stream_ms, cub_ms / stream_ms,
              exact ? "exact" : "WRONG");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
  int min_log2 = 20, max_log2 = 28;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if ((arg == "--min" || arg == "--max") && i + 1 < argc)
    {
      (arg == "--min" ? min_log2 : max_log2) = std::atoi(argv[++i]);
    }
    else
    {
      fail("usage: by_key_traffic_bound [--min 20] [--max 28]");
    }
  }
  int device = 0, sm_count = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("by_key_traffic_bound on %s\n", prop.name);
  std::printf("value   n         copy_ms    cub_ms stream_ms   best grid    cub    stream  stream/cub  check\n");
  std::printf("                                                            (ratios to the copy)\n");
  for (int log2n = min_log2; log2n <= max_log2; log2n += 2)
  {
    run_case<double>("double", log2n, sm_count);
    run_case<float>("float", log2n, sm_count);
    run_case<int>("int32", log2n, sm_count);
  }
  std::printf("summary: %s\n", failures == 0 ? "every stream output exact" : "a stream output differs");
  return failures == 0 ? 0 : 1;
}

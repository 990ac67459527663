// radix_sort: an LSD radix sort of 32-bit unsigned keys, and of key-value pairs, built on spscan's
// exclusive scan, checked against thrust::sort / thrust::sort_by_key and timed beside them.
//
// Each pass sorts by one 4-bit digit, stably:
//  1. each block of 256 elements counts its digits: counts[d * blocks + b] (digit-major);
//  2. spscan::exclusive_scan of the counts gives where digit d of block b starts in the output:
//     every smaller digit of every block first, then digit d of the blocks before b;
//  3. each block writes every element to that start plus its rank among the elements of its
//     block with the same digit before it (a ballot of equal digits per warp, warp counts in
//     shared memory), which keeps equal digits in input order.
// Eight passes sort 32-bit keys. This demonstrates the scan; it does not replace thrust::sort
// (CUB's onesweep radix sort), and the output says how the two compare.
// Exit status 0 when every check passes, 1 otherwise or on any CUDA error.

#include <spscan/scan.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

namespace
{

constexpr int block_threads = 256;
constexpr int digit_bits    = 4;
constexpr int digits        = 1 << digit_bits;
constexpr int warps         = block_threads / 32;

__device__ unsigned digit_of(std::uint32_t key, int shift)
{
  return (key >> shift) & (digits - 1);
}

// Step 1: how many keys of each digit this block holds.
__global__ void count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* counts, unsigned blocks)
{
  __shared__ std::uint32_t block_counts[digits];
  if (threadIdx.x < digits)
  {
    block_counts[threadIdx.x] = 0;
  }
  __syncthreads();
  const std::size_t i = std::size_t{blockIdx.x} * block_threads + threadIdx.x;
  if (i < n)
  {
    atomicAdd(&block_counts[digit_of(keys[i], shift)], 1u);
  }
  __syncthreads();
  if (threadIdx.x < digits)
  {
    counts[threadIdx.x * blocks + blockIdx.x] = block_counts[threadIdx.x];
  }
}

// Step 3: each key (and value) to its digit's start for this block plus its rank among equal
// digits before it in the block.
template <bool WithValues>
__global__ void scatter_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n, int shift,
                                 const std::uint32_t* starts, unsigned blocks, std::uint32_t* keys_out,
                                 std::uint32_t* values_out)
{
  __shared__ std::uint32_t warp_counts[warps][digits];
  const int lane      = threadIdx.x % 32;
  const int warp      = threadIdx.x / 32;
  const std::size_t i = std::size_t{blockIdx.x} * block_threads + threadIdx.x;
  const bool valid    = i < n;
  const std::uint32_t key = valid ? keys_in[i] : 0;
  // Invalid lanes take digit `digits`, which matches no real one.
  const unsigned digit = valid ? digit_of(key, shift) : digits;
  if (threadIdx.x < warps * digits)
  {
    warp_counts[threadIdx.x / digits][threadIdx.x % digits] = 0;
  }
  __syncthreads();
  const unsigned same   = __match_any_sync(0xffffffffu, digit);
  const unsigned before = __popc(same & ((1u << lane) - 1u));
  if (valid && before == 0) // the first lane of each digit in the warp counts it
  {
    warp_counts[warp][digit] = __popc(same);
  }
  __syncthreads();
  if (valid)
  {
    std::uint32_t rank = before;
    for (int w = 0; w < warp; ++w)
    {
      rank += warp_counts[w][digit];
    }
    const std::uint32_t at = starts[digit * blocks + blockIdx.x] + rank;
    keys_out[at]           = key;
    if constexpr (WithValues)
    {
      values_out[at] = values_in[i];
    }
  }
}

// Sorts keys (and values, where given) in place; `scratch` buffers of the same sizes.
template <bool WithValues>
void radix_sort(thrust::device_vector<std::uint32_t>& keys, thrust::device_vector<std::uint32_t>& values,
                thrust::device_vector<std::uint32_t>& keys_scratch, thrust::device_vector<std::uint32_t>& values_scratch,
                thrust::device_vector<std::uint32_t>& counts)
{
  const std::size_t n   = keys.size();
  const unsigned blocks = static_cast<unsigned>((n + block_threads - 1) / block_threads);
  std::uint32_t* in_keys      = thrust::raw_pointer_cast(keys.data());
  std::uint32_t* out_keys     = thrust::raw_pointer_cast(keys_scratch.data());
  std::uint32_t* in_values    = WithValues ? thrust::raw_pointer_cast(values.data()) : nullptr;
  std::uint32_t* out_values   = WithValues ? thrust::raw_pointer_cast(values_scratch.data()) : nullptr;
  std::uint32_t* digit_counts = thrust::raw_pointer_cast(counts.data());
  for (int shift = 0; shift < 32; shift += digit_bits)
  {
    count_digits<<<blocks, block_threads>>>(in_keys, n, shift, digit_counts, blocks);
    // In place: each count becomes its start.
    spscan::exclusive_scan(thrust::cuda::par_nosync, digit_counts, digit_counts + std::size_t{digits} * blocks, digit_counts);
    scatter_by_digit<WithValues><<<blocks, block_threads>>>(in_keys, in_values, n, shift, digit_counts, blocks, out_keys,
                                                            out_values);
    std::swap(in_keys, out_keys);
    std::swap(in_values, out_values);
  }
  // Eight passes: the result is back in `keys` (and `values`).
  if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)
  {
    throw std::runtime_error("radix_sort: a kernel failed");
  }
}

template <class Call>
double median_ms(Call call, int reps)
{
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r)
  {
    const auto begin = std::chrono::steady_clock::now();
    call();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

} // namespace

int main()
{
  try
  {
    bool all_ok = true;
    std::printf("radix_sort: LSD radix sort on spscan::exclusive_scan (4-bit digits, 8 passes) against thrust::sort\n");
    std::printf("%-10s %-12s %12s %12s %10s  %s\n", "n", "what", "spscan ms", "thrust ms", "ratio", "check");
    for (const std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{1} << 24})
    {
      std::vector<std::uint32_t> host(n);
      std::uint64_t state = 0x2545f4914f6cdd1dull ^ n;
      for (auto& key : host)
      {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        key = static_cast<std::uint32_t>(state >> 11); // with repeats among 2^24 keys
      }
      const thrust::device_vector<std::uint32_t> original(host.begin(), host.end());
      thrust::device_vector<std::uint32_t> keys(n), values(n), keys_scratch(n), values_scratch(n), reference(n),
        reference_values(n), counts(std::size_t{digits} * ((n + block_threads - 1) / block_threads));

      // Keys alone.
      const auto mine = [&] {
        keys = original;
        radix_sort<false>(keys, values, keys_scratch, values_scratch, counts);
      };
      const auto theirs = [&] {
        reference = original;
        thrust::sort(thrust::device, reference.begin(), reference.end());
        cudaDeviceSynchronize();
      };
      mine();
      theirs();
      const bool keys_ok = thrust::equal(keys.begin(), keys.end(), reference.begin());
      const double my_ms = median_ms(mine, 9), their_ms = median_ms(theirs, 9);
      std::printf("%-10zu %-12s %12.3f %12.3f %9.2fx  %s\n", n, "keys", my_ms, their_ms, their_ms / my_ms,
                  keys_ok ? "equal to thrust::sort" : "WRONG");

      // Key-value pairs: values are the original positions, so equal keys must keep their order
      // (a stable sort), as thrust::sort_by_key keeps it.
      const auto mine_pairs = [&] {
        keys = original;
        thrust::sequence(thrust::device, values.begin(), values.end());
        radix_sort<true>(keys, values, keys_scratch, values_scratch, counts);
      };
      const auto theirs_pairs = [&] {
        reference = original;
        thrust::sequence(thrust::device, reference_values.begin(), reference_values.end());
        thrust::sort_by_key(thrust::device, reference.begin(), reference.end(), reference_values.begin());
        cudaDeviceSynchronize();
      };
      mine_pairs();
      theirs_pairs();
      const bool pairs_ok = thrust::equal(keys.begin(), keys.end(), reference.begin())
                         && thrust::equal(values.begin(), values.end(), reference_values.begin());
      const double my_pairs_ms = median_ms(mine_pairs, 9), their_pairs_ms = median_ms(theirs_pairs, 9);
      std::printf("%-10zu %-12s %12.3f %12.3f %9.2fx  %s\n", n, "key-value", my_pairs_ms, their_pairs_ms,
                  their_pairs_ms / my_pairs_ms, pairs_ok ? "equal to thrust::sort_by_key" : "WRONG");
      all_ok = all_ok && keys_ok && pairs_ok;
    }
    std::printf("ratio = thrust ms / spscan ms (above 1: this sort is faster). Times include copying the input in.\n"
                "thrust::sort is CUB's onesweep radix sort (8-bit digits, one pass per digit, its own ranking);\n"
                "this one makes 8 passes of count, scan and scatter, so it is expected to be slower: it shows\n"
                "how a sort is built from scans, not a faster sort.\n");
    std::printf("%s\n", all_ok ? "radix_sort: all checks passed" : "radix_sort: CHECK FAILED");
    return all_ok ? 0 : 1;
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "radix_sort: error: %s\n", e.what());
    return 1;
  }
}

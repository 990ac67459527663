// The classic block-level scans of the ablation bench (bench/ABLATION.md), each written as a
// sequence of steps separated by barriers, so that the same code runs on the device (one thread
// per element, __syncthreads between steps) and on the host (a loop over the threads of each step:
// the model the CPU test checks, tests/ablation_block_scans_test.cu).
//
// Each scan takes B values (B a power of two, one per thread) in a shared array and leaves their
// scan under + in it:
//  - kogge_stone: inclusive; step d adds the value 2^d places back to every value (log2 B steps,
//    B log2 B additions; double-buffered, since every thread reads what another writes);
//  - brent_kung: inclusive; an up-sweep builds partial sums on a tree, a down-sweep hands them to
//    the elements between (2 log2 B - 1 steps, about 2B additions; in place);
//  - blelloch: exclusive; the up-sweep, the root cleared, then a down-sweep that swaps and adds
//    (2 log2 B steps, about 2B additions; in place), with or without padding against the bank
//    conflicts of its strided accesses;
// (the warp-shuffle scan and CUB's BlockScan, device only, are in block_scan_program.h).
#pragma once

#include <cuda_runtime.h>

namespace ablation
{

#if defined(__CUDACC__)
#  define ABLATION_HD __host__ __device__
#else
#  define ABLATION_HD
#endif

constexpr int log2_of(int n)
{
  return n <= 1 ? 0 : 1 + log2_of(n / 2);
}

// Where element i lives in shared memory: one padding slot after every 32 (the banks), so that
// a stride that is a multiple of 32 does not put every access on one bank.
template <bool Padded>
ABLATION_HD constexpr int slot(int i)
{
  return Padded ? i + (i >> 5) : i;
}

// Shared ints a scan of B values needs.
template <int B, bool Padded>
constexpr int slots_for = Padded ? B + B / 32 + 1 : B;

template <int B>
struct kogge_stone
{
  static constexpr bool inclusive     = true;
  static constexpr bool double_buffer = true;
  static constexpr bool padded        = false;
  static constexpr int steps          = log2_of(B);

  // Step d for thread t: from `in` to `out`.
  ABLATION_HD static void step(int d, int t, const int* in, int* out)
  {
    const int reach = 1 << d;
    out[t]          = t >= reach ? in[t - reach] + in[t] : in[t];
  }
};

template <int B>
struct brent_kung
{
  static constexpr bool inclusive     = true;
  static constexpr bool double_buffer = false;
  static constexpr bool padded        = false;
  static constexpr int levels         = log2_of(B);
  static constexpr int steps          = 2 * levels - 1;

  ABLATION_HD static void step(int d, int t, int* s, int*)
  {
    if (d < levels)
    { // up-sweep, level d: the element ending each block of 2^(d+1) takes the half before it
      const int stride = 1 << (d + 1);
      const int i      = (t + 1) * stride - 1;
      if (i < B)
      {
        s[i] += s[i - stride / 2];
      }
    }
    else
    { // down-sweep, level e = 2 levels - 2 - d, from the top: the element in the middle of each
      // later block takes the sum ending the block before it
      const int e      = 2 * levels - 2 - d;
      const int stride = 1 << (e + 1);
      const int i      = (t + 1) * stride - 1 + stride / 2;
      if (i < B)
      {
        s[i] += s[i - stride / 2];
      }
    }
  }
};

template <int B, bool Padded>
struct blelloch
{
  static constexpr bool inclusive     = false;
  static constexpr bool double_buffer = false;
  static constexpr bool padded        = Padded;
  static constexpr int levels         = log2_of(B);
  static constexpr int steps          = 2 * levels + 1;

  ABLATION_HD static void step(int d, int t, int* s, int*)
  {
    if (d < levels)
    { // up-sweep, as Brent-Kung's
      const int stride = 1 << (d + 1);
      const int i      = (t + 1) * stride - 1;
      if (i < B)
      {
        s[slot<Padded>(i)] += s[slot<Padded>(i - stride / 2)];
      }
    }
    else if (d == levels)
    { // the root becomes the identity
      if (t == 0)
      {
        s[slot<Padded>(B - 1)] = 0;
      }
    }
    else
    { // down-sweep, level e from the top: the left child takes the parent, the parent the sum
      const int e      = 2 * levels - d;
      const int stride = 1 << (e + 1);
      const int i      = (t + 1) * stride - 1;
      if (i < B)
      {
        const int left          = s[slot<Padded>(i - stride / 2)];
        s[slot<Padded>(i - stride / 2)] = s[slot<Padded>(i)];
        s[slot<Padded>(i)] += left;
      }
    }
  }
};

// The host model: every thread of each step in turn (a step's threads touch disjoint elements,
// or read a buffer no one writes in that step, so any order of threads gives the device's result).
// `values` has B elements; returns their scan (inclusive or exclusive, as the algorithm's).
template <class Scan, int B>
void run_on_host(int* values)
{
  constexpr int slots = Scan::padded ? slots_for<B, true> : B;
  int buffers[2][slots > B ? slots : B] = {};
  for (int i = 0; i < B; ++i)
  {
    buffers[0][slot<Scan::padded>(i)] = values[i];
  }
  int current = 0;
  for (int d = 0; d < Scan::steps; ++d)
  {
    for (int t = 0; t < B; ++t)
    {
      Scan::step(d, t, buffers[current], buffers[1 - current]);
    }
    if (Scan::double_buffer)
    {
      current = 1 - current;
    }
  }
  for (int i = 0; i < B; ++i)
  {
    values[i] = buffers[current][slot<Scan::padded>(i)];
  }
}

#if defined(__CUDACC__)
// The device run, by all B threads of the block: `first` and `second` are arrays of
// slots_for<B, padded> ints (the second used only when double-buffered); the values are in the
// first, at slot(t), and visible to all threads. Returns the array holding the result.
template <class Scan, int B>
__device__ int* run_on_device(int* first, int* second)
{
  const int t = static_cast<int>(threadIdx.x);
  int* in     = first;
  int* out    = second;
  for (int d = 0; d < Scan::steps; ++d)
  {
    Scan::step(d, t, in, out);
    __syncthreads();
    if (Scan::double_buffer)
    {
      int* swap = in;
      in        = out;
      out       = swap;
    }
  }
  return in;
}
#endif

} // namespace ablation

// How reduce_by_key runs: its tile shapes, its plan (planner.h) and the entry the dispatch calls
// (reduce_by_key.inl). The tile program: reduce_by_key_program.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/call_count.h>
#include <spscan/detail/planner.h>
#include <spscan/detail/programs/reduce_by_key_program.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/pair.h>

#include <cuda/std/type_traits>

#include <cstdint>

namespace spscan::detail
{

// A power of two elements a thread, so that a thread's head flags lie in one word: 32 where values
// and keys have up to 4 bytes (8192 a tile), 128 bytes of the wider above (the tile keeps both in
// shared memory); 3 CTAs per SM, as the by-key scan (its registers: head flags, carries). Half of
// that for inputs of a few tiles and for a GPU that grants a block less shared memory than the
// primary shape takes.
template <class Accum, class Key>
constexpr int run_width = sizeof(Accum) > sizeof(Key) ? int(sizeof(Accum)) : int(sizeof(Key));
template <int Width>
constexpr int run_items = Width <= 4 ? 32 : Width <= 8 ? 16 : Width <= 16 ? 8 : 4;

template <class Accum, class Key, int Width = run_width<Accum, Key>>
using reduce_by_key_tuning = tile_shape<Width, Width * run_items<Width>, 3>;
template <class Accum, class Key, int Width = run_width<Accum, Key>>
using reduced_reduce_by_key_tuning = tile_shape<Width, Width * run_items<Width> / 2, 3>;

// Inputs whose count of runs may not fit 32 bits.
template <class Program>
struct for_counts_past_32_bits
{
  using program      = Program;
  using ring_program = no_ring;
  static constexpr bool holds(std::size_t n, std::size_t, std::size_t)
  {
    return n > std::size_t{0xffffffffu};
  }
};

// How reduce_by_key runs (planner.h), on unwrapped iterators: the reduced shape for 2 to 32 tiles
// (as the selection), then the ring engine where the device has it and keys and values are raw,
// 16-byte aligned pointers (reduce_by_key_program.h), else the classic engine.
template <class Accum, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Pred, class Op>
struct reduce_by_key_plan : classic_launch
{
  template <class Tuning, class Count = run_count<Accum>>
  using in_shape = reduce_by_key_program<Tuning, KeysIt, ValuesIt, KeysOutIt, ValuesOutIt, Accum, Count, Pred, Op>;
  using key      = value_of<KeysIt>;
  using shapes   = kernel_shapes<in_shape<reduce_by_key_tuning<Accum, key>>, in_shape<reduced_reduce_by_key_tuning<Accum, key>>>;
  using params   = typename shapes::primary::params;

  static constexpr std::size_t item_bytes = sizeof(Accum);

  template <class Fitting>
  using steps = plan_steps<
    step_if<(sizeof(run_count<Accum>) < 8), for_counts_past_32_bits<in_shape<typename Fitting::tuning, std::uint64_t>>>,
    for_few_tiles<32, typename shapes::reduced>,
    for_every_size<Fitting, Fitting>>;

  template <class RingProgram>
  static bool ring_accepts(const params& p)
  {
    return p.vector_load && p.keys_vector_load;
  }
  template <class RingProgram>
  static const void* ring_input(const params& p)
  {
    return p.values;
  }
  static void* ring_output(const params&)
  {
    return nullptr;
  }
};

// Reduces by key on the device: the n keys at `keys` (values at `values`) into keys_out and
// values_out; returns the count of runs. Synchronizes: the count is the call's result.
template <class Accum, class Derived, class KeysIt, class ValuesIt, class KeysOutIt, class ValuesOutIt, class Pred, class Op>
std::uint64_t reduce_by_key_on_device(cuda_policy<Derived>& policy,
                                      KeysIt keys,
                                      std::size_t n,
                                      ValuesIt values,
                                      KeysOutIt keys_out,
                                      ValuesOutIt values_out,
                                      Pred pred,
                                      Op op)
{
  if (n == 0)
  {
    return 0;
  }
  using plan = reduce_by_key_plan<Accum,
                                  unwrapped_iterator<KeysIt>,
                                  unwrapped_iterator<ValuesIt>,
                                  unwrapped_iterator<KeysOutIt>,
                                  unwrapped_iterator<ValuesOutIt>,
                                  Pred,
                                  Op>;
  const auto keys_from = thrust::try_unwrap_contiguous_iterator(keys);
  const auto from      = thrust::try_unwrap_contiguous_iterator(values);
  const call_count<Derived> runs(policy);
  const typename plan::params params{keys_from,
                                     from,
                                     thrust::try_unwrap_contiguous_iterator(keys_out),
                                     thrust::try_unwrap_contiguous_iterator(values_out),
                                     n,
                                     pred,
                                     op,
                                     runs.address(),
                                     allows_vector_access(from),
                                     allows_vector_access(keys_from)};
  run_planned<plan>(policy, params, n);
  return runs.read("spscan: reduce_by_key failed");
}

} // namespace spscan::detail

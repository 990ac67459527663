// How a by-key scan runs: its tile shapes, its classic launch (which may first find the segment
// heads), its plan (planner.h) and the entry the dispatch calls (scan_by_key.inl). The tile
// program: scan_by_key_program.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/planner.h>
#include <spscan/detail/programs/scan_by_key_program.h>

namespace spscan::detail
{

// The by-key tile shapes: 32 elements per data thread at most (their head flags share one word);
// 128 bytes of values per thread (32 KiB tiles), 256 for 8-byte values (64 KiB tiles, half as many
// tiles to pass through the look-back), and the reduced shape for GPUs that grant less shared
// memory (classic/kernel_shape.h). 3 CTAs per SM: more registers than the scan (head flags, carries).
template <int ValueBytes, int BytesPerThread>
using by_key_shape = tile_shape<ValueBytes, ValueBytes * 32 < BytesPerThread ? ValueBytes * 32 : BytesPerThread, 3>;

template <class Accum>
struct scan_by_key_tuning : by_key_shape<int(sizeof(Accum)), sizeof(Accum) == 8 ? 256 : 128>
{};

template <class Accum>
struct reduced_scan_by_key_tuning : by_key_shape<int(sizeof(Accum)), 128>
{};

// 8-byte values under an operator whose grouping shows in its bits (doubles), from
// blocked_input_bytes of values: 32 KiB tiles whose carries combine in the blocked association
// (common/blocked_association.h), on both engines, as the doubles' plain scans do; the ring's
// prefix warp takes these 16-byte carries' trees one window at a time (ring/blocked_prefix.h; side
// by side they spilled: docs/design.md#the-blocked-association).
template <class Accum>
struct blocked_scan_by_key_tuning : tile_shape<int(sizeof(Accum)), 128, 3, true>
{};

// Fewer elements a thread, for inputs of a few tiles (scan_by_key_plan).
template <class Accum, int Items>
struct small_scan_by_key_tuning : by_key_shape<int(sizeof(Accum)), int(sizeof(Accum)) * Items>
{};

template <bool Exclusive, class Accum, class Tuning, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op>
using scan_by_key_program_for = scan_by_key_program<Tuning,
                                                    unwrapped_iterator<KeysIt>,
                                                    unwrapped_iterator<ValuesIt>,
                                                    unwrapped_iterator<OutputIt>,
                                                    Accum,
                                                    Pred,
                                                    Op,
                                                    Exclusive>;

template <bool Exclusive, class Accum, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op>
using scan_by_key_shapes =
  kernel_shapes<scan_by_key_program_for<Exclusive, Accum, scan_by_key_tuning<Accum>, KeysIt, ValuesIt, OutputIt, Pred, Op>,
                scan_by_key_program_for<Exclusive, Accum, reduced_scan_by_key_tuning<Accum>, KeysIt, ValuesIt, OutputIt, Pred, Op>>;

// [tile] = keys[tile * tile_items - 1] for every tile after the first: the key before each tile,
// copied before a scan whose output overwrites the keys.
template <class KeysIt, class Key>
SPSCAN_KERNEL void copy_predecessor_keys(KeysIt keys, std::size_t tile_items, std::size_t tiles, Key* predecessors)
{
  const std::size_t tile = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (tile > 0 && tile < tiles)
  {
    predecessors[tile] = keys[static_cast<difference_of<KeysIt>>(tile * tile_items - 1)];
  }
}

// Whether the output may overwrite keys that another tile still has to read. Thrust allows
// result == keys_first; raw pointers are compared by the bytes they cover, iterators of the keys'
// type by equality. Other iterators cannot refer to the keys (Thrust allows no other overlap).
template <class KeysIt, class OutputIt>
bool output_may_overwrite_keys(const KeysIt& keys, const OutputIt& out, std::size_t n)
{
  if constexpr (::cuda::std::is_pointer_v<KeysIt> && ::cuda::std::is_pointer_v<OutputIt>)
  {
    const auto* keys_begin = reinterpret_cast<const unsigned char*>(keys);
    const auto* out_begin  = reinterpret_cast<const unsigned char*>(out);
    const auto* keys_end   = keys_begin + n * sizeof(*keys);
    const auto* out_end    = out_begin + n * sizeof(*out);
    return keys_begin < out_end && out_begin < keys_end;
  }
  else if constexpr (::cuda::std::is_same_v<KeysIt, OutputIt>)
  {
    return keys == out;
  }
  else
  {
    return false;
  }
}

// Runs `Program` (one shape of a by-key scan) on the classic engine. Where the output overwrites
// keys that later tiles still read (`overwrites_keys`: output_may_overwrite_keys), the key before
// each tile is copied first.
template <class Program, class Derived>
void launch_scan_by_key_classic(cuda_policy<Derived>& policy, typename Program::params p, bool overwrites_keys)
{
  using key                   = typename Program::key;
  constexpr std::size_t items = Program::tuning::tile_items;
  const std::size_t tiles     = (p.n + items - 1) / items;
  if (tiles > 1 && overwrites_keys)
  {
    call_storage<Derived> copies(policy, tiles * sizeof(key));
    key* predecessors          = static_cast<key*>(copies.data());
    constexpr unsigned threads = 256;
    cudaGetLastError(); // not this call's (launch.h)
    copy_predecessor_keys<<<static_cast<unsigned>((tiles + threads - 1) / threads), threads, 0, stream_of(policy)>>>(
      p.keys, items, tiles, predecessors);
    throw_if_failed(cudaGetLastError(), "spscan: copying the keys before each tile failed");
    p.predecessor_keys = predecessors;
    launch_single_pass<Program>(policy, p, p.n); // while `copies` holds the keys
    return;
  }
  launch_single_pass<Program>(policy, p, p.n);
}

// How a by-key scan runs (planner.h). A few tiles leave most SMs idle: where the device's shape
// makes 2 to 8 tiles, quarter tiles (8 elements a thread), up to 32 tiles, half tiles (16), each
// on the classic engine (the ring starts at 8 MiB); doubles from blocked_input_bytes the blocked
// association's shape (blocked_scan_by_key_tuning) on both engines. The association follows the
// tile, so the bits depend on the input size and where the segments start
// (docs/design.md#by-key-scans). The ring's tiles read the key before them from device memory, so
// it takes no call whose output overwrites the keys.
template <bool Exclusive, class Accum, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op>
struct scan_by_key_plan
{
  template <class Tuning>
  using in_shape = scan_by_key_program_for<Exclusive, Accum, Tuning, KeysIt, ValuesIt, OutputIt, Pred, Op>;
  using shapes   = scan_by_key_shapes<Exclusive, Accum, KeysIt, ValuesIt, OutputIt, Pred, Op>;
  using params   = typename shapes::primary::params;

  static constexpr std::size_t item_bytes = sizeof(Accum);

  template <class Fitting>
  static constexpr bool has_small_tiles = Fitting::tuning::items > 16;
  template <class Fitting>
  static constexpr bool has_blocked_shape =
    sizeof(Accum) == 8 && !exactly_associative<Accum, Op>
    && Fitting::tuning::bytes_per_thread > blocked_scan_by_key_tuning<Accum>::bytes_per_thread;

  template <class Fitting>
  using steps = plan_steps<
    step_if<has_small_tiles<Fitting>, for_few_tiles<8, in_shape<small_scan_by_key_tuning<Accum, 8>>>>,
    step_if<has_small_tiles<Fitting>, for_few_tiles<32, in_shape<small_scan_by_key_tuning<Accum, 16>>>>,
    step_if<has_blocked_shape<Fitting>,
            for_large_inputs<blocked_input_bytes, in_shape<blocked_scan_by_key_tuning<Accum>>, in_shape<blocked_scan_by_key_tuning<Accum>>>>,
    for_every_size<Fitting, Fitting>>;

  template <class RingProgram>
  static bool ring_accepts(const params& p)
  {
    return p.vector_load && p.vector_store && allows_vector_access(p.keys) && !output_may_overwrite_keys(p.keys, p.out, p.n);
  }
  template <class RingProgram>
  static const void* ring_input(const params& p)
  {
    return p.values;
  }
  static void* ring_output(const params& p)
  {
    return p.out;
  }
  template <class Program, class Derived>
  static void launch_classic(cuda_policy<Derived>& policy, const params& p, std::size_t)
  {
    launch_scan_by_key_classic<Program>(policy, p, output_may_overwrite_keys(p.keys, p.out, p.n));
  }
};

// Scans by key on the device: [keys_first, keys_last) with the values at `values`, into `result`;
// returns result + n.
template <bool Exclusive, class Accum, class Derived, class KeysIt, class ValuesIt, class OutputIt, class Pred, class Op>
OutputIt scan_by_key_on_device(cuda_policy<Derived>& policy,
                               KeysIt keys_first,
                               KeysIt keys_last,
                               ValuesIt values,
                               OutputIt result,
                               Pred pred,
                               Op op,
                               Accum init)
{
  using plan          = scan_by_key_plan<Exclusive, Accum, KeysIt, ValuesIt, OutputIt, Pred, Op>;
  const auto distance = iterator_distance(keys_first, keys_last);
  const std::size_t n = distance > 0 ? static_cast<std::size_t>(distance) : 0;
  typename plan::params p{thrust::try_unwrap_contiguous_iterator(keys_first),
                          thrust::try_unwrap_contiguous_iterator(values),
                          thrust::try_unwrap_contiguous_iterator(result),
                          n,
                          pred,
                          op,
                          init,
                          nullptr,
                          false,
                          false};
  p.vector_load  = allows_vector_access(p.values);
  p.vector_store = allows_vector_access(p.out);
  run_planned<plan>(policy, p, n);
  return result + static_cast<difference_of<OutputIt>>(n);
}

} // namespace spscan::detail

// Tile shapes (how a single-pass algorithm cuts its input into tiles, per element size) and the
// tuning traits the driver reads from a shape: CTAs per SM, the look-back's fold, a trace hook.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/optional_members.h>

#include <cuda/std/type_traits>

#include <cstddef>

namespace spscan::detail
{

constexpr int warp_threads = 32;

// sizeof(T), or 0 for the `void` value type of some output iterators.
template <class T>
constexpr int size_or_zero = ::cuda::std::is_void_v<T> ? 0 : int(sizeof(::cuda::std::conditional_t<::cuda::std::is_void_v<T>, char, T>));

constexpr int max3(int a, int b, int c)
{
  return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

// Input value type, accumulator and output value type decide the tile shape: 256 data threads
// (plus the look-back warp, driver.h), and 128 bytes of the widest type per thread (32 KiB
// tiles of int32 or int8), 256 bytes for 8-byte types (64 KiB tiles of int64 or double), with as
// many CTAs an SM as their registers allow without spilling. The tile stays in shared memory
// (tile_io.h), so bytes per thread cost no registers. Two look-back windows a read. Each measured
// against its neighbours: docs/design.md#tile-shapes.
// Blocked: the tiles' aggregates combine in the blocked association (blocked_association.h)
// instead of the left fold: another association, so another shape for an operator whose grouping
// shows in its bits.
template <int Widest, int BytesPerThread, int MinCtasPerSm, bool Blocked = false>
struct tile_shape
{
  static constexpr int threads          = 256;
  static constexpr int widest           = Widest;
  static constexpr int bytes_per_thread = BytesPerThread;
  static constexpr int items            = bytes_per_thread / widest > 0 ? bytes_per_thread / widest : 1;
  static constexpr int tile_items       = threads * items;
  static constexpr int look_back_depth  = 2;
  static constexpr int min_ctas_per_sm  = MinCtasPerSm;
  static constexpr bool blocked_association = Blocked;
};

template <class InputValue, class Accum, class OutputValue>
constexpr int widest_of = max3(size_or_zero<InputValue>, int(sizeof(Accum)), size_or_zero<OutputValue>);

template <class InputValue, class Accum, class OutputValue, int Widest = widest_of<InputValue, Accum, OutputValue>>
using scan_tuning = tile_shape<Widest, Widest == 8 ? 256 : 128, Widest == 8 ? 3 : 5>;

// The shape for a GPU that grants a block less shared memory than scan_tuning's tile needs
// (kernel_shape.h): 128 bytes per thread whatever the type, so that the tile fits the 48 KiB every
// CUDA GPU grants (for 8-byte types 32 KiB tiles, 4 CTAs per SM). Only 8-byte types ever need it:
// sm_75 grants 64 KiB per block, their 64 KiB tile needs about 66 KiB (docs/design.md#tile-shapes).
template <class InputValue, class Accum, class OutputValue, int Widest = widest_of<InputValue, Accum, OutputValue>>
using reduced_scan_tuning = tile_shape<Widest, 128, Widest == 8 ? 4 : 5>;

// 8-byte scans from blocked_input_bytes under an operator whose grouping shows in its bits
// (doubles): 32 KiB tiles whose aggregates combine in the blocked association, on both engines.
// The smaller tile gives the ring 6 stages instead of 3, and the blocked association keeps their
// more frequent prefixes from a chain of one step a tile (docs/design.md#the-blocked-association).
template <int Widest>
using blocked_scan_tuning = tile_shape<Widest, 128, 4, true>;

constexpr std::size_t blocked_input_bytes = std::size_t{8} << 20;

// The ring engine's shape (ring/): scan_tuning's, except for 8-byte types: under an exactly
// associative operator (exact_association.h) reduced_scan_tuning's 4096-element tiles: 32 KiB,
// so 6 stages in the ring where the 64 KiB tile leaves 3. The tile cannot change such an
// operator's bits, so both engines still give the same results. Under any other operator
// blocked_scan_tuning, which the classic engine takes too from the same size (scan_program.h).
//
// A computed input (counting_iterator, constant_iterator: `Generated`) under an exactly associative
// operator takes 64 KiB tiles of every element size: the ring holds such a tile in shared memory
// only from its scan to its store (ring_driver.h), so the larger tile costs no stages, and it
// halves what the scan squad and the prefix warp do a tile per byte
// (docs/design.md#computed-transformed-and-widened-inputs).
template <int Widest>
using generated_scan_tuning = tile_shape<Widest, 256, 3>;

template <class InputValue, class Accum, class OutputValue, bool ExactOperator, bool Generated = false>
using ring_scan_tuning = ::cuda::std::conditional_t<
  ExactOperator && Generated,
  generated_scan_tuning<widest_of<InputValue, Accum, OutputValue>>,
  ::cuda::std::conditional_t<
    widest_of<InputValue, Accum, OutputValue> == 8,
    ::cuda::std::conditional_t<ExactOperator, reduced_scan_tuning<InputValue, Accum, OutputValue>, blocked_scan_tuning<8>>,
    scan_tuning<InputValue, Accum, OutputValue>>>;

// The classic engine's shapes for small inputs, from two of scan_tuning's tiles: more, smaller
// tiles, each loaded and scanned sooner, on more SMs: 64 bytes a thread up to small_input_bytes,
// and for 8-byte types 128 up to wide_small_input_bytes (docs/design.md#tile-shapes). A
// floating-point result's association follows the tile, and the tile follows the input size as
// well as the element size, so the same input still gives the same bits (docs/reproducibility.md).
template <int Widest>
using small_scan_tuning = tile_shape<Widest, 64, 5>;
template <int Widest>
using wide_small_scan_tuning = tile_shape<Widest, 128, 4>;

constexpr std::size_t small_input_bytes      = std::size_t{1} << 20;
constexpr std::size_t wide_small_input_bytes = std::size_t{2} << 20;

// Tuning::min_ctas_per_sm where a tuning names it (the compiler must then fit that many CTAs'
// registers on one SM), else 1.
template <class Tuning>
using min_ctas_per_sm_member = ::cuda::std::integral_constant<int, Tuning::min_ctas_per_sm>;
template <class Tuning>
using min_ctas_per_sm_of = member_value_or<Tuning, min_ctas_per_sm_member, 1>;

// The most threads one SM holds on the architecture being compiled; the host pass, which never
// reads a launch bound, sees the largest.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#  define SPSCAN_DETAIL_MAX_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) \
  && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#  define SPSCAN_DETAIL_MAX_THREADS_PER_SM 1536
#else
#  define SPSCAN_DETAIL_MAX_THREADS_PER_SM 2048
#endif

// min_ctas_per_sm_of as the launch bound of a kernel of `Threads`-thread CTAs: no more CTAs than
// an SM of the architecture being compiled holds (ptxas ignores a larger bound, and warns).
template <class Tuning, int Threads>
constexpr int launch_bound_ctas = min_ctas_per_sm_of<Tuning>::value * Threads <= SPSCAN_DETAIL_MAX_THREADS_PER_SM
                                  ? min_ctas_per_sm_of<Tuning>::value
                                  : SPSCAN_DETAIL_MAX_THREADS_PER_SM / Threads;

// Tuning::blocked_association where a tuning names it, else false.
template <class Tuning>
using blocked_association_member = ::cuda::std::bool_constant<Tuning::blocked_association>;
template <class Tuning>
using blocked_association_of = member_value_or<Tuning, blocked_association_member, false>;

// Tuning::tree_fold where a tuning names it, else false. True makes the look-back combine a
// window's aggregates in a timing-dependent tree (look_back.h), so float results are no longer
// reproducible; only the ablation bench sets it, to measure what reproducibility costs.
template <class Tuning>
using tree_fold_member = ::cuda::std::bool_constant<Tuning::tree_fold>;
template <class Tuning>
using tree_fold_of = member_value_or<Tuning, tree_fold_member, false>;

} // namespace spscan::detail

namespace spscan::detail
{

// The stages of a tile a trace hook sees, in the order a tile passes them.
enum trace_stage
{
  trace_started, // thread 0 has the tile id
  trace_staged, // warp 0's part of the tile is in shared memory (scan, vector path only)
  trace_aggregate, // the tile's aggregate is known (published, in a run of several tiles)
  trace_prefix_found, // the look-back warp has the tile's exclusive prefix
  trace_prefix_taken, // the tile's threads have its prefix and start on its results (classic: its
                      // inclusive prefix is published by then)
  trace_stored, // warp 0 has issued its stores (scan, vector path only)
};

// Tuning::trace where a tuning names one (a type with `static __device__ void record(std::size_t
// tile, trace_stage)`), else a hook that does nothing. Only a probe sets it
// (bench/probes/scan_timeline.cu), to time each tile's stages; the library never does.
struct no_trace
{
  __device__ static void record(std::size_t, trace_stage) {}
};

template <class T>
using member_trace = typename T::trace;
template <class T>
using member_absorbing = typename T::absorbing;

template <class Tuning>
using trace_hook_of = member_type_or<no_trace, Tuning, member_trace>;

} // namespace spscan::detail

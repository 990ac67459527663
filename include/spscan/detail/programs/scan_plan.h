// How a scan runs: its parameters from the caller's arguments, its tile shapes, its plan
// (planner.h) and the entry the dispatch calls (scan.inl). The tile program: scan_program.h.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/planner.h>
#include <spscan/detail/programs/scan_program.h>

namespace spscan::detail
{

// A scan's parameters from the caller's arguments.
template <scan_kind Kind, class Accum, class InputIt, class OutputIt, class Op, class Init>
scan_params<unwrapped_iterator<InputIt>, unwrapped_iterator<OutputIt>, Accum, Op, Kind, Init>
make_scan_params(InputIt first, std::size_t n, OutputIt result, Op op, Init init)
{
  const auto in  = thrust::try_unwrap_contiguous_iterator(first);
  const auto out = thrust::try_unwrap_contiguous_iterator(result);
  return {in, out, n, op, init, allows_vector_access(in), allows_vector_access(out)};
}

// The scan program in the tile shape `Tuning`.
template <scan_kind Kind, class Accum, class Tuning, class InputIt, class OutputIt, class Op, class Init = Accum>
using scan_program_for =
  scan_program<Tuning, unwrapped_iterator<InputIt>, unwrapped_iterator<OutputIt>, Accum, Op, Kind, Init>;

// Its two shapes (classic/kernel_shape.h): the measured best, and one that fits every GPU.
template <scan_kind Kind, class Accum, class InputIt, class OutputIt, class Op, class Init = Accum>
using scan_shapes = kernel_shapes<
  scan_program_for<Kind,
                   Accum,
                   scan_tuning<value_of<unwrapped_iterator<InputIt>>, Accum, value_of<unwrapped_iterator<OutputIt>>>,
                   InputIt,
                   OutputIt,
                   Op,
                   Init>,
  scan_program_for<Kind,
                   Accum,
                   reduced_scan_tuning<value_of<unwrapped_iterator<InputIt>>, Accum, value_of<unwrapped_iterator<OutputIt>>>,
                   InputIt,
                   OutputIt,
                   Op,
                   Init>>;

// The scan program of the ring engine (ring/ring_launch.h), in its own shape (ring_scan_tuning).
template <scan_kind Kind, class Accum, class InputIt, class OutputIt, class Op, class Init = Accum>
using ring_scan_program_for = scan_program_for<
  Kind,
  Accum,
  ring_scan_tuning<value_of<unwrapped_iterator<InputIt>>,
                   Accum,
                   value_of<unwrapped_iterator<OutputIt>>,
                   exactly_associative<Accum, Op>,
                   reads_no_memory<unwrapped_iterator<InputIt>>::value>,
  InputIt,
  OutputIt,
  Op,
  Init>;

// How a scan runs (planner.h). Large inputs of 8-byte values under an operator whose grouping
// shows in its bits (doubles) take the blocked association's shape on both engines
// (tuning.h, blocked_scan_tuning); small inputs smaller tiles on the classic engine (tuning.h,
// small_scan_tuning; they lie below the ring's minimum); the rest the device's shape, and the
// ring's own shape on the ring (tuning.h, ring_scan_tuning). Inputs staged element by element stay
// on the classic engine: on the ring they measured slower than on it
// (docs/design.md#computed-transformed-and-widened-inputs).
template <scan_kind Kind, class Accum, class InputIt, class OutputIt, class Op, class Init>
struct scan_plan : classic_launch
{
  using shapes       = scan_shapes<Kind, Accum, InputIt, OutputIt, Op, Init>;
  using params       = typename shapes::primary::params;
  using ring_program = ring_scan_program_for<Kind, Accum, InputIt, OutputIt, Op, Init>;
  using ring_tuning  = typename ring_program::tuning;
  template <class Tuning>
  using in_shape = scan_program_for<Kind, Accum, Tuning, InputIt, OutputIt, Op, Init>;

  static constexpr int widest              = shapes::primary::tuning::widest;
  static constexpr std::size_t item_bytes  = widest;
  static constexpr bool ring_blocked       = blocked_association_of<ring_tuning>::value;
  using on_ring = ::cuda::std::conditional_t<ring_program::ring_input_kind != ring_input::staged, ring_program, no_ring>;

  template <class Fitting>
  using steps = plan_steps<
    step_if<ring_blocked && (Fitting::tuning::bytes_per_thread > blocked_scan_tuning<8>::bytes_per_thread),
            for_large_inputs<blocked_input_bytes, in_shape<ring_tuning>, on_ring>>,
    step_if<(widest <= 8), for_small_inputs<small_input_bytes, in_shape<small_scan_tuning<widest>>>>,
    step_if<(widest == 8 && Fitting::tuning::bytes_per_thread > wide_small_scan_tuning<8>::bytes_per_thread),
            for_small_inputs<wide_small_input_bytes, in_shape<wide_small_scan_tuning<8>>>>,
    for_every_size<Fitting, ::cuda::std::conditional_t<ring_blocked, no_ring, on_ring>>>;

  template <class RingProgram>
  static bool ring_accepts(const params& p)
  {
    return RingProgram::ring_serves(p);
  }
  template <class RingProgram>
  static const void* ring_input(const params& p)
  {
    return RingProgram::ring_source(p);
  }
  static void* ring_output(const params& p)
  {
    return p.out;
  }
};

// A Thrust count as a number of elements: a negative count is an empty range, as in Thrust.
template <class Size>
std::size_t elements_in(Size count)
{
  return count > 0 ? static_cast<std::size_t>(count) : 0;
}

// Scans `count` elements (negative counts are empty ranges, as in Thrust) and returns
// result + count. `init`: an Accum, or a device_initial_value<Accum>.
template <scan_kind Kind, class Accum, class Derived, class InputIt, class Size, class OutputIt, class Op, class Init>
OutputIt scan_on_device(cuda_policy<Derived>& policy, InputIt first, Size count, OutputIt result, Op op, Init init)
{
  const std::size_t n = elements_in(count);
  run_planned<scan_plan<Kind, Accum, InputIt, OutputIt, Op, Init>>(
    policy, make_scan_params<Kind, Accum>(first, n, result, op, init), n);
  return result + static_cast<Size>(n);
}

// The same in a given tile shape, for tests and the ablation bench.
template <scan_kind Kind, class Accum, class Tuning, class Derived, class InputIt, class Size, class OutputIt, class Op>
OutputIt device_scan(cuda_policy<Derived>& policy, InputIt first, Size count, OutputIt result, Op op, Accum init)
{
  const std::size_t n = elements_in(count);
  launch_single_pass<scan_program_for<Kind, Accum, Tuning, InputIt, OutputIt, Op>>(
    policy, make_scan_params<Kind, Accum>(first, n, result, op, init), n);
  return result + static_cast<Size>(n);
}

} // namespace spscan::detail

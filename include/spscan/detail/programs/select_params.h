// What a selection (select_program.h) is called with: its parameters, the stencils it tells
// apart (none, an iterator, the run heads' test), the outputs it need not write, and how it adds
// its counts.
#pragma once

#include <spscan/detail/config.h>

#include <thrust/iterator/discard_iterator.h>

#include <cstddef>
#include <cstdint>

namespace spscan::detail
{

// No stencil: the predicate sees the value itself.
struct no_stencil
{};

// The run heads' stencil (unique.inl): element i's stencil value is whether it heads a run of
// equal elements (i is 0, or same_run(element i-1, element i) is false), found from the staged
// input, so that each element is read once: the element before one is read from the segment,
// before the segment's first from the input (where no tile has written yet: remove.inl says why).
template <class SameRun>
struct run_head_stencil
{
  SameRun same_run;
};

// An output that keeps nothing (a copy_if into a discard_iterator, for its count): the selection
// only counts.
template <class OutputIt>
inline constexpr bool is_discarding = false;
template <class System>
inline constexpr bool is_discarding<thrust::discard_iterator<System>> = true;

template <class StencilIt>
inline constexpr bool is_run_head_stencil = false;
template <class SameRun>
inline constexpr bool is_run_head_stencil<run_head_stencil<SameRun>> = true;

template <class InputIt, class StencilIt, class SelectedIt, class RejectedIt, class Pred>
struct select_params
{
  InputIt in;
  StencilIt stencil; // no_stencil where the call has none
  SelectedIt selected;
  RejectedIt rejected; // partition_copy's out_false; unused otherwise
  std::size_t n;
  Pred pred;
  std::uint64_t* selected_total; // written by the last tile
  bool vector_load; // input is a 16-byte aligned raw pointer
};

struct add_counts
{
  static constexpr bool exact_association = true; // integer sums (common/exact_association.h)
  __device__ std::uint64_t operator()(std::uint64_t earlier, std::uint64_t later) const
  {
    return earlier + later;
  }
};

} // namespace spscan::detail

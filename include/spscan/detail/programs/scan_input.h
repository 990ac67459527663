// How a scan's input reaches a stage of the ring engine (programs/scan_program.h), by the kind of
// its iterator:
//  - a raw array whose elements are the output's size: the tile's image, by bulk copy (the vector
//    layout, common/tile_io.h);
//  - an iterator that reads no memory (counting_iterator, constant_iterator): the reduce squad
//    computes and folds each lane's own elements in registers, and the scan squad computes them
//    again, writing their results a 16-byte word at a time (programs/scan_program.h). (A
//    transform_iterator over one is not taken: its functor may gather from memory, which that
//    order would read a lane's row apart, uncoalesced);
//  - a transform_iterator over a raw array whose elements are the accumulator's size: the array's
//    image by bulk copy, then the reduce squad replaces each element by the functor's value in
//    place, once;
//  - a raw array of elements narrower than the accumulator (int8 flags scanned into int32
//    offsets): its image by bulk copy beside the stage's accumulators, into which the reduce
//    squad converts it;
//  - anything else: element by element through the iterator, on the classic engine (staged by
//    the ring's reduce squad that way it measured slower,
//    docs/design.md#computed-transformed-and-widened-inputs).
// In the second to fourth cases the stage holds accumulators, written out as the output's bytes,
// so the accumulator and the output must have one size (and both be plain values: trivially
// copied, default constructed). Every element is the value the classic engine stages for it (the iterator's
// reference, converted to the accumulator), so results keep their bits.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_io.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/type_traits>

namespace spscan::detail
{

// Whether dereferencing an Iterator reads no memory: its elements are computed from their place.
template <class Iterator>
struct reads_no_memory : ::cuda::std::false_type
{};
template <class... Parameters>
struct reads_no_memory<thrust::counting_iterator<Parameters...>> : ::cuda::std::true_type
{};
// (thrust::constant_iterator is deprecated from CCCL 3.5 for cuda::constant_iterator; users still
// pass it.)
_CCCL_SUPPRESS_DEPRECATED_PUSH
template <class... Parameters>
struct reads_no_memory<thrust::constant_iterator<Parameters...>> : ::cuda::std::true_type
{};
_CCCL_SUPPRESS_DEPRECATED_POP

// A transform_iterator over a contiguous range: its raw base, and the element it gives for a base
// element, as its own dereference does (the functor's result as the iterator's reference).
template <class Iterator>
struct transformed_array
{
  static constexpr bool value = false;
};
template <class Function, class Base, class... Parameters>
struct transformed_array<thrust::transform_iterator<Function, Base, Parameters...>>
{
  using iterator   = thrust::transform_iterator<Function, Base, Parameters...>;
  using base       = unwrapped_iterator<Base>;
  using base_value = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<base>>;
  using reference  = typename thrust::iterator_traits<iterator>::reference;

  // A reference type would be a reference to the functor's temporary.
  static constexpr bool value = ::cuda::std::is_pointer_v<base> && !::cuda::std::is_reference_v<reference>;

  static base raw_base(const iterator& it)
  {
    return thrust::try_unwrap_contiguous_iterator(it.base());
  }
};

// Whether a stage of accumulators, written out as the output's bytes, fits a warp segment of
// Items accumulators per lane: a raw output of the accumulator's size, whole 16-byte words.
template <class Accum, class OutputIt, int Items>
constexpr bool accumulator_words_fit = [] {
  using out = ::cuda::std::remove_pointer_t<OutputIt>;
  if constexpr (::cuda::std::is_pointer_v<OutputIt> && !::cuda::std::is_void_v<out>)
  {
    return !::cuda::std::is_const_v<out> && sizeof(Accum) == sizeof(out) && 16 % sizeof(Accum) == 0
        && vector_shape<Accum, Items>::fits && ::cuda::std::is_trivially_copyable_v<Accum>
        && ::cuda::std::is_default_constructible_v<Accum> && ::cuda::std::is_trivially_copyable_v<out>
        && ::cuda::std::is_default_constructible_v<out>;
  }
  else
  {
    return false;
  }
}();

enum class ring_input
{
  copied, // bulk copy of the input's image
  generated, // computed by the reduce squad
  transformed, // bulk copy of the base's image, then the functor, in place
  converted, // bulk copy of a narrower input's image, converted beside it
  staged, // element by element through the iterator (the ring does not take it)
};

template <class InputIt, class OutputIt, class Accum, int Items>
constexpr ring_input ring_input_of = [] {
  if constexpr (vector_layout_fits<InputIt, OutputIt, Items>)
  {
    return ring_input::copied;
  }
  else if constexpr (!accumulator_words_fit<Accum, OutputIt, Items>)
  {
    return ring_input::staged;
  }
  else if constexpr (reads_no_memory<InputIt>::value)
  {
    return ring_input::generated;
  }
  else if constexpr (::cuda::std::is_pointer_v<InputIt>)
  {
    using value = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<InputIt>>;
    if constexpr (::cuda::std::is_void_v<value>)
    {
      return ring_input::staged;
    }
    else
    {
      return sizeof(value) < sizeof(Accum) && vector_shape<value, Items>::fits && 16 % sizeof(value) == 0
                 && ::cuda::std::is_trivially_copyable_v<value> && ::cuda::std::is_default_constructible_v<value>
               ? ring_input::converted
               : ring_input::staged;
    }
  }
  else if constexpr (transformed_array<InputIt>::value)
  {
    using base_value = typename transformed_array<InputIt>::base_value;
    return sizeof(base_value) == sizeof(Accum) && ::cuda::std::is_trivially_copyable_v<base_value>
               && ::cuda::std::is_default_constructible_v<base_value>
             ? ring_input::transformed
             : ring_input::staged;
  }
  else
  {
    return ring_input::staged;
  }
}();

// The element type of the input's image in a stage, for the inputs brought by bulk copy and then
// transformed or converted there (else `Fallback`).
template <class InputIt, class Fallback, ring_input Kind>
struct ring_image_value
{
  using type = Fallback;
};
template <class InputIt, class Fallback>
struct ring_image_value<InputIt, Fallback, ring_input::transformed>
{
  using type = typename transformed_array<InputIt>::base_value;
};
template <class InputIt, class Fallback>
struct ring_image_value<InputIt, Fallback, ring_input::converted>
{
  using type = ::cuda::std::remove_cv_t<::cuda::std::remove_pointer_t<InputIt>>;
};

} // namespace spscan::detail

// The type in which partial results are computed: Thrust's rules, reproduced exactly
// (spscan is a drop-in, so an int8 inclusive scan into int64 storage still wraps at 8 bits).
#pragma once

#include <spscan/detail/config.h>

#include <thrust/iterator/iterator_traits.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/functional>
#include <cuda/std/type_traits>

namespace spscan::detail
{

template <class Iterator>
using value_of = typename thrust::iterator_traits<Iterator>::value_type;

// inclusive_scan without init: the input's value type.
template <class InputIt>
using inclusive_accumulator = value_of<InputIt>;

// inclusive_scan with init: what op(init, value) returns, decayed (P2322).
template <class InputIt, class Init, class Op>
using inclusive_init_accumulator =
  ::cuda::std::decay_t<::cuda::std::invoke_result_t<Op, Init, value_of<InputIt>>>;

// exclusive_scan: the type of init.
template <class Init>
using exclusive_accumulator = Init;

// transform_inclusive_scan scans a transform_iterator whose value type is what the unary op
// returns (P0571); transform_exclusive_scan one whose value type is the init's type.
template <class InputIt, class UnaryOp>
using transformed_value = ::cuda::std::remove_cvref_t<::cuda::std::invoke_result_t<UnaryOp, value_of<InputIt>>>;

template <class InputIt, class UnaryOp, class Value>
using transformed_input = thrust::transform_iterator<UnaryOp, InputIt, Value, Value>;

// Marks "no initial value" (inclusive scans without init).
struct no_init
{};

// The initial value in the accumulator type (a value-initialized one where there is none).
template <class Accum, class Init>
Accum initial_accumulator(const Init& init)
{
  if constexpr (::cuda::std::is_same_v<Init, no_init>)
  {
    return Accum{};
  }
  else
  {
    return static_cast<Accum>(init);
  }
}

} // namespace spscan::detail

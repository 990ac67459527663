// Which carry operators give the same bits however their operands are grouped: wrapping integer
// sums and products, bitwise and / or / xor, and the minimum and maximum of integers. A fold over
// such an operator may add a run of operands in a tree (a few warp exchanges) instead of one after
// the other, and still equal the left fold bit for bit; every other operator (floating point, user
// functors, pairs) is folded strictly left to right.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/optional_members.h>

#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/type_traits>

namespace spscan::detail
{

// Op is one of the standard operators, or Thrust's (which derive from them, or name them).
template <class Accum, class Op>
inline constexpr bool derives_from_standard_op =
  ::cuda::std::is_base_of_v<::cuda::std::plus<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::std::plus<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::std::multiplies<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::std::multiplies<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::std::bit_and<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::std::bit_and<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::std::bit_or<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::std::bit_or<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::std::bit_xor<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::std::bit_xor<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::maximum<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::maximum<>, Op>
  || ::cuda::std::is_base_of_v<::cuda::minimum<Accum>, Op> || ::cuda::std::is_base_of_v<::cuda::minimum<>, Op>;

// An operator may state it itself with a member `exact_association` (the selection's count sum).
template <class Op>
using exact_association_member = ::cuda::std::bool_constant<Op::exact_association>;
template <class Op>
using states_exact_association = member_value_or<Op, exact_association_member, false>;

// Only operators known to be associative qualify: for an integer operator that is not, a tree
// would make the result depend on timing, where the left fold keeps it reproducible.
template <class Accum, class Op>
inline constexpr bool exactly_associative =
  states_exact_association<::cuda::std::remove_cv_t<Op>>::value
  || (::cuda::std::is_integral_v<Accum> && !::cuda::std::is_same_v<Accum, bool>
      && derives_from_standard_op<Accum, ::cuda::std::remove_cv_t<Op>>);

} // namespace spscan::detail

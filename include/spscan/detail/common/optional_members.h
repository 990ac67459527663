// The optional members of tunings, tile programs and operators: what a type may state, and what
// holds where it states nothing. One detection for all of them. A member is named by an alias
// template that is well-formed exactly where the type states it, e.g.
//   template <class P> using ring_prefix_warps_member = ::cuda::std::integral_constant<int, P::ring_prefix_warps>;
#pragma once

#include <cuda/std/type_traits>

namespace spscan::detail
{

// Member<T>::value where T states the member, else Default (a constant of the member's type).
template <class T, template <class> class Member, auto Default, class = void>
struct member_value_or : ::cuda::std::integral_constant<decltype(Default), Default>
{};
template <class T, template <class> class Member, auto Default>
struct member_value_or<T, Member, Default, ::cuda::std::void_t<Member<T>>>
    : ::cuda::std::integral_constant<decltype(Default), static_cast<decltype(Default)>(Member<T>::value)>
{};

// Whether T states the member at all.
template <class T, template <class> class Member, class = void>
struct has_member : ::cuda::std::false_type
{};
template <class T, template <class> class Member>
struct has_member<T, Member, ::cuda::std::void_t<Member<T>>> : ::cuda::std::true_type
{};

// The type Member<T> names where T states it, else Default.
template <class Default, class T, template <class> class Member, class = void>
struct member_type_or_impl
{
  using type = Default;
};
template <class Default, class T, template <class> class Member>
struct member_type_or_impl<Default, T, Member, ::cuda::std::void_t<Member<T>>>
{
  using type = Member<T>;
};
template <class Default, class T, template <class> class Member>
using member_type_or = typename member_type_or_impl<Default, T, Member>::type;

} // namespace spscan::detail

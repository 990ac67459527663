// spscan::unique, unique_copy, unique_count, unique_by_key and unique_by_key_copy, as Thrust's
// <thrust/unique.h> declares them (every overload, with and without a predicate and a policy),
// dispatched as Thrust dispatches them; where Thrust would run its CUDA backend they run it too
// until their route on spscan's selection is the default (detail/select.inl, detail/unique.inl).
// Results, return values and synchronization are Thrust's.
#pragma once

#include <spscan/detail/unique.inl>

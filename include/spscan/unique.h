// spscan::unique, unique_copy, unique_count, unique_by_key and unique_by_key_copy, as Thrust's
// <thrust/unique.h> declares them (every overload, with and without a predicate and a policy), on
// spscan's single-pass selection wherever Thrust would run its CUDA backend; unique and
// unique_by_key in place (detail/unique.inl). Results, return values and synchronization are
// Thrust's.
#pragma once

#include <spscan/detail/unique.inl>

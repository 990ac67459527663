// spscan::partition_copy, as Thrust's <thrust/partition.h> declares it (every overload, with and without a stencil
// and a policy). <spscan/copy.h>, <spscan/remove.h> and <spscan/partition.h> each bring the three
// selections: copy_if, remove_copy_if and partition_copy.
//
// They dispatch exactly as Thrust does (a user's overloads, retagged iterators, host policies);
// where Thrust would run its CUDA backend they run it too, for now, so results, return values,
// synchronization and allocation are Thrust's (detail/select.inl). Input and outputs must not
// overlap, as Thrust requires.
#pragma once

#include <spscan/detail/select.inl>

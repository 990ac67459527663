// spscan::reduce_by_key, as Thrust's <thrust/reduce.h> declares it (every overload, with and without
// a key predicate, a reduction and a policy; detail/reduce_by_key.inl).
#pragma once

#include <spscan/detail/reduce_by_key.inl>

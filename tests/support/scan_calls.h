// Each scan as a callable that forwards its arguments to the whole overload set, spscan's or
// Thrust's, so that one test body serves every form (with or without a policy, init, op), e.g.
//   spscan_test::scan_calls::spscan_inclusive(policy, first, last, result)
#pragma once

#include <spscan/scan.h>
#include <spscan/transform_scan.h>

#include <thrust/scan.h>
#include <thrust/transform_scan.h>

namespace spscan_test::scan_calls
{

inline const auto spscan_inclusive           = [](auto&&... args) { return spscan::inclusive_scan(args...); };
inline const auto thrust_inclusive           = [](auto&&... args) { return thrust::inclusive_scan(args...); };
inline const auto spscan_exclusive           = [](auto&&... args) { return spscan::exclusive_scan(args...); };
inline const auto thrust_exclusive           = [](auto&&... args) { return thrust::exclusive_scan(args...); };
inline const auto spscan_transform_inclusive = [](auto&&... args) { return spscan::transform_inclusive_scan(args...); };
inline const auto thrust_transform_inclusive = [](auto&&... args) { return thrust::transform_inclusive_scan(args...); };
inline const auto spscan_transform_exclusive = [](auto&&... args) { return spscan::transform_exclusive_scan(args...); };
inline const auto thrust_transform_exclusive = [](auto&&... args) { return thrust::transform_exclusive_scan(args...); };

} // namespace spscan_test::scan_calls

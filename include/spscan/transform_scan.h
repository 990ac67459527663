// spscan::transform_inclusive_scan and spscan::transform_exclusive_scan — drop-in replacements
// for Thrust's:
//
//   transform_inclusive_scan([exec,] first, last, result, unary_op, binary_op)
//   transform_inclusive_scan([exec,] first, last, result, unary_op, init, binary_op)
//   transform_exclusive_scan([exec,] first, last, result, unary_op, init, binary_op)
//
// The transformed values have Thrust's types: unary_op's result for the inclusive forms, the
// init's type for the exclusive form. Routing and guarantees are those of <spscan/scan.h>.
#pragma once

#include <spscan/detail/transform_scan.inl>

// spscan::inclusive_scan and spscan::exclusive_scan — drop-in replacements for Thrust's.
//
// Every overload of thrust::inclusive_scan / thrust::exclusive_scan, with and without an
// execution policy, with the same arguments, return value (result + n), accumulator types,
// synchronization and allocation behaviour:
//
//   inclusive_scan([exec,] first, last, result)                    op = thrust::plus<>
//   inclusive_scan([exec,] first, last, result, binary_op)
//   inclusive_scan([exec,] first, last, result, init, binary_op)
//   exclusive_scan([exec,] first, last, result)                    init = value_type{}
//   exclusive_scan([exec,] first, last, result, init)              op = thrust::plus<>
//   exclusive_scan([exec,] first, last, result, init, binary_op)
//
// With a CUDA policy (thrust::device, thrust::cuda::par, par_nosync, par(alloc), .on(stream)) or
// device iterators, the scan runs on spscan's single-pass kernel on the policy's stream, taking
// temporary storage only through the policy's allocator, synchronizing unless the policy is a
// nosync one, and throwing thrust::system_error on CUDA errors. Everything else runs Thrust's own
// implementation (see detail/route.h). binary_op must be associative; it need not be commutative.
// Results are reproducible bit for bit from run to run (see README).
#pragma once

#include <spscan/detail/scan.inl>

// spscan::inclusive_scan, exclusive_scan, inclusive_scan_by_key and exclusive_scan_by_key —
// drop-in replacements for Thrust's.
//
// Every overload of Thrust's, with and without an execution policy, with the same arguments,
// return value (result + n), accumulator types, synchronization and allocation behaviour:
//
//   inclusive_scan([exec,] first, last, result)                    op = thrust::plus<>
//   inclusive_scan([exec,] first, last, result, binary_op)
//   inclusive_scan([exec,] first, last, result, init, binary_op)
//   exclusive_scan([exec,] first, last, result)                    init = value_type{}
//   exclusive_scan([exec,] first, last, result, init)              op = thrust::plus<>
//   exclusive_scan([exec,] first, last, result, init, binary_op)
//
//   inclusive_scan_by_key([exec,] keys_first, keys_last, values_first, result)
//   inclusive_scan_by_key([exec,] ..., result, binary_pred)       pred = thrust::equal_to<>
//   inclusive_scan_by_key([exec,] ..., result, binary_pred, binary_op)
//   exclusive_scan_by_key([exec,] keys_first, keys_last, values_first, result)
//   exclusive_scan_by_key([exec,] ..., result, init)             init = values' value_type{}
//   exclusive_scan_by_key([exec,] ..., result, init, binary_pred)
//   exclusive_scan_by_key([exec,] ..., result, init, binary_pred, binary_op)
//
// By key: a segment starts at element i when binary_pred(key[i-1], key[i]) is false (called as
// (previous, current), so head-flag predicates work); each segment is scanned on its own, and the
// exclusive forms start every segment at init. Accumulator: the values' value type (inclusive),
// init's type (exclusive). `result` may equal keys_first or values_first; no other overlap.
//
// With a CUDA policy (thrust::device, thrust::cuda::par, par_nosync, par(alloc), .on(stream)) or
// device iterators, the scan runs on spscan's single-pass kernel on the policy's stream, taking
// temporary storage through the policy's allocator where it has one (else what spscan keeps per
// device and stream, <spscan/temporary_storage.h>), synchronizing unless the policy is a
// nosync one, and throwing thrust::system_error on CUDA errors. Everything else runs Thrust's own
// implementation (see detail/route.h). binary_op must be associative; it need not be commutative.
// Results are reproducible bit for bit from run to run (docs/reproducibility.md).
#pragma once

#include <spscan/detail/scan.inl>
#include <spscan/detail/scan_by_key.inl>

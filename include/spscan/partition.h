// spscan::partition_copy, stable_partition_copy, partition and stable_partition, as Thrust's
// <thrust/partition.h> declares them (every overload, with and without a stencil and a policy). The
// copies run spscan's single-pass selection wherever Thrust would run its CUDA backend; the
// in-place partitions run Thrust's (detail/partition.inl). Results, return values and
// synchronization are Thrust's.
#pragma once

#include <spscan/detail/partition.inl>
#include <spscan/detail/select.inl>

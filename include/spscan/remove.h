// spscan::remove, remove_if, remove_copy and remove_copy_if, as Thrust's <thrust/remove.h> declares
// them (every overload, with and without a stencil and a policy), on spscan's single-pass selection
// wherever Thrust would run its CUDA backend; remove and remove_if in place (detail/remove.inl).
// Results, return values and synchronization are Thrust's. remove_copy's input and output must not
// overlap, as Thrust requires.
#pragma once

#include <spscan/detail/remove.inl>
#include <spscan/detail/select.inl>

// spscan::remove, remove_if, remove_copy and remove_copy_if, as Thrust's <thrust/remove.h> declares
// them (every overload, with and without a stencil and a policy), dispatched as Thrust dispatches
// them. remove_copy and remove_copy_if run spscan's single-pass selection wherever Thrust would run
// its CUDA backend; remove and remove_if run Thrust's there until their in-place route is the
// default (detail/select.inl, detail/remove.inl). Results, return values and synchronization are
// Thrust's. remove_copy's input and output must not overlap, as Thrust requires.
#pragma once

#include <spscan/detail/remove.inl>
#include <spscan/detail/select.inl>

// spscan::copy_if, as Thrust's <thrust/copy.h> declares it (every overload, with and without a
// stencil and a policy), on spscan's single-pass selection wherever Thrust would run its CUDA
// backend (detail/select.inl). Results, return values and synchronization are Thrust's. Input and
// output must not overlap, as Thrust requires.
#pragma once

#include <spscan/detail/select.inl>

// The back-off of a warp that polls tile states for a word another CTA has not stored yet. Each
// pause is twice the last plus 32 ns (0, 32, 96, 224, 480, 992, 2016 ns) until one reaches or
// passes the cap, and that one then repeats: a short first wait, since the word is usually about
// to come, and a bounded one, so that a slow predecessor is not flooded with reads of the line it
// is storing to and not waited for long after it has stored. The caps are per use: the classic
// look-back waits for whole tiles (1024 ns), the ring's prefix warps for reductions under way
// (256 ns).
#pragma once

#include <spscan/detail/config.h>

namespace spscan::detail
{

#if defined(__CUDACC__)
template <unsigned CapNs>
class polling_backoff
{
public:
  __device__ void pause()
  {
    __nanosleep(ns_);
    ns_ = ns_ < CapNs ? ns_ * 2 + 32 : ns_;
  }
  // After progress: the next wait starts short again.
  __device__ void restart()
  {
    ns_ = 0;
  }

private:
  unsigned ns_ = 0;
};
#endif

} // namespace spscan::detail

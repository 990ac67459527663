// An accumulator wider than spscan's kernel holds (route.h: 32 bytes), and its sum: calls with it
// take Thrust's route.
#pragma once

#include <spscan/detail/route.h>

#include <algorithm>
#include <iterator>

// In a namespace of its own: argument-dependent lookup on it finds only its operator==, not the
// other helpers of spscan_test that tests define again for themselves.
namespace spscan_test::wide
{

struct wide_value
{
  long long part[5];
};
static_assert(sizeof(wide_value) > spscan::detail::max_kernel_accumulator_bytes);

inline bool operator==(const wide_value& a, const wide_value& b)
{
  return std::equal(std::begin(a.part), std::end(a.part), std::begin(b.part));
}

struct add_wide
{
  __host__ __device__ wide_value operator()(const wide_value& a, const wide_value& b) const
  {
    wide_value sum;
    for (int i = 0; i < 5; ++i)
    {
      sum.part[i] = a.part[i] + b.part[i];
    }
    return sum;
  }
};

} // namespace spscan_test::wide

// The ring engine (detail/ring/) in the GPU tests: how deep a ring the device gives a program (0:
// none, before sm_90 or without the kernel built for it), and the skip of tests that need one.
#pragma once

#include <spscan/spscan.h>

#include <gtest/gtest.h>
#include <support/gpu.h>

#include <vector>

namespace spscan_test
{

template <class Program>
int ring_stages_here()
{
  return spscan::detail::ring::current_ring_device<Program>().stages;
}

// The ring depths a test runs with `deepest` stages available: the shallowest, the deepest and one
// between (every depth made the sanitizer runs too slow once small tiles allowed 12).
inline std::vector<int> ring_depths_to_test(int deepest)
{
  std::vector<int> depths;
  for (const int stages : {spscan::detail::ring::min_stages, (spscan::detail::ring::min_stages + deepest) / 2, deepest})
  {
    if (stages >= spscan::detail::ring::min_stages && stages <= deepest && (depths.empty() || depths.back() != stages))
    {
      depths.push_back(stages);
    }
  }
  return depths;
}

} // namespace spscan_test

// First statement of a test that needs the ring engine for Program.
#define SKIP_WITHOUT_RING(Program)                                                                      \
  do                                                                                                    \
  {                                                                                                     \
    SPSCAN_REQUIRE_GPU();                                                                               \
    if (::spscan_test::ring_stages_here<Program>() == 0)                                                \
    {                                                                                                   \
      GTEST_SKIP() << "this GPU has no ring engine (it needs sm_90 or newer and the kernel built for it)"; \
    }                                                                                                   \
  } while (0)

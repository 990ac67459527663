// splitmix64: a fast, seedable generator for test data (a 2^26-element input must not spend
// seconds in the generator).
#pragma once

#include <cstdint>

namespace spscan_test
{

struct splitmix64
{
  std::uint64_t state;

  std::uint64_t next()
  {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t bound) // in [0, bound)
  {
    return next() % bound;
  }
  double unit() // [0, 1) with 53 random bits
  {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
};

} // namespace spscan_test

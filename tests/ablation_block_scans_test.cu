// The ablation bench's block scans (bench/ablation/block_scans.h), run by their host model: every
// thread of each barrier-separated step in turn, the same step code the device runs. Each gives
// the sequential scan (inclusive or exclusive, as the algorithm's) for every block size of the
// bench, and Blelloch's padding spreads the strided accesses of a warp over more banks.
#include <ablation/block_scans.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <support/random.h>

namespace
{

template <class Scan, int B>
void expect_sequential_scan(std::uint64_t seed)
{
  spscan_test::splitmix64 rng{seed};
  std::array<int, B> values{};
  for (int& x : values)
  {
    x = static_cast<int>(rng.below(1000)) - 500;
  }
  std::array<int, B> expected{};
  int running = 0;
  for (int i = 0; i < B; ++i)
  {
    if (Scan::inclusive)
    {
      running += values[i];
      expected[i] = running;
    }
    else
    {
      expected[i] = running;
      running += values[i];
    }
  }
  ablation::run_on_host<Scan, B>(values.data());
  for (int i = 0; i < B; ++i)
  {
    ASSERT_EQ(expected[i], values[i]) << "block of " << B << ", element " << i;
  }
}

template <int B>
void expect_every_scan(std::uint64_t seed)
{
  expect_sequential_scan<ablation::kogge_stone<B>, B>(seed);
  expect_sequential_scan<ablation::brent_kung<B>, B>(seed);
  expect_sequential_scan<ablation::blelloch<B, false>, B>(seed);
  expect_sequential_scan<ablation::blelloch<B, true>, B>(seed);
}

TEST(AblationBlockScans, HostModelsGiveTheSequentialScanForEveryBlockSize)
{
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
  {
    expect_every_scan<2>(seed);
    expect_every_scan<32>(seed);
    expect_every_scan<64>(seed);
    expect_every_scan<128>(seed);
    expect_every_scan<256>(seed);
    expect_every_scan<512>(seed);
    expect_every_scan<1024>(seed);
  }
}

// The most threads of the first warp whose accesses at `stride` (Blelloch's up-sweep in a block of
// 1024: element (t + 1) * stride - 1 for each thread t that has one) fall on one of the 32 banks.
template <bool Padded>
int worst_bank_sharing(int stride)
{
  std::array<int, 32> per_bank{};
  for (int t = 0; t < 32 && (t + 1) * stride <= 1024; ++t)
  {
    ++per_bank[ablation::slot<Padded>((t + 1) * stride - 1) % 32];
  }
  return *std::max_element(per_bank.begin(), per_bank.end());
}

TEST(AblationBlockScans, PaddingSpreadsBlellochsStridedAccessesOverTheBanks)
{
  EXPECT_EQ(32, worst_bank_sharing<false>(32)) << "unpadded, stride 32: every thread on one bank";
  EXPECT_EQ(1, worst_bank_sharing<true>(32)) << "padded, stride 32: one thread per bank";
  // Every stride with more than one active thread in the warp: padding shares banks less.
  for (int stride = 32; stride <= 512; stride *= 2)
  {
    EXPECT_LT(worst_bank_sharing<true>(stride), worst_bank_sharing<false>(stride)) << "stride " << stride;
  }
}

} // namespace

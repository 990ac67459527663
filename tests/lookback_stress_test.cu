// Look-back under stress: tiny tiles and hundreds of thousands of them.
//
// With 32- or 128-element tiles a 2^24-element scan has 2^19 or 2^17 tiles, thousands of CTAs are
// resident at once and each finishes its tile almost immediately, so most look-backs start while
// many predecessors have published only an aggregate (A) or nothing (X): the nearest inclusive
// prefix (P) is often more than a window (32 tiles) away, so the look-back waits on X, walks back
// over several windows and folds forward over them, restarting from fresher Ps. That is the regime
// where a wrong fold order, a missed X, a window skipped or folded twice, a value read before its
// status or a torn packed word would show.
//
// The tests call spscan::detail::device_scan directly with a small tuning (the public API always
// uses scan_tuning). Operators are non-commutative (affine maps, 2x2 matrices, composed in order),
// accumulators are 4 and 8 bytes (packed tile state: status and value in one 64- or 128-bit word,
// where a torn read would show) and 16 bytes (split tile state: value slots, then a
// release/acquire status). Every output element is compared bit for bit with a sequential CPU
// reference; each size runs several times.
//
// Tunings: 32 threads x 1 item is the smallest tile the kernel takes (one warp: the block scan is a
// single warp scan and warp 0, the only warp, also does the look-back); 64 threads x 2 items
// covers two warps with a multi-item thread fold. The first reads four windows per look-back read,
// the second one.
#include <spscan/detail/programs/scan_plan.h>

#include <thrust/execution_policy.h>

#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/noncommutative.h>
#include <support/random.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace
{

using spscan_test::affine16;
using spscan_test::affine32;
using spscan_test::compose_affine16;
using spscan_test::compose_affine32;
using spscan_test::device_array;
using spscan_test::matrix2;
using spscan_test::multiply_matrix2;
using spscan_test::owned_stream;
using spscan_test::splitmix64;

// Deep look-back reads (four windows of 32 tiles per read) and one window
// per read: the walk back and the forward fold take different paths through look_back.h.
struct tiles_of_32
{
  static constexpr int threads         = 32;
  static constexpr int items           = 1;
  static constexpr int tile_items      = threads * items;
  static constexpr int look_back_depth = 4;
};
struct tiles_of_128
{
  static constexpr int threads         = 64;
  static constexpr int items           = 2;
  static constexpr int tile_items      = threads * items;
  static constexpr int look_back_depth = 1;
};

static_assert(spscan::detail::tile_state_for<affine16>::packed);
static_assert(spscan::detail::tile_state_for<affine32>::packed == (SPSCAN_HAS_WORD128 != 0));
static_assert(!spscan::detail::tile_state_for<matrix2>::packed);


// Random elements whose multipliers (determinants) are odd: prefix products stay invertible, so
// every element influences every later output and no prefix collapses to a constant.
template <class T>
T random_element(splitmix64& rng)
{
  const std::uint64_t bits = rng.next();
  if constexpr (std::is_same_v<T, affine16>)
  {
    return {static_cast<std::uint16_t>(bits | 1u), static_cast<std::uint16_t>(bits >> 16)};
  }
  else if constexpr (std::is_same_v<T, affine32>)
  {
    return {static_cast<std::uint32_t>(bits) | 1u, static_cast<std::uint32_t>(bits >> 32)};
  }
  else
  {
    const std::uint64_t more = rng.next();
    return {static_cast<std::uint32_t>(bits) | 1u,
            static_cast<std::uint32_t>(bits >> 32) & ~1u,
            static_cast<std::uint32_t>(more),
            static_cast<std::uint32_t>(more >> 32) | 1u};
  }
}


// Sizes: the largest (2^24, capped) and one less; 33 tiles (the last tile's window still reaches
// tile 0) and one element more (34 tiles: it no longer does); 65 tiles plus one element (the last
// tile's window is two windows from tile 0); about a thousand tiles. Each runs `repeats` times
// with new data.
template <class Tuning>
std::vector<std::size_t> stress_sizes()
{
  const std::size_t tile    = Tuning::tile_items;
  const std::size_t largest = std::min<std::size_t>(std::size_t{1} << 24, spscan_test::max_test_elements());
  std::vector<std::size_t> sizes{largest, largest - 1, 33 * tile, 33 * tile + 1, 65 * tile + 1, 1000 * tile + tile / 2};
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t n) { return n > largest || n <= tile; }),
              sizes.end());
  return sizes;
}

template <spscan::detail::scan_kind Kind, class Tuning, class T, class Op>
void check_tiny_tile_scans(int repeats)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  const auto sizes         = stress_sizes<Tuning>();
  ASSERT_FALSE(sizes.empty()) << "SPSCAN_TEST_MAX_ELEMENTS leaves no multi-tile size";
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());

  const owned_stream owned;
  const cudaStream_t stream = owned.stream;
  const device_array<T> in_buffer(largest), out_buffer(largest);
  T* const in  = in_buffer.data;
  T* const out = out_buffer.data;

  splitmix64 rng{seed};
  const Op op{};
  for (int repeat = 0; repeat < repeats; ++repeat)
  {
    for (const std::size_t n : sizes)
    {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", repeat " << repeat << ", n " << n << " ("
                                      << (n + Tuning::tile_items - 1) / Tuning::tile_items << " tiles of "
                                      << Tuning::tile_items << ")");
      std::vector<T> input(n);
      for (auto& x : input)
      {
        x = random_element<T>(rng);
      }
      const T init = random_element<T>(rng);

      ASSERT_EQ(cudaMemcpyAsync(in, input.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(out, spscan_test::poison_byte, n * sizeof(T), stream), cudaSuccess);
      auto policy      = thrust::cuda::par.on(stream);
      T* const returned = spscan::detail::device_scan<Kind, T, Tuning>(policy, in, n, out, op, init);
      EXPECT_EQ(returned, out + n);

      std::vector<T> got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
      const std::vector<T> expected = Kind == spscan::detail::scan_kind::exclusive
                                      ? spscan_test::reference_exclusive<T>(input, init, op)
                                      : (Kind == spscan::detail::scan_kind::inclusive_init
                                           ? spscan_test::reference_inclusive<T>(input, init, op)
                                           : spscan_test::reference_inclusive<T>(input, op));
      std::size_t wrong = 0, first_wrong = n;
      for (std::size_t i = 0; i < n; ++i)
      {
        if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
        {
          first_wrong = std::min(first_wrong, i);
          ++wrong;
        }
      }
      ASSERT_EQ(wrong, 0u) << "first wrong element " << first_wrong << ", in tile " << first_wrong / Tuning::tile_items;
    }
  }
}

// Three runs of each size; one under a sanitizer (SPSCAN_TEST_MAX_ELEMENTS set), which is slow.
const int repeats = spscan_test::max_test_elements() == ~std::size_t{0} ? 3 : 1;
using spscan::detail::scan_kind;

TEST(LookBackStress, TilesOf32PackedStateAffine16Inclusive)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive, tiles_of_32, affine16, compose_affine16>(repeats);
}
TEST(LookBackStress, TilesOf32PackedStateAffine16ExclusiveWithInit)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::exclusive, tiles_of_32, affine16, compose_affine16>(repeats);
}
TEST(LookBackStress, TilesOf32Packed128StateAffine32Inclusive)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive, tiles_of_32, affine32, compose_affine32>(repeats);
}
TEST(LookBackStress, TilesOf32Packed128StateAffine32InclusiveWithInit)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive_init, tiles_of_32, affine32, compose_affine32>(repeats);
}
TEST(LookBackStress, TilesOf32SplitStateMatrix2Inclusive)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive, tiles_of_32, matrix2, multiply_matrix2>(repeats);
}
TEST(LookBackStress, TilesOf32SplitStateMatrix2ExclusiveWithInit)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::exclusive, tiles_of_32, matrix2, multiply_matrix2>(repeats);
}
TEST(LookBackStress, TilesOf128PackedStateAffine16Inclusive)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive, tiles_of_128, affine16, compose_affine16>(repeats);
}
TEST(LookBackStress, TilesOf128Packed128StateAffine32ExclusiveWithInit)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::exclusive, tiles_of_128, affine32, compose_affine32>(repeats);
}
TEST(LookBackStress, TilesOf128SplitStateMatrix2Inclusive)
{
  SPSCAN_REQUIRE_GPU();
  check_tiny_tile_scans<scan_kind::inclusive, tiles_of_128, matrix2, multiply_matrix2>(repeats);
}

} // namespace

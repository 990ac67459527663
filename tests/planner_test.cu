// The planner (detail/planner.h): which step of its family's plan runs a call of each size, and
// which programs that step launches on each engine. The choice is a function of the size, the
// element's bytes and the device's tile shape only, so it is checked here on the CPU; the GPU
// tests check what each step computes.
#include <spscan/detail/planner.h>
#include <spscan/detail/programs/scan_by_key_plan.h>
#include <spscan/detail/programs/scan_plan.h>
#include <spscan/detail/programs/select_plan.h>

#include <thrust/functional.h>

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

#include <gtest/gtest.h>

namespace planner_test
{
struct is_odd
{
  __host__ __device__ bool operator()(std::int32_t x) const
  {
    return (x & 1) != 0;
  }
};
} // namespace planner_test

namespace
{

namespace sd = spscan::detail;

template <std::size_t I, class Steps>
struct step_at;
template <std::size_t I, class First, class... Rest>
struct step_at<I, sd::plan_steps<First, Rest...>> : step_at<I - 1, sd::plan_steps<Rest...>>
{};
template <class First, class... Rest>
struct step_at<0, sd::plan_steps<First, Rest...>>
{
  using type = First;
};

// A plan as a device that grants the primary shape runs it (or the reduced one: `Fitting`).
template <class Plan, class Fitting = typename Plan::shapes::primary>
struct plan_on
{
  using steps                             = typename Plan::template steps<Fitting>;
  static constexpr std::size_t tile_items = Fitting::tuning::tile_items;

  static std::size_t step_for(std::size_t n)
  {
    return sd::planned_step(steps{}, n, tile_items, Plan::item_bytes);
  }
  template <std::size_t I>
  using step = typename step_at<I, steps>::type;
};

template <class T>
using scan_plan = sd::scan_plan<sd::scan_kind::inclusive, T, const T*, T*, thrust::plus<T>, T>;

// Step indices of scan_plan: blocked shape, small tiles, wide small tiles, every size.
constexpr std::size_t scan_blocked = 0, scan_small = 1, scan_wide_small = 2, scan_every_size = 3;

TEST(Planner, IntScansTakeSmallTilesFromTwoTilesToOneMiBAndTheDeviceShapeOnEitherSide)
{
  using plan             = plan_on<scan_plan<std::int32_t>>;
  constexpr std::size_t tile = plan::tile_items;
  constexpr std::size_t mib  = std::size_t{1} << 20;
  EXPECT_EQ(plan::step_for(1), scan_every_size);
  EXPECT_EQ(plan::step_for(tile), scan_every_size); // one tile: the one-tile path
  EXPECT_EQ(plan::step_for(tile + 1), scan_small);
  EXPECT_EQ(plan::step_for(mib / 4), scan_small);
  EXPECT_EQ(plan::step_for(mib / 4 + 1), scan_every_size);
  EXPECT_EQ(plan::step_for(std::size_t{1} << 30), scan_every_size);
  static_assert(::cuda::std::is_same_v<plan::step<scan_blocked>, sd::no_step>, "no blocked shape under exact +");
  static_assert(::cuda::std::is_same_v<plan::step<scan_wide_small>, sd::no_step>, "wide small tiles: 8-byte types");
  static_assert(::cuda::std::is_same_v<plan::step<scan_small>::ring_program, sd::no_ring>);
  static_assert(::cuda::std::is_same_v<plan::step<scan_every_size>::ring_program,
                                       scan_plan<std::int32_t>::ring_program>);
}

TEST(Planner, DoubleSumsTakeTheBlockedShapeOnBothEnginesFromEightMiB)
{
  using plan                = plan_on<scan_plan<double>>;
  constexpr std::size_t mib = std::size_t{1} << 20;
  EXPECT_EQ(plan::step_for(plan::tile_items + 1), scan_small);
  EXPECT_EQ(plan::step_for(mib / 8), scan_small);
  EXPECT_EQ(plan::step_for(mib / 8 + 1), scan_wide_small);
  EXPECT_EQ(plan::step_for(2 * mib / 8), scan_wide_small);
  EXPECT_EQ(plan::step_for(2 * mib / 8 + 1), scan_every_size);
  EXPECT_EQ(plan::step_for(8 * mib / 8 - 1), scan_every_size);
  EXPECT_EQ(plan::step_for(8 * mib / 8), scan_blocked);
  using blocked = plan::step<scan_blocked>;
  static_assert(sd::blocked_association_of<blocked::program::tuning>::value);
  static_assert(::cuda::std::is_same_v<blocked::program::tuning, scan_plan<double>::ring_program::tuning>,
                "the classic engine takes the ring's shape, so that both give the same bits");
  static_assert(::cuda::std::is_same_v<blocked::ring_program, scan_plan<double>::ring_program>);
  static_assert(::cuda::std::is_same_v<plan::step<scan_every_size>::ring_program, sd::no_ring>,
                "below eight MiB the ring would need the blocked shape the classic engine does not take there");
}

TEST(Planner, ExactEightByteSumsTakeTheRingInItsOwnShapeWithoutABlockedStep)
{
  using plan = plan_on<scan_plan<std::int64_t>>;
  EXPECT_EQ(plan::step_for(std::size_t{1} << 28), scan_every_size);
  static_assert(::cuda::std::is_same_v<plan::step<scan_blocked>, sd::no_step>);
  static_assert(!::cuda::std::is_same_v<plan::step<scan_wide_small>, sd::no_step>);
  static_assert(::cuda::std::is_same_v<plan::step<scan_every_size>::ring_program,
                                       scan_plan<std::int64_t>::ring_program>);
}

TEST(Planner, DoubleSumsInTheReducedShapeHaveNoBlockedStepAndNoRing)
{
  using reduced = scan_plan<double>::shapes::reduced;
  using plan    = plan_on<scan_plan<double>, reduced>;
  static_assert(::cuda::std::is_same_v<plan::step<scan_blocked>, sd::no_step>);
  static_assert(::cuda::std::is_same_v<plan::step<scan_every_size>::program, reduced>);
  EXPECT_EQ(plan::step_for(std::size_t{1} << 28), scan_every_size);
}

template <class V>
using by_key_plan = sd::scan_by_key_plan<false, V, const int*, const V*, V*, thrust::equal_to<int>, thrust::plus<V>>;
constexpr std::size_t by_key_quarter = 0, by_key_half = 1, by_key_blocked = 2, by_key_every_size = 3;

TEST(Planner, ByKeyScansOfAFewTilesTakeQuarterThenHalfTilesOnTheClassicEngine)
{
  using plan             = plan_on<by_key_plan<float>>;
  constexpr std::size_t tile = plan::tile_items;
  EXPECT_EQ(plan::step_for(tile), by_key_every_size);
  EXPECT_EQ(plan::step_for(tile + 1), by_key_quarter);
  EXPECT_EQ(plan::step_for(8 * tile), by_key_quarter);
  EXPECT_EQ(plan::step_for(8 * tile + 1), by_key_half);
  EXPECT_EQ(plan::step_for(32 * tile), by_key_half);
  EXPECT_EQ(plan::step_for(32 * tile + 1), by_key_every_size);
  static_assert(plan::step<by_key_quarter>::program::tuning::items == 8);
  static_assert(plan::step<by_key_half>::program::tuning::items == 16);
  static_assert(::cuda::std::is_same_v<plan::step<by_key_quarter>::ring_program, sd::no_ring>);
  static_assert(::cuda::std::is_same_v<plan::step<by_key_blocked>, sd::no_step>, "floats have no blocked shape");
  static_assert(::cuda::std::is_same_v<plan::step<by_key_every_size>::ring_program, plan::step<by_key_every_size>::program>);
}

TEST(Planner, ByKeyDoubleSumsTakeTheBlockedShapeOnBothEnginesFromEightMiBOfValues)
{
  using plan = plan_on<by_key_plan<double>>;
  EXPECT_EQ(plan::step_for((std::size_t{8} << 20) / 8 - 1), by_key_every_size);
  EXPECT_EQ(plan::step_for((std::size_t{8} << 20) / 8), by_key_blocked);
  using blocked = plan::step<by_key_blocked>;
  static_assert(blocked::program::tuning::blocked_association);
  static_assert(::cuda::std::is_same_v<blocked::ring_program, blocked::program>);
}

template <class T>
using select_plan = sd::select_plan<false, const T*, sd::no_stencil, T*, T*, planner_test::is_odd>;

TEST(Planner, SelectionsOfTwoToThirtyTwoTilesTakeTheHalfTileOnTheClassicEngine)
{
  using plan             = plan_on<select_plan<std::int32_t>>;
  constexpr std::size_t tile = plan::tile_items;
  EXPECT_EQ(plan::step_for(tile), 1u);
  EXPECT_EQ(plan::step_for(tile + 1), 0u);
  EXPECT_EQ(plan::step_for(32 * tile), 0u);
  EXPECT_EQ(plan::step_for(32 * tile + 1), 1u);
  using few = plan::step<0>;
  static_assert(::cuda::std::is_same_v<few::program, select_plan<std::int32_t>::shapes::reduced>);
  static_assert(few::program::tuning::tile_items * 2 == tile);
  static_assert(::cuda::std::is_same_v<few::ring_program, sd::no_ring>);
  static_assert(::cuda::std::is_same_v<plan::step<1>::ring_program, plan::step<1>::program>);
}

} // namespace

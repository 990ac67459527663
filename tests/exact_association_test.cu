// common/exact_association.h: which carry operators the ring's prefix warp may add in a tree.
// Only integer operators known to be associative qualify; floating point, user functors (which
// could be non-associative, and then a tree would make results depend on timing) and bool do not.
// No GPU needed.
#include <spscan/detail/common/exact_association.h>
#include <spscan/detail/programs/select_plan.h>

#include <thrust/functional.h>

#include <cuda/functional>
#include <cuda/std/functional>

#include <cstdint>

#include <gtest/gtest.h>

namespace sd = spscan::detail;

namespace exact_association_test
{

struct user_sum
{
  __host__ __device__ int operator()(int a, int b) const
  {
    return a + b;
  }
};

struct declared_exact_sum
{
  static constexpr bool exact_association = true;
  __host__ __device__ long long operator()(long long a, long long b) const
  {
    return a + b;
  }
};

} // namespace exact_association_test

using exact_association_test::declared_exact_sum;
using exact_association_test::user_sum;

TEST(ExactAssociation, integer_sums_products_bitwise_ops_and_extrema_qualify)
{
  EXPECT_TRUE((sd::exactly_associative<int, ::cuda::std::plus<int>>));
  EXPECT_TRUE((sd::exactly_associative<int, ::cuda::std::plus<>>));
  EXPECT_TRUE((sd::exactly_associative<std::uint64_t, ::cuda::std::multiplies<std::uint64_t>>));
  EXPECT_TRUE((sd::exactly_associative<std::int8_t, ::cuda::std::bit_xor<std::int8_t>>));
  EXPECT_TRUE((sd::exactly_associative<unsigned, ::cuda::std::bit_and<>>));
  EXPECT_TRUE((sd::exactly_associative<long long, ::cuda::maximum<long long>>));
  EXPECT_TRUE((sd::exactly_associative<short, ::cuda::minimum<>>));
}

TEST(ExactAssociation, thrusts_functors_qualify_on_every_supported_cccl)
{
  // Thrust's functors derive from (CCCL 2.8, 3.0) or are (3.5) the standard ones.
  EXPECT_TRUE((sd::exactly_associative<int, thrust::plus<int>>));
  EXPECT_TRUE((sd::exactly_associative<unsigned, thrust::bit_or<unsigned>>));
}

TEST(ExactAssociation, the_selections_count_sum_says_so_itself)
{
  EXPECT_TRUE((sd::exactly_associative<std::uint64_t, sd::add_counts>));
  EXPECT_TRUE((sd::exactly_associative<long long, declared_exact_sum>));
}

TEST(ExactAssociation, floating_point_user_functors_and_bool_are_folded_in_order)
{
  EXPECT_FALSE((sd::exactly_associative<float, ::cuda::std::plus<float>>));
  EXPECT_FALSE((sd::exactly_associative<double, ::cuda::maximum<double>>));
  EXPECT_FALSE((sd::exactly_associative<int, user_sum>));
  EXPECT_FALSE((sd::exactly_associative<bool, ::cuda::std::bit_or<bool>>));
  // Why floats are excluded: two groupings of the same three sums differ in their last bit.
  volatile float a = 1.0f, b = 3e-8f, c = 3e-8f; // volatile: no compile-time regrouping
  const float left_fold = (a + b) + c;
  const float tree      = a + (b + c);
  EXPECT_NE(left_fold, tree) << "(a + b) + c rounds b and c away one at a time; b + c does not round away";
}

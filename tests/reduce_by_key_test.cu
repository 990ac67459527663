// reduce_by_key on spscan's program keeps the contract of Thrust's CUDA backend: for runs of every
// length, around the
// tile edges of each shape (8192 elements a tile of up to 4-byte values, 4096 for 8-byte ones, the
// half tiles of inputs of a few tiles) and past many tiles, the keys, the sums and both end
// iterators are the sequential reference's and Thrust's, integers bit for bit; with a predicate
// coarser than ==, a non-commutative operator, narrow values into wide outputs, fancy iterators,
// a discarded key output, and keys and values reduced in place. Float sums are the same bits from
// call to call, and within a stated bound of the float64 reference.
#include <spscan/execution_policy.h>
#include <spscan/reduce.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace
{

// An equivalence coarser than ==: the same value divided by 4.
struct same_quarter
{
  template <class A, class B>
  SPSCAN_HOST_DEVICE bool operator()(const A& a, const B& b) const
  {
    return static_cast<long long>(a) / 4 == static_cast<long long>(b) / 4;
  }
};

// Associative, not commutative: a value is an affine map x -> m x + c modulo 2^16 (m in the high
// half, c in the low), and op(a, b) applies a, then b.
struct affine_fold
{
  SPSCAN_HOST_DEVICE unsigned operator()(unsigned a, unsigned b) const
  {
    const unsigned m = ((a >> 16) * (b >> 16)) & 0xffffu;
    const unsigned c = ((a & 0xffffu) * (b >> 16) + (b & 0xffffu)) & 0xffffu;
    return (m << 16) | c;
  }
};

// The program, called as the dispatch calls it (route.h) with a copy of the policy, whether or not
// it is reduce_by_key's default route.
template <class Policy, class... Args>
auto program_reduce_by_key(const Policy& policy, Args... args)
{
  auto p = policy;
  return spscan::detail::reduce_by_key_on_kernel::launch(p, args...);
}

struct times_two
{
  SPSCAN_HOST_DEVICE int operator()(int x) const
  {
    return 2 * x;
  }
};

// ---------------------------------------------------------------------------------------------
// CPU

// The look-back folds tiles' carries in whatever grouping the schedule gives: every grouping of a
// sequence of run carries (the elements' own: a value, and whether it heads a run) is the
// sequential fold, under an operator that is associative and not commutative: its value is the
// fold of the last run, its count the heads.
TEST(ReduceByKey, RunCarriesCombineInEveryGroupingAsTheSequentialFold)
{
  using carry = spscan::detail::run_carry<unsigned, std::uint32_t>;
  affine_fold fold;
  const spscan::detail::run_carry_op<unsigned, std::uint32_t, affine_fold> combine{fold};
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 engine(seed);
  for (int trial = 0; trial < 200; ++trial)
  {
    const std::size_t n = 1 + engine() % 40;
    std::vector<carry> elements(n);
    unsigned last_run = 0;
    std::uint32_t heads = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      const bool head = engine() % 4 == 0;
      elements[i]     = carry{static_cast<unsigned>(engine()), head ? 1u : 0u};
      last_run        = head || i == 0 ? elements[i].value : fold(last_run, elements[i].value);
      heads += head ? 1u : 0u;
    }
    // A random grouping: split [first, last) at a random point, combine the halves' folds.
    std::function<carry(std::size_t, std::size_t)> grouped = [&](std::size_t first, std::size_t last) {
      if (last - first == 1)
      {
        return elements[first];
      }
      const std::size_t middle = first + 1 + engine() % (last - first - 1);
      return combine(grouped(first, middle), grouped(middle, last));
    };
    const carry folded = grouped(0, n);
    EXPECT_EQ(folded.value, last_run) << "the last run's fold";
    EXPECT_EQ(folded.heads, heads) << "the heads";
  }
}

// ---------------------------------------------------------------------------------------------
// GPU

// Sizes around the tiles of every shape, and many tiles, within the test cap.
std::vector<std::size_t> reduce_sizes()
{
  std::vector<std::size_t> sizes;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33}, std::size_t{4095},
                              std::size_t{4096}, std::size_t{4097}, std::size_t{8191}, std::size_t{8192},
                              std::size_t{8193}, std::size_t{5 * 8192 + 31}, std::size_t{40 * 8192 + 1},
                              (std::size_t{1} << 22) + 5})
  {
    if (n <= spscan_test::max_test_elements())
    {
      sizes.push_back(n);
    }
  }
  return sizes;
}

// The sequential reduce_by_key: run heads by pred(previous, current), folds left to right in Accum,
// and each run's last key (Thrust's CUDA backend's, where the predicate lets a run's keys differ).
template <class Accum, class K, class V, class Pred, class Op>
void reference_reduce_by_key(
  const std::vector<K>& keys, const std::vector<V>& values, Pred pred, Op op, std::vector<K>& keys_out, std::vector<Accum>& sums)
{
  keys_out.clear();
  sums.clear();
  for (std::size_t i = 0; i < keys.size(); ++i)
  {
    if (i == 0 || !pred(keys[i - 1], keys[i]))
    {
      keys_out.push_back(keys[i]);
      sums.push_back(static_cast<Accum>(values[i]));
    }
    else
    {
      keys_out.back() = keys[i];
      sums.back()     = static_cast<Accum>(op(sums.back(), static_cast<Accum>(values[i])));
    }
  }
}

template <class T>
std::vector<T> first(const thrust::device_vector<T>& values, std::ptrdiff_t count)
{
  const std::vector<T> all = spscan_test::to_host(values);
  return std::vector<T>(all.begin(), all.begin() + count);
}

// spscan's and Thrust's reduce_by_key of the same keys and values into poisoned outputs: the ends,
// the keys and the sums are the reference's (and so Thrust's), bit for bit.
template <class K, class V, class Out = V, class Pred = thrust::equal_to<K>, class Op = thrust::plus<Out>>
void expect_exact(std::size_t n, double mean_run, Pred pred = {}, Op op = {})
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  std::vector<K> keys = spscan_test::random_segment_keys<K>(n, mean_run, seed);
  for (std::size_t i = 0; i < n; ++i)
  {
    keys[i] = static_cast<K>(keys[i] * 4 + static_cast<K>((i * 2654435761u) >> 30)); // key * 4 + 0..3
  }
  const std::vector<V> values = spscan_test::random_values<V>(n, seed + 1);
  std::vector<K> expected_keys;
  std::vector<V> expected_sums;
  reference_reduce_by_key<V>(keys, values, pred, op, expected_keys, expected_sums);

  const thrust::device_vector<K> d_keys = spscan_test::to_device(keys);
  const thrust::device_vector<V> d_values = spscan_test::to_device(values);
  thrust::device_vector<K> keys_out(n + 1);
  thrust::device_vector<Out> sums_out(n + 1);
  spscan_test::poison(keys_out);
  spscan_test::poison(sums_out);
  const auto ends = program_reduce_by_key(
    thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), keys_out.begin(), sums_out.begin(), pred, op);
  const auto runs = static_cast<std::ptrdiff_t>(expected_keys.size());
  ASSERT_EQ(ends.first - keys_out.begin(), runs) << "keys' end";
  ASSERT_EQ(ends.second - sums_out.begin(), runs) << "sums' end";
  EXPECT_EQ(first(keys_out, runs), expected_keys) << "keys";
  const std::vector<Out> sums = first(sums_out, runs);
  std::vector<Out> expected(expected_sums.begin(), expected_sums.end());
  spscan_test::expect_bitwise_equal(expected, sums, "sums");
  EXPECT_TRUE(spscan_test::all_poisoned(std::vector<Out>{spscan_test::to_host(sums_out)[static_cast<std::size_t>(runs)]}))
    << "nothing written past the last run";
}

TEST(ReduceByKeyOnGpu, IntegerSumsAreExactForRunsOfEveryLengthAroundTileEdges)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : reduce_sizes())
  {
    for (const double mean_run : {1.0, 3.0, 40.0, 5000.0})
    {
      expect_exact<int, int>(n, mean_run);
      expect_exact<long long, long long>(n, mean_run);
    }
    expect_exact<std::uint8_t, unsigned>(n, 2.0);
    expect_exact<short, std::int64_t>(n, 7.0);
  }
}

TEST(ReduceByKeyOnGpu, APredicateCoarserThanEqualityAndANonCommutativeOperatorKeepTheirOrder)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : reduce_sizes())
  {
    expect_exact<int, unsigned, unsigned, same_quarter, affine_fold>(n, 1.0);
    expect_exact<int, unsigned, unsigned, same_quarter, affine_fold>(n, 300.0);
    expect_exact<long long, int, int, same_quarter, thrust::maximum<int>>(n, 20.0);
  }
}

// Thrust's accumulator is the values' type: uint8 values summed into int64 outputs wrap at 256,
// in Thrust and in spscan alike.
TEST(ReduceByKeyOnGpu, NarrowValuesIntoWideOutputsAccumulateAsThrusts)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(100000, spscan_test::max_test_elements());
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const thrust::device_vector<int> keys = spscan_test::to_device(spscan_test::random_segment_keys<int>(n, 300.0, seed));
  const thrust::device_vector<std::uint8_t> flags = spscan_test::to_device(spscan_test::random_values<std::uint8_t>(n, seed));
  thrust::device_vector<int> my_keys(n), their_keys(n);
  thrust::device_vector<std::int64_t> mine(n), theirs(n);
  const auto my_ends =
    program_reduce_by_key(thrust::device, keys.begin(), keys.end(), flags.begin(), my_keys.begin(), mine.begin());
  const auto their_ends =
    thrust::reduce_by_key(thrust::device, keys.begin(), keys.end(), flags.begin(), their_keys.begin(), theirs.begin());
  ASSERT_EQ(my_ends.second - mine.begin(), their_ends.second - theirs.begin());
  EXPECT_EQ(first(mine, my_ends.second - mine.begin()), first(theirs, their_ends.second - theirs.begin()));
  EXPECT_EQ(first(my_keys, my_ends.first - my_keys.begin()), first(their_keys, their_ends.first - their_keys.begin()));
}

// Run-length encoding as Thrust's example writes it (a constant_iterator of ones), a transformed
// key input, and a discarded key output: Thrust's results.
TEST(ReduceByKeyOnGpu, FancyIteratorsAndADiscardedKeyOutputGiveThrustsResults)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : reduce_sizes())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const thrust::device_vector<int> keys = spscan_test::to_device(spscan_test::random_segment_keys<int>(n, 9.0, seed));
    thrust::device_vector<int> a(n), b(n), c(n), d(n);
    const auto ones = thrust::make_constant_iterator(1);
    auto mine       = program_reduce_by_key(thrust::device, keys.begin(), keys.end(), ones, a.begin(), b.begin());
    auto theirs     = thrust::reduce_by_key(thrust::device, keys.begin(), keys.end(), ones, c.begin(), d.begin());
    ASSERT_EQ(mine.first - a.begin(), theirs.first - c.begin()) << "run-length encoding: runs";
    EXPECT_EQ(first(a, mine.first - a.begin()), first(c, theirs.first - c.begin())) << "run-length encoding: values";
    EXPECT_EQ(first(b, mine.second - b.begin()), first(d, theirs.second - d.begin())) << "run-length encoding: lengths";

    const auto doubled = thrust::make_transform_iterator(keys.begin(), times_two{});
    const auto index   = thrust::make_counting_iterator(0);
    mine   = program_reduce_by_key(thrust::device, doubled, doubled + static_cast<std::ptrdiff_t>(n), index, a.begin(), b.begin());
    theirs = thrust::reduce_by_key(thrust::device, doubled, doubled + static_cast<std::ptrdiff_t>(n), index, c.begin(), d.begin());
    ASSERT_EQ(mine.first - a.begin(), theirs.first - c.begin()) << "transformed keys: runs";
    EXPECT_EQ(first(a, mine.first - a.begin()), first(c, theirs.first - c.begin())) << "transformed keys";
    EXPECT_EQ(first(b, mine.second - b.begin()), first(d, theirs.second - d.begin())) << "counting values";

    const auto discarded =
      program_reduce_by_key(thrust::device, keys.begin(), keys.end(), index, thrust::make_discard_iterator(), b.begin());
    ASSERT_EQ(discarded.second - b.begin(), theirs.second - d.begin()) << "discarded keys: runs";
    EXPECT_EQ(first(b, discarded.second - b.begin()), first(d, theirs.second - d.begin())) << "discarded keys: sums";
  }
}

// Keys and values reduced over themselves (keys_output == keys_first, values_output ==
// values_first): the reference's results.
TEST(ReduceByKeyOnGpu, InPlaceGivesTheReferencesResults)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : reduce_sizes())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(spscan_test::case_name(seed, n));
    const std::vector<int> keys   = spscan_test::random_segment_keys<int>(n, 4.0, seed);
    const std::vector<int> values = spscan_test::random_values<int>(n, seed + 1);
    std::vector<int> expected_keys, expected_sums;
    reference_reduce_by_key<int>(keys, values, thrust::equal_to<int>{}, thrust::plus<int>{}, expected_keys, expected_sums);
    thrust::device_vector<int> d_keys = spscan_test::to_device(keys), d_values = spscan_test::to_device(values);
    const auto ends =
      program_reduce_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), d_keys.begin(), d_values.begin());
    const auto runs = static_cast<std::ptrdiff_t>(expected_keys.size());
    ASSERT_EQ(ends.first - d_keys.begin(), runs);
    ASSERT_EQ(ends.second - d_values.begin(), runs);
    EXPECT_EQ(first(d_keys, runs), expected_keys) << "keys";
    EXPECT_EQ(first(d_values, runs), expected_sums) << "sums";
  }
}

// Float and double sums (values in [-0.5, 0.5), which round): the same bits in every call, and
// each run's sum within n_run * 2^-23 (float; 2^-52 double) of the float64 reference's magnitude
// sum, the bound of any order of a run's additions.
template <class V>
void expect_reproducible_and_close(std::size_t n, double mean_run)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<int> keys = spscan_test::random_segment_keys<int>(n, mean_run, seed);
  const std::vector<V> values = spscan_test::random_values<V>(n, seed + 1);
  const thrust::device_vector<int> d_keys = spscan_test::to_device(keys);
  const thrust::device_vector<V> d_values = spscan_test::to_device(values);
  thrust::device_vector<int> keys_out(n);
  thrust::device_vector<V> sums_out(n);
  std::vector<V> first_sums;
  for (int call = 0; call < 3; ++call)
  {
    spscan_test::poison(sums_out);
    const auto ends = program_reduce_by_key(
      thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(), keys_out.begin(), sums_out.begin());
    const std::vector<V> sums = first(sums_out, ends.second - sums_out.begin());
    if (call == 0)
    {
      first_sums = sums;
    }
    else
    {
      spscan_test::expect_bitwise_equal(first_sums, sums, "the same bits in every call");
    }
  }
  const double unit = std::is_same_v<V, float> ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
  std::size_t run = 0, run_length = 0;
  double exact = 0, magnitude = 0;
  for (std::size_t i = 0; i <= n; ++i)
  {
    if (i == n || (i > 0 && keys[i] != keys[i - 1]))
    {
      ASSERT_LT(run, first_sums.size());
      EXPECT_LE(std::fabs(static_cast<double>(first_sums[run]) - exact), unit * static_cast<double>(run_length) * magnitude)
        << "run " << run;
      ++run;
      exact = magnitude = 0;
      run_length        = 0;
    }
    if (i < n)
    {
      exact += static_cast<double>(values[i]);
      magnitude += std::fabs(static_cast<double>(values[i]));
      ++run_length;
    }
  }
  EXPECT_EQ(run, first_sums.size()) << "runs";
}

TEST(ReduceByKeyOnGpu, FloatSumsAreTheSameBitsInEveryCallAndWithinTheirBound)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : reduce_sizes())
  {
    expect_reproducible_and_close<float>(n, 3000.0);
    expect_reproducible_and_close<double>(n, 3000.0);
    expect_reproducible_and_close<float>(n, 5.0);
  }
}

// Every form reaches the program once where it is the default route (else Thrust's CUDA backend,
// once): the overloads with and without a policy, predicate and operator, and Thrust's entry point
// with spscan::par.
TEST(ReduceByKeyOnGpu, EveryOverloadTakesTheDefaultRouteOnce)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n                   = 5000;
  const thrust::device_vector<int> keys = spscan_test::to_device(spscan_test::random_segment_keys<int>(n, 5.0, 7));
  thrust::device_vector<int> a(n), b(n);
  const spscan_test::route_probe routed;
  spscan::reduce_by_key(keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin());
  spscan::reduce_by_key(keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin(), thrust::equal_to<int>{});
  spscan::reduce_by_key(keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin(), thrust::equal_to<int>{}, thrust::plus<int>{});
  spscan::reduce_by_key(thrust::device, keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin());
  spscan::reduce_by_key(spscan::par, keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin(), same_quarter{});
  thrust::reduce_by_key(spscan::par, keys.begin(), keys.end(), keys.begin(), a.begin(), b.begin());
  constexpr unsigned on_program = spscan::detail::reduce_by_key_program_is_default ? 6u : 0u;
  EXPECT_EQ(routed.kernel_calls(), on_program) << "spscan's program";
  EXPECT_EQ(routed.thrust_calls(), 6u - on_program) << "Thrust's CUDA backend";
}

} // namespace

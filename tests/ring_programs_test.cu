// The ring engine (detail/ring/) with the programs beside the plain scan of a raw array: the
// selection program (copy_if, with a stencil, partition_copy), whose tiles arrive by bulk copy and
// leave by the scan squad's scattered stores; the by-key scans, whose keys arrive beside the
// values and whose segments cross tiles and CTAs; reduce_by_key, whose keys arrive so too and
// whose runs leave as the selection's elements do; and scans whose input the copy engine cannot read
// (a counting_iterator, a transform_iterator, a conversion to a wider accumulator), which the
// reduce squad stages itself. Each against the classic engine, bit for bit, and against a
// sequential host reference, for every ring depth the device allows and for one CTA per SM, one
// and three CTAs. Skips visibly without a GPU, or where the GPU has no ring (before sm_90).
#include <spscan/spscan.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>
#include <support/ring.h>

namespace
{

namespace sd = spscan::detail;
using spscan_test::expect_bitwise_equal;
using spscan_test::poison;
using spscan_test::ring_stages_here;
using spscan_test::to_host;

// Every ring option a test runs: the shallowest, a middle and the deepest ring the device allows,
// with every SM's CTA and with one and three CTAs (then every CTA runs many tiles through every
// stage), the scan squad's threads storing; and where the program can, the copy engine storing.
template <class Program, class Run>
void for_each_ring_option(Run&& run)
{
  for (const int stages : spscan_test::ring_depths_to_test(ring_stages_here<Program>()))
  {
    for (const int ctas : {0, 1, 3})
    {
      SCOPED_TRACE(::testing::Message() << stages << " stages, CTAs " << ctas);
      run(sd::ring::ring_options{stages, true, ctas});
    }
    if constexpr (Program::ring_stores_by_copy)
    {
      // One CTA as well: every stage, and every result buffer of a generated input, taken again
      // and again while its last store may still be reading it.
      for (const int ctas : {0, 1})
      {
        SCOPED_TRACE(::testing::Message() << stages << " stages, stores by the copy engine, CTAs " << ctas);
        run(sd::ring::ring_options{stages, false, ctas});
      }
    }
  }
}

// Sizes: two whole tiles, a partial last tile, a whole last tile after many rounds of the ring.
template <class Program>
std::vector<std::size_t> ring_sizes()
{
  constexpr std::size_t tile = Program::tuning::tile_items;
  std::vector<std::size_t> kept;
  for (const std::size_t n : {2 * tile, 2 * tile + 1, 7 * tile - 3, 300 * tile + tile / 2, 1000 * tile})
  {
    if (n <= spscan_test::max_test_elements())
    {
      kept.push_back(n);
    }
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Selection

// Keeps the values whose remainder by `modulus` is zero (modulus 1: all; a large one: almost none).
template <class T>
struct divisible_by
{
  long long modulus;
  __host__ __device__ bool operator()(const T& x) const
  {
    return static_cast<long long>(x) % modulus == 0;
  }
};

// Tuning: the primary tile shape (select_tuning) or the half tile (reduced_select_tuning).
template <bool Partition, class T, class StencilIt, template <class> class Tuning = sd::select_tuning>
using select_program_for = sd::select_program_for<Partition, Tuning<T>, const T*, StencilIt, T*, T*, divisible_by<long long>>;

// What a selection wrote: the count, the selected elements and (partition_copy) the rejected ones.
template <class T>
struct selection
{
  std::uint64_t count = 0;
  std::vector<T> selected, rejected;
};

template <class T>
selection<T> host_selection(const std::vector<T>& in, const std::vector<long long>& tests, divisible_by<long long> pred)
{
  selection<T> s;
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    (pred(tests[i]) ? s.selected : s.rejected).push_back(in[i]);
  }
  s.count = s.selected.size();
  return s;
}

// Runs the selection program on `in` (with the stencil where one is given) on the classic engine
// (ring == nullptr) or on the ring with `ring`'s options, into poisoned outputs.
template <bool Partition, class T, template <class> class Tuning, class StencilIt>
selection<T> run_selection(const thrust::device_vector<T>& in, StencilIt stencil, divisible_by<long long> pred,
                           const sd::ring::ring_options* ring)
{
  using program       = select_program_for<Partition, T, StencilIt, Tuning>;
  const std::size_t n = in.size();
  thrust::device_vector<T> selected(n), rejected(n);
  thrust::device_vector<std::uint64_t> total(1, ~std::uint64_t{0});
  poison(selected);
  poison(rejected);
  const typename program::params p{thrust::raw_pointer_cast(in.data()),
                                   stencil,
                                   thrust::raw_pointer_cast(selected.data()),
                                   thrust::raw_pointer_cast(rejected.data()),
                                   n,
                                   pred,
                                   thrust::raw_pointer_cast(total.data()),
                                   true};
  auto policy = thrust::cuda::par.on(0);
  if (ring == nullptr)
  {
    sd::launch_single_pass<program>(policy, p, n);
  }
  else
  {
    EXPECT_TRUE(sd::ring::launch_ring<program>(policy, p, n, p.in, nullptr, ring)) << "the ring declined a launch it offers";
  }
  selection<T> s;
  s.count = total[0];
  const std::vector<T> all_selected = to_host(selected), all_rejected = to_host(rejected);
  const std::size_t count = s.count <= n ? static_cast<std::size_t>(s.count) : n;
  s.selected.assign(all_selected.begin(), all_selected.begin() + count);
  if constexpr (Partition)
  {
    s.rejected.assign(all_rejected.begin(), all_rejected.begin() + (n - count));
  }
  return s;
}

template <bool Partition, class T, template <class> class Tuning = sd::select_tuning>
void expect_ring_selection_exact(bool with_stencil)
{
  using program = select_program_for<Partition, T, const long long*, Tuning>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    for (const long long modulus : {1LL, 3LL, 1000LL})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", modulus " << modulus
                                        << (with_stencil ? ", stencil" : ""));
      const std::vector<T> host_in = spscan_test::random_values<T>(n, seed);
      std::vector<long long> tests(host_in.begin(), host_in.end());
      if (with_stencil)
      {
        tests = spscan_test::random_values<long long>(n, seed + 1);
      }
      const divisible_by<long long> pred{modulus};
      const selection<T> expected = host_selection(host_in, tests, pred);
      const thrust::device_vector<T> in(host_in.begin(), host_in.end());
      const thrust::device_vector<long long> stencil(tests.begin(), tests.end());
      const auto run = [&](const sd::ring::ring_options* ring) {
        if (with_stencil)
        {
          return run_selection<Partition, T, Tuning>(in, thrust::raw_pointer_cast(stencil.data()), pred, ring);
        }
        // Without a stencil the predicate sees the value: a selection of values converted to long long.
        return run_selection<Partition, T, Tuning>(in, sd::no_stencil{}, pred, ring);
      };
      const selection<T> classic = run(nullptr);
      ASSERT_EQ(expected.count, classic.count) << "the classic engine's count";
      expect_bitwise_equal(expected.selected, classic.selected, "the classic engine's selected elements");
      if constexpr (Partition)
      {
        expect_bitwise_equal(expected.rejected, classic.rejected, "the classic engine's rejected elements");
      }
      for_each_ring_option<program>([&](const sd::ring::ring_options& options) {
        const selection<T> ring = run(&options);
        ASSERT_EQ(expected.count, ring.count) << "the ring's count";
        expect_bitwise_equal(expected.selected, ring.selected, "the ring's selected elements, in order");
        if constexpr (Partition)
        {
          expect_bitwise_equal(expected.rejected, ring.rejected, "the ring's rejected elements, in order");
        }
      });
    }
  }
}

TEST(RingSelect, copy_if_of_int8_keeps_every_selected_element_in_order)
{
  expect_ring_selection_exact<false, std::int8_t>(false);
}

// int16: rows of 8 elements a lane, so the counts the reduce squad keeps before a lane's word reach
// 248 of their 8 bits where every element is selected (modulus 1).
TEST(RingSelect, copy_if_of_int16_keeps_every_selected_element_in_order)
{
  expect_ring_selection_exact<false, std::int16_t>(false);
}

TEST(RingSelect, copy_if_of_int32_keeps_every_selected_element_in_order)
{
  expect_ring_selection_exact<false, std::int32_t>(false);
}

TEST(RingSelect, copy_if_of_int64_with_a_stencil_tests_the_stencil)
{
  expect_ring_selection_exact<false, std::int64_t>(true);
}

TEST(RingSelect, partition_copy_of_int32_sends_the_rejected_to_the_second_output)
{
  expect_ring_selection_exact<true, std::int32_t>(false);
}

TEST(RingSelect, partition_copy_of_uint16_with_a_stencil)
{
  expect_ring_selection_exact<true, std::uint16_t>(true);
}

// The half tile (reduced_select_tuning: select_on_device's shape for inputs of a few tiles, and the
// shape of a GPU that grants a block less shared memory). A warp's slice of a stage must start on
// a block of the copy engine's swizzle: 1024 bytes and more from int16 on take the ring; int8's
// half tile has slices of 512 bytes and stays on the classic engine.
static_assert(!select_program_for<false, std::int8_t, sd::no_stencil, sd::reduced_select_tuning>::runs_on_ring,
              "int8's half tile has slices of 512 bytes");

TEST(RingSelect, half_tiles_of_int16_keep_every_selected_element_in_order)
{
  expect_ring_selection_exact<false, std::int16_t, sd::reduced_select_tuning>(false);
}

TEST(RingSelect, half_tiles_of_int32_in_partition_copy_send_the_rejected_to_the_second_output)
{
  expect_ring_selection_exact<true, std::int32_t, sd::reduced_select_tuning>(false);
}

TEST(RingSelect, half_tiles_of_int64_with_a_stencil_test_the_stencil)
{
  expect_ring_selection_exact<false, std::int64_t, sd::reduced_select_tuning>(true);
}

// ---------------------------------------------------------------------------------------------
// By-key scans: values and keys arrive by two bulk copies into one stage, heads are found there

template <bool Exclusive, class K, class T>
using by_key_program_for = typename sd::scan_by_key_shapes<Exclusive, T, const K*, const T*, T*, thrust::equal_to<K>, thrust::plus<T>>::primary;

// Runs the by-key scan of `keys` / `values` on the classic engine, then on the ring with every
// option; every ring result must carry the classic result's bits. Returns the classic result.
template <bool Exclusive, class K, class T, class program = by_key_program_for<Exclusive, K, T>>
std::vector<T> expect_by_key_ring_matches_classic(const std::vector<K>& host_keys, const std::vector<T>& host_values, T init)
{
  static_assert(program::runs_on_ring, "raw, aligned keys and values take the ring");
  const std::size_t n = host_keys.size();
  const thrust::device_vector<K> keys(host_keys.begin(), host_keys.end());
  const thrust::device_vector<T> values(host_values.begin(), host_values.end());
  thrust::device_vector<T> out(n);
  const typename program::params p{thrust::raw_pointer_cast(keys.data()),
                                   thrust::raw_pointer_cast(values.data()),
                                   thrust::raw_pointer_cast(out.data()),
                                   n,
                                   thrust::equal_to<K>{},
                                   thrust::plus<T>{},
                                   init,
                                   nullptr,
                                   true,
                                   true};
  auto policy = thrust::cuda::par.on(0);
  poison(out);
  sd::launch_single_pass<program>(policy, p, n);
  const std::vector<T> classic = to_host(out);
  for_each_ring_option<program>([&](const sd::ring::ring_options& options) {
    poison(out);
    const bool ran = sd::ring::launch_ring<program>(policy, p, n, p.values, p.out, &options);
    EXPECT_TRUE(ran) << "the ring declined a launch it offers";
    if (ran)
    {
      expect_bitwise_equal(classic, to_host(out), "the ring's result against the classic engine's");
    }
  });
  return classic;
}

// Segments of about `mean` elements (1: almost every element its own; a tile and more; one
// segment over the whole input).
template <bool Exclusive, class K, class T>
void expect_ring_by_key_exact()
{
  using program = by_key_program_for<Exclusive, K, T>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    for (const double mean : {1.5, 8.0, 20000.0, 0.0})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", mean segment " << mean);
      const std::vector<K> host_keys =
        mean > 0 ? spscan_test::random_segment_keys<K>(n, mean, seed) : std::vector<K>(n, K{7});
      const std::vector<T> host_values = spscan_test::random_values<T>(n, seed + 1);
      const T init                     = T(3);
      const std::vector<T> classic = expect_by_key_ring_matches_classic<Exclusive>(host_keys, host_values, init);
      const std::vector<T> expected =
        Exclusive ? spscan_test::reference_exclusive_by_key<T>(host_keys, host_values, init, thrust::equal_to<K>{}, thrust::plus<T>{})
                  : spscan_test::reference_inclusive_by_key<T>(host_keys, host_values, thrust::equal_to<K>{}, thrust::plus<T>{});
      expect_bitwise_equal(expected, classic, "the sequential by-key scan");
    }
  }
}

TEST(RingScanByKey, inclusive_int32_values_by_int32_keys_equal_the_sequential_scan)
{
  expect_ring_by_key_exact<false, std::int32_t, std::int32_t>();
}

TEST(RingScanByKey, exclusive_uint8_values_by_int16_keys_equal_the_sequential_scan)
{
  expect_ring_by_key_exact<true, std::int16_t, std::uint8_t>();
}

TEST(RingScanByKey, inclusive_uint32_values_by_uint8_keys_equal_the_sequential_scan)
{
  expect_ring_by_key_exact<false, std::uint8_t, std::uint32_t>();
}

// 8-byte values by 4-byte keys: the stage holds the tile's segment heads, found by a first kernel,
// instead of its keys; heads and results must be the classic run's.
TEST(RingScanByKey, inclusive_int64_values_by_int32_keys_from_head_words_equal_the_sequential_scan)
{
  static_assert(by_key_program_for<false, std::int32_t, std::int64_t>::ring_reads_head_words);
  expect_ring_by_key_exact<false, std::int32_t, std::int64_t>();
}

TEST(RingScanByKey, exclusive_uint64_values_by_uint32_keys_from_head_words_equal_the_sequential_scan)
{
  static_assert(by_key_program_for<true, std::uint32_t, std::uint64_t>::ring_reads_head_words);
  expect_ring_by_key_exact<true, std::uint32_t, std::uint64_t>();
}

// Floats: the ring's bits are the classic engine's (checked inside), which stay within a bound
// of the exact scan.
template <class T>
void expect_ring_by_key_floats_keep_the_classic_bits(double bound)
{
  using program = by_key_program_for<false, int, T>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<int> host_keys = spscan_test::random_segment_keys<int>(n, 5000.0, seed);
    const std::vector<T> host_values = spscan_test::random_values<T>(n, seed + 1);
    const std::vector<T> classic     = expect_by_key_ring_matches_classic<false>(host_keys, host_values, T(0));
    long double running = 0, worst = 0, magnitude = 1;
    for (std::size_t i = 0; i < n; ++i)
    {
      running   = (i == 0 || host_keys[i - 1] != host_keys[i]) ? host_values[i] : running + host_values[i];
      worst     = std::max(worst, std::abs(static_cast<long double>(classic[i]) - running));
      magnitude = std::max(magnitude, std::abs(running));
    }
    EXPECT_LE(static_cast<double>(worst), bound * static_cast<double>(magnitude)) << "the by-key scan strays from the exact one";
  }
}

TEST(RingScanByKey, double_values_from_head_words_keep_the_classic_bits)
{
  static_assert(by_key_program_for<false, int, double>::ring_reads_head_words);
  expect_ring_by_key_floats_keep_the_classic_bits<double>(1e-12);
}

TEST(RingScanByKey, float_values_keep_the_classic_bits)
{
  expect_ring_by_key_floats_keep_the_classic_bits<float>(1e-4);
}

// Double values from 8 MiB take the blocked shape (32 KiB tiles, blocked association): the ring's
// bits are the classic engine's in that shape, for segments shorter than a tile, longer than a
// block of tiles, and one segment, inclusive and exclusive with init.
template <bool Exclusive>
using blocked_by_key_program = sd::scan_by_key_program_for<Exclusive, double, sd::blocked_scan_by_key_tuning<double>, const int*, const double*, double*,
                                                           thrust::equal_to<int>, thrust::plus<double>>;

TEST(RingScanByKey, double_values_in_the_blocked_shape_keep_the_classic_bits)
{
  static_assert(sd::blocked_association_of<blocked_by_key_program<false>::tuning>::value);
  SKIP_WITHOUT_RING(blocked_by_key_program<false>);
  for (const std::size_t n : ring_sizes<blocked_by_key_program<false>>())
  {
    for (const double mean : {8.0, 200000.0, 0.0})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", mean segment " << mean);
      const std::vector<int> host_keys =
        mean > 0 ? spscan_test::random_segment_keys<int>(n, mean, seed) : std::vector<int>(n, 7);
      const std::vector<double> host_values = spscan_test::random_values<double>(n, seed + 1);
      expect_by_key_ring_matches_classic<false, int, double, blocked_by_key_program<false>>(host_keys, host_values, 0.0);
      expect_by_key_ring_matches_classic<true, int, double, blocked_by_key_program<true>>(host_keys, host_values, 0.625);
    }
  }
}

// The public entry point gives double values the blocked shape from 8 MiB on (either engine; the
// classic engine's result in that shape is the reference), and the 64 KiB shape just below.
TEST(RingScanByKey, public_calls_with_double_values_take_the_blocked_shape_from_8_MiB)
{
  SPSCAN_REQUIRE_GPU();
  using blocked = blocked_by_key_program<false>;
  using usual   = sd::scan_by_key_program_for<false, double, sd::scan_by_key_tuning<double>, const int*, const double*, double*,
                                              thrust::equal_to<int>, thrust::plus<double>>;
  const std::size_t at_the_bound = sd::blocked_input_bytes / sizeof(double);
  for (const std::size_t n : {at_the_bound - 5, at_the_bound + 3})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<int> host_keys      = spscan_test::random_segment_keys<int>(n, 300000.0, seed);
    const std::vector<double> host_values = spscan_test::random_values<double>(n, seed + 1);
    const thrust::device_vector<int> keys(host_keys.begin(), host_keys.end());
    const thrust::device_vector<double> values(host_values.begin(), host_values.end());
    thrust::device_vector<double> out(n);
    const auto classic_in = [&](auto program_tag) {
      using program = typename decltype(program_tag)::type;
      const typename program::params p{thrust::raw_pointer_cast(keys.data()), thrust::raw_pointer_cast(values.data()),
                                       thrust::raw_pointer_cast(out.data()), n, thrust::equal_to<int>{}, thrust::plus<double>{},
                                       0.0, nullptr, true, true};
      auto policy = thrust::cuda::par.on(0);
      poison(out);
      sd::launch_single_pass<program>(policy, p, n);
      return to_host(out);
    };
    const std::vector<double> expected = n >= at_the_bound ? classic_in(::cuda::std::type_identity<blocked>{})
                                                           : classic_in(::cuda::std::type_identity<usual>{});
    poison(out);
    spscan::inclusive_scan_by_key(thrust::device, keys.begin(), keys.end(), values.begin(), out.begin());
    expect_bitwise_equal(expected, to_host(out), n >= at_the_bound ? "the blocked shape's classic result" : "the 64 KiB shape's classic result");
  }
}

// ---------------------------------------------------------------------------------------------
// reduce_by_key: keys arrive behind the values as for the by-key scan; runs leave by the scan
// squad's stores, at places the count before the tile gives

template <class K, class T>
using reduce_by_key_program_for =
  typename sd::reduce_by_key_plan<T, const K*, const T*, K*, T*, thrust::equal_to<K>, thrust::plus<T>>::shapes::primary;

// What a reduce_by_key wrote: each run's key and fold, in order.
template <class K, class T>
struct runs_of
{
  std::vector<K> keys;
  std::vector<T> folds;
};

template <class K, class T>
runs_of<K, T> host_runs(const std::vector<K>& keys, const std::vector<T>& values)
{
  runs_of<K, T> runs;
  for (std::size_t i = 0; i < keys.size(); ++i)
  {
    if (i == 0 || keys[i - 1] != keys[i])
    {
      runs.keys.push_back(keys[i]);
      runs.folds.push_back(values[i]);
    }
    else
    {
      runs.folds.back() = static_cast<T>(runs.folds.back() + values[i]);
    }
  }
  return runs;
}

// Runs the program on the classic engine, then on the ring with every option, into poisoned
// outputs; every ring run must write the classic run's count, keys and fold bits. Returns the
// classic runs.
template <class K, class T, class program = reduce_by_key_program_for<K, T>>
runs_of<K, T> expect_reduce_by_key_ring_matches_classic(const std::vector<K>& host_keys, const std::vector<T>& host_values)
{
  static_assert(program::runs_on_ring, "raw, aligned keys and values take the ring");
  const std::size_t n = host_keys.size();
  const thrust::device_vector<K> keys(host_keys.begin(), host_keys.end());
  const thrust::device_vector<T> values(host_values.begin(), host_values.end());
  thrust::device_vector<K> keys_out(n);
  thrust::device_vector<T> folds_out(n);
  thrust::device_vector<std::uint64_t> total(1);
  const typename program::params p{thrust::raw_pointer_cast(keys.data()),
                                   thrust::raw_pointer_cast(values.data()),
                                   thrust::raw_pointer_cast(keys_out.data()),
                                   thrust::raw_pointer_cast(folds_out.data()),
                                   n,
                                   thrust::equal_to<K>{},
                                   thrust::plus<T>{},
                                   thrust::raw_pointer_cast(total.data()),
                                   true,
                                   true};
  auto policy     = thrust::cuda::par.on(0);
  const auto read = [&] {
    runs_of<K, T> runs;
    const std::uint64_t count = total[0];
    EXPECT_LE(count, n) << "the count of runs";
    const std::size_t kept = count <= n ? static_cast<std::size_t>(count) : n;
    const std::vector<K> all_keys = to_host(keys_out);
    const std::vector<T> all_folds = to_host(folds_out);
    runs.keys.assign(all_keys.begin(), all_keys.begin() + kept);
    runs.folds.assign(all_folds.begin(), all_folds.begin() + kept);
    return runs;
  };
  const auto prepare = [&] {
    poison(keys_out);
    poison(folds_out);
    total[0] = ~std::uint64_t{0};
  };
  prepare();
  sd::launch_single_pass<program>(policy, p, n);
  const runs_of<K, T> classic = read();
  for_each_ring_option<program>([&](const sd::ring::ring_options& options) {
    prepare();
    const bool ran = sd::ring::launch_ring<program>(policy, p, n, p.values, nullptr, &options);
    EXPECT_TRUE(ran) << "the ring declined a launch it offers";
    if (ran)
    {
      const runs_of<K, T> ring = read();
      ASSERT_EQ(classic.keys.size(), ring.keys.size()) << "the ring's count of runs";
      expect_bitwise_equal(classic.keys, ring.keys, "the ring's keys against the classic engine's");
      expect_bitwise_equal(classic.folds, ring.folds, "the ring's folds against the classic engine's");
    }
  });
  return classic;
}

// Runs of about `mean` elements (1: almost every element its own; a tile and more; one run over
// the whole input), integers against the sequential reduce_by_key.
template <class K, class T>
void expect_ring_reduce_by_key_exact()
{
  using program = reduce_by_key_program_for<K, T>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    for (const double mean : {1.5, 8.0, 20000.0, 0.0})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", mean run " << mean);
      const std::vector<K> host_keys =
        mean > 0 ? spscan_test::random_segment_keys<K>(n, mean, seed) : std::vector<K>(n, K{7});
      const std::vector<T> host_values = spscan_test::random_values<T>(n, seed + 1);
      const runs_of<K, T> classic      = expect_reduce_by_key_ring_matches_classic(host_keys, host_values);
      const runs_of<K, T> expected     = host_runs(host_keys, host_values);
      ASSERT_EQ(expected.keys.size(), classic.keys.size()) << "the count of runs";
      expect_bitwise_equal(expected.keys, classic.keys, "the sequential reduce_by_key's keys");
      expect_bitwise_equal(expected.folds, classic.folds, "the sequential reduce_by_key's folds");
    }
  }
}

TEST(RingReduceByKey, int32_values_by_int32_keys_equal_the_sequential_reduce_by_key)
{
  expect_ring_reduce_by_key_exact<std::int32_t, std::int32_t>();
}

TEST(RingReduceByKey, uint64_values_by_int64_keys_equal_the_sequential_reduce_by_key)
{
  expect_ring_reduce_by_key_exact<std::int64_t, std::uint64_t>();
}

// 1-byte keys beside 8-byte values: each warp's keys are 512 bytes, inside a block of the copy
// engine's swizzle.
TEST(RingReduceByKey, int64_values_by_uint8_keys_equal_the_sequential_reduce_by_key)
{
  static_assert(spscan::detail::ring::starts_inside_swizzle_block<typename reduce_by_key_program_for<std::uint8_t, std::int64_t>::key_vectors>);
  expect_ring_reduce_by_key_exact<std::uint8_t, std::int64_t>();
}

// Float sums: the ring's bits are the classic engine's (checked inside).
TEST(RingReduceByKey, float_sums_keep_the_classic_bits)
{
  using program = reduce_by_key_program_for<int, float>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<int> host_keys   = spscan_test::random_segment_keys<int>(n, 3000.0, seed);
    const std::vector<float> host_values = spscan_test::random_values<float>(n, seed + 1);
    const runs_of<int, float> classic  = expect_reduce_by_key_ring_matches_classic(host_keys, host_values);
    EXPECT_EQ(host_runs(host_keys, host_values).keys, classic.keys) << "the runs' keys";
  }
}

// ---------------------------------------------------------------------------------------------
// Scans of inputs that are not raw arrays of the output's type (programs/scan_input.h): computed
// by the reduce squad, copied and transformed in the stage, or staged element by element

// The scan program the library picks for input iterator In and output iterator Out.
template <sd::scan_kind Kind, class Accum, class In, class Out, class Op>
using staged_scan_program = typename sd::scan_shapes<Kind, Accum, In, Out, Op>::primary;

// Runs the scan of `first` into `out` on the classic engine and on the ring with every option;
// every ring result must carry the classic result's bits. Returns the classic result. `Way`: how
// the ring must bring this input into its stage. `RingProgram`: the program the ring runs, where
// it is not the classic engine's (another tile shape).
template <sd::ring_input Way,
          sd::scan_kind Kind,
          class Accum,
          class In,
          class T,
          class Op,
          class RingProgram = staged_scan_program<Kind, Accum, In, T*, Op>>
std::vector<T> expect_staged_ring_matches_classic(In first, std::size_t n, Op op, Accum init)
{
  using program = staged_scan_program<Kind, Accum, In, T*, Op>;
  static_assert(RingProgram::ring_input_kind == Way, "the ring brings this input another way");
  thrust::device_vector<T> out(n);
  auto policy  = thrust::cuda::par.on(0);
  const auto p = sd::make_scan_params<Kind, Accum>(first, n, thrust::raw_pointer_cast(out.data()), op, init);
  poison(out);
  sd::launch_single_pass<program>(policy, p, n);
  const std::vector<T> classic = to_host(out);
  for_each_ring_option<RingProgram>([&](const sd::ring::ring_options& options) {
    poison(out);
    const bool ran = sd::ring::launch_ring<RingProgram>(policy, p, n, RingProgram::ring_source(p), p.out, &options);
    EXPECT_TRUE(ran) << "the ring declined a launch it offers";
    if (ran)
    {
      expect_bitwise_equal(classic, to_host(out), "the ring's result against the classic engine's");
    }
  });
  return classic;
}

TEST(RingStagedScan, computed_counting_iterator_gives_the_closed_form)
{
  using program = staged_scan_program<sd::scan_kind::inclusive, long long, thrust::counting_iterator<long long>, long long*, thrust::plus<long long>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const long long start = 17;
    const std::vector<long long> classic = expect_staged_ring_matches_classic<sd::ring_input::generated, sd::scan_kind::inclusive, long long, thrust::counting_iterator<long long>, long long>(
      thrust::counting_iterator<long long>(start), n, thrust::plus<long long>{}, 0LL);
    std::vector<long long> expected(n);
    long long running = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      running += start + static_cast<long long>(i);
      expected[i] = running;
    }
    expect_bitwise_equal(expected, classic, "the closed form");
  }
}

struct scaled_and_shifted
{
  __host__ __device__ float operator()(float x) const
  {
    return 0.5f * x + 0.3f;
  }
};

TEST(RingStagedScan, exclusive_scan_of_a_float_transform_iterator_transformed_in_the_stage_keeps_the_classic_bits)
{
  using In      = thrust::transform_iterator<scaled_and_shifted, const float*>;
  using program = staged_scan_program<sd::scan_kind::exclusive, float, In, float*, thrust::plus<float>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<float> host_in = spscan_test::random_values<float>(n, seed);
    const thrust::device_vector<float> in(host_in.begin(), host_in.end());
    const In first(thrust::raw_pointer_cast(in.data()), scaled_and_shifted{});
    const std::vector<float> classic =
      expect_staged_ring_matches_classic<sd::ring_input::transformed, sd::scan_kind::exclusive, float, In, float>(first, n, thrust::plus<float>{}, 1.25f);
    // Floats: within a bound of the float64 scan (the bits are the classic engine's, checked above).
    double running = 1.25, worst = 0, magnitude = 1;
    for (std::size_t i = 0; i < n; ++i)
    {
      worst     = std::max(worst, std::abs(static_cast<double>(classic[i]) - running));
      magnitude = std::max(magnitude, std::abs(running));
      running += static_cast<double>(scaled_and_shifted{}(host_in[i]));
    }
    EXPECT_LE(worst, 1e-4 * magnitude) << "the float scan strays from the float64 one";
  }
}

TEST(RingStagedScan, int8_input_into_int32_converted_in_the_stage_sums_the_sequential_fold)
{
  using program = staged_scan_program<sd::scan_kind::inclusive, std::int32_t, const std::int8_t*, std::int32_t*, thrust::plus<std::int32_t>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<std::int8_t> host_in = spscan_test::random_values<std::int8_t>(n, seed);
    const thrust::device_vector<std::int8_t> in(host_in.begin(), host_in.end());
    const std::vector<std::int32_t> classic =
      expect_staged_ring_matches_classic<sd::ring_input::converted, sd::scan_kind::inclusive, std::int32_t, const std::int8_t*, std::int32_t>(
        thrust::raw_pointer_cast(in.data()), n, thrust::plus<std::int32_t>{}, 0);
    std::vector<std::int32_t> expected(n);
    std::int32_t running = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      running += host_in[i];
      expected[i] = running;
    }
    expect_bitwise_equal(expected, classic, "the sequential fold");
  }
}

TEST(RingStagedScan, exclusive_scan_of_a_uint32_counting_iterator_computed_in_the_stage_sums_the_sequential_fold)
{
  using In      = thrust::counting_iterator<std::uint32_t>;
  using program = staged_scan_program<sd::scan_kind::exclusive, std::uint32_t, In, std::uint32_t*, thrust::plus<std::uint32_t>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const std::uint32_t start = 4000000000u; // the elements wrap past 2^32, and so do the sums
    const std::vector<std::uint32_t> classic =
      expect_staged_ring_matches_classic<sd::ring_input::generated, sd::scan_kind::exclusive, std::uint32_t, In, std::uint32_t>(
        In(start), n, thrust::plus<std::uint32_t>{}, 7u);
    std::vector<std::uint32_t> expected(n);
    std::uint32_t running = 7u;
    for (std::size_t i = 0; i < n; ++i)
    {
      expected[i] = running;
      running += start + static_cast<std::uint32_t>(i);
    }
    expect_bitwise_equal(expected, classic, "the sequential fold");
  }
}

// A computed input under an exactly associative operator runs on the ring in 64 KiB tiles of every
// element size (common/tuning.h, generated_scan_tuning), where the classic engine takes 32 KiB for
// 1- to 4-byte types: the operator's bits cannot show the tile, so the ring's results must be the
// classic engine's and the sequential fold, for a wrapping sum with init (exclusive), a xor of
// 16-bit values and a maximum of 8-bit ones, at every ring option. A float sum keeps the classic
// tile (its bits show the association).
template <sd::scan_kind Kind, class T, class In, class Op>
using ring_program_of = sd::ring_scan_program_for<Kind, T, In, T*, Op>;

static_assert(ring_program_of<sd::scan_kind::inclusive, int, thrust::counting_iterator<int>, thrust::plus<int>>::tuning::tile_items * sizeof(int)
              == 65536);
static_assert(std::is_same_v<ring_program_of<sd::scan_kind::inclusive, float, thrust::constant_iterator<float>, thrust::plus<float>>,
                             staged_scan_program<sd::scan_kind::inclusive, float, thrust::constant_iterator<float>, float*, thrust::plus<float>>>);

template <sd::scan_kind Kind, class T, class In, class Op>
void expect_larger_ring_tile_keeps_the_bits(In first, Op op, T init)
{
  using ring_program    = ring_program_of<Kind, T, In, Op>;
  using classic_program = staged_scan_program<Kind, T, In, T*, Op>;
  static_assert(ring_program::tuning::tile_items * sizeof(T) == 65536
                && ring_program::tuning::tile_items > classic_program::tuning::tile_items);
  SKIP_WITHOUT_RING(ring_program);
  for (const std::size_t n : ring_sizes<ring_program>())
  {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const std::vector<T> classic =
      expect_staged_ring_matches_classic<sd::ring_input::generated, Kind, T, In, T, Op, ring_program>(first, n, op, init);
    std::vector<T> in(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      in[i] = first[static_cast<std::ptrdiff_t>(i)];
    }
    if constexpr (Kind == sd::scan_kind::exclusive)
    {
      expect_bitwise_equal(spscan_test::reference_exclusive<T>(in, init, op), classic, "the sequential fold");
    }
    else
    {
      expect_bitwise_equal(spscan_test::reference_inclusive<T>(in, op), classic, "the sequential fold");
    }
  }
}

TEST(RingStagedScan, computed_inputs_under_exact_operators_take_the_rings_64_KiB_tile_and_keep_the_bits)
{
  expect_larger_ring_tile_keeps_the_bits<sd::scan_kind::exclusive, std::uint32_t>(
    thrust::counting_iterator<std::uint32_t>(4000000000u), thrust::plus<std::uint32_t>{}, 7u);
  expect_larger_ring_tile_keeps_the_bits<sd::scan_kind::inclusive, std::uint16_t>(
    thrust::counting_iterator<std::uint16_t>(40000), thrust::bit_xor<std::uint16_t>{}, std::uint16_t{0});
  expect_larger_ring_tile_keeps_the_bits<sd::scan_kind::inclusive, std::int8_t>(
    thrust::counting_iterator<std::int8_t>(-100), thrust::maximum<std::int8_t>{}, std::int8_t{0});
}

TEST(RingStagedScan, uint8_input_into_float_converted_in_the_stage_keeps_the_classic_bits)
{
  using program = staged_scan_program<sd::scan_kind::exclusive, float, const std::uint8_t*, float*, thrust::plus<float>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<std::uint8_t> host_in = spscan_test::random_values<std::uint8_t>(n, seed);
    const thrust::device_vector<std::uint8_t> in(host_in.begin(), host_in.end());
    // 0.1f as the start: the sums round (the bits are the classic engine's, checked there).
    const std::vector<float> classic =
      expect_staged_ring_matches_classic<sd::ring_input::converted, sd::scan_kind::exclusive, float, const std::uint8_t*, float>(
        thrust::raw_pointer_cast(in.data()), n, thrust::plus<float>{}, 0.1f);
    double running = static_cast<double>(0.1f), worst = 0, magnitude = 1;
    for (std::size_t i = 0; i < n; ++i)
    {
      worst     = std::max(worst, std::abs(static_cast<double>(classic[i]) - running));
      magnitude = std::max(magnitude, std::abs(running));
      running += host_in[i];
    }
    EXPECT_LE(worst, 1e-4 * magnitude) << "the float scan strays from the float64 one";
  }
}

// The public entry points at the ring's sizes: an exclusive scan of byte flags into int32 offsets
// (the accumulator is the init's type) gives the sequential fold, from an aligned input (the ring
// converts it in the stage) and from one a byte off (the classic engine).
TEST(RingStagedScan, public_exclusive_scan_of_byte_flags_into_int32_offsets_sums_the_sequential_fold)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = (std::size_t{5} << 20) + 3;
  if (n + 1 > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << "inputs of " << n << " elements exceed this run's limit";
  }
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<std::uint8_t> host_flags = spscan_test::random_values<std::uint8_t>(n + 1, seed);
  for (auto& flag : host_flags)
  {
    flag = flag & 1u;
  }
  const thrust::device_vector<std::uint8_t> flags(host_flags.begin(), host_flags.end());
  thrust::device_vector<std::int32_t> offsets(n);
  for (const std::size_t offset : {std::size_t{0}, std::size_t{1}})
  {
    SCOPED_TRACE(::testing::Message() << "input offset " << offset << " bytes");
    poison(offsets);
    spscan::exclusive_scan(thrust::device, flags.begin() + offset, flags.begin() + offset + n, offsets.begin(), 0);
    const std::vector<std::int32_t> got = to_host(offsets);
    std::int32_t running = 0;
    std::size_t wrong    = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      wrong += got[i] != running;
      running += host_flags[i + offset];
    }
    EXPECT_EQ(0u, wrong);
  }
}

// An output the stage cannot hold as plain words (here one without a default constructor) keeps a
// computed input element by element; such calls still compile and run on the classic engine.
struct made_only_from_an_int
{
  int value;
  __host__ __device__ made_only_from_an_int(int v)
      : value(v)
  {}
};
static_assert(staged_scan_program<sd::scan_kind::inclusive,
                                  int,
                                  thrust::counting_iterator<int>,
                                  made_only_from_an_int*,
                                  thrust::plus<int>>::ring_input_kind
              == sd::ring_input::staged);

// A transform_iterator over a counting_iterator stays element by element: its functor may gather.
static_assert(staged_scan_program<sd::scan_kind::inclusive,
                                  int,
                                  thrust::transform_iterator<thrust::negate<int>, thrust::counting_iterator<int>>,
                                  int*,
                                  thrust::plus<int>>::ring_input_kind
              == sd::ring_input::staged);

TEST(RingStagedScan, float_scan_of_a_constant_iterator_computed_in_the_stage_keeps_the_classic_bits)
{
  using In      = thrust::constant_iterator<float>;
  using program = staged_scan_program<sd::scan_kind::inclusive, float, In, float*, thrust::plus<float>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    // 0.1f does not sum exactly: the bits show the association (checked against the classic engine).
    const std::vector<float> classic =
      expect_staged_ring_matches_classic<sd::ring_input::generated, sd::scan_kind::inclusive, float, In, float>(
        In(0.1f), n, thrust::plus<float>{}, 0.0f);
    // Each of the sum's roundings (a lane's items, the block scan's levels, one per tile before)
    // is at most 2^-24 of it.
    const double last  = static_cast<double>(0.1f) * static_cast<double>(n);
    const double steps = static_cast<double>(n / program::tuning::tile_items + program::items + 16);
    EXPECT_LE(std::abs(static_cast<double>(classic[n - 1]) - last), steps * std::ldexp(1.0, -24) * last)
      << "the float sum strays from the float64 one";
  }
}

// Its call operator is not const, as a transform_iterator allows.
struct shifted_by_three
{
  __host__ __device__ std::int64_t operator()(std::int64_t x)
  {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * 3u - 11u); // wraps, as the sums do
  }
};

TEST(RingStagedScan, int64_scan_of_a_transform_iterator_transformed_in_the_stage_sums_the_sequential_fold)
{
  using In      = thrust::transform_iterator<shifted_by_three, const std::int64_t*>;
  using program = staged_scan_program<sd::scan_kind::inclusive, std::int64_t, In, std::int64_t*, thrust::plus<std::int64_t>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<std::int64_t> host_in = spscan_test::random_values<std::int64_t>(n, seed);
    const thrust::device_vector<std::int64_t> in(host_in.begin(), host_in.end());
    const std::vector<std::int64_t> classic =
      expect_staged_ring_matches_classic<sd::ring_input::transformed, sd::scan_kind::inclusive, std::int64_t, In, std::int64_t>(
        In(thrust::raw_pointer_cast(in.data()), shifted_by_three{}), n, thrust::plus<std::int64_t>{}, std::int64_t{0});
    std::vector<std::int64_t> expected(n);
    std::uint64_t running = 0; // wraps as the device's int64 sum does
    for (std::size_t i = 0; i < n; ++i)
    {
      running += static_cast<std::uint64_t>(shifted_by_three{}(host_in[i]));
      expected[i] = static_cast<std::int64_t>(running);
    }
    expect_bitwise_equal(expected, classic, "the sequential fold");
  }
}

// The public entry points at the ring's sizes: a transform_iterator over a device array gives the
// sequential fold whether its base is 16-byte aligned (the ring copies and transforms it) or not
// (the classic engine reads it element by element).
TEST(RingStagedScan, public_scan_of_a_transform_iterator_aligned_or_not_sums_the_sequential_fold)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = (std::size_t{3} << 20) + 5;
  if (n + 1 > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << "inputs of " << n << " elements exceed this run's limit";
  }
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::vector<std::int64_t> host_in = spscan_test::random_values<std::int64_t>(n + 1, seed);
  const thrust::device_vector<std::int64_t> in(host_in.begin(), host_in.end());
  thrust::device_vector<std::int64_t> out(n);
  for (const std::size_t offset : {std::size_t{0}, std::size_t{1}})
  {
    SCOPED_TRACE(::testing::Message() << "base offset " << offset << " elements");
    poison(out);
    const auto first = thrust::make_transform_iterator(in.begin() + offset, shifted_by_three{});
    spscan::inclusive_scan(thrust::device, first, first + n, out.begin());
    const std::vector<std::int64_t> got = to_host(out);
    std::uint64_t running = 0;
    std::size_t wrong     = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      running += static_cast<std::uint64_t>(shifted_by_three{}(host_in[i + offset]));
      wrong += got[i] != static_cast<std::int64_t>(running);
    }
    EXPECT_EQ(0u, wrong);
  }
}

// The public entry points at the ring's sizes: a counting_iterator input (computed by the ring's
// reduce squad, programs/scan_input.h) gives the closed form.
TEST(RingStagedScan, public_scan_of_a_counting_iterator_equals_the_closed_form)
{
  SPSCAN_REQUIRE_GPU();
  for (const std::size_t n : {(std::size_t{5} << 20) + 7, (std::size_t{6} << 20)})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    SCOPED_TRACE(::testing::Message() << "n " << n);
    thrust::device_vector<std::int64_t> out(n);
    poison(out);
    spscan::inclusive_scan(thrust::device, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n), out.begin());
    const std::vector<std::int64_t> got = to_host(out);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
      const std::int64_t k = static_cast<std::int64_t>(i);
      wrong += got[i] != k * (k + 1) / 2;
    }
    EXPECT_EQ(0u, wrong);
  }
}

} // namespace

// The ring engine (detail/ring/) on the GPU: every result bit for bit the classic engine's for the
// same input and tile shape (the same association), integers also equal to a sequential host fold,
// for the shallowest, a middle and the deepest ring the device allows and both ways of storing a
// tile, with and without the prefix service (ring/prefix_service.h); every scan kind, in place,
// non-commutative operators with packed and split tile states,
// and the public entry points that choose the engine by device and size. Skips visibly without a GPU, and where the GPU has no ring
// (before sm_90), the ring-only cases skip with that reason.
#include <spscan/spscan.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/ring.h>
#include <support/noncommutative.h>

namespace
{

namespace sd = spscan::detail;
using spscan_test::affine32;
using spscan_test::compose_affine32;
using spscan_test::matrix2;
using spscan_test::multiply_matrix2;

using spscan_test::expect_bitwise_equal;
using spscan_test::poison;
using spscan_test::ring_stages_here;
using spscan_test::to_host;

// The scan program both engines run for T with op, in the shape the library picks for T.
template <sd::scan_kind Kind, class T, class Op>
using program_for = sd::scan_program_for<Kind, T, sd::scan_tuning<T, T, T>, T*, T*, Op>;

// Runs Program over `host_in` on the classic engine, into a poisoned output, and returns the result.
template <class Program, class T>
std::vector<T> classic_result(const std::vector<T>& host_in, const typename Program::params& like)
{
  const std::size_t n = host_in.size();
  thrust::device_vector<T> in(host_in.begin(), host_in.end()), out(n);
  poison(out);
  auto params = like;
  params.in   = thrust::raw_pointer_cast(in.data());
  params.out  = thrust::raw_pointer_cast(out.data());
  params.n    = n;
  auto policy = thrust::cuda::par.on(0);
  sd::launch_single_pass<Program>(policy, params, n);
  return to_host(out);
}

// How many CTAs a ring launch takes (0: one per SM) and whether it has a prefix service
// (ring/prefix_service.h): the full grid as the size says (the tests' sizes are served) and
// without, one CTA (never served), and three with the service on, so that two clients each take
// many tiles through every stage.
struct ring_grid
{
  int ctas;
  sd::ring::prefix_service service;
};
constexpr ring_grid ring_grids[] = {{0, sd::ring::prefix_service::by_size},
                                    {0, sd::ring::prefix_service::off},
                                    {1, sd::ring::prefix_service::by_size},
                                    {3, sd::ring::prefix_service::on}};

const char* service_name(sd::ring::prefix_service service)
{
  return service == sd::ring::prefix_service::on ? "served" : (service == sd::ring::prefix_service::off ? "unserved" : "served by size");
}

// Runs Program over `in` on the classic engine and on the ring with the options the device allows
// (three depths, both stores, the grids above); every ring result must carry the classic result's
// bits. Returns the classic result.
template <class Program, class T>
std::vector<T> expect_ring_matches_classic(const std::vector<T>& host_in, const typename Program::params& like, bool in_place = false)
{
  const std::size_t n = host_in.size();
  const std::vector<T> classic = classic_result<Program>(host_in, like);
  thrust::device_vector<T> in(host_in.begin(), host_in.end()), ring_out(n);
  auto policy = thrust::cuda::par.on(0);

  for (const int stages : spscan_test::ring_depths_to_test(ring_stages_here<Program>()))
  {
    for (const bool by_threads : {false, true})
    {
      for (const ring_grid grid : ring_grids)
      {
        SCOPED_TRACE(::testing::Message() << "n " << n << ", " << stages << " stages, stores by "
                                          << (by_threads ? "threads" : "the copy engine") << ", CTAs " << grid.ctas << ", "
                                          << service_name(grid.service) << (in_place ? ", in place" : ""));
        thrust::device_vector<T> source(in);
        auto p = like;
        p.n    = n;
        p.in   = thrust::raw_pointer_cast(source.data());
        p.out  = in_place ? thrust::raw_pointer_cast(source.data()) : thrust::raw_pointer_cast(ring_out.data());
        if (!in_place)
        {
          poison(ring_out);
        }
        sd::ring::ring_options options{stages, by_threads, grid.ctas};
        options.service = grid.service;
        const bool ran = sd::ring::launch_ring<Program>(policy, p, n, p.in, p.out, &options);
        EXPECT_TRUE(ran) << "the ring declined a launch it offers";
        if (!ran)
        {
          continue;
        }
        expect_bitwise_equal(classic, to_host(in_place ? source : ring_out), "the ring's result against the classic engine's");
      }
    }
  }
  return classic;
}

// Sizes: two whole tiles, a partial last tile, and several rounds of the ring over every CTA.
template <class Program>
std::vector<std::size_t> ring_sizes()
{
  constexpr std::size_t tile = Program::tuning::tile_items;
  std::vector<std::size_t> sizes{2 * tile, 2 * tile + 1, 7 * tile - 3, 300 * tile + tile / 2, 1000 * tile};
  std::vector<std::size_t> kept;
  for (const std::size_t n : sizes)
  {
    if (n <= spscan_test::max_test_elements())
    {
      kept.push_back(n);
    }
  }
  return kept;
}

template <class T>
class RingInclusiveSum : public ::testing::Test
{};
using sum_types = ::testing::Types<std::int8_t, std::uint16_t, std::int32_t, float, std::int64_t, double>;
TYPED_TEST_SUITE(RingInclusiveSum, sum_types);

TYPED_TEST(RingInclusiveSum, has_the_classic_engines_bits_and_integers_the_sequential_fold)
{
  using T       = TypeParam;
  using program = program_for<sd::scan_kind::inclusive, T, thrust::plus<T>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const std::vector<T> in = spscan_test::random_values<T>(n, seed);
    const auto like = sd::make_scan_params<sd::scan_kind::inclusive, T>(static_cast<T*>(nullptr), n, static_cast<T*>(nullptr), thrust::plus<T>{}, T{});
    const std::vector<T> classic = expect_ring_matches_classic<program>(in, like);
    if constexpr (std::is_integral_v<T>)
    {
      expect_bitwise_equal(spscan_test::reference_inclusive<T>(in, thrust::plus<T>{}), classic, "the sequential fold");
    }
  }
}

TEST(RingScan, exclusive_and_inclusive_with_init_keep_the_classic_bits_for_floats)
{
  using exclusive = program_for<sd::scan_kind::exclusive, float, thrust::plus<float>>;
  using with_init = program_for<sd::scan_kind::inclusive_init, float, thrust::plus<float>>;
  SKIP_WITHOUT_RING(exclusive);
  for (const std::size_t n : ring_sizes<exclusive>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const std::vector<float> in = spscan_test::random_values<float>(n, seed);
    expect_ring_matches_classic<exclusive>(
      in, sd::make_scan_params<sd::scan_kind::exclusive, float>(static_cast<float*>(nullptr), n, static_cast<float*>(nullptr), thrust::plus<float>{}, 0.375f));
    expect_ring_matches_classic<with_init>(
      in, sd::make_scan_params<sd::scan_kind::inclusive_init, float>(static_cast<float*>(nullptr), n, static_cast<float*>(nullptr), thrust::plus<float>{}, -1.625f));
  }
}

TEST(RingScan, in_place_gives_the_out_of_place_bits)
{
  using program = program_for<sd::scan_kind::inclusive, double, thrust::plus<double>>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const std::vector<double> in = spscan_test::random_values<double>(n, seed);
    const auto like = sd::make_scan_params<sd::scan_kind::inclusive, double>(static_cast<double*>(nullptr), n, static_cast<double*>(nullptr), thrust::plus<double>{}, 0.0);
    expect_ring_matches_classic<program>(in, like, /*in_place=*/true);
  }
}

// Non-commutative operators, through both tile-state layouts: an 8-byte carry packed with its
// status in one 128-bit word, a 16-byte one in the split layout. The ring folds aggregates strictly
// left to right, so a swapped operand shows.
template <class T, class Op>
void expect_noncommutative_scan_matches(Op op)
{
  using program = program_for<sd::scan_kind::inclusive, T, Op>;
  SKIP_WITHOUT_RING(program);
  for (const std::size_t n : ring_sizes<program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const std::vector<T> in = spscan_test::random_values<T>(n, seed);
    const auto like = sd::make_scan_params<sd::scan_kind::inclusive, T>(static_cast<T*>(nullptr), n, static_cast<T*>(nullptr), op, T{});
    const std::vector<T> classic = expect_ring_matches_classic<program>(in, like);
    expect_bitwise_equal(spscan_test::reference_inclusive<T>(in, op), classic, "the sequential fold");
  }
}

TEST(RingScan, noncommutative_8_byte_carries_in_packed_states)
{
  expect_noncommutative_scan_matches<affine32>(compose_affine32{});
}

TEST(RingScan, noncommutative_16_byte_carries_in_split_states)
{
  expect_noncommutative_scan_matches<matrix2>(multiply_matrix2{});
}

// 8-byte types under exactly associative operators run on the ring in its own, smaller tile
// (common/tuning.h, ring_scan_tuning: 4096 elements, where the classic engine takes 8192). Doubles
// take the blocked shape (4096 elements, blocked association), which the classic engine takes too
// from the same size; 4-byte floats keep the classic tile.
static_assert(sd::ring_scan_program_for<sd::scan_kind::inclusive, std::int64_t, std::int64_t*, std::int64_t*, thrust::plus<std::int64_t>>::tuning::tile_items
                == sd::scan_tuning<std::int64_t, std::int64_t, std::int64_t>::tile_items / 2);
static_assert(std::is_same_v<sd::ring_scan_program_for<sd::scan_kind::inclusive, double, double*, double*, thrust::plus<double>>,
                             sd::scan_program_for<sd::scan_kind::inclusive, double, sd::blocked_scan_tuning<8>, double*, double*, thrust::plus<double>>>);
static_assert(std::is_same_v<sd::ring_scan_program_for<sd::scan_kind::inclusive, float, float*, float*, thrust::plus<float>>,
                             program_for<sd::scan_kind::inclusive, float, thrust::plus<float>>>);
static_assert(std::is_same_v<sd::ring_scan_program_for<sd::scan_kind::inclusive, std::int32_t, std::int32_t*, std::int32_t*, thrust::plus<std::int32_t>>,
                             program_for<sd::scan_kind::inclusive, std::int32_t, thrust::plus<std::int32_t>>>);

// So their results must be the classic engine's in its own tile, bit for bit, and the sequential
// fold: the ring's smaller tile against the classic engine's larger one, for a sum, an exclusive
// xor with init and a maximum, every ring depth, both stores and several CTA counts.
template <sd::scan_kind Kind, class T, class Op>
void expect_smaller_ring_tile_keeps_the_bits(Op op, T init, bool full_range)
{
  using ring_program    = sd::ring_scan_program_for<Kind, T, T*, T*, Op>;
  using classic_program = program_for<Kind, T, Op>;
  SKIP_WITHOUT_RING(ring_program);
  for (const std::size_t n : ring_sizes<ring_program>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    // Every bit in play where the operator allows it (a sum keeps small values: signed overflow
    // on the host is undefined).
    std::vector<T> in = spscan_test::random_values<T>(n, seed);
    if (full_range)
    {
      std::mt19937_64 engine(seed);
      std::generate(in.begin(), in.end(), [&] { return static_cast<T>(engine()); });
    }
    const auto like = sd::make_scan_params<Kind, T>(static_cast<T*>(nullptr), n, static_cast<T*>(nullptr), op, init);
    const std::vector<T> small_tiles = expect_ring_matches_classic<ring_program>(in, like);
    expect_bitwise_equal(classic_result<classic_program>(in, like), small_tiles,
                         "the classic engine's larger tile against the ring's smaller one");

    if constexpr (Kind == sd::scan_kind::exclusive)
    {
      expect_bitwise_equal(spscan_test::reference_exclusive<T>(in, init, op), small_tiles, "the sequential fold");
    }
    else
    {
      expect_bitwise_equal(spscan_test::reference_inclusive<T>(in, op), small_tiles, "the sequential fold");
    }
  }
}

TEST(RingScan, exact_8_byte_operators_in_the_rings_smaller_tile_keep_the_classic_bits)
{
  expect_smaller_ring_tile_keeps_the_bits<sd::scan_kind::inclusive, std::int64_t>(thrust::plus<std::int64_t>{}, 0, false);
  expect_smaller_ring_tile_keeps_the_bits<sd::scan_kind::exclusive, std::uint64_t>(thrust::bit_xor<std::uint64_t>{}, 0x5a5a5a5a5a5a5a5aull, true);
  expect_smaller_ring_tile_keeps_the_bits<sd::scan_kind::inclusive, std::int64_t>(thrust::maximum<std::int64_t>{}, 0, true);
}

// The blocked association (common/blocked_association.h): the ring's prefix warp and the classic
// look-back must give the same bits for doubles (sums, an exclusive scan with init, an inclusive
// one with init) and for a non-commutative 8-byte user operator, whose exact arithmetic must also
// equal the sequential fold (a swapped operand shows).
template <sd::scan_kind Kind, class T, class Op>
using blocked_program_for = sd::scan_program_for<Kind, T, sd::blocked_scan_tuning<8>, T*, T*, Op>;

TEST(RingScan, blocked_association_gives_the_classic_engines_bits)
{
  using sum = blocked_program_for<sd::scan_kind::inclusive, double, thrust::plus<double>>;
  using exclusive = blocked_program_for<sd::scan_kind::exclusive, double, thrust::plus<double>>;
  using with_init = blocked_program_for<sd::scan_kind::inclusive_init, double, thrust::plus<double>>;
  using affine    = blocked_program_for<sd::scan_kind::inclusive, affine32, compose_affine32>;
  static_assert(sd::blocked_association_of<sum::tuning>::value && !sd::blocked_association_of<program_for<sd::scan_kind::inclusive, double, thrust::plus<double>>::tuning>::value);
  SKIP_WITHOUT_RING(sum);
  for (const std::size_t n : ring_sizes<sum>())
  {
    const std::uint64_t seed = spscan_test::fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const std::vector<double> in = spscan_test::random_values<double>(n, seed);
    expect_ring_matches_classic<sum>(
      in, sd::make_scan_params<sd::scan_kind::inclusive, double>(static_cast<double*>(nullptr), n, static_cast<double*>(nullptr), thrust::plus<double>{}, 0.0));
    expect_ring_matches_classic<exclusive>(
      in, sd::make_scan_params<sd::scan_kind::exclusive, double>(static_cast<double*>(nullptr), n, static_cast<double*>(nullptr), thrust::plus<double>{}, 0.375));
    expect_ring_matches_classic<with_init>(
      in, sd::make_scan_params<sd::scan_kind::inclusive_init, double>(static_cast<double*>(nullptr), n, static_cast<double*>(nullptr), thrust::plus<double>{}, -1.625));
    const std::vector<affine32> maps = spscan_test::random_values<affine32>(n, seed + 1);
    const std::vector<affine32> classic = expect_ring_matches_classic<affine>(
      maps, sd::make_scan_params<sd::scan_kind::inclusive, affine32>(static_cast<affine32*>(nullptr), n, static_cast<affine32*>(nullptr), compose_affine32{}, affine32{}));
    expect_bitwise_equal(spscan_test::reference_inclusive<affine32>(maps, compose_affine32{}), classic, "the sequential fold");
  }
}

// The public entry points give a double scan the blocked shape from blocked_input_bytes (8 MiB) on,
// whichever engine runs it (a misaligned input stays on the classic engine), and the 64 KiB tile
// under the left fold just below.
TEST(RingScan, public_double_scans_take_the_blocked_shape_from_8_MiB_on_either_engine)
{
  SPSCAN_REQUIRE_GPU();
  using blocked = blocked_program_for<sd::scan_kind::inclusive, double, thrust::plus<double>>;
  using left    = program_for<sd::scan_kind::inclusive, double, thrust::plus<double>>;
  static_assert(sd::blocked_input_bytes == (std::size_t{8} << 20));
  const std::size_t at_the_bound = sd::blocked_input_bytes / sizeof(double);
  for (const std::size_t n : {at_the_bound - 5, at_the_bound, 3 * at_the_bound + 7})
  {
    if (n + 1 > spscan_test::max_test_elements())
    {
      continue;
    }
    for (const std::size_t offset : {std::size_t{0}, std::size_t{1}})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", offset " << offset);
      const std::vector<double> in = spscan_test::random_values<double>(n + offset, seed);
      const std::vector<double> mine(in.begin() + static_cast<std::ptrdiff_t>(offset), in.end());
      const auto like = sd::make_scan_params<sd::scan_kind::inclusive, double>(static_cast<double*>(nullptr), n, static_cast<double*>(nullptr), thrust::plus<double>{}, 0.0);
      const std::vector<double> expected = n >= at_the_bound ? classic_result<blocked>(mine, like) : classic_result<left>(mine, like);
      thrust::device_vector<double> d_in(in.begin(), in.end()), d_out(n + offset);
      poison(d_out);
      spscan::inclusive_scan(thrust::device, d_in.begin() + static_cast<std::ptrdiff_t>(offset), d_in.end(), d_out.begin() + static_cast<std::ptrdiff_t>(offset));
      const std::vector<double> out = to_host(d_out);
      expect_bitwise_equal(expected, std::vector<double>(out.begin() + static_cast<std::ptrdiff_t>(offset), out.end()),
                           n >= at_the_bound ? "the blocked shape's classic result" : "the 64 KiB tile's classic result");
    }
  }
}

// Tile states from a caller's allocator hold whatever was there (garbage_allocator: statuses that
// read as published aggregates and prefixes, a tile counter past the end), so every ring call
// clears them: by default its own CTAs do, before a grid barrier (a cooperative launch); where that
// launch is not possible, a kernel before it, beside whose end the ring starts. Either way, call
// after call on the same garbage, and with CTAs that run many tiles each, the result has the
// classic engine's bits.
TEST(RingScan, either_way_of_clearing_the_callers_storage_gives_the_classic_bits)
{
  using T       = std::int32_t;
  using program = program_for<sd::scan_kind::inclusive, T, thrust::plus<T>>;
  SKIP_WITHOUT_RING(program);
  const std::vector<std::size_t> sizes = ring_sizes<program>();
  ASSERT_FALSE(sizes.empty());
  const std::size_t n      = sizes.back();
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
  const std::vector<T> host_in = spscan_test::random_values<T>(n, seed);
  const auto like = sd::make_scan_params<sd::scan_kind::inclusive, T>(static_cast<T*>(nullptr), n, static_cast<T*>(nullptr), thrust::plus<T>{}, T{});
  const std::vector<T> classic = classic_result<program>(host_in, like);
  thrust::device_vector<T> in(host_in.begin(), host_in.end()), out(n);
  spscan_test::garbage_allocator alloc;
  auto policy = thrust::cuda::par(alloc).on(0);
  for (const sd::storage_clear clear : {sd::storage_clear::by_the_kernel, sd::storage_clear::beside_dependent_launch})
  {
    for (const ring_grid grid : {ring_grids[0], ring_grids[3]})
    {
      for (int call = 0; call < 3; ++call)
      {
        SCOPED_TRACE(::testing::Message() << (clear == sd::storage_clear::by_the_kernel ? "cleared by the ring's CTAs" : "cleared by a kernel before")
                                          << ", CTAs " << grid.ctas << ", " << service_name(grid.service) << ", call " << call);
        poison(out);
        auto p = like;
        p.in   = thrust::raw_pointer_cast(in.data());
        p.out  = thrust::raw_pointer_cast(out.data());
        sd::ring::ring_options options{ring_stages_here<program>(), true, grid.ctas};
        options.clear   = clear;
        options.service = grid.service;
        const int lent = alloc.lent;
        ASSERT_TRUE((sd::ring::launch_ring<program>(policy, p, n, p.in, p.out, &options))) << "the ring declined a launch it offers";
        EXPECT_EQ(alloc.lent, lent + 1) << "the call took its tile states from the caller's allocator";
        expect_bitwise_equal(classic, to_host(out), "the ring's result against the classic engine's");
      }
    }
  }
}

// The public entry points: inputs from 8 MiB (of at least one tile per SM) run on the ring where
// the device has it, smaller and misaligned ones on the classic engine; the caller sees Thrust's
// results either way. Calls without an allocator keep their tile states between calls, neither
// engine clearing them: each call reads and writes its own epoch and takes ids where the last
// call, ring or classic, left the counter (classic/launch.h). Repeated calls of changing sizes, on
// one engine then the other and back, on larger and smaller storage, check that. The ring's sizes
// here have a prefix service (up to 32 tiles a CTA): 2 to 23 tiles a CTA on 132 SMs, where a
// served prefix warp whose lanes went their own ways once hung from about 12.
TEST(RingScan, public_calls_of_changing_sizes_and_alignment_equal_the_sequential_scan)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t sizes[] = {(std::size_t{20} << 20) + 3, (std::size_t{5} << 20), (std::size_t{24} << 20) + 1, (std::size_t{17} << 20),
                               (std::size_t{5} << 19) + 7};
  for (const std::size_t n : sizes)
  {
    if (n + 1 > spscan_test::max_test_elements())
    {
      continue;
    }
    for (const std::size_t offset : {std::size_t{0}, std::size_t{1}})
    {
      const std::uint64_t seed = spscan_test::fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n << ", offset " << offset);
      const std::vector<std::int32_t> in = spscan_test::random_values<std::int32_t>(n + offset, seed);
      thrust::device_vector<std::int32_t> d_in(in.begin(), in.end()), d_out(n + offset);
      poison(d_out);
      spscan::inclusive_scan(thrust::device, d_in.begin() + offset, d_in.end(), d_out.begin() + offset);
      const std::vector<std::int32_t> out = to_host(d_out);
      std::int32_t running = 0;
      std::size_t wrong    = 0;
      for (std::size_t i = offset; i < n + offset; ++i)
      {
        running += in[i];
        wrong += out[i] != running;
      }
      EXPECT_EQ(0u, wrong);
    }
  }
}

} // namespace

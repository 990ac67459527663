// spscan's selections (copy_if, remove_copy_if, partition_copy; detail/select.inl) keep Thrust's
// contract: every overload, with and without a stencil and a policy, dispatched as Thrust
// dispatches it. On the CPU: host policies and host iterators give the sequential results and
// end iterators; Thrust's CUDA policies are recognized as reaching Thrust's CUDA backend for every
// form; a program's own policy gets its own overloads. On a GPU: every form and policy gives
// Thrust's output and end iterators bit for bit, and Thrust's entry points called with
// spscan::par go through spscan's dispatch to the selection program; and the program is exact for
// every pattern around tile edges, on inputs large enough for the ring engine,
// for counting, discard and zip iterators, and past 2^32 elements; its count reaches every
// caller among host threads selecting at once, and after a release and a cudaDeviceReset.
#include <spscan/copy.h>
#include <spscan/execution_policy.h>
#include <spscan/partition.h>
#include <spscan/remove.h>
#include <spscan/temporary_storage.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/pair.h>
#include <thrust/partition.h>
#include <thrust/remove.h>

#include <support/compare.h>
#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/random.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/sequence.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace
{

struct is_odd
{
  SPSCAN_HOST_DEVICE bool operator()(int x) const
  {
    return (x & 1) != 0;
  }
};

// Sequential references: the selected elements (by value or by stencil), and the others.
std::vector<int> selected(const std::vector<int>& in, const std::vector<int>& decides, bool keep)
{
  std::vector<int> out;
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    if (is_odd{}(decides[i]) == keep)
    {
      out.push_back(in[i]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// CPU: host policies and host iterators run Thrust's host implementation.

TEST(Select, HostPolicyAndHostIteratorsGiveTheSequentialResultAndEnds)
{
  const std::uint64_t seed   = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, 1000));
  const std::vector<int> in      = spscan_test::random_values<int>(1000, seed);
  const std::vector<int> stencil = spscan_test::random_values<int>(1000, seed + 1);
  const std::vector<int> odd     = selected(in, in, true);
  const std::vector<int> even    = selected(in, in, false);
  const std::vector<int> by_stencil = selected(in, stencil, true);
  const std::vector<int> not_by_stencil = selected(in, stencil, false);

  std::vector<int> out(in.size(), -7), other(in.size(), -7);
  auto end = spscan::copy_if(thrust::host, in.begin(), in.end(), out.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), end), odd) << "copy_if(host, ...)";
  end = spscan::copy_if(in.begin(), in.end(), stencil.begin(), out.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), end), by_stencil) << "copy_if(first, last, stencil, ...)";
  end = spscan::remove_copy_if(thrust::host, in.begin(), in.end(), out.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), end), even) << "remove_copy_if(host, ...)";
  end = spscan::remove_copy_if(in.begin(), in.end(), stencil.begin(), out.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), end), not_by_stencil) << "remove_copy_if(first, last, stencil, ...)";
  const auto ends = spscan::partition_copy(thrust::host, in.begin(), in.end(), out.begin(), other.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), ends.first), odd) << "partition_copy(host, ...): selected";
  EXPECT_EQ(std::vector<int>(other.begin(), ends.second), even) << "partition_copy(host, ...): rejected";
  const auto stencil_ends =
    spscan::partition_copy(in.begin(), in.end(), stencil.begin(), out.begin(), other.begin(), is_odd{});
  EXPECT_EQ(std::vector<int>(out.begin(), stencil_ends.first), by_stencil);
  EXPECT_EQ(std::vector<int>(other.begin(), stencil_ends.second), not_by_stencil);
}

// CPU: Thrust's CUDA policies reach the CUDA backend for every selection form (so spscan's
// probe mirrors this CCCL's signatures), host policies do not.
template <template <class...> class Target, class Policy, class... Args>
constexpr bool reaches_cuda_backend = spscan::detail::thrust_reaches_cuda_backend<Target, Policy, Args...>;

TEST(Select, ThrustsCudaPoliciesReachTheCudaBackendForEveryForm)
{
  namespace probe = spscan::detail::thrust_dispatch;
  using device    = thrust::cuda_cub::par_t;
  using nosync    = thrust::cuda_cub::execute_on_stream_nosync;
  using host      = ::cuda::std::remove_cvref_t<decltype(spscan::detail::derived_policy(thrust::host))>;
  using it        = thrust::device_vector<int>::iterator;
  static_assert(reaches_cuda_backend<probe::copy_if_target, device, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::copy_if_target, nosync, it, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::remove_copy_if_target, device, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::remove_copy_if_target, nosync, it, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::partition_copy_target, device, it, it, it, it, is_odd>);
  static_assert(reaches_cuda_backend<probe::partition_copy_target, nosync, it, it, it, it, it, is_odd>);
  static_assert(!reaches_cuda_backend<probe::copy_if_target, host, int*, int*, int*, is_odd>);
  SUCCEED();
}

// CPU: a program's own policy with its own selection overloads gets them, the policy object
// itself; forms it does not overload would run on the CUDA backend (not called here).
namespace user_code
{
struct audited : thrust::device_execution_policy<audited>
{
  int copy_if_calls        = 0;
  int partition_copy_calls = 0;
};

template <class In, class Out, class Pred>
Out copy_if(audited& policy, In, In, Out result, Pred)
{
  ++policy.copy_if_calls;
  return result;
}

template <class In, class Out1, class Out2, class Pred>
thrust::pair<Out1, Out2> partition_copy(audited& policy, In, In, Out1 out_true, Out2 out_false, Pred)
{
  ++policy.partition_copy_calls;
  return {out_true, out_false};
}
} // namespace user_code

TEST(Select, AProgramsOwnPolicyGetsItsOwnOverloads)
{
  user_code::audited policy;
  int data[4] = {1, 2, 3, 4};
  int out[4]  = {};
  spscan::copy_if(policy, data, data + 4, out, is_odd{});
  spscan::partition_copy(policy, data, data + 4, out, out + 2, is_odd{});
  EXPECT_EQ(policy.copy_if_calls, 1) << "spscan::copy_if reached the program's overload";
  EXPECT_EQ(policy.partition_copy_calls, 1) << "spscan::partition_copy reached the program's overload";
  using it = int*;
  static_assert(!reaches_cuda_backend<spscan::detail::thrust_dispatch::copy_if_target, user_code::audited, it, it, it, is_odd>);
}

// ---------------------------------------------------------------------------------------------
// GPU: every form and policy, against Thrust, on random data: outputs and returned ends.

template <class Policy>
void expect_selections_match_thrust(const Policy& policy, std::size_t n, const char* how)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << how << ", " << spscan_test::case_name(seed, n));
  const thrust::device_vector<int> in      = spscan_test::to_device(spscan_test::random_values<int>(n, seed));
  const thrust::device_vector<int> stencil = spscan_test::to_device(spscan_test::random_values<int>(n, seed + 1));
  thrust::device_vector<int> a(n), b(n), c(n), d(n);
  const auto same = [&](const thrust::device_vector<int>& x, std::ptrdiff_t x_size, const thrust::device_vector<int>& y,
                        std::ptrdiff_t y_size, const char* what) {
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(x_size, y_size) << what << ": end iterator";
    const auto hx = spscan_test::to_host(x), hy = spscan_test::to_host(y);
    EXPECT_TRUE(std::equal(hx.begin(), hx.begin() + std::min(x_size, y_size), hy.begin())) << what << ": output";
  };
  spscan_test::poison(a);
  spscan_test::poison(b);
  same(a, spscan::copy_if(policy, in.begin(), in.end(), a.begin(), is_odd{}) - a.begin(), b,
       thrust::copy_if(thrust::device, in.begin(), in.end(), b.begin(), is_odd{}) - b.begin(), "copy_if");
  same(a, spscan::copy_if(policy, in.begin(), in.end(), stencil.begin(), a.begin(), is_odd{}) - a.begin(), b,
       thrust::copy_if(thrust::device, in.begin(), in.end(), stencil.begin(), b.begin(), is_odd{}) - b.begin(),
       "copy_if with stencil");
  same(a, spscan::remove_copy_if(policy, in.begin(), in.end(), a.begin(), is_odd{}) - a.begin(), b,
       thrust::remove_copy_if(thrust::device, in.begin(), in.end(), b.begin(), is_odd{}) - b.begin(), "remove_copy_if");
  same(a, spscan::remove_copy_if(policy, in.begin(), in.end(), stencil.begin(), a.begin(), is_odd{}) - a.begin(), b,
       thrust::remove_copy_if(thrust::device, in.begin(), in.end(), stencil.begin(), b.begin(), is_odd{}) - b.begin(),
       "remove_copy_if with stencil");
  const auto mine   = spscan::partition_copy(policy, in.begin(), in.end(), stencil.begin(), a.begin(), c.begin(), is_odd{});
  const auto theirs = thrust::partition_copy(thrust::device, in.begin(), in.end(), stencil.begin(), b.begin(), d.begin(), is_odd{});
  same(a, mine.first - a.begin(), b, theirs.first - b.begin(), "partition_copy with stencil: selected");
  same(c, mine.second - c.begin(), d, theirs.second - d.begin(), "partition_copy with stencil: rejected");
}

TEST(Select, EveryFormAndPolicyMatchesThrustOnTheDevice)
{
  SPSCAN_REQUIRE_GPU();
  spscan_test::owned_stream stream;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    expect_selections_match_thrust(thrust::device, n, "thrust::device");
    expect_selections_match_thrust(thrust::cuda::par_nosync.on(stream.stream), n, "par_nosync.on(stream)");
    expect_selections_match_thrust(spscan::par, n, "spscan::par");
    expect_selections_match_thrust(spscan::par_nosync.on(stream.stream), n, "spscan::par_nosync.on(stream)");
  }
}

TEST(Select, ThrustsEntryPointsWithSpscanParGoThroughSpscan)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n              = 5000;
  const thrust::device_vector<int> in = spscan_test::to_device(spscan_test::random_values<int>(n, 7));
  thrust::device_vector<int> out(n), other(n);
  const spscan_test::route_probe routed;
  thrust::copy_if(spscan::par, in.begin(), in.end(), out.begin(), is_odd{});
  thrust::remove_copy_if(spscan::par, in.begin(), in.end(), out.begin(), is_odd{});
  thrust::partition_copy(spscan::par, in.begin(), in.end(), out.begin(), other.begin(), is_odd{});
  EXPECT_EQ(routed.kernel_calls(), 3u) << "each call ran the selection program once";
  EXPECT_EQ(routed.thrust_calls(), 0u);
}

// ---------------------------------------------------------------------------------------------
// GPU: spscan's selection program, element by element against a sequential reference and
// against Thrust, around tile edges (8192 elements for 4-byte values, 4096 for 8-byte ones). It
// is called as its kernel route calls it (select.inl's *_on_kernel), so that each case runs the
// program whatever the dispatch would choose.

namespace program
{
template <class Policy, class... Args>
auto copy_if(const Policy& policy, Args... args)
{
  auto p = policy;
  return spscan::detail::copy_if_on_kernel::launch(p, args...);
}
template <class Policy, class... Args>
auto remove_copy_if(const Policy& policy, Args... args)
{
  auto p = policy;
  return spscan::detail::remove_copy_if_on_kernel::launch(p, args...);
}
template <class Policy, class... Args>
auto partition_copy(const Policy& policy, Args... args)
{
  auto p = policy;
  return spscan::detail::partition_copy_on_kernel::launch(p, args...);
}
} // namespace program

// Patterns of what is selected: the predicate reads a value's low byte against a threshold.
enum class pattern
{
  all,
  none,
  alternating,
  random_1_percent,
  random_half,
  random_99_percent,
};

template <class T>
std::vector<T> pattern_values(pattern kind, std::size_t n, std::uint64_t seed)
{
  spscan_test::splitmix64 rng{seed};
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const auto high = static_cast<T>((rng.next() & 0x3f) << 8); // payload, so outputs differ
    int low = 0; // selected where low < 100
    switch (kind)
    {
      case pattern::all: low = 0; break;
      case pattern::none: low = 200; break;
      case pattern::alternating: low = i % 2 ? 200 : 0; break;
      case pattern::random_1_percent: low = rng.below(10000) < 100 ? 0 : 200; break;
      case pattern::random_half: low = static_cast<int>(rng.below(200)); break;
      case pattern::random_99_percent: low = rng.below(10000) < 9900 ? 0 : 200; break;
    }
    v[i] = static_cast<T>(high + static_cast<T>(low));
  }
  return v;
}

struct low_byte_below_100
{
  template <class T>
  SPSCAN_HOST_DEVICE bool operator()(const T& x) const
  {
    return (static_cast<long long>(x) & 0xff) < 100;
  }
};

template <class T>
void expect_selection_exact(pattern kind, std::size_t n)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "pattern " << int(kind) << ", " << sizeof(T) << "-byte values, "
                                    << spscan_test::case_name(seed, n));
  const std::vector<T> host = pattern_values<T>(kind, n, seed);
  const std::vector<T> decider = pattern_values<T>(kind, n, seed ^ 0x5151);
  std::vector<T> keep, drop, keep_by_stencil, drop_by_stencil;
  for (std::size_t i = 0; i < n; ++i)
  {
    (low_byte_below_100{}(host[i]) ? keep : drop).push_back(host[i]);
    (low_byte_below_100{}(decider[i]) ? keep_by_stencil : drop_by_stencil).push_back(host[i]);
  }
  const thrust::device_vector<T> in(host.begin(), host.end()), stencil(decider.begin(), decider.end());
  thrust::device_vector<T> a(n + 1), b(n + 1), theirs(n + 1);
  const auto check = [&](const thrust::device_vector<T>& out, std::ptrdiff_t size, const std::vector<T>& expected,
                         const char* what) {
    ASSERT_EQ(static_cast<std::ptrdiff_t>(expected.size()), size) << what << ": end iterator";
    const auto got = spscan_test::to_host(out);
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), got.begin())) << what << ": output";
    ASSERT_TRUE(spscan_test::all_poisoned(std::vector<T>(got.begin() + size, got.end()))) << what << ": wrote past its end";
  };
  spscan_test::poison(a);
  check(a, program::copy_if(thrust::cuda::par, in.begin(), in.end(), a.begin(), low_byte_below_100{}) - a.begin(), keep, "copy_if");
  spscan_test::poison(a);
  check(a, program::copy_if(thrust::cuda::par_nosync, in.begin(), in.end(), stencil.begin(), a.begin(), low_byte_below_100{}) - a.begin(),
        keep_by_stencil, "copy_if with stencil");
  spscan_test::poison(a);
  check(a, program::remove_copy_if(spscan::par, in.begin(), in.end(), a.begin(), low_byte_below_100{}) - a.begin(), drop,
        "remove_copy_if");
  spscan_test::poison(a);
  check(a, program::remove_copy_if(thrust::cuda::par, in.begin(), in.end(), stencil.begin(), a.begin(), low_byte_below_100{}) - a.begin(),
        drop_by_stencil, "remove_copy_if with stencil");
  spscan_test::poison(a);
  spscan_test::poison(b);
  auto ends = program::partition_copy(thrust::cuda::par, in.begin(), in.end(), a.begin(), b.begin(), low_byte_below_100{});
  check(a, ends.first - a.begin(), keep, "partition_copy: selected");
  check(b, ends.second - b.begin(), drop, "partition_copy: rejected");
  spscan_test::poison(a);
  spscan_test::poison(b);
  ends = program::partition_copy(spscan::par_nosync, in.begin(), in.end(), stencil.begin(), a.begin(), b.begin(), low_byte_below_100{});
  check(a, ends.first - a.begin(), keep_by_stencil, "partition_copy with stencil: selected");
  check(b, ends.second - b.begin(), drop_by_stencil, "partition_copy with stencil: rejected");
  // Thrust's own result, for the record that the reference is Thrust's contract.
  spscan_test::poison(theirs);
  const auto their_end = thrust::copy_if(thrust::device, in.begin(), in.end(), theirs.begin(), low_byte_below_100{});
  check(theirs, their_end - theirs.begin(), keep, "thrust::copy_if");
}

TEST(SelectOnGpu, EveryPatternAndFormIsExactAroundTileEdges)
{
  SPSCAN_REQUIRE_GPU();
  const std::vector<pattern> patterns{pattern::all, pattern::none, pattern::alternating, pattern::random_1_percent,
                                      pattern::random_half, pattern::random_99_percent};
  for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
                              std::size_t{8191}, std::size_t{8192}, std::size_t{8193}, std::size_t{3 * 8192 + 17},
                              (std::size_t{1} << 20) + 3})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    for (const pattern kind : patterns)
    {
      expect_selection_exact<std::int32_t>(kind, n);
      expect_selection_exact<std::int64_t>(kind, n);
      expect_selection_exact<std::int8_t>(kind, n);
    }
  }
}

// Inputs of 4 MiB and more: every form (with and without a stencil, partition_copy's two outputs)
// runs on the ring engine where the device has it (sm_90 and newer) and gives Thrust's output
// (int8 from 4 MiB, int32 and int64 at 16 MiB).
TEST(SelectOnGpu, InputsLargeEnoughForTheRingEngineAreExactInEveryForm)
{
  SPSCAN_REQUIRE_GPU();
  const std::vector<pattern> patterns{pattern::all, pattern::none, pattern::random_1_percent, pattern::random_half,
                                      pattern::random_99_percent};
  const std::size_t int32_n = (std::size_t{1} << 22) + 5; // 16 MiB and a partial tile
  const std::size_t int64_n = (std::size_t{1} << 21) + 3;
  const std::size_t int8_n  = (std::size_t{1} << 22) + 7; // 4 MiB, 513 tiles
  if (int32_n > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << "above SPSCAN_TEST_MAX_ELEMENTS";
  }
  for (const pattern kind : patterns)
  {
    expect_selection_exact<std::int32_t>(kind, int32_n);
    expect_selection_exact<std::int64_t>(kind, int64_n);
    expect_selection_exact<std::int8_t>(kind, int8_n);
  }
}

// The selection's routes around 1 MiB: 32 primary tiles and fewer take the classic engine's half
// tiles, more the primary tile (the word-wide code where the input is raw and aligned), and from
// 1 MiB with a tile per SM the ring (select_program.h). Sizes at both sides of 32 tiles, of 1 MiB
// and of 128 tiles (2^20 elements of int8 and int16; 129 of int64, a tile per SM on some GPUs),
// in every form.
TEST(SelectOnGpu, InputsAroundOneMiBAreExactOnEveryRouteInEveryForm)
{
  SPSCAN_REQUIRE_GPU();
  const std::vector<pattern> patterns{pattern::all, pattern::none, pattern::random_1_percent, pattern::random_half,
                                      pattern::random_99_percent};
  const std::size_t int32_tile = 8192, int64_tile = 4096; // the primary tiles: 32 KiB
  const std::size_t int8_tile  = 8192;                    // 8 KiB (int16: 16 KiB)
  for (const pattern kind : patterns)
  {
    for (const std::size_t n : {32 * int32_tile, 32 * int32_tile + 5, 100 * int32_tile + 3})
    {
      if (n <= spscan_test::max_test_elements())
      {
        expect_selection_exact<std::int32_t>(kind, n);
      }
    }
    for (const std::size_t n : {32 * int64_tile, 32 * int64_tile + 3, 129 * int64_tile})
    {
      if (n <= spscan_test::max_test_elements())
      {
        expect_selection_exact<std::int64_t>(kind, n);
      }
    }
    for (const std::size_t n : {128 * int8_tile - 1, 128 * int8_tile, 128 * int8_tile + 7})
    {
      if (n <= spscan_test::max_test_elements())
      {
        expect_selection_exact<std::int8_t>(kind, n);
        expect_selection_exact<std::int16_t>(kind, n); // the same tile count, 2 MiB
      }
    }
  }
}

// Fancy iterators: a counting input into a discard output (only the end counts), a zip input
// into a zip output.
TEST(SelectOnGpu, CountingInputsDiscardAndZipOutputs)
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n = 100'003;
  const thrust::counting_iterator<long long> first(5);
  const auto end = program::copy_if(thrust::cuda::par, first, first + n, thrust::make_discard_iterator(), low_byte_below_100{});
  long long expected = 0;
  for (long long x = 5; x < static_cast<long long>(n) + 5; ++x)
  {
    expected += low_byte_below_100{}(x);
  }
  EXPECT_EQ(expected, end - thrust::make_discard_iterator());

  thrust::device_vector<int> keys(n), values(n), out_keys(n), out_values(n);
  thrust::sequence(keys.begin(), keys.end(), 7);
  thrust::sequence(values.begin(), values.end(), 1000);
  const auto in  = thrust::make_zip_iterator(thrust::make_tuple(keys.begin(), values.begin()));
  const auto out = thrust::make_zip_iterator(thrust::make_tuple(out_keys.begin(), out_values.begin()));
  const auto stencil = thrust::counting_iterator<int>(0);
  const auto zip_end = program::copy_if(thrust::cuda::par, in, in + n, stencil, out, low_byte_below_100{});
  std::vector<int> expected_keys, expected_values;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (low_byte_below_100{}(static_cast<int>(i)))
    {
      expected_keys.push_back(static_cast<int>(7 + i));
      expected_values.push_back(static_cast<int>(1000 + i));
    }
  }
  ASSERT_EQ(static_cast<std::ptrdiff_t>(expected_keys.size()), zip_end - out);
  const auto got_keys = spscan_test::to_host(out_keys), got_values = spscan_test::to_host(out_values);
  EXPECT_TRUE(std::equal(expected_keys.begin(), expected_keys.end(), got_keys.begin())) << "zip keys";
  EXPECT_TRUE(std::equal(expected_values.begin(), expected_values.end(), got_values.begin())) << "zip values";
}

// The count reaches the host through a pinned slot lent to one call at a time
// (common/host_result.h). Eight host threads (two under a sanitizer) select at once on streams of
// their own, each with its own sizes and selectivity: a slot lent to two calls at once would hand
// one thread the other's count.
struct multiple_of
{
  long long m;
  SPSCAN_HOST_DEVICE bool operator()(long long x) const
  {
    return x % m == 0;
  }
};

// Multiples of m in [first, first + n), first >= 1.
long long multiples_in(long long first, long long n, long long m)
{
  return (first + n - 1) / m - (first - 1) / m;
}

TEST(SelectOnGpu, CountsFromEightHostThreadsAtOnceReachTheirOwnCallers)
{
  SPSCAN_REQUIRE_GPU();
  const bool under_sanitizer = spscan_test::max_test_elements() != ~std::size_t{0};
  const int threads_count    = under_sanitizer ? 2 : 8;
  const int calls            = under_sanitizer ? 6 : 60;
  const std::uint64_t seed   = spscan_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess); // the context, before the threads race to make it
  std::vector<int> wrong(threads_count, 0);
  std::vector<std::string> first_wrong(threads_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < threads_count; ++t)
  {
    threads.emplace_back([&, t] {
      spscan_test::splitmix64 rng{seed + 7919u * static_cast<std::uint64_t>(t)};
      cudaStream_t stream = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
      {
        ++wrong[t];
        first_wrong[t] = "cudaStreamCreate failed";
        return;
      }
      for (int c = 0; c < calls; ++c)
      {
        const long long first = 1 + static_cast<long long>(rng.below(1000));
        const long long n     = 1 + static_cast<long long>(rng.below(300'000));
        const long long m     = 2 + t + static_cast<long long>(rng.below(5));
        const thrust::counting_iterator<long long> in(first);
        const auto out = thrust::make_discard_iterator();
        try
        {
          const long long got = program::copy_if(thrust::cuda::par.on(stream), in, in + n, out, multiple_of{m}) - out;
          if (got != multiples_in(first, n, m) && wrong[t]++ == 0)
          {
            first_wrong[t] = "call " + std::to_string(c) + ": n " + std::to_string(n) + ", m " + std::to_string(m)
                           + ": counted " + std::to_string(got) + ", expected " + std::to_string(multiples_in(first, n, m));
          }
        }
        catch (const std::exception& e)
        {
          ++wrong[t];
          first_wrong[t] = std::string("threw: ") + e.what();
          break;
        }
      }
      cudaStreamDestroy(stream);
    });
  }
  for (auto& thread : threads)
  {
    thread.join();
  }
  for (int t = 0; t < threads_count; ++t)
  {
    EXPECT_EQ(wrong[t], 0) << "host thread " << t << ": " << first_wrong[t];
  }
}

// The slots' pages belong to the device's context: release_temporary_storage frees them, and a
// reset takes them with its context; the next selections make new ones and count exactly (a page
// kept across the reset would be written after it was freed).
TEST(SelectOnGpu, CountsAfterReleaseAndCudaDeviceResetAreExact)
{
  SPSCAN_REQUIRE_GPU();
  const auto counts_exactly = [](long long n, long long m) {
    const thrust::counting_iterator<long long> in(1);
    const auto out = thrust::make_discard_iterator();
    return program::copy_if(thrust::cuda::par, in, in + n, out, multiple_of{m}) - out == multiples_in(1, n, m);
  };
  ASSERT_TRUE(counts_exactly(100'000, 3));
  spscan::release_temporary_storage();
  EXPECT_TRUE(counts_exactly(100'001, 4)) << "after release_temporary_storage";
  spscan::release_temporary_storage(); // as a program checked for leaks does before a reset
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_TRUE(counts_exactly(100'002, 5)) << "after the first reset";
  if (spscan_test::max_test_elements() == ~std::size_t{0})
  { // a reset with the pages kept, as in a program that knows nothing of them (not under a
    // sanitizer, whose leak check counts memory still allocated at a reset as leaked)
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    EXPECT_TRUE(counts_exactly(100'003, 6)) << "after the second reset";
  }
}

// More than 2^32 inputs (a counting input, nothing stored): the count travels through the
// look-back as a 64-bit integer, and the end iterators are exact.
TEST(SelectOnGpu, MoreThanFourBillionElementsCountExactly)
{
  SPSCAN_REQUIRE_GPU();
  const long long n = (1ll << 32) + 12345;
  if (static_cast<std::size_t>(n) > spscan_test::max_test_elements())
  {
    GTEST_SKIP() << "above SPSCAN_TEST_MAX_ELEMENTS";
  }
  const thrust::counting_iterator<long long> first(0);
  // low byte below 100: 100 of every 256 values, plus the tail's share
  const long long expected = (n / 256) * 100 + std::min<long long>(n % 256, 100);
  const auto end = program::copy_if(thrust::cuda::par, first, first + n, thrust::make_discard_iterator(), low_byte_below_100{});
  EXPECT_EQ(expected, end - thrust::make_discard_iterator());
  const auto ends = program::partition_copy(thrust::cuda::par_nosync, first, first + n, thrust::make_discard_iterator(), thrust::make_discard_iterator(),
                                           low_byte_below_100{});
  EXPECT_EQ(expected, ends.first - thrust::make_discard_iterator());
  EXPECT_EQ(n - expected, ends.second - thrust::make_discard_iterator());
}

} // namespace

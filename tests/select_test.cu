// spscan's selections (copy_if, remove_copy_if, partition_copy; detail/select.inl) keep Thrust's
// contract: every overload, with and without a stencil and a policy, dispatched as Thrust
// dispatches it. On the CPU: host policies and host iterators give the sequential results and
// end iterators; Thrust's CUDA policies are recognized as reaching Thrust's CUDA backend for every
// form; a program's own policy gets its own overloads. On a GPU: every form and policy gives
// Thrust's output and end iterators bit for bit, and Thrust's entry points called with
// spscan::par go through spscan's dispatch.
#include <spscan/copy.h>
#include <spscan/execution_policy.h>
#include <spscan/partition.h>
#include <spscan/remove.h>

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

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
  EXPECT_EQ(routed.thrust_calls(), 3u) << "each call went through spscan's dispatch once (to Thrust's CUDA backend)";
  EXPECT_EQ(routed.kernel_calls(), 0u);
}

} // namespace

// Comparing scans: run spscan's call and Thrust's same call on the same input, each into a poisoned
// output, check the return value and the route spscan took, and compare every element with a
// sequential reference and with Thrust's result.
#pragma once

#include <spscan/detail/route.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <support/data.h>

namespace spscan_test
{

// ---------------------------------------------------------------------------------------------
// Element comparison

// Checks all elements with `same(expected[i], actual[i])`; one failure names the first mismatch
// (index and both values) and how many elements differ, so a wrong scan does not flood the log.
template <class Expected, class Actual, class Same>
void expect_all_elements(const std::vector<Expected>& expected, const std::vector<Actual>& actual, const char* what, Same same)
{
  ASSERT_EQ(expected.size(), actual.size()) << what;
  std::size_t mismatches = 0;
  std::size_t first      = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
  {
    if (!same(expected[i], actual[i], i))
    {
      first = mismatches == 0 ? i : first;
      ++mismatches;
    }
  }
  if (mismatches != 0)
  {
    ADD_FAILURE() << what << ": " << mismatches << " of " << expected.size() << " elements differ; first at index "
                  << first << ": expected " << ::testing::PrintToString(expected[first]) << ", got "
                  << ::testing::PrintToString(actual[first]);
  }
}

// Bit-for-bit equality (integers, and the tests' structs, which have no padding).
template <class T>
void expect_bitwise_equal(const std::vector<T>& expected, const std::vector<T>& actual, const char* what)
{
  static_assert(std::is_trivially_copyable_v<T>);
  ASSERT_EQ(expected.size(), actual.size()) << what;
  // One memcmp settles the common case quickly; the element walk runs only to describe a failure.
  if (expected.empty() || std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(T)) == 0)
  {
    return;
  }
  expect_all_elements(expected, actual, what, [](const T& a, const T& b, std::size_t) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  });
}

// True when every byte of every element still holds the poison: nothing was written.
template <class T>
bool all_poisoned(const std::vector<T>& values)
{
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(T); ++i)
  {
    if (bytes[i] != poison_byte)
    {
      return false;
    }
  }
  return true;
}

template <class T>
std::vector<T> poisoned_host_vector(std::size_t n)
{
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<T> values(n);
  if (n != 0)
  {
    std::memset(static_cast<void*>(values.data()), poison_byte, n * sizeof(T));
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Device data

template <class T>
void poison(thrust::device_vector<T>& values)
{
  if (!values.empty())
  {
    ASSERT_EQ(cudaSuccess,
              cudaMemset(thrust::raw_pointer_cast(values.data()), poison_byte, values.size() * sizeof(T)));
    // cudaMemset may return before it is done, and a call under test on a non-blocking stream
    // is not ordered after the default stream: finish the poison first.
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  }
}

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& values)
{
  std::vector<T> host(values.size());
  thrust::copy(values.begin(), values.end(), host.begin());
  return host;
}

template <class T>
thrust::device_vector<T> to_device(const std::vector<T>& values)
{
  return thrust::device_vector<T>(values.begin(), values.end());
}

// ---------------------------------------------------------------------------------------------
// Routing

enum class route
{
  kernel, // spscan's single-pass kernel
  thrust, // Thrust's own implementation
};

struct route_counts
{
  unsigned long long kernel;
  unsigned long long thrust;

  static route_counts now()
  {
    const auto& stats = spscan::detail::route_stats();
    return {stats.kernel.load(), stats.thrust.load()};
  }
};

// Counts the host calls that took each route since it was made.
class route_probe
{
public:
  unsigned long long kernel_calls() const
  {
    return route_counts::now().kernel - start_.kernel;
  }
  unsigned long long thrust_calls() const
  {
    return route_counts::now().thrust - start_.thrust;
  }

private:
  route_counts start_ = route_counts::now();
};

// Exactly one spscan call, on the expected route, happened since `before`.
inline void expect_one_call_on(route expected, const route_counts& before)
{
  const route_counts after = route_counts::now();
  EXPECT_EQ(before.kernel + (expected == route::kernel ? 1 : 0), after.kernel) << "calls routed to spscan's kernel";
  EXPECT_EQ(before.thrust + (expected == route::thrust ? 1 : 0), after.thrust) << "calls routed to Thrust";
}

// ---------------------------------------------------------------------------------------------
// Calling a scan on device data
//
// A scan is passed as a generic callable that forwards its arguments to one overload set, e.g.
//   [](auto&&... args) { return spscan::inclusive_scan(args...); }
// so that the same callable serves the forms with and without an execution policy.

// Where a call gets its system from.
enum class system_from
{
  policy, // thrust::device with raw device pointers
  iterators, // no policy; thrust::device_vector iterators
};

inline const char* describe(system_from system)
{
  return system == system_from::policy ? "thrust::device policy, raw pointers" : "no policy, device_vector iterators";
}

// Calls scan([policy,] in + first_offset, in + last_offset, out + result_offset, trailing...) and
// returns the distance from the result iterator to the iterator the call returned. `in` and `out`
// may be the same vector (in-place scan).
template <class In, class Out, class Scan, class... Trailing>
std::ptrdiff_t invoke_on_device(
  system_from system,
  thrust::device_vector<In>& in,
  std::ptrdiff_t first_offset,
  std::ptrdiff_t last_offset,
  thrust::device_vector<Out>& out,
  std::ptrdiff_t result_offset,
  Scan scan,
  const Trailing&... trailing)
{
  if (system == system_from::policy)
  {
    In* const first   = thrust::raw_pointer_cast(in.data());
    Out* const result = thrust::raw_pointer_cast(out.data()) + result_offset;
    const auto end    = scan(thrust::device, first + first_offset, first + last_offset, result, trailing...);
    static_assert(std::is_same_v<std::remove_const_t<decltype(end)>, Out*>, "a scan returns the output iterator type");
    return end - result;
  }
  const auto first  = in.begin();
  const auto result = out.begin() + result_offset;
  const auto end    = scan(first + first_offset, first + last_offset, result, trailing...);
  static_assert(std::is_same_v<std::remove_const_t<decltype(end)>, std::remove_const_t<decltype(result)>>,
                "a scan returns the output iterator type");
  return end - result;
}

template <class Out>
struct scan_outputs
{
  std::vector<Out> spscan;
  std::vector<Out> thrust;
};

// Runs spscan's call and then Thrust's same call on `input` copied to the device, each into a
// poisoned output of value type Out. Checks that each returns result + n and that spscan's call
// took `expected_route`; returns both outputs for the caller to compare.
template <class Out, class In, class SpscanScan, class ThrustScan, class... Trailing>
scan_outputs<Out> run_device_scans(
  system_from system,
  route expected_route,
  const std::vector<In>& input,
  SpscanScan spscan_scan,
  ThrustScan thrust_scan,
  const Trailing&... trailing)
{
  SCOPED_TRACE(describe(system));
  const auto n                     = static_cast<std::ptrdiff_t>(input.size());
  thrust::device_vector<In> d_in   = to_device(input);
  thrust::device_vector<Out> d_out(input.size());
  scan_outputs<Out> outputs;

  poison(d_out);
  const route_counts before = route_counts::now();
  EXPECT_EQ(n, invoke_on_device(system, d_in, 0, n, d_out, 0, spscan_scan, trailing...)) << "spscan's return value";
  expect_one_call_on(expected_route, before);
  outputs.spscan = to_host(d_out);

  poison(d_out);
  EXPECT_EQ(n, invoke_on_device(system, d_in, 0, n, d_out, 0, thrust_scan, trailing...)) << "Thrust's return value";
  outputs.thrust = to_host(d_out);
  return outputs;
}

// run_device_scans, then every element bit for bit against `reference` and against Thrust.
template <class Out, class In, class SpscanScan, class ThrustScan, class... Trailing>
void expect_device_scan_exact(
  system_from system,
  route expected_route,
  const std::vector<In>& input,
  const std::vector<Out>& reference,
  SpscanScan spscan_scan,
  ThrustScan thrust_scan,
  const Trailing&... trailing)
{
  const scan_outputs<Out> outputs =
    run_device_scans<Out>(system, expected_route, input, spscan_scan, thrust_scan, trailing...);
  SCOPED_TRACE(describe(system));
  expect_bitwise_equal(reference, outputs.spscan, "spscan vs sequential reference");
  expect_bitwise_equal(outputs.thrust, outputs.spscan, "spscan vs Thrust's same call");
}

// A description of one test case for SCOPED_TRACE: the seed replays the input.
inline std::string case_name(std::uint64_t seed, std::size_t n)
{
  return "seed " + std::to_string(seed) + ", n " + std::to_string(n);
}

} // namespace spscan_test

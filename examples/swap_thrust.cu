// swap_thrust: replacing thrust::inclusive_scan with spscan::inclusive_scan in a real program.
//
// The program keeps a ledger of 16 M account transactions (deposits and withdrawals, in cents)
// in a device_vector and computes the running balance after each one. Switching to spscan is a
// one-line change; the arguments, the result and the behaviour (synchronizing, allocating
// through the same allocator) stay the same:
//
//   thrust::inclusive_scan(amounts.begin(), amounts.end(), balances.begin());
//   spscan::inclusive_scan(amounts.begin(), amounts.end(), balances.begin());
//
// It runs both, checks that they agree element for element, and prints the median time of each
// (host clock around each call, which synchronizes as Thrust's does), for the whole ledger and for
// one day's ledger of 4096 transactions. The whole ledger is 128 MiB of traffic, where both are
// bound by memory bandwidth; a small array costs what a call's launches and waits cost, which is
// where spscan gains most (one launch, no cudaMalloc/cudaFree per call).
// Exit status 0 when the balances agree, 1 otherwise or on any CUDA error.

#include <spscan/scan.h>

#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/extrema.h>
#include <thrust/host_vector.h>
#include <thrust/scan.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <vector>

namespace
{

bool gpu_available()
{
  int count                = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
  {
    std::fprintf(stderr, "swap_thrust: this example needs a CUDA GPU (%s)\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "no device found");
    return false;
  }
  return true;
}

// A ledger: mostly small card payments, some larger deposits (a salary now and then).
thrust::host_vector<std::int64_t> make_ledger(std::size_t count, std::uint64_t seed)
{
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<std::int64_t> payment(100, 20'000); // $1 .. $200
  std::uniform_int_distribution<std::int64_t> deposit(50'000, 500'000); // $500 .. $5000
  std::bernoulli_distribution is_deposit(0.05);
  thrust::host_vector<std::int64_t> amounts(count);
  for (auto& amount : amounts)
  {
    amount = is_deposit(engine) ? deposit(engine) : -payment(engine);
  }
  return amounts;
}

// Median wall time of `runs` calls after one warm-up; each call synchronizes, as Thrust's does.
template <class Call>
double median_ms(Call call, int runs)
{
  call();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i)
  {
    const auto begin = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double dollars(std::int64_t cents)
{
  return static_cast<double>(cents) / 100.0;
}

int run()
{
  const std::size_t count  = std::size_t{1} << 24;
  const std::uint64_t seed = std::random_device{}();
  const thrust::host_vector<std::int64_t> ledger = make_ledger(count, seed);
  std::printf("ledger: %zu transactions (seed %llu)\n", count, static_cast<unsigned long long>(seed));

  const thrust::device_vector<std::int64_t> amounts = ledger;
  thrust::device_vector<std::int64_t> balances_thrust(count);
  thrust::device_vector<std::int64_t> balances_spscan(count);

  const double thrust_ms = median_ms(
    [&] { thrust::inclusive_scan(amounts.begin(), amounts.end(), balances_thrust.begin()); }, 11);
  // The one-line change:
  const double spscan_ms = median_ms(
    [&] { spscan::inclusive_scan(amounts.begin(), amounts.end(), balances_spscan.begin()); }, 11);

  // Same balances, element for element, and the last one equals the plain sum of the ledger.
  const bool same     = thrust::equal(balances_thrust.begin(), balances_thrust.end(), balances_spscan.begin());
  const std::int64_t final_balance = balances_spscan.back();
  const std::int64_t expected_final = std::accumulate(ledger.begin(), ledger.end(), std::int64_t{0});
  const auto lowest = thrust::min_element(balances_spscan.begin(), balances_spscan.end());
  const std::int64_t lowest_balance = *lowest;

  std::printf("final balance   $%.2f (sum of the ledger on the CPU: $%.2f)\n", dollars(final_balance),
              dollars(expected_final));
  std::printf("lowest balance  $%.2f, after transaction %lld\n", dollars(lowest_balance),
              static_cast<long long>(lowest - balances_spscan.begin()));
  std::printf("whole ledger, %zu transactions (host clock per call, median of 11):\n", count);
  std::printf("  thrust::inclusive_scan  %9.1f us\n", 1000 * thrust_ms);
  std::printf("  spscan::inclusive_scan  %9.1f us  (%.2fx)\n", 1000 * spscan_ms, thrust_ms / spscan_ms);

  // One day's ledger: a small array, scanned many times over, as programs often do.
  const std::size_t day_count = 4096;
  thrust::device_vector<std::int64_t> day_thrust(day_count), day_spscan(day_count);
  const auto day_first = amounts.begin();
  const auto day_last  = amounts.begin() + static_cast<std::ptrdiff_t>(day_count);
  const double day_thrust_ms = median_ms([&] { thrust::inclusive_scan(day_first, day_last, day_thrust.begin()); }, 201);
  const double day_spscan_ms = median_ms([&] { spscan::inclusive_scan(day_first, day_last, day_spscan.begin()); }, 201);
  const bool day_same = thrust::equal(day_thrust.begin(), day_thrust.end(), day_spscan.begin());
  std::printf("one day, %zu transactions (host clock per call, median of 201):\n", day_count);
  std::printf("  thrust::inclusive_scan  %9.1f us\n", 1000 * day_thrust_ms);
  std::printf("  spscan::inclusive_scan  %9.1f us  (%.2fx)\n", 1000 * day_spscan_ms, day_thrust_ms / day_spscan_ms);

  if (!same || !day_same || final_balance != expected_final)
  {
    std::printf("FAILED: %s\n",
                !same || !day_same ? "spscan's balances differ from Thrust's" : "the final balance is wrong");
    return 1;
  }
  std::printf("OK: spscan's balances equal Thrust's for all %zu transactions\n", count);
  return 0;
}

} // namespace

int main()
{
  if (!gpu_available())
  {
    return 1;
  }
  try
  {
    return run();
  }
  catch (const std::exception& e)
  {
    std::fprintf(stderr, "swap_thrust: %s\n", e.what());
    return 1;
  }
}

// A Thrust program moved to spscan by changing its execution policy and nothing else.
//
// `summarize_orders` is ordinary Thrust code: every call takes the policy it is given. main()
// runs it once with thrust::device and once with spscan::par; the scans and the copy_if of the
// second run execute on spscan's kernels, every other algorithm on Thrust's, and the two runs must
// agree exactly.
#include <spscan/execution_policy.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Order sizes, 1..64 items, from a cheap integer hash of the order number.
struct order_size
{
  __host__ __device__ int operator()(int order) const
  {
    std::uint32_t h = static_cast<std::uint32_t>(order) * 2654435761u;
    h ^= h >> 16;
    return static_cast<int>(h % 64u) + 1;
  }
};

struct is_bulk_order
{
  __host__ __device__ bool operator()(int items) const
  {
    return items > 48;
  }
};

struct squared
{
  __host__ __device__ long long operator()(int items) const
  {
    return 1LL * items * items;
  }
};

struct order_summary
{
  std::vector<int> sorted_sizes;       // sort
  std::vector<int> first_item_slot;    // exclusive_scan: where each order's items start
  std::vector<int> items_so_far;       // inclusive_scan
  std::vector<long long> running_load; // transform_inclusive_scan: sum of squared sizes
  std::vector<int> bulk_orders;        // copy_if
  long long total_items;               // reduce

  bool operator==(const order_summary& other) const
  {
    return sorted_sizes == other.sorted_sizes && first_item_slot == other.first_item_slot
        && items_so_far == other.items_so_far && running_load == other.running_load
        && bulk_orders == other.bulk_orders && total_items == other.total_items;
  }
};

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& v)
{
  std::vector<T> host(v.size());
  thrust::copy(v.begin(), v.end(), host.begin());
  return host;
}

template <class Policy>
order_summary summarize_orders(const Policy& policy, int orders)
{
  thrust::device_vector<int> sizes(orders);
  thrust::tabulate(policy, sizes.begin(), sizes.end(), order_size{});
  thrust::sort(policy, sizes.begin(), sizes.end());

  thrust::device_vector<int> slots(orders);
  thrust::exclusive_scan(policy, sizes.begin(), sizes.end(), slots.begin());

  thrust::device_vector<int> so_far(orders);
  thrust::inclusive_scan(policy, sizes.begin(), sizes.end(), so_far.begin());

  thrust::device_vector<long long> load(orders);
  thrust::transform_inclusive_scan(policy, sizes.begin(), sizes.end(), load.begin(), squared{}, thrust::plus<long long>{});

  thrust::device_vector<int> bulk(orders);
  bulk.resize(thrust::copy_if(policy, sizes.begin(), sizes.end(), bulk.begin(), is_bulk_order{}) - bulk.begin());

  const long long total = thrust::reduce(policy, sizes.begin(), sizes.end(), 0LL);

  return {to_host(sizes), to_host(slots), to_host(so_far), to_host(load), to_host(bulk), total};
}

// Calls run on spscan's kernels while `run` executes.
template <class Run>
unsigned long long calls_on_spscan_during(Run&& run)
{
  const unsigned long long before = spscan::detail::route_stats().kernel.load();
  run();
  return spscan::detail::route_stats().kernel.load() - before;
}

int main()
{
  const int orders = 1 << 20;
  const int calls  = 4; // exclusive_scan, inclusive_scan, transform_inclusive_scan, copy_if

  order_summary with_thrust;
  const unsigned long long thrust_run = calls_on_spscan_during([&] {
    with_thrust = summarize_orders(thrust::device, orders);
  });

  // The whole change: this line was `auto policy = thrust::device;`.
  auto policy = spscan::par;
  order_summary with_spscan;
  const unsigned long long spscan_run = calls_on_spscan_during([&] {
    with_spscan = summarize_orders(policy, orders);
  });

  std::printf("orders: %d, items: %lld, bulk orders: %zu\n", orders, with_spscan.total_items, with_spscan.bulk_orders.size());
  std::printf("thrust::device: %llu of %d calls ran on spscan's kernels\n", thrust_run, calls);
  std::printf("spscan::par:    %llu of %d calls ran on spscan's kernels "
              "(exclusive_scan, inclusive_scan, transform_inclusive_scan, copy_if)\n",
              spscan_run,
              calls);

  if (!(with_spscan == with_thrust) || thrust_run != 0 || spscan_run != static_cast<unsigned long long>(calls))
  {
    std::printf("FAILED: the two runs differ, or a call took an unexpected route\n");
    return EXIT_FAILURE;
  }
  std::printf("identical results with thrust::device and spscan::par\n");
  return EXIT_SUCCESS;
}

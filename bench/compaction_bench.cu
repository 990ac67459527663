// Run heads and in-place compactions: spscan's unique_copy, unique_by_key_copy, unique_count and
// the in-place unique (each through its kernel route, called as the dispatch calls it, so that it
// runs whether or not it is the default: detail/select.inl), remove_if in place as users call it,
// 1 %, 50 % and 99 % removed, and stable_partition in place as users call it, half selected,
// against Thrust's same calls and CUB's DeviceSelect::Unique / UniqueByKey (temporary storage
// allocated before timing), int32 and int64 keys, 2^16 to 2^28 elements, runs of 1, 2 and 32 equal
// keys. CUB is timed as a caller of the Thrust call sees it (its count read back to the host) and
// as its kernel alone. The roofline is the call's traffic: a read of the input and a write of the
// heads, a device-to-device copy of (n + heads) / 2 elements (for the partition, a copy of the
// input). The in-place calls each restore their input first (a copy of it); the restore alone is
// timed and taken off. Every output and count is checked against Thrust's. CUDA events, median of
// --reps after warm-up; spscan and Thrust through par_nosync with a caching allocator (no
// allocation timed).
static const char* bench_name = "compaction_bench";

#include "bench_support.h"

#include <spscan/partition.h>
#include <spscan/remove.h>
#include <spscan/unique.h>

#include <thrust/execution_policy.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/unique.h>

#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace bench;

namespace
{

struct row
{
  const char* type;
  const char* form;
  int log2n;
  int run;
  double spscan_ms, thrust_ms, cub_read_ms, cub_ms, roofline_ms;
  bool exact;
};

template <class T>
void run_type(const char* type, int reps, int max_log2, std::vector<row>& rows, int sm_count)
{
  const std::size_t max_n = std::size_t{1} << max_log2;
  device_array<T> keys(max_n), ours(max_n), theirs(max_n), work(max_n), scratch(max_n);
  device_array<std::int32_t> values(max_n), our_values(max_n), their_values(max_n);
  device_array<std::int64_t> cub_count(1);
  // The roofline copies up to every key and value read once and written once.
  const std::size_t roofline_max_bytes = max_n * (sizeof(T) + sizeof(std::int32_t));
  device_array<unsigned char> copy_from(roofline_max_bytes), copy_to(roofline_max_bytes);
  fill_hashed<<<grid_for(max_n, sm_count), 256>>>(values.get(), max_n, 5);
  caching_allocator alloc;
  event_timer timer;
  const int warmups        = 3;
  const auto policy        = [&] { return thrust::cuda::par_nosync(alloc).on(bench_stream); };
  auto ours_policy         = policy(); // the kernel routes take the policy by reference
  const auto same          = [&](const auto* a, const auto* b, std::ptrdiff_t a_n, std::ptrdiff_t b_n) {
    return a_n == b_n && compare_on_device(a, b, static_cast<std::size_t>(a_n), sm_count).passed;
  };
  for (int log2n = 16; log2n <= max_log2; log2n += 4)
  {
    const std::size_t n = std::size_t{1} << log2n;
    for (int run : {1, 2, 32})
    {
      fill_runs<<<grid_for(n, sm_count), 256>>>(keys.get(), n, static_cast<std::size_t>(run), 77);
      CHECK_CUDA(cudaDeviceSynchronize());
      const std::size_t heads = (n + static_cast<std::size_t>(run) - 1) / static_cast<std::size_t>(run);
      const auto roofline = [&](std::size_t bytes) {
        return timer.median_ms(
          [&] { CHECK_CUDA(cudaMemcpyAsync(copy_to.get(), copy_from.get(), bytes, cudaMemcpyDeviceToDevice, bench_stream)); },
          warmups, reps);
      };
      const auto restore = [&] {
        CHECK_CUDA(cudaMemcpyAsync(work.get(), keys.get(), n * sizeof(T), cudaMemcpyDeviceToDevice, bench_stream));
      };
      const double restore_ms = timer.median_ms(restore, warmups, reps);

      // unique_copy, against thrust::unique_copy and cub::DeviceSelect::Unique.
      {
        std::size_t temp_bytes = 0;
        CHECK_CUDA(cub::DeviceSelect::Unique(nullptr, temp_bytes, keys.get(), scratch.get(), cub_count.get(), n, bench_stream));
        device_array<unsigned char> temp(temp_bytes);
        std::int64_t read_back = 0;
        const auto cub_call    = [&] {
          CHECK_CUDA(cub::DeviceSelect::Unique(temp.get(), temp_bytes, keys.get(), scratch.get(), cub_count.get(), n, bench_stream));
        };
        const auto cub_read_call = [&] {
          cub_call();
          CHECK_CUDA(cudaMemcpyAsync(&read_back, cub_count.get(), sizeof(read_back), cudaMemcpyDeviceToHost, bench_stream));
          CHECK_CUDA(cudaStreamSynchronize(bench_stream));
        };
        T* got           = nullptr;
        T* want          = nullptr;
        const auto mine  = [&] {
          got = spscan::detail::unique_copy_on_kernel::launch(ours_policy, keys.get(), keys.get() + n, ours.get());
        };
        const auto thrust_call = [&] { want = thrust::unique_copy(policy(), keys.get(), keys.get() + n, theirs.get()); };
        mine();
        thrust_call();
        cub_read_call();
        row r{type, "unique_copy", log2n, run, 0, 0, 0, 0, 0,
              same(ours.get(), theirs.get(), got - ours.get(), want - theirs.get()) && read_back == want - theirs.get()};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps);
        r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
        r.cub_read_ms = timer.median_ms(cub_read_call, warmups, reps);
        r.cub_ms      = timer.median_ms(cub_call, warmups, reps);
        r.roofline_ms = roofline((n + heads) * sizeof(T) / 2);
        rows.push_back(r);
      }
      // unique_by_key_copy (int32 values), against thrust's and cub::DeviceSelect::UniqueByKey.
      {
        std::size_t temp_bytes = 0;
        CHECK_CUDA(cub::DeviceSelect::UniqueByKey(nullptr, temp_bytes, keys.get(), values.get(), scratch.get(),
                                                  their_values.get(), cub_count.get(), n, bench_stream));
        device_array<unsigned char> temp(temp_bytes);
        std::int64_t read_back = 0;
        const auto cub_call    = [&] {
          CHECK_CUDA(cub::DeviceSelect::UniqueByKey(temp.get(), temp_bytes, keys.get(), values.get(), scratch.get(),
                                                    their_values.get(), cub_count.get(), n, bench_stream));
        };
        const auto cub_read_call = [&] {
          cub_call();
          CHECK_CUDA(cudaMemcpyAsync(&read_back, cub_count.get(), sizeof(read_back), cudaMemcpyDeviceToHost, bench_stream));
          CHECK_CUDA(cudaStreamSynchronize(bench_stream));
        };
        thrust::pair<T*, std::int32_t*> got{}, want{};
        const auto mine = [&] {
          got = spscan::detail::unique_by_key_copy_on_kernel::launch(
            ours_policy, keys.get(), keys.get() + n, values.get(), ours.get(), our_values.get());
        };
        const auto thrust_call = [&] {
          want = thrust::unique_by_key_copy(policy(), keys.get(), keys.get() + n, values.get(), theirs.get(), their_values.get());
        };
        mine();
        thrust_call();
        const bool exact = same(ours.get(), theirs.get(), got.first - ours.get(), want.first - theirs.get())
                        && same(our_values.get(), their_values.get(), got.second - our_values.get(), want.second - their_values.get());
        cub_read_call();
        row r{type, "unique_by_key_copy", log2n, run, 0, 0, 0, 0, 0, exact && read_back == want.first - theirs.get()};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps);
        r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
        r.cub_read_ms = timer.median_ms(cub_read_call, warmups, reps);
        r.cub_ms      = timer.median_ms(cub_call, warmups, reps);
        r.roofline_ms = roofline((n + heads) * (sizeof(T) + sizeof(std::int32_t)) / 2);
        rows.push_back(r);
      }
      // unique_count, against thrust's (the roofline: a read of the input).
      {
        std::ptrdiff_t got = 0, want = 0;
        const auto mine        = [&] {
          got = spscan::detail::unique_count_on_kernel::launch(ours_policy, keys.get(), keys.get() + n);
        };
        const auto thrust_call = [&] { want = thrust::unique_count(policy(), keys.get(), keys.get() + n); };
        mine();
        thrust_call();
        row r{type, "unique_count", log2n, run, 0, 0, 0, 0, 0, got == want && got == static_cast<std::ptrdiff_t>(heads)};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps);
        r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
        r.roofline_ms = roofline(n * sizeof(T) / 2);
        rows.push_back(r);
      }
      // An in-place call against Thrust's same call, each run after a restore of the input (the
      // restore alone is timed and taken off). `our_call()` and `thrust_call()` return the end (or
      // middle) they give; the two must agree, and so must the first `compared(end)` elements of
      // the results; the roofline copies `traffic(end)` bytes.
      const auto in_place_row = [&](const char* form, int run_length, auto our_call, auto thrust_call, auto compared,
                                    auto traffic) {
        T* got          = nullptr;
        T* want         = nullptr;
        const auto mine = [&] {
          restore();
          got = our_call();
        };
        const auto theirs_call = [&] {
          restore();
          want = thrust_call();
        };
        mine();
        CHECK_CUDA(cudaMemcpy(ours.get(), work.get(), n * sizeof(T), cudaMemcpyDeviceToDevice));
        theirs_call();
        const std::ptrdiff_t end = got - work.get();
        const std::ptrdiff_t kept = compared(end);
        row r{type, form, log2n, run_length, 0, 0, 0, 0, 0,
              end == want - work.get() && same(ours.get(), work.get(), kept, kept)};
        r.spscan_ms   = timer.median_ms(mine, warmups, reps) - restore_ms;
        r.thrust_ms   = timer.median_ms(theirs_call, warmups, reps) - restore_ms;
        r.roofline_ms = roofline(traffic(end));
        rows.push_back(r);
      };
      const auto results_up_to_end = [](std::ptrdiff_t end) { return end; };
      T* const first = work.get();
      T* const last  = work.get() + n;

      in_place_row(
        "unique (in place)", run, [&] { return spscan::detail::unique_on_kernel::launch(ours_policy, first, last); },
        [&] { return thrust::unique(policy(), first, last); }, results_up_to_end,
        [&](std::ptrdiff_t) { return (n + heads) * sizeof(T) / 2; });
      // remove_if in place, as users call it (its default route), a share of the keys removed;
      // stable_partition in place, as users call it, half selected (its roofline: a copy of the
      // input, what any in-place partition reads and writes at least).
      if (run == 1)
      {
        const struct
        {
          const char* form;
          unsigned permille;
        } shares[] = {{"remove_if (in place, 1% removed)", 10},
                      {"remove_if (in place, 50% removed)", 500},
                      {"remove_if (in place, 99% removed)", 990}};
        for (const auto& share : shares)
        {
          const below_permille<T> pred{share.permille};
          in_place_row(
            share.form, 0, [&] { return spscan::remove_if(ours_policy, first, last, pred); },
            [&] { return thrust::remove_if(policy(), first, last, pred); }, results_up_to_end,
            [&](std::ptrdiff_t end) { return (n + static_cast<std::size_t>(end)) * sizeof(T) / 2; });
        }
        const below_permille<T> half{500};
        in_place_row(
          "stable_partition (in place, 50%)", 0, [&] { return spscan::stable_partition(ours_policy, first, last, half); },
          [&] { return thrust::stable_partition(policy(), first, last, half); },
          [&](std::ptrdiff_t) { return static_cast<std::ptrdiff_t>(n); }, [&](std::ptrdiff_t) { return n * sizeof(T); });
      }
    }
  }
}

} // namespace

int main(int argc, char** argv)
{
  int reps     = 15;
  int max_log2 = 28; // --max-log2: the largest size, 16, 20, 24 or 28
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-log2")) max_log2 = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (max_log2 < 16 || max_log2 > 28 || max_log2 % 4 != 0)
  {
    fail("--max-log2 takes 16, 20, 24 or 28");
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("compaction_bench: %s, CUB %d, THRUST %d; ratio = roofline time / call time; median of %d\n", prop.name,
              CUB_VERSION, THRUST_VERSION, reps);
  std::vector<row> rows;
  run_type<std::int32_t>("int32", reps, max_log2, rows, prop.multiProcessorCount);
  run_type<std::int64_t>("int64", reps, max_log2, rows, prop.multiProcessorCount);

  std::printf("\n| type | form | n | run | spscan ms | thrust ms | cub + count read ms | cub ms | spscan ratio | vs thrust | "
              "vs cub + count read | vs cub | check |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_exact = true;
  double slowest_vs_thrust = 1e9, slowest_vs_cub_read = 1e9;
  for (const row& r : rows)
  {
    all_exact &= r.exact;
    slowest_vs_thrust = std::min(slowest_vs_thrust, r.thrust_ms / r.spscan_ms);
    const bool has_cub = r.cub_ms > 0;
    if (has_cub)
    {
      slowest_vs_cub_read = std::min(slowest_vs_cub_read, r.cub_read_ms / r.spscan_ms);
    }
    char cub_cells[96] = "| - | - ";
    char cub_ratios[64] = "| - | - ";
    if (has_cub)
    {
      std::snprintf(cub_cells, sizeof(cub_cells), "| %.4f | %.4f ", r.cub_read_ms, r.cub_ms);
      std::snprintf(cub_ratios, sizeof(cub_ratios), "| %.2fx | %.2fx ", r.cub_read_ms / r.spscan_ms, r.cub_ms / r.spscan_ms);
    }
    std::printf("| %s | %s | 2^%d | %d | %.4f | %.4f %s| %.3f | %.2fx %s| %s |\n", r.type, r.form, r.log2n, r.run,
                r.spscan_ms, r.thrust_ms, cub_cells, r.roofline_ms / r.spscan_ms, r.thrust_ms / r.spscan_ms, cub_ratios,
                r.exact ? "exact" : "WRONG");
  }
  std::printf("summary: compaction checks %s; slowest spscan against Thrust: %.2fx, against CUB with its count read back: %.2fx\n",
              all_exact ? "all exact" : "FAILED", slowest_vs_thrust, slowest_vs_cub_read);
  return all_exact ? 0 : 1;
}

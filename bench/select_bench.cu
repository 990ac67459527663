// Stream compaction: spscan's selection program (called as its kernel route calls it, the default
// route of spscan::copy_if: detail/select.inl) against cub::DeviceSelect::If (temporary storage
// allocated before timing) and thrust::copy_if, int8, int16, int32 and int64, 2^16 to 2^28 elements, 1%, 50% and 99% of
// the elements selected. The roofline is the traffic of the call, a read of the input and a write
// of the selected part: a device-to-device copy of (1 + s) / 2 of the input's bytes moves as many.
// Ratio = roofline time / call time (1.0: as fast as the memory allows). Every output and count
// is checked against CUB's. CUDA events, median of --reps after warm-up; spscan and Thrust through
// par_nosync with a caching allocator, so that no allocation is timed (both wait for the count:
// it is the call's result). CUB is timed three ways: its kernel alone (the count left on the
// device); waited for (its kernel, then a stream synchronization: the least any call that returns
// its count to the host pays, so CUB's kernel alone against this is the most such a call can reach
// against that kernel); and as a copy_if caller uses it, with the count read back
// (cudaMemcpyAsync to the host, then a stream synchronization). A second table times the other
// forms (copy_if with a stencil, remove_copy_if, partition_copy) beside Thrust's same calls.
static const char* bench_name = "select_bench";

#include "bench_support.h"

#include <spscan/copy.h>

#include <spscan/partition.h>
#include <spscan/remove.h>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/pair.h>
#include <thrust/partition.h>
#include <thrust/remove.h>

#include <cub/device/device_select.cuh>

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
  int log2n;
  int permille;
  double spscan_ms, cub_ms, thrust_ms, roofline_ms, cub_sync_ms, cub_read_ms;
  bool exact;
};

template <class T>
void run_type(const char* type, int reps, int max_log2, std::vector<row>& rows, int sm_count)
{
  const std::size_t max_n = std::size_t{1} << max_log2;
  device_array<T> in(max_n), out(max_n), reference(max_n), copy_target(max_n);
  device_array<std::int64_t> cub_count(1);
  fill_hashed<<<grid_for(max_n, sm_count), 256>>>(in.get(), max_n, 77);
  CHECK_CUDA(cudaDeviceSynchronize());
  caching_allocator alloc;
  event_timer timer;
  for (int log2n = 16; log2n <= max_log2; log2n += 2)
  {
    const std::size_t n = std::size_t{1} << log2n;
    for (int permille : {10, 500, 990})
    {
      const below_permille<T> pred{static_cast<unsigned>(permille)};
      std::size_t temp_bytes = 0;
      CHECK_CUDA(cub::DeviceSelect::If(nullptr, temp_bytes, in.get(), reference.get(), cub_count.get(), n, pred, bench_stream));
      device_array<unsigned char> temp(temp_bytes);
      const auto cub_call = [&] {
        CHECK_CUDA(cub::DeviceSelect::If(temp.get(), temp_bytes, in.get(), reference.get(), cub_count.get(), n, pred, bench_stream));
      };
      const auto cub_sync_call = [&] {
        cub_call();
        CHECK_CUDA(cudaStreamSynchronize(bench_stream));
      };
      std::int64_t read_back = 0;
      const auto cub_read_call = [&] {
        cub_call();
        CHECK_CUDA(cudaMemcpyAsync(&read_back, cub_count.get(), sizeof(read_back), cudaMemcpyDeviceToHost, bench_stream));
        CHECK_CUDA(cudaStreamSynchronize(bench_stream));
      };
      cub_call();
      std::int64_t expected = 0;
      CHECK_CUDA(cudaMemcpy(&expected, cub_count.get(), sizeof(expected), cudaMemcpyDeviceToHost));

      T* spscan_end = nullptr;
      auto policy   = thrust::cuda::par_nosync(alloc).on(bench_stream);
      const auto spscan_call = [&] { // the selection program, as its kernel route calls it (select.inl)
        spscan_end = spscan::detail::copy_if_on_kernel::launch(policy, in.get(), in.get() + n, out.get(), pred);
      };
      CHECK_CUDA(cudaMemset(out.get(), 0xab, n * sizeof(T)));
      spscan_call();
      CHECK_CUDA(cudaDeviceSynchronize());
      const bool count_ok = spscan_end - out.get() == expected;
      const auto compared = compare_on_device(out.get(), reference.get(), static_cast<std::size_t>(expected), sm_count);

      const auto thrust_call = [&] {
        thrust::copy_if(thrust::cuda::par_nosync(alloc).on(bench_stream), in.get(), in.get() + n, copy_target.get(), pred);
      };
      const std::size_t roofline_bytes = static_cast<std::size_t>((n + static_cast<std::size_t>(expected)) * sizeof(T) / 2);
      const auto roofline_call = [&] {
        CHECK_CUDA(cudaMemcpyAsync(copy_target.get(), in.get(), roofline_bytes, cudaMemcpyDeviceToDevice, bench_stream));
      };
      const int warmups = 3;
      row r{type, log2n, permille, 0, 0, 0, 0, 0, 0, count_ok && compared.passed};
      r.spscan_ms   = timer.median_ms(spscan_call, warmups, reps);
      r.cub_ms      = timer.median_ms(cub_call, warmups, reps);
      r.thrust_ms   = timer.median_ms(thrust_call, warmups, reps);
      r.roofline_ms = timer.median_ms(roofline_call, warmups, reps);
      r.cub_sync_ms = timer.median_ms(cub_sync_call, warmups, reps);
      r.cub_read_ms = timer.median_ms(cub_read_call, warmups, reps);
      rows.push_back(r);
    }
  }
}

// The other forms of the selection program's kernel route beside Thrust's same call: copy_if with a
// stencil, remove_copy_if, partition_copy (int32, half selected); each output checked against
// Thrust's. Stencils and partition_copy's second output run on the classic engine.
struct form_row
{
  const char* form;
  int log2n;
  double spscan_ms, thrust_ms;
  bool exact;
};

void run_forms(int reps, int max_log2, std::vector<form_row>& rows, int sm_count)
{
  using T                 = std::int32_t;
  const std::size_t max_n = std::size_t{1} << max_log2;
  device_array<T> in(max_n), decider(max_n), ours(max_n), theirs(max_n), ours_rejected(max_n), theirs_rejected(max_n);
  fill_hashed<<<grid_for(max_n, sm_count), 256>>>(in.get(), max_n, 77);
  fill_hashed<<<grid_for(max_n, sm_count), 256>>>(decider.get(), max_n, 91);
  CHECK_CUDA(cudaDeviceSynchronize());
  caching_allocator alloc;
  event_timer timer;
  const below_permille<T> pred{500};
  for (int log2n : {16, 20, 24, 28})
  {
    if (log2n > max_log2)
    {
      break;
    }
    const std::size_t n = std::size_t{1} << log2n;
    auto policy         = thrust::cuda::par_nosync(alloc).on(bench_stream);
    const auto thrust_policy = [&] { return thrust::cuda::par_nosync(alloc).on(bench_stream); };
    const auto same = [&](const T* a_end, const T* b_end, const T* a, const T* b) {
      return a_end - a == b_end - b && compare_on_device(a, b, static_cast<std::size_t>(a_end - a), sm_count).passed;
    };
    const int warmups = 3;
    // Runs both calls once, checks them, then times each.
    const auto time_form = [&](const char* form, auto&& spscan_call, auto&& thrust_call, auto&& exact) {
      spscan_call();
      thrust_call();
      CHECK_CUDA(cudaDeviceSynchronize());
      form_row r{form, log2n, 0, 0, exact()};
      r.spscan_ms = timer.median_ms(spscan_call, warmups, reps);
      r.thrust_ms = timer.median_ms(thrust_call, warmups, reps);
      rows.push_back(r);
    };
    T* got  = nullptr;
    T* want = nullptr;
    time_form(
      "copy_if, stencil",
      [&] { got = spscan::detail::copy_if_on_kernel::launch(policy, in.get(), in.get() + n, decider.get(), ours.get(), pred); },
      [&] { want = thrust::copy_if(thrust_policy(), in.get(), in.get() + n, decider.get(), theirs.get(), pred); },
      [&] { return same(got, want, ours.get(), theirs.get()); });
    time_form(
      "remove_copy_if",
      [&] { got = spscan::detail::remove_copy_if_on_kernel::launch(policy, in.get(), in.get() + n, ours.get(), pred); },
      [&] { want = thrust::remove_copy_if(thrust_policy(), in.get(), in.get() + n, theirs.get(), pred); },
      [&] { return same(got, want, ours.get(), theirs.get()); });
    thrust::pair<T*, T*> got_pair{}, want_pair{};
    time_form(
      "partition_copy",
      [&] {
        got_pair =
          spscan::detail::partition_copy_on_kernel::launch(policy, in.get(), in.get() + n, ours.get(), ours_rejected.get(), pred);
      },
      [&] {
        want_pair = thrust::partition_copy(thrust_policy(), in.get(), in.get() + n, theirs.get(), theirs_rejected.get(), pred);
      },
      [&] {
        return same(got_pair.first, want_pair.first, ours.get(), theirs.get())
            && same(got_pair.second, want_pair.second, ours_rejected.get(), theirs_rejected.get());
      });
  }
}

} // namespace

int main(int argc, char** argv)
{
  int reps     = 15;
  int max_log2 = 28; // --max-log2: the largest size, even, 16 to 28 (a shorter run for A/B probes)
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-log2")) max_log2 = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (max_log2 < 16 || max_log2 > 28 || max_log2 % 2 != 0)
  {
    fail("--max-log2 takes an even number from 16 to 28");
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("select_bench: %s, CUB %d, copy_if of int8, int16, int32 and int64; ratio = roofline time / call time; median of %d\n",
              prop.name, CUB_VERSION, reps);
  std::vector<row> rows;
  run_type<std::int8_t>("int8", reps, max_log2, rows, prop.multiProcessorCount);
  run_type<std::int16_t>("int16", reps, max_log2, rows, prop.multiProcessorCount);
  run_type<std::int32_t>("int32", reps, max_log2, rows, prop.multiProcessorCount);
  run_type<std::int64_t>("int64", reps, max_log2, rows, prop.multiProcessorCount);

  std::printf("\n| type | n | selected | spscan ms | cub ms | thrust ms | spscan ratio | cub ratio | vs cub | vs thrust | "
              "cub + sync ms | vs cub + sync | cub + count read ms | vs cub + count read | check |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_exact = true;
  double slowest_vs_cub      = 1e9; // every size in the table (from 2^16)
  double slowest_vs_cub_sync = 1e9;
  double slowest_vs_cub_read = 1e9;
  double waited_least = 1e9, waited_most = 0; // CUB's kernel alone against itself waited for, 2^16-2^22
  for (const row& r : rows)
  {
    all_exact &= r.exact;
    slowest_vs_cub      = std::min(slowest_vs_cub, r.cub_ms / r.spscan_ms);
    slowest_vs_cub_sync = std::min(slowest_vs_cub_sync, r.cub_sync_ms / r.spscan_ms);
    slowest_vs_cub_read = std::min(slowest_vs_cub_read, r.cub_read_ms / r.spscan_ms);
    if (r.log2n <= 22)
    {
      waited_least = std::min(waited_least, r.cub_ms / r.cub_sync_ms);
      waited_most  = std::max(waited_most, r.cub_ms / r.cub_sync_ms);
    }
    std::printf("| %s | 2^%d | %.0f%% | %.4f | %.4f | %.4f | %.3f | %.3f | %.2fx | %.2fx | %.4f | %.2fx | %.4f | %.2fx | %s |\n", r.type,
                r.log2n, r.permille / 10.0, r.spscan_ms, r.cub_ms, r.thrust_ms, r.roofline_ms / r.spscan_ms,
                r.roofline_ms / r.cub_ms, r.cub_ms / r.spscan_ms, r.thrust_ms / r.spscan_ms, r.cub_sync_ms,
                r.cub_sync_ms / r.spscan_ms, r.cub_read_ms, r.cub_read_ms / r.spscan_ms, r.exact ? "exact" : "WRONG");
  }
  std::printf("summary: select checks %s; slowest spscan against CUB from 2^16: %.2fx (goal >= 1.1x), against CUB waited "
              "for: %.2fx, against CUB with its count read back: %.2fx\n",
              all_exact ? "all exact" : "FAILED", slowest_vs_cub, slowest_vs_cub_sync, slowest_vs_cub_read);
  std::printf("waited-for bound: CUB's kernel alone / the same kernel waited for, 2^16-2^22: %.2f-%.2fx (what a call "
              "that returns its count can reach against CUB's kernel alone, were its own kernel as fast as CUB's)\n",
              waited_least, waited_most);

  std::vector<form_row> forms;
  run_forms(reps, max_log2, forms, prop.multiProcessorCount);
  std::printf("\nselection forms (int32, 50%% selected) against Thrust's same call:\n");
  std::printf("\n| form | n | spscan ms | thrust ms | vs thrust | check |\n");
  std::printf("|---|---|---|---|---|---|\n");
  bool forms_exact    = true;
  double slowest_form = 1e9;
  for (const form_row& r : forms)
  {
    forms_exact &= r.exact;
    slowest_form = std::min(slowest_form, r.thrust_ms / r.spscan_ms);
    std::printf("| %s | 2^%d | %.4f | %.4f | %.2fx | %s |\n", r.form, r.log2n, r.spscan_ms, r.thrust_ms,
                r.thrust_ms / r.spscan_ms, r.exact ? "exact" : "WRONG");
  }
  std::printf("forms summary: checks %s; slowest against Thrust: %.2fx\n", forms_exact ? "all exact" : "FAILED", slowest_form);
  return all_exact && forms_exact ? 0 : 1;
}

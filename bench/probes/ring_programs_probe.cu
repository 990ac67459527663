// Probe: the programs beside the plain scan on the ring engine, against the classic engine, CUB
// (temporary storage preallocated, its kernels alone) and the memory roofline, in one run:
//  - selection (copy_if) of int32 and int64 at 1%, 50% and 99% selected; roofline: a copy of
//    (1 + s) / 2 of the input's bytes (a read of the input and a write of the selected part);
//  - inclusive sums of inputs that are not raw arrays of the output's type
//    (programs/scan_input.h): a counting_iterator, computed by the reduce squad (roofline: a
//    memset of the output), a transform_iterator over a device array, copied and transformed in
//    the stage (a copy), int8 input into int32 results, copied and widened in the stage (a copy
//    of the 5 bytes per element moved, halved).
// Every ring output is compared with the classic engine's (selection: count and elements).
//
//   ring_programs_probe [--only select|staged] [--min 20] [--max 28] [--quick] [--bulk-stores | --thread-stores] [--stages N]
static const char* bench_name = "ring_programs_probe";
#include "bench_support.h"

#include <spscan/copy.h>
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <string>

using namespace bench;
namespace sd = spscan::detail;

namespace
{

int failures = 0;

struct options
{
  std::string only;
  int min_log2 = 20;
  int max_log2 = 28;
  bool quick   = false;
  int stores = -1; // staged: 1 the copy engine stores the tiles, 0 the threads; -1 the library's choice
  int stages       = 0; // staged: this many stages (0: the library's choice)
};

// ring: the library's options (one CTA per SM, the deepest ring).
void print_row(const char* what, int log2n, double roofline, double classic, double ring, double cub, bool ok)
{
  std::printf("%-22s 2^%-2d  roofline %9.2f us  classic %.3f  ring %.3f  cub %.3f  ring/classic %.2fx  ring/cub %.2fx  %s\n",
              what, log2n, roofline * 1e3, roofline / classic, roofline / ring, roofline / cub, classic / ring, cub / ring,
              ok ? "exact" : "WRONG");
  std::fflush(stdout);
}

template <class T>
void probe_select(const options& o, const char* type, int sms)
{
  using pred_type = below_permille<T>;
  using program   = sd::select_program_for<false, sd::select_tuning<T>, T*, sd::no_stencil, T*, T*, pred_type>;
  const std::size_t max_n = std::size_t{1} << o.max_log2;
  device_array<T> in(max_n), classic(max_n), ring(max_n), cub_out(max_n), copy_target(max_n);
  device_array<std::uint64_t> totals(2);
  device_array<std::int64_t> cub_count(1);
  fill_hashed<<<grid_for(max_n, sms), 256>>>(in.get(), max_n, 77);
  CHECK_CUDA(cudaDeviceSynchronize());
  auto policy = thrust::cuda::par_nosync.on(bench_stream);
  event_timer timer;
  const rep_plan plan{o.quick ? 2 : 3, o.quick ? 10 : 30, o.quick ? 5 : 15};
  for (int log2n = o.min_log2; log2n <= o.max_log2; log2n += 2)
  {
    const std::size_t n = std::size_t{1} << log2n;
    const int reps      = plan.reps_for(log2n);
    for (const unsigned permille : {10u, 500u, 990u})
    {
      const pred_type pred{permille};
      typename program::params p{in.get(), sd::no_stencil{}, classic.get(), classic.get(), n, pred, totals.get(), true};
      auto q     = p;
      q.selected = ring.get();
      q.rejected = ring.get();
      q.selected_total = totals.get() + 1;
      const auto device  = sd::ring::current_ring_device<program>();
      const auto library = sd::ring::default_ring_options<program>(device);
      bool ring_ran = true;
      const auto run_classic = [&] { sd::launch_single_pass<program>(policy, p, n); };
      const auto run_ring    = [&] { ring_ran = sd::ring::launch_ring<program>(policy, q, n, q.in, nullptr, &library) && ring_ran; };
      std::size_t cub_bytes  = 0;
      CHECK_CUDA(cub::DeviceSelect::If(nullptr, cub_bytes, in.get(), cub_out.get(), cub_count.get(), n, pred, bench_stream));
      device_array<unsigned char> cub_temp(cub_bytes);
      const auto run_cub = [&] {
        CHECK_CUDA(cub::DeviceSelect::If(cub_temp.get(), cub_bytes, in.get(), cub_out.get(), cub_count.get(), n, pred, bench_stream));
      };
      run_classic();
      bool ok = true;
      const auto check = [&](const auto& run) {
        CHECK_CUDA(cudaMemsetAsync(ring.get(), 0xA5, n * sizeof(T), bench_stream));
        run();
        CHECK_CUDA(cudaStreamSynchronize(bench_stream));
        std::uint64_t counts[2] = {0, 0};
        CHECK_CUDA(cudaMemcpy(counts, totals.get(), sizeof(counts), cudaMemcpyDeviceToHost));
        ok = ok && ring_ran && counts[0] == counts[1]
          && compare_on_device(ring.get(), classic.get(), static_cast<std::size_t>(counts[0]), sms).differing == 0;
      };
      check(run_ring);
      std::uint64_t count = 0;
      CHECK_CUDA(cudaMemcpy(&count, totals.get(), sizeof(count), cudaMemcpyDeviceToHost));
      failures += ok ? 0 : 1;
      const std::size_t roofline_bytes = static_cast<std::size_t>((n + count) * sizeof(T) / 2);
      const double roofline = timer.median_ms([&] {
        CHECK_CUDA(cudaMemcpyAsync(copy_target.get(), in.get(), roofline_bytes, cudaMemcpyDeviceToDevice, bench_stream));
      }, plan.warmups, reps);
      char what[48];
      std::snprintf(what, sizeof(what), "select %s %u%%", type, permille / 10);
      print_row(what, log2n, roofline, timer.median_ms(run_classic, plan.warmups, reps), timer.median_ms(run_ring, plan.warmups, reps),
                timer.median_ms(run_cub, plan.warmups, reps), ok);
    }
  }
}

struct times_two_plus_one
{
  __host__ __device__ int operator()(int x) const
  {
    return 2 * x + 1;
  }
};

// Inclusive sums of `first` (n elements of Accum) into `out`: classic, ring, CUB; ring against classic.
template <class Accum, class In>
void probe_staged_sum(const options& o, const char* what, int log2n, In first, Accum* classic, Accum* ring, Accum* cub_out, unsigned char* cub_temp,
                      std::size_t cub_bytes, double roofline, const rep_plan& plan, int sms)
{
  using program       = typename sd::scan_shapes<sd::scan_kind::inclusive, Accum, In, Accum*, thrust::plus<Accum>>::primary;
  const std::size_t n = std::size_t{1} << log2n;
  const int reps      = plan.reps_for(log2n);
  auto policy         = thrust::cuda::par_nosync.on(bench_stream);
  event_timer timer;
  const auto p = sd::make_scan_params<sd::scan_kind::inclusive, Accum>(first, n, classic, thrust::plus<Accum>{}, Accum{});
  auto q       = p;
  q.out        = ring;
  const auto device  = sd::ring::current_ring_device<program>();
  auto library = sd::ring::default_ring_options<program>(device);
  library.stores_by_threads = o.stores < 0 ? library.stores_by_threads : o.stores == 0;
  library.stages            = o.stages > 0 ? o.stages : library.stages;
  bool ring_ran = true;
  const auto run_classic = [&] { sd::launch_single_pass<program>(policy, p, n); };
  const auto run_ring    = [&] { ring_ran = sd::ring::launch_ring<program>(policy, q, n, program::ring_source(q), q.out, &library) && ring_ran; };
  const auto run_cub     = [&] {
    std::size_t bytes = cub_bytes;
    CHECK_CUDA(cub::DeviceScan::InclusiveScan(cub_temp, bytes, first, cub_out, thrust::plus<Accum>{}, n, bench_stream));
  };
  run_classic();
  bool ok = true;
  const auto check = [&](const auto& run) {
    CHECK_CUDA(cudaMemsetAsync(ring, 0xA5, n * sizeof(Accum), bench_stream));
    run();
    ok = ok && ring_ran && compare_on_device(ring, classic, n, sms).differing == 0;
  };
  check(run_ring);
  failures += ok ? 0 : 1;
  print_row(what, log2n, roofline, timer.median_ms(run_classic, plan.warmups, reps), timer.median_ms(run_ring, plan.warmups, reps),
            timer.median_ms(run_cub, plan.warmups, reps), ok);
}

void probe_staged(const options& o, int sms)
{
  const std::size_t max_n = std::size_t{1} << o.max_log2;
  device_array<int> in(max_n), classic(max_n), ring(max_n), cub_out(max_n);
  device_array<std::int8_t> bytes_in(max_n);
  fill_hashed<<<grid_for(max_n, sms), 256>>>(in.get(), max_n, 5);
  fill_hashed<<<grid_for(max_n, sms), 256>>>(bytes_in.get(), max_n, 6);
  CHECK_CUDA(cudaDeviceSynchronize());
  const thrust::counting_iterator<int> counting(0);
  const auto transformed = thrust::make_transform_iterator(static_cast<const int*>(in.get()), times_two_plus_one{});
  const std::int8_t* narrow = bytes_in.get();
  std::size_t cub_bytes = 0, more = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveScan(nullptr, cub_bytes, counting, cub_out.get(), thrust::plus<int>{}, max_n));
  CHECK_CUDA(cub::DeviceScan::InclusiveScan(nullptr, more, transformed, cub_out.get(), thrust::plus<int>{}, max_n));
  cub_bytes = std::max(cub_bytes, more);
  CHECK_CUDA(cub::DeviceScan::InclusiveScan(nullptr, more, narrow, cub_out.get(), thrust::plus<int>{}, max_n));
  cub_bytes = std::max(cub_bytes, more);
  device_array<unsigned char> cub_temp(cub_bytes);
  event_timer timer;
  const rep_plan plan{o.quick ? 2 : 3, o.quick ? 10 : 30, o.quick ? 5 : 15};
  for (int log2n = o.min_log2; log2n <= o.max_log2; log2n += 2)
  {
    const std::size_t n = std::size_t{1} << log2n;
    const int reps      = plan.reps_for(log2n);
    const double memset = timer.median_ms([&] {
      CHECK_CUDA(cudaMemsetAsync(cub_out.get(), 0, n * sizeof(int), bench_stream));
    }, plan.warmups, reps);
    const double copy = timer.median_ms([&] {
      CHECK_CUDA(cudaMemcpyAsync(cub_out.get(), in.get(), n * sizeof(int), cudaMemcpyDeviceToDevice, bench_stream));
    }, plan.warmups, reps);
    const double narrow_copy = timer.median_ms([&] {
      CHECK_CUDA(cudaMemcpyAsync(cub_out.get(), in.get(), n * 5 / 2, cudaMemcpyDeviceToDevice, bench_stream));
    }, plan.warmups, reps);
    probe_staged_sum<int>(o, "counting int32", log2n, counting, classic.get(), ring.get(), cub_out.get(), cub_temp.get(), cub_bytes, memset, plan, sms);
    probe_staged_sum<int>(o, "transform int32", log2n, transformed, classic.get(), ring.get(), cub_out.get(), cub_temp.get(), cub_bytes, copy, plan, sms);
    probe_staged_sum<int>(o, "int8 into int32", log2n, narrow, classic.get(), ring.get(), cub_out.get(), cub_temp.get(), cub_bytes, narrow_copy, plan, sms);
  }
}

} // namespace

int main(int argc, char** argv)
{
  options o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--min" && i + 1 < argc) o.min_log2 = std::atoi(argv[++i]);
    else if (a == "--max" && i + 1 < argc) o.max_log2 = std::atoi(argv[++i]);
    else if (a == "--quick") o.quick = true;
    else if (a == "--bulk-stores") o.stores = 1;
    else if (a == "--thread-stores") o.stores = 0;
    else if (a == "--stages" && i + 1 < argc) o.stages = std::atoi(argv[++i]);
    else fail("unknown argument " + a);
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("ring_programs_probe: %s; ratio = roofline time / time (selection: copy of (1+s)/2 of the input; "
              "counting: memset of the output; transform: copy; int8 into int32: copy of 5/2 bytes per element)\n",
              prop.name);
  if (o.only.empty() || o.only == "select")
  {
    probe_select<std::int32_t>(o, "int32", prop.multiProcessorCount);
    probe_select<std::int64_t>(o, "int64", prop.multiProcessorCount);
  }
  if (o.only.empty() || o.only == "staged")
  {
    probe_staged(o, prop.multiProcessorCount);
  }
  std::printf("ring_programs_probe: %d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}

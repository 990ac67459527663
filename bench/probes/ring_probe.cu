// Probe: the ring engine (persistent CTAs, a ring of bulk-copied stages, a running prefix) beside
// the classic single-pass engine, CUB's DeviceScan (temporary storage preallocated) and a copy,
// in one run. Every ring result is compared bit for bit with the classic engine's (same tile
// shape, so the same association), integers also with a sequential host fold.
//
//   ring_probe [--types int32,float,...] [--min 10] [--max 30] [--quick]
// Prints one row per (type, size): ratio to copy of classic, ring, CUB, and ring / best other.
static const char* bench_name = "ring_probe";
#include "bench_support.h"

#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cub/device/device_scan.cuh>

#include <sstream>

using namespace bench;
namespace sd = spscan::detail;

// Floats with full mantissas, so that sums round and any change of association shows in the bits.
template <class T>
__global__ void fill_rounding(T* out, std::size_t n, std::uint64_t seed)
{
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
  {
    const std::uint64_t bits = hash_index(seed ^ (i * 0xd1b54a32d192ed03ull));
    if constexpr (std::is_floating_point_v<T>)
    {
      out[i] = static_cast<T>(static_cast<double>(bits >> 11) * 0x1.0p-53 - 0.25);
    }
    else
    {
      out[i] = static_cast<T>(bits % 8);
    }
  }
}

template <class T>
struct tname;
#define TNAME(T, s)                        \
  template <>                              \
  struct tname<T>                          \
  {                                        \
    static constexpr const char* name = s; \
  };
TNAME(std::int8_t, "int8") TNAME(std::int16_t, "int16") TNAME(std::int32_t, "int32") TNAME(std::int64_t, "int64")
TNAME(float, "float") TNAME(double, "double")

struct options
{
  std::string types = "int8,int16,int32,float,int64,double";
  int min_log2      = 10;
  int max_log2      = 30;
  bool quick        = false;
  bool variants     = false; // also time every ring depth and store mode
};

int sm_count()
{
  int device = 0, sms = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

int failures = 0;

template <class T>
void run_type(const options& o)
{
  using program = sd::scan_program_for<sd::scan_kind::inclusive, T, sd::scan_tuning<T, T, T>, T*, T*, thrust::plus<T>>;
  const int sms = sm_count();
  const std::size_t max_n = std::size_t{1} << o.max_log2;
  device_array<T> in(max_n + 4096), classic(max_n + 4096), ring(max_n + 4096), cub_out(max_n + 4096);
  fill_rounding<<<1024, 256>>>(in.get(), max_n + 4096, 12345);
  CHECK_CUDA(cudaGetLastError());
  auto policy = thrust::cuda::par_nosync.on(bench_stream);
  event_timer timer;
  const rep_plan plan{o.quick ? 2 : 5, o.quick ? 10 : 40, o.quick ? 5 : 15};

  std::size_t cub_bytes = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in.get(), cub_out.get(), max_n));
  device_array<unsigned char> cub_temp(cub_bytes);

  for (int log2n = o.min_log2; log2n <= o.max_log2; log2n += (o.quick ? 2 : 1))
  {
    // 2^k, and an odd size with a partial last tile below it
    for (const std::size_t n : {std::size_t{1} << log2n, (std::size_t{1} << log2n) - 777})
    {
      const bool timed = n == (std::size_t{1} << log2n);
      const auto params = sd::make_scan_params<sd::scan_kind::inclusive, T>(in.get(), n, ring.get(), thrust::plus<T>{}, T{});
      auto classic_params = params;
      classic_params.out  = classic.get();
      auto run_classic = [&] { sd::launch_single_pass<program>(policy, classic_params, n); };
      bool ring_ran    = true;
      // The ring in the device's default options at every size (the library takes it only from
      // ring_min_bytes), and the library's own route (the "spscan" column).
      const sd::ring::ring_options deepest = sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>());
      auto run_ring = [&] { ring_ran = sd::ring::launch_ring<program>(policy, params, n, in.get(), ring.get(), &deepest) && ring_ran; };
      auto run_library = [&] { spscan::inclusive_scan(policy, in.get(), in.get() + n, classic.get()); };
      CHECK_CUDA(cudaMemsetAsync(ring.get(), 0xA5, n * sizeof(T), bench_stream));
      CHECK_CUDA(cudaMemsetAsync(classic.get(), 0x5A, n * sizeof(T), bench_stream));
      run_classic();
      run_ring();
      CHECK_CUDA(cudaStreamSynchronize(bench_stream));
      CHECK_CUDA(cudaGetLastError());
      // One tile: the ring declines (the classic engine's single-CTA launch takes it).
      const check_outcome same = ring_ran ? compare_on_device(ring.get(), classic.get(), n, sms) : check_outcome{true, 0, 0, 0};
      bool ok = same.differing == 0;
      if (ring_ran && std::is_integral_v<T> && n <= (std::size_t{1} << 24))
      {
        std::vector<T> h_in(n), h_out(n);
        CHECK_CUDA(cudaMemcpy(h_in.data(), in.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(h_out.data(), ring.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
        T acc{};
        for (std::size_t i = 0; i < n; ++i)
        {
          acc = static_cast<T>(acc + h_in[i]);
          if (h_out[i] != acc)
          {
            ok = false;
            std::printf("  %s n=%zu: ring[%zu] = %lld, sequential %lld\n", tname<T>::name, n, i, (long long) h_out[i], (long long) acc);
            break;
          }
        }
      }
      if (!ok)
      {
        ++failures;
        std::printf("FAIL %s n=%zu: %llu elements differ from the classic engine (first %llu); ring ran: %d\n",
                    tname<T>::name, n, same.differing, same.first_differing, int(ring_ran));
      }
      if (!timed)
      {
        continue;
      }
      const int reps   = plan.reps_for(log2n);
      const double copy = timer.median_ms([&] {
        CHECK_CUDA(cudaMemcpyAsync(classic.get(), in.get(), n * sizeof(T), cudaMemcpyDeviceToDevice, bench_stream));
      }, plan.warmups, reps);
      const double t_classic = timer.median_ms(run_classic, plan.warmups, reps);
      const double t_ring    = timer.median_ms(run_ring, plan.warmups, reps);
      const double t_cub     = timer.median_ms([&] {
        std::size_t bytes = cub_bytes;
        CHECK_CUDA(cub::DeviceScan::InclusiveSum(cub_temp.get(), bytes, in.get(), cub_out.get(), n, bench_stream));
      }, plan.warmups, reps);
      // The ring's other options, where asked: the other store mode, and shallower rings.
      std::string variants;
      if (o.variants && ring_ran)
      {
        const int deepest = sd::ring::current_ring_device<program>().stages;
        for (int stages = deepest; stages >= sd::ring::min_stages; --stages)
        {
          for (const bool by_threads : {false, true})
          {
            const sd::ring::ring_options forced{stages, by_threads};
            auto run_forced = [&] { sd::ring::launch_ring<program>(policy, params, n, in.get(), ring.get(), &forced); };
            CHECK_CUDA(cudaMemsetAsync(ring.get(), 0xA5, n * sizeof(T), bench_stream));
            run_forced();
            const check_outcome again = compare_on_device(ring.get(), classic.get(), n, sms);
            if (again.differing != 0)
            {
              ++failures;
              std::printf("FAIL %s n=%zu stages %d %s: %llu elements differ\n", tname<T>::name, n, stages,
                          by_threads ? "threads" : "bulk", again.differing);
            }
            char cell[64];
            std::snprintf(cell, sizeof(cell), "  %d%s %.3f", stages, by_threads ? "t" : "b",
                          copy / timer.median_ms(run_forced, plan.warmups, reps));
            variants += cell;
          }
        }
      }
      const double t_library  = timer.median_ms(run_library, plan.warmups, reps);
      const double best_other = std::min(t_classic, t_cub);
      std::printf("%-6s 2^%-2d  copy %9.2f us  classic %.3f  ring %.3f  spscan %.3f  cub %.3f  ring/best %.2fx  ring/cub %.2fx%s%s\n",
                  tname<T>::name, log2n, copy * 1e3, copy / t_classic, copy / t_ring, copy / t_library, copy / t_cub, best_other / t_ring,
                  t_cub / t_ring, ring_ran ? "" : "  (ring declined)", variants.c_str());
      std::fflush(stdout);
    }
  }
}

int main(int argc, char** argv)
{
  options o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--types" && i + 1 < argc) o.types = argv[++i];
    else if (a == "--min" && i + 1 < argc) o.min_log2 = std::atoi(argv[++i]);
    else if (a == "--max" && i + 1 < argc) o.max_log2 = std::atoi(argv[++i]);
    else if (a == "--quick") o.quick = true;
    else if (a == "--variants") o.variants = true;
    else fail("unknown argument " + a);
  }
  std::stringstream list(o.types);
  for (std::string t; std::getline(list, t, ',');)
  {
    if (t == "int8") run_type<std::int8_t>(o);
    else if (t == "int16") run_type<std::int16_t>(o);
    else if (t == "int32") run_type<std::int32_t>(o);
    else if (t == "int64") run_type<std::int64_t>(o);
    else if (t == "float") run_type<float>(o);
    else if (t == "double") run_type<double>(o);
    else fail("unknown type " + t);
  }
  std::printf("ring_probe: %d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}

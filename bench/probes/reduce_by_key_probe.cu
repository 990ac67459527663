// reduce_by_key_probe: one cell of reduce_by_key_bench taken apart. The program (as the plan's
// primary shape builds it) on the classic engine and on the ring, for one pair of key and value
// types, one size and one run length, beside a device-to-device copy of the bytes the call must
// move (its keys and values read, a key and a fold a run written); the two engines' counts and
// outputs compared. Small enough to run under a profiler, one kernel a launch:
//   ncu --clock-control none -k regex:reduce_by_key_program reduce_by_key_probe --reps 1
//
//   reduce_by_key_probe [--types i32 | i64] [--log2 24] [--run 1024] [--reps 20]
//   i32: int32 keys and values; i64: int64 keys, double values
static const char* bench_name = "reduce_by_key_probe";
#include "bench_support.h"

#include <spscan/reduce.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#include <cstdlib>
#include <cstring>
#include <string>

using namespace bench;
namespace sd = spscan::detail;

namespace
{

struct options
{
  std::string types = "i64";
  int log2n         = 24;
  std::size_t run   = 1024;
  int reps          = 20;
};

template <class K, class V>
int probe(const options& o, int sms)
{
  using plan    = sd::reduce_by_key_plan<V, const K*, const V*, K*, V*, thrust::equal_to<K>, thrust::plus<V>>;
  using program = typename plan::shapes::primary;
  const std::size_t n = std::size_t{1} << o.log2n;
  device_array<K> keys(n), classic_keys(n), ring_keys(n);
  device_array<V> values(n), classic_folds(n), ring_folds(n);
  device_array<std::uint64_t> totals(2);
  fill_runs<<<grid_for(n, sms), 256>>>(keys.get(), n, o.run, 5);
  fill_hashed<<<grid_for(n, sms), 256>>>(values.get(), n, 6);
  CHECK_CUDA(cudaDeviceSynchronize());
  auto policy = thrust::cuda::par_nosync.on(bench_stream);
  typename program::params p{keys.get(), values.get(), classic_keys.get(), classic_folds.get(), n,
                             thrust::equal_to<K>{}, thrust::plus<V>{}, totals.get(), true, true};
  auto q          = p;
  q.keys_out      = ring_keys.get();
  q.values_out    = ring_folds.get();
  q.runs_total    = totals.get() + 1;
  const auto ring_options = sd::ring::default_ring_options<program>(sd::ring::current_ring_device<program>());
  bool ring_ran           = program::runs_on_ring;
  const auto run_classic  = [&] { sd::launch_single_pass<program>(policy, p, n); };
  const auto run_ring     = [&] {
    if constexpr (program::runs_on_ring)
    {
      ring_ran = sd::ring::launch_ring<program>(policy, q, n, q.values, nullptr, &ring_options) && ring_ran;
    }
  };
  run_classic();
  run_ring();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::uint64_t counts[2] = {0, 0};
  CHECK_CUDA(cudaMemcpy(counts, totals.get(), sizeof(counts), cudaMemcpyDeviceToHost));
  const std::size_t runs = static_cast<std::size_t>(counts[0]);
  const bool same = !ring_ran
                 || (counts[0] == counts[1] && compare_on_device(ring_keys.get(), classic_keys.get(), runs, sms).differing == 0
                     && compare_on_device(ring_folds.get(), classic_folds.get(), runs, sms).differing == 0);
  event_timer timer;
  const int warmups       = o.reps > 1 ? 3 : 0;
  const std::size_t moved = n * (sizeof(K) + sizeof(V)) + runs * (sizeof(K) + sizeof(V));
  device_array<unsigned char> copy_source(moved / 2), copy_target(moved / 2);
  const double copy_ms = timer.median_ms([&] {
    CHECK_CUDA(cudaMemcpyAsync(copy_target.get(), copy_source.get(), moved / 2, cudaMemcpyDeviceToDevice, bench_stream));
  }, warmups, o.reps);
  const double classic_ms = timer.median_ms(run_classic, warmups, o.reps);
  const double ring_ms    = ring_ran ? timer.median_ms(run_ring, warmups, o.reps) : 0.0;
  std::printf("%s 2^%d runs of %zu: %zu runs; copy of the traffic %.4f ms; classic %.4f ms (%.3f of the copy); ring %s%.4f ms (%.3f); engines %s\n",
              o.types.c_str(), o.log2n, o.run, runs, copy_ms, classic_ms, copy_ms / classic_ms, ring_ran ? "" : "(not run) ",
              ring_ms, ring_ran ? copy_ms / ring_ms : 0.0, same ? "agree" : "DIFFER");
  return same ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
  options o;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    if (!std::strcmp(argv[i], "--types")) o.types = argv[i + 1];
    else if (!std::strcmp(argv[i], "--log2")) o.log2n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--run")) o.run = static_cast<std::size_t>(std::atoll(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--reps")) o.reps = std::atoi(argv[i + 1]);
    else fail(std::string("unknown option ") + argv[i]);
  }
  if (o.log2n < 10 || o.log2n > 30 || o.run == 0 || o.reps < 1 || (o.types != "i32" && o.types != "i64"))
  {
    fail("usage: reduce_by_key_probe [--types i32 | i64] [--log2 10..30] [--run N > 0] [--reps N > 0]");
  }
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return o.types == "i32" ? probe<int, int>(o, sms) : probe<long long, double>(o, sms);
}

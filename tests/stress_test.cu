// Randomized stress of spscan's public scans: thousands of calls that each draw a size (0 to 2^26,
// log-uniform, so most are small and a few are large), an element type, an operator (including
// non-commutative ones), a scan form (inclusive, inclusive with init, exclusive with and without
// init), an execution policy, a stream, misaligned input and output pointers inside larger
// buffers, and in-place or out-of-place operation.
//
// Every call is checked completely:
//   - integers and structs bit for bit against a sequential CPU reference computed in Thrust's
//     accumulator type, and integers also against the same Thrust call;
//   - floats against a long double reference within the bound stated at `float_error_bound`;
//   - the returned iterator is result + n;
//   - 64 bytes before and after the output range still hold the poison byte;
//   - the kernel route served the call, and an allocator attached with par(alloc) saw exactly the
//     calls that need temporary storage (more than one tile) and got all of it back.
//
// Call count: 10^4 by default, sized to take well under a minute on an H100 (most sizes are small;
// about 5-8 * 10^8 elements in all). SPSCAN_STRESS_CALLS overrides it; when only
// SPSCAN_TEST_MAX_ELEMENTS is set (sanitizer runs), the default drops to 300. Sizes never exceed
// SPSCAN_TEST_MAX_ELEMENTS.
#include <spscan/scan.h>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

#include <support/data.h>
#include <support/device_memory.h>
#include <support/gpu.h>
#include <support/noncommutative.h>
#include <support/random.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

namespace
{

// Non-commutative associative operators (support/noncommutative.h) and fast random data
// (support/random.h).
using spscan_test::affine16;
using spscan_test::affine32;
using spscan_test::compose_affine16;
using spscan_test::compose_affine32;
using spscan_test::cuda_check;
using spscan_test::matrix2;
using spscan_test::multiply_matrix2;
using spscan_test::splitmix64;

template <class T>
T nonzero_signed(splitmix64& rng, std::int64_t limit) // uniform in [-limit, limit] \ {0}
{
  std::int64_t v = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(2 * limit))) - limit;
  return static_cast<T>(v >= 0 ? v + 1 : v);
}

// Values never zero. Signed integers stay small enough that no sum of 2^26 + 1 of them overflows
// the accumulator (so the CPU reference has no undefined behaviour); uint32 and the structs use all
// their bits and wrap. Affine multipliers are odd and matrices have an odd determinant, so prefix
// products never collapse to zero and every element keeps influencing every later output.
// Floats: full-mantissa values in [-1/2, 1/2), or with `dyadic` multiples of 2^-8 (see
// float_error_bound).
template <class T>
T random_element(splitmix64& rng, bool dyadic)
{
  if constexpr (std::is_same_v<T, std::int8_t>)
  {
    return nonzero_signed<T>(rng, 7);
  }
  else if constexpr (std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t>)
  {
    return nonzero_signed<T>(rng, 31);
  }
  else if constexpr (std::is_same_v<T, std::int64_t>)
  {
    return nonzero_signed<T>(rng, std::int64_t{1} << 36);
  }
  else if constexpr (std::is_same_v<T, std::uint32_t>)
  {
    const auto v = static_cast<std::uint32_t>(rng.next() >> 32);
    return v ? v : 1u;
  }
  else if constexpr (std::is_floating_point_v<T>)
  {
    if (dyadic)
    {
      return static_cast<T>(nonzero_signed<int>(rng, 128)) / T(256);
    }
    const T v = static_cast<T>(rng.unit() - 0.5);
    return v != T(0) ? v : T(0.25);
  }
  else if constexpr (std::is_same_v<T, affine16>)
  {
    const auto bits = rng.next();
    return {static_cast<std::uint16_t>(bits | 1u), static_cast<std::uint16_t>(bits >> 16)};
  }
  else if constexpr (std::is_same_v<T, affine32>)
  {
    const auto bits = rng.next();
    return {static_cast<std::uint32_t>(bits) | 1u, static_cast<std::uint32_t>(bits >> 32)};
  }
  else
  {
    static_assert(std::is_same_v<T, matrix2>);
    const auto low = rng.next(), high = rng.next();
    return {static_cast<std::uint32_t>(low) | 1u,
            static_cast<std::uint32_t>(low >> 32) & ~1u,
            static_cast<std::uint32_t>(high),
            static_cast<std::uint32_t>(high >> 32) | 1u};
  }
}

// ---------------------------------------------------------------------------------------------
// What a call does.

enum class scan_form
{
  inclusive, // inclusive_scan(exec, first, last, result)
  inclusive_op, // inclusive_scan(exec, first, last, result, op)
  inclusive_init, // inclusive_scan(exec, first, last, result, init, op)
  exclusive_default, // exclusive_scan(exec, first, last, result)            init = T{}
  exclusive_init, // exclusive_scan(exec, first, last, result, init)
  exclusive_init_op, // exclusive_scan(exec, first, last, result, init, op)
};
const char* form_name(scan_form f)
{
  switch (f)
  {
    case scan_form::inclusive: return "inclusive_scan(first, last, result)";
    case scan_form::inclusive_op: return "inclusive_scan(first, last, result, op)";
    case scan_form::inclusive_init: return "inclusive_scan(first, last, result, init, op)";
    case scan_form::exclusive_default: return "exclusive_scan(first, last, result)";
    case scan_form::exclusive_init: return "exclusive_scan(first, last, result, init)";
    case scan_form::exclusive_init_op: return "exclusive_scan(first, last, result, init, op)";
  }
  return "?";
}
bool is_exclusive(scan_form f)
{
  return f == scan_form::exclusive_default || f == scan_form::exclusive_init || f == scan_form::exclusive_init_op;
}

enum class policy_kind
{
  device, // thrust::device (default stream, synchronizes)
  par_on_stream, // thrust::cuda::par.on(s)
  par_nosync_on_stream, // thrust::cuda::par_nosync.on(s), then the test synchronizes s
  par_with_allocator, // thrust::cuda::par(alloc)
  par_with_allocator_on_stream, // thrust::cuda::par(alloc).on(s)
  count
};
const char* policy_name(policy_kind p)
{
  switch (p)
  {
    case policy_kind::device: return "thrust::device";
    case policy_kind::par_on_stream: return "par.on(s)";
    case policy_kind::par_nosync_on_stream: return "par_nosync.on(s)";
    case policy_kind::par_with_allocator: return "par(alloc)";
    case policy_kind::par_with_allocator_on_stream: return "par(alloc).on(s)";
    default: return "?";
  }
}
bool uses_allocator(policy_kind p)
{
  return p == policy_kind::par_with_allocator || p == policy_kind::par_with_allocator_on_stream;
}
bool uses_own_stream(policy_kind p)
{
  return p == policy_kind::par_on_stream || p == policy_kind::par_nosync_on_stream
      || p == policy_kind::par_with_allocator_on_stream;
}

struct call_plan
{
  std::uint64_t index;
  const char* type_name;
  scan_form form;
  policy_kind policy;
  int stream_slot;
  std::size_t n;
  std::size_t in_offset; // elements past a 256-byte aligned base
  std::size_t out_offset;
  bool in_place;
  bool dyadic; // floats only
  std::uint64_t data_seed;
};

std::string describe(const call_plan& p, std::uint64_t run_seed)
{
  std::ostringstream s;
  s << "call " << p.index << " (run seed " << run_seed << ", data seed " << p.data_seed << "): " << p.type_name
    << ' ' << form_name(p.form) << " n=" << p.n << " policy=" << policy_name(p.policy) << " stream slot "
    << p.stream_slot << " in_offset=" << p.in_offset << " out_offset=" << p.out_offset
    << (p.in_place ? " in-place" : " out-of-place") << (p.dyadic ? " dyadic data" : "");
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// The rig: buffers, streams and an allocator shared by all calls.


// An allocator for thrust::cuda::par(alloc) that counts what it hands out and gets back.
struct counting_allocator
{
  using value_type = char;

  std::uint64_t allocations   = 0;
  std::uint64_t deallocations = 0;

  char* allocate(std::ptrdiff_t bytes)
  {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, static_cast<std::size_t>(bytes)), "counting_allocator: cudaMalloc");
    ++allocations;
    return static_cast<char*>(p);
  }
  void deallocate(char* p, std::size_t)
  {
    cuda_check(cudaFree(p), "counting_allocator: cudaFree");
    ++deallocations;
  }
};

constexpr std::size_t base_offset_bytes = 256; // keeps every base 256-byte aligned
constexpr std::size_t guard_bytes       = 64; // checked before and after the output range
constexpr std::size_t largest_element   = 16;
constexpr std::size_t max_offset_elements(std::size_t element_bytes)
{
  return element_bytes == 1 ? 15 : (element_bytes == 2 ? 7 : 3); // 0..15 bytes of int8, etc.
}

class stress_rig
{
public:
  static constexpr int stream_count = 3;

  explicit stress_rig(std::size_t max_n)
      : bytes_(max_n * largest_element + 1024)
  {
    cuda_check(cudaMalloc(&input_, bytes_), "cudaMalloc input");
    cuda_check(cudaMalloc(&output_, bytes_), "cudaMalloc output");
    cuda_check(cudaMalloc(&thrust_output_, bytes_), "cudaMalloc thrust output");
    for (auto& s : streams_)
    {
      cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    }
  }
  ~stress_rig()
  {
    for (auto s : streams_)
    {
      cudaStreamDestroy(s);
    }
    cudaFree(input_);
    cudaFree(output_);
    cudaFree(thrust_output_);
  }
  stress_rig(const stress_rig&)            = delete;
  stress_rig& operator=(const stress_rig&) = delete;

  template <class T>
  T* input(std::size_t offset) const
  {
    return reinterpret_cast<T*>(input_ + base_offset_bytes) + offset;
  }
  template <class T>
  T* output(std::size_t offset) const
  {
    return reinterpret_cast<T*>(output_ + base_offset_bytes) + offset;
  }
  template <class T>
  T* thrust_output() const
  {
    return reinterpret_cast<T*>(thrust_output_ + base_offset_bytes);
  }
  cudaStream_t stream(int slot) const
  {
    return streams_[slot];
  }

  counting_allocator allocator;

private:
  std::size_t bytes_;
  unsigned char* input_         = nullptr;
  unsigned char* output_        = nullptr;
  unsigned char* thrust_output_ = nullptr;
  cudaStream_t streams_[stream_count]{};
};

struct stress_tally
{
  std::uint64_t calls             = 0;
  std::uint64_t mismatching_calls = 0;
  std::uint64_t elements          = 0;
  std::size_t largest             = 0;

  void fail(const call_plan& plan, std::uint64_t run_seed, const std::string& what)
  {
    ++mismatching_calls;
    if (mismatching_calls <= 10) // the first few in full; the count tells the rest
    {
      ADD_FAILURE() << describe(plan, run_seed) << ": " << what;
    }
  }
};

// Calls `body(policy)` with the execution policy the plan names.
template <class Body>
void with_policy(policy_kind kind, cudaStream_t stream, counting_allocator& alloc, Body&& body)
{
  switch (kind)
  {
    case policy_kind::device: body(thrust::device); break;
    case policy_kind::par_on_stream: body(thrust::cuda::par.on(stream)); break;
    case policy_kind::par_nosync_on_stream: body(thrust::cuda::par_nosync.on(stream)); break;
    case policy_kind::par_with_allocator: body(thrust::cuda::par(alloc)); break;
    case policy_kind::par_with_allocator_on_stream: body(thrust::cuda::par(alloc).on(stream)); break;
    default: throw std::logic_error("unknown policy");
  }
}

// The spscan call of `form`, with Thrust's exact overload.
template <class T, class Op, class Policy>
T* spscan_call(const Policy& policy, scan_form form, T* first, std::size_t n, T* result, const T& init, Op op)
{
  constexpr bool plus = std::is_same_v<Op, thrust::plus<>>;
  switch (form)
  {
    case scan_form::inclusive_op: return spscan::inclusive_scan(policy, first, first + n, result, op);
    case scan_form::inclusive_init: return spscan::inclusive_scan(policy, first, first + n, result, init, op);
    case scan_form::exclusive_init_op: return spscan::exclusive_scan(policy, first, first + n, result, init, op);
    default:
      if constexpr (plus)
      {
        switch (form)
        {
          case scan_form::inclusive: return spscan::inclusive_scan(policy, first, first + n, result);
          case scan_form::exclusive_default: return spscan::exclusive_scan(policy, first, first + n, result);
          case scan_form::exclusive_init: return spscan::exclusive_scan(policy, first, first + n, result, init);
          default: break;
        }
      }
      throw std::logic_error("scan form without op for an operator other than thrust::plus");
  }
}

// The same call through Thrust (op-less forms are Thrust's own shorthands for the op forms).
template <class T, class Op>
void thrust_call(cudaStream_t stream, scan_form form, const T* first, std::size_t n, T* result, const T& init, Op op)
{
  const auto policy = thrust::cuda::par.on(stream);
  if (form == scan_form::inclusive || form == scan_form::inclusive_op)
  {
    thrust::inclusive_scan(policy, first, first + n, result, op);
  }
  else if (form == scan_form::inclusive_init)
  {
    thrust::inclusive_scan(policy, first, first + n, result, init, op);
  }
  else
  {
    thrust::exclusive_scan(policy, first, first + n, result, form == scan_form::exclusive_default ? T{} : init, op);
  }
}

// Thrust's accumulator for the form (see accumulator.h): op(init, value) for inclusive with
// init, the input's value type otherwise (every init here has the input's type).
template <class T, class Op>
using init_accumulator = std::decay_t<std::invoke_result_t<Op, T, T>>;

// Sequential reference in the accumulator type, stored as T (as the output iterator stores it).
template <class T, class Op>
std::vector<T> exact_reference(scan_form form, const std::vector<T>& in, const T& init, Op op)
{
  using spscan_test::reference_exclusive;
  using spscan_test::reference_inclusive;
  switch (form)
  {
    case scan_form::inclusive:
    case scan_form::inclusive_op: return reference_inclusive<T>(in, op);
    case scan_form::inclusive_init: {
      using accum = init_accumulator<T, Op>;
      if constexpr (std::is_same_v<accum, T>)
      {
        return reference_inclusive<T>(in, init, op);
      }
      else
      {
        const std::vector<accum> wide = reference_inclusive<accum>(in, init, op);
        return std::vector<T>(wide.begin(), wide.end()); // the same conversion the kernel's store does
      }
    }
    case scan_form::exclusive_default: return reference_exclusive<T>(in, T{}, op);
    default: return reference_exclusive<T>(in, init, op);
  }
}

// Float bound. Each output is a sum of c terms (the init and the inputs it covers) evaluated as
// some binary tree; with unit roundoff u and tree depth d, |computed - exact| <= gamma_d * S,
// gamma_d = d*u / (1 - d*u), S the sum of the terms' magnitudes (the standard error analysis of
// summation in any order). spscan's tree is: each thread's items folded sequentially, a block
// scan (a 5-level warp scan plus a sequential fold over the warps), and the look-back's left fold
// of tile values, one level per tile; so d <= tile + 4*items + 2*warps + 64, and always d <= c.
// The long double reference adds at most c * 2^-64 * S. The factor 1.01 covers gamma_d/(d*u).
// Dyadic data: multiples of 2^-8 whose prefix sums all stay below 2^(mantissa - 9) in magnitude;
// every value any order can form is then a sum of a contiguous range (a difference of two prefix
// sums), exactly representable, so the scan must be exact and the bound is 0.
template <class T, class Tuning>
long double float_error_bound(std::size_t element, std::size_t terms, long double magnitude_sum, bool exact)
{
  if (exact || terms == 0)
  {
    return 0.0L;
  }
  const long double u      = std::numeric_limits<T>::epsilon() / 2;
  const std::size_t tile   = element / static_cast<std::size_t>(Tuning::tile_items);
  const std::size_t levels = tile + 4 * Tuning::items + 2 * (Tuning::threads / 32) + 64;
  const std::size_t depth  = std::min(levels, terms);
  return 1.01L * (static_cast<long double>(depth) * u + static_cast<long double>(terms) * 0x1p-64L) * magnitude_sum;
}

static_assert(std::numeric_limits<long double>::digits >= 64, "the float reference needs an extended long double");

// Checks a floating-point output against the long double reference; returns "" or what is wrong.
template <class T>
std::string check_float_output(scan_form form, const std::vector<T>& in, const T& init, bool dyadic, const T* got)
{
  using tuning = spscan::detail::scan_tuning<T, T, T>; // every float form here accumulates in T
  const bool inclusive = !is_exclusive(form);
  const bool has_init  = form != scan_form::inclusive && form != scan_form::inclusive_op;
  const long double start = has_init && form != scan_form::exclusive_default ? static_cast<long double>(init) : 0.0L;

  bool exact = false;
  if (dyadic)
  {
    long double prefix = start, largest = std::fabs(start);
    for (const T& x : in)
    {
      prefix += x;
      largest = std::max(largest, std::fabs(prefix));
    }
    exact = largest < std::ldexp(1.0L, std::numeric_limits<T>::digits - 9);
  }

  long double sum = start, magnitude = std::fabs(start);
  std::size_t terms = has_init ? 1 : 0; // terms before element 0's own
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    if (inclusive)
    {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
      ++terms;
    }
    const long double error = std::fabs(static_cast<long double>(got[i]) - sum);
    const long double bound = float_error_bound<T, tuning>(i, terms > 0 ? terms - 1 : 0, magnitude, exact);
    if (!(error <= bound)) // also catches NaN
    {
      std::ostringstream s;
      s.precision(std::numeric_limits<long double>::max_digits10);
      s << "element " << i << ": got " << static_cast<long double>(got[i]) << ", reference " << sum << ", error "
        << error << " > bound " << bound << (exact ? " (exact data)" : "");
      return s.str();
    }
    if (!inclusive)
    {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
      ++terms;
    }
  }
  return {};
}

// Bitwise comparison of n elements; returns "" or the first difference.
template <class T>
std::string first_difference(const T* got, const T* expected, std::size_t n, const char* against)
{
  for (std::size_t i = 0; i < n; ++i)
  {
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
    {
      std::ostringstream s;
      s << "element " << i << " differs from " << against;
      if constexpr (std::is_integral_v<T>)
      {
        s << ": got " << +got[i] << ", expected " << +expected[i];
      }
      return s.str();
    }
  }
  return {};
}

std::string poisoned_guards(const std::vector<unsigned char>& window, std::size_t payload_bytes)
{
  for (std::size_t i = 0; i < window.size(); ++i)
  {
    const bool guard = i < guard_bytes || i >= guard_bytes + payload_bytes;
    if (guard && window[i] != spscan_test::poison_byte)
    {
      std::ostringstream s;
      s << "guard byte " << (i < guard_bytes ? "before" : "after") << " the output, "
        << (i < guard_bytes ? guard_bytes - i : i - guard_bytes - payload_bytes + 1) << " bytes "
        << (i < guard_bytes ? "ahead of the first" : "past the last") << " element, was overwritten";
      return s.str();
    }
  }
  return {};
}

// Sizes: 2% empty, 3% at tile boundaries, 0.5% log-uniform in [2^16, 2^26], the rest log-uniform
// in [1, 2^16]; all capped at max_n.
std::size_t draw_size(splitmix64& rng, std::size_t tile_items, std::size_t max_n)
{
  const double r = rng.unit();
  std::size_t n  = 0;
  if (r < 0.02)
  {
    n = 0;
  }
  else if (r < 0.05)
  {
    const std::size_t multiples[] = {1, 2, 3, 31, 32, 33, 64};
    const std::size_t tiles       = multiples[rng.below(std::size(multiples))];
    n                             = tiles * tile_items - 1 + rng.below(3); // one short, exact, one past
  }
  else if (r < 0.055)
  {
    n = static_cast<std::size_t>(std::exp2(16.0 + 10.0 * rng.unit()));
  }
  else
  {
    n = static_cast<std::size_t>(std::exp2(16.0 * rng.unit()));
  }
  return std::min(n, max_n);
}

// One call of element type T with operator Op, checked completely.
template <class T, class Op>
void run_call(
  stress_rig& rig, call_plan plan, std::uint64_t run_seed, std::size_t forced_n, std::size_t max_n, stress_tally& tally)
{
  constexpr bool plus = std::is_same_v<Op, thrust::plus<>>;
  const Op op{};
  splitmix64 rng{plan.data_seed};

  // The form first: its accumulator decides the tile size, and so the boundary sizes.
  static constexpr scan_form plus_forms[] = {
    scan_form::inclusive,
    scan_form::inclusive_op,
    scan_form::inclusive_init,
    scan_form::exclusive_default,
    scan_form::exclusive_init,
    scan_form::exclusive_init_op};
  static constexpr scan_form op_forms[] = {
    scan_form::inclusive_op, scan_form::inclusive_init, scan_form::exclusive_init_op};
  plan.form = plus ? plus_forms[rng.below(std::size(plus_forms))] : op_forms[rng.below(std::size(op_forms))];
  const std::size_t tile_items =
    plan.form == scan_form::inclusive_init
      ? spscan::detail::scan_tuning<T, init_accumulator<T, Op>, T>::tile_items
      : spscan::detail::scan_tuning<T, T, T>::tile_items;

  plan.n          = forced_n != 0 ? forced_n : draw_size(rng, tile_items, max_n);
  plan.in_offset  = rng.below(max_offset_elements(sizeof(T)) + 1);
  plan.out_offset = rng.below(max_offset_elements(sizeof(T)) + 1);
  plan.in_place   = rng.below(4) == 0;
  plan.dyadic     = std::is_floating_point_v<T> && rng.below(2) == 0;

  const std::size_t n = plan.n;
  std::vector<T> input(n);
  for (auto& x : input)
  {
    x = random_element<T>(rng, plan.dyadic);
  }
  const T init = random_element<T>(rng, plan.dyadic);

  const cudaStream_t stream = uses_own_stream(plan.policy) ? rig.stream(plan.stream_slot) : cudaStream_t{0};
  T* const in_ptr           = rig.input<T>(plan.in_offset);
  T* const out_ptr          = rig.output<T>(plan.out_offset);
  T* const source           = plan.in_place ? out_ptr : in_ptr;
  unsigned char* const window = reinterpret_cast<unsigned char*>(out_ptr) - guard_bytes;
  const std::size_t payload   = n * sizeof(T);
  std::vector<unsigned char> host_window(payload + 2 * guard_bytes);

  cuda_check(cudaMemcpyAsync(in_ptr, input.data(), payload, cudaMemcpyHostToDevice, stream), "upload input");
  cuda_check(cudaMemsetAsync(window, spscan_test::poison_byte, host_window.size(), stream), "poison output");
  if (plan.in_place)
  {
    cuda_check(cudaMemcpyAsync(out_ptr, in_ptr, payload, cudaMemcpyDeviceToDevice, stream), "in-place copy");
  }

  const auto kernel_calls_before = spscan::detail::route_stats().kernel.load();
  const auto allocations_before  = rig.allocator.allocations;
  const auto deallocations_before = rig.allocator.deallocations;
  T* returned                    = nullptr;
  try
  {
    with_policy(plan.policy, stream, rig.allocator, [&](const auto& policy) {
      returned = spscan_call(policy, plan.form, source, n, out_ptr, init, op);
    });
    cuda_check(cudaStreamSynchronize(stream), "synchronize after the scan"); // needed after par_nosync
  }
  catch (const std::exception& e)
  {
    tally.fail(plan, run_seed, std::string("threw: ") + e.what());
    cudaDeviceSynchronize();
    cudaGetLastError();
    return;
  }
  ++tally.calls;
  tally.elements += n;
  tally.largest = std::max(tally.largest, n);

  std::vector<std::string> problems;
  if (returned != out_ptr + n)
  {
    problems.push_back("returned iterator is not result + n");
  }
  if (spscan::detail::route_stats().kernel.load() != kernel_calls_before + 1)
  {
    problems.push_back("the call did not run on spscan's kernel");
  }
  const auto allocations   = rig.allocator.allocations - allocations_before;
  const auto deallocations = rig.allocator.deallocations - deallocations_before;
  const bool multi_tile    = n > tile_items;
  if (uses_allocator(plan.policy) && (allocations > 0) != multi_tile)
  {
    problems.push_back(multi_tile ? "a multi-tile call took no storage from the attached allocator"
                                  : "a single-tile call took storage from the attached allocator");
  }
  if (allocations != deallocations)
  {
    problems.push_back("temporary storage taken from the allocator was not all returned");
  }

  cuda_check(cudaMemcpy(host_window.data(), window, host_window.size(), cudaMemcpyDeviceToHost), "download output");
  if (auto guard = poisoned_guards(host_window, payload); !guard.empty())
  {
    problems.push_back(guard);
  }
  std::vector<T> got(n);
  if (n != 0)
  {
    std::memcpy(got.data(), host_window.data() + guard_bytes, payload);
  }

  if constexpr (std::is_floating_point_v<T>)
  {
    if (auto wrong = check_float_output(plan.form, input, init, plan.dyadic, got.data()); !wrong.empty())
    {
      problems.push_back(wrong);
    }
  }
  else
  {
    const std::vector<T> expected = exact_reference(plan.form, input, init, op);
    if (auto wrong = first_difference(got.data(), expected.data(), n, "the sequential CPU reference"); !wrong.empty())
    {
      problems.push_back(wrong);
    }
    if constexpr (std::is_integral_v<T>)
    {
      T* thrust_out = rig.thrust_output<T>();
      cuda_check(cudaMemsetAsync(thrust_out, spscan_test::poison_byte, payload, stream), "poison Thrust output");
      thrust_call(stream, plan.form, in_ptr, n, thrust_out, init, op);
      std::vector<T> thrust_got(n);
      cuda_check(cudaMemcpy(thrust_got.data(), thrust_out, payload, cudaMemcpyDeviceToHost), "download Thrust output");
      if (auto wrong = first_difference(got.data(), thrust_got.data(), n, "the same Thrust call"); !wrong.empty())
      {
        problems.push_back(wrong);
      }
    }
  }

  if (!problems.empty())
  {
    std::string all;
    for (const auto& p : problems)
    {
      all += (all.empty() ? "" : "; ") + p;
    }
    tally.fail(plan, run_seed, all);
  }
}

std::uint64_t planned_calls()
{
  if (const char* text = std::getenv("SPSCAN_STRESS_CALLS"))
  {
    return std::max<std::uint64_t>(1, std::strtoull(text, nullptr, 10));
  }
  return spscan_test::max_test_elements() == ~std::size_t{0} ? 10000 : 300;
}

using call_runner = void (*)(stress_rig&, call_plan, std::uint64_t, std::size_t, std::size_t, stress_tally&);
struct element_case
{
  const char* name;
  call_runner run;
};
const element_case element_cases[] = {
  {"int8 +", &run_call<std::int8_t, thrust::plus<>>},
  {"int16 +", &run_call<std::int16_t, thrust::plus<>>},
  {"int32 +", &run_call<std::int32_t, thrust::plus<>>},
  {"int64 +", &run_call<std::int64_t, thrust::plus<>>},
  {"uint32 +", &run_call<std::uint32_t, thrust::plus<>>},
  {"float +", &run_call<float, thrust::plus<>>},
  {"double +", &run_call<double, thrust::plus<>>},
  {"affine16 compose (4 bytes, non-commutative)", &run_call<affine16, compose_affine16>},
  {"affine32 compose (8 bytes, non-commutative)", &run_call<affine32, compose_affine32>},
  {"matrix2 product (16 bytes, non-commutative)", &run_call<matrix2, multiply_matrix2>},
};

TEST(Stress, TenThousandRandomizedCallsMatchTheSequentialReference)
{
  SPSCAN_REQUIRE_GPU();
  const std::uint64_t run_seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "run seed " << run_seed);
  const std::size_t max_n   = std::min<std::size_t>(std::size_t{1} << 26, spscan_test::max_test_elements());
  const std::uint64_t calls = planned_calls();

  stress_rig rig(max_n);
  stress_tally tally;
  splitmix64 rng{run_seed};
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < calls && tally.mismatching_calls < 100; ++i)
  {
    const element_case& c = element_cases[rng.below(std::size(element_cases))];
    call_plan plan{};
    plan.index       = i;
    plan.type_name   = c.name;
    plan.policy      = static_cast<policy_kind>(rng.below(static_cast<std::uint64_t>(policy_kind::count)));
    plan.stream_slot = static_cast<int>(rng.below(stress_rig::stream_count));
    plan.data_seed   = rng.next();
    // The first two calls take the largest size and one less, so that both always appear.
    const std::size_t forced_n = i == 0 ? max_n : (i == 1 && max_n > 1 ? max_n - 1 : 0);
    try
    {
      c.run(rig, plan, run_seed, forced_n, max_n, tally);
    }
    catch (const std::exception& e)
    {
      FAIL() << describe(plan, run_seed) << ": test harness error: " << e.what();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("spscan stress: %llu calls made (%llu planned), %llu elements in all, largest %zu, "
              "%llu mismatching calls, %.1f s\n",
              static_cast<unsigned long long>(tally.calls),
              static_cast<unsigned long long>(calls),
              static_cast<unsigned long long>(tally.elements),
              tally.largest,
              static_cast<unsigned long long>(tally.mismatching_calls),
              seconds);
  EXPECT_EQ(tally.mismatching_calls, 0u);
  EXPECT_GE(tally.calls, calls);
}

} // namespace

// One cell of the type matrix (generate_matrix.py writes the cells): a call Thrust accepts, made
// through spscan with one policy form and one input iterator form, run once on the GPU into a
// poisoned output and compared bit for bit with Thrust's sequential result of the same call on the
// host (and its return value with Thrust's).
//
// The data keep every cell exact and defined, so that bit-for-bit is the right comparison for every
// type: floating-point elements are small integers (sums of integers below 2^24 are exact in float,
// below 2^11 in __half), and no value is converted to a type whose range lacks it (a conversion
// from floating point out of an integer type's range is undefined, and the host and the GPU
// disagree on it). So an input that may hold negative elements holds steps of a walk between 0 and
// 100 (-1, 0 or +1), whose prefix sums fit every type; one that may not holds 0s and 1s.
#pragma once

#include <spscan/copy.h>
#include <spscan/execution_policy.h>
#include <spscan/partition.h>
#include <spscan/remove.h>
#include <spscan/scan.h>
#include <spscan/transform_scan.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>
#include <thrust/tuple.h>

#include <cuda/std/type_traits>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <thrust/host_vector.h>

#include <gtest/gtest.h>
#include <support/gpu.h>

namespace spscan_matrix
{

// ------------------------------------------------------------------------------------------------
// The user's struct, with an operator of its own (associative, not commutative).

struct pair
{
  std::int32_t sum;
  std::int32_t last;
};

struct pair_op
{
  __host__ __device__ pair operator()(const pair& a, const pair& b) const
  {
    return {a.sum + b.sum, b.last};
  }
};

template <class T>
constexpr bool is_half = std::is_same_v<T, __half>;
template <class T>
constexpr bool is_pair = std::is_same_v<T, pair>;

// Whether T holds -1.
template <class T>
constexpr bool holds_negatives = is_half<T> || is_pair<T> || std::is_floating_point_v<T> || std::is_signed_v<T>;

// The operator of a cell: the user's for the struct, thrust::plus<> for the rest.
template <class T>
using op_for = std::conditional_t<is_pair<T>, pair_op, thrust::plus<>>;

// v (-1, 0 or 1) as a T.
template <class T>
__host__ __device__ T from_int(int v)
{
  if constexpr (is_pair<T>)
  {
    return pair{v, v + 7};
  }
  else if constexpr (is_half<T>)
  {
    return __half(static_cast<float>(v));
  }
  else
  {
    return static_cast<T>(v);
  }
}

// Whether x is not zero (the selections' predicate; the struct's sum decides).
struct is_nonzero
{
  template <class T>
  __host__ __device__ bool operator()(const T& x) const
  {
    if constexpr (is_pair<T>)
    {
      return x.sum != 0;
    }
    else if constexpr (is_half<T>)
    {
      return static_cast<float>(x) != 0.0f;
    }
    else
    {
      return x != T{};
    }
  }
};

// The selections' predicate on (element, index) tuples: the element of type T decides.
template <class T>
struct first_is_nonzero
{
  template <class Tuple>
  __host__ __device__ bool operator()(const Tuple& t) const
  {
    const T first = thrust::get<0>(t);
    return is_nonzero{}(first);
  }
};

// A transform_iterator's functor: the element itself, by value (a functor that returns by value is
// what the ring's transformed input takes).
template <class T>
struct same_value
{
  __host__ __device__ T operator()(const T& x) const
  {
    return x;
  }
};

// The transform scans' unary op: the element as an X.
template <class X>
struct cast_to
{
  template <class T>
  __host__ __device__ X operator()(const T& x) const
  {
    if constexpr (is_pair<X>)
    {
      return x;
    }
    else
    {
      return static_cast<X>(x);
    }
  }
};

// ------------------------------------------------------------------------------------------------
// Forms of a call

enum class policy_form
{
  none, // spscan::f(first, ...) on device_vector iterators: the system from the iterators
  thrust_device, // spscan::f(thrust::device, ...)
  spscan_par, // thrust::f(spscan::par, ...): Thrust's call, spscan's policy
  par_nosync, // spscan::f(thrust::cuda::par_nosync, ...), then a synchronize
  with_allocator, // spscan::f(spscan::par(alloc), ...), temporary storage from `alloc`
};

enum class input_form
{
  raw_pointer, // T* (with no policy: the device_vector's iterator, as a raw pointer would be host memory)
  vector_iterator, // thrust::device_vector<T>::iterator
  counting, // thrust::counting_iterator<T>
  transform, // a transform_iterator over the device array
  constant, // thrust::constant_iterator<T>
  zip, // a zip_iterator of the device array and a counting_iterator<int> (selections), or of two key arrays
};

// An allocator that hands out cudaMalloc'd bytes and counts what it lends.
struct counting_allocator
{
  using value_type = char;
  int lent         = 0;
  char* allocate(std::ptrdiff_t n)
  {
    char* p = nullptr;
    if (cudaMalloc(&p, static_cast<std::size_t>(n > 0 ? n : 1)) != cudaSuccess)
    {
      throw std::bad_alloc();
    }
    ++lent;
    return p;
  }
  void deallocate(char* p, std::size_t)
  {
    cudaFree(p);
  }
};

// Calls `call(policy)` with the policy of `Form`, then waits for the device (par_nosync does not),
// and checks that an allocator saw the temporary storage of a call of `n` elements, more than any
// tile holds (a call of one tile needs none). `call` gets no_policy for policy_form::none and
// swapped_policy for spscan_par.
struct no_policy
{};
struct swapped_policy
{};

constexpr std::size_t largest_tile = std::size_t{1} << 16;

template <policy_form Form, class Call>
auto with_policy(std::size_t n, Call&& call)
{
  if constexpr (Form == policy_form::none)
  {
    return call(no_policy{});
  }
  else if constexpr (Form == policy_form::thrust_device)
  {
    return call(thrust::device);
  }
  else if constexpr (Form == policy_form::spscan_par)
  {
    return call(swapped_policy{});
  }
  else if constexpr (Form == policy_form::par_nosync)
  {
    auto end = call(thrust::cuda::par_nosync);
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
    return end;
  }
  else
  {
    counting_allocator alloc;
    auto end = call(spscan::par(alloc));
    if (n > largest_tile)
    {
      EXPECT_GT(alloc.lent, 0) << "the call's temporary storage came from the allocator";
    }
    return end;
  }
}

// One algorithm, called as each policy form calls it.
#define SPSCAN_MATRIX_ALGORITHM(name)                                         \
  struct name##_call                                                          \
  {                                                                           \
    template <class... A>                                                     \
    auto operator()(no_policy, A... a) const                                  \
    {                                                                         \
      return spscan::name(a...);                                              \
    }                                                                         \
    template <class... A>                                                     \
    auto operator()(swapped_policy, A... a) const                             \
    {                                                                         \
      return thrust::name(spscan::par, a...);                                 \
    }                                                                         \
    template <class P, class... A>                                            \
    auto operator()(const P& policy, A... a) const                            \
    {                                                                         \
      return spscan::name(policy, a...);                                      \
    }                                                                         \
    template <class... A>                                                     \
    auto reference(A... a) const                                              \
    {                                                                         \
      return thrust::name(thrust::host, a...);                                \
    }                                                                         \
  };

SPSCAN_MATRIX_ALGORITHM(inclusive_scan)
SPSCAN_MATRIX_ALGORITHM(exclusive_scan)
SPSCAN_MATRIX_ALGORITHM(transform_inclusive_scan)
SPSCAN_MATRIX_ALGORITHM(transform_exclusive_scan)
SPSCAN_MATRIX_ALGORITHM(inclusive_scan_by_key)
SPSCAN_MATRIX_ALGORITHM(exclusive_scan_by_key)
SPSCAN_MATRIX_ALGORITHM(copy_if)
SPSCAN_MATRIX_ALGORITHM(remove_copy_if)
SPSCAN_MATRIX_ALGORITHM(partition_copy)
SPSCAN_MATRIX_ALGORITHM(remove_if)
SPSCAN_MATRIX_ALGORITHM(remove)
SPSCAN_MATRIX_ALGORITHM(reduce_by_key)

#undef SPSCAN_MATRIX_ALGORITHM

// ------------------------------------------------------------------------------------------------
// Data

// The elements of a cell's input: walk steps (NegativeElements) or 0s and 1s, never all zero.
template <class T, bool NegativeElements>
thrust::host_vector<T> cell_input(std::size_t n, std::uint64_t seed)
{
  std::mt19937_64 engine(seed);
  thrust::host_vector<T> values;
  values.reserve(n);
  int running = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    int step = static_cast<int>(engine() % 3) - 1;
    if constexpr (NegativeElements)
    {
      step = (running == 0 && step < 0) || (running == 100 && step > 0) ? -step : step;
      running += step;
    }
    else
    {
      step = step != 0 || i == 0 ? 1 : 0;
    }
    values.push_back(from_int<T>(step));
  }
  return values;
}

// Keys in runs of about 100 equal neighbours.
template <class K>
thrust::host_vector<K> cell_keys(std::size_t n, std::uint64_t seed)
{
  std::mt19937_64 engine(seed ^ 0x6b657973);
  thrust::host_vector<K> keys(n);
  int run = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    run += i != 0 && engine() % 100 == 0 ? 1 : 0;
    keys[i] = static_cast<K>(run % 5);
  }
  return keys;
}

inline std::uint64_t cell_seed()
{
  static std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

// Elements a cell runs on: enough that the ring engine takes a call of these types (8 MiB of the
// narrower of input and output), and a last tile that is partial; fewer where sums of 0s and 1s
// must stay exact in a __half accumulator. SPSCAN_TEST_MAX_ELEMENTS (the sanitizer runs) caps it.
template <class T, class X, class Accum, bool NegativeElements>
std::size_t cell_size()
{
  constexpr std::size_t narrower = sizeof(T) < sizeof(X) ? sizeof(T) : sizeof(X);
  std::size_t n                  = (std::size_t{8} << 20) / narrower + 1237;
  if (is_half<Accum> && !NegativeElements)
  {
    n = 1500;
  }
  const std::size_t cap = spscan_test::max_test_elements();
  return n < cap ? n : cap;
}

constexpr unsigned char poison_byte = 0xA5;

template <class T>
thrust::host_vector<T> poisoned_host_vector(std::size_t n)
{
  thrust::host_vector<T> v(n);
  std::memset(static_cast<void*>(v.data()), poison_byte, n * sizeof(T));
  return v;
}

// Made from host memory (a copy, where constructing n elements on the device would compile a kernel
// of Thrust's a type).
template <class T>
thrust::device_vector<T> poisoned_device_vector(std::size_t n)
{
  const thrust::host_vector<T> poisoned = poisoned_host_vector<T>(n);
  return thrust::device_vector<T>(poisoned.begin(), poisoned.end());
}

template <class T>
thrust::host_vector<T> to_host(const thrust::device_vector<T>& d)
{
  thrust::host_vector<T> h(d.size());
  EXPECT_EQ(cudaSuccess, cudaMemcpy(h.data(), thrust::raw_pointer_cast(d.data()), d.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Every byte of `actual` equals `expected`'s; one failure names the first element that differs.
template <class T>
void expect_same_bits(const thrust::host_vector<T>& expected, const thrust::host_vector<T>& actual, std::size_t count, const char* what)
{
  ASSERT_LE(count, expected.size());
  ASSERT_LE(count, actual.size());
  for (std::size_t i = 0; i < count; ++i)
  {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0)
    {
      ADD_FAILURE() << what << ": element " << i << " of " << count << " differs from Thrust's";
      return;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Inputs: the device iterator of a form and the host iterator Thrust's reference reads.

template <class T, input_form Form>
struct cell_inputs
{
  static constexpr bool computed = Form == input_form::counting || Form == input_form::constant;
  thrust::host_vector<T> host;
  thrust::device_vector<T> device;

  explicit cell_inputs(thrust::host_vector<T> values)
      : host(std::move(values))
      , device(host.begin(), host.end())
  {}

  // The form's iterator over the elements at `base` (counting and constant iterators need none).
  template <class Base>
  static auto over(Base base)
  {
    if constexpr (Form == input_form::counting)
    {
      return thrust::counting_iterator<T>(T{});
    }
    else if constexpr (Form == input_form::constant)
    {
      return thrust::constant_iterator<T>(from_int<T>(1));
    }
    else if constexpr (Form == input_form::transform)
    {
      return thrust::make_transform_iterator(base, same_value<T>{});
    }
    else if constexpr (Form == input_form::zip)
    {
      return thrust::make_zip_iterator(base, thrust::counting_iterator<int>(0));
    }
    else
    {
      return base;
    }
  }

  template <policy_form Policy>
  auto device_first()
  {
    if constexpr (Form == input_form::raw_pointer && Policy != policy_form::none)
    {
      return thrust::raw_pointer_cast(device.data());
    }
    else
    {
      return over(device.begin());
    }
  }

  auto host_first()
  {
    return over(host.begin());
  }
};

// The output of value type X: raw pointer where the input is one, else the device_vector's iterator.
template <class X, input_form Form, policy_form Policy>
auto output_first(thrust::device_vector<X>& out)
{
  if constexpr (Form == input_form::raw_pointer && Policy != policy_form::none)
  {
    return thrust::raw_pointer_cast(out.data());
  }
  else
  {
    return out.begin();
  }
}

inline std::string describe_seed(std::uint64_t seed, std::size_t n)
{
  return "seed " + std::to_string(seed) + ", n " + std::to_string(n);
}

// ------------------------------------------------------------------------------------------------
// The scans

enum class scan_form
{
  exclusive_init_op, // exclusive_scan(first, last, result, init, op)
  exclusive_init, // exclusive_scan(first, last, result, init)
  exclusive, // exclusive_scan(first, last, result)
  inclusive, // inclusive_scan(first, last, result)
  inclusive_op, // inclusive_scan(first, last, result, op)
  inclusive_init_op, // inclusive_scan(first, last, result, init, op)
};

// The accumulator Thrust's rules give each form (the input's type; the init's; what op(init, x)
// returns).
template <class T, class X, scan_form Form>
auto scan_accumulator_of()
{
  if constexpr (Form == scan_form::inclusive || Form == scan_form::inclusive_op || Form == scan_form::exclusive)
  {
    return ::cuda::std::type_identity<T>{};
  }
  else if constexpr (Form == scan_form::inclusive_init_op)
  {
    return ::cuda::std::type_identity<std::decay_t<std::invoke_result_t<op_for<T>, X, T>>>{};
  }
  else
  {
    return ::cuda::std::type_identity<X>{};
  }
}
template <class T, class X, scan_form Form>
using scan_accumulator = typename decltype(scan_accumulator_of<T, X, Form>())::type;

template <class T, class X, scan_form Form, policy_form Policy, input_form Input>
void check_scan()
{
  SPSCAN_REQUIRE_GPU();
  using accum                  = scan_accumulator<T, X, Form>;
  constexpr bool elementwise   = !std::is_same_v<accum, T>; // elements converted to the accumulator
  constexpr bool negatives     = holds_negatives<T> && (!elementwise || holds_negatives<accum> || std::is_integral_v<T>);
  const std::size_t n          = cell_size<T, X, accum, negatives>();
  const std::uint64_t seed     = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  cell_inputs<T, Input> in(cell_input<T, negatives>(n, seed));
  thrust::device_vector<X> out = poisoned_device_vector<X>(n);
  thrust::host_vector<X> expected      = poisoned_host_vector<X>(n);
  const X init                 = from_int<X>(1);
  const op_for<T> op{};

  const auto run = [&](auto call) {
    const auto first  = in.template device_first<Policy>();
    const auto result = output_first<X, Input, Policy>(out);
    const auto end    = with_policy<Policy>(n, [&](auto policy) {
      if constexpr (Form == scan_form::exclusive_init_op || Form == scan_form::inclusive_init_op)
      {
        return call(policy, first, first + n, result, init, op);
      }
      else if constexpr (Form == scan_form::exclusive_init)
      {
        return call(policy, first, first + n, result, init);
      }
      else if constexpr (Form == scan_form::inclusive_op)
      {
        return call(policy, first, first + n, result, op);
      }
      else
      {
        return call(policy, first, first + n, result);
      }
    });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(n), end - result) << "the returned end";
    const auto host_first = in.host_first();
    if constexpr (Form == scan_form::exclusive_init_op || Form == scan_form::inclusive_init_op)
    {
      call.reference(host_first, host_first + n, expected.begin(), init, op);
    }
    else if constexpr (Form == scan_form::exclusive_init)
    {
      call.reference(host_first, host_first + n, expected.begin(), init);
    }
    else if constexpr (Form == scan_form::inclusive_op)
    {
      call.reference(host_first, host_first + n, expected.begin(), op);
    }
    else
    {
      call.reference(host_first, host_first + n, expected.begin());
    }
  };
  if constexpr (Form == scan_form::inclusive || Form == scan_form::inclusive_op || Form == scan_form::inclusive_init_op)
  {
    run(inclusive_scan_call{});
  }
  else
  {
    run(exclusive_scan_call{});
  }
  expect_same_bits(expected, to_host(out), n, "the scan's output");
}

// ------------------------------------------------------------------------------------------------
// The transform scans: each element as an X (cast_to<X>), scanned in X.

enum class transform_scan_form
{
  inclusive, // transform_inclusive_scan(first, last, result, unary, op)
  inclusive_init, // transform_inclusive_scan(first, last, result, unary, init, op)
  exclusive, // transform_exclusive_scan(first, last, result, unary, init, op)
};

template <class T, class X, transform_scan_form Form, policy_form Policy, input_form Input>
void check_transform_scan()
{
  SPSCAN_REQUIRE_GPU();
  constexpr bool negatives     = holds_negatives<T> && (holds_negatives<X> || std::is_integral_v<T>);
  const std::size_t n          = cell_size<T, X, X, negatives>();
  const std::uint64_t seed     = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  cell_inputs<T, Input> in(cell_input<T, negatives>(n, seed));
  thrust::device_vector<X> out = poisoned_device_vector<X>(n);
  thrust::host_vector<X> expected      = poisoned_host_vector<X>(n);
  const X init                 = from_int<X>(1);
  const op_for<X> op{};
  const cast_to<X> unary{};

  const auto first  = in.template device_first<Policy>();
  const auto result = output_first<X, Input, Policy>(out);
  const auto host   = in.host_first();
  if constexpr (Form == transform_scan_form::inclusive)
  {
    const auto end = with_policy<Policy>(n, [&](auto policy) {
      return transform_inclusive_scan_call{}(policy, first, first + n, result, unary, op);
    });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(n), end - result) << "the returned end";
    transform_inclusive_scan_call{}.reference(host, host + n, expected.begin(), unary, op);
  }
  else if constexpr (Form == transform_scan_form::inclusive_init)
  {
    const auto end = with_policy<Policy>(n, [&](auto policy) {
      return transform_inclusive_scan_call{}(policy, first, first + n, result, unary, init, op);
    });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(n), end - result) << "the returned end";
    transform_inclusive_scan_call{}.reference(host, host + n, expected.begin(), unary, init, op);
  }
  else
  {
    const auto end = with_policy<Policy>(n, [&](auto policy) {
      return transform_exclusive_scan_call{}(policy, first, first + n, result, unary, init, op);
    });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(n), end - result) << "the returned end";
    transform_exclusive_scan_call{}.reference(host, host + n, expected.begin(), unary, init, op);
  }
  expect_same_bits(expected, to_host(out), n, "the transform scan's output");
}

// ------------------------------------------------------------------------------------------------
// The by-key scans: values T by keys K into X (inclusive forms accumulate in T, exclusive ones in
// the init's X). Input::zip zips the keys with a second key array.

enum class by_key_form
{
  exclusive_init, // exclusive_scan_by_key(keys, keys_last, values, result, init)
  exclusive_init_pred_op, // exclusive_scan_by_key(..., init, pred, op)
  exclusive, // exclusive_scan_by_key(keys, keys_last, values, result)
  inclusive, // inclusive_scan_by_key(keys, keys_last, values, result)
  inclusive_pred_op, // inclusive_scan_by_key(..., pred, op)
};

template <class K, class T, class X, by_key_form Form, policy_form Policy, input_form Input>
void check_scan_by_key()
{
  SPSCAN_REQUIRE_GPU();
  constexpr bool inclusive  = Form == by_key_form::inclusive || Form == by_key_form::inclusive_pred_op;
  using accum               = std::conditional_t<inclusive || Form == by_key_form::exclusive, T, X>;
  constexpr bool negatives  = holds_negatives<T> && (holds_negatives<accum> || std::is_integral_v<T> || inclusive);
  constexpr input_form values_form = Input == input_form::zip ? input_form::raw_pointer : Input;
  const std::size_t n       = cell_size<T, X, accum, negatives>();
  const std::uint64_t seed  = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  cell_inputs<T, values_form> values(cell_input<T, negatives>(n, seed));
  const thrust::host_vector<K> host_keys = cell_keys<K>(n, seed);
  const thrust::host_vector<K> host_keys2 = cell_keys<K>(n, seed + 1);
  thrust::device_vector<K> keys(host_keys.begin(), host_keys.end());
  thrust::device_vector<K> keys2(host_keys2.begin(), host_keys2.end());
  thrust::device_vector<X> out = poisoned_device_vector<X>(n);
  thrust::host_vector<X> expected      = poisoned_host_vector<X>(n);
  const X init                 = from_int<X>(1);
  using value_op               = std::conditional_t<inclusive || Form == by_key_form::exclusive, op_for<T>, op_for<X>>;

  const auto device_keys = [&] {
    if constexpr (Input == input_form::zip)
    {
      return thrust::make_zip_iterator(keys.begin(), keys2.begin());
    }
    else if constexpr ((Input == input_form::raw_pointer) && Policy != policy_form::none)
    {
      return thrust::raw_pointer_cast(keys.data());
    }
    else
    {
      return keys.begin();
    }
  }();
  const auto host_key_first = [&] {
    if constexpr (Input == input_form::zip)
    {
      return thrust::make_zip_iterator(host_keys.begin(), host_keys2.begin());
    }
    else
    {
      return host_keys.begin();
    }
  }();
  const auto first  = values.template device_first<Policy>();
  const auto result = output_first<X, values_form, Policy>(out);
  const auto host   = values.host_first();
  const auto run    = [&](auto call, auto... trailing) {
    const auto end = with_policy<Policy>(n, [&](auto policy) {
      return call(policy, device_keys, device_keys + n, first, result, trailing...);
    });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(n), end - result) << "the returned end";
    call.reference(host_key_first, host_key_first + n, host, expected.begin(), trailing...);
  };
  if constexpr (Form == by_key_form::exclusive_init)
  {
    run(exclusive_scan_by_key_call{}, init);
  }
  else if constexpr (Form == by_key_form::exclusive_init_pred_op)
  {
    run(exclusive_scan_by_key_call{}, init, thrust::equal_to<>{}, value_op{});
  }
  else if constexpr (Form == by_key_form::exclusive)
  {
    run(exclusive_scan_by_key_call{});
  }
  else if constexpr (Form == by_key_form::inclusive)
  {
    run(inclusive_scan_by_key_call{});
  }
  else
  {
    run(inclusive_scan_by_key_call{}, thrust::equal_to<>{}, value_op{});
  }
  expect_same_bits(expected, to_host(out), n, "the by-key scan's output");
}

// ------------------------------------------------------------------------------------------------
// reduce_by_key: keys K (Input::zip: (K, K) tuples, into tuples), values T, sums into X; the
// values' type is the accumulator, as Thrust's.

// A vector's begin, or the zip of two vectors' begins (Input::zip's keys and their outputs).
template <bool Zip, class Vector>
auto begin_or_zip(Vector& first, Vector& second)
{
  if constexpr (Zip)
  {
    return thrust::make_zip_iterator(first.begin(), second.begin());
  }
  else
  {
    return first.begin();
  }
}

enum class reduce_by_key_form
{
  plain, // reduce_by_key(keys, keys_last, values, keys_out, values_out)
  pred, // reduce_by_key(..., pred)
  pred_op, // reduce_by_key(..., pred, op)
};

template <class K, class T, class X, reduce_by_key_form Form, policy_form Policy, input_form Input>
void check_reduce_by_key()
{
  SPSCAN_REQUIRE_GPU();
  constexpr bool negatives  = holds_negatives<T> && (holds_negatives<X> || std::is_integral_v<T>);
  constexpr bool zip        = Input == input_form::zip;
  constexpr input_form values_form = zip ? input_form::raw_pointer : Input;
  const std::size_t n       = cell_size<T, X, T, negatives>();
  const std::uint64_t seed  = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  cell_inputs<T, values_form> values(cell_input<T, negatives>(n, seed));
  const thrust::host_vector<K> host_keys  = cell_keys<K>(n, seed);
  const thrust::host_vector<K> host_keys2 = cell_keys<K>(n, seed + 1);
  thrust::device_vector<K> keys(host_keys.begin(), host_keys.end());
  thrust::device_vector<K> keys2(host_keys2.begin(), host_keys2.end());
  thrust::device_vector<K> keys_out   = poisoned_device_vector<K>(n);
  thrust::device_vector<K> keys_out2  = poisoned_device_vector<K>(n);
  thrust::device_vector<X> out        = poisoned_device_vector<X>(n);
  thrust::host_vector<K> expected_keys  = poisoned_host_vector<K>(n);
  thrust::host_vector<K> expected_keys2 = poisoned_host_vector<K>(n);
  thrust::host_vector<X> expected       = poisoned_host_vector<X>(n);

  const auto device_keys = [&] {
    if constexpr (zip)
    {
      return thrust::make_zip_iterator(keys.begin(), keys2.begin());
    }
    else if constexpr (Input == input_form::raw_pointer && Policy != policy_form::none)
    {
      return thrust::raw_pointer_cast(keys.data());
    }
    else
    {
      return keys.begin();
    }
  }();
  const auto key_result = [&] {
    if constexpr (zip)
    {
      return thrust::make_zip_iterator(keys_out.begin(), keys_out2.begin());
    }
    else
    {
      return output_first<K, values_form, Policy>(keys_out);
    }
  }();
  const auto host_key_first  = begin_or_zip<zip>(host_keys, host_keys2);
  const auto host_key_result = begin_or_zip<zip>(expected_keys, expected_keys2);
  const auto first  = values.template device_first<Policy>();
  const auto result = output_first<X, values_form, Policy>(out);
  const auto host   = values.host_first();
  const auto run    = [&](auto... trailing) {
    const auto ends = with_policy<Policy>(n, [&](auto policy) {
      return reduce_by_key_call{}(policy, device_keys, device_keys + n, first, key_result, result, trailing...);
    });
    const auto expected_ends =
      reduce_by_key_call{}.reference(host_key_first, host_key_first + n, host, host_key_result, expected.begin(), trailing...);
    const std::ptrdiff_t runs = expected_ends.second - expected.begin();
    EXPECT_EQ(runs, ends.first - key_result) << "the keys' returned end";
    EXPECT_EQ(runs, ends.second - result) << "the sums' returned end";
    expect_same_bits(expected, to_host(out), static_cast<std::size_t>(runs), "the runs' sums");
    expect_same_bits(expected_keys, to_host(keys_out), static_cast<std::size_t>(runs), "the runs' keys");
  };
  if constexpr (Form == reduce_by_key_form::plain)
  {
    run();
  }
  else if constexpr (Form == reduce_by_key_form::pred)
  {
    run(thrust::equal_to<>{});
  }
  else
  {
    run(thrust::equal_to<>{}, op_for<T>{});
  }
}

// ------------------------------------------------------------------------------------------------
// The selections: elements T, selected where not zero, into X. Input::zip selects (element, index)
// tuples into (X, int) tuples.

enum class select_form
{
  copy_if, // copy_if(first, last, result, pred)
  copy_if_stencil, // copy_if(first, last, stencil, result, pred)
  remove_copy_if, // remove_copy_if(first, last, result, pred)
  remove_copy_if_stencil, // remove_copy_if(first, last, stencil, result, pred)
  partition_copy, // partition_copy(first, last, out_true, out_false, pred)
  partition_copy_stencil, // partition_copy(first, last, stencil, out_true, out_false, pred)
};

template <class T, class X, select_form Form, policy_form Policy, input_form Input>
void check_select()
{
  SPSCAN_REQUIRE_GPU();
  constexpr bool negatives  = holds_negatives<T> && (holds_negatives<X> || std::is_integral_v<T>);
  const std::size_t n       = cell_size<T, X, X, negatives>();
  const std::uint64_t seed  = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  cell_inputs<T, Input> in(cell_input<T, negatives>(n, seed));
  const thrust::host_vector<int> host_stencil = cell_input<int, true>(n, seed + 1);
  thrust::device_vector<int> stencil(host_stencil.begin(), host_stencil.end());
  thrust::device_vector<X> out        = poisoned_device_vector<X>(n);
  thrust::device_vector<X> rejected   = poisoned_device_vector<X>(n);
  thrust::device_vector<int> indices  = poisoned_device_vector<int>(n);
  thrust::device_vector<int> rejected_indices = poisoned_device_vector<int>(n);
  thrust::host_vector<X> expected             = poisoned_host_vector<X>(n);
  thrust::host_vector<X> expected_rejected    = poisoned_host_vector<X>(n);
  thrust::host_vector<int> expected_indices   = poisoned_host_vector<int>(n);
  thrust::host_vector<int> expected_rejected_indices = poisoned_host_vector<int>(n);

  constexpr bool zip   = Input == input_form::zip;
  using predicate      = std::conditional_t<zip, first_is_nonzero<T>, is_nonzero>; // stencils are ints
  const auto first     = in.template device_first<Policy>();
  const auto host      = in.host_first();
  const auto device_stencil = [&] {
    if constexpr (Input == input_form::raw_pointer && Policy != policy_form::none)
    {
      return thrust::raw_pointer_cast(stencil.data());
    }
    else
    {
      return stencil.begin();
    }
  }();
  const auto outputs = [&](thrust::device_vector<X>& values, thrust::device_vector<int>& at) {
    if constexpr (zip)
    {
      return thrust::make_zip_iterator(values.begin(), at.begin());
    }
    else
    {
      return output_first<X, Input, Policy>(values);
    }
  };
  const auto host_outputs = [&](thrust::host_vector<X>& values, thrust::host_vector<int>& at) {
    if constexpr (zip)
    {
      return thrust::make_zip_iterator(values.begin(), at.begin());
    }
    else
    {
      return values.begin();
    }
  };
  const auto result        = outputs(out, indices);
  const auto result_false  = outputs(rejected, rejected_indices);
  const auto expected_true = host_outputs(expected, expected_indices);
  const auto expected_false = host_outputs(expected_rejected, expected_rejected_indices);
  std::ptrdiff_t selected = 0;
  std::ptrdiff_t expected_selected = 0;
  std::ptrdiff_t left = 0;
  std::ptrdiff_t expected_left = 0;
  if constexpr (Form == select_form::partition_copy || Form == select_form::partition_copy_stencil)
  {
    const auto ends = with_policy<Policy>(n, [&](auto policy) {
      if constexpr (Form == select_form::partition_copy)
      {
        return partition_copy_call{}(policy, first, first + n, result, result_false, predicate{});
      }
      else
      {
        return partition_copy_call{}(policy, first, first + n, device_stencil, result, result_false, is_nonzero{});
      }
    });
    const auto expected_ends = [&] {
      if constexpr (Form == select_form::partition_copy)
      {
        return partition_copy_call{}.reference(host, host + n, expected_true, expected_false, predicate{});
      }
      else
      {
        return partition_copy_call{}.reference(host, host + n, host_stencil.begin(), expected_true, expected_false, is_nonzero{});
      }
    }();
    selected          = ends.first - result;
    left              = ends.second - result_false;
    expected_selected = expected_ends.first - expected_true;
    expected_left     = expected_ends.second - expected_false;
  }
  else
  {
    const auto run = [&](auto call) {
      const auto end = with_policy<Policy>(n, [&](auto policy) {
        if constexpr (Form == select_form::copy_if_stencil || Form == select_form::remove_copy_if_stencil)
        {
          return call(policy, first, first + n, device_stencil, result, is_nonzero{});
        }
        else
        {
          return call(policy, first, first + n, result, predicate{});
        }
      });
      const auto expected_end = [&] {
        if constexpr (Form == select_form::copy_if_stencil || Form == select_form::remove_copy_if_stencil)
        {
          return call.reference(host, host + n, host_stencil.begin(), expected_true, is_nonzero{});
        }
        else
        {
          return call.reference(host, host + n, expected_true, predicate{});
        }
      }();
      selected          = end - result;
      expected_selected = expected_end - expected_true;
    };
    if constexpr (Form == select_form::copy_if || Form == select_form::copy_if_stencil)
    {
      run(copy_if_call{});
    }
    else
    {
      run(remove_copy_if_call{});
    }
  }
  ASSERT_EQ(expected_selected, selected) << "the returned end of the selection";
  constexpr bool removes = Form == select_form::remove_copy_if || Form == select_form::remove_copy_if_stencil;
  if constexpr (!(removes && cell_inputs<T, Input>::computed))
  {
    ASSERT_GT(selected, 0) << "the data select something"; // a constant input is all removed
  }
  const thrust::host_vector<X> actual = to_host(out);
  expect_same_bits(expected, actual, static_cast<std::size_t>(selected), "the selected elements");
  if (static_cast<std::size_t>(selected) < n)
  {
    unsigned char poison[sizeof(X)];
    std::memset(poison, poison_byte, sizeof(X));
    EXPECT_EQ(0, std::memcmp(poison, &actual[static_cast<std::size_t>(selected)], sizeof(X)))
      << "the output past the selection's end is untouched";
  }
  if constexpr (zip)
  {
    expect_same_bits(expected_indices, to_host(indices), static_cast<std::size_t>(selected), "the selected indices");
  }
  if constexpr (Form == select_form::partition_copy || Form == select_form::partition_copy_stencil)
  {
    ASSERT_EQ(expected_left, left) << "the returned end of the rejected elements";
    expect_same_bits(expected_rejected, to_host(rejected), static_cast<std::size_t>(left), "the rejected elements");
  }
}

// ------------------------------------------------------------------------------------------------
// The removals in place: elements T removed from their own range where they are not zero
// (remove_if), where their stencil is not zero (remove_if with a stencil) or where they equal the
// first element (remove).

enum class removal_form
{
  remove_if, // remove_if(first, last, pred)
  remove_if_stencil, // remove_if(first, last, stencil, pred)
  remove, // remove(first, last, value)
};

template <class T, removal_form Form, policy_form Policy>
void check_removal_in_place()
{
  SPSCAN_REQUIRE_GPU();
  const std::size_t n      = cell_size<T, T, T, holds_negatives<T>>();
  const std::uint64_t seed = cell_seed();
  SCOPED_TRACE(describe_seed(seed, n));
  thrust::host_vector<T> expected = cell_input<T, holds_negatives<T>>(n, seed);
  thrust::device_vector<T> values(expected.begin(), expected.end());
  const thrust::host_vector<int> host_stencil = cell_input<int, true>(n, seed + 1);
  thrust::device_vector<int> stencil(host_stencil.begin(), host_stencil.end());
  const T value    = expected[0];
  const auto first = output_first<T, input_form::raw_pointer, Policy>(values);
  const auto device_stencil = output_first<int, input_form::raw_pointer, Policy>(stencil);
  const auto end = with_policy<Policy>(n, [&](auto policy) {
    if constexpr (Form == removal_form::remove_if)
    {
      return remove_if_call{}(policy, first, first + n, is_nonzero{});
    }
    else if constexpr (Form == removal_form::remove_if_stencil)
    {
      return remove_if_call{}(policy, first, first + n, device_stencil, is_nonzero{});
    }
    else
    {
      return remove_call{}(policy, first, first + n, value);
    }
  });
  const auto expected_end = [&] {
    if constexpr (Form == removal_form::remove_if)
    {
      return remove_if_call{}.reference(expected.begin(), expected.end(), is_nonzero{});
    }
    else if constexpr (Form == removal_form::remove_if_stencil)
    {
      return remove_if_call{}.reference(expected.begin(), expected.end(), host_stencil.begin(), is_nonzero{});
    }
    else
    {
      return remove_call{}.reference(expected.begin(), expected.end(), value);
    }
  }();
  const std::ptrdiff_t kept = expected_end - expected.begin();
  ASSERT_EQ(kept, end - first) << "the returned end of the kept elements";
  expect_same_bits(expected, to_host(values), static_cast<std::size_t>(kept), "the kept elements");
}

} // namespace spscan_matrix

// Test data: fresh random inputs (never zeros), a seed that failures report, poisoned outputs,
// and sequential references computed on the CPU in the accumulator type.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace spscan_test
{

// A fresh seed per call; tests put it in a SCOPED_TRACE so a failure can be replayed.
inline std::uint64_t fresh_seed()
{
  static std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

// Random values that are never all zero: small integers 1..limit (mixed signs for signed types)
// so that sums stay exact, floats in [-0.5, 0.5) whose sums round.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed)
{
  std::mt19937_64 engine(seed);
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>)
  {
    std::uniform_real_distribution<double> dist(-0.5, 0.5);
    for (auto& v : values)
    {
      v = static_cast<T>(dist(engine));
    }
  }
  else if constexpr (std::is_integral_v<T>)
  {
    std::uniform_int_distribution<int> dist(std::is_signed_v<T> ? -7 : 1, 7);
    for (auto& v : values)
    {
      const int x = dist(engine);
      v           = static_cast<T>(x == 0 ? 1 : x);
    }
  }
  else
  {
    static_assert(std::is_trivially_copyable_v<T>, "random_values needs arithmetic or trivially copyable T");
    std::uniform_int_distribution<unsigned> dist(1, 255);
    for (auto& v : values)
    {
      unsigned char bytes[sizeof(T)];
      for (auto& b : bytes)
      {
        b = static_cast<unsigned char>(dist(engine));
      }
      std::memcpy(&v, bytes, sizeof(T));
    }
  }
  return values;
}

// The byte outputs are filled with before every run: a value no test computes by accident.
constexpr unsigned char poison_byte = 0xA5;

// Sequential references, in the accumulator type Accum, written as Thrust specifies them.
template <class Accum, class T, class Op>
std::vector<Accum> reference_inclusive(const std::vector<T>& in, Op op)
{
  std::vector<Accum> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    out.push_back(i == 0 ? static_cast<Accum>(in[0]) : static_cast<Accum>(op(out.back(), static_cast<Accum>(in[i]))));
  }
  return out;
}

template <class Accum, class T, class Init, class Op>
std::vector<Accum> reference_inclusive(const std::vector<T>& in, Init init, Op op)
{
  std::vector<Accum> out;
  out.reserve(in.size());
  Accum running = static_cast<Accum>(init);
  for (const T& x : in)
  {
    running = static_cast<Accum>(op(running, static_cast<Accum>(x)));
    out.push_back(running);
  }
  return out;
}

template <class Accum, class T, class Op>
std::vector<Accum> reference_exclusive(const std::vector<T>& in, Accum init, Op op)
{
  std::vector<Accum> out;
  out.reserve(in.size());
  Accum running = init;
  for (const T& x : in)
  {
    out.push_back(running);
    running = static_cast<Accum>(op(running, static_cast<Accum>(x)));
  }
  return out;
}

// By-key references: a segment starts at i == 0 and wherever pred(key[i-1], key[i]) is false.
template <class Accum, class K, class T, class Pred, class Op>
std::vector<Accum> reference_inclusive_by_key(const std::vector<K>& keys, const std::vector<T>& values, Pred pred, Op op)
{
  std::vector<Accum> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    const bool head = i == 0 || !pred(keys[i - 1], keys[i]);
    out.push_back(head ? static_cast<Accum>(values[i]) : static_cast<Accum>(op(out.back(), static_cast<Accum>(values[i]))));
  }
  return out;
}

template <class Accum, class K, class T, class Pred, class Op>
std::vector<Accum>
reference_exclusive_by_key(const std::vector<K>& keys, const std::vector<T>& values, Accum init, Pred pred, Op op)
{
  std::vector<Accum> out;
  out.reserve(values.size());
  Accum running = init;
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    if (i != 0 && !pred(keys[i - 1], keys[i]))
    {
      running = init;
    }
    out.push_back(running);
    running = static_cast<Accum>(op(running, static_cast<Accum>(values[i])));
  }
  return out;
}

// Keys whose runs of equal neighbours (segments) have random lengths of about `mean`: each key
// starts a new run with probability 1/mean. Keys repeat across runs (run k has key k % 7), as
// users' keys do; only neighbours decide segments.
template <class K>
std::vector<K> random_segment_keys(std::size_t n, double mean, std::uint64_t seed)
{
  std::mt19937_64 engine(seed ^ 0x5eed);
  std::bernoulli_distribution starts(mean <= 1 ? 1.0 : 1.0 / mean);
  std::vector<K> keys(n);
  long long run = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    if (i != 0 && starts(engine))
    {
      ++run;
    }
    keys[i] = static_cast<K>(run % 7);
  }
  return keys;
}

} // namespace spscan_test

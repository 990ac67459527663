// The decoupled look-back protocol, proved on host threads (no GPU needed).
//
// Host threads play tiles exactly as a CTA of the driver (classic/driver.h) does (tile 0 publishes
// P at once; any other tile publishes A = its aggregate, runs exclusive_prefix_of, publishes
// P = op(prefix, A)), over the library's own packed_tile_state / split_tile_state and its own
// exclusive_prefix_of, with host_lanes standing in for the warp. The timing is adversarial: tile
// ids are taken out of order in time (a shared counter, or ids dealt to threads beforehand and
// taken strictly in id order), every protocol step (each publish, each lane's read, each back-off)
// may be followed by a spin, a yield or a sleep, the lanes of a window read in varying orders, and
// some tiles are held back on purpose until more than a window of successors waits on them (so
// look-backs walk back past windows of A's and then fold forward while tiles turn from A to P).
// After each schedule every tile's exclusive prefix and published P are compared, bit for bit,
// with the sequential LEFT FOLD ((A0 op A1) op A2) ... computed on one thread. The integer ops
// are not commutative (a wrong operand order shows); the floating-point ones round differently
// under another grouping (a different association shows).
//
// The blocked association (common/blocked_association.h, blocked_look_back.h) plays the same
// schedules with its own roles (every tile publishes A, only a block's last tile a P) and is
// compared, bit for bit, with the blocked fold computed on one thread (support/blocked_reference.h),
// on data where it differs from the left fold.
//
// Broken variants planted through the same seams (a State wrapper, the op handed to the
// look-back, a hidden publication) must be caught, which proves the checker can fail.
// A schedule that does not finish by its deadline is reported as hung (with its description),
// and a look-back that reads a window it never should is reported as a protocol violation:
// neither is left to stall the test run.
#include <spscan/detail/common/blocked_look_back.h>
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/programs/run_carry.h>
#include <spscan/detail/programs/segment_carry.h>

#include <support/blocked_reference.h>
#include <support/data.h>
#include <support/host_lanes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace
{

using namespace spscan::detail;
using clock_type = std::chrono::steady_clock;

// ----------------------------------------------------------------------------------------------
// Random numbers: splitmix64, cheap enough to consult at every protocol step, and seedable per
// schedule and per thread so that a schedule's plan and data can be replayed from its seed.

class splitmix
{
public:
  explicit splitmix(std::uint64_t seed)
      : state_(seed)
  {}
  std::uint64_t next()
  {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n > 0.
  std::uint32_t below(std::uint32_t n)
  {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);
  }
  std::uint32_t between(std::uint32_t lo, std::uint32_t hi) // inclusive
  {
    return lo + below(hi - lo + 1);
  }
  float unit() // in [-1, 1)
  {
    return static_cast<float>(static_cast<double>(next() >> 40) / double(1ull << 23) - 1.0);
  }

private:
  std::uint64_t state_;
};

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt)
{
  return splitmix(seed ^ (salt * 0xd1b54a32d192ed03ull)).next();
}

template <class T>
bool same_bits(const T& x, const T& y)
{
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}
// A run carry's fields bit for bit, not its padding: a state's word holds the fields alone, so
// the padding of a carry read back says nothing about the one published.
bool same_bits(const run_carry<double, std::uint32_t>& x, const run_carry<double, std::uint32_t>& y)
{
  return same_bits(x.value, y.value) && x.heads == y.heads;
}

template <class T>
std::string hex_bytes(const T& value)
{
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  std::string text;
  char pair[3];
  for (std::size_t i = sizeof(T); i-- > 0;)
  {
    std::snprintf(pair, sizeof pair, "%02x", bytes[i]);
    text += pair;
  }
  return text;
}

// ----------------------------------------------------------------------------------------------
// The operators. Each is associative in exact arithmetic and not commutative, so a fold that
// swaps operands gives a different answer.

// x -> a*x + b (mod 2^16) with a odd, packed as (a << 16) | b: fits the packed layout (4 bytes).
// Odd multipliers make every map invertible, so long products never collapse to a constant map.
struct affine16
{
  std::uint32_t bits;
};
struct affine16_then // (f then g)(x) = g(f(x))
{
  affine16 operator()(const affine16& f, const affine16& g) const
  {
    const std::uint32_t fa = f.bits >> 16, fb = f.bits & 0xffffu;
    const std::uint32_t ga = g.bits >> 16, gb = g.bits & 0xffffu;
    return {((ga * fa) & 0xffffu) << 16 | ((ga * fb + gb) & 0xffffu)};
  }
};

// 2x2 matrices over the integers mod 2^32 (16 bytes: split layout), row-major. Only matrices with
// an odd determinant are drawn, so products stay invertible and never degenerate.
struct mat2
{
  std::uint32_t m[4];
};
struct mat2_product
{
  mat2 operator()(const mat2& x, const mat2& y) const
  {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2],
             x.m[0] * y.m[1] + x.m[1] * y.m[3],
             x.m[2] * y.m[0] + x.m[3] * y.m[2],
             x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};

// Float addition: commutative, but its rounding depends on the grouping.
struct float_plus
{
  float operator()(float x, float y) const
  {
    return x + y;
  }
};

// Double addition: the 8-byte accumulator of the packed layout's 128-bit word.
struct double_plus
{
  double operator()(double x, double y) const
  {
    return x + y;
  }
};

// x -> a*x + b over floats (8 bytes; the test below puts it in the split layout): not commutative, and a*b+c chains whose
// rounding depends on the grouping. Kept out of line so that every caller rounds identically
// (a compiler may contract a*b+c into a fused multiply-add differently at each inlined site).
struct affine_float
{
  float a, b;
};
struct affine_float_then
{
  __attribute__((noinline)) affine_float operator()(const affine_float& f, const affine_float& g) const
  {
    const float a = g.a * f.a;
    const float m = g.a * f.b;
    return {a, m + g.b};
  }
};

// Random values of each type (never degenerate: odd multipliers, odd determinants, no zero floats).
affine16 random_affine16(splitmix& random)
{
  const std::uint32_t a = random.below(1u << 16) | 1u;
  const std::uint32_t b = random.between(1, 0xffffu);
  return {a << 16 | b};
}
mat2 random_mat2(splitmix& random)
{
  for (;;)
  {
    mat2 x;
    for (auto& e : x.m)
    {
      e = static_cast<std::uint32_t>(random.next());
    }
    if (((x.m[0] * x.m[3] - x.m[1] * x.m[2]) & 1u) != 0)
    {
      return x;
    }
  }
}
// Magnitudes spread over 2^-10 .. 2^10 so that sums round often.
float random_float(splitmix& random)
{
  const float mantissa = random.unit();
  return std::ldexp(mantissa == 0.0f ? 0.5f : mantissa, static_cast<int>(random.below(21)) - 10);
}

// A by-key style segment carry over floats: a span's fold since its last segment start, and
// whether one starts in it (a 32-bit flag: no padding, so equal carries have equal bytes). A
// carry that starts a segment absorbs whatever precedes it.
struct segment_float
{
  float value;
  std::uint32_t head;
};
struct segment_float_then
{
  segment_float operator()(const segment_float& a, const segment_float& b) const
  {
    return b.head ? b : segment_float{float_plus{}(a.value, b.value), a.head};
  }
};
struct segment_float_absorbing
{
  static constexpr bool enabled = true;
  __host__ __device__ static bool absorbs(const segment_float& c)
  {
    return c.head != 0;
  }
};
// About one aggregate in 48 starts a segment: rare enough that look-backs still walk back past
// windows without one and restart forward, often enough that many stop at one.
segment_float random_segment_float(splitmix& random)
{
  const float value = random_float(random);
  return {value, random.next() % 48 == 0 ? 1u : 0u};
}

// reduce_by_key's run carry over doubles, in its own packed layout (programs/run_carry.h): the
// library's combine around double sums. About one aggregate in 48 holds heads (one to three), so
// that folds run long between them; a carry with heads does not absorb (its count still adds).
using run_double = run_carry<double, std::uint32_t>;
struct run_double_then
{
  run_double operator()(const run_double& a, const run_double& b) const
  {
    double_plus plus{};
    return run_carry_op<double, std::uint32_t, double_plus>{plus}(a, b);
  }
};
double random_double(splitmix& random);
run_double random_run_double(splitmix& random)
{
  run_double carry{}; // padding zeroed: carries are compared byte for byte
  carry.value = random_double(random);
  carry.heads = random.next() % 48 == 0 ? 1u + static_cast<std::uint32_t>(random.below(3)) : 0u;
  return carry;
}

// The look-back's absorbing values for a carry type (look_back.h): the segment carry's starts.
template <class Accum>
struct absorbing_for
{
  using type = spscan::detail::nothing_absorbs;
};
template <>
struct absorbing_for<segment_float>
{
  using type = segment_float_absorbing;
};
double random_double(splitmix& random)
{
  const double mantissa = static_cast<double>(random.next() >> 11) / double(1ull << 52) - 1.0; // [-1, 1)
  return std::ldexp(mantissa == 0.0 ? 0.5 : mantissa, static_cast<int>(random.below(21)) - 10);
}
affine_float random_affine_float(splitmix& random)
{
  const float a = 1.0f + 0.5f * random.unit(); // in [0.5, 1.5): long products neither vanish nor explode
  return {a, random.unit()};
}

// ----------------------------------------------------------------------------------------------
// Timing: a schedule's chaos profile says how each protocol step may be delayed; each thread's
// pacer draws the delays. The State wrapper and the lanes reach the current thread's pacer.

enum class lane_order
{
  ascending,
  descending,
  shuffled,
};

struct chaos_profile
{
  std::uint32_t calm_per_mille  = 1000; // steps that add no delay at all
  std::uint32_t yield_per_mille = 0; // of the delayed steps, those that yield the core (else spin)
  std::uint32_t spin_limit      = 0; // a spin lasts 0 .. spin_limit iterations
  std::uint32_t sleep_one_in    = 0; // 0: never; else one delayed step in this many sleeps a little
  int yields_before_sleeping    = 256; // a waiting thread yields this many times in a row, then sleeps
  lane_order order              = lane_order::ascending;
};

// Thrown to end a thread's part in a schedule that is over (hung, or a protocol violation seen).
struct schedule_stopped
{};

// The deadline of one schedule, and the record of what stopped it early. Every wait (a look-back
// pause, a turn to take a tile id) and every window read checks it, so a hang or a look-back
// that loops without end stops every thread of the schedule and is reported, not endured.
class schedule_watch
{
public:
  explicit schedule_watch(clock_type::duration limit)
      : deadline_(clock_type::now() + limit)
  {}
  void check() const
  {
    if (stopped_.load(std::memory_order_relaxed))
    {
      throw schedule_stopped{};
    }
    if (clock_type::now() > deadline_)
    {
      hung_.store(true);
      stopped_.store(true);
      throw schedule_stopped{};
    }
  }
  // Something no correct look-back does: the schedule ends and reports it.
  [[noreturn]] void violation(const std::string& what) const
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (violation_.empty())
      {
        violation_ = what;
      }
    }
    stopped_.store(true);
    throw schedule_stopped{};
  }
  bool hung() const
  {
    return hung_.load();
  }
  std::string violation() const
  {
    std::lock_guard<std::mutex> lock(mutex_);
    return violation_;
  }

private:
  clock_type::time_point deadline_;
  mutable std::atomic<bool> stopped_{false};
  mutable std::atomic<bool> hung_{false};
  mutable std::mutex mutex_;
  mutable std::string violation_;
};

// What the schedules made the look-back do, so that tests can assert the hard paths ran.
struct model_stats
{
  std::atomic<std::uint64_t> look_backs{0};
  std::atomic<std::uint64_t> look_backs_that_waited{0}; // paused on an X at least once
  std::atomic<std::uint64_t> look_backs_that_walked_back{0}; // passed over a window of A's only
  std::atomic<std::uint64_t> look_backs_restarted_forward{0}; // found a fresher P on the way forward
  std::atomic<std::uint64_t> look_backs_folding_aggregates{0}; // the last window had A's after its P
  std::atomic<std::uint64_t> look_backs_found_p_deep{0}; // in a read's farther window, past a window of A's
  std::atomic<std::uint64_t> windows_reaching_before_tile_0{0};
  std::atomic<std::uint64_t> pauses{0};
  std::atomic<std::uint64_t> walks_back{0}; // counted as they happen (a held tile waits on this)
  std::atomic<int> most_windows_walked_back{0}; // by a single look-back

  template <class Lanes>
  void record_look_back(const Lanes& lanes)
  {
    const auto count = [](std::atomic<std::uint64_t>& counter, bool happened) {
      if (happened)
      {
        counter.fetch_add(1, std::memory_order_relaxed);
      }
    };
    count(look_backs, true);
    count(look_backs_that_waited, lanes.pauses() > 0);
    count(look_backs_that_walked_back, lanes.walks_back() > 0);
    count(look_backs_restarted_forward, lanes.forward_restarts() > 0);
    count(look_backs_folding_aggregates, highest_set_lane(lanes.mask(0, status_prefix)) < look_back_window - 1);
    count(look_backs_found_p_deep, lanes.deep_finds() > 0);
    count(windows_reaching_before_tile_0, lanes.first_tile() < 0);
    int most = most_windows_walked_back.load();
    while (lanes.walks_back() > most && !most_windows_walked_back.compare_exchange_weak(most, lanes.walks_back()))
    {
    }
  }
};

class pacer
{
public:
  pacer(const chaos_profile& chaos, std::uint64_t seed, const schedule_watch& watch, model_stats& stats)
      : chaos_(chaos)
      , random_(seed)
      , watch_(watch)
      , stats_(stats)
  {}

  // One protocol step has happened: maybe let time pass before the next.
  void step()
  {
    if (random_.below(1000) < chaos_.calm_per_mille)
    {
      return;
    }
    if (chaos_.sleep_one_in != 0 && random_.below(chaos_.sleep_one_in) == 0)
    {
      std::this_thread::sleep_for(std::chrono::microseconds(1 + random_.below(20)));
    }
    else if (random_.below(1000) < chaos_.yield_per_mille)
    {
      std::this_thread::yield();
    }
    else
    {
      spin(random_.below(chaos_.spin_limit + 1));
    }
  }

  // A tile's load and reduction before it publishes A: often nothing, sometimes long, so that
  // successors find it still X.
  void tile_work()
  {
    switch (random_.below(8))
    {
      case 0: std::this_thread::yield(); break;
      case 1:
      case 2: spin(random_.below(4 * chaos_.spin_limit + 256)); break;
      case 3:
        for (std::uint32_t i = random_.below(4); i-- > 0;)
        {
          std::this_thread::yield();
        }
        spin(random_.below(chaos_.spin_limit + 1));
        break;
      default: break;
    }
  }

  // A gap that is always there: for a planted bug whose window of exposure must be real.
  void gap()
  {
    std::this_thread::yield();
    spin(64 + random_.below(2048));
  }

  // Pacer interface of host_lanes.
  void order_lanes(int (&order)[look_back_window])
  {
    for (int i = 0; i < look_back_window; ++i)
    {
      order[i] = chaos_.order == lane_order::descending ? look_back_window - 1 - i : i;
    }
    if (chaos_.order == lane_order::shuffled)
    {
      for (int i = look_back_window - 1; i > 0; --i)
      {
        std::swap(order[i], order[random_.below(static_cast<std::uint32_t>(i) + 1)]);
      }
    }
  }
  void between_reads()
  {
    step();
  }
  // A look-back reads only windows that hold at least one tile in [0, its own tile); a blocked
  // one reads whole blocks (its own block's lanes from the tile on read nothing).
  void begin_look_back(std::size_t tile, bool blocked = false)
  {
    look_back_tile_ = static_cast<long long>(tile);
    blocked_reads_  = blocked;
  }
  template <class Lanes>
  void window_read(const Lanes& lanes)
  {
    const long long first = lanes.first_tile();
    const long long end   = blocked_reads_ ? look_back_tile_ / look_back_window * look_back_window + look_back_window
                                           : look_back_tile_;
    const bool aligned    = !blocked_reads_ || first % look_back_window == 0;
    if (first + look_back_window <= 0 || first + look_back_window > end || !aligned)
    {
      watch_.violation("tile " + std::to_string(look_back_tile_) + " read the window of tiles [" +
                       std::to_string(first) + ", " + std::to_string(first + look_back_window) + ")");
    }
    watch_.check();
    if (lanes.walked_back())
    {
      stats_.walks_back.fetch_add(1, std::memory_order_relaxed);
    }
  }
  template <class Lanes>
  void pause(const Lanes& lanes)
  {
    stats_.pauses.fetch_add(1, std::memory_order_relaxed);
    back_off(lanes.pauses());
    step();
    watch_.check();
  }

  // Waiting for something other than a tile state (a turn to take an id, a held tile's release);
  // `attempt` counts the waits in a row.
  void wait(int attempt)
  {
    back_off(attempt);
    watch_.check();
  }

private:
  // Short waits yield; long ones sleep, longer and longer, as the device's look-back backs off
  // with a growing __nanosleep. Yielding alone is not enough on the host: with many more threads
  // than cores, a thread that yields may stay off the core for milliseconds while its peers
  // spin, so schedules with many threads sleep early.
  void back_off(int attempt)
  {
    const int sleeps = attempt - chaos_.yields_before_sleeping;
    if (sleeps <= 0)
    {
      std::this_thread::yield();
    }
    else
    {
      std::this_thread::sleep_for(std::chrono::microseconds(1 << std::min(sleeps, 9)));
    }
  }

  static void spin(std::uint32_t iterations)
  {
    volatile std::uint32_t sink = 0; // on this thread's stack: the spin shares no cache line
    for (std::uint32_t i = 0; i < iterations; ++i)
    {
      sink = i;
    }
    static_cast<void>(sink);
  }

  const chaos_profile& chaos_;
  long long look_back_tile_ = 0;
  bool blocked_reads_        = false;
  splitmix random_;
  const schedule_watch& watch_;
  model_stats& stats_;
};

// The pacer of the thread running this code (every thread of a schedule sets its own).
thread_local pacer* this_threads_pacer = nullptr;

void step_here()
{
  if (this_threads_pacer != nullptr)
  {
    this_threads_pacer->step();
  }
}

// ----------------------------------------------------------------------------------------------
// The seams through which timing and planted bugs enter: a State wrapper around the library's
// tile state (delays before and after every publish and load, and the State-level bugs) and the
// op handed to the look-back (the operand-order bug).

enum class planted_bug
{
  none,
  // Split layout only (its status storage holds one 32-bit word per tile): the status is stored
  // first, then, after a gap, the library's publish writes the value (and the status again).
  status_before_value,
  empty_read_as_aggregate, // a reader takes an X for an A whose value is garbage
  aggregate_read_as_prefix, // a reader takes an A for a P, so it stops at an A
  publications_lost, // one tile's publications never become visible: its successors wait forever
  // On storage the last call left (storage_history::left_by_last_call): a reader takes a state
  // of the last call's epoch for one of this call's, where this call's tile has published nothing.
  stale_state_read_as_current,
};

const char* name_of(planted_bug bug)
{
  switch (bug)
  {
    case planted_bug::none: return "none";
    case planted_bug::status_before_value: return "status_before_value";
    case planted_bug::empty_read_as_aggregate: return "empty_read_as_aggregate";
    case planted_bug::aggregate_read_as_prefix: return "aggregate_read_as_prefix";
    case planted_bug::publications_lost: return "publications_lost";
    case planted_bug::stale_state_read_as_current: return "stale_state_read_as_current";
  }
  return "?";
}

// The library's tile state as the look-back sees it, with a protocol step (and a possible delay)
// before and after every publish and load, and the State-level planted bugs.
template <class Inner, class Accum>
class model_state
{
public:
  // `inner` reads and writes in `epoch`; `last_call` is the same storage in the epoch before.
  model_state(Inner inner,
              Inner last_call,
              std::uint32_t epoch,
              std::uint32_t* split_status_words,
              planted_bug bug,
              std::size_t victim_tile)
      : inner_(inner)
      , last_call_(last_call)
      , epoch_(epoch)
      , split_status_words_(split_status_words)
      , bug_(bug)
      , victim_tile_(victim_tile)
  {}

  void publish(std::size_t tile, tile_status status, const Accum& value) const
  {
    step_here();
    if constexpr (!Inner::packed)
    {
      if (bug_ == planted_bug::status_before_value)
      {
        device_atomic_ref<std::uint32_t>(split_status_words_[tile])
          .store(status_word(status, epoch_), ::cuda::std::memory_order_release);
        if (this_threads_pacer != nullptr)
        {
          this_threads_pacer->gap();
        }
      }
    }
    inner_.publish(tile, status, value);
    step_here();
  }

  tile_snapshot<Accum> load(std::size_t tile) const
  {
    step_here();
    tile_snapshot<Accum> snapshot = inner_.load(tile);
    switch (bug_)
    {
      case planted_bug::empty_read_as_aggregate:
        if (snapshot.status == status_empty)
        {
          snapshot.status = status_aggregate;
          std::memset(&snapshot.value, spscan_test::poison_byte, sizeof(Accum));
        }
        break;
      case planted_bug::aggregate_read_as_prefix:
        if (snapshot.status == status_aggregate)
        {
          snapshot.status = status_prefix;
        }
        break;
      case planted_bug::publications_lost:
        if (tile == victim_tile_)
        {
          snapshot = {status_empty, Accum{}};
        }
        break;
      case planted_bug::stale_state_read_as_current:
        if (snapshot.status == status_empty)
        {
          snapshot = last_call_.load(tile);
        }
        break;
      default: break;
    }
    step_here();
    return snapshot;
  }

private:
  Inner inner_;
  Inner last_call_;
  std::uint32_t epoch_;
  std::uint32_t* split_status_words_;
  planted_bug bug_;
  std::size_t victim_tile_;
};

// The op the look-back folds with; `swapped` plants the wrong operand order (later, earlier).
// The tile's own op(prefix, aggregate) keeps the right order: only the look-back is broken.
template <class Op>
struct look_back_op
{
  Op op;
  bool swapped;
  template <class T>
  T operator()(const T& earlier, const T& later) const
  {
    return swapped ? op(later, earlier) : op(earlier, later);
  }
};

struct planted_bugs
{
  planted_bug state     = planted_bug::none;
  bool swapped_operands = false;
  bool mid_block_prefix = false; // blocked association: every tile publishes P, not only a block's last
};

// Which association the tiles play: the left fold (look_back.h) or the blocked one
// (blocked_look_back.h, where only a block's last tile publishes P and tile 0 publishes A).
enum class association
{
  left_fold,
  blocked,
};

// What the storage holds when the call starts: all zero (a cleared block, epoch 0), or the states
// of the call before on the same kept block, this call reading and writing in the next epoch
// (common/tile_state.h, classic/launch.h): every tile A or P of that call's values, or X.
enum class storage_history
{
  fresh,
  left_by_last_call,
};

// ----------------------------------------------------------------------------------------------
// Backstop: a schedule stuck somewhere that never reaches a deadline check (say, a future loop
// without a pause) would stall the whole run; this watcher names it and aborts instead.

class hang_backstop
{
public:
  static hang_backstop& instance()
  {
    static hang_backstop* backstop = new hang_backstop; // never destroyed: its thread outlives main
    return *backstop;
  }
  void arm(const std::string* description, clock_type::time_point limit)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    description_ = description;
    limit_       = limit;
  }
  void disarm()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    description_ = nullptr;
  }

private:
  hang_backstop()
  {
    std::thread([this] {
      for (;;)
      {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        std::lock_guard<std::mutex> lock(mutex_);
        if (description_ != nullptr && clock_type::now() > limit_)
        {
          std::fprintf(stderr, "lookback model: schedule hung past its deadline without ending: %s\n",
                       description_->c_str());
          std::abort();
        }
      }
    }).detach();
  }
  std::mutex mutex_;
  const std::string* description_ = nullptr;
  clock_type::time_point limit_;
};

// ----------------------------------------------------------------------------------------------
// Schedules.

enum class take_mode
{
  // Each thread loops: fetch_add on a shared counter, play that tile (as CTAs take ids).
  shared_counter,
  // Tiles are dealt to threads at random beforehand (each thread plays its own in increasing
  // order); a thread may take tile k only once tiles 0..k-1 have been taken. Lower ids are then
  // always already held by a running thread: the premise of deadlock freedom, kept exactly.
  dealt_turns,
};

enum class schedule_family
{
  small, // 2..40 tiles, 1..4 threads: windows reach before tile 0
  long_chain, // hundreds of tiles, few threads: many windows, each tile a long way from tile 0
  wide, // 36..72 threads, one tile held back: windows of A's only, walks back, forward restarts
};

struct schedule_plan
{
  std::uint64_t batch_seed = 0;
  std::size_t index        = 0;
  std::uint64_t seed       = 0; // this schedule's: drives its data and timing draws
  schedule_family family   = schedule_family::small;
  std::size_t tiles        = 2;
  unsigned threads         = 1;
  take_mode mode           = take_mode::shared_counter;
  bool has_init            = false;
  chaos_profile chaos;
  long long held_tile           = -1; // held before publishing A until successors pile up (wide)
  int depth                     = 1; // windows per look-back read (the library's default is 4)
  clock_type::duration deadline = std::chrono::seconds(20);

  std::string describe() const
  {
    std::ostringstream text;
    text << "schedule #" << index << " of batch seed " << batch_seed << " (schedule seed " << seed
         << "): family="
         << (family == schedule_family::small ? "small" : family == schedule_family::wide ? "wide" : "long")
         << " tiles=" << tiles << " threads=" << threads
         << " take=" << (mode == take_mode::shared_counter ? "shared_counter" : "dealt_turns")
         << " init=" << (has_init ? "yes" : "no") << " calm=" << chaos.calm_per_mille
         << "/1000 yield=" << chaos.yield_per_mille << "/1000 spin<=" << chaos.spin_limit
         << " sleep_one_in=" << chaos.sleep_one_in << " lane_order=" << static_cast<int>(chaos.order)
         << " held_tile=" << held_tile << " depth=" << depth;
    return text.str();
  }
};

chaos_profile random_chaos(splitmix& random)
{
  static constexpr std::uint32_t calm[]   = {1000, 995, 980, 900};
  static constexpr std::uint32_t yields[] = {0, 30, 300};
  static constexpr std::uint32_t spins[]  = {32, 512, 2048};
  chaos_profile chaos;
  chaos.calm_per_mille  = calm[random.below(4)];
  chaos.yield_per_mille = yields[random.below(3)];
  chaos.spin_limit      = spins[random.below(3)];
  chaos.sleep_one_in    = random.below(16) == 0 ? 4000 : 0;
  chaos.order           = static_cast<lane_order>(random.below(3));
  return chaos;
}

schedule_plan plan_schedule(schedule_family family, std::uint64_t batch_seed, std::size_t index, std::size_t max_tiles)
{
  schedule_plan plan;
  plan.batch_seed = batch_seed;
  plan.index      = index;
  plan.seed       = derive_seed(batch_seed, index);
  plan.family     = family;
  splitmix random(plan.seed);
  switch (family)
  {
    case schedule_family::small:
      plan.tiles   = random.between(2, 40);
      plan.threads = random.between(1, 4);
      plan.mode    = random.below(2) ? take_mode::shared_counter : take_mode::dealt_turns;
      break;
    case schedule_family::long_chain:
      plan.tiles   = random.between(100, 700);
      plan.threads = random.between(2, 8);
      plan.mode    = random.below(2) ? take_mode::shared_counter : take_mode::dealt_turns;
      break;
    case schedule_family::wide:
      plan.tiles     = random.between(120, 300);
      // A third of them hold more than two windows of successors: walks back over two windows.
      plan.threads   = random.below(3) == 0 ? 2 * look_back_window + 8
                                            : random.between(look_back_window + 4, 2 * look_back_window + 8);
      plan.mode      = take_mode::shared_counter; // dealt turns could leave the held tile's window unfilled
      plan.held_tile = random.between(0, static_cast<std::uint32_t>(plan.tiles) - look_back_window - 2);
      break;
  }
  // Deep reads in every family; the wide one stays mostly at one window per read, so that its
  // held tiles make look-backs walk back over several reads.
  static constexpr int depths[] = {1, 2, 4};
  plan.depth    = family == schedule_family::wide ? (random.below(3) == 0 ? 2 : 1) : depths[random.below(3)];
  plan.tiles    = std::min(plan.tiles, max_tiles);
  plan.has_init = random.below(2) != 0;
  plan.chaos    = random_chaos(random);
  if (family == schedule_family::wide)
  {
    // Many more threads than cores: a yield can cost milliseconds, so delays only spin, briefly,
    // and waits sleep.
    plan.chaos.calm_per_mille         = std::max<std::uint32_t>(plan.chaos.calm_per_mille, 980);
    plan.chaos.yield_per_mille        = 0;
    plan.chaos.spin_limit             = std::min<std::uint32_t>(plan.chaos.spin_limit, 512);
    plan.chaos.sleep_one_in           = 0;
    plan.chaos.yields_before_sleeping = 1;
  }
  if (plan.held_tile >= static_cast<long long>(plan.tiles))
  {
    plan.held_tile = -1;
  }
  return plan;
}

struct schedule_outcome
{
  bool hung              = false;
  bool violation         = false; // a look-back read a window it never should
  std::size_t mismatches = 0;
  std::string report; // the first mismatches, the violation or the hang

  bool failed() const
  {
    return hung || violation || mismatches != 0;
  }
};

// Hold the plan's held tile (before it publishes A) until as many successors as the threads allow
// (33 at least: more than a window) have published A and wait on it, and some look-back has
// walked back past a window of A's, or a time cap passes. On release, the waiting look-backs
// fold forward over windows whose tiles are turning from A to P while they read them.
template <class Inner>
void hold_back(
  std::size_t tile, const Inner& inner, std::size_t tiles, unsigned threads, pacer& pace, const model_stats& stats)
{
  const std::uint64_t walks_back_before = stats.walks_back.load();
  const auto cap = clock_type::now() + std::chrono::milliseconds(30);
  // The held thread and one spare aside, every thread can hold a waiting successor.
  const std::size_t successors = std::max<std::size_t>(look_back_window + 1, threads - 2);
  const std::size_t last       = std::min(tiles - 1, tile + successors);
  int attempt = 0;
  for (std::size_t t = tile + 1; t <= last && clock_type::now() < cap;)
  {
    if (inner.load(t).status == status_empty)
    {
      pace.wait(++attempt);
    }
    else
    {
      ++t;
    }
  }
  while (stats.walks_back.load() == walks_back_before && clock_type::now() < cap)
  {
    pace.wait(++attempt);
  }
}

// The library's look-back for `tile`, with host lanes reading Depth windows at a time.
template <int Depth, class Accum, class State, class Op>
Accum model_look_back(const State& state, std::size_t tile, Op& fold, pacer& pace, model_stats& stats)
{
  spscan_test::host_lanes<Accum, pacer, Depth> lanes(pace);
  const Accum prefix = exclusive_prefix_of<Accum, false, typename absorbing_for<Accum>::type>(
    state, static_cast<long long>(tile), fold, lanes);
  stats.record_look_back(lanes);
  return prefix;
}

// The library's blocked look-back for `tile`, with host lanes reading Depth blocks at a time.
template <int Depth, class Accum, class State, class Op>
Accum model_blocked_look_back(
  const State& state, std::size_t tile, const maybe_value<Accum>& initial, Op& fold, pacer& pace, model_stats& stats)
{
  spscan_test::host_lanes<Accum, pacer, Depth> lanes(pace);
  const Accum prefix = blocked_exclusive_prefix_of(state, static_cast<long long>(tile), initial, fold, lanes);
  stats.record_look_back(lanes);
  return prefix;
}

// Threads of a schedule block here until all of them exist.
class start_gate
{
public:
  void wait()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }
  void open()
  {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Runs one whole scan of `plan.tiles` tiles whose aggregates are aggregates[0 .. tiles) on
// plan.threads host threads, then checks every tile against the sequential left fold.
template <class Inner, class Accum, class Op>
schedule_outcome run_schedule(const schedule_plan& plan,
                              const std::vector<Accum>& aggregates,
                              const Accum& init,
                              const Op& op,
                              const planted_bugs& bugs,
                              model_stats& stats,
                              association order       = association::left_fold,
                              storage_history history = storage_history::fresh)
{
  const std::size_t tiles = plan.tiles;

  // Storage as the device has it: status words zeroed (X), value slots poisoned.
  std::vector<std::uint64_t> status_words((Inner::status_bytes(tiles) + 7) / 8, 0);
  std::vector<std::uint64_t> value_words((Inner::value_bytes(tiles) + 7) / 8);
  std::memset(value_words.data(), spscan_test::poison_byte, value_words.size() * sizeof(std::uint64_t));
  Inner inner(status_words.data(), value_words.data());
  Inner last_call = inner;

  splitmix plan_random(derive_seed(plan.seed, 7));
  const std::size_t victim = plan_random.below(static_cast<std::uint32_t>(tiles - 1));
  std::uint32_t epoch      = 0;
  if (history == storage_history::left_by_last_call)
  {
    // The last call's states: its own values (the aggregates in reverse), A, P or nothing.
    epoch = 1 + plan_random.below(Inner::max_epoch < 1000u ? Inner::max_epoch : 1000u);
    last_call.set_epoch(epoch - 1);
    for (std::size_t t = 0; t < tiles; ++t)
    {
      const std::uint32_t kind = plan_random.below(3);
      if (kind != 0)
      {
        last_call.publish(t, kind == 1 ? status_aggregate : status_prefix, aggregates[tiles - 1 - t]);
      }
    }
    inner.set_epoch(epoch);
  }
  const model_state<Inner, Accum> state(
    inner, last_call, epoch, reinterpret_cast<std::uint32_t*>(status_words.data()), bugs.state, victim);

  // dealt_turns: deal each tile to a random thread; each thread's list comes out increasing.
  std::vector<std::vector<std::size_t>> dealt(plan.threads);
  if (plan.mode == take_mode::dealt_turns)
  {
    for (std::size_t tile = 0; tile < tiles; ++tile)
    {
      dealt[plan_random.below(plan.threads)].push_back(tile);
    }
  }
  std::vector<unsigned> launch_order(plan.threads);
  for (unsigned w = 0; w < plan.threads; ++w)
  {
    launch_order[w] = w;
  }
  for (unsigned w = plan.threads; w > 1; --w)
  {
    std::swap(launch_order[w - 1], launch_order[plan_random.below(w)]);
  }

  std::vector<Accum> prefixes(tiles); // each tile's exclusive prefix, written by its own thread
  std::atomic<std::size_t> next_tile{0};
  std::atomic<std::size_t> tiles_taken{0};
  schedule_watch watch(plan.deadline);
  start_gate gate;

  // One tile, as a CTA plays it (classic/driver.h: tile_context::exchange).
  auto play_tile = [&](std::size_t tile, pacer& pace) {
    pace.tile_work();
    if (static_cast<long long>(tile) == plan.held_tile)
    {
      hold_back(tile, inner, tiles, plan.threads, pace, stats);
    }
    const Accum aggregate = aggregates[tile];
    if (order == association::blocked)
    {
      state.publish(tile, status_aggregate, aggregate);
      if (tile == 0)
      {
        return;
      }
      pace.step();
      pace.begin_look_back(tile, true);
      look_back_op<Op> fold{op, bugs.swapped_operands};
      const maybe_value<Accum> initial{init, plan.has_init};
      const Accum prefix = plan.depth == 4 ? model_blocked_look_back<4>(state, tile, initial, fold, pace, stats)
                         : plan.depth == 2 ? model_blocked_look_back<2>(state, tile, initial, fold, pace, stats)
                                           : model_blocked_look_back<1>(state, tile, initial, fold, pace, stats);
      pace.step();
      prefixes[tile] = prefix;
      if (tile % association_block == association_block - 1 || bugs.mid_block_prefix)
      {
        state.publish(tile, status_prefix, op(prefix, aggregate));
      }
      return;
    }
    if (tile == 0)
    {
      state.publish(0, status_prefix, plan.has_init ? op(init, aggregate) : aggregate);
      return;
    }
    state.publish(tile, status_aggregate, aggregate);
    pace.step();
    pace.begin_look_back(tile);
    look_back_op<Op> fold{op, bugs.swapped_operands};
    const Accum prefix = plan.depth == 4 ? model_look_back<4, Accum>(state, tile, fold, pace, stats)
                       : plan.depth == 2 ? model_look_back<2, Accum>(state, tile, fold, pace, stats)
                                         : model_look_back<1, Accum>(state, tile, fold, pace, stats);
    pace.step();
    prefixes[tile] = prefix;
    state.publish(tile, status_prefix, op(prefix, aggregate));
  };

  auto worker = [&](unsigned w) {
    pacer pace(plan.chaos, derive_seed(plan.seed, 100 + w), watch, stats);
    this_threads_pacer = &pace;
    try
    {
      gate.wait(); // all threads exist before any plays, so that they overlap
      pace.step(); // then they start at scattered moments
      for (std::size_t k = 0;; ++k)
      {
        std::size_t tile;
        if (plan.mode == take_mode::shared_counter)
        {
          pace.step();
          tile = next_tile.fetch_add(1, std::memory_order_relaxed);
          if (tile >= tiles)
          {
            break;
          }
        }
        else
        {
          if (k >= dealt[w].size())
          {
            break;
          }
          tile = dealt[w][k];
          for (int attempt = 1; tiles_taken.load(std::memory_order_acquire) != tile; ++attempt)
          {
            pace.wait(attempt);
          }
          tiles_taken.store(tile + 1, std::memory_order_release);
        }
        play_tile(tile, pace);
      }
    }
    catch (const schedule_stopped&)
    {
      // The watch records why; this thread just stops playing.
    }
    this_threads_pacer = nullptr;
  };

  const std::string description = plan.describe();
  hang_backstop::instance().arm(&description, clock_type::now() + plan.deadline + std::chrono::seconds(30));
  {
    std::vector<std::thread> threads;
    threads.reserve(plan.threads);
    for (const unsigned w : launch_order)
    {
      threads.emplace_back(worker, w);
    }
    gate.open();
    for (auto& thread : threads)
    {
      thread.join();
    }
  }
  hang_backstop::instance().disarm();

  schedule_outcome outcome;
  std::ostringstream report;
  const std::string planted = bugs.state != planted_bug::none || bugs.swapped_operands || bugs.mid_block_prefix
                                ? std::string(" [planted bug: ") + name_of(bugs.state) +
                                    (bugs.swapped_operands ? ", swapped operands" : "") +
                                    (bugs.mid_block_prefix ? ", P mid-block" : "") + "]"
                                : std::string();
  if (watch.hung())
  {
    outcome.hung = true;
    report << "HUNG (no finish within the deadline): " << description << planted;
    outcome.report = report.str();
    return outcome;
  }
  if (!watch.violation().empty())
  {
    outcome.violation = true;
    report << "PROTOCOL VIOLATION: " << watch.violation() << " in " << description << planted;
    outcome.report = report.str();
    return outcome;
  }

  if (order == association::blocked)
  {
    // The blocked association, on this thread: every tile's prefix, and a P (= B(k)) published by
    // the last tile of each whole block only, every other tile's A its aggregate.
    const std::vector<Accum> played(aggregates.begin(), aggregates.begin() + static_cast<std::ptrdiff_t>(tiles));
    const auto expected = spscan_test::reference_blocked_fold(played, plan.has_init, init, op);
    for (std::size_t tile = 0; tile < tiles; ++tile)
    {
      if (tile > 0 && !same_bits(prefixes[tile], expected.prefix[tile]))
      {
        if (++outcome.mismatches <= 3)
        {
          report << "tile " << tile << ": exclusive prefix " << hex_bytes(prefixes[tile]) << ", blocked fold "
                 << hex_bytes(expected.prefix[tile]) << "\n";
        }
      }
      const bool block_end          = tile % association_block == association_block - 1;
      const Accum& want             = block_end ? expected.block_prefix[tile / association_block] : aggregates[tile];
      const tile_snapshot<Accum> got = inner.load(tile);
      if (got.status != (block_end ? status_prefix : status_aggregate) || !same_bits(got.value, want))
      {
        if (++outcome.mismatches <= 3)
        {
          report << "tile " << tile << ": published status " << got.status << " value " << hex_bytes(got.value)
                 << ", blocked fold " << hex_bytes(want) << "\n";
        }
      }
    }
    if (outcome.mismatches != 0)
    {
      report << outcome.mismatches << " mismatches in " << description << planted << " (blocked association)";
    }
    outcome.report = report.str();
    return outcome;
  }

  // The sequential left fold, on this thread: exclusive[i] = fold(init?, A0 .. A(i-1)),
  // inclusive[i] = fold(init?, A0 .. Ai), always grouped ((x op A0) op A1) op ...
  Accum running = init;
  for (std::size_t tile = 0; tile < tiles; ++tile)
  {
    const bool has_prefix = tile > 0 || plan.has_init;
    if (tile > 0 && !same_bits(prefixes[tile], running))
    {
      if (++outcome.mismatches <= 3)
      {
        report << "tile " << tile << ": exclusive prefix " << hex_bytes(prefixes[tile]) << ", left fold "
               << hex_bytes(running) << "\n";
      }
    }
    running = has_prefix ? op(running, aggregates[tile]) : aggregates[tile];
    const tile_snapshot<Accum> published = inner.load(tile);
    if (published.status != status_prefix || !same_bits(published.value, running))
    {
      if (++outcome.mismatches <= 3)
      {
        report << "tile " << tile << ": published status " << published.status << " value "
               << hex_bytes(published.value) << ", left fold " << hex_bytes(running) << "\n";
      }
    }
  }
  if (outcome.mismatches != 0)
  {
    report << outcome.mismatches << " mismatches in " << description << planted;
  }
  outcome.report = report.str();
  return outcome;
}

// ----------------------------------------------------------------------------------------------
// Batches: many schedules, each with its own plan and (for the integer ops) its own data.

struct batch_result
{
  std::size_t schedules  = 0;
  std::size_t failed     = 0;
  std::size_t hung       = 0;
  std::string first_failure;
  std::size_t first_failure_schedule = 0;
};

struct batch_mix
{
  std::size_t small      = 0;
  std::size_t long_chain = 0;
  std::size_t wide       = 0;

  std::size_t total() const
  {
    return small + long_chain + wide;
  }
  // The long and wide schedules are spread evenly among the small ones, so that a batch that
  // stops at its first failure has met every family early on.
  schedule_family family_of(std::size_t index) const
  {
    const std::size_t specials = long_chain + wide;
    if (specials == 0)
    {
      return schedule_family::small;
    }
    const std::size_t stride = total() / specials;
    const std::size_t k      = index / stride;
    if (index % stride != stride - 1 || k >= specials)
    {
      return schedule_family::small;
    }
    return (k + 1) * wide / specials != k * wide / specials ? schedule_family::wide : schedule_family::long_chain;
  }
};

// MakeData(splitmix&, tiles, aggregates&, init&) fills a schedule's data.
template <class Inner, class Accum, class Op, class MakeData>
batch_result run_batch(std::uint64_t seed,
                       const batch_mix& mix,
                       const Op& op,
                       MakeData make_data,
                       const planted_bugs& bugs,
                       bool stop_at_first_failure,
                       model_stats& stats,
                       std::size_t max_tiles         = ~std::size_t{0},
                       clock_type::duration deadline = std::chrono::seconds(20),
                       association order             = association::left_fold,
                       storage_history history       = storage_history::fresh)
{
  batch_result result;
  std::vector<Accum> aggregates;
  Accum init{};
  for (std::size_t i = 0; i < mix.total(); ++i)
  {
    schedule_plan plan = plan_schedule(mix.family_of(i), seed, i, max_tiles);
    plan.deadline      = deadline;
    splitmix data_random(derive_seed(plan.seed, 3));
    make_data(data_random, plan.tiles, aggregates, init);
    const schedule_outcome outcome = run_schedule<Inner>(plan, aggregates, init, op, bugs, stats, order, history);
    ++result.schedules;
    if (outcome.failed())
    {
      if (result.failed++ == 0)
      {
        result.first_failure          = outcome.report;
        result.first_failure_schedule = i;
      }
      result.hung += outcome.hung ? 1 : 0;
      if (stop_at_first_failure)
      {
        break;
      }
    }
  }
  return result;
}

// Fresh random aggregates and init for each schedule.
template <class Accum, class Draw>
auto fresh_data(Draw draw)
{
  return [draw](splitmix& random, std::size_t tiles, std::vector<Accum>& aggregates, Accum& init) {
    aggregates.resize(tiles);
    for (auto& a : aggregates)
    {
      a = draw(random);
    }
    init = draw(random);
  };
}

// One fixed data set shared by every schedule (a schedule uses its first `tiles` entries), so
// that all schedules must publish the very same bits.
template <class Accum>
auto fixed_data(const std::vector<Accum>& all, const Accum& fixed_init)
{
  return [&all, fixed_init](splitmix&, std::size_t tiles, std::vector<Accum>& aggregates, Accum& init) {
    aggregates.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(tiles));
    init = fixed_init;
  };
}

// ----------------------------------------------------------------------------------------------
// Budgets. Correct protocol: 10^5 schedules split over the two layouts (plus the float ones),
// mostly small, some long chains and some wide ones. Planted bugs: caught within a bound.

constexpr batch_mix correctness_mix{49'400, 480, 120}; // 50'000 per layout
constexpr std::size_t correctness_schedules_per_layout = 50'000;
static_assert(correctness_mix.small + correctness_mix.long_chain + correctness_mix.wide
              == correctness_schedules_per_layout);
static_assert(2 * correctness_schedules_per_layout >= 100'000, "the model must run at least 10^5 schedules");

constexpr batch_mix teeth_mix{5'000, 0, 0}; // a planted bug must show within these (typically a few)
constexpr batch_mix float_mix{4'880, 100, 20};

using packed_affine      = packed_tile_state<affine16>;
using split_matrix       = split_tile_state<mat2>;
using packed_float       = packed_tile_state<float>;
using packed_double      = packed_tile_state<double>; // a 128-bit word
using split_affine_float = split_tile_state<affine_float>;
using packed_segment     = packed_tile_state<segment_float>; // a 128-bit word
using packed_run_double  = run_tile_state<double>;

const auto affine16_data = fresh_data<affine16>(random_affine16);
const auto mat2_data     = fresh_data<mat2>(random_mat2);

void expect_coverage(const model_stats& stats)
{
  // The hard paths of the look-back must actually have run, or the zero mismatches mean little.
  EXPECT_GT(stats.look_backs.load(), 0u);
  EXPECT_GT(stats.look_backs_that_waited.load(), 0u) << "no look-back ever waited on an X";
  EXPECT_GT(stats.look_backs_folding_aggregates.load(), 0u) << "no look-back ever folded an A";
  EXPECT_GT(stats.windows_reaching_before_tile_0.load(), 0u) << "no window reached before tile 0";
  EXPECT_GT(stats.look_backs_that_walked_back.load(), 0u) << "no look-back ever walked past a window of A's";
  EXPECT_GE(stats.most_windows_walked_back.load(), 2) << "no look-back ever walked past two windows of A's";
  EXPECT_GT(stats.look_backs_restarted_forward.load(), 0u) << "no forward re-read ever found a fresher P";
  EXPECT_GT(stats.look_backs_found_p_deep.load(), 0u) << "no deep read ever found its P beyond its nearest window";
}

std::string coverage_line(const model_stats& stats)
{
  std::ostringstream text;
  text << "look-backs " << stats.look_backs << ", waited " << stats.look_backs_that_waited << ", walked back "
       << stats.look_backs_that_walked_back << ", restarted forward " << stats.look_backs_restarted_forward
       << ", folded A's " << stats.look_backs_folding_aggregates << ", windows before tile 0 "
       << stats.windows_reaching_before_tile_0 << ", P found deep " << stats.look_backs_found_p_deep << ", pauses "
       << stats.pauses << ", most reads walked back "
       << stats.most_windows_walked_back;
  return text.str();
}

// ----------------------------------------------------------------------------------------------
// The protocol is correct for a non-commutative op, in both layouts, under every schedule.

TEST(LookBackModel, PackedLayoutPrefixesAreTheLeftFoldOfAffineMapsUnderAdversarialSchedules)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << correctness_mix.total() << " schedules");
  model_stats stats;
  const batch_result result =
    run_batch<packed_affine, affine16>(seed, correctness_mix, affine16_then{}, affine16_data, {}, false, stats);
  EXPECT_EQ(result.schedules, correctness_schedules_per_layout);
  EXPECT_EQ(result.hung, 0u);
  EXPECT_EQ(result.failed, 0u) << result.first_failure;
  expect_coverage(stats);
  RecordProperty("coverage", coverage_line(stats));
}

TEST(LookBackModel, SplitLayoutPrefixesAreTheLeftFoldOfMatrixProductsUnderAdversarialSchedules)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << correctness_mix.total() << " schedules");
  model_stats stats;
  const batch_result result =
    run_batch<split_matrix, mat2>(seed, correctness_mix, mat2_product{}, mat2_data, {}, false, stats);
  EXPECT_EQ(result.schedules, correctness_schedules_per_layout);
  EXPECT_EQ(result.hung, 0u);
  EXPECT_EQ(result.failed, 0u) << result.first_failure;
  expect_coverage(stats);
  RecordProperty("coverage", coverage_line(stats));
}

// ----------------------------------------------------------------------------------------------
// Reproducibility: floating-point results are bitwise the left fold, whatever the timing.

// How many tiles' exclusive prefixes would change bits if the last two aggregates before a tile
// were grouped first (as a look-back that combined its window before the P would do).
template <class Accum, class Op>
std::size_t grouping_sensitive_tiles(const std::vector<Accum>& aggregates, const Op& op)
{
  std::size_t sensitive = 0;
  Accum fold_before = aggregates[0]; // fold(A0 .. A(i-3))
  for (std::size_t i = 3; i < aggregates.size(); ++i)
  {
    const Accum left  = op(op(fold_before, aggregates[i - 2]), aggregates[i - 1]);
    const Accum other = op(fold_before, op(aggregates[i - 2], aggregates[i - 1]));
    sensitive += same_bits(left, other) ? 0 : 1;
    fold_before = op(fold_before, aggregates[i - 2]);
  }
  return sensitive;
}

template <class Inner, class Accum, class Op, class Draw>
void expect_bitwise_left_fold(const Op& op, Draw draw)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  constexpr std::size_t max_tiles = 400;
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << float_mix.total() << " schedules of up to "
                                  << max_tiles << " tiles");
  splitmix random(seed);
  std::vector<Accum> all(max_tiles);
  for (auto& a : all)
  {
    a = draw(random);
  }
  const Accum init = draw(random);
  // The check has teeth only if another grouping would give other bits on this data.
  const std::size_t sensitive = grouping_sensitive_tiles(all, op);
  ASSERT_GT(sensitive, max_tiles / 20);
  testing::Test::RecordProperty("grouping_sensitive_tiles", static_cast<int>(sensitive));

  // Whether a look-back ever finds a fresher P on its way forward depends on how the threads
  // interleave, which the machine's load changes: batches run until one has (at most four), and
  // every batch must be exact.
  model_stats stats;
  for (std::uint64_t batch = 0; batch < 4 && (batch == 0 || stats.look_backs_restarted_forward.load() == 0); ++batch)
  {
    const batch_result result = run_batch<Inner, Accum>(batch == 0 ? seed : derive_seed(seed, batch), float_mix, op,
                                                        fixed_data(all, init), {}, false, stats, max_tiles);
    EXPECT_EQ(result.schedules, float_mix.total());
    EXPECT_EQ(result.hung, 0u);
    EXPECT_EQ(result.failed, 0u) << result.first_failure;
  }
  EXPECT_GT(stats.look_backs_folding_aggregates.load(), 0u);
  EXPECT_GT(stats.look_backs_restarted_forward.load(), 0u);
  testing::Test::RecordProperty("coverage", coverage_line(stats));
}

TEST(LookBackModel, FloatSumsArePublishedBitwiseAsTheLeftFoldUnderEverySchedule)
{
  expect_bitwise_left_fold<packed_float, float>(float_plus{}, random_float);
}

TEST(LookBackModel, DoubleSumsInTheWidePackedLayoutArePublishedBitwiseAsTheLeftFoldUnderEverySchedule)
{
  static_assert(sizeof(packed_double::word) == 16);
  expect_bitwise_left_fold<packed_double, double>(double_plus{}, random_double);
}

TEST(LookBackModel, FloatAffineCompositionsArePublishedBitwiseAsTheLeftFoldUnderEverySchedule)
{
  expect_bitwise_left_fold<split_affine_float, affine_float>(affine_float_then{}, random_affine_float);
}

// A look-back that stops at an absorbing aggregate (a tile that starts a segment) instead of a P
// publishes the same bits as the left fold through every earlier tile.
TEST(LookBackModel, SegmentCarriesStoppingAtSegmentStartsArePublishedBitwiseAsTheLeftFold)
{
  expect_bitwise_left_fold<packed_segment, segment_float>(segment_float_then{}, random_segment_float);
}

TEST(LookBackModel, RunCarriesOfDoublesInTheirPackedLayoutArePublishedBitwiseAsTheLeftFold)
{
  static_assert(std::is_same_v<tile_state_for<run_double>, packed_run_double>, "one 128-bit word a state");
  expect_bitwise_left_fold<packed_run_double, run_double>(run_double_then{}, random_run_double);
}

// ----------------------------------------------------------------------------------------------
// Teeth: each planted bug makes the checker report mismatches within a bounded number of
// schedules. The library is untouched; the bugs enter through the model's own seams.

template <class Inner, class Accum, class Op, class MakeData>
void expect_planted_bug_caught(const Op& op,
                               MakeData make_data,
                               planted_bugs bugs,
                               const char* what,
                               storage_history history = storage_history::fresh)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << what << ", seed " << seed);
  model_stats stats;
  const batch_result result =
    run_batch<Inner, Accum>(seed, teeth_mix, op, make_data, bugs, true, stats,
                            ~std::size_t{0}, std::chrono::seconds(5), association::left_fold, history);
  ASSERT_EQ(result.failed, 1u) << "planted bug survived " << result.schedules << " schedules";
  EXPECT_EQ(result.hung, 0u) << "expected wrong values, got a hang: " << result.first_failure;
  EXPECT_TRUE(result.first_failure.find("mismatches") != std::string::npos ||
              result.first_failure.find("PROTOCOL VIOLATION") != std::string::npos)
    << result.first_failure;
  const std::string layout = Inner::packed ? "packed" : "split";
  testing::Test::RecordProperty("schedules_until_caught_" + layout, static_cast<int>(result.schedules));
  testing::Test::RecordProperty("report_" + layout, result.first_failure);
}

// ----------------------------------------------------------------------------------------------
// Storage kept between calls is not cleared (classic/launch.h): each call reads and writes in the
// next epoch, and what the last call left in every tile must read as nothing.

template <class T>
bool same_published_value(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class Value>
bool same_published_value(const segment_carry<Value>& a, const segment_carry<Value>& b)
{
  return a.value == b.value && a.head == b.head; // not their padding
}

TEST(TileStateEpochs, AStateOfAnotherEpochReadsAsNothingInEveryLayout)
{
  const auto check = [](auto state, const auto& value, const char* layout) {
    SCOPED_TRACE(layout);
    using State = decltype(state);
    State earlier = state, current = state, cleared = state;
    earlier.set_epoch(6);
    current.set_epoch(7);
    cleared.set_epoch(0);
    EXPECT_EQ(current.load(2).status, status_empty) << "a zero word is X in every epoch";
    earlier.publish(2, status_prefix, value);
    EXPECT_EQ(earlier.load(2).status, status_prefix);
    EXPECT_EQ(current.load(2).status, status_empty) << "the last call's P read as this call's";
    EXPECT_EQ(cleared.load(2).status, status_empty) << "a tagged P read by a call on cleared storage";
    current.publish(2, status_aggregate, value);
    const auto read = current.load(2);
    EXPECT_EQ(read.status, status_aggregate);
    EXPECT_TRUE(same_published_value(read.value, value));
    EXPECT_EQ(earlier.load(2).status, status_empty) << "this call's A read by the last call's epoch";
    State last = state;
    last.set_epoch(State::max_epoch);
    last.publish(3, status_aggregate, value);
    EXPECT_EQ(last.load(3).status, status_aggregate) << "the last epoch a word holds";
    EXPECT_EQ(current.load(3).status, status_empty);
  };
  std::vector<std::uint64_t> words(64, 0), values(64, 0);
  check(packed_tile_state<float>(words.data(), nullptr), 1.5f, "packed, 64-bit word");
  std::fill(words.begin(), words.end(), 0);
  check(packed_tile_state<double>(words.data(), nullptr), 2.5, "packed, 128-bit word");
  std::fill(words.begin(), words.end(), 0);
  check(split_tile_state<mat2>(words.data(), values.data()), mat2{{1, 2, 3, 4}}, "split");
  std::fill(words.begin(), words.end(), 0);
  check(segment_tile_state<int>(words.data(), nullptr), segment_carry<int>{-9, true}, "segment carry, 64-bit word");
  std::fill(words.begin(), words.end(), 0);
  check(segment_tile_state<double>(words.data(), nullptr), segment_carry<double>{0.25, false}, "segment carry, 128-bit word");
  std::fill(words.begin(), words.end(), 0);
  run_double run{};
  run.value = -0.75;
  run.heads = 0xfffffffeu;
  check(run_tile_state<double>(words.data(), nullptr), run, "run carry, 128-bit word");
}

TEST(LookBackModel, CallsOnStorageTheLastCallLeftGiveTheLeftFoldInBothLayoutsAndTheBlockedFold)
{
  constexpr batch_mix mix{4'900, 80, 20};
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << mix.total() << " schedules a layout");
  model_stats stats;
  const batch_result packed = run_batch<packed_affine, affine16>(
    seed, mix, affine16_then{}, affine16_data, {}, false, stats, ~std::size_t{0}, std::chrono::seconds(20),
    association::left_fold, storage_history::left_by_last_call);
  EXPECT_EQ(packed.failed, 0u) << packed.first_failure;
  const batch_result split = run_batch<split_matrix, mat2>(
    derive_seed(seed, 1), mix, mat2_product{}, mat2_data, {}, false, stats, ~std::size_t{0},
    std::chrono::seconds(20), association::left_fold, storage_history::left_by_last_call);
  EXPECT_EQ(split.failed, 0u) << split.first_failure;
  const batch_result blocked = run_batch<packed_affine, affine16>(
    derive_seed(seed, 2), mix, affine16_then{}, affine16_data, {}, false, stats, ~std::size_t{0},
    std::chrono::seconds(20), association::blocked, storage_history::left_by_last_call);
  EXPECT_EQ(blocked.failed, 0u) << blocked.first_failure;
  EXPECT_GT(stats.look_backs_that_waited.load(), 0u) << "no look-back met a tile of this call not yet published";
}

TEST(LookBackModelTeeth, TheLastCallsStatesReadAsThisCallsAreCaughtInBothLayouts)
{
  expect_planted_bug_caught<packed_affine, affine16>(affine16_then{}, affine16_data,
                                                     {planted_bug::stale_state_read_as_current, false},
                                                     "packed layout, the last call's state read as this call's",
                                                     storage_history::left_by_last_call);
  expect_planted_bug_caught<split_matrix, mat2>(mat2_product{}, mat2_data,
                                                {planted_bug::stale_state_read_as_current, false},
                                                "split layout, the last call's state read as this call's",
                                                storage_history::left_by_last_call);
}

TEST(LookBackModelTeeth, StatusPublishedBeforeItsValueIsCaught)
{
  expect_planted_bug_caught<split_matrix, mat2>(mat2_product{}, mat2_data, {planted_bug::status_before_value, false},
                                                "split layout, status stored before value");
}

TEST(LookBackModelTeeth, LookBackCombiningLaterBeforeEarlierIsCaughtInBothLayouts)
{
  expect_planted_bug_caught<packed_affine, affine16>(affine16_then{}, affine16_data, {planted_bug::none, true},
                                                     "packed layout, swapped operands");
  expect_planted_bug_caught<split_matrix, mat2>(mat2_product{}, mat2_data, {planted_bug::none, true},
                                                "split layout, swapped operands");
}

TEST(LookBackModelTeeth, EmptyTileReadAsAggregateIsCaughtInBothLayouts)
{
  expect_planted_bug_caught<packed_affine, affine16>(
    affine16_then{}, affine16_data, {planted_bug::empty_read_as_aggregate, false}, "packed layout, X read as A");
  expect_planted_bug_caught<split_matrix, mat2>(
    mat2_product{}, mat2_data, {planted_bug::empty_read_as_aggregate, false}, "split layout, X read as A");
}

TEST(LookBackModelTeeth, StoppingAtAnAggregateIsCaughtInBothLayouts)
{
  expect_planted_bug_caught<packed_affine, affine16>(
    affine16_then{}, affine16_data, {planted_bug::aggregate_read_as_prefix, false}, "packed layout, A read as P");
  expect_planted_bug_caught<split_matrix, mat2>(
    mat2_product{}, mat2_data, {planted_bug::aggregate_read_as_prefix, false}, "split layout, A read as P");
}

// A tile whose publications never become visible leaves its successors waiting forever: the
// watchdog must end the schedule, report it as hung and name it, in bounded time.
TEST(LookBackModelTeeth, WatchdogTurnsAHangIntoAReportedFailure)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  model_stats stats;
  const auto deadline = std::chrono::milliseconds(200);
  const auto started  = clock_type::now();
  const batch_result result = run_batch<packed_affine, affine16>(
    seed, batch_mix{8, 0, 0}, affine16_then{}, affine16_data, {planted_bug::publications_lost, false}, true, stats,
    ~std::size_t{0}, deadline);
  const auto elapsed = clock_type::now() - started;
  ASSERT_EQ(result.hung, 1u) << "the lost publication did not hang the first schedule: " << result.first_failure;
  EXPECT_EQ(result.schedules, 1u);
  EXPECT_NE(result.first_failure.find("HUNG"), std::string::npos);
  EXPECT_NE(result.first_failure.find("schedule #0 of batch seed " + std::to_string(seed)), std::string::npos)
    << result.first_failure;
  EXPECT_LT(elapsed, deadline + std::chrono::seconds(10));
}

// ----------------------------------------------------------------------------------------------
// The blocked association (common/blocked_association.h, blocked_look_back.h): only a block's last
// tile publishes P, tile 0 publishes A, and each tile's prefix and each P must be the blocked
// fold's, bit for bit, under the same adversarial schedules.

constexpr batch_mix blocked_mix{4'400, 480, 120};

void expect_blocked_coverage(const model_stats& stats)
{
  EXPECT_GT(stats.look_backs.load(), 0u);
  EXPECT_GT(stats.look_backs_that_waited.load(), 0u) << "no look-back ever waited on an X";
  EXPECT_GT(stats.look_backs_that_walked_back.load(), 0u) << "no look-back ever walked past a block of A's";
  EXPECT_GT(stats.look_backs_restarted_forward.load(), 0u) << "no forward re-read ever found a fresher P";
}

template <class Inner, class Accum, class Op, class MakeData>
void expect_blocked_fold(const Op& op, MakeData make_data, std::size_t max_tiles = ~std::size_t{0})
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << blocked_mix.total() << " schedules");
  model_stats stats;
  const batch_result result = run_batch<Inner, Accum>(
    seed, blocked_mix, op, make_data, {}, false, stats, max_tiles, std::chrono::seconds(20), association::blocked);
  EXPECT_EQ(result.schedules, blocked_mix.total());
  EXPECT_EQ(result.hung, 0u);
  EXPECT_EQ(result.failed, 0u) << result.first_failure;
  expect_blocked_coverage(stats);
  testing::Test::RecordProperty("coverage", coverage_line(stats));
}

TEST(BlockedLookBackModel, PackedLayoutPrefixesAreTheBlockedFoldOfAffineMapsUnderAdversarialSchedules)
{
  expect_blocked_fold<packed_affine, affine16>(affine16_then{}, affine16_data);
}

TEST(BlockedLookBackModel, SplitLayoutPrefixesAreTheBlockedFoldOfMatrixProductsUnderAdversarialSchedules)
{
  expect_blocked_fold<split_matrix, mat2>(mat2_product{}, mat2_data);
}

// Doubles and floats whose sums round: the blocked fold's bits, which differ from the left fold's
// on this data (so a look-back folding left to right would fail).
template <class Inner, class Accum, class Op, class Draw>
void expect_bitwise_blocked_fold(const Op& op, Draw draw)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  constexpr std::size_t max_tiles = 400;
  splitmix random(seed);
  std::vector<Accum> all(max_tiles);
  for (auto& a : all)
  {
    a = draw(random);
  }
  const Accum init = draw(random);
  const auto blocked = spscan_test::reference_blocked_fold(all, true, init, op);
  std::size_t unlike_left_fold = 0;
  Accum running = init;
  for (std::size_t t = 0; t < max_tiles; ++t)
  {
    unlike_left_fold += same_bits(blocked.prefix[t], running) ? 0 : 1;
    running = op(running, all[t]);
  }
  ASSERT_GT(unlike_left_fold, max_tiles / 4);
  testing::Test::RecordProperty("tiles_unlike_the_left_fold", static_cast<int>(unlike_left_fold));
  expect_blocked_fold<Inner, Accum>(op, fixed_data(all, init), max_tiles);
}

TEST(BlockedLookBackModel, DoubleSumsArePublishedBitwiseAsTheBlockedFoldUnderEverySchedule)
{
  expect_bitwise_blocked_fold<packed_double, double>(double_plus{}, random_double);
}

TEST(BlockedLookBackModel, FloatSumsArePublishedBitwiseAsTheBlockedFoldUnderEverySchedule)
{
  expect_bitwise_blocked_fold<packed_float, float>(float_plus{}, random_float);
}

// Segment carries (a by-key scan's): the blocked look-back ignores absorbing carries, and the
// segmented operator's tree still gives the blocked fold's bits.
TEST(BlockedLookBackModel, SegmentCarriesArePublishedBitwiseAsTheBlockedFoldUnderEverySchedule)
{
  expect_bitwise_blocked_fold<packed_segment, segment_float>(segment_float_then{}, random_segment_float);
}

template <class Inner, class Accum, class Op, class MakeData>
void expect_blocked_bug_caught(const Op& op, MakeData make_data, planted_bugs bugs, const char* what)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << what << ", seed " << seed);
  model_stats stats;
  const batch_result result = run_batch<Inner, Accum>(seed,
                                                      batch_mix{200, 100, 0},
                                                      op,
                                                      make_data,
                                                      bugs,
                                                      true,
                                                      stats,
                                                      ~std::size_t{0},
                                                      std::chrono::seconds(5),
                                                      association::blocked);
  ASSERT_EQ(result.failed, 1u) << "planted bug survived " << result.schedules << " schedules";
  EXPECT_EQ(result.hung, 0u) << "expected wrong values, got a hang: " << result.first_failure;
  EXPECT_NE(result.first_failure.find("mismatches"), std::string::npos) << result.first_failure;
  testing::Test::RecordProperty("schedules_until_caught", static_cast<int>(result.schedules));
}

TEST(BlockedLookBackModelTeeth, SwappedOperandsAreCaught)
{
  expect_blocked_bug_caught<packed_affine, affine16>(affine16_then{}, affine16_data, {planted_bug::none, true, false},
                                                     "blocked, swapped operands");
}

TEST(BlockedLookBackModelTeeth, PrefixesPublishedInsideABlockAreCaught)
{
  expect_blocked_bug_caught<packed_affine, affine16>(affine16_then{}, affine16_data, {planted_bug::none, false, true},
                                                     "blocked, P published by every tile");
}

TEST(BlockedLookBackModelTeeth, EmptyTileReadAsAggregateIsCaught)
{
  expect_blocked_bug_caught<split_matrix, mat2>(mat2_product{}, mat2_data, {planted_bug::empty_read_as_aggregate, false, false},
                                                "blocked, split layout, X read as A");
}

} // namespace

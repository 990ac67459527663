// The ring engine's protocol (detail/ring/), proved on host threads: no GPU needed.
//
// Each CTA of a launch is played by host threads, one per role of ring_driver.h: the producer
// takes tile ids from the shared counter (in an unserved launch, a reused stage's once its
// previous tile has its prefix) and, once the stage is free, "loads" a tile into it (writes the
// tile's id, the CTA's previous tile id and the data there); the reducer waits for the
// load and publishes the tile's aggregate in the library's own tile states; one or two prefix
// threads, taking turns as the prefix warps do, run the library's own fold_aggregates_until (a
// CTA's first tile) and fold_gap_onto (running_prefix.h) over host lanes, the latter reading the
// tile's gap before it waits for the previous tile's prefix in that tile's stage; the scanner
// waits for the reducer and the prefix, checks what it finds and releases the stage. Stage barriers are host barriers with mbarrier semantics
// (arrivals per phase, waits by parity). Three launches run on one block of kept storage, as the
// library makes such calls (classic/launch.h, plan_tagged_launch): nothing is cleared between them;
// each reads and writes its tile states in the next epoch, and takes its tile ids from the 64-bit
// counter from where the host counted the last launch left it (its tiles, and one end mark per
// CTA), so what a launch leaves in every state must read as nothing to the next. The counter
// starts 60 ids short of 2^32, so the ids cross 32 bits.
//
// Every protocol step may be delayed (spin, yield, sleep; lanes read in shuffled orders), and the
// CTAs start at different times. What is checked, bit for bit: each tile's prefix is the
// sequential LEFT FOLD of the aggregates before it (a non-commutative operator, and float sums
// whose rounding shows any other grouping), the stage a scanner reads still holds its own tile
// (no stage refilled before its release), and every tile is scanned exactly once.
//
// Under the blocked association (ring/blocked_prefix.h) a single prefix thread carries the B of the
// blocks it has passed, and each prefix must be the blocked fold's (support/blocked_reference.h);
// carries of up to 8 bytes (affine maps, doubles) take a read's trees side by side, larger ones
// (matrix products) one window at a time.
//
// A program that generates its input (ring_layout::generated) stages nothing: the reducer takes
// the tile's data from the input, and the scanner writes its results into the next of the CTA's
// few result buffers, once a copy-engine thread has read what that buffer held, and releases the
// stage at once; the copy engine reads the buffers in the order the scanner issued them and must
// find in each the tile it was issued for, and every tile's results are stored exactly once.
//
// Integer sums declared exact take the prefix thread's other path, a tree per run of aggregates,
// and must give the same prefixes; so must by-key carries (float sums restarting at segment
// starts, in the one-word segment state), whose runs are folded from their last restart on.
//
// A launch with a prefix service (ring/prefix_service.h): the CTA whose producer takes the first
// id serves, its prefix thread running the library's serve_prefixes over host lanes that publish
// each lane's P (the device's tree for exact sums, each lane's chain otherwise) in shuffled order;
// the others' prefix threads take served_prefix, the P of the tile before, once their own tile is
// reduced. The P's lie beside the aggregates in the same kept storage, in the same epochs.
//
// Planted bugs, each of which the model must catch: the fold's operands swapped; a tree (for an
// exact operator, or of a block under the blocked association) that leaves out a run's last
// aggregate; a CTA that skips
// its own tile's aggregate when it moves on; a split-layout publication that shows the status
// before the value; a producer that refills a stage before the scanner has released it; a
// launch that takes the last launch's state of a tile for its own; a host that counts a launch's
// tiles but not its CTAs' end marks; a restarting fold blind to restarts;
// lanes that never share a window's values, so that the fold reads an earlier read's;
// a scanner that refills a result buffer before the copy engine has read it;
// and, with two prefix threads, one that
// takes the previous tile's prefix from its stage without waiting for it to be written. A schedule that does not end by its
// deadline is reported as hung (the last bug breaks the barriers' phases and shows that way).
// Planted in a served launch: a service that folds past the first unpublished aggregate; one that
// leaves a run's last P unpublished; a client that reads its own tile's P for its prefix; and
// there too a launch that reads the last launch's states (its P's included) as its own. Under the
// blocked association the service forms each lane's tree from the block's chunks (the device's
// way, checked against the reference tree on its own), and the first two bugs and a tree that
// drops a lane are planted there too.
#include <spscan/detail/classic/launch.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/programs/segment_carry.h>
#include <spscan/detail/ring/blocked_prefix.h>
#include <spscan/detail/ring/prefix_service.h>
#include <spscan/detail/ring/running_prefix.h>

#include <support/blocked_reference.h>
#include <support/random.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace
{

using namespace spscan::detail;
using clock_type = std::chrono::steady_clock;

// ----------------------------------------------------------------------------------------------
// Operators: x -> a*x + b composed earlier-then-later (not commutative), in the packed layout;
// 2x2 matrix products in the split layout; float sums (association shows in the bits).

struct affine
{
  std::uint32_t a, b;
};
struct affine_then
{
  affine operator()(const affine& f, const affine& g) const
  {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};
struct mat2
{
  std::uint32_t m[4];
};
struct mat2_product
{
  mat2 operator()(const mat2& x, const mat2& y) const
  {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3], x.m[2] * y.m[0] + x.m[3] * y.m[2],
             x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};
struct float_plus
{
  float operator()(float x, float y) const
  {
    return x + y;
  }
};
struct double_plus
{
  double operator()(double x, double y) const
  {
    return x + y;
  }
};
// Wrapping 32-bit sums, declared exact: the prefix thread adds each run in a tree
// (common/exact_association.h), and any grouping must still give the left fold.
struct exact_sum
{
  static constexpr bool exact_association = true;
  std::uint32_t operator()(std::uint32_t x, std::uint32_t y) const
  {
    return x + y;
  }
};

template <class Accum>
bool same_bits(const Accum& x, const Accum& y)
{
  return std::memcmp(&x, &y, sizeof(Accum)) == 0;
}

// By-key carries (programs/segment_carry.h): float sums that restart where a segment starts. The
// prefix thread takes its restarting path (running_prefix.h, fold_run_restarting): it finds a
// run's last restart by one vote and extends from there, which must give the left fold's bits.
// Their padding bytes are not the carry's.
using float_segment  = segment_carry<float>;
using double_segment = segment_carry<double>; // its state one 128-bit word, head beside status

template <class Value>
bool same_bits(const segment_carry<Value>& x, const segment_carry<Value>& y)
{
  return same_bits(x.value, y.value) && x.head == y.head;
}

template <class Accum>
Accum draw(spscan_test::splitmix64& rng);
template <>
affine draw<affine>(spscan_test::splitmix64& rng)
{
  return {static_cast<std::uint32_t>(rng.next()) | 1u, static_cast<std::uint32_t>(rng.next())};
}
template <>
mat2 draw<mat2>(spscan_test::splitmix64& rng)
{
  mat2 m;
  for (auto& x : m.m)
  {
    x = static_cast<std::uint32_t>(rng.next() % 7);
  }
  return m;
}
template <>
std::uint32_t draw<std::uint32_t>(spscan_test::splitmix64& rng)
{
  return static_cast<std::uint32_t>(rng.next());
}
template <>
float draw<float>(spscan_test::splitmix64& rng)
{
  return static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1.0p-53 - 0.3);
}
template <>
double draw<double>(spscan_test::splitmix64& rng)
{
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-53 - 0.3;
}
// One tile in 24 starts a segment: most runs of 32 have none, some have one or more.
template <>
float_segment draw<float_segment>(spscan_test::splitmix64& rng)
{
  const float value = draw<float>(rng);
  return {value, rng.next() % 24 == 0};
}
template <>
double_segment draw<double_segment>(spscan_test::splitmix64& rng)
{
  const double value = draw<double>(rng);
  return {value, rng.next() % 24 == 0};
}

// ----------------------------------------------------------------------------------------------
// Chaos: every step of every role may be delayed; a schedule has a deadline.

struct schedule_stopped
{};

class chaos
{
public:
  chaos(std::uint64_t seed, const std::atomic<bool>& stop, clock_type::time_point deadline, std::atomic<bool>& hung)
      : rng_{seed}
      , stop_(stop)
      , deadline_(deadline)
      , hung_(hung)
  {}
  void step()
  {
    const std::uint64_t r = rng_.next() % 1000;
    if (r < 600)
    {
      return;
    }
    if (r < 900)
    {
      for (volatile int i = static_cast<int>(rng_.next() % 2000); i > 0; --i)
      {
      }
    }
    else if (r < 995)
    {
      std::this_thread::yield();
    }
    else
    {
      std::this_thread::sleep_for(std::chrono::microseconds(rng_.next() % 200));
    }
  }
  void wait_turn()
  {
    if (stop_.load(std::memory_order_relaxed))
    {
      throw schedule_stopped{};
    }
    if (clock_type::now() > deadline_)
    {
      hung_.store(true);
      throw schedule_stopped{};
    }
    std::this_thread::yield();
  }
  std::uint64_t next()
  {
    return rng_.next();
  }

private:
  spscan_test::splitmix64 rng_;
  const std::atomic<bool>& stop_;
  clock_type::time_point deadline_;
  std::atomic<bool>& hung_;
};

// A barrier with mbarrier's semantics: a phase completes when its arrivals have arrived; a wait
// names the phase by its parity and returns once that phase has completed.
class host_barrier
{
public:
  void init(unsigned arrivals)
  {
    expected_ = arrivals;
    pending_.store(arrivals);
    phase_.store(0);
  }
  void arrive()
  {
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
    {
      pending_.store(expected_, std::memory_order_relaxed);
      phase_.fetch_add(1, std::memory_order_release);
    }
  }
  void wait(unsigned parity, chaos& c) const
  {
    while ((phase_.load(std::memory_order_acquire) & 1u) == parity)
    {
      c.wait_turn();
    }
  }

private:
  unsigned expected_ = 1;
  std::atomic<unsigned> pending_{1};
  std::atomic<unsigned> phase_{0};
};

// The prefix warp's lanes on a host thread: each lane's read lands at its own moment, in a
// shuffled order with delays between reads.
template <class Accum, int Windows>
class host_forward_lanes
{
public:
  static constexpr int windows = Windows;

  host_forward_lanes(chaos& c, bool tree_drops_last, bool values_unshared, bool claims_unpublished = false, bool drops_last_p = false)
      : chaos_(c)
      , tree_drops_last_(tree_drops_last)
      , values_unshared_(values_unshared)
      , claims_unpublished_(claims_unpublished)
      , drops_last_p_(drops_last_p)
  {}
  template <class State>
  void load(const State& states, std::size_t first, std::size_t end)
  {
    int order[warp_threads];
    std::iota(order, order + warp_threads, 0);
    for (int w = 0; w < Windows; ++w)
    {
      for (int i = warp_threads - 1; i > 0; --i)
      {
        std::swap(order[i], order[chaos_.next() % (i + 1)]);
      }
      for (const int lane : order)
      {
        const std::size_t tile = first + static_cast<std::size_t>(w * warp_threads + lane);
        window_[w][lane]       = tile < end ? states.load(tile) : tile_snapshot<Accum>{status_empty, Accum{}};
        chaos_.step();
      }
    }
  }
  std::uint32_t published(int w) const
  {
    std::uint32_t bits = 0;
    for (int lane = 0; lane < warp_threads; ++lane)
    {
      bits |= (window_[w][lane].status != status_empty ? 1u : 0u) << lane;
    }
    if (claims_unpublished_ && bits != 0xffffffffu)
    {
      bits |= bits + 1; // the planted bug: the first unpublished lane counts as published
    }
    return bits;
  }
  template <class Pred>
  std::uint32_t which(int w, Pred&& pred) const
  {
    std::uint32_t bits = 0;
    for (int lane = 0; lane < warp_threads; ++lane)
    {
      bits |= (pred(window_[w][lane].value) ? 1u : 0u) << lane;
    }
    return bits;
  }
  // As on the device, value() reads what the window's last share() stored, not the registers.
  void share(int w)
  {
    if (!values_unshared_)
    {
      for (int lane = 0; lane < warp_threads; ++lane)
      {
        shared_[w][lane] = window_[w][lane].value;
      }
    }
  }
  Accum value(int w, int lane) const
  {
    return shared_[w][lane];
  }
  // The device's tree (forward_lanes::reduce): at each step every lane adds the lane `offset`
  // above it, where that lane is in the run, all from the values before the step.
  template <class Op>
  Accum reduce(int w, int run, Op& op) const
  {
    const int counted = tree_drops_last_ ? run - 1 : run;
    Accum current[warp_threads];
    for (int lane = 0; lane < warp_threads; ++lane)
    {
      current[lane] = window_[w][lane].value;
    }
    for (int offset = 1; offset < warp_threads; offset *= 2)
    {
      Accum next[warp_threads];
      for (int lane = 0; lane < warp_threads; ++lane)
      {
        next[lane] = lane + offset < counted ? op(current[lane], current[lane + offset]) : current[lane];
      }
      std::copy(next, next + warp_threads, current);
    }
    return current[0];
  }
  Accum shuffled(int w, int lane) const
  {
    return window_[w][lane].value;
  }
  void pause()
  {
    chaos_.wait_turn();
  }
  // The service's lanes (prefix_service.h, service_lanes): each lane's P from the window's values
  // as the device forms it, published lane by lane in a shuffled order.
  template <class State, class Op>
  Accum publish_prefixes(const State& states, std::size_t first_slot, int w, int run, const ring::running_prefix<Accum>& prefix, Op& op)
  {
    Accum inclusive[warp_threads];
    if constexpr (exactly_associative<Accum, Op>)
    {
      Accum x[warp_threads];
      for (int lane = 0; lane < warp_threads; ++lane)
      {
        x[lane] = window_[w][lane].value;
      }
      for (int d = 1; d < warp_threads; d *= 2)
      {
        Accum next[warp_threads];
        for (int lane = 0; lane < warp_threads; ++lane)
        {
          next[lane] = lane >= d ? op(x[lane - d], x[lane]) : x[lane];
        }
        std::copy(next, next + warp_threads, x);
      }
      for (int lane = 0; lane < warp_threads; ++lane)
      {
        inclusive[lane] = prefix.present ? op(prefix.value, x[lane]) : x[lane];
      }
    }
    else
    {
      for (int lane = 0; lane < warp_threads; ++lane)
      {
        Accum x = prefix.present ? prefix.value : window_[w][0].value;
        for (int k = 0; k <= lane; ++k)
        {
          if (prefix.present || k > 0)
          {
            x = op(x, window_[w][k].value);
          }
        }
        inclusive[lane] = x;
      }
    }
    int order[warp_threads];
    std::iota(order, order + warp_threads, 0);
    for (int i = warp_threads - 1; i > 0; --i)
    {
      std::swap(order[i], order[chaos_.next() % (i + 1)]);
    }
    const int publishing = drops_last_p_ ? run - 1 : run;
    for (const int lane : order)
    {
      if (lane < publishing)
      {
        states.publish(first_slot + static_cast<std::size_t>(lane), status_prefix, inclusive[lane]);
        chaos_.step();
      }
    }
    return inclusive[run - 1];
  }
  // The blocked service's lanes (service_lanes::publish_blocked_prefixes): each lane's tree from
  // the block's chunks, as the device forms it (leading_tree_of_chunks), published lane by lane
  // in a shuffled order. Planted: a tree that leaves out the lane's last aggregate.
  template <class State, class Op>
  Accum publish_blocked_prefixes(
    const State& states, std::size_t first_slot, int w, int from, int run, const maybe_value<Accum>& before, Op& op)
  {
    Accum values[warp_threads];
    for (int lane = 0; lane < warp_threads; ++lane)
    {
      values[lane] = window_[w][lane].value;
    }
    Accum prefix[warp_threads];
    for (int lane = 0; lane < warp_threads; ++lane)
    {
      const int j     = lane < warp_threads - 1 ? lane + 1 : warp_threads - 1;
      const int taken = tree_drops_last_ && j > 1 ? j - 1 : j;
      prefix[lane]    = combine_after(before, leading_tree_of_chunks(values, taken, op), op);
    }
    prefix[warp_threads - 1] = op(prefix[warp_threads - 1], values[warp_threads - 1]);
    int order[warp_threads];
    std::iota(order, order + warp_threads, 0);
    for (int i = warp_threads - 1; i > 0; --i)
    {
      std::swap(order[i], order[chaos_.next() % (i + 1)]);
    }
    const int publishing = drops_last_p_ ? run - 1 : run;
    for (const int lane : order)
    {
      if (lane >= from && lane < publishing)
      {
        states.publish(first_slot + static_cast<std::size_t>(lane), status_prefix, prefix[lane]);
        chaos_.step();
      }
    }
    return prefix[warp_threads - 1];
  }

private:
  chaos& chaos_;
  bool tree_drops_last_;
  bool values_unshared_;
  bool claims_unpublished_;
  bool drops_last_p_;
  tile_snapshot<Accum> window_[Windows][warp_threads];
  Accum shared_[Windows][warp_threads]{};
};

// ----------------------------------------------------------------------------------------------
// Planted bugs.

struct planted
{
  bool swapped_operands     = false; // the fold computes op(later, earlier)
  bool skips_own_aggregate  = false; // after tile t the prefix thread moves on from t + 1
  bool status_before_value  = false; // split layout: the status is published before the value
  bool refill_before_release = false; // the producer does not wait for the scanner's release
  bool stale_state_read_as_current = false; // a tile's state of the last launch read as this one's
  bool end_marks_uncounted = false; // the host counts a launch's tiles, not its CTAs' end marks
  bool tree_drops_last_of_run = false; // an exact operator's tree leaves out a run's last aggregate
  bool previous_prefix_unwaited = false; // a prefix thread reads the previous tile's prefix unwaited
  bool restarts_unseen = false; // a restarting fold that misses the carries that restart
  bool values_unshared = false; // the lanes' share() does nothing: value() gives an earlier read's
  bool result_buffer_refilled_unread = false; // the scanner does not wait for the copy engine's read
  bool reduce_waits_for_prefix = false; // the reduce thread takes the tile's prefix before it is done
  bool service_passes_unpublished = false; // the service folds the first unpublished aggregate too
  bool service_drops_run_end = false; // the service leaves a run's last P unpublished
  bool client_reads_own_p = false; // a served prefix thread takes its own tile's P, not the one before
};

template <class Op>
struct fold_op
{
  static constexpr bool exact_association = states_exact_association<Op>::value; // as the wrapped op
  static constexpr bool restarts_at_heads = ring::restarts_at_heads<Op>::value; // likewise
  Op op;
  bool swapped;
  bool restarts_unseen;
  template <class Accum>
  Accum operator()(const Accum& earlier, const Accum& later) const
  {
    return swapped ? op(later, earlier) : op(earlier, later);
  }
  template <class Accum>
  bool restarts(const Accum& c) const
  {
    return !restarts_unseen && op.restarts(c);
  }
  template <class Accum>
  Accum extend(const Accum& earlier, const Accum& later) const
  {
    return swapped ? op.extend(later, earlier) : op.extend(earlier, later);
  }
};

// The library's states in the launch's epoch, with two bugs to plant: the split layout's two
// writes in the wrong order (value after status, a delay between them; the packed layout has no
// such seam: one word), and a read that takes what the last launch left (`last_launch`: the same
// storage in the epoch before) where this launch's tile has published nothing.
template <class Inner, class Accum>
class model_states
{
public:
  model_states(Inner inner, Inner last_launch, std::uint32_t epoch, const planted& bugs, std::uint32_t* statuses, Accum* values)
      : inner_(inner)
      , last_launch_(last_launch)
      , epoch_(epoch)
      , bugs_(bugs)
      , statuses_(statuses)
      , values_(values)
  {}
  void publish(std::size_t tile, tile_status status, const Accum& value) const
  {
    if constexpr (!Inner::packed)
    {
      if (bugs_.status_before_value)
      {
        device_atomic_ref<std::uint32_t>(statuses_[tile]).store(status_word(status, epoch_), ::cuda::std::memory_order_release);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        values_[2 * tile] = value;
        return;
      }
    }
    inner_.publish(tile, status, value);
  }
  tile_snapshot<Accum> load(std::size_t tile) const
  {
    const tile_snapshot<Accum> snapshot = inner_.load(tile);
    if (bugs_.stale_state_read_as_current && snapshot.status == status_empty)
    {
      return last_launch_.load(tile);
    }
    return snapshot;
  }

private:
  Inner inner_;
  Inner last_launch_;
  std::uint32_t epoch_;
  planted bugs_;
  std::uint32_t* statuses_;
  Accum* values_;
};

// ----------------------------------------------------------------------------------------------
// One launch of the model.

template <class Accum>
struct stage_slot
{
  host_barrier id_known, loaded, reduced, prefixed, released;
  std::atomic<std::size_t> tile{0}; // what the producer wrote (relaxed: the barriers order it)
  std::atomic<std::size_t> previous_tile{0}; // the CTA's tile before it; no_more_tiles: none
  std::atomic<std::size_t> data_tile{0}; // the "loaded" data: which tile's bytes the stage holds
  Accum data{};
  Accum prefix{}; // (the planted unwaited read races with its write: that is the bug)
  bool prefix_present = false;
};

constexpr std::size_t no_more_tiles   = ~std::size_t{0};
constexpr std::size_t serves_prefixes = no_more_tiles - 1; // the producer's word: this CTA serves

struct launch_shape
{
  std::size_t tiles;
  int ctas;
  int stages;
  int prefix_turns = 1; // prefix threads per CTA, taking turns
  bool blocked     = false; // the blocked association (blocked_prefix.h; one prefix thread)
  int result_buffers = 0; // > 0: a generated input, its results through this many buffers a CTA
  bool gap_once_reduced = false; // the prefix thread reads a gap only once its own tile is reduced
  bool served           = false; // a prefix service (one prefix thread, two CTAs or more)
};

// A CTA's result buffers (a generated input), between its scanner and its copy engine: the tile
// whose results each buffer holds, the tile each issued store is for, and how many stores were
// issued and read.
struct cta_result_buffers
{
  explicit cta_result_buffers(std::size_t buffers, std::size_t tiles)
      : held(buffers)
      , store_tiles(tiles)
  {}
  std::vector<std::atomic<std::size_t>> held;
  std::vector<std::size_t> store_tiles; // written before `issued` moves past it
  std::atomic<std::size_t> issued{0}, read{0};
  std::atomic<bool> scanner_done{false};
};

struct launch_outcome
{
  bool hung          = false;
  std::size_t wrong  = 0; // prefixes that differ from the left fold
  std::size_t stale  = 0; // stages that held another tile's data when scanned
  std::size_t missed = 0; // tiles not scanned exactly once
  std::string first_problem;
};

template <class State, class Accum, class Op>
launch_outcome run_launch(const launch_shape& shape,
                          const std::vector<Accum>& aggregates,
                          const State& states,
                          std::uint64_t* tile_counter,
                          std::uint64_t first_tile_id,
                          Op op,
                          const planted& bugs,
                          std::uint64_t seed,
                          clock_type::duration limit)
{
  const std::size_t tiles = shape.tiles;
  std::vector<Accum> expected(tiles);
  for (std::size_t t = 1; t < tiles; ++t)
  {
    expected[t] = t == 1 ? aggregates[0] : op(expected[t - 1], aggregates[t - 1]);
  }
  if (shape.blocked)
  {
    expected = spscan_test::reference_blocked_fold(aggregates, false, Accum{}, op).prefix;
  }
  std::vector<std::atomic<int>> scans(tiles), stores(tiles);
  for (auto& s : scans)
  {
    s.store(0);
  }
  for (auto& s : stores)
  {
    s.store(0);
  }
  const bool generated = shape.result_buffers > 0;
  std::atomic<bool> stop{false}, hung{false};
  std::atomic<std::size_t> wrong{0}, stale{0};
  std::mutex problem_mutex;
  std::string first_problem;
  auto report = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(problem_mutex);
    if (first_problem.empty())
    {
      first_problem = what;
    }
  };
  const auto deadline = clock_type::now() + limit;
  const fold_op<Op> fold{op, bugs.swapped_operands, bugs.restarts_unseen};

  std::vector<std::vector<stage_slot<Accum>>> ctas(shape.ctas);
  for (auto& cta : ctas)
  {
    cta = std::vector<stage_slot<Accum>>(shape.stages);
    for (auto& s : cta)
    {
      s.id_known.init(1);
      s.loaded.init(1);
      s.reduced.init(1);
      s.prefixed.init(1);
      s.released.init(1);
    }
  }
  std::vector<std::unique_ptr<cta_result_buffers>> results(shape.ctas);
  for (auto& r : results)
  {
    r = std::make_unique<cta_result_buffers>(generated ? shape.result_buffers : 1, tiles);
  }
  const int turns       = shape.prefix_turns;
  const int copier_role = 3 + turns;
  const int roles       = copier_role + (generated ? 1 : 0); // producer, reducer, scanner, prefix threads, copy engine

  std::vector<std::thread> threads;
  for (int c = 0; c < shape.ctas; ++c)
  {
    const std::uint64_t cta_seed = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(c);
    auto& stages                 = ctas[c];
    const int S                  = shape.stages;
    auto& mine                   = *results[c];
    // Roles: 0 producer, 1 reducer, 2 scanner, 3... prefix threads (turn = role - 3), then the
    // copy engine (a generated input).
    for (int role = 0; role < roles; ++role)
    {
      threads.emplace_back([&, c, role, cta_seed, S] {
        chaos ch(cta_seed * 4 + static_cast<std::uint64_t>(role), stop, deadline, hung);
        // CTAs start at different moments.
        std::this_thread::sleep_for(std::chrono::microseconds(ch.next() % 300));
        try
        {
          if (role == copier_role)
          {
            // The copy engine: the issued stores in order, each reading its buffer.
            for (std::size_t k = 0;;)
            {
              ch.step();
              if (k == mine.issued.load(std::memory_order_acquire))
              {
                if (mine.scanner_done.load(std::memory_order_acquire) && k == mine.issued.load(std::memory_order_acquire))
                {
                  break;
                }
                ch.wait_turn();
                continue;
              }
              ch.step();
              const std::size_t held = mine.held[k % mine.held.size()].load(std::memory_order_relaxed);
              if (held != mine.store_tiles[k])
              {
                ++stale;
                report("tile " + std::to_string(mine.store_tiles[k]) + ": its result buffer held tile "
                       + std::to_string(held) + " when the copy engine read it");
              }
              else
              {
                stores[held].fetch_add(1);
              }
              mine.read.store(++k, std::memory_order_release);
            }
            return;
          }
          std::size_t results_issued = 0; // the scanner's, through the result buffers
          int stage = 0;
          unsigned parity = 0;
          std::size_t uses = 0;
          std::size_t previous = no_more_tiles; // the producer's last tile
          int ends_marked      = 0;
          ring::running_prefix<Accum> prefix{Accum{}, false, 0}; // a single prefix thread's, carried
          host_forward_lanes<Accum, 2> lanes(ch, bugs.tree_drops_last_of_run, bugs.values_unshared, bugs.service_passes_unpublished,
                                             bugs.service_drops_run_end);
          for (;;)
          {
            stage_slot<Accum>& slot = stages[stage];
            ch.step();
            if (role >= 3 && role < copier_role && static_cast<int>(uses % static_cast<std::size_t>(turns)) != role - 3)
            {
              // another prefix thread's turn
            }
            else if (role == 0)
            {
              // As the ring's producer: a reused stage's next id, in an unserved launch, once
              // the stage's previous tile has its prefix (then the release before the load); in
              // a served one, once the stage is released.
              std::size_t tile           = no_more_tiles;
              const bool refill          = uses >= static_cast<std::size_t>(S) && !bugs.refill_before_release;
              const bool id_before_store = !shape.served && ends_marked == 0;
              if (refill)
              {
                if (id_before_store)
                {
                  slot.prefixed.wait(parity ^ 1u, ch);
                }
                else
                {
                  slot.released.wait(parity ^ 1u, ch);
                }
              }
              if (ends_marked == 0)
              {
                // As driver.h's take_tile_id and the ring's producer: an id past the launch's
                // tiles and end marks means the counter is not where the host counted it (the
                // kernel traps).
                const std::uint64_t id = device_atomic_ref<std::uint64_t>(*tile_counter).fetch_add(1) - first_tile_id;
                if (id >= tiles + static_cast<std::uint64_t>(shape.ctas))
                {
                  ++wrong;
                  report("tile id " + std::to_string(id) + " is outside the launch's ids");
                }
                // A served launch's first id is the service's; the tiles' ids are one past.
                const std::uint64_t tile_id = shape.served ? id - 1 : id;
                tile = shape.served && id == 0 ? serves_prefixes : (tile_id < tiles ? static_cast<std::size_t>(tile_id) : no_more_tiles);
              }
              if (refill && id_before_store)
              {
                slot.released.wait(parity ^ 1u, ch);
              }
              slot.tile.store(tile, std::memory_order_relaxed);
              slot.previous_tile.store(previous, std::memory_order_relaxed);
              previous = tile;
              slot.id_known.arrive();
              ch.step();
              if (tile < serves_prefixes && !generated)
              {
                slot.data_tile.store(tile, std::memory_order_relaxed);
                slot.data = aggregates[tile]; // the tile's bytes, reduced to what the model needs
              }
              slot.loaded.arrive();
              // Past the last tile, the end is marked in as many stages as there are prefix threads.
              if (tile == serves_prefixes || (tile == no_more_tiles && ++ends_marked == turns))
              {
                break;
              }
            }
            else if (role == 1)
            {
              slot.loaded.wait(parity, ch);
              const std::size_t tile = slot.tile.load(std::memory_order_relaxed);
              if (tile < serves_prefixes)
              {
                const Accum aggregate = generated ? aggregates[tile] : slot.data; // generated: from the input
                ch.step();
                states.publish(tile, status_aggregate, aggregate);
                if (bugs.reduce_waits_for_prefix)
                {
                  slot.prefixed.wait(parity, ch);
                }
              }
              slot.reduced.arrive();
              if (tile >= serves_prefixes)
              {
                break;
              }
            }
            else if (role >= 3)
            {
              slot.id_known.wait(parity, ch);
              const std::size_t tile     = slot.tile.load(std::memory_order_relaxed);
              const std::size_t previous_tile = slot.previous_tile.load(std::memory_order_relaxed);
              if (tile == no_more_tiles)
              {
                break;
              }
              if (tile == serves_prefixes)
              {
                if (shape.blocked)
                {
                  ring::serve_blocked_prefixes(states, tiles, maybe_value<Accum>{Accum{}, false}, fold, lanes);
                }
                else
                {
                  ring::serve_prefixes(states, tiles, ring::running_prefix<Accum>{Accum{}, false, 0}, fold, lanes);
                }
                break;
              }
              if (shape.served)
              {
                slot.reduced.wait(parity, ch);
                slot.prefix_present = tile > 0;
                if (tile > 0)
                {
                  const std::size_t read_for = bugs.client_reads_own_p ? tile + 1 : tile;
                  slot.prefix = ring::served_prefix(states, tiles, read_for, [&] { ch.wait_turn(); });
                }
                slot.prefixed.arrive();
              }
              else
              {
                if (shape.gap_once_reduced)
                {
                  slot.reduced.wait(parity, ch); // ring_reads_gap_once_reduced (the by-key scans)
                }
                // The planted skip: the gap starts after the previous tile, leaving out its aggregate.
                const std::size_t gap_start = previous_tile + (bugs.skips_own_aggregate && previous_tile < tile ? 1 : 0);
                if (shape.blocked)
                {
                  const ring::running_prefix<Accum> found = ring::blocked_prefix_of(states, prefix, tile, fold, lanes);
                  slot.prefix         = found.value;
                  slot.prefix_present = found.present;
                  slot.prefixed.arrive();
                }
                else if (turns == 1 || previous_tile == no_more_tiles)
                {
                  ring::fold_aggregates_until(states, prefix, tile, fold, lanes);
                  if (bugs.skips_own_aggregate && prefix.next == tile)
                  {
                    prefix.next = tile + 1;
                  }
                }
                else
                {
                  stage_slot<Accum>& before = stages[stage == 0 ? S - 1 : stage - 1];
                  const unsigned before_parity = stage == 0 ? parity ^ 1u : parity;
                  const auto previous_prefix = [&] {
                    if (!bugs.previous_prefix_unwaited)
                    {
                      before.prefixed.wait(before_parity, ch);
                    }
                    ring::running_prefix<Accum> known{Accum{}, previous_tile > 0, gap_start};
                    if (known.present)
                    {
                      known.value = before.prefix;
                    }
                    return known;
                  };
                  ring::fold_gap_onto(states, gap_start, tile, previous_prefix, prefix, fold, lanes);
                }
                if (!shape.blocked)
                {
                  slot.prefix         = prefix.value;
                  slot.prefix_present = prefix.present;
                  slot.prefixed.arrive();
                }
              }
            }
            else if (role == 2)
            {
              slot.reduced.wait(parity, ch);
              const std::size_t tile = slot.tile.load(std::memory_order_relaxed);
              if (tile >= serves_prefixes)
              {
                mine.scanner_done.store(true, std::memory_order_release);
                break;
              }
              slot.prefixed.wait(parity, ch);
              ch.step();
              if (!generated && (slot.data_tile.load(std::memory_order_relaxed) != tile || !same_bits(slot.data, aggregates[tile])))
              {
                ++stale;
                report("tile " + std::to_string(tile) + ": its stage held another tile when it was scanned");
              }
              if (tile > 0 && (!slot.prefix_present || !same_bits(slot.prefix, expected[tile])))
              {
                ++wrong;
                report("tile " + std::to_string(tile) + ": prefix is not the " + (shape.blocked ? "blocked" : "left")
                       + " fold of the aggregates before it");
              }
              scans[tile].fetch_add(1);
              ch.step();
              if (generated)
              {
                // The next result buffer, once the copy engine has read the store it held.
                const std::size_t buffers = mine.held.size();
                if (results_issued >= buffers && !bugs.result_buffer_refilled_unread)
                {
                  while (mine.read.load(std::memory_order_acquire) < results_issued - buffers + 1)
                  {
                    ch.wait_turn();
                  }
                }
                ch.step();
                mine.held[results_issued % buffers].store(tile, std::memory_order_relaxed);
                mine.store_tiles[results_issued] = tile;
                mine.issued.store(++results_issued, std::memory_order_release);
              }
              slot.released.arrive();
            }
            ++uses;
            if (++stage == S)
            {
              stage  = 0;
              parity ^= 1u;
            }
          }
        }
        catch (const schedule_stopped&)
        {
          stop.store(true);
        }
      });
    }
  }
  for (auto& t : threads)
  {
    t.join();
  }
  launch_outcome outcome;
  outcome.hung  = hung.load();
  outcome.wrong = wrong.load();
  outcome.stale = stale.load();
  for (std::size_t t = 0; t < tiles && !outcome.hung; ++t)
  {
    outcome.missed += scans[t].load() == 1 && (!generated || stores[t].load() == 1) ? 0 : 1;
  }
  outcome.first_problem = first_problem;
  return outcome;
}

// Launches on one block of kept storage as the library lays it out (tile_storage_layout:
// counters, status words, values) and counts on it (plan_tagged_launch): see the top of this file.
template <class Inner, class Accum, class Op>
launch_outcome run_launches_on_kept_storage(
  const launch_shape& shape, Op op, const planted& bugs, std::uint64_t seed, clock_type::duration limit = std::chrono::seconds(30))
{
  const tile_storage_layout<Inner> layout{shape.served ? 2 * shape.tiles : shape.tiles}; // the P's beside the aggregates
  std::vector<word128> storage((layout.total_bytes() + sizeof(word128) - 1) / sizeof(word128));
  void* base = storage.data();
  auto* bytes = static_cast<unsigned char*>(base);
  auto* tile_counter = reinterpret_cast<std::uint64_t*>(layout.counter(base));
  // States of epoch 0 only (zeros) and a counter 60 ids short of 2^32: what the tags vouch for.
  std::memset(base, 0, layout.zeroed_bytes());
  storage_tags tags{layout.zeroed_bytes(), 0, (std::uint64_t{1} << 32) - 60, Inner::epoch_layout};
  *tile_counter = tags.next_tile_id;
  const std::size_t ids = shape.tiles + (bugs.end_marks_uncounted ? 0 : static_cast<std::size_t>(shape.ctas));
  spscan_test::splitmix64 rng{seed};
  launch_outcome total;
  for (int launch = 0; launch < 3; ++launch)
  {
    const tagged_launch plan = plan_tagged_launch(
      tags, layout.zeroed_bytes(), Inner::epoch_layout, Inner::value_bytes(1) != 0, Inner::max_epoch, ids);
    if (plan.clear_first)
    {
      ++total.wrong;
      total.first_problem = "launch " + std::to_string(launch) + ": the tags did not vouch for the storage";
      break;
    }
    Inner inner = layout.state(base), last_launch = layout.state(base);
    inner.set_epoch(plan.epoch);
    last_launch.set_epoch(plan.epoch - 1);
    const model_states<Inner, Accum> states(inner, last_launch, plan.epoch, bugs, reinterpret_cast<std::uint32_t*>(bytes + layout.counter_bytes),
                                            reinterpret_cast<Accum*>(bytes + layout.zeroed_bytes()));
    std::vector<Accum> aggregates(shape.tiles);
    for (auto& a : aggregates)
    {
      a = draw<Accum>(rng);
    }
    launch_outcome o = run_launch(shape, aggregates, states, tile_counter, plan.first_tile_id, op, bugs, rng.next(), limit);
    if (!o.hung && *tile_counter != plan.after.next_tile_id)
    {
      ++o.wrong;
      o.first_problem = "the counter stands at " + std::to_string(*tile_counter) + ", the host counted "
                      + std::to_string(plan.after.next_tile_id);
    }
    tags = plan.after;
    total.hung = total.hung || o.hung;
    total.wrong += o.wrong;
    total.stale += o.stale;
    total.missed += o.missed;
    if (total.first_problem.empty() && !o.first_problem.empty())
    {
      total.first_problem = "launch " + std::to_string(launch) + ": " + o.first_problem;
    }
    if (o.hung)
    {
      break;
    }
  }
  return total;
}

bool clean(const launch_outcome& o)
{
  return !o.hung && o.wrong == 0 && o.stale == 0 && o.missed == 0;
}

std::string describe(const launch_shape& s, std::uint64_t seed, const launch_outcome& o)
{
  std::ostringstream text;
  text << s.tiles << " tiles, " << s.ctas << " CTAs, " << s.stages << " stages, " << s.prefix_turns
       << " prefix threads" << (s.blocked ? ", blocked association" : "")
       << (s.result_buffers > 0 ? ", generated, " + std::to_string(s.result_buffers) + " result buffers" : std::string{})
       << (s.gap_once_reduced ? ", gaps read once the own tile is reduced" : "") << (s.served ? ", served" : "") << ", seed " << seed << ": hung "
       << o.hung << ", wrong prefixes " << o.wrong << ", stale stages " << o.stale << ", tiles not scanned once "
       << o.missed << (o.first_problem.empty() ? "" : " (" + o.first_problem + ")");
  return text.str();
}

// Shapes: one CTA (every gap one tile), a few CTAs with shallow and deep rings, more CTAs than
// tiles in flight; each with one prefix thread and with two taking turns; and gaps wider than
// the lanes reach (64 tiles), which fold_gap_onto finishes with fold_aggregates_until.
const launch_shape shapes[] = {{40, 1, 3},     {97, 3, 3},     {150, 4, 6},    {64, 7, 4},     {200, 5, 8},
                               {40, 1, 3, 2},  {97, 3, 3, 2},  {150, 4, 6, 2}, {64, 7, 4, 2},  {200, 5, 8, 2},
                               {300, 70, 3, 2}};

// The blocked association: one prefix thread; gaps of one tile, of a few, and of more blocks than
// the lanes reach (two windows: 64 tiles), so that a prefix thread passes several blocks a read
// and needs more than one read for a gap.
const launch_shape blocked_shapes[] = {{40, 1, 3, 1, true},
                                       {97, 3, 3, 1, true},
                                       {150, 4, 6, 1, true},
                                       {200, 5, 8, 1, true},
                                       {400, 70, 3, 1, true},
                                       {700, 40, 4, 1, true}};

// A generated input: stages that hold no data, results through one to three buffers a CTA, one
// prefix thread or two.
const launch_shape generated_shapes[] = {{40, 1, 3, 1, false, 1},
                                         {97, 3, 3, 1, false, 2},
                                         {150, 4, 6, 1, false, 3},
                                         {200, 5, 8, 2, false, 3},
                                         {64, 7, 4, 2, false, 1},
                                         {300, 70, 3, 1, false, 3}};

// The by-key scans' ring (ring_reads_gap_once_reduced): the prefix thread also waits for its own
// tile's reduce; one CTA, a few, and more CTAs than tiles in flight, in the plain and the blocked
// association.
const launch_shape gap_once_reduced_shapes[] = {{40, 1, 3, 1, false, 0, true},
                                                {97, 3, 3, 1, false, 0, true},
                                                {150, 4, 6, 1, false, 0, true},
                                                {300, 70, 3, 1, false, 0, true},
                                                {200, 5, 8, 1, true, 0, true},
                                                {700, 40, 4, 1, true, 0, true}};

// A prefix service: two CTAs (one client), a few with shallow and deep rings, and more CTAs than
// tiles in flight, so that the service folds windows that end short and clients wait on it.
const launch_shape served_shapes[] = {{40, 2, 3, 1, false, 0, false, true},
                                      {97, 3, 3, 1, false, 0, false, true},
                                      {150, 4, 6, 1, false, 0, false, true},
                                      {64, 7, 4, 1, false, 0, false, true},
                                      {200, 5, 8, 1, false, 0, false, true},
                                      {300, 70, 3, 1, false, 0, false, true}};

// The same under the blocked association: the service publishes each block's P's from its chunks.
const launch_shape served_blocked_shapes[] = {{40, 2, 3, 1, true, 0, false, true},
                                              {97, 3, 3, 1, true, 0, false, true},
                                              {150, 4, 6, 1, true, 0, false, true},
                                              {200, 5, 8, 1, true, 0, false, true},
                                              {400, 70, 3, 1, true, 0, false, true}};

template <class Inner, class Accum, class Op, std::size_t Shapes = std::size(shapes)>
void expect_clean_schedules(Op op, int seeds_per_shape, const launch_shape (&tried)[Shapes] = shapes)
{
  for (const launch_shape& shape : tried)
  {
    for (int i = 0; i < seeds_per_shape; ++i)
    {
      const std::uint64_t seed = spscan_test::splitmix64{static_cast<std::uint64_t>(i) * 7919 + shape.tiles}.next();
      const launch_outcome o   = run_launches_on_kept_storage<Inner, Accum>(shape, op, planted{}, seed);
      EXPECT_TRUE(clean(o)) << describe(shape, seed, o);
    }
  }
}

// A planted bug must show in at least one of a few schedules.
template <class Inner, class Accum, class Op, std::size_t Shapes = std::size(shapes)>
void expect_caught(Op op, const planted& bugs, const char* what, const launch_shape (&tried)[Shapes] = shapes)
{
  bool caught = false;
  std::string last;
  for (int i = 0; i < 6 && !caught; ++i)
  {
    for (const launch_shape& shape : tried)
    {
      const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(i);
      // A bug that breaks the barriers' phases shows as a hang: a short deadline finds it.
      const launch_outcome o = run_launches_on_kept_storage<Inner, Accum>(shape, op, bugs, seed, std::chrono::seconds(2));
      last = describe(shape, seed, o);
      if (!clean(o))
      {
        caught = true;
        break;
      }
    }
  }
  EXPECT_TRUE(caught) << "the model did not catch: " << what << " (last schedule: " << last << ")";
}

TEST(RingModel, PackedStatesPrefixesAreTheLeftFoldOfAffineMapsUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<affine>, affine>(affine_then{}, 8);
}

TEST(RingModel, SplitStatesPrefixesAreTheLeftFoldOfMatrixProductsUnderAdversarialSchedules)
{
  expect_clean_schedules<split_tile_state<mat2>, mat2>(mat2_product{}, 4);
}

TEST(RingModel, FloatSumPrefixesKeepTheLeftFoldsBitsUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<float>, float>(float_plus{}, 4);
}

TEST(RingModel, ExactSumPrefixesAddedInTreesEqualTheLeftFoldUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<std::uint32_t>, std::uint32_t>(exact_sum{}, 4);
}

TEST(RingModel, SegmentCarryPrefixesRestartedByVoteKeepTheLeftFoldsBitsUnderAdversarialSchedules)
{
  float_plus inner;
  expect_clean_schedules<segment_tile_state<float>, float_segment>(segmented_op<float, float_plus>{inner}, 4);
}

TEST(RingModel, SegmentCarryPrefixesReadOnceTheOwnTileIsReducedKeepTheirFoldsBitsUnderAdversarialSchedules)
{
  float_plus inner;
  expect_clean_schedules<segment_tile_state<float>, float_segment>(segmented_op<float, float_plus>{inner}, 4,
                                                                   gap_once_reduced_shapes);
}

// The wait that ring_reads_gap_once_reduced adds closes a cycle if the reduce side ever waits for
// the prefix before it is done: the model must see that hang.
TEST(RingModel, CatchesAReduceThatWaitsForThePrefixWhereGapsAreReadOnceReduced)
{
  planted bugs;
  bugs.reduce_waits_for_prefix = true;
  float_plus inner;
  expect_caught<segment_tile_state<float>, float_segment>(segmented_op<float, float_plus>{inner}, bugs,
                                                          "a reduce that waits for its tile's prefix",
                                                          gap_once_reduced_shapes);
}

#if SPSCAN_HAS_WORD128
TEST(RingModel, DoubleSegmentCarriesInOneWordKeepTheLeftFoldsBitsUnderAdversarialSchedules)
{
  static_assert(sizeof(segment_tile_state<double>::word) == 16);
  double_plus inner;
  expect_clean_schedules<segment_tile_state<double>, double_segment>(segmented_op<double, double_plus>{inner}, 4);
}
#endif

TEST(RingModel, CatchesARestartingFoldThatMissesTheRestarts)
{
  float_plus inner;
  planted bugs;
  bugs.restarts_unseen = true;
  expect_caught<segment_tile_state<float>, float_segment>(segmented_op<float, float_plus>{inner}, bugs,
                                                           "a restarting fold that does not see the carries that restart");
}

TEST(RingModel, CatchesATreeThatLeavesOutTheLastAggregateOfARun)
{
  planted bugs;
  bugs.tree_drops_last_of_run = true;
  expect_caught<packed_tile_state<std::uint32_t>, std::uint32_t>(exact_sum{}, bugs, "an exact operator's tree that drops a run's last aggregate");
}

TEST(RingModel, CatchesSwappedFoldOperands)
{
  planted bugs;
  bugs.swapped_operands = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the fold's operands swapped");
}

TEST(RingModel, CatchesACtaThatSkipsItsOwnAggregate)
{
  planted bugs;
  bugs.skips_own_aggregate = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a CTA that leaves out its own tile's aggregate");
}

TEST(RingModel, CatchesASplitPublicationWhoseStatusPrecedesItsValue)
{
  planted bugs;
  bugs.status_before_value = true;
  expect_caught<split_tile_state<mat2>, mat2>(mat2_product{}, bugs, "the status published before the value");
}

TEST(RingModel, CatchesAStageRefilledBeforeItsRelease)
{
  planted bugs;
  bugs.refill_before_release = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a stage refilled before the scanner released it");
}

TEST(RingModel, GeneratedTilesPrefixesAreTheLeftFoldAndEachResultIsStoredOnceUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<affine>, affine>(affine_then{}, 6, generated_shapes);
  expect_clean_schedules<packed_tile_state<std::uint32_t>, std::uint32_t>(exact_sum{}, 4, generated_shapes);
}

TEST(RingModel, CatchesAResultBufferRefilledBeforeTheCopyEngineReadIt)
{
  planted bugs;
  bugs.result_buffer_refilled_unread = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a result buffer refilled before the copy engine read it",
                                                   generated_shapes);
}

TEST(RingModel, CatchesAPrefixThreadThatTakesThePreviousPrefixUnwaited)
{
  planted bugs;
  bugs.previous_prefix_unwaited = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the previous tile's prefix read before it was written");
}

TEST(RingModel, CatchesLanesThatNeverShareTheirValues)
{
  planted bugs;
  bugs.values_unshared = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a fold that reads values its lanes never shared");
}

TEST(RingModel, CatchesALaunchThatReadsTheLastLaunchsStateAsItsOwn)
{
  planted bugs;
  bugs.stale_state_read_as_current = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the last launch's state of a tile taken for this launch's");
}

TEST(RingModel, CatchesAHostThatCountsALaunchsTilesButNotItsEndMarks)
{
  planted bugs;
  bugs.end_marks_uncounted = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the next launch's first id counted without the CTAs' end marks");
}

// The blocked association (blocked_prefix.h): each prefix the blocked fold's, bit for bit.
TEST(RingModel, BlockedPrefixesOfAffineMapsInPackedStatesAreTheBlockedFoldUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<affine>, affine>(affine_then{}, 4, blocked_shapes);
}

TEST(RingModel, BlockedPrefixesOfMatrixProductsInSplitStatesAreTheBlockedFoldUnderAdversarialSchedules)
{
  expect_clean_schedules<split_tile_state<mat2>, mat2>(mat2_product{}, 2, blocked_shapes);
}

#if SPSCAN_HAS_WORD128
TEST(RingModel, BlockedDoubleSumPrefixesKeepTheBlockedFoldsBitsUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<double>, double>(double_plus{}, 4, blocked_shapes);
}
#endif

TEST(RingModel, BlockedSegmentCarryPrefixesKeepTheBlockedFoldsBitsUnderAdversarialSchedules)
{
  float_plus inner;
  expect_clean_schedules<segment_tile_state<float>, float_segment>(segmented_op<float, float_plus>{inner}, 4, blocked_shapes);
}

TEST(RingModel, CatchesABlockedFoldWhoseTreesLeaveOutALane)
{
  planted bugs;
  bugs.tree_drops_last_of_run = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a blocked fold whose trees drop their last lane", blocked_shapes);
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a blocked service whose trees drop their last lane",
                                                   served_blocked_shapes);
}

// Carries of more than 8 bytes take their trees one window at a time (blocked_prefix.h): the same
// planted tree, on that path.
static_assert(ring::blocked_trees_side_by_side<affine> && !ring::blocked_trees_side_by_side<mat2>);
TEST(RingModel, CatchesABlockedFoldWhoseTreesLeaveOutALaneOneWindowAtATime)
{
  planted bugs;
  bugs.tree_drops_last_of_run = true;
  expect_caught<split_tile_state<mat2>, mat2>(mat2_product{}, bugs, "a blocked fold whose trees, one window at a time, drop their last lane",
                                              blocked_shapes);
}

TEST(RingModel, CatchesSwappedOperandsInTheBlockedFold)
{
  planted bugs;
  bugs.swapped_operands = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the blocked fold's operands swapped", blocked_shapes);
}

TEST(RingModel, CatchesABlockedSplitPublicationWhoseStatusPrecedesItsValue)
{
  planted bugs;
  bugs.status_before_value = true;
  expect_caught<split_tile_state<mat2>, mat2>(mat2_product{}, bugs, "the status published before the value", blocked_shapes);
}

// The prefix service (ring/prefix_service.h): each client's prefix is the left fold's, bit for bit,
// through the service's chains (affine maps, matrix products in split states, float sums) and its
// trees (exact sums), in kept storage whose earlier launches left P's of their own.
TEST(RingModel, ServedPrefixesAreTheLeftFoldUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<affine>, affine>(affine_then{}, 6, served_shapes);
  expect_clean_schedules<split_tile_state<mat2>, mat2>(mat2_product{}, 3, served_shapes);
  expect_clean_schedules<packed_tile_state<float>, float>(float_plus{}, 4, served_shapes);
  expect_clean_schedules<packed_tile_state<std::uint32_t>, std::uint32_t>(exact_sum{}, 4, served_shapes);
}

TEST(RingModel, CatchesAServiceThatFoldsPastAnUnpublishedAggregate)
{
  planted bugs;
  bugs.service_passes_unpublished = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a service that folds the first unpublished aggregate", served_shapes);
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a blocked service that takes the first unpublished aggregate",
                                                   served_blocked_shapes);
}

TEST(RingModel, CatchesAServiceThatLeavesARunsLastPrefixUnpublished)
{
  planted bugs;
  bugs.service_drops_run_end = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a service that leaves a run's last P unpublished", served_shapes);
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a blocked service that leaves a run's last P unpublished",
                                                   served_blocked_shapes);
}

TEST(RingModel, CatchesAServedCtaThatTakesItsOwnTilesPrefix)
{
  planted bugs;
  bugs.client_reads_own_p = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "a client that reads its own tile's P", served_shapes);
}

TEST(RingModel, CatchesAServedLaunchThatReadsTheLastLaunchsStatesAsItsOwn)
{
  planted bugs;
  bugs.stale_state_read_as_current = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the last launch's aggregates or P's taken for this launch's",
                                                   served_shapes);
}

TEST(RingModel, CatchesAServedLaunchWhoseHostCountsOnlyItsTiles)
{
  planted bugs;
  bugs.end_marks_uncounted = true;
  expect_caught<packed_tile_state<affine>, affine>(affine_then{}, bugs, "the next launch's first id counted without the service's and the ends' ids",
                                                   served_shapes);
}

// The blocked service (prefix_service.h, serve_blocked_prefixes): each client's prefix is the
// blocked fold's, bit for bit, with every lane's tree formed from the block's chunks.
TEST(RingModel, ServedBlockedPrefixesAreTheBlockedFoldUnderAdversarialSchedules)
{
  expect_clean_schedules<packed_tile_state<affine>, affine>(affine_then{}, 6, served_blocked_shapes);
#if SPSCAN_HAS_WORD128
  expect_clean_schedules<packed_tile_state<double>, double>(double_plus{}, 4, served_blocked_shapes);
#endif
  expect_clean_schedules<packed_tile_state<float>, float>(float_plus{}, 4, served_blocked_shapes);
}

// What the blocked service counts on (common/blocked_association.h): every tree_j equals its
// chunks combined later groups first, bit for bit, for a non-commutative operator and for float
// sums whose rounding shows any other grouping.
TEST(BlockedAssociation, EveryLeadingTreeIsItsChunksCombinedLaterGroupsFirst)
{
  spscan_test::splitmix64 rng{20261130};
  for (int round = 0; round < 50; ++round)
  {
    affine maps[warp_threads];
    float sums[warp_threads];
    for (int l = 0; l < warp_threads; ++l)
    {
      maps[l] = draw<affine>(rng);
      sums[l] = draw<float>(rng) * static_cast<float>(1 << (rng.next() % 20));
    }
    affine_then compose;
    float_plus plus;
    for (int run = 1; run < warp_threads; ++run)
    {
      const affine by_chunks = leading_tree_of_chunks(maps, run, compose);
      const affine by_tree   = spscan_test::reference_tree(maps, run, compose);
      EXPECT_TRUE(same_bits(by_chunks, by_tree)) << "affine maps, run " << run;
      EXPECT_TRUE(same_bits(leading_tree_of_chunks(sums, run, plus), spscan_test::reference_tree(sums, run, plus)))
        << "float sums, run " << run;
    }
  }
  // The chunks' first lanes for run 7 (tree_7 = op(chunk_2(0), op(chunk_1(4), chunk_0(6)))).
  EXPECT_EQ(chunk_in_run(0, 7), 6);
  EXPECT_EQ(chunk_in_run(1, 7), 4);
  EXPECT_EQ(chunk_in_run(2, 7), 0);
}

// Which calls the library serves (ring_launch.h): up to served_tiles_per_cta tiles a CTA, never
// with one CTA or for a program that cannot be served, and as a test asks.
TEST(PrefixServiceRule, ServesUpToServedTilesPerCtaOnlyWhereAServiceHasClients)
{
  using ring::has_prefix_service;
  using ring::prefix_service;
  // The limit the docs and CHANGELOG state in sizes (32 tiles a CTA: int8 to 2^27 on 132 SMs).
  EXPECT_EQ(ring::served_tiles_per_cta, 32u);
  const std::size_t ctas     = 132;
  const std::size_t at_limit = ring::served_tiles_per_cta * ctas;
  EXPECT_TRUE(has_prefix_service(prefix_service::by_size, true, at_limit, ctas));
  EXPECT_FALSE(has_prefix_service(prefix_service::by_size, true, at_limit + 1, ctas));
  EXPECT_FALSE(has_prefix_service(prefix_service::by_size, false, 1000, ctas));
  EXPECT_FALSE(has_prefix_service(prefix_service::on, true, 1000, 1));
  EXPECT_TRUE(has_prefix_service(prefix_service::on, true, at_limit * 1000, 2));
  EXPECT_FALSE(has_prefix_service(prefix_service::off, true, 1000, ctas));
  EXPECT_FALSE(has_prefix_service(prefix_service::on, false, 1000, ctas));
}

} // namespace

// Stable compaction in place (remove, remove_if, unique writing over their own input: remove.inl,
// unique.inl), proved safe on the decoupled look-back by host threads (no GPU needed).
//
// Why it is safe: tile t writes its kept elements to [kept before t, kept before t+1), below the
// end of its own input, once it has its exclusive prefix, i.e. once every earlier tile has
// published its count (A or P); a tile publishes only after reading its whole input. unique's tile
// t also reads its predecessor's last element (first_t - 1): before t publishes, only the
// predecessor may write there, and only that very value (when nothing before it was removed).
//
// Host threads play tiles as the selection's CTAs do (select_program.h, classic/driver.h), over
// the library's tile states of its carry (std::uint64_t counts) and its own exclusive_prefix_of
// (look_back.h), host lanes (support/host_lanes.h) standing in for the warp. Each thread takes tile
// ids from a shared counter; a tile reads its elements one by one (unique also its predecessor's
// last, at a random moment among them), publishes its count (tile 0 P at once; any other A, looks
// back, P; or its look-back ends first, as the driver's look-back warp runs beside the data
// warps), then writes its kept elements at prefix + j. Elements are std::atomic<int> read and
// written relaxed: no data race, and only the tile states order one tile's reads before another's
// writes (relaxed words in the packed layout, as on the device, where the count published depends
// on every element read and each write's address on the prefix read; release/acquire in the split
// layout, which a toolchain without 128-bit words uses).
//
// Adversarial timing: a spin, a yield or a sleep may follow any element read or write and any
// protocol step, and one tile of most schedules is held back: mid-read until every earlier tile has
// written (just below it), before reading its predecessor's last element until the predecessor has
// written over it, or after publishing until every later tile has written. Each schedule's array
// (its first `kept` elements) and count are compared with the sequential compaction. Planted bugs,
// held back until every later tile has written over what they have still to read, must be caught
// in every schedule: a tile publishing an oracle's count before reading its input, and a unique
// tile reading its predecessor's last element after publishing.
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/tile_state.h>

#include <support/data.h>
#include <support/host_lanes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
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
using count_type = std::uint64_t; // the selection's carry: elements kept before a tile
using engine     = std::mt19937_64; // seeded per schedule and per thread: a schedule replays from its seed

std::uint32_t below(engine& random, std::size_t n) // in [0, n), n > 0
{
  return static_cast<std::uint32_t>(random() % n);
}

// The selection's carry op (select_program.h's add_counts is device code only).
struct add_counts_on_host
{
  count_type operator()(count_type earlier, count_type later) const
  {
    return earlier + later;
  }
};

// remove_if keeps the even values; unique keeps element i when i == 0 or in[i - 1] != in[i].
enum class compaction { remove_if, unique };

bool keeps(compaction form, int value, bool has_previous, int previous)
{
  return form == compaction::remove_if ? value % 2 == 0 : !has_previous || previous != value;
}

// Where a held tile waits: mid-read until every earlier tile has written, before reading its
// predecessor's last element until the predecessor has written, after publishing until every
// later tile has written.
enum class hold_point { none, mid_read, before_predecessor_read, after_publishing };

// The victim publishes an oracle's count before reading its input, or reads its predecessor's last
// element only after publishing.
enum class planted_bug { none, publish_before_reading, predecessor_read_after_publishing };

struct schedule_plan
{
  std::uint64_t seed = 0;
  compaction form    = compaction::remove_if;
  bool split_layout  = false;
  std::size_t tile_size = 4, tiles = 1, n = 1;
  unsigned threads      = 1;
  int depth             = 1; // windows per look-back read
  std::uint32_t delays_per_mille = 0, spin_limit = 0, sleep_one_in = 0; // steps delayed; of those, sleeps
  std::size_t held_tile = ~std::size_t{0};
  hold_point hold       = hold_point::none;
  planted_bug bug       = planted_bug::none;
  std::size_t victim    = ~std::size_t{0};

  std::string describe() const
  {
    static constexpr const char* holds[] = {"none", "mid-read", "before the predecessor read", "after publishing"};
    static constexpr const char* bugs[]  = {"none", "publishing before reading", "predecessor read after publishing"};
    std::ostringstream text;
    text << "schedule seed " << seed << ": " << (form == compaction::unique ? "unique" : "remove_if") << ", "
         << (split_layout ? "split" : "packed") << " layout, " << tiles << " tiles of " << tile_size << " (n " << n
         << "), " << threads << " threads, depth " << depth << ", delays " << delays_per_mille << "/1000, spin<="
         << spin_limit << ", sleep 1/" << sleep_one_in << ", hold " << holds[static_cast<int>(hold)] << " on tile "
         << static_cast<long long>(held_tile) << ", planted bug " << bugs[static_cast<int>(bug)] << " on tile "
         << static_cast<long long>(victim);
    return text.str();
  }
};

struct schedule_stopped // ends a thread's part in a schedule past its deadline
{};

// One thread's timing, and the Pacer of host_lanes. Every wait checks the schedule's deadline, so
// that a hang is reported, not endured.
struct pacer
{
  const schedule_plan& plan;
  engine random;
  clock_type::time_point deadline;
  std::atomic<bool>& stopped;

  void step() // an element read or write, or a protocol step, has happened: maybe let time pass
  {
    if (below(random, 1000) >= plan.delays_per_mille)
    {
      return;
    }
    if (plan.sleep_one_in != 0 && below(random, plan.sleep_one_in) == 0)
    {
      std::this_thread::sleep_for(std::chrono::microseconds(1 + below(random, 20)));
    }
    else if (below(random, 4) == 0)
    {
      std::this_thread::yield();
    }
    // A spin on this thread's stack (it shares no cache line).
    for (volatile std::uint32_t i = below(random, plan.spin_limit + 1); i > 0; i = i - 1)
    {
    }
  }
  void wait(int attempt) // the attempt-th wait in a row: yield, then sleep longer and longer
  {
    if (attempt < 64)
    {
      std::this_thread::yield();
    }
    else
    {
      std::this_thread::sleep_for(std::chrono::microseconds(1 << std::min(attempt - 64, 9)));
    }
    if (stopped.load(std::memory_order_relaxed) || clock_type::now() > deadline)
    {
      stopped.store(true);
      throw schedule_stopped{};
    }
  }
  void order_lanes(int (&order)[look_back_window]) // a random tail of the window read shuffled
  {
    std::iota(order, order + look_back_window, 0);
    std::shuffle(order + below(random, look_back_window + 1), order + look_back_window, random);
  }
  void between_reads()
  {
    step();
  }
  template <class Lanes>
  void window_read(const Lanes&)
  {}
  template <class Lanes>
  void pause(const Lanes& lanes)
  {
    wait(lanes.pauses());
  }
};

// What the schedules made happen, so that the tests can assert the hard cases ran.
struct model_stats
{
  std::atomic<std::uint64_t> look_backs_that_waited{0};
  std::atomic<std::uint64_t> reads_after_every_earlier_tile_wrote{0};
  std::atomic<std::uint64_t> predecessor_reads_after_it_wrote_over_itself{0};
};

// The sequential compaction, and the count kept before each tile (kept_before[tiles]: the total).
struct sequential_result
{
  std::vector<int> kept;
  std::vector<count_type> kept_before;
};

sequential_result compact_sequentially(compaction form, const std::vector<int>& in, std::size_t tile_size)
{
  sequential_result result;
  for (std::size_t i = 0; i < in.size(); ++i)
  {
    if (i % tile_size == 0)
    {
      result.kept_before.push_back(result.kept.size());
    }
    if (keeps(form, in[i], i > 0, i > 0 ? in[i - 1] : 0))
    {
      result.kept.push_back(in[i]);
    }
  }
  result.kept_before.push_back(result.kept.size());
  return result;
}

template <int Depth, class State>
count_type model_look_back(const State& state, std::size_t tile, pacer& pace, model_stats& stats)
{
  spscan_test::host_lanes<count_type, pacer, Depth> lanes(pace);
  add_counts_on_host add;
  const count_type prefix = exclusive_prefix_of<count_type>(state, static_cast<long long>(tile), add, lanes);
  stats.look_backs_that_waited += lanes.pauses() > 0 ? 1 : 0;
  return prefix;
}

// Plays one compaction of `in` in place on plan.threads host threads; returns what went wrong.
template <class State>
std::string run_schedule(const schedule_plan& plan, const std::vector<int>& in, const sequential_result& expected,
                         model_stats& stats)
{
  const std::size_t n = plan.n, tiles = plan.tiles;
  std::vector<std::atomic<int>> elements(n);
  std::vector<std::atomic<bool>> written(tiles); // value-initialized: no tile has written yet
  for (std::size_t i = 0; i < n; ++i)
  {
    elements[i].store(in[i], std::memory_order_relaxed);
  }
  // Storage as the device has it: status words zeroed (X), 16-byte aligned for 128-bit words.
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);
  std::vector<std::uint64_t> status_words((State::status_bytes(tiles) + 15) / 16 * 2, 0);
  std::vector<count_type> value_slots(State::value_bytes(tiles) / sizeof(count_type) + 1, 0);
  const State state(status_words.data(), value_slots.data());
  std::atomic<std::size_t> next_tile{0};
  std::atomic<count_type> total{0}; // written by the last tile, as the device's last tile does
  std::atomic<bool> stopped{false};
  const auto deadline = clock_type::now() + std::chrono::seconds(10);

  // Holds the calling tile until tiles [from, to) have written. A correct schedule's hold is
  // capped (no free thread may be left to play those tiles); a planted bug's is not.
  auto hold_until_written = [&](std::size_t from, std::size_t to, pacer& pace, bool capped) {
    const auto cap = clock_type::now() + std::chrono::milliseconds(20);
    for (int attempt = 1;; ++attempt)
    {
      while (from < to && written[from].load(std::memory_order_acquire))
      {
        ++from;
      }
      if (from == to || (capped && clock_type::now() > cap))
      {
        return from == to;
      }
      pace.wait(attempt);
    }
  };

  // One tile, as a CTA of the selection plays it.
  auto play_tile = [&](std::size_t tile, pacer& pace, std::vector<int>& values, std::vector<int>& kept) {
    const std::size_t first = tile * plan.tile_size, size = std::min(n, first + plan.tile_size) - first;
    const bool victim = plan.bug != planted_bug::none && tile == plan.victim;
    const bool reads_predecessor = plan.form == compaction::unique && tile > 0;
    auto hold_at = [&](hold_point point, std::size_t from, std::size_t to) {
      return tile == plan.held_tile && plan.hold == point && hold_until_written(from, to, pace, true);
    };
    int predecessor = 0;
    // Reads its own elements one by one, and its predecessor's last at a random moment among them
    // (each only where asked), then selects.
    auto read_input = [&](bool own, bool predecessor_too) {
      const std::size_t predecessor_at = below(pace.random, size + 1), held_at = below(pace.random, size);
      for (std::size_t j = 0; j <= size; ++j)
      {
        if (predecessor_too && j == predecessor_at)
        {
          hold_at(hold_point::before_predecessor_read, tile - 1, tile);
          // The predecessor writes over this element (its own value) when nothing before it was removed.
          const bool rewritten = expected.kept_before[tile] == first && written[tile - 1].load(std::memory_order_acquire);
          stats.predecessor_reads_after_it_wrote_over_itself += rewritten ? 1 : 0;
          predecessor = elements[first - 1].load(std::memory_order_relaxed);
          pace.step();
        }
        if (own && j < size)
        {
          const bool below_written = j == held_at && hold_at(hold_point::mid_read, 0, tile) && tile > 0;
          stats.reads_after_every_earlier_tile_wrote += below_written ? 1 : 0;
          values[j] = elements[first + j].load(std::memory_order_relaxed);
          pace.step();
        }
      }
      kept.clear();
      for (std::size_t j = 0; j < size; ++j)
      {
        if (keeps(plan.form, values[j], j > 0 || reads_predecessor, j > 0 ? values[j - 1] : predecessor))
        {
          kept.push_back(values[j]);
        }
      }
    };
    values.resize(size);
    if (!victim || plan.bug != planted_bug::publish_before_reading)
    {
      read_input(true, reads_predecessor && !victim);
    }
    const count_type count = victim ? expected.kept_before[tile + 1] - expected.kept_before[tile] : kept.size();

    // The exchange (driver.h, tile_context::exchange); a lone tile publishes nothing.
    count_type prefix = 0;
    if (tiles > 1 && tile > 0)
    {
      const bool look_back_ends_first = below(pace.random, 4) == 0;
      if (!look_back_ends_first)
      {
        state.publish(tile, status_aggregate, count);
        pace.step();
      }
      prefix = plan.depth == 4 ? model_look_back<4>(state, tile, pace, stats)
             : plan.depth == 2 ? model_look_back<2>(state, tile, pace, stats)
                               : model_look_back<1>(state, tile, pace, stats);
      if (look_back_ends_first)
      {
        state.publish(tile, status_aggregate, count);
        pace.step();
      }
    }
    if (tiles > 1)
    {
      state.publish(tile, status_prefix, prefix + count);
      pace.step();
    }

    if (victim) // the planted bug: what it has still to read, it reads once every later tile has written
    {
      hold_until_written(tile + 1, tiles, pace, false);
      read_input(plan.bug == planted_bug::publish_before_reading, reads_predecessor);
    }
    hold_at(hold_point::after_publishing, tile + 1, tiles);
    if (tile == tiles - 1)
    {
      total.store(prefix + count, std::memory_order_relaxed);
    }
    for (std::size_t j = 0; j < kept.size(); ++j)
    {
      elements[prefix + j].store(kept[j], std::memory_order_relaxed);
      pace.step();
    }
    written[tile].store(true, std::memory_order_release);
  };

  auto worker = [&](unsigned w) {
    pacer pace{plan, engine(plan.seed + 1 + w), deadline, stopped};
    std::vector<int> values, kept;
    try
    {
      for (;;)
      {
        pace.step();
        const std::size_t tile = next_tile.fetch_add(1, std::memory_order_relaxed); // in increasing order
        if (tile >= tiles)
        {
          break;
        }
        play_tile(tile, pace, values, kept);
      }
    }
    catch (const schedule_stopped&)
    {}
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < plan.threads; ++w)
  {
    threads.emplace_back(worker, w);
  }
  for (auto& thread : threads)
  {
    thread.join();
  }

  if (stopped.load())
  {
    return "HUNG past the deadline: " + plan.describe();
  }
  std::ostringstream report;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < expected.kept.size(); ++i)
  {
    const int got = elements[i].load(std::memory_order_relaxed);
    if (got != expected.kept[i] && ++mismatches <= 4)
    {
      report << "element " << i << ": " << got << ", sequential " << expected.kept[i] << "\n";
    }
  }
  if (mismatches != 0 || total.load() != expected.kept.size())
  {
    report << mismatches << " elements wrong, count " << total.load() << " (sequential " << expected.kept.size()
           << ") in " << plan.describe();
  }
  return report.str();
}

std::string run_schedule(const schedule_plan& plan, const std::vector<int>& in, const sequential_result& expected,
                         model_stats& stats)
{
  return plan.split_layout ? run_schedule<split_tile_state<count_type>>(plan, in, expected, stats)
                           : run_schedule<tile_state_for<count_type>>(plan, in, expected, stats);
}

// remove_if's data: distinct values (a misread element never passes for the right one), the
// even ones kept with the given density.
std::vector<int> removal_input(engine& random, std::size_t n, std::uint32_t kept_per_mille)
{
  std::vector<int> in(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    in[i] = static_cast<int>(2 * i) + (below(random, 1000) < kept_per_mille ? 0 : 1);
  }
  return in;
}

// unique's data: runs of distinct values, of one element up to `distinct_until`, then of
// 1 .. longest elements (runs longer than a tile span several tiles).
std::vector<int> runs_input(engine& random, std::size_t n, std::size_t distinct_until, std::uint32_t longest)
{
  std::vector<int> in(n);
  int run = 0;
  for (std::size_t i = 0; i < n; ++run)
  {
    for (std::size_t k = i < distinct_until ? 1 : 1 + below(random, longest); k-- > 0 && i < n;)
    {
      in[i++] = run;
    }
  }
  return in;
}

// A schedule and its data: tiles of 4 .. 64 elements, 1 .. 200 tiles (a partial last one half the
// time), 1 .. 8 threads, every look-back depth, densities from none kept to all, runs from single
// elements to five tiles long.
schedule_plan plan_schedule(compaction form, std::uint64_t batch_seed, std::size_t index, std::vector<int>& in)
{
  static constexpr std::size_t tile_sizes[]  = {4, 5, 8, 16, 32, 64};
  static constexpr std::size_t tile_counts[] = {1, 2, 3, 17, 64, 65};
  static constexpr std::uint32_t delays[]    = {0, 10, 50, 200};
  static constexpr std::uint32_t spins[]     = {32, 512, 2048};
  static constexpr std::uint32_t densities[] = {0, 10, 500, 990, 1000};
  schedule_plan plan;
  engine random(batch_seed + 0x9e3779b97f4a7c15ull * index);
  plan.seed             = random();
  plan.form             = form;
  plan.split_layout     = index % 4 == 3;
  plan.tile_size        = tile_sizes[below(random, 6)];
  plan.tiles            = below(random, 6) == 0 ? 66 + below(random, 135) : tile_counts[below(random, 6)];
  plan.n                = plan.tiles * plan.tile_size - (below(random, 2) ? below(random, plan.tile_size) : 0);
  plan.threads          = below(random, 8) == 0 ? 1 : below(random, 4) == 0 ? 5 + below(random, 4) : 2 + below(random, 3);
  plan.depth            = 1 << below(random, 3);
  plan.delays_per_mille = delays[below(random, 4)];
  plan.spin_limit       = spins[below(random, 3)];
  plan.sleep_one_in     = below(random, 8) == 0 ? 256 : 0;
  if (below(random, 4) != 0)
  {
    plan.held_tile = below(random, plan.tiles);
    plan.hold      = static_cast<hold_point>(1 + below(random, 3));
    // A lone thread plays the tiles in order: it would wait in vain for a later tile to write.
    if ((plan.hold == hold_point::before_predecessor_read && (form != compaction::unique || plan.held_tile == 0))
        || (plan.hold == hold_point::after_publishing && plan.threads == 1))
    {
      plan.hold = hold_point::mid_read;
    }
  }
  const std::uint32_t s = static_cast<std::uint32_t>(plan.tile_size), density = below(random, 6);
  const std::uint32_t longest[] = {1, 3, s, 2 * s, 5 * s};
  in = form == compaction::remove_if
       ? removal_input(random, plan.n, density < 5 ? densities[density] : below(random, 1001))
       : runs_input(random, plan.n, below(random, 3) == 0 ? below(random, plan.n) : 0, longest[below(random, 5)]);
  return plan;
}

// Whether a victim tile v must change the result when every later tile writes before it reads:
// its first element is kept and a later tile writes over it (another value: all are distinct);
// or, for unique, its first element continues its predecessor's run and a later tile writes over
// the predecessor's last element (the head of a later run).
bool exposes(const schedule_plan& plan, const std::vector<int>& in, const sequential_result& expected, std::size_t v)
{
  const count_type first = v * plan.tile_size, after = expected.kept_before[v + 1], total = expected.kept.size();
  if (plan.bug == planted_bug::publish_before_reading)
  {
    return in[first] % 2 == 0 && after <= first && first < total;
  }
  return v > 0 && in[first - 1] == in[first] && after <= first - 1 && first - 1 < total;
}

// A planted bug's schedule: whole tiles, threads to play the later tiles, and data drawn again
// until some tile is exposed (few elements kept; long runs, then distinct values): the victim.
schedule_plan plan_planted(planted_bug bug, std::uint64_t batch_seed, std::size_t index, std::vector<int>& in,
                           sequential_result& expected)
{
  const compaction form = bug == planted_bug::publish_before_reading ? compaction::remove_if : compaction::unique;
  schedule_plan plan    = plan_schedule(form, batch_seed, index, in);
  engine random(plan.seed);
  plan.bug       = bug;
  plan.held_tile = ~std::size_t{0};
  plan.hold      = hold_point::none;
  plan.threads   = 2 + below(random, 3);
  plan.tile_size = 4 + below(random, 13);
  plan.tiles     = 8 + below(random, 33);
  plan.n         = plan.tiles * plan.tile_size;
  for (std::vector<std::size_t> exposed; exposed.empty();)
  {
    in = form == compaction::remove_if ? removal_input(random, plan.n, 300)
                                       : runs_input(random, plan.n, 0, static_cast<std::uint32_t>(plan.tile_size));
    for (std::size_t i = plan.n / 2; form == compaction::unique && i < plan.n; ++i)
    {
      in[i] = static_cast<int>(plan.n + i);
    }
    expected = compact_sequentially(form, in, plan.tile_size);
    for (std::size_t v = 0; v < plan.tiles; ++v)
    {
      if (exposes(plan, in, expected, v))
      {
        exposed.push_back(v);
      }
    }
    plan.victim = exposed.empty() ? 0 : exposed[below(random, exposed.size())];
  }
  return plan;
}

// Correct schedules, each compared with the sequential compaction: about 3.5 s per form on 2 cores.
constexpr std::size_t schedules_per_form = 12'000;
// A planted bug's schedules: every one must come out wrong (and not hang).
constexpr std::size_t planted_schedules = 24;

void expect_every_schedule_matches(compaction form, model_stats& stats)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "batch seed " << seed);
  std::size_t failed = 0;
  std::string first_failure;
  for (std::size_t i = 0; i < schedules_per_form; ++i)
  {
    std::vector<int> in;
    const schedule_plan plan  = plan_schedule(form, seed, i, in);
    const std::string failure = run_schedule(plan, in, compact_sequentially(form, in, plan.tile_size), stats);
    first_failure             = failed == 0 ? failure : first_failure;
    failed += failure.empty() ? 0 : 1;
  }
  EXPECT_EQ(failed, 0u) << first_failure;
  EXPECT_GT(stats.look_backs_that_waited.load(), 0u) << "no look-back ever waited on an unpublished tile";
  EXPECT_GT(stats.reads_after_every_earlier_tile_wrote.load(), 0u) << "no tile read on after those below it wrote";
}

void expect_every_schedule_catches(planted_bug bug)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "batch seed " << seed);
  model_stats stats;
  std::size_t caught = 0;
  std::string missed;
  for (std::size_t i = 0; i < planted_schedules; ++i)
  {
    std::vector<int> in;
    sequential_result expected;
    const schedule_plan plan  = plan_planted(bug, seed, i, in, expected);
    const std::string failure = run_schedule(plan, in, expected, stats);
    const bool wrong          = !failure.empty() && failure.rfind("HUNG", 0) != 0;
    caught += wrong ? 1 : 0;
    missed = wrong ? missed : failure.empty() ? "not caught: " + plan.describe() : failure;
  }
  EXPECT_TRUE(caught > 0) << "the planted bug went unnoticed";
  EXPECT_EQ(caught, planted_schedules) << missed;
}

TEST(InPlaceCompactionModel, RemovalsOverTheirOwnInputMatchTheSequentialResultUnderAdversarialSchedules)
{
  model_stats stats;
  expect_every_schedule_matches(compaction::remove_if, stats);
}

TEST(InPlaceCompactionModel, UniqueReadsItsPredecessorsLastElementBeforeAnyoneOverwritesIt)
{
  model_stats stats;
  expect_every_schedule_matches(compaction::unique, stats);
  EXPECT_GT(stats.predecessor_reads_after_it_wrote_over_itself.load(), 0u)
    << "no tile read its predecessor's last element after the predecessor wrote over it";
}

TEST(InPlaceCompactionModel, PublishingBeforeReadingIsCaught)
{
  expect_every_schedule_catches(planted_bug::publish_before_reading);
}

TEST(InPlaceCompactionModel, ReadingThePredecessorsLastElementAfterPublishingIsCaught)
{
  expect_every_schedule_catches(planted_bug::predecessor_read_after_publishing);
}

} // namespace

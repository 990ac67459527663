// The warp of the look-back, played by one host thread, so that the library's own
// exclusive_prefix_of (look_back.h) runs on host threads in the protocol model test.
//
// A real warp's reads of its windows are not one atomic snapshot: each lane's read lands at its
// own moment. The host lanes therefore read one tile at a time, window after window (nearest
// first), each window's lanes in an order and with gaps chosen by a Pacer, which also decides how
// a waiting warp backs off. A Pacer provides:
//   void order_lanes(int (&order)[32])                the order in which the lanes read a window
//   void between_reads()                              called after each lane's read
//   template <class Lanes> void window_read(const Lanes&)   called once a whole read is done
//   template <class Lanes> void pause(const Lanes&)   back off (may inspect the read just made)
// The lanes also count what the look-back did with them (waits, walks back to an earlier read,
// forward re-reads, P found beyond the nearest window of a read), so that a test can tell which
// paths its schedules exercised.
#pragma once

#include <spscan/detail/common/blocked_association.h>
#include <spscan/detail/common/look_back.h>
#include <spscan/detail/common/tile_state.h>

#include <cstdint>
#include <numeric>
#include <thread>

namespace spscan_test
{

// Reads the lanes in order without gaps; a waiting warp only yields its core.
struct plain_pacer
{
  void order_lanes(int (&order)[spscan::detail::look_back_window])
  {
    std::iota(order, order + spscan::detail::look_back_window, 0);
  }
  void between_reads() {}
  template <class Lanes>
  void window_read(const Lanes&)
  {}
  template <class Lanes>
  void pause(const Lanes&)
  {
    std::this_thread::yield();
  }
};

template <class Accum, class Pacer = plain_pacer, int Depth = 1>
class host_lanes
{
public:
  static constexpr int depth = Depth;
  static constexpr int lanes = spscan::detail::look_back_window;
  // What a lane whose tile would lie before tile 0 reports: no status the look-back looks for.
  static constexpr std::uint32_t status_out_of_range = 0xffu;

  explicit host_lanes(Pacer& pacer)
      : pacer_(pacer)
  {}

  template <class State>
  void load(const State& state, long long first_tile, long long end)
  {
    walked_back_ = loads_ > 0 && first_tile < first_tile_;
    walks_back_ += walked_back_ ? 1 : 0;
    const bool forward = loads_ > 0 && first_tile > first_tile_;
    ++loads_;
    first_tile_ = first_tile;
    for (int w = 0; w < Depth; ++w)
    {
      int order[lanes];
      pacer_.order_lanes(order);
      for (const int lane : order)
      {
        const long long tile = first_tile - static_cast<long long>(lanes) * w + lane;
        if (tile >= 0 && tile < end)
        {
          window_[w][lane] = state.load(static_cast<std::size_t>(tile));
        }
        else
        {
          window_[w][lane] = {status_out_of_range, Accum{}};
        }
        pacer_.between_reads();
      }
    }
    if (forward)
    {
      ++forward_reads_;
      for (int w = 0; w < Depth; ++w)
      {
        forward_restarts_ += mask(w, spscan::detail::status_prefix) != 0 ? 1 : 0;
      }
    }
    else
    {
      // A backward read whose nearest window is all A and whose P lies in a farther window.
      bool nearer_all_aggregates = true;
      for (int w = 0; w < Depth && nearer_all_aggregates; ++w)
      {
        if (mask(w, spscan::detail::status_prefix) != 0)
        {
          deep_finds_ += w > 0 ? 1 : 0;
          break;
        }
        nearer_all_aggregates = mask(w, spscan::detail::status_aggregate) == ~0u;
      }
    }
    pacer_.window_read(*this);
  }

  std::uint32_t mask(int w, spscan::detail::tile_status status) const
  {
    std::uint32_t bits = 0;
    for (int lane = 0; lane < lanes; ++lane)
    {
      bits |= (window_[w][lane].status == status ? 1u : 0u) << lane;
    }
    return bits;
  }

  // Lanes of window w holding an A or a P whose value satisfies `pred`.
  template <class Pred>
  std::uint32_t published_where(int w, Pred pred) const
  {
    std::uint32_t bits = 0;
    for (int lane = 0; lane < lanes; ++lane)
    {
      const auto& s  = window_[w][lane];
      const bool set = (s.status == spscan::detail::status_aggregate || s.status == spscan::detail::status_prefix)
                    && pred(s.value);
      bits |= (set ? 1u : 0u) << lane;
    }
    return bits;
  }

  Accum value(int w, int lane) const
  {
    return window_[w][lane].value;
  }

  // The blocked association's tree of lanes [0, run) (common/blocked_association.h).
  template <class Op>
  Accum tree(int w, int run, Op& op) const
  {
    Accum values[lanes];
    for (int lane = 0; lane < lanes; ++lane)
    {
      values[lane] = window_[w][lane].value;
    }
    return run > 0 ? spscan::detail::leading_tree(values, run, op) : values[0];
  }

  void pause()
  {
    ++pauses_;
    pacer_.pause(*this);
  }

  // What the look-back did with these lanes so far, for coverage statistics.
  long long first_tile() const // of the nearest window of the read made last
  {
    return first_tile_;
  }
  int pauses() const // waits for a predecessor to publish
  {
    return pauses_;
  }
  int walks_back() const // moves to an earlier read, past windows of A's only
  {
    return walks_back_;
  }
  bool walked_back() const // the read made last lies before the one made before it
  {
    return walked_back_;
  }
  int forward_reads() const // re-reads of later windows after the walk back
  {
    return forward_reads_;
  }
  int forward_restarts() const // windows of forward re-reads that held a P (the fold restarted there)
  {
    return forward_restarts_;
  }
  int deep_finds() const // backward reads that found the P beyond their nearest window
  {
    return deep_finds_;
  }

private:
  Pacer& pacer_;
  spscan::detail::tile_snapshot<Accum> window_[Depth][lanes]{};
  long long first_tile_ = 0;
  int loads_            = 0;
  int pauses_           = 0;
  int walks_back_       = 0;
  bool walked_back_     = false;
  int forward_reads_    = 0;
  int forward_restarts_ = 0;
  int deep_finds_       = 0;
};

} // namespace spscan_test

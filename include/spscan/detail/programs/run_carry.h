// What reduce_by_key carries across tiles (programs/reduce_by_key_program.h): the run carry, its
// combine, its count type and its tile state.
//
// A run carry is the fold of a span of the input: how many runs start (how many heads lie) in it,
// and the fold of its values since its last head. Carries combine as
//   (a, b) -> {b.heads ? b.value : op(a.value, b.value), a.heads + b.heads},
// associative whenever op is, so the engines' left folds keep results reproducible. Unlike a
// segment carry's, a head does not make a carry absorb what precedes it: the counts still add.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_state.h>

#include <cuda/std/type_traits>

#include <cstdint>
#include <cstring>

namespace spscan::detail
{

template <class Accum, class Count>
struct run_carry
{
  Accum value;
  Count heads;
};

// The count of heads in a carry: 4 bytes wherever the input has fewer than 2^32 elements and the
// value has up to 8 bytes (the carry then packs with its status in one word: a 128-bit word
// whole, or run_tile_state below), else 8, which a larger value's alignment pads to anyway. Inputs
// of 2^32 elements or more take the 8-byte count (reduce_by_key_plan.h).
template <class Accum>
using run_count = ::cuda::std::conditional_t<(sizeof(Accum) <= 8), std::uint32_t, std::uint64_t>;

// The run carries' combine, from the user's op: op(earlier, later) only, never on a value that is
// not the fold of input values.
template <class Accum, class Count, class Op>
struct run_carry_op
{
  Op& op;

  _CCCL_EXEC_CHECK_DISABLE
  SPSCAN_HOST_DEVICE run_carry<Accum, Count> operator()(const run_carry<Accum, Count>& a,
                                                        const run_carry<Accum, Count>& b) const
  {
    // Zeroed first, padding too: a carry in the split tile layout is published whole.
    run_carry<Accum, Count> combined{};
    combined.value = b.heads != 0 ? b.value : static_cast<Accum>(op(a.value, b.value));
    combined.heads = static_cast<Count>(a.heads + b.heads);
    return combined;
  }
};

// The tile state of a carry of a 5- to 8-byte value and a 4-byte count, 16 bytes with its padding:
// the status word (common/tile_state.h's encoding) in the low half of the low 64 bits of one
// 128-bit word, the count in the high half, the value in the high 64 bits. The general layouts
// would take the split one, whose reads cost an acquire load and a second, dependent load; this
// keeps every state read one load, as a scan's of the same value (docs/design.md#reduce-by-key).
template <class Value>
class run_tile_state
{
  static_assert(sizeof(Value) > 4 && sizeof(Value) <= 8 && ::cuda::std::is_trivially_copyable_v<Value>);

public:
  static constexpr bool packed = true;
  using carry                  = run_carry<Value, std::uint32_t>;
  using word                   = word128;
  static constexpr std::uint32_t epoch_layout = 6; // as common/tile_state.h's
  static constexpr std::uint32_t max_epoch    = max_status_word_epoch;

  SPSCAN_HOST_DEVICE static std::size_t status_bytes(std::size_t tiles)
  {
    return tiles * sizeof(word);
  }
  SPSCAN_HOST_DEVICE static std::size_t value_bytes(std::size_t)
  {
    return 0;
  }

  run_tile_state() = default;
  SPSCAN_HOST_DEVICE run_tile_state(void* status_storage, void*)
      : words_(static_cast<word*>(status_storage))
  {}

  SPSCAN_HOST_DEVICE void set_epoch(std::uint32_t epoch)
  {
    epoch_ = epoch;
  }

  SPSCAN_HOST_DEVICE void publish(std::size_t tile, tile_status status, const carry& c) const
  {
    word w{};
    w.low = (std::uint64_t{c.heads} << 32) | status_word(status, epoch_);
    memcpy(&w.high, &c.value, sizeof(Value));
    store_relaxed(words_ + tile, w);
  }

  SPSCAN_HOST_DEVICE tile_snapshot<carry> load(std::size_t tile) const
  {
    const word w = load_relaxed(words_ + tile);
    tile_snapshot<carry> s{};
    s.status        = status_in_epoch(static_cast<std::uint32_t>(w.low), epoch_);
    s.value.heads   = static_cast<std::uint32_t>(w.low >> 32);
    memcpy(&s.value.value, &w.high, sizeof(Value));
    return s;
  }

private:
  word* words_          = nullptr;
  std::uint32_t epoch_ = 0;
};

template <class Value>
struct tile_state_of<run_carry<Value, std::uint32_t>,
                     ::cuda::std::enable_if_t<SPSCAN_HAS_WORD128 && (sizeof(Value) > 4) && (sizeof(Value) <= 8)
                                              && ::cuda::std::is_trivially_copyable_v<Value>>>
{
  using type = run_tile_state<Value>;
};

} // namespace spscan::detail

// What a by-key scan carries across tiles (programs/scan_by_key_program.h): the segment carry, its
// combine, and its tile state.
//
// A segment carry is the fold of a span of the input: whether a segment starts (a head lies) in
// it, and the fold of its values since the last start. Carries combine as
//   (a, b) -> b.head ? b : {op(a.value, b.value), a.head},
// associative whenever op is, so the engines' left folds keep results reproducible.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/tile_state.h>

#include <cuda/std/type_traits>

#include <cstring>

namespace spscan::detail
{

// The head flag: a whole 32-bit word beside a value of 8 bytes or more aligned to 4 or more (the
// word takes exactly the bool's padding, so the carry keeps its size), else a bool. A bool byte
// inside a word costs byte permutes at every shuffle, combine and select of the carry: the by-key
// double ring kernel ran ~150 of them a tile in its prefix warp alone. For 4-byte values the word
// measured slower (docs/design.md#by-key-scans); beside a byte-aligned value it would grow the
// carry by up to three bytes, past the kernel's accumulator limit for values of 29-31 bytes
// (route.h).
template <class Accum>
using segment_head_flag =
  ::cuda::std::conditional_t<sizeof(Accum) >= 8 && alignof(Accum) >= 4, std::uint32_t, bool>;

template <class Accum>
struct segment_carry
{
  Accum value;
  segment_head_flag<Accum> head; // 0 or 1
};

// The carries' combine, from the user's op: op(earlier, later) only, never on a value that is
// not the fold of input values (and init). Host code calls it only in the protocol model test.
template <class Accum, class Op>
struct segmented_op
{
  Op& op;

  // Field by field: returning `b` whole made the compiler move the carry's padding bytes as well,
  // a dozen instructions a combine. The result starts zeroed, padding too, so
  // that a carry published in the split layout (tile_state.h) is stored whole: its padding read
  // back uninitialized was compute-sanitizer initcheck's finding.
  _CCCL_EXEC_CHECK_DISABLE
  SPSCAN_HOST_DEVICE segment_carry<Accum> operator()(const segment_carry<Accum>& a, const segment_carry<Accum>& b) const
  {
    segment_carry<Accum> combined{};
    combined.value = b.head ? b.value : static_cast<Accum>(op(a.value, b.value));
    combined.head  = a.head || b.head;
    return combined;
  }

  // For the ring's prefix warp (ring/running_prefix.h): a carry with a head drops what precedes
  // it, one without continues the fold; so a fold of ~130 carries chains one op per carry, with
  // no head test in the chain (docs/design.md#the-prefix-warp, restarting folds).
  static constexpr bool restarts_at_heads = true;
  SPSCAN_HOST_DEVICE static bool restarts(const segment_carry<Accum>& c)
  {
    return c.head;
  }
  _CCCL_EXEC_CHECK_DISABLE
  SPSCAN_HOST_DEVICE segment_carry<Accum> extend(const segment_carry<Accum>& a, const segment_carry<Accum>& b) const
  {
    segment_carry<Accum> extended{};
    extended.value = static_cast<Accum>(op(a.value, b.value));
    extended.head  = a.head;
    return extended;
  }
};

// The tile state of a carry whose value has up to 8 bytes: the status in the low byte of one word,
// the head in bit 8, the epoch (common/tile_state.h) in bits 9-31, the value in the word's high
// half; a 64-bit word for values of up to 4 bytes, a 128-bit one for up to 8 (where the compiler
// has them, tile_state.h). The general packing
// would take a 128-bit word for the 4-byte value's 8-byte carry and the split layout for the
// 8-byte value's 16-byte carry, whose reads cost an acquire load and a second, dependent load;
// this keeps every state read one load, as a scan's of the same value
// (docs/design.md#by-key-scans).
template <class Value>
class segment_tile_state
{
  static_assert(sizeof(Value) <= (SPSCAN_HAS_WORD128 ? 8 : 4) && ::cuda::std::is_trivially_copyable_v<Value>);
  static constexpr std::uint64_t status_mask = 0xff;
  static constexpr std::uint64_t head_bit    = 0x100;
  static constexpr int epoch_shift           = 9;
  static constexpr bool narrow               = sizeof(Value) <= 4;

public:
  static constexpr bool packed = true;
  using carry                  = segment_carry<Value>;
  using word                   = ::cuda::std::conditional_t<narrow, std::uint64_t, word128>;
  static constexpr std::uint32_t max_epoch = (std::uint32_t{1} << 23) - 1; // bits 9-31
  static constexpr std::uint32_t epoch_layout = narrow ? 4 : 5; // as common/tile_state.h's

  SPSCAN_HOST_DEVICE static std::size_t status_bytes(std::size_t tiles)
  {
    return tiles * sizeof(word);
  }
  SPSCAN_HOST_DEVICE static std::size_t value_bytes(std::size_t)
  {
    return 0;
  }

  segment_tile_state() = default;
  SPSCAN_HOST_DEVICE segment_tile_state(void* status_storage, void*)
      : words_(static_cast<word*>(status_storage))
  {}

  SPSCAN_HOST_DEVICE void set_epoch(std::uint32_t epoch)
  {
    epoch_ = epoch;
  }

  SPSCAN_HOST_DEVICE void publish(std::size_t tile, tile_status status, const carry& c) const
  {
    const std::uint64_t tag = (std::uint64_t{epoch_} << epoch_shift) | (c.head ? head_bit : 0) | status;
    word w{};
    if constexpr (narrow)
    {
      std::uint32_t bits = 0;
      memcpy(&bits, &c.value, sizeof(Value));
      w = (std::uint64_t{bits} << 32) | tag;
    }
    else
    {
      w.low = tag;
      memcpy(&w.high, &c.value, sizeof(Value));
    }
    store_relaxed(words_ + tile, w);
  }

  SPSCAN_HOST_DEVICE tile_snapshot<carry> load(std::size_t tile) const
  {
    const word w = load_relaxed(words_ + tile);
    tile_snapshot<carry> s{};
    std::uint64_t tag = 0;
    if constexpr (narrow)
    {
      tag                      = static_cast<std::uint32_t>(w);
      const std::uint32_t bits = static_cast<std::uint32_t>(w >> 32);
      memcpy(&s.value.value, &bits, sizeof(Value));
    }
    else
    {
      tag = w.low;
      memcpy(&s.value.value, &w.high, sizeof(Value));
    }
    s.status     = (tag >> epoch_shift) == epoch_ ? static_cast<std::uint32_t>(tag & status_mask) : status_empty;
    s.value.head = (tag & head_bit) != 0;
    return s;
  }

private:
  word* words_          = nullptr;
  std::uint32_t epoch_ = 0;
};

template <class Value>
struct tile_state_of<segment_carry<Value>,
                     ::cuda::std::enable_if_t<(sizeof(Value) <= (SPSCAN_HAS_WORD128 ? 8 : 4))
                                              && ::cuda::std::is_trivially_copyable_v<Value>>>
{
  using type = segment_tile_state<Value>;
};

} // namespace spscan::detail

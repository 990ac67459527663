// Tile states of the decoupled look-back: per tile, a status (X: nothing yet, A: the tile's
// aggregate, P: the inclusive prefix through the tile) and a value. The same code runs on the
// device and on host threads (the protocol model test).
//
// Two layouts:
//  - packed_tile_state: the status and an accumulator of up to 8 bytes share one word (64 bits
//    for accumulators of up to 4 bytes, 128 bits for up to 8), so a single relaxed store/load
//    publishes/reads both; no fence separates them. 128-bit words need sm_70 and PTX 8.3
//    (ld/st.b128); older compilers use the split layout for 8-byte accumulators.
//  - split_tile_state: any larger trivially copyable accumulator. The value is written first,
//    then the status with release semantics; a reader acquires the status before it reads the
//    value. A and P have separate value slots, so a reader that saw A never reads a slot that a
//    later P overwrites.
// Both start from all-zero status words (X == 0), which a memset provides.
//
// Epochs: a status word also carries the epoch of the call that wrote it (epoch x 4 + X/A/P), and
// a reader takes a word of any other epoch for X. So storage kept between calls needs no clearing
// between them: each call takes the next epoch, and what earlier calls left reads as nothing
// (launch.h). Epoch 0 is the plain encoding (X, A, P as 0, 1, 2): storage cleared before the call.
#pragma once

#include <spscan/detail/config.h>

#include <cuda/atomic>
#include <cuda/std/type_traits>

#include <cstring>

#include <nv/target>

namespace spscan::detail
{

enum tile_status : std::uint32_t
{
  status_empty     = 0, // X: the tile has published nothing yet
  status_aggregate = 1, // A: value is the tile's own aggregate
  status_prefix    = 2, // P: value is the inclusive prefix through the tile
};

// A status word of `epoch`, and a word read back as the status it holds for `epoch`.
SPSCAN_HOST_DEVICE inline std::uint32_t status_word(tile_status status, std::uint32_t epoch)
{
  return epoch * 4u + static_cast<std::uint32_t>(status);
}
SPSCAN_HOST_DEVICE inline std::uint32_t status_in_epoch(std::uint32_t word, std::uint32_t epoch)
{
  return word / 4u == epoch ? word % 4u : static_cast<std::uint32_t>(status_empty);
}
// The last epoch a 32-bit status word tells apart (two of its bits are the status).
constexpr std::uint32_t max_status_word_epoch = (std::uint32_t{1} << 30) - 1;

template <class Accum>
struct tile_snapshot
{
  std::uint32_t status;
  Accum value; // meaningful only when status != status_empty
};

// Snapshot w of a lane's read, chosen by value, so that the array stays in registers when w is
// not a compile-time constant (a run-time index would move it to local memory).
template <class Accum, int N>
SPSCAN_HOST_DEVICE tile_snapshot<Accum> snapshot_at(const tile_snapshot<Accum> (&snapshots)[N], int w)
{
  tile_snapshot<Accum> s = snapshots[0];
#pragma unroll
  for (int i = 1; i < N; ++i)
  {
    if (i == w)
    {
      s = snapshots[i];
    }
  }
  return s;
}

template <class T>
using device_atomic_ref = ::cuda::atomic_ref<T, ::cuda::thread_scope_device>;

// One 128-bit word read or written as a whole (single-copy atomic), relaxed, at device scope.
struct alignas(16) word128
{
  std::uint64_t low;
  std::uint64_t high;
};

SPSCAN_HOST_DEVICE inline void store_relaxed(word128* target, word128 word)
{
  NV_IF_TARGET(NV_IS_DEVICE,
               (asm volatile("{\n\t.reg .b128 w;\n\tmov.b128 w, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], w;\n\t}"
                             :
                             : "l"(target), "l"(word.low), "l"(word.high)
                             : "memory");),
               (__atomic_store(target, &word, __ATOMIC_RELAXED);))
}

SPSCAN_HOST_DEVICE inline word128 load_relaxed(const word128* source)
{
  word128 word;
  NV_IF_TARGET(NV_IS_DEVICE,
               (asm volatile("{\n\t.reg .b128 w;\n\tld.relaxed.gpu.global.b128 w, [%2];\n\tmov.b128 {%0, %1}, w;\n\t}"
                             : "=l"(word.low), "=l"(word.high)
                             : "l"(source)
                             : "memory");),
               (__atomic_load(const_cast<word128*>(source), &word, __ATOMIC_RELAXED);))
  return word;
}

SPSCAN_HOST_DEVICE inline void store_relaxed(std::uint64_t* target, std::uint64_t word)
{
  device_atomic_ref<std::uint64_t>(*target).store(word, ::cuda::std::memory_order_relaxed);
}

SPSCAN_HOST_DEVICE inline std::uint64_t load_relaxed(const std::uint64_t* source)
{
  return device_atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(source)).load(::cuda::std::memory_order_relaxed);
}

// Status in the low 32 bits of the word; the value in the high 32 bits (64-bit word) or in the
// high 64 bits (128-bit word).
template <class Accum>
class packed_tile_state
{
  static_assert(sizeof(Accum) <= 8 && ::cuda::std::is_trivially_copyable_v<Accum>);

public:
  static constexpr bool packed = true;
  using word                   = ::cuda::std::conditional_t<(sizeof(Accum) <= 4), std::uint64_t, word128>;
  // Which places and encoding of status words a kept block's tags vouch for (launch.h): each
  // layout its own, so that no call reads another layout's value bits as a status.
  static constexpr std::uint32_t epoch_layout = sizeof(word) == 8 ? 1 : 2;
  static constexpr std::uint32_t max_epoch = max_status_word_epoch;

  SPSCAN_HOST_DEVICE static std::size_t status_bytes(std::size_t tiles)
  {
    return tiles * sizeof(word);
  }
  SPSCAN_HOST_DEVICE static std::size_t value_bytes(std::size_t)
  {
    return 0;
  }

  packed_tile_state() = default;
  SPSCAN_HOST_DEVICE packed_tile_state(void* status_storage, void*)
      : words_(static_cast<word*>(status_storage))
  {}

  // The epoch this call's statuses are written and read in (the top of this file).
  SPSCAN_HOST_DEVICE void set_epoch(std::uint32_t epoch)
  {
    epoch_ = epoch;
  }

  SPSCAN_HOST_DEVICE void publish(std::size_t tile, tile_status status, const Accum& value) const
  {
    word w{};
    if constexpr (sizeof(Accum) <= 4)
    {
      std::uint32_t bits = 0;
      memcpy(&bits, &value, sizeof(Accum));
      w = (std::uint64_t{bits} << 32) | status_word(status, epoch_);
    }
    else
    {
      w.low = status_word(status, epoch_);
      memcpy(&w.high, &value, sizeof(Accum));
    }
    store_relaxed(words_ + tile, w);
  }

  SPSCAN_HOST_DEVICE tile_snapshot<Accum> load(std::size_t tile) const
  {
    const word w = load_relaxed(words_ + tile);
    tile_snapshot<Accum> s{};
    if constexpr (sizeof(Accum) <= 4)
    {
      s.status                 = status_in_epoch(static_cast<std::uint32_t>(w), epoch_);
      const std::uint32_t bits = static_cast<std::uint32_t>(w >> 32);
      memcpy(&s.value, &bits, sizeof(Accum));
    }
    else
    {
      s.status = status_in_epoch(static_cast<std::uint32_t>(w.low), epoch_);
      memcpy(&s.value, &w.high, sizeof(Accum));
    }
    return s;
  }

private:
  word* words_          = nullptr;
  std::uint32_t epoch_ = 0;
};

template <class Accum>
class split_tile_state
{
  static_assert(::cuda::std::is_trivially_copyable_v<Accum>);

public:
  static constexpr bool packed = false;
  static constexpr std::uint32_t epoch_layout = 3; // as packed_tile_state's
  static constexpr std::uint32_t max_epoch = max_status_word_epoch;

  SPSCAN_HOST_DEVICE static std::size_t status_bytes(std::size_t tiles)
  {
    return tiles * sizeof(std::uint32_t);
  }
  SPSCAN_HOST_DEVICE static std::size_t value_bytes(std::size_t tiles)
  {
    return 2 * tiles * sizeof(Accum);
  }

  split_tile_state() = default;
  SPSCAN_HOST_DEVICE split_tile_state(void* status_storage, void* value_storage)
      : status_(static_cast<std::uint32_t*>(status_storage))
      , values_(static_cast<Accum*>(value_storage))
  {}

  // The epoch this call's statuses are written and read in (the top of this file).
  SPSCAN_HOST_DEVICE void set_epoch(std::uint32_t epoch)
  {
    epoch_ = epoch;
  }

  SPSCAN_HOST_DEVICE void publish(std::size_t tile, tile_status status, const Accum& value) const
  {
    slot(tile, status) = value;
    device_atomic_ref<std::uint32_t>(status_[tile]).store(status_word(status, epoch_), ::cuda::std::memory_order_release);
  }

  SPSCAN_HOST_DEVICE tile_snapshot<Accum> load(std::size_t tile) const
  {
    tile_snapshot<Accum> s{
      status_in_epoch(device_atomic_ref<std::uint32_t>(status_[tile]).load(::cuda::std::memory_order_acquire), epoch_), {}};
    if (s.status != status_empty)
    {
      s.value = slot(tile, static_cast<tile_status>(s.status));
    }
    return s;
  }

private:
  SPSCAN_HOST_DEVICE Accum& slot(std::size_t tile, tile_status status) const
  {
    return values_[2 * tile + (status == status_prefix ? 1 : 0)];
  }

  std::uint32_t* status_ = nullptr;
  Accum* values_         = nullptr;
  std::uint32_t epoch_  = 0;
};

// The layout of an accumulator's tile states; a carry type may name its own by specializing this
// (programs/segment_carry.h).
template <class Accum, class = void>
struct tile_state_of
{
  using type = ::cuda::std::conditional_t<(sizeof(Accum) <= (SPSCAN_HAS_WORD128 ? 8 : 4)),
                                          packed_tile_state<Accum>,
                                          split_tile_state<Accum>>;
};

template <class Accum>
using tile_state_for = typename tile_state_of<Accum>::type;

// Layout of the temporary storage of a multi-tile scan: the counters (16 bytes, the first 8 the
// 64-bit tile counter), the status words (counters and statuses: the part that starts zeroed, or,
// for kept storage, is counted on and tagged with epochs; driver.h, launch.h), then the value
// slots.
template <class State>
struct tile_storage_layout
{
  static constexpr std::size_t counter_bytes = 16;

  std::size_t tiles;

  SPSCAN_HOST_DEVICE std::size_t zeroed_bytes() const
  {
    return round_up(counter_bytes + State::status_bytes(tiles));
  }
  SPSCAN_HOST_DEVICE std::size_t total_bytes() const
  {
    return zeroed_bytes() + State::value_bytes(tiles);
  }
  SPSCAN_HOST_DEVICE static std::size_t round_up(std::size_t bytes)
  {
    return (bytes + 255) / 256 * 256;
  }
  SPSCAN_HOST_DEVICE std::uint32_t* counter(void* base) const
  {
    return static_cast<std::uint32_t*>(base);
  }
  SPSCAN_HOST_DEVICE State state(void* base) const
  {
    auto* bytes = static_cast<unsigned char*>(base);
    return State(bytes + counter_bytes, bytes + zeroed_bytes());
  }
};

} // namespace spscan::detail

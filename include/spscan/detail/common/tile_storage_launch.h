// A call's tile storage, on either engine: sizes and takes it (tile states and the tile counter,
// temporary_storage.h), counts on what the last call left in kept storage or clears it
// (dependent_launch.h); and prepares a kernel's shared memory once per device and context.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/dependent_launch.h>
#include <spscan/detail/common/device_context.h>
#include <spscan/detail/common/program_contract.h>
#include <spscan/detail/common/temporary_storage.h>
#include <spscan/detail/common/tile_state.h>
#include <spscan/detail/thrust_bridge.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace spscan::detail
{

// Prepares a kernel, once per device and context (a reset forgets it): allows it its dynamic
// shared memory and asks for the largest shared-memory carveout (the tile stays in shared memory,
// and the SM's default split would hold fewer CTAs than its registers allow). The kernel is a
// template argument so that each kernel, not each kernel signature, keeps its own record.
template <auto kernel>
void prepare_kernel(std::size_t shared_bytes)
{
  constexpr int max_devices = 64;
  static std::atomic<unsigned long long> prepared_in[max_devices]; // context id; 0: not yet
  int device = 0;
  throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
  const unsigned long long context = current_context_id(device);
  if (device < max_devices && context != 0 && prepared_in[device].load(std::memory_order_relaxed) == context)
  {
    return;
  }
  throw_if_failed(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)),
                  "spscan: the kernel's shared memory does not fit this device");
  throw_if_failed(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
                  "spscan: setting the kernel's shared memory carveout failed");
  if (device < max_devices)
  {
    prepared_in[device].store(context, std::memory_order_relaxed);
  }
}

// What a call on storage kept between calls does (classic/driver.h, 4.), on either engine: no clearing
// before or after. It takes the epoch after the last call's and the tile counter where the last
// call left it (storage_tags). Only where the tags do not vouch for the bytes it needs (a larger
// call, the block's first, one after other work wrote to it, or one whose status words lie
// elsewhere or read otherwise: another layout), or the epochs ran out, is it cleared first (a
// memset): the tags then start from the cleared bytes, the epochs going on or, where they ran
// out or the layout changed, starting again (a word of any earlier epoch reads as nothing in a
// later one). A layout whose value slots follow its status words (`values_follow`: the split
// one) leaves only its own status words vouched for: its values may lie where a larger call's
// status words were. `ids`: how many tile ids the call's CTAs take in all.
struct tagged_launch
{
  bool clear_first;
  std::uint32_t epoch;
  std::uint64_t first_tile_id;
  storage_tags after; // what the call leaves for the next
};

inline tagged_launch plan_tagged_launch(storage_tags tags,
                                        std::size_t needed_bytes,
                                        std::uint32_t layout,
                                        bool values_follow,
                                        std::uint32_t max_epoch,
                                        std::size_t ids)
{
  const bool same_layout = tags.layout == layout;
  const bool vouched_for = same_layout && tags.tagged_bytes >= needed_bytes && tags.epoch < max_epoch;
  if (!vouched_for)
  {
    tags = storage_tags{needed_bytes, same_layout && tags.epoch < max_epoch ? tags.epoch : 0u, 0, layout};
  }
  const std::size_t vouched_after = values_follow ? needed_bytes : tags.tagged_bytes;
  return {!vouched_for,
          tags.epoch + 1,
          tags.next_tile_id,
          storage_tags{vouched_after, tags.epoch + 1, tags.next_tile_id + ids, layout}};
}

// Launches as plan_tagged_launch says where the storage is kept; returns whether it was.
template <class Program, class Derived, class Launch>
bool launch_on_tagged_storage(call_storage<Derived>& storage,
                              driver_params<Program>& p,
                              std::size_t needed_bytes,
                              std::size_t ids,
                              cudaStream_t stream,
                              Launch&& launch)
{
  if (!storage.kept_between_calls())
  {
    return false;
  }
  using state              = typename driver_params<Program>::state;
  const tagged_launch plan = plan_tagged_launch(
    storage.tags(), needed_bytes, state::epoch_layout, state::value_bytes(1) != 0, state::max_epoch, ids);
  p.tiles_state.set_epoch(plan.epoch);
  p.first_tile_id = plan.first_tile_id;
  if (plan.clear_first)
  {
    launch(clear_storage(storage.data(), needed_bytes, stream, storage_clear::memset_first));
  }
  else
  {
    launch(storage_launch{storage_launch_kind::plain});
  }
  storage.set_tags(plan.after); // reached only once the kernel is launched (a failed launch throws)
  return true;
}

// Takes and prepares `states` tile states (p.tiles, or more where a launch keeps more words of
// that kind: the ring's prefix service, ring/prefix_service.h) and the counters of a launch of
// `p.tiles` tiles (p.tiles > 1) whose CTAs take `ids` tile ids in all, fills them into `p`, and calls
// `launch(storage_launch)` (dependent_launch.h), which launches the kernel and returns whether it
// did. Kept storage is counted on as launch_on_tagged_storage says; other storage is cleared
// first, as `clear` says (a kernel that clears its storage itself is told how much in
// p.clear_first_bytes).
template <class Program, class Derived, class Launch>
void with_tile_storage(cuda_policy<Derived>& policy,
                       driver_params<Program>& p,
                       cudaStream_t stream,
                       storage_clear clear,
                       std::size_t states,
                       std::size_t ids,
                       Launch&& launch)
{
  using state = typename driver_params<Program>::state;
  const tile_storage_layout<state> layout{states};
  call_storage<Derived> storage(policy, layout.total_bytes());
  void* base = storage.data();
  const std::size_t zeroed = layout.zeroed_bytes();
  p.tile_counter           = layout.counter(base);
  p.tiles_state            = layout.state(base);
  p.clear_first_bytes      = 0;
  if (launch_on_tagged_storage(storage, p, zeroed, ids, stream, launch))
  {
    return;
  }
  if (clear != storage_clear::by_the_kernel)
  {
    launch(clear_storage(base, zeroed, stream, clear));
  }
  else if (capturing(stream))
  {
    launch(clear_storage(base, zeroed, stream, storage_clear::memset_first));
  }
  else
  {
    p.clear_first_bytes = zeroed;
    if (!launch(storage_launch{storage_launch_kind::clearing}))
    {
      p.clear_first_bytes = 0;
      launch(clear_storage(base, zeroed, stream, storage_clear::beside_dependent_launch));
    }
  }
}

} // namespace spscan::detail

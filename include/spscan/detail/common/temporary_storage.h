// A call's temporary storage: the tile states and tile counter of a multi-tile launch, and the
// by-key scan's copies of keys.
//
// Where the caller has an allocator (par(alloc), a policy with its own get_temporary_buffer
// overloads), every byte goes through it, as in Thrust. Where the caller has none (no policy,
// thrust::device, thrust::cuda::par, par_nosync, each with .on(stream), and spscan's plain
// policies), Thrust would cudaMalloc and cudaFree the storage on every call (cudaFree waits for
// the whole device), or for par_nosync take it from the device's default pool, which gives its
// memory back at every synchronization. spscan keeps it instead, per device:
//  - blocks between calls are kept with the stream they were last used on, and only a later call
//    on that same stream takes one again: stream order puts that call's work after the previous
//    call's, so no event or wait is needed, and calls on other streams never share a block. Streams
//    are told apart by the id CUDA gives each for the life of the process (cudaStreamGetId), so
//    a new stream that reuses a destroyed one's handle is another stream, and so is each host
//    thread's per-thread default stream.
//  - new blocks come from a memory pool of spscan's own, stream-ordered on the call's stream
//    (cudaMallocFromPoolAsync), which keeps memory it is given back; a stream's block too small
//    for a call goes back to the pool in that stream's order. At most `max_idle_blocks` are kept
//    per device; beyond that the oldest is freed once the device has finished its work (its
//    stream may be gone): only a program that uses that many streams pays that wait. Tile states
//    are small (16 bytes per tile of 4 to 64 KiB of input), so what is kept is small too.
//  - a kept block remembers what the last call left in it (storage_tags: how far its tile states
//    hold only earlier epochs' words, the last epoch, the tile counter; launch.h), so that the next
//    call needs neither a memset before nor a clear after.
//  - under stream capture nothing is kept: the allocation and its free become nodes of the graph,
//    and the memory is the graph's own.
//  - everything belongs to one context: after cudaDeviceReset the next call starts afresh
//    (device_context.h). At exit, kept blocks and pools are freed.
// Where a device has no memory pools or a stream has no id, storage is taken as Thrust takes it.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/device_context.h>
#include <spscan/detail/par_policy.h>
#include <spscan/detail/thrust_bridge.h>

#include <thrust/memory.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace spscan::detail
{

// Policies whose temporary storage nothing of the caller's sees.
template <class Derived>
constexpr bool takes_pooled_storage = is_thrust_policy_without_allocator<Derived> || is_spscan_policy_without_allocator<Derived>;

// What the engines' epochs need to know of a kept block (classic/launch.h): how many of
// its first bytes hold only zeros and status words of `layout` (tile_state.h's epoch_layout) of
// epochs up to `epoch` (0 bytes: nothing known), and where the 64-bit tile counter stands.
struct storage_tags
{
  std::size_t tagged_bytes   = 0;
  std::uint32_t epoch        = 0;
  std::uint64_t next_tile_id = 0;
  std::uint32_t layout       = 0;
};

// Device memory lent to one call.
struct storage_block
{
  void* data               = nullptr;
  std::size_t bytes        = 0;
  int device               = 0;
  unsigned long long stream = 0; // the stream's id; 0: a graph's allocation, never kept
  storage_tags tags{};          // what the last call left in it (launch.h)
};

// spscan's kept storage and pools, one set per device and context.
class storage_cache
{
public:
  static constexpr std::size_t max_idle_blocks = 64;

  // A block of at least `bytes` for a call on `stream`; nullopt where spscan keeps no storage
  // (no memory pools, no stream id, exit has begun), and the caller takes it as Thrust does.
  // Throws std::bad_alloc (Thrust's) when the device has no memory for it.
  static std::optional<storage_block> take(cudaStream_t stream, std::size_t bytes)
  {
    int device = 0;
    throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
    const unsigned long long context = current_context_id(device); // initializes the runtime first
    cudaStreamCaptureStatus capture  = cudaStreamCaptureStatusNone;
    throw_if_failed(cudaStreamIsCapturing(stream, &capture), "spscan: cudaStreamIsCapturing failed");
    if (capture != cudaStreamCaptureStatusNone)
    { // the graph's own memory (and no pool made now: that is not allowed while capturing)
      storage_block block{nullptr, bytes, device, 0, 0};
      allocate_or_throw(cudaMallocAsync(&block.data, bytes, stream));
      return block;
    }
    unsigned long long stream_id = 0;
    if (cudaStreamGetId(stream, &stream_id) != cudaSuccess)
    {
      cudaGetLastError();
      return std::nullopt;
    }
    return instance().take_block(device, context, stream, stream_id, bytes);
  }

  // Ends a call's use of `block`: kept for the next call on its stream, or freed in stream order.
  static void give_back(cudaStream_t stream, const storage_block& block)
  {
    instance().keep_or_free(stream, block);
  }

  // The current device's pool (tests read what it holds); null where there is none.
  static cudaMemPool_t current_pool()
  {
    cudaMemPool_t pool = nullptr;
    with_current_device([&](per_device& d) { pool = d.pool; });
    return pool;
  }

  // Frees the blocks kept for the current device, after waiting for it.
  static void release_idle_blocks()
  {
    with_current_device([](per_device& d) {
      free_after_device_work(d.idle);
      d.idle.clear();
    });
  }

private:
  static constexpr int max_devices = 64;

  struct per_device
  {
    unsigned long long context = ~0ull; // the context all of this belongs to (device_context.h)
    bool made                  = false; // pool made, or known unsupported, in this context
    cudaMemPool_t pool         = nullptr;
    std::vector<storage_block> idle; // kept between calls, oldest first
  };

  // Frees what is kept at exit; constructed after the CUDA runtime (at the first call), so it
  // runs before the runtime's own teardown.
  struct exit_hook
  {
    ~exit_hook()
    {
      instance().close();
    }
  };

  // Runs `use` on the current device's state, under the lock; not once exit has begun.
  template <class Use>
  static void with_current_device(Use&& use)
  {
    int device = 0;
    throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
    const unsigned long long context = current_context_id(device);
    storage_cache& cache             = instance();
    std::lock_guard<std::mutex> lock(cache.mutex_);
    if (device < max_devices && !cache.closed_)
    {
      use(cache.device_state(device, context));
    }
  }

  // Never destroyed: a call made from another static object's destructor finds it closed and
  // takes storage as Thrust does.
  static storage_cache& instance()
  {
    static storage_cache* const cache = new storage_cache;
    static exit_hook hook;
    return *cache;
  }

  // The device's state in `context`, made afresh on first use and after a reset (whose context
  // took the old pool and blocks with it). A pool that could not be made now is tried again at
  // the next call; a device without memory pools is asked once.
  per_device& device_state(int device, unsigned long long context)
  {
    per_device& d = devices_[device];
    if (d.context != context)
    {
      d      = per_device{};
      d.context = context;
    }
    if (!d.made)
    {
      int supported = 0;
      if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess)
      {
        cudaGetLastError();
        return d;
      }
      d.pool = supported ? make_pool(device) : nullptr;
      d.made = !supported || d.pool != nullptr;
    }
    return d;
  }

  std::optional<storage_block>
  take_block(int device, unsigned long long context, cudaStream_t stream, unsigned long long stream_id, std::size_t bytes)
  {
    cudaMemPool_t pool = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (device >= max_devices || closed_)
      {
        return std::nullopt;
      }
      per_device& d = device_state(device, context);
      if (d.pool == nullptr)
      {
        return std::nullopt;
      }
      pool = d.pool;
      if (stream_id != 0)
      {
        // The smallest block of this stream that fits; a smaller one of this stream goes back
        // to the pool, in this stream's order, so a stream keeps one block per size it needs.
        auto best = d.idle.end();
        for (auto b = d.idle.begin(); b != d.idle.end(); ++b)
        {
          if (b->stream == stream_id && b->bytes >= bytes && (best == d.idle.end() || b->bytes < best->bytes))
          {
            best = b;
          }
        }
        if (best != d.idle.end())
        {
          const storage_block found = *best;
          d.idle.erase(best);
          return found;
        }
        for (auto b = d.idle.begin(); b != d.idle.end();)
        {
          if (b->stream == stream_id)
          {
            cudaFreeAsync(b->data, stream);
            b = d.idle.erase(b);
          }
          else
          {
            ++b;
          }
        }
      }
    }
    storage_block block{nullptr, bytes, device, stream_id, 0};
    allocate_or_throw(cudaMallocFromPoolAsync(&block.data, bytes, pool, stream));
    return block;
  }

  // Out of memory: std::bad_alloc, as Thrust throws; any other error: thrust::system_error.
  static void allocate_or_throw(cudaError_t status)
  {
    if (status != cudaSuccess)
    {
      cudaGetLastError(); // this call's error, reported by the throw
      if (status == cudaErrorMemoryAllocation)
      {
        throw_bad_alloc(status);
      }
      throw_if_failed(status, "spscan: taking temporary storage failed");
    }
  }

  void keep_or_free(cudaStream_t stream, const storage_block& block)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    per_device& d = devices_[block.device];
    if (block.stream == 0 || closed_)
    {
      cudaFreeAsync(block.data, stream); // a graph's own, or exit has begun
    }
    else if (d.made && d.context == current_context_id())
    {
      if (d.idle.size() >= max_idle_blocks)
      { // its stream may be gone: wait for the device instead
        free_after_device_work({d.idle.front()});
        d.idle.erase(d.idle.begin());
      }
      d.idle.push_back(block);
    }
    // else the device was reset during the call, and its memory went with the context
    cudaGetLastError(); // nothing here can be reported: a failed free means the context is gone
  }

  static cudaMemPool_t make_pool(int device)
  {
    cudaMemPoolProps props{};
    props.allocType     = cudaMemAllocationTypePinned;
    props.handleTypes   = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = device;
    cudaMemPool_t pool  = nullptr;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess)
    {
      cudaGetLastError();
      return nullptr;
    }
    // Keep what is given back; never make one stream wait for another to reuse a block (take
    // more memory instead), so that calls on independent streams stay independent.
    std::uint64_t keep_everything = ~std::uint64_t{0};
    int no                        = 0;
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything) != cudaSuccess
        || cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no) != cudaSuccess)
    {
      cudaGetLastError();
      cudaMemPoolDestroy(pool);
      return nullptr;
    }
    return pool;
  }

  // Frees blocks of the current device whose streams may be gone: once the device has finished
  // all work, no stream uses them, and the free can go in any stream's order.
  static void free_after_device_work(const std::vector<storage_block>& blocks)
  {
    if (!blocks.empty() && cudaDeviceSynchronize() == cudaSuccess)
    {
      for (const storage_block& b : blocks)
      {
        cudaFreeAsync(b.data, cudaStreamLegacy);
      }
      cudaStreamSynchronize(cudaStreamLegacy);
    }
    cudaGetLastError();
  }

  // Frees what each live context holds (a reset took the rest with it), each device current in
  // turn; the thread's current device is restored.
  void close()
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_      = true;
    int previous = 0;
    const bool known_previous = cudaGetDevice(&previous) == cudaSuccess;
    for (int device = 0; device < max_devices; ++device)
    {
      per_device& d = devices_[device];
      if (d.made && d.context != 0 && live_primary_context_id(device) == d.context && cudaSetDevice(device) == cudaSuccess)
      {
        free_after_device_work(d.idle);
        if (d.pool != nullptr)
        {
          cudaMemPoolDestroy(d.pool);
        }
      }
      d.idle.clear();
    }
    if (known_previous)
    {
      cudaSetDevice(previous);
    }
    cudaGetLastError();
  }

  std::mutex mutex_;
  bool closed_ = false;
  per_device devices_[max_devices];
};

// `bytes` of device memory for the duration of one call on the policy's stream: spscan's kept
// storage for a policy without an allocator of the caller's, else the policy's allocator.
template <class Derived>
class call_storage
{
public:
  call_storage(cuda_policy<Derived>& policy, std::size_t bytes)
      : stream_(stream_of(policy))
  {
    if constexpr (takes_pooled_storage<Derived>)
    {
      kept_ = storage_cache::take(stream_, bytes);
      if (kept_)
      {
        data_ = kept_->data;
        // Tagged now; unknown once the call has written to it, until it says otherwise.
        tags_       = kept_->tags;
        kept_->tags = storage_tags{};
        return;
      }
    }
    thrust_storage_.emplace(policy, bytes);
    data_ = thrust::raw_pointer_cast(thrust_storage_->data());
  }

  ~call_storage()
  {
    if (kept_)
    {
      storage_cache::give_back(stream_, *kept_);
    }
  }

  call_storage(const call_storage&)            = delete;
  call_storage& operator=(const call_storage&) = delete;

  void* data() const
  {
    return data_;
  }

  // Whether the storage is spscan's, kept for the next call on this stream.
  bool kept_between_calls() const
  {
    return kept_.has_value() && kept_->stream != 0;
  }

  // What the last call on this block left in it (storage_tags), as the call
  // took it; nothing known for storage not kept.
  storage_tags tags() const
  {
    return tags_;
  }

  // Tells the next call what this call leaves in the block.
  void set_tags(const storage_tags& tags)
  {
    if (kept_between_calls())
    {
      kept_->tags = tags;
    }
  }

private:
  cudaStream_t stream_;
  void* data_ = nullptr;
  storage_tags tags_{};
  std::optional<storage_block> kept_;
  std::optional<temporary_bytes<Derived>> thrust_storage_;
};

} // namespace spscan::detail

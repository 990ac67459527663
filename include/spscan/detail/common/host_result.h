// Where a kernel leaves a result for the host (the selection's count): a 64-bit slot of mapped,
// pinned host memory, which the kernel writes over the bus and the host reads once it has
// synchronized with the stream. Leaving the result in device memory instead costs a
// device-to-host copy after the kernel: a second API call and a copy engine's round trip, on
// the path of every call that returns a count (docs/design.md#stream-compaction).
//
// Slots are cut from pinned pages kept per device and context and lent to one call at a time
// (host threads may call at once). A reset takes its context's pages with it, and the next call
// makes new ones; at exit the pages of live contexts are freed, and release_temporary_storage
// frees the current device's where no call holds a slot. Where no page can be had (a device
// that cannot map host memory, exit begun), a call gets no slot and keeps its result on the device.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/device_context.h>
#include <spscan/detail/thrust_bridge.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace spscan::detail
{

class host_result_slot
{
public:
  // A slot for a kernel on the current device; empty where there is none to lend.
  static host_result_slot take()
  {
    int device = 0;
    throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
    const unsigned long long context = current_context_id(device);
    host_result_slot slot;
    slot.host_    = pages::instance().take(device, context);
    slot.device_  = device;
    slot.context_ = context;
    return slot;
  }

  host_result_slot(host_result_slot&& other) noexcept
      : host_(other.host_)
      , device_(other.device_)
      , context_(other.context_)
  {
    other.host_ = nullptr;
  }
  host_result_slot(const host_result_slot&)            = delete;
  host_result_slot& operator=(const host_result_slot&) = delete;
  host_result_slot& operator=(host_result_slot&&)      = delete;

  ~host_result_slot()
  {
    if (host_ != nullptr)
    {
      pages::instance().give_back(host_, device_, context_);
    }
  }

  // Frees the current device's pages where none of their slots is lent (release_temporary_storage).
  static void release_idle_pages()
  {
    int device = 0;
    throw_if_failed(cudaGetDevice(&device), "spscan: cudaGetDevice failed");
    pages::instance().release_idle(device, current_context_id(device));
  }

  explicit operator bool() const
  {
    return host_ != nullptr;
  }

  // The address a kernel writes to: with unified addressing (every device spscan runs on) a
  // mapped page has the same address on the device as on the host.
  std::uint64_t* address() const
  {
    return host_;
  }

  // What the kernel wrote; valid once the host has synchronized with the kernel's stream.
  std::uint64_t read() const
  {
    return *static_cast<volatile std::uint64_t*>(host_);
  }

private:
  host_result_slot() = default;

  class pages
  {
  public:
    static pages& instance()
    {
      static pages* const kept = new pages; // never destroyed: see storage_cache::instance
      static exit_hook hook;
      return *kept;
    }

    std::uint64_t* take(int device, unsigned long long context)
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (device >= max_devices || closed_)
      {
        return nullptr;
      }
      per_device& d = devices_[device];
      if (d.context != context)
      { // first use, or a reset took the old context's pages
        d         = per_device{};
        d.context = context;
      }
      if (d.free.empty() && !add_page(d))
      {
        return nullptr;
      }
      std::uint64_t* slot = d.free.back();
      d.free.pop_back();
      return slot;
    }

    void give_back(std::uint64_t* slot, int device, unsigned long long context)
    {
      std::lock_guard<std::mutex> lock(mutex_);
      per_device& d = devices_[device];
      if (!closed_ && d.context == context)
      {
        d.free.push_back(slot);
      }
      // else its page went with a reset, or is freed at exit
    }

    void release_idle(int device, unsigned long long context)
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (device >= max_devices || closed_)
      {
        return;
      }
      per_device& d = devices_[device];
      if (d.context == context && d.free.size() == d.pages.size() * page_slots)
      {
        for (void* page : d.pages)
        {
          cudaFreeHost(page);
        }
        d.pages.clear();
        d.free.clear();
        cudaGetLastError();
      }
    }

  private:
    static constexpr int max_devices        = 64;
    static constexpr std::size_t page_bytes = 4096;
    static constexpr std::size_t page_slots = page_bytes / sizeof(std::uint64_t);

    struct per_device
    {
      unsigned long long context = ~0ull; // the context the pages belong to (device_context.h)
      std::vector<void*> pages;
      std::vector<std::uint64_t*> free;
    };

    struct exit_hook
    {
      ~exit_hook()
      {
        instance().close();
      }
    };

    // A page whose device address is its host address, or false (the caller goes without).
    static bool add_page(per_device& d)
    {
      void* page = nullptr;
      if (cudaHostAlloc(&page, page_bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess)
      {
        cudaGetLastError();
        return false;
      }
      void* on_device = nullptr;
      if (cudaHostGetDevicePointer(&on_device, page, 0) != cudaSuccess || on_device != page)
      {
        cudaGetLastError();
        cudaFreeHost(page);
        return false;
      }
      d.pages.push_back(page);
      auto* slots = static_cast<std::uint64_t*>(page);
      for (std::size_t i = page_slots; i-- > 0;)
      {
        d.free.push_back(slots + i);
      }
      return true;
    }

    // Frees the pages of each live context (a reset took the rest with it; an unknown context's
    // are left to the process's end).
    void close()
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      for (int device = 0; device < max_devices; ++device)
      {
        per_device& d = devices_[device];
        if (!d.pages.empty() && d.context != 0 && live_primary_context_id(device) == d.context)
        {
          for (void* page : d.pages)
          {
            cudaFreeHost(page);
          }
        }
        d = per_device{};
      }
      cudaGetLastError();
    }

    std::mutex mutex_;
    bool closed_ = false;
    per_device devices_[max_devices];
  };

  std::uint64_t* host_        = nullptr;
  int device_                 = 0;
  unsigned long long context_ = 0;
};

} // namespace spscan::detail

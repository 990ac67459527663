// Which incarnation of a device's CUDA context a call runs in. What spscan keeps per device
// across calls (a kernel's shared-memory attributes, the temporary-storage pool) belongs to one
// context: cudaDeviceReset destroys it, and the next call runs in a new one. The driver gives
// every context an id unique for the life of the process (cuCtxGetId, CUDA 12.0), so state
// stamped with the id it was made under is known to be stale when the id changes.
//
// The driver functions are reached through the runtime's entry-point query, so programs need not
// link libcuda. Where the query fails, ids read as 0 ("unknown") and per-device state is kept
// for the process, as if no reset could happen.
#pragma once

#include <spscan/detail/config.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace spscan::detail
{

// The driver functions spscan uses, or null where the driver lacks them.
struct driver_functions
{
  CUresult (*ctx_get_current)(CUcontext*)                               = nullptr;
  CUresult (*ctx_get_id)(CUcontext, unsigned long long*)                = nullptr;
  CUresult (*device_get)(CUdevice*, int)                                = nullptr;
  CUresult (*primary_ctx_get_state)(CUdevice, unsigned int*, int*)      = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice)                  = nullptr;
  CUresult (*primary_ctx_release)(CUdevice)                             = nullptr;
};

template <class Function>
void load_driver_function(const char* name, Function& function)
{
  // The ABI of each function as of CUDA 12.0 (the first with cuCtxGetId).
  constexpr unsigned int abi_version = 12000;
  void* address                      = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t status = cudaGetDriverEntryPointByVersion(name, &address, abi_version, cudaEnableDefault, &found);
#else
  (void) abi_version;
  const cudaError_t status = cudaGetDriverEntryPoint(name, &address, cudaEnableDefault, &found);
#endif
  if (status == cudaSuccess && found == cudaDriverEntryPointSuccess)
  {
    function = reinterpret_cast<Function>(address);
  }
  else
  {
    cudaGetLastError(); // a missing function is not an error of the caller's
  }
}

inline const driver_functions& driver()
{
  static const driver_functions functions = [] {
    driver_functions f;
    load_driver_function("cuCtxGetCurrent", f.ctx_get_current);
    load_driver_function("cuCtxGetId", f.ctx_get_id);
    load_driver_function("cuDeviceGet", f.device_get);
    load_driver_function("cuDevicePrimaryCtxGetState", f.primary_ctx_get_state);
    load_driver_function("cuDevicePrimaryCtxRetain", f.primary_ctx_retain);
    load_driver_function("cuDevicePrimaryCtxRelease", f.primary_ctx_release);
    return f;
  }();
  return functions;
}

// Ids as spscan stores them: the driver's id plus one, so that 0 means "unknown".
inline unsigned long long stamped_id(CUcontext context)
{
  unsigned long long id = 0;
  if (context == nullptr || driver().ctx_get_id == nullptr || driver().ctx_get_id(context, &id) != CUDA_SUCCESS)
  {
    return 0;
  }
  return id + 1;
}

// Whether `device`'s primary context exists now (true where the driver cannot tell).
inline bool primary_context_active(int device)
{
  const driver_functions& d = driver();
  CUdevice handle    = 0;
  unsigned int flags = 0;
  int active         = 1;
  if (d.device_get == nullptr || d.primary_ctx_get_state == nullptr || d.device_get(&handle, device) != CUDA_SUCCESS
      || d.primary_ctx_get_state(handle, &flags, &active) != CUDA_SUCCESS)
  {
    return true;
  }
  return active != 0;
}

// The id of the context the runtime uses on this thread now (the primary context of `device`,
// the current device), making it current first where no call has yet: the thread's first call,
// or the first after a reset, which leaves the destroyed context current on the thread (asking
// that one for its id is an error).
inline unsigned long long current_context_id(int device)
{
  const driver_functions& d = driver();
  if (d.ctx_get_current == nullptr)
  {
    return 0;
  }
  if (!primary_context_active(device))
  {
    cudaFree(nullptr); // the runtime's way to make the device's primary context (anew) current
  }
  CUcontext context = nullptr;
  if (d.ctx_get_current(&context) == CUDA_SUCCESS && context == nullptr)
  {
    cudaFree(nullptr);
    d.ctx_get_current(&context);
  }
  return stamped_id(context);
}

inline unsigned long long current_context_id()
{
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? current_context_id(device) : 0;
}

// The id of `device`'s primary context if it is alive, without creating it or changing the
// thread's current context; 0 if it is not alive or unknown.
inline unsigned long long live_primary_context_id(int device)
{
  const driver_functions& d = driver();
  if (d.device_get == nullptr || d.primary_ctx_get_state == nullptr || d.primary_ctx_retain == nullptr
      || d.primary_ctx_release == nullptr)
  {
    return 0;
  }
  CUdevice handle   = 0;
  unsigned int flags = 0;
  int active         = 0;
  if (d.device_get(&handle, device) != CUDA_SUCCESS || d.primary_ctx_get_state(handle, &flags, &active) != CUDA_SUCCESS
      || !active)
  {
    return 0;
  }
  CUcontext context = nullptr;
  if (d.primary_ctx_retain(&context, handle) != CUDA_SUCCESS)
  {
    return 0;
  }
  const unsigned long long id = stamped_id(context);
  d.primary_ctx_release(handle);
  return id;
}

} // namespace spscan::detail

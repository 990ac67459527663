// Compiled by the syntax_only_build_checks_sm90_static_assertions test with -fdevice-syntax-only:
// an assertion that fails only where a kernel is instantiated for sm_90's device code (as the ring
// engine's are) must still stop the build, or a front-end-only type matrix could pass a call that
// does not compile.
#include <nv/target>

template <class T>
__device__ void ring_only_step(T* data)
{
  NV_IF_TARGET(NV_PROVIDES_SM_90, (static_assert(sizeof(T) != 1, "sm_90 device code rejects 1-byte items");))
  *data = T{};
}

template <class T>
__global__ void kernel(T* data)
{
  ring_only_step(data);
}

int main()
{
  kernel<<<1, 1>>>(static_cast<unsigned char*>(nullptr));
  return 0;
}

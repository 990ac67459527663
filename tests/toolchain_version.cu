// Prints the toolchain this build uses, as the compatibility matrix (scripts/compat.sh) reports
// it: "<nvcc version> <CCCL version>", read from the compiler's and Thrust's own macros.
#include <thrust/version.h>

#include <cstdio>

int main()
{
  std::printf("%d.%d.%d %d.%d.%d\n",
              __CUDACC_VER_MAJOR__,
              __CUDACC_VER_MINOR__,
              __CUDACC_VER_BUILD__,
              THRUST_MAJOR_VERSION,
              THRUST_MINOR_VERSION,
              THRUST_SUBMINOR_VERSION);
  return 0;
}

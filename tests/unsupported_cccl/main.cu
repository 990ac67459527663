// Compiled by the unsupported_cccl test against a stand-in for an older CCCL's version header: the
// build must stop with spscan's message naming the supported range (detail/config.h).
#include <spscan/scan.h>

int main()
{
  return 0;
}

// Uses spscan as a downstream project would; runs anywhere (the host system path needs no GPU).
#include <spscan/spscan.h>

#include <thrust/execution_policy.h>

#include <cstdio>
#include <vector>

int main()
{
  const std::vector<int> in{3, 1, 4, 1, 5, 9, 2, 6};
  std::vector<int> out(in.size());
  spscan::inclusive_scan(thrust::host, in.begin(), in.end(), out.begin());
  const std::vector<int> expected{3, 4, 8, 9, 14, 23, 25, 31};
  if (out != expected)
  {
    std::puts("consumer: wrong result");
    return 1;
  }
  std::puts("consumer: ok");
  return 0;
}

// The tile shape a scan launches with, chosen at run time from the device's limits
// (kernel_shape.h): a GPU that grants a block less shared memory than the primary shape needs
// (sm_75: 64 KiB, against about 66 KiB for 8-byte types) gets the reduced shape instead of an
// error; the reduced shape fits what every GPU grants. On the CPU the choice is made against
// faked limits; on the GPU against the real ones, and the reduced shape's results are checked.
#include <spscan/detail/classic/kernel_shape.h>
#include <spscan/detail/programs/scan_by_key_plan.h>
#include <spscan/detail/programs/scan_plan.h>
#include <spscan/scan.h>

#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <support/compare.h>
#include <support/data.h>
#include <support/gpu.h>

namespace
{

using spscan::detail::choose_kernel_shape;
using spscan::detail::device_limits;
using spscan::detail::guaranteed_shared_bytes;
using spscan::detail::kernel_shape;
using spscan::detail::scan_kind;
using spscan::detail::scan_shapes;

template <class T, class In = const T*, class Out = T*>
using inclusive_shapes = scan_shapes<scan_kind::inclusive, T, In, Out, thrust::plus<T>>;

using int64_shapes          = inclusive_shapes<std::int64_t>;
using double_shapes         = inclusive_shapes<double>;
using int64_vector_shapes   = scan_shapes<scan_kind::exclusive,
                                          std::int64_t,
                                          thrust::device_vector<std::int64_t>::iterator,
                                          thrust::device_vector<std::int64_t>::iterator,
                                          thrust::plus<std::int64_t>>;
using int64_counting_shapes = inclusive_shapes<std::int64_t, thrust::counting_iterator<std::int64_t>>;
using int32_shapes          = inclusive_shapes<std::int32_t>;
using int8_shapes           = inclusive_shapes<std::int8_t>;

constexpr device_limits sm_75{64 * 1024};
constexpr device_limits sm_70{96 * 1024};
constexpr device_limits sm_90{227 * 1024};
constexpr device_limits every_gpu{guaranteed_shared_bytes};

// 8-byte types need more than every GPU grants, and have a reduced shape that fits.
static_assert(int64_shapes::has_reduced && double_shapes::has_reduced);
static_assert(int64_shapes::primary_bytes > sm_75.shared_bytes_per_block);
static_assert(int64_shapes::reduced_bytes <= guaranteed_shared_bytes);
static_assert(!int32_shapes::has_reduced && !int8_shapes::has_reduced);
static_assert(int32_shapes::primary_bytes <= guaranteed_shared_bytes);

TEST(KernelShape, EightByteScansTakeTheReducedShapeWhereTheDeviceGrantsTooLittleSharedMemory)
{
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(sm_75), kernel_shape::reduced);
  EXPECT_EQ(choose_kernel_shape<double_shapes>(sm_75), kernel_shape::reduced);
  EXPECT_EQ(choose_kernel_shape<int64_vector_shapes>(sm_75), kernel_shape::reduced);
  EXPECT_EQ(choose_kernel_shape<int64_counting_shapes>(sm_75), kernel_shape::reduced);
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(every_gpu), kernel_shape::reduced);
}

TEST(KernelShape, EightByteScansKeepThePrimaryShapeWhereItFits)
{
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(sm_70), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(sm_90), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<double_shapes>(sm_90), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<int64_vector_shapes>(sm_90), kernel_shape::primary);
  const device_limits just_enough{int64_shapes::primary_bytes};
  const device_limits one_byte_short{int64_shapes::primary_bytes - 1};
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(just_enough), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(one_byte_short), kernel_shape::reduced);
}

// The by-key scans: 8-byte values take 64 KiB tiles where they fit, the reduced shape elsewhere.
template <class V>
using by_key_shapes = spscan::detail::
  scan_by_key_shapes<false, V, const int*, const V*, V*, thrust::equal_to<int>, thrust::plus<V>>;
static_assert(by_key_shapes<double>::has_reduced && by_key_shapes<double>::reduced_bytes <= guaranteed_shared_bytes);
static_assert(!by_key_shapes<int>::has_reduced);

TEST(KernelShape, ByKeyScansOfEightByteValuesTakeTheReducedShapeWhereTheirTileDoesNotFit)
{
  EXPECT_EQ(choose_kernel_shape<by_key_shapes<double>>(sm_75), kernel_shape::reduced);
  EXPECT_EQ(choose_kernel_shape<by_key_shapes<double>>(sm_90), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<by_key_shapes<int>>(every_gpu), kernel_shape::primary);
}

TEST(KernelShape, NarrowerTypesAlwaysTakeThePrimaryShape)
{
  EXPECT_EQ(choose_kernel_shape<int32_shapes>(every_gpu), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<int8_shapes>(every_gpu), kernel_shape::primary);
  EXPECT_EQ(choose_kernel_shape<int32_shapes>(sm_75), kernel_shape::primary);
}

TEST(KernelShapeOnGpu, TheRealLimitsAreReadAndThisGpuRunsThePrimaryShape)
{
  SPSCAN_REQUIRE_GPU();
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  int optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
  const device_limits limits = spscan::detail::current_device_limits();
  EXPECT_EQ(limits.shared_bytes_per_block, static_cast<std::size_t>(optin));
  const kernel_shape expected =
    static_cast<std::size_t>(optin) >= int64_shapes::primary_bytes ? kernel_shape::primary : kernel_shape::reduced;
  EXPECT_EQ(choose_kernel_shape<int64_shapes>(limits), expected);
}

// The reduced shape, launched directly as a device that grants less would launch it.
template <scan_kind Kind, class T>
void expect_reduced_shape_exact(std::size_t n, T init)
{
  const std::uint64_t seed = spscan_test::fresh_seed();
  SCOPED_TRACE(spscan_test::case_name(seed, n));
  const std::vector<T> host_input = spscan_test::random_values<T>(n, seed);
  thrust::device_vector<T> in     = spscan_test::to_device(host_input);
  thrust::device_vector<T> out(n);
  spscan_test::poison(out);
  using shapes = scan_shapes<Kind, T, const T*, T*, thrust::plus<T>>;
  static_assert(shapes::has_reduced);
  const T* first = thrust::raw_pointer_cast(in.data());
  T* result      = thrust::raw_pointer_cast(out.data());
  auto policy    = thrust::cuda::par;
  T* const returned = spscan::detail::device_scan<Kind, T, typename shapes::reduced::tuning>(
    policy, first, static_cast<std::ptrdiff_t>(n), result, thrust::plus<T>{}, init);
  EXPECT_EQ(returned, result + n);
  const std::vector<T> expected = Kind == scan_kind::exclusive
                                  ? spscan_test::reference_exclusive<T>(host_input, init, thrust::plus<T>{})
                                  : spscan_test::reference_inclusive<T>(host_input, thrust::plus<T>{});
  spscan_test::expect_bitwise_equal(expected, spscan_test::to_host(out), "reduced shape against the sequential reference");
}

TEST(KernelShapeOnGpu, TheReducedShapeScansExactly)
{
  SPSCAN_REQUIRE_GPU();
  using reduced = int64_shapes::reduced::tuning;
  const std::size_t tile = reduced::tile_items;
  for (const std::size_t n : {std::size_t{1}, tile - 1, tile, tile + 1, 37 * tile + 5, std::size_t{1} << 22})
  {
    if (n > spscan_test::max_test_elements())
    {
      continue;
    }
    expect_reduced_shape_exact<scan_kind::inclusive, std::int64_t>(n, 0);
    expect_reduced_shape_exact<scan_kind::exclusive, std::int64_t>(n, -123456789012LL);
    expect_reduced_shape_exact<scan_kind::inclusive, std::uint64_t>(n, 0);
  }
}

} // namespace

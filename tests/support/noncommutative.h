// Non-commutative scan operators for GPU tests, composed (earlier, later): a wrong operand order
// or a lost element changes the result. Their sizes pick the tile-state layout: 4 bytes (packed
// in a 64-bit word), 8 bytes (packed in a 128-bit word) and 16 bytes (split layout).
#pragma once

#include <cstdint>

namespace spscan_test
{

// x -> a*x + b modulo 2^16.
struct affine16
{
  std::uint16_t a, b;
};
struct compose_affine16
{
  __host__ __device__ affine16 operator()(const affine16& earlier, const affine16& later) const
  {
    // Widened first: uint16 * uint16 promotes to int and could overflow.
    return {static_cast<std::uint16_t>(std::uint32_t{later.a} * earlier.a),
            static_cast<std::uint16_t>(std::uint32_t{later.a} * earlier.b + later.b)};
  }
};

// x -> a*x + b modulo 2^32.
struct affine32
{
  std::uint32_t a, b;
};
struct compose_affine32
{
  __host__ __device__ affine32 operator()(const affine32& earlier, const affine32& later) const
  {
    return {later.a * earlier.a, later.a * earlier.b + later.b};
  }
};

// 2x2 matrices over Z/2^32, row-major, multiplied earlier * later.
struct matrix2
{
  std::uint32_t m00, m01, m10, m11;
};
struct multiply_matrix2
{
  __host__ __device__ matrix2 operator()(const matrix2& x, const matrix2& y) const
  {
    return {x.m00 * y.m00 + x.m01 * y.m10,
            x.m00 * y.m01 + x.m01 * y.m11,
            x.m10 * y.m00 + x.m11 * y.m10,
            x.m10 * y.m01 + x.m11 * y.m11};
  }
};

static_assert(sizeof(affine16) == 4 && sizeof(affine32) == 8 && sizeof(matrix2) == 16);

} // namespace spscan_test

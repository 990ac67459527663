// The ring engine's view of a contiguous array for the copy engine: its bytes as rows of 128,
// a 2D tensor whose boxes land in shared memory with the 128-byte swizzle. That swizzle puts the
// 16-byte word i of a 1024-byte aligned block at word i ^ ((i / 8) % 8), which is the layout of
// the engine's vector slices (common/tile_io.h): a tile brought in by one bulk copy is read by the
// tile programs' code unchanged, and stored back the same way.
//
// Only whole rows are in the tensor (n * sizeof(T) / 128 of them); the ring engine loads and
// stores only whole tiles through it, and a last, partial tile goes the classic way.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/device_context.h>

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace spscan::detail::ring
{

constexpr int row_bytes = 128;
// The 128-byte swizzle permutes the words of each block of this many bytes, counted from a
// 1024-byte aligned address: a vector slice read from a stage must start on such a block.
constexpr std::size_t swizzle_block_bytes = 1024;
constexpr int max_box_rows = 256; // the copy engine's limit per box dimension

// Rows per bulk copy for a tile of `tile_bytes` (a whole number of rows): the whole tile, or
// boxes of 256 rows.
SPSCAN_HOST_DEVICE constexpr int box_rows_for(std::size_t tile_bytes)
{
  return tile_bytes / row_bytes < max_box_rows ? int(tile_bytes / row_bytes) : max_box_rows;
}

using encode_tiled_function = CUresult (*)(CUtensorMap*,
                                           CUtensorMapDataType,
                                           cuuint32_t,
                                           void*,
                                           const cuuint64_t*,
                                           const cuuint64_t*,
                                           const cuuint32_t*,
                                           const cuuint32_t*,
                                           CUtensorMapInterleave,
                                           CUtensorMapSwizzle,
                                           CUtensorMapL2promotion,
                                           CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled (CUDA 12.0), or null.
inline encode_tiled_function tensor_map_encoder()
{
  static const encode_tiled_function encode = [] {
    encode_tiled_function f = nullptr;
    load_driver_function("cuTensorMapEncodeTiled", f);
    return f;
  }();
  return encode;
}

// The rows of `bytes` bytes at `data` (16-byte aligned) in boxes of `box_rows`; false where the
// driver cannot describe them (then the caller takes the classic engine).
inline bool encode_rows(CUtensorMap& map, const void* data, std::size_t bytes, int box_rows)
{
  const encode_tiled_function encode = tensor_map_encoder();
  const std::size_t rows             = bytes / row_bytes;
  if (encode == nullptr || rows == 0 || rows >= (std::size_t{1} << 31))
  {
    return false;
  }
  const cuuint64_t dims[2]     = {row_bytes, rows};
  const cuuint64_t strides[1]  = {row_bytes};
  const cuuint32_t box[2]      = {row_bytes, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element[2]  = {1, 1};
  return encode(&map,
                CU_TENSOR_MAP_DATA_TYPE_UINT8,
                2,
                const_cast<void*>(data),
                dims,
                strides,
                box,
                element,
                CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
      == CUDA_SUCCESS;
}

// The tensors one ring launch reads and writes, passed by value as a __grid_constant__ kernel
// parameter (the copy engine reads a tensor map from the parameter space).
struct tile_tensors
{
  CUtensorMap in;
  CUtensorMap out;
  CUtensorMap keys; // a second input read beside `in` (a by-key scan's keys), where a program has one
};

} // namespace spscan::detail::ring

// A whole tile's image moved between global memory and a ring stage by the copy engine, in boxes
// of rows (tensor_map.h): what a program's ring_load and ring_store issue.
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/ring/async_copy.h>
#include <spscan/detail/ring/tensor_map.h>

#include <cstddef>

namespace spscan::detail::ring
{

// Loads / stores the tile image of `tile` (rows of 128 bytes, tensor_map.h) in boxes.
template <std::size_t TileBytes>
__device__ void load_tile_image(const CUtensorMap& map, void* stage, std::size_t tile, barrier& done)
{
  constexpr int rows     = int(TileBytes / row_bytes);
  constexpr int box_rows = box_rows_for(TileBytes);
#pragma unroll
  for (int r = 0; r < rows; r += box_rows)
  {
    bulk_load_box(static_cast<unsigned char*>(stage) + r * row_bytes, map, 0, static_cast<int>(tile * rows + r), done);
  }
}

// A by-key tile: its values' image, and its keys' (ValueBytes and KeyBytes a tile) behind it.
template <std::size_t ValueBytes, std::size_t KeyBytes, class Tensors>
__device__ void load_values_and_keys(const Tensors& tensors, void* stage, std::size_t tile, barrier& done)
{
  load_tile_image<ValueBytes>(tensors.in, stage, tile, done);
  load_tile_image<KeyBytes>(tensors.keys, static_cast<unsigned char*>(stage) + ValueBytes, tile, done);
}

template <std::size_t TileBytes>
__device__ void store_tile_image(const CUtensorMap& map, const void* stage, std::size_t tile)
{
  constexpr int rows     = int(TileBytes / row_bytes);
  constexpr int box_rows = box_rows_for(TileBytes);
#pragma unroll
  for (int r = 0; r < rows; r += box_rows)
  {
    bulk_store_box(map, 0, static_cast<int>(tile * rows + r), static_cast<const unsigned char*>(stage) + r * row_bytes);
  }
}


} // namespace spscan::detail::ring

// What a tile program provides to run on the ring engine (ring_driver.h), and the defaults of the
// members it may leave out (common/optional_members.h; ring_launch.h has the launch's own).
//
// A tile program that runs on the ring provides, beside the classic contract (classic/driver.h):
//   ring_tile_bytes                   the bytes a whole tile takes in its stage (the input's
//                                     image, and keys or widened elements beside it)
//   ring_input_tile_bytes, ring_output_tile_bytes   (optional) where the stage holds more than the
//                                     tile's image: the input's and the output's images' bytes
//   ring_key_tile_bytes, ring_keys(params)   (optional) the part of them that is keys (or their
//                                     segment heads), brought beside the elements from a second
//                                     array (ring_launch.h)
//   ring_prepares, ring_prepare(policy, params, launch)   (optional) what a launch needs done
//                                     first (ring_launch.h)
//   ring_copies_input                 whether the producer brings a tile into its stage by bulk
//                                     copy (ring_load); else ring_reduce stages it
//   ring_generates_input              (optional) whether ring_reduce folds the tile without a
//                                     stage (it gets none) and ring_scan computes it again into the
//                                     result buffer it is given
//   ring_stores_by_copy               whether the tile's results are its stage's image (ring_store)
//   ring_reads_gap_once_reduced       (optional) whether the prefix warp reads a tile's gap only once
//                                     the reduce squad is done with the tile (prefix_warp)
//   ring_bulk_stores                  (optional) whether the copy engine stores them by default
//                                     rather than the scan squad's threads (ring_launch.h)
//   ring_storage                      what the reduce squad leaves the scan squad, per stage
//   ring_load(tensors, stage, tile, barrier&) / ring_store(tensors, stage, tile)   (one thread)
//   ring_write(params&, stage, rank, tile)   a scan squad thread's part of storing the tile itself
//   ring_reduce(params&, stage, ring_storage&, context) -> the aggregate (in thread 0)
//   ring_scan(params&, stage, const ring_storage&, rank, context, prefix)
#pragma once

#include <spscan/detail/config.h>
#include <spscan/detail/common/optional_members.h>

#include <cuda/std/type_traits>

#include <cstddef>

namespace spscan::detail::ring
{

// How many prefix warps take turns on a CTA's tiles (a program's `ring_prefix_warps`; 1 where it
// names none). With one, each tile's gap is read only once the previous tile's prefix is found:
// a round trip of state reads per tile under full load, which held the selection to ~1.9 us a
// tile. With two, a warp reads its tile's gap while the other finds the previous tile's prefix
// (running_prefix.h, fold_gap_onto; docs/design.md#the-prefix-warp).
template <class Program>
using ring_prefix_warps_member = ::cuda::std::integral_constant<int, Program::ring_prefix_warps>;
template <class Program>
using ring_prefix_warps_of = member_value_or<Program, ring_prefix_warps_member, 1>;

// Whether the prefix warp reads a tile's gap only once the CTA's own tile is reduced (a program's
// `ring_reads_gap_once_reduced`; else false, as soon as it has the tile's id).
template <class Program>
using ring_reads_gap_once_reduced_member = ::cuda::std::bool_constant<Program::ring_reads_gap_once_reduced>;
template <class Program>
using ring_reads_gap_once_reduced_of = member_value_or<Program, ring_reads_gap_once_reduced_member, false>;

// The bytes of a whole tile's keys, where a program brings keys into its stage beside its input
// (a by-key scan: `ring_key_tile_bytes` of its `ring_tile_bytes`, read from `ring_keys(params)`);
// else 0.
template <class Program>
using ring_key_tile_bytes_member = ::cuda::std::integral_constant<std::size_t, Program::ring_key_tile_bytes>;
template <class Program>
using ring_key_tile_bytes_of = member_value_or<Program, ring_key_tile_bytes_member, std::size_t{0}>;

// The bytes of a whole tile's input image, brought from the input by bulk copy, and of its
// output image: a program's `ring_input_tile_bytes` and `ring_output_tile_bytes`, where its stage
// holds more than one image of the tile (an input converted to wider accumulators beside them,
// programs/scan_input.h); else its ring_tile_bytes less the keys' (the stage is the tile's image,
// read and written in place).
template <class Program>
constexpr std::size_t ring_image_tile_bytes = Program::ring_tile_bytes - ring_key_tile_bytes_of<Program>::value;
template <class Program>
using ring_input_tile_bytes_member = ::cuda::std::integral_constant<std::size_t, Program::ring_input_tile_bytes>;
template <class Program>
using ring_input_tile_bytes_of = member_value_or<Program, ring_input_tile_bytes_member, ring_image_tile_bytes<Program>>;
template <class Program>
using ring_output_tile_bytes_member = ::cuda::std::integral_constant<std::size_t, Program::ring_output_tile_bytes>;
template <class Program>
using ring_output_tile_bytes_of = member_value_or<Program, ring_output_tile_bytes_member, ring_image_tile_bytes<Program>>;

// Whether `Program`'s reduce squad folds its tiles without staging them (a program's
// `ring_generates_input`; else false).
template <class Program>
using ring_generates_input_member = ::cuda::std::bool_constant<Program::ring_generates_input>;
template <class Program>
using ring_generates_input_of = member_value_or<Program, ring_generates_input_member, false>;

// What one tile's bulk copies bring into its stage: the input's image and the keys.
template <class Program>
constexpr std::size_t ring_loaded_bytes = ring_input_tile_bytes_of<Program>::value + ring_key_tile_bytes_of<Program>::value;

} // namespace spscan::detail::ring

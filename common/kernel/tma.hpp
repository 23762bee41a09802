// common/kernel/tma.hpp: TMA tensor maps for row-major fp16 matrices, built on the host.
//
// cuTensorMapEncodeTiled takes dimensions, strides and a box, innermost dimension first, and rejects bad
// geometry with a bare CUDA_ERROR_INVALID_VALUE. make_tma_tile_2d checks every rule first and names the one a
// geometry breaks (CUDA Driver API reference, cuTensorMapEncodeTiled: requirements on globalAddress,
// globalDim, globalStrides, boxDim, elementStrides and the swizzle span); the CPU tests call it directly.
// make_tensor_map_2d then encodes the map. The binaries must start on machines without a GPU driver (they
// then exit 77), so libcuda is never linked: cuTensorMapEncodeTiled is looked up at run time with
// cudaGetDriverEntryPointByVersion.
#pragma once

#include <cuda.h>  // CUtensorMap and the driver enums (header only: no libcuda link)
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>

namespace hg {

/// Thrown for a geometry TMA cannot describe; what() names the rule and the offending value.
struct TmaGeometryError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Parameters of a 2-D tiled tensor map, in cuTensorMapEncodeTiled's order (innermost first).
struct TmaTile2D {
  uint64_t global_dim[2] = {0, 0};     ///< {columns, rows} in elements
  uint64_t global_stride_bytes = 0;    ///< bytes from one row to the next (the one stride of rank 2)
  uint32_t box_dim[2] = {0, 0};        ///< {box columns, box rows}: the tile one copy moves
  uint32_t element_stride[2] = {1, 1}; ///< every element (no strided gather)
  uint32_t swizzle_bytes = 128;        ///< 128: CU_TENSOR_MAP_SWIZZLE_128B, the layout of common/kernel/descriptors.hpp
  uint32_t box_bytes() const { return box_dim[0] * box_dim[1] * 2u; }
};

/// Geometry of a `rows` x `cols` row-major fp16 matrix at `address`, moved in boxes of box_rows x box_cols
/// with the 128B swizzle. Throws TmaGeometryError naming the first broken rule.
TmaTile2D make_tma_tile_2d(uint64_t address, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols);

/// Tensor map for a `rows` x `cols` row-major fp16 matrix moved in box_rows x box_cols boxes, 128B swizzle.
/// Throws TmaGeometryError for bad geometry and CudaError if the driver refuses it.
CUtensorMap make_tensor_map_2d(const __half* base, uint64_t rows, uint64_t cols, uint32_t box_rows,
                               uint32_t box_cols);

}  // namespace hg

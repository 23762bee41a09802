// common/tma.cuh: builds a CUtensorMap on the host without linking the driver library.
//
// The binaries must start on machines without a GPU driver (they then exit 77), so libcuda is never linked:
// cuTensorMapEncodeTiled is looked up at run time with cudaGetDriverEntryPointByVersion.
#pragma once

#include <cuda.h>  // CUtensorMap and the driver enums (header only: no libcuda link)
#include <cuda_fp16.h>

#include "common/tma.hpp"

namespace hg {

/// Tensor map for a `rows` x `cols` row-major fp16 matrix moved in box_rows x box_cols boxes, 128B swizzle.
/// Throws TmaGeometryError for bad geometry and CudaError if the driver refuses it.
CUtensorMap make_tensor_map_2d(const __half* base, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols);

}  // namespace hg

// common/tma.cu: CUtensorMap encoding through the runtime's driver entry point (see tma.cuh).
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <string>

#include "common/check.cuh"
#include "common/tma.cuh"

namespace hg {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found{};
    HG_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || ptr == nullptr)
      throw CudaError("the driver has no cuTensorMapEncodeTiled (needs a CUDA 12 driver): update the NVIDIA driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  }();
  return fn;
}

}  // namespace

CUtensorMap make_tensor_map_2d(const __half* base, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols) {
  const TmaTile2D t = make_tma_tile_2d(reinterpret_cast<uint64_t>(base), rows, cols, box_rows, box_cols);
  CUtensorMap map{};
  const cuuint64_t dims[2] = {t.global_dim[0], t.global_dim[1]};
  const cuuint64_t strides[1] = {t.global_stride_bytes};
  const cuuint32_t box[2] = {t.box_dim[0], t.box_dim[1]};
  const cuuint32_t elem_strides[2] = {t.element_stride[0], t.element_stride[1]};
  const CUresult res = encode_fn()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half*>(base), dims, strides,
                                   box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS)
    throw CudaError("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(res)) + " for a " +
                    std::to_string(rows) + " x " + std::to_string(cols) + " matrix, box " + std::to_string(box_rows) +
                    " x " + std::to_string(box_cols) + " - check the geometry rules in common/tma.hpp");
  return map;
}

}  // namespace hg

// common/kernel/tma.cpp: the TMA geometry rules and the tensor-map encoding (see tma.hpp).
#include "common/kernel/tma.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <string>

#include "common/kernel/check.cuh"

namespace hg {
namespace {

[[noreturn]] void broken(const std::string& rule, uint64_t value) {
  throw TmaGeometryError("TMA tensor map: " + rule + ", got " + std::to_string(value));
}

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

TmaTile2D make_tma_tile_2d(uint64_t address, uint64_t rows, uint64_t cols, uint32_t box_rows, uint32_t box_cols) {
  constexpr uint64_t kElem = 2;  // fp16
  TmaTile2D t;
  t.global_dim[0] = cols;
  t.global_dim[1] = rows;
  t.global_stride_bytes = cols * kElem;
  t.box_dim[0] = box_cols;
  t.box_dim[1] = box_rows;

  if (address % 16 != 0) broken("the global address must be 16-byte aligned", address);
  for (uint64_t d : t.global_dim)
    if (d == 0 || d > (uint64_t(1) << 32)) broken("every dimension must be between 1 and 2^32 elements", d);
  if (t.global_stride_bytes % 16 != 0)
    broken("the row stride must be a multiple of 16 bytes (columns a multiple of 8 fp16)", t.global_stride_bytes);
  if (t.global_stride_bytes >= (uint64_t(1) << 40)) broken("the row stride must be below 2^40 bytes", t.global_stride_bytes);
  for (uint32_t b : t.box_dim)
    if (b == 0 || b > 256) broken("every box dimension must be between 1 and 256 elements", b);
  if (uint64_t(box_cols) * kElem % 16 != 0)
    broken("the box's inner extent must be a multiple of 16 bytes", uint64_t(box_cols) * kElem);
  if (uint64_t(box_cols) * kElem > t.swizzle_bytes)
    broken("with the 128B swizzle the box's inner extent must be at most 128 bytes", uint64_t(box_cols) * kElem);
  // A box may reach past the matrix (even be larger than it): TMA fills what lies outside with zeros on a load and
  // leaves it unwritten on a store, which is how a kernel covers a ragged edge.
  return t;
}

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
                    " x " + std::to_string(box_cols) + " - check the geometry rules in common/kernel/tma.hpp");
  return map;
}

}  // namespace hg

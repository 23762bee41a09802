// common/tma.cpp: checks of the TMA geometry rules (see tma.hpp).
#include "common/tma.hpp"

#include <string>

namespace hg {
namespace {

[[noreturn]] void broken(const std::string& rule, uint64_t value) {
  throw TmaGeometryError("TMA tensor map: " + rule + ", got " + std::to_string(value));
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
  if (box_cols > cols) broken("the box may not be wider than the matrix (columns)", box_cols);
  if (box_rows > rows) broken("the box may not be taller than the matrix (rows)", box_rows);
  return t;
}

}  // namespace hg

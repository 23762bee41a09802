// common/model/ownership.hpp: who holds which accumulator element after the epilogue's read, on each
// architecture: the maps the CUTLASS oracle checks (tests/test_cutlass_oracle.cu) and the docs draw
// (docs/figures/accumulators.cpp). The kernels' epilogues write the same arithmetic out where they use it
// (thread t's row and columns), so these are a description of them, held to CUTLASS, not code the kernels call.
#pragma once

#include <cstdint>

#include "common/kernel/descriptors.hpp"  // tmem_addr

namespace hg {

/// An element of the 128-row accumulator tile: its row and column.
struct AccCoord {
  int row = 0, col = 0;
};

/// Who holds which accumulator element after the Blackwell epilogue's load: warp w of the warpgroup issues
/// tcgen05.ld.32x32b at TMEM lane 32w (warp w may access lanes 32w..32w+31 only; PTX ISA, tcgen05 "Data
/// movement shape 32x32b"), and lane l of the warp receives TMEM lane 32w + l, one 32-bit register per
/// column. So thread t holds row t, and its register `reg` is column `reg`.
constexpr AccCoord tmem_ld_32x32b_owner(int t, int reg) {
  return AccCoord{int(tmem_addr(0, uint32_t(32 * (t / 32)), 0) >> 16) + t % 32, reg};
}

/// Who holds which element of a 64 x N wgmma accumulator (PTX ISA, wgmma "Matrix fragments for .m64nNk16",
/// accumulator D): thread t of the warpgroup holds, in register 4j + i (j = 0..N/8-1, i = 0..3), row
/// 16(t/32) + (t%32)/4 + 8(i/2) and column 8j + 2(t%4) + i%2.
constexpr AccCoord wgmma_m64nNk16_acc_owner(int t, int reg) {
  return AccCoord{16 * (t / 32) + (t % 32) / 4 + 8 * ((reg % 4) / 2), 8 * (reg / 4) + 2 * (t % 4) + reg % 2};
}

}  // namespace hg

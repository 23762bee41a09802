// common/kernel/descriptors.hpp: the bit fields that tell the tensor cores where a tile lives and what to compute.
//
// Everything here is constexpr host+device code: the kernels build descriptors with it, and the CPU tests
// check every encoder against published values (PTX ISA, CUTLASS). Each encoder builds ONE descriptor; the
// protocol that uses them stays in the step files.
//
// References (read, not copied):
//   PTX ISA, "Tensor Core 5th Generation Family Instructions" (tcgen05): "Instruction descriptor" and
//     "Shared memory descriptor" tables.
//   PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" (wgmma): "Matrix Descriptor Format".
//   CUTLASS include/cute/arch/mma_sm100_desc.hpp (UMMA::InstrDescriptor, UMMA::SmemDescriptor) and
//     include/cute/arch/mma_sm90_desc.hpp (GmmaDescriptor) use the same layouts.
#pragma once

#include <cstdint>

#include "common/kernel/hd.hpp"

namespace hg {

// ------------------------------------------------------------------------------------------------------
// 128B swizzle. A 64-wide fp16 tile row is exactly 128 bytes = eight 16-byte chunks. Rows are stored
// back to back (row r at byte r*128); inside each group of 8 rows (one 1024-byte "atom") chunk c of row r
// is moved to chunk position c ^ (r % 8). Consecutive rows thus spread the same K chunk over all eight
// 16-byte bank groups, and this is exactly the layout TMA writes for CU_TENSOR_MAP_SWIZZLE_128B and the
// MMA units read for layout type "128B swizzle". The pattern repeats every 1024 bytes, so every swizzled
// tile must start on a 1024-byte boundary.
// ------------------------------------------------------------------------------------------------------

/// Byte offset of fp16 element (row, k), 0 <= k < 64, inside a 128B-swizzled K-major tile.
HG_HD constexpr uint32_t swizzle128b_offset(uint32_t row, uint32_t k) {
  return row * 128u + (((k / 8u) ^ (row % 8u)) * 16u) + (k % 8u) * 2u;
}

inline constexpr int kSwizzleRowBytes = 128;          ///< one row of a swizzled tile: 64 fp16 of K
inline constexpr uint32_t kSwizzleAtomBytes = 1024;  ///< 8 rows x 128 bytes: the swizzle's period

// ------------------------------------------------------------------------------------------------------
// Blackwell (sm_100a): tcgen05.mma
// ------------------------------------------------------------------------------------------------------

/// Instruction descriptor for tcgen05.mma .kind::f16 with A = B = fp16, D = fp32, both operands K-major,
/// no sparsity, no negation, no saturation. Bit layout (PTX ISA, tcgen05 "Instruction descriptor"):
///   [4,6)   D format: 1 = F32            [7,10)  A format: 0 = F16     [10,13) B format: 0 = F16
///   [15]    A major: 0 = K               [16]    B major: 0 = K
///   [17,23) N >> 3                       [24,29) M >> 4
/// M = N = 128 gives 0x08200010 (the value CUTLASS computes for this MMA; tests/test_descriptors.cpp).
HG_HD constexpr uint32_t sm100_instr_desc_f16(uint32_t m, uint32_t n) {
  return (1u << 4)              // D (accumulator) format: F32
         | (0u << 7)            // A format: F16
         | (0u << 10)           // B format: F16
         | (0u << 15)           // A is K-major
         | (0u << 16)           // B is K-major
         | ((n >> 3) << 17)     // N, in units of 8
         | ((m >> 4) << 24);    // M, in units of 16
}

/// Shared-memory matrix descriptor for tcgen05.mma: a K-major tile in 128B swizzle starting at shared
/// address `smem_addr` (1024-byte aligned). Bit layout (PTX ISA, tcgen05 "Shared memory descriptor"):
///   [0,14)  start address >> 4
///   [16,30) leading byte offset >> 4: unused for swizzled K-major layouts; 1, the value CUTLASS's
///           make_umma_desc writes (tests/test_cutlass_oracle.cu compares every bit with it)
///   [32,46) stride byte offset >> 4: 1024 B between 8-row groups -> 64
///   [46,48) fixed version field: 1 (Blackwell descriptors only)
///   [49,52) base offset: 0 because tiles start 1024-aligned
///   [61,64) layout type: 2 = SWIZZLE_128B
HG_HD constexpr uint64_t sm100_smem_desc_sw128(uint32_t smem_addr) {
  return (uint64_t((smem_addr >> 4) & 0x3FFFu))   // start address, 16-byte units
         | (uint64_t(1) << 16)                    // LBO (unused with 128B swizzle, conventionally 1)
         | (uint64_t(1024 >> 4) << 32)            // SBO: next 8-row group is 1024 bytes further
         | (uint64_t(1) << 46)                    // version = 1
         | (uint64_t(2) << 61);                   // 128B swizzle
}

/// TMEM address: lane (row of the accumulator) in the upper 16 bits, column in the lower 16
/// (PTX ISA, tcgen05 "Tensor Memory Addressing").
HG_HD constexpr uint32_t tmem_addr(uint32_t base, uint32_t lane, uint32_t col) {
  return base + (lane << 16) + col;
}

// ------------------------------------------------------------------------------------------------------
// Hopper (sm_90a): wgmma
// ------------------------------------------------------------------------------------------------------

/// wgmma matrix descriptor for the same K-major 128B-swizzled tile. Bit layout (PTX ISA, wgmma
/// "Matrix Descriptor Format"):
///   [0,14)  start address >> 4            [16,30) leading byte offset >> 4: 1 (ignored for this layout)
///   [32,46) stride byte offset >> 4: 64   [49,52) base offset: 0
///   [62,64) swizzle mode: 1 = 128B
/// Note the different position and code of the swizzle field compared with Blackwell: do not mix them.
HG_HD constexpr uint64_t sm90_wgmma_desc_sw128(uint32_t smem_addr) {
  return (uint64_t((smem_addr >> 4) & 0x3FFFu))   // start address, 16-byte units
         | (uint64_t(1) << 16)                    // LBO (unused with 128B swizzle, conventionally 1)
         | (uint64_t(1024 >> 4) << 32)            // SBO: next 8-row group is 1024 bytes further
         | (uint64_t(1) << 62);                   // 128B swizzle
}

/// Advancing a descriptor along K inside a 64-wide fp16 tile: one MMA consumes K = 16 = 32 bytes of each
/// row, and the start-address field counts 16-byte units, so the next K step is +2 on the raw descriptor.
/// (Inside a swizzled atom the hardware applies the XOR after adding the offset, which is why a plain add
/// works.)
HG_HD constexpr uint64_t desc_advance_k16(uint64_t desc, uint32_t k_step) {
  return desc + uint64_t(k_step) * (32u >> 4);
}

}  // namespace hg

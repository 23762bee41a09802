// CPU tests of the descriptor encoders and the 128B swizzle against published values (PTX ISA tcgen05 /
// wgmma descriptor tables; CUTLASS mma_sm100_desc.hpp, mma_sm90_desc.hpp).
// The expected numbers are written out as literals, not recomputed with the encoders' formulas.
#include <doctest/doctest.h>

#include <set>

#include "common/kernel/descriptors.hpp"

using namespace hg;

TEST_CASE("Blackwell instruction descriptor, kind::f16, fp16 x fp16 -> fp32, K-major") {
  CHECK(sm100_instr_desc_f16(128, 128) == 0x08200010u);
  CHECK(sm100_instr_desc_f16(128, 256) == 0x08400010u);
  const uint32_t d = sm100_instr_desc_f16(128, 128);
  CHECK(((d >> 4) & 0x3u) == 1u);     // D format F32
  CHECK(((d >> 7) & 0x7u) == 0u);     // A format F16
  CHECK(((d >> 10) & 0x7u) == 0u);    // B format F16
  CHECK(((d >> 15) & 0x3u) == 0u);    // both K-major
  CHECK(((d >> 17) & 0x3Fu) == 16u);  // N >> 3
  CHECK(((d >> 24) & 0x1Fu) == 8u);   // M >> 4
  CHECK((d & 0xFu) == 0u);            // dense, no saturation
}

TEST_CASE("Blackwell shared-memory descriptor, K-major, SWIZZLE_128B") {
  // Tile at shared address 0x400: start 0x40, LBO 1 (unused here; CUTLASS's value), SBO 64 (1024 B),
  // version bit 46, layout type 2 at bit 61.
  CHECK(sm100_smem_desc_sw128(0x400) == 0x4000404000010040ull);
  CHECK(sm100_smem_desc_sw128(0x8400) == 0x4000404000010840ull);
  const uint64_t d = sm100_smem_desc_sw128(0x2400);
  CHECK((d & 0x3FFFull) == 0x240ull);
  CHECK(((d >> 16) & 0x3FFFull) == 1ull);   // LBO: unused for swizzled K-major, 1 as CUTLASS writes it
  CHECK(((d >> 32) & 0x3FFFull) == 64ull);  // SBO = 1024 >> 4
  CHECK(((d >> 46) & 0x3ull) == 1ull);      // version
  CHECK(((d >> 49) & 0x7ull) == 0ull);      // base offset: tiles are 1024-aligned
  CHECK((d >> 61) == 2ull);                 // SWIZZLE_128B
}

TEST_CASE("Hopper wgmma descriptor, K-major, 128B swizzle") {
  CHECK(sm90_wgmma_desc_sw128(0x400) == 0x4000004000010040ull);
  const uint64_t d = sm90_wgmma_desc_sw128(0x2400);
  CHECK((d & 0x3FFFull) == 0x240ull);
  CHECK(((d >> 16) & 0x3FFFull) == 1ull);
  CHECK(((d >> 32) & 0x3FFFull) == 64ull);
  CHECK((d >> 62) == 1ull);  // 128B swizzle: a different field and code than on Blackwell
  CHECK(((d >> 46) & 0x3ull) == 0ull);  // no version field on Hopper
}

TEST_CASE("the two architectures' descriptors are not interchangeable") {
  const uint64_t bw = sm100_smem_desc_sw128(0x400), hp = sm90_wgmma_desc_sw128(0x400);
  CHECK(bw != hp);
  CHECK((bw & (1ull << 46)) != 0);  // Blackwell needs the version bit ...
  CHECK((hp & (1ull << 46)) == 0);  // ... Hopper has none
  CHECK((bw >> 61) == 2ull);         // and the swizzle code sits in another field with another value
  CHECK((hp >> 62) == 1ull);
}

TEST_CASE("advancing along K: +32 bytes per K=16 step is +2 on the descriptor") {
  for (uint32_t base : {0x400u, 0x4400u, 0x1C400u}) {
    for (uint32_t k = 0; k < 4; ++k) {
      CHECK(desc_advance_k16(sm100_smem_desc_sw128(base), k) == sm100_smem_desc_sw128(base + 32 * k));
      CHECK(desc_advance_k16(sm90_wgmma_desc_sw128(base), k) == sm90_wgmma_desc_sw128(base + 32 * k));
    }
    CHECK(desc_advance_k16(sm100_smem_desc_sw128(base), 1) == sm100_smem_desc_sw128(base) + 2);
    // The second 64-row half of a 128-row tile starts 8192 bytes later: +512 on the encoded address.
    CHECK(sm90_wgmma_desc_sw128(base + 8192) == sm90_wgmma_desc_sw128(base) + 512);
  }
}

TEST_CASE("128B swizzle: published examples") {
  CHECK(swizzle128b_offset(0, 0) == 0u);
  CHECK(swizzle128b_offset(0, 63) == 126u);            // row 0 is not permuted
  CHECK(swizzle128b_offset(1, 0) == 128u + 16u);       // chunk 0 of row 1 -> chunk 1
  CHECK(swizzle128b_offset(3, 17) == 3 * 128u + 16u + 2u);  // chunk 2 ^ 3 = 1, element 1 inside it
  CHECK(swizzle128b_offset(7, 8) == 7 * 128u + 6 * 16u);    // chunk 1 ^ 7 = 6
  CHECK(swizzle128b_offset(9, 0) == 9 * 128u + 16u);   // row 9 is row 1 of the second atom
}

TEST_CASE("128B swizzle: a bijection on the 16 KiB tile, periodic every 1024 bytes") {
  std::set<uint32_t> seen;
  for (uint32_t r = 0; r < 128; ++r)
    for (uint32_t k = 0; k < 64; ++k) {
      const uint32_t off = swizzle128b_offset(r, k);
      CHECK(off < 128u * 128u);
      CHECK(off / 128u == r);  // the swizzle never leaves the row
      seen.insert(off);
      if (r >= 8) CHECK(off == swizzle128b_offset(r - 8, k) + kSwizzleAtomBytes);
    }
  CHECK(seen.size() == 128u * 64u);
}

TEST_CASE("128B swizzle: one K chunk of 8 consecutive rows hits 8 different 16-byte bank groups") {
  for (uint32_t kc = 0; kc < 8; ++kc) {
    std::set<uint32_t> bank_groups;
    for (uint32_t r = 0; r < 8; ++r) bank_groups.insert((swizzle128b_offset(r, kc * 8) % 128u) / 16u);
    CHECK(bank_groups.size() == 8u);
  }
}

TEST_CASE("TMEM address: lane in the upper half-word, column in the lower") {
  CHECK(tmem_addr(0, 0, 0) == 0u);
  CHECK(tmem_addr(0, 32, 0) == 0x00200000u);
  CHECK(tmem_addr(0x00000100u, 96, 5) == 0x00600105u);
}

// common/harness/init.hpp: deterministic GEMM inputs, identical on the host and the device.
//
// Element `index` of matrix `matrix` (0 = A, 1 = B) is a pure function of (seed, mode, matrix, index):
// a counter-based hash (SplitMix64's finaliser), so the GPU fill kernel and the CPU tests agree on every
// value without sharing a generator state, and any element can be recomputed alone.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/harness/cli.hpp"
#include "common/kernel/hd.hpp"

namespace hg {

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix with good avalanche.
HG_HD constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// 64 random bits for one element.
HG_HD constexpr uint64_t element_bits(uint64_t seed, uint64_t matrix, uint64_t index) {
  return mix64(mix64(seed ^ (matrix << 56)) ^ index);
}

/// int mode: an integer in [-2, 2] (|sums| <= 4K stay exact in fp32 and, below 2048, in fp16).
HG_HD constexpr int int_value(uint64_t seed, uint64_t matrix, uint64_t index) {
  return int(element_bits(seed, matrix, index) % 5u) - 2;
}

/// random mode: a standard normal sample by the Box-Muller transform of two 24-bit uniforms.
/// u1 lies in (0, 1], so the logarithm is finite; |value| <= sqrt(-2 ln 2^-24) ~= 5.8.
HG_HD inline float normal_value(uint64_t seed, uint64_t matrix, uint64_t index) {
  const uint64_t bits = element_bits(seed, matrix, index);
  const float u1 = float((bits >> 40) + 1) * (1.0f / 16777216.0f);             // (0, 1]
  const float u2 = float((bits >> 16) & 0xFFFFFFu) * (1.0f / 16777216.0f);      // [0, 1)
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

HG_HD inline float init_value(uint64_t seed, InitMode mode, uint64_t matrix, uint64_t index) {
  return mode == InitMode::kInt ? float(int_value(seed, matrix, index)) : normal_value(seed, matrix, index);
}

}  // namespace hg

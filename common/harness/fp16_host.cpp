// common/harness/fp16_host.cpp: IEEE binary16 <-> float by bit manipulation (see fp16_host.hpp).
//
// binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
// binary32: 1 sign bit, 8 exponent bits (bias 127), 23 mantissa bits.
#include "common/harness/fp16_host.hpp"

#include <cstring>

namespace hg {
namespace {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Shifts `m` right by `shift` bits, rounding to nearest with ties to even.
uint32_t shift_round_even(uint32_t m, int shift) {
  const uint32_t kept = m >> shift;
  const uint32_t rest = m & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return kept + (rest > half || (rest == half && (kept & 1u)) ? 1u : 0u);
}

}  // namespace

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (mant << 13));  // inf, or NaN keeping its payload
  if (exp != 0) return bits_float(sign | ((exp + 127 - 15) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);  // signed zero
  // Subnormal: mant * 2^-24. Normalise so the leading 1 becomes the implicit bit of a float.
  int e = 127 - 15 + 1;
  while (!(mant & 0x400u)) {
    mant <<= 1;
    --e;
  }
  return bits_float(sign | (uint32_t(e) << 23) | ((mant & 0x3FFu) << 13));
}

uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;

  if (abs > 0x7F800000u) return uint16_t(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));  // NaN: quiet, top payload bits
  // 65520 = 0x477FF000 is halfway between 65504 (largest half, odd mantissa) and 2^16: ties go to
  // "even" 2^16, which overflows, so everything from 65520 up (infinity included) is infinity.
  if (abs >= 0x477FF000u) return uint16_t(sign | 0x7C00u);
  if (abs >= 0x38800000u) {  // >= 2^-14: normal half. Rounding may carry into the exponent, which is right.
    const uint32_t rebased = abs - ((127u - 15u) << 23);  // exponent rebiased, mantissa untouched
    return uint16_t(sign | shift_round_even(rebased, 13));
  }
  // 2^-25 is halfway between 0 and the smallest subnormal 2^-24 and ties to the even 0.
  if (abs <= 0x33000000u) return sign;
  // Subnormal half: the value in units of 2^-24 is (1.mantissa) * 2^(e - 127 + 24), e in [103, 112].
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  const int e = int(abs >> 23);
  return uint16_t(sign | shift_round_even(mant, 126 - e));  // may round up to 0x0400, the smallest normal
}

}  // namespace hg

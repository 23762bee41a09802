// tests/test_fp16.cpp: host fp16 conversions (common/harness/fp16_host.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "common/harness/fp16_host.hpp"

using hg::float_to_half_bits;
using hg::half_bits_to_float;

namespace {

bool is_half_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("fp16: float to half of known values, rounding to nearest even") {
  CHECK(float_to_half_bits(1.0f) == 0x3C00);
  CHECK(float_to_half_bits(-2.0f) == 0xC000);
  CHECK(float_to_half_bits(0.5f) == 0x3800);
  CHECK(float_to_half_bits(65504.0f) == 0x7BFF);
  CHECK(float_to_half_bits(65519.996f) == 0x7BFF);  // just below the halfway point to 2^16
  CHECK(float_to_half_bits(65520.0f) == 0x7C00);    // halfway: ties to the even neighbour, 2^16 = inf
  CHECK(float_to_half_bits(-65520.0f) == 0xFC00);
  CHECK(float_to_half_bits(1e10f) == 0x7C00);
  CHECK(float_to_half_bits(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(float_to_half_bits(-std::numeric_limits<float>::infinity()) == 0xFC00);
  CHECK(float_to_half_bits(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
  CHECK(float_to_half_bits(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(float_to_half_bits(std::ldexp(1.0f, -25)) == 0x0000);  // halfway to 2^-24: ties to even 0
  CHECK(float_to_half_bits(-std::ldexp(1.0f, -25)) == 0x8000);
  CHECK(float_to_half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);  // just above halfway
  CHECK(float_to_half_bits(3 * std::ldexp(1.0f, -25)) == 0x0002);                   // 1.5 ulp: ties to even 2
  CHECK(float_to_half_bits(5 * std::ldexp(1.0f, -25)) == 0x0002);                   // 2.5 ulp: ties to even 2
  CHECK(float_to_half_bits(std::ldexp(1023.5f, -24)) == 0x0400);  // the largest subnormal rounds up to normal
  CHECK(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // tie, 1.0 has even mantissa
  CHECK(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie, rounds up to even
  CHECK(float_to_half_bits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);  // above the tie
  CHECK(float_to_half_bits(2047.5f) == 0x6800);  // halfway between 2047 (odd mantissa) and 2048
  CHECK(float_to_half_bits(1e-10f) == 0x0000);
}

TEST_CASE("fp16: signed zero and NaN are preserved") {
  CHECK(float_to_half_bits(0.0f) == 0x0000);
  CHECK(float_to_half_bits(-0.0f) == 0x8000);
  CHECK(std::signbit(half_bits_to_float(0x8000)));
  CHECK(half_bits_to_float(0x8000) == 0.0f);

  const uint16_t nan = float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
  CHECK(is_half_nan(nan));
  CHECK((nan & 0x0200u) != 0);  // quiet
  // A signalling float NaN whose payload sits only in the low bits must not turn into infinity.
  uint32_t snan_bits = 0x7F800001u;
  float snan;
  std::memcpy(&snan, &snan_bits, sizeof snan);
  CHECK(is_half_nan(float_to_half_bits(snan)));
  CHECK(is_half_nan(float_to_half_bits(-std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isnan(half_bits_to_float(hg::kHalfPoison)));
  CHECK(is_half_nan(hg::kHalfPoison));
}

TEST_CASE("fp16: half to float of known patterns is exact") {
  CHECK(half_bits_to_float(0x3C00) == 1.0f);
  CHECK(half_bits_to_float(0xC000) == -2.0f);
  CHECK(half_bits_to_float(0x7BFF) == 65504.0f);
  CHECK(half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_bits_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(half_bits_to_float(0x0400) == std::ldexp(1.0f, -14));
  CHECK(half_bits_to_float(0x3555) == 1365.0f / 4096.0f);  // 0x3555 = 2^-2 * (1 + 341/1024)
  CHECK(half_bits_to_float(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(half_bits_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_bits_to_float(0x7C01)));
  CHECK(std::isnan(half_bits_to_float(0xFE00)));
}

TEST_CASE("fp16: every non-NaN pattern survives half -> float -> half exactly, every NaN stays NaN") {
  int mismatches = 0;
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const uint16_t bits = uint16_t(h);
    const uint16_t back = float_to_half_bits(half_bits_to_float(bits));
    const bool ok = is_half_nan(bits) ? is_half_nan(back) : back == bits;
    if (!ok && mismatches++ < 5) FAIL_CHECK("pattern ", hex(h), " came back as ", hex(back));
  }
  CHECK(mismatches == 0);
}

TEST_CASE("fp16: float to half picks the nearest half, ties to even, for a million random floats") {
  // Independent of the implementation: compare against the two neighbouring halves in double arithmetic.
  std::mt19937 gen(12345);
  std::uniform_int_distribution<uint32_t> exponent(127 - 26, 127 + 15), mantissa(0, 0x7FFFFF);
  int failures = 0;
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t u = exponent(gen) << 23 | mantissa(gen);
    float f;
    std::memcpy(&f, &u, sizeof f);
    if (f >= 65520.0f) continue;
    const uint16_t h = float_to_half_bits(f);
    const double x = f;
    const double got = half_bits_to_float(h);
    const double below = h > 0 ? double(half_bits_to_float(uint16_t(h - 1))) : -1.0;
    const double above = half_bits_to_float(uint16_t(h + 1));
    const double err = std::fabs(got - x);
    bool ok = err <= std::fabs(below - x) && err <= std::fabs(above - x);
    if (err == std::fabs(below - x) || err == std::fabs(above - x)) ok = ok && (h & 1u) == 0;  // a tie
    if (!ok && failures++ < 5) FAIL_CHECK("float bits ", hex(float_bits(f)), " gave half ", hex(h));
  }
  CHECK(failures == 0);
}

// tests/test_init.cpp: deterministic inputs (common/harness/init.hpp) and the fp64 CPU reference (tests/cpu_reference.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/cpu_reference.hpp"
#include "common/harness/fp16_host.hpp"
#include "common/harness/init.hpp"

using hg::InitMode;

TEST_CASE("init: the same (seed, mode, matrix, index) always gives the same value") {
  for (uint64_t i = 0; i < 1000; ++i) {
    CHECK(hg::init_value(42, InitMode::kRandom, 0, i) == hg::init_value(42, InitMode::kRandom, 0, i));
    CHECK(hg::init_value(42, InitMode::kInt, 1, i) == hg::init_value(42, InitMode::kInt, 1, i));
  }
  // Pinned values: the GPU fill kernel uses the same functions, so a change here changes every input.
  CHECK(hg::mix64(0) == 0xE220A8397B1DCDAFull);  // SplitMix64's first output for state 0
  CHECK(hg::init_value(1, InitMode::kInt, 0, 0) == float(hg::int_value(1, 0, 0)));
  CHECK(hg::init_value(1, InitMode::kRandom, 0, 0) == hg::normal_value(1, 0, 0));
}

TEST_CASE("init: int mode gives only -2..2, each with frequency 0.2 +- 0.01 over 100k samples") {
  int counts[5] = {0, 0, 0, 0, 0};
  const int samples = 100000;
  for (int i = 0; i < samples; ++i) {
    const float v = hg::init_value(3, InitMode::kInt, 0, uint64_t(i));
    REQUIRE(v == std::floor(v));
    REQUIRE(v >= -2.0f);
    REQUIRE(v <= 2.0f);
    ++counts[int(v) + 2];
  }
  for (int v = 0; v < 5; ++v) {
    CAPTURE(v - 2);
    CHECK(std::fabs(double(counts[v]) / samples - 0.2) < 0.01);
  }
}

TEST_CASE("init: random mode looks standard normal over 200k samples, finite and bounded") {
  const int samples = 200000;
  double sum = 0, sum_sq = 0, max_abs = 0;
  int beyond_3 = 0;
  for (int i = 0; i < samples; ++i) {
    const double x = hg::init_value(11, InitMode::kRandom, 1, uint64_t(i));
    REQUIRE(std::isfinite(x));
    max_abs = std::max(max_abs, std::fabs(x));
    if (std::fabs(x) > 3) ++beyond_3;
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / samples;
  const double var = sum_sq / samples - mean * mean;
  CHECK(std::fabs(mean) < 0.02);
  CHECK(std::fabs(var - 1.0) < 0.02);
  CHECK(max_abs <= 5.8);  // sqrt(-2 ln 2^-24) ~= 5.77
  CHECK(max_abs > 3.5);   // tails exist: not a uniform or clipped distribution
  CHECK(beyond_3 > 380);  // P(|x| > 3) = 0.0027 for N(0, 1): 540 expected, standard deviation 23
  CHECK(beyond_3 < 700);
}

TEST_CASE("init: another seed or the other matrix gives a different sequence") {
  for (const InitMode mode : {InitMode::kRandom, InitMode::kInt}) {
    CAPTURE(int(mode));
    int seed_diff = 0, matrix_diff = 0;
    for (uint64_t i = 0; i < 200; ++i) {
      const float base = hg::init_value(5, mode, 0, i);
      seed_diff += base != hg::init_value(6, mode, 0, i);
      matrix_diff += base != hg::init_value(5, mode, 1, i);
    }
    // Independent draws of five integers agree 20% of the time; normals practically never.
    const int expected = mode == InitMode::kInt ? 120 : 195;
    CHECK(seed_diff > expected);
    CHECK(matrix_diff > expected);
  }
}

TEST_CASE("cpu_reference_gemm: a 2 x 3 x 2 example computed by hand") {
  // A (M=2 x K=2) = [[1, 2], [-0.5, 3]];  B (N=3 x K=2) = [[4, -1], [0.25, 0.5], [-2, 1.5]].
  // D[i][j] = A[i][0]*B[j][0] + A[i][1]*B[j][1]:
  //   row 0: 1*4 + 2*-1 = 2;      1*0.25 + 2*0.5 = 1.25;    1*-2 + 2*1.5 = 1
  //   row 1: -0.5*4 + 3*-1 = -5;  -0.5*0.25 + 3*0.5 = 1.375; -0.5*-2 + 3*1.5 = 5.5
  const float a[] = {1, 2, -0.5f, 3};
  const float b[] = {4, -1, 0.25f, 0.5f, -2, 1.5f};
  std::vector<uint16_t> a_bits, b_bits;
  for (float v : a) a_bits.push_back(hg::float_to_half_bits(v));
  for (float v : b) b_bits.push_back(hg::float_to_half_bits(v));
  const std::vector<double> d = hg::cpu_reference_gemm(a_bits.data(), b_bits.data(), 2, 3, 2);
  const std::vector<double> want = {2, 1.25, 1, -5, 1.375, 5.5};
  REQUIRE(d.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(d[i] == want[i]);
  }
}

TEST_CASE("cpu_reference_gemm: sums in fp64, beyond fp32's precision") {
  // 2^24 + 1 - 2^24 is 1 in fp64; fp32 accumulation would round 2^24 + 1 to 2^24 and return 0.
  const float a[] = {32768, 1, -32768};
  const float b[] = {512, 1, 512};
  std::vector<uint16_t> a_bits, b_bits;
  for (float v : a) a_bits.push_back(hg::float_to_half_bits(v));
  for (float v : b) b_bits.push_back(hg::float_to_half_bits(v));
  const std::vector<double> d = hg::cpu_reference_gemm(a_bits.data(), b_bits.data(), 1, 1, 3);
  REQUIRE(d.size() == 1);
  CHECK(d[0] == 1.0);
}

// tests/test_verify.cpp: the verifier catches planted errors and accepts a correct result (common/harness/verify.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/cpu_reference.hpp"
#include "common/harness/fp16_host.hpp"
#include "common/harness/init.hpp"
#include "common/harness/verify.hpp"

using hg::float_to_half_bits;
using hg::half_bits_to_float;
using hg::InitMode;

namespace {

// A GEMM problem built on the host like the verify binary builds it on the GPU.
struct Problem {
  int64_t m, n, k;
  InitMode mode;
  std::vector<uint16_t> a, b;   // fp16 inputs, A M x K, B N x K
  std::vector<float> ref, mag;  // what the fp32 reference GEMM produces
  std::vector<double> exact;    // fp64 sum
  std::vector<uint16_t> d;      // an ideal kernel: fp16 of the exact sum

  uint16_t& at(int64_t i, int64_t j) { return d[size_t(i * n + j)]; }
  double a_val(int64_t i, int64_t kk) const { return half_bits_to_float(a[size_t(i * k + kk)]); }
  double b_val(int64_t j, int64_t kk) const { return half_bits_to_float(b[size_t(j * k + kk)]); }

  hg::VerifyReport verify(InitMode as) const {
    return hg::verify_result(d.data(), ref.data(), mag.data(), m, n, k, as);
  }
  hg::VerifyReport verify() const { return verify(mode); }
};

Problem make_problem(int64_t m, int64_t n, int64_t k, InitMode mode, uint64_t seed = 7) {
  Problem p{m, n, k, mode, {}, {}, {}, {}, {}, {}};
  p.a.resize(size_t(m * k));
  p.b.resize(size_t(n * k));
  for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = float_to_half_bits(hg::init_value(seed, mode, 0, i));
  for (size_t i = 0; i < p.b.size(); ++i) p.b[i] = float_to_half_bits(hg::init_value(seed, mode, 1, i));
  p.ref.resize(size_t(m * n));
  p.mag.resize(size_t(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0, abs_sum = 0;  // fp32 accumulation, like the reference GEMM on the GPU
      for (int64_t kk = 0; kk < k; ++kk) {
        const float prod = float(p.a_val(i, kk)) * float(p.b_val(j, kk));
        sum += prod;
        abs_sum += std::fabs(prod);
      }
      p.ref[size_t(i * n + j)] = sum;
      p.mag[size_t(i * n + j)] = abs_sum;
    }
  }
  p.exact = hg::cpu_reference_gemm(p.a.data(), p.b.data(), m, n, k);
  p.d.resize(p.exact.size());
  for (size_t i = 0; i < p.d.size(); ++i) p.d[i] = float_to_half_bits(float(p.exact[i]));
  return p;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void check_one_bad(const hg::VerifyReport& r, int64_t row, int64_t col) {
  INFO(r.summary());
  CHECK(!r.pass);
  CHECK(r.bad == 1);
  CHECK(r.first_bad_row == row);
  CHECK(r.first_bad_col == col);
}

}  // namespace

TEST_CASE("tolerance: the documented formula 2^-10 |ref| + 2^-14 + 16 sqrt(K) 2^-24 mag") {
  CHECK(hg::tolerance(0.0, 0.0, 1) == std::ldexp(1.0, -14));
  CHECK(hg::tolerance(-1024.0, 0.0, 1) == doctest::Approx(1.0 + std::ldexp(1.0, -14)));
  CHECK(hg::tolerance(0.0, 1.0, 4) == doctest::Approx(std::ldexp(1.0, -14) + std::ldexp(1.0, -19)));
  CHECK(hg::tolerance(2.0, 100.0, 4096) ==
        doctest::Approx(2.0 / 1024 + std::ldexp(1.0, -14) + 16.0 * 64.0 * 100.0 * std::ldexp(1.0, -24)));
}

TEST_CASE("verify: an ideal kernel passes in random mode with errors of fp16 rounding size") {
  const Problem p = make_problem(48, 80, 128, InitMode::kRandom);
  const hg::VerifyReport r = p.verify();
  INFO(r.summary());
  CHECK(r.pass);
  CHECK(!r.exact);
  CHECK(r.bad == 0);
  CHECK(r.checked == 48 * 80);
  CHECK(r.first_bad_row == -1);
  CHECK(r.first_bad_col == -1);
  CHECK(r.max_abs_err > 0);  // fp16 rounding is visible: the comparison really looked at the data
  CHECK(r.max_abs_err < 0.05);
  CHECK(r.max_rel_err <= std::ldexp(1.0, -10));
  CHECK(!contains(r.summary(), "\n"));
  CHECK(contains(r.summary(), "bad=0/3840"));
  CHECK(!contains(r.summary(), "first_bad"));
}

TEST_CASE("verify: int mode is bit-exact and an ideal kernel passes") {
  const Problem p = make_problem(48, 80, 128, InitMode::kInt);
  for (size_t i = 0; i < p.d.size(); ++i) REQUIRE(double(p.ref[i]) == p.exact[i]);  // int sums are exact in fp32
  const hg::VerifyReport r = p.verify();
  INFO(r.summary());
  CHECK(r.pass);
  CHECK(r.exact);
  CHECK(r.max_abs_err == 0);
  CHECK(r.max_rel_err == 0);
}

TEST_CASE("verify: one element off by 1.0 is caught with its position") {
  Problem p = make_problem(48, 80, 128, InitMode::kRandom);
  const size_t idx = 5 * 80 + 17;
  REQUIRE(hg::tolerance(p.ref[idx], p.mag[idx], 128) < 0.5);  // the planted error is well outside
  p.at(5, 17) = float_to_half_bits(float(p.exact[idx] + 1.0));
  const hg::VerifyReport r = p.verify();
  check_one_bad(r, 5, 17);
  CHECK(r.first_bad_got == doctest::Approx(p.exact[idx] + 1.0).epsilon(1e-3));
  CHECK(r.first_bad_want == p.ref[idx]);
  CHECK(r.max_abs_err == doctest::Approx(1.0).epsilon(0.02));
  const std::string s = r.summary();
  CHECK(contains(s, "bad=1/3840"));
  CHECK(contains(s, "first_bad=(5,17)"));
  CHECK(contains(s, "got="));
  CHECK(contains(s, "want="));
  CHECK(!contains(s, "\n"));
}

TEST_CASE("verify: an element 25% too large and one missing product term are caught") {
  Problem p = make_problem(48, 80, 128, InitMode::kRandom);
  // Largest |ref| in row 30: a relative error on it is unambiguous.
  int64_t col = 0;
  for (int64_t j = 1; j < p.n; ++j)
    if (std::fabs(p.ref[size_t(30 * p.n + j)]) > std::fabs(p.ref[size_t(30 * p.n + col)])) col = j;
  p.at(30, col) = float_to_half_bits(float(1.25 * p.exact[size_t(30 * p.n + col)]));
  check_one_bad(p.verify(), 30, col);

  // A kernel that drops the largest of the K products of element (12, 40): the classic off-by-one K loop.
  Problem q = make_problem(48, 80, 128, InitMode::kRandom);
  int64_t kmax = 0;
  for (int64_t kk = 1; kk < q.k; ++kk)
    if (std::fabs(q.a_val(12, kk) * q.b_val(40, kk)) > std::fabs(q.a_val(12, kmax) * q.b_val(40, kmax))) kmax = kk;
  const double dropped = q.a_val(12, kmax) * q.b_val(40, kmax);
  REQUIRE(std::fabs(dropped) > 10 * hg::tolerance(q.ref[12 * 80 + 40], q.mag[12 * 80 + 40], 128));
  q.at(12, 40) = float_to_half_bits(float(q.exact[size_t(12 * 80 + 40)] - dropped));
  check_one_bad(q.verify(), 12, 40);
}

TEST_CASE("verify: NaN, infinity and an unwritten (poisoned) element are caught") {
  Problem p = make_problem(48, 80, 128, InitMode::kRandom);
  p.at(10, 3) = 0x7C01;  // a signalling-NaN pattern
  hg::VerifyReport r = p.verify();
  check_one_bad(r, 10, 3);
  CHECK(std::isinf(r.max_abs_err));
  CHECK(std::isinf(r.max_rel_err));
  CHECK(std::isnan(r.first_bad_got));

  p = make_problem(48, 80, 128, InitMode::kRandom);
  p.at(1, 1) = 0xFC00;  // -inf
  r = p.verify();
  check_one_bad(r, 1, 1);
  CHECK(std::isinf(r.max_abs_err));

  p = make_problem(48, 80, 128, InitMode::kRandom);
  p.at(47, 79) = hg::kHalfPoison;  // the last element never written
  check_one_bad(p.verify(), 47, 79);

  // The same holds in int mode, where NaN must not sneak through the bit comparison.
  Problem q = make_problem(48, 80, 128, InitMode::kInt);
  q.at(20, 60) = hg::kHalfPoison;
  check_one_bad(q.verify(), 20, 60);

  // A kernel that writes nothing at all.
  q = make_problem(48, 80, 128, InitMode::kInt);
  std::fill(q.d.begin(), q.d.end(), hg::kHalfPoison);
  r = q.verify();
  CHECK(!r.pass);
  CHECK(r.bad == 48 * 80);
  CHECK(r.first_bad_row == 0);
  CHECK(r.first_bad_col == 0);
}

TEST_CASE("verify: the first bad element is the first in row-major order, and all are counted") {
  Problem p = make_problem(48, 80, 128, InitMode::kRandom);
  p.at(20, 5) = hg::kHalfPoison;
  p.at(3, 70) = float_to_half_bits(float(p.exact[size_t(3 * 80 + 70)] + 2.0));
  p.at(3, 71) = hg::kHalfPoison;
  const hg::VerifyReport r = p.verify();
  CHECK(!r.pass);
  CHECK(r.bad == 3);
  CHECK(r.first_bad_row == 3);
  CHECK(r.first_bad_col == 70);
  CHECK(contains(r.summary(), "bad=3/3840"));
  CHECK(contains(r.summary(), "first_bad=(3,70)"));
}

TEST_CASE("verify: a transposed result is caught (square, non-symmetric)") {
  Problem p = make_problem(64, 64, 128, InitMode::kRandom);
  std::vector<uint16_t> transposed(p.d.size());
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < 64; ++j) transposed[size_t(j * 64 + i)] = p.d[size_t(i * 64 + j)];
  p.d = transposed;
  const hg::VerifyReport r = p.verify();
  INFO(r.summary());
  CHECK(!r.pass);
  CHECK(r.bad > (64 * 64 - 64) * 95 / 100);  // every off-diagonal element (the diagonal is unchanged)
  CHECK(r.bad <= 64 * 64 - 64);
  CHECK(r.first_bad_row == 0);
  CHECK(r.first_bad_col == 1);

  // Same in int mode.
  Problem q = make_problem(64, 64, 128, InitMode::kInt);
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < 64; ++j) transposed[size_t(j * 64 + i)] = q.d[size_t(i * 64 + j)];
  q.d = transposed;
  CHECK(q.verify().bad > (64 * 64 - 64) * 80 / 100);
}

TEST_CASE("verify: int mode catches a one-ulp error that random mode's tolerance accepts") {
  Problem p = make_problem(48, 80, 128, InitMode::kInt);
  // An element with a non-zero, non-tiny result, so one ulp is a real change of value.
  size_t idx = 0;
  while (idx < p.d.size() && std::fabs(p.ref[idx]) < 4) ++idx;
  REQUIRE(idx < p.d.size());
  const int64_t row = int64_t(idx) / 80, col = int64_t(idx) % 80;
  p.d[idx] = uint16_t(p.d[idx] + 1);  // next representable magnitude
  CHECK(half_bits_to_float(p.d[idx]) != p.ref[idx]);

  const hg::VerifyReport exact = p.verify(InitMode::kInt);
  check_one_bad(exact, row, col);
  CHECK(exact.max_abs_err > 0);
  CHECK(contains(exact.summary(), "bad=1/3840"));
  CHECK(contains(exact.summary(), "first_bad=(" + std::to_string(row) + "," + std::to_string(col) + ")"));

  const hg::VerifyReport loose = p.verify(InitMode::kRandom);
  INFO(loose.summary());
  CHECK(loose.pass);
}

TEST_CASE("verify: int mode treats +0 and -0 as the same result") {
  Problem p = make_problem(48, 80, 128, InitMode::kInt);
  int zeros = 0;
  for (size_t i = 0; i < p.d.size(); ++i) {
    if (p.ref[i] == 0.0f) {
      p.d[i] = 0x8000;
      ++zeros;
    }
  }
  REQUIRE(zeros > 0);  // with 3840 sums of 128 small integers some are zero
  CHECK(p.verify().pass);

  // Directly: a -0 reference against +0, and the reverse; but -0 against a tiny non-zero still fails.
  const float ref[3] = {-0.0f, 0.0f, 0.0f};
  const float mag[3] = {0.0f, 0.0f, 0.0f};
  const uint16_t ok_bits[3] = {0x0000, 0x8000, 0x0000};
  CHECK(hg::verify_result(ok_bits, ref, mag, 1, 3, 1, InitMode::kInt).pass);
  const uint16_t bad_bits[3] = {0x0000, 0x8000, 0x0001};
  const hg::VerifyReport r = hg::verify_result(bad_bits, ref, mag, 1, 3, 1, InitMode::kInt);
  check_one_bad(r, 0, 2);
}

TEST_CASE("verify: a NaN reference accepts nothing, not even the NaN poison") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float ref[2] = {nan, 1.0f};
  const float mag[2] = {1.0f, 1.0f};
  const uint16_t bits[2] = {hg::kHalfPoison, 0x3C00};
  check_one_bad(hg::verify_result(bits, ref, mag, 1, 2, 1, InitMode::kInt), 0, 0);
  check_one_bad(hg::verify_result(bits, ref, mag, 1, 2, 1, InitMode::kRandom), 0, 0);
}

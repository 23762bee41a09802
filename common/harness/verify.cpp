// common/harness/verify.cpp: compares a kernel's fp16 D with the fp32 reference (see verify.hpp).
#include "common/harness/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/harness/fp16_host.hpp"

namespace hg {

// Where the tolerance comes from:
//  - D is the fp16 rounding (to nearest) of an fp32 sum, so its rounding error is at most half an fp16 ulp,
//    <= 2^-11 |D|. We allow a full ulp, 2^-10 |ref|, because ref itself carries fp32 error and the rounding
//    can land on either side of it.
//  - Plus 2^-14 absolute for results near zero, where fp16 spacing stops shrinking (the subnormal range
//    ends at 2^-14).
//  - The kernel and the reference each accumulate K products in fp32, in different orders. Each rounding is
//    at most u = 2^-24 relative to a partial sum bounded by mag = sum |a*b|; with independent rounding signs
//    the accumulated error grows like sqrt(K) u mag (Higham and Mary's probabilistic bound). A factor 8 on
//    each of the two sums (16 in all) makes a false failure vanishingly unlikely, while a missing or doubled
//    product term (|a*b| ~ 1 for N(0,1) inputs) stays far outside the tolerance.
double tolerance(double ref, double mag, int64_t k) {
  return std::ldexp(std::fabs(ref), -10) + std::ldexp(1.0, -14) +
         16.0 * std::sqrt(double(k)) * std::ldexp(1.0, -24) * mag;
}

VerifyReport verify_result(const uint16_t* d_bits, const float* ref, const float* mag, int64_t m, int64_t n,
                           int64_t k, InitMode mode) {
  VerifyReport r;
  r.exact = mode == InitMode::kInt;
  r.checked = m * n;
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t idx = i * n + j;
      const uint16_t bits = d_bits[idx];
      const double d = half_bits_to_float(bits);
      const double want = ref[idx];
      // NaN or Inf in D: the error is unbounded (this also keeps NaN out of the max below).
      const double err = std::isfinite(d) ? std::fabs(d - want) : inf;
      r.max_abs_err = std::max(r.max_abs_err, err);
      r.max_rel_err = std::max(r.max_rel_err, err / std::max(std::fabs(want), 1.0));

      // The correctly rounded fp16 of ref is always acceptable; in random mode this only matters when ref
      // overflows fp16 (D = Inf is then right). A NaN reference accepts nothing, not even the NaN poison.
      const uint16_t rounded = float_to_half_bits(ref[idx]);
      bool ok = !std::isnan(want) && bits == rounded;
      if (r.exact) {
        ok = ok || ((bits & 0x7FFFu) == 0 && (rounded & 0x7FFFu) == 0);  // +0 and -0 are the same result
      } else {
        ok = ok || err <= tolerance(want, mag[idx], k);  // written so that NaN fails
      }
      if (!ok) {
        if (r.bad == 0) {
          r.first_bad_row = i;
          r.first_bad_col = j;
          r.first_bad_got = float(d);
          r.first_bad_want = ref[idx];
        }
        ++r.bad;
      }
    }
  }
  r.pass = r.bad == 0;
  return r;
}

std::string VerifyReport::summary() const {
  char buf[256];
  int len = std::snprintf(buf, sizeof buf, "max_abs_err=%.3g max_rel_err=%.3g bad=%lld/%lld", max_abs_err,
                          max_rel_err, (long long)bad, (long long)checked);
  std::string s(buf, size_t(len));
  if (bad > 0) {
    // More digits for got/want than for the errors, so that a one-ulp miss in int mode is visible.
    len = std::snprintf(buf, sizeof buf, " first_bad=(%lld,%lld) got=%.6g want=%.6g", (long long)first_bad_row,
                        (long long)first_bad_col, double(first_bad_got), double(first_bad_want));
    s.append(buf, size_t(len));
  }
  return s;
}

}  // namespace hg

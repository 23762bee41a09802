// common/harness/verify.hpp: compares a kernel's fp16 D with the fp32 reference GEMM.
//
// The reference (common/harness/reference.cuh) gives, for every element, ref = sum_k A[i,k]*B[j,k] and
// mag = sum_k |A[i,k]*B[j,k]|, both accumulated in fp32. The verifier is host code, so the CPU tests
// can hand it planted errors.
#pragma once

#include <cstdint>
#include <string>

#include "common/harness/cli.hpp"

namespace hg {

struct VerifyReport {
  bool pass = false;
  bool exact = false;           ///< int mode: bit-exact comparison (sign of zero ignored)
  int64_t checked = 0;          ///< elements compared (M*N)
  int64_t bad = 0;              ///< elements outside tolerance, NaN or Inf where ref is finite
  double max_abs_err = 0;       ///< max |D - ref| (infinity when D holds a NaN or Inf)
  double max_rel_err = 0;       ///< max |D - ref| / max(|ref|, 1)
  int64_t first_bad_row = -1;   ///< first bad element in row-major order, -1 if none
  int64_t first_bad_col = -1;
  float first_bad_got = 0;      ///< D at that element (as float)
  float first_bad_want = 0;     ///< reference at that element

  /// "max_abs_err=... max_rel_err=... bad=0/16384" plus "first_bad=(r,c) got=... want=..." when failing.
  std::string summary() const;
};

/// Allowed |D - ref| for one element in random mode; see verify.cpp for the derivation.
double tolerance(double ref, double mag, int64_t k);

/// D: M x N row-major fp16 bit patterns. ref, mag: M x N fp32 from the reference GEMM.
/// random mode: |D - ref| <= tolerance(ref, mag, K). int mode: D == fp16(ref) bit for bit.
VerifyReport verify_result(const uint16_t* d_bits, const float* ref, const float* mag, int64_t m, int64_t n,
                           int64_t k, InitMode mode);

}  // namespace hg

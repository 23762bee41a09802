// tests/cpu_reference.cpp: the fp64 reference GEMM (see cpu_reference.hpp).
#include "tests/cpu_reference.hpp"

#include <cstddef>

#include "common/harness/fp16_host.hpp"

namespace hg {

std::vector<double> cpu_reference_gemm(const uint16_t* a_bits, const uint16_t* b_bits, int64_t m, int64_t n,
                                       int64_t k) {
  // Convert once: every input is read N (or M) times in the loop below.
  std::vector<double> a(std::size_t(m * k)), b(std::size_t(n * k));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = half_bits_to_float(a_bits[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = half_bits_to_float(b_bits[i]);

  // Products of two fp16 values are exact in fp64 and K terms add with error far below fp16's.
  std::vector<double> d(std::size_t(m * n));
  for (int64_t i = 0; i < m; ++i) {
    const double* a_row = a.data() + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const double* b_row = b.data() + j * k;  // B is N x K: row j holds column j of B^T, contiguous in k
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk) sum += a_row[kk] * b_row[kk];
      d[std::size_t(i * n + j)] = sum;
    }
  }
  return d;
}

}  // namespace hg

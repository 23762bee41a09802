// tests/cpu_reference.hpp: the slow but trustworthy fp64 reference the tests use to check the GPU one.
#pragma once

#include <cstdint>
#include <vector>

namespace hg {

/// D[i][j] = sum_k A[i][k] * B[j][k] in fp64; A is M x K and B is N x K, both fp16 bit patterns.
std::vector<double> cpu_reference_gemm(const uint16_t* a_bits, const uint16_t* b_bits, int64_t m, int64_t n,
                                       int64_t k);

}  // namespace hg

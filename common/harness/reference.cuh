// common/harness/reference.cuh: the independent reference GEMM every step is verified against.
//
// A deliberately simple tiled CUDA-core kernel (no tensor cores, no async copies, nothing shared with the
// step kernels): ref[i][j] = sum_k A[i][k]*B[j][k] and mag[i][j] = sum_k |A[i][k]*B[j][k]|, both fp32.
// mag feeds the verifier's error bound. The GPU test gpu/reference checks it against the CPU fp64
// reference of tests/cpu_reference.hpp.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/harness/cli.hpp"

namespace hg {

void reference_gemm(const __half* A, const __half* B, float* ref, float* mag, int m, int n, int k,
                    cudaStream_t stream);

/// Fills an fp16 matrix with init_value(seed, mode, matrix, index) (common/harness/init.hpp) on the GPU.
void fill_matrix(__half* dst, int64_t count, uint64_t seed, InitMode mode, uint64_t matrix, cudaStream_t stream);

/// Writes the NaN poison (common/harness/fp16_host.hpp) into every element, so unwritten outputs fail.
void poison_matrix(__half* dst, int64_t count, cudaStream_t stream);

}  // namespace hg

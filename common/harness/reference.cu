// common/harness/reference.cu: reference GEMM, input fill and output poison kernels (see reference.cuh).
#include "common/harness/reference.cuh"

#include "common/kernel/check.cuh"
#include "common/harness/fp16_host.hpp"
#include "common/harness/init.hpp"

namespace hg {
namespace {

constexpr int kRefTile = 16;  // 16 x 16 outputs per block, K staged through shared memory 16 at a time

// Classic shared-memory tiled GEMM on CUDA cores. Out-of-range rows and K columns are masked, so it runs
// on any shape (the tests use shapes that no step accepts).
__global__ void reference_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                                 float* __restrict__ ref, float* __restrict__ mag, int m, int n, int k) {
  __shared__ float a_tile[kRefTile][kRefTile + 1];  // +1 column: no bank conflicts on the transposed read
  __shared__ float b_tile[kRefTile][kRefTile + 1];
  const int row = blockIdx.y * kRefTile + threadIdx.y;  // i: row of D and of A
  const int col = blockIdx.x * kRefTile + threadIdx.x;  // j: column of D, row of B
  const int b_row = blockIdx.x * kRefTile + threadIdx.y;
  float sum = 0.0f, abs_sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kRefTile) {
    const int kk = k0 + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] = (row < m && kk < k) ? __half2float(A[size_t(row) * k + kk]) : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = (b_row < n && kk < k) ? __half2float(B[size_t(b_row) * k + kk]) : 0.0f;
    __syncthreads();
    for (int t = 0; t < kRefTile; ++t) {
      const float p = a_tile[threadIdx.y][t] * b_tile[threadIdx.x][t];  // exact: fp16*fp16 fits in fp32
      sum += p;
      abs_sum += fabsf(p);
    }
    __syncthreads();
  }
  if (row < m && col < n) {
    ref[size_t(row) * n + col] = sum;
    mag[size_t(row) * n + col] = abs_sum;
  }
}

__global__ void fill_kernel(__half* dst, int64_t count, uint64_t seed, InitMode mode, uint64_t matrix) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = __float2half_rn(init_value(seed, mode, matrix, uint64_t(i)));
}

__global__ void poison_kernel(__half* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = __ushort_as_half(kHalfPoison);
}

unsigned elementwise_blocks(int64_t count) {
  const int64_t blocks = (count + 255) / 256;
  return unsigned(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);  // grid-stride loop covers the rest
}

}  // namespace

void reference_gemm(const __half* A, const __half* B, float* ref, float* mag, int m, int n, int k,
                    cudaStream_t stream) {
  const dim3 block(kRefTile, kRefTile);
  const dim3 grid((n + kRefTile - 1) / kRefTile, (m + kRefTile - 1) / kRefTile);
  reference_kernel<<<grid, block, 0, stream>>>(A, B, ref, mag, m, n, k);
  HG_CUDA_CHECK(cudaGetLastError());
}

void fill_matrix(__half* dst, int64_t count, uint64_t seed, InitMode mode, uint64_t matrix, cudaStream_t stream) {
  fill_kernel<<<elementwise_blocks(count), 256, 0, stream>>>(dst, count, seed, mode, matrix);
  HG_CUDA_CHECK(cudaGetLastError());
}

void poison_matrix(__half* dst, int64_t count, cudaStream_t stream) {
  poison_kernel<<<elementwise_blocks(count), 256, 0, stream>>>(dst, count);
  HG_CUDA_CHECK(cudaGetLastError());
}

}  // namespace hg

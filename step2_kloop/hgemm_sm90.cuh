// ======================================================================================================
// Step 2 - K-loop, Hopper (sm_90a)                                            step2_kloop/hgemm_sm90.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step1_single_tile, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step2_kloop.md.
//
// This kernel does, in order:
//   1. for each K tile i: all 128 threads copy K tile i of A and B into 128B-swizzled shared memory;
//      fence.proxy.async + __syncthreads; the warpgroup issues 2 halves x 4 K steps of wgmma m64n128k16
//      (scale-d is 0 only for the very first one); wgmma.commit_group + wgmma.wait_group 0 before the
//      next iteration's copy may overwrite the shared-memory tiles;
//   2. each thread converts its accumulator fragment to fp16 and writes it to D.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step2_kloop
//   ./build/step2_kloop --k 4096 --init int     # picks this kernel on a compute capability 9.0 GPU
// ======================================================================================================
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/kernel/check.cuh"
#include "common/kernel/descriptors.hpp"
#include "common/kernel/gemm.hpp"
#include "common/kernel/ptx.cuh"

namespace step2::sm90 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int WGMMA_M = 64, WGMMA_K = 16;            // wgmma m64n128k16: 64 rows, 16 of K per instruction
constexpr int kAccFloats = WGMMA_M * BLK_N / hg::kWarpgroupThreads;  // one wgmma's fp32 outputs per thread: 64
constexpr int kThreads = hg::kWarpgroupThreads;     // one warpgroup issues every wgmma

// Shared memory, from the 1024-aligned base: each tile on a 1024-byte boundary, as the 128B swizzle requires. A
// tile is bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not
// address them.
struct Smem {
  alignas(1024) uint8_t A[BLK_M * BLK_K * 2];  // A tile [128 rows][64 K] fp16, 16 KiB
  alignas(1024) uint8_t B[BLK_N * BLK_K * 2];  // B tile [128 rows][64 K] fp16, 16 KiB
};
constexpr int kSmemBytes = sizeof(Smem) + 1024;  // + slack to align the base to 1024

// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
template <hg::Break BREAK = hg::Break::kNone>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ D, int M, int N,
                 int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;

  // [setup]
  // --- Accumulator and operand descriptors (no TMEM, no barrier to set up on Hopper) --------------------
  // acc[h] is the 64 x 128 fp32 accumulator of rows 64h..64h+63, spread over the 128 threads' registers.
  float acc[BLK_M / WGMMA_M][kAccFloats];
  const uint64_t a_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.A));  // K-major, 128B swizzle
  const uint64_t b_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.B));
  // [setup]

  // [kloop]
  // --- K-loop: one 64-wide K tile per iteration, all accumulated into the same registers ----------------
  const int k_tiles = K / BLK_K;
  for (int i = 0; i < k_tiles; ++i) {
    // [kloop]
    // [load]
    // --- Load: all 128 threads copy K tile i of A and B (GMEM -> SMEM), 16-byte vectors, 128B swizzle -----
    // A tile row r is 64 fp16 = 8 chunks of 16 bytes; chunk c of row r goes to swizzled chunk c ^ (r % 8).
    // Consecutive threads take consecutive chunks, so a warp reads 4 full 128-byte rows: coalesced.
#pragma unroll
    for (int c = tid; c < BLK_M * BLK_K / 8; c += kThreads) {
      const int r = c / 8, kc = c % 8;
      const uint4 v = *reinterpret_cast<const uint4*>(A + size_t(r) * K + i * BLK_K + kc * 8);
      *reinterpret_cast<uint4*>(smem.A + hg::swizzle128b_offset(r, kc * 8)) = v;
    }
#pragma unroll
    for (int c = tid; c < BLK_N * BLK_K / 8; c += kThreads) {
      const int r = c / 8, kc = c % 8;
      const uint4 v = *reinterpret_cast<const uint4*>(B + size_t(r) * K + i * BLK_K + kc * 8);
      *reinterpret_cast<uint4*>(smem.B + hg::swizzle128b_offset(r, kc * 8)) = v;
    }
    ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the async proxy (wgmma)
    if constexpr (BREAK != hg::Break::kNoCtaSync) __syncthreads();  // all copies done before the MMA
    // [load]

    // [mma]
    // --- Compute: the warpgroup issues wgmma for both 64-row halves --------------------------------------
    ptx::wgmma_fence();  // registers and SMEM are ready before the asynchronous wgmma reads them
#pragma unroll
    for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
      // The second 64-row half of the A tile starts 64 rows * 128 bytes = 8192 bytes later (8 swizzle atoms).
      const uint64_t a_half = a_desc + (uint64_t(h * WGMMA_M * hg::kSwizzleRowBytes) >> 4);
#pragma unroll
      for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
        // Only the very first K step (i = 0, k = 0) overwrites the accumulator (scale-d = 0); every later
        // one, in this K tile and in all the following ones, adds to it.
        ptx::wgmma_m64n128k16_f16(acc[h], hg::desc_advance_k16(a_half, k), hg::desc_advance_k16(b_desc, k),
                                 i > 0 || k > 0);
      }
    }
    ptx::wgmma_commit_group();   // close the 8 wgmma above into one group
    if constexpr (BREAK != hg::Break::kNoWgmmaWait) ptx::wgmma_wait_group<0>();  // done reading SMEM
    // [mma]
  }
  // --break no-wgmma-wait drops only the K-loop's wait; the accumulator still needs one before it is read.
  if constexpr (BREAK == hg::Break::kNoWgmmaWait) ptx::wgmma_wait_group<0>();

  // [epilogue]
  // --- Writeback: registers -> GMEM (wgmma accumulator fragment layout) -----------------------------------
  // Thread t holds, in acc[h][4j .. 4j+3], columns 8j + 2(t%4) + {0,1} of rows 16(t/32) + (t%32)/4 and +8
  // inside half h.
#pragma unroll
  for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
    const int row = h * WGMMA_M + warp_id * 16 + lane_id / 4;
#pragma unroll
    for (int j = 0; j < BLK_N / 8; ++j) {
      const int col = j * 8 + (lane_id % 4) * 2;
      *reinterpret_cast<__half2*>(D + size_t(row) * N + col) = __floats2half2_rn(acc[h][4 * j], acc[h][4 * j + 1]);
      *reinterpret_cast<__half2*>(D + size_t(row + 8) * N + col) =
          __floats2half2_rn(acc[h][4 * j + 2], acc[h][4 * j + 3]);
    }
  }
  // [epilogue]
#endif
}

/// Host side: a single CTA of 128 threads computes the single 128 x 128 tile, looping over K inside.
template <hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  static_assert(kSmemBytes <= hg::kMaxSmemBytes, "the tiles do not fit in shared memory");
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(1, 1), block(kThreads);
  return [=](cudaStream_t stream) {
    hgemm_kernel<BREAK><<<grid, block, kSmemBytes, stream>>>(g.A, g.B, g.D, g.m, g.n, g.k);
  };
}

}  // namespace step2::sm90

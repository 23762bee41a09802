// ======================================================================================================
// Step 3 - 2D grid, Blackwell (sm_100a)                                      step3_grid/hgemm_sm100.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step2_kloop, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step3_grid.md.
//             Compiles for sm_100a and is checked by the PTX, SASS and CUTLASS-oracle tests; it has not run on
//             a Blackwell GPU (docs/blackwell_checks.md).
//
// This kernel does, in order:
//   1. warp 0 initialises the MMA mbarrier and allocates 128 TMEM columns for the accumulator;
//   2. for each K tile i: all 128 threads copy K tile i of this CTA's rows of A and B
//      into 128B-swizzled shared memory;
//      fence + __syncthreads; ONE elected thread issues four 128x128x16 MMAs (enable_input_d is false only
//      for the very first one) and commits them to the mbarrier; everyone waits for the mbarrier's current
//      phase to complete, then flips its phase bit, because the next wait is for the next phase;
//   3. each thread loads its own accumulator row (TMEM lane = thread) with tcgen05.ld, waits with
//      tcgen05.wait::ld, converts to fp16 and writes its row of this CTA's tile of D;
//   4. the allocating warp frees TMEM after everyone is done reading it.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step3_grid
//   ./build/step3_grid --m 4096 --n 4096 --k 4096 --bench  # compute capability 10.0 runs this kernel
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
#include "common/kernel/watchdog.cuh"

namespace step3::sm100 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int MMA_K = 16;                            // tcgen05.mma kind::f16 consumes K = 16 per instruction
constexpr int kThreads = hg::kWarpgroupThreads;     // one warpgroup: TMEM lane t belongs to thread t
// TMEM columns to allocate (a power of 2, at least 32): the 128 x 128 fp32 accumulator needs 128, one column
// per output column and one lane per row. Taking all 512 would work too, but another CTA on the same SM would
// then wait in tcgen05.alloc until this one frees TMEM, so the SM could run only one CTA at a time.
__device__ constexpr uint32_t kTmemCols = BLK_N;

// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom: MMA (tcgen05.commit) -> mma_bar -> every thread.
struct Smem {
  uint32_t tmem_slot;                           // TMEM base, written by tcgen05.alloc
  uint64_t mma_bar;                             // MMA -> every thread: the MMAs issued so far are done
  alignas(1024) uint8_t A[BLK_M * BLK_K * 2];  // A tile [128 rows][64 K] fp16, 16 KiB
  alignas(1024) uint8_t B[BLK_N * BLK_K * 2];  // B tile [128 rows][64 K] fp16, 16 KiB
};
constexpr int kSmemBytes = sizeof(Smem) + 1024;  // + slack to align the base to 1024

// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
template <hg::Break BREAK = hg::Break::kNone>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ D, int M, int N,
                 int K) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;
  // [tile]
  // This CTA's output tile is D[tile_m0 .. tile_m0+127][tile_n0 .. tile_n0+127]: it reads rows tile_m0.. of A and rows
  // tile_n0.. of B (the rows of B become the columns of D through the transpose).
  const int tile_m0 = blockIdx.x * BLK_M;
  const int tile_n0 = blockIdx.y * BLK_N;
  // [tile]

  // [setup]
  // --- Barrier + TMEM init (warp 0 only) ----------------------------------------------------------------
  if (warp_id == 0) {
    if (lane_id == 0) ptx::mbarrier_init(&smem.mma_bar, 1);     // one arrival completes a phase: the tcgen05.commit
    ptx::tcgen05_alloc(ptx::cta_group_1, &smem.tmem_slot, kTmemCols);  // whole warp; writes the TMEM base to SMEM
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);     // this CTA allocates nothing more
    ptx::tcgen05_fence_before_thread_sync();  // order the allocation before the CTA barrier below
  }
  ptx::fence_proxy_async(ptx::space_shared);                    // the init (generic proxy) for the async proxy, then
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  __syncthreads();                                              // to all threads and the tensor core
  ptx::tcgen05_fence_after_thread_sync();  // read the TMEM base only after the barrier
  const uint32_t tmem_base = smem.tmem_slot;   // lane 0, first allocated column
  uint32_t phase_mma = 0;                  // parity of the mma_bar phase we wait for
  // [setup]

  // [kloop]
  // --- K-loop: one 64-wide K tile per iteration, all accumulated into the same TMEM accumulator ----------
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
      const uint4 v = *reinterpret_cast<const uint4*>(A + size_t(tile_m0 + r) * K + i * BLK_K + kc * 8);
      *reinterpret_cast<uint4*>(smem.A + hg::swizzle128b_offset(r, kc * 8)) = v;
    }
#pragma unroll
    for (int c = tid; c < BLK_N * BLK_K / 8; c += kThreads) {
      const int r = c / 8, kc = c % 8;
      const uint4 v = *reinterpret_cast<const uint4*>(B + size_t(tile_n0 + r) * K + i * BLK_K + kc * 8);
      *reinterpret_cast<uint4*>(smem.B + hg::swizzle128b_offset(r, kc * 8)) = v;
    }
    ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the async proxy (MMA)
    if constexpr (BREAK != hg::Break::kNoCtaSync) __syncthreads();  // all copies done before the MMA
    ptx::tcgen05_fence_after_thread_sync();     // order the MMA issue after that barrier
    // [load]

    // [mma]
    // --- Compute: ONE elected thread issues the MMAs of the whole tile -----------------------------------
    // The MMA is a cooperative hardware operation: a single issue computes all 128 x 128 outputs. If all 128
    // threads issued it, the tile would be computed 128 times.
    if (warp_id == 0) {
      if (ptx::elect_sync()) {
        const uint32_t idesc = hg::sm100_instr_desc_f16(BLK_M, BLK_N);  // fp16 x fp16 -> fp32, 128 x 128
        const uint64_t a_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.A));
        const uint64_t b_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.B));
        for (int k = 0; k < BLK_K / MMA_K; ++k) {
          // Only the very first MMA (i = 0, k = 0) overwrites the accumulator (enable_input_d = false);
          // every later one, in this K tile and in all the following ones, adds to it.
          ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem_base, hg::desc_advance_k16(a_desc, k),
                           hg::desc_advance_k16(b_desc, k), idesc, i > 0 || k > 0);
        }
        ptx::tcgen05_commit(ptx::cta_group_1, &smem.mma_bar);  // arrive on mma_bar once all MMAs above complete
      }
      __syncwarp();  // warp 0 reconverges before the warp-wide (.sync.aligned) tcgen05 instructions below
    }
    // [mma]

    // [wait]
    // --- Wait: the MMAs of K tile i are done once mma_bar leaves phase phase_mma ---------------------------
    ptx::mbarrier_wait_parity(&smem.mma_bar, phase_mma);  // the MMA has read SMEM before the next copy overwrites it
    if constexpr (BREAK != hg::Break::kNoPhaseFlip) phase_mma ^= 1;  // wait on the next phase next time
    ptx::tcgen05_fence_after_thread_sync();  // order the next tcgen05 operations (MMA, TMEM reads) after it
    // [wait]
  }

  // [epilogue]
  // --- Writeback: TMEM -> registers -> GMEM ---------------------------------------------------------------
  // tcgen05.ld 32x32b: warp w may access TMEM lanes 32w..32w+31; lane l of the warp receives lane 32w+l,
  // i.e. thread t gets row t of the accumulator, here 128 consecutive fp32 columns.
  uint32_t acc[BLK_N];  // row (warp_id*32 + lane_id) of the tile, fp32 bit patterns
  ptx::tcgen05_ld_32x32b(acc, hg::tmem_addr(tmem_base, warp_id * 32, 0));
  ptx::tcgen05_wait_ld();  // the registers hold the data only after wait::ld

  __half* d_tile = D + size_t(tile_m0) * N + tile_n0;  // this CTA's tile of D
  if constexpr (BREAK == hg::Break::kSwapTileOffsets) d_tile = D + size_t(tile_n0) * N + tile_m0;  // offsets swapped
  __half* d_row = d_tile + size_t(warp_id * 32 + lane_id) * N;
#pragma unroll
  for (int j = 0; j < BLK_N; j += 8) {  // 8 fp32 -> 8 fp16 = one 16-byte store
    uint4 packed;
    __half2* h2 = reinterpret_cast<__half2*>(&packed);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      h2[e] = __floats2half2_rn(__uint_as_float(acc[j + 2 * e]), __uint_as_float(acc[j + 2 * e + 1]));
    *reinterpret_cast<uint4*>(d_row + j) = packed;
  }
  // [epilogue]

  // [teardown]
  // --- Deallocate TMEM -------------------------------------------------------------------------------------
  ptx::tcgen05_fence_before_thread_sync();  // order our TMEM reads before the barrier
  __syncthreads();                          // nobody reads TMEM after this point
  if (warp_id == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem_base, kTmemCols);  // the allocating warp frees
  // [teardown]
#endif
}

/// Host side: a 2D grid of M/128 x N/128 CTAs of 128 threads, one per output tile.
template <hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  static_assert(kSmemBytes <= hg::kMaxSmemBytes, "the tiles do not fit in shared memory");
  static_assert(offsetof(Smem, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {{offsetof(Smem, mma_bar), 1, "mma_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(g.m / BLK_M, g.n / BLK_N), block(kThreads);
  return [=](cudaStream_t stream) {
    hgemm_kernel<BREAK><<<grid, block, kSmemBytes, stream>>>(g.A, g.B, g.D, g.m, g.n, g.k);
  };
}

}  // namespace step3::sm100

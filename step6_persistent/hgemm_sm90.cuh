// ======================================================================================================
// Step 6 - persistent kernel, Hopper (sm_90a)                             step6_persistent/hgemm_sm90.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step5_pipeline, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step6_persistent.md.
//
// This kernel does, in order:
//   1. thread 0 initialises PIPE_DEPTH TMA barriers (once);
//   2. while the scheduler has a tile for this CTA: the prologue loads the first K tiles into the ring from
//      the running stage on; step 5's K-loop; step 5's epilogue, except that the TMA store is no longer
//      waited for at once: it drains during the next tile's K-loop, and the wait (for its reads of the
//      staging tile) moves to just before the next tile writes that tile;
//   3. before exiting, thread 0 waits for the last tile's store.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step6_persistent
//   ./build/step6_persistent --m 4096 --n 4096 --k 4096 --bench   # compute capability 9.0 runs this kernel
//   ./build/step6_persistent --pipe-depth 3 --bench               # a ring of 3 stages instead of 2
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
#include "common/kernel/scheduler.hpp"
#include "common/kernel/tma.hpp"
#include "common/kernel/watchdog.cuh"

namespace step6::sm90 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int kGroupRows = 8;                        // L2 groups of 8 tile rows (common/kernel/scheduler.hpp)
constexpr int WGMMA_M = 64, WGMMA_K = 16;            // wgmma m64n128k16: 64 rows, 16 of K per instruction
constexpr int kAccFloats = WGMMA_M * BLK_N / hg::kWarpgroupThreads;  // one wgmma's fp32 outputs per thread: 64
constexpr int kThreads = hg::kWarpgroupThreads;     // one warpgroup issues every wgmma

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // one A tile: 16 KiB (a multiple of 1024)
constexpr int kBTileBytes = BLK_N * BLK_K * 2;              // one B tile: 16 KiB
constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: D goes as 2 boxes
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom: TMA -> tma_bar[s] -> every thread (the warpgroup's wgmma reads stage s).
template <int PIPE_DEPTH>
struct Smem {
  uint64_t tma_bar[PIPE_DEPTH];                 // TMA -> every thread: both tiles of stage s have landed
  alignas(1024) uint8_t A[PIPE_DEPTH][kATileBytes];  // A tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][kBTileBytes];  // B tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t D[BLK_N / kDBoxCols][BLK_M * kDBoxCols * 2];  // D tile: 2 boxes [128 rows][64 cols] fp16
};
template <int PIPE_DEPTH>
constexpr int kSmemBytes = sizeof(Smem<PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024
__device__ constexpr uint32_t kTmaBytes = (BLK_M * BLK_K + BLK_N * BLK_K) * 2;  // 32768: one K step, both tiles

// PIPE_DEPTH: stages of the shared-memory ring. 2 is double buffering (the original's choice); 3 and 4 work
// too (--pipe-depth; the tests run all three). Each stage costs 32 KiB of shared memory.
// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
// GROUP_ROWS: tile rows per L2 group. A group taller than the grid walks down one tile column after another,
// step 5's launch order; lab/dips_bench.cu instantiates that to time this step's two changes apart.
template <int PIPE_DEPTH, hg::Break BREAK = hg::Break::kNone, int GROUP_ROWS = kGroupRows>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                 const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem<PIPE_DEPTH>*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;
  // [tile]
  // This persistent CTA's tiles come from the L2-grouped scheduler (groups of 8 tile rows): tile blockIdx.x,
  // then every gridDim.x-th one. The current tile is D[tile_m0 .. tile_m0+127][tile_n0 .. tile_n0+127].
  hg::TileScheduler scheduler(M / BLK_M, N / BLK_N, gridDim.x, blockIdx.x, GROUP_ROWS);
  int tile_m0 = 0, tile_n0 = 0;
  // [tile]

  // [setup]
  // --- Barrier init (thread 0), accumulator and operand descriptors (no TMEM on Hopper) ------------------
  if (tid == 0) {
    for (int s = 0; s < PIPE_DEPTH; ++s)
      ptx::mbarrier_init(&smem.tma_bar[s], 1);  // per stage: one arrival (arrive.expect_tx) plus the bytes
  }
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  __syncthreads();                                                 // to all threads and the TMA engine
  // The pipeline state runs across tiles: set once here, never reset per tile (docs/step6_persistent.md).
  int stage = 0;           // ring stage of the next K tile to consume
  uint32_t phase_tma = 0;  // parity of the tma_bar phase we wait for
  // acc[h] is the 64 x 128 fp32 accumulator of rows 64h..64h+63, spread over the 128 threads' registers.
  float acc[BLK_M / WGMMA_M][kAccFloats];
  const uint64_t a_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.A));  // K-major, 128B swizzle
  const uint64_t b_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.B));

  // One thread loads K tile k_tile of A and B with TMA into ring stage `stage`, completing on tma_bar[stage].
  auto tma_load = [&](int stage, int k_tile) {
    const int32_t a_coords[2] = {k_tile * BLK_K, tile_m0};  // innermost (K) first
    const int32_t b_coords[2] = {k_tile * BLK_K, tile_n0};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.A[stage], &tmap_a, a_coords,
                              &smem.tma_bar[stage]);
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.B[stage], &tmap_b, b_coords,
                              &smem.tma_bar[stage]);
    // Arrive once and announce the bytes: the phase completes when the arrival AND 32768 bytes are in.
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.tma_bar[stage],
                                   BREAK == hg::Break::kShortExpectTx ? kTmaBytes - 2048 : kTmaBytes);
  };
  // [setup]

  // [persistent]
  // --- Persistent loop: this CTA computes its scheduled tiles one after the other -----------------------
  while (scheduler.valid()) {
    tile_m0 = scheduler.current().m * BLK_M;
    tile_n0 = scheduler.current().n * BLK_N;
    // --break reset-phase-per-tile: reset the pipeline state at every tile; it then matches the barriers only
    // if k_tiles % (2*PIPE_DEPTH) == 0.
    if constexpr (BREAK == hg::Break::kResetPhasePerTile) stage = 0, phase_tma = 0;
    // [persistent]

    // [prologue]
    // --- Prologue: ONE thread fills the ring, up to PIPE_DEPTH K tiles ahead, from the running stage ------
    if (tid == 0) {
      for (int s = 0; s < PIPE_DEPTH && s < K / BLK_K; ++s) tma_load((stage + s) % PIPE_DEPTH, s);
    }
    // [prologue]

    // [kloop]
    // --- K-loop: one 64-wide K tile per iteration, all accumulated into the same registers ----------------
    const int k_tiles = K / BLK_K;
    for (int i = 0; i < k_tiles; ++i) {
      // [kloop]
      // [load]
      // --- Load: wait for K tile i in the running ring stage (prefetched PIPE_DEPTH iterations ago) ----------
      ptx::mbarrier_wait_parity(&smem.tma_bar[stage], phase_tma);  // both tiles of the stage have landed
      // [load]

      // [mma]
      // --- Compute: the warpgroup issues wgmma for both 64-row halves --------------------------------------
      ptx::wgmma_fence();  // registers and SMEM are ready before the asynchronous wgmma reads them
#pragma unroll
      for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
        // The second 64-row half of the A tile starts 64 rows * 128 bytes = 8192 bytes later (8 swizzle atoms).
        const uint64_t a_half = a_desc + (uint64_t(stage * kATileBytes + h * WGMMA_M * hg::kSwizzleRowBytes) >> 4);
#pragma unroll
        for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
          // Only the very first K step (i = 0, k = 0) overwrites the accumulator (scale-d = 0); every later
          // one, in this K tile and in all the following ones, adds to it.
          const uint64_t b_stage = b_desc + (uint64_t(stage * kBTileBytes) >> 4);
          ptx::wgmma_m64n128k16_f16(acc[h], hg::desc_advance_k16(a_half, k), hg::desc_advance_k16(b_stage, k),
                                   i > 0 || k > 0);
        }
      }
      ptx::wgmma_commit_group();   // close the 8 wgmma above into one group
      if constexpr (BREAK != hg::Break::kNoWgmmaWait) ptx::wgmma_wait_group<0>();  // done reading the stage

      // Refill the stage just consumed with the K tile PIPE_DEPTH ahead; it loads while later stages compute.
      if (tid == 0 && i + PIPE_DEPTH < k_tiles) tma_load(stage, i + PIPE_DEPTH);
      // Advance the running ring position; each stage's barrier completes a phase once per trip around
      // the ring, so phase_tma flips when the ring wraps, whichever tile we are in.
      if (++stage == PIPE_DEPTH) {
        stage = 0;
        if constexpr (BREAK != hg::Break::kNoTmaPhaseFlip) phase_tma ^= 1;
      }
      // [mma]
    }
    // --break no-wgmma-wait drops only the K-loop's wait; the accumulator still needs one before it is read.
    if constexpr (BREAK == hg::Break::kNoWgmmaWait) ptx::wgmma_wait_group<0>();

    // [epilogue]
    // --- Writeback: registers -> SMEM -> (TMA store) -> GMEM (wgmma accumulator fragment layout) ----------
    // Thread t holds, in acc[h][4j .. 4j+3], columns 8j + 2(t%4) + {0,1} of rows 16(t/32) + (t%32)/4 and +8
    // inside half h. They go into a staging tile in the 128B swizzle the TMA store expects.
    // The previous tile's store must have finished reading smem.D before this tile overwrites it.
    if (tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
    __syncthreads();  // nobody writes smem.D before that wait
#pragma unroll
    for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
      const int row = h * WGMMA_M + warp_id * 16 + lane_id / 4;
#pragma unroll
      for (int j = 0; j < BLK_N / 8; ++j) {
        const int col = j * 8 + (lane_id % 4) * 2;
        uint8_t* d_half = smem.D[col / kDBoxCols];  // which 64-column box
        *reinterpret_cast<__half2*>(d_half + hg::swizzle128b_offset(row, col % kDBoxCols)) =
            __floats2half2_rn(acc[h][4 * j], acc[h][4 * j + 1]);
        *reinterpret_cast<__half2*>(d_half + hg::swizzle128b_offset(row + 8, col % kDBoxCols)) =
            __floats2half2_rn(acc[h][4 * j + 2], acc[h][4 * j + 3]);
      }
    }
    ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
    __syncthreads();                            // the whole tile is staged before the store is issued

    // SMEM -> GMEM: one thread stores the tile as two 64-column boxes, as one bulk-async group.
    if (tid == 0) {
      for (int box = 0; box < BLK_N / kDBoxCols; ++box) {
        const int32_t d_coords[2] = {tile_n0 + box * kDBoxCols, tile_m0};  // innermost (columns) first
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_d, d_coords,
                                  smem.D[box]);
      }
      ptx::cp_async_bulk_commit_group();  // close the two stores into one bulk group; it drains while the
    }                                     // next tile's K-loop runs (waited for before smem.D is written again)
    // [epilogue]

    scheduler.next();  // the next tile of this CTA: blockIdx.x + gridDim.x * (tiles done)
  }
  if (tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // last store

#endif
}

/// Host side: a persistent 1D grid with as many CTAs as can be resident at once (SM count times CTAs per SM
/// from the occupancy API), and the three tensor maps of step 4.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  using S = Smem<PIPE_DEPTH>;
  static_assert(kSmemBytes<PIPE_DEPTH> <= hg::kMaxSmemBytes, "this ring depth does not fit in shared memory");
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {{offsetof(S, tma_bar), PIPE_DEPTH, "tma_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<PIPE_DEPTH, BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kSmemBytes<PIPE_DEPTH>));
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BLK_M, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, BLK_N, BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols);
  int device = 0, sms = 0, per_sm = 0;
  HG_CUDA_CHECK(cudaGetDevice(&device));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));  // 132 on an H200
  HG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hgemm_kernel<PIPE_DEPTH, BREAK>, kThreads,
                                                              kSmemBytes<PIPE_DEPTH>));
  if (per_sm < 1) throw hg::CudaError("step6 sm90 kernel cannot be resident on this GPU (occupancy 0)");
  const dim3 grid(sms * per_sm), block(kThreads);
  return [=](cudaStream_t stream) {
    hgemm_kernel<PIPE_DEPTH, BREAK>
        <<<grid, block, kSmemBytes<PIPE_DEPTH>, stream>>>(tmap_a, tmap_b, tmap_d, g.m, g.n, g.k);
  };
}

}  // namespace step6::sm90

// ======================================================================================================
// Step 5 - software pipeline, Blackwell (sm_100a)                         step5_pipeline/hgemm_sm100.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step4_tma, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step5_pipeline.md.
//             Compiles for sm_100a and is checked by the PTX, SASS and CUTLASS-oracle tests; it has not run on
//             a Blackwell GPU (docs/blackwell_checks.md).
//
// This kernel does, in order:
//   1. warp 0 initialises PIPE_DEPTH TMA barriers and mma_bar, and allocates 128 TMEM columns;
//   2. prologue: thread 0 issues the TMA loads of the first min(PIPE_DEPTH, K tiles) K tiles, one per stage;
//   3. warp 0 alone runs the K-loop; for each K tile i, stage = i % PIPE_DEPTH: warp 0 waits on
//      tma_bar[stage]; ONE elected thread issues the four MMAs on that stage and commits them to mma_bar;
//      warp 0 waits on mma_bar (phase_mma flips); thread 0 refills the stage with K tile i + PIPE_DEPTH;
//      phase_tma flips when the ring wraps;
//   4. a CTA barrier tells warps 1-3 that the accumulator is final; the epilogue of step 4: TMEM ->
//      registers -> swizzled SMEM tile -> TMA store, waited for;
//   5. the allocating warp frees TMEM after everyone is done reading it.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step5_pipeline
//   ./build/step5_pipeline --m 4096 --n 4096 --k 4096 --bench   # compute capability 10.0 runs this kernel
//   ./build/step5_pipeline --pipe-depth 3 --bench               # a ring of 3 stages instead of 2
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
#include "common/kernel/tma.hpp"
#include "common/kernel/watchdog.cuh"

namespace step5::sm100 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int MMA_K = 16;                            // tcgen05.mma kind::f16 consumes K = 16 per instruction
constexpr int kThreads = hg::kWarpgroupThreads;     // one warpgroup: TMEM lane t belongs to thread t
// TMEM columns to allocate (a power of 2, at least 32): the 128 x 128 fp32 accumulator needs 128, one column
// per output column and one lane per row. Taking all 512 would work too, but another CTA on the same SM would
// then wait in tcgen05.alloc until this one frees TMEM, so the SM could run only one CTA at a time.
__device__ constexpr uint32_t kTmemCols = BLK_N;

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // one A tile: 16 KiB (a multiple of 1024)
constexpr int kBTileBytes = BLK_N * BLK_K * 2;              // one B tile: 16 KiB
constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: D goes as 2 boxes
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom: TMA -> tma_bar[s] -> warp 0, which issues the MMAs;
//                   MMA (tcgen05.commit) -> mma_bar -> warp 0.
template <int PIPE_DEPTH>
struct Smem {
  uint32_t tmem_slot;                           // TMEM base, written by tcgen05.alloc
  uint64_t mma_bar;                             // MMA -> warp 0: the MMAs issued so far are done
  uint64_t tma_bar[PIPE_DEPTH];                 // TMA -> warp 0: both tiles of stage s have landed
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
template <int PIPE_DEPTH, hg::Break BREAK = hg::Break::kNone>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                 const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem<PIPE_DEPTH>*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

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
    if (lane_id == 0) {
      ptx::mbarrier_init(&smem.mma_bar, 1);  // one arrival completes a phase: the tcgen05.commit
      for (int s = 0; s < PIPE_DEPTH; ++s)
        ptx::mbarrier_init(&smem.tma_bar[s], 1);  // per stage: one arrival (arrive.expect_tx) plus the bytes
    }
    ptx::tcgen05_alloc(ptx::cta_group_1, &smem.tmem_slot, kTmemCols);  // whole warp; writes the TMEM base to SMEM
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);     // this CTA allocates nothing more
    ptx::tcgen05_fence_before_thread_sync();  // order the allocation before the CTA barrier below
  }
  ptx::fence_proxy_async(ptx::space_shared);                    // the init (generic proxy) for the async proxy, then
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  __syncthreads();                                              // to all threads and the tensor core
  ptx::tcgen05_fence_after_thread_sync();  // read the TMEM base only after the barrier
  const uint32_t tmem_base = smem.tmem_slot;   // lane 0, first allocated column
  uint32_t phase_tma = 0;                  // parity of the tma_bar phase we wait for
  uint32_t phase_mma = 0;                  // parity of the mma_bar phase we wait for

  // One thread loads K tile k_tile of A and B with TMA into ring stage `stage`, completing on tma_bar[stage].
  // One issuer: with elect.sync in every warp, four threads would each issue the copies.
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

  // [prologue]
  // --- Prologue: ONE thread fills the ring, up to PIPE_DEPTH K tiles ahead (fewer if K is short) ---------
  if (tid == 0) {
    for (int s = 0; s < PIPE_DEPTH && s < K / BLK_K; ++s) tma_load(s, s);
  }
  // [prologue]

  // [kloop]
  // --- K-loop, run by warp 0 alone: thread 0 loads, one elected lane issues the MMAs --------------------
  // Only the warp that issues waits on tma_bar and mma_bar. A warp that waited on every phase with no CTA
  // barrier in the loop could stall through a whole iteration, find the same parity again, and fall two
  // phases behind: try_wait.parity tells the current phase only from the one before it.
  const int k_tiles = K / BLK_K;
  if (warp_id == 0) {
    for (int i = 0; i < k_tiles; ++i) {
      // [kloop]
      // [load]
      // --- Load: wait for K tile i in its ring stage (prefetched PIPE_DEPTH iterations ago) ------------------
      const int stage = i % PIPE_DEPTH;
      ptx::mbarrier_wait_parity(&smem.tma_bar[stage], phase_tma);  // both tiles of the stage have landed
      ptx::tcgen05_fence_after_thread_sync();        // order the MMA issue after that wait
      // [load]

      // [mma]
      // --- Compute: ONE elected thread issues the MMAs of the whole tile -----------------------------------
      // The MMA is a cooperative hardware operation: a single issue computes all 128 x 128 outputs. If all 128
      // threads issued it, the tile would be computed 128 times.
      if (ptx::elect_sync()) {
        const uint32_t idesc = hg::sm100_instr_desc_f16(BLK_M, BLK_N);  // fp16 x fp16 -> fp32, 128 x 128
        const uint64_t a_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.A[stage]));
        const uint64_t b_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.B[stage]));
        for (int k = 0; k < BLK_K / MMA_K; ++k) {
          // Only the very first MMA (i = 0, k = 0) overwrites the accumulator (enable_input_d = false);
          // every later one, in this K tile and in all the following ones, adds to it.
          ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem_base, hg::desc_advance_k16(a_desc, k),
                           hg::desc_advance_k16(b_desc, k), idesc, i > 0 || k > 0);
        }
        ptx::tcgen05_commit(ptx::cta_group_1, &smem.mma_bar);  // arrive on mma_bar once all MMAs above complete
      }
      __syncwarp();  // warp 0 reconverges before the warp-wide (.sync.aligned) tcgen05 instructions below
      // [mma]

      // [wait]
      // --- Wait: the MMAs of K tile i are done once mma_bar leaves phase phase_mma ---------------------------
      ptx::mbarrier_wait_parity(&smem.mma_bar, phase_mma);  // the MMA has read the stage before TMA refills it
      if constexpr (BREAK != hg::Break::kNoPhaseFlip) phase_mma ^= 1;  // wait on the next phase next time
      ptx::tcgen05_fence_after_thread_sync();  // order the next tcgen05 operations (MMA, TMEM reads) after it

      // Refill the stage just consumed with the K tile PIPE_DEPTH ahead; it loads while later stages compute.
      if (tid == 0 && i + PIPE_DEPTH < k_tiles) tma_load(stage, i + PIPE_DEPTH);
      // Each stage's barrier completes a phase once per trip around the ring: flip when the ring wraps.
      if (stage == PIPE_DEPTH - 1 && BREAK != hg::Break::kNoTmaPhaseFlip) phase_tma ^= 1;
      // [wait]
    }
  }
  // --- The accumulator is final: warp 0 saw the last MMA complete, the CTA barrier tells everyone ---------
  ptx::tcgen05_fence_before_thread_sync();  // order warp 0's view of the finished MMAs before the barrier
  __syncthreads();                          // warps 1-3 wait here for the whole K-loop
  ptx::tcgen05_fence_after_thread_sync();   // order the TMEM reads below after the barrier

  // [epilogue]
  // --- Writeback: TMEM -> registers -> SMEM -> (TMA store) -> GMEM ---------------------------------------
  // tcgen05.ld 32x32b: warp w may access TMEM lanes 32w..32w+31; lane l of the warp receives lane 32w+l,
  // i.e. thread t gets row t of the accumulator, here 128 consecutive fp32 columns.
  uint32_t acc[BLK_N];  // row (warp_id*32 + lane_id) of the tile, fp32 bit patterns
  ptx::tcgen05_ld_32x32b(acc, hg::tmem_addr(tmem_base, warp_id * 32, 0));
  ptx::tcgen05_wait_ld();  // the registers hold the data only after wait::ld

  __syncthreads();  // as the original: every warp has its rows in registers before the staging tile is written

  // Registers -> SMEM staging tile, in the 128B swizzle the TMA store expects; thread t writes row t.
  const int row = warp_id * 32 + lane_id;
#pragma unroll
  for (int j = 0; j < BLK_N; j += 8) {  // 8 fp32 -> 8 fp16 = one 16-byte store
    uint4 packed;
    __half2* h2 = reinterpret_cast<__half2*>(&packed);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      h2[e] = __floats2half2_rn(__uint_as_float(acc[j + 2 * e]), __uint_as_float(acc[j + 2 * e + 1]));
    uint8_t* d_half = smem.D[j / kDBoxCols];  // which 64-column box
    *reinterpret_cast<uint4*>(d_half + hg::swizzle128b_offset(row, j % kDBoxCols)) = packed;
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
    ptx::cp_async_bulk_commit_group();                // close the two stores into one bulk group
    if constexpr (BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // smem.D free
  }
  __syncthreads();  // nobody touches smem.D (or exits) before the store is done with it
  // [epilogue]

  // [teardown]
  // --- Deallocate TMEM -------------------------------------------------------------------------------------
  ptx::tcgen05_fence_before_thread_sync();  // order our TMEM reads before the barrier
  __syncthreads();                          // nobody reads TMEM after this point
  if (warp_id == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem_base, kTmemCols);  // the allocating warp frees
  // [teardown]
#endif
}

/// Host side: a 2D grid of M/128 x N/128 CTAs of 128 threads, one per output tile, and the three tensor
/// maps: A and B in boxes of 128 rows x 64 K, D in boxes of 128 rows x 64 columns, all 128B-swizzled.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  using S = Smem<PIPE_DEPTH>;
  static_assert(kSmemBytes<PIPE_DEPTH> <= hg::kMaxSmemBytes, "this ring depth does not fit in shared memory");
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {
      {offsetof(S, mma_bar), 1, "mma_bar"}, {offsetof(S, tma_bar), PIPE_DEPTH, "tma_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<PIPE_DEPTH, BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kSmemBytes<PIPE_DEPTH>));
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BLK_M, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, BLK_N, BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols);
  const dim3 grid(g.m / BLK_M, g.n / BLK_N), block(kThreads);
  return [=](cudaStream_t stream) {
    hgemm_kernel<PIPE_DEPTH, BREAK>
        <<<grid, block, kSmemBytes<PIPE_DEPTH>, stream>>>(tmap_a, tmap_b, tmap_d, g.m, g.n, g.k);
  };
}

}  // namespace step5::sm100

// ======================================================================================================
// Step 7 - warp specialization, Blackwell (sm_100a)                 step7_warp_specialized/hgemm_sm100.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step6_persistent, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step7_warp_specialized.md.
//             Compiles for sm_100a and is checked by the PTX, SASS and CUTLASS-oracle tests; it has not run on
//             a Blackwell GPU (docs/blackwell_checks.md).
//
// This kernel does, in order:
//   1. warp 0 allocates two TMEM accumulators (2 x 128 columns); thread 0 initialises one barrier per job:
//      per stage "full" (TMA -> MMA) and "empty" (MMA -> TMA), per accumulator "full" (MMA -> epilogue) and
//      "empty" (epilogue -> MMA);
//   2. the CTA splits into roles that each walk all of this CTA's tiles in step 6's order:
//      - warp 7, the TMA producer (one elected thread): waits for a stage to be empty, loads a K tile into it;
//        after its last load it waits for every stage's last commit (the drain);
//      - warp 4, the MMA issuer (one elected thread): waits for an accumulator to be empty and each stage to be
//        full, issues the MMAs, frees each stage with a tcgen05.commit, and with one more commit after the
//        tile's last MMA tells the epilogue that the accumulator is full;
//      - warps 0-3, the epilogue warpgroup: wait for an accumulator to be full, read it (warp w: TMEM lanes
//        32w..32w+31), free it at once, and store the tile through SMEM with TMA. Tiles alternate between the
//        two accumulators, so the epilogue of one tile runs while the MMAs of the next fill the other;
//   3. after a CTA barrier, warp 0 frees TMEM.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step7_warp_specialized
//   ./build/step7_warp_specialized --m 4096 --n 4096 --k 4096 --bench   # compute capability 10.0 runs this
//   ./build/step7_warp_specialized --pipe-depth 5 --bench               # a ring of 5 stages
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

namespace step7::sm100 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int kGroupRows = 8;                        // L2 groups of 8 tile rows (common/kernel/scheduler.hpp)
constexpr int MMA_K = 16;                            // tcgen05.mma kind::f16 consumes K = 16 per instruction
constexpr int kThreads = 2 * hg::kWarpgroupThreads;  // two warpgroups: the epilogue, and the issuing warps
constexpr int kMmaWarp = 4, kProducerWarp = kMmaWarp + 3;  // warps 0 and 3 of warpgroup 1; warpgroup 0: the epilogue
__device__ constexpr uint32_t kEpilogueThreads = hg::kWarpgroupThreads;  // warpgroup 0: thread t reads TMEM lane t
constexpr int kAccs = 2;                             // TMEM accumulators: MMA fills one, epilogue drains the other
// TMEM columns to allocate (a power of 2, at least 32): two 128 x 128 fp32 accumulators, 128 columns each.
__device__ constexpr uint32_t kTmemCols = kAccs * BLK_N;
constexpr uint32_t kEpilogueBar = 1;  // CTA barrier id the epilogue warpgroup syncs its 128 threads on

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // one A tile: 16 KiB (a multiple of 1024)
constexpr int kBTileBytes = BLK_N * BLK_K * 2;              // one B tile: 16 KiB
constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: D goes as 2 boxes
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom:
//   producer -> full_bar[s] -> MMA -> empty_bar[s] -> producer               (the ring of stages)
//   MMA -> acc_full_bar[a] -> epilogue -> acc_empty_bar[a] -> MMA            (the TMEM accumulators)
template <int PIPE_DEPTH>
struct Smem {
  uint32_t tmem_slot;                           // TMEM base, written by tcgen05.alloc
  uint64_t acc_full_bar[kAccs];                 // MMA -> epilogue: accumulator a is final
  uint64_t acc_empty_bar[kAccs];                // epilogue -> MMA: accumulator a has been read
  uint64_t full_bar[PIPE_DEPTH];                // TMA -> MMA: both tiles of stage s have landed
  uint64_t empty_bar[PIPE_DEPTH];               // MMA -> TMA: the MMAs have read stage s
  alignas(1024) uint8_t A[PIPE_DEPTH][kATileBytes];  // A tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][kBTileBytes];  // B tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t D[BLK_N / kDBoxCols][BLK_M * kDBoxCols * 2];  // D tile: 2 boxes [128 rows][64 cols] fp16
};
template <int PIPE_DEPTH>
constexpr int kSmemBytes = sizeof(Smem<PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024
__device__ constexpr uint32_t kTmaBytes = (BLK_M * BLK_K + BLK_N * BLK_K) * 2;  // 32768: one K step, both tiles

// PIPE_DEPTH: stages of the shared-memory ring (--pipe-depth). Each stage costs 32 KiB of shared memory.
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
  // This persistent CTA's tiles come from step 6's L2-grouped scheduler: tile blockIdx.x, then every
  // gridDim.x-th one. Every role walks them in the same order; the current tile is D[tile_m0..+127][tile_n0..+127].
  const int m_tiles = M / BLK_M, n_tiles = N / BLK_N, k_tiles = K / BLK_K;
  hg::TileScheduler scheduler(m_tiles, n_tiles, gridDim.x, blockIdx.x, kGroupRows);
  int tile_m0 = 0, tile_n0 = 0;
  // [tile]

  // [setup]
  // --- Barrier + TMEM init (warp 0 only): one job per barrier ----------------------------------------------
  if (warp_id == 0) {
    if (lane_id == 0) {
      for (int s = 0; s < PIPE_DEPTH; ++s) {
        ptx::mbarrier_init(&smem.full_bar[s], 1);   // the producer's arrive.expect_tx plus the bytes
        ptx::mbarrier_init(&smem.empty_bar[s], 1);  // one tcgen05.commit: the MMAs that read the stage are done
      }
      for (int a = 0; a < kAccs; ++a) {
        ptx::mbarrier_init(&smem.acc_full_bar[a], 1);                  // one tcgen05.commit after a tile's last MMA
        ptx::mbarrier_init(&smem.acc_empty_bar[a], kEpilogueThreads);  // every epilogue thread has read its row
      }
    }
    ptx::tcgen05_alloc(ptx::cta_group_1, &smem.tmem_slot, kTmemCols);  // whole warp; writes the TMEM base to SMEM
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);     // this CTA allocates nothing more
    ptx::tcgen05_fence_before_thread_sync();  // order the allocation before the CTA barrier below
  }
  ptx::fence_proxy_async(ptx::space_shared);                    // the init (generic proxy) for the async proxy, then
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  __syncthreads();                                              // to all threads and the tensor core
  ptx::tcgen05_fence_after_thread_sync();  // read the TMEM base only after the barrier
  const uint32_t tmem_base = smem.tmem_slot;   // lane 0, first allocated column; accumulator a starts at column 128a
  // [setup]

  // [roles]
  if (warp_id == kProducerWarp) {
    // === TMA producer: one elected thread =====================================================================
    if (ptx::elect_sync()) {
      // Ring position: K tiles this CTA has loaded so far, over all its tiles. Stage and phase follow from it.
      uint32_t ring_pos = 0;
      for (; scheduler.valid(); scheduler.next()) {
        tile_m0 = scheduler.current().m * BLK_M;
        tile_n0 = scheduler.current().n * BLK_N;
        for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;  // flips each time the ring wraps
          // [produce]
          // The MMAs that read this stage one trip ago must be done. A fresh barrier counts the phase before
          // its first (parity 1) as complete, so the first trip around the ring does not wait.
          if constexpr (BREAK != hg::Break::kNoEmptyWait) ptx::mbarrier_wait_parity(&smem.empty_bar[stage], phase ^ 1);
          const int32_t a_coords[2] = {i * BLK_K, tile_m0};  // innermost (K) first
          const int32_t b_coords[2] = {i * BLK_K, tile_n0};
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.A[stage], &tmap_a,
                                    a_coords, &smem.full_bar[stage]);
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.B[stage], &tmap_b,
                                    b_coords, &smem.full_bar[stage]);
          // Arrive once and announce the bytes: the phase completes when the arrival AND 32768 bytes are in.
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[stage],
                                         kTmaBytes);
          // [produce]
        }
      }
      // [drain]
      // Drain the ring before leaving: wait for the last commit on every stage, the wait a load of PIPE_DEPTH
      // more K tiles would make. A commit's arrival is made by the tensor core once its MMAs are done, with no
      // order between commits and no thread barrier below covering it; this CTA must not exit (and its shared
      // memory go to the next CTA) while one may still land. A stage never used passes at once (fresh barrier).
      for (int s = 0; s < PIPE_DEPTH; ++s, ++ring_pos)
        ptx::mbarrier_wait_parity(&smem.empty_bar[ring_pos % PIPE_DEPTH], ((ring_pos / PIPE_DEPTH) & 1) ^ 1);
      // [drain]
    }
    __syncwarp();  // the warp reconverges before the CTA barrier at the end
  } else if (warp_id == kMmaWarp) {
    // === MMA issuer: one elected thread =======================================================================
    // The MMA is a cooperative hardware operation: one thread's issue computes all 128 x 128 outputs.
    if (ptx::elect_sync()) {
      const uint32_t idesc = hg::sm100_instr_desc_f16(BLK_M, BLK_N);  // fp16 x fp16 -> fp32, 128 x 128
      uint32_t ring_pos = 0;                                          // ring position, as the producer's
      uint32_t tile_no = 0;    // tiles of this CTA so far: accumulator tile_no % 2, used for the tile_no/2-th time
      for (; scheduler.valid(); scheduler.next(), ++tile_no) {
        const int acc = tile_no % kAccs;
        const uint32_t acc_phase = (tile_no / kAccs) & 1;
        // [mma]
        // The epilogue must have read this accumulator's previous tile (fresh: the first two tiles pass).
        if constexpr (BREAK != hg::Break::kNoAccEmptyWait)
          ptx::mbarrier_wait_parity(&smem.acc_empty_bar[acc], acc_phase ^ 1);
        ptx::tcgen05_fence_after_thread_sync();  // order the MMAs below after the epilogue's TMEM reads
        const uint32_t tmem_acc = tmem_base + acc * BLK_N;  // column offset of this accumulator (lane 0)
        for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;
          ptx::mbarrier_wait_parity(&smem.full_bar[stage], phase);  // both tiles of the stage have landed
          ptx::tcgen05_fence_after_thread_sync();               // order the MMA issue after that wait
          const uint64_t a_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.A[stage]));
          const uint64_t b_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.B[stage]));
          for (int k = 0; k < BLK_K / MMA_K; ++k) {
            // The tile's first MMA (i = 0, k = 0) overwrites the accumulator (enable_input_d = false).
            ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem_acc, hg::desc_advance_k16(a_desc, k),
                             hg::desc_advance_k16(b_desc, k), idesc, i > 0 || k > 0);
          }
          ptx::tcgen05_commit(ptx::cta_group_1, &smem.empty_bar[stage]);  // the stage is free once these MMAs are done
        }
        ptx::tcgen05_commit(ptx::cta_group_1, &smem.acc_full_bar[acc]);  // the accumulator is full once ALL are done
        // [mma]
      }
    }
    __syncwarp();  // the warp reconverges before the CTA barrier at the end
  } else if (warp_id < 4) {
    // === Epilogue warpgroup (warps 0-3) =======================================================================
    uint32_t tile_no = 0;
    for (; scheduler.valid(); scheduler.next(), ++tile_no) {
      tile_m0 = scheduler.current().m * BLK_M;
      tile_n0 = scheduler.current().n * BLK_N;
      const int acc = tile_no % kAccs;
      const uint32_t acc_phase = (tile_no / kAccs) & 1;
      // [epilogue]
      // --- Wait for the accumulator, read it, and give it back to the MMA warp before the slow part --------
      ptx::mbarrier_wait_parity(&smem.acc_full_bar[acc], acc_phase);  // the tile's last MMA has completed
      ptx::tcgen05_fence_after_thread_sync();  // order the TMEM reads below after that wait
      // tcgen05.ld 32x32b: warp w may access TMEM lanes 32(w%4)..+31; lane l of the warp receives lane
      // 32w+l, i.e. thread t gets row t of the accumulator, here 128 consecutive fp32 columns.
      uint32_t acc_regs[BLK_N];  // row (warp_id*32 + lane_id) of the tile, fp32 bit patterns
      ptx::tcgen05_ld_32x32b(acc_regs, hg::tmem_addr(tmem_base, warp_id * 32, acc * BLK_N));
      ptx::tcgen05_wait_ld();                    // the registers hold the data only after wait::ld
      ptx::tcgen05_fence_before_thread_sync();   // order those TMEM reads before the arrival below
      ptx::mbarrier_arrive(&smem.acc_empty_bar[acc]);  // this thread's row is read: the MMAs may overwrite it

      // The previous tile's store must have finished reading smem.D before this tile overwrites it.
      if (tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      ptx::named_barrier_sync(kEpilogueBar, kEpilogueThreads);  // nobody writes smem.D before that wait

      // Registers -> SMEM staging tile, in the 128B swizzle the TMA store expects; thread t writes row t.
      const int row = warp_id * 32 + lane_id;
#pragma unroll
      for (int j = 0; j < BLK_N; j += 8) {  // 8 fp32 -> 8 fp16 = one 16-byte store
        uint4 packed;
        __half2* h2 = reinterpret_cast<__half2*>(&packed);
#pragma unroll
        for (int e = 0; e < 4; ++e)
          h2[e] = __floats2half2_rn(__uint_as_float(acc_regs[j + 2 * e]), __uint_as_float(acc_regs[j + 2 * e + 1]));
        uint8_t* d_half = smem.D[j / kDBoxCols];  // which 64-column box
        *reinterpret_cast<uint4*>(d_half + hg::swizzle128b_offset(row, j % kDBoxCols)) = packed;
      }
      ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
      ptx::named_barrier_sync(kEpilogueBar, kEpilogueThreads);  // the whole tile is staged before the store

      // SMEM -> GMEM: one thread stores the tile as two 64-column boxes, as one bulk-async group.
      if (tid == 0) {
        for (int box = 0; box < BLK_N / kDBoxCols; ++box) {
          const int32_t d_coords[2] = {tile_n0 + box * kDBoxCols, tile_m0};  // innermost (columns) first
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_d, d_coords,
                                    smem.D[box]);
        }
        ptx::cp_async_bulk_commit_group();  // drains while the next accumulator fills
      }
      // [epilogue]
    }
    if (tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // last
  }
  // [roles]

  // [teardown]
  // --- Deallocate TMEM -------------------------------------------------------------------------------------
  // Every MMA has completed (the epilogue waited for each tile's acc_full), every commit has landed (the
  // producer's drain) and every TMEM read is done.
  ptx::tcgen05_fence_before_thread_sync();  // order our TMEM reads before the barrier
  __syncthreads();                          // all roles are done with TMEM
  ptx::tcgen05_fence_after_thread_sync();   // order the dealloc after the barrier
  if (warp_id == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem_base, kTmemCols);  // the allocating warp frees
  // [teardown]
#endif
}

/// Host side: a persistent 1D grid with as many CTAs as can be resident at once (SM count times CTAs per SM
/// from the occupancy API), and the three tensor maps of step 4.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  using S = Smem<PIPE_DEPTH>;
  static_assert(kSmemBytes<PIPE_DEPTH> <= hg::kMaxSmemBytes, "this ring depth does not fit in shared memory");
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {
      {offsetof(S, acc_full_bar), kAccs, "acc_full_bar"}, {offsetof(S, acc_empty_bar), kAccs, "acc_empty_bar"},
      {offsetof(S, full_bar), PIPE_DEPTH, "full_bar"}, {offsetof(S, empty_bar), PIPE_DEPTH, "empty_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<PIPE_DEPTH, BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kSmemBytes<PIPE_DEPTH>));
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BLK_M, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, BLK_N, BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols);
  int device = 0, sms = 0, per_sm = 0;
  HG_CUDA_CHECK(cudaGetDevice(&device));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));  // 148 on a B200
  HG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hgemm_kernel<PIPE_DEPTH, BREAK>, kThreads,
                                                              kSmemBytes<PIPE_DEPTH>));
  if (per_sm < 1) throw hg::CudaError("step7 sm100 kernel cannot be resident on this GPU (occupancy 0)");
  const dim3 grid(sms * per_sm), block(kThreads);
  return [=](cudaStream_t stream) {
    hgemm_kernel<PIPE_DEPTH, BREAK>
        <<<grid, block, kSmemBytes<PIPE_DEPTH>, stream>>>(tmap_a, tmap_b, tmap_d, g.m, g.n, g.k);
  };
}

}  // namespace step7::sm100

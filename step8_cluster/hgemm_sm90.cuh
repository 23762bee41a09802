// ======================================================================================================
// Step 8 - a pair of CTAs shares its operands, Hopper (sm_90a)                step8_cluster/hgemm_sm90.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step7_warp_specialized, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step8_cluster.md.
//
// This kernel does, in order:
//   1. CTAs run in clusters of two along M (a pair): the pair computes two vertically adjacent 128 x 128
//      tiles, which read the same 128 rows of B. Thread 0 of each CTA initialises its barriers, and a
//      cluster barrier publishes them to the peer, which will write into this CTA's stages;
//   2. the producer of each CTA loads its own A tile and HALF of the shared B tile (64 rows), multicast into
//      both CTAs' shared memory (.multicast::cluster): one load from L2 feeds two SMs. A stage is full once
//      this CTA's A and both halves of B (one of them sent by the peer) have landed: 32 KiB, as in step 7;
//   3. the consumers are step 7's ping-pong pair; a stage is free only when the consumers of BOTH CTAs have
//      read it, since the next load into it comes from both producers: thread 0 of the consumer
//      warpgroup arrives on its own "empty" barrier and on the peer's (a remote arrive, mapa);
//   4. a cluster barrier before exit: no CTA leaves while its peer may still multicast into it or arrive on
//      its barriers.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step8_cluster
//   ./build/step8_cluster --m 4096 --n 4096 --k 4096 --bench   # compute capability 9.0 runs this
//   ./build/step8_cluster --break one-half-bytes --init int    # forget the peer's half of B: fails
// ======================================================================================================
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/kernel/check.cuh"
#include "common/kernel/cluster.hpp"
#include "common/kernel/descriptors.hpp"
#include "common/kernel/gemm.hpp"
#include "common/kernel/ptx.cuh"
#include "common/kernel/scheduler.hpp"
#include "common/kernel/tma.hpp"
#include "common/kernel/watchdog.cuh"

namespace step8::sm90 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 128, BLK_K = 64;  // one CTA tile: 128 x 128 outputs, 64 of K per load
constexpr int kGroupRows = 4;                        // L2 groups of 4 pair rows: 8 tile rows
constexpr int WGMMA_M = 64, WGMMA_K = 16;            // wgmma m64n128k16: 64 rows, 16 of K per instruction
constexpr int kAccFloats = WGMMA_M * BLK_N / hg::kWarpgroupThreads;  // one wgmma's fp32 outputs per thread: 64
constexpr int kConsumers = 2;                        // consumer warpgroups 0 and 1 take alternate tiles
constexpr int kThreads = (kConsumers + 1) * hg::kWarpgroupThreads;  // + warpgroup 2, the producer: 384 threads
constexpr int kProducerWarp = kConsumers * 4 + 3;    // warp 3 of the producer warpgroup issues every TMA load
// Registers per thread after setmaxnreg: the producer needs few, each consumer holds a 128 x 128 fp32
// accumulator (128 registers) plus addresses. 128 x 40 + 256 x 232 = 64512 of the SM's 65536.
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
// CTA barrier ids (bar.sync / bar.arrive; id 0 is __syncthreads'): consumer c waits on kTurnBar + c for its
// turn at the tensor core, and syncs its own 128 threads around its staging tile on kEpilogueBar + c.
constexpr uint32_t kTurnBar = 1, kEpilogueBar = 3;
// A stage is free once the consumer that read it has done so in BOTH CTAs: one arrival from each CTA's consumer
// (thread 0 of the warpgroup, after wgmma.wait_group; the warpgroup's wgmma have then read the stage).
__device__ constexpr uint32_t kEmptyArrivals = 2;
__device__ constexpr uint16_t kPairMask = 0x3;  // multicast to CTA ranks 0 and 1 of the cluster
constexpr int B_ROWS = BLK_N / 2;     // rows of the shared B tile each CTA loads (and multicasts): 64

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // one A tile: 16 KiB (a multiple of 1024)
constexpr int kBTileBytes = BLK_N * BLK_K * 2;              // one B tile: 16 KiB
constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: D goes as 2 boxes
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom (each CTA's producer multicasts half of B into both CTAs):
//   producers of both CTAs -> full_bar[s] -> consumer -> empty_bar[s] of both CTAs -> producers of both CTAs
template <int PIPE_DEPTH>
struct Smem {
  uint64_t full_bar[PIPE_DEPTH];                // TMA of both CTAs -> consumer: stage s has landed
  uint64_t empty_bar[PIPE_DEPTH];               // consumers of both CTAs -> TMA: stage s has been read
  alignas(1024) uint8_t A[PIPE_DEPTH][kATileBytes];  // A tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][kBTileBytes];  // B tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t D[kConsumers][BLK_N / kDBoxCols][BLK_M * kDBoxCols * 2];  // D [c][box][128][64] fp16
};
template <int PIPE_DEPTH>
constexpr int kSmemBytes = sizeof(Smem<PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024
// The bytes that complete one stage in each CTA: its own A tile plus both halves of B, its own and the peer's.
__device__ constexpr uint32_t kTmaBytes = (BLK_M * BLK_K + BLK_N * BLK_K) * 2;  // 32768: as in step 7
__device__ constexpr uint32_t kOwnBytes = (BLK_M * BLK_K + B_ROWS * BLK_K) * 2;  // 24576: this CTA's loads only

// PIPE_DEPTH: stages of the shared-memory ring, shared by both consumers (--pipe-depth). Each stage costs
// 32 KiB; with the two staging tiles, 5 stages fill the 227 KiB a CTA may use.
// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
template <int PIPE_DEPTH, hg::Break BREAK = hg::Break::kNone>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                 const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem<PIPE_DEPTH>*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;
  const int wg_id = threadIdx.x / hg::kWarpgroupThreads;  // warpgroup: 0 and 1 are the consumers, 2 the producer
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();  // 0 or 1: which 128-row half of the pair's tiles
  const uint32_t peer = rank ^ 1;
  const int cluster_id = blockIdx.x / 2, num_clusters = gridDim.x / 2;  // a cluster is 2 consecutive CTAs
  // [tile]
  // The scheduler now hands out PAIR tiles, 256 x 128: pair tile `cluster_id`, then every num_clusters-th one,
  // grouped as before (4 pair rows = 8 tile rows). CTA `rank` computes D[tile_m0..+127][tile_n0..+127], the
  // pair's upper (rank 0) or lower (rank 1) tile. With an odd number of tile rows the lower tile of the last
  // pair row lies below M: its A loads read zeros (TMA fills out-of-bounds rows) and its store writes nothing
  // (TMA clips it), so that CTA still takes part in the pair's barriers and loads its half of B.
  const int m_tiles = M / BLK_M, n_tiles = N / BLK_N, k_tiles = K / BLK_K;
  const int m_pair_tiles = hg::ceil_div(m_tiles, 2);  // rounded up
  int tile_m0 = 0, tile_n0 = 0;
  // [tile]

  // [setup]
  // --- Barrier init (thread 0): one job per barrier ---------------------------------------------------------
  if (tid == 0) {
    for (int s = 0; s < PIPE_DEPTH; ++s) {
      ptx::mbarrier_init(&smem.full_bar[s], 1);                // the producer's arrive.expect_tx plus the bytes
      ptx::mbarrier_init(&smem.empty_bar[s], kEmptyArrivals);  // the consumer that read it, in this CTA and the peer
    }
  }
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  ptx::barrier_cluster_arrive(ptx::sem_release);  // to the peer CTA too: it multicasts into our stages
  ptx::barrier_cluster_wait(ptx::sem_acquire);
  // [setup]

  // [roles]
  if (wg_id == kConsumers) {
    // === Producer warpgroup ==================================================================================
    ptx::setmaxnreg_dec<kProducerRegs>();  // hand registers to the consumers (the whole warpgroup executes it)
    if (warp_id == kProducerWarp && ptx::elect_sync()) {
      hg::TileScheduler scheduler(m_pair_tiles, n_tiles, num_clusters, cluster_id, kGroupRows);
      // Ring position: K tiles this CTA has loaded so far, over all its tiles. Stage and phase follow from it.
      uint32_t ring_pos = 0;
      for (; scheduler.valid(); scheduler.next()) {
        tile_m0 = (scheduler.current().m * 2 + int(rank)) * BLK_M;  // this CTA's tile of the pair
        tile_n0 = scheduler.current().n * BLK_N;
        for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;  // flips each time the ring wraps
          // [produce]
          // The consumers that read this stage one trip ago, here AND in the peer, must have released it: both
          // producers write into it. A fresh barrier counts the phase before its first (parity 1) as complete.
          if constexpr (BREAK != hg::Break::kNoEmptyWait) ptx::mbarrier_wait_parity(&smem.empty_bar[stage], phase ^ 1);
          const int32_t a_coords[2] = {i * BLK_K, tile_m0};  // innermost (K) first
          const int32_t b_coords[2] = {i * BLK_K, tile_n0 + int(rank) * B_ROWS};  // this CTA's half of B
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.A[stage], &tmap_a,
                                    a_coords, &smem.full_bar[stage]);
          // The half goes to the same offset in both CTAs (rows 64 * rank of the stage's B tile; 64 rows of
          // 128 bytes = 8 KiB, a whole number of 1024-byte swizzle atoms) and signals each CTA's own full_bar.
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                    smem.B[stage] + rank * (B_ROWS * BLK_K * 2), &tmap_b, b_coords,
                                    &smem.full_bar[stage], kPairMask);
          // Arrive once and announce the bytes: the phase completes when the arrival AND 32768 bytes are in,
          // 8192 of them sent by the peer.
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[stage],
                                         BREAK == hg::Break::kOneHalfBytes ? kOwnBytes : kTmaBytes);
          // [produce]
        }
      }
    }
  } else {
    // === Consumer warpgroups 0 and 1 =========================================================================
    ptx::setmaxnreg_inc<kConsumerRegs>();  // room for the accumulator (waits for the producer's registers)
    const int consumer = wg_id;
    const int wg_tid = tid % hg::kWarpgroupThreads;  // thread index inside this consumer warpgroup
    auto& Ds = smem.D[consumer];  // [box][128][64] fp16: this consumer's own staging tile
    // Consumer c takes pair tiles c, c+2, ... of this pair's list, i.e. pair tiles cluster_id + c*num_clusters,
    // then every 2*num_clusters-th one; the producer loaded the K tiles of its j-th tile at positions j*k_tiles on.
    // The peer's consumer c takes the same pair tiles: the two CTAs' rings stay in step.
    hg::TileScheduler scheduler(m_pair_tiles, n_tiles, kConsumers * num_clusters,
                                cluster_id + consumer * num_clusters, kGroupRows);
    uint32_t ring_pos = consumer * k_tiles;  // ring position of this consumer's next K tile
    bool first_tile = true;
    // acc[h] is the 64 x 128 fp32 accumulator of rows 64h..64h+63, spread over the warpgroup's registers.
    float acc[BLK_M / WGMMA_M][kAccFloats];
    const uint64_t a_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.A));  // K-major, 128B swizzle
    const uint64_t b_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.B));
    // Release a stage in both CTAs: the peer's producer multicasts its half of B into our copy too.
    auto release = [&](uint64_t* bar) {
      ptx::mbarrier_arrive(bar);               // ours
      ptx::mbarrier_arrive_remote(bar, peer);  // the same barrier in the peer CTA
    };

    for (; scheduler.valid(); scheduler.next()) {
      tile_m0 = (scheduler.current().m * 2 + int(rank)) * BLK_M;  // this CTA's tile of the pair
      tile_n0 = scheduler.current().n * BLK_N;
      // Does this CTA have a tile after this one (the other consumer's)? Only then is there a turn to hand on.
      const bool has_next_tile = scheduler.tile + num_clusters < m_pair_tiles * n_tiles;

      // [turn]
      // Wait for our turn at the tensor core: the other consumer has issued every wgmma of the previous tile.
      // The turns alternate, so the K tiles before ours on the ring are already consumed
      // (docs/step7_warp_specialized.md, contract 4).
      if (!(consumer == 0 && first_tile)) ptx::named_barrier_sync(kTurnBar + consumer, 2 * hg::kWarpgroupThreads);
      first_tile = false;
      // [turn]

      // [kloop]
      // --- K-loop: wait "full", issue the K tile's 8 wgmma, release the stage the previous group read --------
      for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
        const int stage = ring_pos % PIPE_DEPTH;
        const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;
        ptx::mbarrier_wait_parity(&smem.full_bar[stage], phase);  // both tiles of the stage have landed
        ptx::wgmma_fence();  // registers and SMEM are ready before the asynchronous wgmma reads them
#pragma unroll
        for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
          // The second 64-row half of the A tile starts 64 rows * 128 bytes = 8192 bytes later (8 swizzle atoms).
          const uint64_t a_half = a_desc + (uint64_t(stage * kATileBytes + h * WGMMA_M * hg::kSwizzleRowBytes) >> 4);
#pragma unroll
          for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
            // The tile's first K step (i = 0, k = 0) overwrites the accumulator (scale-d = 0).
            const uint64_t b_stage = b_desc + (uint64_t(stage * kBTileBytes) >> 4);
            ptx::wgmma_m64n128k16_f16(acc[h], hg::desc_advance_k16(a_half, k), hg::desc_advance_k16(b_stage, k),
                                     i > 0 || k > 0);
          }
        }
        ptx::wgmma_commit_group();  // close the 8 wgmma above into one group
        // Keep this group in flight and wait for the previous one: the tensor core always has the next K
        // tile queued, and the previous group's stage has been read, so it can go back to the producer.
        ptx::wgmma_wait_group<1>();
        // One thread per warpgroup: a wgmma is one warpgroup-wide operation, complete for all four warps when
        // this thread's wait returns (CUTLASS's PipelineTmaAsync releases the same way), and every arrival here
        // is also one remote arrive to the peer.
        if (i > 0 && wg_tid == 0) release(&smem.empty_bar[(ring_pos - 1) % PIPE_DEPTH]);
      }
      // Our last wgmma is issued: the other consumer may queue its tile's right behind it.
      if (has_next_tile) ptx::named_barrier_arrive(kTurnBar + (1 - consumer), 2 * hg::kWarpgroupThreads);
      ptx::wgmma_wait_group<0>();  // the accumulator is complete
      if (wg_tid == 0) release(&smem.empty_bar[(ring_pos - 1) % PIPE_DEPTH]);  // release the last stage, in both CTAs
      ring_pos += k_tiles;         // skip the other consumer's next tile on the ring
      // [kloop]

      // [epilogue]
      // --- Writeback: registers -> this consumer's SMEM staging tile -> (TMA store) -> GMEM ------------------
      // It runs while the other consumer's wgmma fill the tensor core. Thread t of the warpgroup holds, in
      // acc[h][4j .. 4j+3], columns 8j + 2(t%4) + {0,1} of rows 16(t/32) + (t%32)/4 and +8 inside half h.
      // Our previous store must have finished reading Ds before this tile overwrites it.
      if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // nobody writes Ds before that wait
#pragma unroll
      for (int h = 0; h < BLK_M / WGMMA_M; ++h) {
        const int row = h * WGMMA_M + (warp_id % 4) * 16 + lane_id / 4;
#pragma unroll
        for (int j = 0; j < BLK_N / 8; ++j) {
          const int col = j * 8 + (lane_id % 4) * 2;
          uint8_t* d_half = Ds[col / kDBoxCols];  // which 64-column box
          *reinterpret_cast<__half2*>(d_half + hg::swizzle128b_offset(row, col % kDBoxCols)) =
              __floats2half2_rn(acc[h][4 * j], acc[h][4 * j + 1]);
          *reinterpret_cast<__half2*>(d_half + hg::swizzle128b_offset(row + 8, col % kDBoxCols)) =
              __floats2half2_rn(acc[h][4 * j + 2], acc[h][4 * j + 3]);
        }
      }
      ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
      ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // the tile is staged before the store

      // SMEM -> GMEM: one thread of the consumer stores the tile as two 64-column boxes, as one bulk group.
      if (wg_tid == 0) {
        for (int box = 0; box < BLK_N / kDBoxCols; ++box) {
          const int32_t d_coords[2] = {tile_n0 + box * kDBoxCols, tile_m0};  // innermost (columns) first
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_d, d_coords,
                                    Ds[box]);
        }
        ptx::cp_async_bulk_commit_group();  // drains while this consumer waits for its next turn
      }
      // [epilogue]
    }
    if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // last
  }
  // [roles]
  // [exit]
  // The exit rule: no CTA leaves while its peer may still multicast into its shared memory or arrive on its
  // barriers (the peer's last releases). Every thread of both CTAs arrives here once its role is done.
  if constexpr (BREAK != hg::Break::kNoExitClusterSync) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
  }
  // [exit]
#endif
}

/// Host side: a persistent grid of CTA pairs, as many as can be resident at once (cudaOccupancyMaxActiveClusters:
/// 66 on the H200, all 132 SMs), and the tensor maps: A in 128-row boxes, B in 64-row boxes (half a tile per
/// CTA), D as before. Any M, N multiple of 128 works: an odd number of tile rows is covered by TMA's bounds.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g) {
  using S = Smem<PIPE_DEPTH>;
  static_assert(kSmemBytes<PIPE_DEPTH> <= hg::kMaxSmemBytes, "this ring depth does not fit in shared memory");
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {
      {offsetof(S, full_bar), PIPE_DEPTH, "full_bar"}, {offsetof(S, empty_bar), PIPE_DEPTH, "empty_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  HG_CUDA_CHECK(cudaFuncSetAttribute(hgemm_kernel<PIPE_DEPTH, BREAK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kSmemBytes<PIPE_DEPTH>));
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BLK_M, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, BLK_N / 2, BLK_K);  // half a B tile per CTA
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols);
  const int pairs = hg::max_resident_pairs(hgemm_kernel<PIPE_DEPTH, BREAK>, kThreads, kSmemBytes<PIPE_DEPTH>);
  return [=](cudaStream_t stream) {
    hg::launch_pairs(hgemm_kernel<PIPE_DEPTH, BREAK>, pairs, kThreads, kSmemBytes<PIPE_DEPTH>, stream, tmap_a, tmap_b,
                     tmap_d, g.m, g.n, g.k);
  };
}

}  // namespace step8::sm90

// ======================================================================================================
// Step 8 - a pair of CTAs shares its operands, Blackwell (sm_100a)          step8_cluster/hgemm_sm100.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step7_warp_specialized, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step8_cluster.md.
//             Compiles for sm_100a and is checked by the PTX, SASS and CUTLASS-oracle tests; it has not run on
//             a Blackwell GPU (docs/blackwell_checks.md).
//
// This kernel does, in order:
//   1. CTAs run in clusters of two (a pair); warp 0 of each allocates 2 x 256 TMEM columns with
//      tcgen05.alloc.cta_group::2; thread 0 of each initialises the barriers; a cluster barrier publishes them;
//   2. the pair computes a 256 x 256 tile: CTA r holds rows 128r..128r+127 of A and of B (its half of the
//      tile's B), and the leader (rank 0) issues tcgen05.mma.cta_group::2 (M = 256, N = 256), which reads A and
//      B from both CTAs' shared memory and writes each CTA's 128 rows into that CTA's TMEM;
//   3. both producers' TMA loads complete on the LEADER's full barrier (.cta_group::2), which expects the bytes
//      of both CTAs; the leader's commits reach both CTAs' empty and acc_full barriers (.multicast::cluster);
//      each epilogue drains its own CTA's TMEM (its 128 rows), and every epilogue thread arrives on the
//      leader's acc_empty barrier once it has read its row (2 x 128 arrivals, half of them remote);
//   4. each producer drains its ring (waits for the last commits), then a cluster barrier before TMEM is freed
//      and before exit: no CTA leaves while its peer may still read its TMEM or arrive on its barriers.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step8_cluster
//   ./build/step8_cluster --m 4096 --n 4096 --k 4096 --bench   # compute capability 10.0 runs this
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

namespace step8::sm100 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_N = 256, BLK_K = 64;  // one CTA's outputs: 128 x 256, 64 of K per load
constexpr int kGroupRows = 4;                        // L2 groups of 4 pair rows: 8 tile rows
constexpr int MMA_M = 2 * BLK_M;                     // the pair's tile: 256 x 256; each CTA loads 128 rows of B
constexpr int B_ROWS = BLK_N / 2;                    // rows of B (columns of D) each CTA of the pair loads
constexpr int MMA_K = 16;                            // tcgen05.mma kind::f16 consumes K = 16 per instruction
constexpr int kThreads = 2 * hg::kWarpgroupThreads;  // two warpgroups: the epilogue, and the issuing warps
constexpr int kMmaWarp = 4, kProducerWarp = kMmaWarp + 3;  // warps 0 and 3 of warpgroup 1; warpgroup 0: the epilogue
__device__ constexpr uint32_t kEpilogueThreads = hg::kWarpgroupThreads;  // warpgroup 0: thread t reads TMEM lane t
constexpr int kAccs = 2;                             // TMEM accumulators: MMA fills one, epilogue drains the other
// TMEM columns to allocate in each CTA (cta_group::2): two accumulators of 256 fp32 columns: all 512.
__device__ constexpr uint32_t kTmemCols = kAccs * BLK_N;
__device__ constexpr uint32_t kAccEmptyArrivals = 2 * kEpilogueThreads;  // every epilogue thread of both CTAs
constexpr uint16_t kPairMask = 0x3;                  // multicast to CTA ranks 0 and 1
constexpr uint32_t kEpilogueBar = 1;  // CTA barrier id the epilogue warpgroup syncs its 128 threads on

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // this CTA's A tile: 16 KiB (a multiple of 1024)
constexpr int kBTileBytes = B_ROWS * BLK_K * 2;             // this CTA's half of the pair's B tile: 16 KiB
constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: D goes as 4 boxes
constexpr int kLdCols = 128;   // TMEM columns per epilogue read: tcgen05.ld 32x32b.x128, 128 registers
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom (the leader, rank 0, issues the pair's MMAs; its commits multicast to both CTAs):
//   producers of both CTAs -> full_bar[s] of the leader -> MMA -> empty_bar[s] of both CTAs -> producers
//   MMA -> acc_full_bar[a] of both CTAs -> epilogues -> acc_empty_bar[a] of the leader -> MMA
template <int PIPE_DEPTH>
struct Smem {
  uint32_t tmem_slot;                           // TMEM base, written by tcgen05.alloc
  uint64_t acc_full_bar[kAccs];                 // MMA -> epilogue: accumulator a is final
  uint64_t acc_empty_bar[kAccs];                // epilogues of both CTAs -> MMA: accumulator a has been read
  uint64_t full_bar[PIPE_DEPTH];                // TMA of both CTAs -> MMA: stage s has landed in both
  uint64_t empty_bar[PIPE_DEPTH];               // MMA -> TMA: the pair's MMAs have read stage s
  alignas(1024) uint8_t A[PIPE_DEPTH][kATileBytes];  // A tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][kBTileBytes];  // B tiles [stage][128 rows][64 K] fp16
  alignas(1024) uint8_t D[BLK_N / kDBoxCols][BLK_M * kDBoxCols * 2];  // D tile: 4 boxes [128 rows][64 cols] fp16
};
template <int PIPE_DEPTH>
constexpr int kSmemBytes = sizeof(Smem<PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024
// The leader's full barrier counts the bytes of BOTH CTAs: 2 x (128 rows of A + 128 rows of B) x 64 x 2 bytes.
__device__ constexpr uint32_t kPairTmaBytes = 2 * (BLK_M * BLK_K + B_ROWS * BLK_K) * 2;  // 65536

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
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();  // 0: the leader, which issues the pair's MMAs
  const int cluster_id = blockIdx.x / 2, num_clusters = gridDim.x / 2;
  // [tile]
  // The scheduler hands out PAIR tiles, 256 x 256: pair tile `cluster_id`, then every num_clusters-th one, in
  // L2 groups of 4 pair rows (8 tile rows, as step 7). Every role of both CTAs walks them in the same order.
  // M and N need only be multiples of 128: the rows of A or B that a pair tile has beyond M or N read as zeros
  // (TMA fills out-of-bounds elements) and the outputs there are never written (TMA clips the store).
  const int k_tiles = K / BLK_K;
  const int m_pair_tiles = hg::ceil_div(M / BLK_M, MMA_M / BLK_M);    // 256-row pair tiles, rounded up
  const int n_pair_tiles = hg::ceil_div(N / B_ROWS, BLK_N / B_ROWS);  // 256-column pair tiles, rounded up
  hg::TileScheduler scheduler(m_pair_tiles, n_pair_tiles, num_clusters, cluster_id, kGroupRows);
  int tile_m0 = 0, tile_n0 = 0;
  // [tile]

  // [setup]
  // --- Barrier + TMEM init (warp 0 only): one job per barrier ----------------------------------------------
  if (warp_id == 0) {
    if (lane_id == 0) {
      for (int s = 0; s < PIPE_DEPTH; ++s) {
        ptx::mbarrier_init(&smem.full_bar[s], 1);   // leader's: its producer's arrive.expect_tx plus BOTH CTAs' bytes
        ptx::mbarrier_init(&smem.empty_bar[s], 1);  // one multicast tcgen05.commit: the MMAs that read it are done
      }
      for (int a = 0; a < kAccs; ++a) {
        ptx::mbarrier_init(&smem.acc_full_bar[a], 1);                  // one tcgen05.commit after a tile's last MMA
        ptx::mbarrier_init(&smem.acc_empty_bar[a], kAccEmptyArrivals);  // both CTAs' epilogues (the leader's is used)
      }
    }
    // cta_group::2: warp 0 of BOTH CTAs allocates, with the same slot offset; the pair's MMA writes both TMEMs.
    ptx::tcgen05_alloc(ptx::cta_group_2, &smem.tmem_slot, kTmemCols);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_2);
    ptx::tcgen05_fence_before_thread_sync();  // order the allocation before the cluster barrier below
  }
  ptx::fence_proxy_async(ptx::space_shared);                    // the init (generic proxy) for the async proxy, then
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  ptx::barrier_cluster_arrive(ptx::sem_release);  // to the peer CTA as well: it signals our barriers
  ptx::barrier_cluster_wait(ptx::sem_acquire);
  ptx::tcgen05_fence_after_thread_sync();  // read the TMEM base only after the barrier
  const uint32_t tmem_base = smem.tmem_slot;   // lane 0, first allocated column; accumulator a starts at column 256a
  // [setup]

  // [roles]
  if (warp_id == kProducerWarp) {
    // === TMA producer: one elected thread =====================================================================
    if (ptx::elect_sync()) {
      // Ring position: K tiles this CTA has loaded so far, over all its tiles. Stage and phase follow from it.
      uint32_t ring_pos = 0;
      for (; scheduler.valid(); scheduler.next()) {
        tile_m0 = scheduler.current().m * MMA_M + int(rank) * BLK_M;   // this CTA's 128 rows of A
        tile_n0 = scheduler.current().n * BLK_N;                        // the pair's 256 columns
        for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;  // flips each time the ring wraps
          // [produce]
          // The pair's MMAs that read this stage one trip ago must be done (the leader's commit reaches both
          // CTAs' empty_bar). A fresh barrier counts the phase before its first (parity 1) as complete.
          if constexpr (BREAK != hg::Break::kNoEmptyWait) ptx::mbarrier_wait_parity(&smem.empty_bar[stage], phase ^ 1);
          const int32_t a_coords[2] = {i * BLK_K, tile_m0};                       // innermost (K) first
          const int32_t b_coords[2] = {i * BLK_K, tile_n0 + int(rank) * B_ROWS};  // this CTA's half of B
          // .cta_group::2: the bytes land in THIS CTA's shared memory and are counted on the LEADER's barrier.
          ptx::tma_load_2d_pair(smem.A[stage], &tmap_a, a_coords, &smem.full_bar[stage], /*bar_rank=*/0);
          ptx::tma_load_2d_pair(smem.B[stage], &tmap_b, b_coords, &smem.full_bar[stage], /*bar_rank=*/0);
          // Only the leader arrives, announcing the bytes of both CTAs: 65536.
          if (rank == 0)
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[stage],
                                           BREAK == hg::Break::kOneHalfBytes ? kPairTmaBytes / 2 : kPairTmaBytes);
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
    __syncwarp();  // the warp reconverges before the cluster barrier at the end
  } else if (warp_id == kMmaWarp && rank == 0) {
    // === MMA issuer: one elected thread of the LEADER =========================================================
    // One tcgen05.mma.cta_group::2 computes the pair's 256 x 256 outputs: A rows 0-127 and B rows 0-127 from
    // the leader's shared memory, A rows 128-255 and B rows 128-255 from the peer's, at the same offsets.
    if (ptx::elect_sync()) {
      const uint32_t idesc = hg::sm100_instr_desc_f16(MMA_M, BLK_N);  // fp16 x fp16 -> fp32, 256 x 256
      uint32_t ring_pos = 0;   // ring position, as the producer's
      uint32_t tile_no = 0;    // tiles of this CTA so far: accumulator tile_no % 2, used for the tile_no/2-th time
      for (; scheduler.valid(); scheduler.next(), ++tile_no) {
        const int acc = tile_no % kAccs;
        const uint32_t acc_phase = (tile_no / kAccs) & 1;
        // [mma]
        // Both epilogues must have read this accumulator's previous tile (fresh: the first two tiles pass).
        if constexpr (BREAK != hg::Break::kNoAccEmptyWait)
          ptx::mbarrier_wait_parity(&smem.acc_empty_bar[acc], acc_phase ^ 1);
        ptx::tcgen05_fence_after_thread_sync();  // order the MMAs below after the epilogue's TMEM reads
        const uint32_t tmem_acc = tmem_base + acc * BLK_N;  // column offset of this accumulator (lane 0), both CTAs
        for (int i = 0; i < k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;
          ptx::mbarrier_wait_parity(&smem.full_bar[stage], phase);  // both tiles of the stage have landed
          ptx::tcgen05_fence_after_thread_sync();               // order the MMA issue after that wait
          const uint64_t a_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.A[stage]));
          const uint64_t b_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.B[stage]));
          for (int k = 0; k < BLK_K / MMA_K; ++k) {
            // The tile's first MMA (i = 0, k = 0) overwrites the accumulator (enable_input_d = false).
            ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_2, tmem_acc, hg::desc_advance_k16(a_desc, k),
                             hg::desc_advance_k16(b_desc, k), idesc, i > 0 || k > 0);
          }
          // The stage is free, in BOTH CTAs, once these MMAs are done: one commit, multicast to ranks 0 and 1.
          ptx::tcgen05_commit_multicast(ptx::cta_group_2, &smem.empty_bar[stage], kPairMask);
        }
        ptx::tcgen05_commit_multicast(ptx::cta_group_2, &smem.acc_full_bar[acc], kPairMask);  // both CTAs' accumulators
        // [mma]
      }
    }
    __syncwarp();  // the warp reconverges before the cluster barrier at the end
  } else if (warp_id < 4) {
    // === Epilogue warpgroup (warps 0-3) =======================================================================
    uint32_t tile_no = 0;
    for (; scheduler.valid(); scheduler.next(), ++tile_no) {
      tile_m0 = scheduler.current().m * MMA_M + int(rank) * BLK_M;  // this CTA's 128 rows of the pair's tile
      tile_n0 = scheduler.current().n * BLK_N;
      const int acc = tile_no % kAccs;
      const uint32_t acc_phase = (tile_no / kAccs) & 1;
      // [epilogue]
      // The previous tile's store must have finished reading smem.D before this tile overwrites it.
      if (tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      ptx::named_barrier_sync(kEpilogueBar, kEpilogueThreads);  // nobody writes smem.D before that wait

      // --- Wait for the accumulator (the leader's multicast commit reached our acc_full_bar too) -------------
      ptx::mbarrier_wait_parity(&smem.acc_full_bar[acc], acc_phase);  // the tile's last MMA has completed
      ptx::tcgen05_fence_after_thread_sync();  // order the TMEM reads below after that wait
      const int row = warp_id * 32 + lane_id;  // thread t owns row t of this CTA's 128 rows
      // 256 columns are 256 registers: read them in two chunks of kLdCols, each staged at once.
      for (int chunk = 0; chunk < BLK_N / kLdCols; ++chunk) {
        uint32_t acc_regs[kLdCols];  // columns 128*chunk .. +127 of row `row`, fp32 bit patterns
        ptx::tcgen05_ld_32x32b(acc_regs, hg::tmem_addr(tmem_base, warp_id * 32, acc * BLK_N + chunk * kLdCols));
        ptx::tcgen05_wait_ld();  // the registers hold the data only after wait::ld
        if (chunk == BLK_N / kLdCols - 1) {
          // This thread's row is read: give it back at once, on the LEADER's acc_empty_bar (its MMA warp waits
          // for every thread of both CTAs), before the last chunk is staged (the MMAs need TMEM, not smem.D).
          ptx::tcgen05_fence_before_thread_sync();  // order this thread's TMEM reads before the arrival
          ptx::mbarrier_arrive_remote(&smem.acc_empty_bar[acc], 0);
        }
#pragma unroll
        for (int j = 0; j < kLdCols; j += 8) {  // 8 fp32 -> 8 fp16 = one 16-byte store
          uint4 packed;
          __half2* h2 = reinterpret_cast<__half2*>(&packed);
#pragma unroll
          for (int e = 0; e < 4; ++e)
            h2[e] = __floats2half2_rn(__uint_as_float(acc_regs[j + 2 * e]), __uint_as_float(acc_regs[j + 2 * e + 1]));
          const int col = chunk * kLdCols + j;
          uint8_t* d_box = smem.D[col / kDBoxCols];  // which 64-column box
          *reinterpret_cast<uint4*>(d_box + hg::swizzle128b_offset(row, col % kDBoxCols)) = packed;
        }
      }
      ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
      ptx::named_barrier_sync(kEpilogueBar, kEpilogueThreads);  // the whole tile is staged before the store

      // SMEM -> GMEM: one thread stores this CTA's 128 x 256 part as four 64-column boxes, one bulk group.
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
  // --- Free TMEM, then leave: both only after the peer is done ----------------------------------------------
  // Every MMA has completed (each epilogue waited for each tile's acc_full), every commit has landed (each
  // producer's drain) and every TMEM read is done. The cluster barrier keeps a CTA from freeing TMEM or exiting
  // while its peer's threads may still arrive on its barriers (the epilogues' acc_empty arrivals on the
  // leader): barrier.cluster.arrive.release orders each thread's earlier arrivals before it.
  ptx::tcgen05_fence_before_thread_sync();
  if constexpr (BREAK != hg::Break::kNoExitClusterSync) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
  }
  ptx::tcgen05_fence_after_thread_sync();
  if (warp_id == 0) ptx::tcgen05_dealloc(ptx::cta_group_2, tmem_base, kTmemCols);  // warp 0 of both CTAs
  // [teardown]
#endif
}

/// Host side: a persistent grid of CTA pairs, as many as can be resident at once (cudaOccupancyMaxActiveClusters),
/// and the tensor maps: A and B in boxes of 128 rows x 64 (each CTA loads 128 rows of each), D in 128 x 64.
/// Any M, N multiple of 128 works: the kernel's pair-tile comment says how.
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
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, B_ROWS, BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols);
  const int pairs = hg::max_resident_pairs(hgemm_kernel<PIPE_DEPTH, BREAK>, kThreads, kSmemBytes<PIPE_DEPTH>);
  return [=](cudaStream_t stream) {
    hg::launch_pairs(hgemm_kernel<PIPE_DEPTH, BREAK>, pairs, kThreads, kSmemBytes<PIPE_DEPTH>, stream, tmap_a, tmap_b,
                     tmap_d, g.m, g.n, g.k);
  };
}

}  // namespace step8::sm100

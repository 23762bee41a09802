// ======================================================================================================
// Step 11 - the tile fitted to the problem, Blackwell (sm_100a)           step11_fitted_tile/hgemm_sm100.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step10_stream_k, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step11_fitted_tile.md.
//             Compiles for sm_100a and is checked by the PTX, SASS and CUTLASS-oracle tests; it has not run on
//             a Blackwell GPU (docs/blackwell_checks.md).
//
// What this step adds to step 10: a MENU of pair tiles, 512 x 256 (step 10's), 512 x 224, 512 x 192 and
// 512 x 128, compiled from one kernel body with the tile's N as a template parameter BN, and a host heuristic that
// picks one from the problem (common/kernel/tile_choice.hpp); and ANY shape: M, N >= 1 and K a multiple of 8, the
// tiles counted with rounding up, TMA zero-filling the loads and clipping the stores at the ragged edges (or, when
// N is not a multiple of 8 and no tensor map can describe D, the epilogue's threads storing each staged box, edges
// tested).
//
// This kernel does, in order:
//   1. CTAs run in pairs of three warpgroups each, two epilogues and the issuing warps; warp 0 of each
//      allocates all 512 TMEM columns with cta_group::2, whatever the tile: consumer c's accumulator is columns
//      256c..256c+BN-1 (one CTA per SM, so no other CTA wants the rest). Each pair is a
//      WORKER of the stream-K plan (common/kernel/stream_k.hpp), numbered by its ARRIVAL TICKET (the order in
//      which the pairs start): first its even share of the (tile, K tile) iterations of the stream-K tiles, cut
//      at tile boundaries into units of K tiles [k0, k1) of one tile, then whole tiles round-robin as in step 9;
//   2. the pair computes a 512 x BN tile: TWO consumers, each a 256 x BN pair MMA (step 8's, with N = BN). A
//      stage holds two A blocks (consumer 0's rows and consumer 1's, 128 of each per CTA) and ONE B block (this
//      CTA's BN/2 rows of the pair's BN): both consumers' MMAs read the same B, so each loaded B byte feeds twice
//      the FLOPs. Rows, columns and K beyond the problem load as zeros (the K tiles are ceil(K / 64));
//   3. the leader's MMA warps 8 and 9 (one per consumer) wait on the same full barrier and each frees the
//      stage with its own multicast commit: "empty" counts 2; consumer c's last commit of a unit reaches both
//      CTAs' acc_full_bar[c], and epilogue warpgroup c of each CTA drains its TMEM columns in chunks of 64
//      columns (224: the fourth overlaps the third); each of its threads arrives on the leader's
//      acc_empty_bar[c] after its last read;
//   4. a unit that starts after K tile 0 is a PART of a split tile: epilogue c reads its fp32 accumulator from
//      TMEM (and gives the columns back at once), stores it to this worker's workspace slot and publishes it
//      with a release store to its flag; the unit that starts at K tile 0 (the tile's OWNER) waits for the flags
//      of the workers holding the rest, acquire, and adds their parts in K order before the fp16 conversion, so
//      the sum is the same bits in every run; the stores of D are clipped to the problem by TMA (by the
//      threads' own tests when N is not a multiple of 8);
//   5. each producer drains its ring, then a cluster barrier before TMEM is freed and before exit (step 8's).
// When the plan takes no split, the host launches this kernel compiled without item 4 and the ticket (SPLIT =
// false): step 9's kernel, walking whole tiles.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step11_fitted_tile
//   ./build/step11_fitted_tile --m 1000 --n 1000 --k 1000 --tile auto   # compute capability 10.0 runs this
//   ./build/step11_fitted_tile --m 5120 --n 5120 --k 2048 --tile 512x192 --bench  # one tile of the menu, forced
//   ./build/step11_fitted_tile --break no-part-wait --init int --m 256 --n 256 --k 4096  # owner reads early: fails
// ======================================================================================================
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/kernel/check.cuh"
#include "common/kernel/cluster.hpp"
#include "common/kernel/descriptors.hpp"
#include "common/kernel/gemm.hpp"
#include "common/kernel/ptx.cuh"
#include "common/kernel/scheduler.hpp"
#include "common/kernel/stream_k.hpp"
#include "common/kernel/stream_k_host.hpp"
#include "common/kernel/store_box.cuh"
#include "common/kernel/tile_choice.hpp"
#include "common/kernel/tma.hpp"
#include "common/kernel/watchdog.cuh"

namespace step11::sm100 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_M = 128, BLK_K = 64;  // one consumer's outputs per CTA: 128 x BN (BN, the tile's N: below)
constexpr int kGroupRows = 2;            // L2 groups of 2 pair-tile rows: 8 tile rows
constexpr int kConsumers = 2;            // consumer c: its own A rows, the shared B, TMEM 256c..
constexpr int MMA_M = 2 * BLK_M;                     // one consumer's pair tile: 256 x BN (step 8's)
constexpr int CLUSTER_TILE_M = kConsumers * MMA_M;   // the pair's tile: 512 x BN
constexpr int MMA_K = 16;                            // tcgen05.mma kind::f16 consumes K = 16 per instruction
constexpr int kThreads = (kConsumers + 1) * hg::kWarpgroupThreads;  // + warpgroup 2, the issuing warps: 384 threads
constexpr int kMmaWarp = kConsumers * 4, kProducerWarp = kMmaWarp + 3;  // warps 0 and 3 of warpgroup 2
__device__ constexpr uint32_t kEpilogueThreads = hg::kWarpgroupThreads;  // warpgroup c: thread t reads TMEM lane t
constexpr int kAccs = kConsumers;                      // TMEM accumulators: MMA c fills c, epilogue c drains it
__device__ constexpr uint32_t kEmptyArrivals = kConsumers;  // one multicast commit per consumer's MMA warp
__device__ constexpr uint32_t kAccEmptyArrivals = 2 * kEpilogueThreads;  // every thread of epilogue c, both CTAs
constexpr uint16_t kPairMask = 0x3;                  // multicast to CTA ranks 0 and 1
constexpr uint32_t kEpilogueBar = 1;  // + c: CTA barrier id epilogue warpgroup c syncs its 128 threads on
constexpr int kDBoxCols = 64;          // columns per epilogue chunk: one TMA box row of 128 bytes

constexpr int kATileBytes = BLK_M * BLK_K * 2;              // one consumer's A block: 128 rows, 16 KiB
constexpr int kDBoxBytes = BLK_M * kDBoxCols * 2;            // one epilogue chunk, 128 x 64 fp16: 16 KiB

// Consumer c's accumulator starts at TMEM column 256c for every tile, as in step 10: the narrower tiles leave
// columns unused rather than move the second accumulator (one CTA per SM: nobody else would take them).
constexpr int kAccStride = 256;

/// Everything that depends on the tile's N: the pair's tile is 512 x BN, each consumer's MMA 256 x BN.
template <int BN>
struct Tile {
  // PTX ISA, tcgen05 "Matrix Shape" (table "Various combinations of .kind and shapes"): .kind::f16, cta_group::2,
  // dense, M = 256: N from 16 to 256 in steps of 16, K = 16.
  static_assert(BN >= 16 && BN <= 256 && BN % 16 == 0, "tcgen05.mma cta_group::2 M = 256 needs N = 16..256, step 16");
  static_assert(BN >= kDBoxCols, "the epilogue drains the accumulator in chunks of 64 columns");
  static constexpr int B_ROWS = BN / 2;  // rows of B (columns of D) each CTA of the pair loads: 128, 112, 96 or 64
  // This CTA's half of the pair's B tile, [B_ROWS][64 K] fp16: 16, 14, 12 or 8 KiB. Whole 128B-swizzle atoms (8 rows
  // of 128 bytes), so every stage starts 1024-aligned and the descriptor's 1024-byte stride (SBO) holds.
  static constexpr int kBTileBytes = B_ROWS * BLK_K * 2;
  static_assert(B_ROWS % 8 == 0 && kBTileBytes % hg::kSwizzleAtomBytes == 0, "B must be whole swizzle atoms");
  // TMEM columns to allocate in each CTA (cta_group::2): a power of two from 32 to 512 (PTX ISA, tcgen05 "Tensor
  // Memory Allocation and Management Instructions"); all of them, two accumulators 256 columns apart.
  static constexpr uint32_t kTmemCols = kAccs * kAccStride;
  static_assert(kTmemCols == 512 && BN <= kAccStride, "two accumulators of up to 256 columns fill the 512");
  // The leader's full barrier counts the bytes of BOTH CTAs: 2 x (2 A blocks + 1 B part); whole boxes, also
  // where TMA fills a box's rows or K beyond the problem with zeros.
  // 98304, 94208, 90112 or 81920.
  static constexpr uint32_t kPairTmaBytes = 2 * (kConsumers * kATileBytes + kBTileBytes);
  static constexpr uint32_t kInstrDesc = hg::sm100_instr_desc_f16(MMA_M, BN);  // fp16 x fp16 -> fp32, 256 x BN
  static constexpr int kChunks = (BN + kDBoxCols - 1) / kDBoxCols;  // epilogue chunks of 64 columns: 4, 4, 3 or 2
  // Chunk c's first column in the accumulator: 64c, or for 224's last chunk BN - 64 = 160, so that it stores
  // columns 160..191 a second time (the same values: a box of D is 64 columns, and a 32-column box would need a
  // tensor map of its own), as Hopper's 256 x 224 tile does.
  __host__ __device__ static constexpr int chunk_col(int c) {
    return c * kDBoxCols < BN - kDBoxCols ? c * kDBoxCols : BN - kDBoxCols;
  }
  static_assert(chunk_col(kChunks - 1) + kDBoxCols == BN, "the last chunk ends at the tile's last column");
  // The workspace (global memory): one slot per worker, a part of one split tile, fp32 in TMEM's order: slot
  // [worker][rank][consumer][q = 0..BN/4-1][thread 0..127] of float4, columns 4q..4q+3 of that thread's row (its
  // TMEM lane), so a warp's float4 stores and loads cover 512 contiguous bytes. A worker holds at most one part
  // (its first unit: common/kernel/stream_k.hpp says why), so its slot is never reused within a launch.
  static constexpr int kAccQuads = BN / 4;  // float4 per epilogue thread
  // Per worker, 2 CTAs: 512, 448, 384 or 256 KiB.
  static constexpr int kSlotQuads = 2 * kConsumers * kAccQuads * hg::kWarpgroupThreads;
};

// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom (the leader, rank 0, issues the pair's MMAs; its commits multicast to both CTAs):
//   producers of both CTAs -> full_bar[s] of the leader -> MMAs of both consumers -> empty_bar[s] of both CTAs
//     -> producers
//   MMA c -> acc_full_bar[c] of both CTAs -> epilogues c -> acc_empty_bar[c] of the leader -> MMA c
template <int BN, int PIPE_DEPTH>
struct Smem {
  uint32_t tmem_slot;                           // TMEM base, written by tcgen05.alloc
  uint32_t worker;                              // the pair's worker index: its arrival ticket (SPLIT only)
  uint64_t acc_full_bar[kAccs];                 // MMA c -> epilogue c: accumulator c is final
  uint64_t acc_empty_bar[kAccs];                // epilogues c of both CTAs -> MMA c: accumulator c has been read
  uint64_t full_bar[PIPE_DEPTH];                // TMA of both CTAs -> MMA: stage s has landed in both
  uint64_t empty_bar[PIPE_DEPTH];               // MMAs -> TMA: both consumers' MMAs have read stage s
  alignas(1024) uint8_t A[PIPE_DEPTH][kConsumers][kATileBytes];     // A blocks [stage][c][128 rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][Tile<BN>::kBTileBytes];       // B part [stage][BN/2 rows][64 K] fp16
  alignas(1024) uint8_t D[kConsumers][kDBoxBytes];                  // D boxes [c][128 rows][64 cols] fp16
};
template <int BN, int PIPE_DEPTH>
constexpr int kTileSmemBytes = sizeof(Smem<BN, PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024

/// The menu: the pair tiles this kernel offers, largest first (a tie of the heuristic goes to the first). The
/// rates (common/kernel/tile_choice.hpp) are not measured: no Blackwell GPU has run this kernel, so they are all
/// 1000 and the heuristic chooses by balance alone; docs/blackwell_checks.md lists measuring them.
constexpr hg::TileOption kTiles[] = {{512, 256, 1000}, {512, 224, 1000}, {512, 192, 1000}, {512, 128, 1000}};
constexpr int kTileCount = int(sizeof(kTiles) / sizeof(kTiles[0]));
static_assert(kTiles[0].m == CLUSTER_TILE_M && kTiles[1].m == CLUSTER_TILE_M && kTiles[2].m == CLUSTER_TILE_M &&
                  kTiles[3].m == CLUSTER_TILE_M,
              "every tile of the menu is the pair's 512 rows: BN is the only template parameter");
// The largest tile's shared memory at each ring depth: the most any tile of the menu needs (the generated dispatch
// asserts it fits, for each depth the registry offers).
template <int PIPE_DEPTH>
constexpr int kSmemBytes = kTileSmemBytes<kTiles[0].n, PIPE_DEPTH>;

// One flag per (worker, rank, consumer): the epilogue that wrote the part signals it, and only the same
// epilogue of the owner's CTA of the same rank reads it.
constexpr int kFlagsPerWorker = 2 * kConsumers;
// The pair tiles of an M x N problem (any M, N >= 1), rows and columns rounded up: the kernel walks them, and the
// host plans the stream-K split over them (the same count hg::forecast_tile predicts with).
struct PairTiles {
  int m, n;
};
template <int BN>
__host__ __device__ constexpr PairTiles pair_tiles(int m, int n) {
  return {hg::ceil_div(m, CLUSTER_TILE_M), hg::ceil_div(n, BN)};
}

// BN: the pair tile's columns, one of the menu's (kTiles). PIPE_DEPTH: stages of the shared-memory ring
// (--pipe-depth); each stage costs 32 KiB of A plus BN/2 x 128 bytes of B: 48, 46, 44 or 40 KiB.
// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
// plan: the stream-K plan of this launch (host-computed, the same for every CTA), over pair_tiles<BN>'s tiles and
// ceil(K / 64) K tiles. workspace: Tile<BN>::kSlotQuads float4
// per worker of the stream-K region. flags: kFlagsPerWorker per such worker; a part of this launch is published when
// its flag holds `epoch`, a number the host never gives two launches on the same flags, so no launch has to clear
// them. arrivals: the counter the pairs take their tickets from (wraps to 0 after the last pair of a launch).
// SPLIT: false compiles out the fixup (item 4 of the banner) and the ticket, for plans without a split
// (plan.sk_tiles == 0), whose workspace, flags and arrivals are null.
// d_by_threads: D itself when the epilogues' threads store it (N not a multiple of 8: no tensor map can describe
// D, and tmap_d is unused); null when TMA stores it.
// D_BY_THREADS: the threads store D (d_by_threads is then D). A compile-time choice, because a runtime test
// would compile their path into every instance, dead wherever N is a multiple of 8, at a cost in instructions.
template <int BN, int PIPE_DEPTH, hg::Break BREAK = hg::Break::kNone, bool SPLIT = true, bool D_BY_THREADS = false>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                 const __grid_constant__ CUtensorMap tmap_d, __half* d_by_threads, int M, int N, int K,
                 const hg::StreamKPlan plan,
                 float4* workspace, uint32_t* flags, uint32_t epoch, uint32_t* arrivals) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  using T = Tile<BN>;
  // A copy for tcgen05.alloc and dealloc, which take the count by reference: T's static members exist on the host.
  const uint32_t tmem_cols = T::kTmemCols;
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem<BN, PIPE_DEPTH>*>(hg::align_smem_1024(smem_raw));  // the map above, 1024-aligned

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;
  const int wg_id = threadIdx.x / hg::kWarpgroupThreads;  // 0, 1: epilogue of consumer wg_id; 2: producer and MMA warps
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();  // 0: the leader, which issues the pair's MMAs
  const int cluster_id = blockIdx.x / 2;  // a cluster is 2 consecutive CTAs
  // [tile]
  // The work is the pair's 512 x BN tiles, numbered in step 9's L2-grouped order (groups of 2 tile rows: 8 rows
  // of 128), and each worker walks its units: its stream-K share, then whole tiles. Consumer c
  // of CTA r computes rows 512m + 256c + 128r .. +127 of each unit's tile. Any M, N >= 1 and K a multiple of 8
  // (TMA's 16-byte row stride): the tiles and K tiles are counted rounded up, rows of A or B beyond M or N and K
  // beyond K read as zeros (TMA fills out-of-bounds elements, and still counts the whole box's bytes on the
  // barrier), so they add nothing, and the outputs there are never written (TMA clips the stores). The loops
  // below are step 10's.
  const int k_tiles = hg::ceil_div(K, BLK_K);
  const PairTiles tiles = pair_tiles<BN>(M, N);
  // [tile]

  // [setup]
  // --- Barrier + TMEM init (warp 0 only): one job per barrier ----------------------------------------------
  if (warp_id == 0) {
    if (lane_id == 0) {
      for (int s = 0; s < PIPE_DEPTH; ++s) {
        ptx::mbarrier_init(&smem.full_bar[s], 1);  // leader's: its producer's arrive.expect_tx plus BOTH CTAs' bytes
        // Both consumers' multicast commits (the break keeps step 8's count of one).
        ptx::mbarrier_init(&smem.empty_bar[s], BREAK == hg::Break::kShortEmptyCount ? 1 : kEmptyArrivals);
      }
      for (int c = 0; c < kConsumers; ++c) {
        ptx::mbarrier_init(&smem.acc_full_bar[c], 1);                  // consumer c's commit after its last MMA
        ptx::mbarrier_init(&smem.acc_empty_bar[c], kAccEmptyArrivals);  // epilogue c of both CTAs (leader's)
      }
    }
    // cta_group::2: warp 0 of BOTH CTAs allocates, with the same slot offset; the pair's MMAs write both TMEMs.
    ptx::tcgen05_alloc(ptx::cta_group_2, &smem.tmem_slot, tmem_cols);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_2);
    ptx::tcgen05_fence_before_thread_sync();  // order the allocation before the cluster barrier below
  }
  // [ticket]
  // The worker index is the pair's arrival ticket, not its place in the grid. An owner waits only for workers with
  // higher indices, so these started after it: none is queued behind a waiting owner, and any residency of two
  // pairs or more is free of deadlock (common/kernel/stream_k.hpp). Rank 0 takes it for the pair; atomicInc wraps
  // to 0 after the last pair. (A contract switch may run this instance on a plan without a split, and no counter:
  // the grid index will do.)
  if (SPLIT && rank == 0 && tid == 0)
    smem.worker = arrivals ? atomicInc(arrivals, uint32_t(plan.workers - 1)) : uint32_t(cluster_id);
  // [ticket]
  ptx::fence_proxy_async(ptx::space_shared);                    // the init (generic proxy) for the async proxy, then
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  ptx::barrier_cluster_arrive(ptx::sem_release);  // to the peer CTA as well: it signals our barriers
  ptx::barrier_cluster_wait(ptx::sem_acquire);    // (and rank 0's ticket is published)
  ptx::tcgen05_fence_after_thread_sync();  // read the TMEM base only after the barrier
  const uint32_t tmem_base = smem.tmem_slot;   // lane 0, first allocated column; consumer c starts at column 256c
  if constexpr (SPLIT) {
    if (rank == 1 && tid == 0) smem.worker = ptx::ld_shared_cluster(&smem.worker, 0);  // rank 0's ticket
    __syncthreads();  // rank 1's copy is in place before any role reads it
  }
  // No split, no waits: the grid index will do. Without a split the plan has no stream-K region: saying so at
  // compile time leaves step 9's walk.
  const int worker = SPLIT ? int(smem.worker) : cluster_id;
  const hg::StreamKPlan walk_plan = SPLIT ? plan : hg::StreamKPlan{plan.tiles, plan.k_tiles, plan.workers};
  // [setup]

  // [roles]
  if (warp_id == kProducerWarp) {
    // === TMA producer: one elected thread =====================================================================
    if (ptx::elect_sync()) {
      // Ring position: K tiles this CTA has loaded so far, over all its tiles. Stage and phase follow from it.
      uint32_t ring_pos = 0;
      for (hg::StreamKWalk walk(walk_plan, worker); walk.valid(); walk.next()) {  // every role walks the same units
        const hg::WorkUnit unit = walk.current();  // K tiles [k0, k1) of one pair tile
        const hg::TileCoord tile = hg::grouped_tile(unit.tile, tiles.m, tiles.n, kGroupRows);
        const int tile_m0 = tile.m * CLUSTER_TILE_M + int(rank) * BLK_M;  // consumer 0's rows here
        const int tile_n0 = tile.n * BN;                                   // the pair's BN columns
        for (int i = unit.k0; i < unit.k1; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;  // flips each time the ring wraps
          // [produce]
          // Both consumers' MMAs that read this stage one trip ago must be done (each one's commit reaches both
          // CTAs' empty_bar). A fresh barrier counts the phase before its first (parity 1) as complete.
          if constexpr (BREAK != hg::Break::kNoEmptyWait) ptx::mbarrier_wait_parity(&smem.empty_bar[stage], phase ^ 1);
          // .cta_group::2: the bytes land in THIS CTA's shared memory and are counted on the LEADER's barrier.
          for (int c = 0; c < kConsumers; ++c) {
            const int32_t a_coords[2] = {i * BLK_K, tile_m0 + c * MMA_M};  // consumer c's 128 rows of A here
            ptx::tma_load_2d_pair(smem.A[stage][c], &tmap_a, a_coords, &smem.full_bar[stage], /*bar_rank=*/0);
          }
          const int32_t b_coords[2] = {i * BLK_K, tile_n0 + int(rank) * T::B_ROWS};  // this CTA's half of B, once
          ptx::tma_load_2d_pair(smem.B[stage], &tmap_b, b_coords, &smem.full_bar[stage], /*bar_rank=*/0);
          // Only the leader arrives, announcing the bytes of both CTAs: T::kPairTmaBytes.
          if (rank == 0)
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[stage],
                                           BREAK == hg::Break::kOneHalfBytes ? T::kPairTmaBytes / 2 : T::kPairTmaBytes);
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
  } else if (warp_id >= kMmaWarp && warp_id < kMmaWarp + kConsumers && rank == 0) {
    // === MMA issuers: one elected thread of the LEADER per consumer ===========================================
    // Consumer c's tcgen05.mma.cta_group::2 computes its 256 x BN outputs from A block c of both CTAs and the
    // pair's B (rows 0..BN/2-1 from the leader, BN/2..BN-1 from the peer), into TMEM columns 256c.. of both CTAs.
    const int c = warp_id - kMmaWarp;
    if (ptx::elect_sync()) {
      const uint32_t idesc = T::kInstrDesc;         // fp16 x fp16 -> fp32, 256 x BN
      const uint32_t tmem_acc = tmem_base + c * kAccStride;  // this consumer's accumulator (lane 0), both CTAs
      uint32_t ring_pos = 0;                            // ring position, as the producer's
      uint32_t unit_no = 0;  // units so far (not tiles): its accumulator is used for the unit_no-th time
      for (hg::StreamKWalk walk(walk_plan, worker); walk.valid(); walk.next(), ++unit_no) {
        // [mma]
        // Both CTAs' epilogue c must have read the previous unit (fresh: the first unit passes).
        if constexpr (BREAK != hg::Break::kNoAccEmptyWait)
          ptx::mbarrier_wait_parity(&smem.acc_empty_bar[c], (unit_no & 1) ^ 1);
        ptx::tcgen05_fence_after_thread_sync();  // order the MMAs below after the epilogue's TMEM reads
        // i counts the unit's K tiles from 0; which K tiles they are matters to the producer only.
        const hg::WorkUnit unit = walk.current();
        const int unit_k_tiles = unit.k1 - unit.k0;
        for (int i = 0; i < unit_k_tiles; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;
          ptx::mbarrier_wait_parity(&smem.full_bar[stage], phase);  // both A blocks and B of both CTAs have landed
          ptx::tcgen05_fence_after_thread_sync();               // order the MMA issue after that wait
          const uint64_t a_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.A[stage][c]));
          const uint64_t b_desc = hg::sm100_smem_desc_sw128(hg::smem_u32(smem.B[stage]));
          for (int k = 0; k < BLK_K / MMA_K; ++k) {
            // The unit's first MMA (i = 0, k = 0) overwrites the accumulator (enable_input_d = false).
            ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_2, tmem_acc, hg::desc_advance_k16(a_desc, k),
                             hg::desc_advance_k16(b_desc, k), idesc, i > 0 || k > 0);
          }
          // This consumer is done with the stage, in BOTH CTAs: one of the two arrivals "empty" waits for.
          ptx::tcgen05_commit_multicast(ptx::cta_group_2, &smem.empty_bar[stage], kPairMask);
        }
        ptx::tcgen05_commit_multicast(ptx::cta_group_2, &smem.acc_full_bar[c], kPairMask);  // both CTAs' epilogue c
        // [mma]
      }
    }
    __syncwarp();  // the warp reconverges before the cluster barrier at the end
  } else if (wg_id < kConsumers) {
    // === Epilogue warpgroup c (warps 4c..4c+3): consumer c's TMEM columns =====================================
    const int c = wg_id;
    const int ep_warp = warp_id % 4;            // TMEM lanes 32 * ep_warp .. +31 belong to this warp
    const int row = ep_warp * 32 + lane_id;     // thread t owns row t of this CTA's 128 rows
    uint8_t* Ds = smem.D[c];                    // [128][64] fp16: this epilogue's own box
    const int wg_tid = tid % hg::kWarpgroupThreads;  // thread index inside this epilogue warpgroup
    uint32_t unit_no = 0;
    // This epilogue's region of a worker's workspace slot, and its flag: [worker][rank][consumer].
    auto part_of = [&](int w) {
      return workspace + size_t(w) * T::kSlotQuads +
             (int(rank) * kConsumers + c) * (T::kAccQuads * hg::kWarpgroupThreads);
    };
    auto flag_of = [&](int w) { return uint32_t(w * kFlagsPerWorker + int(rank) * kConsumers + c); };
    for (hg::StreamKWalk walk(walk_plan, worker); walk.valid(); walk.next(), ++unit_no) {
      const hg::WorkUnit unit = walk.current();
      const hg::TileCoord tile = hg::grouped_tile(unit.tile, tiles.m, tiles.n, kGroupRows);
      const int tile_m0 = tile.m * CLUSTER_TILE_M + c * MMA_M + int(rank) * BLK_M;  // its 128 rows
      const int tile_n0 = tile.n * BN;
      // [epilogue]
      // --- Wait for the accumulator (consumer c's multicast commit reached our acc_full_bar[c] too) ----------
      ptx::mbarrier_wait_parity(&smem.acc_full_bar[c], unit_no & 1);  // the unit's last MMA has completed
      ptx::tcgen05_fence_after_thread_sync();  // order the TMEM reads below after that wait
      // [fixup]
      bool owner = false;  // the owner of a split tile: it adds the parts of the workers after it
      if constexpr (SPLIT) {  // a plan without a split has no parts
        if (unit.k0 > 0) {
          // --- A part: K tiles [k0, k1) of a tile another worker owns. fp32 to our slot, then the flag ---------
          float4* part = part_of(worker);
#pragma unroll 1  // one chunk at a time: unrolled, ptxas overlaps the chunks' TMEM loads and the kernel spills
          for (int chunk = 0; chunk < T::kChunks; ++chunk) {
            uint32_t acc_regs[kDBoxCols];
            const int col = c * kAccStride + T::chunk_col(chunk);  // this chunk's first TMEM column
            ptx::tcgen05_ld_32x32b(acc_regs, hg::tmem_addr(tmem_base, ep_warp * 32, col));
            ptx::tcgen05_wait_ld();
            if (chunk == T::kChunks - 1) {
              // This thread's row is read: give the columns back now, as the owner path below does, so the next
              // unit's MMAs overlap the stores of the last chunk.
              ptx::tcgen05_fence_before_thread_sync();  // order this thread's TMEM reads before the arrival
              ptx::mbarrier_arrive_remote(&smem.acc_empty_bar[c], 0);
            }
#pragma unroll
            for (int j = 0; j < kDBoxCols; j += 4)  // .cg (PTX ISA "Cache Operators"): to L2, where the owner reads
              __stcg(&part[(T::chunk_col(chunk) + j) / 4 * hg::kWarpgroupThreads + row],
                     make_float4(__uint_as_float(acc_regs[j]), __uint_as_float(acc_regs[j + 1]),
                                 __uint_as_float(acc_regs[j + 2]), __uint_as_float(acc_regs[j + 3])));
          }
          ptx::named_barrier_sync(kEpilogueBar + c, kEpilogueThreads);  // all 128 threads' stores precede the release
          // Release at GPU scope (PTX ISA "Memory Consistency Model"): the stores above, ours and (cumulatively,
          // through the barrier) the warpgroup's, are visible to whoever acquires this flag. The epoch marks this
          // launch's part.
          if (wg_tid == 0) ptx::st_release_gpu(&flags[flag_of(worker)], epoch);
          continue;  // the owner writes the tile
        }
        owner = unit.k1 < k_tiles;
        if (owner) {
          // One thread acquires every part's flag (and spins), then the warpgroup's barrier passes the acquire on.
          for (int w = worker + 1; w <= plan.last_holder(unit.tile); ++w)
            if (wg_tid == 0 && BREAK != hg::Break::kNoPartWait) ptx::wait_flag(flags, flag_of(w), epoch);
          ptx::named_barrier_sync(kEpilogueBar + c, kEpilogueThreads);  // nobody reads a part before its flag
        }
      }
      // [fixup]
      for (int chunk = 0; chunk < T::kChunks; ++chunk) {
        uint32_t acc_regs[kDBoxCols];  // columns chunk_col(chunk) .. +63 of row `row`, fp32 bit patterns
        ptx::tcgen05_ld_32x32b(acc_regs, hg::tmem_addr(tmem_base, ep_warp * 32, c * kAccStride + T::chunk_col(chunk)));
        ptx::tcgen05_wait_ld();  // the registers hold the data only after wait::ld
        if (chunk == T::kChunks - 1) {
          // This thread's row is read: give it back at once, on the LEADER's acc_empty_bar (its MMA warp waits
          // for every thread of both CTAs), before the last chunk is staged (the MMAs need TMEM, not Ds).
          ptx::tcgen05_fence_before_thread_sync();  // order this thread's TMEM reads before the arrival
          ptx::mbarrier_arrive_remote(&smem.acc_empty_bar[c], 0);
        }
        // An owner adds the parts to its own sum in K order (w increasing), so the bits do not depend on timing.
        for (int w = worker + 1; owner && w <= plan.last_holder(unit.tile); ++w) {
          const float4* part = part_of(w) + T::chunk_col(chunk) / 4 * hg::kWarpgroupThreads;
#pragma unroll
          for (int j = 0; j < kDBoxCols; j += 4) {
            const float4 p = __ldcg(&part[j / 4 * hg::kWarpgroupThreads + row]);  // L2: written by another SM
            const float v[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) acc_regs[j + e] = __float_as_uint(__uint_as_float(acc_regs[j + e]) + v[e]);
          }
        }
        // The previous chunk's store must have finished reading the box before it is overwritten.
        if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait)
          ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
        ptx::named_barrier_sync(kEpilogueBar + c, kEpilogueThreads);  // nobody writes the box before that
#pragma unroll
        for (int j = 0; j < kDBoxCols; j += 8) {  // 8 fp32 -> 8 fp16 = one 16-byte store
          uint4 packed;
          __half2* h2 = reinterpret_cast<__half2*>(&packed);
#pragma unroll
          for (int e = 0; e < 4; ++e)
            h2[e] = __floats2half2_rn(__uint_as_float(acc_regs[j + 2 * e]), __uint_as_float(acc_regs[j + 2 * e + 1]));
          *reinterpret_cast<uint4*>(Ds + hg::swizzle128b_offset(row, j)) = packed;
        }
        ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
        ptx::named_barrier_sync(kEpilogueBar + c, kEpilogueThreads);  // the whole chunk is staged
        if constexpr (!D_BY_THREADS) {
          if (wg_tid == 0) {
            const int32_t d_coords[2] = {tile_n0 + T::chunk_col(chunk), tile_m0};  // innermost (columns) first
            ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_d, d_coords, Ds);
            ptx::cp_async_bulk_commit_group();
          }
        } else {
          // [store_by_threads]
          // N is not a multiple of 8: the warpgroup copies the box out itself, element by element, skipping what
          // lies outside D. The barrier before the next chunk is staged orders these reads before the refill.
          hg::store_box_by_threads<BLK_M, hg::kWarpgroupThreads>(Ds, d_by_threads, M, N, tile_m0,
                                                                 tile_n0 + T::chunk_col(chunk), wg_tid);
          // [store_by_threads]
        }
      }
      // [epilogue]
    }
    if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait)
      ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // the last store
  }
  // [roles]

  // [teardown]
  // --- Free TMEM, then leave: both only after the peer is done (step 8's rule) ------------------------------
  ptx::tcgen05_fence_before_thread_sync();
  if constexpr (BREAK != hg::Break::kNoExitClusterSync) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
  }
  ptx::tcgen05_fence_after_thread_sync();
  if (warp_id == 0) ptx::tcgen05_dealloc(ptx::cta_group_2, tmem_base, tmem_cols);  // warp 0 of both CTAs
  // [teardown]
#endif
}

/// Host side of one tile of the menu, step 10's prepare_variant with N = BN: the tensor maps (A and B in boxes of
/// 128 rows x 64 and BN/2 rows x 64, each CTA loads two A blocks and its BN/2 rows of B; D in 128 x 64, one epilogue
/// chunk), the stream-K plan over this tile's pair tiles for `pairs` workers with `knobs` (--sk-*), and, when it
/// splits, the workspace, flags and arrival counter (common/kernel/stream_k_host.hpp); when it does not, the
/// instance without the fixup. Any M, N >= 1 and K a multiple of 8: the kernel's pair-tile comment says how.
template <int BN, int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_tile(const hg::GemmArgs& g, const hg::StreamKKnobs& knobs, int pairs) {
  using T = Tile<BN>;
  using S = Smem<BN, PIPE_DEPTH>;
  constexpr int kSmem = kTileSmemBytes<BN, PIPE_DEPTH>;
  static_assert(kSmem <= hg::kMaxSmemBytes, "this tile at this ring depth does not fit in shared memory");
  static_assert(kSmem <= kSmemBytes<PIPE_DEPTH>, "the menu's first tile must be its largest (kSmemBytes)");
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static constexpr hg::BarrierName kBarriers[] = {
      {offsetof(S, acc_full_bar), kAccs, "acc_full_bar"},
      {offsetof(S, acc_empty_bar), kAccs, "acc_empty_bar"}, {offsetof(S, full_bar), PIPE_DEPTH, "full_bar"},
      {offsetof(S, empty_bar), PIPE_DEPTH, "empty_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BLK_M, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, T::B_ROWS, BLK_K);
  // D's rows are whole 16-byte units, which a tensor map needs, only when N is a multiple of 8: else the threads.
  const bool d_by_tma = g.n % 8 == 0;
  const CUtensorMap tmap_d = d_by_tma ? hg::make_tensor_map_2d(g.D, g.m, g.n, BLK_M, kDBoxCols) : CUtensorMap{};
  __half* d_by_threads = d_by_tma ? nullptr : g.D;
  auto kernel = d_by_tma ? hgemm_kernel<BN, PIPE_DEPTH, BREAK, true> : hgemm_kernel<BN, PIPE_DEPTH, BREAK, true, true>;
  HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  // The plan's tiles are the ones the kernel walks: this tile's pair tiles, and ceil(K / 64) K tiles.
  const PairTiles tiles = pair_tiles<BN>(g.m, g.n);
  const hg::StreamKPlan plan = hg::plan_stream_k(tiles.m * tiles.n, hg::ceil_div(g.k, BLK_K), pairs, knobs);
  // No split: the instance without the fixup, so the launch costs what step 9's does (the contract switches keep
  // the split instance, which walks a plan without a split just as well).
  // A ragged N keeps the split instance too: only it has the threads' store, which makes one instance more, not two.
  if constexpr (BREAK == hg::Break::kNone) {
    if (plan.sk_tiles == 0 && d_by_tma) {
      kernel = hgemm_kernel<BN, PIPE_DEPTH, BREAK, false>;
      HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    }
  }
  // Only a plan that splits uses the workspace, the flags and the counter: a slot per worker of the stream-K region
  // (only they write parts), of this tile's size. The break's owner reads the parts without their flags: a
  // workspace filled with NaN before each launch shows every part read before it was written.
  std::shared_ptr<hg::StreamKBuffers> buffers;
  if (plan.sk_tiles > 0)
    buffers = std::make_shared<hg::StreamKBuffers>(size_t(plan.sk_workers) * T::kSlotQuads * sizeof(float4),
                                                   size_t(plan.sk_workers) * kFlagsPerWorker,
                                                   BREAK == hg::Break::kNoPartWait);
  return [=](cudaStream_t stream) {
    const uint32_t epoch = buffers ? buffers->next_epoch(stream) : 0;  // no split: no parts to publish
    float4* workspace = buffers ? static_cast<float4*>(buffers->workspace()) : nullptr;
    uint32_t* flags = buffers ? buffers->flags() : nullptr;
    uint32_t* arrivals = buffers ? buffers->arrivals() : nullptr;
    hg::launch_pairs(kernel, pairs, kThreads, kSmem, stream, tmap_a, tmap_b, tmap_d, d_by_threads, g.m, g.n, g.k,
                     plan, workspace, flags, epoch, arrivals);
  };
}

/// Host side: a persistent grid of CTA pairs, as many as can be resident at once (cudaOccupancyMaxActiveClusters),
/// the tile of the menu that `tile` asks for (--tile MxN) or, for --tile auto, the one hg::pick_tile predicts
/// fastest for this problem on that many pairs (its choice written to *chosen), then that tile's prepare_tile.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g, const hg::StreamKKnobs& knobs, const hg::TileRequest& tile,
                             std::string* chosen) {
  // The grid never exceeds the pairs that fit at once (the arrival ticket needs only two, but fewer would leave
  // SMs idle). Counted with the largest tile's instance: every tile has the same threads and launch bounds and at
  // most its shared memory, so each fits at least as many pairs, and the heuristic and the plan see one count.
  constexpr int kLargest = kTiles[0].n;
  const auto probe = hgemm_kernel<kLargest, PIPE_DEPTH, BREAK, true>;
  HG_CUDA_CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes<PIPE_DEPTH>));
  const int pairs = hg::max_resident_pairs(probe, kThreads, kSmemBytes<PIPE_DEPTH>);
  // A --break switch breaks the protocol, whatever the tile: its instances are built for the widest tile alone
  // (one tile's instances, not the menu's), which a broken run takes unless --tile asks for another.
  if constexpr (BREAK != hg::Break::kNone) {
    const hg::TileRequest asked = tile.n != 0 ? tile : hg::TileRequest{0, kLargest};
    if (hg::pick_tile(kTiles, kTileCount, g, pairs, knobs, asked, chosen, "Blackwell") != 0)
      throw std::invalid_argument("a --break run takes the widest tile, the one its broken instances are built "
                                  "for: drop --tile");
    return prepare_tile<kLargest, PIPE_DEPTH, BREAK>(g, knobs, pairs);
  } else {
    const int pick = hg::pick_tile(kTiles, kTileCount, g, pairs, knobs, tile, chosen, "Blackwell");
    static_assert(kTileCount == 4, "one case per tile of the menu");
    switch (pick) {
      case 0: return prepare_tile<kTiles[0].n, PIPE_DEPTH, BREAK>(g, knobs, pairs);
      case 1: return prepare_tile<kTiles[1].n, PIPE_DEPTH, BREAK>(g, knobs, pairs);
      case 2: return prepare_tile<kTiles[2].n, PIPE_DEPTH, BREAK>(g, knobs, pairs);
      default: return prepare_tile<kTiles[3].n, PIPE_DEPTH, BREAK>(g, knobs, pairs);
    }
  }
}

}  // namespace step11::sm100

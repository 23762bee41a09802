// ======================================================================================================
// Step 11 - the tile fitted to the problem, Hopper (sm_90a)             step11_fitted_tile/hgemm_sm90.cuh
//
// The series: the ladder in README.md, one contract per step; the step before this one is
//             step10_stream_k, and from_previous.diff shows what this one changes.
//             The ladder follows the TIRx GEMM tutorial of the book "Modern GPU Programming for MLSys" ("the
//             original" in comments); docs/conventions.md has the conventions of the code.
//             The lesson of this step is told once, in docs/step11_fitted_tile.md.
//
// This kernel does, in order (step 10's kernel, with the tile's rows and width template parameters):
//   0. the HOST picks the tile for the problem from a menu of six, pair tiles of 256 x 256, 256 x 224, 256 x 192,
//      256 x 128, 128 x 256 and 128 x 128, by the predicted time of the longest worker
//      (common/kernel/tile_choice.hpp), then plans step 10's split over that tiling and launches that tile's instance;
//   1. CTAs run in clusters of two along M, each CTA's tile BM x BN (BM = 128, or 64 for the short tiles): the pair
//      computes 2BM x BN outputs, and the two tiles read the same BN rows of B. Thread 0 of each CTA initialises
//      its barriers, and a cluster barrier publishes them to the peer. Each pair is a WORKER of the stream-K plan
//      (common/kernel/stream_k.hpp), numbered by its ARRIVAL TICKET: first its share of the split tiles' K tiles,
//      then whole tiles;
//   2. the producer of each CTA loads its own A tile (BM rows) and HALF of the shared B tile (BN/2 rows),
//      multicast into both CTAs. Any M and N, and K a multiple of 8: a box that reaches past the problem is
//      filled with zeros on the way in and clipped on the way out, so the loops never test an edge;
//   3. BOTH consumer warpgroups work on every tile: consumer c computes rows 64c..64c+63 x all BN columns with
//      wgmma m64nBNk16, so both read the stage's B tile and each its half of A; in a short tile (BM = 64) both
//      take the 64 rows and consumer c the columns c*BN/2.. with wgmma m64n(BN/2)k16. A stage is free once both
//      consumers of both CTAs have read it (4 arrivals);
//   4. a unit that starts after K tile 0 is a PART of a split tile: published through the workspace with a
//      release store; the tile's OWNER acquires the flags of the workers holding the rest and adds their parts in
//      K order, so the sum is the same bits in every run;
//   5. each consumer converts its finished 64 x kWN accumulator (kWN: its columns) to fp16 in registers and writes
//      it back in chunks of 64 columns (the last of a 224-wide one overlaps the one before) through two staging
//      boxes, chunk c while the next unit's K tile c is in the tensor core: a TMA store per box, or, when N is not a
//      multiple of 8 (TMA cannot address such rows of D), a copy by the consumer's threads that tests the edges; a
//      cluster barrier before exit (step 8's rule).
// When the plan takes no split, the host launches the instance without item 4 and the ticket (SPLIT = false).
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target step11_fitted_tile
//   ./build/step11_fitted_tile --m 1000 --n 50257 --k 1600 --bench   # any shape; compute capability 9.0 runs this
//   ./build/step11_fitted_tile --m 5120 --n 5120 --k 2048 --tile 256x192  # force a tile of the menu
//   ./build/step11_fitted_tile --m 512 --n 1600 --k 1600 --tile 128x128    # a short tile: 64 rows per CTA
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

namespace step11::sm90 {

namespace ptx = hg::ptx;  // every instruction: cuda::ptx plus the few wrappers of common/kernel/ptx.cuh

constexpr int BLK_K = 64;               // 64 of K a load; one CTA tile: BM x BN outputs (the menu's tile)
constexpr int kGroupRows = 8;           // L2 groups of 8 pair rows: 16 tile rows
constexpr int WGMMA_M = 64, WGMMA_K = 16;  // wgmma m64nBNk16: 64 rows, 16 of K per instruction
constexpr int kConsumers = 2;           // consumer c computes rows 64c..64c+63 (or, BM = 64, half the columns)
constexpr int kThreads = (kConsumers + 1) * hg::kWarpgroupThreads;  // + warpgroup 2, the producer: 384 threads
constexpr int kProducerWarp = kConsumers * 4 + 3;    // warp 3 of the producer warpgroup issues every TMA load
// Registers per thread after setmaxnreg: the producer needs few, each consumer holds a 64 x kWN fp32
// accumulator (up to 128 registers), the previous tile's outputs as fp16 pairs (up to 64) and addresses.
// 128 x 40 + 256 x 232 = 64512 of the SM's 65536.
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
// CTA barrier ids (bar.sync; id 0 is __syncthreads'): consumer c syncs its 128 threads around its staging
// boxes on kEpilogueBar + c. No turn barriers: both consumers use the tensor core at once.
constexpr uint32_t kEpilogueBar = 1;
// A stage is free once every consumer that read it has done so, in BOTH CTAs: thread 0 of each consumer
// warpgroup of each CTA, 2 x 2.
__device__ constexpr uint32_t kEmptyArrivals = 2 * kConsumers;
__device__ constexpr uint16_t kPairMask = 0x3;  // multicast to CTA ranks 0 and 1 of the cluster

constexpr int kDBoxCols = 64;  // a TMA box row is at most 128 bytes with the 128B swizzle: 64 fp16 columns
constexpr int kDBoxBytes = WGMMA_M * kDBoxCols * 2;         // one staging box, 64 x 64 fp16: 8 KiB
constexpr int kDBoxes = 2;                                  // staging boxes per consumer: fill one, store the other
// [menu]
// The menu: each CTA's tile is BM x BN, the pair's 2BM x BN: BM = 128 with BN = 256 (step 10's), 224, 192 or 128,
// and the short tiles, BM = 64 with BN = 256 or 128, for problems of few rows. One kernel body serves them all; what
// depends on the tile is here. wgmma takes any N that is a multiple of 8 up to 256 (PTX ISA, wgmma "Matrix
// shape"), but only M = 64: a short tile has one wgmma's rows, so its two consumers split the columns instead.
// Every offset into a tile is whole 1024-byte swizzle atoms (8 rows of 128 bytes); a consumer's width is whole
// 64-column epilogue chunks but for 224, whose last chunk starts at column 160 and stores 160..191 a second time
// (the same values: a box of D is 64 columns, and a 32-column box would need a tensor map of its own).
// 224 columns: 5120 / 224 makes 23 tile columns, 460 pair tiles, 6.97 rounds of the H200's 66 pairs.
template <int BM, int BN>
struct Tile {
  static_assert((BM == 128 && (BN == 128 || BN == 192 || BN == 224 || BN == 256)) ||
                    (BM == 64 && (BN == 128 || BN == 256)),
                "the menu's tiles are 128 x 256, 128 x 224, 128 x 192, 128 x 128, 64 x 256 and 64 x 128 per CTA");
  static constexpr bool kShort = BM == WGMMA_M;         // one wgmma tall: the consumers split the columns
  static constexpr int kWN = kShort ? BN / 2 : BN;      // one consumer's columns: its wgmma's N
  // Where consumer c's 64 x kWN outputs start in the CTA's tile: row c * kRowStep, column c * kColStep.
  static constexpr int kRowStep = kShort ? 0 : WGMMA_M, kColStep = kShort ? kWN : 0;
  static constexpr int kAccFloats = WGMMA_M * kWN / hg::kWarpgroupThreads;  // one wgmma's fp32 per thread: kWN / 2
  static constexpr int kATileBytes = BM * BLK_K * 2;    // one A tile: 16 or 8 KiB
  static constexpr int kBRows = BN / 2;                 // rows of the B tile each CTA loads (and multicasts)
  static constexpr int kBTileBytes = BN * BLK_K * 2;    // one B tile: 32, 28, 24 or 16 KiB
  static constexpr int kChunks = (kWN + kDBoxCols - 1) / kDBoxCols;  // 64-column epilogue chunks: 4, 3, 2 or 1
  // Chunk c's first column in the consumer's kWN: 64c, or for 224's last chunk kWN - 64, overlapping the one before.
  __host__ __device__ static constexpr int chunk_col(int c) {
    return c * kDBoxCols < kWN - kDBoxCols ? c * kDBoxCols : kWN - kDBoxCols;
  }
  // The bytes that complete one stage in each CTA: its own A tile plus both halves of B, its own and the peer's.
  static_assert(kBRows * BLK_K * 2 % 1024 == 0, "the peer's half of B starts on a whole swizzle atom");
  static constexpr uint32_t kTmaBytes = (BM * BLK_K + BN * BLK_K) * 2;
  static constexpr uint32_t kOwnBytes = (BM * BLK_K + kBRows * BLK_K) * 2;  // this CTA's loads only
  // A part in the workspace: [rank][consumer][q][thread] of float4 (the layout below), per worker.
  static constexpr int kAccQuads = kAccFloats / 4;
  static constexpr int kSlotQuads = 2 * kConsumers * kAccQuads * hg::kWarpgroupThreads;
};
// [menu]
// Shared memory, from the 1024-aligned base: the barriers first, inside the first KiB, where the watchdog names
// a barrier by its offset; then the tiles, each on a 1024-byte boundary as the 128B swizzle requires. A tile is
// bytes, not __half[rows][64]: the swizzle moves each row's 16-byte chunks, so [row][col] would not address them.
// Who signals whom (each CTA's producer multicasts half of B into both CTAs):
//   producers of both CTAs -> full_bar[s] -> both consumers -> empty_bar[s] of both CTAs -> producers of both CTAs
template <int BM, int BN, int PIPE_DEPTH>
struct Smem {
  uint64_t full_bar[PIPE_DEPTH];                // TMA of both CTAs -> consumer: stage s has landed
  uint64_t empty_bar[PIPE_DEPTH];               // consumers of both CTAs -> TMA: stage s has been read
  uint32_t worker;                              // the pair's worker index: its arrival ticket (SPLIT only)
  alignas(1024) uint8_t A[PIPE_DEPTH][Tile<BM, BN>::kATileBytes];  // A tiles [stage][BM rows][64 K] fp16
  alignas(1024) uint8_t B[PIPE_DEPTH][Tile<BM, BN>::kBTileBytes];  // B tiles [stage][BN rows][64 K] fp16
  alignas(1024) uint8_t D[kConsumers][kDBoxes][kDBoxBytes];       // D boxes [c][box][64 rows][64 cols] fp16
};
template <int BM, int BN, int PIPE_DEPTH>
constexpr int kSmemBytesOf = sizeof(Smem<BM, BN, PIPE_DEPTH>) + 1024;  // + slack to align the base to 1024
template <int PIPE_DEPTH>
constexpr int kSmemBytes = kSmemBytesOf<128, 256, PIPE_DEPTH>;  // the largest tile's: what a ring depth must fit
// A short tile's ring holds the bytes of --pipe-depth stages of the largest tile: as many more stages as its smaller
// stages allow (4 -> 128 x 128: 8; 128 x 256's 40 KiB stages: still 4). Measured on the H200 (the lab notebook's
// depth runs): the short 128 x 128 waits on its loads, and its time fell with each stage added; 256 x 128 given
// 6 stages the same way gained little under burst and lost under sustained timing, most at a long K, so the
// 128-row tiles keep --pipe-depth.
template <int BM, int BN>
constexpr int kStageBytes = Tile<BM, BN>::kATileBytes + Tile<BM, BN>::kBTileBytes;
template <int BM, int BN, int PIPE_DEPTH>
constexpr int kRingDepth = Tile<BM, BN>::kShort ? PIPE_DEPTH * kStageBytes<128, 256> / kStageBytes<BM, BN> : PIPE_DEPTH;
static_assert(kRingDepth<128, 192, 4> == 4 && kRingDepth<128, 128, 4> == 4 && kRingDepth<64, 256, 4> == 4 &&
                  kRingDepth<64, 128, 4> == 8 && kRingDepth<64, 128, 2> == 4,
              "the stages the comment above names");
// The workspace (global memory): one slot per worker, a part of one split tile, fp32 in the consumers' register
// order: slot [worker][rank][consumer][q = 0..31][thread 0..127] of float4, acc[4q..4q+3] of that thread, so a
// warp's float4 stores and loads cover 512 contiguous bytes. A worker holds at most one part (its first unit:
// common/kernel/stream_k.hpp says why), so its slot is never reused within a launch.
// One flag per (worker, rank, consumer): the consumer that wrote the part signals it, and only the same consumer
// of the owner's CTA of the same rank reads it.
constexpr int kFlagsPerWorker = 2 * kConsumers;

// PIPE_DEPTH: stages of the shared-memory ring, read by both consumers: kRingDepth of --pipe-depth for this tile.
// A stage costs BM * 128 bytes of A and BN * 128 bytes of B: 48, 44, 40 or 32 KiB (24 or 40 KiB for the short
// tiles); with the 32 KiB of staging boxes, 4 stages of the largest tile, or 8 of the smallest, fill the 227 KiB a
// CTA may use.
// BREAK selects a deliberately broken variant for --break (common/kernel/gemm.hpp); kNone is the real kernel.
// plan: the stream-K plan of this launch (host-computed, the same for every CTA). workspace:
// Tile<BM, BN>::kSlotQuads float4 per worker of the stream-K region. flags: kFlagsPerWorker per such worker; a part of
// this launch is published when its flag holds `epoch`, a number the host never gives two launches on the same
// flags, so no launch has to clear them. arrivals: the counter the pairs take their tickets from (wraps to 0
// after the last pair of a launch).
// SPLIT: false compiles out the fixup (item 4 of the banner) and the ticket, for plans without a split
// (plan.sk_tiles == 0), whose workspace, flags and arrivals are null.
// BM, BN: the CTA's tile, one of the menu's (Tile<BM, BN>).
// d_by_threads: D itself when the consumers' threads store it (N not a multiple of 8: no tensor map can describe
// D, and tmap_d is unused); null when TMA stores it.
// D_BY_THREADS: the threads store D (d_by_threads is then D). A compile-time choice, because a runtime test
// would compile their path into every instance, dead wherever N is a multiple of 8, at a cost in instructions.
template <int BM, int BN, int PIPE_DEPTH, hg::Break BREAK = hg::Break::kNone, bool SPLIT = true,
          bool D_BY_THREADS = false>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                 const __grid_constant__ CUtensorMap tmap_d, __half* d_by_threads, int M, int N, int K,
                 const hg::StreamKPlan plan,
                 float4* workspace, uint32_t* flags, uint32_t epoch, uint32_t* arrivals) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem<BM, BN, PIPE_DEPTH>*>(hg::align_smem_1024(smem_raw));  // 1024-aligned
  using T = Tile<BM, BN>;  // the sizes of this instance

  const int warp_id = threadIdx.x / 32;
  const int lane_id = threadIdx.x % 32;
  const int tid = threadIdx.x;
  const int wg_id = threadIdx.x / hg::kWarpgroupThreads;  // warpgroup: 0 and 1 are the consumers, 2 the producer
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();  // 0 or 1: which BM-row half of the pair's tiles
  const uint32_t peer = rank ^ 1;
  const int cluster_id = blockIdx.x / 2;  // a cluster is 2 consecutive CTAs
  // [tile]
  // The work is PAIR tiles of 2BM x BN, numbered in step 9's L2-grouped order (groups of 8 pair rows), and each
  // worker walks its units: its stream-K share, then whole tiles. CTA `rank` computes
  // D[tile_m0..+BM-1][tile_n0..+BN-1] of each unit's tile, the pair's upper (rank 0) or lower (rank 1) half.
  // [any_shape]
  // Any M and N, and any K that is a multiple of 8: the tiles are counted rounded up, and TMA does the rest. A load
  // whose box reaches past M, N or K fills those elements with zeros (and still counts them toward the stage's
  // bytes), so a ragged edge adds zeros to the sum; a store whose box reaches past M or N writes only the elements
  // inside D (PTX ISA, cp.async.bulk.tensor: "out-of-bound accesses"). TMA needs D's rows to be whole 16-byte
  // units (N a multiple of 8); for any other N the threads store D and test the edges themselves (item 5).
  const int m_tiles = hg::ceil_div(M, BM), k_tiles = hg::ceil_div(K, BLK_K);
  const int n_tiles = hg::ceil_div(N, BN);
  // [any_shape]
  // The pair rows, hg::ceil_div(m_tiles, 2), are counted in each role: held from here across setmaxnreg, the
  // count was spilled to local memory (ptxas).
  int tile_m0 = 0, tile_n0 = 0;
  // [tile]

  // [setup]
  // --- Barrier init (thread 0): one job per barrier ---------------------------------------------------------
  if (tid == 0) {
    for (int s = 0; s < PIPE_DEPTH; ++s) {
      ptx::mbarrier_init(&smem.full_bar[s], 1);  // the producer's arrive.expect_tx plus the bytes
      // Both consumers, in this CTA and the peer (the break keeps step 8's count of one consumer per CTA).
      ptx::mbarrier_init(&smem.empty_bar[s], BREAK == hg::Break::kShortEmptyCount ? 2 : kEmptyArrivals);
    }
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
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // make the barrier init visible
  ptx::barrier_cluster_arrive(ptx::sem_release);  // to the peer CTA too: it multicasts into our stages
  ptx::barrier_cluster_wait(ptx::sem_acquire);    // (and rank 0's ticket is published)
  if constexpr (SPLIT) {
    if (rank == 1 && tid == 0) smem.worker = ptx::ld_shared_cluster(&smem.worker, 0);  // rank 0's ticket
    __syncthreads();  // rank 1's copy is in place before any role reads it
  }
  // Each role reads smem.worker, a word of its own CTA, after its setmaxnreg (read from the peer or before, the
  // index was held in a register through the loops, and the consumers spilled: ptxas). No split, no waits: the
  // grid index will do. Without a split the plan has no stream-K region: saying so at compile time
  // leaves step 9's walk.
  const hg::StreamKPlan walk_plan = SPLIT ? plan : hg::StreamKPlan{plan.tiles, plan.k_tiles, plan.workers};
  // [setup]

  // [roles]
  if (wg_id == kConsumers) {
    // === Producer warpgroup ==================================================================================
    ptx::setmaxnreg_dec<kProducerRegs>();  // hand registers to the consumers (the whole warpgroup executes it)
    if (warp_id == kProducerWarp && ptx::elect_sync()) {
      const int worker = SPLIT ? int(smem.worker) : cluster_id;
      // Ring position: K tiles this CTA has loaded so far, over all its tiles. Stage and phase follow from it.
      uint32_t ring_pos = 0;
      for (hg::StreamKWalk walk(walk_plan, worker); walk.valid(); walk.next()) {  // both CTAs walk the same units
        const hg::WorkUnit unit = walk.current();  // K tiles [k0, k1) of one pair tile
        const hg::TileCoord tile = hg::grouped_tile(unit.tile, hg::ceil_div(m_tiles, 2), n_tiles, kGroupRows);
        tile_m0 = (tile.m * 2 + int(rank)) * BM;  // this CTA's tile of the pair
        tile_n0 = tile.n * BN;
        for (int i = unit.k0; i < unit.k1; ++i, ++ring_pos) {
          const int stage = ring_pos % PIPE_DEPTH;
          const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;  // flips each time the ring wraps
          // [produce]
          // Every consumer that read this stage one trip ago, here AND in the peer, must have released it.
          // A fresh barrier counts the phase before its first (parity 1) as complete.
          if constexpr (BREAK != hg::Break::kNoEmptyWait) ptx::mbarrier_wait_parity(&smem.empty_bar[stage], phase ^ 1);
          const int32_t a_coords[2] = {i * BLK_K, tile_m0};  // innermost (K) first
          const int32_t b_coords[2] = {i * BLK_K, tile_n0 + int(rank) * T::kBRows};  // this CTA's half of B
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.A[stage], &tmap_a,
                                    a_coords, &smem.full_bar[stage]);
          // The half goes to the same offset in both CTAs (rows BN/2 * rank of the stage's B tile; BN/2 rows of
          // 128 bytes, a whole number of 1024-byte swizzle atoms) and signals each CTA's own full_bar.
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                    smem.B[stage] + rank * (T::kBRows * BLK_K * 2), &tmap_b, b_coords,
                                    &smem.full_bar[stage], kPairMask);
          // Arrive once and announce the bytes: the phase completes when the arrival AND the stage's bytes are in
          // (T::kTmaBytes: 48, 44, 40, 32 or 24 KiB), BN/2 x 128 bytes of them sent by the peer.
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[stage],
                                         uint32_t(BREAK == hg::Break::kOneHalfBytes ? T::kOwnBytes : T::kTmaBytes));
          // [produce]
        }
      }
    }
  } else {
    // === Consumer warpgroups 0 and 1 =========================================================================
    ptx::setmaxnreg_inc<kConsumerRegs>();  // room for the accumulator (waits for the producer's registers)
    const int worker = SPLIT ? int(smem.worker) : cluster_id;
    const int consumer = wg_id;
    const int wg_tid = tid % hg::kWarpgroupThreads;  // thread index inside this consumer warpgroup
    auto& Ds = smem.D[consumer];  // [box][64][64] fp16: this consumer's own staging boxes
    // Both consumers take every tile of this CTA, in the producer's order, so their ring positions are the
    // producer's. acc is consumer c's 64 x kWN fp32 accumulator (its rows and columns: Tile), in its registers.
    uint32_t ring_pos = 0;
    float acc[T::kAccFloats];
    // The finished tile, converted to fp16 pairs (up to 64 registers), waiting to be written while the next tile's
    // first K tiles run: pending[2j] holds acc[4j], acc[4j+1], pending[2j+1] holds acc[4j+2], acc[4j+3].
    __half2 pending[T::kAccFloats / 2];
    int pending_m = -1, pending_n = 0;  // where `pending` goes; pending_m < 0: nothing pending
    const uint64_t a_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.A));  // K-major, 128B swizzle
    const uint64_t b_desc = hg::sm90_wgmma_desc_sw128(hg::smem_u32(smem.B));
    // Release a stage in both CTAs: the peer's producer multicasts its half of B into our copy too.
    auto release = [&](uint64_t* bar) {
      ptx::mbarrier_arrive(bar);               // ours
      ptx::mbarrier_arrive_remote(bar, peer);  // the same barrier in the peer CTA
    };
    // This consumer's region of a worker's workspace slot, and its flag: [worker][rank][consumer].
    auto part_of = [&](int w) {
      return workspace + size_t(w) * T::kSlotQuads +
             (int(rank) * kConsumers + consumer) * (T::kAccQuads * hg::kWarpgroupThreads);
    };
    auto flag_of = [&](int w) { return uint32_t(w * kFlagsPerWorker + int(rank) * kConsumers + consumer); };
    // [epilogue]
    // --- Writeback of one 64-column chunk: registers -> staging box -> (TMA store or threads) -> GMEM -------
    // Thread t of the warpgroup holds columns 8j + 2(t%4) + {0,1} of rows 16(t/32) + (t%32)/4 (in pending[2j]) and
    // +8 (in pending[2j+1]), j = 0..kWN/8-1: chunk c is j = chunk_col(c)/8 + 0..7. The chunks take the two staging
    // boxes in turn, counted across tiles: with an odd number of chunks a tile (3, or 1), box chunk % 2 would have
    // the last chunk of one tile and the first of the next fill the same box one after the other. (With an even
    // number, chunk % 2 is that turn, known at compile time.)
    const int row = (warp_id % 4) * 16 + lane_id / 4;
    // This consumer's corner of the CTA's tile: its rows and columns start here (Tile).
    const int my_row = consumer * T::kRowStep, my_col = consumer * T::kColStep;
    uint32_t boxes_filled = 0;
    auto write_chunk = [&](int chunk) {
      uint8_t* box = Ds[T::kChunks % kDBoxes == 0 ? chunk % kDBoxes : int(boxes_filled++ % kDBoxes)];
      // The store that last read this box (two chunks ago) must be done reading it: keep at most one group,
      // the other box's, in flight.
      if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<1>{});
      ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // nobody writes the box before that
#pragma unroll
      for (int jj = 0; jj < kDBoxCols / 8; ++jj) {
        const int j = T::chunk_col(chunk) / 8 + jj;
        const int col = jj * 8 + (lane_id % 4) * 2;  // column inside the box
        *reinterpret_cast<__half2*>(box + hg::swizzle128b_offset(row, col)) = pending[2 * j];
        *reinterpret_cast<__half2*>(box + hg::swizzle128b_offset(row + 8, col)) = pending[2 * j + 1];
      }
      ptx::fence_proxy_async(ptx::space_shared);  // our generic-proxy SMEM writes -> visible to the TMA engine
      ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // the box is staged before the store
      if constexpr (!D_BY_THREADS) {
        if (wg_tid == 0) {
          const int32_t d_coords[2] = {pending_n + my_col + T::chunk_col(chunk), pending_m + my_row};  // cols first
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_d, d_coords, box);
          ptx::cp_async_bulk_commit_group();  // one group per box
        }
      } else {
        // [store_by_threads]
        // N is not a multiple of 8: the warpgroup copies the box out itself, element by element, skipping what
        // lies outside D. The barrier at the top of the next write_chunk of this box orders these reads before
        // its refill (bar.sync orders shared memory among its threads).
        hg::store_box_by_threads<WGMMA_M, hg::kWarpgroupThreads>(box, d_by_threads, M, N,
                                                                 pending_m + my_row,
                                                                 pending_n + my_col + T::chunk_col(chunk), wg_tid);
        // [store_by_threads]
      }
    };
    // [epilogue]

    for (hg::StreamKWalk walk(walk_plan, worker); walk.valid(); walk.next()) {  // the producer's units, in order
      const hg::WorkUnit unit = walk.current();
      const hg::TileCoord tile = hg::grouped_tile(unit.tile, hg::ceil_div(m_tiles, 2), n_tiles, kGroupRows);
      tile_m0 = (tile.m * 2 + int(rank)) * BM;  // this CTA's tile of the pair
      tile_n0 = tile.n * BN;

      // [kloop]
      // --- K-loop over the unit's K tiles: wait "full", issue 4 wgmma, release the stage the previous group read
      // (i counts the unit's K tiles from 0; which K tiles they are matters to the producer only).
      const int unit_k_tiles = unit.k1 - unit.k0;
      for (int i = 0; i < unit_k_tiles; ++i, ++ring_pos) {
        const int stage = ring_pos % PIPE_DEPTH;
        const uint32_t phase = (ring_pos / PIPE_DEPTH) & 1;
        ptx::mbarrier_wait_parity(&smem.full_bar[stage], phase);  // A and both halves of B have landed
        ptx::wgmma_fence();  // registers and SMEM are ready before the asynchronous wgmma reads them
        // This consumer's rows of the A tile and columns of B (B's rows: K-major, 128 bytes each) start my_row or
        // my_col rows of 128 bytes into them: 64 or 128 rows, whole 1024-byte swizzle atoms.
        const uint64_t a_rows =
            a_desc + (uint64_t(stage * T::kATileBytes + my_row * hg::kSwizzleRowBytes) >> 4);
        const uint64_t b_cols = b_desc + (uint64_t(stage * T::kBTileBytes + my_col * hg::kSwizzleRowBytes) >> 4);
#pragma unroll
        for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
          // The unit's first K step (i = 0, k = 0) overwrites the accumulator (scale-d = 0).
          ptx::wgmma_m64nNk16_f16<T::kWN>(acc, hg::desc_advance_k16(a_rows, k), hg::desc_advance_k16(b_cols, k),
                                   i > 0 || k > 0);
        }
        ptx::wgmma_commit_group();  // close the 4 wgmma above into one group
        // Keep this group in flight and wait for the previous one, whose stage can then go back.
        ptx::wgmma_wait_group<1>();
        // One thread per warpgroup, as in step 8: the wgmma are warpgroup-wide operations.
        if (i > 0 && wg_tid == 0) release(&smem.empty_bar[(ring_pos - 1) % PIPE_DEPTH]);
        // While this K tile's wgmma run, write chunk i of the previous tile (the tensor core stays busy).
        // (Unrolled so that `pending` is indexed by constants and stays in registers.)
#pragma unroll
        for (int c = 0; c < T::kChunks; ++c)
          if (c == i && pending_m >= 0) write_chunk(c);
      }
      // A unit shorter than kWN/64 K tiles leaves chunks of the previous tile: write them now.
#pragma unroll
      for (int c = 0; c < T::kChunks; ++c)
        if (c >= unit_k_tiles && pending_m >= 0) write_chunk(c);
      ptx::wgmma_wait_group<0>();  // the accumulator is complete
      if (wg_tid == 0) release(&smem.empty_bar[(ring_pos - 1) % PIPE_DEPTH]);  // release the last stage, in both CTAs
      // [kloop]

      // [fixup]
      if constexpr (SPLIT) {  // a plan without a split has no parts
        if (unit.k0 > 0) {
          // --- A part: K tiles [k0, k1) of a tile another worker owns. fp32 to our slot, then the flag ---------
          float4* part = part_of(worker);
#pragma unroll
          for (int q = 0; q < T::kAccQuads; ++q)  // .cg: to L2 only, where the owner's SM reads it from
            __stcg(&part[q * hg::kWarpgroupThreads + wg_tid],
                   make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
          ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // all stores precede the release
          // Release at GPU scope: the stores above, ours and (cumulatively, through the barrier) the warpgroup's,
          // are visible to whoever acquires this flag. The epoch marks this launch's part.
          if (wg_tid == 0) ptx::st_release_gpu(&flags[flag_of(worker)], epoch);
          continue;  // the owner writes the tile
        }
        if (unit.k1 < k_tiles) {
          // --- The owner of a split tile: add the parts of the workers after it, in K order -------------------
          for (int w = worker + 1; w <= plan.last_holder(unit.tile); ++w) {
            // One thread acquires the flag (and spins), then the warpgroup's barrier passes the acquire on.
            if (wg_tid == 0 && BREAK != hg::Break::kNoPartWait) ptx::wait_flag(flags, flag_of(w), epoch);
            ptx::named_barrier_sync(kEpilogueBar + consumer, hg::kWarpgroupThreads);  // nobody reads before the flag
            const float4* part = part_of(w);
#pragma unroll
            for (int q = 0; q < T::kAccQuads; ++q) {
              const float4 p = __ldcg(&part[q * hg::kWarpgroupThreads + wg_tid]);  // L2: written by another SM
              acc[4 * q] += p.x, acc[4 * q + 1] += p.y, acc[4 * q + 2] += p.z, acc[4 * q + 3] += p.w;
            }
          }
        }
      }
      // [fixup]

      // [convert]
      // Convert to fp16 now, so that the next unit's wgmma may overwrite acc while `pending` is written.
#pragma unroll
      for (int j = 0; j < T::kAccFloats / 2; ++j) pending[j] = __floats2half2_rn(acc[2 * j], acc[2 * j + 1]);
      pending_m = tile_m0;
      pending_n = tile_n0;
      // [convert]
    }
    // [last_tile]
    // The CTA's last tile has no next K-loop to hide behind.
#pragma unroll
    for (int c = 0; c < T::kChunks; ++c)
      if (pending_m >= 0) write_chunk(c);
    if (wg_tid == 0 && BREAK != hg::Break::kNoStoreWait) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // last
    // [last_tile]
  }
  // [roles]
  // [exit]
  // Step 8's exit rule: no CTA leaves while its peer may still multicast into its shared memory or arrive on its
  // barriers. Every thread of both CTAs arrives here once its role is done.
  if constexpr (BREAK != hg::Break::kNoExitClusterSync) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
  }
  // [exit]
#endif
}

// [choice]
// The menu as the heuristic sees it (common/kernel/tile_choice.hpp), the 256-row tiles widest first, then the short
// ones: the pair tile and how fast a worker runs one K tile of it, relative to the first, in thousandths. Measured
// on the H200, not derived: the medians of docs/results/tile_rates.csv (tools/tile_rates.py; how: the lab notebook,
// docs/lab_step11_fitted_tile.md).
constexpr hg::TileOption kTiles[] = {{256, 256, 1000}, {256, 224, 979}, {256, 192, 952}, {256, 128, 894},
                                     {128, 256, 873}, {128, 128, 668}};
constexpr int kTileCount = int(sizeof(kTiles) / sizeof(kTiles[0]));
// [choice]

/// Host side for one tile of the menu, with its ring of kRingDepth stages (appended to *chosen for the result
/// line): a persistent grid of `pairs` CTA pairs, the tensor maps (A in BM-row boxes,
/// B in BN/2-row boxes, half a pair's tile per CTA, D in 64 x 64 boxes, one consumer's chunk), the stream-K plan for
/// that many workers with `knobs` (--sk-*), and, when it splits, the workspace, flags and arrival counter
/// (common/kernel/stream_k_host.hpp); when it does not, the instance without the fixup.
template <int BM, int BN, int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_tile(const hg::GemmArgs& g, const hg::StreamKKnobs& knobs, int pairs, std::string* chosen) {
  constexpr int kRing = kRingDepth<BM, BN, PIPE_DEPTH>;  // this tile's stages
  using S = Smem<BM, BN, kRing>;
  using T = Tile<BM, BN>;
  constexpr int kSmem = kSmemBytesOf<BM, BN, kRing>;
  static_assert(kSmem <= hg::kMaxSmemBytes, "this tile and ring depth do not fit in shared memory");
  static_assert(kSmem <= kSmemBytes<PIPE_DEPTH>, "no tile may need more than the largest: the pairs are counted so");
  if (chosen) *chosen += " stages=" + std::to_string(kRing);  // the result line says the ring it ran
  static_assert(offsetof(S, A) == hg::kBarrierWindow, "the barriers must fit the first KiB (the watchdog's)");
  static_assert(kConsumerRegs >= T::kAccFloats * 3 / 2 + 32, "the accumulator, pending and addresses fit");
  static constexpr hg::BarrierName kBarriers[] = {
      {offsetof(S, full_bar), kRing, "full_bar"}, {offsetof(S, empty_bar), kRing, "empty_bar"}};
  hg::arm_watchdog(kBarriers);  // a wait that never completes is reported by these names and stopped
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, BM, BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, T::kBRows, BLK_K);  // half a B tile
  // D's rows are whole 16-byte units, which a tensor map needs, only when N is a multiple of 8: else the threads.
  const bool d_by_tma = g.n % 8 == 0;
  const CUtensorMap tmap_d = d_by_tma ? hg::make_tensor_map_2d(g.D, g.m, g.n, WGMMA_M, kDBoxCols) : CUtensorMap{};
  __half* d_by_threads = d_by_tma ? nullptr : g.D;
  auto kernel = d_by_tma ? hgemm_kernel<BM, BN, kRing, BREAK, true> : hgemm_kernel<BM, BN, kRing, BREAK, true, true>;
  const int tiles = hg::ceil_div(hg::ceil_div(g.m, BM), 2) * hg::ceil_div(g.n, BN);  // the kernel's pair tiles
  const hg::StreamKPlan plan = hg::plan_stream_k(tiles, hg::ceil_div(g.k, BLK_K), pairs, knobs);
  // No split: the instance without the fixup, so the launch costs what step 9's does (the contract switches keep
  // the split instance, which walks a plan without a split just as well).
  // A ragged N keeps the split instance too: only it has the threads' store, which makes one instance more, not two.
  if constexpr (BREAK == hg::Break::kNone) {
    if (plan.sk_tiles == 0 && d_by_tma) kernel = hgemm_kernel<BM, BN, kRing, BREAK, false>;
  }
  HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  // Only a plan that splits uses the workspace, the flags and the counter: a slot per worker of the stream-K region
  // (only they write parts). The break's owner reads the parts without their flags: a workspace filled with NaN
  // before each launch shows every part read before it was written.
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

/// The step's host entry: the pairs that fit at once (the largest tile's instance: the others use less shared
/// memory and the same threads, and one CTA per SM either way), the tile (`tile`, --tile MxN, or the heuristic's
/// choice for this problem on that many pairs; written to *chosen for the result line), then that tile's launch.
template <int PIPE_DEPTH, hg::Break BREAK>
hg::Launcher prepare_variant(const hg::GemmArgs& g, const hg::StreamKKnobs& knobs, const hg::TileRequest& tile,
                             std::string* chosen) {
  auto largest = hgemm_kernel<128, 256, PIPE_DEPTH, BREAK, true>;
  HG_CUDA_CHECK(cudaFuncSetAttribute(largest, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes<PIPE_DEPTH>));
  const int pairs = hg::max_resident_pairs(largest, kThreads, kSmemBytes<PIPE_DEPTH>);
  // A --break switch breaks the protocol, whatever the tile: its instances are built for the largest tile alone
  // (one tile's instances, not the menu's), which a broken run takes unless --tile asks for another.
  if constexpr (BREAK != hg::Break::kNone) {
    const hg::TileRequest asked = tile.n != 0 ? tile : hg::TileRequest{0, 256};
    if (hg::pick_tile(kTiles, kTileCount, g, pairs, knobs, asked, chosen, "Hopper") != 0)
      throw std::invalid_argument("a --break run takes the 256 x 256 tile, the one its broken instances are built "
                                  "for: drop --tile");
    return prepare_tile<128, 256, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
  } else {
    static_assert(kTileCount == 6, "one case per tile of the menu");
    switch (hg::pick_tile(kTiles, kTileCount, g, pairs, knobs, tile, chosen, "Hopper")) {
      // A pair tile of the menu is two CTA tiles along M: the instance takes each CTA's rows, kTiles[i].m / 2.
      case 0: return prepare_tile<kTiles[0].m / 2, kTiles[0].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
      case 1: return prepare_tile<kTiles[1].m / 2, kTiles[1].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
      case 2: return prepare_tile<kTiles[2].m / 2, kTiles[2].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
      case 3: return prepare_tile<kTiles[3].m / 2, kTiles[3].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
      case 4: return prepare_tile<kTiles[4].m / 2, kTiles[4].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
      default: return prepare_tile<kTiles[5].m / 2, kTiles[5].n, PIPE_DEPTH, BREAK>(g, knobs, pairs, chosen);
    }
  }
}

}  // namespace step11::sm90

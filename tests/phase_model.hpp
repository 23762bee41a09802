// tests/phase_model.hpp: a host model of mbarrier phase parity, to test and document the waits of the
// step kernels without a GPU.
//
// An mbarrier counts arrivals. When the expected number has arrived, the current phase completes and the
// barrier moves on to the next phase, whose parity (phase number mod 2) is the opposite. A thread waits
// with mbarrier.try_wait.parity(bar, p): it returns true once the phase with parity p has completed. Since
// only the current phase and the one before it can be named, "p == parity of the phase in progress" means
// "not yet", and "p != parity of the phase in progress" means "already done" (PTX ISA, "Parallel
// Synchronization and Communication Instructions: mbarrier", phase completion and try_wait.parity).
// The kernels keep a local bit for the parity they wait on; these simulations replay the kernels'
// protocols step by step and record what every wait would see. The CPU tests hold the tables of the
// original tutorial against them, and the docs print their tables from them, so neither can drift.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hg::model {

/// One mbarrier: expected arrivals per phase and the phase in progress.
class Mbarrier {
 public:
  explicit Mbarrier(int expected_arrivals = 1) : expected_(expected_arrivals), pending_(expected_arrivals) {}

  /// One arrival (tcgen05.commit, or mbarrier.arrive); the last expected one completes the phase.
  void arrive() {
    if (--pending_ == 0) {
      ++completed_;
      pending_ = expected_;
    }
  }
  /// Parity of the phase in progress: 0 after mbarrier.init, flipping at every completed phase.
  uint32_t current_parity() const { return uint32_t(completed_ & 1); }
  int completed_phases() const { return completed_; }
  /// mbarrier.try_wait.parity: true when the phase with parity `parity` has completed.
  bool try_wait_parity(uint32_t parity) const { return current_parity() != parity; }

 private:
  int expected_;
  int pending_;
  int completed_ = 0;
};

/// One iteration of step 2's K-loop on Blackwell: the elected thread issues the MMA of K tile k and
/// commits it to mma_bar; every thread waits on mma_bar with its local parity bit phase_mma.
struct KLoopRow {
  int k = 0;                   ///< K iteration
  uint32_t phase_before = 0;   ///< phase_mma passed to the wait
  uint32_t barrier_from = 0;   ///< parity of mma_bar's phase in progress while the MMA runs
  uint32_t barrier_to = 0;     ///< parity once the MMA's commit has arrived
  uint32_t phase_after = 0;    ///< phase_mma after the iteration
  bool returned_early = false; ///< the wait would have returned BEFORE the MMA completed (the bug)
};

/// Replays `k_tiles` iterations. With flip_phase (the correct kernel) phase_mma ^= 1 after every wait;
/// without it, every wait after the first one passes at once.
inline std::vector<KLoopRow> simulate_kloop(int k_tiles, bool flip_phase) {
  Mbarrier mma_bar(1);  // one arrival per phase: the tcgen05.commit
  uint32_t phase_mma = 0;
  std::vector<KLoopRow> rows;
  for (int k = 0; k < k_tiles; ++k) {
    KLoopRow row;
    row.k = k;
    row.phase_before = phase_mma;
    row.barrier_from = mma_bar.current_parity();
    row.returned_early = mma_bar.try_wait_parity(phase_mma);  // probed while the MMA is still running
    mma_bar.arrive();                                          // the MMA completes; its commit arrives
    row.barrier_to = mma_bar.current_parity();
    if (flip_phase) phase_mma ^= 1;
    row.phase_after = phase_mma;
    rows.push_back(row);
  }
  return rows;
}

/// One iteration of step 5's ring (both architectures; the mma columns are Blackwell's mma_bar).
struct RingRow {
  int k = 0;                      ///< K iteration
  int stage = 0;                  ///< k % depth: the ring stage consumed
  uint32_t phase_tma_before = 0;  ///< phase_tma passed to the wait on tma_bar[stage]
  uint32_t phase_mma_before = 0;  ///< phase_mma passed to the wait on mma_bar
  bool tma_early = false;         ///< the TMA wait would pass before tile k has landed (the bug)
  bool mma_early = false;         ///< the MMA wait would pass before the MMA of tile k completed
  int refill_tile = -1;           ///< K tile loaded into the stage after its MMA (-1: none left)
  uint32_t phase_tma_after = 0;
  uint32_t phase_mma_after = 0;
};

/// Replays step 5's ring of `depth` stages over `k_tiles` K tiles: the prologue loads tiles 0..depth-1,
/// iteration k waits for tile k in stage k % depth, then refills that stage with tile k + depth.
/// flip_tma_on_wrap = false drops the `if (stage == depth - 1) phase_tma ^= 1` line.
inline std::vector<RingRow> simulate_ring(int k_tiles, int depth, bool flip_tma_on_wrap = true) {
  std::vector<Mbarrier> tma_bar(size_t(depth), Mbarrier(1));  // per stage: the arrive.expect_tx (+ bytes)
  Mbarrier mma_bar(1);
  uint32_t phase_tma = 0, phase_mma = 0;
  std::vector<RingRow> rows;
  for (int k = 0; k < k_tiles; ++k) {
    RingRow row;
    row.k = k;
    row.stage = k % depth;
    row.phase_tma_before = phase_tma;
    row.phase_mma_before = phase_mma;
    Mbarrier& bar = tma_bar[size_t(row.stage)];
    // Tile k is the (k / depth)-th load into its stage; earlier loads there have all landed (their waits
    // passed), this one is still in flight: probe the wait now, then let the bytes land.
    row.tma_early = bar.try_wait_parity(phase_tma);
    bar.arrive();
    row.mma_early = mma_bar.try_wait_parity(phase_mma);  // the MMA on the stage is still running
    mma_bar.arrive();
    phase_mma ^= 1;
    row.refill_tile = k + depth < k_tiles ? k + depth : -1;
    if (flip_tma_on_wrap && row.stage == depth - 1) phase_tma ^= 1;
    row.phase_tma_after = phase_tma;
    row.phase_mma_after = phase_mma;
    rows.push_back(row);
  }
  return rows;
}

/// What step 6's waits see over several output tiles processed by one persistent CTA.
struct PersistentResult {
  int first_bad_tile = -1;  ///< first output tile in which some wait would return early (-1: none)
  int first_bad_k = -1;     ///< its K iteration
};

/// Replays `tiles` output tiles of `k_tiles` K tiles each through step 6's ring of `depth` stages.
/// running_state = true: stage and phases carry over from tile to tile (this repository's kernel);
/// false: the original tutorial's per-tile reset (stage restarts at 0, phase_tma = phase_mma = 0).
inline PersistentResult simulate_persistent(int tiles, int k_tiles, int depth, bool running_state) {
  std::vector<Mbarrier> tma_bar(size_t(depth), Mbarrier(1));
  Mbarrier mma_bar(1);
  int stage = 0;
  uint32_t phase_tma = 0, phase_mma = 0;
  PersistentResult result;
  for (int tile = 0; tile < tiles; ++tile) {
    if (!running_state) stage = 0, phase_tma = 0, phase_mma = 0;
    for (int k = 0; k < k_tiles; ++k) {
      Mbarrier& bar = tma_bar[size_t(stage)];
      const bool early = bar.try_wait_parity(phase_tma) || mma_bar.try_wait_parity(phase_mma);
      if (early && result.first_bad_tile < 0) result.first_bad_tile = tile, result.first_bad_k = k;
      // A wait that passed early does not make the load or the MMA complete sooner: the barriers
      // still count every arrival.
      bar.arrive();
      mma_bar.arrive();
      phase_mma ^= 1;
      if (++stage == depth) stage = 0, phase_tma ^= 1;
    }
  }
  return result;
}

}  // namespace hg::model

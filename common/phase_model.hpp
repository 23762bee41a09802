// common/phase_model.hpp: a host model of mbarrier phase parity, to test and document the waits of the
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

}  // namespace hg::model

// common/model/phase_model.hpp: a host model of mbarrier phase parity, to test and document the waits of the
// step kernels without a GPU.
//
// An mbarrier counts arrivals, and bytes announced with expect_tx. When the expected number has arrived and
// the byte count (tx-count) is back at zero, the current phase completes and the barrier moves on to the
// next phase, whose parity (phase number mod 2) is the opposite. A thread waits with
// mbarrier.try_wait.parity(bar, p): it returns true once the phase with parity p has completed. The PTX ISA
// ("mbarrier.test_wait/mbarrier.try_wait") lets p name only the phase in progress or the one just before it,
// so "p == parity of the phase in progress" means "not yet", and "p != parity of the phase in progress"
// means "already done". A waiter whose phase is neither of those two gets an answer about another phase of
// the same parity (parity_case below).
// The kernels keep a local bit for the parity they wait on; these simulations replay the kernels'
// protocols step by step and record what every wait would see. The CPU tests hold the tables of the
// original tutorial against them, and the docs print their tables from them, so neither can drift.
//
// Two kinds of simulation live here. simulate_kloop, simulate_ring and simulate_persistent are the first
// ones: each asynchronous operation completes during the K iteration after the one whose wait probes it,
// and they report whether a wait would pass before its operation completed. simulate_kloop_timed and
// simulate_tma_ring replay the same protocols with a chosen latency (AsyncTimeline) and count bytes, so they
// can also show a wait that never returns and an arrive.expect_tx that lands in the wrong phase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace hg::model {

/// One mbarrier: expected arrivals per phase, the tx-count, and the phase in progress.
class Mbarrier {
 public:
  explicit Mbarrier(int expected_arrivals = 1) : expected_(expected_arrivals), pending_(expected_arrivals) {}

  /// One arrival (tcgen05.commit, mbarrier.arrive, the arrive half of arrive.expect_tx). An arrival that
  /// finds no arrival pending in the phase breaks the CUDA Programming Guide's rule for asynchronous barriers
  /// (an arrive needs a non-zero count); the model flags it and leaves the phase unable to complete, since
  /// no document says what the hardware does then.
  void arrive() {
    if (pending_ <= 0) arrival_outside_rules_ = true;
    --pending_;
    complete_if_done();
  }
  /// The expect-tx half of arrive.expect_tx (PTX runs it before the arrival): the phase in progress now
  /// also waits for `bytes` more bytes.
  void expect_tx(int bytes) { tx_ += bytes; }
  /// Bytes of an asynchronous copy have landed (complete-tx). The tx-count may go below zero (bytes that
  /// land before they are announced); the phase completes only when it is exactly zero and no arrival is
  /// pending, which is the PTX ISA's condition.
  void complete_tx(int bytes) {
    tx_ -= bytes;
    complete_if_done();
  }

  /// Parity of the phase in progress: 0 after mbarrier.init, flipping at every completed phase.
  uint32_t current_parity() const { return uint32_t(completed_ & 1); }
  int completed_phases() const { return completed_; }
  /// Number of the phase in progress (phases count from 0 at mbarrier.init).
  int phase_in_progress() const { return completed_; }
  int tx_count() const { return tx_; }
  int pending_arrivals() const { return pending_; }
  bool arrival_outside_rules() const { return arrival_outside_rules_; }
  /// mbarrier.try_wait.parity: true when the phase with parity `parity` has completed.
  bool try_wait_parity(uint32_t parity) const { return current_parity() != parity; }
  /// The phase a parity names: the phase in progress if it has that parity, otherwise the one before it
  /// (-1, "the phase before the init", counts as completed).
  int named_phase(uint32_t parity) const { return parity == current_parity() ? completed_ : completed_ - 1; }

 private:
  void complete_if_done() {
    if (pending_ == 0 && tx_ == 0) {
      ++completed_;
      pending_ = expected_;
    }
  }

  int expected_;
  int pending_;
  int tx_ = 0;
  int completed_ = 0;
  bool arrival_outside_rules_ = false;
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


// ------------------------------------------------------------------------------------------------------
// The rule of try_wait.parity, case by case.
// ------------------------------------------------------------------------------------------------------

/// What try_wait.parity answers for a waiter that means phase `meant` while phase `current` is in progress.
struct ParityCase {
  enum Verdict {
    kRight,  ///< returns once phase `meant` has completed, as it should
    kEarly,  ///< returns although phase `meant` has not completed
    kLater,  ///< waits for a phase after `meant`: it returns only if more arrivals come, and never if they
             ///< come only after this wait (the same thread issues them), or if none come at all
  };
  int meant = 0;                 ///< the phase the waiter means (whose completion it wants to see)
  int current = 0;               ///< the phase in progress at the probe
  uint32_t parity = 0;           ///< the bit it passes
  int named = 0;                 ///< the phase that parity names (Mbarrier::named_phase)
  bool returns_at_once = false;  ///< try_wait.parity is true at the first probe
  Verdict verdict = kRight;
};

/// Drives a one-arrival barrier to phase `current` and asks it about `parity` on behalf of a waiter that
/// means phase `meant`.
inline ParityCase parity_case(int meant, int current, uint32_t parity) {
  Mbarrier bar(1);
  for (int i = 0; i < current; ++i) bar.arrive();
  ParityCase c;
  c.meant = meant;
  c.current = bar.phase_in_progress();
  c.parity = parity;
  c.named = bar.named_phase(parity);
  c.returns_at_once = bar.try_wait_parity(parity);
  // At once: right if `meant` has completed. Blocking: it returns when phase `named` (the one in progress)
  // completes, which is `meant` itself, one before it, or one after it.
  if (c.returns_at_once) c.verdict = meant < c.current ? ParityCase::kRight : ParityCase::kEarly;
  else c.verdict = c.named == meant ? ParityCase::kRight : (c.named < meant ? ParityCase::kEarly : ParityCase::kLater);
  return c;
}

// ------------------------------------------------------------------------------------------------------
// Simulations with timing: asynchronous operations (TMA loads, MMAs) complete after a chosen latency.
// ------------------------------------------------------------------------------------------------------

/// How a wait turned out, judged against what it waits for (its K tile's load, or its MMA).
enum class WaitOutcome {
  kAtOnce,        ///< returned at the first probe, and its operation had completed: right
  kAfterWaiting,  ///< blocked, and returned once its operation had completed: right
  kEarly,         ///< returned while its operation was still in flight: the data may be stale or partial
  kNever,         ///< blocked, and nothing left in flight completes the phase its parity names: a hang
};

inline const char* describe(WaitOutcome o) {
  switch (o) {
    case WaitOutcome::kAtOnce: return "returns at once (its data is there)";
    case WaitOutcome::kAfterWaiting: return "returns after the right phase";
    case WaitOutcome::kEarly: return "returns early";
    case WaitOutcome::kNever: return "never returns";
  }
  return "?";
}

/// How a timed simulation ended.
enum class RunEnd {
  kCompleted,  ///< every wait returned (rightly or not)
  kHang,       ///< a wait never returned: the kernel would spin until the watchdog stops it
  kUndefined,  ///< an arrival found no arrival pending in its phase; the model stops there (see arrive())
};

/// An operation in flight in an AsyncTimeline: its barrier, the phase meant to count it, pieces still to
/// land, bytes counted by another phase, and the step before which it completed (-1: not yet).
struct TimelineOp {
  int bar, meant_phase, left, bytes_elsewhere, completed_before;
};
/// One piece of an operation: bytes (0: an arrival) and the step before which it lands at the latest.
struct TimelinePiece {
  int op, bytes, due;
};

/// The clock of the timed simulations counts the steps of the issuing thread: each operation it issues
/// (a TMA load with its arrive.expect_tx, an MMA with its commit) is one step, and so is each wait. An
/// operation issued at step s has completed before step s + latency (latency >= 1; 1: before the thread's
/// very next step). While the thread blocks in a wait, time passes: operations in flight complete one piece
/// at a time, in issue order, until the wait is satisfied or nothing is left in flight. A TMA load completes
/// as pieces of bytes (complete-tx on its barrier); an MMA's commit completes as one arrival.
class AsyncTimeline {
 public:
  AsyncTimeline(int barriers, int latency)
      : bars_(size_t(barriers), Mbarrier(1)), latency_(latency < 1 ? 1 : latency) {}

  Mbarrier& bar(int b) { return bars_[size_t(b)]; }
  /// Starts the thread's next step: everything due by now lands first. Returns the step's number.
  int begin_step() {
    while (!pieces_.empty() && pieces_.front().due <= step_) land_one();
    return step_++;
  }

  /// Issues, in the step just begun, an operation on barrier b that is meant for phase `meant_phase` of it;
  /// bytes == 0 is an arrival (tcgen05.commit), otherwise bytes land in pieces of piece_bytes. Returns its id.
  int issue(int b, int meant_phase, int bytes, int piece_bytes) {
    const int id = int(ops_.size());
    Op op{b, meant_phase, 0, 0, -1};
    const int due = step_ - 1 + latency_;
    if (bytes == 0) {
      pieces_.push_back({id, 0, due});
      op.left = 1;
    } else {
      for (int left = bytes; left > 0; left -= piece_bytes) {
        pieces_.push_back({id, left < piece_bytes ? left : piece_bytes, due});
        ++op.left;
      }
    }
    ops_.push_back(op);
    return id;
  }
  bool done(int op) const { return ops_[size_t(op)].left == 0; }
  /// Bytes of the operation that a phase other than its own counted.
  int bytes_elsewhere(int op) const { return ops_[size_t(op)].bytes_elsewhere; }
  /// The step before which the operation completed (-1: still in flight).
  int completed_before(int op) const { return ops_[size_t(op)].completed_before; }

  /// One mbarrier_wait_parity(bar[b], parity) that waits for operation `op`, as one step. Reports the
  /// step, the phase in progress and the phase the parity names at the first probe.
  WaitOutcome wait(int b, uint32_t parity, int op, int* step, int* phase_at_probe, int* named) {
    *step = begin_step();
    Mbarrier& barrier = bars_[size_t(b)];
    *phase_at_probe = barrier.phase_in_progress();
    *named = barrier.named_phase(parity);
    if (barrier.try_wait_parity(parity)) return done(op) ? WaitOutcome::kAtOnce : WaitOutcome::kEarly;
    while (!barrier.try_wait_parity(parity) && !pieces_.empty()) land_one();
    if (!barrier.try_wait_parity(parity)) return WaitOutcome::kNever;
    return done(op) ? WaitOutcome::kAfterWaiting : WaitOutcome::kEarly;
  }

 private:
  using Op = TimelineOp;
  using Piece = TimelinePiece;
  void land_one() {
    const Piece p = pieces_.front();
    pieces_.pop_front();
    Op& op = ops_[size_t(p.op)];
    Mbarrier& barrier = bars_[size_t(op.bar)];
    if (p.bytes == 0) {
      barrier.arrive();
    } else {
      if (barrier.phase_in_progress() != op.meant_phase) op.bytes_elsewhere += p.bytes;
      barrier.complete_tx(p.bytes);
    }
    if (--op.left == 0) op.completed_before = step_;  // during a blocked wait: counts as before the next step
  }

  std::vector<Mbarrier> bars_;
  int latency_;
  int step_ = 0;
  std::vector<Op> ops_;
  std::deque<Piece> pieces_;
};

/// One wait of a timed simulation.
struct TimedWait {
  int tile = 0;            ///< output tile (step 6; 0 otherwise)
  int k = 0;               ///< K iteration
  int stage = 0;           ///< ring stage (0 for a single barrier)
  uint32_t parity = 0;     ///< the bit passed to the wait
  int meant_phase = 0;     ///< the phase whose completion means its operation is done
  int phase_at_probe = 0;  ///< the barrier's phase in progress at the first probe
  int named_phase = 0;     ///< the phase its parity names at the first probe
  int step = 0;            ///< the thread's step of the wait (AsyncTimeline)
  int op = -1;             ///< the operation it waits for (simulate_tma_ring: its index in TmaRun::loads)
  int op_completed_before = -1;  ///< the step before which that operation completed (-1: never)
  WaitOutcome outcome = WaitOutcome::kAtOnce;
};

/// Step 2's K-loop on Blackwell with timing: K iteration k issues MMA k and commits it to mma_bar (one
/// step; its one arrival is meant for phase k), then waits with phase_mma (the next step). latency 1: the
/// MMA completes before the wait's first probe; 2 or 3: during the next K iteration (what simulate_kloop
/// assumes); large: only while the thread blocks. Stops at a wait that never returns.
struct KLoopRun {
  std::vector<TimedWait> waits;
  RunEnd end = RunEnd::kCompleted;
};

inline KLoopRun simulate_kloop_timed(int k_tiles, bool flip_phase, int latency) {
  AsyncTimeline time(1, latency);
  uint32_t phase_mma = 0;
  KLoopRun run;
  for (int k = 0; k < k_tiles; ++k) {
    time.begin_step();
    const int mma = time.issue(0, k, 0, 0);  // tcgen05.mma + tcgen05.commit: one arrival when done
    TimedWait w;
    w.k = k;
    w.parity = phase_mma;
    w.meant_phase = k;
    w.op = mma;
    w.outcome = time.wait(0, phase_mma, mma, &w.step, &w.phase_at_probe, &w.named_phase);
    run.waits.push_back(w);
    if (w.outcome == WaitOutcome::kNever) {
      run.end = RunEnd::kHang;
      break;
    }
    if (flip_phase) phase_mma ^= 1;
  }
  for (TimedWait& w : run.waits) w.op_completed_before = time.completed_before(w.op);
  return run;
}

/// The TMA protocol of the Hopper kernels of step4_tma, step5_pipeline and step6_persistent (their Blackwell
/// kernels run the same one on their TMA barriers, plus mma_bar).
struct TmaRingConfig {
  int tiles = 1;                ///< output tiles one CTA computes (step 6); 1 for steps 4 and 5
  int k_tiles = 6;              ///< K tiles per output tile
  int depth = 2;                ///< ring stages; 1 is step 4's single buffer
  bool flip_on_wrap = true;     ///< false: --break no-tma-phase-flip
  bool reset_per_tile = false;  ///< true: --break reset-phase-per-tile (stage = 0, phase_tma = 0 per tile)
  int load_bytes = 32768;       ///< what the two TMA loads of a K tile bring
  int announced_bytes = 32768;  ///< what arrive.expect_tx announces (30720: --break short-expect-tx)
  int piece_bytes = 16384;      ///< the loads' bytes reach the barrier in pieces of this size
  int latency = 2;              ///< AsyncTimeline: a load has landed `latency` steps of thread 0 after its issue
};

/// One load: the arrive.expect_tx of thread 0 and the bytes of the two TMA copies.
struct TmaLoad {
  int tile = 0, k = 0;        ///< output tile and K tile loaded
  int stage = 0;              ///< ring stage written
  int issued_in_k = -1;       ///< K iteration whose refill issued it (-1: the tile's prologue)
  int meant_phase = 0;        ///< the phase of tma_bar[stage] that should count it: one per load into the stage
  int landed_in_phase = 0;    ///< the phase in progress when its arrive.expect_tx ran
  int tx_before = 0;          ///< that phase's tx-count just before (below 0: bytes of earlier loads counted)
  int tx_after = 0;           ///< and just after the arrive.expect_tx
  bool outside_rules = false; ///< its arrival found no arrival pending (the previous load's phase still open)
  bool stage_busy = false;    ///< the previous load into the stage had not fully landed: two loads write it
  int bytes_elsewhere = 0;    ///< bytes of this load counted by a phase other than meant_phase
  int issued_at = 0;          ///< thread 0's step that issued it (AsyncTimeline)
  int landed_before = -1;     ///< the step before which its last byte landed (-1: in flight at the end)
};

struct TmaRun {
  std::vector<TmaLoad> loads;  ///< in issue order
  std::vector<TimedWait> waits;
  RunEnd end = RunEnd::kCompleted;
  std::vector<int> tx_at_end;  ///< each stage barrier's tx-count when the run ends
};

/// Replays the ring: per output tile (optionally resetting stage and phase_tma), the prologue loads the first
/// min(depth, k_tiles) K tiles from the running stage on; K iteration i waits on tma_bar[stage] with
/// phase_tma, refills the stage with K tile i + depth, advances the stage and flips phase_tma when the ring
/// wraps. Stops at a wait that never returns, or at an arrival outside the rules.
inline TmaRun simulate_tma_ring(const TmaRingConfig& cfg) {
  const int depth = cfg.depth;
  AsyncTimeline time(depth, cfg.latency);
  std::vector<int> loads_into(size_t(depth), 0);  // loads issued into each stage so far
  std::vector<int> last_op(size_t(depth), -1);    // the latest load into each stage
  TmaRun run;
  std::vector<int> op_of_k(size_t(cfg.k_tiles), -1);
  auto load = [&](int tile, int stage, int k, int issued_in) {
    Mbarrier& bar = time.bar(stage);
    TmaLoad l;
    l.issued_at = time.begin_step();
    l.tile = tile, l.k = k, l.stage = stage, l.issued_in_k = issued_in;
    l.meant_phase = loads_into[size_t(stage)]++;
    l.stage_busy = last_op[size_t(stage)] >= 0 && !time.done(last_op[size_t(stage)]);
    l.landed_in_phase = bar.phase_in_progress();
    l.tx_before = bar.tx_count();
    l.outside_rules = bar.pending_arrivals() <= 0;
    bar.expect_tx(cfg.announced_bytes);  // mbarrier.arrive.expect_tx: expect-tx, then the arrival
    l.tx_after = bar.tx_count();
    bar.arrive();
    const int op = time.issue(stage, l.meant_phase, cfg.load_bytes, cfg.piece_bytes);
    last_op[size_t(stage)] = op;
    op_of_k[size_t(k)] = op;
    run.loads.push_back(l);
    return !l.outside_rules;
  };
  auto finish = [&](RunEnd end) {
    for (size_t i = 0; i < run.loads.size(); ++i) {
      run.loads[i].bytes_elsewhere = time.bytes_elsewhere(int(i));
      run.loads[i].landed_before = time.completed_before(int(i));
    }
    for (TimedWait& w : run.waits) w.op_completed_before = time.completed_before(w.op);
    for (int b = 0; b < depth; ++b) run.tx_at_end.push_back(time.bar(b).tx_count());
    run.end = end;
    return run;
  };
  int stage = 0;
  uint32_t phase_tma = 0;
  for (int tile = 0; tile < cfg.tiles; ++tile) {
    if (cfg.reset_per_tile) stage = 0, phase_tma = 0;
    for (int s = 0; s < depth && s < cfg.k_tiles; ++s)
      if (!load(tile, (stage + s) % depth, s, -1)) return finish(RunEnd::kUndefined);
    for (int i = 0; i < cfg.k_tiles; ++i) {
      const int op = op_of_k[size_t(i)];
      TimedWait w;
      w.tile = tile, w.k = i, w.stage = stage, w.parity = phase_tma;
      w.meant_phase = run.loads[size_t(op)].meant_phase;
      w.op = op;
      w.outcome = time.wait(stage, phase_tma, op, &w.step, &w.phase_at_probe, &w.named_phase);
      run.waits.push_back(w);
      if (w.outcome == WaitOutcome::kNever) return finish(RunEnd::kHang);
      // (the MMA on the stage runs here; the Hopper kernel waits for it with wgmma.wait_group 0)
      if (i + depth < cfg.k_tiles && !load(tile, stage, i + depth, i)) return finish(RunEnd::kUndefined);
      if (++stage == depth) {
        stage = 0;
        if (cfg.flip_on_wrap) phase_tma ^= 1;
      }
    }
  }
  return finish(RunEnd::kCompleted);
}

/// The first wait of a run whose outcome is `o` (nullptr: none).
inline const TimedWait* first_wait(const std::vector<TimedWait>& waits, WaitOutcome o) {
  for (const TimedWait& w : waits)
    if (w.outcome == o) return &w;
  return nullptr;
}

/// The first load of a run whose arrive.expect_tx landed in a phase other than its own (nullptr: none).
inline const TmaLoad* first_misplaced_load(const TmaRun& run) {
  for (const TmaLoad& l : run.loads)
    if (l.landed_in_phase != l.meant_phase) return &l;
  return nullptr;
}

/// When a load's last byte landed, relative to what thread 0 did.
enum class Landing {
  kBeforeItsWait,          ///< before the first probe of the wait for it
  kBeforeNextLoadInStage,  ///< after that probe, before the next load into its stage was issued
  kAfterNextLoadInStage,   ///< after that load was issued, or not by the end of the run
};

inline Landing landing_of(const TmaRun& run, int load) {
  const TmaLoad& l = run.loads[size_t(load)];
  if (l.landed_before < 0) return Landing::kAfterNextLoadInStage;
  for (const TimedWait& w : run.waits)
    if (w.op == load && l.landed_before <= w.step) return Landing::kBeforeItsWait;
  for (size_t i = size_t(load) + 1; i < run.loads.size(); ++i)
    if (run.loads[i].stage == l.stage)
      return l.landed_before <= run.loads[i].issued_at ? Landing::kBeforeNextLoadInStage
                                                       : Landing::kAfterNextLoadInStage;
  return Landing::kBeforeNextLoadInStage;
}

}  // namespace hg::model

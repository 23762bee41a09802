// CPU tests of the mbarrier phase model (common/model/phase_model.hpp) against the original tutorial's tables.
#include <doctest/doctest.h>

#include "common/model/phase_model.hpp"

using hg::model::Mbarrier;

TEST_CASE("mbarrier model: a phase completes when the expected arrivals are in, and its parity flips") {
  Mbarrier bar(2);
  CHECK(bar.current_parity() == 0);
  CHECK_FALSE(bar.try_wait_parity(0));  // phase 0 in progress: waiting for it blocks
  CHECK(bar.try_wait_parity(1));        // "parity 1" names the phase before, which counts as complete
  bar.arrive();
  CHECK(bar.current_parity() == 0);     // one of two arrivals: still phase 0
  CHECK_FALSE(bar.try_wait_parity(0));
  bar.arrive();
  CHECK(bar.current_parity() == 1);     // phase 0 complete, phase 1 in progress
  CHECK(bar.try_wait_parity(0));
  CHECK_FALSE(bar.try_wait_parity(1));
  CHECK(bar.completed_phases() == 1);
}

TEST_CASE("step 2 K-loop: the tutorial's table, row by row") {
  // K iteration | phase_mma before the wait | the wait waits for | phase_mma after
  //      0      |            0              | barrier 0 -> 1     |        1
  //      1      |            1              | barrier 1 -> 0     |        0
  //      2      |            0              | barrier 0 -> 1     |        1
  const auto rows = hg::model::simulate_kloop(3, /*flip_phase=*/true);
  REQUIRE(rows.size() == 3);
  const uint32_t want[3][4] = {{0, 0, 1, 1}, {1, 1, 0, 0}, {0, 0, 1, 1}};
  for (int k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(rows[k].k == k);
    CHECK(rows[k].phase_before == want[k][0]);
    CHECK(rows[k].barrier_from == want[k][1]);
    CHECK(rows[k].barrier_to == want[k][2]);
    CHECK(rows[k].phase_after == want[k][3]);
    CHECK_FALSE(rows[k].returned_early);  // every wait really waits for its MMA
  }
}

TEST_CASE("step 2 K-loop: with the flip, no wait ever returns early, for any K") {
  for (int k_tiles : {1, 2, 3, 64, 257})
    for (const auto& row : hg::model::simulate_kloop(k_tiles, true)) CHECK_FALSE(row.returned_early);
}

TEST_CASE("step 2 K-loop: without the flip, the wait of iteration 1 returns before its MMA completes") {
  const auto rows = hg::model::simulate_kloop(4, /*flip_phase=*/false);
  CHECK_FALSE(rows[0].returned_early);  // the first wait is still right: phase 0 is in progress
  CHECK(rows[1].phase_before == 0);     // still waiting on parity 0 ...
  CHECK(rows[1].barrier_from == 1);     // ... but the barrier is already in phase 1
  CHECK(rows[1].returned_early);        // so try_wait.parity(0) passes at once: silently wrong
  CHECK(rows[2].returned_early == false);  // and the error is intermittent: every other wait happens
  CHECK(rows[3].returned_early);           // to line up again
}

TEST_CASE("step 5 ring, PIPE_DEPTH 2: phase_mma flips every K tile, phase_tma when the ring wraps") {
  // k | stage | phase_tma before | phase_mma before | refill
  const int want[6][5] = {{0, 0, 0, 0, 2}, {1, 1, 0, 1, 3}, {2, 0, 1, 0, 4},
                          {3, 1, 1, 1, 5}, {4, 0, 0, 0, -1}, {5, 1, 0, 1, -1}};
  const auto rows = hg::model::simulate_ring(6, 2);
  REQUIRE(rows.size() == 6);
  for (int k = 0; k < 6; ++k) {
    CAPTURE(k);
    CHECK(rows[k].k == want[k][0]);
    CHECK(rows[k].stage == want[k][1]);
    CHECK(rows[k].phase_tma_before == uint32_t(want[k][2]));
    CHECK(rows[k].phase_mma_before == uint32_t(want[k][3]));
    CHECK(rows[k].refill_tile == want[k][4]);
    CHECK_FALSE(rows[k].tma_early);
    CHECK_FALSE(rows[k].mma_early);
  }
}

TEST_CASE("step 5 ring: PIPE_DEPTH 3 and 4 are correct for any number of K tiles, short K included") {
  for (int depth : {2, 3, 4})
    for (int k_tiles : {1, 2, 3, 4, 5, 7, 64, 65}) {
      CAPTURE(depth);
      CAPTURE(k_tiles);
      const auto rows = hg::model::simulate_ring(k_tiles, depth);
      for (const auto& row : rows) {
        CHECK_FALSE(row.tma_early);
        CHECK_FALSE(row.mma_early);
        CHECK(row.phase_tma_before == uint32_t((row.k / depth) & 1));  // one phase per trip around the ring
      }
    }
}

TEST_CASE("step 5 ring: without the wrap flip, the first reuse of stage 0 consumes a tile not yet loaded") {
  for (int depth : {2, 3, 4}) {
    CAPTURE(depth);
    const auto rows = hg::model::simulate_ring(3 * depth, depth, /*flip_tma_on_wrap=*/false);
    for (int k = 0; k < depth; ++k) CHECK_FALSE(rows[k].tma_early);  // first trip: still right
    CHECK(rows[depth].tma_early);  // tile `depth` in stage 0: parity 0 already completed, the wait passes
  }
}

TEST_CASE("step 6: the per-tile phase reset goes wrong on the second tile when K tiles are odd") {
  // 3 K tiles, PIPE_DEPTH 2: after one tile, mma_bar has completed 3 phases (parity 1) and stage 1 one
  // phase, so a reset to parity 0 makes the second tile's first waits pass at once.
  const auto reset = hg::model::simulate_persistent(/*tiles=*/4, /*k_tiles=*/3, /*depth=*/2, false);
  CHECK(reset.first_bad_tile == 1);
  CHECK(reset.first_bad_k == 0);
  const auto running = hg::model::simulate_persistent(4, 3, 2, true);
  CHECK(running.first_bad_tile == -1);
}

TEST_CASE("step 6: the running state is right for every K, the reset only when K_TILES % (2*PIPE_DEPTH) == 0") {
  for (int depth : {2, 3, 4})
    for (int k_tiles = 1; k_tiles <= 20; ++k_tiles) {
      CAPTURE(depth);
      CAPTURE(k_tiles);
      CHECK(hg::model::simulate_persistent(5, k_tiles, depth, true).first_bad_tile == -1);
      const bool original_assertion_holds = k_tiles % (2 * depth) == 0;
      CHECK((hg::model::simulate_persistent(5, k_tiles, depth, false).first_bad_tile == -1) ==
            original_assertion_holds);
    }
}

// ------------------------------------------------------------------------------------------------------
// Bytes, the rule of try_wait.parity, and the timed simulations (what a stale bit or a wrong byte count does).
// ------------------------------------------------------------------------------------------------------
using hg::model::ParityCase;
using hg::model::RunEnd;
using hg::model::TmaRingConfig;
using hg::model::WaitOutcome;

TEST_CASE("mbarrier model: a phase completes when its arrival is in and the tx-count is exactly zero") {
  Mbarrier bar(1);
  bar.expect_tx(32768);
  bar.arrive();
  CHECK(bar.pending_arrivals() == 0);
  CHECK(bar.completed_phases() == 0);  // the arrival is in, the bytes are not
  bar.complete_tx(16384);
  CHECK(bar.completed_phases() == 0);
  bar.complete_tx(16384);
  CHECK(bar.completed_phases() == 1);  // both in: phase 0 completes
  CHECK(bar.tx_count() == 0);

  // Bytes that land before the arrival: the count goes below zero, and the phase waits for the arrival.
  bar.complete_tx(16384);
  CHECK(bar.tx_count() == -16384);
  CHECK(bar.completed_phases() == 1);
  bar.expect_tx(32768);
  bar.arrive();
  CHECK(bar.completed_phases() == 1);
  bar.complete_tx(16384);
  CHECK(bar.completed_phases() == 2);

  // A count that steps over zero: 30720 announced, two pieces of 16384 land. It never equals zero.
  bar.expect_tx(30720);
  bar.arrive();
  bar.complete_tx(16384);
  bar.complete_tx(16384);
  CHECK(bar.tx_count() == -2048);
  CHECK(bar.completed_phases() == 2);
  CHECK_FALSE(bar.try_wait_parity(0));  // phase 2 (parity 0) stays in progress
  CHECK_FALSE(bar.arrival_outside_rules());

  // A second arrival in a phase that expects one: flagged.
  Mbarrier two(1);
  two.expect_tx(32768);
  two.arrive();
  two.expect_tx(32768);
  two.arrive();
  CHECK(two.arrival_outside_rules());
  CHECK(two.tx_count() == 65536);
}

TEST_CASE("try_wait.parity names the phase in progress or the one before it: the eight cases of one waiter") {
  // The waiter means phase 2 (parity 0). Phase in progress | bit | phase named | returns at once | verdict
  struct Want {
    int current;
    uint32_t parity;
    int named;
    bool at_once;
    ParityCase::Verdict verdict;
  };
  const Want want[] = {
      {1, 0, 0, true, ParityCase::kEarly},   // phase 2 not started: parity 0 names phase 0, long completed
      {1, 1, 1, false, ParityCase::kEarly},  // waits for phase 1 only
      {2, 0, 2, false, ParityCase::kRight},  // waits for phase 2
      {2, 1, 1, true, ParityCase::kEarly},   // the forgotten flip: phase 1 completed, phase 2 has not
      {3, 0, 2, true, ParityCase::kRight},   // phase 2 completed: passes at once
      {3, 1, 3, false, ParityCase::kLater},  // a stale bit one phase late: waits for phase 3
      {4, 0, 4, false, ParityCase::kLater},  // the right bit two phases late: waits for phase 4
      {4, 1, 3, true, ParityCase::kRight},   // passes, phase 2 having completed two phases ago
  };
  for (const Want& w : want) {
    CAPTURE(w.current);
    CAPTURE(w.parity);
    const ParityCase c = hg::model::parity_case(2, w.current, w.parity);
    CHECK(c.current == w.current);
    CHECK(c.named == w.named);
    CHECK(c.returns_at_once == w.at_once);
    CHECK(c.verdict == w.verdict);
  }
}

TEST_CASE("try_wait.parity answers about the phase meant only from that phase or the next, with the right bit") {
  for (int meant = 0; meant <= 5; ++meant)
    for (int current = 0; current <= 8; ++current)
      for (uint32_t parity : {0u, 1u}) {
        CAPTURE(meant);
        CAPTURE(current);
        CAPTURE(parity);
        const ParityCase c = hg::model::parity_case(meant, current, parity);
        const bool right_bit = parity == uint32_t(meant & 1);
        const bool within_one = current == meant || current == meant + 1;
        CHECK((c.named == meant) == (right_bit && within_one));
        // Otherwise the answer is about another phase: with the right bit two or more phases away, with a
        // stale bit an odd number of phases away.
        if (c.named != meant) CHECK(((c.named - meant) % 2 == 0) == right_bit);
        // Early: it can return while phase `meant` is incomplete. Later: it blocks on a phase after it.
        CHECK((c.verdict == ParityCase::kEarly) == (current <= meant && c.named != meant));
        CHECK((c.verdict == ParityCase::kLater) == (current > meant && c.named == current));
        CHECK(c.returns_at_once == (c.named < current));
      }
}

TEST_CASE("step 2 timed: with the flip, every wait is right whenever the MMAs complete") {
  for (int latency : {1, 2, 3, 4, 7, 1000})
    for (int k_tiles = 1; k_tiles <= 9; ++k_tiles) {
      CAPTURE(latency);
      CAPTURE(k_tiles);
      const auto run = hg::model::simulate_kloop_timed(k_tiles, true, latency);
      CHECK(run.end == RunEnd::kCompleted);
      REQUIRE(run.waits.size() == size_t(k_tiles));
      for (const auto& w : run.waits) {
        CHECK((w.outcome == WaitOutcome::kAtOnce || w.outcome == WaitOutcome::kAfterWaiting));
        CHECK(w.named_phase == w.meant_phase);
      }
    }
}

TEST_CASE("step 2 timed without the flip: early while the MMA runs, a hang if it completed before the probe") {
  // MMA k completes before the wait's first probe: K iteration 1 waits with parity 0 while phase 2 is in
  // progress, i.e. for MMA 2, which is issued only after this wait.
  const auto fast = hg::model::simulate_kloop_timed(4, false, 1);
  CHECK(fast.end == RunEnd::kHang);
  REQUIRE(fast.waits.size() == 2);
  CHECK(fast.waits[0].outcome == WaitOutcome::kAtOnce);
  CHECK(fast.waits[1].outcome == WaitOutcome::kNever);
  CHECK(fast.waits[1].meant_phase == 1);
  CHECK(fast.waits[1].named_phase == 2);
  CHECK(fast.waits[1].op_completed_before <= fast.waits[1].step);  // MMA 1 was done before the probe

  // MMA k completes during K iteration k + 1: the pattern of simulate_kloop (every other wait early).
  const auto next = hg::model::simulate_kloop_timed(4, false, 2);
  const auto rows = hg::model::simulate_kloop(4, false);
  CHECK(next.end == RunEnd::kCompleted);
  REQUIRE(next.waits.size() == 4);
  for (int k = 0; k < 4; ++k) {
    CAPTURE(k);
    CHECK((next.waits[size_t(k)].outcome == WaitOutcome::kEarly) == rows[size_t(k)].returned_early);
  }

  // MMAs that complete only while the thread waits: every wait after the first returns early.
  const auto slow = hg::model::simulate_kloop_timed(4, false, 1000);
  CHECK(slow.end == RunEnd::kCompleted);
  CHECK(slow.waits[0].outcome == WaitOutcome::kAfterWaiting);
  for (int k = 1; k < 4; ++k) CHECK(slow.waits[size_t(k)].outcome == WaitOutcome::kEarly);
}

TEST_CASE("TMA ring timed: the kernels' protocol is right for any depth, K, tile count, latency and byte pieces") {
  for (int depth : {1, 2, 3, 4})
    for (int k_tiles : {1, 2, 3, 4, 5, 7, 8, 17})
      for (int tiles : {1, 3})
        for (int latency : {1, 2, 3, 5, 8, 1000})
          for (int piece : {16384, 2048}) {
            CAPTURE(depth);
            CAPTURE(k_tiles);
            CAPTURE(tiles);
            CAPTURE(latency);
            CAPTURE(piece);
            TmaRingConfig cfg;
            cfg.depth = depth, cfg.k_tiles = k_tiles, cfg.tiles = tiles, cfg.latency = latency, cfg.piece_bytes = piece;
            const auto run = hg::model::simulate_tma_ring(cfg);
            CHECK(run.end == RunEnd::kCompleted);
            CHECK(run.waits.size() == size_t(tiles * k_tiles));
            CHECK(run.loads.size() == size_t(tiles * k_tiles));
            for (const auto& w : run.waits)
              CHECK((w.outcome == WaitOutcome::kAtOnce || w.outcome == WaitOutcome::kAfterWaiting));
            for (const auto& l : run.loads) {
              CHECK(l.landed_in_phase == l.meant_phase);
              CHECK_FALSE(l.outside_rules);
              CHECK_FALSE(l.stage_busy);
              CHECK(l.bytes_elsewhere == 0);
              CHECK(l.tx_before == 0);
            }
            // The per-tile reset is just as right when every stage completes an even number of phases per tile.
            cfg.reset_per_tile = true;
            if (tiles == 1 || k_tiles % (2 * depth) == 0) {
              const auto reset = hg::model::simulate_tma_ring(cfg);
              CHECK(reset.end == RunEnd::kCompleted);
              CHECK(hg::model::first_wait(reset.waits, WaitOutcome::kEarly) == nullptr);
            }
          }
}

TEST_CASE("no-tma-phase-flip: the first reuse of a stage hangs, returns early, or lets the refill into the open phase") {
  TmaRingConfig cfg;
  cfg.depth = 2, cfg.k_tiles = 64, cfg.flip_on_wrap = false;

  // K tile 2 has landed before the wait of K iteration 2: parity 0 names phase 2 of tma_bar[0], which only
  // the refill issued after this wait (K tile 4) can complete.
  cfg.latency = 2;
  auto run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kHang);
  REQUIRE(run.waits.size() == 3);
  CHECK(run.waits[2].stage == 0);
  CHECK(run.waits[2].parity == 0);
  CHECK(run.waits[2].meant_phase == 1);
  CHECK(run.waits[2].named_phase == 2);
  CHECK(run.waits[2].outcome == WaitOutcome::kNever);
  CHECK(run.loads[2].landed_before <= run.waits[2].step);
  CHECK(hg::model::landing_of(run, 2) == hg::model::Landing::kBeforeItsWait);
  CHECK(hg::model::first_misplaced_load(run) == nullptr);

  // K tile 2 lands after that wait but before the refill: early returns in K iterations 2 and 3, then the
  // bit and the barriers line up again.
  cfg.latency = 4;
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kCompleted);
  CHECK(run.waits[2].outcome == WaitOutcome::kEarly);
  CHECK(run.waits[2].named_phase == 0);
  CHECK(run.loads[2].landed_before > run.waits[2].step);
  CHECK(run.loads[2].landed_before <= run.loads[4].issued_at);
  CHECK(hg::model::landing_of(run, 2) == hg::model::Landing::kBeforeNextLoadInStage);
  CHECK(run.waits[3].outcome == WaitOutcome::kEarly);
  CHECK(run.waits[4].outcome == WaitOutcome::kAfterWaiting);
  CHECK(hg::model::first_misplaced_load(run) == nullptr);

  // K tile 2 still in flight at the refill: K tile 4's arrive.expect_tx lands in phase 1, which already has
  // its arrival and still counts K tile 2's bytes; two loads write stage 0.
  cfg.latency = 6;
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kUndefined);
  CHECK(run.waits[2].outcome == WaitOutcome::kEarly);
  CHECK(hg::model::landing_of(run, 2) == hg::model::Landing::kAfterNextLoadInStage);
  const auto* l = hg::model::first_misplaced_load(run);
  REQUIRE(l != nullptr);
  CHECK(l->k == 4);
  CHECK(l->stage == 0);
  CHECK(l->meant_phase == 2);
  CHECK(l->landed_in_phase == 1);
  CHECK(l->tx_before == 32768);
  CHECK(l->tx_after == 65536);
  CHECK(l->outside_rules);
  CHECK(l->stage_busy);

  // 256 x 256 x 256 (4 K tiles), loads landing before their waits: the same hang (the H200's watchdog
  // report named tma_bar[0] and parity 0). Deeper rings hang at their first reuse, K iteration PIPE_DEPTH.
  for (int depth : {2, 3}) {
    CAPTURE(depth);
    TmaRingConfig small;
    small.depth = depth, small.k_tiles = 4, small.flip_on_wrap = false, small.latency = 2;
    const auto r = hg::model::simulate_tma_ring(small);
    CHECK(r.end == RunEnd::kHang);
    CHECK(r.waits.back().k == depth);
    CHECK(r.waits.back().stage == 0);
    CHECK(r.waits.back().parity == 0);
  }
}

TEST_CASE("reset-phase-per-tile: the H200 shapes, replayed") {
  // 4096 x 2048 x 192: 3 K tiles, two output tiles per CTA. Loads that land before their waits: tile 1's
  // wait on tma_bar[1] with parity 0 names phase 2, which no load will complete (the H200's report).
  TmaRingConfig cfg;
  cfg.depth = 2, cfg.k_tiles = 3, cfg.tiles = 2, cfg.reset_per_tile = true, cfg.latency = 2;
  auto run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kHang);
  CHECK(run.waits.back().tile == 1);
  CHECK(run.waits.back().k == 1);
  CHECK(run.waits.back().stage == 1);
  CHECK(run.waits.back().parity == 0);
  CHECK(run.waits.back().named_phase == 2);
  CHECK(run.waits.back().meant_phase == 1);
  // Loads still in flight at their waits: the same wait returns early instead.
  cfg.latency = 5;
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kCompleted);
  const auto* early = hg::model::first_wait(run.waits, WaitOutcome::kEarly);
  REQUIRE(early != nullptr);
  CHECK(early->tile == 1);
  CHECK(early->k == 1);

  // 4096 x 4096 x 64: 1 K tile, up to four output tiles per CTA, every tile's load into stage 0.
  cfg.k_tiles = 1, cfg.tiles = 4;
  cfg.latency = 1;  // the load lands before its wait: tile 1 waits for phase 2
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kHang);
  CHECK(run.waits.back().tile == 1);
  cfg.latency = 2;  // lands after its wait, before the next tile's load: every other tile early
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kCompleted);
  CHECK(run.waits[1].outcome == WaitOutcome::kEarly);
  CHECK(run.waits[2].outcome == WaitOutcome::kAfterWaiting);
  CHECK(run.waits[3].outcome == WaitOutcome::kEarly);
  cfg.latency = 3;  // still in flight when the next tile's load is issued: its expect_tx lands in phase 1
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kUndefined);
  const auto* l = hg::model::first_misplaced_load(run);
  REQUIRE(l != nullptr);
  CHECK(l->tile == 2);
  CHECK(l->landed_in_phase == 1);
  CHECK(l->meant_phase == 2);

  // The running state of this repository is right in all of these.
  for (int latency : {1, 2, 3, 5})
    for (int k_tiles : {1, 3}) {
      TmaRingConfig ok;
      ok.depth = 2, ok.k_tiles = k_tiles, ok.tiles = 4, ok.latency = latency;
      const auto r = hg::model::simulate_tma_ring(ok);
      CHECK(r.end == RunEnd::kCompleted);
      CHECK(hg::model::first_wait(r.waits, WaitOutcome::kEarly) == nullptr);
    }
}

TEST_CASE("short-expect-tx: 2048 bytes fewer announced than loaded") {
  TmaRingConfig cfg;
  cfg.depth = 1, cfg.k_tiles = 64, cfg.announced_bytes = 32768 - 2048;
  // One piece per TMA copy (16384 bytes): 30720 -> 14336 -> -2048, never zero. K iteration 0 hangs.
  for (int latency : {1, 2, 1000}) {
    CAPTURE(latency);
    cfg.piece_bytes = 16384, cfg.latency = latency;
    const auto run = hg::model::simulate_tma_ring(cfg);
    CHECK(run.end == RunEnd::kHang);
    REQUIRE(run.waits.size() == 1);
    CHECK(run.waits[0].parity == 0);
    CHECK(hg::model::first_wait(run.waits, WaitOutcome::kEarly) == nullptr);
  }
  // Pieces of 2048 bytes reach zero exactly: each phase completes 2048 bytes short, and the rest of the
  // load is counted by the next phase. Loads landing before their waits: no wait returns early, but after
  // 16 phases the carried bytes (-32768) exceed what the next load announces, and K iteration 16 hangs.
  cfg.piece_bytes = 2048, cfg.latency = 1;
  auto run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kHang);
  CHECK(hg::model::first_wait(run.waits, WaitOutcome::kEarly) == nullptr);
  CHECK(run.waits.back().k == 16);
  CHECK(run.loads[16].tx_before == -32768);
  CHECK(run.loads[0].bytes_elsewhere == 2048);
  CHECK(run.loads[15].bytes_elsewhere == 32768);
  // Loads landing only while the thread waits: every wait returns early, none hangs in 64 K tiles.
  cfg.latency = 1000;
  run = hg::model::simulate_tma_ring(cfg);
  CHECK(run.end == RunEnd::kCompleted);
  for (const auto& w : run.waits) CHECK(w.outcome == WaitOutcome::kEarly);
}

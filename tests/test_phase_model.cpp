// CPU tests of the mbarrier phase model (tests/phase_model.hpp) against the original tutorial's tables.
#include <doctest/doctest.h>

#include "tests/phase_model.hpp"

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

// CPU tests of the mbarrier phase model (common/phase_model.hpp) against the original tutorial's tables.
#include <doctest/doctest.h>

#include "common/phase_model.hpp"

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

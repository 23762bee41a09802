// CPU tests of the host model of step 7's warp-specialized protocol (common/model/ws_model.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/model/ws_model.hpp"

using hg::model::WsArch;
using hg::model::WsConfig;
using hg::model::WsHazardKind;
using hg::model::WsRun;
using hg::model::WsSpan;
using hg::model::WsSpanKind;

namespace {

WsConfig ws_config(WsArch arch, int tiles, int k_tiles, int depth) {
  WsConfig c;
  c.arch = arch, c.tiles = tiles, c.k_tiles = k_tiles, c.depth = depth;
  return c;
}

/// The first hazard as text, for the failure message.
std::string first_hazard(const WsRun& r) {
  return r.hazards.empty() ? "none" : std::string(describe(r.hazards[0].kind)) + ": " + r.hazards[0].what;
}

/// Every K tile ran exactly once on the tensor pipe, in ring order, and every tile's epilogue finished.
void check_complete(const WsRun& r, const WsConfig& c) {
  CHECK(r.tiles_done == c.tiles);
  REQUIRE(r.pipe.size() == size_t(c.tiles * c.k_tiles));
  for (size_t i = 0; i < r.pipe.size(); ++i) {
    CHECK(r.pipe[i].tile * c.k_tiles + r.pipe[i].k == int(i));
    if (i > 0) CHECK(r.pipe[i].start >= r.pipe[i - 1].end);  // one K tile at a time
  }
  CHECK(r.mma_busy == c.tiles * c.k_tiles * c.mma);
}

}  // namespace

TEST_CASE("ws model, defaults: 3 tiles of 4 K tiles, ring of 4, on both architectures") {
  for (WsArch arch : {WsArch::kBlackwell, WsArch::kHopper}) {
    CAPTURE(int(arch));
    const WsConfig c = ws_config(arch, 3, 4, 4);
    const WsRun r = hg::model::simulate_ws(c);
    INFO(first_hazard(r));
    CHECK(r.hazards.empty());
    check_complete(r, c);
    // The loads of the first 4 K tiles land at 6; from there the tensor pipe never stops (48 units of MMA),
    // and the last epilogue (10) follows the last MMA.
    CHECK(r.pipe.front().start == 6);
    CHECK(r.pipe.back().end == 6 + 48);
    CHECK(r.total_time == 64);
    CHECK(r.epilogue_overlap == std::vector<int>{10, 10, 0});
  }
}

TEST_CASE("ws model, Blackwell: no hazard, every tile done, and the epilogue of tile t runs under the MMAs of t+1") {
  for (int tiles = 2; tiles <= 6; ++tiles)
    for (int k_tiles = 2; k_tiles <= 5; ++k_tiles) {
      CAPTURE(tiles);
      CAPTURE(k_tiles);
      const WsConfig c = ws_config(WsArch::kBlackwell, tiles, k_tiles, 4);
      const WsRun r = hg::model::simulate_ws(c);
      INFO(first_hazard(r));
      CHECK(r.hazards.empty());
      check_complete(r, c);
      for (int t = 0; t + 1 < tiles; ++t) CHECK(r.epilogue_overlap[size_t(t)] > 0);
      // The hand-offs: acc_full when the tile's last MMA completes, acc_empty when its TMEM read ends.
      for (const auto& h : r.handoffs) {
        CAPTURE(h.tile);
        const std::string b = h.barrier;
        if (b == "acc_full_bar") CHECK(h.time == r.pipe[size_t(h.tile * k_tiles + k_tiles - 1)].end);
        if (b == "acc_empty_bar")
          CHECK(h.time == r.spans(hg::model::kWsEpilogue, WsSpanKind::kEpilogueRead)[size_t(h.tile)].end);
      }
      CHECK(r.handoffs.size() == size_t(2 * tiles));
    }
}

TEST_CASE("ws model, Blackwell: an epilogue no longer than a tile's MMAs never holds up the tensor pipe") {
  // Ring of 4, load latency 6, MMA 4 per K tile: the loads never starve the pipe once it has started. What is
  // checked: every acc_empty wait of the MMA warp passes at once, and the MMAs of all tiles run back to back
  // (each starts when the previous ends), so the pipe is busy for exactly tiles * k_tiles * mma from its
  // first MMA to its last. An epilogue longer than a tile's MMAs (30 > 16) breaks both.
  for (int epilogue : {4, 10, 16, 30}) {
    CAPTURE(epilogue);
    WsConfig c = ws_config(WsArch::kBlackwell, 6, 4, 4);
    c.epilogue = epilogue;
    const WsRun r = hg::model::simulate_ws(c);
    INFO(first_hazard(r));
    CHECK(r.hazards.empty());
    check_complete(r, c);
    const bool keeps_up = epilogue <= c.k_tiles * c.mma;
    bool acc_waits_free = true;
    for (const WsSpan& w : r.spans(hg::model::kWsMma, WsSpanKind::kWait, "acc_empty_bar"))
      acc_waits_free &= w.end == w.start;
    CHECK(acc_waits_free == keeps_up);
    bool back_to_back = true;
    for (size_t i = 1; i < r.pipe.size(); ++i) back_to_back &= r.pipe[i].start == r.pipe[i - 1].end;
    CHECK(back_to_back == keeps_up);
    CHECK((r.pipe.back().end - r.pipe.front().start == c.tiles * c.k_tiles * c.mma) == keeps_up);
  }
}

TEST_CASE("ws model: ring depth 2..5, 1..5 K tiles, 1..6 tiles: no hazard on either architecture") {
  for (WsArch arch : {WsArch::kBlackwell, WsArch::kHopper})
    for (int depth = 2; depth <= 5; ++depth)
      for (int k_tiles = 1; k_tiles <= 5; ++k_tiles)
        for (int tiles = 1; tiles <= 6; ++tiles) {
          CAPTURE(int(arch));
          CAPTURE(depth);
          CAPTURE(k_tiles);
          CAPTURE(tiles);
          const WsConfig c = ws_config(arch, tiles, k_tiles, depth);
          const WsRun r = hg::model::simulate_ws(c);
          INFO(first_hazard(r));
          CHECK(r.hazards.empty());
          check_complete(r, c);
        }
}

TEST_CASE("ws model, Blackwell: commits land late: the CTA leaves before its last commits land unless it drains") {
  // The ring depths, K tiles and tile counts of the no-hazard case above, every empty_bar commit landing
  // commit_lag late while the acc_full commits stay on time.
  int after_exit = 0, runs = 0;
  for (int depth = 2; depth <= 5; ++depth)
    for (int k_tiles = 1; k_tiles <= 5; ++k_tiles)
      for (int tiles = 1; tiles <= 6; ++tiles) {
        CAPTURE(depth);
        CAPTURE(k_tiles);
        CAPTURE(tiles);
        WsConfig c = ws_config(WsArch::kBlackwell, tiles, k_tiles, depth);
        c.late_commits = true;
        c.drain = false;  // step 7 before the fix
        const WsRun before = hg::model::simulate_ws(c);
        // The last K tile's commit lands commit_lag after the last MMA: after the exit exactly when the
        // epilogue finished sooner than that (a backlog of epilogues can hide it).
        REQUIRE(!before.pipe.empty());
        CHECK(before.has(WsHazardKind::kAfterExit) == (before.exit_time < before.pipe.back().end + c.commit_lag));
        after_exit += before.has(WsHazardKind::kAfterExit);
        ++runs;
        c.drain = true;
        const WsRun r = hg::model::simulate_ws(c);
        INFO(first_hazard(r));
        CHECK(r.hazards.empty());
        check_complete(r, c);
        CHECK(r.exit_time >= r.pipe.back().end + c.commit_lag);  // the drain held the CTA until the last commit
      }
  MESSAGE("kAfterExit without the drain: " << after_exit << "/" << runs << " runs");
  CHECK(after_exit > 0);
  // The figure's configuration (3 tiles of 4 K tiles, ring of 4) is one of them.
  WsConfig c = ws_config(WsArch::kBlackwell, 3, 4, 4);
  c.late_commits = true, c.drain = false;
  CHECK(hg::model::simulate_ws(c).has(WsHazardKind::kAfterExit));
}

TEST_CASE("ws model, --break no-empty-wait: the producer refills a stage the MMAs have not read, on both") {
  for (WsArch arch : {WsArch::kBlackwell, WsArch::kHopper}) {
    CAPTURE(int(arch));
    WsConfig c = ws_config(arch, 3, 4, 4);
    c.no_empty_wait = true;
    const WsRun r = hg::model::simulate_ws(c);
    CHECK(r.has(WsHazardKind::kOverwrite));
    // Its arrive.expect_tx also lands on a full_bar phase whose one arrival is already in.
    CHECK(r.has(WsHazardKind::kArrivalOutsideRules));
    // As long as the ring does not wrap, the missing wait changes nothing.
    c.tiles = 1;
    const WsRun fits = hg::model::simulate_ws(c);
    INFO(first_hazard(fits));
    CHECK(fits.hazards.empty());
  }
}

TEST_CASE("ws model, Blackwell --break no-acc-empty-wait: a race that a slow epilogue loses") {
  WsConfig c = ws_config(WsArch::kBlackwell, 3, 4, 4);
  c.no_acc_empty_wait = true;
  // Default epilogue (10, its TMEM read 3): tile 0 is read long before tile 2's MMAs start; nothing shows.
  const WsRun fast = hg::model::simulate_ws(c);
  INFO(first_hazard(fast));
  CHECK(fast.hazards.empty());
  // A TMEM read of 30 (epilogue 40): tile 2's MMAs overwrite accumulator 0 while tile 0 is still read.
  c.epilogue = 40, c.epilogue_read = 30;
  const WsRun slow = hg::model::simulate_ws(c);
  CHECK(slow.has(WsHazardKind::kAccumulator));
  // With 6 tiles the MMAs lap the epilogue: acc_full_bar[0] completes a phase for tile 4 before the
  // epilogue waits for tile 2, so that wait blocks on a later phase than its own, and nothing ever ends it.
  c.tiles = 6;
  const WsRun lapped = hg::model::simulate_ws(c);
  CHECK(lapped.has(WsHazardKind::kWrongPhase));
  CHECK(lapped.has(WsHazardKind::kDeadlock));
  CHECK(lapped.tiles_done < 6);
  // The kernel's wait prevents all three.
  c.no_acc_empty_wait = false;
  const WsRun right = hg::model::simulate_ws(c);
  INFO(first_hazard(right));
  CHECK(right.hazards.empty());
  CHECK(right.tiles_done == 6);
}

TEST_CASE("ws model, Hopper: the consumers take turns at the tensor core and store while the other computes") {
  for (int tiles = 2; tiles <= 6; ++tiles)
    for (int k_tiles = 2; k_tiles <= 5; ++k_tiles) {
      CAPTURE(tiles);
      CAPTURE(k_tiles);
      const WsConfig c = ws_config(WsArch::kHopper, tiles, k_tiles, 4);
      const WsRun r = hg::model::simulate_ws(c);
      INFO(first_hazard(r));
      CHECK(r.hazards.empty());
      check_complete(r, c);  // includes: the pipe runs K tiles in ring order, so tiles never interleave
      // Consumer c issues only its own tiles (c, c + 2, ...), and one turn passes per tile boundary,
      // alternately.
      for (int cons = 0; cons < 2; ++cons)
        for (const WsSpan& m : r.spans(hg::model::kWsConsumer0 + cons, WsSpanKind::kMma)) CHECK(m.tile % 2 == cons);
      int turns = 0;
      for (const auto& h : r.handoffs) {
        REQUIRE(std::string(h.barrier) == "turn");
        CHECK(h.tile == turns);
        CHECK(h.from_lane == hg::model::kWsConsumer0 + turns % 2);
        CHECK(h.to_lane == hg::model::kWsConsumer0 + (turns + 1) % 2);
        ++turns;
      }
      CHECK(turns == tiles - 1);
      // The epilogue of tile t (consumer t % 2) overlaps the MMAs of tile t + 1 (the other consumer).
      for (int t = 0; t + 1 < tiles; ++t) CHECK(r.epilogue_overlap[size_t(t)] > 0);
    }
}

// CPU tests of the host model of the Blackwell CTA-pair protocol of step 8 (common/model/pair_model.hpp).
#include <doctest/doctest.h>

#include <string>

#include "common/model/pair_model.hpp"

using hg::model::PairConfig;
using hg::model::PairHazardKind;
using hg::model::PairRun;

namespace {

PairConfig pair_config(int consumers, int tiles, int k_tiles, int depth, uint32_t seed) {
  PairConfig c;
  c.consumers = consumers, c.tiles = tiles, c.k_tiles = k_tiles, c.depth = depth, c.seed = seed;
  return c;
}

std::string first_hazard(const PairRun& r) {
  return r.hazards.empty() ? "none" : std::string(describe(r.hazards[0].first)) + ": " + r.hazards[0].second;
}

/// How many of `seeds` runs of `c` (seeds 1..seeds) report hazard `kind`.
template <typename Tweak>
int runs_with(PairHazardKind kind, int seeds, Tweak tweak) {
  int n = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    PairConfig c = pair_config(1, 4, 5, 4, uint32_t(seed));
    tweak(c);
    n += simulate_pair(c).has(kind);
  }
  return n;
}

/// Calls fn(config) for every configuration the no-hazard cases run: 1 and 2 consumers, ring depths 2 to 5,
/// 1, 3 or 7 K tiles, 1, 2 or 5 tiles, seeds 1 to 20.
template <typename Fn>
void for_each_config(Fn fn) {
  for (int consumers : {1, 2})
    for (int depth : {2, 3, 4, 5})
      for (int k_tiles : {1, 3, 7})
        for (int tiles : {1, 2, 5})
          for (uint32_t seed = 1; seed <= 20; ++seed) fn(pair_config(consumers, tiles, k_tiles, depth, seed));
}

/// Every tile done, every MMA issued, no hazard.
void check_clean(const PairConfig& c, const PairRun& r) {
  CAPTURE(c.consumers);
  CAPTURE(c.depth);
  CAPTURE(c.k_tiles);
  CAPTURE(c.tiles);
  CAPTURE(c.seed);
  INFO(first_hazard(r));
  CHECK(r.hazards.empty());
  CHECK(r.mmas == c.tiles * c.k_tiles * c.consumers);
  CHECK(r.tiles_drained == 2 * c.tiles * c.consumers);  // every CTA's epilogue, every consumer
}

}  // namespace

TEST_CASE("pair model: step 8 as written, and with two consumers, finishes every tile without a hazard") {
  for_each_config([](const PairConfig& c) { check_clean(c, simulate_pair(c)); });
}

TEST_CASE("pair model: commits land late: the exit outruns the last empty_bar commits unless the producers drain") {
  // The configurations and seeds of the no-hazard case above, with every commit landing after a random lag.
  int after_exit[2] = {0, 0}, runs[2] = {0, 0};
  for_each_config([&](PairConfig c) {
    c.late_commits = true;
    c.drain = false;  // the kernels before the fix
    after_exit[c.consumers - 1] += simulate_pair(c).has(PairHazardKind::kAfterExit);
    ++runs[c.consumers - 1];
    c.drain = true;
    check_clean(c, simulate_pair(c));
  });
  MESSAGE("kAfterExit without the drain: " << after_exit[0] << "/" << runs[0] << " runs (1 consumer), "
                                           << after_exit[1] << "/" << runs[1] << " runs (2 consumers)");
  CHECK(after_exit[0] > 0);
  CHECK(after_exit[1] > 0);
}

TEST_CASE("pair model: every contract switch of the pair is caught") {
  // one-half-bytes: the leader's full_bar completes with half of the pair's boxes landed.
  CHECK(runs_with(PairHazardKind::kReadBeforeLanded, 50, [](PairConfig& c) { c.one_half_bytes = true; }) > 0);
  // no-empty-wait: a stage is refilled while the MMAs read it (or before they have).
  CHECK(runs_with(PairHazardKind::kOverwrite, 50, [](PairConfig& c) { c.no_empty_wait = true; }) > 0);
  // no-acc-empty-wait: a tile's MMAs write an accumulator an epilogue still reads. Step 8 alternates two
  // accumulators, so this needs tiles whose MMAs are shorter than an epilogue's read: one K tile each.
  CHECK(runs_with(PairHazardKind::kAccumulator, 50, [](PairConfig& c) {
          c.no_acc_empty_wait = true;
          c.k_tiles = 1;
        }) > 0);
  // Two consumers but step 8's count on "empty": the first commit frees the stage, the second the next trip.
  CHECK(runs_with(PairHazardKind::kOverwrite, 50, [](PairConfig& c) {
          c.consumers = 2;
          c.short_empty_count = true;
        }) > 0);
  // no-exit-cluster-sync: the leader leaves before the peer's last arrival on its acc_empty_bar.
  CHECK(runs_with(PairHazardKind::kAfterExit, 50, [](PairConfig& c) { c.no_exit_sync = true; }) > 0);
  CHECK(runs_with(PairHazardKind::kAfterExit, 50, [](PairConfig& c) {
          c.consumers = 2;
          c.no_exit_sync = true;
        }) > 0);
}

TEST_CASE("pair model: with two consumers the same switches are caught") {
  for (auto tweak : {+[](PairConfig& c) { c.one_half_bytes = true; }, +[](PairConfig& c) { c.no_empty_wait = true; },
                     +[](PairConfig& c) { c.no_acc_empty_wait = true; }}) {
    int caught = 0;
    for (uint32_t seed = 1; seed <= 50; ++seed) {
      PairConfig c = pair_config(2, 4, 5, 4, seed);
      tweak(c);
      caught += !simulate_pair(c).hazards.empty();
    }
    CHECK(caught > 0);
  }
}

// CPU tests of the host model of the Hopper cluster protocol of steps 8 to 11 (common/model/cluster_model.hpp):
// clusters of 2 CTAs as the kernels run them, and of 4 and 8, to which the model's counts generalise.
#include <doctest/doctest.h>

#include <string>

#include "common/model/cluster_model.hpp"

using hg::model::ClusterConfig;
using hg::model::ClusterHazard;
using hg::model::ClusterRun;

namespace {

std::string first_hazard(const ClusterRun& r) {
  return r.hazards.empty() ? "none" : std::string(describe(r.hazards[0].first)) + ": " + r.hazards[0].second;
}

/// Calls fn(config) for every configuration the no-hazard case runs: clusters of 2, 4 and 8; step 8's two
/// alternating consumers, and one or two consumers reading every stage; ring depths 2, 3, 4 and 8; 1, 3 or 7 K
/// tiles; 1, 2 or 5 units; seeds 1 to 20.
template <typename Fn>
void for_each_config(Fn fn) {
  struct Readers {
    int consumers;
    bool alternate;
  };
  for (int cluster : {2, 4, 8})
    for (Readers readers : {Readers{2, true}, Readers{1, false}, Readers{2, false}})
      for (int depth : {2, 3, 4, 8})
        for (int k_tiles : {1, 3, 7})
          for (int units : {1, 2, 5})
            for (uint32_t seed = 1; seed <= 20; ++seed) {
              ClusterConfig c;
              c.cluster = cluster, c.consumers = readers.consumers, c.alternate = readers.alternate;
              c.depth = depth, c.k_tiles = k_tiles, c.units = units, c.seed = seed;
              fn(c);
            }
}

/// How many of seeds 1..50 of a cluster of four (two consumers reading every stage, 4 units of 5 K tiles, 4
/// stages), changed by `tweak`, report hazard `kind`.
template <typename Tweak>
int runs_with(ClusterHazard kind, Tweak tweak) {
  int n = 0;
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    ClusterConfig c;
    c.cluster = 4, c.consumers = 2, c.units = 4, c.k_tiles = 5, c.depth = 4, c.seed = seed;
    tweak(c);
    n += simulate_cluster(c).has(kind);
  }
  return n;
}

}  // namespace

TEST_CASE("cluster model: pairs as the kernels run them, and clusters of 4 and 8, read every K tile safely") {
  for_each_config([](const ClusterConfig& c) {
    const ClusterRun r = simulate_cluster(c);
    CAPTURE(c.cluster);
    CAPTURE(c.consumers);
    CAPTURE(c.alternate);
    CAPTURE(c.depth);
    CAPTURE(c.k_tiles);
    CAPTURE(c.units);
    CAPTURE(c.seed);
    INFO(first_hazard(r));
    CHECK(r.hazards.empty());
    // Every CTA's readers read every K tile once: one consumer per unit in step 8, every consumer otherwise.
    CHECK(r.reads == c.cluster * c.units * c.k_tiles * (c.alternate ? 1 : c.consumers));
  });
}

TEST_CASE("cluster model: every broken rule is caught") {
  // Step 8's count (one reader per CTA) with two readers: the first release frees the stage, the second the next
  // trip's, and a multicast refills a stage while a consumer still reads it.
  CHECK(runs_with(ClusterHazard::kOverwrite, [](ClusterConfig& c) { c.short_empty_count = true; }) > 0);
  // Releasing in its own CTA only: the stage is never free in the others, whose producers wait forever.
  CHECK(runs_with(ClusterHazard::kDeadlock, [](ClusterConfig& c) { c.own_release_only = true; }) > 0);
  // Announcing only its own slice of B: full_bar completes before the other CTAs' slices have landed.
  CHECK(runs_with(ClusterHazard::kReadBeforeLanded, [](ClusterConfig& c) { c.own_bytes_only = true; }) > 0);
  // No wait on empty_bar: a load lands over a K tile still being read.
  CHECK(runs_with(ClusterHazard::kOverwrite, [](ClusterConfig& c) { c.no_empty_wait = true; }) > 0);
  // No cluster barrier before exit: a slower CTA's release reaches a CTA that has left.
  CHECK(runs_with(ClusterHazard::kAfterExit, [](ClusterConfig& c) { c.no_exit_sync = true; }) > 0);
  // Step 8 without its turns: consumer 1 waits on a ring position a whole trip ahead, whose parity names a phase
  // that has not begun, so its first wait passes at once.
  CHECK(runs_with(ClusterHazard::kReadBeforeLanded, [](ClusterConfig& c) {
          c.cluster = 2, c.alternate = true, c.no_turn = true;
        }) > 0);
}

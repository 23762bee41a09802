// CPU tests of the stream-K plan and walk (common/kernel/stream_k.hpp) that step 10's kernels run: for many shapes
// and grid sizes every (tile, K tile) is computed exactly once, every split tile is finished once by its owner (the
// holder of its K tile 0), every part is its worker's first unit (one workspace slot per worker), and a replay of
// the workers in random orders never deadlocks and always adds a tile's parts in the same order. The split's knobs
// on the command line (--sk-*) are tested with the rest of the command line (test_cli.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/kernel/stream_k.hpp"

using hg::plan_stream_k;
using hg::StreamKPlan;
using hg::StreamKWalk;
using hg::WorkUnit;

namespace {

std::vector<WorkUnit> units_of(const StreamKPlan& p, int w) {
  std::vector<WorkUnit> out;
  for (StreamKWalk walk(p, w); walk.valid(); walk.next()) {
    out.push_back(walk.current());
    REQUIRE(out.size() <= size_t(p.tiles + p.k_tiles + 2));  // the walk ends
  }
  return out;
}

/// Every (tile, K tile) of the plan with the worker that computes it; -1 for none.
std::vector<int> owners(const StreamKPlan& p) {
  std::vector<int> owner(size_t(p.tiles) * size_t(p.k_tiles), -1);
  std::string twice;  // the first (tile, K tile) computed twice; one CHECK per plan, not per K tile (millions)
  for (int w = 0; w < p.workers; ++w)
    for (const WorkUnit& u : units_of(p, w)) {
      CHECK(u.k0 < u.k1);
      CHECK(u.k1 <= p.k_tiles);
      for (int k = u.k0; k < u.k1; ++k) {
        int& o = owner[size_t(u.tile) * size_t(p.k_tiles) + size_t(k)];
        if (o != -1 && twice.empty()) twice = "tile " + std::to_string(u.tile) + " K tile " + std::to_string(k);
        o = w;
      }
    }
  CHECK_MESSAGE(twice.empty(), twice << " computed twice");
  return owner;
}

/// Replays the workers in an order drawn from `seed`, unit by unit, as the kernel runs them: a unit that starts
/// after K tile 0 publishes its part (to its worker's slot); a unit that starts at K tile 0 but ends before the
/// last K tile (the owner of a split tile) waits until the workers after it up to the tile's last holder have
/// published, then adds their parts in worker order. Returns, per tile, the first K tiles of its parts in the
/// order they were added, or an empty vector if the replay deadlocked.
std::vector<std::vector<int>> replay(const StreamKPlan& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<WorkUnit>> prog(size_t(p.workers));
  for (int w = 0; w < p.workers; ++w) prog[size_t(w)] = units_of(p, w);
  std::vector<size_t> pc(size_t(p.workers), 0);
  std::vector<int> slot(size_t(p.workers), -1);  // the tile of each worker's published part
  std::vector<int> slot_k0(size_t(p.workers), -1);
  std::vector<std::vector<int>> order(size_t(p.tiles));
  for (;;) {
    std::vector<int> ready;
    bool all_done = true;
    for (int w = 0; w < p.workers; ++w) {
      if (pc[size_t(w)] == prog[size_t(w)].size()) continue;
      all_done = false;
      const WorkUnit& u = prog[size_t(w)][pc[size_t(w)]];
      bool can = true;
      if (u.k0 == 0 && u.k1 < p.k_tiles)
        for (int v = w + 1; v <= p.last_holder(u.tile); ++v) can = can && slot[size_t(v)] == u.tile;
      if (can) ready.push_back(w);
    }
    if (all_done) return order;
    if (ready.empty()) return {};
    const int w = ready[rng() % ready.size()];
    const WorkUnit u = prog[size_t(w)][pc[size_t(w)]++];
    if (u.k0 > 0) {
      CHECK(slot[size_t(w)] == -1);  // one slot per worker: never overwritten
      slot[size_t(w)] = u.tile;
      slot_k0[size_t(w)] = u.k0;
    } else {
      std::vector<int>& sum = order[size_t(u.tile)];
      sum.push_back(0);  // the owner's own part first
      if (u.k1 < p.k_tiles)
        for (int v = w + 1; v <= p.last_holder(u.tile); ++v) sum.push_back(slot_k0[size_t(v)]);  // worker order
    }
  }
}

/// A replay under partial residency: at most `resident` workers run at once (another kernel holds the rest of the
/// GPU, or the grid is larger than what fits), a worker that finishes its units leaves and frees its place, and the
/// hardware starts the waiting CTA pairs in an order of its choosing (drawn from `seed`). The worker index of a
/// started pair is its launch index (`ticket` false: the cluster's place in the grid) or its arrival ticket (`ticket`
/// true: the number of pairs that started before it). Returns false if every running worker waits on a part that no
/// running worker will write and no place is free: a deadlock.
bool replay_resident(const StreamKPlan& p, int resident, bool ticket, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<WorkUnit>> prog(size_t(p.workers));
  for (int w = 0; w < p.workers; ++w) prog[size_t(w)] = units_of(p, w);
  std::vector<size_t> pc(size_t(p.workers), 0);
  std::vector<int> published(size_t(p.workers), -1);  // the tile of each worker's published part
  std::vector<int> waiting_to_start;                   // launch indices the hardware has not started yet
  for (int w = 0; w < p.workers; ++w) waiting_to_start.push_back(w);
  std::vector<int> running;  // worker indices
  int tickets = 0, finished = 0;
  for (;;) {
    while (int(running.size()) < resident && !waiting_to_start.empty()) {  // a place is free: a pair starts
      const size_t pick = rng() % waiting_to_start.size();
      const int launch_index = waiting_to_start[pick];
      waiting_to_start.erase(waiting_to_start.begin() + long(pick));
      running.push_back(ticket ? tickets++ : launch_index);
    }
    if (running.empty()) return finished == p.workers;
    std::vector<size_t> ready;
    for (size_t r = 0; r < running.size(); ++r) {
      const int w = running[r];
      if (pc[size_t(w)] == prog[size_t(w)].size()) {
        ready.push_back(r);  // leaves
        continue;
      }
      const WorkUnit& u = prog[size_t(w)][pc[size_t(w)]];
      bool can = true;
      if (u.k0 == 0 && u.k1 < p.k_tiles)  // an owner waits for the parts of the holders after it
        for (int v = w + 1; v <= p.last_holder(u.tile); ++v) can = can && published[size_t(v)] == u.tile;
      if (can) ready.push_back(r);
    }
    if (ready.empty()) return false;
    const size_t r = ready[rng() % ready.size()];
    const int w = running[r];
    if (pc[size_t(w)] == prog[size_t(w)].size()) {
      running.erase(running.begin() + long(r));
      ++finished;
      continue;
    }
    const WorkUnit u = prog[size_t(w)][pc[size_t(w)]++];
    if (u.k0 > 0) published[size_t(w)] = u.tile;
  }
}

}  // namespace

TEST_CASE("stream-K plan: every (tile, K tile) exactly once, for many shapes and grid sizes") {
  for (const int workers : {1, 2, 3, 7, 66, 132})
    for (const int k_tiles : {1, 2, 3, 4, 5, 16, 32, 64, 128})
      for (const int min_share : {1, 2, 4, 8})
        for (const int sk_rounds : {0, 1})
          for (const int min_saving : {0, 10})
          for (int tiles = 1; tiles <= 3 * workers + 5; tiles += (workers > 16 ? 7 : 1)) {
            CAPTURE(workers);
            CAPTURE(k_tiles);
            CAPTURE(min_share);
            CAPTURE(sk_rounds);
            CAPTURE(tiles);
            CAPTURE(min_saving);
            const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, min_share, sk_rounds, min_saving);
            const std::vector<int> own = owners(p);  // one CHECK per plan, not per unit: millions of units
            CHECK(std::count_if(own.begin(), own.end(), [](int o) { return o < 0; }) == 0);
            const int whole = (tiles + workers - 1) / workers * k_tiles;  // step 9's longest worker
            CHECK(p.max_iters() <= whole);
            if (p.sk_tiles > 0) CHECK((whole - p.max_iters()) * 100 >= min_saving * whole);
            if (p.sk_tiles > 0) {
              CHECK((tiles - p.sk_tiles) % workers == 0);  // whole rounds after the share
              CHECK(p.sk_tiles % workers == tiles % workers);
              CHECK(p.sk_workers <= workers);
              CHECK(p.max_iters() < whole);  // a split only where it shortens the longest worker
              int lo = p.sk_iters, hi = 0;  // even shares, none shorter than min_share K tiles
              for (int w = 0; w < p.sk_workers; ++w) {
                const int n = p.sk_begin(w + 1) - p.sk_begin(w);
                lo = n < lo ? n : lo;
                hi = n > hi ? n : hi;
              }
              CHECK(hi - lo <= 1);
              CHECK(lo >= min_share);
              CHECK(p.max_iters() == p.dp_rounds() * k_tiles + hi);
            } else {
              CHECK(p.sk_workers == 0);
            }
          }
}

TEST_CASE("stream-K plan: every part is its worker's first unit, and a split tile has one owner") {
  for (const int workers : {2, 7, 66})
    for (const int k_tiles : {3, 16, 64})
      for (const int sk_rounds : {0, 1})
        for (int tiles = 1; tiles <= 2 * workers + 3; ++tiles) {
          CAPTURE(workers);
          CAPTURE(k_tiles);
          CAPTURE(sk_rounds);
          CAPTURE(tiles);
          const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, 2, sk_rounds);
          for (int i = 0; i < p.sk_iters; ++i) {
            const int w = p.worker_of(i);
            CHECK(p.sk_begin(w) <= i);
            CHECK(i < p.sk_begin(w + 1));
          }
          std::vector<int> owned(size_t(tiles), 0);
          for (int w = 0; w < workers; ++w) {
            const std::vector<WorkUnit> units = units_of(p, w);
            for (size_t j = 0; j < units.size(); ++j) {
              const WorkUnit& u = units[j];
              if (u.k0 == 0) {
                ++owned[size_t(u.tile)];
                if (u.k1 < k_tiles) CHECK(p.owner(u.tile) == w);
              } else {
                CHECK(j == 0);  // a part starts the worker's share: nothing before it, one slot per worker
                CHECK(p.owner(u.tile) < w);
                CHECK(w <= p.last_holder(u.tile));
              }
              if (u.tile >= p.sk_tiles) CHECK((u.k0 == 0 && u.k1 == k_tiles));  // after the share: whole tiles
            }
          }
          for (int o : owned) CHECK(o == 1);
        }
}

TEST_CASE("stream-K plan: under partial residency, arrival tickets never deadlock; launch indices can") {
  // Residency of at least two pairs: with tickets the pairs start in worker order, so of the running owners only the
  // one whose tile spans the started frontier can wait on a pair that has not started; the others wait on first units
  // already published. With launch indices, a waited-on worker may sit behind waiting owners.
  int deadlocks_without_ticket = 0, replays = 0;
  for (const int workers : {4, 8, 66})
    for (const int k_tiles : {4, 16, 128})
      for (const int tiles : {1, 2, 5, workers + 3, 2 * workers + 1})
        for (const int resident : {2, 3, workers / 2}) {
          CAPTURE(workers);
          CAPTURE(k_tiles);
          CAPTURE(tiles);
          CAPTURE(resident);
          const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, 1, 1);
          for (uint32_t seed = 1; seed <= 20; ++seed) {
            CHECK(replay_resident(p, resident, /*ticket=*/true, seed));
            deadlocks_without_ticket += replay_resident(p, resident, /*ticket=*/false, seed) ? 0 : 1;
            ++replays;
          }
        }
  MESSAGE("launch indices deadlocked in " << deadlocks_without_ticket << " of " << replays << " replays");
  CHECK(deadlocks_without_ticket > 0);  // the replay can see a deadlock: it is the ticket that removes it
  // With every worker resident, either index is safe (the kernels' stated assumption until now).
  const StreamKPlan all = plan_stream_k(5, 128, 8, 1, 1);
  for (uint32_t seed = 1; seed <= 20; ++seed) CHECK(replay_resident(all, all.workers, false, seed));
}

TEST_CASE("stream-K plan: a replay in any order never deadlocks and adds a tile's parts in one order") {
  for (const int workers : {3, 7, 66})
    for (const int k_tiles : {4, 16, 64})
      for (const int sk_rounds : {0, 1})
        for (int tiles = 1; tiles <= 2 * workers + 3; tiles += (workers > 16 ? 5 : 1)) {
          CAPTURE(workers);
          CAPTURE(k_tiles);
          CAPTURE(sk_rounds);
          CAPTURE(tiles);
          const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, 1, sk_rounds);
          const std::vector<std::vector<int>> first = replay(p, 1);
          REQUIRE(first.size() == size_t(tiles));  // no deadlock
          for (size_t t = 0; t < first.size(); ++t) {
            CHECK(first[t].size() >= 1);
            CHECK(std::is_sorted(first[t].begin(), first[t].end()));  // added in K order
          }
          for (uint32_t seed = 2; seed < 12; ++seed) CHECK(replay(p, seed) == first);
        }
}

TEST_CASE("stream-K plan: the fixup's parts are counted per worker, and their cost can cancel a split") {
  for (const int workers : {2, 7, 66})
    for (const int k_tiles : {3, 16, 64, 128})
      for (const int min_share : {1, 2, 4})
        for (int tiles = 1; tiles <= 2 * workers + 3; tiles += (workers > 16 ? 5 : 1)) {
          CAPTURE(workers);
          CAPTURE(k_tiles);
          CAPTURE(min_share);
          CAPTURE(tiles);
          const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, min_share, 1);
          int longest = 0;
          for (int w = 0; w < workers; ++w) {
            int moved = 0, iters = 0;  // counted from the units the worker walks
            for (const WorkUnit& u : units_of(p, w)) {
              if (u.tile >= p.sk_tiles) continue;  // whole tiles after the share move no part
              iters += u.k1 - u.k0;
              if (u.k0 > 0) ++moved;                                       // a part it writes
              if (u.k0 == 0 && u.k1 < k_tiles) moved += p.last_holder(u.tile) - w;  // parts it reads as owner
            }
            CHECK(p.parts_moved(w) == moved);
            longest = std::max(longest, iters + 3 * moved);
          }
          CHECK(p.max_cost(0) == p.max_iters());
          CHECK(p.max_cost(3) == p.dp_rounds() * k_tiles + longest);
        }
  // One 256 x 256 pair tile of 128 K tiles (256 x 256 x 8192): shares of 4 make 32 holders and the owner reads 31
  // parts. At 2 K tiles a part its cost is 4 + 2 x 31 = 66 of step 9's 128: still a split; at 4 it is 128: none.
  const StreamKPlan one = plan_stream_k(1, 128, 66, 4, 1);
  CHECK(one.sk_workers == 32);
  CHECK(one.parts_moved(0) == 31);
  CHECK(one.max_cost(2) == 66);
  CHECK(plan_stream_k(1, 128, 66, 4, 1, 10, 2).sk_tiles == 1);
  CHECK(plan_stream_k(1, 128, 66, 4, 1, 10, 4).sk_tiles == 0);
}

TEST_CASE("stream-K plan: the shapes of step 10's page") {
  // 5120 x 5120 x 2048 on 66 pairs: 400 pair tiles (6 whole rounds and 4 over), 32 K tiles each.
  const StreamKPlan tail = plan_stream_k(400, 32, 66, 8, 0);
  CHECK(tail.sk_tiles == 4);
  CHECK(tail.sk_workers == 16);  // 128 iterations in shares of 8
  CHECK(tail.max_iters() == 6 * 32 + 8);
  const StreamKPlan hybrid = plan_stream_k(400, 32, 66, 8, 1);
  CHECK(hybrid.sk_tiles == 70);  // one whole round joins the 4 left over
  CHECK(hybrid.sk_workers == 66);
  CHECK(hybrid.max_iters() == 5 * 32 + 34);  // 2240 iterations: shares of 33 and 34
  const StreamKPlan whole = plan_stream_k(400, 32, 66, 32, 0);
  CHECK(whole.sk_tiles == 0);  // 4 workers with 32 each would just take the 4 tiles whole: step 9
  // The saving threshold: 5120^2 x 2048 saves 30 of 224 iterations (13%): split at 10%, not at 14%.
  CHECK(plan_stream_k(400, 32, 66, 4, 1, 10).sk_tiles == 70);
  CHECK(plan_stream_k(400, 32, 66, 4, 1, 14).sk_tiles == 0);
  // 4096^3: 256 pair tiles of 64 K tiles, 58 over: at best 249 of 256 iterations (3% saved): no split at 10%.
  CHECK(plan_stream_k(256, 64, 66, 4, 1, 0).sk_tiles > 0);
  CHECK(plan_stream_k(256, 64, 66, 4, 1, 10).sk_tiles == 0);
  const StreamKPlan even = plan_stream_k(396, 32, 66, 1, 1);
  CHECK(even.sk_tiles == 0);  // whole rounds: nothing to split
  // Fewer tiles than workers: 2 tiles of 64 K tiles over 66 workers, shares of 2 at min_share 2.
  const StreamKPlan few = plan_stream_k(2, 64, 66, 2, 1);
  CHECK(few.sk_tiles == 2);
  CHECK(few.sk_workers == 64);
  CHECK(few.max_iters() == 2);
  // The default knobs, parts counted (part_cost 2): the two short-last-round shapes still split on the H200's 66
  // pairs, 5120 x 5120 x 2048 at 198 of 224 and 2304 x 4608 x 8192 at 319 of 384 (162 tiles of 128 K tiles).
  const hg::StreamKKnobs knobs;
  CHECK(plan_stream_k(400, 32, 66, knobs).max_cost(knobs.part_cost) == 198);
  CHECK(plan_stream_k(400, 32, 66, knobs).sk_tiles == 70);
  CHECK(plan_stream_k(162, 128, 66, knobs).max_cost(knobs.part_cost) == 319);
  CHECK(plan_stream_k(162, 128, 66, knobs).sk_tiles == 96);
  // A split of every tile: 2048 x 3584 x 3584 is 8 x 14 = 112 tiles of 56 K tiles, one round and 46 over, all in
  // the stream-K region at one added round. 99 of 112 would be 12% saved, but 112 tiles are more than 60% of 66
  // pairs: no split (the sweep measured this split losing). 512 x 4096 x 4096, 2 x 16 = 32 tiles, is under it.
  CHECK(plan_stream_k(112, 56, 66, knobs).sk_tiles == 0);
  CHECK(plan_stream_k(112, 56, 66, 4, 1, 4, 2, 1000).sk_tiles == 112);
  CHECK(plan_stream_k(32, 64, 66, knobs).sk_tiles == 32);
  // Blackwell's 512 x 256 pair tile on 74 pairs (a B200's 148 SMs, one CTA each; docs/blackwell_checks.md).
  // 5120 x 5120 x 2048: 10 x 20 = 200 tiles of 32 K tiles, 2 rounds and 52 over; step 9's longest is 3 tiles, 96
  // K tiles. The split gives 87 iterations, 91 with the parts: 5.2% saved, at least the 4% asked for: a split.
  const StreamKPlan b200 = plan_stream_k(200, 32, 74, knobs.min_share, knobs.rounds);
  CHECK(b200.sk_tiles == 126);
  CHECK(b200.max_iters() == 87);
  CHECK(b200.max_cost(knobs.part_cost) == 91);
  CHECK(plan_stream_k(200, 32, 74, knobs).sk_tiles == 126);
  CHECK(plan_stream_k(200, 32, 74, 4, 1, 10, 2).sk_tiles == 0);  // not at 10%
  // 2304 x 4608 x 8192: 5 x 18 = 90 tiles, 1 round and 16 over, every tile split (160 of 256): 90 tiles are more
  // than 60% of 74, so no split. 4096^3: 8 x 16 = 128 tiles of 64 K tiles, every tile split (115 of 128): none.
  CHECK(hg::stream_k_split(90, 128, 74, knobs.min_share, knobs.rounds).max_cost(knobs.part_cost) == 160);
  CHECK(plan_stream_k(90, 128, 74, knobs).sk_tiles == 0);
  CHECK(hg::stream_k_split(128, 64, 74, knobs.min_share, knobs.rounds).max_cost(2) == 115);
  CHECK(plan_stream_k(128, 64, 74, knobs).sk_tiles == 0);
  // 4096 x 14336 x 4096: 8 x 56 = 448 tiles of 64 K tiles, 6 rounds and 4 over: 392 of 448. 256 x 256 x 8192: one
  // tile of 128 K tiles among 32 workers, the owner reading 31 parts: 66 of 128, as on 66 pairs.
  CHECK(plan_stream_k(448, 64, 74, knobs).max_cost(knobs.part_cost) == 392);
  CHECK(plan_stream_k(448, 64, 74, knobs).sk_tiles == 78);
  CHECK(plan_stream_k(1, 128, 74, knobs).max_cost(knobs.part_cost) == 66);
  CHECK(plan_stream_k(1, 128, 74, knobs).sk_workers == 32);
  // The hog tests' 2304 x 2048 x 576 splits every tile, 9 x 8 = 72 tiles of 9 K tiles on 66 pairs (14 of 18): with
  // the default knobs no split, so the tests lift the limit (--sk-full-split-max 1000) to exercise the split.
  CHECK(plan_stream_k(72, 9, 66, knobs).sk_tiles == 0);
  CHECK(plan_stream_k(72, 9, 66, 4, 1, 4, 2, 1000).max_cost(2) == 14);
  CHECK(plan_stream_k(72, 9, 66, 4, 1, 4, 2, 1000).sk_tiles == 72);
  // On Blackwell's 74 pairs the same shape is 5 x 8 = 40 tiles of 9 K tiles, fewer than the pairs: even with the
  // limit lifted the split (11 K tiles with its parts) is longer than step 9's 9, so the two hog tests there run
  // the instance without the fixup (docs/blackwell_checks.md).
  CHECK(hg::stream_k_split(40, 9, 74, knobs.min_share, knobs.rounds).max_cost(knobs.part_cost) == 11);
  CHECK(plan_stream_k(40, 9, 74, 4, 1, 4, 2, 1000).sk_tiles == 0);
}

TEST_CASE("stream-K plan: no split where the walk's 32-bit arithmetic would overflow") {
  // 1999 tiles on 1000 workers (999 over, plus one round): sk_iters * sk_workers is 1999 x 2100 x 1000 (below 2^32)
  // at 2100 K tiles, and the walk still computes every (tile, K tile) once; at 2200 it would pass 2^32: no split.
  const StreamKPlan fits = plan_stream_k(1999, 2100, 1000, 1, 1);
  REQUIRE(fits.sk_tiles == 1999);
  REQUIRE(fits.sk_workers == 1000);
  const std::vector<int> owner = owners(fits);
  CHECK(std::count(owner.begin(), owner.end(), -1) == 0);  // and none twice (owners checks)
  CHECK(plan_stream_k(1999, 2200, 1000, 1, 1).sk_tiles == 0);
}

TEST_CASE("stream-K plan: the split it weighs is stream_k_split's, and step 9's longest list is whole_iters") {
  // 4096^3 on 66 pairs: 256 pair tiles of 64 K tiles; the split (124 tiles) is weighed whether taken or not.
  const StreamKPlan split = hg::stream_k_split(256, 64, 66, 4, 1);
  CHECK(split.sk_tiles == 124);
  CHECK(split.whole_iters() == 4 * 64);
  CHECK(split.max_cost(0) == 249);
  for (const int workers : {2, 7, 66})
    for (const int min_saving : {0, 10, 50})
      for (int tiles = 1; tiles <= 2 * workers + 3; ++tiles) {
        CAPTURE(workers);
        CAPTURE(min_saving);
        CAPTURE(tiles);
        const StreamKPlan s = hg::stream_k_split(tiles, 32, workers, 4, 1);
        const StreamKPlan p = plan_stream_k(tiles, 32, workers, 4, 1, min_saving, 2);
        CHECK(p.whole_iters() == s.whole_iters());
        if (p.sk_tiles > 0) {  // taken: the split itself, and it saves at least min_saving percent
          CHECK((p.sk_tiles == s.sk_tiles && p.sk_workers == s.sk_workers));
          CHECK(100 * (s.whole_iters() - s.max_cost(2)) >= min_saving * s.whole_iters());
        } else {  // not taken: nothing to split, or too small a saving; every tile whole, step 9's list
          const int saved = s.whole_iters() - s.max_cost(2);
          CHECK((s.sk_workers == 0 || saved <= 0 || 100 * saved < min_saving * s.whole_iters()));
          CHECK(p.max_cost(2) == p.whole_iters());
        }
      }
}

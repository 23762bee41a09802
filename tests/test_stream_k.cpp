// CPU tests of the stream-K plan (common/kernel/stream_k.hpp) that step 10's kernels will run: for many shapes and
// grid sizes every (tile, K tile) is computed exactly once, every split tile is finished once by the holder of
// its last K tile, waits point only at lower workers, and a replay of the workers in random orders never
// deadlocks and always adds a tile's parts in the same order.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/kernel/stream_k.hpp"

using hg::plan_stream_k;
using hg::StreamKPlan;

namespace {

/// Every (tile, K tile) of the plan with the worker that computes it; -1 for none.
std::vector<int> owners(const StreamKPlan& p) {
  std::vector<int> owner(size_t(p.tiles) * size_t(p.k_tiles), -1);
  auto claim = [&](int tile, int k, int w) {
    int& o = owner[size_t(tile) * size_t(p.k_tiles) + size_t(k)];
    CHECK_MESSAGE(o == -1, "tile " << tile << " K tile " << k << " computed twice");
    o = w;
  };
  for (int w = 0; w < p.workers; ++w)
    for (int t = w; t < p.dp_tiles; t += p.workers)
      for (int k = 0; k < p.k_tiles; ++k) claim(t, k, w);
  for (int w = 0; w < p.sk_workers; ++w)
    for (int i = p.sk_begin(w); i < p.sk_begin(w + 1); ++i) claim(p.dp_tiles + i / p.k_tiles, i % p.k_tiles, w);
  return owner;
}

/// One worker's program: its stream-K parts in order, each (tile, first K, last K + 1, finishes the tile).
struct Part {
  int s, k0, k1;
  bool finish;
};

std::vector<Part> parts_of(const StreamKPlan& p, int w) {
  std::vector<Part> out;
  for (int i = p.sk_begin(w); i < p.sk_begin(w + 1);) {
    const int s = i / p.k_tiles;
    const int end = (s + 1) * p.k_tiles < p.sk_begin(w + 1) ? (s + 1) * p.k_tiles : p.sk_begin(w + 1);
    out.push_back({s, i % p.k_tiles, (end - 1) % p.k_tiles + 1, p.finisher(s) == w});
    i = end;
  }
  return out;
}

/// Replays the workers in an order drawn from `seed`: a worker that finishes a split tile first waits until
/// every other part of it is published. Returns, per split tile, the order in which its parts are added (their
/// first K tiles), or an empty vector if the replay deadlocked.
std::vector<std::vector<int>> replay(const StreamKPlan& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<Part>> prog(size_t(p.workers));
  for (int w = 0; w < p.sk_workers; ++w) prog[size_t(w)] = parts_of(p, w);
  std::vector<size_t> pc(size_t(p.workers), 0);
  std::vector<std::vector<int>> published(size_t(p.sk_tiles()));  // first K tile of each published part
  std::vector<std::vector<int>> order(size_t(p.sk_tiles()));
  for (;;) {
    std::vector<int> ready;
    bool all_done = true;
    for (int w = 0; w < p.workers; ++w) {
      if (pc[size_t(w)] == prog[size_t(w)].size()) continue;
      all_done = false;
      const Part& part = prog[size_t(w)][pc[size_t(w)]];
      // A finisher of a split tile waits for the parts of every other holder (all at lower workers).
      const int others = p.finisher(part.s) - p.first_worker(part.s);
      if (!part.finish || int(published[size_t(part.s)].size()) == others) ready.push_back(w);
    }
    if (all_done) return order;
    if (ready.empty()) return {};
    const int w = ready[rng() % ready.size()];
    const Part& part = prog[size_t(w)][pc[size_t(w)]++];
    if (part.finish) {  // the finisher's own part, then the published ones in K order
      std::vector<int> sum = published[size_t(part.s)];
      std::sort(sum.begin(), sum.end());  // the order the kernel adds them in: by K range
      sum.push_back(part.k0);
      order[size_t(part.s)] = sum;
    } else {
      published[size_t(part.s)].push_back(part.k0);
    }
  }
}

}  // namespace

TEST_CASE("stream-K plan: every (tile, K tile) exactly once, for many shapes and grid sizes") {
  for (const int workers : {1, 2, 3, 7, 66, 132})
    for (const int k_tiles : {1, 2, 3, 4, 5, 16, 32, 64, 128})
      for (const int min_share : {1, 2, 4, 8})
        for (int tiles = 1; tiles <= 3 * workers + 5; tiles += (workers > 16 ? 7 : 1)) {
          CAPTURE(workers);
          CAPTURE(k_tiles);
          CAPTURE(min_share);
          CAPTURE(tiles);
          const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, min_share);
          for (int o : owners(p)) CHECK(o >= 0);
          if (p.sk_workers > 0) {
            CHECK(p.dp_tiles % workers == 0);  // whole rounds only
            CHECK(p.sk_tiles() == tiles % workers);
            CHECK(p.sk_workers <= workers);
            CHECK(p.sk_workers > p.sk_tiles());  // otherwise no tile would be split
            // Even shares, none shorter than min_share K tiles.
            int lo = p.sk_iters, hi = 0;
            for (int w = 0; w < p.sk_workers; ++w) {
              const int n = p.sk_begin(w + 1) - p.sk_begin(w);
              lo = n < lo ? n : lo;
              hi = n > hi ? n : hi;
            }
            CHECK(hi - lo <= 1);
            CHECK(lo >= min_share);
          } else {
            CHECK(p.dp_tiles == tiles);
          }
        }
}

TEST_CASE("stream-K plan: each split tile finished once, by the holder of its last K tile; waits point down") {
  for (const int workers : {2, 7, 66})
    for (const int k_tiles : {3, 16, 64})
      for (int tiles = 1; tiles <= 2 * workers + 3; ++tiles) {
        CAPTURE(workers);
        CAPTURE(k_tiles);
        CAPTURE(tiles);
        const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, 2);
        for (int i = 0; i < p.sk_iters; ++i) {
          const int w = p.worker_of(i);
          CHECK(p.sk_begin(w) <= i);
          CHECK(i < p.sk_begin(w + 1));
        }
        std::vector<int> finishes(size_t(p.sk_tiles()), 0);
        for (int w = 0; w < p.sk_workers; ++w)
          for (const Part& part : parts_of(p, w)) {
            if (part.finish) {
              ++finishes[size_t(part.s)];
              CHECK(part.k1 == k_tiles);  // the finisher holds the last K tile
            } else {
              CHECK(w < p.finisher(part.s));  // the finisher waits only on lower workers
            }
          }
        for (int f : finishes) CHECK(f == 1);
      }
}

TEST_CASE("stream-K plan: a replay in any order never deadlocks and adds a tile's parts in one order") {
  for (const int workers : {3, 7, 66})
    for (const int k_tiles : {4, 16, 64})
      for (int tiles = workers + 1; tiles <= 2 * workers; tiles += (workers > 16 ? 5 : 1)) {
        CAPTURE(workers);
        CAPTURE(k_tiles);
        CAPTURE(tiles);
        const StreamKPlan p = plan_stream_k(tiles, k_tiles, workers, 1);
        const std::vector<std::vector<int>> first = replay(p, 1);
        REQUIRE(first.size() == size_t(p.sk_tiles()));  // no deadlock
        for (uint32_t seed = 2; seed < 12; ++seed) CHECK(replay(p, seed) == first);
      }
}

TEST_CASE("stream-K plan: the left-over round goes whole when a share would be too short") {
  // 400 pair tiles on 66 pairs: 6 whole rounds (396 tiles), 4 left over. 32 K tiles each: 128 iterations.
  const StreamKPlan split = plan_stream_k(400, 32, 66, 1);
  CHECK(split.dp_tiles == 396);
  CHECK(split.sk_workers == 66);  // 128 iterations over all 66 pairs: shares of 1 and 2 K tiles
  const StreamKPlan longer = plan_stream_k(400, 32, 66, 8);
  CHECK(longer.sk_workers == 16);  // shares of 8
  const StreamKPlan whole = plan_stream_k(400, 32, 66, 32);
  CHECK(whole.dp_tiles == 400);  // 4 workers with 32 each would just take the 4 tiles whole: step 9
  CHECK(whole.sk_workers == 0);
  const StreamKPlan even = plan_stream_k(396, 32, 66, 1);
  CHECK(even.dp_tiles == 396);  // whole rounds: nothing to split
  CHECK(even.sk_workers == 0);
}

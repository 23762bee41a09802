// common/kernel/stream_k.hpp: how step 10's persistent grid shares out the last round of tiles (stream-K).
//
// The work is (tile, K tile) iterations, not tiles. `workers` persistent workers (CTA pairs) first divide the
// iterations of the first sk_tiles tiles evenly, in tile-major order (tile 0's K tiles first), so a tile's K
// range can be split between consecutive workers; then they take the remaining tiles whole, round-robin, as
// step 9 does. Those remaining tiles are whole rounds (a multiple of workers), so every worker ends at the same
// time: stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
// Multiplication on the GPU", PPoPP 2023), in its data-parallel + stream-K hybrid form. The stream-K tiles are
// the tiles a round does not divide (tiles % workers) plus `sk_rounds` whole rounds, so that each worker's share
// is long (more than one tile at sk_rounds = 1) and a tile is split in few parts.
//
// A split tile is finished by its OWNER, the worker that holds its K tile 0. Every other holder computes a
// PART (a K range that starts after 0), writes its fp32 partial sums to a workspace slot of its own and
// signals it; the owner waits for the parts and adds them to its own sum in the order of their K ranges, so the
// result does not depend on which part arrives first. A part that does not start at K tile 0 can only be a
// worker's FIRST piece of work (its share starts inside that tile), so each worker writes at most one part (one
// workspace slot per worker), and no part waits for anything before it is written. An owner's wait therefore
// only ever waits on work that runs without waiting, held by workers with higher indices. CUDA promises neither
// that all CTAs of a grid are resident at once nor that they start in index order, so a worker's index is its
// ARRIVAL TICKET (an atomic counter at kernel entry), not its place in the grid. The started workers are then
// always the lowest indices, and only one of them can wait for one not yet started: the owner of the tile that
// reaches past the highest started worker. A lower owner's tile ends among the started workers, and the share of
// a started worker above that owner is a part of its tile, which never waits. Every other started worker completes
// and frees its SMs, so with room for two workers the next one always starts: any residency of two workers or more
// completes (tests/test_stream_k.cpp replays it in random start orders).
//
// The split costs something: each part makes a round trip through the workspace (written by one worker, read by
// the owner, which adds the parts one after the other). The plan counts it, part_cost K tiles per part a worker
// moves, and splits only when that shortens the longest worker's cost by at least min_saving_pct percent;
// otherwise the plan is plain step 9 (every tile whole), and the host launches a kernel compiled without the
// fixup. Host and device code: the kernels, the CPU tests and the benchmark use this one implementation.
#pragma once

#include "common/kernel/hd.hpp"

namespace hg {

/// K tiles [k0, k1) of linear tile `tile` (k0 == 0 and k1 == k_tiles: the whole tile).
struct WorkUnit {
  int tile = 0, k0 = 0, k1 = 0;
};

struct StreamKPlan {
  int tiles = 0;       ///< output tiles (pair tiles), in the scheduler's linear order
  int k_tiles = 0;     ///< K tiles per tile
  int workers = 0;     ///< persistent workers
  int sk_tiles = 0;    ///< tiles 0 .. sk_tiles-1 are shared out as iterations (0: no split, plain step 9)
  int sk_workers = 0;  ///< workers 0 .. sk_workers-1 take part in the stream-K region
  int sk_iters = 0;    ///< sk_tiles * k_tiles

  /// Worker w's stream-K iterations are [sk_begin(w), sk_begin(w + 1)); iteration i is K tile i % k_tiles of
  /// tile i / k_tiles.
  /// (32-bit unsigned arithmetic: plan_stream_k keeps sk_iters * sk_workers below 2^32. A 64-bit division is a
  /// subroutine call on the GPU, and around the call the Hopper kernel spilled registers: ptxas.)
  HG_HD constexpr int sk_begin(int w) const {
    return w >= sk_workers ? sk_iters : int(unsigned(sk_iters) * unsigned(w) / unsigned(sk_workers));
  }
  /// The worker that holds stream-K iteration i (0 <= i < sk_iters).
  HG_HD constexpr int worker_of(int i) const {
    return int((unsigned(i + 1) * unsigned(sk_workers) - 1u) / unsigned(sk_iters));
  }
  /// The owner of stream-K tile s (0 <= s < sk_tiles), which finishes it, and the last worker holding a part.
  HG_HD constexpr int owner(int s) const { return worker_of(s * k_tiles); }
  HG_HD constexpr int last_holder(int s) const { return worker_of((s + 1) * k_tiles - 1); }
  /// Rounds of whole tiles after the stream-K share (with a split, every worker takes this many; without one,
  /// the last round may be short, as in step 9).
  HG_HD constexpr int dp_rounds() const { return (tiles - sk_tiles + workers - 1) / workers; }
  /// Step 9's longest list, in K tiles: ceil(tiles / workers) whole tiles (a plan without a split walks that).
  HG_HD constexpr int whole_iters() const { return (tiles + workers - 1) / workers * k_tiles; }
  /// The longest worker's iterations: what the plan is chosen to shorten.
  HG_HD constexpr int max_iters() const {
    return dp_rounds() * k_tiles + (sk_workers > 0 ? (sk_iters + sk_workers - 1) / sk_workers : 0);
  }
  /// Parts worker w moves through the workspace: the one it writes (its share starts inside a tile) plus, as the
  /// owner of a split tile, those it reads and adds one after the other.
  HG_HD constexpr int parts_moved(int w) const {
    const int first = sk_begin(w), end = sk_begin(w + 1);
    if (end <= first) return 0;
    const int writes = first % k_tiles != 0 ? 1 : 0;
    const int s = (end - 1) / k_tiles;  // the last tile the share touches: split and owned by w if it starts there
    const int reads = s * k_tiles >= first && last_holder(s) > w ? last_holder(s) - w : 0;
    return writes + reads;
  }
  /// The longest worker's cost in K tiles: its iterations plus part_cost K tiles for every part it moves (the
  /// fixup: a part is 128 KiB per CTA at Hopper's tile, written by one worker, read by the owner).
  HG_HD constexpr int max_cost(int part_cost) const {
    int longest = 0;
    for (int w = 0; w < sk_workers; ++w) {
      const int c = sk_begin(w + 1) - sk_begin(w) + part_cost * parts_moved(w);
      longest = c > longest ? c : longest;
    }
    return dp_rounds() * k_tiles + longest;
  }
};

/// The split's knobs (the verify binary's and the benchmark's --sk-min-share, --sk-rounds, --sk-min-saving,
/// --sk-part-cost, --sk-full-split-max), with their defaults in this one place: one whole round joins the left-over
/// tiles in the stream-K region, no share is shorter than 4 K tiles, a part moved through the workspace costs its
/// worker as much as part_cost K tiles, the split is taken only where it shortens the longest worker by at least
/// min_saving_pct percent of step 9's, and a split of every tile only where the tiles are at most
/// full_split_max_pct percent of the workers. The last three were chosen on the H200 by the sweep of real layer
/// shapes (tools/choose_sk_knobs.py, docs/lab_step10_stream_k.md); Blackwell uses the same, unmeasured there. A
/// min_share larger than the stream-K region's iterations (e.g. 100000) turns the split off: plain step 9.
struct StreamKKnobs {
  int min_share = 4;        ///< K tiles, >= 1: the shortest share of a worker in the stream-K region
  int rounds = 1;           ///< >= 0: whole rounds added to the stream-K region
  int min_saving_pct = 4;   ///< 0 to 100: the least saving of the longest worker for which the plan splits
  int part_cost = 2;        ///< K tiles, >= 0: what one part written or read costs its worker
  int full_split_max_pct = 60;  ///< 0 to 1000: a split of EVERY tile only when tiles <= this % of workers
};

/// The split that plan_stream_k weighs, taken or not: the tiles % workers left over plus `sk_rounds` whole rounds
/// (when there are that many) go to the stream-K region, divided over as many workers as keep every share at
/// least min_share K tiles long (min_share >= 1). sk_workers = 0: nothing to split.
HG_HD constexpr StreamKPlan stream_k_split(int tiles, int k_tiles, int workers, int min_share, int sk_rounds) {
  StreamKPlan p;
  p.tiles = tiles, p.k_tiles = k_tiles, p.workers = workers;
  const int left = tiles % workers;
  const int rounds = tiles / workers < sk_rounds ? tiles / workers : sk_rounds;
  p.sk_tiles = left == 0 ? 0 : left + rounds * workers;
  p.sk_iters = p.sk_tiles * k_tiles;
  p.sk_workers = p.sk_iters / (min_share > 0 ? min_share : 1);
  if (p.sk_workers > workers) p.sk_workers = workers;
  if ((long long)p.sk_iters * p.sk_workers >= (1LL << 32)) p.sk_workers = 0;  // beyond the walk's 32-bit arithmetic
  return p;
}

/// The plan for `tiles` tiles of `k_tiles` K tiles on `workers` workers: stream_k_split's split, unless it would
/// not shorten the longest worker's cost (max_cost: iterations plus part_cost per part moved) by at least
/// min_saving_pct percent of step 9's longest list (whole_iters; 0: by anything). Without it, every tile whole.
HG_HD constexpr StreamKPlan plan_stream_k(int tiles, int k_tiles, int workers, int min_share, int sk_rounds,
                                          int min_saving_pct = 0, int part_cost = 0, int full_split_max_pct = 1000) {
  const StreamKPlan split = stream_k_split(tiles, k_tiles, workers, min_share, sk_rounds);
  const int whole = split.whole_iters();
  const long long saved = split.sk_workers > 0 ? (long long)(whole - split.max_cost(part_cost)) * 100 : 0;
  // A split of every tile leaves no whole tile: at any moment the pairs are at different K positions of tiles that
  // share rows of A or B, which therefore come from L2 or DRAM once per tile rather than once per group. Measured
  // on the sweep (docs/lab_step10_stream_k.md), it paid only where step 9 would leave about half the pairs idle.
  const bool full_ok = split.sk_tiles < tiles || (long long)tiles * 100 <= (long long)full_split_max_pct * workers;
  if (saved > 0 && saved >= (long long)min_saving_pct * whole && full_ok) return split;
  StreamKPlan p;  // sk_tiles = 0: every tile whole, round-robin
  p.tiles = tiles, p.k_tiles = k_tiles, p.workers = workers;
  return p;
}
/// The same with the command line's knobs: what the kernels' host code calls.
HG_HD constexpr StreamKPlan plan_stream_k(int tiles, int k_tiles, int workers, const StreamKKnobs& knobs) {
  return plan_stream_k(tiles, k_tiles, workers, knobs.min_share, knobs.rounds, knobs.min_saving_pct, knobs.part_cost,
                       knobs.full_split_max_pct);
}

/// The work units one worker walks, in order: its stream-K share, cut at tile boundaries, then its whole tiles
/// (sk_tiles + w, then every workers-th one).
struct StreamKWalk {
  StreamKPlan p;
  int w;
  int pos;  ///< the next stream-K iteration while < sk_begin(w + 1); then sk_iters + the whole tiles walked

  HG_HD constexpr StreamKWalk(const StreamKPlan& plan, int worker)
      : p(plan), w(worker), pos(plan.sk_begin(worker)) {}
  HG_HD constexpr bool in_share() const { return pos < p.sk_begin(w + 1); }
  HG_HD constexpr bool valid() const { return in_share() || dp_tile() < p.tiles; }
  HG_HD constexpr WorkUnit current() const {
    if (in_share()) {
      const int tile = pos / p.k_tiles, end = p.sk_begin(w + 1);
      const int k1 = end < (tile + 1) * p.k_tiles ? end - tile * p.k_tiles : p.k_tiles;
      return WorkUnit{tile, pos % p.k_tiles, k1};
    }
    return WorkUnit{dp_tile(), 0, p.k_tiles};
  }
  HG_HD constexpr int dp_tile() const { return p.sk_tiles + w + (pos - p.sk_iters) * p.workers; }
  HG_HD constexpr void next() {
    if (in_share()) {
      const WorkUnit u = current();
      pos = u.tile * p.k_tiles + u.k1;  // the next tile's K tile 0, or the end of the share
      if (!in_share()) pos = p.sk_iters;
    } else {
      ++pos;
    }
  }
};

}  // namespace hg

// common/kernel/stream_k.hpp: how a persistent grid splits the last round of tiles (stream-K, for step 10).
//
// The work is (tile, K tile) iterations, not tiles. `workers` persistent workers (CTA pairs) take the first
// dp_tiles tiles whole, round-robin, as step 9 does: those are whole rounds, so every worker has the same
// number. The iterations of the tiles left over are divided evenly among the workers, in tile-major order
// (tile dp_tiles's K tiles first), so a tile's K range can be split between consecutive workers: stream-K
// (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix Multiplication on the
// GPU", PPoPP 2023), in the data-parallel + stream-K form.
//
// A split tile is finished by the worker that holds its last K tile: the others write their fp32 partial sums
// to a workspace and signal; the finisher waits for them and adds them in the order of their K ranges, so the
// sum does not depend on which part arrives first. Every wait points at a worker of lower index (the parts
// before the tile's last K tile belong to the workers before the finisher), so the waits form no cycle, and
// with every worker resident at once (the grid never exceeds the resident CTAs) each one it waits for runs.
//
// When a share would be shorter than min_share K tiles, fewer workers take part, each a longer share; when
// even that leaves every left-over tile whole, the plan is plain step 9 (no split).
// Host and device code: the kernel and the CPU tests use this one implementation.
#pragma once

#include "common/kernel/hd.hpp"

namespace hg {

struct StreamKPlan {
  int tiles = 0;       ///< output tiles (pair tiles)
  int k_tiles = 0;     ///< K tiles per tile
  int workers = 0;     ///< persistent workers
  int dp_tiles = 0;    ///< tiles computed whole, round-robin: a multiple of workers (all of them without a split)
  int sk_workers = 0;  ///< workers 0 .. sk_workers-1 share the left-over iterations (0: no split)
  int sk_iters = 0;    ///< (tiles - dp_tiles) * k_tiles

  HG_HD constexpr int sk_tiles() const { return tiles - dp_tiles; }
  /// Worker w's stream-K iterations are [sk_begin(w), sk_begin(w + 1)); iteration i is K tile i % k_tiles of
  /// tile dp_tiles + i / k_tiles.
  HG_HD constexpr int sk_begin(int w) const {
    return w >= sk_workers ? sk_iters : int((long long)sk_iters * w / sk_workers);
  }
  /// The worker that holds stream-K iteration i (0 <= i < sk_iters).
  HG_HD constexpr int worker_of(int i) const { return int(((long long)(i + 1) * sk_workers - 1) / sk_iters); }
  /// The first and the last worker holding part of stream-K tile s (0 <= s < sk_tiles()); the last finishes it.
  HG_HD constexpr int first_worker(int s) const { return worker_of(s * k_tiles); }
  HG_HD constexpr int finisher(int s) const { return worker_of((s + 1) * k_tiles - 1); }
  /// Whether stream-K tile s is split (more than one worker holds part of it).
  HG_HD constexpr bool split(int s) const { return first_worker(s) != finisher(s); }
};

/// The plan for `tiles` tiles of `k_tiles` K tiles on `workers` workers, no share shorter than min_share K
/// tiles (min_share >= 1).
HG_HD constexpr StreamKPlan plan_stream_k(int tiles, int k_tiles, int workers, int min_share) {
  StreamKPlan p;
  p.tiles = tiles, p.k_tiles = k_tiles, p.workers = workers;
  const int left = tiles % workers;
  p.dp_tiles = tiles - left;
  p.sk_iters = left * k_tiles;
  int sk_workers = p.sk_iters / (min_share > 0 ? min_share : 1);
  if (sk_workers > workers) sk_workers = workers;
  if (left == 0 || sk_workers <= left) {  // no split would be worth it: the last round's tiles go whole
    p.dp_tiles = tiles;
    p.sk_iters = 0;
    sk_workers = 0;
  }
  p.sk_workers = sk_workers;
  return p;
}

}  // namespace hg

// common/kernel/scheduler.hpp: the L2-grouped persistent tile schedule of step 6.
//
// A persistent CTA c of C visits the linear tiles c, c + C, c + 2C, ... of an m_tiles x n_tiles grid of
// output tiles. Linear tile t is mapped to (m, n) in groups of G tile rows: inside a group the schedule
// walks down a column of G tiles (same n, so the same B tile), then moves to the next column, so the CTAs
// in flight share a few bands of A (G tile rows per group) instead of needing every band of A as a grid
// that walks down whole columns does. Whether that saves DRAM traffic depends on the shape:
// docs/step6_persistent.md has the measured numbers. The last group holds the remaining m_tiles % G rows.
// This mirrors the schedule of the original tutorial (TVM's ClusterPersistentScheduler2D with
// l2_group_size = 8), written from its description.
// Host and device code: the kernel and the CPU tests use this one implementation.
#pragma once

#include "common/kernel/hd.hpp"

namespace hg {

struct TileCoord {
  int m = 0;  ///< tile row: D rows m*TILE_M .. +TILE_M-1, in the caller's tile size
  int n = 0;  ///< tile column: D columns n*TILE_N .. +TILE_N-1
};

/// Position of linear tile t (0 <= t < m_tiles * n_tiles) in the grouped order.
HG_HD constexpr TileCoord grouped_tile(int t, int m_tiles, int n_tiles, int group) {
  const int span = group * n_tiles;                    // tiles in one full group of `group` rows
  const int g = t / span;                              // which group
  const int w = t % span;                              // position inside it
  const int rows = (g + 1) * group <= m_tiles ? group : m_tiles - g * group;  // the last group may be partial
  return TileCoord{g * group + w % rows, w / rows};
}

/// The iterator a persistent CTA walks: tile `cta`, then every num_ctas-th tile after it.
struct TileScheduler {
  int m_tiles, n_tiles, num_ctas, group, tile;

  HG_HD constexpr TileScheduler(int m_tiles_, int n_tiles_, int num_ctas_, int cta, int group_ = 8)
      : m_tiles(m_tiles_), n_tiles(n_tiles_), num_ctas(num_ctas_), group(group_), tile(cta) {}
  HG_HD constexpr bool valid() const { return tile < m_tiles * n_tiles; }
  HG_HD constexpr TileCoord current() const { return grouped_tile(tile, m_tiles, n_tiles, group); }
  HG_HD constexpr void next() { tile += num_ctas; }
};

}  // namespace hg

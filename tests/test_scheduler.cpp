// CPU tests of the L2-grouped persistent tile schedule (common/kernel/scheduler.hpp), the same code the step 6
// kernels run.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "common/kernel/scheduler.hpp"

using hg::grouped_tile;
using hg::TileScheduler;

TEST_CASE("grouped schedule: the first tiles of a 4096^3 problem walk 8 tile rows down one column") {
  // 4096 / 128 = 32 x 32 tiles, groups of 8 rows.
  for (int t = 0; t < 8; ++t) {
    CHECK(grouped_tile(t, 32, 32, 8).m == t);  // tiles 0..7: rows 0..7 of column 0 (they share B's tile 0)
    CHECK(grouped_tile(t, 32, 32, 8).n == 0);
  }
  CHECK(grouped_tile(8, 32, 32, 8).m == 0);   // then column 1
  CHECK(grouped_tile(8, 32, 32, 8).n == 1);
  CHECK(grouped_tile(255, 32, 32, 8).m == 7);  // the first group ends at the last column
  CHECK(grouped_tile(255, 32, 32, 8).n == 31);
  CHECK(grouped_tile(256, 32, 32, 8).m == 8);  // the second group starts at row 8, column 0
  CHECK(grouped_tile(256, 32, 32, 8).n == 0);
  // With 132 CTAs, CTA 5 takes tiles 5, 137, 269: (5,0), (1,17), (13,1).
  TileScheduler s(32, 32, 132, 5);
  CHECK(s.current().m == 5);
  CHECK(s.current().n == 0);
  s.next();
  CHECK(s.current().m == 1);
  CHECK(s.current().n == 17);
  s.next();
  CHECK(s.current().m == 13);
  CHECK(s.current().n == 1);
}

TEST_CASE("grouped schedule: a partial last group walks its m_tiles % 8 rows") {
  // 12 tile rows: one full group (rows 0-7) and a partial group of 4 rows (8-11), 3 columns.
  CHECK(grouped_tile(24, 12, 3, 8).m == 8);
  CHECK(grouped_tile(24, 12, 3, 8).n == 0);
  CHECK(grouped_tile(27, 12, 3, 8).m == 11);
  CHECK(grouped_tile(28, 12, 3, 8).m == 8);
  CHECK(grouped_tile(28, 12, 3, 8).n == 1);
  CHECK(grouped_tile(35, 12, 3, 8).m == 11);
  CHECK(grouped_tile(35, 12, 3, 8).n == 2);
}

TEST_CASE("grouped schedule: every tile exactly once, for many grids and CTA counts") {
  for (int m_tiles : {1, 2, 7, 8, 9, 15, 16, 17, 33, 64})
    for (int n_tiles : {1, 3, 8, 12, 32})
      for (int ctas : {1, 2, 7, 132, 148, 264, 5000}) {  // 5000: more CTAs than tiles
        CAPTURE(m_tiles);
        CAPTURE(n_tiles);
        CAPTURE(ctas);
        std::vector<int> seen(size_t(m_tiles * n_tiles), 0);
        int visits = 0;
        for (int cta = 0; cta < ctas; ++cta)
          for (TileScheduler s(m_tiles, n_tiles, ctas, cta); s.valid(); s.next()) {
            const auto c = s.current();
            REQUIRE(c.m >= 0);
            REQUIRE(c.m < m_tiles);
            REQUIRE(c.n >= 0);
            REQUIRE(c.n < n_tiles);
            ++seen[size_t(c.m * n_tiles + c.n)];
            ++visits;
          }
        CHECK(visits == m_tiles * n_tiles);
        for (int v : seen) CHECK(v == 1);
      }
}

TEST_CASE("grouped schedule: a CTA beyond the last tile has nothing to do") {
  TileScheduler s(1, 1, 132, 1);
  CHECK_FALSE(s.valid());
  TileScheduler first(1, 1, 132, 0);
  CHECK(first.valid());
  first.next();
  CHECK_FALSE(first.valid());
}

// docs/figures/tile_order.cpp: the L2-grouped tile order of docs/concept_tile_order.md: its figure and tables.
#include <cstdio>
#include <string>
#include <vector>

#include "common/kernel/scheduler.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/html_table.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

// ------------------------------------------------------------------------------------------------------
// (d) The L2-grouped tile order of step 6, from hg::grouped_tile and hg::TileScheduler.
// ------------------------------------------------------------------------------------------------------

/// A viridis-like ramp, v in [0, 1].
std::string ramp(double v) {
  static const int stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  v = v < 0 ? 0 : v > 1 ? 1 : v;
  const double f = v * 4;
  const int i = f >= 4 ? 3 : int(f);
  const double t = f - i;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(stops[i][0] + t * (stops[i + 1][0] - stops[i][0])),
                int(stops[i][1] + t * (stops[i + 1][1] - stops[i][1])),
                int(stops[i][2] + t * (stops[i + 1][2] - stops[i][2])));
  return buf;
}

const char* const kWaveColors[10] = {"#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                                     "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#d9d9d9"};

bool draw_tile_order(Svg& svg) {
  constexpr int kM = 12, kN = 16, kGroup = 8, kCtas = 20, kTiles = kM * kN;
  std::vector<int> order(kTiles, -1), cta_of(kTiles, -1), wave_of(kTiles, -1);
  for (int t = 0; t < kTiles; ++t) {
    const hg::TileCoord c = hg::grouped_tile(t, kM, kN, kGroup);
    if (c.m < 0 || c.m >= kM || c.n < 0 || c.n >= kN || order[size_t(c.m * kN + c.n)] != -1) {
      std::fprintf(stderr, "tile order: tile %d maps to (%d, %d), outside or twice\n", t, c.m, c.n);
      return false;
    }
    order[size_t(c.m * kN + c.n)] = t;
    // What the figure shows: inside a group, consecutive tiles walk down one column of the group's rows.
    const int g = t / (kGroup * kN), rows = (g + 1) * kGroup <= kM ? kGroup : kM - g * kGroup;
    const int w = t - g * kGroup * kN;
    if (c.m != g * kGroup + w % rows || c.n != w / rows) {
      std::fprintf(stderr, "tile order: tile %d is not at row %d, column %d of its group\n", t, w % rows, w / rows);
      return false;
    }
  }
  int waves = 0;
  for (int cta = 0; cta < kCtas; ++cta) {
    int i = 0;
    for (hg::TileScheduler s(kM, kN, kCtas, cta, kGroup); s.valid(); s.next(), ++i) {
      const hg::TileCoord c = s.current();
      const size_t idx = size_t(c.m * kN + c.n);
      if (cta_of[idx] != -1 || order[idx] != cta + i * kCtas) {
        std::fprintf(stderr, "tile order: CTA %d's tile %d is not linear tile %d\n", cta, i, cta + i * kCtas);
        return false;
      }
      cta_of[idx] = cta;
      wave_of[idx] = i;
      if (i + 1 > waves) waves = i + 1;
    }
  }
  for (int v : cta_of)
    if (v < 0) {
      std::fprintf(stderr, "tile order: a tile is visited by no CTA\n");
      return false;
    }
  if (waves > 10) {
    std::fprintf(stderr, "tile order: more waves than colors\n");
    return false;
  }

  // The tile rows and columns (row bands of A and of B) that the first wave reads, in three orders: grouped,
  // whole columns of tiles (a 2D grid with blockIdx.x over M, launched in order), whole rows.
  auto bands = [&](int group) {
    std::vector<bool> rows(kM, false), cols(kN, false);
    int nr = 0, nc = 0;
    for (int t = 0; t < kCtas; ++t) {
      const hg::TileCoord c = hg::grouped_tile(t, kM, kN, group);
      if (!rows[size_t(c.m)]) rows[size_t(c.m)] = true, ++nr;
      if (!cols[size_t(c.n)]) cols[size_t(c.n)] = true, ++nc;
    }
    return std::pair<int, int>(nr, nc);
  };
  const auto grouped = bands(kGroup), by_columns = bands(kM), by_rows = bands(1);

  const double cw = 31, ch = 24, top = 112, left = 62, gap = 70, right = left + kN * cw + gap;
  svg.size(right + kN * cw + 112, top + kM * ch + 100);
  svg.text(16, 24,
           "Step 6's L2-grouped tile order: a 12 x 16 grid of output tiles, groups of 8 tile rows (the last group has "
           "4)",
           15, "start", kBold);
  svg.text(left + kN * cw / 2, 56, "visiting order: linear tile t = hg::grouped_tile(t, 12, 16, 8)", 12, "middle",
           kBold);
  svg.text(left + kN * cw / 2, 72, "t walks down the 8 rows of a group, then moves one column right", 11, "middle",
           "", kGrey);
  svg.text(right + kN * cw / 2, 56, "who computes it: " + str(kCtas) + " persistent CTAs (hg::TileScheduler)", 12,
           "middle", kBold);
  svg.text(right + kN * cw / 2, 72, "cell = CTA c (tiles c, c + 20, ...); color = wave: tiles in flight together", 11,
           "middle", "", kGrey);
  for (int panel = 0; panel < 2; ++panel) {
    const double px = panel == 0 ? left : right;
    for (int n = 0; n < kN; n += 1)
      svg.text(px + n * cw + cw / 2, top - 8, str(n), 9, "middle", "", kGrey);
    svg.text(px + kN * cw / 2, top - 22, "tile column n (B row band)", 10, "middle", "", kGrey);
    for (int m = 0; m < kM; ++m) svg.text(px - 6, top + m * ch + ch / 2 + 4, "m " + str(m), 9, "end", "", kGrey);
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        const size_t idx = size_t(m * kN + n);
        const double x = px + n * cw, y = top + m * ch;
        if (panel == 0) {
          const double v = double(order[idx]) / (kTiles - 1);
          svg.rect(x, y, cw, ch, ramp(v), "#ffffff", 0.8);
          svg.text(x + cw / 2, y + ch / 2 + 4, str(order[idx]), 10, "middle", kMono, v < 0.55 ? "#ffffff" : "#1f2328");
        } else {
          svg.rect(x, y, cw, ch, kWaveColors[wave_of[idx]], "#ffffff", 0.8);
          svg.text(x + cw / 2, y + ch / 2 + 4, str(cta_of[idx]), 10, "middle", kMono);
        }
      }
    for (int g = 0; g * kGroup < kM; ++g) {  // the groups
      const int rows = (g + 1) * kGroup <= kM ? kGroup : kM - g * kGroup;
      svg.rect(px, top + g * kGroup * ch, kN * cw, rows * ch, "none", "#1f2328", 2.5);
      if (panel == 1) {
        svg.text(px + kN * cw + 8, top + (g * kGroup + rows / 2.0) * ch - 3, "group " + str(g), 11, "start", kBold);
        svg.text(px + kN * cw + 8, top + (g * kGroup + rows / 2.0) * ch + 12,
                 str(rows) + " rows" + (rows < kGroup ? " (partial)" : ""), 11, "start");
      }
    }
    if (panel == 1)  // CTA 0's tiles
      for (int m = 0; m < kM; ++m)
        for (int n = 0; n < kN; ++n)
          if (cta_of[size_t(m * kN + n)] == 0)
            svg.rect(px + n * cw + 1.5, top + m * ch + 1.5, cw - 3, ch - 3, "none", "#000000", 2.2);
  }
  const double ly = top + kM * ch + 30;
  for (int w = 0; w < waves; ++w) {
    svg.rect(right + w * 58, ly - 11, 14, 14, kWaveColors[w], "#1f2328", 0.6);
    svg.text(right + 18 + w * 58, ly, "wave " + str(w), 10);
  }
  svg.rect(left, ly - 11, 14, 14, "none", "#000000", 2.2);
  svg.text(left + 20, ly, "outlined on the right: the tiles of CTA 0 (0, 20, 40, ...)", 11);
  svg.text(16, ly + 26,
           "The first wave (tiles 0-" + str(kCtas - 1) + ") reads " + str(grouped.first) + " row bands of A and " +
               str(grouped.second) + " of B (" + str(grouped.first + grouped.second) +
               "). Visiting whole columns of tiles instead, it would read " + str(by_columns.first) + " of A and " +
               str(by_columns.second) + " of B (" + str(by_columns.first + by_columns.second) + ");",
           11);
  svg.text(16, ly + 44,
           "whole rows, " + str(by_rows.first) + " of A and " + str(by_rows.second) + " of B (" +
               str(by_rows.first + by_rows.second) +
               "). The fewer bands the CTAs running together share, the more of them stay in L2.",
           11);
  if (grouped.first + grouped.second >= by_columns.first + by_columns.second ||
      grouped.first + grouped.second >= by_rows.first + by_rows.second) {
    std::fprintf(stderr, "tile order: the grouped first wave does not read fewer bands\n");
    return false;
  }
  return true;
}


std::string coord(int t, int m_tiles, int n_tiles) {
  const hg::TileCoord c = hg::grouped_tile(t, m_tiles, n_tiles, 8);
  return str(t) + ": (" + str(c.m) + ", " + str(c.n) + ")";
}

// The Hopper step 6 grid on an H200: 132 SMs x 2 resident CTAs (the occupancy API's answer for its 98 KiB of
// shared memory; the committed profile's grid column reads 264).
constexpr int kH200Ctas = 264;

bool table_tile_order_first(std::string& html) {
  constexpr int kTilesSide = 4096 / 128, kCtas = kH200Ctas, kShow = 3;
  HtmlTable t({"CTA", "tiles it computes", "1st tile: t: (m, n)", "2nd", "3rd", "last"});
  const int total = kTilesSide * kTilesSide;
  for (int cta : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 262, 263}) {
    std::vector<int> tiles;
    for (hg::TileScheduler s(kTilesSide, kTilesSide, kCtas, cta); s.valid(); s.next()) tiles.push_back(s.tile);
    const int expect = total / kCtas + (cta < total % kCtas ? 1 : 0);
    if (int(tiles.size()) != expect || tiles[0] != cta) {
      std::fprintf(stderr, "tile order: CTA %d gets %zu tiles, expected %d\n", cta, tiles.size(), expect);
      return false;
    }
    std::vector<Cell> row{plain(cta), plain(int(tiles.size()))};
    for (int i = 0; i < kShow; ++i)
      row.push_back(i < int(tiles.size()) ? plain(coord(tiles[size_t(i)], kTilesSide, kTilesSide)) : plain("-"));
    row.push_back(plain(coord(tiles.back(), kTilesSide, kTilesSide)));
    t.row(row);
  }
  html = t.str("<code>hg::TileScheduler(32, 32, 264, cta)</code> (M = N = 4096: 32 x 32 tiles of 128 x 128, "
               "groups of 8 tile rows, 264 CTAs as on an H200), CTAs 0 to 9, 262 and 263");
  return true;
}

bool table_tile_order_bands(std::string& html) {
  constexpr int kCtas = kH200Ctas;
  HtmlTable t({"problem", "order of the first " + str(kCtas) + " tiles", "tile rows", "tile columns",
               "A + B bands they read", "bytes"});
  struct Problem {
    int m, n, k;
  };
  for (const Problem p : {Problem{4096, 4096, 4096}, Problem{8192, 8192, 8192}, Problem{16384, 4096, 1024}}) {
    const int m_tiles = p.m / 128, n_tiles = p.n / 128;
    for (int group : {8, m_tiles}) {
      std::vector<bool> rows(size_t(m_tiles), false), cols(size_t(n_tiles), false);
      int nr = 0, nc = 0;
      for (int t = 0; t < kCtas && t < m_tiles * n_tiles; ++t) {
        const hg::TileCoord c = hg::grouped_tile(t, m_tiles, n_tiles, group);
        if (!rows[size_t(c.m)]) rows[size_t(c.m)] = true, ++nr;
        if (!cols[size_t(c.n)]) cols[size_t(c.n)] = true, ++nc;
      }
      const double mib = double(nr + nc) * 128.0 * p.k * 2.0 / (1024.0 * 1024.0);  // a band: 128 rows x K fp16
      char bytes[32];
      std::snprintf(bytes, sizeof bytes, "%.0f MiB", mib);
      t.row({plain(str(p.m) + " x " + str(p.n) + " x " + str(p.k)),
             plain(group == 8 ? "grouped by 8 tile rows (step 6)"
                              : "whole columns (" + str(m_tiles) + " tile rows), as a 2D grid launched in order"),
             plain(nr), plain(nc), plain(nr + nc), plain(bytes)});
    }
  }
  html = t.str("<code>hg::grouped_tile(t, m_tiles, n_tiles, group)</code> for t = 0 to 263: the distinct tile "
               "rows (row bands of A, 128 x K) and tile columns (row bands of B) touched by the first wave of "
               "264 tiles (fewer bands is not always fewer DRAM bytes: the step 6 page has the measured ones)");
  return true;
}

}  // namespace hg::figures

// CPU tests of the documentation's figures and tables (docs/figures/): each one's own checks of what it shows
// against the code (the swizzle, the owner maps, the phase model, the tile order, step 7's model, the stream-K plan,
// the kernels' constants) must hold, and each must produce its output; step 11's figure must mark, at each of the
// benchmark's shapes, the tile that hg::choose_tile picks; step 9's Blackwell figure must give each CTA and consumer
// the rows, B part and TMEM columns that the kernel addresses. The docs build runs the same functions to write the
// files.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/harness/bench.hpp"
#include "common/kernel/stream_k.hpp"
#include "common/kernel/tile_choice.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

using namespace hg::figures;

TEST_CASE("figures: every figure's checks on the code hold, and it draws something") {
  for (const Figure& f : kFigures) {
    CAPTURE(f.file);
    Svg svg;
    CHECK(f.draw(svg));
    CHECK(svg.str().find("<svg") != std::string::npos);
  }
}

TEST_CASE("figures: every table's checks on the code hold, and it writes a table") {
  for (const Fragment& f : kFragments) {
    CAPTURE(f.file);
    std::string html;
    CHECK(f.write(html));
    CHECK(html.find("<table") != std::string::npos);
  }
}

TEST_CASE("figures: step 11's figure marks, at every default shape, the tile choose_tile picks, and only that one") {
  Svg svg;
  REQUIRE(draw_step11_tile_choice(svg));
  const std::string doc = svg.str();
  const Step11FigureInputs in = step11_figure_inputs();
  REQUIRE(in.menu.size() > 1);
  const auto text = [](const hg::TileOption& t) { return std::to_string(t.m) + " x " + std::to_string(t.n); };
  size_t marked = 0;
  for (const hg::Shape& s : hg::default_bench_shapes()) {
    const std::string shape = std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k);
    CAPTURE(shape);
    const int pick = hg::choose_tile(in.menu.data(), int(in.menu.size()), int(s.m), int(s.n), int(s.k), in.pairs,
                                     hg::StreamKKnobs{});
    const size_t at = doc.find(">" + shape + "<");
    REQUIRE(at != std::string::npos);
    // The shape's label names the pick, and the bar marked chosen is the pick's: the last tile label before it.
    CHECK(doc.find(">chosen: " + text(in.menu[size_t(pick)]) + "<", at) == doc.find(">chosen: ", at));
    const size_t mark = doc.find(">chosen<", at);
    REQUIRE(mark != std::string::npos);
    int marked_tile = -1;
    size_t last = 0;
    for (size_t i = 0; i < in.menu.size(); ++i) {
      const size_t label = doc.find(">" + text(in.menu[i]) + "<", at);
      if (label < mark && (marked_tile < 0 || label > last)) marked_tile = int(i), last = label;
    }
    CHECK(marked_tile == pick);
    ++marked;
  }
  // One bar per shape is marked chosen, no more.
  size_t bars = 0;
  for (size_t at = doc.find(">chosen<"); at != std::string::npos; at = doc.find(">chosen<", at + 1)) ++bars;
  CHECK(bars == marked);
}

namespace {

size_t occurrences(const std::string& doc, const std::string& s) {
  size_t n = 0;
  for (size_t at = doc.find(s); at != std::string::npos; at = doc.find(s, at + 1)) ++n;
  return n;
}

std::string span(int first, int count) { return std::to_string(first) + "-" + std::to_string(first + count - 1); }

}  // namespace

TEST_CASE("figures: step 9's Blackwell figure gives each CTA and consumer the kernel's rows, B part and TMEM columns") {
  Svg svg;
  REQUIRE(draw_step9_ownership_sm100(svg));
  const std::string doc = svg.str();
  const Step9Sm100FigureInputs k = step9_sm100_figure_inputs();
  REQUIRE(k.ctas == 2);
  // step9_multi_consumer/hgemm_sm100.cuh: consumer c of CTA r computes rows c * MMA_M + rank * BLK_M of the pair
  // tile (the epilogue's tile_m0) and loads them as A block c (the producer's tile_m0 + c * MMA_M); CTA r loads B
  // rows rank * B_ROWS; consumer c accumulates in TMEM columns c * BLK_N (tmem_base + c * BLK_N).
  std::vector<int> row_owners(size_t(k.cluster_tile_m), 0), col_loaders(size_t(k.blk_n), 0);
  std::vector<int> tmem_users(size_t(k.tmem_cols), 0);
  for (int r = 0; r < k.ctas; ++r) {
    const std::string cta = "CTA " + std::to_string(r);
    const std::string b_rows = "B rows " + span(r * k.b_rows, k.b_rows);
    CHECK(occurrences(doc, ">" + cta + ": " + b_rows + "<") == 1);  // above the columns
    const std::string stage_label = ">" + cta + "'s stage<";
    const size_t stage = doc.find(stage_label);
    REQUIRE(stage != std::string::npos);
    const size_t next_stage = doc.find("'s stage<", stage + stage_label.size());  // the next CTA's panel, or npos
    for (int c = 0; c < k.consumers; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      const int row0 = c * k.mma_m + r * k.blk_m;
      const std::string rows = "rows " + span(row0, k.blk_m);
      CHECK(occurrences(doc, ">consumer " + std::to_string(c) + " in " + cta + ": " + rows + "<") == 1);
      const size_t a_block = doc.find(">A block " + std::to_string(c) + ": " + rows + "<", stage);
      CHECK(a_block < next_stage);  // in this CTA's stage
      for (int row = row0; row < row0 + k.blk_m; ++row) ++row_owners[size_t(row)];
    }
    CHECK(doc.find(">B part: " + b_rows + "<", stage) < next_stage);
    for (int col = r * k.b_rows; col < (r + 1) * k.b_rows; ++col) ++col_loaders[size_t(col)];
  }
  for (int c = 0; c < k.consumers; ++c) {
    CAPTURE(c);
    REQUIRE((c + 1) * k.blk_n <= k.tmem_cols);
    const std::string cols = "columns " + span(c * k.blk_n, k.blk_n);
    CHECK(occurrences(doc, ">accumulator: TMEM " + cols + ", both CTAs<") == 1);
    CHECK(occurrences(doc, ">consumer " + std::to_string(c) + ": " + cols + "<") == size_t(k.ctas));  // each TMEM
    for (int col = c * k.blk_n; col < (c + 1) * k.blk_n; ++col) ++tmem_users[size_t(col)];
  }
  // No other owner drawn, and the blocks tile the pair's tile, B's rows and TMEM exactly once.
  CHECK(occurrences(doc, " in CTA ") == size_t(k.ctas * k.consumers));
  CHECK(occurrences(doc, ">A block ") == size_t(2 * k.ctas * k.consumers));  // in the tile, and in a stage
  for (int n : row_owners) CHECK(n == 1);
  for (int n : col_loaders) CHECK(n == 1);
  for (int n : tmem_users) CHECK(n == 1);
}

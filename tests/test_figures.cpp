// CPU tests of the documentation's figures and tables (docs/figures/): each one's own checks of what it shows
// against the code (the swizzle, the owner maps, the phase model, the tile order, step 7's model, the stream-K plan,
// the kernels' constants) must hold, and each must produce its output; step 11's figure must mark, at each of the
// benchmark's shapes, the tile that hg::choose_tile picks. The docs build runs the same functions to write the files.
#include <doctest/doctest.h>

#include <string>

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

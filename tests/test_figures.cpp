// CPU tests of the documentation's figures and tables (docs/figures/): each one's own checks of what it shows
// against the code (the swizzle, the owner maps, the phase model, the tile order, step 7's model, the stream-K plan,
// the kernels' constants) must hold, and each must produce its output. The docs build runs the same functions to
// write the files.
#include <doctest/doctest.h>

#include <string>

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

// docs/figures/step11_fitted_tile.cu: step 11's tile choice at the benchmark's shapes (docs/step11_fitted_tile.md),
// from the same forecasts as the page's table (tools/tile_choice_facts.hpp: hg::forecast_tile and hg::choose_tile
// with the kernel's menu and measured rates, step11::sm90::kTiles). Includes the kernel's header, so it is compiled by
// nvcc, host code only.
#include <cstdio>
#include <string>
#include <vector>

#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"
#include "tools/tile_choice_facts.hpp"

namespace hg::figures {

namespace {

namespace k11 = step11::sm90;

// One color per tile of the menu, in its order (ColorBrewer Set3); the idle share hatched over it.
const char* const kMenuColors[] = {"#80b1d3", "#8dd3c7", "#b3de69", "#fdb462", "#bebada", "#fccde5"};
static_assert(sizeof(kMenuColors) / sizeof(kMenuColors[0]) == facts::kStep11MenuSize, "one color per tile");
const char* const kInk = "#1f2328";
const char* const kSplit = "#674ea7";  // a plan that splits (step 10's figure's color for a part)

/// The figure's checks: choose_tile's pick has the smallest predicted time and no tile before it has as small a
/// one (the first of equals); each idle share is a share.
bool check_choice(const facts::TileChoice& c) {
  for (int i = 0; i < facts::kStep11MenuSize; ++i) {
    const TileForecast& f = c.forecasts[size_t(i)];
    const int64_t best = c.forecasts[size_t(c.pick)].predicted;
    if (f.predicted <= 0 || f.predicted < best || (i < c.pick && f.predicted == best) || f.idle_permille < 0 ||
        f.idle_permille >= 1000) {
      std::fprintf(stderr,
                   "step 11 tile choice, %s: choose_tile picks %s, but %s predicts %lld against %lld (idle %d "
                   "thousandths): the heuristic no longer takes the smallest predicted time, first of equals; fix "
                   "hg::choose_tile or hg::forecast_tile\n",
                   facts::shape_text(c).c_str(), facts::tile_text(k11::kTiles[c.pick]).c_str(),
                   facts::tile_text(k11::kTiles[i]).c_str(), (long long)f.predicted, (long long)best,
                   f.idle_permille);
      return false;
    }
  }
  return true;
}

}  // namespace

Step11FigureInputs step11_figure_inputs() {
  return {std::vector<TileOption>(std::begin(k11::kTiles), std::end(k11::kTiles)), facts::kH200Pairs};
}

bool draw_step11_tile_choice(Svg& svg) {
  const std::vector<facts::TileChoice> choices = facts::step11_tile_choices();
  double most = 1;  // the longest bar, relative to its shape's chosen tile
  for (const facts::TileChoice& c : choices) {
    if (!check_choice(c)) return false;
    for (int i = 0; i < facts::kStep11MenuSize; ++i) most = c.relative(i) > most ? c.relative(i) : most;
  }

  const double x0 = 250, unit = 440;  // a bar's left edge; pixels per chosen tile's time
  const double c0 = x0 + most * unit + 16;
  const double cols[] = {c0, c0 + 46, c0 + 100, c0 + 190, c0 + 240};  // time, rounds, split, idle, chosen
  const double bar = 15, pitch = 19, group = facts::kStep11MenuSize * pitch + 26;
  svg.hatch_pattern("tc_idle", kRed);
  svg.text(16, 24,
           "Step 11: each tile's predicted time, relative to the tile hg::choose_tile picks, at the benchmark's shapes",
           15, "start", kBold);
  std::string rates;
  for (int i = 0; i < facts::kStep11MenuSize; ++i)
    rates += (i ? ", " : "") + facts::tile_text(k11::kTiles[i]) + ": " + str(k11::kTiles[i].rate_permille);
  svg.text(16, 44,
           "hg::forecast_tile on the H200's " + str(facts::kH200Pairs) + " pairs with the split's default knobs, the "
               "menu step11::sm90::kTiles and its measured rates per K tile (" + rates + " thousandths)",
           11, "start", "", kGrey);

  const double top = 84;
  const char* const heads[] = {"time", "rounds", "split", "idle"};
  for (int h = 0; h < 4; ++h) svg.text(cols[h], top - 12, heads[h], 10.5, "start", kBold, kGrey);
  double y = top;
  for (const facts::TileChoice& c : choices) {
    svg.text(16, y + 12, facts::shape_text(c), 12, "start", kBold);
    svg.text(16, y + 28, "chosen: " + facts::tile_text(k11::kTiles[c.pick]), 11, "start", "", kGrey);
    for (int i = 0; i < facts::kStep11MenuSize; ++i) {
      const TileForecast& f = c.forecasts[size_t(i)];
      const double yb = y + i * pitch, w = c.relative(i) * unit, idle = w * f.idle_permille / 1000.0;
      const bool chosen = i == c.pick;
      svg.text(x0 - 8, yb + bar - 3.5, facts::tile_text(k11::kTiles[i]), 11, "end", chosen ? kBold : "");
      svg.rect(x0, yb, w - idle, bar, kMenuColors[i], "none", 0);
      svg.rect(x0 + w - idle, yb, idle, bar, kRedFill, "none", 0);
      svg.rect(x0 + w - idle, yb, idle, bar, "url(#tc_idle)", "none", 0);
      svg.rect(x0, yb, w, bar, "none", chosen ? kInk : kGrey, chosen ? 2.4 : 0.8);
      // The bar's numbers, in columns right of the longest bar.
      const double yt = yb + bar - 3.5;
      const std::string style = chosen ? kBold : "", ink = chosen ? kInk : kGrey;
      svg.text(cols[0], yt, facts::fixed(c.relative(i), 2), 10.5, "start", style, ink);
      svg.text(cols[1], yt, str(f.rounds), 10.5, "start", style, ink);
      svg.text(cols[2], yt, f.plan.sk_tiles > 0 ? "yes, " + str(f.plan.sk_tiles) + " tiles" : "no", 10.5, "start",
               style, f.plan.sk_tiles > 0 ? kSplit : ink);
      svg.text(cols[3], yt, facts::fixed(f.idle_permille / 10.0, 1) + "%", 10.5, "start", style, ink);
      if (chosen) svg.text(cols[4], yt, "chosen", 10.5, "start", kBold, kInk);
    }
    y += group;
  }
  // The chosen tile's time, 1.00 at every shape, across all the groups; the axis under them.
  const double bottom = y - group + facts::kStep11MenuSize * pitch;
  svg.line(x0 + unit, top - 6, x0 + unit, bottom + 4, kInk, 1, "stroke-dasharray=\"4 3\"");
  svg.line(x0, bottom + 8, x0 + most * unit, bottom + 8, kGrey, 1);
  for (int t = 0; t * 0.25 <= most; ++t) {
    const double x = x0 + t * 0.25 * unit;
    svg.line(x, bottom + 8, x, bottom + 12, kGrey, 1);
    svg.text(x, bottom + 24, facts::fixed(t * 0.25, 2), 9, "middle", "", kGrey);
  }
  svg.text(x0 + most * unit + 8, bottom + 12, "x the chosen tile's time", 9, "start", "", kGrey);

  const double ly = bottom + 50;
  svg.rect(16, ly - 11, 28, 14, kMenuColors[0], kInk, 2.4);
  svg.text(50, ly, "the chosen tile (the smallest predicted time; a tie goes to the tile listed first)", 11);
  svg.rect(520, ly - 11, 28, 14, kRedFill, "none", 0);
  svg.rect(520, ly - 11, 28, 14, "url(#tc_idle)", kGrey, 0.8);
  svg.text(554, ly, "the pairs' idle share while the longest worker runs", 11);
  svg.text(16, ly + 22,
           "A bar: the longest worker's K tiles (each part it moves at " + str(hg::kTilePartPrice) +
               " K tiles) times a K tile's work over the tile's rate. Rounds: of whole tiles, without a split. Split: "
               "the tiles step 10's plan over that tiling shares by K.",
           11, "start", "", kGrey);
  svg.size(cols[4] + 60, ly + 38);
  return true;
}

}  // namespace hg::figures

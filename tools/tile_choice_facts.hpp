// tools/tile_choice_facts.hpp: step 11's heuristic at the benchmark's shapes, as its lesson page shows it twice: the
// table of `hg_step_facts tile_choice` (tools/step_facts.cu) and the figure step11_tile_choice.svg
// (docs/figures/step11_fitted_tile.cu). Both call this, so they show the same forecasts: the calls the Hopper
// kernel's host side makes (hg::forecast_tile, hg::choose_tile) with its menu and measured rates
// (step11::sm90::kTiles), on the H200's pairs with the split's default knobs. Includes the kernel's header: nvcc
// only (host code; the kernel bodies compile out).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/harness/bench.hpp"
#include "common/kernel/stream_k.hpp"
#include "common/kernel/tile_choice.hpp"
#include "step11_fitted_tile/hgemm_sm90.cuh"

namespace hg::facts {

// The H200's CTA pairs: its 132 SMs hold one CTA each of step 11's kernel (the occupancy the host asks for).
constexpr int kH200Pairs = 132 / 2;

constexpr int kStep11MenuSize = int(sizeof(step11::sm90::kTiles) / sizeof(step11::sm90::kTiles[0]));

/// One shape: every tile's forecast, in the menu's order, and the index choose_tile picks.
struct TileChoice {
  int m = 0, n = 0, k = 0;
  int pick = 0;
  std::vector<TileForecast> forecasts;
  /// Tile i's predicted time over the chosen tile's.
  double relative(int i) const {
    return double(forecasts[size_t(i)].predicted) / double(forecasts[size_t(pick)].predicted);
  }
};

/// Step 11's choice at every shape of default_bench_shapes(), in their order.
inline std::vector<TileChoice> step11_tile_choices() {
  const StreamKKnobs knobs;  // the defaults, as the verify binary and the benchmark run without --sk-*
  std::vector<TileChoice> out;
  for (const Shape& s : default_bench_shapes()) {
    TileChoice c;
    c.m = int(s.m), c.n = int(s.n), c.k = int(s.k);
    c.pick = choose_tile(step11::sm90::kTiles, kStep11MenuSize, c.m, c.n, c.k, kH200Pairs, knobs);
    for (const TileOption& t : step11::sm90::kTiles)
      c.forecasts.push_back(forecast_tile(t, c.m, c.n, c.k, kH200Pairs, knobs));
    out.push_back(c);
  }
  return out;
}

inline std::string tile_text(const TileOption& t) { return std::to_string(t.m) + " x " + std::to_string(t.n); }

inline std::string shape_text(const TileChoice& c) {
  return std::to_string(c.m) + " x " + std::to_string(c.n) + " x " + std::to_string(c.k);
}

inline std::string fixed(double v, int decimals) {
  char s[32];
  std::snprintf(s, sizeof s, "%.*f", decimals, v);
  return s;
}

}  // namespace hg::facts
